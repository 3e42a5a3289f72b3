//! pi-fork: a branch of a pi session into a new session file, a whole
//! session into another project, or (in place) back to an earlier entry.
//!
//! ```text
//! Usage: pi-fork [OPTIONS] SESSION --at REF | --before REF
//!        pi-fork [OPTIONS] SESSION --cwd DIR
//!        pi-fork [OPTIONS] SESSION --all-leaves
//!        pi-fork [OPTIONS] SESSION --in-place (--at REF | --before REF) [--summary TEXT]
//! ```
//!
//! This file is the command (its arguments and what it prints); the new
//! sessions and the in-place entry are made in `build.rs`.

mod build;

use build::*;
// The property tests build pi-fork's new sessions (tests/properties.rs).
#[cfg(feature = "fuzzing")]
pub use build::{branched_session, NewSession};

use crate::cli::{Ctx, Exit, Out, SessionArgs};
use crate::error::{Error, Result};
use crate::json::ObjectWriter;
use crate::session::{Input, ReadOptions, Session};
use crate::store::{project_session_dir, resolve_path};
use clap::{ArgGroup, Parser};
use std::path::{Path, PathBuf};

const EXAMPLES: &str = concat!(
    "\
Examples:
  pi-fork s.jsonl --at leaf~2            a new session: the path without its last two messages
  pi-fork s.jsonl --before 3f2a --json   pi's /fork on a user message: fork at its parent,
                                         and hand back the message's text
  pi-fork s.jsonl --at @plan -o - | pi-path --format ids
                                         write the new session to stdout
  pi-fork s.jsonl --all-leaves -0 | xargs -0 -n1 pi-path --leaves
                                         one new session per branch, for a review
  pi-fork s.jsonl --cwd /home/dev/src/site
                                         move (copy) a whole session into another project
  pi-fork s.jsonl --in-place --at leaf~2
                                         undo the last two messages without losing them:
                                         pi continues from there, the old branch stays
  pi-fork s.jsonl --in-place --before @retry --summary 'Tried X; it failed because Y.'
                                         go back before a user message, leaving a summary

New files go next to SESSION (or into --session-dir DIR, or -o FILE) under
pi's own name <time>_<uuid>.jsonl, and are never overwritten. Prints the new
path (with --in-place: the new entry's id); --json prints an object instead.
If printing fails (a full disk, > /dev/full), the new files are removed again
and --in-place appends nothing (the id is printed before the entry is written).
A running pi keeps its leaf in memory and appends its next turn under it,
which undoes an --in-place move: --in-place refuses (exit 1, nothing written)
a session a running pi may be continuing (seen on Linux only: a pi whose
session dir holds SESSION, or whose working directory is SESSION's cwd); quit
pi first, or pass --force. New files are safe with a running pi.

",
    crate::cli::help::help_ref!(),
    "
pi-fork's marker entries (type custom, customType pi-fork) are bookkeeping, so
--in-place --at leaf~1 undoes one message, and run again one more each time;
leaf alone is still pi's leaf (the last marker).
",
    crate::cli::help::help_max_line!(),
    "\n",
    crate::cli::help::help_exit!(),
    crate::cli::help::exact_to_pi!()
);

/// Fork a pi session: a branch into a new session file, a whole session into
/// another project, or back to an earlier entry inside the file.
///
/// New files are exactly what pi's createBranchedSession (/fork) and forkFrom
/// write. With --in-place, one entry is appended whose parent is the chosen
/// entry, so pi (which continues from the last entry of a file) goes on from
/// there and the old branch stays in the tree: a branch_summary when --summary
/// is given (pi's branchWithSummary), else a custom entry of type pi-fork that
/// pi never sends to the model.
#[derive(Parser, Debug)]
#[command(name = "pi-fork", version, after_help = EXAMPLES)]
#[command(group(ArgGroup::new("what").required(true).args(["at", "before", "cwd", "all_leaves"])))]
pub struct Args {
    #[command(flatten)]
    pub input: SessionArgs,

    /// Fork at REF: the new session holds the path from the root to REF
    /// (--leaf is the same, as in pi-path, pi-tree and pi-convert).
    #[arg(long, value_name = "REF", visible_alias = "leaf")]
    pub at: Option<String>,

    /// Fork before the user message REF (at its parent), like pi's /fork,
    /// and print the message's text to stderr (and in --json).
    #[arg(long, value_name = "REF")]
    pub before: Option<String>,

    /// Copy the whole session (every branch) into project DIR's session
    /// directory, with cwd DIR (pi's forkFrom).
    #[arg(long, value_name = "DIR", conflicts_with = "in_place")]
    pub cwd: Option<PathBuf>,

    /// One new session per leaf of the tree; prints one path per line (with
    /// -0, each ended by a NUL byte).
    #[arg(long, conflicts_with_all = ["in_place", "output"])]
    pub all_leaves: bool,

    /// Do not write a new file: append one entry to SESSION so that pi
    /// continues from the chosen entry (see above).
    #[arg(long, short = 'i')]
    pub in_place: bool,

    /// With --in-place: write even when a running pi may be continuing the
    /// session (its next turn would undo the move).
    #[arg(long, requires = "in_place")]
    pub force: bool,

    /// With --in-place: leave a branch summary with this text.
    #[arg(
        long,
        value_name = "TEXT",
        requires = "in_place",
        conflicts_with = "summary_file"
    )]
    pub summary: Option<String>,

    /// With --in-place: leave a branch summary read from FILE (`-` for stdin).
    #[arg(long, value_name = "FILE", requires = "in_place")]
    pub summary_file: Option<PathBuf>,

    /// Write the new session to FILE (`-`: stdout) instead of a new file
    /// named like pi's.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "FILE",
        conflicts_with = "in_place"
    )]
    pub output: Option<PathBuf>,

    /// Also name the new session (a session_info entry).
    #[arg(long, value_name = "NAME", conflicts_with = "in_place")]
    pub name: Option<String>,

    /// Print a JSON object per result instead of a path (or id).
    #[arg(long)]
    pub json: bool,

    /// End each path (or id) with a NUL byte instead of a line feed (for
    /// xargs -0: any path, spaces and newlines too).
    #[arg(short = '0', long = "null", conflicts_with = "json")]
    pub null: bool,
}

