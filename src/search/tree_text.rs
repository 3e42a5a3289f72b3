//! pi's `/tree` text of an entry: what its search looks in
//! (`getSearchableText`) and what its row shows (`getEntryDisplayText`,
//! in colours), as pi 1.6's `TreeSelectorComponent` makes them
//! (`modes/interactive/components/tree-selector.js`), and the search
//! query (its words, lower-cased). JavaScript's string semantics
//! (`trim`, UTF-16 lengths and slices, `String(value)`) are
//! [`crate::json::js::string`]'s.

use crate::entry::EntryType;
use crate::json::js::{self, string};
use crate::json::{scan, Object};
use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

/// A piece of a row and its colour (an SGR code; None: none).
pub type Seg = (std::borrow::Cow<'static, str>, Option<&'static str>);

/// pi's theme colours, as SGR codes.
pub const DIM: &str = "2";
pub const ACCENT: &str = "36";
pub const SUCCESS: &str = "32";
pub const WARNING: &str = "33";
pub const ERROR: &str = "31";
pub const MUTED: &str = "90";

/// Why a custom message's row cannot be shown: pi's
/// `content.filter((c) => c.type === "text").map((c) => c.text).join("")`
/// throws a TypeError on a content that is neither a string nor an
/// array, and on a null block.
pub const CUSTOM_MESSAGE_REFUSED: &str = "a custom_message whose content is neither a string nor an array of blocks (pi 1.6's /tree fails on it: TypeError)";

/// `/tree`'s search: the words of the query (split at JavaScript's white
/// space), lower-cased. An entry passes when its [`searchable`] text,
/// lower-cased, holds every word.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    words: Vec<String>,
}

impl Query {
    pub fn new(query: &str) -> Query {
        Query {
            words: string::to_lower_case(query)
                .split(string::is_space)
                .filter(|t| !t.is_empty())
                .map(String::from)
                .collect(),
        }
    }

    /// No words (an empty or blank query): the search lets every entry
    /// through.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Whether the searchable text `text` holds every word.
    pub fn matches(&self, text: &str) -> bool {
        let text = string::to_lower_case(text);
        self.words.iter().all(|w| text.contains(w.as_str()))
    }
}

/// `getSearchableText(node)`: the text `/tree`'s search looks in, of the
/// entry `obj` of type `ty` whose label is `label`.
pub fn searchable(ty: EntryType, label: Option<&str>, obj: &Object<'_>) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(l) = label {
        parts.push(l.to_string());
    }
    let field = |o: &Object<'_>, k: &str| {
        o.raw(k)
            .map(js::string::string_value_or_empty)
            .unwrap_or_default()
    };
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

/// What `/tree`'s rows show that is not in the entry itself: the tool
/// calls of the assistant messages (a tool result's row shows its call)
/// and the home directory (paths in it are shown as `~/...`).
#[derive(Debug, Clone, Default)]
pub struct Display {
    /// toolCall id -> (name, arguments as `JSON.stringify` writes them).
    tool_calls: HashMap<String, (String, Option<Vec<u8>>)>,
    home: String,
}

impl Display {
    /// No tool calls yet; the home directory as pi finds it:
    /// `process.env.HOME || process.env.USERPROFILE || ""`.
    pub fn new() -> Display {
        Display::with_home(
            &[std::env::var_os("HOME"), std::env::var_os("USERPROFILE")]
                .into_iter()
                .flatten()
                .map(|v| v.to_string_lossy().into_owned())
                .find(|v| !v.is_empty())
                .unwrap_or_default(),
        )
    }

    /// No tool calls yet, `home` as the home directory ("": none).
    pub fn with_home(home: &str) -> Display {
        Display {
            tool_calls: HashMap::new(),
            home: home.to_string(),
        }
    }

