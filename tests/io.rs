//! Inputs and outputs that are not plain files (issue 15): pipes and FIFOs
//! given as paths, an output that fails after the work is done, lines too
//! long to hold, another writer's half-written last line, an empty SESSION,
//! symbolic link loops, control characters in names and labels, and
//! `pi-fork --in-place` repeated.
use crate::common::*;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(60);

/// aaaa0001 <- aaaa0002 <- aaaa0003 <- aaaa0004, labelled.
fn labelled() -> String {
    session(&[
        user("aaaa0001", None, "one"),
        user("aaaa0002", Some("aaaa0001"), "two"),
        user("aaaa0003", Some("aaaa0002"), "three"),
        user("aaaa0004", Some("aaaa0003"), "four"),
        r#"{"type":"label","id":"aaaa0005","parentId":"aaaa0004","timestamp":"2026-07-20T09:00:02.000Z","targetId":"aaaa0002","label":"two"}"#.into(),
    ])
}

/// Run a tool with `env`, stdin from `stdin` (None: nothing), stdout to
/// `out` (None: a pipe), with a time limit.
fn run_io(
    tool: &str,
    args: &[&str],
    env: &[(&str, &str)],
    stdin: Option<Stdio>,
    out: Option<Stdio>,
) -> Output {
    let mut cmd = command(tool, args);
    cmd.env_remove("PI_SESSION_TOOLS_MAX_LINE")
        .env("NO_COLOR", "1")
        .envs(env.iter().copied())
        .stdin(stdin.unwrap_or_else(Stdio::null))
        .stdout(out.unwrap_or_else(Stdio::piped))
        .stderr(Stdio::piped());
    let ran = run_within(&mut cmd, TIMEOUT, usize::MAX, usize::MAX);
    assert!(!ran.hung, "{tool} {args:?}: hangs");
    ran.output()
}

fn mkfifo(path: &Path) {
    let st = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(st.success());
}

/// Write `bytes` into the FIFO `path` from another thread (once a reader opens it).
fn feed_fifo(path: &Path, bytes: Vec<u8>) -> std::thread::JoinHandle<()> {
    let p = path.to_path_buf();
    std::thread::spawn(move || {
        if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&p) {
            let _ = f.write_all(&bytes);
        }
    })
}

fn no_temp_files(dir: &Path, keep: &[&str]) {
    let stray = names_in(dir, keep);
    assert!(stray.is_empty(), "left behind: {stray:?}");
}

/// The read-only tools, each with what it is asked.
const READERS: &[(&str, &[&str])] = &[
    ("pi-path", &[]),
    ("pi-path", &["--format", "context"]),
    ("pi-tree", &[]),
    ("pi-tree", &["--json"]),
    ("pi-convert", &[]),
    ("pi-migrate", &[]),
    ("pi-label", &["--list"]),
    ("pi-fork", &["--at", "leaf~1", "-o", "-"]),
];

fn args_for<'a>(tool: &str, extra: &[&'a str], file: &'a str) -> Vec<&'a str> {
    // pi-fork and pi-label take SESSION first; the others last.
    match tool {
        "pi-fork" | "pi-label" => std::iter::once(file).chain(extra.iter().copied()).collect(),
        _ => extra.iter().copied().chain(std::iter::once(file)).collect(),
    }
}

/// pi-fork's new session differs in its header and fresh ids; compare the rest.
fn comparable(tool: &str, out: &[u8]) -> String {
    let text = String::from_utf8_lossy(out).into_owned();
    if tool == "pi-fork" {
        text.lines()
            .skip(1)
            .map(blank_id_and_time)
            .collect::<Vec<_>>()
            .join("\n")
    } else {
        text
    }
}

