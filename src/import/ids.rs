//! Ids drawn from the source, not from chance: the same source gives the
//! same ids, so an import run twice writes the same bytes.

use std::collections::HashSet;

/// FNV-1a, 64 bits: small, stable across releases and platforms.
pub(crate) fn fnv(parts: &[&str]) -> u64 {
    fnv_from(FNV_START, parts)
}

const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a of `parts` (each followed by a zero byte) continued from state
/// `h`: the hash of a common prefix is taken once.
fn fnv_from(mut h: u64, parts: &[&str]) -> u64 {
    for p in parts {
        for &b in p.as_bytes().iter().chain(std::iter::once(&0u8)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// A session id (a UUID, version 8: "custom") drawn from `parts`.
pub(crate) fn uuid(parts: &[&str]) -> String {
    let a = fnv(parts);
    let b = fnv(&[&format!("{a:016x}"), "pi-import"]);
    let hex = format!("{a:016x}{b:016x}");
    let h = hex.as_bytes();
    let s = |r: std::ops::Range<usize>| std::str::from_utf8(&h[r]).unwrap_or("0");
    // Version 8 and the RFC 9562 variant (10xx).
    let variant = ["8", "9", "a", "b"][usize::from(h[16] % 4)];
    format!(
        "{}-{}-8{}-{}{}-{}",
        s(0..8),
        s(8..12),
        s(13..16),
        variant,
        s(17..20),
        s(20..32)
    )
}

/// Entry ids as pi writes them (8 lowercase hex digits), each drawn from
/// its key within the session; a collision draws again with a counter.
pub(crate) struct EntryIds {
    /// The hash of the seed, where every draw starts (hashing the seed
    /// again for each entry, a byte at a time, was 5% of an import).
    seeded: u64,
    taken: HashSet<u32, crate::index::IdHash>,
}

impl EntryIds {
    pub(crate) fn new(seed: &str) -> Self {
        EntryIds {
            seeded: fnv_from(FNV_START, &[seed]),
            taken: HashSet::default(),
        }
    }

    pub(crate) fn draw(&mut self, key: &str) -> String {
        let mut n = 0u32;
        loop {
            let c = n.to_string();
            let id = fnv_from(self.seeded, &[key, &c]) as u32;
            if self.taken.insert(id) {
                return format!("{id:08x}");
            }
            n += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_and_distinct() {
        let u = uuid(&["claude-code", "abc"]);
        assert_eq!(u, uuid(&["claude-code", "abc"]));
        assert_ne!(u, uuid(&["codex", "abc"]));
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "8");
        let mut ids = EntryIds::new("s");
        let a = ids.draw("k");
        let b = ids.draw("k");
        assert_ne!(a, b, "a second draw of one key is a new id");
        assert_eq!(a, EntryIds::new("s").draw("k"));
        assert_eq!(a.len(), 8);
        // As drawn before the seed's hash was kept.
        let c = format!("{:08x}", fnv(&["s", "k", "0"]) as u32);
        assert_eq!(a, c);
    }
}
