//! `pi-grep`: search the decoded text of many sessions, in parallel, and
//! name the entry each match is in.
//!
//! A version-3 file is read 128 KB at a time and searched without loading
//! it as a session (so memory is bounded by the longest lines being
//! searched at the same time, one per thread, never by the files or the
//! store): the prefilter (`search::Matcher::pre`) finds the lines whose raw
//! bytes could hold a match, and only those are parsed and decoded. Older
//! files, and `--active`, go through the session loader (for the ids
//! `pi-migrate` will give, and for the path), as do `--since`/`--until`
//! (the activity time is the whole file's), and are read whole.
//!
//! Here the command and its options; the sessions are the store's
//! selection (`store::select`); the work in `search` (searching them, in
//! parallel, through `reading`) and `print` (what a match prints, by mode).

mod print;
mod reading;
mod search;
#[cfg(test)]
mod tests;

pub(crate) use search::search_sources;

use crate::cli::{ColorArgs, Ctx, Exit, Log, StoreArgs, Tool};
use crate::error::{Error, Result};
use crate::search::{Matcher, PatternOptions, FIELDS};
use clap::Parser;

const EXAMPLES: &str = concat!(
    "\
Examples:
  pi-grep 'connection refused'            this project's sessions
  pi-grep --all -i 'sqlite.*lock'         every project's
  pi-grep -l 'TODO\\(perf\\)' | xargs -d '\\n' -n1 pi-path --leaves
                                          the sessions, for scripts
  pi-grep --role user -w migrate s.jsonl  only what the user said, in one session
  pi-grep --in command,output 'cargo test'
                                          only the user's ! shell runs and their output
  pi-grep --active 'rate limit'           only entries on each session's current path
  pi-grep --since 2026-11-01 -c error     counts per session
  pi-grep -L -F 'cargo test' --all        the sessions that never ran the tests
  pi-grep -q panic s.jsonl && echo yes    the exit status alone
  pi-grep -n -x 'Running the .* tests\\.' s.jsonl
                                          whole lines, with the entry's line in the file
  pi-grep --json panic | jq -r '.id+\" \"+.path' | while read -r i f; do pi-fork \"$f\" --at $i; done
                                          a new session at every entry that panicked

Output: PATH:ID:ROLE/FIELD: LINE for each matching line of text (ROLE is the
message's role, or the entry's type for entries that are not messages); on a
terminal the path is a heading above its matches, and matches are coloured
(never with NO_COLOR or in a pipe). Context lines (-A, -B, -C) are
PATH-ID-ROLE/FIELD- LINE, within the same text, with -- between groups.
-n puts the entry's line in the session file after PATH (PATH:LINE:ID:...);
-I leaves PATH out.

For grep and ripgrep users: a line is a line of a text inside an entry, so
-x matches a whole such line (a one-line message's whole text); -L lists
the sessions without a match; -q prints nothing and stops at the first
match; -E is accepted (patterns are extended already); -v is refused, as
the lines that do not match are nearly everything (use -L, --role, --in).

--json: one object per matching line: path, session (the header's id), id
(the entry's), line (the entry's line in the file), type, role (null for
entries that are not messages), field, timestamp, textLine (1-based, in the
text), text (the line), submatches ([{match:{text},start,end}], byte offsets
in text, as ripgrep's JSON gives them).

What is searched, by field: text (user, system and custom messages,
custom_message entries, assistant text blocks), thinking, toolCall (the
tool's name, a space, the arguments as JSON.stringify writes them),
toolResult, command and output (bash runs), summary (branch summaries,
compactions), sections (a system message's, after its text, as pi sends
them), systemMessage (a compaction's system prompt checkpoint: its text and
sections), name (session_info), label. Never keys, ids, signatures or
images. Text is decoded before it is matched: a JSON escape (\\n, \\\", \\u00e9)
is the character it stands for, and each line of a multi-line text is a line.

Patterns are Rust regular expressions (the regex crate, ripgrep's engine):
https://docs.rs/regex/#syntax.

",
    crate::cli::help::help_time!(),
    "

Exit status (as grep's): 0 a line matched, 1 none did, 2 an error (wrong
usage, a SESSION that cannot be read). A file that is not a pi session is
skipped with a warning, which alone is no error.",
    crate::cli::help::exact_to_pi!()
);

/// Search the decoded text of pi sessions, and land on the entry.
///
/// Searches every line of the text pi keeps in each entry (messages,
/// thinking, tool calls and results, bash runs, summaries, names, labels),
/// after decoding JSON, so that text hidden by escapes is found and keys and
/// ids never match; prints the session and the entry id of each match.
/// Sessions are searched in parallel. Version 1 and 2 sessions are searched
/// with the ids pi-migrate will give their entries.
#[derive(Parser, Debug)]
#[command(name = "pi-grep", version, after_help = EXAMPLES)]
pub struct Args {
    /// The pattern (unless -e is given), then the sessions: files,
    /// directories (every *.jsonl below), `-` for stdin, or session-id
    /// prefixes. With none, standard input when it is a pipe or a file
    /// (as ripgrep), else this project's sessions (--all: every project's).
    #[arg(value_name = "PATTERN] [SESSION", num_args = 0.., value_parser = crate::cli::name_arg())]
    pub args: Vec<String>,

    /// A pattern; repeat for several (a line matching any of them matches).
    #[arg(short = 'e', long = "regexp", value_name = "PATTERN")]
    pub regexp: Vec<String>,

    /// Match case-insensitively.
    #[arg(short, long)]
    pub ignore_case: bool,

    /// Match whole words only.
    #[arg(short, long)]
    pub word_regexp: bool,

    /// Match whole lines only: the pattern must match all of a line of a
    /// text (a text is searched line by line, so for a one-line message its
    /// whole text; for a text of several lines, one whole line of it).
    #[arg(short = 'x', long)]
    pub line_regexp: bool,

    /// Patterns are fixed strings, not regular expressions.
    #[arg(short = 'F', long)]
    pub fixed_strings: bool,

    /// Accepted for grep's sake and ignored: patterns are extended
    /// regular expressions already.
    #[arg(short = 'E', long)]
    pub extended_regexp: bool,

    /// Refused: pi-grep matches lines of messages' texts (see -L).
    #[arg(short = 'v', long, hide = true)]
    pub invert_match: bool,

    /// Print only the paths of the sessions with a match.
    #[arg(short = 'l', long, conflicts_with_all = ["count", "json", "only_matching"])]
    pub files_with_matches: bool,

    /// Print only the paths of the sessions searched without a match (exit
    /// status as grep's: 0 when a line matched somewhere, else 1).
    #[arg(short = 'L', long, conflicts_with_all = ["count", "json", "only_matching", "files_with_matches"])]
    pub files_without_match: bool,

    /// Print PATH:COUNT (matching lines) for each session with a match.
    #[arg(short, long, conflicts_with_all = ["json", "only_matching"])]
    pub count: bool,

    /// Print only the matched parts, each on its own line.
    #[arg(short, long, conflicts_with = "json")]
    pub only_matching: bool,

    /// Print the session file's line number of each match's entry
    /// (PATH:LINE:ID:ROLE/FIELD: text, so that FILE:LINE opens the entry).
    #[arg(short = 'n', long)]
    pub line_number: bool,

    /// Print the path with each match (the default).
    #[arg(short = 'H', long, overrides_with = "no_filename")]
    pub with_filename: bool,

    /// Print no path with the matches (nor a path heading); -c prints
    /// the counts alone.
    #[arg(short = 'I', long, overrides_with = "with_filename")]
    pub no_filename: bool,

    /// One JSON object per matching line (see below).
    #[arg(long)]
    pub json: bool,

    /// Stop after NUM matching lines in each session.
    #[arg(short, long, value_name = "NUM")]
    pub max_count: Option<u64>,

    /// Print NUM lines of the same text after each match.
    #[arg(short = 'A', long, value_name = "NUM")]
    pub after_context: Option<usize>,

    /// Print NUM lines of the same text before each match.
    #[arg(short = 'B', long, value_name = "NUM")]
    pub before_context: Option<usize>,

    /// Print NUM lines of the same text before and after each match.
    #[arg(short = 'C', long, value_name = "NUM")]
    pub context: Option<usize>,

    /// Only entries with these roles (user, assistant, toolResult,
    /// bashExecution, system, custom, ...) or, for entries that are not
    /// messages, types (custom_message, branch_summary, compaction,
    /// session_info, label); comma-separated.
    #[arg(long, value_name = "ROLE,...", value_delimiter = ',')]
    pub role: Vec<String>,

    /// Only these fields: text, thinking, toolCall, toolResult, command,
    /// output, summary, sections, systemMessage, name, label;
    /// comma-separated.
    #[arg(long = "in", value_name = "FIELD,...", value_delimiter = ',')]
    pub fields: Vec<String>,

    /// Only entries on each session's current path (from the last entry to
    /// the root, what pi continues from).
    #[arg(long)]
    pub active: bool,

    #[command(flatten)]
    pub store: StoreArgs,

    /// With -l: end each path with NUL instead of a newline.
    #[arg(short = '0', long)]
    pub null: bool,

    #[command(flatten)]
    pub color: ColorArgs,

    /// Path headings above the matches: auto (on a terminal), always, never.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "always", "never"])]
    pub heading: String,
}

impl Tool for Args {
    const NAME: &'static str = "pi-grep";
    fn quiet(&self) -> bool {
        self.store.quiet
    }
    /// `-q` is grep's: the shared "do not print warnings" and more.
    fn adjust(cmd: clap::Command) -> clap::Command {
        crate::cli::edit_arg(cmd, "quiet", |a| {
            a.help(
                "Quiet, as grep -q: print nothing (no warnings either), stop at the \
                 first match; exit 0 if a line matched (even after an error), else 1",
            )
        })
    }
    fn run(&self, ctx: &mut Ctx) -> Result<Exit> {
        run(self, ctx)
    }
    /// grep's: 2 for every error.
    fn error_status(_: &Error) -> u8 {
        2
    }
}

/// `pi-grep`: search the sessions; found (exit 0) when a line matched and
/// no session failed to be read.
pub(crate) fn run(a: &Args, ctx: &mut Ctx) -> Result<Exit> {
    if a.invert_match {
        return Err(Error::usage(INVERT_REFUSED));
    }
    let mut files = a.args.clone();
    let patterns = if a.regexp.is_empty() {
        if files.is_empty() {
            return Err(Error::usage("no PATTERN given (pi-grep --help)"));
        }
        let p = files.remove(0);
        // taken as a file name would be (name_arg): a pattern must be text
        if let std::borrow::Cow::Owned(_) = crate::name::bytes_of_kept(&p) {
            return Err(Error::usage("PATTERN is not UTF-8"));
        }
        vec![p]
    } else {
        a.regexp.clone()
    };
    if a.store.all && !files.is_empty() {
        return Err(Error::usage(
            "--all searches every project: give it no SESSION",
        ));
    }
    for f in &a.fields {
        if !FIELDS.contains(&f.as_str()) {
            return Err(Error::usage(format!(
                "--in {f}: no such field (fields: {})",
                FIELDS.join(", ")
            )));
        }
    }
    let matcher = Matcher::new(
        &patterns,
        PatternOptions {
            ignore_case: a.ignore_case,
            word: a.word_regexp,
            line: a.line_regexp,
            fixed: a.fixed_strings,
        },
    )
    .map_err(|e| Error::usage(format!("bad pattern: {e}")))?;
    let tty = ctx.out_is_terminal();
    let mode = if a.store.quiet {
        Mode::Quiet
    } else if a.files_with_matches {
        Mode::Files
    } else if a.files_without_match {
        Mode::FilesWithout
    } else if a.count {
        Mode::Count
    } else if a.json {
        Mode::Json
    } else if a.only_matching {
        Mode::Only
    } else {
        Mode::Lines
    };
    let text_mode = matches!(mode, Mode::Lines | Mode::Only);
    let (since, until) = a.store.bounds(crate::time::now_ms())?;
    let opts = Options {
        matcher,
        roles: (!a.role.is_empty()).then(|| a.role.clone()),
        fields: (!a.fields.is_empty()).then(|| a.fields.clone()),
        active: a.active,
        since,
        until,
        mode,
        max_count: a.max_count,
        before: a.before_context.or(a.context).unwrap_or(0),
        after: a.after_context.or(a.context).unwrap_or(0),
        color: text_mode && a.color.on(),
        line_number: a.line_number,
        filename: !a.no_filename,
        heading: text_mode
            && !a.no_filename
            && match a.heading.as_str() {
                "always" => true,
                "never" => false,
                _ => tty,
            },
        null: a.null,
        log: ctx.log,
        threads: a
            .store
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
    };
    if opts.max_count == Some(0) {
        return Ok(Exit::Found(false));
    }
    // A session that names none (a prefix matching none) is searched for
    // as an error of its own, in its place; the rest is warned of as found.
    let req = crate::store::Request {
        stdin_if_piped: true,
        ..a.store.request(&files, crate::store::DirWalk::Ordered)
    };
    let log = ctx.log;
    let sources = crate::store::select(&req, &mut |d| log.warn(&d))?.sources;
    // grep's rule, kept by the reporter: a session that could not be read
    // makes the status 2 even when a line matched.
    let status = search_sources(&sources, &opts, ctx.out())?;
    if mode == Mode::Quiet && status.matched {
        // grep -q: a match is exit 0, even after an error
        return Ok(Exit::FoundAnyway);
    }
    Ok(Exit::Found(status.matched))
}

/// Why `-v` is refused, and what to use instead.
const INVERT_REFUSED: &str = "-v (--invert-match) is not supported: pi-grep matches lines of \
     the texts inside messages, and the lines without a match are nearly all of every \
     session (JSON, tool output, thinking); -L lists the sessions without a match, and \
     --role/--in narrow what is searched";

/// What is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// `PATH:ID:ROLE/FIELD: line` per matching line.
    Lines,
    /// Only the matched parts (`-o`).
    Only,
    /// The paths of the sessions with a match (`-l`).
    Files,
    /// `PATH:COUNT` of matching lines, for sessions with a match (`-c`).
    Count,
    /// One JSON object per matching line (`--json`).
    Json,
    /// The paths of the sessions searched without a match (`-L`).
    FilesWithout,
    /// Nothing: the exit status, stopping at the first match (`-q`).
    Quiet,
}

/// Everything a search needs.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub matcher: Matcher,
    /// `--role`: message roles, or entry types for other entries.
    pub roles: Option<Vec<String>>,
    /// `--in`: fields.
    pub fields: Option<Vec<String>>,
    pub active: bool,
    /// Activity time bounds, milliseconds since the epoch: since ≤ t < until.
    pub since: Option<f64>,
    pub until: Option<f64>,
    pub mode: Mode,
    /// `-m`: matching lines per session.
    pub max_count: Option<u64>,
    pub before: usize,
    pub after: usize,
    pub color: bool,
    /// Path as a heading above its matches (on a terminal).
    pub heading: bool,
    /// `-n`: the session file's line number of each match's entry.
    pub line_number: bool,
    /// The path with each match (not `-I`).
    pub filename: bool,
    /// `-0`: end paths with NUL (with `-l`).
    pub null: bool,
    /// Where warnings go (in the order of the sessions, see
    /// [`search_sources`]).
    pub log: Log,
    pub threads: usize,
}

impl Options {
    /// Whether matching lines are printed with lines around them (`-A`,
    /// `-B`, `-C` in the plain output).
    pub(crate) fn context(&self) -> bool {
        self.mode == Mode::Lines && (self.before > 0 || self.after > 0)
    }
}

/// How a search went.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Status {
    pub matched: bool,
}
