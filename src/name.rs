//! File names that are not UTF-8, kept inside `String`s.
//!
//! A Unix file name is bytes. The tools carry names as `String`s (in
//! diagnostics, sources, records), so a name is kept as a string in which
//! each byte that is not part of valid UTF-8 stands as one private-use
//! code point, U+10FF80 to U+10FFFF for the bytes 0x80 to 0xFF (Python's
//! `surrogateescape` idea, with code points a Rust `String` can hold).
//! A name that really holds one of those code points has its UTF-8 bytes
//! kept the same way, so [`kept`] is one-to-one and [`bytes_of_kept`] gives
//! back exactly the name's bytes.
//!
//! Where a name is printed for programs (pi-grep `-l`, `-0`, pi-ls, pi-usage
//! `--csv`, ...) its bytes are written as they are, as ripgrep does; JSON
//! gets ripgrep's `{"bytes":"<base64>"}` for a name that is not UTF-8
//! ([`json`]); a message to a person shows such a byte as `\xNN`
//! ([`shown`]). The cost of the trick: a name must go through
//! [`path_of_kept`] (not `Path::new`) to be opened again, and a message
//! shows those private-use code points as `\xNN` wherever they come from
//! (session text holding one is shown so in a warning, not in output).

use std::borrow::Cow;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The code point that keeps the byte 0x80 (0xFF: `BASE + 0x7f`).
const BASE: u32 = 0x10_FF80;

/// Whether `c` keeps a byte.
fn is_kept(c: char) -> bool {
    c as u32 >= BASE
}

/// The code point that keeps the byte `b` (0x80 or above).
fn keep(b: u8) -> char {
    char::from_u32(BASE + u32::from(b - 0x80)).unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// A name as a string, its bytes that are not UTF-8 kept (see the module).
pub fn kept(name: &OsStr) -> Cow<'_, str> {
    let bytes = name.as_bytes();
    if let Ok(s) = std::str::from_utf8(bytes) {
        if !s.chars().any(is_kept) {
            return Cow::Borrowed(s);
        }
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if is_kept(c) {
                out.extend(c.to_string().bytes().map(keep));
            } else {
                out.push(c);
            }
        }
        out.extend(chunk.invalid().iter().map(|&b| keep(b)));
    }
    Cow::Owned(out)
}

/// [`kept`] of a path.
pub fn kept_path(p: &Path) -> Cow<'_, str> {
    kept(p.as_os_str())
}

/// The bytes of a name [`kept`] made (any other string: its UTF-8).
pub fn bytes_of_kept(s: &str) -> Cow<'_, [u8]> {
    if !s.chars().any(is_kept) {
        return Cow::Borrowed(s.as_bytes());
    }
    let mut out = Vec::with_capacity(s.len());
    let mut buf = [0u8; 4];
    for c in s.chars() {
        match is_kept(c) {
            true => out.push((c as u32 - BASE) as u8 + 0x80),
            false => out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes()),
        }
    }
    Cow::Owned(out)
}

/// The path a name [`kept`] made names.
pub fn path_of_kept(s: &str) -> PathBuf {
    PathBuf::from(OsStr::from_bytes(&bytes_of_kept(s)))
}

/// A name for a person: each kept byte as `\xNN` (for messages).
pub fn shown(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_kept) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match is_kept(c) {
            true => out.push_str(&format!("\\x{:02x}", (c as u32 - BASE) as u8 + 0x80)),
            false => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A name as a JSON value: a string, or ripgrep's `{"bytes":"<base64>"}`
/// when its bytes are not UTF-8.
pub fn json(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len() + 2);
    match bytes_of_kept(s) {
        Cow::Borrowed(_) => crate::json::js::write_str(&mut out, s),
        Cow::Owned(b) => {
            out.extend_from_slice(b"{\"bytes\":\"");
            out.extend_from_slice(base64(&b).as_bytes());
            out.extend_from_slice(b"\"}");
        }
    }
    out
}

/// Standard base64 with padding (RFC 4648), as ripgrep's JSON writes bytes.
fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            match i <= chunk.len() {
                true => out.push(ABC[(n >> (18 - 6 * i) & 63) as usize] as char),
                false => out.push('='),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_print() {
        for name in [
            &b"plain.jsonl"[..],
            b"caf\xc3\xa9.jsonl",
            b"bad\xff\xfe\x80.jsonl",
            b"\xc3",
            "kept\u{10ff80}\u{10ffff}".as_bytes(),
        ] {
            let k = kept(OsStr::from_bytes(name));
            assert_eq!(&*bytes_of_kept(&k), name);
            assert_eq!(path_of_kept(&k).as_os_str().as_bytes(), name);
        }
        let k = kept(OsStr::from_bytes(b"a\xffb"));
        assert_eq!(shown(&k), "a\\xffb");
        assert_eq!(json(&k), b"{\"bytes\":\"Yf9i\"}");
        assert_eq!(json("a\"b"), b"\"a\\\"b\"");
        let b64 = |s: &[u8]| base64(s);
        assert_eq!(
            [b64(b""), b64(b"f"), b64(b"fo"), b64(b"foo"), b64(b"foob")],
            ["", "Zg==", "Zm8=", "Zm9v", "Zm9vYg=="]
        );
    }
}
