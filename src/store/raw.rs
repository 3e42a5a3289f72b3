//! Spans inside JSON text that is already known to be valid (a line the
//! quick check of [`crate::json::js::Checker::valid_object`] took): values
//! are skipped by their quotes and brackets alone, a string by the next
//! quote that no odd run of backslashes escapes (one `memchr` a quote), or,
//! with the checker's [`Marks`] of the line, by its quote bits (no read of
//! the string at all), so that the big strings of a line are passed over
//! at `memchr`'s speed or faster. On text that is not valid JSON the spans
//! are meaningless but nothing panics.

use crate::json::js::Marks;
use crate::json::scan::Member;
use std::ops::Range;

/// How the strings of a valid text are skipped.
#[derive(Debug, Clone, Copy)]
pub enum Strings<'m> {
    /// `memchr` for the closing quote, and the backslashes before it
    /// counted.
    Memchr,
    /// The checker's quote bits of this very text.
    Marks(Marks<'m>),
}

impl Strings<'_> {
    /// The index after the string whose opening quote is at `open`.
    #[inline]
    fn end(&self, t: &[u8], open: usize) -> usize {
        match self {
            Strings::Memchr => string_end(t, open),
            Strings::Marks(m) => m.string_end(open).min(t.len()),
        }
    }
}

/// The index after the string whose opening quote is at `open`.
#[inline]
pub fn string_end(t: &[u8], open: usize) -> usize {
    // A short string (a key, a role) is read a byte at a time: quicker
    // than a call to memchr; a backslash sends it the general way.
    let mut p = open + 1;
    let near = t.len().min(p + 16);
    while p < near {
        match t[p] {
            b'"' => return p + 1,
            b'\\' => {
                p = open + 1;
                break;
            }
            _ => p += 1,
        }
    }
    while let Some(q) = t.get(p..).and_then(|r| memchr::memchr(b'"', r)) {
        let q = p + q;
        let run = t[open + 1..q]
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count();
        if run % 2 == 0 {
            return q + 1;
        }
        p = q + 1;
    }
    t.len()
}

#[inline]
fn ws(t: &[u8], mut p: usize) -> usize {
    while matches!(t.get(p), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        p += 1;
    }
    p
}

/// The index after the value that starts at `start`.
fn value_end(t: &[u8], start: usize, s: Strings<'_>) -> usize {
    if let Strings::Marks(m) = s {
        // the text is compact and valid: the checker's bits and walk say
        // where the value ends
        return m.value_end(t, start);
    }
    let mut p = start;
    let mut depth = 0usize;
    loop {
        match t.get(p) {
            None => return t.len(),
            Some(b'"') => {
                p = s.end(t, p);
                if depth == 0 {
                    return p;
                }
            }
            Some(b'{' | b'[') => {
                depth += 1;
                p += 1;
            }
            Some(b'}' | b']') => {
                p += 1;
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return p;
                }
            }
            Some(b',' | b':' | b' ' | b'\t' | b'\n' | b'\r') if depth > 0 => p += 1,
            Some(_) => {
                // a number or a literal
                while t.get(p).is_some_and(|b| {
                    !matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                }) {
                    p += 1;
                }
                if depth == 0 {
                    return p;
                }
            }
        }
    }
}

#[cfg(any(test, feature = "fuzzing"))]
/// The members of the object at `t[range]`, in order, duplicates
/// included (as [`crate::json::scan::members`] gives them).
pub fn members(t: &[u8], range: Range<usize>, out: &mut Vec<Member>) {
    members_by(t, range, out, Strings::Memchr)
}

/// [`members`], strings skipped by `s`.
pub fn members_by(t: &[u8], range: Range<usize>, out: &mut Vec<Member>, s: Strings<'_>) {
    out.clear();
    let end = range.end.min(t.len());
    let mut p = ws(t, range.start + 1);
    while p < end && t[p] == b'"' {
        let k = s.end(t, p);
        let v = ws(t, ws(t, k) + 1);
        let ve = value_end(t, v, s);
        out.push(Member {
            key: p..k,
            value: v..ve,
        });
        p = ws(t, ve);
        if t.get(p) != Some(&b',') {
            break;
        }
        p = ws(t, p + 1);
    }
}

