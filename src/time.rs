//! `new Date(value).getTime()` for the values pi keeps in `timestamp`, and
//! the one reader of the times and durations tools are given (`--since 7d`).

use crate::error::{Error, Result};

/// Milliseconds since the epoch that JavaScript's `new Date(v).getTime()`
/// gives for the JSON value text `v` (a string, number, literal...);
/// NaN where JavaScript gives NaN.
///
/// Strings follow the ISO 8601 forms V8 accepts (`YYYY`, `YYYY-MM`,
/// `YYYY-MM-DD`, `±YYYYYY-…`, `T` or space, `HH:mm[:ss[.fff…]]`,
/// `Z`/`±HH:mm`/`±HHmm`, either case). A date-time without an offset is
/// local time in JavaScript; it is read as UTC here. V8's legacy free-form
/// formats ("Jul 20 2026") are not recognized and give NaN.
pub fn js_date_ms(value: &[u8]) -> f64 {
    match value.first() {
        Some(b'"') => {
            let s = crate::json::js::decode_string(value, 0..value.len());
            parse_iso(s.trim_matches(|c: char| c.is_whitespace()))
        }
        Some(b'-' | b'0'..=b'9') => {
            let n: f64 = std::str::from_utf8(value)
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(f64::NAN);
            time_clip(n)
        }
        Some(b'n') => 0.0,
        Some(b't') => 1.0,
        Some(b'f') => 0.0,
        _ => f64::NAN,
    }
}

fn time_clip(n: f64) -> f64 {
    if !n.is_finite() || n.abs() > 8.64e15 {
        f64::NAN
    } else {
        n.trunc() + 0.0
    }
}

struct P<'a> {
    b: &'a [u8],
    i: usize,
}

impl P<'_> {
    fn digits(&mut self, n: usize) -> Option<i64> {
        let d = self.b.get(self.i..self.i + n)?;
        if !d.iter().all(u8::is_ascii_digit) {
            return None;
        }
        self.i += n;
        Some(d.iter().fold(0i64, |a, &c| a * 10 + (c - b'0') as i64))
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.b.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }
}

/// Parse the ISO forms described at [`js_date_ms`].
pub fn parse_iso(s: &str) -> f64 {
    parse_iso_opt(s).map_or(f64::NAN, time_clip)
}

