//! pi-usage: what the sessions cost, by day, week, month, session, project,
//! model, provider or branch.

use clap::Parser;
use pi_session_tools::cli;
use pi_session_tools::cmd::usage::{self, By, Output, Report, Request};
use pi_session_tools::error::Error;
use std::io::IsTerminal;
use std::path::PathBuf;

const EXAMPLES: &str = concat!(
    "\
Examples:
  pi-usage                          daily table for every project
  pi-usage monthly --since 2026-01  a row per month from January 2026 on
  pi-usage session --cwd . --json | jq '.[] | select(.cost > 5)'
                                    the sessions of this project that cost more than $5
  pi-usage daily --by model         a row per day and model
  pi-usage project                  a row per project directory
  pi-usage daily --timezone Europe/Berlin --csv > usage.csv
  pi-usage s.jsonl --by branch      one session: what each branch cost
  pi-usage weekly --breakdown       cost split into input, output, cache read, cache write

Counted: every assistant message with usage (on every branch: abandoned
branches were paid for too), every `usage` entry (titles, cache warming, ...),
and the usage of compaction and branch_summary entries. A fork repeats its
source's entries: each is counted once per (source session, entry id), where
the source session is found by following the headers' parentSession to a file
without one (its header id; the parentSession path when that file is gone).
Cost is pi's recorded cost.total, never re-priced. Days are local days in
--timezone (default: the system's zone). --json: an array of rows with
ccusage's field names (inputTokens, outputTokens, cacheCreationTokens,
cacheReadTokens, totalTokens, totalCost) plus cost, costBreakdown, modelsUsed
and source (how many records of each kind).

Exit status: 0 ok, 1 the data or request cannot be honoured, 2 wrong usage.",
    pi_session_tools::exact_to_pi!()
);

/// What the sessions cost, by day, week, month, session, project, model,
/// provider or branch.
///
/// Reads every session of every project (or of one project with --cwd, or
/// one SESSION), counts every recorded usage once, and prints a table, JSON
/// or CSV.
#[derive(Parser, Debug)]
#[command(name = "pi-usage", version, after_help = EXAMPLES)]
struct Args {
    /// When to colour: auto (on a terminal, unless NO_COLOR is set;
    /// CLICOLOR_FORCE or FORCE_COLOR force it), always (e.g. for `less -R`), never.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "auto")]
    color: pi_session_tools::cli::ColorWhen,

    /// The report (daily, weekly, monthly, session, project; default daily),
    /// then optionally one SESSION (a file or a session-id prefix): only that
    /// session is counted.
    #[arg(value_name = "REPORT|SESSION", num_args = 0..=2)]
    words: Vec<String>,

    /// A second grouping: a row per model or provider within each row;
    /// `branch` (with one SESSION): a row per leaf, with what its path cost.
    #[arg(long, value_enum)]
    by: Option<By>,

    /// First day counted (YYYY-MM-DD, YYYYMMDD, or YYYY-MM for the month's first day).
    #[arg(long, value_name = "DATE")]
    since: Option<String>,

    /// Last day counted (YYYY-MM-DD, YYYYMMDD, or YYYY-MM for the month's last day).
    #[arg(long, value_name = "DATE")]
    until: Option<String>,

    /// IANA time zone the days are counted in (default: the system's).
    #[arg(long, short = 'z', value_name = "ZONE")]
    timezone: Option<String>,

    /// One JSON array of rows.
    #[arg(long, conflicts_with = "csv")]
    json: bool,

    /// CSV with a header line.
    #[arg(long)]
    csv: bool,

    /// Show the cost's parts: input, output, cache read, cache write.
    #[arg(long)]
    breakdown: bool,

    /// Only the sessions of the project in DIR (pi's session directory for it).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,

    /// The sessions root to read instead of $PI_CODING_AGENT_SESSION_DIR or
    /// <agentDir>/sessions (also where SESSION prefixes are looked up).
    #[arg(long, value_name = "DIR")]
    session_dir: Option<PathBuf>,

    /// Table width (default: the terminal's; unlimited when not a terminal).
    #[arg(long, value_name = "N")]
    width: Option<usize>,

    /// Do not print warnings.
    #[arg(short, long)]
    quiet: bool,
}

fn main() -> std::process::ExitCode {
    cli::main("pi-usage", |args: Args| {
        let mut report = Report::Daily;
        let mut session = None;
        for (i, w) in args.words.iter().enumerate() {
            match Report::parse(w) {
                Some(r) if i == 0 => report = r,
                _ if session.is_none() => session = Some(w.clone()),
                _ => return Err(Error::usage(format!("unexpected argument '{w}'"))),
            }
        }
        let file = match session {
            Some(s) => match pi_session_tools::locate::resolve_session(
                Some(&s),
                args.session_dir.as_deref(),
            )? {
                pi_session_tools::session::Input::File(p) => Some(p),
                _ => {
                    return Err(Error::usage(
                        "SESSION must be a file or a session-id prefix",
                    ))
                }
            },
            None => None,
        };
        let roots = if let Some(d) = &args.session_dir {
            match &args.cwd {
                Some(c) => vec![d.join(pi_session_tools::locate::encode_cwd(
                    &pi_session_tools::locate::resolve_path(c).to_string_lossy(),
                ))],
                None => vec![d.clone()],
            }
        } else {
            match &args.cwd {
                Some(c) => vec![pi_session_tools::locate::project_session_dir(
                    &pi_session_tools::locate::resolve_path(c),
                    None,
                )],
                None => match std::env::var_os("PI_CODING_AGENT_SESSION_DIR") {
                    Some(d) if !d.is_empty() => {
                        vec![pi_session_tools::locate::expand_tilde(&d.to_string_lossy())]
                    }
                    _ => vec![pi_session_tools::locate::sessions_root()],
                },
            }
        };
        let tty = std::io::stdout().is_terminal();
        let req = Request {
            report,
            by: args.by,
            since: args.since,
            until: args.until,
            timezone: args.timezone,
            output: if args.json {
                Output::Json
            } else if args.csv {
                Output::Csv
            } else {
                Output::Table
            },
            breakdown: args.breakdown,
            roots,
            file,
            quiet: args.quiet,
            color: pi_session_tools::cli::use_color(args.color),
            width: match args.width {
                Some(w) => Some(w),
                None if tty => terminal_size::terminal_size().map(|(w, _)| w.0 as usize),
                None => None,
            },
        };
        let mut out = cli::stdout();
        usage::run(&req, &mut out)
    })
}
