//! One line of a session: what the index keeps of it.
//!
//! Only the fields every command needs are decoded (type, id, parentId,
//! timestamp, and the label and name of label and session_info entries);
//! everything else stays in the file and is read again when a command must
//! look inside (see [`crate::session::Session::line`]).

use crate::json::{js, Object};
use std::fmt;

/// An entry id. pi's ids are 8 lowercase hex digits, kept in 4 bytes; any
/// other string is kept as it is (behind a thin pointer, so that an `Id`
/// takes 16 bytes and an `Option<Id>` or a [`Parent`] no more). An id that
/// is not a string (`1`, `true`, `null`, `{}`) is a [`Id::Value`]: pi keys
/// its `Map`s by the value itself, so the number `1` names the entry whose
/// id is `1` (or `1.0`), never the one whose id is `"1"`.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Id {
    Hex8(u32),
    #[allow(clippy::box_collection)]
    Other(Box<String>),
    /// A JSON value that is not a string, by its `Map` key: `#` and the
    /// number as JavaScript prints it (`#1`, `#Infinity`; `-0` is `#0`, as
    /// `SameValueZero` has it), `true`, `false`, `null`, `undefined` (no
    /// id at all, as a label's missing `targetId`), or for an object or
    /// array (which only the very value it is equals) `{N}` with a number
    /// no other value has, then its JSON text.
    #[allow(clippy::box_collection)]
    Value(Box<String>),
}

impl Id {
    pub fn new(s: &str) -> Id {
        let b = s.as_bytes();
        if b.len() == 8 && b.iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')) {
            if let Ok(n) = u32::from_str_radix(s, 16) {
                return Id::Hex8(n);
            }
        }
        Id::Other(Box::new(s.to_string()))
    }

    /// The id a JSON string value (quotes included) holds.
    pub fn from_json(v: &[u8]) -> Id {
        let inner = &v[1..v.len() - 1];
        if inner.len() == 8 && inner.iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')) {
            let n = inner.iter().fold(0u32, |n, &c| {
                n << 4 | u32::from(if c <= b'9' { c - b'0' } else { c - b'a' + 10 })
            });
            return Id::Hex8(n);
        }
        Id::new(&js::decode_string(v, 0..v.len()))
    }

    /// The id any JSON value (its text) is as a `Map` key.
    pub fn from_value(v: &[u8]) -> Id {
        match v.first() {
            Some(b'"') => Id::from_json(v),
            Some(b'-' | b'0'..=b'9') => {
                let n = std::str::from_utf8(v)
                    .ok()
                    .and_then(|s| s.parse::<f64>().ok())
                    .unwrap_or(f64::NAN);
                Id::Value(Box::new(format!("#{}", js::number_string(n))))
            }
            Some(b'{' | b'[') => {
                use std::sync::atomic::{AtomicU64, Ordering};
                static NEXT: AtomicU64 = AtomicU64::new(0);
                let n = NEXT.fetch_add(1, Ordering::Relaxed);
                Id::Value(Box::new(format!("{{{n}}}{}", String::from_utf8_lossy(v))))
            }
            _ => Id::Value(Box::new(String::from_utf8_lossy(v).into_owned())),
        }
    }

    /// JavaScript's `undefined` as a key: what an entry without an id has.
    pub fn undefined() -> Id {
        Id::Value(Box::new("undefined".into()))
    }

    pub fn is_empty(&self) -> bool {
        matches!(self, Id::Other(s) if s.is_empty())
    }

    /// JavaScript truthiness of the id (pi follows truthy parent ids only).
    pub fn truthy(&self) -> bool {
        match self {
            Id::Hex8(_) => true,
            Id::Other(s) => !s.is_empty(),
            Id::Value(k) => value_key_truthy(k),
        }
    }

    /// Whether the id is JavaScript's `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Id::Value(k) if k.as_str() == "null")
    }

    /// The id as `JSON.stringify` writes it.
    pub fn to_json(&self) -> String {
        match self {
            Id::Value(k) => match k.as_bytes().first() {
                Some(b'#') if matches!(&k[1..], "Infinity" | "-Infinity") => "null".into(),
                Some(b'#') => k[1..].to_string(),
                Some(b'{') => {
                    let raw = object_text(k);
                    js::canonical_vec(raw.as_bytes(), 0..raw.len())
                        .map(|v| String::from_utf8_lossy(&v).into_owned())
                        .unwrap_or_else(|_| raw.to_string())
                }
                _ => k.to_string(),
            },
            _ => {
                let mut out = Vec::new();
                js::write_str(&mut out, &self.to_string());
                String::from_utf8(out).unwrap_or_default()
            }
        }
    }
}

/// Whether the value an [`Id::Value`] key stands for is truthy.
fn value_key_truthy(key: &str) -> bool {
    !matches!(key, "#0" | "false" | "null" | "undefined")
}

