//! One line brought from version 1 or 2 to version 3 (SPEC §8): the
//! header's version, an entry's id and parent (version 1), a compaction's
//! `firstKeptEntryIndex` mapped to `firstKeptEntryId` (version 1), and a
//! `hookMessage` role renamed `custom` (version 2); the deterministic
//! version-1 ids; and [`ObjectEdit`], the changes to one object's text
//! applied in one pass.
//!
//! A line is changed only where pi's migration changes it: new keys are
//! added at the end of the object, replaced values are replaced in place,
//! and everything else keeps its original bytes.

use super::CURRENT_VERSION;
use crate::json::{key_is, scan, Object};
use std::ops::Range;

/// The deterministic id of the version-1 entry on `line` of the session
/// `session_id`; `attempt` > 0 when an earlier attempt collided.
///
/// id = first 8 hex digits of SHA-1("pi-session-tools/v1-id/SID/LINE[/ATTEMPT]").
/// This scheme is part of the tools' contract: ids shown for an old file
/// stay valid after migrating it, in any version of the tools.
pub fn v1_id(session_id: &str, line: u64, attempt: u32) -> String {
    format!("{:08x}", v1_id_number(session_id, line, attempt))
}

/// [`v1_id`] as the number its 8 hex digits spell (no allocation).
pub fn v1_id_number(session_id: &str, line: u64, attempt: u32) -> u32 {
    use std::io::Write;
    let mut h = sha1_smol::Sha1::new();
    h.update(b"pi-session-tools/v1-id/");
    h.update(session_id.as_bytes());
    // "/LINE" and "/ATTEMPT": at most 2 + 20 + 11 bytes.
    let mut tail = [0u8; 40];
    let mut w = &mut tail[..];
    let _ = write!(w, "/{line}");
    if attempt > 0 {
        let _ = write!(w, "/{attempt}");
    }
    let n = 40 - w.len();
    h.update(&tail[..n]);
    let d = h.digest().bytes();
    u32::from_be_bytes([d[0], d[1], d[2], d[3]])
}

/// A set of changes to one object's text, applied in one pass.
#[derive(Default)]
pub struct ObjectEdit {
    replace: Vec<(Range<usize>, Vec<u8>)>,
    append: Vec<(Box<str>, Vec<u8>)>,
}

impl ObjectEdit {
    pub fn new() -> Self {
        Self::default()
    }

    /// Give `key` the JSON value `value`: in place when the key exists
    /// (its last occurrence, the one `JSON.parse` keeps), else at the end.
    pub fn set(&mut self, obj: &Object<'_>, key: &str, value: Vec<u8>) {
        match obj.get(key) {
            Some(r) => self.replace.push((r, value)),
            None => self.append.push((key.into(), value)),
        }
    }

    /// Remove every occurrence of `key`.
    pub fn delete(&mut self, obj: &Object<'_>, key: &str) {
        let ms = &obj.members;
        for (i, m) in ms.iter().enumerate() {
            if !key_is(obj.text, &m.key, key) {
                continue;
            }
            // Cut the member with the comma before it, or after it when first.
            let range = if i > 0 {
                ms[i - 1].value.end..m.value.end
            } else if let Some(next) = ms.get(1) {
                m.key.start..next.key.start
            } else {
                m.key.start..m.value.end
            };
            self.replace.push((range, Vec::new()));
        }
    }

    /// Replace any span of the text (e.g. a nested value).
    pub fn replace(&mut self, range: Range<usize>, value: Vec<u8>) {
        self.replace.push((range, value));
    }

    pub fn is_empty(&self) -> bool {
        self.replace.is_empty() && self.append.is_empty()
    }

    /// The edited text of the object at `obj.range` (bytes outside the
    /// object, such as surrounding whitespace, are kept).
    pub fn apply(self, obj: &Object<'_>) -> Vec<u8> {
        let mut out = Vec::with_capacity(obj.text.len() + 64);
        self.apply_into(obj, &mut out);
        out
    }

    /// [`ObjectEdit::apply`], appending the edited text to `out`.
    fn apply_into(mut self, obj: &Object<'_>, out: &mut Vec<u8>) {
        let text = obj.text;
        self.replace.sort_by_key(|(r, _)| r.start);
        let close = obj.range.end - 1; // the closing brace
        let mut pos = 0;
        for (r, v) in &self.replace {
            if r.start < pos {
                continue; // overlapping edits: the first one wins
            }
            out.extend_from_slice(&text[pos..r.start]);
            out.extend_from_slice(v);
            pos = r.end;
        }
        if self.append.is_empty() {
            out.extend_from_slice(&text[pos..]);
            return;
        }
        out.extend_from_slice(&text[pos..close]);
        let mut has_members = obj.members.len()
            > self
                .replace
                .iter()
                .filter(|(r, v)| v.is_empty() && r.start >= obj.range.start)
                .count();
        for (k, v) in &self.append {
            if has_members {
                out.push(b',');
            }
            has_members = true;
            crate::json::js::escape::write_str(out, k);
            out.push(b':');
            out.extend_from_slice(v);
        }
        out.extend_from_slice(&text[close..]);
    }
}

