//! Sums that do not depend on the order their terms come in: [`Exact`],
//! Shewchuk's exact summation (as Python's `math.fsum`): the float nearest
//! the exact sum of the terms; and [`Sums`], a row's ten totals (whole
//! tokens summed as integers, odd tokens exactly as floats, costs as the
//! decimals recorded: `crate::decimal`), given back as [`Amounts`], the
//! numbers of one usage object.

use crate::decimal::Sum as Decimal;

/// The numbers of one usage object.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Amounts {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub total_tokens: f64,
    pub cost_input: f64,
    pub cost_output: f64,
    pub cost_cache_read: f64,
    pub cost_cache_write: f64,
    pub cost: f64,
}

/// The exact sum of the floats added, as non-overlapping parts (a few:
/// costs span few binades); infinities and NaN kept apart.
#[derive(Clone, Debug, Default)]
pub(super) struct Exact {
    parts: Vec<f64>,
    /// The sum of the infinite and NaN terms (and of a sum that overflowed
    /// on the way): 0 while there is none.
    special: f64,
}

impl Exact {
    /// Add `x`, exactly.
    pub(super) fn add(&mut self, x: f64) {
        if !x.is_finite() {
            self.special += x;
            return;
        }
        let mut x = x;
        let mut i = 0;
        for j in 0..self.parts.len() {
            let mut y = self.parts[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            if !hi.is_finite() {
                // past the largest float: the sum is infinite, as adding
                // up in any order would have made it
                self.special += hi;
                self.parts.truncate(i);
                return;
            }
            let lo = y - (hi - x);
            if lo != 0.0 {
                self.parts[i] = lo;
                i += 1;
            }
            x = hi;
        }
        self.parts.truncate(i);
        self.parts.push(x);
    }

    /// Add what `o` holds.
    pub(super) fn merge(&mut self, o: &Exact) {
        for &p in &o.parts {
            self.add(p);
        }
        self.special += o.special;
    }

    /// The float nearest the exact sum (ties to even), +0 for no terms.
    pub(super) fn value(&self) -> f64 {
        if self.special != 0.0 || self.special.is_nan() {
            return self.special;
        }
        let p = &self.parts;
        let mut n = p.len();
        let mut hi = 0.0;
        let mut lo = 0.0;
        if n > 0 {
            n -= 1;
            hi = p[n];
            while n > 0 {
                let x = hi;
                n -= 1;
                let y = p[n];
                hi = x + y;
                lo = y - (hi - x);
                if lo != 0.0 {
                    break;
                }
            }
            // a half-way `lo` that the parts below push away from even
            if n > 0 && ((lo < 0.0 && p[n - 1] < 0.0) || (lo > 0.0 && p[n - 1] > 0.0)) {
                let y = lo * 2.0;
                let x = hi + y;
                if y == x - hi {
                    hi = x;
                }
            }
        }
        // (a sum of zeros is +0, as adding them to 0 gives)
        hi + 0.0
    }
}

/// The ten totals of a row: tokens that are whole numbers below 2³² are
/// summed as integers, other tokens by [`Exact`] (the float nearest the
/// exact sum of its terms), costs in decimal (`decimal::Sum`: 3.33, 5.55, 1.11
/// make 9.99, rounded to 15 significant digits).
#[derive(Clone, Debug, Default)]
pub(super) struct Sums {
    whole: [u128; 5],
    /// tokens that are not whole numbers below 2³²
    odd: Option<Box<[Exact; 5]>>,
    /// input, output, cache read, cache write, total
    costs: [Decimal; 5],
}

impl Sums {
    /// Add a record's whole tokens.
    pub(super) fn add_whole(&mut self, t: [u32; 5]) {
        for (s, t) in self.whole.iter_mut().zip(t) {
            *s += u128::from(t);
        }
    }

    /// Add a record's tokens that are not all whole.
    pub(super) fn add_odd(&mut self, t: [f64; 5]) {
        let odd = self.odd.get_or_insert_with(Default::default);
        for (s, t) in odd.iter_mut().zip(t) {
            s.add(t);
        }
    }

    /// Add a record's costs (input, output, cache read, cache write, total).
    pub(super) fn add_costs(&mut self, c: [f64; 5]) {
        for (s, c) in self.costs.iter_mut().zip(c) {
            s.add(c);
        }
    }

