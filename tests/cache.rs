//! The cache directory stays bounded (issue 35.10): at most 64 cache files,
//! the least recently used (read or written) removed first, and nothing
//! in it that is not a cache file.
use crate::common::*;
use std::process::Stdio;
use std::time::{Duration, SystemTime};

fn age(file: &std::path::Path, secs: u64) {
    let f = std::fs::OpenOptions::new().write(true).open(file).unwrap();
    let at = SystemTime::UNIX_EPOCH + Duration::from_secs(secs);
    f.set_times(std::fs::FileTimes::new().set_accessed(at).set_modified(at))
        .unwrap();
}

#[test]
fn the_cache_keeps_the_64_most_recently_used_files() {
    let t = TempDir::new("cache-bound");
    let store = t.0.join("store");
    let cache = t.0.join("cache");
    std::fs::create_dir_all(&store).unwrap();
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::copy(repo().join("examples/s.jsonl"), store.join("s.jsonl")).unwrap();
    // 70 caches of other directories, the older the smaller i; a file that
    // is no cache, older than all.
    let fake = |i: u64| cache.join(format!("ls-{i:016x}.bin"));
    for i in 0..70 {
        std::fs::write(fake(i), b"pi-session-tools ls cache\n").unwrap();
        age(&fake(i), 1_000_000 + i);
    }
    std::fs::write(cache.join("notes.txt"), b"mine").unwrap();
    age(&cache.join("notes.txt"), 1);
    let ls = || {
        let o = run_with(
            "pi-ls",
            &["--all", "--session-dir", store.to_str().unwrap(), "--json"],
            None,
            |c| {
                c.env("PI_SESSION_TOOLS_CACHE_DIR", &cache)
                    .env("HOME", &t.0)
                    .stdin(Stdio::null());
            },
        );
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(!o.stdout.is_empty());
    };
    ls();
    let names: Vec<String> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let caches: Vec<&String> = names.iter().filter(|n| n.ends_with(".bin")).collect();
    assert_eq!(caches.len(), 64, "{names:?}");
    for i in 0..7 {
        assert!(!fake(i).exists(), "the old cache {i} was kept");
    }
    for i in 7..70 {
        assert!(fake(i).exists(), "the newer cache {i} was removed");
    }
    assert!(
        cache.join("notes.txt").exists(),
        "a file that is no cache was removed"
    );
    let own: Vec<&&String> = caches
        .iter()
        .filter(|n| !(7..70).any(|i| fake(i).file_name().unwrap().to_str() == Some(n.as_str())))
        .collect();
    assert_eq!(own.len(), 1, "this run's cache: {own:?}");
    // Reading a cache counts as using it: its access time is now again.
    let own = cache.join(own[0]);
    age(&own, 5);
    ls();
    let used = std::fs::metadata(&own).unwrap().accessed().unwrap();
    assert!(
        used > SystemTime::now() - Duration::from_secs(3600),
        "a cache read is not marked used: {used:?}"
    );
}