/// JSON text of a string.
pub fn json_str(s: &str) -> Vec<u8> {
    let mut v = Vec::new();
    crate::json::js::escape::write_str(&mut v, s);
    v
}

/// What migration does to one non-header line.
pub struct EntryMigration<'a> {
    pub from_version: u32,
    /// Version 1: the id given to this entry, its parent's (None = null),
    /// and for a compaction what its `firstKeptEntryIndex` becomes.
    pub id: Option<&'a str>,
    pub parent: Option<&'a str>,
    pub first_kept: FirstKept,
    /// The line is a `session` line (a second header): only its version changes.
    pub is_session: bool,
}

/// The migrated text of a header line.
pub fn migrate_header(obj: &Object<'_>) -> Vec<u8> {
    let mut out = Vec::with_capacity(obj.text.len() + 16);
    migrate_header_into(obj, &mut out);
    out
}

/// [`migrate_header`], appending to `out`.
pub fn migrate_header_into(obj: &Object<'_>, out: &mut Vec<u8>) {
    let mut e = ObjectEdit::new();
    e.set(obj, "version", CURRENT_VERSION.to_string().into_bytes());
    e.apply_into(obj, out)
}

/// The migrated text of an entry line.
pub fn migrate_entry(obj: &Object<'_>, m: &EntryMigration<'_>) -> Vec<u8> {
    let mut out = Vec::with_capacity(obj.text.len() + 64);
    migrate_entry_into(obj, m, &mut out);
    out
}

/// [`migrate_entry`], appending to `out`.
pub fn migrate_entry_into(obj: &Object<'_>, m: &EntryMigration<'_>, out: &mut Vec<u8>) {
    let mut e = ObjectEdit::new();
    if m.is_session {
        e.set(obj, "version", CURRENT_VERSION.to_string().into_bytes());
        return e.apply_into(obj, out);
    }
    if m.from_version < 2 {
        if let Some(id) = m.id {
            e.set(obj, "id", json_str(id));
        }
        e.set(
            obj,
            "parentId",
            m.parent.map_or_else(|| b"null".to_vec(), json_str),
        );
        match &m.first_kept {
            FirstKept::None => {}
            FirstKept::Leave => e.delete(obj, "firstKeptEntryIndex"),
            FirstKept::Set(id) => {
                e.delete(obj, "firstKeptEntryIndex");
                e.set(obj, "firstKeptEntryId", json_str(id));
            }
            FirstKept::Unset => {
                e.delete(obj, "firstKeptEntryIndex");
                // pi assigns `undefined`, which JSON.stringify leaves out.
                e.delete(obj, "firstKeptEntryId");
            }
        }
    }
    if m.from_version < 3 {
        if let Some(role) = hook_message_role(obj) {
            e.replace(role, json_str("custom"));
        }
    }
    e.apply_into(obj, out)
}

/// The span of `message.role` when it is `"hookMessage"` in a message entry.
pub fn hook_message_role(obj: &Object<'_>) -> Option<Range<usize>> {
    if obj.str("type").as_deref() != Some("message") {
        return None;
    }
    let r = obj.get("message")?;
    if !may_hold_hook_message(&obj.text[r]) {
        return None;
    }
    let msg = obj.object("message")?;
    let role = msg.get("role")?;
    (msg.str("role").as_deref() == Some("hookMessage")).then_some(role)
}

/// Whether JSON text may hold a string that decodes to `hookMessage`:
/// either the word is there as it is, or one of its letters is written as
/// a `\u00XX` escape of a printable ASCII character (which `JSON.stringify`
/// never writes: it escapes only control characters and lone surrogates).
/// False means certainly not, without scanning the members of the text.
fn may_hold_hook_message(text: &[u8]) -> bool {
    use std::sync::OnceLock;
    static WORD: OnceLock<memchr::memmem::Finder<'static>> = OnceLock::new();
    static ESCAPE: OnceLock<memchr::memmem::Finder<'static>> = OnceLock::new();
    let word = WORD.get_or_init(|| memchr::memmem::Finder::new(b"hookMessage"));
    if word.find(text).is_some() {
        return true;
    }
    let escape = ESCAPE.get_or_init(|| memchr::memmem::Finder::new(b"\\u00"));
    escape
        .find_iter(text)
        .any(|at| matches!(text.get(at + 4), Some(b'4'..=b'7')))
}

