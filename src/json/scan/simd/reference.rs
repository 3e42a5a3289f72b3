//! Byte-by-byte: the rule every unit is held to (by the unit tests and the
//! `json` fuzz target, [`super::check_units`]).

#[cfg(any(test, feature = "fuzzing"))]
use super::{Classes, ESCAPABLE};

pub fn is_special(b: u8) -> bool {
    b == b'"' || b == b'\\' || b < 0x20
}

/// The scanner's string, one special byte at a time (as it was
/// before the units took whole blocks).
#[cfg(any(test, feature = "fuzzing"))]
pub fn scan_string(text: &[u8], start: usize) -> Result<usize, crate::json::SyntaxError> {
    let err = |offset, what| crate::json::SyntaxError { offset, what };
    let mut pos = start + 1;
    loop {
        pos = find_special(text, pos).ok_or_else(|| err(text.len(), "unterminated string"))?;
        match text[pos] {
            b'"' => return Ok(pos + 1),
            b'\\' => match *text
                .get(pos + 1)
                .ok_or_else(|| err(pos, "unterminated string"))?
            {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => pos += 2,
                b'u' => {
                    let hex = text
                        .get(pos + 2..pos + 6)
                        .ok_or_else(|| err(pos, "bad \\u escape"))?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return Err(err(pos, "bad \\u escape"));
                    }
                    pos += 6;
                }
                _ => return Err(err(pos, "bad escape")),
            },
            _ => return Err(err(pos, "control character in string")),
        }
    }
}

#[cfg(any(test, feature = "fuzzing"))]
pub fn find_special(text: &[u8], pos: usize) -> Option<usize> {
    text.get(pos..)?
        .iter()
        .position(|&b| is_special(b))
        .map(|p| pos + p)
}

/// The classes of each 64 bytes of `v` (no padding needed: bytes past
/// the end are of no kind), whether no byte is below 0x20, and the blocks
/// from the first to the last with a byte of 0x80 or more (empty: none).
#[cfg(any(test, feature = "fuzzing"))]
pub fn string_classes(v: &[u8]) -> (Vec<Classes>, bool, std::ops::Range<usize>) {
    let high: Vec<usize> = v
        .chunks(64)
        .enumerate()
        .filter(|(_, b)| b.iter().any(|&x| x >= 0x80))
        .map(|(w, _)| w)
        .collect();
    let high = match (high.first(), high.last()) {
        (Some(&a), Some(&b)) => a..b + 1,
        _ => 0..0,
    };
    let mut out = Vec::new();
    for block in v.chunks(64) {
        let mut c = Classes::default();
        for (k, &x) in block.iter().enumerate() {
            c.quote |= u64::from(x == b'"') << k;
            c.backslash |= u64::from(x == b'\\') << k;
            c.escapable |= u64::from(ESCAPABLE.contains(&x)) << k;
            c.u |= u64::from(x == b'u') << k;
            c.slash |= u64::from(x == b'/') << k;
        }
        out.push(c);
    }
    (out, v.iter().all(|&x| x >= 0x20), high)
}
