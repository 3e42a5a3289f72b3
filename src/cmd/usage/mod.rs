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
//! Tokens are summed as recorded and cost is pi's recorded `cost.total`,
//! summed as JavaScript would (f64 addition, in time order, then file and
//! line order); numbers are printed as `JSON.stringify` prints them.

use crate::cli::{Ctx, Exit, Tool};
use crate::error::{escape_name, Error, Result};
use crate::json::{js, Object};
use clap::Parser;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

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

",
    crate::help_exit!(),
    crate::exact_to_pi!()
);

/// What the sessions cost, by day, week, month, session, project, model,
/// provider or branch.
///
/// Reads every session of every project (or of one project with --cwd, or
/// one SESSION), counts every recorded usage once, and prints a table, JSON
/// or CSV.
#[derive(Parser, Debug)]
#[command(name = "pi-usage", version, after_help = EXAMPLES)]
pub struct Args {
    /// When to colour: auto (on a terminal, unless NO_COLOR is set;
    /// CLICOLOR_FORCE or FORCE_COLOR force it), always (e.g. for `less -R`), never.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "auto")]
    pub color: crate::cli::ColorWhen,

    /// The report (daily, weekly, monthly, session, project; default daily),
    /// then optionally one SESSION (a file or a session-id prefix): only that
    /// session is counted.
    #[arg(value_name = "REPORT|SESSION", num_args = 0..=2)]
    pub words: Vec<String>,

    /// A second grouping: a row per model or provider within each row;
    /// `branch` (with one SESSION): a row per leaf, with what its path cost.
    #[arg(long, value_enum)]
    pub by: Option<By>,

    /// First day counted (YYYY-MM-DD, YYYYMMDD, or YYYY-MM for the month's first day).
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,

    /// Last day counted (YYYY-MM-DD, YYYYMMDD, or YYYY-MM for the month's last day).
    #[arg(long, value_name = "DATE")]
    pub until: Option<String>,

    /// IANA time zone the days are counted in (default: the system's).
    #[arg(long, short = 'z', value_name = "ZONE")]
    pub timezone: Option<String>,

    /// One JSON array of rows.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,

    /// CSV with a header line.
    #[arg(long)]
    pub csv: bool,

    /// Show the cost's parts: input, output, cache read, cache write.
    #[arg(long)]
    pub breakdown: bool,

    /// Only the sessions of the project in DIR (pi's session directory for it).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// The sessions root to read instead of $PI_CODING_AGENT_SESSION_DIR or
    /// <agentDir>/sessions (also where SESSION prefixes are looked up).
    #[arg(long, value_name = "DIR")]
    pub session_dir: Option<PathBuf>,

    /// Table width (default: the terminal's; unlimited when not a terminal).
    #[arg(long, value_name = "N")]
    pub width: Option<usize>,

    /// Do not print warnings.
    #[arg(short, long)]
    pub quiet: bool,
}

impl Tool for Args {
    const NAME: &'static str = "pi-usage";
    fn quiet(&self) -> bool {
        self.quiet
    }
    fn run(&self, ctx: &mut Ctx) -> Result<Exit> {
        run(self, ctx)
    }
}

/// `pi-usage`: add up the usage of the sessions asked for and print the report.
pub fn run(args: &Args, ctx: &mut Ctx) -> Result<Exit> {
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
        Some(s) => match crate::locate::resolve_session(Some(&s), args.session_dir.as_deref())? {
            crate::session::Input::File(p) => Some(p),
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
            Some(c) => vec![d.join(crate::locate::encode_cwd(
                &crate::locate::resolve_path(c).to_string_lossy(),
            ))],
            None => vec![d.clone()],
        }
    } else {
        match &args.cwd {
            Some(c) => vec![crate::locate::project_session_dir(
                &crate::locate::resolve_path(c),
                None,
            )],
            None => match std::env::var_os("PI_CODING_AGENT_SESSION_DIR") {
                Some(d) if !d.is_empty() => {
                    vec![crate::locate::expand_tilde(&d.to_string_lossy())]
                }
                _ => vec![crate::locate::sessions_root()],
            },
        }
    };
    let req = Request {
        report,
        by: args.by,
        since: args.since.clone(),
        until: args.until.clone(),
        timezone: args.timezone.clone(),
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
        color: crate::cli::use_color(args.color),
        width: args.width.or_else(|| ctx.terminal_width()),
    };
    report_usage(&req, ctx.out())?;
    Ok(Exit::Ok)
}

const TOOL: &str = "pi-usage";

/// Which report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Report {
    Daily,
    Weekly,
    Monthly,
    Session,
    Project,
}

impl Report {
    pub fn parse(s: &str) -> Option<Report> {
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
pub enum Output {
    Table,
    Json,
    Csv,
}

/// Where a record came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Source {
    Assistant,
    Usage,
    Compaction,
    BranchSummary,
}

/// The numbers of one usage object.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Amounts {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub total_tokens: f64,
    pub cost_input: f64,
    pub cost_output: f64,
    pub cost_cache_read: f64,
    pub cost_cache_write: f64,
    pub cost: f64,
}

impl Amounts {
    fn add(&mut self, o: &Amounts) {
        self.input += o.input;
        self.output += o.output;
        self.cache_read += o.cache_read;
        self.cache_write += o.cache_write;
        self.total_tokens += o.total_tokens;
        self.cost_input += o.cost_input;
        self.cost_output += o.cost_output;
        self.cost_cache_read += o.cost_cache_read;
        self.cost_cache_write += o.cost_cache_write;
        self.cost += o.cost;
    }
}

/// One counted usage object.
#[derive(Clone, Debug)]
pub struct Record {
    pub time_ms: f64,
    pub line: u64,
    pub source: Source,
    pub provider: String,
    pub model: String,
    pub id: String,
    pub amounts: Amounts,
}

/// What one file gave.
#[derive(Debug, Default)]
pub struct FileUsage {
    pub path: PathBuf,
    pub session_id: String,
    pub cwd: String,
    pub header_time: String,
    pub parent_session: Option<String>,
    pub records: Vec<Record>,
    /// (id, parentId) of every entry, in file order (only for --by branch).
    pub tree: Vec<(String, Option<String>)>,
}

