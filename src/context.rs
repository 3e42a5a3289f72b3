//! What pi sends to the model: `buildSessionContext` (SPEC §6).

use crate::entry::EntryType;
use crate::error::{Error, Result};
use crate::json::{js, Object, ObjectWriter};
use crate::path::path_to;
use crate::session::Session;

/// One message of the context: which entry it comes from, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    /// The summary message of a compaction entry.
    CompactionSummary(usize),
    /// The message an entry contributes (a `message`, `custom_message` or
    /// non-empty `branch_summary`); other entries contribute nothing.
    Entry(usize),
}

/// The context at a leaf, with messages still in the file: render each
/// with [`message_json`].
#[derive(Debug, Clone)]
pub struct Context {
    pub items: Vec<Item>,
    /// JSON of the thinking level; None when pi's value is `undefined`.
    pub thinking_level: Option<Vec<u8>>,
    /// JSON of the model object; None for `null`.
    pub model: Option<Vec<u8>>,
}

/// pi's `buildSessionContext(entries, leaf)`; `None` is pi's explicit
/// `null` leaf (no messages).
pub fn build(session: &Session, leaf: Option<usize>) -> Result<Context> {
    let empty = Context {
        items: Vec::new(),
        thinking_level: Some(b"\"off\"".to_vec()),
        model: None,
    };
    let Some(leaf) = leaf else {
        return Ok(empty);
    };
    let path = path_to(session, leaf)?;
    let ty = |i: usize| session.entries[i].ty();

    // Settings: the last of each kind on the path wins.
    let mut thinking_level = Some(b"\"off\"".to_vec());
    if let Some(&i) = path
        .iter()
        .rev()
        .find(|&&i| ty(i) == EntryType::ThinkingLevelChange)
    {
        let line = session.line(i)?;
        let obj = session.object(&line, session.entries[i].line())?;
        thinking_level = canonical(session, &obj, "thinkingLevel", i)?;
    }
    let mut model = None;
    for &i in path.iter().rev() {
        match ty(i) {
            EntryType::ModelChange => {
                let line = session.line(i)?;
                let obj = session.object(&line, session.entries[i].line())?;
                let mut w = ObjectWriter::new();
                w.raw(
                    "provider",
                    canonical(session, &obj, "provider", i)?.as_deref(),
                );
                w.raw(
                    "modelId",
                    canonical(session, &obj, "modelId", i)?.as_deref(),
                );
                model = Some(w.finish());
                break;
            }
            EntryType::Message => {
                let line = session.line(i)?;
                let obj = session.object(&line, session.entries[i].line())?;
                let Some(msg) = obj.object("message") else {
                    continue;
                };
                if msg.str("role").as_deref() != Some("assistant") {
                    continue;
                }
                let mut w = ObjectWriter::new();
                w.raw(
                    "provider",
                    canonical(session, &msg, "provider", i)?.as_deref(),
                );
                w.raw("modelId", canonical(session, &msg, "model", i)?.as_deref());
                model = Some(w.finish());
                break;
            }
            _ => {}
        }
    }

    let compaction = path
        .iter()
        .rev()
        .copied()
        .find(|&i| ty(i) == EntryType::Compaction);
    let mut items = Vec::new();
    let push = |items: &mut Vec<Item>, i: usize| {
        if matches!(
            ty(i),
            EntryType::Message | EntryType::CustomMessage | EntryType::BranchSummary
        ) {
            items.push(Item::Entry(i));
        }
    };
    match compaction {
        None => {
            for &i in &path {
                push(&mut items, i);
            }
        }
        Some(c) => {
            items.push(Item::CompactionSummary(c));
            let cpos = path
                .iter()
                .position(|&i| ty(i) == EntryType::Compaction && session.entries.same_id(i, c))
                .unwrap_or(0);
            let first_kept = {
                let line = session.line(c)?;
                let obj = session.object(&line, session.entries[c].line())?;
                obj.str("firstKeptEntryId").map(|s| s.into_owned())
            };
            let mut found = false;
            for &i in &path[..cpos] {
                if let (Some(fk), Some(id)) = (&first_kept, session.entries.id(i)) {
                    if id.to_string() == *fk {
                        found = true;
                    }
                }
                if found {
                    push(&mut items, i);
                }
            }
            for &i in &path[cpos + 1..] {
                push(&mut items, i);
            }
        }
    }
    Ok(Context {
        items,
        thinking_level,
        model,
    })
}

fn canonical(session: &Session, obj: &Object<'_>, key: &str, i: usize) -> Result<Option<Vec<u8>>> {
    obj.canonical(key).map_err(|e| {
        Error::data(
            &session.name,
            Some(session.entries[i].line()),
            format!("\"{key}\": {e}"),
        )
    })
}

/// The JSON of one context message as `JSON.stringify` writes it; None
/// when the entry contributes no message (an empty branch summary).
pub fn message_json(session: &Session, item: Item) -> Result<Option<Vec<u8>>> {
    let i = match item {
        Item::CompactionSummary(i) | Item::Entry(i) => i,
    };
    let e = &session.entries[i];
    let line = session.line(i)?;
    let obj = session.object(&line, e.line())?;
    let c = |key: &str| canonical(session, &obj, key, i);
    let mut w = ObjectWriter::new();
    match (item, &e.ty()) {
        (Item::CompactionSummary(_), _) => {
            w.str("role", "compactionSummary");
            w.raw("summary", c("summary")?.as_deref());
            w.raw("tokensBefore", c("tokensBefore")?.as_deref());
            w.number("timestamp", e.time());
        }
        (_, EntryType::Message) => {
            return Ok(Some(c("message")?.unwrap_or_else(|| b"null".to_vec())));
        }
        (_, EntryType::CustomMessage) => {
            w.str("role", "custom");
            w.raw("customType", c("customType")?.as_deref());
            w.raw("content", c("content")?.as_deref());
            w.raw("display", c("display")?.as_deref());
            w.raw("details", c("details")?.as_deref());
            w.number("timestamp", e.time());
        }
        (_, EntryType::BranchSummary) => {
            if !obj.raw("summary").is_some_and(js::truthy) {
                return Ok(None);
            }
            w.str("role", "branchSummary");
            w.raw("summary", c("summary")?.as_deref());
            w.raw("fromId", c("fromId")?.as_deref());
            w.number("timestamp", e.time());
        }
        _ => return Ok(None),
    }
    Ok(Some(w.finish()))
}

/// The role of a `message` entry's message, if it has a string one.
pub fn message_role(session: &Session, i: usize) -> Result<Option<String>> {
    let line = session.line(i)?;
    let obj = session.object(&line, session.entries[i].line())?;
    Ok(obj
        .object("message")
        .and_then(|m| m.str("role").map(|r| r.into_owned())))
}
