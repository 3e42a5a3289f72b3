//! `pi-migrate -i` racing a writer, at exactly the moment that matters:
//! `PI_SESSION_TOOLS_TEST_PAUSE=DIR` stops the tool right before each
//! rename of a file (it writes `DIR/paused-N` and waits for `DIR/go-N`),
//! where a line appended to the old file would be lost by the rename.

use crate::common::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

/// A v1 line, as an older pi (or a script) appends it.
pub(super) fn v1_line(text: &str) -> String {
    format!(
        r#"{{"type":"message","timestamp":"2025-01-01T00:00:02.000Z","message":{}}}"#,
        user_message(text)
    )
}

pub(super) fn old_session(n: usize) -> String {
    v1_session(
        "0c4a5bed-0000-7000-8000-00000000race",
        (0..n).map(|k| format!("message {k}")),
    )
}

/// What pi-migrate makes of `text` (to stdout).
pub(super) fn migrated(text: &str) -> Vec<u8> {
    let o = run("pi-migrate", &[], Some(text.as_bytes()));
    assert!(o.status.success(), "{}", stderr(&o));
    o.stdout
}

/// pi-migrate started with the pause in `pause`.
pub(super) fn start(pause: &Path, args: &[&str]) -> Child {
    command("pi-migrate", args)
        .env("PI_SESSION_TOOLS_TEST_PAUSE", pause)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Wait until the tool pauses before rename `n` (a minute at most: the
/// tool stops there before any rename).
pub(super) fn wait_paused(pause: &Path, n: usize) {
    let start = Instant::now();
    while !pause.join(format!("paused-{n}")).exists() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "pi-migrate never reached rename {n}"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

pub(super) fn go(pause: &Path, n: usize) {
    std::fs::write(pause.join(format!("go-{n}")), b"").unwrap();
}

pub(super) fn finish(c: Child) -> Output {
    c.wait_with_output().unwrap()
}

pub(super) fn setup(tag: &str, n: usize) -> (TempDir, PathBuf, PathBuf, String) {
    let t = TempDir::new(tag);
    let old = old_session(n);
    let f = t.write("s.jsonl", old.as_bytes());
    let pause = t.path().join("pause");
    std::fs::create_dir(&pause).unwrap();
    (t, f, pause, old)
}

#[test]
fn a_line_appended_right_before_the_rename_is_carried_over() {
    let (t, f, pause, old) = setup("race-append", 20);
    let c = start(&pause, &["-i", f.to_str().unwrap()]);
    wait_paused(&pause, 1);
    // pi's way: open, append one line, close.
    append_line(&f, &v1_line("appended at the race"));
    go(&pause, 1);
    // The carried-over version is renamed in turn, with its own pause.
    wait_paused(&pause, 2);
    go(&pause, 2);
    let o = finish(c);
    assert!(o.status.success(), "{}", stderr(&o));
    let want = migrated(&format!("{old}{}\n", v1_line("appended at the race")));
    assert_same(&std::fs::read(&f).unwrap(), &want, "the file");
    assert_eq!(
        names_in(t.path(), &["s.jsonl", "pause"]),
        Vec::<String>::new()
    );
}

#[test]
fn a_rewrite_by_pi_right_before_the_rename_is_what_the_file_holds() {
    // pi opening the v1 file migrates it and rewrites it in place
    // (`open(..., "w")`), with its own ids: that text, and pi's ids, win.
    let (_t, f, pause, old) = setup("race-rewrite", 20);
    let pis = String::from_utf8(migrated(&old))
        .unwrap()
        .replace("\"id\":\"", "\"id\":\"p");
    let c = start(&pause, &["-i", f.to_str().unwrap()]);
    wait_paused(&pause, 1);
    let mut w = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&f)
        .unwrap();
    w.write_all(pis.as_bytes()).unwrap();
    drop(w);
    go(&pause, 1);
    wait_paused(&pause, 2);
    go(&pause, 2);
    let o = finish(c);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_same(&std::fs::read(&f).unwrap(), pis.as_bytes(), "the file");
}

#[test]
fn a_file_that_keeps_growing_is_kept_whole_and_reported() {
    let (t, f, pause, old) = setup("race-moving", 5);
    let c = start(&pause, &["-i", "-q", f.to_str().unwrap()]);
    wait_paused(&pause, 1);
    // A writer holding the old file open appends before every rename.
    let mut w = std::fs::OpenOptions::new().append(true).open(&f).unwrap();
    let mut all = old.clone();
    for n in 1..=5 {
        if n > 1 {
            wait_paused(&pause, n);
        }
        let line = format!("{}\n", v1_line(&format!("late {n}")));
        w.write_all(line.as_bytes()).unwrap();
        all.push_str(&line);
        go(&pause, n);
    }
    let o = finish(c);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let kept = t.path().join("s.jsonl.pi-migrate-kept-1");
    assert_stderr_has(&o, "still being written");
    assert_stderr_has(&o, &kept.display().to_string());
    // Every line is somewhere: the old file's whole text is kept, and the
    // file holds the migrated text of all but the last line.
    assert_same(&std::fs::read(&kept).unwrap(), all.as_bytes(), "kept");
    let but_last = &all[..all.len() - v1_line("late 5").len() - 1];
    assert_same(&std::fs::read(&f).unwrap(), &migrated(but_last), "the file");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(
            mode(&kept),
            mode(&f),
            "the kept file has the session's mode"
        );
    }
}

#[test]
fn a_half_written_last_line_is_kept_not_migrated() {
    let (t, f, pause, old) = setup("race-half", 5);
    let c = start(&pause, &["-i", f.to_str().unwrap()]);
    wait_paused(&pause, 1);
    let half = &v1_line("cut short")[..30];
    let mut w = std::fs::OpenOptions::new().append(true).open(&f).unwrap();
    w.write_all(half.as_bytes()).unwrap();
    go(&pause, 1);
    // The line never ends: after its second of waiting, the tool keeps the
    // old file whole and says so.
    let o = finish(c);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_stderr_has(&o, "half written");
    let kept = t.path().join("s.jsonl.pi-migrate-kept-1");
    assert_same(
        &std::fs::read(&kept).unwrap(),
        format!("{old}{half}").as_bytes(),
        "kept",
    );
    assert_same(&std::fs::read(&f).unwrap(), &migrated(&old), "the file");
}
