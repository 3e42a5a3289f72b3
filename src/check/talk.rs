//! The third layer: the conversation pi 1.6.0 would send at the leaf
//! (`buildSessionContext`, then pi-ai's `transformMessages`, which pairs
//! tool calls with results): what it repairs on its own (a call without a
//! result gets a synthetic one) and what the provider then rejects.

use super::*;
use crate::context::{self, Item};
use crate::entry::EntryType;
use serde_json::Value;
use std::collections::HashSet;

pub(super) fn check(s: &Session, f: &mut Vec<Finding>) {
    let Some(leaf) = s.index.leaf else { return };
    if s.leaf_id_null {
        return;
    }
    // A cycle on the leaf's path was found by the tree layer.
    let Ok(path) = crate::path::path_to(s, leaf) else {
        return;
    };
    if missing_messages(s, &path, f) {
        return;
    }
    let ctx = match context::build(s, Some(leaf)) {
        Ok(c) => c,
        Err(e) => {
            let line = e.diag.at.as_ref().and_then(|l| l.line);
            f.push(Finding::new(
                UNREADABLE,
                line,
                format!(
                    "pi cannot build the context at the leaf: {}",
                    e.diag.message
                ),
            ));
            return;
        }
    };
    let mut pairing = Pairing::default();
    for &item in &ctx.items {
        if matches!(item, Item::CompactionSystem(_) | Item::CompactionSummary(_)) {
            // a user-side message to transformMessages
            pairing.user(s, f);
            continue;
        }
        let Ok(Some(json)) = context::message_json(s, item) else {
            continue;
        };
        let Some(msg) = slim(&json).or_else(|| serde_json::from_slice::<Value>(&json).ok()) else {
            continue;
        };
        let at = Some(s.entries[item.entry()].line());
        let id = s.entries.id_string(item.entry());
        images(&msg, &json, at, &id, f);
        match msg.get("role").and_then(Value::as_str) {
            Some("assistant") => {
                arguments(&msg, &json, at, &id, f);
                pairing.assistant(s, &msg, item.entry(), f);
            }
            Some("toolResult") => pairing.result(s, &msg, item.entry(), f),
            Some("system") => {}
            Some("bashExecution")
                if msg
                    .get("excludeFromContext")
                    .is_some_and(|v| v == &Value::Bool(true)) => {}
            _ => pairing.user(s, f),
        }
    }
    pairing.user(s, f);
}

/// The members pairing needs of a message that holds no tool call and no
/// image (nor a `\u` escape that could spell one), read without building
/// the whole value (most messages: text); None for any other.
fn slim(json: &[u8]) -> Option<Value> {
    let has = |what: &[u8]| memchr::memmem::find(json, what).is_some();
    if has(b"toolCall") || has(b"image") || has(b"\\u") {
        return None;
    }
    let obj = crate::json::Object::parse_line(json).ok()??;
    let mut m = serde_json::Map::new();
    for key in ["role", "toolCallId", "stopReason"] {
        if let Some(v) = obj.str(key) {
            m.insert(key.into(), Value::String(v.into_owned()));
        }
    }
    if obj.raw("excludeFromContext") == Some(b"true") {
        m.insert("excludeFromContext".into(), Value::Bool(true));
    }
    Some(Value::Object(m))
}

/// `message` entries on the path without a message: pi throws reading
/// its role. True when there is one (the context is not built then).
fn missing_messages(s: &Session, path: &[usize], f: &mut Vec<Finding>) -> bool {
    let mut any = false;
    for &i in path {
        if s.entries[i].ty() != EntryType::Message {
            continue;
        }
        let Ok(line) = s.line(i) else { continue };
        let Ok(obj) = s.object(&line, s.entries[i].line()) else {
            continue;
        };
        if matches!(obj.raw("message"), None | Some(b"null")) {
            any = true;
            f.push(
                Finding::new(
                    MESSAGE_MISSING,
                    Some(s.entries[i].line()),
                    "a message entry on the leaf's path without a message",
                )
                .id(s.entries.id_string(i)),
            );
        }
    }
    any
}

/// transformMessages' second pass: the calls of the last assistant
/// message it keeps, and the results seen for them.
#[derive(Default)]
struct Pairing {
    /// (call id, tool name, the assistant entry).
    pending: Vec<(String, String, usize)>,
    answered: HashSet<String>,
    /// Calls of assistant messages pi skips (error, aborted): their id and entry.
    skipped: Vec<(String, usize)>,
}

impl Pairing {
    fn assistant(&mut self, s: &Session, msg: &Value, entry: usize, f: &mut Vec<Finding>) {
        // transformMessages closes the calls before on a new assistant too.
        self.close(s, f);
        let calls = tool_calls(msg);
        let stop = msg.get("stopReason").and_then(Value::as_str);
        if matches!(stop, Some("error" | "aborted")) {
            self.skipped
                .extend(calls.into_iter().map(|(id, _)| (id, entry)));
            return;
        }
        if !calls.is_empty() {
            self.pending = calls
                .into_iter()
                .map(|(id, name)| (id, name, entry))
                .collect();
            self.answered.clear();
        }
    }