/// The JSON text of an object or array's [`Id::Value`] key (after `{N}`).
fn object_text(key: &str) -> &str {
    &key[key.find('}').map_or(0, |p| p + 1)..]
}

impl fmt::Display for Id {
    /// `${id}`, as pi writes an id into text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Hex8(n) => write!(f, "{n:08x}"),
            Id::Other(s) => f.write_str(s),
            Id::Value(k) => match k.as_bytes().first() {
                Some(b'#') => f.write_str(&k[1..]),
                Some(b'{') => f.write_str(&js::string_value(object_text(k).as_bytes())),
                _ => f.write_str(k),
            },
        }
    }
}

impl fmt::Debug for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

/// What an entry's `parentId` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parent {
    /// `null`: a root.
    Null,
    /// No `parentId` key (`undefined`).
    Missing,
    /// A string, number or boolean: the parent's id (maybe naming no entry;
    /// pi follows it only when truthy, see [`Parent::id`]).
    Id(Id),
    /// An object or array: names no entry (only that very value would).
    Other,
}

impl Parent {
    /// What the `parentId` of an entry's parsed line says.
    pub fn from_object(obj: &Object<'_>) -> Parent {
        match obj.raw("parentId") {
            None => Parent::Missing,
            Some(b"null") => Parent::Null,
            Some(v) if matches!(v[0], b'{' | b'[') => Parent::Other,
            Some(v) => Parent::Id(Id::from_value(v)),
        }
    }

    /// The id to follow when walking to the root (pi follows truthy ids only).
    pub fn id(&self) -> Option<&Id> {
        match self {
            Parent::Id(id) if id.truthy() => Some(id),
            _ => None,
        }
    }
}

/// The entry types pi writes, and anything else. One byte: the name of an
/// unknown type is kept beside the entries (see
/// [`crate::session::Session::type_name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryType {
    Message,
    ThinkingLevelChange,
    ModelChange,
    Compaction,
    BranchSummary,
    Custom,
    CustomMessage,
    Label,
    SessionInfo,
    /// pi 1.x: model usage outside the context (title generation, cache warming, ...).
    Usage,
    /// pi 1.x: an edit of what the model sees of an earlier entry.
    ContextEdit,
    /// A `session` line that is not the first: a second header (pi skips it).
    Session,
    /// A type this tool does not know (its name is kept beside the entries).
    Other,
    /// No string `type`.
    None,
}

/// The text of a JSON string value (quotes included) that has no escapes.
fn plain(v: &[u8]) -> Option<&[u8]> {
    let inner = &v[1..v.len() - 1];
    (!inner.contains(&b'\\')).then_some(inner)
}

impl EntryType {
    pub fn parse(s: &str) -> EntryType {
        EntryType::parse_bytes(s.as_bytes())
    }

    /// [`EntryType::parse`] of the bytes of a name.
    pub fn parse_bytes(s: &[u8]) -> EntryType {
        match s {
            b"message" => EntryType::Message,
            b"thinking_level_change" => EntryType::ThinkingLevelChange,
            b"model_change" => EntryType::ModelChange,
            b"compaction" => EntryType::Compaction,
            b"branch_summary" => EntryType::BranchSummary,
            b"custom" => EntryType::Custom,
            b"custom_message" => EntryType::CustomMessage,
            b"label" => EntryType::Label,
            b"session_info" => EntryType::SessionInfo,
            b"usage" => EntryType::Usage,
            b"context_edit" => EntryType::ContextEdit,
            b"session" => EntryType::Session,
            _ => EntryType::Other,
        }
    }

    /// The name of a known type ("" for no type); None for
    /// [`EntryType::Other`], whose name only the session has.
    pub fn known_name(self) -> Option<&'static str> {
        Some(match self {
            EntryType::Message => "message",
            EntryType::ThinkingLevelChange => "thinking_level_change",
            EntryType::ModelChange => "model_change",
            EntryType::Compaction => "compaction",
            EntryType::BranchSummary => "branch_summary",
            EntryType::Custom => "custom",
            EntryType::CustomMessage => "custom_message",
            EntryType::Label => "label",
            EntryType::SessionInfo => "session_info",
            EntryType::Usage => "usage",
            EntryType::ContextEdit => "context_edit",
            EntryType::Session => "session",
            EntryType::Other => return None,
            EntryType::None => "",
        })
    }
}

/// Fields only some entry types have (boxed: most entries have none, and
/// every entry of a large session is kept in memory).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Extra {
    None,
    /// A `label` entry: its target and the label it sets.
    Label(Box<LabelChange>),
    /// A `session_info` entry: its name, trimmed (None when absent).
    SessionInfo(Box<Option<Box<str>>>),
}

