//! The display list of pi's /tree (`TreeSelectorComponent`'s `TreeList`):
//! the tree flattened with the branch holding the active leaf first, the
//! active path, and the rows a filter and a search let through.

use super::{Filter, Options};
use crate::entry::glance::{
    glance, info_of, message_at, Glance, MESSAGE_KEY, MSG_BAD_STOP, MSG_CALLS, MSG_HAS_TEXT,
    MSG_NONE, MSG_ROLE, ROLE_ASSISTANT, ROLE_TOOL_RESULT, ROLE_USER,
};
use crate::entry::{EntryType, Id};
use crate::error::{Error, Result};
use crate::json::{js, Object};
use crate::render::batches;
use crate::render::lines::{line_source, LineSource};
use crate::search::tree_text::{searchable, Display, Query, Seg};
use crate::session::Session;
use crate::tree::{Step, Tree};
use std::fs::File;
use std::ops::Range;

/// The flat display list, as `TreeList` holds it.
pub(super) struct View<'s> {
    pub(super) s: &'s Session,
    pub(super) tree: Tree,
    /// Nodes in flattenTree order, with their depth in the tree.
    pub(super) flat: Vec<(usize, usize)>,
    pub(super) active: Vec<bool>,
    /// What [`View::visible`] needs of each message entry ([`msg_info`]),
    /// found while the tool calls are: 0 where not known.
    msg_info: Vec<u8>,
    /// Where each message entry's `message` object stands in its line
    /// ([`message_at`]; (0, 0): not known).
    msg_at: Vec<(u32, u32)>,
    /// The session file opened again ([`View::lines`]).
    file: Option<File>,
    /// For [`View::object`].
    checker: std::sync::Mutex<js::check::Checker>,
    /// What the display text needs besides the entry (the tool calls).
    text: Display,
    leaf: Option<usize>,
    /// The tree with the active branch first (flattenTree's order).
    pub(super) ordered: Tree,
    /// The first `message` entry in the tree without a message: pi's
    /// `/tree` fails on it (`entry.message.role`), so the text view does.
    pub(super) no_message: Option<usize>,
}

/// [`msg_info`] of the entry parsed as `obj`.
fn msg_info(obj: &Object<'_>) -> u8 {
    info_of(obj.object("message").as_ref())
}

/// Set in [`View::msg_info`] where the rest is known.
const MSG_KNOWN: u8 = 0x80;

/// What the quick pass finds of an entry of the display list.
enum First {
    /// Not a message.
    Skip,
    /// A line the quick read does not take: the plain way.
    Again,
    /// Its [`glance`].
    Found { info: u8, at: (u32, u32) },
}

/// The quick pass's look at entry `i`: a compact line's members as
/// [`js::check::Checker::valid_object`] finds them (no fallback: the plain way
/// is taken on the main thread).
fn first_look(
    c: &mut js::check::Checker,
    s: &Session,
    i: usize,
    src: &mut dyn LineSource,
) -> Result<First> {
    if s.entries[i].ty() != EntryType::Message {
        return Ok(First::Skip);
    }
    let line = src.line(i)?;
    let Some(members) = c.valid_object(&line) else {
        return Ok(First::Again);
    };
    let obj = Object {
        text: &line,
        range: 0..line.len(),
        members: members.to_vec(),
    };
    let strings = crate::store::raw::Strings::Marks(c.marks());
    let Glance { info, at } = glance(&obj, strings, &mut Vec::new());
    Ok(First::Found { info, at })
}

/// [`Session::object`], the quick way first: a compact line's members as
/// [`js::check::Checker::valid_object`] finds them (the scanner's, in a quicker
/// pass), as the load reads it.
fn quick_object<'a>(
    checker: &mut js::check::Checker,
    s: &Session,
    bytes: &'a [u8],
    line: u64,
) -> Result<Object<'a>> {
    match checker.valid_object(bytes) {
        Some(members) => Ok(Object {
            text: bytes,
            range: 0..bytes.len(),
            members: members.to_vec(),
        }),
        None => s.object(bytes, line),
    }
}

