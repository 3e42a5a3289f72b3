//! JSON written the way JavaScript writes it.
//!
//! pi stores what `JSON.stringify` produced. Whenever a tool prints a value it
//! took out of a line (a message, a summary), the result must equal
//! `JSON.stringify(JSON.parse(text))`: no whitespace, escapes normalized,
//! numbers in JavaScript's shortest form, integer-like keys first, duplicate
//! keys collapsed. [`canonical`] does that directly on the text, without a
//! value tree; for text pi wrote itself it returns the same bytes.

use super::scan::{self, SyntaxError};
use std::borrow::Cow;
use std::ops::Range;

/// How deep [`canonical`] follows nested arrays and objects. JavaScript's own
/// `JSON.stringify` gives up (stack overflow) at a similar depth.
pub const MAX_DEPTH: usize = 2000;

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

/// Whether `v` is certainly one JSON value exactly as `JSON.stringify`
/// writes it (see [`Checker::is_canonical`]). A "no" only means "take the
/// long way".
pub fn already_canonical(v: &[u8]) -> bool {
    Checker::new().is_canonical(v)
}

/// The quick proof that a text is already what `JSON.stringify` writes,
/// with its scratch space kept between calls.
#[derive(Debug, Default)]
pub struct Checker {
    /// Open containers: for an object, where its keys start in `keys`;
    /// [`ARRAY`] for an array.
    stack: Vec<u32>,
    /// The keys of the open objects.
    keys: Vec<Key>,
    /// For each open object, one bit per hash of its keys' prints: a key
    /// whose bit is clear is new without comparing it with the others.
    seen: Vec<u64>,
    /// Where the text has a `"` that opens or closes a string (not an
    /// escaped one): one bit a byte, 64 bytes a word.
    quotes: Vec<u64>,
    /// The kinds of bytes of each 64 bytes of the text.
    blocks: Vec<scan::Classes>,
    /// The members of the outermost object (see [`Checker::object`]).
    members: Vec<scan::Member>,
}

#[derive(Debug, Clone, Copy)]
struct Key {
    /// Length, first six and last byte: equal keys have equal prints.
    print: u64,
    start: u32,
    end: u32,
}

const ARRAY: u32 = u32::MAX;

/// Objects with more keys than this take the long way.
const MAX_QUICK_KEYS: usize = 64;

impl Checker {
    pub fn new() -> Checker {
        Checker::default()
    }

    /// Whether `v` is certainly valid JSON (one value, nothing around it)
    /// and exactly what `JSON.stringify(JSON.parse(v))` writes: no byte
    /// below 0x20 (so no white space outside strings and no raw control
    /// character in them), no space outside strings, valid UTF-8, only the
    /// escapes JSON.stringify makes, numbers as JavaScript prints them, no
    /// duplicate keys and no key starting with a digit (array indices come
    /// first in JavaScript), nesting within [`MAX_DEPTH`]. Checked in one
    /// pass without recursion; a "no" only means "take the long way".
    pub fn is_canonical(&mut self, v: &[u8]) -> bool {
        simdutf8::basic::from_utf8(v).is_ok() && self.check::<true>(v)
    }

    /// The members of the object `v`, when [`Checker::is_canonical`] would
    /// say yes but for UTF-8, which is not checked: a line pi wrote. Valid
    /// JSON, so the members are what [`scan::validate_object`] finds (no
    /// key twice). `None` only means "take the long way". Strings are
    /// skipped by their quote bits, whatever escapes they hold.
    pub fn object(&mut self, v: &[u8]) -> Option<&[scan::Member]> {
        (v.first() == Some(&b'{') && self.check::<true>(v)).then_some(&self.members[..])
    }

    /// The members of the object `v` when it is valid JSON without white
    /// space between its tokens (every line pi writes), as
    /// [`scan::validate_object`] finds them; not whether it is in
    /// `JSON.stringify`'s form (so no key or number checks). `None` only
    /// means "take the long way". Quicker than the scanner.
    pub fn valid_object(&mut self, v: &[u8]) -> Option<&[scan::Member]> {
        (v.first() == Some(&b'{') && self.check::<false>(v)).then_some(&self.members[..])
    }

