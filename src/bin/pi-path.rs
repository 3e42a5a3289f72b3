//! pi-path: the path from the root of a pi session to a leaf.
//!
//! Usage: pi-path [OPTIONS] [SESSION]
//!
//! Prints the entries on the path (byte for byte), the messages pi would
//! send to the model, the whole context object, or the ids; or lists every
//! leaf a user can go back to.

use clap::Parser;
use pi_session_tools::cli::{self, SessionArgs};
use pi_session_tools::cmd::path::{self, Format};

const EXAMPLES: &str = concat!(
    "\
Examples:
  pi-path s.jsonl                          entries from the root to the last entry
  pi-path --format ids s.jsonl             their ids, one per line
  pi-path --leaf leaf~2 s.jsonl            the path two entries above the leaf
  pi-path --leaf @before-refactor s.jsonl  the path to the entry labelled before-refactor
  pi-path --format messages s.jsonl | jq -r .role
                                           the roles pi sends to the model
  pi-path --header --leaf 3f2a s.jsonl > linear.jsonl
                                           a valid session holding just one branch
  pi-path --leaves s.jsonl | jq -r .id     every branch a user can go back to
  pi-path 019a5c                           a session by id prefix, like pi --session

REF (for --leaf): a full id, a unique id prefix (4+ chars), leaf, root, @LABEL,
followed by any of ^ (parent) and ~N (N-th ancestor): leaf~3, @plan^, root.

A line longer than 256 MiB is an error (PI_SESSION_TOOLS_MAX_LINE=BYTES, or 64K, 512M, 1G, sets the limit).
Exit status: 0 ok, 1 the data or request cannot be honoured, 2 wrong usage.",
    pi_session_tools::exact_to_pi!()
);

/// The path from the root of a pi session to a leaf.
///
/// Walks parentId links from the leaf (by default the last entry, which is
/// where pi continues when it opens the file) back to the root, exactly as
/// pi's SessionManager does, and prints what is on the way. Version 1 and 2
/// sessions are read as version 3 with deterministic ids (run pi-migrate to
/// upgrade the file).
#[derive(Parser, Debug)]
#[command(name = "pi-path", version, after_help = EXAMPLES)]
struct Args {
    #[command(flatten)]
    input: SessionArgs,

    /// The entry the path ends at (a REF, see below; --at is the same, as
    /// in pi-fork).
    #[arg(long, value_name = "REF", default_value = "leaf", visible_alias = "at")]
    leaf: String,

    /// What to print for the path.
    #[arg(long, value_enum, default_value = "entries")]
    format: Format,

    /// Print the session header first (with --format entries the output is
    /// itself a valid, linear session file).
    #[arg(long)]
    header: bool,

    /// List every leaf (entry without children) as JSON lines: id, line,
    /// timestamp, depth, label, whether it is pi's current leaf, and the
    /// last user message on its path.
    #[arg(long, conflicts_with_all = ["leaf", "format", "header"])]
    leaves: bool,
}

fn main() -> std::process::ExitCode {
    cli::main("pi-path", |args: Args| {
        let session = args.input.open("pi-path")?;
        let mut out = cli::stdout();
        if args.leaves {
            path::write_leaves(&session, &mut out)
        } else {
            path::write_path(&session, &args.leaf, args.format, args.header, &mut out)
        }
    })
}