crate::cli::impl_tool! { Args, "pi-fork", quiet = input.quiet, adjust = adjust }

/// SESSION is required; --session-dir is also where new sessions go.
fn adjust(cmd: clap::Command) -> clap::Command {
    let cmd = crate::cli::session_required(cmd);
    crate::cli::edit_arg(cmd, "session_dir", |a| {
        a.help(
            "Directory for the new session (default: SESSION's directory; with \
--cwd, that project's session directory); also where session-id prefixes are looked up",
        )
    })
}

/// `pi-fork`: write the new sessions (or append the in-place entry) and
/// print what was made.
pub(crate) fn run(args: &Args, ctx: &mut Ctx) -> Result<Exit> {
    let input = args.input.input()?;
    let opts = args.input.read_options();
    if args.in_place {
        in_place(args, input, opts, ctx)?;
        return Ok(Exit::Ok);
    }
    let s = Session::open(input, opts).map_err(|e| args.input.forgotten_ref(e))?;
    ctx.log.warn_all(&s.warnings);
    let log = ctx.log;
    let out = ctx.out();
    let source = s.path().map(resolve_path);
    let parent = source.as_ref().map(|p| p.to_string_lossy().into_owned());
    let dir = match (&args.input.session_dir, &args.cwd, &source) {
        (Some(d), _, _) => Some(d.clone()),
        (None, Some(cwd), _) => Some(project_session_dir(&resolve_path(cwd), None)),
        (None, None, Some(src)) => src.parent().map(Path::to_path_buf),
        (None, None, None) => None,
    };
    // What to make: the new sessions' leaves (and the text --before takes
    // back). Each file is built once the one before it is written, so that
    // no more than one is held: --all-leaves held them all (1 500 leaves
    // of a 0.9 MB session: 349 MB).
    let plan: Vec<(Plan, Option<String>)> = if args.cwd.is_some() {
        vec![(Plan::Cwd, None)]
    } else if args.all_leaves {
        crate::path::leaves(&s)
            .into_iter()
            .map(|leaf| (Plan::Leaf(Some(leaf)), None))
            .collect()
    } else if let Some(r) = &args.at {
        vec![(Plan::Leaf(Some(at(&s, r)?)), None)]
    } else if let Some(r) = &args.before {
        let i = crate::refs::resolve(&s, r)?;
        let (target, text) = before(&s, i, false)?;
        vec![(Plan::Leaf(target), Some(text))]
    } else {
        Vec::new()
    };
    // The files made so far: removed again if the output fails, so that a
    // failing run leaves nothing behind.
    let mut created: Vec<PathBuf> = Vec::new();
    let undo = |created: &[PathBuf]| {
        for p in created {
            let _ = std::fs::remove_file(p);
        }
    };
    for (what, text) in plan {
        let built = match what {
            Plan::Cwd => {
                let cwd = args.cwd.as_deref().map(resolve_path).unwrap_or_default();
                fork_from(&s, &cwd.to_string_lossy(), parent.as_deref())
            }
            Plan::Leaf(leaf) => branched_session(&s, leaf, parent.as_deref()),
        };
        let mut new = match built {
            Ok(n) => n,
            Err(e) => {
                undo(&created);
                return Err(e);
            }
        };
        if let Some(n) = &args.name {
            add_name(&mut new, n);
        }
        let path = match write_new(&new, args.output.as_deref(), dir.as_deref(), out) {
            Ok(p) => p,
            Err(e) => {
                undo(&created);
                return Err(e);
            }
        };
        if let (Some(t), false) = (&text, args.json) {
            log.text(t);
        }
        let Some(path) = path else { continue };
        created.push(path.clone());
        let line = made_line(args, &path, &new, text.as_deref());
        if let Err(e) = out.announce(&line) {
            undo(&created);
            return Err(e);
        }
    }
    out.done()?;
    Ok(Exit::Ok)
}

