//! The quick proof that a text is already what `JSON.stringify` writes
//! (one pass, 64 bytes a step, no recursion), and the quick read of a
//! compact object's members that the loads take.

use super::number::js_number_end;
use super::MAX_DEPTH;
use crate::json::scan;

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

    /// Where the text the last call took (a yes from
    /// [`Checker::valid_object`] or [`Checker::object`]) has its string
    /// quotes and backslashes, so that its values and escapes are found from
    /// bits rather than read again; meaningless after a "no".
    pub fn marks(&self) -> Marks<'_> {
        Marks {
            quotes: &self.quotes,
            blocks: &self.blocks,
        }
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

/// A valid, compact JSON text's quotes and backslashes, as
/// [`Checker::marks`] gives them: one bit a byte, 64 bytes a word.
#[derive(Debug, Clone, Copy)]
pub struct Marks<'c> {
    quotes: &'c [u64],
    blocks: &'c [scan::Classes],
}

impl Marks<'_> {
    /// The index after the string whose opening quote is at `open` (the
    /// text's length when the marks say there is no closing quote, which
    /// they do not for a text they were made from).
    #[inline]
    pub fn string_end(&self, open: usize) -> usize {
        string_end(self.quotes, open).unwrap_or(self.quotes.len() * 64)
    }

    /// The backslashes in `from..to` that start an escape, in order, when
    /// `from` is not the second byte of an escape (inside a string: just
    /// after its opening quote, or after an escape's last byte).
    pub fn escapes(&self, from: usize, to: usize) -> Escapes<'_> {
        let w = from / 64;
        let first = self.blocks.get(w).map_or(0, |c| c.backslash) & (!0u64 << (from % 64));
        let mut e = Escapes {
            blocks: self.blocks,
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
    blocks: &'c [scan::Classes],
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
            let b = self.blocks.get(self.w)?.backslash;
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
mod tests {
    use super::*;
    use crate::json::js::canonical_long_way;

    /// The lines of pi's session files in the conformance cases.
    fn conformance_lines() -> Vec<Vec<u8>> {
        let mut lines = Vec::new();
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/sessions");
        if let Ok(rd) = std::fs::read_dir(dir) {
            for f in rd.flatten() {
                if let Ok(t) = std::fs::read(f.path()) {
                    lines.extend(t.split(|&b| b == b'\n').map(|l| l.to_vec()));
                }
            }
        }
        lines
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
        cases.extend(conformance_lines());
        let mut yes = 0;
        for c in &cases {
            let Ok(r) = scan::validate(c) else { continue };
            let v = &c[r.clone()];
            if already_canonical(v) {
                yes += 1;
                let out = canonical_long_way(c, r).unwrap();
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
        let mut lines = conformance_lines();
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
                let out = canonical_long_way(v, 0..v.len()).unwrap();
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

    /// The escapes the marks give for any span of a string are those a
    /// byte-by-byte walk from the span's start finds, across blocks.
    #[test]
    fn marks_give_the_escapes_of_a_span() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let pieces: [&[u8]; 6] = [b"\\n", b"\\\\", b"\\\"", b"ab", b"\\t", b"\\u00e9"];
        for _ in 0..2_000 {
            let mut v = b"{\"k\":\"".to_vec();
            for _ in 0..next() % 80 {
                v.extend_from_slice(pieces[(next() % 6) as usize]);
            }
            v.extend_from_slice(b"\"}");
            let mut c = Checker::new();
            assert!(
                c.valid_object(&v).is_some(),
                "{}",
                String::from_utf8_lossy(&v)
            );
            let end = v.len() - 2;
            // a span starts after the opening quote or after an escape
            let mut starts = vec![6];
            let mut i = 6;
            let mut all = Vec::new();
            while i < end {
                if v[i] == b'\\' {
                    all.push(i);
                    i += if v[i + 1] == b'u' { 6 } else { 2 };
                    starts.push(i);
                } else {
                    i += 1;
                    if v[i - 1] != b'\\' {
                        starts.push(i);
                    }
                }
            }
            for &from in &starts {
                let to = from + (next() as usize % (end - from + 1));
                let want: Vec<usize> = all
                    .iter()
                    .copied()
                    .filter(|&e| e >= from && e < to)
                    .collect();
                let got: Vec<usize> = c.marks().escapes(from, to).collect();
                assert_eq!(got, want, "{} {from}..{to}", String::from_utf8_lossy(&v));
            }
        }
    }
}
