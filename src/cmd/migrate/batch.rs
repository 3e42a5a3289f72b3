//! Files migrated as a batch (every run but one session to stdout: `-i`,
//! `--check`, `--dry-run`, of files, directories or `--all`), on every
//! core: one worker per core reads and migrates; in place, the new text
//! goes to a temporary file beside the old one, and many threads flush
//! those and rename them over the files (see [`run_batch`]). The workers
//! print their own lines (standard output is never held), through
//! [`Progress`], which keeps a terminal's progress line out of their way.

use super::{Mode, Request, TEMP_TAG};
use crate::cli::{Log, Out};
use crate::error::{Diagnostic, Error, Result};
use crate::migrate::{self, migrate_bytes, Outcome};
use crate::write::{self, dir_of, Snapshot, TempFile};
use std::collections::HashSet;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Result of one file in a batch.
enum FileResult {
    Migrated,
    Current,
    Failed,
}

/// A line on standard output, written and flushed at once: a batch's
/// workers (and its relocation) each print their own, as standard output
/// is never held for the batch. A failed write is reported once through
/// `log` (the exit status says it); a reader that has gone is not.
pub(super) fn print_line(log: Log, msg: &str) {
    static FAILED: std::sync::Once = std::sync::Once::new();
    let mut o = std::io::stdout().lock();
    if let Err(e) = o.line(msg.as_bytes()).and_then(|()| o.done()) {
        if !e.is_broken_pipe() {
            FAILED.call_once(|| log.error(&e));
        }
    }
}

/// How a batch says things: its counters and the progress line on a
/// terminal (`TOOL: N/TOTAL files`, unless quiet), which every message of
/// the workers clears first.
struct Progress {
    log: Log,
    total: usize,
    done: AtomicUsize,
    tty: bool,
    last: Mutex<Option<Instant>>,
}

impl Progress {
    fn new(log: Log, total: usize) -> Self {
        Progress {
            log,
            total,
            done: AtomicUsize::new(0),
            tty: std::io::stderr().is_terminal() && total > 1 && !log.quiet,
            last: Mutex::new(None),
        }
    }

    /// Print a message (clearing the progress line first).
    fn say(&self, print: impl FnOnce()) {
        let mut guard = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if self.tty {
            eprint!("\r\x1b[K");
        }
        print();
        *guard = None;
    }

    /// A line on standard output ([`print_line`]).
    fn line(&self, msg: &str) {
        self.say(|| print_line(self.log, msg))
    }

    /// A warning ([`Log::warn`]: not when quiet).
    fn warn(&self, d: &Diagnostic) {
        if !self.log.quiet {
            self.say(|| self.log.warn(d))
        }
    }

    /// `TOOL: error: ...`, even when quiet.
    fn error(&self, e: impl std::fmt::Display) {
        self.say(|| self.log.error(e))
    }

    fn tick(&self) {
        let n = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if !self.tty {
            return;
        }
        let mut guard = self.last.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        if n == self.total
            || match *guard {
                None => true,
                Some(t) => now - t >= Duration::from_millis(100),
            }
        {
            eprint!("\r\x1b[K{}: {n}/{} files", self.log.tool, self.total);
            *guard = Some(now);
        }
    }

    fn clear(&self) {
        if self.tty {
            eprint!("\r\x1b[K");
        }
    }
}

/// Files staged (written to their temporary file) but not yet flushed and
/// renamed, at most: the queue between the workers that migrate and those
/// that flush. Each holds its old text (for the check before the rename)
/// and two open files; their old texts together are also kept under
/// [`STAGED_BYTES`].
const QUEUE: usize = 64;

/// Threads that flush temporary files and rename them. They mostly wait on
/// the disk (each `fsync` ends with a cache flush of the device); many in
/// flight at once keep the workers from waiting on them: with 16, the
/// workers of a 2-core machine still waited for the queue to drain.
const FLUSHERS: usize = 64;