    /// [`Checker::is_canonical`] without the UTF-8 check (with `CANONICAL`
    /// false: only valid, compact JSON).
    fn check<const CANONICAL: bool>(&mut self, v: &[u8]) -> bool {
        if v.len() >= u32::MAX as usize
            || !quote_bits::<CANONICAL>(v, &mut self.blocks, &mut self.quotes)
        {
            return false;
        }
        self.stack.clear();
        self.keys.clear();
        self.seen.clear();
        self.members.clear();
        let ok = self.walk::<CANONICAL>(v);
        self.stack.clear();
        self.keys.clear();
        self.seen.clear();
        ok
    }

    fn walk<const CANONICAL: bool>(&mut self, v: &[u8]) -> bool {
        let mut pos = 0usize;
        // Whether the next token is a key (just after `{` or `,` in an object).
        let mut want_key = false;
        loop {
            let Some(&b) = v.get(pos) else {
                return false;
            };
            if want_key {
                if b == b'}' && v[pos - 1] == b'{' {
                    // `{}`
                    self.stack.pop();
                    self.seen.pop();
                    pos += 1;
                } else {
                    if b != b'"' {
                        return false;
                    }
                    let Some(end) = string_end(&self.quotes, pos) else {
                        return false;
                    };
                    if (CANONICAL && !self.add_key(v, pos + 1, end - 1))
                        || v.get(end) != Some(&b':')
                    {
                        return false;
                    }
                    if self.stack.len() == 1 {
                        self.members.push(scan::Member {
                            key: pos..end,
                            value: end + 1..end + 1,
                        });
                    }
                    pos = end + 1;
                    want_key = false;
                    continue;
                }
            } else {
                match b {
                    b'{' | b'[' => {
                        if self.stack.len() >= MAX_DEPTH - 1 {
                            return false;
                        }
                        if b == b'[' {
                            self.stack.push(ARRAY);
                            pos += 1;
                            if v.get(pos) != Some(&b']') {
                                continue;
                            }
                            // `[]`
                            self.stack.pop();
                            pos += 1;
                        } else {
                            self.stack.push(self.keys.len() as u32);
                            self.seen.push(0);
                            pos += 1;
                            want_key = true;
                            continue;
                        }
                    }
                    b'"' => match string_end(&self.quotes, pos) {
                        Some(end) => pos = end,
                        None => return false,
                    },
                    b't' if v[pos..].starts_with(b"true") => pos += 4,
                    b'f' if v[pos..].starts_with(b"false") => pos += 5,
                    b'n' if v[pos..].starts_with(b"null") => pos += 4,
                    b'-' | b'0'..=b'9' => match match CANONICAL {
                        true => js_number_end(v, pos),
                        false => scan::scan_number(v, pos).ok(),
                    } {
                        Some(end) => pos = end,
                        None => return false,
                    },
                    _ => return false,
                }
            }
            // After a value: `,`, closers, or the end.
            loop {
                if self.stack.len() == 1 {
                    // A value of the outermost container ends here.
                    if let Some(m) = self.members.last_mut() {
                        m.value.end = pos;
                    }
                }
                match (v.get(pos), self.stack.last()) {
                    (None, None) => return true,
                    (Some(b','), Some(&top)) => {
                        want_key = top != ARRAY;
                        pos += 1;
                        break;
                    }
                    (Some(b'}'), Some(&top)) if top != ARRAY => {
                        self.keys.truncate(top as usize);
                        self.stack.pop();
                        self.seen.pop();
                        pos += 1;
                    }
                    (Some(b']'), Some(&ARRAY)) => {
                        self.stack.pop();
                        pos += 1;
                    }
                    _ => return false,
                }
            }
        }
    }

    /// Record the key `v[start..end]` (its text without quotes, already
    /// checked) of the innermost object; false when it is not quick.
    fn add_key(&mut self, v: &[u8], start: usize, end: usize) -> bool {
        let k = &v[start..end];
        if k.first().is_some_and(u8::is_ascii_digit) {
            // Maybe integer-like: JavaScript moves those first.
            return false;
        }
        let Some(&base) = self.stack.last() else {
            return false;
        };
        let base = base as usize;
        if base > self.keys.len() || self.keys.len() - base >= MAX_QUICK_KEYS {
            return false;
        }
        // Escapes are all in the one form JSON.stringify writes, so equal
        // decoded keys have equal written keys.
        let print = key_print(v, start, end);
        let Some(seen) = self.seen.last_mut() else {
            return false;
        };
        let bit = 1u64 << (print.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58);
        if *seen & bit != 0
            && self.keys[base..]
                .iter()
                .any(|o| o.print == print && &v[o.start as usize..o.end as usize] == k)
        {
            return false;
        }
        *seen |= bit;
        self.keys.push(Key {
            print,
            start: start as u32,
            end: end as u32,
        });
        true
    }
}

