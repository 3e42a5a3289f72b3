//! What pi's `/tree` needs of a `message` entry before it draws a row
//! ([`Glance`]): the role and flags its filters look at, whether the
//! message may hold tool calls, and where the `message` object stands in
//! its line (so that a row reads the message alone). Found from a line
//! already proven to be JSON, either while the file is loaded (asked for
//! with [`crate::session::ReadOptions::glances`], on the loading threads)
//! or by `pi-tree` itself.

use crate::json::scan::Member;
use crate::json::{js, Object};
use crate::search::tree_text::has_text_content;
use crate::store::raw::{self, Strings};

/// The role bits ([`Glance::info`] `& MSG_ROLE`): one of the `ROLE_` values.
pub const MSG_ROLE: u8 = 3;
pub const ROLE_USER: u8 = 1;
pub const ROLE_ASSISTANT: u8 = 2;
pub const ROLE_TOOL_RESULT: u8 = 3;
/// An assistant message with text content (`hasTextContent`).
pub const MSG_HAS_TEXT: u8 = 4;
/// An assistant message whose `stopReason` is truthy and neither "stop"
/// nor "toolUse".
pub const MSG_BAD_STOP: u8 = 8;
/// An assistant message whose content is an array that may hold a tool
/// call (it says `toolCall`, or has a `\u` escape that may spell it).
pub const MSG_CALLS: u8 = 0x10;
/// The entry has no message, or a null one (pi's `/tree` fails on it).
pub const MSG_NONE: u8 = 0x40;

/// What [`glance`] finds of a message entry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Glance {
    /// The `MSG_` bits.
    pub info: u8,
    /// Where the last `message` member's value stands in the line, when
    /// its key is written plainly (`"message":` and the value right
    /// after); (0, 0) otherwise.
    pub at: (u32, u32),
}

/// The key `"message"` as a compact line holds it, and the colon.
pub const MESSAGE_KEY: &[u8] = b"\"message\":";

/// [`Glance`] of the message entry `obj`, a whole line that is known to be
/// valid JSON: the message's members are found by their brackets alone,
/// its strings skipped by `strings`, into `spare` (kept for the next).
pub fn glance(obj: &Object<'_>, strings: Strings<'_>, spare: &mut Vec<Member>) -> Glance {
    let m = obj
        .get("message")
        .filter(|r| obj.text[r.start] == b'{')
        .map(|r| {
            let mut members = std::mem::take(spare);
            raw::members_by(obj.text, r.clone(), &mut members, strings);
            Object {
                text: obj.text,
                range: r,
                members,
            }
        });
    let g = glance_with(obj, m.as_ref());
    if let Some(m) = m {
        *spare = m.members;
    }
    g
}

/// [`glance`] of any object line, its message object validated on the
/// way (the fuzz target holds the two to each other).
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn glance_checked(obj: &Object<'_>) -> Glance {
    glance_with(obj, obj.object("message").as_ref())
}

/// [`glance`] of the entry `obj` whose message object is `m`.
fn glance_with(obj: &Object<'_>, m: Option<&Object<'_>>) -> Glance {
    let mut info = info_of(m);
    if matches!(obj.raw("message"), None | Some(b"null")) {
        info |= MSG_NONE;
    }
    let calls = info & MSG_ROLE == ROLE_ASSISTANT
        && m.and_then(|m| m.raw("content")).is_some_and(|c| {
            c.first() == Some(&b'[')
                && (memchr::memmem::find(c, b"toolCall").is_some()
                    || memchr::memmem::find(c, b"\\u").is_some())
        });
    if calls {
        info |= MSG_CALLS;
    }
    let at = if m.is_some() { message_at(obj) } else { (0, 0) };
    Glance { info, at }
}

/// The role and flags of a message object `m` (None: the entry has none):
/// 0 for a role the filters do not know.
pub fn info_of(m: Option<&Object<'_>>) -> u8 {
    let Some(m) = m else {
        return 0;
    };
    // The members the filters look at, in one pass (the last of a key
    // wins, as in JSON.parse).
    let (mut role, mut content, mut stop) = (None, None, None);
    for member in &m.members {
        let slot = match &m.text[member.key.clone()] {
            b"\"role\"" => &mut role,
            b"\"content\"" => &mut content,
            b"\"stopReason\"" => &mut stop,
            k if !k.contains(&b'\\') => continue,
            _ => match ["role", "content", "stopReason"]
                .iter()
                .position(|want| crate::json::key_is(m.text, &member.key, want))
            {
                Some(0) => &mut role,
                Some(1) => &mut content,
                Some(_) => &mut stop,
                None => continue,
            },
        };
        *slot = Some(member.value.clone());
    }
    let role = role.map(|r| &m.text[r]);
    if is_string(role, "user") {
        ROLE_USER
    } else if is_string(role, "toolResult") {
        ROLE_TOOL_RESULT
    } else if is_string(role, "assistant") {
        let mut info = ROLE_ASSISTANT;
        if content.is_some_and(|r| has_text_content(m.text, r)) {
            info |= MSG_HAS_TEXT;
        }
        if stop
            .map(|r| &m.text[r])
            .is_some_and(|r| js::truthy(r) && r != b"\"stop\"" && r != b"\"toolUse\"")
        {
            info |= MSG_BAD_STOP;
        }
        info
    } else {
        0
    }
}

/// Whether the JSON value `raw` is a string that decodes to `want`.
fn is_string(raw: Option<&[u8]>, want: &str) -> bool {
    let Some(raw) = raw.filter(|r| r.first() == Some(&b'"') && r.len() >= 2) else {
        return false;
    };
    let inner = &raw[1..raw.len() - 1];
    if !inner.contains(&b'\\') {
        return inner == want.as_bytes();
    }
    js::escape::decode_string(raw, 0..raw.len()) == want
}

