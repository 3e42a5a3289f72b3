//! The quick proof that a text is already what `JSON.stringify` writes
//! (one pass, 64 bytes a step, no recursion), and the quick read of a
//! compact object's members that the loads take.

use super::number::js_number_end;
use super::MAX_DEPTH;
use crate::json::scan;
use std::ops::Range;

#[cfg(test)]
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
    /// Where the text has a backslash: one bit a byte, 64 bytes a word.
    backslashes: Vec<u64>,
    /// The bytes of the text, from the first 64-byte block that is not
    /// ASCII to the last (empty when it is ASCII; see
    /// [`Checker::not_ascii`]).
    not_ascii: Range<usize>,
    /// The members of the outermost object (see [`Checker::object`]).
    members: Vec<scan::Member>,
    /// Every object and array of the text, in the order they open: where
    /// it opens and the index after its end (see [`Marks::container_end`]).
    closes: Vec<(u32, u32)>,
    /// For each open container, its index in `closes`.
    open: Vec<u32>,
    /// Whether the text has a `\u` escape (see [`Checker::line_facts`]).
    unicode_escape: bool,
    /// How many keys of the text are written `"role"`.
    role_keys: u32,
}

/// What the quick check saw of a text on its way (see
/// [`Checker::line_facts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineFacts {
    /// The text has a `\u` escape somewhere.
    pub unicode_escape: bool,
    /// How many keys, in any object of the text, are written `"role"`.
    pub role_keys: u32,
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
        self.check::<true, false>(v) && simdutf8::basic::from_utf8(&v[self.not_ascii()]).is_ok()
    }

    /// After a yes (from [`Checker::valid_object`], [`Checker::object`] or
    /// [`Checker::is_canonical`]), the bytes of the text that may not be
    /// ASCII: every byte of 0x80 or more is in this span, and outside it
    /// the text is ASCII, so the text is UTF-8 exactly when these bytes
    /// are (a character cannot hold an ASCII byte). Empty for ASCII text;
    /// meaningless after a "no".
    pub fn not_ascii(&self) -> Range<usize> {
        self.not_ascii.clone()
    }

    /// The members of the object `v`, when [`Checker::is_canonical`] would
    /// say yes but for UTF-8, which is not checked: a line pi wrote. Valid
    /// JSON, so the members are what [`scan::validate_object`] finds (no
    /// key twice). `None` only means "take the long way". Strings are
    /// skipped by their quote bits, whatever escapes they hold.
    pub fn object(&mut self, v: &[u8]) -> Option<&[scan::Member]> {
        (v.first() == Some(&b'{') && self.check::<true, false>(v)).then_some(&self.members[..])
    }

    /// The members of the object `v` when it is valid JSON without white
    /// space between its tokens (every line pi writes), as
    /// [`scan::validate_object`] finds them; not whether it is in
    /// `JSON.stringify`'s form (so no key or number checks). `None` only
    /// means "take the long way". Quicker than the scanner.
    pub fn valid_object(&mut self, v: &[u8]) -> Option<&[scan::Member]> {
        (v.first() == Some(&b'{') && self.check::<false, false>(v)).then_some(&self.members[..])
    }

    /// [`Checker::valid_object`] (or, with `canonical`, [`Checker::object`])
    /// that also counts the keys written `"role"` for
    /// [`Checker::line_facts`] (a compare a key, which the other calls
    /// leave out: the loads that want no roles do not pay for it).
    pub fn object_counting_roles(&mut self, v: &[u8], canonical: bool) -> Option<&[scan::Member]> {
        let ok = v.first() == Some(&b'{')
            && match canonical {
                true => self.check::<true, true>(v),
                false => self.check::<false, true>(v),
            };
        ok.then_some(&self.members[..])
    }

    /// After a yes from [`Checker::valid_object`] or [`Checker::object`],
    /// the members it gave (so that they can be read beside
    /// [`Checker::marks`]); meaningless after a "no".
    pub fn members(&self) -> &[scan::Member] {
        &self.members
    }

    /// Where the text the last call took (a yes from
    /// [`Checker::valid_object`] or [`Checker::object`]) has its string
    /// quotes and backslashes, so that its values and escapes are found from
    /// bits rather than read again; meaningless after a "no".
    pub fn marks(&self) -> Marks<'_> {
        Marks {
            quotes: &self.quotes,
            backslashes: &self.backslashes,
            closes: &self.closes,
            unicode: self.unicode_escape,
        }
    }

    /// After a yes (from [`Checker::valid_object`], [`Checker::object`] or
    /// [`Checker::is_canonical`]), what the check saw of the text on its
    /// way, at no cost: whether it has a `\u` escape, and how many of its
    /// keys are written `"role"` (with no `\u` escape, every key that reads
    /// `role` is written so; counted only by
    /// [`Checker::object_counting_roles`], `u32::MAX` after the other
    /// calls). Meaningless after a "no".
    pub fn line_facts(&self) -> LineFacts {
        LineFacts {
            unicode_escape: self.unicode_escape,
            role_keys: self.role_keys,
        }
    }

    /// [`Checker::is_canonical`] without the UTF-8 check (with `CANONICAL`
    /// false: only valid, compact JSON).
    fn check<const CANONICAL: bool, const ROLES: bool>(&mut self, v: &[u8]) -> bool {
        if v.len() >= u32::MAX as usize {
            return false;
        }
        let Some((high, unicode)) =
            quote_bits::<CANONICAL>(v, &mut self.backslashes, &mut self.quotes)
        else {
            return false;
        };
        self.unicode_escape = unicode;
        self.role_keys = if ROLES { 0 } else { u32::MAX };
        self.not_ascii = (high.start * 64).min(v.len())..(high.end * 64).min(v.len());
        self.stack.clear();
        self.keys.clear();
        self.seen.clear();
        self.members.clear();
        self.closes.clear();
        self.open.clear();
        let ok = self.walk::<CANONICAL, ROLES>(v);
        self.stack.clear();
        self.keys.clear();
        self.seen.clear();
        self.open.clear();
        ok
    }

    fn walk<const CANONICAL: bool, const ROLES: bool>(&mut self, v: &[u8]) -> bool {
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
                    self.close(pos);
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
                    if ROLES && end - pos == 6 && v[pos + 1..pos + 5] == *b"role" {
                        self.role_keys += 1;
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
                        self.open.push(self.closes.len() as u32);
                        self.closes.push((pos as u32, 0));
                        if b == b'[' {
                            self.stack.push(ARRAY);
                            pos += 1;
                            if v.get(pos) != Some(&b']') {
                                continue;
                            }
                            // `[]`
                            self.stack.pop();
                            pos += 1;
                            self.close(pos);
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
                        self.close(pos);
                    }
                    (Some(b']'), Some(&ARRAY)) => {
                        self.stack.pop();
                        pos += 1;
                        self.close(pos);
                    }
                    _ => return false,
                }
            }
        }
    }

    /// The innermost open container ends before `end`.
    #[inline]
    fn close(&mut self, end: usize) {
        if let Some(k) = self.open.pop() {
            if let Some(c) = self.closes.get_mut(k as usize) {
                c.1 = end as u32;
            }
        }
    }

    /// Record the key `v[start..end]` (its text without quotes, already
    /// checked) of the innermost object; false when it is not quick.
    // (inlined always: the walk grew with the record of container ends,
    // and LLVM then left this call out of line, +3.5% for pi-tree --json)
    #[inline(always)]
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
/// of word `k / 64` for byte `k`) and `backslashes` with its backslashes,
/// in one pass over `v`; the blocks that are not ASCII, from the first to
/// the last ([`scan::for_each_block`]). None when a byte is below 0x20 or a
/// backslash does not start an escape `JSON.stringify` writes (`\\"`,
/// `\\\\`, `\\b\\f\\n\\r\\t`, `\\u00xx` for other control characters): every
/// escape is checked here, so a string ends at the next quote bit. A
/// backslash outside any string is taken for an escape too; the walk
/// rejects it, as it looks at every byte outside strings.
fn quote_bits<const CANONICAL: bool>(
    v: &[u8],
    backslashes: &mut Vec<u64>,
    quotes: &mut Vec<u64>,
) -> Option<(Range<usize>, bool)> {
    // Sized first and written by index: a push per block stored the
    // length back each time and kept a register less for the loop.
    let words = v.len().div_ceil(64);
    quotes.clear();
    backslashes.clear();
    quotes.resize(words, 0);
    backslashes.resize(words, 0);
    let mut bits = QuoteBits::<CANONICAL> {
        v,
        backslashes,
        quotes,
        w: 0,
        carry: 0,
        saw_unicode: false,
    };
    let high = scan::for_each_block(v, &mut bits)?;
    // A backslash at the very end escapes nothing.
    (bits.carry == 0).then_some((high, bits.saw_unicode))
}