/// A print of the key `v[start..end]`: its first eight bytes and its length
/// and last byte, mixed (equal keys have equal prints). The eight bytes are
/// one load from the text (a key is followed by at least `":`), masked.
#[inline]
fn key_print(v: &[u8], start: usize, end: usize) -> u64 {
    let len = end - start;
    let head = match v.get(start..start + 8) {
        Some(b) => <[u8; 8]>::try_from(b).map_or(0, u64::from_le_bytes),
        None => v[start..end]
            .iter()
            .take(8)
            .enumerate()
            .fold(0, |p, (i, &c)| p | u64::from(c) << (8 * i)),
    };
    let mask = if len >= 8 {
        !0
    } else {
        (1u64 << (8 * len)) - 1
    };
    let last = if len > 0 { v[end - 1] } else { 0 };
    (head & mask) ^ ((len as u64) << 56 | u64::from(last) << 48)
}

/// Fill `quotes` with where `v` has a `"` that is not escaped (bit `k % 64`
/// of word `k / 64` for byte `k`). False when a byte is below 0x20 or a
/// backslash does not start an escape `JSON.stringify` writes (`\\"`,
/// `\\\\`, `\\b\\f\\n\\r\\t`, `\\u00xx` for other control characters): every
/// escape is checked here, so a string ends at the next quote bit. A
/// backslash outside any string is taken for an escape too; the walk
/// rejects it, as it looks at every byte outside strings.
fn quote_bits<const CANONICAL: bool>(
    v: &[u8],
    blocks: &mut Vec<scan::Classes>,
    quotes: &mut Vec<u64>,
) -> bool {
    quotes.clear();
    if !scan::string_classes(v, blocks) {
        return false;
    }
    // Whether the first byte of the next block is escaped.
    let mut carry = 0u64;
    for (w, c) in blocks.iter().enumerate() {
        let escaped = escaped_bits(c.backslash, &mut carry);
        let escapable = match CANONICAL {
            true => c.escapable,
            false => c.escapable | c.slash,
        };
        if escaped & !escapable != 0 {
            return false;
        }
        // `\u`: four hex digits; in JSON.stringify's text only `\u00xx` for
        // a control character without a short form.
        let mut u = escaped & c.u;
        while u != 0 {
            let p = w * 64 + u.trailing_zeros() as usize;
            let ok = match CANONICAL {
                true => p > 0 && escape_len(v, p - 1) == Some(6),
                false => v
                    .get(p + 1..p + 5)
                    .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)),
            };
            if !ok {
                return false;
            }
            u &= u - 1;
        }
        quotes.push(c.quote & !escaped);
    }
    // A backslash at the very end escapes nothing.
    carry == 0
}

/// The bytes a backslash escapes, for one 64-byte block with backslashes
/// at `backslash`: in a run of backslashes each escapes the next, and the
/// byte after an odd run is escaped. `carry` says whether the block's first
/// byte is escaped by the block before, and is set for the next. Without a
/// branch per backslash (simdjson's way: subtracting the run starts from
/// the odd bits sorts runs by the parity of their start).
#[inline]
fn escaped_bits(backslash: u64, carry: &mut u64) -> u64 {
    const ODD: u64 = 0xAAAA_AAAA_AAAA_AAAA;
    let potential = backslash & !*carry;
    let code = ((potential << 1) | ODD).wrapping_sub(potential) ^ ODD;
    let escaped = code ^ (backslash | *carry);
    *carry = (code & backslash) >> 63;
    escaped
}

/// The end of the string at `v[start]` (a `"`): after the next quote bit.
#[inline]
fn string_end(quotes: &[u64], start: usize) -> Option<usize> {
    let from = start + 1;
    let mut w = from / 64;
    let mut m = *quotes.get(w)? & (!0u64 << (from % 64));
    loop {
        if m != 0 {
            return Some(w * 64 + m.trailing_zeros() as usize + 1);
        }
        w += 1;
        m = *quotes.get(w)?;
    }
}

