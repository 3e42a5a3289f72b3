//! Each usage counted once when forks repeat it: the source session of
//! every file (followed through the headers' `parentSession`), and the
//! copies of an entry dropped but the one nearest the source.

use super::scan::{header_of, FileUsage};
use crate::store;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// The source key and fork depth of every file: follow `parentSession`
/// (within the files read, else by reading the parent's header) to a file
/// without one.
fn sources(files: &[FileUsage]) -> Vec<(String, usize)> {
    let mut by_path: HashMap<String, (String, Option<String>)> = HashMap::new();
    for f in files {
        by_path.insert(
            f.path.to_string_lossy().into_owned(),
            (f.session_id.clone(), f.parent_session.clone()),
        );
        by_path.insert(
            store::resolve_path(&f.path).to_string_lossy().into_owned(),
            (f.session_id.clone(), f.parent_session.clone()),
        );
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

/// Drop the copies a fork made: keep each (source, id) once, in the file
/// nearest the source.
pub(crate) fn dedupe(files: &mut [FileUsage]) {
    let src = sources(files);
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by(|&a, &b| {
        (src[a].1, &files[a].header_time, &files[a].path).cmp(&(
            src[b].1,
            &files[b].header_time,
            &files[b].path,
        ))
    });
    // Source keys as numbers, and (source, id) pairs borrowed from the
    // records: no copy of a string per record.
    let mut key_no: HashMap<&str, u32> = HashMap::new();
    for (k, _) in &src {
        let n = key_no.len() as u32;
        key_no.entry(k.as_str()).or_insert(n);
    }
    let total: usize = files.iter().map(|f| f.records.len()).sum();
    let mut keep: Vec<Vec<bool>> = files.iter().map(|f| vec![true; f.records.len()]).collect();
    {
        let mut seen: HashSet<(u32, &str), QuickHash> =
            HashSet::with_capacity_and_hasher(total, QuickHash);
        for &i in &order {
            let key = key_no[src[i].0.as_str()];
            let f = &files[i];
            for (k, r) in f.records.iter().enumerate() {
                let id = f.id(r);
                if !id.is_empty() && !seen.insert((key, id)) {
                    keep[i][k] = false;
                }
            }
        }
    }
    for (f, keep) in files.iter_mut().zip(keep) {
        if keep.iter().all(|&k| k) {
            continue;
        }
        let mut k = keep.into_iter();
        f.records.retain(|_| k.next().unwrap_or(true));
    }
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
    fn write_u32(&mut self, n: u32) {
        self.0 = (self.0 ^ u64::from(n)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn finish(&self) -> u64 {
        let h = self.0;
        (h ^ (h >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9) ^ (h >> 32)
    }
}
