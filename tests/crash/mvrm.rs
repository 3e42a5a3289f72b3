//! pi-mv and pi-rm killed at random moments: every session whole, in one
//! place or the other (pi-mv: both names at once only as one session),
//! and a rerun finishes.

use super::{calibrate, Rng, Tally};
use crate::common::*;
use std::path::{Path, PathBuf};
use std::time::Duration;

const N: usize = 12;

/// A store of `N` sessions of /src/app and one fork (in /src/other) of
/// the first; the old texts by file name.
fn make_store(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let _ = std::fs::remove_dir_all(dir.join("agent"));
    let s = dir.join("agent/sessions");
    let old = s.join("--src-app--");
    std::fs::create_dir_all(&old).unwrap();
    std::fs::create_dir_all(s.join("--src-other--")).unwrap();
    let mut texts = Vec::new();
    for k in 0..=N {
        let id = format!("0190aaaa-0000-7000-8000-{k:012}");
        let name = format!("2026-07-20_{id}.jsonl");
        let (sub, cwd, parent) = if k == N {
            let p = old.join("2026-07-20_0190aaaa-0000-7000-8000-000000000000.jsonl");
            ("--src-other--", "/src/other", Some(p.display().to_string()))
        } else {
            ("--src-app--", "/src/app", None)
        };
        let mut text = header(&id, "2026-07-20T09:00:00.000Z", cwd, parent.as_deref());
        text.push('\n');
        let body = chain(400, |i| {
            user_message(&format!("message {i} of session {k}, some words"))
        });
        text.push_str(&lines(&body));
        std::fs::write(s.join(sub).join(&name), &text).unwrap();
        texts.push((name, text.into_bytes()));
    }
    texts
}

fn mv_args() -> Vec<&'static str> {
    vec!["-q", "--project", "/src/app", "/code/app"]
}

/// Check every session after a kill: whole, old or new, under one name or
/// (half moved) under both with the same bytes; the fork naming its
/// parent's old or new place. Returns how many were moved.
fn check_mv(dir: &Path, texts: &[(String, Vec<u8>)], what: &str) -> usize {
    let s = dir.join("agent/sessions");
    let (old_dir, new_dir) = (s.join("--src-app--"), s.join("--code-app--"));
    let mut moved = 0;
    for (name, old) in &texts[..N] {
        let new = String::from_utf8(old.clone())
            .unwrap()
            .replacen("\"cwd\":\"/src/app\"", "\"cwd\":\"/code/app\"", 1)
            .into_bytes();
        let here = std::fs::read(old_dir.join(name)).ok();
        let there = std::fs::read(new_dir.join(name)).ok();
        match (&here, &there) {
            (Some(h), None) => assert!(
                *h == *old || *h == new,
                "{what}: {name} neither old nor new"
            ),
            (None, Some(t)) => {
                assert!(*t == new, "{what}: {name} moved but not new");
                moved += 1;
            }
            (Some(h), Some(t)) => assert!(
                *h == new && *t == new,
                "{what}: {name} under both names, not one session"
            ),
            (None, None) => panic!("{what}: {name} lost"),
        }
    }
    let fork = std::fs::read_to_string(s.join("--src-other--").join(&texts[N].0)).unwrap();
    let parent = &texts[0].0;
    assert!(
        fork.contains(&format!("{}\"}}", old_dir.join(parent).display()))
            || fork.contains(&format!("{}\"}}", new_dir.join(parent).display())),
        "{what}: the fork names neither place"
    );
    for d in [&old_dir, &new_dir] {
        if d.exists() {
            let stray: Vec<String> = names_in(d, &[])
                .into_iter()
                .filter(|n| n.contains("-tmp-"))
                .collect();
            let _ = stray; // a killed run's temporary files are removed by the next
        }
    }
    moved
}

fn with_store(dir: &Path) -> impl Fn(&mut std::process::Command) + '_ {
    move |c: &mut std::process::Command| {
        c.env("PI_CODING_AGENT_DIR", dir.join("agent"))
            .env("XDG_DATA_HOME", dir.join("xdg"));
    }
}

