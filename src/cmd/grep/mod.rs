//! `pi-grep`: search the decoded text of many sessions, in parallel, and
//! name the entry each match is in.
//!
//! Each file is read into memory once (so memory is bounded by the largest
//! files being searched at the same time, one per thread, never by the
//! store). A version-3 file is searched without loading it as a session:
//! the prefilter ([`crate::search::Matcher::pre`]) finds the lines whose raw
//! bytes could hold a match, and only those are parsed and decoded. Older
//! files, and `--active`, go through the session loader (for the ids
//! `pi-migrate` will give, and for the path).

use crate::cli::{Ctx, Exit, Tool};
use crate::entry::EntryType;
use crate::error::{escape_name, Error, Result};
use crate::json::{js, Object, ObjectWriter};
use crate::search::{self, Matcher};
use crate::search::{PatternOptions, FIELDS};
use crate::session::{ReadOptions, Session};
use clap::Parser;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

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
    crate::exact_to_pi!()
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
    /// prefixes. With none, this project's sessions (--all: every project's).
    #[arg(value_name = "PATTERN] [SESSION", num_args = 0..)]
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

    /// Patterns are fixed strings, not regular expressions.
    #[arg(short = 'F', long)]
    pub fixed_strings: bool,

    /// Print only the paths of the sessions with a match.
    #[arg(short = 'l', long, conflicts_with_all = ["count", "json", "only_matching"])]
    pub files_with_matches: bool,

    /// Print PATH:COUNT (matching lines) for each session with a match.
    #[arg(short, long, conflicts_with_all = ["json", "only_matching"])]
    pub count: bool,

    /// Print only the matched parts, each on its own line.
    #[arg(short, long, conflicts_with = "json")]
    pub only_matching: bool,

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
    /// output, summary, name, label; comma-separated.
    #[arg(long = "in", value_name = "FIELD,...", value_delimiter = ',')]
    pub fields: Vec<String>,

    /// Only entries on each session's current path (from the last entry to
    /// the root, what pi continues from).
    #[arg(long)]
    pub active: bool,

    /// Only sessions whose last activity (pi's session list: the latest user
    /// or assistant message) is at or after this time (ISO 8601, UTC unless
    /// an offset is given: 2026-11-01, 2026-11-01T09:30Z).
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,

    /// Only sessions whose last activity is before this time.
    #[arg(long, value_name = "TIME")]
    pub until: Option<String>,

    /// Search every project's sessions.
    #[arg(short, long)]
    pub all: bool,

    /// The sessions root (with --all) or this project's session directory
    /// (instead of $PI_CODING_AGENT_SESSION_DIR or ~/.pi/agent/sessions).
    #[arg(long, value_name = "DIR")]
    pub session_dir: Option<PathBuf>,

    /// With -l: end each path with NUL instead of a newline.
    #[arg(short = '0', long)]
    pub null: bool,

    /// When to colour matches: auto (on a terminal, unless NO_COLOR is
    /// set), always, never.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "always", "never"])]
    pub color: String,

    /// Path headings above the matches: auto (on a terminal), always, never.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "always", "never"])]
    pub heading: String,

    /// Search with NUM threads (default: one per core).
    #[arg(short = 'j', long, value_name = "NUM")]
    pub threads: Option<usize>,

    /// Do not print warnings.
    #[arg(short, long)]
    pub quiet: bool,
}