#[test]
fn pipes_and_fifos_given_as_paths_are_read_as_streams() {
    let dir = TempDir::new("io-pipes");
    let f = dir.write("s.jsonl", labelled().as_bytes());
    let fs = f.to_str().unwrap();
    for (tool, extra) in READERS {
        let want = run_io(tool, &args_for(tool, extra, fs), &[], None, None);
        assert!(want.status.success(), "{tool}: {}", stderr(&want));
        // `cat s.jsonl | TOOL /dev/stdin`: /dev/stdin is a pipe.
        let mut cat = Command::new("cat")
            .arg(&f)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let pipe = Stdio::from(cat.stdout.take().unwrap());
        let got = run_io(
            tool,
            &args_for(tool, extra, "/dev/stdin"),
            &[],
            Some(pipe),
            None,
        );
        let _ = cat.wait();
        assert!(got.status.success(), "{tool} /dev/stdin: {}", stderr(&got));
        assert_eq!(
            comparable(tool, &got.stdout),
            comparable(tool, &want.stdout),
            "{tool} /dev/stdin"
        );
        // A FIFO.
        let fifo = dir.path().join(format!("fifo-{}", tool.replace('-', "")));
        let _ = std::fs::remove_file(&fifo);
        mkfifo(&fifo);
        let w = feed_fifo(&fifo, labelled().into_bytes());
        let got = run_io(
            tool,
            &args_for(tool, extra, fifo.to_str().unwrap()),
            &[],
            None,
            None,
        );
        w.join().unwrap();
        assert!(got.status.success(), "{tool} FIFO: {}", stderr(&got));
        assert_eq!(
            comparable(tool, &got.stdout),
            comparable(tool, &want.stdout),
            "{tool} FIFO"
        );
        std::fs::remove_file(&fifo).unwrap();
    }
}

#[test]
fn writing_in_place_to_a_fifo_is_refused_without_waiting_for_a_writer() {
    let dir = TempDir::new("io-fifo-write");
    let fifo = dir.path().join("s.jsonl");
    mkfifo(&fifo);
    let fs = fifo.to_str().unwrap();
    for (tool, args) in [
        ("pi-migrate", vec!["-i", fs]),
        ("pi-label", vec![fs, "leaf", "x"]),
        ("pi-fork", vec![fs, "--in-place", "--at", "leaf~1"]),
        ("pi-edit", vec![fs, "leaf", "--omit"]),
    ] {
        let o = run_io(tool, &args, &[], None, None);
        assert_eq!(o.status.code(), Some(1), "{tool}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("{tool}: error: {fs}: not a regular file")),
            "{tool}: {}",
            stderr(&o)
        );
    }
    // Nothing else appeared beside the FIFO.
    no_temp_files(dir.path(), &["s.jsonl"]);
}

fn dev_full() -> Option<Stdio> {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .ok()
        .map(Stdio::from)
}

