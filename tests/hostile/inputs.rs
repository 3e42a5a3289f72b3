//! The hostile inputs of the README's table, made by name (`make`), with
//! the REF each case uses and the line a tool must name for it.
use crate::common::*;
use std::io::Write;
use std::path::Path;

/// An assistant's reply `text`, with its usage.
fn assistant(id: &str, parent: Option<&str>, text: &str) -> String {
    message(
        id,
        parent,
        &format!(
            r#"{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude","usage":{{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}}},"stopReason":"stop","timestamp":1767225602000}}"#
        ),
    )
}

/// A small, valid session: aaaa0001 (user) <- aaaa0002 (assistant) <-
/// bbbb0003 (user) <- bbbb0004 (assistant), the last one the leaf.
fn small_lines() -> Vec<String> {
    vec![
        H.to_string(),
        user("aaaa0001", None, "hello"),
        assistant("aaaa0002", Some("aaaa0001"), "hi there"),
        user("bbbb0003", Some("aaaa0002"), "again"),
        assistant("bbbb0004", Some("bbbb0003"), "sure"),
    ]
}

fn small() -> Vec<u8> {
    small_with(|_| {})
}

/// The lines of [`small_lines`] as `edit` changes them.
fn small_with(edit: impl FnOnce(&mut Vec<String>)) -> Vec<u8> {
    let mut ls = small_lines();
    edit(&mut ls);
    lines(&ls).into()
}

fn ring(n: usize) -> Vec<u8> {
    // Entry k's parent is entry k-1; entry 0's parent is the last one.
    let id = |k: usize| format!("c{k:07x}");
    let entries: Vec<String> = (0..n)
        .map(|k| user(&id(k), Some(&id((k + n - 1) % n)), "round"))
        .collect();
    session(&entries).into_bytes()
}

/// Write `n` lines made by `line(k)` after a header, without holding the
/// whole text twice.
fn write_many(path: &Path, n: usize, line: impl Fn(usize, &mut Vec<u8>)) {
    let f = std::fs::File::create(path).unwrap();
    let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
    w.write_all(H.as_bytes()).unwrap();
    w.write_all(b"\n").unwrap();
    let mut buf = Vec::with_capacity(256);
    for k in 0..n {
        buf.clear();
        line(k, &mut buf);
        buf.push(b'\n');
        w.write_all(&buf).unwrap();
    }
    w.flush().unwrap();
}

const MILLION: usize = 1_000_000;

/// Lean message entries (no timestamps: pi's readers do not need them).
fn lean_user(buf: &mut Vec<u8>, id: usize, parent: Option<usize>) {
    let p = parent_json(parent.map(hex_id).as_deref());
    write!(
        buf,
        r#"{{"type":"message","id":"{}","parentId":{p},"message":{{"role":"user","content":"x"}}}}"#,
        hex_id(id)
    )
    .unwrap();
}

