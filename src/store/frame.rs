//! The frame of a cache entry (see `cache`): its length and a checksum of
//! its bytes, before them, so that an entry is known whole and undamaged
//! before it is decoded, and skipped by its length.

/// A 64-bit checksum of `b`: four lanes of multiply-xorshift over 8 bytes
/// a step (each step a bijection of its lane, so any change within one
/// 8-byte word, a flipped bit or byte, always changes the sum), folded
/// with the length. A few milliseconds for a cache of tens of megabytes,
/// where SHA-1 would cost more than the run the cache saves.
fn checksum(b: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let word = |c: &[u8]| {
        let mut a = [0u8; 8];
        a[..c.len()].copy_from_slice(c);
        u64::from_le_bytes(a)
    };
    let step = |h: u64, w: u64| {
        let h = (h ^ w).wrapping_mul(K);
        h ^ (h >> 32)
    };
    let mut lanes = [K, K.rotate_left(16), K.rotate_left(32), K.rotate_left(48)];
    let mut blocks = b.chunks_exact(32);
    for block in &mut blocks {
        for (l, c) in lanes.iter_mut().zip(block.chunks_exact(8)) {
            *l = step(*l, word(c));
        }
    }
    let mut h = step(b.len() as u64, 0);
    for l in lanes {
        h = step(h, l);
    }
    for c in blocks.remainder().chunks(8) {
        h = step(h, word(c));
    }
    step(h, 0)
}

/// The entry at the start of a cache's bytes.
pub(super) enum Frame<'a> {
    /// Its body (path, key, the tool's part) and its length with the frame.
    Whole(&'a [u8], usize),
    /// Cut: this many bytes are needed to know or check it.
    Short(usize),
    /// Its checksum is not its body's.
    Bad,
}

pub(super) const FRAME: usize = 16;

pub(super) fn frame(b: &[u8]) -> Frame<'_> {
    let word = |at: usize| {
        b.get(at..at + 8)
            .map(|w| u64::from_le_bytes(w.try_into().unwrap_or_default()))
    };
    let (Some(len), Some(sum)) = (word(0), word(8)) else {
        return Frame::Short(FRAME);
    };
    let Some(end) = usize::try_from(len).ok().and_then(|l| l.checked_add(FRAME)) else {
        return Frame::Bad;
    };
    match b.get(FRAME..end) {
        None => Frame::Short(end),
        Some(body) if checksum(body) == sum => Frame::Whole(body, end),
        Some(_) => Frame::Bad,
    }
}

/// Fill in the frame of the entry written at `out[start..]` (its first
/// [`FRAME`] bytes left for it).
pub(super) fn seal(out: &mut [u8], start: usize) {
    let body = start + FRAME;
    let len = (out.len() - body) as u64;
    let sum = checksum(&out[body..]);
    out[start..start + 8].copy_from_slice(&len.to_le_bytes());
    out[start + 8..body].copy_from_slice(&sum.to_le_bytes());
}
