//! The second layer: a session pi opens, read as the library reads it
//! (pi's `_buildIndex`: ids, parents, the leaf), and what pi's tree walks
//! make of its ids and parents.

use super::*;
use crate::entry::talk::{Block, Class};
use crate::entry::{EntryType, Id};
use crate::json::Object;

pub(super) fn check(s: &Session, f: &mut Vec<Finding>) {
    ids(s, f);
    parents(s, f);
    cycles(s, f);
    references(s, f);
    null_arguments(s, f);
}

/// Tool calls, in any assistant message of the file, whose arguments are
/// null or missing (pi's /tree reads the raw entries, edits or not).
fn null_arguments(s: &Session, f: &mut Vec<Finding>) {
    use crate::entry::glance::{ROLE_TOOL_RESULT, ROLE_USER};
    let mut checker = Checker::new();
    // The load's roles (a current file's): a message it proved a user's
    // or a tool result's is no assistant's, and is not searched.
    let roles = (s.roles.len() == s.entries.len()
        && s.header.version >= crate::migrate::CURRENT_VERSION)
        .then_some(&s.roles[..]);
    for i in 0..s.entries.len() {
        if s.entries[i].ty() != EntryType::Message {
            continue;
        }
        if roles.is_some_and(|r| matches!(r[i], ROLE_USER | ROLE_TOOL_RESULT)) {
            continue;
        }
        let n = s.entries[i].line();
        // What the load read of the message, when it did: its tool calls.
        if let Some(msg) = super::talk::loaded(s, i) {
            if matches!(msg.class, Class::Assistant | Class::AssistantSkipped) {
                null_calls(s, i, &msg, f);
            }
            continue;
        }
        let Ok(line) = s.line(i) else { continue };
        // Only a line that may hold a tool call is parsed: one that names
        // it, or has a `\u` escape that could spell it.
        let find = |what: &'static [u8]| holds(&line, what);
        if !find(b"toolCall") && !find(b"\\u") {
            continue;
        }
        let Some((obj, strings)) = marked_object(&mut checker, &line) else {
            continue;
        };
        // valid JSON (the loader kept it): read by quotes and brackets
        let Some(msg) = crate::store::raw::sub_object_by(&obj, "message", strings) else {
            continue;
        };
        if msg.str("role").as_deref() != Some("assistant") {
            continue;
        }
        let Some(content) = msg.get("content").filter(|r| line[r.start] == b'[') else {
            continue;
        };
        let els = crate::store::raw::elements_by(&line, content, strings);
        let mut bad = Vec::new();
        let mut names = Vec::new();
        for (k, r) in els.into_iter().enumerate() {
            let b = crate::store::raw::object_by(&line, r.clone(), strings);
            if line[r.start] != b'{' || b.str("type").as_deref() != Some("toolCall") {
                continue;
            }
            if matches!(b.raw("arguments"), None | Some(b"null")) {
                bad.push(k);
                names.push(crate::visible::field(&b.str("name").unwrap_or_default()).into_owned());
            }
        }
        if !bad.is_empty() {
            f.push(
                Finding::new(
                    ARGUMENTS_NULL,
                    Some(n),
                    format!(
                        "tool call(s) {} without arguments (null or missing)",
                        names.join(", ")
                    ),
                )
                .id(id_of(s, i))
                .repair(Repair::EmptyArguments(n, bad)),
            );
        }
    }
}

/// [`null_arguments`] of the assistant message `msg` of entry `i`, as the
/// load read it.
fn null_calls(s: &Session, i: usize, msg: &crate::entry::talk::Msg, f: &mut Vec<Finding>) {
    let mut bad = Vec::new();
    let mut names = Vec::new();
    for (k, b) in &msg.blocks {
        if let Block::ToolCall {
            name,
            null_args: true,
            ..
        } = b
        {
            bad.push(*k);
            names.push(crate::visible::field(name).into_owned());
        }
    }
    if !bad.is_empty() {
        let n = s.entries[i].line();
        f.push(
            Finding::new(
                ARGUMENTS_NULL,
                Some(n),
                format!(
                    "tool call(s) {} without arguments (null or missing)",
                    names.join(", ")
                ),
            )
            .id(id_of(s, i))
            .repair(Repair::EmptyArguments(n, bad)),
        );
    }
}