impl Extra {
    /// The fields an entry of type `ty` has beyond [`Entry`]'s.
    pub fn from_object(obj: &Object<'_>, ty: EntryType) -> Extra {
        match ty {
            EntryType::Label => Extra::Label(Box::new(LabelChange {
                target: Some(
                    obj.raw("targetId")
                        .map_or_else(Id::undefined, Id::from_value),
                ),
                // pi: `if (entry.label)`: any truthy value, shown as
                // `${label}` (its own JSON is read back where it is written).
                label: obj
                    .raw("label")
                    .filter(|l| crate::json::js::truthy(l))
                    .map(|l| crate::json::js::string_value(l).into_boxed_str()),
            })),
            EntryType::SessionInfo => Extra::SessionInfo(Box::new(
                obj.str("name")
                    .map(|n| js_trim(&n).to_string().into_boxed_str()),
            )),
            _ => Extra::None,
        }
    }
}

/// The name of an entry's `type` when [`EntryType::parse`] does not know it.
pub fn unknown_type(obj: &Object<'_>) -> Option<String> {
    obj.str("type")
        .filter(|t| EntryType::parse(t) == EntryType::Other)
        .map(|t| t.into_owned())
}

/// What a `label` entry says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelChange {
    pub target: Option<Id>,
    /// The label it sets; None = cleared.
    pub label: Option<Box<str>>,
}

/// What the index keeps of one entry line: 32 bytes, as every entry of a
/// large session is kept in memory. The fields of label and session_info
/// entries and the names of unknown types are kept beside the entries, and
/// the text of ids that are not pi's 8 hex digits in [`Entries`] (so the
/// id and `parentId` of an entry are read through [`Entries::id`] and
/// [`Entries::parent`]).
#[derive(Debug, Clone)]
pub struct Entry {
    /// The byte offset (low 48 bits), the [`EntryType`] (4 bits from bit
    /// 48), the kind of id (2 bits from bit 52: none, hex, string) and of
    /// parent (3 bits from bit 54: missing, null, other, hex, string, found),
    /// and whether the line is known to be `JSON.stringify`'s text (bit 57).
    word: u64,
    /// `new Date(timestamp).getTime()`: NaN when absent or unparsable.
    time: f64,
    line: u32,
    len: u32,
    /// The id: its 8 hex digits as a number, or its place in
    /// [`Entries::strings`] (by the kind of id in `word`).
    id: u32,
    /// The same for the `parentId` string, or once the index has found the
    /// entry it names, that entry's index.
    parent: u32,
}

const OFFSET_BITS: u32 = 48;
const OFFSET_MASK: u64 = (1 << OFFSET_BITS) - 1;
const TY_SHIFT: u32 = 48;
const ID_SHIFT: u32 = 52;
const PARENT_SHIFT: u32 = 54;
const CANONICAL_BIT: u64 = 1 << 57;

const ID_NONE: u64 = 0;
const ID_HEX: u64 = 1;
const ID_STR: u64 = 2;
/// An id that is not a string: its key ([`Id::Value`]) in `strings`.
const ID_VALUE: u64 = 3;

const PARENT_MISSING: u64 = 0;
const PARENT_NULL: u64 = 1;
const PARENT_OTHER: u64 = 2;
const PARENT_HEX: u64 = 3;
const PARENT_STR: u64 = 4;
/// A parent id the index found: the field holds the parent's entry index
/// (the id is that entry's, as the index finds an entry by its id).
const PARENT_FOUND: u64 = 5;
/// A `parentId` that is a number or boolean: its key in `strings`.
const PARENT_VALUE: u64 = 6;

/// The entry types by their code in [`Entry`].
const TYPES: [EntryType; 14] = [
    EntryType::Message,
    EntryType::ThinkingLevelChange,
    EntryType::ModelChange,
    EntryType::Compaction,
    EntryType::BranchSummary,
    EntryType::Custom,
    EntryType::CustomMessage,
    EntryType::Label,
    EntryType::SessionInfo,
    EntryType::Usage,
    EntryType::ContextEdit,
    EntryType::Session,
    EntryType::Other,
    EntryType::None,
];

impl Entry {
    /// 1-based line number in the input.
    pub fn line(&self) -> u64 {
        u64::from(self.line)
    }

    /// Byte offset of the line in the input.
    pub fn offset(&self) -> u64 {
        self.word & OFFSET_MASK
    }

    /// Length of the line in bytes (without `\n`).
    pub fn byte_len(&self) -> u32 {
        self.len
    }

    pub fn ty(&self) -> EntryType {
        let code = ((self.word >> TY_SHIFT) & 0xf) as usize;
        TYPES.get(code).copied().unwrap_or(EntryType::None)
    }

    /// `new Date(timestamp).getTime()`: NaN when absent or unparsable.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Whether the entry has an `id` key (whatever its value, null too).
    pub fn has_id(&self) -> bool {
        self.id_kind() != ID_NONE
    }

    fn id_kind(&self) -> u64 {
        (self.word >> ID_SHIFT) & 0x3
    }

    fn parent_kind(&self) -> u64 {
        (self.word >> PARENT_SHIFT) & 0x7
    }

