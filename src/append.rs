//! Appending entries to a session file the safe way, and making the ids
//! and times of new entries the way pi makes them.
//!
//! An append is a [`Transaction`]: under an advisory lock (`flock`, taken
//! only around the write, and waited for [`LOCK_WAIT`] at most), so that
//! our own tools never interleave, one `write` of the complete lines
//! to a file opened for appending, preceded by a newline when the file
//! does not end with one, then `fsync`. pi itself does not lock, and a
//! single `O_APPEND` write of whole lines stays whole next to pi's own
//! appends; what pi appended while a tool read the file is read again
//! before the write, so that new entries chain to pi's last one.

use crate::error::{Error, Result};
use crate::index::Index;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;

/// How long an append waits for another writer to finish a last line
/// that has no newline yet (pi writes each line with one `appendFileSync`,
/// which takes far less; a line still without newline after this long is
/// torn for good: a crashed writer).
const TORN_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// How long an append waits for the lock another of our writers holds (each
/// holds it for one write and its `fsync`, milliseconds): past this, that
/// writer is stuck, and nothing is written.
pub const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// An open session file, opened for appending (what a [`Transaction`] holds).
struct Appender {
    file: File,
    name: String,
    path: std::path::PathBuf,
}

impl Appender {
    /// Open `path` for appending (the lock is taken only to write).
    fn open(path: &Path) -> Result<Appender> {
        let name = crate::name::kept_path(path).into_owned();
        // Looked at before opening: opening a FIFO waits for a reader.
        if let Ok(m) = std::fs::metadata(path) {
            if m.is_dir() {
                return Err(Error::request(&name, "is a directory, not a session file"));
            }
            if !m.is_file() {
                return Err(Error::request(
                    &name,
                    "not a regular file (a pipe, a FIFO or a device): nothing can be appended to it in place",
                ));
            }
        }
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(path)
            .map_err(|e| Error::io(&name, &e))?;
        let a = Appender {
            file,
            name,
            path: path.to_path_buf(),
        };
        a.wait_for_whole_last_line();
        Ok(a)
    }

