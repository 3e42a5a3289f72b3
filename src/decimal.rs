//! Sums of recorded numbers in decimal: [`Sum`] adds each number as the
//! decimal it was written as (the shortest digits that read back as it,
//! which is what `JSON.stringify` wrote into the session), exactly, and
//! gives the total rounded to at most 15 significant digits. So costs of
//! 3.33, 5.55 and 1.11 make 9.99, not 9.989999999999998, and the result
//! prints as people write it.
//!
//! Why 15 digits: every decimal of 15 significant digits reads back from
//! its nearest float unchanged, so the float [`Sum::value`] returns prints
//! (as JavaScript prints numbers) as those digits; a sum with more digits
//! than that only carries float noise of its terms (0.18871590000000002).

/// The significant digits a total keeps at most.
pub const DIGITS: usize = 15;

/// Buckets cover this many decimal places each: a term's digits (at most
/// 17) times a power of ten below 10¹⁶ stay below 10³³, far inside i128.
const SPAN: i32 = 16;
const SPAN_POW: i128 = 10i128.pow(SPAN as u32);

/// An exact decimal sum, in a few buckets: `(b, c)` holds `c × 10^b`, `b`
/// a multiple of [`SPAN`]; the sum is that of the buckets. Its size is
/// bounded: floats span some 640 decimal places, 41 buckets at most.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sum {
    buckets: Vec<(i32, i128)>,
    /// The sum of the infinite and NaN terms: none while 0.
    special: SpecialSum,
}

/// Infinite and NaN terms, kept apart (their sum as floats add them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct SpecialSum(u64);

impl SpecialSum {
    fn get(self) -> f64 {
        f64::from_bits(self.0)
    }
}

impl Sum {
    /// Add `x` as the decimal of its shortest digits.
    pub fn add(&mut self, x: f64) {
        if !x.is_finite() {
            self.special = SpecialSum((self.special.get() + x).to_bits());
            return;
        }
        if x == 0.0 {
            return;
        }
        let (digits, exp) = shortest(x);
        self.add_scaled(digits, exp);
    }

    /// Add what `o` holds.
    pub fn merge(&mut self, o: &Sum) {
        for &(b, c) in &o.buckets {
            self.add_bucket(b, c);
        }
        if o.special.0 != 0 {
            self.special = SpecialSum((self.special.get() + o.special.get()).to_bits());
        }
    }

    /// Add `digits × 10^exp`.
    fn add_scaled(&mut self, digits: i128, exp: i32) {
        let b = exp.div_euclid(SPAN) * SPAN;
        let c = digits * 10i128.pow((exp - b) as u32);
        self.add_bucket(b, c);
    }

    /// Add `c × 10^b`; a bucket that would overflow passes its high part
    /// to the bucket above.
    fn add_bucket(&mut self, b: i32, c: i128) {
        let i = match self.buckets.binary_search_by_key(&b, |e| e.0) {
            Ok(i) => i,
            Err(i) => {
                self.buckets.insert(i, (b, 0));
                i
            }
        };
        let cur = self.buckets[i].1;
        match cur.checked_add(c) {
            Some(n) => self.buckets[i].1 = n,
            None => {
                // both are far from 0 and of one sign: move their high parts
                self.buckets[i].1 = cur % SPAN_POW + c % SPAN_POW;
                let high = cur / SPAN_POW + c / SPAN_POW;
                if b > 1000 {
                    // past any float: the sum is infinite (cannot come from
                    // floats, whose buckets stop near 10³⁰⁸)
                    let inf = f64::INFINITY.copysign(high as f64);
                    self.special = SpecialSum((self.special.get() + inf).to_bits());
                } else {
                    self.add_bucket(b + SPAN, high);
                }
            }
        }
    }

