//! Entry references (REF), the same in every tool:
//!
//! - a full id, or a unique id prefix of at least 4 characters;
//! - `leaf`: the last entry (pi's leaf after opening the file);
//! - `last`: the last conversation entry on the leaf's path;
//! - `user`: the last user message on the leaf's path;
//! - `root`: the root of the leaf's path;
//! - `@NAME`: the entry labelled NAME now;
//! - suffixes, chainable: `^` (one step up), `~N` (N steps, `~` = `~1`),
//!   e.g. `leaf~3`, `@plan^~2`.
//!
//! A step goes to the previous conversation entry (`message`,
//! `custom_message`, `branch_summary`, `compaction`: what puts something in
//! pi's context); bookkeeping (`label`, `session_info`, `context_edit`,
//! `custom`, `model_change`, `thinking_level_change`, `usage`, and any type
//! pi 1.6.0 does not know) is stepped over, so `leaf~1` is the message
//! before the last one whatever was appended after it. The steps start from
//! the first conversation entry at or above the base. After `user` a step
//! goes to the previous user message instead. No suffix (or `~0`) is the
//! base itself.

use crate::entry::{EntryType, Id};
use crate::error::{Error, Result};
use crate::path;
use crate::session::Session;

/// Shortest id prefix accepted.
const MIN_PREFIX: usize = 4;

/// A parsed reference: a base and a number of steps up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ref {
    pub base: Base,
    /// How many parents to walk up from the base.
    pub up: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Base {
    Leaf,
    /// The last conversation entry on the leaf's path.
    Last,
    /// The last user message on the leaf's path; steps count user messages.
    User,
    Root,
    Label(String),
    Id(String),
}

impl Ref {
    /// Parse REF text. Labels are matched whole first, so a label that
    /// itself ends in `^` or `~2` still resolves (see [`resolve`]).
    pub fn parse(text: &str) -> Result<Ref> {
        if text.is_empty() {
            return Err(Error::usage("empty entry reference"));
        }
        let split = text
            .char_indices()
            .filter(|&(_, c)| c == '^' || c == '~')
            .map(|(i, _)| i)
            .find(|&i| i > 0 && parse_suffixes(&text[i..]).is_some());
        let (base, up) = match split {
            Some(i) => (&text[..i], parse_suffixes(&text[i..]).unwrap_or(0)),
            None => (text, 0),
        };
        let base = match base {
            "leaf" => Base::Leaf,
            "last" => Base::Last,
            "user" => Base::User,
            "root" => Base::Root,
            b if b.starts_with('@') => {
                if b.len() == 1 {
                    return Err(Error::usage(format!("'{text}': '@' needs a label name")));
                }
                Base::Label(b[1..].to_string())
            }
            b => {
                if b.contains(['^', '~']) {
                    return Err(Error::usage(format!(
                        "'{text}': bad suffix (use ^ for one message up, ~N for N messages up)"
                    )));
                }
                Base::Id(b.to_string())
            }
        };
        Ok(Ref { base, up })
    }
}

/// `^`, `~`, `~N`, repeated; the total number of steps up.
fn parse_suffixes(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut up: u64 = 0;
    while i < b.len() {
        match b[i] {
            b'^' => {
                up = up.checked_add(1)?;
                i += 1;
            }
            b'~' => {
                i += 1;
                let start = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                let n: u64 = if start == i {
                    1
                } else {
                    s[start..i].parse().ok()?
                };
                up = up.checked_add(n)?;
            }
            _ => return None,
        }
    }
    Some(up)
}

/// Resolve REF text to an entry index of `session`.
pub fn resolve(session: &Session, text: &str) -> Result<usize> {
    // A label written whole wins over reading its tail as suffixes.
    if let Some(name) = text.strip_prefix('@') {
        if let Some(i) = label_target(session, name)? {
            return Ok(i);
        }
    }
    let r = Ref::parse(text)?;
    let base = match &r.base {
        // Zero steps from the leaf: the first entry at or above it that counts.
        Base::Last => return walk_up(session, leaf(session)?, r.up, Counts::Conversation, text),
        Base::User => return walk_up(session, leaf(session)?, r.up, Counts::User, text),
        Base::Leaf => leaf(session)?,
        Base::Root => path::root_of(session, leaf(session)?)?,
        Base::Label(name) => label_target(session, name)?.ok_or_else(|| {
            let known = label_list(session.index.labels.iter().map(|l| &*l.label));
            Error::request(
                &session.name,
                if known.is_empty() {
                    format!("no entry is labelled '{name}' (the session has no labels)")
                } else {
                    format!("no entry is labelled '{name}' (labels: {known})")
                },
            )
        })?,
        Base::Id(id) => by_id(session, id)?,
    };
    if r.up == 0 {
        return Ok(base);
    }
    walk_up(session, base, r.up, Counts::Conversation, text)
}

