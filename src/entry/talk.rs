//! What `pi-check`'s conversation and tree layers need of a `message`
//! entry ([`Msg`]): how transformMessages treats it (its [`Class`]), a
//! tool result's call id, and the content blocks the checks look at (tool
//! calls, images). Read from a line already proven to be JSON, on the
//! loading thread while the line is at hand
//! ([`crate::session::ReadOptions::talk`]), so that no message line is
//! read twice; or by the checks themselves for a line the load did not
//! read this way.

use crate::json::scan::Member;
use crate::json::Object;
use crate::store::raw::{self, Strings};

/// The image size limit of `pi-check`'s image-too-large, decoded bytes:
/// Anthropic's 5 MB per image (OpenAI and Google take 20 MB).
pub const IMAGE_LIMIT: u64 = 5 * 1024 * 1024;

/// How transformMessages treats a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Class {
    /// Any other role (user, custom, summaries, ...), no role, or a
    /// message that is not an object: it closes the pending calls.
    #[default]
    User,
    Assistant,
    /// An assistant message stopped by an error or aborted: pi skips it.
    AssistantSkipped,
    ToolResult,
    System,
    /// A `bashExecution` message with `excludeFromContext: true`.
    ExcludedBash,
}

/// What the checks need of one message.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Msg {
    pub class: Class,
    /// A tool result's `toolCallId` (a string); None for any other class.
    pub call_id: Option<String>,
    /// The content's blocks the checks look at, each with its index in
    /// the content (a repair names them by index).
    pub blocks: Vec<(usize, Block)>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    ToolCall {
        id: String,
        name: String,
        /// The arguments are null or missing.
        null_args: bool,
        /// The JSON text of arguments that are neither an object nor null.
        odd_args: Option<Vec<u8>>,
    },
    /// An image: its data's length, decoded, when that may be over the
    /// limit (else 0).
    Image(u64),
}

/// Whether `hay` holds `needle`, by a searcher made once (memmem::find
/// makes one a call, which costs more than the search on a short line).
pub fn holds(hay: &[u8], needle: &'static [u8]) -> bool {
    use memchr::memmem::Finder;
    use std::sync::LazyLock;
    static FINDERS: LazyLock<[Finder<'static>; 4]> = LazyLock::new(|| {
        [
            Finder::new(b"toolCall"),
            Finder::new(b"\\u"),
            Finder::new(b"\"toolCall\""),
            Finder::new(b"\"image\""),
        ]
    });
    match FINDERS.iter().find(|f| f.needle() == needle) {
        Some(f) => f.find(hay).is_some(),
        None => memchr::memmem::find(hay, needle).is_some(),
    }
}

/// Whether the string value `key` of `m` is one of `want` (decoded as
/// JSON.parse would; a value with no backslash is compared as it is): its
/// index in `want`.
fn which(m: &Object<'_>, key: &str, want: &[&str]) -> Option<usize> {
    let r = m.get(key)?;
    let v = &m.text[r.clone()];
    if v.first() != Some(&b'"') || v.len() < 2 {
        return None;
    }
    if !v.contains(&b'\\') {
        let inner = &v[1..v.len() - 1];
        return want.iter().position(|w| inner == w.as_bytes());
    }
    let d = crate::json::js::escape::decode_string(m.text, r);
    want.iter().position(|w| d == *w)
}

impl Msg {
    /// The message entry `obj`'s (a line known to be valid JSON, its
    /// strings skipped by `strings`): a message that is not an object has
    /// no role (a user-side one to transformMessages).
    pub fn of_entry(obj: &Object<'_>, strings: Strings<'_>) -> Msg {
        Msg::of_entry_in(obj, strings, &mut Vec::new())
    }

    /// [`Msg::of_entry`], the message's members found into `spare` (kept
    /// for the next: no allocation a line).
    pub fn of_entry_in(obj: &Object<'_>, strings: Strings<'_>, spare: &mut Vec<Member>) -> Msg {
        let Some(r) = obj.get("message").filter(|r| obj.text[r.start] == b'{') else {
            return Msg::default();
        };
        let mut members = std::mem::take(spare);
        raw::members_by(obj.text, r.clone(), &mut members, strings);
        let m = Object {
            text: obj.text,
            range: r,
            members,
        };
        let msg = Msg::of(&m, strings);
        *spare = m.members;
        msg
    }

