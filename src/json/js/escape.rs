//! JSON string literals: their escapes decoded (to UTF-8, or to
//! JavaScript's UTF-16 code units), and strings written with the escapes
//! `JSON.stringify` makes.

use std::borrow::Cow;
use std::ops::Range;

/// One UTF-16 code unit or scalar decoded from raw string content.
fn for_each_unit(raw: &[u8], mut f: impl FnMut(Unit<'_>)) {
    let mut i = 0;
    while i < raw.len() {
        // Run of plain bytes.
        let run_end = memchr::memchr(b'\\', &raw[i..]).map_or(raw.len(), |p| i + p);
        if run_end > i {
            f(Unit::Bytes(&raw[i..run_end]));
            i = run_end;
            continue;
        }
        // An escape at i.
        let e = raw[i + 1];
        i += 2;
        let unit: u16 = match e {
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => 0x0a,
            b'r' => 0x0d,
            b't' => 0x09,
            b'u' => {
                let h = hex4(&raw[i..i + 4]);
                i += 4;
                h
            }
            other => other as u16,
        };
        if (0xD800..0xDC00).contains(&unit)
            && raw.len() >= i + 6
            && raw[i] == b'\\'
            && raw[i + 1] == b'u'
        {
            let low = hex4(&raw[i + 2..i + 6]);
            if (0xDC00..0xE000).contains(&low) {
                i += 6;
                let c = 0x10000 + (((unit as u32) - 0xD800) << 10) + (low as u32 - 0xDC00);
                f(Unit::Char(char::from_u32(c).unwrap_or('\u{FFFD}')));
                continue;
            }
        }
        match char::from_u32(unit as u32) {
            Some(c) => f(Unit::Char(c)),
            None => f(Unit::LoneSurrogate(unit)),
        }
    }
}

enum Unit<'a> {
    /// Bytes without escapes, as they stood (maybe not UTF-8).
    Bytes(&'a [u8]),
    Char(char),
    LoneSurrogate(u16),
}

fn hex4(h: &[u8]) -> u16 {
    h.iter().fold(0u16, |acc, &b| {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            _ => b - b'A' + 10,
        };
        acc << 4 | d as u16
    })
}

/// Write the raw content of a JSON string (between the quotes, valid) the
/// way `JSON.stringify` writes the decoded string, quotes included.
pub fn write_raw_string(out: &mut Vec<u8>, raw: &[u8]) {
    out.push(b'"');
    for_each_unit(raw, |u| match u {
        Unit::Bytes(b) => match simdutf8::basic::from_utf8(b) {
            // Plain bytes hold no quote, backslash or control character
            // (the scanner rejected those), so they are copied as they are.
            Ok(_) => out.extend_from_slice(b),
            Err(_) => out.extend_from_slice(String::from_utf8_lossy(b).as_bytes()),
        },
        Unit::Char(c) => write_char(out, c),
        Unit::LoneSurrogate(u) => {
            out.extend_from_slice(format!("\\u{u:04x}").as_bytes());
        }
    });
    out.push(b'"');
}

fn write_char(out: &mut Vec<u8>, c: char) {
    match c {
        '"' => out.extend_from_slice(b"\\\""),
        '\\' => out.extend_from_slice(b"\\\\"),
        '\u{08}' => out.extend_from_slice(b"\\b"),
        '\u{0c}' => out.extend_from_slice(b"\\f"),
        '\n' => out.extend_from_slice(b"\\n"),
        '\r' => out.extend_from_slice(b"\\r"),
        '\t' => out.extend_from_slice(b"\\t"),
        c if (c as u32) < 0x20 => out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes()),
        c => {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
}

/// Write a Rust string as `JSON.stringify` would.
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    for c in s.chars() {
        write_char(out, c);
    }
    out.push(b'"');
}

/// Decode the JSON string at `text[range]` (quotes included). Lone
/// surrogates become U+FFFD, as do bytes that are not UTF-8.
pub fn decode_string(text: &[u8], range: Range<usize>) -> Cow<'_, str> {
    let raw = &text[range.start + 1..range.end - 1];
    if memchr::memchr(b'\\', raw).is_none() {
        return match simdutf8::basic::from_utf8(raw) {
            Ok(s) => Cow::Borrowed(s),
            Err(_) => String::from_utf8_lossy(raw),
        };
    }
    let mut s = String::with_capacity(raw.len());
    for_each_unit(raw, |u| match u {
        Unit::Bytes(b) => match simdutf8::basic::from_utf8(b) {
            Ok(t) => s.push_str(t),
            Err(_) => s.push_str(&String::from_utf8_lossy(b)),
        },
        Unit::Char(c) => s.push(c),
        Unit::LoneSurrogate(_) => s.push('\u{FFFD}'),
    });
    Cow::Owned(s)
}

/// The JSON string at `text[range]` (quotes included) as JavaScript's
/// UTF-16 code units: lone surrogates kept, bytes that are not UTF-8 as
/// U+FFFD (as Node's UTF-8 decoder reads them).
pub fn decode_utf16(text: &[u8], range: Range<usize>) -> Vec<u16> {
    let raw = &text[range.start + 1..range.end - 1];
    let mut out = Vec::with_capacity(raw.len());
    for_each_unit(raw, |u| match u {
        Unit::Bytes(b) => match simdutf8::basic::from_utf8(b) {
            Ok(t) => out.extend(t.encode_utf16()),
            Err(_) => out.extend(String::from_utf8_lossy(b).encode_utf16()),
        },
        Unit::Char(c) => {
            let mut buf = [0u16; 2];
            out.extend_from_slice(c.encode_utf16(&mut buf));
        }
        Unit::LoneSurrogate(u) => out.push(u),
    });
    out
}

/// Write a JavaScript string (UTF-16 code units) as `JSON.stringify` does:
/// lone surrogates as `\uXXXX` escapes.
pub fn write_utf16(out: &mut Vec<u8>, s: &[u16]) {
    out.push(b'"');
    for r in char::decode_utf16(s.iter().copied()) {
        match r {
            Ok(c) => write_char(out, c),
            Err(e) => {
                out.extend_from_slice(format!("\\u{:04x}", e.unpaired_surrogate()).as_bytes())
            }
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use crate::json::js::canon;

    #[test]
    fn strings_like_javascript() {
        assert_eq!(canon(r#""\u0041\/\u00e9""#), "\"A/é\"");
        assert_eq!(canon(r#""\ud83d\ude00""#), "\"😀\"");
        assert_eq!(canon(r#""\ud83d""#), r#""\ud83d""#);
        assert_eq!(canon(r#""\uDE00x""#), r#""\ude00x""#);
        assert_eq!(canon(r#""\u0001\u001F\b""#), r#""\u0001\u001f\b""#);
        assert_eq!(canon("\"\u{2028}\""), "\"\u{2028}\"");
    }
}
