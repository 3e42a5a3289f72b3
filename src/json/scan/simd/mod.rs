//! The scanner's vector units: which one runs, and each one's two jobs,
//! [`find_special`] (the next `"`, `\\` or control character inside a
//! string: the scanner's hot loop) and `string_classes` (the kinds of
//! bytes of each 64 bytes of a line: `js::check::Checker`'s first pass, which
//! every load takes for the lines pi wrote).
//!
//! The unit is chosen once per process ([`unit()`]): the best the processor
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

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "aarch64")]
mod neon;
pub(crate) mod reference;
mod scalar;
#[cfg(target_arch = "x86_64")]
mod sse2;
#[cfg(test)]
mod tests;

use super::Classes;
use std::ops::Range;
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

#[cfg(any(test, feature = "fuzzing"))]
/// Every unit this processor has (the tests and the fuzz targets hold each
/// to the byte-by-byte rule).
pub fn units() -> impl Iterator<Item = Unit> {
    Unit::ALL.into_iter().filter(|u| u.available())
}

/// The unit of this process: `PI_SESSION_TOOLS_SIMD`'s, read once, or the
/// best one.
#[inline]
pub fn unit() -> Unit {
    chosen().0
}

/// Why `PI_SESSION_TOOLS_SIMD` could not be honoured, if it could not
/// (`cli::main` warns of it where it checks the other settings).
pub fn override_warning() -> Option<&'static str> {
    chosen().1.as_deref()
}