    /// The message object `m`'s.
    pub fn of(m: &Object<'_>, strings: Strings<'_>) -> Msg {
        const ROLES: &[&str] = &["assistant", "toolResult", "system", "bashExecution"];
        let class = match which(m, "role", ROLES) {
            Some(0) => match which(m, "stopReason", &["error", "aborted"]) {
                Some(_) => Class::AssistantSkipped,
                None => Class::Assistant,
            },
            Some(1) => Class::ToolResult,
            Some(2) => Class::System,
            Some(3) if m.raw("excludeFromContext") == Some(b"true") => Class::ExcludedBash,
            _ => Class::User,
        };
        let mut msg = Msg {
            class,
            call_id: None,
            blocks: Vec::new(),
        };
        if class == Class::ToolResult {
            msg.call_id = m.str("toolCallId").map(|v| v.into_owned());
        }
        let t = m.text;
        let Some(content) = m.get("content").filter(|r| t[r.start] == b'[') else {
            return msg;
        };
        // With the checker's quote bits a block's members are found without
        // reading its strings: every block is looked at. Without them, only
        // a content that names a tool call or an image (or has a `\u` escape
        // that could spell one) holds a block the checks look at, and any
        // other is not walked block by block.
        if let Strings::Memchr = strings {
            let c = &t[content.clone()];
            if !holds(c, b"\"toolCall\"") && !holds(c, b"\"image\"") && !holds(c, b"\\u") {
                return msg;
            }
        }
        let mut members = Vec::new();
        for (k, r) in raw::elements_by(t, content, strings)
            .into_iter()
            .enumerate()
        {
            if t[r.start] != b'{' {
                continue;
            }
            raw::members_by(t, r.clone(), &mut members, strings);
            let b = Object {
                text: t,
                range: r,
                members,
            };
            if let Some(block) = block(&b) {
                msg.blocks.push((k, block));
            }
            members = b.members;
        }
        msg
    }
}

/// A content block the checks look at (None: any other).
fn block(b: &Object<'_>) -> Option<Block> {
    let t = b.text;
    match which(b, "type", &["toolCall", "image"])? {
        0 => {
            let args = b.raw("arguments");
            Some(Block::ToolCall {
                id: b.str("id").unwrap_or_default().into_owned(),
                name: b.str("name").unwrap_or_default().into_owned(),
                null_args: matches!(args, None | Some(b"null")),
                odd_args: args
                    .filter(|a| a.first() != Some(&b'{') && *a != b"null")
                    .map(<[u8]>::to_vec),
            })
        }
        _ => Some(Block::Image(match b.get("data") {
            // Decoded, a string is no longer than its JSON text.
            Some(d) if t[d.start] == b'"' && (d.len() as u64 - 2) / 4 * 3 > IMAGE_LIMIT => {
                crate::json::js::decode_string(t, d).len() as u64 / 4 * 3
            }
            _ => 0,
        })),
    }
}

/// What the load keeps of the message entries
/// ([`crate::session::Session::talk`]): a byte an entry (its class, or
/// none when the load did not read it this way: no message, or a line not
/// in the quick form, which the checks read again), and the messages with
/// a call id or a block, by entry index. A million short messages cost a
/// megabyte, not a `Msg` each.
#[derive(Debug, Default)]
pub struct Talk {
    /// 0: not read; else the class's index + 1.
    classes: Vec<u8>,
    /// (entry index, its message), in entry order.
    details: Vec<(u32, Msg)>,
}

const CLASSES: [Class; 6] = [
    Class::User,
    Class::Assistant,
    Class::AssistantSkipped,
    Class::ToolResult,
    Class::System,
    Class::ExcludedBash,
];

impl Talk {
    /// The next entry: its message, when the load read one.
    pub fn push(&mut self, msg: Option<Msg>) {
        let at = self.classes.len() as u32;
        let Some(msg) = msg else {
            self.classes.push(0);
            return;
        };
        let k = CLASSES.iter().position(|&c| c == msg.class).unwrap_or(0);
        self.classes.push(k as u8 + 1);
        if msg.call_id.is_some() || !msg.blocks.is_empty() {
            self.details.push((at, msg));
        }
    }

    /// Those of `tail`, the entries after these.
    pub fn append(&mut self, tail: Talk) {
        let at = self.classes.len() as u32;
        self.classes.extend(tail.classes);
        self.details
            .extend(tail.details.into_iter().map(|(i, m)| (i + at, m)));
    }

    /// How many entries it covers.
    pub fn len(&self) -> usize {
        self.classes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }

    /// The message of entry `i`, when the load read it.
    pub fn get(&self, i: usize) -> Option<std::borrow::Cow<'_, Msg>> {
        let class = *CLASSES.get(usize::from(*self.classes.get(i)?).checked_sub(1)?)?;
        let at = u32::try_from(i).ok()?;
        match self.details.binary_search_by_key(&at, |m| m.0) {
            Ok(k) => Some(std::borrow::Cow::Borrowed(&self.details[k].1)),
            Err(_) => Some(std::borrow::Cow::Owned(Msg {
                class,
                call_id: None,
                blocks: Vec::new(),
            })),
        }
    }
}
