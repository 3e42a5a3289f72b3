//! pi-label: set, clear and list labels (bookmarks) and the session name.
//!
//! Usage: pi-label [OPTIONS] SESSION REF NAME     label an entry
//!        pi-label [OPTIONS] SESSION REF --clear  remove its label
//!        pi-label [OPTIONS] SESSION --list       the labels in force
//!        pi-label [OPTIONS] SESSION --name [NAME]
//!
//! Appends exactly the entries pi's /tree labels and /name write, safely:
//! one locked write of a whole line, on a fresh line, then fsync.

use clap::Parser;
use pi_session_tools::cli;
use pi_session_tools::cmd::label::{self, Action};
use pi_session_tools::error::Error;
use pi_session_tools::locate::resolve_session;
use pi_session_tools::session::ReadOptions;
use std::path::PathBuf;

const EXAMPLES: &str = concat!(
    "\
Examples:
  pi-label s.jsonl leaf~2 checkpoint        bookmark the entry two above the leaf
  pi-label s.jsonl @checkpoint --clear      remove that bookmark
  pi-label s.jsonl --list                   ID, LABEL and a summary, tab separated
  pi-label s.jsonl --list --json | jq -r .label
  pi-label s.jsonl --name 'parser rewrite'  name the session (what pi's /name does)
  pi-label s.jsonl --name                   print the session's name
  pi-label - 3f2a good < s.jsonl > out.jsonl
                                            stdin: the session plus the new entry on stdout

The new entry's parent is the last entry of the file (pi's leaf), so pi
continues where it was. Prints the new entry's id, before the entry is
appended: if printing fails (a full disk, > /dev/full), nothing is appended.
When the file does not end with a newline (pi may be writing its last line),
waits up to 1 s for the line to end before starting a fresh one after it.
--list text: tabs, line breaks, control characters and backslashes in ids,
labels and summaries are written as \\t, \\n, \\xNN and \\\\ (--json: as they are).

REF: a full id, a unique id prefix (4+ chars), leaf, root, @LABEL, with ^ and ~N
(^ and ~N pass over pi-fork's own marker entries without counting them).
A line longer than 256 MiB is an error (PI_SESSION_TOOLS_MAX_LINE=BYTES, or 64K, 512M, 1G, sets the limit).
Exit status: 0 ok, 1 the data or request cannot be honoured, 2 wrong usage.",
    pi_session_tools::exact_to_pi!()
);

/// Set, clear and list labels (bookmarks) and the session name of a pi session.
///
/// Labels mark entries so that you can come back to them (pi shows them in
/// /tree; every tool here accepts @NAME as a reference). Writing appends one
/// entry to the file in place, exactly as pi writes it; a version 1 or 2 file
/// must be migrated first (pi-migrate -i).
#[derive(Parser, Debug)]
#[command(name = "pi-label", version, after_help = EXAMPLES)]
struct Args {
    /// Session file, `-` for stdin, or a session-id prefix.
    #[arg(value_name = "SESSION")]
    session: String,

    /// The entry to label or unlabel (a REF).
    #[arg(value_name = "REF")]
    reference: Option<String>,

    /// The label to set.
    #[arg(value_name = "NAME")]
    label: Option<String>,

    /// Remove the label of REF.
    #[arg(long, requires = "reference", conflicts_with = "label")]
    clear: bool,

    /// List the labels in force (last wins), in pi's order.
    #[arg(long, conflicts_with_all = ["reference", "name"])]
    list: bool,

    /// With --list: JSON lines {id, label, line, type, text}.
    #[arg(long, requires = "list")]
    json: bool,

    /// Name the session (trimmed, as pi does); without a value, print its name.
    #[arg(long, value_name = "NAME", num_args = 0..=1, conflicts_with = "reference")]
    name: Option<Option<String>>,

    /// Directory to look up session-id prefixes in.
    #[arg(long, value_name = "DIR")]
    session_dir: Option<PathBuf>,

    /// Treat lines that are not JSON objects as errors.
    #[arg(long)]
    strict: bool,

    /// Do not print warnings.
    #[arg(short, long)]
    quiet: bool,
}

impl Args {
    fn action(&self) -> Result<Action, Error> {
        Ok(match (&self.reference, &self.label, &self.name) {
            _ if self.list => Action::List { json: self.json },
            (None, None, Some(Some(n))) => Action::SetName(n.clone()),
            (None, None, Some(None)) => Action::ShowName,
            (Some(r), None, None) if self.clear => Action::Clear {
                reference: r.clone(),
            },
            (Some(r), Some(l), None) => Action::Set {
                reference: r.clone(),
                label: l.clone(),
            },
            (Some(_), None, None) => {
                return Err(Error::usage("give a label NAME after REF, or --clear"))
            }
            _ => {
                return Err(Error::usage(
                    "say what to do: REF NAME, REF --clear, --list or --name",
                ))
            }
        })
    }
}

fn main() -> std::process::ExitCode {
    cli::main("pi-label", |args: Args| {
        let action = args.action()?;
        let input = resolve_session(Some(&args.session), args.session_dir.as_deref())?;
        let quiet = args.quiet;
        let mut warn = |s: &pi_session_tools::session::Session| {
            if !quiet {
                for w in &s.warnings {
                    eprintln!("pi-label: warning: {w}");
                }
            }
        };
        label::run(
            input,
            ReadOptions {
                strict: args.strict,
                ..Default::default()
            },
            &action,
            &mut warn,
            &mut cli::stdout(),
        )
    })
}
