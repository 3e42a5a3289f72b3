//! pi's text of an entry as pi-tree needs it: the display text of a row
//! (`getEntryDisplayText`, `formatToolCall`, `shortenHomePath`), the
//! searchable text (`getSearchableText`), and the JavaScript string
//! semantics they are written in (`trim`, UTF-16 lengths and `slice`,
//! `Number(string)`, `${value}`).
//!
//! To be replaced by the shared modules: pi's searchable/display text
//! (`src/search.rs`) and JavaScript string semantics (under `src/json/`).
//! This file is the one place pi-tree takes them from.

use crate::entry::{is_js_space, EntryType};
use crate::error::{Error, Result};
use crate::json::{js, scan, Object};
use std::collections::HashMap;

/// A piece of a line and its colour (an SGR code).
pub(super) type Seg = (String, Option<&'static str>);

// The colours of pi's theme the rows use.

pub(super) const DIM: &str = "2";
pub(super) const ACCENT: &str = "36";
pub(super) const SUCCESS: &str = "32";
pub(super) const WARNING: &str = "33";
pub(super) const ERROR: &str = "31";
pub(super) const MUTED: &str = "90";

/// What an entry's display text needs besides the entry.
pub(super) struct DisplayText {
    /// toolCall id -> (name, arguments) of assistant messages, in display order.
    tool_calls: HashMap<String, (String, Option<Vec<u8>>)>,
    /// For `shortenHomePath`: `process.env.HOME || process.env.USERPROFILE || ""`.
    home: String,
}

/// `getSearchableText(node)` of an entry of type `ty` labelled `label`,
/// parsed as `obj`.
pub(super) fn searchable(ty: EntryType, label: Option<&str>, obj: &Object<'_>) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(l) = label {
        parts.push(l.to_string());
    }
    let field = |o: &Object<'_>, k: &str| o.raw(k).map(js_string_or_empty).unwrap_or_default();
    match ty {
        EntryType::Message => {
            if let Some(m) = obj.object("message") {
                parts.push(field(&m, "role"));
                if let Some(r) = m.get("content").filter(|r| js::truthy(&m.text[r.clone()])) {
                    parts.push(extract_content(m.text, r));
                }
                if m.str("role").as_deref() == Some("bashExecution")
                    && m.raw("command").is_some_and(js::truthy)
                {
                    parts.push(field(&m, "command"));
                }
            }
        }
        EntryType::CustomMessage => {
            parts.push(field(obj, "customType"));
            match obj.get("content") {
                Some(r) if obj.text[r.start] == b'"' => parts.push(field(obj, "content")),
                Some(r) => parts.push(extract_content(obj.text, r)),
                None => parts.push(String::new()),
            }
        }
        EntryType::Compaction => parts.push("compaction".into()),
        EntryType::BranchSummary => {
            parts.push("branch summary".into());
            parts.push(field(obj, "summary"));
        }
        EntryType::SessionInfo => {
            parts.push("title".into());
            if obj.raw("name").is_some_and(js::truthy) {
                parts.push(field(obj, "name"));
            }
        }
        EntryType::ModelChange => {
            parts.push("model".into());
            parts.push(field(obj, "modelId"));
        }
        EntryType::ThinkingLevelChange => {
            parts.push("thinking".into());
            parts.push(field(obj, "thinkingLevel"));
        }
        EntryType::Custom => {
            parts.push("custom".into());
            parts.push(field(obj, "customType"));
        }
        EntryType::Label => {
            parts.push("label".into());
            parts.push(field(obj, "label"));
        }
        EntryType::ContextEdit => {
            parts.push("context edit".into());
            parts.push(context_edit_kind(obj).into());
            parts.push(field(obj, "targetId"));
        }
        _ => {}
    }
    parts.join(" ")
}

impl DisplayText {
    /// No tool calls yet, and the home directory of this process.
    pub(super) fn new() -> DisplayText {
        DisplayText {
            tool_calls: HashMap::new(),
            home: [std::env::var_os("HOME"), std::env::var_os("USERPROFILE")]
                .into_iter()
                .flatten()
                .map(|v| v.to_string_lossy().into_owned())
                .find(|v| !v.is_empty())
                .unwrap_or_default(),
        }
    }