    /// The exact sum's digits, most significant first, without leading
    /// or trailing zeros, with its sign and the power of ten of its last
    /// digit; `None` for zero.
    fn digits(&self) -> Option<(bool, Vec<u8>, i32)> {
        let lo = self.buckets.first()?.0;
        let hi = self.buckets.last()?.0;
        // a bucket's coefficient has at most 39 digits; room for carries
        let len = (hi - lo) as usize + 48;
        let place = |negate: bool| {
            let mut d = vec![0i64; len];
            for &(b, c) in &self.buckets {
                let neg = (c < 0) != negate;
                let mut m = c.unsigned_abs();
                let mut at = (b - lo) as usize;
                while m > 0 {
                    let digit = (m % 10) as i64;
                    d[at] += if neg { -digit } else { digit };
                    m /= 10;
                    at += 1;
                }
            }
            // carries, least significant first, digits left in 0..=9
            let mut carry = 0i64;
            for x in d.iter_mut() {
                let v = *x + carry;
                *x = v.rem_euclid(10);
                carry = v.div_euclid(10);
            }
            (d, carry)
        };
        let (mut d, carry) = place(false);
        let negative = carry < 0;
        if negative {
            d = place(true).0;
        }
        let first = d.iter().rposition(|&x| x != 0)?;
        let last = d.iter().position(|&x| x != 0)?;
        let digits = d[last..=first].iter().rev().map(|&x| x as u8).collect();
        Some((negative, digits, lo + last as i32))
    }

    /// The sum as text: its exact digits rounded (half away from zero) to
    /// at most [`DIGITS`] significant ones, in scientific form
    /// (`-9.99e0`), or `0`. Infinite and NaN terms are not in it.
    pub fn text(&self) -> String {
        self.text_to(DIGITS)
    }

    /// [`Sum::text`] to at most `most` significant digits.
    fn text_to(&self, most: usize) -> String {
        let Some((negative, mut digits, mut exp)) = self.digits() else {
            return "0".into();
        };
        if digits.len() > most {
            let up = digits[most] >= 5;
            exp += (digits.len() - most) as i32;
            digits.truncate(most);
            if up {
                let mut i = most;
                loop {
                    if i == 0 {
                        // 999… rounded up: one digit more, then cut
                        digits.insert(0, 1);
                        digits.pop();
                        exp += 1;
                        break;
                    }
                    i -= 1;
                    if digits[i] == 9 {
                        digits[i] = 0;
                    } else {
                        digits[i] += 1;
                        break;
                    }
                }
            }
            while digits.len() > 1 && digits.last() == Some(&0) {
                digits.pop();
                exp += 1;
            }
        }
        let mut s = String::with_capacity(digits.len() + 8);
        if negative {
            s.push('-');
        }
        s.push(char::from(b'0' + digits[0]));
        if digits.len() > 1 {
            s.push('.');
            s.extend(digits[1..].iter().map(|&d| char::from(b'0' + d)));
        }
        let e = exp + digits.len() as i32 - 1;
        s.push('e');
        s.push_str(&e.to_string());
        s
    }

    /// The sum as a float: [`Sum::text`] read as a number (its float prints
    /// as those digits), plus the infinite and NaN terms; past the largest
    /// float, infinite (rounding to 15 digits does not make it so: the
    /// largest float is 17 digits long).
    pub fn value(&self) -> f64 {
        let mut v: f64 = self.text().parse().unwrap_or(f64::NAN);
        if v.is_infinite() {
            // rounded up past the largest float (1.79769313486232e308):
            // the float's own 17 digits may still be one
            v = self.text_to(17).parse().unwrap_or(f64::NAN);
        }
        if self.special.0 != 0 {
            return v + self.special.get();
        }
        v
    }
}

/// `x`'s shortest round-trip digits as an integer, and the power of ten
/// of its last digit: 0.1 is (1, -1), 9.989999999999998 is
/// (9989999999999998, -15) (trailing zeros may stay: (10, -2) for 0.1).
/// `x` finite and not 0.
fn shortest(x: f64) -> (i128, i32) {
    if let Some(d) = fifteen(x) {
        return d;
    }
    let mut buf = zmij::Buffer::new();
    parse_digits(buf.format_finite(x))
}

