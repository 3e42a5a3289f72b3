//! aarch64's NEON (16-byte vectors, part of every aarch64 processor).

use super::Classes;
use std::arch::aarch64::*;

#[inline]
fn load(b: &[u8; 16]) -> uint8x16_t {
    // SAFETY: `b` is 16 readable bytes; NEON is part of every aarch64
    // processor.
    unsafe { vld1q_u8(b.as_ptr()) }
}

/// The special bytes of 16 bytes, one bit each (weighed by their bit,
/// then added across each half).
#[inline]
fn special16(block: &[u8; 16]) -> u64 {
    const WEIGHTS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
    // SAFETY: NEON is part of every aarch64 processor; `WEIGHTS` is 16
    // readable bytes.
    unsafe {
        let x = load(block);
        let m = vorrq_u8(
            vorrq_u8(
                vceqq_u8(x, vdupq_n_u8(b'"')),
                vceqq_u8(x, vdupq_n_u8(b'\\')),
            ),
            vcltq_u8(x, vdupq_n_u8(0x20)),
        );
        let w = vandq_u8(m, vld1q_u8(WEIGHTS.as_ptr()));
        u64::from(vaddv_u8(vget_low_u8(w))) | u64::from(vaddv_u8(vget_high_u8(w))) << 8
    }
}

/// The special bytes of the 16 from `pos` (see `scan_string_by`), the
/// last step overlapping.
#[inline]
pub fn specials16(text: &[u8], pos: usize) -> (u64, usize) {
    super::specials16_with(text, pos, special16)
}

/// One bit per byte of four compare results (simdjson's way: weigh each
/// lane by its bit, then add neighbours three times).
#[inline]
fn bits(m: [uint8x16_t; 4]) -> u64 {
    const WEIGHTS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
    // SAFETY: NEON is part of every aarch64 processor; `WEIGHTS` is 16
    // readable bytes.
    unsafe {
        let w = vld1q_u8(WEIGHTS.as_ptr());
        let a = vpaddq_u8(vandq_u8(m[0], w), vandq_u8(m[1], w));
        let b = vpaddq_u8(vandq_u8(m[2], w), vandq_u8(m[3], w));
        let s = vpaddq_u8(a, b);
        let s = vpaddq_u8(s, s);
        vgetq_lane_u64::<0>(vreinterpretq_u64_u8(s))
    }
}

pub(crate) fn blocks<F: super::EachBlock>(v: &[u8], each: F) -> Option<std::ops::Range<usize>> {
    let classes = |block: &[u8; 64]| {
        // SAFETY: NEON is part of every aarch64 processor.
        unsafe {
            let x: [uint8x16_t; 4] = std::array::from_fn(|k| {
                let q = <&[u8; 16]>::try_from(&block[16 * k..16 * k + 16]);
                q.map_or(vdupq_n_u8(b'a'), load)
            });
            let eq = |c: u8| x.map(|x| vceqq_u8(x, vdupq_n_u8(c)));
            let quote = eq(b'"');
            let backslash = eq(b'\\');
            let u = eq(b'u');
            let mut escapable: [uint8x16_t; 4] =
                std::array::from_fn(|k| vorrq_u8(vorrq_u8(quote[k], backslash[k]), u[k]));
            for &ch in &super::ESCAPABLE[2..7] {
                let e = eq(ch);
                for k in 0..4 {
                    escapable[k] = vorrq_u8(escapable[k], e[k]);
                }
            }
            let low = x.map(|x| vcltq_u8(x, vdupq_n_u8(0x20)));
            let any = vorrq_u8(vorrq_u8(low[0], low[1]), vorrq_u8(low[2], low[3]));
            let top = vmaxq_u8(vmaxq_u8(x[0], x[1]), vmaxq_u8(x[2], x[3]));
            (
                Classes {
                    quote: bits(quote),
                    backslash: bits(backslash),
                    escapable: bits(escapable),
                    u: bits(u),
                    slash: bits(eq(b'/')),
                },
                u64::from(vmaxvq_u8(any)),
                u64::from(vmaxvq_u8(top) >> 7),
            )
        }
    };
    super::blocks_with(v, classes, each)
}
