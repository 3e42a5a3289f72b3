//! What `pi-grep` searches in an entry: its texts, each under the field
//! it comes from (`--in`), found in the line without decoding the rest.

use crate::json::{js, scan, Object};
use crate::store::raw::{self, Strings};
use std::borrow::Cow;
use std::ops::Range;

/// The fields text is searched in (`--in`).
pub const FIELDS: &[&str] = &[
    "text",
    "thinking",
    "toolCall",
    "toolResult",
    "command",
    "output",
    "summary",
    "name",
    "label",
];

/// One searchable text of an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text<'a> {
    /// Where it came from: one of [`FIELDS`].
    pub field: &'static str,
    pub text: Cow<'a, str>,
}

/// A searchable text not yet decoded: a JSON string in the entry's line,
/// or a text made from the entry (a tool call).
#[derive(Debug, Clone)]
pub enum SpanText<'a> {
    /// `text[range]` is a JSON string, quotes included.
    Raw(&'a [u8], Range<usize>),
    Owned(String),
}

/// One searchable text of an entry, before decoding.
#[derive(Debug, Clone)]
pub struct Span<'a> {
    pub field: &'static str,
    pub text: SpanText<'a>,
}

impl<'a> Span<'a> {
    pub fn decode(self) -> Text<'a> {
        Text {
            field: self.field,
            text: match self.text {
                SpanText::Raw(t, r) => js::decode_string(t, r),
                SpanText::Owned(s) => Cow::Owned(s),
            },
        }
    }
}

/// A parsed entry line with its type, its message and the message's role.
pub struct Entry<'o, 'a, 'm> {
    pub obj: &'o Object<'a>,
    pub ty: Option<Cow<'a, str>>,
    pub message: Option<Object<'a>>,
    pub role: Option<Cow<'a, str>>,
    /// Some when the line is known to be valid JSON: objects are found by
    /// their quotes and brackets alone, strings skipped so (see
    /// [`crate::store::raw`]).
    strings: Option<Strings<'m>>,
}

impl<'o, 'a, 'm> Entry<'o, 'a, 'm> {
    pub fn new(obj: &'o Object<'a>, strings: Option<Strings<'m>>) -> Self {
        let ty = obj.str("type");
        let message = match (ty.as_deref(), strings) {
            (Some("message"), Some(s)) => raw::sub_object_by(obj, "message", s),
            (Some("message"), None) => obj.object("message"),
            _ => None,
        };
        let role = message.as_ref().and_then(|m| m.str("role"));
        Entry {
            obj,
            ty,
            message,
            role,
            strings,
        }
    }
}

/// The searchable texts of an [`Entry`], not yet decoded.
pub fn entry_spans<'a>(e: &Entry<'_, 'a, '_>) -> Vec<Span<'a>> {
    let obj = e.obj;
    let fast = e.strings;
    let mut out = Vec::new();
    let push = |out: &mut Vec<Span<'a>>, field, o: &Object<'a>, key| {
        if let Some(r) = o.get(key) {
            if o.text[r.start] == b'"' {
                out.push(Span {
                    field,
                    text: SpanText::Raw(o.text, r),
                });
            }
        }
    };
    match e.ty.as_deref() {
        Some("message") => {
            let Some(m) = &e.message else {
                return out;
            };
            match e.role.as_deref() {
                Some("assistant") => {
                    for b in blocks(m, "content", fast) {
                        match b.str("type").as_deref() {
                            Some("text") => push(&mut out, "text", &b, "text"),
                            Some("thinking") => push(&mut out, "thinking", &b, "thinking"),
                            Some("toolCall") => {
                                let mut s = b.str("name").map(Cow::into_owned).unwrap_or_default();
                                if let Ok(Some(args)) = b.canonical("arguments") {
                                    s.push(' ');
                                    s.push_str(&String::from_utf8_lossy(&args));
                                }
                                out.push(Span {
                                    field: "toolCall",
                                    text: SpanText::Owned(s),
                                });
                            }
                            _ => {}
                        }
                    }
                }
                Some("toolResult") => content(&mut out, m, "toolResult", fast),
                Some("bashExecution") => {
                    push(&mut out, "command", m, "command");
                    push(&mut out, "output", m, "output");
                }
                Some("branchSummary" | "compactionSummary") => {
                    push(&mut out, "summary", m, "summary")
                }
                // user, system, custom and any other role with content
                _ => content(&mut out, m, "text", fast),
            }
        }
        Some("custom_message") => content(&mut out, obj, "text", fast),
        Some("branch_summary" | "compaction") => push(&mut out, "summary", obj, "summary"),
        Some("session_info") => push(&mut out, "name", obj, "name"),
        Some("label") => push(&mut out, "label", obj, "label"),
        _ => {}
    }
    out
}

/// `content` as a string, or its `text` blocks.
fn content<'a>(
    out: &mut Vec<Span<'a>>,
    o: &Object<'a>,
    field: &'static str,
    fast: Option<Strings<'_>>,
) {
    let Some(r) = o.get("content") else {
        return;
    };
    if o.text[r.start] == b'"' {
        out.push(Span {
            field,
            text: SpanText::Raw(o.text, r),
        });
        return;
    }
    for b in blocks(o, "content", fast) {
        if b.str("type").as_deref() == Some("text") {
            if let Some(r) = b.get("text") {
                if b.text[r.start] == b'"' {
                    out.push(Span {
                        field,
                        text: SpanText::Raw(b.text, r),
                    });
                }
            }
        }
    }
}

/// The objects in the array `key`.
fn blocks<'a>(o: &Object<'a>, key: &str, fast: Option<Strings<'_>>) -> Vec<Object<'a>> {
    let Some(r) = o.get(key) else {
        return Vec::new();
    };
    if o.text[r.start] != b'[' {
        return Vec::new();
    }
    if let Some(s) = fast {
        return raw::elements_by(o.text, r, s)
            .into_iter()
            .filter(|el| o.text[el.start] == b'{')
            .map(|el| raw::object_by(o.text, el, s))
            .collect();
    }
    scan::elements(o.text, r)
        .unwrap_or_default()
        .into_iter()
        .filter(|el| o.text[el.start] == b'{')
        .filter_map(|el| Object::at(o.text, el).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_by_field() {
        let line = br#"{"type":"message","id":"a","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm","thinkingSignature":"sig"},{"type":"text","text":"x\ny"},{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls"}}]}}"#;
        let o = Object::parse_line(line).unwrap().unwrap();
        let t: Vec<Text<'_>> = entry_spans(&Entry::new(&o, None))
            .into_iter()
            .map(Span::decode)
            .collect();
        let got: Vec<(&str, &str)> = t.iter().map(|t| (t.field, &*t.text)).collect();
        assert_eq!(
            got,
            [
                ("thinking", "hm"),
                ("text", "x\ny"),
                ("toolCall", r#"bash {"command":"ls"}"#)
            ]
        );
    }
}