/// The id of entry `i` for a finding.
fn id_of(s: &Session, i: usize) -> String {
    s.entries.id_string(i)
}

/// Entries without an id or a type, and ids on two entries.
fn ids(s: &Session, f: &mut Vec<Finding>) {
    for i in 0..s.entries.len() {
        let e = &s.entries[i];
        if e.ty() == EntryType::Session {
            continue;
        }
        let line = Some(e.line());
        match s.entries.id(i) {
            Some(Id::Hex8(_) | Id::Other(_)) => {}
            _ => f.push(Finding::new(NO_ID, line, "an entry without a string id")),
        }
        if e.ty() == EntryType::None {
            f.push(Finding::new(NO_TYPE, line, "an entry without a type").id(id_of(s, i)));
        }
        if s.index.ids_unique() {
            continue;
        }
        if let Some(id) = s
            .entries
            .id(i)
            .filter(|id| matches!(id, Id::Hex8(_) | Id::Other(_)))
        {
            if let Some(kept) = s.index.get(&id).filter(|&k| k != i) {
                f.push(
                    Finding::new(
                        DUPLICATE_ID,
                        line,
                        format!(
                            "id {} is also on line {}, which pi keeps",
                            id_of(s, i),
                            s.entries[kept].line()
                        ),
                    )
                    .id(id_of(s, i)),
                );
            }
        }
    }
}

/// Parents that name no entry, entries that are their own parent, roots.
fn parents(s: &Session, f: &mut Vec<Finding>) {
    let mut roots = 0usize;
    for i in 0..s.entries.len() {
        let e = &s.entries[i];
        if e.ty() == EntryType::Session {
            continue;
        }
        let line = Some(e.line());
        if s.entries.is_own_parent(i) {
            f.push(
                Finding::new(
                    OWN_PARENT,
                    line,
                    format!("entry {} is its own parent", id_of(s, i)),
                )
                .id(id_of(s, i))
                .repair(Repair::NullParent(e.line())),
            );
            continue;
        }
        match s.entries.parent_id(i) {
            None => {
                roots += 1;
                if roots == 2 {
                    f.push(
                        Finding::new(
                            SEVERAL_ROOTS,
                            line,
                            format!("a second root (entry {} has no parent)", id_of(s, i)),
                        )
                        .id(id_of(s, i)),
                    );
                }
            }
            Some(p) if s.index.get(&p).is_none() => f.push(
                Finding::new(
                    DANGLING_PARENT,
                    line,
                    format!(
                        "entry {} names parent {p}, which is not in the file",
                        id_of(s, i)
                    ),
                )
                .id(id_of(s, i)),
            ),
            Some(_) => {}
        }
    }
}

/// `parentId` cycles of two entries or more (one is [`OWN_PARENT`]): each
/// once, broken where pi's walk from the leaf would first come back to an
/// entry it has seen, else (no leaf reaches it) at its last entry in the file.
fn cycles(s: &Session, f: &mut Vec<Finding>) {
    let n = s.entries.len();
    // 0 not seen, 1 on the walk being made, 2 done.
    let mut state = vec![0u8; n];
    let mut order = Vec::new();
    for start in s.index.leaf.into_iter().chain(0..n) {
        order.clear();
        let mut cur = start;
        while state[cur] == 0 {
            state[cur] = 1;
            order.push(cur);
            match s.index.parent_of(cur) {
                Some(p) if p != cur => cur = p,
                _ => break,
            }
        }
        if state[cur] == 1
            && s.index.parent_of(cur).is_some_and(|p| p != cur)
            && order.contains(&cur)
        {
            // The cycle is order[k..], k where cur first is; the walk came
            // back to cur from the last entry of the walk.
            let k = order.iter().position(|&x| x == cur).unwrap_or(0);
            let members = &order[k..];
            let close = if start == s.index.leaf.unwrap_or(usize::MAX) {
                *members.last().unwrap_or(&cur)
            } else {
                members
                    .iter()
                    .copied()
                    .max_by_key(|&m| s.entries[m].line())
                    .unwrap_or(cur)
            };
            let lines: Vec<String> = members
                .iter()
                .map(|&m| s.entries[m].line().to_string())
                .collect();
            let e = &s.entries[close];
            f.push(
                Finding::new(
                    CYCLE,
                    Some(e.line()),
                    format!(
                        "a parentId cycle through lines {}; broken here",
                        lines.join(", ")
                    ),
                )
                .id(id_of(s, close))
                .repair(Repair::NullParent(e.line())),
            );
        }
        for &x in &order {
            state[x] = 2;
        }
    }
}

