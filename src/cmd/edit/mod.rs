//! `pi-edit`: change what the model sees of an entry without touching the
//! entry, by appending the `context_edit` entries pi 1.6.0's
//! `appendContextEdit(targetId, replacement)` writes.

use crate::append::{context_edit_line, fresh_id_in, now_json, require_current, Transaction};
mod redact;

use crate::cli::{session_required, Ctx, Exit, Log, Out, SessionArgs};
use crate::context::{self, Item};
use crate::entry::{EntryType, Id};
use crate::error::{Diagnostic, Error, Result};
use crate::json::{js, scan, Object, ObjectWriter};
use crate::path::path_to;
use crate::refs;
use crate::session::{Input, ReadOptions, Session};
use clap::{ArgGroup, Parser};
use redact::redact_plan;
use std::io::Write;
use std::path::PathBuf;

const EXAMPLES: &str = concat!(
    "\
Examples:
  pi-edit s.jsonl 3f2a --replace 'the key was [redacted]'
                                  the model sees this text instead (a text block
                                  for an assistant or tool result, as pi makes it)
  pi-edit s.jsonl 3f2a --replace-file new.txt    the content from a file (- for stdin)
  pi-edit s.jsonl 3f2a --replace-json '[{\"type\":\"text\",\"text\":\"short\"}]'
                                  content blocks as given
  pi-edit s.jsonl @huge-output --omit            leave the entry out of the context
  pi-edit s.jsonl 3f2a --restore                 the model sees the original again
  pi-edit s.jsonl --list                         edits in force: TARGET KIND EDIT BEFORE AFTER ROLE
  pi-edit s.jsonl --list --json | jq 'select(.kind==\"omit\").target'
  pi-edit s.jsonl --redact 'sk-[A-Za-z0-9]{20,}' --dry-run
                                  which entries hold a key (ENTRY MATCHES -)
  pi-edit s.jsonl --redact 'sk-[A-Za-z0-9]{20,}' --with '[REDACTED]'
                                  one edit per entry: ENTRY MATCHES EDIT

Each edit appends exactly the context_edit entry pi 1.6.0's appendContextEdit
writes (parent: the last entry of the file), with one locked write on a fresh
line, then fsync; the entry itself stays in the file as it was. pi's refusals
are refused with pi's reason: a target not on the active branch (the path to
the last entry), one that adds no editable content (only custom_message
entries and user, assistant and toolResult messages can be edited), a
replacement that is neither a string nor an array.
Prints the new entry's id before appending it (an output that fails: nothing
is appended). --restore with no edit in force writes nothing (exit 0).
A running pi keeps its leaf in memory and appends its next turn under it,
which puts an edit appended meanwhile on a side branch where it stops
applying: every writing mode refuses (exit 1, nothing written) a session a
running pi may be continuing (seen on Linux only: a pi whose session dir holds
SESSION, or whose working directory is SESSION's cwd); quit pi first, or pass
--force. --list and --dry-run are never refused.
--redact matches what the model sees now (after earlier edits): string
content, text and thinking blocks, and the strings and numbers in tool-call
arguments. A thinking block it changes loses its thinkingSignature (it
signed the old text). It edits the whole active branch, as pi-convert's
transcripts show it: an entry before the last compaction (not sent any
more) is edited too, which pi allows and which changes nothing pi sends.
A match pi still sends where no edit can change it (a compaction's summary
or system prompt, a system message's sections, a bash run, a tool result's
details) is said with FILE:LINE, the entry and the field, even with -q; so
is one that still shows in the whole-branch transcript (not sent), such as
an older compaction's summary; matches on other branches (not sent now)
are counted.

SESSION `-`: the session from stdin, and it and the new entries to stdout.

",
    crate::cli::help::help_ref!(),
    "\n",
    crate::cli::help::help_max_line!(),
    "
Exit status: 0 ok, 1 the data or request cannot be honoured (or --redact
matched nothing), 2 wrong usage, 3 --redact left a match that pi still sends
(the edits that can be made are written).",
    crate::cli::help::exact_to_pi!()
);

