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
    "sections",
    "systemMessage",
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
                SpanText::Raw(t, r) => js::escape::decode_string(t, r),
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
                Some("system") => {
                    content(&mut out, m, "text", fast);
                    sections(&mut out, m, "sections", fast);
                }
                // user, system, custom and any other role with content
                _ => content(&mut out, m, "text", fast),
            }
        }
        Some("custom_message") => content(&mut out, obj, "text", fast),
        Some("branch_summary") => push(&mut out, "summary", obj, "summary"),
        Some("compaction") => {
            // pi sends the checkpoint before the summary (buildSessionContext).
            let sm = match fast {
                Some(s) => raw::sub_object_by(obj, "systemMessage", s),
                None => obj.object("systemMessage"),
            };
            if let Some(sm) = sm {
                content(&mut out, &sm, "systemMessage", fast);
                sections(&mut out, &sm, "systemMessage", fast);
            }
            push(&mut out, "summary", obj, "summary");
        }
        Some("session_info") => push(&mut out, "name", obj, "name"),
        Some("label") => push(&mut out, "label", obj, "label"),
        _ => {}
    }
    out
}

/// The string values of the object `sections` of a system message `o`,
/// in the order pi's `getSystemMessageText` reads them
/// (`Object.values`: array-index keys first, a repeated key in its
/// first place with its last value); null and other values are left out
/// (pi drops null, and a value with no text adds nothing).
fn sections<'a>(
    out: &mut Vec<Span<'a>>,
    o: &Object<'a>,
    field: &'static str,
    fast: Option<Strings<'_>>,
) {
    let s = match fast {
        Some(f) => raw::sub_object_by(o, "sections", f),
        None => o.object("sections"),
    };
    if let Some(s) = s {
        section_values(s.text, &s.members, field, out);
    }
}