/// [`quote_bits`]'s work on each block.
struct QuoteBits<'a, const CANONICAL: bool> {
    v: &'a [u8],
    backslashes: &'a mut [u64],
    quotes: &'a mut [u64],
    /// The block being read.
    w: usize,
    /// Whether the first byte of the next block is escaped.
    carry: u64,
    /// Whether a block had a `\u` escape.
    saw_unicode: bool,
}

impl<const CANONICAL: bool> scan::simd::EachBlock for &mut QuoteBits<'_, CANONICAL> {
    #[inline(always)]
    fn block(&mut self, c: &scan::Classes) -> bool {
        let escaped = escaped_bits(c.backslash, &mut self.carry);
        let escapable = match CANONICAL {
            true => c.escapable,
            false => c.escapable | c.slash,
        };
        if escaped & !escapable != 0 {
            return false;
        }
        let u = escaped & c.u;
        if u != 0 {
            self.saw_unicode = true;
            if !self.unicode(u) {
                return false;
            }
        }
        let w = self.w;
        match (self.quotes.get_mut(w), self.backslashes.get_mut(w)) {
            (Some(q), Some(b)) => {
                *q = c.quote & !escaped;
                *b = c.backslash;
            }
            _ => return false,
        }
        self.w = w + 1;
        true
    }
}

