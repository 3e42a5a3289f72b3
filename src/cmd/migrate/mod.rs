//! `pi-migrate`: version 1 and 2 session files brought to version 3, on
//! stdout or in place, one file or whole trees, without losing a byte.
//!
//! The migrated text is what pi's `migrateSessionEntries` gives (SPEC §8),
//! except that ids are deterministic by default (the ones every read-only
//! tool shows for the old file) and that every line needing no change,
//! including lines pi would skip, keeps its bytes. The migration itself is
//! the library's ([`crate::migrate`]); this command finds the files and
//! writes them:
//!
//! - here: the usage, the request, and one session (stdin or a file) to
//!   stdout, checked or dry-run;
//! - `batch`: many files on every core, rewritten in place through
//!   temporary files flushed and renamed by many threads at once;
//! - `relocate`: pi 0.30's misplaced session files moved to their
//!   project's directory (`--all --relocate`);
//! - `report`: what is said of each file, in the files' order whatever
//!   order the workers finish in, and `--json`'s object per file.

mod batch;
mod relocate;
mod report;

use crate::cli::{Ctx, Exit, Log, Out};
use crate::error::{Error, Result};
use crate::migrate::CURRENT_VERSION;
use crate::store::{self, Source};
use clap::Parser;
use std::path::{Path, PathBuf};

/// The file-level migration, at the path it had when it lived here.
use crate::migrate::{migrate_bytes, MigrateOptions, Outcome};

const EXAMPLES: &str = concat!(
    "\
Examples:
  pi-migrate old.jsonl > new.jsonl         the migrated session on stdout
  pi-migrate < old.jsonl                   the same, from stdin
  pi-path --format ids old.jsonl           the ids the migrated file will have
  pi-migrate --check agent/sessions        list files that need migrating (exit 1 if any);
                                           pi's own directory is ~/.pi/agent/sessions
  pi-migrate --check 019b4f7b              a session named by its id prefix (exit 1: it needs it)
  pi-migrate --check -0 agent/sessions | xargs -0 ls -l
                                           the same list, safe with any file name
  pi-migrate --dry-run --all               what would change in every session
  pi-migrate -i old.jsonl                  rewrite the file in place (atomically)
  pi-migrate -i --backup --all             every session, keeping NAME.jsonl.bak
  pi-migrate -i --all --relocate           also move pi 0.30's misplaced files into
                                           sessions/--<cwd>--/
  pi-migrate --dry-run --json --all        one JSON object per file
  pi-migrate -i --backup --drop-torn --all
                                           a torn last line dropped, kept in the backup

A file already at version 3 is never touched. A line that is not JSON makes
the file fail (FILE:LINE) unless --keep-malformed (or, for a torn last line,
--drop-torn); a file that changes while
it is migrated is left as it is. Lines appended to the old file as it is
renamed are migrated too; a file still growing is kept as
NAME.pi-migrate-kept-N and reported. Temporary files are named
.NAME.pi-migrate-tmp-PID-RAND and removed by the next run. A file with other
hard links is refused; extended attributes and ACLs are kept.

Files are said in the order of their paths, whatever order they are
migrated in. --json: one object per file: path, status (migrated,
would-migrate, current, failed, interrupted; for pi 0.30's misplaced files
misplaced, would-relocate, relocated), fromVersion, toVersion, changes,
backup, tornLine, movedTo (relocations), warnings, error.

SIGINT, SIGTERM or SIGHUP stop -i after the files in hand (the others are
left as they were) with the summary; a second one exits at once. A rerun with
--backup takes the backup an interrupted run kept as its own.

A pipe, FIFO or device given as a path is read once, as stdin is; -i refuses it
(there is no file to replace).
",
    crate::cli::help::help_max_line!(),
    "
Exit status: 0 ok, 1 a file failed (or --check found files to migrate), 2 wrong usage,
128+N stopped by signal N (130: SIGINT).",
    crate::cli::help::exact_to_pi!()
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
    #[arg(value_name = "PATH", value_parser = crate::cli::name_arg())]
    pub paths: Vec<String>,

    /// Rewrite each file in place (atomically: temporary file, fsync, rename).
    #[arg(short, long, conflicts_with_all = ["check", "dry_run"])]
    pub in_place: bool,

    /// Change nothing; list the files that need migrating; exit 1 if any.
    #[arg(long, conflicts_with = "dry_run")]
    pub check: bool,

    /// With --check: end each file name with a NUL byte instead of a line
    /// feed (for xargs -0: any name, spaces and newlines too).
    #[arg(short = '0', long = "null")]
    pub null: bool,

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

    /// Drop a torn last line (JSON cut short by a crash, only blank lines
    /// after it), as pi does when it loads the file, and name it; with -i
    /// it needs --backup, which keeps it. Without it such a file is refused.
    #[arg(long)]
    pub drop_torn: bool,

    /// One JSON object per file instead of text (see below).
    #[arg(long)]
    pub json: bool,

    /// Print only errors (no warnings, no summary line).
    #[arg(short, long)]
    pub quiet: bool,
}

