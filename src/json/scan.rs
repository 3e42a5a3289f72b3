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

/// Scan a string starting at its opening quote; return the offset after the closing quote.
pub(crate) fn scan_string(text: &[u8], start: usize) -> Result<usize, SyntaxError> {
    debug_assert_eq!(text.get(start), Some(&b'"'));
    let mut pos = start + 1;
    loop {
        let rest = &text[pos..];
        // Fast skip to the next byte that needs attention.
        let skip = rest
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
            .ok_or_else(|| err(text.len(), "unterminated string"))?;
        pos += skip;
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

fn scan_number(text: &[u8], start: usize) -> Result<usize, SyntaxError> {
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
    let mut stack: Vec<bool> = Vec::new();
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
            let Some(&top) = stack.last() else {
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
    fn members_report_spans() {
        let t = br#"{"a":1, "b" : {"c":[2]} ,"a":"x"}"#;
        let r = validate(t).unwrap();
        let m = members(t, r).unwrap();
        assert_eq!(m.len(), 3);
        assert_eq!(&t[m[1].value.clone()], br#"{"c":[2]}"#);
        assert_eq!(&t[m[2].key.clone()], br#""a""#);
    }
}
