//! The scanner's vector units: which one runs, and each one's two jobs,
//! [`find_special`] (the next `"`, `\\` or control character inside a
//! string: the scanner's hot loop) and [`string_classes`] (the kinds of
//! bytes of each 64 bytes of a line: `js::Checker`'s first pass, which
//! every load takes for the lines pi wrote).
//!
//! The unit is chosen once per process ([`unit`]): the best the processor
//! has (AVX-512BW, then AVX2, then SSE2 on x86-64, which every x86-64
//! processor has; NEON on aarch64, which every aarch64 processor has;
//! portable scalar code, eight bytes at a time, everywhere else), unless
//! the environment variable `PI_SESSION_TOOLS_SIMD` names one
//! (`none`, `sse2`, `avx2`, `avx512`, `neon`; `auto` or empty: the best).
//! A unit the processor lacks, or a name that is none of these, gets a
//! warning on stderr and the best unit instead.
//!
//! No crate does these two jobs: `memchr` finds one to three given bytes,
//! not a byte class (`"`, `\\` and the 32 control characters), and gives
//! positions, not the bit masks per 64 bytes the checker needs.

use super::Classes;
use std::sync::OnceLock;

/// A vector unit the scanner can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Portable scalar code (eight bytes at a time in a `u64`).
    None,
    /// x86-64's baseline 16-byte vectors.
    Sse2,
    /// x86-64's 32-byte vectors (detected at run time).
    Avx2,
    /// x86-64's 64-byte vectors with byte compares (AVX-512BW, detected).
    Avx512,
    /// aarch64's 16-byte vectors (always there).
    Neon,
}

impl Unit {
    /// Every unit, from the least to the most preferred.
    pub const ALL: [Unit; 5] = [Unit::None, Unit::Sse2, Unit::Neon, Unit::Avx2, Unit::Avx512];

    /// The name `PI_SESSION_TOOLS_SIMD` takes.
    pub fn name(self) -> &'static str {
        match self {
            Unit::None => "none",
            Unit::Sse2 => "sse2",
            Unit::Avx2 => "avx2",
            Unit::Avx512 => "avx512",
            Unit::Neon => "neon",
        }
    }

    /// Whether this processor has the unit.
    pub fn available(self) -> bool {
        match self {
            Unit::None => true,
            #[cfg(target_arch = "x86_64")]
            Unit::Sse2 => true,
            #[cfg(target_arch = "x86_64")]
            Unit::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            Unit::Avx512 => std::arch::is_x86_feature_detected!("avx512bw"),
            #[cfg(target_arch = "aarch64")]
            Unit::Neon => true,
            #[allow(unreachable_patterns)]
            _ => false,
        }
    }

    /// The best unit this processor has.
    pub fn best() -> Unit {
        Unit::ALL
            .into_iter()
            .rev()
            .find(|u| u.available())
            .unwrap_or(Unit::None)
    }
}

/// Every unit this processor has (the tests and the fuzz targets hold each
/// to the byte-by-byte rule).
pub fn units() -> impl Iterator<Item = Unit> {
    Unit::ALL.into_iter().filter(|u| u.available())
}

/// The unit of this process: `PI_SESSION_TOOLS_SIMD`'s, read once, or the
/// best one.
#[inline]
pub fn unit() -> Unit {
    static UNIT: OnceLock<Unit> = OnceLock::new();
    *UNIT.get_or_init(|| {
        let wanted = std::env::var_os("PI_SESSION_TOOLS_SIMD");
        let (unit, warning) = choose(wanted.as_deref().map(|w| w.to_string_lossy()).as_deref());
        if let Some(w) = warning {
            let tool = std::env::args_os()
                .next()
                .and_then(|a| {
                    std::path::Path::new(&a)
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                })
                .unwrap_or_else(|| "pi-session-tools".into());
            eprintln!("{tool}: warning: {w}");
        }
        unit
    })
}

