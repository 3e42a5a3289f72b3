//! `pi-mv`: sessions moved with their project. pi files each session
//! under the directory it was started in (`--<cwd>--`) and records that
//! cwd in the header; a repository moved or renamed leaves its sessions
//! behind. This rewrites the header's `cwd` (every other byte kept), moves
//! the file into the new project's directory, and points the forks'
//! `parentSession` at the new place.
//!
//! The order of the steps makes every moment safe to stop at: (1) the
//! headers are rewritten in place, each atomically; (2) each file is
//! linked (or copied and flushed) under its new name, then its old name
//! removed; (3) the forks are rewritten. A rerun finds a header already
//! rewritten in the old directory, a file under both names, or a fork
//! naming a file that is gone by the moved file's name, and finishes.
//!
//! - here: the usage, the request, the three steps and what is said;
//! - `plan`: which sessions go where, and what refuses one.

mod plan;

use crate::cli::{Ctx, Exit, Log, Out};
use crate::error::{Error, Result};
use crate::header_edit::{self, Change};
use crate::inuse::InUse;
use crate::json::ObjectWriter;
use clap::Parser;
use plan::{Ask, Item};
use std::path::{Path, PathBuf};

const EXAMPLES: &str = concat!(
    "\
Examples:
  pi-mv --dry-run --project /home/dev/src/site /home/dev/code/site
                                          what moving the repository would do
  pi-mv --project /home/dev/src/site /home/dev/code/site
                                          its sessions follow it (and their forks)
  pi-mv --dry-run --json --project /home/dev/src/app /home/dev/code/app
                                          one JSON object per session and fork
  pi-mv 019a5c3e --cwd /home/dev/src/site  one session into another project
  pi-ls -0 | pi-mv -0 --dry-run --cwd /tmp/elsewhere
                                          this project's sessions, named on stdin

--project OLD NEW moves every session of the store whose header's cwd is OLD
or below it (OLD/x becomes NEW/x); SESSION... --cwd DIR the sessions named
(files, directories, session-id prefixes; -0: NUL-ended names on stdin).
OLD, NEW and DIR are made absolute, their links resolved where they exist
(pi records its working directory so); nothing needs to exist.

A session in pi's directory for its cwd (sessions/--<cwd>--/) moves to the
new cwd's (created as pi creates it); in a directory of another kind
(--session-dir, $PI_CODING_AGENT_SESSION_DIR) it stays, and only its cwd
changes. The file keeps its name, session id and modification time (pi -c
continues the latest); the header's cwd is rewritten atomically, every other
byte kept. Same file system: a rename (hard link, then the old name
removed); another: a copy, flushed, then the original removed (an old
project directory left empty goes too). Every session of the store whose
parentSession names a moved file is rewritten to name its new place.

Refused, each on its own (the others still move): a session in use (another
process has it open, or a running pi may be continuing it), a new name that
another file already has. An interrupted run leaves every file whole (old,
new, or the same session under both names); running the same command again
finishes it.

--json: one object per line: path, status (moved, would-move, current,
refused, failed; forks: parent-updated, would-update-parent, failed), to,
cwd, newCwd, parentSession, error.

",
    crate::cli::help::help_exit!(),
    crate::cli::help::exact_to_pi!()
);

/// Move pi sessions to another project directory: header cwd, file place,
/// forks' parentSession.
#[derive(Parser, Debug)]
#[command(name = "pi-mv", version, after_help = EXAMPLES)]
pub struct Args {
    /// Session files, directories or session-id prefixes to move (with --cwd).
    #[arg(value_name = "SESSION", value_parser = crate::cli::name_arg())]
    pub sessions: Vec<String>,

    /// Move the named sessions into project DIR.
    #[arg(long, value_name = "DIR", conflicts_with = "project")]
    pub cwd: Option<PathBuf>,

    /// Move every session whose cwd is OLD or below it to NEW.
    #[arg(long, num_args = 2, value_names = ["OLD", "NEW"])]
    pub project: Vec<PathBuf>,

    /// Read SESSION names from standard input, each ended by NUL (pi-ls -0).
    #[arg(short = '0', long = "null")]
    pub null: bool,

    /// The store to use instead of pi's: session-id prefixes are looked up
    /// in DIR (itself first, then the directories directly under it), and
    /// --project's sessions and the forks of moved ones are looked for below it (default:
    /// $PI_CODING_AGENT_SESSION_DIR, else ~/.pi/agent/sessions; prefixes in
    /// this project's directory first).
    #[arg(long, value_name = "DIR")]
    pub session_dir: Option<PathBuf>,

    /// Change nothing; say what would be done.
    #[arg(short = 'n', long)]
    pub dry_run: bool,

