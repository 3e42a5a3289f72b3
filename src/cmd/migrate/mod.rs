//! `pi-migrate`: version 1 and 2 session files brought to version 3, on
//! stdout or in place, one file or whole trees, without losing a byte.
//!
//! The migrated text is what pi's `migrateSessionEntries` gives (SPEC §8),
//! except that ids are deterministic by default (the ones every read-only
//! tool shows for the old file) and that every line needing no change,
//! including lines pi would skip, keeps its bytes.

use crate::cli::{Ctx, Exit, Tool};
use crate::error::{Error, Result};
use crate::json::Object;
use crate::locate;
use crate::migrate::CURRENT_VERSION;
use crate::write::{self, Snapshot, TempFile};
use clap::Parser;
use std::collections::HashSet;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const EXAMPLES: &str = concat!(
    "\
Examples:
  pi-migrate old.jsonl > new.jsonl         the migrated session on stdout
  pi-migrate < old.jsonl                   the same, from stdin
  pi-path --format ids old.jsonl           the ids the migrated file will have
  pi-migrate --check agent/sessions        list files that need migrating (exit 1 if any);
                                           pi's own directory is ~/.pi/agent/sessions
  pi-migrate --check 019b4f7b              a session named by its id prefix (exit 1: it needs it)
  pi-migrate --dry-run --all               what would change in every session
  pi-migrate -i old.jsonl                  rewrite the file in place (atomically)
  pi-migrate -i --backup --all             every session, keeping NAME.jsonl.bak
  pi-migrate -i --all --relocate           also move pi 0.30's misplaced files into
                                           sessions/--<cwd>--/

A file already at version 3 is never touched. A line that is not JSON makes
the file fail (FILE:LINE) unless --keep-malformed; a file that changes while
it is migrated is left as it is. Temporary files are named
.NAME.pi-migrate-tmp-PID-RAND and removed by the next run.

A pipe, FIFO or device given as a path is read once, as stdin is; -i refuses it
(there is no file to replace).
",
    crate::help_max_line!(),
    "
Exit status: 0 ok, 1 a file failed (or --check found files to migrate), 2 wrong usage.",
    crate::exact_to_pi!()
);

/// Migrate pi session files to version 3, safely.
///
/// Does what pi's migrateSessionEntries does when pi opens an old session
/// (v1: ids and parentIds, firstKeptEntryIndex to firstKeptEntryId; v2:
/// hookMessage roles to custom; header version 3), except that ids are the
/// deterministic ones every pi-session-tools command shows for the old file,
/// lines needing no change keep their exact bytes, and nothing is dropped.
/// With no PATH (or `-`) reads stdin; one file without -i goes to stdout.
#[derive(Parser, Debug)]
#[command(name = "pi-migrate", version, after_help = EXAMPLES)]
pub struct Args {
    /// Session files or directories (every *.jsonl below), `-` for stdin, or
    /// session-id prefixes (looked up like `pi --session`: this project's
    /// sessions first, then every project's).
    #[arg(value_name = "PATH")]
    pub paths: Vec<String>,

    /// Rewrite each file in place (atomically: temporary file, fsync, rename).
    #[arg(short, long, conflicts_with_all = ["check", "dry_run"])]
    pub in_place: bool,

    /// Change nothing; list the files that need migrating; exit 1 if any.
    #[arg(long, conflicts_with = "dry_run")]
    pub check: bool,

    /// Change nothing; say per file what would change.
    #[arg(short = 'n', long)]
    pub dry_run: bool,

    /// Every session under the sessions root ($PI_CODING_AGENT_SESSION_DIR,
    /// else $PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions).
    #[arg(long)]
    pub all: bool,

    /// Also move session files pi 0.30 wrote directly into the agent
    /// directory to sessions/--<encoded cwd>--/ (never over an existing file).
    #[arg(long, requires = "all")]
    pub relocate: bool,

    /// Keep the original next to each rewritten file, as NAME.jsonl + SUFFIX
    /// (default `.bak`; an existing backup is never overwritten).
    #[arg(
        long,
        value_name = "SUFFIX",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = ".bak"
    )]
    pub backup: Option<String>,

    /// Carry lines that are not JSON objects through unchanged, where they
    /// stand (pi would drop them); by default such a file is refused.
    #[arg(long)]
    pub keep_malformed: bool,

    /// Draw new ids at random, as pi does, instead of the deterministic ids
    /// the other tools show for the old file.
    #[arg(long)]
    pub random_ids: bool,

    /// Print only errors (no warnings, no summary line).
    #[arg(short, long)]
    pub quiet: bool,
}

