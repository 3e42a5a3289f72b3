//! The lines of a session's input: split at `\n` (from memory, or from a
//! reader without copying a line that fits in one read), each at most
//! [`max_line`] bytes long, and what pi skips as blank.

use crate::error::{Error, Result};
use std::fs::File;
use std::io::Read;

/// Bytes read per `read` call while loading a file.
const LOAD_CHUNK: usize = 256 << 10;

/// A line of input as the reader sees it.
pub(super) struct RawLine<'a> {
    pub number: u64,
    pub offset: u64,
    pub bytes: &'a [u8],
}

/// Split `buf` into lines, handing each to `f`.
pub(super) fn for_each_line_in(
    buf: &[u8],
    mut f: impl FnMut(RawLine<'_>) -> Result<()>,
) -> Result<()> {
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
pub(super) fn for_each_line_read(
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

/// An entry's line too long for its length to be kept (4 GiB or more).
pub(super) const LINE_TOO_LONG: &str = "a line of 4 GiB or more: longer than this tool reads";

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
pub(super) fn too_long_words(limit: u64) -> String {
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
        let got = crate::io::read_at_most(file, &mut buf, at).map_err(|e| Error::io(name, &e))?;
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

/// Read a stream (stdin, a pipe, a FIFO, a device) to its end into memory,
/// failing as soon as one line is longer than [`max_line`] (so `/dev/zero`
/// costs at most that much).
pub fn read_stream(r: &mut impl Read, name: &str) -> Result<Vec<u8>> {
    let limit = max_line();
    let mut buf: Vec<u8> = Vec::new();
    // Where the line being read starts, and its number.
    let (mut line_start, mut line) = (0usize, 1u64);
    loop {
        if buf.capacity() - buf.len() < LOAD_CHUNK {
            // doubling, but not beyond what the line being read may still
            // take and a read (so `/dev/zero` costs the limit, not twice it)
            let left = (limit as usize).saturating_sub(buf.len() - line_start);
            let grow = buf
                .capacity()
                .max(LOAD_CHUNK)
                .min(left.saturating_add(LOAD_CHUNK));
            buf.reserve_exact(grow.max(LOAD_CHUNK));
        }
        // one read into a chunk's room, zeroed: zeroing all the spare room
        // at every read (a pipe gives 64 KB a read) made a long line's
        // reading quadratic
        let from = buf.len();
        buf.resize(from + LOAD_CHUNK, 0);
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