/// The entry pi builds a context from when handed the id of entry `i`
/// (`buildSessionPath`): none for `null` (an empty context), the last
/// entry for a falsy id (`0`, `false`, `""`, no id: `leaf ??=
/// entries[entries.length - 1]`), else `i`.
pub fn context_leaf(session: &Session, i: Option<usize>) -> Option<usize> {
    let i = i?;
    match session.entries.id(i) {
        Some(id) if id.is_null() => None,
        Some(id) if id.truthy() => Some(i),
        _ => session.index.leaf,
    }
}

/// Whether pi's `getBranch(id)` of entry `i`'s id is empty: a falsy id
/// (`0`, `false`, `""`, `null`) finds no start.
pub fn branch_is_empty(session: &Session, i: usize) -> bool {
    session.entries.id(i).is_some_and(|id| !id.truthy())
}

/// How many labels an error lists before "and N more".
const LABELS_LISTED: usize = 10;

/// The labels in force, for an error: each once, in file order, as a REF
/// names it (`@plan`; quoted, `'@my plan'`, when the shell would split it),
/// the first [`LABELS_LISTED`] and how many more.
fn label_list<'a>(labels: impl Iterator<Item = &'a str>) -> String {
    let mut seen = std::collections::HashSet::new();
    let unique: Vec<&str> = labels.filter(|l| seen.insert(*l)).collect();
    let mut shown: Vec<String> = unique
        .iter()
        .take(LABELS_LISTED)
        .map(|l| {
            let plain = l
                .chars()
                .all(|c| c.is_alphanumeric() || "-_.~^:+/,=%".contains(c));
            if plain {
                format!("@{l}")
            } else {
                format!("'@{}'", l.replace('\'', "'\\''"))
            }
        })
        .collect();
    if unique.len() > LABELS_LISTED {
        shown.push(format!("and {} more", unique.len() - LABELS_LISTED));
    }
    shown.join(", ")
}

/// The last entry: pi's leaf after opening the file.
pub fn leaf(session: &Session) -> Result<usize> {
    session
        .index
        .leaf
        .ok_or_else(|| Error::request(&session.name, "the session has no entries"))
}

