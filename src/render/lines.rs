//! Where `pi-tree` (and `pi-path --leaves`) get the lines of the entries
//! they print: through the session, or straight from the session file
//! opened again (read through a window, lent without a copy).

use crate::entry::Entry;
use crate::error::{Error, Result};
use crate::io::{read_at_most, Window};
use crate::session::Session;
use std::borrow::Cow;
use std::fs::File;

/// Where rendering gets the bytes of entry `i` as pi holds them.
pub(crate) trait LineSource {
    fn line(&mut self, i: usize) -> Result<Cow<'_, [u8]>>;
}

/// Through the session (stdin, an old version to migrate).
pub(crate) struct SessionLines<'s>(pub(crate) &'s Session);

impl LineSource for SessionLines<'_> {
    fn line(&mut self, i: usize) -> Result<Cow<'_, [u8]>> {
        self.0.line(i)
    }
}

/// A current-version session file opened again, when it still starts
/// with the header the session was read with (pi only appends to it; a
/// line the load did not prove canonical is checked again as JSON when
/// printed).
pub(crate) fn reopen(s: &Session) -> Option<File> {
    if s.version() < crate::migrate::CURRENT_VERSION || s.memory().is_some() {
        return None;
    }
    let path = s.path()?;
    // Not a FIFO or a device: opening one again could block or read
    // something else.
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let header = s.raw_header().ok()?;
    let f = File::open(path).ok()?;
    let mut buf = vec![0u8; header.len()];
    let got = read_at_most(&f, &mut buf, s.header.offset).ok()?;
    (got == header.len() && buf == header[..]).then_some(f)
}

/// The lines of `s` from `file` (the session file opened again, see
/// [`reopen`]) or, without one, through the session.
pub(crate) fn line_source<'a>(s: &'a Session, file: Option<&'a File>) -> Box<dyn LineSource + 'a> {
    match file {
        Some(f) => Box::new(FileLines::new(f, &s.entries, &s.name)),
        None => Box::new(SessionLines(s)),
    }
}

/// Lines read straight from the file through a window of
/// [`FileLines::WINDOW`] bytes (the tree's order is mostly file order),
/// lent without a copy.
pub(crate) struct FileLines<'a> {
    file: &'a File,
    entries: &'a [Entry],
    name: &'a str,
    window: Window,
}

impl<'a> FileLines<'a> {
    /// One size: the window neither grows nor shrinks.
    const WINDOW: usize = 64 << 10;

    pub(crate) fn new(file: &'a File, entries: &'a [Entry], name: &'a str) -> Self {
        FileLines {
            file,
            entries,
            name,
            window: Window::new(Self::WINDOW, Self::WINDOW),
        }
    }
}

impl LineSource for FileLines<'_> {
    fn line(&mut self, i: usize) -> Result<Cow<'_, [u8]>> {
        let e = &self.entries[i];
        let (offset, len) = (e.offset(), e.byte_len() as usize);
        match self.window.read(self.file, offset, len) {
            Ok(b) => Ok(Cow::Borrowed(b)),
            Err(err) => Err(Error::io(self.name, &err)),
        }
    }
}