/// The old texts of staged files held at once, at most (a single file
/// larger than this is staged alone).
const STAGED_BYTES: usize = 256 << 20;

/// The bytes of old text staged and not yet renamed, under [`STAGED_BYTES`].
#[derive(Default)]
struct Budget {
    used: Mutex<usize>,
    freed: std::sync::Condvar,
}

impl Budget {
    fn take(&self, n: usize) {
        let Ok(mut used) = self.used.lock() else {
            return;
        };
        while *used > 0 && used.saturating_add(n) > STAGED_BYTES {
            used = match self.freed.wait(used) {
                Ok(u) => u,
                Err(_) => return,
            };
        }
        *used = used.saturating_add(n);
    }

    fn give(&self, n: usize) {
        if let Ok(mut used) = self.used.lock() {
            *used = used.saturating_sub(n);
        }
        self.freed.notify_all();
    }
}

/// A migrated file written to its temporary file beside it (not yet
/// flushed), waiting to be flushed, checked and renamed.
struct Staged {
    index: usize,
    name: String,
    real: PathBuf,
    temp: TempFile,
    /// The file as it was opened and read (kept open: see `Batch::held`).
    file: std::fs::File,
    old: Vec<u8>,
    snap: Snapshot,
    backup: Option<PathBuf>,
    malformed_kept: usize,
}

/// What the first step does with one file.
enum Step {
    Done(FileResult),
    Staged(Box<Staged>),
}

/// Shared by the workers of a batch.
struct Batch<'a> {
    req: &'a Request,
    progress: Progress,
    results: Mutex<Vec<Option<FileResult>>>,
    /// Directories already cleared of stray temporary files.
    cleaned: Mutex<HashSet<PathBuf>>,
    /// Directories where a file was renamed: each is flushed once at the end.
    renamed_in: Mutex<HashSet<PathBuf>>,
    /// The replaced files, kept open until the batch ends (at most
    /// `hold_max`), so that their inodes are freed together at the end. An
    /// inode freed while new ones are being created costs every later
    /// creation in its block group a look at it: ext4 without a journal
    /// skips inodes deleted in the last seconds (`recently_deleted`), which
    /// made creating the temporary files quadratic in the batch size.
    held: Mutex<Vec<std::fs::File>>,
    hold_max: usize,
}

impl Batch<'_> {
    /// Keep a replaced file open (or close it, past the limit).
    fn hold(&self, f: std::fs::File) {
        if let Ok(mut h) = self.held.lock() {
            if h.len() < self.hold_max {
                h.push(f);
            }
        }
    }

    fn record(&self, i: usize, r: FileResult) {
        if let Ok(mut v) = self.results.lock() {
            v[i] = Some(r);
        }
        self.progress.tick();
    }

    fn error(&self, e: &Error) -> FileResult {
        self.progress.error(e);
        FileResult::Failed
    }
}

