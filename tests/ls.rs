//! pi-ls: pi 1.6.0's own list/listAll answers over tests/conformance/store,
//! the store-level hostile inputs (a non-session .jsonl, an empty file, a
//! directory named x.jsonl, a symlink loop, an unreadable file), the
//! filters and formats, and the other tools taking what pi-ls prints.
use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

/// A copy of tests/conformance/store for project `<tmp>/proj`, as
/// kinds/pi-ls.mjs installs it: (temp dir, agent dir, project dir, encoded project).
fn install() -> (TempDir, PathBuf, PathBuf, String) {
    let t = TempDir::new("ls");
    let root = std::fs::canonicalize(t.path()).unwrap();
    let agent = root.join("agent");
    let proj = root.join("proj");
    std::fs::create_dir_all(&proj).unwrap();
    let store = repo().join("tests/conformance/store");
    let mt: serde_json::Value =
        serde_json::from_slice(&std::fs::read(store.join("mtimes.json")).unwrap()).unwrap();
    let p = proj.to_string_lossy();
    let enc = format!(
        "--{}--",
        p.strip_prefix('/')
            .unwrap_or(&p)
            .replace(['/', '\\', ':'], "-")
    );
    for (rel, ms) in mt.as_object().unwrap() {
        let dst = agent.join(rel.replace("--PROJECT--", &enc));
        std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
        std::fs::copy(store.join(rel), &dst).unwrap();
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms.as_u64().unwrap());
        std::fs::File::options()
            .write(true)
            .open(&dst)
            .unwrap()
            .set_modified(t)
            .unwrap();
    }
    (t, agent, proj, enc)
}

fn ls_in(cwd: &Path, agent: &Path, args: &[&str]) -> Output {
    tool_in("pi-ls", cwd, agent, args)
}

/// `tool args` in `cwd` with the store `agent`, as kinds/pi-ls.mjs ran pi.
fn tool_in(tool: &str, cwd: &Path, agent: &Path, args: &[&str]) -> Output {
    run_with(tool, args, None, |c| {
        c.current_dir(cwd)
            .env("PI_CODING_AGENT_DIR", agent)
            .env("HOME", CONFORMANCE_HOME)
            .stdin(Stdio::null());
    })
}

/// A JSON line (the store's one lone surrogate, which serde refuses, as U+FFFD).
fn parse(l: &str) -> serde_json::Value {
    serde_json::from_str(&l.replace("\\ud800", "\\ufffd")).unwrap()
}

#[test]
fn conformance_with_pi() {
    let (_t, agent, proj, enc) = install();
    let a = agent.to_string_lossy().into_owned();
    check_each(&cases("pi-ls"), 3, |c| {
        let args: Vec<String> = c.args.iter().map(|x| x.replace("$STORE", &a)).collect();
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = ls_in(&proj, &agent, &argv);
        assert!(o.status.success(), "{argv:?}: {}", stderr(&o));
        let got = stdout(&o)
            .replace(&enc, "--PROJECT--")
            .replace(&a, "$STORE");
        assert_eq!(got, c.stdout, "{}: pi-ls {argv:?}", c.what);
        Ok(())
    });
}

#[test]
fn skipped_files_are_named_and_never_fatal() {
    let (_t, agent, proj, enc) = install();
    let dir = agent.join("sessions").join(&enc);
    std::os::unix::fs::symlink("loop.jsonl", dir.join("loop.jsonl")).unwrap();
    std::os::unix::fs::symlink("nowhere", dir.join("dangling.jsonl")).unwrap();
    let locked = dir.join("locked.jsonl");
    std::fs::copy(dir.join("v3-001.jsonl"), &locked).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let root = std::fs::File::open(&locked).is_ok();
    let o = ls_in(&proj, &agent, &["--json"]);
    assert!(o.status.success());
    let err = stderr(&o);
    for (f, why) in [
        ("notes.jsonl", "not a session header"),
        ("empty.jsonl", "no session header"),
        ("dir.jsonl", "directory"),
        ("loop.jsonl", "symbolic links"),
        ("dangling.jsonl", "No such file"),
        ("bom.jsonl", "not a session header"),
        ("throws.jsonl", "TypeError"),
        ("no-message.jsonl", "TypeError"),
        ("name-number.jsonl", "TypeError"),
    ] {
        assert!(
            err.lines()
                .any(|l| l.starts_with("pi-ls: warning: ") && l.contains(f) && l.contains(why)),
            "{f}: {why}: {err}"
        );
    }
    if !root {
        assert!(err.contains("locked.jsonl: Permission denied"), "{err}");
    }
    assert!(stdout(&o).lines().count() >= 10);
    // --verbose gives the line; -q silences.
    let o = ls_in(&proj, &agent, &["--json", "--verbose"]);
    assert_stderr_has(&o, "throws.jsonl:2: ");
    assert!(stderr(&o).contains(" listed ("));
    let o = ls_in(&proj, &agent, &["--json", "-q"]);
    assert_eq!(stderr(&o), "");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o644)).unwrap();
}