/// [`sections`] for the members of a `sections` object in `t`.
fn section_values<'a>(
    t: &'a [u8],
    members: &[scan::Member],
    field: &'static str,
    out: &mut Vec<Span<'a>>,
) {
    for (_, v) in js::stringify::member_order(t, members) {
        let r = members[v].value.clone();
        if t.get(r.start) == Some(&b'"') {
            out.push(Span {
                field,
                text: SpanText::Raw(t, r),
            });
        }
    }
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

/// [`Entry::new`] and [`entry_spans`] at once, for a line `t` that
/// [`js::check::Checker::valid_object`] took (`top`: the members it gave, `m`:
/// its marks): the entry's type and role, and its spans pushed onto `out`,
/// the same as the two give. Nothing is allocated but a tool call's text
/// (and the member list of a system message's `sections`):
/// objects and arrays are walked by the marks' quote bits and the walk's
/// record of where each container ends, not read again. `canon` makes a
/// tool call's arguments canonical (kept by the caller). A tool call whose
/// block's raw text `may_match` says no to is left out (its text is made
/// from that block alone, so a sound prefilter of the line is one of the
/// block: nothing in it could match; `|_| true` keeps every one).
pub fn quick_entry<'a>(
    t: &'a [u8],
    top: &[scan::Member],
    m: js::check::Marks<'_>,
    canon: &mut js::check::Checker,
    may_match: &dyn Fn(&[u8]) -> bool,
    out: &mut Vec<Span<'a>>,
) -> (Option<Cow<'a, str>>, Option<Cow<'a, str>>) {
    let get = |key: &str| crate::json::member_value(t, top, key);
    let ty = get("type").and_then(|r| str_at(t, r));
    let raw = |out: &mut Vec<Span<'a>>, field, r: Option<Range<usize>>| {
        if let Some(r) = r.filter(|r| t.get(r.start) == Some(&b'"')) {
            out.push(Span {
                field,
                text: SpanText::Raw(t, r),
            });
        }
    };
    match ty.as_deref() {
        Some("message") => {
            let Some(msg) = get("message").filter(|r| t.get(r.start) == Some(&b'{')) else {
                return (ty, None);
            };
            let [role, content, command, output, summary, sections] = pick(
                t,
                msg.start,
                m,
                [
                    "role", "content", "command", "output", "summary", "sections",
                ],
            );
            let role = role.and_then(|r| str_at(t, r));
            match role.as_deref() {
                Some("assistant") => {
                    each_object(t, content, m, |b| {
                        let [bty, text, thinking, name, args] =
                            pick(t, b, m, ["type", "text", "thinking", "name", "arguments"]);
                        let is = |want| bty.as_ref().is_some_and(|r| str_is(t, r, want));
                        if is("text") {
                            raw(out, "text", text);
                        } else if is("thinking") {
                            raw(out, "thinking", thinking);
                        } else if is("toolCall")
                            && may_match(t.get(b..m.value_end(t, b)).unwrap_or_default())
                        {
                            let mut s = name
                                .and_then(|r| str_at(t, r))
                                .map(Cow::into_owned)
                                .unwrap_or_default();
                            if let Some(a) = args {
                                let mut buf = Vec::new();
                                if js::stringify::canonical_with(canon, &mut buf, t, a).is_ok() {
                                    s.push(' ');
                                    s.push_str(&String::from_utf8_lossy(&buf));
                                }
                            }
                            out.push(Span {
                                field: "toolCall",
                                text: SpanText::Owned(s),
                            });
                        }
                    });
                }
                Some("toolResult") => quick_content(t, content, m, "toolResult", out),
                Some("bashExecution") => {
                    raw(out, "command", command);
                    raw(out, "output", output);
                }
                Some("branchSummary" | "compactionSummary") => raw(out, "summary", summary),
                Some("system") => {
                    quick_content(t, content, m, "text", out);
                    quick_sections(t, sections, m, "sections", out);
                }
                _ => quick_content(t, content, m, "text", out),
            }
            return (ty, role);
        }
        Some("custom_message") => quick_content(t, get("content"), m, "text", out),
        Some("branch_summary") => raw(out, "summary", get("summary")),
        Some("compaction") => {
            if let Some(sm) = get("systemMessage").filter(|r| t.get(r.start) == Some(&b'{')) {
                let [content, sections] = pick(t, sm.start, m, ["content", "sections"]);
                quick_content(t, content, m, "systemMessage", out);
                quick_sections(t, sections, m, "systemMessage", out);
            }
            raw(out, "summary", get("summary"));
        }
        Some("session_info") => raw(out, "name", get("name")),
        Some("label") => raw(out, "label", get("label")),
        _ => {}
    }
    (ty, None)
}

/// The string at `t[r]` decoded, when it is one.
fn str_at(t: &[u8], r: Range<usize>) -> Option<Cow<'_, str>> {
    (t.get(r.start) == Some(&b'"')).then(|| js::escape::decode_string(t, r))
}

/// Whether the value at `t[r]` is a string that decodes to `want`.
#[inline]
fn str_is(t: &[u8], r: &Range<usize>, want: &str) -> bool {
    t.get(r.start) == Some(&b'"') && crate::json::key_is(t, r, want)
}

/// [`content`] in a line the checker took.
fn quick_content<'a>(
    t: &'a [u8],
    content: Option<Range<usize>>,
    m: js::check::Marks<'_>,
    field: &'static str,
    out: &mut Vec<Span<'a>>,
) {
    let Some(r) = content else {
        return;
    };
    if t.get(r.start) == Some(&b'"') {
        out.push(Span {
            field,
            text: SpanText::Raw(t, r),
        });
        return;
    }
    each_object(t, Some(r), m, |b| {
        let [bty, text] = pick(t, b, m, ["type", "text"]);
        if bty.is_some_and(|r| str_is(t, &r, "text")) {
            if let Some(r) = text.filter(|r| t.get(r.start) == Some(&b'"')) {
                out.push(Span {
                    field,
                    text: SpanText::Raw(t, r),
                });
            }
        }
    });
}

