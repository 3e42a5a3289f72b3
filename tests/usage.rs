//! pi-usage: counting rules, forks, time zones, output shapes, and the
//! comparison with `ccusage pi` (tests/usage-ccusage/, answers made by
//! ccusage itself with generate.sh there).
use crate::common::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Output, Stdio};

/// pi-usage over the store `agent`, no stdin.
fn usage_run(agent: &Path, args: &[&str]) -> Output {
    run_with("pi-usage", args, None, |c| {
        c.env("PI_CODING_AGENT_DIR", agent)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null());
    })
}

fn json(agent: &Path, args: &[&str]) -> Vec<Value> {
    let mut a = args.to_vec();
    a.push("--json");
    let o = usage_run(agent, &a);
    assert!(o.status.success(), "{}", stderr(&o));
    rows_of(&o.stdout)
}

/// The rows of a `--json` document, `{"daily": [rows], "totals": {...}}`
/// as ccusage prints it: its one member besides `totals`, an array.
fn rows_of(stdout: &[u8]) -> Vec<Value> {
    let doc: Value = serde_json::from_slice(stdout).expect("JSON");
    let obj = doc.as_object().expect("a JSON object");
    assert_eq!(obj.len(), 2, "{doc}");
    assert!(obj["totals"].is_object(), "{doc}");
    match obj.iter().find(|(k, _)| *k != "totals") {
        Some((_, Value::Array(v))) => v.clone(),
        _ => panic!("no rows: {doc}"),
    }
}

fn usage(i: u64, cost: f64) -> String {
    format!(
        r#"{{"input":{i},"output":1,"cacheRead":2,"cacheWrite":3,"totalTokens":{},"cost":{{"input":{cost},"output":0,"cacheRead":0,"cacheWrite":0,"total":{cost}}}}}"#,
        i + 6
    )
}

/// When the test sessions start.
const MARCH: &str = "2026-03-01T00:00:00.000Z";

/// An assistant message at `ts` of `model` with the usage `u`.
fn assistant(id: &str, parent: Option<&str>, ts: &str, model: &str, u: &str) -> String {
    let message = format!(
        r#"{{"role":"assistant","content":[],"api":"x","provider":"prov-{model}","model":"{model}","usage":{u},"stopReason":"stop","timestamp":0}}"#
    );
    message_at(id, parent, ts, &message)
}

/// An [`assistant`] message of model `m` that cost `cost`.
fn paid(id: &str, parent: Option<&str>, ts: &str, cost: f64) -> String {
    assistant(id, parent, ts, "m", &usage(1, cost))
}

struct Store {
    dir: TempDir,
}

impl Store {
    fn new(tag: &str) -> Store {
        Store {
            dir: TempDir::new(tag),
        }
    }
    fn agent(&self) -> &Path {
        self.dir.path()
    }
    fn file(&self, project: &str, name: &str, entries: &[String]) -> String {
        let d = self.dir.path().join("sessions").join(project);
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join(name);
        std::fs::write(&p, lines(entries)).unwrap();
        p.to_string_lossy().into_owned()
    }
}

fn total_cost(rows: &[Value]) -> f64 {
    rows.iter().map(|r| r["cost"].as_f64().unwrap()).sum()
}