/// [`role`]: the line must be read to know the role (or the message is
/// not an object).
pub const ROLE_UNKNOWN: u8 = 0x80;

/// The role of the message entry `obj` (a whole line known to be valid
/// JSON) as one of the `ROLE_` values or [`MSG_NONE`] (no message, or a
/// null one), or [`ROLE_UNKNOWN`]. `quick`: what the quick check
/// (`Checker::valid_object`) saw of the line, when it took it (so the
/// line has no white space between tokens and is nested less than
/// `js::MAX_DEPTH`). A message object that starts `{"role":"` has that
/// role when no other key of it can be `role`: it has no `\u` escape (the
/// only way to write a key that reads `role` otherwise), and the line has
/// no other key written `"role"` (or, when it has, the message says
/// `"role":` nowhere else). Anything else (a line the quick check did not
/// take, a role that is not the first member or not plain, or none of the
/// three) is [`ROLE_UNKNOWN`]. No scan of the message, and no search at all
/// in a line with one `"role"` key and no `\u` escape.
pub fn role(obj: &Object<'_>, quick: Option<js::check::LineFacts>) -> u8 {
    let Some(r) = obj.get("message") else {
        return MSG_NONE;
    };
    let v = &obj.text[r];
    if v == b"null" {
        return MSG_NONE;
    }
    let Some(facts) = quick else {
        return ROLE_UNKNOWN;
    };
    const HEAD: &[u8] = b"{\"role\":\"";
    let Some(rest) = v.strip_prefix(HEAD) else {
        return ROLE_UNKNOWN;
    };
    let Some(end) = memchr::memchr2(b'"', b'\\', rest) else {
        return ROLE_UNKNOWN;
    };
    // The searchers, made once (a new one a line cost more than the search).
    static SEARCH: std::sync::OnceLock<[memchr::memmem::Finder<'static>; 2]> =
        std::sync::OnceLock::new();
    let [role_key, unicode] = SEARCH.get_or_init(|| {
        [
            memchr::memmem::Finder::new(b"\"role\":"),
            memchr::memmem::Finder::new(b"\\u"),
        ]
    });
    if rest[end] != b'"'
        || (facts.unicode_escape && unicode.find(v).is_some())
        // The message's first key is one written "role".
        || (facts.role_keys != 1 && role_key.find(&rest[end..]).is_some())
    {
        return ROLE_UNKNOWN;
    }
    match &rest[..end] {
        b"user" => ROLE_USER,
        b"assistant" => ROLE_ASSISTANT,
        b"toolResult" => ROLE_TOOL_RESULT,
        _ => ROLE_UNKNOWN,
    }
}

/// [`Glance::at`] of the entry `obj`.
pub fn message_at(obj: &Object<'_>) -> (u32, u32) {
    let Some(m) = obj
        .members
        .iter()
        .rev()
        .find(|m| crate::json::key_is(obj.text, &m.key, "message"))
    else {
        return (0, 0);
    };
    let plain = m.value.start == m.key.end + 1
        && obj.text.get(m.key.start..m.value.start) == Some(MESSAGE_KEY);
    match (u32::try_from(m.value.start), u32::try_from(m.value.end)) {
        (Ok(a), Ok(b)) if plain => (a, b),
        _ => (0, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(line: &str) -> Glance {
        let obj = Object::parse_line(line.as_bytes()).unwrap().unwrap();
        let g = glance(&obj, Strings::Memchr, &mut Vec::new());
        assert_eq!(g, glance_checked(&obj));
        // The quick check's quote bits find the same.
        let mut c = js::check::Checker::new();
        let members = c.valid_object(line.as_bytes()).unwrap().to_vec();
        let quick = Object { members, ..obj };
        assert_eq!(
            g,
            glance(&quick, Strings::Marks(c.marks()), &mut Vec::new())
        );
        g
    }

    /// Each flag from the line that sets it, and the message's place.
    #[test]
    fn flags_and_place() {
        let line = r#"{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":" x "}],"stopReason":"error"}}"#;
        let g = of(line);
        assert_eq!(g.info, ROLE_ASSISTANT | MSG_HAS_TEXT | MSG_BAD_STOP);
        let (a, b) = g.at;
        assert_eq!(&line[a as usize..b as usize], &line[28..line.len() - 1]);
        let calls = of(
            r#"{"message":{"role":"assistant","content":[{"type":"toolCall","name":"ls"}],"stopReason":"toolUse"}}"#,
        );
        assert_eq!(calls.info, ROLE_ASSISTANT | MSG_CALLS);
        assert_eq!(
            of(r#"{"message":{"role":"user","content":"hi"}}"#).info,
            ROLE_USER
        );
        assert_eq!(
            of(r#"{"message":{"role":"toolResult"}}"#).info,
            ROLE_TOOL_RESULT
        );
        assert_eq!(
            of(r#"{"message":null}"#),
            Glance {
                info: MSG_NONE,
                at: (0, 0)
            }
        );
        assert_eq!(of(r#"{"type":"message"}"#).info, MSG_NONE);
        // The last `message` wins, as in JSON.parse; a key with an escape
        // is not the plain one, so no place is given.
        let g = of(r#"{"message":{"role":"user"},"\u006dessage":{"role":"toolResult"}}"#);
        assert_eq!(
            g,
            Glance {
                info: ROLE_TOOL_RESULT,
                at: (0, 0)
            }
        );
        // Blank text is no text; "stop" and "toolUse" are no bad stop.
        let g = of(r#"{"message":{"role":"assistant","content":" \n","stopReason":"stop"}}"#);
        assert_eq!(g.info, ROLE_ASSISTANT);
    }
}