/// Everything the binary asks for.
#[derive(Debug, Clone)]
pub struct Request {
    pub report: Report,
    pub by: Option<By>,
    pub since: Option<String>,
    pub until: Option<String>,
    pub timezone: Option<String>,
    pub output: Output,
    pub breakdown: bool,
    /// Walk these roots (every `*.jsonl` one or two levels down).
    pub roots: Vec<PathBuf>,
    /// Or count just this file.
    pub file: Option<PathBuf>,
    pub quiet: bool,
    pub color: bool,
    pub width: Option<usize>,
}

fn warn(quiet: bool, msg: &str) {
    if !quiet {
        eprintln!("{TOOL}: warning: {msg}");
    }
}

fn name_of(p: &Path) -> String {
    escape_name(&p.to_string_lossy()).into_owned()
}

// ---------------------------------------------------------------- reading

fn number_field(
    obj: &Object<'_>,
    key: &str,
    path: &str,
    problems: &mut Vec<String>,
    required: bool,
) -> f64 {
    match obj.raw(key) {
        None => {
            if required {
                problems.push(format!("{path}{key} is missing"));
            }
            0.0
        }
        Some(raw) => match raw.first() {
            Some(b'-' | b'0'..=b'9') => {
                let n: f64 = std::str::from_utf8(raw)
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(f64::NAN);
                if !n.is_finite() {
                    problems.push(format!(
                        "{path}{key} is {} (too large for a number); counted as 0",
                        String::from_utf8_lossy(raw)
                    ));
                    0.0
                } else {
                    if n < 0.0 {
                        problems.push(format!(
                            "{path}{key} is negative ({}); counted as recorded",
                            js::number_to_js(n)
                        ));
                    } else if n > 1e15 {
                        problems.push(format!(
                            "{path}{key} is huge ({}); counted as recorded",
                            js::number_to_js(n)
                        ));
                    }
                    n
                }
            }
            _ => {
                let shown = String::from_utf8_lossy(&raw[..raw.len().min(40)]).into_owned();
                problems.push(format!(
                    "{path}{key} is {shown}, not a number; counted as 0"
                ));
                0.0
            }
        },
    }
}

fn amounts_of(usage: &Object<'_>, problems: &mut Vec<String>) -> Amounts {
    let mut a = Amounts {
        input: number_field(usage, "input", "usage.", problems, true),
        output: number_field(usage, "output", "usage.", problems, true),
        cache_read: number_field(usage, "cacheRead", "usage.", problems, false),
        cache_write: number_field(usage, "cacheWrite", "usage.", problems, false),
        total_tokens: 0.0,
        ..Default::default()
    };
    a.total_tokens = match usage.raw("totalTokens") {
        Some(_) => number_field(usage, "totalTokens", "usage.", problems, false),
        None => a.input + a.output + a.cache_read + a.cache_write,
    };
    match usage.object("cost") {
        Some(c) => {
            a.cost_input = number_field(&c, "input", "usage.cost.", problems, false);
            a.cost_output = number_field(&c, "output", "usage.cost.", problems, false);
            a.cost_cache_read = number_field(&c, "cacheRead", "usage.cost.", problems, false);
            a.cost_cache_write = number_field(&c, "cacheWrite", "usage.cost.", problems, false);
            a.cost = number_field(&c, "total", "usage.cost.", problems, true);
        }
        None => problems.push("usage.cost is missing or not an object; cost counted as 0".into()),
    }
    a
}

/// The header of a file: (id, cwd, timestamp, parentSession); None when
/// the first line is not a session header.
fn read_header_line(path: &Path) -> Option<(String, String, String, Option<String>)> {
    let f = std::fs::File::open(path).ok()?;
    let mut line = Vec::new();
    BufReader::new(f)
        .take(1 << 20)
        .read_until(b'\n', &mut line)
        .ok()?;
    header_of(&line)
}

fn header_of(line: &[u8]) -> Option<(String, String, String, Option<String>)> {
    let obj = Object::parse_line(line).ok()??;
    if obj.str("type").as_deref() != Some("session") {
        return None;
    }
    let id = obj.str("id")?.into_owned();
    Some((
        id,
        obj.str("cwd").map(|s| s.into_owned()).unwrap_or_default(),
        obj.str("timestamp")
            .map(|s| s.into_owned())
            .unwrap_or_default(),
        obj.str("parentSession").map(|s| s.into_owned()),
    ))
}

/// Read one session file; Err(message) when it is not a session file.
pub fn scan_file(
    path: &Path,
    with_tree: bool,
    quiet: bool,
) -> std::result::Result<FileUsage, String> {
    thread_local! {
        static BUF: std::cell::RefCell<(Vec<u8>, js::Checker)> =
            std::cell::RefCell::new((Vec::new(), js::Checker::new()));
    }
    BUF.with(|b| {
        let (buf, checker) = &mut *b.borrow_mut();
        buf.clear();
        std::fs::File::open(path)
            .and_then(|mut f| f.read_to_end(buf))
            .map_err(|e| crate::error::io_message(&e))?;
        let r = scan_bytes_with(path, buf, with_tree, quiet, checker);
        if buf.capacity() > 64 << 20 {
            // keep no more than a usual file's worth between files
            *buf = Vec::new();
        }
        r
    })
}

/// [`scan_file`] on bytes already read.
pub fn scan_bytes(
    path: &Path,
    bytes: &[u8],
    with_tree: bool,
    quiet: bool,
) -> std::result::Result<FileUsage, String> {
    scan_bytes_with(path, bytes, with_tree, quiet, &mut js::Checker::new())
}

