//! `pi-tree --format jsonl`: one JSON line per entry in display order (its
//! id, parent, depth, children, label, whether it is on the active path,
//! type, role and display text).

use super::view::View;
use super::Options;
use crate::cli::Out;
use crate::entry::EntryType;
use crate::error::Result;
use crate::json::{js, Object};
use std::io::Write;

impl View<'_> {
    /// One JSON line per shown entry, in display order.
    pub(super) fn write_jsonl(&self, opts: &Options, out: &mut impl Write) -> Result<()> {
        let mut buf = Vec::new();
        for k in self.display_positions(opts)? {
            let (i, depth) = self.flat[k];
            let e = &self.s.entries[i];
            let line = self.s.line(i)?;
            let obj = self.object(&line, e.line())?;
            buf.clear();
            buf.extend_from_slice(b"{\"id\":");
            raw_or_null(&mut buf, &obj, "id");
            buf.extend_from_slice(b",\"parentId\":");
            raw_or_null(&mut buf, &obj, "parentId");
            buf.extend_from_slice(format!(",\"depth\":{depth},\"children\":[").as_bytes());
            for (c, &child) in self.tree.children(i).iter().enumerate() {
                if c > 0 {
                    buf.push(b',');
                }
                // The child's id as its JSON value (a number stays a number).
                match self.s.entries.id(child as usize) {
                    Some(id) => buf.extend_from_slice(id.to_json().as_bytes()),
                    None => buf.extend_from_slice(b"null"),
                }
            }
            buf.push(b']');
            if let Some(l) = self.label_of(i) {
                buf.extend_from_slice(b",\"label\":");
                js::write_str(&mut buf, l);
            }
            buf.extend_from_slice(b",\"active\":");
            buf.extend_from_slice(if self.active[i] { b"true" } else { b"false" });
            buf.extend_from_slice(b",\"type\":");
            raw_or_null(&mut buf, &obj, "type");
            if let Some(m) = obj
                .object("message")
                .filter(|_| e.ty() == EntryType::Message)
            {
                if let Ok(Some(r)) = m.canonical("role") {
                    buf.extend_from_slice(b",\"role\":");
                    buf.extend_from_slice(&r);
                }
            }
            buf.extend_from_slice(b",\"text\":");
            let text: String = self
                .summary_of(i, &obj)?
                .into_iter()
                .map(|(t, _)| t)
                .collect();
            js::write_str(&mut buf, &text);
            buf.extend_from_slice(b"}\n");
            out.bytes(&buf)?;
        }
        Ok(())
    }
}

/// `obj[key]` as JSON, `null` when absent or not readable.
fn raw_or_null(buf: &mut Vec<u8>, obj: &Object<'_>, key: &str) {
    // A string of printable ASCII without escapes is written as it is.
    if let Some(raw) = obj.raw(key) {
        if let [b'"', inner @ .., b'"'] = raw {
            if inner
                .iter()
                .all(|&b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\')
            {
                buf.extend_from_slice(raw);
                return;
            }
        }
    }
    match obj.canonical(key) {
        Ok(Some(v)) => buf.extend_from_slice(&v),
        _ => buf.extend_from_slice(b"null"),
    }
}
