//! The whole branch as a transcript: every entry from the root to the leaf,
//! streamed. Messages are shown as the context edits in force at the leaf
//! leave them (an edited entry's new content, annotated; an omitted one's
//! content only with --include-hidden, so that a redaction stays
//! redacted); a compaction is a marked point with its summary, and the
//! branch goes on after it; model, thinking-level, name and edit entries
//! are small marks, a label a note on the entry it labels, as pi's tree
//! shows it.
//!
//! The path is walked entry by entry: what is held at once is the path's
//! indices, the edits in force, and one group of messages (a user or
//! assistant message and what follows it up to the next one, so that a
//! tool call is shown with its result), capped.

use super::build::{build_indexed, short_time};
use super::{
    clean, clean_into, cleaned, first_control, markdown, text, Format, Mark, Meta, Note, Options,
    Source, Turn, View,
};
use crate::context::{self, Item};
use crate::entry::glance::{ROLE_ASSISTANT, ROLE_USER};
use crate::entry::EntryType;
use crate::error::{Error, Result};
use crate::json::{js, Object};
use crate::path::path_to;
use crate::session::Session;
use std::collections::HashMap;
use std::io::Write;
use std::sync::mpsc;

/// A group is written once it holds this many messages or bytes of JSON
/// (a tool result further on is then shown on its own, not with its call).
const GROUP_MESSAGES: usize = 1024;
const GROUP_BYTES: usize = 16 << 20;

/// The output is held until it is this long, so that a transcript of this
/// size or less is written whole or not at all (an error in the input
/// stops it before anything is written); a longer one is streamed, and an
/// error stops it where it is.
const HOLD: usize = 4 << 20;

/// Groups go to the renderer's thread in batches of about this many bytes
/// of JSON (or this many groups): a handoff per group (most are a few
/// messages) cost more than the second core gave.
const BATCH_BYTES: usize = 1 << 20;
const BATCH_GROUPS: usize = 512;

/// Write the branch from the root to `leaf` (None: pi's null leaf, no
/// entries) as a transcript in `format` (Markdown or Text; Html is not
/// streamed here).
pub fn write_branch(
    s: &Session,
    leaf: Option<usize>,
    meta: &Meta,
    format: Format,
    opts: Options,
    out: &mut impl Write,
) -> Result<()> {
    let path = match leaf {
        Some(l) => path_to(s, l)?,
        None => Vec::new(),
    };
    // The latest context_edit on the path for each target id.
    let edits = context::latest_edits(s, &path)?;
    with_writer(s, format, opts, true, out, meta, |w| {
        w.budget = 4 * path.len();
        for (k, &i) in path.iter().enumerate() {
            w.entry(i, k, &path, &edits)?;
        }
        Ok(())
    })
}

/// Write what the model is sent at `leaf` (None: pi's null leaf, no
/// messages) as a transcript in `format` (Markdown or Text), streamed as
/// the whole branch is: the context's messages are read a group at a time
/// (a user or assistant message and what follows it, so that a tool call
/// is shown with its result), not all at once.
pub fn write_sent(
    s: &Session,
    leaf: Option<usize>,
    meta: &Meta,
    format: Format,
    opts: Options,
    out: &mut impl Write,
) -> Result<()> {
    let ctx = context::build(s, leaf)?;
    // What is sent has no ids or labels on its turns.
    with_writer(s, format, opts, false, out, meta, |w| {
        for item in ctx.items {
            w.message(item)?;
        }
        Ok(())
    })
}

