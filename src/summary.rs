//! One-line texts of entries, for listings.

use crate::json::Object;

/// The text of a message's `content` the way pi's session list extracts
/// it: a string as it is, else the `text` blocks joined with a space.
pub fn message_text(msg: &Object<'_>) -> Option<String> {
    let r = msg.get("content")?;
    let t = msg.text;
    match t[r.start] {
        b'"' => Some(crate::json::js::decode_string(t, r).into_owned()),
        b'[' => {
            let mut parts = Vec::new();
            for el in crate::json::scan::elements(t, r).ok()? {
                if t[el.start] != b'{' {
                    continue;
                }
                let Ok(block) = Object::at(t, el) else {
                    continue;
                };
                if block.str("type").as_deref() == Some("text") {
                    if let Some(s) = block.str("text") {
                        parts.push(s.into_owned());
                    }
                }
            }
            Some(parts.join(" "))
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
