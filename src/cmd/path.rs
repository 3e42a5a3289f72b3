//! pi-path: the path from the root of a pi session to a leaf.
//!
//! Usage: `pi-path [OPTIONS] [SESSION]`
//!
//! Prints the entries on the path (byte for byte), the messages pi would
//! send to the model, the whole context object, or the ids; or lists every
//! leaf a user can go back to.

use crate::cli::{Ctx, Exit, SessionArgs};
use clap::Parser;

use crate::cli::Out;
use crate::context::{self, message_json};
use crate::entry::EntryType;
use crate::error::Result;
use crate::json::{js, Object};
use crate::migrate::CURRENT_VERSION;
use crate::path::path_to;
use crate::refs;
use crate::render::{batches, lines, write_id, write_str};
use crate::session::{ReadOptions, Session};
use crate::store::raw;
use crate::summary;
use std::io::Write;

/// What `pi-path` prints for each path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The entry lines, byte for byte as in the input.
    Entries,
    /// The context's messages (pi's `buildSessionContext().messages`), one per line.
    Messages,
    /// One line: the whole `{messages, thinkingLevel, model}` object.
    Context,
    /// One entry id per line.
    Ids,
}

const EXAMPLES: &str = concat!(
    "\
Examples:
  pi-path s.jsonl                          entries from the root to the last entry
  pi-path --format ids s.jsonl             their ids, one per line
  pi-path --leaf leaf~2 s.jsonl            the path without its last two messages
  pi-path --leaf @before-refactor s.jsonl  the path to the entry labelled before-refactor
  pi-path --format messages s.jsonl | jq -r .role
                                           the roles pi sends to the model
  pi-path --header --leaf 3f2a s.jsonl > linear.jsonl
                                           a valid session holding just one branch
  pi-path --leaves s.jsonl | jq -r .id     every branch a user can go back to
  pi-path 019a5c                           a session by id prefix, like pi --session

",
    crate::cli::help::help_leaf_tool_footer!()
);

/// The path from the root of a pi session to a leaf.
///
/// Walks parentId links from the leaf (by default the last entry, which is
/// where pi continues when it opens the file) back to the root, exactly as
/// pi's SessionManager does, and prints what is on the way. Version 1 and 2
/// sessions are read as version 3 with deterministic ids (run pi-migrate to
/// upgrade the file).
#[derive(Parser, Debug)]
#[command(name = "pi-path", version, after_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    pub input: SessionArgs,

    /// The entry the path ends at (a REF, see below; --at is the same, as
    /// in pi-fork).
    #[arg(long, value_name = "REF", default_value = "leaf", visible_alias = "at")]
    pub leaf: String,

    /// What to print for the path.
    #[arg(long, value_enum, default_value = "entries")]
    pub format: Format,

    /// Print the session header first (with --format entries the output is
    /// itself a valid, linear session file).
    #[arg(long)]
    pub header: bool,

    /// List every leaf (entry without children) as JSON lines: id, line,
    /// timestamp, depth, label, whether it is pi's current leaf, and the
    /// last user message on its path.
    #[arg(long, conflicts_with_all = ["leaf", "format", "header"])]
    pub leaves: bool,
}

crate::cli::impl_tool! { Args, "pi-path", quiet = input.quiet }

/// `pi-path`: read SESSION, print the path (or the leaves).
pub(crate) fn run(args: &Args, ctx: &mut Ctx) -> Result<Exit> {
    // For messages, the load also tells each message's role and which
    // lines are `JSON.stringify`'s text (copied, not checked again), as for
    // pi-convert.
    let context = !args.leaves && matches!(args.format, Format::Messages | Format::Context);
    let read = ReadOptions {
        roles: context,
        canonical: context,
        ..args.input.read_options()
    };
    let session = args.input.open_with(ctx, read)?;
    if args.leaves {
        write_leaves(&session, ctx.out())?;
    } else {
        write_path(&session, &args.leaf, args.format, args.header, ctx.out())?;
    }
    Ok(Exit::Ok)
}

