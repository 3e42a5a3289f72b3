//! What names a branch in `--by branch` and `--leaf` rows: the label
//! nearest its leaf on its path, else the text of the last user message on
//! it; and which entry of the tree a `--leaf` REF is.
//!
//! A leaf that is bookkeeping (a label, a session name, a marker) gets the
//! name of the conversation above it, as every name is looked for from the
//! leaf up. Each entry's nearest label and user message are worked out once
//! ([`inherited`]): naming every leaf stays linear in the entries.

use crate::json::{js, Object};
use std::collections::HashMap;

/// How many characters of a label or a user message name a branch in the
/// table and the `branch` field.
const NAME_WIDTH: usize = 40;

/// No value (an index into nothing).
const NONE: u32 = u32::MAX;

/// Per entry of the tree (file order, as `FileUsage::tree`): what may
/// name a branch.
#[derive(Debug, Default)]
pub(crate) struct TreeText {
    /// each entry's line in the file
    lines: Vec<u64>,
    /// each entry's user message text, an index into `texts` (or NONE)
    user: Vec<u32>,
    texts: Vec<Box<str>>,
    /// label entries in file order: (targetId, the label; None clears it)
    labels: Vec<(String, Option<Box<str>>)>,
}

impl TreeText {
    /// Add the next entry of the tree, `obj` on line `line` (`message`:
    /// its message, when the quick check cut it out).
    pub(super) fn add(
        &mut self,
        line: u64,
        obj: &Object<'_>,
        message: Option<&Object<'_>>,
        fast: bool,
    ) {
        self.lines.push(line);
        let mut user = NONE;
        match obj.str("type").as_deref() {
            Some("message") => {
                let found;
                let m = match message {
                    Some(m) => Some(m),
                    None => {
                        found = crate::store::raw::sub_object(obj, "message", fast);
                        found.as_ref()
                    }
                };
                if let Some(m) = m.filter(|m| m.str("role").as_deref() == Some("user")) {
                    let text = crate::summary::message_text(m).unwrap_or_default();
                    user = u32::try_from(self.texts.len()).unwrap_or(NONE);
                    self.texts.push(text.into_boxed_str());
                }
            }
            Some("label") => {
                if let Some(target) = obj.str("targetId") {
                    // pi: `if (entry.label)` sets it (any truthy value,
                    // as text), anything else clears it
                    let label = obj
                        .raw("label")
                        .filter(|l| js::truthy(l))
                        .map(|l| js::string::string_value(l).into_boxed_str());
                    self.labels.push((target.into_owned(), label));
                }
            }
            _ => {}
        }
        self.user.push(user);
    }

    /// The entry of the tree on line `line`.
    pub(super) fn at_line(&self, line: u64) -> Option<usize> {
        self.lines.binary_search(&line).ok()
    }
}

/// What names one branch: the label nearest its leaf, the text of its
/// last user message.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Name<'f> {
    pub(super) label: Option<&'f str>,
    pub(super) last_user: Option<&'f str>,
}

impl Name<'_> {
    /// As the table shows it: the label, else the last user message, on
    /// one line (white space runs as one space), cut to [`NAME_WIDTH`]
    /// characters, control characters written visibly. A label `shared`
    /// with other rows (a fork below the labelled entry, or the same
    /// label on two entries) is followed by the last user message, so
    /// that the rows differ.
    pub(super) fn shown(&self, shared: bool) -> String {
        let both;
        let s = match (self.label, self.last_user) {
            (Some(l), Some(u)) if shared => {
                both = format!("{l}: {u}");
                Some(both.as_str())
            }
            (l, u) => l.or(u),
        };
        match s {
            Some(s) => crate::visible::text(&one_line(s)).into_owned(),
            None => String::new(),
        }
    }

    /// The row's fields beside its key: `label` and `lastUser`, whole.
    pub(super) fn fields(self) -> Vec<(&'static str, String)> {
        let mut v = Vec::new();
        if let Some(l) = self.label {
            v.push(("label", l.to_string()));
        }
        if let Some(u) = self.last_user {
            v.push(("lastUser", u.to_string()));
        }
        v
    }
}

/// `s` as `summary::one_line(s, NAME_WIDTH)` makes it (white space runs
/// as one space, cut with "…"), reading no further than it needs: many
/// leaves below one long message each read only its start.
fn one_line(s: &str) -> String {
    let mut out = String::new();
    let mut n = 0;
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if space {
            out.push(' ');
            n += 1;
            space = false;
        }
        if n >= NAME_WIDTH {
            out.push('…');
            return out;
        }
        out.push(c);
        n += 1;
    }
    out
}

