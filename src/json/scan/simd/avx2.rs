//! x86-64's AVX2 (32-byte vectors, detected at run time).

use super::Classes;
use std::arch::x86_64::*;
use std::ops::Range;

/// The special bytes of 32 bytes, one bit each.
#[inline]
#[target_feature(enable = "avx2")]
fn special32(block: &[u8; 32]) -> u32 {
    // SAFETY: `block` is 32 readable bytes; no alignment needed.
    let x = unsafe { _mm256_loadu_si256(block.as_ptr().cast()) };
    let quote = _mm256_cmpeq_epi8(x, _mm256_set1_epi8(b'"' as i8));
    let backslash = _mm256_cmpeq_epi8(x, _mm256_set1_epi8(b'\\' as i8));
    let control = _mm256_cmpeq_epi8(_mm256_min_epu8(x, _mm256_set1_epi8(0x1f)), x);
    _mm256_movemask_epi8(_mm256_or_si256(_mm256_or_si256(quote, backslash), control)) as u32
}

/// [`super::sse2::specials16`] with 32 bytes; texts shorter than 32 bytes take SSE2.
#[inline]
#[target_feature(enable = "avx2")]
fn specials32(text: &[u8], pos: usize) -> (u64, usize) {
    let block = |at: usize| match text.get(at..at + 32).map(<&[u8; 32]>::try_from) {
        Some(Ok(b)) => u64::from(special32(b)),
        _ => 0,
    };
    if pos + 32 <= text.len() {
        (block(pos), 32)
    } else if text.len() >= 32 {
        let from = text.len() - 32;
        (block(from) >> (pos - from), text.len() - pos)
    } else {
        super::sse2::specials16(text, pos)
    }
}

#[cfg(any(test, feature = "fuzzing"))]
#[target_feature(enable = "avx2")]
pub fn find_special(text: &[u8], pos: usize) -> Option<usize> {
    super::find_by(text, pos, |t, p| specials32(t, p))
}

#[target_feature(enable = "avx2")]
pub fn scan_string(text: &[u8], start: usize) -> Result<usize, crate::json::SyntaxError> {
    crate::json::scan::scan_string_by(text, start, |t, p| specials32(t, p))
}

/// The classes of 32 bytes: quote, backslash, escapable, `u`, `/`,
/// control and 0x80 or more, one bit a byte.
#[inline]
#[target_feature(enable = "avx2")]
fn classes32(half: &[u8]) -> [u32; 7] {
    debug_assert!(half.len() >= 32);
    let half = &half[..32];
    // SAFETY: `half` is 32 readable bytes; no alignment needed.
    let x = unsafe { _mm256_loadu_si256(half.as_ptr().cast()) };
    let quote = _mm256_cmpeq_epi8(x, _mm256_set1_epi8(b'"' as i8));
    let backslash = _mm256_cmpeq_epi8(x, _mm256_set1_epi8(b'\\' as i8));
    let u = _mm256_cmpeq_epi8(x, _mm256_set1_epi8(b'u' as i8));
    let b = _mm256_cmpeq_epi8(x, _mm256_set1_epi8(b'b' as i8));
    let f = _mm256_cmpeq_epi8(x, _mm256_set1_epi8(b'f' as i8));
    let n = _mm256_cmpeq_epi8(x, _mm256_set1_epi8(b'n' as i8));
    let r = _mm256_cmpeq_epi8(x, _mm256_set1_epi8(b'r' as i8));
    let t = _mm256_cmpeq_epi8(x, _mm256_set1_epi8(b't' as i8));
    let slash = _mm256_cmpeq_epi8(x, _mm256_set1_epi8(b'/' as i8));
    let escapable = _mm256_or_si256(
        _mm256_or_si256(_mm256_or_si256(quote, backslash), _mm256_or_si256(u, b)),
        _mm256_or_si256(_mm256_or_si256(f, n), _mm256_or_si256(r, t)),
    );
    let control = _mm256_cmpeq_epi8(_mm256_min_epu8(x, _mm256_set1_epi8(0x1f)), x);
    // An empty `asm!` hides where each mask comes from: LLVM would
    // otherwise fuse the two halves' compares into one of 64 lanes,
    // which AVX2 has no mask register for, and build that byte by byte
    // (three times slower than SSE2).
    let mask = |m: __m256i| {
        let mut bits = _mm256_movemask_epi8(m) as u32;
        // SAFETY: the template is a comment; it only keeps `bits` in a
        // register and reads or writes nothing else.
        unsafe {
            std::arch::asm!("/* {0:e} */", inout(reg) bits, options(pure, nomem, nostack, preserves_flags));
        }
        bits
    };
    [
        mask(quote),
        mask(backslash),
        mask(escapable),
        mask(u),
        mask(slash),
        mask(control),
        mask(x),
    ]
}

#[target_feature(enable = "avx2")]
pub fn blocks<F: super::EachBlock>(v: &[u8], each: F) -> Option<Range<usize>> {
    super::blocks_with(
        v,
        |block| {
            let lo = classes32(&block[..32]);
            let hi = classes32(&block[32..]);
            let w = |k: usize| u64::from(lo[k]) | u64::from(hi[k]) << 32;
            (
                Classes {
                    quote: w(0),
                    backslash: w(1),
                    escapable: w(2),
                    u: w(3),
                    slash: w(4),
                },
                w(5),
                w(6),
            )
        },
        each,
    )
}
