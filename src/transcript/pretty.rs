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
    indent(&canon)
}

/// [`pretty`] of a text that is already `JSON.stringify`'s (a value in a
/// message's JSON, `context::message_json`): not checked or rewritten
/// again (those two passes were half of a tool call's arguments' time).
pub fn pretty_canonical(json: &[u8]) -> String {
    if max_depth(json) >= js::MAX_DEPTH {
        return clean(&String::from_utf8_lossy(json));
    }
    indent(json)
}

/// The indented text of `canon`, `JSON.stringify`'s text of a value.
fn indent(canon: &[u8]) -> String {
    let mut out = Vec::with_capacity(canon.len() * 2);
    let mut depth = 0usize;
    let mut strings = Strings::default();
    let nl = |out: &mut Vec<u8>, d: usize| {
        out.push(b'\n');
        out.resize(out.len() + d * 2, b' ');
    };
    let mut i = 0;
    while i < canon.len() {
        if strings.open && !strings.escaped {
            // The plain run of a string is copied at once.
            let end = plain_run(canon, i);
            out.extend_from_slice(&canon[i..end]);
            i = end;
            if i == canon.len() {
                break;
            }
        }
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
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Where the run of string bytes from `i` that need no look ends: at the
/// next quote, backslash, DEL or 0xC2 (which leads the C1 controls), or
/// at the end. Looked at 32 bytes at a time, without an early exit inside
/// a block, so that a release build uses vector instructions.
#[inline]
fn plain_run(b: &[u8], i: usize) -> usize {
    let stop =
        |c: u8| (c == b'"') as u8 | (c == b'\\') as u8 | (c == 0x7f) as u8 | (c == 0xc2) as u8;
    let mut at = i;
    // Short strings (most keys) end in the first block: looked at
    // directly.
    while at < b.len() && at < i + 16 {
        if stop(b[at]) != 0 {
            return at;
        }
        at += 1;
    }
    for block in b[at..].chunks_exact(32) {
        if block.iter().fold(0u8, |a, &c| a | stop(c)) != 0 {
            break;
        }
        at += 32;
    }
    while at < b.len() && stop(b[at]) == 0 {
        at += 1;
    }
    at
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
    let mut i = 0;
    while i < json.len() {
        if strings.open && !strings.escaped {
            i = plain_run(json, i);
            if i == json.len() {
                break;
            }
        }
        let c = json[i];
        i += 1;
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

    #[test]
    fn long_strings_keep_their_escapes_and_quotes() {
        for at in [0, 1, 30, 31, 32, 33, 63, 64, 65, 100] {
            let x = "x".repeat(at);
            let json = format!(r#"{{"k":"{x}\"{x}\\","a":["{x}é{x}\u0085\u007f"]}}"#);
            let want = format!(
                "{{\n  \"k\": \"{x}\\\"{x}\\\\\",\n  \"a\": [\n    \"{x}é{x}\\u0085\\u007f\"\n  ]\n}}"
            );
            assert_eq!(pretty(json.as_bytes()), want, "{at}");
        }
    }
}
