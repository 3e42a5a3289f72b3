//! pi-ls: the session store at a glance (pi's `SessionManager.list` and
//! `listAll`, filtered, in text, JSON lines, or NUL-separated paths).
//!
//! Here the command, its request and the run (list, filter, print); what
//! pi lists is the store's (`store::list`); the work in `filter`, `long`
//! (the `-l` fields),
//! `text` (the listing for people) and `tree` (forks under their source).

mod filter;
mod long;
mod text;
mod tree;

pub(crate) use filter::filter;
pub(crate) use long::{long_info, Long};

use crate::cli::{ColorArgs, Ctx, Exit, Log, Out, StoreArgs};
use crate::error::{Diagnostic, Error, Result};
use crate::store;
use clap::Parser;
use std::io::Write;
use std::path::PathBuf;

const EXAMPLES: &str = concat!(
    "\
Examples:
  pi-ls                                  this project's sessions, newest activity first
  pi-ls --all                            every project's
  pi-ls --json | jq -r 'select(.messageCount > 10) | .path'
  pi-ls --all --since 2026-11-01 --cwd /home/dev/src/app --name 'parser*'
  pi-ls -l                               long form: entries, leaves, branches, size, tokens, cost
  pi-ls --tree                           forks under the session they came from
  pi-ls --all --orphans                  sessions whose project directory is gone
  pi-ls -0 --all --older-than 90d | xargs -0 ls -l
  pi-path \"$(pi-ls --json | jq -rn 'first(inputs.path)')\"
                                         every tool takes the paths and ids pi-ls prints

--json prints one object per session and line, pi 1.6.0's SessionInfo as
JSON.stringify writes it (without allMessagesText): path, id, cwd, name,
parentSessionPath, created, modified (the last user or assistant message, else
the header's time, else the file's mtime), messageCount, firstMessage.
With -l it adds: entries (lines after the header that are entries), leaves
(entries without children), branchPoints (entries with more than one child),
compactions, labels (labels in force), bytes (file size), version (the file's
session version: 1 and 2 are listed with the values they keep after
pi-migrate), tokens (usage.totalTokens of every assistant message), cost
(usage.cost.total summed), lastModel (provider/model of the last assistant
message or model change, or null). Without -l, --json prints pi's fields alone.

Files pi does not list (not a session, unreadable, a directory named x.jsonl,
a link that leads nowhere, a file pi's own listing fails on) are skipped with a
warning naming the file; --verbose adds the line and a summary.
Directories: --session-dir DIR, else $PI_CODING_AGENT_SESSION_DIR (listed as
pi lists them: only DIR itself, this project's sessions in it unless --all),
else $PI_CODING_AGENT_DIR/sessions (~/.pi/agent/sessions).
The cache: what each file held is kept for the next run, and a file whose
device, inode, size, modification and change times are unchanged is not read
again (pi only appends). One file per listed directory in
$PI_SESSION_TOOLS_CACHE_DIR, else $XDG_CACHE_HOME/pi-session-tools, else
~/.cache/pi-session-tools; --no-cache or PI_SESSION_TOOLS_CACHE=off reads every
file and neither reads nor writes it.
",
    crate::cli::help::help_time!(),
    "
Exit status: 0 listed (an empty listing too), 1 an error, 2 wrong usage.",
    crate::cli::help::exact_to_pi!()
);

/// List pi sessions: this project's, or every project's, as pi lists them.
///
/// Text for people (aligned to the terminal, relative times on a terminal,
/// ISO times in a pipe, colour only on a terminal and never with NO_COLOR),
/// JSON lines with pi's SessionInfo fields for scripts, or NUL-separated
/// paths.
#[derive(Parser, Debug)]
#[command(name = "pi-ls", version, after_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    pub color: ColorArgs,

    // --all is pi's listAll(); --session-dir is listed as pi lists it
    // (the help's Directories).
    #[command(flatten)]
    pub store: StoreArgs,

    /// One JSON object per session and line: pi's SessionInfo fields.
    #[arg(long, conflicts_with = "null")]
    pub json: bool,

    /// Long form: entries, leaves, branch points, compactions, labels,
    /// size, version, tokens, cost, last model (reads each file whole).
    /// Counts are grouped by thousands (1,234,567). To fit the width the
    /// title shrinks (to 20 columns), then the model (provider first); no
    /// column is dropped, so a line may run past a narrow terminal.
    #[arg(short, long)]
    pub long: bool,

    /// Print the paths only, each ended by a NUL byte (for xargs -0).
    #[arg(short = '0', long = "null")]
    pub null: bool,

    /// Show forks under the session they were forked from (parentSession).
    #[arg(long, conflicts_with_all = ["json", "null"])]
    pub tree: bool,

    /// Only sessions whose working directory no longer exists.
    #[arg(long)]
    pub orphans: bool,

    /// Only sessions last active more than DURATION ago (90d, 12h, 30m, 2w).
    #[arg(long, value_name = "DURATION")]
    pub older_than: Option<String>,

    /// Only sessions whose working directory is DIR or below it.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Only sessions whose name matches GLOB (`*`, `?`, `[...]`).
    #[arg(long, value_name = "GLOB")]
    pub name: Option<String>,

    /// Text: the width to fit (default: the terminal's; no limit in a pipe).
    #[arg(long, value_name = "N")]
    pub width: Option<usize>,

    /// Say why each skipped file is skipped (with its line) and sum up.
    #[arg(short, long, conflicts_with = "quiet")]
    pub verbose: bool,

    /// Read every file, and neither read nor write the cache of what each
    /// file held when last listed (see the man page; also
    /// PI_SESSION_TOOLS_CACHE=off).
    #[arg(long)]
    pub no_cache: bool,
}

crate::cli::impl_tool! { Args, "pi-ls", quiet = store.quiet }

/// `pi-ls`: list the sessions asked for.
pub(crate) fn run(a: &Args, ctx: &mut Ctx) -> Result<Exit> {
    let now = crate::time::now_ms();
    let (since, mut until) = a.store.bounds(now)?;
    if let Some(d) = &a.older_than {
        let Some(ms) = crate::time::parse_duration(d) else {
            return Err(Error::usage(format!(
                "--older-than '{d}': not a duration (90d, 12h, 30m, 45s, 2w)"
            )));
        };
        let t = now - ms;
        until = Some(until.map_or(t, |u: f64| u.min(t)));
    }
    if a.store.empty_session_dir() {
        return Err(Error::usage("--session-dir needs a directory"));
    }
    if let Some(n) = a.store.threads {
        store::set_threads(n);
    }
    let tty = ctx.out_is_terminal();
    let req = Request {
        all: a.store.all,
        session_dir: a.store.session_dir.clone(),
        format: if a.json {
            Format::Json
        } else if a.null {
            Format::Nul
        } else {
            Format::Text
        },
        long: a.long,
        tree: a.tree,
        orphans: a.orphans,
        since,
        until,
        cwd: a.cwd.clone(),
        name: a.name.clone(),
        verbose: a.verbose,
        cache: !a.no_cache,
        log: ctx.log,
        width: a.width.or_else(|| ctx.terminal_width()),
        relative: tty,
        color: a.color.on(),
        now,
    };
    print(&req, ctx.out())?;
    Ok(Exit::Ok)
}

/// How to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Nul,
}