/// Change what the model sees of an entry of a pi session, without rewriting history.
///
/// pi 1.6 reads `context_edit` entries: the latest one on the path for an
/// entry replaces that entry's content in every context built on that path,
/// or leaves the entry out. pi-edit appends them, so that a secret stops
/// being sent, a huge tool output is shortened, a wrong instruction is taken
/// back, while the file stays append-only and the original stays on disk.
#[derive(Parser, Debug)]
#[command(name = "pi-edit", version, after_help = EXAMPLES)]
#[command(group(ArgGroup::new("edit").args(["replace", "replace_file", "replace_json", "omit", "restore"])))]
pub struct Args {
    #[command(flatten)]
    pub input: SessionArgs,

    /// The entry to edit (a REF).
    #[arg(value_name = "REF")]
    pub reference: Option<String>,

    /// The model sees TEXT as the entry's content.
    #[arg(long, value_name = "TEXT", requires = "reference")]
    pub replace: Option<String>,

    /// The model sees the text of FILE (`-`: stdin) as the entry's content.
    #[arg(long, value_name = "FILE", requires = "reference")]
    pub replace_file: Option<PathBuf>,

    /// The model sees JSON (a string, or an array of content blocks) as the entry's content.
    #[arg(long, value_name = "JSON", requires = "reference")]
    pub replace_json: Option<String>,

    /// Leave the entry out of the context.
    #[arg(long, requires = "reference")]
    pub omit: bool,

    /// The model sees the entry's original content again.
    #[arg(long, requires = "reference")]
    pub restore: bool,

    /// List the edits in force on the active path.
    #[arg(long, conflicts_with_all = ["reference", "redact"])]
    pub list: bool,

    /// With --list: JSON lines {target, line, type, role, kind, edit, editLine, before, after}.
    #[arg(long, requires = "list")]
    pub json: bool,

    /// Edit every entry of the active branch whose text matches PATTERN (a
    /// Rust regex): what the model sees, and the entries before the last
    /// compaction that the whole-branch transcripts show.
    #[arg(long, value_name = "PATTERN", conflicts_with = "reference")]
    pub redact: Option<String>,

    /// With --redact: what each match becomes (taken literally).
    #[arg(
        long,
        value_name = "TEXT",
        requires = "redact",
        default_value = "[REDACTED]"
    )]
    pub with: String,

    /// With --redact: print what would be edited, write nothing.
    #[arg(long, requires = "redact")]
    pub dry_run: bool,

    /// Write even when a running pi may be continuing the session (it would
    /// append its next turn past the edit, which then stops applying).
    #[arg(long)]
    pub force: bool,
}

impl Args {
    fn action(&self) -> Result<Action, Error> {
        if self.list {
            return Ok(Action::List { json: self.json });
        }
        if let Some(p) = &self.redact {
            let pattern = regex::Regex::new(p)
                .map_err(|e| Error::usage(format!("--redact: not a valid pattern: {e}")))?;
            if pattern.is_match("") {
                return Err(Error::usage(
                    "--redact: the pattern matches the empty string (it would match every entry)",
                ));
            }
            return Ok(Action::Redact {
                pattern,
                with: self.with.clone(),
                dry_run: self.dry_run,
            });
        }
        let Some(reference) = self.reference.clone() else {
            return Err(Error::usage(
                "say what to do: REF and an edit, --list or --redact",
            ));
        };
        if self.omit {
            return Ok(Action::Omit { reference });
        }
        if self.restore {
            return Ok(Action::Restore { reference });
        }
        let content = if let Some(t) = &self.replace {
            json_string(t)
        } else if let Some(j) = &self.replace_json {
            parse_json_arg(j).map_err(|e| Error::usage(format!("--replace-json: {e}")))?
        } else if let Some(f) = &self.replace_file {
            json_string(&read_text(f, self.input.session.as_deref().unwrap_or("-"))?)
        } else {
            return Err(Error::usage(
                "say how to edit REF: --replace, --replace-file, --replace-json, --omit or --restore",
            ));
        };
        Ok(Action::Replace { reference, content })
    }
}

/// The text of `--replace-file` (`-`: stdin), which must be UTF-8.
fn read_text(f: &std::path::Path, session: &str) -> Result<String, Error> {
    if f == std::path::Path::new("-") && session == "-" {
        return Err(Error::usage(
            "--replace-file - and SESSION - cannot both be stdin",
        ));
    }
    crate::io::read_text(f, "the replacement", crate::session::max_line())
}

crate::cli::impl_tool! { Args, "pi-edit", quiet = input.quiet, adjust = session_required }