    /// Take note of a message (`m`, an entry's `message`), in display
    /// order: the tool calls of an assistant message, which the tool
    /// results after it are shown by.
    pub(super) fn note(&mut self, m: &Object<'_>) {
        if m.str("role").as_deref() != Some("assistant") {
            return;
        }
        let Some(r) = m.get("content") else { return };
        if m.text[r.start] != b'[' {
            return;
        }
        for el in scan::elements(m.text, r).unwrap_or_default() {
            let Ok(b) = Object::at(m.text, el.clone()) else {
                continue;
            };
            if m.text[el.start] != b'{' || b.str("type").as_deref() != Some("toolCall") {
                continue;
            }
            let id = b
                .raw("id")
                .map(js_string)
                .unwrap_or_else(|| "undefined".into());
            let name = b
                .raw("name")
                .map(js_string)
                .unwrap_or_else(|| "undefined".into());
            let args = b.canonical("arguments").ok().flatten();
            self.tool_calls.insert(id, (name, args));
        }
    }

    /// `getEntryDisplayText(node)`, as coloured pieces, of an entry of
    /// type `ty` parsed as `obj` (line `line` of session `name`, for the
    /// error where pi fails).
    pub(super) fn display(
        &self,
        ty: EntryType,
        obj: &Object<'_>,
        name: &str,
        line: u64,
    ) -> Result<Vec<Seg>> {
        let tmpl = |k: &str| template(obj.raw(k));
        let mut v: Vec<Seg> = Vec::new();
        match ty {
            EntryType::Message => {
                let Some(m) = obj.object("message") else {
                    // `entry.message.role` throws in pi; show the type.
                    v.push(("[message]".into(), Some(DIM)));
                    return Ok(v);
                };
                let role = m
                    .raw("role")
                    .map(js_string)
                    .unwrap_or_else(|| "undefined".into());
                let content = || {
                    m.get("content")
                        .map(|r| normalize(&extract_content(m.text, r)))
                        .unwrap_or_default()
                };
                match role.as_str() {
                    "user" => {
                        v.push(("user: ".into(), Some(ACCENT)));
                        v.push((content(), None));
                    }
                    "assistant" => {
                        v.push(("assistant: ".into(), Some(SUCCESS)));
                        let text = content();
                        if !text.is_empty() {
                            v.push((text, None));
                        } else if m.raw("stopReason") == Some(b"\"aborted\"") {
                            v.push(("(aborted)".into(), Some(DIM)));
                        } else if let Some(err) = m.raw("errorMessage").filter(|r| js::truthy(r)) {
                            v.push((js_slice(&normalize(&js_string(err)), 80), Some(ERROR)));
                        } else {
                            v.push(("(no content)".into(), Some(DIM)));
                        }
                    }
                    "toolResult" => {
                        let call = m
                            .raw("toolCallId")
                            .filter(|r| js::truthy(r))
                            .and_then(|r| self.tool_calls.get(&js_string(r)));
                        let t = match call {
                            Some((name, args)) => self.format_tool_call(name, args.as_deref()),
                            None => {
                                let name = match m.raw("toolName") {
                                    None | Some(b"null") => "tool".to_string(),
                                    Some(r) => js_string(r),
                                };
                                format!("[{name}]")
                            }
                        };
                        v.push((t, Some(DIM)));
                    }
                    "bashExecution" => {
                        let cmd = match m.raw("command") {
                            None | Some(b"null") => String::new(),
                            Some(r) => js_string(r),
                        };
                        v.push((format!("[bash]: {}", normalize(&cmd)), Some(DIM)));
                    }
                    _ => v.push((format!("[{role}]"), Some(DIM))),
                }
            }
            EntryType::CustomMessage => {
                // pi: `content.filter((c) => c.type === "text").map((c) =>
                // c.text).join("")` when it is not a string: a TypeError on
                // anything but an array, and on a null block.
                let fails = || {
                    Error::data(
                        name,
                        Some(line),
                        "a custom_message whose content is neither a string nor an array of blocks (pi 1.6's /tree fails on it: TypeError)",
                    )
                };
                let content = match obj.get("content") {
                    Some(r) if obj.text[r.start] == b'"' => js_string(&obj.text[r]),
                    Some(r) if obj.text[r.start] == b'[' => {
                        let mut s = String::new();
                        for el in scan::elements(obj.text, r).unwrap_or_default() {
                            if &obj.text[el.clone()] == b"null" {
                                return Err(fails());
                            }
                            let Ok(b) = Object::at(obj.text, el.clone()) else {
                                continue;
                            };
                            if obj.text[el.start] == b'{'
                                && b.str("type").as_deref() == Some("text")
                            {
                                s.push_str(
                                    &b.raw("text").map(js_string_or_empty).unwrap_or_default(),
                                );
                            }
                        }
                        s
                    }
                    _ => return Err(fails()),
                };
                v.push((format!("[{}]: ", tmpl("customType")), Some(WARNING)));
                v.push((normalize(&content), None));
            }
            EntryType::Compaction => {
                let tokens = obj
                    .raw("tokensBefore")
                    .and_then(|r| std::str::from_utf8(r).ok())
                    .and_then(|s| s.parse::<f64>().ok())
                    .map(|t| js::number_to_js((t / 1000.0 + 0.5).floor()))
                    .unwrap_or_else(|| "NaN".into());
                v.push((format!("[compaction: {tokens}k tokens]"), Some(ACCENT)));
            }
            EntryType::BranchSummary => {
                v.push(("[branch summary]: ".into(), Some(WARNING)));
                v.push((normalize(&tmpl("summary")), None));
            }
            EntryType::ModelChange => v.push((format!("[model: {}]", tmpl("modelId")), Some(DIM))),
            EntryType::ThinkingLevelChange => {
                v.push((format!("[thinking: {}]", tmpl("thinkingLevel")), Some(DIM)))
            }
            EntryType::Custom => v.push((format!("[custom: {}]", tmpl("customType")), Some(DIM))),
            EntryType::ContextEdit => v.push((
                format!("[context {}: {}]", context_edit_kind(obj), tmpl("targetId")),
                Some(DIM),
            )),
            EntryType::Label => {
                let l = match obj.raw("label") {
                    None | Some(b"null") => "(cleared)".to_string(),
                    Some(r) => js_string(r),
                };
                v.push((format!("[label: {l}]"), Some(DIM)));
            }
            EntryType::SessionInfo => {
                let name = obj.raw("name").filter(|r| js::truthy(r)).map(js_string);
                v.push((
                    format!("[title: {}]", name.as_deref().unwrap_or("empty")),
                    Some(DIM),
                ));
            }
            _ => {}
        }
        Ok(v)
    }

