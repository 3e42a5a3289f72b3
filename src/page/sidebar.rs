//! The sidebar: every entry of the tree as one row, as pi's `/tree` and
//! its export show it, with pi's filters as CSS-only radio buttons.

use super::edits::{Edits, Shown};
use super::esc;
use super::order::{Layout, Node};
use crate::entry::EntryType;
use crate::error::Result;
use crate::json::Object;
use crate::search::tree_text::{self, Display};
use crate::session::Session;

/// The radio buttons of pi's filters, before the layout (their `:checked`
/// state styles the rows that follow them).
pub(crate) const FILTERS: [(&str, &str); 5] = [
    ("default", "Default"),
    ("notools", "No-tools"),
    ("user", "User"),
    ("labeled", "Labeled"),
    ("all", "All"),
];

/// The deepest indent the sidebar draws (deeper rows stay there).
const MAX_INDENT: u32 = 16;

/// The longest row text kept (the row is cut by CSS long before).
const ROW_CHARS: usize = 160;

/// The label on entry `i`.
pub(crate) fn label_of(s: &Session, i: usize) -> Option<&str> {
    if s.index.labels.is_empty() {
        return None;
    }
    let id = s.entries.id(i)?;
    s.index.labels.get(&id).map(|l| &*l.label)
}

/// The classes pi's filters read: `s` settings entry, `t` tool result, `u`
/// user message, `l` labelled, `x` an assistant message with only tool
/// calls (pi's tree hides those in every filter).
fn classes(ty: EntryType, obj: Option<&Object<'_>>, labelled: bool) -> String {
    let mut c = String::new();
    let msg = obj.and_then(|o| o.object("message"));
    let role = msg.as_ref().and_then(|m| m.str("role"));
    match ty {
        EntryType::Label
        | EntryType::Custom
        | EntryType::ContextEdit
        | EntryType::ModelChange
        | EntryType::ThinkingLevelChange => c.push_str(" s"),
        EntryType::Message => match (role.as_deref(), msg.as_ref()) {
            (Some("toolResult"), _) => c.push_str(" t"),
            (Some("user"), _) => c.push_str(" u"),
            (Some("assistant"), Some(m)) => {
                let text = m
                    .get("content")
                    .is_some_and(|r| tree_text::has_text_content(m.text, r));
                let stop = m.str("stopReason");
                let odd = stop
                    .as_deref()
                    .is_some_and(|s| s != "stop" && s != "toolUse");
                if !text && !odd {
                    c.push_str(" x");
                }
            }
            _ => {}
        },
        _ => {}
    }
    if labelled {
        c.push_str(" l");
    }
    c
}

/// The CSS class of a row piece's colour.
fn colour(c: Option<&str>) -> &'static str {
    match c {
        Some(tree_text::ACCENT) => "rl",
        Some(tree_text::SUCCESS) => "ra",
        Some(tree_text::WARNING) => "rw",
        Some(tree_text::ERROR) => "re",
        Some(_) => "rd",
        None => "",
    }
}

/// Write the sidebar's rows into `out`, calling `flush` between rows.
pub(crate) fn rows(
    s: &Session,
    layout: &Layout,
    edits: &Edits,
    out: &mut String,
    flush: &mut dyn FnMut(&mut String) -> Result<()>,
) -> Result<()> {
    let display = Display::with_home("");
    out.push_str("<ol class=\"tree\">\n");
    layout.each(|_, node| {
        row(s, layout, node, &display, edits, out)?;
        flush(out)
    })?;
    out.push_str("</ol>\n");
    Ok(())
}

fn row(
    s: &Session,
    layout: &Layout,
    node: &Node,
    display: &Display,
    edits: &Edits,
    out: &mut String,
) -> Result<()> {
    let i = node.entry as usize;
    let (line, ty) = match edits.shown(s, i)? {
        Shown::Line(l, _) => (l, s.entries[i].ty()),
        Shown::Replaced(v, _) => (std::borrow::Cow::Owned(v), EntryType::Message),
        Shown::Omitted(_) => (
            std::borrow::Cow::Borrowed(
                &br#"{"type":"custom","customType":"omitted by a context edit"}"#[..],
            ),
            EntryType::Custom,
        ),
    };
    let obj = Object::parse_line(&line).ok().flatten();
    let label = label_of(s, i);
    let mut cls = format!("i{}", node.indent.min(MAX_INDENT));
    cls.push_str(&classes(ty, obj.as_ref(), label.is_some()));
    if node.active {
        cls.push_str(" a");
    }
    if layout.leaf == Some(i) {
        cls.push_str(" leaf");
    }
    let lineno = s.entries[i].line();
    out.push_str(&format!("<li class=\"{cls}\"><a href=\"#l{lineno}\">"));
    if let Some(l) = label {
        out.push_str("<span class=\"lb\">[");
        esc::text(out, l);
        out.push_str("]</span> ");
    }
    let segs = match &obj {
        Some(o) => row_text(s, i, ty, o, display, edits),
        None => vec![(
            format!("[line {lineno}: not an object]").into(),
            Some(tree_text::ERROR),
        )],
    };
    let mut left = ROW_CHARS;
    for (t, c) in segs {
        if left == 0 {
            break;
        }
        let cut: String = t.chars().take(left).collect();
        left -= cut.chars().count();
        match colour(c) {
            "" => esc::text(out, &cut),
            k => {
                out.push_str(&format!("<span class=\"{k}\">"));
                esc::text(out, &cut);
                out.push_str("</span>");
            }
        }
    }
    out.push_str("</a></li>\n");
    Ok(())
}

/// pi's row text; a tool result's is its call's, found in the assistant
/// message above it.
fn row_text(
    s: &Session,
    i: usize,
    ty: EntryType,
    o: &Object<'_>,
    display: &Display,
    edits: &Edits,
) -> Vec<tree_text::Seg> {
    let m = o.object("message");
    if let Some(am) = m
        .as_ref()
        .filter(|m| ty == EntryType::Message && m.str("role").as_deref() == Some("assistant"))
    {
        super::tools::keep_calls(edits, i, am);
    }
    if let Some(m) =
        m.filter(|m| ty == EntryType::Message && m.str("role").as_deref() == Some("toolResult"))
    {
        if let Some((name, args)) = super::tools::find_call(s, i, &m, edits) {
            return vec![(
                display.format_tool_call(&name, args.as_deref()).into(),
                Some(tree_text::DIM),
            )];
        }
    }
    match display.text(ty, o) {
        Ok(v) if v.is_empty() => {
            vec![(format!("[{}]", s.type_name(i)).into(), Some(tree_text::DIM))]
        }
        Ok(v) => v,
        Err(why) => vec![(why.into(), Some(tree_text::ERROR))],
    }
}