#[test]
fn a_failing_stdout_leaves_every_file_as_it_was() {
    if dev_full().is_none() {
        eprintln!("SKIPPED: no /dev/full");
        return;
    }
    let dir = TempDir::new("io-full");
    // A small file (the full read) and one of 9 MiB (pi-label's fast path).
    let mut big = labelled();
    let pad = format!(
        r#"{{"type":"custom","customType":"pad","data":"{}","id":"pad00000","parentId":"aaaa0004"}}"#,
        "x".repeat(1 << 20)
    );
    for _ in 0..9 {
        big.push_str(&pad);
        big.push('\n');
    }
    big.push_str(&user("aaaa0006", Some("pad00000"), "last"));
    big.push('\n');
    for (name, text) in [("small.jsonl", labelled()), ("big.jsonl", big)] {
        let f = dir.write(name, text.as_bytes());
        let fs = f.to_str().unwrap();
        for (tool, args) in [
            ("pi-label", vec![fs, "leaf", "x"]),
            ("pi-label", vec![fs, "aaaa0002", "x"]),
            ("pi-label", vec![fs, "--name", "n"]),
            ("pi-edit", vec![fs, "aaaa0004", "--omit"]),
            ("pi-edit", vec![fs, "aaaa0002", "--replace", "r"]),
            ("pi-fork", vec![fs, "--in-place", "--at", "leaf~1"]),
            (
                "pi-fork",
                vec![fs, "--in-place", "--at", "leaf~1", "--json"],
            ),
            ("pi-fork", vec![fs, "--at", "leaf~1"]),
            ("pi-fork", vec![fs, "--at", "leaf~1", "--json"]),
            ("pi-fork", vec![fs, "--all-leaves"]),
        ] {
            let o = run_io(tool, &args, &[], None, dev_full());
            assert_eq!(o.status.code(), Some(1), "{tool} {args:?}: {}", stderr(&o));
            assert!(
                stderr(&o).contains("No space left on device: nothing was changed"),
                "{tool} {args:?}: {}",
                stderr(&o)
            );
            assert_eq!(
                std::fs::read_to_string(&f).unwrap(),
                text,
                "{tool} {args:?} changed the file"
            );
            no_temp_files(dir.path(), &["small.jsonl", "big.jsonl"]);
        }
    }
    // A reader that has gone is no failure: the label is still written.
    let f = dir.write("s.jsonl", labelled().as_bytes());
    let mut child = command("pi-label", &[f.to_str().unwrap(), "leaf", "x"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let st = child.wait().unwrap();
    assert!(st.success());
    let after = std::fs::read_to_string(&f).unwrap();
    assert_eq!(after.lines().count(), labelled().lines().count() + 1);
}

#[test]
fn a_line_longer_than_the_limit_is_a_file_line_error() {
    let dir = TempDir::new("io-long");
    let env = [("PI_SESSION_TOOLS_MAX_LINE", "64K")];
    let long = user("aaaa0009", Some("aaaa0002"), &"y".repeat(70_000));
    let mut ls: Vec<String> = labelled().lines().map(str::to_string).collect();
    ls.insert(3, long);
    let text = ls.join("\n") + "\n";
    let f = dir.write("s.jsonl", text.as_bytes());
    let fs = f.to_str().unwrap();
    let want = format!("{fs}:4: line longer than 65536 bytes");
    // pi-migrate -i reads a version-3 file only for its header: untouched.
    let o = run_io("pi-migrate", &["-i", fs], &env, None, None);
    assert!(o.status.success(), "{}", stderr(&o));
    for (tool, extra) in READERS
        .iter()
        .copied()
        .chain([("pi-label", &["leaf", "x"][..])])
    {
        let o = run_io(tool, &args_for(tool, extra, fs), &env, None, None);
        assert_eq!(o.status.code(), Some(1), "{tool} {extra:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&want),
            "{tool} {extra:?}: {}",
            stderr(&o)
        );
        assert_eq!(std::fs::read_to_string(&f).unwrap(), text);
    }
    // Without the limit it is an ordinary line.
    let o = run_io("pi-path", &[fs], &[], None, None);
    assert!(o.status.success(), "{}", stderr(&o));
    // The same from stdin.
    let o = run_io(
        "pi-path",
        &["-"],
        &env,
        Some(Stdio::from(std::fs::File::open(&f).unwrap())),
        None,
    );
    assert!(stderr(&o).contains("<stdin>:4: line longer than 65536 bytes"));
    // /dev/zero: one endless line, read no further than the limit.
    for (tool, args) in [
        ("pi-path", vec!["/dev/zero"]),
        ("pi-tree", vec!["/dev/zero"]),
        ("pi-convert", vec!["/dev/zero"]),
        ("pi-migrate", vec!["/dev/zero"]),
        ("pi-label", vec!["/dev/zero", "--list"]),
    ] {
        let o = run_io(tool, &args, &env, None, None);
        assert_eq!(o.status.code(), Some(1), "{tool}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("/dev/zero:1: line longer than 65536 bytes"),
            "{tool}: {}",
            stderr(&o)
        );
    }
    // A file of NULs bigger than the limit, and pi-label's fast path (9 MiB,
    // the long line last), with a limit of 1 MiB.
    let env = [("PI_SESSION_TOOLS_MAX_LINE", "1M")];
    let nul = dir.write("nul.jsonl", &vec![0u8; 3 << 20]);
    let mut fast = labelled();
    fast.push_str(&format!(
        r#"{{"type":"custom","customType":"pad","data":"{}","id":"pad00000","parentId":"aaaa0004"}}"#,
        "x".repeat(9 << 20)
    ));
    let fast_f = dir.write("fast.jsonl", fast.as_bytes());
    for (f, line) in [(&nul, 1), (&fast_f, 7)] {
        let fs = f.to_str().unwrap();
        let before = std::fs::read(f).unwrap();
        for (tool, args) in [
            ("pi-path", vec![fs]),
            ("pi-migrate", vec!["-i", fs]),
            ("pi-label", vec![fs, "leaf", "x"]),
            ("pi-label", vec![fs, "aaaa0002", "x"]),
            ("pi-edit", vec![fs, "aaaa0002", "--omit"]),
            ("pi-fork", vec![fs, "-i", "--at", "aaaa0002"]),
        ] {
            let o = run_io(tool, &args, &env, None, None);
            if line == 7 && args[0] == "-i" {
                // A version-3 file: pi-migrate reads only its header.
                assert!(o.status.success(), "{}", stderr(&o));
                continue;
            }
            assert_eq!(o.status.code(), Some(1), "{tool} {args:?}: {}", stderr(&o));
            assert!(
                stderr(&o).contains(&format!("{fs}:{line}: line longer than 1048576 bytes")),
                "{tool} {args:?}: {}",
                stderr(&o)
            );
            assert!(std::fs::read(f).unwrap() == before, "{tool} changed {fs}");
        }
    }
    no_temp_files(dir.path(), &["s.jsonl", "nul.jsonl", "fast.jsonl"]);
    // A value that is no size is wrong usage.
    for bad in ["abc", "0", "5X", "-1", "99999999999"] {
        let o = run_io(
            "pi-path",
            &[fs],
            &[("PI_SESSION_TOOLS_MAX_LINE", bad)],
            None,
            None,
        );
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
    }
}

#[test]
fn an_append_waits_for_another_writer_to_finish_its_line() {
    let dir = TempDir::new("io-torn");
    let next = user("aaaa0006", Some("aaaa0005"), "being written");
    let (head, tail) = next.split_at(next.len() / 2);
    for (tool, args) in [
        ("pi-label", vec!["leaf", "x"]),
        ("pi-fork", vec!["--in-place", "--at", "aaaa0002"]),
    ] {
        let f = dir.write("s.jsonl", format!("{}{head}", labelled()).as_bytes());
        let fs = f.to_str().unwrap().to_string();
        let mut all = vec![fs.as_str()];
        all.extend(args.iter().copied());
        let child = command(tool, &all)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The other writer ends its line a moment later.
        std::thread::sleep(Duration::from_millis(300));
        append_line(&f, tail);
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{tool}: {}", stderr(&o));
        let after = std::fs::read_to_string(&f).unwrap();
        let want_start = format!("{}{next}\n", labelled());
        assert!(
            after.starts_with(&want_start),
            "{tool}: the other writer's line was cut: {after}"
        );
        let added = &after[want_start.len()..];
        assert_eq!(added.lines().count(), 1, "{tool}: {added}");
        let v: serde_json::Value = serde_json::from_str(added.trim_end()).unwrap();
        if tool == "pi-label" {
            // Its parent is the line that was completed: pi's leaf then.
            assert_eq!(v["parentId"], "aaaa0006", "{added}");
        } else {
            assert_eq!(v["data"]["from"], "aaaa0006", "{added}");
        }
    }
    // A line that stays torn is torn: the append goes on a fresh line after it.
    let f = dir.write("s.jsonl", format!("{}{head}", labelled()).as_bytes());
    let o = run_io(
        "pi-label",
        &[f.to_str().unwrap(), "leaf", "x"],
        &[],
        None,
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let after = std::fs::read_to_string(&f).unwrap();
    assert!(after.starts_with(&format!("{}{head}\n{{\"type\":\"label\"", labelled())));
}

#[test]
fn an_empty_session_argument_is_wrong_usage() {
    let dir = TempDir::new("io-empty-arg");
    // One session in the project: an empty prefix would match it.
    let sd = dir.path().join("sessions");
    std::fs::create_dir_all(&sd).unwrap();
    let f = sd.join("2026-07-20T09-00-00-000Z_0190aaaa-0000-7000-8000-000000000001.jsonl");
    std::fs::write(&f, labelled()).unwrap();
    let sds = sd.to_str().unwrap();
    for (tool, args) in [
        ("pi-path", vec!["--session-dir", sds, ""]),
        ("pi-tree", vec!["--session-dir", sds, ""]),
        ("pi-convert", vec!["--session-dir", sds, ""]),
        ("pi-migrate", vec![""]),
        ("pi-migrate", vec!["-i", ""]),
        ("pi-label", vec!["--session-dir", sds, "", "leaf", "x"]),
        ("pi-label", vec!["--session-dir", sds, "", "--list"]),
        (
            "pi-fork",
            vec!["--session-dir", sds, "", "--in-place", "--at", "leaf~1"],
        ),
        ("pi-fork", vec!["--session-dir", sds, "", "--at", "leaf"]),
    ] {
        let o = run_io(tool, &args, &[], None, None);
        assert_eq!(o.status.code(), Some(2), "{tool} {args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(&format!("{tool}: error: an empty")));
    }
    assert_eq!(std::fs::read_to_string(&f).unwrap(), labelled());
    assert_eq!(std::fs::read_dir(&sd).unwrap().count(), 1);
}

#[test]
fn a_symbolic_link_loop_is_named_as_one() {
    let dir = TempDir::new("io-loop");
    let l = dir.path().join("loop");
    std::os::unix::fs::symlink(&l, &l).unwrap();
    let ls = l.to_str().unwrap();
    for (tool, args) in [
        ("pi-path", vec![ls]),
        ("pi-tree", vec![ls]),
        ("pi-convert", vec![ls]),
        ("pi-migrate", vec![ls]),
        ("pi-label", vec![ls, "--list"]),
        ("pi-fork", vec![ls, "--at", "leaf"]),
    ] {
        let o = run_io(tool, &args, &[], None, None);
        assert_eq!(o.status.code(), Some(1), "{tool}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("symbolic links") && !stderr(&o).contains("no session id"),
            "{tool}: {}",
            stderr(&o)
        );
    }
    // A bare name too (no slash, no .jsonl: once taken for an id prefix).
    let o = run_with("pi-path", &["loop"], None, |c| {
        c.current_dir(dir.path());
    });
    assert!(stderr(&o).contains("loop: Too many levels of symbolic links"));
}

#[test]
fn control_characters_in_names_and_labels_stay_escaped() {
    let dir = TempDir::new("io-escape");
    let f = dir.write("a\nb\tc.jsonl", b"{\"type\":\"session\"}\n");
    let o = run_io("pi-path", &[f.to_str().unwrap()], &[], None, None);
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("a\\nb\\tc.jsonl:1: the session header has no string \"id\""));
    // Labels with a tab, a line break and a backslash: one line of three fields.
    let label = r#"{"type":"label","id":"aaaa0007","parentId":"aaaa0004","timestamp":"2026-07-20T09:00:03.000Z","targetId":"aaaa0003","label":"a\tb\nc\\d"}"#;
    let s = dir.write("s.jsonl", format!("{}{label}\n", labelled()).as_bytes());
    let o = run_io(
        "pi-label",
        &[s.to_str().unwrap(), "--list"],
        &[],
        None,
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(
        out,
        "aaaa0002\ttwo\tuser: two\naaaa0003\ta\\tb\\nc\\\\d\tuser: three\n"
    );
    let o = run_io(
        "pi-label",
        &[s.to_str().unwrap(), "--list", "--json"],
        &[],
        None,
        None,
    );
    assert!(
        stdout(&o).contains(r#""label":"a\tb\nc\\d""#),
        "{}",
        stdout(&o)
    );
}

#[test]
fn repeated_in_place_forks_step_back_one_entry_each_time() {
    let dir = TempDir::new("io-fork-repeat");
    let f = dir.write("s.jsonl", labelled().as_bytes());
    let fs = f.to_str().unwrap();
    // The leaf is the label entry aaaa0005 (on aaaa0004).
    for want in ["aaaa0004", "aaaa0003", "aaaa0002", "aaaa0001"] {
        let o = run_io(
            "pi-fork",
            &[fs, "--in-place", "--at", "leaf~1", "--json"],
            &[],
            None,
            None,
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
        assert_eq!(v["target"], want, "{}", stdout(&o));
    }
    // `leaf` itself is still pi's leaf (the last marker); its path ends there.
    let o = run_io("pi-path", &["--format", "ids", fs], &[], None, None);
    assert_eq!(stdout(&o).lines().count(), 2, "{}", stdout(&o));
    // pi continues from a marker; steps up from its child pass over it.
    let child = user("bbbb0001", None, "after");
    let last_marker = std::fs::read_to_string(&f)
        .unwrap()
        .lines()
        .last()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .unwrap();
    let child = child.replace(
        "\"parentId\":null",
        &format!("\"parentId\":\"{last_marker}\""),
    );
    append_line(&f, &child);
    let o = run_io(
        "pi-path",
        &["--format", "ids", "--leaf", "leaf^", fs],
        &[],
        None,
        None,
    );
    assert_eq!(stdout(&o).trim(), "aaaa0001", "{}", stdout(&o));
}

/// With no SESSION and a terminal on standard input nobody is piping a
/// session in: the tools say what they expect and exit 2 instead of
/// waiting without a word (issue 22). A pseudo-terminal from util-linux's
/// `script`, where it is installed.
#[test]
fn a_terminal_on_stdin_is_a_usage_error_not_a_silent_wait() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("no `script` here: skipped");
        return;
    }
    for tool in ["pi-path", "pi-tree", "pi-convert", "pi-migrate"] {
        let cmd = format!("'{}'; echo \"rc=$?\"", bin(tool).display());
        let mut script = Command::new("script");
        script
            .args(["-qec", &cmd, "/dev/null"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let ran = run_within(&mut script, Duration::from_secs(20), usize::MAX, usize::MAX);
        assert!(!ran.hung, "{tool} waits on a terminal without a word");
        let text = String::from_utf8_lossy(&ran.stdout).replace('\r', "");
        assert!(text.contains("rc=2"), "{tool}: {text}");
        assert!(
            text.contains(&format!(
                "{tool}: error: no SESSION given and standard input is a terminal"
            )),
            "{tool}: {text}"
        );
    }
}