/// The powers of ten a float holds exactly.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// `x`'s digits when 15 significant digits or fewer give it back (most
/// recorded costs): one multiplication, one division, no text. m =
/// round(|x| × 10^k) below 10¹⁵ is off the exact product by less than 0.11,
/// so it is the nearest such decimal; when m / 10^k (rounded once, as
/// parsing rounds) is `x`, m × 10^-k reads back as `x`, and no other
/// decimal of 15 digits does (they lie farther apart than a float's
/// neighbours): it is the shortest form, perhaps with trailing zeros.
/// None otherwise (more digits, or 10^k not exact: below 10⁻⁸ or from 10¹⁵).
fn fifteen(x: f64) -> Option<(i128, i32)> {
    let a = x.abs();
    let e2 = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    // floor(log10(a)), or one less
    let e10 = (f64::from(e2) * std::f64::consts::LOG10_2).floor() as i32;
    let mut k = 14 - e10;
    for _ in 0..2 {
        let p = *POW10.get(usize::try_from(k).ok()?)?;
        let m = (a * p).round();
        if m >= 1e15 {
            k -= 1;
            continue;
        }
        if m / p != a {
            return None;
        }
        let m = m as i128;
        return Some((if x < 0.0 { -m } else { m }, -k));
    }
    None
}

