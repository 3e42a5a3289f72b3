//! Crashes and hostile surroundings for the tools that write.
//!
//! - `pi-migrate -i` (and with `--backup`: the next run takes the backup a
//!   killed one kept), `pi-label`, `pi-fork` (a new file) and `pi-fork -i`
//!   killed with SIGKILL at random moments: afterwards the file is the
//!   complete old or the complete new version (an append: the old bytes plus
//!   at most one whole line), and the next run leaves no temporary file.
//!   pi-ls and pi-usage, killed while they write the cache of a store: the
//!   next run prints what a run without the cache prints. `KILLED` is the
//!   list; a binary not in it is in `WRITE_NOTHING` with the reason.
//!   30 kills per tool by default; `.ci/run` runs the 200-kill version with
//!   `cargo test --release --test tests crash:: -- --ignored`.
//! - A file size limit (`ulimit -f`), a full file system (a small tmpfs, when
//!   this user may mount one), an immutable file and directory (`chattr +i`;
//!   `chmod` does not stop root), and a file deleted or replaced while a tool
//!   works on it: a clear error, and nothing lost (`surroundings`).
//!
//! The random delays come from a seed printed on failure; set CRASH_SEED to
//! replay one.

mod mvrm;
mod surroundings;

use crate::common::*;
use std::path::{Path, PathBuf};
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