/// Labels, context edits, compactions and branch summaries whose
/// references name nothing (or nothing they can use).
fn references(s: &Session, f: &mut Vec<Finding>) {
    for i in 0..s.entries.len() {
        let ty = s.entries[i].ty();
        if !matches!(
            ty,
            EntryType::Label
                | EntryType::ContextEdit
                | EntryType::Compaction
                | EntryType::BranchSummary
        ) {
            continue;
        }
        let n = s.entries[i].line();
        let Ok(line) = s.line(i) else { continue };
        let Ok(obj) = s.object(&line, n) else {
            continue;
        };
        let target = |key: &str| obj.raw(key).map(Id::from_value);
        let found = |id: &Option<Id>| id.as_ref().and_then(|id| s.index.get(id));
        let shown = |key: &str| {
            obj.raw(key)
                .map(|v| String::from_utf8_lossy(v).into_owned())
                .unwrap_or_else(|| "undefined".into())
        };
        let at = Some(n);
        match ty {
            EntryType::Label => {
                if found(&target("targetId")).is_none() {
                    f.push(
                        Finding::new(
                            LABEL_TARGET_MISSING,
                            at,
                            format!("a label of {}, which is not in the file", shown("targetId")),
                        )
                        .id(id_of(s, i)),
                    );
                }
            }
            EntryType::ContextEdit => match found(&target("targetId")) {
                None => f.push(
                    Finding::new(
                        EDIT_TARGET_MISSING,
                        at,
                        format!(
                            "a context_edit of {}, which is not in the file",
                            shown("targetId")
                        ),
                    )
                    .id(id_of(s, i)),
                ),
                Some(t) if !editable(s, t) => f.push(
                    Finding::new(
                        EDIT_TARGET_NOT_EDITABLE,
                        at,
                        format!(
                            "a context_edit of line {} ({}), which has no editable content",
                            s.entries[t].line(),
                            s.type_name(t)
                        ),
                    )
                    .id(id_of(s, i)),
                ),
                Some(_) => {}
            },
            EntryType::Compaction => first_kept(s, i, &obj, f),
            _ => {
                let from = target("fromId");
                if from.as_ref().is_some_and(|id| id.to_string() != "root")
                    && found(&from).is_none()
                {
                    f.push(
                        Finding::new(
                            FROM_ID_MISSING,
                            at,
                            format!(
                                "a branch summary from {}, which is not in the file",
                                shown("fromId")
                            ),
                        )
                        .id(id_of(s, i)),
                    );
                }
            }
        }
    }
}

/// Whether pi's `appendContextEdit` takes entry `t` as a target.
fn editable(s: &Session, t: usize) -> bool {
    match s.entries[t].ty() {
        EntryType::CustomMessage => true,
        EntryType::Message => matches!(
            crate::context::message_role(s, t).ok().flatten().as_deref(),
            Some("user" | "assistant" | "toolResult")
        ),
        _ => false,
    }
}

/// A compaction's `firstKeptEntryId` is on its path (or is itself: pi's
/// "keep nothing").
fn first_kept(s: &Session, i: usize, obj: &Object<'_>, f: &mut Vec<Finding>) {
    let Some(kept) = obj.raw("firstKeptEntryId").map(Id::from_value) else {
        return;
    };
    if s.entries.id(i).as_ref() == Some(&kept) {
        return;
    }
    let Ok(path) = crate::path::path_to(s, i) else {
        return;
    };
    if !path
        .iter()
        .any(|&p| p != i && s.entries.id(p).as_ref() == Some(&kept))
    {
        f.push(
            Finding::new(
                FIRST_KEPT_NOT_ON_PATH,
                Some(s.entries[i].line()),
                format!("the compaction keeps from {kept}, which is not on its path"),
            )
            .id(id_of(s, i)),
        );
    }
}
