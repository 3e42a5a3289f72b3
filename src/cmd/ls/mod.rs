//! pi-ls: the session store at a glance (pi's `SessionManager.list` and
//! `listAll`, filtered, in text, JSON lines, or NUL-separated paths).

use crate::cli::{Ctx, Exit, Tool};
use crate::error::{Error, Result};
use crate::json::{js, Object};
use crate::locate;
use crate::session::{Input, ReadOptions, Session};
use crate::store::{self, Info};
use clap::Parser;
use std::io::Write;
use std::path::{Path, PathBuf};

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
    crate::exact_to_pi!()
);

/// List pi sessions: this project's, or every project's, as pi lists them.
///
/// Text for people (aligned to the terminal, relative times on a terminal,
/// ISO times in a pipe, colour only on a terminal and never with NO_COLOR),
/// JSON lines with pi's SessionInfo fields for scripts, or NUL-separated
/// paths.
#[derive(Parser, Debug)]
#[command(name = "pi-ls", version, after_help = EXAMPLES)]
pub struct Args {
    /// When to colour: auto (on a terminal, unless NO_COLOR is set;
    /// CLICOLOR_FORCE or FORCE_COLOR force it), always (e.g. for `less -R`), never.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "auto")]
    pub color: crate::cli::ColorWhen,

    /// Every project's sessions (pi's listAll()), not only this directory's.
    #[arg(short, long)]
    pub all: bool,

    /// One JSON object per session and line: pi's SessionInfo fields.
    #[arg(long, conflicts_with = "null")]
    pub json: bool,

    /// Long form: entries, leaves, branch points, compactions, labels,
    /// size, version, tokens, cost, last model (reads each file whole).
    #[arg(short, long)]
    pub long: bool,

    /// Print the paths only, each ended by a NUL byte (for xargs -0).
    #[arg(short = '0', long = "null")]
    pub null: bool,

    /// Show forks under the session they were forked from (parentSession).
    #[arg(long, conflicts_with_all = ["json", "null"])]
    pub tree: bool,

    /// Only sessions whose working directory no longer exists.
    #[arg(long)]
    pub orphans: bool,

    /// Only sessions active at or after WHEN (2026-11-01, an ISO time, or 7d for 7 days ago).
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,

    /// Only sessions last active before WHEN.
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,

    /// Only sessions last active more than DURATION ago (90d, 12h, 30m, 2w).
    #[arg(long, value_name = "DURATION")]
    pub older_than: Option<String>,

    /// Only sessions whose working directory is DIR or below it.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Only sessions whose name matches GLOB (`*`, `?`, `[...]`).
    #[arg(long, value_name = "GLOB")]
    pub name: Option<String>,

    /// The session directory to list (instead of
    /// $PI_CODING_AGENT_SESSION_DIR or ~/.pi/agent/sessions/--<cwd>--).
    #[arg(long, value_name = "DIR")]
    pub session_dir: Option<PathBuf>,

    /// Text: the width to fit (default: the terminal's; no limit in a pipe).
    #[arg(long, value_name = "N")]
    pub width: Option<usize>,

    /// Say why each skipped file is skipped (with its line) and sum up.
    #[arg(short, long)]
    pub verbose: bool,

    /// Do not print warnings.
    #[arg(short, long, conflicts_with = "verbose")]
    pub quiet: bool,
}

impl Tool for Args {
    const NAME: &'static str = "pi-ls";
    fn quiet(&self) -> bool {
        self.quiet
    }
    fn run(&self, ctx: &mut Ctx) -> Result<Exit> {
        run(self, ctx)
    }
}

