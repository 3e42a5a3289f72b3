//! pi-convert, driven as a user runs it.
use crate::common::*;

const TOOL: &str = "pi-convert";

#[test]
fn conformance_with_pi() {
    check_each(&cases(TOOL), 150, |c| same_stdout(c, str::to_string));
}

#[test]
fn stdin_session_and_messages() {
    let s = fixture("v3-001");
    let file = run(TOOL, &[&s], None);
    assert!(file.status.success(), "{}", stderr(&file));
    let text = std::fs::read(&s).unwrap();
    let piped = run(TOOL, &["-"], Some(&text));
    assert_eq!(stdout(&piped), stdout(&file), "{}", stderr(&piped));
    // The messages pi-path prints convert to the same thing.
    let msgs = run("pi-path", &["--format", "messages", &s], None);
    assert!(msgs.status.success());
    let from_msgs = run(TOOL, &[], Some(&msgs.stdout));
    assert_eq!(stdout(&from_msgs), stdout(&file), "{}", stderr(&from_msgs));
    // Forcing the wrong kind is an error, not wrong output.
    let forced = run(TOOL, &["--from", "messages", &s], None);
    assert_eq!(forced.status.code(), Some(1));
    assert_stderr_has(&forced, ":1: the message has no \"role\"");
    assert!(forced.stdout.is_empty());
}