/// What to list and how.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub all: bool,
    pub session_dir: Option<PathBuf>,
    pub format: Format,
    pub long: bool,
    pub tree: bool,
    pub orphans: bool,
    /// Keep sessions modified at or after this time (ms).
    pub since: Option<f64>,
    /// Keep sessions modified before this time (ms).
    pub until: Option<f64>,
    pub cwd: Option<PathBuf>,
    pub name: Option<String>,
    pub verbose: bool,
    /// Take unchanged files' infos from the cache, and keep this run's.
    pub cache: bool,
    /// Where warnings go.
    pub log: Log,
    /// Text: the terminal's columns (None: no cutting).
    pub width: Option<usize>,
    /// Text: relative times (a terminal) or ISO times.
    pub relative: bool,
    pub color: bool,
    /// "Now", for relative times and --older-than (ms).
    pub now: f64,
}

/// Run pi-ls: list, filter, print. Ok(false) when nothing was listed.
pub(crate) fn print(req: &Request, out: &mut impl Write) -> Result<bool> {
    let t0 = std::time::Instant::now();
    let log = req.log;
    let mut skipped = 0usize;
    let listing = store::ListRequest {
        all: req.all,
        session_dir: req.session_dir.as_deref(),
        cache: req.cache,
    };
    let (infos, others) = store::list(&listing, &mut |d| log.warn(&d), &mut |s| {
        skipped += 1;
        let line = s.line.filter(|_| req.verbose);
        let why = format!("{}; not listed", s.reason);
        log.warn(&Diagnostic::new(
            &crate::name::kept_path(&s.path),
            line,
            why,
        ));
    });
    let total = infos.len();
    let infos = filter(req, infos);
    let longs: Vec<Option<Long>> = if req.long {
        store::parallel_map(&infos, |i| long_info(&i.path).ok())
    } else {
        Vec::new()
    };
    match req.format {
        Format::Nul => {
            for i in &infos {
                use std::os::unix::ffi::OsStrExt;
                out.bytes(i.path.as_os_str().as_bytes())?;
                out.bytes(b"\0")?;
            }
        }
        Format::Json => {
            let mut b = Vec::with_capacity(1024);
            for (k, i) in infos.iter().enumerate() {
                b.clear();
                i.write_json_open(&mut b);
                if let Some(l) = longs.get(k) {
                    long::write_long_json(&mut b, i, l.as_ref());
                }
                b.extend_from_slice(b"}\n");
                out.bytes(&b)?;
            }
        }
        Format::Text => text::write_text(req, &infos, &longs, out)?,
    }
    out.done()?;
    // Sessions of other projects are not listed without --all: said with
    // -v, and when nothing is listed (an empty listing would read as an
    // empty directory).
    let elsewhere = format!(
        "{others} session{} of other projects; --all lists them",
        if others == 1 { "" } else { "s" }
    );
    if req.verbose {
        log.note(format!(
            "{} listed ({total} sessions, {} files not sessions or unreadable) in {:.0} ms{}",
            infos.len(),
            skipped,
            t0.elapsed().as_secs_f64() * 1000.0,
            if others > 0 {
                format!("; {elsewhere}")
            } else {
                String::new()
            },
        ));
    } else if others > 0 && infos.is_empty() {
        log.note(elsewhere);
    }
    Ok(!infos.is_empty())
}
