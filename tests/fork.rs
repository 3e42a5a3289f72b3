//! pi-fork, driven as a user runs it, and compared with what pi writes.
use crate::common::*;

fn source_ids(c: &Case) -> std::collections::HashSet<String> {
    ids_in(&std::fs::read_to_string(&c.session).unwrap())
}

#[test]
fn new_sessions_match_pi() {
    let cases: Vec<Case> = cases("pi-fork")
        .into_iter()
        .filter(|c| !c.in_place)
        .collect();
    check_each(&cases, 50, |c| {
        let known = source_ids(c);
        same_stdout(c, |s| normalize_new_session(s, &known))
    });
}

fn context_value(text: &str, summary: Option<&str>) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
    // The branch summary's time is "now": blank it.
    if let Some(msgs) = v["messages"].as_array_mut() {
        for m in msgs {
            if m["role"] == "branchSummary" && m["summary"].as_str() == summary {
                m["timestamp"] = serde_json::Value::Null;
            }
        }
    }
    v
}

#[test]
fn in_place_moves_match_pi() {
    let cases: Vec<Case> = cases("pi-fork")
        .into_iter()
        .filter(|c| c.in_place)
        .collect();
    check_each(&cases, 20, |c| {
        let dir = TempDir::new("inplace");
        let copy = dir.write("s.jsonl", &std::fs::read(&c.session).unwrap());
        let before = std::fs::read_to_string(&copy).unwrap();
        let mut args: Vec<&str> = c.args.iter().map(String::as_str).collect();
        args.push(copy.to_str().unwrap());
        let o = run("pi-fork", &args, None);
        assert!(o.status.success(), "{}: {}", c.what, stderr(&o));
        let after = std::fs::read_to_string(&copy).unwrap();
        assert!(
            after.starts_with(&before),
            "{}: the file was not only appended to",
            c.what
        );
        let added: Vec<&str> = after[before.len()..].lines().collect();
        assert_eq!(added.len(), 1, "{}: one line appended", c.what);
        let new_id = stdout(&o).trim().to_string();
        let pi: serde_json::Value = serde_json::from_str(&c.stdout).unwrap();
        let summary = c
            .args
            .iter()
            .position(|a| a == "--summary")
            .map(|i| c.args[i + 1].clone());
        let reference = &c.args[c.args.iter().position(|a| a == "--at").unwrap() + 1];
        let target = stdout(&run(
            "pi-path",
            &[
                "--format",
                "ids",
                "--leaf",
                reference,
                c.session.to_str().unwrap(),
            ],
            None,
        ))
        .lines()
        .last()
        .unwrap()
        .to_string();
        match pi["line"].as_str() {
            Some(pi_line) => assert_eq!(
                blank_id_and_time(added[0]),
                blank_id_and_time(pi_line),
                "{}: appended line differs from pi's branchWithSummary",
                c.what
            ),
            None => {
                let v: serde_json::Value = serde_json::from_str(added[0]).unwrap();
                assert_eq!(v["type"], "custom");
                assert_eq!(v["customType"], "pi-fork");
                assert_eq!(v["parentId"].as_str(), Some(target.as_str()));
            }
        }
        assert!(
            added[0].contains(&format!("\"id\":\"{new_id}\"")),
            "{}",
            c.what
        );
        // pi continues from the new entry, with the context pi computes after the move.
        let leaf = run(
            "pi-path",
            &["--format", "ids", "--leaf", "leaf", copy.to_str().unwrap()],
            None,
        );
        assert!(stdout(&leaf).ends_with(&format!("{new_id}\n")));
        let ctx = run(
            "pi-path",
            &["--format", "context", copy.to_str().unwrap()],
            None,
        );
        assert_eq!(
            context_value(&stdout(&ctx), summary.as_deref()),
            context_value(
                &serde_json::to_string(&pi["context"]).unwrap(),
                summary.as_deref()
            ),
            "{}: context after the move differs from pi's",
            c.what
        );
        Ok(())
    });
}

fn small() -> String {
    session(&[
        text_message("aaaa0001", None, "user", "first"),
        text_message("aaaa0002", Some("aaaa0001"), "assistant", "reply"),
        text_message("aaaa0003", Some("aaaa0002"), "user", "say it again"),
        text_message("aaaa0004", Some("aaaa0003"), "assistant", "again"),
    ])
}

