//! pi-path, driven as a user runs it.
use crate::common::*;

#[test]
fn conformance_with_pi() {
    check_each(&cases("pi-path"), 500, |c| same_stdout(c, str::to_string));
}

fn path_ids(input: impl AsRef<[u8]>, args: &[&str]) -> (i32, String, String) {
    let mut a = vec!["--format", "ids"];
    a.extend_from_slice(args);
    let o = run("pi-path", &a, Some(input.as_ref()));
    (o.status.code().unwrap_or(-1), stdout(&o), stderr(&o))
}

#[test]
fn empty_input_is_an_error() {
    let (code, out, err) = path_ids(b"", &[]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.contains("pi-path: error: <stdin>: empty input"),
        "{err}"
    );
    let (code, _, err) = path_ids(b"  \n\n", &[]);
    assert_eq!(code, 1, "{err}");
}

#[test]
fn missing_or_late_header_is_an_error_with_its_line() {
    let e = user("aaaa0001", None, "hi");
    let (code, _, err) = path_ids(format!("{e}\n{H}\n").as_bytes(), &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains("<stdin>:1: the first entry is not a session header"),
        "{err}"
    );
    let (code, _, err) = path_ids(br#"{"type":"session","version":3}"#, &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains("<stdin>:1:") && err.contains("no string \"id\""),
        "{err}"
    );
}

