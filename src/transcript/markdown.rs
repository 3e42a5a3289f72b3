//! The Markdown transcript: a heading a turn, text as it is, code and
//! outputs in fences longer than any backtick run they hold.

use super::{human_size, Args, Mark, Meta, Part, ToolResult, Turn};

/// The longest run of backticks in `text`.
fn longest_backticks(text: &str) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    longest
}

/// A code fence longer than any backtick run in `text`.
fn fence(text: &str) -> String {
    "`".repeat((longest_backticks(text) + 1).max(3))
}

fn md_block(s: &mut String, lang: &str, text: &str) {
    let f = fence(text);
    s.push_str(&format!("{f}{lang}\n{text}"));
    if !text.ends_with('\n') {
        s.push('\n');
    }
    s.push_str(&format!("{f}\n\n"));
}

/// Inline code that holds any backticks in `text`.
fn md_code(text: &str) -> String {
    let one_line = text.replace('\n', " ");
    let longest = longest_backticks(&one_line);
    let ticks = "`".repeat(longest + 1);
    if longest > 0 || one_line.starts_with(' ') || one_line.ends_with(' ') {
        format!("{ticks} {one_line} {ticks}")
    } else {
        format!("{ticks}{one_line}{ticks}")
    }
}

/// Session text on a line of Markdown outside code (a title, a role, a
/// model, a note, a MIME type): one line, its control characters shown, and
/// `&`, `<`, `>` as entities, so that no session can write raw HTML into
/// the transcript (a Markdown renderer passes HTML through).
fn md_inline(text: &str) -> String {
    let one_line = text.replace('\n', " ");
    // A tab stays (it is text in Markdown, as pi-grep's lines keep it).
    let shown = crate::visible::line(&one_line);
    let mut out = String::with_capacity(shown.len());
    for c in shown.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

fn md_quote(s: &mut String, text: &str) {
    for l in text.split('\n') {
        if l.is_empty() {
            s.push_str(">\n");
        } else {
            s.push_str("> ");
            s.push_str(l);
            s.push('\n');
        }
    }
    s.push('\n');
}

fn md_parts(s: &mut String, parts: &[Part]) {
    for p in parts {
        match p {
            Part::Text(t) => {
                s.push_str(t.trim_end_matches('\n'));
                s.push_str("\n\n");
            }
            Part::Thinking { text, redacted } => {
                s.push_str(if *redacted {
                    "> **thinking** (redacted)\n>\n"
                } else {
                    "> **thinking**\n>\n"
                });
                md_quote(s, text.trim_end_matches('\n'));
            }
            Part::Image { mime, bytes } => {
                s.push_str(&format!(
                    "*[image: {}, {}]*\n\n",
                    md_inline(mime),
                    human_size(*bytes)
                ));
            }
            Part::ToolCall {
                name,
                id,
                args,
                result,
            } => {
                s.push_str(&format!(
                    "**tool call** {} · {}\n\n",
                    md_code(name),
                    md_code(id)
                ));
                md_args(s, args);
                match result {
                    Some(r) => md_result(s, r),
                    None => s.push_str("*(no result)*\n\n"),
                }
            }
            Part::ToolResult(r) => md_result(s, r),
            Part::Shell(c) => md_block(s, "sh", c),
            Part::Output(None) => s.push_str("*(no output)*\n\n"),
            Part::Output(Some(o)) => md_block(s, "", o),
            Part::Json(j) => md_block(s, "json", j),
            Part::Original(parts) => {
                let mut inner = String::new();
                md_parts(&mut inner, parts);
                s.push_str("> **original, before the context edit**\n>\n");
                md_quote(s, inner.trim_end_matches('\n'));
            }
        }
    }
}

fn md_args(s: &mut String, args: &Args) {
    args.show(
        s,
        |s, c| md_block(s, "sh", c),
        |s, p| s.push_str(&format!("path: {}\n\n", md_code(p))),
        |s, j| md_block(s, "json", j),
    );
}

fn md_result(s: &mut String, r: &ToolResult) {
    let mut head = String::from("**result**");
    if !r.name.is_empty() {
        head.push_str(&format!(" of {}", md_code(&r.name)));
    }
    if r.is_error {
        head.push_str(" — **error**");
    }
    if let Some(t) = &r.time {
        head.push_str(&format!(" · {t}"));
    }
    s.push_str(&head);
    s.push_str("\n\n");
    if r.parts.is_empty() {
        s.push_str("*(empty)*\n\n");
    }
    for p in &r.parts {
        match p {
            Part::Text(t) => md_block(s, "", t),
            other => md_parts(s, std::slice::from_ref(other)),
        }
    }
}

/// The whole transcript.
pub(super) fn render(s: &mut String, meta: &Meta, turns: &[Turn]) {
    head(s, meta);
    for (n, t) in turns.iter().enumerate() {
        turn(s, n + 1, t);
    }
}

/// The title and the fields.
pub(super) fn head(s: &mut String, meta: &Meta) {
    s.push_str(&format!("# {}\n\n", md_inline(&meta.title)));
    for (k, v) in &meta.fields {
        s.push_str(&format!("- {k}: {}\n", md_code(v)));
    }
    if !meta.fields.is_empty() {
        s.push('\n');
    }
}

/// Turn number `n`.
pub(super) fn turn(s: &mut String, n: usize, t: &Turn) {
    let mut head = format!("## {n}. {}", md_inline(&t.role));
    if let Some(time) = &t.time {
        // A usage entry's time is its text when it is not an ISO date.
        head.push_str(&format!(" · {}", md_inline(time)));
    }
    if let Some(m) = &t.model {
        head.push_str(&format!(" · {}", md_inline(m)));
    }
    if let Some(id) = &t.id {
        head.push_str(&format!(" · {}", md_code(id)));
    }
    s.push_str(&head);
    s.push_str("\n\n");
    for note in &t.notes {
        if note.error {
            s.push_str(&format!("**⚠ {}**\n\n", md_inline(&note.text)));
        } else {
            s.push_str(&format!("*{}*\n\n", md_inline(&note.text)));
        }
    }
    md_parts(s, &t.parts);
}

/// A mark between turns (a model change, a label, a compaction): one
/// italic line, a compaction after a rule.
pub(super) fn mark(s: &mut String, m: &Mark) {
    if m.rule {
        s.push_str("---\n\n");
    }
    s.push_str(&format!("*— {}: {}", md_inline(m.kind), md_inline(&m.text)));
    if let Some(t) = &m.time {
        s.push_str(&format!(" · {}", md_inline(t)));
    }
    s.push_str(" —*\n\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences() {
        assert_eq!(fence("a ```` b"), "`````");
        assert_eq!(md_code("a`b"), "`` a`b ``");
        assert_eq!(
            md_inline("<img src=x onerror=alert(1)> & \u{1b}[2J\nb"),
            "&lt;img src=x onerror=alert(1)&gt; &amp; \\x1b[2J b"
        );
    }
}