fn parse_iso_opt(s: &str) -> Option<f64> {
    let mut p = P {
        b: s.as_bytes(),
        i: 0,
    };
    let year = match p.peek()? {
        b'+' | b'-' => {
            let neg = p.peek() == Some(b'-');
            p.i += 1;
            let y = p.digits(6)?;
            if neg && y == 0 {
                return None;
            }
            if neg {
                -y
            } else {
                y
            }
        }
        _ => p.digits(4)?,
    };
    let (mut month, mut day) = (1, 1);
    if p.eat(b'-') {
        month = p.digits(2)?;
        if p.eat(b'-') {
            day = p.digits(2)?;
        }
    }
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let (mut h, mut m, mut sec, mut ms) = (0, 0, 0, 0.0);
    if matches!(p.peek(), Some(b'T' | b't' | b' ')) {
        p.i += 1;
        h = p.digits(2)?;
        if !p.eat(b':') {
            return None;
        }
        m = p.digits(2)?;
        if p.eat(b':') {
            sec = p.digits(2)?;
            if p.eat(b'.') {
                let start = p.i;
                while p.peek().is_some_and(|c| c.is_ascii_digit()) {
                    p.i += 1;
                }
                let frac = &s[start..p.i];
                if frac.is_empty() {
                    return None;
                }
                // The first three digits, zeros after fewer: milliseconds.
                let digit = |k: usize| frac.as_bytes().get(k).map_or(0, |d| u32::from(d - b'0'));
                ms = f64::from(digit(0) * 100 + digit(1) * 10 + digit(2));
            }
        }
        if h > 24 || m > 59 || sec > 59 || (h == 24 && (m > 0 || sec > 0 || ms > 0.0)) {
            return None;
        }
    }
    let mut offset_min = 0i64;
    match p.peek() {
        Some(b'Z' | b'z') => p.i += 1,
        Some(c @ (b'+' | b'-')) => {
            p.i += 1;
            let oh = p.digits(2)?;
            p.eat(b':');
            let om = p.digits(2)?;
            if oh > 23 || om > 59 {
                return None;
            }
            offset_min = (oh * 60 + om) * if c == b'-' { -1 } else { 1 };
        }
        _ => {}
    }
    if p.i != s.len() {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let t = ((days * 24 + h) * 60 + m - offset_min) * 60 + sec;
    Some(t as f64 * 1000.0 + ms)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (day may overflow
/// the month, as in JavaScript's MakeDay).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468 + d - 1
}

/// Format milliseconds since the epoch as JavaScript's `toISOString()`.
pub fn iso_string(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    let (y, mo, d) = civil_from_days(days);
    let (h, mi, s, f) = (
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000,
    );
    let year = iso_year(y);
    format!("{year}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{f:03}Z")
}

/// `ms` as `YYYY-MM-DD HH:MM:SS` (UTC; [`iso_string`] without the `T`,
/// the fraction and the `Z`), for a year 0 to 9999 (else None).
pub fn short_string(ms: i64) -> Option<String> {
    let (y, mo, d) = civil_from_days(ms.div_euclid(86_400_000));
    if !(0..=9999).contains(&y) {
        return None;
    }
    let rem = ms.rem_euclid(86_400_000);
    let n = [
        y / 1000,
        y / 100 % 10,
        y / 10 % 10,
        y % 10,
        -1,
        mo / 10,
        mo % 10,
        -1,
        d / 10,
        d % 10,
        -2,
        rem / 36_000_000,
        rem / 3_600_000 % 10,
        -3,
        rem / 600_000 % 6,
        rem / 60_000 % 10,
        -3,
        rem / 10_000 % 6,
        rem / 1000 % 10,
    ];
    let b: Vec<u8> = n
        .iter()
        .map(|&k| match k {
            -1 => b'-',
            -2 => b' ',
            -3 => b':',
            k => b'0' + k as u8,
        })
        .collect();
    String::from_utf8(b).ok()
}

/// A year as `toISOString()` writes it: four digits, or six with a sign
/// outside 0..=9999.
pub fn iso_year(y: i64) -> String {
    if (0..=9999).contains(&y) {
        format!("{y:04}")
    } else if y < 0 {
        format!("-{:06}", -y)
    } else {
        format!("+{y:06}")
    }
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Now, in milliseconds since the epoch (`Date.now()`).
pub fn now_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_millis() as f64)
}

/// Now, as `new Date().toISOString()`.
pub fn now_iso() -> String {
    iso_string(now_ms() as i64)
}

/// The largest zone file read: a TZif file is a few kilobytes (the
/// largest in the tz database is under 10 KiB).
const MAX_ZONE_FILE: u64 = 1 << 20;

/// The system's time zone as jiff finds it (`TZ`: a POSIX rule, a tz
/// database name or a zone file; else `/etc/localtime`), UTC when it
/// cannot. jiff reads a zone file whole, whatever it is: one that is not a
/// regular file of at most [`MAX_ZONE_FILE`] bytes (`TZ=/dev/zero`, a FIFO,
/// which would be read without end or waited on) is not read, and the zone
/// is UTC, as for any zone that cannot be read.
pub fn system_zone() -> jiff::tz::TimeZone {
    let readable = |p: &std::path::Path| match std::fs::metadata(p) {
        Ok(m) => m.is_file() && m.len() <= MAX_ZONE_FILE,
        // jiff's own read fails as well, and says nothing either.
        Err(_) => true,
    };
    match zone_file() {
        Some(p) if !readable(&p) => jiff::tz::TimeZone::UTC,
        _ => jiff::tz::TimeZone::try_system().unwrap_or(jiff::tz::TimeZone::UTC),
    }
}

/// The file jiff's `TimeZone::try_system` would read whole, in its order:
/// none for an empty `TZ` (UTC), a POSIX rule, or a name (or a path with
/// `zoneinfo/` in it) found in the tz database; else `TZ` as a path, and
/// without `TZ` `/etc/localtime`.
fn zone_file() -> Option<std::path::PathBuf> {
    use jiff::tz::TimeZone;
    let Some(tz) = std::env::var_os("TZ") else {
        return Some("/etc/localtime".into());
    };
    // Not UTF-8: jiff gives up before reading anything.
    let tz = tz.to_str()?;
    if tz.is_empty() {
        return None;
    }
    let name = match tz.strip_prefix(':') {
        Some(rest) => rest,
        None if TimeZone::posix(tz).is_ok() => return None,
        None => tz,
    };
    let known = match name.rfind("zoneinfo/") {
        Some(i) => TimeZone::get(&name[i + "zoneinfo/".len()..]).is_ok(),
        None => TimeZone::get(name).is_ok(),
    };
    (!known).then(|| name.into())
}

/// A duration in milliseconds: `90d`, `12h`, `30m` (or `30min`), `45s`,
/// `2w`, a number with a unit (`1.5d` too). The one reader of durations
/// for every tool's `--since`, `--until` and `--older-than`.
pub fn parse_duration(s: &str) -> Option<f64> {
    let s = s.trim();
    let (num, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit() && c != '.')?);
    let n: f64 = num.parse().ok()?;
    let mult = match unit {
        "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        "d" => 86_400.0,
        "w" => 7.0 * 86_400.0,
        _ => return None,
    };
    Some(n * mult * 1000.0)
}

