//! A small deterministic source of random numbers for the unit tests
//! (xorshift64: the same numbers on every run and machine).

/// The numbers of xorshift64 from `seed` (which must not be 0).
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}
