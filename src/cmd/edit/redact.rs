//! `pi-edit --redact`: the edits that replace every match of a pattern in
//! what the model sees, one per editable entry of the context.

use super::{checked, describe, editable_role, id_of, json_string, place, Planned};
use crate::cli::Log;
use crate::context::{self, Item};
use crate::error::{Diagnostic, Error, Result};
use crate::json::{js, scan, Object};
use crate::session::Session;

/// How deep tool-call arguments are followed; deeper values are only
/// searched as JSON text.
const MAX_ARGS_DEPTH: usize = 256;

/// The edits `--redact` makes: one per editable entry in the context whose
/// content (as the model sees it now) matches.
pub(super) fn redact_plan(
    s: &Session,
    re: &regex::Regex,
    with: &str,
    log: Log,
) -> Result<Vec<Planned>> {
    let Some(leaf) = s.index.leaf else {
        return Ok(Vec::new());
    };
    let ctx = context::build(s, Some(leaf))?;
    let mut planned = Vec::new();
    for item in ctx.items {
        let i = item.entry();
        let at = place(s, i);
        let Some(msg) = context::message_json(s, item)? else {
            continue;
        };
        let editable =
            matches!(item, Item::Entry(_) | Item::Edited(..)) && editable_role(s, i)?.is_some();
        let obj = Object::at(&msg, 0..msg.len())
            .map_err(|e| Error::data(&s.name, Some(s.entries[i].line()), format!("{e}")))?;
        if !editable {
            if count_in(&msg, 0..msg.len(), re) > 0 {
                log.warn(&Diagnostic::plain(format!(
                    "{at}: a {} matches, but pi cannot edit it (only custom_message entries and user, assistant and toolResult messages); it is still sent as it is",
                    describe(s, i)
                )));
            }
            continue;
        }
        let Some(content) = obj.get("content") else {
            continue;
        };
        if s.entries.id(i).is_none() {
            if count_in(&msg, 0..msg.len(), re) > 0 {
                log.warn(&Diagnostic::plain(format!(
                    "{at}: this entry matches, but it has no id to edit"
                )));
            }
            continue;
        }
        let mut r = Redactor {
            re,
            with,
            matches: 0,
        };
        let new_content = r.content(&msg, content.clone());
        if r.matches > 0 {
            // JSON.stringify's order and duplicate keys (a redacted key may
            // now look like an array index, or equal another key).
            let new_content =
                js::canonical_vec(&new_content, 0..new_content.len()).map_err(|e| {
                    Error::data(
                        &s.name,
                        Some(s.entries[i].line()),
                        format!("the redacted content: {e}"),
                    )
                })?;
            let replacement = checked(s, i, Some(&new_content))?;
            // What is left anywhere in the message once the edit is in force.
            let after = js::with_member(&msg, "content", Some(&new_content));
            if count_in(&after, 0..after.len(), re) > 0 {
                log.warn(&Diagnostic::plain(format!(
                    "{at}: entry {} still matches outside what a context edit can change (fields beside its content, or image data); pi-path --format messages still shows it",
                    id_of(s, i)?
                )));
            }
            planned.push(Planned {
                target: id_of(s, i)?,
                replacement,
                matches: Some(r.matches),
            });
        } else if count_in(&msg, 0..msg.len(), re) > 0 {
            log.warn(&Diagnostic::plain(format!(
                "{at}: entry {} matches only outside its text (fields beside its content, or image data), which a context edit cannot change",
                id_of(s, i)?
            )));
        }
    }
    Ok(planned)
}

/// Matches of `re` in the string and number values of the JSON value at
/// `text[range]` (keys are the message's own structure: not counted).
fn count_in(text: &[u8], range: std::ops::Range<usize>, re: &regex::Regex) -> usize {
    let mut n = 0;
    walk_strings(text, range, 0, &mut |s| n += re.find_iter(s).count());
    n
}

fn walk_strings(text: &[u8], range: std::ops::Range<usize>, depth: usize, f: &mut dyn FnMut(&str)) {
    if depth > js::MAX_DEPTH {
        return;
    }
    match scan::kind_of(&text[range.clone()]) {
        Some(scan::Kind::String) => f(&js::decode_string(text, range)),
        Some(scan::Kind::Number) => f(&String::from_utf8_lossy(&text[range])),
        Some(scan::Kind::Array) => {
            for e in scan::elements(text, range).unwrap_or_default() {
                walk_strings(text, e, depth + 1, f);
            }
        }
        Some(scan::Kind::Object) => {
            for m in scan::members(text, range).unwrap_or_default() {
                walk_strings(text, m.value, depth + 1, f);
            }
        }
        _ => {}
    }
}