/// The unit `PI_SESSION_TOOLS_SIMD=wanted` asks for, and the warning to
/// give when this processor cannot have it.
pub fn choose(wanted: Option<&str>) -> (Unit, Option<String>) {
    let best = Unit::best();
    let Some(wanted) = wanted.map(str::trim).filter(|w| !w.is_empty()) else {
        return (best, None);
    };
    if wanted.eq_ignore_ascii_case("auto") {
        return (best, None);
    }
    match Unit::ALL
        .into_iter()
        .find(|u| u.name().eq_ignore_ascii_case(wanted))
    {
        Some(u) if u.available() => (u, None),
        Some(u) => (
            best,
            Some(format!(
                "PI_SESSION_TOOLS_SIMD={wanted}: this processor has no {}; using {}",
                match u {
                    Unit::Avx512 => "AVX-512BW",
                    Unit::Avx2 => "AVX2",
                    Unit::Sse2 => "SSE2",
                    Unit::Neon => "NEON",
                    Unit::None => "scalar unit",
                },
                best.name()
            )),
        ),
        None => (
            best,
            Some(format!(
                "PI_SESSION_TOOLS_SIMD={wanted}: not one of auto, none, sse2, avx2, avx512, neon; using {}",
                best.name()
            )),
        ),
    }
}

/// The position of the first `"`, `\\` or byte below 0x20 at or after
/// `pos`, with this process's unit.
#[inline]
pub fn find_special(text: &[u8], pos: usize) -> Option<usize> {
    // SAFETY: `unit()` is always one this processor has.
    unsafe { find_special_in(unit(), text, pos) }
}

/// [`find_special`] with `unit` (one this processor lacks takes the scalar
/// code).
pub fn find_special_with(unit: Unit, text: &[u8], pos: usize) -> Option<usize> {
    let unit = if unit.available() { unit } else { Unit::None };
    // SAFETY: checked just above.
    unsafe { find_special_in(unit, text, pos) }
}

