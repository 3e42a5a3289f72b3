//! The session store as pi 1.6.0 lists it: which files `SessionManager.list`
//! and `listAll` read, in which order, and what `buildSessionInfo` makes of
//! each (a `SessionInfo`), read in parallel and without holding a file.
//!
//! pi reads every line of every file with `readline` (lines end at `\n`,
//! `\r\n` or a lone `\r`), parses each with `JSON.parse`, skips what does not
//! parse, and drops a file whose first value is not a `session` header, that
//! cannot be read, or on which its own code throws (a `message` entry
//! without a message, content that is neither a string nor an array, a
//! `session_info` name that is not a string). The same rules are here, each
//! with the reason, for `pi-ls --verbose`.

use crate::json::{js, scan, Object};
use crate::time::js_date_ms;
use std::fs::Metadata;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// A file pi would read, with the `stat` pi took of it (listAll only).
#[derive(Debug, Clone)]
pub struct Candidate {
    pub path: PathBuf,
    /// `stat` (following links); None when it failed or was not taken.
    pub meta: Option<Metadata>,
}

/// What pi lists of one session (its `SessionInfo`, less `allMessagesText`).
/// Strings are JavaScript strings (UTF-16) so that `JSON.stringify` of
/// them is exact, lone surrogates included.
#[derive(Debug, Clone)]
pub struct Info {
    pub path: PathBuf,
    /// `JSON.stringify(header.id)` (None when the header has no id).
    pub id_json: Option<Vec<u8>>,
    /// The id as text (for people and for lookups).
    pub id: String,
    pub cwd: Vec<u16>,
    pub name: Option<Vec<u16>>,
    /// `JSON.stringify(header.parentSession)`, when present.
    pub parent_json: Option<Vec<u8>>,
    /// header.parentSession when it is a string.
    pub parent: Option<String>,
    /// `new Date(header.timestamp).getTime()` (NaN: an invalid date).
    pub created: f64,
    /// pi's last-activity time (NaN: an invalid date).
    pub modified: f64,
    pub message_count: u64,
    /// The first user text; empty when there is none ("(no messages)").
    pub first_message: Vec<u16>,
    /// The file's size in bytes.
    pub bytes: u64,
    /// The header's version (1 when absent, as pi reads it).
    pub version: u32,
}

impl Info {
    pub fn cwd_string(&self) -> String {
        String::from_utf16_lossy(&self.cwd)
    }
    pub fn name_string(&self) -> Option<String> {
        self.name.as_deref().map(String::from_utf16_lossy)
    }
    pub fn first_message_string(&self) -> String {
        if self.first_message.is_empty() {
            "(no messages)".into()
        } else {
            String::from_utf16_lossy(&self.first_message)
        }
    }

    /// `JSON.stringify` of pi's `SessionInfo` without `allMessagesText`,
    /// without the closing brace (so that more members can follow).
    pub fn write_json_open(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"path\":");
        js::write_str(out, &node_path_string(&self.path));
        if let Some(id) = &self.id_json {
            out.extend_from_slice(b",\"id\":");
            out.extend_from_slice(id);
        }
        out.extend_from_slice(b",\"cwd\":");
        js::write_utf16(out, &self.cwd);
        if let Some(n) = &self.name {
            out.extend_from_slice(b",\"name\":");
            js::write_utf16(out, n);
        }
        if let Some(p) = &self.parent_json {
            out.extend_from_slice(b",\"parentSessionPath\":");
            out.extend_from_slice(p);
        }
        out.extend_from_slice(b",\"created\":");
        write_date(out, self.created);
        out.extend_from_slice(b",\"modified\":");
        write_date(out, self.modified);
        out.extend_from_slice(format!(",\"messageCount\":{}", self.message_count).as_bytes());
        out.extend_from_slice(b",\"firstMessage\":");
        if self.first_message.is_empty() {
            out.extend_from_slice(b"\"(no messages)\"");
        } else {
            js::write_utf16(out, &self.first_message);
        }
    }
}

/// A date as `JSON.stringify` writes it: its ISO string, or `null`.
pub fn write_date(out: &mut Vec<u8>, ms: f64) {
    if ms.is_nan() {
        out.extend_from_slice(b"null");
    } else {
        out.push(b'"');
        out.extend_from_slice(crate::time::iso_string(ms as i64).as_bytes());
        out.push(b'"');
    }
}

