//! JavaScript's string semantics, in one place: the white space of
//! `trim()`, lengths and cuts in UTF-16 code units, `toLowerCase()`,
//! `localeCompare()` (for the names pi sorts), and
//! `String(value)` of a JSON value (as a Rust string, as UTF-16 code
//! units, or into a [`JsText`], the inside of the JSON string a template
//! literal makes).

use super::escape::{decode_string, decode_utf16, write_raw_string, write_str};
use super::number::{number_string, write_number_text};
use crate::json::scan::{self, SyntaxError};
use std::ops::Range;

/// Whether a UTF-16 code unit is white space or a line terminator to
/// JavaScript's `trim()` and `split(/\s/)` (ECMAScript's WhiteSpace and
/// LineTerminator, U+FEFF included).
#[inline]
pub fn is_space_unit(u: u16) -> bool {
    matches!(
        u,
        0x09..=0x0d
            | 0x20
            | 0xa0
            | 0x1680
            | 0x2000..=0x200a
            | 0x2028
            | 0x2029
            | 0x202f
            | 0x205f
            | 0x3000
            | 0xfeff
    )
}

/// [`is_space_unit`] for a character (all of that white space is in the
/// Basic Multilingual Plane).
#[inline]
pub fn is_space(c: char) -> bool {
    u16::try_from(u32::from(c)).is_ok_and(is_space_unit)
}

/// JavaScript's `s.trim()`.
pub fn trim(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// JavaScript's `s.trim()` on UTF-16 code units.
pub fn trim_utf16(s: &[u16]) -> &[u16] {
    let start = s.iter().position(|&u| !is_space_unit(u)).unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|&u| !is_space_unit(u))
        .map_or(start, |e| e + 1);
    &s[start..end.max(start)]
}

/// JavaScript's `s.length`: UTF-16 code units.
pub fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// JavaScript's `s.slice(0, n)`: the first `n` UTF-16 code units (a pair
/// cut in two leaves a lone surrogate, which Node writes as U+FFFD).
pub fn slice(s: &str, n: usize) -> String {
    // A character has at least as many bytes as UTF-16 units.
    if s.len() <= n {
        return s.to_string();
    }
    let mut units = 0;
    for (at, c) in s.char_indices() {
        let u = c.len_utf16();
        if units + u > n {
            let mut out = String::with_capacity(at + 3);
            out.push_str(&s[..at]);
            if units < n {
                out.push('\u{FFFD}');
            }
            return out;
        }
        units += u;
    }
    s.to_string()
}

/// JavaScript's `s.toLowerCase()`: Unicode's default lower case mapping
/// with its special cases (a final sigma, `İ`), which Rust's
/// `to_lowercase` follows too.
pub fn to_lower_case(s: &str) -> String {
    s.to_lowercase()
}

/// `String.prototype.localeCompare` in the root locale, for the names pi
/// compares (ASCII file names): ICU's order of punctuation, then digits,
/// then letters without regard to case; then lower case before upper case.
/// Other characters follow, by code point.
pub fn locale_compare(a: &str, b: &str) -> std::cmp::Ordering {
    const ORDER: &[u8] =
        b" _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789aAbBcCdDeEfFgGhHiIjJkKlLmMnNoOpPqQrRsStTuUvVwWxXyYzZ";
    fn primary(c: char) -> u32 {
        if c.is_ascii() && !c.is_ascii_control() {
            let l = c.to_ascii_lowercase() as u8;
            match ORDER.iter().position(|&o| o == l) {
                Some(p) => p as u32,
                None => c as u32,
            }
        } else {
            0x100 + c as u32
        }
    }
    let pa = a.chars().map(primary);
    let pb = b.chars().map(primary);
    pa.cmp(pb).then_with(|| {
        let ta = a.chars().map(|c| (c.is_ascii_uppercase(), c));
        let tb = b.chars().map(|c| (c.is_ascii_uppercase(), c));
        ta.cmp(tb)
    })
}

/// `String(object)`.
const OBJECT: &str = "[object Object]";

