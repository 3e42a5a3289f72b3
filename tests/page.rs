//! `pi-convert --to html` of a session: the page of the whole tree
//! (src/page/), checked for its structure, its escaping, its determinism,
//! and in a real browser when one is installed.
use crate::common::*;

const TOOL: &str = "pi-convert";

fn example() -> String {
    repo()
        .join("examples/s.jsonl")
        .to_string_lossy()
        .into_owned()
}

fn page(args: &[&str]) -> String {
    let o = run(TOOL, args, None);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

/// The entries of a session file as JSON values, with their line numbers.
fn entries(path: &str) -> Vec<(usize, serde_json::Value)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .enumerate()
        .skip(1)
        .map(|(n, l)| (n + 1, serde_json::from_str(l).unwrap()))
        .collect()
}

/// The header's totals equal pi's computeStats over the file's entries.
#[test]
fn header_totals_are_computed_from_the_file() {
    let f = example();
    let out = page(&["--to", "html", &f]);
    let (mut user, mut asst, mut results, mut calls, mut compactions, mut cost) =
        (0, 0, 0, 0, 0, 0.0);
    for (_, e) in entries(&f) {
        if e["type"] == "compaction" {
            compactions += 1;
        }
        let m = &e["message"];
        match m["role"].as_str() {
            Some("user") => user += 1,
            Some("toolResult") => results += 1,
            Some("assistant") => {
                asst += 1;
                cost += m["usage"]["cost"]["total"].as_f64().unwrap_or(0.0);
                calls += m["content"]
                    .as_array()
                    .map_or(0, |c| c.iter().filter(|b| b["type"] == "toolCall").count());
            }
            _ => {}
        }
    }
    let messages = format!(
        "<dt>Messages</dt><dd>{user} user, {asst} assistant, {results} tool results, {compactions} compactions</dd>"
    );
    assert!(out.contains(&messages), "{messages} not in the page");
    assert!(out.contains(&format!("<dt>Tool Calls</dt><dd>{calls}</dd>")));
    // pi 1.6.0's own page of this file says 9.990.
    assert_eq!(format!("{cost:.3}"), "9.990");
    assert!(out.contains("<dt>Cost</dt><dd>$9.990</dd>"));
    assert!(out.contains("<dt>Tokens</dt><dd>↑2.2M ↓72k R3.6M W360k</dd>"));
}

/// Every entry has its article and its row; the active path (to the
/// leaf) is marked; every branch has an anchor and a link to it.
#[test]
fn every_entry_and_branch_is_reachable() {
    let f = example();
    let out = page(&["--to", "html", &f]);
    let es = entries(&f);
    for (n, _) in &es {
        assert_eq!(
            out.matches(&format!("<article id=\"l{n}\"")).count(),
            1,
            "article of line {n}"
        );
        assert!(
            out.contains(&format!("<a href=\"#l{n}\">")),
            "row of line {n}"
        );
    }
    // The active path: from the last entry up by parentId.
    let by_id: std::collections::HashMap<&str, (usize, &serde_json::Value)> = es
        .iter()
        .map(|(n, e)| (e["id"].as_str().unwrap(), (*n, e)))
        .collect();
    let mut at = es.last().unwrap().1["id"].as_str();
    let mut path = vec![];
    while let Some(id) = at {
        let (n, e) = by_id[id];
        path.push(n);
        at = e["parentId"].as_str();
    }
    for n in &path {
        let art = out.find(&format!("<article id=\"l{n}\"")).unwrap();
        let tag = &out[art..art + out[art..].find('>').unwrap()];
        assert!(
            tag.contains(" a\"") || tag.contains(" a "),
            "line {n} not marked active: {tag}"
        );
    }
    // The leaf (the last entry, line 51) is marked in the sidebar.
    assert_eq!(es.last().unwrap().0, 51);
    assert!(
        out.contains(" a leaf\"><a href=\"#l51\">"),
        "the leaf's row"
    );
    // Children of a branch point other than the first start a branch with
    // an anchor, linked from the branch point.
    let mut kids: std::collections::HashMap<&str, Vec<usize>> = Default::default();
    for (n, e) in &es {
        if let Some(p) = e["parentId"].as_str() {
            kids.entry(p).or_default().push(*n);
        }
    }
    let mut branches = 0;
    for ks in kids.values().filter(|k| k.len() > 1) {
        let anchored = ks
            .iter()
            .filter(|n| out.contains(&format!("id=\"b{n}\"")))
            .count();
        assert_eq!(anchored, ks.len() - 1, "{ks:?}");
        for n in ks.iter().filter(|n| out.contains(&format!("id=\"b{n}\""))) {
            assert!(
                out.contains(&format!("<a href=\"#b{n}\">")),
                "no link to branch {n}"
            );
            branches += 1;
        }
    }
    assert!(branches >= 1, "examples/s.jsonl has a side branch");
    // The active path comes first: the leaf's article before any branch.
    assert!(out.find("id=\"l51\"").unwrap() < out.find("class=\"bh\"").unwrap());
}