fn expect_error(args: &[&str], input: &[u8], want: &str) {
    let o = run(TOOL, args, Some(input));
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
    assert!(o.stdout.is_empty(), "{args:?}: printed {}", stdout(&o));
    assert!(err.contains(want), "{args:?}: want {want:?} in {err:?}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_input() {
    let ok = br#"{"role":"user","content":"hi","timestamp":1}"#;
    let mut not_json = ok.to_vec();
    not_json.extend_from_slice(b"\n{\"role\":\"user\",\n");
    expect_error(&[], &not_json, "<stdin>:2: not JSON");
    let mut no_role = ok.to_vec();
    no_role.extend_from_slice(b"\n\n{\"content\":\"x\"}\n");
    expect_error(&[], &no_role, "<stdin>:3: the message has no \"role\"");
    expect_error(&[], b"[1,2]\n", "<stdin>:1: not a JSON object");
    expect_error(&[], b"{\"x\":1}\n", "<stdin>:1: neither a session");
    let cycle = b"{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"cwd\":\"/\"}\n\
{\"type\":\"message\",\"id\":\"aaaaaaaa\",\"parentId\":\"bbbbbbbb\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"message\":{\"role\":\"user\",\"content\":\"a\",\"timestamp\":1}}\n\
{\"type\":\"message\",\"id\":\"bbbbbbbb\",\"parentId\":\"aaaaaaaa\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"message\":{\"role\":\"user\",\"content\":\"b\",\"timestamp\":2}}\n";
    for to in ["llm", "markdown", "text"] {
        expect_error(&["--to", to], cycle, "<stdin>:");
    }
    expect_error(&["--to", "html", "--as-sent"], cycle, "<stdin>:");
    // The page of the whole tree shows the entries no root reaches (pi
    // 1.6.0's --export writes its page of such a file too).
    let page = run(TOOL, &["--to", "html"], Some(cycle));
    assert!(page.status.success(), "{}", stderr(&page));
    assert!(stdout(&page).contains("that no root reaches"));
    let s = std::fs::read(fixture("v3-001")).unwrap();
    expect_error(&["--leaf", "zzzzzzzz"], &s, "zzzzzzzz");
    let img =
        br#"{"role":"user","content":[{"type":"image","mimeType":"image/png"}],"timestamp":1}"#;
    for to in ["markdown", "html", "text"] {
        expect_error(&["--to", to], img, "<stdin>:1: image block has no data");
    }
    // pi passes such a message through unchanged: so do we.
    let o = run(TOOL, &[], Some(img));
    assert!(o.status.success());
    assert_eq!(o.stdout, [&img[..], b"\n"].concat());
    // A message entry holding null, or none: pi 1.6 throws while building the context.
    let null_msg = b"{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"cwd\":\"/\"}\n\
{\"type\":\"message\",\"id\":\"aaaaaaaa\",\"parentId\":null,\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"message\":null}\n";
    expect_error(
        &[],
        null_msg,
        "<stdin>:2: a \"message\" entry without a message",
    );
    let no_msg = b"{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"cwd\":\"/\"}\n\
{\"type\":\"message\",\"id\":\"aaaaaaaa\",\"parentId\":null,\"timestamp\":\"2025-01-01T00:00:00.000Z\"}\n";
    for to in ["llm", "markdown"] {
        expect_error(
            &["--to", to],
            no_msg,
            "<stdin>:2: a \"message\" entry without a message",
        );
    }
    // Binary garbage and an empty input never panic.
    let o = run(TOOL, &["--to", "html"], Some(b"\xff\xfe\x00garbage\n"));
    assert_eq!(o.status.code(), Some(1));
    let o = run(TOOL, &[], Some(b""));
    assert!(o.status.success() && o.stdout.is_empty());
}

#[test]
fn hidden_bash_only_on_request() {
    let f = fixture("convert-bash");
    let plain = stdout(&run(TOOL, &["--to", "text", &f], None));
    assert!(!plain.contains("$ secret"), "{plain}");
    let o = run(TOOL, &["--to", "text", "--include-hidden", &f], None);
    let all = stdout(&o);
    assert!(all.contains("bash: $ secret"), "{all}");
    assert!(all.contains("bash: [excluded from context (!!)"), "{all}");
    let md = stdout(&run(
        TOOL,
        &["--to", "markdown", "--include-hidden", &f],
        None,
    ));
    assert!(md.contains("*excluded from context (!!)"), "{md}");
}

// ------------------------------------------------------------- snapshots

/// Compare with tests/snapshots/NAME, or write it when UPDATE is set.
fn snapshot(name: &str, got: &str) {
    let path = repo().join("tests/snapshots").join(name);
    if std::env::var_os("UPDATE").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} missing: run with UPDATE=1", path.display()));
    if want != got {
        let line = want
            .lines()
            .zip(got.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(want.lines().count().min(got.lines().count()));
        panic!(
            "{name} differs from the snapshot at line {}:\n want: {:?}\n got:  {:?}\n(UPDATE=1 to accept)",
            line + 1,
            want.lines().nth(line),
            got.lines().nth(line)
        );
    }
}

const SNAPSHOT_INPUTS: &[(&str, &[&str])] = &[
    ("v3-003", &[]),
    ("v1-004", &[]),
    ("v3-deep-compactions", &[]),
    ("v3-branch-summaries", &[]),
    ("v2-002", &[]),
    ("convert-bash", &["--include-hidden"]),
    ("convert-mixed", &[]),
    // pi 1.x: system prompts and checkpoints, usage entries, context edits
    ("v3-system-prompts", &[]),
    ("v3-x14", &[]),
    ("v3-context-edits", &["--leaf", "570b6639"]),
];

/// What the model is sent (`--as-sent`, the transcripts before issue 32),
/// the whole branch (the default for markdown and text) and the page of
/// the whole tree (the default for html).
#[test]
fn snapshots() {
    for (name, extra) in SNAPSHOT_INPUTS {
        for (to, ext, as_sent) in [
            ("markdown", "md", true),
            ("html", "html", true),
            ("text", "txt", true),
            ("markdown", "branch.md", false),
            ("text", "branch.txt", false),
            ("html", "page.html", false),
        ] {
            let f = fixture(name);
            let mut args = vec!["--to", to];
            if as_sent {
                args.push("--as-sent");
            }
            args.extend_from_slice(extra);
            args.push(&f);
            let o = run(TOOL, &args, None);
            assert!(o.status.success(), "{name} {to}: {}", stderr(&o));
            let out = stdout(&o);
            // The input's path is not part of the output.
            assert!(
                !out.contains(&*repo().to_string_lossy()),
                "{name} {to} names the path"
            );
            if to == "html" {
                if let Err(e) = check_html(&out) {
                    panic!("{name}.html is not well formed: {e}");
                }
            }
            snapshot(&format!("convert/{name}.{ext}"), &out);
        }
    }
}

/// examples/s.jsonl: the whole branch (from the bug report and both plans
/// to the leaf), and `--as-sent` byte for byte what pi-convert wrote before
/// whole-branch transcripts (the files were written by that version).
#[test]
fn examples_golden() {
    let s = repo().join("examples/s.jsonl");
    let s = s.to_str().unwrap();
    for (args, file) in [
        (&["--to", "markdown"][..], "examples-s.md"),
        (&["--to", "text"][..], "examples-s.txt"),
        (
            &["--to", "markdown", "--as-sent"][..],
            "examples-s.as-sent.md",
        ),
        (&["--to", "text", "--as-sent"][..], "examples-s.as-sent.txt"),
        (
            &["--to", "html", "--as-sent"][..],
            "examples-s.as-sent.html",
        ),
    ] {
        let o = run(TOOL, &[args, &[s]].concat(), None);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        snapshot(&format!("convert/{file}"), &stdout(&o));
    }
    let whole = stdout(&run(TOOL, &["--to", "markdown", s], None));
    let sent = stdout(&run(TOOL, &["--to", "markdown", "--as-sent", s], None));
    // What the compaction summarised is there, before its mark.
    let report = whole.find("panics on deeply nested input").unwrap();
    let mark = whole.find("*— compaction: 16 messages summarised").unwrap();
    assert!(report < mark, "{whole}");
    assert!(!sent.contains("panics on deeply nested input"));
    // The llm output has no whole-branch view: --as-sent changes nothing.
    let a = run(TOOL, &[s], None);
    let b = run(TOOL, &["--as-sent", s], None);
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn html_is_self_contained_and_escaped() {
    let f = fixture("convert-mixed");
    let out = stdout(&run(TOOL, &["--to", "html", &f], None));
    check_html(&out).unwrap();
    let lower = out.to_lowercase();
    for bad in [
        "<script", "http://", "https://", "src=", "<link", "@import", "url(",
    ] {
        assert!(!lower.contains(bad), "html contains {bad}");
    }
    // The raw markup in the compaction summary is shown, not interpreted.
    assert!(out.contains("stuff &lt;b&gt;&amp;amp;&lt;/b&gt;"), "{out}");
    // A long output is collapsed, a short one is not.
    let long: String = (0..40).map(|i| format!("line {i}\\n")).collect();
    let input = format!(
        "{{\"role\":\"bashExecution\",\"command\":\"seq 40\",\"output\":\"{long}\",\"exitCode\":0,\"timestamp\":1}}\n\
         {{\"role\":\"bashExecution\",\"command\":\"echo\",\"output\":\"short\",\"exitCode\":0,\"timestamp\":2}}\n"
    );
    let page = stdout(&run(TOOL, &["--to", "html"], Some(input.as_bytes())));
    check_html(&page).unwrap();
    assert_eq!(page.matches("<details>").count(), 1, "{page}");
    assert!(page.contains("<details><summary>40 lines"), "{page}");
}

/// A small well-formedness check: tags nest and close (void elements
/// excepted), attributes are quoted, `&` starts an entity, `<` starts a
/// tag, and no control characters other than tab and newline appear.
pub(crate) fn check_html(s: &str) -> Result<(), String> {
    const VOID: &[&str] = &["meta", "br", "hr", "img", "link", "input"];
    let b = s.as_bytes();
    let mut stack: Vec<String> = Vec::new();
    let mut i = 0;
    let line = |i: usize| s[..i].matches('\n').count() + 1;
    if !s.starts_with("<!DOCTYPE html>\n") {
        return Err("no doctype".into());
    }
    i += "<!DOCTYPE html>".len();
    while i < b.len() {
        let c = b[i];
        if c < 0x20 && c != b'\n' && c != b'\t' {
            return Err(format!("line {}: control character {c:#x}", line(i)));
        }
        if c == b'&' {
            let end = s[i..]
                .find(';')
                .ok_or(format!("line {}: bare &", line(i)))?;
            let ent = &s[i + 1..i + end];
            let ok = matches!(ent, "amp" | "lt" | "gt" | "quot" | "#39");
            if !ok {
                return Err(format!("line {}: unknown entity &{ent};", line(i)));
            }
            i += end + 1;
            continue;
        }
        if c == b'>' {
            return Err(format!("line {}: bare >", line(i)));
        }
        if c != b'<' {
            i += 1;
            continue;
        }
        let end = s[i..]
            .find('>')
            .ok_or(format!("line {}: unclosed tag", line(i)))?
            + i;
        let tag = &s[i + 1..end];
        if tag.contains('<') {
            return Err(format!("line {}: < inside a tag", line(i)));
        }
        if let Some(name) = tag.strip_prefix('/') {
            match stack.pop() {
                Some(open) if open == name => {}
                other => return Err(format!("line {}: </{name}> closes {other:?}", line(i))),
            }
        } else {
            let name: String = tag
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            if name.is_empty() {
                return Err(format!("line {}: bad tag <{tag}>", line(i)));
            }
            // Attributes: name="value" pairs, values without quotes or <.
            let mut rest = tag[name.len()..].trim();
            while !rest.is_empty() {
                let eq = rest.find('=').ok_or(format!(
                    "line {}: attribute without value in <{tag}>",
                    line(i)
                ))?;
                let after = &rest[eq + 1..];
                if !after.starts_with('"') {
                    return Err(format!("line {}: unquoted attribute in <{tag}>", line(i)));
                }
                let close = after[1..]
                    .find('"')
                    .ok_or(format!("line {}: open quote", line(i)))?;
                rest = after[close + 2..].trim_start();
            }
            if !VOID.contains(&name.as_str()) {
                stack.push(name.clone());
            }
            // Raw text elements: skip to their end tag.
            if name == "style" || name == "script" {
                let close = s[end..]
                    .find(&format!("</{name}>"))
                    .ok_or("unclosed style or script")?
                    + end;
                i = close;
                continue;
            }
        }
        i = end + 1;
    }
    if !stack.is_empty() {
        return Err(format!("unclosed: {stack:?}"));
    }
    Ok(())
}

/// A transcript holds what the model is sent; what a context edit took out
/// of its view (an omitted entry's content, an edited entry's original) is
/// there only with --include-hidden, marked.
#[test]
fn context_edits_hide_originals_unless_asked() {
    let f = fixture("v3-context-edits");
    let plain = stdout(&run(
        TOOL,
        &["--to", "markdown", "--leaf", "570b6639", &f],
        None,
    ));
    let hidden = stdout(&run(
        TOOL,
        &[
            "--to",
            "markdown",
            "--leaf",
            "570b6639",
            "--include-hidden",
            &f,
        ],
        None,
    ));
    assert!(plain.contains("omitted from the model's view by context edit"));
    assert!(plain.contains("(its content: --include-hidden)"));
    assert!(!plain.contains("original, before the context edit"));
    assert!(hidden.contains("original, before the context edit"));
    assert!(hidden.len() > plain.len());
    // The model's view is the same either way.
    let a = run(TOOL, &["--to", "llm", "--leaf", "570b6639", &f], None);
    let b = run(
        TOOL,
        &["--to", "llm", "--leaf", "570b6639", "--include-hidden", &f],
        None,
    );
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn lines_pi_passes_over_before_the_header() {
    // pi's loadEntriesFromFile skips a line that is blank to `trim()`
    // (any JavaScript white space: \v, U+00A0, U+2028, U+3000...), not
    // JSON, or falsy, and reads the session after it; so do pi-path and
    // pi-tree. The first line used to decide the kind, and failed.
    let s = std::fs::read_to_string(fixture("v3-001")).unwrap();
    let want = run(TOOL, &["-"], Some(s.as_bytes()));
    assert!(want.status.success(), "{}", stderr(&want));
    let t = TempDir::new("convert-blank");
    for first in [
        "\u{b}",
        "\u{a0}",
        "\u{2028}",
        "\u{3000} \t",
        "null",
        "{\"role\"",
    ] {
        let text = format!("{first}\n{s}");
        let piped = run(TOOL, &["-"], Some(text.as_bytes()));
        assert_eq!(
            stdout(&piped),
            stdout(&want),
            "{first:?}: {}",
            stderr(&piped)
        );
        let f = t.path().join("s.jsonl");
        std::fs::write(&f, &text).unwrap();
        let file = run(TOOL, &[f.to_str().unwrap()], None);
        assert_eq!(stdout(&file), stdout(&want), "{first:?}: {}", stderr(&file));
    }
}

// ------------------------------------------------- whole-branch transcripts

/// A session whose branch holds a compaction in the middle: a secret
/// before it (redacted by a context edit after it, as an edit of the
/// whole branch), one after it (omitted), a tool call and its result
/// across a model change, a label and a name.
fn branch_session() -> String {
    let asst = |text: &str, ts: u64| {
        format!(
            r#"{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}],"provider":"p","model":"m","stopReason":"stop","timestamp":{ts}}}"#
        )
    };
    session(&[
        user("b0000001", None, "first question, key sk-BEFOREcompaction0001"),
        message("b0000002", Some("b0000001"), &asst("first answer", 2)),
        user("b0000003", Some("b0000002"), "second question"),
        message(
            "b0000004",
            Some("b0000003"),
            r#"{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls"}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":4}"#,
        ),
        r#"{"type":"model_change","id":"b0000005","parentId":"b0000004","timestamp":"2026-07-20T09:00:05.000Z","provider":"q","modelId":"n"}"#.into(),
        message(
            "b0000006",
            Some("b0000005"),
            r#"{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"listing"}],"isError":false,"timestamp":6}"#,
        ),
        r#"{"type":"compaction","id":"b0000007","parentId":"b0000006","timestamp":"2026-07-20T09:00:07.000Z","summary":"they asked twice","firstKeptEntryId":"b0000003","tokensBefore":1234}"#.into(),
        user("b0000008", Some("b0000007"), "third, key sk-AFTERcompaction00000002"),
        r#"{"type":"context_edit","id":"b0000009","parentId":"b0000008","timestamp":"2026-07-20T09:00:09.000Z","targetId":"b0000001","replacement":{"content":"first question, key [REDACTED]"}}"#.into(),
        r#"{"type":"context_edit","id":"b000000a","parentId":"b0000009","timestamp":"2026-07-20T09:00:10.000Z","targetId":"b0000008","replacement":null}"#.into(),
        r#"{"type":"label","id":"b000000b","parentId":"b000000a","timestamp":"2026-07-20T09:00:11.000Z","targetId":"b0000003","label":"again"}"#.into(),
        message("b000000c", Some("b000000b"), &asst("last answer", 12)),
    ])
}

/// The default transcript is the whole branch, in order: what the
/// compaction summarised, its mark and summary, what came after.
#[test]
fn whole_branch_goes_through_a_compaction() {
    let dir = TempDir::new("branch");
    let f = dir.write("b.jsonl", branch_session().as_bytes());
    let f = f.to_str().unwrap();
    let md = stdout(&run(TOOL, &["--to", "markdown", f], None));
    let order = [
        "first answer",
        "*label: again*",
        "second question",
        "*— model: q/n",
        "*— compaction: 2 messages summarised; the model's context goes on from b0000003",
        "they asked twice",
        "last answer",
    ];
    let at: Vec<usize> = order
        .iter()
        .map(|w| md.find(w).unwrap_or_else(|| panic!("{w:?} missing:\n{md}")))
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}\n{md}");
    // The tool call is shown with its result, across the model change.
    let call = md.find("**tool call** `bash`").unwrap();
    let result = md.find("**result** of `bash`").unwrap();
    assert!(
        call < result && result < md.find("*— model: q/n").unwrap(),
        "{md}"
    );
    // Each turn names its entry.
    assert!(
        md.contains("## 2. assistant · 1970-01-01 00:00:00 · p/m · `b0000002`"),
        "{md}"
    );
    // --as-sent starts at the compaction: nothing it summarised.
    let sent = stdout(&run(TOOL, &["--to", "markdown", "--as-sent", f], None));
    assert!(!sent.contains("first answer") && sent.contains("second question"));
    let text = stdout(&run(TOOL, &["--to", "text", f], None));
    assert!(text.contains("\nassistant: first answer\n"), "{text}");
    assert!(text.contains(
        "\ncompaction: 2 messages summarised; the model's context goes on from b0000003 · 2026-07-20 09:00:07\n"
    ), "{text}");
}

/// A secret a context edit redacts or omits is not in the default
/// transcript, wherever it is on the branch (before a compaction too:
/// the edit applies to the whole branch); --include-hidden shows it.
#[test]
fn a_redacted_secret_stays_out_of_the_whole_branch() {
    let dir = TempDir::new("branch-secret");
    let f = dir.write("b.jsonl", branch_session().as_bytes());
    let f = f.to_str().unwrap();
    for to in ["markdown", "text"] {
        let o = run(TOOL, &["--to", to, f], None);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        assert!(
            !out.contains("sk-BEFORE") && !out.contains("sk-AFTER"),
            "{out}"
        );
        assert!(out.contains("first question, key [REDACTED]"), "{out}");
        assert!(out.contains("edited by context edit b0000009"), "{out}");
        assert!(
            out.contains("omitted from the model's view by context edit b000000a"),
            "{out}"
        );
        let all = stdout(&run(TOOL, &["--to", to, "--include-hidden", f], None));
        assert!(
            all.contains("sk-BEFORE") && all.contains("sk-AFTER"),
            "{all}"
        );
    }
    // A secret pi-edit --redact removes from what is sent.
    let k = "sk-REDACTME0123456789abcd";
    let s = session(&[
        user("c0000001", None, &format!("here: {k}")),
        text_message("c0000002", Some("c0000001"), "assistant", "ok"),
    ]);
    let g = dir.write("c.jsonl", s.as_bytes());
    let g = g.to_str().unwrap();
    let o = run(
        "pi-edit",
        &[g, "--redact", "sk-[A-Za-z0-9]{20,}", "--force"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    for to in ["markdown", "text"] {
        let out = stdout(&run(TOOL, &["--to", to, g], None));
        assert!(
            out.contains("here: [REDACTED]") && !out.contains(k),
            "{out}"
        );
    }
}

/// Control characters from any field a whole-branch transcript shows
/// (messages, model and thinking-level changes, labels, names, compaction
/// summaries, ids) are written visibly; Markdown holds no raw HTML.
#[test]
fn whole_branch_hostile_text_stays_inert() {
    let evil = r"\u001b[2J\u009b31m\r<script>x</script>\u0007";
    let s = session(&[
        user("d0000001", None, &format!("u {evil}")),
        format!(
            r#"{{"type":"model_change","id":"d0000002","parentId":"d0000001","timestamp":"2026-07-20T09:00:02.000Z","provider":"p {evil}","modelId":"m {evil}"}}"#
        ),
        format!(
            r#"{{"type":"thinking_level_change","id":"d0000003","parentId":"d0000002","timestamp":"t {evil}","thinkingLevel":"high {evil}"}}"#
        ),
        format!(
            r#"{{"type":"label","id":"d0000004","parentId":"d0000003","timestamp":"2026-07-20T09:00:04.000Z","targetId":"d0000001","label":"l {evil}"}}"#
        ),
        format!(
            r#"{{"type":"session_info","id":"d0000005","parentId":"d0000004","timestamp":"2026-07-20T09:00:05.000Z","name":"n {evil}"}}"#
        ),
        format!(
            r#"{{"type":"compaction","id":"d0000006","parentId":"d0000005","timestamp":"2026-07-20T09:00:06.000Z","summary":"s {evil}","firstKeptEntryId":"x {evil}","tokensBefore":1}}"#
        ),
        format!(
            r#"{{"type":"context_edit","id":"d0000007","parentId":"d0000006","timestamp":"2026-07-20T09:00:07.000Z","targetId":"t {evil}","replacement":null}}"#
        ),
        text_message(
            "d0000008",
            Some("d0000007"),
            "assistant",
            &format!("a {evil}"),
        ),
    ]);
    let dir = TempDir::new("branch-hostile");
    let f = dir.write("h.jsonl", s.as_bytes());
    let f = f.to_str().unwrap();
    for to in ["markdown", "text"] {
        let o = run(TOOL, &["--to", to, f], None);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        let raw: Vec<char> = out
            .chars()
            .filter(|c| c.is_control() && *c != '\n' && *c != '\t')
            .collect();
        assert!(raw.is_empty(), "{to}: {raw:?} in\n{out}");
        // Every field was shown (escaped), none dropped.
        for what in [
            "u ", "p ", "m ", "high ", "l ", "n ", "s ", "x ", "t ", "a ",
        ] {
            assert!(
                out.contains(&format!("{what}\\x1b[2J\\u{{009b}}31m\\r")),
                "{to} {what:?}:\n{out}"
            );
        }
        if to == "markdown" {
            // Outside code: as entities; message text is Markdown as written.
            assert!(!out.contains("<script>x</script>\\x07 —*"), "{out}");
            assert!(
                out.contains("&lt;script&gt;x&lt;/script&gt;\\x07 · "),
                "{out}"
            );
        }
    }
}

/// A path whose context is longer than what is held (4 MiB) is written as
/// it is converted, and says the same as the messages pi-path prints,
/// converted whole; lines that are not `JSON.stringify`'s text (spaces,
/// escapes written the long way) are re-serialised, not copied.
#[test]
fn long_context_streams_the_same() {
    let text = "word ".repeat(800);
    let entries = chain(3000, |i| match i % 3 {
        0 => format!(r#"{{"role":"user","content":"{text}{i}","timestamp":{i}}}"#),
        1 => format!(
            r#"{{ "role" : "assistant", "content" : [ {{"type":"text","text":"\u0041{text}"}} ], "timestamp" : {i} }}"#
        ),
        _ => format!(r#"{{"role":"odd","content":"{i}"}}"#),
    });
    let dir = TempDir::new("convert-long");
    let s = dir.write("s.jsonl", session(&entries).as_bytes());
    let s = s.to_str().unwrap();
    let file = run(TOOL, &[s], None);
    assert!(file.status.success(), "{}", stderr(&file));
    assert!(file.stdout.len() > 5 << 20, "{}", file.stdout.len());
    assert_eq!(file.stdout.iter().filter(|&&b| b == b'\n').count(), 2000);
    let msgs = run("pi-path", &["--format", "messages", s], None);
    assert!(msgs.status.success());
    let from_msgs = run(TOOL, &[], Some(&msgs.stdout));
    assert_same(&file.stdout, &from_msgs.stdout, "session vs messages");
    assert!(stdout(&file).contains(r#""text":"Aword "#));
}

/// What is sent, as a transcript longer than what is held, is written a
/// group at a time and says the same as the messages pi-path prints,
/// converted whole (text has no head that names the input); a tool call
/// is still shown with its result.
#[test]
fn long_sent_transcript_streams_the_same() {
    let text = "word ".repeat(1200);
    let entries = chain(3000, |i| match i % 3 {
        0 => format!(r#"{{"role":"user","content":"{text}{i}","timestamp":{i}}}"#),
        1 => format!(
            r#"{{"role":"assistant","content":[{{"type":"toolCall","id":"c{i}","name":"bash","arguments":{{"command":"ls {i}"}}}}],"timestamp":{i}}}"#
        ),
        _ => format!(
            r#"{{"role":"toolResult","toolCallId":"c{}","toolName":"bash","content":[{{"type":"text","text":"out {i}"}}],"isError":false,"timestamp":{i}}}"#,
            i - 1
        ),
    });
    let dir = TempDir::new("convert-long-sent");
    let s = dir.write("s.jsonl", session(&entries).as_bytes());
    let s = s.to_str().unwrap();
    let file = run(TOOL, &["--to", "text", "--as-sent", s], None);
    assert!(file.status.success(), "{}", stderr(&file));
    assert!(file.stdout.len() > 5 << 20, "{}", file.stdout.len());
    let msgs = run("pi-path", &["--format", "messages", s], None);
    assert!(msgs.status.success());
    let from_msgs = run(TOOL, &["--to", "text"], Some(&msgs.stdout));
    assert_same(&file.stdout, &from_msgs.stdout, "session vs messages");
    let md = stdout(&run(TOOL, &["--to", "markdown", "--as-sent", s], None));
    assert!(md.contains("## 2000. assistant"), "turns numbered on");
    assert!(!md.contains("## 2001."), "a result is shown with its call");
    assert!(md.contains("out 2999"));
}
