//! After a file is replaced by rename: lines another process appended to
//! the old file meanwhile are carried over, or kept, never lost.
//!
//! A rewrite checks that the file is unchanged, then renames its new
//! version over it. A writer that appends between the check and the
//! rename (pi opens, appends and closes the file for each entry), or that
//! opened the file before the rename and writes after it, writes into the
//! old file, which no name reaches any more. The old file is still open
//! here, so [`settle`] looks at it again: if it changed, its whole text is
//! rewritten again (migrated, when it needs it) and renamed over the file,
//! up to [`ROUNDS`] times. A file still changing after that is kept, whole,
//! as `NAME.TAG-kept-N` beside it, and the caller reports it.

use super::{Snapshot, TempFile};
use crate::error::{Error, Result};
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Rewrites after the first, at most, before the old file is kept.
pub(crate) const ROUNDS: usize = 4;

/// How long a last line without its line break is waited for: pi writes
/// each entry with one `write`, so a half line is a writer in the middle
/// of it, or one that died there.
const HALF_LINE_WAIT: Duration = Duration::from_secs(1);

/// The environment variable of the tests' pause: with `DIR` in it, the
/// tool stops right before each rename of a file (`rename` number N of
/// that file), writes `DIR/paused-N`, and goes on once `DIR/go-N` exists
/// (after a minute at most); a signal received meanwhile is said with
/// `DIR/signalled-N`. Tests append, or signal, at exactly the moment a
/// rename would lose the line.
pub(crate) const PAUSE_ENV: &str = "PI_SESSION_TOOLS_TEST_PAUSE";

