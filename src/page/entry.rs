//! One entry of the session as an `<article>` of the page, anchored by its
//! line number (`#l12`: unique even when ids repeat).

use super::edits::{Edits, Shown};
use super::esc;
use super::order::Node;
use super::tools;
use crate::entry::EntryType;
use crate::error::Result;
use crate::json::Object;
use crate::session::Session;
use std::borrow::Cow;

/// Write entry `node`'s article into `out`.
pub(crate) fn article(
    s: &Session,
    node: &Node,
    leaf: Option<usize>,
    edits: &Edits,
    out: &mut String,
) -> Result<()> {
    let i = node.entry as usize;
    let lineno = s.entries[i].line();
    let mut body = String::new();
    let edit_line = |e: usize| s.entries[e].line();
    let (line, ty, note) = match edits.shown(s, i)? {
        Shown::Line(l, None) => (l, s.entries[i].ty(), None),
        Shown::Line(l, Some(e)) => (
            l,
            s.entries[i].ty(),
            Some(format!("The original: the context edit on <a href=\"#l{0}\">line {0}</a> changes what the model sees of it.", edit_line(e))),
        ),
        Shown::Replaced(v, e) => (
            Cow::Owned(v),
            EntryType::Message,
            Some(format!("As the context edit on <a href=\"#l{0}\">line {0}</a> replaced it (the original is shown with --include-hidden).", edit_line(e))),
        ),
        Shown::Omitted(e) => (
            Cow::Borrowed(&b""[..]),
            EntryType::None,
            Some(format!("Omitted from what the model sees by the context edit on <a href=\"#l{0}\">line {0}</a> (shown with --include-hidden).", edit_line(e))),
        ),
    };
    let obj = Object::parse_line(&line).ok().flatten();
    if let Some(n) = &note {
        body.push_str("<div class=\"rd\">");
        body.push_str(n);
        body.push_str("</div>");
    }
    let (kind, who, err) = match &obj {
        Some(o) => render(s, i, ty, o, edits, &mut body),
        None if ty == EntryType::None && note.is_some() => ("meta", "Omitted".to_string(), false),
        None => ("meta", "not a JSON object".to_string(), true),
    };
    out.push_str(&format!("<article id=\"l{lineno}\" class=\"e k-{kind}"));
    if node.active {
        out.push_str(" a");
    }
    if err {
        out.push_str(" err");
    }
    out.push('"');
    if let Some(p) = node.parent {
        out.push_str(&format!(" data-p=\"l{}\"", s.entries[p as usize].line()));
    }
    out.push_str("><div class=\"eh\"><span class=\"who\">");
    esc::text(out, &who);
    out.push_str("</span>");
    if let Some(l) = super::sidebar::label_of(s, i) {
        out.push_str("<span class=\"label\">[");
        esc::text(out, l);
        out.push_str("]</span>");
    }
    if leaf == Some(i) {
        out.push_str("<span class=\"badge\">leaf</span>");
    }
    out.push_str(&format!("<a href=\"#l{lineno}\">line {lineno}"));
    if let Some(id) = obj.as_ref().and_then(|o| o.str("id")) {
        out.push_str(" · ");
        esc::text(out, &id);
    }
    out.push_str("</a>");
    if let Some(t) = obj.as_ref().and_then(|o| o.str("timestamp")) {
        out.push_str("<span>");
        esc::text(out, &t);
        out.push_str("</span>");
    }
    out.push_str("</div>\n");
    out.push_str(&body);
    out.push_str("</article>\n");
    Ok(())
}

/// A string field, or "".
fn field(o: &Object<'_>, k: &str) -> String {
    o.str(k).map(|c| c.into_owned()).unwrap_or_default()
}

