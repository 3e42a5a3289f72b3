//! One-line texts of entries, for listings.

use crate::json::Object;

/// The text of a message's `content` the way pi's session list extracts
/// it: a string as it is, else the `text` blocks joined with a space.
pub fn message_text(msg: &Object<'_>) -> Option<String> {
    content_text(msg.raw("content")?, " ")
}

/// The text of a `content` value (JSON text): a string as it is, else the
/// `text` of its text blocks joined with `sep` (pi joins with " " in its
/// session list and with "" when it puts a message back in the editor).
/// None when the content is neither a string nor an array.
pub fn content_text(content: &[u8], sep: &str) -> Option<String> {
    match content.first()? {
        b'"' => {
            Some(crate::json::js::escape::decode_string(content, 0..content.len()).into_owned())
        }
        b'[' => {
            let mut parts = Vec::new();
            for el in crate::json::scan::elements(content, 0..content.len()).ok()? {
                if content[el.start] != b'{' {
                    continue;
                }
                let Ok(block) = Object::at(content, el) else {
                    continue;
                };
                if block.str("type").as_deref() == Some("text") {
                    if let Some(s) = block.str("text") {
                        parts.push(s.into_owned());
                    }
                }
            }
            Some(parts.join(sep))
        }
        _ => None,
    }
}

/// Collapse white space to single spaces and cut to `max` characters
/// (with "…" when cut).
pub fn one_line(s: &str, max: usize) -> String {
    let mut out = String::new();
    let mut n = 0;
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
            n += 1;
        }
        for c in word.chars() {
            if n >= max {
                out.push('…');
                return out;
            }
            out.push(c);
            n += 1;
        }
    }
    out
}

/// A one-line description of entry `i` for listings (`role: text`,
/// `[compaction]`, ...), at most about `max` characters.
pub fn entry_summary(
    session: &crate::session::Session,
    i: usize,
    max: usize,
) -> crate::error::Result<String> {
    use crate::entry::EntryType as T;
    let e = &session.entries[i];
    let line = session.line(i)?;
    let obj = session.object(&line, e.line())?;
    let s = |k: &str| obj.str(k).map(|v| one_line(&v, max)).unwrap_or_default();
    Ok(match &e.ty() {
        T::Message => match obj.object("message") {
            Some(m) => {
                let role = m.str("role").map(|r| r.into_owned()).unwrap_or_default();
                let text = message_text(&m).unwrap_or_default();
                let text = if text.trim().is_empty() {
                    tool_calls(&m)
                } else {
                    one_line(&text, max)
                };
                format!("{role}: {text}")
            }
            None => "message".into(),
        },
        T::Compaction => format!("[compaction] {}", s("summary")),
        T::BranchSummary => format!("[branch summary] {}", s("summary")),
        T::ModelChange => format!("[model] {}/{}", s("provider"), s("modelId")),
        T::ThinkingLevelChange => format!("[thinking] {}", s("thinkingLevel")),
        T::Custom => format!("[custom] {}", s("customType")),
        T::CustomMessage => {
            let text = message_text(&obj).unwrap_or_default();
            format!("[{}] {}", s("customType"), one_line(&text, max))
        }
        T::Label => format!("[label] {}", s("label")),
        T::SessionInfo => format!("[name] {}", s("name")),
        _ => format!("[{}]", session.type_name(i)),
    })
}

fn tool_calls(msg: &Object<'_>) -> String {
    let Some(r) = msg.get("content") else {
        return String::new();
    };
    let Ok(els) = crate::json::scan::elements(msg.text, r) else {
        return String::new();
    };
    let names: Vec<String> = els
        .into_iter()
        .filter(|el| msg.text[el.start] == b'{')
        .filter_map(|el| Object::at(msg.text, el).ok())
        .filter(|b| b.str("type").as_deref() == Some("toolCall"))
        .filter_map(|b| b.str("name").map(|n| n.into_owned()))
        .collect();
    if names.is_empty() {
        String::new()
    } else {
        format!("[tool calls: {}]", names.join(", "))
    }
}