/// The tests' pause before rename number `round` of `real` (see
/// [`PAUSE_ENV`]); nothing without the variable.
pub(crate) fn test_pause(real: &Path, round: usize) {
    use std::sync::OnceLock;
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    let Some(dir) = DIR.get_or_init(|| std::env::var_os(PAUSE_ENV).map(PathBuf::from)) else {
        return;
    };
    let _ = fs::write(
        dir.join(format!("paused-{round}")),
        real.as_os_str().as_encoded_bytes(),
    );
    let go = dir.join(format!("go-{round}"));
    let start = Instant::now();
    let mut told = false;
    while !go.exists() && start.elapsed() < Duration::from_secs(60) {
        // A signal is delivered when the kernel gets to it: a test waits
        // for this word that it was, before it lets the tool go on.
        if !told && super::interrupt::received().is_some() {
            let _ = fs::write(dir.join(format!("signalled-{round}")), b"");
            told = true;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// The file just renamed over the old one: its handle, and what it looked
/// like at the rename.
pub(crate) struct Placed {
    pub file: File,
    pub snap: Snapshot,
}

impl Placed {
    /// The temporary file `t`, flushed and about to be renamed.
    pub(crate) fn of(t: &TempFile) -> std::io::Result<Placed> {
        let file = t.handle()?;
        let snap = Snapshot::of(&file.metadata()?);
        Ok(Placed { file, snap })
    }
}

/// The old file a rewrite replaced, as the rewrite read it.
pub(crate) struct Replaced<'a> {
    /// The name (the real path, not a link to it).
    pub real: &'a Path,
    /// The name as the user gave it, for messages.
    pub name: &'a str,
    /// The tool, as temporary and kept files are named.
    pub tag: &'a str,
    /// The old file, still open.
    pub file: &'a File,
    /// What it looked like when it was read.
    pub snap: Snapshot,
}

/// The new text of a file's whole text (None: it needs no change).
pub(crate) type Rebuild<'a> = dyn Fn(&[u8]) -> Result<Option<Vec<u8>>> + 'a;

/// How a replaced file ended.
#[derive(Debug)]
pub(crate) enum Settled {
    /// Nobody wrote to the old file after it was read.
    Quiet,
    /// It changed; its new text was carried over.
    Carried,
    /// It kept changing (or its new text could not be rewritten): its
    /// whole text is kept at these paths, and why.
    Kept(Vec<PathBuf>, String),
}

/// Look at the replaced file `old` again; if it changed, rewrite its
/// whole text with `rebuild` (None: the text needs no change) and rename
/// that over the file, up to [`ROUNDS`] times. `placed` is what the first
/// rename put at the name.
pub(crate) fn settle(old: &Replaced, mut placed: Placed, rebuild: &Rebuild) -> Result<Settled> {
    let io = |e: std::io::Error| Error::io(old.name, &e);
    let mut seen = old.snap.clone();
    // Files this loop renamed over: a writer may have appended to one of
    // them too, between the check before the rename and the rename.
    let mut replaced: Vec<Placed> = Vec::new();
    let mut round = 0;
    loop {
        for p in &replaced {
            if now(&p.file).map_err(io)? != p.snap {
                let why = "lines were appended to its new version while it was replaced again";
                let mut kept = keep(old, &read_all(&p.file).map_err(io)?)?;
                if now(old.file).map_err(io)? != seen {
                    kept.extend(keep(old, &read_all(old.file).map_err(io)?)?);
                }
                return Ok(Settled::Kept(kept, why.to_string()));
            }
        }
        if now(old.file).map_err(io)? == seen {
            return Ok(if round == 0 {
                Settled::Quiet
            } else {
                Settled::Carried
            });
        }
        let (text, snap) = read_whole_lines(old.file).map_err(io)?;
        if round == ROUNDS {
            return kept(old, &text, "it was still being written after every rewrite");
        }
        if text.last().is_some_and(|&b| b != b'\n') {
            return kept(old, &text, "its last line was left half written");
        }
        let new = match rebuild(&text) {
            Ok(n) => n,
            Err(e) => {
                let why = format!("its new lines cannot be migrated ({})", e.diag);
                return kept(old, &text, &why);
            }
        };
        let meta = old.file.metadata().map_err(io)?;
        let mut t = TempFile::beside(old.real, old.tag, Some(&meta)).map_err(io)?;
        t.copy_xattrs_from(old.file).map_err(io)?;
        t.file()
            .write_all(new.as_deref().unwrap_or(&text))
            .map_err(io)?;
        t.sync().map_err(io)?;
        let next = Placed::of(&t).map_err(io)?;
        // Renamed only over what the last rename put there, unchanged, and
        // only if the old file is still as just read.
        let at_name = fs::symlink_metadata(old.real).map(|m| Snapshot::of(&m));
        let here = Snapshot::of(&placed.file.metadata().map_err(io)?);
        if at_name.ok().as_ref() != Some(&placed.snap) || here != placed.snap {
            // The name holds what that writer wrote; the old file's
            // new lines are what no name holds.
            return kept(
                old,
                &text,
                "its new version changed too before it could be replaced again",
            );
        }
        round += 1;
        if now(old.file).map_err(io)? != snap {
            continue; // changed again: read again, with one round fewer
        }
        test_pause(old.real, round + 1);
        t.commit_rename().map_err(io)?;
        replaced.push(std::mem::replace(&mut placed, next));
        seen = snap;
    }
}

/// What the open file looks like now.
fn now(f: &File) -> std::io::Result<Snapshot> {
    Ok(Snapshot::of(&f.metadata()?))
}

/// The whole text of an open file, from its start.
fn read_all(f: &File) -> std::io::Result<Vec<u8>> {
    let mut v = Vec::new();
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = crate::io::read_at_most(f, &mut buf, v.len() as u64)?;
        v.extend_from_slice(&buf[..n]);
        if n < buf.len() {
            return Ok(v);
        }
    }
}

/// The whole text of the open file, read when it ends with a line break
/// (waiting up to [`HALF_LINE_WAIT`] for a half line to be finished) and
/// did not change while it was read; with its snapshot.
fn read_whole_lines(f: &File) -> std::io::Result<(Vec<u8>, Snapshot)> {
    let start = Instant::now();
    loop {
        let before = now(f)?;
        let text = read_all(f)?;
        let after = now(f)?;
        let whole = text.is_empty() || text.last() == Some(&b'\n');
        if before == after && text.len() as u64 == after.len && whole
            || start.elapsed() >= HALF_LINE_WAIT
        {
            return Ok((text, after));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// [`keep`] `text`, for this reason.
fn kept(old: &Replaced, text: &[u8], why: &str) -> Result<Settled> {
    Ok(Settled::Kept(keep(old, text)?, why.to_string()))
}

/// Keep `text` (an old file's whole text) as `NAME.TAG-kept-N`, with the
/// file's permissions and extended attributes, never over another file.
fn keep(old: &Replaced, text: &[u8]) -> Result<Vec<PathBuf>> {
    let io = |e: std::io::Error| Error::io(old.name, &e);
    let meta = old.file.metadata().map_err(io)?;
    for n in 1..1000 {
        let mut name = old.real.as_os_str().to_owned();
        name.push(format!(".{}-kept-{n}", old.tag));
        let kept = PathBuf::from(name);
        if fs::symlink_metadata(&kept).is_ok() {
            continue;
        }
        let mut t = TempFile::beside(&kept, old.tag, Some(&meta)).map_err(io)?;
        t.copy_xattrs_from(old.file).map_err(io)?;
        t.file().write_all(text).map_err(io)?;
        match t.commit_new() {
            Ok(()) => return Ok(vec![kept]),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io(e)),
        }
    }
    Err(Error::request(
        old.name,
        "a thousand kept files beside it already; nothing more kept",
    ))
}
