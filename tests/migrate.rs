//! pi-migrate, driven as a user runs it.
use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, SystemTime};

fn answer(name: &str) -> String {
    let p = repo()
        .join("tests/conformance/answers/pi-migrate")
        .join(format!("{name}.jsonl"));
    let text = std::fs::read_to_string(p).unwrap();
    let v: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    v["stdout"].as_str().unwrap().to_string()
}

fn old_fixtures() -> Vec<(String, PathBuf)> {
    let mut v: Vec<_> = std::fs::read_dir(repo().join("tests/conformance/sessions"))
        .unwrap()
        .flatten()
        .map(|d| d.path())
        .filter_map(|p| {
            let n = p.file_stem()?.to_str()?.to_string();
            (n.starts_with("v1-") || n.starts_with("v2-")).then_some((n, p))
        })
        .collect();
    v.sort();
    v
}

fn mtime(p: &Path) -> SystemTime {
    std::fs::metadata(p).unwrap().modified().unwrap()
}

#[test]
fn conformance_with_pi() {
    check_each(&cases("pi-migrate"), 6, |c| same_stdout(c, str::to_string));
}

#[test]
fn in_place_is_pi_and_idempotent() {
    let t = TempDir::new("mig-idem");
    let mut files = Vec::new();
    for (name, p) in old_fixtures() {
        let f = t.write(&format!("{name}.jsonl"), &std::fs::read(&p).unwrap());
        files.push((name, f));
    }
    let dir = t.path().to_str().unwrap();
    let o = run("pi-migrate", &["--check", dir], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), files.len());
    // The ids the read-only tools show for the old file are the ids it gets.
    let (_, first) = &files[0];
    let ids_before = stdout(&run(
        "pi-path",
        &["--format", "ids", first.to_str().unwrap()],
        None,
    ));
    let o = run("pi-migrate", &["-i", dir], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!(
            "{} migrated, 0 already current, 0 failed",
            files.len()
        )),
        "{}",
        stderr(&o)
    );
    for (name, f) in &files {
        assert_eq!(std::fs::read_to_string(f).unwrap(), answer(name), "{name}");
    }
    let ids_after = stdout(&run(
        "pi-path",
        &["--format", "ids", first.to_str().unwrap()],
        None,
    ));
    assert_eq!(ids_before, ids_after);
    // A second run changes nothing, not even the times.
    let times: Vec<_> = files.iter().map(|(_, f)| mtime(f)).collect();
    std::thread::sleep(Duration::from_millis(20));
    let o = run("pi-migrate", &["-i", dir], None);
    assert!(o.status.success());
    assert!(stderr(&o).contains(&format!("0 migrated, {} already current", files.len())));
    for ((name, f), t0) in files.iter().zip(times) {
        assert_eq!(mtime(f), t0, "{name} touched");
        assert_eq!(std::fs::read_to_string(f).unwrap(), answer(name));
    }
    let o = run("pi-migrate", &["--check", dir], None);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "");
    assert_eq!(names_in(t.path(), &[]).len(), files.len(), "stray files");
}

