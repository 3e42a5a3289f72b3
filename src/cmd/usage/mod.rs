//! pi-usage: what the sessions cost, summed by day, week, month, session,
//! project, model, provider or branch.
//!
//! Counted: every assistant message with a `usage` object (on every branch),
//! every `usage` entry, and the `usage` of `compaction` and `branch_summary`
//! entries. Each entry counts once per (source session, entry id): a forked
//! file (header `parentSession`) repeats its source's entries, with their
//! ids. The source session of a file is found by following `parentSession`
//! from header to header up to a file that has none; its header id names
//! the source. When a parent file is missing or unreadable, its path (as
//! written in `parentSession`) names the source instead. Of the copies of an
//! entry, the one in the file nearest the source (fewest forks away; then
//! the older header, then the path) is the one counted.
//!
//! Tokens are summed as recorded and cost is pi's recorded `cost.total`;
//! tokens add exactly, costs as the decimals recorded (`crate::decimal`),
//! whatever their order (`sum`), so records fold into their rows as files
//! are read; numbers are printed as `JSON.stringify` prints them.
//!
//! Here the command and its request; the work in `scan` (reading the
//! `usage` objects of the files), `cache` (the files read through the
//! cache of what each gave, a file at a time), `dedupe` (each counted once across
//! forks), `report` (grouping into rows, days in a time zone) and `print`
//! (JSON, CSV, the table).

mod branch;
mod cache;
mod dedupe;
mod print;
mod record;
mod report;
mod scan;
mod sum;

pub(crate) use dedupe::dedupe;
pub(crate) use report::{parse_date_bound, time_zone};
pub(crate) use scan::scan_file;

use crate::cli::{ColorArgs, Ctx, Exit, Log, StoreArgs};
use crate::error::{escape_name, Error, ErrorKind, Result};
use crate::store::{self, DirWalk, Source};
use clap::Parser;
use record::FileUsage;
use std::fs::Metadata;
use std::io::Write;
use std::path::{Path, PathBuf};

const EXAMPLES: &str = concat!(
    "\
Examples:
  pi-usage                          daily table for every project
  pi-usage monthly --since 2026-01  a row per month from January 2026 on
  pi-usage session --cwd . --json | jq '.sessions[] | select(.totalCost > 5)'
                                    the sessions of this project that cost more than $5
  pi-usage monthly --json | jq .totals.totalCost
                                    what every session cost, in all
  pi-usage daily --by model         a row per day and model
  pi-usage project                  a row per project directory
  pi-usage daily --timezone Europe/Berlin --csv > usage.csv
  pi-usage s.jsonl --by branch      one session: what each branch cost
  pi-usage s.jsonl --leaf @plan-a   what the branch at entry @plan-a cost
  pi-usage session 019a5c 01a1      the sessions named (files, directories, id prefixes)
  pi-usage weekly --breakdown       cost split into input, output, cache read, cache write

Counted: every assistant message with usage (on every branch: abandoned
branches were paid for too), every `usage` entry (titles, cache warming, ...),
and the usage of compaction and branch_summary entries. A fork repeats its
source's entries: each is counted once per (source session, entry id), where
the source session is found by following the headers' parentSession to a file
without one (its header id; the parentSession path when that file is gone).
Cost is pi's recorded cost.total, never re-priced; costs add as the decimals
recorded (3.33 + 5.55 + 1.11 is 9.99, ten times 0.1 is 1), exactly and in any
order, and print in their shortest form, to at most 15 significant digits
(ccusage adds binary floats in order, so its last digits may differ); tokens
add exactly. Days are local days in --timezone (default:
the system's zone). A record is dated by its entry's timestamp, as ccusage
dates it; where that gives no time (missing, not a date, null, 0, true,
false), by an assistant message's own timestamp, then by the session
header's, each said as a FILE:LINE warning (with none, the \"unknown\" row).
Far dates count on their day, written as JavaScript writes them
(+020000-06-15, -000500-06-15). A sum past the largest number is a warning,
and shows as 1.7976931348623157e+308 (of its sign) in JSON and CSV and as
>$1.8e308 in the table; costs from $10^15 on show as $1.0e15 in the table.
--json: the document `ccusage pi --json` prints, {\"daily\": [rows], \"totals\":
{...}} (weekly, monthly, sessions; here also projects and branches), with
ccusage's field names (inputTokens, outputTokens, cacheCreationTokens,
cacheReadTokens, totalTokens, totalCost, modelsUsed, modelBreakdowns of
modelName ... cost, most costly first; date, week, month, sessionId,
projectPath, firstActivity, lastActivity) plus cost, costBreakdown and source
(how many records of each kind).

--by branch: a row per leaf (pi's leaves: every entry no other entry names
as parent), named (Branch) by the label nearest the leaf on its path
(followed by the last user message when it names other rows too), else by
the text of the last user message on it, on one line and cut to 40
characters (a leaf that is a label or other bookkeeping entry is named by the
conversation above it); its costs are those of every entry on the path from
the root (what the compacted entries cost too, not only what is in the
context); Own Cost, what no row above it counted: the Own Costs add up to the
total. --leaf REF: the one row of the path from the root to REF. JSON and CSV
rows add leaf and branch (the name as the table shows it); JSON rows also
label and lastUser, whole.

SESSIONs (files, directories, session-id prefixes) count those sessions
only; a directory counts its files and those of the directories directly under
it. --since and --until bound days in --timezone: a TIME counts its day, and
they also read YYYYMMDD and YYYY-MM (the month's first day, for --until its
last). By default every project's sessions are read (--all is the default;
--cwd DIR, one project's).

The cache: what each session file gave is kept for the next run, and a file
whose device, inode, size, modification and change times are unchanged is not
read again (pi only appends to its files); its warnings are said again as
they were. One file per sessions root (or --cwd project) in
$PI_SESSION_TOOLS_CACHE_DIR, else $XDG_CACHE_HOME/pi-session-tools, else
~/.cache/pi-session-tools; --no-cache or PI_SESSION_TOOLS_CACHE=off reads
every file and neither reads nor writes it.

",
    crate::cli::help::help_ref_leaf!(),
    "\n\n",
    crate::cli::help::help_time!(),
    "\n",
    crate::cli::help::help_exit!(),
    crate::cli::help::exact_to_pi!()
);