/// [`sections`] in a line the checker took: the members of the object at
/// `t[r]` walked by the marks (a rare entry, so gathered in a vector).
fn quick_sections<'a>(
    t: &'a [u8],
    r: Option<Range<usize>>,
    m: js::check::Marks<'_>,
    field: &'static str,
    out: &mut Vec<Span<'a>>,
) {
    let Some(r) = r.filter(|r| t.get(r.start) == Some(&b'{')) else {
        return;
    };
    let mut members = Vec::new();
    let mut p = r.start + 1;
    while t.get(p) == Some(&b'"') {
        let k = m.string_end(p).min(t.len());
        let ve = m.value_end(t, k + 1);
        members.push(scan::Member {
            key: p..k,
            value: k + 1..ve,
        });
        if t.get(ve) != Some(&b',') {
            break;
        }
        p = ve + 1;
    }
    section_values(t, &members, field, out);
}

/// The values of `keys` in the object opening at `t[open]` (the last of
/// a key given twice, as in `JSON.parse`).
fn pick<const N: usize>(
    t: &[u8],
    open: usize,
    m: js::check::Marks<'_>,
    keys: [&str; N],
) -> [Option<Range<usize>>; N] {
    let mut found: [Option<Range<usize>>; N] = std::array::from_fn(|_| None);
    let mut p = open + 1;
    while t.get(p) == Some(&b'"') {
        let k = m.string_end(p).min(t.len());
        let v = k + 1;
        let ve = m.value_end(t, v);
        // The key's bytes as written first; only a key with an escape is
        // decoded (once looked for, not once a wanted key longer than it).
        let raw = t.get(p + 1..k.saturating_sub(1)).unwrap_or_default();
        let at = keys.iter().position(|key| raw == key.as_bytes());
        let at = at.or_else(|| match raw.contains(&b'\\') {
            true => keys
                .iter()
                .position(|key| crate::json::key_is(t, &(p..k), key)),
            false => None,
        });
        if let Some(i) = at {
            found[i] = Some(v..ve);
        }
        if t.get(ve) != Some(&b',') {
            break;
        }
        p = ve + 1;
    }
    found
}