/// `pi-edit`: append the context edits asked for, or list them.
pub(crate) fn run(args: &Args, ctx: &mut Ctx) -> Result<Exit> {
    if args.input.session.as_deref() == Some("") {
        return Err(Error::usage("an empty SESSION names no session"));
    }
    let (action, input) = (args.action()?, args.input.input()?);
    if let (Input::File(p), false) = (&input, args.force || !action.writes()) {
        crate::live::refuse_if_live(p, LIVE_CONSEQUENCE, &mut |d| ctx.log.warn(&d))?;
    }
    apply(
        input,
        args.input.read_options(),
        &action,
        ctx.log,
        ctx.out(),
    )
}

/// What a running pi does to an edit appended meanwhile.
const LIVE_CONSEQUENCE: &str = "pi appends its next turn under the leaf it holds in memory, which puts this edit on a side branch where it stops applying";

/// The exit status of a `--redact` that leaves a match in what pi sends
/// and no edit can change (a compaction's summary, a system prompt, ...):
/// not 0 (the secret is still sent), not 1 (there is a match).
const STILL_SENT: u8 = 3;

/// pi's reason for a replacement it refuses.
pub(crate) const BAD_REPLACEMENT: &str =
    "Context edit replacement must be null or contain string/array content";

/// What to do.
#[derive(Debug, Clone)]
pub(crate) enum Action {
    /// Replace the content the model sees of REF: `content` is JSON text
    /// (a string or an array; anything else is refused as pi refuses it).
    Replace { reference: String, content: Vec<u8> },
    /// Leave REF out of the context (replacement `null`).
    Omit { reference: String },
    /// Make the model see REF's original content again.
    Restore { reference: String },
    /// The edits in force on the active path.
    List { json: bool },
    /// One edit per editable entry on the active branch whose content (as
    /// the model or the whole-branch transcript sees it) matches.
    Redact {
        pattern: regex::Regex,
        with: String,
        dry_run: bool,
    },
}

/// What an action appends, and (`--redact`) how many entries still send
/// a match that no context edit can change, and how many entries before
/// the context still show one in the whole-branch transcripts (not sent:
/// they leave the exit status alone).
struct Plan {
    edits: Vec<Planned>,
    still_sent: usize,
    still_shown: usize,
}

/// One entry to append: its target, and the `replacement` JSON text.
struct Planned {
    target: Id,
    replacement: Vec<u8>,
    /// What to print for it (redact: the number of matches).
    matches: Option<usize>,
}

fn id_of(s: &Session, i: usize) -> Result<Id> {
    s.entries.id(i).ok_or_else(|| {
        Error::data(
            &s.name,
            Some(s.entries[i].line()),
            "this entry has no id to edit",
        )
    })
}

/// The role pi gives entry `i` as an edit target ("custom" for a
/// `custom_message`), or None when pi does not let it be edited. A
/// `message` entry without a message makes pi fail (TypeError).
fn editable_role(s: &Session, i: usize) -> Result<Option<String>> {
    match s.entries[i].ty() {
        EntryType::CustomMessage => Ok(Some("custom".into())),
        EntryType::Message => {
            let line = s.line(i)?;
            let obj = s.object(&line, s.entries[i].line())?;
            if matches!(obj.raw("message"), None | Some(b"null")) {
                return Err(Error::data(
                    &s.name,
                    Some(s.entries[i].line()),
                    "a \"message\" entry without a message (pi 1.6 fails on it: TypeError)",
                ));
            }
            let role = obj
                .object("message")
                .and_then(|m| m.str("role").map(|r| r.into_owned()));
            Ok(role.filter(|r| matches!(r.as_str(), "user" | "assistant" | "toolResult")))
        }
        _ => Ok(None),
    }
}

/// pi's checks of `appendContextEdit(target, replacement)` in pi's order,
/// and the normalized `replacement` JSON text. `content` None is `null`.
fn checked(s: &Session, target: usize, content: Option<&[u8]>) -> Result<Vec<u8>> {
    let content = match content {
        None => None,
        Some(c) => match scan::kind_of(c) {
            Some(scan::Kind::String | scan::Kind::Array) => Some(c),
            _ => return Err(Error::request(&s.name, BAD_REPLACEMENT)),
        },
    };
    let leaf = refs::leaf(s)?;
    // pi's getBranch(): empty when the leaf's id is falsy (null, 0, false, "").
    let branch = if refs::branch_is_empty(s, leaf) {
        Vec::new()
    } else {
        path_to(s, leaf)?
    };
    if !branch.iter().any(|&i| s.entries.same_id(i, target)) {
        return Err(not_on_branch(s, target, leaf)?);
    }
    checked_on_branch(s, target, content)
}