    fn set_id_kind(&mut self, kind: u64) {
        self.word = (self.word & !(0x3 << ID_SHIFT)) | (kind << ID_SHIFT);
    }

    /// Whether the load proved the line exactly what `JSON.stringify`
    /// writes for it (see [`crate::session::ReadOptions::canonical`]): it
    /// can be printed as it is where pi prints the entry as JSON. False
    /// only means "not known".
    pub fn is_canonical(&self) -> bool {
        self.word & CANONICAL_BIT != 0
    }

    fn set_parent_kind(&mut self, kind: u64) {
        self.word = (self.word & !(0x7 << PARENT_SHIFT)) | (kind << PARENT_SHIFT);
    }
}

/// The entries of a session, in file order, with the text of the ids (and
/// parent ids) that are not pi's 8 hex digits. Reads as a slice of
/// [`Entry`]; an entry's id and parent come from [`Entries::id`] and
/// [`Entries::parent`].
#[derive(Debug, Clone, Default)]
pub struct Entries {
    list: Vec<Entry>,
    strings: Vec<Box<str>>,
}

/// Why an entry cannot be kept (limits of [`Entry`]'s compact fields).
pub const TOO_MANY_LINES: &str = "more than 4 294 967 295 lines: more than this tool reads";
pub const TOO_FAR: &str = "a line 256 TiB or more into the input: further than this tool reads";
pub const TOO_MANY_IDS: &str =
    "more than 4 294 967 295 ids that are not 8 hex digits: more than this tool reads";

impl std::ops::Deref for Entries {
    type Target = [Entry];
    fn deref(&self) -> &[Entry] {
        &self.list
    }
}

impl Entries {
    pub fn new() -> Entries {
        Entries::default()
    }

