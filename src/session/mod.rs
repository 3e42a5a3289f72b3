//! The read model of a session: the header, one
//! [`Entry`](crate::entry::Entry) per line, and the index, with the lines
//! read again on demand.
//!
//! A file is read once, line by line, keeping only offsets and the few
//! fields in an entry (the loader, `load`; several threads for a large
//! file, `parallel`); a line is read again (with `pread`, through a
//! read-ahead window) when a command prints it or looks inside it.
//! Standard input is kept in memory. Version 1 and 2 files are migrated in
//! memory with deterministic ids. `lines` splits input into lines under
//! the longest-line limit, `header` reads what a header line says, and
//! `ends` reads only the header and the last entry of a file.

mod ends;
mod lines;
mod load;
mod parallel;

pub(crate) use crate::io::shrunk;
pub use crate::migrate::NOT_OBJECT_FIRST;
pub use ends::{last_entry, read_header};
pub(crate) use lines::{
    check_line_lengths, line_too_long, max_line_from_env, read_stdin, read_stream,
};
pub use lines::{max_line, DEFAULT_MAX_LINE, MAX_LINE_ENV};
pub use load::NOT_UTF8;

use crate::entry::{Entries, EntryType, Id};
use crate::error::{Diagnostic, Error, Result};
use crate::index::Index;
use crate::io::Window;
use crate::json::Object;
use crate::migrate::{self, EntryMigration, CURRENT_VERSION};
use std::borrow::Cow;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

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
            Input::File(p) => crate::name::kept_path(p).into_owned(),
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
    /// Also keep a `Glance` of each
    /// message entry ([`Session::glances`]), found on the loading threads
    /// while the line is at hand (for `pi-tree`'s rows and filters).
    pub glances: bool,
    /// Also keep the role of each message entry ([`Session::roles`],
    /// `entry::glance::role`): a look at the first member of the
    /// message, on the loading threads, where the quick check took the
    /// line; for `pi-convert`'s context walk.
    pub roles: bool,
    /// Also keep what `pi-check`'s conversation and tree layers need of
    /// each message entry ([`Session::talk`], `entry::talk`), read on the
    /// loading threads where the quick check took the line, with its
    /// quote bits: the checks then read no message line again.
    pub talk: bool,
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

/// Where the bytes of a session are, to be read again.
enum Backing {
    /// A file, read again through a small read-ahead window (behind a
    /// lock, so that a session can be shared by threads: `pi-tree` renders
    /// rows on two).
    File(File, Mutex<Window>),
    Memory(Vec<u8>),
}

/// The read-ahead window of a session file: from 16 KiB, growing to
/// 128 KiB while lines are read in file order.
const WINDOW_MIN: usize = 16 << 10;
const WINDOW_MAX: usize = 128 << 10;

/// A session read from a file or stdin.
pub struct Session {
    pub input: Input,
    /// Name for messages.
    pub name: String,
    backing: Backing,
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
    /// With [`ReadOptions::glances`]: one per entry (the default for any
    /// entry but a message); otherwise empty.
    pub glances: Vec<crate::entry::glance::Glance>,
    /// With [`ReadOptions::roles`]: one per entry (0 for any entry but a
    /// message); otherwise empty.
    pub roles: Vec<u8>,
    /// With [`ReadOptions::talk`]: the message entries' (empty without).
    pub talk: crate::entry::talk::Talk,
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
        let (loader, backing) = match &input {
            Input::Stdin => {
                let buf = read_stdin(&name)?;
                (load::load_bytes(&buf, &name, opts)?, Backing::Memory(buf))
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
                    (load::load_bytes(&buf, &name, opts)?, Backing::Memory(buf))
                } else {
                    let loader = parallel::load_file(&file, meta.len(), &name, opts)?;
                    let window = Window::new(WINDOW_MIN, WINDOW_MAX);
                    (loader, Backing::File(file, Mutex::new(window)))
                }
            }
        };
        loader.finish(input, backing)
    }

    /// Read a session held in memory (for tests and library users).
    pub fn from_bytes(name: &str, bytes: Vec<u8>, opts: ReadOptions) -> Result<Session> {
        let loader = load::load_bytes(&bytes, name, opts)?;
        let mut s = loader.finish(Input::Stdin, Backing::Memory(bytes))?;
        s.name = name.to_string();
        Ok(s)
    }

    /// [`Session::from_bytes`] that hands the bytes back with the error,
    /// for a caller that still reports on them (`pi-check`).
    pub fn from_bytes_or_back(
        name: &str,
        bytes: Vec<u8>,
        opts: ReadOptions,
    ) -> std::result::Result<Session, (Error, Vec<u8>)> {
        let loader = match load::load_bytes(&bytes, name, opts) {
            Ok(l) => l,
            Err(e) => return Err((e, bytes)),
        };
        // finish() fails only without a header or on a version-1 file's
        // ids: a copy of the bytes is kept for that rare file alone.
        let copy = match &loader.header {
            None => {
                return Err((
                    Error::request(name, "no session header: not a session"),
                    bytes,
                ))
            }
            Some(h) if h.version < 2 => Some(bytes.clone()),
            Some(_) => None,
        };
        match loader.finish(Input::Stdin, Backing::Memory(bytes)) {
            Ok(mut s) => {
                s.name = name.to_string();
                Ok(s)
            }
            Err(e) => Err((e, copy.unwrap_or_default())),
        }
    }

    /// The path of the file, if the session came from one.
    pub fn path(&self) -> Option<&Path> {
        match &self.input {
            Input::File(p) => Some(p),
            Input::Stdin => None,
        }
    }

    /// The bytes held in memory, given back (for a reader to reuse).
    pub fn into_memory(self) -> Option<Vec<u8>> {
        match self.backing {
            Backing::Memory(b) => Some(b),
            Backing::File(..) => None,
        }
    }

    /// The whole input, when it is held in memory (stdin).
    pub fn memory(&self) -> Option<&[u8]> {
        match &self.backing {
            Backing::Memory(b) => Some(b),
            Backing::File(..) => None,
        }
    }

    /// The version the file says it has.
    pub fn version(&self) -> u32 {
        self.header.version
    }

    fn read_span(&self, offset: u64, len: u64) -> Result<Cow<'_, [u8]>> {
        match &self.backing {
            Backing::Memory(b) => Ok(Cow::Borrowed(&b[offset as usize..(offset + len) as usize])),
            Backing::File(f, window) => {
                let mut w = window
                    .lock()
                    .map_err(|_| Error::request(&self.name, "a reader thread failed"))?;
                let buf = w
                    .read(f, offset, len as usize)
                    .map_err(|e| Error::io(&self.name, &e))?;
                Ok(Cow::Owned(buf.to_vec()))
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
        match &self.backing {
            Backing::Memory(b) => out
                .write_all(&b[offset as usize..(offset + len) as usize])
                .map_err(Error::output),
            Backing::File(f, _) => {
                use std::io::{Read, Seek, SeekFrom};
                let mut f: &File = f;
                f.seek(SeekFrom::Start(offset))
                    .map_err(|e| Error::io(&self.name, &e))?;
                let copied = std::io::copy(&mut f.take(len), out).map_err(Error::output)?;
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
