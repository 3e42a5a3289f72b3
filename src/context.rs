//! What pi sends to the model: `buildSessionContext` (SPEC §6), as pi 1.6
//! builds it (`buildSessionProjection`): system checkpoints of compactions,
//! context edits, and `[]` / `""` for null or missing content.

use crate::entry::EntryType;
use crate::error::{Error, Result};
use crate::json::{js, Object, ObjectWriter};
use crate::path::path_to;
use crate::session::Session;

/// One contribution to the context: which entry it comes from, and how
/// (pi 1.6's `buildSessionProjection`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    /// The `systemMessage` checkpoint of the newest compaction on the path
    /// (pi 1.x), emitted before its summary.
    CompactionSystem(usize),
    /// The summary message of the newest compaction on the path.
    CompactionSummary(usize),
    /// The message an entry contributes (a `message`, `custom_message` or
    /// non-empty `branch_summary`); other entries contribute nothing.
    Entry(usize),
    /// An entry's message with the `context_edit` entry in force for it on
    /// this path replacing its content: (entry, edit).
    Edited(usize, usize),
    /// An entry a `context_edit` with a `null` replacement leaves out of
    /// what the model sees: (entry, edit). It has no message.
    Omitted(usize, usize),
    /// A `usage` entry among the context's entries (pi 1.x): never sent to
    /// the model, it has no message; transcripts show it.
    Usage(usize),
}

impl Item {
    /// The entry the item comes from.
    pub fn entry(self) -> usize {
        match self {
            Item::CompactionSystem(i)
            | Item::CompactionSummary(i)
            | Item::Entry(i)
            | Item::Edited(i, _)
            | Item::Omitted(i, _)
            | Item::Usage(i) => i,
        }
    }

    /// The `context_edit` entry that changed or omitted it, if any.
    pub fn edit(self) -> Option<usize> {
        match self {
            Item::Edited(_, e) | Item::Omitted(_, e) => Some(e),
            _ => None,
        }
    }
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

/// The `message` member of a `message` entry; pi 1.6 reads `message.role`
/// of every message entry on the path, and fails on one without a message.
fn message_of<'a>(session: &Session, obj: &Object<'a>, i: usize) -> Result<Option<Object<'a>>> {
    match obj.raw("message") {
        None | Some(b"null") => Err(Error::data(
            &session.name,
            Some(session.entries[i].line()),
            "a \"message\" entry without a message (pi 1.6 fails on it: TypeError)",
        )),
        Some(_) => Ok(obj.object("message")),
    }
}