crate::cli::impl_tool! { Args, "pi-migrate", quiet = quiet }

/// `pi-migrate`: migrate what PATHs name; not found (exit 1) when a file
/// failed, or `--check` found files to migrate (the messages are printed).
pub(crate) fn run(args: &Args, ctx: &mut Ctx) -> Result<Exit> {
    if args.backup.as_deref() == Some("") {
        return Err(Error::usage("--backup=SUFFIX needs a non-empty suffix"));
    }
    if args.drop_torn && args.in_place && args.backup.is_none() {
        return Err(Error::usage(
            "--drop-torn with --in-place needs --backup: the backup is where the torn line is kept",
        ));
    }
    if args.json && !(args.in_place || args.check || args.dry_run) {
        return Err(Error::usage(
            "--json needs --in-place, --check or --dry-run (without them the session itself is printed)",
        ));
    }
    // (clap's `requires` takes --check's default, false, as given)
    if args.null && !args.check {
        return Err(Error::usage(
            "-0 ends the names --check lists: use it with --check",
        ));
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
    let req = Request {
        paths: args.paths.clone(),
        mode,
        null: args.null,
        all: args.all,
        relocate: args.relocate,
        backup: args.backup.clone(),
        opts: MigrateOptions {
            keep_malformed: args.keep_malformed,
            random_ids: args.random_ids,
            drop_torn: args.drop_torn,
        },
        json: args.json,
    };
    migrate_paths(&req, ctx)
}

/// The tag in temporary file names: `.NAME.pi-migrate-tmp-PID-RAND`.
pub(crate) const TEMP_TAG: &str = "pi-migrate";

/// What `pi-migrate` does with the files it finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
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
pub(crate) struct Request {
    pub paths: Vec<String>,
    pub mode: Mode,
    /// -0: --check's names ended by NUL bytes.
    pub null: bool,
    pub all: bool,
    pub relocate: bool,
    /// Suffix of the backup kept next to each rewritten file.
    pub backup: Option<String>,
    pub opts: MigrateOptions,
    /// One JSON object per file.
    pub json: bool,
}

/// Migrate what `req` names; `Found(false)` means exit 1 with the messages
/// already printed, `Interrupted` that a signal stopped the batch.
///
/// Standard output is taken only for one session: a batch's workers print
/// each on their own.
pub(crate) fn migrate_paths(req: &Request, ctx: &mut Ctx) -> Result<Exit> {
    let log = ctx.log;
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
        return single(req, "<stdin>", &buf, log, ctx.out()).map(Exit::Found);
    }
    if req.backup.is_some() && req.mode != Mode::InPlace {
        return Err(Error::usage("--backup needs --in-place"));
    }
    let batch = req.mode != Mode::Stdout;
    let mut failed = 0usize;
    let mut moved = Vec::new();
    let mut files = select(req, batch, log, &mut || {
        // before the store is walked: the files moved are found there
        if req.all && req.relocate {
            match relocate::relocate(req, log) {
                Ok(m) => moved = m,
                Err(n) => failed += n,
            }
        } else if req.all && matches!(req.mode, Mode::Check | Mode::DryRun) {
            relocate::mention(req, log);
        }
    })?;
    let relocated = moved.len();
    if req.mode != Mode::InPlace {
        // not moved: said how each would be migrated where it is
        files.extend(moved);
    }
    // Said in this order every run (the batch keeps it).
    files.sort();
    files.dedup();
    if !batch {
        if files.len() != 1 {
            return Err(Error::usage(
                "several files need --in-place, --check or --dry-run (stdout takes one session)",
            ));
        }
        let name = crate::name::kept_path(&files[0]).into_owned();
        let f = std::fs::File::open(&files[0]).map_err(|e| Error::io(&name, &e))?;
        let bytes = crate::session::read_stream(&mut &f, &name)?;
        return single(req, &name, &bytes, log, ctx.out()).map(Exit::Found);
    }
    let sum = batch::run_batch(req, &files, log);
    let (migrated, current) = (sum.changed, sum.unchanged);
    failed += sum.failed;
    let verb = match req.mode {
        Mode::InPlace => "migrated",
        Mode::Check => "need migrating",
        _ => "would be migrated",
    };
    let moved = if relocated > 0 && req.mode == Mode::InPlace {
        format!(", {relocated} relocated")
    } else if relocated > 0 {
        format!(", {relocated} would be relocated")
    } else {
        String::new()
    };
    let stopped = match sum.signal {
        Some(sig) => format!(
            "; stopped by {}: {} left as they were",
            crate::write::interrupt::name(sig),
            sum.not_done
        ),
        None => String::new(),
    };
    // Said even with -q when a file failed or a signal stopped the batch.
    let summary = if failed > 0 || sum.signal.is_some() {
        log.loud()
    } else {
        log
    };
    summary.note(format!(
        "{migrated} {verb}, {current} already current, {failed} failed{moved}{stopped}"
    ));
    if let Some(sig) = sum.signal {
        return Ok(Exit::Interrupted(sig));
    }
    Ok(Exit::Found(
        failed == 0 && !(req.mode == Mode::Check && migrated > 0),
    ))
}