    fn result(&mut self, s: &Session, msg: &Value, entry: usize, f: &mut Vec<Finding>) {
        let call = msg.get("toolCallId").and_then(Value::as_str).unwrap_or("");
        if self.pending.iter().any(|(id, ..)| id == call) {
            self.answered.insert(call.to_string());
            return;
        }
        let why = if let Some((_, from)) = self.skipped.iter().find(|(id, _)| id == call) {
            format!("its call (line {}) is in an assistant message pi does not send (stopped by an error or aborted)", s.entries[*from].line())
        } else {
            "no tool call before it in the context has its id".to_string()
        };
        f.push(
            Finding::new(
                RESULT_WITHOUT_CALL,
                Some(s.entries[entry].line()),
                format!(
                    "a tool result for call {}: {why}",
                    crate::visible::field(call)
                ),
            )
            .id(s.entries.id_string(entry))
            .repair(edit(s, entry, b"null".to_vec())),
        );
    }

    /// A message that closes the pending calls (user, custom, summaries).
    fn user(&mut self, s: &Session, f: &mut Vec<Finding>) {
        self.close(s, f);
    }

    fn close(&mut self, s: &Session, f: &mut Vec<Finding>) {
        for (id, name, entry) in self.pending.drain(..) {
            if !self.answered.contains(&id) {
                f.push(
                    Finding::new(
                        TOOL_CALL_WITHOUT_RESULT,
                        Some(s.entries[entry].line()),
                        format!(
                            "tool call {} ({}) has no result",
                            crate::visible::field(&id),
                            crate::visible::field(&name)
                        ),
                    )
                    .id(s.entries.id_string(entry)),
                );
            }
        }
        self.answered.clear();
    }
}

/// The (id, name) of each toolCall block of an assistant message.
fn tool_calls(msg: &Value) -> Vec<(String, String)> {
    blocks(msg)
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("toolCall"))
        .map(|b| {
            let text = |k: &str| b.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            (text("id"), text("name"))
        })
        .collect()
}

fn blocks(msg: &Value) -> impl Iterator<Item = &Value> {
    msg.get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// A context_edit repair of entry `entry` with `replacement`.
fn edit(s: &Session, entry: usize, replacement: Vec<u8>) -> Repair {
    let target = s
        .entries
        .id(entry)
        .map(|id| id.to_json())
        .unwrap_or_else(|| "null".into());
    Repair::Edit {
        target: target.into_bytes(),
        replacement,
    }
}

/// Tool calls sent with arguments that are not an object (null or
/// missing ones are the tree layer's [`ARGUMENTS_NULL`]).
fn arguments(msg: &Value, json: &[u8], at: Option<u64>, id: &str, f: &mut Vec<Finding>) {
    let bad: Vec<usize> = blocks(msg)
        .enumerate()
        .filter(|(_, b)| {
            b.get("type").and_then(Value::as_str) == Some("toolCall")
                && b.get("arguments")
                    .is_some_and(|a| !a.is_object() && !a.is_null())
        })
        .map(|(k, _)| k)
        .collect();
    if bad.is_empty() {
        return;
    }
    let repair = super::repair::content_with(json, &bad, |_| {
        Some((b"arguments".as_slice(), b"{}".to_vec()))
    });
    for &k in &bad {
        let b = blocks(msg).nth(k);
        let name = b
            .and_then(|b| b.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let shown = b
            .and_then(|b| b.get("arguments"))
            .map(|v| {
                crate::visible::field(&v.to_string().chars().take(40).collect::<String>())
                    .into_owned()
            })
            .unwrap_or_default();
        let mut found = Finding::new(
            ARGUMENTS_NOT_OBJECT,
            at,
            format!(
                "the arguments of tool call {} are {shown}, not an object",
                crate::visible::field(name)
            ),
        )
        .id(id);
        if let Some(r) = &repair {
            found = found.repair(Repair::Edit {
                target: id_json(id),
                replacement: r.clone(),
            });
        }
        f.push(found);
    }
}

/// Image blocks over [`IMAGE_LIMIT`] once decoded.
fn images(msg: &Value, json: &[u8], at: Option<u64>, id: &str, f: &mut Vec<Finding>) {
    let size = |b: &Value| {
        b.get("data")
            .and_then(Value::as_str)
            .map_or(0, |d| d.len() as u64 / 4 * 3)
    };
    let big: Vec<usize> = blocks(msg)
        .enumerate()
        .filter(|(_, b)| {
            b.get("type").and_then(Value::as_str) == Some("image") && size(b) > IMAGE_LIMIT
        })
        .map(|(k, _)| k)
        .collect();
    if big.is_empty() {
        return;
    }
    let repair = super::repair::replace_blocks(json, &big, |k| {
        let n = blocks(msg).nth(k).map_or(0, size);
        format!("(image of {n} bytes left out by pi-check: over the providers' limit)")
    });
    for &k in &big {
        let n = blocks(msg).nth(k).map_or(0, size);
        let mut found = Finding::new(
            IMAGE_TOO_LARGE,
            at,
            format!("an image of {n} bytes (the limit: {IMAGE_LIMIT})"),
        )
        .id(id);
        if let Some(r) = &repair {
            found = found.repair(Repair::Edit {
                target: id_json(id),
                replacement: r.clone(),
            });
        }
        f.push(found);
    }
}

/// An id as JSON text (a string).
fn id_json(id: &str) -> Vec<u8> {
    serde_json::to_vec(id).unwrap_or_else(|_| b"null".to_vec())
}