/// pi's refusal of a target that is not on the active branch.
fn not_on_branch(s: &Session, target: usize, leaf: usize) -> Result<Error> {
    Ok(Error::data(
        &s.name,
        Some(s.entries[target].line()),
        format!(
            "Entry {} is not on the active branch (the path from the last entry, line {}, to its root)",
            id_of(s, target)?,
            s.entries[leaf].line()
        ),
    ))
}

/// [`checked`] for a target known to be on the active branch, with a
/// string or array `content` (None: `null`): the rest of pi's checks, and
/// the replacement. `--redact` calls it once per entry: walking the branch
/// for each would make it quadratic.
fn checked_on_branch(s: &Session, target: usize, content: Option<&[u8]>) -> Result<Vec<u8>> {
    let id = id_of(s, target)?;
    let Some(role) = editable_role(s, target)? else {
        return Err(Error::data(
            &s.name,
            Some(s.entries[target].line()),
            format!(
                "Entry {id} does not contribute editable model content (a {} entry; only custom_message entries and user, assistant and toolResult messages can be edited)",
                describe(s, target)
            ),
        ));
    };
    Ok(match content {
        None => b"null".to_vec(),
        Some(c) => {
            let mut w = ObjectWriter::new();
            if c.first() == Some(&b'"') && matches!(role.as_str(), "assistant" | "toolResult") {
                let mut block = b"[{\"type\":\"text\",\"text\":".to_vec();
                block.extend_from_slice(c);
                block.extend_from_slice(b"}]");
                w.raw("content", Some(&block));
            } else {
                w.raw("content", Some(c));
            }
            w.finish()
        }
    })
}

/// "message (bashExecution)", "compaction", ...
fn describe(s: &Session, i: usize) -> String {
    let ty = s.type_name(i).to_string();
    if s.entries[i].ty() == EntryType::Message {
        if let Ok(Some(role)) = context::message_role(s, i) {
            return format!("{ty} ({role})");
        }
    }
    ty
}

/// Canonical JSON text (`JSON.stringify(JSON.parse(text))`) of a value
/// given on the command line.
pub(crate) fn parse_json_arg(text: &str) -> std::result::Result<Vec<u8>, String> {
    let bytes = text.as_bytes();
    let range = scan::validate(bytes).map_err(|e| format!("not valid JSON: {e}"))?;
    js::canonical_vec(bytes, range).map_err(|e| format!("not valid JSON: {e}"))
}

/// JSON text of a string.
pub(crate) fn json_string(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len() + 2);
    js::write_str(&mut out, s);
    out
}

/// The context item of entry `target` at the leaf, if it is in the context.
fn item_of(ctx: &context::Context, target: usize) -> Option<Item> {
    ctx.items.iter().copied().find(|it| {
        matches!(it, Item::Entry(_) | Item::Edited(..) | Item::Omitted(..)) && it.entry() == target
    })
}

/// `--restore`: the entry's original content as the model sees it without
/// an edit, or None when no edit is in force for it (nothing to restore).
fn restore_content(s: &Session, target: usize) -> Result<Option<Vec<u8>>> {
    let leaf = refs::leaf(s)?;
    let ctx = context::build(s, Some(leaf))?;
    let Some(item @ (Item::Edited(..) | Item::Omitted(..))) = item_of(&ctx, target) else {
        return Ok(None);
    };
    let line = Some(s.entries[target].line());
    let Some(msg) = context::message_json(s, Item::Entry(target))? else {
        return Ok(None);
    };
    // An edit in force that gives the original (an earlier --restore).
    if context::message_json(s, item)?.as_deref() == Some(&msg[..]) {
        return Ok(None);
    }
    let obj = Object::at(&msg, 0..msg.len())
        .map_err(|e| Error::data(&s.name, line, format!("the message: {e}")))?;
    let content = obj.raw("content").unwrap_or(b"[]").to_vec();
    let role = obj.str("role").map(|r| r.into_owned()).unwrap_or_default();
    match scan::kind_of(&content) {
        Some(scan::Kind::Array) => {}
        Some(scan::Kind::String) if !matches!(role.as_str(), "assistant" | "toolResult") => {}
        Some(scan::Kind::String) => {
            return Err(Error::data(
                &s.name,
                line,
                format!("the original content of this {role} message is a string, which pi shows as a text block under any context edit; no edit can give back the unedited context (--replace-json '[{{\"type\":\"text\",\"text\":...}}]' comes closest)"),
            ))
        }
        _ => {
            return Err(Error::data(
                &s.name,
                line,
                format!("the original content is neither a string nor an array, and pi refuses such a replacement: {BAD_REPLACEMENT}"),
            ))
        }
    }
    Ok(Some(content))
}

