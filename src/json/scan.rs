//! A validating JSON scanner that never builds a value tree.
//!
//! It accepts exactly what JavaScript's `JSON.parse` accepts on a line that
//! Node decoded as UTF-8 (so bytes that are not UTF-8 are accepted inside
//! strings, where Node would have turned them into U+FFFD), and it reports the
//! byte spans of an object's members so that callers can look at only the
//! fields they need. Nesting is tracked with an explicit stack: no recursion,
//! so no input can overflow the call stack.

use std::ops::Range;

pub mod simd;

/// Where a JSON text is not valid, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// Byte offset of the problem in the scanned text.
    pub offset: usize,
    pub what: &'static str,
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at byte {}", self.what, self.offset + 1)
    }
}

impl SyntaxError {
    /// How a session line of `len` bytes that failed to parse is named.
    /// One wording for every tool, so a torn last line reads the same.
    pub fn line_problem(&self, len: usize) -> String {
        if self.offset >= len {
            format!("not valid JSON: {} (a torn or truncated line?)", self.what)
        } else {
            format!("not valid JSON ({self})")
        }
    }
}

/// One `"key": value` member of an object, as byte ranges of the scanned text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The key including its quotes.
    pub key: Range<usize>,
    /// The value, without surrounding whitespace.
    pub value: Range<usize>,
}

/// The kind of a JSON value, from its first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Object,
    Array,
    String,
    Number,
    True,
    False,
    Null,
}

pub fn kind_of(value: &[u8]) -> Option<Kind> {
    Some(match value.first()? {
        b'{' => Kind::Object,
        b'[' => Kind::Array,
        b'"' => Kind::String,
        b't' => Kind::True,
        b'f' => Kind::False,
        b'n' => Kind::Null,
        b'-' | b'0'..=b'9' => Kind::Number,
        _ => return None,
    })
}

#[inline]
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// `text` without JSON white space (space, tab, CR, LF) on either side.
pub fn trim_ws(text: &[u8]) -> &[u8] {
    let start = skip_ws(text, 0);
    let end = text
        .iter()
        .rposition(|&b| !is_ws(b))
        .map_or(start, |e| e + 1);
    &text[start..end.max(start)]
}

pub(crate) fn skip_ws(text: &[u8], mut pos: usize) -> usize {
    while pos < text.len() && is_ws(text[pos]) {
        pos += 1;
    }
    pos
}

fn err(offset: usize, what: &'static str) -> SyntaxError {
    SyntaxError { offset, what }
}

/// The kinds of bytes of a 64-byte block that matter inside a string,
/// one bit per byte (bit `i` for the block's byte `i`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Classes {
    /// `"`
    pub quote: u64,
    /// `\\`
    pub backslash: u64,
    /// What may follow a backslash in `JSON.stringify`'s text:
    /// `"` `\\` `b` `f` `n` `r` `t` `u`.
    pub escapable: u64,
    /// `u`
    pub u: u64,
    /// `/` (JSON lets a backslash escape it; `JSON.stringify` never does)
    pub slash: u64,
}

/// Hand the [`Classes`] of each 64 bytes of `v` to `each`, in order (the
/// last block padded with `a`, of no kind); None when a byte is below 0x20
/// or `each` says false, else the blocks from the first to the last that
/// are not ASCII. `js::check::Checker` reads a line this way, in one pass, with
/// the process's vector unit ([`simd::for_each_block`]).
#[inline]
pub(crate) fn for_each_block<F: simd::EachBlock>(v: &[u8], each: F) -> Option<Range<usize>> {
    simd::for_each_block(v, each)
}

/// Scan a string starting at its opening quote; return the offset after
/// the closing quote. With the process's vector unit ([`simd::unit`]).
#[inline]
pub(crate) fn scan_string(text: &[u8], start: usize) -> Result<usize, SyntaxError> {
    simd::scan_string(text, start)
}