/// What a new session is made of.
enum Plan {
    /// --cwd: the whole session, moved to another project.
    Cwd,
    /// A branch ending at this entry (None: an empty one).
    Leaf(Option<usize>),
}

/// The line printed for a new session: its path, or with --json an object.
fn made_line(args: &Args, path: &Path, new: &NewSession, text: Option<&str>) -> Vec<u8> {
    let mut line = Vec::new();
    if args.json {
        let mut w = ObjectWriter::new();
        let abs = absolute(path);
        w.raw(
            "path",
            Some(&crate::name::json(&crate::name::kept_path(&abs))),
        )
        .str("id", &new.id);
        match &new.parent_session {
            Some(p) => w.str("parentSession", p),
            None => w.raw("parentSession", Some(b"null")),
        };
        match &new.leaf {
            Some(l) => w.str("leaf", l),
            None => w.raw("leaf", Some(b"null")),
        };
        if let Some(t) = text {
            w.str("text", t);
        }
        line.extend_from_slice(&w.finish());
    } else {
        line.extend_from_slice(path.as_os_str().as_encoded_bytes());
    }
    line.push(if args.null { b'\0' } else { b'\n' });
    line
}

fn in_place(args: &Args, input: Input, opts: ReadOptions, ctx: &mut Ctx) -> Result<()> {
    let log = ctx.log;
    let out = ctx.out();
    let Input::File(path) = input else {
        return Err(Error::usage("--in-place needs a session file, not stdin"));
    };
    if !args.force {
        crate::live::refuse_if_live(
            &path,
            "pi appends its next turn under the leaf it holds in memory, which undoes the move",
            &mut |d| log.warn(&d),
        )?;
    }
    let summary = match (&args.summary, &args.summary_file) {
        (Some(t), _) => Some(t.clone()),
        (None, Some(f)) => Some(crate::io::read_text(
            f,
            "the summary",
            crate::session::max_line(),
        )?),
        (None, None) => None,
    };
    if summary.as_deref() == Some("") {
        return Err(Error::usage(
            "an empty summary: pi writes no branch summary for it; leave out --summary",
        ));
    }
    let text = std::cell::RefCell::new(None);
    // What is printed goes out before the entry is appended: an output
    // that fails leaves the file as it was.
    let mut announced = false;
    let moved = move_in_place(
        &path,
        opts,
        |s| match (&args.at, &args.before) {
            (Some(r), _) => Ok(Some(at(s, r)?)),
            (None, Some(r)) => {
                let i = crate::refs::resolve(s, r)?;
                let (target, t) = before(s, i, true)?;
                *text.borrow_mut() = Some(t);
                Ok(target)
            }
            _ => Err(Error::usage("--in-place needs --at REF or --before REF")),
        },
        summary.as_deref(),
        log,
        &mut |moved| {
            announced = true;
            out.announce(&report(args, moved, text.borrow().as_deref()))
        },
    )?;
    if moved.id.is_none() {
        ctx.log.note("already at that entry; nothing written");
    }
    if let (Some(t), false) = (&*text.borrow(), args.json) {
        ctx.log.text(t);
    }
    if !announced {
        ctx.out()
            .bytes(&report(args, &moved, text.borrow().as_deref()))?;
    }
    ctx.out().done()
}

/// What `--in-place` prints: the new entry's id, or with --json an object.
fn report(args: &Args, moved: &Moved, text: Option<&str>) -> Vec<u8> {
    let mut out = Vec::new();
    if args.json {
        let mut w = ObjectWriter::new();
        let opt = |w: &mut ObjectWriter, k: &str, v: &Option<String>| match v {
            Some(v) => {
                w.str(k, v);
            }
            None => {
                w.raw(k, Some(b"null"));
            }
        };
        opt(&mut w, "id", &moved.id);
        opt(&mut w, "oldLeaf", &moved.old_leaf);
        opt(
            &mut w,
            "newLeaf",
            &moved.id.clone().or(moved.old_leaf.clone()),
        );
        opt(&mut w, "target", &moved.target);
        if let Some(t) = text {
            w.str("text", t);
        }
        out.extend_from_slice(&w.finish());
        out.push(b'\n');
    } else if let Some(id) = &moved.id {
        out.extend_from_slice(id.as_bytes());
        out.push(if args.null { b'\0' } else { b'\n' });
    }
    out
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}
