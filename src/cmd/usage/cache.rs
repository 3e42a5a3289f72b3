//! Reading the files of a report through the cache of what each gave
//! (`store::FileCache`, the frame pi-ls's cache uses too: a file whose
//! device, inode, size and times are unchanged is not read again), and the
//! warnings of every file said in file order, the same whether the file
//! was read or came from the cache. A file that is not a session is not
//! kept: reading it again says why again. (What is kept of a file, its
//! encoding, is with the file's records in `record`.)

use super::scan::{scan_all, FileUsage};
use crate::cli::Log;
use crate::error::Diagnostic;
use crate::store::{self, FileCache};
use std::fs::Metadata;
use std::path::{Path, PathBuf};

/// What `paths` gave (the files that are sessions, in order), read on
/// every core, each warning said in file order. With `cache` (and one
/// root) the unchanged files come from the cache of `roots`, which is
/// rewritten when a file was read or is gone.
pub(super) fn read_files(
    roots: &[PathBuf],
    paths: &[(PathBuf, Metadata)],
    cache: bool,
    log: Log,
) -> Vec<FileUsage> {
    let mut cache: FileCache<FileUsage> = match roots {
        [root] => FileCache::open(&store::resolve_path(root), cache),
        _ => FileCache::default(),
    };
    let mut hits: Vec<Option<FileUsage>> =
        paths.iter().map(|(p, m)| cache.take(p, Some(m))).collect();
    let misses: Vec<&Path> = paths
        .iter()
        .zip(&hits)
        .filter(|(_, h)| h.is_none())
        .map(|((p, _), _)| p.as_path())
        .collect();
    let mut any_read = false;
    let mut read = scan_all(&misses, false).into_iter();
    let mut files = Vec::with_capacity(paths.len());
    let mut listed = Vec::with_capacity(paths.len());
    for ((p, m), h) in paths.iter().zip(hits.iter_mut()) {
        // scan_all: one result per file read, in order.
        let got = match h.take() {
            Some(fu) => Ok(fu),
            None => {
                let r = read.next().unwrap_or_else(|| Err("not read".into()));
                any_read |= r.is_ok();
                r
            }
        };
        match got {
            Ok(fu) => {
                fu.say_warnings(log);
                listed.push(Some(m));
                files.push(fu);
            }
            Err(why) => {
                let name = p.to_string_lossy();
                log.warn(&Diagnostic::new(&name, None, format!("{why}; skipped")));
            }
        }
    }
    cache.save(
        any_read,
        files
            .iter()
            .zip(listed)
            .map(|(f, m)| (f.path.as_path(), m, f)),
    );
    files
}