/// What the sessions cost, by day, week, month, session, project, model,
/// provider or branch.
///
/// Reads every session of every project (or of one project with --cwd, or
/// the SESSIONs given), counts every recorded usage once, and prints a table, JSON
/// or CSV.
#[derive(Parser, Debug)]
#[command(name = "pi-usage", version, after_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    pub color: ColorArgs,

    /// The report (daily, weekly, monthly, session, project; default daily),
    /// then optionally SESSIONs (files, directories, session-id prefixes):
    /// only those sessions are counted.
    #[arg(value_name = "REPORT|SESSION", value_parser = crate::cli::name_arg())]
    pub words: Vec<String>,

    /// A second grouping: a row per model or provider within each row;
    /// `branch` (with one SESSION): a row per leaf, with what its path cost.
    #[arg(long, value_enum)]
    pub by: Option<By>,

    /// With one SESSION: the one row of the branch from the root to REF
    /// (see below), with what its path cost.
    #[arg(long, value_name = "REF")]
    pub leaf: Option<String>,

    /// IANA time zone the days are counted in (default: the system's).
    #[arg(long, value_name = "ZONE")]
    pub timezone: Option<String>,

    /// One JSON document, as ccusage's: {"daily": [rows], "totals": {...}}.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,

    /// CSV with a header line.
    #[arg(long)]
    pub csv: bool,

    /// Show the cost's parts: input, output, cache read, cache write.
    #[arg(long)]
    pub breakdown: bool,

    /// Count sessions pi-import brought from Claude Code or Codex too
    /// (their headers say `importedFrom`; left out by default, so usage
    /// another tool reports is not counted twice).
    #[arg(long)]
    pub include_imported: bool,

    /// Only the sessions of the project in DIR (pi's session directory for it).
    #[arg(long, value_name = "DIR", conflicts_with = "all")]
    pub cwd: Option<PathBuf>,

    #[command(flatten)]
    pub store: StoreArgs,

    /// Table width (default: the terminal's; unlimited when not a terminal).
    #[arg(long, value_name = "N")]
    pub width: Option<usize>,

    /// Read every file, and neither read nor write the cache of what each
    /// file gave when last counted (also PI_SESSION_TOOLS_CACHE=off).
    #[arg(long)]
    pub no_cache: bool,
}

crate::cli::impl_tool! { Args, "pi-usage", quiet = store.quiet }

