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

/// The read-only tools, each with what it is asked of one SESSION.
const READERS: &[(&str, &[&str])] = &[
    ("pi-path", &[]),
    ("pi-path", &["--format", "context"]),
    ("pi-tree", &[]),
    ("pi-tree", &["--json"]),
    ("pi-convert", &[]),
    ("pi-migrate", &[]),
    ("pi-label", &["--list"]),
    ("pi-fork", &["--at", "leaf~1", "-o", "-"]),
    ("pi-grep", &["-C", "1", "two"]),
    ("pi-grep", &["--json", "t"]),
    ("pi-usage", &["--by", "branch"]),
    ("pi-usage", &["session", "--json"]),
    ("pi-check", &[]),
];

/// The tools that read the session store, each with what it is asked: run
/// with `PI_CODING_AGENT_DIR` a directory of the test's own (never the
/// user's ~/.pi), they walk its `sessions/`.
const STORE_READERS: &[(&str, &[&str])] = &[
    ("pi-ls", &["--all"]),
    ("pi-ls", &["--all", "-l", "--json"]),
    ("pi-grep", &["--all", "two"]),
    ("pi-grep", &["--all", "-l", "two"]),
    ("pi-usage", &["session"]),
    ("pi-usage", &["daily", "--json"]),
    ("pi-check", &["--all"]),
];

/// The binaries in neither [`READERS`] nor [`STORE_READERS`], and why.
const NOT_READERS: &[(&str, &str)] = &[
    (
        "pi-mv",
        "prints nothing of the session but its header's cwd: it moves files (see WRITERS)",
    ),
    (
        "pi-rm",
        "prints nothing of the session: it deletes files (see WRITERS)",
    ),
    (
        "pi-edit",
        "prints nothing of the session: it only appends (see WRITERS)",
    ),
    (
        "pi-import",
        "reads Claude Code and Codex files, not pi sessions (tests/import.rs)",
    ),
];

/// The tools that write a session in place, each with its arguments (FILE:
/// the session).
const WRITERS: &[(&str, &[&str])] = &[
    ("pi-migrate", &["-i", "FILE"]),
    ("pi-label", &["FILE", "leaf", "x"]),
    ("pi-fork", &["FILE", "--in-place", "--at", "leaf~1"]),
    ("pi-edit", &["FILE", "leaf", "--omit"]),
    ("pi-mv", &["FILE", "--cwd", "/elsewhere"]),
    ("pi-rm", &["--yes", "FILE"]),
    ("pi-check", &["--fix", "FILE"]),
];

/// The binaries that never write a session, and what they write instead.
const NEVER_WRITE: &[(&str, &str)] = &[
    ("pi-path", "prints only"),
    ("pi-tree", "prints only"),
    ("pi-convert", "prints only"),
    ("pi-grep", "prints only"),
    ("pi-ls", "writes only its cache, in the cache directory"),
    ("pi-usage", "writes only its cache, in the cache directory"),
    (
        "pi-import",
        "writes new sessions (staged and renamed) and replaces only its own untouched imports",
    ),
];

/// A tool's exit status for an error (grep's is 2, as grep's own; pi-check's
/// 2, its 1 being "something found").
fn error_status(tool: &str) -> i32 {
    if tool == "pi-grep" || tool == "pi-check" {
        2
    } else {
        1
    }
}

fn args_for<'a>(tool: &str, extra: &[&'a str], file: &'a str) -> Vec<&'a str> {
    // pi-fork and pi-label take SESSION first; the others last.
    match tool {
        "pi-fork" | "pi-label" => std::iter::once(file).chain(extra.iter().copied()).collect(),
        _ => extra.iter().copied().chain(std::iter::once(file)).collect(),
    }
}

/// [`WRITERS`]'s arguments for `file`.
fn writer_args<'a>(args: &[&'a str], file: &'a str) -> Vec<&'a str> {
    args.iter()
        .map(|a| if *a == "FILE" { file } else { a })
        .collect()
}

