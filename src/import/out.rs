//! The JSON an import writes: objects keep the order their members are
//! given in (pi's own order), as `JSON.stringify` writes them.

use super::value::{N, V};
use crate::json::js;
use std::borrow::Cow;
use std::io::Write as _;

/// A JSON value to write; its strings may borrow the source's.
#[derive(Clone)]
pub(crate) enum J<'a> {
    Null,
    Bool(bool),
    Num(f64),
    Str(Cow<'a, str>),
    /// A string that needs no escape: one of the source's that held none
    /// (see [`J::text`]), or a literal of this program without `"`, `\\`
    /// or a control character. Written as it is.
    Src(&'a str),
    Arr(Vec<J<'a>>),
    Obj(Vec<(&'static str, J<'a>)>),
    /// A value taken from the source as it is (its keys sorted).
    Val(serde_json::Value),
    /// The same, read without serde_json's tree (Claude Code's lines).
    Raw(V<'a>),
}

impl<'a> J<'a> {
    pub(crate) fn str(s: impl Into<Cow<'a, str>>) -> J<'a> {
        J::Str(s.into())
    }

    /// A string read by `value::parse` (or a literal): a borrowed one is
    /// the source's text between its quotes, which held no escape, and
    /// JSON allows no raw `"`, `\` or control character there, so it
    /// needs none when written (the escape check of every string was 7%
    /// of an import).
    pub(crate) fn text(s: Cow<'a, str>) -> J<'a> {
        match s {
            Cow::Borrowed(t) => J::Src(t),
            Cow::Owned(t) => J::Str(Cow::Owned(t)),
        }
    }

    /// The string this is, if it is one.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            J::Str(s) => Some(s),
            J::Src(s) => Some(s),
            _ => None,
        }
    }

    /// Append this value's JSON text to `out`.
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        match self {
            J::Null => out.extend_from_slice(b"null"),
            J::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
            J::Num(n) => js::write_number(out, *n),
            J::Str(s) => write_str(out, s),
            J::Src(s) => write_plain(out, s),
            J::Arr(items) => {
                out.push(b'[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    v.write(out);
                }
                out.push(b']');
            }
            J::Obj(members) => {
                out.push(b'{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    // Keys are this program's own names: none needs an escape.
                    write_plain(out, k);
                    out.push(b':');
                    v.write(out);
                }
                out.push(b'}');
            }
            J::Val(v) => write_value(v, out),
            J::Raw(v) => write_v(v, out),
        }
    }
}

/// A source value written as `JSON.stringify` writes it (numbers as
/// JavaScript prints them: `1.0` is `1`).
fn write_value(v: &serde_json::Value, out: &mut Vec<u8>) {
    use serde_json::Value;
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() => js::write_number(out, f),
            _ => out.extend_from_slice(n.to_string().as_bytes()),
        },
        Value::String(s) => write_str(out, s),
        Value::Array(items) => {
            out.push(b'[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(x, out);
            }
            out.push(b']');
        }
        Value::Object(m) => {
            out.push(b'{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_str(out, k);
                out.push(b':');
                write_value(x, out);
            }
            out.push(b'}');
        }
    }
}

/// A source value read by `value::parse`, written as [`write_value`]
/// writes serde_json's tree of it: keys sorted (a repeated key once, its
/// last value), numbers as JavaScript prints them (`1.0` is `1`).
pub(crate) fn write_v(v: &V<'_>, out: &mut Vec<u8>) {
    match v {
        V::Null => out.extend_from_slice(b"null"),
        V::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        // Whole numbers by their digits, as serde_json's Number prints them.
        V::Num(N::U(n)) => {
            let _ = write!(out, "{n}");
        }
        V::Num(N::I(n)) => {
            let _ = write!(out, "{n}");
        }
        V::Num(N::F(n)) => js::write_number(out, *n),
        V::Str(s) => write_cow(out, s),
        V::Arr(items) => {
            out.push(b'[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_v(x, out);
            }
            out.push(b']');
        }
        V::Obj(o) => {
            let mut members: Vec<&(Cow<str>, V)> = o.iter().collect();
            // Stable: of a repeated key, the last is last in its run.
            members.sort_by(|a, b| a.0.cmp(&b.0));
            out.push(b'{');
            let mut first = true;
            for (i, (k, x)) in members.iter().map(|m| (&m.0, &m.1)).enumerate() {
                if members.get(i + 1).is_some_and(|next| next.0 == *k) {
                    continue;
                }
                if !first {
                    out.push(b',');
                }
                first = false;
                write_cow(out, k);
                out.push(b':');
                write_v(x, out);
            }
            out.push(b'}');
        }
    }
}

