//! `pi-convert --to html` of a session: one self-contained page of the
//! whole tree, as pi's `/export` shows it and more. A header with pi's
//! totals, a sidebar with every entry (pi's filters, search, the active
//! path marked) and every entry of every branch, the active path first.
//!
//! It works without JavaScript (filters are CSS radio buttons, every entry
//! and branch an anchor), loads nothing (a CSP of `default-src 'none'` and
//! the hashes of its own style and script), escapes every text, and is the
//! same bytes for the same input. It is written in order, a piece at a
//! time: the session's text is read entry by entry, never held whole.

mod assets;
mod edits;
mod entry;
mod esc;
mod header;
mod markdown;
mod order;
mod sidebar;
mod stats;
mod tools;

use crate::error::{Error, Result};
use crate::session::Session;
use std::io::Write;

/// Bytes gathered before they are written out.
const CHUNK: usize = 1 << 16;

/// Write the page of `s`, with `leaf` the end of the path shown first.
/// `include_hidden`: entries a context edit changes are shown as they
/// stand in the file (marked), not as the model sees them.
pub(crate) fn write(
    s: &Session,
    leaf: Option<usize>,
    include_hidden: bool,
    out: &mut impl Write,
) -> Result<()> {
    let layout = order::layout(s, leaf)?;
    let st = stats::Stats::of(s)?;
    let edits = edits::Edits::of(s, include_hidden)?;
    let mut buf = String::with_capacity(CHUNK * 2);
    let mut flush = |b: &mut String| -> Result<()> {
        if b.len() >= CHUNK {
            out.write_all(b.as_bytes()).map_err(Error::output)?;
            b.clear();
        }
        Ok(())
    };
    let title = match &s.index.name {
        Some(n) => n.to_string(),
        None => format!("Session {}", s.header.id),
    };
    header::head(&mut buf, &title);
    for (k, (id, _)) in sidebar::FILTERS.iter().enumerate() {
        buf.push_str(&format!(
            "<input type=\"radio\" class=\"fr\" name=\"filter\" id=\"f-{id}\"{}>\n",
            if k == 0 { " checked=\"checked\"" } else { "" }
        ));
    }
    buf.push_str("<div class=\"layout\">\n<nav class=\"side\" aria-label=\"Session tree\">\n");
    buf.push_str("<input class=\"search\" id=\"q\" type=\"search\" placeholder=\"Search…\" aria-label=\"Search the tree\">\n<div class=\"filters\">");
    for (id, name) in sidebar::FILTERS {
        buf.push_str(&format!("<label for=\"f-{id}\">{name}</label>"));
    }
    buf.push_str(&format!(
        "</div>\n<div class=\"status\" id=\"status\">{} entries</div>\n",
        layout.len()
    ));
    sidebar::rows(s, &layout, &edits, &mut buf, &mut flush)?;
    buf.push_str("</nav>\n<main");
    if let Some(l) = leaf {
        buf.push_str(&format!(
            " class=\"pathview\" data-leaf=\"l{}\"",
            s.entries[l].line()
        ));
    }
    buf.push_str(">\n");
    header::header(&mut buf, s, &st, leaf);
    buf.push_str("<div class=\"viewbar\"><label><input type=\"checkbox\" id=\"showall\"> show every branch (else the path of the entry chosen in the tree)</label></div>\n");
    body(s, &layout, &edits, &mut buf, &mut flush)?;
    buf.push_str("</main>\n</div>\n");
    header::tail(&mut buf);
    out.write_all(buf.as_bytes()).map_err(Error::output)?;
    out.flush().map_err(Error::output)
}

/// Every entry, in page order, with a heading where a branch starts and
/// the links to the branches where the tree forks.
fn body(
    s: &Session,
    layout: &order::Layout,
    edits: &edits::Edits,
    buf: &mut String,
    flush: &mut dyn FnMut(&mut String) -> Result<()>,
) -> Result<()> {
    let mut written = vec![false; s.entries.len()];
    layout.each(|k, node| {
        let i = node.entry as usize;
        if std::mem::replace(&mut written[i], true) {
            // Reached again through a repeated id: shown once.
            return Ok(());
        }
        if node.branch_start {
            let line = s.entries[i].line();
            buf.push_str(&format!("<div class=\"bh\" id=\"b{line}\">Branch"));
            match node.parent {
                Some(p) => {
                    let pl = s.entries[p as usize].line();
                    buf.push_str(&format!(" from <a href=\"#l{pl}\">line {pl}</a>"));
                }
                None if k >= layout.walked => {
                    buf.push_str(" that no root reaches (a cycle of parentIds)");
                }
                None => buf.push_str(": another root"),
            }
            buf.push_str("</div>\n");
        }
        entry::article(s, node, layout.leaf, edits, buf)?;
        if node.children > 1 {
            forks(s, layout, node, buf);
        }
        flush(buf)
    })
}

/// After a branch point: a link to each of its children.
fn forks(s: &Session, layout: &order::Layout, node: &order::Node, buf: &mut String) {
    let me = node.entry;
    let Some(kids) = layout.forks.get(&me) else {
        return;
    };
    buf.push_str(&format!(
        "<div class=\"forks\">{} branches here:",
        kids.len()
    ));
    for (j, &c) in kids.iter().enumerate() {
        let i = c as usize;
        let line = s.entries[i].line();
        let target = if j == 0 {
            format!("l{line}")
        } else {
            format!("b{line}")
        };
        buf.push_str(&format!(" <a href=\"#{target}\">"));
        match sidebar::label_of(s, i) {
            Some(l) => esc::text(buf, &format!("[{l}] line {line}")),
            None => buf.push_str(&format!("line {line}")),
        }
        buf.push_str(if layout.on_path[i] {
            " (active)</a>"
        } else {
            "</a>"
        });
    }
    buf.push_str("</div>\n");
}