/// `pi-usage`: add up the usage of the sessions asked for and print the report.
pub(crate) fn run(args: &Args, ctx: &mut Ctx) -> Result<Exit> {
    let (report, sessions) = words(&args.words)?;
    if args.store.all && !sessions.is_empty() {
        return Err(Error::usage(
            "--all counts every project: give it no SESSION",
        ));
    }
    let by = match (&args.leaf, args.by) {
        (None, by) => by,
        (Some(_), None | Some(By::Branch)) => Some(By::Branch),
        (Some(_), Some(_)) => {
            return Err(Error::usage(
                "--leaf gives one branch: use it without --by model|provider",
            ))
        }
    };
    let (file, files, root) = select(args, &sessions, ctx.log)?;
    let req = Request {
        report,
        by,
        leaf: args.leaf.clone(),
        since: args.store.since.clone(),
        until: args.store.until.clone(),
        timezone: args.timezone.clone(),
        output: if args.json {
            Output::Json
        } else if args.csv {
            Output::Csv
        } else {
            Output::Table
        },
        breakdown: args.breakdown,
        include_imported: args.include_imported,
        files,
        root,
        file,
        cache: !args.no_cache,
        log: ctx.log,
        color: args.color.on(),
        width: args.width.or_else(|| ctx.terminal_width()),
    };
    report_usage(&req, ctx.out())?;
    Ok(Exit::Ok)
}

/// The report word (when the first word is one) and the SESSIONs.
fn words(words: &[String]) -> Result<(Report, Vec<String>)> {
    let mut report = Report::Daily;
    let mut sessions = Vec::new();
    for (i, w) in words.iter().enumerate() {
        match Report::parse(w) {
            Some(r) if i == 0 => report = r,
            Some(_) => return Err(Error::usage(format!("unexpected argument '{w}'"))),
            None => sessions.push(w.clone()),
        }
    }
    Ok((report, sessions))
}

/// The files to count, from the store's selection: one SESSION that names
/// a file is that session alone (its own errors are the tool's); else
/// every file with its metadata, in path order, and the directory read
/// for want of SESSIONs (the cache's).
type Selected = (Option<PathBuf>, Vec<(PathBuf, Metadata)>, Option<PathBuf>);

fn select(args: &Args, sessions: &[String], log: Log) -> Result<Selected> {
    let req = store::Request {
        all: sessions.is_empty() && args.cwd.is_none(),
        project: args.cwd.as_deref(),
        ..args.store.request(sessions, DirWalk::Stat)
    };
    let sel = store::select(&req, &mut |d| log.warn(&d))?;
    let mut files = Vec::with_capacity(sel.sources.len());
    for (s, m) in sel.sources.into_iter().zip(sel.meta) {
        let p = match s {
            Source::File(p) => p,
            Source::Stdin => {
                return Err(Error::usage(
                    "SESSION must be a file or a session-id prefix",
                ))
            }
            Source::Unresolved(diag) => {
                return Err(Error {
                    kind: ErrorKind::Data,
                    diag,
                    io: None,
                })
            }
        };
        if let [one] = sessions {
            if !Path::is_dir(&crate::name::path_of_kept(one)) {
                return Ok((Some(p), Vec::new(), None));
            }
        }
        let m = match m {
            Some(m) => m,
            None => {
                std::fs::metadata(&p).map_err(|e| Error::io(&crate::name::kept_path(&p), &e))?
            }
        };
        files.push((p, m));
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files.dedup_by(|a, b| a.0 == b.0);
    Ok((None, files, sel.root))
}

/// Which report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Report {
    Daily,
    Weekly,
    Monthly,
    Session,
    Project,
}

impl Report {
    pub(crate) fn parse(s: &str) -> Option<Report> {
        Some(match s {
            "daily" => Report::Daily,
            "weekly" => Report::Weekly,
            "monthly" => Report::Monthly,
            "session" => Report::Session,
            "project" => Report::Project,
            _ => return None,
        })
    }
}

/// A second level of grouping.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum By {
    Model,
    Provider,
    /// One row per leaf of a single session (needs SESSION).
    Branch,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Output {
    Table,
    Json,
    Csv,
}

/// Everything the binary asks for.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub report: Report,
    pub by: Option<By>,
    /// --leaf: the REF of the one branch to count.
    pub leaf: Option<String>,
    pub since: Option<String>,
    pub until: Option<String>,
    pub timezone: Option<String>,
    pub output: Output,
    pub breakdown: bool,
    /// Count imported sessions (pi-import's) too.
    pub include_imported: bool,
    /// The files to count, with their metadata, in path order.
    pub files: Vec<(PathBuf, Metadata)>,
    /// The directory they were found in for want of SESSIONs (the cache's).
    pub root: Option<PathBuf>,
    /// Or count just this file.
    pub file: Option<PathBuf>,
    /// Take unchanged files from the cache, and keep this run's.
    pub cache: bool,
    /// Where warnings go.
    pub log: Log,
    pub color: bool,
    pub width: Option<usize>,
}