/// A path as Node gives it (lossy where it is not UTF-8, as Node reads names).
pub fn node_path_string(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// Node's `path.join(a, b)` (POSIX): the parts joined by `/`, then
/// normalised by their text (`.`, `..`, repeated slashes).
pub fn node_join(a: &Path, b: &str) -> PathBuf {
    let joined = format!("{}/{b}", a.to_string_lossy());
    PathBuf::from(node_normalize(&joined))
}

/// Node's `path.posix.normalize`.
pub fn node_normalize(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let abs = p.starts_with('/');
    let trailing = p.ends_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != "..") {
                    parts.pop();
                } else if !abs {
                    parts.push("..");
                }
            }
            s => parts.push(s),
        }
    }
    let mut out = parts.join("/");
    if out.is_empty() && !abs {
        out.push('.');
    }
    if trailing && !out.is_empty() {
        out.push('/');
    }
    if abs {
        out.insert(0, '/');
    }
    out
}

/// Why a file is not listed.
#[derive(Debug, Clone)]
pub struct Skip {
    pub path: PathBuf,
    pub line: Option<u64>,
    pub reason: String,
}

/// One file read: listed, or skipped with a reason.
pub type Outcome = Result<Info, Skip>;

// ---------------------------------------------------------------------------
// Which files
// ---------------------------------------------------------------------------

/// `listSessionsFromDir(dir)`'s files: the names ending in `.jsonl`, by
/// `localeCompare`, descending. A directory that cannot be read lists nothing.
pub fn dir_candidates(dir: &Path, problems: &mut Vec<String>) -> Vec<Candidate> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) => {
            if e.kind() != std::io::ErrorKind::NotFound {
                problems.push(format!(
                    "{}: {}",
                    dir.display(),
                    crate::error::io_message(&e)
                ));
            }
            return Vec::new();
        }
    };
    let mut names: Vec<String> = rd
        .flatten()
        .map(|d| d.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".jsonl"))
        .collect();
    names.sort_by(|a, b| locale_compare(b, a));
    names
        .into_iter()
        .map(|n| Candidate {
            path: node_join(dir, &n),
            meta: None,
        })
        .collect()
}

/// `listAll()`'s files: `*.jsonl` in every directory (or link) directly
/// under `root`, by modification time, newest first, then by name
/// (`localeCompare`, descending).
pub fn all_candidates(root: &Path, problems: &mut Vec<String>) -> Vec<Candidate> {
    let rd = match std::fs::read_dir(root) {
        Ok(rd) => rd,
        Err(e) => {
            if e.kind() != std::io::ErrorKind::NotFound {
                problems.push(format!(
                    "{}: {}",
                    root.display(),
                    crate::error::io_message(&e)
                ));
            }
            return Vec::new();
        }
    };
    let mut dirs: Vec<PathBuf> = Vec::new();
    for d in rd.flatten() {
        let Ok(ft) = d.file_type() else { continue };
        if ft.is_dir() || ft.is_symlink() {
            dirs.push(node_join(root, &d.file_name().to_string_lossy()));
        }
    }
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    for dir in &dirs {
        match std::fs::read_dir(dir) {
            Ok(rd) => {
                for d in rd.flatten() {
                    let n = d.file_name().to_string_lossy().into_owned();
                    if n.ends_with(".jsonl") {
                        files.push((node_join(dir, &n), n));
                    }
                }
            }
            Err(e) => {
                // A link to a file is no directory: pi passes over it too.
                if e.raw_os_error() != Some(libc::ENOTDIR) {
                    problems.push(format!(
                        "{}: {}",
                        dir.display(),
                        crate::error::io_message(&e)
                    ));
                }
            }
        }
    }
    let mut cands: Vec<(f64, String, Candidate)> = parallel_map(&files, |(p, n)| {
        let meta = std::fs::metadata(p).ok();
        let t = meta.as_ref().map_or(f64::NEG_INFINITY, mtime_ms);
        (
            t,
            n.clone(),
            Candidate {
                path: p.clone(),
                meta,
            },
        )
    });
    cands.sort_by(|a, b| {
        b.0.partial_cmp(&a.0)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| locale_compare(&b.1, &a.1))
    });
    cands.into_iter().map(|c| c.2).collect()
}

/// `stats.mtime.getTime()`: Node's `mtimeMs` cut to whole milliseconds.
pub fn mtime_ms(m: &Metadata) -> f64 {
    use std::os::unix::fs::MetadataExt;
    (m.mtime() as f64 * 1000.0 + m.mtime_nsec() as f64 / 1e6).trunc()
}