/// Each object element (where it opens) of the array at `t[r]`, when it
/// is an array.
fn each_object(
    t: &[u8],
    r: Option<Range<usize>>,
    m: js::check::Marks<'_>,
    mut f: impl FnMut(usize),
) {
    let Some(r) = r.filter(|r| t.get(r.start) == Some(&b'[')) else {
        return;
    };
    let mut p = r.start + 1;
    while p < r.end && t.get(p) != Some(&b']') {
        if t.get(p) == Some(&b'{') {
            f(p);
        }
        let e = m.value_end(t, p);
        if t.get(e) != Some(&b',') {
            break;
        }
        p = e + 1;
    }
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

    /// The quick read of a line the checker takes finds what the plain
    /// read finds, on entries built at random from the pieces that matter:
    /// every type and role, keys given twice or escaped, values of the
    /// wrong kind, nested containers to be skipped, tool calls whose
    /// arguments JSON.stringify would write otherwise.
    #[test]
    fn quick_entry_is_the_plain_read() {
        let values = [
            r#""x\ny \"q\" \u00e9 \\n""#,
            r#""text""#,
            r#""toolCall""#,
            "17",
            "-1.5e3",
            "null",
            "true",
            "[]",
            "{}",
            r#"[1,{"a":[{"b":"]"}]},"}"]"#,
            r#"{"type":"text","text":"in"}"#,
        ];
        let types = [
            r#""message""#,
            r#""custom_message""#,
            r#""branch_summary""#,
            r#""compaction""#,
            r#""session_info""#,
            r#""label""#,
            r#""mess\u0061ge""#,
            "1",
        ];
        let roles = [
            r#""assistant""#,
            r#""user""#,
            r#""toolResult""#,
            r#""bashExecution""#,
            r#""branchSummary""#,
            r#""compactionSummary""#,
            r#""custom""#,
            r#""system""#,
            "null",
        ];
        let keys = [
            "type",
            "text",
            "thinking",
            "name",
            "arguments",
            "content",
            "role",
            "command",
            "output",
            "summary",
            "label",
            "sections",
            "systemMessage",
            "id",
            "t\\u0065xt",
            "x",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut checker = js::check::Checker::new();
        let (mut taken, mut texts) = (0, 0);
        for _ in 0..20_000 {
            let object = |next: &mut dyn FnMut(usize) -> usize, depth: usize| {
                let mut parts = Vec::new();
                for _ in 0..next(5) {
                    let k = keys[next(keys.len())];
                    let v = match (k, depth, next(3)) {
                        ("type", _, 0) => r#""thinking""#.to_string(),
                        ("type", _, 1) => r#""toolCall""#.to_string(),
                        ("arguments", _, _) => r#"{"2":1,"a":1e2,"b":"\/"}"#.to_string(),
                        ("sections", _, 0 | 1) => {
                            r#"{"b":"s1","1":"s0","b":"s\u0032","c":null,"d":7,"0":"z","e":{}}"#
                                .to_string()
                        }
                        ("systemMessage", _, 0 | 1) => concat!(
                            r#"{"content":[{"type":"text","text":"c"},{"type":"image"}],"#,
                            r#""sections":{"k":"v","2":"w","k":null},"content":"again"}"#
                        )
                        .to_string(),
                        _ => values[next(values.len())].to_string(),
                    };
                    parts.push(format!(r#""{k}":{v}"#));
                }
                parts
            };
            let blocks: Vec<String> = (0..next(4))
                .map(|_| match next(6) {
                    0 => "7".to_string(),
                    k => {
                        let mut b = object(&mut next, 2);
                        let ty = ["text", "thinking", "toolCall"][k % 3];
                        b.insert(next(b.len() + 1), format!(r#""type":"{ty}""#));
                        let v = values[next(2)];
                        b.insert(next(b.len() + 1), format!(r#""{ty}":{v}"#));
                        format!("{{{}}}", b.join(","))
                    }
                })
                .collect();
            let content = match next(3) {
                0 => values[next(values.len())].to_string(),
                _ => format!("[{}]", blocks.join(",")),
            };
            let mut msg = object(&mut next, 1);
            msg.push(format!(r#""role":{}"#, roles[next(roles.len())]));
            msg.push(format!(r#""content":{content}"#));
            if next(2) == 0 {
                msg.push(format!(r#""role":{}"#, roles[next(roles.len())]));
            }
            let n = msg.len();
            for i in 0..n {
                let j = next(n);
                msg.swap(i, j);
            }
            let mut top = object(&mut next, 0);
            let ty = match next(2) {
                0 => types[0],
                _ => types[next(types.len())],
            };
            top.push(format!(r#""type":{ty}"#));
            top.push(format!(r#""message":{{{}}}"#, msg.join(",")));
            top.push(format!(r#""content":{content}"#));
            if next(3) == 0 {
                top.push(format!(r#""type":{}"#, types[next(types.len())]));
            }
            let line = format!("{{{}}}", top.join(","));
            let t = line.as_bytes();
            if checker.valid_object(t).is_none() {
                continue;
            }
            taken += 1;
            let o = Object::parse_line(t).unwrap().unwrap();
            let e = Entry::new(&o, None);
            let plain: Vec<Text<'_>> = entry_spans(&e).into_iter().map(Span::decode).collect();
            let mut out = Vec::new();
            let top_members = checker.members().to_vec();
            let (ty, role) = quick_entry(
                t,
                &top_members,
                checker.marks(),
                &mut js::check::Checker::new(),
                &|_| true,
                &mut out,
            );
            let quick: Vec<Text<'_>> = out.into_iter().map(Span::decode).collect();
            assert_eq!((ty, role), (e.ty.clone(), e.role.clone()), "{line}");
            assert_eq!(quick, plain, "{line}");
            texts += usize::from(!plain.is_empty());
        }
        assert!(taken > 15_000 && texts > 2000, "{taken} {texts}");
    }
}
