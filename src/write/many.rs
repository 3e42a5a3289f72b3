//! Many files rewritten at once, each atomically, on every core
//! ([`rewrite_many`]): pi-migrate's batches, and the tools that will fix
//! or move many sessions. The caller gives the transform of one file's
//! bytes and hears of each file's outcome as soon as it is known; this
//! module reads, stages, flushes, checks and renames.

use super::{dir_of, settle, Snapshot, TempFile};
use crate::error::{Error, Result};
use std::collections::HashSet;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// How a batch is rewritten.
#[derive(Debug, Clone, Copy)]
pub struct Options<'a> {
    /// The tool, as temporary files are named (`.NAME.TAG-tmp-PID-RAND`).
    pub tag: &'a str,
    /// Replace the files; without it each file is only read and
    /// transformed (a check, a dry run), and a pipe may be read too.
    pub write: bool,
    /// Keep each replaced file as the file's name with this suffix.
    pub backup: Option<&'a str>,
    /// What the transform does, past participle, for the message of a file
    /// that changed meanwhile (`migrated`).
    pub done: &'a str,
    /// What to do instead with a file that is not regular (a pipe), said
    /// after the refusal to replace it (`; migrate it to stdout instead`).
    pub instead: &'a str,
}

/// How one file ended.
#[derive(Debug)]
pub enum Outcome<C> {
    /// Nothing to change: the file is as it was.
    Unchanged,
    /// Changed: replaced (with [`Options::write`]), or it would be; with
    /// what the transform said of the change.
    Changed(C),
    /// Failed: the file is as it was (or, when lines were written to it
    /// while it was replaced, as the message says).
    Failed(Error),
    /// Staged, then rolled back: a signal stopped the batch first (see
    /// [`super::interrupt`]); the file is as it was.
    Interrupted,
}

/// What the caller of [`rewrite_many`] gives: the transform, and where the
/// outcomes go. Called from many threads at once.
pub trait Rewrite: Sync {
    /// What a change carries to its outcome (what to say of it).
    type Change: Send;

    /// Whether a file whose first line is `line` needs no change: the rest
    /// of it is then not read.
    fn done_by_first_line(&self, _line: &[u8]) -> bool {
        false
    }

    /// Checked before a regular file is read whole (an error refuses it:
    /// a line too long to hold).
    fn check(&self, _file: &File, _name: &str) -> Result<()> {
        Ok(())
    }

    /// Read a file that is not regular (a pipe, a FIFO: once, to its end).
    fn read_stream(&self, file: &File, name: &str) -> Result<Vec<u8>>;

    /// The new text of the file `name` that holds `old`, and what to say
    /// of the change; None when it needs none.
    fn transform(&self, name: &str, old: &[u8]) -> Result<Option<(Vec<u8>, Self::Change)>>;

    /// File `index` (named `name`) ended so, said as soon as it is known.
    fn outcome(&self, index: usize, name: &str, outcome: Outcome<Self::Change>);

    /// A temporary file an interrupted run left (in a directory a file is
    /// replaced in) was removed.
    fn removed_stray(&self, _temp: &Path) {}

    /// The directory `dir` could not be flushed after files were renamed
    /// in it: those renames may not survive a crash. Counted as a failure.
    fn dir_failed(&self, dir: &Path, e: &std::io::Error);
}

/// What a batch did: files changed (or that would be), unchanged, failed
/// (with the directories that could not be flushed), and, when a signal
/// stopped it, which one and how many files were left as they were.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    pub changed: usize,
    pub unchanged: usize,
    pub failed: usize,
    pub signal: Option<i32>,
    pub not_done: usize,
}

/// Files staged (written to their temporary file) but not yet flushed and
/// renamed, at most: the queue between the workers that transform and those
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

/// A new text written to its temporary file beside the file (not yet
/// flushed), waiting to be flushed, checked and renamed.
struct Staged<C> {
    index: usize,
    name: String,
    real: PathBuf,
    temp: TempFile,
    /// The file as it was opened and read (kept open: see `Batch::held`).
    file: File,
    old: Vec<u8>,
    snap: Snapshot,
    backup: Option<PathBuf>,
    change: C,
}

/// What the first step does with one file.
enum Step<C> {
    Done(Outcome<C>),
    Staged(Box<Staged<C>>),
}

/// Shared by the workers of a batch.
struct Batch<'a, R: Rewrite> {
    opts: &'a Options<'a>,
    rw: &'a R,
    changed: AtomicUsize,
    unchanged: AtomicUsize,
    failed: AtomicUsize,
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
    held: Mutex<Vec<File>>,
    hold_max: usize,
}

