//! Reading a session: the header, one [`Entry`] per line, and the index.
//!
//! A file is read once, line by line, keeping only offsets and the few
//! fields in [`Entry`]; a line is read again (with `pread`) when a command
//! prints it or looks inside it. Standard input is kept in memory.
//! Version 1 and 2 files are migrated in memory with deterministic ids.

use crate::entry::{is_js_space, unknown_type, Entries, Entry, EntryType, Extra, Id, Parent};
use crate::error::{Diagnostic, Error, Result};
use crate::index::Index;
use crate::json::{scan, Object};
use crate::migrate::{self, EntryMigration, CURRENT_VERSION};
use std::borrow::Cow;
use std::cell::RefCell;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where a session comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    Stdin,
    File(PathBuf),
}

impl Input {
    /// The name used in messages (`FILE:LINE: ...`).
    pub fn display_name(&self) -> String {
        match self {
            Input::Stdin => "<stdin>".to_string(),
            Input::File(p) => p.display().to_string(),
        }
    }
}

/// How strictly to read.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadOptions {
    /// A line that is not a JSON object is an error (pi skips it).
    pub strict: bool,
}

/// The session header (first line).
#[derive(Debug, Clone)]
pub struct Header {
    pub line: u64,
    pub offset: u64,
    pub len: u64,
    pub id: String,
    /// The version the file says it has (1 when absent).
    pub version: u32,
}

enum Store {
    /// A file, read again through a small read-ahead window.
    File(File, RefCell<Window>),
    Memory(Vec<u8>),
}

/// The part of the file read last, so that lines printed in file order
/// cost one `pread` per window rather than one per line. The window grows
/// (up to [`WINDOW_MAX`]) while reads go forward and shrinks back to
/// [`WINDOW_MIN`] when they jump.
#[derive(Default)]
struct Window {
    start: u64,
    buf: Vec<u8>,
    size: usize,
}

const WINDOW_MIN: usize = 16 << 10;
const WINDOW_MAX: usize = 128 << 10;

/// Bytes read per `read` call while loading a file.
const LOAD_CHUNK: usize = 256 << 10;

impl Window {
    fn read(&mut self, f: &File, offset: u64, len: u64) -> std::io::Result<Vec<u8>> {
        let end = self.start + self.buf.len() as u64;
        let hit = offset >= self.start && offset.saturating_add(len) <= end;
        if !hit {
            let forward = offset >= self.start && offset <= end.saturating_add(WINDOW_MAX as u64);
            self.size = if forward && self.size > 0 {
                (self.size * 2).min(WINDOW_MAX)
            } else {
                WINDOW_MIN
            };
            let want = (len as usize).max(self.size);
            self.buf.clear();
            self.buf.resize(want, 0);
            let got = read_at_most(f, &mut self.buf, offset)?;
            self.buf.truncate(got);
            self.start = offset;
            if (got as u64) < len {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "the file is shorter than when it was read (changed meanwhile?)",
                ));
            }
        }
        let from = (offset - self.start) as usize;
        Ok(self.buf[from..from + len as usize].to_vec())
    }
}

/// A session read from a file or stdin.
pub struct Session {
    pub input: Input,
    /// Name for messages.
    pub name: String,
    store: Store,
    pub header: Header,
    /// Every line after the header that is a JSON object, in file order
    /// (a second `session` line is kept with type [`EntryType::Session`]);
    /// shared with the index.
    pub entries: Arc<Entries>,
    pub index: Index,
    /// Problems found while reading that did not stop it.
    pub warnings: Vec<Diagnostic>,
    /// The names of the types [`EntryType`] does not know, by entry index.
    other_types: Vec<(u32, Box<str>)>,
}

/// A line of input as the reader sees it.
struct RawLine<'a> {
    number: u64,
    offset: u64,
    bytes: &'a [u8],
}

impl Session {
    /// Read a session.
    pub fn open(input: Input, opts: ReadOptions) -> Result<Session> {
        let name = input.display_name();
        let mut loader = Loader::new(&name, opts);
        let store = match &input {
            Input::Stdin => {
                let mut buf = Vec::new();
                std::io::stdin()
                    .lock()
                    .read_to_end(&mut buf)
                    .map_err(|e| Error::io(&name, &e))?;
                for_each_line_in(&buf, |l| loader.line(l))?;
                Store::Memory(buf)
            }
            Input::File(path) => {
                let file = File::open(path).map_err(|e| Error::io(&name, &e))?;
                if file.metadata().map(|m| m.is_dir()).unwrap_or(false) {
                    return Err(Error::request(&name, "is a directory, not a session file"));
                }
                for_each_line_read(&mut &file, &name, |l| loader.line(l).map(|()| true))?;
                Store::File(file, RefCell::new(Window::default()))
            }
        };
        loader.finish(input, store)
    }