/// The elements of the array at `t[range]`.
pub fn elements(t: &[u8], range: Range<usize>) -> Vec<Range<usize>> {
    elements_by(t, range, Strings::Memchr)
}

/// [`elements`], strings skipped by `s`.
pub fn elements_by(t: &[u8], range: Range<usize>, s: Strings<'_>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let end = range.end.min(t.len());
    let mut p = ws(t, range.start + 1);
    while p < end && t[p] != b']' {
        let e = value_end(t, p, s);
        out.push(p..e);
        p = ws(t, e);
        if t.get(p) != Some(&b',') {
            break;
        }
        p = ws(t, p + 1);
    }
    out
}

/// `t[range]` as an [`crate::json::Object`].
pub fn object(t: &[u8], range: Range<usize>) -> crate::json::Object<'_> {
    object_by(t, range, Strings::Memchr)
}

/// [`object`], strings skipped by `s`.
pub fn object_by<'t>(t: &'t [u8], range: Range<usize>, s: Strings<'_>) -> crate::json::Object<'t> {
    let mut members = Vec::new();
    members_by(t, range.clone(), &mut members, s);
    crate::json::Object {
        text: t,
        range,
        members,
    }
}

/// `o[key]` when it is an object; `fast`: `o`'s text is known to be valid
/// JSON, so the object is found by its quotes and brackets alone.
pub fn sub_object<'a>(
    o: &crate::json::Object<'a>,
    key: &str,
    fast: bool,
) -> Option<crate::json::Object<'a>> {
    if !fast {
        return o.object(key);
    }
    sub_object_by(o, key, Strings::Memchr)
}

/// `o[key]` when it is an object, `o`'s text known to be valid JSON and
/// its strings skipped by `s`.
pub fn sub_object_by<'a>(
    o: &crate::json::Object<'a>,
    key: &str,
    s: Strings<'_>,
) -> Option<crate::json::Object<'a>> {
    let r = o.get(key)?;
    (o.text[r.start] == b'{').then(|| object_by(o.text, r, s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{js, scan};

    /// Compact valid lines with escapes, nesting, numbers and duplicate keys.
    const LINES: &[&str] = &[
        r#"{"a":1,"b":"x\"y\\","c":[1,{"d":null},"\\\"",[]],"e":{}}"#,
        r#"{"type":"message","message":{"role":"user","content":[{"type":"text","text":"a\nb \"q\" \\n"},null],"timestamp":17}}"#,
        r#"{"k":"\u0041\\","k":-1.5e+3,"z":[true,false,null,"}",{"]":"["}]}"#,
        r#"{"role":"toolResult","content":[{"type":"text","text":"x"}],"role":"user"}"#,
        r#"{}"#,
    ];

    #[test]
    fn raw_spans_are_the_scanners() {
        // Each way of skipping strings: by memchr, and by the checker's
        // marks of the line.
        fn same(text: &[u8], r: std::ops::Range<usize>, s: Strings<'_>) {
            match text[r.start] {
                b'{' => {
                    let want = scan::members(text, r.clone()).unwrap();
                    let mut got = Vec::new();
                    members_by(text, r, &mut got, s);
                    assert_eq!(got, want, "{}", String::from_utf8_lossy(text));
                    for m in want {
                        same(text, m.value, s);
                    }
                }
                b'[' => {
                    let want = scan::elements(text, r.clone()).unwrap();
                    assert_eq!(elements_by(text, r, s), want);
                    for e in want {
                        same(text, e, s);
                    }
                }
                _ => assert_eq!(value_end(text, r.start, s), r.end),
            }
        }
        // and the lines again with long strings, so that strings cross the
        // checker's 64-byte blocks
        let long = "\\\\\\\"x".repeat(40);
        let mut lines: Vec<String> = LINES.iter().map(|l| l.to_string()).collect();
        lines.extend(
            LINES
                .iter()
                .map(|l| l.replace("\"x", &format!("\"{long}x"))),
        );
        lines.push(r#"{"":"","a":["",{"":""}],"b":""}"#.to_string());
        for l in &lines {
            let t = l.as_bytes();
            let mut c = js::Checker::new();
            assert!(c.valid_object(t).is_some(), "{l}");
            same(t, 0..t.len(), Strings::Memchr);
            same(t, 0..t.len(), Strings::Marks(c.marks()));
        }
    }
}
