//! `pi-tree`: pi's `/tree` view from the shell, pi's `getTree()` as JSON,
//! one JSON line per entry, a Graphviz graph, and statistics.
//!
//! The text view replays `TreeSelectorComponent` (pi's
//! `modes/interactive/components/tree-selector.js`): the same display
//! order (the branch holding the active leaf first), indentation,
//! connectors and gutters, `•` on the active path, `[label]`, one-line
//! summaries and filter modes; without the cursor column, the fold glyphs
//! (drawn `─`) and the `(n/m)` counter. Nothing here recurses.
//!
//! The parts: `view` (the display list: order, active path, filters,
//! search), `layout` (its indentation, connectors and gutters),
//! `text` (the rows as text), `jsonl` and `dot` (the data formats),
//! `json` (`getTree()`, its lines from `render::lines`),
//! `stats` and `problems` (what every format checks and warns about
//! first). pi's display and searchable text of an entry are
//! `search::tree_text`'s.

mod dot;
mod json;
mod jsonl;
mod layout;
mod problems;
mod stats;
mod text;
mod view;

pub(crate) use stats::write_stats;

use crate::cli::{Ctx, Exit, Log, Out, SessionArgs};
use crate::error::Result;
use crate::refs;
use crate::session::Session;
use crate::tree::Tree;
use clap::Parser;
use std::io::Write;
use view::View;

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
    // The leaf tools' footer, with --search's own exit status.
    crate::cli::help::help_ref_leaf!(),
    "\n\n",
    crate::cli::help::help_max_line!(),
    "\nExit status: 0 ok, 1 --search found nothing (as grep) or the data or request \
cannot be honoured, 2 wrong usage.",
    crate::cli::help::exact_to_pi!()
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
    /// typing in pi's /tree); none does: exit 1, as grep.
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

crate::cli::impl_tool! { Args, "pi-tree", quiet = input.quiet }

/// `pi-tree`: read SESSION, print its tree in the format asked for.
pub(crate) fn run(args: &Args, ctx: &mut Ctx) -> Result<Exit> {
    let json = args.json || args.format == Format::Json;
    // --json prints whole entries: find out while reading which lines
    // can be printed as they are.
    let read = crate::session::ReadOptions {
        canonical: json,
        // The rows and filters of the other formats look at every
        // message: a glance of each is taken while the file is loaded.
        glances: !json && !args.stats,
        ..args.input.read_options()
    };
    let session = args.input.open_with(ctx, read)?;
    let log = ctx.log;
    if args.stats {
        write_stats(&session, ctx.out(), log)?;
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
    let shown = render(&session, &opts, ctx.out(), log)?;
    // As grep: a search that finds nothing exits 1 (a blank one is no
    // search, as in pi).
    let searched = args
        .search
        .as_deref()
        .is_some_and(|q| !crate::json::js::string::trim(q).is_empty());
    Ok(if searched {
        Exit::Found(shown)
    } else {
        Exit::Ok
    })
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
pub(crate) struct Options {
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
    /// the session file to it (see `gather.rs`) instead of reading
    /// them. `out` is flushed first.
    pub out_fd: Option<i32>,
}

/// Run `pi-tree`; warnings go to `log`. Whether any entry was shown
/// (--json shows the whole tree, whatever the search).
pub(crate) fn render(s: &Session, opts: &Options, out: &mut impl Write, log: Log) -> Result<bool> {
    let tree = Tree::build(s);
    problems::check_size(s, &tree)?;
    problems::report(s, &tree, log);
    // Resolved for every format, so that a bad REF is an error even where
    // the output does not depend on the leaf (--json).
    let leaf = match (opts.leaf.as_deref(), s.index.leaf) {
        (None, l) => l,
        (Some(r), _) => Some(refs::resolve(s, r)?),
    };
    if opts.format == Format::Json {
        #[cfg(unix)]
        if let (Some(fd), Some(file)) = (opts.out_fd, crate::render::lines::reopen(s)) {
            out.done()?;
            json::write_json_gathered(s, &tree, &file, fd, log)?;
            return Ok(true);
        }
        json::write_json(s, &tree, out, log)?;
        return Ok(true);
    }
    let view = View::new(s, tree, leaf)?;
    let shown = match opts.format {
        Format::Text => view.write_text(opts, out),
        Format::Jsonl => view.write_jsonl(opts, out),
        Format::Dot => view.write_dot(opts, out),
        Format::Json => Ok(true),
    }?;
    out.done()?;
    Ok(shown)
}
