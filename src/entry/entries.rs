//! The compact form every entry of a session is kept in ([`Entry`], 32
//! bytes) and the list of a session's entries ([`Entries`]), which holds
//! the text of ids that are not pi's 8 hex digits and reads an entry's
//! fields from its parsed line.

use super::id::value_key_truthy;
use super::{plain, EntryType, Id, Parent};
use crate::json::{js, Object};

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
pub(super) const OFFSET_MASK: u64 = (1 << OFFSET_BITS) - 1;
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

/// The values of the keys `names` in `obj`, as [`Object::raw`] gives each
/// (the last member with the key, as in `JSON.parse`), in one pass over
/// its members from the end: a key is compared with a name only when its
/// text is as long (or longer and has an escape: escapes only lengthen).
pub(super) fn raw_values<'a, const N: usize>(
    obj: &Object<'a>,
    names: [&str; N],
) -> [Option<&'a [u8]>; N] {
    let mut found = [None; N];
    let mut left = N;
    for m in obj.members.iter().rev() {
        let len = m.key.len().saturating_sub(2);
        let escaped = || obj.text[m.key.clone()].contains(&b'\\');
        for (name, slot) in names.iter().zip(found.iter_mut()) {
            if slot.is_none()
                && (len == name.len() || (len > name.len() && escaped()))
                && crate::json::key_is(obj.text, &m.key, name)
            {
                *slot = Some(&obj.text[m.value.clone()]);
                left -= 1;
            }
        }
        if left == 0 {
            break;
        }
    }
    found
}

/// `new Date(timestamp).getTime()` for a `timestamp` value (its text):
/// pi's (a string without escapes, from a digit to a letter or digit, which
/// trimming leaves as it is) parsed straight from the line, any other
/// through [`crate::time::js_date_ms`] (decoded and trimmed first).
pub(super) fn timestamp_ms(v: &[u8]) -> f64 {
    if v[0] == b'"' {
        if let Some(s) = plain(v).filter(|s| {
            s.first().is_some_and(u8::is_ascii_digit)
                && s.last().is_some_and(u8::is_ascii_alphanumeric)
        }) {
            if let Ok(s) = std::str::from_utf8(s) {
                return crate::time::parse_iso(s);
            }
        }
    }
    crate::time::js_date_ms(v)
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
    /// the caller ([`unknown_type`](super::unknown_type)); label and
    /// session_info fields to [`Extra::from_object`](super::Extra::from_object).
    /// An error (one of [`TOO_MANY_LINES`], [`TOO_FAR`], [`TOO_MANY_IDS`])
    /// when the entry does not fit.
    pub fn push_object(
        &mut self,
        obj: &Object<'_>,
        line: u64,
        offset: u64,
        len: u32,
    ) -> std::result::Result<usize, &'static str> {
        // The common cases straight from the bytes (no decoding, no
        // allocation): a type name and an id without escapes.
        let [ty, id, parent, time] = raw_values(obj, ["type", "id", "parentId", "timestamp"]);
        let ty = match ty {
            Some(v) if v[0] == b'"' => match plain(v) {
                Some(name) => EntryType::parse_bytes(name),
                None => EntryType::parse(&js::escape::decode_string(v, 0..v.len())),
            },
            _ => EntryType::None,
        };
        let id = id.map(Id::from_value);
        let parent = Parent::from_raw(parent);
        let time = time.map_or(f64::NAN, timestamp_ms);
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

    /// Make room for `n` more entries (before [`Entries::append`]ing
    /// several lists: one allocation, no copy as the list grows).
    pub(crate) fn reserve(&mut self, n: usize) {
        self.list.reserve(n);
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

    /// The id of entry `i` as text ("" when it has none). pi's 8 hex
    /// digits are written straight, not through the formatter (every id
    /// `pi-path --format ids` prints).
    pub fn id_string(&self, i: usize) -> String {
        match self.hex_id(i) {
            Some(n) => super::id::hex8(n),
            None => self.id(i).map(|id| id.to_string()).unwrap_or_default(),
        }
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