impl<R: Rewrite> Batch<'_, R> {
    /// Keep a replaced file open (or close it, past the limit).
    fn hold(&self, f: File) {
        if let Ok(mut h) = self.held.lock() {
            if h.len() < self.hold_max {
                h.push(f);
            }
        }
    }

    /// Count file `i`'s outcome and hand it to the caller.
    fn record(&self, i: usize, name: &str, o: Outcome<R::Change>) {
        let n = match &o {
            Outcome::Unchanged => &self.unchanged,
            Outcome::Changed(_) => &self.changed,
            Outcome::Failed(_) => &self.failed,
            Outcome::Interrupted => {
                self.rw.outcome(i, name, o);
                return;
            }
        };
        n.fetch_add(1, Ordering::Relaxed);
        self.rw.outcome(i, name, o);
    }
}

/// Rewrite many files, each atomically, handing each file's outcome to
/// `rw` as soon as it is known. With [`Options::write`], a file is
/// rewritten in two steps:
///
/// 1. (one worker per core) read it, transform it, write the new text to
///    a temporary file beside it, not flushed;
/// 2. (many workers) flush that temporary file (`fsync`; many at once, so
///    that the file system commits them together), check that the file
///    still holds what was read (through the file still open from step 1),
///    and rename the temporary file over it.
///
/// The replaced files stay open until every rename is done, then are
/// closed together (see `Batch::held`). Each directory is flushed once,
/// after all its renames, before the batch ends. At every moment each file
/// is its complete old or complete new version: a new version takes the
/// file's name only once it is on disk.
pub fn rewrite_many<R: Rewrite>(files: &[PathBuf], opts: &Options, rw: &R) -> Summary {
    let b = Batch {
        opts,
        rw,
        changed: AtomicUsize::new(0),
        unchanged: AtomicUsize::new(0),
        failed: AtomicUsize::new(0),
        cleaned: Mutex::new(HashSet::new()),
        renamed_in: Mutex::new(HashSet::new()),
        held: Mutex::new(Vec::new()),
        hold_max: if opts.write {
            hold_limit(files.len())
        } else {
            0
        },
    };
    run_steps(&b, files);
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
            let part: Vec<File> = held.drain(..share.min(held.len())).collect();
            sc.spawn(move || drop(part));
        }
        sync_dirs(&dirs)
    });
    let mut failed_dirs = 0;
    for (d, r) in synced {
        if let Err(e) = r {
            rw.dir_failed(&d, &e);
            failed_dirs += 1;
        }
    }
    let (changed, unchanged, failed) = (
        b.changed.into_inner(),
        b.unchanged.into_inner(),
        b.failed.into_inner(),
    );
    Summary {
        changed,
        unchanged,
        failed: failed + failed_dirs,
        signal: super::interrupt::received(),
        not_done: files.len() - changed - unchanged - failed,
    }
}

/// The two steps over every file: the workers, and the flushers they feed.
fn run_steps<R: Rewrite>(b: &Batch<R>, files: &[PathBuf]) {
    let next = AtomicUsize::new(0);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let workers = cores.min(files.len().max(1));
    let flushers = if b.opts.write {
        FLUSHERS.min(files.len())
    } else {
        0
    };
    let (tx, rx) = std::sync::mpsc::sync_channel::<Box<Staged<R::Change>>>(QUEUE);
    let rx = Mutex::new(rx);
    let budget = Budget::default();
    std::thread::scope(|sc| {
        for _ in 0..workers {
            let tx = tx.clone();
            let (next, budget) = (&next, &budget);
            sc.spawn(move || loop {
                // A signal stops the batch before the next file.
                if super::interrupt::received().is_some() {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(f) = files.get(i) else { break };
                let name = crate::name::kept_path(f).into_owned();
                match first_step(b, i, f, &name) {
                    Ok(Step::Done(o)) => b.record(i, &name, o),
                    Ok(Step::Staged(s)) => {
                        let size = s.old.len();
                        budget.take(size);
                        // The flushers end only when every worker has.
                        if let Err(e) = tx.send(s) {
                            second_step(b, *e.0);
                            budget.give(size);
                        }
                    }
                    Err(e) => b.record(i, &name, Outcome::Failed(e)),
                }
            });
        }
        drop(tx);
        for _ in 0..flushers {
            let (rx, budget) = (&rx, &budget);
            sc.spawn(move || loop {
                let s = match rx.lock() {
                    Ok(rx) => rx.recv(),
                    Err(_) => break,
                };
                let Ok(s) = s else { break };
                let size = s.old.len();
                second_step(b, *s);
                budget.give(size);
            });
        }
    });
}

/// How many replaced files a batch of `n` may keep open: the open-file
/// limit is raised to its hard maximum, and a margin left for the files
/// being read and written.
// `rlim_t` is not u64 on every Unix.
#[allow(clippy::unnecessary_cast)]
fn hold_limit(n: usize) -> usize {
    // Files open at once besides the held ones: two for each file being
    // transformed, queued or flushed, and the standard streams.
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
                let r = super::sync_dir(d);
                if let Ok(mut o) = out.lock() {
                    o.push((d.clone(), r));
                }
            });
        }
    });
    out.into_inner().unwrap_or_default()
}