/// [`scan_string`] with `specials`, a vector unit's look at the bytes from
/// `pos` (below `text.len()`): a mask of the `"`, `\\` and control
/// characters among the next `n` bytes (bit `i` for `text[pos + i]`, none
/// at or above `n`) and `n` (at least 1). Every special byte of a block is
/// taken in turn, so that one look serves the many escapes of code and
/// diffs (a backslash every 16 bytes in real sessions). Each unit's
/// `scan_string` inlines this with its own `specials`.
#[inline(always)]
fn scan_string_by(
    text: &[u8],
    start: usize,
    specials: impl Fn(&[u8], usize) -> (u64, usize),
) -> Result<usize, SyntaxError> {
    debug_assert_eq!(text.get(start), Some(&b'"'));
    let mut pos = start + 1;
    while pos < text.len() {
        let (mut m, n) = specials(text, pos);
        let base = pos;
        pos += n;
        while m != 0 {
            let p = base + m.trailing_zeros() as usize;
            let next = match text[p] {
                b'"' => return Ok(p + 1),
                b'\\' => match text.get(p + 1) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => p + 2,
                    Some(b'u') => {
                        let hex = text
                            .get(p + 2..p + 6)
                            .ok_or_else(|| err(p, "bad \\u escape"))?;
                        if !hex.iter().all(u8::is_ascii_hexdigit) {
                            return Err(err(p, "bad \\u escape"));
                        }
                        p + 6
                    }
                    Some(_) => return Err(err(p, "bad escape")),
                    None => return Err(err(p, "unterminated string")),
                },
                _ => return Err(err(p, "control character in string")),
            };
            // Past the escape: the bits below it are done (an escaped `"`
            // or `\\` among them); an escape may end past the block.
            let done = next - base;
            m = if done >= 64 { 0 } else { m & (!0u64 << done) };
            pos = pos.max(next);
        }
    }
    Err(err(text.len(), "unterminated string"))
}

#[inline]
pub(crate) fn scan_number(text: &[u8], start: usize) -> Result<usize, SyntaxError> {
    let mut pos = start;
    let digits = |pos: &mut usize| {
        let s = *pos;
        while *pos < text.len() && text[*pos].is_ascii_digit() {
            *pos += 1;
        }
        *pos - s
    };
    if text.get(pos) == Some(&b'-') {
        pos += 1;
    }
    match text.get(pos) {
        Some(b'0') => pos += 1,
        Some(b'1'..=b'9') => {
            digits(&mut pos);
        }
        _ => return Err(err(pos, "bad number")),
    }
    if text.get(pos) == Some(&b'.') {
        pos += 1;
        if digits(&mut pos) == 0 {
            return Err(err(pos, "bad number"));
        }
    }
    if matches!(text.get(pos), Some(b'e' | b'E')) {
        pos += 1;
        if matches!(text.get(pos), Some(b'+' | b'-')) {
            pos += 1;
        }
        if digits(&mut pos) == 0 {
            return Err(err(pos, "bad number"));
        }
    }
    Ok(pos)
}

fn scan_literal(text: &[u8], start: usize, word: &'static [u8]) -> Result<usize, SyntaxError> {
    if text[start..].starts_with(word) {
        Ok(start + word.len())
    } else {
        Err(err(start, "unexpected character"))
    }
}

