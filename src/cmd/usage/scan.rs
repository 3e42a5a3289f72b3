//! Reading the usage of session files: the lines that hold a `usage`
//! object, the numbers in it (with a warning for each that is not counted
//! as written), the header of each file, and the files under the roots
//! asked for, read on every core.

use super::record::{FileUsage, Source};
use super::sum::Amounts;
use crate::json::{js, Object};
use crate::store;
use std::io::Read;
use std::ops::Range;
use std::path::Path;

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
                let n: f64 = if raw.len() <= 15 && raw.iter().all(u8::is_ascii_digit) {
                    // a whole number below 10¹⁵: exact, as parsing gives it
                    raw.iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0')) as f64
                } else {
                    std::str::from_utf8(raw)
                        .ok()
                        .and_then(|s| s.parse().ok())
                        .unwrap_or(f64::NAN)
                };
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

/// The header of a session file's first line: (id, cwd, timestamp,
/// parentSession); None when it is not a session header.
pub(super) fn header_of(line: &[u8]) -> Option<(String, String, String, Option<String>)> {
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

/// Why a file gave nothing: the line it is about (a line too long), and
/// the words.
#[derive(Debug)]
pub(crate) struct NotRead {
    pub line: Option<u64>,
    pub why: String,
}

impl From<String> for NotRead {
    fn from(why: String) -> Self {
        NotRead { line: None, why }
    }
}

impl From<crate::error::Error> for NotRead {
    fn from(e: crate::error::Error) -> Self {
        NotRead {
            line: e.diag.at.and_then(|a| a.line),
            why: e.diag.message,
        }
    }
}

/// All of `path` into `buf`, with no line longer than
/// [`crate::session::max_line`]: a file that is not a regular one (a FIFO,
/// a device) read as a stream that stops at the first such line; a regular
/// file checked first only when it is larger than the limit (no smaller
/// one can hold such a line).
fn read_whole(path: &Path, buf: &mut Vec<u8>) -> std::result::Result<(), NotRead> {
    let name = crate::name::kept_path(path);
    let io = |e: std::io::Error| NotRead::from(crate::error::io_message(&e));
    let f = std::fs::File::open(path).map_err(io)?;
    let meta = f.metadata().map_err(io)?;
    if !meta.is_file() {
        *buf = crate::session::read_stream(&mut &f, &name)?;
        return Ok(());
    }
    if meta.len() > crate::session::max_line() {
        crate::session::check_line_lengths(&f, &name)?;
    }
    (&f).read_to_end(buf).map_err(io)?;
    Ok(())
}

/// Read one session file; Err when it is not a session file, cannot be
/// read or has a line too long.
pub(crate) fn scan_file(path: &Path, with_tree: bool) -> std::result::Result<FileUsage, NotRead> {
    thread_local! {
        static BUF: std::cell::RefCell<(Vec<u8>, js::Checker)> =
            std::cell::RefCell::new((Vec::new(), js::Checker::new()));
    }
    BUF.with(|b| {
        let (buf, checker) = &mut *b.borrow_mut();
        buf.clear();
        read_whole(path, buf)?;
        let r = scan_bytes_with(path, buf, with_tree, checker).map_err(NotRead::from);
        if buf.capacity() > 64 << 20 {
            // keep no more than a usual file's worth between files
            *buf = Vec::new();
        }
        r
    })
}

/// The lines that hold `"usage"` (every line with `with_tree`), with the
/// offset each starts at: one `memmem` search over the file, the line
/// around each hit.
fn usage_lines<'b>(bytes: &'b [u8], with_tree: bool, mut f: impl FnMut(usize, &'b [u8], bool)) {
    let first_end = memchr::memchr(b'\n', bytes).map_or(bytes.len(), |i| i + 1);
    let finder = memchr::memmem::Finder::new(b"\"usage\"");
    if with_tree {
        let mut start = first_end;
        for line in bytes[first_end..].split(|&b| b == b'\n') {
            f(start, line, finder.find(line).is_some());
            start += line.len() + 1;
        }
        return;
    }
    let mut pos = first_end.min(bytes.len());
    while let Some(h) = finder.find(&bytes[pos..]) {
        let h = pos + h;
        let start = memchr::memrchr(b'\n', &bytes[pos..h]).map_or(pos, |i| pos + i + 1);
        let end = memchr::memchr(b'\n', &bytes[h..]).map_or(bytes.len(), |i| h + i);
        f(start, &bytes[start..end], true);
        if end >= bytes.len() {
            break;
        }
        pos = end + 1;
    }
}

/// Line numbers, counted only when one is asked for (a warning, a version
/// 1 id): the line ends before an offset, counted on from the last offset
/// asked for (offsets are asked for in file order).
struct LineNumbers<'b> {
    bytes: &'b [u8],
    counted: std::cell::Cell<usize>,
    ends: std::cell::Cell<u64>,
}