/// Read and transform file `i`; when writing, write its new text to a
/// temporary file (and keep the backup asked for), to be flushed and
/// renamed by [`second_step`].
fn first_step<R: Rewrite>(
    b: &Batch<R>,
    i: usize,
    path: &Path,
    name: &str,
) -> Result<Step<R::Change>> {
    let io = |e: std::io::Error| Error::io(name, &e);
    // A pipe, a FIFO or a device has no bytes to replace: refused before it
    // is opened (opening a FIFO waits for a writer). Only transformed, it
    // is read once, as stdin is.
    if let Ok(m) = std::fs::metadata(path) {
        if !m.is_file() && !m.is_dir() {
            return not_regular(b, path, name);
        }
    }
    // Write beside the real file, not over a symbolic link to it: a path
    // whose last component is a link is resolved first.
    let (real, file) = match open_no_follow(path) {
        Ok(f) => (path.to_path_buf(), f),
        Err(e) if is_link_error(&e) => {
            let real = std::fs::canonicalize(path).map_err(io)?;
            let f = File::open(&real).map_err(io)?;
            (real, f)
        }
        Err(e) => return Err(io(e)),
    };
    if b.opts.write {
        clean_dir(b, &real);
    }
    b.rw.check(&file, name)?;
    let Some((bytes, snap, meta)) =
        super::read_open_unless_first_line(&file, |l| b.rw.done_by_first_line(l)).map_err(io)?
    else {
        return Ok(Step::Done(Outcome::Unchanged));
    };
    let Some((new, change)) = b.rw.transform(name, &bytes)? else {
        return Ok(Step::Done(Outcome::Unchanged));
    };
    if !b.opts.write {
        return Ok(Step::Done(Outcome::Changed(change)));
    }
    let backup = b.opts.backup.map(|suffix| {
        let mut p = real.as_os_str().to_owned();
        p.push(suffix);
        PathBuf::from(p)
    });
    // An earlier run's backup of this very file (it was interrupted after
    // keeping it) is taken as this run's.
    let adopted = backup
        .as_ref()
        .is_some_and(|bk| super::is_copy_of(bk, &snap, &bytes));
    refuse_hard_links(
        name,
        &real,
        &meta,
        adopted && backup_is_link(&backup, &snap),
    )?;
    let temp = stage(b.opts, &real, name, &meta, &new)?;
    temp.copy_xattrs_from(&file).map_err(io)?;
    let backup = match backup {
        Some(bk) if !adopted => {
            keep_backup(b.opts, &real, name, &bk)?;
            Some(bk)
        }
        // Adopted: not ours to remove if the file is left as it is.
        _ => None,
    };
    Ok(Step::Staged(Box::new(Staged {
        index: i,
        name: name.to_string(),
        real,
        temp,
        file,
        old: bytes,
        snap,
        backup,
        change,
    })))
}

/// A file that is not regular: refused when writing, else read once.
fn not_regular<R: Rewrite>(b: &Batch<R>, path: &Path, name: &str) -> Result<Step<R::Change>> {
    if b.opts.write {
        return Err(Error::request(
            name,
            format!(
                "not a regular file (a pipe, a FIFO or a device): it cannot be replaced in place{}",
                b.opts.instead
            ),
        ));
    }
    let f = File::open(path).map_err(|e| Error::io(name, &e))?;
    let bytes = b.rw.read_stream(&f, name)?;
    Ok(Step::Done(match b.rw.transform(name, &bytes)? {
        None => Outcome::Unchanged,
        Some((_, change)) => Outcome::Changed(change),
    }))
}