/// Migrate many files. In place, a file is migrated in two steps:
///
/// 1. (one worker per core) read it, migrate it, write the new text to a
///    temporary file beside it, not flushed;
/// 2. (many workers) flush that temporary file (`fsync`; many at once, so
///    that the file system commits them together), check that the file
///    still holds what was read (through the file still open from step 1),
///    and rename the temporary file over it.
///
/// The replaced files stay open until every rename is done, then are
/// closed together (see `Batch::held`). Each directory is flushed once,
/// after all its renames, before the batch reports success. At every moment
/// each file is its complete old or complete new version: a new version
/// takes the file's name only once it is on disk. Files already at version
/// 3 are recognised from their first line alone.
pub(super) fn run_batch(req: &Request, files: &[PathBuf], log: Log) -> (usize, usize, usize) {
    let b = Batch {
        req,
        progress: Progress::new(log, files.len()),
        results: Mutex::new((0..files.len()).map(|_| None).collect()),
        cleaned: Mutex::new(HashSet::new()),
        renamed_in: Mutex::new(HashSet::new()),
        held: Mutex::new(Vec::new()),
        hold_max: if req.mode == Mode::InPlace {
            hold_limit(files.len())
        } else {
            0
        },
    };
    let next = AtomicUsize::new(0);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let workers = cores.min(files.len().max(1));
    let flushers = if req.mode == Mode::InPlace {
        FLUSHERS.min(files.len())
    } else {
        0
    };
    let (tx, rx) = std::sync::mpsc::sync_channel::<Box<Staged>>(QUEUE);
    let rx = Mutex::new(rx);
    let budget = Budget::default();
    std::thread::scope(|sc| {
        for _ in 0..workers {
            let tx = tx.clone();
            let (b, next, budget) = (&b, &next, &budget);
            sc.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(f) = files.get(i) else { break };
                match first_step(b, i, f) {
                    Ok(Step::Done(r)) => b.record(i, r),
                    Ok(Step::Staged(s)) => {
                        let size = s.old.len();
                        budget.take(size);
                        // The flushers end only when every worker has.
                        if let Err(e) = tx.send(s) {
                            let s = e.0;
                            let r = second_step(b, *s);
                            b.record(i, r);
                            budget.give(size);
                        }
                    }
                    Err(e) => {
                        let r = b.error(&e);
                        b.record(i, r);
                    }
                }
            });
        }
        drop(tx);
        for _ in 0..flushers {
            let (b, rx, budget) = (&b, &rx, &budget);
            sc.spawn(move || loop {
                let s = match rx.lock() {
                    Ok(rx) => rx.recv(),
                    Err(_) => break,
                };
                let Ok(s) = s else { break };
                let (i, size) = (s.index, s.old.len());
                let r = second_step(b, *s);
                b.record(i, r);
                budget.give(size);
            });
        }
    });
    let mut failed_dirs = 0;
    let dirs: Vec<PathBuf> = b
        .renamed_in
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .collect();
    let mut held = b.held.into_inner().unwrap_or_else(|e| e.into_inner());
    // The replaced files are closed (their inodes freed) while the
    // directories are flushed, by as many threads as there are flushers:
    // freeing a file's blocks waits for the disk where the file system
    // discards them (`-o discard`).
    let synced = std::thread::scope(|sc| {
        let share = held.len().div_ceil(FLUSHERS.max(1)).max(1);
        while !held.is_empty() {
            let part: Vec<std::fs::File> = held.drain(..share.min(held.len())).collect();
            sc.spawn(move || drop(part));
        }
        sync_dirs(&dirs)
    });
    for (d, r) in synced {
        if let Err(e) = r {
            b.progress.error(format_args!(
                "{}: cannot flush the directory after renaming: {}",
                d.display(),
                crate::error::io_message(&e)
            ));
            failed_dirs += 1;
        }
    }
    b.progress.clear();
    let (mut m, mut c, mut f) = (0, 0, failed_dirs);
    for r in b.results.into_inner().unwrap_or_default() {
        match r {
            Some(FileResult::Migrated) => m += 1,
            Some(FileResult::Current) => c += 1,
            _ => f += 1,
        }
    }
    (m, c, f)
}

/// How many replaced files a batch of `n` may keep open: the open-file
/// limit is raised to its hard maximum, and a margin left for the files
/// being read and written.
// `rlim_t` is not u64 on every Unix.
#[allow(clippy::unnecessary_cast)]
fn hold_limit(n: usize) -> usize {
    // Files open at once besides the held ones: two for each file being
    // migrated, queued or flushed, and the standard streams.
    const MARGIN: u64 = 2 * (QUEUE + FLUSHERS) as u64 + 128;
    #[cfg(unix)]
    {
        let mut l = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit and setrlimit only read and write `l`.
        let soft = unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut l) != 0 {
                return 0;
            }
            let want = (n as u64 + MARGIN).min(l.rlim_max as u64);
            if (l.rlim_cur as u64) < want {
                let raised = libc::rlimit {
                    rlim_cur: want as libc::rlim_t,
                    rlim_max: l.rlim_max,
                };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                    l.rlim_cur = raised.rlim_cur;
                }
            }
            l.rlim_cur as u64
        };
        soft.saturating_sub(MARGIN).min(n as u64) as usize
    }
    #[cfg(not(unix))]
    {
        let _ = (n, MARGIN);
        0
    }
}