/// A string of `value::V`: a borrowed one held no escape in the source
/// and needs none (see [`J::text`]); which one it is, is the point.
#[allow(clippy::ptr_arg)]
fn write_cow(out: &mut Vec<u8>, s: &Cow<'_, str>) {
    match s {
        Cow::Borrowed(t) => write_plain(out, t),
        Cow::Owned(t) => write_str(out, t),
    }
}

/// A string known to need no escape, between quotes.
fn write_plain(out: &mut Vec<u8>, s: &str) {
    out.reserve(s.len() + 2);
    out.push(b'"');
    out.extend_from_slice(s.as_bytes());
    out.push(b'"');
}

/// A string as `JSON.stringify` writes it, runs that need no escape
/// copied whole (the one escaper's output, char by char, is the slow part
/// of an import).
pub(crate) fn write_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let b = s.as_bytes();
    let mut from = 0;
    let mut i = 0;
    while i < b.len() {
        // Eight bytes a step while none needs an escape (SWAR).
        if let Some(w) = b.get(i..i + 8) {
            if !needs_escape(u64::from_le_bytes(w.try_into().unwrap_or([0; 8]))) {
                i += 8;
                continue;
            }
        }
        let c = b[i];
        i += 1;
        if c >= 0x20 && c != b'"' && c != b'\\' {
            continue;
        }
        let i = i - 1;
        out.extend_from_slice(&b[from..i]);
        from = i + 1;
        match c {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            c => out.extend_from_slice(format!("\\u{c:04x}").as_bytes()),
        }
    }
    out.extend_from_slice(&b[from..]);
    out.push(b'"');
}

/// Whether any of the eight bytes of `w` is a control character, `"` or
/// `\\` (the bytes `JSON.stringify` escapes). Never says no wrongly; it
/// may say yes for a byte above one that needs an escape (a borrow), and
/// then the byte-by-byte check decides.
fn needs_escape(w: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_of = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let control = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
    (control | zero_of(w ^ (ONES * b'"' as u64)) | zero_of(w ^ (ONES * b'\\' as u64))) != 0
}

#[cfg(test)]
mod tests {
    use super::J;

    #[test]
    fn strings_are_escaped_as_javascript_does() {
        let all: String = (0u8..0x80).map(char::from).chain("é😀".chars()).collect();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        super::write_str(&mut a, &all);
        crate::json::js::write_str(&mut b, &all);
        assert_eq!(a, b);
    }

    #[test]
    fn each_byte_is_escaped_wherever_it_falls_in_the_eight_byte_steps() {
        for c in (0u8..0x80).map(char::from).chain("é😀".chars()) {
            for (len, plain) in (0..20).flat_map(|l| [(l, true), (l, false)]) {
                for at in 0..=len {
                    // Plain filler takes the eight-byte steps; a control
                    // character beside it tests the borrows.
                    let fill = if plain { "abcdefgh" } else { "a\u{1}" };
                    let mut t: String = fill.repeat(len).chars().take(len).collect();
                    t.insert(at, c);
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    super::write_str(&mut a, &t);
                    crate::json::js::write_str(&mut b, &t);
                    assert_eq!(a, b, "{t:?}");
                }
            }
        }
    }

    #[test]
    fn members_keep_their_order_and_numbers_are_javascripts() {
        let v: serde_json::Value = serde_json::from_str(r#"{"b":1.0,"a":"\u0007"}"#).unwrap();
        let j = J::Obj(vec![("z", J::Num(2.0)), ("y", J::Val(v)), ("x", J::Null)]);
        let mut out = Vec::new();
        j.write(&mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"z":2,"y":{"a":"\u0007","b":1},"x":null}"#
        );
    }
}
