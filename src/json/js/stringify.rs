//! `JSON.stringify(JSON.parse(text))` on the text itself: members in
//! JavaScript's order (array indices first, a repeated key once with its
//! last value), strings and numbers rewritten as JavaScript writes them; and
//! `{...object, [key]: value}` on an object already in that form.

use super::check::Checker;
use super::escape::{write_raw_string, write_str};
use super::number::write_number_text;
use super::MAX_DEPTH;
use crate::json::scan::{self, SyntaxError};
use std::borrow::Cow;
use std::ops::Range;

/// Append `JSON.stringify(JSON.parse(text[range]))` to `out`. The range must
/// hold one valid JSON value (see [`scan::validate`]).
pub fn canonical(out: &mut Vec<u8>, text: &[u8], range: Range<usize>) -> Result<(), SyntaxError> {
    canonical_with(&mut Checker::new(), out, text, range)
}

/// [`canonical`] with a [`Checker`] kept by the caller (no allocation per
/// call once it has warmed up).
pub fn canonical_with(
    checker: &mut Checker,
    out: &mut Vec<u8>,
    text: &[u8],
    range: Range<usize>,
) -> Result<(), SyntaxError> {
    // Text pi wrote is what JSON.stringify wrote: one check, one copy.
    if checker.is_canonical(&text[range.clone()]) {
        out.extend_from_slice(&text[range]);
        return Ok(());
    }
    canonical_at(out, text, range, 0)
}

#[cfg(any(test, feature = "fuzzing"))]
/// [`canonical_vec`] without the quick check for text that is already
/// canonical: the long way only, for tests that check the quick one.
#[doc(hidden)]
pub fn canonical_long_way(text: &[u8], range: Range<usize>) -> Result<Vec<u8>, SyntaxError> {
    let mut out = Vec::new();
    canonical_at(&mut out, text, range, 0)?;
    Ok(out)
}

/// Same as [`canonical`], returning a new buffer.
pub fn canonical_vec(text: &[u8], range: Range<usize>) -> Result<Vec<u8>, SyntaxError> {
    let mut out = Vec::with_capacity(range.len());
    canonical(&mut out, text, range)?;
    Ok(out)
}

fn too_deep(offset: usize) -> SyntaxError {
    SyntaxError {
        offset,
        what: "JSON nested too deeply to re-serialize",
    }
}

fn canonical_at(
    out: &mut Vec<u8>,
    text: &[u8],
    range: Range<usize>,
    depth: usize,
) -> Result<(), SyntaxError> {
    let v = &text[range.clone()];
    match v.first() {
        Some(b'"') => {
            write_raw_string(out, &v[1..v.len() - 1]);
            Ok(())
        }
        Some(b'{') => {
            if depth >= MAX_DEPTH {
                return Err(too_deep(range.start));
            }
            let members = crate::json::members(text, range.clone())?;
            let order = member_order(text, &members);
            out.push(b'{');
            for (n, &(key_idx, val_idx)) in order.iter().enumerate() {
                if n > 0 {
                    out.push(b',');
                }
                let k = &members[key_idx].key;
                write_raw_string(out, &text[k.start + 1..k.end - 1]);
                out.push(b':');
                canonical_at(out, text, members[val_idx].value.clone(), depth + 1)?;
            }
            out.push(b'}');
            Ok(())
        }
        Some(b'[') => {
            if depth >= MAX_DEPTH {
                return Err(too_deep(range.start));
            }
            out.push(b'[');
            for (n, el) in scan::elements(text, range)?.into_iter().enumerate() {
                if n > 0 {
                    out.push(b',');
                }
                canonical_at(out, text, el, depth + 1)?;
            }
            out.push(b']');
            Ok(())
        }
        Some(b't' | b'f' | b'n') => {
            out.extend_from_slice(v);
            Ok(())
        }
        Some(_) => {
            write_number_text(out, v);
            Ok(())
        }
        None => Err(SyntaxError {
            offset: range.start,
            what: "empty value",
        }),
    }
}

