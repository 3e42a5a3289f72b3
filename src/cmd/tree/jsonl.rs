//! `pi-tree --format jsonl`: one JSON line per entry in display order (its
//! id, parent, depth, children, label, whether it is on the active path,
//! type, role and display text).

use super::view::View;
use super::Options;
use crate::entry::{EntryType, Id, Parent};
use crate::error::Result;
use crate::json::{js, Object};
use crate::render::lines::LineSource;
use crate::render::{batches, write_id, write_str};
use std::io::Write;

impl View<'_> {
    /// One JSON line per shown entry, in display order; whether any is.
    pub(super) fn write_jsonl(&self, opts: &Options, out: &mut impl Write) -> Result<bool> {
        let shown = self.display_positions(opts)?;
        let mut src = self.lines();
        batches::write_rows(
            self.s,
            self.file(),
            &mut *src,
            shown.len(),
            out,
            |v, buf, src| self.jsonl_row(buf, src, shown[v]),
        )?;
        Ok(!shown.is_empty())
    }

    /// The line of flat position `k`, added to `buf`.
    fn jsonl_row(&self, buf: &mut Vec<u8>, src: &mut dyn LineSource, k: usize) -> Result<()> {
        let (i, depth) = self.flat[k];
        let line = src.line(i)?;
        // A message whose id, parent and role the load and the first
        // pass know as plain strings: its line is not parsed again.
        let quick = self
            .message_only(&line, i)
            .zip(self.quick_role(i))
            .filter(|_| quick_id(self.s.entries.id(i)) && quick_parent(&self.s.entries.parent(i)));
        let parsed;
        let obj = match &quick {
            Some((m, _)) => m,
            None => {
                parsed = self.object(&line, self.s.entries[i].line())?;
                &parsed
            }
        };
        buf.extend_from_slice(b"{\"id\":");
        match quick {
            Some(_) => write_id(buf, self.s.entries.id(i)),
            None => raw_or_null(buf, obj, "id"),
        }
        buf.extend_from_slice(b",\"parentId\":");
        match (&quick, self.s.entries.parent(i)) {
            (Some(_), Parent::Id(id)) => write_id(buf, Some(id)),
            (Some(_), _) => buf.extend_from_slice(b"null"),
            (None, _) => raw_or_null(buf, obj, "parentId"),
        }
        buf.extend_from_slice(b",\"depth\":");
        buf.extend_from_slice(depth.to_string().as_bytes());
        buf.extend_from_slice(b",\"children\":[");
        for (c, &child) in self.tree.children(i).iter().enumerate() {
            if c > 0 {
                buf.push(b',');
            }
            // The child's id as its JSON value (a number stays a number).
            write_id(buf, self.s.entries.id(child as usize));
        }
        buf.push(b']');
        if let Some(l) = self.label_of(i) {
            buf.extend_from_slice(b",\"label\":");
            js::escape::write_str(buf, l);
        }
        buf.extend_from_slice(b",\"active\":");
        buf.extend_from_slice(if self.active[i] { b"true" } else { b"false" });
        buf.extend_from_slice(b",\"type\":");
        match &quick {
            Some((_, role)) => {
                buf.extend_from_slice(b"\"message\",\"role\":");
                buf.extend_from_slice(role);
            }
            None => {
                raw_or_null(buf, obj, "type");
                if let Some(m) = obj
                    .object("message")
                    .filter(|_| self.s.entries[i].ty() == EntryType::Message)
                {
                    if let Ok(Some(r)) = m.canonical("role") {
                        buf.extend_from_slice(b",\"role\":");
                        buf.extend_from_slice(&r);
                    }
                }
            }
        }
        buf.extend_from_slice(b",\"text\":");
        let text: String = self
            .summary_of(i, obj)?
            .into_iter()
            .map(|(t, _)| t)
            .collect();
        write_str(buf, &text);
        buf.extend_from_slice(b"}\n");
        Ok(())
    }
}

/// An id [`write_id`] writes as the line holds it (as `JSON.stringify`
/// writes it): 8 hex digits, or none.
fn quick_id(id: Option<Id>) -> bool {
    matches!(id, None | Some(Id::Hex8(_)))
}

/// A `parentId` written the same way from what the load kept: `null`,
/// none, or 8 hex digits.
fn quick_parent(p: &Parent) -> bool {
    matches!(p, Parent::Null | Parent::Missing | Parent::Id(Id::Hex8(_)))
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
