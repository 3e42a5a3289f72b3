//! `pi-tree`: pi's `/tree` view from the shell, pi's `getTree()` as JSON,
//! one JSON line per entry, a Graphviz graph, and statistics.
//!
//! The text view replays `TreeSelectorComponent` (pi's
//! `modes/interactive/components/tree-selector.js`): the same display
//! order (the branch holding the active leaf first), indentation,
//! connectors and gutters, `•` on the active path, `[label]`, one-line
//! summaries and filter modes; without the cursor column, the fold glyphs
//! (drawn `─`) and the `(n/m)` counter. Nothing here recurses.

use crate::cli::{out_err, Ctx, Exit, SessionArgs, Tool};
use crate::entry::{is_js_space, EntryType, Id};
use crate::error::{Diagnostic, Error, Result};
use crate::json::{js, scan, Object};
use crate::refs;
use crate::session::Session;
use crate::tree::{Step, Tree};
use clap::Parser;
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::rc::Rc;

const EXAMPLES: &str = concat!(
    "\
Examples:
  pi-tree s.jsonl                         the tree as pi's /tree shows it
  pi-tree --filter user-only s.jsonl      only the user messages
  pi-tree --search 'parser json' s.jsonl  entries holding both words
  pi-tree --leaf @plan --ids s.jsonl      mark the path to the entry labelled plan, with ids
  pi-tree --json s.jsonl | jq '.[0].entry.id'
                                          pi's getTree(), exactly
  pi-tree --format jsonl s.jsonl | jq -r 'select(.children|length>1).id'
                                          every branch point
  pi-tree --format dot s.jsonl | dot -Tsvg > tree.svg
                                          a picture of the tree
  pi-tree --stats s.jsonl | jq .maxDepth  the depth of the deepest path
  pi-tree --color always 019a5c | less -R
                                          a session by id prefix, coloured in less

",
    crate::help_ref_leaf!(),
    "\n\n",
    crate::help_max_line!(),
    "\n",
    crate::help_exit!(),
    crate::exact_to_pi!()
);

/// pi's /tree view of a session, from the shell.
///
/// The text view is the list of pi's /tree selector without the cursor,
/// the fold glyphs and the counter: the branch holding the active leaf
/// first, children by timestamp, `•` on the path to the active leaf,
/// `[label]` before labelled entries, one line per entry (usage records
/// are never shown; `No entries found` when nothing passes the filter).
/// Entries on a parentId cycle are not in pi's tree; they are reported as
/// warnings.
#[derive(Parser, Debug)]
#[command(name = "pi-tree", version, after_help = EXAMPLES)]
pub struct Args {
    /// When to colour: auto (on a terminal, unless NO_COLOR is set;
    /// CLICOLOR_FORCE or FORCE_COLOR force it), always (e.g. for `less -R`), never.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "auto")]
    pub color: crate::cli::ColorWhen,

    #[command(flatten)]
    pub input: SessionArgs,

    /// Which entries to show, as pi's /tree filters (text: `default`; with
    /// --format jsonl or dot: every entry unless given).
    #[arg(long, value_enum)]
    pub filter: Option<Filter>,

    /// Show only entries whose text holds every word (case-insensitive, as
    /// typing in pi's /tree).
    #[arg(long, value_name = "WORDS")]
    pub search: Option<String>,

    /// The active leaf whose path is marked with • (a REF; default: the
    /// last entry, where pi continues; --at is the same, as in pi-fork).
    #[arg(long, value_name = "REF", visible_alias = "at")]
    pub leaf: Option<String>,

    /// Prefix each line with the entry id.
    #[arg(long)]
    pub ids: bool,

    /// Cut lines to N columns, as pi cuts its rows: no "...", wide
    /// characters and emoji as 2 columns (default: the terminal's width
    /// on a terminal, no limit in a pipe; 0 = no limit).
    #[arg(long, value_name = "N")]
    pub width: Option<usize>,

    /// What to print.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,

    /// Same as --format json: one line, pi's getTree() exactly.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,

    /// Print counts as one JSON line: entries by type, roots, branch
    /// points, leaves, depth of the deepest path, labels, session name.
    #[arg(long, conflicts_with_all = ["format", "json", "filter", "search", "leaf", "ids"])]
    pub stats: bool,
}

impl Tool for Args {
    const NAME: &'static str = "pi-tree";
    fn quiet(&self) -> bool {
        self.input.quiet
    }
    fn run(&self, ctx: &mut Ctx) -> Result<Exit> {
        run(self, ctx)
    }
}

/// `pi-tree`: read SESSION, print its tree in the format asked for.
pub fn run(args: &Args, ctx: &mut Ctx) -> Result<Exit> {
    let json = args.json || args.format == Format::Json;
    // --json prints whole entries: find out while reading which lines
    // can be printed as they are.
    let read = crate::session::ReadOptions {
        canonical: json,
        ..args.input.read_options()
    };
    let session = args.input.open_with(ctx, read)?;
    let log = ctx.log;
    let mut warn = |d: Diagnostic| log.warn(&d);
    if args.stats {
        write_stats(&session, ctx.out(), &mut warn)?;
        return Ok(Exit::Ok);
    }
    let width = match args.width {
        Some(0) => None,
        Some(n) => Some(n),
        None => ctx.terminal_width(),
    };
    let opts = Options {
        format: if json { Format::Json } else { args.format },
        filter: args.filter,
        search: args.search.clone(),
        leaf: args.leaf.clone(),
        ids: args.ids,
        width,
        color: crate::cli::use_color(args.color),
        out_fd: ctx.out_fd(),
    };
    render(&session, &opts, ctx.out(), &mut warn)?;
    Ok(Exit::Ok)
}

/// pi's `/tree` filter modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Filter {
    /// Everything but settings and bookkeeping (labels, context edits,
    /// custom, model and thinking changes, session info).
    Default,
    /// The default view without tool results.
    NoTools,
    /// User messages only.
    UserOnly,
    /// Labelled entries only.
    LabeledOnly,
    /// Every entry but usage records (no filter shows those).
    All,
}

/// What to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// pi's /tree view as text.
    Text,
    /// One line: `JSON.stringify(getTree())`.
    Json,
    /// One JSON line per entry in display order.
    Jsonl,
    /// A Graphviz digraph.
    Dot,
}

/// Options of a `pi-tree` run.
#[derive(Debug, Clone)]
pub struct Options {
    pub format: Format,
    /// None: the text view's `default`; the data formats show every entry.
    pub filter: Option<Filter>,
    pub search: Option<String>,
    /// The active leaf (a REF); None = pi's leaf (the last entry).
    pub leaf: Option<String>,
    pub ids: bool,
    pub width: Option<usize>,
    pub color: bool,
    /// The file descriptor `out` writes to, when it is one (standard
    /// output): `--json` then has the kernel copy the entries' lines from
    /// the session file to it (see [`crate::gather`]) instead of reading
    /// them. `out` is flushed first.
    pub out_fd: Option<i32>,
}

/// The flat display list, as `TreeList` holds it.
struct View<'s> {
    s: &'s Session,
    tree: Tree,
    /// Nodes in flattenTree order, with their depth in the tree.
    flat: Vec<(usize, usize)>,
    active: Vec<bool>,
    /// What [`View::visible`] needs of each message entry ([`msg_info`]),
    /// found while the tool calls are: 0 where not known.
    msg_info: Vec<u8>,
    /// For [`View::object`].
    checker: std::cell::RefCell<js::Checker>,
    /// toolCall id -> (name, arguments) of assistant messages, in display order.
    tool_calls: HashMap<String, (String, Option<Vec<u8>>)>,
    leaf: Option<usize>,
    home: String,
    /// The tree with the active branch first (flattenTree's order).
    ordered: Tree,
    /// The first `message` entry in the tree without a message: pi's
    /// `/tree` fails on it (`entry.message.role`), so the text view does.
    no_message: Option<usize>,
}

/// Run `pi-tree`; warnings go to `warn`.
pub fn render(
    s: &Session,
    opts: &Options,
    out: &mut impl Write,
    warn: &mut dyn FnMut(Diagnostic),
) -> Result<()> {
    let tree = Tree::build(s);
    check_size(s, &tree)?;
    report_unreachable(s, &tree, warn);
    // Resolved for every format, so that a bad REF is an error even where
    // the output does not depend on the leaf (--json).
    let leaf = match (opts.leaf.as_deref(), s.index.leaf) {
        (None, l) => l,
        (Some(r), _) => Some(refs::resolve(s, r)?),
    };
    if opts.format == Format::Json {
        #[cfg(unix)]
        if let (Some(fd), Some(file)) = (opts.out_fd, reopen(s)) {
            out.flush().map_err(out_err)?;
            return write_json_gathered(s, &tree, &file, fd, warn);
        }
        return write_json(s, &tree, out, warn);
    }
    let view = View::new(s, tree, leaf)?;
    match opts.format {
        Format::Text => view.write_text(opts, out),
        Format::Jsonl => view.write_jsonl(opts, out),
        Format::Dot => view.write_dot(opts, out),
        Format::Json => Ok(()),
    }?;
    out.flush().map_err(out_err)
}

/// With duplicate ids pi's tree holds an entry once per route to it, which
/// can grow exponentially (a file whose lines were written twice): refuse
/// instead of hanging, as pi would.
fn check_size(s: &Session, tree: &Tree) -> Result<()> {
    if tree.walk_len(10_000_000.max(4 * s.entries.len())).is_none() {
        return Err(Error::data(
            &s.name,
            None,
            "duplicate ids make this tree too large to show (pi's tree holds an entry once for every path to it; pi would hang here)",
        ));
    }
    Ok(())
}

