//! The session store as pi 1.6.0 lists it: what `buildSessionInfo` makes
//! of each file (a `SessionInfo`), read in parallel and without holding a
//! file, and `sortSessionInfos`' order.
//!
//! pi reads every line of every file with `readline` (lines end at `\n`,
//! `\r\n` or a lone `\r`), parses each with `JSON.parse`, skips what does not
//! parse, and drops a file whose first value is not a `session` header, that
//! cannot be read, or on which its own code throws (a `message` entry
//! without a message, content that is neither a string nor an array, a
//! `session_info` name that is not a string). The same rules are here, each
//! with the reason, for `pi-ls --verbose`.

use super::build::{State, Step};
use super::find::mtime_date;
use crate::json::js;
use std::fs::Metadata;
use std::io::Read;
use std::path::{Path, PathBuf};

/// What pi lists of one session (its `SessionInfo`, less `allMessagesText`).
/// Strings are JavaScript strings (UTF-16) so that `JSON.stringify` of
/// them is exact, lone surrogates included.
#[derive(Debug, Clone)]
pub struct Info {
    pub path: PathBuf,
    /// `JSON.stringify(header.id)` (None when the header has no id).
    pub id_json: Option<Vec<u8>>,
    /// The id as text (for people and for lookups).
    pub id: String,
    pub cwd: Vec<u16>,
    pub name: Option<Vec<u16>>,
    /// `JSON.stringify(header.parentSession)`, when present.
    pub parent_json: Option<Vec<u8>>,
    /// header.parentSession when it is a string.
    pub parent: Option<String>,
    /// `new Date(header.timestamp).getTime()` (NaN: an invalid date).
    pub created: f64,
    /// pi's last-activity time (NaN: an invalid date).
    pub modified: f64,
    pub message_count: u64,
    /// The first user text; empty when there is none ("(no messages)").
    pub first_message: Vec<u16>,
    /// The file's size in bytes.
    pub bytes: u64,
    /// The header's version (1 when absent, as pi reads it).
    pub version: u32,
}

impl Info {
    pub fn cwd_string(&self) -> String {
        String::from_utf16_lossy(&self.cwd)
    }
    pub fn name_string(&self) -> Option<String> {
        self.name.as_deref().map(String::from_utf16_lossy)
    }
    pub fn first_message_string(&self) -> String {
        if self.first_message.is_empty() {
            "(no messages)".into()
        } else {
            String::from_utf16_lossy(&self.first_message)
        }
    }

    /// `JSON.stringify` of pi's `SessionInfo` without `allMessagesText`,
    /// without the closing brace (so that more members can follow).
    pub fn write_json_open(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"path\":");
        // ripgrep's {"bytes":...} for a name that is not UTF-8
        out.extend_from_slice(&crate::name::json(&crate::name::kept_path(&self.path)));
        if let Some(id) = &self.id_json {
            out.extend_from_slice(b",\"id\":");
            out.extend_from_slice(id);
        }
        out.extend_from_slice(b",\"cwd\":");
        js::write_utf16(out, &self.cwd);
        if let Some(n) = &self.name {
            out.extend_from_slice(b",\"name\":");
            js::write_utf16(out, n);
        }
        if let Some(p) = &self.parent_json {
            out.extend_from_slice(b",\"parentSessionPath\":");
            out.extend_from_slice(p);
        }
        out.extend_from_slice(b",\"created\":");
        write_date(out, self.created);
        out.extend_from_slice(b",\"modified\":");
        write_date(out, self.modified);
        out.extend_from_slice(format!(",\"messageCount\":{}", self.message_count).as_bytes());
        out.extend_from_slice(b",\"firstMessage\":");
        if self.first_message.is_empty() {
            out.extend_from_slice(b"\"(no messages)\"");
        } else {
            js::write_utf16(out, &self.first_message);
        }
    }
}

/// A date as `JSON.stringify` writes it: its ISO string, or `null`.
pub fn write_date(out: &mut Vec<u8>, ms: f64) {
    if ms.is_nan() {
        out.extend_from_slice(b"null");
    } else {
        out.push(b'"');
        out.extend_from_slice(crate::time::iso_string(ms as i64).as_bytes());
        out.push(b'"');
    }
}

/// Why a file is not listed.
#[derive(Debug, Clone)]
pub struct Skip {
    pub path: PathBuf,
    pub line: Option<u64>,
    pub reason: String,
}

/// One file read: listed, or skipped with a reason.
pub type Outcome = Result<Info, Skip>;

