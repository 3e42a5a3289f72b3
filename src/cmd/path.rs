//! `pi-path`: the entries, messages or context on the path to a leaf, and
//! the list of leaves.

use crate::cli::out_err;
use crate::context::{self, message_json};
use crate::entry::EntryType;
use crate::error::Result;
use crate::json::ObjectWriter;
use crate::migrate::CURRENT_VERSION;
use crate::path::path_to;
use crate::refs;
use crate::session::Session;
use crate::summary;
use std::io::Write;

/// What `pi-path` prints for each path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The entry lines, byte for byte as in the input.
    Entries,
    /// The context's messages (pi's `buildSessionContext().messages`), one per line.
    Messages,
    /// One line: the whole `{messages, thinkingLevel, model}` object.
    Context,
    /// One entry id per line.
    Ids,
}

/// Print the path from the root to the entry `leaf` (a REF).
pub fn write_path(
    s: &Session,
    leaf: &str,
    format: Format,
    header: bool,
    out: &mut impl Write,
) -> Result<()> {
    let reference = leaf;
    let leaf = match (leaf, s.index.leaf) {
        // An empty session has an empty path at its default leaf.
        ("leaf", None) => None,
        // The last entry's id is null: so is pi's leaf (an empty context).
        ("leaf", Some(_)) if s.leaf_id_null => None,
        _ => Some(refs::resolve(s, leaf)?),
    };
    if header {
        out.write_all(&s.header_line()?).map_err(out_err)?;
        out.write_all(b"\n").map_err(out_err)?;
    }
    match format {
        Format::Entries | Format::Ids => {
            let path = match leaf {
                // pi's leaf is the last entry's id: when that entry has none,
                // the leaf is undefined and pi's getBranch() is empty (while
                // its context is still built from the last entry).
                Some(l) if reference == "leaf" && s.entries.id(l).is_none() => Vec::new(),
                Some(l) if refs::branch_is_empty(s, l) => Vec::new(),
                Some(l) => path_to(s, l)?,
                None => Vec::new(),
            };
            if format == Format::Entries && s.version() >= CURRENT_VERSION {
                return write_lines_as_they_are(s, &path, out);
            }
            for i in path {
                if format == Format::Ids {
                    out.write_all(s.entries.id_string(i).as_bytes())
                        .map_err(out_err)?;
                } else {
                    out.write_all(&s.line(i)?).map_err(out_err)?;
                }
                out.write_all(b"\n").map_err(out_err)?;
            }
        }
        Format::Messages => {
            let ctx = context::build(s, refs::context_leaf(s, leaf))?;
            for item in ctx.items {
                if let Some(m) = message_json(s, item)? {
                    out.write_all(&m).map_err(out_err)?;
                    out.write_all(b"\n").map_err(out_err)?;
                }
            }
        }
        Format::Context => {
            let ctx = context::build(s, refs::context_leaf(s, leaf))?;
            out.write_all(b"{\"messages\":[").map_err(out_err)?;
            let mut first = true;
            for item in ctx.items {
                if let Some(m) = message_json(s, item)? {
                    if !first {
                        out.write_all(b",").map_err(out_err)?;
                    }
                    first = false;
                    out.write_all(&m).map_err(out_err)?;
                }
            }
            out.write_all(b"]").map_err(out_err)?;
            if let Some(t) = &ctx.thinking_level {
                out.write_all(b",\"thinkingLevel\":").map_err(out_err)?;
                out.write_all(t).map_err(out_err)?;
            }
            out.write_all(b",\"model\":").map_err(out_err)?;
            out.write_all(ctx.model.as_deref().unwrap_or(b"null"))
                .map_err(out_err)?;
            out.write_all(b"}\n").map_err(out_err)?;
        }
    }
    out.flush().map_err(out_err)
}

/// Print the lines of the entries `path` byte for byte (a current-version
/// file needs no rewriting): each run of entries on consecutive lines is
/// one copy of the file's bytes, which the kernel makes when it can.
fn write_lines_as_they_are(s: &Session, path: &[usize], out: &mut impl Write) -> Result<()> {
    let mut rest = path;
    while let Some((&first, _)) = rest.split_first() {
        let start = s.entries[first].offset();
        let mut end = start + u64::from(s.entries[first].byte_len());
        let mut run = 1;
        // The next entry's line starts right after this one's newline.
        while let Some(e) = rest.get(run).map(|&i| &s.entries[i]) {
            if e.offset() != end + 1 {
                break;
            }
            end = e.offset() + u64::from(e.byte_len());
            run += 1;
        }
        s.copy_span(start, end - start, out)?;
        out.write_all(b"\n").map_err(out_err)?;
        rest = &rest[run..];
    }
    out.flush().map_err(out_err)
}

/// Print one JSON line per leaf (an entry no other entry names as parent):
/// `{"id","line","timestamp","depth","label"?,"current","lastUser"}`.
pub fn write_leaves(s: &Session, out: &mut impl Write) -> Result<()> {
    for i in crate::path::leaves(s) {
        let e = &s.entries[i];
        let path = path_to(s, i)?;
        let line = s.line(i)?;
        let obj = s.object(&line, e.line())?;
        let mut w = ObjectWriter::new();
        w.str("id", &s.entries.id_string(i));
        w.number("line", e.line() as f64);
        w.raw(
            "timestamp",
            obj.canonical("timestamp").ok().flatten().as_deref(),
        );
        w.number("depth", path.len() as f64);
        if let Some(id) = s.entries.id(i) {
            if let Some(l) = s.index.labels.get(&id) {
                w.raw("label", Some(&s.label_value(l)?));
            }
        }
        w.raw(
            "current",
            Some(if s.index.leaf == Some(i) {
                b"true"
            } else {
                b"false"
            }),
        );
        let mut last_user = None;
        for &j in path.iter().rev() {
            if s.entries[j].ty() != EntryType::Message {
                continue;
            }
            let l = s.line(j)?;
            let o = s.object(&l, s.entries[j].line())?;
            if let Some(m) = o.object("message") {
                if m.str("role").as_deref() == Some("user") {
                    last_user = summary::message_text(&m).map(|t| summary::one_line(&t, 120));
                    break;
                }
            }
        }
        match last_user {
            Some(t) => w.str("lastUser", &t),
            None => w.raw("lastUser", Some(b"null")),
        };
        out.write_all(&w.finish()).map_err(out_err)?;
        out.write_all(b"\n").map_err(out_err)?;
    }
    out.flush().map_err(out_err)
}