/// `--leaf` picks the path shown first.
#[test]
fn leaf_picks_the_branch_shown_first() {
    let out = page(&["--to", "html", "--leaf", "@plan-a", &example()]);
    // plan-a labels line 13; its path passes line 10 (plan A's request),
    // before the main line's line 15 (plan B's).
    assert!(out.contains("data-leaf=\"l13\""));
    assert!(out.find("id=\"l10\"").unwrap() < out.find("id=\"l15\"").unwrap());
    let all = page(&["--to", "html", &example()]);
    assert!(all.find("id=\"l15\"").unwrap() < all.find("id=\"l10\"").unwrap());
}

/// Hostile text stays text: tags, javascript: links, control characters
/// in content and labels.
#[test]
fn hostile_text_is_escaped() {
    let root = TempDir::new("page-hostile");
    let f = root.path().join("s.jsonl");
    let evil = "<script>alert(1)</script><img src=x onerror=alert(2)>\u{1b}[2J\u{9b}";
    let lines = [
        serde_json::json!({"type":"session","version":3,"id":"0190aaaa-0000-7000-8000-000000000009","timestamp":"2026-01-01T00:00:00.000Z","cwd":evil}),
        serde_json::json!({"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":evil,"timestamp":1}}),
        serde_json::json!({"type":"message","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[
            {"type":"text","text":format!("[click](javascript:alert(3)) ![i](https://example.com/x.png) <b onclick=x>{evil}</b>")},
            {"type":"toolCall","id":"t1","name":"edit","arguments":{"path":evil,"oldText":evil,"newText":"ok"}}],
            "model":evil,"provider":"p","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"cost":{"total":0.0625}},"stopReason":"toolUse","timestamp":2}}),
        serde_json::json!({"type":"message","id":"a3","parentId":"a2","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"t1","toolName":"edit","content":[{"type":"text","text":evil}],"details":{"diff":format!("+{evil}\n-old")},"isError":true,"timestamp":3}}),
        serde_json::json!({"type":"label","id":"a4","parentId":"a3","timestamp":"2026-01-01T00:00:04.000Z","targetId":"a2","label":evil}),
        serde_json::json!({"type":"session_info","id":"a5","parentId":"a4","timestamp":"2026-01-01T00:00:05.000Z","name":evil}),
    ];
    let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
    std::fs::write(&f, text).unwrap();
    let out = page(&["--to", "html", f.to_str().unwrap()]);
    crate::convert::check_html(&out).unwrap();
    let lower = out.to_lowercase();
    assert_eq!(
        lower.matches("<script").count(),
        1,
        "only the page's own script"
    );
    for bad in [
        "<img src=x",
        "<b onclick",
        "href=\"javascript",
        "example.com/x.png\"",
    ] {
        assert!(!lower.contains(bad), "{bad} in the page");
    }
    assert!(out.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(out.contains("\\x1b[2J\\u{009b}"), "controls shown visibly");
    assert!(!out
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t'));
    // A link that is not followed; the image is named, not loaded.
    assert!(out.contains("<span class=\"badlink\""));
    assert!(out.contains("[image: i]"));
    // The edit's diff, and the error marked.
    assert!(out.contains("<div class=\"add\">+&lt;script&gt;"));
    assert!(out.contains("<div class=\"del\">-old</div>"));
    assert!(out.contains("class=\"e k-tool a err\""));
    // JavaScript's toFixed rounds the tie up (Rust's {:.3} gives 0.062).
    assert!(out.contains("<dt>Cost</dt><dd>$0.063</dd>"));
    // Nothing can load: no network source in the policy.
    assert!(out.contains("content=\"default-src 'none'; style-src 'sha256-"));
}

/// The same input gives the same bytes (no clock, no randomness).
#[test]
fn the_page_is_deterministic() {
    let a = run(TOOL, &["--to", "html", &example()], None);
    let b = run(TOOL, &["--to", "html", &example()], None);
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    crate::convert::check_html(&stdout(&a)).unwrap();
}

/// The browser: $PI_SESSION_TOOLS_CHROMIUM, else /usr/bin/chromium.
fn chromium() -> Option<std::path::PathBuf> {
    let p = std::env::var_os("PI_SESSION_TOOLS_CHROMIUM")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| "/usr/bin/chromium".into());
    p.exists().then_some(p)
}

/// The DOM Chromium (headless) builds of `file`, its script run.
fn dump_dom(chrome: &std::path::Path, file: &std::path::Path, fragment: &str) -> String {
    let profile = TempDir::new("page-chromium");
    let mut c = std::process::Command::new("timeout");
    c.arg("120").arg(chrome).args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ]);
    c.arg(format!("--user-data-dir={}", profile.path().display()));
    c.arg("--dump-dom")
        .arg(format!("file://{}{fragment}", file.display()));
    let o = c.output().expect("run chromium");
    assert!(
        o.status.success(),
        "chromium: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The page in a real browser: the script runs (its hash is the one the
/// policy allows) and shows the active path; without script every entry
/// is there.
#[test]
fn the_page_works_in_chromium() {
    let Some(chrome) = chromium() else {
        eprintln!("SKIPPED: no chromium (set PI_SESSION_TOOLS_CHROMIUM)");
        return;
    };
    let root = TempDir::new("page-browser");
    let file = root.path().join("s.html");
    std::fs::write(&file, page(&["--to", "html", &example()])).unwrap();
    let dom = dump_dom(&chrome, &file, "");
    assert!(
        dom.contains("data-page=\"ok\""),
        "the script did not finish:\n{dom}"
    );
    assert!(dom.contains("<body class=\"js\">"));
    assert!(dom.contains("parser: depth limit"));
    // The leaf's path is shown; a side branch's entry is not.
    assert!(
        dom.contains("<article id=\"l51\" class=\"e k-meta a show\""),
        "{dom}"
    );
    assert!(
        dom.contains("<article id=\"l10\" class=\"e k-user\""),
        "{dom}"
    );
    assert!(
        dom.contains("37 / 50 entries"),
        "pi's count of the default filter"
    );
    // A side branch's entry in the address: its path is shown instead.
    let side = dump_dom(&chrome, &file, "#l13");
    assert!(
        side.contains("<article id=\"l10\" class=\"e k-user show\""),
        "{side}"
    );
    assert!(
        side.contains("<article id=\"l51\" class=\"e k-meta a\""),
        "{side}"
    );
    // Without script (chromium's --dump-dom needs script, so this is read
    // off the page itself), a side branch is there, after the active path.
    let html = std::fs::read_to_string(&file).unwrap();
    assert!(html.contains("Plan A is done"));
    // The tree is drawn as a tree: an entry after a branch point sits
    // further right than one before it (a copy of the page, without its
    // policy, reports the computed styles in its title).
    let policy_end = html
        .find("form-action 'none'\">")
        .expect("the page's policy")
        + 20;
    let policy_start = html[..policy_end].rfind("<meta").unwrap();
    let probe = format!(
        "{}{}<script>document.title='indent '+getComputedStyle(document.querySelector('li.i0>a')).paddingLeft+' '+getComputedStyle(document.querySelector('li.i1>a')).paddingLeft</script>",
        &html[..policy_start],
        &html[policy_end..]
    );
    let probe_file = root.path().join("probe.html");
    std::fs::write(&probe_file, probe).unwrap();
    let dom = dump_dom(&chrome, &probe_file, "");
    let title = dom
        .split("<title>")
        .nth(1)
        .and_then(|t| t.split("</title>").next());
    let px: Vec<f64> = title
        .and_then(|t| t.strip_prefix("indent "))
        .map(|t| {
            t.split(' ')
                .map(|p| p.trim_end_matches("px").parse().unwrap())
                .collect()
        })
        .unwrap_or_else(|| panic!("no computed indent in {title:?}"));
    assert!(px[1] > px[0], "a branch's rows are not indented: {px:?}");
}

/// An entry a context edit replaces is shown as the model sees it (a
/// redaction stays redacted); `--include-hidden` shows the original.
#[test]
fn context_edits_hold_unless_hidden_entries_are_asked_for() {
    let out = page(&["--to", "html", &example()]);
    assert!(!out.contains("ignore it and delete tests/net.rs"));
    assert!(out.contains("mark it #[ignore] with a comment"));
    assert!(out.contains("As the context edit on <a href=\"#l45\">line 45</a> replaced it"));
    let all = page(&["--to", "html", "--include-hidden", &example()]);
    assert!(all.contains("ignore it and delete tests/net.rs"));
    assert!(all.contains("The original: the context edit on <a href=\"#l45\">line 45</a>"));
}

/// The page is written as it is made (issue 32 item 5): on a 60 MB
/// session of 24 000 turns (a user message, an assistant's text and tool
/// call, its result; two branches) the page is 89 MB, and the tool's peak
/// memory stays under the issue's 64 MB plus the largest line (42 MB
/// measured): a tool that held the page, or the file, would not.
#[cfg(target_os = "linux")]
#[test]
fn the_page_is_written_in_bounded_memory() {
    let mut s = String::from(H);
    s.push('\n');
    let text = "Some *markdown* text, `code` and <b>tags</b>. ".repeat(10);
    let output = "line of output\\n".repeat(60);
    let mut parent: Option<String> = None;
    let mut fork: Option<String> = None;
    for i in 0..24_000 {
        let u = format!("u{i}");
        s.push_str(&user(&u, parent.as_deref(), &text));
        s.push('\n');
        let a = format!("a{i}");
        let call = format!(
            r#"{{"role":"assistant","content":[{{"type":"text","text":"{text}"}},{{"type":"toolCall","id":"c{i}","name":"bash","arguments":{{"command":"ls -l {i}"}}}}],"model":"m","provider":"p","usage":{{"input":10,"output":20,"cacheRead":0,"cacheWrite":0,"cost":{{"total":0.0125}}}},"stopReason":"toolUse","timestamp":1}}"#
        );
        s.push_str(&message(&a, Some(&u), &call));
        s.push('\n');
        let r = format!("r{i}");
        let result = format!(
            r#"{{"role":"toolResult","toolCallId":"c{i}","toolName":"bash","content":[{{"type":"text","text":"{output}"}}],"isError":false,"timestamp":1}}"#
        );
        s.push_str(&message(&r, Some(&a), &result));
        s.push('\n');
        if i == 100 {
            fork = Some(r.clone());
        }
        parent = Some(r);
    }
    // A second branch from an early turn: the page keeps every branch.
    s.push_str(&user("other", fork.as_deref(), "the other branch"));
    s.push('\n');
    let input = s.len() as u64;
    let longest = s.lines().map(str::len).max().unwrap_or(0) as u64;
    assert!(input > 40 << 20, "{input} bytes");
    let dir = TempDir::new("page-memory");
    let f = dir.write("s.jsonl", s.as_bytes());
    drop(s);
    let mut cmd = command(TOOL, &["--to", "html", f.to_str().unwrap()]);
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let (ran, peak) = run_within_measured(
        &mut cmd,
        std::time::Duration::from_secs(600),
        1 << 20,
        64 << 10,
    );
    assert!(!ran.hung, "pi-convert --to html hangs");
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    assert!(ran.stdout_len > input, "{} bytes of page", ran.stdout_len);
    let head = String::from_utf8_lossy(&ran.stdout);
    assert!(
        head.contains(">72001 entries<"),
        "the sidebar counts every entry"
    );
    let peak = peak.unwrap();
    assert!(
        peak < (64 << 20) + longest,
        "peak {} MB for a {} MB session and a {} MB page",
        peak >> 20,
        input >> 20,
        ran.stdout_len >> 20
    );
}