    /// Record the tool calls of `message` (a `message` entry's message)
    /// when it is an assistant's; a call whose id was met before replaces
    /// the earlier one, as in pi's map. Entries are added in display order.
    pub fn add_tool_calls(&mut self, message: &Object<'_>) {
        let m = message;
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
            let id = string::template(b.raw("id"));
            let name = string::template(b.raw("name"));
            let args = b.canonical("arguments").ok().flatten();
            self.tool_calls.insert(id, (name, args));
        }
    }

    /// `getEntryDisplayText(node)`: what the row of the entry `obj` of type
    /// `ty` shows, as coloured pieces; `Err` with why where pi's render
    /// throws (a custom message whose content is not text).
    pub fn text(&self, ty: EntryType, obj: &Object<'_>) -> Result<Vec<Seg>, &'static str> {
        let mut v = Vec::new();
        self.text_into(ty, obj, &mut v)?;
        Ok(v)
    }

    /// [`Display::text`], the pieces added to `v`.
    pub fn text_into(
        &self,
        ty: EntryType,
        obj: &Object<'_>,
        v: &mut Vec<Seg>,
    ) -> Result<(), &'static str> {
        let tmpl = |k: &str| string::template(obj.raw(k));
        match ty {
            EntryType::Message => self.message_text(obj, v),
            EntryType::CustomMessage => custom_message_text(obj, v)?,
            EntryType::Compaction => {
                let tokens = obj
                    .raw("tokensBefore")
                    .and_then(|r| std::str::from_utf8(r).ok())
                    .and_then(|s| s.parse::<f64>().ok())
                    .map(|t| js::number::number_to_js((t / 1000.0 + 0.5).floor()))
                    .unwrap_or_else(|| "NaN".into());
                v.push((
                    format!("[compaction: {tokens}k tokens]").into(),
                    Some(ACCENT),
                ));
            }
            EntryType::BranchSummary => {
                v.push(("[branch summary]: ".into(), Some(WARNING)));
                v.push((normalize(&tmpl("summary")).into(), None));
            }
            EntryType::ModelChange => {
                v.push((format!("[model: {}]", tmpl("modelId")).into(), Some(DIM)))
            }
            EntryType::ThinkingLevelChange => v.push((
                format!("[thinking: {}]", tmpl("thinkingLevel")).into(),
                Some(DIM),
            )),
            EntryType::Custom => v.push((
                format!("[custom: {}]", tmpl("customType")).into(),
                Some(DIM),
            )),
            EntryType::ContextEdit => v.push((
                format!("[context {}: {}]", context_edit_kind(obj), tmpl("targetId")).into(),
                Some(DIM),
            )),
            EntryType::Label => {
                let l = match obj.raw("label") {
                    None | Some(b"null") => "(cleared)".to_string(),
                    Some(r) => js::string::string_value(r),
                };
                v.push((format!("[label: {l}]").into(), Some(DIM)));
            }
            EntryType::SessionInfo => {
                let name = obj
                    .raw("name")
                    .filter(|r| js::truthy(r))
                    .map(js::string::string_value);
                v.push((
                    format!("[title: {}]", name.as_deref().unwrap_or("empty")).into(),
                    Some(DIM),
                ));
            }
            _ => {}
        }
        Ok(())
    }

    /// [`Display::text_into`] of a `message` entry: by the message's role.
    #[inline]
    fn message_text(&self, obj: &Object<'_>, v: &mut Vec<Seg>) {
        let Some(m) = obj.object("message") else {
            // `entry.message.role` throws in pi; show the type.
            v.push(("[message]".into(), Some(DIM)));
            return;
        };
        // `${role}`: a plain string's own text, without a copy.
        let role: Cow<'_, str> = match m.raw("role") {
            Some(r) if r.len() >= 2 && r[0] == b'"' && !r.contains(&b'\\') => {
                match std::str::from_utf8(&r[1..r.len() - 1]) {
                    Ok(plain) => Cow::Borrowed(plain),
                    Err(_) => string::template(Some(r)).into(),
                }
            }
            other => string::template(other).into(),
        };
        let content = || {
            m.get("content")
                .map(|r| normalize_owned(extract_content(m.text, r)))
                .unwrap_or_default()
        };
        match &*role {
            "user" => {
                v.push(("user: ".into(), Some(ACCENT)));
                v.push((content().into(), None));
            }
            "assistant" => {
                v.push(("assistant: ".into(), Some(SUCCESS)));
                let text = content();
                if !text.is_empty() {
                    v.push((text.into(), None));
                } else if m.raw("stopReason") == Some(b"\"aborted\"") {
                    v.push(("(aborted)".into(), Some(DIM)));
                } else if let Some(err) = m.raw("errorMessage").filter(|r| js::truthy(r)) {
                    v.push((
                        string::slice(&normalize(&js::string::string_value(err)), 80).into(),
                        Some(ERROR),
                    ));
                } else {
                    v.push(("(no content)".into(), Some(DIM)));
                }
            }
            "toolResult" => {
                let call = m
                    .raw("toolCallId")
                    .filter(|r| js::truthy(r))
                    .and_then(|r| self.tool_calls.get(&js::string::string_value(r)));
                let t = match call {
                    Some((name, args)) => self.format_tool_call(name, args.as_deref()),
                    None => {
                        let name = match m.raw("toolName") {
                            None | Some(b"null") => "tool".to_string(),
                            Some(r) => js::string::string_value(r),
                        };
                        format!("[{name}]")
                    }
                };
                v.push((t.into(), Some(DIM)));
            }
            "bashExecution" => {
                let cmd = match m.raw("command") {
                    None | Some(b"null") => String::new(),
                    Some(r) => js::string::string_value(r),
                };
                v.push((format!("[bash]: {}", normalize(&cmd)).into(), Some(DIM)));
            }
            _ => v.push((format!("[{role}]").into(), Some(DIM))),
        }
    }

    /// `formatToolCall(name, args)`: a tool result's row, from its call.
    pub fn format_tool_call(&self, name: &str, args: Option<&[u8]>) -> String {
        let a = args.and_then(|t| Object::parse_line(t).ok().flatten());
        let get = |k: &str| a.as_ref().and_then(|o| o.raw(k));
        let truthy_str = |k: &str| {
            get(k)
                .filter(|r| js::truthy(r))
                .map(js::string::string_value)
        };
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
                let cmd = string::slice(&normalize(&raw), 50);
                let more = if string::utf16_len(&raw) > 50 {
                    "..."
                } else {
                    ""
                };
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
                let more = if string::utf16_len(&s) > 40 {
                    "..."
                } else {
                    ""
                };
                format!("[{name}: {}{more}]", string::slice(&s, 40))
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
        return format!(":{}", js::number::number_string(start));
    };
    let Some(count) = parse_line_number(lim) else {
        return String::new();
    };
    let end = start + count - 1.0;
    if end == 0.0 || end.is_nan() {
        format!(":{}", js::number::number_string(start))
    } else {
        format!(
            ":{}-{}",
            js::number::number_string(start),
            js::number::number_string(end)
        )
    }
}

