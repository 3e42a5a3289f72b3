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
        // Shaped after a real file whose masking left an invalid `\`
        // escape in the middle: the entry after it is orphaned.
        (
            "not-json",
            ok(&[
                u1.clone(),
                r#"{"type":"message","id":"aaaa0002","parentId":"aaaa0001","bad":"\q"}"#.into(),
                user("aaaa0003", Some("aaaa0002"), "y"),
            ]),
            3,
        ),
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

/// More files of a code, where pi does something else with another case
/// of it: (name, code, text, line).
fn variants() -> Vec<(&'static str, &'static str, Vec<u8>, u64)> {
    vec![(
        // corpus()'s own-parent is off the leaf's path (pi opens it); here
        // the leaf's path runs into it, and pi's walk never ends.
        "own-parent-on-path",
        "own-parent",
        session(&[
            user("aaaa0001", None, "hi"),
            user("aaaa0002", Some("aaaa0002"), "x"),
            user("aaaa0003", Some("aaaa0002"), "y"),
        ])
        .into_bytes(),
        3,
    )]
}

/// The files the conformance generator gives pi 1.6.0 (one file a name,
/// small): (name, code, text, line). All of `corpus()` (named by their
/// code) but image-too-large (a 7 MB file, and what pi does with it is
/// the provider's answer, not observable in pi), and the `variants()`.
fn pi_corpus() -> Vec<(&'static str, &'static str, Vec<u8>, u64)> {
    corpus()
        .into_iter()
        .filter(|(code, _, _)| *code != "image-too-large")
        .map(|(code, text, line)| (code, code, text, line))
        .chain(variants())
        .collect()
}

#[test]
fn each_variant_is_found_at_its_line() {
    let dir = TempDir::new("check-variants");
    for (name, code, text, line) in variants() {
        let f = dir.write(&format!("{name}.jsonl"), &text);
        let (found, _) = findings(&f);
        let hit = has(&found, code).unwrap_or_else(|| panic!("{name}: no {code} in {found:#?}"));
        assert_eq!(hit["line"], line, "{name}: {hit}");
    }
}

const PI_CORPUS_DIR: &str = "tests/conformance/check";

/// The corpus is committed under tests/conformance/check/ for the
/// generator (kinds/pi-check.mjs) to give pi; it is what `corpus()` builds.
/// UPDATE_CHECK_CORPUS=1 writes it.
#[test]
fn the_committed_corpus_is_what_the_tests_build() {
    let dir = repo().join(PI_CORPUS_DIR);
    let update = std::env::var_os("UPDATE_CHECK_CORPUS").is_some();
    if update {
        std::fs::create_dir_all(&dir).unwrap();
    }
    let mut stale = Vec::new();
    for (name, _, text, _) in pi_corpus() {
        let f = dir.join(format!("{name}.jsonl"));
        if update {
            std::fs::write(&f, &text).unwrap();
        } else if std::fs::read(&f).ok().as_deref() != Some(&text[..]) {
            stale.push(name);
        }
    }
    assert!(
        stale.is_empty(),
        "stale corpus (UPDATE_CHECK_CORPUS=1 cargo test --locked --test tests check::, then regenerate the answers): {stale:?}"
    );
}

/// The roles of the context's messages pi built, and their text contents.
fn roles(pi: &Value) -> Vec<&str> {
    let ms = pi["messages"].as_array().map_or(&[][..], |v| v);
    ms.iter()
        .map(|m| m["role"].as_str().unwrap_or(""))
        .collect()
}

fn texts(pi: &Value) -> Vec<&str> {
    let ms = pi["messages"].as_array().map_or(&[][..], |v| v);
    ms.iter().filter_map(|m| m["content"].as_str()).collect()
}

/// The `arguments` of the first block of the context's second message.
fn arguments(pi: &Value) -> &Value {
    &pi["messages"][1]["content"][0]["arguments"]
}