impl<'b> LineNumbers<'b> {
    fn new(bytes: &'b [u8]) -> Self {
        LineNumbers {
            bytes,
            counted: 0.into(),
            ends: 0.into(),
        }
    }

    /// The number of the line that starts at `start`.
    fn at(&self, start: usize) -> u64 {
        let start = start.min(self.bytes.len());
        if start < self.counted.get() {
            self.counted.set(0);
            self.ends.set(0);
        }
        let more = memchr::memchr_iter(b'\n', &self.bytes[self.counted.get()..start]).count();
        self.ends.set(self.ends.get() + more as u64);
        self.counted.set(start);
        self.ends.get() + 1
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

fn scan_bytes_with(
    path: &Path,
    bytes: &[u8],
    with_tree: bool,
    checker: &mut js::Checker,
) -> std::result::Result<FileUsage, String> {
    let mut warnings: Vec<(u64, String)> = Vec::new();
    let mut warn = |line_no: u64, what: &str| warnings.push((line_no, what.to_string()));
    let (mut fu, v1) = file_usage(path, bytes)?;
    let mut prev_id: Option<String> = None;
    let mut skel: Vec<u8> = Vec::new();
    let lines = LineNumbers::new(bytes);
    usage_lines(bytes, with_tree, |start, line, has_usage| {
        if crate::json::js::string::is_blank(line) {
            return;
        }
        let line_no = || lines.at(start);
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
                // Worded as the other tools word it (session::load).
                Ok(None) => {
                    if has_usage {
                        warn(
                            line_no(),
                            "valid JSON but not an object; skipped, as pi does",
                        );
                    }
                    return;
                }
                Err(e) => {
                    if has_usage {
                        let what = e.line_problem(line.len());
                        warn(line_no(), &format!("{what}; skipped, as pi does"));
                    }
                    return;
                }
            },
        };
        let id = if v1 {
            crate::migrate::v1_id(&fu.session_id, line_no(), 0)
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
            fu.tree_text.add(line_no(), &obj, message.as_ref(), fast);
        }
        if has_usage {
            count(&mut fu, &obj, message, fast, &id, |what| {
                warn(line_no(), what)
            });
        }
    });
    fu.warnings = warnings;
    // kept until every file is read: no room to spare
    fu.shrink();
    Ok(fu)
}

/// A file's usage with its header's fields, and whether it is a version 1
/// file (no `version`: its ids are made as pi-migrate makes them); or why
/// it is not a session file.
fn file_usage(path: &Path, bytes: &[u8]) -> std::result::Result<(FileUsage, bool), String> {
    // pi's loader passes over lines blank to `trim()` before the header.
    let first = bytes
        .split(|&b| b == b'\n')
        .find(|l| !crate::json::js::string::is_blank(l))
        .unwrap_or_default();
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
    let mut fu = FileUsage::default();
    fu.path = path.to_path_buf();
    fu.session_id = session_id;
    fu.cwd = cwd;
    fu.header_time = header_time;
    fu.parent_session = parent_session;
    fu.imported = Object::parse_line(first)
        .ok()
        .flatten()
        .is_some_and(|o| o.raw("importedFrom").is_some());
    Ok((fu, version.is_none()))
}

/// Count the usage of entry `obj` (`message`: its message, when the quick
/// check cut it out), with entry id `id`, into `fu`; `warn` says what is
/// wrong with it.
#[inline]
fn count(
    fu: &mut FileUsage,
    obj: &Object<'_>,
    message: Option<Object<'_>>,
    fast: bool,
    id: &str,
    mut warn: impl FnMut(&str),
) {
    let ty = obj.str("type");
    let (source, holder) = match ty.as_deref() {
        Some("message") => {
            match message.or_else(|| crate::store::raw::sub_object(obj, "message", fast)) {
                Some(m) if m.str("role").as_deref() == Some("assistant") => (Source::Assistant, m),
                _ => return,
            }
        }
        Some("usage") => (Source::Usage, obj.clone()),
        Some("compaction") => (Source::Compaction, obj.clone()),
        Some("branch_summary") => (Source::BranchSummary, obj.clone()),
        _ => return,
    };
    let Some(usage) = crate::store::raw::sub_object(&holder, "usage", fast) else {
        if holder.raw("usage").is_some_and(|r| r != b"null") {
            warn("usage is not an object; not counted");
        }
        return;
    };
    let mut problems = Vec::new();
    let amounts = amounts_of(&usage, &mut problems);
    for p in problems {
        warn(&p);
    }
    let time_ms = record_time(obj, &holder, source, &fu.header_time, &mut warn);
    fu.push(
        time_ms,
        &amounts,
        id,
        &holder.str("model").unwrap_or_default(),
        &holder.str("provider").unwrap_or_default(),
        source,
    );
}