impl Tool for Args {
    const NAME: &'static str = "pi-migrate";
    fn quiet(&self) -> bool {
        self.quiet
    }
    fn run(&self, ctx: &mut Ctx) -> Result<Exit> {
        run(self, ctx)
    }
}

/// `pi-migrate`: migrate what PATHs name; not found (exit 1) when a file
/// failed, or `--check` found files to migrate (the messages are printed).
pub fn run(args: &Args, ctx: &mut Ctx) -> Result<Exit> {
    if args.backup.as_deref() == Some("") {
        return Err(Error::usage("--backup=SUFFIX needs a non-empty suffix"));
    }
    let mode = if args.in_place {
        Mode::InPlace
    } else if args.check {
        Mode::Check
    } else if args.dry_run {
        Mode::DryRun
    } else {
        Mode::Stdout
    };
    // A PATH that names nothing may be a session-id prefix, looked up as
    // the other tools look up SESSION.
    let mut paths = Vec::with_capacity(args.paths.len());
    for p in &args.paths {
        if p.is_empty() || p == "-" || Path::new(p).symlink_metadata().is_ok() {
            paths.push(p.clone());
            continue;
        }
        match locate::resolve_session(Some(p), None)? {
            crate::session::Input::File(f) => paths.push(f.to_string_lossy().into_owned()),
            crate::session::Input::Stdin => paths.push(p.clone()),
        }
    }
    let req = Request {
        paths,
        mode,
        all: args.all,
        relocate: args.relocate,
        backup: args.backup.clone(),
        opts: MigrateOptions {
            keep_malformed: args.keep_malformed,
            random_ids: args.random_ids,
        },
        quiet: args.quiet,
    };
    Ok(Exit::Found(migrate_paths(&req, ctx)?))
}

/// The tag in temporary file names: `.NAME.pi-migrate-tmp-PID-RAND`.
pub const TEMP_TAG: &str = "pi-migrate";
const TOOL: &str = "pi-migrate";

use crate::migrate::first_line_is_current;
/// The file-level migration, at the path it had when it lived here.
pub use crate::migrate::{migrate_bytes, Changes, MigrateOptions, Outcome};

// ---------------------------------------------------------------------------
// The command
// ---------------------------------------------------------------------------

/// What `pi-migrate` does with the files it finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Print the migrated session on stdout.
    Stdout,
    /// Rewrite each file atomically.
    InPlace,
    /// List the files that need migrating.
    Check,
    /// Say what would change.
    DryRun,
}

/// The request, as the command line gives it.
#[derive(Debug, Clone)]
pub struct Request {
    pub paths: Vec<String>,
    pub mode: Mode,
    pub all: bool,
    pub relocate: bool,
    /// Suffix of the backup kept next to each rewritten file.
    pub backup: Option<String>,
    pub opts: MigrateOptions,
    pub quiet: bool,
}

/// Result of one file in a batch.
enum FileResult {
    Migrated,
    Current,
    Failed,
}

