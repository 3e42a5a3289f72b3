//! pi-rm: to the trash, refusals (in use, forks), --orphans, --yes.
use crate::common::*;
use crate::mv::{on, store};

#[test]
fn a_session_goes_to_the_trash() {
    let s = store("rm-trash");
    let dir = s.dir.path();
    let before = std::fs::read(&s.b).unwrap();
    let o = on(
        dir,
        "pi-rm",
        &["--dry-run", "0190aaaa-0000-7000-8000-00000000000b"],
        &[],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(s.b.exists());
    let o = on(dir, "pi-rm", &["0190aaaa-0000-7000-8000-00000000000b"], &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!s.b.exists());
    let name = s.b.file_name().unwrap().to_str().unwrap();
    assert_eq!(
        std::fs::read(dir.join("xdg/Trash/files").join(name)).unwrap(),
        before
    );
    let info =
        std::fs::read_to_string(dir.join(format!("xdg/Trash/info/{name}.trashinfo"))).unwrap();
    assert!(
        info.starts_with(&format!(
            "[Trash Info]\nPath={}\nDeletionDate=",
            s.b.display()
        )),
        "{info}"
    );
}

#[test]
fn forks_refuse_unless_orphans() {
    let s = store("rm-forks");
    let dir = s.dir.path();
    let a = s.a.to_str().unwrap();
    let o = on(dir, "pi-rm", &[a], &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("named by 1 fork in parentSession"),
        "{}",
        stderr(&o)
    );
    assert!(s.a.exists());
    // deleted together with its fork: no orphan
    let o = on(
        dir,
        "pi-rm",
        &["--dry-run", "--json", a, s.fork.to_str().unwrap()],
        &[],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let fork_before = std::fs::read_to_string(&s.fork).unwrap();
    let o = on(dir, "pi-rm", &["--orphans", "clear", a], &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!s.a.exists());
    let fork = std::fs::read_to_string(&s.fork).unwrap();
    let want = fork_before.replace(&format!(",\"parentSession\":\"{a}\""), "");
    assert_eq!(fork, want, "only parentSession removed");
}

#[test]
fn without_a_trash_only_with_yes() {
    let s = store("rm-notrash");
    let dir = s.dir.path();
    std::fs::write(dir.join("blocker"), b"").unwrap();
    let xdg = dir.join("blocker/data");
    let b = s.b.to_str().unwrap();
    let o = on(
        dir,
        "pi-rm",
        &[b],
        &[("XDG_DATA_HOME", xdg.to_str().unwrap())],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("pass --yes"), "{}", stderr(&o));
    assert!(s.b.exists());
    let o = on(
        dir,
        "pi-rm",
        &["--yes", b],
        &[("XDG_DATA_HOME", xdg.to_str().unwrap())],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!s.b.exists());
}

#[test]
fn in_use_is_refused_and_names_come_on_stdin() {
    let s = store("rm-inuse");
    let mut child = std::process::Command::new("sleep")
        .arg("60")
        .stdin(std::fs::File::open(&s.b).unwrap())
        .spawn()
        .unwrap();
    let list = format!("{}\0", s.b.display());
    let o = run_with("pi-rm", &["-0", "--json"], Some(list.as_bytes()), |c| {
        c.env("PI_CODING_AGENT_DIR", s.dir.path().join("agent"))
            .env("XDG_DATA_HOME", s.dir.path().join("xdg"));
    });
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(j["status"], "refused");
    assert!(j["error"].as_str().unwrap().contains("has it open"), "{j}");
    assert!(s.b.exists());
}

/// A session on another file system than the home trash goes to that file
/// system's own trash, `$topdir/.Trash-UID` (here /dev/shm, a tmpfs).
#[test]
fn another_file_system_has_its_own_trash() {
    use std::os::unix::fs::MetadataExt;
    let shm = std::path::Path::new("/dev/shm");
    let t = TempDir::new("rm-topdir");
    let (Ok(a), Ok(b)) = (std::fs::metadata(shm), std::fs::metadata(t.path())) else {
        return;
    };
    if a.dev() == b.dev() || !shm.join(".").exists() {
        return; // no second file system here
    }
    let uid = std::fs::metadata("/proc/self")
        .map(|m| m.uid())
        .unwrap_or(0);
    let trash = shm.join(format!(".Trash-{uid}"));
    let existed = trash.exists();
    let name = format!("pst-rm-{}.jsonl", std::process::id());
    let f = shm.join(&name);
    std::fs::write(
        &f,
        format!(
            "{}\n",
            header(
                "0190aaaa-0000-7000-8000-0000000000ee",
                "2026-07-20T09:00:00.000Z",
                "/x",
                None
            )
        ),
    )
    .unwrap();
    let o = on(t.path(), "pi-rm", &[f.to_str().unwrap()], &[]);
    let moved = trash.join("files").join(&name);
    let got = moved.exists();
    let _ = std::fs::remove_file(&moved);
    let _ = std::fs::remove_file(trash.join("info").join(format!("{name}.trashinfo")));
    if !existed {
        let _ = std::fs::remove_dir_all(&trash);
    }
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(got && !f.exists(), "{}", stdout(&o));
}

/// Standard output on a full disk: every session named still goes, and
/// the run fails.
#[test]
fn a_failing_stdout_does_not_stop_the_deletes_halfway() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return;
    };
    let s = store("rm-full");
    let o = run_with(
        "pi-rm",
        &[s.b.to_str().unwrap(), s.fork.to_str().unwrap()],
        None,
        |c| {
            c.env("PI_CODING_AGENT_DIR", s.dir.path().join("agent"))
                .env("XDG_DATA_HOME", s.dir.path().join("xdg"))
                .stdout(full);
        },
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("No space left on device"),
        "{}",
        stderr(&o)
    );
    assert!(!s.b.exists() && !s.fork.exists());
}
