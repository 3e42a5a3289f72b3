//! What each line of a session file adds to the `SessionInfo` pi's
//! `buildSessionInfo` makes of it (the header's fields, the name, the
//! message count, the first user text, the last activity), and the lines on
//! which pi's own code throws, so that the file is not listed. A line pi
//! wrote is read by its quotes and brackets alone ([`super::raw`]).

use super::raw;
use crate::json::scan::trim_ws;
use crate::json::{js, scan, Object};
use crate::time::js_date_ms;
use std::ops::Range;

pub(super) struct HeaderInfo {
    pub(super) id_json: Option<Vec<u8>>,
    pub(super) id: String,
    pub(super) cwd: Vec<u16>,
    pub(super) parent_json: Option<Vec<u8>>,
    pub(super) parent: Option<String>,
    pub(super) created: f64,
    pub(super) header_time: f64,
    pub(super) version: u32,
}

#[derive(Default)]
pub(super) struct State {
    pub(super) header: Option<HeaderInfo>,
    pub(super) not_session: bool,
    pub(super) name: Option<Vec<u16>>,
    pub(super) message_count: u64,
    pub(super) last_activity: Option<f64>,
    pub(super) first_message: Vec<u16>,
    pub(super) checker: js::Checker,
    /// A reusable list of members.
    pub(super) members: Vec<scan::Member>,
}

const BAD_CONTENT: &str =
    "message content that is neither a string nor an array (pi's listing fails on it: TypeError)";

pub(super) enum Step {
    Go,
    Stop(String),
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

impl State {
    /// Whether more lines can change the answer (always: pi reads to the end).
    pub(super) fn wanted(&self) -> bool {
        !self.not_session
    }

    pub(super) fn line(&mut self, line: &[u8]) -> Step {
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
                    let v = trim_ws(line);
                    if js::truthy(v) && self.header.is_none() {
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
            return self.session_info(obj);
        }
        if !str_is(ty, "message") {
            return Step::Go;
        }
        self.message(obj, fast)
    }

    /// A `session_info` entry: the session's name (the last one given).
    #[inline]
    fn session_info(&mut self, obj: &Object<'_>) -> Step {
        let line = obj.text;
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
        Step::Go
    }

    /// A `message` entry: counted; a user or assistant message's time is
    /// activity; the first user message's text is kept.
    #[inline]
    fn message(&mut self, obj: &Object<'_>, fast: bool) -> Step {
        let line = obj.text;
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
            b'[' => return self.blocks(line, content, fast, want_text),
            _ => return Step::Stop(BAD_CONTENT.into()),
        }
        Step::Go
    }

    /// A message's content blocks: a null block makes pi's listing fail;
    /// with `want_text`, the text blocks' texts joined by spaces are the
    /// first message.
    #[inline]
    fn blocks(&mut self, line: &[u8], content: Range<usize>, fast: bool, want_text: bool) -> Step {
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
                        js::string::string_value_or_empty_utf16(line, tr, &mut text);
                    }
                }
                _ => {}
            }
        }
        if want_text {
            self.first_message = text;
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