/// The order JavaScript gives an object's members after `JSON.parse`: keys
/// that are array indices first (ascending), then the others in first-seen
/// order; a repeated key keeps its first place and takes its last value.
/// Returns (member whose key is printed, member whose value is printed).
pub(crate) fn member_order(text: &[u8], members: &[scan::Member]) -> Vec<(usize, usize)> {
    let keys: Vec<Cow<[u8]>> = members
        .iter()
        .map(|m| {
            let raw = &text[m.key.start + 1..m.key.end - 1];
            // Keys are compared as the strings JavaScript decodes: escapes
            // resolved and bytes that are not UTF-8 read as U+FFFD (the
            // written form, without its quotes, is one text per string).
            if raw.contains(&b'\\') || (!raw.is_ascii() && simdutf8::basic::from_utf8(raw).is_err())
            {
                let mut o = Vec::new();
                write_raw_string(&mut o, raw);
                Cow::Owned(o[1..o.len() - 1].to_vec())
            } else {
                Cow::Borrowed(raw)
            }
        })
        .collect();
    let simple = keys.iter().all(|k| array_index(k).is_none()) && !has_duplicates(&keys);
    if simple {
        return (0..members.len()).map(|i| (i, i)).collect();
    }
    let mut order: Vec<(usize, usize)> = Vec::new();
    let mut seen: std::collections::HashMap<&[u8], usize> = std::collections::HashMap::new();
    for (i, k) in keys.iter().enumerate() {
        match seen.get(k.as_ref()) {
            Some(&slot) => order[slot].1 = i,
            None => {
                seen.insert(k.as_ref(), order.len());
                order.push((i, i));
            }
        }
    }
    // Stable: indices first in numeric order, the rest keep insertion order.
    order.sort_by_key(|&(i, _)| match array_index(&keys[i]) {
        Some(n) => (0u8, n),
        None => (1u8, 0),
    });
    order
}

fn has_duplicates(keys: &[Cow<[u8]>]) -> bool {
    if keys.len() <= 16 {
        for i in 0..keys.len() {
            for j in 0..i {
                if keys[i] == keys[j] {
                    return true;
                }
            }
        }
        false
    } else {
        let mut set = std::collections::HashSet::new();
        !keys.iter().all(|k| set.insert(k.as_ref()))
    }
}

/// A key (as written by [`write_raw_string`], without quotes) that
/// JavaScript treats as an array index: "0" or no leading zero, < 2^32 - 1.
fn array_index(key: &[u8]) -> Option<u64> {
    if key.is_empty() || key.len() > 10 || !key.iter().all(u8::is_ascii_digit) {
        return None;
    }
    if key.len() > 1 && key[0] == b'0' {
        return None;
    }
    let n: u64 = std::str::from_utf8(key).ok()?.parse().ok()?;
    (n < 4_294_967_295).then_some(n)
}

/// `{...object, [key]: value}` written as `JSON.stringify` writes it, for
/// an object already in `JSON.stringify`'s text (no white space, no
/// duplicate keys): the member keeps its place, or goes last when it is
/// new; `None` (JavaScript's `undefined`) leaves it out. `key` must not
/// look like an array index (those sort first in JavaScript). Text that
/// is not an object comes back unchanged.
pub fn with_member(object: &[u8], key: &str, value: Option<&[u8]>) -> Vec<u8> {
    let Ok(members) = crate::json::members(object, 0..object.len()) else {
        return object.to_vec();
    };
    let mut out = Vec::with_capacity(object.len() + value.map_or(0, |v| v.len()) + key.len() + 4);
    out.push(b'{');
    let mut found = false;
    let put = |out: &mut Vec<u8>, k: &[u8], v: &[u8]| {
        if out.len() > 1 {
            out.push(b',');
        }
        out.extend_from_slice(k);
        out.push(b':');
        out.extend_from_slice(v);
    };
    for m in &members {
        if crate::json::key_is(object, &m.key, key) {
            found = true;
            if let Some(v) = value {
                put(&mut out, &object[m.key.clone()], v);
            }
        } else {
            put(&mut out, &object[m.key.clone()], &object[m.value.clone()]);
        }
    }
    if let (false, Some(v)) = (found, value) {
        let mut k = Vec::new();
        write_str(&mut k, key);
        put(&mut out, &k, v);
    }
    out.push(b'}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::js::canon;

    #[test]
    fn with_member_keeps_the_place_or_appends() {
        assert_eq!(
            with_member(
                br#"{"role":"user","content":null,"timestamp":1}"#,
                "content",
                Some(b"[]")
            ),
            br#"{"role":"user","content":[],"timestamp":1}"#.to_vec()
        );
        assert_eq!(
            with_member(br#"{"role":"user","timestamp":1}"#, "content", Some(b"[]")),
            br#"{"role":"user","timestamp":1,"content":[]}"#.to_vec()
        );
        assert_eq!(
            with_member(br#"{"role":"user","content":"x","t":1}"#, "content", None),
            br#"{"role":"user","t":1}"#.to_vec()
        );
        assert_eq!(
            with_member(b"{}", "content", Some(b"1")),
            br#"{"content":1}"#.to_vec()
        );
        assert_eq!(with_member(b"[1]", "content", Some(b"1")), b"[1]".to_vec());
    }

    #[test]
    fn objects_like_javascript() {
        assert_eq!(
            canon(r#"{ "b" : 1 , "a" : [ 1 , 2 ] }"#),
            r#"{"b":1,"a":[1,2]}"#
        );
        assert_eq!(
            canon(r#"{"b":1,"2":0,"1":0,"a":2,"b":3}"#),
            r#"{"1":0,"2":0,"b":3,"a":2}"#
        );
        assert_eq!(canon(r#"{"01":1,"1":2}"#), r#"{"1":2,"01":1}"#);
    }
}
