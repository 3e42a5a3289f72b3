//! Context edits on the page: an entry a context edit replaces is shown
//! as the model sees it (the replacement), one it omits without its text,
//! so that a redaction (`pi-edit --redact`) stays redacted on the page.
//! `--include-hidden` shows the originals, marked.
//!
//! The page shows every branch, so the latest edit of an entry anywhere in
//! the file applies (pi applies the latest on the path): an edit on another
//! branch hides more, never less.

use crate::context::{self, Item};
use crate::entry::EntryType;
use crate::error::Result;
use crate::json::Object;
use crate::session::Session;
use std::borrow::Cow;
use std::collections::HashMap;

/// Target id -> the latest context_edit entry naming it.
pub(crate) struct Edits {
    by_target: HashMap<String, usize>,
    /// Show originals (`--include-hidden`).
    pub originals: bool,
    /// The tool calls of the messages above tool results, read once.
    pub calls: CallCache,
}

/// How an entry is shown.
pub(crate) enum Shown<'a> {
    /// As it stands in the file (`edit`: the edit that would change it,
    /// when originals are shown).
    Line(Cow<'a, [u8]>, Option<usize>),
    /// As the context edit `usize` replaced it: an entry of the new message.
    Replaced(Vec<u8>, usize),
    /// Omitted by the context edit `usize`: nothing of it is shown.
    Omitted(usize),
}

impl Edits {
    /// Read every context_edit of `s`.
    pub(crate) fn of(s: &Session, originals: bool) -> Result<Edits> {
        let mut by_target = HashMap::new();
        for i in 0..s.entries.len() {
            if s.entries[i].ty() == EntryType::ContextEdit {
                let line = s.line(i)?;
                if let Ok(Some(o)) = Object::parse_line(&line) {
                    if let Some(t) = o.str("targetId") {
                        by_target.insert(t.into_owned(), i);
                    }
                }
            }
        }
        Ok(Edits {
            by_target,
            originals,
            calls: Default::default(),
        })
    }

    /// Entry `i` as the page shows it.
    pub(crate) fn shown<'a>(&self, s: &'a Session, i: usize) -> Result<Shown<'a>> {
        let line = s.line(i)?;
        let edit = match (self.by_target.is_empty(), s.entries[i].ty()) {
            (false, EntryType::Message | EntryType::CustomMessage) => {
                let id = Object::parse_line(&line)
                    .ok()
                    .flatten()
                    .and_then(|o| o.str("id").map(|c| c.into_owned()));
                id.and_then(|id| self.by_target.get(&id).copied())
            }
            _ => None,
        };
        let Some(e) = edit else {
            return Ok(Shown::Line(line, None));
        };
        if self.originals {
            return Ok(Shown::Line(line, Some(e)));
        }
        let o = Object::parse_line(&line).ok().flatten();
        match (context::message_json(s, Item::Edited(i, e)), o) {
            (Ok(Some(m)), Some(o)) => {
                let mut v = b"{\"type\":\"message\"".to_vec();
                for k in ["id", "parentId", "timestamp"] {
                    if let Some(r) = o.raw(k) {
                        v.extend_from_slice(format!(",\"{k}\":").as_bytes());
                        v.extend_from_slice(r);
                    }
                }
                v.extend_from_slice(b",\"message\":");
                v.extend_from_slice(&m);
                v.push(b'}');
                Ok(Shown::Replaced(v, e))
            }
            _ => Ok(Shown::Omitted(e)),
        }
    }
}

/// One tool call of an assistant message.
pub(crate) struct Call {
    pub id: String,
    pub name: String,
    pub args: Option<Vec<u8>>,
}

/// What a message entry above a tool result is to find_call (tools.rs).
pub(crate) enum Above {
    /// Unreadable or omitted by a context edit: the search stops.
    Stop,
    /// Not an assistant message: the search goes on up.
    Skip,
    /// An assistant message: its calls end the search.
    Calls(Vec<Call>),
}

/// The last few entries find_call (tools.rs) read: a tool result's call is in
/// the message just above it, read again for the results that follow
/// and for the sidebar row, so each is read and parsed once, not per result.
#[derive(Default)]
pub(crate) struct CallCache {
    recent: std::cell::RefCell<std::collections::VecDeque<(usize, std::rc::Rc<Above>)>>,
}

/// How many entries [`CallCache`] keeps.
const CACHED: usize = 16;

impl CallCache {
    /// Entry `p` as above (tools.rs) reads it, from the cache or by `read`.
    pub(crate) fn of(&self, p: usize, read: impl FnOnce() -> Above) -> std::rc::Rc<Above> {
        if let Some((_, a)) = self.recent.borrow().iter().find(|(k, _)| *k == p) {
            return a.clone();
        }
        let a = std::rc::Rc::new(read());
        let mut r = self.recent.borrow_mut();
        if r.len() == CACHED {
            r.pop_front();
        }
        r.push_back((p, a.clone()));
        a
    }
}
