//! pi-grep: decoded text, fields and roles, the active path, output shapes,
//! files that are not sessions, hostile bytes, and the README's examples.
use crate::common::*;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// A session whose texts hide behind JSON escapes, with a branch (line 8 is
/// off the active path: the leaf, line 9, hangs under line 6).
const SESSION: &str = concat!(
    r#"{"type":"session","version":3,"id":"sess-0001","timestamp":"2026-11-02T10:00:00.000Z","cwd":"/p"}"#,
    "\n",
    r#"{"type":"message","id":"aaaa0001","parentId":null,"timestamp":"2026-11-02T10:00:01.000Z","message":{"role":"user","content":"please migrate the caf\u00e9 db","timestamp":1793613601000}}"#,
    "\n",
    r#"{"type":"message","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2026-11-02T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"they said \"migrate\"","thinkingSignature":"migrate-sig"},{"type":"text","text":"I will migrate it."},{"type":"toolCall","id":"call_migrate","name":"bash","arguments":{"command":"cargo test --all"}}],"timestamp":1793613602000}}"#,
    "\n",
    r#"{"type":"message","id":"aaaa0003","parentId":"aaaa0002","timestamp":"2026-11-02T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"call_migrate","toolName":"bash","content":[{"type":"text","text":"running 3 tests\nerror: connection refused\n\ttest result: FAILED"},{"type":"image","data":"Y29ubmVjdGlvbiByZWZ1c2Vk","mimeType":"image/png"}],"isError":true,"timestamp":1793613603000}}"#,
    "\n",
    r#"{"type":"message","id":"aaaa0004","parentId":"aaaa0003","timestamp":"2026-11-02T10:00:04.000Z","message":{"role":"bashExecution","command":"cargo test","output":"ok\nrate limit hit","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1793613604000}}"#,
    "\n",
    r#"{"type":"label","id":"aaaa0005","parentId":"aaaa0004","timestamp":"2026-11-02T10:00:05.000Z","targetId":"aaaa0001","label":"before-migrate"}"#,
    "\n",
    r#"{"type":"session_info","id":"aaaa0006","parentId":"aaaa0005","timestamp":"2026-11-02T10:00:06.000Z","name":"Migrate the caf\u00e9"}"#,
    "\n",
    r#"{"type":"message","id":"aaaa0007","parentId":"aaaa0006","timestamp":"2026-11-02T10:00:07.000Z","message":{"role":"user","content":[{"type":"text","text":"old branch: rate limit"}],"timestamp":1793613607000}}"#,
    "\n",
    r#"{"type":"branch_summary","id":"aaaa0008","parentId":"aaaa0006","timestamp":"2026-11-02T10:00:08.000Z","fromId":"aaaa0007","summary":"We tried a rate limit."}"#,
    "\n",
    r#"{"type":"message","id":"aaaa0009","parentId":"aaaa0006","timestamp":"2026-11-02T10:00:09.000Z","message":{"role":"user","content":"done\nthanks","timestamp":1793613609000}}"#,
    "\n",
);

/// pi-grep in `dir`, which is also its HOME; no stdin.
fn grep_in(dir: &Path, args: &[&str]) -> Output {
    run_with("pi-grep", args, None, |c| {
        c.current_dir(dir)
            .env_remove("NO_COLOR")
            .env("HOME", dir)
            .stdin(Stdio::null());
    })
}

/// What [`grep_in`] prints.
fn grep_out(dir: &Path, args: &[&str]) -> String {
    stdout(&grep_in(dir, args))
}

fn setup(tag: &str) -> TempDir {
    let t = TempDir::new(tag);
    t.write("s.jsonl", SESSION.as_bytes());
    t
}

#[test]
fn finds_text_hidden_by_escapes() {
    let t = setup("grep-escapes");
    // \u00e9, a quote escaped inside thinking, a line of a multi-line output.
    let o = grep_in(t.path(), &["café db", "s.jsonl"]);
    assert_eq!(
        stdout(&o),
        "s.jsonl:aaaa0001:user/text: please migrate the café db\n"
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        grep_out(t.path(), &["said \"migrate\"$", "s.jsonl"]),
        "s.jsonl:aaaa0002:assistant/thinking: they said \"migrate\"\n"
    );
    assert_eq!(
        grep_out(t.path(), &["^error: connection refused$", "s.jsonl"]),
        "s.jsonl:aaaa0003:toolResult/toolResult: error: connection refused\n"
    );
    assert_eq!(
        grep_out(t.path(), &["^\ttest", "s.jsonl"]),
        "s.jsonl:aaaa0003:toolResult/toolResult: \ttest result: FAILED\n"
    );
    // A raw search of the file finds none of these (what rg sees).
    assert!(!SESSION.contains("café db"));
    assert!(!SESSION.contains("said \"migrate\""));
}

