//! pi-tree, driven as a user runs it.
use crate::common::*;

#[test]
fn conformance_with_pi() {
    let cases = cases("pi-tree");
    assert!(cases.iter().any(|c| c.args.iter().any(|a| a == "--json")));
    assert!(cases.iter().any(|c| c.args.iter().any(|a| a == "--search")));
    check_each(&cases, 100, |c| {
        // A search that finds nothing exits 1 (as grep; pi's /tree has no
        // status): its row is still pi's.
        let searched = c.args.iter().any(|a| a == "--search");
        if searched && c.stdout.trim_end().ends_with("No entries found") {
            return no_match_as_pi(c);
        }
        // With --width, a row whose shown control characters made it
        // wider is cut earlier than pi's: compared up to them.
        let cut = c.args.iter().any(|a| a == "--width");
        // Rows are compared as they are: pi's are trimmed (generate.mjs),
        // and a row of ours ends without white space, cut or not.
        same_stdout(c, |t| {
            let t = shown_as_pi_tree_shows(t);
            match cut {
                true => t.lines().map(up_to_shown).collect::<Vec<_>>().join("\n"),
                false => t,
            }
        })
    });
}

/// `c` (a search pi finds nothing for): exit 1, pi's row printed.
fn no_match_as_pi(c: &Case) -> Result<(), String> {
    let session = c.session.to_string_lossy().into_owned();
    let mut args: Vec<&str> = c.args.iter().map(String::as_str).collect();
    args.push(&session);
    let o = run_conformance("pi-tree", &args, None);
    let got = shown_as_pi_tree_shows(&stdout(&o));
    match o.status.code() == Some(1) && got == shown_as_pi_tree_shows(&c.stdout) {
        true => Ok(()),
        false => Err(format!(
            "pi-tree {args:?}: exit {:?}, {got:?}",
            o.status.code()
        )),
    }
}

/// A row up to its first shown control character.
fn up_to_shown(l: &str) -> &str {
    let at = ["\\x", "\\r", "\\t", "\\u{"]
        .iter()
        .filter_map(|e| l.find(e))
        .min();
    &l[..at.unwrap_or(l.len())]
}