/// pi's `sortSessionInfos`: newest `modified` first, a stable sort (equal
/// times keep the order the files were read in). An invalid date, which
/// JavaScript's sort places unpredictably, goes last.
pub fn sort_infos(infos: &mut [Info]) {
    infos.sort_by(|a, b| match (a.modified.is_nan(), b.modified.is_nan()) {
        (false, false) => b
            .modified
            .partial_cmp(&a.modified)
            .unwrap_or(std::cmp::Ordering::Equal),
        (x, y) => x.cmp(&y),
    });
}

/// `String.prototype.localeCompare` in the root locale, for the names pi
/// compares (ASCII file names): ICU's order of punctuation, then digits,
/// then letters without regard to case; then lower case before upper case.
/// Other characters follow, by code point.
pub fn locale_compare(a: &str, b: &str) -> std::cmp::Ordering {
    const ORDER: &[u8] =
        b" _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789aAbBcCdDeEfFgGhHiIjJkKlLmMnNoOpPqQrRsStTuUvVwWxXyYzZ";
    fn primary(c: char) -> u32 {
        if c.is_ascii() && !c.is_ascii_control() {
            let l = c.to_ascii_lowercase() as u8;
            match ORDER.iter().position(|&o| o == l) {
                Some(p) => p as u32,
                None => c as u32,
            }
        } else {
            0x100 + c as u32
        }
    }
    let pa = a.chars().map(primary);
    let pb = b.chars().map(primary);
    pa.cmp(pb).then_with(|| {
        let ta = a.chars().map(|c| (c.is_ascii_uppercase(), c));
        let tb = b.chars().map(|c| (c.is_ascii_uppercase(), c));
        ta.cmp(tb)
    })
}

// ---------------------------------------------------------------------------
// Parallel reading
// ---------------------------------------------------------------------------

/// `f` over `items` on every core (plain threads), results in item order.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 64)
        .min(items.len().max(1));
    if threads <= 1 {
        return items.iter().map(&f).collect();
    }
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::with_capacity(items.len()));
    std::thread::scope(|sc| {
        for _ in 0..threads {
            sc.spawn(|| {
                let mut mine = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= items.len() {
                        break;
                    }
                    mine.push((i, f(&items[i])));
                }
                if let Ok(mut o) = out.lock() {
                    o.extend(mine);
                }
            });
        }
    });
    let mut v = out.into_inner().unwrap_or_else(|e| e.into_inner());
    v.sort_by_key(|x| x.0);
    v.into_iter().map(|x| x.1).collect()
}

/// Read every candidate as pi's `buildSessionInfo` does, in parallel.
pub fn read_all(cands: &[Candidate]) -> Vec<Outcome> {
    parallel_map(cands, |c| {
        BUF.with(|b| {
            let (b, checker) = &mut *b.borrow_mut();
            session_info_with(&c.path, c.meta.clone(), b, checker)
        })
    })
}

thread_local! {
    static BUF: std::cell::RefCell<(Vec<u8>, js::Checker)> =
        std::cell::RefCell::new((Vec::new(), js::Checker::new()));
}

const CHUNK: usize = 256 << 10;

/// pi's `buildSessionInfo(path)`: the session's `SessionInfo`, or why pi
/// lists nothing for the file. `buf` is a reusable read buffer.
pub fn session_info(path: &Path, meta: Option<Metadata>, buf: &mut Vec<u8>) -> Outcome {
    session_info_with(path, meta, buf, &mut js::Checker::new())
}

/// [`session_info`] with a reusable checker for the quick read of lines.
pub fn session_info_with(
    path: &Path,
    meta: Option<Metadata>,
    buf: &mut Vec<u8>,
    checker: &mut js::Checker,
) -> Outcome {
    let skip = |line: Option<u64>, reason: String| Skip {
        path: path.to_path_buf(),
        line,
        reason,
    };
    let meta = match meta {
        Some(m) => m,
        None => std::fs::metadata(path).map_err(|e| skip(None, crate::error::io_message(&e)))?,
    };
    let mut f = std::fs::File::open(path).map_err(|e| skip(None, crate::error::io_message(&e)))?;
    let mut st = State {
        checker: std::mem::take(checker),
        ..State::default()
    };
    let r = read_lines(path, &mut f, &mut st, buf);
    *checker = std::mem::take(&mut st.checker);
    r?;

    finish(path, &meta, st)
}

