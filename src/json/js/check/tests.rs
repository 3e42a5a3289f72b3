//! Unit tests of the quick check and the quick object read: against the
//! long way, under mutation, at the 64-byte block edges, and the marks.

use super::*;
use crate::json::js::stringify::canonical_long_way;

/// The lines of pi's session files in the conformance cases.
fn conformance_lines() -> Vec<Vec<u8>> {
    let mut lines = Vec::new();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/sessions");
    if let Ok(rd) = std::fs::read_dir(dir) {
        for f in rd.flatten() {
            if let Ok(t) = std::fs::read(f.path()) {
                lines.extend(t.split(|&b| b == b'\n').map(|l| l.to_vec()));
            }
        }
    }
    lines
}

/// Whenever the quick check says "already canonical", the long way
/// agrees byte for byte.
#[test]
fn already_canonical_agrees_with_canonical() {
    let mut cases: Vec<Vec<u8>> = [
        &br#"{"a":1,"b":[true,false,null],"c":{"d":"e\n\u0001\"\\"}}"#[..],
        br#"{"a":1,"a":2}"#,
        br#"{"1":1,"a":2}"#,
        br#"{"a" :1}"#,
        br#"[1.5,0.1,0.000001,0.0000001,-0,0,-1,1e3,1E3,123456789012345,1234567890123456,0.30000000000000004,1.10,2.5]"#,
        br#"["\/","\u0041","\u001f","\u0008","\u00e9","\ud800","\xc3\xa9 x"]"#,
        br#"{}"#,
        br#"[]"#,
        br#"[{},[],{"a":[]}]"#,
        br#"{"x":{"y":{"z":[1,{"w":null}]}},"v":"ok"}"#,
        b"\"\xff\"",
    ]
    .iter()
    .map(|c| c.to_vec())
    .collect();
    cases.extend(conformance_lines());
    let mut yes = 0;
    for c in &cases {
        let Ok(r) = scan::validate(c) else { continue };
        let v = &c[r.clone()];
        if already_canonical(v) {
            yes += 1;
            let out = canonical_long_way(c, r).unwrap();
            assert_eq!(out, v, "{}", String::from_utf8_lossy(v));
        }
    }
    assert!(yes > 50, "{yes}");
    let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 5), "]".repeat(MAX_DEPTH + 5));
    assert!(!already_canonical(deep.as_bytes()));
}

/// Every reason a text is not JSON.stringify's own is a "no" of the
/// quick check, and what it does accept is valid JSON that the long
/// way writes back unchanged: checked on pi's files and on many small
/// changes to them (a byte inserted, replaced or removed).
#[test]
fn quick_check_is_sound_under_mutation() {
    let mut lines = conformance_lines();
    lines.retain(|l| !l.is_empty());
    lines.truncate(400);
    assert!(lines.len() > 100);
    let extra: &[&[u8]] = &[
        br#"{"a":{"b":1},"b":2,"c":[{"a":1},{"a":2}],"d":{},"e":[],"f":[[],{}]}"#,
        br#"[0.30000000000000004,0.1,1e-7,123456789012345680,-1.5,0,1e+21]"#,
        br#""\u0000\u001f\b\f\n\r\t\"\\ \u007f""#,
        "{\"é\":\"日本\",\"e\":\"🙂\"}".as_bytes(),
    ];
    lines.extend(extra.iter().map(|l| l.to_vec()));
    let alphabet = b" \t\n\r\"\\/{}[]:,0123456789.eE+-abcfnrtuDCx\x7f\xff\xc3";
    let mut checker = Checker::new();
    let mut accepted = 0usize;
    let mut check = |v: &[u8], checker: &mut Checker| {
        if checker.is_canonical(v) {
            accepted += 1;
            assert_eq!(
                scan::validate(v).ok(),
                Some(0..v.len()),
                "accepted but not valid: {}",
                String::from_utf8_lossy(v)
            );
            let out = canonical_long_way(v, 0..v.len()).unwrap();
            assert_eq!(
                out,
                v,
                "accepted but rewritten: {}",
                String::from_utf8_lossy(v)
            );
        }
    };
    let mut x = crate::test_rng::xorshift(0x9e37_79b9_7f4a_7c15u64);
    let mut rand = move |n: usize| (x() % n as u64) as usize;
    for l in &lines {
        check(l, &mut checker);
        for _ in 0..60 {
            let mut m = l.clone();
            let at = rand(m.len() + 1);
            let b = alphabet[rand(alphabet.len())];
            match rand(3) {
                0 => m.insert(at, b),
                1 if at < m.len() => m[at] = b,
                _ if at < m.len() => {
                    m.remove(at);
                }
                _ => m.push(b),
            }
            check(&m, &mut checker);
        }
    }
    assert!(accepted > 1000, "{accepted}");
}