/// Open a file for reading, failing (see [`is_link_error`]) if the last
/// component of its path is a symbolic link.
fn open_no_follow(path: &Path) -> std::io::Result<File> {
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
fn clean_dir<R: Rewrite>(b: &Batch<R>, real: &Path) {
    let dir = dir_of(real);
    let first = b
        .cleaned
        .lock()
        .map(|mut c| c.insert(dir.clone()))
        .unwrap_or(false);
    if !first {
        return;
    }
    for t in super::remove_stray_temps_in(&dir, b.opts.tag) {
        b.rw.removed_stray(&t);
    }
}

/// Whether the backup `bk` is the file itself (a hard link).
fn backup_is_link(bk: &Option<PathBuf>, snap: &Snapshot) -> bool {
    #[cfg(unix)]
    {
        bk.as_ref()
            .and_then(|b| std::fs::symlink_metadata(b).ok())
            .is_some_and(|m| Snapshot::of(&m).ino == snap.ino)
    }
    #[cfg(not(unix))]
    {
        let _ = (bk, snap);
        false
    }
}

/// A file with other names (hard links) is refused: the rename would give
/// only this name the new version. One other name may be its own backup
/// (`own_backup`), left by an interrupted run.
fn refuse_hard_links(
    name: &str,
    real: &Path,
    meta: &std::fs::Metadata,
    own_backup: bool,
) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let others = meta.nlink().saturating_sub(1 + u64::from(own_backup));
        if others > 0 {
            // The usual other name: the backup an interrupted `--backup`
            // run kept as a link, met by a run without `--backup`.
            let mut bak = real.as_os_str().to_owned();
            bak.push(".bak");
            let hint = match std::fs::symlink_metadata(&bak) {
                Ok(m) if (m.dev(), m.ino()) == (meta.dev(), meta.ino()) => format!(
                    "; one is {}, the backup an interrupted `pi-migrate -i --backup` kept: \
                     run that again, or remove the backup",
                    crate::name::kept_path(Path::new(&bak))
                ),
                _ => String::new(),
            };
            return Err(Error::request(
                name,
                format!(
                    "has {others} other name(s) (hard links): replacing it would leave them \
                     the old version; left as it is (give it one name, or migrate a copy){hint}"
                ),
            ));
        }
    }
    #[cfg(not(unix))]
    let _ = (name, real, meta, own_backup);
    Ok(())
}

/// Write `new` to a temporary file beside `real` (not flushed yet); an
/// error to create it names the directory.
fn stage(
    opts: &Options,
    real: &Path,
    name: &str,
    meta: &std::fs::Metadata,
    new: &[u8],
) -> Result<TempFile> {
    let io = |e: std::io::Error| Error::io(name, &e);
    let mut t = TempFile::beside(real, opts.tag, Some(meta)).map_err(|e| Error {
        diag: crate::error::Diagnostic::new(
            name,
            None,
            format!(
                "cannot create a temporary file in {}: {}",
                dir_of(real).display(),
                crate::error::io_message(&e)
            ),
        ),
        ..Error::io(name, &e)
    })?;
    t.file().write_all(new).map_err(io)?;
    Ok(t)
}

/// Keep the file `real` as its backup `b`.
fn keep_backup(opts: &Options, real: &Path, name: &str, b: &Path) -> Result<()> {
    super::make_backup(real, b, opts.tag).map_err(|e| {
        Error::request(
            name,
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                format!(
                    "backup {} already exists; file left as it is",
                    crate::name::kept_path(b)
                )
            } else {
                format!(
                    "cannot keep a backup {}: {}",
                    b.display(),
                    crate::error::io_message(&e)
                )
            },
        )
    })
}

