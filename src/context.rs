//! What pi sends to the model: `buildSessionContext` (SPEC §6), as pi 1.6
//! builds it (`buildSessionProjection`): system checkpoints of compactions,
//! context edits, and `[]` / `""` for null or missing content.

use crate::entry::glance::{MSG_NONE, ROLE_ASSISTANT, ROLE_TOOL_RESULT, ROLE_USER};
use crate::entry::{EntryType, Id};
use crate::error::{Error, Result};
use crate::json::{js, Object, ObjectWriter};
use crate::path::path_to;
use crate::session::Session;
use std::collections::HashMap;

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
        None | Some(b"null") => Err(no_message(session, i)),
        Some(_) => Ok(obj.object("message")),
    }
}

/// What pi 1.6 does with the `message` entry `i` that has no message.
fn no_message(session: &Session, i: usize) -> Error {
    Error::data(
        &session.name,
        Some(session.entries[i].line()),
        "a \"message\" entry without a message (pi 1.6 fails on it: TypeError)",
    )
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
    let settings = settings(session, &path)?;
    let entries = context_entries(session, &path, &settings.system)?;
    let edits = latest_edits(session, &entries)?;
    Ok(Context {
        items: items(session, &entries, &edits)?,
        thinking_level: settings.thinking_level,
        model: settings.model,
    })
}

/// What the walk along the path settles besides the messages.
struct Settings {
    thinking_level: Option<Vec<u8>>,
    model: Option<Vec<u8>>,
    /// Which entries are system messages (empty when none is).
    system: Vec<bool>,
}