/// `pi-ls`: list the sessions asked for.
pub fn run(a: &Args, ctx: &mut Ctx) -> Result<Exit> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_millis() as f64);
    let since = a.since.as_deref().map(|s| parse_when(s, now)).transpose()?;
    let mut until = a.until.as_deref().map(|s| parse_when(s, now)).transpose()?;
    if let Some(d) = &a.older_than {
        let Some(ms) = parse_duration(d) else {
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
    let tty = ctx.out_is_terminal();
    let req = Request {
        all: a.all,
        session_dir: a.session_dir.clone(),
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
        cwd: a.cwd.clone(),
        name: a.name.clone(),
        verbose: a.verbose,
        quiet: a.quiet,
        width: a.width.or_else(|| ctx.terminal_width()),
        relative: tty,
        color: crate::cli::use_color(a.color),
        now,
    };
    print(&req, ctx.out())?;
    Ok(Exit::Ok)
}

/// How to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Nul,
}

/// What to list and how.
#[derive(Debug, Clone)]
pub struct Request {
    pub all: bool,
    pub session_dir: Option<PathBuf>,
    pub format: Format,
    pub long: bool,
    pub tree: bool,
    pub orphans: bool,
    /// Keep sessions modified at or after this time (ms).
    pub since: Option<f64>,
    /// Keep sessions modified before this time (ms).
    pub until: Option<f64>,
    pub cwd: Option<PathBuf>,
    pub name: Option<String>,
    pub verbose: bool,
    pub quiet: bool,
    /// Text: the terminal's columns (None: no cutting).
    pub width: Option<usize>,
    /// Text: relative times (a terminal) or ISO times.
    pub relative: bool,
    pub color: bool,
    /// "Now", for relative times and --older-than (ms).
    pub now: f64,
}

const TOOL: &str = "pi-ls";

/// The extra fields of `-l`, from a full read of the file.
#[derive(Debug, Clone, Default)]
pub struct Long {
    pub entries: u64,
    pub leaves: u64,
    pub branch_points: u64,
    pub compactions: u64,
    pub labels: u64,
    pub tokens: f64,
    pub cost: f64,
    pub last_model: Option<String>,
}

/// The sessions pi lists, in pi's order, and the files it skips.
pub fn list(req: &Request) -> (Vec<Info>, Vec<store::Skip>, Vec<String>) {
    let mut problems = Vec::new();
    let env_dir = std::env::var_os("PI_CODING_AGENT_SESSION_DIR")
        .filter(|d| !d.is_empty())
        .map(|d| locate::expand_tilde(&d.to_string_lossy()));
    let session_dir = req.session_dir.clone().or(env_dir);
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let resolved_cwd = locate::resolve_path(&cwd);
    let cands;
    let mut filter_cwd = false;
    if req.all {
        cands = match &session_dir {
            Some(d) => store::dir_candidates(&normalize_dir(d), &mut problems),
            None => {
                // getSessionsDir(): join(getAgentDir(), "sessions"), not resolved.
                let root = store::node_join(&locate::agent_dir(), "sessions");
                store::all_candidates(&root, &mut problems)
            }
        };
    } else {
        let default = default_dir(&resolved_cwd);
        let dir = match &session_dir {
            Some(d) => {
                let d = normalize_dir(d);
                filter_cwd = locate::resolve_path(&d) != default;
                d
            }
            None => default,
        };
        cands = store::dir_candidates(&dir, &mut problems);
    }
    let mut infos = Vec::new();
    let mut skips = Vec::new();
    for o in store::read_all(&cands) {
        match o {
            Ok(i) => infos.push(i),
            Err(s) => skips.push(s),
        }
    }
    if filter_cwd {
        let want = resolved_cwd.to_string_lossy().into_owned();
        infos.retain(|i| {
            let c = i.cwd_string();
            !c.is_empty() && locate::resolve_path_str(&c) == want
        });
    }
    store::sort_infos(&mut infos);
    (infos, skips, problems)
}

/// pi's `normalizePath(dir)`: `~` expanded, the text otherwise as given.
fn normalize_dir(d: &Path) -> PathBuf {
    match d.to_str() {
        Some(s) => locate::expand_tilde(s),
        None => d.to_path_buf(),
    }
}

/// `getDefaultSessionDirPath(cwd)`: `<resolved agentDir>/sessions/--<cwd>--`.
fn default_dir(resolved_cwd: &Path) -> PathBuf {
    let agent = locate::resolve_path(&locate::agent_dir());
    store::node_join(
        &agent,
        &format!(
            "sessions/{}",
            locate::encode_cwd(&resolved_cwd.to_string_lossy())
        ),
    )
}

