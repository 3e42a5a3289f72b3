//! Reading a session: the header, one [`Entry`] per line, and the index.
//!
//! A file is read once, line by line, keeping only offsets and the few
//! fields in [`Entry`]; a line is read again (with `pread`) when a command
//! prints it or looks inside it. Standard input is kept in memory.
//! Version 1 and 2 files are migrated in memory with deterministic ids.

use crate::entry::{is_js_space, unknown_type, Entries, Entry, EntryType, Extra, Id, Parent};
use crate::error::{Diagnostic, Error, Location, Result};
use crate::index::Index;
use crate::json::{js, scan, Object};
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
    /// Also find out which lines are exactly what `JSON.stringify` writes
    /// for them ([`crate::entry::Entry::is_canonical`]), in the same pass
    /// over each line (for `pi-tree --json`, which prints whole entries).
    pub canonical: bool,
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
                return Err(shrunk());
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
    /// The last entry says `"id": null`: pi's leaf is then `null` (not
    /// `undefined`), and its context at the leaf is empty.
    pub leaf_id_null: bool,
}

/// A line of input as the reader sees it.
struct RawLine<'a> {
    number: u64,
    offset: u64,
    bytes: &'a [u8],
}

impl Session {
    /// The JSON text of a label in force, as the label entry that set it
    /// holds it (pi keeps the value: a number, a lone surrogate escape);
    /// `JSON.stringify`'s text.
    pub fn label_value(&self, l: &crate::index::LabelSlot) -> Result<Vec<u8>> {
        let line = self.line(l.set_by)?;
        let obj = self.object(&line, self.entries[l.set_by].line())?;
        Ok(match obj.canonical("label") {
            Ok(Some(v)) => v,
            _ => crate::migrate::json_str(&l.label),
        })
    }
}