/// The files the PATHs (and `--all`) name, each once, through the store's
/// selection: a directory is every `*.jsonl` below it, a PATH that names
/// nothing may be a session-id prefix (looked up as the other tools look
/// up SESSION). A PATH that cannot be read, or that names no session, is
/// an error; so is a directory without `batch`. `before_walk` runs once
/// the arguments are checked, before any directory is walked.
fn select(
    req: &Request,
    batch: bool,
    log: Log,
    before_walk: &mut dyn FnMut(),
) -> Result<Vec<PathBuf>> {
    for p in &req.paths {
        let path: &Path = &crate::name::path_of_kept(p);
        if path.symlink_metadata().is_err() && !store::looks_like_path(p) {
            continue; // a session-id prefix: the selection looks it up
        }
        let meta = std::fs::metadata(path).map_err(|e| Error::io(p, &e))?;
        if meta.is_dir() && !batch {
            return Err(Error::usage(format!(
                "{p}: a directory needs --in-place, --check or --dry-run"
            )));
        }
    }
    let root = store::store_root();
    if req.all && !batch && root.is_dir() {
        return Err(Error::usage(format!(
            "{}: a directory needs --in-place, --check or --dry-run",
            crate::name::kept_path(&root)
        )));
    }
    // A session-id prefix that names no session stops the run before
    // anything is moved (the relocation runs before the walk).
    for p in &req.paths {
        if !(p.is_empty() || p == "-" || crate::name::path_of_kept(p).symlink_metadata().is_ok()) {
            store::resolve_session(Some(p), None)?;
        }
    }
    before_walk();
    let sel_req = store::Request {
        sessions: &req.paths,
        all: req.all,
        session_dir: None,
        project: None,
        stdin_if_piped: false,
        walk: store::DirWalk::Sorted,
    };
    let mut sel = store::select(&sel_req, &mut |d| log.warn(&d))?;
    sel.dedupe();
    let mut files = Vec::with_capacity(sel.sources.len());
    for s in sel.sources {
        match s {
            Source::File(f) => files.push(f),
            // `-` was taken as stdin before
            Source::Stdin => {}
            Source::Unresolved(diag) => {
                return Err(Error {
                    kind: crate::error::ErrorKind::Data,
                    diag,
                    io: None,
                })
            }
        }
    }
    Ok(files)
}

/// One session (stdin or a file) in stdout/check/dry-run mode.
fn single(req: &Request, name: &str, bytes: &[u8], log: Log, out: &mut impl Out) -> Result<bool> {
    let kept = crate::name::bytes_of_kept;
    let outcome = migrate_bytes(name, bytes, req.opts)?;
    if let Outcome::Migrated { changes, .. } = &outcome {
        if let (Some(n), false) = (changes.torn_dropped, req.json) {
            let d =
                crate::error::Diagnostic::new(name, Some(n), "torn last line dropped, as pi does");
            log.warn(&d);
        }
    }
    if req.json {
        let mut j = report::FileJson {
            path: name,
            status: "current",
            from: Some(CURRENT_VERSION),
            ..report::FileJson::default()
        };
        if let Outcome::Migrated { changes, .. } = &outcome {
            j.status = "would-migrate";
            j.from = Some(changes.from_version);
            j.changes = Some(changes.describe());
            j.torn_line = changes.torn_dropped;
        }
        out.line(&kept(&j.line()))?;
    }
    match (&outcome, req.mode) {
        _ if req.json => {}
        (Outcome::Current, Mode::Stdout) => out.bytes(bytes)?,
        (Outcome::Migrated { bytes, .. }, Mode::Stdout) => out.bytes(bytes)?,
        (Outcome::Migrated { .. }, Mode::Check) if req.null => {
            out.bytes(&kept(name))?;
            out.bytes(b"\0")?
        }
        (Outcome::Migrated { .. }, Mode::Check) => out.line(&kept(name))?,
        (Outcome::Migrated { changes, .. }, Mode::DryRun) => {
            out.line(&kept(&format!("{name}: {}", changes.describe())))?
        }
        (Outcome::Current, Mode::DryRun) if !log.quiet => {
            out.line(&kept(&format!("{name}: already version {CURRENT_VERSION}")))?
        }
        _ => {}
    }
    out.done()?;
    Ok(!(req.mode == Mode::Check && matches!(outcome, Outcome::Migrated { .. })))
}