/// The length of the escape at `v[p]` (a backslash) when it is one
/// `JSON.stringify` writes.
fn escape_len(v: &[u8], p: usize) -> Option<usize> {
    match v.get(p + 1)? {
        b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => Some(2),
        b'u' => {
            let h = v.get(p + 2..p + 6)?;
            let ok = h[0] == b'0'
                && h[1] == b'0'
                && matches!(h[2], b'0' | b'1')
                && matches!(h[3], b'0'..=b'9' | b'a'..=b'f')
                && !matches!(&h[2..4], b"08" | b"09" | b"0a" | b"0c" | b"0d");
            ok.then_some(6)
        }
        _ => None,
    }
}

/// The end of the number at `v[start]` when it is a JSON number that
/// JavaScript prints exactly so.
fn js_number_end(v: &[u8], start: usize) -> Option<usize> {
    // Most numbers in a session are plain integers (times, counts): one
    // pass. At most 15 digits and not `-0`: JavaScript writes them so.
    let neg = v.get(start) == Some(&b'-');
    let first = start + usize::from(neg);
    if let Some(b'1'..=b'9') = v.get(first) {
        let mut p = first + 1;
        while v.get(p).is_some_and(u8::is_ascii_digit) {
            p += 1;
        }
        if p - first <= 15 && !matches!(v.get(p), Some(b'.' | b'e' | b'E')) {
            return Some(p);
        }
    }
    // The JSON grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
    let digits = |mut p: usize| {
        while v.get(p).is_some_and(u8::is_ascii_digit) {
            p += 1;
        }
        p
    };
    let mut pos = start;
    if v.get(pos) == Some(&b'-') {
        pos += 1;
    }
    match v.get(pos) {
        Some(b'0') => pos += 1,
        Some(b'1'..=b'9') => pos = digits(pos + 1),
        _ => return None,
    }
    if v.get(pos) == Some(&b'.') {
        let e = digits(pos + 1);
        if e == pos + 1 {
            return None;
        }
        pos = e;
    }
    if matches!(v.get(pos), Some(b'e' | b'E')) {
        pos += 1;
        if matches!(v.get(pos), Some(b'+' | b'-')) {
            pos += 1;
        }
        let e = digits(pos);
        if e == pos {
            return None;
        }
        pos = e;
    }
    if canonical_number_end(v, start) == Some(pos) {
        return Some(pos);
    }
    // 16 or 17 digits (0.1 + 0.2), exponents: print it as JavaScript does
    // and compare.
    let text = &v[start..pos];
    let n: f64 = std::str::from_utf8(text).ok()?.parse().ok()?;
    if !text.contains(&b'e') && !text.contains(&b'E') && (1e-6..1e21).contains(&n.abs()) {
        // In this range JavaScript writes the shortest digits that read
        // back as `n` without an exponent, as Rust's `Display` does: no
        // need for a string.
        let mut buf = [0u8; 40];
        let mut w = &mut buf[..];
        use std::io::Write;
        write!(w, "{n}").ok()?;
        let len = 40 - w.len();
        return (&buf[..len] == text).then_some(pos);
    }
    (number_to_js(n).as_bytes() == text).then_some(pos)
}

