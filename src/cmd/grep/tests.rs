//! The raw search of JSON strings against the search of the decoded text.

use super::search::search_source;
use super::*;
use crate::json::js;
use crate::search::{self, Matcher};
use crate::store::Source;

/// The raw search of JSON strings (and the whole-text search) gives
/// what the line-by-line search of the decoded text gives.
#[test]
fn raw_search_is_the_decoded_search() {
    let texts = [
        "café nothing\\nothing here",
        "a\\nothing\nnothing\n",
        "x \"nothing\" y\tnothing\\\\nothing",
        "\u{1b}nothing\u{1b}",
        "nothin",
        "line1\nline2 nothing\nline3 nothing nothing\n\nnothing",
        "",
        "\n\nnothing\n",
        // a break, then "othing": the escape's letter is no "n"
        "a break before\nothing",
        // a match on a tab's letter before one that is not (`tab\there`,
        // from a real session: the build before this session panicked)
        "<tag> parser tab\there   padded   tab\there the parser",
    ];
    // and long texts, whose escapes and matches cross the checker's
    // 64-byte blocks
    let long = [
        "ab\tnothing\n\"q\"\\".repeat(30),
        format!("{}nothing\n{}nothing", "\\".repeat(63), "x\"".repeat(40)),
    ];
    let texts: Vec<&str> = texts
        .into_iter()
        .chain(long.iter().map(String::as_str))
        .collect();
    let mut file = String::from(
        r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/x"}"#,
    );
    file.push('\n');
    for (i, t) in texts.iter().enumerate() {
        let mut s = Vec::new();
        js::write_str(&mut s, t);
        file.push_str(&format!(
            r#"{{"type":"message","id":"e{i}","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{{"type":"text","text":{}}}],"isError":false,"timestamp":1}}}}"#,
            String::from_utf8(s).unwrap()
        ));
        file.push('\n');
    }
    // escapes JSON.stringify does not write
    file.push_str(r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"user","content":"no\u0074hing and \u00e9 nothing\nothing","timestamp":2}}"#);
    file.push('\n');
    file.push_str(r#"{"type":"message","id":"u2","parentId":null,"timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"user","content":[{"type":"text","text":"\\nothing \\\nothing \/ nothing"}],"timestamp":2}}"#);
    file.push('\n');
    let path = std::env::temp_dir().join(format!("pi-grep-raw-{}.jsonl", std::process::id()));
    std::fs::write(&path, &file).unwrap();
    let src = Source::File(path.clone());
    for pat in [
        "nothing",
        "othing",
        "ing",
        "h",
        "no.hing",
        "é",
        "line[0-9]",
        "the",
    ] {
        for ic in [false, true] {
            for mode in [
                Mode::Count,
                Mode::Lines,
                Mode::Only,
                Mode::Json,
                Mode::Files,
            ] {
                let a = raw_and_decoded(&src, pat, ic, mode, "");
                assert!(a, "{pat}");
            }
        }
    }
    let _ = std::fs::remove_file(&path);
}

/// Random texts and patterns: the raw search (and the whole-text search)
/// gives what the line-by-line search of the decoded text gives, in every
/// mode, for strings long enough to cross the checker's 64-byte blocks and
/// with the escapes JSON.stringify writes and some it does not.
#[test]
fn raw_search_is_the_decoded_search_on_random_texts() {
    let mut next = crate::test_rng::xorshift(0x853c_49e6_748f_ea9bu64);
    let pieces = [
        "ab", "needle", "need", "le", "eedle", "\n", "\"", "\\", "\t", "é", "\u{1b}", "/", " ",
        "x", "日本", "\r\n",
    ];
    let patterns = [
        "needle", "le", r"e\\", "ab", "é", "x[a-z]+", "need|ab", "日", "tab",
    ];
    let path = std::env::temp_dir().join(format!("pi-grep-rnd-{}.jsonl", std::process::id()));
    for round in 0..600 {
        let mut file = String::from(
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/x"}"#,
        );
        file.push('\n');
        for e in 0..(next() % 6 + 1) {
            let mut text = String::new();
            for _ in 0..next() % 60 {
                text.push_str(pieces[(next() % pieces.len() as u64) as usize]);
            }
            let mut j = Vec::new();
            js::write_str(&mut j, &text);
            let mut j = String::from_utf8(j).unwrap();
            match next() % 5 {
                // escapes JSON.stringify does not write
                0 => j = j.replacen('a', "\\u0061", 1),
                1 => j = j.replace('/', "\\/"),
                _ => {}
            }
            let line = match next() % 3 {
                0 => format!(
                    r#"{{"type":"message","id":"e{e}","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{{"role":"user","content":{j},"timestamp":1}}}}"#
                ),
                1 => format!(
                    r#"{{"type":"message","id":"e{e}","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{{"role":"assistant","content":[{{"type":"thinking","thinking":{j}}},{{"type":"text","text":{j}}}],"timestamp":1}}}}"#
                ),
                _ => format!(
                    r#"{{"type":"branch_summary","id":"e{e}","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","fromId":"x","summary":{j}}}"#
                ),
            };
            file.push_str(&line);
            file.push('\n');
        }
        std::fs::write(&path, &file).unwrap();
        let src = Source::File(path.clone());
        let pat = patterns[round % patterns.len()];
        let ic = next().is_multiple_of(2);
        for mode in [Mode::Count, Mode::Lines, Mode::Only, Mode::Json] {
            raw_and_decoded(&src, pat, ic, mode, &file);
        }
    }
    let _ = std::fs::remove_file(&path);
}

/// Search `src` for `pat` in `mode` the quick way (raw JSON strings, whole
/// texts) and the slow way (each decoded line), and check that they print
/// the same; whether it matched.
fn raw_and_decoded(src: &Source, pat: &str, ic: bool, mode: Mode, what: &str) -> bool {
    let matcher = Matcher::new(
        &[pat.to_string()],
        search::PatternOptions {
            ignore_case: ic,
            ..Default::default()
        },
    )
    .unwrap();
    let mut slow = matcher.clone();
    slow.raw = None;
    slow.whole = false;
    let a = search_source(src, &options(matcher, mode));
    let b = search_source(src, &options(slow, mode));
    assert_eq!(
        String::from_utf8_lossy(&a.out),
        String::from_utf8_lossy(&b.out),
        "{pat} {ic} {mode:?}\n{what}"
    );
    a.matched
}

/// A search's options: `matcher` in `mode`, nothing else narrowed.
fn options(matcher: Matcher, mode: Mode) -> Options {
    Options {
        matcher,
        roles: None,
        fields: None,
        active: false,
        since: None,
        until: None,
        mode,
        max_count: None,
        before: 0,
        after: 0,
        color: false,
        heading: false,
        line_number: false,
        filename: true,
        null: false,
        log: crate::cli::Log {
            tool: "pi-grep",
            quiet: true,
        },
        threads: 1,
    }
}
