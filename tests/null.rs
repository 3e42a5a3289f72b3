//! One behaviour across the tools that print paths (issue 35): each has
//! `-0` (every path ended by a NUL byte, for `xargs -0`), and its paths
//! come out whole in a project whose directory name has spaces and a
//! newline, as pi's directory names may.
use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// A store whose one project directory has a space and a newline in its
/// name, holding examples/s.jsonl (version 3, several leaves) and
/// examples/old.jsonl (version 1) under names with spaces.
struct Spaced {
    _dir: TempDir,
    project: PathBuf,
    s: PathBuf,
    old: PathBuf,
}

fn spaced(tag: &str) -> Spaced {
    let dir = TempDir::new(tag);
    let project = dir.path().join("--home-dev-my project\nx--");
    std::fs::create_dir_all(&project).unwrap();
    let s = project.join("a session.jsonl");
    let old = project.join("an old session.jsonl");
    std::fs::copy(repo().join("examples/s.jsonl"), &s).unwrap();
    std::fs::copy(repo().join("examples/old.jsonl"), &old).unwrap();
    Spaced {
        _dir: dir,
        project,
        s,
        old,
    }
}

/// The NUL-ended paths of `out`: every byte up to the last NUL, nothing
/// after it.
fn nul_paths(out: &[u8]) -> Vec<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    assert_eq!(out.last(), Some(&0), "{}", String::from_utf8_lossy(out));
    out[..out.len() - 1]
        .split(|&b| b == 0)
        .map(|p| PathBuf::from(std::ffi::OsStr::from_bytes(p)))
        .collect()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// pi-fork -0: --all-leaves makes one file per leaf, each path whole; --at
/// one path; with --in-place the new entry's id; and -0 with --json is a
/// usage error.
#[test]
fn pi_fork_null() {
    let st = spaced("null-fork");
    let leaves = run_ok("pi-path", &["--leaves", s(&st.s)]);
    let n = stdout(&leaves).lines().count();
    assert!(n > 1, "{}", stdout(&leaves));
    let o = run_ok("pi-fork", &[s(&st.s), "--all-leaves", "-0"]);
    let made = nul_paths(&o.stdout);
    assert_eq!(made.len(), n);
    for p in &made {
        assert!(p.is_file(), "{}", p.display());
        assert_eq!(p.parent(), Some(st.project.as_path()));
        run_ok("pi-path", &["--leaves", s(p)]);
    }
    let o = run_ok("pi-fork", &[s(&st.s), "--at", "leaf", "--null"]);
    let one = nul_paths(&o.stdout);
    assert_eq!(one.len(), 1);
    assert!(one[0].is_file());
    let o = run_ok("pi-fork", &[s(&st.s), "-i", "--at", "leaf~1", "-0"]);
    let id = nul_paths(&o.stdout);
    assert_eq!(id.len(), 1);
    assert!(!stdout(&o).contains('\n'));
    let o = run("pi-fork", &[s(&st.s), "--all-leaves", "-0", "--json"], None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// pi-migrate --check -0: the files that need migrating, each NUL-ended
/// (exit 1: there are some); -0 without --check is a usage error.
#[test]
fn pi_migrate_check_null() {
    let st = spaced("null-migrate");
    let o = run("pi-migrate", &["--check", "-0", s(&st.project)], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(nul_paths(&o.stdout), std::slice::from_ref(&st.old));
    // one file: the same
    let o = run("pi-migrate", &["--check", "-0", s(&st.old)], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(nul_paths(&o.stdout), std::slice::from_ref(&st.old));
    let o = run("pi-migrate", &["--check", "-0", s(&st.s)], None);
    assert_eq!((o.status.code(), o.stdout.len()), (Some(0), 0));
    let o = run("pi-migrate", &["-0", "-n", s(&st.old)], None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// pi-ls -0 and pi-grep -l -0 print the same whole paths.
#[test]
fn pi_ls_and_pi_grep_null() {
    let st = spaced("null-ls");
    let dir = s(&st.project);
    let env = |c: &mut std::process::Command| {
        c.env("PI_CODING_AGENT_DIR", "/nonexistent")
            .stdin(Stdio::null());
    };
    let o = run_with("pi-ls", &["-0", "--all", "--session-dir", dir], None, env);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut listed = nul_paths(&o.stdout);
    listed.sort();
    assert_eq!(listed, [st.s.clone(), st.old.clone()]);
    let o = run_with(
        "pi-grep",
        &["-l", "-0", "--all", "--session-dir", dir, "."],
        None,
        env,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let mut found = nul_paths(&o.stdout);
    found.sort();
    assert_eq!(found, [st.s.clone(), st.old.clone()]);
}

/// pi-usage reads SESSIONs as the other store tools do: files and
/// directories with spaces in their names, `--since 7d`; `-z` is no
/// short option any more (grep's users read it as NUL).
#[test]
fn pi_usage_takes_sessions_like_the_others() {
    let st = spaced("null-usage");
    let env = |c: &mut std::process::Command| {
        c.env("PI_CODING_AGENT_DIR", "/nonexistent")
            .stdin(Stdio::null());
    };
    let cost = |args: &[&str]| {
        let o = run_with("pi-usage", args, None, env);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["totals"]["totalCost"].as_f64().unwrap()
    };
    let one = cost(&["session", s(&st.s), "--json"]);
    let both = cost(&["session", s(&st.s), s(&st.old), "--json"]);
    let dir = cost(&["session", s(&st.project), "--json"]);
    assert!(one > 0.0 && both >= one, "{one} {both}");
    assert_eq!(dir, both);
    // the examples are dated 2026: 100 years ago is before them all
    assert_eq!(cost(&["--since", "36500d", s(&st.project), "--json"]), both);
    let o = run_with("pi-usage", &["-z", "UTC", s(&st.s)], None, env);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}
