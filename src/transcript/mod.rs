//! Transcripts people can read: a list of AgentMessages rendered as
//! Markdown, a self-contained HTML page, or plain `role: text` lines.
//!
//! Messages are first turned into [`Turn`]s (what to show, the model held
//! here; [`build`] makes them), then written in one of the [`Format`]s,
//! one file a format (`markdown`, `html`, `text`), each self-contained and
//! sharing only the model and the few helpers here. Output depends only on
//! the input (no clock). [`write_branch`] (`branch`) streams the whole
//! branch of a session through the same builder and renderers, a group of
//! messages at a time, with marks between turns.

mod branch;
mod build;
mod html;
mod markdown;
mod pretty;
mod text;

pub use branch::{source_of, write_branch, write_sent};
pub use build::build;
pub use pretty::pretty;
use pretty::pretty_canonical;

use std::io::Write;

/// One message as read: its JSON text and the input line it comes from.
#[derive(Debug, Clone)]
pub struct Source {
    pub json: Vec<u8>,
    pub line: u64,
    /// How the model sees it (context edits, checkpoints; pi 1.x).
    pub view: View,
}

impl Source {
    /// A message the model sees as it is.
    pub fn sent(json: Vec<u8>, line: u64) -> Source {
        Source {
            json,
            line,
            view: View::Sent,
        }
    }
}

/// What a [`Source`] is to the model.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum View {
    /// Sent as it is.
    #[default]
    Sent,
    /// The system prompt a compaction stored (its checkpoint).
    Checkpoint,
    /// Sent with the content a context edit (id) gave it; `original` is
    /// the message before the edit.
    Edited { edit: String, original: Vec<u8> },
    /// Left out of what the model sees by a context edit (id); `json` is
    /// the message as it was.
    Omitted { edit: String },
    /// `json` is a `usage` entry (pi 1.x): model use outside the context.
    Usage,
}

/// What the transcript is about, shown at its top.
#[derive(Debug, Clone, Default)]
pub struct Meta {
    pub title: String,
    /// (name, value) pairs: session id, cwd, leaf, ...
    pub fields: Vec<(String, String)>,
}

/// A mark between turns of a whole-branch transcript: a model or
/// thinking-level change, a label, a name, a context edit, a compaction.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    /// What it is ("model", "label", "compaction", ...).
    pub kind: &'static str,
    /// What it says (cleaned).
    pub text: String,
    pub time: Option<String>,
    /// Set apart (a compaction): a rule before it in Markdown.
    pub rule: bool,
}

/// How to build the transcript.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Show `bashExecution` messages excluded from context (`!!`), marked.
    pub include_hidden: bool,
}

/// The readable formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Html,
    Text,
}

/// One section of the transcript: a message, with its tool results.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The role as shown ("user", "assistant", "bash", "custom: TYPE", ...).
    pub role: String,
    /// A short class name: user, assistant, tool, bash, summary, custom, other.
    pub class: &'static str,
    pub time: Option<String>,
    pub model: Option<String>,
    /// The entry's id (whole-branch transcripts: for `--leaf`, `pi-fork --at`).
    pub id: Option<String>,
    /// Things to notice: errors, aborts, exit codes, exclusion.
    pub notes: Vec<Note>,
    pub parts: Vec<Part>,
}

/// A remark on a turn; `error` ones are shown as errors.
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    pub text: String,
    pub error: bool,
}

/// A piece of a turn.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(String),
    Thinking {
        text: String,
        redacted: bool,
    },
    Image {
        mime: String,
        bytes: usize,
    },
    ToolCall {
        name: String,
        id: String,
        args: Args,
        result: Option<ToolResult>,
    },
    /// A tool result with no call before it.
    ToolResult(ToolResult),
    /// A shell command (of a bash execution).
    Shell(String),
    /// Output of a command; None = no output.
    Output(Option<String>),
    /// A value shown as (pretty) JSON.
    Json(String),
    /// What the message said before a context edit changed it.
    Original(Vec<Part>),
}

/// The arguments of a tool call, shown by kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Args {
    /// A shell command, and the other arguments as JSON (if any).
    Shell(String, Option<String>),
    /// A file path, and the other arguments as JSON (if any).
    Path(String, Option<String>),
    Json(String),
}

/// A tool's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub name: String,
    pub is_error: bool,
    pub time: Option<String>,
    pub parts: Vec<Part>,
}

impl Args {
    /// Show the arguments with a renderer's three ways: `shell` for a
    /// shell command, `path` for a file path, `json` for the (other)
    /// arguments as JSON, which follow the command or the path when there
    /// are any. Every format shows arguments in this order.
    fn show(
        &self,
        s: &mut String,
        shell: impl Fn(&mut String, &str),
        path: impl Fn(&mut String, &str),
        json: impl Fn(&mut String, &str),
    ) {
        let rest = match self {
            Args::Shell(c, rest) => {
                shell(s, c);
                rest
            }
            Args::Path(p, rest) => {
                path(s, p);
                rest
            }
            Args::Json(j) => return json(s, j),
        };
        if let Some(r) = rest {
            json(s, r);
        }
    }
}

/// Make a string safe to show: control characters other than newline and
/// tab written as every tool writes them (`\x1b`, `\r`, `\x7f`, `\u{009b}`,
/// visible.rs); CR LF becomes LF. Newlines and tabs stay: they are the
/// layout of message text and code.
pub fn clean(s: &str) -> String {
    // Most text holds nothing to clean: copied at once, not a character
    // at a time (cleaning was a fifth of a long transcript's time).
    cleaned(s).into_owned()
}