/// Scan one complete value starting at `start` (no leading whitespace);
/// return the offset just after it. Validates everything inside.
pub fn scan_value(text: &[u8], start: usize) -> Result<usize, SyntaxError> {
    // Stack of open containers: true = object, false = array.
    let mut stack = Nesting::default();
    let mut pos = start;
    loop {
        // Expect a value at `pos`.
        pos = skip_ws(text, pos);
        let b = *text.get(pos).ok_or_else(|| err(pos, "unexpected end"))?;
        pos = match b {
            b'{' => {
                pos = skip_ws(text, pos + 1);
                if text.get(pos) == Some(&b'}') {
                    pos + 1
                } else {
                    stack.push(true);
                    pos = expect_key(text, pos)?;
                    continue;
                }
            }
            b'[' => {
                pos = skip_ws(text, pos + 1);
                if text.get(pos) == Some(&b']') {
                    pos + 1
                } else {
                    stack.push(false);
                    continue;
                }
            }
            b'"' => scan_string(text, pos)?,
            b'-' | b'0'..=b'9' => scan_number(text, pos)?,
            b't' => scan_literal(text, pos, b"true")?,
            b'f' => scan_literal(text, pos, b"false")?,
            b'n' => scan_literal(text, pos, b"null")?,
            _ => return Err(err(pos, "unexpected character")),
        };
        // After a value: close containers or continue with the next element.
        loop {
            let Some(top) = stack.last() else {
                return Ok(pos);
            };
            pos = skip_ws(text, pos);
            match text.get(pos) {
                Some(b',') => {
                    pos += 1;
                    if top {
                        pos = expect_key(text, skip_ws(text, pos))?;
                    }
                    break;
                }
                Some(b'}') if top => {
                    stack.pop();
                    pos += 1;
                }
                Some(b']') if !top => {
                    stack.pop();
                    pos += 1;
                }
                Some(_) => return Err(err(pos, "expected , or closing bracket")),
                None => return Err(err(pos, "unexpected end")),
            }
        }
    }
}

/// The open containers (true = object), as bits while they fit in a word:
/// no allocation for the nesting of real sessions, a `Vec` beyond 64 levels.
#[derive(Default)]
struct Nesting {
    depth: usize,
    bits: u64,
    deeper: Vec<bool>,
}

impl Nesting {
    #[inline]
    fn push(&mut self, object: bool) {
        if self.depth < 64 {
            let bit = 1u64 << self.depth;
            self.bits = if object {
                self.bits | bit
            } else {
                self.bits & !bit
            };
        } else {
            self.deeper.push(object);
        }
        self.depth += 1;
    }

    #[inline]
    fn last(&self) -> Option<bool> {
        match self.depth {
            0 => None,
            d @ 1..=64 => Some(self.bits >> (d - 1) & 1 == 1),
            _ => self.deeper.last().copied(),
        }
    }

    #[inline]
    fn pop(&mut self) {
        if self.depth > 64 {
            self.deeper.pop();
        }
        self.depth = self.depth.saturating_sub(1);
    }
}

/// At a key: scan it and the colon; return the offset where the value starts.
fn expect_key(text: &[u8], pos: usize) -> Result<usize, SyntaxError> {
    if text.get(pos) != Some(&b'"') {
        return Err(err(pos, "expected a key"));
    }
    let pos = skip_ws(text, scan_string(text, pos)?);
    if text.get(pos) != Some(&b':') {
        return Err(err(pos, "expected :"));
    }
    Ok(pos + 1)
}

/// Validate a whole JSON text (one line as `JSON.parse` sees it) and return
/// the range of its single top-level value.
pub fn validate(text: &[u8]) -> Result<Range<usize>, SyntaxError> {
    let start = skip_ws(text, 0);
    let end = scan_value(text, start)?;
    let tail = skip_ws(text, end);
    if tail != text.len() {
        return Err(err(tail, "unexpected text after the value"));
    }
    Ok(start..end)
}

// `validate_object` and `members` take the quick check first; they live
// above it and this scanner, in `json` (re-exported for the store and
// pi-edit, which call them by this path).
pub use super::{members, validate_object};