#[test]
fn keys_ids_signatures_and_images_are_not_searched() {
    let t = setup("grep-keys");
    for p in [
        "parentId",
        "aaaa0001",
        "thinkingSignature",
        "migrate-sig",
        "call_migrate",
        "toolCallId",
        "sess-0001",
        "image/png",
        "Y29ubmVjdGlvbiByZWZ1c2Vk",
        "exitCode",
        r#"\\n"#,
        "u00e9",
    ] {
        let o = grep_in(t.path(), &["-F", p, "s.jsonl"]);
        assert_eq!(o.status.code(), Some(1), "{p}: {}", stdout(&o));
        assert_eq!(stdout(&o), "");
    }
    // The line's JSON syntax is never matched; a tool call's text is the
    // name and the arguments as JSON.stringify writes them, so its own
    // JSON is.
    let o = grep_in(t.path(), &["-F", r#"":""#, "s.jsonl"]);
    assert_eq!(
        stdout(&o),
        "s.jsonl:aaaa0002:assistant/toolCall: bash {\"command\":\"cargo test --all\"}\n"
    );
}

/// A tool call's text writes its arguments again as JSON.stringify does:
/// a control character the line spells otherwise (`\u000a`, `\u001F`) is
/// `\n`, `\u001f` there, letters the line does not hold; the prefilter
/// skipped such escapes, and these matches were missed (found by a
/// hostile test comparing with a Python decode).
#[test]
fn a_tool_call_escape_spelled_otherwise_is_searched() {
    let t = TempDir::new("grep-toolcall-escapes");
    let call = |id: &str, args: &str| {
        message(
            id,
            None,
            &format!(
                r#"{{"role":"assistant","content":[{{"type":"toolCall","id":"c","name":"bash","arguments":{args}}}]}}"#
            ),
        )
    };
    let s = session(&[
        call("t0000001", r#"{"command":"echo x\u000aab"}"#),
        call("t0000002", r#"{"command":"a\u001Fb"}"#),
    ]);
    t.write("s.jsonl", s.as_bytes());
    for (p, want) in [
        (
            "nab",
            r#"t0000001:assistant/toolCall: bash {"command":"echo x\nab"}"#,
        ),
        (
            "fb",
            r#"t0000002:assistant/toolCall: bash {"command":"a\u001fb"}"#,
        ),
    ] {
        let o = grep_in(t.path(), &[p, "s.jsonl"]);
        assert_eq!(stdout(&o), format!("s.jsonl:{want}\n"), "{p}");
        assert_eq!(o.status.code(), Some(0), "{p}");
    }
}

#[test]
fn fields_and_roles() {
    let t = setup("grep-fields");
    assert_eq!(
        grep_out(t.path(), &["--role", "user", "-w", "migrate", "s.jsonl"]),
        "s.jsonl:aaaa0001:user/text: please migrate the café db\n"
    );
    let o = grep_in(
        t.path(),
        &["--in", "command,output", "cargo test|rate", "s.jsonl"],
    );
    assert_eq!(
        stdout(&o),
        "s.jsonl:aaaa0004:bashExecution/command: cargo test\n\
         s.jsonl:aaaa0004:bashExecution/output: rate limit hit\n"
    );
    // The tool call: its name, then the arguments as JSON.stringify writes them.
    assert_eq!(
        grep_out(t.path(), &["--in", "toolCall", "cargo test", "s.jsonl"]),
        "s.jsonl:aaaa0002:assistant/toolCall: bash {\"command\":\"cargo test --all\"}\n"
    );
    let o = grep_in(
        t.path(),
        &["-i", "migrate", "--role", "label,session_info", "s.jsonl"],
    );
    assert_eq!(
        stdout(&o),
        "s.jsonl:aaaa0005:label/label: before-migrate\n\
         s.jsonl:aaaa0006:session_info/name: Migrate the café\n"
    );
    assert_eq!(
        grep_out(t.path(), &["--in", "summary", "rate", "s.jsonl"]),
        "s.jsonl:aaaa0008:branch_summary/summary: We tried a rate limit.\n"
    );
    let o = grep_in(t.path(), &["--in", "nope", "x", "s.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("pi-grep: error: --in nope: no such field"));
}

#[test]
fn active_path_only() {
    let t = setup("grep-active");
    assert_eq!(
        grep_out(t.path(), &["-c", "rate limit", "s.jsonl"]),
        "s.jsonl:3\n"
    );
    // Lines 8 (the old branch's user message) and 9 (its summary) are off
    // the path from the leaf (line 10).
    assert_eq!(
        grep_out(t.path(), &["--active", "rate limit", "s.jsonl"]),
        "s.jsonl:aaaa0004:bashExecution/output: rate limit hit\n"
    );
}

#[test]
fn output_shapes() {
    let t = setup("grep-shapes");
    t.write(
        "other.jsonl",
        SESSION.replace("sess-0001", "sess-0002").as_bytes(),
    );
    assert_eq!(
        grep_out(t.path(), &["-l", "migrate", "s.jsonl", "other.jsonl"]),
        "s.jsonl\nother.jsonl\n"
    );
    assert_eq!(
        grep_out(t.path(), &["-l", "-0", "migrate", "s.jsonl"]),
        "s.jsonl\0"
    );
    assert_eq!(
        grep_out(t.path(), &["-c", "-i", "migrate", "s.jsonl"]),
        "s.jsonl:5\n"
    );
    assert_eq!(
        grep_out(t.path(), &["-m", "2", "-c", "-i", "migrate", "s.jsonl"]),
        "s.jsonl:2\n"
    );
    assert_eq!(
        grep_out(t.path(), &["-o", r"\brate \w+", "s.jsonl"]),
        "s.jsonl:aaaa0004:bashExecution/output: rate limit\n\
         s.jsonl:aaaa0007:user/text: rate limit\n\
         s.jsonl:aaaa0008:branch_summary/summary: rate limit\n"
    );
    assert_eq!(
        grep_out(t.path(), &["-e", "thanks", "-e", "^done", "s.jsonl"]),
        "s.jsonl:aaaa0009:user/text: done\ns.jsonl:aaaa0009:user/text: thanks\n"
    );
    let o = grep_in(t.path(), &["--json", "refused", "s.jsonl"]);
    let v = json_lines(&stdout(&o));
    assert_eq!(v.len(), 1);
    assert_eq!(
        v[0],
        serde_json::json!({
            "path": "s.jsonl", "session": "sess-0001", "id": "aaaa0003", "line": 4,
            "type": "message", "role": "toolResult", "field": "toolResult",
            "timestamp": "2026-11-02T10:00:03.000Z", "textLine": 2,
            "text": "error: connection refused",
            "submatches": [{"match": {"text": "refused"}, "start": 18, "end": 25}]
        })
    );
    // Non-messages: role null, type given.
    let o = grep_in(t.path(), &["--json", "before-", "s.jsonl"]);
    let v = json_lines(&stdout(&o));
    assert_eq!(v[0]["role"], serde_json::Value::Null);
    assert_eq!(v[0]["type"], "label");
    // Context lines within the same text.
    assert_eq!(
        grep_out(t.path(), &["-C", "1", "connection", "s.jsonl"]),
        "s.jsonl-aaaa0003-toolResult/toolResult- running 3 tests\n\
         s.jsonl:aaaa0003:toolResult/toolResult: error: connection refused\n\
         s.jsonl-aaaa0003-toolResult/toolResult- \ttest result: FAILED\n"
    );
    // Colour and headings only when asked for (or on a terminal).
    let o = grep_in(
        t.path(),
        &[
            "--color",
            "always",
            "--heading",
            "always",
            "refused",
            "s.jsonl",
        ],
    );
    assert_eq!(
        stdout(&o),
        "\x1b[35ms.jsonl\x1b[0m\n\x1b[32maaaa0003\x1b[0m:\x1b[36mtoolResult/toolResult\x1b[0m: \
         error: connection \x1b[1;31mrefused\x1b[0m\n"
    );
    // Exit status: 1 when nothing matched, 2 on a bad pattern.
    assert_eq!(
        grep_in(t.path(), &["zzz", "s.jsonl"]).status.code(),
        Some(1)
    );
    let o = grep_in(t.path(), &["(", "s.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("pi-grep: error: bad pattern"));
}

#[test]
fn a_file_that_is_no_session_is_skipped_with_a_warning() {
    let t = setup("grep-notsession");
    t.write("notes.jsonl", b"{\"type\":\"note\",\"text\":\"migrate\"}\n");
    t.write("garbage.jsonl", b"\xff\xfe migrate \x00\n");
    t.write("empty.jsonl", b"");
    let o = grep_in(t.path(), &["-l", "migrate", "."]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "./s.jsonl\n");
    let err = stderr(&o);
    assert_eq!(err.matches("pi-grep: warning: ").count(), 3, "{err}");
    assert!(err.contains("./notes.jsonl:"), "{err}");
    assert!(err.contains("skipped"), "{err}");
    // Alone, a skipped file is no error: nothing matched.
    let o = grep_in(t.path(), &["migrate", "notes.jsonl"]);
    assert_eq!(o.status.code(), Some(1));
    // A file that cannot be read is one.
    let o = grep_in(t.path(), &["migrate", "s.jsonl", "missing/x.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).starts_with("s.jsonl:aaaa0001"));
}

/// pi takes a file whose header has no string `id` for no session (its
/// loader returns no entries), and so does pi-grep with `--active` or of
/// an older version; of a version-3 file it searched the entries (found
/// by a hostile test: `"id":5` given last, or no `id`).
#[test]
fn a_header_without_a_string_id_is_no_session() {
    let t = TempDir::new("grep-header-id");
    let rest = SESSION.split_once('\n').unwrap().1;
    for (name, header) in [
        (
            "none.jsonl",
            r#"{"type":"session","version":3,"timestamp":"2026-11-02T10:00:00.000Z","cwd":"/p"}"#,
        ),
        (
            "number.jsonl",
            r#"{"type":"session","version":3,"id":"sess-0001","id":5,"timestamp":"2026-11-02T10:00:00.000Z","cwd":"/p"}"#,
        ),
    ] {
        t.write(name, format!("{header}\n{rest}").as_bytes());
        for args in [&["migrate", name][..], &["--active", "migrate", name]] {
            let o = grep_in(t.path(), args);
            assert_eq!(stdout(&o), "", "{args:?}");
            assert_eq!(o.status.code(), Some(1), "{args:?}");
            assert_stderr_has(
                &o,
                &format!("{name}:1: the session header has no string \"id\"; skipped"),
            );
        }
    }
}

#[test]
fn invalid_utf8_and_lone_surrogates_never_panic() {
    let t = TempDir::new("grep-hostile");
    let mut s = Vec::new();
    s.extend_from_slice(
        br#"{"type":"session","version":3,"id":"h","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}"#,
    );
    s.push(b'\n');
    s.extend_from_slice(br#"{"type":"message","id":"b0000001","parentId":null,"timestamp":"x","message":{"role":"user","content":"lone \ud800 here \udc00\ud83d\ude00 end"}}"#);
    s.push(b'\n');
    s.extend_from_slice(b"{\"type\":\"message\",\"id\":\"b0000002\",\"parentId\":\"b0000001\",\"timestamp\":\"x\",\"message\":{\"role\":\"user\",\"content\":\"bad \xff\xc3 bytes end\"}}\n");
    s.extend_from_slice(b"not json at all end\n");
    s.extend_from_slice(b"{\"type\":\"message\",\"id\":\"b0000003\",\"message\":{\"role\":\"user\",\"content\":[1,null,{\"type\":\"text\"},{\"type\":\"text\",\"text\":7}]}} end\n");
    t.write("h.jsonl", &s);
    for args in [
        &["end", "h.jsonl"][..],
        &["--json", "end", "h.jsonl"],
        &["-o", "(?s).", "h.jsonl"],
        &["\u{FFFD}", "h.jsonl"],
        &["--active", "-i", "E", "h.jsonl"],
        &["-C", "3", "-w", "", "h.jsonl"],
    ] {
        let o = grep_in(t.path(), args);
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "{args:?}: {:?} {}",
            o.status,
            stderr(&o)
        );
    }
    let o = grep_in(t.path(), &["--json", "here", "h.jsonl"]);
    let v = json_lines(&stdout(&o));
    assert_eq!(v[0]["text"], "lone \u{FFFD} here \u{FFFD}\u{1F600} end");
    assert_eq!(
        grep_out(t.path(), &["bytes", "h.jsonl"]),
        "h.jsonl:b0000002:user/text: bad \u{FFFD}\u{FFFD} bytes end\n"
    );
    // Lines are parsed only where the pattern could be: "end" is on line 4.
    let o = grep_in(t.path(), &["end", "h.jsonl"]);
    assert_stderr_has(&o, "h.jsonl:4: not valid JSON");
}

#[test]
fn old_sessions_are_searched_with_the_ids_pi_migrate_gives() {
    let t = TempDir::new("grep-v1");
    let v1 = v1_session("old-1", ["old needle".into()]);
    t.write("v1.jsonl", v1.as_bytes());
    let ids = run(
        "pi-path",
        &[
            "--format",
            "ids",
            &t.path().join("v1.jsonl").to_string_lossy(),
        ],
        None,
    );
    let id = stdout(&ids).trim().to_string();
    assert_eq!(id.len(), 8);
    let o = grep_in(t.path(), &["needle", "v1.jsonl"]);
    assert_eq!(stdout(&o), format!("v1.jsonl:{id}:user/text: old needle\n"));
    assert_eq!(stderr(&o), "");
}

#[test]
fn session_directories_and_time() {
    let t = setup("grep-dirs");
    let root = t.path().join("sessions");
    for (proj, id, ts) in [
        ("--p--", "s-new", "1793613601000"),
        ("--q--", "s-old", "1700000000000"),
    ] {
        std::fs::create_dir_all(root.join(proj)).unwrap();
        std::fs::write(
            root.join(proj).join(format!("{id}.jsonl")),
            SESSION
                .replace("sess-0001", id)
                .replace("1793613601000", ts)
                .replace("1793613602000", ts)
                .replace("1793613603000", ts)
                .replace("1793613604000", ts)
                .replace("1793613607000", ts)
                .replace("1793613609000", ts),
        )
        .unwrap();
    }
    let r = root.to_string_lossy().to_string();
    assert_eq!(
        grep_out(t.path(), &["--all", "--session-dir", &r, "-l", "refused"]),
        format!("{r}/--p--/s-new.jsonl\n{r}/--q--/s-old.jsonl\n")
    );
    for (bound, file) in [("--since", "--p--/s-new"), ("--until", "--q--/s-old")] {
        let args = [
            "--all",
            "--session-dir",
            &r,
            "-c",
            bound,
            "2026-11-01",
            "refused",
        ];
        assert_eq!(grep_out(t.path(), &args), format!("{r}/{file}.jsonl:1\n"));
    }
    // A duration before now, as pi-ls reads it: 100 years ago is before
    // both sessions.
    let args = [
        "--all",
        "--session-dir",
        &r,
        "-l",
        "--since",
        "36500d",
        "refused",
    ];
    assert_eq!(
        grep_out(t.path(), &args),
        format!("{r}/--p--/s-new.jsonl\n{r}/--q--/s-old.jsonl\n")
    );
    let args = [
        "--all",
        "--session-dir",
        &r,
        "-l",
        "--until",
        "36500d",
        "refused",
    ];
    let o = grep_in(t.path(), &args);
    assert_eq!((stdout(&o).as_str(), o.status.code()), ("", Some(1)));
    // This project's sessions (--session-dir names the directory itself).
    let p = root.join("--p--").to_string_lossy().to_string();
    assert_eq!(
        grep_out(t.path(), &["--session-dir", &p, "-l", "refused"]),
        format!("{p}/s-new.jsonl\n")
    );
    // A session-id prefix.
    assert_eq!(
        grep_out(t.path(), &["--session-dir", &r, "-c", "refused", "s-ol"]),
        format!("{r}/--q--/s-old.jsonl:1\n")
    );
    // A prefix that names no session is an error of its own, as a missing
    // file is: the other sessions are searched, the status is 2.
    let o = grep_in(
        t.path(),
        &["--session-dir", &r, "-c", "refused", "zz", "s-ol"],
    );
    assert_eq!(stdout(&o), format!("{r}/--q--/s-old.jsonl:1\n"));
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!(
            "zz: no such file, and no session id starts with 'zz' (looked in {r})"
        )),
        "{err}"
    );
    // Stdin.
    let o = run_with("pi-grep", &["-c", "refused", "-"], None, |c| {
        c.stdin(std::fs::File::open(t.path().join("s.jsonl")).unwrap());
    });
    assert_eq!(stdout(&o), "<stdin>:1\n");
    // No SESSION: standard input when it is a file or a pipe (ripgrep's
    // rule), not the project's sessions; a terminal or /dev/null leaves
    // the project's (grep_in above); --all and --session-dir always take
    // the store.
    let o = run_with("pi-grep", &["-c", "refused"], None, |c| {
        c.current_dir(t.path())
            .env("HOME", t.path())
            .stdin(std::fs::File::open(t.path().join("s.jsonl")).unwrap());
    });
    assert_eq!(stdout(&o), "<stdin>:1\n");
    let o = run_with(
        "pi-grep",
        &["-c", "refused"],
        Some(SESSION.as_bytes()),
        |c| {
            c.current_dir(t.path()).env("HOME", t.path());
        },
    );
    assert_eq!(stdout(&o), "<stdin>:1\n");
    let o = run_with(
        "pi-grep",
        &["--session-dir", &p, "-l", "refused"],
        Some(b"not a session"),
        |c| {
            c.current_dir(t.path()).env("HOME", t.path());
        },
    );
    assert_eq!(stdout(&o), format!("{p}/s-new.jsonl\n"));
}

/// pi's activity time counts a message whose `type` and `message` keys
/// are written with `\u` escapes (JSON.parse reads them as any other);
/// --since/--until looked only at lines holding "message" as it is
/// written, and took the header's time for this one (found by a hostile
/// test, checked with pi's SessionManager.list).
#[test]
fn activity_time_of_a_message_spelled_with_escapes() {
    let t = TempDir::new("grep-time-escapes");
    let s = format!(
        "{}\n{}\n",
        r#"{"type":"session","version":3,"id":"s","timestamp":"2020-01-01T00:00:00.000Z","cwd":"/p"}"#,
        r#"{"typ\u0065":"m\u0065ssage","id":"a1","parentId":null,"timestamp":"2026-05-01T00:00:00.000Z","m\u0065ssage":{"role":"user","content":"hit"}}"#
    );
    t.write("s.jsonl", s.as_bytes());
    assert_eq!(
        grep_out(t.path(), &["-c", "--since", "2026-05-01", "hit", "s.jsonl"]),
        "s.jsonl:1\n"
    );
    let o = grep_in(t.path(), &["-c", "--until", "2026-05-01", "hit", "s.jsonl"]);
    assert_eq!((stdout(&o).as_str(), o.status.code()), ("", Some(1)));
}

/// With -m, the lines after the last match are printed as grep and
/// ripgrep print them (`grep -m1 -A1`); and `--` parts the groups of two
/// sessions, as it parts those of one (found by a hostile test, beside
/// rg and grep on the same lines).
#[test]
fn context_after_the_last_match_and_between_sessions() {
    let t = TempDir::new("grep-context-m");
    let s = session(&[
        user("c0000001", None, r"a hit\nb hit\nc\nd"),
        user("c0000002", Some("c0000001"), "hit"),
    ]);
    t.write("a.jsonl", s.as_bytes());
    t.write("b.jsonl", s.as_bytes());
    assert_eq!(
        grep_out(t.path(), &["-m", "1", "-A", "2", "hit", "a.jsonl"]),
        "a.jsonl:c0000001:user/text: a hit\n\
         a.jsonl-c0000001-user/text- b hit\n\
         a.jsonl-c0000001-user/text- c\n"
    );
    assert_eq!(
        grep_out(
            t.path(),
            &["-m", "1", "-C", "1", "hit", "a.jsonl", "b.jsonl"]
        ),
        "a.jsonl:c0000001:user/text: a hit\n\
         a.jsonl-c0000001-user/text- b hit\n\
         --\n\
         b.jsonl:c0000001:user/text: a hit\n\
         b.jsonl-c0000001-user/text- b hit\n"
    );
    // A count of lines beyond any text: all of it (the end of the lines
    // after a match was k + NUM: it overflowed, a panic with overflow
    // checks, no lines and a stray -- without)
    let max = usize::MAX.to_string();
    let o = grep_in(t.path(), &["-A", &max, "c", "a.jsonl"]);
    assert_eq!(
        (stdout(&o).as_str(), o.status.code()),
        (
            "a.jsonl:c0000001:user/text: c\na.jsonl-c0000001-user/text- d\n",
            Some(0)
        )
    );
}

/// -w as grep's and ripgrep's: no word character just before or after the
/// match; it was `\b` around the pattern, so one that starts or ends with
/// no word character found "-x" in "a-x" but not in "a -x b" (found by a
/// hostile test beside rg -w and grep -w).
#[test]
fn whole_words_of_a_pattern_that_starts_with_no_word_character() {
    let t = TempDir::new("grep-word-edges");
    let s = session(&[
        user("w0000001", None, "a -x b"),
        user("w0000002", Some("w0000001"), "e-mail"),
        user("w0000003", Some("w0000002"), r"(x)\n\u00e9(x)"),
    ]);
    t.write("s.jsonl", s.as_bytes());
    for (args, want) in [
        (
            &["-w", "--", "-x", "s.jsonl"][..],
            "s.jsonl:w0000001:user/text: a -x b\n",
        ),
        (&["-w", "--", "-mail", "s.jsonl"], ""),
        (
            &["-w", "-F", "(x)", "s.jsonl"],
            "s.jsonl:w0000003:user/text: (x)\n",
        ),
    ] {
        assert_eq!(grep_out(t.path(), args), want, "{args:?}");
    }
}

/// Each pattern is read alone, as the regex crate (and ripgrep) reads it:
/// put in a group of pi-grep's, `foo)|(bar` passed and a verbose pattern
/// ending in a comment lost the group's end to it (found by a hostile
/// test beside rg).
#[test]
fn a_pattern_is_read_alone() {
    let t = setup("grep-pattern-alone");
    let o = grep_in(t.path(), &["migrate)|(refused", "s.jsonl"]);
    assert_eq!((stdout(&o).as_str(), o.status.code()), ("", Some(2)));
    assert_stderr_has(&o, "migrate)|(refused\n");
    assert_stderr_has(&o, "error: unopened group");
    for args in [
        &["(?x) conn ection \\  refused  # a comment", "s.jsonl"][..],
        &["-w", "-e", "(?x)refused#", "-e", "nothing", "s.jsonl"],
    ] {
        let o = grep_in(t.path(), args);
        assert_eq!(
            stdout(&o),
            "s.jsonl:aaaa0003:toolResult/toolResult: error: connection refused\n",
            "{args:?} {}",
            stderr(&o)
        );
    }
}

#[test]
fn many_files_in_parallel_keep_their_order() {
    let t = TempDir::new("grep-many");
    let mut want = String::new();
    for i in 0..200 {
        let name = format!("f{i:03}.jsonl");
        t.write(&name, SESSION.as_bytes());
        if i % 3 == 0 {
            want.push_str(&format!("./{name}:1\n"));
        } else {
            t.write(&name, SESSION.replace("refused", "accepted").as_bytes());
        }
    }
    assert_eq!(grep_out(t.path(), &["-j", "8", "-c", "refused", "."]), want);
}

/// The examples of docs/tools.md's pi-grep section, in a project whose
/// session directory holds the test session.
#[test]
fn readme_examples_run() {
    let t = setup("grep-readme");
    let readme = std::fs::read_to_string(repo().join("docs/tools.md")).unwrap();
    let start = readme.find("## pi-grep:").expect("a pi-grep section");
    let section = &readme[start..];
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("an example block");
    // HOME/.pi/agent/sessions/<this project>/ holds the session.
    let cwd = t.path().join("proj");
    std::fs::create_dir_all(&cwd).unwrap();
    let enc = format!(
        "--{}--",
        cwd.to_string_lossy()
            .trim_start_matches('/')
            .replace('/', "-")
    );
    let dir = t.path().join(".pi/agent/sessions").join(enc);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(t.path().join("s.jsonl"), dir.join("s.jsonl")).unwrap();
    std::fs::copy(t.path().join("s.jsonl"), cwd.join("s.jsonl")).unwrap();
    let path = path_with_tools();
    let mut ran = 0;
    for line in block.lines() {
        let cmd = line.split("  #").next().unwrap_or("").trim();
        if cmd.is_empty() || !cmd.starts_with("pi-grep") || cmd.contains("pi-fork") {
            continue;
        }
        let o = Command::new("bash")
            .args(["-o", "pipefail", "-c", cmd])
            .current_dir(&cwd)
            .env("HOME", t.path())
            .env_remove("XDG_CACHE_HOME")
            .env_remove("PI_SESSION_TOOLS_CACHE_DIR")
            .env("PATH", &path)
            .env_remove("PI_CODING_AGENT_DIR")
            .env_remove("PI_CODING_AGENT_SESSION_DIR")
            .output()
            .unwrap();
        assert!(o.status.success(), "{cmd}: {:?} {}", o.status, stderr(&o));
        assert!(!o.stdout.is_empty(), "{cmd}: no output");
        ran += 1;
    }
    assert!(ran >= 6, "only {ran} examples ran");
}

/// A file is read a chunk at a time (128 KB): lines longer than a chunk,
/// matches at a chunk's edges, a bad line and a last line without a line
/// break give what the whole file read at once gives (`--since` reads it
/// whole), and every match lands on its own line's number.
#[test]
fn lines_across_read_chunks() {
    let t = TempDir::new("grep-chunks");
    let mut file = String::from(
        r#"{"type":"session","version":3,"id":"sess-chunk","timestamp":"2026-11-02T10:00:00.000Z","cwd":"/p"}"#,
    );
    file.push('\n');
    let mut want = Vec::new();
    let mut line = 1u64;
    let mut parent = "null".to_string();
    for i in 0..400u64 {
        line += 1;
        // sizes from a few bytes to three chunks, the needle at the start,
        // the end or nowhere
        let size = (i * 7919) % (400 << 10);
        let filler = "x\\ty ".repeat((size / 5) as usize);
        let text = match i % 3 {
            0 => format!("needle {filler}"),
            1 => format!("{filler} needle"),
            _ => filler,
        };
        if i % 3 != 2 {
            want.push(line);
        }
        let id = format!("{i:08x}");
        file.push_str(&format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-11-02T10:00:01.000Z","message":{{"role":"user","content":"{text}","timestamp":1}}}}"#
        ));
        file.push('\n');
        parent = format!("\"{id}\"");
        if i == 200 {
            line += 1;
            file.push_str("{\"type\":\"message\",\"id\":\"bad needle\n");
        }
    }
    // the last line has no line break
    line += 1;
    want.push(line);
    file.push_str(&format!(
        r#"{{"type":"message","id":"last0001","parentId":{parent},"timestamp":"2026-11-02T10:00:02.000Z","message":{{"role":"user","content":"last needle","timestamp":2}}}}"#
    ));
    let f = t.write("s.jsonl", file.as_bytes());
    let f = f.to_str().unwrap();
    let chunked = grep_in(&t.0, &["--json", "needle", f]);
    let whole = grep_in(&t.0, &["--json", "--since", "1970-01-01", "needle", f]);
    assert_eq!(chunked.status.code(), Some(0));
    assert_eq!(chunked.stdout, whole.stdout);
    assert_eq!(chunked.stderr, whole.stderr);
    let err = String::from_utf8_lossy(&chunked.stderr);
    assert!(err.contains(&format!("{f}:203: not valid JSON")), "{err}");
    // -c counts no lines as they go by: the warned line is counted to
    let count = grep_in(&t.0, &["-c", "needle", f]);
    let count_whole = grep_in(&t.0, &["-c", "--since", "1970-01-01", "needle", f]);
    assert_eq!(count.stdout, count_whole.stdout);
    assert_eq!(count.stderr, chunked.stderr);
    assert_eq!(count_whole.stderr, chunked.stderr);
    assert_eq!(
        String::from_utf8_lossy(&count.stdout),
        format!("{f}:{}\n", want.len())
    );
    let lines: Vec<u64> = String::from_utf8_lossy(&chunked.stdout)
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["line"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(lines, want);
}

/// No line is held beyond the loader's limit: a file of NULs, or a session
/// with a line longer than PI_SESSION_TOOLS_MAX_LINE, is an error naming
/// FILE:LINE (exit 2), without reading the rest into memory.
#[test]
fn a_line_beyond_the_limit_is_an_error() {
    let t = TempDir::new("grep-long");
    let zeros = t.write("zeros.jsonl", &vec![0u8; 300_000]);
    let mut long = SESSION.lines().next().unwrap().to_string();
    long.push('\n');
    long.push_str(&format!(
        r#"{{"type":"message","id":"long0001","parentId":null,"timestamp":"2026-11-02T10:00:01.000Z","message":{{"role":"user","content":"{}","timestamp":1}}}}"#,
        "a".repeat(200_000)
    ));
    long.push_str("\n{\"type\":\"label\",\"id\":\"y\",\"parentId\":null,\"label\":\"zzz\"}\n");
    let long = t.write("long.jsonl", long.as_bytes());
    // lines that come in one read (the reads are 128 KB): 70 KB
    let mut one_read = SESSION.lines().next().unwrap().to_string();
    one_read.push('\n');
    one_read.push_str(&format!(
        r#"{{"type":"message","id":"long0002","parentId":null,"timestamp":"2026-11-02T10:00:01.000Z","message":{{"role":"user","content":"zzz {}","timestamp":1}}}}"#,
        "a".repeat(70_000)
    ));
    one_read.push('\n');
    let one_read = t.write("one-read.jsonl", one_read.as_bytes());
    let header = format!(
        "{{\"type\":\"session\",\"version\":3,\"id\":\"{}\",\"timestamp\":\"2026-11-02T10:00:00.000Z\",\"cwd\":\"/p\"}}\nzzz\n",
        "a".repeat(100_000)
    );
    let header = t.write("header.jsonl", header.as_bytes());
    for (f, line) in [(&zeros, 1), (&long, 2), (&one_read, 2), (&header, 1)] {
        let f = f.to_str().unwrap();
        // read a chunk at a time, and whole (--since)
        for args in [vec!["zzz", f], vec!["--since", "1970-01-01", "zzz", f]] {
            let o = run_with("pi-grep", &args, None, |c| {
                c.env("PI_SESSION_TOOLS_MAX_LINE", "64K")
                    .stdin(Stdio::null());
            });
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{args:?} {err}");
            assert!(
                err.contains(&format!("{f}:{line}: line longer than 65536 bytes")),
                "{args:?} {err}"
            );
            assert!(o.stdout.is_empty());
        }
    }
}

/// Links back up a directory (a loop) and links that lead nowhere: each
/// file is searched once, and each such link is warned about, not
/// followed for ever.
#[cfg(unix)]
#[test]
fn link_loops_are_searched_once_and_warned_about() {
    use std::os::unix::fs::symlink;
    let t = TempDir::new("grep-loops");
    let d = t.0.join("d");
    std::fs::create_dir(&d).unwrap();
    std::fs::write(d.join("s.jsonl"), SESSION).unwrap();
    symlink(".", d.join("x")).unwrap();
    symlink(".", d.join("y")).unwrap();
    symlink("b.jsonl", d.join("a.jsonl")).unwrap();
    symlink("a.jsonl", d.join("b.jsonl")).unwrap();
    symlink("nowhere", d.join("c.jsonl")).unwrap();
    let ds = d.to_str().unwrap();
    let o = run_within(
        Command::new(bin("pi-grep"))
            .args(["-c", "migrate", ds])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
        std::time::Duration::from_secs(20),
        1 << 20,
        1 << 20,
    );
    assert!(!o.hung, "pi-grep followed a link loop");
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    // the one file, once, as a search of it alone counts it
    let alone = grep_out(&t.0, &["-c", "migrate", &format!("{ds}/s.jsonl")]);
    assert_eq!(out, alone, "{err}");
    assert_eq!(out.lines().count(), 1, "{out}");
    for w in [
        "x: a directory already searched",
        "y: a directory already searched",
        "a.jsonl:",
        "b.jsonl:",
        "c.jsonl:",
    ] {
        assert!(err.contains(&format!("{ds}/{w}")), "{w}: {err}");
    }
}

/// `-c` and `-l` count a text line from its first match to its end, the
/// next `\n` escape, without walking the escapes before it; the counts must
/// be those of the decoded text, on texts made of escapes: `\n` as a break
/// and as the letters `\` `n`, runs of backslashes before `n` and before a
/// match, quotes, matches at a text's edges and starting on an escape's
/// letter (`\nothing` is a break and "othing").
#[test]
fn counts_are_of_decoded_lines() {
    let parts = [
        "session",
        "nothing",
        "othing",
        "n",
        "\\",
        "\\n",
        "\\\\n",
        "\n",
        "\n\n",
        "\"",
        "café",
        "ses",
        "sion",
        " ",
        "\\nsession",
        "x\\",
        "\t",
    ];
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let mut texts: Vec<String> = Vec::new();
    let mut lines = vec![
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-11-02T10:00:00.000Z","cwd":"/p"}"#
            .to_string(),
    ];
    for i in 0..300 {
        let mut text = String::new();
        for _ in 0..1 + next(25) {
            text.push_str(parts[next(parts.len())]);
        }
        let message = match i % 3 {
            0 => serde_json::json!({"role":"user","content":text,"timestamp":1}),
            1 => {
                serde_json::json!({"role":"assistant","content":[{"type":"text","text":text}],"timestamp":1})
            }
            _ => {
                serde_json::json!({"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{"type":"text","text":text}],"isError":false,"timestamp":1})
            }
        };
        let parent = if i == 0 {
            serde_json::Value::Null
        } else {
            format!("e{}", i - 1).into()
        };
        lines.push(
            serde_json::json!({"type":"message","id":format!("e{i}"),"parentId":parent,"timestamp":"2026-11-02T10:00:01.000Z","message":message})
                .to_string(),
        );
        texts.push(text);
    }
    let t = TempDir::new("grep-counts");
    t.write("s.jsonl", (lines.join("\n") + "\n").as_bytes());
    for pat in ["session", "nothing", "othing", "n", "sion", "café", "ses"] {
        let want: usize = texts
            .iter()
            .map(|x| x.split('\n').filter(|l| l.contains(pat)).count())
            .sum();
        let got = grep_out(t.path(), &["-c", pat, "s.jsonl"]);
        let want_out = if want == 0 {
            String::new()
        } else {
            format!("s.jsonl:{want}\n")
        };
        assert_eq!(got, want_out, "-c {pat}");
        let json = grep_out(t.path(), &["--json", pat, "s.jsonl"]);
        assert_eq!(json.lines().count(), want, "--json {pat}");
        let files = grep_out(t.path(), &["-l", pat, "s.jsonl"]);
        assert_eq!(files, if want == 0 { "" } else { "s.jsonl\n" }, "-l {pat}");
    }
}

/// What pi sends of a system message is its content and then its
/// `sections` (getSystemMessageText: `Object.values`, so array-index keys
/// first and a repeated key in its first place with its last value; null
/// dropped), and of a compaction its `systemMessage` checkpoint before the
/// summary: pi-grep searches them all, under the fields `sections` and
/// `systemMessage`, on both reads of a line (the quick one of a compact
/// line, the plain one of a line with spaces).
#[test]
fn system_sections_and_compaction_checkpoints_are_searched() {
    let lines = [
        r#"{"type":"session","version":3,"id":"sess-sys","timestamp":"2026-11-02T10:00:00.000Z","cwd":"/p"}"#,
        r#"{"type":"message","id":"bbbb0001","parentId":null,"timestamp":"2026-11-02T10:00:01.000Z","message":{"role":"system","content":"prompt KEY-0","sections":{"b":"KEY-b1","1":"KEY-1","b":"KEY-b2","c":null,"d":""},"timestamp":1}}"#,
        r#"{"type":"compaction","id":"bbbb0002","parentId":"bbbb0001","timestamp":"2026-11-02T10:00:02.000Z","summary":"KEY-s","firstKeptEntryId":"bbbb0001","tokensBefore":5,"systemMessage":{"role":"system","content":[{"type":"text","text":"KEY-c"}],"sections":{"x":"KEY-\u0078"},"timestamp":1}}"#,
    ];
    let want = "s.jsonl:bbbb0001:system/text: prompt KEY-0\n\
                s.jsonl:bbbb0001:system/sections: KEY-1\n\
                s.jsonl:bbbb0001:system/sections: KEY-b2\n\
                s.jsonl:bbbb0002:compaction/systemMessage: KEY-c\n\
                s.jsonl:bbbb0002:compaction/systemMessage: KEY-x\n\
                s.jsonl:bbbb0002:compaction/summary: KEY-s\n";
    let t = TempDir::new("grep-system");
    for spaced in [false, true] {
        let text: String = lines
            .iter()
            .map(|l| match spaced {
                // JSON with spaces: the line checker does not take it.
                true => l.replace("\":", "\": ") + "\n",
                false => l.to_string() + "\n",
            })
            .collect();
        t.write("s.jsonl", text.as_bytes());
        assert_eq!(grep_out(t.path(), &["KEY", "s.jsonl"]), want, "{spaced}");
        assert_eq!(
            grep_out(
                t.path(),
                &["--in", "sections,systemMessage", "-c", "KEY", "s.jsonl"]
            ),
            "s.jsonl:4\n"
        );
        assert_eq!(
            grep_out(
                t.path(),
                &["--role", "system", "--in", "sections", "KEY-1", "s.jsonl"]
            ),
            "s.jsonl:bbbb0001:system/sections: KEY-1\n"
        );
    }
}

mod for_grep_users;