/// Read the `-l` fields of one session (a full read of the file).
pub fn long_info(path: &Path) -> Result<Long> {
    let s = Session::open(Input::File(path.to_path_buf()), ReadOptions::default())?;
    let n = s.entries.len();
    let mut children = vec![0u32; n];
    let mut l = Long::default();
    for i in 0..n {
        if s.entries[i].ty() == crate::entry::EntryType::Session {
            continue;
        }
        l.entries += 1;
        if let Some(p) = s.index.parent_of(i) {
            children[p] = children[p].saturating_add(1);
        }
    }
    for (i, e) in s.entries.iter().enumerate() {
        use crate::entry::EntryType as T;
        match e.ty() {
            T::Session => continue,
            T::Compaction => l.compactions += 1,
            T::Message | T::ModelChange => {
                let bytes = s.raw_line(i)?;
                let Ok(Some(obj)) = Object::parse_line(&bytes) else {
                    continue;
                };
                if e.ty() == T::ModelChange {
                    if let (Some(p), Some(m)) = (obj.str("provider"), obj.str("modelId")) {
                        l.last_model = Some(format!("{p}/{m}"));
                    }
                } else if let Some(msg) = obj.object("message") {
                    if msg.str("role").as_deref() == Some("assistant") {
                        if let (Some(p), Some(m)) = (msg.str("provider"), msg.str("model")) {
                            l.last_model = Some(format!("{p}/{m}"));
                        }
                        if let Some(u) = msg.object("usage") {
                            l.tokens += num(u.raw("totalTokens"));
                            if let Some(c) = u.object("cost") {
                                l.cost += num(c.raw("total"));
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        match children[i] {
            0 => l.leaves += 1,
            1 => {}
            _ => l.branch_points += 1,
        }
    }
    l.labels = s.index.labels.iter().count() as u64;
    Ok(l)
}

fn num(v: Option<&[u8]>) -> f64 {
    v.and_then(|v| std::str::from_utf8(v).ok())
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|n| n.is_finite())
        .unwrap_or(0.0)
}

/// A `*` and `?` glob (`[...]` classes too), on whole strings.
pub fn glob(pat: &str, s: &str) -> bool {
    let p: Vec<char> = pat.chars().collect();
    let t: Vec<char> = s.chars().collect();
    // Iterative matching with one star back-track point.
    let (mut i, mut j) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while j < t.len() {
        if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
            continue;
        }
        if i < p.len() {
            if let Some((ok, len)) = class_or_char(&p[i..], t[j]) {
                if ok {
                    i += len;
                    j += 1;
                    continue;
                }
            }
        }
        match star {
            Some((si, sj)) => {
                i = si + 1;
                j = sj + 1;
                star = Some((si, sj + 1));
            }
            None => return false,
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

/// Whether the pattern item at the start of `p` matches `c`, and its length.
fn class_or_char(p: &[char], c: char) -> Option<(bool, usize)> {
    match p.first()? {
        '?' => Some((true, 1)),
        '[' => {
            let end = p.iter().skip(1).position(|&x| x == ']').map(|e| e + 1)?;
            let body = &p[1..end];
            let (neg, body) = match body.first() {
                Some('!' | '^') => (true, &body[1..]),
                _ => (false, body),
            };
            let mut hit = false;
            let mut k = 0;
            while k < body.len() {
                if k + 2 < body.len() && body[k + 1] == '-' {
                    hit |= body[k] <= c && c <= body[k + 2];
                    k += 3;
                } else {
                    hit |= body[k] == c;
                    k += 1;
                }
            }
            Some((hit != neg, end + 1))
        }
        '\\' if p.len() > 1 => Some((p[1] == c, 2)),
        &x => Some((x == c, 1)),
    }
}

/// Keep the sessions the filters ask for.
pub fn filter(req: &Request, infos: Vec<Info>) -> Vec<Info> {
    let cwd = req
        .cwd
        .as_ref()
        .map(|c| locate::resolve_path(c).to_string_lossy().into_owned());
    infos
        .into_iter()
        .filter(|i| req.since.is_none_or(|t| i.modified >= t))
        .filter(|i| req.until.is_none_or(|t| i.modified < t))
        .filter(|i| {
            cwd.as_ref().is_none_or(|want| {
                let c = i.cwd_string();
                if c.is_empty() {
                    return false;
                }
                let c = locate::resolve_path_str(&c);
                c == *want
                    || c.strip_prefix(want.as_str())
                        .is_some_and(|r| r.starts_with('/') || want == "/")
            })
        })
        .filter(|i| {
            req.name
                .as_ref()
                .is_none_or(|g| i.name_string().is_some_and(|n| glob(g, &n)))
        })
        .filter(|i| {
            !req.orphans || {
                let c = i.cwd_string();
                c.is_empty() || !Path::new(&locate::resolve_path_str(&c)).is_dir()
            }
        })
        .collect()
}

/// Run pi-ls: list, filter, print. Ok(false) when nothing was listed.
pub fn print(req: &Request, out: &mut impl Write) -> Result<bool> {
    let t0 = std::time::Instant::now();
    let (infos, skips, problems) = list(req);
    if !req.quiet {
        for p in &problems {
            eprintln!("{TOOL}: warning: {}", crate::error::escape_name(p));
        }
        for s in &skips {
            let name = s.path.display().to_string();
            let name = crate::error::escape_name(&name);
            match (req.verbose, s.line) {
                (true, Some(l)) => {
                    eprintln!("{TOOL}: warning: {name}:{l}: {}; not listed", s.reason)
                }
                _ => eprintln!("{TOOL}: warning: {name}: {}; not listed", s.reason),
            }
        }
    }
    let total = infos.len();
    let infos = filter(req, infos);
    let longs: Vec<Option<Long>> = if req.long {
        store::parallel_map(&infos, |i| long_info(&i.path).ok())
    } else {
        Vec::new()
    };
    let w = |e: std::io::Error| crate::cli::out_err(e);
    match req.format {
        Format::Nul => {
            for i in &infos {
                use std::os::unix::ffi::OsStrExt;
                out.write_all(i.path.as_os_str().as_bytes()).map_err(w)?;
                out.write_all(b"\0").map_err(w)?;
            }
        }
        Format::Json => {
            let mut b = Vec::with_capacity(1024);
            for (k, i) in infos.iter().enumerate() {
                b.clear();
                i.write_json_open(&mut b);
                if let Some(l) = longs.get(k) {
                    write_long_json(&mut b, i, l.as_ref());
                }
                b.extend_from_slice(b"}\n");
                out.write_all(&b).map_err(w)?;
            }
        }
        Format::Text => write_text(req, &infos, &longs, out).map_err(w)?,
    }
    out.flush().map_err(w)?;
    if req.verbose && !req.quiet {
        eprintln!(
            "{TOOL}: {} listed ({total} sessions, {} files not sessions or unreadable) in {:.0} ms",
            infos.len(),
            skips.len(),
            t0.elapsed().as_secs_f64() * 1000.0
        );
    }
    Ok(!infos.is_empty())
}

fn write_long_json(b: &mut Vec<u8>, i: &Info, l: Option<&Long>) {
    if let Some(l) = l {
        b.extend_from_slice(
            format!(
                ",\"entries\":{},\"leaves\":{},\"branchPoints\":{},\"compactions\":{},\"labels\":{}",
                l.entries, l.leaves, l.branch_points, l.compactions, l.labels
            )
            .as_bytes(),
        );
    }
    b.extend_from_slice(format!(",\"bytes\":{},\"version\":{}", i.bytes, i.version).as_bytes());
    if let Some(l) = l {
        b.extend_from_slice(b",\"tokens\":");
        js::write_number(b, l.tokens);
        b.extend_from_slice(b",\"cost\":");
        js::write_number(b, l.cost);
        b.extend_from_slice(b",\"lastModel\":");
        match &l.last_model {
            Some(m) => js::write_str(b, m),
            None => b.extend_from_slice(b"null"),
        }
    }
}

/// The shortest prefix of each id (at least 8 characters) that no other
/// listed id shares.
fn short_ids(infos: &[Info]) -> Vec<String> {
    let mut sorted: Vec<&str> = infos.iter().map(|i| i.id.as_str()).collect();
    sorted.sort_unstable();
    infos
        .iter()
        .map(|i| {
            let id = i.id.as_str();
            let k = sorted.partition_point(|x| *x < id);
            let common = |o: Option<&&str>| {
                o.map_or(0, |o| {
                    o.chars()
                        .zip(id.chars())
                        .take_while(|(a, b)| a == b)
                        .count()
                })
            };
            // Neighbours in sorted order share the longest prefixes.
            let mut need = common(k.checked_sub(1).and_then(|p| sorted.get(p)));
            let mut after = k + 1;
            while sorted.get(after) == Some(&id) {
                after += 1;
            }
            need = need.max(common(sorted.get(after)));
            let n = (need + 1).max(8);
            id.chars().take(n).collect()
        })
        .collect()
}

fn relative(now: f64, t: f64) -> String {
    if t.is_nan() {
        return "-".into();
    }
    let s = ((now - t) / 1000.0).floor();
    if s < 0.0 {
        return crate::time::iso_string(t as i64)[..10].to_string();
    }
    let s = s as i64;
    match s {
        0..=59 => format!("{s}s ago"),
        60..=3599 => format!("{}m ago", s / 60),
        3600..=86_399 => format!("{}h ago", s / 3600),
        86_400..=2_591_999 => format!("{}d ago", s / 86_400),
        _ => crate::time::iso_string(t as i64)[..10].to_string(),
    }
}

fn iso(t: f64) -> String {
    if t.is_nan() {
        "-".into()
    } else {
        crate::time::iso_string(t as i64)
    }
}

fn human_bytes(n: u64) -> String {
    let units = ["B", "K", "M", "G", "T"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n}B")
    } else if v < 10.0 {
        format!("{v:.1}{}", units[u])
    } else {
        format!("{v:.0}{}", units[u])
    }
}

/// Text fit for one line: line breaks, tabs and other control characters
/// as spaces, runs of spaces as one.
fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(4096));
    let mut space = false;
    for c in s.chars() {
        if c.is_control() || c.is_whitespace() {
            if !space && !out.is_empty() {
                out.push(' ');
            }
            space = true;
        } else {
            out.push(c);
            space = false;
        }
        if out.len() > 4096 {
            break;
        }
    }
    out.trim_end().to_string()
}

/// `s` cut to `w` columns (graphemes, wide characters as 2), with `…`.
fn cut(s: &str, w: usize) -> String {
    use unicode_segmentation::UnicodeSegmentation;
    if crate::width::width(s) <= w {
        return s.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for g in s.graphemes(true) {
        let gw = crate::width::grapheme_width(g);
        if used + gw + 1 > w {
            break;
        }
        out.push_str(g);
        used += gw;
    }
    if w > 0 {
        out.push('…');
    }
    out
}

fn home_short(p: &str) -> String {
    if let Some(h) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        let h = h.to_string_lossy();
        let h = h.trim_end_matches('/');
        if !h.is_empty() {
            if p == h {
                return "~".into();
            }
            if let Some(r) = p.strip_prefix(h).filter(|r| r.starts_with('/')) {
                return format!("~{r}");
            }
        }
    }
    p.to_string()
}

/// The rows of the listing in display order, with their depth under
/// `--tree` (forks under the session named by their `parentSession`).
fn tree_order(infos: &[Info]) -> Vec<(usize, usize)> {
    use std::collections::HashMap;
    let key = |p: &str| locate::resolve_path_str(p);
    let by_path: HashMap<String, usize> = infos
        .iter()
        .enumerate()
        .map(|(k, i)| (key(&i.path.to_string_lossy()), k))
        .collect();
    let parent: Vec<Option<usize>> = infos
        .iter()
        .enumerate()
        .map(|(k, i)| {
            i.parent
                .as_ref()
                .and_then(|p| by_path.get(&key(p)).copied())
                .filter(|&p| p != k)
        })
        .collect();
    let mut kids: Vec<Vec<usize>> = vec![Vec::new(); infos.len()];
    for (k, p) in parent.iter().enumerate() {
        if let Some(p) = p {
            kids[*p].push(k);
        }
    }
    let mut seen = vec![false; infos.len()];
    let mut order = Vec::with_capacity(infos.len());
    // Roots first; then whatever a parent cycle left out.
    let roots: Vec<usize> = (0..infos.len()).filter(|&k| parent[k].is_none()).collect();
    let rest: Vec<usize> = (0..infos.len()).collect();
    for start in roots.into_iter().chain(rest) {
        if seen[start] {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        while let Some((k, d)) = stack.pop() {
            if seen[k] {
                continue;
            }
            seen[k] = true;
            order.push((k, d));
            for &c in kids[k].iter().rev() {
                stack.push((c, d + 1));
            }
        }
    }
    order
}

fn write_text(
    req: &Request,
    infos: &[Info],
    longs: &[Option<Long>],
    out: &mut impl Write,
) -> std::io::Result<()> {
    let ids = short_ids(infos);
    let order: Vec<(usize, usize)> = if req.tree {
        tree_order(infos)
    } else {
        (0..infos.len()).map(|k| (k, 0)).collect()
    };
    let time = |t: f64| {
        if req.relative {
            relative(req.now, t)
        } else {
            iso(t)
        }
    };
    let mut head: Vec<&str> = vec!["ID", "MODIFIED", "MSGS"];
    if req.long {
        head.extend([
            "CREATED", "ENTRIES", "LEAVES", "BRANCHES", "COMPACT", "LABELS", "SIZE", "VER",
            "TOKENS", "COST", "MODEL",
        ]);
    }
    if req.all {
        head.push("PROJECT");
    }
    let mut rows: Vec<Vec<String>> = Vec::with_capacity(order.len());
    let mut titles: Vec<(String, bool)> = Vec::with_capacity(order.len());
    for &(k, depth) in &order {
        let i = &infos[k];
        let mut r = vec![
            ids[k].clone(),
            time(i.modified),
            i.message_count.to_string(),
        ];
        if req.long {
            r.push(time(i.created));
            match longs.get(k).and_then(|l| l.as_ref()) {
                Some(l) => {
                    r.push(l.entries.to_string());
                    r.push(l.leaves.to_string());
                    r.push(l.branch_points.to_string());
                    r.push(l.compactions.to_string());
                    r.push(l.labels.to_string());
                    r.push(human_bytes(i.bytes));
                    r.push(i.version.to_string());
                    r.push(js::number_to_js(l.tokens));
                    r.push(format!("{:.2}", l.cost));
                    r.push(l.last_model.clone().unwrap_or_else(|| "-".into()));
                }
                None => {
                    r.extend(["-", "-", "-", "-", "-"].map(String::from));
                    r.push(human_bytes(i.bytes));
                    r.push(i.version.to_string());
                    r.extend(["-", "-", "-"].map(String::from));
                }
            }
        }
        if req.all {
            r.push(home_short(&i.cwd_string()));
        }
        let indent = if depth > 0 {
            format!("{}└ ", "  ".repeat(depth - 1))
        } else {
            String::new()
        };
        let (title, named) = match i.name_string() {
            Some(n) => (n, true),
            None => (i.first_message_string(), false),
        };
        titles.push((format!("{indent}{}", one_line(&title)), named));
        rows.push(r);
    }
    let ncols = head.len();
    let mut widths: Vec<usize> = head.iter().map(|h| h.len()).collect();
    for r in &rows {
        for (c, v) in r.iter().enumerate() {
            widths[c] = widths[c].max(crate::width::width(v));
        }
    }
    // The project column gives way first, then the title.
    if let (Some(w), true) = (req.width, req.all) {
        let fixed: usize = widths[..ncols - 1].iter().map(|x| x + 2).sum();
        let room = w.saturating_sub(fixed + 20);
        let pc = &mut widths[ncols - 1];
        *pc = (*pc).min(room.max(10));
    }
    let (bold, dim, yellow, reset) = if req.color {
        ("\x1b[1m", "\x1b[2m", "\x1b[33m", "\x1b[0m")
    } else {
        ("", "", "", "")
    };
    let numeric = |c: usize| {
        matches!(
            head[c],
            "MSGS"
                | "ENTRIES"
                | "LEAVES"
                | "BRANCHES"
                | "COMPACT"
                | "LABELS"
                | "SIZE"
                | "VER"
                | "TOKENS"
                | "COST"
        )
    };
    let line_of = |cells: &[String], title: &str, named: bool, header: bool| {
        let mut s = String::new();
        for (c, v) in cells.iter().enumerate() {
            let v = cut(v, widths[c]);
            let pad = widths[c].saturating_sub(crate::width::width(&v));
            let colored = match (c, header) {
                (_, true) => format!("{bold}{v}{reset}"),
                (0, false) => format!("{yellow}{v}{reset}"),
                _ => v,
            };
            if numeric(c) && !header {
                s.push_str(&" ".repeat(pad));
                s.push_str(&colored);
            } else {
                s.push_str(&colored);
                s.push_str(&" ".repeat(pad));
            }
            s.push_str("  ");
        }
        let used: usize = widths.iter().map(|w| w + 2).sum();
        let t = match req.width {
            Some(w) => cut(title, w.saturating_sub(used)),
            None => title.to_string(),
        };
        if header || named {
            s.push_str(&format!("{bold}{t}{reset}"));
        } else {
            s.push_str(&format!("{dim}{t}{reset}"));
        }
        s.truncate(s.trim_end().len());
        // Columns wider than the terminal: the line cut, without colour.
        if let Some(w) = req.width {
            if used > w {
                let plain = strip_ansi(&s);
                s = cut(&plain, w);
            }
        }
        s.push('\n');
        s
    };
    if req.relative && !rows.is_empty() {
        let h: Vec<String> = head.iter().map(|h| h.to_string()).collect();
        out.write_all(line_of(&h, "TITLE", true, true).as_bytes())?;
    }
    for (r, (t, named)) in rows.iter().zip(&titles) {
        out.write_all(line_of(r, t, *named, false).as_bytes())?;
    }
    Ok(())
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(p) = rest.find('\x1b') {
        out.push_str(&rest[..p]);
        let n = crate::width::ansi_code_len(&rest[p..]).max(1);
        rest = rest.get(p + n..).unwrap_or("");
    }
    out.push_str(rest);
    out
}

/// `--older-than` durations: `90d`, `12h`, `30m`, `45s`, `2w`.
pub fn parse_duration(s: &str) -> Option<f64> {
    let s = s.trim();
    let (num, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit() && c != '.')?);
    let n: f64 = num.parse().ok()?;
    let mult = match unit {
        "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        "d" => 86_400.0,
        "w" => 7.0 * 86_400.0,
        _ => return None,
    };
    Some(n * mult * 1000.0)
}

/// A date for `--since`/`--until`: an ISO date or date-time (UTC), or a
/// duration before now (`7d`).
pub fn parse_when(s: &str, now: f64) -> Result<f64> {
    if let Some(d) = parse_duration(s) {
        return Ok(now - d);
    }
    let t = crate::time::parse_iso(s.trim());
    if t.is_nan() {
        return Err(Error::usage(format!(
            "'{s}': not a date (2026-11-01, 2026-11-01T09:30:00Z) or a duration (7d, 12h)"
        )));
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob("parser*", "parser rewrite"));
        assert!(!glob("parser*", "the parser"));
        assert!(glob("*pars?r*", "the parser"));
        assert!(glob("[pq]x", "qx"));
        assert!(!glob("[!pq]x", "qx"));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90d"), Some(90.0 * 86_400_000.0));
        assert_eq!(parse_duration("x"), None);
        assert_eq!(parse_duration("5y"), None);
    }
}