/// Abandoned branches, usage entries, compaction and branch-summary usage
/// all count; user messages and other types do not.
#[test]
fn counts_every_branch_and_every_kind() {
    let s = Store::new("usage-kinds");
    s.file(
        "--p--",
        "a.jsonl",
        &[
            header("s1", MARCH, "/p", None),
            message_at(
                "u1",
                None,
                "2026-03-01T10:00:00.000Z",
                r#"{"role":"user","content":"hi","timestamp":0}"#,
            ),
            assistant("a1", Some("u1"), "2026-03-01T10:00:01.000Z", "m1", &usage(10, 1.0)),
            // an abandoned branch: a sibling of a1
            assistant("a2", Some("u1"), "2026-03-01T10:00:02.000Z", "m1", &usage(10, 2.0)),
            format!(r#"{{"type":"usage","id":"x1","parentId":"a2","timestamp":"2026-03-01T10:00:03.000Z","kind":"title","provider":"p","model":"m2","usage":{}}}"#, usage(10, 4.0)),
            format!(r#"{{"type":"compaction","id":"c1","parentId":"x1","timestamp":"2026-03-01T10:00:04.000Z","summary":"s","firstKeptEntryId":"a2","tokensBefore":5,"usage":{}}}"#, usage(10, 8.0)),
            format!(r#"{{"type":"branch_summary","id":"b1","parentId":"c1","timestamp":"2026-03-01T10:00:05.000Z","fromId":"a1","summary":"s","usage":{}}}"#, usage(10, 16.0)),
            format!(r#"{{"type":"custom","customType":"x","data":{{"usage":{}}},"id":"z1","parentId":"b1","timestamp":"2026-03-01T10:00:06.000Z"}}"#, usage(10, 32.0)),
        ],
    );
    let rows = json(s.agent(), &["--timezone", "UTC"]);
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    assert_eq!(r["date"], "2026-03-01");
    assert_eq!(r["cost"], 31.0);
    assert_eq!(r["totalCost"], 31.0);
    assert_eq!(r["inputTokens"], 50.0);
    assert_eq!(r["totalTokens"], 80.0);
    assert_eq!(r["source"]["assistant"], 2.0);
    assert_eq!(r["source"]["usage"], 1.0);
    assert_eq!(r["source"]["compaction"], 1.0);
    assert_eq!(r["source"]["branchSummary"], 1.0);
    // --by model
    let rows = json(s.agent(), &["daily", "--by", "model", "--timezone", "UTC"]);
    let models: Vec<&str> = rows.iter().map(|r| r["model"].as_str().unwrap()).collect();
    assert!(
        models.contains(&"m1") && models.contains(&"m2"),
        "{models:?}"
    );
    // --by branch: two leaves (a1, and the chain through z1)
    let file = s.agent().join("sessions/--p--/a.jsonl");
    let rows = json(s.agent(), &[file.to_str().unwrap(), "--by", "branch"]);
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[0]["leaf"], "a1");
    assert_eq!(rows[0]["cost"], 1.0);
    assert_eq!(rows[1]["cost"], 30.0);
    assert_eq!(rows[1]["ownCost"], 30.0);
}

/// A fork repeats its source's entries: counted once, in the source.
#[test]
fn a_fork_is_counted_once() {
    let s = Store::new("usage-fork");
    let a = s.file(
        "--p--",
        "a.jsonl",
        &[
            header("src", MARCH, "/p", None),
            paid("a1", None, "2026-03-01T10:00:01.000Z", 1.0),
        ],
    );
    let b = s.file(
        "--q--",
        "b.jsonl",
        &[
            header("fork1", MARCH, "/q", Some(&a)),
            paid("a1", None, "2026-03-01T10:00:01.000Z", 1.0),
            paid("b1", Some("a1"), "2026-03-02T10:00:01.000Z", 2.0),
        ],
    );
    // a fork of the fork
    s.file(
        "--q--",
        "c.jsonl",
        &[
            header("fork2", MARCH, "/q", Some(&b)),
            paid("a1", None, "2026-03-01T10:00:01.000Z", 1.0),
            paid("b1", Some("a1"), "2026-03-02T10:00:01.000Z", 2.0),
            paid("c1", Some("b1"), "2026-03-03T10:00:01.000Z", 4.0),
        ],
    );
    let rows = json(s.agent(), &["session"]);
    let by: Vec<(String, f64)> = rows
        .iter()
        .map(|r| {
            (
                r["sessionId"].as_str().unwrap().to_string(),
                r["cost"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        by,
        vec![
            ("src".into(), 1.0),
            ("fork1".into(), 2.0),
            ("fork2".into(), 4.0)
        ]
    );
    assert_eq!(total_cost(&json(s.agent(), &["monthly"])), 7.0);
    // the source gone: the forks still share its path as their source
    std::fs::remove_file(&a).unwrap();
    assert_eq!(total_cost(&json(s.agent(), &["monthly"])), 7.0);
    let rows = json(s.agent(), &["project", "--timezone", "UTC"]);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["project"], "/q");
}

/// pi's ids are unique only within a file: a fork's own turn that reuses
/// an id of its source is its own, and counts; only what the fork copied
/// (the start of its file, equal to the source's entries) is dropped.
#[test]
fn a_forks_own_turn_with_a_source_id_counts() {
    let s = Store::new("usage-fork-ids");
    let a = s.file(
        "--p--",
        "a.jsonl",
        &[
            header("src", MARCH, "/p", None),
            paid("a1", None, "2026-03-01T10:00:01.000Z", 1.0),
            paid("a2", Some("a1"), "2026-03-01T10:00:02.000Z", 2.0),
            paid("a3", Some("a2"), "2026-03-01T10:00:03.000Z", 4.0),
        ],
    );
    s.file(
        "--q--",
        "b.jsonl",
        &[
            header("fork1", MARCH, "/q", Some(&a)),
            paid("a1", None, "2026-03-01T10:00:01.000Z", 1.0),
            // the fork's own turns: one reuses a2's id; one, after the
            // copies ended, is even the twin of a3
            paid("a2", Some("a1"), "2026-03-02T10:00:01.000Z", 200.0),
            paid("a3", Some("a2"), "2026-03-01T10:00:03.000Z", 4.0),
        ],
    );
    let rows = json(s.agent(), &["session"]);
    let by: Vec<(String, f64)> = rows
        .iter()
        .map(|r| {
            (
                r["sessionId"].as_str().unwrap().to_string(),
                r["cost"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(by, vec![("src".into(), 7.0), ("fork1".into(), 204.0)]);
}

/// pi reads a session whose first lines are blank to JavaScript's
/// `trim()` (\v, U+00A0, U+2028...): its usage counts.
#[test]
fn blank_lines_before_the_header() {
    let s = Store::new("usage-blank-first");
    for (n, blank) in ["\u{b}", "\u{a0}", " \u{2028}\t"].iter().enumerate() {
        let p = s.file(
            "--p--",
            &format!("{n}.jsonl"),
            &[
                header(&format!("s{n}"), MARCH, "/p", None),
                paid(&format!("a{n}"), None, "2026-03-01T10:00:01.000Z", 1.0),
            ],
        );
        let text = std::fs::read_to_string(&p).unwrap();
        std::fs::write(&p, format!("{blank}\n{text}")).unwrap();
    }
    assert_eq!(total_cost(&json(s.agent(), &["session"])), 3.0);
}

/// Version 1 (no ids) and version 2 files are counted.
#[test]
fn old_versions_count() {
    let s = Store::new("usage-v1");
    let u = usage(5, 0.5);
    s.file(
        "--p--",
        "v1.jsonl",
        &[
            r#"{"type":"session","id":"old1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}"#.into(),
            format!(r#"{{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{{"role":"assistant","content":[],"provider":"p","model":"m","usage":{u}}}}}"#),
            format!(r#"{{"type":"message","timestamp":"2025-01-01T00:00:02.000Z","message":{{"role":"assistant","content":[],"provider":"p","model":"m","usage":{u}}}}}"#),
        ],
    );
    s.file(
        "--p--",
        "v2.jsonl",
        &[
            r#"{"type":"session","version":2,"id":"old2","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}"#.into(),
            assistant("a1", None, "2025-01-02T00:00:01.000Z", "m", &u),
        ],
    );
    s.file("--p--", "junk.jsonl", &["not json".into()]);
    let o = usage_run(s.agent(), &["daily", "--json", "--timezone", "UTC"]);
    assert!(o.status.success());
    assert_stderr_has(&o, "junk.jsonl: not a session file");
    let rows = rows_of(&o.stdout);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["cost"], 1.0);
    assert_eq!(rows[1]["cost"], 0.5);
}

/// Days are local days of --timezone; --since/--until bound them.
#[test]
fn day_boundaries_in_a_time_zone() {
    let s = Store::new("usage-tz");
    s.file(
        "--p--",
        "a.jsonl",
        &[
            header("s1", MARCH, "/p", None),
            // 22:30 UTC on 31 March is 00:30 on 1 April in Berlin (CEST, +2)
            paid("a1", None, "2026-03-31T22:30:00.000Z", 1.0),
            // 21:30 UTC is 23:30 in Berlin
            paid("a2", Some("a1"), "2026-03-31T21:30:00.000Z", 2.0),
        ],
    );
    let utc = json(s.agent(), &["--timezone", "UTC"]);
    assert_eq!(utc.len(), 1);
    assert_eq!(utc[0]["date"], "2026-03-31");
    let berlin = json(s.agent(), &["--timezone", "Europe/Berlin"]);
    let days: Vec<(&str, f64)> = berlin
        .iter()
        .map(|r| (r["date"].as_str().unwrap(), r["cost"].as_f64().unwrap()))
        .collect();
    assert_eq!(days, vec![("2026-03-31", 2.0), ("2026-04-01", 1.0)]);
    let m = json(
        s.agent(),
        &[
            "monthly",
            "--timezone",
            "Europe/Berlin",
            "--since",
            "2026-04",
        ],
    );
    assert_eq!(m.len(), 1);
    assert_eq!(m[0]["month"], "2026-04");
    let m = json(
        s.agent(),
        &[
            "daily",
            "--timezone",
            "Europe/Berlin",
            "--until",
            "20260331",
        ],
    );
    assert_eq!(m.len(), 1);
    let w = json(s.agent(), &["weekly", "--timezone", "UTC"]);
    assert_eq!(w[0]["week"], "2026-03-30"); // the Monday
    let bad = usage_run(s.agent(), &["--timezone", "Mars/Olympus"]);
    assert_eq!(bad.status.code(), Some(2));
    let bad = usage_run(s.agent(), &["--since", "2026-13-01"]);
    assert_eq!(bad.status.code(), Some(2));
}

/// --csv and the table: shapes, totals row, no colour off a terminal.
#[test]
fn csv_and_table_shapes() {
    let s = Store::new("usage-csv");
    s.file(
        "--p--",
        "a.jsonl",
        &[
            header("s1", MARCH, "/p,q", None),
            assistant(
                "a1",
                None,
                "2026-03-01T10:00:00.000Z",
                "m",
                &usage(1000, 0.1),
            ),
            paid("a2", Some("a1"), "2026-03-01T11:00:00.000Z", 0.2),
        ],
    );
    let o = usage_run(s.agent(), &["project", "--csv", "--breakdown"]);
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "project,inputTokens,outputTokens,cacheCreationTokens,cacheReadTokens,totalTokens,cost,costInput,costOutput,costCacheRead,costCacheWrite");
    // 0.1 + 0.2 as the decimals recorded (JavaScript's float sum is
    // 0.30000000000000004)
    assert_eq!(lines[1], "\"/p,q\",1001,2,6,4,1013,0.3,0.3,0,0,0");
    let o = usage_run(s.agent(), &[]);
    let t = stdout(&o);
    assert!(!t.contains('\x1b'));
    assert!(t.lines().last().unwrap().starts_with("Total"), "{t}");
    assert!(t.contains("1,013"), "{t}");
    // narrow: optional columns are left out, the cost stays
    let o = usage_run(s.agent(), &["--width", "40"]);
    let t = stdout(&o);
    assert!(t.contains("Cost") && t.contains("left out"), "{t}");
    assert!(
        t.lines()
            .all(|l| l.chars().count() <= 40 || l.contains("left out")),
        "{t}"
    );
}

/// Bad numbers: a warning naming FILE:LINE, the row still printed.
#[test]
fn hostile_usage_fields() {
    let s = Store::new("usage-hostile");
    let bad = [
        r#"{"input":"NaN","output":1,"cost":{"total":1}}"#,
        r#"{"input":-5,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":1,"cost":{"total":1}}"#,
        r#"{"input":1e999,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":1,"cost":{"total":1}}"#,
        r#"{"output":1}"#,
        r#""usage""#,
    ];
    let mut lines = vec![header("s1", MARCH, "/p", None)];
    for (i, u) in bad.iter().enumerate() {
        lines.push(assistant(
            &format!("a{i}"),
            None,
            "2026-03-01T10:00:00.000Z",
            "m",
            u,
        ));
    }
    s.file("--p--", "a.jsonl", &lines);
    let o = usage_run(s.agent(), &["--json"]);
    assert!(o.status.success());
    let err = stderr(&o);
    for line in 2..=6 {
        assert!(
            err.contains(&format!("a.jsonl:{line}:")),
            "line {line}: {err}"
        );
    }
    let rows = rows_of(&o.stdout);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["cost"], 3.0);
}

/// Every total is the decimal sum of the recorded costs, whatever their
/// order: ten records of 0.1 (which added one after another make
/// 0.9999999999999999) are exactly 1 however they are spread over files and
/// days; and the same session twice in a store (a copy in another project)
/// is counted once.
#[test]
fn sums_are_exact_and_copies_count_once() {
    let s = Store::new("usage-sum");
    let day = |d: u32, h: u32| format!("2026-03-{d:02}T{h:02}:00:00.000Z");
    // 0.1 ten times over two days, and 0.7 + 0.2 + 0.1 (0.9999999999999999
    // added in that order) on a third
    let tenth = |at: &[(u32, u32)]| at.iter().map(|&(d, h)| (d, h, 0.1)).collect::<Vec<_>>();
    let files = [
        ("a", tenth(&[(1, 9), (2, 9)])),
        (
            "b",
            tenth(&[
                (2, 1),
                (1, 5),
                (1, 1),
                (2, 4),
                (1, 7),
                (2, 2),
                (1, 2),
                (2, 8),
            ]),
        ),
        ("c", vec![(3, 1, 0.7), (3, 2, 0.2), (3, 3, 0.1)]),
    ];
    for (name, costs) in &files {
        let mut lines = vec![header(name, MARCH, "/p", None)];
        for (i, &(d, h, c)) in costs.iter().enumerate() {
            lines.push(paid(&format!("{name}{i}"), None, &day(d, h), c));
        }
        s.file("--p--", &format!("{name}.jsonl"), &lines);
        if *name == "b" {
            s.file("--copy--", "b.jsonl", &lines);
        }
    }
    let monthly = json(s.agent(), &["monthly", "--timezone", "UTC", "--no-cache"]);
    assert_eq!(monthly.len(), 1);
    assert_eq!(monthly[0]["cost"], 2.0, "{monthly:?}");
    let daily = json(s.agent(), &["daily", "--timezone", "UTC", "--no-cache"]);
    let costs: Vec<f64> = daily.iter().map(|r| r["cost"].as_f64().unwrap()).collect();
    assert_eq!(costs, [0.5, 0.5, 1.0], "{daily:?}");
    let sessions = json(s.agent(), &["session", "--no-cache"]);
    let mut costs: Vec<f64> = sessions
        .iter()
        .map(|r| r["cost"].as_f64().unwrap())
        .collect();
    costs.sort_by(f64::total_cmp);
    // 0.1 eight times, one after another: 0.7999999999999999
    assert_eq!(costs, [0.2, 0.8, 1.0], "{sessions:?}");
}

/// Costs print as people write them (issue 35): 3.33 + 5.55 + 1.11 is 9.99
/// and 0.003 three times 0.009 in pi-usage's JSON, CSV and table, and in
/// pi-ls -l --json, where float addition gives 9.989999999999998 and
/// 0.009000000000000001; a recorded cost of 17 digits prints to 15.
#[test]
fn costs_add_as_recorded_decimals() {
    let s = Store::new("usage-decimal");
    let day = |h: u32| format!("2026-03-01T{h:02}:00:00.000Z");
    let mut a = vec![header("a", MARCH, "/p", None)];
    let mut b = vec![header("b", MARCH, "/p", None)];
    let mut parent: Option<String> = None;
    for (i, cost) in [3.33, 5.55, 1.11].into_iter().enumerate() {
        let id = format!("a{i}");
        a.push(paid(&id, parent.as_deref(), &day(1 + i as u32), cost));
        parent = Some(id);
    }
    let mut parent: Option<String> = None;
    for i in 0..3 {
        let id = format!("b{i}");
        b.push(paid(&id, parent.as_deref(), &day(1 + i), 0.003));
        parent = Some(id);
    }
    b.push(paid("b9", Some("b2"), &day(9), 0.18871590000000002));
    let fa = s.file("--p--", "a.jsonl", &a);
    let fb = s.file("--p--", "b.jsonl", &b);
    assert_eq!(3.33 + 5.55 + 1.11, 9.989999999999998);
    assert_ne!(0.003 + 0.003 + 0.003, 0.009);
    let o = usage_run(s.agent(), &["session", &fa, &fb, "--json"]);
    let text = stdout(&o);
    assert!(text.contains(r#""totalCost":9.99,"#), "{text}");
    assert!(text.contains(r#""totalCost":0.1977159,"#), "{text}");
    assert!(text.contains(r#""totalCost":10.1877159,"#), "{text}");
    let o = usage_run(s.agent(), &["session", &fa, "--csv"]);
    assert!(
        stdout(&o).lines().nth(1).unwrap().ends_with(",9.99"),
        "{}",
        stdout(&o)
    );
    let o = usage_run(
        s.agent(),
        &["daily", &fa, &fb, "--csv", "--timezone", "UTC"],
    );
    assert!(
        stdout(&o).lines().nth(1).unwrap().ends_with(",10.1877159"),
        "{}",
        stdout(&o)
    );
    let o = usage_run(s.agent(), &["daily", &fa, "--timezone", "UTC"]);
    assert!(stdout(&o).contains("$9.99"), "{}", stdout(&o));
    // pi-ls -l --json: the same sums
    let ls = |project: &str, entries: &[String]| {
        let f = s.file(project, "s.jsonl", entries);
        let dir = Path::new(&f)
            .parent()
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        let o = run_with(
            "pi-ls",
            &["-l", "--json", "--all", "--session-dir", &dir],
            None,
            |c| {
                c.env("PI_CODING_AGENT_DIR", s.agent()).stdin(Stdio::null());
            },
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        v["cost"].to_string()
    };
    assert_eq!(ls("--la--", &a), "9.99");
    assert_eq!(ls("--lb--", &b[..4]), "0.009");
}

/// A line longer than `PI_SESSION_TOOLS_MAX_LINE` is `FILE:LINE: line
/// longer than N bytes`, as every tool says it: in a store, a warning and
/// the file skipped (as a file that cannot be read); as the one SESSION,
/// the error (exit 1). A device is read as a stream that stops there,
/// whatever its length (`/dev/zero`).
#[test]
fn lines_too_long() {
    let s = Store::new("usage-long");
    s.file(
        "--p--",
        "a.jsonl",
        &[
            header("s1", MARCH, "/p", None),
            paid("a1", None, MARCH, 1.0),
        ],
    );
    let big = format!(
        r#"{{"type":"custom","id":"c","pad":"{}"}}"#,
        "x".repeat(300 << 10)
    );
    let long = s.file(
        "--p--",
        "b.jsonl",
        &[
            header("s2", MARCH, "/p", None),
            paid("b1", None, MARCH, 2.0),
            big.clone(),
            paid("b2", None, MARCH, 4.0),
        ],
    );
    let mut nuls = (header("s3", MARCH, "/p", None) + "\n").into_bytes();
    nuls.resize(nuls.len() + (1 << 20), 0);
    let zeros = s.agent().join("sessions/--p--/c.jsonl");
    std::fs::write(&zeros, &nuls).unwrap();
    let run = |args: &[&str]| {
        run_with("pi-usage", args, None, |c| {
            c.env("PI_CODING_AGENT_DIR", s.agent())
                .env("PI_SESSION_TOOLS_MAX_LINE", "64K")
                .stdin(Stdio::null());
        })
    };
    let words = "line longer than 65536 bytes (the most a line may have; PI_SESSION_TOOLS_MAX_LINE sets it)";
    for cache in [&["--no-cache"][..], &[], &[]] {
        let o = run(&[&["session", "--json"][..], cache].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains(&format!("b.jsonl:3: {words}")), "{err}");
        assert!(err.contains(&format!("c.jsonl:2: {words}")), "{err}");
        let rows = rows_of(&o.stdout);
        assert_eq!(total_cost(&rows), 1.0, "{rows:?}");
    }
    let o = run(&[&long]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).starts_with("pi-usage: error: "),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains(&format!("b.jsonl:3: {words}")),
        "{}",
        stderr(&o)
    );
    let o = run_with("pi-usage", &["session", "/dev/zero"], None, |c| {
        c.env("PI_SESSION_TOOLS_MAX_LINE", "1M");
    });
    assert_eq!(o.status.code(), Some(1));
    let want = "pi-usage: error: /dev/zero:1: line longer than 1048576 bytes";
    assert!(stderr(&o).starts_with(want), "{}", stderr(&o));
}

/// The cache of what each file gave (`PI_SESSION_TOOLS_CACHE_DIR`): a run
/// from it prints what a full read prints, warnings too, in the same
/// order; a file that grew is read again; a damaged cache (cut, or one
/// bit flipped) is ignored and rewritten; `--no-cache` and
/// `PI_SESSION_TOOLS_CACHE=off` neither read nor write it, and an
/// unchanged store does not rewrite it.
#[test]
fn the_cache_changes_nothing_but_the_time() {
    let s = Store::new("usage-cache");
    let nan = r#"{"input":"NaN","output":1,"cost":{"total":1}}"#;
    let title = format!(
        r#"{{"type":"usage","id":"x1","parentId":"a2","timestamp":"2026-03-02T10:00:03.000Z","kind":"title","provider":"p","model":"m3","usage":{}}}"#,
        usage(10, 0.25)
    );
    let first = paid("a1", None, "2026-03-01T10:00:01.000Z", 1.5);
    let src = [
        header("src", MARCH, "/p", None),
        first.clone(),
        assistant("a2", Some("a1"), "2026-03-01T11:00:00.000Z", "m2", nan),
        title,
    ];
    let a = s.file("--p--", "a.jsonl", &src);
    // a fork, with a usage that has no input
    let fork = [
        header("fork1", MARCH, "/q", Some(&a)),
        first,
        assistant(
            "b1",
            Some("a1"),
            "2026-03-02T10:00:01.000Z",
            "m",
            r#"{"output":1}"#,
        ),
    ];
    s.file("--q--", "b.jsonl", &fork);
    s.file("--q--", "c.jsonl", &["not a session".to_string()]);
    let cache = s.agent().join("cache");
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let o = run_with("pi-usage", args, None, |c| {
            c.env("PI_CODING_AGENT_DIR", s.agent())
                .env("NO_COLOR", "1")
                .env("PI_SESSION_TOOLS_CACHE_DIR", &cache)
                .stdin(Stdio::null());
            for (k, v) in env {
                c.env(k, v);
            }
        });
        assert!(o.status.success(), "{}", stderr(&o));
        (stdout(&o), stderr(&o))
    };
    let cached = || std::fs::read_dir(&cache).map_or(0, |d| d.count());
    let args = ["session", "--by", "model", "--json", "--breakdown"];
    let full = run(&[&args[..], &["--no-cache"]].concat(), &[]);
    assert_eq!(full.1.matches("warning").count(), 4, "{}", full.1);
    assert_eq!(cached(), 0, "--no-cache wrote a cache");
    assert_eq!(run(&args, &[("PI_SESSION_TOOLS_CACHE", "off")]), full);
    assert_eq!(cached(), 0, "PI_SESSION_TOOLS_CACHE=off wrote a cache");
    assert_eq!(run(&args, &[]), full, "first run");
    assert_eq!(cached(), 1);
    let file = std::fs::read_dir(&cache)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .next()
        .unwrap();
    let stamp = std::fs::metadata(&file).unwrap().modified().unwrap();
    assert!(
        std::fs::metadata(&file).unwrap().len() > 500,
        "the cache holds nothing"
    );
    assert_eq!(run(&args, &[]), full, "from the cache");
    for other in [
        &["daily"][..],
        &["monthly", "--csv"],
        &["project", "--by", "provider"],
    ] {
        assert_eq!(
            run(other, &[]),
            run(&[other, &["--no-cache"]].concat(), &[])
        );
    }
    assert_eq!(
        std::fs::metadata(&file).unwrap().modified().unwrap(),
        stamp,
        "an unchanged store rewrote the cache"
    );
    // One session grows (pi appends): it is read again.
    let mut f = std::fs::OpenOptions::new().append(true).open(&a).unwrap();
    let more = paid("a3", Some("x1"), "2026-03-03T10:00:00.000Z", 8.0) + "\n";
    std::io::Write::write_all(&mut f, more.as_bytes()).unwrap();
    drop(f);
    let grown = run(&args, &[]);
    assert_ne!(grown, full);
    assert_eq!(grown, run(&[&args[..], &["--no-cache"]].concat(), &[]));
    // A damaged cache is ignored, and rewritten.
    let mut bytes = std::fs::read(&file).unwrap();
    let n = bytes.len();
    bytes[n / 2..].fill(0xee);
    std::fs::write(&file, &bytes).unwrap();
    assert_eq!(run(&args, &[]), grown, "from a damaged cache");
    assert!(std::fs::read(&file)
        .unwrap()
        .starts_with(b"pi-session-tools usage cache 4\n"));
    assert_eq!(run(&args, &[]), grown, "from the rewritten cache");
    crate::ls::damage_is_ignored(&file, 300, || run(&args, &[]), &grown);
}

/// The README's examples run.
#[test]
fn readme_examples_run() {
    let s = Store::new("usage-readme");
    let f = s.file(
        "--p--",
        "s.jsonl",
        &[
            header("s1", MARCH, "/p", None),
            paid("a1", None, "2026-03-01T10:00:00.000Z", 6.0),
        ],
    );
    for args in [
        vec![],
        vec!["monthly", "--since", "2026-01"],
        vec!["session", "--cwd", "/p", "--json"],
        vec!["daily", "--by", "model"],
        vec!["project"],
        vec!["daily", "--timezone", "Europe/Berlin", "--csv"],
        vec![f.as_str(), "--by", "branch"],
        vec!["weekly", "--breakdown"],
    ] {
        let o = usage_run(s.agent(), &args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(!o.stdout.is_empty(), "{args:?}");
    }
    let rows = json(s.agent(), &["session", "--cwd", "/p"]);
    assert!(rows.iter().any(|r| r["cost"].as_f64().unwrap() > 5.0));
    let none = json(s.agent(), &["session", "--cwd", "/elsewhere"]);
    assert!(none.is_empty());
}

/// On a store of assistant messages only (no forks), `--json` is the
/// document `ccusage pi --json --offline` prints (ccusage 20.0.24, answers
/// in tests/usage-ccusage/): its members, every field of every row and of
/// the totals; tokens equal, model breakdowns equal (ccusage names a model
/// `[pi] NAME`, and lists the most costly first, as pi-usage does); costs
/// are ccusage's float sums rounded to 15 significant digits (pi-usage adds
/// the recorded decimals: 0.1887159 where ccusage says 0.18871590000000002).
#[test]
fn agrees_with_ccusage() {
    let base = repo().join("tests/usage-ccusage");
    let store = base.join("store/sessions");
    // a float sum (ccusage's) as the decimal it stands for
    let decimal = |x: f64| -> f64 { format!("{x:.14e}").parse().unwrap() };
    let same_cost = |a: &Value, b: &Value, what: &str| {
        let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
        // (ccusage's month is the sum of its day sums, each a float)
        assert!(
            a == decimal(b) || (a - b).abs() <= 1e-12 * b.abs().max(1.0),
            "{what}: {a} vs {b}"
        );
        a == decimal(b)
    };
    for (report, key, id) in [
        ("daily", "daily", "date"),
        ("monthly", "monthly", "month"),
        ("session", "sessions", "sessionId"),
    ] {
        let answer: Value = serde_json::from_slice(
            &std::fs::read(base.join(format!("answers-{report}.json"))).unwrap(),
        )
        .unwrap();
        let o = usage_run(
            Path::new("/nonexistent"),
            &[
                report,
                "--json",
                "--timezone",
                "UTC",
                "--session-dir",
                store.to_str().unwrap(),
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
        let keys = |v: &Value| -> Vec<String> {
            let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
            k.sort();
            k
        };
        assert_eq!(keys(&doc), keys(&answer), "{report}");
        let ours = doc[key].as_array().unwrap();
        let theirs = answer[key].as_array().unwrap();
        assert_eq!(ours.len(), theirs.len(), "{report}");
        let mut exact = 0;
        let mut rows: Vec<(&Value, &Value)> = vec![(&doc["totals"], &answer["totals"])];
        for t in theirs {
            let o = ours
                .iter()
                .find(|o| o[id] == t[id])
                .unwrap_or_else(|| panic!("{report}: no row {}", t[id]));
            rows.push((o, t));
        }
        for (o, t) in rows {
            let what = format!("{report} {}", t[id]);
            for k in keys(t) {
                assert!(o.get(&k).is_some(), "{what}: no {k} in {o}");
            }
            for f in [
                "inputTokens",
                "outputTokens",
                "cacheCreationTokens",
                "cacheReadTokens",
                "totalTokens",
            ] {
                assert_eq!(o[f], t[f], "{what} {f}");
            }
            exact += same_cost(&o["totalCost"], &t["totalCost"], &what) as usize;
            if let Some(tb) = t["modelBreakdowns"].as_array() {
                let ob = o["modelBreakdowns"].as_array().unwrap();
                assert_eq!(ob.len(), tb.len(), "{what}");
                for (ob, tb) in ob.iter().zip(tb) {
                    let name = tb["modelName"].as_str().unwrap();
                    assert_eq!(
                        Some(ob["modelName"].as_str().unwrap()),
                        name.strip_prefix("[pi] ")
                    );
                    for k in keys(tb) {
                        match k.as_str() {
                            "modelName" => {}
                            "cost" => _ = same_cost(&ob[&k], &tb[&k], &what),
                            _ => assert_eq!(ob[&k], tb[&k], "{what} {name} {k}"),
                        }
                    }
                }
            }
            if t.get("projectPath").is_some() {
                assert_eq!(o["projectPath"], t["projectPath"], "{what}");
                assert_eq!(o["lastActivity"], t["lastActivity"], "{what}");
                assert_eq!(o["firstActivity"], t["firstActivity"], "{what}");
            }
        }
        if report != "monthly" {
            assert!(
                exact * 10 >= theirs.len() * 9,
                "{report}: only {exact} costs equal to ccusage's to 15 digits"
            );
        }
    }
}

/// Several SESSIONs (files, a directory, a session-id prefix) count those
/// sessions alone, each once (a fork's copies too); --since and --until
/// take durations as the other store tools do; a SESSION that names no
/// session is the error.
#[test]
fn several_sessions_and_durations() {
    let s = Store::new("usage-several");
    let a = s.file(
        "--p--",
        "a.jsonl",
        &[
            header("sess-a", MARCH, "/p", None),
            paid("a1", None, "2026-03-01T10:00:01.000Z", 1.0),
        ],
    );
    let b = s.file(
        "--q--",
        "b.jsonl",
        &[
            header("sess-b", MARCH, "/q", Some(&a)),
            paid("a1", None, "2026-03-01T10:00:01.000Z", 1.0),
            paid("b1", Some("a1"), "2026-03-02T10:00:01.000Z", 2.0),
        ],
    );
    s.file(
        "--r--",
        "c.jsonl",
        &[
            header("sess-c", MARCH, "/r", None),
            paid("c1", None, "2026-03-03T10:00:01.000Z", 4.0),
        ],
    );
    let all = json(s.agent(), &["session"]);
    assert_eq!(total_cost(&all), 7.0);
    // two files: the fork's copy of a1 counts once
    let two = json(s.agent(), &["session", &a, &b]);
    assert_eq!(total_cost(&two), 3.0);
    // the same file twice counts once
    assert_eq!(total_cost(&json(s.agent(), &["session", &a, &a])), 1.0);
    // a directory and a session-id prefix
    let q = s.agent().join("sessions/--q--");
    let mixed = json(s.agent(), &["session", q.to_str().unwrap(), "sess-c"]);
    assert_eq!(total_cost(&mixed), 7.0);
    // durations: 100 years ago is before every record, 1 second ago after
    assert_eq!(total_cost(&json(s.agent(), &["--since", "36500d"])), 7.0);
    let none = usage_run(s.agent(), &["--until", "36500d", "--json"]);
    assert!(none.status.success(), "{}", stderr(&none));
    assert_eq!(rows_of(&none.stdout), Vec::<Value>::new());
    let doc: Value = serde_json::from_slice(&none.stdout).unwrap();
    assert_eq!(doc["totals"]["totalCost"], 0);
    // a SESSION that names no session stops the count
    let bad = usage_run(s.agent(), &["session", &a, "zzz"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        stderr(&bad).contains("no session id starts with 'zzz'"),
        "{}",
        stderr(&bad)
    );
    // --all counts every project: no SESSION with it
    let bad = usage_run(s.agent(), &["--all", &a]);
    assert_eq!(bad.status.code(), Some(2));
}

/// `pi-usage` run on the store `agent` with `env`, within 20 s (a hang is
/// a failure, not a stuck test): the output and the peak memory (Linux).
fn usage_within(agent: &Path, args: &[&str], env: &[(&str, &str)]) -> (Output, Option<u64>) {
    let mut cmd = command("pi-usage", args);
    cmd.env("PI_CODING_AGENT_DIR", agent)
        .env("NO_COLOR", "1")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let (ran, peak) = run_within_measured(
        &mut cmd,
        std::time::Duration::from_secs(20),
        usize::MAX,
        usize::MAX,
    );
    assert!(!ran.hung, "pi-usage {args:?} {env:?}: hangs");
    (ran.output(), peak)
}

/// Make a FIFO at `path`.
fn mkfifo(path: &Path) {
    let st = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo");
    assert!(st.success());
}

/// A header's `parentSession` naming a FIFO (or a device) is not opened:
/// the fork's source is that path, as for a parent that is gone, and
/// pi-usage does not wait for a writer that never comes.
#[test]
fn a_parent_session_that_is_no_file_is_not_read() {
    let s = Store::new("usage-parent-fifo");
    let fifo = s.agent().join("parent.jsonl");
    mkfifo(&fifo);
    for parent in [fifo.to_str().unwrap(), "/dev/zero"] {
        s.file(
            "--p--",
            "fork.jsonl",
            &[
                header("fork1", MARCH, "/p", Some(parent)),
                paid("a1", None, "2026-03-01T10:00:01.000Z", 1.5),
            ],
        );
        let (o, _) = usage_within(s.agent(), &["session", "--json"], &[]);
        assert!(o.status.success(), "{parent}: {}", stderr(&o));
        let rows = rows_of(&o.stdout);
        assert_eq!(total_cost(&rows), 1.5, "{parent}");
    }
}

/// `TZ` naming a zone file that is no regular file (`/dev/zero`, a FIFO),
/// or one far larger than any zone file, is not read (days are UTC's, as
/// for a zone that cannot be read); a zone named in `TZ` still counts.
#[test]
fn a_zone_file_that_is_no_zone_file_is_not_read() {
    let s = Store::new("usage-tz-file");
    s.file(
        "--p--",
        "a.jsonl",
        &[
            header("s1", MARCH, "/p", None),
            // 22:30 UTC on 31 March is 00:30 on 1 April in Berlin
            paid("a1", None, "2026-03-31T22:30:00.000Z", 1.0),
        ],
    );
    let fifo = s.agent().join("zone-fifo");
    mkfifo(&fifo);
    let big = s.agent().join("zone-big");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(512 << 20)
        .unwrap();
    let date = |tz: &str| {
        let (o, peak) = usage_within(s.agent(), &["daily", "--json"], &[("TZ", tz)]);
        assert!(o.status.success(), "TZ={tz}: {}", stderr(&o));
        if let Some(peak) = peak {
            assert!(peak < 64 << 20, "TZ={tz}: {peak} bytes of memory");
        }
        let rows = rows_of(&o.stdout);
        rows[0]["date"].as_str().unwrap().to_string()
    };
    // (the large file first: without the bound it fails there, on memory,
    // before /dev/zero is read without end)
    for tz in [
        big.display().to_string(),
        format!(":{}", fifo.display()),
        fifo.display().to_string(),
        "/dev/zero".to_string(),
    ] {
        assert_eq!(date(&tz), "2026-03-31", "TZ={tz}");
    }
    assert_eq!(date("Europe/Berlin"), "2026-04-01");
    assert_eq!(date(":Europe/Berlin"), "2026-04-01");
    assert_eq!(date("CET-1CEST,M3.5.0,M10.5.0/3"), "2026-04-01");
}

/// --by branch on a comb (a chain with a leaf off every link: as many
/// leaves as the chain is deep, the shape where walking each leaf's path
/// costs leaves × depth): every leaf's path cost and own cost, checked.
/// (That the work is linear is src/cmd/usage/report.rs's unit test.)
#[test]
fn branch_rows_of_a_big_comb() {
    let s = Store::new("usage-comb");
    let n = 3000;
    let mut lines = vec![header("comb", MARCH, "/p", None)];
    for i in 0..n {
        let parent = (i > 0).then(|| format!("c{}", i - 1));
        lines.push(paid(
            &format!("c{i}"),
            parent.as_deref(),
            "2026-03-01T10:00:00.000Z",
            1.0,
        ));
        lines.push(paid(
            &format!("l{i}"),
            Some(&format!("c{i}")),
            "2026-03-01T10:00:00.000Z",
            1000.0,
        ));
    }
    let file = s.file("--p--", "comb.jsonl", &lines);
    let rows = json(s.agent(), &[&file, "--by", "branch"]);
    assert_eq!(rows.len(), n);
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r["leaf"], format!("l{i}"));
        // c0..ci and the leaf; the leaf and its link are its own
        assert_eq!(r["cost"], 1000.0 + (i + 1) as f64, "{r}");
        assert_eq!(r["ownCost"], 1001.0, "{r}");
        assert_eq!(r["source"]["assistant"], (i + 2) as f64, "{r}");
    }
}

/// An assistant message at entry timestamp `ts` (raw JSON) and message
/// timestamp `mts` (raw JSON) that cost `cost`.
fn at_times(id: &str, ts: &str, mts: &str, cost: f64) -> String {
    format!(
        r#"{{"type":"message","id":"{id}","parentId":null,"timestamp":{ts},"message":{{"role":"assistant","content":[],"api":"x","provider":"p","model":"m","usage":{},"stopReason":"stop","timestamp":{mts}}}}}"#,
        usage(1, cost)
    )
}

/// Sums past the largest float: JSON and CSV print the largest float of
/// the sign (a number, never null or Infinity), the table `>$1.8e308`, and
/// a warning names the sum; a cost of 10¹⁵ or more is `$1.0e300` in the
/// table, not 301 digits.
#[test]
fn huge_sums_stay_numbers_people_read() {
    let s = Store::new("usage-huge");
    let day = |h: u32| format!("\"2026-03-01T{h:02}:00:00.000Z\"");
    s.file(
        "--p--",
        "a.jsonl",
        &[
            header("s1", MARCH, "/p", None),
            at_times("a1", &day(1), "0", 1e308),
            at_times("a2", &day(2), "0", 1e308),
            at_times("b1", "\"2026-03-02T01:00:00.000Z\"", "0", 1e300),
        ],
    );
    let o = usage_run(s.agent(), &["--json", "--timezone", "UTC"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        !text.contains("null") && !text.contains("Infinity"),
        "{text}"
    );
    let rows = rows_of(text.as_bytes());
    assert_eq!(rows[0]["cost"], f64::MAX);
    assert_eq!(rows[0]["totalCost"], f64::MAX);
    assert_eq!(rows[1]["cost"], 1e300);
    let err = stderr(&o);
    assert!(
        err.contains("the sum of cost in 1 row(s) and the total is past the largest number"),
        "{err}"
    );
    let o = usage_run(s.agent(), &["--csv", "--timezone", "UTC"]);
    assert!(
        stdout(&o).contains(",1.7976931348623157e+308\n"),
        "{}",
        stdout(&o)
    );
    let o = usage_run(s.agent(), &["--timezone", "UTC"]);
    let t = stdout(&o);
    assert!(t.contains(">$1.8e308") && t.contains("$1.0e300"), "{t}");
    assert!(t.lines().all(|l| l.len() < 120), "{t}");
}

/// Timestamps `null`, 0, `true` and `false` give no time: the message's
/// own timestamp dates the record, else the header's, each said with
/// FILE:LINE; with none, the "unknown" row, said too. Far but valid dates
/// are counted on their day, written as JavaScript writes them
/// (+020000-06-15, -000500-06-15), in order.
#[test]
fn falsy_and_far_timestamps() {
    let s = Store::new("usage-times");
    let m_day = "1772445600000"; // 2026-03-02T10:00:00.000Z
    s.file(
        "--p--",
        "a.jsonl",
        &[
            header("s1", MARCH, "/p", None),
            at_times("n", "null", m_day, 1.0),
            at_times("z", "0", m_day, 2.0),
            at_times("t", "true", "0", 4.0),
            at_times("f", "false", "null", 8.0),
            at_times("far", "\"+020000-06-15T00:00:00.000Z\"", "0", 16.0),
            at_times("old", "\"-000500-06-15T12:00:00.000Z\"", "0", 32.0),
            at_times("max", "8.64e15", "0", 64.0),
        ],
    );
    s.file(
        "--p--",
        "b.jsonl",
        &[
            header("s2", "not a time", "/p", None),
            at_times("u", "null", "false", 128.0),
        ],
    );
    let o = usage_run(s.agent(), &["--json", "--timezone", "UTC", "--no-cache"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = rows_of(&o.stdout);
    let got: Vec<(String, f64)> = rows
        .iter()
        .map(|r| {
            (
                r["date"].as_str().unwrap().to_string(),
                r["cost"].as_f64().unwrap(),
            )
        })
        .collect();
    let want = [
        ("-000500-06-15", 32.0),
        ("2026-03-01", 12.0),
        ("2026-03-02", 3.0),
        ("+020000-06-15", 16.0),
        ("+275760-09-13", 64.0),
        ("unknown", 128.0),
    ];
    let want: Vec<(String, f64)> = want.iter().map(|(d, c)| (d.to_string(), *c)).collect();
    assert_eq!(got, want);
    let err = stderr(&o);
    for (line, what) in [
        (
            "a.jsonl:2:",
            "timestamp is null, no time; dated by message.timestamp",
        ),
        (
            "a.jsonl:3:",
            "timestamp is 0, no time; dated by message.timestamp",
        ),
        (
            "a.jsonl:4:",
            "timestamp is true and message.timestamp 0, no time; dated by the session header",
        ),
        (
            "a.jsonl:5:",
            "timestamp is false and message.timestamp null, no time; dated by the session header",
        ),
        (
            "b.jsonl:2:",
            "nor the header's; counted in the \"unknown\" row",
        ),
    ] {
        assert!(
            err.lines().any(|l| l.contains(line) && l.contains(what)),
            "{line} {what}: {err}"
        );
    }
    assert_eq!(err.lines().count(), 5, "{err}");
    // weeks (Mondays, as JavaScript's getUTCDay() finds them) and months
    // of far years, and --since/--until across them
    let rows = json(s.agent(), &["weekly", "--timezone", "UTC", "--no-cache"]);
    let weeks: Vec<&str> = rows.iter().map(|r| r["week"].as_str().unwrap()).collect();
    assert_eq!(
        weeks,
        [
            "-000500-06-11",
            "2026-02-23",
            "2026-03-02",
            "+020000-06-12",
            "+275760-09-08",
            "unknown"
        ]
    );
    let rows = json(s.agent(), &["monthly", "--timezone", "UTC", "--no-cache"]);
    assert_eq!(rows[2]["month"], "+020000-06", "{rows:?}");
    let rows = json(
        s.agent(),
        &["--since", "2026-03-02", "--timezone", "UTC", "--no-cache"],
    );
    let dates: Vec<&str> = rows.iter().map(|r| r["date"].as_str().unwrap()).collect();
    assert_eq!(dates, ["2026-03-02", "+020000-06-15", "+275760-09-13"]);
}

/// A user message `text` (raw JSON string contents).
fn user(id: &str, parent: Option<&str>, text: &str) -> String {
    message_at(
        id,
        parent,
        "2026-03-01T10:00:00.000Z",
        &format!(r#"{{"role":"user","content":"{text}","timestamp":0}}"#),
    )
}

/// An entry of `ty` with `fields` (raw JSON members) at one time.
fn entry(ty: &str, id: &str, parent: &str, fields: &str) -> String {
    format!(
        r#"{{"type":"{ty}","id":"{id}","parentId":"{parent}","timestamp":"2026-03-01T10:00:00.000Z"{fields}}}"#
    )
}

/// A session shaped like examples/s.jsonl: four branches, labels (one
/// cleared, one above a fork), a compaction, a branch summary, a `usage` entry, leaves that
/// are bookkeeping (a label, a session name), a user message with control
/// characters; each record's cost a power of two, so each sum says what
/// was counted.
fn branched(s: &Store) -> String {
    let t = "2026-03-01T10:00:00.000Z";
    let priced = |ty: &str, id: &str, parent: &str, more: &str, cost: f64| {
        entry(
            ty,
            id,
            parent,
            &format!(r#"{more},"usage":{}"#, usage(1, cost)),
        )
    };
    s.file(
        "--p--",
        "b.jsonl",
        &[
            header("sb", MARCH, "/p", None),
            user("u1", None, "Fix the parser"),
            paid("a1", Some("u1"), t, 1.0),
            user(
                "u2",
                Some("a1"),
                r"Plan A:\n\tuse a \u001b[31mstack\u001b[0m, and then say far more than forty characters",
            ),
            paid("a2", Some("u2"), t, 2.0),
            entry("label", "k2", "a2", r#","targetId":"a2","label":"gone""#),
            entry("label", "k3", "k2", r#","targetId":"a2","label":"""#),
            user("u3", Some("a1"), "Plan B"),
            paid("a3", Some("u3"), t, 4.0),
            entry("label", "k4", "a3", r#","targetId":"a3","label":"plan-b""#),
            paid("a4", Some("k4"), t, 8.0),
            priced("compaction", "c1", "a4", r#","summary":"s","firstKeptEntryId":"a4","tokensBefore":5"#, 16.0),
            paid("a5", Some("c1"), t, 32.0),
            priced("usage", "x1", "a5", r#","kind":"title","provider":"p","model":"m""#, 64.0),
            entry("session_info", "n1", "x1", r#","name":"parser""#),
            user("u5", Some("a3"), "Plan B2"),
            paid("a7", Some("u5"), t, 512.0),
            priced("branch_summary", "b1", "a1", r#","fromId":"a3","summary":"s""#, 128.0),
            user("u4", Some("b1"), "Plan C"),
            paid("a6", Some("u4"), t, 256.0),
        ],
    )
}

/// What the entries on the path to `leaf` cost, as pi-path gives the path.
fn path_cost(file: &str, leaf: &str) -> f64 {
    let o = run(
        "pi-path",
        &["--format", "entries", "--leaf", leaf, file],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    stdout(&o)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|v| {
            let u = if v["type"] == "message" {
                &v["message"]["usage"]
            } else {
                &v["usage"]
            };
            u["cost"]["total"].as_f64().unwrap_or(0.0)
        })
        .sum()
}

/// --by branch (issue 32): a row per pi leaf, named by the label nearest
/// the leaf (a cleared one is none; one that names two rows followed by the
/// last user message), else the last user message, one line, cut, its
/// control characters shown; each row's cost is what the entries
/// on its path cost (compacted ones, the compaction, a `usage` entry and a
/// branch summary included): equal to the per-path sums; own costs add up
/// to the total. JSON adds branch, label and lastUser; CSV, branch.
#[test]
fn branch_rows_are_named_and_add_up() {
    let s = Store::new("usage-named");
    let file = branched(&s);
    let rows = json(s.agent(), &[&file, "--by", "branch"]);
    let got: Vec<(&str, &str, f64, f64)> = rows
        .iter()
        .map(|r| {
            (
                r["leaf"].as_str().unwrap(),
                r["branch"].as_str().unwrap(),
                r["cost"].as_f64().unwrap(),
                r["ownCost"].as_f64().unwrap(),
            )
        })
        .collect();
    let a = r"Plan A: use a \x1b[31mstack\x1b[0m, and then s…";
    assert_eq!(
        got,
        [
            ("k3", a, 3.0, 3.0),
            ("n1", "plan-b: Plan B", 125.0, 124.0),
            ("a7", "plan-b: Plan B2", 517.0, 512.0),
            ("a6", "Plan C", 385.0, 384.0)
        ]
    );
    for (leaf, _, cost, _) in &got {
        assert_eq!(path_cost(&file, leaf), *cost, "{leaf}");
    }
    assert_eq!(
        rows.iter()
            .map(|r| r["ownCost"].as_f64().unwrap())
            .sum::<f64>(),
        1023.0
    );
    assert!(rows[0].get("label").is_none(), "{}", rows[0]);
    assert_eq!(
        rows[0]["lastUser"],
        "Plan A:\n\tuse a \u{1b}[31mstack\u{1b}[0m, and then say far more than forty characters"
    );
    assert_eq!(
        (&rows[1]["label"], &rows[1]["lastUser"]),
        (&"plan-b".into(), &"Plan B".into())
    );
    assert!(rows[3].get("label").is_none());
    // the table: a Branch column, no raw control character
    let o = usage_run(s.agent(), &[&file, "--by", "branch"]);
    let table = stdout(&o);
    assert!(table.starts_with("Leaf   Branch "), "{table}");
    assert!(table.contains(a) && !table.contains('\u{1b}'), "{table}");
    let o = usage_run(s.agent(), &[&file, "--by", "branch", "--csv"]);
    let csv = stdout(&o);
    assert!(csv.starts_with("leaf,branch,inputTokens,"), "{csv}");
    assert!(csv.contains("\nn1,plan-b: Plan B,"), "{csv}");
}

/// --leaf REF (issue 32): the one row of the path from the root to REF,
/// REF read as every tool reads it; its totals are its own.
#[test]
fn leaf_gives_one_branch() {
    let s = Store::new("usage-leaf");
    let file = branched(&s);
    let one = |r: &str| {
        let rows = json(s.agent(), &[&file, "--leaf", r]);
        assert_eq!(rows.len(), 1, "{r}: {rows:?}");
        let r = &rows[0];
        (
            r["leaf"].as_str().unwrap().to_string(),
            r["branch"].as_str().unwrap().to_string(),
            r["cost"].as_f64().unwrap(),
        )
    };
    assert_eq!(one("leaf"), ("a6".into(), "Plan C".into(), 385.0));
    assert_eq!(one("n1"), ("n1".into(), "plan-b: Plan B".into(), 125.0));
    assert_eq!(one("@plan-b"), ("a3".into(), "plan-b: Plan B".into(), 5.0));
    assert_eq!(one("c1"), ("c1".into(), "plan-b: Plan B".into(), 29.0));
    assert_eq!(path_cost(&file, "c1"), 29.0);
    let o = usage_run(s.agent(), &[&file, "--leaf", "a6"]);
    let table = stdout(&o);
    let total = table.lines().last().unwrap();
    assert!(
        total.starts_with("Total") && total.contains("$385.00"),
        "{table}"
    );
    for (args, status, says) in [
        (
            vec![file.as_str(), "--leaf", "nope"],
            1,
            "no entry has an id starting with 'nope'",
        ),
        (vec!["--leaf", "leaf"], 2, "--leaf needs one SESSION"),
        (
            vec![file.as_str(), "--leaf", "leaf", "--by", "model"],
            2,
            "--leaf gives one branch",
        ),
    ] {
        let o = usage_run(s.agent(), &args);
        assert_eq!(o.status.code(), Some(status), "{args:?}");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
}

/// On examples/s.jsonl the branch that goes on past the compaction cost
/// $8.88: every entry on its path, where the messages pi-path gives (the
/// context) cost $4.44. Its rows are named by their labels.
#[test]
fn examples_branch_cost_counts_what_was_compacted() {
    let f = repo().join("examples/s.jsonl");
    let f = f.to_str().unwrap();
    let s = Store::new("usage-examples");
    let rows = json(s.agent(), &[f, "--by", "branch"]);
    let names: Vec<(&str, &str, f64)> = rows
        .iter()
        .map(|r| {
            let cost = (r["cost"].as_f64().unwrap() * 100.0).round() / 100.0;
            (
                r["leaf"].as_str().unwrap(),
                r["branch"].as_str().unwrap(),
                cost,
            )
        })
        .collect();
    assert_eq!(
        names,
        [("b4d00167", "plan-a", 2.22), ("b894406c", "retry", 8.88)]
    );
    let leaf = json(s.agent(), &[f, "--leaf", "leaf"]);
    assert_eq!(leaf[0]["cost"], rows[1]["cost"]);
    let o = run("pi-path", &["--format", "messages", f], None);
    let context: f64 = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter_map(|m| m["usage"]["cost"]["total"].as_f64())
        .sum();
    assert_eq!((context * 100.0).round() / 100.0, 4.44);
}

/// A torn last line is named as every other tool names it (issue 35), not
/// "not a JSON object".
#[test]
fn torn_line_worded_as_the_other_tools() {
    let s = Store::new("usage-torn");
    let whole = paid("a1", None, "2026-03-01T10:00:00.000Z", 1.0);
    let cut = whole.find(r#""stopReason":"st"#).unwrap() + r#""stopReason":"st"#.len();
    let lines = vec![
        header("s1", MARCH, "/p", None),
        paid("a0", None, "2026-03-01T10:00:00.000Z", 1.0),
        whole[..cut].to_string(),
    ];
    s.file("--p--", "a.jsonl", &lines);
    let o = usage_run(s.agent(), &["--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("a.jsonl:3: not valid JSON: unterminated string (a torn or truncated line?)"),
        "{err}"
    );
    assert!(!err.contains("not a JSON object"), "{err}");
}
