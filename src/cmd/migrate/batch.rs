//! Files migrated as a batch (every run but one session to stdout: `-i`,
//! `--check`, `--dry-run`, of files, directories or `--all`), through
//! [`write::rewrite_many`] (every core; in place, each file atomically).
//! The workers print their own lines (standard output is never held),
//! through [`Progress`], which keeps a terminal's progress line out of
//! their way, each file's once every file before it has spoken
//! ([`InOrder`]).

use super::report::{backup_of, FileJson, InOrder, Said};
use super::{Mode, Request, TEMP_TAG};
use crate::cli::{Log, Out};
use crate::error::{Diagnostic, Error, Result};
use crate::migrate::{self, migrate_bytes, Changes, Outcome};
use crate::write::{self, many};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A line on standard output, written and flushed at once: a batch's
/// workers (and its relocation) each print their own, as standard output
/// is never held for the batch. A failed write is reported once through
/// `log` (the exit status says it); a reader that has gone is not.
pub(super) fn print_line(log: Log, msg: &str) {
    print_ended(log, msg, false)
}

/// [`print_line`], ended by a NUL byte instead when `null` (`-0`).
fn print_ended(log: Log, msg: &str, null: bool) {
    static FAILED: std::sync::Once = std::sync::Once::new();
    let mut o = std::io::stdout().lock();
    // a file name's bytes that are not UTF-8 as they are (crate::name)
    let msg = crate::name::bytes_of_kept(msg);
    let end: &[u8] = if null { b"\0" } else { b"\n" };
    if let Err(e) = o
        .bytes(&msg)
        .and_then(|()| o.bytes(end))
        .and_then(|()| o.done())
    {
        if !e.is_broken_pipe() {
            FAILED.call_once(|| log.error(&e));
        }
    }
}

/// How a batch says things: its counter and the progress line on a
/// terminal (`TOOL: N/TOTAL files`, unless quiet), which every message of
/// the workers clears first.
struct Progress {
    log: Log,
    total: usize,
    done: AtomicUsize,
    tty: bool,
    last: Mutex<Option<Instant>>,
    order: InOrder,
    /// `-0`: the names `--check` lists end in NUL.
    null: bool,
}

impl Progress {
    fn new(log: Log, total: usize, null: bool) -> Self {
        Progress {
            log,
            total,
            done: AtomicUsize::new(0),
            tty: total > 1 && log.progress_shown(),
            last: Mutex::new(None),
            order: InOrder::default(),
            null,
        }
    }

    /// File `index`'s messages, said once every file before it has spoken.
    fn put(&self, index: usize, said: Vec<Said>) {
        self.order.put(index, said, &mut |m| self.said(m));
    }

    /// The messages still held (a signal stopped the batch), in order.
    fn finish(&self) {
        self.order.finish(&mut |m| self.said(m));
    }

    fn said(&self, m: Said) {
        match m {
            Said::Line(l) => self.line(&l),
            Said::Name(n) => self.say(|| print_ended(self.log, &n, self.null)),
            Said::Warn(d) => self.warn(&d),
            Said::Error(e) => self.error(e),
        }
    }

    /// Print a message (clearing the progress line first).
    fn say(&self, print: impl FnOnce()) {
        let mut guard = self.last.lock().unwrap_or_else(|e| e.into_inner());
        self.clear();
        print();
        *guard = None;
    }

    /// A line on standard output ([`print_line`]).
    fn line(&self, msg: &str) {
        self.say(|| print_line(self.log, msg))
    }

    /// A warning ([`Log::warn`]: not when quiet).
    fn warn(&self, d: &Diagnostic) {
        if !self.log.quiet {
            self.say(|| self.log.warn(d))
        }
    }

    /// `TOOL: error: ...`, even when quiet.
    fn error(&self, e: impl std::fmt::Display) {
        self.say(|| self.log.error(e))
    }

    fn tick(&self) {
        let n = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if !self.tty {
            return;
        }
        let mut guard = self.last.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        if n == self.total
            || match *guard {
                None => true,
                Some(t) => now - t >= Duration::from_millis(100),
            }
        {
            self.log
                .progress(Some(&format!("{n}/{} files", self.total)));
            *guard = Some(now);
        }
    }

    fn clear(&self) {
        if self.tty {
            self.log.progress(None);
        }
    }
}

/// pi-migrate's part of a batch: the migration of one file's bytes, and
/// what is said of each file.
struct Migration<'a> {
    req: &'a Request,
    progress: Progress,
}

