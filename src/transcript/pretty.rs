//! JSON as a transcript shows it: the `JSON.stringify` text of a value,
//! indented by two spaces, without a value tree.

use super::clean;
use crate::json::{js, scan};

/// Indent JSON text (two spaces) without a value tree; strings are
/// canonicalised first, and control characters stay (or are made) JSON
/// escapes.
pub fn pretty(json: &[u8]) -> String {
    // Too deep to re-serialize (and slow to find out): show it as it is.
    if max_depth(json) >= js::MAX_DEPTH {
        return clean(&String::from_utf8_lossy(json));
    }
    let canon = match scan::validate(json).and_then(|r| js::stringify::canonical_vec(json, r)) {
        Ok(c) => c,
        Err(_) => return clean(&String::from_utf8_lossy(json)),
    };
    let mut out = Vec::with_capacity(canon.len() * 2);
    let mut depth = 0usize;
    let mut strings = Strings::default();
    let nl = |out: &mut Vec<u8>, d: usize| {
        out.push(b'\n');
        out.resize(out.len() + d * 2, b' ');
    };
    let mut i = 0;
    while i < canon.len() {
        let c = canon[i];
        if strings.inside(c) {
            // JSON.stringify leaves DEL and the C1 controls raw: written as
            // the JSON escapes its C0 controls already are.
            let c1 = c == 0xc2 && matches!(canon.get(i + 1), Some(0x80..=0x9f));
            if c == 0x7f || c1 {
                let code = if c1 { canon[i + 1] } else { c };
                out.extend_from_slice(format!("\\u{code:04x}").as_bytes());
                i += 1 + c1 as usize;
                continue;
            }
            out.push(c);
            i += 1;
            continue;
        }
        match c {
            b'"' => {
                strings.open = true;
                out.push(c);
            }
            b'{' | b'[' => {
                let close = if c == b'{' { b'}' } else { b']' };
                if canon.get(i + 1) == Some(&close) {
                    out.push(c);
                    out.push(close);
                    i += 2;
                    continue;
                }
                out.push(c);
                depth += 1;
                nl(&mut out, depth);
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                nl(&mut out, depth);
                out.push(c);
            }
            b',' => {
                out.push(c);
                nl(&mut out, depth);
            }
            b':' => out.extend_from_slice(b": "),
            _ => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Where a byte-by-byte walk of JSON text is as to strings: the walk sets
/// `open` at a string's opening quote.
#[derive(Default)]
struct Strings {
    open: bool,
    /// The byte before was an escaping backslash.
    escaped: bool,
}

impl Strings {
    /// Whether `c` is in the open string (its closing quote included).
    #[inline]
    fn inside(&mut self, c: u8) -> bool {
        if !self.open {
            return false;
        }
        if self.escaped {
            self.escaped = false;
        } else if c == b'\\' {
            self.escaped = true;
        } else if c == b'"' {
            self.open = false;
        }
        true
    }
}

/// The deepest nesting of objects and arrays in JSON text.
fn max_depth(json: &[u8]) -> usize {
    let (mut depth, mut max, mut strings) = (0usize, 0usize, Strings::default());
    for &c in json {
        if strings.inside(c) {
            continue;
        }
        match c {
            b'"' => strings.open = true,
            b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

#[cfg(test)]
mod tests {
    use super::pretty;

    #[test]
    fn pretty_json() {
        assert_eq!(
            pretty(br#"{"a":[1,{}],"b":"x,{"}"#),
            "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": \"x,{\"\n}"
        );
        assert_eq!(
            pretty("[\"\\u001b\u{7f}\u{9b}\u{85}é\"]".as_bytes()),
            "[\n  \"\\u001b\\u007f\\u009b\\u0085é\"\n]"
        );
    }
}