fn label_target(session: &Session, name: &str) -> Result<Option<usize>> {
    let targets: Vec<&Id> = session
        .index
        .labels
        .iter()
        .filter(|l| &*l.label == name)
        .map(|l| &l.target)
        .collect();
    match targets.as_slice() {
        [] => Ok(None),
        [t] => session.index.get(t).map(Some).ok_or_else(|| {
            Error::request(
                &session.name,
                format!("label '{name}' is on entry {t}, which is not in the file"),
            )
        }),
        many => Err(Error::request(
            &session.name,
            format!(
                "label '{name}' is on several entries: {}",
                many.iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

fn by_id(session: &Session, text: &str) -> Result<usize> {
    if let Some(i) = session.index.get(&Id::new(text)) {
        return Ok(i);
    }
    // An id that is not a string (pi keys it by value): `1` (or `1.0`)
    // names the entry whose id is the number 1, `true` the one whose id is
    // true, when no string id says so.
    let b = text.as_bytes();
    if matches!(text, "true" | "false" | "null")
        || (matches!(b.first(), Some(b'-' | b'0'..=b'9')) && text.parse::<f64>().is_ok())
    {
        if let Some(i) = session.index.get(&Id::from_value(b)) {
            return Ok(i);
        }
    }
    if text.chars().count() < MIN_PREFIX {
        return Err(Error::request(
            &session.name,
            format!(
                "no entry has id '{text}' (an id prefix needs at least {MIN_PREFIX} characters)"
            ),
        ));
    }
    let mut matches: Vec<usize> = session
        .index
        .ids()
        .filter(|(id, _)| id.to_string().starts_with(text))
        .map(|(_, i)| i)
        .collect();
    matches.sort_unstable();
    match matches.as_slice() {
        [] => Err(Error::request(
            &session.name,
            format!("no entry has an id starting with '{text}'"),
        )),
        [one] => Ok(*one),
        many => {
            let list: Vec<String> = many
                .iter()
                .take(10)
                .map(|&i| {
                    let e = &session.entries[i];
                    format!(
                        "{} (line {}, {})",
                        session.entries.id_string(i),
                        e.line(),
                        session.type_name(i)
                    )
                })
                .collect();
            Err(Error::request(
                &session.name,
                format!(
                    "id prefix '{text}' is ambiguous: {} entries match: {}{}",
                    many.len(),
                    list.join(", "),
                    if many.len() > 10 { ", ..." } else { "" }
                ),
            ))
        }
    }
}

/// Which entries a step counts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Counts {
    /// Conversation entries ([`is_conversation`]).
    Conversation,
    /// User messages (`message` entries whose `message.role` is `user`).
    User,
}

/// Whether entry `i` is a conversation entry: one that puts something in
/// pi's context (`buildSessionContext`). Bookkeeping, and types pi does
/// not know (it ignores them), are stepped over.
pub fn is_conversation(session: &Session, i: usize) -> bool {
    matches!(
        session.entries[i].ty(),
        EntryType::Message
            | EntryType::CustomMessage
            | EntryType::BranchSummary
            | EntryType::Compaction
    )
}

/// Whether entry `i` is a user message, as pi's `/fork` sees one
/// (`type === "message" && message.role === "user"`).
fn is_user(session: &Session, i: usize) -> bool {
    if session.entries[i].ty() != EntryType::Message {
        return false;
    }
    let Ok(line) = session.raw_line(i) else {
        return false;
    };
    matches!(
        crate::json::Object::parse_line(&line),
        Ok(Some(o)) if o.object("message").and_then(|m| m.str("role")).as_deref() == Some("user")
    )
}

/// From entry `i`, the `up`-th entry that counts above the first one at or
/// above `i` (`up` 0: that first one).
fn walk_up(session: &Session, mut i: usize, up: u64, counts: Counts, text: &str) -> Result<usize> {
    let counted = |i: usize| match counts {
        Counts::Conversation => is_conversation(session, i),
        Counts::User => is_user(session, i),
    };
    // Entries passed, bookkeeping included: only a cycle makes the walk
    // longer than the file (path_to names it).
    let mut moves = 0u64;
    // Counted entries reached; the first is where the steps start.
    let mut reached = 0u64;
    loop {
        if counted(i) {
            if reached == up {
                return Ok(i);
            }
            reached += 1;
        }
        match session.index.parent_of(i) {
            Some(p) => {
                i = p;
                moves += 1;
                if moves > session.entries.len() as u64 {
                    return path::path_to(session, i).map(|_| i);
                }
            }
            None => return Err(past_root(session, i, up, reached, counts, text)),
        }
    }
}

/// The error of a walk that reached entry `i`, which has no parent, after
/// `reached` counted entries.
fn past_root(
    session: &Session,
    i: usize,
    up: u64,
    reached: u64,
    counts: Counts,
    text: &str,
) -> Error {
    let what = match counts {
        Counts::Conversation => {
            "conversation entry (message, custom_message, branch_summary, compaction)"
        }
        Counts::User => "user message",
    };
    let why = match session.entries.parent_id(i) {
        Some(pid) => format!("its parent {pid} is not in the file"),
        None => "it is a root".to_string(),
    };
    let msg = if reached == 0 {
        format!(
            "'{text}': no {what} on the path up to entry {} (line {}), which has no parent ({why})",
            session.entries.id_string(i),
            session.entries[i].line(),
        )
    } else {
        format!(
            "'{text}' walks past the root: entry {} (line {}) has no parent ({why}); {} of {up} steps taken",
            session.entries.id_string(i),
            session.entries[i].line(),
            reached - 1,
        )
    };
    Error::request(&session.name, msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_labels_once_quoted_and_capped() {
        let l = ["plan", "my plan", "plan", "it's"];
        assert_eq!(label_list(l.into_iter()), "@plan, '@my plan', '@it'\\''s'");
        let many: Vec<String> = (0..13).map(|i| format!("l{i}")).collect();
        assert_eq!(
            label_list(many.iter().map(|s| s.as_str())),
            "@l0, @l1, @l2, @l3, @l4, @l5, @l6, @l7, @l8, @l9, and 3 more"
        );
    }

    #[test]
    fn parses_suffixes() {
        assert_eq!(Ref::parse("leaf~3").unwrap().up, 3);
        assert_eq!(
            Ref::parse("@plan-a^").unwrap().base,
            Base::Label("plan-a".into())
        );
        assert_eq!(Ref::parse("@plan^~2").unwrap().up, 3);
        assert_eq!(Ref::parse("abcd^^~").unwrap().up, 3);
        assert_eq!(Ref::parse("abcd").unwrap().base, Base::Id("abcd".into()));
        assert!(Ref::parse("ab~x").is_err());
        assert!(Ref::parse("").is_err());
    }
}