/// `pi-migrate -i` (with `--backup` when `backup`) killed at random
/// moments; the next run, with the same arguments, finishes the job (with
/// a backup: takes as its own the one a killed run kept).
fn kill_migrate(kills: usize, rng: &mut Rng, backup: bool) -> Tally {
    let t = TempDir::new("crash-migrate");
    let old = v1_chain(4000);
    let f = t.write("s.jsonl", &old);
    let name = f.to_str().unwrap();
    let bak = t.path().join("s.jsonl.bak");
    let args: &[&str] = if backup {
        &["-i", "-q", "--backup", name]
    } else {
        &["-i", "-q", name]
    };
    // The migrated text (deterministic ids): what -i must write.
    let new = run_ok("pi-migrate", &[name]).stdout;
    assert_ne!(new, old);
    let full = calibrate(|| {
        std::fs::write(&f, &old).unwrap();
        let _ = std::fs::remove_file(&bak);
        run_ok("pi-migrate", args);
        assert_same(&std::fs::read(&f).unwrap(), &new, "calibration");
    });
    let mut tally = Tally::default();
    for k in 0..kills {
        let _ = std::fs::remove_file(&bak);
        std::fs::write(&f, &old).unwrap();
        let delay = Duration::from_micros(rng.below(full.as_micros() as u64 * 3 / 2));
        kill_after("pi-migrate", args, delay);
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
        run_ok("pi-migrate", args);
        assert_same(&std::fs::read(&f).unwrap(), &new, &what);
        let mut kept = vec!["s.jsonl"];
        if backup {
            assert_same(
                &std::fs::read(&bak).unwrap(),
                &old,
                &format!("{what}: backup"),
            );
            kept.push("s.jsonl.bak");
        }
        assert_eq!(names_in(t.path(), &kept), Vec::<String>::new(), "{what}");
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

/// `pi-check --fix` killed at random moments while it rewrites a file
/// without its torn last line: the file is the old or the new one, the
/// torn line is kept in `s.jsonl.removed` (once or, killed after keeping it,
/// more often, never lost), and the next run finishes the job and removes
/// the temporary file a killed run left.
fn kill_check(kills: usize, rng: &mut Rng) -> Tally {
    let t = TempDir::new("crash-check");
    let new = v3_chain(4000);
    let torn = br#"{"type":"message","id":"torn0001","parentId":"#;
    let old = [&new[..], &torn[..]].concat();
    let f = t.write("s.jsonl", &old);
    let name = f.to_str().unwrap();
    let removed = t.path().join("s.jsonl.removed");
    let args = ["--fix", "-q", name];
    let full = calibrate(|| {
        std::fs::write(&f, &old).unwrap();
        run_ok("pi-check", &args);
    });
    let mut tally = Tally::default();
    for k in 0..kills {
        std::fs::write(&f, &old).unwrap();
        let _ = std::fs::remove_file(&removed);
        let delay = Duration::from_micros(rng.below(full.as_micros() as u64 * 3 / 2));
        kill_after("pi-check", &args, delay);
        let now = std::fs::read(&f).unwrap();
        let what = format!("pi-check --fix killed after {delay:?} (kill {k})");
        if now == new {
            tally.new += 1;
            let kept = std::fs::read(&removed).unwrap_or_default();
            assert!(kept.starts_with(torn), "{what}: the torn line is lost");
        } else {
            assert_eq!(now, old, "{what}: neither the old nor the new file");
            tally.old += 1;
        }
        run_ok("pi-check", &args);
        assert_eq!(std::fs::read(&f).unwrap(), new, "{what}: next run");
        assert_eq!(
            names_in(t.path(), &["s.jsonl", "s.jsonl.removed"]),
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

/// A store of `projects` x `per` sessions, each a chain of a few messages
/// and a priced reply, for the tools that write a cache of a store.
fn store(agent: &Path, projects: usize, per: usize) {
    for p in 0..projects {
        let d = agent.join("sessions").join(format!("--tmp-crash-{p}--"));
        std::fs::create_dir_all(&d).unwrap();
        for k in 0..per {
            let id = format!("0190aaaa-0000-7000-8000-{:06x}{k:06x}", p);
            let mut ls = vec![header(
                &id,
                "2026-07-20T09:00:00.000Z",
                &format!("/tmp/p{p}"),
                None,
            )];
            ls.extend(chain(6, |i| {
                user_message(&format!("message {i} of session {k}"))
            }));
            ls.push(message(
                "0000ffff",
                Some(&hex_id(5)),
                r#"{"role":"assistant","content":[{"type":"text","text":"ok"}],"api":"x","provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.25}},"stopReason":"stop","timestamp":2}"#,
            ));
            let name = format!("2026-07-20T09-00-00-000Z_{id}.jsonl");
            std::fs::write(d.join(name), lines(&ls)).unwrap();
        }
    }
}

/// pi-ls and pi-usage killed while they read a store and write its cache:
/// the cache is the complete old one (here: none) or the complete new one,
/// and the next run prints what a run without the cache prints.
fn kill_cache(tool: &str, kills: usize, rng: &mut Rng) -> Tally {
    let t = TempDir::new("crash-cache");
    let agent = t.path().join("agent");
    let cache = t.path().join("cache");
    store(&agent, 4, 150);
    let args: &[&str] = match tool {
        "pi-ls" => &["--all", "--json"],
        _ => &["session", "--json"],
    };
    let env = |c: &mut std::process::Command| {
        c.env("PI_CODING_AGENT_DIR", &agent)
            .env("PI_SESSION_TOOLS_CACHE_DIR", &cache)
            .env("TZ", "UTC");
    };
    let run_env = |extra: &[&str]| {
        let all: Vec<&str> = args.iter().chain(extra).copied().collect();
        let o = run_with(tool, &all, None, env);
        assert!(o.status.success(), "{tool} {all:?}: {}", stderr(&o));
        o.stdout
    };
    let reference = run_env(&["--no-cache"]);
    assert!(!reference.is_empty());
    let full = calibrate(|| {
        let _ = std::fs::remove_dir_all(&cache);
        assert_same(&run_env(&[]), &reference, "calibration");
    });
    let cached = |c: &Path| -> Vec<String> {
        std::fs::read_dir(c)
            .map(|rd| {
                rd.flatten()
                    .map(|d| d.file_name().to_string_lossy().into_owned())
                    .filter(|n| !n.starts_with('.'))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut tally = Tally::default();
    for k in 0..kills {
        let _ = std::fs::remove_dir_all(&cache);
        let delay = Duration::from_micros(rng.below(full.as_micros() as u64 * 3 / 2));
        kill_after_with(tool, args, delay, env);
        let what = format!("{tool} killed after {delay:?} (kill {k})");
        match cached(&cache).len() {
            0 => tally.old += 1,
            1 => tally.new += 1,
            n => panic!("{what}: {n} cache files"),
        }
        // The next run reads what is there and prints what it must.
        assert_same(&run_env(&[]), &reference, &what);
        assert_eq!(cached(&cache).len(), 1, "{what}");
    }
    tally
}

/// The crash matrix: each writing run killed at random moments (its name,
/// and the binary it runs).
const KILLED: &[(&str, &str)] = &[
    ("pi-migrate -i", "pi-migrate"),
    ("pi-migrate -i --backup", "pi-migrate"),
    ("pi-label", "pi-label"),
    ("pi-fork -i", "pi-fork"),
    ("pi-edit", "pi-edit"),
    ("pi-fork (new file)", "pi-fork"),
    ("pi-ls (its cache)", "pi-ls"),
    ("pi-usage (its cache)", "pi-usage"),
    ("pi-mv --project", "pi-mv"),
    ("pi-rm", "pi-rm"),
    ("pi-check --fix", "pi-check"),
];

/// The binaries that write no file, so that no kill can leave one half
/// written.
const WRITE_NOTHING: &[(&str, &str)] = &[
    ("pi-path", "prints only: writes no file"),
    ("pi-tree", "prints only: writes no file"),
    ("pi-convert", "prints only: writes no file"),
    (
        "pi-grep",
        "prints only: writes no file (and keeps no cache)",
    ),
    (
        "pi-import",
        "writes each file staged beside it and renamed (write::create_new, TempFile): \
         a kill leaves the old file or the new one (tests/import.rs: a_kill_leaves_whole_files)",
    ),
];

fn kill_one(row: &str, kills: usize, rng: &mut Rng) -> Tally {
    match row {
        "pi-migrate -i" => kill_migrate(kills, rng, false),
        "pi-migrate -i --backup" => kill_migrate(kills, rng, true),
        "pi-label" => kill_append("pi-label", kills, rng),
        "pi-fork -i" => kill_append("pi-fork", kills, rng),
        "pi-edit" => kill_append("pi-edit", kills, rng),
        "pi-fork (new file)" => kill_fork_new(kills, rng),
        "pi-ls (its cache)" => kill_cache("pi-ls", kills, rng),
        "pi-usage (its cache)" => kill_cache("pi-usage", kills, rng),
        "pi-mv --project" => mvrm::kill_mv(kills, rng),
        "pi-rm" => mvrm::kill_rm(kills, rng),
        "pi-check --fix" => kill_check(kills, rng),
        other => panic!("no crash row {other}"),
    }
}

fn kill_all(kills: usize, demand_both: bool) {
    let mut rng = Rng::new();
    let start = Instant::now();
    let tallies: Vec<(&str, Tally)> = KILLED
        .iter()
        .map(|(row, _)| (*row, kill_one(row, kills, &mut rng)))
        .collect();
    eprintln!("{kills} kills each in {:?}: {tallies:?}", start.elapsed());
    if demand_both {
        // The kills must land both before and after the write, or the
        // test proves nothing.
        for (row, t) in &tallies {
            assert!(
                t.old > 0 && t.new > 0,
                "{row}: every kill landed on the same side: {t:?}"
            );
        }
    }
}

/// Every binary is killed in [`KILLED`], or named in [`WRITE_NOTHING`]
/// with the reason.
#[test]
fn every_binary_is_in_the_crash_matrix() {
    let listed: Vec<&str> = KILLED.iter().map(|(_, b)| *b).collect();
    every_binary_in("crash", &listed, WRITE_NOTHING);
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
