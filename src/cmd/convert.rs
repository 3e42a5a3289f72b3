//! `pi-convert`: the messages the model sees (pi's `convertToLlm`), or a
//! transcript people can read, from a session or a stream of messages.

use crate::cli::{Ctx, Exit, Log, Out, SessionArgs};
use crate::context::{self, Item};
use crate::convert::{self, ConvertError, Converted};
use crate::error::{Error, Result};
use crate::json::js::string::is_blank;
use crate::json::Object;
use crate::refs;
use crate::session::Input;
use crate::session::{ReadOptions, Session};
use crate::transcript::{self, Meta, Source};
use clap::Parser;
use std::io::Write;

const EXAMPLES: &str = concat!(
    "\
Examples:
  pi-convert s.jsonl                        the pi-ai messages sent to the model, one per line
  pi-convert --leaf @plan s.jsonl           the same at the entry labelled plan
  pi-convert --to markdown s.jsonl > t.md   the whole branch, root to leaf, to read or share
  pi-convert --to markdown --as-sent s.jsonl
                                            only what the model is sent at the leaf
  pi-convert --to text s.jsonl | grep '^compaction:'
                                            where the branch was compacted, and how much
  pi-convert --to html s.jsonl > t.html     the whole tree as one page, like pi's /export
                                            (works without JavaScript, no network, prints well)
  pi-convert --to html --leaf @plan-a s.jsonl > t.html
                                            the same, the plan-a branch shown first
  pi-convert --to text s.jsonl | grep '^toolResult (bash, error)'
                                            failed bash tool calls
  pi-convert --to markdown --include-hidden s.jsonl
                                            with the !! bash runs the model never saw
  pi-path --format messages s.jsonl | pi-convert
                                            messages on stdin (detected from the first line)
  pi-convert 019a5c --to text               a session by id prefix, like pi --session

",
    crate::cli::help::help_leaf_tool_footer!()
);

/// Exactly what the model sees, and transcripts people can read.
///
/// The input is a pi session (a file, `-` for stdin, or a session-id
/// prefix) or AgentMessages, one JSON object per line (what `pi-path
/// --format messages` prints); which one is told from the first non-empty
/// line unless --from says. For a session, `--to llm` converts the context
/// pi builds at the leaf (buildSessionContext); `--to markdown|text` show
/// the whole branch from the root to the leaf: every message, compactions
/// as a marked point with their summary, model, thinking-level, name and
/// context-edit entries as marks, labels and ids on the entries; `--to
/// html` is one page of the whole tree, as pi's /export: header totals,
/// system prompt and tools, the tree in a sidebar with pi's filters, every
/// branch reachable by links without JavaScript, markdown rendered, edit
/// calls as diffs, long outputs folded (`--as-sent`, for all three: only
/// the context at the leaf, the previous view). `--to llm` writes
/// pi's convertToLlm answer byte for byte: user, assistant and toolResult
/// messages as they are, bash executions, custom messages and summaries as
/// user messages, `!!` bash runs and unknown roles left out.
#[derive(Parser, Debug)]
#[command(name = "pi-convert", version, after_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    pub input: SessionArgs,

    /// What the input is (default: detected from the first non-empty line).
    #[arg(long, value_enum, value_name = "KIND")]
    pub from: Option<From>,

    /// What to write.
    #[arg(long, value_enum, value_name = "FORMAT", default_value = "llm")]
    pub to: To,

    /// For a session: the entry whose context is converted (a REF, see
    /// below; --at is the same, as in pi-fork).
    #[arg(long, value_name = "REF", default_value = "leaf", visible_alias = "at")]
    pub leaf: String,

    /// In markdown, html and text: also show what the model does not see,
    /// marked as such: bash runs excluded from the context (`!!`), the
    /// content of entries a context edit omits, the original of an edited
    /// entry, a compaction's system prompt (never in --to llm). Without it
    /// an entry is shown as the context edits in force at the leaf leave
    /// it, anywhere on the branch, so a redaction (pi-edit --redact) stays
    /// redacted.
    #[arg(long)]
    pub include_hidden: bool,

    /// In markdown, text and html: only what the model is sent at the leaf
    /// (the context from the last compaction on), instead of the whole
    /// branch from the root (the whole tree, for html): the previous view.
    /// A whole branch is streamed: bad input stops it before anything is
    /// written when the transcript is under 4 MiB, else where it is.
    #[arg(long)]
    pub as_sent: bool,
}