/// Every line of `f` through `st`.
fn read_lines(
    path: &Path,
    f: &mut std::fs::File,
    st: &mut State,
    buf: &mut Vec<u8>,
) -> Result<(), Skip> {
    let skip = |line: Option<u64>, reason: String| Skip {
        path: path.to_path_buf(),
        line,
        reason,
    };
    let limit = crate::session::max_line() as usize;
    if buf.len() != CHUNK {
        buf.clear();
        buf.resize(CHUNK, 0);
    }
    // Bytes of a line begun in an earlier chunk.
    let mut pending: Vec<u8> = Vec::new();
    let mut line_no: u64 = 0;
    loop {
        let n = match f.read(buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(skip(None, crate::error::io_message(&e))),
        };
        let chunk = &buf[..n];
        let mut start = 0;
        while let Some(p) = memchr::memchr2(b'\n', b'\r', &chunk[start..]) {
            let end = start + p;
            line_no += 1;
            let done = if pending.is_empty() {
                st.line(&chunk[start..end])
            } else {
                pending.extend_from_slice(&chunk[start..end]);
                let r = st.line(&pending);
                pending.clear();
                r
            };
            match done {
                Step::Go => {}
                Step::Stop(reason) => return Err(skip(Some(line_no), reason)),
            }
            start = end + 1;
        }
        if start < n {
            if pending.len() + (n - start) > limit {
                return Err(skip(
                    Some(line_no + 1),
                    format!("line longer than {limit} bytes"),
                ));
            }
            pending.extend_from_slice(&chunk[start..n]);
        }
        if !st.wanted() {
            break;
        }
    }
    if !pending.is_empty() {
        line_no += 1;
        if let Step::Stop(reason) = st.line(&pending) {
            return Err(skip(Some(line_no), reason));
        }
    }
    Ok(())
}

/// The `SessionInfo` of what `st` read.
fn finish(path: &Path, meta: &Metadata, st: State) -> Outcome {
    let Some(h) = st.header else {
        return Err(Skip {
            path: path.to_path_buf(),
            line: None,
            reason: if st.not_session {
                "the first JSON value is not a session header".into()
            } else {
                "no session header (an empty file, or no line is JSON)".into()
            },
        });
    };
    let modified = match st.last_activity {
        Some(t) if t > 0.0 => time_clip(t),
        _ if !h.header_time.is_nan() => h.header_time,
        _ => mtime_ms(meta),
    };
    Ok(Info {
        path: path.to_path_buf(),
        id_json: h.id_json,
        id: h.id,
        cwd: h.cwd,
        name: st.name,
        parent_json: h.parent_json,
        parent: h.parent,
        created: h.created,
        modified,
        message_count: st.message_count,
        first_message: st.first_message,
        bytes: meta.len(),
        version: h.version,
    })
}

fn time_clip(t: f64) -> f64 {
    if !t.is_finite() || t.abs() > 8.64e15 {
        f64::NAN
    } else {
        t.trunc() + 0.0
    }
}

struct HeaderInfo {
    id_json: Option<Vec<u8>>,
    id: String,
    cwd: Vec<u16>,
    parent_json: Option<Vec<u8>>,
    parent: Option<String>,
    created: f64,
    header_time: f64,
    version: u32,
}

#[derive(Default)]
struct State {
    header: Option<HeaderInfo>,
    not_session: bool,
    name: Option<Vec<u16>>,
    message_count: u64,
    last_activity: Option<f64>,
    first_message: Vec<u16>,
    checker: js::Checker,
    /// A reusable list of members.
    members: Vec<scan::Member>,
}

const BAD_CONTENT: &str =
    "message content that is neither a string nor an array (pi's listing fails on it: TypeError)";

enum Step {
    Go,
    Stop(String),
}

/// Whether a valid JSON value that is not an object is truthy in JavaScript.
fn truthy_scalar(v: &[u8]) -> bool {
    match v.first() {
        Some(b'n') | Some(b'f') => false,
        Some(b'"') => v.len() > 2,
        Some(b'-' | b'0'..=b'9') => std::str::from_utf8(v)
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .is_none_or(|n| n != 0.0),
        _ => true,
    }
}

fn is_number(v: &[u8]) -> bool {
    matches!(v.first(), Some(b'-' | b'0'..=b'9'))
}

fn number(v: &[u8]) -> f64 {
    std::str::from_utf8(v)
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(f64::NAN)
}

fn str_is(v: &[u8], want: &str) -> bool {
    v.first() == Some(&b'"') && js::decode_string(v, 0..v.len()) == want
}

fn canonical(text: &[u8], r: std::ops::Range<usize>) -> Vec<u8> {
    js::canonical_vec(text, r.clone()).unwrap_or_else(|_| text[r].to_vec())
}