impl Tool for Args {
    const NAME: &'static str = "pi-grep";
    fn quiet(&self) -> bool {
        self.quiet
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
pub fn run(a: &Args, ctx: &mut Ctx) -> Result<Exit> {
    let mut files = a.args.clone();
    let patterns = if a.regexp.is_empty() {
        if files.is_empty() {
            return Err(Error::usage("no PATTERN given (pi-grep --help)"));
        }
        vec![files.remove(0)]
    } else {
        a.regexp.clone()
    };
    if a.all && !files.is_empty() {
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
    let tty = ctx.out_is_terminal();
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
        roles: (!a.role.is_empty()).then(|| a.role.clone()),
        fields: (!a.fields.is_empty()).then(|| a.fields.clone()),
        active: a.active,
        since: a.since.as_deref().map(parse_time).transpose()?,
        until: a.until.as_deref().map(parse_time).transpose()?,
        mode,
        max_count: a.max_count,
        before: a.before_context.or(a.context).unwrap_or(0),
        after: a.after_context.or(a.context).unwrap_or(0),
        color: text_mode
            && match a.color.as_str() {
                "always" => true,
                "never" => false,
                _ => crate::cli::use_color(crate::cli::ColorWhen::Auto),
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
        return Ok(Exit::Found(false));
    }
    let mut warnings = Vec::new();
    let sources = select(&files, a.all, a.session_dir.as_deref(), &mut warnings)?;
    for w in &warnings {
        ctx.log.note(&format!("warning: {w}"));
    }
    let status = search_sources(&sources, &opts, ctx.out(), &mut std::io::stderr())?;
    if status.errors {
        // grep's rule: an error makes the status 2 even when a line matched.
        return Err(Error::usage(
            "some sessions could not be read (see above)".to_string(),
        ));
    }
    Ok(Exit::Found(status.matched))
}

/// What is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
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
}

/// A session to search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    File(PathBuf),
    Stdin,
}

impl Source {
    pub fn name(&self) -> String {
        match self {
            Source::File(p) => p.to_string_lossy().into_owned(),
            Source::Stdin => "<stdin>".into(),
        }
    }
}

/// Everything a search needs.
#[derive(Debug, Clone)]
pub struct Options {
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
    /// `-0`: end paths with NUL (with `-l`).
    pub null: bool,
    pub quiet: bool,
    pub threads: usize,
}

/// How a search went.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Status {
    pub matched: bool,
    /// A session could not be read (not: was not a session).
    pub errors: bool,
}

/// The sessions named by the SESSION arguments: files, directories
/// (every `*.jsonl` below them), `-` for stdin, or session-id prefixes; with
/// none, this project's session directory, or with `all` every project's.
pub fn select(
    args: &[String],
    all: bool,
    session_dir: Option<&Path>,
    warnings: &mut Vec<String>,
) -> Result<Vec<Source>> {
    let mut out = Vec::new();
    if args.is_empty() {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let dir = if all {
            session_dir
                .map(Path::to_path_buf)
                .unwrap_or_else(crate::locate::sessions_root)
        } else {
            crate::locate::project_session_dir(&cwd, session_dir)
        };
        if !dir.is_dir() {
            warnings.push(format!(
                "{}: no such session directory; no sessions to search",
                escape_name(&dir.to_string_lossy())
            ));
            return Ok(out);
        }
        let mut files = Vec::new();
        jsonl_in(&dir, if all { 1 } else { 0 }, &mut files, warnings);
        out.extend(files.into_iter().map(Source::File));
        return Ok(out);
    }
    for a in args {
        let p = Path::new(a);
        if a != "-" && p.is_dir() {
            let mut files = Vec::new();
            jsonl_in(p, usize::MAX, &mut files, warnings);
            out.extend(files.into_iter().map(Source::File));
            continue;
        }
        match crate::locate::resolve_session(Some(a), session_dir)? {
            crate::session::Input::Stdin => out.push(Source::Stdin),
            crate::session::Input::File(f) => out.push(Source::File(f)),
        }
    }
    Ok(out)
}

/// The `*.jsonl` files in `dir` and in its subdirectories down to `depth`
/// levels, sorted.
fn jsonl_in(dir: &Path, depth: usize, files: &mut Vec<PathBuf>, warnings: &mut Vec<String>) {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) => {
            warnings.push(format!(
                "{}: {}; skipped",
                escape_name(&dir.to_string_lossy()),
                crate::error::io_message(&e)
            ));
            return;
        }
    };
    let mut here: Vec<PathBuf> = rd.flatten().map(|d| d.path()).collect();
    here.sort();
    let mut subs = Vec::new();
    for p in here {
        if p.is_dir() {
            if depth > 0 {
                subs.push(p);
            }
        } else if p.extension().is_some_and(|e| e == "jsonl") && p.is_file() {
            files.push(p);
        }
    }
    for s in subs {
        jsonl_in(&s, depth - 1, files, warnings);
    }
}