/// pi's `sortSessionInfos`: newest `modified` first, a stable sort (equal
/// times keep the order the files were read in). An invalid date, which
/// JavaScript's sort places unpredictably, goes last.
pub fn sort_infos(infos: &mut [Info]) {
    infos.sort_by(|a, b| match (a.modified.is_nan(), b.modified.is_nan()) {
        (false, false) => b
            .modified
            .partial_cmp(&a.modified)
            .unwrap_or(std::cmp::Ordering::Equal),
        (x, y) => x.cmp(&y),
    });
}

const CHUNK: usize = 256 << 10;

/// [`session_info`] with a reusable checker for the quick read of lines.
pub fn session_info_with(
    path: &Path,
    meta: Option<Metadata>,
    buf: &mut Vec<u8>,
    checker: &mut js::Checker,
) -> Outcome {
    let skip = |line: Option<u64>, reason: String| Skip {
        path: path.to_path_buf(),
        line,
        reason,
    };
    let meta = match meta {
        Some(m) => m,
        None => std::fs::metadata(path).map_err(|e| skip(None, crate::error::io_message(&e)))?,
    };
    // A FIFO or a device is no session file, and reading it may wait for
    // a writer or never end: looked at before opening, and what was opened
    // (without waiting) looked at again.
    let not_regular = |m: &Metadata| !m.is_file() && !m.is_dir();
    if not_regular(&meta) {
        return Err(skip(None, "not a regular file".into()));
    }
    let mut f =
        crate::io::open_no_wait(path).map_err(|e| skip(None, crate::error::io_message(&e)))?;
    if f.metadata().is_ok_and(|m| not_regular(&m)) {
        return Err(skip(None, "not a regular file".into()));
    }
    let mut st = State {
        checker: std::mem::take(checker),
        ..State::default()
    };
    let r = read_lines(path, &mut f, &mut st, buf);
    *checker = std::mem::take(&mut st.checker);
    r?;

    finish(path, &meta, st)
}

/// Every line of `f` through `st`.
fn read_lines(
    path: &Path,
    f: &mut std::fs::File,
    st: &mut State,
    buf: &mut Vec<u8>,
) -> Result<(), Skip> {
    let skip = |line: Option<u64>, reason: String| Skip {
        path: path.to_path_buf(),
        line,
        reason,
    };
    let limit = crate::session::max_line() as usize;
    if buf.len() != CHUNK {
        buf.clear();
        buf.resize(CHUNK, 0);
    }
    // Bytes of a line begun in an earlier chunk.
    let mut pending: Vec<u8> = Vec::new();
    let mut line_no: u64 = 0;
    loop {
        let n = match f.read(buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(skip(None, crate::error::io_message(&e))),
        };
        let chunk = &buf[..n];
        let mut start = 0;
        while let Some(p) = memchr::memchr2(b'\n', b'\r', &chunk[start..]) {
            let end = start + p;
            line_no += 1;
            let done = if pending.is_empty() {
                st.line(&chunk[start..end])
            } else {
                pending.extend_from_slice(&chunk[start..end]);
                let r = st.line(&pending);
                pending.clear();
                r
            };
            match done {
                Step::Go => {}
                Step::Stop(reason) => return Err(skip(Some(line_no), reason)),
            }
            start = end + 1;
        }
        if start < n {
            if pending.len() + (n - start) > limit {
                return Err(skip(
                    Some(line_no + 1),
                    format!("line longer than {limit} bytes"),
                ));
            }
            pending.extend_from_slice(&chunk[start..n]);
        }
        if !st.wanted() {
            break;
        }
    }
    if !pending.is_empty() {
        line_no += 1;
        if let Step::Stop(reason) = st.line(&pending) {
            return Err(skip(Some(line_no), reason));
        }
    }
    Ok(())
}

/// The `SessionInfo` of what `st` read.
fn finish(path: &Path, meta: &Metadata, st: State) -> Outcome {
    let Some(h) = st.header else {
        return Err(Skip {
            path: path.to_path_buf(),
            line: None,
            reason: if st.not_session {
                "the first JSON value is not a session header".into()
            } else {
                "no session header (an empty file, or no line is JSON)".into()
            },
        });
    };
    let modified = match st.last_activity {
        Some(t) if t > 0.0 => time_clip(t),
        _ if !h.header_time.is_nan() => h.header_time,
        _ => mtime_date(meta),
    };
    Ok(Info {
        path: path.to_path_buf(),
        id_json: h.id_json,
        id: h.id,
        cwd: h.cwd,
        name: st.name,
        parent_json: h.parent_json,
        parent: h.parent,
        created: h.created,
        modified,
        message_count: st.message_count,
        first_message: st.first_message,
        bytes: meta.len(),
        version: h.version,
    })
}

fn time_clip(t: f64) -> f64 {
    if !t.is_finite() || t.abs() > 8.64e15 {
        f64::NAN
    } else {
        t.trunc() + 0.0
    }
}
