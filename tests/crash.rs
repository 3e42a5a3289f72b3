//! Crashes and hostile surroundings for the tools that write.
//!
//! - `pi-migrate -i`, `pi-label`, `pi-fork` (a new file) and `pi-fork -i`
//!   killed with SIGKILL at random moments: afterwards the file is the
//!   complete old or the complete new version (an append: the old bytes plus
//!   at most one whole line), and the next run leaves no temporary file.
//!   30 kills per tool by default; `.ci/run` runs the 200-kill version with
//!   `cargo test --release --test tests crash:: -- --ignored`.
//! - A file size limit (`ulimit -f`), a full file system (a small tmpfs, when
//!   this user may mount one), an immutable file and directory (`chattr +i`;
//!   `chmod` does not stop root), and a file deleted or replaced while a tool
//!   works on it: a clear error, and nothing lost.
//!
//! The random delays come from a seed printed on failure; set CRASH_SEED to
//! replay one.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------
// Helpers

struct Rng(u64);

impl Rng {
    fn new() -> Rng {
        let seed = std::env::var("CRASH_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64)
                    | 1
            });
        eprintln!("crash test seed: CRASH_SEED={seed}");
        Rng(seed)
    }
    fn next(&mut self) -> u64 {
        // xorshift64*
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
}