/// The lines that hold `"usage"` (every line with `with_tree`), with their
/// numbers: one `memmem` search over the file, the line around each hit,
/// and the line ends counted between hits.
fn usage_lines<'b>(bytes: &'b [u8], with_tree: bool, mut f: impl FnMut(u64, &'b [u8], bool)) {
    let first_end = memchr::memchr(b'\n', bytes).map_or(bytes.len(), |i| i + 1);
    if with_tree {
        let finder = memchr::memmem::Finder::new(b"\"usage\"");
        for (i, line) in bytes[first_end..].split(|&b| b == b'\n').enumerate() {
            f(i as u64 + 2, line, finder.find(line).is_some());
        }
        return;
    }
    let mut line_no = 1u64;
    let mut counted = first_end.min(bytes.len());
    let mut pos = counted;
    let finder = memchr::memmem::Finder::new(b"\"usage\"");
    while let Some(h) = finder.find(&bytes[pos..]) {
        let h = pos + h;
        let start = memchr::memrchr(b'\n', &bytes[pos..h]).map_or(pos, |i| pos + i + 1);
        let end = memchr::memchr(b'\n', &bytes[h..]).map_or(bytes.len(), |i| h + i);
        line_no += 1 + memchr::memchr_iter(b'\n', &bytes[counted..start]).count() as u64;
        counted = (end + 1).min(bytes.len());
        f(line_no, &bytes[start..end], true);
        if end >= bytes.len() {
            break;
        }
        pos = end + 1;
    }
}

/// A line `{...,"message":{...}}` (the message last, as pi writes it) in
/// two quick checks: the entry with `0` in place of the message (which
/// must be the value of the entry's last `message` member), then the
/// message. When both are valid the line is (a value put in place of a
/// value), and the members of both are known without a walk. Returns the
/// entry's members (in `skel`, the entry so written), the message's span
/// in `line` and its members (relative to the span).
fn split_message(
    line: &[u8],
    checker: &mut js::Checker,
    skel: &mut Vec<u8>,
) -> Option<(
    Vec<crate::json::scan::Member>,
    Range<usize>,
    Vec<crate::json::scan::Member>,
)> {
    use std::sync::OnceLock;
    static MESSAGE: OnceLock<memchr::memmem::Finder<'static>> = OnceLock::new();
    if !line.ends_with(b"}}") {
        return None;
    }
    let s = MESSAGE
        .get_or_init(|| memchr::memmem::Finder::new(b"\"message\":{"))
        .find(line)?
        + 10;
    let e = line.len() - 1;
    if s >= e {
        return None;
    }
    skel.clear();
    skel.extend_from_slice(&line[..s]);
    skel.push(b'0');
    skel.extend_from_slice(&line[e..]);
    let em = checker.valid_object(skel)?.to_vec();
    let last = em
        .iter()
        .rev()
        .find(|m| crate::json::key_is(skel, &m.key, "message"))?;
    if last.value != (s..s + 1) {
        return None;
    }
    let mm = checker.valid_object(&line[s..e])?.to_vec();
    Some((em, s..e, mm))
}

/// `o[key]` when it is an object; `fast`: `o`'s text is known to be valid
/// (see [`crate::store::raw`]).
fn sub_object<'a>(o: &Object<'a>, key: &str, fast: bool) -> Option<Object<'a>> {
    if !fast {
        return o.object(key);
    }
    let r = o.get(key)?;
    (o.text[r.start] == b'{').then(|| crate::store::raw::object(o.text, r))
}

fn scan_bytes_with(
    path: &Path,
    bytes: &[u8],
    with_tree: bool,
    quiet: bool,
    checker: &mut js::Checker,
) -> std::result::Result<FileUsage, String> {
    let name = name_of(path);
    let first = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    if first.starts_with(b"\xEF\xBB\xBF") {
        return Err("starts with a byte order mark; pi refuses such a file".into());
    }
    let Some((session_id, cwd, header_time, parent_session)) = header_of(first) else {
        return Err("not a session file (the first line is not a session header)".into());
    };
    let version = Object::parse_line(first)
        .ok()
        .flatten()
        .and_then(|o| o.raw("version").map(|v| v.to_vec()));
    let v1 = version.is_none();
    let mut fu = FileUsage {
        path: path.to_path_buf(),
        session_id,
        cwd,
        header_time,
        parent_session,
        ..Default::default()
    };
    let mut prev_id: Option<String> = None;
    let mut skel: Vec<u8> = Vec::new();
    usage_lines(bytes, with_tree, |line_no, line, has_usage| {
        if crate::session::is_blank(line) {
            return;
        }
        // A line pi wrote (compact) is validated in one quick pass: the
        // entry with its message cut out, then the message, which gives its
        // members at once; or the line, whose objects are then found by
        // their quotes and brackets alone. Any other line the long way.
        let mut message: Option<Object<'_>> = None;
        let split = split_message(line, checker, &mut skel);
        let quick = match split {
            Some(_) => None,
            None => checker.valid_object(line).map(<[_]>::to_vec),
        };
        let fast = quick.is_some() || split.is_some();
        let obj = match (split, quick) {
            (Some((em, mr, mm)), _) => {
                message = Some(Object {
                    text: &line[mr.clone()],
                    range: 0..mr.len(),
                    members: mm,
                });
                Object {
                    text: &skel[..],
                    range: 0..skel.len(),
                    members: em,
                }
            }
            (None, Some(members)) => Object {
                text: line,
                range: 0..line.len(),
                members,
            },
            (None, None) => match Object::parse_line(line) {
                Ok(Some(o)) => o,
                Ok(None) | Err(_) => {
                    if has_usage {
                        warn(
                            quiet,
                            &format!("{name}:{line_no}: not a JSON object; skipped, as pi does"),
                        );
                    }
                    return;
                }
            },
        };
        let id = if v1 {
            crate::migrate::v1_id(&fu.session_id, line_no, 0)
        } else {
            obj.str("id").map(|s| s.into_owned()).unwrap_or_default()
        };
        if with_tree {
            let parent = if v1 {
                prev_id.clone()
            } else {
                obj.str("parentId").map(|s| s.into_owned())
            };
            fu.tree.push((id.clone(), parent));
            prev_id = Some(id.clone());
        }
        if !has_usage {
            return;
        }
        let ty = obj.str("type");
        let (source, holder) = match ty.as_deref() {
            Some("message") => match message.or_else(|| sub_object(&obj, "message", fast)) {
                Some(m) if m.str("role").as_deref() == Some("assistant") => (Source::Assistant, m),
                _ => return,
            },
            Some("usage") => (Source::Usage, obj.clone()),
            Some("compaction") => (Source::Compaction, obj.clone()),
            Some("branch_summary") => (Source::BranchSummary, obj.clone()),
            _ => return,
        };
        let Some(usage) = sub_object(&holder, "usage", fast) else {
            if holder.raw("usage").is_some_and(|r| r != b"null") {
                warn(
                    quiet,
                    &format!("{name}:{line_no}: usage is not an object; not counted"),
                );
            }
            return;
        };
        let mut problems = Vec::new();
        let amounts = amounts_of(&usage, &mut problems);
        for p in problems {
            warn(quiet, &format!("{name}:{line_no}: {p}"));
        }
        let time_ms = obj
            .raw("timestamp")
            .map(crate::time::js_date_ms)
            .unwrap_or(f64::NAN);
        let time_ms = if time_ms.is_nan() {
            // an assistant message's own time (ms), else the header's
            let t = holder
                .raw("timestamp")
                .map(crate::time::js_date_ms)
                .unwrap_or(f64::NAN);
            if t.is_nan() {
                warn(
                    quiet,
                    &format!("{name}:{line_no}: no usable timestamp; dated by the session header"),
                );
                crate::time::parse_iso(&fu.header_time)
            } else {
                t
            }
        } else {
            time_ms
        };
        fu.records.push(Record {
            time_ms,
            line: line_no,
            source,
            provider: holder
                .str("provider")
                .map(|s| s.into_owned())
                .unwrap_or_default(),
            model: holder
                .str("model")
                .map(|s| s.into_owned())
                .unwrap_or_default(),
            id,
            amounts,
        });
    });
    Ok(fu)
}

