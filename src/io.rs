//! Reading a file at offsets: positioned reads (`pread`) that several
//! readers can share on one open file, a read-ahead window for reading
//! lines again by their offsets, and a reader of a byte range; and
//! writing output ([`Out`]) with errors that keep their kind.
//!
//! Every tool that reads a session file again after loading it (to print a
//! line, to check that it has not changed, to find its last line) reads
//! through these.

use crate::error::{Error, Result};
use std::fs::File;
use std::io::{self, Read, Write};

/// One positioned read of `f` into `buf` from `offset` (`pread`: the file's
/// own position is not used, so readers can share the file); the number of
/// bytes read, 0 at the end of the file.
#[cfg(unix)]
pub fn read_at(f: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    use std::os::unix::fs::FileExt;
    f.read_at(buf, offset)
}

/// One read of `f` into `buf` from `offset` (where there is no `pread`, by
/// moving the file's position first).
#[cfg(not(unix))]
pub fn read_at(f: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    use std::io::{Seek, SeekFrom};
    let mut f = f;
    f.seek(SeekFrom::Start(offset))?;
    f.read(buf)
}

/// Read into `buf` from `offset` until it is full or the file ends; the
/// number of bytes read.
pub fn read_at_most(f: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match read_at(f, &mut buf[got..], offset + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Open `path` for reading without waiting for a writer: a FIFO is opened
/// at once (`O_NONBLOCK`), where a plain open waits until something opens
/// it for writing. The caller looks at what it opened (`metadata`) before
/// reading; reads of a regular file are not changed by the flag.
pub fn open_no_wait(path: &std::path::Path) -> io::Result<File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NONBLOCK);
    }
    o.open(path)
}