    /// One JSON object per session and fork instead of text.
    #[arg(long)]
    pub json: bool,

    /// Print only errors (no warnings, no summary line).
    #[arg(short, long)]
    pub quiet: bool,
}

crate::cli::impl_tool! { Args, "pi-mv", quiet = quiet }

/// An absolute path for a cwd, as pi would have written it.
fn abs(p: &Path, what: &str) -> Result<String> {
    if p.as_os_str().is_empty() {
        return Err(Error::usage(format!("{what} is empty")));
    }
    let r = crate::store::resolve_path(p);
    // pi records its working directory as the system gives it, links
    // resolved: so is a directory that exists.
    let r = std::fs::canonicalize(&r).unwrap_or(r);
    Ok(crate::name::kept_path(&r).into_owned())
}

pub(crate) fn run(args: &Args, ctx: &mut Ctx) -> Result<Exit> {
    let mut names = args.sessions.clone();
    if args.null {
        names.extend(crate::io::nul_names_from_stdin()?);
    }
    if let Some(h) = names
        .iter()
        .find(|n| *n == "help" && !Path::new(n).exists())
    {
        crate::store::resolve_session(Some(h), args.session_dir.as_deref())?;
    }
    let project;
    let cwd;
    let ask = match (&args.cwd, args.project.as_slice()) {
        (Some(d), []) => {
            if names.is_empty() {
                return Err(Error::usage(
                    "--cwd DIR needs the sessions to move (SESSION..., or -0)",
                ));
            }
            cwd = abs(d, "--cwd")?;
            Ask::Sessions {
                names: &names,
                cwd: &cwd,
            }
        }
        (None, [old, new]) => {
            if !names.is_empty() {
                return Err(Error::usage(
                    "--project OLD NEW takes no SESSION: it moves every session of OLD",
                ));
            }
            project = (abs(old, "OLD")?, abs(new, "NEW")?);
            if project.0 == project.1 || project.1.starts_with(&format!("{}/", project.0)) {
                return Err(Error::usage("--project: NEW is OLD or inside it"));
            }
            Ask::Project {
                old: &project.0,
                new: &project.1,
            }
        }
        _ => {
            return Err(Error::usage(
                "say where to: --project OLD NEW, or SESSION... --cwd DIR",
            ))
        }
    };
    let log = ctx.log;
    let mut plan = plan::make(&ask, args.session_dir.as_deref(), &mut |d| log.warn(&d))?;
    let changing: Vec<&Path> = plan
        .items
        .iter()
        .filter(|i| i.changes())
        .map(|i| i.from.as_path())
        .collect();
    let inuse = InUse::scan(&changing);
    for it in plan
        .items
        .iter_mut()
        .filter(|i| i.changes() && i.refused.is_none())
    {
        it.refused = inuse.why(&it.from);
    }
    let mut tally = Tally::default();
    let out = ctx.out();
    let say = Say {
        json: args.json,
        dry: args.dry_run,
        log,
        out: Default::default(),
    };
    for it in &plan.items {
        if let Some(why) = &it.refused {
            say.refused(out, it, why)?;
            tally.failed += 1;
        }
    }
    let mut go: Vec<&Item> = plan.items.iter().filter(|i| i.refused.is_none()).collect();
    if !args.dry_run {
        let failed = headers(&go, &say, out, &mut tally)?;
        crate::moving::fault("rewritten").map_err(|e| Error::io("", &e))?;
        go.retain(|i| !failed.contains(&i.from));
        let failed = move_files(&go, &say, out, &mut tally)?;
        go.retain(|i| !failed.contains(&i.from));
    } else {
        for it in go.iter().filter(|i| i.changes()) {
            say.item(out, it, "would-move", None)?;
            tally.moved += 1;
        }
    }
    // Sessions named that are already there are said; a project's
    // sessions already moved (a rerun) only serve their forks.
    if matches!(ask, Ask::Sessions { .. }) {
        for it in go.iter().filter(|i| !i.changes()) {
            say.item(out, it, "current", None)?;
        }
    }
    forks(&plan, &go, &say, out, &mut tally)?;
    let done = out.done();
    let loud = if tally.failed > 0 { log.loud() } else { log };
    let verb = if args.dry_run { "would move" } else { "moved" };
    loud.note(format!(
        "{} {verb}, {} fork{} {}, {} failed",
        tally.moved,
        tally.forks,
        if tally.forks == 1 { "" } else { "s" },
        if args.dry_run { "to update" } else { "updated" },
        tally.failed
    ));
    if plan.items.iter().all(|i| !i.changes()) {
        log.note("no session to move");
    }
    // Standard output failed (a full disk): the work is done, the run failed.
    say.out.result()?;
    done?;
    Ok(Exit::Found(tally.failed == 0))
}

