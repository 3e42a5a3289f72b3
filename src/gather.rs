//! Output gathered from this process's buffers and from a file's pages,
//! written with `writev`, so that the file's bytes are never copied
//! through this process (`pi-tree --json` prints every line of a session).
//!
//! The file is mapped read-only and the mapping is only ever handed to the
//! kernel: this process never reads it. Should the file shrink meanwhile,
//! the kernel's copy fails with `EFAULT` (no `SIGBUS`: that signal is for
//! reads in user space), reported as an error. Pages the kernel copies from
//! are dropped from the mapping every [`Gather::release_every`] bytes (a
//! 256th of the file, from 256 KiB to 4 MiB), so the process's resident
//! memory stays a small part of the file's size.

use crate::io::shrunk;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, RawFd};

/// One part of the output.
#[derive(Debug, Clone, Copy)]
pub enum Piece {
    /// `bytes[start..end]` of the batch's own buffer.
    Own { start: u32, end: u32 },
    /// `len` bytes of the file from `offset`.
    File { offset: u64, len: u32 },
}

/// A read-only mapping of the first `len` bytes of a file.
struct Map {
    ptr: *mut libc::c_void,
    len: usize,
}

impl Map {
    fn new(file: &File, len: usize) -> io::Result<Map> {
        if len == 0 {
            return Ok(Map {
                ptr: std::ptr::null_mut(),
                len: 0,
            });
        }
        // SAFETY: a fresh shared read-only mapping of an open file at an
        // address the kernel picks; it aliases no Rust object. It is never
        // dereferenced in this process (see the module's comment).
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Map { ptr, len })
    }

    /// Let go of the pages of `range` (bytes of the file) that the kernel
    /// has brought in (the page cache keeps them; only this process's
    /// resident memory shrinks).
    fn release(&self, range: std::ops::Range<u64>) {
        // Rounded out to 2 MiB: the kernel maps the pages around the one it
        // needs (fault-around, large folios), and those go too.
        const ROUND: u64 = 2 << 20;
        let start = range.start / ROUND * ROUND;
        let end = range.end.saturating_add(ROUND - 1) / ROUND * ROUND;
        let end = end.min(self.len as u64);
        if start >= end {
            return;
        }
        // SAFETY: the range lies inside our own mapping (its start rounded
        // down to 2 MiB, a multiple of the page size), which nothing in
        // this process reads; dropping its pages only means the kernel
        // faults them in again from the file when it copies from them.
        unsafe {
            libc::madvise(
                self.ptr.wrapping_byte_add(start as usize),
                (end - start) as usize,
                libc::MADV_DONTNEED,
            )
        };
    }
}

impl Drop for Map {
    fn drop(&mut self) {
        if self.len > 0 {
            // SAFETY: unmapping our own mapping, made in `Map::new`, once.
            unsafe { libc::munmap(self.ptr, self.len) };
        }
    }
}

/// Writes pieces of a buffer and of a file to a file descriptor.
pub struct Gather {
    fd: RawFd,
    map: Map,
    iov: Vec<libc::iovec>,
    /// Bytes written since the mapping's pages were last let go, and the
    /// part of the file they came from.
    since_release: u64,
    touched: std::ops::Range<u64>,
}

/// No bytes of the file yet (any piece widens it).
const UNTOUCHED: std::ops::Range<u64> = std::ops::Range {
    start: u64::MAX,
    end: 0,
};

impl Gather {
    /// Let the mapping's pages go after about this many bytes.
    pub fn release_every(&self) -> u64 {
        (self.map.len as u64 / 256).clamp(256 << 10, 4 << 20)
    }

    /// For `len` bytes of `file` (which must have at least that many) to
    /// `fd`, which stays open as long as this lives.
    pub fn new(fd: RawFd, file: &File, len: u64) -> io::Result<Gather> {
        let have = file.metadata()?.len();
        if have < len {
            return Err(shrunk());
        }
        let len = usize::try_from(len).map_err(|_| io::Error::other("file too large to map"))?;
        Ok(Gather {
            fd,
            map: Map::new(file, len)?,
            iov: Vec::new(),
            since_release: 0,
            touched: UNTOUCHED,
        })
    }

    /// Write `pieces`, whose own bytes are in `own`, in order.
    pub fn write(&mut self, own: &[u8], pieces: &[Piece]) -> io::Result<()> {
        self.iov.clear();
        for &p in pieces {
            let (base, len) = match p {
                Piece::Own { start, end } => {
                    let part = own
                        .get(start as usize..end as usize)
                        .ok_or_else(|| io::Error::other("a piece outside its buffer"))?;
                    (part.as_ptr() as *mut libc::c_void, part.len())
                }
                Piece::File { offset, len } => {
                    let end = offset.checked_add(u64::from(len));
                    if end.is_none_or(|e| e > self.map.len as u64) {
                        return Err(shrunk());
                    }
                    self.touched.start = self.touched.start.min(offset);
                    self.touched.end = self.touched.end.max(offset + u64::from(len));
                    // An address inside the mapping (checked just above),
                    // computed without reading anything there.
                    let base = self.map.ptr.wrapping_byte_add(offset as usize);
                    (base, len as usize)
                }
            };
            if len > 0 {
                self.iov.push(libc::iovec {
                    iov_base: base,
                    iov_len: len,
                });
            }
        }
        let written = write_all_vectored(self.fd, &mut self.iov)?;
        self.since_release += written;
        if self.since_release >= self.release_every() {
            self.map
                .release(std::mem::replace(&mut self.touched, UNTOUCHED));
            self.since_release = 0;
        }
        Ok(())
    }
}

