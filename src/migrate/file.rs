//! A whole session file brought to version 3 in one pass over its lines
//! ([`migrate_bytes`]): what it gives ([`Outcome`]), what changed
//! ([`Changes`], in words for `--dry-run`), and whether a file is current
//! from its first line alone.
//!
//! The migrated text is what pi's `migrateSessionEntries` gives (SPEC §8),
//! except that ids are deterministic by default (the ones every read-only
//! tool shows for the old file) and that every line needing no change,
//! including lines pi would skip, keeps its bytes.

use super::header::HeaderFields;
use crate::entry::EntryType;
use crate::error::{Error, Result};
use crate::json::js::string::is_blank;
use crate::json::{scan, Object};
use crate::migrate::{self, EntryMigration, CURRENT_VERSION};
use std::collections::HashSet;
use std::ops::Range;

/// How one session is migrated.
#[derive(Debug, Clone, Copy, Default)]
pub struct MigrateOptions {
    /// Carry lines that are not JSON objects through unchanged (else refuse).
    pub keep_malformed: bool,
    /// Draw ids the way pi does (random) instead of the deterministic ones.
    pub random_ids: bool,
    /// Drop a torn last line (JSON cut short, nothing but blank lines
    /// after it), as pi's load does, instead of refusing the file.
    pub drop_torn: bool,
}

/// What migrating a session changes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    pub from_version: u32,
    pub ids_given: usize,
    pub compactions_repointed: usize,
    pub roles_renamed: usize,
    pub malformed_kept: usize,
    /// The byte order mark before the header was removed (pi 1.6 refuses
    /// such a file).
    pub bom_removed: bool,
    /// The torn last line dropped (`drop_torn`), by its number.
    pub torn_dropped: Option<u64>,
}

impl Changes {
    /// `version 1 -> 3: 27 entries given ids, 1 compaction re-pointed, 2 roles renamed`.
    pub fn describe(&self) -> String {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        if self.from_version >= CURRENT_VERSION {
            return "byte order mark removed".to_string();
        }
        let mut s = format!("version {} -> {CURRENT_VERSION}", self.from_version);
        let mut parts = Vec::new();
        if self.from_version < 2 {
            parts.push(plural(
                self.ids_given,
                "entry given an id",
                "entries given ids",
            ));
            parts.push(plural(
                self.compactions_repointed,
                "compaction re-pointed",
                "compactions re-pointed",
            ));
        }
        parts.push(plural(self.roles_renamed, "role renamed", "roles renamed"));
        if self.bom_removed {
            parts.push("byte order mark removed".to_string());
        }
        if let Some(n) = self.torn_dropped {
            parts.push(format!("torn last line {n} dropped"));
        }
        if self.malformed_kept > 0 {
            parts.push(plural(
                self.malformed_kept,
                "malformed line kept",
                "malformed lines kept",
            ));
        }
        s.push_str(": ");
        s.push_str(&parts.join(", "));
        s
    }
}

/// The result of migrating one session's bytes.
#[derive(Debug)]
pub enum Outcome {
    /// Already version 3: nothing to do.
    Current,
    /// The migrated file text and what changed.
    Migrated { bytes: Vec<u8>, changes: Changes },
}