/// `String(value)` of a JSON value's text (`${value}`): strings as they
/// are, numbers as JavaScript prints them, objects `[object Object]`,
/// arrays joined with "," (null elements empty).
pub fn string_value(raw: &[u8]) -> String {
    match raw.first() {
        Some(b'"') => decode_string(raw, 0..raw.len()).into_owned(),
        Some(b'{') => OBJECT.into(),
        Some(b'[') => {
            let mut s = String::new();
            // Valid JSON (the caller's word): no error to report.
            let _ = pieces(raw, 0..raw.len(), |p| {
                match p {
                    Piece::Str(r) => s.push_str(&decode_string(raw, r)),
                    Piece::Comma => s.push(','),
                    Piece::Object => s.push_str(OBJECT),
                    Piece::Number(v) | Piece::Literal(v) => s.push_str(&string_value(v)),
                }
                Ok(())
            });
            s
        }
        Some(b'-' | b'0'..=b'9') => std::str::from_utf8(raw)
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .map(number_string)
            .unwrap_or_default(),
        _ => String::from_utf8_lossy(raw).into_owned(),
    }
}

/// [`string_value`] as `Array.prototype.join` writes an element: `null`
/// is empty.
pub fn string_value_or_empty(raw: &[u8]) -> String {
    if raw == b"null" {
        String::new()
    } else {
        string_value(raw)
    }
}

/// `${obj[key]}` of a member's raw value: "undefined" when it is absent.
pub fn template(raw: Option<&[u8]>) -> String {
    raw.map(string_value).unwrap_or_else(|| "undefined".into())
}

/// [`string_value_or_empty`] of the valid JSON value `text[range]`,
/// appended to `out` as JavaScript's UTF-16 code units (lone surrogates
/// kept, bytes that are not UTF-8 as U+FFFD).
pub fn string_value_or_empty_utf16(text: &[u8], range: Range<usize>, out: &mut Vec<u16>) {
    if &text[range.clone()] == b"null" {
        return;
    }
    // Valid JSON (the caller's word): no error to report.
    let _ = pieces(text, range, |p| {
        match p {
            Piece::Str(r) => out.extend(decode_utf16(text, r)),
            Piece::Comma => out.push(u16::from(b',')),
            Piece::Object => out.extend(OBJECT.encode_utf16()),
            Piece::Number(v) | Piece::Literal(v) => out.extend(string_value(v).encode_utf16()),
        }
        Ok(())
    });
}

