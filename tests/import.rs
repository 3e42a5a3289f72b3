//! pi-import, driven as a user runs it: small Claude Code and Codex sessions
//! of our own, in the shapes real files have (chunks of one message,
//! parallel calls, progress lines, branches, compactions, write gaps, torn
//! lines, sidechains), imported and read back with the other tools.
use crate::common::*;
use serde_json::{json, Value};
use std::path::Path;

const CWD: &str = "/home/dev/src/app";

fn line(v: Value) -> String {
    format!("{v}\n")
}

/// A Claude Code line of `kind` with the fields every line has.
fn cc(kind: &str, uuid: &str, parent: Option<&str>, t: u32, extra: Value) -> String {
    let mut o = json!({"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s-1",
        "cwd": CWD, "version": "2.1.30", "isSidechain": false, "userType": "external",
        "timestamp": format!("2026-01-05T09:{:02}:{:02}.000Z", t / 60, t % 60)});
    for (k, v) in extra.as_object().unwrap() {
        o[k] = v.clone();
    }
    line(o)
}

fn cc_user(uuid: &str, parent: Option<&str>, t: u32, content: Value) -> String {
    cc(
        "user",
        uuid,
        parent,
        t,
        json!({"message": {"role": "user", "content": content}}),
    )
}

fn cc_assistant(uuid: &str, parent: &str, t: u32, id: &str, blocks: Value, stop: Value) -> String {
    let message = json!({"id": id, "role": "assistant", "model": "claude-sonnet-4-5", "content": blocks,
        "stop_reason": stop, "usage": {"input_tokens": 10, "output_tokens": 5,
        "cache_creation_input_tokens": 100, "cache_read_input_tokens": 1000}});
    cc(
        "assistant",
        uuid,
        Some(parent),
        t,
        json!({ "message": message }),
    )
}

fn tool_result(id: &str, text: &str) -> Value {
    json!([{"type": "tool_result", "tool_use_id": id, "content": text}])
}

/// A Claude Code session: a message in three chunks with two parallel
/// calls (a progress line beside them, the second chunk under the first
/// result), a branch (two prompts under one answer), a compaction, a
/// sidechain, a write gap and a torn line.
fn claude_session() -> String {
    let mut s = String::new();
    s += &line(json!({"type": "file-history-snapshot", "messageId": "u1", "snapshot": {}}));
    s += &cc_user("u1", None, 0, json!("first question"));
    s += &cc_assistant(
        "a1",
        "u1",
        1,
        "m1",
        json!([{"type": "thinking", "thinking": "hmm", "signature": "SIG"}]),
        Value::Null,
    );
    s += &cc_assistant(
        "a1b",
        "a1",
        2,
        "m1",
        json!([{"type": "tool_use", "id": "t1", "name": "Read", "input": {"p": 1}}]),
        Value::Null,
    );
    s += &cc(
        "progress",
        "p1",
        Some("a1b"),
        3,
        json!({"data": {"type": "hook_progress"}}),
    );
    s += &cc_user("r1", Some("a1b"), 4, tool_result("t1", "result one"));
    s += &cc_assistant(
        "a1c",
        "r1",
        5,
        "m1",
        json!([{"type": "tool_use", "id": "t2", "name": "Grep", "input": {}}]),
        json!("tool_use"),
    );
    // The same block written twice counts once.
    s += &cc_assistant(
        "a1d",
        "a1c",
        5,
        "m1",
        json!([{"type": "tool_use", "id": "t2", "name": "Grep", "input": {}}]),
        json!("tool_use"),
    );
    s += &cc_user("r2", Some("a1d"), 6, tool_result("t2", "result two"));
    s += &cc_assistant(
        "a2",
        "r2",
        7,
        "m2",
        json!([{"type": "text", "text": "answer one"}]),
        json!("end_turn"),
    );
    s += &cc_user("u2", Some("a2"), 8, json!("left branch prompt"));
    s += &cc_assistant(
        "a3",
        "u2",
        9,
        "m3",
        json!([{"type": "text", "text": "left branch answer"}]),
        json!("end_turn"),
    );
    s += "{\"type\":\"assistant\",\"uuid\":\"torn\",\"mess{\"type\":\"file-history-snapshot\"}\n";
    s += &cc_user(
        "u3",
        Some("a2"),
        10,
        json!([{"type": "text", "text": "right branch prompt"}]),
    );
    s += &cc_assistant(
        "a4",
        "u3",
        11,
        "m4",
        json!([{"type": "tool_use", "id": "t3", "name": "Bash", "input": {"command": "ls"}}]),
        json!("tool_use"),
    );
    // t3 never gets a result: the session was cut there, then resumed.
    s += &cc(
        "system",
        "cb",
        None,
        12,
        json!({"subtype": "compact_boundary", "logicalParentUuid": "a4",
        "compactMetadata": {"trigger": "manual", "preTokens": 5000}}),
    );
    s += &cc(
        "user",
        "cs",
        Some("cb"),
        13,
        json!({"isCompactSummary": true,
        "message": {"role": "user", "content": "summary of all before"}}),
    );
    s += &cc_user("u4", Some("cs"), 14, json!("after compaction"));
    // A sidechain run, rooted apart, written into the main file.
    s += &cc(
        "user",
        "sc1",
        None,
        15,
        json!({"isSidechain": true, "message": {"role": "user", "content": "subagent task"}}),
    );
    // A write gap: the parent was never written.
    s += &cc_assistant(
        "a5",
        "never-written",
        16,
        "m5",
        json!([{"type": "text", "text": "final answer"}]),
        json!("end_turn"),
    );
    s += &line(json!({"type": "summary", "summary": "the title", "leafUuid": "a5"}));
    s
}

