//! pi-tree: pi's `/tree` view of a session from the shell.
//!
//! Usage: pi-tree [OPTIONS] [SESSION]
//!
//! Draws the tree of a session the way pi's `/tree` selector does (same
//! order, indentation, connectors, `•` on the active path, `[label]`,
//! summaries and filters), or prints pi's `getTree()` as JSON, one JSON
//! line per entry, a Graphviz graph, or statistics.

use clap::Parser;
use pi_session_tools::cli::{self, SessionArgs};
use pi_session_tools::cmd::tree::{self, Filter, Format, Options};
use pi_session_tools::session::ReadOptions;
use std::io::IsTerminal;

const EXAMPLES: &str = concat!(
    "\
Examples:
  pi-tree s.jsonl                         the tree as pi's /tree shows it
  pi-tree --filter user-only s.jsonl      only the user messages
  pi-tree --search 'parser json' s.jsonl  entries holding both words
  pi-tree --leaf @plan --ids s.jsonl      mark the path to the entry labelled plan, with ids
  pi-tree --json s.jsonl | jq '.[0].entry.id'
                                          pi's getTree(), exactly
  pi-tree --format jsonl s.jsonl | jq -r 'select(.children|length>1).id'
                                          every branch point
  pi-tree --format dot s.jsonl | dot -Tsvg > tree.svg
                                          a picture of the tree
  pi-tree --stats s.jsonl | jq .maxDepth  the depth of the deepest path
  pi-tree --color always 019a5c | less -R
                                          a session by id prefix, coloured in less

REF (for --leaf): a full id, a unique id prefix (4+ chars), leaf, root, @LABEL,
followed by any of ^ (parent) and ~N (N-th ancestor): leaf~3, @plan^, root.

A line longer than 256 MiB is an error (PI_SESSION_TOOLS_MAX_LINE=BYTES, or 64K, 512M, 1G, sets the limit).
Exit status: 0 ok, 1 the data or request cannot be honoured, 2 wrong usage.",
    pi_session_tools::exact_to_pi!()
);

/// pi's /tree view of a session, from the shell.
///
/// The text view is the list of pi's /tree selector without the cursor,
/// the fold glyphs and the counter: the branch holding the active leaf
/// first, children by timestamp, `•` on the path to the active leaf,
/// `[label]` before labelled entries, one line per entry (usage records
/// are never shown; `No entries found` when nothing passes the filter).
/// Entries on a parentId cycle are not in pi's tree; they are reported as
/// warnings.
#[derive(Parser, Debug)]
#[command(name = "pi-tree", version, after_help = EXAMPLES)]
struct Args {
    /// When to colour: auto (on a terminal, unless NO_COLOR is set;
    /// CLICOLOR_FORCE or FORCE_COLOR force it), always (e.g. for `less -R`), never.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "auto")]
    color: pi_session_tools::cli::ColorWhen,

    #[command(flatten)]
    input: SessionArgs,

    /// Which entries to show, as pi's /tree filters (text: `default`; with
    /// --format jsonl or dot: every entry unless given).
    #[arg(long, value_enum)]
    filter: Option<Filter>,

    /// Show only entries whose text holds every word (case-insensitive, as
    /// typing in pi's /tree).
    #[arg(long, value_name = "WORDS")]
    search: Option<String>,

    /// The active leaf whose path is marked with • (a REF; default: the
    /// last entry, where pi continues; --at is the same, as in pi-fork).
    #[arg(long, value_name = "REF", visible_alias = "at")]
    leaf: Option<String>,

    /// Prefix each line with the entry id.
    #[arg(long)]
    ids: bool,

    /// Cut lines to N columns, as pi cuts its rows: no "...", wide
    /// characters and emoji as 2 columns (default: the terminal's width
    /// on a terminal, no limit in a pipe; 0 = no limit).
    #[arg(long, value_name = "N")]
    width: Option<usize>,

    /// What to print.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,

    /// Same as --format json: one line, pi's getTree() exactly.
    #[arg(long, conflicts_with = "format")]
    json: bool,

    /// Print counts as one JSON line: entries by type, roots, branch
    /// points, leaves, depth of the deepest path, labels, session name.
    #[arg(long, conflicts_with_all = ["format", "json", "filter", "search", "leaf", "ids"])]
    stats: bool,
}

fn main() -> std::process::ExitCode {
    cli::main("pi-tree", |args: Args| {
        let json = args.json || args.format == Format::Json;
        // --json prints whole entries: find out while reading which lines
        // can be printed as they are.
        let read = ReadOptions {
            canonical: json,
            ..args.input.read_options()
        };
        let session = args.input.open_with("pi-tree", read)?;
        let quiet = args.input.quiet;
        let mut warn = |d: pi_session_tools::error::Diagnostic| {
            if !quiet {
                eprintln!("pi-tree: warning: {d}");
            }
        };
        let mut out = cli::stdout();
        if args.stats {
            return tree::write_stats(&session, &mut out, &mut warn);
        }
        let tty = std::io::stdout().is_terminal();
        let width = match args.width {
            Some(0) => None,
            Some(n) => Some(n),
            None if tty => terminal_size::terminal_size().map(|(w, _)| w.0 as usize),
            None => None,
        };
        let opts = Options {
            format: if json { Format::Json } else { args.format },
            filter: args.filter,
            search: args.search,
            leaf: args.leaf,
            ids: args.ids,
            width,
            color: pi_session_tools::cli::use_color(args.color),
            out_fd: out_fd(),
        };
        tree::run(&session, &opts, &mut out, &mut warn)
    })
}

/// Standard output's file descriptor, which `out` writes to (None when it
/// is closed: `out` then takes writes and drops them, as Rust's standard
/// output does, and so does every tool).
#[cfg(unix)]
fn out_fd() -> Option<i32> {
    use std::os::fd::{AsFd, AsRawFd};
    let stdout = std::io::stdout();
    let open = stdout.as_fd().try_clone_to_owned().is_ok();
    open.then(|| stdout.as_raw_fd())
}

#[cfg(not(unix))]
fn out_fd() -> Option<i32> {
    None
}
