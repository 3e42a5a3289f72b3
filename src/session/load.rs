//! The loader: the state machine that reads a session's lines in order
//! (the header first, then one entry a line, skipping and warning as pi
//! does), and what it makes of them once the input ends: a [`Session`]
//! with its index (version-1 files given their ids first).

use super::lines::{for_each_line_in, RawLine, LINE_TOO_LONG};
use super::{Backing, Header, Input, ReadOptions, Session};
use crate::entry::glance::{glance, role, Glance};
use crate::entry::{unknown_type, Entries, EntryType, Extra, Id, Parent};
use crate::error::{Diagnostic, Error, Location, Result};
use crate::index::Index;
use crate::json::js::string::is_blank;
use crate::json::scan::{self, trim_ws};
use crate::json::{js, Object};
use crate::migrate::{self, CURRENT_VERSION};
use crate::migrate::{HeaderFields, NOT_OBJECT_FIRST};
use crate::store::raw::Strings;
use std::sync::Arc;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Why a file whose first line is a byte order mark and JSON is refused
/// (`pi-migrate -i` removes the mark).
pub const BOM_REFUSED: &str = "starts with a byte order mark; pi refuses such a file";

/// The warning on a kept line that is not valid UTF-8.
pub const NOT_UTF8: &str =
    "not valid UTF-8 (pi reads the bad bytes as U+FFFD; they are kept as they are)";

/// Load a session held in memory.
pub(super) fn load_bytes<'n>(bytes: &[u8], name: &'n str, opts: ReadOptions) -> Result<Loader<'n>> {
    let mut loader = Loader::new(name, opts);
    for_each_line_in(bytes, |l| loader.line(l))?;
    Ok(loader)
}

pub(super) struct Loader<'n> {
    pub(super) name: &'n str,
    pub(super) opts: ReadOptions,
    pub(super) header: Option<Header>,
    pub(super) entries: Entries,
    pub(super) extras: Vec<(u32, Extra)>,
    pub(super) other_types: Vec<(u32, Box<str>)>,
    pub(super) warnings: Vec<Diagnostic>,
    pub(super) lines_seen: u64,
    /// For [`ReadOptions::canonical`].
    pub(super) checker: js::check::Checker,
    /// Reading a later part of a file (see [`load_file`]): every object
    /// line is an entry, line numbers count from the part's start.
    pub(super) tail: bool,
    /// Values kept as entries that are not objects (a later part cannot
    /// know whether the file is old, where they are skipped).
    pub(super) non_objects: usize,
    /// The member list of the last line, kept for the next one's.
    spare_members: Vec<scan::Member>,
    /// For [`ReadOptions::glances`]: one per entry.
    pub(super) glances: Vec<Glance>,
    /// The member list of the last message object glanced at.
    spare_message: Vec<scan::Member>,
    /// For [`ReadOptions::roles`]: one per entry.
    pub(super) roles: Vec<u8>,
    /// For [`ReadOptions::talk`]: one per entry.
    pub(super) talk: crate::entry::talk::Talk,
}

impl<'n> Loader<'n> {
    pub(super) fn new(name: &'n str, opts: ReadOptions) -> Self {
        Loader {
            name,
            opts,
            header: None,
            entries: Entries::new(),
            extras: Vec::new(),
            other_types: Vec::new(),
            warnings: Vec::new(),
            lines_seen: 0,
            checker: js::check::Checker::new(),
            tail: false,
            non_objects: 0,
            spare_members: Vec::new(),
            glances: Vec::new(),
            spare_message: Vec::new(),
            roles: Vec::new(),
            talk: Default::default(),
        }
    }

    /// Add what `tail` read from the next part of the file, which starts
    /// at byte `split`, after this loader's lines.
    pub(super) fn append(&mut self, tail: Loader<'_>, split: u64) -> Result<()> {
        let (lines, at) = (self.lines_seen, self.entries.len());
        if at + tail.entries.len() >= crate::index::NONE as usize {
            return Err(Error::data(
                self.name,
                None,
                "more than 4 294 967 294 entries: more than this tool reads",
            ));
        }
        let at = at as u32;
        self.entries
            .append(tail.entries, lines, split)
            .map_err(|what| Error::data(self.name, None, what))?;
        self.extras
            .extend(tail.extras.into_iter().map(|(i, x)| (i + at, x)));
        self.other_types
            .extend(tail.other_types.into_iter().map(|(i, x)| (i + at, x)));
        self.glances.extend(tail.glances);
        self.roles.extend(tail.roles);
        self.talk.append(tail.talk);
        self.warnings.extend(tail.warnings.into_iter().map(|mut d| {
            shift_line(&mut d, lines);
            d
        }));
        if tail.lines_seen > 0 {
            self.lines_seen = lines + tail.lines_seen;
        }
        Ok(())
    }

    fn warn(&mut self, line: u64, msg: impl Into<String>) {
        self.warnings
            .push(Diagnostic::new(self.name, Some(line), msg.into()));
    }

