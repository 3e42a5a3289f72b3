//! `pi-rm`: sessions deleted safely. Named as every tool names them
//! (files, directories, session-id prefixes, `-0` lists on stdin), each
//! goes to the freedesktop trash when the trash is on its file system
//! (what pi's own delete does, through the `trash` program), else is
//! unlinked, only after `--yes` or a yes on the terminal. A session in
//! use is refused; so is one that forks name in their `parentSession`,
//! unless `--orphans ok` (keep them so) or `--orphans clear` (the field
//! removed from each fork first, atomically).

use crate::cli::{Ctx, Exit, Log, Out};
use crate::error::{Error, Result};
use crate::header_edit::{self, Change};
use crate::inuse::InUse;
use crate::json::ObjectWriter;
use crate::store::{self, Source};
use clap::Parser;
use std::path::{Path, PathBuf};

const EXAMPLES: &str = concat!(
    "\
Examples:
  pi-rm --dry-run 019b4f7b                what deleting one session would do
  pi-rm 019b4f7b                          to the trash (pi's agent directory is ./agent here)
  pi-ls -0 --all | pi-rm -0 --dry-run     every session named on stdin
  pi-rm --dry-run --json 019cd6a4         one JSON object per session
  pi-rm --orphans clear --dry-run 019a5c3e
                                          the fork's parentSession would be removed
  pi-rm --orphans ok 019a5c3e             a session its fork names: the fork keeps the name

The trash is the freedesktop.org home trash ($XDG_DATA_HOME/Trash, else
~/.local/share/Trash: files/NAME and info/NAME.trashinfo), used when it is,
or can be created, on the session's file system; on another file system,
that file system's own ($topdir/.Trash/UID, else $topdir/.Trash-UID, never
created at /). A session goes there by a rename, never a copy. Where there
is none, it is unlinked: only with --yes, or after a yes typed on the
terminal.

Refused, each on its own (the others still go): a session in use (another
process has it open, or a running pi may be continuing it); a session that
other sessions (forks) name in their parentSession, unless --orphans ok
(they keep naming it) or --orphans clear (the field is removed from each
fork, atomically, before the session goes). Forks deleted in the same run
do not count.

--json: one object per line: path, status (trashed, deleted, would-trash,
would-delete, refused, failed; forks: orphaned, parent-cleared,
would-clear-parent), trash, forks, error.

",
    crate::cli::help::help_exit!(),
    crate::cli::help::exact_to_pi!()
);

/// What to do with forks of a deleted session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Orphans {
    /// Delete anyway; the forks keep naming the file that is gone.
    Ok,
    /// Remove parentSession from each fork first.
    Clear,
}

/// Delete pi sessions: to the trash where there is one, refusing sessions
/// in use and (without --orphans) sessions that forks name.
#[derive(Parser, Debug)]
#[command(name = "pi-rm", version, after_help = EXAMPLES)]
pub struct Args {
    /// Session files, directories (every *.jsonl below) or session-id prefixes.
    #[arg(value_name = "SESSION", value_parser = crate::cli::name_arg())]
    pub sessions: Vec<String>,

    /// Read SESSION names from standard input, each ended by NUL (pi-ls -0).
    #[arg(short = '0', long = "null")]
    pub null: bool,

    /// A session that forks name: delete it anyway (ok), or remove their
    /// parentSession first (clear).
    #[arg(long, value_enum, value_name = "ok|clear")]
    pub orphans: Option<Orphans>,

    /// Where no trash is on a session's file system, unlink it without asking.
    #[arg(short = 'y', long)]
    pub yes: bool,