/// What one file gave.
#[derive(Default)]
struct FileOut {
    out: Vec<u8>,
    warnings: Vec<String>,
    error: Option<String>,
    matched: bool,
}

/// Search `sources` and print what was found to `out`, warnings to stderr.
pub fn search_sources(
    sources: &[Source],
    opts: &Options,
    out: &mut impl Write,
    err: &mut impl Write,
) -> Result<Status> {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let threads = opts.threads.clamp(1, sources.len().max(1));
    let (tx, rx) = std::sync::mpsc::channel::<(usize, FileOut)>();
    let mut status = Status::default();
    std::thread::scope(|scope| -> Result<()> {
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            // Each thread its own copy of the regexes (a clone has its own
            // pool of search caches; a shared one is locked for all but one).
            let opts = opts.clone();
            scope.spawn(move || loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(src) = sources.get(i) else { break };
                let r = search_source(src, &opts);
                if tx.send((i, r)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        // Print in the order of `sources`, whatever order the threads end in.
        let mut waiting: BTreeMap<usize, FileOut> = BTreeMap::new();
        let mut printed = 0usize;
        let mut any_printed = false;
        let result = (|| -> Result<()> {
            for (i, r) in rx.iter() {
                waiting.insert(i, r);
                while let Some(r) = waiting.remove(&printed) {
                    printed += 1;
                    for w in &r.warnings {
                        if !opts.quiet {
                            let _ = writeln!(err, "pi-grep: warning: {w}");
                        }
                    }
                    if let Some(e) = &r.error {
                        status.errors = true;
                        let _ = writeln!(err, "pi-grep: error: {e}");
                    }
                    if r.matched {
                        status.matched = true;
                    }
                    if !r.out.is_empty() {
                        if opts.heading && any_printed {
                            out.write_all(b"\n").map_err(crate::cli::out_err)?;
                        }
                        any_printed = true;
                        out.write_all(&r.out).map_err(crate::cli::out_err)?;
                    }
                }
            }
            Ok(())
        })();
        if result.is_err() {
            stop.store(true, Ordering::Relaxed);
        }
        result
    })?;
    out.flush().map_err(crate::cli::out_err)?;
    Ok(status)
}

fn read_source(src: &Source) -> std::io::Result<(Vec<u8>, Option<std::time::SystemTime>)> {
    match src {
        Source::Stdin => {
            let mut b = Vec::new();
            std::io::stdin().lock().read_to_end(&mut b)?;
            Ok((b, None))
        }
        Source::File(p) => {
            let mut f = std::fs::File::open(p)?;
            let meta = f.metadata()?;
            if meta.is_dir() {
                return Err(std::io::Error::other("is a directory"));
            }
            let mut b = Vec::with_capacity(meta.len().min(1 << 30) as usize);
            f.read_to_end(&mut b)?;
            Ok((b, meta.modified().ok()))
        }
    }
}

thread_local! {
    static CHECKER: std::cell::RefCell<crate::json::js::Checker> =
        std::cell::RefCell::new(crate::json::js::Checker::new());
}

/// Search one session.
fn search_source(src: &Source, opts: &Options) -> FileOut {
    let name = src.name();
    let mut fo = FileOut::default();
    let (bytes, mtime) = match read_source(src) {
        Ok(b) => b,
        Err(e) => {
            fo.error = Some(format!(
                "{}: {}",
                escape_name(&name),
                crate::error::io_message(&e)
            ));
            return fo;
        }
    };
    let first_end = memchr::memchr(b'\n', &bytes).unwrap_or(bytes.len());
    let header = Object::parse_line(&bytes[..first_end]).ok().flatten();
    let is_header = header
        .as_ref()
        .is_some_and(|h| h.str("type").as_deref() == Some("session"));
    let current = header.as_ref().is_some_and(|h| {
        h.raw("version")
            .and_then(|v| std::str::from_utf8(v).ok())
            .and_then(|v| v.parse::<f64>().ok())
            .is_some_and(|v| v >= 3.0)
    });
    let mut s = Searcher {
        opts,
        name: &name,
        session_id: String::new(),
        fo: &mut fo,
        count: 0,
        done: false,
        last_ctx: None,
        checker: CHECKER.with(|c| std::mem::take(&mut *c.borrow_mut())),
    };
    if current && is_header && !opts.active {
        let h = header.as_ref();
        s.session_id = h
            .and_then(|h| h.str("id"))
            .map(|c| c.into_owned())
            .unwrap_or_default();
        if !s.in_time(&bytes, h, mtime) {
            return fo;
        }
        s.stream(&bytes, first_end);
    } else {
        drop(header);
        // Not a current session (or not a session at all: the loader says
        // what is wrong with its start).
        let session = match Session::from_bytes(&name, bytes, ReadOptions::default()) {
            Ok(x) => x,
            Err(e) => {
                s.fo.warnings.push(format!("{e}; skipped"));
                return fo;
            }
        };
        s.session_id = session.header.id.clone();
        for w in &session.warnings {
            let w = w.to_string();
            // Every old file says so; a search need not.
            if !w.contains("read as version 3 in memory") {
                s.fo.warnings.push(w);
            }
        }
        let mem = session.memory().unwrap_or_default();
        let hb = session.raw_header().ok();
        let h = hb
            .as_deref()
            .and_then(|b| Object::parse_line(b).ok().flatten());
        if !s.in_time(mem, h.as_ref(), mtime) {
            return fo;
        }
        if let Err(e) = s.loaded(&session) {
            s.fo.warnings.push(format!("{e}; skipped the rest"));
        }
    }
    let checker = std::mem::take(&mut s.checker);
    CHECKER.with(|c| *c.borrow_mut() = checker);
    let count = s.count;
    if opts.mode == Mode::Count && count > 0 {
        fo.out = format!("{name}:{count}\n").into_bytes();
    }
    fo
}

struct Searcher<'a> {
    opts: &'a Options,
    name: &'a str,
    session_id: String,
    fo: &'a mut FileOut,
    /// Matching lines so far.
    count: u64,
    /// `-m` reached, or `-l` found one.
    done: bool,
    /// The last line printed with context: (entry line, text index, text line).
    last_ctx: Option<(u64, usize, usize)>,
    checker: crate::json::js::Checker,
}

impl Searcher<'_> {
    /// Whether pi's activity time of the session is within --since/--until
    /// (pi's session list: the latest user or assistant message's
    /// timestamp, else the header's, else the file's modification time).
    fn in_time(
        &self,
        bytes: &[u8],
        header: Option<&Object<'_>>,
        mtime: Option<std::time::SystemTime>,
    ) -> bool {
        if self.opts.since.is_none() && self.opts.until.is_none() {
            return true;
        }
        let mut last: Option<f64> = None;
        let finder = memchr::memmem::Finder::new(b"message");
        for line in bytes.split(|&b| b == b'\n').skip(1) {
            if finder.find(line).is_none() {
                continue;
            }
            let Ok(Some(o)) = Object::parse_line(line) else {
                continue;
            };
            if o.str("type").as_deref() != Some("message") {
                continue;
            }
            let Some(m) = o.object("message") else {
                continue;
            };
            if !matches!(m.str("role").as_deref(), Some("user" | "assistant"))
                || m.get("content").is_none()
            {
                continue;
            }
            let t = match m.raw("timestamp") {
                Some(v) if matches!(v.first(), Some(b'-' | b'0'..=b'9')) => std::str::from_utf8(v)
                    .ok()
                    .and_then(|v| v.parse::<f64>().ok()),
                _ => {
                    let t = o.raw("timestamp").map_or(f64::NAN, crate::time::js_date_ms);
                    (!t.is_nan()).then_some(t)
                }
            };
            if let Some(t) = t {
                last = Some(last.unwrap_or(0.0).max(t));
            }
        }
        let t = match last.filter(|&t| t > 0.0) {
            Some(t) => t,
            None => {
                let h = header
                    .and_then(|h| h.str("timestamp"))
                    .map_or(f64::NAN, |s| crate::time::parse_iso(&s));
                if !h.is_nan() {
                    h
                } else {
                    mtime
                        .and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok())
                        .map_or(0.0, |d| d.as_millis() as f64)
                }
            }
        };
        self.opts.since.is_none_or(|s| t >= s) && self.opts.until.is_none_or(|u| t < u)
    }

    /// A version-3 file, from its raw bytes.
    fn stream(&mut self, bytes: &[u8], header_end: usize) {
        let mut pos = header_end + 1;
        let mut counted_to = pos.min(bytes.len());
        let mut line_no = 2u64;
        while pos < bytes.len() && !self.done {
            let Some(c) = self.opts.matcher.next_candidate(bytes, pos) else {
                break;
            };
            let start = memchr::memrchr(b'\n', &bytes[pos..c]).map_or(pos, |i| pos + i + 1);
            let end = memchr::memchr(b'\n', &bytes[c..]).map_or(bytes.len(), |i| c + i);
            line_no += memchr::memchr_iter(b'\n', &bytes[counted_to..start]).count() as u64;
            counted_to = start;
            let line = &bytes[start..end];
            // A line pi wrote (compact) is validated in one quick pass and
            // its objects are then found by their quotes and brackets
            // alone; any other line the long way.
            let quick = self.checker.valid_object(line).map(<[_]>::to_vec);
            let fast = quick.is_some();
            let parsed = match quick {
                Some(members) => Ok(Some(Object {
                    text: line,
                    range: 0..line.len(),
                    members,
                })),
                None => Object::parse_line(line),
            };
            match parsed {
                Ok(Some(o)) => {
                    if o.str("type").as_deref() != Some("session") {
                        let id = o.str("id").map(|c| c.into_owned());
                        self.entry(&o, line_no, id.as_deref(), fast);
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    if !crate::session::is_blank(line) {
                        self.fo.warnings.push(format!(
                            "{}:{line_no}: not valid JSON ({e}); skipped, as pi does",
                            escape_name(self.name)
                        ));
                    }
                }
            }
            pos = end + 1;
        }
    }

    /// A session through the loader (old versions, `--active`).
    fn loaded(&mut self, s: &Session) -> Result<()> {
        let mut which: Vec<usize> = if self.opts.active {
            match s.index.leaf {
                Some(l) if s.entries.id(l).is_some() => crate::path::path_to(s, l)?,
                _ => Vec::new(),
            }
        } else {
            (0..s.entries.len()).collect()
        };
        which.sort_unstable();
        for i in which {
            if self.done {
                break;
            }
            let e = &s.entries[i];
            if e.ty() == EntryType::Session {
                continue;
            }
            let line = s.line(i)?;
            if !self.opts.matcher.may_match(&line) {
                continue;
            }
            let Ok(Some(o)) = Object::parse_line(&line) else {
                continue;
            };
            let id = s.entries.id(i).map(|_| s.entries.id_string(i));
            self.entry(&o, e.line(), id.as_deref(), false);
        }
        Ok(())
    }

    /// Search one entry.
    fn entry(&mut self, o: &Object<'_>, line_no: u64, id: Option<&str>, fast: bool) {
        let e = search::Entry::new(o, fast);
        let (ty, role) = (&e.ty, &e.role);
        let who = role.as_deref().or(ty.as_deref()).unwrap_or("?").to_string();
        if let Some(roles) = &self.opts.roles {
            if !roles.contains(&who) {
                return;
            }
        }
        let spans = search::entry_spans(&e);
        let timestamp = match self.opts.mode {
            Mode::Json => o.canonical("timestamp").ok().flatten(),
            _ => None,
        };
        let ctx = self.opts.mode == Mode::Lines && (self.opts.before > 0 || self.opts.after > 0);
        for (ti, t) in spans.into_iter().enumerate() {
            if self.done {
                return;
            }
            if let Some(f) = &self.opts.fields {
                if !f.iter().any(|f| f == t.field) {
                    continue;
                }
            }
            let info = Info {
                line: line_no,
                id,
                ty: ty.as_deref(),
                role: role.as_deref(),
                who: &who,
                field: t.field,
                timestamp: timestamp.clone(),
                text_index: ti,
            };
            if let (Some(raw), search::SpanText::Raw(text, r), false) =
                (&self.opts.matcher.raw, &t.text, ctx)
            {
                if self.raw_text(&info, &text[r.start + 1..r.end - 1], raw) {
                    continue;
                }
            }
            let t = t.decode();
            self.text(&info, &t.text);
        }
    }

    fn text(&mut self, info: &Info<'_>, text: &str) {
        let re = &self.opts.matcher.re;
        let ctx = self.opts.mode == Mode::Lines && (self.opts.before > 0 || self.opts.after > 0);
        if !ctx && self.opts.matcher.whole {
            // match to match; each match's line counts once
            let (mut at, mut k, mut counted) = (0usize, 0usize, 0usize);
            while at <= text.len() && !self.done {
                let Some(m) = re.find_at(text, at) else {
                    return;
                };
                let ls = memchr::memrchr(b'\n', &text.as_bytes()[at..m.start()])
                    .map_or(at, |i| at + i + 1);
                let le = memchr::memchr(b'\n', &text.as_bytes()[m.start()..])
                    .map_or(text.len(), |i| m.start() + i);
                k += memchr::memchr_iter(b'\n', &text.as_bytes()[counted..ls]).count();
                counted = ls;
                self.matched(info, k, &text[ls..le]);
                at = le + 1;
            }
            return;
        }
        if !ctx {
            for (k, l) in text.split('\n').enumerate() {
                if self.done {
                    return;
                }
                if re.is_match(l) {
                    self.matched(info, k, l);
                }
            }
            return;
        }
        let lines: Vec<&str> = text.split('\n').collect();
        let mut after_until: Option<usize> = None;
        for (k, l) in lines.iter().enumerate() {
            if self.done {
                return;
            }
            if re.is_match(l) {
                let from = k.saturating_sub(self.opts.before);
                let from = match self.last_ctx {
                    Some((el, ti, kl)) if el == info.line && ti == info.text_index => {
                        from.max(kl + 1)
                    }
                    _ => from,
                };
                for (j, cl) in lines.iter().enumerate().take(k).skip(from) {
                    self.context(info, j, cl);
                }
                self.separator(info, k);
                self.matched(info, k, l);
                self.last_ctx = Some((info.line, info.text_index, k));
                after_until = Some(k + self.opts.after);
            } else if after_until.is_some_and(|u| k <= u) {
                self.context(info, k, l);
            }
        }
    }

    /// Search the raw bytes of a JSON string (without its quotes) with
    /// [`Matcher::raw`]; false, having done nothing, when it holds a `\u`
    /// escape (then the decoded text is searched). Text lines end at the
    /// `\n` escapes, found by walking the backslashes from the start (so
    /// that `\\n` is no line break), which also tells whether a match
    /// starts on the letter of an escape (no match: `\nothing` is a break
    /// and "othing").
    fn raw_text(&mut self, info: &Info<'_>, s: &[u8], raw: &regex::bytes::Regex) -> bool {
        // (text line, its raw start, its raw end) of each matching line
        let mut hits: Vec<(usize, usize, usize)> = Vec::new();
        // q: a place no escape straddles; k, ls: the line at q, its start
        let (mut q, mut k, mut ls, mut at) = (0usize, 0usize, 0usize, 0usize);
        while at <= s.len() {
            let Some(m) = raw.find_at(s, at) else { break };
            if s[m.start()] == b'\\' {
                return false; // `\u`
            }
            let p = m.start();
            while let Some(i) = memchr::memchr(b'\\', &s[q..p]).map(|i| q + i) {
                if s.get(i + 1) == Some(&b'n') {
                    k += 1;
                    ls = i + 2;
                }
                q = i + 2;
            }
            if q > p {
                at = p + 1;
                continue;
            }
            let mut le = s.len();
            while let Some(i) = memchr::memchr(b'\\', &s[q..]).map(|i| q + i) {
                q = i + 2;
                if s.get(i + 1) == Some(&b'n') {
                    le = i;
                    break;
                }
            }
            hits.push((k, ls, le));
            if le >= s.len() {
                break;
            }
            k += 1;
            ls = le + 2;
            q = ls;
            at = ls;
        }
        let decode = !matches!(self.opts.mode, Mode::Count | Mode::Files);
        let mut buf = Vec::new();
        for (k, a, b) in hits {
            if self.done {
                break;
            }
            if decode {
                buf.clear();
                buf.push(b'"');
                buf.extend_from_slice(&s[a..b]);
                buf.push(b'"');
                let l = js::decode_string(&buf, 0..buf.len()).into_owned();
                self.matched(info, k, &l);
            } else {
                self.matched(info, k, "");
            }
        }
        true
    }

    /// `--` before a group of lines that does not follow the last one.
    fn separator(&mut self, info: &Info<'_>, k: usize) {
        if let Some((el, ti, kl)) = self.last_ctx {
            if !(el == info.line && ti == info.text_index && kl + 1 >= k) {
                self.fo.out.extend_from_slice(b"--\n");
            }
        }
    }

    fn context(&mut self, info: &Info<'_>, k: usize, l: &str) {
        self.separator(info, k);
        self.prefix(info, b'-');
        self.fo.out.extend_from_slice(l.as_bytes());
        self.fo.out.push(b'\n');
        self.last_ctx = Some((info.line, info.text_index, k));
    }

    fn prefix(&mut self, info: &Info<'_>, sep: u8) {
        let color = self.opts.color;
        let out = &mut self.fo.out;
        let paint = |out: &mut Vec<u8>, code: &str, s: &str| {
            if color {
                out.extend_from_slice(format!("\x1b[{code}m{s}\x1b[0m").as_bytes());
            } else {
                out.extend_from_slice(s.as_bytes());
            }
        };
        if self.opts.heading {
            if out.is_empty() {
                paint(out, "35", self.name);
                out.push(b'\n');
            }
        } else {
            paint(out, "35", self.name);
            out.push(sep);
        }
        paint(out, "32", info.id.unwrap_or(""));
        out.push(sep);
        paint(out, "36", &format!("{}/{}", info.who, info.field));
        out.push(sep);
        out.push(b' ');
    }

    /// A matching line.
    fn matched(&mut self, info: &Info<'_>, k: usize, l: &str) {
        self.fo.matched = true;
        self.count += 1;
        if self.opts.max_count.is_some_and(|m| self.count >= m) {
            self.done = true;
        }
        let re = &self.opts.matcher.re;
        match self.opts.mode {
            Mode::Files => {
                self.fo.out.extend_from_slice(self.name.as_bytes());
                self.fo.out.push(if self.opts.null { 0 } else { b'\n' });
                self.done = true;
            }
            Mode::Count => {}
            Mode::Lines => {
                self.prefix(info, b':');
                if self.opts.color {
                    let mut at = 0;
                    for m in re.find_iter(l) {
                        if m.is_empty() {
                            continue;
                        }
                        self.fo.out.extend_from_slice(&l.as_bytes()[at..m.start()]);
                        self.fo.out.extend_from_slice(b"\x1b[1;31m");
                        self.fo.out.extend_from_slice(m.as_str().as_bytes());
                        self.fo.out.extend_from_slice(b"\x1b[0m");
                        at = m.end();
                    }
                    self.fo.out.extend_from_slice(&l.as_bytes()[at..]);
                } else {
                    self.fo.out.extend_from_slice(l.as_bytes());
                }
                self.fo.out.push(b'\n');
            }
            Mode::Only => {
                for m in re.find_iter(l) {
                    if m.is_empty() {
                        continue;
                    }
                    self.prefix(info, b':');
                    self.fo.out.extend_from_slice(m.as_str().as_bytes());
                    self.fo.out.push(b'\n');
                }
            }
            Mode::Json => {
                let mut w = ObjectWriter::new();
                w.str("path", self.name);
                w.str("session", &self.session_id);
                match info.id {
                    Some(id) => w.str("id", id),
                    None => w.raw("id", Some(b"null")),
                };
                w.number("line", info.line as f64);
                match info.ty {
                    Some(t) => w.str("type", t),
                    None => w.raw("type", Some(b"null")),
                };
                match info.role {
                    Some(r) => w.str("role", r),
                    None => w.raw("role", Some(b"null")),
                };
                w.str("field", info.field);
                w.raw(
                    "timestamp",
                    Some(info.timestamp.as_deref().unwrap_or(b"null")),
                );
                w.number("textLine", (k + 1) as f64);
                w.str("text", l);
                let mut subs = b"[".to_vec();
                for m in re.find_iter(l) {
                    if subs.len() > 1 {
                        subs.push(b',');
                    }
                    subs.extend_from_slice(b"{\"match\":{\"text\":");
                    js::write_str(&mut subs, m.as_str());
                    subs.extend_from_slice(
                        format!("}},\"start\":{},\"end\":{}}}", m.start(), m.end()).as_bytes(),
                    );
                }
                subs.push(b']');
                w.raw("submatches", Some(&subs));
                self.fo.out.extend_from_slice(&w.finish());
                self.fo.out.push(b'\n');
            }
        }
    }
}