/// `writev` until every byte of `iov` is written (the slices are advanced
/// in place); the number of bytes.
fn write_all_vectored(fd: RawFd, iov: &mut [libc::iovec]) -> io::Result<u64> {
    const IOV_MAX: usize = 1024;
    let mut total = 0u64;
    let mut at = 0usize;
    while at < iov.len() {
        let chunk = &iov[at..iov.len().min(at + IOV_MAX)];
        // SAFETY: every iovec names bytes that stay valid for the call: a
        // part of the caller's buffer, or of our mapping (the kernel copies
        // from it and returns EFAULT if the file no longer has those pages).
        let n = unsafe { libc::writev(fd, chunk.as_ptr(), chunk.len() as libc::c_int) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            if e.raw_os_error() == Some(libc::EFAULT) {
                return Err(shrunk());
            }
            return Err(e);
        }
        if n == 0 {
            return Err(io::Error::from(io::ErrorKind::WriteZero));
        }
        let mut n = n as usize;
        total += n as u64;
        // Skip what was written: whole slices, then part of one.
        while n > 0 {
            let Some(v) = iov.get_mut(at) else {
                break;
            };
            if n >= v.iov_len {
                n -= v.iov_len;
                at += 1;
            } else {
                v.iov_base = v.iov_base.wrapping_byte_add(n);
                v.iov_len -= n;
                n = 0;
            }
        }
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Seek, Write};
    use std::os::fd::AsRawFd;

    fn temp(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("pi-gather-{}-{name}", std::process::id()));
        let _ = std::fs::remove_file(&dir);
        dir
    }

    fn read_back(f: &mut File) -> Vec<u8> {
        let mut got = Vec::new();
        f.rewind().unwrap();
        f.read_to_end(&mut got).unwrap();
        got
    }

    /// Pieces of the buffer and of the file come out in order, more than
    /// one `writev` can take at once, across the release of pages.
    #[test]
    fn writes_pieces_in_order() {
        let (src, dst) = (temp("src"), temp("dst"));
        let text: Vec<u8> = (0..300_000u32).map(|i| b'a' + (i % 26) as u8).collect();
        std::fs::write(&src, &text).unwrap();
        let file = File::open(&src).unwrap();
        let mut out = File::options()
            .create(true)
            .truncate(true)
            .read(true)
            .write(true)
            .open(&dst)
            .unwrap();
        let mut g = Gather::new(out.as_raw_fd(), &file, text.len() as u64).unwrap();
        let own = b"<>";
        let mut pieces = Vec::new();
        let mut want = Vec::new();
        for k in 0..3000u64 {
            let (offset, len) = ((k * 97) % 299_000, (k % 50) as u32);
            pieces.push(Piece::Own { start: 0, end: 1 });
            pieces.push(Piece::File { offset, len });
            pieces.push(Piece::Own { start: 1, end: 2 });
            want.push(b'<');
            want.extend_from_slice(&text[offset as usize..offset as usize + len as usize]);
            want.push(b'>');
        }
        for _ in 0..100 {
            g.write(own, &pieces).unwrap();
        }
        let got = read_back(&mut out);
        assert_eq!(got.len(), want.len() * 100);
        assert!(got.chunks(want.len()).all(|c| c == want));
        let _ = (std::fs::remove_file(&src), std::fs::remove_file(&dst));
    }

    /// A file that shrank after it was read: an error, not a crash, and
    /// nothing past the end is printed.
    #[test]
    fn a_file_that_shrank_is_an_error() {
        let (src, dst) = (temp("shrunk"), temp("shrunk-out"));
        std::fs::write(&src, vec![b'x'; 3 * 4096]).unwrap();
        let file = File::open(&src).unwrap();
        let mut out = File::options()
            .create(true)
            .truncate(true)
            .read(true)
            .write(true)
            .open(&dst)
            .unwrap();
        let mut g = Gather::new(out.as_raw_fd(), &file, 3 * 4096).unwrap();
        File::options()
            .write(true)
            .open(&src)
            .unwrap()
            .set_len(0)
            .unwrap();
        let e = g
            .write(
                b"",
                &[Piece::File {
                    offset: 4096,
                    len: 100,
                }],
            )
            .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof, "{e}");
        assert!(read_back(&mut out).is_empty());
        // Asked for more than the file has: refused before any write.
        assert!(Gather::new(out.as_raw_fd(), &file, 1).is_err());
        out.write_all(b"still usable").unwrap();
        let _ = (std::fs::remove_file(&src), std::fs::remove_file(&dst));
    }
}