/// [`clean`] of a decoded string, kept without a copy when it holds
/// nothing to clean (most message text: a copy per part was a tenth of a
/// long transcript's building).
pub fn clean_cow(s: std::borrow::Cow<'_, str>) -> String {
    match s {
        std::borrow::Cow::Owned(o) if first_control(o.as_bytes()).is_none() => o,
        s => clean(&s),
    }
}

/// Append `s` to `out` with [`clean`] applied: the runs between control
/// characters are copied whole, only the controls a character at a time.
fn clean_into(out: &mut String, mut s: &str) {
    while let Some(p) = first_control(s.as_bytes()) {
        out.push_str(&s[..p]);
        // `p` starts a character: a byte under 0x80 or 0xC2 (a C1 control).
        let c = s[p..].chars().next().unwrap_or('\0');
        let next = p + c.len_utf8();
        if !(c == '\r' && s.as_bytes().get(next) == Some(&b'\n')) {
            out.push_str(&crate::visible::text(c.encode_utf8(&mut [0; 4])));
        }
        s = &s[next..];
    }
    out.push_str(s);
}

/// Where the first control character other than newline and tab starts
/// (C0, DEL, C1), if any.
fn first_control(b: &[u8]) -> Option<usize> {
    // Bytes, 64 at a time without an early exit, so that a release build
    // uses vector instructions: the whole transcript is scanned (under
    // 0.02 s of 0.5 s for 47 MB of text). 0xC2 leads every C1 control,
    // and a few letters (U+00A0 to U+00BF): a block that may hold one is
    // then looked at a byte at a time.
    let odd = |b: u8| {
        ((b < 0x20) as u8 & (b != b'\n') as u8 & (b != b'\t') as u8)
            | (b == 0x7f) as u8
            | (b == 0xc2) as u8
    };
    let control = |i: usize| match b[i] {
        b'\n' | b'\t' => false,
        0..=0x1f | 0x7f => true,
        0xc2 => matches!(b.get(i + 1), Some(0x80..=0x9f)),
        _ => false,
    };
    let mut at = 0;
    for block in b.chunks(64) {
        if block.iter().fold(0u8, |a, &c| a | odd(c)) != 0 {
            if let Some(i) = (at..at + block.len()).find(|&i| control(i)) {
                return Some(i);
            }
        }
        at += block.len();
    }
    None
}

/// `s` with [`clean`] applied where it may hold a control character other
/// than newline and tab (most text holds none: no copy).
fn cleaned(s: &str) -> std::borrow::Cow<'_, str> {
    match first_control(s.as_bytes()) {
        None => std::borrow::Cow::Borrowed(s),
        Some(p) => {
            let mut out = String::with_capacity(s.len() + 16);
            out.push_str(&s[..p]);
            clean_into(&mut out, &s[p..]);
            std::borrow::Cow::Owned(out)
        }
    }
}

/// A byte count as people read it: `N B`, `N.N KiB`, `N.N MiB`.
fn human_size(n: usize) -> String {
    if n < 1024 {
        format!("{n} B")
    } else if n < 1024 * 1024 {
        format!("{:.1} KiB", n as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", n as f64 / (1024.0 * 1024.0))
    }
}

/// Write the turns in `format`.
pub fn write(
    format: Format,
    meta: &Meta,
    turns: &[Turn],
    out: &mut impl Write,
) -> std::io::Result<()> {
    let mut s = String::new();
    match format {
        Format::Markdown => markdown::render(&mut s, meta, turns),
        Format::Html => html::render(&mut s, meta, turns),
        Format::Text => text::render(&mut s, turns),
    }
    // The last guard: whatever a builder let through (a raw number token, a
    // field read without clean) is shown, not written raw. The renderers
    // write no control character but newline.
    out.write_all(cleaned(&s).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    #[test]
    fn cleaning() {
        assert_eq!(clean("a\u{1b}[0m\r\nb\tc\rd"), "a\\x1b[0m\nb\tc\\rd");
        assert_eq!(clean("a\u{9b}2J\u{7f}\0"), "a\\u{009b}2J\\x7f\\x00");
    }

    /// Cleaning a character at a time, as it was written first.
    fn clean_reference(s: &str) -> String {
        let mut out = String::new();
        let mut it = s.chars().peekable();
        while let Some(c) = it.next() {
            match c {
                '\n' | '\t' => out.push(c),
                '\r' if it.peek() == Some(&'\n') => {}
                c if c.is_control() => {
                    out.push_str(&crate::visible::text(c.encode_utf8(&mut [0; 4])))
                }
                c => out.push(c),
            }
        }
        out
    }

    #[test]
    fn cleaning_runs_equals_cleaning_each_character() {
        let pieces = [
            "x", "\r", "\n", "\r\n", "\t", "\u{1b}", "\u{7f}", "\u{85}", "\u{9f}", "\u{a0}",
            "\u{bf}", "é", "€", "\0", "😀",
        ];
        let mut next = crate::test_rng::xorshift(17);
        for _ in 0..3000 {
            let n = next() % 200;
            let s: String = (0..n)
                .map(|_| pieces[next() as usize % pieces.len()])
                .collect();
            assert_eq!(clean(&s), clean_reference(&s), "{s:?}");
        }
    }

    #[test]
    fn the_last_guard_finds_every_control() {
        let long = "x".repeat(100);
        assert!(matches!(
            cleaned(&format!("{long}é\n\t{long}")),
            Cow::Borrowed(_)
        ));
        for at in [0, 63, 64, 70, 128, 199] {
            for c in ['\u{1b}', '\u{7f}', '\u{9b}', '\u{85}', '\r'] {
                let mut s = "x".repeat(200);
                s.insert(at, c);
                let got = cleaned(&s);
                assert!(!got.chars().any(|c| c.is_control()), "{at} {c:?}: {got}");
            }
        }
    }
}