/// The text of file `path` (`-`: stdin), which must be UTF-8: a tool's
/// text argument given as a file (`what`, e.g. "the replacement", names
/// it in the errors). A regular file, a FIFO or a pipe (`<(...)`) is read,
/// to at most `limit` bytes (the text goes into one line of a session);
/// a directory or a device (`/dev/zero`, which never ends) is refused
/// before anything is read.
pub fn read_text(path: &std::path::Path, what: &str, limit: u64) -> Result<String> {
    let name = crate::name::kept_path(path).into_owned();
    let bytes = if name == "-" {
        read_bounded(io::stdin().lock(), limit).map_err(|e| Error::io("<stdin>", &e))?
    } else {
        let io_err = |e: io::Error| Error::io(&name, &e);
        let f = open_no_wait(path).map_err(io_err)?;
        let kind = f.metadata().map_err(io_err)?.file_type();
        #[cfg(unix)]
        let fifo = std::os::unix::fs::FileTypeExt::is_fifo(&kind);
        #[cfg(not(unix))]
        let fifo = false;
        let f = if kind.is_file() {
            f
        } else if fifo {
            // Read waiting for its writer, as any reader of a FIFO does
            // (opened again, a writer that came and went would be missed).
            // Until a writer opens it, a read would say end of file at once.
            wait_for_a_writer(&f).map_err(io_err)?;
            blocking(&f).map_err(io_err)?;
            f
        } else {
            return Err(Error::request(
                &name,
                format!("not a regular file or a pipe: {what} is read from a file, a pipe or `-` (stdin)"),
            ));
        };
        read_bounded(f, limit).map_err(io_err)?
    };
    let Some(bytes) = bytes else {
        return Err(Error::request(
            &name,
            format!("longer than {limit} bytes, the longest line a session may hold: {what} must fit on one line"),
        ));
    };
    String::from_utf8(bytes).map_err(|e| {
        Error::request(
            &name,
            format!(
                "not valid UTF-8 at byte {}: {what} must be text",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

/// Make reads of `f` wait for data again (clear `O_NONBLOCK`).
#[cfg(unix)]
fn blocking(f: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = f.as_raw_fd();
    // SAFETY: fcntl on a descriptor `f` owns, with no pointer arguments.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(not(unix))]
fn blocking(_: &File) -> io::Result<()> {
    Ok(())
}

/// Wait until a FIFO opened without waiting has data or a writer that
/// left: Linux's `poll` reports no hang-up to a reader that no writer
/// has joined yet, so this waits for the first writer as `open` would.
#[cfg(unix)]
fn wait_for_a_writer(f: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let mut p = libc::pollfd {
        fd: f.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    loop {
        // SAFETY: one pollfd that lives across the call.
        match unsafe { libc::poll(&mut p, 1, -1) } {
            n if n >= 0 => return Ok(()),
            _ => {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
}

#[cfg(not(unix))]
fn wait_for_a_writer(_: &File) -> io::Result<()> {
    Ok(())
}

/// All of `r`, None when it holds more than `limit` bytes (no more than
/// one byte past the limit is read).
pub(crate) fn read_bounded(r: impl Read, limit: u64) -> io::Result<Option<Vec<u8>>> {
    let mut b = Vec::new();
    r.take(limit.saturating_add(1)).read_to_end(&mut b)?;
    Ok((b.len() as u64 <= limit).then_some(b))
}

/// The error for a file that has fewer bytes than when it was read.
pub fn shrunk() -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "the file is shorter than when it was read (changed meanwhile?)",
    )
}

/// The part of a file read last, so that lines read in file order cost one
/// `pread` per window rather than one per line. The window grows (from
/// `min` up to `max` bytes, doubling) while reads go forward and shrinks
/// back to `min` when they jump; with `min == max` it keeps one size.
pub struct Window {
    start: u64,
    buf: Vec<u8>,
    size: usize,
    min: usize,
    max: usize,
}

impl Window {
    /// An empty window of `min` to `max` bytes.
    pub const fn new(min: usize, max: usize) -> Window {
        Window {
            start: 0,
            buf: Vec::new(),
            size: 0,
            min,
            max,
        }
    }

    /// The `len` bytes of `f` from `offset`, read through the window (a
    /// read of at least the window's size when they are not in it). An
    /// error ([`shrunk`]) when the file has fewer bytes.
    pub fn read(&mut self, f: &File, offset: u64, len: usize) -> io::Result<&[u8]> {
        let end = self.start + self.buf.len() as u64;
        let hit = offset >= self.start && offset.saturating_add(len as u64) <= end;
        if !hit {
            let forward = offset >= self.start && offset <= end.saturating_add(self.max as u64);
            self.size = if forward && self.size > 0 {
                (self.size * 2).min(self.max)
            } else {
                self.min
            };
            let want = len.max(self.size);
            self.buf.clear();
            self.buf.resize(want, 0);
            let got = read_at_most(f, &mut self.buf, offset)?;
            self.buf.truncate(got);
            self.start = offset;
            if got < len {
                return Err(shrunk());
            }
        }
        let from = (offset - self.start) as usize;
        Ok(&self.buf[from..from + len])
    }
}

/// A reader of `file[pos..end]` by positioned reads ([`read_at`]), so that
/// several readers share one open file.
pub struct At<'f> {
    file: &'f File,
    pos: u64,
    end: u64,
}

impl<'f> At<'f> {
    /// The bytes of `file` from `pos` to `end` (or to the end of the file).
    pub fn new(file: &'f File, pos: u64, end: u64) -> Self {
        At { file, pos, end }
    }
}

impl Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = (self.end.saturating_sub(self.pos)).min(buf.len() as u64) as usize;
        if want == 0 {
            return Ok(0);
        }
        let n = read_at(self.file, &mut buf[..want], self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

/// Lines for a batch that must not stop halfway when standard output
/// fails (pi-mv, pi-rm: a batch stopped between its steps would leave
/// forks naming files that moved): the first error is kept, later lines
/// are dropped, and the run returns the error once the work is done.
#[derive(Default)]
pub(crate) struct KeepGoing {
    first_error: std::cell::RefCell<Option<Error>>,
}

impl KeepGoing {
    /// `line` on `out`, unless an earlier line failed.
    pub(crate) fn line(&self, out: &mut dyn Out, line: &[u8]) {
        if self.first_error.borrow().is_none() {
            if let Err(e) = out.line(line) {
                *self.first_error.borrow_mut() = Some(e);
            }
        }
    }

    /// The first error writing, if any: the run's error at its end.
    pub(crate) fn result(&self) -> Result<()> {
        match self.first_error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// Writing output: every error is the tool's `<stdout>` error, and keeps
/// its [`io::ErrorKind`] (a closed pipe is matched by kind). For any
/// writer, so that the library's writers serve a `Vec<u8>` as well.
pub trait Out: Write {
    /// Write all of `b`.
    fn bytes(&mut self, b: &[u8]) -> Result<()> {
        self.write_all(b).map_err(Error::output)
    }

    /// Write `b` and a line feed.
    fn line(&mut self, b: &[u8]) -> Result<()> {
        self.write_all(b)
            .and_then(|()| self.write_all(b"\n"))
            .map_err(Error::output)
    }

    /// Formatted text (`write!`), as [`Out::bytes`].
    fn text(&mut self, args: std::fmt::Arguments<'_>) -> Result<()> {
        self.write_fmt(args).map_err(Error::output)
    }

    /// Flush what is buffered.
    fn done(&mut self) -> Result<()> {
        self.flush().map_err(Error::output)
    }

    /// Write and flush what a writing tool prints about a change before it
    /// makes the change, so that an output that fails (a full disk,
    /// `> /dev/full`) stops the tool with every file as it was. A reader
    /// that has gone (a closed pipe) does not stop it: nobody reads the
    /// output, and the change is still made.
    fn announce(&mut self, b: &[u8]) -> Result<()> {
        match self.write_all(b).and_then(|()| self.flush()) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
            Err(e) => {
                let mut err = Error::output(e);
                err.diag.message.push_str(": nothing was changed");
                Err(err)
            }
        }
    }
}

impl<W: Write + ?Sized> Out for W {}

/// The names standard input lists, each ended by a NUL (`pi-ls -0`,
/// `find -print0`; the last NUL may be missing), as SESSION arguments are
/// kept ([`crate::name::kept`]). At most 64 MiB of names are read.
pub fn nul_names_from_stdin() -> Result<Vec<String>> {
    use std::io::IsTerminal;
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Err(Error::usage(
            "-0 reads NUL-ended session names from standard input, which is a terminal: pipe them in (`pi-ls -0 ...`)",
        ));
    }
    let bytes = read_bounded(stdin.lock(), 64 << 20)
        .map_err(|e| Error::io("<stdin>", &e))?
        .ok_or_else(|| Error::request("<stdin>", "more than 64 MiB of names"))?;
    Ok(split_nul_names(&bytes))
}

/// NUL-ended names, empty ones skipped.
pub(crate) fn split_nul_names(bytes: &[u8]) -> Vec<String> {
    use std::os::unix::ffi::OsStrExt;
    bytes
        .split(|&b| b == 0)
        .filter(|n| !n.is_empty())
        .map(|n| crate::name::kept(std::ffi::OsStr::from_bytes(n)).into_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_read_what_the_file_holds() {
        let path = std::env::temp_dir().join(format!("pi-io-window-{}", std::process::id()));
        let text: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &text).unwrap();
        let f = File::open(&path).unwrap();
        for (min, max) in [(16, 128), (64, 64), (1, 1 << 20)] {
            let mut w = Window::new(min, max);
            for (offset, len) in [
                (0, 10),
                (5, 20),
                (30, 200),
                (99_990, 10),
                (7, 0),
                (50, 5000),
            ] {
                let got = w.read(&f, offset, len).unwrap();
                assert_eq!(got, &text[offset as usize..offset as usize + len]);
            }
            let e = w.read(&f, 99_990, 11).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        }
        let mut part = Vec::new();
        At::new(&f, 10, 20).read_to_end(&mut part).unwrap();
        assert_eq!(part, &text[10..20]);
        let mut buf = [0u8; 8];
        assert_eq!(read_at_most(&f, &mut buf, 99_996).unwrap(), 4);
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn nul_names_skip_empty_ones() {
        assert_eq!(super::split_nul_names(b"a\0\0b c\0d"), ["a", "b c", "d"]);
    }
}