fn report_unreachable(s: &Session, tree: &Tree, warn: &mut dyn FnMut(Diagnostic)) {
    let own_parent = (0..s.entries.len())
        .filter(|&i| s.entries[i].ty() != EntryType::Session && s.entries.is_own_parent(i));
    for (k, i) in own_parent.enumerate() {
        let e = &s.entries[i];
        if k == 10 {
            warn(Diagnostic::new(
                &s.name,
                None,
                "more entries are their own parent",
            ));
            break;
        }
        warn(Diagnostic::new(
            &s.name,
            Some(e.line()),
            format!(
                "entry {} is its own parent; shown as a root (as in pi)",
                s.entries.id_string(i)
            ),
        ));
    }
    // Duplicate ids can make a node its own descendant in pi's tree (an
    // entry's id names a later entry below it): pi's /tree and JSON.stringify
    // would not finish; the walk skips the repeat. Say where.
    if tree.is_shared() {
        let mut cycles = 0usize;
        tree.walk(|step| {
            if let Step::Cycle { node, parent } = step {
                cycles += 1;
                if cycles <= 10 {
                    warn(Diagnostic::new(
                        &s.name,
                        Some(s.entries[parent].line()),
                        format!(
                            "duplicate ids make entry {} (line {}) a descendant of itself: pi's /tree would not finish here; drawn once, not again below line {}",
                            s.entries.id_string(node),
                            s.entries[node].line(),
                            s.entries[parent].line()
                        ),
                    ));
                }
            }
        });
        if cycles > 10 {
            warn(Diagnostic::new(
                &s.name,
                None,
                format!("{} more such repeats", cycles - 10),
            ));
        }
    }
    for (k, &i) in tree.unreachable.iter().enumerate() {
        if k == 10 {
            warn(Diagnostic::new(
                &s.name,
                None,
                format!(
                    "{} more entries no root reaches",
                    tree.unreachable.len() - 10
                ),
            ));
            break;
        }
        let e = &s.entries[i];
        warn(Diagnostic::new(
            &s.name,
            Some(e.line()),
            format!(
                "entry {} is on a parentId cycle: no root reaches it, so it is not in the tree (as in pi)",
                s.entries.id_string(i)
            ),
        ));
    }
}

/// `JSON.stringify(getTree())`, written without recursion.
///
/// The walk (main thread) cuts the output into batches: which nodes open
/// and close, commas, labels. Rendering a batch (reading its lines, the
/// quick check, the copy) is most of the work; for a file, a second thread
/// renders every other batch from its own read window while this one
/// renders the next and writes both in order.
fn write_json(
    s: &Session,
    tree: &Tree,
    out: &mut impl Write,
    warn: &mut dyn FnMut(Diagnostic),
) -> Result<()> {
    let mut cut = Cutter {
        s,
        walk: tree.steps(),
        after_leave: false,
        // Batches of about 1/1024 of the file (64 KB to 1 MB): few
        // hand-overs between the threads, little memory next to the entries.
        size: (size_of(s) / 1024).clamp(64 << 10, 1 << 20) as usize,
    };
    out.write_all(b"[").map_err(out_err)?;
    let file = reopen(s);
    match &file {
        None => write_batches(s, &mut SessionLines(s), &mut cut, out, warn)?,
        // The second thread's buffers (three batches, a read window) are
        // little next to a large file; for a smaller one the memory counts
        // more than the time.
        Some(f) if size_of(s) >= TWO_THREADS_FROM => {
            write_batches_two_threads(s, f, &mut cut, out, warn)?
        }
        Some(f) => {
            let mut src = FileLines::new(f, &s.entries, &s.name);
            write_batches(s, &mut src, &mut cut, out, warn)?
        }
    }
    out.write_all(b"]\n").map_err(out_err)?;
    out.flush().map_err(out_err)
}

/// [`write_json`] to a file descriptor, the lines that are already
/// `JSON.stringify`'s text (all of them, in a file pi wrote) copied by the
/// kernel straight from the session file: this process reads only the
/// few others.
#[cfg(unix)]
fn write_json_gathered(
    s: &Session,
    tree: &Tree,
    file: &std::fs::File,
    fd: i32,
    warn: &mut dyn FnMut(Diagnostic),
) -> Result<()> {
    use crate::gather::{Gather, Piece};
    // The file shrinking under us is the session's error; any other is
    // the output's.
    let err = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => Error::io(&s.name, &e),
        _ => out_err(e),
    };
    let mut gather = Gather::new(fd, file, size_of(s)).map_err(err)?;
    let mut cut = Cutter {
        s,
        walk: tree.steps(),
        after_leave: false,
        // The pages the kernel maps in to copy a batch's lines stay until
        // the batch is written: small batches keep them few.
        size: gather.release_every() as usize,
    };
    let mut src = FileLines::new(file, &s.entries, &s.name);
    let mut checker = js::Checker::new();
    let mut b = Batch::default();
    let all = |b: &[u8]| Piece::Own {
        start: 0,
        end: b.len() as u32,
    };
    gather.write(b"[", &[all(b"[")]).map_err(err)?;
    loop {
        cut.fill(&mut b, warn)?;
        if b.evs.is_empty() {
            break;
        }
        b.render_pieces(&s.entries, &s.name, &mut checker, &mut src)?;
        gather.write(&b.out, &b.pieces).map_err(err)?;
    }
    gather.write(b"]\n", &[all(b"]\n")]).map_err(err)
}

/// From this size on, `--json` renders on two threads.
const TWO_THREADS_FROM: u64 = 256 << 20;

/// About how many bytes the session's entries take in its file.
fn size_of(s: &Session) -> u64 {
    s.entries
        .last()
        .map_or(0, |e| e.offset() + u64::from(e.byte_len()))
}

fn write_batches(
    s: &Session,
    src: &mut impl LineSource,
    cut: &mut Cutter<'_>,
    out: &mut impl Write,
    warn: &mut dyn FnMut(Diagnostic),
) -> Result<()> {
    let mut checker = js::Checker::new();
    let mut b = Batch::default();
    loop {
        cut.fill(&mut b, warn)?;
        if b.evs.is_empty() {
            return Ok(());
        }
        b.render(s, &mut checker, src)?;
        out.write_all(&b.out).map_err(out_err)?;
    }
}

fn write_batches_two_threads(
    s: &Session,
    file: &std::fs::File,
    cut: &mut Cutter<'_>,
    out: &mut impl Write,
    warn: &mut dyn FnMut(Diagnostic),
) -> Result<()> {
    use std::sync::mpsc::sync_channel;
    let (entries, name) = (&s.entries[..], &s.name[..]);
    std::thread::scope(|scope| {
        let (job_tx, job_rx) = sync_channel::<Batch>(1);
        let (done_tx, done_rx) = sync_channel::<(Batch, Result<()>)>(1);
        let mut src = FileLines::new(file, entries, name);
        scope.spawn(move || {
            let mut checker = js::Checker::new();
            for mut b in job_rx {
                let r = b.render_with(entries, name, &mut checker, &mut src);
                if done_tx.send((b, r)).is_err() {
                    break;
                }
            }
        });
        let mut src = FileLines::new(file, entries, name);
        let mut checker = js::Checker::new();
        let gone = || Error::request(name, "the second writer thread stopped");
        // Batch a goes to the other thread, batch b is rendered here; a
        // comes before b in the output.
        let mut a = Batch::default();
        cut.fill(&mut a, warn)?;
        let mut in_flight = !a.evs.is_empty();
        if in_flight {
            job_tx.send(a).map_err(|_| gone())?;
        }
        let mut b = Batch::default();
        let mut spare = Batch::default();
        while in_flight {
            cut.fill(&mut b, warn)?;
            let mine = b.render_with(entries, name, &mut checker, &mut src);
            let (done, theirs) = done_rx.recv().map_err(|_| gone())?;
            theirs?;
            mine?;
            cut.fill(&mut spare, warn)?;
            in_flight = !spare.evs.is_empty();
            if in_flight {
                job_tx
                    .send(std::mem::take(&mut spare))
                    .map_err(|_| gone())?;
            }
            out.write_all(&done.out).map_err(out_err)?;
            out.write_all(&b.out).map_err(out_err)?;
            spare = done;
        }
        Ok(())
    })
}

/// One event of the output, decided by the walk.
#[derive(Clone, Copy)]
enum Ev {
    /// `{"entry":LINE,"children":[`, after a comma when `comma`.
    Enter { node: u32, comma: bool },
    /// `]` + `labels[start..end]` + `}`.
    Leave { start: u32, end: u32 },
}

#[derive(Default)]
struct Batch {
    evs: Vec<Ev>,
    /// The `,"label":...` texts of the nodes that close here.
    labels: Vec<u8>,
    out: Vec<u8>,
    /// With [`Batch::render_pieces`]: the output, as parts of `out` and
    /// lines of the file.
    #[cfg(unix)]
    pieces: Vec<crate::gather::Piece>,
}

impl Batch {
    fn render(
        &mut self,
        s: &Session,
        checker: &mut js::Checker,
        src: &mut impl LineSource,
    ) -> Result<()> {
        self.render_with(&s.entries, &s.name, checker, src)
    }

    /// The batch as `pieces`: a line known to be `JSON.stringify`'s text
    /// is a piece of the file; the others are read, checked and, if need
    /// be, rewritten into `out` as [`Batch::render_with`] does.
    #[cfg(unix)]
    fn render_pieces(
        &mut self,
        entries: &[crate::entry::Entry],
        name: &str,
        checker: &mut js::Checker,
        src: &mut impl LineSource,
    ) -> Result<()> {
        use crate::gather::Piece;
        let Batch {
            evs,
            labels,
            out,
            pieces,
        } = self;
        out.clear();
        pieces.clear();
        let mut own = 0usize;
        let own_piece = |start: usize, end: usize| Piece::Own {
            start: start as u32,
            end: end as u32,
        };
        for &ev in evs.iter() {
            match ev {
                Ev::Enter { node, comma } => {
                    enter(out, comma);
                    let e = &entries[node as usize];
                    if e.is_canonical() {
                        pieces.push(own_piece(own, out.len()));
                        pieces.push(Piece::File {
                            offset: e.offset(),
                            len: e.byte_len(),
                        });
                        own = out.len();
                    } else {
                        entry_json(out, entries, name, node as usize, checker, src)?;
                    }
                    out.extend_from_slice(b",\"children\":[");
                }
                Ev::Leave { start, end } => leave(out, labels, start, end),
            }
        }
        pieces.push(own_piece(own, out.len()));
        if out.len() > u32::MAX as usize {
            return Err(Error::request(name, "an output batch of 4 GiB or more"));
        }
        Ok(())
    }

    fn render_with(
        &mut self,
        entries: &[crate::entry::Entry],
        name: &str,
        checker: &mut js::Checker,
        src: &mut impl LineSource,
    ) -> Result<()> {
        let Batch {
            evs, labels, out, ..
        } = self;
        out.clear();
        for &ev in evs.iter() {
            match ev {
                Ev::Enter { node, comma } => {
                    enter(out, comma);
                    entry_json(out, entries, name, node as usize, checker, src)?;
                    out.extend_from_slice(b",\"children\":[");
                }
                Ev::Leave { start, end } => leave(out, labels, start, end),
            }
        }
        Ok(())
    }
}