/// Migrate the text of a session file. Refuses (with `FILE:LINE`) an empty
/// file, a file without a header or whose first object is not one, a
/// version newer than this tool knows, and (unless `keep_malformed`) a
/// line that is not a JSON object.
///
/// One pass over the lines, each parsed once: the result (and each
/// refusal) is what loading the file as a
/// [`Session`](crate::session::Session) and migrating each of its lines
/// gives, which the tests check against that construction.
pub fn migrate_bytes(name: &str, bytes: &[u8], opts: MigrateOptions) -> Result<Outcome> {
    let mut m = Migration {
        opts,
        out: Vec::new(),
        changes: Changes::default(),
        is_session: Vec::new(),
        ids: Vec::new(),
        used: HashSet::new(),
        prev_id: None,
        forward: Vec::new(),
    };
    // The session header, once found: (line, id, version).
    let mut header: Option<(u64, String, u32)> = None;
    // The first line that is not a JSON object (reported only once the
    // header is known to be fine, as loading the file comes first).
    let mut malformed: Option<(u64, String)> = None;
    let mut offset = 0usize;
    let mut number = 0u64;
    while offset < bytes.len() {
        number += 1;
        let end = memchr::memchr(b'\n', &bytes[offset..]).map_or(bytes.len(), |p| offset + p);
        let mut start = offset;
        if number == 1 && bytes[offset..end].starts_with(BOM) {
            start += BOM.len();
        }
        let text = &bytes[start..end];
        let next = end + 1;
        let newline = end < bytes.len();
        if is_blank(text) {
            m.out
                .extend_from_slice(&bytes[offset..end.min(bytes.len())]);
            if newline {
                m.out.push(b'\n');
            }
            offset = next;
            continue;
        }
        let obj = parse_entry(name, text, number, header.is_none(), &mut malformed)?;
        let Some(obj) = obj else {
            let torn = header.is_some() && is_torn_last(text, bytes.get(next..).unwrap_or(&[]));
            if torn && opts.drop_torn {
                m.changes.torn_dropped = Some(number);
                offset = next;
                continue;
            }
            if !opts.keep_malformed && header.is_some() {
                let hint = if torn { TORN_HINT } else { "" };
                return Err(malformed_error(name, malformed, hint));
            }
            m.changes.malformed_kept += 1;
            m.out.extend_from_slice(&bytes[offset..end]);
            if newline {
                m.out.push(b'\n');
            }
            offset = next;
            continue;
        };
        let Some((_, session_id, from)) = &header else {
            let from = header_version(name, number, &obj)?;
            // A byte order mark before the header: pi 1.6 refuses the
            // file; the repair removes the mark and changes nothing else.
            let bom = start > offset;
            if from >= CURRENT_VERSION {
                if bom {
                    return Ok(Outcome::Migrated {
                        bytes: bytes[start..].to_vec(),
                        changes: Changes {
                            from_version: from,
                            bom_removed: true,
                            ..Changes::default()
                        },
                    });
                }
                return Ok(Outcome::Current);
            }
            m.changes.bom_removed = bom;
            if !opts.keep_malformed && malformed.is_some() {
                return Err(malformed_error(name, malformed, ""));
            }
            m.changes.from_version = from;
            let id = obj.str("id").map(|c| c.into_owned()).unwrap_or_default();
            header = Some((number, id, from));
            m.out.reserve(bytes.len() + bytes.len() / 8 + 64);
            migrate::migrate_header_into(&obj, &mut m.out);
            if newline {
                m.out.push(b'\n');
            }
            offset = next;
            continue;
        };
        m.out.extend_from_slice(&bytes[offset..start]);
        m.entry(&obj, *from, session_id, number, start..end);
        if newline {
            m.out.push(b'\n');
        }
        offset = next;
    }
    if header.is_none() {
        let what = if number == 0 {
            "empty input: not a session"
        } else {
            "no session header: not a session"
        };
        return Err(Error::request(name, what));
    }
    let mut out = m.out;
    if !m.forward.is_empty() {
        out = mend_forward(out, bytes, &m.forward, &m.is_session, &m.ids);
    }
    Ok(Outcome::Migrated {
        bytes: out,
        changes: m.changes,
    })
}

/// Line `number`, `text`, as a JSON object; `None` for a line that is not
/// one, the first of which is kept in `malformed` (to be reported once the
/// header is known to be fine, as loading the file comes first). A truthy
/// value before the header (`first`) refuses the file, as pi 1.6 does.
#[inline]
fn parse_entry<'t>(
    name: &str,
    text: &'t [u8],
    number: u64,
    first: bool,
    malformed: &mut Option<(u64, String)>,
) -> Result<Option<Object<'t>>> {
    Ok(match Object::parse_line(text) {
        Ok(Some(o)) => Some(o),
        Ok(None) => {
            // pi 1.6 takes a truthy value for its first entry, and
            // refuses the file: no migration repairs that.
            if first && crate::json::js::truthy(crate::json::scan::trim_ws(text)) {
                return Err(Error::data(name, Some(number), super::NOT_OBJECT_FIRST));
            }
            if malformed.is_none() {
                *malformed = Some((number, "valid JSON but not an object".into()));
            }
            None
        }
        Err(e) => {
            if malformed.is_none() {
                let what = if e.offset >= text.len() {
                    format!("not valid JSON: {} (a torn or truncated line?)", e.what)
                } else {
                    format!("not valid JSON ({e})")
                };
                *malformed = Some((number, what));
            }
            None
        }
    })
}

