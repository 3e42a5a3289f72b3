//! pi-label, driven as a user runs it, and compared with what pi writes.
use crate::common::*;

#[test]
fn appended_lines_match_pi() {
    check_each(&cases("pi-label"), 50, |c| {
        assert!(c.stdin);
        let input = std::fs::read(&c.session).unwrap();
        let args: Vec<&str> = c.args.iter().map(String::as_str).collect();
        let o = run("pi-label", &args, Some(&input));
        assert!(o.status.success(), "{}: {}", c.what, stderr(&o));
        assert!(
            o.stdout.starts_with(&input),
            "{}: the session is echoed first",
            c.what
        );
        let added = String::from_utf8(o.stdout[input.len()..].to_vec()).unwrap();
        assert_eq!(added.lines().count(), 1, "{}", c.what);
        assert_eq!(
            blank_id_and_time(added.trim_end()),
            blank_id_and_time(c.stdout.trim_end()),
            "{}",
            c.what
        );
        Ok(())
    });
}

#[test]
fn set_list_clear_and_name_in_place() {
    let dir = TempDir::new("label");
    let f = dir.write(
        "s.jsonl",
        session(&[
            user("aaaa0001", None, "hello aaaa0001"),
            user("aaaa0002", Some("aaaa0001"), "hello aaaa0002"),
        ])
        .as_bytes(),
    );
    let fs = f.to_str().unwrap();
    let o = run("pi-label", &[fs, "leaf^", "start"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let id = stdout(&o).trim().to_string();
    assert_eq!(id.len(), 8);
    let last = last_line(&f);
    assert!(
        last.starts_with(&format!(
            r#"{{"type":"label","id":"{id}","parentId":"aaaa0002","timestamp":""#
        )),
        "{last}"
    );
    assert!(
        last.ends_with(r#","targetId":"aaaa0001","label":"start"}"#),
        "{last}"
    );
    let o = run("pi-label", &[fs, "--list"], None);
    assert_eq!(stdout(&o), "aaaa0001\tstart\tuser: hello aaaa0001\n");
    let o = run("pi-label", &[fs, "--list", "--json"], None);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["line"], 2);
    // @NAME works in every tool now.
    let o = run(
        "pi-path",
        &["--format", "ids", "--leaf", "@start", fs],
        None,
    );
    assert_eq!(stdout(&o), "aaaa0001\n");
    let o = run("pi-label", &[fs, "@start", "--clear"], None);
    assert!(o.status.success());
    let last = last_line(&f);
    assert!(last.ends_with(r#","targetId":"aaaa0001"}"#), "{last}");
    assert_eq!(stdout(&run("pi-label", &[fs, "--list"], None)), "");
    run("pi-label", &[fs, "--name", "  my  session "], None);
    assert_eq!(
        stdout(&run("pi-label", &[fs, "--name"], None)),
        "my  session\n"
    );
}

#[test]
fn appends_on_a_fresh_line_and_refuses_without_touching() {
    let dir = TempDir::new("label-fresh");
    // No final newline: the label must start on a line of its own.
    let f = dir.write(
        "s.jsonl",
        format!("{H}\n{}", user("aaaa0001", None, "hello aaaa0001")).as_bytes(),
    );
    let fs = f.to_str().unwrap();
    let o = run("pi-label", &[fs, "aaaa0001", "x"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&f).unwrap();
    assert_eq!(text.lines().count(), 3);
    assert!(text.ends_with("\"label\":\"x\"}\n"));
    for bad in [
        vec![fs, "nope", "x"],
        vec![fs, "aaaa0001", ""],
        vec![fs, "root^", "x"],
    ] {
        let o = run_untouched("pi-label", &bad, &f);
        assert_ne!(o.status.code(), Some(0), "{bad:?}");
    }
    // A version-1 file is refused: pi would renumber its entries.
    let v1 = dir.write("old.jsonl", v1_session("x", ["hi".into()]).as_bytes());
    let o = run_untouched("pi-label", &[v1.to_str().unwrap(), "leaf", "x"], &v1);
    assert_eq!(o.status.code(), Some(1));
    assert_stderr_has(&o, "pi-migrate");
}

#[test]
fn concurrent_writers_lose_nothing() {
    let dir = TempDir::new("label-conc");
    let f = dir.write(
        "s.jsonl",
        session(&[user("aaaa0001", None, "hello aaaa0001")]).as_bytes(),
    );
    let path = f.clone();
    // A pi-style appender: one write per entry, no lock.
    let pi = std::thread::spawn(move || {
        for i in 0..200 {
            append_line(
                &path,
                &user(&format!("cccc{i:04}"), Some("aaaa0001"), "hello"),
            );
        }
    });
    let per = 100;
    let workers: Vec<_> = (0..8)
        .map(|w| {
            let f = f.clone();
            std::thread::spawn(move || {
                for i in 0..per {
                    let o = run(
                        "pi-label",
                        &[f.to_str().unwrap(), "aaaa0001", &format!("w{w}-{i}")],
                        None,
                    );
                    assert!(o.status.success(), "{}", stderr(&o));
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    pi.join().unwrap();
    let text = std::fs::read_to_string(&f).unwrap();
    let mut labels = std::collections::BTreeSet::new();
    let mut msgs = 0;
    for line in text.lines() {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("bad line {line:?}: {e}"));
        match v["type"].as_str() {
            Some("label") => assert!(
                labels.insert(v["label"].as_str().unwrap_or("").to_string()),
                "label written twice: {line}"
            ),
            Some("message") => msgs += 1,
            _ => {}
        }
    }
    // Every label each writer set, once.
    let want: std::collections::BTreeSet<String> = (0..8)
        .flat_map(|w| (0..per).map(move |i| format!("w{w}-{i}")))
        .collect();
    assert_eq!(labels, want);
    assert_eq!(msgs, 201);
}

/// The new entry's parent is the last entry when it is written, after
/// the tool's output: a reader that holds the output (a full pipe) while pi
/// appends its next turn does not leave the entry chained to the leaf the
/// tool read (it was, when the parent was chosen before printing; found by
/// a review). pi-label and pi-edit both print before they append.
#[test]
fn a_slow_reader_of_the_output_does_not_chain_to_a_stale_leaf() {
    let t = TempDir::new("label-slow-reader");
    let text = std::fs::read(repo().join("examples/s.jsonl")).unwrap();
    let appended = br#"{"type":"custom","customType":"x","id":"piappend","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z"}"#;
    for (tool, args) in [
        ("pi-label", vec!["--name", "slow"]),
        ("pi-edit", vec!["3f2a91c4", "--omit"]),
    ] {
        let f = t.write("s.jsonl", &text);
        let gate = t.path().join("gate");
        let _ = std::fs::remove_file(&gate);
        assert!(std::process::Command::new("mkfifo")
            .arg(&gate)
            .status()
            .unwrap()
            .success());
        // A full pipe first (64 KiB), so the tool's output waits for the
        // reader, which waits for the gate.
        let script = format!(
            "{{ head -c 65536 /dev/zero; \"$0\" \"$@\"; }} | {{ read _ < '{}'; cat > /dev/null; }}",
            gate.display()
        );
        let mut child = std::process::Command::new("sh")
            .arg("-c")
            .arg(&script)
            .arg(bin(tool))
            .arg(&f)
            .args(&args)
            .env("NO_COLOR", "1")
            .stdin(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // The tool reads the session and blocks on its output meanwhile.
        std::thread::sleep(std::time::Duration::from_millis(1500));
        let mut file = std::fs::OpenOptions::new().append(true).open(&f).unwrap();
        std::io::Write::write_all(&mut file, &[&appended[..], b"\n"].concat()).unwrap();
        std::fs::write(&gate, b"go\n").unwrap();
        assert!(child.wait().unwrap().success(), "{tool}");
        let after = std::fs::read_to_string(&f).unwrap();
        let last = after.lines().last().unwrap();
        assert!(
            last.contains(r#""parentId":"piappend""#),
            "{tool}: the new entry is not chained to what was appended while it printed: {last}"
        );
    }
}
