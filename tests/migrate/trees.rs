//! pi-migrate on trees of files (issue 35): the same output every run,
//! `--json`, `--drop-torn`, and pi 0.30's misplaced files in dry runs.
use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

/// A tree of old sessions of unequal sizes (so that the workers finish
/// out of order), some current; the old ones' paths, sorted.
fn tree(root: &Path, n: usize) -> Vec<String> {
    let mut old = Vec::new();
    for i in 0..n {
        let dir = root.join(format!("--p{}--", i % 5));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(format!("s{:03}.jsonl", (i * 37) % n));
        // Every fourth is large, to be slow.
        let count = if i % 4 == 0 { 3000 } else { 2 };
        let text = if i % 6 == 5 {
            session(&[user("aaaaaaaa", None, "hi")])
        } else {
            old.push(p.to_str().unwrap().to_string());
            v1_session(&format!("sid-{i}"), (0..count).map(|k| format!("m{k}")))
        };
        std::fs::write(&p, text).unwrap();
    }
    old.sort();
    old
}

fn agent_run(agent: &Path, args: &[&str]) -> Output {
    run_with("pi-migrate", args, None, |c| {
        c.env("PI_CODING_AGENT_DIR", agent).stdin(Stdio::null());
    })
}

#[test]
fn the_same_order_every_run() {
    let t = TempDir::new("mig-order");
    let old = tree(t.path(), 60);
    let dir = t.path().to_str().unwrap();
    let first = run("pi-migrate", &["--check", dir], None);
    assert_eq!(first.status.code(), Some(1), "{}", stderr(&first));
    assert_eq!(stdout(&first).lines().collect::<Vec<_>>(), old);
    for _ in 0..3 {
        let o = run("pi-migrate", &["--check", dir], None);
        assert_eq!(stdout(&o), stdout(&first));
    }
    let o = run("pi-migrate", &["--dry-run", dir], None);
    let named: Vec<String> = stdout(&o)
        .lines()
        .map(|l| l.split(": version").next().unwrap().to_string())
        .collect();
    assert_eq!(named, old);
}

#[test]
fn json_one_object_per_file() {
    let t = TempDir::new("mig-json");
    let old = t.write("a.jsonl", v1_session("s1", ["x".to_string()]).as_bytes());
    let cur = t.write(
        "b.jsonl",
        session(&[user("aaaaaaaa", None, "hi")]).as_bytes(),
    );
    let bad = t.write("c.jsonl", b"{\"type\":\"session\",\"id\":\"s\"}\n{oops}\n");
    let dir = t.path().to_str().unwrap();
    let o = run("pi-migrate", &["-i", "--backup", "--json", dir], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_stderr_has(&o, "c.jsonl:2:");
    let v = json_lines(&stdout(&o));
    assert_eq!(v.len(), 3, "{}", stdout(&o));
    let path = |p: &PathBuf| p.to_str().unwrap().to_string();
    assert_eq!(v[0]["path"], path(&old));
    assert_eq!(v[0]["status"], "migrated");
    assert_eq!(v[0]["fromVersion"], 1);
    assert_eq!(v[0]["toVersion"], 3);
    assert_eq!(v[0]["backup"], format!("{}.bak", path(&old)));
    assert!(Path::new(&format!("{}.bak", path(&old))).exists());
    assert_eq!(v[0]["warnings"], serde_json::json!([]));
    assert_eq!(v[1]["path"], path(&cur));
    assert_eq!(v[1]["status"], "current");
    assert_eq!(v[1]["fromVersion"], 3);
    assert_eq!(v[1]["backup"], serde_json::Value::Null);
    assert_eq!(v[2]["path"], path(&bad));
    assert_eq!(v[2]["status"], "failed");
    assert!(v[2]["error"].as_str().unwrap().contains("c.jsonl:2:"));
    // Checked: would-migrate; the file left as it is.
    std::fs::write(&old, v1_session("s1", ["x".to_string()])).unwrap();
    let o = run(
        "pi-migrate",
        &["--check", "--json", old.to_str().unwrap()],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    let v = json_lines(&stdout(&o));
    assert_eq!(v[0]["status"], "would-migrate");
    assert_eq!(v[0]["backup"], serde_json::Value::Null);
    // Without -i, --check or --dry-run the session itself is printed.
    let o = run("pi-migrate", &["--json", old.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(2));
    assert_stderr_has(&o, "--json needs");
}

#[test]
fn drop_torn_keeps_the_line_in_the_backup() {
    let t = TempDir::new("mig-torn");
    let good = v1_session("s1", ["x".to_string(), "y".to_string()]);
    let torn_line = "{\"type\":\"message\",\"message\":{\"role\":\"user\",\"con";
    let old = format!("{good}{torn_line}");
    let f = t.write("a.jsonl", old.as_bytes());
    let name = f.to_str().unwrap();
    // Without the flag: refused as before, and the flag is named.
    let o = run("pi-migrate", &["-i", name], None);
    assert_eq!(o.status.code(), Some(1));
    assert_stderr_has(&o, "a.jsonl:4:");
    assert_stderr_has(&o, "--drop-torn");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), old);
    // In place it needs the backup that keeps the line.
    let o = run("pi-migrate", &["-i", "--drop-torn", name], None);
    assert_eq!(o.status.code(), Some(2));
    assert_stderr_has(&o, "needs --backup");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), old);
    // A dry run names it.
    let o = run("pi-migrate", &["--dry-run", "--drop-torn", name], None);
    assert!(
        stdout(&o).contains("torn last line 4 dropped"),
        "{}",
        stdout(&o)
    );
    let o = run("pi-migrate", &["-i", "--backup", "--drop-torn", name], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_stderr_has(&o, "a.jsonl:4: torn last line dropped");
    assert_stderr_has(&o, "a.jsonl.bak");
    let now = std::fs::read_to_string(&f).unwrap();
    assert_eq!(now, stdout(&run("pi-migrate", &[], Some(good.as_bytes()))));
    assert!(!now.contains(torn_line));
    let bak = std::fs::read_to_string(t.path().join("a.jsonl.bak")).unwrap();
    assert!(bak.ends_with(torn_line));
    // To stdout: the line left out, and said on stderr.
    let o = run("pi-migrate", &["--drop-torn"], Some(old.as_bytes()));
    assert!(o.status.success());
    assert_eq!(stdout(&o), now);
    assert_stderr_has(&o, "<stdin>:4: torn last line dropped");
}