#[derive(Default)]
struct Tally {
    moved: usize,
    forks: usize,
    failed: usize,
}

/// Step 1: the headers' cwd, rewritten in place; the files that failed
/// (left out of the later steps).
fn headers(go: &[&Item], say: &Say, out: &mut dyn Out, tally: &mut Tally) -> Result<Vec<PathBuf>> {
    let todo: Vec<&Item> = go.iter().copied().filter(|i| i.rewrites()).collect();
    let files: Vec<PathBuf> = todo.iter().map(|i| i.from.clone()).collect();
    let changes: Vec<Vec<Change>> = todo
        .iter()
        .map(|i| vec![Change::Set("cwd", i.new_cwd.clone())])
        .collect();
    let (each, dirs) = header_edit::rewrite(&files, &changes, crate::moving::TAG, true);
    for e in dirs {
        say.log.error(&e);
        tally.failed += 1;
    }
    let mut failed = Vec::new();
    for (it, r) in todo.iter().zip(each) {
        if let Err(e) = r {
            say.item(out, it, "failed", Some(&e.to_string()))?;
            tally.failed += 1;
            failed.push(it.from.clone());
        }
    }
    Ok(failed)
}

/// Step 2: each file under its new name; the files that failed.
fn move_files(
    go: &[&Item],
    say: &Say,
    out: &mut dyn Out,
    tally: &mut Tally,
) -> Result<Vec<PathBuf>> {
    let mut failed = Vec::new();
    // Copies a killed run left half made (across file systems), once per
    // directory: only those of processes that are gone.
    let mut dirs: Vec<&Path> = go
        .iter()
        .filter(|i| i.moves())
        .filter_map(|i| i.to.parent())
        .collect();
    dirs.sort();
    dirs.dedup();
    for d in dirs {
        for t in crate::write::remove_stray_temps_in(d, crate::moving::TAG) {
            say.log.warn(&crate::error::Diagnostic::new(
                &crate::name::kept_path(&t),
                None,
                "removed a temporary file left by an interrupted run",
            ));
        }
    }
    for it in go.iter().filter(|i| i.changes()) {
        if it.moves() {
            if let Err(e) = crate::moving::move_file(&it.from, &it.to) {
                let msg = format!(
                    "{}: cannot move to {}: {}",
                    crate::name::kept_path(&it.from),
                    crate::name::kept_path(&it.to),
                    crate::error::io_message(&e)
                );
                say.item(out, it, "failed", Some(&msg))?;
                tally.failed += 1;
                failed.push(it.from.clone());
                continue;
            }
        }
        say.item(out, it, "moved", None)?;
        tally.moved += 1;
    }
    // A project directory left empty goes (remove_dir fails on any other).
    let mut left: Vec<&Path> = go
        .iter()
        .filter(|i| i.moves())
        .filter_map(|i| i.from.parent())
        .collect();
    left.sort();
    left.dedup();
    for d in left {
        let _ = std::fs::remove_dir(d);
    }
    Ok(failed)
}

