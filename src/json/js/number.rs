//! Numbers as JavaScript prints them (`Number.prototype.toString`,
//! `JSON.stringify`) and reads them (`Number(string)`), and whether a JSON
//! number's text is already in JavaScript's form.

/// The decimal digits of the whole number `n` added to `out`, as
/// JavaScript prints it, without an allocation.
pub fn push_decimal(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// Write a JSON number text as JavaScript prints the number it parses to.
pub fn write_number_text(out: &mut Vec<u8>, text: &[u8]) {
    // Fast path: small integers are already in JavaScript's form.
    let digits = text.strip_prefix(b"-").unwrap_or(text);
    if !digits.is_empty()
        && digits.len() <= 15
        && digits.iter().all(u8::is_ascii_digit)
        && (digits[0] != b'0' || digits.len() == 1)
        && text != b"-0"
    {
        out.extend_from_slice(text);
        return;
    }
    let n: f64 = std::str::from_utf8(text)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(f64::NAN);
    write_number(out, n);
}

/// Write an f64 as `JSON.stringify` does (`null` when not finite).
pub fn write_number(out: &mut Vec<u8>, n: f64) {
    // Whole numbers below 2^53 (times in milliseconds, counts) print as
    // their digits: no shortest-digits search, no String (a tenth of an
    // import went there).
    if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 {
        if n < 0.0 {
            out.push(b'-');
        }
        push_decimal(out, n.abs() as u64);
        return;
    }
    out.extend_from_slice(number_to_js(n).as_bytes());
}

/// `String(n)`: JavaScript's `Number.prototype.toString()` (`Infinity`,
/// `-Infinity` and `NaN` included).
pub fn number_string(n: f64) -> String {
    if n.is_nan() {
        "NaN".into()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        number_to_js(n)
    }
}

/// JavaScript's `Number.prototype.toString()` for finite numbers; "null"
/// for NaN and infinities (what `JSON.stringify` writes for them).
pub fn number_to_js(n: f64) -> String {
    if !n.is_finite() {
        return "null".into();
    }
    if n == 0.0 {
        return "0".into();
    }
    // Shortest round-trip digits, as "d.ddde±x".
    let sci = format!("{:e}", n.abs());
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mant.chars().filter(|c| *c != '.').collect();
    let exp: i32 = exp.parse().unwrap_or(0);
    let k = digits.len() as i32;
    let p = exp + 1; // decimal point position
    let mut s = String::new();
    if n < 0.0 {
        s.push('-');
    }
    if k <= p && p <= 21 {
        s.push_str(&digits);
        s.extend(std::iter::repeat_n('0', (p - k) as usize));
    } else if 0 < p && p <= 21 {
        s.push_str(&digits[..p as usize]);
        s.push('.');
        s.push_str(&digits[p as usize..]);
    } else if -6 < p && p <= 0 {
        s.push_str("0.");
        s.extend(std::iter::repeat_n('0', (-p) as usize));
        s.push_str(&digits);
    } else {
        let e = p - 1;
        s.push_str(&digits[..1]);
        if k > 1 {
            s.push('.');
            s.push_str(&digits[1..]);
        }
        s.push('e');
        s.push(if e < 0 { '-' } else { '+' });
        s.push_str(&e.abs().to_string());
    }
    s
}

/// Whether the JSON value text `v` is a number equal to 0 (`0`, `-0`,
/// `0.0e5`: `v === 0` in JavaScript).
pub fn is_zero(v: &[u8]) -> bool {
    matches!(v.first(), Some(b'-' | b'0'..=b'9'))
        && std::str::from_utf8(v)
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .is_some_and(|n| n == 0.0)
}

/// The end of the number at `v[start]` when it is a JSON number that
/// JavaScript prints exactly so.
pub(super) fn js_number_end(v: &[u8], start: usize) -> Option<usize> {
    // Most numbers in a session are plain integers (times, counts): one
    // pass. At most 15 digits and not `-0`: JavaScript writes them so.
    let neg = v.get(start) == Some(&b'-');
    let first = start + usize::from(neg);
    if let Some(b'1'..=b'9') = v.get(first) {
        let mut p = first + 1;
        while v.get(p).is_some_and(u8::is_ascii_digit) {
            p += 1;
        }
        if p - first <= 15 && !matches!(v.get(p), Some(b'.' | b'e' | b'E')) {
            return Some(p);
        }
    }
    // The JSON grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
    let digits = |mut p: usize| {
        while v.get(p).is_some_and(u8::is_ascii_digit) {
            p += 1;
        }
        p
    };
    let mut pos = start;
    if v.get(pos) == Some(&b'-') {
        pos += 1;
    }
    match v.get(pos) {
        Some(b'0') => pos += 1,
        Some(b'1'..=b'9') => pos = digits(pos + 1),
        _ => return None,
    }
    if v.get(pos) == Some(&b'.') {
        let e = digits(pos + 1);
        if e == pos + 1 {
            return None;
        }
        pos = e;
    }
    if matches!(v.get(pos), Some(b'e' | b'E')) {
        pos += 1;
        if matches!(v.get(pos), Some(b'+' | b'-')) {
            pos += 1;
        }
        let e = digits(pos);
        if e == pos {
            return None;
        }
        pos = e;
    }
    if canonical_number_end(v, start) == Some(pos) {
        return Some(pos);
    }
    // 16 or 17 digits (0.1 + 0.2), exponents: print it as JavaScript does
    // and compare.
    let text = &v[start..pos];
    let n: f64 = std::str::from_utf8(text).ok()?.parse().ok()?;
    if !text.contains(&b'e') && !text.contains(&b'E') && (1e-6..1e21).contains(&n.abs()) {
        // In this range JavaScript writes the shortest digits that read
        // back as `n` without an exponent, as Rust's `Display` does: no
        // need for a string.
        let mut buf = [0u8; 40];
        let mut w = &mut buf[..];
        use std::io::Write;
        write!(w, "{n}").ok()?;
        let len = 40 - w.len();
        return (&buf[..len] == text).then_some(pos);
    }
    (number_to_js(n).as_bytes() == text).then_some(pos)
}

/// The end of the number at `v[start]` when JavaScript prints it exactly so:
/// at most 15 significant digits, no exponent, no `-0`, no trailing zero
/// after the point, no more than five zeros right after `0.`.
fn canonical_number_end(v: &[u8], start: usize) -> Option<usize> {
    let mut pos = start;
    let neg = v.get(pos) == Some(&b'-');
    if neg {
        pos += 1;
    }
    let int_start = pos;
    while v.get(pos).is_some_and(u8::is_ascii_digit) {
        pos += 1;
    }
    let int = &v[int_start..pos];
    if int.is_empty() || (int.len() > 1 && int[0] == b'0') {
        return None;
    }
    let mut digits = if int == b"0" { 0 } else { int.len() };
    if v.get(pos) == Some(&b'.') {
        pos += 1;
        let f_start = pos;
        while v.get(pos).is_some_and(u8::is_ascii_digit) {
            pos += 1;
        }
        let frac = &v[f_start..pos];
        if frac.is_empty() || frac.last() == Some(&b'0') {
            return None;
        }
        if int == b"0" {
            let zeros = frac.iter().take_while(|&&d| d == b'0').count();
            if zeros > 5 {
                return None;
            }
            digits = frac.len() - zeros;
        } else {
            digits += frac.len();
        }
    } else if neg && int == b"0" {
        return None;
    }
    if digits > 15 || matches!(v.get(pos), Some(b'e' | b'E')) {
        return None;
    }
    Some(pos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::js::canon;

    #[test]
    fn whole_numbers_take_the_short_way_to_the_same_text() {
        let p = 9_007_199_254_740_992.0f64;
        let mut x = 1.0f64;
        let mut all = vec![0.0, -0.0, 1.0, -1.0, p - 1.0, p, p + 2.0, 1e21, 1e22, 0.5, -2.5];
        while x < 1e300 {
            all.extend([x, -x, x + 1.0, x - 1.0, x * 3.0 + 7.0]);
            x *= 10.0;
        }
        all.extend([f64::NAN, f64::INFINITY, f64::NEG_INFINITY, f64::MAX, f64::MIN_POSITIVE]);
        for n in all {
            let mut out = Vec::new();
            write_number(&mut out, n);
            assert_eq!(String::from_utf8(out).unwrap(), number_to_js(n), "{n:e}");
        }
    }

    #[test]
    fn zeros() {
        for z in ["0", "-0", "0.0e5", "0E-3"] {
            assert!(is_zero(z.as_bytes()), "{z}");
        }
        for n in ["1", "1e-400x", "\"0\"", "[0]", "false", "null", ""] {
            assert!(!is_zero(n.as_bytes()), "{n}");
        }
    }

    #[test]
    fn numbers_like_javascript() {
        for (n, js) in [
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (123.456, "123.456"),
            (0.0002130934582091868, "0.0002130934582091868"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
        ] {
            assert_eq!(number_to_js(n), js);
        }
        assert_eq!(canon("-0"), "0");
        assert_eq!(canon("1E400"), "null");
        assert_eq!(canon("1.0"), "1");
        assert_eq!(canon("100e-2"), "1");
    }
}