crate::cli::impl_tool! { Args, "pi-convert", quiet = input.quiet }

/// `pi-convert`: read SESSION (a session or a message stream), print it
/// in the form asked for.
pub(crate) fn run(args: &Args, ctx: &mut Ctx) -> Result<Exit> {
    let input = args.input.input()?;
    let name = input.display_name();
    let data = match input {
        Input::Stdin => {
            let b = crate::session::read_stdin(&name).map_err(|e| args.input.forgotten_ref(e))?;
            // Nothing to read and a REF option naming a file: the REF was left out.
            if b.iter().all(u8::is_ascii_whitespace) {
                if let Some(e) = args.input.forgotten_ref_error() {
                    return Err(e);
                }
            }
            Data::Bytes(b)
        }
        Input::File(p) => {
            if p.is_dir() {
                return Err(Error::request(
                    &name,
                    "is a directory, not a session or message file",
                ));
            }
            if std::fs::metadata(&p).is_ok_and(|m| !m.is_file()) {
                // A pipe or a device: read once, as stdin is.
                let f = std::fs::File::open(&p).map_err(|e| Error::io(&name, &e))?;
                Data::Bytes(crate::session::read_stream(&mut &f, &name)?)
            } else {
                Data::File(p)
            }
        }
    };
    let opts = Options {
        from: args.from,
        to: args.to,
        leaf: args.leaf.clone(),
        include_hidden: args.include_hidden,
        as_sent: args.as_sent,
        read: args.input.read_options(),
        log: ctx.log,
    };
    run_data(&name, data, &opts, ctx.out())?;
    Ok(Exit::Ok)
}

/// What the input is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum From {
    /// A pi session file (header line, then entries).
    Session,
    /// AgentMessages, one JSON object per line (`pi-path --format messages`).
    Messages,
}

/// What to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum To {
    /// pi-ai Message JSON lines, exactly what pi's convertToLlm gives.
    Llm,
    /// A Markdown transcript of the whole branch (--as-sent: of what is sent).
    Markdown,
    /// A self-contained HTML page: for a session, the whole tree as pi's
    /// /export shows it (readable without JavaScript, no network).
    Html,
    /// Plain `role: text` lines of the whole branch, for grep (marks as
    /// `model: ...`, `compaction: ...`).
    Text,
}

/// How to convert.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// Force the input kind (else detected from the first non-empty line).
    pub from: Option<From>,
    pub to: To,
    /// The leaf REF for session input.
    pub leaf: String,
    pub include_hidden: bool,
    /// Markdown and text: what is sent at the leaf, not the whole branch.
    pub as_sent: bool,
    pub read: ReadOptions,
    /// Where session warnings go.
    pub log: Log,
}

/// What one line tells of the input's kind.
enum Told {
    Kind(From),
    /// A line pi's session loader passes over: blank (JavaScript's
    /// `trim()`), or a falsy value.
    Skip,
    /// Not JSON: pi's loader passes over it too, but it is the error if
    /// no later line tells the kind.
    NotJson(Error),
    Refused(Error),
}