/// What a tool printed, comparable across the names one session is read
/// by: pi-fork's new session differs in its header and fresh ids (compare
/// the rest); pi-grep and pi-usage print the name they were given (FILE).
fn comparable(tool: &str, out: &[u8], file: &str) -> String {
    let text = String::from_utf8_lossy(out).into_owned();
    if tool == "pi-grep" || tool == "pi-usage" || tool == "pi-check" {
        return text.replace(file, "FILE");
    }
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
            comparable(tool, &got.stdout, "/dev/stdin"),
            comparable(tool, &want.stdout, fs),
            "{tool} /dev/stdin"
        );
        // A FIFO.
        let fifo = dir.path().join(format!("fifo-{}", tool.replace('-', "")));
        let _ = std::fs::remove_file(&fifo);
        mkfifo(&fifo);
        let w = feed_fifo(&fifo, labelled().into_bytes());
        let fifos = fifo.to_str().unwrap();
        let got = run_io(tool, &args_for(tool, extra, fifos), &[], None, None);
        w.join().unwrap();
        assert!(got.status.success(), "{tool} FIFO: {}", stderr(&got));
        assert_eq!(
            comparable(tool, &got.stdout, fifos),
            comparable(tool, &want.stdout, fs),
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
    for (tool, args) in WRITERS {
        let o = run_io(tool, &writer_args(args, fs), &[], None, None);
        assert_eq!(
            o.status.code(),
            Some(error_status(tool)),
            "{tool}: {}",
            stderr(&o)
        );
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
        if tool == "pi-check" {
            // A finding of its own (exit 1), the file not read further.
            assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
            let want = format!("{fs}:4: error line-too-long: line 4 is longer than 65536 bytes");
            assert!(stdout(&o).contains(&want), "{}", stdout(&o));
            continue;
        }
        assert_eq!(
            o.status.code(),
            Some(error_status(tool)),
            "{tool} {extra:?}: {}",
            stderr(&o)
        );
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
    for (tool, extra) in READERS {
        let args = args_for(tool, extra, "/dev/zero");
        let o = run_io(tool, &args, &env, None, None);
        assert_eq!(
            o.status.code(),
            Some(error_status(tool)),
            "{tool} {args:?}: {}",
            stderr(&o)
        );
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
        ("pi-grep", vec!["--session-dir", sds, "two", ""]),
        ("pi-usage", vec!["--session-dir", sds, ""]),
        ("pi-usage", vec!["--session-dir", sds, "session", ""]),
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
        ("pi-grep", vec!["two", ls]),
        ("pi-usage", vec![ls]),
        ("pi-usage", vec!["--by", "branch", ls]),
    ] {
        let o = run_io(tool, &args, &[], None, None);
        assert_eq!(
            o.status.code(),
            Some(error_status(tool)),
            "{tool}: {}",
            stderr(&o)
        );
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
fn repeated_in_place_forks_step_back_one_message_each_time() {
    let dir = TempDir::new("io-fork-repeat");
    let f = dir.write("s.jsonl", labelled().as_bytes());
    let fs = f.to_str().unwrap();
    // The leaf is the label entry aaaa0005 (on aaaa0004): bookkeeping, so
    // the first step undoes the message aaaa0004 (issue 32), and each
    // marker after it is stepped over the same way.
    for want in ["aaaa0003", "aaaa0002", "aaaa0001"] {
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
    // A fourth walks past the root and writes nothing.
    let before = std::fs::read(&f).unwrap();
    let o = run_io(
        "pi-fork",
        &[fs, "--in-place", "--at", "leaf~1"],
        &[],
        None,
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("'leaf~1' walks past the root: entry aaaa0001 (line 2) has no parent (it is a root); 0 of 1 steps taken"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&f).unwrap(), before);
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

/// Every binary reads in the I/O matrix ([`READERS`], [`STORE_READERS`]),
/// or is named in [`NOT_READERS`] with the reason.
#[test]
fn every_binary_is_in_the_io_readers() {
    let listed: Vec<&str> = READERS
        .iter()
        .chain(STORE_READERS)
        .map(|(t, _)| *t)
        .collect();
    every_binary_in("I/O (readers)", &listed, NOT_READERS);
}

/// Every binary writes in place in the I/O matrix ([`WRITERS`]), or is
/// named in [`NEVER_WRITE`] with what it writes instead.
#[test]
fn every_binary_is_in_the_io_writers() {
    let listed: Vec<&str> = WRITERS.iter().map(|(t, _)| *t).collect();
    every_binary_in("I/O (writers)", &listed, NEVER_WRITE);
}

/// A store of its own: `agent/sessions/--tmp-io--/` with one session.
struct Store {
    _dir: TempDir,
    agent: std::path::PathBuf,
    project: std::path::PathBuf,
}

impl Store {
    fn new(tag: &str) -> Store {
        let dir = TempDir::new(tag);
        let agent = dir.path().join("agent");
        let project = agent.join("sessions").join("--tmp-io--");
        std::fs::create_dir_all(&project).unwrap();
        Store {
            _dir: dir,
            agent,
            project,
        }
    }

    /// Run a store reader on it, with `env`; stdout to `out` (None: a pipe).
    fn run(&self, tool: &str, args: &[&str], env: &[(&str, &str)], out: Option<Stdio>) -> Output {
        let agent = self.agent.to_str().unwrap();
        let mut all = vec![("PI_CODING_AGENT_DIR", agent), ("TZ", "UTC")];
        all.extend(env.iter().copied());
        run_io(tool, args, &all, None, out)
    }
}

/// [`labelled`] and a reply that cost $0.50: something for pi-usage to count.
fn priced() -> String {
    let reply = r#"{"type":"message","id":"aaaa0006","parentId":"aaaa0005","timestamp":"2026-07-20T09:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"two"}],"api":"x","provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5}},"stopReason":"stop","timestamp":2}}"#;
    format!("{}{reply}\n", labelled())
}

/// The name of the good session in a store ([`priced`]: `two` in it).
const GOOD: &str = "2026-07-20T09-00-00-000Z_0190aaaa-0000-7000-8000-000000000001.jsonl";

/// In the store, beside a good session, a name ending in `.jsonl` that is
/// no session file: a FIFO nobody writes to, /dev/zero, a directory, a
/// link to itself, a link that leads nowhere, a file of NULs longer than
/// the line limit. The store readers neither hang nor fail on it: it is
/// skipped (with a warning in the tool's voice, on one line, where the
/// tool names it) and the good session is read. pi-grep's one exception is
/// documented: a line over the limit is an error (status 2, FILE:LINE),
/// the other sessions searched all the same.
#[test]
fn store_readers_skip_what_is_no_session_file() {
    let env = [("PI_SESSION_TOOLS_MAX_LINE", "1M")];
    for kind in ["fifo", "zero", "dir", "loop", "dangling", "nul"] {
        let s = Store::new("io-store");
        std::fs::write(s.project.join(GOOD), priced()).unwrap();
        let bad = s.project.join("x.jsonl");
        match kind {
            "fifo" => mkfifo(&bad),
            "zero" => std::os::unix::fs::symlink("/dev/zero", &bad).unwrap(),
            "dir" => std::fs::create_dir(&bad).unwrap(),
            "loop" => std::os::unix::fs::symlink(&bad, &bad).unwrap(),
            "dangling" => std::os::unix::fs::symlink(s.project.join("gone"), &bad).unwrap(),
            _ => std::fs::write(&bad, vec![0u8; 2 << 20]).unwrap(),
        }
        for (tool, args) in STORE_READERS {
            let o = s.run(tool, args, &env, None);
            let (out, err) = (stdout(&o), stderr(&o));
            let what = format!("{kind} / {tool} {args:?}");
            assert!(!err.contains("panicked"), "{what}: {err}");
            if kind == "nul" && *tool == "pi-check" {
                // A line over the limit is a finding (exit 1), the file
                // not read further.
                assert_eq!(o.status.code(), Some(1), "{what}: {err}");
                let want = format!("{}:1: error line-too-long", bad.display());
                assert!(out.contains(&want), "{what}: {out}");
            } else if kind == "nul" && *tool == "pi-grep" {
                assert_eq!(o.status.code(), Some(2), "{what}: {err}");
                let want = format!("{tool}: error: {}:1: line longer than", bad.display());
                assert!(err.contains(&want), "{what}: {err}");
            } else {
                assert_eq!(o.status.code(), Some(0), "{what}: {err}");
            }
            if matches!(kind, "fifo" | "zero") && *tool == "pi-ls" {
                let want = format!(
                    "pi-ls: warning: {}: not a regular file; not listed",
                    bad.display()
                );
                assert!(err.contains(&want), "{what}: {err}");
            }
            for line in err.lines() {
                assert!(
                    line.starts_with(&format!("{tool}: ")),
                    "{what}: a stderr line not in the tool's voice: {line:?}"
                );
            }
            // The good session is read: listed (by path, or id in text),
            // found, or counted.
            if *tool != "pi-usage" {
                assert!(
                    out.contains(GOOD) || (*tool == "pi-ls" && out.starts_with("0190aaaa")),
                    "{what}: {out}"
                );
            } else {
                assert!(
                    !out.trim().is_empty() && out.trim() != "[]",
                    "{what}: {out}"
                );
            }
            assert_eq!(names_in(&s.project, &[]), [GOOD, "x.jsonl"], "{what}");
        }
    }
}

/// A full disk on stdout is an error (`TOOL: error:`, the error status); a
/// reader that has gone is none (status 0), for every reader.
#[test]
fn a_full_or_closed_stdout_in_every_reader() {
    if dev_full().is_none() {
        eprintln!("SKIPPED: no /dev/full");
        return;
    }
    let s = Store::new("io-readers-stdout");
    let f = s.project.join(GOOD);
    std::fs::write(&f, priced()).unwrap();
    let fs = f.to_str().unwrap();
    let runs: Vec<(&str, Vec<&str>)> = READERS
        .iter()
        .map(|(t, extra)| (*t, args_for(t, extra, fs)))
        .chain(STORE_READERS.iter().map(|(t, a)| (*t, a.to_vec())))
        .collect();
    for (tool, args) in &runs {
        let o = s.run(tool, args, &[], dev_full());
        assert_eq!(
            o.status.code(),
            Some(error_status(tool)),
            "{tool} {args:?} > /dev/full: {}",
            stderr(&o)
        );
        assert!(
            stderr(&o).contains(&format!("{tool}: error: "))
                && stderr(&o).contains("No space left on device"),
            "{tool} {args:?} > /dev/full: {}",
            stderr(&o)
        );
        // The reader gone before the tool writes.
        let mut cmd = command(tool, args);
        cmd.env("PI_CODING_AGENT_DIR", &s.agent)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        drop(child.stdout.take());
        let o = child.wait_with_output().unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{tool} {args:?} | (closed): {}",
            stderr(&o)
        );
        assert_eq!(stderr(&o), "", "{tool} {args:?} | (closed)");
    }
}

/// Control characters (escape sequences, a bell, a carriage return, tabs
/// and line breaks) in a session's file name, name, labels, working
/// directory and texts: the store readers print none of them raw in their
/// text outputs, nor in their warnings.
#[test]
fn store_readers_print_no_raw_control_characters() {
    let s = Store::new("io-store-escape");
    let evil = "a\u{1b}[31mred\u{7}\r\tb\nc";
    let esc = |t: &str| serde_json::to_string(t).unwrap();
    let name = format!(
        "2026-07-20T09-00-00-000Z_0190aaaa-0000-7000-8000-00000000000{}.jsonl",
        "\u{1b}[2J"
    );
    let text = lines(&[
        format!(
            r#"{{"type":"session","version":3,"id":"0190aaaa-0000-7000-8000-000000000001","timestamp":"2026-07-20T09:00:00.000Z","cwd":{}}}"#,
            esc(&format!("/tmp/{evil}"))
        ),
        format!(
            r#"{{"type":"message","id":"aaaa0001","parentId":null,"timestamp":"2026-07-20T09:00:01.000Z","message":{{"role":"user","content":{},"timestamp":1}}}}"#,
            esc(&format!("two {evil} two"))
        ),
        format!(
            r#"{{"type":"message","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2026-07-20T09:00:02.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":{}}}],"api":"x","provider":{},"model":{},"usage":{{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5}}}},"stopReason":"stop","timestamp":2}}}}"#,
            esc(&format!("two {evil}")),
            esc(&format!("p{evil}")),
            esc(&format!("m{evil}"))
        ),
        format!(
            r#"{{"type":"session_info","id":"aaaa0003","parentId":"aaaa0002","timestamp":"2026-07-20T09:00:03.000Z","name":{}}}"#,
            esc(&format!("two {evil}"))
        ),
        format!(
            r#"{{"type":"label","id":"aaaa0004","parentId":"aaaa0003","timestamp":"2026-07-20T09:00:04.000Z","targetId":"aaaa0001","label":{}}}"#,
            esc(&format!("two {evil}"))
        ),
    ]);
    let f = s.project.join(&name);
    std::fs::write(&f, &text).unwrap();
    // And a file that is no session, with a control character in its name.
    std::fs::write(s.project.join("bad\u{1b}[1m\n.jsonl"), b"not a session\n").unwrap();
    let fs = f.to_str().unwrap();
    // Each run, and whether a tab may stand in its stdout: every text
    // output shows control characters visibly (issue 31), but pi-grep
    // prints the tabs of matched lines as grep does.
    let runs: Vec<(&str, Vec<&str>, bool)> = vec![
        ("pi-ls", vec!["--all"], false),
        ("pi-ls", vec!["--all", "-l"], false),
        ("pi-ls", vec!["--all", "--tree"], false),
        ("pi-grep", vec!["--all", "two"], true),
        (
            "pi-grep",
            vec!["--all", "-C", "2", "--heading", "always", "two"],
            true,
        ),
        ("pi-grep", vec!["--all", "-o", "two.*"], true),
        ("pi-grep", vec!["--all", "-c", "two"], false),
        ("pi-grep", vec!["two", fs], true),
        ("pi-grep", vec!["-l", "two", fs], false),
        ("pi-grep", vec!["-c", "two", fs], false),
        ("pi-grep", vec!["--all", "-l", "two"], false),
        ("pi-usage", vec!["daily"], false),
        ("pi-usage", vec!["weekly", "--breakdown"], false),
        ("pi-usage", vec!["session"], false),
        ("pi-usage", vec!["project"], false),
        ("pi-usage", vec!["daily", "--by", "model"], false),
        ("pi-usage", vec!["daily", "--by", "provider"], false),
        ("pi-usage", vec!["--by", "branch", fs], false),
    ];
    let raw = |t: &str| t.chars().find(|&c| c.is_control() && c != '\n');
    for (tool, args, tabs) in &runs {
        let o = s.run(tool, args, &[], None);
        let (out, err) = (stdout(&o), stderr(&o));
        assert!(
            o.status.code() == Some(0) && !err.contains("panicked"),
            "{tool} {args:?}: {err}"
        );
        assert!(!out.is_empty(), "{tool} {args:?}: no output");
        let shown = if *tabs {
            out.replace('\t', "")
        } else {
            out.clone()
        };
        if let Some(c) = raw(&shown) {
            panic!("{tool} {args:?}: a raw {c:?} on stdout: {out:?}");
        }
        if let Some(c) = raw(&err) {
            panic!("{tool} {args:?}: a raw {c:?} on stderr: {err:?}");
        }
        for line in err.lines() {
            assert!(line.starts_with(&format!("{tool}: ")), "{tool}: {line:?}");
        }
    }
}

/// Every writer refuses to write a line longer than the readers' limit
/// (issue 31): afterwards every tool would refuse the session, even the
/// `pi-edit --restore` that would undo it. Nothing is written, nothing is
/// printed to stdout, and the file is as it was.
#[test]
fn no_writer_writes_a_line_the_readers_refuse() {
    let dir = TempDir::new("io-long-write");
    let env = [("PI_SESSION_TOOLS_MAX_LINE", "4K")];
    let long = "z".repeat(5000);
    // Fits in a file (the replacement is read with the same limit), not
    // in a line with the entry around it.
    let near = dir.write("near.txt", "n".repeat(4000).as_bytes());
    let near = near.to_str().unwrap();
    let f = dir.write("s.jsonl", labelled().as_bytes());
    let fs = f.to_str().unwrap();
    // pi-label's tail-only path (8 MiB or more), lines well under the limit.
    let mut big = labelled();
    for k in 0..9000 {
        big.push_str(&format!(
            r#"{{"type":"custom","customType":"pad","data":"{}","id":"p{k:07}","parentId":"aaaa0004"}}"#,
            "x".repeat(950)
        ));
        big.push('\n');
    }
    let b = dir.write("big.jsonl", big.as_bytes());
    let bs = b.to_str().unwrap();
    let new = dir.path().join("new.jsonl");
    let news = new.to_str().unwrap();
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("pi-edit", vec![fs, "aaaa0002", "--replace", &long]),
        ("pi-edit", vec![fs, "aaaa0002", "--replace-file", near]),
        ("pi-edit", vec![fs, "--redact", "two", "--with", &long]),
        ("pi-label", vec![fs, "aaaa0002", &long]),
        ("pi-label", vec![fs, "--name", &long]),
        ("pi-label", vec![bs, "aaaa0002", &long]),
        ("pi-label", vec![bs, "--name", &long]),
        (
            "pi-fork",
            vec![fs, "--in-place", "--at", "aaaa0002", "--summary", &long],
        ),
        (
            "pi-fork",
            vec![fs, "--at", "aaaa0002", "--name", &long, "-o", news],
        ),
        (
            "pi-fork",
            vec![fs, "--at", "aaaa0002", "--name", &long, "-o", "-"],
        ),
    ];
    for (tool, args) in &cases {
        let (before, before_big) = (std::fs::read(&f).unwrap(), std::fs::read(&b).unwrap());
        let o = run_io(tool, args, &env, None, None);
        let err = stderr(&o);
        let at = format!("{tool} {:?}", &args[1..args.len().min(3)]);
        assert_eq!(o.status.code(), Some(1), "{at}: {err}");
        assert!(
            err.contains(": the new line would be ")
                && err.contains(" bytes, over the readers' limit of 4096 (")
                && err.contains("; nothing was written"),
            "{at}: {err}"
        );
        assert!(o.stdout.is_empty(), "{at} printed {}", stdout(&o));
        assert!(std::fs::read(&f).unwrap() == before, "{at} changed s.jsonl");
        assert!(
            std::fs::read(&b).unwrap() == before_big,
            "{at} changed big.jsonl"
        );
        assert!(!new.exists(), "{at} wrote the new session");
    }
    // The session on stdin: nothing echoed.
    let o = run_io(
        "pi-edit",
        &["-", "aaaa0002", "--replace", &long],
        &env,
        Some(Stdio::from(std::fs::File::open(&f).unwrap())),
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("<stdin>: the new line would be "),
        "{}",
        stderr(&o)
    );
    assert!(o.stdout.is_empty());
    // Under the limit, the same writes go through.
    let ok = run_io("pi-label", &[fs, "aaaa0002", "short"], &env, None, None);
    assert!(ok.status.success(), "{}", stderr(&ok));
    no_temp_files(dir.path(), &["s.jsonl", "big.jsonl", "near.txt"]);
}

/// Standard base64 (ripgrep's `{"bytes":...}` in JSON).
fn base64(bytes: &[u8]) -> String {
    let abc = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            out.push(match i <= c.len() {
                true => abc[(n >> (18 - 6 * i) & 63) as usize] as char,
                false => '=',
            });
        }
    }
    out
}

/// Whether `hay` holds `needle`.
fn has(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// A file name is bytes: one that is not UTF-8 is taken as an argument,
/// found when the store is walked, and printed as it is where programs
/// read it (pi-grep's lines, `-l`, `-0`, `-c`; pi-ls `-0`; pi-migrate
/// `--check`, `--dry-run`, `--relocate`; pi-fork; pi-usage `--csv`), as
/// ripgrep's `{"bytes": base64}` in JSON, and as `\xNN` in messages;
/// pi-ls lists it instead of warning "No such file".
#[test]
fn names_that_are_not_utf8_are_taken_and_printed_as_bytes() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = TempDir::new("io-bytes");
    let d = dir.path();
    let assistant = r#"{"type":"message","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2026-07-20T09:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hello back"}],"provider":"p","model":"m","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.3}},"stopReason":"stop","timestamp":1784538002000}}"#;
    let text = session(&[user("aaaa0001", None, "hello"), assistant.to_string()]);
    let bad = b"bad\xff.jsonl";
    std::fs::create_dir_all(d.join("agent/sessions/--p--")).unwrap();
    let stored = d.join("agent/sessions/--p--").join(OsStr::from_bytes(bad));
    std::fs::write(d.join(OsStr::from_bytes(bad)), &text).unwrap();
    std::fs::write(&stored, &text).unwrap();
    std::fs::write(
        d.join(OsStr::from_bytes(b"old\xfe.jsonl")),
        v1_session("old", ["x".to_string()]),
    )
    .unwrap();
    std::fs::write(
        d.join(OsStr::from_bytes(b"none\xfb.jsonl")),
        b"not a session\n",
    )
    .unwrap();
    let moved = b"mis\xfd.jsonl";
    std::fs::write(
        d.join("agent").join(OsStr::from_bytes(moved)),
        header("m", "2026-07-20T09:00:00.000Z", "/home/b", None) + "\n",
    )
    .unwrap();
    let run = |tool: &str, args: &[&[u8]]| {
        let mut c = command(tool, &[]);
        c.args(args.iter().map(|a| OsStr::from_bytes(a)))
            .current_dir(d)
            .env("PI_CODING_AGENT_DIR", d.join("agent"))
            .env("NO_COLOR", "1")
            .stdin(Stdio::null());
        let o = c.output().unwrap();
        assert!(
            o.status.code().is_some_and(|c| c < 2),
            "{tool} {args:?}: {}",
            stderr(&o)
        );
        o
    };
    let json = |o: &Output| -> serde_json::Value {
        let line = String::from_utf8(o.stdout.clone()).unwrap();
        serde_json::from_str(line.lines().next().unwrap()).unwrap()
    };
    // pi-grep: the argument, each output, and a walked directory
    let o = run("pi-grep", &[b"hello", bad]);
    assert_eq!(o.stdout, b"bad\xff.jsonl:aaaa0001:user/text: hello\nbad\xff.jsonl:aaaa0002:assistant/text: hello back\n");
    assert_eq!(
        run("pi-grep", &[b"-l", b"hello", bad]).stdout,
        b"bad\xff.jsonl\n"
    );
    assert_eq!(
        run("pi-grep", &[b"-l0", b"hello", bad]).stdout,
        b"bad\xff.jsonl\0"
    );
    assert_eq!(
        run("pi-grep", &[b"-c", b"hello", bad]).stdout,
        b"bad\xff.jsonl:2\n"
    );
    let v = json(&run("pi-grep", &[b"--json", b"hello", bad]));
    assert_eq!(v["path"], serde_json::json!({ "bytes": base64(bad) }));
    let o = run("pi-grep", &[b"-l", b"hello", b"agent"]);
    assert_eq!(o.stdout, b"agent/sessions/--p--/bad\xff.jsonl\n");
    // a pattern is text
    let mut c = command("pi-grep", &[]);
    let o = c
        .arg(OsStr::from_bytes(b"\xff"))
        .arg(OsStr::from_bytes(bad))
        .current_dir(d)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("PATTERN is not UTF-8"),
        "{}",
        stderr(&o)
    );
    // a message shows the byte as \xNN
    let o = run("pi-grep", &[b"x", b"none\xfb.jsonl"]);
    assert!(stderr(&o).contains("none\\xfb.jsonl"), "{}", stderr(&o));
    // pi-ls: listed (not "No such file"), -0 raw, --json as bytes
    let o = run("pi-ls", &[b"--all"]);
    assert!(stdout(&o).contains("hello"), "{}{}", stdout(&o), stderr(&o));
    assert!(!stderr(&o).contains("No such file"), "{}", stderr(&o));
    let o = run("pi-ls", &[b"--all", b"-0"]);
    assert_eq!(o.stdout, [stored.as_os_str().as_bytes(), b"\0"].concat());
    let v = json(&run("pi-ls", &[b"--all", b"--json"]));
    let path = stored.as_os_str().as_bytes();
    assert_eq!(v["path"], serde_json::json!({ "bytes": base64(path) }));
    // pi-migrate: --check, --dry-run, --relocate's lines
    let o = run("pi-migrate", &[b"--check", b"old\xfe.jsonl"]);
    assert_eq!(o.stdout, b"old\xfe.jsonl\n");
    let o = run("pi-migrate", &[b"--dry-run", b"old\xfe.jsonl", bad]);
    assert!(o.stdout.starts_with(b"old\xfe.jsonl: "), "{}", stdout(&o));
    let o = run("pi-migrate", &[b"--dry-run", b"--all", b"--relocate"]);
    let agent = d.join("agent");
    let line = [
        agent.join(OsStr::from_bytes(moved)).as_os_str().as_bytes(),
        b": would move to ",
        agent
            .join("sessions/--home-b--")
            .join(OsStr::from_bytes(moved))
            .as_os_str()
            .as_bytes(),
        b"; a version 1 or 2 file is migrated there too\n",
    ]
    .concat();
    assert!(has(&o.stdout, &line), "{}", stdout(&o));
    // pi-fork: the new file's name, as it is and in JSON
    let o = run(
        "pi-fork",
        &[bad, b"--at", b"aaaa0001", b"-o", b"new\xfc.jsonl"],
    );
    assert_eq!(o.stdout, b"new\xfc.jsonl\n");
    let o = run(
        "pi-fork",
        &[
            bad,
            b"--at",
            b"aaaa0001",
            b"-o",
            b"two\xfc.jsonl",
            b"--json",
        ],
    );
    let abs = d.join(OsStr::from_bytes(b"two\xfc.jsonl"));
    let v = json(&o);
    assert_eq!(
        v["path"],
        serde_json::json!({ "bytes": base64(abs.as_os_str().as_bytes()) })
    );
    // pi-usage: the session report's file column
    let o = run("pi-usage", &[b"session", bad, b"--csv"]);
    assert!(has(&o.stdout, b",bad\xff.jsonl,"), "{}", stdout(&o));
    let o = run("pi-usage", &[b"session", bad, b"--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["sessions"][0]["file"],
        serde_json::json!({ "bytes": base64(bad) })
    );
}
