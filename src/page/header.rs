//! The page's `<head>` (its Content-Security-Policy: nothing but its own
//! style and script, and `data:` images) and the header with pi's totals.

use super::assets::{CSS, JS};
use super::esc::{self, csp_hash};
use super::stats::{format_tokens, to_fixed, Stats};
use crate::session::Session;

/// The policy: no network, no other script or style, no forms, no base.
pub(crate) fn csp() -> String {
    format!(
        "default-src 'none'; style-src {}; script-src {}; img-src data:; base-uri 'none'; form-action 'none'",
        csp_hash(CSS),
        csp_hash(JS)
    )
}

/// From `<!DOCTYPE>` to the start of `<body>`.
pub(crate) fn head(out: &mut String, title: &str) {
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str(&format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n",
        csp()
    ));
    out.push_str("<meta name=\"referrer\" content=\"no-referrer\">\n");
    out.push_str(
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
    );
    esc::text(out, title);
    out.push_str("</title>\n<style>");
    out.push_str(CSS);
    out.push_str("</style>\n</head>\n<body>\n");
}

/// The end of the page: the script, then `</html>`.
pub(crate) fn tail(out: &mut String) {
    out.push_str("<script>");
    out.push_str(JS);
    out.push_str("</script>\n</body>\n</html>\n");
}

/// The header: title, session, pi's counts and totals, the tools.
pub(crate) fn header(out: &mut String, s: &Session, st: &Stats, leaf: Option<usize>) {
    let title = match &s.index.name {
        Some(n) => n.to_string(),
        None => format!("Session: {}", s.header.id),
    };
    out.push_str("<header class=\"top\"><h1>");
    esc::text(out, &title);
    out.push_str("</h1><dl class=\"info\">");
    let mut item = |k: &str, v: &str| {
        out.push_str("<dt>");
        out.push_str(k);
        out.push_str("</dt><dd>");
        esc::text(out, v);
        out.push_str("</dd>");
    };
    item("Session", &s.header.id);
    let header = s.header_line().ok();
    let ho = header
        .as_deref()
        .and_then(|h| crate::json::Object::parse_line(h).ok().flatten());
    if let Some(o) = &ho {
        if let Some(t) = o.str("timestamp") {
            item("Date", &t);
        }
        if let Some(c) = o.str("cwd") {
            item("Directory", &c);
        }
    }
    let models = if st.models.is_empty() {
        "unknown".to_string()
    } else {
        st.models.join(", ")
    };
    item("Models", &models);
    let mut parts = vec![];
    for (n, what) in [
        (st.user, "user"),
        (st.assistant, "assistant"),
        (st.tool_results, "tool results"),
        (st.custom, "custom"),
        (st.compactions, "compactions"),
        (st.branch_summaries, "branch summaries"),
    ] {
        if n > 0 {
            parts.push(format!("{n} {what}"));
        }
    }
    item(
        "Messages",
        &if parts.is_empty() {
            "0".into()
        } else {
            parts.join(", ")
        },
    );
    item("Tool Calls", &st.tool_calls.to_string());
    let mut tok = vec![];
    for (k, mark) in ["↑", "↓", "R", "W"].iter().enumerate() {
        if st.tokens[k] != 0.0 {
            tok.push(format!("{mark}{}", format_tokens(st.tokens[k])));
        }
    }
    item(
        "Tokens",
        &if tok.is_empty() {
            "0".into()
        } else {
            tok.join(" ")
        },
    );
    item("Cost", &format!("${}", to_fixed(st.cost, 3)));
    item("Entries", &s.entries.len().to_string());
    if let Some(l) = leaf {
        let id = s.entries.id_string(l);
        out.push_str(&format!(
            "<dt>Leaf</dt><dd><a href=\"#l{}\">",
            s.entries[l].line()
        ));
        esc::text(out, &id);
        out.push_str("</a></dd>");
    }
    if let Some(sys) = st.system {
        out.push_str(&format!(
            "<dt>System prompt</dt><dd><a href=\"#l{}\">line {}</a></dd>",
            s.entries[sys].line(),
            s.entries[sys].line()
        ));
    }
    out.push_str("</dl>");
    if !st.tools.is_empty() {
        out.push_str(
            "<details class=\"fold\" open=\"open\"><summary>Available tools</summary><ul class=\"tools\">",
        );
        for (n, d) in &st.tools {
            out.push_str("<li><b>");
            esc::text(out, n);
            out.push_str("</b> — ");
            esc::text(out, d);
            out.push_str("</li>");
        }
        out.push_str("</ul></details>");
    }
    out.push_str("</header>\n");
}