    pub(super) fn line(&mut self, l: RawLine<'_>) -> Result<()> {
        self.lines_seen = l.number;
        let (mut bytes, mut offset) = (l.bytes, l.offset);
        if l.number == 1 && !self.tail && bytes.starts_with(BOM) {
            // pi 1.6 parses each line as it stands: a header after a byte
            // order mark is not JSON, so the file has no header and pi
            // refuses it. A mark on a blank line, or before a line that
            // is no JSON anyway, changes nothing.
            bytes = &bytes[3..];
            offset += 3;
            if !is_blank(bytes) && Object::parse_line(bytes).is_ok() {
                return Err(Error::data(self.name, Some(1), BOM_REFUSED));
            }
        }
        if is_blank(bytes) {
            return Ok(());
        }
        // A line pi wrote (compact, and in JSON.stringify's form) is read
        // in one quick pass that also proves that form when asked to; any
        // other the long way.
        let quick = match (self.opts.roles, self.opts.canonical) {
            (true, canonical) => self.checker.object_counting_roles(bytes, canonical),
            (false, true) => self.checker.object(bytes),
            (false, false) => self.checker.valid_object(bytes),
        }
        .map(|members| {
            // Into the members of the line before (no allocation a line).
            let mut kept = std::mem::take(&mut self.spare_members);
            kept.clear();
            kept.extend_from_slice(members);
            kept
        });
        // The quick read found the bytes that may not be ASCII: only
        // those need the UTF-8 check.
        let maybe_not_ascii = match quick {
            Some(_) => self.checker.not_ascii(),
            None => 0..bytes.len(),
        };
        // Taken by the quick check, whose quote bits are then the line's.
        let quick_read = quick.is_some();
        let parsed = match quick {
            Some(members) => Ok(Some(Object {
                text: bytes,
                range: 0..bytes.len(),
                members,
            })),
            None => Object::parse_line(bytes),
        };
        let mut non_object = false;
        let obj = match parsed {
            Ok(Some(o)) => o,
            // pi keeps every parsed value that is truthy (`if (entry)
            // entries.push(entry)`): an array, a number or a string is an
            // entry without type, id or parent; null, false, 0 and "" are
            // dropped.
            Ok(None) => {
                let v = trim_ws(bytes);
                if !js::truthy(v) {
                    return self.skip(
                        l.number,
                        "valid JSON but falsy (null, false, 0 or \"\")".into(),
                    );
                }
                // An old file is migrated by pi, which sets ids on its
                // entries (and fails on a string): such a line stays skipped.
                let old = self
                    .header
                    .as_ref()
                    .is_some_and(|h| h.version < CURRENT_VERSION);
                if self.opts.strict || old {
                    return self.skip(l.number, "valid JSON but not an object".into());
                }
                self.non_objects += 1;
                non_object = true;
                Object {
                    text: bytes,
                    range: 0..bytes.len(),
                    members: Vec::new(),
                }
            }
            Err(e) => return self.skip(l.number, e.line_problem(bytes.len())),
        };
        let utf8 = simdutf8::basic::from_utf8(&bytes[maybe_not_ascii]).is_ok();
        let read = self.entry(&obj, l.number, offset, utf8, non_object, quick_read);
        self.spare_members = obj.members;
        read
    }