fn codex_session() -> String {
    let r = |t: u32, ty: &str, p: Value| {
        line(
            json!({"timestamp": format!("2026-01-06T14:00:{t:02}.000Z"), "type": ty, "payload": p}),
        )
    };
    let user = |t: u32, text: &str| {
        r(
            t,
            "response_item",
            json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}),
        )
    };
    let call = |t: u32, id: &str| {
        r(
            t,
            "response_item",
            json!({"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"ls\"]}", "call_id": id}),
        )
    };
    let out = |t: u32, id: &str| {
        r(
            t,
            "response_item",
            json!({"type": "function_call_output", "call_id": id, "output": format!("out {id}")}),
        )
    };
    let say = |t: u32, text: &str| {
        r(
            t,
            "response_item",
            json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}),
        )
    };
    let mut s = r(
        0,
        "session_meta",
        json!({"id": "c-1", "timestamp": "2026-01-06T14:00:00.000Z", "cwd": CWD, "model_provider": "openai"}),
    );
    s += &r(1, "turn_context", json!({"model": "gpt-5.1-codex"}));
    s += &user(2, "turn one");
    s += &r(
        3,
        "response_item",
        json!({"type": "reasoning", "summary": [{"type": "summary_text", "text": "thinking one"}], "encrypted_content": "E"}),
    );
    s += &call(3, "c1");
    s += &call(3, "c2");
    s += &r(
        4,
        "event_msg",
        json!({"type": "token_count", "info": {"last_token_usage": {"input_tokens": 100, "cached_input_tokens": 60, "output_tokens": 7, "total_tokens": 107}}}),
    );
    s += &r(
        4,
        "response_item",
        json!({"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "dev note"}]}),
    );
    s += &out(5, "c2");
    s += &out(5, "c1");
    s += &say(6, "answer one");
    s += &user(7, "turn two (rolled back)");
    s += &say(8, "answer two");
    s += &r(
        9,
        "event_msg",
        json!({"type": "thread_rolled_back", "num_turns": 1}),
    );
    s += &user(10, "turn two again");
    s += &call(11, "c3");
    s
}

fn import_to_stdout(src: &Path, extra: &[&str]) -> (String, String) {
    let mut args = vec![src.to_str().unwrap(), "-o", "-"];
    args.extend_from_slice(extra);
    let o = run("pi-import", &args, None);
    assert!(o.status.success(), "{}", stderr(&o));
    (stdout(&o), stderr(&o))
}

/// pi-path's context messages at pi's leaf.
fn context(session: &str) -> Vec<Value> {
    let o = run(
        "pi-path",
        &["--format", "messages"],
        Some(session.as_bytes()),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn leaves(session: &str) -> usize {
    let o = run("pi-path", &["--leaves"], Some(session.as_bytes()));
    assert!(o.status.success(), "{}", stderr(&o));
    stdout(&o).lines().count()
}

/// Every tool call of the context is followed by its results, in order.
#[track_caller]
fn assert_pairs(msgs: &[Value]) {
    for (i, m) in msgs.iter().enumerate() {
        if m["role"] != "assistant" {
            continue;
        }
        let calls: Vec<&Value> = m["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["type"] == "toolCall")
            .map(|b| &b["id"])
            .collect();
        let results: Vec<&Value> = msgs[i + 1..]
            .iter()
            .take_while(|r| r["role"] == "toolResult")
            .map(|r| &r["toolCallId"])
            .collect();
        assert_eq!(calls, results, "message {i}: calls and results differ");
    }
}

#[test]
fn claude_code_tree_is_kept() {
    let dir = TempDir::new("import-cc");
    let src = dir.write("s-1.jsonl", claude_session().as_bytes());
    let (out, err) = import_to_stdout(&src, &[]);
    assert!(err.contains("s-1.jsonl:13: not JSON"), "{err}");
    assert!(err.contains("1 tool call(s) had no result"), "{err}");
    let header: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(header["version"], 3);
    assert_eq!(header["cwd"], CWD);
    assert_eq!(header["importedFrom"]["agent"], "claude-code");
    assert_eq!(header["importedFrom"]["sessionId"], "s-1");
    // Texts of the source, each once.
    for t in [
        "first question",
        "result one",
        "result two",
        "answer one",
        "left branch prompt",
        "left branch answer",
        "right branch prompt",
        "summary of all before",
        "after compaction",
        "subagent task",
        "final answer",
        "the title",
        "hook_progress",
    ] {
        assert!(out.contains(t), "{t} is missing");
    }
    assert_eq!(out.matches("\"toolCall\"").count(), 3, "t2 is there once");
    assert!(out.contains("\"thinkingSignature\":\"SIG\""));
    // Leaves: the left branch, the sidechain, pi's leaf.
    assert_eq!(leaves(&out), 3, "{out}");
    // pi continues at the message written last (not the sidechain).
    let msgs = context(&out);
    let last = msgs.last().unwrap();
    assert_eq!(last["content"][0]["text"], "final answer", "{msgs:?}");
    assert_eq!(msgs[0]["role"], "compactionSummary");
    assert_eq!(msgs[0]["summary"], "summary of all before");
    assert_eq!(msgs[0]["tokensBefore"], 5000);
    assert_pairs(&msgs);
    // The whole first branch, chunks merged: one assistant message with
    // thinking and both calls, then both results in call order.
    let leaf_of = |text: &str| -> String {
        let l = stdout(&run("pi-path", &["--leaves"], Some(out.as_bytes())));
        let v: Vec<Value> = l
            .lines()
            .map(|x| serde_json::from_str(x).unwrap())
            .collect();
        v.iter()
            .find(|x| x.to_string().contains(text))
            .map(|x| x["id"].as_str().unwrap().to_string())
            .unwrap()
    };
    let left = leaf_of("left branch prompt");
    let o = run(
        "pi-path",
        &["--format", "messages", "--leaf", &left],
        Some(out.as_bytes()),
    );
    let msgs: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let roles: Vec<&str> = msgs.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "toolResult",
            "toolResult",
            "assistant",
            "user",
            "assistant"
        ]
    );
    let kinds: Vec<&Value> = msgs[1]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| &b["type"])
        .collect();
    assert_eq!(kinds, ["thinking", "toolCall", "toolCall"]);
    assert_eq!(msgs[2]["toolName"], "Read");
    assert_eq!(msgs[3]["toolName"], "Grep");
    assert_eq!(msgs[1]["usage"]["cacheRead"], 1000);
    assert_eq!(msgs[1]["usage"]["cost"]["total"], 0);
    assert_assistant_model(&msgs[1]);
}

fn assert_assistant_model(m: &Value) {
    assert_eq!(m["model"], "claude-sonnet-4-5");
    assert_eq!(m["provider"], "anthropic");
    assert_eq!(m["stopReason"], "toolUse");
}

#[test]
fn the_same_source_gives_the_same_bytes() {
    let dir = TempDir::new("import-same");
    let a = dir.write("s-1.jsonl", claude_session().as_bytes());
    let (one, _) = import_to_stdout(&a, &[]);
    let (two, _) = import_to_stdout(&a, &["-q"]);
    assert_eq!(one, two);
    let ids: std::collections::HashSet<String> = one
        .lines()
        .skip(1)
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(ids.len(), one.lines().count() - 1, "ids are distinct");
}

#[test]
fn codex_rollout_calls_rollback_and_usage() {
    let dir = TempDir::new("import-codex");
    let src = dir.write("rollout-x.jsonl", codex_session().as_bytes());
    let (out, err) = import_to_stdout(&src, &[]);
    assert!(err.contains("1 tool call(s) had no output"), "{err}");
    let header: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(header["importedFrom"]["agent"], "codex");
    assert_eq!(header["id"].as_str().unwrap().len(), 36);
    // The rolled-back turn is a branch of its own.
    assert_eq!(leaves(&out), 2, "{out}");
    let msgs = context(&out);
    assert_pairs(&msgs);
    let texts: Vec<String> = msgs.iter().map(|m| m["content"].to_string()).collect();
    assert!(texts.iter().any(|t| t.contains("turn two again")));
    assert!(
        !texts.iter().any(|t| t.contains("rolled back")),
        "{texts:?}"
    );
    let first = msgs.iter().find(|m| m["role"] == "assistant").unwrap();
    assert_eq!(first["content"][0]["type"], "thinking");
    assert_eq!(first["content"][0]["thinking"], "thinking one");
    assert_eq!(first["usage"]["input"], 40);
    assert_eq!(first["usage"]["cacheRead"], 60);
    assert_eq!(first["model"], "gpt-5.1-codex");
    let results: Vec<&Value> = msgs
        .iter()
        .filter(|m| m["role"] == "toolResult")
        .map(|m| &m["toolCallId"])
        .collect();
    assert_eq!(results, ["c1", "c2", "c3"], "results in call order");
    assert_eq!(msgs.last().unwrap()["isError"], true, "c3 had no output");
    assert!(out.contains("dev note"), "the developer message is kept");
}

#[test]
fn the_format_is_told_from_the_content_or_forced() {
    let dir = TempDir::new("import-detect");
    let cc = dir.write("a.jsonl", claude_session().as_bytes());
    let cx = dir.write("b.jsonl", codex_session().as_bytes());
    let o = run(
        "pi-import",
        &[
            "--dry-run",
            "--json",
            "-q",
            cc.to_str().unwrap(),
            cx.to_str().unwrap(),
            "--session-dir",
            dir.0.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["status"], "imported");
    assert_eq!(rows[0]["leaves"], 3);
    assert!(rows[0]["warnings"].as_array().unwrap().len() >= 2);
    assert!(
        !Path::new(rows[0]["path"].as_str().unwrap()).exists(),
        "--dry-run writes nothing"
    );
    let o = run(
        "pi-import",
        &["--from", "codex", "-o", "-", cc.to_str().unwrap()],
        None,
    );
    assert!(o.status.success());
    assert!(stdout(&o).contains("\"agent\":\"codex\""));
    // A file of titles only (Claude Code writes such): skipped, no error.
    let titles = dir.write(
        "t.jsonl",
        line(json!({"type": "summary", "summary": "x", "leafUuid": "u"})).as_bytes(),
    );
    let o = run(
        "pi-import",
        &[
            "--json",
            titles.to_str().unwrap(),
            "--session-dir",
            dir.0.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("\"status\":\"empty\""),
        "{}",
        stdout(&o)
    );
    assert_eq!(names_in(&dir.0, &[]).len(), 3, "nothing written");
    let junk = dir.write("c.jsonl", b"hello\n");
    let o = run("pi-import", &["-o", "-", junk.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1));
    assert_stderr_has(&o, "neither a Claude Code nor a Codex session");
}

/// Into the store: pi's directory of the cwd, pi's file name; a second run
/// writes nothing; a grown source replaces its untouched import; an import
/// pi continued is kept; a file of that name that is not an import is never
/// overwritten.
#[test]
fn into_the_store_again_and_again() {
    let dir = TempDir::new("import-store");
    let agent = dir.0.join("agent");
    let src = dir.write("s-1.jsonl", claude_session().as_bytes());
    let go = |extra: &[&str]| {
        let mut args = vec!["--json", src.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = run_with("pi-import", &args, None, |c| {
            c.env("PI_CODING_AGENT_DIR", &agent);
        });
        let row: Value = serde_json::from_str(stdout(&o).lines().next().unwrap_or("null")).unwrap();
        (o, row)
    };
    let (o, row) = go(&[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(row["status"], "imported");
    let path = std::path::PathBuf::from(row["path"].as_str().unwrap());
    assert_eq!(
        path.parent().unwrap(),
        agent.join("sessions/--home-dev-src-app--")
    );
    let name = path.file_name().unwrap().to_str().unwrap().to_string();
    assert!(
        name.starts_with("2026-01-05T09-00-00-000Z_") && name.ends_with(".jsonl"),
        "{name}"
    );
    let first = std::fs::read(&path).unwrap();
    assert_eq!(go(&[]).1["status"], "unchanged");
    // The source grows: the untouched import is replaced, atomically.
    append_line(
        &src,
        cc_user("u9", Some("a5"), 30, json!("one more")).trim_end(),
    );
    let (_, row) = go(&[]);
    assert_eq!(row["status"], "updated");
    let second = std::fs::read_to_string(&path).unwrap();
    assert!(second.contains("one more") && second.len() > first.len());
    // pi continues it; the source grows again: pi's file is kept.
    let last: Value = serde_json::from_str(&last_line(&path)).unwrap();
    let pi_line = json!({"type": "message", "id": "beefcafe", "parentId": last["id"], "timestamp": "2026-01-07T00:00:00.000Z",
        "message": {"role": "user", "content": "continued in pi", "timestamp": 1}});
    append_line(&path, &pi_line.to_string());
    append_line(
        &src,
        cc_user("u10", Some("u9"), 31, json!("and more")).trim_end(),
    );
    let (o, row) = go(&[]);
    assert_eq!(row["status"], "continued");
    assert_stderr_has(&o, "continued in pi since it was imported");
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .contains("continued in pi"));
    // A file of that name that is not an import: an error, nothing written.
    std::fs::write(&path, b"{\"type\":\"session\",\"id\":\"x\"}\n").unwrap();
    let (o, _) = go(&[]);
    assert_eq!(o.status.code(), Some(1));
    assert_stderr_has(&o, "not this source's import: not overwritten");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        b"{\"type\":\"session\",\"id\":\"x\"}\n"
    );
}

/// --all finds Claude Code's sessions (not subagent runs) and Codex's
/// rollouts under $CLAUDE_CONFIG_DIR and $CODEX_HOME.
#[test]
fn all_sources() {
    let dir = TempDir::new("import-all");
    let projects = dir.0.join("claude/projects/-home-dev-src-app");
    std::fs::create_dir_all(projects.join("s-1/subagents")).unwrap();
    std::fs::write(projects.join("s-1.jsonl"), claude_session()).unwrap();
    std::fs::write(
        projects.join("s-1/subagents/agent-a1.jsonl"),
        claude_session(),
    )
    .unwrap();
    let day = dir.0.join("codex/sessions/2026/01/06");
    std::fs::create_dir_all(&day).unwrap();
    std::fs::write(
        day.join("rollout-2026-01-06T14-00-00-c-1.jsonl"),
        codex_session(),
    )
    .unwrap();
    std::fs::write(day.join("notes.jsonl"), codex_session()).unwrap();
    let o = run_with(
        "pi-import",
        &["--all", "--dry-run", "--json", "-q"],
        None,
        |c| {
            c.env("HOME", dir.0.join("home"))
                .env("CLAUDE_CONFIG_DIR", dir.0.join("claude"))
                .env("CODEX_HOME", dir.0.join("codex"))
                .env("PI_CODING_AGENT_DIR", dir.0.join("agent"));
        },
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let sources: Vec<String> = stdout(&o)
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["source"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(sources.len(), 2, "{sources:?}");
    assert!(
        sources[0].ends_with("s-1.jsonl") && sources[1].contains("rollout-"),
        "{sources:?}"
    );
}

/// Control characters in names and texts never reach the terminal raw.
#[test]
fn hostile_names_are_shown_not_written() {
    let dir = TempDir::new("import-hostile");
    let src = dir.write("e\u{1b}]0;x\u{7}.jsonl", claude_session().as_bytes());
    let o = run(
        "pi-import",
        &[
            "--dry-run",
            src.to_str().unwrap(),
            "--session-dir",
            dir.0.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    for text in [stdout(&o), stderr(&o)] {
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{text:?}"
        );
        assert!(text.contains("\\x1b"), "{text:?}");
    }
}

#[test]
fn usage_errors() {
    let o = run("pi-import", &[], None);
    assert_eq!(o.status.code(), Some(2));
    let dir = TempDir::new("import-usage");
    let a = dir.write("a.jsonl", claude_session().as_bytes());
    let s = a.to_str().unwrap();
    let o = run("pi-import", &[s, s, "-o", "x.jsonl"], None);
    assert_eq!(o.status.code(), Some(2));
    assert_stderr_has(&o, "-o takes one source");
}

/// A compaction that keeps a preserved segment writes the segment's tail
/// under the summary, so the boundary's logical parent leads back after
/// it: the boundary hangs under the newest message before it instead, and
/// nothing loops. Images are kept as pi's image blocks.
#[test]
fn preserved_segment_and_images() {
    let img = json!([{"type": "text", "text": "look"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]);
    let mut s = cc_user("u1", None, 0, img);
    s += &cc_assistant(
        "a1",
        "u1",
        1,
        "m1",
        json!([{"type": "text", "text": "seen"}]),
        json!("end_turn"),
    );
    s += &cc_user("u2", Some("a1"), 2, json!("keep going"));
    s += &cc(
        "system",
        "cb",
        None,
        3,
        json!({"subtype": "compact_boundary", "logicalParentUuid": "a2",
        "compactMetadata": {"trigger": "auto", "preTokens": 900}}),
    );
    s += &cc(
        "user",
        "cs",
        Some("cb"),
        4,
        json!({"isCompactSummary": true,
        "message": {"role": "user", "content": [{"type": "text", "text": "the summary"}]}}),
    );
    s += &cc_assistant(
        "a2",
        "cs",
        5,
        "m2",
        json!([{"type": "text", "text": "kept going"}]),
        json!("end_turn"),
    );
    let dir = TempDir::new("import-preserved");
    let src = dir.write("p.jsonl", s.as_bytes());
    let (out, _) = import_to_stdout(&src, &["-q"]);
    assert_eq!(leaves(&out), 1);
    let msgs = context(&out);
    let roles: Vec<&str> = msgs.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["compactionSummary", "assistant"], "{msgs:?}");
    assert_eq!(msgs[0]["summary"], "the summary");
    let whole = stdout(&run(
        "pi-path",
        &["--format", "entries"],
        Some(out.as_bytes()),
    ));
    assert!(
        whole.contains("keep going"),
        "the message before the boundary is on the path"
    );
    let user: Value = serde_json::from_str(whole.lines().next().unwrap()).unwrap();
    assert_eq!(
        user["message"]["content"][1],
        json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"})
    );
}

/// Codex's `compacted`: a compaction entry; what it summarized is not sent.
#[test]
fn codex_compaction() {
    let r = |t: u32, ty: &str, p: Value| {
        line(
            json!({"timestamp": format!("2026-01-06T14:00:{t:02}.000Z"), "type": ty, "payload": p}),
        )
    };
    let mut s = r(
        0,
        "session_meta",
        json!({"id": "c-2", "timestamp": "2026-01-06T14:00:00.000Z", "cwd": CWD}),
    );
    s += &r(
        1,
        "response_item",
        json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "old turn"}]}),
    );
    s += &r(
        2,
        "response_item",
        json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "old answer"}]}),
    );
    s += &r(
        3,
        "compacted",
        json!({"message": "what happened so far", "replacement_history": []}),
    );
    s += &r(
        4,
        "response_item",
        json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "new turn"}]}),
    );
    let dir = TempDir::new("import-codex-compact");
    let src = dir.write("rollout-c.jsonl", s.as_bytes());
    let (out, _) = import_to_stdout(&src, &["-q"]);
    let msgs = context(&out);
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    assert_eq!(msgs[0]["summary"], "what happened so far");
    assert_eq!(msgs[1]["content"][0]["text"], "new turn");
    assert!(out.contains("old answer"), "kept in the file");
}

