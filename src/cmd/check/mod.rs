//! `pi-check`: what is wrong with sessions, as pi 1.6.0 would meet it,
//! and `--fix`: the repairs that lose no byte.
//!
//! The findings are the library's (`crate::check`); here the usage, the
//! selection of sessions (the store's, `store::select`), the checks on
//! every core, then `print` (text or JSON, in the files' order) and `fix`
//! (one file at a time: the rewrite, the appended context edits, the
//! check again).

mod fix;
mod print;

use crate::check::{self, store::Seen, Finding, Severity};
use crate::cli::{ColorArgs, Ctx, Exit, StoreArgs};
use crate::error::{Error, Result};
use crate::store::{self, Source};
use clap::Parser;
use std::path::PathBuf;

const EXAMPLES: &str = concat!(
    "\
Examples:
  pi-check broken.jsonl                   what is wrong, FILE:LINE each (exit 1: errors)
  pi-check -q s.jsonl && echo clean       nothing wrong: exit 0
  pi-check --session-dir . --json         every session here, a JSON object per finding (exit 1)
  pi-check --fix --dry-run broken.jsonl   what --fix would change, as a diff (exit 1)
  pi-check --all | tail -n 1              every project's sessions: the run's summary
  pi-check --json --session-dir . | jq -r 'select(.severity==\"error\") | .path' | sort -u
                                          the sessions with errors
  pi-check --fix --backup broken.jsonl    repair it, keeping broken.jsonl.bak

Each finding is one line: FILE:LINE: SEVERITY CODE: what, (entry ID), what pi
1.6.0 does with it, and what --fix does (or that it does not repair it); then
a line per file and one for the run. The codes, their severities and what pi
does are listed below.

--fix repairs, one file at a time, what it can without losing a byte: by
appending context_edit entries where that suffices (pi then leaves out, or
sends in another form, what the provider would reject; the bytes stay in
the file and `pi-edit --restore` undoes it), else by rewriting the file
atomically (temporary file, fsync, rename), every line it does not mean to
change kept byte for byte, and every line it drops or changes kept in the
backup (--backup) or appended to FILE.removed beside it. A session a running
pi may be continuing is refused (--force writes anyway). --dry-run prints
the change as a unified diff (appended entries as + lines) and writes
nothing. After --fix the file is checked again; what is left is reported.

--json: one object per finding: path, line, id, code, severity, message,
pi (what pi 1.6.0 does), fix (what --fix does, or null), fixable.

-q prints only error-level findings and no summary lines.
",
    crate::cli::help::help_max_line!(),
    "
Exit status: 0 no error-level finding (warnings and info may be printed), 1 an
error-level finding (after --fix: one is left), 2 a session could not be read
or written, or wrong usage.",
    crate::cli::help::exact_to_pi!()
);

/// Find what is wrong with pi sessions, and repair it without losing a byte.
///
/// Checks each session as pi 1.6.0 reads it: the file (header, byte order
/// mark, line ends, lines pi skips), the tree (ids, parents, cycles,
/// references), the conversation pi would send at the leaf (tool calls and
/// results, arguments, missing messages, oversized images) and, across the
/// files checked, the store (session ids twice, missing fork parents).
/// With no SESSION: this project's sessions (--all: every project's).
#[derive(Parser, Debug)]
#[command(name = "pi-check", version, after_help = EXAMPLES)]
pub struct Args {
    /// Session files, directories (every *.jsonl below), `-` for stdin, or
    /// session-id prefixes.
    #[arg(value_name = "SESSION", value_parser = crate::cli::name_arg())]
    pub sessions: Vec<String>,

    #[command(flatten)]
    pub store: StoreArgs,

    #[command(flatten)]
    pub color: ColorArgs,

    /// One JSON object per finding instead of text.
    #[arg(long)]
    pub json: bool,

    /// Repair what can be repaired (see below).
    #[arg(long)]
    pub fix: bool,

    /// With --fix: print the change as a unified diff; write nothing.
    #[arg(short = 'n', long, requires = "fix")]
    pub dry_run: bool,

    /// With --fix: keep the file as it was as NAME.jsonl + SUFFIX (default
    /// `.bak`; an existing backup is never overwritten) instead of keeping
    /// the dropped lines in FILE.removed.
    #[arg(long, value_name = "SUFFIX", num_args = 0..=1, require_equals = true, default_missing_value = ".bak", requires = "fix")]
    pub backup: Option<String>,

    /// With --fix: write even while a running pi may be continuing the session.
    #[arg(long, requires = "fix")]
    pub force: bool,
}