    /// Read the fields of an entry from its parsed line and add it; its
    /// index. The `type`, when it is not one [`EntryType`] names, is left to
    /// the caller ([`unknown_type`]); label and session_info fields to
    /// [`Extra::from_object`]. An error (one of [`TOO_MANY_LINES`],
    /// [`TOO_FAR`], [`TOO_MANY_IDS`]) when the entry does not fit.
    pub fn push_object(
        &mut self,
        obj: &Object<'_>,
        line: u64,
        offset: u64,
        len: u32,
    ) -> std::result::Result<usize, &'static str> {
        // The common cases straight from the bytes (no decoding, no
        // allocation): a type name and an id without escapes.
        let ty = match obj.raw("type") {
            Some(v) if v[0] == b'"' => match plain(v) {
                Some(name) => EntryType::parse_bytes(name),
                None => EntryType::parse(&js::decode_string(v, 0..v.len())),
            },
            _ => EntryType::None,
        };
        let id = obj.raw("id").map(Id::from_value);
        let parent = Parent::from_object(obj);
        let time = obj
            .raw("timestamp")
            .map_or(f64::NAN, crate::time::js_date_ms);
        let line = u32::try_from(line).map_err(|_| TOO_MANY_LINES)?;
        if offset > OFFSET_MASK {
            return Err(TOO_FAR);
        }
        let code = TYPES.iter().position(|&t| t == ty).unwrap_or(0) as u64;
        let mut e = Entry {
            word: offset | (code << TY_SHIFT),
            time,
            line,
            len,
            id: 0,
            parent: 0,
        };
        self.encode_id(&mut e, id.as_ref())?;
        self.encode_parent(&mut e, &parent)?;
        self.list.push(e);
        Ok(self.list.len() - 1)
    }

    /// Add the entries of `later`, read from further on in the same input:
    /// its line numbers count from `lines` more, its offsets from `offset`
    /// more (how a file read in two halves is put together).
    pub(crate) fn append(
        &mut self,
        later: Entries,
        lines: u64,
        offset: u64,
    ) -> std::result::Result<(), &'static str> {
        let strings = u32::try_from(self.strings.len()).map_err(|_| TOO_MANY_IDS)?;
        if u32::try_from(self.strings.len() + later.strings.len()).is_err() {
            return Err(TOO_MANY_IDS);
        }
        // Lines and offsets grow along the entries: checking the last one
        // checks them all, and the loop below is plain additions.
        if let Some(last) = later.list.last() {
            u32::try_from(u64::from(last.line) + lines).map_err(|_| TOO_MANY_LINES)?;
            if last.offset() + offset > OFFSET_MASK {
                return Err(TOO_FAR);
            }
        }
        let lines = u32::try_from(lines).unwrap_or(0);
        self.list.extend(later.list.into_iter().map(|mut e| {
            e.line += lines;
            // The offset is the word's low bits, and stays below OFFSET_MASK.
            e.word += offset;
            if strings > 0 {
                if matches!(e.id_kind(), ID_STR | ID_VALUE) {
                    e.id += strings;
                }
                // Parents are found by the index, after the whole input is read.
                if matches!(e.parent_kind(), PARENT_STR | PARENT_VALUE) {
                    e.parent += strings;
                }
            }
            e
        }));
        self.strings.extend(later.strings);
        Ok(())
    }

    /// Record that entry `i`'s line is `JSON.stringify`'s text.
    pub(crate) fn set_canonical(&mut self, i: usize) {
        if let Some(e) = self.list.get_mut(i) {
            e.word |= CANONICAL_BIT;
        }
    }

    /// Give entry `i` this id (version-1 files get theirs when read).
    pub(crate) fn set_id(
        &mut self,
        i: usize,
        id: Option<&Id>,
    ) -> std::result::Result<(), &'static str> {
        let mut e = self.list[i].clone();
        self.encode_id(&mut e, id)?;
        self.list[i] = e;
        Ok(())
    }

    /// Give entry `i` this parent.
    pub(crate) fn set_parent(
        &mut self,
        i: usize,
        parent: &Parent,
    ) -> std::result::Result<(), &'static str> {
        let mut e = self.list[i].clone();
        self.encode_parent(&mut e, parent)?;
        self.list[i] = e;
        Ok(())
    }

    fn string(&mut self, s: &str) -> std::result::Result<u32, &'static str> {
        let at = u32::try_from(self.strings.len()).map_err(|_| TOO_MANY_IDS)?;
        self.strings.push(s.into());
        Ok(at)
    }

    fn encode_id(
        &mut self,
        e: &mut Entry,
        id: Option<&Id>,
    ) -> std::result::Result<(), &'static str> {
        let (kind, value) = match id {
            None => (ID_NONE, 0),
            Some(Id::Hex8(n)) => (ID_HEX, *n),
            Some(Id::Other(s)) => (ID_STR, self.string(s)?),
            Some(Id::Value(k)) => (ID_VALUE, self.string(k)?),
        };
        e.set_id_kind(kind);
        e.id = value;
        Ok(())
    }

    fn encode_parent(
        &mut self,
        e: &mut Entry,
        parent: &Parent,
    ) -> std::result::Result<(), &'static str> {
        let (kind, value) = match parent {
            Parent::Missing => (PARENT_MISSING, 0),
            Parent::Null => (PARENT_NULL, 0),
            Parent::Other => (PARENT_OTHER, 0),
            Parent::Id(Id::Hex8(n)) => (PARENT_HEX, *n),
            Parent::Id(Id::Other(s)) => (PARENT_STR, self.string(s)?),
            Parent::Id(Id::Value(k)) => (PARENT_VALUE, self.string(k)?),
        };
        e.set_parent_kind(kind);
        e.parent = value;
        Ok(())
    }

    fn decode(&self, value: u32) -> Id {
        Id::Other(Box::new(self.text(value).to_string()))
    }

    fn decode_value(&self, value: u32) -> Id {
        Id::Value(Box::new(self.text(value).to_string()))
    }

    fn text(&self, value: u32) -> &str {
        self.strings.get(value as usize).map_or("", |s| s)
    }

    /// The `id` of entry `i` (None when it has no string `id`).
    pub fn id(&self, i: usize) -> Option<Id> {
        let e = &self.list[i];
        match e.id_kind() {
            ID_HEX => Some(Id::Hex8(e.id)),
            ID_STR => Some(self.decode(e.id)),
            ID_VALUE => Some(self.decode_value(e.id)),
            _ => None,
        }
    }

    /// The id of entry `i` as a number when it is 8 hex digits (None too
    /// when there is no entry `i`).
    pub fn hex_id(&self, i: usize) -> Option<u32> {
        self.list
            .get(i)
            .filter(|e| e.id_kind() == ID_HEX)
            .map(|e| e.id)
    }

    /// Whether entries `i` and `j` have the same id (both none counts).
    pub fn same_id(&self, i: usize, j: usize) -> bool {
        let (a, b) = (&self.list[i], &self.list[j]);
        match (a.id_kind(), b.id_kind()) {
            (ID_HEX, ID_HEX) => a.id == b.id,
            (ID_STR, ID_STR) | (ID_VALUE, ID_VALUE) => {
                a.id == b.id || self.strings.get(a.id as usize) == self.strings.get(b.id as usize)
            }
            (x, y) => x == y && x == ID_NONE,
        }
    }

    /// Whether entry `i`'s `parentId` is entry `j`'s id (a non-empty one),
    /// before the index has found parents; no allocation.
    pub fn parent_names(&self, i: usize, j: usize) -> bool {
        let (e, p) = (&self.list[i], &self.list[j]);
        match (e.parent_kind(), p.id_kind()) {
            (PARENT_HEX, ID_HEX) => e.parent == p.id,
            (PARENT_STR, ID_STR) => match self.strings.get(e.parent as usize) {
                Some(name) => !name.is_empty() && self.strings.get(p.id as usize) == Some(name),
                None => false,
            },
            (PARENT_VALUE, ID_VALUE) => {
                let key = self.text(e.parent);
                value_key_truthy(key) && self.text(p.id) == key
            }
            _ => false,
        }
    }

    /// Whether entry `i` has this id.
    pub fn has_this_id(&self, i: usize, id: &Id) -> bool {
        let e = &self.list[i];
        match (e.id_kind(), id) {
            (ID_HEX, Id::Hex8(n)) => e.id == *n,
            (ID_STR, Id::Other(s)) | (ID_VALUE, Id::Value(s)) => {
                self.strings.get(e.id as usize).map(|t| &**t) == Some(s.as_str())
            }
            _ => false,
        }
    }

    /// The id of entry `i` as text ("" when it has none).
    pub fn id_string(&self, i: usize) -> String {
        self.id(i).map(|id| id.to_string()).unwrap_or_default()
    }

    /// What the `parentId` of entry `i` says.
    pub fn parent(&self, i: usize) -> Parent {
        let e = &self.list[i];
        match e.parent_kind() {
            PARENT_NULL => Parent::Null,
            PARENT_OTHER => Parent::Other,
            PARENT_HEX => Parent::Id(Id::Hex8(e.parent)),
            PARENT_STR => Parent::Id(self.decode(e.parent)),
            PARENT_VALUE => Parent::Id(self.decode_value(e.parent)),
            PARENT_FOUND => match self.id(e.parent as usize) {
                Some(id) => Parent::Id(id),
                None => Parent::Missing,
            },
            _ => Parent::Missing,
        }
    }

    /// The entry the parent id of entry `i` names, once the index has
    /// found it ([`crate::index::Index::build`]); None for a root, a parent
    /// that names no entry, or before the index is built.
    pub fn parent_index(&self, i: usize) -> Option<usize> {
        let e = &self.list[i];
        (e.parent_kind() == PARENT_FOUND).then_some(e.parent as usize)
    }

    /// Record that the parent id of entry `i` names entry `p` (which must
    /// have that id: the index's find).
    pub(crate) fn set_parent_index(&mut self, i: usize, p: u32) {
        let e = &mut self.list[i];
        e.set_parent_kind(PARENT_FOUND);
        e.parent = p;
    }

    /// The parent id to follow from entry `i` ([`Parent::id`]).
    pub fn parent_id(&self, i: usize) -> Option<Id> {
        match self.parent(i) {
            Parent::Id(id) if id.truthy() => Some(id),
            _ => None,
        }
    }

    /// The `parentId` of entry `i` as a key to look up, whatever its value
    /// but `null`, `undefined` or an object (pi's `parentId ?? null` walks
    /// in `/tree`, which follow `""`, `0` and `false` too).
    pub fn parent_key(&self, i: usize) -> Option<Id> {
        match self.parent(i) {
            Parent::Id(id) => Some(id),
            _ => None,
        }
    }

    /// Whether entry `i` names itself as parent (`parentId === id`).
    pub fn is_own_parent(&self, i: usize) -> bool {
        let e = &self.list[i];
        match (e.id_kind(), e.parent_kind()) {
            (ID_HEX, PARENT_HEX) => e.id == e.parent,
            (ID_STR, PARENT_STR) | (ID_VALUE, PARENT_VALUE) => {
                self.strings.get(e.id as usize) == self.strings.get(e.parent as usize)
            }
            (ID_NONE, _) => false,
            (_, PARENT_FOUND) => self.same_id(i, e.parent as usize),
            _ => false,
        }
    }
}