/// Step 3: every fork naming a moved file (by its old path, or by a path
/// that is gone with the moved file's name: an interrupted run's) made to
/// name its new place.
fn forks(
    plan: &plan::Plan,
    go: &[&Item],
    say: &Say,
    out: &mut dyn Out,
    tally: &mut Tally,
) -> Result<()> {
    let done = go;
    if done.is_empty() {
        return Ok(());
    }
    let olds: Vec<PathBuf> = done.iter().map(|i| i.from.clone()).collect();
    let targets = crate::forks::Targets::new(&olds);
    let by_name: std::collections::HashMap<&std::ffi::OsStr, &Item> = done
        .iter()
        .filter_map(|i| Some((i.to.file_name()?, *i)))
        .collect();
    let mut todo: Vec<(PathBuf, String)> = Vec::new();
    let log = say.log;
    for f in crate::forks::with_parents(&plan.store, &mut |d, e| {
        log.warn(&crate::error::Diagnostic::new(
            &crate::name::kept_path(d),
            None,
            crate::error::io_message(e),
        ))
    }) {
        let parent_path = crate::name::path_of_kept(&f.parent);
        let hit = match targets.named_by(&f.parent) {
            Some(k) if done[k].moves() => Some(done[k]),
            Some(_) => None,
            None if !parent_path.exists() => parent_path
                .file_name()
                .and_then(|n| by_name.get(n))
                .copied(),
            None => None,
        };
        let Some(it) = hit else { continue };
        let new = crate::name::kept_path(&it.to).into_owned();
        if new != f.parent {
            todo.push((f.file, new));
        }
    }
    let (mut files, mut changes) = (Vec::new(), Vec::new());
    let forks_inuse = InUse::scan(&todo.iter().map(|(f, _)| f.as_path()).collect::<Vec<_>>());
    for (file, new) in todo {
        let why = match say.dry {
            true => None,
            false => forks_inuse.why(&file),
        };
        if let Some(why) = why {
            say.fork(
                out,
                &file,
                "failed",
                &new,
                Some(&format!(
                    "{}: {why}; its parentSession still names the old place",
                    crate::name::kept_path(&file)
                )),
            )?;
            tally.failed += 1;
            continue;
        }
        if say.dry {
            say.fork(out, &file, "would-update-parent", &new, None)?;
            tally.forks += 1;
            continue;
        }
        files.push(file);
        changes.push(vec![Change::Set("parentSession", new)]);
    }
    let (each, dirs) = header_edit::rewrite(&files, &changes, crate::moving::TAG, true);
    for e in dirs {
        say.log.error(&e);
        tally.failed += 1;
    }
    for ((file, ch), r) in files.iter().zip(&changes).zip(each) {
        let Change::Set(_, new) = &ch[0] else {
            continue;
        };
        match r {
            Ok(_) => {
                say.fork(out, file, "parent-updated", new, None)?;
                tally.forks += 1;
            }
            Err(e) => {
                say.fork(out, file, "failed", new, Some(&e.to_string()))?;
                tally.failed += 1;
            }
        }
    }
    Ok(())
}

/// How results are said: text lines or JSON objects on stdout, errors
/// through the log.
struct Say {
    json: bool,
    dry: bool,
    log: Log,
    /// Standard output failing does not stop the batch halfway.
    out: crate::io::KeepGoing,
}

impl Say {
    /// A line on standard output, unless an earlier one failed.
    fn put(&self, out: &mut dyn Out, line: &[u8]) -> Result<()> {
        self.out.line(out, line);
        Ok(())
    }

    fn refused(&self, out: &mut dyn Out, it: &Item, why: &str) -> Result<()> {
        let msg = format!("{}: {why}; not moved", crate::name::kept_path(&it.from));
        self.item(out, it, "refused", Some(&msg))
    }

    fn item(&self, out: &mut dyn Out, it: &Item, status: &str, error: Option<&str>) -> Result<()> {
        let from = crate::name::kept_path(&it.from);
        let to = crate::name::kept_path(&it.to);
        if self.json {
            let mut w = ObjectWriter::new();
            w.raw("path", Some(&crate::name::json(&from)))
                .str("status", status)
                .raw("to", Some(&crate::name::json(&to)))
                .str("cwd", &it.old_cwd)
                .str("newCwd", &it.new_cwd);
            if let Some(e) = error {
                w.str("error", e);
            }
            return self.put(out, &w.finish());
        }
        if let Some(e) = error {
            self.log.error(e);
            return Ok(());
        }
        let text = crate::visible::text;
        let line = match status {
            "current" => format!("{}: already in {}", text(&from), text(&it.new_cwd)),
            _ => {
                // A file that stays (a flat store) only has its cwd changed.
                let (verb, place) = match (self.dry, it.moves()) {
                    (true, true) => ("would move", format!(" to {}", text(&to))),
                    (false, true) => ("moved", format!(" to {}", text(&to))),
                    (true, false) => ("would stay", String::new()),
                    (false, false) => ("stays", String::new()),
                };
                format!(
                    "{}: {verb}{place} (cwd {} -> {})",
                    text(&from),
                    text(&it.old_cwd),
                    text(&it.new_cwd)
                )
            }
        };
        self.put(out, &crate::name::bytes_of_kept(&line))
    }

    fn fork(
        &self,
        out: &mut dyn Out,
        file: &Path,
        status: &str,
        parent: &str,
        error: Option<&str>,
    ) -> Result<()> {
        let name = crate::name::kept_path(file);
        if self.json {
            let mut w = ObjectWriter::new();
            w.raw("path", Some(&crate::name::json(&name)))
                .str("status", status)
                .raw("parentSession", Some(&crate::name::json(parent)));
            if let Some(e) = error {
                w.str("error", e);
            }
            return self.put(out, &w.finish());
        }
        if let Some(e) = error {
            self.log.error(e);
            return Ok(());
        }
        let verb = if self.dry { "would name" } else { "now names" };
        let line = format!(
            "{}: parentSession {verb} {}",
            crate::visible::text(&name),
            crate::visible::text(parent)
        );
        self.put(out, &crate::name::bytes_of_kept(&line))
    }
}
