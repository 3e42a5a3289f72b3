//! The file system's floor for `pi-migrate -i DIR` (issue 21.5): what an
//! atomic in-place rewrite of every file costs when nothing is migrated.
//!
//! For each `*.jsonl` file of DIR, in parallel (THREADS threads, default
//! 64, as many as pi-migrate's flushers), it reads the file, creates a
//! temporary file beside it, writes the same bytes, `fsync`s it and renames
//! it over the file; then it `fsync`s the directory once, as pi-migrate
//! does after its renames. No parsing, no check, no migration: only the
//! system calls an atomic replace cannot do without.
//!
//!     rustc -O --edition 2021 bench/fsfloor.rs -o /tmp/fsfloor
//!     /tmp/fsfloor DIR [THREADS] [GROW]
//!
//! GROW (default 0) bytes are appended to what is written for each file, so
//! that the floor writes as much as pi-migrate does (a migrated v1 file is
//! larger than the original: ids, parent ids, the version).
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

fn replace(path: &Path, n: usize, grow: usize) -> std::io::Result<()> {
    let mut bytes = Vec::new();
    File::open(path)?.read_to_end(&mut bytes)?;
    bytes.resize(bytes.len() + grow, b'\n');
    let mut name = path.file_name().unwrap_or_default().to_owned();
    name.push(format!(".fsfloor-{}-{n}.tmp", std::process::id()));
    let temp = path.with_file_name(name);
    let mut t = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)?;
    t.write_all(&bytes)?;
    t.sync_all()?;
    fs::rename(&temp, path)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(dir) = args.get(1).map(PathBuf::from) else {
        eprintln!("usage: fsfloor DIR [THREADS] [GROW]");
        std::process::exit(2);
    };
    let threads: usize = args.get(2).and_then(|t| t.parse().ok()).unwrap_or(64);
    let grow: usize = args.get(3).and_then(|t| t.parse().ok()).unwrap_or(0);
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("read_dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let next = AtomicUsize::new(0);
    let failed = AtomicUsize::new(0);
    std::thread::scope(|sc| {
        for _ in 0..threads.min(files.len()).max(1) {
            sc.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(f) = files.get(i) else { break };
                if let Err(e) = replace(f, i, grow) {
                    eprintln!("fsfloor: {}: {e}", f.display());
                    failed.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
    });
    if let Err(e) = File::open(&dir).and_then(|d| d.sync_all()) {
        eprintln!("fsfloor: {}: {e}", dir.display());
        std::process::exit(1);
    }
    std::process::exit(i32::from(failed.load(Ordering::Relaxed) > 0));
}