#[test]
fn an_empty_or_missing_store_lists_nothing() {
    let t = TempDir::new("ls-empty");
    let o = ls_in(t.path(), &t.path().join("nothing"), &["--all"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    let o = ls_in(t.path(), &t.path().join("nothing"), &[]);
    assert!(o.status.success());
    assert!(
        !t.path().join("nothing").exists(),
        "pi-ls must not create the directory"
    );
}

#[test]
fn formats_and_filters() {
    let (_t, agent, proj, _enc) = install();
    let json = stdout(&ls_in(&proj, &agent, &["--json"]));
    let paths: Vec<String> = json
        .lines()
        .map(|l| parse(l)["path"].as_str().unwrap().to_string())
        .collect();
    // -0: the same paths, NUL-terminated
    let nul = ls_in(&proj, &agent, &["-0"]).stdout;
    let got: Vec<String> = nul
        .split(|&b| b == 0)
        .filter(|s| !s.is_empty())
        .map(|s| String::from_utf8(s.to_vec()).unwrap())
        .collect();
    assert_eq!(got, paths);
    // text in a pipe: ISO times, no colour, no header row, one line per session
    let text = stdout(&ls_in(&proj, &agent, &[]));
    assert_eq!(text.lines().count(), paths.len());
    assert!(!text.contains('\x1b'));
    assert!(text.contains("2026-02-01T10:00:01.000Z"), "{text}");
    assert!(text.contains("final \u{FFFD}name"), "{text}");
    // --width cuts
    let narrow = stdout(&ls_in(&proj, &agent, &["--width", "60"]));
    for l in narrow.lines() {
        assert!(pi_session_tools::width::width(l) <= 60, "{l}");
    }
    // filters
    let only = |args: &[&str]| -> Vec<String> {
        stdout(&ls_in(&proj, &agent, args))
            .lines()
            .map(|l| parse(l)["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        only(&["--json", "--name", "final*"]),
        ["019c0000-0000-7000-8000-0000000000a2"]
    );
    let since = only(&[
        "--json",
        "--since",
        "2026-01-20",
        "--until",
        "2026-01-24T08:00:01Z",
    ]);
    assert_eq!(since, ["019c0000-0000-7000-8000-0000000000a7",]);
    assert!(only(&["--json", "--older-than", "1d"]).len() == paths.len());
    assert!(only(&["--json", "--since", "1d"]).is_empty());
    let all = only(&["--json", "--all"]);
    let all_json = stdout(&ls_in(&proj, &agent, &["--json", "--all"]));
    let cwds: Vec<String> = all_json
        .lines()
        .map(|l| parse(l)["cwd"].as_str().unwrap().to_string())
        .collect();
    let c = cwds[0].clone();
    let want = cwds
        .iter()
        .filter(|x| **x == c || x.starts_with(&format!("{c}/")))
        .count();
    let other = only(&["--json", "--all", "--cwd", &c]);
    assert!(!other.is_empty() && other.len() < all.len());
    assert_eq!(other.len(), want);
    // every cwd in the store is gone on this machine
    assert_eq!(only(&["--json", "--all", "--orphans"]), all);
    // long form: pi's fields, then the extra ones
    let l = stdout(&ls_in(&proj, &agent, &["--json", "-l", "--name", "final*"]));
    let v = parse(l.trim());
    let at: Vec<usize> = [
        "path",
        "id",
        "cwd",
        "name",
        "created",
        "modified",
        "messageCount",
        "firstMessage",
        "entries",
        "leaves",
        "branchPoints",
        "compactions",
        "labels",
        "bytes",
        "version",
        "tokens",
        "cost",
        "lastModel",
    ]
    .iter()
    .map(|k| {
        l.find(&format!("\"{k}\":"))
            .unwrap_or_else(|| panic!("{k}: {l}"))
    })
    .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{l}");
    assert_eq!(v["entries"], 5);
    assert_eq!(v["leaves"], 1);
    assert_eq!(v["tokens"], 10);
    assert_eq!(v["cost"], 0.5);
    assert_eq!(v["lastModel"], "p/m");
    let v1 = stdout(&ls_in(&proj, &agent, &["--json", "-l"]));
    assert!(v1
        .lines()
        .any(|l| l.contains("v1-001.jsonl") && l.contains("\"version\":1")));
    // usage errors
    assert_eq!(
        ls_in(&proj, &agent, &["--since", "someday"]).status.code(),
        Some(2)
    );
    assert_eq!(
        ls_in(&proj, &agent, &["--older-than", "5y"]).status.code(),
        Some(2)
    );
    assert_eq!(
        ls_in(&proj, &agent, &["--tree", "--json"]).status.code(),
        Some(2)
    );
}

#[test]
fn tree_puts_forks_under_their_parent() {
    let t = TempDir::new("ls-tree");
    let root = std::fs::canonicalize(t.path()).unwrap();
    let dir = root.join("s");
    std::fs::create_dir_all(&dir).unwrap();
    // A session `id` begun at `ts`, forked from `parent`, whose one message
    // says `text` at `ms`.
    let write = |p: &Path, id: &str, ts: &str, parent: Option<&Path>, text: &str, ms: u64| {
        let parent = parent.map(|p| p.to_string_lossy().into_owned());
        let said = format!(r#"{{"role":"user","content":"{text}","timestamp":{ms}}}"#);
        let first = message_at(
            &hex_id(ms as usize),
            None,
            "2026-01-01T00:00:00.000Z",
            &said,
        );
        let head = header(id, ts, "/x", parent.as_deref());
        std::fs::write(p, lines(&[head, first])).unwrap();
    };
    let a = dir.join("a.jsonl");
    let b = dir.join("b.jsonl");
    let c = dir.join("c.jsonl");
    write(
        &a,
        "aaaaaaaa-1",
        "2026-01-01T00:00:00.000Z",
        None,
        "root",
        1000,
    );
    write(
        &b,
        "bbbbbbbb-1",
        "2026-01-02T00:00:00.000Z",
        Some(&a),
        "fork one",
        3000,
    );
    write(
        &c,
        "cccccccc-1",
        "2026-01-03T00:00:00.000Z",
        Some(&b),
        "fork two",
        2000,
    );
    let d = dir.to_string_lossy().into_owned();
    let o = ls_in(&root, &root, &["--all", "--session-dir", &d, "--tree"]);
    let text = stdout(&o);
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), 3, "{text}");
    assert!(
        rows[0].starts_with("aaaaaaaa ") && rows[0].ends_with("root"),
        "{text}"
    );
    assert!(
        rows[1].starts_with("bbbbbbbb ") && rows[1].ends_with("└ fork one"),
        "{text}"
    );
    assert!(
        rows[2].starts_with("cccccccc ") && rows[2].ends_with("  └ fork two"),
        "{text}"
    );
}

#[test]
fn other_tools_take_what_pi_ls_prints() {
    let (_t, agent, proj, _enc) = install();
    let json = stdout(&ls_in(&proj, &agent, &["--json", "--all"]));
    let mut tried = 0;
    for l in json.lines() {
        let v = parse(l);
        let path = v["path"].as_str().unwrap();
        let id = v["id"].as_str().unwrap();
        if !path.contains("v3-00") {
            continue;
        }
        for arg in [path, id, &id[..13]] {
            let o = tool_in("pi-path", &proj, &agent, &["--format", "ids", arg]);
            assert!(o.status.success(), "pi-path {arg}: {}", stderr(&o));
            let o = tool_in("pi-migrate", &proj, &agent, &["--check", arg]);
            assert!(
                o.status.success(),
                "pi-migrate --check {arg}: {}",
                stderr(&o)
            );
        }
        tried += 1;
    }
    assert!(tried >= 3);
    // the short ids of the text listing are unique prefixes
    let text = stdout(&ls_in(&proj, &agent, &["--all"]));
    assert_eq!(text.lines().count(), json.lines().count());
    for (row, l) in text.lines().zip(json.lines()) {
        if !parse(l)["path"].as_str().unwrap().contains("/v3-00") {
            continue;
        }
        let short = row.split_whitespace().next().unwrap();
        assert!(short.len() < 36, "{row}");
        let o = tool_in("pi-path", &proj, &agent, &["--format", "ids", short]);
        assert!(o.status.success(), "{short}: {}", stderr(&o));
    }
    // pi-migrate on a v1 file named by its id prefix
    let v1 = json
        .lines()
        .find(|l| l.contains("v1-001.jsonl"))
        .map(|l| parse(l)["id"].as_str().unwrap().to_string())
        .unwrap();
    let o = tool_in("pi-migrate", &proj, &agent, &["--check", &v1[..12]]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).contains("v1-001.jsonl"), "{}", stdout(&o));
}

/// The cache of what each file held (`PI_SESSION_TOOLS_CACHE_DIR`): a run
/// from it prints what a full read prints; a file that grew is read again;
/// a damaged cache (cut, or one bit flipped) is ignored and rewritten;
/// `--no-cache` and `PI_SESSION_TOOLS_CACHE=off` neither read nor write it.
#[test]
fn the_cache_changes_nothing_but_the_time() {
    let (t, agent, proj, _) = install();
    let cache = t.path().join("cache");
    let ls = |args: &[&str], env: &[(&str, &str)]| {
        let o = run_with("pi-ls", args, None, |c| {
            c.current_dir(&proj)
                .env("PI_CODING_AGENT_DIR", &agent)
                .env("HOME", CONFORMANCE_HOME)
                .env("PI_SESSION_TOOLS_CACHE_DIR", &cache)
                .stdin(Stdio::null());
            for (k, v) in env {
                c.env(k, v);
            }
        });
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    let cached = || std::fs::read_dir(&cache).map_or(0, |d| d.count());
    let full = ls(&["--all", "--json", "--no-cache"], &[]);
    assert_eq!(cached(), 0, "--no-cache wrote a cache");
    assert_eq!(
        ls(&["--all", "--json"], &[("PI_SESSION_TOOLS_CACHE", "off")]),
        full
    );
    assert_eq!(cached(), 0, "PI_SESSION_TOOLS_CACHE=off wrote a cache");
    assert_eq!(ls(&["--all", "--json"], &[]), full, "first run");
    assert_eq!(cached(), 1);
    assert_eq!(ls(&["--all", "--json"], &[]), full, "from the cache");
    // One session grows (pi appends): its count and activity time follow.
    let first: serde_json::Value = parse(full.lines().next().unwrap());
    let path = PathBuf::from(first["path"].as_str().unwrap());
    let count = first["messageCount"].as_u64().unwrap();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    std::io::Write::write_all(
        &mut f,
        br#"{"type":"message","id":"c0ffee01","parentId":null,"timestamp":"2030-01-01T00:00:00.000Z","message":{"role":"user","content":"later","timestamp":1893456000000}}
"#,
    )
    .unwrap();
    drop(f);
    let grown = ls(&["--all", "--json"], &[]);
    assert_eq!(grown, ls(&["--all", "--json", "--no-cache"], &[]));
    let now: serde_json::Value = parse(grown.lines().next().unwrap());
    assert_eq!(now["path"], first["path"]);
    assert_eq!(now["messageCount"].as_u64(), Some(count + 1));
    assert_ne!(grown, full);
    // A damaged cache is ignored, and rewritten.
    let file = std::fs::read_dir(&cache)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut bytes = std::fs::read(&file).unwrap();
    let n = bytes.len();
    bytes.truncate(n / 2);
    bytes[40] ^= 0xff;
    std::fs::write(&file, &bytes).unwrap();
    assert_eq!(ls(&["--all", "--json"], &[]), grown, "from a damaged cache");
    assert!(std::fs::read(&file)
        .unwrap()
        .starts_with(b"pi-session-tools ls cache"));
    assert_eq!(
        ls(&["--all", "--json"], &[]),
        grown,
        "from the rewritten cache"
    );
    damage_is_ignored(&file, 300, || ls(&["--all", "--json"], &[]), &grown);
    // This project's listing (another root) has a cache of its own.
    let here = ls(&["--json"], &[]);
    assert_eq!(here, ls(&["--json", "--no-cache"], &[]));
    assert_eq!(cached(), 2);
    // ... that holds its sessions (they are stat'd for the key even where
    // the directory listing took no stat), and is not written again.
    let mut files: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.retain(|f| f != &file);
    let held = std::fs::read(&files[0]).unwrap();
    assert!(held.len() > 100, "this project's cache holds nothing");
    let stamp = std::fs::metadata(&files[0]).unwrap().modified().unwrap();
    assert_eq!(ls(&["--json"], &[]), here);
    assert_eq!(
        std::fs::metadata(&files[0]).unwrap().modified().unwrap(),
        stamp
    );
}

/// Flip one bit of the cache `file` at a time (`trials` of them, at bytes
/// and bits a fixed pseudo-random walk picks): each run must print `full`
/// (what the files give) and leave the cache rewritten as it was; then the
/// same with a FIFO in the cache's place (which must not be waited on).
#[track_caller]
pub(crate) fn damage_is_ignored<T: PartialEq + std::fmt::Debug + Send>(
    file: &Path,
    trials: usize,
    run: impl Fn() -> T + Sync,
    full: &T,
) {
    let good = std::fs::read(file).unwrap();
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..trials {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let at = (x % good.len() as u64) as usize;
        let bit = (x >> 40) % 8;
        let mut bad = good.clone();
        bad[at] ^= 1 << bit;
        std::fs::write(file, &bad).unwrap();
        assert_eq!(run(), *full, "bit {bit} of byte {at} flipped");
        let now = std::fs::read(file).unwrap();
        assert!(now == good, "not rewritten: bit {bit} of byte {at}");
    }
    std::fs::remove_file(file).unwrap();
    let made = std::process::Command::new("mkfifo").arg(file).status();
    assert!(made.unwrap().success());
    let got = std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel();
        let run = &run;
        s.spawn(move || tx.send(run()));
        let got = rx.recv_timeout(std::time::Duration::from_secs(20));
        if got.is_err() {
            // a writer (opened and closed) lets the stuck reader go on
            drop(std::fs::OpenOptions::new().write(true).open(file));
        }
        got
    });
    assert_eq!(got.expect("waited on a FIFO as its cache"), *full);
    assert!(
        std::fs::read(file).unwrap() == good,
        "not rewritten over a FIFO"
    );
}

/// The options every store tool shares: -j (threads) changes nothing
/// printed, with or without the cache; --since and --until read durations
/// and dates with one reader; --session-dir must name a directory.
#[test]
fn shared_store_options() {
    let (_t, agent, proj, _) = install();
    let full = ls_in(&proj, &agent, &["--all", "--json", "-l", "--no-cache"]);
    assert!(full.status.success(), "{}", stderr(&full));
    for j in ["1", "3"] {
        let o = ls_in(
            &proj,
            &agent,
            &["--all", "--json", "-l", "--no-cache", "-j", j],
        );
        assert_eq!(stdout(&o), stdout(&full), "-j {j}");
        assert_eq!(stderr(&o), stderr(&full), "-j {j}");
    }
    let since = |w: &str| stdout(&ls_in(&proj, &agent, &["--all", "--json", "--since", w]));
    assert_eq!(
        since("36500d"),
        stdout(&ls_in(&proj, &agent, &["--all", "--json"]))
    );
    assert_eq!(since("2999-01-01"), "");
    let bad = ls_in(&proj, &agent, &["--since", "someday"]);
    assert_eq!(bad.status.code(), Some(2));
    let bad = ls_in(&proj, &agent, &["--session-dir", ""]);
    assert_eq!(bad.status.code(), Some(2));
}

/// A file's mtime `ns` nanoseconds after the epoch.
fn set_mtime_ns(p: &Path, ns: u64) {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_nanos(ns);
    std::fs::File::options()
        .write(true)
        .open(p)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

/// A session without messages whose header's time is `ts`.
fn bare_session(p: &Path, id: &str, ts: &str) {
    std::fs::write(p, lines(&[header(id, ts, "/x", None)])).unwrap();
}

#[test]
fn modified_from_the_mtime_is_rounded_as_node_does() {
    // pi's `stats.mtime` is `new Date(Math.round(mtimeMs))`: 0.6 ms rounds
    // up. A tie with another session's time keeps the order read (names,
    // descending, in one directory), where a cut time put it after.
    let t = TempDir::new("ls-mtime");
    let root = std::fs::canonicalize(t.path()).unwrap();
    let dir = root.join("s");
    std::fs::create_dir_all(&dir).unwrap();
    let ms = 1_700_000_000_000u64;
    bare_session(&dir.join("b.jsonl"), "bbbbbbbb-1", "not a date");
    set_mtime_ns(&dir.join("b.jsonl"), ms * 1_000_000 + 600_000);
    bare_session(
        &dir.join("a.jsonl"),
        "aaaaaaaa-1",
        "2023-11-14T22:13:20.001Z",
    );
    let d = dir.to_string_lossy().into_owned();
    let o = ls_in(
        &root,
        &root,
        &["--all", "--session-dir", &d, "--json", "--no-cache"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let got: Vec<(String, String)> = stdout(&o)
        .lines()
        .map(|l| {
            let v = parse(l);
            (
                v["id"].as_str().unwrap().to_string(),
                v["modified"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want = |id: &str| (id.to_string(), "2023-11-14T22:13:20.001Z".to_string());
    assert_eq!(got, [want("bbbbbbbb-1"), want("aaaaaaaa-1")]);
}

#[test]
fn listall_orders_files_by_the_whole_mtime() {
    // listAll sorts its files by `mtimeMs` with its fraction, then by
    // name: two files in one millisecond keep the later one first, and
    // equal `modified` times keep that order.
    let t = TempDir::new("ls-mtime-all");
    let root = std::fs::canonicalize(t.path()).unwrap();
    let dir = root.join("sessions").join("--x--");
    std::fs::create_dir_all(&dir).unwrap();
    let ns = 1_700_000_000_000u64 * 1_000_000;
    let ts = "2023-11-14T22:13:20.000Z";
    bare_session(&dir.join("a.jsonl"), "aaaaaaaa-1", ts);
    set_mtime_ns(&dir.join("a.jsonl"), ns + 700_000);
    bare_session(&dir.join("b.jsonl"), "bbbbbbbb-1", ts);
    set_mtime_ns(&dir.join("b.jsonl"), ns + 200_000);
    let o = ls_in(&root, &root, &["--all", "--json", "--no-cache"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let ids: Vec<String> = stdout(&o)
        .lines()
        .map(|l| parse(l)["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, ["aaaaaaaa-1", "bbbbbbbb-1"]);
}

/// `--session-dir DIR` holding only sessions of other projects lists
/// nothing, and says why (issue 35): a note when nothing is listed, the
/// count in -v's summary; -q silences the note.
#[test]
fn sessions_of_other_projects_are_counted_not_hidden() {
    let t = TempDir::new("ls-others");
    let store = t.path().join("store");
    std::fs::create_dir_all(&store).unwrap();
    bare_session(
        &store.join("a.jsonl"),
        "aaaa0001",
        "2026-03-01T10:00:00.000Z",
    );
    bare_session(
        &store.join("b.jsonl"),
        "bbbb0001",
        "2026-03-01T11:00:00.000Z",
    );
    let agent = t.path().join("agent");
    let o = ls_in(&store, &agent, &["--session-dir", "."]);
    assert!(o.status.success());
    assert_eq!(stdout(&o), "");
    assert_eq!(
        stderr(&o),
        "pi-ls: 2 sessions of other projects; --all lists them\n"
    );
    let o = ls_in(&store, &agent, &["--session-dir", ".", "-v"]);
    let err = stderr(&o);
    assert!(err.contains("0 listed (0 sessions, 0 files"), "{err}");
    assert!(
        err.trim_end()
            .ends_with(" ms; 2 sessions of other projects; --all lists them"),
        "{err}"
    );
    let o = ls_in(&store, &agent, &["--session-dir", ".", "-q"]);
    assert_eq!(stderr(&o), "");
    let o = ls_in(&store, &agent, &["--session-dir", ".", "--all"]);
    assert_eq!(stdout(&o).lines().count(), 2);
    assert_eq!(stderr(&o), "");
}

mod long_width;