/// The kind the line `line` (number `lineno`) tells, as pi's
/// `loadEntriesFromFile` reads it: the first value it keeps decides.
fn told(name: &str, lineno: u64, line: &[u8]) -> Told {
    if is_blank(line) {
        return Told::Skip;
    }
    let obj = match Object::parse_line(line) {
        Ok(Some(o)) => o,
        Ok(None) if !crate::json::js::truthy(crate::json::scan::trim_ws(line)) => {
            return Told::Skip
        }
        Ok(None) => return Told::Refused(Error::data(name, Some(lineno), "not a JSON object")),
        Err(e) => return Told::NotJson(Error::data(name, Some(lineno), format!("not JSON: {e}"))),
    };
    if obj.str("type").as_deref() == Some("session")
        || (obj.get("type").is_some() && obj.get("id").is_some())
    {
        return Told::Kind(From::Session);
    }
    if obj.get("role").is_some() {
        return Told::Kind(From::Messages);
    }
    Told::Refused(Error::data(
        name,
        Some(lineno),
        "neither a session header or entry nor a message (no \"type\" and \"id\", no \"role\"); use --from",
    ))
}

/// Where detection stands after some lines.
#[derive(Default)]
struct Detecting {
    not_json: Option<Error>,
}

impl Detecting {
    /// The kind, once a line tells it.
    fn line(&mut self, name: &str, lineno: u64, line: &[u8]) -> Option<Result<From>> {
        match told(name, lineno, line) {
            Told::Kind(k) => Some(Ok(k)),
            Told::Refused(e) => Some(Err(e)),
            Told::Skip => None,
            Told::NotJson(e) => {
                self.not_json.get_or_insert(e);
                None
            }
        }
    }

    /// The kind at the end of the input: the first line that is not JSON
    /// is the error; nothing at all is an empty stream of messages.
    fn end(self) -> Result<From> {
        self.not_json.map_or(Ok(From::Messages), Err)
    }
}

/// Tell a session from a message stream by the first line pi would keep.
pub(crate) fn detect(name: &str, bytes: &[u8]) -> Result<From> {
    // A leading byte order mark is not part of the first line (pi trims it).
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut d = Detecting::default();
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if let Some(k) = d.line(name, n as u64 + 1, line) {
            return k;
        }
    }
    d.end()
}

/// The input: held in memory, or a session file read as it is needed.
pub(crate) enum Data {
    Bytes(Vec<u8>),
    /// A file: a session is read line by line (only the lines on the path
    /// are read twice), a message stream into memory.
    File(std::path::PathBuf),
}

/// Tell a session file from a message file by the first line pi would
/// keep, without reading the rest.
pub(crate) fn detect_file(name: &str, path: &std::path::Path) -> Result<From> {
    use std::io::BufRead;
    let f = std::fs::File::open(path).map_err(|e| Error::io(name, &e))?;
    let limit = crate::session::max_line();
    let mut r = std::io::BufReader::new(f);
    let mut line = Vec::new();
    let mut d = Detecting::default();
    for number in 1u64.. {
        line.clear();
        // At most one byte more than a line may have (then it is too long).
        let n = std::io::Read::take(&mut r, limit.saturating_add(1))
            .read_until(b'\n', &mut line)
            .map_err(|e| Error::io(name, &e))?;
        if n == 0 {
            break;
        }
        if n as u64 > limit && !line.ends_with(b"\n") {
            return Err(crate::session::line_too_long(name, number, limit));
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        let text = match number {
            1 => text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text),
            _ => text,
        };
        if let Some(k) = d.line(name, number, text) {
            return k;
        }
    }
    d.end()
}

/// Convert the input held in `bytes` (named `name` in messages).
#[cfg(feature = "fuzzing")]
pub(crate) fn convert_bytes(
    name: &str,
    bytes: Vec<u8>,
    opts: &Options,
    out: &mut impl Write,
) -> Result<()> {
    run_data(name, Data::Bytes(bytes), opts, out)
}