/// A file being migrated, past its header: the text so far, what changed,
/// and what a version-1 migration remembers of the entries before.
struct Migration {
    opts: MigrateOptions,
    out: Vec<u8>,
    changes: Changes,
    /// Per entry (file order): whether it is a second header, and the id a
    /// version-1 migration gives it.
    is_session: Vec<bool>,
    ids: Vec<Option<u32>>,
    used: HashSet<u32>,
    prev_id: Option<u32>,
    /// Compactions of version 1 pointing at a later entry.
    forward: Vec<Forward>,
}

impl Migration {
    /// Migrate the entry `obj` (line `number`, at `text` in the file) of a
    /// version-`from` session whose header's id is `session_id`.
    #[inline]
    fn entry(
        &mut self,
        obj: &Object<'_>,
        from: u32,
        session_id: &str,
        number: u64,
        text: Range<usize>,
    ) {
        let i = self.is_session.len();
        let ty = match obj.str("type") {
            Some(t) => EntryType::parse(&t),
            None => EntryType::None,
        };
        let session = ty == EntryType::Session;
        self.is_session.push(session);
        let mut id = None;
        if from < 2 {
            if !session {
                self.changes.ids_given += 1;
                id = Some(self.new_id(session_id, number));
            }
            self.ids.push(id);
        }
        let mut first_kept = migrate::FirstKept::None;
        let mut pending = None;
        if from < 2 && !session && ty == EntryType::Compaction {
            if let Some(k) = migrate::first_kept_index(obj) {
                self.changes.compactions_repointed += 1;
                // Whether a later target exists is known only at the end:
                // written as if it does, mended then if not.
                let (is_session, ids) = (&self.is_session, &self.ids);
                first_kept = migrate::v1_first_kept(
                    k,
                    i,
                    usize::MAX,
                    |j| is_session.get(j).copied().unwrap_or(false),
                    |j| ids.get(j).copied().flatten().map(hex8),
                );
                if k.fract() == 0.0 && k >= 1.0 && (k - 1.0) > i as f64 {
                    pending = Some(k);
                }
            }
        }
        if from < 3 && migrate::hook_message_role(obj).is_some() {
            self.changes.roles_renamed += 1;
        }
        let id_text = id.map(hex8);
        let parent_text = if session {
            None
        } else {
            self.prev_id.map(hex8)
        };
        let m = EntryMigration {
            from_version: from,
            id: id_text.as_deref(),
            parent: parent_text.as_deref(),
            first_kept,
            is_session: session,
        };
        let at = self.out.len();
        migrate::migrate_entry_into(obj, &m, &mut self.out);
        if let Some(k) = pending {
            self.forward.push(Forward {
                k,
                entry: i,
                text,
                out: at..self.out.len(),
                id,
                parent: self.prev_id,
            });
        }
        if from < 2 && !session {
            self.prev_id = id;
        }
    }