/// pi-usage leaves imported sessions out (their usage is another tool's to
/// report) unless --include-imported, with and without its cache.
#[test]
fn pi_usage_counts_imports_only_when_asked() {
    let dir = TempDir::new("import-usage");
    let src = dir.write("s-1.jsonl", claude_session().as_bytes());
    let store = dir.0.join("sessions");
    let project = store.join("--home-dev-src-app--");
    let o = run(
        "pi-import",
        &[
            "-q",
            src.to_str().unwrap(),
            "--session-dir",
            project.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let usage = |extra: &[&str]| {
        let mut args = vec![
            "--session-dir",
            store.to_str().unwrap(),
            "--all",
            "session",
            "--json",
        ];
        args.extend_from_slice(extra);
        let o = run_with("pi-usage", &args, None, |c| {
            c.env("PI_SESSION_TOOLS_CACHE_DIR", dir.0.join("cache"));
        });
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str::<Value>(&stdout(&o)).unwrap()["sessions"]
            .as_array()
            .unwrap()
            .len()
    };
    for _ in 0..2 {
        assert_eq!(usage(&[]), 0);
        assert_eq!(usage(&["--include-imported"]), 1);
    }
}

/// pi-import killed at any moment leaves every session file whole: each
/// `.jsonl` in the store is the one a full run writes, byte for byte.
#[test]
fn a_kill_leaves_whole_files() {
    let dir = TempDir::new("import-kill");
    let srcs: Vec<String> = (0..40)
        .map(|i| {
            let s = claude_session().replace("\"s-1\"", &format!("\"s-{i}\""));
            dir.write(&format!("s{i}.jsonl"), s.repeat(20).as_bytes())
                .to_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let into = |out: &Path| {
        let mut args: Vec<&str> = vec!["-q", "--session-dir", out.to_str().unwrap()];
        args.extend(srcs.iter().map(String::as_str));
        command("pi-import", &args)
    };
    let full = dir.0.join("full");
    assert!(into(&full).output().unwrap().status.success());
    let want: std::collections::BTreeMap<String, Vec<u8>> = std::fs::read_dir(&full)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    assert_eq!(want.len(), 40);
    for k in 0..8u64 {
        let out = dir.0.join(format!("killed{k}"));
        let mut child = into(&out)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(k * 7));
        let _ = child.kill();
        let _ = child.wait();
        for e in std::fs::read_dir(&out).into_iter().flatten() {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".jsonl") {
                assert_eq!(
                    Some(&std::fs::read(e.path()).unwrap()),
                    want.get(&name),
                    "{name} after a kill at {k}"
                );
            }
        }
    }
}
