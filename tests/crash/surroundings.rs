//! Hostile surroundings for the tools that write: a file size limit, a full
//! file system, writes denied by mode or `chattr +i`, and a file deleted or
//! replaced while a tool works on it. Each gives a clear error and loses
//! nothing.
use super::{calibrate, old_or_one_more, v1_chain, v3_chain, Rng};
use crate::common::*;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// Run `tool args` under `sh` with a file size limit of `blocks` (POSIX
/// `ulimit -f` counts 512-byte blocks); `ignore_xfsz` makes writes past the
/// limit fail with EFBIG instead of killing the tool with SIGXFSZ (an
/// ignored signal stays ignored across exec).
fn run_limited(tool: &str, args: &[&str], blocks: u64, ignore_xfsz: bool) -> Output {
    let mut script = String::new();
    if ignore_xfsz {
        script.push_str("trap '' XFSZ; ");
    }
    script.push_str(&format!("ulimit -f {blocks}; exec \"$0\" \"$@\""));
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(bin(tool))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("sh")
}

fn stderr_of(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A failed run: exit 1 with `TOOL: error:` (or, when allowed, killed by
/// SIGXFSZ), and `file` as it was.
fn assert_failed_cleanly(o: &Output, tool: &str, file: &Path, before: &[u8], what: &str) {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if o.status.signal() == Some(25) {
            assert_eq!(
                std::fs::read(file).unwrap(),
                before,
                "{what}: killed, file changed"
            );
            return;
        }
    }
    assert_eq!(o.status.code(), Some(1), "{what}: {}", stderr_of(o));
    assert!(
        stderr_of(o).contains(&format!("{tool}: error: ")),
        "{what}: {}",
        stderr_of(o)
    );
    assert!(!stderr_of(o).contains("panicked"), "{what}");
    assert_eq!(
        std::fs::read(file).unwrap(),
        before,
        "{what}: the file changed"
    );
}

/// A v3 session whose size is a multiple of `unit` (padding the last message).
fn v3_chain_sized(n: usize, unit: usize) -> Vec<u8> {
    let base = v3_chain(n);
    let pad = (unit - base.len() % unit) % unit;
    let text = String::from_utf8(base).unwrap();
    let at = text.rfind("longer").unwrap();
    let mut s = text[..at].to_string();
    s.push_str(&"x".repeat(pad));
    s.push_str(&text[at..]);
    assert_eq!(s.len() % unit, 0);
    s.into_bytes()
}

#[test]
fn file_size_limit() {
    let t = TempDir::new("crash-ulimit");
    for ignore in [true, false] {
        let how = if ignore { "EFBIG" } else { "SIGXFSZ" };
        // pi-label: the limit falls inside the appended line (the file ends
        // 40 bytes before a 512-byte boundary).
        let old = {
            let text = String::from_utf8(v3_chain_sized(20, 512)).unwrap();
            let at = text.rfind("longer").unwrap();
            let s = format!("{}{}", &text[..at - 40], &text[at..]);
            assert_eq!(s.len() % 512, 512 - 40);
            s.into_bytes()
        };
        let blocks = old.len() as u64 / 512 + 1;
        let f = t.write("s.jsonl", &old);
        let name = f.to_str().unwrap();
        let o = run_limited("pi-label", &[name, "leaf", "mark"], blocks, ignore);
        assert_failed_cleanly(
            &o,
            "pi-label",
            &f,
            &old,
            &format!("pi-label, limit in the line ({how})"),
        );
        if ignore {
            assert!(stderr_of(&o).contains("short write"), "{}", stderr_of(&o));
        }
        // ... and when the file is already past the limit.
        let o = run_limited("pi-label", &[name, "leaf", "mark"], 1, ignore);
        assert_failed_cleanly(
            &o,
            "pi-label",
            &f,
            &old,
            &format!("pi-label, past the limit ({how})"),
        );
        let o = run_limited("pi-fork", &[name, "-i", "--at", "root"], 1, ignore);
        assert_failed_cleanly(&o, "pi-fork", &f, &old, &format!("pi-fork -i ({how})"));

        // pi-migrate -i: the new file does not fit.
        let v1 = v1_chain(2000);
        let g = t.write("old.jsonl", &v1);
        let gname = g.to_str().unwrap();
        let o = run_limited("pi-migrate", &["-i", gname], 100, ignore);
        assert_failed_cleanly(&o, "pi-migrate", &g, &v1, &format!("pi-migrate -i ({how})"));
        // pi-fork into a new file that does not fit.
        let out = t.path().join("out");
        std::fs::create_dir_all(&out).unwrap();
        let big = t.write("big.jsonl", &v3_chain(2000));
        let fork = [
            big.to_str().unwrap(),
            "--at",
            "leaf",
            "--session-dir",
            out.to_str().unwrap(),
        ];
        let o = run_limited("pi-fork", &fork, 100, ignore);
        assert_failed_cleanly(
            &o,
            "pi-fork",
            &big,
            &std::fs::read(&big).unwrap(),
            &format!("pi-fork ({how})"),
        );
        let made: Vec<String> = names_in(&out, &[])
            .into_iter()
            .filter(|n| !n.starts_with('.'))
            .collect();
        assert_eq!(
            made,
            Vec::<String>::new(),
            "pi-fork ({how}): a partial new session"
        );

        // Without the limit the next runs succeed and leave no temporary file.
        run_ok("pi-migrate", &["-i", "-q", gname]);
        run_ok("pi-fork", &fork);
        run_ok("pi-label", &[name, "leaf", "mark"]);
        let hidden: Vec<String> = names_in(t.path(), &[])
            .into_iter()
            .chain(names_in(&out, &[]))
            .filter(|n| n.starts_with('.'))
            .collect();
        assert_eq!(hidden, Vec::<String>::new(), "({how}) temporary files left");
        std::fs::remove_dir_all(&out).unwrap();
    }
}

/// A change to the system made for a test (`set`, when it succeeds), and
/// undone on drop (`undo`).
struct Undo(Command);

impl Undo {
    fn set(set: &mut Command, undo: &[&str], on: &Path) -> Option<Undo> {
        let ok = set
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        let mut c = Command::new(undo[0]);
        c.args(&undo[1..]).arg(on);
        ok.then_some(Undo(c))
    }

    /// A small tmpfs mounted at `at`, unmounted on drop.
    fn tmpfs(at: &Path, size: &str) -> Option<Undo> {
        std::fs::create_dir_all(at).ok()?;
        let mut mount = Command::new("mount");
        mount
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at);
        Undo::set(&mut mount, &["umount", "-l"], at)
    }

    /// `chattr +i` (immutable: denied even to root).
    fn immutable(p: &Path) -> Option<Undo> {
        Undo::set(
            Command::new("chattr").arg("+i").arg(p),
            &["chattr", "-i"],
            p,
        )
    }
}