/// Run `walk` with a [`Writer`] whose groups a second thread turns into
/// text (a [`Renderer`]): reading and sorting the messages of one group
/// goes on while the one before is built and rendered (those were most
/// of a long transcript's time, on one core). The output is the same as
/// on one thread: groups are rendered and written in order, and an error
/// is the first one the one-thread order meets.
fn with_writer<W: Write>(
    s: &Session,
    format: Format,
    opts: Options,
    named: bool,
    out: &mut W,
    meta: &Meta,
    walk: impl FnOnce(&mut Writer<'_, W>) -> Result<()>,
) -> Result<()> {
    std::thread::scope(|scope| {
        // A rendezvous: at most one group is rendered while the next is
        // gathered (memory stays at two groups' worth).
        let (groups, to_render) = mpsc::sync_channel::<Vec<Group>>(0);
        let (rendered, texts) = mpsc::channel::<(String, Result<()>)>();
        let mut r = Renderer {
            s,
            format,
            opts,
            named,
            turns: 0,
        };
        scope.spawn(move || {
            // Each batch's text is about as long as the last one's: its room
            // is taken at once rather than grown (and copied) step by step.
            let mut room = 0;
            for batch in to_render {
                let mut text = String::with_capacity(room);
                let mut done = Ok(());
                for g in batch {
                    if let Err(e) = r.render(g, &mut text) {
                        done = Err(e);
                        break;
                    }
                }
                room = text.len() + text.len() / 8;
                if rendered.send((text, done)).is_err() {
                    break;
                }
            }
        });
        let mut w = Writer::new(s, out, meta, (format, opts), groups, texts)?;
        let walked = walk(&mut w).and_then(|()| w.flush());
        if w.failed {
            // The renderer's error: the first.
            return walked;
        }
        // Whatever was flushed before an error was rendered and written
        // before it on one thread: written first, its error first.
        let sent = w.send();
        w.groups = None;
        w.drain(true)?;
        walked?;
        sent?;
        w.release()
    })
}

/// Messages and marks to render together: `from` is the entry of each of
/// `msgs`; each mark comes with the number of messages before it.
struct Group {
    msgs: Vec<Source>,
    from: Vec<usize>,
    marks: Vec<(usize, Mark)>,
}

/// What a transcript shows of a context item: its message as the model
/// sees it, with how (an edited entry's original, an omitted entry's
/// content, for --include-hidden to show; a usage entry as it is); None
/// when it has no message.
pub fn source_of(s: &Session, item: Item) -> Result<Option<Source>> {
    let i = item.entry();
    let line = s.entries[i].line();
    let view = match item {
        Item::Usage(_) => {
            let json = s.line(i)?.into_owned();
            let view = View::Usage;
            return Ok(Some(Source { json, line, view }));
        }
        Item::Omitted(_, e) => {
            let edit = s.entries.id_string(e);
            return Ok(
                context::message_json(s, Item::Entry(i))?.map(|json| Source {
                    json,
                    line,
                    view: View::Omitted { edit },
                }),
            );
        }
        Item::Edited(_, e) => match context::message_json(s, Item::Entry(i))? {
            Some(original) => View::Edited {
                edit: s.entries.id_string(e),
                original,
            },
            None => View::Sent,
        },
        Item::CompactionSystem(_) => View::Checkpoint,
        _ => View::Sent,
    };
    Ok(context::message_json(s, item)?.map(|json| Source { json, line, view }))
}

/// The transcript being written: the group of messages not yet shown and
/// the marks among them (each with the number of messages before it).
struct Writer<'a, W: Write> {
    s: &'a Session,
    opts: Options,
    out: &'a mut W,
    /// Where groups go to be rendered (None once all were sent).
    groups: Option<mpsc::SyncSender<Vec<Group>>>,
    /// The groups not yet sent, and their bytes of JSON.
    batch: Vec<Group>,
    batch_bytes: usize,
    /// The rendered batches, in order, each with how its rendering ended.
    texts: mpsc::Receiver<(String, Result<()>)>,
    /// The renderer met an error (the first, returned).
    failed: bool,
    msgs: Vec<Source>,
    /// The entry each of `msgs` comes from.
    from: Vec<usize>,
    bytes: usize,
    marks: Vec<(usize, Mark)>,
    /// Where on the path the last compaction kept from.
    kept_from: usize,
    /// Path positions the compactions' walks back may still read.
    budget: usize,
    /// The output not yet written (None once it was: see [`HOLD`]).
    held: Option<Vec<u8>>,
}

/// What turns a [`Group`] into text (on its own thread): the turns
/// written so far, for Markdown's numbers.
struct Renderer<'a> {
    s: &'a Session,
    format: Format,
    opts: Options,
    /// Whether turns show their entry's id and label (the whole branch).
    named: bool,
    turns: usize,
}

impl<'a, W: Write> Writer<'a, W> {
    /// A writer that has written the head (Markdown's title and fields).
    fn new(
        s: &'a Session,
        out: &'a mut W,
        meta: &Meta,
        (format, opts): (Format, Options),
        groups: mpsc::SyncSender<Vec<Group>>,
        texts: mpsc::Receiver<(String, Result<()>)>,
    ) -> Result<Self> {
        let mut w = Writer {
            s,
            opts,
            out,
            groups: Some(groups),
            batch: Vec::new(),
            batch_bytes: 0,
            texts,
            failed: false,
            msgs: Vec::new(),
            from: Vec::new(),
            bytes: 0,
            marks: Vec::new(),
            kept_from: 0,
            budget: 0,
            held: Some(Vec::new()),
        };
        if format == Format::Markdown {
            let mut head = String::new();
            markdown::head(&mut head, meta);
            w.write(&head)?;
        }
        Ok(w)
    }