/// # Safety
/// The processor must have `unit` ([`Unit::available`]).
#[inline]
unsafe fn find_special_in(unit: Unit, text: &[u8], pos: usize) -> Option<usize> {
    match unit {
        #[cfg(target_arch = "x86_64")]
        Unit::Sse2 => find_by(text, pos, x86::specials16),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the caller's word: the processor has AVX2. The function
        // reads nothing but `text`.
        Unit::Avx2 => unsafe { x86::find_special_avx2(text, pos) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, AVX-512BW.
        Unit::Avx512 => unsafe { x86::find_special_avx512(text, pos) },
        #[cfg(target_arch = "aarch64")]
        Unit::Neon => find_by(text, pos, neon::specials16),
        _ => find_by(text, pos, scalar::specials8),
    }
}

/// The scanner's string: [`super::scan_string`] with this process's unit.
#[inline]
pub fn scan_string(text: &[u8], start: usize) -> Result<usize, super::SyntaxError> {
    // SAFETY: `unit()` is always one this processor has.
    unsafe { scan_string_in(unit(), text, start) }
}

/// [`scan_string`] with `unit` (one this processor lacks takes the scalar
/// code).
pub fn scan_string_with(
    unit: Unit,
    text: &[u8],
    start: usize,
) -> Result<usize, super::SyntaxError> {
    let unit = if unit.available() { unit } else { Unit::None };
    // SAFETY: checked just above.
    unsafe { scan_string_in(unit, text, start) }
}

/// # Safety
/// The processor must have `unit` ([`Unit::available`]).
#[inline]
unsafe fn scan_string_in(
    unit: Unit,
    text: &[u8],
    start: usize,
) -> Result<usize, super::SyntaxError> {
    match unit {
        #[cfg(target_arch = "x86_64")]
        Unit::Sse2 => super::scan_string_by(text, start, x86::specials16),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the caller's word: the processor has AVX2. The function
        // reads nothing but `text`.
        Unit::Avx2 => unsafe { x86::scan_string_avx2(text, start) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, AVX-512BW.
        Unit::Avx512 => unsafe { x86::scan_string_avx512(text, start) },
        #[cfg(target_arch = "aarch64")]
        Unit::Neon => super::scan_string_by(text, start, neon::specials16),
        _ => super::scan_string_by(text, start, scalar::specials8),
    }
}

/// The first special byte at or after `pos`, a unit's block at a time
/// (`specials` as for [`super::scan_string_by`]).
#[inline(always)]
fn find_by(
    text: &[u8],
    mut pos: usize,
    specials: impl Fn(&[u8], usize) -> (u64, usize),
) -> Option<usize> {
    while pos < text.len() {
        let (m, n) = specials(text, pos);
        if m != 0 {
            return Some(pos + m.trailing_zeros() as usize);
        }
        pos += n;
    }
    None
}

/// The special bytes of the 16 bytes from `pos` by `special16` (one bit
/// each, and how many bytes that is): the last 16 bytes of the text,
/// shifted, near its end; byte by byte when the text is shorter than 16.
#[allow(dead_code)] // used by the vector units of some architectures only
#[inline]
fn specials16_with(text: &[u8], pos: usize, special16: impl Fn(&[u8; 16]) -> u64) -> (u64, usize) {
    let sixteen = |at: usize| match text.get(at..at + 16).map(<&[u8; 16]>::try_from) {
        Some(Ok(b)) => special16(b),
        _ => 0,
    };
    if pos + 16 <= text.len() {
        (sixteen(pos), 16)
    } else if text.len() >= 16 {
        let from = text.len() - 16;
        (sixteen(from) >> (pos - from), text.len() - pos)
    } else {
        specials_bytes(text, pos)
    }
}

/// The special bytes among the (fewer than 64) bytes from `pos` to the
/// end, one by one: the tail of a text shorter than a unit's block.
#[inline]
fn specials_bytes(text: &[u8], pos: usize) -> (u64, usize) {
    let rest = &text[pos..text.len().min(pos + 64)];
    let m = rest.iter().enumerate().fold(0u64, |m, (i, &b)| {
        m | u64::from(reference::is_special(b)) << i
    });
    (m, rest.len())
}

/// The [`Classes`] of each 64 bytes of `v` in `blocks` (the last block
/// padded with `a`, of no kind); false, with `blocks` unfinished, when a
/// byte is below 0x20. With this process's unit.
pub(crate) fn string_classes(v: &[u8], blocks: &mut Vec<Classes>) -> bool {
    // SAFETY: `unit()` is always one this processor has.
    unsafe { string_classes_in(unit(), v, blocks) }
}

/// [`string_classes`] with `unit` (one this processor lacks takes the
/// scalar code).
pub(crate) fn string_classes_with(unit: Unit, v: &[u8], blocks: &mut Vec<Classes>) -> bool {
    let unit = if unit.available() { unit } else { Unit::None };
    // SAFETY: checked just above.
    unsafe { string_classes_in(unit, v, blocks) }
}

/// # Safety
/// The processor must have `unit` ([`Unit::available`]).
unsafe fn string_classes_in(unit: Unit, v: &[u8], blocks: &mut Vec<Classes>) -> bool {
    blocks.clear();
    match unit {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE2 is part of every x86-64 processor; reads only `v`.
        Unit::Sse2 => unsafe { x86::string_classes_sse2(v, blocks) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the caller's word: the processor has AVX2; reads only `v`.
        Unit::Avx2 => unsafe { x86::string_classes_avx2(v, blocks) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, AVX-512BW.
        Unit::Avx512 => unsafe { x86::string_classes_avx512(v, blocks) },
        #[cfg(target_arch = "aarch64")]
        Unit::Neon => neon::string_classes(v, blocks),
        _ => classes_with(v, blocks, scalar::classes),
    }
}

/// The bytes that may follow a backslash in `JSON.stringify`'s text.
pub(super) const ESCAPABLE: [u8; 8] = [b'"', b'\\', b'b', b'f', b'n', b'r', b't', b'u'];

/// [`string_classes`] with `classes` for one block (its classes and its
/// control characters).
#[inline(always)]
fn classes_with(
    v: &[u8],
    blocks: &mut Vec<Classes>,
    classes: impl Fn(&[u8; 64]) -> (Classes, u64),
) -> bool {
    let mut chunks = v.chunks_exact(64);
    let mut control = 0u64;
    for block in &mut chunks {
        let Ok(block) = <&[u8; 64]>::try_from(block) else {
            return false;
        };
        let (c, ctl) = classes(block);
        blocks.push(c);
        control |= ctl;
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut block = [b'a'; 64];
        block[..rest.len()].copy_from_slice(rest);
        let (c, ctl) = classes(&block);
        blocks.push(c);
        control |= ctl;
    }
    control == 0
}

/// Byte-by-byte: the rule every unit is held to (by the unit tests and the
/// `json` fuzz target, [`check_units`]).
pub(crate) mod reference {
    use super::{Classes, ESCAPABLE};

    pub fn is_special(b: u8) -> bool {
        b == b'"' || b == b'\\' || b < 0x20
    }

    /// The scanner's string, one special byte at a time (as it was
    /// before the units took whole blocks).
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

    pub fn find_special(text: &[u8], pos: usize) -> Option<usize> {
        text.get(pos..)?
            .iter()
            .position(|&b| is_special(b))
            .map(|p| pos + p)
    }

    /// The classes of each 64 bytes of `v` (no padding needed: bytes past
    /// the end are of no kind), and whether no byte is below 0x20.
    pub fn string_classes(v: &[u8]) -> (Vec<Classes>, bool) {
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
        (out, v.iter().all(|&x| x >= 0x20))
    }
}

/// Every unit this processor has against the byte-by-byte rule on `v`:
/// the classes of its blocks, and the chain of special bytes from its
/// start and from each of its first 64 places (panics on a difference).
pub(crate) fn check_units(v: &[u8]) {
    let (want, clean) = reference::string_classes(v);
    let mut got = Vec::new();
    for unit in units() {
        assert_eq!(
            string_classes_with(unit, v, &mut got),
            clean,
            "{unit:?}: control bytes"
        );
        if clean {
            assert_eq!(got, want, "{unit:?}: classes");
        }
        for start in v
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'"')
            .map(|(i, _)| i)
            .take(256)
        {
            assert_eq!(
                scan_string_with(unit, v, start),
                reference::scan_string(v, start),
                "{unit:?}: the string at {start}"
            );
        }
        for start in 0..v.len().min(64) {
            let mut from = start;
            loop {
                let found = find_special_with(unit, v, from);
                assert_eq!(
                    found,
                    reference::find_special(v, from),
                    "{unit:?} from {from}"
                );
                match found {
                    Some(p) if start == 0 => from = p + 1,
                    _ => break,
                }
            }
        }
    }
}

/// Portable code: eight bytes at a time in a `u64` (SWAR).
mod scalar {
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
    pub fn classes(block: &[u8; 64]) -> (Classes, u64) {
        let mut c = Classes::default();
        let mut ctl = 0u64;
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
        }
        (c, ctl)
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::Classes;
    use std::arch::x86_64::*;

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

    /// [`specials16`] with 32 bytes; texts shorter than 32 bytes take SSE2.
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
            specials16(text, pos)
        }
    }

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

    #[target_feature(enable = "avx2")]
    pub fn find_special_avx2(text: &[u8], pos: usize) -> Option<usize> {
        super::find_by(text, pos, |t, p| specials32(t, p))
    }

    #[target_feature(enable = "avx512bw")]
    pub fn find_special_avx512(text: &[u8], pos: usize) -> Option<usize> {
        super::find_by(text, pos, |t, p| specials64(t, p))
    }

    #[target_feature(enable = "avx2")]
    pub fn scan_string_avx2(text: &[u8], start: usize) -> Result<usize, crate::json::SyntaxError> {
        crate::json::scan::scan_string_by(text, start, |t, p| specials32(t, p))
    }

    #[target_feature(enable = "avx512bw")]
    pub fn scan_string_avx512(
        text: &[u8],
        start: usize,
    ) -> Result<usize, crate::json::SyntaxError> {
        crate::json::scan::scan_string_by(text, start, |t, p| specials64(t, p))
    }

    #[target_feature(enable = "avx512bw")]
    pub fn string_classes_avx512(v: &[u8], blocks: &mut Vec<Classes>) -> bool {
        super::classes_with(v, blocks, |block| {
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
            )
        })
    }

    /// The classes of 32 bytes: quote, backslash, escapable, `u`, `/`
    /// and control, one bit a byte.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn classes32(half: &[u8]) -> [u32; 6] {
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
        ]
    }

    #[target_feature(enable = "avx2")]
    pub fn string_classes_avx2(v: &[u8], blocks: &mut Vec<Classes>) -> bool {
        super::classes_with(v, blocks, |block| {
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
            )
        })
    }

    #[target_feature(enable = "sse2")]
    pub fn string_classes_sse2(v: &[u8], blocks: &mut Vec<Classes>) -> bool {
        super::classes_with(v, blocks, |block| {
            let mut c = Classes::default();
            let mut control = 0u64;
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
                }
            }
            (c, control)
        })
    }
}

#[cfg(target_arch = "aarch64")]
mod neon {
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

    pub(crate) fn string_classes(v: &[u8], blocks: &mut Vec<Classes>) -> bool {
        super::classes_with(v, blocks, |block| {
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
                (
                    Classes {
                        quote: bits(quote),
                        backslash: bits(backslash),
                        escapable: bits(escapable),
                        u: bits(u),
                        slash: bits(eq(b'/')),
                    },
                    u64::from(vmaxvq_u8(any)),
                )
            }
        })
    }
}