/// flattenTree()'s order: `tree` with the children that lead to the leaf
/// (containsActive) first.
#[inline]
fn display_order(s: &Session, tree: &Tree, leaf: Option<usize>, leaf_id: Option<&Id>) -> Tree {
    let n = s.entries.len();
    // containsActive, post-order.
    let mut has = vec![false; n];
    tree.walk(|step| {
        if let Step::Leave { node } = step {
            // `entry.id === currentLeafId`: when the last entry has no
            // id, pi's leaf is undefined, and so is every id-less entry's id.
            let mine = match leaf_id {
                Some(id) => s.entries.has_this_id(node, id),
                None => leaf.is_some() && s.entries.id(node).is_none(),
            };
            has[node] = mine || tree.children(node).iter().any(|&c| has[c as usize]);
        }
    });
    let prioritize = |xs: &[usize]| -> Vec<usize> {
        let mut v: Vec<usize> = xs.iter().copied().filter(|&c| has[c]).collect();
        v.extend(xs.iter().copied().filter(|&c| !has[c]));
        v
    };
    tree.reordered(prioritize(&tree.roots), |parent, xs, out| {
        // Only under an entry that leads to the leaf can a child lead
        // there (where each node has one parent and no cycle is walked).
        if !tree.is_shared() && !has[parent] {
            out.extend_from_slice(xs);
            return;
        }
        out.extend(xs.iter().copied().filter(|&c| has[c as usize]));
        out.extend(xs.iter().copied().filter(|&c| !has[c as usize]));
    })
}

/// The active path: parent ids walked from the leaf through the entries
/// displayed (`flat`).
#[inline]
fn active_path(s: &Session, flat: &[(usize, usize)], leaf_id: Option<&Id>) -> Vec<bool> {
    let n = s.entries.len();
    let mut in_flat = vec![false; n];
    for &(i, _) in flat {
        in_flat[i] = true;
    }
    let mut active = vec![false; n];
    // `while (currentId)`: a falsy leaf id has no active path.
    if let Some(id) = leaf_id.filter(|id| id.truthy()) {
        let mut cur = s.index.get(id);
        let mut steps = 0;
        while let Some(i) = cur {
            if active[i] || steps > n {
                break;
            }
            active[i] = true;
            steps += 1;
            if !in_flat[i] {
                break;
            }
            cur = s
                .index
                .parent_of(i)
                .or_else(|| s.entries.parent_id(i).and_then(|p| s.index.get(&p)));
        }
    }
    active
}

/// What the first pass over the messages finds.
struct Messages {
    msg_info: Vec<u8>,
    msg_at: Vec<(u32, u32)>,
    text: Display,
    /// The position in `flat` of the first message entry without a message.
    no_message: Option<usize>,
    checker: js::check::Checker,
}

impl Messages {
    /// The first pass over the messages: the filters' roles and flags, the
    /// tool calls, and where each message object stands in its line (so
    /// that its row reads the message alone, not the line).
    #[inline]
    fn first_pass(s: &Session, flat: &[(usize, usize)], file: Option<&File>) -> Result<Messages> {
        let n = s.entries.len();
        let mut checker = js::check::Checker::new();
        let mut msg_info = vec![0; n];
        let mut msg_at = vec![(0, 0); n];
        let mut text = Display::new();
        let mut no_message = None;
        // The quick pass (on two threads for a large file); the lines it
        // does not take, and those that may hold tool calls (added to
        // `text` in display order), again here in display order.
        let mut again: Vec<usize> = Vec::new();
        let mut src = line_source(s, file);
        let quick = |r: Range<usize>, src: &mut dyn LineSource| -> Result<Vec<First>> {
            let mut c = js::check::Checker::new();
            r.map(|k| first_look(&mut c, s, flat[k].0, src)).collect()
        };
        let mut found = |k: usize, info: u8, at: (u32, u32)| {
            let i = flat[k].0;
            msg_info[i] = (info & !(MSG_NONE | MSG_CALLS)) | MSG_KNOWN;
            msg_at[i] = at;
            if info & MSG_NONE != 0 && no_message.is_none() {
                no_message = Some(k);
            }
            info & MSG_CALLS != 0
        };
        if s.glances.len() == n && s.version() >= crate::migrate::CURRENT_VERSION {
            // The load took its glance at every message while the line was
            // at hand (the lines are the file's own: no version to migrate).
            for (k, &(i, _)) in flat.iter().enumerate() {
                if s.entries[i].ty() == EntryType::Message {
                    let g = s.glances[i];
                    if found(k, g.info, g.at) {
                        again.push(k);
                    }
                }
            }
        } else {
            let mut k = 0;
            batches::in_order(s, file, &mut *src, flat.len(), quick, |looks| {
                for f in looks {
                    match f {
                        First::Skip => {}
                        First::Again => again.push(k),
                        First::Found { info, at } => {
                            if found(k, info, at) {
                                again.push(k);
                            }
                        }
                    }
                    k += 1;
                }
                Ok(())
            })?;
        }
        for k in again {
            let i = flat[k].0;
            let line = src.line(i)?;
            let Ok(obj) = quick_object(&mut checker, s, &line, s.entries[i].line()) else {
                continue;
            };
            if msg_info[i] & MSG_KNOWN == 0 {
                if matches!(obj.raw("message"), None | Some(b"null"))
                    && no_message.is_none_or(|first| first > k)
                {
                    no_message = Some(k);
                }
                msg_info[i] = info_of(obj.object("message").as_ref()) | MSG_KNOWN;
                msg_at[i] = message_at(&obj);
            }
            if let Some(m) = obj.object("message") {
                text.add_tool_calls(&m);
            }
        }
        drop(src);
        Ok(Messages {
            msg_info,
            msg_at,
            text,
            no_message,
            checker,
        })
    }
}