/// Settings (getSessionContextSettings): the last of each kind on the
/// path wins; every message entry's role is read.
#[inline]
fn settings(session: &Session, path: &[usize]) -> Result<Settings> {
    let ty = |i: usize| session.entries[i].ty();
    let mut thinking_level = Some(b"\"off\"".to_vec());
    let mut model = None;
    // The assistant message that set the model last, when the load found
    // its role (its provider and model cannot fail to be written): written
    // once, after the walk, if no later entry sets it.
    let mut model_from = None;
    let mut system = vec![false; 0];
    // The load's roles tell each message's role without reading its line
    // again (a current file only: migration may change a role).
    let roles = (session.roles.len() == session.entries.len()
        && session.header.version >= crate::migrate::CURRENT_VERSION)
        .then_some(&session.roles[..]);
    for &i in path {
        if let (Some(r), EntryType::Message) = (roles, ty(i)) {
            match glanced_role(r[i]) {
                Glanced::NoMessage => return Err(no_message(session, i)),
                Glanced::Nothing => continue,
                Glanced::Assistant => {
                    model_from = Some(i);
                    continue;
                }
                Glanced::Read => {}
            }
        }
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
                model_from = None;
            }
            EntryType::Message => {
                let line = session.line(i)?;
                let obj = session.object(&line, session.entries[i].line())?;
                let Some(msg) = message_of(session, &obj, i)? else {
                    continue;
                };
                match msg.str("role").as_deref() {
                    Some("assistant") => {
                        model = Some(assistant_model(session, &msg, i)?);
                        model_from = None;
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
    if let Some(i) = model_from {
        let line = session.line(i)?;
        let obj = session.object(&line, session.entries[i].line())?;
        if let Some(msg) = message_of(session, &obj, i)? {
            model = Some(assistant_model(session, &msg, i)?);
        }
    }
    Ok(Settings {
        thinking_level,
        model,
        system,
    })
}

/// buildContextEntries: the newest compaction, the kept entries before it
/// (system messages dropped) and everything after it.
#[inline]
fn context_entries(session: &Session, path: &[usize], system: &[bool]) -> Result<Vec<usize>> {
    let ty = |i: usize| session.entries[i].ty();
    let is_system = |i: usize| system.get(i).copied().unwrap_or(false);
    let compaction = path
        .iter()
        .rev()
        .copied()
        .find(|&i| ty(i) == EntryType::Compaction);
    Ok(match compaction {
        None => path.to_vec(),
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
            let before = &path[..cpos];
            let kept = first_kept
                .as_deref()
                .and_then(|fk| first_kept_at(session, before, fk))
                .unwrap_or(before.len());
            let mut out = vec![c];
            out.extend(before[kept..].iter().filter(|&&i| !is_system(i)));
            out.extend_from_slice(&path[cpos + 1..]);
            out
        }
    })
}

/// The latest context_edit among `entries`, by target id: pi's edits in
/// force over the context's entries, and a whole-branch transcript's
/// over the path (`transcript::branch`, `pi-edit --redact`).
#[inline]
pub(crate) fn latest_edits(session: &Session, entries: &[usize]) -> Result<HashMap<String, usize>> {
    let mut edits = HashMap::new();
    for &i in entries {
        if session.entries[i].ty() == EntryType::ContextEdit {
            let line = session.line(i)?;
            let obj = session.object(&line, session.entries[i].line())?;
            if let Some(t) = obj.str("targetId") {
                edits.insert(t.into_owned(), i);
            }
        }
    }
    Ok(edits)
}

/// What each of `entries` gives the context, `edits` applied.
#[inline]
fn items(
    session: &Session,
    entries: &[usize],
    edits: &HashMap<String, usize>,
) -> Result<Vec<Item>> {
    let ty = |i: usize| session.entries[i].ty();
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
    Ok(items)
}

/// Where on `path` the first entry whose id, as pi writes it into text
/// (`${id}`), is `first_kept` stands. pi's 8 hex digits are compared as
/// numbers: no string an entry.
fn first_kept_at(session: &Session, path: &[usize], first_kept: &str) -> Option<usize> {
    let hex = match Id::new(first_kept) {
        Id::Hex8(n) => Some(n),
        _ => None,
    };
    path.iter().position(|&i| match session.entries.hex_id(i) {
        Some(n) => hex == Some(n),
        None => session
            .entries
            .id(i)
            .is_some_and(|id| id.to_string() == first_kept),
    })
}

/// What the settings walk of [`build`] does with a message entry, by the
/// role the load found ([`crate::entry::glance::role`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Glanced {
    /// No message, or a null one: pi fails on it.
    NoMessage,
    /// A user or toolResult message: it sets nothing.
    Nothing,
    /// An assistant message (in a line the quick check took, so nested
    /// less than [`js::MAX_DEPTH`]): it sets the model, and writing its
    /// provider and model cannot fail.
    Assistant,
    /// Anything else (a system message, another role, a message that is
    /// not an object, a role the load could not tell): the line is read
    /// again.
    Read,
}

fn glanced_role(role: u8) -> Glanced {
    match role {
        MSG_NONE => Glanced::NoMessage,
        ROLE_USER | ROLE_TOOL_RESULT => Glanced::Nothing,
        ROLE_ASSISTANT => Glanced::Assistant,
        _ => Glanced::Read,
    }
}

/// The model an assistant message `msg` (of entry `i`) sets:
/// `{provider, modelId}`.
fn assistant_model(session: &Session, msg: &Object<'_>, i: usize) -> Result<Vec<u8>> {
    let mut w = ObjectWriter::new();
    w.raw(
        "provider",
        canonical(session, msg, "provider", i)?.as_deref(),
    );
    w.raw("modelId", canonical(session, msg, "model", i)?.as_deref());
    Ok(w.finish())
}

fn canonical(session: &Session, obj: &Object<'_>, key: &str, i: usize) -> Result<Option<Vec<u8>>> {
    // A line the load proved to be `JSON.stringify`'s text (as it stands
    // in a current file): each of its values is too, copied as it is.
    if session.entries[i].is_canonical()
        && session.header.version >= crate::migrate::CURRENT_VERSION
    {
        return Ok(obj.raw(key).map(<[u8]>::to_vec));
    }
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
    // A message entry's line and its message, in one check of the line.
    let (obj, msg_obj) = match e.ty() {
        EntryType::Message => match Object::parse_line_and(&line, "message") {
            Ok(Some((obj, m))) => (obj, Some(m)),
            _ => (session.object(&line, e.line())?, None),
        },
        _ => (session.object(&line, e.line())?, None),
    };
    let message = || match &msg_obj {
        Some(m) => match obj.raw("message") {
            None | Some(b"null") => Err(no_message(session, i)),
            Some(_) => Ok(m.clone()),
        },
        None => message_of(session, &obj, i),
    };
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
                message()?;
                return Ok(None);
            };
            // The message's members, found once (each look is a pass over
            // the message's text).
            let m = message()?;
            let role = m
                .as_ref()
                .and_then(|m| m.str("role").map(|r| r.into_owned()))
                .unwrap_or_default();
            // sessionEntryToContextMessages: null or missing content.
            let content_null = || {
                m.as_ref()
                    .is_some_and(|m| matches!(m.raw("content"), None | Some(b"null")))
            };
            let msg = match role.as_str() {
                "system" if content_null() => {
                    js::stringify::with_member(&msg, "content", Some(b"\"\""))
                }
                "user" | "assistant" | "toolResult" if content_null() => {
                    js::stringify::with_member(&msg, "content", Some(b"[]"))
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
    Ok(Some(js::stringify::with_member(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::ReadOptions;

    /// A random session for the context's walk: every entry type it looks
    /// at, messages of every role (and none, null, not an object), lines
    /// in JSON.stringify's form or not (spaces, escapes, a key twice),
    /// provider values nested too deep to write, ids of pi's 8 hex digits
    /// and others, compactions that keep from any of them.
    fn random_session(next: &mut impl FnMut() -> u64) -> String {
        let mut pick = |n: u64| (next() % n) as usize;
        let mut lines =
            vec![r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#.to_string()];
        let mut ids: Vec<String> = Vec::new();
        let n = 1 + pick(40);
        for k in 0..n {
            let id = match pick(8) {
                0 => format!("\"x{k}\""),
                1 => format!("{k}"),
                _ => format!("\"{:08x}\"", 0x1000 + k),
            };
            let parent = match (ids.last(), pick(10)) {
                (None, _) | (_, 0) => "null".to_string(),
                (Some(_), 1) => ids[pick(ids.len() as u64)].clone(),
                (Some(p), _) => p.clone(),
            };
            let head = format!(
                r#""type":"{{}}","id":{id},"parentId":{parent},"timestamp":"2026-01-01T00:00:{:02}.000Z""#,
                k % 60
            );
            let provider = match pick(6) {
                0 => format!("{}1{}", "[".repeat(2100), "]".repeat(2100)),
                1 => "\"p\\u0041\"".to_string(),
                2 => "1.50".to_string(),
                _ => format!("\"p{}\"", pick(3)),
            };
            let role = [
                "user",
                "assistant",
                "toolResult",
                "system",
                "bashExecution",
                "custom",
                "hookMessage",
                "as\\u0073istant",
                "other",
            ][pick(9)];
            let message = match pick(12) {
                0 => None,
                1 => Some("null".to_string()),
                2 => Some("\"text\"".to_string()),
                3 => Some(format!(
                    r#"{{"role":"user","content":"x","role":"{role}","provider":{provider}}}"#
                )),
                4 if k % 2 == 0 => Some(format!(
                    r#"{{"role":"user","r\u006fle":"{role}","provider":{provider}}}"#
                )),
                4 => Some(format!(
                    r#"{{"content":[],"role":"{role}","provider":{provider},"model":"m"}}"#
                )),
                5 => Some(format!(
                    r#"{{ "role" : "{role}", "provider":{provider}, "model":"m{k}" }}"#
                )),
                _ => Some(format!(
                    r#"{{"role":"{role}","content":[{{"type":"text","text":"t{k}"}}],"provider":{provider},"model":"m{k}","timestamp":{k}}}"#
                )),
            };
            let (ty, rest) = match pick(10) {
                0 => (
                    "model_change",
                    format!(r#""provider":{provider},"modelId":"mc{k}""#),
                ),
                1 => (
                    "thinking_level_change",
                    format!(r#""thinkingLevel":"t{k}""#),
                ),
                2 if !ids.is_empty() => {
                    let kept = ids[pick(ids.len() as u64)].trim_matches('"').to_string();
                    (
                        "compaction",
                        format!(r#""summary":"s","firstKeptEntryId":"{kept}","tokensBefore":1"#),
                    )
                }
                3 => (
                    "branch_summary",
                    r#""fromId":"root","summary":"b""#.to_string(),
                ),
                4 => (
                    "custom_message",
                    r#""customType":"c","content":"x","display":true"#.to_string(),
                ),
                _ => (
                    "message",
                    message.map_or(String::new(), |m| format!(r#""message":{m}"#)),
                ),
            };
            let sep = if rest.is_empty() { "" } else { "," };
            lines.push(format!("{{{}{sep}{rest}}}", head.replace("{}", ty)));
            ids.push(id);
        }
        lines.join("\n") + "\n"
    }

    fn context_of(s: &Session, leaf: Option<usize>) -> String {
        match build(s, leaf) {
            Ok(c) => format!(
                "{:?} {:?} {:?}",
                c.items,
                c.thinking_level
                    .map(|t| String::from_utf8_lossy(&t).into_owned()),
                c.model.map(|m| String::from_utf8_lossy(&m).into_owned())
            ),
            Err(e) => format!("error {e}"),
        }
    }

    /// The walk by the load's roles (and the model written once, from the
    /// last assistant) finds what the walk that reads every message finds:
    /// items, thinking level, model, or the same error.
    #[test]
    fn roles_from_the_load_give_the_same_context() {
        let mut next = crate::test_rng::xorshift(0x5851_f42d_4c95_7f2du64);
        let (mut fast, mut errors) = (0, 0);
        for _ in 0..1500 {
            let text = random_session(&mut next);
            let read = |opts| Session::from_bytes("t.jsonl", text.clone().into_bytes(), opts);
            let plain = read(ReadOptions::default()).unwrap();
            let quick = read(ReadOptions {
                roles: true,
                ..Default::default()
            })
            .unwrap();
            assert_eq!(quick.roles.len(), quick.entries.len());
            fast += quick.roles.iter().filter(|&&r| r == ROLE_ASSISTANT).count();
            for leaf in [plain.index.leaf, Some(0), plain.index.leaf.map(|l| l / 2)] {
                let want = context_of(&plain, leaf);
                errors += usize::from(want.starts_with("error"));
                assert_eq!(context_of(&quick, leaf), want, "{text}");
            }
        }
        // The cases the test is for did come up.
        assert!(fast > 300 && errors > 100, "{fast} {errors}");
    }

    /// The first kept entry is the first whose `${id}` is the one named,
    /// whatever kind of id it has.
    #[test]
    fn the_first_kept_entry_by_its_id_as_text() {
        let mut next = crate::test_rng::xorshift(0x9e37_79b9_7f4a_7c15u64);
        let mut found = 0;
        for _ in 0..300 {
            let text = random_session(&mut next);
            let s =
                Session::from_bytes("t.jsonl", text.into_bytes(), ReadOptions::default()).unwrap();
            let path: Vec<usize> = (0..s.entries.len()).collect();
            let names = [
                "00001003", "x2", "3", "00001000", "0000100a", "0000100A", "", "x",
            ];
            for name in names.iter().map(|n| n.to_string()).chain(
                (0..s.entries.len()).filter_map(|i| s.entries.id(i).map(|id| id.to_string())),
            ) {
                let want = path
                    .iter()
                    .position(|&i| s.entries.id(i).is_some_and(|id| id.to_string() == name));
                found += usize::from(want.is_some());
                assert_eq!(first_kept_at(&s, &path, &name), want, "{name}");
            }
        }
        assert!(found > 1000, "{found}");
    }

    /// What the quick check says it saw of a line is what a walk over all
    /// its values finds: its `\u` escapes, its keys written `"role"`.
    #[test]
    fn the_quick_checks_line_facts() {
        use crate::json::scan;
        fn role_keys(t: &[u8], r: std::ops::Range<usize>) -> u32 {
            match t[r.start] {
                b'{' => crate::json::members(t, r)
                    .unwrap()
                    .into_iter()
                    .map(|m| u32::from(&t[m.key] == b"\"role\"") + role_keys(t, m.value))
                    .sum(),
                b'[' => scan::elements(t, r)
                    .unwrap()
                    .into_iter()
                    .map(|e| role_keys(t, e))
                    .sum(),
                _ => 0,
            }
        }
        let mut next = crate::test_rng::xorshift(0x853c_49e6_748f_ea9bu64);
        let (mut roles, mut escapes) = (0, 0);
        for _ in 0..300 {
            let text = random_session(&mut next);
            for line in text.lines() {
                let t = line.as_bytes();
                let mut c = js::check::Checker::new();
                if c.object_counting_roles(t, false).is_none() {
                    continue;
                }
                let facts = c.line_facts();
                // the other calls leave the roles uncounted, and say so
                let mut plain = js::check::Checker::new();
                assert!(plain.valid_object(t).is_some());
                assert_eq!(plain.line_facts().role_keys, u32::MAX);
                let unicode = t.windows(2).enumerate().any(|(k, w)| {
                    w == b"\\u" && t[..k].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 0
                });
                assert_eq!(facts.unicode_escape, unicode, "{line}");
                assert_eq!(facts.role_keys, role_keys(t, 0..t.len()), "{line}");
                roles += usize::from(facts.role_keys > 1);
                escapes += usize::from(unicode);
            }
        }
        assert!(roles > 100 && escapes > 100, "{roles} {escapes}");
    }

    /// A role the load gives is the role of the message, as the line read
    /// in full says.
    #[test]
    fn the_loads_role_is_the_messages() {
        use crate::entry::glance::{info_of, role, MSG_ROLE, ROLE_UNKNOWN};
        let mut next = crate::test_rng::xorshift(0x2545_f491_4f6c_dd1du64);
        for _ in 0..300 {
            let text = random_session(&mut next);
            for line in text.lines().skip(1) {
                let obj = Object::parse_line(line.as_bytes()).unwrap().unwrap();
                let mut c = js::check::Checker::new();
                let took = c.object_counting_roles(line.as_bytes(), false).is_some();
                let quick = took.then(|| c.line_facts());
                let want = match obj.raw("message") {
                    None | Some(b"null") => MSG_NONE,
                    Some(_) => info_of(obj.object("message").as_ref()) & MSG_ROLE,
                };
                match role(&obj, quick) {
                    ROLE_UNKNOWN => {}
                    r => assert_eq!(r, want, "{line}"),
                }
            }
        }
    }
}