impl Session {
    /// Read a session.
    pub fn open(input: Input, opts: ReadOptions) -> Result<Session> {
        let name = input.display_name();
        let (loader, store) = match &input {
            Input::Stdin => {
                let buf = read_stdin(&name)?;
                let mut loader = Loader::new(&name, opts);
                for_each_line_in(&buf, |l| loader.line(l))?;
                (loader, Store::Memory(buf))
            }
            Input::File(path) => {
                let file = File::open(path).map_err(|e| Error::io(&name, &e))?;
                let meta = file.metadata().map_err(|e| Error::io(&name, &e))?;
                if meta.is_dir() {
                    return Err(Error::request(&name, "is a directory, not a session file"));
                }
                if !meta.is_file() {
                    // A pipe, a FIFO or a device (`<(cat s.jsonl)`,
                    // `/dev/stdin` on a pipe): it cannot be read twice or
                    // at an offset, so it is read once, as stdin is.
                    let buf = read_stream(&mut &file, &name)?;
                    let mut loader = Loader::new(&name, opts);
                    for_each_line_in(&buf, |l| loader.line(l))?;
                    (loader, Store::Memory(buf))
                } else {
                    let loader =
                        load_file(&file, meta.len(), &name, opts, PARALLEL_MIN, MANY_PARTS_MIN)?;
                    (loader, Store::File(file, RefCell::new(Window::default())))
                }
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

    /// Write `len` bytes of the input from `offset` to `out`. From a file
    /// the kernel copies them (`copy_file_range`, `sendfile` or `splice`,
    /// through `std::io::copy`) when `out` is standard output or a file, so
    /// they never pass through this process; otherwise they are read and
    /// written.
    pub fn copy_span<W: std::io::Write>(&self, offset: u64, len: u64, out: &mut W) -> Result<()> {
        match &self.store {
            Store::Memory(b) => out
                .write_all(&b[offset as usize..(offset + len) as usize])
                .map_err(crate::cli::out_err),
            Store::File(f, _) => {
                use std::io::{Seek, SeekFrom};
                let mut f: &File = f;
                f.seek(SeekFrom::Start(offset))
                    .map_err(|e| Error::io(&self.name, &e))?;
                let copied = std::io::copy(&mut f.take(len), out).map_err(crate::cli::out_err)?;
                if copied < len {
                    return Err(Error::io(&self.name, &shrunk()));
                }
                Ok(())
            }
        }
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
            // A truthy value that is not an object is an entry too (pi
            // keeps it): it has no keys.
            Ok(None) => Ok(Object {
                text: bytes,
                range: 0..bytes.len(),
                members: Vec::new(),
            }),
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
pub fn read_at_most(f: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
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

/// The error for a file that has fewer bytes than when it was read.
pub(crate) fn shrunk() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::UnexpectedEof,
        "the file is shorter than when it was read (changed meanwhile?)",
    )
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

/// Files at least this large are read by several threads (smaller files
/// take a few milliseconds; the threads' buffers and the merge would cost
/// more memory than the time they save).
const PARALLEL_MIN: u64 = 32 << 20;

/// At most this many threads load one file.
const LOAD_THREADS_MAX: usize = 8;

/// Parts a file of [`MANY_PARTS_MIN`] bytes or more is cut into per
/// loading thread (so that a thread that finishes early takes another
/// part and the threads end together); smaller files are cut into one part
/// per thread, as each part's own entry list and buffers cost memory that
/// counts more there.
const PARTS_PER_THREAD: usize = 4;
const MANY_PARTS_MIN: u64 = 256 << 20;

/// Read every line of `file` (`size` bytes when opened). From
/// `parallel_min` bytes on, when there is more than one core, the file is
/// cut at line starts into parts (several per thread from `many_parts_min`
/// bytes on) that one thread per core (at most [`LOAD_THREADS_MAX`]) take
/// in turn. The result is exactly what one
/// reader would give: each part's lines are numbered, placed and warned
/// about as if read in order, and the first error in file order wins.
fn load_file<'n>(
    file: &File,
    size: u64,
    name: &'n str,
    opts: ReadOptions,
    parallel_min: u64,
    many_parts_min: u64,
) -> Result<Loader<'n>> {
    let sequential = || -> Result<Loader<'n>> {
        let mut loader = Loader::new(name, opts);
        for_each_line_read(&mut At::new(file, 0, u64::MAX), name, |l| {
            loader.line(l).map(|()| true)
        })?;
        Ok(loader)
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if size < parallel_min || cores < 2 {
        return sequential();
    }
    let threads = cores.min(LOAD_THREADS_MAX);
    let wanted = threads
        * if size >= many_parts_min {
            PARTS_PER_THREAD
        } else {
            1
        };
    // Where each part starts: the first line start after each cut.
    let mut starts = vec![0u64];
    for k in 1..wanted {
        let cut = size / wanted as u64 * k as u64;
        match line_start_after(file, cut).map_err(|e| Error::io(name, &e))? {
            Some(at) if Some(&at) > starts.last() => starts.push(at),
            _ => {}
        }
    }
    if starts.len() < 2 {
        return sequential();
    }
    let parts = starts.len();
    let next = std::sync::atomic::AtomicUsize::new(0);
    // What each part gave: its loader, and how its reading ended.
    type Part<'n> = Option<(Loader<'n>, Result<()>)>;
    let done: std::sync::Mutex<Vec<Part<'n>>> =
        std::sync::Mutex::new((0..parts).map(|_| None).collect());
    let work = || loop {
        let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let Some(&start) = starts.get(k) else {
            break;
        };
        let end = starts.get(k + 1).copied().unwrap_or(u64::MAX);
        let mut part = Loader::new(name, opts);
        part.tail = k > 0;
        let read = for_each_line_read(&mut At::new(file, start, end), name, |l| {
            part.line(l).map(|()| true)
        });
        if let Ok(mut d) = done.lock() {
            d[k] = Some((part, read));
        }
    };
    std::thread::scope(|sc| {
        for _ in 1..threads.min(parts) {
            sc.spawn(work);
        }
        work();
    });
    let gone = || Error::request(name, "a loading thread stopped");
    let mut parts = done
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .into_iter();
    let (mut head, head_read) = parts.next().flatten().ok_or_else(gone)?;
    head_read?;
    if head.header.is_none() {
        // No header in the first part (only blank or bad lines): the header
        // is the first object line of a later part, which took it for an
        // entry. Rare: read again, in order.
        return sequential();
    }
    let old = head
        .header
        .as_ref()
        .is_some_and(|h| h.version < CURRENT_VERSION);
    let parts: Vec<_> = parts.collect();
    if old && parts.iter().flatten().any(|(p, _)| p.non_objects > 0) {
        // Non-object values in an old file are skipped: read again, in order.
        return sequential();
    }
    for (part, &start) in parts.into_iter().zip(&starts[1..]) {
        let (part, read) = part.ok_or_else(gone)?;
        if let Err(mut e) = read {
            shift_line(&mut e.diag, head.lines_seen);
            return Err(e);
        }
        head.append(part, start)?;
    }
    Ok(head)
}

/// Add `by` to a diagnostic's line number.
fn shift_line(d: &mut Diagnostic, by: u64) {
    if let Some(Location {
        line: Some(line), ..
    }) = &mut d.at
    {
        *line += by;
    }
}

/// The offset of the first line that starts after `from` (just after a
/// `\n` at or after `from`); None when no line starts after it.
fn line_start_after(file: &File, from: u64) -> std::io::Result<Option<u64>> {
    let mut buf = vec![0u8; 64 << 10];
    let mut at = from;
    loop {
        let got = read_at_most(file, &mut buf, at)?;
        if let Some(p) = memchr::memchr(b'\n', &buf[..got]) {
            let start = at + p as u64 + 1;
            return Ok(
                (got > p + 1 || read_at_most(file, &mut buf[..1], start)? == 1).then_some(start),
            );
        }
        if got < buf.len() {
            return Ok(None);
        }
        at += got as u64;
    }
}

/// A reader of `file[pos..end]` by positioned reads (`pread`), so that
/// several readers share one open file.
struct At<'f> {
    file: &'f File,
    pos: u64,
    end: u64,
}

impl<'f> At<'f> {
    fn new(file: &'f File, pos: u64, end: u64) -> Self {
        At { file, pos, end }
    }
}

impl Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let want = (self.end.saturating_sub(self.pos)).min(buf.len() as u64) as usize;
        if want == 0 {
            return Ok(0);
        }
        let n = read_at(self.file, &mut buf[..want], self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
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
    let limit = max_line();
    let mut buf = vec![0u8; LOAD_CHUNK];
    // buf[start..filled] is unprocessed; buf[start..scanned] has no newline.
    let (mut start, mut scanned, mut filled) = (0usize, 0usize, 0usize);
    let mut offset = 0u64;
    let mut number = 0u64;
    loop {
        while let Some(p) = memchr::memchr(b'\n', &buf[scanned..filled]) {
            let end = scanned + p;
            number += 1;
            if (end - start) as u64 > limit {
                return Err(line_too_long(name, number, limit));
            }
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
        if filled as u64 > limit {
            return Err(line_too_long(name, number + 1, limit));
        }
        if filled == buf.len() {
            // A line longer than the buffer: room for the longest line
            // allowed and its newline, no more.
            let cap = usize::try_from(limit.saturating_add(2)).unwrap_or(usize::MAX);
            buf.resize((buf.len() * 2).min(cap).max(buf.len() + 1), 0);
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
                // A truthy value that is not an object is an entry too.
                let obj = match Object::parse_line(bytes) {
                    Ok(Some(obj)) => Some(obj),
                    Ok(None) if js::truthy(trim_json_space(bytes)) => Some(Object {
                        text: bytes,
                        range: 0..bytes.len(),
                        members: Vec::new(),
                    }),
                    _ => None,
                };
                if let Some(obj) = obj {
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
        if size - start > max_line().saturating_add(1) {
            // The last line is longer than a line may be (the full read
            // says on which line).
            return Err(Error::request(
                name,
                format!("the last line is {}", too_long_words(max_line())),
            ));
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

/// Why a file whose first line is a byte order mark and JSON is refused
/// (`pi-migrate -i` removes the mark).
/// A value that is not an object before the header: pi's first entry.
pub const NOT_OBJECT_FIRST: &str =
    "the first entry is not a session header (a JSON value that is not an object; pi refuses such a file)";

/// `bytes` without JSON white space (space, tab, CR, LF) on either side.
pub(crate) fn trim_json_space(bytes: &[u8]) -> &[u8] {
    let ws = |b: &u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
    let start = bytes.iter().position(|b| !ws(b)).unwrap_or(bytes.len());
    let end = bytes.iter().rposition(|b| !ws(b)).map_or(start, |e| e + 1);
    &bytes[start..end]
}

pub const BOM_REFUSED: &str = "starts with a byte order mark; pi refuses such a file";

const LINE_TOO_LONG: &str = "a line of 4 GiB or more: longer than this tool reads";

/// The longest line the tools read, unless [`MAX_LINE_ENV`] says otherwise:
/// 256 MiB. pi writes each entry with one `JSON.stringify`, and a V8
/// string holds at most 2^29 - 24 characters (512 Mi), so pi cannot write a
/// line much longer, nor read a file with one (`readFileSync` into a
/// string); real sessions stay far below (pi cuts tool output to 50 KB and
/// resizes images), the 100 MB line of the tests included. A longer line
/// is almost surely not a session (`/dev/zero`, a file of NULs), and
/// holding it would cost gigabytes: the read stops with `FILE:LINE: line
/// longer than N bytes` instead.
pub const DEFAULT_MAX_LINE: u64 = 256 << 20;

/// The environment variable that sets the longest line read, in bytes
/// (`K`, `M`, `G` suffixes: KiB, MiB, GiB).
pub const MAX_LINE_ENV: &str = "PI_SESSION_TOOLS_MAX_LINE";

/// `N`, `NK`, `NM`, `NG` (binary units) as bytes, at least 1 and below 4 GiB
/// (what an entry's length can hold).
pub fn parse_max_line(text: &str) -> Option<u64> {
    let t = text.trim();
    let (digits, unit) = match t.char_indices().last()? {
        (i, 'k' | 'K') => (&t[..i], 1u64 << 10),
        (i, 'm' | 'M') => (&t[..i], 1 << 20),
        (i, 'g' | 'G') => (&t[..i], 1 << 30),
        _ => (t, 1),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n = digits.parse::<u64>().ok()?.checked_mul(unit)?;
    (1..u64::from(u32::MAX)).contains(&n).then_some(n)
}

/// The value of [`MAX_LINE_ENV`]: Ok(None) when unset or empty, Err(the
/// text) when it is not a size.
pub fn max_line_from_env() -> std::result::Result<Option<u64>, String> {
    match std::env::var_os(MAX_LINE_ENV) {
        None => Ok(None),
        Some(v) if v.is_empty() => Ok(None),
        Some(v) => {
            let text = v.to_string_lossy();
            parse_max_line(&text)
                .map(Some)
                .ok_or_else(|| text.into_owned())
        }
    }
}

/// The longest line read, in bytes: [`MAX_LINE_ENV`], else
/// [`DEFAULT_MAX_LINE`] (the binaries refuse a bad value before reading).
pub fn max_line() -> u64 {
    static LIMIT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| {
        max_line_from_env()
            .ok()
            .flatten()
            .unwrap_or(DEFAULT_MAX_LINE)
    })
}

/// `longer than N bytes (...)`.
fn too_long_words(limit: u64) -> String {
    format!(
        "longer than {limit} bytes (the most a line may have; {MAX_LINE_ENV} sets it): not a session line, not read further"
    )
}

/// The error for line `line` of `name`, longer than `limit` bytes.
pub fn line_too_long(name: &str, line: u64, limit: u64) -> Error {
    Error::data(name, Some(line), format!("line {}", too_long_words(limit)))
}

/// Check that no line of `file` is longer than [`max_line`], reading it a
/// piece at a time (for readers that hold a whole file in memory, such as
/// `pi-migrate`, before they do).
pub fn check_line_lengths(file: &File, name: &str) -> Result<()> {
    let limit = max_line();
    let mut buf = vec![0u8; LOAD_CHUNK];
    let (mut at, mut line, mut current) = (0u64, 1u64, 0u64);
    loop {
        let got = read_at_most(file, &mut buf, at).map_err(|e| Error::io(name, &e))?;
        let mut last = None;
        for p in memchr::memchr_iter(b'\n', &buf[..got]) {
            if current + p as u64 - last.map_or(0, |l: usize| l as u64 + 1) > limit {
                return Err(line_too_long(name, line, limit));
            }
            line += 1;
            current = 0;
            last = Some(p);
        }
        current += (got - last.map_or(0, |l| l + 1)) as u64;
        if current > limit {
            return Err(line_too_long(name, line, limit));
        }
        if got < buf.len() {
            return Ok(());
        }
        at += got as u64;
    }
}

/// Read a stream (stdin, a pipe, a FIFO, a device) to its end into memory,
/// failing as soon as one line is longer than [`max_line`] (so `/dev/zero`
/// costs at most that much).
/// Read all of standard input (named `name` in messages), as
/// [`read_stream`] does; when standard input is a terminal nobody is
/// piping a session in, so rather than wait without a word (as `jq`
/// would not), say what is expected: a usage error.
pub fn read_stdin(name: &str) -> Result<Vec<u8>> {
    use std::io::IsTerminal;
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Err(Error::usage(
            "no SESSION given and standard input is a terminal: name a session file or a session-id \
prefix, or pipe one in (`pi-ls` lists this project's sessions; `--help` shows examples)",
        ));
    }
    read_stream(&mut stdin.lock(), name)
}

pub fn read_stream(r: &mut impl Read, name: &str) -> Result<Vec<u8>> {
    let limit = max_line();
    let mut buf: Vec<u8> = Vec::new();
    // Where the line being read starts, and its number.
    let (mut line_start, mut line) = (0usize, 1u64);
    loop {
        if buf.capacity() - buf.len() < LOAD_CHUNK {
            buf.reserve(LOAD_CHUNK);
        }
        let from = buf.len();
        let room = buf.capacity() - from;
        buf.resize(from + room, 0);
        let n = loop {
            match r.read(&mut buf[from..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io(name, &e)),
            }
        };
        buf.truncate(from + n);
        if n == 0 {
            return Ok(buf);
        }
        for p in memchr::memchr_iter(b'\n', &buf[from..]) {
            if (from + p - line_start) as u64 > limit {
                return Err(line_too_long(name, line, limit));
            }
            line += 1;
            line_start = from + p + 1;
        }
        if (buf.len() - line_start) as u64 > limit {
            return Err(line_too_long(name, line, limit));
        }
    }
}

struct Loader<'n> {
    name: &'n str,
    opts: ReadOptions,
    header: Option<Header>,
    entries: Entries,
    extras: Vec<(u32, Extra)>,
    other_types: Vec<(u32, Box<str>)>,
    warnings: Vec<Diagnostic>,
    lines_seen: u64,
    /// For [`ReadOptions::canonical`].
    checker: js::Checker,
    /// Reading a later part of a file (see [`load_file`]): every object
    /// line is an entry, line numbers count from the part's start.
    tail: bool,
    /// Values kept as entries that are not objects (a later part cannot
    /// know whether the file is old, where they are skipped).
    non_objects: usize,
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
            checker: js::Checker::new(),
            tail: false,
            non_objects: 0,
        }
    }

    /// Add what `tail` read from the next part of the file, which starts
    /// at byte `split`, after this loader's lines.
    fn append(&mut self, tail: Loader<'_>, split: u64) -> Result<()> {
        let (lines, at) = (self.lines_seen, self.entries.len());
        if at + tail.entries.len() >= crate::index::NONE as usize {
            return Err(Error::data(
                self.name,
                None,
                "more than 4 294 967 294 entries: more than this tool reads",
            ));
        }
        let at = at as u32;
        self.entries
            .append(tail.entries, lines, split)
            .map_err(|what| Error::data(self.name, None, what))?;
        self.extras
            .extend(tail.extras.into_iter().map(|(i, x)| (i + at, x)));
        self.other_types
            .extend(tail.other_types.into_iter().map(|(i, x)| (i + at, x)));
        self.warnings.extend(tail.warnings.into_iter().map(|mut d| {
            shift_line(&mut d, lines);
            d
        }));
        if tail.lines_seen > 0 {
            self.lines_seen = lines + tail.lines_seen;
        }
        Ok(())
    }

    fn warn(&mut self, line: u64, msg: impl Into<String>) {
        self.warnings
            .push(Diagnostic::new(self.name, Some(line), msg.into()));
    }

    fn line(&mut self, l: RawLine<'_>) -> Result<()> {
        self.lines_seen = l.number;
        let (mut bytes, mut offset) = (l.bytes, l.offset);
        if l.number == 1 && !self.tail && bytes.starts_with(BOM) {
            // pi 1.6 parses each line as it stands: a header after a byte
            // order mark is not JSON, so the file has no header and pi
            // refuses it. A mark on a blank line, or before a line that
            // is no JSON anyway, changes nothing.
            bytes = &bytes[3..];
            offset += 3;
            if !is_blank(bytes) && Object::parse_line(bytes).is_ok() {
                return Err(Error::data(self.name, Some(1), BOM_REFUSED));
            }
        }
        if is_blank(bytes) {
            return Ok(());
        }
        // A line pi wrote (compact, and in JSON.stringify's form) is read
        // in one quick pass that also proves that form when asked to; any
        // other the long way.
        let quick = match self.opts.canonical {
            true => self.checker.object(bytes),
            false => self.checker.valid_object(bytes),
        }
        .map(<[_]>::to_vec);
        let canonical = self.opts.canonical && quick.is_some();
        let parsed = match quick {
            Some(members) => Ok(Some(Object {
                text: bytes,
                range: 0..bytes.len(),
                members,
            })),
            None => Object::parse_line(bytes),
        };
        let mut non_object = false;
        let obj = match parsed {
            Ok(Some(o)) => o,
            // pi keeps every parsed value that is truthy (`if (entry)
            // entries.push(entry)`): an array, a number or a string is an
            // entry without type, id or parent; null, false, 0 and "" are
            // dropped.
            Ok(None) => {
                let v = trim_json_space(bytes);
                if !js::truthy(v) {
                    return self.skip(
                        l.number,
                        "valid JSON but falsy (null, false, 0 or \"\")".into(),
                    );
                }
                // An old file is migrated by pi, which sets ids on its
                // entries (and fails on a string): such a line stays skipped.
                let old = self
                    .header
                    .as_ref()
                    .is_some_and(|h| h.version < CURRENT_VERSION);
                if self.opts.strict || old {
                    return self.skip(l.number, "valid JSON but not an object".into());
                }
                self.non_objects += 1;
                non_object = true;
                Object {
                    text: bytes,
                    range: 0..bytes.len(),
                    members: Vec::new(),
                }
            }
            Err(e) => {
                let what = if e.offset >= bytes.len() {
                    format!("not valid JSON: {} (a torn or truncated line?)", e.what)
                } else {
                    format!("not valid JSON ({e})")
                };
                return self.skip(l.number, what);
            }
        };
        let utf8 = simdutf8::basic::from_utf8(bytes).is_ok();
        if !utf8 {
            self.warn(
                l.number,
                "not valid UTF-8 (pi reads the bad bytes as U+FFFD; they are kept as they are)",
            );
        }
        let len = bytes.len() as u64;
        if self.header.is_none() && !self.tail {
            if non_object {
                return Err(Error::data(self.name, Some(l.number), NOT_OBJECT_FIRST));
            }
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
            Ok(i) => {
                if canonical && utf8 {
                    self.entries.set_canonical(i);
                }
                self.entries[i].ty()
            }
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
        let h = HeaderFields::read(obj).map_err(|what| Error::data(self.name, Some(line), what))?;
        if let Some(v) = h.newer {
            self.warn(
                line,
                format!(
                    "session version {} is newer than this tool knows ({CURRENT_VERSION}); read as version {CURRENT_VERSION}",
                    String::from_utf8_lossy(v)
                ),
            );
        }
        if let Some(why) = h.odd {
            self.warn(line, why);
        }
        let (id, version) = (h.id, h.version);
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
        let mut s = Session {
            input,
            name: self.name.to_string(),
            store,
            header,
            entries,
            index,
            warnings: self.warnings,
            other_types: self.other_types,
            leaf_id_null: false,
        };
        s.leaf_id_null = s
            .index
            .leaf
            .and_then(|l| s.entries.id(l))
            .is_some_and(|id| id.is_null());
        Ok(s)
    }
}

/// What a session header line says, as loading reads it (and `pi-migrate`).
pub(crate) struct HeaderFields<'a> {
    pub id: Cow<'a, str>,
    /// 1 when absent, 2, or [`CURRENT_VERSION`] (for any higher number too).
    pub version: u32,
    /// The `version` as written, when it is higher than [`CURRENT_VERSION`].
    pub newer: Option<&'a [u8]>,
    /// A warning when the `version` is not a JSON number (pi converts it).
    pub odd: Option<String>,
}

/// The number JavaScript compares a header's `version` (JSON text `v`) as:
/// `ToNumber(ToPrimitive(v))`. A string is read as `Number(s)` reads it, an
/// array as the string of its elements joined with commas, `true` as 1,
/// an object as NaN.
fn js_version_number(v: &[u8]) -> f64 {
    fn of(v: &serde_json::Value, in_array: bool) -> f64 {
        use serde_json::Value as V;
        match v {
            V::Null => {
                if in_array {
                    0.0
                } else {
                    f64::NAN
                }
            }
            // ToString(true) is "true", which is NaN as a number.
            V::Bool(b) => match (in_array, b) {
                (true, _) => f64::NAN,
                (false, true) => 1.0,
                (false, false) => 0.0,
            },
            V::Number(n) => n.as_f64().unwrap_or(f64::NAN),
            V::String(s) => string_to_number(s),
            V::Array(a) => match a.as_slice() {
                [] => 0.0,
                [one] => of(one, true),
                _ => f64::NAN, // a comma in the joined string
            },
            V::Object(_) => f64::NAN,
        }
    }
    if scan::kind_of(v) == Some(scan::Kind::Number) {
        return std::str::from_utf8(v)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(f64::NAN);
    }
    match serde_json::from_slice::<serde_json::Value>(v) {
        Ok(val) => of(&val, false),
        Err(_) => f64::NAN,
    }
}

/// JavaScript's `Number(s)` for a string: white space trimmed, "" is 0,
/// `0x`/`0o`/`0b` integers, `Infinity`, decimal literals; else NaN.
fn string_to_number(s: &str) -> f64 {
    let t = s.trim_matches(is_js_space);
    if t.is_empty() {
        return 0.0;
    }
    for (prefix, radix) in [
        ("0x", 16),
        ("0X", 16),
        ("0o", 8),
        ("0O", 8),
        ("0b", 2),
        ("0B", 2),
    ] {
        if let Some(digits) = t.strip_prefix(prefix) {
            if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
                return f64::NAN;
            }
            return digits.chars().fold(0.0, |n, c| {
                n * radix as f64 + c.to_digit(radix).unwrap_or(0) as f64
            });
        }
    }
    let (sign, body) = match t.as_bytes()[0] {
        b'+' => (1.0, &t[1..]),
        b'-' => (-1.0, &t[1..]),
        _ => (1.0, t),
    };
    if body == "Infinity" {
        return sign * f64::INFINITY;
    }
    // digits [. digits] or . digits, then [e|E [+|-] digits]
    let b = body.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    let mut mantissa = digits(&mut i);
    if i < b.len() && b[i] == b'.' {
        i += 1;
        mantissa += digits(&mut i);
    }
    if mantissa == 0 {
        return f64::NAN;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return f64::NAN;
        }
    }
    if i != b.len() {
        return f64::NAN;
    }
    body.parse::<f64>().map_or(f64::NAN, |n| sign * n)
}

impl<'a> HeaderFields<'a> {
    /// The fields of the first object line `obj`, or why it is not a header.
    pub(crate) fn read(obj: &Object<'a>) -> std::result::Result<HeaderFields<'a>, String> {
        if obj.str("type").as_deref() != Some("session") {
            return Err("the first entry is not a session header (pi would treat this file as empty and overwrite it)".into());
        }
        let Some(id) = obj.str("id") else {
            return Err("the session header has no string \"id\"".into());
        };
        // pi 1.6: `const version = header.version ?? 1`, then
        // `version >= 3`, `version < 2`, `version < 3`: JavaScript compares
        // a string or an array as the number it converts to ("3" and [3] are
        // 3), and a value that converts to NaN fails every test, so pi
        // migrates nothing and reads the file as it is.
        let (version, newer, odd) = match obj.raw("version") {
            None | Some(b"null") => (1, None, None),
            Some(v) => {
                let number = scan::kind_of(v) == Some(scan::Kind::Number);
                let n = js_version_number(v);
                let shown = String::from_utf8_lossy(v);
                if n.is_nan() {
                    let why = format!(
                        "session version {shown} is not a number; pi migrates nothing and reads the file as it is (as version {CURRENT_VERSION})"
                    );
                    (CURRENT_VERSION, None, Some(why))
                } else {
                    let odd = (!number).then(|| {
                        format!(
                            "session version {shown} is not a number; pi reads it as {}",
                            js::number_to_js(n)
                        )
                    });
                    if n > CURRENT_VERSION as f64 {
                        (CURRENT_VERSION, Some(v), odd)
                    } else if n >= CURRENT_VERSION as f64 {
                        (CURRENT_VERSION, None, odd)
                    } else if n >= 2.0 {
                        (2, None, odd)
                    } else {
                        (1, None, odd)
                    }
                }
            }
        };
        Ok(HeaderFields {
            id,
            version,
            newer,
            odd,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Load `text` from a file with one reader and with two, and return
    /// what each gave (entries, warnings, header, or the error).
    fn both_ways(text: &[u8], opts: ReadOptions) -> (String, String) {
        let path = std::env::temp_dir().join(format!(
            "pi-session-tools-split-{}-{:x}.jsonl",
            std::process::id(),
            sha1_smol::Sha1::from(text).digest().bytes()[0..8]
                .iter()
                .fold(0u64, |a, &b| a << 8 | u64::from(b))
        ));
        std::fs::write(&path, text).unwrap();
        let file = File::open(&path).unwrap();
        let size = text.len() as u64;
        let show = |r: Result<Loader<'_>>| match r {
            Ok(l) => format!(
                "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{}",
                l.header, l.entries, l.extras, l.other_types, l.warnings, l.lines_seen
            ),
            Err(e) => format!("error {e}"),
        };
        let one = show(load_file(&file, size, "f", opts, u64::MAX, u64::MAX));
        let two = show(load_file(&file, size, "f", opts, 0, u64::MAX));
        let many = show(load_file(&file, size, "f", opts, 0, 0));
        assert_eq!(two, many, "one part per thread against several");
        std::fs::remove_file(&path).unwrap();
        (one, two)
    }

    const H: &str = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#;

    fn entry(i: usize, parent: Option<usize>) -> String {
        let p = parent.map_or("null".to_string(), |p| format!("\"{p:08x}\""));
        format!(
            r#"{{"type":"message","id":"{i:08x}","parentId":{p},"timestamp":"2026-01-01T00:00:{:02}.000Z","message":{{"role":"user","content":"line {i}"}}}}"#,
            i % 60
        )
    }

    #[test]
    fn two_readers_read_what_one_reads() {
        let mut cases: Vec<Vec<String>> = Vec::new();
        let plain: Vec<String> = std::iter::once(H.to_string())
            .chain((1..40).map(|i| entry(i, (i > 1).then(|| i - 1))))
            .collect();
        cases.push(plain.clone());
        // Bad, blank, non-object and second-header lines on both sides.
        let mut messy = plain.clone();
        for (at, line) in [
            (3, "{not json"),
            (25, "   "),
            (30, "[1,2]"),
            (33, H),
            (
                35,
                r#"{"type":"label","id":"ffffffff","parentId":"00000022","timestamp":"x","targetId":"00000001","label":"L"}"#,
            ),
            (36, r#"{"type":"mystery","id":"eeeeeeee"}"#),
            (38, "{\"type\":\"message\",\"id\":\"dd"),
        ] {
            messy.insert(at, line.to_string());
        }
        cases.push(messy.clone());
        // The first bad line late in the file (an error there with --strict).
        let mut late_bad = plain.clone();
        late_bad.insert(37, "{not json".to_string());
        cases.push(late_bad);
        // Only bad lines before the header, past the middle.
        let mut late = vec!["garbage".to_string(); 30];
        late.extend(plain.iter().take(5).cloned());
        cases.push(late);
        // A BOM, no trailing newline, CRLF lines.
        let mut bom = plain.clone();
        bom[0] = format!("\u{feff}{H}");
        cases.push(bom);
        let crlf: Vec<String> = plain.iter().map(|l| format!("{l}\r")).collect();
        cases.push(crlf);
        // Ids that are not 8 hex digits (kept in a side table) on both sides.
        let named: Vec<String> = plain
            .iter()
            .map(|l| {
                l.replace("\"id\":\"0000", "\"id\":\"n-")
                    .replace("\"parentId\":\"0000", "\"parentId\":\"n-")
            })
            .collect();
        assert!(named[30].contains("\"id\":\"n-"), "{}", named[30]);
        cases.push(named);
        // One long line in the middle.
        let mut long = plain.clone();
        long[20] = format!(
            r#"{{"type":"custom","id":"abcdef01","parentId":null,"data":"{}"}}"#,
            "x".repeat(200_000)
        );
        cases.push(long);
        for (n, lines) in cases.iter().enumerate() {
            for end in ["", "\n", "\n\n"] {
                let text = format!("{}{end}", lines.join("\n"));
                for strict in [false, true] {
                    let (one, two) = both_ways(
                        text.as_bytes(),
                        ReadOptions {
                            strict,
                            ..Default::default()
                        },
                    );
                    assert_eq!(one, two, "case {n}, end {end:?}, strict {strict}");
                }
            }
        }
    }

    #[test]
    fn the_split_is_at_a_line_start() {
        let path =
            std::env::temp_dir().join(format!("pi-session-tools-lsa-{}", std::process::id()));
        std::fs::write(&path, b"ab\ncd\nef").unwrap();
        let f = File::open(&path).unwrap();
        assert_eq!(line_start_after(&f, 0).unwrap(), Some(3));
        assert_eq!(line_start_after(&f, 3).unwrap(), Some(6));
        assert_eq!(line_start_after(&f, 6).unwrap(), None);
        std::fs::write(&path, b"ab\n").unwrap();
        let f = File::open(&path).unwrap();
        assert_eq!(line_start_after(&f, 0).unwrap(), None);
        std::fs::remove_file(&path).unwrap();
    }
}