#[test]
fn malformed_lines_warn_and_are_skipped_unless_strict() {
    let s = session(&[
        user("aaaa0001", None, "a"),
        "{not json".into(),
        user("aaaa0002", Some("aaaa0001"), "b"),
    ]);
    let (code, out, err) = path_ids(&s, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "aaaa0001\naaaa0002\n");
    assert!(
        err.contains("pi-path: warning: <stdin>:3: not valid JSON"),
        "{err}"
    );
    let (code, out, err) = path_ids(&s, &["--strict"]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(err.contains("error: <stdin>:3: not valid JSON"), "{err}");
    // JSON that is not an object: a truthy value is an entry, as in pi
    // (the id-less leaf: an empty getBranch()); a falsy one is skipped.
    let s2 = [H.as_bytes(), b"\n42\n"].concat();
    let (code, out, err) = path_ids(&s2, &[]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    let s3 = [H.as_bytes(), b"\nnull\n"].concat();
    let (code, _, err) = path_ids(&s3, &[]);
    assert_eq!(code, 0);
    assert!(err.contains("<stdin>:2: valid JSON but falsy"), "{err}");
    let (code, _, err) = path_ids(&s2, &["--strict"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("<stdin>:2: valid JSON but not an object"),
        "{err}"
    );
}

#[test]
fn torn_last_line_is_reported_as_such() {
    let s = session(&[user("aaaa0001", None, "a")]) + r#"{"type":"message","id":"aaaa0002","par"#;
    let (code, out, err) = path_ids(&s, &[]);
    assert_eq!(code, 0);
    assert_eq!(out, "aaaa0001\n");
    assert!(err.contains("<stdin>:3:") && err.contains("torn"), "{err}");
}

#[test]
fn odd_bytes_come_out_unchanged() {
    // Invalid UTF-8 inside a string, a lone surrogate escape, CRLF, no final newline.
    let bad = b"{\"type\":\"message\",\"id\":\"aaaa0001\",\"parentId\":null,\"timestamp\":\"2026-07-20T09:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"x\xff\xfe \\ud83d\",\"timestamp\":1}}";
    let mut s = H.as_bytes().to_vec();
    s.extend_from_slice(b"\r\n");
    s.extend_from_slice(bad);
    s.extend_from_slice(b"\r\n");
    s.extend_from_slice(user("aaaa0002", Some("aaaa0001"), "b").as_bytes());
    let o = run("pi-path", &[], Some(&s));
    assert!(o.status.success(), "{}", stderr(&o));
    let mut want = bad.to_vec();
    want.extend_from_slice(b"\r\n");
    want.extend_from_slice(user("aaaa0002", Some("aaaa0001"), "b").as_bytes());
    want.push(b'\n');
    assert_eq!(o.stdout, want);
    assert_stderr_has(&o, "<stdin>:2: not valid UTF-8");
    // The message as pi would send it: bad bytes as U+FFFD, the surrogate kept escaped.
    let o = run(
        "pi-path",
        &["--format", "messages", "--leaf", "aaaa0001"],
        Some(&s),
    );
    assert_eq!(
        stdout(&o),
        "{\"role\":\"user\",\"content\":\"x\u{FFFD}\u{FFFD} \\ud83d\",\"timestamp\":1}\n"
    );
}

#[test]
fn byte_order_mark_is_refused_like_pi() {
    // pi 1.6 parses the first line as it stands: with the mark it is no
    // JSON, so the file has no header and pi refuses to open it.
    let mut s = b"\xEF\xBB\xBF".to_vec();
    s.extend_from_slice(session(&[user("aaaa0001", None, "a")]).as_bytes());
    let (code, out, err) = path_ids(&s, &[]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(
        err.contains("<stdin>:1: starts with a byte order mark; pi refuses such a file"),
        "{err}"
    );
}

#[test]
fn cycles_and_self_parents_stop_with_the_lines_named() {
    let s = session(&[
        user("aaaa0001", None, "a"),
        user("aaaa0002", Some("aaaa0003"), "b"),
        user("aaaa0003", Some("aaaa0002"), "c"),
    ]);
    let (code, out, err) = path_ids(&s, &[]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.contains("parentId cycle") && err.contains("line 3") && err.contains("line 4"),
        "{err}"
    );
    let s = session(&[user("aaaa0001", Some("aaaa0001"), "a")]);
    let o = run("pi-path", &["--format", "context"], Some(s.as_bytes()));
    let (code, err) = (o.status.code().unwrap_or(-1), stderr(&o));
    assert_eq!(code, 1);
    assert!(
        err.contains("<stdin>:2: entry aaaa0001 is its own parent"),
        "{err}"
    );
    // A cycle off the requested path does not matter.
    let s = session(&[
        user("aaaa0001", None, "a"),
        user("aaaa0002", Some("aaaa0002"), "b"),
        user("aaaa0003", Some("aaaa0001"), "c"),
    ]);
    assert_eq!(path_ids(&s, &[]).1, "aaaa0001\naaaa0003\n");
}

#[test]
fn dangling_parents_and_duplicate_ids_warn_and_follow_pi() {
    let s = session(&[
        user("aaaa0001", None, "a"),
        user("aaaa0002", Some("ffff0000"), "b"),
    ]);
    let (code, out, err) = path_ids(&s, &[]);
    assert_eq!((code, out.as_str()), (0, "aaaa0002\n"));
    assert!(
        err.contains("<stdin>:3: entry aaaa0002 names parent ffff0000"),
        "{err}"
    );
    let s = session(&[
        user("aaaa0001", None, "first"),
        user("aaaa0001", None, "second"),
        user("aaaa0002", Some("aaaa0001"), "c"),
    ]);
    let o = run("pi-path", &[], Some(s.as_bytes()));
    assert!(stderr(&o).contains("<stdin>:3: duplicate id aaaa0001 (also on line 2)"));
    assert!(stdout(&o).contains("second") && !stdout(&o).contains("first"));
}

#[test]
fn references() {
    let label = r#"{"type":"label","id":"bbbb0001","parentId":"aaaa0003","timestamp":"2026-07-20T09:00:02.000Z","targetId":"aaaa0002","label":"plan^x"}"#;
    let s = session(&[
        user("aaaa0001", None, "a"),
        user("aaaa0002", Some("aaaa0001"), "b"),
        user("aaab0003", Some("aaaa0002"), "c"),
        label.replace("aaaa0003", "aaab0003"),
    ]);
    let ids = |r: &str| path_ids(&s, &["--leaf", r]);
    assert_eq!(ids("leaf").1, "aaaa0001\naaaa0002\naaab0003\nbbbb0001\n");
    // The label entry at the leaf is stepped over: steps count messages.
    assert_eq!(ids("leaf~2").1, "aaaa0001\n");
    assert_eq!(ids("leaf^").1, "aaaa0001\naaaa0002\n");
    assert_eq!(ids("leaf~0").1, ids("leaf").1);
    assert_eq!(ids("last").1, "aaaa0001\naaaa0002\naaab0003\n");
    assert_eq!(ids("root").1, "aaaa0001\n");
    assert_eq!(ids("aaab").1, "aaaa0001\naaaa0002\naaab0003\n");
    assert_eq!(ids("@plan^x").1, "aaaa0001\naaaa0002\n");
    assert_eq!(ids("@plan^x^").1, "aaaa0001\n");
    let (code, _, err) = ids("aaaa");
    assert_eq!(code, 1);
    assert!(
        err.contains("ambiguous") && err.contains("aaaa0001") && err.contains("aaaa0002"),
        "{err}"
    );
    let (code, _, err) = ids("cafe");
    assert_eq!(code, 1);
    assert!(
        err.contains("no entry has an id starting with 'cafe'"),
        "{err}"
    );
    let (code, _, err) = ids("root^");
    assert_eq!(code, 1);
    assert!(err.contains("walks past the root"), "{err}");
    let (code, _, err) = ids("leaf~99999");
    assert_eq!(code, 1);
    assert!(err.contains("walks past the root"), "{err}");
    let (code, _, err) = ids("leaf^^^");
    assert_eq!(code, 1);
    assert!(
        err.contains("entry aaaa0001 (line 2) has no parent (it is a root); 2 of 3 steps taken"),
        "{err}"
    );
    let (code, _, err) = ids("@nope");
    assert_eq!(code, 1);
    assert!(err.contains("no entry is labelled 'nope'"), "{err}");
    let (code, _, _) = ids("abc");
    assert_eq!(code, 1);
}

/// A path with every bookkeeping type (and one pi does not know) after
/// each message: REF steps count only the conversation entries.
#[test]
fn references_step_over_bookkeeping() {
    let t = r#""timestamp":"2026-07-20T09:00:00.000Z""#;
    let keeping = |n: usize, parent: &str| -> Vec<String> {
        let p = format!(r#""parentId":"{parent}","#);
        let id = |k: usize| format!(r#""id":"{n:x}{k:03}cc","#);
        vec![
            format!(
                r#"{{"type":"label",{}{p}{t},"targetId":"{parent}","label":"l{n}"}}"#,
                id(1)
            ),
            format!(
                r#"{{"type":"session_info",{}"parentId":"{n:x}001cc",{t},"name":"n{n}"}}"#,
                id(2)
            ),
            format!(
                r#"{{"type":"model_change",{}"parentId":"{n:x}002cc",{t},"provider":"p","modelId":"m"}}"#,
                id(3)
            ),
            format!(
                r#"{{"type":"thinking_level_change",{}"parentId":"{n:x}003cc",{t},"thinkingLevel":"high"}}"#,
                id(4)
            ),
            format!(
                r#"{{"type":"custom",{}"parentId":"{n:x}004cc",{t},"customType":"x","data":{{}}}}"#,
                id(5)
            ),
            format!(
                r#"{{"type":"usage",{}"parentId":"{n:x}005cc",{t},"usage":{{}}}}"#,
                id(6)
            ),
            format!(
                r#"{{"type":"context_edit",{}"parentId":"{n:x}006cc",{t},"targetId":"{parent}","edit":{{"type":"hide"}}}}"#,
                id(7)
            ),
            format!(
                r#"{{"type":"from_the_future",{}"parentId":"{n:x}007cc",{t}}}"#,
                id(8)
            ),
        ]
    };
    let mut es = keeping(0, "nonexistent");
    es[0] = es[0].replace(r#""parentId":"nonexistent","#, r#""parentId":null,"#);
    // Conversation entries, each followed by the eight bookkeeping ones.
    let convo = [
        user("aaaa0001", Some("0008cc"), "first"),
        text_message("aaaa0002", Some("1008cc"), "assistant", "answer"),
        format!(
            r#"{{"type":"custom_message","id":"aaaa0003","parentId":"2008cc",{t},"customType":"c","content":"x","display":true}}"#
        ),
        format!(
            r#"{{"type":"compaction","id":"aaaa0004","parentId":"3008cc",{t},"summary":"s","firstKeptEntryId":"aaaa0003","tokensBefore":1}}"#
        ),
        format!(
            r#"{{"type":"branch_summary","id":"aaaa0005","parentId":"4008cc",{t},"fromId":"aaaa0001","summary":"b"}}"#
        ),
        user("aaaa0006", Some("5008cc"), "second"),
    ];
    for (n, c) in convo.iter().enumerate() {
        es.push(c.clone());
        es.extend(keeping(n + 1, &format!("aaaa000{}", n + 1)));
    }
    let s = session(&es);
    let last = |r: &str| {
        let (code, out, err) = path_ids(&s, &["--leaf", r]);
        assert_eq!(code, 0, "{r}: {err}");
        out.lines().last().unwrap_or_default().to_string()
    };
    assert_eq!(last("leaf"), "6008cc");
    assert_eq!(last("leaf~0"), "6008cc");
    assert_eq!(last("last"), "aaaa0006");
    for n in 1..=5u64 {
        let want = format!("aaaa000{}", 6 - n);
        assert_eq!(last(&format!("leaf~{n}")), want);
        assert_eq!(last(&format!("last~{n}")), want);
    }
    assert_eq!(last("leaf^^"), "aaaa0004");
    // From a bookkeeping entry: the steps start at the message above it.
    assert_eq!(last("3005cc^"), "aaaa0002");
    assert_eq!(last("@l4~2"), "aaaa0002");
    // User turns.
    assert_eq!(last("user"), "aaaa0006");
    assert_eq!(last("user~1"), "aaaa0001");
    assert_eq!(last("user^"), "aaaa0001");
    let err = |r: &str| {
        let (code, _, err) = path_ids(&s, &["--leaf", r]);
        assert_eq!(code, 1, "{r}");
        err
    };
    let e = err("leaf~6");
    assert!(
        e.contains("'leaf~6' walks past the root: entry 0001cc (line 2) has no parent (it is a root); 5 of 6 steps taken"),
        "{e}"
    );
    let e = err("user~2");
    assert!(e.contains("1 of 2 steps taken"), "{e}");
    let e = err("0005cc~1");
    assert!(
        e.contains("'0005cc~1': no conversation entry (message, custom_message, branch_summary, compaction) on the path up to entry 0001cc (line 2)"),
        "{e}"
    );
}

#[test]
fn version_1_ids_are_deterministic_and_usable() {
    let v1 = concat!(
        r#"{"type":"session","id":"old-session","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}"#,
        "\n",
        r#"{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}"#,
        "\n",
        r#"{"type":"message","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[],"provider":"p","model":"m","timestamp":2}}"#,
        "\n"
    );
    let (code, ids1, err) = path_ids(v1.as_bytes(), &[]);
    assert_eq!(code, 0);
    assert_eq!(err.matches("pi-migrate").count(), 1, "{err}");
    let (_, ids2, _) = path_ids(v1.as_bytes(), &[]);
    assert_eq!(ids1, ids2);
    let ids: Vec<&str> = ids1.lines().collect();
    assert_eq!(ids.len(), 2);
    assert_eq!(
        ids[0],
        pi_session_tools::migrate::v1_id("old-session", 2, 0)
    );
    let (code, out, _) = path_ids(v1.as_bytes(), &["--leaf", ids[0]]);
    assert_eq!((code, out.as_str()), (0, format!("{}\n", ids[0]).as_str()));
    // The entries come out migrated: the new keys at the end.
    let o = run("pi-path", &["--header"], Some(v1.as_bytes()));
    let out = stdout(&o);
    assert!(
        out.lines()
            .next()
            .unwrap()
            .ends_with(r#""cwd":"/p","version":3}"#),
        "{out}"
    );
    assert!(
        out.contains(&format!(r#""id":"{}","parentId":null}}"#, ids[0])),
        "{out}"
    );
}

#[test]
fn header_output_is_itself_a_session() {
    let s = session(&[
        user("aaaa0001", None, "a"),
        user("aaaa0002", Some("aaaa0001"), "b"),
        user("aaaa0003", Some("aaaa0001"), "c"),
    ]);
    let o = run(
        "pi-path",
        &["--header", "--leaf", "aaaa0002"],
        Some(s.as_bytes()),
    );
    let linear = o.stdout;
    assert_eq!(linear.iter().filter(|&&b| b == b'\n').count(), 3);
    let (code, out, _) = path_ids(&linear, &[]);
    assert_eq!((code, out.as_str()), (0, "aaaa0001\naaaa0002\n"));
}

#[test]
fn leaves_lists_every_branch() {
    let s = session(&[
        user("aaaa0001", None, "a"),
        user("aaaa0002", Some("aaaa0001"), "first\\ttry"),
        user("aaaa0003", Some("aaaa0001"), "second"),
    ]);
    let o = run("pi-path", &["--leaves"], Some(s.as_bytes()));
    let rows = json_lines(&stdout(&o));
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["id"], "aaaa0002");
    assert_eq!(rows[0]["lastUser"], "first try");
    assert_eq!(rows[0]["current"], false);
    assert_eq!(rows[1]["id"], "aaaa0003");
    assert_eq!(rows[1]["current"], true);
    assert_eq!(rows[1]["depth"], 2);
}

#[test]
fn a_very_deep_chain_does_not_overflow() {
    let n = 200_000;
    let s = session(&chain(n, |_| user_message("m")));
    let dir = TempDir::new("deep");
    let f = dir.write("deep.jsonl", s.as_bytes());
    let f = f.to_str().unwrap();
    for fmt in ["ids", "context"] {
        let o = run("pi-path", &["--format", fmt, f], None);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let o = run("pi-path", &["--format", "ids", f], None);
    assert_eq!(stdout(&o).lines().count(), n);
    let o = run("pi-path", &["--leaves", f], None);
    assert_eq!(stdout(&o).lines().count(), 1);
}

#[test]
fn session_id_prefixes_are_looked_up_like_pi() {
    let agent = TempDir::new("agent");
    let proj = agent.path().join("sessions").join("--elsewhere--");
    std::fs::create_dir_all(&proj).unwrap();
    std::fs::write(
        proj.join("2026-07-20T09-00-00-000Z_0190aaaa-0000-7000-8000-000000000001.jsonl"),
        session(&[user("aaaa0001", None, "a")]),
    )
    .unwrap();
    let in_agent = |c: &mut std::process::Command| {
        c.env("PI_CODING_AGENT_DIR", agent.path());
    };
    let o = run_with("pi-path", &["--format", "ids", "0190aa"], None, in_agent);
    assert_eq!(stdout(&o), "aaaa0001\n", "{}", stderr(&o));
    let sessions = agent.path().join("sessions");
    let args = [
        "--format",
        "ids",
        "--session-dir",
        sessions.to_str().unwrap(),
        "0190aaaa",
    ];
    let o = run("pi-path", &args, None);
    assert_eq!(stdout(&o), "aaaa0001\n", "{}", stderr(&o));
    let o = run_with("pi-path", &["0190ffff"], None, in_agent);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no session id starts with '0190ffff'"));
}

#[test]
fn usage_errors_exit_2() {
    let o = run("pi-path", &["--format", "nope"], Some(b""));
    assert_eq!(o.status.code(), Some(2));
    let o = run("pi-path", &["--help"], None);
    assert!(stdout(&o).contains("Examples:"));
}

#[test]
fn leaves_keep_ids_that_are_not_strings_as_their_json_values() {
    let o = run(
        "pi-path",
        &["--leaves", &fixture("path-non-string-ids")],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let ids: Vec<String> = json_lines(&stdout(&o))
        .iter()
        .map(|v| v["id"].to_string())
        .collect();
    // The number 0, false, an object, the number 7 (pi's leaf): never strings.
    for want in ["0", "false", "{\"k\":1}", "7", "\"l2\""] {
        assert!(ids.iter().any(|i| i == want), "{want} not in {ids:?}");
    }
}

/// What was printed before an error reaches the reader before the error
/// does (one stream for both: `2>&1`).
#[cfg(unix)]
#[test]
fn output_before_an_error_comes_first() {
    let dir = TempDir::new("path-order");
    let f = dir.path().join("cycle.jsonl");
    std::fs::write(
        &f,
        concat!(
            r#"{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#,
            "\n",
            r#"{"type":"message","id":"aaaa1111","parentId":"bbbb2222","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"a"}}"#,
            "\n",
            r#"{"type":"message","id":"bbbb2222","parentId":"aaaa1111","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"b"}}"#,
            "\n"
        ),
    )
    .unwrap();
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg("\"$0\" --header \"$1\" 2>&1")
        .arg(bin("pi-path"))
        .arg(&f)
        .output()
        .unwrap();
    let both = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = both.lines().collect();
    assert_eq!(lines.len(), 2, "{both}");
    assert!(lines[0].starts_with(r#"{"type":"session""#), "{both}");
    assert!(lines[1].starts_with("pi-path: error: "), "{both}");
    assert!(lines[1].contains("parentId cycle"), "{both}");
}

/// `--leaves` on a fan-out wide enough for two threads: every row, in
/// file order, as one thread writes it (user leaves with their own text,
/// others with the root's, a timestamp with an escape rewritten as
/// `JSON.stringify` writes it).
#[test]
fn many_leaves_are_listed_in_order_with_their_rows() {
    let n = 70_001;
    let root = user(&hex_id(0), None, r#"root \"said\""#);
    let mut entries = vec![root];
    let mut want = String::new();
    for i in 1..=n {
        let (id, parent) = (hex_id(i), Some(hex_id(0)));
        let (entry, last_user) = match i % 3 {
            0 => (
                user(&id, parent.as_deref(), &format!(r"leaf {i}\t\u00e9  end")),
                format!("\"leaf {i} é end\""),
            ),
            1 => (
                text_message(&id, parent.as_deref(), "assistant", "a"),
                r#""root \"said\"""#.to_string(),
            ),
            _ => (
                message_at(
                    &id,
                    parent.as_deref(),
                    r"2026-07-20T09:00:0\u0031.000Z",
                    r#"{"role":"toolResult","content":[]}"#,
                ),
                r#""root \"said\"""#.to_string(),
            ),
        };
        entries.push(entry);
        want.push_str(&format!(
            r#"{{"id":"{id}","line":{},"timestamp":"2026-07-20T09:00:01.000Z","depth":2,"current":{},"lastUser":{last_user}}}"#,
            i + 2,
            i == n
        ));
        want.push('\n');
    }
    let dir = TempDir::new("path-leaves");
    let f = dir.write("fan.jsonl", session(&entries).as_bytes());
    let o = run("pi-path", &["--leaves", f.to_str().unwrap()], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_same(&o.stdout, want.as_bytes(), "pi-path --leaves");
}

/// A cycle above a leaf after many others (rows made on two threads):
/// the rows before that leaf are printed, then the cycle's error.
#[test]
fn a_cycle_after_many_leaves_stops_at_its_leaf() {
    let n = 60_000;
    let mut entries = vec![user(&hex_id(0), None, "root")];
    for i in 1..=n {
        entries.push(text_message(&hex_id(i), Some(&hex_id(0)), "assistant", "a"));
    }
    entries.push(user("cccc0001", Some("cccc0002"), "a"));
    entries.push(user("cccc0002", Some("cccc0001"), "b"));
    entries.push(user("cccc0003", Some("cccc0001"), "c"));
    entries.push(user("cccc0004", Some(&hex_id(0)), "d"));
    let dir = TempDir::new("path-leaves-cycle");
    let f = dir.write("cycle.jsonl", session(&entries).as_bytes());
    let o = run("pi-path", &["--leaves", f.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), n, "{}", stderr(&o));
    let last = format!(
        r#"{{"id":"{}","line":{},"timestamp":"2026-07-20T09:00:01.000Z","depth":2,"current":false,"lastUser":"root"}}"#,
        hex_id(n),
        n + 2
    );
    assert_eq!(out.lines().last(), Some(last.as_str()));
    let err = stderr(&o);
    assert!(
        err.contains("pi-path: error: ") && err.contains("parentId cycle: cccc0001"),
        "{err}"
    );
}

/// The REF left out (`--leaf s.jsonl`, the session then read from an empty
/// stdin): the error says the REF is a file, in every tool that takes one
/// (issue 35; pi-fork needs a SESSION, so clap says it is missing).
#[test]
fn a_forgotten_ref_that_is_a_file_is_named() {
    let dir = TempDir::new("forgotten-ref");
    let f = dir.write("s.jsonl", b"{}\n");
    let f = f.to_str().unwrap();
    let eq = format!("--leaf={f}");
    let cases: [(&str, Vec<&str>, &str); 5] = [
        ("pi-path", vec!["--leaf", f], "--leaf"),
        ("pi-tree", vec!["--at", f], "--at"),
        ("pi-tree", vec![&eq], "--leaf"),
        ("pi-convert", vec!["--leaf", f], "--leaf"),
        ("pi-path", vec!["--format", "ids", "--at", f], "--at"),
    ];
    for (tool, args, opt) in cases {
        let o = run(tool, &args, Some(b""));
        assert_eq!(o.status.code(), Some(2), "{tool} {args:?}");
        assert_stderr_has(
            &o,
            &format!("{opt} {f}: that is a file; give the REF before it: {opt} REF {f}\n"),
        );
    }
    // A REF that is no file: the empty input is said as before.
    let o = run("pi-path", &["--leaf", "nofile.jsonl"], Some(b""));
    assert_stderr_has(&o, "<stdin>: empty input");
}