/// Run the request; returns nothing, writes to `out`.
pub(crate) fn report_usage(req: &Request, out: &mut impl Write) -> Result<()> {
    let tz = time_zone(req.timezone.as_deref())?;
    let now = crate::time::now_ms();
    let bound = |flag: &str, value: &Option<String>| {
        value
            .as_deref()
            .map(|s| {
                parse_date_bound(s)
                    .or_else(|| day_bound(s, now, &tz))
                    .ok_or_else(|| {
                        Error::usage(format!(
                            "{flag} {s}: not a date (YYYY-MM-DD, YYYYMMDD or YYYY-MM) \
                             or a duration (7d, 12h)"
                        ))
                    })
            })
            .transpose()
    };
    let since = bound("--since", &req.since)?.map(|(first, _)| first);
    let until = bound("--until", &req.until)?.map(|(_, last)| last);
    let branch = req.by == Some(By::Branch);
    if branch && req.file.is_none() {
        return Err(Error::usage(if req.leaf.is_some() {
            "--leaf needs one SESSION"
        } else {
            "--by branch needs one SESSION"
        }));
    }
    let mut rows = report::Rows::new(req, tz, since, until);
    let (rows, total) = match &req.file {
        Some(f) => {
            let fu = match scan_file(f, branch) {
                Ok(fu) => fu,
                Err(no) => {
                    let name = crate::name::kept_path(f);
                    return Err(Error::data(&escape_name(&name), no.line, no.why));
                }
            };
            fu.say_warnings(req.log);
            if branch {
                let recs: Vec<&record::Record> = fu
                    .records
                    .iter()
                    .filter(|r| rows.day(r).is_some())
                    .collect();
                let only = match &req.leaf {
                    Some(text) => Some(leaf_entry(f, &fu, text)?),
                    None => None,
                };
                report::branch_rows(&fu, &recs, only, req.output == Output::Json)
            } else {
                rows.add_file(0, &fu);
                rows.finish()
            }
        }
        None => {
            // a fork family's files are held until all are read, then
            // counted once; every other file is folded in as it comes
            let mut held: Vec<(usize, FileUsage)> = Vec::new();
            cache::each_file(
                req.root.as_deref(),
                &req.files,
                req.cache,
                req.log,
                |i, mut fu, family| {
                    if fu.imported && !req.include_imported {
                        return;
                    }
                    if family {
                        held.push((i, fu));
                    } else {
                        dedupe(std::slice::from_mut(&mut fu));
                        rows.add_file(u32::try_from(i).unwrap_or(u32::MAX), &fu);
                    }
                },
            );
            let (at, mut files): (Vec<usize>, Vec<FileUsage>) = held.into_iter().unzip();
            dedupe(&mut files);
            for (i, f) in at.into_iter().zip(&files) {
                rows.add_file(u32::try_from(i).unwrap_or(u32::MAX), f);
            }
            rows.finish()
        }
    };
    for what in print::overflows(&rows, &total) {
        req.log.warn(&crate::error::Diagnostic {
            at: None,
            message: what,
        });
    }
    match req.output {
        Output::Json => print::write_json(req, &rows, &total, out),
        Output::Csv => print::write_csv(req, &rows, out),
        Output::Table => print::write_table(req, &rows, &total, out),
    }
}

/// The entry of `fu`'s tree that REF `text` names in the session file
/// `f` (resolved as every tool resolves a REF).
fn leaf_entry(f: &Path, fu: &FileUsage, text: &str) -> Result<usize> {
    let s = crate::session::Session::open(
        crate::session::Input::File(f.to_path_buf()),
        Default::default(),
    )?;
    let i = crate::refs::resolve(&s, text)?;
    let line = s.entries[i].line();
    fu.tree_text.at_line(line).ok_or_else(|| {
        Error::data(
            &escape_name(&crate::name::kept_path(f)),
            Some(line),
            format!("{text}: this entry is not one pi-usage reads"),
        )
    })
}

/// A TIME as `time::parse_when` reads it (a duration before `now`, or
/// an ISO time) as its day in `tz`: (day, day).
fn day_bound(s: &str, now: f64, tz: &jiff::tz::TimeZone) -> Option<(String, String)> {
    let ms = crate::time::parse_when(s, now).ok()?;
    let t = jiff::Timestamp::from_millisecond(ms as i64).ok()?;
    let d = t
        .to_zoned(tz.clone())
        .date()
        .strftime("%Y-%m-%d")
        .to_string();
    Some((d.clone(), d))
}