/// pi's rows with their control characters shown as pi-tree shows them
/// (a deliberate difference, README's "Exact to pi 1.6.0": pi writes them
/// raw); the SGR codes of colour stay. pi-tree's own rows have none left.
fn shown_as_pi_tree_shows(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    let mut rest = t;
    while let Some(c) = rest.chars().next() {
        let sgr = rest.strip_prefix("\x1b[").and_then(|r| {
            let n = r.find(|c: char| !c.is_ascii_digit() && c != ';')?;
            r[n..].starts_with('m').then_some(2 + n + 1)
        });
        if let Some(n) = sgr {
            out.push_str(&rest[..n]);
            rest = &rest[n..];
            continue;
        }
        match c {
            '\n' => out.push('\n'),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x80 && c.is_control() => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if c.is_control() => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
            c => out.push(c),
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[test]
fn jsonl_one_line_per_entry() {
    let s = fixture("v3-many-roots");
    let o = run("pi-tree", &["--format", "jsonl", &s], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = json_lines(&stdout(&o));
    let entries = std::fs::read_to_string(&s).unwrap().lines().count() - 1;
    assert_eq!(rows.len(), entries);
    let mut ids = std::collections::HashSet::new();
    for r in &rows {
        assert!(ids.insert(r["id"].as_str().unwrap().to_string()));
        assert!(r["depth"].is_u64() && r["children"].is_array() && r["text"].is_string());
        assert!(r["active"].is_boolean() && r["type"].is_string());
    }
    // parents come before their children, at depth - 1
    let by_id: std::collections::HashMap<_, _> = rows
        .iter()
        .enumerate()
        .map(|(k, r)| (r["id"].as_str().unwrap(), k))
        .collect();
    for (k, r) in rows.iter().enumerate() {
        for c in r["children"].as_array().unwrap() {
            let ck = by_id[c.as_str().unwrap()];
            assert!(ck > k);
            assert_eq!(
                rows[ck]["depth"].as_u64().unwrap(),
                r["depth"].as_u64().unwrap() + 1
            );
            assert_eq!(rows[ck]["parentId"], r["id"]);
        }
    }
    // the last entry is active, and so is its root
    let last = std::fs::read_to_string(&s)
        .unwrap()
        .lines()
        .last()
        .map(String::from)
        .unwrap();
    let last: serde_json::Value = serde_json::from_str(&last).unwrap();
    assert_eq!(rows[by_id[last["id"].as_str().unwrap()]]["active"], true);
    assert_eq!(rows[0]["active"], true, "the active branch comes first");
    // a filter narrows it
    let o = run(
        "pi-tree",
        &["--format", "jsonl", "--filter", "user-only", &s],
        None,
    );
    for r in json_lines(&stdout(&o)) {
        assert_eq!(r["role"], "user");
    }
}

#[test]
fn dot_graph() {
    let s = fixture("v3-labels");
    let o = run("pi-tree", &["--format", "dot", &s], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("digraph session {\n") && out.ends_with("}\n"));
    let nodes = out.lines().filter(|l| l.contains(" [label=")).count();
    let edges = out.lines().filter(|l| l.contains(" -> ")).count();
    let entries = std::fs::read_to_string(&s).unwrap().lines().count() - 1;
    assert_eq!(nodes, entries);
    let roots = stdout(&run("pi-tree", &["--stats", &s], None));
    let stats: serde_json::Value = serde_json::from_str(roots.trim()).unwrap();
    assert_eq!(
        edges as u64,
        entries as u64 - stats["roots"].as_u64().unwrap()
    );
    assert!(out.contains("peripheries=2"), "labelled entries are marked");
    assert!(out.contains("style=bold"), "the active path is marked");
    graphviz_reads(&out);
}

/// Graphviz, where it is installed, reads the graph `dot`.
fn graphviz_reads(dot: &str) {
    let t = TempDir::new("tree-dot");
    let f = t.write("g.dot", dot.as_bytes());
    if let Ok(o) = std::process::Command::new("dot")
        .arg("-Tsvg")
        .arg(&f)
        .output()
    {
        assert!(
            o.status.success(),
            "dot: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// Graphviz refuses a NUL and a quoted string over 16 384 characters:
/// controls become their pictures, labels and tooltips are cut.
#[test]
fn dot_survives_controls_and_huge_ids() {
    let huge = "x".repeat(40_000);
    let text = format!(
        "{{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/\"}}\n\
{{\"type\":\"message\",\"id\":\"{huge}\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"nul \\u0000 bell \\u0007 del \\u007f \\\" quote\",\"timestamp\":1}}}}\n\
{{\"type\":\"label\",\"id\":\"aaaa0002\",\"parentId\":\"{huge}\",\"timestamp\":\"2026-01-01T00:00:02.000Z\",\"targetId\":\"{huge}\",\"label\":\"{huge}\"}}\n"
    );
    let t = TempDir::new("tree-dot-hostile");
    let f = t.write("s.jsonl", text.as_bytes());
    let o = run("pi-tree", &["--format", "dot", f.to_str().unwrap()], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!o.stdout.contains(&0), "a raw NUL in the graph");
    let out = stdout(&o);
    assert!(
        out.contains("nul \\\\x00 bell \\\\x07 del \\\\x7f \\\" quote"),
        "{out:.300}"
    );
    // Every quoted string within Graphviz's limit.
    for piece in out.split('"') {
        assert!(
            piece.chars().count() < 16_384,
            "a quoted string of {} characters",
            piece.chars().count()
        );
    }
    graphviz_reads(&out);
}

/// C1 controls (U+0080-U+009F; U+009B is a CSI on some terminals) in a
/// message, an id and a label are shown in the graph as every tool shows
/// them (`\u{009b}`), never written raw.
#[test]
fn dot_shows_c1_controls() {
    let text = "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/\"}\n\
{\"type\":\"message\",\"id\":\"a\\u009b1\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"csi \\u009b2J nel \\u0085 end\",\"timestamp\":1}}\n\
{\"type\":\"label\",\"id\":\"l1\",\"parentId\":\"a\\u009b1\",\"timestamp\":\"2026-01-01T00:00:02.000Z\",\"targetId\":\"a\\u009b1\",\"label\":\"lab\\u0080el\"}\n";
    let t = TempDir::new("tree-dot-c1");
    let f = t.write("s.jsonl", text.as_bytes());
    let o = run("pi-tree", &["--format", "dot", f.to_str().unwrap()], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        !out.chars().any(|c| ('\u{80}'..='\u{9f}').contains(&c)),
        "a raw C1 control in the graph: {out:?}"
    );
    for shown in [
        "csi \\\\u{009b}2J nel \\\\u{0085} end",
        "tooltip=\"a\\\\u{009b}1\"",
        "lab\\\\u{0080}el",
    ] {
        assert!(out.contains(shown), "{shown} not in {out}");
    }
    graphviz_reads(&out);
}

#[test]
fn stats() {
    let s = fixture("tree-roots");
    let o = run("pi-tree", &["--stats", &s], None);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["entries"], 12);
    assert_eq!(v["types"]["message"], 11);
    assert_eq!(v["types"]["label"], 1);
    assert_eq!(v["roots"], 4);
    assert_eq!(v["branchPoints"], 2);
    assert_eq!(v["leaves"], 7);
    assert_eq!(v["maxDepth"], 4);
    assert_eq!(v["labels"], 1);
    assert_eq!(v["unreachable"], 0);
    assert_eq!(v["name"], serde_json::Value::Null);
    let o = run("pi-tree", &["--stats", &fixture("tree-cycle")], None);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["unreachable"], 2);
    assert!(stderr(&o).contains("tree-cycle.jsonl:3: entry bbbb0002 is on a parentId cycle"));
}

/// A chain of `n` messages, a user's and a bash execution's in turn.
fn user_and_bash(n: usize) -> Vec<u8> {
    let entries = chain(n, |i| {
        let role = if i % 2 == 0 { "user" } else { "bashExecution" };
        format!(r#"{{"role":"{role}","content":"m{i}","command":"c{i}","timestamp":1}}"#)
    });
    session(&entries).into_bytes()
}

#[test]
fn deep_chain_in_every_format() {
    let n = 100_000;
    let input = user_and_bash(n);
    let t = TempDir::new("tree-deep");
    let f = t.write("deep.jsonl", &input);
    let f = f.to_string_lossy().into_owned();
    let text = run("pi-tree", &[&f], None);
    assert!(text.status.success(), "{}", stderr(&text));
    assert_eq!(stdout(&text).lines().count(), n);
    assert!(stdout(&text).lines().all(|l| l.starts_with("• ")));
    let json = run("pi-tree", &["--json", &f], None);
    assert!(json.status.success(), "{}", stderr(&json));
    let out = stdout(&json);
    assert_eq!(out.matches("\"children\":[").count(), n);
    assert!(out.starts_with("[{\"entry\":{\"type\":\"message\",\"id\":\"00000000\""));
    assert!(out.ends_with(&format!("{}]\n", "]}".repeat(n))));
    let rows = run("pi-tree", &["--format", "jsonl", &f], None);
    assert!(rows.status.success());
    let rows = json_lines(&stdout(&rows));
    assert_eq!(rows.len(), n);
    assert_eq!(rows[n - 1]["depth"], (n - 1) as u64);
    let dot = run("pi-tree", &["--format", "dot", &f], None);
    assert!(dot.status.success());
    assert_eq!(stdout(&dot).matches(" -> ").count(), n - 1);
    let st = run("pi-tree", &["--stats", &f], None);
    let v: serde_json::Value = serde_json::from_str(stdout(&st).trim()).unwrap();
    assert_eq!(v["maxDepth"], n as u64);
    let user = run(
        "pi-tree",
        &["--filter", "user-only", "--ids", "-"],
        Some(&input),
    );
    assert!(user.status.success());
    assert_eq!(stdout(&user).lines().count(), n / 2);
}

#[test]
fn options() {
    let s = fixture("tree-roots");
    let o = run("pi-tree", &["--ids", "--width", "20", &s], None);
    let out = stdout(&o);
    let first = out.lines().next().unwrap();
    assert_eq!(
        first, "aaaa0001 • user: fir",
        "cut without an ellipsis, as pi 1.6"
    );
    assert!(out.lines().all(|l| l.chars().count() <= 20));
    assert!(!out.contains('\x1b'), "no colour in a pipe");
    let o = run("pi-tree", &["--leaf", "nope", &s], None);
    assert_eq!(o.status.code(), Some(1));
    let o = run("pi-tree", &["--filter", "bogus", &s], None);
    assert_eq!(o.status.code(), Some(2));
    let o = run("pi-tree", &["--search", "ORPHAN missing", &s], None);
    assert_eq!(stdout(&o), "user: orphan: parent missing\n");
    // A search that finds nothing exits 1, as grep (issue 35); the row
    // says it as pi's /tree does. A blank search is none: exit 0.
    let o = run("pi-tree", &["--search", "no such words", &s], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(stdout(&o), "No entries found\n", "as pi's /tree says it");
    for format in ["jsonl", "dot"] {
        let o = run(
            "pi-tree",
            &["--search", "no such", "--format", format, &s],
            None,
        );
        assert_eq!(o.status.code(), Some(1), "{format}");
        let o = run(
            "pi-tree",
            &["--search", "orphan", "--format", format, &s],
            None,
        );
        assert_eq!(o.status.code(), Some(0), "{format}");
    }
    let o = run("pi-tree", &["--search", "  ", &s], None);
    assert_eq!(o.status.code(), Some(0));
    let o = run(
        "pi-tree",
        &["--search", "no such words", "--width", "9", &s],
        None,
    );
    assert_eq!(stdout(&o), "No ent...\n", "cut as pi cuts it at 11");
}

#[test]
fn a_file_written_twice_is_refused_not_a_hang() {
    // Every id twice: pi's tree holds each entry once per route to it (2^n).
    let body = lines(&chain(60, |_| user_message("m")));
    let s = format!("{H}\n{body}{body}");
    for args in [
        vec![],
        vec!["--json"],
        vec!["--stats"],
        vec!["--format", "jsonl"],
    ] {
        let o = run("pi-tree", &args, Some(s.as_bytes()));
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert_stderr_has(&o, "too large to show");
    }
    // The other tools read it fine (the later line of each id wins).
    let o = run("pi-path", &["--format", "ids"], Some(s.as_bytes()));
    assert_eq!(stdout(&o).lines().count(), 60);
}

/// `--json` writes every entry as `JSON.stringify(JSON.parse(line))`. Lines
/// pi wrote are copied after a quick check; each way a line can differ
/// from JSON.stringify's text must take the long way and still come out as
/// JavaScript writes it (the expected texts were made by Node).
#[test]
fn json_rewrites_lines_that_are_not_as_javascript_writes_them() {
    let cases: &[(&[u8], &[u8])] = &[
        (br#"{"a" : 1, "b":[ 1 ,2 ]}"#, br#"{"a":1,"b":[1,2]}"#),
        (b"{\"a\":\t1}", br#"{"a":1}"#),
        (br#""\/x""#, br#""/x""#),
        (br#""\u0041""#, br#""A""#),
        (br#""\u001F""#, br#""\u001f""#),
        (br#""\u0008\u000a\u000D\u0009\u000c""#, br#""\b\n\r\t\f""#),
        (br#""\ud83d\ude00""#, "\"😀\"".as_bytes()),
        (br#""\ud800 lone""#, br#""\ud800 lone""#),
        (br#""\uDC00""#, br#""\udc00""#),
        (br#"{"a":1,"a":2}"#, br#"{"a":2}"#),
        (br#"{"b":1,"1":2,"0":3}"#, br#"{"0":3,"1":2,"b":1}"#),
        (br#"{"01":1,"1":2}"#, br#"{"1":2,"01":1}"#),
        (br#"{"abcdefXz":1,"abcdefYz":2}"#, br#"{"abcdefXz":1,"abcdefYz":2}"#),
        (
            br#"{"a":{"a":1},"b":[{"a":1},{"a":2}]}"#,
            br#"{"a":{"a":1},"b":[{"a":1},{"a":2}]}"#,
        ),
        (
            br#"[1.0,1e3,1E3,-0,0.10,1e21,1e20,0.0000001,0.000001,123456789012345678,0.30000000000000004,0.30000000000000001,0.1000000000000000055511151231257827,5e-324,1.7976931348623157e308,1e400,-1.5e-7,2.50]"#,
            br#"[1,1000,1000,0,0.1,1e+21,100000000000000000000,1e-7,0.000001,123456789012345680,0.30000000000000004,0.3,0.1,5e-324,1.7976931348623157e+308,null,-1.5e-7,2.5]"#,
        ),
        ("\"\x7f \u{2028} \u{2029}\"".as_bytes(), "\"\x7f \u{2028} \u{2029}\"".as_bytes()),
        (br#""q\"b\\""#, br#""q\"b\\""#),
        (br#"[{},[],{"e":{}},[[]]]"#, br#"[{},[],{"e":{}},[[]]]"#),
        (
            "{\"é\":1,\"e\\u0301\":2}".as_bytes(),
            "{\"é\":1,\"e\u{301}\":2}".as_bytes(),
        ),
        (br#""\u00e9\u20ac""#, "\"é€\"".as_bytes()),
        (br#"{"a\u0062":1,"ab":2}"#, br#"{"ab":2}"#),
        (b"\"a\xffb\"", "\"a\u{fffd}b\"".as_bytes()),
        (b"0.08210100000000001", b"0.08210100000000001"),
        (b"[0.048399000000000005,-0.5,10,1.5]", b"[0.048399000000000005,-0.5,10,1.5]"),
    ];
    let mut input = session(&[]).into_bytes();
    let mut want = Vec::new();
    for (i, (raw, js)) in cases.iter().enumerate() {
        let parent = if i == 0 {
            "null".to_string()
        } else {
            format!("\"{:08x}\"", i - 1)
        };
        let line = |v: &[u8]| {
            let mut l = format!(
                "{{\"type\":\"custom\",\"customType\":\"t\",\"id\":\"{i:08x}\",\"parentId\":{parent},\"timestamp\":\"2026-07-20T09:00:{:02}.000Z\",\"data\":",
                i % 60
            )
            .into_bytes();
            l.extend_from_slice(v);
            l.push(b'}');
            l
        };
        input.extend_from_slice(&line(raw));
        // Around the line: blanks pi's JSON.parse ignores, and a CR.
        match i % 3 {
            0 => input.extend_from_slice(b"  "),
            1 => input.push(b'\r'),
            _ => {}
        }
        input.push(b'\n');
        // A chain: each node is its parent's only child, no commas.
        want.extend_from_slice(if i == 0 {
            b"[{\"entry\":"
        } else {
            b"{\"entry\":"
        });
        want.extend_from_slice(&line(js));
        want.extend_from_slice(b",\"children\":[");
    }
    want.extend_from_slice(&b"]}".repeat(cases.len()));
    want.extend_from_slice(b"]\n");
    let t = TempDir::new("tree-canon");
    let f = t.write("canon.jsonl", &input);
    let f = f.to_string_lossy().into_owned();
    let o = run("pi-tree", &["--json", &f], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let want = String::from_utf8(want).unwrap();
    assert_eq!(stdout(&o), want);
    // Read from standard input (held in memory): the same.
    let o = run("pi-tree", &["--json"], Some(&input));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), want);
    // Into a regular file (the kernel copies the lines from the session
    // file, as it does into the pipe above): the same.
    let out = t.path().join("out.json");
    let o = run_with("pi-tree", &["--json", &f], None, |c| {
        c.stdout(std::fs::File::create(&out).unwrap());
    });
    assert!(o.status.success());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), want);
}

/// `--json` to an output that fails: the tool says so and exits 1.
#[test]
fn json_to_a_full_device_is_an_error() {
    if !std::path::Path::new("/dev/full").exists() {
        return;
    }
    let t = TempDir::new("tree-full");
    let f = t.write("s.jsonl", &user_and_bash(2000));
    let o = run_with("pi-tree", &["--json", &f.to_string_lossy()], None, |c| {
        c.stdout(
            std::fs::File::options()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        );
    });
    assert_eq!(o.status.code(), Some(1));
    assert_stderr_has(&o, "pi-tree: error: <stdout>:");
}

/// Duplicate ids can make an entry its own descendant in pi's tree: pi's
/// /tree would not finish; pi-tree draws it once and says where (issue 15).
#[test]
fn a_duplicate_id_cycle_is_drawn_once_with_a_warning() {
    let m = |id: &str, parent: Option<&str>, t: u32, text: &str| {
        let at = format!("2026-01-01T00:00:0{t}.000Z");
        message_at(id, parent, &at, &user_message(text))
    };
    let text = session(&[
        m("a1", None, 1, "root"),
        m("b1", Some("a1"), 2, "x"),
        m("b2", Some("b1"), 3, "y"),
        m("b1", Some("b2"), 4, "b1 again, below b2"),
    ]);
    let t = TempDir::new("tree-dup-cycle");
    let f = t.write("s.jsonl", text.as_bytes());
    let o = run("pi-tree", &[f.to_str().unwrap()], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_stderr_has(
        &o,
        ":4: duplicate ids make entry b1 (line 5) a descendant of itself",
    );
    assert_eq!(stdout(&o).matches("b1 again").count(), 1, "{}", stdout(&o));
}

/// `--color auto|always|never`, NO_COLOR and CLICOLOR_FORCE, as other
/// tools have them (issue 22).
#[test]
fn colour_is_asked_for_or_forced_and_never_with_no_color() {
    let s = fixture("v3-001");
    let esc = |o: &std::process::Output| o.stdout.contains(&0x1b);
    assert!(!esc(&run("pi-tree", &[&s], None)), "a pipe: no colour");
    assert!(esc(&run("pi-tree", &["--color", "always", &s], None)));
    let forced = run_with("pi-tree", &[&s], None, |c| {
        c.env("CLICOLOR_FORCE", "1");
    });
    assert!(esc(&forced));
    let off = run_with("pi-tree", &[&s], None, |c| {
        c.env("CLICOLOR_FORCE", "1").env("NO_COLOR", "1");
    });
    assert!(!esc(&off));
    let never = run_with("pi-tree", &["--color", "never", &s], None, |c| {
        c.env("CLICOLOR_FORCE", "1");
    });
    assert!(!esc(&never));
}

#[test]
fn jsonl_children_keep_ids_that_are_not_strings() {
    let o = run(
        "pi-tree",
        &["--format", "jsonl", &fixture("path-non-string-ids")],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = json_lines(&stdout(&o));
    let z = rows.iter().find(|r| r["id"] == "z").expect("row z");
    assert_eq!(z["children"], serde_json::json!([7]));
    let one = rows
        .iter()
        .find(|r| r["id"] == 1)
        .expect("row of the number 1");
    assert_eq!(one["children"], serde_json::json!(["1", "z"]));
}