/// The end of the number at `v[start]` when JavaScript prints it exactly so:
/// at most 15 significant digits, no exponent, no `-0`, no trailing zero
/// after the point, no more than five zeros right after `0.`.
fn canonical_number_end(v: &[u8], start: usize) -> Option<usize> {
    let mut pos = start;
    let neg = v.get(pos) == Some(&b'-');
    if neg {
        pos += 1;
    }
    let int_start = pos;
    while v.get(pos).is_some_and(u8::is_ascii_digit) {
        pos += 1;
    }
    let int = &v[int_start..pos];
    if int.is_empty() || (int.len() > 1 && int[0] == b'0') {
        return None;
    }
    let mut digits = if int == b"0" { 0 } else { int.len() };
    if v.get(pos) == Some(&b'.') {
        pos += 1;
        let f_start = pos;
        while v.get(pos).is_some_and(u8::is_ascii_digit) {
            pos += 1;
        }
        let frac = &v[f_start..pos];
        if frac.is_empty() || frac.last() == Some(&b'0') {
            return None;
        }
        if int == b"0" {
            let zeros = frac.iter().take_while(|&&d| d == b'0').count();
            if zeros > 5 {
                return None;
            }
            digits = frac.len() - zeros;
        } else {
            digits += frac.len();
        }
    } else if neg && int == b"0" {
        return None;
    }
    if digits > 15 || matches!(v.get(pos), Some(b'e' | b'E')) {
        return None;
    }
    Some(pos)
}

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
            let members = scan::members(text, range.clone())?;
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
fn member_order(text: &[u8], members: &[scan::Member]) -> Vec<(usize, usize)> {
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

/// Write a JSON number text as JavaScript prints the number it parses to.
pub fn write_number_text(out: &mut Vec<u8>, text: &[u8]) {
    // Fast path: small integers are already in JavaScript's form.
    let digits = text.strip_prefix(b"-").unwrap_or(text);
    if !digits.is_empty()
        && digits.len() <= 15
        && digits.iter().all(u8::is_ascii_digit)
        && (digits[0] != b'0' || digits.len() == 1)
        && text != b"-0"
    {
        out.extend_from_slice(text);
        return;
    }
    let n: f64 = std::str::from_utf8(text)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(f64::NAN);
    write_number(out, n);
}

/// Write an f64 as `JSON.stringify` does (`null` when not finite).
pub fn write_number(out: &mut Vec<u8>, n: f64) {
    out.extend_from_slice(number_to_js(n).as_bytes());
}

/// `String(n)`: JavaScript's `Number.prototype.toString()` (`Infinity`,
/// `-Infinity` and `NaN` included).
pub fn number_string(n: f64) -> String {
    if n.is_nan() {
        "NaN".into()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        number_to_js(n)
    }
}

/// JavaScript's `Number.prototype.toString()` for finite numbers; "null"
/// for NaN and infinities (what `JSON.stringify` writes for them).
pub fn number_to_js(n: f64) -> String {
    if !n.is_finite() {
        return "null".into();
    }
    if n == 0.0 {
        return "0".into();
    }
    // Shortest round-trip digits, as "d.ddde±x".
    let sci = format!("{:e}", n.abs());
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mant.chars().filter(|c| *c != '.').collect();
    let exp: i32 = exp.parse().unwrap_or(0);
    let k = digits.len() as i32;
    let p = exp + 1; // decimal point position
    let mut s = String::new();
    if n < 0.0 {
        s.push('-');
    }
    if k <= p && p <= 21 {
        s.push_str(&digits);
        s.extend(std::iter::repeat_n('0', (p - k) as usize));
    } else if 0 < p && p <= 21 {
        s.push_str(&digits[..p as usize]);
        s.push('.');
        s.push_str(&digits[p as usize..]);
    } else if -6 < p && p <= 0 {
        s.push_str("0.");
        s.extend(std::iter::repeat_n('0', (-p) as usize));
        s.push_str(&digits);
    } else {
        let e = p - 1;
        s.push_str(&digits[..1]);
        if k > 1 {
            s.push('.');
            s.push_str(&digits[1..]);
        }
        s.push('e');
        s.push(if e < 0 { '-' } else { '+' });
        s.push_str(&e.abs().to_string());
    }
    s
}

/// `{...object, [key]: value}` written as `JSON.stringify` writes it, for
/// an object already in `JSON.stringify`'s text (no white space, no
/// duplicate keys): the member keeps its place, or goes last when it is
/// new; `None` (JavaScript's `undefined`) leaves it out. `key` must not
/// look like an array index (those sort first in JavaScript). Text that
/// is not an object comes back unchanged.
pub fn with_member(object: &[u8], key: &str, value: Option<&[u8]>) -> Vec<u8> {
    let Ok(members) = scan::members(object, 0..object.len()) else {
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
        if super::key_is(object, &m.key, key) {
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

/// `String(value)` of a JSON value's text (`${value}`): strings as they
/// are, numbers as JavaScript prints them, objects `[object Object]`,
/// arrays joined with "," (null elements empty).
pub fn string_value(raw: &[u8]) -> String {
    match raw.first() {
        Some(b'"') => decode_string(raw, 0..raw.len()).into_owned(),
        Some(b'{') => "[object Object]".into(),
        Some(b'[') => scan::elements(raw, 0..raw.len())
            .unwrap_or_default()
            .into_iter()
            .map(|r| string_value_or_empty(&raw[r]))
            .collect::<Vec<_>>()
            .join(","),
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

/// JavaScript truthiness of a JSON value's text.
pub fn truthy(value: &[u8]) -> bool {
    match value.first() {
        None => false,
        Some(b'n' | b'f') => false,
        Some(b'"') => value.len() > 2,
        Some(b'-' | b'0'..=b'9') => std::str::from_utf8(value)
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .is_some_and(|n| n != 0.0),
        _ => true,
    }
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

/// Whether a UTF-16 code unit is white space to JavaScript's `trim()`.
pub fn is_js_space(u: u16) -> bool {
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

/// JavaScript's `s.trim()`.
pub fn trim_utf16(s: &[u16]) -> &[u16] {
    let start = s.iter().position(|&u| !is_js_space(u)).unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|&u| !is_js_space(u))
        .map_or(start, |e| e + 1);
    &s[start..end.max(start)]
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// Whenever the quick check says "already canonical", the long way
    /// agrees byte for byte.
    #[test]
    fn already_canonical_agrees_with_canonical() {
        let mut cases: Vec<Vec<u8>> = [
            &br#"{"a":1,"b":[true,false,null],"c":{"d":"e\n\u0001\"\\"}}"#[..],
            br#"{"a":1,"a":2}"#,
            br#"{"1":1,"a":2}"#,
            br#"{"a" :1}"#,
            br#"[1.5,0.1,0.000001,0.0000001,-0,0,-1,1e3,1E3,123456789012345,1234567890123456,0.30000000000000004,1.10,2.5]"#,
            br#"["\/","\u0041","\u001f","\u0008","\u00e9","\ud800","\xc3\xa9 x"]"#,
            br#"{}"#,
            br#"[]"#,
            br#"[{},[],{"a":[]}]"#,
            br#"{"x":{"y":{"z":[1,{"w":null}]}},"v":"ok"}"#,
            b"\"\xff\"",
        ]
        .iter()
        .map(|c| c.to_vec())
        .collect();
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/sessions");
        if let Ok(rd) = std::fs::read_dir(dir) {
            for f in rd.flatten() {
                if let Ok(t) = std::fs::read(f.path()) {
                    cases.extend(t.split(|&b| b == b'\n').map(|l| l.to_vec()));
                }
            }
        }
        let mut yes = 0;
        for c in &cases {
            let Ok(r) = scan::validate(c) else { continue };
            let v = &c[r.clone()];
            if already_canonical(v) {
                yes += 1;
                let mut out = Vec::new();
                canonical_at(&mut out, c, r, 0).unwrap();
                assert_eq!(out, v, "{}", String::from_utf8_lossy(v));
            }
        }
        assert!(yes > 50, "{yes}");
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 5), "]".repeat(MAX_DEPTH + 5));
        assert!(!already_canonical(deep.as_bytes()));
    }

    /// Every reason a text is not JSON.stringify's own is a "no" of the
    /// quick check, and what it does accept is valid JSON that the long
    /// way writes back unchanged: checked on pi's files and on many small
    /// changes to them (a byte inserted, replaced or removed).
    #[test]
    fn quick_check_is_sound_under_mutation() {
        let mut lines: Vec<Vec<u8>> = Vec::new();
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/sessions");
        if let Ok(rd) = std::fs::read_dir(dir) {
            for f in rd.flatten() {
                if let Ok(t) = std::fs::read(f.path()) {
                    lines.extend(t.split(|&b| b == b'\n').map(|l| l.to_vec()));
                }
            }
        }
        lines.retain(|l| !l.is_empty());
        lines.truncate(400);
        assert!(lines.len() > 100);
        let extra: &[&[u8]] = &[
            br#"{"a":{"b":1},"b":2,"c":[{"a":1},{"a":2}],"d":{},"e":[],"f":[[],{}]}"#,
            br#"[0.30000000000000004,0.1,1e-7,123456789012345680,-1.5,0,1e+21]"#,
            br#""\u0000\u001f\b\f\n\r\t\"\\ \u007f""#,
            "{\"é\":\"日本\",\"e\":\"🙂\"}".as_bytes(),
        ];
        lines.extend(extra.iter().map(|l| l.to_vec()));
        let alphabet = b" \t\n\r\"\\/{}[]:,0123456789.eE+-abcfnrtuDCx\x7f\xff\xc3";
        let mut checker = Checker::new();
        let mut accepted = 0usize;
        let mut check = |v: &[u8], checker: &mut Checker| {
            if checker.is_canonical(v) {
                accepted += 1;
                assert_eq!(
                    scan::validate(v).ok(),
                    Some(0..v.len()),
                    "accepted but not valid: {}",
                    String::from_utf8_lossy(v)
                );
                let mut out = Vec::new();
                canonical_at(&mut out, v, 0..v.len(), 0).unwrap();
                assert_eq!(
                    out,
                    v,
                    "accepted but rewritten: {}",
                    String::from_utf8_lossy(v)
                );
            }
        };
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rand = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for l in &lines {
            check(l, &mut checker);
            for _ in 0..60 {
                let mut m = l.clone();
                let at = rand(m.len() + 1);
                let b = alphabet[rand(alphabet.len())];
                match rand(3) {
                    0 => m.insert(at, b),
                    1 if at < m.len() => m[at] = b,
                    _ if at < m.len() => {
                        m.remove(at);
                    }
                    _ => m.push(b),
                }
                check(&m, &mut checker);
            }
        }
        assert!(accepted > 1000, "{accepted}");
    }

    #[test]
    fn quick_check_says_no_to_each_difference() {
        let yes: &[&[u8]] = &[
            br#"{"a":1,"b":[true,false,null],"c":{"d":"e\n\u0001\"\\"}}"#,
            br#"{"abcdefXz":1,"abcdefYz":2}"#,
            br#"{"a":{"a":1},"b":[{"a":1},{"a":2}]}"#,
            br#"[{},[],{"e":{}},[[]]]"#,
            br#"[0.08210100000000001,0.30000000000000004,1e21,1e+21]"#,
            "\"\u{2028}\x7f\"".as_bytes(),
        ];
        for v in yes {
            let v = if *v == b"[0.08210100000000001,0.30000000000000004,1e21,1e+21]" {
                &b"[0.08210100000000001,0.30000000000000004,1e+21]"[..]
            } else {
                v
            };
            assert!(already_canonical(v), "{}", String::from_utf8_lossy(v));
        }
        let no: &[&[u8]] = &[
            br#"{"a" :1}"#,
            br#" {"a":1}"#,
            br#"{"a":1} "#,
            b"{\"a\":1}\r",
            b"[1,\t2]",
            br#""\/""#,
            br#""\u0041""#,
            br#""\u001F""#,
            br#""\u0008""#,
            br#""\u000a""#,
            br#""\ud83d\ude00""#,
            br#""\ud800""#,
            b"\"a\nb\"",
            b"\"\xff\"",
            b"\"\xc3\"",
            br#"{"a":1,"a":2}"#,
            br#"{"a\u0062":1,"ab":2}"#,
            br#"{"1":1}"#,
            br#"{"0":1,"a":2}"#,
            b"1.0",
            b"1e3",
            b"1E3",
            b"-0",
            b"0.10",
            b"1e21",
            b"0.0000001",
            b"123456789012345678",
            b"0.30000000000000001",
            b"01",
            b"1.",
            b".5",
            b"+1",
            b"1e",
            b"[1,]",
            b"{\"a\":1,}",
            b"[1 2]",
            b"{\"a\"}",
            b"[",
            b"\"abc",
            b"tru",
            b"nul",
            b"[1]]",
            b"",
            b"{}{}",
        ];
        for v in no {
            assert!(!already_canonical(v), "{}", String::from_utf8_lossy(v));
        }
        let big: String = format!(
            "{{{}}}",
            (0..65)
                .map(|k| format!("\"k{k}\":{k}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        assert!(!already_canonical(big.as_bytes()));
    }

    fn canon(s: &str) -> String {
        let t = s.as_bytes();
        let r = scan::validate(t).unwrap();
        String::from_utf8(canonical_vec(t, r).unwrap()).unwrap()
    }

    #[test]
    fn numbers_like_javascript() {
        for (n, js) in [
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (123.456, "123.456"),
            (0.0002130934582091868, "0.0002130934582091868"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
        ] {
            assert_eq!(number_to_js(n), js);
        }
        assert_eq!(canon("-0"), "0");
        assert_eq!(canon("1E400"), "null");
        assert_eq!(canon("1.0"), "1");
        assert_eq!(canon("100e-2"), "1");
    }

    #[test]
    fn strings_like_javascript() {
        assert_eq!(canon(r#""\u0041\/\u00e9""#), "\"A/é\"");
        assert_eq!(canon(r#""\ud83d\ude00""#), "\"😀\"");
        assert_eq!(canon(r#""\ud83d""#), r#""\ud83d""#);
        assert_eq!(canon(r#""\uDE00x""#), r#""\ude00x""#);
        assert_eq!(canon(r#""\u0001\u001F\b""#), r#""\u0001\u001f\b""#);
        assert_eq!(canon("\"\u{2028}\""), "\"\u{2028}\"");
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

    #[test]
    fn truthiness() {
        assert!(!truthy(b"\"\""));
        assert!(!truthy(b"0.0"));
        assert!(!truthy(b"null"));
        assert!(truthy(b"[]"));
        assert!(truthy(b"\"0\""));
    }

    /// The quick object read agrees with the scanner and the long way for
    /// escapes (good, bad, not JSON.stringify's) at every place around the
    /// 64-byte blocks its bits come in, and outside strings.
    #[test]
    fn quick_object_agrees_at_block_edges() {
        let escapes: [&[u8]; 16] = [
            br#"\""#,
            br#"\\"#,
            br#"\n"#,
            br#"\u001f"#,
            br#"\u0008"#,
            br#"\u0041"#,
            br#"\/"#,
            br#"\x"#,
            br#"\u00zz"#,
            br#"\\\""#,
            br#"\\\\"#,
            br#"\"#,
            br#"""#,
            b"\x01",
            br#"\uD83D\ude00"#,
            br#"\u12"#,
        ];
        let mut checker = Checker::new();
        let mut seen = (0, 0);
        for pad in 0..140 {
            for e in escapes {
                for tail in [
                    &br#"","b":1}"#[..],
                    br#""}"#,
                    br#"",""#,
                    br#"\"}"#,
                    br#""\}"#,
                ] {
                    let mut v = br#"{"a":""#.to_vec();
                    v.extend(std::iter::repeat_n(b'x', pad));
                    v.extend_from_slice(e);
                    v.extend(std::iter::repeat_n(b'y', pad % 7));
                    v.extend_from_slice(tail);
                    let quick = checker.object(&v).map(<[_]>::to_vec);
                    let long = scan::validate_object_scanned(&v)
                        .ok()
                        .flatten()
                        .filter(|(r, _)| {
                            canonical_long_way(&v, r.clone()).ok().as_deref() == Some(&v[..])
                        });
                    let text = String::from_utf8_lossy(&v);
                    // No white space here: the valid read takes exactly the
                    // valid lines.
                    let valid = checker.valid_object(&v).map(<[_]>::to_vec);
                    let scanned = scan::validate_object_scanned(&v)
                        .ok()
                        .flatten()
                        .map(|(_, m)| m);
                    assert_eq!(valid, scanned, "{text}");
                    assert_eq!(quick, long.map(|(_, m)| m), "{text}");
                    if quick.is_some() {
                        seen.0 += 1
                    } else {
                        seen.1 += 1
                    }
                }
            }
        }
        // Both answers were met many times.
        assert!(seen.0 > 1000 && seen.1 > 1000, "{seen:?}");
    }

    /// The escaped bytes of random runs of backslashes over several
    /// blocks, against the byte-by-byte rule.
    #[test]
    fn escaped_bits_follow_runs_of_backslashes() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..20_000 {
            // Dense and sparse backslashes, long runs across the block edge.
            let density = next() % 4;
            let words: Vec<u64> = (0..4)
                .map(|_| match density {
                    0 => next() & next(),
                    1 => next(),
                    2 => next() | next(),
                    _ => !0u64 << (next() % 64) | (next() & 0xff),
                })
                .collect();
            let (mut carry, mut pending) = (0u64, false);
            for &b in &words {
                let got = escaped_bits(b, &mut carry);
                let mut want = 0u64;
                for i in 0..64 {
                    if pending {
                        want |= 1 << i;
                        pending = false;
                    } else if b >> i & 1 == 1 {
                        pending = true;
                    }
                }
                assert_eq!(got, want, "{b:064b}");
                assert_eq!(carry, u64::from(pending));
            }
        }
    }
}