/// The digits and exponent of a number written as `-1.25e-7`, `0.5` or
/// `12.0`.
fn parse_digits(s: &str) -> (i128, i32) {
    let (mant, exp) = s.split_once(['e', 'E']).unwrap_or((s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut digits: i128 = 0;
    let mut after = 0i32;
    let mut seen_point = false;
    for b in mant.bytes() {
        match b {
            b'0'..=b'9' => {
                digits = digits * 10 + i128::from(b - b'0');
                if seen_point {
                    after += 1;
                }
            }
            b'.' => seen_point = true,
            _ => {}
        }
    }
    if mant.starts_with('-') {
        digits = -digits;
    }
    (digits, exp - after)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(xs: &[f64]) -> Sum {
        let mut s = Sum::default();
        for &x in xs {
            s.add(x);
        }
        s
    }

    fn js(x: f64) -> String {
        crate::json::js::number_to_js(x)
    }

    #[test]
    fn recorded_decimals_add_as_written() {
        assert_eq!(js(sum(&[0.1, 0.2]).value()), "0.3");
        assert_ne!(0.1 + 0.2, 0.3);
        assert_eq!(js(sum(&[3.33, 5.55, 1.11]).value()), "9.99");
        assert_eq!(js(3.33 + 5.55 + 1.11), "9.989999999999998");
        assert_eq!(js(sum(&[0.003, 0.003, 0.003]).value()), "0.009");
        assert_eq!(js(0.003 + 0.003 + 0.003), "0.009000000000000001");
        assert_eq!(js(sum(&[]).value()), "0");
        assert_eq!(js(sum(&[1.5, -1.5]).value()), "0");
        assert_eq!(js(sum(&[-0.1, -0.2]).value()), "-0.3");
        assert_eq!(js(sum(&[0.1, -0.3]).value()), "-0.2");
        assert_eq!(js(sum(&[1e-7, 2e-7]).value()), "3e-7");
        // 22 digits, rounded to 15
        assert_eq!(js(sum(&[1e21, 1.0]).value()), "1e+21");
        assert_eq!(js(sum(&[123456789.123, 0.001]).value()), "123456789.124");
    }

    /// Ten thousand 0.01 make exactly 100; a million 9.99 exactly
    /// 9990000; in any order and merged from pieces.
    #[test]
    fn large_counts_stay_exact() {
        let mut s = Sum::default();
        for _ in 0..10_000 {
            s.add(0.01);
        }
        assert_eq!(s.value(), 100.0);
        let mut a = Sum::default();
        let mut b = Sum::default();
        for i in 0..1_000_000 {
            if i % 3 == 0 { &mut a } else { &mut b }.add(9.99);
        }
        a.merge(&b);
        assert_eq!(a.value(), 9_990_000.0);
        let mut f = 0.0;
        for _ in 0..1_000_000 {
            f += 9.99;
        }
        assert_ne!(f, 9_990_000.0, "float addition drifts");
    }

    /// Random costs with few decimals: the decimal sum equals the sum of
    /// the same numbers as integers of 10⁻⁶, whatever the order.
    #[test]
    fn random_sums_equal_integer_sums() {
        let mut rng = crate::test_rng::xorshift(7);
        for _ in 0..200 {
            let n = 1 + (rng() % 300) as usize;
            let micros: Vec<i64> = (0..n)
                .map(|_| (rng() % 50_000_000) as i64 - 1_000_000)
                .collect();
            let xs: Vec<f64> = micros.iter().map(|&m| m as f64 / 1e6).collect();
            let exact: i64 = micros.iter().sum();
            let want = exact as f64 / 1e6;
            let mut s = sum(&xs);
            assert_eq!(s.value(), want, "{micros:?}");
            let mut rev: Vec<f64> = xs.clone();
            rev.reverse();
            assert_eq!(sum(&rev), s, "the same buckets in any order");
            s.merge(&sum(&xs));
            assert_eq!(s.value(), (2 * exact) as f64 / 1e6);
        }
    }

    /// More than 15 digits: rounded to 15; and the edges.
    #[test]
    fn long_digits_rounded_to_15() {
        assert_eq!(js(sum(&[0.18871590000000002]).value()), "0.1887159");
        assert_eq!(sum(&[0.18871590000000002]).text(), "1.887159e-1");
        assert_eq!(sum(&[9.999999999999999]).text(), "1e1");
        assert_eq!(sum(&[-9.999999999999999]).text(), "-1e1");
        assert_eq!(sum(&[1.2345678901234567]).text(), "1.23456789012346e0");
        assert_eq!(js(sum(&[f64::MAX, f64::MAX]).value()), "null");
        assert_eq!(sum(&[f64::MAX, f64::MAX]).value(), f64::INFINITY);
        assert_eq!(sum(&[f64::MAX, f64::MAX, -f64::MAX]).value(), f64::MAX);
        assert_eq!(sum(&[5e-324, 5e-324]).value(), 1e-323);
        assert_eq!(sum(&[1e300, 1e-300, -1e300]).value(), 1e-300);
        assert_eq!(sum(&[1.0, f64::INFINITY]).value(), f64::INFINITY);
        assert!(sum(&[f64::INFINITY, f64::NEG_INFINITY]).value().is_nan());
        assert_eq!(sum(&[-0.0]).value().to_bits(), 0f64.to_bits());
    }

    /// The fast path and zmij give the digits Rust's shortest `{:e}` gives,
    /// for costs as pi computes them (tokens × price / 10⁶) and odd floats.
    #[test]
    fn shortest_digits_are_the_shortest() {
        let strip = |(mut d, mut e): (i128, i32)| {
            while d != 0 && d % 10 == 0 {
                d /= 10;
                e += 1;
            }
            (d, e)
        };
        let mut rng = crate::test_rng::xorshift(11);
        let mut xs = vec![
            0.1,
            0.3,
            9.99,
            1e-7,
            3e-7,
            5e-324,
            f64::MAX,
            1e15,
            999999999999999.0,
        ];
        xs.extend([
            0.18871590000000002,
            0.5549999999999999,
            1.0 / 3.0,
            -2.5e-9,
            123456.789,
        ]);
        for _ in 0..20_000 {
            let tokens = (rng() % 200_000) as f64;
            let price = [0.3, 3.0, 3.75, 15.0, 0.075, 1.25][(rng() % 6) as usize];
            xs.push(price / 1e6 * tokens);
            xs.push(f64::from_bits(rng() >> 2));
        }
        let mut fast = 0;
        for x in xs.into_iter().filter(|x| x.is_finite() && *x != 0.0) {
            let want = parse_digits(&format!("{x:e}"));
            assert_eq!(strip(shortest(x)), strip(want), "{x:e}");
            fast += fifteen(x).is_some() as usize;
        }
        assert!(fast > 10_000, "{fast}");
    }

    /// A bucket full to overflow carries into the next: still exact.
    #[test]
    fn buckets_carry() {
        let mut s = Sum::default();
        let big = i128::MAX / 3;
        for _ in 0..7 {
            s.add_bucket(0, big);
        }
        assert!(s.buckets.len() > 1, "{s:?}");
        for _ in 0..3 {
            s.add_bucket(0, -2 * big);
        }
        let mut t = Sum::default();
        t.add_bucket(0, big);
        assert_eq!(s.digits(), t.digits());
        assert_eq!(s.digits().map(|d| d.1.len()), Some(38));
    }
}