impl Drop for Undo {
    fn drop(&mut self) {
        let _ = self.0.status();
    }
}

#[test]
fn full_file_system() {
    let t = TempDir::new("crash-full");
    let d = t.path().join("mnt");
    let Some(_mounted) = Undo::tmpfs(&d, "2m") else {
        eprintln!(
            "SKIPPED full_file_system: cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN)"
        );
        return;
    };
    let v1 = v1_chain(3000);
    let g = d.join("old.jsonl");
    std::fs::write(&g, &v1).unwrap();
    let v3 = v3_chain_sized(100, 4096);
    let f = d.join("s.jsonl");
    std::fs::write(&f, &v3).unwrap();
    // Fill the rest of the file system.
    {
        use std::io::Write;
        let mut filler = std::fs::File::create(d.join("filler")).unwrap();
        let chunk = vec![b'f'; 4096];
        while filler.write_all(&chunk).is_ok() {}
        let _ = filler.sync_all();
    }
    check_denied(&d, true, true, "on a full disk");
    assert!(d.join("filler").exists());
    // Room again: everything works, and nothing was left behind.
    std::fs::remove_file(d.join("filler")).unwrap();
    run_ok("pi-migrate", &["-i", "-q", g.to_str().unwrap()]);
    run_ok("pi-label", &[f.to_str().unwrap(), "leaf", "mark"]);
    assert_eq!(names_in(&d, &[]), ["old.jsonl", "s.jsonl"]);
}

/// Every writing tool on `dir/s.jsonl` (v3) and `dir/old.jsonl` (v1), where
/// writes are denied (or the disk is full: a `filler` file may fill it): to
/// new names in the directory (`dir_denied`), to the files themselves
/// (`files_denied`).
fn check_denied(dir: &Path, dir_denied: bool, files_denied: bool, what: &str) {
    let (f, g) = (dir.join("s.jsonl"), dir.join("old.jsonl"));
    let (v3, v1) = (std::fs::read(&f).unwrap(), std::fs::read(&g).unwrap());
    let (name, gname) = (f.to_str().unwrap(), g.to_str().unwrap());
    let run = |tool: &str, args: &[&str]| command(tool, args).output().unwrap();
    let o = run("pi-migrate", &["-i", gname]);
    assert_failed_cleanly(&o, "pi-migrate", &g, &v1, &format!("pi-migrate -i, {what}"));
    if dir_denied && !stderr(&o).contains("No space left") {
        // A denied directory is named: the permission is missing there.
        let want = format!("cannot create a temporary file in {}: ", dir.display());
        assert!(stderr(&o).contains(&want), "{what}: {}", stderr(&o));
    }
    if dir_denied {
        let o = run(
            "pi-fork",
            &[name, "--at", "leaf", "--session-dir", dir.to_str().unwrap()],
        );
        assert_failed_cleanly(&o, "pi-fork", &f, &v3, &format!("pi-fork, {what}"));
    }
    if files_denied {
        let o = run("pi-label", &[name, "leaf", "mark"]);
        assert_failed_cleanly(&o, "pi-label", &f, &v3, &format!("pi-label, {what}"));
        let o = run("pi-fork", &[name, "-i", "--at", "root"]);
        assert_failed_cleanly(&o, "pi-fork", &f, &v3, &format!("pi-fork -i, {what}"));
    }
    assert_eq!(
        names_in(dir, &["filler"]),
        ["old.jsonl", "s.jsonl"],
        "{what}: files left"
    );
}

