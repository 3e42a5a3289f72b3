//! `pi-migrate -i` stopped by a signal (sent while the tool waits right
//! before a rename: see `races`), rerun after its own leftovers, and the
//! files a rename would harm: hard links, extended attributes and ACLs.

use super::races::*;
use crate::common::*;
use std::path::Path;
use std::process::Command;

fn signal(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill {sig} {pid}");
}

#[test]
fn a_signal_rolls_back_the_file_in_hand_and_the_summary_says_so() {
    for (sig, code) in [("-INT", 130), ("-TERM", 143), ("-HUP", 129)] {
        let (t, f, pause, old) = setup("sig-one", 10);
        let c = start(&pause, &["-i", "-q", "--backup", f.to_str().unwrap()]);
        wait_paused(&pause, 1);
        signal(c.id(), sig);
        // Delivered (the tool says so), then let go.
        let start = std::time::Instant::now();
        while !pause.join("signalled-1").exists() {
            assert!(start.elapsed().as_secs() < 60, "{sig} never arrived");
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        go(&pause, 1);
        let o = finish(c);
        assert_eq!(o.status.code(), Some(code), "{sig}: {}", stderr(&o));
        // Said even with -q.
        assert_stderr_has(
            &o,
            "0 migrated, 0 already current, 0 failed; stopped by SIG",
        );
        assert_stderr_has(&o, ": 1 left as they were");
        assert_same(&std::fs::read(&f).unwrap(), old.as_bytes(), sig);
        // Its backup removed, no temporary file left.
        assert_eq!(
            names_in(t.path(), &["s.jsonl", "pause"]),
            Vec::<String>::new()
        );
    }
}

#[test]
fn a_second_signal_exits_at_once_and_a_rerun_takes_its_leftovers() {
    let (t, f, pause, old) = setup("sig-two", 10);
    let name = f.to_str().unwrap();
    let c = start(&pause, &["-i", "--backup", name]);
    wait_paused(&pause, 1);
    // No go: a second signal ends the tool while it waits. Two signals
    // sent at once may arrive as one (signals do not queue): sent until
    // the tool is gone.
    let mut c = c;
    let start = std::time::Instant::now();
    while c.try_wait().unwrap().is_none() {
        assert!(
            start.elapsed().as_secs() < 30,
            "SIGINT did not end pi-migrate"
        );
        signal(c.id(), "-INT");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let o = finish(c);
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert_same(&std::fs::read(&f).unwrap(), old.as_bytes(), "the file");
    let bak = t.path().join("s.jsonl.bak");
    assert!(bak.exists(), "the killed run had kept its backup");
    // The rerun takes that backup (a hard link of the file itself) as its
    // own, and removes the temporary file.
    let o = run("pi-migrate", &["-i", "--backup", name], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_same(&std::fs::read(&f).unwrap(), &migrated(&old), "the file");
    assert_same(&std::fs::read(&bak).unwrap(), old.as_bytes(), "the backup");
    assert_eq!(
        names_in(t.path(), &["s.jsonl", "s.jsonl.bak", "pause"]),
        Vec::<String>::new()
    );
}

#[test]
fn a_copied_backup_is_taken_when_it_is_the_same_file_and_refused_otherwise() {
    let t = TempDir::new("sig-copy");
    let old = old_session(5);
    let f = t.write("s.jsonl", old.as_bytes());
    let bak = t.path().join("s.jsonl.bak");
    // A copy (where hard links are not possible) with the file's time.
    std::fs::write(&bak, &old).unwrap();
    let when = std::fs::metadata(&f).unwrap().modified().unwrap();
    let set_time = |p: &Path, t| {
        std::fs::File::options()
            .write(true)
            .open(p)
            .unwrap()
            .set_modified(t)
            .unwrap()
    };
    set_time(&bak, when);
    let name = f.to_str().unwrap();
    let o = run("pi-migrate", &["-i", "--backup", name], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_same(&std::fs::read(&bak).unwrap(), old.as_bytes(), "the backup");
    // Another time: not this run's; refused, the file left as it is.
    std::fs::write(&f, &old).unwrap();
    set_time(&bak, when - std::time::Duration::from_secs(60));
    let o = run("pi-migrate", &["-i", "--backup", name], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_stderr_has(&o, "already exists");
    assert_same(&std::fs::read(&f).unwrap(), old.as_bytes(), "the file");
}

#[test]
fn a_hard_linked_file_is_refused() {
    let t = TempDir::new("mig-nlink");
    let old = old_session(5);
    let f = t.write("s.jsonl", old.as_bytes());
    std::fs::hard_link(&f, t.path().join("other.jsonl")).unwrap();
    let o = run("pi-migrate", &["-i", f.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_stderr_has(&o, "s.jsonl: has 1 other name(s) (hard links)");
    assert_same(&std::fs::read(&f).unwrap(), old.as_bytes(), "the file");
    assert_eq!(
        names_in(t.path(), &["s.jsonl", "other.jsonl"]),
        Vec::<String>::new()
    );
}

/// The other name an interrupted `--backup` run leaves (its backup, a
/// link of the file) is named when a run without `--backup` meets it.
#[test]
fn a_hard_link_that_is_the_backup_is_named() {
    let t = TempDir::new("mig-nlink-bak");
    let old = old_session(5);
    let f = t.write("s.jsonl", old.as_bytes());
    std::fs::hard_link(&f, t.path().join("s.jsonl.bak")).unwrap();
    let o = run("pi-migrate", &["-i", f.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_stderr_has(
        &o,
        "s.jsonl.bak, the backup an interrupted `pi-migrate -i --backup` kept",
    );
    assert_same(&std::fs::read(&f).unwrap(), old.as_bytes(), "the file");
    // As the message says: the run with --backup takes it as its own.
    let o = run("pi-migrate", &["-i", "--backup", f.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_same(
        &std::fs::read(t.path().join("s.jsonl.bak")).unwrap(),
        old.as_bytes(),
        "the backup",
    );
}

/// An access ACL (`system.posix_acl_access`): the owner, user 4242 with
/// read, the group, the mask and others, as `setfacl -m u:4242:r` makes.
fn acl() -> Vec<u8> {
    let mut v = 2u32.to_le_bytes().to_vec();
    for (tag, perm, id) in [
        (0x01u16, 6u16, u32::MAX),
        (0x02, 4, 4242),
        (0x04, 4, u32::MAX),
        (0x10, 4, u32::MAX),
        (0x20, 0, u32::MAX),
    ] {
        v.extend(tag.to_le_bytes());
        v.extend(perm.to_le_bytes());
        v.extend(id.to_le_bytes());
    }
    v
}

fn xattr(p: &Path, name: &str) -> Option<Vec<u8>> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(p.as_os_str().as_bytes()).unwrap();
    let n = std::ffi::CString::new(name).unwrap();
    let mut buf = vec![0u8; 4096];
    // SAFETY: NUL-terminated names; at most buf.len() bytes written.
    let r = unsafe { libc::getxattr(c.as_ptr(), n.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
    (r >= 0).then(|| buf[..r as usize].to_vec())
}

fn set_xattr(p: &Path, name: &str, value: &[u8]) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(p.as_os_str().as_bytes()).unwrap();
    let n = std::ffi::CString::new(name).unwrap();
    // SAFETY: NUL-terminated names; value.len() bytes read.
    unsafe {
        libc::setxattr(
            c.as_ptr(),
            n.as_ptr(),
            value.as_ptr().cast(),
            value.len(),
            0,
        ) == 0
    }
}

#[test]
fn extended_attributes_and_the_acl_are_kept() {
    let t = TempDir::new("mig-xattr");
    let old = old_session(5);
    let f = t.write("s.jsonl", old.as_bytes());
    let user = set_xattr(&f, "user.pi-test", b"kept\x00value");
    let acl_set = set_xattr(&f, "system.posix_acl_access", &acl());
    if !user && !acl_set {
        eprintln!("SKIPPED extended attributes: this file system has none");
        return;
    }
    let before = std::fs::metadata(&f).unwrap();
    let o = run("pi-migrate", &["-i", f.to_str().unwrap()], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_same(&std::fs::read(&f).unwrap(), &migrated(&old), "the file");
    if user {
        assert_eq!(
            xattr(&f, "user.pi-test").as_deref(),
            Some(&b"kept\x00value"[..])
        );
    }
    if acl_set {
        assert_eq!(xattr(&f, "system.posix_acl_access"), Some(acl()));
    }
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&f).unwrap().permissions().mode(),
        before.permissions().mode()
    );
}