#[test]
fn before_hands_back_the_text_and_refuses_other_entries() {
    let dir = TempDir::new("before");
    let f = dir.write("s.jsonl", small().as_bytes());
    let f = f.to_str().unwrap();
    let o = run("pi-fork", &[f, "--before", "aaaa0003", "--json"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["text"], "say it again");
    assert_eq!(v["leaf"], "aaaa0002");
    let path = v["path"].as_str().unwrap();
    assert!(std::path::Path::new(path).starts_with(dir.path()));
    let ids = run("pi-path", &["--format", "ids", path], None);
    assert_eq!(stdout(&ids), "aaaa0001\naaaa0002\n");
    // A root user message: a session with only a header, parentSession set.
    let o = run("pi-fork", &[f, "--before", "aaaa0001", "-o", "-"], None);
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 1);
    assert!(out.contains("\"parentSession\":"));
    assert_eq!(stderr(&o).trim(), "first");
    // Not a user message.
    let o = run("pi-fork", &[f, "--before", "aaaa0002", "-o", "-"], None);
    assert_eq!(o.status.code(), Some(1));
    assert_stderr_has(&o, ":3: --before needs a user message");
    // One wording for every entry that is not one (issue 35).
    assert_stderr_has(&o, "; --at aaaa0002 forks at it\n");
}

/// `--before` on a compaction and on an assistant message: the same
/// wording, with or without --in-place.
#[test]
fn before_errors_have_one_wording() {
    let dir = TempDir::new("before-words");
    let s = dir.write(
        "s.jsonl",
        &std::fs::read(repo().join("examples/s.jsonl")).unwrap(),
    );
    let s = s.to_str().unwrap();
    for (id, what) in [
        ("8f90a4bf", "compaction"),
        ("e9d2e4fb", "message (not from the user)"),
    ] {
        for extra in [&["-o", "-"][..], &["--in-place"][..]] {
            let mut args = vec![s, "--before", id];
            args.extend_from_slice(extra);
            let o = run("pi-fork", &args, None);
            assert_eq!(o.status.code(), Some(1));
            assert_stderr_has(
                &o,
                &format!("; entry {id} is {what}; --at {id} forks at it\n"),
            );
        }
    }
}