#[test]
fn denied_writes() {
    let t = TempDir::new("crash-denied");
    let d = t.path().join("d");
    std::fs::create_dir(&d).unwrap();
    std::fs::write(d.join("s.jsonl"), v3_chain(50)).unwrap();
    std::fs::write(d.join("old.jsonl"), v1_chain(50)).unwrap();
    // chmod: a read-only directory and read-only files.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path, m: u32| {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap()
        };
        mode(&d, 0o555);
        mode(&d.join("s.jsonl"), 0o444);
        mode(&d.join("old.jsonl"), 0o444);
        let probe = d.join("probe");
        if std::fs::write(&probe, b"").is_ok() {
            let _ = std::fs::remove_file(&probe);
            eprintln!(
                "SKIPPED chmod denial: this user (root?) writes into a mode-555 directory anyway"
            );
        } else {
            check_denied(&d, true, true, "read-only directory and files (chmod)");
        }
        mode(&d, 0o755);
        mode(&d.join("s.jsonl"), 0o644);
        mode(&d.join("old.jsonl"), 0o644);
    }
    // chattr +i: denied even to root.
    let files = Undo::immutable(&d.join("s.jsonl")).zip(Undo::immutable(&d.join("old.jsonl")));
    match files {
        None => eprintln!("SKIPPED chattr denial: chattr +i is not available here"),
        Some(guards) => {
            check_denied(&d, false, true, "immutable files (chattr +i)");
            drop(guards);
            let guard = Undo::immutable(&d).expect("chattr +i on a directory");
            check_denied(&d, true, false, "immutable directory (chattr +i)");
            drop(guard);
        }
    }
    // Writable again: the tools work.
    run_ok(
        "pi-migrate",
        &["-i", "-q", d.join("old.jsonl").to_str().unwrap()],
    );
    run_ok(
        "pi-label",
        &[d.join("s.jsonl").to_str().unwrap(), "leaf", "mark"],
    );
}

#[test]
fn file_deleted_or_replaced_mid_run() {
    let t = TempDir::new("crash-gone");
    let mut rng = Rng::new();
    let v1 = v1_chain(60_000);
    let replacement = v3_chain(10);
    let f = t.path().join("s.jsonl");
    let name = f.to_str().unwrap().to_string();
    let spare = t.path().join("spare");
    let full = calibrate(|| {
        std::fs::write(&f, &v1).unwrap();
        run_ok("pi-migrate", &["-i", "-q", &name]);
    });
    let label_full = calibrate(|| {
        std::fs::write(&f, v3_chain(60_000)).unwrap();
        run_ok("pi-label", &[&name, "leaf", "mark"]);
    });
    let big_v3 = v3_chain(60_000);
    let mut refused = 0;
    for k in 0..24 {
        let replace = k % 2 == 0;
        let label = k % 4 >= 2;
        let (tool, args, old, span): (&str, Vec<&str>, &[u8], Duration) = if label {
            ("pi-label", vec![&name, "leaf", "mark"], &big_v3, label_full)
        } else {
            ("pi-migrate", vec!["-i", &name], &v1, full)
        };
        std::fs::write(&f, old).unwrap();
        let child = command(tool, &args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let delay = Duration::from_micros(rng.below(span.as_micros() as u64));
        std::thread::sleep(delay);
        if replace {
            std::fs::write(&spare, &replacement).unwrap();
            std::fs::rename(&spare, &f).unwrap();
        } else {
            std::fs::remove_file(&f).unwrap();
        }
        let o = child.wait_with_output().unwrap();
        let what = format!(
            "{tool} with the file {} after {delay:?}",
            if replace { "replaced" } else { "deleted" }
        );
        assert!(
            o.status.code() == Some(0) || o.status.code() == Some(1),
            "{what}: {:?}",
            o.status
        );
        assert!(!stderr_of(&o).contains("panicked"), "{what}");
        if o.status.code() == Some(1) {
            assert!(
                stderr_of(&o).contains(&format!("{tool}: error: ")),
                "{what}: {}",
                stderr_of(&o)
            );
        }
        match (replace, std::fs::read(&f)) {
            (false, Ok(_)) => panic!("{what}: the deleted file was written again"),
            (false, Err(_)) => {}
            (true, Ok(now)) if label => {
                // The label may be in the replacement only if it was there
                // before pi-label opened the file.
                if old_or_one_more(&replacement, &now, "label", &what) {
                    assert_eq!(o.status.code(), Some(0), "{what}");
                }
            }
            (true, Ok(now)) => assert!(
                now == replacement,
                "{what}: the replacement was overwritten ({} bytes now)",
                now.len()
            ),
            (true, Err(e)) => panic!("{what}: {e}"),
        }
        if o.status.code() == Some(1) {
            refused += 1;
        }
        assert_eq!(
            names_in(t.path(), &["s.jsonl"]),
            Vec::<String>::new(),
            "{what}: files left"
        );
    }
    eprintln!("{refused} of 24 runs saw the file go and said so");
}
