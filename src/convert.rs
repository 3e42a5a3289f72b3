//! What the model sees: pi's `convertToLlm` (SPEC §7) on message JSON text.
//!
//! Works on the text of one AgentMessage and writes the pi-ai `Message` the
//! way `JSON.stringify` would, without building a value tree.

use crate::json::js;
/// A JavaScript string being built (now in `json::js::string`; this path
/// stays for the callers that name it here).
pub use crate::json::js::string::JsText;
use crate::json::scan::SyntaxError;
use crate::json::{Object, ObjectWriter};
use std::ops::Range;

/// pi's `COMPACTION_SUMMARY_PREFIX` (messages.js).
const COMPACTION_SUMMARY_PREFIX: &str =
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
/// pi's `COMPACTION_SUMMARY_SUFFIX`.
const COMPACTION_SUMMARY_SUFFIX: &str = "\n</summary>";
/// pi's `BRANCH_SUMMARY_PREFIX`.
const BRANCH_SUMMARY_PREFIX: &str =
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
/// pi's `BRANCH_SUMMARY_SUFFIX`.
const BRANCH_SUMMARY_SUFFIX: &str = "</summary>";

/// What `convertToLlm` does with one message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Converted {
    /// The pi-ai message, as `JSON.stringify` writes it.
    Message(Vec<u8>),
    /// A `bashExecution` with `excludeFromContext` (pi's `!!`): left out.
    Excluded,
    /// A value whose `role` is none pi converts (or that has no role): left out.
    Dropped,
}

/// Why a message cannot be converted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConvertError {
    /// The message is `null`: pi's `m.role` throws a TypeError.
    Null,
    /// The text is not valid JSON.
    Syntax(SyntaxError),
}

impl std::fmt::Display for ConvertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConvertError::Null => write!(f, "the message is null (pi fails on it)"),
            ConvertError::Syntax(e) => write!(f, "{e}"),
        }
    }
}

impl From<SyntaxError> for ConvertError {
    fn from(e: SyntaxError) -> Self {
        ConvertError::Syntax(e)
    }
}

/// `convertToLlm([m])` for the (valid) JSON value at `text[range]`.
pub fn to_llm(text: &[u8], range: Range<usize>) -> Result<Converted, ConvertError> {
    match text.get(range.start) {
        Some(b'n') => return Err(ConvertError::Null),
        Some(b'{') => {}
        // `m.role` of a string, number, boolean or array is undefined.
        _ => return Ok(Converted::Dropped),
    }
    let m = Object::at(text, range.clone())?;
    let Some(role) = m.str("role") else {
        return Ok(Converted::Dropped);
    };
    let text_message = |t: JsText, m: &Object<'_>| -> Result<Converted, ConvertError> {
        let mut content = b"[{\"type\":\"text\",\"text\":\"".to_vec();
        content.extend_from_slice(&t.0);
        content.extend_from_slice(b"\"}]");
        Ok(Converted::Message(user_message(&content, m)?))
    };
    match role.as_ref() {
        // pi 1.x: system messages pass through too.
        "system" | "user" | "assistant" | "toolResult" => Ok(Converted::Message(
            js::stringify::canonical_vec(text, range)?,
        )),
        "bashExecution" => {
            if m.raw("excludeFromContext").is_some_and(js::truthy) {
                return Ok(Converted::Excluded);
            }
            text_message(bash_execution_text(&m)?, &m)
        }
        "custom" => {
            let content = match m.get("content") {
                Some(r) if text[r.start] == b'"' => {
                    let mut c = b"[{\"type\":\"text\",\"text\":".to_vec();
                    js::stringify::canonical(&mut c, text, r)?;
                    c.extend_from_slice(b"}]");
                    Some(c)
                }
                Some(r) => Some(js::stringify::canonical_vec(text, r)?),
                None => None,
            };
            let mut w = ObjectWriter::new();
            w.str("role", "user");
            w.raw("content", content.as_deref());
            w.raw("timestamp", m.canonical("timestamp")?.as_deref());
            Ok(Converted::Message(w.finish()))
        }
        "branchSummary" | "compactionSummary" => {
            let (prefix, suffix) = if role == "branchSummary" {
                (BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_SUFFIX)
            } else {
                (COMPACTION_SUMMARY_PREFIX, COMPACTION_SUMMARY_SUFFIX)
            };
            let mut t = JsText::default();
            t.push_str(prefix);
            t.push_value(text, m.get("summary"))?;
            t.push_str(suffix);
            text_message(t, &m)
        }
        _ => Ok(Converted::Dropped),
    }
}

