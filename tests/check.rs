//! pi-check: a corpus of broken files built here, one per code (each found
//! at its line, with its severity), the exit statuses, each repair (the
//! bytes it does not mean to change are identical, what it drops is kept,
//! the file checks clean of it after), --dry-run, and hostile bytes.

use crate::common::*;
use serde_json::Value;
use std::path::Path;

const CWD: &str = "/p";

fn asst(id: &str, parent: Option<&str>, content: &str, stop: &str) -> String {
    message(
        id,
        parent,
        &format!(
            r#"{{"role":"assistant","content":{content},"api":"anthropic-messages","provider":"anthropic","model":"m","stopReason":"{stop}","timestamp":1}}"#
        ),
    )
}

fn result(id: &str, parent: Option<&str>, call: &str) -> String {
    message(
        id,
        parent,
        &format!(
            r#"{{"role":"toolResult","toolCallId":"{call}","toolName":"read","content":[{{"type":"text","text":"ok"}}],"isError":false,"timestamp":1}}"#
        ),
    )
}

fn call(id: &str, name: &str, args: &str) -> String {
    format!(r#"[{{"type":"toolCall","id":"{id}","name":"{name}","arguments":{args}}}]"#)
}

fn other(ty: &str, id: &str, parent: Option<&str>, rest: &str) -> String {
    format!(
        r#"{{"type":"{ty}","id":"{id}","parentId":{},"timestamp":"2026-07-20T09:00:02.000Z"{rest}}}"#,
        parent_json(parent)
    )
}

/// One broken file per code: (code, file text, the line it is found at;
/// 0: no line).
fn corpus() -> Vec<(&'static str, Vec<u8>, u64)> {
    let u1 = user("aaaa0001", None, "hi");
    let ok = |entries: &[String]| session(entries).into_bytes();
    let big = "A".repeat((5 << 20) / 3 * 4 + 8);
    vec![
        ("empty", Vec::new(), 0),
        (
            "bom",
            [&b"\xEF\xBB\xBF"[..], &ok(std::slice::from_ref(&u1))].concat(),
            1,
        ),
        (
            "no-header",
            lines(std::slice::from_ref(&u1)).into_bytes(),
            0,
        ),
        (
            "header-not-first",
            format!(
                "{{\"type\":\"title\",\"title\":\"t\"}}\n{}",
                session(std::slice::from_ref(&u1))
            )
            .into_bytes(),
            1,
        ),
        (
            "header-no-id",
            format!("{{\"type\":\"session\",\"version\":3,\"cwd\":\"/p\"}}\n{u1}\n").into_bytes(),
            1,
        ),
        (
            "header-no-cwd",
            format!("{{\"type\":\"session\",\"version\":3,\"id\":\"s\"}}\n{u1}\n").into_bytes(),
            1,
        ),
        (
            "old-version",
            v1_session("0c4a5bed-0000-7000-8000-000000000000", ["x".to_string()]).into_bytes(),
            1,
        ),
        ("second-header", ok(&[u1.clone(), H.to_string()]), 3),
        (
            "crlf",
            session(std::slice::from_ref(&u1))
                .replace('\n', "\r\n")
                .into_bytes(),
            1,
        ),
        (
            "invalid-utf8",
            [
                ok(std::slice::from_ref(&u1)),
                b"{\"type\":\"custom\",\"id\":\"x\xff\",\"parentId\":\"aaaa0001\"}\n".to_vec(),
            ]
            .concat(),
            3,
        ),
        (
            "torn-line",
            [ok(std::slice::from_ref(&u1)), b"{\"type\":\"mess".to_vec()].concat(),
            3,
        ),
        ("not-json", ok(&["garbage".into(), u1.clone()]), 2),
        (
            "not-object",
            ok(&[
                u1.clone(),
                "[1]".into(),
                user("aaaa0002", Some("aaaa0001"), "x"),
            ]),
            3,
        ),
        (
            "blank-line",
            ok(&[
                u1.clone(),
                " \t".into(),
                user("aaaa0002", Some("aaaa0001"), "x"),
            ]),
            3,
        ),
        (
            "no-id",
            ok(&[
                u1.clone(),
                r#"{"type":"custom","parentId":"aaaa0001"}"#.into(),
            ]),
            3,
        ),
        (
            "no-type",
            ok(&[
                u1.clone(),
                r#"{"id":"aaaa0002","parentId":"aaaa0001"}"#.into(),
            ]),
            3,
        ),
        (
            "duplicate-id",
            ok(&[u1.clone(), user("aaaa0001", None, "again")]),
            2,
        ),
        (
            "dangling-parent",
            ok(&[u1.clone(), user("aaaa0002", Some("gone0000"), "x")]),
            3,
        ),
        (
            "own-parent",
            ok(&[
                u1.clone(),
                user("aaaa0002", Some("aaaa0002"), "x"),
                user("aaaa0003", Some("aaaa0001"), "y"),
            ]),
            3,
        ),
        (
            "cycle",
            ok(&[
                u1.clone(),
                user("aaaa0002", Some("aaaa0003"), "x"),
                user("aaaa0003", Some("aaaa0002"), "y"),
            ]),
            3,
        ),
        (
            "several-roots",
            ok(&[u1.clone(), user("aaaa0002", None, "x")]),
            3,
        ),
        (
            "label-target-missing",
            ok(&[
                u1.clone(),
                other(
                    "label",
                    "aaaa0002",
                    Some("aaaa0001"),
                    r#","targetId":"gone0000","label":"l""#,
                ),
            ]),
            3,
        ),
        (
            "edit-target-missing",
            ok(&[
                u1.clone(),
                other(
                    "context_edit",
                    "aaaa0002",
                    Some("aaaa0001"),
                    r#","targetId":"gone0000","replacement":null"#,
                ),
            ]),
            3,
        ),
        (
            "edit-target-not-editable",
            ok(&[
                u1.clone(),
                other(
                    "model_change",
                    "aaaa0002",
                    Some("aaaa0001"),
                    r#","provider":"p","modelId":"m""#,
                ),
                other(
                    "context_edit",
                    "aaaa0003",
                    Some("aaaa0002"),
                    r#","targetId":"aaaa0002","replacement":null"#,
                ),
            ]),
            4,
        ),
        (
            "first-kept-not-on-path",
            ok(&[
                u1.clone(),
                other(
                    "compaction",
                    "aaaa0002",
                    Some("aaaa0001"),
                    r#","summary":"s","firstKeptEntryId":"gone0000","tokensBefore":1"#,
                ),
            ]),
            3,
        ),
        (
            "from-id-missing",
            ok(&[
                u1.clone(),
                other(
                    "branch_summary",
                    "aaaa0002",
                    Some("aaaa0001"),
                    r#","summary":"s","fromId":"gone0000""#,
                ),
            ]),
            3,
        ),
        (
            "message-missing",
            ok(&[
                u1.clone(),
                other("message", "aaaa0002", Some("aaaa0001"), ""),
            ]),
            3,
        ),
        (
            "tool-call-without-result",
            ok(&[
                u1.clone(),
                asst(
                    "aaaa0002",
                    Some("aaaa0001"),
                    &call("c1", "read", "{}"),
                    "toolUse",
                ),
                user("aaaa0003", Some("aaaa0002"), "go on"),
            ]),
            3,
        ),
        (
            "result-without-call",
            ok(&[u1.clone(), result("aaaa0002", Some("aaaa0001"), "c9")]),
            3,
        ),
        (
            "arguments-null",
            ok(&[
                u1.clone(),
                asst(
                    "aaaa0002",
                    Some("aaaa0001"),
                    &call("c1", "read", "null"),
                    "toolUse",
                ),
                result("aaaa0003", Some("aaaa0002"), "c1"),
            ]),
            3,
        ),
        (
            "arguments-not-object",
            ok(&[
                u1.clone(),
                asst(
                    "aaaa0002",
                    Some("aaaa0001"),
                    &call("c1", "read", "\"x\""),
                    "toolUse",
                ),
                result("aaaa0003", Some("aaaa0002"), "c1"),
            ]),
            3,
        ),
        (
            "image-too-large",
            ok(&[message(
                "aaaa0001",
                None,
                &format!(
                    r#"{{"role":"user","content":[{{"type":"image","mimeType":"image/png","data":"{big}"}}],"timestamp":1}}"#
                ),
            )]),
            2,
        ),
    ]
}

/// pi-check --json on `file`: the findings and the exit status.
fn findings(file: &Path) -> (Vec<Value>, Option<i32>) {
    let o = run("pi-check", &["--json", file.to_str().unwrap()], None);
    let found = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    (found, o.status.code())
}

fn has(found: &[Value], code: &str) -> Option<Value> {
    found.iter().find(|f| f["code"] == code).cloned()
}

#[test]
fn every_code_is_found_at_its_line_with_its_severity() {
    let dir = TempDir::new("check-corpus");
    let help = stdout(&run("pi-check", &["--help"], None));
    for (code, text, line) in corpus() {
        let f = dir.write(&format!("{code}.jsonl"), &text);
        let (found, status) = findings(&f);
        let Some(hit) = has(&found, code) else {
            panic!("{code}: not found in {found:#?}");
        };
        if line > 0 {
            assert_eq!(hit["line"], line, "{code}: {hit}");
        }
        for key in ["path", "id", "severity", "message", "pi", "fix", "fixable"] {
            assert!(hit.get(key).is_some(), "{code}: no {key}: {hit}");
        }
        let errors = found.iter().any(|f| f["severity"] == "error");
        assert_eq!(status, Some(i32::from(errors)), "{code}: {found:#?}");
        assert!(
            help.contains(&format!("  {code} (")),
            "{code}: not in --help"
        );
    }
}

#[test]
fn store_findings_across_files() {
    let dir = TempDir::new("check-store");
    let h = |id: &str, parent: Option<&str>| header(id, "2026-07-20T09:00:00.000Z", CWD, parent);
    let body = user("aaaa0001", None, "hi");
    dir.write(
        "a.jsonl",
        format!("{}\n{body}\n", h("same", None)).as_bytes(),
    );
    dir.write(
        "b.jsonl",
        format!("{}\n{body}\n", h("same", Some("/nowhere/x.jsonl"))).as_bytes(),
    );
    dir.write(".a.jsonl.pi-migrate-tmp-1-0000abcd", b"x");
    let o = run("pi-check", &["--json", dir.path().to_str().unwrap()], None);
    let out = stdout(&o);
    assert!(out.contains(r#""code":"duplicate-session-id""#), "{out}");
    assert!(out.contains(r#""code":"parent-session-missing""#), "{out}");
    assert!(out.contains(r#""code":"temp-file""#), "{out}");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // A project directory of the store that is not its cwd's.
    let proj = dir.path().join("--elsewhere--");
    std::fs::create_dir(&proj).unwrap();
    std::fs::write(proj.join("c.jsonl"), format!("{}\n{body}\n", h("c", None))).unwrap();
    std::fs::create_dir(dir.path().join("--p--")).unwrap();
    std::fs::write(
        dir.path().join("--p--/d.jsonl"),
        format!("{}\n{body}\n", h("d", None)),
    )
    .unwrap();
    let o = run("pi-check", &["--json", dir.path().to_str().unwrap()], None);
    let wrong: Vec<String> = stdout(&o)
        .lines()
        .filter(|l| l.contains(r#""code":"wrong-directory""#))
        .map(str::to_string)
        .collect();
    assert_eq!(wrong.len(), 1, "{wrong:?}");
    assert!(wrong[0].contains("--elsewhere--/c.jsonl"), "{wrong:?}");
}

#[test]
fn exit_statuses_and_text() {
    let dir = TempDir::new("check-exit");
    let clean = dir.write(
        "clean.jsonl",
        session(&[user("aaaa0001", None, "hi")]).as_bytes(),
    );
    let o = run("pi-check", &[clean.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("clean.jsonl: ok"), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("1 session(s) checked"),
        "{}",
        stdout(&o)
    );
    // Warnings only: 0; an error: 1, FILE:LINE first.
    let warn = dir.write(
        "w.jsonl",
        session(&[
            user("aaaa0001", None, "hi"),
            user("aaaa0002", Some("gone0000"), "x"),
        ])
        .as_bytes(),
    );
    assert_eq!(
        run("pi-check", &[warn.to_str().unwrap()], None)
            .status
            .code(),
        Some(0)
    );
    let bad = dir.write(
        "bad.jsonl",
        session(&[
            user("aaaa0001", None, "hi"),
            user("aaaa0002", Some("aaaa0002"), "x"),
        ])
        .as_bytes(),
    );
    let o = run("pi-check", &[bad.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1));
    let want = format!("{}:3: error own-parent:", bad.display());
    assert!(stdout(&o).starts_with(&want), "{}", stdout(&o));
    // -q: only the error lines.
    let o = run(
        "pi-check",
        &["-q", bad.to_str().unwrap(), warn.to_str().unwrap()],
        None,
    );
    assert_eq!(stdout(&o).lines().count(), 1, "{}", stdout(&o));
    // A file that is not there: 2, the others still checked.
    let o = run(
        "pi-check",
        &[clean.to_str().unwrap(), "/nowhere/x.jsonl"],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stdout(&o).contains("clean.jsonl: ok"));
    assert!(
        stderr(&o).starts_with("pi-check: error: /nowhere/x.jsonl"),
        "{}",
        stderr(&o)
    );
}

/// Repair `text` with --fix (and `extra`), in a directory of its own;
/// the file after, what FILE.removed kept, the output.
fn fixed(text: &[u8], extra: &[&str]) -> (Vec<u8>, Vec<u8>, String, TempDir) {
    let dir = TempDir::new("check-fix");
    let f = dir.write("s.jsonl", text);
    let mut args = vec!["--fix"];
    args.extend_from_slice(extra);
    args.push(f.to_str().unwrap());
    let o = run("pi-check", &args, None);
    assert!(o.status.code().is_some_and(|c| c < 2), "{}", stderr(&o));
    let after = std::fs::read(&f).unwrap();
    let removed = std::fs::read(dir.path().join("s.jsonl.removed")).unwrap_or_default();
    (after, removed, stdout(&o), dir)
}

#[test]
fn each_rewrite_repair_keeps_every_other_byte() {
    let u1 = user("aaaa0001", None, "hi");
    let u2 = user("aaaa0002", Some("aaaa0001"), "there");
    let body = session(&[u1.clone(), u2.clone()]);
    // A byte order mark: only the three bytes go.
    let (after, removed, out, _d) = fixed(&[&b"\xEF\xBB\xBF"[..], body.as_bytes()].concat(), &[]);
    assert_eq!(after, body.as_bytes(), "{out}");
    assert!(removed.starts_with(b"\xEF\xBB\xBF{\"type\":\"session\""));
    // A title line before the header: dropped, kept.
    let title = "{\"type\":\"title\",\"title\":\"t\"}";
    let (after, removed, _, _d) = fixed(format!("{title}\n{body}").as_bytes(), &[]);
    assert_eq!(after, body.as_bytes());
    assert_eq!(removed, format!("{title}\n").as_bytes());
    // A torn last line.
    let (after, removed, _, _d) = fixed(format!("{body}{{\"type\":\"me").as_bytes(), &[]);
    assert_eq!(after, body.as_bytes());
    assert_eq!(removed, b"{\"type\":\"me\n");
    // CR LF.
    let (after, _, _, _d) = fixed(body.replace('\n', "\r\n").as_bytes(), &[]);
    assert_eq!(after, body.as_bytes());
    // A self-parent and a cycle: parentId null, nothing else changes.
    let own = session(&[u1.clone(), user("aaaa0002", Some("aaaa0002"), "x")]);
    let (after, _, _, d) = fixed(own.as_bytes(), &[]);
    assert_eq!(
        String::from_utf8(after).unwrap(),
        own.replace(r#""parentId":"aaaa0002""#, r#""parentId":null"#)
    );
    assert!(findings(&d.path().join("s.jsonl"))
        .0
        .iter()
        .all(|f| f["code"] != "own-parent"));
    let cyc = session(&[
        u1.clone(),
        user("aaaa0002", Some("aaaa0003"), "x"),
        user("aaaa0003", Some("aaaa0002"), "y"),
    ]);
    let (after, _, _, d) = fixed(cyc.as_bytes(), &[]);
    let after = String::from_utf8(after).unwrap();
    assert_eq!(after.matches(r#""parentId":null"#).count(), 2, "{after}");
    assert_eq!(after.len(), cyc.len() - "\"aaaa0002\"".len() + 4);
    assert!(findings(&d.path().join("s.jsonl"))
        .0
        .iter()
        .all(|f| f["code"] != "cycle"));
    // Null arguments: {} in their place, the rest of the line as it was.
    let a = asst(
        "aaaa0002",
        Some("aaaa0001"),
        &call("c1", "read", "null"),
        "toolUse",
    );
    let text = session(&[
        u1.clone(),
        a.clone(),
        result("aaaa0003", Some("aaaa0002"), "c1"),
    ]);
    let (after, removed, _, _d) = fixed(text.as_bytes(), &["--backup"]);
    assert_eq!(
        String::from_utf8(after).unwrap(),
        text.replace(r#""arguments":null"#, r#""arguments":{}"#)
    );
    assert!(removed.is_empty(), "--backup keeps the old file instead");
    assert_eq!(
        std::fs::read_to_string(_d.path().join("s.jsonl.bak")).unwrap(),
        text
    );
}

#[test]
fn append_repairs_add_context_edits_and_leave_the_file_before_them_alone() {
    let u1 = user("aaaa0001", None, "hi");
    let text = session(&[
        u1,
        result("aaaa0002", Some("aaaa0001"), "c9"),
        user("aaaa0003", Some("aaaa0002"), "go"),
    ]);
    let (after, removed, out, d) = fixed(text.as_bytes(), &[]);
    assert!(removed.is_empty());
    assert!(after.starts_with(text.as_bytes()), "{out}");
    let added: Vec<Value> = String::from_utf8_lossy(&after[text.len()..])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(added.len(), 1);
    assert_eq!(added[0]["type"], "context_edit");
    assert_eq!(added[0]["targetId"], "aaaa0002");
    assert_eq!(added[0]["parentId"], "aaaa0003");
    assert!(added[0]["replacement"].is_null());
    let (found, status) = findings(&d.path().join("s.jsonl"));
    assert!(has(&found, "result-without-call").is_none(), "{found:#?}");
    assert_eq!(status, Some(0));
    // pi-edit --restore undoes it.
    let f = d.path().join("s.jsonl");
    let o = run(
        "pi-edit",
        &[f.to_str().unwrap(), "aaaa0002", "--restore"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(has(&findings(&f).0, "result-without-call").is_some());
}

#[test]
fn dry_run_prints_a_diff_and_writes_nothing() {
    let dir = TempDir::new("check-dry");
    let body = session(&[
        user("aaaa0001", None, "hi"),
        result("aaaa0002", Some("aaaa0001"), "c9"),
    ]);
    let text = format!("{body}{{\"type\":\"me");
    let f = dir.write("s.jsonl", text.as_bytes());
    let o = run(
        "pi-check",
        &["--fix", "--dry-run", f.to_str().unwrap()],
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("@@ -4,1 +3,0 @@\n-{\"type\":\"me\n"), "{out}");
    assert!(
        out.contains("(appended)\n@@ -4,0 +4,1 @@\n+{\"type\":\"context_edit\""),
        "{out}"
    );
    assert_eq!(std::fs::read(&f).unwrap(), text.as_bytes());
    assert_eq!(names_in(dir.path(), &[]), ["s.jsonl"]);
}

#[test]
fn hostile_bytes_neither_panic_nor_reach_the_terminal_raw() {
    let dir = TempDir::new("check-hostile");
    let esc = user("aaaa0001", Some("\u{1b}]52;c;x\u{7}"), "hi");
    let mut inputs: Vec<Vec<u8>> = vec![
        session(&[esc]).into_bytes(),
        b"\x1b[2J\r\n\x00\x00{\"type\":\"session\",\"id\":\"\\u001b\"}\n\xff\xfe".to_vec(),
        session(&[other(
            "label",
            "aaaa0002",
            None,
            r#","targetId":"\u001b[31m","label":"x""#,
        )])
        .into_bytes(),
    ];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..40 {
        let mut b = session(&[
            user("aaaa0001", None, "hi"),
            result("aaaa0002", Some("aaaa0001"), "c"),
        ])
        .into_bytes();
        for _ in 0..6 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let at = (seed as usize) % b.len();
            b[at] = (seed >> 32) as u8;
        }
        inputs.push(b);
    }
    for (k, text) in inputs.iter().enumerate() {
        let f = dir.write(&format!("h{k}.jsonl"), text);
        for args in [vec![], vec!["--json"], vec!["--fix", "--dry-run"]] {
            let mut a = args.clone();
            a.push(f.to_str().unwrap());
            let o = run("pi-check", &a, None);
            let err = stderr(&o);
            assert!(
                o.status.code().is_some_and(|c| c <= 2),
                "{k} {args:?}: {err}"
            );
            assert!(!err.contains("panicked"), "{k}: {err}");
            let out = String::from_utf8_lossy(&o.stdout);
            if !args.contains(&"--json") {
                assert!(
                    !out.chars().any(|c| c.is_control() && c != '\n'),
                    "{k} {args:?}: {out:?}"
                );
            } else {
                for l in out.lines() {
                    serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{k}: {e}: {l}"));
                }
            }
            assert!(
                !err.chars().any(|c| c.is_control() && c != '\n'),
                "{k}: {err:?}"
            );
        }
    }
}

#[test]
fn the_broken_example_is_repaired_and_then_clean() {
    let dir = TempDir::new("check-example");
    let text = std::fs::read(repo().join("examples/broken.jsonl")).unwrap();
    let f = dir.write("broken.jsonl", &text);
    let (found, status) = findings(&f);
    assert_eq!(status, Some(1));
    for code in [
        "arguments-null",
        "result-without-call",
        "torn-line",
        "label-target-missing",
    ] {
        assert!(has(&found, code).is_some(), "{code}: {found:#?}");
    }
    let o = run(
        "pi-check",
        &["--fix", "--backup", f.to_str().unwrap()],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(dir.path().join("broken.jsonl.bak")).unwrap(),
        text
    );
    let (found, status) = findings(&f);
    assert_eq!(status, Some(0));
    assert!(found.iter().all(|f| f["severity"] != "error"), "{found:#?}");
    // pi-path reads the repaired file without a word.
    let o = run("pi-path", &[f.to_str().unwrap()], None);
    assert!(
        o.status.success() && stderr(&o).is_empty(),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_file_with_other_hard_links_is_not_rewritten() {
    let dir = TempDir::new("check-link");
    let text = format!(
        "{}{{\"type\":\"me",
        session(&[user("aaaa0001", None, "hi")])
    );
    let f = dir.write("s.jsonl", text.as_bytes());
    std::fs::hard_link(&f, dir.path().join("t.jsonl")).unwrap();
    let o = run("pi-check", &["--fix", f.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("has other hard links"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&f).unwrap(), text.as_bytes());
    assert_eq!(names_in(dir.path(), &[]), ["s.jsonl", "t.jsonl"]);
}

#[test]
fn a_file_without_header_gets_one_from_its_name_first_entry_and_directory() {
    let dir = TempDir::new("check-header");
    let id = "0190bbbb-0000-7000-8000-000000000002";
    let h = header(
        "0190aaaa-0000-7000-8000-000000000001",
        "2026-07-20T09:00:00.000Z",
        "/home/dev/app",
        None,
    );
    let u1 = user("aaaa0001", None, "hi");
    dir.write(
        "2026-07-20T09-00-00-000Z_0190aaaa-0000-7000-8000-000000000001.jsonl",
        format!("{h}\n{u1}\n").as_bytes(),
    );
    let body = format!("{u1}\n");
    let f = dir.write(
        &format!("2026-07-21T10-00-00-000Z_{id}.jsonl"),
        body.as_bytes(),
    );
    let o = run("pi-check", &["--fix", f.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let after = std::fs::read_to_string(&f).unwrap();
    let want = format!(
        r#"{{"type":"session","version":3,"id":"{id}","timestamp":"2026-07-20T09:00:01.000Z","cwd":"/home/dev/app"}}"#
    );
    assert_eq!(after, format!("{want}\n{body}"));
    // Alone in its directory: no cwd to give it, so no repair.
    let alone = TempDir::new("check-header-alone");
    let g = alone.write("x.jsonl", body.as_bytes());
    let o = run("pi-check", &["--fix", g.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("--fix cannot add one"),
        "{}",
        stdout(&o)
    );
    assert_eq!(std::fs::read_to_string(&g).unwrap(), body);
}

#[test]
fn a_call_left_open_by_the_next_assistant_message_is_found() {
    let dir = TempDir::new("check-open");
    let text = session(&[
        user("aaaa0001", None, "hi"),
        asst(
            "aaaa0002",
            Some("aaaa0001"),
            &call("c1", "read", "{}"),
            "toolUse",
        ),
        asst(
            "aaaa0003",
            Some("aaaa0002"),
            r#"[{"type":"text","text":"done"}]"#,
            "stop",
        ),
    ]);
    let f = dir.write("s.jsonl", text.as_bytes());
    let (found, status) = findings(&f);
    let hit = has(&found, "tool-call-without-result").expect("found");
    assert_eq!(hit["line"], 3);
    assert_eq!(status, Some(0), "info only: {found:#?}");
}

/// A line over the tools' limit is a finding of its own (exit 1), and the
/// file is not read further (its bytes are never all held); from a pipe it
/// stays an error (exit 2), as in every tool.
#[test]
fn a_line_over_the_limit_is_a_finding() {
    let dir = TempDir::new("check-long");
    let long = user("aaaa0002", Some("aaaa0001"), &"y".repeat(70_000));
    let text = session(&[user("aaaa0001", None, "hi"), long]);
    let f = dir.write("long.jsonl", text.as_bytes());
    let fs = f.to_str().unwrap();
    let o = command("pi-check", &["--json", fs])
        .env("PI_SESSION_TOOLS_MAX_LINE", "64K")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let found: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0]["code"], "line-too-long");
    assert_eq!(found[0]["line"], 3);
    assert_eq!(found[0]["severity"], "error");
    // Without the limit it is an ordinary line: nothing found.
    let o = command("pi-check", &[fs]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    // From a pipe: an error, FILE:LINE.
    let o = command("pi-check", &["-"])
        .env("PI_SESSION_TOOLS_MAX_LINE", "64K")
        .stdin(std::fs::File::open(&f).unwrap())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("<stdin>:3: line longer than 65536 bytes"),
        "{}",
        stderr(&o)
    );
}
