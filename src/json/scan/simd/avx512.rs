//! x86-64's AVX-512BW (64-byte vectors with byte compares, detected at
//! run time): one masked load per 64 bytes, none past the text's end.

use super::Classes;
use std::arch::x86_64::*;
use std::ops::Range;

/// The special bytes of the 64 from `pos`, or of those there are (a
/// masked load never touches the lanes it leaves out).
#[inline]
#[target_feature(enable = "avx512bw")]
fn specials64(text: &[u8], pos: usize) -> (u64, usize) {
    let n = (text.len() - pos).min(64);
    let keep = if n == 64 { !0u64 } else { (1u64 << n) - 1 };
    // SAFETY: the mask selects only bytes of `text` (`pos + i` for
    // `i < n`, and `pos < text.len()`); the others are neither read nor
    // faulted on.
    let x = unsafe { _mm512_maskz_loadu_epi8(keep, text.as_ptr().add(pos).cast()) };
    let eq = |c: u8| _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(c as i8));
    let control = _mm512_cmplt_epu8_mask(x, _mm512_set1_epi8(0x20));
    ((eq(b'"') | eq(b'\\') | control) & keep, n)
}

#[cfg(any(test, feature = "fuzzing"))]
#[target_feature(enable = "avx512bw")]
pub fn find_special(text: &[u8], pos: usize) -> Option<usize> {
    super::find_by(text, pos, |t, p| specials64(t, p))
}

#[target_feature(enable = "avx512bw")]
pub fn scan_string(text: &[u8], start: usize) -> Result<usize, crate::json::SyntaxError> {
    crate::json::scan::scan_string_by(text, start, |t, p| specials64(t, p))
}

#[target_feature(enable = "avx512bw")]
pub fn blocks<F: super::EachBlock>(v: &[u8], each: F) -> Option<Range<usize>> {
    super::blocks_with(
        v,
        |block| {
            // SAFETY: `block` is 64 readable bytes; no alignment needed.
            let x = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
            let eq = |c: u8| _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(c as i8));
            let quote = eq(b'"');
            let backslash = eq(b'\\');
            let u = eq(b'u');
            let escapable = super::ESCAPABLE[2..7]
                .iter()
                .fold(quote | backslash | u, |m, &c| m | eq(c));
            let control = _mm512_cmplt_epu8_mask(x, _mm512_set1_epi8(0x20));
            (
                Classes {
                    quote,
                    backslash,
                    escapable,
                    u,
                    slash: eq(b'/'),
                },
                control,
                _mm512_movepi8_mask(x),
            )
        },
        each,
    )
}
