//! pi-edit, driven as a user runs it, and compared with what pi 1.6.0's
//! appendContextEdit writes and the context pi builds afterwards.
use crate::common::*;

fn value(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

#[test]
fn edits_match_pi() {
    let (mut wrote, mut refused) = (0, 0);
    check_each(&cases("pi-edit"), 200, |c| {
        let dir = TempDir::new("edit");
        let copy = dir.write("s.jsonl", &std::fs::read(&c.session).unwrap());
        let before = std::fs::read(&copy).unwrap();
        let name = copy.to_str().unwrap().to_string();
        let mut args: Vec<&str> = vec![&name];
        args.extend(c.args.iter().map(String::as_str));
        let o = run("pi-edit", &args, None);
        let after = std::fs::read(&copy).unwrap();
        let pi = value(&c.stdout);
        let at = format!("{} {} ({})", c.session.display(), c.args.join(" "), c.what);
        if let Some(reason) = pi["error"].as_str() {
            refused += 1;
            let err = stderr(&o);
            if o.status.code() != Some(1)
                || !o.stdout.is_empty()
                || after != before
                || !err.contains(&format!("pi-edit: error: {name}:"))
                || !err.contains(reason)
            {
                return Err(format!(
                    "{at}: pi refuses ({reason}); exit {:?}, file changed: {}, stderr: {err}",
                    o.status.code(),
                    after != before
                ));
            }
            return Ok(());
        }
        wrote += 1;
        if !o.status.success() {
            return Err(format!("{at}: exit {:?}: {}", o.status.code(), stderr(&o)));
        }
        let Some(added) = after.strip_prefix(&before[..]) else {
            return Err(format!("{at}: the file was not only appended to"));
        };
        let added = String::from_utf8_lossy(added).into_owned();
        let lines: Vec<&str> = added.lines().collect();
        let pi_line = pi["line"].as_str().unwrap();
        if lines.len() != 1 || blank_id_and_time(lines[0]) != blank_id_and_time(pi_line) {
            return Err(format!(
                "{at}: appended\n  {added}\n  pi writes\n  {pi_line}"
            ));
        }
        let new_id = stdout(&o).trim().to_string();
        if !lines[0].contains(&format!("\"id\":\"{new_id}\"")) {
            return Err(format!("{at}: printed {new_id}, appended {}", lines[0]));
        }
        // pi's buildSessionContext on the file after the write.
        let ctx = run("pi-path", &["--format", "context", &name], None);
        if value(&stdout(&ctx)) != pi["context"] {
            return Err(format!(
                "{at}: the context after the edit differs from pi's\n  want {}\n  got  {}",
                pi["context"],
                stdout(&ctx)
            ));
        }
        Ok(())
    });
    assert!(
        wrote > 150 && refused > 100,
        "{wrote} writes, {refused} refusals"
    );
}

const KEY: &str = "sk-ABCDEFGHIJKLMNOPQRSTUVWX";

/// A session with the key in every place the model reads it from an
/// editable entry: string content, text, thinking, tool-call arguments
/// (nested), a tool result, a custom message; and an earlier edit in force.
fn secret_session() -> String {
    let k = KEY;
    let lines = [
        message(
            "a0000001",
            None,
            &format!(r#"{{"role":"user","content":"my key is {k} ok","timestamp":1}}"#),
        ),
        message(
            "a0000002",
            Some("a0000001"),
            &format!(
                r#"{{"role":"assistant","content":[{{"type":"thinking","thinking":"the key {k}","thinkingSignature":"sig"}},{{"type":"text","text":"I use {k} and {k}"}},{{"type":"toolCall","id":"c1","name":"bash","arguments":{{"command":"curl -H 'k: {k}'","n":[1,{{"x":"{k}"}}]}}}}],"api":"x","provider":"p","model":"m","usage":{{}},"stopReason":"toolUse","timestamp":2}}"#
            ),
        ),
        message(
            "a0000003",
            Some("a0000002"),
            &format!(
                r#"{{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{{"type":"text","text":"echo {k}"}},{{"type":"image","data":"AAAA","mimeType":"image/png"}}],"isError":false,"timestamp":3}}"#
            ),
        ),
        format!(
            r#"{{"type":"custom_message","customType":"ext","content":"cm {k}","display":true,"id":"a0000004","parentId":"a0000003","timestamp":"2026-07-20T09:00:04.000Z"}}"#
        ),
        message(
            "a0000005",
            Some("a0000004"),
            r#"{"role":"user","content":[{"type":"text","text":"fine"}],"timestamp":5}"#,
        ),
        // An earlier edit puts the key into what the model sees of a0000005.
        format!(
            r#"{{"type":"context_edit","id":"a0000006","parentId":"a0000005","timestamp":"2026-07-20T09:00:06.000Z","targetId":"a0000005","replacement":{{"content":"edited, with {k}"}}}}"#
        ),
    ];
    session(&lines)
}

/// What the model is sent, pi-path's messages and every pi-convert
/// transcript hold no match. (Only `--include-hidden` shows an edited
/// entry's original beside the edit: the key is still in the file.)
fn no_key_left(file: &str) {
    for (tool, args) in [
        ("pi-path", vec!["--format", "messages", file]),
        ("pi-path", vec!["--format", "context", file]),
        ("pi-convert", vec!["--to", "llm", file]),
        ("pi-convert", vec!["--to", "markdown", file]),
        ("pi-convert", vec!["--to", "html", file]),
        ("pi-convert", vec!["--to", "text", file]),
    ] {
        let o = run(tool, &args, None);
        assert!(o.status.success(), "{tool} {args:?}: {}", stderr(&o));
        let out = stdout(&o);
        assert!(!out.is_empty());
        assert!(
            !out.contains("sk-ABCDEFGHIJKL"),
            "{tool} {args:?} still shows the key:\n{out}"
        );
    }
}

#[test]
fn redact_leaves_no_match_in_what_the_model_sees() {
    // (the originals are in the file still, and shown on request)
    let dir = TempDir::new("redact");
    let f = dir.write("s.jsonl", secret_session().as_bytes());
    let name = f.to_str().unwrap();
    let before = std::fs::read(&f).unwrap();
    let pattern = "sk-[A-Za-z0-9]{20,}";

    let dry = run("pi-edit", &[name, "--redact", pattern, "--dry-run"], None);
    assert!(dry.status.success(), "{}", stderr(&dry));
    assert_eq!(
        stdout(&dry),
        "a0000001\t1\t-\na0000002\t5\t-\na0000003\t1\t-\na0000004\t1\t-\na0000005\t1\t-\n"
    );
    assert_eq!(std::fs::read(&f).unwrap(), before, "--dry-run wrote");

    let o = run(
        "pi-edit",
        &[name, "--redact", pattern, "--with", "[K]"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let printed: Vec<Vec<String>> = stdout(&o)
        .lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect();
    assert_eq!(printed.len(), 5);
    let after = String::from_utf8(std::fs::read(&f).unwrap()).unwrap();
    let added: Vec<&str> = after[before.len()..].lines().collect();
    assert_eq!(added.len(), 5);
    // Chained: each new entry's parent is the one before; ids as printed.
    let mut parent = "a0000006".to_string();
    for (line, p) in added.iter().zip(&printed) {
        let v = value(line);
        assert_eq!(v["type"], "context_edit");
        assert_eq!(v["targetId"], p[0].as_str());
        assert_eq!(v["id"], p[2].as_str());
        assert_eq!(v["parentId"], parent.as_str());
        parent = p[2].clone();
    }
    let a2 = value(added[1]);
    let blocks = &a2["replacement"]["content"];
    assert_eq!(blocks[0]["thinking"], "the key [K]");
    assert!(blocks[0].get("thinkingSignature").is_none());
    assert_eq!(blocks[1]["text"], "I use [K] and [K]");
    assert_eq!(blocks[2]["arguments"]["command"], "curl -H 'k: [K]'");
    assert_eq!(blocks[2]["arguments"]["n"][1]["x"], "[K]");
    assert_eq!(blocks[2]["id"], "c1");
    let a3 = value(added[2]);
    assert_eq!(a3["replacement"]["content"][1]["type"], "image");
    no_key_left(name);

    // Nothing left: exit 1 (like grep), file untouched.
    let now = std::fs::read(&f).unwrap();
    let again = run("pi-edit", &[name, "--redact", pattern], None);
    assert_eq!(again.status.code(), Some(1), "{}", stderr(&again));
    assert!(stdout(&again).is_empty());
    assert_eq!(std::fs::read(&f).unwrap(), now);
}

#[test]
fn redact_says_what_it_cannot_change() {
    let k = KEY;
    let lines = [
        message(
            "b0000001",
            None,
            &format!(
                r#"{{"role":"bashExecution","command":"echo {k}","output":"x","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1}}"#
            ),
        ),
        message(
            "b0000002",
            Some("b0000001"),
            &format!(
                r#"{{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{{"type":"text","text":"ok"}}],"details":{{"out":"{k}"}},"isError":false,"timestamp":2}}"#
            ),
        ),
    ];
    let dir = TempDir::new("redact-warn");
    let f = dir.write("s.jsonl", session(&lines).as_bytes());
    // Still sent where no edit reaches: exit 3 (not 1, "no match"), even
    // with -q, naming the entry and the field.
    for quiet in [false, true] {
        let mut args = vec![f.to_str().unwrap(), "--redact", "sk-[A-Z]+"];
        if quiet {
            args.push("-q");
        }
        let o = run_untouched("pi-edit", &args, &f);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(3), "{err}");
        assert!(o.stdout.is_empty());
        assert!(
            err.contains("s.jsonl:2: entry b0000001 still sends 1 match in message.command, which pi-edit cannot change: a message (bashExecution) cannot be edited"),
            "{err}"
        );
        assert!(
            err.contains("s.jsonl:3: entry b0000002 still sends 1 match in message.details.out, which pi-edit cannot change: a context edit changes only the content"),
            "{err}"
        );
        assert!(err.contains("every match on the active branch is where no context edit can change it (above); nothing written"), "{err}");
    }
}

/// A compaction's summary and system prompt, and a system message's
/// sections, are sent and cannot be edited: the editable matches are
/// redacted, and the exit status (3) says that the secret is still sent.
#[test]
fn redact_exits_3_when_pi_still_sends_a_match() {
    let k = KEY;
    let lines = [
        message(
            "c0000001",
            None,
            &format!(
                r#"{{"role":"system","content":"be brief","sections":{{"<keys>":"use {k}"}},"timestamp":1}}"#
            ),
        ),
        user("c0000002", Some("c0000001"), &format!("old {k}")),
        format!(
            r#"{{"type":"compaction","id":"c0000003","parentId":"c0000002","timestamp":"2026-07-20T09:00:03.000Z","summary":"the user gave {k}","firstKeptEntryId":"c0000002","tokensBefore":5,"systemMessage":{{"role":"system","content":"key {k}","sections":{{"a":"{k}","b":"{k} {k}"}},"timestamp":2}}}}"#
        ),
        user("c0000004", Some("c0000003"), &format!("now {k}")),
    ];
    let dir = TempDir::new("redact-still");
    let f = dir.write("s.jsonl", session(&lines).as_bytes());
    let name = f.to_str().unwrap();
    let dry = run_untouched("pi-edit", &[name, "--redact", "sk-[A-Z]+", "--dry-run"], &f);
    assert_eq!(dry.status.code(), Some(3), "{}", stderr(&dry));
    assert_eq!(stdout(&dry), "c0000002\t1\t-\nc0000004\t1\t-\n");
    let o = run("pi-edit", &[name, "--redact", "sk-[A-Z]+", "-q"], None);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert_eq!(stdout(&o).lines().count(), 2, "the edits are written");
    for want in [
        "s.jsonl:4: entry c0000003 still sends 4 matches in systemMessage.content and 2 more fields, which pi-edit cannot change: a compaction cannot be edited",
        "s.jsonl:4: entry c0000003 still sends 1 match in summary, which pi-edit cannot change: a compaction cannot be edited",
    ] {
        assert!(err.contains(want), "{want}\n{err}");
    }
    // The system message before the compaction is not sent any more, but
    // the whole-branch transcripts show it: said, and not counted as sent.
    assert!(!err.contains("entry c0000001 still sends"), "{err}");
    assert!(
        err.contains(r#"s.jsonl:2: entry c0000001 still shows 1 match in message.sections["<keys>"] in the whole-branch transcript (not sent), which pi-edit cannot change: a message (system) cannot be edited"#),
        "{err}"
    );
    // Without the compaction, the system message's sections are sent.
    let plain = dir.write(
        "plain.jsonl",
        session(&[lines[0].clone(), lines[1].clone()]).as_bytes(),
    );
    let o = run(
        "pi-edit",
        &[plain.to_str().unwrap(), "--redact", "sk-[A-Z]+"],
        None,
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(r#"plain.jsonl:2: entry c0000001 still sends 1 match in message.sections["<keys>"], which pi-edit cannot change: a message (system) cannot be edited"#),
        "{}",
        stderr(&o)
    );
}

/// A secret before a compaction is no longer sent, but the whole-branch
/// transcripts (markdown, text, the page) show it: --redact edits those
/// entries too (pi takes an edit of any entry on the active branch), and
/// what pi sends does not change. What no edit reaches there is said and
/// leaves the exit status alone.
#[test]
fn redact_covers_the_branch_before_a_compaction() {
    let k = KEY;
    let lines = [
        user("e0000001", None, &format!("my key is {k}")),
        text_message(
            "e0000002",
            Some("e0000001"),
            "assistant",
            &format!("noted {k}"),
        ),
        format!(
            r#"{{"type":"branch_summary","id":"e0000003","parentId":"e0000002","timestamp":"2026-07-20T09:00:03.000Z","fromId":"e0000002","summary":"tried {k}"}}"#
        ),
        r#"{"type":"compaction","id":"e0000004","parentId":"e0000003","timestamp":"2026-07-20T09:00:04.000Z","summary":"the user set up a key","firstKeptEntryId":"e0000005","tokensBefore":5}"#.to_string(),
        user("e0000005", Some("e0000004"), "go on"),
    ];
    let dir = TempDir::new("redact-branch");
    let f = dir.write("s.jsonl", session(&lines).as_bytes());
    let name = f.to_str().unwrap();
    let sent = |f: &str| run("pi-convert", &[f], None).stdout;
    let before = sent(name);
    assert!(!String::from_utf8_lossy(&before).contains(k));
    for to in ["markdown", "text", "html"] {
        assert!(stdout(&run("pi-convert", &["--to", to, name], None)).contains(k));
    }
    let o = run("pi-edit", &[name, "--redact", "sk-[A-Z]+", "--force"], None);
    let err = stderr(&o);
    // Nothing left that pi sends: 0, though the branch summary still shows.
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(stdout(&o).lines().count(), 2, "{}", stdout(&o));
    assert!(stdout(&o).starts_with("e0000001\t1\t"), "{}", stdout(&o));
    assert!(
        err.contains("s.jsonl:4: entry e0000003 still shows 1 match in summary in the whole-branch transcript (not sent), which pi-edit cannot change: a branch_summary cannot be edited"),
        "{err}"
    );
    assert!(!err.contains("still sends"), "{err}");
    // What pi sends is the same bytes.
    assert_eq!(sent(name), before);
    for to in ["markdown", "text", "html"] {
        let out = stdout(&run("pi-convert", &["--to", to, name], None));
        assert!(out.contains("my key is [REDACTED]"), "{to}: {out}");
        assert!(out.contains("noted [REDACTED]"), "{to}: {out}");
        // Only the branch summary, which no edit reaches, still holds it
        // (the page shows it twice: in the tree and in the entry).
        assert!(out.contains(&format!("tried {k}")), "{to}: {out}");
        let rest = out.replace(&format!("tried {k}"), "");
        assert!(!rest.contains(k), "{to}: {rest}");
    }
    // Again: every match left is one no edit reaches; nothing written.
    let o = run_untouched("pi-edit", &[name, "--redact", "sk-[A-Z]+"], &f);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    assert!(stderr(&o)
        .contains("every match on the active branch is where no context edit can change it"));
}

/// The role and the timestamp are not text the model is sent: a pattern
/// that matches only them matches nothing (exit 1, as before).
#[test]
fn redact_does_not_count_the_role_or_the_timestamp() {
    let dir = TempDir::new("redact-role");
    let f = dir.write(
        "s.jsonl",
        session(&[user("d0000001", None, "hello")]).as_bytes(),
    );
    for pattern in ["^user$", "^1$"] {
        let o = run_untouched("pi-edit", &[f.to_str().unwrap(), "--redact", pattern], &f);
        assert_eq!(o.status.code(), Some(1), "{pattern}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("no match in what the model sees"),
            "{pattern}: {}",
            stderr(&o)
        );
        // Nothing else: no warning of a match outside the text either.
        assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    }
}

/// Matches on other branches are said (pi sends them again if the session
/// goes on from there; pi takes no edit of them): the count, and the first
/// five entries by FILE:LINE.
#[test]
fn redact_names_matches_on_other_branches() {
    let k = KEY;
    let mut lines = vec![user("e0000001", None, &format!("root {k}"))];
    for n in 0..7 {
        lines.push(user(
            &format!("e100000{n}"),
            Some("e0000001"),
            &format!("side {n} {k} {k}"),
        ));
    }
    lines.push(user("e0000002", Some("e0000001"), "the leaf"));
    let dir = TempDir::new("redact-branches");
    let f = dir.write("s.jsonl", session(&lines).as_bytes());
    let o = run(
        "pi-edit",
        &[f.to_str().unwrap(), "--redact", "sk-[A-Z]+"],
        None,
    );
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert_eq!(
        stdout(&o).lines().count(),
        1,
        "only the active path is edited"
    );
    assert!(
        err.contains("s.jsonl: 14 matches in 7 entries on other branches, not on the active path"),
        "{err}"
    );
    for n in 0..5 {
        let want = format!(
            "s.jsonl:{}: entry e100000{n}: 2 matches on another branch",
            n + 3
        );
        assert!(err.contains(&want), "{want}\n{err}");
    }
    assert!(!err.contains("entry e1000005"), "{err}");
    assert!(
        err.contains("s.jsonl: and 2 more entries on other branches"),
        "{err}"
    );
}

/// A lone surrogate (`\udXXX`) outside a match keeps its bytes (it was
/// made U+FFFD), and tool-call argument keys that redact to the same text
/// keep every value (`[REDACTED]`, `[REDACTED] (2)`, ...).
#[test]
fn redact_keeps_lone_surrogates_and_every_value_of_colliding_keys() {
    let k = KEY;
    let lines = [
        user(
            "f0000001",
            None,
            &format!(r"a\ud800b {k} c\uDFFFd \ud83d\ude00"),
        ),
        message(
            "f0000002",
            Some("f0000001"),
            &format!(
                r#"{{"role":"assistant","content":[{{"type":"toolCall","id":"c1","name":"x","arguments":{{"{k}":1,"[REDACTED]":2,"sk-ZZZZ":3,"q\udc00":"{k}"}}}}],"api":"x","provider":"p","model":"m","usage":{{}},"stopReason":"toolUse","timestamp":2}}"#
            ),
        ),
    ];
    let dir = TempDir::new("redact-units");
    let f = dir.write("s.jsonl", session(&lines).as_bytes());
    let name = f.to_str().unwrap();
    let before = std::fs::read_to_string(&f).unwrap();
    let o = run("pi-edit", &[name, "--redact", "sk-[A-Z]+"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let after = std::fs::read_to_string(&f).unwrap();
    let added: Vec<&str> = after[before.len()..].lines().collect();
    assert_eq!(added.len(), 2);
    assert!(
        added[0].contains(r#""replacement":{"content":"a\ud800b [REDACTED] c\udfffd 😀"}"#),
        "{}",
        added[0]
    );
    assert!(
        added[1].contains(r#""arguments":{"[REDACTED] (2)":1,"[REDACTED]":2,"[REDACTED] (3)":3,"q\udc00":"[REDACTED]"}"#),
        "{}",
        added[1]
    );
    // What pi then sends, as pi-path computes it.
    let ctx = stdout(&run("pi-path", &["--format", "context", name], None));
    assert!(
        ctx.contains(r#""content":"a\ud800b [REDACTED] c\udfffd 😀""#),
        "{ctx}"
    );
}

#[test]
fn omit_then_restore_gives_back_the_unedited_context() {
    let dir = TempDir::new("restore");
    let f = dir.write("s.jsonl", secret_session().as_bytes());
    let name = f.to_str().unwrap();
    let ctx = |n: &str| value(&stdout(&run("pi-path", &["--format", "context", n], None)));
    // The context without any edit: the session before its edit line.
    let plain = dir.write(
        "plain.jsonl",
        secret_session()
            .rsplit_once("{\"type\":\"context_edit\"")
            .unwrap()
            .0
            .as_bytes(),
    );
    let original = ctx(plain.to_str().unwrap());
    for r in ["a0000002", "a0000004", "a0000001"] {
        assert!(run("pi-edit", &[name, r, "--omit"], None).status.success());
    }
    assert!(
        run("pi-edit", &[name, "a0000003", "--replace", "short"], None)
            .status
            .success()
    );
    let list = stdout(&run("pi-edit", &[name, "--list"], None));
    assert_eq!(list.lines().count(), 5, "{list}");
    assert!(
        list.lines()
            .any(|l| l.starts_with("a0000003\treplace\t") && l.ends_with("\ttoolResult")),
        "{list}"
    );
    let json = stdout(&run("pi-edit", &[name, "--list", "--json"], None));
    let first = value(json.lines().next().unwrap());
    assert_eq!(first["target"], "a0000001");
    assert_eq!(first["kind"], "omit");
    assert_eq!(first["after"], 0);
    for r in ["a0000001", "a0000002", "a0000003", "a0000004", "a0000005"] {
        let o = run("pi-edit", &[name, r, "--restore"], None);
        assert!(o.status.success(), "{r}: {}", stderr(&o));
    }
    assert_eq!(ctx(name), original);
    assert_eq!(
        stdout(&run("pi-edit", &[name, "--list"], None))
            .lines()
            .count(),
        5
    );
    // Nothing left to restore: no-op, exit 0, file untouched.
    let now = std::fs::read(&f).unwrap();
    let o = run("pi-edit", &[name, "a0000002", "--restore"], None);
    assert!(o.status.success());
    assert_stderr_has(&o, "nothing written");
    assert!(stdout(&o).is_empty());
    assert_eq!(std::fs::read(&f).unwrap(), now);
}

#[test]
fn refusals_leave_the_file_untouched() {
    let dir = TempDir::new("edit-refuse");
    let f = dir.write("s.jsonl", secret_session().as_bytes());
    let name = f.to_str().unwrap();
    let bad_utf8 = dir.write("bad.txt", b"\xff\xfe");
    let bad = bad_utf8.to_str().unwrap();
    for (args, code, says) in [
        (
            vec!["a0000006", "--omit"],
            1,
            "s.jsonl:7: Entry a0000006 does not contribute editable model content",
        ),
        (
            vec!["a0000001", "--replace-json", "42"],
            1,
            "Context edit replacement must be null or contain string/array content",
        ),
        (
            vec!["a0000001", "--replace-json", "{"],
            2,
            "--replace-json: not valid JSON",
        ),
        (
            vec!["a0000001", "--replace-file", bad],
            1,
            "not valid UTF-8",
        ),
        (
            vec!["ffff0000", "--omit"],
            1,
            "no entry has an id starting with 'ffff0000'",
        ),
        (vec!["a0000001"], 2, "say how to edit REF"),
        (vec!["--redact", "x*"], 2, "matches the empty string"),
        (vec!["--redact", "("], 2, "not a valid pattern"),
    ] {
        let mut a = vec![name];
        a.extend(args.iter().copied());
        let o = run_untouched("pi-edit", &a, &f);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    // A version-1 file: pi would renumber its entries.
    let v1 = dir.write("v1.jsonl", v1_session("x", ["hi".into()]).as_bytes());
    let o = run_untouched("pi-edit", &[v1.to_str().unwrap(), "leaf", "--omit"], &v1);
    assert_eq!(o.status.code(), Some(1));
    assert_stderr_has(&o, "run `pi-migrate -i` first");
}

#[test]
fn stdin_and_replace_file() {
    let text = secret_session();
    let o = run(
        "pi-edit",
        &["-", "a0000001", "--omit"],
        Some(text.as_bytes()),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with(&text));
    let v = value(out[text.len()..].trim_end());
    assert_eq!(v["targetId"], "a0000001");
    assert_eq!(v["replacement"], serde_json::Value::Null);
    assert_eq!(v["parentId"], "a0000006");

    let dir = TempDir::new("edit-file");
    let f = dir.write("s.jsonl", text.as_bytes());
    let name = f.to_str().unwrap();
    let o = run(
        "pi-edit",
        &[name, "a0000002", "--replace-file", "-"],
        Some("from\nstdin\n".as_bytes()),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let after = std::fs::read_to_string(&f).unwrap();
    let v = value(after.lines().last().unwrap());
    assert_eq!(
        v["replacement"],
        serde_json::json!({"content": [{"type": "text", "text": "from\nstdin\n"}]})
    );
    let o = run(
        "pi-edit",
        &["-", "a0000002", "--replace-file", "-"],
        Some(text.as_bytes()),
    );
    assert_eq!(o.status.code(), Some(2));
}

/// `--replace-file` reads a file or a pipe to at most the line limit: a
/// device (`/dev/zero`, which never ends) or a directory is refused at
/// once, a text longer than the limit is refused, both with the file left
/// as it was; a FIFO is read as a pipe (`<(...)`).
#[test]
fn replace_file_is_read_within_bounds() {
    let dir = TempDir::new("edit-replace-bounds");
    let f = dir.write("s.jsonl", secret_session().as_bytes());
    let name = f.to_str().unwrap();
    let before = std::fs::read(&f).unwrap();
    let long = dir.write("long.txt", &vec![b'a'; 100 << 10]);
    let d = dir.path().to_str().unwrap();
    for (file, stdin, says) in [
        ("/dev/zero", None, "/dev/zero: not a regular file or a pipe"),
        (d, None, "not a regular file or a pipe"),
        (long.to_str().unwrap(), None, "longer than 65536 bytes"),
        (
            "-",
            Some(vec![b'b'; 100 << 10]),
            "-: longer than 65536 bytes",
        ),
    ] {
        let mut cmd = command("pi-edit", &[name, "a0000002", "--replace-file", file]);
        cmd.env("PI_SESSION_TOOLS_MAX_LINE", "64K")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let input = stdin.clone();
        let mut child = cmd.spawn().unwrap();
        let mut si = child.stdin.take().unwrap();
        let feeder = std::thread::spawn(move || {
            use std::io::Write;
            if let Some(b) = input {
                let _ = si.write_all(&b);
            }
        });
        let start = std::time::Instant::now();
        let o = loop {
            if child.try_wait().unwrap().is_some() {
                break child.wait_with_output().unwrap();
            }
            if start.elapsed() > std::time::Duration::from_secs(20) {
                let _ = child.kill();
                panic!("--replace-file {file}: still reading after 20 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        feeder.join().unwrap();
        assert_eq!(o.status.code(), Some(1), "{file}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{file}: {}", stderr(&o));
        assert_eq!(std::fs::read(&f).unwrap(), before, "{file}");
    }
    // A FIFO, written by another thread that comes late: read as a pipe,
    // waiting for its writer (it was read as empty when no writer had
    // opened it yet).
    let fifo = dir.path().join("text.fifo");
    let st = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(st.success());
    let w = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            std::fs::write(&fifo, "from a pipe").unwrap()
        })
    };
    let o = run(
        "pi-edit",
        &[name, "a0000002", "--replace-file", fifo.to_str().unwrap()],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let after = std::fs::read_to_string(&f).unwrap();
    assert!(
        after.lines().last().unwrap().contains("from a pipe"),
        "{after}"
    );
    // Joined once the tool read it: a tool that did not wait leaves the
    // writer blocked in open for ever.
    w.join().unwrap();
}