#[test]
fn quick_check_says_no_to_each_difference() {
    let yes: &[&[u8]] = &[
        br#"{"a":1,"b":[true,false,null],"c":{"d":"e\n\u0001\"\\"}}"#,
        br#"{"abcdefXz":1,"abcdefYz":2}"#,
        br#"{"a":{"a":1},"b":[{"a":1},{"a":2}]}"#,
        br#"[{},[],{"e":{}},[[]]]"#,
        br#"[0.08210100000000001,0.30000000000000004,1e21,1e+21]"#,
        "\"\u{2028}\x7f\"".as_bytes(),
    ];
    for v in yes {
        let v = if *v == b"[0.08210100000000001,0.30000000000000004,1e21,1e+21]" {
            &b"[0.08210100000000001,0.30000000000000004,1e+21]"[..]
        } else {
            v
        };
        assert!(already_canonical(v), "{}", String::from_utf8_lossy(v));
    }
    let no: &[&[u8]] = &[
        br#"{"a" :1}"#,
        br#" {"a":1}"#,
        br#"{"a":1} "#,
        b"{\"a\":1}\r",
        b"[1,\t2]",
        br#""\/""#,
        br#""\u0041""#,
        br#""\u001F""#,
        br#""\u0008""#,
        br#""\u000a""#,
        br#""\ud83d\ude00""#,
        br#""\ud800""#,
        b"\"a\nb\"",
        b"\"\xff\"",
        b"\"\xc3\"",
        br#"{"a":1,"a":2}"#,
        br#"{"a\u0062":1,"ab":2}"#,
        br#"{"1":1}"#,
        br#"{"0":1,"a":2}"#,
        b"1.0",
        b"1e3",
        b"1E3",
        b"-0",
        b"0.10",
        b"1e21",
        b"0.0000001",
        b"123456789012345678",
        b"0.30000000000000001",
        b"01",
        b"1.",
        b".5",
        b"+1",
        b"1e",
        b"[1,]",
        b"{\"a\":1,}",
        b"[1 2]",
        b"{\"a\"}",
        b"[",
        b"\"abc",
        b"tru",
        b"nul",
        b"[1]]",
        b"",
        b"{}{}",
    ];
    for v in no {
        assert!(!already_canonical(v), "{}", String::from_utf8_lossy(v));
    }
    let big: String = format!(
        "{{{}}}",
        (0..65)
            .map(|k| format!("\"k{k}\":{k}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    assert!(!already_canonical(big.as_bytes()));
}

/// The quick object read agrees with the scanner and the long way for
/// escapes (good, bad, not JSON.stringify's) at every place around the
/// 64-byte blocks its bits come in, and outside strings.
#[test]
fn quick_object_agrees_at_block_edges() {
    let escapes: [&[u8]; 16] = [
        br#"\""#,
        br#"\\"#,
        br#"\n"#,
        br#"\u001f"#,
        br#"\u0008"#,
        br#"\u0041"#,
        br#"\/"#,
        br#"\x"#,
        br#"\u00zz"#,
        br#"\\\""#,
        br#"\\\\"#,
        br#"\"#,
        br#"""#,
        b"\x01",
        br#"\uD83D\ude00"#,
        br#"\u12"#,
    ];
    let mut checker = Checker::new();
    let mut seen = (0, 0);
    for pad in 0..140 {
        for e in escapes {
            for tail in [
                &br#"","b":1}"#[..],
                br#""}"#,
                br#"",""#,
                br#"\"}"#,
                br#""\}"#,
            ] {
                let mut v = br#"{"a":""#.to_vec();
                v.extend(std::iter::repeat_n(b'x', pad));
                v.extend_from_slice(e);
                v.extend(std::iter::repeat_n(b'y', pad % 7));
                v.extend_from_slice(tail);
                let quick = checker.object(&v).map(<[_]>::to_vec);
                let long = scan::validate_object_scanned(&v)
                    .ok()
                    .flatten()
                    .filter(|(r, _)| {
                        canonical_long_way(&v, r.clone()).ok().as_deref() == Some(&v[..])
                    });
                let text = String::from_utf8_lossy(&v);
                // No white space here: the valid read takes exactly the
                // valid lines.
                let valid = checker.valid_object(&v).map(<[_]>::to_vec);
                let scanned = scan::validate_object_scanned(&v)
                    .ok()
                    .flatten()
                    .map(|(_, m)| m);
                assert_eq!(valid, scanned, "{text}");
                assert_eq!(quick, long.map(|(_, m)| m), "{text}");
                if quick.is_some() {
                    seen.0 += 1
                } else {
                    seen.1 += 1
                }
            }
        }
    }
    // Both answers were met many times.
    assert!(seen.0 > 1000 && seen.1 > 1000, "{seen:?}");
}

/// The escaped bytes of random runs of backslashes over several
/// blocks, against the byte-by-byte rule.
#[test]
fn escaped_bits_follow_runs_of_backslashes() {
    let mut next = crate::test_rng::xorshift(0x2545_f491_4f6c_dd1du64);
    for _ in 0..20_000 {
        // Dense and sparse backslashes, long runs across the block edge.
        let density = next() % 4;
        let words: Vec<u64> = (0..4)
            .map(|_| match density {
                0 => next() & next(),
                1 => next(),
                2 => next() | next(),
                _ => !0u64 << (next() % 64) | (next() & 0xff),
            })
            .collect();
        let (mut carry, mut pending) = (0u64, false);
        for &b in &words {
            let got = escaped_bits(b, &mut carry);
            let mut want = 0u64;
            for i in 0..64 {
                if pending {
                    want |= 1 << i;
                    pending = false;
                } else if b >> i & 1 == 1 {
                    pending = true;
                }
            }
            assert_eq!(got, want, "{b:064b}");
            assert_eq!(carry, u64::from(pending));
        }
    }
}

/// The escapes the marks give for any span of a string are those a
/// byte-by-byte walk from the span's start finds, across blocks.
#[test]
fn marks_give_the_escapes_of_a_span() {
    let mut next = crate::test_rng::xorshift(0x9e37_79b9_7f4a_7c15u64);
    let pieces: [&[u8]; 6] = [b"\\n", b"\\\\", b"\\\"", b"ab", b"\\t", b"\\u00e9"];
    for _ in 0..2_000 {
        let mut v = b"{\"k\":\"".to_vec();
        for _ in 0..next() % 80 {
            v.extend_from_slice(pieces[(next() % 6) as usize]);
        }
        v.extend_from_slice(b"\"}");
        let mut c = Checker::new();
        assert!(
            c.valid_object(&v).is_some(),
            "{}",
            String::from_utf8_lossy(&v)
        );
        let end = v.len() - 2;
        // a span starts after the opening quote or after an escape
        let mut starts = vec![6];
        let mut i = 6;
        let mut all = Vec::new();
        while i < end {
            if v[i] == b'\\' {
                all.push(i);
                i += if v[i + 1] == b'u' { 6 } else { 2 };
                starts.push(i);
            } else {
                i += 1;
                if v[i - 1] != b'\\' {
                    starts.push(i);
                }
            }
        }
        for &from in &starts {
            let to = from + (next() as usize % (end - from + 1));
            let want: Vec<usize> = all
                .iter()
                .copied()
                .filter(|&e| e >= from && e < to)
                .collect();
            let got: Vec<usize> = c.marks().escapes(from, to).collect();
            assert_eq!(got, want, "{} {from}..{to}", String::from_utf8_lossy(&v));
        }
    }
}

/// The span [`Checker::not_ascii`] gives holds every byte of 0x80 or more,
/// and the text is UTF-8 exactly when the span is: checked with valid and
/// broken characters (lone lead and continuation bytes, a character cut by
/// the end of a string) at every place around the 64-byte blocks.
#[test]
fn not_ascii_holds_every_byte_that_is_not_ascii() {
    let pieces: [&[u8]; 8] = [
        "é".as_bytes(),
        "日本".as_bytes(),
        "🙂".as_bytes(),
        b"\xc3",
        b"\xa9",
        b"\xff",
        b"\xe6\x97",
        b"\xf0\x9f\x99",
    ];
    let mut checker = Checker::new();
    let (mut valid, mut broken) = (0, 0);
    for pad in 0..200 {
        for (k, a) in pieces.iter().enumerate() {
            for b in [None, Some(pieces[(k + pad) % 8])] {
                let mut v = br#"{"a":""#.to_vec();
                v.extend(std::iter::repeat_n(b'x', pad));
                v.extend_from_slice(a);
                v.extend_from_slice(b"\",\"b\":\"");
                v.extend(std::iter::repeat_n(b'y', pad * 7 % 150));
                v.extend_from_slice(b.unwrap_or(b""));
                v.extend_from_slice(br#""}"#);
                assert!(checker.valid_object(&v).is_some());
                let span = checker.not_ascii();
                let outside = v[..span.start].iter().chain(&v[span.end..]);
                assert!(outside.copied().all(|c| c < 0x80), "{v:?} {span:?}");
                let whole = std::str::from_utf8(&v).is_ok();
                assert_eq!(std::str::from_utf8(&v[span]).is_ok(), whole, "{v:?}");
                *(if whole { &mut valid } else { &mut broken }) += 1;
            }
        }
    }
    assert!(valid > 500 && broken > 500, "{valid} {broken}");
    assert!(checker.valid_object(br#"{"a":"plain"}"#).is_some());
    assert_eq!(checker.not_ascii(), 0..0);
}

/// The marks say where every object and array ends, as the scanner finds
/// it, and whether a `\u` escape is anywhere in the text, at any offset
/// from the 64-byte blocks (an escape split between two).
#[test]
fn marks_know_container_ends_and_unicode_escapes() {
    let mut checker = Checker::new();
    for pad in 0..140 {
        for (tail, unicode) in [
            (r#""\\u0041""#, false),
            (r#""\u0041""#, true),
            (r#""\\\u00e9""#, true),
            (r#""u\"\\""#, false),
        ] {
            let v = format!(
                r#"{{"p":"{}","a":[1,{{"b":[]}},"]",[[{{}}]]],"s":{tail},"o":{{"c":{{"d":"}}"}}}}}}"#,
                "x".repeat(pad)
            );
            let v = v.as_bytes();
            assert!(
                checker.valid_object(v).is_some(),
                "{}",
                String::from_utf8_lossy(v)
            );
            let m = checker.marks();
            assert_eq!(m.any_unicode_escape(), unicode, "{pad} {tail}");
            let mut opens = 0;
            let mut in_string = false;
            let mut escaped = false;
            for (i, &b) in v.iter().enumerate() {
                match (in_string, escaped, b) {
                    (true, true, _) => escaped = false,
                    (true, false, b'\\') => escaped = true,
                    (_, false, b'"') => in_string = !in_string,
                    (false, _, b'{' | b'[') => {
                        opens += 1;
                        let end = crate::json::scan::scan_value(v, i).unwrap();
                        assert_eq!(m.container_end(i), Some(end), "{pad} {i}");
                    }
                    (_, _, _) => assert_eq!(m.container_end(i), None, "{pad} {i}"),
                }
            }
            assert_eq!(opens, 9);
        }
    }
}
