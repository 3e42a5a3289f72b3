//! The third layer: the conversation pi 1.6.0 would send at the leaf
//! (`buildSessionContext`, then pi-ai's `transformMessages`, which pairs
//! tool calls with results): what it repairs on its own (a call without a
//! result gets a synthetic one) and what the provider then rejects.

use super::*;
use crate::context::{self, Item};
use crate::entry::EntryType;
// Every line read here is valid JSON (the loader kept it): its values
// are found by their quotes and brackets alone.
use crate::entry::talk::{Block, Class, Msg};
use crate::store::raw;
use std::borrow::Cow;
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
    // pi throws on a message entry without a message anywhere on the
    // path, and so does the build: only then are the path's messages
    // looked at one by one, to name each such entry.
    let ctx = match context::build(s, Some(leaf)) {
        Ok(c) => c,
        Err(_) if missing_messages(s, &path, f) => return,
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
    let mut checker = Checker::new();
    for &item in &ctx.items {
        if matches!(item, Item::CompactionSystem(_) | Item::CompactionSummary(_)) {
            // a user-side message to transformMessages
            pairing.user(s, f);
            continue;
        }
        // A message entry as it is in its line (read here); any other
        // item as pi builds it.
        let msg = match item {
            Item::Entry(i) if s.entries[i].ty() == EntryType::Message => {
                message(s, i, &mut checker)
            }
            _ => None,
        };
        let Some(msg) = msg.or_else(|| built(s, item).map(Cow::Owned)) else {
            continue;
        };
        let at = Some(s.entries[item.entry()].line());
        // Only a finding needs the id as text.
        let id = || s.entries.id_string(item.entry());
        images(s, item, &msg, at, id, f);
        match msg.class {
            Class::Assistant | Class::AssistantSkipped => {
                arguments(s, item, &msg, at, id, f);
                pairing.assistant(s, &msg, item.entry(), f);
            }
            Class::ToolResult => pairing.result(s, &msg, item.entry(), f),
            Class::System | Class::ExcludedBash => {}
            Class::User => pairing.user(s, f),
        }
    }
    pairing.user(s, f);
}

/// An item's message as pi builds it (a summary, a custom message, an
/// edited entry).
fn built(s: &Session, item: Item) -> Option<Msg> {
    let json = context::message_json(s, item).ok()??;
    if json.first() != Some(&b'{') {
        return Some(Msg::default());
    }
    let strings = raw::Strings::Memchr;
    Some(Msg::of(&raw::object(&json, 0..json.len()), strings))
}