/// How long a complete run takes (the median of five).
fn calibrate(mut once: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..5)
        .map(|_| {
            let t = Instant::now();
            once();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[2]
}

/// A version-3 chain of `n` messages, some 200 bytes each.
fn v3_chain(n: usize) -> Vec<u8> {
    let text = |k| {
        user_message(&format!(
            "message number {k}, with some words to make it longer"
        ))
    };
    session(&chain(n, text)).into_bytes()
}

/// A version-1 session (no ids) of `n` messages.
fn v1_chain(n: usize) -> Vec<u8> {
    let texts =
        (0..n).map(|k| format!("old message number {k}, with some words to make it longer"));
    v1_session("0c4a5bed-0000-7000-8000-000000000000", texts).into_bytes()
}

/// `after` is `before` plus at most one whole JSON line of type `ty`;
/// returns whether the line is there.
fn old_or_one_more(before: &[u8], after: &[u8], ty: &str, what: &str) -> bool {
    match appended_line(before, after) {
        Ok(None) => false,
        Ok(Some(v)) => {
            assert_eq!(v["type"], ty, "{what}");
            true
        }
        Err(e) => panic!("{what}: {e}"),
    }
}

// ---------------------------------------------------------------------------
// SIGKILL at random moments

/// The outcomes of a kill loop: how many runs left the old and the new file.
#[derive(Default, Debug)]
struct Tally {
    old: usize,
    new: usize,
}

fn kill_migrate(kills: usize, rng: &mut Rng) -> Tally {
    let t = TempDir::new("crash-migrate");
    let old = v1_chain(4000);
    let f = t.write("s.jsonl", &old);
    let name = f.to_str().unwrap();
    // The migrated text (deterministic ids): what -i must write.
    let new = run_ok("pi-migrate", &[name]).stdout;
    assert_ne!(new, old);
    let full = calibrate(|| {
        std::fs::write(&f, &old).unwrap();
        run_ok("pi-migrate", &["-i", "-q", name]);
        assert_same(&std::fs::read(&f).unwrap(), &new, "calibration");
    });
    let mut tally = Tally::default();
    for k in 0..kills {
        std::fs::write(&f, &old).unwrap();
        let delay = Duration::from_micros(rng.below(full.as_micros() as u64 * 3 / 2));
        kill_after("pi-migrate", &["-i", name], delay);
        let now = std::fs::read(&f).unwrap();
        let what = format!("pi-migrate -i killed after {delay:?} (kill {k})");
        if now == old {
            tally.old += 1;
        } else if now == new {
            tally.new += 1;
        } else {
            panic!("{what}: the file is neither the old nor the new version");
        }
        // The next run finishes the job and removes what the killed one left.
        run_ok("pi-migrate", &["-i", "-q", name]);
        assert_same(&std::fs::read(&f).unwrap(), &new, &what);
        assert_eq!(
            names_in(t.path(), &["s.jsonl"]),
            Vec::<String>::new(),
            "{what}"
        );
    }
    tally
}

fn kill_append(tool: &str, kills: usize, rng: &mut Rng) -> Tally {
    let t = TempDir::new("crash-append");
    let old = v3_chain(4000);
    let f = t.write("s.jsonl", &old);
    let name = f.to_str().unwrap();
    let (args, ty): (Vec<&str>, &str) = match tool {
        "pi-label" => (vec![name, "00000010", "mark"], "label"),
        "pi-edit" => (vec![name, "00000010", "--omit"], "context_edit"),
        _ => (vec![name, "-i", "--at", "00000010"], "custom"),
    };
    let full = calibrate(|| {
        std::fs::write(&f, &old).unwrap();
        run_ok(tool, &args);
    });
    let mut tally = Tally::default();
    for k in 0..kills {
        std::fs::write(&f, &old).unwrap();
        let delay = Duration::from_micros(rng.below(full.as_micros() as u64 * 3 / 2));
        kill_after(tool, &args, delay);
        let now = std::fs::read(&f).unwrap();
        let what = format!("{tool} killed after {delay:?} (kill {k})");
        if old_or_one_more(&old, &now, ty, &what) {
            tally.new += 1;
        } else {
            tally.old += 1;
        }
        // The next run appends on a fresh line, and leaves nothing else.
        let next_args: Vec<&str> = match tool {
            "pi-label" => vec![name, "00000011", "next"],
            "pi-edit" => vec![name, "00000011", "--omit"],
            _ => vec![name, "-i", "--at", "00000011"],
        };
        run_ok(tool, &next_args);
        let after = std::fs::read(&f).unwrap();
        assert!(old_or_one_more(&now, &after, ty, &what), "{what}: next run");
        assert_eq!(
            names_in(t.path(), &["s.jsonl"]),
            Vec::<String>::new(),
            "{what}"
        );
    }
    tally
}

fn kill_fork_new(kills: usize, rng: &mut Rng) -> Tally {
    let t = TempDir::new("crash-fork");
    let src = v3_chain(4000);
    let f = t.write("s.jsonl", &src);
    let out = t.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let name = f.to_str().unwrap();
    let dir = out.to_str().unwrap();
    let args = [name, "--at", "leaf", "--session-dir", dir];
    let known = ids_in(&String::from_utf8(src.clone()).unwrap());
    let normal = |p: &Path| normalize_new_session(&std::fs::read_to_string(p).unwrap(), &known);
    let reference = {
        let o = run_ok("pi-fork", &args);
        let p = PathBuf::from(String::from_utf8(o.stdout).unwrap().trim());
        let r = normal(&p);
        std::fs::remove_file(p).unwrap();
        r
    };
    let full = calibrate(|| {
        run_ok("pi-fork", &args);
    });
    for n in names_in(&out, &[]) {
        std::fs::remove_file(out.join(n)).unwrap();
    }
    let visible = |d: &Path| -> Vec<PathBuf> {
        names_in(d, &[])
            .into_iter()
            .filter(|n| !n.starts_with('.'))
            .map(|n| d.join(n))
            .collect()
    };
    let mut tally = Tally::default();
    for k in 0..kills {
        let delay = Duration::from_micros(rng.below(full.as_micros() as u64 * 3 / 2));
        kill_after("pi-fork", &args, delay);
        let what = format!("pi-fork killed after {delay:?} (kill {k})");
        let made = visible(&out);
        match made.as_slice() {
            [] => tally.old += 1,
            [p] => {
                assert_same(
                    normal(p).as_bytes(),
                    reference.as_bytes(),
                    &format!("{what}: an incomplete new session"),
                );
                tally.new += 1;
            }
            many => panic!("{what}: {} files", many.len()),
        }
        run_ok("pi-fork", &args);
        let hidden: Vec<String> = names_in(&out, &[])
            .into_iter()
            .filter(|n| n.starts_with('.'))
            .collect();
        assert_eq!(
            hidden,
            Vec::<String>::new(),
            "{what}: the next run left temporary files"
        );
        assert_eq!(visible(&out).len(), made.len() + 1, "{what}");
        for p in visible(&out) {
            assert_same(normal(&p).as_bytes(), reference.as_bytes(), &what);
            std::fs::remove_file(p).unwrap();
        }
        assert_eq!(
            std::fs::read(&f).unwrap(),
            src,
            "{what}: the source changed"
        );
    }
    tally
}

fn kill_all(kills: usize, demand_both: bool) {
    let mut rng = Rng::new();
    let start = Instant::now();
    let m = kill_migrate(kills, &mut rng);
    let l = kill_append("pi-label", kills, &mut rng);
    let fi = kill_append("pi-fork", kills, &mut rng);
    let e = kill_append("pi-edit", kills, &mut rng);
    let fnew = kill_fork_new(kills, &mut rng);
    eprintln!(
        "{kills} kills each in {:?}: pi-migrate -i {m:?}, pi-label {l:?}, pi-fork -i {fi:?}, pi-edit {e:?}, pi-fork (new file) {fnew:?}",
        start.elapsed()
    );
    if demand_both {
        // The kills must land both before and after the write, or the
        // test proves nothing.
        for (tool, t) in [
            ("pi-migrate", &m),
            ("pi-label", &l),
            ("pi-fork -i", &fi),
            ("pi-edit", &e),
            ("pi-fork", &fnew),
        ] {
            assert!(
                t.old > 0 && t.new > 0,
                "{tool}: every kill landed on the same side: {t:?}"
            );
        }
    }
}

#[test]
fn sigkill_leaves_whole_files() {
    kill_all(30, false);
}

/// The full 200 kills per tool; `.ci/run` runs it in a release build.
#[test]
#[ignore]
fn sigkill_leaves_whole_files_200() {
    kill_all(200, true);
}

// ---------------------------------------------------------------------------
// Limits, full disks, denied writes, files that go away

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
        let o = run_limited(
            "pi-fork",
            &[
                big.to_str().unwrap(),
                "--at",
                "leaf",
                "--session-dir",
                out.to_str().unwrap(),
            ],
            100,
            ignore,
        );
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
        run_ok(
            "pi-fork",
            &[
                big.to_str().unwrap(),
                "--at",
                "leaf",
                "--session-dir",
                out.to_str().unwrap(),
            ],
        );
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

/// A small tmpfs mounted for the test, unmounted on drop.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(at: &Path, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(at).ok()?;
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Tmpfs(at.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

#[test]
fn full_file_system() {
    let t = TempDir::new("crash-full");
    let Some(fs) = Tmpfs::mount(&t.path().join("mnt"), "2m") else {
        eprintln!(
            "SKIPPED full_file_system: cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN)"
        );
        return;
    };
    let d = fs.0.clone();
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
    let run = |tool: &str, args: &[&str]| command(tool, args).output().unwrap();
    let (gname, name) = (g.to_str().unwrap(), f.to_str().unwrap());
    let o = run("pi-migrate", &["-i", gname]);
    assert_failed_cleanly(&o, "pi-migrate", &g, &v1, "pi-migrate -i on a full disk");
    let o = run("pi-label", &[name, "leaf", "mark"]);
    assert_failed_cleanly(&o, "pi-label", &f, &v3, "pi-label on a full disk");
    let o = run("pi-fork", &[name, "-i", "--at", "root"]);
    assert_failed_cleanly(&o, "pi-fork", &f, &v3, "pi-fork -i on a full disk");
    let o = run(
        "pi-fork",
        &[name, "--at", "leaf", "--session-dir", d.to_str().unwrap()],
    );
    assert_failed_cleanly(&o, "pi-fork", &f, &v3, "pi-fork on a full disk");
    assert_eq!(
        names_in(&d, &[]),
        ["filler", "old.jsonl", "s.jsonl"],
        "files left on the full disk"
    );
    // Room again: everything works, and nothing was left behind.
    std::fs::remove_file(d.join("filler")).unwrap();
    run_ok("pi-migrate", &["-i", "-q", gname]);
    run_ok("pi-label", &[name, "leaf", "mark"]);
    assert_eq!(names_in(&d, &[]), ["old.jsonl", "s.jsonl"]);
}

/// `chattr +i` (immutable: denied even to root), undone on drop.
struct Immutable(PathBuf);

impl Immutable {
    fn set(p: &Path) -> Option<Immutable> {
        let ok = Command::new("chattr")
            .arg("+i")
            .arg(p)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Immutable(p.to_path_buf()))
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = Command::new("chattr").arg("-i").arg(&self.0).status();
    }
}

/// Every writing tool on `dir/s.jsonl` (v3) and `dir/old.jsonl` (v1), where
/// writes are denied: to new names in the directory (`dir_denied`), to the
/// files themselves (`files_denied`).
fn check_denied(dir: &Path, dir_denied: bool, files_denied: bool, what: &str) {
    let (f, g) = (dir.join("s.jsonl"), dir.join("old.jsonl"));
    let (v3, v1) = (std::fs::read(&f).unwrap(), std::fs::read(&g).unwrap());
    let (name, gname) = (f.to_str().unwrap(), g.to_str().unwrap());
    let run = |tool: &str, args: &[&str]| command(tool, args).output().unwrap();
    let o = run("pi-migrate", &["-i", gname]);
    assert_failed_cleanly(&o, "pi-migrate", &g, &v1, &format!("pi-migrate -i, {what}"));
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
        names_in(dir, &[]),
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
    let files = Immutable::set(&d.join("s.jsonl")).zip(Immutable::set(&d.join("old.jsonl")));
    match files {
        None => eprintln!("SKIPPED chattr denial: chattr +i is not available here"),
        Some(guards) => {
            check_denied(&d, false, true, "immutable files (chattr +i)");
            drop(guards);
            let guard = Immutable::set(&d).expect("chattr +i on a directory");
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