/// Append entry `i` as `JSON.stringify` writes it.
fn entry_json(
    out: &mut Vec<u8>,
    entries: &[crate::entry::Entry],
    name: &str,
    i: usize,
    checker: &mut js::Checker,
    src: &mut impl LineSource,
) -> Result<()> {
    let line = src.line(i)?;
    if entries[i].is_canonical() || checker.is_canonical(&line) {
        // What pi wrote is already JSON.stringify's text; the check
        // (here or while loading) also proved it valid JSON.
        out.extend_from_slice(&line);
        return Ok(());
    }
    let bad = |e: scan::SyntaxError| {
        Error::data(
            name,
            Some(entries[i].line()),
            format!("not valid JSON ({e})"),
        )
    };
    let range = scan::validate(&line).map_err(bad)?;
    js::canonical_with(checker, out, &line, range).map_err(bad)
}

/// `{"entry":`, after a comma when `comma`.
fn enter(out: &mut Vec<u8>, comma: bool) {
    out.extend_from_slice(if comma {
        b",{\"entry\":"
    } else {
        b"{\"entry\":"
    });
}

/// `]`, the node's label, `}`.
fn leave(out: &mut Vec<u8>, labels: &[u8], start: u32, end: u32) {
    out.push(b']');
    out.extend_from_slice(&labels[start as usize..end as usize]);
    out.push(b'}');
}

/// Cuts the walk into batches.
struct Cutter<'s> {
    s: &'s Session,
    walk: crate::tree::Walk<'s>,
    /// Whether the last event closed a node: the next one needs a comma (a
    /// node entered right after its parent's `[` does not).
    after_leave: bool,
    /// About how many output bytes a batch holds.
    size: usize,
}

impl Cutter<'_> {
    /// The next batch (no events at the end of the walk).
    fn fill(&mut self, b: &mut Batch, warn: &mut dyn FnMut(Diagnostic)) -> Result<()> {
        let s = self.s;
        b.evs.clear();
        b.labels.clear();
        b.out.clear();
        // Room for the rendered batch, made here so that the other thread
        // need not allocate.
        b.out.reserve(self.size + self.size / 4);
        let mut bytes = 0usize;
        while bytes < self.size && b.evs.len() < 1024 {
            let Some(step) = self.walk.next() else {
                break;
            };
            match step {
                Step::Enter { node, .. } => {
                    b.evs.push(Ev::Enter {
                        node: node as u32,
                        comma: self.after_leave,
                    });
                    self.after_leave = false;
                    bytes += s.entries[node].byte_len() as usize + 24;
                }
                Step::Leave { node } => {
                    let start = b.labels.len() as u32;
                    label_json(s, node, &mut b.labels)?;
                    let end = b.labels.len() as u32;
                    b.evs.push(Ev::Leave { start, end });
                    self.after_leave = true;
                    bytes += (end - start) as usize + 2;
                }
                Step::Cycle { node, .. } => warn(Diagnostic::new(
                    &s.name,
                    Some(s.entries[node].line()),
                    format!(
                        "entry {} is its own ancestor through duplicate ids; pi's JSON.stringify fails here, it is left out",
                        s.entries.id_string(node)
                    ),
                )),
            }
        }
        Ok(())
    }
}

/// Where rendering gets the bytes of entry `i` as pi holds them.
trait LineSource {
    fn line(&mut self, i: usize) -> Result<std::borrow::Cow<'_, [u8]>>;
}

/// Through the session (stdin, an old version to migrate).
struct SessionLines<'s>(&'s Session);

impl LineSource for SessionLines<'_> {
    fn line(&mut self, i: usize) -> Result<std::borrow::Cow<'_, [u8]>> {
        self.0.line(i)
    }
}

/// A current-version session file opened again, when it still starts
/// with the header the session was read with (pi only appends to it; a
/// line the load did not prove canonical is checked again as JSON when
/// printed).
fn reopen(s: &Session) -> Option<std::fs::File> {
    if s.version() < crate::migrate::CURRENT_VERSION || s.memory().is_some() {
        return None;
    }
    let path = s.path()?;
    // Not a FIFO or a device: opening one again could block or read
    // something else.
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let header = s.raw_header().ok()?;
    let f = std::fs::File::open(path).ok()?;
    let mut buf = vec![0u8; header.len()];
    let got = crate::session::read_at_most(&f, &mut buf, s.header.offset).ok()?;
    (got == header.len() && buf == header[..]).then_some(f)
}

/// Lines read straight from the file through a window of
/// [`FileLines::WINDOW`] bytes (the tree's order is mostly file order),
/// lent without a copy.
struct FileLines<'a> {
    file: &'a std::fs::File,
    entries: &'a [crate::entry::Entry],
    name: &'a str,
    /// `buf` holds the file's bytes from `start` on.
    start: u64,
    buf: Vec<u8>,
}

impl<'a> FileLines<'a> {
    const WINDOW: usize = 64 << 10;

    fn new(file: &'a std::fs::File, entries: &'a [crate::entry::Entry], name: &'a str) -> Self {
        FileLines {
            file,
            entries,
            name,
            start: 0,
            buf: Vec::with_capacity(Self::WINDOW),
        }
    }

    fn read(&mut self, offset: u64, len: usize) -> std::io::Result<&[u8]> {
        let end = self.start + self.buf.len() as u64;
        if offset < self.start || offset + len as u64 > end {
            self.buf.clear();
            self.buf.resize(len.max(Self::WINDOW), 0);
            let got = crate::session::read_at_most(self.file, &mut self.buf, offset)?;
            self.buf.truncate(got);
            self.start = offset;
            if got < len {
                return Err(crate::session::shrunk());
            }
        }
        let from = (offset - self.start) as usize;
        Ok(&self.buf[from..from + len])
    }
}

impl LineSource for FileLines<'_> {
    fn line(&mut self, i: usize) -> Result<std::borrow::Cow<'_, [u8]>> {
        let e = &self.entries[i];
        let (offset, len) = (e.offset(), e.byte_len() as usize);
        let name = self.name;
        match self.read(offset, len) {
            Ok(b) => Ok(std::borrow::Cow::Borrowed(b)),
            Err(err) => Err(Error::io(name, &err)),
        }
    }
}

fn label_json(s: &Session, i: usize, buf: &mut Vec<u8>) -> Result<()> {
    let Some(id) = s.entries.id(i) else {
        return Ok(());
    };
    let Some(l) = s.index.labels.get(&id) else {
        return Ok(());
    };
    buf.extend_from_slice(b",\"label\":");
    let line = s.line(l.set_by)?;
    let obj = s.object(&line, s.entries[l.set_by].line())?;
    // pi keeps the label's own value (a number, a lone surrogate escape).
    match obj.canonical("label") {
        Ok(Some(v)) => buf.extend_from_slice(&v),
        _ => js::write_str(buf, &l.label),
    }
    if let Ok(Some(ts)) = obj.canonical("timestamp") {
        buf.extend_from_slice(b",\"labelTimestamp\":");
        buf.extend_from_slice(&ts);
    }
    Ok(())
}

/// One visible line: a flat position and its visual structure.
#[derive(Clone, Default)]
struct Visual {
    indent: usize,
    show_connector: bool,
    is_last: bool,
    gutters: Rc<Vec<(usize, bool)>>,
    virtual_root_child: bool,
}

/// flattenTree()'s rule for a node's children: their indent (branch points,
/// and the first generation after one, shift right) and gutters (a gutter
/// where the node's connector is shown).
#[allow(clippy::too_many_arguments)]
fn child_layout(
    indent: usize,
    just_branched: bool,
    show_connector: bool,
    virtual_root_child: bool,
    is_last: bool,
    gutters: &Rc<Vec<(usize, bool)>>,
    multiple_children: bool,
    multiple_roots: bool,
) -> (usize, Rc<Vec<(usize, bool)>>) {
    let child_indent = if multiple_children || (just_branched && indent > 0) {
        indent + 1
    } else {
        indent
    };
    let display = if multiple_roots {
        indent.saturating_sub(1)
    } else {
        indent
    };
    let child_gutters = if show_connector && !virtual_root_child {
        let mut g = (**gutters).clone();
        g.push((display.saturating_sub(1), !is_last));
        Rc::new(g)
    } else {
        gutters.clone()
    };
    (child_indent, child_gutters)
}

/// [`msg_info`]: the role (`MSG_ROLE`: one of the `ROLE_` values).
const MSG_ROLE: u8 = 3;
const ROLE_USER: u8 = 1;
const ROLE_ASSISTANT: u8 = 2;
const ROLE_TOOL_RESULT: u8 = 3;
/// An assistant message with text content (`hasTextContent`).
const MSG_HAS_TEXT: u8 = 4;
/// An assistant message whose `stopReason` is truthy and neither "stop"
/// nor "toolUse".
const MSG_BAD_STOP: u8 = 8;
/// Set in [`View::msg_info`] where the rest is known.
const MSG_KNOWN: u8 = 0x80;

/// What the filters look at in a `message` entry (parsed as `obj`): its
/// role (0 for any other role, and without a message or a role), and for
/// an assistant message whether it has text and how it stopped.
fn msg_info(obj: &Object<'_>) -> u8 {
    let Some(m) = obj.object("message") else {
        return 0;
    };
    match m.str("role").as_deref() {
        Some("user") => ROLE_USER,
        Some("toolResult") => ROLE_TOOL_RESULT,
        Some("assistant") => {
            let mut info = ROLE_ASSISTANT;
            if m.get("content")
                .is_some_and(|r| has_text_content(m.text, r))
            {
                info |= MSG_HAS_TEXT;
            }
            if m.raw("stopReason")
                .is_some_and(|r| js::truthy(r) && r != b"\"stop\"" && r != b"\"toolUse\"")
            {
                info |= MSG_BAD_STOP;
            }
            info
        }
        _ => 0,
    }
}