/// Print the path from the root to the entry `leaf` (a REF).
pub(crate) fn write_path(
    s: &Session,
    leaf: &str,
    format: Format,
    header: bool,
    out: &mut impl Write,
) -> Result<()> {
    let reference = leaf;
    let leaf = match (leaf, s.index.leaf) {
        // An empty session has an empty path at its default leaf.
        ("leaf", None) => None,
        // The last entry's id is null: so is pi's leaf (an empty context).
        ("leaf", Some(_)) if s.leaf_id_null => None,
        _ => Some(refs::resolve(s, leaf)?),
    };
    if header {
        out.line(&s.header_line()?)?;
    }
    match format {
        Format::Entries | Format::Ids => {
            let path = match leaf {
                // pi's leaf is the last entry's id: when that entry has none,
                // the leaf is undefined and pi's getBranch() is empty (while
                // its context is still built from the last entry).
                Some(l) if reference == "leaf" && s.entries.id(l).is_none() => Vec::new(),
                Some(l) if refs::branch_is_empty(s, l) => Vec::new(),
                Some(l) => path_to(s, l)?,
                None => Vec::new(),
            };
            if format == Format::Entries && s.version() >= CURRENT_VERSION {
                return write_lines_as_they_are(s, &path, out);
            }
            for i in path {
                if format == Format::Ids {
                    // An id is session text: a hostile one stays one inert line.
                    let id = s.entries.id_string(i);
                    out.bytes(crate::visible::text(&id).as_bytes())?;
                } else {
                    out.bytes(&s.line(i)?)?;
                }
                out.bytes(b"\n")?;
            }
        }
        Format::Messages => {
            let ctx = context::build(s, refs::context_leaf(s, leaf))?;
            for item in ctx.items {
                if let Some(m) = message_json(s, item)? {
                    out.line(&m)?;
                }
            }
        }
        Format::Context => {
            let ctx = context::build(s, refs::context_leaf(s, leaf))?;
            out.bytes(b"{\"messages\":[")?;
            let mut first = true;
            for item in ctx.items {
                if let Some(m) = message_json(s, item)? {
                    if !first {
                        out.bytes(b",")?;
                    }
                    first = false;
                    out.bytes(&m)?;
                }
            }
            out.bytes(b"]")?;
            if let Some(t) = &ctx.thinking_level {
                out.bytes(b",\"thinkingLevel\":")?;
                out.bytes(t)?;
            }
            out.bytes(b",\"model\":")?;
            out.bytes(ctx.model.as_deref().unwrap_or(b"null"))?;
            out.bytes(b"}\n")?;
        }
    }
    out.done()
}

/// Print the lines of the entries `path` byte for byte (a current-version
/// file needs no rewriting): each run of entries on consecutive lines is
/// one copy of the file's bytes, which the kernel makes when it can.
fn write_lines_as_they_are(s: &Session, path: &[usize], out: &mut impl Write) -> Result<()> {
    let mut rest = path;
    while let Some((&first, _)) = rest.split_first() {
        let start = s.entries[first].offset();
        let mut end = start + u64::from(s.entries[first].byte_len());
        let mut run = 1;
        // The next entry's line starts right after this one's newline.
        while let Some(e) = rest.get(run).map(|&i| &s.entries[i]) {
            if e.offset() != end + 1 {
                break;
            }
            end = e.offset() + u64::from(e.byte_len());
            run += 1;
        }
        s.copy_span(start, end - start, out)?;
        out.bytes(b"\n")?;
        rest = &rest[run..];
    }
    out.done()
}