impl<'s> View<'s> {
    pub(super) fn new(s: &'s Session, tree: Tree, leaf: Option<usize>) -> Result<View<'s>> {
        let leaf_id: Option<Id> = leaf.and_then(|l| s.entries.id(l));
        let ordered = display_order(s, &tree, leaf, leaf_id.as_ref());
        let mut flat = Vec::new();
        ordered.walk(|step| {
            if let Step::Enter { node, depth, .. } = step {
                flat.push((node, depth));
            }
        });
        let active = active_path(s, &flat, leaf_id.as_ref());
        let file = crate::render::lines::reopen(s);
        let m = Messages::first_pass(s, &flat, file.as_ref())?;
        let no_message = m.no_message.map(|k| flat[k].0);
        Ok(View {
            s,
            tree,
            flat,
            active,
            msg_info: m.msg_info,
            msg_at: m.msg_at,
            checker: std::sync::Mutex::new(m.checker),
            text: m.text,
            leaf,
            no_message,
            ordered,
            file,
        })
    }

    /// Where rows read their lines: the session file opened again (its
    /// lines lent from a window, no copy), or the session.
    pub(super) fn lines(&self) -> Box<dyn LineSource + '_> {
        line_source(self.s, self.file.as_ref())
    }

    /// The session file opened again, if it could be.
    pub(super) fn file(&self) -> Option<&File> {
        self.file.as_ref()
    }

