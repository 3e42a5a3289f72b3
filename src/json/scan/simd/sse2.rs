//! x86-64's SSE2 (16-byte vectors, part of every x86-64 processor); AVX2
//! takes its 16-byte look for texts shorter than 32 bytes.

use super::Classes;
use std::arch::x86_64::*;
use std::ops::Range;

/// The quote, backslash and control-character lanes of `x`.
#[inline]
#[target_feature(enable = "sse2")]
fn lanes(x: __m128i) -> (__m128i, __m128i, __m128i) {
    let quote = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'"' as i8));
    let backslash = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'\\' as i8));
    // x <= 0x1f, unsigned: min(x, 0x1f) == x.
    let control = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x);
    (quote, backslash, control)
}

#[inline]
#[target_feature(enable = "sse2")]
fn load(b: &[u8; 16]) -> __m128i {
    // SAFETY: `b` is 16 readable bytes; the load needs no alignment.
    unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
}

/// The special bytes of the 16 at `text[at..at + 16]`, one bit each.
#[inline]
#[target_feature(enable = "sse2")]
fn special16(block: &[u8; 16]) -> u32 {
    let (quote, backslash, control) = lanes(load(block));
    _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)) as u32
}

/// The special bytes of the 16 from `pos` (see `scan_string_by`); near
/// the end, of the last 16 bytes, shifted (no byte is looked at alone
/// unless the text is shorter than 16 bytes).
#[inline]
pub fn specials16(text: &[u8], pos: usize) -> (u64, usize) {
    // SAFETY: SSE2 is part of every x86-64 processor.
    super::specials16_with(text, pos, |b| u64::from(unsafe { special16(b) }))
}

#[target_feature(enable = "sse2")]
pub fn blocks<F: super::EachBlock>(v: &[u8], each: F) -> Option<Range<usize>> {
    let classes = |block: &[u8; 64]| {
        let mut c = Classes::default();
        let (mut control, mut high) = (0u64, 0u64);
        for (k, quarter) in block.chunks_exact(16).enumerate() {
            if let Ok(quarter) = <&[u8; 16]>::try_from(quarter) {
                let x = load(quarter);
                let (quote, backslash, ctl) = lanes(x);
                let bits = |m: __m128i| u64::from(_mm_movemask_epi8(m) as u16) << (16 * k);
                let eq = |ch: u8| _mm_cmpeq_epi8(x, _mm_set1_epi8(ch as i8));
                let u = eq(b'u');
                let escapable = super::ESCAPABLE[2..7]
                    .iter()
                    .fold(_mm_or_si128(_mm_or_si128(quote, backslash), u), |m, &ch| {
                        _mm_or_si128(m, eq(ch))
                    });
                c.quote |= bits(quote);
                c.backslash |= bits(backslash);
                c.escapable |= bits(escapable);
                c.u |= bits(u);
                c.slash |= bits(eq(b'/'));
                control |= bits(ctl);
                high |= bits(x);
            }
        }
        (c, control, high)
    };
    super::blocks_with(v, classes, each)
}