/// Convert the input (named `name` in messages).
pub(crate) fn run_data(name: &str, data: Data, opts: &Options, out: &mut impl Write) -> Result<()> {
    let from = match (opts.from, &data) {
        (Some(f), _) => f,
        (None, Data::Bytes(b)) => detect(name, b)?,
        (None, Data::File(p)) => detect_file(name, p)?,
    };
    // The load also tells each message's role (on the loading threads),
    // so that the context's walk need not read every message on the path
    // again.
    // It also proves which lines are `JSON.stringify`'s text, so that their
    // messages are copied, not checked again.
    let read = ReadOptions {
        roles: true,
        canonical: true,
        ..opts.read
    };
    let (msgs, meta) = match (from, data) {
        (From::Session, Data::Bytes(bytes)) => {
            return session(&Session::from_bytes(name, bytes, read)?, opts, out)
        }
        (From::Session, Data::File(p)) => {
            return session(
                &Session::open(crate::session::Input::File(p), read)?,
                opts,
                out,
            )
        }
        (From::Messages, data) => (
            stream_messages(
                name,
                &match data {
                    Data::Bytes(b) => b,
                    Data::File(p) => {
                        let f = std::fs::File::open(&p).map_err(|e| Error::io(name, &e))?;
                        crate::session::read_stream(&mut &f, name)?
                    }
                },
            )?,
            Meta {
                title: format!(
                    "Messages from {}",
                    // a file name's bytes that are not UTF-8 as \xNN
                    crate::name::shown(
                        &std::path::Path::new(name)
                            .file_name()
                            .map_or(name.into(), |f| f.to_string_lossy())
                    )
                ),
                fields: vec![],
            },
        ),
    };
    write(name, &msgs, &meta, opts, out)
}

/// A session: the whole branch (markdown, text), streamed, or the
/// messages sent at the leaf.
fn session(s: &Session, opts: &Options, out: &mut impl Write) -> Result<()> {
    opts.log.warn_all(&s.warnings);
    if opts.to == To::Html && !opts.as_sent {
        return page(s, opts, out);
    }
    let leaf = session_leaf(s, opts)?;
    let format = match opts.to {
        To::Markdown => Some(transcript::Format::Markdown),
        To::Text => Some(transcript::Format::Text),
        To::Llm | To::Html => None,
    };
    match format {
        Some(f) if !opts.as_sent => {
            let meta = session_meta(s, leaf);
            let topts = transcript::Options {
                include_hidden: opts.include_hidden,
            };
            transcript::write_branch(s, refs::context_leaf(s, leaf), &meta, f, topts, out)?;
            out.done()
        }
        // What is sent, streamed the same way.
        Some(f) => {
            let topts = transcript::Options {
                include_hidden: opts.include_hidden,
            };
            let meta = session_meta(s, leaf);
            transcript::write_sent(s, refs::context_leaf(s, leaf), &meta, f, topts, out)?;
            out.done()
        }
        // Streamed, message by message.
        _ if opts.to == To::Llm => {
            convert::write_context(s, refs::context_leaf(s, leaf), out)?;
            out.done()
        }
        _ => {
            let msgs = session_messages(s, leaf, opts)?;
            write(&s.name, &msgs, &session_meta(s, leaf), opts, out)
        }
    }
}

/// Write `msgs` in the form asked for.
fn write(
    name: &str,
    msgs: &[Source],
    meta: &Meta,
    opts: &Options,
    out: &mut impl Write,
) -> Result<()> {
    let mut buf = Vec::new();
    match opts.to {
        To::Llm => {
            for m in msgs {
                let r = convert::to_llm(&m.json, 0..m.json.len()).map_err(|e| match e {
                    ConvertError::Null => Error::data(
                        name,
                        Some(m.line),
                        "the message is null; pi's convertToLlm fails on it",
                    ),
                    ConvertError::Syntax(e) => Error::data(name, Some(m.line), e.to_string()),
                })?;
                if let Converted::Message(j) = r {
                    buf.extend_from_slice(&j);
                    buf.push(b'\n');
                }
            }
        }
        To::Markdown | To::Html | To::Text => {
            let format = match opts.to {
                To::Markdown => transcript::Format::Markdown,
                To::Html => transcript::Format::Html,
                _ => transcript::Format::Text,
            };
            let turns = transcript::build(
                name,
                msgs,
                transcript::Options {
                    include_hidden: opts.include_hidden,
                },
            )?;
            transcript::write(format, meta, &turns, &mut buf).map_err(Error::output)?;
        }
    }
    out.bytes(&buf)?;
    out.done()
}

