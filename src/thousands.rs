//! Numbers as the tables people read print them: whole numbers with their
//! digits grouped by thousands (`6,192,000`), as pi-usage's tables always
//! have and pi-ls -l's TOKENS column does too.

use crate::json::js;

/// `n` with a comma between each group of three digits; a number with a
/// fraction, or too large for JavaScript to write without an exponent, as
/// JavaScript writes it; NaN and the infinities as `String(n)` does.
pub(crate) fn group(n: f64) -> String {
    if n.is_nan() {
        return "NaN".into();
    }
    if n.is_infinite() {
        return if n < 0.0 { "-Infinity" } else { "Infinity" }.into();
    }
    if n.fract() != 0.0 || n.abs() >= 1e21 {
        return js::number_to_js(n);
    }
    let s = js::number_to_js(n.abs());
    let mut out = String::with_capacity(s.len() + s.len() / 3 + 1);
    if n < 0.0 {
        out.push('-');
    }
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::group;

    #[test]
    fn groups_whole_numbers_only() {
        assert_eq!(group(0.0), "0");
        assert_eq!(group(999.0), "999");
        assert_eq!(group(1000.0), "1,000");
        assert_eq!(group(6_192_000.0), "6,192,000");
        assert_eq!(group(-1_234_567.0), "-1,234,567");
        assert_eq!(group(1.5), "1.5");
        assert_eq!(group(1e21), "1e+21");
        assert_eq!(group(f64::INFINITY), "Infinity");
        assert_eq!(group(f64::NAN), "NaN");
    }
}
