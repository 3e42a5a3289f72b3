//! The HTML transcript: one self-contained page (its style inline, no
//! script), a section a turn, long outputs collapsed.

use super::{human_size, Meta, Part, ToolResult, Turn};

/// Escape text for HTML content and attribute values.
pub fn esc(t: &str) -> String {
    let mut o = String::with_capacity(t.len());
    for c in t.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

const CSS: &str = "\
:root{--fg:#1d1d1f;--muted:#6b6b70;--line:#d8d8dc;--user:#eef4ff;--asst:#ffffff;--tool:#f6f6f8;--bash:#f3f7ef;--sum:#fff8e6;--err:#b3261e;--errbg:#fdecea;--code:#f4f4f6}
*{box-sizing:border-box}
body{margin:0;background:#fafafa;color:var(--fg);font:15px/1.5 -apple-system,BlinkMacSystemFont,\"Segoe UI\",Roboto,Helvetica,Arial,sans-serif}
header,main{max-width:920px;margin:0 auto;padding:0 16px}
header{padding-top:24px}
h1{font-size:22px;margin:0 0 8px;overflow-wrap:anywhere}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0 0 16px;color:var(--muted);font-size:13px}
dl.meta dt{font-weight:600}
dl.meta dd{margin:0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}
section.turn{border:1px solid var(--line);border-radius:8px;margin:0 0 14px;padding:10px 14px;background:var(--asst);break-inside:avoid-page}
section.user{background:var(--user)}
section.tool{background:var(--tool)}
section.bash{background:var(--bash)}
section.summary{background:var(--sum)}
section.custom{background:var(--sum)}
section.system{background:var(--sum)}
section.hidden{border-style:dashed;opacity:.85}
h2{font-size:14px;margin:0 0 6px;display:flex;flex-wrap:wrap;gap:4px 12px;align-items:baseline}
h2 .n{color:var(--muted);font-weight:400}
h2 .role{text-transform:none;font-weight:700}
h2 .time,h2 .model{color:var(--muted);font-weight:400;font-size:13px}
.text{white-space:pre-wrap;overflow-wrap:anywhere;margin:6px 0}
.note{margin:4px 0;font-size:13px;color:var(--muted);font-style:italic}
.note.error{color:var(--err);background:var(--errbg);font-style:normal;font-weight:600;padding:4px 8px;border-radius:4px}
blockquote.thinking{margin:6px 0;padding:4px 12px;border-left:3px solid var(--line);color:var(--muted)}
.label{font-size:12px;font-weight:700;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
pre{background:var(--code);border:1px solid var(--line);border-radius:6px;padding:8px 10px;margin:6px 0;white-space:pre-wrap;overflow-wrap:anywhere;font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
code{font:13px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--code);padding:0 3px;border-radius:3px;overflow-wrap:anywhere}
.call{margin:8px 0 4px}
.result{margin:4px 0 8px 14px;padding-left:10px;border-left:3px solid var(--line)}
.result.error{border-left-color:var(--err)}
.result.error .label{color:var(--err)}
.image{display:inline-block;border:1px dashed var(--muted);border-radius:4px;padding:2px 8px;color:var(--muted);font-size:13px}
details>summary{cursor:pointer;color:var(--muted);font-size:13px}
@media print{body{background:#fff;font-size:11pt}section.turn{border-color:#999}details>summary{display:none}details>*{display:block}pre{white-space:pre-wrap}}
";

/// Outputs longer than this many lines or characters are collapsed.
const COLLAPSE_LINES: usize = 12;
const COLLAPSE_CHARS: usize = 1500;

fn html_pre(s: &mut String, class: &str, text: &str) {
    let lines = text.lines().count();
    let long = lines > COLLAPSE_LINES || text.chars().count() > COLLAPSE_CHARS;
    if long {
        s.push_str(&format!(
            "<details><summary>{} lines, {} characters</summary>",
            lines,
            text.chars().count()
        ));
    }
    s.push_str(&format!("<pre class=\"{class}\">{}</pre>", esc(text)));
    if long {
        s.push_str("</details>");
    }
    s.push('\n');
}

/// A shell command.
fn html_shell(s: &mut String, c: &str) {
    s.push_str(&format!("<pre class=\"shell\">$ {}</pre>\n", esc(c)));
}

fn html_parts(s: &mut String, parts: &[Part], in_result: bool) {
    for p in parts {
        match p {
            Part::Text(t) if in_result => html_pre(s, "output", t),
            Part::Text(t) => s.push_str(&format!(
                "<div class=\"text\">{}</div>\n",
                esc(t.trim_end_matches('\n'))
            )),
            Part::Thinking { text, redacted } => {
                s.push_str(&format!(
                    "<blockquote class=\"thinking\"><div class=\"label\">thinking{}</div><div class=\"text\">{}</div></blockquote>\n",
                    if *redacted { " (redacted)" } else { "" },
                    esc(text.trim_end_matches('\n'))
                ));
            }
            Part::Image { mime, bytes } => s.push_str(&format!(
                "<div><span class=\"image\">image: {}, {}</span></div>\n",
                esc(mime),
                human_size(*bytes)
            )),
            Part::ToolCall {
                name,
                id,
                args,
                result,
            } => {
                s.push_str(&format!(
                    "<div class=\"call\"><span class=\"label\">tool call</span> <code>{}</code> <span class=\"note\">{}</span></div>\n",
                    esc(name),
                    esc(id)
                ));
                args.show(
                    s,
                    html_shell,
                    |s, p| s.push_str(&format!("<div>path: <code>{}</code></div>\n", esc(p))),
                    |s, j| html_pre(s, "json", j),
                );
                match result {
                    Some(r) => html_result(s, r),
                    None => s.push_str("<div class=\"note\">(no result)</div>\n"),
                }
            }
            Part::ToolResult(r) => html_result(s, r),
            Part::Shell(c) => html_shell(s, c),
            Part::Output(None) => s.push_str("<div class=\"note\">(no output)</div>\n"),
            Part::Output(Some(o)) => html_pre(s, "output", o),
            Part::Json(j) => html_pre(s, "json", j),
            Part::Original(parts) => {
                s.push_str("<details class=\"original\"><summary>original, before the context edit</summary>\n");
                html_parts(s, parts, in_result);
                s.push_str("</details>\n");
            }
        }
    }
}

fn html_result(s: &mut String, r: &ToolResult) {
    s.push_str(&format!(
        "<div class=\"result{}\"><div class=\"label\">result{}{}</div>\n",
        if r.is_error { " error" } else { "" },
        if r.name.is_empty() {
            String::new()
        } else {
            format!(" of {}", esc(&r.name))
        },
        if r.is_error { " — error" } else { "" },
    ));
    if r.parts.is_empty() {
        s.push_str("<div class=\"note\">(empty)</div>\n");
    }
    html_parts(s, &r.parts, true);
    s.push_str("</div>\n");
}

/// The whole page.
pub(super) fn render(s: &mut String, meta: &Meta, turns: &[Turn]) {
    s.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    s.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    s.push_str(&format!("<title>{}</title>\n", esc(&meta.title)));
    s.push_str("<style>\n");
    s.push_str(CSS);
    s.push_str("</style>\n</head>\n<body>\n<header>\n");
    s.push_str(&format!("<h1>{}</h1>\n", esc(&meta.title)));
    if !meta.fields.is_empty() {
        s.push_str("<dl class=\"meta\">\n");
        for (k, v) in &meta.fields {
            s.push_str(&format!("<dt>{}</dt><dd>{}</dd>\n", esc(k), esc(v)));
        }
        s.push_str("</dl>\n");
    }
    s.push_str("</header>\n<main>\n");
    for (n, t) in turns.iter().enumerate() {
        let hidden = t.class == "bash" && t.notes.iter().any(|x| x.text.starts_with("excluded"));
        s.push_str(&format!(
            "<section class=\"turn {}{}\" id=\"m{}\">\n<h2><span class=\"n\">{}</span><span class=\"role\">{}</span>",
            t.class,
            if hidden { " hidden" } else { "" },
            n + 1,
            n + 1,
            esc(&t.role)
        ));
        if let Some(time) = &t.time {
            s.push_str(&format!("<span class=\"time\">{}</span>", esc(time)));
        }
        if let Some(m) = &t.model {
            s.push_str(&format!("<span class=\"model\">{}</span>", esc(m)));
        }
        s.push_str("</h2>\n");
        for note in &t.notes {
            s.push_str(&format!(
                "<div class=\"note{}\">{}</div>\n",
                if note.error { " error" } else { "" },
                esc(&note.text)
            ));
        }
        html_parts(s, &t.parts, false);
        s.push_str("</section>\n");
    }
    s.push_str("</main>\n</body>\n</html>\n");
}

#[cfg(test)]
mod tests {
    use super::esc;

    #[test]
    fn escapes() {
        assert_eq!(
            esc("<a href='x'>&</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;"
        );
    }
}