/// The page of the whole session (`--to html`), the `--leaf` REF's
/// path shown first.
fn page(s: &Session, opts: &Options, out: &mut impl Write) -> Result<()> {
    // The page's leaf is an entry even when the last one's id is null:
    // the branch shown first, not a context.
    let leaf = match (opts.leaf.as_str(), s.index.leaf) {
        ("leaf", None) => None,
        (r, _) => Some(refs::resolve(s, r)?),
    };
    crate::page::write(s, leaf, opts.include_hidden, out)?;
    out.done()
}

/// The entry `--leaf` names (None: the last entry, or pi's null leaf).
fn session_leaf(s: &Session, opts: &Options) -> Result<Option<usize>> {
    Ok(match (opts.leaf.as_str(), s.index.leaf) {
        ("leaf", None) => None,
        // The last entry's id is null: so is pi's leaf (an empty context).
        ("leaf", Some(_)) if s.leaf_id_null => None,
        (r, _) => Some(refs::resolve(s, r)?),
    })
}

/// The context messages of a session at `leaf` (the `--leaf` REF).
fn session_messages(s: &Session, leaf: Option<usize>, opts: &Options) -> Result<Vec<Source>> {
    let ctx = context::build(s, refs::context_leaf(s, leaf))?;
    // Transcripts also show what the model does not see: entries a context
    // edit omits (marked), the original of an edited one, usage entries.
    let reader = !matches!(opts.to, To::Llm);
    let mut msgs = Vec::with_capacity(ctx.items.len());
    for item in ctx.items {
        let src = match item {
            // What the model does not see: for the transcripts only.
            Item::Usage(_) | Item::Omitted(..) if !reader => None,
            Item::Edited(i, _) if !reader => {
                context::message_json(s, item)?.map(|json| Source::sent(json, s.entries[i].line()))
            }
            _ => transcript::source_of(s, item)?,
        };
        msgs.extend(src);
    }
    Ok(msgs)
}

/// What a session's transcript is about: its name or id, cwd, start, leaf.
fn session_meta(s: &Session, leaf: Option<usize>) -> Meta {
    let mut fields = vec![("session".to_string(), transcript::clean(&s.header.id))];
    if let Ok(h) = s.header_line() {
        if let Ok(Some(o)) = Object::parse_line(&h) {
            if let Some(cwd) = o.str("cwd") {
                fields.push(("cwd".into(), transcript::clean(&cwd)));
            }
            if let Some(t) = o.str("timestamp") {
                fields.push(("started".into(), transcript::clean(&t)));
            }
        }
    }
    if let Some(l) = leaf {
        fields.push(("leaf".into(), transcript::clean(&s.entries.id_string(l))));
    }
    let title = match &s.index.name {
        Some(n) => transcript::clean(n),
        None => format!("Session {}", transcript::clean(&s.header.id)),
    };
    Meta { title, fields }
}

/// A stream of messages: one JSON object with a string `role` per line.
fn stream_messages(name: &str, bytes: &[u8]) -> Result<Vec<Source>> {
    let mut msgs = Vec::new();
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let lineno = n as u64 + 1;
        if is_blank(line) {
            continue;
        }
        let obj = match Object::parse_line(line) {
            Ok(Some(o)) => o,
            Ok(None) => {
                return Err(Error::data(
                    name,
                    Some(lineno),
                    "not a JSON object (a message is one)",
                ))
            }
            Err(e) => return Err(Error::data(name, Some(lineno), format!("not JSON: {e}"))),
        };
        match obj.get("role") {
            None => {
                return Err(Error::data(
                    name,
                    Some(lineno),
                    "the message has no \"role\"",
                ))
            }
            Some(r) if line[r.start] != b'"' => {
                return Err(Error::data(
                    name,
                    Some(lineno),
                    "the message's \"role\" is not a string",
                ))
            }
            Some(_) => {}
        }
        msgs.push(Source::sent(line.to_vec(), lineno));
    }
    Ok(msgs)
}