/// The names of the paths of the entries of a tree (`tree`: each entry's
/// (id, parentId), `t` what it holds, `parent` each entry's parent, tree
/// indices): a function of the entry.
pub(super) fn names<'f>(
    tree: &[(String, Option<String>)],
    t: &'f TreeText,
    parent: &[Option<usize>],
) -> impl Fn(usize) -> Name<'f> + 'f {
    // the labels in force, as pi's map of them ends up
    let mut by_target: HashMap<&str, u32> = HashMap::new();
    for (k, (target, label)) in t.labels.iter().enumerate() {
        match label {
            Some(_) => by_target.insert(target, u32::try_from(k).unwrap_or(NONE)),
            None => by_target.remove(&target[..]),
        };
    }
    let label = inherited(parent, |i| {
        by_target.get(tree[i].0.as_str()).copied().unwrap_or(NONE)
    });
    let user = inherited(parent, |i| t.user.get(i).copied().unwrap_or(NONE));
    move |i| Name {
        label: label
            .get(i)
            .and_then(|&k| t.labels.get(k as usize))
            .and_then(|l| l.1.as_deref()),
        last_user: user
            .get(i)
            .and_then(|&k| t.texts.get(k as usize))
            .map(|s| &**s),
    }
}

/// For each entry, the nearest `own` value at or above it on its path
/// (NONE: none). Each entry is visited once: up the parents to an entry
/// already known, the root, or a cycle (whose entries take, when they have
/// none of their own, the first value found going round it).
fn inherited(parent: &[Option<usize>], own: impl Fn(usize) -> u32) -> Vec<u32> {
    const NEW: u8 = 0;
    const ON_STACK: u8 = 1;
    const DONE: u8 = 2;
    let n = parent.len();
    let mut state = vec![NEW; n];
    let mut near = vec![NONE; n];
    let mut stack: Vec<usize> = Vec::new();
    for start in 0..n {
        if state[start] == DONE {
            continue;
        }
        stack.clear();
        let mut above = NONE;
        let mut cur = Some(start);
        while let Some(i) = cur {
            if state[i] == DONE {
                above = near[i];
                break;
            }
            if state[i] == ON_STACK {
                let at = stack.iter().rposition(|&j| j == i).unwrap_or(0);
                let ring = stack[at..]
                    .iter()
                    .map(|&j| own(j))
                    .find(|&v| v != NONE)
                    .unwrap_or(NONE);
                for &j in &stack[at..] {
                    let o = own(j);
                    near[j] = if o != NONE { o } else { ring };
                    state[j] = DONE;
                }
                stack.truncate(at);
                above = near[i];
                break;
            }
            state[i] = ON_STACK;
            stack.push(i);
            cur = parent[i];
        }
        for &i in stack.iter().rev() {
            let o = own(i);
            if o != NONE {
                above = o;
            }
            near[i] = above;
            state[i] = DONE;
        }
    }
    near
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nearest value comes from the entry itself, else its parents;
    /// a cycle's entries take one of the cycle's.
    #[test]
    fn inherited_takes_the_nearest_value_above() {
        // 0 <- 1 <- 2 <- 3, 1 <- 4; a cycle 5 <-> 6 with 7 below it
        let parent = [
            None,
            Some(0),
            Some(1),
            Some(2),
            Some(1),
            Some(6),
            Some(5),
            Some(5),
        ];
        let own = [NONE, 10, NONE, 30, NONE, NONE, 60, NONE];
        let near = inherited(&parent, |i| own[i]);
        assert_eq!(near, [NONE, 10, 10, 30, 10, 60, 60, 60]);
    }

    /// The cut is `summary::one_line`'s.
    #[test]
    fn one_line_is_summarys() {
        let long = "b".repeat(39);
        for s in [
            "",
            "  a \n\t b  ",
            &"x".repeat(100),
            &format!("a {long} c"),
            &format!("{long}a c"),
            &format!("{long} c"),
            "日本語 \u{1b}[31m  é",
        ] {
            assert_eq!(
                one_line(s),
                crate::summary::one_line(s, NAME_WIDTH),
                "{s:?}"
            );
        }
    }
}
