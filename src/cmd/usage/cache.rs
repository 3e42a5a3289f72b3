//! Reading the files of a report through the cache of what each gave
//! (`store::FileCache`'s frame, the one pi-ls's cache uses too: a file
//! whose device, inode, size and times are unchanged is not read again),
//! a file at a time: first every file's header (from the cache, else its
//! first line), to know the fork families; then what each file gave, in
//! path order, handed on and written to the new cache as it comes (never
//! every file's records at once). The warnings of every file are said in
//! file order, the same whether the file was read or came from the cache.
//! A file that is not a session is not kept: reading it again says why
//! again. (What is kept of a file, its encoding, is with the file's
//! records in `record`.)

use super::dedupe::families;
use super::record::{decode_head, FileUsage, Head};
use super::scan::{header_of, scan_all};
use crate::cli::Log;
use crate::error::Diagnostic;
use crate::store::{self, CacheWriter, Cached, Entries, Key};
use std::fs::Metadata;
use std::path::{Path, PathBuf};

/// Files read at once (on every core) before what they gave is handed on.
const BATCH: usize = 256;

/// Hand on what each of `paths` gave (the files that are sessions, in
/// order: its index in `paths`, what it gave, whether it is in a fork
/// family), read on every core, each warning said in file order. With
/// `cache` (and a root: the directory they were found in) the unchanged
/// files come from the cache of `root`, which is rewritten when a file
/// was read or is gone.
pub(super) fn each_file(
    root: Option<&Path>,
    paths: &[(PathBuf, Metadata)],
    cache: bool,
    log: Log,
    mut each: impl FnMut(usize, FileUsage, bool),
) {
    let root = root.map(store::resolve_path);
    let open = || match &root {
        Some(r) => Entries::open::<FileUsage>(r, cache),
        None => (None, None),
    };
    // 1. the headers: the cache's, then the first lines of the others
    let (mut old, file) = open();
    let Known {
        hit,
        family,
        leftover,
        missed,
    } = known(paths, old.as_mut());
    // 2. what each file gave, a batch at a time
    let (mut old, _) = if hit.iter().any(|&h| h) {
        open()
    } else {
        (None, None)
    };
    let mut new = file
        .filter(|_| leftover || missed)
        .and_then(|f| CacheWriter::create::<FileUsage>(&f));
    let mut any_read = false;
    for start in (0..paths.len()).step_by(BATCH) {
        let batch = start..(start + BATCH).min(paths.len());
        let to_read: Vec<&Path> = batch
            .clone()
            .filter(|&i| !hit[i])
            .map(|i| paths[i].0.as_path())
            .collect();
        let mut read = scan_all(&to_read, false).into_iter();
        for i in batch {
            let (p, m) = &paths[i];
            let got = if hit[i] {
                // the cache's entry for p (it has one, in order), else read it
                let mut v = None;
                while let Some((q, _, fu)) = old.as_mut().and_then(|e| e.next(FileUsage::decode)) {
                    if q == *p {
                        v = Some(fu);
                        break;
                    }
                }
                match v {
                    Some(fu) => Ok(fu),
                    None => super::scan_file(p, false),
                }
            } else {
                let r = read
                    .next()
                    .unwrap_or_else(|| Err(String::from("not read").into()));
                any_read |= r.is_ok();
                r
            };
            match got {
                Ok(fu) => {
                    fu.say_warnings(log);
                    if let Some(w) = &mut new {
                        w.put(p, m, &fu);
                    }
                    each(i, fu, family[i]);
                }
                Err(no) => {
                    let name = crate::name::kept_path(p);
                    let why = format!("{}; skipped", no.why);
                    log.warn(&Diagnostic::new(&name, no.line, why));
                }
            }
        }
    }
    if let Some(w) = new {
        if any_read || leftover {
            w.commit();
        }
    }
}

/// What the cache still knows of the files, and their families.
struct Known {
    /// The cache has the file as it is.
    hit: Vec<bool>,
    /// The file is in a fork family (held until all are read).
    family: Vec<bool>,
    /// The cache has entries for files that are gone or changed.
    leftover: bool,
    /// Some file is not in the cache.
    missed: bool,
}

/// The files' headers, from the cache (`old`) where it has the file as
/// it is, else from their first lines: which the cache knows, and which
/// are in a fork family.
fn known(paths: &[(PathBuf, Metadata)], old: Option<&mut Entries>) -> Known {
    let mut hit = vec![false; paths.len()];
    let mut heads: Vec<Option<Head>> = vec![None; paths.len()];
    let mut leftover = false;
    if let Some(e) = old {
        let mut i = 0;
        while let Some((p, key, head)) = e.next(decode_head) {
            while i < paths.len() && paths[i].0 < p {
                i += 1;
            }
            if i < paths.len() && paths[i].0 == p && key == Key::of(&paths[i].1) {
                hit[i] = true;
                heads[i] = Some(head);
                i += 1;
            } else {
                leftover = true;
            }
        }
        if e.damaged {
            hit.iter_mut().for_each(|h| *h = false);
            heads.iter_mut().for_each(|h| *h = None);
            leftover = true;
        }
    }
    let misses: Vec<usize> = (0..paths.len()).filter(|&i| !hit[i]).collect();
    let read = store::parallel_map(&misses, |&i| {
        let line = store::first_line(&paths[i].0)?;
        header_of(&line).map(|(session_id, _, _, parent_session)| Head {
            path: paths[i].0.clone(),
            session_id,
            parent_session,
        })
    });
    for (&i, h) in misses.iter().zip(read) {
        heads[i] = h;
    }
    let some: Vec<usize> = (0..paths.len()).filter(|&i| heads[i].is_some()).collect();
    let listed: Vec<Head> = some.iter().filter_map(|&i| heads[i].take()).collect();
    let mut family = vec![false; paths.len()];
    for (&i, f) in some.iter().zip(families(&listed)) {
        family[i] = f;
    }
    drop(listed);
    Known {
        hit,
        family,
        leftover,
        missed: !misses.is_empty(),
    }
}
