//! The plain-text transcript: every line of a turn as `role: text`.

use super::{human_size, Mark, Part, ToolResult, Turn};

fn text_lines(s: &mut String, role: &str, text: &str) {
    for l in text.split('\n') {
        s.push_str(role);
        s.push(':');
        if !l.is_empty() {
            s.push(' ');
            s.push_str(l);
        }
        s.push('\n');
    }
}

fn text_parts(s: &mut String, role: &str, parts: &[Part]) {
    for p in parts {
        match p {
            Part::Text(t) => text_lines(s, role, t.trim_end_matches('\n')),
            Part::Thinking { text, .. } => text_lines(
                s,
                &format!("{role} (thinking)"),
                text.trim_end_matches('\n'),
            ),
            Part::Image { mime, bytes } => {
                text_lines(s, role, &format!("[image: {mime}, {}]", human_size(*bytes)))
            }
            Part::ToolCall {
                name, args, result, ..
            } => {
                let r = format!("{role} (tool call {name})");
                args.show(
                    s,
                    |s, c| text_lines(s, &r, &format!("$ {c}")),
                    |s, p| text_lines(s, &r, &format!("path: {p}")),
                    |s, j| text_lines(s, &r, j),
                );
                if let Some(res) = result {
                    text_result(s, res);
                }
            }
            Part::ToolResult(res) => text_result(s, res),
            Part::Shell(c) => text_lines(s, role, &format!("$ {c}")),
            Part::Output(None) => text_lines(s, role, "(no output)"),
            Part::Output(Some(o)) => text_lines(s, role, o.trim_end_matches('\n')),
            Part::Json(j) => text_lines(s, role, j),
            Part::Original(parts) => text_parts(s, &format!("{role} (original)"), parts),
        }
    }
}

fn text_result(s: &mut String, r: &ToolResult) {
    let role = match (r.name.is_empty(), r.is_error) {
        (true, false) => "toolResult".to_string(),
        (true, true) => "toolResult (error)".to_string(),
        (false, false) => format!("toolResult ({})", r.name),
        (false, true) => format!("toolResult ({}, error)", r.name),
    };
    text_parts(s, &role, &r.parts);
}

/// The whole transcript (the text format shows no title or fields).
pub(super) fn render(s: &mut String, turns: &[Turn]) {
    for t in turns {
        turn(s, t);
    }
}

/// One turn: its lines, then its notes.
pub(super) fn turn(s: &mut String, t: &Turn) {
    let role = t.role.replace('\n', " ");
    text_parts(s, &role, &t.parts);
    for n in &t.notes {
        text_lines(s, &role, &format!("[{}]", n.text));
    }
}

/// A mark between turns: `KIND: TEXT` on one line (`model change: ...`).
pub(super) fn mark(s: &mut String, m: &Mark) {
    let mut text = m.text.replace('\n', " ");
    if let Some(t) = &m.time {
        text.push_str(&format!(" · {t}"));
    }
    text_lines(s, m.kind, &text);
}