    /// `formatToolCall(name, args)`.
    fn format_tool_call(&self, name: &str, args: Option<&[u8]>) -> String {
        let a = args.and_then(|t| Object::parse_line(t).ok().flatten());
        let get = |k: &str| a.as_ref().and_then(|o| o.raw(k));
        let truthy_str = |k: &str| get(k).filter(|r| js::truthy(r)).map(js_string);
        let shorten = |p: String| shorten_home_path(p, &self.home);
        let path_arg = || {
            shorten(
                truthy_str("path")
                    .or_else(|| truthy_str("file_path"))
                    .unwrap_or_default(),
            )
        };
        match name {
            "read" => format!(
                "[read: {}{}]",
                path_arg(),
                read_line_range(get("offset"), get("limit"))
            ),
            "write" => format!("[write: {}]", path_arg()),
            "edit" => format!("[edit: {}]", path_arg()),
            "bash" => {
                let raw = truthy_str("command").unwrap_or_default();
                let cmd = js_slice(js_trim(&raw.replace(['\n', '\t'], " ")), 50);
                let more = if utf16_len(&raw) > 50 { "..." } else { "" };
                format!("[bash: {cmd}{more}]")
            }
            "grep" => format!(
                "[grep: /{}/ in {}]",
                truthy_str("pattern").unwrap_or_default(),
                shorten(truthy_str("path").unwrap_or_else(|| ".".into()))
            ),
            "find" => format!(
                "[find: {} in {}]",
                truthy_str("pattern").unwrap_or_default(),
                shorten(truthy_str("path").unwrap_or_else(|| ".".into()))
            ),
            "ls" => format!(
                "[ls: {}]",
                shorten(truthy_str("path").unwrap_or_else(|| ".".into()))
            ),
            _ => {
                let s = args
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .unwrap_or_default();
                let more = if utf16_len(&s) > 40 { "..." } else { "" };
                format!("[{name}: {}{more}]", js_slice(&s, 40))
            }
        }
    }
}