#[test]
fn dry_run_all_names_misplaced_files() {
    let t = TempDir::new("mig-misplaced");
    let agent = t.path().join("agent");
    std::fs::create_dir_all(agent.join("sessions/--p--")).unwrap();
    let old = v1_session("s1", ["x".to_string()]);
    std::fs::write(agent.join("sessions/--p--/a.jsonl"), &old).unwrap();
    std::fs::write(agent.join("x.jsonl"), &old).unwrap();
    let x = agent.join("x.jsonl");
    let x = x.to_str().unwrap();
    let dest = agent.join("sessions/--p--/x.jsonl");
    let dest = dest.to_str().unwrap();
    let o = agent_run(&agent, &["--dry-run", "--all"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains(&format!(
            "{x}: misplaced by pi 0.30; --relocate would move it to {dest}"
        )),
        "{out}"
    );
    assert!(!out.contains(&format!("{x}: version")), "{out}");
    // With --relocate: the move, and its migration too.
    let o = agent_run(&agent, &["--dry-run", "--all", "--relocate"]);
    let out = stdout(&o);
    assert!(out.contains(&format!("{x}: would move to {dest}")), "{out}");
    assert!(out.contains(&format!("{x}: version 1 -> 3")), "{out}");
    let o = agent_run(&agent, &["--check", "--all", "--relocate"]);
    assert!(stdout(&o).lines().any(|l| l == x), "{}", stdout(&o));
    // Only paths on stdout (for -0 lists); what would move on stderr.
    assert!(!stdout(&o).contains("would move"), "{}", stdout(&o));
    assert_stderr_has(&o, &format!("{x}: would move to {dest}"));
    // The summary too says what would be done, not what was.
    assert_stderr_has(&o, "1 would be relocated");
    assert!(!stderr(&o).contains(" 1 relocated"), "{}", stderr(&o));
    // --check without --relocate warns on stderr; stdout stays paths.
    let o = agent_run(&agent, &["--check", "--all"]);
    assert_stderr_has(&o, "misplaced by pi 0.30");
    assert!(!stdout(&o).contains("pi 0.30"), "{}", stdout(&o));
    let o = agent_run(&agent, &["--dry-run", "--all", "--json"]);
    let v = json_lines(&stdout(&o));
    assert_eq!(v[0]["path"], x);
    assert_eq!(v[0]["status"], "misplaced");
    assert_eq!(v[0]["movedTo"], dest);
    // Nothing moved by any of these.
    assert!(agent.join("x.jsonl").exists());
    assert!(!agent.join("sessions/--p--/x.jsonl").exists());
}