    /// Read a session held in memory (for tests and library users).
    pub fn from_bytes(name: &str, bytes: Vec<u8>, opts: ReadOptions) -> Result<Session> {
        let mut loader = Loader::new(name, opts);
        for_each_line_in(&bytes, |l| loader.line(l))?;
        let mut s = loader.finish(Input::Stdin, Store::Memory(bytes))?;
        s.name = name.to_string();
        Ok(s)
    }

    /// The path of the file, if the session came from one.
    pub fn path(&self) -> Option<&Path> {
        match &self.input {
            Input::File(p) => Some(p),
            Input::Stdin => None,
        }
    }

    /// The whole input, when it is held in memory (stdin).
    pub fn memory(&self) -> Option<&[u8]> {
        match &self.store {
            Store::Memory(b) => Some(b),
            Store::File(..) => None,
        }
    }

    /// The version the file says it has.
    pub fn version(&self) -> u32 {
        self.header.version
    }

    fn read_span(&self, offset: u64, len: u64) -> Result<Cow<'_, [u8]>> {
        match &self.store {
            Store::Memory(b) => Ok(Cow::Borrowed(&b[offset as usize..(offset + len) as usize])),
            Store::File(f, window) => {
                let mut w = window
                    .try_borrow_mut()
                    .map_err(|_| Error::request(&self.name, "re-entrant read"))?;
                let buf = w
                    .read(f, offset, len)
                    .map_err(|e| Error::io(&self.name, &e))?;
                Ok(Cow::Owned(buf))
            }
        }
    }

    /// The bytes of entry `i` exactly as they stand in the input.
    pub fn raw_line(&self, i: usize) -> Result<Cow<'_, [u8]>> {
        let e = &self.entries[i];
        self.read_span(e.offset(), u64::from(e.byte_len()))
    }

    /// The bytes of the header line as they stand in the input.
    pub fn raw_header(&self) -> Result<Cow<'_, [u8]>> {
        self.read_span(self.header.offset, self.header.len)
    }

    /// The bytes of entry `i` as pi holds it after opening the file: the
    /// input bytes, or for an old file the migrated line.
    pub fn line(&self, i: usize) -> Result<Cow<'_, [u8]>> {
        let raw = self.raw_line(i)?;
        if self.header.version >= CURRENT_VERSION {
            return Ok(raw);
        }
        let e = &self.entries[i];
        let obj = self.object(&raw, e.line())?;
        let id = self.entries.id(i).as_ref().map(Id::to_string);
        let parent = match (self.header.version, self.entries.parent_id(i)) {
            (v, Some(p)) if v < 2 => Some(p.to_string()),
            _ => None,
        };
        let first_kept = match migrate::first_kept_index(&obj) {
            Some(k) if self.header.version < 2 && e.ty() == EntryType::Compaction => {
                let entries = &self.entries;
                migrate::v1_first_kept(
                    k,
                    i,
                    entries.len(),
                    |j| entries[j].ty() == EntryType::Session,
                    |j| entries.id(j).as_ref().map(Id::to_string),
                )
            }
            _ => migrate::FirstKept::None,
        };
        let m = EntryMigration {
            from_version: self.header.version,
            id: id.as_deref(),
            parent: parent.as_deref(),
            first_kept,
            is_session: e.ty() == EntryType::Session,
        };
        Ok(Cow::Owned(migrate::migrate_entry(&obj, &m)))
    }

    /// The header as pi holds it after opening (migrated for an old file).
    pub fn header_line(&self) -> Result<Cow<'_, [u8]>> {
        let raw = self.raw_header()?;
        if self.header.version >= CURRENT_VERSION {
            return Ok(raw);
        }
        let obj = self.object(&raw, self.header.line)?;
        Ok(Cow::Owned(migrate::migrate_header(&obj)))
    }

    /// The `type` of entry `i` as written ("" when it has none).
    pub fn type_name(&self, i: usize) -> &str {
        if let Some(name) = self.entries[i].ty().known_name() {
            return name;
        }
        match self
            .other_types
            .binary_search_by_key(&(i as u64), |(j, _)| u64::from(*j))
        {
            Ok(k) => &self.other_types[k].1,
            Err(_) => "",
        }
    }

    /// Parse a line read again from the input.
    pub fn object<'a>(&self, bytes: &'a [u8], line: u64) -> Result<Object<'a>> {
        match Object::parse_line(bytes) {
            Ok(Some(o)) => Ok(o),
            Ok(None) => Err(Error::data(&self.name, Some(line), "not a JSON object")),
            Err(e) => Err(Error::data(
                &self.name,
                Some(line),
                format!("not valid JSON ({e})"),
            )),
        }
    }

    /// The entry index of the entry whose line number is `line`.
    pub fn entry_at_line(&self, line: u64) -> Option<usize> {
        self.entries.binary_search_by_key(&line, |e| e.line()).ok()
    }
}