/// For a corpus file (a code, or a variant's name): a phrase of
/// pi-check's "what pi does", and whether pi's recorded behaviour on the
/// file is what the phrase says.
fn what_pi_did(code: &str, pi: &Value) -> (&'static str, bool) {
    let opens = pi["outcome"] == "opens";
    let refused = pi["outcome"] == "throws"
        && pi["error"]
            .as_str()
            .is_some_and(|e| e.contains("not a valid pi session"));
    let none = Vec::new();
    let entries = pi["entries"].as_array().unwrap_or(&none);
    let rewritten = pi["rewritten"] == true;
    let after = pi["after"].as_str().unwrap_or("");
    match code {
        "empty" => (
            "writes a header",
            opens && rewritten && after.starts_with(r#"{"type":"session""#),
        ),
        "bom" | "no-header" | "header-not-first" | "header-no-id" => ("refuses", refused),
        "header-no-cwd" => ("pi opens the file", opens && texts(pi) == ["hi"]),
        "old-version" => (
            "rewrites the whole file",
            opens && rewritten && after.contains(r#""version":3"#),
        ),
        "second-header" => (
            "skips a later session line",
            opens && entries.len() == 1 && entries.iter().all(|e| e[1] != "session"),
        ),
        "crlf" => (
            "pi reads the lines",
            opens && !rewritten && texts(pi) == ["hi"],
        ),
        "invalid-utf8" => (
            "U+FFFD",
            opens
                && entries
                    .iter()
                    .any(|e| e[0].as_str().is_some_and(|id| id.contains('\u{FFFD}'))),
        ),
        "torn-line" => (
            "appends a newline",
            opens && entries.len() == 1 && rewritten && after.ends_with("{\"type\":\"mess\n"),
        ),
        "not-json" => (
            "entries naming it as parent start a new root",
            opens && entries.len() == 2 && texts(pi) == ["y"],
        ),
        "not-object" => (
            "keeps a truthy value",
            opens && entries.iter().any(|e| e[0].is_null() && e[1].is_null()),
        ),
        "blank-line" => ("pi skips a line", opens && entries.len() == 2),
        "no-id" => (
            "makes the leaf undefined",
            opens && pi["leaf"].is_null() && entries.iter().any(|e| e[0].is_null()),
        ),
        "no-type" => (
            "adds nothing to the context",
            opens && entries.iter().any(|e| e[1].is_null()) && texts(pi) == ["hi"],
        ),
        "duplicate-id" => (
            "names only the later one",
            opens && entries.len() == 2 && texts(pi) == ["again"],
        ),
        "dangling-parent" => ("makes the entry a root", opens && texts(pi) == ["x"]),
        "own-parent" => (
            "when the entry is on the leaf's path",
            opens && texts(pi) == ["hi", "y"],
        ),
        "cycle" => ("then fails", !opens),
        "own-parent-on-path" => ("then fails", !opens),
        "several-roots" => (
            "only the leaf's root reaches the context",
            opens && texts(pi) == ["x"],
        ),
        "label-target-missing" => ("keeps the label", opens && texts(pi) == ["hi"]),
        "edit-target-missing" => ("ignores a context_edit", opens && texts(pi) == ["hi"]),
        "edit-target-not-editable" => ("pi still applies the edit", opens && texts(pi) == ["hi"]),
        "first-kept-not-on-path" => (
            "keeps nothing from before the compaction",
            opens && roles(pi) == ["compactionSummary"],
        ),
        "from-id-missing" => (
            "nothing breaks",
            opens
                && roles(pi) == ["user", "branchSummary"]
                && pi["messages"][1]["fromId"] == "gone0000",
        ),
        "message-missing" => (
            "throws (TypeError reading message.role)",
            pi["outcome"] == "throws"
                && pi["error"]
                    .as_str()
                    .is_some_and(|e| e.starts_with("TypeError") && e.contains("'role'")),
        ),
        // The synthetic result is made when pi sends, not in the context.
        "tool-call-without-result" => (
            "synthetic error result",
            opens && roles(pi) == ["user", "assistant", "user"],
        ),
        "result-without-call" => (
            "sends the result as it is",
            opens && roles(pi) == ["user", "toolResult"],
        ),
        "arguments-null" => ("Anthropic gets {}", opens && arguments(pi).is_null()),
        "arguments-not-object" => (
            "sends the arguments as they are",
            opens && arguments(pi) == "x",
        ),
        _ => panic!("{code}: no expectation of pi's behaviour; add one"),
    }
}

/// What the context at the leaf is meant to be after --fix, where the
/// repair changes it.
fn meant_after_fix(code: &str, pi: &Value) -> bool {
    match code {
        "result-without-call" => roles(pi) == ["user"],
        "arguments-null" | "arguments-not-object" => {
            arguments(pi).as_object().is_some_and(|o| o.is_empty())
        }
        "cycle" | "own-parent-on-path" => texts(pi) == ["x", "y"],
        _ => texts(pi) == ["hi"] || texts(pi) == ["hi", "y"],
    }
}

/// pi 1.6.0's behaviour on each corpus file, as recorded by the generator
/// (tests/conformance/answers/pi-check, from kinds/pi-check.mjs), is what
/// pi-check says pi does; and the file --fix repaired pi opens without a
/// word, with the context meant, and pi-check finds no error left in it.
#[test]
fn what_pi_check_says_pi_does_is_what_pi_did() {
    let dir = repo().join(PI_CORPUS_DIR);
    let answers = repo().join("tests/conformance/answers/pi-check");
    let corpus = pi_corpus();
    let mut want: Vec<String> = corpus
        .iter()
        .map(|(name, ..)| format!("{name}.json"))
        .collect();
    want.sort();
    assert_eq!(names_in(&answers, &[]), want, "regenerate the answers");
    for (name, code, _, _) in corpus {
        let a: Value = serde_json::from_str(
            &std::fs::read_to_string(answers.join(format!("{name}.json"))).unwrap(),
        )
        .unwrap();
        // the generator names an answer by its file
        assert_eq!(a["code"], name);
        let (found, _) = findings(&dir.join(format!("{name}.jsonl")));
        let hit = has(&found, code).unwrap_or_else(|| panic!("{code}: not found in {found:#?}"));
        let claim = hit["pi"].as_str().unwrap();
        let pi = &a["pi"];
        // pi never says a word on the console, whatever it meets.
        assert!(
            pi["said"].as_array().is_none_or(|s| s.is_empty()),
            "{code}: {pi}"
        );
        if pi["outcome"] != "opens" {
            assert_eq!(
                hit["severity"], "error",
                "{code}: pi does not open it: {pi}"
            );
        }
        let (phrase, agrees) = what_pi_did(name, pi);
        assert!(claim.contains(phrase), "{code}: {claim:?} lacks {phrase:?}");
        assert!(
            agrees,
            "{code}: pi-check says {claim:?}; pi 1.6.0 did {pi:#}"
        );
        // After --fix: changed exactly when pi-check repairs the code.
        let after = &a["afterFix"];
        let repairs = hit["fix"].as_str().is_some_and(|f| !f.is_empty());
        assert_eq!(after["changed"] == true, repairs, "{code}: {after:#}");
        if !repairs {
            continue;
        }
        let p = &after["pi"];
        assert_eq!(p["outcome"], "opens", "{code}: {p:#}");
        assert!(
            p["said"].as_array().is_some_and(|s| s.is_empty()),
            "{code}: {p:#}"
        );
        assert_eq!(
            p["rewritten"], false,
            "{code}: pi rewrote the repair: {p:#}"
        );
        assert!(
            meant_after_fix(name, p),
            "{code}: context after --fix: {p:#}"
        );
        let left = after["findings"].as_array().unwrap();
        assert!(
            left.iter()
                .all(|f| f["severity"] != "error" && f["code"] != code),
            "{code}: after --fix: {left:?}"
        );
        assert_eq!(after["fixStatus"], 0, "{code}: --fix left an error");
    }
}

/// Past the cap of findings per code, each code's "N more of these" line
/// comes in the order the codes first appear, the same on every run.
#[test]
fn more_of_these_lines_come_in_first_appearance_order() {
    let dir = TempDir::new("check-cap");
    let mut entries = vec![user("aaaa0001", None, "hi")];
    for i in 0..25 {
        entries.push("[1]".to_string());
        entries.push(other(
            "label",
            &format!("bbbb{i:04}"),
            Some("aaaa0001"),
            &format!(r#","targetId":"ffff{i:04}","label":"x""#),
        ));
    }
    entries.push(user("aaaa0002", Some("aaaa0001"), "hi"));
    let f = dir.write("cap.jsonl", session(&entries).as_bytes());
    // Line 3 is `[1]`: no-id, no-type and not-object (a line's codes in
    // name order); line 4 the label of a missing entry.
    let want = ["no-id", "no-type", "not-object", "label-target-missing"];
    for _ in 0..3 {
        let (found, _) = findings(&f);
        let more: Vec<&str> = found
            .iter()
            .filter(|f| f["message"].as_str().unwrap().ends_with("more of these"))
            .map(|f| f["code"].as_str().unwrap())
            .collect();
        assert_eq!(more, want, "{found:#?}");
    }
}
