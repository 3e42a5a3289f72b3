//! Every vector unit this processor has, held to the byte-by-byte rule
//! ([`super::reference`]), and the choice of a unit by
//! `PI_SESSION_TOOLS_SIMD`.

use super::*;

/// Every vector unit this processor has, held to the byte-by-byte
/// rule: every special byte at every place and every start before it,
/// every byte value in the vector steps and the tails, every length.
#[test]
fn find_special_finds_the_first() {
    use reference::is_special;
    let units: Vec<_> = units().collect();
    assert!(units.contains(&Unit::None));
    assert!(units.contains(&Unit::best()));
    for unit in units {
        let find = |t: &[u8], from| find_special_with(unit, t, from);
        let mut t = vec![b'a'; 150];
        for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
            for at in 0..150 {
                let mut u = t.clone();
                u[at] = special;
                for from in 0..=at {
                    assert_eq!(find(&u, from), Some(at), "{unit:?} at {at} from {from}");
                }
                assert_eq!(find(&u, at + 1), None, "{unit:?} after {at}");
                // The text ending just after the special byte.
                assert_eq!(find(&u[..=at], 0), Some(at), "{unit:?} ending at {at}");
            }
        }
        for from in 0..=t.len() + 1 {
            assert_eq!(find(&t, from), None, "{unit:?} from {from}");
        }
        t.extend_from_slice("é你好🙂\x7f\u{80}".as_bytes());
        assert_eq!(find(&t, 0), None);
        // Every byte value, in the vector steps and the tail.
        for b in 0..=255u8 {
            for len in [1, 3, 8, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 130] {
                let mut u = vec![b'a'; len];
                u[len - 1] = b;
                let want = is_special(b).then_some(len - 1);
                assert_eq!(find(&u, 0), want, "{unit:?}: byte {b:#x} last of {len}");
                let u = vec![b; len];
                let want = is_special(b).then_some(0);
                assert_eq!(find(&u, 0), want, "{unit:?}: byte {b:#x}, {len} bytes");
            }
        }
    }
}

/// Every vector unit this processor has against the byte-by-byte
/// classes, on random lines of every length up to three blocks (the
/// padded last block included), and a random search from every start.
#[test]
fn string_classes_agree_with_the_bytes() {
    let alphabet = b"\"\\/ubfnrtxa0\x20\x7f\x80\xff\x00\x1f";
    let mut next = crate::test_rng::xorshift(0x9e37_79b9_7f4a_7c15u64);
    let mut got = Vec::new();
    for n in (0..200).chain([300, 700, 1500]) {
        // Every other line without control characters (those end the
        // classification early).
        let kinds = if n % 2 == 0 { 15 } else { alphabet.len() };
        let v: Vec<u8> = (0..n)
            .map(|_| alphabet[(next() % kinds as u64) as usize])
            .collect();
        let (want, clean, high) = reference::string_classes(&v);
        for unit in units() {
            let range = string_classes_with(unit, &v, &mut got);
            assert_eq!(range.is_some(), clean, "{unit:?} {v:?}");
            if let Some(range) = range {
                assert_eq!(got, want, "{unit:?} {v:?}");
                assert_eq!(range, high, "{unit:?} {v:?}");
            }
            for (start, _) in v.iter().enumerate().filter(|&(_, &b)| b == b'"') {
                assert_eq!(
                    scan_string_with(unit, &v, start),
                    reference::scan_string(&v, start),
                    "{unit:?}: the string at {start} in {v:?}"
                );
            }
            for from in 0..=n {
                assert_eq!(
                    find_special_with(unit, &v, from),
                    reference::find_special(&v, from),
                    "{unit:?} from {from} in {v:?}"
                );
            }
        }
    }
}

/// The blocks that are not ASCII, for one or two bytes of 0x80 or more
/// at every place of lines up to four blocks long, with every unit.
#[test]
fn blocks_not_ascii_are_found() {
    let mut got = Vec::new();
    for len in [1, 2, 63, 64, 65, 127, 128, 129, 200, 256] {
        for unit in units() {
            let plain = vec![b'a'; len];
            assert_eq!(
                string_classes_with(unit, &plain, &mut got),
                Some(0..0),
                "{unit:?} {len}"
            );
            for a in 0..len {
                for b in [a, a + (len - a) / 2, len - 1] {
                    let mut v = plain.clone();
                    v[a] = 0x80 | (a as u8);
                    v[b] = 0xff;
                    let want = a / 64..b / 64 + 1;
                    assert_eq!(
                        string_classes_with(unit, &v, &mut got),
                        Some(want),
                        "{unit:?} {len} {a} {b}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_environment_variable_picks_a_unit() {
    let best = Unit::best();
    assert_eq!(choose(None), (best, None));
    assert_eq!(choose(Some("")), (best, None));
    assert_eq!(choose(Some("auto")), (best, None));
    assert_eq!(choose(Some("none")), (Unit::None, None));
    assert_eq!(choose(Some("NONE")), (Unit::None, None));
    for u in Unit::ALL {
        let (got, warning) = choose(Some(u.name()));
        if u.available() {
            assert_eq!((got, warning), (u, None));
        } else {
            assert_eq!(got, best);
            let w = warning.unwrap();
            assert!(w.contains("this processor has no"), "{w}");
            assert!(w.ends_with(&format!("using {}", best.name())), "{w}");
        }
    }
    let (got, w) = choose(Some("mmx"));
    assert_eq!(got, best);
    assert!(w
        .unwrap()
        .starts_with("PI_SESSION_TOOLS_SIMD=mmx: not one of"));
}