/// JavaScript's `String(v)` for the JSON value `v`, as `Array.join` uses it
/// (`null` gives "").
fn js_to_string(text: &[u8], r: std::ops::Range<usize>, out: &mut Vec<u16>) {
    let v = &text[r.clone()];
    match v.first() {
        Some(b'"') => out.extend(js::decode_utf16(text, r)),
        Some(b'n') => {}
        Some(b't') => out.extend("true".encode_utf16()),
        Some(b'f') => out.extend("false".encode_utf16()),
        Some(b'{') => out.extend("[object Object]".encode_utf16()),
        Some(b'[') => {
            if let Ok(els) = scan::elements(text, r) {
                for (k, e) in els.into_iter().enumerate() {
                    if k > 0 {
                        out.push(u16::from(b','));
                    }
                    js_to_string(text, e, out);
                }
            }
        }
        _ => out.extend(js::number_to_js(number(v)).encode_utf16()),
    }
}

impl State {
    /// Whether more lines can change the answer (always: pi reads to the end).
    fn wanted(&self) -> bool {
        !self.not_session
    }

    fn line(&mut self, line: &[u8]) -> Step {
        if self.not_session {
            return Step::Go;
        }
        if line.iter().all(|b| matches!(b, b' ' | b'\t' | 0x0b | 0x0c)) {
            return Step::Go;
        }
        // A line pi wrote (compact) is read in one quick pass, and what it
        // holds is then found by its quotes and brackets alone; any other
        // line the long way.
        let quick = match self.checker.valid_object(line) {
            Some(m) => {
                let mut v = std::mem::take(&mut self.members);
                v.clear();
                v.extend_from_slice(m);
                Some(v)
            }
            None => None,
        };
        let fast = quick.is_some();
        let (range, members) = match quick {
            Some(m) => (0..line.len(), m),
            None => match scan::validate_object(line) {
                Err(_) => return Step::Go,
                Ok(Some(x)) => x,
                Ok(None) => {
                    let v = trim_json_ws(line);
                    if truthy_scalar(v) && self.header.is_none() {
                        self.not_session = true;
                    }
                    return Step::Go;
                }
            },
        };
        let obj = Object {
            text: line,
            range,
            members,
        };
        let step = self.entry(&obj, fast);
        if fast {
            self.members = obj.members;
        }
        step
    }

    fn entry(&mut self, obj: &Object<'_>, fast: bool) -> Step {
        let line = obj.text;
        let ty = obj.raw("type");
        if self.header.is_none() {
            if !ty.is_some_and(|t| str_is(t, "session")) {
                self.not_session = true;
                return Step::Go;
            }
            self.header = Some(header_info(obj));
            return Step::Go;
        }
        let Some(ty) = ty else { return Step::Go };
        if str_is(ty, "session_info") {
            match obj.get("name") {
                None => self.name = None,
                Some(r) => match line[r.start] {
                    b'n' => self.name = None,
                    b'"' => {
                        let s = js::decode_utf16(line, r);
                        let t = js::trim_utf16(&s);
                        self.name = (!t.is_empty()).then(|| t.to_vec());
                    }
                    _ => {
                        return Step::Stop(
                            "a session_info name that is not a string (pi's listing fails on it: TypeError)"
                                .into(),
                        )
                    }
                },
            }
            return Step::Go;
        }
        if !str_is(ty, "message") {
            return Step::Go;
        }
        self.message_count += 1;
        let Some(mr) = obj.get("message").filter(|r| line[r.start] != b'n') else {
            return Step::Stop(
                "a \"message\" entry without a message (pi's listing fails on it: TypeError)"
                    .into(),
            );
        };
        if line[mr.start] != b'{' {
            return Step::Go;
        }
        if fast {
            if let Some(q) = quick_message(&line[mr.clone()]) {
                let user = q.role == b"user";
                if !user && q.role != b"assistant" {
                    return Step::Go;
                }
                if !(user && self.first_message.is_empty()) {
                    let t = number(q.timestamp);
                    if !t.is_nan() {
                        self.last_activity = Some(self.last_activity.unwrap_or(0.0).max(t));
                    }
                    if !matches!(q.content, b'"' | b'[') {
                        return Step::Stop(BAD_CONTENT.into());
                    }
                    return Step::Go;
                }
            }
        }
        let msg = if fast {
            raw::object(line, mr)
        } else {
            match Object::at(line, mr) {
                Ok(m) => m,
                Err(_) => return Step::Go,
            }
        };
        let Some(role) = msg.raw("role").filter(|r| r.first() == Some(&b'"')) else {
            return Step::Go;
        };
        let Some(content) = msg.get("content") else {
            return Step::Go;
        };
        let user = str_is(role, "user");
        if !user && !str_is(role, "assistant") {
            return Step::Go;
        }
        let t = match msg.raw("timestamp").filter(|v| is_number(v)) {
            Some(v) => number(v),
            None => js_date_ms(obj.raw("timestamp").unwrap_or(b"undefined")),
        };
        if !t.is_nan() {
            self.last_activity = Some(self.last_activity.unwrap_or(0.0).max(t));
        }
        let want_text = user && self.first_message.is_empty();
        match line[content.start] {
            b'"' => {
                if want_text {
                    self.first_message = js::decode_utf16(line, content);
                }
            }
            b'[' => {
                let blocks = if fast {
                    raw::elements(line, content)
                } else {
                    match scan::elements(line, content) {
                        Ok(b) => b,
                        Err(_) => return Step::Go,
                    }
                };
                let mut text: Vec<u16> = Vec::new();
                let mut first = true;
                for b in blocks {
                    match line[b.start] {
                        b'n' => {
                            return Step::Stop(
                                "a null content block (pi's listing fails on it: TypeError)".into(),
                            )
                        }
                        b'{' if want_text => {
                            let block = if fast {
                                raw::object(line, b)
                            } else {
                                match Object::at(line, b) {
                                    Ok(b) => b,
                                    Err(_) => continue,
                                }
                            };
                            if !block.raw("type").is_some_and(|t| str_is(t, "text")) {
                                continue;
                            }
                            if !first {
                                text.push(u16::from(b' '));
                            }
                            first = false;
                            if let Some(tr) = block.get("text") {
                                js_to_string(line, tr, &mut text);
                            }
                        }
                        _ => {}
                    }
                }
                if want_text {
                    self.first_message = text;
                }
            }
            _ => return Step::Stop(BAD_CONTENT.into()),
        }
        Step::Go
    }
}

