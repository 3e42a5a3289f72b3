//! Portable code: eight bytes at a time in a `u64` (SWAR), for a
//! processor without a vector unit the scanner knows (and `none`).

use super::Classes;

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;
const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// The high bit of each byte of `w` that equals `c`, exactly (no
/// borrow crosses bytes).
#[inline(always)]
fn eq(w: u64, c: u8) -> u64 {
    let x = w ^ (LO * u64::from(c));
    !(((x & LOW7) + LOW7) | x) & HI
}

/// The high bit of each byte of `w` below 0x20, exactly.
#[inline(always)]
fn control(w: u64) -> u64 {
    !(((w & LOW7) + LO * 0x60) | w) & HI
}

/// The high bits of the eight bytes as eight bits (byte `i`: bit `i`).
#[inline(always)]
fn pack(m: u64) -> u64 {
    ((m >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

/// The special bytes of the eight from `pos` (see `scan_string_by`).
#[inline]
pub fn specials8(text: &[u8], pos: usize) -> (u64, usize) {
    match text.get(pos..pos + 8).map(<[u8; 8]>::try_from) {
        Some(Ok(a)) => {
            let w = u64::from_le_bytes(a);
            (pack(eq(w, b'"') | eq(w, b'\\') | control(w)), 8)
        }
        _ => super::specials_bytes(text, pos),
    }
}

#[inline]
pub fn classes(block: &[u8; 64]) -> super::Block {
    let mut c = Classes::default();
    let (mut ctl, mut high) = (0u64, 0u64);
    for (k, chunk) in block.chunks_exact(8).enumerate() {
        let Ok(a) = <[u8; 8]>::try_from(chunk) else {
            continue;
        };
        let w = u64::from_le_bytes(a);
        let quote = eq(w, b'"');
        let backslash = eq(w, b'\\');
        let u = eq(w, b'u');
        let escapable = super::ESCAPABLE[2..7]
            .iter()
            .fold(quote | backslash | u, |m, &x| m | eq(w, x));
        let at = 8 * k;
        c.quote |= pack(quote) << at;
        c.backslash |= pack(backslash) << at;
        c.escapable |= pack(escapable) << at;
        c.u |= pack(u) << at;
        c.slash |= pack(eq(w, b'/')) << at;
        ctl |= control(w);
        high |= w & HI;
    }
    (c, ctl, high)
}