/// pi's `buildSessionContext(entries, leaf)` (1.6: `buildSessionProjection`);
/// `None` is pi's explicit `null` leaf (no messages).
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

    // Settings (getSessionContextSettings): the last of each kind on the
    // path wins; every message entry's role is read.
    let mut thinking_level = Some(b"\"off\"".to_vec());
    let mut model = None;
    let mut system = vec![false; 0];
    for &i in &path {
        match ty(i) {
            EntryType::ThinkingLevelChange => {
                let line = session.line(i)?;
                let obj = session.object(&line, session.entries[i].line())?;
                thinking_level = canonical(session, &obj, "thinkingLevel", i)?;
            }
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
            }
            EntryType::Message => {
                let line = session.line(i)?;
                let obj = session.object(&line, session.entries[i].line())?;
                let Some(msg) = message_of(session, &obj, i)? else {
                    continue;
                };
                match msg.str("role").as_deref() {
                    Some("assistant") => {
                        let mut w = ObjectWriter::new();
                        w.raw(
                            "provider",
                            canonical(session, &msg, "provider", i)?.as_deref(),
                        );
                        w.raw("modelId", canonical(session, &msg, "model", i)?.as_deref());
                        model = Some(w.finish());
                    }
                    Some("system") => {
                        if system.is_empty() {
                            system = vec![false; session.entries.len()];
                        }
                        system[i] = true;
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    let is_system = |i: usize| system.get(i).copied().unwrap_or(false);

    // buildContextEntries: the newest compaction, the kept entries before
    // it (system messages dropped) and everything after it.
    let compaction = path
        .iter()
        .rev()
        .copied()
        .find(|&i| ty(i) == EntryType::Compaction);
    let entries: Vec<usize> = match compaction {
        None => path.clone(),
        Some(c) => {
            let cpos = path
                .iter()
                .position(|&i| session.entries.same_id(i, c))
                .unwrap_or(0);
            let first_kept = {
                let line = session.line(c)?;
                let obj = session.object(&line, session.entries[c].line())?;
                obj.str("firstKeptEntryId").map(|s| s.into_owned())
            };
            let mut out = vec![c];
            let mut found = false;
            for &i in &path[..cpos] {
                if let (Some(fk), Some(id)) = (&first_kept, session.entries.id(i)) {
                    if id.to_string() == *fk {
                        found = true;
                    }
                }
                if found && !is_system(i) {
                    out.push(i);
                }
            }
            out.extend_from_slice(&path[cpos + 1..]);
            out
        }
    };

    // The latest context_edit among those entries, by target id.
    let mut edits: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for &i in &entries {
        if ty(i) == EntryType::ContextEdit {
            let line = session.line(i)?;
            let obj = session.object(&line, session.entries[i].line())?;
            if let Some(t) = obj.str("targetId") {
                edits.insert(t.into_owned(), i);
            }
        }
    }

    let mut items = Vec::new();
    for (k, &i) in entries.iter().enumerate() {
        let contributes = match ty(i) {
            // An older compaction inside the kept range contributes nothing.
            EntryType::Compaction => k == 0,
            EntryType::Message | EntryType::CustomMessage => true,
            EntryType::Usage => {
                items.push(Item::Usage(i));
                false
            }
            EntryType::BranchSummary => {
                let line = session.line(i)?;
                let obj = session.object(&line, session.entries[i].line())?;
                obj.raw("summary").is_some_and(js::truthy)
            }
            _ => false,
        };
        if !contributes {
            continue;
        }
        let edit = if edits.is_empty() {
            None
        } else {
            session
                .entries
                .id(i)
                .and_then(|id| edits.get(&id.to_string()).copied())
        };
        if let Some(e) = edit {
            let line = session.line(e)?;
            let obj = session.object(&line, session.entries[e].line())?;
            if obj.raw("replacement") == Some(b"null") {
                items.push(Item::Omitted(i, e));
                continue;
            }
        }
        if ty(i) == EntryType::Compaction {
            let line = session.line(i)?;
            let obj = session.object(&line, session.entries[i].line())?;
            if obj.raw("systemMessage").is_some_and(js::truthy) {
                items.push(Item::CompactionSystem(i));
            }
            items.push(Item::CompactionSummary(i));
            continue;
        }
        items.push(match edit {
            Some(e) => Item::Edited(i, e),
            None => Item::Entry(i),
        });
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
/// when the item has no message (an entry a context edit omits).
pub fn message_json(session: &Session, item: Item) -> Result<Option<Vec<u8>>> {
    let i = item.entry();
    let e = &session.entries[i];
    let line = session.line(i)?;
    let obj = session.object(&line, e.line())?;
    let c = |key: &str| canonical(session, &obj, key, i);
    let mut w = ObjectWriter::new();
    let (role, message) = match (item, &e.ty()) {
        (Item::Omitted(..) | Item::Usage(_), _) => return Ok(None),
        (Item::CompactionSystem(_), _) => return c("systemMessage"),
        (Item::CompactionSummary(_), _) => {
            w.str("role", "compactionSummary");
            w.raw("summary", c("summary")?.as_deref());
            w.raw("tokensBefore", c("tokensBefore")?.as_deref());
            w.number("timestamp", e.time());
            return Ok(Some(w.finish()));
        }
        (_, EntryType::Message) => {
            let Some(msg) = c("message")? else {
                // build() refuses such a path; a caller that made the item
                // itself gets the same error.
                message_of(session, &obj, i)?;
                return Ok(None);
            };
            let role = message_of(session, &obj, i)?
                .and_then(|m| m.str("role").map(|r| r.into_owned()))
                .unwrap_or_default();
            // sessionEntryToContextMessages: null or missing content.
            let content_null = || {
                obj.object("message")
                    .is_some_and(|m| matches!(m.raw("content"), None | Some(b"null")))
            };
            let msg = match role.as_str() {
                "system" if content_null() => js::with_member(&msg, "content", Some(b"\"\"")),
                "user" | "assistant" | "toolResult" if content_null() => {
                    js::with_member(&msg, "content", Some(b"[]"))
                }
                _ => msg,
            };
            (role, msg)
        }
        (_, EntryType::CustomMessage) => {
            w.str("role", "custom");
            w.raw("customType", c("customType")?.as_deref());
            let content = match c("content")? {
                None => Some(b"[]".to_vec()),
                Some(v) if v == b"null" => Some(b"[]".to_vec()),
                Some(v) => Some(v),
            };
            w.raw("content", content.as_deref());
            w.raw("display", c("display")?.as_deref());
            w.raw("details", c("details")?.as_deref());
            w.number("timestamp", e.time());
            ("custom".to_string(), w.finish())
        }
        (_, EntryType::BranchSummary) => {
            if !obj.raw("summary").is_some_and(js::truthy) {
                return Ok(None);
            }
            w.str("role", "branchSummary");
            w.raw("summary", c("summary")?.as_deref());
            w.raw("fromId", c("fromId")?.as_deref());
            w.number("timestamp", e.time());
            ("branchSummary".to_string(), w.finish())
        }
        _ => return Ok(None),
    };
    let Item::Edited(_, edit) = item else {
        return Ok(Some(message));
    };
    if !matches!(
        role.as_str(),
        "user" | "assistant" | "toolResult" | "custom"
    ) {
        return Ok(Some(message));
    }
    Ok(Some(js::with_member(
        &message,
        "content",
        replacement_content(session, edit, &role)?.as_deref(),
    )))
}

/// What `projectContextEntry` puts in `content` for a message of `role`
/// under the context edit `edit`: None is JavaScript's `undefined` (the
/// key is then left out).
fn replacement_content(session: &Session, edit: usize, role: &str) -> Result<Option<Vec<u8>>> {
    let line = session.line(edit)?;
    let obj = session.object(&line, session.entries[edit].line())?;
    let fail = |what: &str| {
        Error::data(
            &session.name,
            Some(session.entries[edit].line()),
            format!("a context_edit {what} (pi 1.6 fails on it: TypeError)"),
        )
    };
    let Some(repl) = obj.raw("replacement") else {
        return Err(fail("without a \"replacement\""));
    };
    // `replacement.content` of a string, number, boolean or array is undefined.
    let Some(r) = obj.object("replacement") else {
        return Ok(None);
    };
    debug_assert!(repl.first() == Some(&b'{'));
    let content = canonical(session, &r, "content", edit)?;
    Ok(match content {
        Some(text) if text.first() == Some(&b'"') && matches!(role, "assistant" | "toolResult") => {
            let mut out = b"[{\"type\":\"text\",\"text\":".to_vec();
            out.extend_from_slice(&text);
            out.extend_from_slice(b"}]");
            Some(out)
        }
        other => other,
    })
}

/// The role of a `message` entry's message, if it has a string one.
pub fn message_role(session: &Session, i: usize) -> Result<Option<String>> {
    let line = session.line(i)?;
    let obj = session.object(&line, session.entries[i].line())?;
    Ok(obj
        .object("message")
        .and_then(|m| m.str("role").map(|r| r.into_owned())))
}