    /// Entry `i`, at `k` on `path`.
    fn entry(
        &mut self,
        i: usize,
        k: usize,
        path: &[usize],
        edits: &HashMap<String, usize>,
    ) -> Result<()> {
        let s = self.s;
        let edit = match edits.is_empty() {
            true => None,
            false => s
                .entries
                .id(i)
                .and_then(|id| edits.get(&id.to_string()).copied()),
        };
        let omitted = match edit {
            Some(e) => {
                let line = s.line(e)?;
                s.object(&line, s.entries[e].line())?.raw("replacement") == Some(b"null")
            }
            None => false,
        };
        match s.entries[i].ty() {
            EntryType::Message | EntryType::CustomMessage | EntryType::BranchSummary => {
                let item = match (edit, omitted) {
                    (Some(e), true) => Item::Omitted(i, e),
                    (Some(e), false) => Item::Edited(i, e),
                    (None, _) => Item::Entry(i),
                };
                self.message(item)
            }
            EntryType::Compaction => self.compaction(i, k, path, edit.filter(|_| omitted)),
            EntryType::Usage => match source_of(s, Item::Usage(i))? {
                Some(src) => self.push(i, src),
                None => Ok(()),
            },
            EntryType::ModelChange
            | EntryType::ThinkingLevelChange
            | EntryType::SessionInfo
            | EntryType::ContextEdit => {
                if let Some(m) = self.small_mark(i, edits)? {
                    self.marks.push((self.msgs.len(), m));
                }
                Ok(())
            }
            // Labels are shown on the entries they label; extension data
            // (`custom`), a second header, unknown types: nothing people read.
            _ => Ok(()),
        }
    }

    /// A message, as the edits in force leave it (the same sources as the
    /// transcript of what is sent).
    fn message(&mut self, item: Item) -> Result<()> {
        let i = item.entry();
        let src = source_of(self.s, item)?;
        let Some(src) = src else {
            return Ok(());
        };
        // A user or assistant message starts a group: no tool call before
        // it pairs with a result after it.
        if self.starts_group(i, &src) {
            self.flush()?;
        }
        self.push(i, src)
    }

    /// Whether message entry `i` (`src`) is a user or assistant message.
    fn starts_group(&self, i: usize, src: &Source) -> bool {
        let s = self.s;
        if s.entries[i].ty() != EntryType::Message {
            return false;
        }
        // The load's role, for a current file (migration may change one).
        if s.roles.len() == s.entries.len()
            && s.header.version >= crate::migrate::CURRENT_VERSION
            && matches!(s.roles[i], ROLE_USER | ROLE_ASSISTANT)
        {
            return true;
        }
        Object::parse_line(&src.json)
            .ok()
            .flatten()
            .and_then(|o| o.str("role").map(|r| r.into_owned()))
            .is_some_and(|r| r == "user" || r == "assistant")
    }

    /// A compaction: a mark (how many messages it summarised, where the
    /// model's context went on from), then its summary, unless the edit
    /// `omitted_by` leaves it out; with --include-hidden, the system
    /// prompt checkpoint it stored.
    fn compaction(
        &mut self,
        c: usize,
        k: usize,
        path: &[usize],
        omitted_by: Option<usize>,
    ) -> Result<()> {
        let s = self.s;
        let line = s.line(c)?;
        let obj = s.object(&line, s.entries[c].line())?;
        let kept = obj.str("firstKeptEntryId").map(|f| f.into_owned());
        let mut text = match self.summarised(k, path, kept.as_deref()) {
            Some(0) => "nothing new summarised".to_string(),
            Some(1) => "1 message summarised".to_string(),
            Some(n) => format!("{n} messages summarised"),
            None => "what came before summarised".to_string(),
        };
        if let Some(f) = &kept {
            text.push_str(&format!("; the model's context goes on from {}", clean(f)));
        }
        if let Some(e) = omitted_by {
            text.push_str(&format!(
                "; its summary is omitted by context edit {}",
                s.entries.id_string(e)
            ));
        }
        let checkpoint = obj.raw("systemMessage").is_some_and(js::truthy);
        if checkpoint && !self.opts.include_hidden {
            text.push_str("; it stored a system prompt (--include-hidden shows it)");
        }
        self.flush()?;
        self.marks.push((
            0,
            Mark {
                kind: "compaction",
                text,
                time: time_of(&obj),
                rule: true,
            },
        ));
        if omitted_by.is_some() {
            return Ok(());
        }
        if let Some(src) = source_of(s, Item::CompactionSummary(c))? {
            self.push(c, src)?;
        }
        if checkpoint && self.opts.include_hidden {
            if let Some(src) = source_of(s, Item::CompactionSystem(c))? {
                self.push(c, src)?;
            }
        }
        Ok(())
    }