    /// [`Session::object`], the quick way first: a compact line's members
    /// as [`js::check::Checker::valid_object`] finds them (the scanner's, in a
    /// quicker pass), as the load reads it.
    pub(super) fn object<'a>(&self, bytes: &'a [u8], line: u64) -> Result<Object<'a>> {
        match self.checker.try_lock() {
            Ok(mut c) => quick_object(&mut c, self.s, bytes, line),
            Err(_) => self.s.object(bytes, line),
        }
    }

    /// The JSON text of message entry `i`'s role, when the first pass
    /// found it to be one the filters know (`"user"`, `"assistant"`,
    /// `"toolResult"`).
    pub(super) fn quick_role(&self, i: usize) -> Option<&'static [u8]> {
        let info = self.msg_info[i];
        match info & MSG_ROLE {
            _ if info & MSG_KNOWN == 0 || self.s.entries[i].ty() != EntryType::Message => None,
            ROLE_USER => Some(b"\"user\""),
            ROLE_ASSISTANT => Some(b"\"assistant\""),
            ROLE_TOOL_RESULT => Some(b"\"toolResult\""),
            _ => None,
        }
    }

    /// `entry.id === currentLeafId`.
    pub(super) fn is_leaf(&self, i: usize) -> bool {
        self.leaf.is_some_and(|l| {
            if self.s.entries[l].has_id() {
                self.s.entries.same_id(l, i)
            } else {
                // undefined === undefined
                !self.s.entries[i].has_id()
            }
        })
    }

    fn id_of(&self, i: usize) -> Option<Id> {
        self.s.entries.id(i)
    }

    pub(super) fn label_of(&self, i: usize) -> Option<&str> {
        if self.s.index.labels.is_empty() {
            return None;
        }
        self.id_of(i)
            .and_then(|id| self.s.index.labels.get(&id))
            .map(|l| &*l.label)
    }

    /// The flat positions the filter and search let through.
    pub(super) fn visible(
        &self,
        filter: Filter,
        search: Option<&str>,
        strict: bool,
    ) -> Result<Vec<usize>> {
        let query = search.map(Query::new).unwrap_or_default();
        let mut out = Vec::new();
        for (k, &(i, _)) in self.flat.iter().enumerate() {
            if !strict && query.is_empty() {
                out.push(k);
                continue;
            }
            let e = &self.s.entries[i];
            // pi 1.6 hides usage entries in every filter (they stay in
            // the tree: only their rows go).
            if strict && e.ty() == EntryType::Usage {
                continue;
            }
            // A message's role and flags were found by `View::new`; without
            // a search, the line need not be read again.
            let known = self.msg_info[i];
            let line;
            let (obj, info) = if query.is_empty() && known & MSG_KNOWN != 0 {
                (None, known)
            } else {
                line = self.s.line(i)?;
                let obj = self.object(&line, e.line())?;
                let info = if e.ty() == EntryType::Message {
                    msg_info(&obj)
                } else {
                    0
                };
                (Some(obj), info)
            };
            let role = info & MSG_ROLE;
            if strict && role == ROLE_ASSISTANT && !self.is_leaf(i) {
                let has_text = info & MSG_HAS_TEXT != 0;
                let bad = info & MSG_BAD_STOP != 0;
                if !has_text && !bad {
                    continue;
                }
            }
            let settings = matches!(
                e.ty(),
                EntryType::Label
                    | EntryType::ContextEdit
                    | EntryType::Custom
                    | EntryType::ModelChange
                    | EntryType::ThinkingLevelChange
                    | EntryType::SessionInfo
            );
            let pass = match filter {
                Filter::UserOnly => role == ROLE_USER,
                Filter::NoTools => !settings && role != ROLE_TOOL_RESULT,
                Filter::LabeledOnly => self.label_of(i).is_some(),
                Filter::All => true,
                Filter::Default => !settings,
            };
            if strict && !pass {
                continue;
            }
            if let Some(obj) = obj.filter(|_| !query.is_empty()) {
                if !query.matches(&searchable(e.ty(), self.label_of(i), &obj)) {
                    continue;
                }
            }
            out.push(k);
        }
        Ok(out)
    }

    /// The flat positions the data formats show: every entry, unless a
    /// filter or a search is given.
    pub(super) fn display_positions(&self, opts: &Options) -> Result<Vec<usize>> {
        match (opts.filter, opts.search.as_deref()) {
            (None, None) => Ok((0..self.flat.len()).collect()),
            (f, q) => self.visible(f.unwrap_or(Filter::All), q, f.is_some()),
        }
    }

    /// `getEntryDisplayText(node)`, as coloured pieces, its line read from
    /// `src` ([`View::lines`]).
    pub(super) fn summary(&self, src: &mut dyn LineSource, i: usize) -> Result<Vec<Seg>> {
        let mut v = Vec::new();
        self.summary_into(src, i, &mut v)?;
        Ok(v)
    }

    /// [`View::summary`], the pieces added to `v`.
    pub(super) fn summary_into(
        &self,
        src: &mut dyn LineSource,
        i: usize,
        v: &mut Vec<Seg>,
    ) -> Result<()> {
        let line = src.line(i)?;
        let e = &self.s.entries[i];
        let text = match self.message_only(&line, i) {
            Some(obj) => self.text.text_into(e.ty(), &obj, v),
            None => {
                let obj = self.object(&line, e.line())?;
                self.text.text_into(e.ty(), &obj, v)
            }
        };
        text.map_err(|why| Error::data(&self.s.name, Some(e.line()), why))
    }

    /// Entry `i` (its `line`) as an object of one member, its message,
    /// where the first pass found it (all a message's row shows): the line
    /// is not parsed again.
    pub(super) fn message_only<'a>(&self, line: &'a [u8], i: usize) -> Option<Object<'a>> {
        let (start, end) = self.msg_at[i];
        let (start, end) = (start as usize, end as usize);
        let key = start.checked_sub(MESSAGE_KEY.len())?..start - 1;
        let found = line.get(key.start..start) == Some(MESSAGE_KEY)
            && line.get(start) == Some(&b'{')
            && end <= line.len();
        found.then(|| Object {
            text: line,
            range: 0..line.len(),
            members: vec![crate::json::scan::Member {
                key,
                value: start..end,
            }],
        })
    }

    /// pi's render throws on some rows (a custom_message whose content is
    /// not text): the error of the first of `entries` it throws on, found
    /// before anything is written.
    pub(super) fn refused_rows(
        &self,
        src: &mut dyn LineSource,
        entries: impl Iterator<Item = usize>,
    ) -> Result<()> {
        for i in entries {
            if self.s.entries[i].ty() == EntryType::CustomMessage {
                self.summary(src, i)?;
            }
        }
        Ok(())
    }

    /// [`View::summary`] of entry `i`, parsed as `obj`.
    pub(super) fn summary_of(&self, i: usize, obj: &Object<'_>) -> Result<Vec<Seg>> {
        let e = &self.s.entries[i];
        self.text
            .text(e.ty(), obj)
            .map_err(|why| Error::data(&self.s.name, Some(e.line()), why))
    }
}