fn user_message(content: &[u8], m: &Object<'_>) -> Result<Vec<u8>, ConvertError> {
    let mut w = ObjectWriter::new();
    w.str("role", "user");
    w.raw("content", Some(content));
    w.raw("timestamp", m.canonical("timestamp")?.as_deref());
    Ok(w.finish())
}

/// pi's `bashExecutionToText`, as the inside of a JSON string.
fn bash_execution_text(m: &Object<'_>) -> Result<JsText, SyntaxError> {
    let text = m.text;
    let mut t = JsText::default();
    t.push_str("Ran `");
    t.push_value(text, m.get("command"))?;
    t.push_str("`\n");
    if m.raw("output").is_some_and(js::truthy) {
        t.push_str("```\n");
        t.push_value(text, m.get("output"))?;
        t.push_str("\n```");
    } else {
        t.push_str("(no output)");
    }
    if m.raw("cancelled").is_some_and(js::truthy) {
        t.push_str("\n\n(command cancelled)");
    } else if let Some(r) = m.get("exitCode") {
        let v = &text[r.clone()];
        if v != b"null" && !js::number::is_zero(v) {
            t.push_str("\n\nCommand exited with code ");
            t.push_value(text, Some(r))?;
        }
    }
    if m.raw("truncated").is_some_and(js::truthy) && m.raw("fullOutputPath").is_some_and(js::truthy)
    {
        t.push_str("\n\n[Output truncated. Full output: ");
        t.push_value(text, m.get("fullOutputPath"))?;
        t.push_str("]");
    }
    Ok(t)
}

/// The output is held until it is this long, so that an answer of this
/// size or less is written whole or not at all (an error in the input
/// stops it before anything is written); a longer one is streamed, and an
/// error stops it where it is. The same rule as the whole-branch
/// transcripts'.
const HOLD: usize = 4 << 20;

/// `convertToLlm(buildSessionContext(entries, leaf))`, one message at a
/// time: each context message is read from the file, converted and
/// written before the next, so that memory stays bounded by the largest
/// message however long the path (`None`: pi's null leaf, no messages).
pub(crate) fn write_context(
    session: &crate::session::Session,
    leaf: Option<usize>,
    out: &mut impl std::io::Write,
) -> crate::error::Result<()> {
    use crate::error::Error;
    let ctx = crate::context::build(session, leaf)?;
    let mut held = Some(Vec::new());
    for item in ctx.items {
        let Some(json) = crate::context::message_json(session, item)? else {
            continue;
        };
        let line = session.entries[item.entry()].line();
        let r = to_llm(&json, 0..json.len()).map_err(|e| match e {
            ConvertError::Null => Error::data(
                &session.name,
                Some(line),
                "the message is null; pi's convertToLlm fails on it",
            ),
            ConvertError::Syntax(e) => Error::data(&session.name, Some(line), e.to_string()),
        })?;
        let Converted::Message(mut j) = r else {
            continue;
        };
        j.push(b'\n');
        match &mut held {
            Some(h) => {
                h.extend_from_slice(&j);
                if h.len() >= HOLD {
                    out.write_all(h).map_err(Error::output)?;
                    held = None;
                }
            }
            None => out.write_all(&j).map_err(Error::output)?,
        }
    }
    out.write_all(held.as_deref().unwrap_or_default())
        .map_err(Error::output)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(s: &str) -> String {
        match to_llm(s.as_bytes(), 0..s.len()).unwrap() {
            Converted::Message(m) => String::from_utf8(m).unwrap(),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn bash_variants() {
        assert_eq!(
            conv(
                r#"{"role":"bashExecution","command":"ls","output":"a\n","exitCode":2,"timestamp":5}"#
            ),
            r#"{"role":"user","content":[{"type":"text","text":"Ran `ls`\n```\na\n\n```\n\nCommand exited with code 2"}],"timestamp":5}"#
        );
        assert_eq!(
            conv(
                r#"{"role":"bashExecution","command":["a",null,1e21],"output":"","exitCode":-0.0}"#
            ),
            r#"{"role":"user","content":[{"type":"text","text":"Ran `a,,1e+21`\n(no output)"}]}"#
        );
        assert_eq!(
            conv(r#"{"role":"bashExecution","excludeFromContext":1}"#),
            "Excluded"
        );
        assert_eq!(conv(r#"{"role":"other"}"#), "Dropped");
        assert_eq!(conv(r#""x""#), "Dropped");
        assert!(to_llm(b"null", 0..4).is_err());
    }
}
