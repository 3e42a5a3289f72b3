//! pi-ls: the session store at a glance, for people and for `jq`.
//!
//! Usage: pi-ls [OPTIONS]
//!
//! Lists this project's sessions (pi's `SessionManager.list(cwd)`) or every
//! project's (`--all`, pi's `listAll()`), newest activity first.

use clap::Parser;
use pi_session_tools::cli;
use pi_session_tools::cmd::ls::{self, Format, Request};
use pi_session_tools::error::Error;
use std::io::IsTerminal;
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
Exit status: 0 listed (an empty listing too), 1 an error, 2 wrong usage.",
    pi_session_tools::exact_to_pi!()
);

/// List pi sessions: this project's, or every project's, as pi lists them.
///
/// Text for people (aligned to the terminal, relative times on a terminal,
/// ISO times in a pipe, colour only on a terminal and never with NO_COLOR),
/// JSON lines with pi's SessionInfo fields for scripts, or NUL-separated
/// paths.
#[derive(Parser, Debug)]
#[command(name = "pi-ls", version, after_help = EXAMPLES)]
struct Args {
    /// When to colour: auto (on a terminal, unless NO_COLOR is set;
    /// CLICOLOR_FORCE or FORCE_COLOR force it), always (e.g. for `less -R`), never.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "auto")]
    color: pi_session_tools::cli::ColorWhen,

    /// Every project's sessions (pi's listAll()), not only this directory's.
    #[arg(short, long)]
    all: bool,

    /// One JSON object per session and line: pi's SessionInfo fields.
    #[arg(long, conflicts_with = "null")]
    json: bool,

    /// Long form: entries, leaves, branch points, compactions, labels,
    /// size, version, tokens, cost, last model (reads each file whole).
    #[arg(short, long)]
    long: bool,

    /// Print the paths only, each ended by a NUL byte (for xargs -0).
    #[arg(short = '0', long = "null")]
    null: bool,

    /// Show forks under the session they were forked from (parentSession).
    #[arg(long, conflicts_with_all = ["json", "null"])]
    tree: bool,

    /// Only sessions whose working directory no longer exists.
    #[arg(long)]
    orphans: bool,

    /// Only sessions active at or after WHEN (2026-11-01, an ISO time, or 7d for 7 days ago).
    #[arg(long, value_name = "WHEN")]
    since: Option<String>,

    /// Only sessions last active before WHEN.
    #[arg(long, value_name = "WHEN")]
    until: Option<String>,

    /// Only sessions last active more than DURATION ago (90d, 12h, 30m, 2w).
    #[arg(long, value_name = "DURATION")]
    older_than: Option<String>,

    /// Only sessions whose working directory is DIR or below it.
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,

    /// Only sessions whose name matches GLOB (`*`, `?`, `[...]`).
    #[arg(long, value_name = "GLOB")]
    name: Option<String>,

    /// The session directory to list (instead of
    /// $PI_CODING_AGENT_SESSION_DIR or ~/.pi/agent/sessions/--<cwd>--).
    #[arg(long, value_name = "DIR")]
    session_dir: Option<PathBuf>,

    /// Text: the width to fit (default: the terminal's; no limit in a pipe).
    #[arg(long, value_name = "N")]
    width: Option<usize>,

    /// Say why each skipped file is skipped (with its line) and sum up.
    #[arg(short, long)]
    verbose: bool,

    /// Do not print warnings.
    #[arg(short, long, conflicts_with = "verbose")]
    quiet: bool,
}

fn main() -> std::process::ExitCode {
    cli::main("pi-ls", |a: Args| {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_millis() as f64);
        let since = a
            .since
            .as_deref()
            .map(|s| ls::parse_when(s, now))
            .transpose()?;
        let mut until = a
            .until
            .as_deref()
            .map(|s| ls::parse_when(s, now))
            .transpose()?;
        if let Some(d) = &a.older_than {
            let Some(ms) = ls::parse_duration(d) else {
                return Err(Error::usage(format!(
                    "--older-than '{d}': not a duration (90d, 12h, 30m, 45s, 2w)"
                )));
            };
            let t = now - ms;
            until = Some(until.map_or(t, |u: f64| u.min(t)));
        }
        if a.session_dir
            .as_ref()
            .is_some_and(|d| d.as_os_str().is_empty())
        {
            return Err(Error::usage("--session-dir needs a directory"));
        }
        let tty = std::io::stdout().is_terminal();
        let req = Request {
            all: a.all,
            session_dir: a.session_dir,
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
            cwd: a.cwd,
            name: a.name,
            verbose: a.verbose,
            quiet: a.quiet,
            width: match a.width {
                Some(w) => Some(w),
                None if tty => terminal_size::terminal_size().map(|(w, _)| w.0 as usize),
                None => None,
            },
            relative: tty,
            color: pi_session_tools::cli::use_color(a.color),
            now,
        };
        ls::run(&req, &mut cli::stdout())?;
        Ok(())
    })
}