/// [`validate_object`] by the scanner alone (what the quick read is held to).
#[doc(hidden)]
#[allow(clippy::type_complexity)]
pub fn validate_object_scanned(
    text: &[u8],
) -> Result<Option<(Range<usize>, Vec<Member>)>, SyntaxError> {
    let start = skip_ws(text, 0);
    if text.get(start) != Some(&b'{') {
        validate(text)?;
        return Ok(None);
    }
    let mut members = Vec::with_capacity(8);
    let mut pos = skip_ws(text, start + 1);
    let end = if text.get(pos) == Some(&b'}') {
        pos + 1
    } else {
        loop {
            // As scan_value's expect_key, keeping the key's end.
            if text.get(pos) != Some(&b'"') {
                return Err(err(pos, "expected a key"));
            }
            let key_end = scan_string(text, pos)?;
            let colon = skip_ws(text, key_end);
            if text.get(colon) != Some(&b':') {
                return Err(err(colon, "expected :"));
            }
            let vstart = skip_ws(text, colon + 1);
            let vend = scan_value(text, vstart)?;
            members.push(Member {
                key: pos..key_end,
                value: vstart..vend,
            });
            pos = skip_ws(text, vend);
            match text.get(pos) {
                Some(b',') => pos = skip_ws(text, pos + 1),
                Some(b'}') => break pos + 1,
                Some(_) => return Err(err(pos, "expected , or closing bracket")),
                None => return Err(err(pos, "unexpected end")),
            }
        }
    };
    let tail = skip_ws(text, end);
    if tail != text.len() {
        return Err(err(tail, "unexpected text after the value"));
    }
    Ok(Some((start..end, members)))
}

/// [`members`] by the scanner alone (what the quick read is held to).
pub fn members_scanned(text: &[u8], range: Range<usize>) -> Result<Vec<Member>, SyntaxError> {
    let mut out = Vec::new();
    for_each_member(text, range, |m| {
        out.push(m);
        true
    })?;
    Ok(out)
}

/// Call `f` for each member of the object at `text[range]`; stop early when
/// `f` returns false.
pub fn for_each_member(
    text: &[u8],
    range: Range<usize>,
    mut f: impl FnMut(Member) -> bool,
) -> Result<(), SyntaxError> {
    let mut pos = range.start;
    if text.get(pos) != Some(&b'{') {
        return Err(err(pos, "not an object"));
    }
    pos = skip_ws(text, pos + 1);
    if text.get(pos) == Some(&b'}') {
        return Ok(());
    }
    loop {
        let key_start = pos;
        let key_end = scan_string(text, pos)?;
        let vstart = skip_ws(text, skip_ws(text, key_end) + 1);
        let vend = scan_value(text, vstart)?;
        if !f(Member {
            key: key_start..key_end,
            value: vstart..vend,
        }) {
            return Ok(());
        }
        pos = skip_ws(text, vend);
        match text.get(pos) {
            Some(b',') => pos = skip_ws(text, pos + 1),
            Some(b'}') => return Ok(()),
            _ => return Err(err(pos, "expected , or }")),
        }
    }
}