    /// The store to use instead of pi's: session-id prefixes are looked up
    /// in DIR (itself first, then the directories directly under it), and
    /// the forks of deleted sessions are looked for below it (default:
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

crate::cli::impl_tool! { Args, "pi-rm", quiet = quiet }

/// One session to delete.
struct Target {
    file: PathBuf,
    /// The forks that name it (outside this run's sessions).
    forks: Vec<PathBuf>,
    refused: Option<String>,
    /// The home trash when it is on the session's file system.
    trash: Option<PathBuf>,
}

pub(crate) fn run(args: &Args, ctx: &mut Ctx) -> Result<Exit> {
    let mut names = args.sessions.clone();
    if args.null {
        names.extend(crate::io::nul_names_from_stdin()?);
    }
    if names.is_empty() {
        if args.null {
            ctx.log.note("no session named on standard input");
            return Ok(Exit::Ok);
        }
        return Err(Error::usage(
            "name the sessions to delete (SESSION..., or -0 with names on stdin)",
        ));
    }
    let log = ctx.log;
    let mut targets = select(&names, args.session_dir.as_deref(), log)?;
    find_forks(&mut targets, args.session_dir.as_deref(), log);
    let files: Vec<&Path> = targets.iter().map(|t| t.file.as_path()).collect();
    let inuse = InUse::scan(&files);
    let trash = crate::trash::home_trash();
    for t in &mut targets {
        t.refused = inuse.why(&t.file).or_else(|| forks_refuse(t, args.orphans));
        t.trash = crate::trash::for_file(trash.as_deref(), &t.file);
    }
    let say = Say {
        json: args.json,
        dry: args.dry_run,
        log,
        out: Default::default(),
    };
    let out = ctx.out();
    let mut failed = 0usize;
    let mut gone = 0usize;
    let unlink_ok = args.dry_run
        || args.yes
        || targets
            .iter()
            .all(|t| t.refused.is_some() || t.trash.is_some())
        || confirm(&targets, log)?;
    for t in &targets {
        if let Some(why) = &t.refused {
            say.session(out, t, "refused", None, Some(why))?;
            failed += 1;
            continue;
        }
        if t.trash.is_none() && !unlink_ok {
            say.session(
                out,
                t,
                "refused",
                None,
                Some("no trash on its file system: pass --yes to delete it for good"),
            )?;
            failed += 1;
            continue;
        }
        if args.orphans == Some(Orphans::Clear) && !t.forks.is_empty() && !clear(t, &say, out)? {
            failed += 1;
            continue;
        }
        if args.orphans == Some(Orphans::Ok) {
            for f in &t.forks {
                say.fork(out, f, "orphaned")?;
            }
        }
        match (args.dry_run, &t.trash) {
            (true, Some(_)) => say.session(out, t, "would-trash", None, None)?,
            (true, None) => say.session(out, t, "would-delete", None, None)?,
            (false, Some(d)) => match crate::trash::put(d, &t.file) {
                Ok(to) => say.session(out, t, "trashed", Some(&to.file), None)?,
                Err(e) => {
                    say.session(
                        out,
                        t,
                        "failed",
                        None,
                        Some(&format!(
                            "cannot move it to the trash: {}",
                            crate::error::io_message(&e)
                        )),
                    )?;
                    failed += 1;
                    continue;
                }
            },
            (false, None) => {
                let r = std::fs::remove_file(&t.file)
                    .and_then(|()| crate::write::sync_dir(&crate::write::dir_of(&t.file)));
                if let Err(e) = r {
                    say.session(out, t, "failed", None, Some(&crate::error::io_message(&e)))?;
                    failed += 1;
                    continue;
                }
                say.session(out, t, "deleted", None, None)?;
            }
        }
        gone += 1;
    }
    let done = out.done();
    let loud = if failed > 0 { log.loud() } else { log };
    let verb = if args.dry_run {
        "would be deleted"
    } else {
        "deleted"
    };
    loud.note(format!("{gone} {verb}, {failed} refused or failed"));
    // Standard output failed (a full disk): the work is done, the run failed.
    say.out.result()?;
    done?;
    Ok(Exit::Found(failed == 0))
}

/// The sessions `names` name, each once; a name that names none stops
/// the run before anything is deleted.
fn select(names: &[String], session_dir: Option<&Path>, log: Log) -> Result<Vec<Target>> {
    let req = store::Request {
        sessions: names,
        all: false,
        session_dir,
        project: None,
        stdin_if_piped: false,
        walk: store::DirWalk::Sorted,
    };
    let mut sel = store::select(&req, &mut |d| log.warn(&d))?;
    sel.dedupe();
    let mut targets = Vec::new();
    for s in sel.sources {
        match s {
            Source::File(f) if !std::fs::metadata(&f).is_ok_and(|m| m.is_file()) => {
                return Err(Error::request(
                    &crate::name::kept_path(&f),
                    "not a regular file: not a session to delete",
                ))
            }
            Source::File(f) => targets.push(Target {
                file: store::resolve_path(&f),
                forks: Vec::new(),
                refused: None,
                trash: None,
            }),
            Source::Stdin => {
                return Err(Error::usage(
                    "pi-rm deletes files: `-` (stdin) is none; -0 reads names from stdin",
                ))
            }
            Source::Unresolved(diag) => {
                return Err(Error {
                    kind: crate::error::ErrorKind::Data,
                    diag,
                    io: None,
                })
            }
        }
    }
    Ok(targets)
}

/// The forks of the store that name each target (a fork that is itself
/// deleted in this run does not count).
fn find_forks(targets: &mut [Target], session_dir: Option<&Path>, log: Log) {
    let root = session_dir.map_or_else(store::store_root, Path::to_path_buf);
    let files: Vec<PathBuf> = targets.iter().map(|t| t.file.clone()).collect();
    let named = crate::forks::Targets::new(&files);
    let all = crate::forks::with_parents(&root, &mut |d, e| {
        log.warn(&crate::error::Diagnostic::new(
            &crate::name::kept_path(d),
            None,
            crate::error::io_message(e),
        ))
    });
    for f in all {
        let Some(k) = named.named_by(&f.parent) else {
            continue;
        };
        if named.named_by(&crate::name::kept_path(&f.file)).is_some() {
            continue;
        }
        targets[k].forks.push(f.file);
    }
}

/// Why forks refuse a target without `--orphans`.
fn forks_refuse(t: &Target, orphans: Option<Orphans>) -> Option<String> {
    if t.forks.is_empty() || orphans.is_some() {
        return None;
    }
    let names: Vec<String> = t
        .forks
        .iter()
        .map(|f| crate::name::kept_path(f).into_owned())
        .collect();
    Some(format!(
        "named by {} fork{} in parentSession ({}): pass --orphans ok to keep them so, or --orphans clear",
        names.len(),
        if names.len() == 1 { "" } else { "s" },
        names.join(", ")
    ))
}

/// `--orphans clear`: each fork's parentSession removed (atomically);
/// whether every fork was done (else the session stays).
fn clear(t: &Target, say: &Say, out: &mut dyn Out) -> Result<bool> {
    if say.dry {
        for f in &t.forks {
            say.fork(out, f, "would-clear-parent")?;
        }
        return Ok(true);
    }
    let inuse = InUse::scan(&t.forks.iter().map(PathBuf::as_path).collect::<Vec<_>>());
    if let Some((f, why)) = t.forks.iter().find_map(|f| inuse.why(f).map(|w| (f, w))) {
        let msg = format!(
            "its fork {} is {why}; nothing done",
            crate::name::kept_path(f)
        );
        say.session(out, t, "refused", None, Some(&msg))?;
        return Ok(false);
    }
    let changes: Vec<Vec<Change>> = t
        .forks
        .iter()
        .map(|_| vec![Change::Remove("parentSession")])
        .collect();
    let (each, dirs) = header_edit::rewrite(&t.forks, &changes, "pi-rm", true);
    let mut ok = dirs.is_empty();
    for e in dirs {
        say.log.error(&e);
    }
    for (f, r) in t.forks.iter().zip(each) {
        match r {
            Ok(_) => say.fork(out, f, "parent-cleared")?,
            Err(e) => {
                say.log.error(&e);
                ok = false;
            }
        }
    }
    if !ok {
        say.session(
            out,
            t,
            "refused",
            None,
            Some("a fork's parentSession could not be cleared; not deleted"),
        )?;
    }
    Ok(ok)
}

/// Ask on the terminal whether to unlink the sessions that have no trash;
/// no terminal (or standard error not on one): no.
fn confirm(targets: &[Target], log: Log) -> Result<bool> {
    use std::io::{BufRead, Write};
    let n = targets
        .iter()
        .filter(|t| t.refused.is_none() && t.trash.is_none())
        .count();
    let Ok(mut tty) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
    else {
        return Ok(false);
    };
    let q = format!(
        "pi-rm: {n} session{} on a file system without a trash: delete for good? [y/N] ",
        if n == 1 { "" } else { "s" }
    );
    if tty.write_all(q.as_bytes()).is_err() {
        return Ok(false);
    }
    let mut answer = String::new();
    let _ = std::io::BufReader::new(&tty).read_line(&mut answer);
    let yes = matches!(answer.trim(), "y" | "Y" | "yes");
    if !yes {
        log.note("not confirmed: sessions without a trash are kept");
    }
    Ok(yes)
}

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