/// JavaScript's `String.prototype.trim()`: strips white space and line
/// terminators as ECMAScript defines them (including U+FEFF).
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

pub fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{d}'
            | ' '
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
            | '\u{feff}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_that_are_not_strings_are_keyed_by_value() {
        let v = |t: &str| Id::from_value(t.as_bytes());
        // SameValueZero: 1, 1.0 and 1e0 are one key, -0 is 0; "1" is another.
        assert_eq!(v("1"), v("1.0"));
        assert_eq!(v("1"), v("1e0"));
        assert_eq!(v("-0"), v("0"));
        assert_ne!(v("1"), v("\"1\""));
        assert_ne!(v("true"), v("\"true\""));
        assert_eq!(v("1e400"), v("1e999"));
        // An object or array is a key only to itself.
        assert_ne!(v("{}"), v("{}"));
        assert_ne!(v("[1]"), v("[1]"));
        // `${id}` and JSON.stringify(id).
        for (json, text, out, truthy) in [
            ("1.50", "1.5", "1.5", true),
            ("-0", "0", "0", false),
            ("0", "0", "0", false),
            ("1e400", "Infinity", "null", true),
            (
                "123456789012345678901234567890",
                "1.2345678901234568e+29",
                "1.2345678901234568e+29",
                true,
            ),
            ("true", "true", "true", true),
            ("false", "false", "false", false),
            ("null", "null", "null", false),
            ("{\"k\": [1, 2]}", "[object Object]", "{\"k\":[1,2]}", true),
            ("[1, [2, null]]", "1,2,", "[1,[2,null]]", true),
            ("\"\"", "", "\"\"", false),
            ("\"a\\\"b\"", "a\"b", "\"a\\\"b\"", true),
        ] {
            let id = v(json);
            assert_eq!(id.to_string(), text, "{json}");
            assert_eq!(id.to_json(), out, "{json}");
            assert_eq!(id.truthy(), truthy, "{json}");
        }
        assert!(v("null").is_null() && !v("\"null\"").is_null());
    }

    #[test]
    fn ids_round_trip() {
        for s in ["0123abcd", "ffffffff", "ABCDEF01", "short", "", "0123abcde"] {
            assert_eq!(Id::new(s).to_string(), s);
        }
        assert!(matches!(Id::new("00000000"), Id::Hex8(0)));
        for json in [
            r#""0123abcd""#,
            r#""ffffffff""#,
            r#""ABCDEF01""#,
            r#""\u0030123abcd""#,
            r#""0123abc\u0064""#,
            r#""0123abcg""#,
            "\"\"",
            r#""caf\u00e9""#,
        ] {
            let decoded = js::decode_string(json.as_bytes(), 0..json.len());
            assert_eq!(Id::from_json(json.as_bytes()), Id::new(&decoded), "{json}");
        }
        for name in ["message", "session", "label", "x", "", "Message"] {
            let json = format!("\"{name}\"");
            assert_eq!(
                EntryType::parse_bytes(name.as_bytes()),
                EntryType::parse(name)
            );
            assert_eq!(plain(json.as_bytes()), Some(name.as_bytes()));
        }
        assert_eq!(plain(br#""mess\u0061ge""#), None);
    }

    #[test]
    fn reads_fields() {
        let line = br#"{"type":"label","id":"0000000a","parentId":"0000000b","timestamp":"2026-07-20T09:00:00.000Z","targetId":"x","label":""}"#;
        let obj = Object::parse_line(line).unwrap().unwrap();
        let mut entries = Entries::new();
        let i = entries.push_object(&obj, 3, 0, line.len() as u32).unwrap();
        let e = &entries[i];
        assert_eq!(e.ty(), EntryType::Label);
        assert_eq!(entries.parent(i), Parent::Id(Id::new("0000000b")));
        assert_eq!(entries.id(i), Some(Id::new("0000000a")));
        assert_eq!(
            Extra::from_object(&obj, e.ty()),
            Extra::Label(Box::new(LabelChange {
                target: Some(Id::new("x")),
                label: None
            }))
        );
        assert_eq!(e.time(), 1784538000000.0);
        assert_eq!(
            (e.line(), e.offset(), e.byte_len()),
            (3, 0, line.len() as u32)
        );
    }
    #[test]
    fn compact_fields_round_trip() {
        let types = [
            "message",
            "thinking_level_change",
            "model_change",
            "compaction",
            "branch_summary",
            "custom",
            "custom_message",
            "label",
            "session_info",
            "session",
            "something_else",
        ];
        let ids = [
            None,
            Some("0123abcd"),
            Some("ffffffff"),
            Some("ABCDEF01"),
            Some(""),
            Some("x"),
        ];
        let parents = [
            ("", Parent::Missing),
            (r#","parentId":null"#, Parent::Null),
            (r#","parentId":false"#, Parent::Id(Id::from_value(b"false"))),
            (r#","parentId":0"#, Parent::Id(Id::from_value(b"0"))),
            (r#","parentId":-0.0"#, Parent::Id(Id::from_value(b"0"))),
            (r#","parentId":7"#, Parent::Id(Id::from_value(b"7.0"))),
            (r#","parentId":true"#, Parent::Id(Id::from_value(b"true"))),
            (r#","parentId":{}"#, Parent::Other),
            (r#","parentId":[1]"#, Parent::Other),
            (r#","parentId":"00000000""#, Parent::Id(Id::new("00000000"))),
            (r#","parentId":"""#, Parent::Id(Id::new(""))),
            (r#","parentId":"p\u0041""#, Parent::Id(Id::new("pA"))),
        ];
        let mut entries = Entries::new();
        let mut want = Vec::new();
        let mut k = 0u64;
        for ty in types.iter().map(Some).chain([None]) {
            for id in ids {
                for (p, parent) in &parents {
                    let mut line = String::from("{");
                    if let Some(t) = ty {
                        line.push_str(&format!(r#""type":"{t}","#));
                    }
                    if let Some(id) = id {
                        line.push_str(&format!(r#""id":"{id}","#));
                    }
                    line.push_str(r#""x":1"#);
                    line.push_str(p);
                    line.push('}');
                    let obj = Object::parse_line(line.as_bytes()).unwrap().unwrap();
                    let offset = (k * 0x1_0000_0001) & OFFSET_MASK;
                    let i = entries
                        .push_object(&obj, k + 2, offset, k as u32 * 7)
                        .unwrap();
                    let t = ty.map_or(EntryType::None, |t| EntryType::parse(t));
                    want.push((
                        t,
                        id.map(Id::new),
                        parent.clone(),
                        k + 2,
                        offset,
                        k as u32 * 7,
                    ));
                    assert_eq!(i as u64, k);
                    k += 1;
                }
            }
        }
        for (i, (ty, id, parent, line, offset, len)) in want.iter().enumerate() {
            let e = &entries[i];
            assert_eq!(e.ty(), *ty);
            assert_eq!(entries.id(i), *id);
            assert_eq!(e.has_id(), id.is_some());
            assert_eq!(entries.parent(i), *parent);
            assert_eq!(entries.parent_id(i).as_ref(), parent.id());
            assert_eq!((e.line(), e.offset(), e.byte_len()), (*line, *offset, *len));
            assert!(e.time().is_nan());
            let own = matches!((parent, id), (Parent::Id(p), Some(id)) if p == id);
            assert_eq!(entries.is_own_parent(i), own);
            for (j, other) in want.iter().enumerate() {
                assert_eq!(entries.same_id(i, j), *id == other.1);
            }
            if let Some(id) = id {
                assert!(entries.has_this_id(i, id));
            }
        }
        // Changing an id and a parent keeps the other fields.
        entries.set_id(3, Some(&Id::new("other"))).unwrap();
        entries
            .set_parent(3, &Parent::Id(Id::new("0000abcd")))
            .unwrap();
        assert_eq!(entries.id(3), Some(Id::new("other")));
        assert_eq!(entries.parent(3), Parent::Id(Id::new("0000abcd")));
        assert_eq!(entries[3].ty(), want[3].0);
        assert_eq!(entries[3].offset(), want[3].4);
        entries.set_id(3, None).unwrap();
        assert_eq!(entries.id(3), None);
    }

    #[test]
    fn found_parents_read_as_their_ids() {
        let mut entries = Entries::new();
        for line in [
            r#"{"id":"0000000a","parentId":null}"#,
            r#"{"id":"b","parentId":"0000000a"}"#,
            r#"{"id":"b","parentId":"b"}"#,
            r#"{"id":"0000000a","parentId":"0000000a"}"#,
            r#"{"parentId":"b"}"#,
        ] {
            let obj = Object::parse_line(line.as_bytes()).unwrap().unwrap();
            entries.push_object(&obj, 1, 0, 1).unwrap();
        }
        let before: Vec<Parent> = (0..5).map(|i| entries.parent(i)).collect();
        let own: Vec<bool> = (0..5).map(|i| entries.is_own_parent(i)).collect();
        assert_eq!(own, [false, false, true, true, false]);
        // As the index finds them: the later of duplicate ids wins.
        for (i, p) in [(1, 3), (2, 2), (3, 3), (4, 2)] {
            assert_eq!(entries.parent_index(i), None);
            entries.set_parent_index(i, p);
            assert_eq!(entries.parent_index(i), Some(p as usize));
        }
        let after: Vec<Parent> = (0..5).map(|i| entries.parent(i)).collect();
        assert_eq!(before, after);
        assert_eq!(
            own,
            (0..5).map(|i| entries.is_own_parent(i)).collect::<Vec<_>>()
        );
        assert_eq!(entries.parent_id(4), Some(Id::new("b")));
        assert_eq!(entries.parent_index(0), None);
    }

    #[test]
    fn limits_are_errors() {
        let obj = Object::parse_line(br#"{"type":"message","id":"abcd0123"}"#)
            .unwrap()
            .unwrap();
        let mut entries = Entries::new();
        assert_eq!(
            entries.push_object(&obj, 1 << 32, 0, 1),
            Err(TOO_MANY_LINES)
        );
        assert_eq!(entries.push_object(&obj, 1, 1 << 48, 1), Err(TOO_FAR));
        assert_eq!(entries.len(), 0);
        let i = entries
            .push_object(&obj, u32::MAX as u64, OFFSET_MASK, u32::MAX)
            .unwrap();
        let e = &entries[i];
        assert_eq!(
            (e.line(), e.offset(), e.byte_len()),
            (u32::MAX as u64, OFFSET_MASK, u32::MAX)
        );
        assert_eq!(e.ty(), EntryType::Message);
        assert_eq!(entries.id(i), Some(Id::new("abcd0123")));
    }
}

#[cfg(test)]
mod size {
    use super::*;

    /// Every entry of a session is kept in memory: keep an entry small.
    #[test]
    fn entry_stays_small() {
        assert_eq!(std::mem::size_of::<Id>(), 16);
        assert_eq!(std::mem::size_of::<Option<Id>>(), 16);
        assert_eq!(std::mem::size_of::<Parent>(), 16);
        assert_eq!(std::mem::size_of::<Extra>(), 16);
        assert_eq!(std::mem::size_of::<EntryType>(), 1);
        assert_eq!(std::mem::size_of::<Entry>(), 32);
    }
}
