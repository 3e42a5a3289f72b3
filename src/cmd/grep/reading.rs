//! Reading a session for `pi-grep`: a file a chunk at a time, standard
//! input whole, with the line limit every tool keeps.

use crate::error::Diagnostic;
use crate::store::Source;
use std::io::Read;

/// A session's bytes as they are read: all of stdin at once, a file a
/// chunk at a time (so that each chunk is searched while the processor's
/// cache still holds it, and memory is bounded by the longest line, not
/// the file).
pub(super) struct Reading {
    pub(super) file: Option<std::fs::File>,
    /// `buf[..filled]` has been read and not let go; the rest is room,
    /// zeroed once, when the buffer grew.
    pub(super) buf: Vec<u8>,
    pub(super) filled: usize,
    /// Where `buf[0]` is in the file.
    pub(super) base: u64,
    pub(super) eof: bool,
    pub(super) mtime: Option<std::time::SystemTime>,
}

/// Bytes read from a file at a time.
pub(super) const READ_CHUNK: usize = 128 << 10;

impl Reading {
    /// Start reading `src` (called `name`) into `buf` (a buffer kept
    /// between files, so that its pages are not faulted in afresh for
    /// every file). Standard input is read whole, as every tool reads it
    /// (`session::read_stream`: no further than a line longer than the
    /// limit).
    /// `mtime`: whether the file's modification time is wanted (for
    /// `--since`/`--until`: a `stat` a file less without it).
    pub(super) fn open(
        src: &Source,
        name: &str,
        buf: Vec<u8>,
        mtime: bool,
    ) -> Result<Reading, Diagnostic> {
        match src {
            Source::Unresolved(d) => Err(d.clone()),
            Source::Stdin => {
                let buf = crate::session::read_stream(&mut std::io::stdin().lock(), name)
                    .map_err(|e| e.diag)?;
                Ok(Reading {
                    file: None,
                    filled: buf.len(),
                    base: 0,
                    buf,
                    eof: true,
                    mtime: None,
                })
            }
            Source::File(p) => {
                let io = |e: std::io::Error| Diagnostic::new(name, None, read_error(&e));
                let f = std::fs::File::open(p).map_err(io)?;
                // (a directory without the stat: its first read fails so)
                let mtime = match mtime {
                    true => {
                        let meta = f.metadata().map_err(io)?;
                        if meta.is_dir() {
                            return Err(io(std::io::ErrorKind::IsADirectory.into()));
                        }
                        meta.modified().ok()
                    }
                    false => None,
                };
                Ok(Reading {
                    file: Some(f),
                    buf,
                    filled: 0,
                    base: 0,
                    eof: false,
                    mtime,
                })
            }
        }
    }

    /// What has been read and not let go.
    pub(super) fn bytes(&self) -> &[u8] {
        &self.buf[..self.filled]
    }

    /// Read the next chunk onto the end of what was read (nothing at the
    /// end of the file): one `read` of up to [`READ_CHUNK`] bytes
    /// (`read_to_end` would start again from small reads at every chunk).
    pub(super) fn more(&mut self) -> std::io::Result<()> {
        let Some(f) = &mut self.file else {
            self.eof = true;
            return Ok(());
        };
        if self.buf.len() - self.filled < READ_CHUNK {
            // doubling, but not far beyond the longest line allowed
            let cap = (crate::session::max_line() as usize).saturating_add(2 * READ_CHUNK);
            let grown = (self.buf.len() * 2).min(cap).max(self.filled + READ_CHUNK);
            self.buf.resize(grown, 0);
        }
        let room = &mut self.buf[self.filled..self.filled + READ_CHUNK];
        let n = loop {
            match f.read(room) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                r => break r?,
            }
        };
        self.filled += n;
        self.eof = n == 0;
        Ok(())
    }

    /// Read all the rest, no line longer than `limit` bytes: Ok(Err(line))
    /// names the first that is, and nothing after it is read.
    pub(super) fn rest(&mut self, limit: u64) -> std::io::Result<Result<(), u64>> {
        let (mut line, mut line_start, mut from) = (1u64, 0usize, 0usize);
        loop {
            for p in memchr::memchr_iter(b'\n', &self.buf[from..self.filled]) {
                if (from + p - line_start) as u64 > limit {
                    return Ok(Err(line));
                }
                line += 1;
                line_start = from + p + 1;
            }
            if (self.filled - line_start) as u64 > limit {
                return Ok(Err(line));
            }
            if self.eof {
                return Ok(Ok(()));
            }
            from = self.filled;
            self.more()?;
        }
    }

    /// Let go of the first `n` bytes read.
    pub(super) fn consume(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        self.buf.copy_within(n..self.filled, 0);
        self.filled -= n;
        self.base += n as u64;
    }

    /// The number of the line at `offset` in the file, counted from its
    /// start (for a warning, when the lines were not counted as they
    /// went by).
    pub(super) fn line_at(&self, offset: u64) -> std::io::Result<u64> {
        let Some(f) = &self.file else {
            return Ok(
                1 + memchr::memchr_iter(b'\n', &self.bytes()[..offset as usize]).count() as u64,
            );
        };
        let mut buf = vec![0u8; READ_CHUNK];
        let (mut at, mut lines) = (0u64, 1u64);
        while at < offset {
            let want = (offset - at).min(READ_CHUNK as u64) as usize;
            let got = crate::io::read_at_most(f, &mut buf[..want], at)?;
            if got == 0 {
                break;
            }
            lines += memchr::memchr_iter(b'\n', &buf[..got]).count() as u64;
            at += got as u64;
        }
        Ok(lines)
    }

    /// Read until a whole first line has been read (or the file ends);
    /// where it ends (None: it is longer than `limit` bytes).
    pub(super) fn first_line(&mut self, limit: u64) -> std::io::Result<Option<usize>> {
        let mut from = 0;
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.bytes()[from..]) {
                return Ok((from + i <= limit as usize).then_some(from + i));
            }
            from = self.filled;
            if self.filled as u64 > limit {
                return Ok(None);
            }
            if self.eof {
                return Ok(Some(self.filled));
            }
            self.more()?;
        }
    }

    /// What was read, and the buffer.
    pub(super) fn into_bytes(mut self) -> Vec<u8> {
        self.buf.truncate(self.filled);
        self.buf
    }
}

/// What a failed open or read of a session says (a directory: "is a
/// directory", whether its `stat` or its first read found it).
pub(super) fn read_error(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::IsADirectory => "is a directory".to_string(),
        _ => crate::error::io_message(e),
    }
}