/// A piece of `String(value)`.
enum Piece<'a> {
    /// The JSON string `text[range]` (quotes included).
    Str(Range<usize>),
    /// The `,` between two elements of an array.
    Comma,
    /// An object: `[object Object]`.
    Object,
    /// A JSON number's text.
    Number(&'a [u8]),
    /// `true`, `false`, or `null` outside an array.
    Literal(&'a [u8]),
}

/// The pieces of `String(value)` of the JSON value at `text[range]`, in
/// order: an array's string is its elements' strings joined with "," at
/// every depth (`null` inside an array is ""), so brackets vanish and
/// commas stay. One pass over the tokens, without recursion.
#[inline]
fn pieces(
    text: &[u8],
    range: Range<usize>,
    mut f: impl FnMut(Piece<'_>) -> Result<(), SyntaxError>,
) -> Result<(), SyntaxError> {
    let top = range.start;
    let mut i = range.start;
    while i < range.end {
        let c = text[i];
        match c {
            b'[' | b']' | b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b',' => {
                f(Piece::Comma)?;
                i += 1;
            }
            _ => {
                let e = scan::scan_value(text, i)?;
                match c {
                    b'"' => f(Piece::Str(i..e))?,
                    b'{' => f(Piece::Object)?,
                    b'-' | b'0'..=b'9' => f(Piece::Number(&text[i..e]))?,
                    b'n' if i != top => {}
                    _ => f(Piece::Literal(&text[i..e]))?,
                }
                i = e;
            }
        }
    }
    Ok(())
}

/// A JavaScript string being built, held as the inside of the JSON string
/// `JSON.stringify` writes for it (escapes included, no quotes).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct JsText(pub Vec<u8>);

impl JsText {
    /// Append a Rust string.
    pub fn push_str(&mut self, s: &str) {
        let mut q = Vec::with_capacity(s.len() + 2);
        write_str(&mut q, s);
        self.push_inner(&q[1..q.len() - 1]);
    }

    /// Append `String(value)` as a template literal does (`undefined` for
    /// an absent value).
    pub fn push_value(
        &mut self,
        text: &[u8],
        value: Option<Range<usize>>,
    ) -> Result<(), SyntaxError> {
        let Some(r) = value else {
            self.push_str("undefined");
            return Ok(());
        };
        // One pass over the tokens, linear in the text.
        pieces(text, r, |p| {
            match p {
                Piece::Str(s) => {
                    let mut q = Vec::new();
                    write_raw_string(&mut q, &text[s.start + 1..s.end - 1]);
                    self.push_inner(&q[1..q.len() - 1]);
                }
                Piece::Comma => self.push_inner(b","),
                Piece::Object => self.push_str(OBJECT),
                Piece::Number(n) => {
                    let mut q = Vec::new();
                    write_number_text(&mut q, n);
                    // A number JSON cannot hold (overflow) is "Infinity" in JS.
                    if q == b"null" {
                        self.push_str(if n[0] == b'-' {
                            "-Infinity"
                        } else {
                            "Infinity"
                        });
                    } else {
                        self.push_inner(&q);
                    }
                }
                // true, false, null: their JSON text is their string.
                Piece::Literal(l) => self.push_inner(l),
            }
            Ok(())
        })
    }

    /// Append the inside of a canonical JSON string. A lone high surrogate
    /// at the end followed by a lone low one makes one character, as in JS.
    fn push_inner(&mut self, inner: &[u8]) {
        if let (Some(hi), Some(lo)) = (self.trailing_surrogate(), leading_surrogate(inner)) {
            if (0xd800..0xdc00).contains(&hi) && (0xdc00..0xe000).contains(&lo) {
                let c = 0x10000 + ((hi as u32 - 0xd800) << 10) + (lo as u32 - 0xdc00);
                self.0.truncate(self.0.len() - 6);
                if let Some(ch) = char::from_u32(c) {
                    let mut b = [0u8; 4];
                    self.0.extend_from_slice(ch.encode_utf8(&mut b).as_bytes());
                }
                self.0.extend_from_slice(&inner[6..]);
                return;
            }
        }
        self.0.extend_from_slice(inner);
    }

    fn trailing_surrogate(&self) -> Option<u16> {
        let b = &self.0;
        if b.len() < 6 {
            return None;
        }
        let tail = &b[b.len() - 6..];
        // The backslash must itself be unescaped: an odd run of them.
        let run = b[..b.len() - 5]
            .iter()
            .rev()
            .take_while(|&&c| c == b'\\')
            .count();
        if run % 2 == 1 {
            surrogate_escape(tail)
        } else {
            None
        }
    }
}

fn leading_surrogate(inner: &[u8]) -> Option<u16> {
    inner.get(..6).and_then(surrogate_escape)
}

fn surrogate_escape(six: &[u8]) -> Option<u16> {
    if six.len() != 6 || six[0] != b'\\' || six[1] != b'u' || six[2] != b'd' {
        return None;
    }
    let hex = std::str::from_utf8(&six[2..]).ok()?;
    u16::from_str_radix(hex, 16).ok()
}

/// JavaScript's `Number(string)`: white space trimmed, "" is 0,
/// `0x`/`0o`/`0b` integers, `Infinity`, decimal literals; NaN for what it
/// does not read.
pub fn string_to_number(s: &str) -> f64 {
    let t = trim(s);
    if t.is_empty() {
        return 0.0;
    }
    match t {
        "Infinity" | "+Infinity" => return f64::INFINITY,
        "-Infinity" => return f64::NEG_INFINITY,
        _ => {}
    }
    let radix = match t.get(..2) {
        Some("0x" | "0X") => 16,
        Some("0o" | "0O") => 8,
        Some("0b" | "0B") => 2,
        _ => 10,
    };
    if radix != 10 {
        let digits = &t[2..];
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return f64::NAN;
        }
        if let Ok(v) = u128::from_str_radix(digits, radix) {
            return v as f64;
        }
        return digits.chars().fold(0.0, |acc, c| {
            acc * f64::from(radix) + f64::from(c.to_digit(radix).unwrap_or(0))
        });
    }
    // StrDecimalLiteral: sign, digits with at most one point (digits on
    // at least one side), an optional exponent with digits.
    let b = t.as_bytes();
    let mut k = usize::from(matches!(b[0], b'+' | b'-'));
    let int = b[k..].iter().take_while(|c| c.is_ascii_digit()).count();
    k += int;
    let mut frac = 0;
    if b.get(k) == Some(&b'.') {
        k += 1;
        frac = b[k..].iter().take_while(|c| c.is_ascii_digit()).count();
        k += frac;
    }
    if int + frac == 0 {
        return f64::NAN;
    }
    if matches!(b.get(k), Some(b'e' | b'E')) {
        k += 1;
        if matches!(b.get(k), Some(b'+' | b'-')) {
            k += 1;
        }
        let exp = b[k..].iter().take_while(|c| c.is_ascii_digit()).count();
        if exp == 0 {
            return f64::NAN;
        }
        k += exp;
    }
    if k != b.len() {
        return f64::NAN;
    }
    t.parse::<f64>().unwrap_or(f64::NAN)
}

/// Whether pi skips the line as blank (`!line.trim()`).
pub fn is_blank(bytes: &[u8]) -> bool {
    match bytes
        .iter()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c))
    {
        None => return true,
        // Any other ASCII character is not white space.
        Some(&b) if b < 0x80 => return false,
        Some(_) => {}
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => s.chars().all(is_space),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_to_numbers_like_javascript() {
        for (s, n) in [
            ("", 0.0),
            (" \u{a0}12\u{feff}\n", 12.0),
            ("0x1F", 31.0),
            ("0X1f", 31.0),
            ("0o17", 15.0),
            ("0b101", 5.0),
            ("0x20000000000001", 9007199254740992.0),
            ("+5", 5.0),
            ("-2.5e3", -2500.0),
            (".5", 0.5),
            ("5.", 5.0),
            ("+Infinity", f64::INFINITY),
            ("-Infinity", f64::NEG_INFINITY),
        ] {
            assert_eq!(string_to_number(s), n, "{s:?}");
        }
        for s in [
            "x",
            "0x",
            "-0x10",
            "1e",
            "1_000",
            "inf",
            "Infinityx",
            "+-1",
            ".",
            "1 2",
            "0xg",
        ] {
            assert!(string_to_number(s).is_nan(), "{s:?}");
        }
        assert!(string_to_number("-0").is_sign_negative());
    }

    /// `slice` is `s.slice(0, n)` as a walk of every character gives it:
    /// pairs cut in two, the cut at, before and after the end.
    #[test]
    fn slice_cuts_at_utf16_units() {
        let walk = |s: &str, n: usize| {
            let (mut out, mut units) = (String::new(), 0);
            for c in s.chars() {
                if units + c.len_utf16() > n {
                    if units < n {
                        out.push('\u{FFFD}');
                    }
                    break;
                }
                units += c.len_utf16();
                out.push(c);
            }
            out
        };
        for s in [
            "",
            "abc",
            "é界",
            "a\u{1f600}b",
            "\u{1f600}\u{1f600}",
            "日本語テキスト",
        ] {
            for n in 0..12 {
                assert_eq!(slice(s, n), walk(s, n), "{s:?} {n}");
            }
        }
    }

    #[test]
    fn white_space_and_trim() {
        for c in [
            '\t', '\n', '\u{b}', '\u{c}', '\r', ' ', '\u{a0}', '\u{2028}', '\u{feff}', '\u{3000}',
        ] {
            assert!(is_space(c), "{c:?}");
        }
        // Not JavaScript's white space (U+0085 is Rust's, U+200B neither).
        for c in ['a', '\u{85}', '\u{200b}', '\u{180e}', '\u{1f600}'] {
            assert!(!is_space(c), "{c:?}");
        }
        assert_eq!(trim("\u{feff} a b\u{3000}\n"), "a b");
        assert_eq!(trim("\u{85}a\u{85}"), "\u{85}a\u{85}");
        let u: Vec<u16> = "\u{a0} x \u{2029}".encode_utf16().collect();
        assert_eq!(trim_utf16(&u), &[u16::from(b'x')]);
        assert_eq!(trim_utf16(&[0x20, 0x20]), &[] as &[u16]);
    }

    #[test]
    fn lengths_and_slices_in_utf16() {
        assert_eq!(utf16_len("a😀é"), 4);
        assert_eq!(slice("a😀é", 1), "a");
        assert_eq!(slice("a😀é", 2), "a\u{FFFD}");
        assert_eq!(slice("a😀é", 3), "a😀");
        assert_eq!(slice("a😀é", 9), "a😀é");
        assert_eq!(to_lower_case("ÀΣ İ"), "àς i\u{307}");
    }

    #[test]
    fn compares_like_icu() {
        let mut v = vec!["ab", "aB", "Ab", "a-b", "a_b", "a1", "a.b", "a", "a b", "é"];
        v.sort_by(|a, b| locale_compare(a, b));
        assert_eq!(
            v,
            ["a", "a b", "a_b", "a-b", "a.b", "a1", "ab", "aB", "Ab", "é"]
        );
    }

    /// `String(value)` the three ways agree, with JavaScript's answers.
    #[test]
    fn string_of_a_value() {
        for (json, js) in [
            (r#""a\u00e9\n""#, "aé\n"),
            ("12", "12"),
            ("-0", "0"),
            ("1e400", "Infinity"),
            ("-1e400", "-Infinity"),
            ("0.1e1", "1"),
            ("true", "true"),
            ("null", "null"),
            (r#"{"a":[1]}"#, "[object Object]"),
            ("[]", ""),
            ("[null]", ""),
            ("[[],[]]", ","),
            (
                r#"[1, [2, ["x", null, true]], {}, 1e21]"#,
                "1,2,x,,true,[object Object],1e+21",
            ),
            (r#""\ud83d""#, "\u{FFFD}"),
        ] {
            let t = json.as_bytes();
            assert_eq!(string_value(t), js, "{json}");
            let mut v = JsText::default();
            v.push_value(t, Some(0..t.len())).unwrap();
            let mut q = b"\"".to_vec();
            q.extend_from_slice(&v.0);
            q.push(b'"');
            assert_eq!(decode_string(&q, 0..q.len()), js, "{json}");
            let mut u = Vec::new();
            string_value_or_empty_utf16(t, 0..t.len(), &mut u);
            let want = if json == "null" { "" } else { js };
            assert_eq!(String::from_utf16_lossy(&u), want, "{json}");
        }
        assert_eq!(string_value_or_empty(b"null"), "");
        assert_eq!(template(None), "undefined");
        assert_eq!(template(Some(b"[1,2]")), "1,2");
        // UTF-16 keeps a lone surrogate as JavaScript does.
        let mut u = Vec::new();
        string_value_or_empty_utf16(br#"["\ud83d",1]"#, 0..12, &mut u);
        assert_eq!(u, [0xd83d, u16::from(b','), u16::from(b'1')]);
    }

    #[test]
    fn surrogates_join() {
        let mut t = JsText::default();
        t.push_inner(b"a\\ud83d");
        t.push_inner(b"\\ude00b");
        assert_eq!(String::from_utf8(t.0).unwrap(), "a\u{1f600}b");
        let mut t = JsText::default();
        t.push_inner(b"a\\\\ud83d");
        t.push_inner(b"\\ude00");
        assert_eq!(t.0, b"a\\\\ud83d\\ude00");
    }
}