/// Every `*.jsonl` file in `root` and in its subdirectories (one level, as
/// pi lays them out), sorted.
pub fn collect(root: &Path, quiet: bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let rd = match std::fs::read_dir(root) {
        Ok(rd) => rd,
        Err(e) => {
            if e.kind() != std::io::ErrorKind::NotFound {
                warn(
                    quiet,
                    &format!("{}: {}", name_of(root), crate::error::io_message(&e)),
                );
            }
            return out;
        }
    };
    for ent in rd.flatten() {
        let p = ent.path();
        if p.is_dir() {
            if let Ok(sub) = std::fs::read_dir(&p) {
                for e in sub.flatten() {
                    let q = e.path();
                    if q.extension().is_some_and(|x| x == "jsonl") && q.is_file() {
                        out.push(q);
                    }
                }
            }
        } else if p.extension().is_some_and(|x| x == "jsonl") && p.is_file() {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Read files on every core; files that are not sessions are skipped with a
/// warning.
pub fn scan_all(files: &[PathBuf], with_tree: bool, quiet: bool) -> Vec<FileUsage> {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(files.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut slots: Vec<Option<FileUsage>> = Vec::new();
    slots.resize_with(files.len(), || None);
    let results = std::sync::Mutex::new(slots);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(p) = files.get(i) else { break };
                match scan_file(p, with_tree, quiet) {
                    Ok(fu) => {
                        if let Ok(mut r) = results.lock() {
                            r[i] = Some(fu);
                        }
                    }
                    Err(m) => warn(quiet, &format!("{}: {m}; skipped", name_of(p))),
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}

/// The source key and fork depth of every file: follow `parentSession`
/// (within the files read, else by reading the parent's header) to a file
/// without one.
fn sources(files: &[FileUsage]) -> Vec<(String, usize)> {
    let mut by_path: HashMap<String, (String, Option<String>)> = HashMap::new();
    for f in files {
        by_path.insert(
            f.path.to_string_lossy().into_owned(),
            (f.session_id.clone(), f.parent_session.clone()),
        );
        by_path.insert(
            crate::locate::resolve_path(&f.path)
                .to_string_lossy()
                .into_owned(),
            (f.session_id.clone(), f.parent_session.clone()),
        );
    }
    let mut cache: HashMap<String, Option<(String, Option<String>)>> = HashMap::new();
    let mut look = |p: &str| -> Option<(String, Option<String>)> {
        if let Some(v) = by_path.get(p) {
            return Some(v.clone());
        }
        cache
            .entry(p.to_string())
            .or_insert_with(|| read_header_line(Path::new(p)).map(|(id, _, _, ps)| (id, ps)))
            .clone()
    };
    files
        .iter()
        .map(|f| {
            let mut key = format!("id:{}", f.session_id);
            let mut depth = 0;
            let mut parent = f.parent_session.clone();
            let mut seen = HashSet::new();
            while let Some(p) = parent.take() {
                if !seen.insert(p.clone()) || depth > 1000 {
                    break; // a parentSession cycle
                }
                depth += 1;
                match look(&p) {
                    Some((id, ps)) => {
                        key = format!("id:{id}");
                        parent = ps;
                    }
                    None => key = format!("path:{p}"),
                }
            }
            (key, depth)
        })
        .collect()
}

/// Drop the copies a fork made: keep each (source, id) once, in the file
/// nearest the source.
pub fn dedupe(files: &mut [FileUsage]) {
    let src = sources(files);
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by(|&a, &b| {
        (src[a].1, &files[a].header_time, &files[a].path).cmp(&(
            src[b].1,
            &files[b].header_time,
            &files[b].path,
        ))
    });
    // Source keys as numbers, and (source, id) pairs borrowed from the
    // records: no copy of a string per record.
    let mut key_no: HashMap<&str, u32> = HashMap::new();
    for (k, _) in &src {
        let n = key_no.len() as u32;
        key_no.entry(k.as_str()).or_insert(n);
    }
    let total: usize = files.iter().map(|f| f.records.len()).sum();
    let mut keep: Vec<Vec<bool>> = files.iter().map(|f| vec![true; f.records.len()]).collect();
    {
        let mut seen: HashSet<(u32, &str), QuickHash> =
            HashSet::with_capacity_and_hasher(total, QuickHash);
        for &i in &order {
            let key = key_no[src[i].0.as_str()];
            for (k, r) in files[i].records.iter().enumerate() {
                if !r.id.is_empty() && !seen.insert((key, r.id.as_str())) {
                    keep[i][k] = false;
                }
            }
        }
    }
    for (f, keep) in files.iter_mut().zip(keep) {
        if keep.iter().all(|&k| k) {
            continue;
        }
        let mut k = keep.into_iter();
        f.records.retain(|_| k.next().unwrap_or(true));
    }
}

/// A quick hasher for the dedupe set (FNV-1a over 8 bytes a step, then a
/// multiply-xorshift): the keys are entry ids, not chosen by an attacker
/// who could slow a local report down.
#[derive(Clone, Copy, Default)]
struct QuickHash;

impl std::hash::BuildHasher for QuickHash {
    type Hasher = QuickHasher;
    fn build_hasher(&self) -> QuickHasher {
        QuickHasher(0xcbf2_9ce4_8422_2325)
    }
}

struct QuickHasher(u64);

impl std::hash::Hasher for QuickHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
            h = (h ^ w).wrapping_mul(0x0100_0000_01b3_u64.wrapping_mul(0x9E37_79B9));
        }
        for &b in chunks.remainder() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = (self.0 ^ u64::from(n)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn finish(&self) -> u64 {
        let h = self.0;
        (h ^ (h >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9) ^ (h >> 32)
    }
}

// ---------------------------------------------------------------- dates

/// A `--since`/`--until` value as (first day, last day), "YYYY-MM-DD".
pub fn parse_date_bound(s: &str) -> Option<(String, String)> {
    let d: Vec<char> = s.chars().collect();
    let digits = |r: &[char]| r.iter().all(|c| c.is_ascii_digit());
    let (y, m, day) = match d.len() {
        10 if d[4] == '-'
            && d[7] == '-'
            && digits(&d[0..4])
            && digits(&d[5..7])
            && digits(&d[8..10]) =>
        {
            (&s[0..4], &s[5..7], Some(&s[8..10]))
        }
        8 if digits(&d) => (&s[0..4], &s[4..6], Some(&s[6..8])),
        7 if d[4] == '-' && digits(&d[0..4]) && digits(&d[5..7]) => (&s[0..4], &s[5..7], None),
        6 if digits(&d) => (&s[0..4], &s[4..6], None),
        _ => return None,
    };
    let yi: i16 = y.parse().ok()?;
    let mi: i8 = m.parse().ok()?;
    match day {
        Some(dd) => {
            let di: i8 = dd.parse().ok()?;
            let date = jiff::civil::Date::new(yi, mi, di).ok()?;
            let t = date.strftime("%Y-%m-%d").to_string();
            Some((t.clone(), t))
        }
        None => {
            let first = jiff::civil::Date::new(yi, mi, 1).ok()?;
            let last = first.last_of_month();
            Some((
                first.strftime("%Y-%m-%d").to_string(),
                last.strftime("%Y-%m-%d").to_string(),
            ))
        }
    }
}

/// The time zone: an IANA name, or the system's.
pub fn time_zone(name: Option<&str>) -> Result<jiff::tz::TimeZone> {
    match name {
        Some(n) => jiff::tz::TimeZone::get(n).map_err(|e| {
            Error::usage(format!(
                "--timezone {n}: not a time zone in the tz database ({e})"
            ))
        }),
        None => Ok(jiff::tz::TimeZone::try_system().unwrap_or(jiff::tz::TimeZone::UTC)),
    }
}

fn local_date(ms: f64, tz: &jiff::tz::TimeZone) -> Option<jiff::civil::Date> {
    if !ms.is_finite() {
        return None;
    }
    let ts = jiff::Timestamp::from_millisecond(ms as i64).ok()?;
    Some(ts.to_zoned(tz.clone()).date())
}

/// [`local_date`] for times that come day by day: the last day's bounds
/// (milliseconds, from its first instant to the next day's) are kept.
#[derive(Default)]
struct DayCache {
    day: Option<(f64, f64, jiff::civil::Date)>,
}

impl DayCache {
    fn date(&mut self, ms: f64, tz: &jiff::tz::TimeZone) -> Option<jiff::civil::Date> {
        if let Some((lo, hi, d)) = self.day {
            // (at or after 1970 a time's whole milliseconds are its floor)
            if ms >= 0.0 && ms >= lo && ms < hi {
                return Some(d);
            }
        }
        let d = local_date(ms, tz)?;
        let start = |d: jiff::civil::Date| -> Option<f64> {
            let z = d.to_zoned(tz.clone()).ok()?.start_of_day().ok()?;
            Some(z.timestamp().as_millisecond() as f64)
        };
        self.day = match (start(d), d.tomorrow().ok().and_then(start)) {
            (Some(lo), Some(hi)) if ms >= lo && ms < hi => Some((lo, hi, d)),
            _ => None,
        };
        Some(d)
    }
}

// ---------------------------------------------------------------- grouping

#[derive(Debug, Default, Clone)]
struct Group {
    amounts: Amounts,
    models: BTreeSet<String>,
    sources: BTreeMap<Source, u64>,
    first_ms: f64,
    last_ms: f64,
    /// session rows: header fields
    meta: Vec<(&'static str, String)>,
    /// --by branch: the cost of the entries on no earlier leaf's path
    own: Option<Amounts>,
    n: u64,
}

impl Group {
    fn add(&mut self, r: &Record) {
        if self.n == 0 {
            self.first_ms = r.time_ms;
            self.last_ms = r.time_ms;
        }
        self.n += 1;
        self.amounts.add(&r.amounts);
        if !self.models.contains(&r.model) {
            self.models.insert(r.model.clone());
        }
        *self.sources.entry(r.source).or_insert(0) += 1;
        if r.time_ms < self.first_ms {
            self.first_ms = r.time_ms;
        }
        if r.time_ms > self.last_ms {
            self.last_ms = r.time_ms;
        }
    }
}

struct Row {
    key: Vec<(&'static str, String)>,
    group: Group,
}

fn encoded_dir(p: &Path) -> String {
    p.parent()
        .and_then(|d| d.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Run the request; returns nothing, writes to `out`.
pub fn report_usage(req: &Request, out: &mut impl Write) -> Result<()> {
    let tz = time_zone(req.timezone.as_deref())?;
    let since = match &req.since {
        Some(s) => Some(
            parse_date_bound(s)
                .ok_or_else(|| {
                    Error::usage(format!(
                        "--since {s}: not a date (YYYY-MM-DD, YYYYMMDD or YYYY-MM)"
                    ))
                })?
                .0,
        ),
        None => None,
    };
    let until = match &req.until {
        Some(s) => Some(
            parse_date_bound(s)
                .ok_or_else(|| {
                    Error::usage(format!(
                        "--until {s}: not a date (YYYY-MM-DD, YYYYMMDD or YYYY-MM)"
                    ))
                })?
                .1,
        ),
        None => None,
    };
    let branch = req.by == Some(By::Branch);
    if branch && req.file.is_none() {
        return Err(Error::usage("--by branch needs one SESSION"));
    }
    let mut files = match &req.file {
        Some(f) => match scan_file(f, branch, req.quiet) {
            Ok(fu) => vec![fu],
            Err(m) => return Err(Error::data(&name_of(f), None, m)),
        },
        None => {
            let mut paths = Vec::new();
            for r in &req.roots {
                paths.extend(collect(r, req.quiet));
            }
            paths.sort();
            paths.dedup();
            scan_all(&paths, false, req.quiet)
        }
    };
    if req.file.is_none() {
        dedupe(&mut files);
    }
    // Every record with its file, in time order (then file, line order).
    let mut recs: Vec<(usize, &Record, Option<jiff::civil::Date>)> =
        Vec::with_capacity(files.iter().map(|f| f.records.len()).sum());
    let mut days = DayCache::default();
    for (fi, f) in files.iter().enumerate() {
        for r in &f.records {
            let date = days.date(r.time_ms, &tz);
            if let Some(d) = date {
                let ds = d.strftime("%Y-%m-%d").to_string();
                if since.as_ref().is_some_and(|s| &ds < s)
                    || until.as_ref().is_some_and(|u| &ds > u)
                {
                    continue;
                }
            } else if since.is_some() || until.is_some() {
                continue;
            }
            recs.push((fi, r, date));
        }
    }
    recs.sort_by(|a, b| {
        a.1.time_ms
            .partial_cmp(&b.1.time_ms)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.0.cmp(&b.0))
            .then(a.1.line.cmp(&b.1.line))
    });
    let rows = if branch {
        branch_rows(&files[0], &recs)
    } else {
        group_rows(req, &files, &recs)
    };
    let mut total = Group::default();
    for (_, r, _) in &recs {
        total.add(r);
    }
    if branch {
        total.own = Some(total.amounts);
    }
    match req.output {
        Output::Json => write_json(req, &rows, out),
        Output::Csv => write_csv(req, &rows, out),
        Output::Table => write_table(req, &rows, &total, out),
    }
    .map_err(crate::cli::out_err)
}

fn period_key(report: Report, date: Option<jiff::civil::Date>) -> (&'static str, String) {
    let Some(d) = date else {
        return (
            match report {
                Report::Daily => "date",
                Report::Weekly => "week",
                _ => "month",
            },
            "unknown".into(),
        );
    };
    match report {
        Report::Weekly => {
            let back = d.weekday().to_monday_zero_offset() as i64;
            let monday = d.checked_sub(jiff::Span::new().days(back)).unwrap_or(d);
            ("week", monday.strftime("%Y-%m-%d").to_string())
        }
        Report::Monthly => ("month", d.strftime("%Y-%m").to_string()),
        _ => ("date", d.strftime("%Y-%m-%d").to_string()),
    }
}

fn group_rows(
    req: &Request,
    files: &[FileUsage],
    recs: &[(usize, &Record, Option<jiff::civil::Date>)],
) -> Vec<Row> {
    type Key = Vec<(&'static str, String)>;
    // Groups in the order they are first seen (session rows are ordered by
    // first activity, others by key); consecutive records mostly share one.
    let mut groups: Vec<(Key, Group)> = Vec::new();
    let mut index: HashMap<Key, usize> = HashMap::new();
    let mut last: Option<(usize, Option<jiff::civil::Date>, usize)> = None;
    for (fi, r, date) in recs.iter() {
        if let Some((lfi, ldate, gi)) = last {
            let same = match req.report {
                Report::Session | Report::Project => lfi == *fi,
                _ => ldate == *date,
            } && match req.by {
                Some(By::Model) => groups[gi].0.last().is_some_and(|k| k.1 == r.model),
                Some(By::Provider) => groups[gi].0.last().is_some_and(|k| k.1 == r.provider),
                _ => true,
            };
            if same {
                groups[gi].1.add(r);
                continue;
            }
        }
        let f = &files[*fi];
        let mut key = match req.report {
            Report::Session => vec![
                ("sessionId", f.session_id.clone()),
                ("file", f.path.to_string_lossy().into_owned()),
            ],
            Report::Project => vec![(
                "project",
                if f.cwd.is_empty() {
                    encoded_dir(&f.path)
                } else {
                    f.cwd.clone()
                },
            )],
            rep => vec![period_key(rep, *date)],
        };
        match req.by {
            Some(By::Model) => key.push(("model", r.model.clone())),
            Some(By::Provider) => key.push(("provider", r.provider.clone())),
            _ => {}
        }
        let gi = match index.get(&key) {
            Some(&gi) => gi,
            None => {
                index.insert(key.clone(), groups.len());
                groups.push((key, Group::default()));
                groups.len() - 1
            }
        };
        let g = &mut groups[gi].1;
        if g.n == 0 && req.report == Report::Session {
            g.meta = vec![
                ("projectPath", encoded_dir(&f.path)),
                ("cwd", f.cwd.clone()),
            ];
        }
        g.add(r);
        last = Some((*fi, *date, gi));
    }
    drop(index);
    // groups are in the order first seen; the others go by key
    if req.report != Report::Session {
        groups.sort_by(|a, b| a.0.cmp(&b.0));
    }
    let mut rows: Vec<Row> = groups
        .into_iter()
        .map(|(key, group)| Row { key, group })
        .collect();
    if req.report == Report::Session {
        // keep the --by rows of one session together
        let mut order: HashMap<String, usize> = HashMap::new();
        for (i, r) in rows.iter().enumerate() {
            order.entry(r.key[1].1.clone()).or_insert(i);
        }
        rows.sort_by_key(|r| order.get(&r.key[1].1).copied().unwrap_or(0));
    }
    rows
}

fn branch_rows(f: &FileUsage, recs: &[(usize, &Record, Option<jiff::civil::Date>)]) -> Vec<Row> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (i, (id, _)) in f.tree.iter().enumerate() {
        index.insert(id.as_str(), i);
    }
    let mut has_child = vec![false; f.tree.len()];
    for (id, parent) in &f.tree {
        if let Some(p) = parent.as_deref().and_then(|p| index.get(p)) {
            if f.tree[*p].0 != *id {
                has_child[*p] = true;
            }
        }
    }
    let mut by_id: HashMap<&str, Vec<&Record>> = HashMap::new();
    for (_, r, _) in recs {
        by_id.entry(r.id.as_str()).or_default().push(r);
    }
    let mut claimed: HashSet<usize> = HashSet::new();
    let mut rows = Vec::new();
    for (leaf, _) in f.tree.iter().enumerate().filter(|(i, _)| !has_child[*i]) {
        // the path, leaf to root, without looping on a cycle
        let mut path = Vec::new();
        let mut seen = HashSet::new();
        let mut cur = Some(leaf);
        while let Some(i) = cur {
            if !seen.insert(i) {
                break;
            }
            path.push(i);
            cur = f.tree[i].1.as_deref().and_then(|p| index.get(p)).copied();
        }
        path.reverse();
        let mut g = Group::default();
        let mut own = Amounts::default();
        let mut list: Vec<&Record> = Vec::new();
        for &i in &path {
            if let Some(rs) = by_id.get(f.tree[i].0.as_str()) {
                let fresh = claimed.insert(i);
                for r in rs {
                    list.push(r);
                    if fresh {
                        own.add(&r.amounts);
                    }
                }
            }
        }
        for r in list {
            g.add(r);
        }
        g.own = Some(own);
        rows.push(Row {
            key: vec![("leaf", f.tree[leaf].0.clone())],
            group: g,
        });
    }
    rows
}

// ---------------------------------------------------------------- output

fn source_name(s: Source) -> &'static str {
    match s {
        Source::Assistant => "assistant",
        Source::Usage => "usage",
        Source::Compaction => "compaction",
        Source::BranchSummary => "branchSummary",
    }
}

fn iso(ms: f64) -> String {
    if ms.is_finite() {
        crate::time::iso_string(ms as i64)
    } else {
        String::new()
    }
}

fn write_json(req: &Request, rows: &[Row], out: &mut impl Write) -> std::io::Result<()> {
    out.write_all(b"[")?;
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        let g = &row.group;
        let mut w = crate::json::ObjectWriter::new();
        for (k, v) in &row.key {
            w.str(k, v);
        }
        for (k, v) in &g.meta {
            w.str(k, v);
        }
        if req.report == Report::Session || req.by == Some(By::Branch) {
            w.str("firstActivity", &iso(g.first_ms));
            w.str("lastActivity", &iso(g.last_ms));
        }
        let a = &g.amounts;
        w.number("inputTokens", a.input)
            .number("outputTokens", a.output)
            .number("cacheCreationTokens", a.cache_write)
            .number("cacheReadTokens", a.cache_read)
            .number("totalTokens", a.total_tokens)
            .number("totalCost", a.cost)
            .number("cost", a.cost);
        let mut c = crate::json::ObjectWriter::new();
        c.number("input", a.cost_input)
            .number("output", a.cost_output)
            .number("cacheRead", a.cost_cache_read)
            .number("cacheWrite", a.cost_cache_write);
        w.raw("costBreakdown", Some(&c.finish()));
        if let Some(own) = &g.own {
            w.number("ownCost", own.cost)
                .number("ownTotalTokens", own.total_tokens);
        }
        let mut list = b"[".to_vec();
        for (j, m) in g.models.iter().enumerate() {
            if j > 0 {
                list.push(b',');
            }
            js::write_str(&mut list, m);
        }
        list.push(b']');
        w.raw("modelsUsed", Some(&list));
        let mut s = crate::json::ObjectWriter::new();
        for src in [
            Source::Assistant,
            Source::Usage,
            Source::Compaction,
            Source::BranchSummary,
        ] {
            s.number(source_name(src), *g.sources.get(&src).unwrap_or(&0) as f64);
        }
        w.raw("source", Some(&s.finish()));
        out.write_all(&w.finish())?;
    }
    out.write_all(b"]\n")?;
    out.flush()
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn write_csv(req: &Request, rows: &[Row], out: &mut impl Write) -> std::io::Result<()> {
    let mut head: Vec<String> = match rows.first() {
        Some(r) => r.key.iter().map(|(k, _)| k.to_string()).collect(),
        None => vec![key_names(req).join(",")],
    };
    head.extend(
        [
            "inputTokens",
            "outputTokens",
            "cacheCreationTokens",
            "cacheReadTokens",
            "totalTokens",
            "cost",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    if req.breakdown {
        head.extend(
            ["costInput", "costOutput", "costCacheRead", "costCacheWrite"]
                .iter()
                .map(|s| s.to_string()),
        );
    }
    writeln!(out, "{}", head.join(","))?;
    for row in rows {
        let a = &row.group.amounts;
        let mut f: Vec<String> = row.key.iter().map(|(_, v)| csv_field(v)).collect();
        for n in [
            a.input,
            a.output,
            a.cache_write,
            a.cache_read,
            a.total_tokens,
            a.cost,
        ] {
            f.push(js::number_to_js(n));
        }
        if req.breakdown {
            for n in [
                a.cost_input,
                a.cost_output,
                a.cost_cache_read,
                a.cost_cache_write,
            ] {
                f.push(js::number_to_js(n));
            }
        }
        writeln!(out, "{}", f.join(","))?;
    }
    out.flush()
}

fn key_names(req: &Request) -> Vec<&'static str> {
    let mut k = match (req.by, req.report) {
        (Some(By::Branch), _) => vec!["leaf"],
        (_, Report::Daily) => vec!["date"],
        (_, Report::Weekly) => vec!["week"],
        (_, Report::Monthly) => vec!["month"],
        (_, Report::Session) => vec!["sessionId", "file"],
        (_, Report::Project) => vec!["project"],
    };
    match req.by {
        Some(By::Model) => k.push("model"),
        Some(By::Provider) => k.push("provider"),
        _ => {}
    }
    k
}

fn thousands(n: f64) -> String {
    if n.fract() != 0.0 || n.abs() >= 1e21 {
        return js::number_to_js(n);
    }
    let s = js::number_to_js(n.abs());
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0.0 {
        format!("-{out}")
    } else {
        out
    }
}

fn money(n: f64) -> String {
    if n < 0.0 {
        format!("-${:.2}", -n)
    } else {
        format!("${n:.2}")
    }
}

fn write_table(
    req: &Request,
    rows: &[Row],
    total: &Group,
    out: &mut impl Write,
) -> std::io::Result<()> {
    if rows.is_empty() {
        writeln!(out, "No usage found.")?;
        return out.flush();
    }
    let mut heads: Vec<(String, bool, bool)> = Vec::new(); // (title, right-aligned, optional)
    for k in key_names(req) {
        let title = match k {
            "date" => "Date",
            "week" => "Week",
            "month" => "Month",
            "sessionId" => "Session",
            "file" => continue,
            "project" => "Project",
            "model" => "Model",
            "provider" => "Provider",
            "leaf" => "Leaf",
            _ => k,
        };
        heads.push((title.into(), false, false));
    }
    let mut numeric = vec![
        "Input",
        "Output",
        "Cache Write",
        "Cache Read",
        "Total Tokens",
        "Cost",
    ];
    if req.by == Some(By::Branch) {
        numeric.push("Own Cost");
    }
    if req.breakdown {
        numeric.extend(["Cost In", "Cost Out", "Cost CR", "Cost CW"]);
    }
    for n in &numeric {
        let optional = !matches!(*n, "Total Tokens" | "Cost");
        heads.push((n.to_string(), true, optional));
    }
    let numbers = |g: &Group| -> Vec<String> {
        let a = &g.amounts;
        let mut v = vec![
            thousands(a.input),
            thousands(a.output),
            thousands(a.cache_write),
            thousands(a.cache_read),
            thousands(a.total_tokens),
            money(a.cost),
        ];
        if req.by == Some(By::Branch) {
            v.push(money(g.own.map(|o| o.cost).unwrap_or(0.0)));
        }
        if req.breakdown {
            v.extend([
                money(a.cost_input),
                money(a.cost_output),
                money(a.cost_cache_read),
                money(a.cost_cache_write),
            ]);
        }
        v
    };
    let mut cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut c: Vec<String> = r
                .key
                .iter()
                .filter(|(k, _)| *k != "file")
                .map(|(_, v)| v.clone())
                .collect();
            c.extend(numbers(&r.group));
            c
        })
        .collect();
    let nkeys = heads.len() - numeric.len();
    let mut tot: Vec<String> = vec![String::new(); nkeys];
    tot[0] = "Total".into();
    tot.extend(numbers(total));
    cells.push(tot);
    let width = |s: &str| crate::width::width(s);
    let mut keep: Vec<bool> = vec![true; heads.len()];
    let col_w = |i: usize, cells: &[Vec<String>]| -> usize {
        cells
            .iter()
            .map(|r| width(&r[i]))
            .chain([width(&heads[i].0)])
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..heads.len()).map(|i| col_w(i, &cells)).collect();
    let total_w = |keep: &[bool]| -> usize {
        widths
            .iter()
            .zip(keep)
            .filter(|(_, k)| **k)
            .map(|(w, _)| w + 2)
            .sum::<usize>()
    };
    let limit = req.width.unwrap_or(usize::MAX);
    // drop optional columns from the right until it fits
    let mut hidden = 0;
    for i in (0..heads.len()).rev() {
        if total_w(&keep) <= limit {
            break;
        }
        if heads[i].2 {
            keep[i] = false;
            hidden += 1;
        }
    }
    let (bold, reset) = if req.color {
        ("\x1b[1m", "\x1b[0m")
    } else {
        ("", "")
    };
    let line = |cols: &[String], out: &mut dyn Write, style: &str| -> std::io::Result<()> {
        let mut s = String::new();
        let mut first = true;
        for (i, c) in cols.iter().enumerate() {
            if !keep[i] {
                continue;
            }
            if !first {
                s.push_str("  ");
            }
            first = false;
            let pad = widths[i].saturating_sub(width(c));
            if heads[i].1 {
                s.push_str(&" ".repeat(pad));
                s.push_str(c);
            } else {
                s.push_str(c);
                s.push_str(&" ".repeat(pad));
            }
        }
        let s = s.trim_end();
        if style.is_empty() {
            writeln!(out, "{s}")
        } else {
            writeln!(out, "{style}{s}{reset}")
        }
    };
    let titles: Vec<String> = heads.iter().map(|h| h.0.clone()).collect();
    line(&titles, out, bold)?;
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    line(&rule, out, "")?;
    let n = cells.len();
    for (i, c) in cells.iter().enumerate() {
        if i == n - 1 {
            line(&rule, out, "")?;
            line(c, out, bold)?;
        } else {
            line(c, out, "")?;
        }
    }
    if hidden > 0 {
        writeln!(
            out,
            "({hidden} columns left out to fit the terminal; --json or --csv have them all)"
        )?;
    }
    out.flush()
}