/// Print one JSON line per leaf (an entry no other entry names as parent):
/// `{"id","line","timestamp","depth","label"?,"current","lastUser"}`.
///
/// Each entry's depth and last user message above it are found once and
/// kept, so that leaves sharing ancestors (a fan-out of a million siblings,
/// a long chain ending in many leaves) cost their own line, not their path.
/// That is done first, in leaf order, reading each ancestor once; the rows
/// then read only the leaves' own lines, in file order, on two threads for
/// many leaves ([`batches::write_rows_with`]: the same bytes as one).
pub(crate) fn write_leaves(s: &Session, out: &mut impl Write) -> Result<()> {
    let leaves = crate::path::leaves(s);
    let mut memo = Memo::new(s.entries.len());
    // Up to the first leaf whose depth (a cycle) or ancestors' lines fail:
    // from there on the rows are made one by one, so that the error comes
    // where and when it came before.
    let ready = leaves
        .iter()
        .take_while(|&&i| memo.above(s, i).is_ok())
        .count();
    let file = lines::reopen(s);
    let mut src = lines::line_source(s, file.as_ref());
    batches::write_rows_with(
        s,
        file.as_ref(),
        &mut *src,
        ready,
        out,
        js::check::Checker::new,
        |v, checker, row, src| {
            let i = leaves[v];
            let line = src.line(i)?;
            let depth = memo.depth[i] as usize;
            let own = leaf_row(s, checker, i, depth, &line, row)?;
            let last_user = match &own {
                Some(found) => found.as_deref(),
                None => memo.text(s.index.parent_of(i).map_or(NONE, |p| memo.last_user[p])),
            };
            end_row(row, last_user);
            Ok(())
        },
    )?;
    let mut checker = js::check::Checker::new();
    let mut row = Vec::new();
    for &i in &leaves[ready..] {
        let depth = memo.depth(s, i)?;
        let line = src.line(i)?;
        row.clear();
        let own = leaf_row(s, &mut checker, i, depth, &line, &mut row)?;
        let last_user = match &own {
            Some(found) => found.as_deref(),
            None => {
                let k = match s.index.parent_of(i) {
                    Some(p) => memo.last_user(s, p)?,
                    None => NONE,
                };
                memo.text(k)
            }
        };
        end_row(&mut row, last_user);
        out.bytes(&row)?;
    }
    out.done()
}

/// Append the row of leaf `i` (its `line`, at `depth`) to `row`, as far
/// as `"current"`; return [`user_text`] of the leaf itself.
fn leaf_row(
    s: &Session,
    checker: &mut js::check::Checker,
    i: usize,
    depth: usize,
    line: &[u8],
    row: &mut Vec<u8>,
) -> Result<Option<Option<String>>> {
    let e = &s.entries[i];
    let (obj, strings) = quick_object(checker, s, line, e.line())?;
    let own = user_text(s, i, &obj, strings);
    // As an `ObjectWriter` writes it, the keys known to need no escape.
    row.extend_from_slice(b"{\"id\":");
    // The id as its JSON value (a number stays a number; "" without one).
    match s.entries.id(i) {
        Some(id) => write_id(row, Some(id)),
        None => row.extend_from_slice(b"\"\""),
    };
    // Whole numbers, which JavaScript prints as their digits.
    row.extend_from_slice(b",\"line\":");
    crate::json::js::number::push_decimal(row, e.line());
    if let Some(t) = obj.get("timestamp") {
        let at = row.len();
        row.extend_from_slice(b",\"timestamp\":");
        if js::stringify::canonical_with(checker, row, obj.text, t).is_err() {
            row.truncate(at);
        }
    }
    row.extend_from_slice(b",\"depth\":");
    crate::json::js::number::push_decimal(row, depth as u64);
    if let Some(id) = s.entries.id(i) {
        if let Some(l) = s.index.labels.get(&id) {
            row.extend_from_slice(b",\"label\":");
            row.extend_from_slice(&s.label_value(l)?);
        }
    }
    row.extend_from_slice(if s.index.leaf == Some(i) {
        b",\"current\":true"
    } else {
        b",\"current\":false"
    });
    Ok(own)
}

/// End a row begun by [`leaf_row`]: its `lastUser` and the line's end.
fn end_row(row: &mut Vec<u8>, last_user: Option<&str>) {
    row.extend_from_slice(b",\"lastUser\":");
    match last_user {
        Some(t) => write_str(row, t),
        None => row.extend_from_slice(b"null"),
    };
    row.extend_from_slice(b"}\n");
}

/// [`Session::object`], the quick way first (as the load reads a compact
/// line: [`js::check::Checker::valid_object`] finds the scanner's members in a
/// quicker pass), and how the strings of the text, valid JSON either way,
/// are skipped when its values are looked into ([`raw::Strings`]: by the
/// checker's quote bits after a quick yes).
fn quick_object<'a, 'c>(
    checker: &'c mut js::check::Checker,
    s: &Session,
    bytes: &'a [u8],
    line: u64,
) -> Result<(Object<'a>, raw::Strings<'c>)> {
    match checker.valid_object(bytes) {
        Some(members) => {
            let obj = Object {
                text: bytes,
                range: 0..bytes.len(),
                members: members.to_vec(),
            };
            Ok((obj, raw::Strings::Marks(checker.marks())))
        }
        None => Ok((s.object(bytes, line)?, raw::Strings::Memchr)),
    }
}