    /// Keep the object line `obj` (line `number`, at `offset`): the header
    /// or an entry; `quick`: the quick check took it.
    fn entry(
        &mut self,
        obj: &Object<'_>,
        number: u64,
        offset: u64,
        utf8: bool,
        non_object: bool,
        quick: bool,
    ) -> Result<()> {
        let canonical = self.opts.canonical && quick;
        let bytes = obj.text;
        if !utf8 {
            self.warn(number, NOT_UTF8);
        }
        let len = bytes.len() as u64;
        if self.header.is_none() && !self.tail {
            if non_object {
                return Err(Error::data(self.name, Some(number), NOT_OBJECT_FIRST));
            }
            return self.header(obj, number, offset, len);
        }
        let Ok(short_len) = u32::try_from(len) else {
            return Err(Error::data(self.name, Some(number), LINE_TOO_LONG));
        };
        // Entry indices are kept as u32, with u32::MAX meaning none.
        let Some(at) = u32::try_from(self.entries.len())
            .ok()
            .filter(|&a| a != crate::index::NONE)
        else {
            return Err(Error::data(
                self.name,
                Some(number),
                "more than 4 294 967 294 entries: more than this tool reads",
            ));
        };
        let ty = match self.entries.push_object(obj, number, offset, short_len) {
            Ok(i) => {
                if canonical && utf8 {
                    self.entries.set_canonical(i);
                }
                self.entries[i].ty()
            }
            Err(what) => return Err(Error::data(self.name, Some(number), what)),
        };
        if self.opts.glances {
            // Every line kept was proven JSON, by the quick check or the
            // scanner; the quick check's quote bits are the line's.
            let strings = match quick {
                true => Strings::Marks(self.checker.marks()),
                false => Strings::Memchr,
            };
            self.glances.push(match ty {
                EntryType::Message => glance(obj, strings, &mut self.spare_message),
                _ => Glance::default(),
            });
        }
        if self.opts.roles {
            self.roles.push(match ty {
                EntryType::Message => role(obj, quick.then(|| self.checker.line_facts())),
                _ => 0,
            });
        }
        if self.opts.talk {
            // Only a line the quick check took, whose quote bits are at
            // hand: any other the checks read again, the way they read it.
            let msg = (quick && ty == EntryType::Message).then(|| {
                let strings = Strings::Marks(self.checker.marks());
                crate::entry::talk::Msg::of_entry_in(obj, strings, &mut self.spare_message)
            });
            self.talk.push(msg);
        }
        match ty {
            EntryType::Session => self.warn(number, "a second session header; pi ignores it"),
            EntryType::Label | EntryType::SessionInfo => {
                self.extras.push((at, Extra::from_object(obj, ty)))
            }
            EntryType::Other => {
                if let Some(name) = unknown_type(obj) {
                    self.other_types.push((at, name.into_boxed_str()));
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn skip(&mut self, line: u64, what: String) -> Result<()> {
        if self.opts.strict {
            return Err(Error::data(self.name, Some(line), what));
        }
        self.warn(line, format!("{what}; skipped, as pi does"));
        Ok(())
    }

    fn header(&mut self, obj: &Object<'_>, line: u64, offset: u64, len: u64) -> Result<()> {
        let h = HeaderFields::read(obj).map_err(|what| Error::data(self.name, Some(line), what))?;
        if let Some(v) = h.newer {
            self.warn(
                line,
                format!(
                    "session version {} is newer than this tool knows ({CURRENT_VERSION}); read as version {CURRENT_VERSION}",
                    String::from_utf8_lossy(v)
                ),
            );
        }
        if let Some(why) = h.odd {
            self.warn(line, why);
        }
        let (id, version) = (h.id, h.version);
        self.header = Some(Header {
            line,
            offset,
            len,
            id: id.into_owned(),
            version,
        });
        Ok(())
    }

    pub(super) fn finish(mut self, input: Input, backing: Backing) -> Result<Session> {
        let Some(header) = self.header.take() else {
            let what = if self.lines_seen == 0 {
                "empty input: not a session"
            } else {
                "no session header: not a session"
            };
            return Err(Error::request(self.name, what));
        };
        if header.version < 2 {
            assign_v1_ids(&header.id, &mut self.entries)
                .map_err(|what| Error::request(self.name, what))?;
        }
        if header.version < CURRENT_VERSION {
            self.warnings.push(Diagnostic::new(
                self.name,
                None,
                format!(
                    "version-{} session, read as version {CURRENT_VERSION} in memory{}; `pi-migrate` upgrades the file",
                    header.version,
                    if header.version < 2 { " with deterministic ids" } else { "" }
                ),
            ));
        }
        let index = Index::build(self.name, self.entries, &self.extras, &mut self.warnings);
        let entries = Arc::clone(index.entries());
        let mut s = Session {
            input,
            name: self.name.to_string(),
            backing,
            header,
            entries,
            index,
            warnings: self.warnings,
            other_types: self.other_types,
            leaf_id_null: false,
            glances: self.glances,
            roles: self.roles,
            talk: self.talk,
        };
        s.leaf_id_null = s
            .index
            .leaf
            .and_then(|l| s.entries.id(l))
            .is_some_and(|id| id.is_null());
        Ok(s)
    }
}

/// Add `by` to a diagnostic's line number.
pub(super) fn shift_line(d: &mut Diagnostic, by: u64) {
    if let Some(Location {
        line: Some(line), ..
    }) = &mut d.at
    {
        *line += by;
    }
}

/// Version 1 → 2: every entry, in file order, gets a deterministic id and
/// the previous entry as parent (SPEC §8).
fn assign_v1_ids(session_id: &str, entries: &mut Entries) -> std::result::Result<(), &'static str> {
    let mut used = std::collections::HashSet::new();
    let mut prev: Option<Id> = None;
    for i in 0..entries.len() {
        let e = &entries[i];
        if e.ty() == EntryType::Session {
            continue;
        }
        let line = e.line();
        let mut attempt = 0;
        let id = loop {
            let id = Id::new(&migrate::v1_id(session_id, line, attempt));
            if used.insert(id.clone()) {
                break id;
            }
            attempt += 1;
        };
        let parent = match prev.take() {
            Some(p) => Parent::Id(p),
            None => Parent::Null,
        };
        entries.set_parent(i, &parent)?;
        entries.set_id(i, Some(&id))?;
        prev = Some(id);
    }
    Ok(())
}