/// Flush a staged file, then, if the file still holds what was read,
/// rename the temporary file over it; record the outcome.
fn second_step<R: Rewrite>(b: &Batch<R>, s: Staged<R::Change>) {
    let Staged {
        index,
        name,
        real,
        mut temp,
        file,
        old,
        snap,
        backup,
        change,
    } = s;
    let failed = |e: Error| b.record(index, &name, Outcome::Failed(e));
    let io = |e: std::io::Error| Error::io(&name, &e);
    let roll_back = || {
        if let Some(bk) = &backup {
            let _ = std::fs::remove_file(bk);
        }
    };
    // A signal: the files in hand are left as they were, their backups
    // removed (checked again right before the rename).
    let interrupted = || super::interrupt::received().is_some();
    if interrupted() {
        roll_back();
        return b.record(index, &name, Outcome::Interrupted);
    }
    // The slow part (fsync) first, then the check right before the rename.
    if let Err(e) = temp.sync() {
        roll_back();
        return failed(io(e));
    }
    if !super::unchanged_open(&real, &snap, &file, &old).unwrap_or(false) {
        roll_back();
        return failed(Error::request(
            &name,
            format!(
                "the file changed while it was being {}; left as it is (run again)",
                b.opts.done
            ),
        ));
    }
    let placed = match settle::Placed::of(&temp) {
        Ok(p) => p,
        Err(e) => return failed(io(e)),
    };
    settle::test_pause(&real, 1);
    if interrupted() {
        roll_back();
        return b.record(index, &name, Outcome::Interrupted);
    }
    if let Err(e) = temp.commit_rename() {
        roll_back();
        return failed(io(e));
    }
    if let Ok(mut d) = b.renamed_in.lock() {
        d.insert(dir_of(&real));
    }
    let replaced = settle::Replaced {
        real: &real,
        name: &name,
        tag: b.opts.tag,
        file: &file,
        snap,
    };
    let rebuild = |text: &[u8]| Ok(b.rw.transform(&name, text)?.map(|(new, _)| new));
    let settled = settle::settle(&replaced, placed, &rebuild);
    b.hold(file);
    match settled {
        Ok(settle::Settled::Quiet | settle::Settled::Carried) => {
            b.record(index, &name, Outcome::Changed(change))
        }
        Ok(settle::Settled::Kept(kept, why)) => failed(Error::request(
            &name,
            format!(
                "written to while it was being {}, and {why}: the old file's whole text is \
                 kept as {} (the file holds what was {} before)",
                b.opts.done,
                kept.iter()
                    .map(|k| k.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" and "),
                b.opts.done,
            ),
        )),
        Err(e) => failed(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Upper-cases a file; "same" needs no change, "bad" fails.
    struct Upper {
        seen: Mutex<Vec<(usize, String)>>,
    }

    impl Rewrite for Upper {
        type Change = usize;

        fn read_stream(&self, mut file: &File, name: &str) -> Result<Vec<u8>> {
            let mut b = Vec::new();
            std::io::Read::read_to_end(&mut file, &mut b).map_err(|e| Error::io(name, &e))?;
            Ok(b)
        }

        fn transform(&self, name: &str, old: &[u8]) -> Result<Option<(Vec<u8>, usize)>> {
            match old {
                b"same" => Ok(None),
                b"bad" => Err(Error::request(name, "bad")),
                _ => Ok(Some((old.to_ascii_uppercase(), old.len()))),
            }
        }

        fn outcome(&self, index: usize, _name: &str, outcome: Outcome<usize>) {
            let what = match outcome {
                Outcome::Unchanged => "unchanged".to_string(),
                Outcome::Changed(n) => format!("changed {n}"),
                Outcome::Failed(e) => format!("failed {}", e.diag.message),
                Outcome::Interrupted => "interrupted".to_string(),
            };
            self.seen.lock().unwrap().push((index, what));
        }

        fn dir_failed(&self, dir: &Path, e: &std::io::Error) {
            panic!("{}: {e}", dir.display());
        }
    }

    fn run(write: bool) -> (Summary, Vec<(usize, String)>, Vec<Vec<u8>>) {
        let dir = std::env::temp_dir().join(format!("pst-many-{}-{write}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let files: Vec<PathBuf> = ["abc", "same", "bad", "xy"]
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let p = dir.join(format!("{i}.txt"));
                std::fs::write(&p, t).unwrap();
                p
            })
            .collect();
        let up = Upper {
            seen: Mutex::new(Vec::new()),
        };
        let opts = Options {
            tag: "pst-test",
            write,
            backup: None,
            done: "upper-cased",
            instead: "",
        };
        let sum = rewrite_many(&files, &opts, &up);
        let after = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(left.len(), 4, "no temporary file left");
        let _ = std::fs::remove_dir_all(&dir);
        let mut seen = up.seen.into_inner().unwrap();
        seen.sort();
        (sum, seen, after)
    }

    #[test]
    fn each_file_is_rewritten_or_left_and_its_outcome_handed_back() {
        let (sum, seen, after) = run(true);
        let want_sum = Summary {
            changed: 2,
            unchanged: 1,
            failed: 1,
            signal: None,
            not_done: 0,
        };
        assert_eq!(sum, want_sum);
        assert_eq!(
            seen,
            vec![
                (0, "changed 3".to_string()),
                (1, "unchanged".to_string()),
                (2, "failed bad".to_string()),
                (3, "changed 2".to_string()),
            ]
        );
        assert_eq!(
            after,
            vec![
                b"ABC".to_vec(),
                b"same".to_vec(),
                b"bad".to_vec(),
                b"XY".to_vec()
            ]
        );
        // Without writing: the same outcomes, every file as it was.
        let (sum, seen2, after) = run(false);
        assert_eq!((sum, seen2), (want_sum, seen));
        assert_eq!(
            after,
            vec![
                b"abc".to_vec(),
                b"same".to_vec(),
                b"bad".to_vec(),
                b"xy".to_vec()
            ]
        );
    }
}