/// Flush each directory, several at once; the result of each.
fn sync_dirs(dirs: &[PathBuf]) -> Vec<(PathBuf, std::io::Result<()>)> {
    let next = AtomicUsize::new(0);
    let out = Mutex::new(Vec::with_capacity(dirs.len()));
    std::thread::scope(|sc| {
        for _ in 0..dirs.len().min(FLUSHERS) {
            sc.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(d) = dirs.get(i) else { break };
                let r = write::sync_dir(d);
                if let Ok(mut o) = out.lock() {
                    o.push((d.clone(), r));
                }
            });
        }
    });
    out.into_inner().unwrap_or_default()
}

/// Read and migrate file `i`; in place, write its new text to a temporary
/// file (and keep the backup asked for), to be flushed and renamed by
/// [`second_step`].
fn first_step(b: &Batch, i: usize, path: &Path) -> Result<Step> {
    let req = b.req;
    let name = path.display().to_string();
    let io = |e: std::io::Error| Error::io(&name, &e);
    // A pipe, a FIFO or a device has no bytes to replace: refused before it
    // is opened (opening a FIFO waits for a writer). Checked or dry-run,
    // it is read once, as stdin is.
    if let Ok(m) = std::fs::metadata(path) {
        if !m.is_file() && !m.is_dir() {
            if req.mode == Mode::InPlace {
                return Err(Error::request(
                    &name,
                    "not a regular file (a pipe, a FIFO or a device): it cannot be replaced in place; migrate it to stdout (pi-migrate FILE > NEW) instead",
                ));
            }
            let f = std::fs::File::open(path).map_err(io)?;
            let bytes = crate::session::read_stream(&mut &f, &name)?;
            return Ok(match migrate_bytes(&name, &bytes, req.opts)? {
                Outcome::Current => Step::Done(FileResult::Current),
                Outcome::Migrated { changes, .. } => {
                    match req.mode {
                        Mode::Check => b.progress.line(&name),
                        Mode::DryRun => b.progress.line(&format!("{name}: {}", changes.describe())),
                        _ => {}
                    }
                    Step::Done(FileResult::Migrated)
                }
            });
        }
    }
    // Write beside the real file, not over a symbolic link to it: a path
    // whose last component is a link is resolved first.
    let (real, file) = match open_no_follow(path) {
        Ok(f) => (path.to_path_buf(), f),
        Err(e) if is_link_error(&e) => {
            let real = std::fs::canonicalize(path).map_err(io)?;
            let f = std::fs::File::open(&real).map_err(io)?;
            (real, f)
        }
        Err(e) => return Err(io(e)),
    };
    if req.mode == Mode::InPlace {
        clean_dir(b, &real);
    }
    // A file larger than a line may be is held whole only once no line of
    // it is too long (a file of NULs, one 2 GB line: a FILE:LINE error, not
    // gigabytes of memory).
    if file.metadata().map_err(io)?.len() > crate::session::max_line() {
        let mut head = vec![0u8; 64 << 10];
        let got = crate::io::read_at_most(&file, &mut head, 0).map_err(io)?;
        let current = memchr::memchr(b'\n', &head[..got])
            .is_some_and(|end| migrate::first_line_is_current(&head[..end]));
        if !current {
            crate::session::check_line_lengths(&file, &name)?;
        }
    }
    let Some((bytes, snap, meta)) =
        write::read_open_unless_first_line(&file, migrate::first_line_is_current).map_err(io)?
    else {
        return Ok(Step::Done(FileResult::Current));
    };
    let outcome = migrate_bytes(&name, &bytes, req.opts)?;
    let Outcome::Migrated {
        bytes: new,
        changes,
    } = outcome
    else {
        return Ok(Step::Done(FileResult::Current));
    };
    match req.mode {
        Mode::Check => b.progress.line(&name),
        Mode::DryRun => b.progress.line(&format!("{name}: {}", changes.describe())),
        Mode::Stdout => {}
        Mode::InPlace => {
            let (temp, backup) = stage(req, &real, &name, &meta, &new)?;
            return Ok(Step::Staged(Box::new(Staged {
                index: i,
                name,
                real,
                temp,
                file,
                old: bytes,
                snap,
                backup,
                malformed_kept: changes.malformed_kept,
            })));
        }
    }
    Ok(Step::Done(FileResult::Migrated))
}