    /// Add what `o` holds.
    pub(super) fn merge(&mut self, o: &Sums) {
        for (s, t) in self.whole.iter_mut().zip(o.whole) {
            *s += t;
        }
        if let Some(oo) = &o.odd {
            let odd = self.odd.get_or_insert_with(Default::default);
            for (s, t) in odd.iter_mut().zip(oo.iter()) {
                s.merge(t);
            }
        }
        for (s, c) in self.costs.iter_mut().zip(&o.costs) {
            s.merge(c);
        }
    }

    /// The totals.
    pub(super) fn amounts(&self) -> Amounts {
        let token = |i: usize| {
            let w = self.whole[i];
            match &self.odd {
                None if w < 1 << 53 => w as f64,
                _ => {
                    let mut e = self.odd.as_ref().map(|o| o[i].clone()).unwrap_or_default();
                    // in pieces of 32 bits, each exact as a float
                    for k in 0..4 {
                        let piece = (w >> (32 * k)) & 0xffff_ffff;
                        e.add(piece as f64 * 2f64.powi(32 * k));
                    }
                    e.value()
                }
            }
        };
        let c = |i: usize| self.costs[i].value();
        Amounts {
            input: token(0),
            output: token(1),
            cache_read: token(2),
            cache_write: token(3),
            total_tokens: token(4),
            cost_input: c(0),
            cost_output: c(1),
            cost_cache_read: c(2),
            cost_cache_write: c(3),
            cost: c(4),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(xs: &[f64]) -> f64 {
        let mut e = Exact::default();
        for &x in xs {
            e.add(x);
        }
        e.value()
    }

    /// The exact sum, rounded once, whatever the order: where adding in
    /// order loses digits, and at the edges (ties, infinities, NaN, -0).
    #[test]
    fn sums_are_exact_and_rounded_once() {
        assert_eq!(sum(&[]).to_bits(), 0f64.to_bits());
        assert_eq!(sum(&[-0.0, -0.0]).to_bits(), 0f64.to_bits());
        assert_eq!(sum(&[0.1, 0.2, 0.3]), 0.6);
        assert_ne!(0.1 + 0.2 + 0.3, 0.6);
        assert_eq!(sum(&[1e100, 1.0, -1e100]), 1.0);
        assert_eq!(sum(&[1.0, 1e-16, 1e-16]), 1.0000000000000002);
        // 1 + 2⁻⁵³ is a tie (to even: 1); a term below breaks it upwards
        let t = 2f64.powi(-53);
        assert_eq!(sum(&[1.0, t]), 1.0);
        assert_eq!(sum(&[1.0, t, t * t]), 1.0 + 2.0 * t);
        assert_eq!(sum(&[1.0, t, -t * t]), 1.0);
        assert_eq!(sum(&[f64::MAX, f64::MAX, -f64::MAX]), f64::INFINITY);
        assert_eq!(sum(&[1.0, f64::NEG_INFINITY]), f64::NEG_INFINITY);
        assert!(sum(&[f64::INFINITY, f64::NEG_INFINITY]).is_nan());
        assert!(sum(&[1.0, f64::NAN]).is_nan());
        // any order, and merged from pieces, gives the same bits
        let mut xs: Vec<f64> = (1..2000).map(|i| 1.0 / f64::from(i) * 0.37).collect();
        xs.push(1e15);
        let a = sum(&xs);
        xs.reverse();
        assert_eq!(a.to_bits(), sum(&xs).to_bits());
        let (mut l, mut r) = (Exact::default(), Exact::default());
        for (i, &x) in xs.iter().enumerate() {
            if i % 3 == 0 {
                l.add(x)
            } else {
                r.add(x)
            }
        }
        l.merge(&r);
        assert_eq!(a.to_bits(), l.value().to_bits());
    }

    #[test]
    fn whole_tokens_past_2_53_round_once() {
        let mut s = Sums::default();
        for _ in 0..(1u32 << 22) {
            s.add_whole([u32::MAX, 1, 0, 0, 3]);
        }
        s.add_odd([0.5, 0.0, 0.0, 0.0, 0.0]);
        let a = s.amounts();
        let exact = u64::from(u32::MAX) * (1 << 22);
        assert_eq!(a.input, exact as f64 + 0.5);
        assert_eq!(
            (a.output, a.cache_read, a.total_tokens),
            ((1u64 << 22) as f64, 0.0, 3.0 * (1u64 << 22) as f64)
        );
    }
}