/// pi's `parseLineNumber`: a finite number, or a non-blank string that
/// `Number()` turns into one.
fn parse_line_number(raw: &[u8]) -> Option<f64> {
    let n = match raw.first() {
        Some(b'"') => {
            let s = js::escape::decode_string(raw, 0..raw.len());
            if string::trim(&s).is_empty() {
                return None;
            }
            string::string_to_number(&s)
        }
        Some(b'-' | b'0'..=b'9') => std::str::from_utf8(raw).ok()?.parse::<f64>().ok()?,
        _ => return None,
    };
    n.is_finite().then_some(n)
}

/// [`Display::text_into`] of a `custom_message` entry: its type and text;
/// `Err` where pi's render throws (content that is not text).
#[inline]
fn custom_message_text(obj: &Object<'_>, v: &mut Vec<Seg>) -> Result<(), &'static str> {
    let tmpl = |k: &str| string::template(obj.raw(k));
    // pi: `content.filter((c) => c.type === "text").map((c) =>
    // c.text).join("")` when it is not a string: a TypeError on
    // anything but an array, and on a null block.
    let content = match obj.get("content") {
        Some(r) if obj.text[r.start] == b'"' => js::string::string_value(&obj.text[r]),
        Some(r) if obj.text[r.start] == b'[' => {
            let mut s = String::new();
            for el in scan::elements(obj.text, r).unwrap_or_default() {
                if &obj.text[el.clone()] == b"null" {
                    return Err(CUSTOM_MESSAGE_REFUSED);
                }
                let Ok(b) = Object::at(obj.text, el.clone()) else {
                    continue;
                };
                if obj.text[el.start] == b'{' && b.str("type").as_deref() == Some("text") {
                    s.push_str(
                        &b.raw("text")
                            .map(js::string::string_value_or_empty)
                            .unwrap_or_default(),
                    );
                }
            }
            s
        }
        _ => return Err(CUSTOM_MESSAGE_REFUSED),
    };
    v.push((format!("[{}]: ", tmpl("customType")).into(), Some(WARNING)));
    v.push((normalize(&content).into(), None));
    Ok(())
}

/// `entry.replacement === null ? "omit" : "replace"`.
fn context_edit_kind(obj: &Object<'_>) -> &'static str {
    if obj.raw("replacement") == Some(b"null") {
        "omit"
    } else {
        "replace"
    }
}

/// pi's `normalize`: tabs and newlines to spaces, then `trim()`.
fn normalize(s: &str) -> String {
    if !s.contains(['\n', '\t']) {
        return string::trim(s).to_string();
    }
    string::trim(&s.replace(['\n', '\t'], " ")).to_string()
}

/// [`normalize`] of a string of one's own: kept as it is when there is
/// nothing to change.
fn normalize_owned(s: String) -> String {
    if !s.contains(['\n', '\t']) && string::trim(&s).len() == s.len() {
        return s;
    }
    normalize(&s)
}

/// `extractContent(content)`: a string cut at 200 UTF-16 units, or the
/// `text` blocks concatenated (cut once 200 is reached).
fn extract_content(text: &[u8], r: Range<usize>) -> String {
    match text[r.start] {
        b'"' => string::slice(&js::escape::decode_string(text, r), 200),
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
                    s.push_str(&string::template(b.raw("text")));
                    if string::utf16_len(&s) >= 200 {
                        return string::slice(&s, 200);
                    }
                }
            }
            s
        }
        _ => String::new(),
    }
}

/// `hasTextContent(content)` of the value `text[r]`, known to be valid
/// JSON (a message object's member, as a validated line holds it).
pub fn has_text_content(text: &[u8], r: Range<usize>) -> bool {
    match text[r.start] {
        b'"' => {
            // An ASCII character that is not white space, before any escape
            // or other character: not blank, without decoding.
            for &b in text
                .get(r.start + 1..r.end.saturating_sub(1))
                .unwrap_or(&[])
            {
                match b {
                    0x09..=0x0d | b' ' => continue,
                    b'\\' | 0x80.. => break,
                    _ => return true,
                }
            }
            !string::trim(&js::escape::decode_string(text, r)).is_empty()
        }
        // Valid JSON: the blocks are found by their brackets alone.
        b'[' => crate::store::raw::elements(text, r).into_iter().any(|el| {
            text[el.start] == b'{' && {
                let b = crate::store::raw::object(text, el);
                b.str("type").as_deref() == Some("text")
                    && b.get("text")
                        .is_some_and(|t| text[t.start] == b'"' && has_text_content(text, t))
            }
        }),
        _ => false,
    }
}

#[cfg(test)]
mod tests;