impl many::Rewrite for Migration<'_> {
    type Change = Changes;

    /// Files already at version 3 are recognised from their first line alone.
    fn done_by_first_line(&self, line: &[u8]) -> bool {
        migrate::first_line_is_current(line)
    }

    /// A file larger than a line may be is held whole only once no line of
    /// it is too long (a file of NULs, one 2 GB line: a FILE:LINE error,
    /// not gigabytes of memory).
    fn check(&self, file: &File, name: &str) -> Result<()> {
        let io = |e: std::io::Error| Error::io(name, &e);
        if file.metadata().map_err(io)?.len() <= crate::session::max_line() {
            return Ok(());
        }
        let mut head = vec![0u8; 64 << 10];
        let got = crate::io::read_at_most(file, &mut head, 0).map_err(io)?;
        let current = memchr::memchr(b'\n', &head[..got])
            .is_some_and(|end| migrate::first_line_is_current(&head[..end]));
        if !current {
            crate::session::check_line_lengths(file, name)?;
        }
        Ok(())
    }

    fn read_stream(&self, file: &File, name: &str) -> Result<Vec<u8>> {
        crate::session::read_stream(&mut &*file, name)
    }

    fn transform(&self, name: &str, old: &[u8]) -> Result<Option<(Vec<u8>, Changes)>> {
        Ok(match migrate_bytes(name, old, self.req.opts)? {
            Outcome::Current => None,
            Outcome::Migrated { bytes, changes } => Some((bytes, changes)),
        })
    }

    fn outcome(&self, index: usize, name: &str, outcome: many::Outcome<Changes>) {
        let said = if self.req.json {
            self.json(name, &outcome)
        } else {
            self.said(name, outcome)
        };
        self.progress.put(index, said);
        self.progress.tick();
    }

    fn removed_stray(&self, temp: &Path) {
        self.progress.warn(&Diagnostic::new(
            &crate::name::kept_path(temp),
            None,
            "removed a temporary file left by an interrupted run",
        ));
    }

    fn dir_failed(&self, dir: &Path, e: &std::io::Error) {
        self.progress.error(format_args!(
            "{}: cannot flush the directory after renaming: {}",
            crate::name::kept_path(dir),
            crate::error::io_message(e)
        ));
    }
}

impl Migration<'_> {
    /// What is said of one file: lines on standard output, warnings, errors.
    fn said(&self, name: &str, outcome: many::Outcome<Changes>) -> Vec<Said> {
        let mut said = Vec::new();
        match (outcome, self.req.mode) {
            (many::Outcome::Failed(e), _) => said.push(Said::Error(e.to_string())),
            (many::Outcome::Changed(_), Mode::Check) => said.push(Said::Name(name.to_string())),
            (many::Outcome::Changed(c), Mode::DryRun) => {
                said.push(Said::Line(format!("{name}: {}", c.describe())))
            }
            (many::Outcome::Changed(c), Mode::InPlace) => {
                said.extend(self.warnings(name, &c).into_iter().map(Said::Warn))
            }
            _ => {}
        }
        said
    }

    /// The warnings of a file rewritten in place.
    fn warnings(&self, name: &str, c: &Changes) -> Vec<Diagnostic> {
        let mut w = Vec::new();
        if c.malformed_kept > 0 {
            w.push(Diagnostic::new(
                name,
                None,
                format!(
                    "{} malformed line(s) carried through unchanged",
                    c.malformed_kept
                ),
            ));
        }
        if let Some(n) = c.torn_dropped {
            let kept = match &self.req.backup {
                Some(suffix) => format!("; kept in {}", backup_of(name, suffix)),
                None => String::new(),
            };
            w.push(Diagnostic::new(
                name,
                Some(n),
                format!("torn last line dropped, as pi does{kept}"),
            ));
        }
        w
    }

    /// `--json`: the file's object (and a failure said as an error too).
    fn json(&self, name: &str, outcome: &many::Outcome<Changes>) -> Vec<Said> {
        let in_place = self.req.mode == Mode::InPlace;
        let mut j = FileJson {
            path: name,
            ..FileJson::default()
        };
        let mut said = Vec::new();
        match outcome {
            many::Outcome::Unchanged => {
                j.status = "current";
                j.from = Some(crate::migrate::CURRENT_VERSION);
            }
            many::Outcome::Changed(c) => {
                j.status = if in_place {
                    "migrated"
                } else {
                    "would-migrate"
                };
                j.from = Some(c.from_version);
                j.changes = Some(c.describe());
                j.torn_line = c.torn_dropped;
                if in_place {
                    j.backup = self.req.backup.as_deref().map(|s| backup_of(name, s));
                    j.warnings = self
                        .warnings(name, c)
                        .iter()
                        .map(|d| d.to_string())
                        .collect();
                }
            }
            many::Outcome::Failed(e) => {
                j.status = "failed";
                j.error = Some(e.to_string());
                said.push(Said::Error(e.to_string()));
            }
            many::Outcome::Interrupted => j.status = "interrupted",
        }
        said.insert(0, Said::Line(j.line()));
        said
    }
}

/// Migrate many files ([`write::rewrite_many`]). In place, SIGINT,
/// SIGTERM and SIGHUP stop the batch after the files in hand
/// ([`write::interrupt`]).
pub(super) fn run_batch(req: &Request, files: &[PathBuf], log: Log) -> many::Summary {
    if req.mode == Mode::InPlace {
        write::interrupt::install();
    }
    let m = Migration {
        req,
        progress: Progress::new(log, files.len(), req.null),
    };
    let opts = many::Options {
        tag: TEMP_TAG,
        write: req.mode == Mode::InPlace,
        backup: req.backup.as_deref(),
        done: "migrated",
        instead: "; migrate it to stdout (pi-migrate FILE > NEW) instead",
    };
    let sum = write::rewrite_many(files, &opts, &m);
    m.progress.finish();
    m.progress.clear();
    sum
}