/// A piece of a line and its colour (an SGR code).
type Seg = (String, Option<&'static str>);

const DIM: &str = "2";
const ACCENT: &str = "36";
const SUCCESS: &str = "32";
const WARNING: &str = "33";
const ERROR: &str = "31";
const MUTED: &str = "90";

impl<'s> View<'s> {
    fn new(s: &'s Session, tree: Tree, leaf: Option<usize>) -> Result<View<'s>> {
        let n = s.entries.len();
        let leaf_id: Option<Id> = leaf.and_then(|l| s.entries.id(l));
        // containsActive, post-order.
        let mut has = vec![false; n];
        tree.walk(|step| {
            if let Step::Leave { node } = step {
                // `entry.id === currentLeafId`: when the last entry has no
                // id, pi's leaf is undefined, and so is every id-less entry's id.
                let mine = match &leaf_id {
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
        let ordered_tree = tree.reordered(prioritize(&tree.roots), |xs| {
            let mut v: Vec<u32> = xs.iter().copied().filter(|&c| has[c as usize]).collect();
            v.extend(xs.iter().copied().filter(|&c| !has[c as usize]));
            v
        });
        let mut flat = Vec::new();
        ordered_tree.walk(|step| {
            if let Step::Enter { node, depth, .. } = step {
                flat.push((node, depth));
            }
        });
        // Active path: walk parent ids from the leaf through displayed entries.
        let mut in_flat = vec![false; n];
        for &(i, _) in &flat {
            in_flat[i] = true;
        }
        let mut active = vec![false; n];
        // `while (currentId)`: a falsy leaf id has no active path.
        if let Some(id) = leaf_id.as_ref().filter(|id| id.truthy()) {
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
                cur = s.entries.parent_id(i).and_then(|p| s.index.get(&p));
            }
        }
        let mut v = View {
            s,
            tree,
            flat,
            active,
            msg_info: vec![0; n],
            checker: std::cell::RefCell::new(js::Checker::new()),
            tool_calls: HashMap::new(),
            leaf,
            // `process.env.HOME || process.env.USERPROFILE || ""`
            home: [std::env::var_os("HOME"), std::env::var_os("USERPROFILE")]
                .into_iter()
                .flatten()
                .map(|v| v.to_string_lossy().into_owned())
                .find(|v| !v.is_empty())
                .unwrap_or_default(),
            no_message: None,
            ordered: ordered_tree,
        };
        for k in 0..v.flat.len() {
            let i = v.flat[k].0;
            if s.entries[i].ty() != EntryType::Message {
                continue;
            }
            let line = s.line(i)?;
            let Ok(obj) = v.object(&line, s.entries[i].line()) else {
                continue;
            };
            if matches!(obj.raw("message"), None | Some(b"null")) && v.no_message.is_none() {
                v.no_message = Some(i);
            }
            v.msg_info[i] = msg_info(&obj) | MSG_KNOWN;
            let Some(m) = obj.object("message") else {
                continue;
            };
            if m.str("role").as_deref() != Some("assistant") {
                continue;
            }
            let Some(r) = m.get("content") else { continue };
            if m.text[r.start] != b'[' {
                continue;
            }
            for el in scan::elements(m.text, r).unwrap_or_default() {
                let Ok(b) = Object::at(m.text, el.clone()) else {
                    continue;
                };
                if m.text[el.start] != b'{' || b.str("type").as_deref() != Some("toolCall") {
                    continue;
                }
                let id = b
                    .raw("id")
                    .map(js_string)
                    .unwrap_or_else(|| "undefined".into());
                let name = b
                    .raw("name")
                    .map(js_string)
                    .unwrap_or_else(|| "undefined".into());
                let args = b.canonical("arguments").ok().flatten();
                v.tool_calls.insert(id, (name, args));
            }
        }
        Ok(v)
    }

    /// [`Session::object`], the quick way first: a compact line's members
    /// as [`js::Checker::valid_object`] finds them (the scanner's, in a
    /// quicker pass), as the load reads it.
    fn object<'a>(&self, bytes: &'a [u8], line: u64) -> Result<Object<'a>> {
        if let Ok(mut c) = self.checker.try_borrow_mut() {
            if let Some(members) = c.valid_object(bytes) {
                return Ok(Object {
                    text: bytes,
                    range: 0..bytes.len(),
                    members: members.to_vec(),
                });
            }
        }
        self.s.object(bytes, line)
    }

    /// `entry.id === currentLeafId`.
    fn is_leaf(&self, i: usize) -> bool {
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

    fn label_of(&self, i: usize) -> Option<&str> {
        self.id_of(i)
            .and_then(|id| self.s.index.labels.get(&id))
            .map(|l| &*l.label)
    }

    /// The flat positions the filter and search let through.
    fn visible(&self, filter: Filter, search: Option<&str>, strict: bool) -> Result<Vec<usize>> {
        let tokens: Vec<String> = search
            .map(|q| {
                q.to_lowercase()
                    .split(is_js_space)
                    .filter(|t| !t.is_empty())
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default();
        let mut out = Vec::new();
        for (k, &(i, _)) in self.flat.iter().enumerate() {
            if !strict && tokens.is_empty() {
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
            let (obj, info) = if tokens.is_empty() && known & MSG_KNOWN != 0 {
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
            if let Some(obj) = obj.filter(|_| !tokens.is_empty()) {
                let text = self.searchable(i, &obj).to_lowercase();
                if !tokens.iter().all(|t| text.contains(t.as_str())) {
                    continue;
                }
            }
            out.push(k);
        }
        Ok(out)
    }

    /// `recalculateVisualStructure()`: the visual structure of the visible positions.
    fn visuals(&self, vis: &[usize]) -> (Vec<Visual>, bool) {
        let n = self.s.entries.len();
        let mut visual = vec![Visual::default(); vis.len()];
        if vis.is_empty() {
            return (visual, false);
        }
        let mut visible = vec![false; n];
        let mut in_flat = vec![false; n];
        for &(i, _) in &self.flat {
            in_flat[i] = true;
        }
        for &k in vis {
            visible[self.flat[k].0] = true;
        }
        let parent_in_view = |i: usize| -> Option<usize> {
            self.s
                .entries
                .parent_key(i)
                .and_then(|p| self.s.index.get(&p))
        };
        // The nearest visible ancestor of each row, by entry. The walk up
        // from an entry depends only on where it starts, so what a hidden
        // entry leads to is kept (`above`), and a run of hidden entries
        // is walked once, not once per row below it.
        const NO: u32 = u32::MAX;
        const UNKNOWN: u32 = u32::MAX - 1;
        let mut above = vec![UNKNOWN; n];
        let mut run: Vec<usize> = Vec::new();
        let mut nearest = |start: Option<usize>| -> Option<usize> {
            run.clear();
            let mut cur = start;
            let found = loop {
                match cur {
                    None => break NO,
                    Some(p) if visible[p] => break p as u32,
                    Some(p) if above[p] != UNKNOWN => break above[p],
                    Some(p) if in_flat[p] && run.len() <= n => {
                        run.push(p);
                        cur = parent_in_view(p);
                    }
                    Some(_) => break NO,
                }
            };
            for &p in &run {
                above[p] = found;
            }
            (found != NO).then_some(found as usize)
        };
        let mut roots: Vec<usize> = Vec::new();
        // Children by their nearest visible ancestor, in row order: counted,
        // then placed (`first[a]..first[a + 1]` in `kids`).
        let mut anc = vec![NO; vis.len()];
        let mut pos_of = vec![NO; n];
        let mut first = vec![0u32; n + 1];
        for (v, &k) in vis.iter().enumerate() {
            let i = self.flat[k].0;
            pos_of[i] = v as u32;
            let start = if in_flat[i] { parent_in_view(i) } else { None };
            match nearest(start) {
                None => roots.push(i),
                Some(a) => {
                    anc[v] = a as u32;
                    first[a + 1] += 1;
                }
            }
        }
        for a in 0..n {
            first[a + 1] += first[a];
        }
        let mut fill = first.clone();
        let mut kids = vec![0usize; first[n] as usize];
        for (v, &k) in vis.iter().enumerate() {
            if anc[v] != NO {
                let a = anc[v] as usize;
                kids[fill[a] as usize] = self.flat[k].0;
                fill[a] += 1;
            }
        }
        drop(fill);
        let multiple_roots = roots.len() > 1;
        type Frame = (usize, usize, bool, bool, bool, Rc<Vec<(usize, bool)>>, bool);
        let mut stack: Vec<Frame> = Vec::new();
        let empty = Rc::new(Vec::new());
        for (r, &root) in roots.iter().enumerate().rev() {
            let last = r == roots.len() - 1;
            stack.push((
                root,
                usize::from(multiple_roots),
                multiple_roots,
                multiple_roots,
                last,
                empty.clone(),
                multiple_roots,
            ));
        }
        let mut done = vec![false; n];
        while let Some((i, indent, just_branched, show_connector, is_last, gutters, vrc)) =
            stack.pop()
        {
            let v = pos_of[i] as usize;
            if v == NO as usize || done[i] {
                continue;
            }
            done[i] = true;
            visual[v] = Visual {
                indent,
                show_connector,
                is_last,
                gutters: gutters.clone(),
                virtual_root_child: vrc,
            };
            let children = &kids[first[i] as usize..first[i + 1] as usize];
            let multiple = children.len() > 1;
            let (child_indent, child_gutters) = child_layout(
                indent,
                just_branched,
                show_connector,
                vrc,
                is_last,
                &gutters,
                multiple,
                multiple_roots,
            );
            for (c, &child) in children.iter().enumerate().rev() {
                stack.push((
                    child,
                    child_indent,
                    multiple,
                    multiple,
                    c == children.len() - 1,
                    child_gutters.clone(),
                    false,
                ));
            }
        }
        (visual, multiple_roots)
    }

    /// pi's flattenTree() layout of every row of the whole tree, in
    /// `flat` order: what a row keeps where recalculateVisualStructure()
    /// does not reach it (with duplicate ids it updates only the last row
    /// of each id).
    fn flatten_visuals(&self) -> Vec<Visual> {
        struct Occ {
            child_indent: usize,
            multiple: bool,
            child_gutters: Rc<Vec<(usize, bool)>>,
            children: usize,
            k: usize,
        }
        let roots = self.ordered.roots.len();
        let mr = roots > 1;
        let empty = Rc::new(Vec::new());
        let mut out = Vec::with_capacity(self.flat.len());
        let mut stack: Vec<Occ> = Vec::new();
        let mut root_k = 0;
        self.ordered.walk(|step| match step {
            Step::Enter { node, .. } => {
                let (indent, just_branched, show_connector, is_last, gutters, vrc) =
                    match stack.last_mut() {
                        None => {
                            let last = root_k + 1 == roots;
                            root_k += 1;
                            (usize::from(mr), mr, mr, last, empty.clone(), mr)
                        }
                        Some(p) => {
                            let k = p.k;
                            p.k += 1;
                            (
                                p.child_indent,
                                p.multiple,
                                p.multiple,
                                k + 1 == p.children,
                                p.child_gutters.clone(),
                                false,
                            )
                        }
                    };
                let children = self.ordered.children(node).len();
                let multiple = children > 1;
                let (child_indent, child_gutters) = child_layout(
                    indent,
                    just_branched,
                    show_connector,
                    vrc,
                    is_last,
                    &gutters,
                    multiple,
                    mr,
                );
                out.push(Visual {
                    indent,
                    show_connector,
                    is_last,
                    gutters,
                    virtual_root_child: vrc,
                });
                stack.push(Occ {
                    child_indent,
                    multiple,
                    child_gutters,
                    children,
                    k: 0,
                });
            }
            Step::Cycle { .. } => {
                if let Some(p) = stack.last_mut() {
                    p.k += 1;
                }
            }
            Step::Leave { .. } => {
                stack.pop();
            }
        });
        out
    }

    /// pi's recalculateVisualStructure() on the rows `vis` (positions in
    /// `flat`), as pi runs it: by entry id, so that with duplicate ids only
    /// the last row of an id is laid out anew and the others keep what
    /// they had. Returns the new `multipleRoots`.
    fn recalculate(&self, vis: &[usize], rows: &mut [Visual]) -> Result<bool> {
        let key = |k: usize| self.s.entries.id(self.flat[k].0);
        let mut entry_map: HashMap<Option<Id>, usize> = HashMap::new();
        for k in 0..self.flat.len() {
            entry_map.insert(key(k), k);
        }
        let visible: HashSet<Option<Id>> = vis.iter().map(|&k| key(k)).collect();
        let parent_of = |k: usize| self.s.entries.parent_key(self.flat[k].0);
        let n = self.flat.len();
        let ancestor = |k: usize| -> Option<Id> {
            let mut cur = entry_map.get(&key(k)).and_then(|&m| parent_of(m));
            let mut steps = 0;
            while let Some(c) = cur {
                let c = Some(c);
                if visible.contains(&c) {
                    return c;
                }
                steps += 1;
                if steps > n {
                    return None; // a cycle of ids: pi would loop here
                }
                cur = entry_map.get(&c).and_then(|&m| parent_of(m));
            }
            None
        };
        // Children by their nearest visible ancestor's id (None: the roots).
        let mut children: HashMap<Option<Id>, Vec<Option<Id>>> = HashMap::new();
        children.insert(None, Vec::new());
        let mut filtered: HashMap<Option<Id>, usize> = HashMap::new();
        for &k in vis {
            children.entry(ancestor(k)).or_default().push(key(k));
            filtered.insert(key(k), k);
        }
        let roots = children.get(&None).cloned().unwrap_or_default();
        let mr = roots.len() > 1;
        // pi pops an id once per time it is listed, and its children once
        // per pop: exponential with duplicate ids. But the row of an id
        // ends with what its last pop wrote, and that pop comes from its
        // ancestor's last pop, at its last place in the ancestor's list;
        // so each id is laid out once, from there.
        type Frame = (
            Option<Id>,
            usize,
            bool,
            bool,
            bool,
            Rc<Vec<(usize, bool)>>,
            bool,
        );
        let last_places = |list: &[Option<Id>]| -> Vec<(usize, Option<Id>)> {
            let mut last: HashMap<&Option<Id>, usize> = HashMap::new();
            for (c, id) in list.iter().enumerate() {
                last.insert(id, c);
            }
            let mut v: Vec<(usize, Option<Id>)> =
                last.into_iter().map(|(id, c)| (c, id.clone())).collect();
            v.sort_by_key(|&(c, _)| c);
            v
        };
        let mut stack: Vec<Frame> = Vec::new();
        let empty = Rc::new(Vec::new());
        for (c, id) in last_places(&roots).into_iter().rev() {
            stack.push((
                id,
                usize::from(mr),
                mr,
                mr,
                c + 1 == roots.len(),
                empty.clone(),
                mr,
            ));
        }
        let mut done: HashSet<Option<Id>> = HashSet::new();
        while let Some((id, indent, just_branched, show_connector, is_last, gutters, vrc)) =
            stack.pop()
        {
            if !done.insert(id.clone()) {
                continue;
            }
            let Some(&k) = filtered.get(&id) else {
                continue;
            };
            rows[k] = Visual {
                indent,
                show_connector,
                is_last,
                gutters: gutters.clone(),
                virtual_root_child: vrc,
            };
            // No visible ancestor is an id-less entry.
            let kids: &[Option<Id>] = match &id {
                Some(_) => children.get(&id).map(Vec::as_slice).unwrap_or(&[]),
                None => &[],
            };
            let multiple = kids.len() > 1;
            let (child_indent, child_gutters) = child_layout(
                indent,
                just_branched,
                show_connector,
                vrc,
                is_last,
                &gutters,
                multiple,
                mr,
            );
            for (c, child) in last_places(kids).into_iter().rev() {
                stack.push((
                    child,
                    child_indent,
                    multiple,
                    multiple,
                    c + 1 == kids.len(),
                    child_gutters.clone(),
                    false,
                ));
            }
        }
        Ok(mr)
    }

    /// The rows' layout when nodes are shared (duplicate ids): pi lays the
    /// whole tree out, then the filtered rows by id, once for the filter
    /// and once more for a search.
    fn visuals_shared(
        &self,
        filter: Filter,
        search: Option<&str>,
        vis: &[usize],
    ) -> Result<(Vec<Visual>, bool)> {
        let mut rows = self.flatten_visuals();
        if rows.len() != self.flat.len() {
            return Ok(self.visuals(vis));
        }
        if search.is_some_and(|q| !q.trim().is_empty()) {
            let first = self.visible(filter, None, true)?;
            self.recalculate(&first, &mut rows)?;
        }
        let mr = self.recalculate(vis, &mut rows)?;
        Ok((vis.iter().map(|&k| rows[k].clone()).collect(), mr))
    }

    fn write_text(&self, opts: &Options, out: &mut impl Write) -> Result<()> {
        if let Some(i) = self.no_message {
            return Err(crate::error::Error::data(
                &self.s.name,
                Some(self.s.entries[i].line()),
                "a \"message\" entry without a message (pi 1.6's /tree fails on it: TypeError); --json, --format jsonl and --stats still read the file",
            ));
        }
        let filter = opts.filter.unwrap_or(Filter::Default);
        let vis = self.visible(filter, opts.search.as_deref(), true)?;
        if vis.is_empty() {
            // pi's list when nothing passes: "  No entries found", cut
            // with "..." to pi's width (ours and its 2-column cursor).
            let mut line = String::new();
            let msg: Seg = ("No entries found".into(), Some(MUTED));
            render_empty(&mut line, &msg, opts.width, opts.color);
            out.write_all(line.as_bytes()).map_err(out_err)?;
            return out.write_all(b"\n").map_err(out_err);
        }
        // pi's render throws on some rows (a custom_message whose content is
        // not text): find those before anything is written.
        for &k in &vis {
            let i = self.flat[k].0;
            if self.s.entries[i].ty() == EntryType::CustomMessage {
                self.summary(i)?;
            }
        }
        let (visual, multiple_roots) = if self.tree.is_shared() {
            self.visuals_shared(filter, opts.search.as_deref(), &vis)?
        } else {
            self.visuals(&vis)
        };
        let mut line = String::new();
        for (v, &k) in vis.iter().enumerate() {
            let i = self.flat[k].0;
            let vi = &visual[v];
            let display = if multiple_roots {
                vi.indent.saturating_sub(1)
            } else {
                vi.indent
            };
            let connector = vi.show_connector && !vi.virtual_root_child;
            let mut prefix = String::new();
            for c in 0..display * 3 {
                let (level, pos) = (c / 3, c % 3);
                if let Some(&(_, show)) = vi.gutters.iter().find(|g| g.0 == level) {
                    prefix.push(if pos == 0 && show { '│' } else { ' ' });
                } else if connector && level + 1 == display {
                    prefix.push(match pos {
                        0 if vi.is_last => '└',
                        0 => '├',
                        1 => '─',
                        _ => ' ',
                    });
                } else {
                    prefix.push(' ');
                }
            }
            let mut segs: Vec<Seg> = Vec::new();
            if opts.ids {
                segs.push((format!("{} ", self.s.entries.id_string(i)), Some(DIM)));
            }
            segs.push((prefix, Some(DIM)));
            if self.active[i] {
                segs.push(("• ".into(), Some(ACCENT)));
            }
            if let Some(l) = self.label_of(i) {
                segs.push((format!("[{l}] "), Some(WARNING)));
            }
            segs.extend(self.summary(i)?);
            line.clear();
            render_line(&mut line, &segs, opts.width, opts.color);
            out.write_all(line.as_bytes()).map_err(out_err)?;
            out.write_all(b"\n").map_err(out_err)?;
        }
        Ok(())
    }

    fn display_positions(&self, opts: &Options) -> Result<Vec<usize>> {
        match (opts.filter, opts.search.as_deref()) {
            (None, None) => Ok((0..self.flat.len()).collect()),
            (f, q) => self.visible(f.unwrap_or(Filter::All), q, f.is_some()),
        }
    }

    fn write_jsonl(&self, opts: &Options, out: &mut impl Write) -> Result<()> {
        let mut buf = Vec::new();
        for k in self.display_positions(opts)? {
            let (i, depth) = self.flat[k];
            let e = &self.s.entries[i];
            let line = self.s.line(i)?;
            let obj = self.object(&line, e.line())?;
            buf.clear();
            buf.extend_from_slice(b"{\"id\":");
            raw_or_null(&mut buf, &obj, "id");
            buf.extend_from_slice(b",\"parentId\":");
            raw_or_null(&mut buf, &obj, "parentId");
            buf.extend_from_slice(format!(",\"depth\":{depth},\"children\":[").as_bytes());
            for (c, &child) in self.tree.children(i).iter().enumerate() {
                if c > 0 {
                    buf.push(b',');
                }
                // The child's id as its JSON value (a number stays a number).
                match self.s.entries.id(child as usize) {
                    Some(id) => buf.extend_from_slice(id.to_json().as_bytes()),
                    None => buf.extend_from_slice(b"null"),
                }
            }
            buf.push(b']');
            if let Some(l) = self.label_of(i) {
                buf.extend_from_slice(b",\"label\":");
                js::write_str(&mut buf, l);
            }
            buf.extend_from_slice(b",\"active\":");
            buf.extend_from_slice(if self.active[i] { b"true" } else { b"false" });
            buf.extend_from_slice(b",\"type\":");
            raw_or_null(&mut buf, &obj, "type");
            if let Some(m) = obj
                .object("message")
                .filter(|_| e.ty() == EntryType::Message)
            {
                if let Ok(Some(r)) = m.canonical("role") {
                    buf.extend_from_slice(b",\"role\":");
                    buf.extend_from_slice(&r);
                }
            }
            buf.extend_from_slice(b",\"text\":");
            let text: String = self
                .summary_of(i, &obj)?
                .into_iter()
                .map(|(t, _)| t)
                .collect();
            js::write_str(&mut buf, &text);
            buf.extend_from_slice(b"}\n");
            out.write_all(&buf).map_err(out_err)?;
        }
        Ok(())
    }

    fn write_dot(&self, opts: &Options, out: &mut impl Write) -> Result<()> {
        let shown = self.display_positions(opts)?;
        let mut on = vec![false; self.s.entries.len()];
        for &k in &shown {
            on[self.flat[k].0] = true;
        }
        let mut w = String::from(
            "digraph session {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n",
        );
        let n = self.s.entries.len();
        let mut printed = vec![false; n];
        for &k in &shown {
            let i = self.flat[k].0;
            if std::mem::replace(&mut printed[i], true) {
                continue;
            }
            let text: String = self.summary(i)?.into_iter().map(|(t, _)| t).collect();
            let mut label = String::new();
            if let Some(l) = self.label_of(i) {
                label.push('[');
                label.push_str(&cut_chars(l, 60));
                label.push_str("] ");
            }
            label.push_str(&cut_chars(&text, 60));
            w.push_str("  n");
            w.push_str(&i.to_string());
            w.push_str(" [label=\"");
            dot_escape_into(&mut w, &cut_chars(&label, DOT_MAX_CHARS));
            w.push_str("\", tooltip=\"");
            dot_escape_into(
                &mut w,
                &cut_chars(&self.s.entries.id_string(i), DOT_MAX_CHARS),
            );
            w.push('"');
            if self.active[i] {
                w.push_str(", style=\"bold,filled\", fillcolor=\"#dbeafe\", color=\"#1d4ed8\"");
            }
            if self.label_of(i).is_some() {
                w.push_str(", peripheries=2");
            }
            w.push_str("];\n");
        }
        drop(printed);
        // Edges: each shown entry to its nearest shown ancestor in the tree
        // (its parent where the walk first enters it).
        const NO: u32 = u32::MAX;
        let mut parent_of = vec![NO; n];
        self.tree.walk(|step| {
            if let Step::Enter {
                node,
                parent: Some(p),
                ..
            } = step
            {
                if parent_of[node] == NO {
                    parent_of[node] = p as u32;
                }
            }
        });
        let parent = |i: usize| (parent_of[i] != NO).then_some(parent_of[i] as usize);
        // An entry's edge depends on the entry alone: each is drawn once.
        let mut drawn = vec![false; n];
        for &k in &shown {
            let i = self.flat[k].0;
            let mut cur = parent(i);
            let mut steps = 0;
            while let Some(p) = cur {
                if on[p] || steps > n {
                    break;
                }
                steps += 1;
                cur = parent(p);
            }
            if let Some(p) = cur.filter(|&p| on[p]) {
                if !std::mem::replace(&mut drawn[i], true) {
                    w.push_str("  n");
                    w.push_str(&p.to_string());
                    w.push_str(" -> n");
                    w.push_str(&i.to_string());
                    if self.active[p] && self.active[i] {
                        w.push_str(" [style=bold, color=\"#1d4ed8\"]");
                    }
                    w.push_str(";\n");
                }
            }
        }
        w.push_str("}\n");
        out.write_all(w.as_bytes()).map_err(out_err)
    }

    /// `getSearchableText(node)`.
    fn searchable(&self, i: usize, obj: &Object<'_>) -> String {
        let mut parts: Vec<String> = Vec::new();
        if let Some(l) = self.label_of(i) {
            parts.push(l.to_string());
        }
        let field = |o: &Object<'_>, k: &str| o.raw(k).map(js_string_or_empty).unwrap_or_default();
        match self.s.entries[i].ty() {
            EntryType::Message => {
                if let Some(m) = obj.object("message") {
                    parts.push(field(&m, "role"));
                    if let Some(r) = m.get("content").filter(|r| js::truthy(&m.text[r.clone()])) {
                        parts.push(extract_content(m.text, r));
                    }
                    if m.str("role").as_deref() == Some("bashExecution")
                        && m.raw("command").is_some_and(js::truthy)
                    {
                        parts.push(field(&m, "command"));
                    }
                }
            }
            EntryType::CustomMessage => {
                parts.push(field(obj, "customType"));
                match obj.get("content") {
                    Some(r) if obj.text[r.start] == b'"' => parts.push(field(obj, "content")),
                    Some(r) => parts.push(extract_content(obj.text, r)),
                    None => parts.push(String::new()),
                }
            }
            EntryType::Compaction => parts.push("compaction".into()),
            EntryType::BranchSummary => {
                parts.push("branch summary".into());
                parts.push(field(obj, "summary"));
            }
            EntryType::SessionInfo => {
                parts.push("title".into());
                if obj.raw("name").is_some_and(js::truthy) {
                    parts.push(field(obj, "name"));
                }
            }
            EntryType::ModelChange => {
                parts.push("model".into());
                parts.push(field(obj, "modelId"));
            }
            EntryType::ThinkingLevelChange => {
                parts.push("thinking".into());
                parts.push(field(obj, "thinkingLevel"));
            }
            EntryType::Custom => {
                parts.push("custom".into());
                parts.push(field(obj, "customType"));
            }
            EntryType::Label => {
                parts.push("label".into());
                parts.push(field(obj, "label"));
            }
            EntryType::ContextEdit => {
                parts.push("context edit".into());
                parts.push(context_edit_kind(obj).into());
                parts.push(field(obj, "targetId"));
            }
            _ => {}
        }
        parts.join(" ")
    }

    /// `getEntryDisplayText(node)`, as coloured pieces.
    fn summary(&self, i: usize) -> Result<Vec<Seg>> {
        let line = self.s.line(i)?;
        let obj = self.object(&line, self.s.entries[i].line())?;
        self.summary_of(i, &obj)
    }

    /// [`View::summary`] of entry `i`, parsed as `obj`.
    fn summary_of(&self, i: usize, obj: &Object<'_>) -> Result<Vec<Seg>> {
        let e = &self.s.entries[i];
        let tmpl = |k: &str| template(obj.raw(k));
        let mut v: Vec<Seg> = Vec::new();
        match e.ty() {
            EntryType::Message => {
                let Some(m) = obj.object("message") else {
                    // `entry.message.role` throws in pi; show the type.
                    v.push(("[message]".into(), Some(DIM)));
                    return Ok(v);
                };
                let role = m
                    .raw("role")
                    .map(js_string)
                    .unwrap_or_else(|| "undefined".into());
                let content = || {
                    m.get("content")
                        .map(|r| normalize(&extract_content(m.text, r)))
                        .unwrap_or_default()
                };
                match role.as_str() {
                    "user" => {
                        v.push(("user: ".into(), Some(ACCENT)));
                        v.push((content(), None));
                    }
                    "assistant" => {
                        v.push(("assistant: ".into(), Some(SUCCESS)));
                        let text = content();
                        if !text.is_empty() {
                            v.push((text, None));
                        } else if m.raw("stopReason") == Some(b"\"aborted\"") {
                            v.push(("(aborted)".into(), Some(DIM)));
                        } else if let Some(err) = m.raw("errorMessage").filter(|r| js::truthy(r)) {
                            v.push((js_slice(&normalize(&js_string(err)), 80), Some(ERROR)));
                        } else {
                            v.push(("(no content)".into(), Some(DIM)));
                        }
                    }
                    "toolResult" => {
                        let call = m
                            .raw("toolCallId")
                            .filter(|r| js::truthy(r))
                            .and_then(|r| self.tool_calls.get(&js_string(r)));
                        let t = match call {
                            Some((name, args)) => self.format_tool_call(name, args.as_deref()),
                            None => {
                                let name = match m.raw("toolName") {
                                    None | Some(b"null") => "tool".to_string(),
                                    Some(r) => js_string(r),
                                };
                                format!("[{name}]")
                            }
                        };
                        v.push((t, Some(DIM)));
                    }
                    "bashExecution" => {
                        let cmd = match m.raw("command") {
                            None | Some(b"null") => String::new(),
                            Some(r) => js_string(r),
                        };
                        v.push((format!("[bash]: {}", normalize(&cmd)), Some(DIM)));
                    }
                    _ => v.push((format!("[{role}]"), Some(DIM))),
                }
            }
            EntryType::CustomMessage => {
                // pi: `content.filter((c) => c.type === "text").map((c) =>
                // c.text).join("")` when it is not a string: a TypeError on
                // anything but an array, and on a null block.
                let fails = || {
                    Error::data(
                        &self.s.name,
                        Some(self.s.entries[i].line()),
                        "a custom_message whose content is neither a string nor an array of blocks (pi 1.6's /tree fails on it: TypeError)",
                    )
                };
                let content = match obj.get("content") {
                    Some(r) if obj.text[r.start] == b'"' => js_string(&obj.text[r]),
                    Some(r) if obj.text[r.start] == b'[' => {
                        let mut s = String::new();
                        for el in scan::elements(obj.text, r).unwrap_or_default() {
                            if &obj.text[el.clone()] == b"null" {
                                return Err(fails());
                            }
                            let Ok(b) = Object::at(obj.text, el.clone()) else {
                                continue;
                            };
                            if obj.text[el.start] == b'{'
                                && b.str("type").as_deref() == Some("text")
                            {
                                s.push_str(
                                    &b.raw("text").map(js_string_or_empty).unwrap_or_default(),
                                );
                            }
                        }
                        s
                    }
                    _ => return Err(fails()),
                };
                v.push((format!("[{}]: ", tmpl("customType")), Some(WARNING)));
                v.push((normalize(&content), None));
            }
            EntryType::Compaction => {
                let tokens = obj
                    .raw("tokensBefore")
                    .and_then(|r| std::str::from_utf8(r).ok())
                    .and_then(|s| s.parse::<f64>().ok())
                    .map(|t| js::number_to_js((t / 1000.0 + 0.5).floor()))
                    .unwrap_or_else(|| "NaN".into());
                v.push((format!("[compaction: {tokens}k tokens]"), Some(ACCENT)));
            }
            EntryType::BranchSummary => {
                v.push(("[branch summary]: ".into(), Some(WARNING)));
                v.push((normalize(&tmpl("summary")), None));
            }
            EntryType::ModelChange => v.push((format!("[model: {}]", tmpl("modelId")), Some(DIM))),
            EntryType::ThinkingLevelChange => {
                v.push((format!("[thinking: {}]", tmpl("thinkingLevel")), Some(DIM)))
            }
            EntryType::Custom => v.push((format!("[custom: {}]", tmpl("customType")), Some(DIM))),
            EntryType::ContextEdit => v.push((
                format!("[context {}: {}]", context_edit_kind(obj), tmpl("targetId")),
                Some(DIM),
            )),
            EntryType::Label => {
                let l = match obj.raw("label") {
                    None | Some(b"null") => "(cleared)".to_string(),
                    Some(r) => js_string(r),
                };
                v.push((format!("[label: {l}]"), Some(DIM)));
            }
            EntryType::SessionInfo => {
                let name = obj.raw("name").filter(|r| js::truthy(r)).map(js_string);
                v.push((
                    format!("[title: {}]", name.as_deref().unwrap_or("empty")),
                    Some(DIM),
                ));
            }
            _ => {}
        }
        Ok(v)
    }

    /// `formatToolCall(name, args)`.
    fn format_tool_call(&self, name: &str, args: Option<&[u8]>) -> String {
        let a = args.and_then(|t| Object::parse_line(t).ok().flatten());
        let get = |k: &str| a.as_ref().and_then(|o| o.raw(k));
        let truthy_str = |k: &str| get(k).filter(|r| js::truthy(r)).map(js_string);
        let shorten = |p: String| shorten_home_path(p, &self.home);
        let path_arg = || {
            shorten(
                truthy_str("path")
                    .or_else(|| truthy_str("file_path"))
                    .unwrap_or_default(),
            )
        };
        match name {
            "read" => format!(
                "[read: {}{}]",
                path_arg(),
                read_line_range(get("offset"), get("limit"))
            ),
            "write" => format!("[write: {}]", path_arg()),
            "edit" => format!("[edit: {}]", path_arg()),
            "bash" => {
                let raw = truthy_str("command").unwrap_or_default();
                let cmd = js_slice(js_trim(&raw.replace(['\n', '\t'], " ")), 50);
                let more = if utf16_len(&raw) > 50 { "..." } else { "" };
                format!("[bash: {cmd}{more}]")
            }
            "grep" => format!(
                "[grep: /{}/ in {}]",
                truthy_str("pattern").unwrap_or_default(),
                shorten(truthy_str("path").unwrap_or_else(|| ".".into()))
            ),
            "find" => format!(
                "[find: {} in {}]",
                truthy_str("pattern").unwrap_or_default(),
                shorten(truthy_str("path").unwrap_or_else(|| ".".into()))
            ),
            "ls" => format!(
                "[ls: {}]",
                shorten(truthy_str("path").unwrap_or_else(|| ".".into()))
            ),
            _ => {
                let s = args
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .unwrap_or_default();
                let more = if utf16_len(&s) > 40 { "..." } else { "" };
                format!("[{name}: {}{more}]", js_slice(&s, 40))
            }
        }
    }
}

/// Write segments, cut to `width` columns without an ellipsis, as pi's
/// rows are (`truncateToWidth(line, width, "")`, the columns counted by
/// grapheme and East Asian width as pi-tui counts them, see
/// [`crate::width`]); the trailing spaces pi's rows have are left out.
fn render_line(out: &mut String, segs: &[Seg], width: Option<usize>, color: bool) {
    // The length of the pieces joined, less the trailing white space.
    let mut trimmed_len: usize = segs.iter().map(|(t, _)| t.len()).sum();
    for (t, _) in segs.iter().rev() {
        let kept = t.trim_end_matches(is_js_space).len();
        trimmed_len -= t.len() - kept;
        if kept > 0 {
            break;
        }
    }
    let mut written_bytes = 0;
    let mut cols = 0;
    let mut full = false;
    let mut piece = String::new();
    for (t, c) in segs {
        piece.clear();
        if let Some(widths) = simple_widths(t) {
            // Each character is a grapheme of its own.
            for (ch, w) in t.chars().zip(widths) {
                if written_bytes + ch.len_utf8() > trimmed_len
                    || width.is_some_and(|l| cols + w > l)
                {
                    full = true;
                    break;
                }
                piece.push(ch);
                written_bytes += ch.len_utf8();
                cols += w;
            }
        } else {
            for (g, w, _) in crate::width::pieces(t) {
                if written_bytes + g.len() > trimmed_len || width.is_some_and(|l| cols + w > l) {
                    full = true;
                    break;
                }
                piece.push_str(g);
                written_bytes += g.len();
                cols += w;
            }
        }
        if !piece.is_empty() {
            match (color, c) {
                (true, Some(code)) => {
                    out.push_str("\x1b[");
                    out.push_str(code);
                    out.push('m');
                    out.push_str(&piece);
                    out.push_str("\x1b[0m");
                }
                _ => out.push_str(&piece),
            }
        }
        if full {
            break;
        }
    }
}

/// The columns of each character of `t` when every character of it is a
/// grapheme cluster of its own whose width is known without segmenting:
/// printable ASCII and the tree's own drawing characters (none of them
/// joins a neighbour into a cluster). None for any other text, which
/// [`crate::width::pieces`] walks.
fn simple_widths(t: &str) -> Option<impl Iterator<Item = usize> + '_> {
    const DRAWING: [char; 5] = ['│', '├', '└', '─', '•'];
    let simple = |c: char| matches!(c, ' '..='~') || DRAWING.contains(&c);
    if !t.bytes().all(|b| (b' '..=b'~').contains(&b)) && !t.chars().all(simple) {
        return None;
    }
    static WIDTHS: std::sync::OnceLock<[usize; 5]> = std::sync::OnceLock::new();
    let widths = WIDTHS
        .get_or_init(|| DRAWING.map(|c| crate::width::grapheme_width(c.encode_utf8(&mut [0; 4]))));
    Some(
        t.chars()
            .map(move |c| match DRAWING.iter().position(|&d| d == c) {
                Some(k) => widths[k],
                None => 1,
            }),
    )
}

/// pi's `shortenHomePath(path, home)` (posix rules): an absolute path
/// inside `home` (both resolved: `.`, `..`, repeated and trailing slashes)
/// becomes `~/` and the rest, or `~` for `home` itself; anything else is
/// kept as it is.
fn shorten_home_path(path: String, home: &str) -> String {
    if home.is_empty() || !path.starts_with('/') {
        return path;
    }
    let home = posix_resolve(home);
    let full = posix_resolve(&path);
    if full == home {
        return "~".into();
    }
    let rest = if home == "/" {
        full.strip_prefix('/')
    } else {
        full.strip_prefix(home.as_str())
            .and_then(|r| r.strip_prefix('/'))
    };
    match rest {
        Some(r) if !r.is_empty() => format!("~/{r}"),
        _ => path,
    }
}

/// Node's `path.posix.resolve(p)`: relative paths against the current
/// directory, then `.` and empty segments dropped and `..` applied.
fn posix_resolve(p: &str) -> String {
    let joined;
    let p = if p.starts_with('/') {
        p
    } else {
        let cwd = std::env::current_dir()
            .map(|d| d.to_string_lossy().into_owned())
            .unwrap_or_else(|_| "/".into());
        joined = format!("{cwd}/{p}");
        &joined
    };
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    format!("/{}", parts.join("/"))
}

/// pi's `formatReadLineRange(args.offset, args.limit)`, from the raw JSON
/// values (None when absent).
fn read_line_range(offset: Option<&[u8]>, limit: Option<&[u8]>) -> String {
    let absent = |v: Option<&[u8]>| v.is_none_or(|r| r == b"null");
    if absent(offset) && absent(limit) {
        return String::new();
    }
    let start = match offset {
        Some(r) if r != b"null" => match parse_line_number(r) {
            Some(n) => n,
            None => return String::new(),
        },
        _ => 1.0,
    };
    let Some(lim) = limit.filter(|r| *r != b"null") else {
        return format!(":{}", js_number_string(start));
    };
    let Some(count) = parse_line_number(lim) else {
        return String::new();
    };
    let end = start + count - 1.0;
    if end == 0.0 || end.is_nan() {
        format!(":{}", js_number_string(start))
    } else {
        format!(":{}-{}", js_number_string(start), js_number_string(end))
    }
}

/// pi's `parseLineNumber`: a finite number, or a non-blank string that
/// `Number()` turns into one.
fn parse_line_number(raw: &[u8]) -> Option<f64> {
    let n = match raw.first() {
        Some(b'"') => {
            let s = js::decode_string(raw, 0..raw.len());
            if js_trim(&s).is_empty() {
                return None;
            }
            js_string_to_number(&s)
        }
        Some(b'-' | b'0'..=b'9') => std::str::from_utf8(raw).ok()?.parse::<f64>().ok()?,
        _ => return None,
    };
    n.is_finite().then_some(n)
}

/// JavaScript's `Number(string)` (NaN for what it does not read).
fn js_string_to_number(s: &str) -> f64 {
    let t = js_trim(s);
    if t.is_empty() {
        return 0.0;
    }
    match t {
        "Infinity" | "+Infinity" => return f64::INFINITY,
        "-Infinity" => return f64::NEG_INFINITY,
        _ => {}
    }
    let radix = match t.get(..2) {
        Some("0x" | "0X") => 16,
        Some("0o" | "0O") => 8,
        Some("0b" | "0B") => 2,
        _ => 10,
    };
    if radix != 10 {
        let digits = &t[2..];
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return f64::NAN;
        }
        if let Ok(v) = u128::from_str_radix(digits, radix) {
            return v as f64;
        }
        return digits.chars().fold(0.0, |acc, c| {
            acc * f64::from(radix) + f64::from(c.to_digit(radix).unwrap_or(0))
        });
    }
    // StrDecimalLiteral: sign, digits with at most one point (digits on
    // at least one side), an optional exponent with digits.
    let b = t.as_bytes();
    let mut k = usize::from(matches!(b[0], b'+' | b'-'));
    let int = b[k..].iter().take_while(|c| c.is_ascii_digit()).count();
    k += int;
    let mut frac = 0;
    if b.get(k) == Some(&b'.') {
        k += 1;
        frac = b[k..].iter().take_while(|c| c.is_ascii_digit()).count();
        k += frac;
    }
    if int + frac == 0 {
        return f64::NAN;
    }
    if matches!(b.get(k), Some(b'e' | b'E')) {
        k += 1;
        if matches!(b.get(k), Some(b'+' | b'-')) {
            k += 1;
        }
        let exp = b[k..].iter().take_while(|c| c.is_ascii_digit()).count();
        if exp == 0 {
            return f64::NAN;
        }
        k += exp;
    }
    if k != b.len() {
        return f64::NAN;
    }
    t.parse::<f64>().unwrap_or(f64::NAN)
}

/// `${n}` for a number: as [`js::number_to_js`], with the infinities.
fn js_number_string(n: f64) -> String {
    match n {
        f64::INFINITY => "Infinity".into(),
        f64::NEG_INFINITY => "-Infinity".into(),
        _ if n.is_nan() => "NaN".into(),
        _ => js::number_to_js(n),
    }
}

/// `entry.replacement === null ? "omit" : "replace"`.
fn context_edit_kind(obj: &Object<'_>) -> &'static str {
    if obj.raw("replacement") == Some(b"null") {
        "omit"
    } else {
        "replace"
    }
}

/// pi's "No entries found" row: `truncateToWidth("  No entries found",
/// width + 2)` (with "..."), less the two columns of the cursor.
fn render_empty(out: &mut String, msg: &Seg, width: Option<usize>, color: bool) {
    let text = match width {
        Some(w) if msg.0.chars().count() > w => {
            let pi_width = w + 2;
            let full = format!("  {}", msg.0);
            let pi_line: String = if pi_width <= 3 {
                "...".chars().take(pi_width).collect()
            } else {
                let keep: String = full.chars().take(pi_width - 3).collect();
                format!("{keep}...")
            };
            pi_line.chars().skip(2).collect()
        }
        _ => msg.0.clone(),
    };
    match (color, msg.1) {
        (true, Some(code)) if !text.is_empty() => {
            out.push_str(&format!("\x1b[{code}m{text}\x1b[0m"))
        }
        _ => out.push_str(&text),
    }
}

fn raw_or_null(buf: &mut Vec<u8>, obj: &Object<'_>, key: &str) {
    // A string of printable ASCII without escapes is written as it is.
    if let Some(raw) = obj.raw(key) {
        if let [b'"', inner @ .., b'"'] = raw {
            if inner
                .iter()
                .all(|&b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\')
            {
                buf.extend_from_slice(raw);
                return;
            }
        }
    }
    match obj.canonical(key) {
        Ok(Some(v)) => buf.extend_from_slice(&v),
        _ => buf.extend_from_slice(b"null"),
    }
}

/// A JSON value as `${value}` shows it (strings as they are).
fn js_string(raw: &[u8]) -> String {
    js::string_value(raw)
}

fn js_string_or_empty(raw: &[u8]) -> String {
    js::string_value_or_empty(raw)
}

/// `${obj[key]}`: "undefined" when absent.
fn template(raw: Option<&[u8]>) -> String {
    raw.map(js_string).unwrap_or_else(|| "undefined".into())
}

/// pi's `normalize`: tabs and newlines to spaces, then `trim()`.
fn normalize(s: &str) -> String {
    js_trim(&s.replace(['\n', '\t'], " ")).to_string()
}

fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// `s.slice(0, n)` in UTF-16 units (a split pair becomes U+FFFD, as Node
/// writes a lone surrogate).
fn js_slice(s: &str, n: usize) -> String {
    let mut out = String::new();
    let mut units = 0;
    for c in s.chars() {
        let u = c.len_utf16();
        if units + u > n {
            if units < n {
                out.push('\u{FFFD}');
            }
            break;
        }
        units += u;
        out.push(c);
    }
    out
}

fn cut_chars(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
    t.push('…');
    t
}

fn dot_escape_into(o: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' | '\r' => o.push(' '),
            // Graphviz refuses a NUL and shows other controls as garbage:
            // their visible pictures (U+2400 + code).
            '\0'..='\u{1f}' => o.push(char::from_u32(0x2400 + c as u32).unwrap_or(' ')),
            '\u{7f}' => o.push('\u{2421}'),
            c => o.push(c),
        }
    }
}

/// Graphviz refuses a quoted string longer than 16 384 characters: what a
/// node shows (label, tooltip) is cut well below that.
const DOT_MAX_CHARS: usize = 1000;

/// `extractContent(content)`: a string cut at 200 UTF-16 units, or the
/// `text` blocks concatenated (cut once 200 is reached).
fn extract_content(text: &[u8], r: std::ops::Range<usize>) -> String {
    match text[r.start] {
        b'"' => js_slice(&js::decode_string(text, r), 200),
        b'[' => {
            let mut s = String::new();
            for el in scan::elements(text, r).unwrap_or_default() {
                if text[el.start] != b'{' {
                    continue;
                }
                let Ok(b) = Object::at(text, el) else {
                    continue;
                };
                if b.str("type").as_deref() == Some("text") {
                    s.push_str(&template(b.raw("text")));
                    if utf16_len(&s) >= 200 {
                        return js_slice(&s, 200);
                    }
                }
            }
            s
        }
        _ => String::new(),
    }
}

/// `hasTextContent(content)`.
fn has_text_content(text: &[u8], r: std::ops::Range<usize>) -> bool {
    match text[r.start] {
        b'"' => !js_trim(&js::decode_string(text, r)).is_empty(),
        b'[' => scan::elements(text, r)
            .unwrap_or_default()
            .into_iter()
            .any(|el| {
                text[el.start] == b'{'
                    && Object::at(text, el).is_ok_and(|b| {
                        b.str("type").as_deref() == Some("text")
                            && b.str("text").is_some_and(|t| !js_trim(&t).is_empty())
                    })
            }),
        _ => false,
    }
}

/// Counts for `--stats`, as one JSON line.
pub fn write_stats(
    s: &Session,
    out: &mut impl Write,
    warn: &mut dyn FnMut(Diagnostic),
) -> Result<()> {
    let tree = Tree::build(s);
    check_size(s, &tree)?;
    report_unreachable(s, &tree, warn);
    let mut types: Vec<(String, usize)> = Vec::new();
    let mut entries = 0;
    for (i, e) in s.entries.iter().enumerate() {
        if e.ty() == EntryType::Session {
            continue;
        }
        entries += 1;
        let t = s.type_name(i).to_string();
        match types.iter_mut().find(|(k, _)| *k == t) {
            Some(x) => x.1 += 1,
            None => types.push((t, 1)),
        }
    }
    let (mut nodes, mut branch_points, mut leaves, mut max_depth) =
        (0usize, 0usize, 0usize, 0usize);
    tree.walk(|step| {
        if let Step::Enter { node, depth, .. } = step {
            nodes += 1;
            let c = tree.children(node).len();
            if c > 1 {
                branch_points += 1;
            }
            if c == 0 {
                leaves += 1;
            }
            max_depth = max_depth.max(depth + 1);
        }
    });
    let mut b = Vec::new();
    b.extend_from_slice(format!("{{\"entries\":{entries},\"types\":{{").as_bytes());
    for (k, (t, c)) in types.iter().enumerate() {
        if k > 0 {
            b.push(b',');
        }
        js::write_str(&mut b, t);
        b.extend_from_slice(format!(":{c}").as_bytes());
    }
    b.extend_from_slice(
        format!(
            "}},\"nodes\":{nodes},\"roots\":{},\"branchPoints\":{branch_points},\"leaves\":{leaves},\"maxDepth\":{max_depth},\"unreachable\":{},\"labels\":{},\"name\":",
            tree.roots.len(),
            tree.unreachable.len(),
            s.index.labels.iter().count()
        )
        .as_bytes(),
    );
    match &s.index.name {
        Some(n) => js::write_str(&mut b, n),
        None => b.extend_from_slice(b"null"),
    }
    b.extend_from_slice(b"}\n");
    out.write_all(&b).map_err(out_err)?;
    out.flush().map_err(out_err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Input, ReadOptions};

    /// The two-thread writer (used for large files) gives the same bytes
    /// as the one-thread one, batch borders anywhere.
    #[test]
    fn two_threads_write_what_one_writes() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/sessions");
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .map(|rd| rd.flatten().map(|f| f.path()).collect())
            .unwrap_or_default();
        files.sort();
        let mut checked = 0;
        for path in files {
            let Ok(s) = Session::open(Input::File(path.clone()), ReadOptions::default()) else {
                continue;
            };
            let Some(f) = reopen(&s) else {
                continue;
            };
            let tree = Tree::build(&s);
            if tree.walk_len(100_000).is_none() {
                continue;
            }
            for size in [1, 300, 5000, 1 << 20] {
                let cutter = || Cutter {
                    s: &s,
                    walk: tree.steps(),
                    after_leave: false,
                    size,
                };
                let mut one = Vec::new();
                let mut cut = cutter();
                write_batches(&s, &mut SessionLines(&s), &mut cut, &mut one, &mut |_| {}).unwrap();
                let mut two = Vec::new();
                let mut cut = cutter();
                write_batches_two_threads(&s, &f, &mut cut, &mut two, &mut |_| {}).unwrap();
                assert_eq!(
                    String::from_utf8_lossy(&one),
                    String::from_utf8_lossy(&two),
                    "{}",
                    path.display()
                );
                let mut full = Vec::new();
                write_json(&s, &tree, &mut full, &mut |_| {}).unwrap();
                assert_eq!(full, [&b"["[..], &one, b"]\n"].concat());
            }
            checked += 1;
        }
        assert!(checked > 20, "{checked}");
    }
}
