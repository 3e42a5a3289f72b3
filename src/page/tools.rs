//! Tool calls and their results: the call's arguments (bash's command,
//! read/write/edit's path), results folded when long, file reads with line
//! numbers, edits as diffs (pi's `details.diff`, else the call's old and
//! new text), errors marked.

use super::edits::{Above, Call, Edits, Shown};
use super::esc;
use crate::json::js::string::string_value;
use crate::json::scan;
use crate::json::Object;
use crate::session::Session;

/// Lines shown before a long output folds.
const FOLD_LINES: usize = 12;
/// Characters shown before a long output with few lines folds.
const FOLD_CHARS: usize = 3000;
/// How far up a tool result's call is looked for.
const CALL_SEARCH: usize = 64;

/// The call (name, `JSON.stringify` of its arguments) that the tool result
/// `m` (the message of entry `i`) answers: in the nearest assistant
/// message above it that has a call with its `toolCallId`.
pub(crate) fn find_call(
    s: &Session,
    i: usize,
    m: &Object<'_>,
    edits: &Edits,
) -> Option<(String, Option<Vec<u8>>)> {
    let want = m.str("toolCallId")?;
    let mut at = s.index.parent_of(i);
    for _ in 0..CALL_SEARCH {
        let p = at?;
        if s.entries[p].ty() == crate::entry::EntryType::Message {
            match &*edits.calls.of(p, || above(s, p, edits)) {
                Above::Stop => return None,
                Above::Skip => {}
                Above::Calls(calls) => {
                    return calls
                        .iter()
                        .find(|c| c.id == *want)
                        .map(|c| (c.name.clone(), c.args.clone()));
                }
            }
        }
        at = s.index.parent_of(p);
    }
    None
}

/// Message entry `p` as [`find_call`] reads it, as the page shows it (a
/// context edit's redaction holds).
fn above(s: &Session, p: usize, edits: &Edits) -> Above {
    let line = match edits.shown(s, p) {
        Ok(Shown::Line(l, _)) => l,
        Ok(Shown::Replaced(v, _)) => std::borrow::Cow::Owned(v),
        Ok(Shown::Omitted(_)) | Err(_) => return Above::Stop,
    };
    let Some(o) = Object::parse_line(&line).ok().flatten() else {
        return Above::Stop;
    };
    match o.object("message") {
        Some(am) if am.str("role").as_deref() == Some("assistant") => calls_of(&am),
        _ => Above::Skip,
    }
}

/// The calls of the assistant message `am`.
fn calls_of(am: &Object<'_>) -> Above {
    Above::Calls(
        blocks(am)
            .iter()
            .filter(|b| b.str("type").as_deref() == Some("toolCall"))
            .filter_map(|b| {
                Some(Call {
                    id: b.str("id")?.into_owned(),
                    name: b.str("name").unwrap_or_default().into_owned(),
                    args: b.canonical("arguments").ok().flatten(),
                })
            })
            .collect(),
    )
}

/// Keep the calls of entry `p`, an assistant message `am` as the page
/// shows it, parsed already for its own row or article: the results that
/// follow it find their calls without parsing it again.
pub(crate) fn keep_calls(edits: &Edits, p: usize, am: &Object<'_>) {
    edits.calls.of(p, || calls_of(am));
}

/// The object blocks of a message's `content` array.
pub(crate) fn blocks<'a>(m: &Object<'a>) -> Vec<Object<'a>> {
    let Some(r) = m.get("content").filter(|r| m.text[r.start] == b'[') else {
        return vec![];
    };
    scan::elements(m.text, r)
        .unwrap_or_default()
        .into_iter()
        .filter(|e| m.text[e.start] == b'{')
        .filter_map(|e| Object::at(m.text, e).ok())
        .collect()
}

/// The text of a message's content: a string, or its text blocks joined.
pub(crate) fn content_text(m: &Object<'_>) -> String {
    match m.get("content") {
        Some(r) if m.text[r.start] == b'"' => string_value(&m.text[r]),
        Some(_) => blocks(m)
            .iter()
            .filter(|b| b.str("type").as_deref() == Some("text"))
            .filter_map(|b| b.str("text").map(|t| t.into_owned()))
            .collect::<Vec<_>>()
            .join("\n"),
        None => String::new(),
    }
}

/// A string argument of a call.
fn arg(args: &Object<'_>, k: &str) -> Option<String> {
    args.str(k).map(|c| c.into_owned())
}

/// A tool call block, inside its assistant message.
pub(crate) fn call(out: &mut String, b: &Object<'_>) {
    let name = b.str("name").unwrap_or_default();
    out.push_str("<div class=\"call\"><span class=\"tn\">");
    esc::text(out, &name);
    out.push_str("</span> ");
    let args = b.object("arguments");
    let path = args
        .as_ref()
        .and_then(|a| arg(a, "path").or_else(|| arg(a, "file_path")));
    match (&*name, &args, path) {
        ("bash", Some(a), _) => {
            out.push_str("<code>$ ");
            esc::text(out, &arg(a, "command").unwrap_or_default());
            out.push_str("</code>");
        }
        (_, Some(a), Some(p)) => {
            out.push_str("<code>");
            esc::text(out, &p);
            out.push_str("</code>");
            if let (Some(o), l) = (a.raw("offset"), a.raw("limit")) {
                out.push_str(&format!(
                    " <span class=\"rd\">from line {}{}</span>",
                    esc::html(&String::from_utf8_lossy(o)),
                    l.map(|l| format!(", {} lines", esc::html(&String::from_utf8_lossy(l))))
                        .unwrap_or_default()
                ));
            }
            if name == "write" {
                fold(out, &arg(a, "content").unwrap_or_default(), None);
            }
        }
        _ => {
            if let Ok(Some(j)) = b.canonical("arguments") {
                fold(out, &String::from_utf8_lossy(&j), None);
            }
        }
    }
    out.push_str("</div>\n");
}