/// What a message object holds for the listing, read without walking it.
struct Quick<'a> {
    role: &'a [u8],
    /// The first byte of `content` (user and assistant messages).
    content: u8,
    /// The raw number of `timestamp` (user and assistant messages).
    timestamp: &'a [u8],
}

/// The message object `m` (valid, compact JSON) read the quick way when it
/// is laid out as pi writes it: `{"role":"R",` first (R without escapes),
/// for a user or assistant message `"content":` next and
/// `,"timestamp":NUMBER}` last (the last member is what `JSON.parse`
/// keeps). One search over the rest of the text then proves that no other
/// member can be `role` or `content`: no `\u` escape anywhere (a key that
/// decodes to either is written literally or with one), no second
/// `"role"` or `"content"`, and, when content is an array, no `null` at
/// all (so no null block). A false hit (the words inside a string) only
/// means the long way. The walk would skip every string one quote at a
/// time; this is one literal search over text in cache.
fn quick_message(m: &[u8]) -> Option<Quick<'_>> {
    // one regex a thread: a shared one makes every other thread take its
    // search cache from a locked pool
    thread_local! {
        static HITS: Option<regex::bytes::Regex> =
            regex::bytes::Regex::new(r#"\\u|"role"|"content"|null"#).ok();
    }
    HITS.with(|hits| quick_message_with(m, hits.as_ref()?))
}