/// Run `pi-edit`. File input is locked only while it is appended to;
/// stdin input is echoed to stdout with the new lines. `log` receives the
/// reading warnings and the tool's own.
pub(crate) fn apply(
    input: Input,
    opts: ReadOptions,
    action: &Action,
    log: Log,
    out: &mut impl Write,
) -> Result<Exit> {
    let tx = match (&input, action.writes()) {
        (Input::File(p), true) => Some(Transaction::open(p)?),
        _ => None,
    };
    let s = Session::open(input, opts)?;
    log.warn_all(&s.warnings);
    if let Action::List { json } = action {
        return list(&s, *json, out).map(|()| Exit::Ok);
    }
    require_current(&s.name, s.version())?;
    let Some(plan) = plan(&s, action, log)? else {
        return out.done().map(|()| Exit::Ok);
    };
    let exit = if plan.still_sent > 0 {
        Exit::Status(STILL_SENT)
    } else {
        Exit::Ok
    };
    if plan.edits.is_empty() {
        if plan.still_sent > 0 || plan.still_shown > 0 {
            log.loud().note(format!(
                "{}: every match on the active branch is where no context edit can change it (above); nothing written",
                crate::error::escape_name(&s.name)
            ));
            return out.done().map(|()| exit);
        }
        return Err(Error::request(
            &s.name,
            "no match in what the model sees on the active path, nor before it on the branch; nothing written",
        ));
    }
    let dry_run = matches!(action, Action::Redact { dry_run: true, .. });
    write_planned(tx, &s, &plan.edits, dry_run, out)?;
    Ok(exit)
}

/// The entries to append for `action` (not `--list`); None when there is
/// nothing to do and that was said (`--restore` with no edit in force).
fn plan(s: &Session, action: &Action, log: Log) -> Result<Option<Plan>> {
    let one = |t: usize, replacement: Vec<u8>| -> Result<Option<Plan>> {
        Ok(Some(Plan {
            edits: vec![Planned {
                target: id_of(s, t)?,
                replacement,
                matches: None,
            }],
            still_sent: 0,
            still_shown: 0,
        }))
    };
    match action {
        // Answered before.
        Action::List { .. } => Ok(Some(Plan {
            edits: Vec::new(),
            still_sent: 0,
            still_shown: 0,
        })),
        Action::Replace { reference, content } => {
            let t = refs::resolve(s, reference)?;
            let replacement = checked(s, t, Some(content))?;
            not_in_context_note(s, t, log)?;
            one(t, replacement)
        }
        Action::Omit { reference } => {
            let t = refs::resolve(s, reference)?;
            let replacement = checked(s, t, None)?;
            not_in_context_note(s, t, log)?;
            one(t, replacement)
        }
        Action::Restore { reference } => {
            let t = refs::resolve(s, reference)?;
            // pi's checks first: a target pi refuses is refused here too.
            checked(s, t, None)?;
            match restore_content(s, t)? {
                None => {
                    log.warn(&Diagnostic::plain(format!(
                        "{}: entry {} has no context edit in force (or one that gives its original content): the model sees its original already; nothing written",
                        place(s, t),
                        id_of(s, t)?
                    )));
                    Ok(None)
                }
                Some(content) => one(t, checked(s, t, Some(&content))?),
            }
        }
        Action::Redact { pattern, with, .. } => redact_plan(s, pattern, with, log).map(Some),
    }
}

impl Action {
    /// Whether the action appends to the session (not --list, not --dry-run).
    fn writes(&self) -> bool {
        match self {
            Action::List { .. } => false,
            Action::Redact { dry_run, .. } => !dry_run,
            _ => true,
        }
    }
}