/// `text` in a `<pre>`, its lines numbered from `first` when given; past
/// [`FOLD_LINES`] lines (or [`FOLD_CHARS`]) the rest is in a fold.
pub(crate) fn fold(out: &mut String, text: &str, first: Option<u64>) {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut cut = lines.len().min(FOLD_LINES);
    let mut chars = 0;
    for (k, l) in lines.iter().take(cut).enumerate() {
        chars += l.len();
        if chars > FOLD_CHARS {
            cut = k.max(1);
            break;
        }
    }
    let pre = |out: &mut String, from: usize, part: &[&str]| {
        out.push_str("<pre>");
        for (k, l) in part.iter().enumerate() {
            if let Some(f) = first {
                out.push_str(&format!(
                    "<span class=\"ln\">{}</span>",
                    f + (from + k) as u64
                ));
            }
            esc::text(out, l);
            if k + 1 < part.len() {
                out.push('\n');
            }
        }
        out.push_str("</pre>");
    };
    pre(out, 0, &lines[..cut]);
    if cut < lines.len() {
        let more = lines.len() - cut;
        out.push_str(&format!(
            "<details class=\"fold\"><summary>{more} more line{}</summary>",
            if more == 1 { "" } else { "s" }
        ));
        pre(out, cut, &lines[cut..]);
        out.push_str("</details>");
    }
}

/// A diff: `+` lines added, `-` lines removed.
pub(crate) fn diff(out: &mut String, text: &str) {
    out.push_str("<pre class=\"diff\">");
    for l in text.split('\n') {
        let c = match l.as_bytes().first() {
            Some(b'+') => " class=\"add\"",
            Some(b'-') => " class=\"del\"",
            _ => "",
        };
        out.push_str(&format!("<div{c}>"));
        esc::text(out, &l.replace('\t', "    "));
        out.push_str("</div>");
    }
    out.push_str("</pre>");
}

/// An edit call's diff from its arguments (`oldText`/`newText`, or an
/// `edits` array of them), for results that carry no `details.diff`.
fn args_diff(args: &Object<'_>) -> Option<String> {
    let mut pairs = Vec::new();
    if let (Some(o), Some(n)) = (arg(args, "oldText"), arg(args, "newText")) {
        pairs.push((o, n));
    }
    if let Some(r) = args.get("edits").filter(|r| args.text[r.start] == b'[') {
        for e in scan::elements(args.text, r).unwrap_or_default() {
            if let Ok(e) = Object::at(args.text, e) {
                if let (Some(o), Some(n)) = (arg(&e, "oldText"), arg(&e, "newText")) {
                    pairs.push((o, n));
                }
            }
        }
    }
    if pairs.is_empty() {
        return None;
    }
    let mut d = String::new();
    for (k, (o, n)) in pairs.iter().enumerate() {
        if k > 0 {
            d.push_str("\n…\n");
        }
        for l in o.split('\n') {
            d.push('-');
            d.push_str(l);
            d.push('\n');
        }
        for l in n.split('\n') {
            d.push('+');
            d.push_str(l);
            d.push('\n');
        }
    }
    d.pop();
    Some(d)
}

/// The body of a tool result `m` (entry `i`).
pub(crate) fn result(out: &mut String, s: &Session, i: usize, m: &Object<'_>, edits: &Edits) {
    let call = find_call(s, i, m, edits);
    let args_json = call.as_ref().and_then(|(_, a)| a.clone());
    let args = args_json
        .as_deref()
        .and_then(|a| Object::parse_line(a).ok().flatten());
    let name = match &call {
        Some((n, _)) => n.clone(),
        None => m.str("toolName").unwrap_or_default().into_owned(),
    };
    let text = content_text(m);
    let details_diff = m
        .object("details")
        .and_then(|d| d.str("diff").map(|x| x.into_owned()));
    if name == "edit" {
        if let Some(d) = details_diff.or_else(|| args.as_ref().and_then(args_diff)) {
            diff(out, &d);
        }
        if !text.trim().is_empty() {
            fold(out, text.trim(), None);
        }
    } else if name == "read" {
        // Numbered unless the tool numbered them itself.
        let numbered = text.lines().take(3).all(|l| {
            let t = l.trim_start();
            t.chars().next().is_some_and(|c| c.is_ascii_digit())
        }) && !text.is_empty();
        let first = args
            .as_ref()
            .and_then(|a| a.raw("offset"))
            .and_then(|o| std::str::from_utf8(o).ok()?.parse::<u64>().ok())
            .unwrap_or(1);
        fold(out, &text, (!numbered).then_some(first));
    } else if !text.is_empty() {
        fold(out, &text, None);
    }
    images(out, m);
}

/// Image blocks of a message, inline as `data:` URLs (never fetched):
/// only the usual image types and base64 text.
pub(crate) fn images(out: &mut String, m: &Object<'_>) {
    for b in blocks(m) {
        if b.str("type").as_deref() != Some("image") {
            continue;
        }
        let mime = b.str("mimeType").unwrap_or_default();
        let data = b.str("data").unwrap_or_default();
        let ok_mime = matches!(
            &*mime,
            "image/png" | "image/jpeg" | "image/gif" | "image/webp"
        );
        let ok_data = data
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='));
        if ok_mime && ok_data && !data.is_empty() {
            out.push_str(&format!(
                "<img class=\"att\" alt=\"image\" src=\"data:{mime};base64,{data}\">"
            ));
        } else {
            out.push_str("<div class=\"rd\">[image not shown: ");
            esc::text(out, &mime);
            out.push_str("]</div>");
        }
    }
}