fn quick_message_with<'m>(m: &'m [u8], hits: &regex::bytes::Regex) -> Option<Quick<'m>> {
    let rest = m.strip_prefix(b"{\"role\":\"")?;
    let end = memchr::memchr2(b'"', b'\\', rest)?;
    if rest[end] != b'"' {
        return None;
    }
    let role = &rest[..end];
    let after = &rest[end + 1..];
    let ua = role == b"user" || role == b"assistant";
    let (mut content, mut timestamp) = (0u8, &b""[..]);
    if ua {
        content = *after.strip_prefix(b",\"content\":")?.first()?;
        let body = m.strip_suffix(b"}")?;
        let digits = body
            .iter()
            .rev()
            .take_while(|b| matches!(b, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-'))
            .count();
        let head = body[..body.len() - digits].strip_suffix(b",\"timestamp\":")?;
        if digits == 0 || head.len() < 9 {
            return None;
        }
        timestamp = &body[body.len() - digits..];
    }
    let mut contents = 0;
    for h in hits.find_iter(after) {
        match h.as_bytes() {
            b"\"content\"" => {
                contents += 1;
                if ua && contents > 1 {
                    return None;
                }
            }
            b"null" => {
                if ua && content == b'[' {
                    return None;
                }
            }
            _ => return None,
        }
    }
    Some(Quick {
        role,
        content,
        timestamp,
    })
}

fn trim_json_ws(v: &[u8]) -> &[u8] {
    let s = v
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .unwrap_or(v.len());
    let e = v
        .iter()
        .rposition(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .map_or(s, |e| e + 1);
    &v[s..e.max(s)]
}

fn header_info(obj: &Object<'_>) -> HeaderInfo {
    let text = obj.text;
    let id_r = obj.get("id");
    let id = match id_r.clone() {
        Some(r) if text[r.start] == b'"' => js::decode_string(text, r).into_owned(),
        Some(r) => String::from_utf8_lossy(&text[r]).into_owned(),
        None => String::new(),
    };
    let cwd = match obj.get("cwd") {
        Some(r) if text[r.start] == b'"' => js::decode_utf16(text, r),
        _ => Vec::new(),
    };
    let parent_r = obj.get("parentSession");
    let ts = obj.raw("timestamp");
    let version = match obj.raw("version") {
        None => 1,
        Some(v) if is_number(v) => {
            let n = number(v);
            if n >= 3.0 {
                3
            } else if n >= 2.0 {
                2
            } else {
                1
            }
        }
        Some(_) => 3,
    };
    HeaderInfo {
        id_json: id_r.map(|r| canonical(text, r)),
        id,
        cwd,
        parent: parent_r
            .clone()
            .filter(|r| text[r.start] == b'"')
            .map(|r| js::decode_string(text, r).into_owned()),
        parent_json: parent_r.map(|r| canonical(text, r)),
        created: js_date_ms(ts.unwrap_or(b"undefined")),
        header_time: match ts {
            Some(v) if v.first() == Some(&b'"') => js_date_ms(v),
            _ => f64::NAN,
        },
        version,
    }
}

/// Spans inside JSON text that is already known to be valid (a line the
/// quick check of [`js::Checker::valid_object`] took): values are skipped by
/// their quotes and brackets alone, a string by the next quote that no odd
/// run of backslashes escapes (one `memchr` a quote), so that the big
/// strings of a line are passed over at `memchr`'s speed. On text that is
/// not valid JSON the spans are meaningless but nothing panics.
pub mod raw {
    use crate::json::scan::Member;
    use std::ops::Range;

    /// The index after the string whose opening quote is at `open`.
    #[inline]
    pub fn string_end(t: &[u8], open: usize) -> usize {
        let mut p = open + 1;
        while let Some(q) = t.get(p..).and_then(|r| memchr::memchr(b'"', r)) {
            let q = p + q;
            let run = t[open + 1..q]
                .iter()
                .rev()
                .take_while(|&&b| b == b'\\')
                .count();
            if run % 2 == 0 {
                return q + 1;
            }
            p = q + 1;
        }
        t.len()
    }

    #[inline]
    fn ws(t: &[u8], mut p: usize) -> usize {
        while matches!(t.get(p), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            p += 1;
        }
        p
    }

    /// The index after the value that starts at `start`.
    pub fn value_end(t: &[u8], start: usize) -> usize {
        let mut p = start;
        let mut depth = 0usize;
        loop {
            match t.get(p) {
                None => return t.len(),
                Some(b'"') => {
                    p = string_end(t, p);
                    if depth == 0 {
                        return p;
                    }
                }
                Some(b'{' | b'[') => {
                    depth += 1;
                    p += 1;
                }
                Some(b'}' | b']') => {
                    p += 1;
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return p;
                    }
                }
                Some(b',' | b':' | b' ' | b'\t' | b'\n' | b'\r') if depth > 0 => p += 1,
                Some(_) => {
                    // a number or a literal
                    while t.get(p).is_some_and(|b| {
                        !matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                    }) {
                        p += 1;
                    }
                    if depth == 0 {
                        return p;
                    }
                }
            }
        }
    }

    /// The members of the object at `t[range]`, in order, duplicates
    /// included (as [`crate::json::scan::members`] gives them).
    pub fn members(t: &[u8], range: Range<usize>, out: &mut Vec<Member>) {
        out.clear();
        let end = range.end.min(t.len());
        let mut p = ws(t, range.start + 1);
        while p < end && t[p] == b'"' {
            let k = string_end(t, p);
            let v = ws(t, ws(t, k) + 1);
            let ve = value_end(t, v);
            out.push(Member {
                key: p..k,
                value: v..ve,
            });
            p = ws(t, ve);
            if t.get(p) != Some(&b',') {
                break;
            }
            p = ws(t, p + 1);
        }
    }

    /// The elements of the array at `t[range]`.
    pub fn elements(t: &[u8], range: Range<usize>) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        let end = range.end.min(t.len());
        let mut p = ws(t, range.start + 1);
        while p < end && t[p] != b']' {
            let e = value_end(t, p);
            out.push(p..e);
            p = ws(t, e);
            if t.get(p) != Some(&b',') {
                break;
            }
            p = ws(t, p + 1);
        }
        out
    }

    /// `t[range]` as an [`crate::json::Object`].
    pub fn object(t: &[u8], range: Range<usize>) -> crate::json::Object<'_> {
        let mut members = Vec::new();
        self::members(t, range.clone(), &mut members);
        crate::json::Object {
            text: t,
            range,
            members,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_like_node() {
        assert_eq!(
            node_join(Path::new("/a/b/"), "c.jsonl"),
            PathBuf::from("/a/b/c.jsonl")
        );
        assert_eq!(node_join(Path::new("./x//y/.."), "c"), PathBuf::from("x/c"));
        assert_eq!(node_join(Path::new("../x"), "c"), PathBuf::from("../x/c"));
    }

    /// Compact valid lines with escapes, nesting, numbers and duplicate keys.
    const LINES: &[&str] = &[
        r#"{"a":1,"b":"x\"y\\","c":[1,{"d":null},"\\\"",[]],"e":{}}"#,
        r#"{"type":"message","message":{"role":"user","content":[{"type":"text","text":"a\nb \"q\" \\n"},null],"timestamp":17}}"#,
        r#"{"k":"\u0041\\","k":-1.5e+3,"z":[true,false,null,"}",{"]":"["}]}"#,
        r#"{"role":"toolResult","content":[{"type":"text","text":"x"}],"role":"user"}"#,
        r#"{}"#,
    ];

    #[test]
    fn raw_spans_are_the_scanners() {
        fn same(text: &[u8], r: std::ops::Range<usize>) {
            match text[r.start] {
                b'{' => {
                    let want = scan::members(text, r.clone()).unwrap();
                    let mut got = Vec::new();
                    raw::members(text, r, &mut got);
                    assert_eq!(got, want, "{}", String::from_utf8_lossy(text));
                    for m in want {
                        same(text, m.value);
                    }
                }
                b'[' => {
                    let want = scan::elements(text, r.clone()).unwrap();
                    assert_eq!(raw::elements(text, r), want);
                    for e in want {
                        same(text, e);
                    }
                }
                _ => assert_eq!(raw::value_end(text, r.start), r.end),
            }
        }
        for l in LINES {
            let t = l.as_bytes();
            assert!(js::Checker::new().valid_object(t).is_some(), "{l}");
            same(t, 0..t.len());
        }
    }

    #[test]
    fn quick_message_only_when_exact() {
        let q = |m: &str| {
            quick_message(m.as_bytes()).map(|q| (q.role.to_vec(), q.content, q.timestamp.to_vec()))
        };
        assert_eq!(
            q(r#"{"role":"user","content":"hi","timestamp":5}"#),
            Some((b"user".to_vec(), b'"', b"5".to_vec()))
        );
        assert_eq!(
            q(
                r#"{"role":"assistant","content":[{"type":"text","text":"x"}],"usage":{},"timestamp":1.5e3}"#
            ),
            Some((b"assistant".to_vec(), b'[', b"1.5e3".to_vec()))
        );
        // a second role, an escape, a null block, a late content, no
        // timestamp last: the long way
        for m in [
            r#"{"role":"toolResult","content":[],"role":"user"}"#,
            r#"{"role":"toolResult","content":[],"r\u006fle":"user"}"#,
            r#"{"role":"user","content":[null],"timestamp":5}"#,
            r#"{"role":"user","content":"a","content":[],"timestamp":5}"#,
            r#"{"role":"user","content":"a","timestamp":5,"x":1}"#,
            r#"{"role":"user","content":"a","timestamp":"5"}"#,
            r#"{"role":"us\"er","content":"a","timestamp":5}"#,
        ] {
            assert_eq!(q(m), None, "{m}");
        }
        assert_eq!(
            q(r#"{"role":"toolResult","content":[{"type":"text","text":"null"}]}"#).map(|x| x.0),
            Some(b"toolResult".to_vec())
        );
    }

    #[test]
    fn compares_like_icu() {
        let mut v = vec!["ab", "aB", "Ab", "a-b", "a_b", "a1", "a.b", "a"];
        v.sort_by(|a, b| locale_compare(a, b));
        assert_eq!(v, ["a", "a_b", "a-b", "a.b", "a1", "ab", "aB", "Ab"]);
    }
}
