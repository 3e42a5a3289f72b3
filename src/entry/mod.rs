//! One line of a session: what the index keeps of it.
//!
//! Only the fields every command needs are decoded (type, id, parentId,
//! timestamp, and the label and name of label and session_info entries);
//! everything else stays in the file and is read again when a command must
//! look inside (see [`crate::session::Session::line`]). This module holds
//! the entry types and the fields only some types have; `id` holds
//! [`Id`] and [`Parent`] (ids keyed as JavaScript's `Map` keys them), and
//! `entries` the compact form every entry is kept in ([`Entry`]) and the
//! parsing of a line into one ([`Entries::push_object`]).

mod entries;
pub(crate) mod glance;
mod id;
pub(crate) mod talk;
#[cfg(test)]
mod tests;

pub use entries::{Entries, Entry, TOO_FAR, TOO_MANY_IDS, TOO_MANY_LINES};
pub use id::{Id, Parent};

use crate::json::Object;

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
                    .map(|l| crate::json::js::string::string_value(l).into_boxed_str()),
            })),
            EntryType::SessionInfo => Extra::SessionInfo(Box::new(obj.str("name").map(|n| {
                crate::json::js::string::trim(&n)
                    .to_string()
                    .into_boxed_str()
            }))),
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