    /// The id a version-1 migration gives the entry on line `number`:
    /// drawn as pi does with `random_ids`, else deterministic; never one
    /// given before.
    fn new_id(&mut self, session_id: &str, number: u64) -> u32 {
        if self.opts.random_ids {
            loop {
                let n = random_id();
                if self.used.insert(n) {
                    return n;
                }
            }
        }
        let mut attempt = 0;
        loop {
            let n = migrate::v1_id_number(session_id, number, attempt);
            if self.used.insert(n) {
                return n;
            }
            attempt += 1;
        }
    }
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A version-1 compaction whose `firstKeptEntryIndex` names a later line:
/// written as pi does when that line is an entry (`firstKeptEntryId`
/// undefined), to be rewritten if the file turns out to end before it or
/// it is a second header.
struct Forward {
    k: f64,
    entry: usize,
    text: std::ops::Range<usize>,
    out: std::ops::Range<usize>,
    id: Option<u32>,
    parent: Option<u32>,
}

fn hex8(n: u32) -> String {
    format!("{n:08x}")
}

/// An id as pi draws them: 8 random hex digits.
fn random_id() -> u32 {
    let u = uuid::Uuid::new_v4();
    let b = u.as_bytes();
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

/// The refusal of a line that is not a JSON object; `hint` follows.
fn malformed_error(name: &str, malformed: Option<(u64, String)>, hint: &str) -> Error {
    let (line, why) = malformed.unwrap_or((0, "not a JSON object".into()));
    Error::data(
        name,
        Some(line),
        format!("{why}; pi would drop this line when migrating; file left as it is (--keep-malformed carries it through{hint})"),
    )
}

/// Said of a torn last line refused: the option that drops it.
const TORN_HINT: &str = "; --drop-torn drops it, kept in the backup with -i --backup";

/// Whether a line that failed to parse is a torn last line: its JSON is
/// cut short (the text ends before the value does) and only blank lines
/// follow (`rest`). A crashed writer leaves such a line; pi's load drops it.
fn is_torn_last(text: &[u8], rest: &[u8]) -> bool {
    let cut_short = matches!(Object::parse_line(text), Err(e) if e.offset >= text.len());
    cut_short && rest.split(|&b| b == b'\n').all(is_blank)
}

/// The version of the session header `obj` on line `line` (what loading a
/// [`Session`](crate::session::Session) accepts, and none newer than this
/// tool knows).
fn header_version(name: &str, line: u64, obj: &Object<'_>) -> Result<u32> {
    let h = HeaderFields::read(obj).map_err(|what| Error::data(name, Some(line), what))?;
    match h.newer {
        Some(v) => Err(Error::data(
            name,
            Some(line),
            format!(
                "session version {} is newer than this tool knows ({CURRENT_VERSION}); left as it is",
                String::from_utf8_lossy(v)
            ),
        )),
        None => Ok(h.version),
    }
}

/// Rewrite the forward-pointing compactions whose target turned out not
/// to be an entry (past the end, or a second header): pi leaves their
/// `firstKeptEntryId` as it was.
fn mend_forward(
    out: Vec<u8>,
    bytes: &[u8],
    forward: &[Forward],
    is_session: &[bool],
    ids: &[Option<u32>],
) -> Vec<u8> {
    let count = is_session.len();
    let mut mended = Vec::with_capacity(out.len() + 64);
    let mut pos = 0;
    for f in forward {
        let fk = migrate::v1_first_kept(
            f.k,
            f.entry,
            count,
            |j| is_session.get(j).copied().unwrap_or(false),
            |j| ids.get(j).copied().flatten().map(hex8),
        );
        if fk == migrate::FirstKept::Unset {
            continue;
        }
        let Ok(Some(obj)) = Object::parse_line(&bytes[f.text.clone()]) else {
            continue;
        };
        let id_text = f.id.map(hex8);
        let parent_text = f.parent.map(hex8);
        let m = EntryMigration {
            from_version: 1,
            id: id_text.as_deref(),
            parent: parent_text.as_deref(),
            first_kept: fk,
            is_session: false,
        };
        mended.extend_from_slice(&out[pos..f.out.start]);
        migrate::migrate_entry_into(&obj, &m, &mut mended);
        pos = f.out.end;
    }
    mended.extend_from_slice(&out[pos..]);
    mended
}

/// Whether the first line of a file is a version-3 session header: then
/// the file is current and nothing more of it is read. Anything else (no
/// header on the first line, an older or a newer version) is left to the
/// full read, which says what it is.
pub(crate) fn first_line_is_current(line: &[u8]) -> bool {
    // A byte order mark first is not current: pi 1.6 refuses such a file.
    let Ok(Some(obj)) = Object::parse_line(line) else {
        return false;
    };
    if obj.str("type").as_deref() != Some("session") || obj.str("id").is_none() {
        return false;
    }
    match obj.raw("version") {
        Some(v) if scan::kind_of(v) == Some(scan::Kind::Number) => std::str::from_utf8(v)
            .ok()
            .and_then(|t| t.parse::<f64>().ok())
            .is_some_and(|n| n == CURRENT_VERSION as f64),
        _ => false,
    }
}

#[cfg(test)]
mod tests;