/// Migrate what `req` names; `Ok(false)` means exit 1 with the messages
/// already printed.
///
/// Standard output is taken only for one session: a batch's workers print
/// each on their own.
pub fn migrate_paths(req: &Request, ctx: &mut Ctx) -> Result<bool> {
    if req.paths.iter().any(String::is_empty) {
        return Err(Error::usage(
            "an empty path argument: give a session file, a directory, or `-` for stdin",
        ));
    }
    if req.paths.is_empty() && !req.all || req.paths.iter().any(|p| p == "-") {
        if req.paths.len() > 1 || req.all {
            return Err(Error::usage(
                "`-` (stdin) cannot be combined with other paths",
            ));
        }
        if req.mode == Mode::InPlace {
            return Err(Error::usage(
                "--in-place needs a file or directory, not stdin",
            ));
        }
        if req.backup.is_some() {
            return Err(Error::usage("--backup needs --in-place"));
        }
        let buf = crate::session::read_stdin("<stdin>")?;
        return single(req, "<stdin>", &buf, ctx.out());
    }
    if req.backup.is_some() && req.mode != Mode::InPlace {
        return Err(Error::usage("--backup needs --in-place"));
    }
    let batch = req.mode != Mode::Stdout;
    let mut files = Vec::new();
    let mut failed = 0usize;
    let mut relocated = 0usize;
    let mut roots: Vec<PathBuf> = req.paths.iter().map(PathBuf::from).collect();
    // Whether a symbolic link to a file was found in a directory.
    let mut links = false;
    if req.all {
        if req.relocate {
            match relocate(req) {
                Ok(n) => relocated = n,
                Err(n) => failed += n,
            }
        }
        let root = match std::env::var_os("PI_CODING_AGENT_SESSION_DIR") {
            Some(d) if !d.is_empty() => locate::expand_tilde(&d.to_string_lossy()),
            _ => locate::sessions_root(),
        };
        if root.is_dir() {
            roots.push(root);
        } else if !req.quiet {
            eprintln!("{TOOL}: warning: {}: no sessions directory", root.display());
        }
    }
    for p in &roots {
        let meta = std::fs::metadata(p).map_err(|e| Error::io(&p.display().to_string(), &e))?;
        if meta.is_dir() {
            if !batch {
                return Err(Error::usage(format!(
                    "{}: a directory needs --in-place, --check or --dry-run",
                    p.display()
                )));
            }
            collect(p, &mut files, &mut links, req.quiet);
        } else {
            files.push(p.clone());
        }
    }
    if !batch {
        if files.len() != 1 {
            return Err(Error::usage(
                "several files need --in-place, --check or --dry-run (stdout takes one session)",
            ));
        }
        let name = files[0].display().to_string();
        let f = std::fs::File::open(&files[0]).map_err(|e| Error::io(&name, &e))?;
        let bytes = crate::session::read_stream(&mut &f, &name)?;
        return single(req, &name, &bytes, ctx.out());
    }
    // The same file reached twice (by two arguments or a link) is done once.
    // One directory walked without links cannot name a file twice.
    if roots.len() > 1 || links {
        let mut seen = HashSet::new();
        files.retain(|f| seen.insert(std::fs::canonicalize(f).unwrap_or_else(|_| f.clone())));
    }
    let (migrated, current, batch_failed) = run_batch(req, &files);
    failed += batch_failed;
    let verb = match req.mode {
        Mode::InPlace => "migrated",
        Mode::Check => "need migrating",
        _ => "would be migrated",
    };
    if !req.quiet || failed > 0 {
        let moved = if relocated > 0 {
            format!(", {relocated} relocated")
        } else {
            String::new()
        };
        eprintln!("{TOOL}: {migrated} {verb}, {current} already current, {failed} failed{moved}");
    }
    Ok(failed == 0 && !(req.mode == Mode::Check && migrated > 0))
}

/// One session (stdin or a file) in stdout/check/dry-run mode.
fn single(req: &Request, name: &str, bytes: &[u8], out: &mut impl Write) -> Result<bool> {
    let outcome = migrate_bytes(name, bytes, req.opts)?;
    let r = match (&outcome, req.mode) {
        (Outcome::Current, Mode::Stdout) => out.write_all(bytes),
        (Outcome::Migrated { bytes, .. }, Mode::Stdout) => out.write_all(bytes),
        (Outcome::Migrated { .. }, Mode::Check) => writeln!(out, "{name}"),
        (Outcome::Migrated { changes, .. }, Mode::DryRun) => {
            writeln!(out, "{name}: {}", changes.describe())
        }
        (Outcome::Current, Mode::DryRun) if !req.quiet => {
            writeln!(out, "{name}: already version {CURRENT_VERSION}")
        }
        _ => Ok(()),
    };
    r.and_then(|()| out.flush()).map_err(crate::cli::out_err)?;
    Ok(!(req.mode == Mode::Check && matches!(outcome, Outcome::Migrated { .. })))
}

/// Every `*.jsonl` file below `dir` (directory links are not followed).
fn collect(dir: &Path, files: &mut Vec<PathBuf>, links: &mut bool, quiet: bool) {
    let mut stack = vec![dir.to_path_buf()];
    let mut found = Vec::new();
    while let Some(d) = stack.pop() {
        let rd = match std::fs::read_dir(&d) {
            Ok(rd) => rd,
            Err(e) => {
                if !quiet {
                    eprintln!(
                        "{TOOL}: warning: {}: {}",
                        d.display(),
                        crate::error::io_message(&e)
                    );
                }
                continue;
            }
        };
        for ent in rd.flatten() {
            let p = ent.path();
            let Ok(ft) = ent.file_type() else { continue };
            if ft.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "jsonl")
                && (ft.is_file() || (ft.is_symlink() && p.is_file()))
            {
                *links |= ft.is_symlink();
                found.push(p);
            }
        }
    }
    found.sort();
    files.extend(found);
}

/// Shared state of a batch: counters, and stderr shared by the workers.
struct Progress {
    total: usize,
    done: AtomicUsize,
    tty: bool,
    last: Mutex<Option<Instant>>,
}