/// Print what `planned` makes and append it (or, dry run, only print).
/// The new entries are chained: each one's parent is the one before, the
/// first one's the leaf at the moment of writing.
fn write_planned(
    tx: Option<Transaction>,
    s: &Session,
    planned: &[Planned],
    dry_run: bool,
    out: &mut impl Write,
) -> Result<()> {
    let mut ids: Vec<String> = Vec::new();
    // One set of the ids drawn: a list searched for each would make a
    // large --redact quadratic.
    let mut taken = std::collections::HashSet::new();
    let mut said: Vec<u8> = Vec::new();
    for p in planned {
        let id = fresh_id_in(&s.index, &mut taken);
        match p.matches {
            Some(n) => said.extend_from_slice(
                format!(
                    "{}\t{n}\t{}\n",
                    // An id from the file: shown, never written raw.
                    crate::visible::field(&p.target.to_string()),
                    if dry_run { "-" } else { id.as_str() }
                )
                .as_bytes(),
            ),
            None => said.extend_from_slice(format!("{id}\n").as_bytes()),
        }
        ids.push(id);
    }
    if dry_run {
        out.bytes(&said)?;
        return out.done();
    }
    let now = now_json();
    let build = |leaf: Option<&[u8]>| {
        let mut parent = leaf.map(<[u8]>::to_vec);
        let mut lines: Vec<u8> = Vec::new();
        for (p, id) in planned.iter().zip(&ids) {
            if !lines.is_empty() {
                lines.push(b'\n');
            }
            lines.extend_from_slice(&context_edit_line(
                id,
                parent.as_deref(),
                &now,
                p.target.to_json().as_bytes(),
                &p.replacement,
            ));
            parent = Some(crate::migrate::json_str(id));
        }
        lines
    };
    crate::append::write_new_lines(tx, s, &said, build, out)
}

/// A warning when the target is on the branch but not in the context (a
/// compaction left it out): pi takes the edit, and nothing changes.
fn not_in_context_note(s: &Session, t: usize, log: Log) -> Result<()> {
    let leaf = refs::leaf(s)?;
    let ctx = context::build(s, Some(leaf))?;
    if item_of(&ctx, t).is_none() {
        log.warn(&Diagnostic::plain(format!(
            "{}: entry {} is not in the context (a compaction summarizes it): the edit is written, as pi writes it, but changes nothing the model sees",
            place(s, t),
            id_of(s, t)?
        )));
    }
    Ok(())
}

/// `FILE:LINE` of entry `i`, as messages print it.
fn place(s: &Session, i: usize) -> String {
    format!(
        "{}:{}",
        crate::error::escape_name(&s.name),
        s.entries[i].line()
    )
}

/// The size in bytes of an item's message JSON (0 when omitted).
fn size(s: &Session, item: Item) -> Result<usize> {
    Ok(context::message_json(s, item)?.map_or(0, |m| m.len()))
}

/// `--list`: the edits in force on the active path, in context order.
pub(crate) fn list(s: &Session, json: bool, out: &mut impl Write) -> Result<()> {
    let Some(leaf) = s.index.leaf else {
        return out.done();
    };
    let ctx = context::build(s, Some(leaf))?;
    for item in ctx.items {
        let (i, e, kind) = match item {
            Item::Edited(i, e) => (i, e, "replace"),
            Item::Omitted(i, e) => (i, e, "omit"),
            _ => continue,
        };
        let before = size(s, Item::Entry(i))?;
        let after = size(s, item)?;
        let target = id_of(s, i)?.to_string();
        let edit = id_of(s, e)?.to_string();
        let role = context::message_json(s, Item::Entry(i))?
            .and_then(|m| {
                Object::at(&m, 0..m.len())
                    .ok()
                    .and_then(|o| o.str("role").map(|r| r.into_owned()))
            })
            .unwrap_or_default();
        if json {
            let mut w = ObjectWriter::new();
            w.str("target", &target)
                .number("line", s.entries[i].line() as f64)
                .str("type", s.type_name(i))
                .str("role", &role)
                .str("kind", kind)
                .str("edit", &edit)
                .number("editLine", s.entries[e].line() as f64)
                .number("before", before as f64)
                .number("after", after as f64);
            out.line(&w.finish())?;
        } else {
            let esc = crate::error::escape_name;
            out.text(format_args!(
                "{}\t{kind}\t{}\t{before}\t{after}\t{}\n",
                esc(&target),
                esc(&edit),
                esc(&role)
            ))?;
        }
    }
    out.done()
}