/// Open a file for reading, failing (see [`is_link_error`]) if the last
/// component of its path is a symbolic link.
fn open_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW);
    }
    o.open(path)
}

/// Whether opening failed because the path is a symbolic link.
fn is_link_error(e: &std::io::Error) -> bool {
    #[cfg(unix)]
    {
        e.raw_os_error() == Some(libc::ELOOP)
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

/// Remove the temporary files interrupted runs left in the directory of
/// `real` (once per directory in a batch).
fn clean_dir(b: &Batch, real: &Path) {
    let dir = dir_of(real);
    let first = b
        .cleaned
        .lock()
        .map(|mut c| c.insert(dir.clone()))
        .unwrap_or(false);
    if !first {
        return;
    }
    for t in write::remove_stray_temps_in(&dir, TEMP_TAG) {
        b.progress.warn(&Diagnostic::new(
            &t.display().to_string(),
            None,
            "removed a temporary file left by an interrupted run",
        ));
    }
}

/// Write `new` to a temporary file beside `real` (not flushed yet), and
/// keep the backup if asked.
fn stage(
    req: &Request,
    real: &Path,
    name: &str,
    meta: &std::fs::Metadata,
    new: &[u8],
) -> Result<(TempFile, Option<PathBuf>)> {
    let io = |e: std::io::Error| Error::io(name, &e);
    let mut t = TempFile::beside(real, TEMP_TAG, Some(meta)).map_err(io)?;
    t.file().write_all(new).map_err(io)?;
    let Some(suffix) = &req.backup else {
        return Ok((t, None));
    };
    let mut b = real.as_os_str().to_owned();
    b.push(suffix);
    let b = PathBuf::from(b);
    write::make_backup(real, &b, TEMP_TAG).map_err(|e| {
        Error::request(
            name,
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                format!("backup {} already exists; file left as it is", b.display())
            } else {
                format!(
                    "cannot keep a backup {}: {}",
                    b.display(),
                    crate::error::io_message(&e)
                )
            },
        )
    })?;
    Ok((t, Some(b)))
}

/// Flush a staged file, then, if the file still holds what was read,
/// rename the temporary file over it.
fn second_step(b: &Batch, s: Staged) -> FileResult {
    let Staged {
        name,
        real,
        mut temp,
        file,
        old,
        snap,
        backup,
        malformed_kept,
        ..
    } = s;
    let io = |e: std::io::Error| Error::io(&name, &e);
    // The slow part (fsync) first, then the check right before the rename.
    if let Err(e) = temp.sync() {
        return b.error(&io(e));
    }
    if !write::unchanged_open(&real, &snap, &file, &old).unwrap_or(false) {
        if let Some(bk) = backup {
            let _ = std::fs::remove_file(bk);
        }
        return b.error(&Error::request(
            &name,
            "the file changed while it was being migrated; left as it is (run again)",
        ));
    }
    if let Err(e) = temp.commit_rename() {
        return b.error(&io(e));
    }
    if let Ok(mut d) = b.renamed_in.lock() {
        d.insert(dir_of(&real));
    }
    b.hold(file);
    if malformed_kept > 0 {
        b.progress.warn(&Diagnostic::new(
            &name,
            None,
            format!("{malformed_kept} malformed line(s) carried through unchanged"),
        ));
    }
    FileResult::Migrated
}