/// pi's `shortenHomePath(path, home)` (posix rules): an absolute path
/// inside `home` (both resolved: `.`, `..`, repeated and trailing slashes)
/// becomes `~/` and the rest, or `~` for `home` itself; anything else is
/// kept as it is.
fn shorten_home_path(path: String, home: &str) -> String {
    if home.is_empty() || !path.starts_with('/') {
        return path;
    }
    let home = posix_resolve(home);
    let full = posix_resolve(&path);
    if full == home {
        return "~".into();
    }
    let rest = if home == "/" {
        full.strip_prefix('/')
    } else {
        full.strip_prefix(home.as_str())
            .and_then(|r| r.strip_prefix('/'))
    };
    match rest {
        Some(r) if !r.is_empty() => format!("~/{r}"),
        _ => path,
    }
}

/// Node's `path.posix.resolve(p)`: relative paths against the current
/// directory, then `.` and empty segments dropped and `..` applied.
fn posix_resolve(p: &str) -> String {
    let joined;
    let p = if p.starts_with('/') {
        p
    } else {
        let cwd = std::env::current_dir()
            .map(|d| d.to_string_lossy().into_owned())
            .unwrap_or_else(|_| "/".into());
        joined = format!("{cwd}/{p}");
        &joined
    };
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    format!("/{}", parts.join("/"))
}

/// pi's `formatReadLineRange(args.offset, args.limit)`, from the raw JSON
/// values (None when absent).
fn read_line_range(offset: Option<&[u8]>, limit: Option<&[u8]>) -> String {
    let absent = |v: Option<&[u8]>| v.is_none_or(|r| r == b"null");
    if absent(offset) && absent(limit) {
        return String::new();
    }
    let start = match offset {
        Some(r) if r != b"null" => match parse_line_number(r) {
            Some(n) => n,
            None => return String::new(),
        },
        _ => 1.0,
    };
    let Some(lim) = limit.filter(|r| *r != b"null") else {
        return format!(":{}", js_number_string(start));
    };
    let Some(count) = parse_line_number(lim) else {
        return String::new();
    };
    let end = start + count - 1.0;
    if end == 0.0 || end.is_nan() {
        format!(":{}", js_number_string(start))
    } else {
        format!(":{}-{}", js_number_string(start), js_number_string(end))
    }
}

/// pi's `parseLineNumber`: a finite number, or a non-blank string that
/// `Number()` turns into one.
fn parse_line_number(raw: &[u8]) -> Option<f64> {
    let n = match raw.first() {
        Some(b'"') => {
            let s = js::decode_string(raw, 0..raw.len());
            if js_trim(&s).is_empty() {
                return None;
            }
            js_string_to_number(&s)
        }
        Some(b'-' | b'0'..=b'9') => std::str::from_utf8(raw).ok()?.parse::<f64>().ok()?,
        _ => return None,
    };
    n.is_finite().then_some(n)
}