impl crate::cli::Tool for Args {
    const NAME: &'static str = "pi-check";
    fn quiet(&self) -> bool {
        self.store.quiet
    }
    fn adjust(cmd: clap::Command) -> clap::Command {
        let cmd = crate::cli::edit_arg(cmd, "quiet", |a| {
            a.help("Print only error-level findings, and no summary lines")
        });
        cmd.after_long_help(format!("{EXAMPLES}\n\n{}", codes_help()))
    }
    fn run(&self, ctx: &mut Ctx) -> Result<Exit> {
        run(self, ctx)
    }
    /// 2 for every error: 1 is "something found".
    fn error_status(_: &Error) -> u8 {
        2
    }
}

/// Every code: severity, what pi does, what --fix does.
pub(crate) fn codes_help() -> String {
    let mut s = String::from("Codes (severity: what pi 1.6.0 does; --fix):\n");
    for k in check::KINDS {
        let fix = if k.fix.is_empty() {
            "not repaired"
        } else {
            k.fix
        };
        s.push_str(&format!(
            "  {} ({}): {}; --fix: {}.\n",
            k.code,
            k.severity.name(),
            k.pi,
            fix
        ));
    }
    s.push_str(&format!(
        "\nThe image limit is {} bytes decoded (Anthropic's 5 MB per image).",
        check::IMAGE_LIMIT
    ));
    s
}

/// What was found in one file.
pub(crate) struct Checked {
    pub name: String,
    pub path: Option<PathBuf>,
    pub findings: Vec<Finding>,
    pub seen: Option<Seen>,
}

/// `pi-check`: check, print, repair; exit 1 when an error-level finding is left.
pub(crate) fn run(args: &Args, ctx: &mut Ctx) -> Result<Exit> {
    if args.store.since.is_some() || args.store.until.is_some() {
        return Err(Error::usage(
            "pi-check reads every session selected: --since and --until are not used",
        ));
    }
    if args.store.empty_session_dir() {
        return Err(Error::usage("--session-dir needs a directory"));
    }
    if args.backup.as_deref() == Some("") {
        return Err(Error::usage("--backup=SUFFIX needs a non-empty suffix"));
    }
    let req = args.store.request(&args.sessions, store::DirWalk::Sorted);
    let log = ctx.log;
    let mut sel = store::select(&req, &mut |d| log.warn(&d))?;
    sel.dedupe();
    let temps = check::store::temp_names(sel.sources.iter().filter_map(|s| match s {
        Source::File(p) => Some(p.as_path()),
        _ => None,
    }));
    let check = |src: &Source| check_source(src, args.fix, log, &temps);
    let mut p = print::Printer::new(args, ctx);
    let mut left = false;
    let mut dirs = std::collections::HashSet::new();
    let mut across = check::store::Across::default();
    if args.fix {
        // Every file is read (and the store layer looks across them)
        // before any is repaired.
        let mut checked = store::parallel_map(&sel.sources, check);
        for c in checked.iter_mut().flatten() {
            if let Some(seen) = &c.seen {
                c.findings.extend(across.file(seen));
            }
        }
        for c in checked.into_iter().flatten() {
            left |= take(args, ctx, &mut p, &mut dirs, c)?;
        }
    } else {
        // Each file's findings are printed as soon as those before it
        // are: what was found is not held for every file at once.
        store::parallel_in_order(&sel.sources, check, |c| {
            let Some(mut c) = c else { return Ok(()) };
            if let Some(seen) = &c.seen {
                c.findings.extend(across.file(seen));
            }
            left |= take(args, ctx, &mut p, &mut dirs, c)?;
            Ok::<(), Error>(())
        })?;
    }
    p.done(ctx)?;
    Ok(Exit::Found(!left))
}

/// Print what was found in one file and, with --fix, repair it: whether
/// an error-level finding is left.
fn take(
    args: &Args,
    ctx: &mut Ctx,
    p: &mut print::Printer,
    dirs: &mut std::collections::HashSet<PathBuf>,
    c: Checked,
) -> Result<bool> {
    if let (true, false, Some(path)) = (args.fix, args.dry_run, &c.path) {
        fix::remove_strays(path, dirs);
    }
    p.file(ctx, &c)?;
    let mut errors = c
        .findings
        .iter()
        .any(|f| f.kind.severity == Severity::Error);
    if args.fix && c.findings.iter().any(|f| f.repair.is_some()) {
        if let Some(path) = &c.path {
            match fix::fix(args, ctx, path, &c.name) {
                Ok(after) => errors = after,
                Err(e) => ctx.log.error(e),
            }
        }
    }
    Ok(errors)
}