#[test]
fn stdin_stdout_and_usage() {
    let (name, p) = &old_fixtures()[0];
    let bytes = std::fs::read(p).unwrap();
    let o = run("pi-migrate", &[], Some(&bytes));
    assert!(o.status.success());
    assert_eq!(stdout(&o), answer(name));
    let o = run("pi-migrate", &["-"], Some(&bytes));
    assert_eq!(stdout(&o), answer(name));
    let o = run("pi-migrate", &["--check"], Some(&bytes));
    assert_eq!(o.status.code(), Some(1));
    let o = run("pi-migrate", &["--check"], Some(answer(name).as_bytes()));
    assert_eq!(o.status.code(), Some(0));
    // A current file goes through unchanged.
    let v3 = fixture("v3-001");
    let o = run("pi-migrate", &[&v3], None);
    assert_eq!(o.stdout, std::fs::read(&v3).unwrap());
    // A directory, or several files, without -i/--check/--dry-run.
    let d = repo().join("tests/conformance/sessions");
    assert_eq!(
        run("pi-migrate", &[d.to_str().unwrap()], None)
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        run("pi-migrate", &[&v3, p.to_str().unwrap()], None)
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        run("pi-migrate", &["-i"], Some(&bytes)).status.code(),
        Some(2)
    );
    let o = run("pi-migrate", &["--dry-run", p.to_str().unwrap()], None);
    assert!(o.status.success());
    assert!(
        stdout(&o).contains("version 1 -> 3: 28 entries given ids"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn random_ids_like_pi() {
    let (_, p) = &old_fixtures()[0];
    let o = run("pi-migrate", &["--random-ids", p.to_str().unwrap()], None);
    assert!(o.status.success());
    let text = stdout(&o);
    let mut seen = std::collections::HashSet::new();
    let mut prev = serde_json::Value::Null;
    for (i, l) in text.lines().enumerate().skip(1) {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        let id = v["id"].as_str().unwrap().to_string();
        assert!(
            id.len() == 8 && id.bytes().all(|b| b.is_ascii_hexdigit()),
            "line {i}"
        );
        assert!(seen.insert(id.clone()));
        assert_eq!(v["parentId"], prev);
        prev = serde_json::Value::String(id);
    }
    let again = stdout(&run(
        "pi-migrate",
        &["--random-ids", p.to_str().unwrap()],
        None,
    ));
    assert_ne!(text, again, "random ids should differ between runs");
}

const V1_MESSY: &[u8] = b"{\"type\":\"session\",\"id\":\"s-1\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"cwd\":\"/p\",\"provider\":\"x\"}\r\n\
\n\
{\"type\":\"message\",\"timestamp\":\"2025-01-01T00:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"hi\",\"timestamp\":1}}\r\n\
{\"type\":\"message\", \"timestamp\" : \"2025-01-01T00:00:02.000Z\"   ,\"message\":{\"role\":\"hookMessage\",\"content\":\"x\\u00e9\"} }\n\
{this is not json\n\
   \n\
{\"type\":\"whatever\",\"unknown\":[1,2,{\"a\":null}]}\n\
[1,2]\n\
{\"type\":\"compaction\",\"timestamp\":\"2025-01-01T00:00:03.000Z\",\"summary\":\"s\",\"firstKeptEntryIndex\":2,\"tokensBefore\":9}";

#[test]
fn keep_malformed_keeps_every_byte() {
    let t = TempDir::new("mig-keep");
    let f = t.write("m.jsonl", V1_MESSY);
    let fs_ = f.to_str().unwrap();
    // Refused by default: FILE:LINE, exit 1, untouched.
    let t0 = mtime(&f);
    let o = run("pi-migrate", &["-i", fs_], None);
    assert_eq!(o.status.code(), Some(1));
    assert_stderr_has(&o, &format!("{fs_}:5:"));
    assert_eq!(std::fs::read(&f).unwrap(), V1_MESSY);
    assert_eq!(mtime(&f), t0);
    let o = run("pi-migrate", &["-i", "--keep-malformed", fs_], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let new = std::fs::read(&f).unwrap();
    let old_lines: Vec<&[u8]> = V1_MESSY.split(|&b| b == b'\n').collect();
    let new_lines: Vec<&[u8]> = new.split(|&b| b == b'\n').collect();
    assert_eq!(old_lines.len(), new_lines.len());
    let ids = stdout(&run("pi-path", &["--format", "ids"], Some(V1_MESSY)));
    let ids: Vec<&str> = ids.lines().collect();
    assert_eq!(ids.len(), 4);
    for (i, (o, n)) in old_lines.iter().zip(&new_lines).enumerate() {
        match i {
            // Unchanged lines: byte for byte (blank, malformed, not an object).
            1 | 4 | 5 | 7 => assert_eq!(o, n, "line {}", i + 1),
            // Changed lines keep their text up to the closing brace.
            _ => {
                let close = o.iter().rposition(|&b| b == b'}').unwrap();
                assert!(
                    n.starts_with(&o[..close]) || i == 3 || i == 8,
                    "line {}",
                    i + 1
                );
                assert_eq!(o.ends_with(b"\r"), n.ends_with(b"\r"), "line {}", i + 1);
            }
        }
    }
    let text = String::from_utf8(new).unwrap();
    assert!(text.starts_with("{\"type\":\"session\",\"id\":\"s-1\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"cwd\":\"/p\",\"provider\":\"x\",\"version\":3}\r\n\n"));
    assert!(
        text.contains(&format!(
            "\"tokensBefore\":9,\"id\":\"{}\",\"parentId\":\"{}\",\"firstKeptEntryId\":\"{}\"}}",
            ids[3], ids[2], ids[1]
        )),
        "{text}"
    );
    assert!(text.contains(&format!("{{\"type\":\"message\", \"timestamp\" : \"2025-01-01T00:00:02.000Z\"   ,\"message\":{{\"role\":\"custom\",\"content\":\"x\\u00e9\"}} ,\"id\":\"{}\",\"parentId\":\"{}\"}}\n", ids[1], ids[0])), "{text}");
    assert!(!text.ends_with('\n'));
    // Idempotent afterwards.
    let o = run("pi-migrate", &["--check", fs_], None);
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn refusals_leave_files_untouched() {
    let t = TempDir::new("mig-refuse");
    let cases: &[(&str, &[u8], &str)] = &[
        ("empty.jsonl", b"", "empty"),
        ("blank.jsonl", b"\n\n", "no session header"),
        (
            "noheader.jsonl",
            b"{\"type\":\"message\",\"id\":\"a\"}\n",
            ":1:",
        ),
        (
            "late.jsonl",
            b"{\"type\":\"message\"}\n{\"type\":\"session\",\"id\":\"s\"}\n",
            ":1:",
        ),
        (
            "newer.jsonl",
            b"{\"type\":\"session\",\"version\":4,\"id\":\"s\"}\n{\"type\":\"x\"}\n",
            ":1:",
        ),
        (
            "garbage.jsonl",
            b"{\"type\":\"session\",\"id\":\"s\"}\n{\"type\":\"x\",\n",
            ":2:",
        ),
    ];
    let mut times = Vec::new();
    for (n, b, _) in cases {
        times.push(mtime(&t.write(n, b)));
    }
    let v1 = t.write(
        "ok.jsonl",
        b"{\"type\":\"session\",\"id\":\"s\"}\n{\"type\":\"x\"}\n",
    );
    std::thread::sleep(Duration::from_millis(20));
    let o = run("pi-migrate", &["-i", t.path().to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains(&format!(
            "1 migrated, 0 already current, {} failed",
            cases.len()
        )),
        "{err}"
    );
    for ((n, b, what), t0) in cases.iter().zip(times) {
        let p = t.path().join(n);
        assert_eq!(&std::fs::read(&p).unwrap()[..], *b, "{n}");
        assert_eq!(mtime(&p), t0, "{n}");
        let line = err
            .lines()
            .find(|l| l.contains(&format!("/{n}")))
            .unwrap_or_else(|| panic!("no error for {n}: {err}"));
        assert!(line.contains(what), "{n}: {line}");
    }
    assert!(std::fs::read_to_string(&v1)
        .unwrap()
        .contains("\"version\":3"));
    assert_eq!(names_in(t.path(), &[]).len(), cases.len() + 1);
}

#[test]
fn backup_keeps_the_original() {
    let t = TempDir::new("mig-bak");
    let (name, p) = &old_fixtures()[0];
    let old = std::fs::read(p).unwrap();
    let f = t.write("a.jsonl", &old);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let o = run("pi-migrate", &["-i", "--backup", f.to_str().unwrap()], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(t.path().join("a.jsonl.bak")).unwrap(), old);
    assert_eq!(std::fs::read_to_string(&f).unwrap(), answer(name));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&f).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    // An existing backup is never overwritten: the file is left as it is.
    std::fs::write(&f, &old).unwrap();
    let o = run(
        "pi-migrate",
        &["-i", "--backup=.orig", f.to_str().unwrap()],
        None,
    );
    assert!(o.status.success());
    std::fs::write(&f, &old).unwrap();
    let o = run(
        "pi-migrate",
        &["-i", "--backup=.orig", f.to_str().unwrap()],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    assert_stderr_has(&o, "already exists");
    assert_eq!(std::fs::read(&f).unwrap(), old);
}

#[test]
fn a_thousand_small_files() {
    let t = TempDir::new("mig-batch");
    let mut expect = Vec::new();
    for i in 0..1000 {
        let sub = t.path().join(format!("--p{}--", i % 7));
        std::fs::create_dir_all(&sub).unwrap();
        let p = sub.join(format!("s{i}.jsonl"));
        let v = i % 3; // 0: v1, 1: v2, 2: v3
        let mut s = match v {
            0 => format!(
                "{{\"type\":\"session\",\"id\":\"sid-{i}\",\"timestamp\":\"t\",\"cwd\":\"/p\"}}\n"
            ),
            1 => format!(
                "{{\"type\":\"session\",\"version\":2,\"id\":\"sid-{i}\",\"cwd\":\"/p\"}}\n"
            ),
            _ => format!(
                "{{\"type\":\"session\",\"version\":3,\"id\":\"sid-{i}\",\"cwd\":\"/p\"}}\n"
            ),
        };
        for k in 0..(i % 5 + 1) {
            if v == 0 {
                s.push_str(&format!(
                    "{{\"type\":\"message\",\"message\":{{\"role\":\"hookMessage\",\"n\":{k}}}}}\n"
                ));
            } else {
                s.push_str(&format!("{{\"type\":\"message\",\"id\":\"{k:08x}\",\"parentId\":null,\"message\":{{\"role\":\"hookMessage\"}}}}\n"));
            }
        }
        std::fs::write(&p, &s).unwrap();
        expect.push((p, v, s));
    }
    std::fs::write(t.path().join("notes.txt"), b"not a session").unwrap();
    let o = run("pi-migrate", &["-i", t.path().to_str().unwrap()], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_stderr_has(&o, "667 migrated, 333 already current, 0 failed");
    for (p, v, s) in expect {
        let now = std::fs::read_to_string(&p).unwrap();
        if v == 2 {
            assert_eq!(now, s);
            continue;
        }
        let want = stdout(&run("pi-migrate", &[], Some(s.as_bytes())));
        assert_eq!(now, want, "{}", p.display());
        assert!(now.lines().next().unwrap().contains("\"version\":3"));
        assert!(!now.contains("hookMessage"));
    }
    let o = run("pi-migrate", &["--check", t.path().to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

#[test]
fn relocates_like_pi() {
    let t = TempDir::new("mig-reloc");
    let agent = t.path().join("agent");
    std::fs::create_dir_all(agent.join("sessions/--home-a--")).unwrap();
    let (name, p) = &old_fixtures()[0];
    let mut text = std::fs::read_to_string(p).unwrap();
    // Point the header at a known cwd.
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let cwd = header["cwd"].as_str().unwrap().to_string();
    text = text.replacen(
        &format!("\"cwd\":{}", serde_json::to_string(&cwd).unwrap()),
        "\"cwd\":\"/home/b\"",
        1,
    );
    std::fs::write(agent.join("x.jsonl"), &text).unwrap();
    std::fs::write(
        agent.join("sessions/--home-a--/y.jsonl"),
        b"{\"type\":\"session\",\"id\":\"s\"}\n",
    )
    .unwrap();
    // Already there: never overwritten.
    std::fs::create_dir_all(agent.join("sessions/--home-b--")).unwrap();
    std::fs::write(agent.join("z.jsonl"), &text).unwrap();
    std::fs::write(
        agent.join("sessions/--home-b--/z.jsonl"),
        b"{\"type\":\"session\",\"version\":3,\"id\":\"z\"}\n",
    )
    .unwrap();
    let o = run_with("pi-migrate", &["-i", "--all", "--relocate"], None, |c| {
        c.env("PI_CODING_AGENT_DIR", &agent).stdin(Stdio::null());
    });
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!agent.join("x.jsonl").exists());
    let moved = std::fs::read_to_string(agent.join("sessions/--home-b--/x.jsonl")).unwrap();
    assert!(moved.starts_with("{\"type\":\"session\""));
    assert!(moved.lines().next().unwrap().contains("\"version\":3"));
    assert_eq!(moved.lines().count(), answer(name).lines().count());
    assert!(agent.join("z.jsonl").exists());
    assert_eq!(
        std::fs::read(agent.join("sessions/--home-b--/z.jsonl")).unwrap(),
        b"{\"type\":\"session\",\"version\":3,\"id\":\"z\"}\n"
    );
    assert!(
        std::fs::read_to_string(agent.join("sessions/--home-a--/y.jsonl"))
            .unwrap()
            .contains("\"version\":3")
    );
}

/// A big version-1 session (tens of MB) and its migrated text.
fn big_v1() -> (Vec<u8>, Vec<u8>) {
    let pad = "x".repeat(2000);
    let old = v1_session("big", (0..12_000).map(|i| format!("{i} {pad}"))).into_bytes();
    let o = run("pi-migrate", &[], Some(&old));
    assert!(o.status.success());
    (old, o.stdout)
}

#[test]
fn kill_9_leaves_old_or_new() {
    let (old, new) = big_v1();
    let t = TempDir::new("mig-kill");
    let f = t.path().join("big.jsonl");
    let delays = [
        0u64, 2, 5, 10, 20, 40, 80, 150, 250, 300, 350, 400, 600, 1500,
    ];
    let mut saw = (0, 0);
    for d in delays {
        std::fs::write(&f, &old).unwrap();
        kill_after(
            "pi-migrate",
            &["-i", f.to_str().unwrap()],
            Duration::from_millis(d),
        );
        let now = std::fs::read(&f).unwrap();
        if now == old {
            saw.0 += 1;
        } else if now == new {
            saw.1 += 1;
        } else {
            panic!(
                "after kill at {d} ms the file is neither old nor new ({} bytes)",
                now.len()
            );
        }
        // The next run completes the job and leaves no temporary file.
        let o = run("pi-migrate", &["-i", f.to_str().unwrap()], None);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(std::fs::read(&f).unwrap(), new);
        assert_eq!(names_in(t.path(), &[]), vec!["big.jsonl".to_string()]);
    }
    assert!(saw.0 > 0, "never killed before the rename: {saw:?}");
    eprintln!("kill -9: {} times old, {} times new", saw.0, saw.1);
}

/// A directory of version-1 files (the batch path: unflushed temporary
/// files, flushes in flight together, one directory flush at the end),
/// killed at moments spread over a whole run: every file is its old or its
/// new text, never a mix, and the next run finishes the job.
#[test]
fn kill_9_of_a_batch_leaves_each_file_old_or_new() {
    let t = TempDir::new("mig-kill-batch");
    let dir = t.path().join("d");
    std::fs::create_dir(&dir).unwrap();
    let pad = "y".repeat(300);
    let mut olds = Vec::new();
    for i in 0..300 {
        let s = v1_session(
            &format!("b{i}"),
            (0..40 + i % 60).map(|k| format!("{i} {k} {pad}")),
        );
        let new = stdout(&run("pi-migrate", &[], Some(s.as_bytes())));
        assert_ne!(new, s);
        olds.push((format!("s{i:03}.jsonl"), s, new));
    }
    let write_all = || {
        for (n, old, _) in &olds {
            std::fs::write(dir.join(n), old).unwrap();
        }
    };
    write_all();
    let t0 = std::time::Instant::now();
    let o = run("pi-migrate", &["-i", "-q", dir.to_str().unwrap()], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let full = t0.elapsed().as_micros() as u64;
    let mut saw = (0usize, 0usize);
    for k in 0..12u64 {
        write_all();
        let delay = Duration::from_micros(full * k / 10);
        kill_after("pi-migrate", &["-i", dir.to_str().unwrap()], delay);
        for (n, old, new) in &olds {
            let now = std::fs::read_to_string(dir.join(n)).unwrap();
            if now == *old {
                saw.0 += 1;
            } else if now == *new {
                saw.1 += 1;
            } else {
                panic!("{n} after kill at {delay:?}: neither the old nor the new text");
            }
        }
        let o = run("pi-migrate", &["-i", "-q", dir.to_str().unwrap()], None);
        assert!(o.status.success(), "{}", stderr(&o));
        for (n, _, new) in &olds {
            assert_eq!(&std::fs::read_to_string(dir.join(n)).unwrap(), new, "{n}");
        }
        let names: Vec<String> = olds.iter().map(|x| x.0.clone()).collect();
        assert_eq!(names_in(&dir, &[]), names, "after kill at {delay:?}");
    }
    assert!(saw.0 > 0, "never killed before a rename: {saw:?}");
    eprintln!("kill -9 of a batch: {} files old, {} new", saw.0, saw.1);
}

/// A file at version 3 is recognised from its first line: what follows is
/// never looked at (not even a line that is not JSON), and a header that
/// is not on the first line, or a newer version, still goes the full way.
/// A byte order mark before a version-3 header (pi 1.6 refuses the file)
/// is removed, and nothing else: not even a line that is not JSON.
#[test]
fn version_3_from_the_first_line() {
    let t = TempDir::new("mig-v3-first");
    let cur = t.write(
        "cur.jsonl",
        b"{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\r\n{oops\n",
    );
    let bom = t.write(
        "bom.jsonl",
        b"\xEF\xBB\xBF{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\r\n{oops\n",
    );
    let bom_before = std::fs::read(&bom).unwrap();
    let late = t.write(
        "late.jsonl",
        b"\n{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n{oops\n",
    );
    let newer = t.write(
        "newer.jsonl",
        b"{\"type\":\"session\",\"version\":3.5,\"id\":\"s\"}\n",
    );
    let before: Vec<Vec<u8>> = [&cur, &late, &newer]
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    let o = run("pi-migrate", &["-i", t.path().to_str().unwrap()], None);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("1 migrated, 2 already current, 1 failed"),
        "{err}"
    );
    assert!(err.contains("newer.jsonl:1:"), "{err}");
    assert_eq!(std::fs::read(&bom).unwrap(), bom_before[3..]);
    for (p, b) in [&cur, &late, &newer].iter().zip(before) {
        assert_eq!(std::fs::read(p).unwrap(), b, "{}", p.display());
    }
}

/// A link to a session is followed: the file it names is migrated beside
/// itself and the link stays a link; the same file reached twice (by the
/// link and by its own name) is migrated once; a bare relative name works.
#[cfg(unix)]
#[test]
fn links_and_relative_names() {
    let t = TempDir::new("mig-links");
    let real_dir = t.path().join("real");
    let walk = t.path().join("walk");
    std::fs::create_dir_all(&real_dir).unwrap();
    std::fs::create_dir_all(&walk).unwrap();
    let v1 = "{\"type\":\"session\",\"id\":\"s\",\"cwd\":\"/p\"}\n{\"type\":\"message\",\"message\":{\"role\":\"user\"}}\n";
    let target = real_dir.join("a.jsonl");
    std::fs::write(&target, v1).unwrap();
    let link = walk.join("link.jsonl");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    std::fs::copy(&target, walk.join("own.jsonl")).unwrap();
    // The directory (with the link) and the target itself: 2 files, not 3.
    let o = run(
        "pi-migrate",
        &["-i", walk.to_str().unwrap(), target.to_str().unwrap()],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_stderr_has(&o, "2 migrated, 0 already current, 0 failed");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let now = std::fs::read_to_string(&target).unwrap();
    assert!(
        now.starts_with("{\"type\":\"session\",\"id\":\"s\",\"cwd\":\"/p\",\"version\":3}\n"),
        "{now}"
    );
    assert_eq!(
        std::fs::read_to_string(walk.join("own.jsonl")).unwrap(),
        now
    );
    assert_eq!(names_in(&real_dir, &[]), vec!["a.jsonl"]);
    assert_eq!(names_in(&walk, &[]), vec!["link.jsonl", "own.jsonl"]);
    // A bare name, relative to the working directory.
    std::fs::write(real_dir.join("b.jsonl"), v1).unwrap();
    let o = run_with("pi-migrate", &["-i", "b.jsonl"], None, |c| {
        c.current_dir(&real_dir);
    });
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(real_dir.join("b.jsonl")).unwrap(),
        now
    );
    assert_eq!(names_in(&real_dir, &[]), vec!["a.jsonl", "b.jsonl"]);
}

/// What pi-migrate prints about files it does not change (`--dry-run`,
/// `--check`) is its output: a full disk on stdout is an error (exit 1,
/// `pi-migrate: error: <stdout>: ...`) for one file and for a batch, and the
/// files stay as they were. (A batch's lines were written and their errors
/// dropped: `--dry-run a b > /dev/full` exited 0.)
#[test]
fn a_full_stdout_is_an_error_in_dry_run_and_check() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("SKIPPED: no /dev/full");
        return;
    };
    let t = TempDir::new("mig-full");
    let (_, v1) = old_fixtures()
        .into_iter()
        .find(|(n, _)| n.starts_with("v1-"))
        .expect("a version-1 fixture");
    let text = std::fs::read(&v1).unwrap();
    let a = t.write("a.jsonl", &text);
    let b = t.write("b.jsonl", &text);
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    for args in [
        vec!["--dry-run", a],
        vec!["--dry-run", a, b],
        vec!["--check", a],
        vec!["--check", a, b],
    ] {
        let o = command("pi-migrate", &args)
            .stdin(Stdio::null())
            .stdout(full.try_clone().unwrap())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("pi-migrate: error: <stdout>: No space left on device"),
            "{args:?}: {}",
            stderr(&o)
        );
        for f in [a, b] {
            assert_eq!(std::fs::read(f).unwrap(), text, "{args:?} changed {f}");
        }
    }
}

/// A session-id prefix that names no session stops `--all --relocate`
/// before anything is moved (the store selection ran the relocation
/// first, then refused the prefix: files moved and nothing migrated; found
/// by a review).
#[test]
fn an_unknown_prefix_stops_relocate_before_any_move() {
    let t = TempDir::new("mig-relocate-prefix");
    assert!(std::process::Command::new("cp")
        .arg("-r")
        .arg(repo().join("examples/agent"))
        .arg(t.path())
        .status()
        .unwrap()
        .success());
    let agent = t.path().join("agent");
    let listing = || {
        let o = std::process::Command::new("find")
            .arg(&agent)
            .output()
            .unwrap();
        let mut l: Vec<String> = String::from_utf8(o.stdout)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        l.sort();
        l
    };
    let before = listing();
    let o = command("pi-migrate", &["-i", "--all", "--relocate", "zzzz"])
        .env("PI_CODING_AGENT_DIR", &agent)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("zzzz"), "{}", stderr(&o));
    assert!(!String::from_utf8_lossy(&o.stdout).contains("moved"));
    assert_eq!(listing(), before, "{}", stderr(&o));
}

mod interrupt;
mod races;
mod trees;
