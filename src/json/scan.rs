//! A validating JSON scanner that never builds a value tree.
//!
//! It accepts exactly what JavaScript's `JSON.parse` accepts on a line that
//! Node decoded as UTF-8 (so bytes that are not UTF-8 are accepted inside
//! strings, where Node would have turned them into U+FFFD), and it reports the
//! byte spans of an object's members so that callers can look at only the
//! fields they need. Nesting is tracked with an explicit stack: no recursion,
//! so no input can overflow the call stack.

use std::ops::Range;

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

pub(crate) fn skip_ws(text: &[u8], mut pos: usize) -> usize {
    while pos < text.len() && is_ws(text[pos]) {
        pos += 1;
    }
    pos
}

fn err(offset: usize, what: &'static str) -> SyntaxError {
    SyntaxError { offset, what }
}

/// Whether `b` ends a run of plain string bytes (`"`, `\\` or a control character).
#[inline]
fn is_special(b: u8) -> bool {
    b == b'"' || b == b'\\' || b < 0x20
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// A mask with the high bit set in each byte of `w` that may be special.
/// Borrows can only mark bytes above a special one, never below, so the
/// lowest marked byte is exactly the first special byte.
#[inline]
fn special_mask(w: u64) -> u64 {
    let zero = |x: u64| x.wrapping_sub(LO) & !x & HI;
    let quote = zero(w ^ (LO * b'"' as u64));
    let backslash = zero(w ^ (LO * b'\\' as u64));
    let control = w.wrapping_sub(LO * 0x20) & !w & HI;
    quote | backslash | control
}

/// The position of the first special byte at or after `pos`, eight bytes
/// at a time (the scanner's hot loop: long strings are most of a session).
#[inline]
pub(crate) fn find_special(text: &[u8], mut pos: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    while let Some(block) = text.get(pos..pos + 16) {
        let Ok(block) = <&[u8; 16]>::try_from(block) else {
            break;
        };
        let (quote_or_backslash, control) = string_bytes(block);
        let bits = quote_or_backslash | control;
        if bits != 0 {
            return Some(pos + bits.trailing_zeros() as usize);
        }
        pos += 16;
    }
    while let Some(chunk) = text.get(pos..pos + 8) {
        let Ok(a) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let m = special_mask(u64::from_le_bytes(a));
        if m != 0 {
            return Some(pos + (m.trailing_zeros() / 8) as usize);
        }
        pos += 8;
    }
    text.get(pos..)?
        .iter()
        .position(|&b| is_special(b))
        .map(|p| pos + p)
}

/// The bytes of a 16-byte block that end a plain run inside a string: bit
/// `i` of the first mask is set when `block[i]` is `"` or `\\`, of the
/// second when it is a control character (below 0x20). With SSE2 on x86-64
/// (strings in sessions are mostly plain bytes, with an escape every ten to
/// twenty bytes).
#[inline]
pub(crate) fn string_bytes(block: &[u8; 16]) -> (u32, u32) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `sse2::string_bytes` only needs SSE2, which every x86-64
    // processor has (it is part of the architecture's baseline), and it
    // reads nothing but its argument.
    return unsafe { sse2::string_bytes(block) };
    #[cfg(not(target_arch = "x86_64"))]
    {
        let (mut special, mut control) = (0u32, 0u32);
        for (k, &x) in block.iter().enumerate() {
            special |= u32::from(x == b'"' || x == b'\\') << k;
            control |= u32::from(x < 0x20) << k;
        }
        (special, control)
    }
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

/// The [`Classes`] of each 64 bytes of `v`, in order, put in `blocks` (the
/// last block padded with `a`, of no kind); false, with `blocks` left
/// unfinished, when a byte is below 0x20. `js::Checker` reads a line this
/// way. With AVX-512 when the processor has it (one compare per byte
/// value and 64 bytes), else SSE2.
pub(crate) fn string_classes(v: &[u8], blocks: &mut Vec<Classes>) -> bool {
    blocks.clear();
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512bw") {
            // SAFETY: the processor has AVX-512BW (checked just above), and
            // the function reads nothing but `v`.
            return unsafe { avx512::string_classes(v, blocks) };
        }
        // SAFETY: as for `string_bytes`: SSE2 only, reading only `v`.
        unsafe { sse2::string_classes(v, blocks) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    classes_with(v, blocks, |b| {
        let mut c = Classes::default();
        let mut control = 0u64;
        for (k, &x) in b.iter().enumerate() {
            c.quote |= u64::from(x == b'"') << k;
            c.backslash |= u64::from(x == b'\\') << k;
            c.escapable |= u64::from(ESCAPABLE.contains(&x)) << k;
            c.u |= u64::from(x == b'u') << k;
            c.slash |= u64::from(x == b'/') << k;
            control |= u64::from(x < 0x20) << k;
        }
        (c, control)
    })
}

/// The bytes that may follow a backslash in `JSON.stringify`'s text.
const ESCAPABLE: [u8; 8] = [b'"', b'\\', b'b', b'f', b'n', b'r', b't', b'u'];

/// [`string_classes`] with `classes` for one block (its classes and its
/// control characters).
#[inline(always)]
fn classes_with(
    v: &[u8],
    blocks: &mut Vec<Classes>,
    classes: impl Fn(&[u8; 64]) -> (Classes, u64),
) -> bool {
    let mut chunks = v.chunks_exact(64);
    let mut control = 0u64;
    for block in &mut chunks {
        let Ok(block) = <&[u8; 64]>::try_from(block) else {
            return false;
        };
        let (c, ctl) = classes(block);
        blocks.push(c);
        control |= ctl;
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut block = [b'a'; 64];
        block[..rest.len()].copy_from_slice(rest);
        let (c, ctl) = classes(&block);
        blocks.push(c);
        control |= ctl;
    }
    control == 0
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    #[target_feature(enable = "avx512bw")]
    pub(super) fn string_classes(v: &[u8], blocks: &mut Vec<super::Classes>) -> bool {
        super::classes_with(v, blocks, |block| {
            // SAFETY: `block` is 64 readable bytes; no alignment needed.
            let x = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
            let eq = |c: u8| _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(c as i8));
            let quote = eq(b'"');
            let backslash = eq(b'\\');
            let u = eq(b'u');
            let escapable = super::ESCAPABLE[2..7]
                .iter()
                .fold(quote | backslash | u, |m, &c| m | eq(c));
            let control = _mm512_cmplt_epu8_mask(x, _mm512_set1_epi8(0x20));
            (
                super::Classes {
                    quote,
                    backslash,
                    escapable,
                    u,
                    slash: eq(b'/'),
                },
                control,
            )
        })
    }
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::*;

    /// The quote, backslash and control-character lanes of `x`.
    #[inline]
    #[target_feature(enable = "sse2")]
    fn lanes(x: __m128i) -> (__m128i, __m128i, __m128i) {
        let quote = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'\\' as i8));
        // x <= 0x1f, unsigned: min(x, 0x1f) == x.
        let control = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x);
        (quote, backslash, control)
    }

    #[inline]
    #[target_feature(enable = "sse2")]
    fn load(b: &[u8; 16]) -> __m128i {
        // SAFETY: `b` is 16 readable bytes; the load needs no alignment.
        unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
    }

    #[inline]
    #[target_feature(enable = "sse2")]
    pub(super) fn string_bytes(block: &[u8; 16]) -> (u32, u32) {
        let (quote, backslash, control) = lanes(load(block));
        (
            _mm_movemask_epi8(_mm_or_si128(quote, backslash)) as u32,
            _mm_movemask_epi8(control) as u32,
        )
    }

    #[target_feature(enable = "sse2")]
    pub(super) fn string_classes(v: &[u8], blocks: &mut Vec<super::Classes>) -> bool {
        super::classes_with(v, blocks, |block| {
            let mut c = super::Classes::default();
            let mut control = 0u64;
            for (k, quarter) in block.chunks_exact(16).enumerate() {
                if let Ok(quarter) = <&[u8; 16]>::try_from(quarter) {
                    let x = load(quarter);
                    let (quote, backslash, ctl) = lanes(x);
                    let bits = |m: __m128i| u64::from(_mm_movemask_epi8(m) as u16) << (16 * k);
                    let eq = |ch: u8| _mm_cmpeq_epi8(x, _mm_set1_epi8(ch as i8));
                    let u = eq(b'u');
                    let escapable = super::ESCAPABLE[2..7]
                        .iter()
                        .fold(_mm_or_si128(_mm_or_si128(quote, backslash), u), |m, &ch| {
                            _mm_or_si128(m, eq(ch))
                        });
                    c.quote |= bits(quote);
                    c.backslash |= bits(backslash);
                    c.escapable |= bits(escapable);
                    c.u |= bits(u);
                    c.slash |= bits(eq(b'/'));
                    control |= bits(ctl);
                }
            }
            (c, control)
        })
    }
}

