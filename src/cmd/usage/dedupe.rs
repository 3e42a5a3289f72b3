//! Each usage counted once when forks repeat it: the source session of
//! every file (followed through the headers' `parentSession`), and the
//! copies of an entry dropped but the one nearest the source.

use super::record::{FileUsage, Head, Record};
use super::scan::header_of;
use crate::store;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// Which files share their source with another (a fork family, or the
/// same session twice): only their records need holding until every file
/// is read; every other file's repeats are its own.
pub(crate) fn families(heads: &[Head]) -> Vec<bool> {
    let src = sources(heads);
    let mut n: HashMap<&str, usize> = HashMap::new();
    for (k, _) in &src {
        *n.entry(k.as_str()).or_default() += 1;
    }
    src.iter().map(|(k, _)| n[k.as_str()] > 1).collect()
}

/// The source key and fork depth of every file: follow `parentSession`
/// (within the files read, else by reading the parent's header) to a file
/// without one.
fn sources(files: &[Head]) -> Vec<(String, usize)> {
    let mut by_path: HashMap<String, (String, Option<String>)> = HashMap::new();
    if files.iter().any(|f| f.parent_session.is_some()) {
        for f in files {
            let named = f.path.to_string_lossy();
            let v = (f.session_id.clone(), f.parent_session.clone());
            // (a path already absolute and plain is its own resolved form)
            if !plain_absolute(&named) {
                let resolved = store::resolve_path(&f.path);
                by_path.insert(resolved.to_string_lossy().into_owned(), v.clone());
            }
            by_path.insert(named.into_owned(), v);
        }
    }
    let mut cache: HashMap<String, Option<(String, Option<String>)>> = HashMap::new();
    let mut look = |p: &str| -> Option<(String, Option<String>)> {
        if let Some(v) = by_path.get(p) {
            return Some(v.clone());
        }
        cache
            .entry(p.to_string())
            .or_insert_with(|| {
                let line = store::first_line(Path::new(p))?;
                header_of(&line).map(|(id, _, _, ps)| (id, ps))
            })
            .clone()
    };
    files
        .iter()
        .map(|f| {
            let mut key = format!("id:{}", f.session_id);
            let mut depth = 0;
            let mut parent = f.parent_session.clone();
            let mut seen = HashSet::new();
            while let Some(p) = parent.take() {
                if !seen.insert(p.clone()) || depth > 1000 {
                    break; // a parentSession cycle
                }
                depth += 1;
                match look(&p) {
                    Some((id, ps)) => {
                        key = format!("id:{id}");
                        parent = ps;
                    }
                    None => key = format!("path:{p}"),
                }
            }
            (key, depth)
        })
        .collect()
}

/// Whether `s` is an absolute path that resolving leaves as it is: no
/// `.`, `..` or empty parts, no `/` at the end.
fn plain_absolute(s: &str) -> bool {
    s.starts_with('/')
        && (s.len() == 1
            || (!s.ends_with('/')
                && !s.contains("//")
                && !s.contains("/./")
                && !s.contains("/../")
                && !s.ends_with("/.")
                && !s.ends_with("/..")))
}

/// Drop the copies a fork made, keeping each in the file nearest the
/// source, and an entry id repeated within one file. pi's ids are unique
/// only within a file: a fork's own turn may reuse an id of its source.
/// What a fork copied is the start of its file (pi writes the copied path,
/// or the whole source, before anything of its own): a record is a copy
/// while it and every record before it equal, by id and content, a record
/// of a file nearer the source; the first that does not ends the copies.
/// Only files of one source can share a record: each source's files are
/// taken together (most sources have one file, which needs no more than
/// its own ids).
pub(crate) fn dedupe(files: &mut [FileUsage]) {
    let heads: Vec<Head> = files.iter().map(Head::of).collect();
    let src = sources(&heads);
    let mut by_source: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, (k, _)) in src.iter().enumerate() {
        by_source.entry(k.as_str()).or_default().push(i);
    }
    let mut groups: Vec<Vec<usize>> = by_source.into_values().collect();
    let mut drops: Vec<(usize, Vec<bool>)> = Vec::new();
    {
        let mut seen: HashSet<&str, QuickHash> = HashSet::with_hasher(QuickHash);
        let mut earlier: HashSet<(&str, u64), QuickHash> = HashSet::with_hasher(QuickHash);
        for group in &mut groups {
            group.sort_by(|&a, &b| {
                (src[a].1, &files[a].header_time, &files[a].path).cmp(&(
                    src[b].1,
                    &files[b].header_time,
                    &files[b].path,
                ))
            });
            earlier.clear();
            for (n, &i) in group.iter().enumerate() {
                let f = &files[i];
                seen.clear();
                let mut copying = !earlier.is_empty();
                let mut keep: Option<Vec<bool>> = None;
                for (k, r) in f.records.iter().enumerate() {
                    let id = f.id(r);
                    if id.is_empty() {
                        continue;
                    }
                    let copy = copying && earlier.contains(&(id, content(f, r)));
                    copying = copy;
                    if !seen.insert(id) || copy {
                        keep.get_or_insert_with(|| vec![true; f.records.len()])[k] = false;
                    }
                }
                // The records a later file of the source may have copied.
                if n + 1 < group.len() {
                    earlier.extend(
                        f.records
                            .iter()
                            .map(|r| (f.id(r), content(f, r)))
                            .filter(|(id, _)| !id.is_empty()),
                    );
                }
                if let Some(keep) = keep {
                    drops.push((i, keep));
                }
            }
        }
    }
    for (i, keep) in drops {
        let mut k = keep.into_iter();
        files[i].records.retain(|_| k.next().unwrap_or(true));
    }
}

/// A digest of what record `r` of `f` counts (its time, model, source,
/// tokens and costs): a copy has the same.
fn content(f: &FileUsage, r: &Record) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = QuickHash.build_hasher();
    f.digest(r, &mut h);
    h.finish()
}

/// A quick hasher for the dedupe set (FNV-1a over 8 bytes a step, then a
/// multiply-xorshift): the keys are entry ids, not chosen by an attacker
/// who could slow a local report down.
#[derive(Clone, Copy, Default)]
struct QuickHash;

impl std::hash::BuildHasher for QuickHash {
    type Hasher = QuickHasher;
    fn build_hasher(&self) -> QuickHasher {
        QuickHasher(0xcbf2_9ce4_8422_2325)
    }
}

struct QuickHasher(u64);

impl std::hash::Hasher for QuickHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
            h = (h ^ w).wrapping_mul(0x0100_0000_01b3_u64.wrapping_mul(0x9E37_79B9));
        }
        for &b in chunks.remainder() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
    fn finish(&self) -> u64 {
        let h = self.0;
        (h ^ (h >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9) ^ (h >> 32)
    }
}