    /// How many messages the compaction at `k` on `path` summarised: those
    /// from where the previous one kept from (or the root) to its own first
    /// kept entry `kept` (all of them when that is not among them: pi then
    /// keeps none). None once the walks back have taken their budget (a
    /// hostile chain of compactions must not make the walk quadratic).
    fn summarised(&mut self, k: usize, path: &[usize], kept: Option<&str>) -> Option<usize> {
        let s = self.s;
        let range = &path[self.kept_from.min(k)..k];
        self.budget = self.budget.checked_sub(range.len())?;
        let to = kept
            .and_then(|f| {
                range
                    .iter()
                    .rposition(|&i| s.entries.id(i).is_some_and(|x| x.to_string() == f))
            })
            .unwrap_or(range.len());
        self.kept_from = self.kept_from.min(k) + to;
        Some(conversation(s, &range[..to]))
    }

    /// The mark of a model, thinking-level, name or context-edit entry.
    fn small_mark(&self, i: usize, edits: &HashMap<String, usize>) -> Result<Option<Mark>> {
        let s = self.s;
        let line = s.line(i)?;
        let obj = s.object(&line, s.entries[i].line())?;
        // A string member as it reads; another value as its JSON.
        let value = |key: &str| match obj.str(key) {
            Some(v) => Some(clean(&v)),
            None => obj.raw(key).map(|v| clean(&String::from_utf8_lossy(v))),
        };
        let (kind, text) = match s.entries[i].ty() {
            EntryType::ModelChange => (
                "model",
                match (value("provider"), value("modelId")) {
                    (Some(p), Some(m)) => format!("{p}/{m}"),
                    (p, m) => p.or(m).unwrap_or_else(|| "(none)".into()),
                },
            ),
            EntryType::ThinkingLevelChange => (
                "thinking level",
                value("thinkingLevel").unwrap_or_else(|| "(none)".into()),
            ),
            EntryType::SessionInfo => (
                "session name",
                match obj.str("name").filter(|n| !n.trim().is_empty()) {
                    Some(n) => clean(&n),
                    None => "(cleared)".into(),
                },
            ),
            EntryType::ContextEdit => {
                let target = obj.str("targetId").map(|t| t.into_owned());
                let in_force = target.as_ref().is_some_and(|t| edits.get(t) == Some(&i));
                let what = match obj.raw("replacement") {
                    Some(b"null") => "omits",
                    _ => "edits",
                };
                let target = target.map_or_else(|| "(none)".into(), |t| clean(&t));
                (
                    "context edit",
                    format!(
                        "{} {what} {target}{}",
                        s.entries.id_string(i),
                        if in_force {
                            ""
                        } else {
                            " (a later edit replaces it)"
                        }
                    ),
                )
            }
            _ => return Ok(None),
        };
        Ok(Some(Mark {
            kind,
            text,
            time: time_of(&obj),
            rule: false,
        }))
    }