/// A time for `--since`/`--until`, in milliseconds since the epoch: a
/// duration before `now` (`7d`, as [`parse_duration`] reads it), else an
/// ISO date or date-time as JavaScript's `Date` reads it ([`parse_iso`]:
/// UTC unless an offset is given).
pub fn parse_when(s: &str, now: f64) -> Result<f64> {
    if let Some(d) = parse_duration(s) {
        return Ok(now - d);
    }
    let t = parse_iso(s.trim());
    if t.is_nan() {
        return Err(Error::usage(format!(
            "'{s}': not a date (2026-11-01, 2026-11-01T09:30:00Z) or a duration (7d, 12h)"
        )));
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    #[test]
    fn short_string_is_iso_string_shortened() {
        let mut next = crate::test_rng::xorshift(5);
        for _ in 0..20000 {
            let ms = (next() % 253_402_300_800_000) as i64;
            let iso = iso_string(ms);
            let want = format!("{} {}", &iso[..10], &iso[11..19]);
            assert_eq!(short_string(ms).as_deref(), Some(want.as_str()), "{ms}");
        }
        assert_eq!(short_string(253_402_300_800_000), None);
        assert_eq!(short_string(-62_167_219_200_001), None);
    }

    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90d"), Some(90.0 * 86_400_000.0));
        assert_eq!(parse_duration("x"), None);
        assert_eq!(parse_duration("5y"), None);
        assert_eq!(parse_when("7d", 1e9).unwrap(), 1e9 - 7.0 * 86_400_000.0);
        assert_eq!(parse_when("2026-07-20", 0.0).unwrap(), 1784505600000.0);
        assert!(parse_when("July", 0.0).is_err());
    }

    #[test]
    fn matches_v8_on_iso_forms() {
        // Expected values printed by node: new Date(s).getTime()
        for (s, ms) in [
            ("2026-02-30T00:00:00Z", 1772409600000.0),
            ("2026-07-20T09:00:00.1234Z", 1784538000123.0),
            ("2026-07-20T24:00:00Z", 1784592000000.0),
            ("2026-07-20", 1784505600000.0),
            ("2026-07", 1782864000000.0),
            ("2026", 1767225600000.0),
            ("2026-07-20T09:00Z", 1784538000000.0),
            ("2026-07-20T09:00:00+02:00", 1784530800000.0),
            ("2026-07-20t09:00:00z", 1784538000000.0),
            ("+002026-07-20T09:00:00Z", 1784538000000.0),
            ("2026-07-20 09:00:00Z", 1784538000000.0),
            ("2026-07-20T09:00:00.000+0200", 1784530800000.0),
        ] {
            assert_eq!(parse_iso(s), ms, "{s}");
        }
        for s in [
            "x",
            "2026-07-20T09:00:60Z",
            "2026-07-20T09:00:00.Z",
            "-000000-01-01T00:00:00Z",
            "+275760-09-13T00:00:00.001Z",
            "2026-13-01",
        ] {
            assert!(parse_iso(s).is_nan(), "{s}");
        }
    }

    #[test]
    fn iso_round_trip() {
        for ms in [0i64, 1784538000123, -1, 253402300800000] {
            assert_eq!(parse_iso(&iso_string(ms)), ms as f64);
        }
        assert_eq!(iso_string(1784538000123), "2026-07-20T09:00:00.123Z");
    }
}