    fn session(
        &self,
        out: &mut dyn Out,
        t: &Target,
        status: &str,
        to: Option<&Path>,
        error: Option<&str>,
    ) -> Result<()> {
        let name = crate::name::kept_path(&t.file);
        if self.json {
            let mut w = ObjectWriter::new();
            w.raw("path", Some(&crate::name::json(&name)))
                .str("status", status);
            if let Some(to) = to {
                w.raw(
                    "trash",
                    Some(&crate::name::json(&crate::name::kept_path(to))),
                );
            }
            let mut forks = b"[".to_vec();
            for (i, f) in t.forks.iter().enumerate() {
                if i > 0 {
                    forks.push(b',');
                }
                forks.extend(crate::name::json(&crate::name::kept_path(f)));
            }
            forks.push(b']');
            w.raw("forks", Some(&forks));
            if let Some(e) = error {
                w.str("error", e);
            }
            return self.put(out, &w.finish());
        }
        if let Some(e) = error {
            self.log.error(format!("{name}: {e}"));
            return Ok(());
        }
        let text = crate::visible::text(&name);
        let line = match (status, to) {
            ("trashed", Some(to)) => format!(
                "{text}: moved to the trash ({})",
                crate::visible::text(&crate::name::kept_path(to))
            ),
            ("deleted", _) => format!("{text}: deleted"),
            ("would-trash", _) => format!("{text}: would move to the trash"),
            _ => format!("{text}: would be deleted (no trash on its file system)"),
        };
        self.put(out, &crate::name::bytes_of_kept(&line))
    }

    fn fork(&self, out: &mut dyn Out, f: &Path, status: &str) -> Result<()> {
        let name = crate::name::kept_path(f);
        if self.json {
            let mut w = ObjectWriter::new();
            w.raw("path", Some(&crate::name::json(&name)))
                .str("status", status);
            return self.put(out, &w.finish());
        }
        let what = match status {
            "orphaned" => "keeps naming a deleted session in parentSession",
            "would-clear-parent" => "parentSession would be removed",
            _ => "parentSession removed",
        };
        self.log.note(format!("{}: {what}", name));
        let _ = out;
        Ok(())
    }
}