/// The body of entry `i`: its kind (a CSS class), who or what it is, and
/// whether it is an error.
fn render(
    s: &Session,
    i: usize,
    ty: EntryType,
    o: &Object<'_>,
    edits: &Edits,
    out: &mut String,
) -> (&'static str, String, bool) {
    let meta = |out: &mut String, t: String| {
        out.push_str("<div>");
        esc::text(out, &t);
        out.push_str("</div>");
    };
    match ty {
        EntryType::Message => match o.object("message") {
            Some(m) => message(s, i, &m, edits, out),
            None => ("meta", "message without a message".into(), true),
        },
        EntryType::Compaction => {
            let tokens = o
                .raw("tokensBefore")
                .map(|r| String::from_utf8_lossy(r).into_owned())
                .unwrap_or_default();
            out.push_str(&format!(
                "<div class=\"rd\">Compacted from {} tokens: the model saw this summary in place of the entries above it.</div><div class=\"md\">",
                esc::html(&tokens)
            ));
            super::markdown::render(out, &field(o, "summary"));
            out.push_str("</div>");
            ("summary", "Compaction".into(), false)
        }
        EntryType::BranchSummary => {
            out.push_str("<div class=\"md\">");
            super::markdown::render(out, &field(o, "summary"));
            out.push_str("</div>");
            ("summary", "Branch summary".into(), false)
        }
        EntryType::CustomMessage => {
            let text = match o.get("content") {
                Some(r) if o.text[r.start] == b'"' => field(o, "content"),
                _ => tools::content_text(o),
            };
            tools::fold(out, &text, None);
            if o.raw("display") == Some(b"false") {
                out.push_str("<div class=\"rd\">(hidden in pi's terminal)</div>");
            }
            (
                "summary",
                format!("custom message: {}", field(o, "customType")),
                false,
            )
        }
        EntryType::ModelChange => {
            meta(
                out,
                format!("model: {}/{}", field(o, "provider"), field(o, "modelId")),
            );
            ("meta", "Model change".into(), false)
        }
        EntryType::ThinkingLevelChange => {
            meta(
                out,
                format!("thinking level: {}", field(o, "thinkingLevel")),
            );
            ("meta", "Thinking level".into(), false)
        }
        EntryType::Label => {
            let l = o
                .str("label")
                .map(|c| c.into_owned())
                .unwrap_or_else(|| "(cleared)".into());
            meta(out, format!("label {l} on {}", field(o, "targetId")));
            ("meta", "Label".into(), false)
        }
        EntryType::SessionInfo => {
            meta(out, format!("title: {}", field(o, "name")));
            ("meta", "Session info".into(), false)
        }
        EntryType::ContextEdit => {
            let kind = if o.raw("replacement") == Some(b"null") {
                "omits"
            } else {
                "replaces"
            };
            meta(
                out,
                format!(
                    "this edit {kind} what the model sees of entry {}",
                    field(o, "targetId")
                ),
            );
            // The replacement is shown on the entry it edits (as the
            // model sees it there, after any later edit).
            if let (true, Ok(Some(r))) = (edits.originals, o.canonical("replacement")) {
                if r != b"null" {
                    tools::fold(out, &String::from_utf8_lossy(&r), None);
                }
            }
            ("meta", "Context edit".into(), false)
        }
        _ => {
            meta(out, format!("[{}]", s.type_name(i)));
            ("meta", s.type_name(i).to_string(), false)
        }
    }
}

/// A message entry's body, by role.
fn message(
    s: &Session,
    i: usize,
    m: &Object<'_>,
    edits: &Edits,
    out: &mut String,
) -> (&'static str, String, bool) {
    let role = field(m, "role");
    match &*role {
        "user" => {
            out.push_str("<div class=\"md\">");
            super::markdown::render(out, &tools::content_text(m));
            out.push_str("</div>");
            tools::images(out, m);
            ("user", "User".into(), false)
        }
        "assistant" => {
            tools::keep_calls(edits, i, m);
            assistant(m, out)
        }
        "toolResult" => {
            let err = m.raw("isError") == Some(b"true");
            if err {
                out.push_str("<span class=\"badge errtext\">error</span>");
            }
            tools::result(out, s, i, m, edits);
            ("tool", format!("result: {}", field(m, "toolName")), err)
        }
        "bashExecution" => {
            out.push_str("<div class=\"call\"><code>$ ");
            esc::text(out, &field(m, "command"));
            out.push_str("</code>");
            let code = m
                .raw("exitCode")
                .map(|r| String::from_utf8_lossy(r).into_owned());
            let err = code.as_deref().is_some_and(|c| c != "0" && c != "null");
            if let Some(c) = &code {
                out.push_str(&format!(
                    " <span class=\"badge{}\">exit {}</span>",
                    if err { " errtext" } else { "" },
                    esc::html(c)
                ));
            }
            if m.raw("excludeFromContext") == Some(b"true") {
                out.push_str(" <span class=\"badge\">!! not sent to the model</span>");
            }
            tools::fold(out, &field(m, "output"), None);
            out.push_str("</div>");
            ("tool", "Shell (user)".into(), err)
        }
        "system" => {
            system(m, out);
            ("summary", "System prompt".into(), false)
        }
        _ => {
            tools::fold(out, &tools::content_text(m), None);
            ("summary", role, false)
        }
    }
}

