//! Replays the fuzz corpora and every input a fuzzer ever failed on
//! through the fuzz target bodies in `pi_session_tools::fuzzing` (which
//! assert invariants, not just "no panic"). This is the CI smoke run of the
//! fuzzers: it needs no nightly toolchain and no cargo-fuzz.
//!
//! - `tests/fuzz-regressions/<target>/<name>`: inputs that once failed
//!   (each fixed in the library; the file name says what was wrong).
//! - `fuzz/corpus/<target>/*`: the minimized corpus of each target.

use crate::common::repo;
use std::path::Path;

type Target = fn(&[u8]);

const TARGETS: &[(&str, Target)] = &[
    ("json", pi_session_tools::fuzzing::json),
    ("date", pi_session_tools::fuzzing::date),
    ("session", pi_session_tools::fuzzing::session),
    ("migrate", pi_session_tools::fuzzing::migrate),
    ("convert", pi_session_tools::fuzzing::convert),
];

fn replay(dir: &Path, target: Target) -> usize {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut files: Vec<_> = rd.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    files.sort();
    let mut n = 0;
    for f in files {
        if !f.is_file() {
            continue;
        }
        let data = std::fs::read(&f).unwrap();
        let r = std::panic::catch_unwind(|| target(&data));
        assert!(r.is_ok(), "fuzz input {} fails", f.display());
        n += 1;
    }
    n
}

#[test]
fn regressions() {
    for (name, target) in TARGETS {
        replay(&repo().join("tests/fuzz-regressions").join(name), *target);
    }
}

#[test]
fn corpus_json() {
    assert!(replay(&repo().join("fuzz/corpus/json"), TARGETS[0].1) > 10);
}

#[test]
fn corpus_date() {
    assert!(replay(&repo().join("fuzz/corpus/date"), TARGETS[1].1) > 10);
}

#[test]
fn corpus_session() {
    assert!(replay(&repo().join("fuzz/corpus/session"), TARGETS[2].1) > 10);
}

#[test]
fn corpus_migrate() {
    assert!(replay(&repo().join("fuzz/corpus/migrate"), TARGETS[3].1) > 10);
}

#[test]
fn corpus_convert() {
    assert!(replay(&repo().join("fuzz/corpus/convert"), TARGETS[4].1) > 10);
}

/// The conformance sessions (all lines, for the json target) pass too.
#[test]
fn conformance_sessions() {
    let dir = repo().join("tests/conformance/sessions");
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let data = std::fs::read(e.unwrap().path()).unwrap();
        for line in data.split(|&b| b == b'\n') {
            pi_session_tools::fuzzing::json(line);
        }
        for (name, target) in &TARGETS[2..] {
            let r = std::panic::catch_unwind(|| target(&data));
            assert!(r.is_ok(), "{name} fails on a conformance session");
        }
        n += 1;
    }
    assert!(n > 10);
}

/// Found by the `json` target: keys are the same JavaScript string after
/// decoding escapes (`"a"` and `"\u0061"`) or bytes that are not UTF-8
/// (both read as U+FFFD), so the second one replaces the first.
/// Answers from Node: `JSON.stringify(JSON.parse(text))`.
#[test]
fn canonical_merges_keys_equal_after_decoding() {
    use pi_session_tools::json::js::canonical_vec;
    let text = br#"{"a":1,"\u0061":2,"\u0031":3}"#;
    assert_eq!(
        canonical_vec(text, 0..text.len()).unwrap(),
        br#"{"1":3,"a":2}"#
    );
    let text = b"{\"a\xff\":1,\"a\xfe\":2,\"b\":3}";
    assert_eq!(
        canonical_vec(text, 0..text.len()).unwrap(),
        "{\"a\u{FFFD}\":2,\"b\":3}".as_bytes()
    );
}

/// Found by the `session` target: a file whose lines were duplicated has
/// every id three times, and pi's tree enters each node once per path
/// (3^depth). Building the tree (its reachability) must stay linear, and
/// `walk_len` tells callers the walk is too big before they walk it.
#[test]
fn duplicated_file_tree_is_not_walked_exponentially() {
    use pi_session_tools::session::{ReadOptions, Session};
    let data = std::fs::read(
        repo().join("tests/fuzz-regressions/session/duplicated-file-exponential-tree"),
    )
    .unwrap();
    let s = Session::from_bytes("d.jsonl", data, ReadOptions::default()).unwrap();
    let t0 = std::time::Instant::now();
    let tree = pi_session_tools::tree::Tree::build(&s);
    assert!(t0.elapsed().as_secs() < 2);
    assert_eq!(tree.walk_len(10_000), None);
}