#[test]
fn never_overwrites_and_names_files_like_pi() {
    let dir = TempDir::new("noover");
    let f = dir.write("s.jsonl", small().as_bytes());
    let f = f.to_str().unwrap();
    let taken = dir.write("taken.jsonl", b"keep me");
    let o = run(
        "pi-fork",
        &[f, "--at", "leaf", "-o", taken.to_str().unwrap()],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("already exists"));
    assert_eq!(std::fs::read(&taken).unwrap(), b"keep me");
    let o = run("pi-fork", &[f, "--at", "leaf", "--name", " review "], None);
    let path = stdout(&o).trim().to_string();
    let name = std::path::Path::new(&path)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    // <ISO time with : and . as ->_<uuid v7>.jsonl
    assert_eq!(
        name.len(),
        "2026-11-30T06-08-42-130Z_01a22b11-e292-7055-b337-2409e1af4344.jsonl".len()
    );
    assert_eq!(&name[10..11], "T");
    assert_eq!(&name[39..40], "7", "a version-7 uuid: {name}");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text
        .lines()
        .last()
        .unwrap()
        .contains(r#""type":"session_info""#));
    assert!(text.lines().last().unwrap().contains(r#""name":"review""#));
    let o = run("pi-label", &[&path, "--name"], None);
    assert_eq!(stdout(&o), "review\n");
}

#[test]
fn all_leaves_makes_one_session_per_branch() {
    let mut s = small();
    s.push_str(&text_message("aaaa0005", Some("aaaa0002"), "user", "other"));
    s.push('\n');
    let dir = TempDir::new("leaves");
    let f = dir.write("s.jsonl", s.as_bytes());
    let o = run("pi-fork", &[f.to_str().unwrap(), "--all-leaves"], None);
    let paths: Vec<String> = stdout(&o).lines().map(str::to_string).collect();
    assert_eq!(paths.len(), 2, "{}", stderr(&o));
    let last: Vec<String> = paths
        .iter()
        .map(|p| {
            stdout(&run("pi-path", &["--format", "ids", p], None))
                .lines()
                .last()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(last, ["aaaa0004", "aaaa0005"]);
}

#[test]
fn in_place_before_a_root_message_starts_over_and_bad_requests_write_nothing() {
    let dir = TempDir::new("root");
    let f = dir.write("s.jsonl", small().as_bytes());
    let fs = f.to_str().unwrap();
    let o = run(
        "pi-fork",
        &[fs, "--in-place", "--before", "aaaa0001", "--json"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["oldLeaf"], "aaaa0004");
    assert_eq!(v["text"], "first");
    let last = last_line(&f);
    assert!(last.contains(r#""parentId":null"#), "{last}");
    let ctx = run("pi-path", &["--format", "messages", fs], None);
    assert_eq!(stdout(&ctx), "", "pi's context is empty after a reset");
    for bad in [
        vec![fs, "--in-place", "--at", "nope"],
        vec![fs, "--in-place", "--before", "aaaa0002"],
        vec![fs, "--in-place", "--at", "root^"],
    ] {
        let o = run_untouched("pi-fork", &bad, &f);
        assert_eq!(o.status.code(), Some(1), "{bad:?}");
    }
}

#[test]
fn round_trip_branch_then_append_makes_a_sibling() {
    let dir = TempDir::new("roundtrip");
    let f = dir.write("s.jsonl", small().as_bytes());
    let fs = f.to_str().unwrap();
    let o = run("pi-fork", &[fs, "--in-place", "--at", "leaf~2"], None);
    let moved = stdout(&o).trim().to_string();
    // pi appends its next message as a child of the last entry.
    append_line(
        &f,
        &text_message("aaaa0009", Some(&moved), "user", "new direction"),
    );
    let ids = run("pi-path", &["--format", "ids", fs], None);
    assert_eq!(
        stdout(&ids),
        format!("aaaa0001\naaaa0002\n{moved}\naaaa0009\n")
    );
    // The old branch is still there: two leaves now.
    let leaves = run("pi-path", &["--leaves", fs], None);
    let ids = json_lines(&stdout(&leaves));
    assert_eq!(ids.len(), 2);
    assert_eq!(ids[0]["id"], "aaaa0004");
    assert_eq!(ids[1]["id"], "aaaa0009");
}

#[test]
fn no_file_without_a_destination_on_stdin() {
    let o = run("pi-fork", &["-", "--at", "leaf"], Some(small().as_bytes()));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = run(
        "pi-fork",
        &["-", "--at", "leaf", "-o", "-"],
        Some(small().as_bytes()),
    );
    assert!(o.status.success());
    assert_eq!(stdout(&o).lines().count(), 5);
}

/// pi 1.6's createBranchedSession drops the labels of the path and chains
/// each kept entry to the kept entry before it; a compaction that kept
/// from a removed label keeps from the next kept entry (here: itself).
/// The expected text is what pi 1.6.0 wrote for this file (fresh ids and
/// times blanked); the header's cwd goes through pi's resolvePath.
#[test]
fn labels_removed_from_the_path_rechain_it() {
    let dir = TempDir::new("fork-rechain");
    let text = [
        r#"{"type":"session","version":3,"id":"0190aaaa-0000-7000-8000-000000000001","timestamp":"2026-07-20T09:00:00.000Z","cwd":"/p/./q/"}"#,
        r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-07-20T09:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}"#,
        r#"{"type":"label","id":"l1","parentId":"a1","timestamp":"2026-07-20T09:00:02.000Z","targetId":"a1","label":"x"}"#,
        r#"{"type":"compaction","id":"c1","parentId":"l1","timestamp":"2026-07-20T09:00:03.000Z","summary":"s","firstKeptEntryId":"l1","tokensBefore":5}"#,
        r#"{"type":"label","id":"l2","parentId":"c1","timestamp":"2026-07-20T09:00:04.000Z","targetId":"c1","label":"y"}"#,
        r#"{"type":"message","id":"b1","timestamp":"2026-07-20T09:00:05.000Z","message":{"role":"assistant","content":"ok","timestamp":2},"parentId":"l2"}"#,
    ]
    .join("\n")
        + "\n";
    let f = dir.write("s.jsonl", text.as_bytes());
    let o = run(
        "pi-fork",
        &[f.to_str().unwrap(), "--at", "b1", "-o", "-"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let known = ids_in(&text);
    let want = [
        r#"{"type":"session","version":3,"id":"<id>","timestamp":"<timestamp>","cwd":"/p/q","parentSession":"<parentSession>"}"#,
        r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-07-20T09:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}"#,
        r#"{"type":"compaction","id":"c1","parentId":"a1","timestamp":"2026-07-20T09:00:03.000Z","summary":"s","firstKeptEntryId":"c1","tokensBefore":5}"#,
        r#"{"type":"message","id":"b1","timestamp":"2026-07-20T09:00:05.000Z","message":{"role":"assistant","content":"ok","timestamp":2},"parentId":"c1"}"#,
        r#"{"type":"label","id":"<new-0>","parentId":"b1","timestamp":"2026-07-20T09:00:02.000Z","targetId":"a1","label":"x"}"#,
        r#"{"type":"label","id":"<new-1>","parentId":"<new-0>","timestamp":"2026-07-20T09:00:04.000Z","targetId":"c1","label":"y"}"#,
    ]
    .join("\n")
        + "\n";
    assert_eq!(normalize_new_session(&stdout(&o), &known), want);
}

/// --before hands the message's text back on stderr with its line breaks
/// and tabs, but an escape sequence in it (session text is hostile: an
/// OSC 52 would set the terminal's clipboard) is escaped, new file and in
/// place alike.
#[test]
fn before_escapes_control_characters_in_the_text_it_hands_back() {
    let dir = TempDir::new("before-esc");
    // JSON text: the message is "line one⏎⇥indented ESC]52;c;aGk=BEL end CR".
    let hostile = r"line one\n\tindented \u001b]52;c;aGk=\u0007 end\r";
    let s = session(&[
        text_message("aaaa0001", None, "user", hostile),
        text_message("aaaa0002", Some("aaaa0001"), "assistant", "reply"),
    ]);
    let f = dir.write("s.jsonl", s.as_bytes());
    let f = f.to_str().unwrap();
    let want = "line one\n\tindented \\x1b]52;c;aGk=\\x07 end\\r\n";
    let o = run("pi-fork", &[f, "--before", "aaaa0001", "-o", "-"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), want);
    let o = run("pi-fork", &[f, "--in-place", "--before", "aaaa0001"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), want);
    // --json carries the text as it is, in JSON.
    let o = run(
        "pi-fork",
        &[f, "--before", "aaaa0001", "--json", "-o", "-"],
        None,
    );
    assert!(!stderr(&o).contains('\u{1b}'));
}

/// --all-leaves builds each new file once the one before it is written:
/// 400 leaves under a 200 KB trunk make 80 MB of files, and the tool's
/// peak memory stays far below that (it held every file until the last
/// was built). Every file is there, each ending at its own leaf.
#[cfg(target_os = "linux")]
#[test]
fn all_leaves_holds_one_new_file_at_a_time() {
    let mut s = header(
        "00000000-0000-4000-8000-00000000f0a1",
        "2026-07-20T09:00:00.000Z",
        "/tmp",
        None,
    );
    s.push('\n');
    let big = "x".repeat(2000);
    let mut parent: Option<String> = None;
    for i in 0..100 {
        let id = format!("t{i:07}");
        s.push_str(&text_message(&id, parent.as_deref(), "user", &big));
        s.push('\n');
        parent = Some(id);
    }
    let leaves = 400;
    for i in 0..leaves {
        s.push_str(&text_message(
            &format!("l{i:07}"),
            parent.as_deref(),
            "user",
            "leaf",
        ));
        s.push('\n');
    }
    let dir = TempDir::new("leaves-memory");
    let f = dir.write("s.jsonl", s.as_bytes());
    let out = dir.path().join("out");
    let mut cmd = command(
        "pi-fork",
        &[
            f.to_str().unwrap(),
            "--all-leaves",
            "--session-dir",
            out.to_str().unwrap(),
        ],
    );
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let (ran, peak) = run_within_measured(
        &mut cmd,
        std::time::Duration::from_secs(300),
        usize::MAX,
        usize::MAX,
    );
    assert!(!ran.hung, "pi-fork --all-leaves hangs");
    let o = ran.output();
    assert!(o.status.success(), "{}", stderr(&o));
    let paths: Vec<&str> = std::str::from_utf8(&o.stdout).unwrap().lines().collect();
    assert_eq!(paths.len(), leaves);
    let written: u64 = paths
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum();
    assert!(written > 70_000_000, "{written} bytes written");
    let peak = peak.unwrap();
    assert!(
        peak < 40 << 20,
        "peak {} MB for {} MB of new files",
        peak >> 20,
        written >> 20
    );
    for (i, p) in paths.iter().enumerate().step_by(97) {
        let ids = stdout(&run("pi-path", &["--format", "ids", p], None));
        assert_eq!(ids.lines().last(), Some(format!("l{i:07}").as_str()));
        assert_eq!(ids.lines().count(), 101);
    }
}