/// What pi's v1 migration does with a compaction's `firstKeptEntryIndex`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FirstKept {
    /// Not a compaction with a numeric index: nothing.
    None,
    /// The index names nothing pi can use (the header, a fraction, out of
    /// range): the index goes, `firstKeptEntryId` stays as it was.
    Leave,
    /// The index names an entry with this id.
    Set(String),
    /// The index names a later entry, which has no id yet when pi maps
    /// this one: the index goes and `firstKeptEntryId` becomes undefined.
    Unset,
}

/// pi's mapping of the version-1 `firstKeptEntryIndex` `k` (the header is
/// index 0) of the compaction at entry `i`; `id_of(j)` is the id entry `j`
/// gets, `is_session(j)` whether entry `j` is a second header.
pub fn v1_first_kept(
    k: f64,
    i: usize,
    count: usize,
    is_session: impl Fn(usize) -> bool,
    id_of: impl Fn(usize) -> Option<String>,
) -> FirstKept {
    if k.fract() != 0.0 || k < 1.0 || k - 1.0 >= count as f64 {
        return FirstKept::Leave;
    }
    let target = (k as usize) - 1;
    if is_session(target) {
        return FirstKept::Leave;
    }
    if target > i {
        return FirstKept::Unset;
    }
    id_of(target).map_or(FirstKept::Unset, FirstKept::Set)
}

/// For a version-1 compaction: the number in `firstKeptEntryIndex`, if any.
pub fn first_kept_index(obj: &Object<'_>) -> Option<f64> {
    let raw = obj.raw("firstKeptEntryIndex")?;
    if scan::kind_of(raw) != Some(scan::Kind::Number) {
        return None;
    }
    std::str::from_utf8(raw).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(s: &str) -> Object<'_> {
        Object::parse_line(s.as_bytes()).unwrap().unwrap()
    }

    #[test]
    fn v1_ids_are_stable() {
        // Pinned: changing the scheme would break users' references.
        assert_eq!(v1_id("abc", 2, 0).len(), 8);
        assert_eq!(v1_id("abc", 2, 0), v1_id("abc", 2, 0));
        assert_ne!(v1_id("abc", 2, 0), v1_id("abc", 2, 1));
    }

    #[test]
    fn migrates_like_pi() {
        let o = obj(
            r#"{"type":"compaction","timestamp":"t","summary":"s","firstKeptEntryIndex":1,"tokensBefore":5}"#,
        );
        let m = EntryMigration {
            from_version: 1,
            id: Some("0000000b"),
            parent: Some("0000000a"),
            first_kept: FirstKept::Set("0000000a".into()),
            is_session: false,
        };
        assert_eq!(
            String::from_utf8(migrate_entry(&o, &m)).unwrap(),
            r#"{"type":"compaction","timestamp":"t","summary":"s","tokensBefore":5,"id":"0000000b","parentId":"0000000a","firstKeptEntryId":"0000000a"}"#
        );
        let h = obj(r#"{"type":"session","id":"x","a":1}"#);
        assert_eq!(
            String::from_utf8(migrate_header(&h)).unwrap(),
            r#"{"type":"session","id":"x","a":1,"version":3}"#
        );
        let h = obj(r#"{"type":"session","version":2,"id":"x"}"#);
        assert_eq!(
            String::from_utf8(migrate_header(&h)).unwrap(),
            r#"{"type":"session","version":3,"id":"x"}"#
        );
        let r =
            obj(r#"{"type":"message","id":"a","message":{"role":"hookMessage","content":"x"}}"#);
        let m = EntryMigration {
            from_version: 2,
            id: None,
            parent: None,
            first_kept: FirstKept::None,
            is_session: false,
        };
        assert_eq!(
            String::from_utf8(migrate_entry(&r, &m)).unwrap(),
            r#"{"type":"message","id":"a","message":{"role":"custom","content":"x"}}"#
        );
    }

    #[test]
    fn deletes_first_member() {
        let o = obj(r#"{"firstKeptEntryIndex":1,"type":"compaction"}"#);
        let mut e = ObjectEdit::new();
        e.delete(&o, "firstKeptEntryIndex");
        assert_eq!(e.apply(&o), br#"{"type":"compaction"}"#);
    }
}
