//! Session text for the tests, one set of builders for every module: a
//! header, message entries, chains of them, whole sessions.

/// A version-3 session header for hand-made test sessions.
pub const H: &str = r#"{"type":"session","version":3,"id":"0190aaaa-0000-7000-8000-000000000001","timestamp":"2026-07-20T09:00:00.000Z","cwd":"/p"}"#;

/// A version-3 session header; `parent_session` names the session it was
/// forked from.
pub fn header(id: &str, timestamp: &str, cwd: &str, parent_session: Option<&str>) -> String {
    let parent = parent_session.map_or(String::new(), |p| format!(r#","parentSession":"{p}""#));
    format!(
        r#"{{"type":"session","version":3,"id":"{id}","timestamp":"{timestamp}","cwd":"{cwd}"{parent}}}"#
    )
}

/// A `parentId` value: the id as a JSON string, or null.
pub fn parent_json(parent: Option<&str>) -> String {
    parent.map_or("null".to_string(), |p| format!("\"{p}\""))
}

/// A message entry written at `timestamp`; `message` is its message's JSON.
pub fn message_at(id: &str, parent: Option<&str>, timestamp: &str, message: &str) -> String {
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{},"timestamp":"{timestamp}","message":{message}}}"#,
        parent_json(parent)
    )
}

/// A message entry written a second after [`H`].
pub fn message(id: &str, parent: Option<&str>, message: &str) -> String {
    message_at(id, parent, "2026-07-20T09:00:01.000Z", message)
}

/// A user message whose content is the string `text` (JSON-escaped already).
pub fn user_message(text: &str) -> String {
    format!(r#"{{"role":"user","content":"{text}","timestamp":1}}"#)
}

/// A [`message`] entry of a user saying `text`.
pub fn user(id: &str, parent: Option<&str>, text: &str) -> String {
    message(id, parent, &user_message(text))
}

/// A [`message`] entry of `role` whose content is one text block.
pub fn text_message(id: &str, parent: Option<&str>, role: &str, text: &str) -> String {
    message(
        id,
        parent,
        &format!(
            r#"{{"role":"{role}","content":[{{"type":"text","text":"{text}"}}],"timestamp":1}}"#
        ),
    )
}

/// The id of the `i`th entry of a [`chain`]: 8 hex digits.
pub fn hex_id(i: usize) -> String {
    format!("{i:08x}")
}

/// `n` [`message`] entries, each the child of the one before (the first a
/// root), with ids [`hex_id`]`(i)` and `message(i)` as their messages.
pub fn chain(n: usize, message: impl Fn(usize) -> String) -> Vec<String> {
    (0..n)
        .map(|i| {
            let parent = i.checked_sub(1).map(hex_id);
            self::message(&hex_id(i), parent.as_deref(), &message(i))
        })
        .collect()
}

/// Lines, each ended by a newline.
pub fn lines(ls: &[String]) -> String {
    let mut s = String::new();
    for l in ls {
        s.push_str(l);
        s.push('\n');
    }
    s
}

/// A session: [`H`], then `entries`, one a line.
pub fn session(entries: &[String]) -> String {
    format!("{H}\n{}", lines(entries))
}

/// A version-1 session (no ids: pi-migrate gives them): a header with
/// `id`, then a user message for each text.
pub fn v1_session(id: &str, texts: impl IntoIterator<Item = String>) -> String {
    let mut s = format!(
        r#"{{"type":"session","id":"{id}","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}}"#
    );
    s.push('\n');
    for text in texts {
        s.push_str(&format!(
            r#"{{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{}}}"#,
            user_message(&text)
        ));
        s.push('\n');
    }
    s
}