impl<const CANONICAL: bool> QuoteBits<'_, CANONICAL> {
    /// Whether the `\u` escapes of the block being read, whose `u`s are
    /// at `u`, have four hex digits; in JSON.stringify's text only `\u00xx`
    /// for a control character without a short form.
    #[cold]
    fn unicode(&self, mut u: u64) -> bool {
        let w = self.w;
        while u != 0 {
            let p = w * 64 + u.trailing_zeros() as usize;
            let ok = match CANONICAL {
                true => p > 0 && escape_len(self.v, p - 1) == Some(6),
                false => self
                    .v
                    .get(p + 1..p + 5)
                    .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)),
            };
            if !ok {
                return false;
            }
            u &= u - 1;
        }
        true
    }
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

/// A valid, compact JSON text's quotes and backslashes, as
/// [`Checker::marks`] gives them: one bit a byte, 64 bytes a word.
#[derive(Debug, Clone, Copy)]
pub struct Marks<'c> {
    quotes: &'c [u64],
    backslashes: &'c [u64],
    closes: &'c [(u32, u32)],
    unicode: bool,
}

impl Marks<'_> {
    /// The index after the string whose opening quote is at `open` (the
    /// text's length when the marks say there is no closing quote, which
    /// they do not for a text they were made from).
    #[inline]
    pub fn string_end(&self, open: usize) -> usize {
        string_end(self.quotes, open).unwrap_or(self.quotes.len() * 64)
    }

    /// The index after the object or array that opens at `open` (a `{` or
    /// `[` of the text), found in the walk's record, not read again; None
    /// when no container opens there.
    #[inline]
    pub fn container_end(&self, open: usize) -> Option<usize> {
        let k = self.closes.partition_point(|c| (c.0 as usize) < open);
        match self.closes.get(k) {
            Some(&(o, e)) if o as usize == open && e != 0 => Some(e as usize),
            _ => None,
        }
    }

    /// The index after the value that starts at `t[v]`, `t` being the
    /// text these marks are of (compact, valid): a string by its quote
    /// bits, an object or array by [`Marks::container_end`], a number or a
    /// literal up to the `,`, `}` or `]` after it.
    #[inline(always)]
    pub fn value_end(&self, t: &[u8], v: usize) -> usize {
        match t.get(v) {
            Some(b'"') => self.string_end(v).min(t.len()),
            Some(b'{' | b'[') => self.container_end(v).unwrap_or(t.len()),
            _ => t
                .get(v..)
                .and_then(|r| r.iter().position(|b| matches!(b, b',' | b'}' | b']')))
                .map_or(t.len(), |i| v + i),
        }
    }

    /// Whether the text has a `\u` escape anywhere (when it has none, no
    /// string of it needs decoding to be searched for a character).
    #[inline]
    pub fn any_unicode_escape(&self) -> bool {
        self.unicode
    }

    /// The backslashes in `from..to` that start an escape, in order, when
    /// `from` is not the second byte of an escape (inside a string: just
    /// after its opening quote, or after an escape's last byte).
    pub fn escapes(&self, from: usize, to: usize) -> Escapes<'_> {
        let w = from / 64;
        let first = self.backslashes.get(w).map_or(0, |&b| b) & (!0u64 << (from % 64));
        let mut e = Escapes {
            backslashes: self.backslashes,
            to,
            w,
            carry: 0,
            bits: 0,
        };
        e.bits = e.starts(first);
        e
    }
}

/// The escapes of a span, in order (see [`Marks::escapes`]).
pub struct Escapes<'c> {
    backslashes: &'c [u64],
    to: usize,
    /// The block `bits` is of.
    w: usize,
    /// Whether the next block's first byte is escaped.
    carry: u64,
    /// The escapes of block `w` not yet taken.
    bits: u64,
}

impl Escapes<'_> {
    /// The backslashes of one block's `backslash` bits that start an escape
    /// (not escaped themselves), `carry` updated for the next block.
    #[inline]
    fn starts(&mut self, backslash: u64) -> u64 {
        let escaped = escaped_bits(backslash, &mut self.carry);
        backslash & !escaped
    }
}

impl Iterator for Escapes<'_> {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        loop {
            if self.bits != 0 {
                let p = self.w * 64 + self.bits.trailing_zeros() as usize;
                if p >= self.to {
                    (self.bits, self.to) = (0, 0);
                    return None;
                }
                self.bits &= self.bits - 1;
                return Some(p);
            }
            self.w += 1;
            if self.w * 64 >= self.to {
                return None;
            }
            let b = *self.backslashes.get(self.w)?;
            self.bits = self.starts(b);
        }
    }
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

#[cfg(test)]
mod tests;
