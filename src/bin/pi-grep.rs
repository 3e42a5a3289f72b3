//! pi-grep: search the decoded text of pi sessions and name the entry of
//! each match.
//!
//! Usage: pi-grep [OPTIONS] PATTERN [SESSION]...

use clap::Parser;
use pi_session_tools::cli;
use pi_session_tools::cmd::grep::{self, Mode, Options};
use pi_session_tools::error::Error;
use pi_session_tools::search::{Matcher, PatternOptions, FIELDS};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

const EXAMPLES: &str = concat!(
    "\
Examples:
  pi-grep 'connection refused'            this project's sessions
  pi-grep --all -i 'sqlite.*lock'         every project's
  pi-grep -l 'TODO\\(perf\\)' | xargs -d '\\n' -n1 pi-path --leaves
                                          the sessions, for scripts
  pi-grep --role user -w migrate s.jsonl  only what the user said, in one session
  pi-grep --in command,output 'cargo test'
                                          only bash commands and their output
  pi-grep --active 'rate limit'           only entries on each session's current path
  pi-grep --since 2026-11-01 -c error     counts per session
  pi-grep --json panic | jq -r '\"\\(.path) \\(.id)\"' | while read f id; do pi-fork $f --at $id; done
                                          a new session at every entry that panicked

Output: PATH:ID:ROLE/FIELD: LINE for each matching line of text (ROLE is the
message's role, or the entry's type for entries that are not messages); on a
terminal the path is a heading above its matches, and matches are coloured
(never with NO_COLOR or in a pipe). Context lines (-A, -B, -C) are
PATH-ID-ROLE/FIELD- LINE, within the same text, with -- between groups.

--json: one object per matching line: path, session (the header's id), id
(the entry's), line (the entry's line in the file), type, role (null for
entries that are not messages), field, timestamp, textLine (1-based, in the
text), text (the line), submatches ([{match:{text},start,end}], byte offsets
in text, as ripgrep's JSON gives them).

What is searched, by field: text (user, system and custom messages,
custom_message entries, assistant text blocks), thinking, toolCall (the
tool's name, a space, the arguments as JSON.stringify writes them),
toolResult, command and output (bash runs), summary (branch summaries,
compactions), name (session_info), label. Never keys, ids, signatures or
images. Text is decoded before it is matched: a JSON escape (\\n, \\\", \\u00e9)
is the character it stands for, and each line of a multi-line text is a line.

Patterns are Rust regular expressions (the regex crate, ripgrep's engine):
https://docs.rs/regex/#syntax.

Exit status (as grep's): 0 a line matched, 1 none did, 2 an error (wrong
usage, a SESSION that cannot be read). A file that is not a pi session is
skipped with a warning, which alone is no error.",
    pi_session_tools::exact_to_pi!()
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
struct Args {
    /// The pattern (unless -e is given), then the sessions: files,
    /// directories (every *.jsonl below), `-` for stdin, or session-id
    /// prefixes. With none, this project's sessions (--all: every project's).
    #[arg(value_name = "PATTERN] [SESSION", num_args = 0..)]
    args: Vec<String>,

    /// A pattern; repeat for several (a line matching any of them matches).
    #[arg(short = 'e', long = "regexp", value_name = "PATTERN")]
    regexp: Vec<String>,

    /// Match case-insensitively.
    #[arg(short, long)]
    ignore_case: bool,

    /// Match whole words only.
    #[arg(short, long)]
    word_regexp: bool,

    /// Patterns are fixed strings, not regular expressions.
    #[arg(short = 'F', long)]
    fixed_strings: bool,

    /// Print only the paths of the sessions with a match.
    #[arg(short = 'l', long, conflicts_with_all = ["count", "json", "only_matching"])]
    files_with_matches: bool,

    /// Print PATH:COUNT (matching lines) for each session with a match.
    #[arg(short, long, conflicts_with_all = ["json", "only_matching"])]
    count: bool,

    /// Print only the matched parts, each on its own line.
    #[arg(short, long, conflicts_with = "json")]
    only_matching: bool,

    /// One JSON object per matching line (see below).
    #[arg(long)]
    json: bool,

    /// Stop after NUM matching lines in each session.
    #[arg(short, long, value_name = "NUM")]
    max_count: Option<u64>,

    /// Print NUM lines of the same text after each match.
    #[arg(short = 'A', long, value_name = "NUM")]
    after_context: Option<usize>,

    /// Print NUM lines of the same text before each match.
    #[arg(short = 'B', long, value_name = "NUM")]
    before_context: Option<usize>,

    /// Print NUM lines of the same text before and after each match.
    #[arg(short = 'C', long, value_name = "NUM")]
    context: Option<usize>,

    /// Only entries with these roles (user, assistant, toolResult,
    /// bashExecution, system, custom, ...) or, for entries that are not
    /// messages, types (custom_message, branch_summary, compaction,
    /// session_info, label); comma-separated.
    #[arg(long, value_name = "ROLE,...", value_delimiter = ',')]
    role: Vec<String>,

    /// Only these fields: text, thinking, toolCall, toolResult, command,
    /// output, summary, name, label; comma-separated.
    #[arg(long = "in", value_name = "FIELD,...", value_delimiter = ',')]
    fields: Vec<String>,

    /// Only entries on each session's current path (from the last entry to
    /// the root, what pi continues from).
    #[arg(long)]
    active: bool,

    /// Only sessions whose last activity (pi's session list: the latest user
    /// or assistant message) is at or after this time (ISO 8601, UTC unless
    /// an offset is given: 2026-11-01, 2026-11-01T09:30Z).
    #[arg(long, value_name = "TIME")]
    since: Option<String>,

    /// Only sessions whose last activity is before this time.
    #[arg(long, value_name = "TIME")]
    until: Option<String>,

    /// Search every project's sessions.
    #[arg(short, long)]
    all: bool,

    /// The sessions root (with --all) or this project's session directory
    /// (instead of $PI_CODING_AGENT_SESSION_DIR or ~/.pi/agent/sessions).
    #[arg(long, value_name = "DIR")]
    session_dir: Option<PathBuf>,

    /// With -l: end each path with NUL instead of a newline.
    #[arg(short = '0', long)]
    null: bool,

    /// When to colour matches: auto (on a terminal, unless NO_COLOR is
    /// set), always, never.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "always", "never"])]
    color: String,

    /// Path headings above the matches: auto (on a terminal), always, never.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "always", "never"])]
    heading: String,

    /// Search with NUM threads (default: one per core).
    #[arg(short = 'j', long, value_name = "NUM")]
    threads: Option<usize>,

    /// Do not print warnings.
    #[arg(short, long)]
    quiet: bool,
}

fn main() -> ExitCode {
    if let Some(kind) = cli::generate_requested() {
        return cli::run_generate::<Args>("pi-grep", &kind);
    }
    let args = match cli::parse_args::<Args>("pi-grep") {
        Ok(a) => a,
        Err(code) => return code,
    };
    match body(args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            if !e.diag.message.to_lowercase().contains("broken pipe") {
                eprintln!("pi-grep: error: {e}");
                return ExitCode::from(2);
            }
            ExitCode::SUCCESS
        }
    }
}

/// Ok(whether a line matched, with no error on the way).
fn body(mut a: Args) -> Result<bool, Error> {
    if let Err(text) = pi_session_tools::session::max_line_from_env() {
        return Err(Error::usage(format!(
            "{}={text}: not a line length in bytes from 1 to 4294967294 (e.g. 268435456 or 256M)",
            pi_session_tools::session::MAX_LINE_ENV
        )));
    }
    let patterns = if a.regexp.is_empty() {
        if a.args.is_empty() {
            return Err(Error::usage("no PATTERN given (pi-grep --help)"));
        }
        vec![a.args.remove(0)]
    } else {
        std::mem::take(&mut a.regexp)
    };
    if a.all && !a.args.is_empty() {
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
            fixed: a.fixed_strings,
        },
    )
    .map_err(|e| Error::usage(format!("bad pattern: {e}")))?;
    let tty = std::io::stdout().is_terminal();
    let mode = if a.files_with_matches {
        Mode::Files
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
    let opts = Options {
        matcher,
        roles: (!a.role.is_empty()).then_some(a.role),
        fields: (!a.fields.is_empty()).then_some(a.fields),
        active: a.active,
        since: a.since.as_deref().map(grep::parse_time).transpose()?,
        until: a.until.as_deref().map(grep::parse_time).transpose()?,
        mode,
        max_count: a.max_count,
        before: a.before_context.or(a.context).unwrap_or(0),
        after: a.after_context.or(a.context).unwrap_or(0),
        color: text_mode
            && match a.color.as_str() {
                "always" => true,
                "never" => false,
                _ => cli::use_color(cli::ColorWhen::Auto),
            },
        heading: text_mode
            && match a.heading.as_str() {
                "always" => true,
                "never" => false,
                _ => tty,
            },
        null: a.null,
        quiet: a.quiet,
        threads: a
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
    };
    if opts.max_count == Some(0) {
        return Ok(false);
    }
    let mut warnings = Vec::new();
    let sources = grep::select(&a.args, a.all, a.session_dir.as_deref(), &mut warnings)?;
    if !opts.quiet {
        for w in &warnings {
            eprintln!("pi-grep: warning: {w}");
        }
    }
    let mut out = cli::stdout();
    let status = grep::run(&sources, &opts, &mut out, &mut std::io::stderr())?;
    if status.errors {
        // grep's rule: an error makes the status 2 even when a line matched.
        return Err(Error::usage(
            "some sessions could not be read (see above)".to_string(),
        ));
    }
    Ok(status.matched)
}