/// Where a text line is.
struct Info<'a> {
    line: u64,
    id: Option<&'a str>,
    ty: Option<&'a str>,
    role: Option<&'a str>,
    /// The role, or the type when there is none.
    who: &'a str,
    field: &'static str,
    timestamp: Option<Vec<u8>>,
    text_index: usize,
}

/// Parse a `--since`/`--until` time (ISO 8601 as JavaScript's Date reads it).
pub fn parse_time(s: &str) -> Result<f64> {
    let t = crate::time::parse_iso(s.trim());
    if t.is_nan() {
        return Err(Error::usage(format!(
            "'{s}': not a date or time (ISO 8601: 2026-11-01, 2026-11-01T09:30, 2026-11-01T09:30:00Z)"
        )));
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The raw search of JSON strings (and the whole-text search) gives
    /// what the line-by-line search of the decoded text gives.
    #[test]
    fn raw_search_is_the_decoded_search() {
        let texts = [
            "café nothing\\nothing here",
            "a\\nothing\nnothing\n",
            "x \"nothing\" y\tnothing\\\\nothing",
            "\u{1b}nothing\u{1b}",
            "nothin",
            "line1\nline2 nothing\nline3 nothing nothing\n\nnothing",
            "",
            "\n\nnothing\n",
        ];
        let mut file = String::from(
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/x"}"#,
        );
        file.push('\n');
        for (i, t) in texts.iter().enumerate() {
            let mut s = Vec::new();
            js::write_str(&mut s, t);
            file.push_str(&format!(
                r#"{{"type":"message","id":"e{i}","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{{"type":"text","text":{}}}],"isError":false,"timestamp":1}}}}"#,
                String::from_utf8(s).unwrap()
            ));
            file.push('\n');
        }
        // escapes JSON.stringify does not write
        file.push_str(r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"user","content":"no\u0074hing and \u00e9 nothing\nothing","timestamp":2}}"#);
        file.push('\n');
        file.push_str(r#"{"type":"message","id":"u2","parentId":null,"timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"user","content":[{"type":"text","text":"\\nothing \\\nothing \/ nothing"}],"timestamp":2}}"#);
        file.push('\n');
        let path = std::env::temp_dir().join(format!("pi-grep-raw-{}.jsonl", std::process::id()));
        std::fs::write(&path, &file).unwrap();
        let src = Source::File(path.clone());
        for pat in ["nothing", "othing", "ing", "h", "no.hing", "é", "line[0-9]"] {
            for ic in [false, true] {
                for mode in [
                    Mode::Count,
                    Mode::Lines,
                    Mode::Only,
                    Mode::Json,
                    Mode::Files,
                ] {
                    let matcher = Matcher::new(
                        &[pat.to_string()],
                        search::PatternOptions {
                            ignore_case: ic,
                            ..Default::default()
                        },
                    )
                    .unwrap();
                    let opts = |matcher: Matcher| Options {
                        matcher,
                        roles: None,
                        fields: None,
                        active: false,
                        since: None,
                        until: None,
                        mode,
                        max_count: None,
                        before: 0,
                        after: 0,
                        color: false,
                        heading: false,
                        null: false,
                        quiet: true,
                        threads: 1,
                    };
                    let mut slow = matcher.clone();
                    slow.raw = None;
                    slow.whole = false;
                    let a = search_source(&src, &opts(matcher));
                    let b = search_source(&src, &opts(slow));
                    assert_eq!(
                        String::from_utf8_lossy(&a.out),
                        String::from_utf8_lossy(&b.out),
                        "{pat} {ic} {mode:?}"
                    );
                    assert!(a.matched, "{pat}");
                }
            }
        }
        let _ = std::fs::remove_file(&path);
    }
}