struct Redactor<'a> {
    re: &'a regex::Regex,
    with: &'a str,
    matches: usize,
}

impl Redactor<'_> {
    /// A string with every match replaced, or None when nothing matched.
    fn text(&mut self, s: &str) -> Option<String> {
        let n = self.re.find_iter(s).count();
        if n == 0 {
            return None;
        }
        self.matches += n;
        Some(
            self.re
                .replace_all(s, regex::NoExpand(self.with))
                .into_owned(),
        )
    }

    /// The JSON string at `text[range]`, redacted (its own bytes when
    /// nothing matched).
    fn string(&mut self, text: &[u8], range: std::ops::Range<usize>) -> (Vec<u8>, bool) {
        match self.text(&js::decode_string(text, range.clone())) {
            Some(t) => (json_string(&t), true),
            None => (text[range].to_vec(), false),
        }
    }

    /// The content of a message: a string, or blocks (text, thinking and
    /// tool calls are redacted; other blocks are kept as they are).
    fn content(&mut self, text: &[u8], range: std::ops::Range<usize>) -> Vec<u8> {
        match scan::kind_of(&text[range.clone()]) {
            Some(scan::Kind::String) => self.string(text, range).0,
            Some(scan::Kind::Array) => array(text, range, |e| self.block(text, e)),
            _ => text[range].to_vec(),
        }
    }

    fn block(&mut self, text: &[u8], range: std::ops::Range<usize>) -> Vec<u8> {
        let Ok(obj) = Object::at(text, range.clone()) else {
            return text[range].to_vec();
        };
        let ty = obj.str("type").map(|t| t.into_owned());
        let field = match ty.as_deref() {
            Some("text") => "text",
            Some("thinking") => "thinking",
            Some("toolCall") => "arguments",
            _ => return text[range].to_vec(),
        };
        let Some(value) = obj.get(field) else {
            return text[range].to_vec();
        };
        let block = &text[range.clone()];
        let (new, changed) = if field == "arguments" {
            let before = self.matches;
            let v = self.value(text, value, 0);
            let changed = self.matches > before;
            (v, changed)
        } else if text[value.start] == b'"' {
            self.string(text, value)
        } else {
            return block.to_vec();
        };
        if !changed {
            return block.to_vec();
        }
        let mut out = js::with_member(block, field, Some(&new));
        if field == "thinking" {
            // The signature signs the original text; a provider that checks
            // it would refuse the whole request.
            out = js::with_member(&out, "thinkingSignature", None);
        }
        out
    }

    /// Any JSON value (tool-call arguments): strings and keys redacted, a
    /// number that matches becomes the redacted string of its text.
    fn value(&mut self, text: &[u8], range: std::ops::Range<usize>, depth: usize) -> Vec<u8> {
        if depth > MAX_ARGS_DEPTH {
            return text[range].to_vec();
        }
        match scan::kind_of(&text[range.clone()]) {
            Some(scan::Kind::String) => self.string(text, range).0,
            Some(scan::Kind::Number) => {
                let t = String::from_utf8_lossy(&text[range.clone()]).into_owned();
                match self.text(&t) {
                    Some(r) => json_string(&r),
                    None => text[range].to_vec(),
                }
            }
            Some(scan::Kind::Array) => array(text, range, |e| self.value(text, e, depth + 1)),
            Some(scan::Kind::Object) => {
                // Redacted keys may collide: the later member wins, as in
                // JSON.parse, and keeps the first one's place.
                let mut members: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
                for m in scan::members(text, range).unwrap_or_default() {
                    let (k, _) = self.string(text, m.key.clone());
                    let v = self.value(text, m.value, depth + 1);
                    match members.iter_mut().find(|(key, _)| *key == k) {
                        Some(slot) => slot.1 = v,
                        None => members.push((k, v)),
                    }
                }
                let mut out = vec![b'{'];
                for (n, (k, v)) in members.iter().enumerate() {
                    if n > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(k);
                    out.push(b':');
                    out.extend_from_slice(v);
                }
                out.push(b'}');
                out
            }
            _ => text[range].to_vec(),
        }
    }
}

/// The JSON array at `range` with each element as `f` makes it.
fn array(
    text: &[u8],
    range: std::ops::Range<usize>,
    mut f: impl FnMut(std::ops::Range<usize>) -> Vec<u8>,
) -> Vec<u8> {
    let mut out = vec![b'['];
    for (k, e) in scan::elements(text, range)
        .unwrap_or_default()
        .into_iter()
        .enumerate()
    {
        if k > 0 {
            out.push(b',');
        }
        out.extend_from_slice(&f(e));
    }
    out.push(b']');
    out
}