/// JavaScript's `Number(string)` (NaN for what it does not read).
fn js_string_to_number(s: &str) -> f64 {
    let t = js_trim(s);
    if t.is_empty() {
        return 0.0;
    }
    match t {
        "Infinity" | "+Infinity" => return f64::INFINITY,
        "-Infinity" => return f64::NEG_INFINITY,
        _ => {}
    }
    let radix = match t.get(..2) {
        Some("0x" | "0X") => 16,
        Some("0o" | "0O") => 8,
        Some("0b" | "0B") => 2,
        _ => 10,
    };
    if radix != 10 {
        let digits = &t[2..];
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return f64::NAN;
        }
        if let Ok(v) = u128::from_str_radix(digits, radix) {
            return v as f64;
        }
        return digits.chars().fold(0.0, |acc, c| {
            acc * f64::from(radix) + f64::from(c.to_digit(radix).unwrap_or(0))
        });
    }
    // StrDecimalLiteral: sign, digits with at most one point (digits on
    // at least one side), an optional exponent with digits.
    let b = t.as_bytes();
    let mut k = usize::from(matches!(b[0], b'+' | b'-'));
    let int = b[k..].iter().take_while(|c| c.is_ascii_digit()).count();
    k += int;
    let mut frac = 0;
    if b.get(k) == Some(&b'.') {
        k += 1;
        frac = b[k..].iter().take_while(|c| c.is_ascii_digit()).count();
        k += frac;
    }
    if int + frac == 0 {
        return f64::NAN;
    }
    if matches!(b.get(k), Some(b'e' | b'E')) {
        k += 1;
        if matches!(b.get(k), Some(b'+' | b'-')) {
            k += 1;
        }
        let exp = b[k..].iter().take_while(|c| c.is_ascii_digit()).count();
        if exp == 0 {
            return f64::NAN;
        }
        k += exp;
    }
    if k != b.len() {
        return f64::NAN;
    }
    t.parse::<f64>().unwrap_or(f64::NAN)
}

/// `${n}` for a number: as [`js::number_to_js`], with the infinities.
fn js_number_string(n: f64) -> String {
    match n {
        f64::INFINITY => "Infinity".into(),
        f64::NEG_INFINITY => "-Infinity".into(),
        _ if n.is_nan() => "NaN".into(),
        _ => js::number_to_js(n),
    }
}

/// `entry.replacement === null ? "omit" : "replace"`.
fn context_edit_kind(obj: &Object<'_>) -> &'static str {
    if obj.raw("replacement") == Some(b"null") {
        "omit"
    } else {
        "replace"
    }
}

/// A JSON value as `${value}` shows it (strings as they are).
fn js_string(raw: &[u8]) -> String {
    js::string_value(raw)
}

fn js_string_or_empty(raw: &[u8]) -> String {
    js::string_value_or_empty(raw)
}

/// `${obj[key]}`: "undefined" when absent.
fn template(raw: Option<&[u8]>) -> String {
    raw.map(js_string).unwrap_or_else(|| "undefined".into())
}

/// pi's `normalize`: tabs and newlines to spaces, then `trim()`.
fn normalize(s: &str) -> String {
    js_trim(&s.replace(['\n', '\t'], " ")).to_string()
}

fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// `s.slice(0, n)` in UTF-16 units (a split pair becomes U+FFFD, as Node
/// writes a lone surrogate).
fn js_slice(s: &str, n: usize) -> String {
    let mut out = String::new();
    let mut units = 0;
    for c in s.chars() {
        let u = c.len_utf16();
        if units + u > n {
            if units < n {
                out.push('\u{FFFD}');
            }
            break;
        }
        units += u;
        out.push(c);
    }
    out
}

/// `extractContent(content)`: a string cut at 200 UTF-16 units, or the
/// `text` blocks concatenated (cut once 200 is reached).
fn extract_content(text: &[u8], r: std::ops::Range<usize>) -> String {
    match text[r.start] {
        b'"' => js_slice(&js::decode_string(text, r), 200),
        b'[' => {
            let mut s = String::new();
            for el in scan::elements(text, r).unwrap_or_default() {
                if text[el.start] != b'{' {
                    continue;
                }
                let Ok(b) = Object::at(text, el) else {
                    continue;
                };
                if b.str("type").as_deref() == Some("text") {
                    s.push_str(&template(b.raw("text")));
                    if utf16_len(&s) >= 200 {
                        return js_slice(&s, 200);
                    }
                }
            }
            s
        }
        _ => String::new(),
    }
}

/// `hasTextContent(content)`.
pub(super) fn has_text_content(text: &[u8], r: std::ops::Range<usize>) -> bool {
    match text[r.start] {
        b'"' => !js_trim(&js::decode_string(text, r)).is_empty(),
        b'[' => scan::elements(text, r)
            .unwrap_or_default()
            .into_iter()
            .any(|el| {
                text[el.start] == b'{'
                    && Object::at(text, el).is_ok_and(|b| {
                        b.str("type").as_deref() == Some("text")
                            && b.str("text").is_some_and(|t| !js_trim(&t).is_empty())
                    })
            }),
        _ => false,
    }
}
