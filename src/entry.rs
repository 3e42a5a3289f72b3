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
/// takes 16 bytes and an `Option<Id>` or a [`Parent`] no more).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Id {
    Hex8(u32),
    #[allow(clippy::box_collection)]
    Other(Box<String>),
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

    pub fn is_empty(&self) -> bool {
        matches!(self, Id::Other(s) if s.is_empty())
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Hex8(n) => write!(f, "{n:08x}"),
            Id::Other(s) => f.write_str(s),
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
    /// No `parentId` key, or a false-like value other than null.
    Missing,
    /// A string: the parent's id (maybe naming no entry).
    Id(Id),
    /// Some other JSON value (names no entry).
    Other,
}

impl Parent {
    /// The id to follow when walking to the root (pi follows truthy ids only).
    pub fn id(&self) -> Option<&Id> {
        match self {
            Parent::Id(id) if !id.is_empty() => Some(id),
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
    /// A `session` line that is not the first: a second header (pi skips it).
    Session,
    /// A type this tool does not know (its name is kept beside the entries).
    Other,
    /// No string `type`.
    None,
}

impl EntryType {
    pub fn parse(s: &str) -> EntryType {
        match s {
            "message" => EntryType::Message,
            "thinking_level_change" => EntryType::ThinkingLevelChange,
            "model_change" => EntryType::ModelChange,
            "compaction" => EntryType::Compaction,
            "branch_summary" => EntryType::BranchSummary,
            "custom" => EntryType::Custom,
            "custom_message" => EntryType::CustomMessage,
            "label" => EntryType::Label,
            "session_info" => EntryType::SessionInfo,
            "session" => EntryType::Session,
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
                target: obj.str("targetId").map(|s| Id::new(&s)),
                label: obj
                    .str("label")
                    .filter(|l| !l.is_empty())
                    .map(|l| l.into_owned().into_boxed_str()),
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

/// What the index keeps of one entry line (64 bytes: every entry of a
/// large session is kept in memory; the fields of label and session_info
/// entries and the names of unknown types are kept beside the entries).
#[derive(Debug, Clone)]
pub struct Entry {
    /// 1-based line number in the input.
    pub line: u64,
    /// Byte offset of the line in the input, and its length (without `\n`;
    /// a longer line than `u32::MAX` bytes is refused when reading).
    pub offset: u64,
    pub len: u32,
    pub ty: EntryType,
    pub id: Option<Id>,
    pub parent: Parent,
    /// `new Date(timestamp).getTime()`: NaN when absent or unparsable.
    pub time: f64,
}

impl Entry {
    /// Read the fields of an entry from its parsed line.
    /// The `type`, when it is not one [`EntryType`] names, is left to the
    /// caller ([`unknown_type`]); label and session_info fields to
    /// [`Extra::from_object`].
    pub fn from_object(obj: &Object<'_>, line: u64, offset: u64, len: u32) -> Entry {
        let ty = match obj.str("type") {
            Some(t) => EntryType::parse(&t),
            None => EntryType::None,
        };
        let id = obj.str("id").map(|s| Id::new(&s));
        let parent = match obj.raw("parentId") {
            None => Parent::Missing,
            Some(b"null") => Parent::Null,
            Some(v) if v[0] == b'"' => Parent::Id(Id::new(&js::decode_string(v, 0..v.len()))),
            Some(v) if !js::truthy(v) => Parent::Missing,
            Some(_) => Parent::Other,
        };
        let time = obj
            .raw("timestamp")
            .map_or(f64::NAN, crate::time::js_date_ms);
        Entry {
            line,
            offset,
            len,
            ty,
            id,
            parent,
            time,
        }
    }

    /// The id as text ("" when the entry has none).
    pub fn id_string(&self) -> String {
        self.id.as_ref().map(Id::to_string).unwrap_or_default()
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
    fn ids_round_trip() {
        for s in ["0123abcd", "ffffffff", "ABCDEF01", "short", "", "0123abcde"] {
            assert_eq!(Id::new(s).to_string(), s);
        }
        assert!(matches!(Id::new("00000000"), Id::Hex8(0)));
    }

    #[test]
    fn reads_fields() {
        let line = br#"{"type":"label","id":"0000000a","parentId":"0000000b","timestamp":"2026-07-20T09:00:00.000Z","targetId":"x","label":""}"#;
        let obj = Object::parse_line(line).unwrap().unwrap();
        let e = Entry::from_object(&obj, 3, 0, line.len() as u32);
        assert_eq!(e.ty, EntryType::Label);
        assert_eq!(e.parent, Parent::Id(Id::new("0000000b")));
        assert_eq!(
            Extra::from_object(&obj, e.ty),
            Extra::Label(Box::new(LabelChange {
                target: Some(Id::new("x")),
                label: None
            }))
        );
        assert_eq!(e.time, 1784538000000.0);
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
        assert!(std::mem::size_of::<Entry>() <= 64);
    }
}