/// Read into `buf` from `offset` until it is full or the file ends; the
/// number of bytes read.
pub(crate) fn read_at_most(f: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match read_at(f, &mut buf[got..], offset + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

#[cfg(unix)]
fn read_at(f: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    use std::os::unix::fs::FileExt;
    f.read_at(buf, offset)
}

#[cfg(not(unix))]
fn read_at(f: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    use std::io::{Seek, SeekFrom};
    let mut f = f;
    f.seek(SeekFrom::Start(offset))?;
    f.read(buf)
}

fn for_each_line_in(buf: &[u8], mut f: impl FnMut(RawLine<'_>) -> Result<()>) -> Result<()> {
    let mut offset = 0usize;
    let mut number = 0u64;
    while offset < buf.len() {
        number += 1;
        let end = memchr::memchr(b'\n', &buf[offset..]).map_or(buf.len(), |p| offset + p);
        f(RawLine {
            number,
            offset: offset as u64,
            bytes: &buf[offset..end],
        })?;
        offset = end + 1;
    }
    Ok(())
}

/// Split what `r` gives into lines, handing each to `f` straight from the
/// read buffer (a line is copied only when it spans two reads).
/// `f` returns false to stop early.
fn for_each_line_read(
    r: &mut impl Read,
    name: &str,
    mut f: impl FnMut(RawLine<'_>) -> Result<bool>,
) -> Result<()> {
    let mut buf = vec![0u8; LOAD_CHUNK];
    // buf[start..filled] is unprocessed; buf[start..scanned] has no newline.
    let (mut start, mut scanned, mut filled) = (0usize, 0usize, 0usize);
    let mut offset = 0u64;
    let mut number = 0u64;
    loop {
        while let Some(p) = memchr::memchr(b'\n', &buf[scanned..filled]) {
            let end = scanned + p;
            number += 1;
            if !f(RawLine {
                number,
                offset,
                bytes: &buf[start..end],
            })? {
                return Ok(());
            }
            offset += (end + 1 - start) as u64;
            start = end + 1;
            scanned = start;
        }
        scanned = filled;
        if start > 0 {
            buf.copy_within(start..filled, 0);
            filled -= start;
            scanned -= start;
            start = 0;
        }
        if filled == buf.len() {
            // A line longer than the buffer.
            buf.resize(buf.len() * 2, 0);
        }
        let n = loop {
            match r.read(&mut buf[filled..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io(name, &e)),
            }
        };
        if n == 0 {
            if filled > 0 {
                number += 1;
                f(RawLine {
                    number,
                    offset,
                    bytes: &buf[..filled],
                })?;
            }
            return Ok(());
        }
        filled += n;
    }
}

/// The header of a session file, read from its start without reading the
/// rest, and the warnings met on the way (lines skipped before it, a newer
/// version). None when the file has no header (a full read says why).
/// For tools that need only the header and the last entry (`pi-label`).
pub fn read_header(
    file: &File,
    name: &str,
    opts: ReadOptions,
) -> Result<Option<(Header, Vec<Diagnostic>)>> {
    let mut loader = Loader::new(name, opts);
    for_each_line_read(&mut &*file, name, |l| {
        loader.line(l)?;
        Ok(loader.header.is_none())
    })?;
    Ok(loader.header.take().map(|h| (h, loader.warnings)))
}

/// pi's leaf: the last entry of the file (the last line after byte `from`
/// that is a JSON object and not a second header), read from the end of
/// the file backwards, with its id. `from` is where the header line ends.
pub fn last_entry(file: &File, name: &str, from: u64) -> Result<Option<(Entry, Option<Id>)>> {
    let size = file.metadata().map_err(|e| Error::io(name, &e))?.len();
    let mut chunk: u64 = 64 << 10;
    loop {
        let start = size.saturating_sub(chunk).max(from);
        let mut buf = vec![0u8; (size - start) as usize];
        let got = read_at_most(file, &mut buf, start).map_err(|e| Error::io(name, &e))?;
        buf.truncate(got);
        let mut end = buf.len();
        loop {
            let line_start = match memchr::memrchr(b'\n', &buf[..end]) {
                Some(p) => p + 1,
                None if start == from => 0,
                // The line begins before this chunk: read more.
                None => break,
            };
            let bytes = &buf[line_start..end];
            if !is_blank(bytes) {
                if let Ok(Some(obj)) = Object::parse_line(bytes) {
                    let Ok(len) = u32::try_from(bytes.len()) else {
                        return Err(Error::request(name, LINE_TOO_LONG));
                    };
                    let mut one = Entries::new();
                    let at = one
                        .push_object(&obj, 0, start + line_start as u64, len)
                        .map_err(|what| Error::request(name, what))?;
                    if one[at].ty() != EntryType::Session {
                        return Ok(Some((one[at].clone(), one.id(at))));
                    }
                }
            }
            if line_start == 0 {
                return Ok(None);
            }
            end = line_start - 1;
        }
        chunk = chunk.saturating_mul(4);
    }
}

/// Whether pi skips the line as blank (`!line.trim()`).
pub fn is_blank(bytes: &[u8]) -> bool {
    match bytes
        .iter()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c))
    {
        None => return true,
        // Any other ASCII character is not white space.
        Some(&b) if b < 0x80 => return false,
        Some(_) => {}
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => s.chars().all(is_js_space),
        Err(_) => false,
    }
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

const LINE_TOO_LONG: &str = "a line of 4 GiB or more: longer than this tool reads";

struct Loader<'n> {
    name: &'n str,
    opts: ReadOptions,
    header: Option<Header>,
    entries: Entries,
    extras: Vec<(u32, Extra)>,
    other_types: Vec<(u32, Box<str>)>,
    warnings: Vec<Diagnostic>,
    lines_seen: u64,
}

impl<'n> Loader<'n> {
    fn new(name: &'n str, opts: ReadOptions) -> Self {
        Loader {
            name,
            opts,
            header: None,
            entries: Entries::new(),
            extras: Vec::new(),
            other_types: Vec::new(),
            warnings: Vec::new(),
            lines_seen: 0,
        }
    }

    fn warn(&mut self, line: u64, msg: impl Into<String>) {
        self.warnings
            .push(Diagnostic::new(self.name, Some(line), msg.into()));
    }

    fn line(&mut self, l: RawLine<'_>) -> Result<()> {
        self.lines_seen = l.number;
        let (mut bytes, mut offset) = (l.bytes, l.offset);
        if l.number == 1 && bytes.starts_with(BOM) {
            // pi's content.trim() drops a leading byte order mark.
            bytes = &bytes[3..];
            offset += 3;
        }
        if is_blank(bytes) {
            return Ok(());
        }
        let obj = match Object::parse_line(bytes) {
            Ok(Some(o)) => o,
            Ok(None) => return self.skip(l.number, "valid JSON but not an object".into()),
            Err(e) => {
                let what = if e.offset >= bytes.len() {
                    format!("not valid JSON: {} (a torn or truncated line?)", e.what)
                } else {
                    format!("not valid JSON ({e})")
                };
                return self.skip(l.number, what);
            }
        };
        if simdutf8::basic::from_utf8(bytes).is_err() {
            self.warn(
                l.number,
                "not valid UTF-8 (pi reads the bad bytes as U+FFFD; they are kept as they are)",
            );
        }
        let len = bytes.len() as u64;
        if self.header.is_none() {
            return self.header(&obj, l.number, offset, len);
        }
        let Ok(short_len) = u32::try_from(len) else {
            return Err(Error::data(self.name, Some(l.number), LINE_TOO_LONG));
        };
        // Entry indices are kept as u32, with u32::MAX meaning none.
        let Some(at) = u32::try_from(self.entries.len())
            .ok()
            .filter(|&a| a != crate::index::NONE)
        else {
            return Err(Error::data(
                self.name,
                Some(l.number),
                "more than 4 294 967 294 entries: more than this tool reads",
            ));
        };
        let ty = match self.entries.push_object(&obj, l.number, offset, short_len) {
            Ok(i) => self.entries[i].ty(),
            Err(what) => return Err(Error::data(self.name, Some(l.number), what)),
        };
        match ty {
            EntryType::Session => self.warn(l.number, "a second session header; pi ignores it"),
            EntryType::Label | EntryType::SessionInfo => {
                self.extras.push((at, Extra::from_object(&obj, ty)))
            }
            EntryType::Other => {
                if let Some(name) = unknown_type(&obj) {
                    self.other_types.push((at, name.into_boxed_str()));
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn skip(&mut self, line: u64, what: String) -> Result<()> {
        if self.opts.strict {
            return Err(Error::data(self.name, Some(line), what));
        }
        self.warn(line, format!("{what}; skipped, as pi does"));
        Ok(())
    }

    fn header(&mut self, obj: &Object<'_>, line: u64, offset: u64, len: u64) -> Result<()> {
        if obj.str("type").as_deref() != Some("session") {
            return Err(Error::data(
                self.name,
                Some(line),
                "the first entry is not a session header (pi would treat this file as empty and overwrite it)",
            ));
        }
        let Some(id) = obj.str("id") else {
            return Err(Error::data(
                self.name,
                Some(line),
                "the session header has no string \"id\"",
            ));
        };
        let version = match obj.raw("version") {
            None | Some(b"null") => 1,
            Some(v) if scan::kind_of(v) == Some(scan::Kind::Number) => {
                let n: f64 = std::str::from_utf8(v)
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(f64::NAN);
                if n >= CURRENT_VERSION as f64 {
                    if n > CURRENT_VERSION as f64 {
                        self.warn(
                            line,
                            format!(
                                "session version {} is newer than this tool knows ({CURRENT_VERSION}); read as version {CURRENT_VERSION}",
                                String::from_utf8_lossy(v)
                            ),
                        );
                    }
                    CURRENT_VERSION
                } else if n >= 2.0 {
                    2
                } else {
                    1
                }
            }
            Some(v) => {
                return Err(Error::data(
                    self.name,
                    Some(line),
                    format!("unsupported session version {}", String::from_utf8_lossy(v)),
                ))
            }
        };
        self.header = Some(Header {
            line,
            offset,
            len,
            id: id.into_owned(),
            version,
        });
        Ok(())
    }

    fn finish(mut self, input: Input, store: Store) -> Result<Session> {
        let Some(header) = self.header.take() else {
            let what = if self.lines_seen == 0 {
                "empty input: not a session"
            } else {
                "no session header: not a session"
            };
            return Err(Error::request(self.name, what));
        };
        if header.version < 2 {
            assign_v1_ids(&header.id, &mut self.entries)
                .map_err(|what| Error::request(self.name, what))?;
        }
        if header.version < CURRENT_VERSION {
            self.warnings.push(Diagnostic::new(
                self.name,
                None,
                format!(
                    "version-{} session, read as version {CURRENT_VERSION} in memory{}; `pi-migrate` upgrades the file",
                    header.version,
                    if header.version < 2 { " with deterministic ids" } else { "" }
                ),
            ));
        }
        let index = Index::build(self.name, self.entries, &self.extras, &mut self.warnings);
        let entries = Arc::clone(index.entries());
        Ok(Session {
            input,
            name: self.name.to_string(),
            store,
            header,
            entries,
            index,
            warnings: self.warnings,
            other_types: self.other_types,
        })
    }
}

/// Version 1 → 2: every entry, in file order, gets a deterministic id and
/// the previous entry as parent (SPEC §8).
fn assign_v1_ids(session_id: &str, entries: &mut Entries) -> std::result::Result<(), &'static str> {
    let mut used = std::collections::HashSet::new();
    let mut prev: Option<Id> = None;
    for i in 0..entries.len() {
        let e = &entries[i];
        if e.ty() == EntryType::Session {
            continue;
        }
        let line = e.line();
        let mut attempt = 0;
        let id = loop {
            let id = Id::new(&migrate::v1_id(session_id, line, attempt));
            if used.insert(id.clone()) {
                break id;
            }
            attempt += 1;
        };
        let parent = match prev.take() {
            Some(p) => Parent::Id(p),
            None => Parent::Null,
        };
        entries.set_parent(i, &parent)?;
        entries.set_id(i, Some(&id))?;
        prev = Some(id);
    }
    Ok(())
}