/// A timestamp's milliseconds (JavaScript's `new Date(v)`), None when it
/// gives no time: missing, not a date, or `null`, `true`, `false` or 0,
/// which `new Date` reads as 1970, a time nobody recorded.
fn usable_time(raw: Option<&[u8]>) -> Option<f64> {
    let raw = raw?;
    if matches!(raw.first(), Some(b'n' | b't' | b'f')) {
        return None;
    }
    let ms = crate::time::js_date_ms(raw);
    let number = matches!(raw.first(), Some(b'-' | b'0'..=b'9'));
    let none = ms.is_nan() || (number && ms == 0.0);
    (!none).then_some(ms)
}

/// A timestamp's JSON text for a warning: cut, and "missing".
fn shown_time(raw: Option<&[u8]>) -> String {
    match raw {
        None => "missing".into(),
        Some(r) if r.len() > 40 => format!("{}...", String::from_utf8_lossy(&r[..40])),
        Some(r) => String::from_utf8_lossy(r).into_owned(),
    }
}

/// When a record was made: the entry's `timestamp`, as ccusage dates it;
/// where that gives no time, an assistant message's own `timestamp`, then
/// the session header's, each fallback said (`warn`, FILE:LINE); NaN (the
/// "unknown" row, said too) when none gives a time.
fn record_time(
    obj: &Object<'_>,
    holder: &Object<'_>,
    source: Source,
    header_time: &str,
    warn: &mut impl FnMut(&str),
) -> f64 {
    let entry = obj.raw("timestamp");
    if let Some(t) = usable_time(entry) {
        return t;
    }
    let message = match source {
        Source::Assistant => holder.raw("timestamp"),
        _ => None,
    };
    if let Some(t) = usable_time(message) {
        warn(&format!(
            "timestamp is {}, no time; dated by message.timestamp",
            shown_time(entry)
        ));
        return t;
    }
    let why = match source {
        Source::Assistant => format!(
            "timestamp is {} and message.timestamp {}, no time",
            shown_time(entry),
            shown_time(message)
        ),
        _ => format!("timestamp is {}, no time", shown_time(entry)),
    };
    let header = crate::time::parse_iso(header_time.trim());
    let header = (!header.is_nan()).then_some(header);
    match header {
        Some(t) => {
            warn(&format!("{why}; dated by the session header"));
            t
        }
        None => {
            warn(&format!(
                "{why}, nor the header's; counted in the \"unknown\" row"
            ));
            f64::NAN
        }
    }
}

/// Read files on every core: what each gave, or why it is not a session
/// file.
pub(crate) fn scan_all(
    files: &[&Path],
    with_tree: bool,
) -> Vec<std::result::Result<FileUsage, NotRead>> {
    store::parallel_map(files, |p| scan_file(p, with_tree))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Warnings name the line they are about, past lines without usage,
    /// blank lines and a last line without its end, read for the usage
    /// alone or for the tree.
    #[test]
    fn warnings_name_their_lines() {
        let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-03-01T00:00:00.000Z","cwd":"/p"}"#;
        let bad = |id: &str| {
            format!(
                r#"{{"type":"message","id":"{id}","parentId":null,"timestamp":"2026-03-01T10:00:00.000Z","message":{{"role":"assistant","usage":{{"output":1}}}}}}"#
            )
        };
        let plain = r#"{"type":"message","id":"u","parentId":null,"timestamp":"2026-03-01T10:00:00.000Z","message":{"role":"user","content":"x\ny"}}"#;
        let text = [
            header.to_string(),
            plain.into(),
            bad("a"),
            String::new(),
            plain.into(),
            plain.into(),
            bad("b"),
            "{not json \"usage\"".into(),
            plain.into(),
            bad("c"),
        ]
        .join("\n");
        for tree in [false, true] {
            let fu = scan_bytes_with(
                Path::new("f"),
                text.as_bytes(),
                tree,
                &mut js::Checker::new(),
            )
            .unwrap();
            let lines: Vec<u64> = fu.warnings.iter().map(|w| w.0).collect();
            assert_eq!(lines, [3, 3, 7, 7, 8, 10, 10], "{:?}", fu.warnings);
        }
    }
}