/// Check one source (None when it cannot be read: said as an error);
/// with `fix`, a source that is no regular file is refused unread.
fn check_source(
    src: &Source,
    fix: bool,
    log: crate::cli::Log,
    temps: &std::collections::HashMap<PathBuf, Vec<String>>,
) -> Option<Checked> {
    let (name, path) = match src {
        Source::Unresolved(d) => {
            log.error(d.clone());
            return None;
        }
        Source::Stdin => ("<stdin>".to_string(), None),
        Source::File(p) => (crate::name::kept_path(p).into_owned(), Some(p.clone())),
    };
    if fix {
        let regular = path
            .as_deref()
            .map(|p| std::fs::metadata(p).map(|m| m.is_file()));
        if let Some(Ok(false)) | None = regular {
            log.error(Error::request(
                &name,
                "not a regular file (a pipe, a FIFO, a device or stdin): --fix repairs session files only",
            ));
            return None;
        }
    }
    let spare = SPARE.with(|b| std::mem::take(&mut *b.borrow_mut()));
    let bytes = match read_into(path.as_deref(), &name, spare) {
        Ok(Read::Bytes(b)) => b,
        // Not read further (memory stays bounded): the one finding.
        Ok(Read::TooLong(line)) => {
            let limit = crate::session::max_line();
            return Some(Checked {
                name,
                path,
                findings: vec![Finding::new(
                    check::LINE_TOO_LONG,
                    Some(line),
                    format!("line {line} is longer than {limit} bytes (the most these tools read; {} sets it): the file is not read further", crate::session::MAX_LINE_ENV),
                )],
                seen: None,
            });
        }
        Err(e) => {
            log.error(e);
            return None;
        }
    };
    let report = check::check_file(path.as_deref(), &name, bytes);
    let mut findings = report.findings;
    if let Some(p) = &path {
        let names = temps
            .get(&crate::write::dir_of(p))
            .map_or(&[][..], |n| &n[..]);
        findings.extend(check::store::temp_files(p, names));
    }
    let seen = match (&path, &report.session) {
        (Some(p), Some(s)) => Some(Seen::of(p, s)),
        _ => None,
    };
    // The bytes' memory reads the thread's next file: its pages are not
    // asked of the kernel (and zeroed) again for every file.
    if let Some(b) = report
        .session
        .and_then(|s| s.into_memory())
        .or(report.bytes)
    {
        SPARE.with(|s| {
            let mut s = s.borrow_mut();
            if b.capacity() > s.capacity() {
                *s = b;
            }
        });
    }
    Some(Checked {
        name,
        path,
        findings,
        seen,
    })
}

/// What [`read_checked`] read.
pub(crate) enum Read {
    Bytes(Vec<u8>),
    /// A regular file with a line longer than the limit (this one), not
    /// read further.
    TooLong(u64),
}

/// The bytes of a session (stdin when `path` is None), refusing a line
/// longer than the limit before holding it.
pub(crate) fn read(path: Option<&std::path::Path>, name: &str) -> Result<Vec<u8>> {
    match read_checked(path, name)? {
        Read::Bytes(b) => Ok(b),
        Read::TooLong(line) => Err(crate::session::line_too_long(
            name,
            line,
            crate::session::max_line(),
        )),
    }
}

/// [`read`], where a regular file with a line over the limit is said
/// ([`Read::TooLong`]) rather than an error: a finding of its own.
pub(crate) fn read_checked(path: Option<&std::path::Path>, name: &str) -> Result<Read> {
    read_into(path, name, Vec::new())
}

thread_local! {
    /// The memory of the last file a thread checked, for its next one.
    static SPARE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// [`read_checked`] into `buf`'s memory (what it holds is dropped).
fn read_into(path: Option<&std::path::Path>, name: &str, mut buf: Vec<u8>) -> Result<Read> {
    use std::io::Read as _;
    let Some(path) = path else {
        return crate::session::read_stdin(name).map(Read::Bytes);
    };
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(name, &e))?;
    let meta = file.metadata().map_err(|e| Error::io(name, &e))?;
    if meta.is_dir() {
        return Err(Error::request(name, "is a directory, not a session file"));
    }
    if !meta.is_file() {
        return crate::session::read_stream(&mut file, name).map(Read::Bytes);
    }
    // A file no longer than the limit has no line over it: only a bigger
    // one is read a piece at a time first.
    if meta.len() > crate::session::max_line() {
        if let Err(e) = crate::session::check_line_lengths(&file, name) {
            return match e.diag.at.as_ref().and_then(|l| l.line) {
                Some(line) => Ok(Read::TooLong(line)),
                None => Err(e),
            };
        }
    }
    buf.clear();
    buf.reserve(meta.len() as usize);
    file.read_to_end(&mut buf)
        .map_err(|e| Error::io(name, &e))?;
    Ok(Read::Bytes(buf))
}