pub(super) fn kill_mv(kills: usize, rng: &mut Rng) -> Tally {
    let t = TempDir::new("crash-mv");
    let dir = t.path().to_path_buf();
    let args = mv_args();
    let full = calibrate(|| {
        make_store(&dir);
        let o = run_with("pi-mv", &args, None, with_store(&dir));
        assert!(o.status.success(), "{}", stderr(&o));
    });
    let mut tally = Tally::default();
    for k in 0..kills {
        let texts = make_store(&dir);
        let delay = Duration::from_micros(rng.below(full.as_micros() as u64 * 3 / 2));
        kill_after_with("pi-mv", &args, delay, with_store(&dir));
        let what = format!("pi-mv killed after {delay:?} (kill {k})");
        match check_mv(&dir, &texts, &what) {
            0 => tally.old += 1,
            n if n == N => tally.new += 1,
            _ => {}
        }
        let o = run_with("pi-mv", &args, None, with_store(&dir));
        assert!(o.status.success(), "{what}: the rerun: {}", stderr(&o));
        assert_eq!(
            check_mv(&dir, &texts, &what),
            N,
            "{what}: the rerun finished"
        );
        let fork =
            std::fs::read_to_string(dir.join("agent/sessions/--src-other--").join(&texts[N].0))
                .unwrap();
        assert!(
            fork.contains("--code-app--"),
            "{what}: the rerun updated the fork"
        );
        for d in ["--src-app--", "--code-app--"] {
            let p: PathBuf = dir.join("agent/sessions").join(d);
            let left: Vec<String> = if p.exists() {
                names_in(&p, &[])
            } else {
                Vec::new()
            };
            assert!(
                left.iter().all(|n| !n.contains("-tmp-")),
                "{what}: {left:?}"
            );
        }
    }
    tally
}

pub(super) fn kill_rm(kills: usize, rng: &mut Rng) -> Tally {
    let t = TempDir::new("crash-rm");
    let dir = t.path().to_path_buf();
    let session_dir = dir.join("agent/sessions/--src-app--");
    let trash = dir.join("xdg/Trash/files");
    let names = |texts: &[(String, Vec<u8>)]| -> Vec<String> {
        texts[1..N]
            .iter()
            .map(|(n, _)| session_dir.join(n).display().to_string())
            .collect()
    };
    let full = calibrate(|| {
        let texts = make_store(&dir);
        let _ = std::fs::remove_dir_all(dir.join("xdg"));
        let list = names(&texts);
        let args: Vec<&str> = list.iter().map(String::as_str).collect();
        let o = run_with("pi-rm", &args, None, with_store(&dir));
        assert!(o.status.success(), "{}", stderr(&o));
    });
    let mut tally = Tally::default();
    for k in 0..kills {
        let texts = make_store(&dir);
        let _ = std::fs::remove_dir_all(dir.join("xdg"));
        let list = names(&texts);
        let args: Vec<&str> = list.iter().map(String::as_str).collect();
        let delay = Duration::from_micros(rng.below(full.as_micros() as u64 * 3 / 2));
        kill_after_with("pi-rm", &args, delay, with_store(&dir));
        let what = format!("pi-rm killed after {delay:?} (kill {k})");
        let mut trashed = 0;
        for (name, old) in &texts[1..N] {
            let here = std::fs::read(session_dir.join(name)).ok();
            let there = std::fs::read(trash.join(name)).ok();
            match (here, there) {
                (Some(h), None) => assert!(h == *old, "{what}: {name} changed"),
                (None, Some(t)) => {
                    assert!(t == *old, "{what}: {name} changed in the trash");
                    trashed += 1;
                }
                (h, t) => panic!(
                    "{what}: {name} in {} places",
                    h.is_some() as u8 + t.is_some() as u8
                ),
            }
        }
        match trashed {
            0 => tally.old += 1,
            n if n == N - 1 => tally.new += 1,
            _ => {}
        }
        // The rerun deletes what is left (the named files that are still there).
        let left: Vec<&str> = args
            .iter()
            .copied()
            .filter(|a| Path::new(a).exists())
            .collect();
        if !left.is_empty() {
            let o = run_with("pi-rm", &left, None, with_store(&dir));
            assert!(o.status.success(), "{what}: the rerun: {}", stderr(&o));
        }
        assert!(
            texts[1..N].iter().all(|(n, _)| trash.join(n).exists()),
            "{what}: the rerun finished"
        );
    }
    tally
}