impl Progress {
    /// Print a message line (clearing the progress line first).
    fn say(&self, to_stdout: bool, msg: &str) {
        let mut guard = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if self.tty {
            eprint!("\r\x1b[K");
        }
        if to_stdout {
            let mut o = std::io::stdout().lock();
            let _ = writeln!(o, "{msg}");
            let _ = o.flush();
        } else {
            eprintln!("{msg}");
        }
        *guard = None;
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
            eprint!("\r\x1b[K{TOOL}: {n}/{} files", self.total);
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
        self.progress.say(false, &format!("{TOOL}: error: {e}"));
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
fn run_batch(req: &Request, files: &[PathBuf]) -> (usize, usize, usize) {
    let b = Batch {
        req,
        progress: Progress {
            total: files.len(),
            done: AtomicUsize::new(0),
            tty: std::io::stderr().is_terminal() && files.len() > 1 && !req.quiet,
            last: Mutex::new(None),
        },
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
            b.progress.say(
                false,
                &format!(
                    "{TOOL}: error: {}: cannot flush the directory after renaming: {}",
                    d.display(),
                    crate::error::io_message(&e)
                ),
            );
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
                        Mode::Check => b.progress.say(true, &name),
                        Mode::DryRun => b
                            .progress
                            .say(true, &format!("{name}: {}", changes.describe())),
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
        let got = crate::session::read_at_most(&file, &mut head, 0).map_err(io)?;
        let current = memchr::memchr(b'\n', &head[..got])
            .is_some_and(|end| first_line_is_current(&head[..end]));
        if !current {
            crate::session::check_line_lengths(&file, &name)?;
        }
    }
    let Some((bytes, snap, meta)) =
        write::read_open_unless_first_line(&file, first_line_is_current).map_err(io)?
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
        Mode::Check => b.progress.say(true, &name),
        Mode::DryRun => b
            .progress
            .say(true, &format!("{name}: {}", changes.describe())),
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

/// The directory a file lives in (`.` for a bare name).
fn dir_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
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
        if !b.req.quiet {
            b.progress.say(
                false,
                &format!(
                    "{TOOL}: warning: {}: removed a temporary file left by an interrupted run",
                    t.display()
                ),
            );
        }
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
    if malformed_kept > 0 && !b.req.quiet {
        b.progress.say(
            false,
            &format!(
                "{TOOL}: warning: {name}: {malformed_kept} malformed line(s) carried through unchanged"
            ),
        );
    }
    FileResult::Migrated
}

/// pi 0.30 wrote sessions into the agent directory itself; move each to
/// `sessions/--<encoded cwd>--/` (never over an existing file), as pi's
/// own one-time fix does. Ok(moved) or Err(failed).
fn relocate(req: &Request) -> std::result::Result<usize, usize> {
    let agent = locate::agent_dir();
    let Ok(rd) = std::fs::read_dir(&agent) else {
        return Ok(0);
    };
    let mut files: Vec<PathBuf> = rd
        .flatten()
        .map(|d| d.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl") && p.is_file())
        .collect();
    files.sort();
    let (mut moved, mut failed) = (0, 0);
    for f in files {
        let name = f.display().to_string();
        let Some(cwd) = locate_cwd(&f) else { continue };
        let (Some(file_name), dir) = (
            f.file_name(),
            agent.join("sessions").join(locate::encode_cwd(&cwd)),
        ) else {
            continue;
        };
        let dest = dir.join(file_name);
        let say = |m: String| {
            if req.mode == Mode::Check || req.mode == Mode::DryRun {
                println!("{m}");
            } else if !req.quiet {
                eprintln!("{TOOL}: {m}");
            }
        };
        if dest.exists() {
            eprintln!(
                "{TOOL}: warning: {name}: not relocated: {} already exists",
                dest.display()
            );
            continue;
        }
        if req.mode != Mode::InPlace {
            say(format!("{name}: would move to {}", dest.display()));
            moved += 1;
            continue;
        }
        let r = std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::hard_link(&f, &dest))
            .and_then(|()| std::fs::remove_file(&f))
            .and_then(|()| write::sync_dir(&dir))
            .and_then(|()| write::sync_dir(&agent));
        match r {
            Ok(()) => {
                say(format!("{name}: moved to {}", dest.display()));
                moved += 1;
            }
            Err(e) => {
                eprintln!(
                    "{TOOL}: error: {name}: cannot move to {}: {}",
                    dest.display(),
                    crate::error::io_message(&e)
                );
                failed += 1;
            }
        }
    }
    if failed > 0 {
        Err(failed)
    } else {
        Ok(moved)
    }
}

/// The `cwd` of a session file's header, as pi's relocation reads it.
fn locate_cwd(path: &Path) -> Option<String> {
    let text = std::fs::read(path).ok()?;
    let first = text.split(|&b| b == b'\n').next()?;
    let obj = Object::parse_line(first).ok()??;
    if obj.str("type").as_deref() != Some("session") {
        return None;
    }
    obj.str("cwd")
        .filter(|c| !c.is_empty())
        .map(|c| c.into_owned())
}