pub(super) fn make(key: &str, path: &Path) {
    let bytes: Vec<u8> = match key {
        "empty" => Vec::new(),
        "whitespace" => b"  \n\t \n\n \r\n".to_vec(),
        "no-header" => lines(&small_lines()[1..]).into(),
        "header-not-first" => small_with(|ls| {
            ls.swap(0, 1);
        }),
        "header-no-id" => small_with(|ls| {
            ls[0] = r#"{"type":"session","version":3,"timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp/hostile"}"#.into();
        }),
        "second-header" => small_with(|ls| {
            ls.insert(3, H.replace("-000000000001", "-000000000002"));
        }),
        "not-json" => small_with(|ls| {
            ls.insert(3, "this is not JSON {".into());
        }),
        "torn-last-line" => {
            let mut b = small();
            let next = user("bbbb0005", Some("bbbb0004"), "torn");
            b.extend_from_slice(&next.as_bytes()[..next.len() / 2]);
            b
        }
        "not-object" => small_with(|ls| {
            for (k, v) in ["[1,2,3]", "\"a string\"", "42", "null", "true"]
                .iter()
                .enumerate()
            {
                ls.insert(3 + k, v.to_string());
            }
        }),
        "not-object-first" => small_with(|ls| {
            ls.insert(0, "[1]".into());
        }),
        "invalid-utf8" => {
            let mut b = Vec::new();
            let ls = small_lines();
            for (k, l) in ls.iter().enumerate() {
                if k == 3 {
                    b.extend_from_slice(l.replace("again", "ag\u{1}ain").as_bytes());
                    // Turn the \x01 into bytes that are not UTF-8.
                    let at = b.iter().rposition(|&c| c == 1).unwrap();
                    b.splice(at..at + 1, [0xff, 0xc3, 0x28]);
                } else {
                    b.extend_from_slice(l.as_bytes());
                }
                b.push(b'\n');
            }
            b
        }
        "bom" => {
            let mut b = b"\xEF\xBB\xBF".to_vec();
            b.extend(small());
            b
        }
        "message-no-message" => small_with(|ls| {
            ls[3] = r#"{"type":"message","id":"bbbb0003","parentId":"aaaa0002","timestamp":"2026-01-01T00:00:01.000Z"}"#.into();
            ls[4] = r#"{"type":"message","id":"bbbb0004","parentId":"bbbb0003","timestamp":"2026-01-01T00:00:02.000Z","message":null}"#.into();
        }),
        "version-string" | "version-array" => small_with(|ls| {
            let v = if key == "version-string" {
                "\"3\""
            } else {
                "[3]"
            };
            ls[0] = ls[0].replace("\"version\":3", &format!("\"version\":{v}"));
        }),
        "crlf" => small_lines()
            .join("\r\n")
            .into_bytes()
            .into_iter()
            .chain(*b"\r\n")
            .collect(),
        "no-final-newline" => {
            let mut b = small();
            b.pop();
            b
        }
        "lone-surrogates" => small_with(|ls| {
            ls[3] = user(
                "bbbb0003",
                Some("aaaa0002"),
                r"lone \ud800 high, \udc00 low, \udbff\ud800 reversed",
            );
        }),
        "big-numbers" => small_with(|ls| {
            ls[4] = ls[4]
                .replace(r#""input":1,"#, r#""input":1e400,"#)
                .replace(r#""output":1,"#, r#""output":-1E+999,"#)
                .replace(
                    r#""totalTokens":2"#,
                    r#""totalTokens":123456789012345678901234567890"#,
                )
                .replace(r#""total":0"#, r#""total":1.5e-400"#)
                .replace("1767225602000}", "1.7976931348623157e309}");
            ls.push(
                r#"{"type":"compaction","id":"bbbb0005","parentId":"bbbb0004","timestamp":"2026-01-01T00:00:03.000Z","summary":"s","firstKeptEntryId":"bbbb0003","tokensBefore":1e400}"#
                    .to_string(),
            );
        }),
        "non-string-ids" => {
            // pi keys its Maps by the value: 1 -> 2 -> true -> 3 is a chain.
            let ls: Vec<String> = small_lines()
                .into_iter()
                .map(|l| {
                    [
                        ("aaaa0001", "1"),
                        ("aaaa0002", "2"),
                        ("bbbb0003", "true"),
                        ("bbbb0004", "3"),
                    ]
                    .iter()
                    .fold(l, |l, (from, to)| l.replace(&format!("\"{from}\""), to))
                })
                .collect();
            lines(&ls).into()
        }
        "null-id-last" => small_with(|ls| {
            ls[4] = assistant("bbbb0004", Some("bbbb0003"), "sure")
                .replace(r#""id":"bbbb0004""#, r#""id":null"#);
        }),
        "cycle-1" => small_with(|ls| {
            ls[4] = assistant("bbbb0004", Some("bbbb0004"), "my own parent");
        }),
        "cycle-2" => small_with(|ls| {
            ls[3] = user("bbbb0003", Some("bbbb0004"), "again");
        }),
        "cycle-1000" => ring(1000),
        "cycle-off-path" => small_with(|ls| {
            ls.insert(1, user("dddd0001", Some("dddd0002"), "x"));
            ls.insert(2, user("dddd0002", Some("dddd0001"), "y"));
        }),
        "dangling-parent" => small_with(|ls| {
            ls[3] = user("bbbb0003", Some("deadbeef"), "again");
        }),
        "duplicate-ids" => small_with(|ls| {
            ls[3] = user("aaaa0002", Some("aaaa0001"), "same id as line 3");
            ls[4] = assistant("bbbb0004", Some("aaaa0002"), "sure");
        }),
        "unknown-types" => small_with(|ls| {
            ls.insert(3, r#"{"type":"frobnicate","id":"eeee0001","parentId":"aaaa0002","timestamp":"2026-01-01T00:00:02.500Z","x":[1,{"y":null}]}"#.into());
            ls.insert(4, r#"{"type":"message","id":"eeee0002","parentId":"eeee0001","timestamp":"2026-01-01T00:00:02.600Z","message":{"role":"alien","content":"beep","timestamp":1}}"#.into());
            ls.insert(5, r#"{"type":"message","id":"eeee0003","parentId":"eeee0002","timestamp":"2026-01-01T00:00:02.700Z","message":"not an object"}"#.into());
            ls.insert(
                6,
                r#"{"type":42,"id":"eeee0004","parentId":"eeee0003"}"#.into(),
            );
            ls.insert(7, r#"{"id":"eeee0005","parentId":"eeee0004"}"#.into());
            ls[8] = user("bbbb0003", Some("eeee0005"), "again");
        }),
        "first-kept-missing" => small_with(|ls| {
            ls.push(r#"{"type":"compaction","id":"bbbb0005","parentId":"bbbb0004","timestamp":"2026-01-01T00:00:03.000Z","summary":"what happened","firstKeptEntryId":"nothere0","tokensBefore":100}"#.into());
            ls.push(user("bbbb0006", Some("bbbb0005"), "after"));
        }),
        "label-missing-target" => small_with(|ls| {
            ls.push(r#"{"type":"label","id":"bbbb0005","parentId":"bbbb0004","timestamp":"2026-01-01T00:00:03.000Z","targetId":"deadbeef","label":"ghost"}"#.into());
        }),
        "ref-ambiguous" | "ref-unknown" | "ref-root-parent" | "ref-past-root" => small(),
        "deep-nesting" => small_with(|ls| {
            let n = 100_000;
            let nest = format!("{}{}", "[".repeat(n), "]".repeat(n));
            let obj = format!("{}1{}", r#"{"a":"#.repeat(n), "}".repeat(n));
            ls[3] = format!(
                r#"{{"type":"message","id":"bbbb0003","parentId":"aaaa0002","timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":[{{"type":"text","text":"deep","x":{nest}}}],"timestamp":1}}}}"#
            );
            ls.push(format!(
                r#"{{"type":"custom","customType":"deep","data":{obj},"id":"bbbb0005","parentId":"bbbb0004","timestamp":"2026-01-01T00:00:03.000Z"}}"#
            ));
        }),
        "v1-not-json" => {
            let ls = [
                r#"{"type":"session","id":"0b5e55ed-v1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp/hostile"}"#,
                r#"{"type":"message","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hello","timestamp":1}}"#,
                "not JSON at all",
                r#"{"type":"message","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"again","timestamp":2}}"#,
            ];
            lines(&ls.map(String::from)).into()
        }
        "huge-line" => {
            let mut b = Vec::with_capacity(101 << 20);
            let ls = small_lines();
            for l in &ls[..4] {
                b.extend_from_slice(l.as_bytes());
                b.push(b'\n');
            }
            let text = "0123456789abcdef".repeat(100 << 16); // 100 MiB
            b.extend_from_slice(assistant("bbbb0004", Some("bbbb0003"), &text).as_bytes());
            b.push(b'\n');
            b
        }
        "deep-chain" => {
            write_many(path, MILLION, |k, b| {
                lean_user(b, k + 1, (k > 0).then_some(k))
            });
            return;
        }
        "million-siblings" => {
            write_many(path, MILLION, |k, b| {
                lean_user(b, k + 1, if k == 0 { None } else { Some(1) })
            });
            return;
        }
        other => panic!("no input named {other}"),
    };
    std::fs::write(path, bytes).unwrap();
}

/// Cases that need no big file.
pub(super) const BIG: &[&str] = &["huge-line", "deep-chain", "million-siblings"];

/// The REF each case uses (`leaf` = the tools' default, not passed).
pub(super) fn case_ref(key: &str) -> &'static str {
    match key {
        "ref-ambiguous" => "aaaa",
        "ref-unknown" => "ffff9999",
        "ref-root-parent" => "root^",
        "ref-past-root" => "leaf~99999",
        _ => "leaf",
    }
}

/// The line a tool must name (as FILE:LINE) in stderr for the case, if
/// any: where the problem sits. pi-migrate reads a version-3 file only for
/// its header (it has nothing to change), and pi-label does not walk paths,
/// so they say nothing of a bad line or a cycle there.
pub(super) fn case_line(key: &str, col: &str) -> Option<u64> {
    let migrate = col.starts_with("pi-migrate");
    let label = col.starts_with("pi-label");
    if col.starts_with("pi-edit") {
        // The entry pi-edit refuses to edit (the leaf).
        match key {
            "big-numbers" | "label-missing-target" | "deep-nesting" => return Some(6),
            "message-no-message" => return Some(5),
            _ => {}
        }
    }
    Some(match key {
        "no-header" | "header-not-first" | "header-no-id" | "not-object-first" => 1,
        "bom" if !migrate => 1,
        "v1-not-json" if col == "pi-label --list" => 3,
        "deep-nesting"
            if matches!(
                col,
                "pi-path --format context"
                    | "pi-tree --json"
                    | "pi-convert --to llm"
                    | "pi-fork --at REF -o -"
            ) =>
        {
            4
        }
        "v1-not-json" if !label => 3,
        _ if migrate => return None,
        "version-string" | "version-array" => 1,
        "second-header" | "not-json" | "invalid-utf8" => 4,
        // lines 4 and 6-8 are entries now (pi keeps truthy values); null is dropped
        "not-object" => 7,
        "torn-last-line" => 6,
        "dangling-parent" | "duplicate-ids" => 4,
        "null-id-last" if col == "pi-fork --at REF -o -" || col.starts_with("pi-edit") => 5,
        "cycle-1" | "cycle-2" if !label => 5,
        _ => return None,
    })
}