    /// Add the message `src` of entry `i` to the group.
    fn push(&mut self, i: usize, src: Source) -> Result<()> {
        self.bytes += src.json.len();
        self.msgs.push(src);
        self.from.push(i);
        if self.msgs.len() >= GROUP_MESSAGES || self.bytes >= GROUP_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    /// Send the group to be rendered (what was rendered before it is
    /// written first).
    fn flush(&mut self) -> Result<()> {
        if self.msgs.is_empty() && self.marks.is_empty() {
            return Ok(());
        }
        self.batch.push(Group {
            msgs: std::mem::take(&mut self.msgs),
            from: std::mem::take(&mut self.from),
            marks: std::mem::take(&mut self.marks),
        });
        self.batch_bytes += self.bytes;
        self.bytes = 0;
        if self.batch_bytes >= BATCH_BYTES || self.batch.len() >= BATCH_GROUPS {
            self.send()?;
        }
        Ok(())
    }

    /// Send the batch to be rendered (what was rendered before it is
    /// written first).
    fn send(&mut self) -> Result<()> {
        if self.batch.is_empty() {
            return Ok(());
        }
        self.drain(false)?;
        let batch = std::mem::take(&mut self.batch);
        self.batch_bytes = 0;
        let stopped = || Error::output(std::io::Error::other("the renderer stopped"));
        match &self.groups {
            Some(groups) => groups.send(batch).map_err(|_| stopped()),
            None => Err(stopped()),
        }
    }

    /// Write the groups rendered so far (`all`: wait for every one sent,
    /// once no more will be); the first error stops it.
    fn drain(&mut self, all: bool) -> Result<()> {
        loop {
            let text = match all {
                true => match self.texts.recv() {
                    Ok(t) => t,
                    Err(_) => return Ok(()),
                },
                false => match self.texts.try_recv() {
                    Ok(t) => t,
                    Err(_) => return Ok(()),
                },
            };
            let (text, done) = text;
            // The renderer cleaned it (Renderer::render).
            self.write_cleaned(&text)?;
            if done.is_err() {
                self.failed = true;
                return done;
            }
        }
    }

    /// Write `text`, any control character a builder let through shown.
    fn write(&mut self, text: &str) -> Result<()> {
        self.write_cleaned(&cleaned(text))
    }

    /// Write `text`, which has no control character left to show (a
    /// second look over a rendered batch cost a twentieth of the time).
    fn write_cleaned(&mut self, text: &str) -> Result<()> {
        match &mut self.held {
            Some(held) => {
                held.extend_from_slice(text.as_bytes());
                if held.len() >= HOLD {
                    self.release()?;
                }
                Ok(())
            }
            None => self.out.write_all(text.as_bytes()).map_err(Error::output),
        }
    }

    /// Write what is held, and from now on write as it comes.
    fn release(&mut self) -> Result<()> {
        match self.held.take() {
            Some(held) => self.out.write_all(&held).map_err(Error::output),
            None => Ok(()),
        }
    }
}

impl Renderer<'_> {
    /// The group's text: its turns, each mark before the turn of the first
    /// message after it; any control character a builder let through
    /// shown.
    fn render(&mut self, g: Group, text: &mut String) -> Result<()> {
        let turns = build_indexed(&self.s.name, &g.msgs, self.opts)?;
        drop(g.msgs);
        // The group is written straight after the batch's text so far (a
        // String per group, copied into the batch, was a copy of the whole
        // transcript).
        let start = text.len();
        let mut marks = g.marks.into_iter().peekable();
        for (k, mut turn) in turns {
            while let Some((_, m)) = marks.next_if(|(at, _)| *at <= k) {
                self.mark(text, &m);
            }
            if self.named {
                self.name(&mut turn, g.from[k]);
            }
            let turn = &turn;
            self.turns += 1;
            match self.format {
                Format::Markdown => markdown::turn(text, self.turns, turn),
                _ => text::turn(text, turn),
            }
        }
        for (_, m) in marks {
            self.mark(text, &m);
        }
        if let Some(p) = first_control(&text.as_bytes()[start..]) {
            let rest = text.split_off(start + p);
            clean_into(text, &rest);
        }
        Ok(())
    }

    /// Give the turn of entry `i` its id, and the label on it (pi's
    /// labels in force, wherever in the file they were set).
    fn name(&self, turn: &mut Turn, i: usize) {
        let s = self.s;
        let Some(id) = s.entries.id(i) else {
            return;
        };
        if let Some(l) = s.index.labels.get(&id) {
            turn.notes.insert(
                0,
                Note {
                    text: format!("label: {}", clean(&l.label)),
                    error: false,
                },
            );
        }
        turn.id = Some(clean(&id.to_string()));
    }

    fn mark(&self, text: &mut String, m: &Mark) {
        match self.format {
            Format::Markdown => markdown::mark(text, m),
            _ => text::mark(text, m),
        }
    }
}

/// The conversation entries (messages, custom messages, branch summaries)
/// among `entries`.
fn conversation(s: &Session, entries: &[usize]) -> usize {
    entries
        .iter()
        .filter(|&&i| {
            matches!(
                s.entries[i].ty(),
                EntryType::Message | EntryType::CustomMessage | EntryType::BranchSummary
            )
        })
        .count()
}

/// An entry's `timestamp` (ISO text) as `YYYY-MM-DD HH:MM:SS`.
fn time_of(obj: &Object<'_>) -> Option<String> {
    obj.str("timestamp")
        .map(|t| short_time(&t).unwrap_or_else(|| clean(&t)))
}