/// `PI_SESSION_TOOLS_SIMD` read once: the unit, and the warning to give.
fn chosen() -> &'static (Unit, Option<String>) {
    static UNIT: OnceLock<(Unit, Option<String>)> = OnceLock::new();
    UNIT.get_or_init(|| {
        let wanted = std::env::var_os("PI_SESSION_TOOLS_SIMD");
        choose(wanted.as_deref().map(|w| w.to_string_lossy()).as_deref())
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

#[cfg(any(test, feature = "fuzzing"))]
/// The position of the first `"`, `\\` or byte below 0x20 at or after
/// `pos`, with this process's unit.
#[inline]
pub fn find_special(text: &[u8], pos: usize) -> Option<usize> {
    // SAFETY: `unit()` is always one this processor has.
    unsafe { find_special_in(unit(), text, pos) }
}

#[cfg(any(test, feature = "fuzzing"))]
/// [`find_special`] with `unit` (one this processor lacks takes the scalar
/// code).
pub fn find_special_with(unit: Unit, text: &[u8], pos: usize) -> Option<usize> {
    let unit = if unit.available() { unit } else { Unit::None };
    // SAFETY: checked just above.
    unsafe { find_special_in(unit, text, pos) }
}

#[cfg(any(test, feature = "fuzzing"))]
/// # Safety
/// The processor must have `unit` ([`Unit::available`]).
#[inline]
unsafe fn find_special_in(unit: Unit, text: &[u8], pos: usize) -> Option<usize> {
    match unit {
        #[cfg(target_arch = "x86_64")]
        Unit::Sse2 => find_by(text, pos, sse2::specials16),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the caller's word: the processor has AVX2. The function
        // reads nothing but `text`.
        Unit::Avx2 => unsafe { avx2::find_special(text, pos) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, AVX-512BW.
        Unit::Avx512 => unsafe { avx512::find_special(text, pos) },
        #[cfg(target_arch = "aarch64")]
        Unit::Neon => find_by(text, pos, neon::specials16),
        _ => find_by(text, pos, scalar::specials8),
    }
}

/// The scanner's string (`scan::scan_string`) with this process's unit.
#[inline]
pub fn scan_string(text: &[u8], start: usize) -> Result<usize, super::SyntaxError> {
    // SAFETY: `unit()` is always one this processor has.
    unsafe { scan_string_in(unit(), text, start) }
}

#[cfg(any(test, feature = "fuzzing"))]
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
        Unit::Sse2 => super::scan_string_by(text, start, sse2::specials16),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the caller's word: the processor has AVX2. The function
        // reads nothing but `text`.
        Unit::Avx2 => unsafe { avx2::scan_string(text, start) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, AVX-512BW.
        Unit::Avx512 => unsafe { avx512::scan_string(text, start) },
        #[cfg(target_arch = "aarch64")]
        Unit::Neon => super::scan_string_by(text, start, neon::specials16),
        _ => super::scan_string_by(text, start, scalar::specials8),
    }
}

#[cfg(any(test, feature = "fuzzing"))]
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

/// What [`for_each_block`] hands each block's classes to: false to stop.
/// A closure is one; a hot caller implements it with `#[inline(always)]`,
/// so that its work lands in the unit's own loop (a closure's call is
/// left out of line there).
pub(crate) trait EachBlock {
    fn block(&mut self, c: &Classes) -> bool;
}

impl<F: FnMut(&Classes) -> bool> EachBlock for F {
    #[inline(always)]
    fn block(&mut self, c: &Classes) -> bool {
        self(c)
    }
}

/// Hand the [`Classes`] of each 64 bytes of `v` to `each`, in order (the
/// last block padded with `a`, of no kind), with this process's unit: the
/// checker's one pass over a line. None when a byte is below 0x20 or
/// `each` says false (no block after it is looked at); else the blocks
/// that hold a byte of 0x80 or more, from the first to the last (empty
/// when there is none): outside them the text is ASCII, so it is UTF-8
/// when their bytes are.
#[inline]
pub(crate) fn for_each_block<F: EachBlock>(v: &[u8], each: F) -> Option<Range<usize>> {
    // SAFETY: `unit()` is always one this processor has.
    unsafe { for_each_block_in(unit(), v, each) }
}

/// [`for_each_block`] with `unit` (one this processor lacks takes the
/// scalar code), the classes gathered in `blocks`.
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn string_classes_with(
    unit: Unit,
    v: &[u8],
    blocks: &mut Vec<Classes>,
) -> Option<Range<usize>> {
    let unit = if unit.available() { unit } else { Unit::None };
    blocks.clear();
    // SAFETY: checked just above.
    unsafe {
        for_each_block_in(unit, v, |c: &Classes| {
            blocks.push(*c);
            true
        })
    }
}

/// # Safety
/// The processor must have `unit` ([`Unit::available`]).
#[inline]
unsafe fn for_each_block_in<F: EachBlock>(unit: Unit, v: &[u8], each: F) -> Option<Range<usize>> {
    match unit {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE2 is part of every x86-64 processor; reads only `v`.
        Unit::Sse2 => unsafe { sse2::blocks(v, each) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the caller's word: the processor has AVX2; reads only `v`.
        Unit::Avx2 => unsafe { avx2::blocks(v, each) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, AVX-512BW.
        Unit::Avx512 => unsafe { avx512::blocks(v, each) },
        #[cfg(target_arch = "aarch64")]
        Unit::Neon => neon::blocks(v, each),
        _ => blocks_with(v, scalar::classes, each),
    }
}

/// The bytes that may follow a backslash in `JSON.stringify`'s text.
pub(super) const ESCAPABLE: [u8; 8] = [b'"', b'\\', b'b', b'f', b'n', b'r', b't', b'u'];

/// What a unit makes of one 64-byte block: its classes, its control
/// characters (any bit set: one at least) and its bytes of 0x80 or more
/// (the same).
type Block = (Classes, u64, u64);

/// [`for_each_block`] with `classes` for one block.
#[inline(always)]
fn blocks_with(
    v: &[u8],
    classes: impl Fn(&[u8; 64]) -> Block,
    mut each: impl EachBlock,
) -> Option<Range<usize>> {
    // The first block with a byte of 0x80 or more, and one past the last.
    let (mut first, mut last) = (usize::MAX, 0usize);
    let mut padded = [b'a'; 64];
    for w in 0..v.len().div_ceil(64) {
        let block = match v.get(w * 64..w * 64 + 64).map(<&[u8; 64]>::try_from) {
            Some(Ok(b)) => b,
            _ => {
                let rest = v.get(w * 64..).unwrap_or_default();
                padded[..rest.len()].copy_from_slice(rest);
                &padded
            }
        };
        let (c, control, high) = classes(block);
        if control != 0 || !each.block(&c) {
            return None;
        }
        if high != 0 {
            first = first.min(w);
            last = w + 1;
        }
    }
    Some(if first == usize::MAX {
        0..0
    } else {
        first..last
    })
}

/// Every unit this processor has against the byte-by-byte rule on `v`:
/// the classes of its blocks, and the chain of special bytes from its
/// start and from each of its first 64 places (panics on a difference).
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn check_units(v: &[u8]) {
    let (want, clean, high) = reference::string_classes(v);
    let mut got = Vec::new();
    for unit in units() {
        let range = string_classes_with(unit, v, &mut got);
        assert_eq!(range.is_some(), clean, "{unit:?}: control bytes");
        if let Some(range) = range {
            assert_eq!(got, want, "{unit:?}: classes");
            assert_eq!(range, high, "{unit:?}: blocks not ASCII");
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