/// `Memo::last_user`: not found yet.
const NOT_YET: u32 = u32::MAX;
/// `Memo::last_user`: no user message on the path.
const NONE: u32 = u32::MAX - 1;

/// What `write_leaves` has found about the entries above the leaves.
struct Memo {
    /// The length of the path from the root to each entry (0: not yet).
    depth: Vec<u32>,
    /// For each entry, the last user message's one-line text on the path
    /// to it (an index into `texts`, [`NONE`] or [`NOT_YET`]).
    last_user: Vec<u32>,
    texts: Vec<Option<String>>,
    /// Entries walked and not yet answered.
    chain: Vec<usize>,
    checker: js::check::Checker,
}

impl Memo {
    fn new(n: usize) -> Memo {
        Memo {
            depth: vec![0; n],
            last_user: vec![NOT_YET; n],
            texts: Vec::new(),
            chain: Vec::new(),
            checker: js::check::Checker::new(),
        }
    }

    /// Leaf `i`'s depth, and the last user message above its parent:
    /// all its row needs besides its own line.
    fn above(&mut self, s: &Session, i: usize) -> Result<()> {
        self.depth(s, i)?;
        if let Some(p) = s.index.parent_of(i) {
            self.last_user(s, p)?;
        }
        Ok(())
    }

    /// `path_to(s, i).len()`, with the same cycle error.
    fn depth(&mut self, s: &Session, i: usize) -> Result<usize> {
        self.chain.clear();
        let mut cur = Some(i);
        let mut above = 0;
        while let Some(c) = cur {
            if self.depth[c] != 0 {
                above = self.depth[c] as usize;
                break;
            }
            self.chain.push(c);
            if self.chain.len() > s.entries.len() {
                return path_to(s, i).map(|p| p.len());
            }
            cur = s.index.parent_of(c);
        }
        for (k, &c) in self.chain.iter().rev().enumerate() {
            self.depth[c] = (above + k + 1) as u32;
        }
        Ok(above + self.chain.len())
    }

    /// The last user message at or above entry `i`, as an index for
    /// [`Memo::text`]. Walks as `depth` has (no cycle is left there).
    fn last_user(&mut self, s: &Session, i: usize) -> Result<u32> {
        self.chain.clear();
        let mut cur = Some(i);
        let mut found = NONE;
        while let Some(c) = cur {
            if self.last_user[c] != NOT_YET {
                found = self.last_user[c];
                break;
            }
            self.chain.push(c);
            if s.entries[c].ty() == EntryType::Message {
                let l = s.line(c)?;
                let (o, strings) = quick_object(&mut self.checker, s, &l, s.entries[c].line())?;
                if let Some(t) = user_text(s, c, &o, strings) {
                    found = self.texts.len() as u32;
                    self.texts.push(t);
                    break;
                }
            }
            if self.chain.len() > s.entries.len() {
                break;
            }
            cur = s.index.parent_of(c);
        }
        for &c in &self.chain {
            self.last_user[c] = found;
        }
        Ok(found)
    }

    fn text(&self, k: u32) -> Option<&str> {
        self.texts.get(k as usize).and_then(|t| t.as_deref())
    }
}

/// For a user message (entry `i`, parsed as `obj`, its strings skipped
/// by `strings`): Some of its one-line text (None when it has no text);
/// None for any other entry.
fn user_text(
    s: &Session,
    i: usize,
    obj: &Object<'_>,
    strings: raw::Strings<'_>,
) -> Option<Option<String>> {
    if s.entries[i].ty() != EntryType::Message {
        return None;
    }
    // The line is valid JSON: its message's members are found by quotes
    // and brackets alone, not validated again.
    let m = raw::sub_object_by(obj, "message", strings)?;
    (m.str("role").as_deref() == Some("user"))
        .then(|| summary::message_text(&m).map(|t| summary::one_line(&t, 120)))
}