/// Scan a string starting at its opening quote; return the offset after the closing quote.
pub(crate) fn scan_string(text: &[u8], start: usize) -> Result<usize, SyntaxError> {
    debug_assert_eq!(text.get(start), Some(&b'"'));
    let mut pos = start + 1;
    loop {
        // Fast skip to the next byte that needs attention.
        pos = find_special(text, pos).ok_or_else(|| err(text.len(), "unterminated string"))?;
        match text[pos] {
            b'"' => return Ok(pos + 1),
            b'\\' => {
                let esc = *text
                    .get(pos + 1)
                    .ok_or_else(|| err(pos, "unterminated string"))?;
                match esc {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => pos += 2,
                    b'u' => {
                        let hex = text
                            .get(pos + 2..pos + 6)
                            .ok_or_else(|| err(pos, "bad \\u escape"))?;
                        if !hex.iter().all(u8::is_ascii_hexdigit) {
                            return Err(err(pos, "bad \\u escape"));
                        }
                        pos += 6;
                    }
                    _ => return Err(err(pos, "bad escape")),
                }
            }
            _ => return Err(err(pos, "control character in string")),
        }
    }
}

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

/// [`validate`] and, when the value is an object, its members in the same
/// pass (one scan instead of two); errors are exactly [`validate`]'s.
/// `Ok(None)` for valid JSON that is not an object.
#[allow(clippy::type_complexity)]
pub fn validate_object(text: &[u8]) -> Result<Option<(Range<usize>, Vec<Member>)>, SyntaxError> {
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

/// The members of the object whose text is `text[range]` (which must be a
/// valid object, e.g. from [`validate`]), in order, duplicates included.
pub fn members(text: &[u8], range: Range<usize>) -> Result<Vec<Member>, SyntaxError> {
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
    fn find_special_finds_the_first() {
        let mut t = vec![b'a'; 100];
        for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
            for at in 0..100 {
                let mut u = t.clone();
                u[at] = special;
                for from in 0..=at {
                    assert_eq!(find_special(&u, from), Some(at));
                }
            }
        }
        t.extend_from_slice("é你好🙂\x7f\u{80}".as_bytes());
        assert_eq!(find_special(&t, 0), None);
        // Every byte value, in the vector path (32 bytes) and the tail.
        for b in 0..=255u8 {
            for len in [3, 8, 16, 32, 47] {
                let u = vec![b; len];
                let want = is_special(b).then_some(0);
                assert_eq!(find_special(&u, 0), want, "byte {b:#x}, {len} bytes");
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
    fn members_report_spans() {
        let t = br#"{"a":1, "b" : {"c":[2]} ,"a":"x"}"#;
        let r = validate(t).unwrap();
        let m = members(t, r).unwrap();
        assert_eq!(m.len(), 3);
        assert_eq!(&t[m[1].value.clone()], br#"{"c":[2]}"#);
        assert_eq!(&t[m[2].key.clone()], br#""a""#);
    }

    /// Both x86-64 classifiers (SSE2 always, AVX-512 where the processor
    /// has it) against a byte-by-byte one, on random lines of every length
    /// up to three blocks (the padded last block included).
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn string_classes_agree_with_the_bytes() {
        let alphabet = b"\"\\/ubfnrtxa\x20\x7f\x80\xff\x00\x1f";
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut sse = Vec::new();
        let mut avx = Vec::new();
        for n in 0..200 {
            // Every other line without control characters (those end the
            // classification early).
            let kinds = if n % 2 == 0 { 14 } else { alphabet.len() };
            let v: Vec<u8> = (0..n)
                .map(|_| alphabet[(next() % kinds as u64) as usize])
                .collect();
            let mut want = Vec::new();
            for block in v.chunks(64) {
                let mut c = Classes::default();
                for (k, &x) in block.iter().enumerate() {
                    c.quote |= u64::from(x == b'"') << k;
                    c.backslash |= u64::from(x == b'\\') << k;
                    c.escapable |= u64::from(ESCAPABLE.contains(&x)) << k;
                    c.u |= u64::from(x == b'u') << k;
                    c.slash |= u64::from(x == b'/') << k;
                }
                want.push(c);
            }
            let clean = v.iter().all(|&x| x >= 0x20);
            // SAFETY: SSE2 is part of every x86-64 processor.
            let ok = unsafe { sse2::string_classes(&v, &mut sse) };
            assert_eq!(ok, clean, "{v:?}");
            if clean {
                assert_eq!(sse, want, "{v:?}");
            }
            sse.clear();
            if std::arch::is_x86_feature_detected!("avx512bw") {
                // SAFETY: checked just above.
                let ok = unsafe { avx512::string_classes(&v, &mut avx) };
                assert_eq!(ok, clean, "{v:?}");
                if clean {
                    assert_eq!(avx, want, "{v:?}");
                }
                avx.clear();
            }
        }
    }
}