    /// Take the advisory lock, waiting at most `wait` for another writer
    /// holding it (polling a non-blocking `flock`: a blocking one waits for
    /// ever on a writer that is stuck). It is let go when the file closes.
    fn lock_within(&self, wait: std::time::Duration) -> Result<()> {
        let deadline = std::time::Instant::now() + wait;
        loop {
            match self.file.try_lock() {
                Ok(()) => return Ok(()),
                Err(std::fs::TryLockError::WouldBlock) => {}
                Err(std::fs::TryLockError::Error(e)) => return Err(Error::io(&self.name, &e)),
            }
            if std::time::Instant::now() >= deadline {
                return Err(Error::request(
                    &self.name,
                    format!(
                        "locked by another writer for {}s; nothing was written",
                        wait.as_secs()
                    ),
                ));
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// When the file does not end with a newline, another writer (pi) may
    /// be in the middle of its line: wait until it does, polling, for at
    /// most [`TORN_WAIT`], before the file is read and the last line is
    /// taken for torn (and a newline put after it).
    fn wait_for_whole_last_line(&self) {
        let deadline = std::time::Instant::now() + TORN_WAIT;
        loop {
            let whole = match self.file.metadata() {
                Ok(m) if m.len() == 0 => true,
                Ok(m) => {
                    let mut last = [0u8; 1];
                    matches!(
                        crate::io::read_at_most(&self.file, &mut last, m.len() - 1),
                        Ok(1) if last[0] == b'\n'
                    )
                }
                Err(_) => true,
            };
            if whole || std::time::Instant::now() >= deadline {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }

    /// Append `line` (without its newline) as one write on a fresh line.
    /// A write cut short (disk full, file size limit) is taken back, so the
    /// file never keeps a partial line.
    fn append_line(&mut self, line: &[u8]) -> Result<()> {
        let io = |e: std::io::Error| Error::io(&self.name, &e);
        let before = self.file.metadata().map_err(io)?.len();
        let buf = fresh_line(&self.file, line).map_err(io)?;
        // One write call: for a regular file Linux writes it whole or not at all
        // (short writes happen only when the disk is full or a limit is reached).
        let n = match (&self.file).write(&buf) {
            Ok(n) => n,
            // A failed write wrote nothing: whatever the file gained since
            // is another writer's (pi takes no lock), and stays.
            Err(e) => return Err(io(e)),
        };
        if n != buf.len() {
            let what = if self.take_back(before, n as u64) {
                "the partial line was taken back; the file is as it was"
            } else {
                "the partial line could not be taken back: remove it by hand"
            };
            return Err(Error::request(
                &self.name,
                format!(
                    "short write ({n} of {} bytes): the disk is full or a file size limit was reached; {what}",
                    buf.len()
                ),
            ));
        }
        self.file.sync_all().map_err(io)?;
        if !self.still_at_path() {
            return Err(Error::request(
                &self.name,
                "the file was replaced or removed while the entry was added: the entry went to the old file, not to this one; run again",
            ));
        }
        Ok(())
    }

    /// Whether the path still names the file this appender writes to.
    fn still_at_path(&self) -> bool {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            match (self.file.metadata(), std::fs::metadata(&self.path)) {
                (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
                _ => false,
            }
        }
        #[cfg(not(unix))]
        {
            self.path.exists()
        }
    }

    /// Cut the file back to `before` bytes if it holds exactly what this
    /// write added (`written` bytes) and nobody else's.
    fn take_back(&self, before: u64, written: u64) -> bool {
        let Ok(m) = self.file.metadata() else {
            return false;
        };
        if m.len() != before.saturating_add(written) {
            return false;
        }
        written == 0 || (self.file.set_len(before).is_ok() && self.file.sync_all().is_ok())
    }
}

/// Refuse to append to a session older than version 3, with the one
/// wording every appending tool uses: pi re-numbers a version 1 or 2
/// session's entries when it opens it, so an appended entry's parent or
/// target would name nothing.
pub fn require_current(name: &str, version: u32) -> Result<()> {
    if version < crate::migrate::CURRENT_VERSION {
        return Err(Error::request(
            name,
            format!(
                "version-{version} session: pi would re-number its entries when it opens it, losing what a new entry points to; run `pi-migrate -i` first"
            ),
        ));
    }
    Ok(())
}

/// One append to a session file, whole or not at all: open it (and wait
/// for a last line another writer is finishing), let the tool read the
/// file and print what it prints, then take the lock (waiting
/// [`LOCK_WAIT`] at most), see what was appended since the file was opened
/// (pi takes no lock), so that new entries chain to the last entry at the
/// moment of writing, and write the whole batch in one `write` on a fresh
/// line, then `fsync`, and let the lock go. The lock is never held while
/// the tool reads or prints: a tool whose output nobody reads does not
/// stop the other writers.
pub struct Transaction {
    appender: Appender,
    /// The file's length once opened: what the tool then reads.
    read_len: u64,
}

impl Transaction {
    /// Open `path` for appending (waiting for a last line without its
    /// newline yet, up to 1 s: pi may be writing it). A directory, a pipe
    /// or a device is refused.
    pub fn open(path: &Path) -> Result<Transaction> {
        let appender = Appender::open(path)?;
        let read_len = appender.len()?;
        Ok(Transaction { appender, read_len })
    }

    /// The `parentId` (JSON text, None: `undefined`) of what is appended
    /// now: `read`, pi's leaf when the tool read the file, unless the file
    /// grew since it was opened; then pi appended meanwhile, and the last
    /// entry it appended is read again from the file. Under the lock in
    /// [`Transaction::write_on`]; without it, a look that may be overtaken.
    pub fn leaf_now(&self, read: Option<Vec<u8>>) -> Result<Option<Vec<u8>>> {
        Ok(match self.appended_leaf()? {
            None => read,
            Some(id) => id.map(|id| id.to_json().into_bytes()),
        })
    }

    /// The id of the last entry appended since the file was opened, read
    /// again from the file: None when none was (the
    /// leaf is the one the tool read), Some(None) when it has no id.
    pub fn appended_leaf(&self) -> Result<Option<Option<crate::entry::Id>>> {
        if self.appender.len()? <= self.read_len {
            return Ok(None);
        }
        // pi may be in the middle of its line (a torn line of a crashed
        // writer was waited for once, at open, and is not grown).
        self.appender.wait_for_whole_last_line();
        // None when only blank or broken lines were added: the leaf is as read.
        let tail =
            crate::session::last_entry(&self.appender.file, &self.appender.name, self.read_len)?;
        Ok(tail.map(|(_, id)| id))
    }

    /// Append `lines` (the batch, its lines joined by newlines, without the
    /// last one) in one write on a fresh line, then `fsync`, under the lock.
    pub fn write(self, lines: &[u8]) -> Result<()> {
        self.write_with(|_| Ok(lines.to_vec()))
    }

    /// Take the lock, then append what `build` makes on the leaf at this
    /// moment ([`Transaction::leaf_now`] of `read`), as [`Transaction::write`].
    pub fn write_on(
        self,
        read: Option<Vec<u8>>,
        build: impl FnOnce(Option<&[u8]>) -> Vec<u8>,
    ) -> Result<()> {
        self.write_with(|appended| {
            let leaf = match appended {
                None => read,
                Some(id) => id.map(|id| id.to_json().into_bytes()),
            };
            Ok(build(leaf.as_deref()))
        })
    }

    /// Take the lock, then append what `build` makes of what was appended
    /// since the file was opened ([`Transaction::appended_leaf`], read
    /// under the lock), as [`Transaction::write`]; the lock is let go after.
    pub fn write_with(
        mut self,
        build: impl FnOnce(Option<Option<crate::entry::Id>>) -> Result<Vec<u8>>,
    ) -> Result<()> {
        test_pause();
        self.appender.lock_within(LOCK_WAIT)?;
        let lines = build(self.appended_leaf()?)?;
        check_new_lines(&self.appender.name, &lines)?;
        self.appender.append_line(&lines)
    }
}

/// Tests only (the `fuzzing` feature the tests build with): with
/// `PI_SESSION_TOOLS_TEST_PAUSE` naming a FIFO, a writer that has read and
/// printed opens it and reads it to its end before taking the lock, so a
/// test can append as pi does at exactly that moment (`tests/live.rs`),
/// without timing.
fn test_pause() {
    #[cfg(feature = "fuzzing")]
    if let Some(fifo) = std::env::var_os("PI_SESSION_TOOLS_TEST_PAUSE") {
        let _ = std::fs::read(fifo);
    }
}

impl Appender {
    /// The file's length now.
    fn len(&self) -> Result<u64> {
        self.file
            .metadata()
            .map(|m| m.len())
            .map_err(|e| Error::io(&self.name, &e))
    }
}

impl Drop for Appender {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

/// Refuse new lines (`lines`, joined by newlines) of which one is longer
/// than the readers' limit ([`crate::session::max_line`]): once written,
/// every tool would refuse the session, even the `pi-edit --restore` that
/// would undo it. Every writer's lines pass here before they are written.
pub fn check_new_lines(name: &str, lines: &[u8]) -> Result<()> {
    let limit = crate::session::max_line();
    let longest = lines
        .split(|&b| b == b'\n')
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0);
    if longest as u64 > limit {
        return Err(Error::request(
            name,
            format!(
                "the new line would be {longest} bytes, over the readers' limit of {limit} (the longest line every tool reads; {} sets it); nothing was written",
                crate::session::MAX_LINE_ENV
            ),
        ));
    }
    Ok(())
}

/// The bytes to append so that `line` starts on a fresh line and ends with one.
fn fresh_line(file: &File, line: &[u8]) -> std::io::Result<Vec<u8>> {
    let len = file.metadata()?.len();
    let mut buf = Vec::with_capacity(line.len() + 2);
    if len > 0 {
        let mut last = [0u8; 1];
        if crate::io::read_at_most(file, &mut last, len - 1)? != 1 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        if last[0] != b'\n' {
            buf.push(b'\n');
        }
    }
    buf.extend_from_slice(line);
    buf.push(b'\n');
    Ok(buf)
}

/// A random id as pi's `generateId` draws it: the first 8 hex digits of a
/// random UUID, drawn again (up to 100 times, then a whole UUID) while
/// `taken` says it is in use.
pub fn random_id(taken: impl Fn(&str) -> bool) -> String {
    for _ in 0..100 {
        let id = uuid::Uuid::new_v4().to_string()[..8].to_string();
        if !taken(&id) {
            return id;
        }
    }
    uuid::Uuid::new_v4().to_string()
}

/// A new entry id for a session: not an id of `index`, nor one of `also_taken`.
pub fn fresh_id(index: &Index, also_taken: &[String]) -> String {
    random_id(|id| {
        index.get(&crate::entry::Id::new(id)).is_some() || also_taken.iter().any(|t| t == id)
    })
}

/// A new entry id for a session: not an id of `index`, nor one of
/// `taken`, to which it is added (a batch of new entries draws each from
/// the one set).
pub fn fresh_id_in(index: &Index, taken: &mut std::collections::HashSet<String>) -> String {
    let id = random_id(|id| index.get(&crate::entry::Id::new(id)).is_some() || taken.contains(id));
    taken.insert(id.clone());
    id
}

/// A `label` entry as pi writes it (`appendLabelChange`, or the label
/// entries of `createBranchedSession`): `parent` and `target` are the ids'
/// JSON text (see [`crate::entry::Id::to_json`]; a parent None is
/// `undefined`: left out, as `JSON.stringify` does), `timestamp` is JSON
/// text (None: absent), `label` the label's JSON text, None when cleared.
pub fn label_line(
    id: &str,
    parent: Option<&[u8]>,
    timestamp: Option<&[u8]>,
    target: &[u8],
    label: Option<&[u8]>,
) -> Vec<u8> {
    let mut w = crate::json::ObjectWriter::new();
    w.str("type", "label")
        .str("id", id)
        .raw("parentId", parent)
        .raw("timestamp", timestamp)
        .raw("targetId", Some(target));
    w.raw("label", label);
    w.finish()
}

/// A `session_info` entry as pi's `appendSessionInfo(name)` writes it (now,
/// line breaks made spaces, the name trimmed: `name.replace(/[\r\n]+/g, " ").trim()`).
/// `parent` as in [`label_line`].
pub fn session_info_line(id: &str, parent: Option<&[u8]>, name: &str) -> Vec<u8> {
    let mut w = crate::json::ObjectWriter::new();
    w.str("type", "session_info")
        .str("id", id)
        .raw("parentId", parent)
        .str("timestamp", &crate::time::now_iso())
        .str("name", &session_name(name));
    w.finish()
}

/// pi's `name.replace(/[\r\n]+/g, " ").trim()` (`appendSessionInfo`).
fn session_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut in_break = false;
    for c in name.chars() {
        if c == '\r' || c == '\n' {
            if !in_break {
                out.push(' ');
            }
            in_break = true;
        } else {
            out.push(c);
            in_break = false;
        }
    }
    crate::json::js::string::trim(&out).to_string()
}

/// `new Date().toISOString()` as JSON text.
pub fn now_json() -> Vec<u8> {
    crate::migrate::json_str(&crate::time::now_iso())
}

/// A new session id as pi makes it (UUID version 7, time ordered).
pub fn new_session_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// pi's file name for a new session: `<timestamp with : and . as ->_<id>.jsonl`.
pub fn session_file_name(timestamp: &str, id: &str) -> String {
    format!("{}_{id}.jsonl", timestamp.replace([':', '.'], "-"))
}

/// A `context_edit` entry as pi's `appendContextEdit(targetId, replacement)`
/// writes it: `timestamp` is JSON text, `replacement` the JSON text of the
/// (already normalized) replacement, `null` for an omission; `parent` and
/// `target` as in [`label_line`].
pub fn context_edit_line(
    id: &str,
    parent: Option<&[u8]>,
    timestamp: &[u8],
    target: &[u8],
    replacement: &[u8],
) -> Vec<u8> {
    let mut w = crate::json::ObjectWriter::new();
    w.str("type", "context_edit")
        .str("id", id)
        .raw("parentId", parent)
        .raw("timestamp", Some(timestamp))
        .raw("targetId", Some(target))
        .raw("replacement", Some(replacement));
    w.finish()
}

/// Write what an appending tool (pi-label, pi-edit) adds: with a
/// [`Transaction`] (a file), print `said` (an output that fails leaves the
/// file as it was; the lock is not held meanwhile), then, under the lock,
/// `build` the lines on the leaf at the moment of writing
/// ([`Transaction::write_on`]) and append them in one write; without one
/// (the session came on stdin), echo the session, on a fresh line the new
/// lines built on its leaf, and print nothing else.
pub fn write_new_lines(
    tx: Option<Transaction>,
    s: &crate::session::Session,
    said: &[u8],
    build: impl Fn(Option<&[u8]>) -> Vec<u8>,
    out: &mut impl std::io::Write,
) -> Result<()> {
    use crate::io::Out;
    let read = leaf_parent(s);
    // Checked before anything is printed too (the transaction checks the
    // lines it writes): a refused write prints no id.
    let lines = build(read.as_deref());
    check_new_lines(&s.name, &lines)?;
    match tx {
        Some(tx) => {
            // Built again under the lock, on the leaf at that moment.
            drop(lines);
            out.announce(said)?;
            tx.write_on(read, build)
        }
        None => {
            let all = s.memory().unwrap_or_default();
            out.bytes(all)?;
            if !all.is_empty() && !all.ends_with(b"\n") {
                out.bytes(b"\n")?;
            }
            out.line(&lines)?;
            out.done()
        }
    }
}

/// The `parentId` of what pi appends next (`this.leafId`), as JSON text:
/// `null` for an empty session, the leaf's id (whatever JSON value it is),
/// None (`undefined`: left out) when the leaf has no id.
pub fn leaf_parent(s: &crate::session::Session) -> Option<Vec<u8>> {
    match s.index.leaf {
        None => Some(b"null".to_vec()),
        Some(l) => s.entries.id(l).map(|id| id.to_json().into_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#;

    fn entry(id: &str, parent: &str) -> String {
        format!(
            r#"{{"type":"custom","customType":"x","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z"}}"#
        )
    }

    fn temp_file(tag: &str, text: &str) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("pst-append-{tag}-{}.jsonl", std::process::id()));
        std::fs::write(&p, text).unwrap();
        p
    }

    /// pi appends (without the lock) between the tool's read and its write:
    /// the new entry is parented to pi's line, not to the leaf read before.
    #[test]
    fn an_entry_appended_meanwhile_is_the_parent() {
        let text = format!("{HEADER}\n{}\n", entry("aaaa0001", "null"));
        let p = temp_file("meanwhile", &text);
        let tx = Transaction::open(&p).unwrap();
        let s = crate::session::Session::open(
            crate::session::Input::File(p.clone()),
            Default::default(),
        )
        .unwrap();
        let read = leaf_parent(&s);
        assert_eq!(read.as_deref(), Some(&b"\"aaaa0001\""[..]));
        // pi's own append: no lock, one write.
        let mut pi = OpenOptions::new().append(true).open(&p).unwrap();
        pi.write_all(format!("{}\n", entry("bbbb0002", "\"aaaa0001\"")).as_bytes())
            .unwrap();
        let parent = tx.leaf_now(read).unwrap();
        assert_eq!(parent.as_deref(), Some(&b"\"bbbb0002\""[..]));
        let line = label_line("cccc0003", parent.as_deref(), None, b"\"aaaa0001\"", None);
        tx.write(&line).unwrap();
        let after = std::fs::read_to_string(&p).unwrap();
        let last = after.lines().last().unwrap();
        assert!(last.contains(r#""parentId":"bbbb0002""#), "{last}");
        let _ = std::fs::remove_file(&p);
    }

    /// Nothing appended meanwhile: the leaf read is kept, and the file is
    /// what it was plus the batch.
    #[test]
    fn nothing_appended_meanwhile_keeps_the_leaf_read() {
        let text = format!("{HEADER}\n{}\n\n", entry("aaaa0001", "null"));
        let p = temp_file("quiet", &text);
        let tx = Transaction::open(&p).unwrap();
        let read = Some(b"\"aaaa0001\"".to_vec());
        assert_eq!(tx.leaf_now(read.clone()).unwrap(), read);
        tx.write(b"{}\n{}").unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            format!("{text}{{}}\n{{}}\n")
        );
        let _ = std::fs::remove_file(&p);
    }

    /// The lock is taken only to write: an open transaction (a tool still
    /// reading, or printing into a pipe nobody reads) holds up no other
    /// writer; one that holds the lock is waited for [`LOCK_WAIT`], then
    /// the write is refused, naming the file, with nothing written.
    #[test]
    fn the_lock_is_held_only_to_write_and_waited_for_within_bounds() {
        let text = format!("{HEADER}\n{}\n", entry("aaaa0001", "null"));
        let p = temp_file("lock", &text);
        let tx = Transaction::open(&p).unwrap();
        let other = File::open(&p).unwrap();
        other
            .try_lock()
            .expect("not locked while the tool reads and prints");
        let t0 = std::time::Instant::now();
        let e = tx.write(b"{}").unwrap_err().to_string();
        assert!(t0.elapsed() >= LOCK_WAIT, "{:?}", t0.elapsed());
        assert!(
            e.contains(&format!(
                "{}: locked by another writer for 5s; nothing was written",
                p.display()
            )),
            "{e}"
        );
        assert_eq!(std::fs::read_to_string(&p).unwrap(), text);
        other.unlock().unwrap();
        Transaction::open(&p).unwrap().write(b"{}").unwrap();
        let _ = std::fs::remove_file(&p);
    }

    #[test]
    fn old_versions_are_refused_with_one_wording() {
        let e = require_current("s.jsonl", 1).unwrap_err();
        assert!(e.to_string().contains("run `pi-migrate -i` first"), "{e}");
        assert!(require_current("s.jsonl", 3).is_ok());
    }
}