fn assistant(m: &Object<'_>, out: &mut String) -> (&'static str, String, bool) {
    for b in tools::blocks(m) {
        match b.str("type").as_deref() {
            Some("text") => {
                out.push_str("<div class=\"md\">");
                super::markdown::render(out, &field(&b, "text"));
                out.push_str("</div>");
            }
            Some("thinking") => {
                out.push_str("<details class=\"fold thinking\"><summary>thinking</summary><pre>");
                esc::text(out, &field(&b, "thinking"));
                out.push_str("</pre></details>");
            }
            Some("toolCall") => tools::call(out, &b),
            _ => {}
        }
    }
    if m.get("content").is_some_and(|r| m.text[r.start] == b'"') {
        out.push_str("<div class=\"md\">");
        super::markdown::render(out, &field(m, "content"));
        out.push_str("</div>");
    }
    let stop = field(m, "stopReason");
    let err = stop == "error" || stop == "aborted";
    if err || m.str("errorMessage").is_some_and(|e| !e.is_empty()) {
        out.push_str("<div class=\"errtext\">");
        esc::text(out, &format!("{stop}: {}", field(m, "errorMessage")));
        out.push_str("</div>");
    }
    let mut foot = field(m, "model");
    if let Some(u) = m.object("usage") {
        let n = |k: &str| {
            u.raw(k)
                .map(|r| String::from_utf8_lossy(r).into_owned())
                .unwrap_or_else(|| "0".into())
        };
        foot.push_str(&format!(
            " · ↑{} ↓{} R{} W{}",
            n("input"),
            n("output"),
            n("cacheRead"),
            n("cacheWrite")
        ));
        if let Some(t) = u.object("cost").and_then(|c| c.raw("total")) {
            let t: f64 = std::str::from_utf8(t)
                .ok()
                .and_then(|t| t.parse().ok())
                .unwrap_or(0.0);
            foot.push_str(&format!(" · ${}", super::stats::to_fixed(t, 4)));
        }
    }
    out.push_str("<div class=\"eh\">");
    esc::text(out, &foot);
    out.push_str("</div>");
    ("assistant", "Assistant".into(), err)
}

/// A system prompt entry: its text, its sections, the tools it adds.
fn system(m: &Object<'_>, out: &mut String) {
    tools::fold(out, &tools::content_text(m), None);
    if let Some(sec) = m.object("sections") {
        for mem in &sec.members {
            let k = crate::json::js::string::string_value(&sec.text[mem.key.clone()]);
            out.push_str("<div class=\"rd\">");
            esc::text(out, &k);
            out.push_str("</div>");
            let v = &sec.text[mem.value.clone()];
            let t = if v.first() == Some(&b'"') {
                crate::json::js::string::string_value(v)
            } else {
                String::from_utf8_lossy(v).into_owned()
            };
            tools::fold(out, &t, None);
        }
    }
    let Some(r) = m.get("toolsAdded").filter(|r| m.text[r.start] == b'[') else {
        return;
    };
    out.push_str("<div class=\"rd\">Tools</div><ul class=\"tools\">");
    for el in crate::json::scan::elements(m.text, r).unwrap_or_default() {
        let Ok(t) = Object::at(m.text, el) else {
            continue;
        };
        out.push_str("<li><b>");
        esc::text(out, &field(&t, "name"));
        out.push_str("</b> — ");
        esc::text(out, &field(&t, "description"));
        if let Ok(Some(p)) = t.canonical("parameters") {
            out.push_str("<details class=\"fold\"><summary>parameters</summary><pre>");
            esc::text(out, &String::from_utf8_lossy(&p));
            out.push_str("</pre></details>");
        }
        out.push_str("</li>");
    }
    out.push_str("</ul>");
}
