//! Text from a session shown to people: every control character made
//! visible, one convention for every tool's text output and message.
//!
//! Session text holds web pages and tool output, and the tools decode JSON
//! escapes, so `\u001b` in a file would become a raw ESC on a terminal (OSC
//! 52 clipboard writes, screen clears, window titles, C1 controls, CR
//! overprinting), and `less -R` or a log replays it. So C0 controls (TAB,
//! LF and CR included), DEL and C1 controls are written as `\t`, `\n`,
//! `\r`, `\xNN` and `\u{NNNN}`, the way `pi-label --list` and every warning
//! write them. JSON output escapes them by itself and does not use this.

use std::borrow::Cow;

/// `s` with its control characters written visibly; backslashes stay as
/// they are (a row of text quotes code and paths; pi prints them as they are).
pub fn text(s: &str) -> Cow<'_, str> {
    escape(s, false)
}

/// A message to a person (a warning, an error): as [`text`], and the bytes
/// of a file name that are not UTF-8 (kept by [`crate::name::kept`]) as
/// `\xNN`, where output for programs writes them raw.
pub fn message(s: &str) -> Cow<'_, str> {
    match text(s) {
        Cow::Borrowed(b) => crate::name::shown(b),
        Cow::Owned(o) => Cow::Owned(crate::name::shown(&o).into_owned()),
    }
}

/// A line of text as pi-grep prints it: as [`text`], but a tab stays a
/// tab, as grep and ripgrep print it (it only moves the cursor, and code
/// and tool output are full of them).
pub fn line(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| c.is_control() && c != '\t') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for part in s.split('\t') {
        out.push_str(&text(part));
        out.push('\t');
    }
    out.pop();
    Cow::Owned(out)
}

/// `s` as one unambiguous field (a tab-separated column, a file name): as
/// [`text`], and a backslash written as `\\`.
pub fn field(s: &str) -> Cow<'_, str> {
    escape(s, true)
}

fn escape(s: &str, backslash: bool) -> Cow<'_, str> {
    if !s
        .chars()
        .any(|c| c.is_control() || (backslash && c == '\\'))
    {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\\' if backslash => out.push_str("\\\\"),
            c if (c as u32) < 0x80 && c.is_control() => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if c.is_control() => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_and_nothing_else_changes() {
        assert_eq!(text("plain \\ text é 中"), "plain \\ text é 中");
        assert_eq!(
            text("a\u{1b}]52;c;eA==\u{7}\r\t\n\u{7f}\u{9b}2J"),
            "a\\x1b]52;c;eA==\\x07\\r\\t\\n\\x7f\\u{009b}2J"
        );
        assert_eq!(field("a\\b\tc"), "a\\\\b\\tc");
        assert_eq!(line("\ta\tb\r\t"), "\ta\tb\\r\t");
    }
}