/// `message` entries on the path without a message (pi throws reading
/// its role; the context is not built then), each a finding; whether
/// there was one.
fn missing_messages(s: &Session, path: &[usize], f: &mut Vec<Finding>) -> bool {
    let mut any = false;
    for &i in path {
        if s.entries[i].ty() != EntryType::Message {
            continue;
        }
        let Ok(line) = s.line(i) else { continue };
        let Some(obj) = kept_object(&line) else {
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

/// What the checks need of the message entry `i`: the load's, else read
/// from its line when the context comes to it (one message at a time is
/// held).
fn message<'s>(s: &'s Session, i: usize, checker: &mut Checker) -> Option<Cow<'s, Msg>> {
    if let Some(m) = loaded(s, i) {
        return Some(m);
    }
    let line = s.line(i).ok()?;
    let (obj, strings) = marked_object(checker, &line)?;
    Some(Cow::Owned(Msg::of_entry(&obj, strings)))
}

/// The load's message of entry `i`, when it read it (a current file only:
/// the checks read a migrated line otherwise).
pub(super) fn loaded(s: &Session, i: usize) -> Option<Cow<'_, Msg>> {
    if s.talk.len() != s.entries.len() || s.header.version < crate::migrate::CURRENT_VERSION {
        return None;
    }
    s.talk.get(i)
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
    fn assistant(&mut self, s: &Session, msg: &Msg, entry: usize, f: &mut Vec<Finding>) {
        // transformMessages closes the calls before on a new assistant too.
        self.close(s, f);
        let calls = tool_calls(msg);
        if msg.class == Class::AssistantSkipped {
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

    fn result(&mut self, s: &Session, msg: &Msg, entry: usize, f: &mut Vec<Finding>) {
        let call = msg.call_id.as_deref().unwrap_or("");
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
fn tool_calls(msg: &Msg) -> Vec<(String, String)> {
    msg.blocks
        .iter()
        .filter_map(|(_, b)| match b {
            Block::ToolCall { id, name, .. } => Some((id.clone(), name.clone())),
            _ => None,
        })
        .collect()
}

/// The item's message as pi sends it (JSON text), for a repair.
fn sent(s: &Session, item: Item) -> Option<Vec<u8>> {
    context::message_json(s, item).ok()?
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
fn arguments(
    s: &Session,
    item: Item,
    msg: &Msg,
    at: Option<u64>,
    id: impl Fn() -> String,
    f: &mut Vec<Finding>,
) {
    let bad: Vec<(usize, &str, &[u8])> = msg
        .blocks
        .iter()
        .filter_map(|(k, b)| match b {
            Block::ToolCall {
                name,
                odd_args: Some(a),
                ..
            } => Some((*k, name.as_str(), a.as_slice())),
            _ => None,
        })
        .collect();
    if bad.is_empty() {
        return;
    }
    let which: Vec<usize> = bad.iter().map(|b| b.0).collect();
    let id = id();
    let repair = sent(s, item).and_then(|json| {
        super::repair::content_with(&json, &which, |_| {
            Some((b"arguments".as_slice(), b"{}".to_vec()))
        })
    });
    for &(_, name, args) in &bad {
        // serde's compact text of the value, as JSON.stringify writes it
        let text = serde_json::from_slice::<serde_json::Value>(args)
            .map(|v| v.to_string())
            .unwrap_or_else(|_| String::from_utf8_lossy(args).into_owned());
        let shown = crate::visible::field(&text.chars().take(40).collect::<String>()).into_owned();
        let mut found = Finding::new(
            ARGUMENTS_NOT_OBJECT,
            at,
            format!(
                "the arguments of tool call {} are {shown}, not an object",
                crate::visible::field(name)
            ),
        )
        .id(id.as_str());
        if let Some(r) = &repair {
            found = found.repair(Repair::Edit {
                target: id_json(&id),
                replacement: r.clone(),
            });
        }
        f.push(found);
    }
}

/// Image blocks over [`IMAGE_LIMIT`] once decoded.
fn images(
    s: &Session,
    item: Item,
    msg: &Msg,
    at: Option<u64>,
    id: impl Fn() -> String,
    f: &mut Vec<Finding>,
) {
    let size = |k: usize| match msg.blocks.iter().find(|b| b.0 == k) {
        Some((_, Block::Image(n))) => *n,
        _ => 0,
    };
    let big: Vec<usize> = msg
        .blocks
        .iter()
        .filter(|b| matches!(b.1, Block::Image(n) if n > IMAGE_LIMIT))
        .map(|b| b.0)
        .collect();
    if big.is_empty() {
        return;
    }
    let id = id();
    let repair = sent(s, item).and_then(|json| {
        super::repair::replace_blocks(&json, &big, |k| {
            format!(
                "(image of {} bytes left out by pi-check: over the providers' limit)",
                size(k)
            )
        })
    });
    for &k in &big {
        let n = size(k);
        let mut found = Finding::new(
            IMAGE_TOO_LARGE,
            at,
            format!("an image of {n} bytes (the limit: {IMAGE_LIMIT})"),
        )
        .id(id.as_str());
        if let Some(r) = &repair {
            found = found.repair(Repair::Edit {
                target: id_json(&id),
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