/// The elements of the array at `text[range]` (a valid array).
pub fn elements(text: &[u8], range: Range<usize>) -> Result<Vec<Range<usize>>, SyntaxError> {
    let mut out = Vec::new();
    let mut pos = range.start;
    if text.get(pos) != Some(&b'[') {
        return Err(err(pos, "not an array"));
    }
    pos = skip_ws(text, pos + 1);
    if text.get(pos) == Some(&b']') {
        return Ok(out);
    }
    loop {
        let end = scan_value(text, pos)?;
        out.push(pos..end);
        pos = skip_ws(text, end);
        match text.get(pos) {
            Some(b',') => pos = skip_ws(text, pos + 1),
            Some(b']') => return Ok(out),
            _ => return Err(err(pos, "expected , or ]")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_what_json_parse_accepts() {
        for ok in [
            &b"{}"[..],
            b" {\"a\" : [1, -0.5e+3, true, false, null, \"x\\u00e9\\/\"]}\r",
            b"\"\xff\xfe\"",
            b"[[[[]]]]",
            b"0",
        ] {
            assert!(validate(ok).is_ok(), "{:?}", String::from_utf8_lossy(ok));
        }
    }

    #[test]
    fn rejects_what_json_parse_rejects() {
        for bad in [
            &b""[..],
            b"{",
            b"{\"a\":1,}",
            b"[1,]",
            b"01",
            b"1.",
            b"\"a\tb\"",
            b"\"\\x\"",
            b"\"\\u12g4\"",
            b"{} {}",
            b"\xef\xbb\xbf{}",
            b"NaN",
            b"[1 2]",
            b"{\"a\" 1}",
        ] {
            assert!(validate(bad).is_err(), "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn deep_nesting_does_not_recurse() {
        let mut s = vec![b'['; 1_000_000];
        s.extend(std::iter::repeat_n(b']', 1_000_000));
        assert!(validate(&s).is_ok());
    }

    #[test]
    fn validate_object_agrees_with_validate() {
        let cases: [&[u8]; 22] = [
            b"{}",
            b" { } ",
            br#"{"a":1, "b" : {"c":[2]} ,"a":"x"}"#,
            br#"{"a":1,}"#,
            br#"{"a" 1}"#,
            br#"{"a":1"#,
            br#"{"a":1 "b":2}"#,
            br#"{"a":1}x"#,
            br#"{"a":"\q"}"#,
            br#"{1:2}"#,
            b"{",
            b"[1]",
            b"\"s\"",
            b"nul",
            b"",
            br#"{"a":[1,{"b":"long string with \n escapes and \u00e9 and more text"}]}"#,
            b"{\"a\":\"tab\there\"}",
            b"{\"a\":\"0123456789abcdef0123456789abcdef\"}",
            b"{\"a\":\"0123456789abcdef0123456789abcde\"}",
            b"{\"a\":\"0123456789abcdef0123456789abcdef",
            b"{\"a\":\"\xc3\xa9\xe4\xbd\xa0 0123456789abcdef\x7f\x1f\"}",
            b"{\"k\":\"\\\"\"}",
        ];
        for c in cases {
            let v = validate(c);
            let o = validate_object(c);
            assert_eq!(
                o,
                validate_object_scanned(c),
                "{:?}",
                String::from_utf8_lossy(c)
            );
            match (&v, &o) {
                (Err(a), Err(b)) => assert_eq!(a, b, "{:?}", String::from_utf8_lossy(c)),
                (Ok(r), Ok(Some((r2, m)))) => {
                    assert_eq!(r, r2);
                    assert_eq!(*m, members(c, r.clone()).unwrap());
                }
                (Ok(r), Ok(None)) => assert_ne!(c[r.start], b'{'),
                _ => panic!("disagree on {:?}: {v:?} {o:?}", String::from_utf8_lossy(c)),
            }
        }
    }

    #[test]
    fn nesting_past_64_levels_keeps_each_kind() {
        for depth in [1, 63, 64, 65, 130] {
            let mut t = String::new();
            for i in 0..depth {
                t.push_str(if i % 3 == 0 { "{\"k\":" } else { "[" });
            }
            t.push('1');
            for i in (0..depth).rev() {
                t.push(if i % 3 == 0 { '}' } else { ']' });
            }
            assert!(validate(t.as_bytes()).is_ok(), "depth {depth}");
            // The same with one closing bracket of the wrong kind.
            for wrong in [0, depth / 2, depth - 1] {
                let mut bad = t.clone().into_bytes();
                let at = bad.len() - depth + wrong;
                bad[at] = if bad[at] == b'}' { b']' } else { b'}' };
                assert!(validate(&bad).is_err(), "depth {depth}, wrong {wrong}");
            }
        }
    }

    #[test]
    fn trims_json_white_space() {
        assert_eq!(trim_ws(b" \t{} \r\n"), b"{}");
        assert_eq!(trim_ws(b"\x0c1\x0c"), b"\x0c1\x0c");
        assert_eq!(trim_ws(b" \n "), b"");
        assert_eq!(trim_ws(b""), b"");
    }

    #[test]
    fn members_report_spans() {
        let t = br#"{"a":1, "b" : {"c":[2]} ,"a":"x"}"#;
        let r = validate(t).unwrap();
        let m = members(t, r).unwrap();
        assert_eq!(m.len(), 3);
        assert_eq!(&t[m[1].value.clone()], br#"{"c":[2]}"#);
        assert_eq!(&t[m[2].key.clone()], br#""a""#);
    }
}
