//! Reading the files of a report through the cache of what each gave
//! (`store::FileCache`, the frame pi-ls's cache uses too: a file whose
//! device, inode, size and times are unchanged is not read again), and the
//! warnings of every file said in file order, the same whether the file
//! was read or came from the cache. A file that is not a session is not
//! kept: reading it again says why again.

use super::scan::{scan_all, Amounts, FileUsage, Record, Source};
use crate::cli::Log;
use crate::error::Diagnostic;
use crate::store::{self, put_bytes, put_opt, put_u64, Cached, FileCache, Reader};
use std::path::{Path, PathBuf};

/// What `paths` gave (the files that are sessions, in order), read on
/// every core, each warning said in file order. With `cache` (and one
/// root) the unchanged files come from the cache of `roots`, which is
/// rewritten when a file was read or is gone.
pub(super) fn read_files(
    roots: &[PathBuf],
    paths: &[PathBuf],
    cache: bool,
    log: Log,
) -> Vec<FileUsage> {
    let mut cache: FileCache<FileUsage> = match roots {
        [root] => FileCache::open(&store::resolve_path(root), cache),
        _ => FileCache::default(),
    };
    let metas = store::parallel_map(paths, |p| std::fs::metadata(p).ok());
    let mut hits: Vec<Option<FileUsage>> = paths
        .iter()
        .zip(&metas)
        .map(|(p, m)| cache.take(p, m.as_ref()))
        .collect();
    let misses: Vec<&Path> = paths
        .iter()
        .zip(&hits)
        .filter(|(_, h)| h.is_none())
        .map(|(p, _)| p.as_path())
        .collect();
    let mut any_read = false;
    let mut read = scan_all(&misses, false).into_iter();
    let mut files = Vec::with_capacity(paths.len());
    let mut listed = Vec::with_capacity(paths.len());
    for ((p, m), h) in paths.iter().zip(&metas).zip(hits.iter_mut()) {
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
                listed.push(m.as_ref());
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

fn source_no(s: Source) -> u64 {
    match s {
        Source::Assistant => 0,
        Source::Usage => 1,
        Source::Compaction => 2,
        Source::BranchSummary => 3,
    }
}

fn source_of(n: u64) -> Option<Source> {
    Some(match n {
        0 => Source::Assistant,
        1 => Source::Usage,
        2 => Source::Compaction,
        3 => Source::BranchSummary,
        _ => return None,
    })
}

fn amounts_fields(a: &Amounts) -> [f64; 10] {
    [
        a.input,
        a.output,
        a.cache_read,
        a.cache_write,
        a.total_tokens,
        a.cost_input,
        a.cost_output,
        a.cost_cache_read,
        a.cost_cache_write,
        a.cost,
    ]
}

fn string(r: &mut Reader<'_>) -> Option<String> {
    String::from_utf8(r.bytes()?.to_vec()).ok()
}

// Per file: the header's fields, the names, the ids, then each record
// (time, line, the ten amounts, its id's length and source, its model and
// provider), then the warnings (line, message).
impl Cached for FileUsage {
    const KIND: &'static str = "usage";

    fn encode(&self, out: &mut Vec<u8>) {
        put_bytes(out, self.session_id.as_bytes());
        put_bytes(out, self.cwd.as_bytes());
        put_bytes(out, self.header_time.as_bytes());
        put_opt(out, self.parent_session.as_deref().map(str::as_bytes));
        put_u64(out, self.names.len() as u64);
        for n in &self.names {
            put_bytes(out, n.as_bytes());
        }
        put_bytes(out, self.ids.as_bytes());
        put_u64(out, self.records.len() as u64);
        for r in &self.records {
            put_u64(out, r.time_ms.to_bits());
            put_u64(out, r.line);
            for x in amounts_fields(&r.amounts) {
                put_u64(out, x.to_bits());
            }
            put_u64(
                out,
                (r.id.1.saturating_sub(r.id.0) as u64) << 8 | source_no(r.source),
            );
            put_u64(out, u64::from(r.model) << 32 | u64::from(r.provider));
        }
        put_u64(out, self.warnings.len() as u64);
        for (line, what) in &self.warnings {
            put_u64(out, *line);
            put_bytes(out, what.as_bytes());
        }
    }

    fn decode(path: &Path, r: &mut Reader<'_>) -> Option<FileUsage> {
        let mut fu = FileUsage {
            path: path.to_path_buf(),
            session_id: string(r)?,
            cwd: string(r)?,
            header_time: string(r)?,
            parent_session: match r.opt()? {
                Some(b) => Some(String::from_utf8(b.to_vec()).ok()?),
                None => None,
            },
            ..FileUsage::default()
        };
        let n = r.u64()?;
        for _ in 0..n {
            fu.names.push(string(r)?);
        }
        fu.ids = string(r)?;
        let n = r.u64()?;
        let mut at = 0usize;
        for _ in 0..n {
            let time_ms = f64::from_bits(r.u64()?);
            let line = r.u64()?;
            let mut x = [0f64; 10];
            for v in &mut x {
                *v = f64::from_bits(r.u64()?);
            }
            let [input, output, cache_read, cache_write, total_tokens, cost_input, cost_output, cost_cache_read, cost_cache_write, cost] =
                x;
            let w = r.u64()?;
            let end = at.checked_add(usize::try_from(w >> 8).ok()?)?;
            let names = r.u64()?;
            fu.records.push(Record {
                time_ms,
                line,
                amounts: Amounts {
                    input,
                    output,
                    cache_read,
                    cache_write,
                    total_tokens,
                    cost_input,
                    cost_output,
                    cost_cache_read,
                    cost_cache_write,
                    cost,
                },
                id: (at, end),
                model: (names >> 32) as u32,
                provider: names as u32,
                source: source_of(w & 0xff)?,
            });
            at = end;
        }
        if at != fu.ids.len() {
            return None;
        }
        let n = r.u64()?;
        for _ in 0..n {
            let line = r.u64()?;
            fu.warnings.push((line, string(r)?));
        }
        Some(fu)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_written_reads_back_and_damage_never_panics() {
        let mut fu = FileUsage {
            path: "/s/a.jsonl".into(),
            session_id: "abc".into(),
            cwd: "/home/dév".into(),
            header_time: "2026-03-01T00:00:00.000Z".into(),
            parent_session: Some("/s/p.jsonl".into()),
            names: vec!["m".into(), "prov".into()],
            ids: "id1é2".into(),
            warnings: vec![(3, "usage.input is missing".into())],
            ..FileUsage::default()
        };
        for (k, id) in [(0, 3), (3, 6)].into_iter().enumerate() {
            fu.records.push(Record {
                time_ms: if k == 0 { f64::NAN } else { 1.5e12 },
                line: 2 + k as u64,
                amounts: Amounts {
                    cost: 0.1 + k as f64,
                    input: -1.0,
                    ..Amounts::default()
                },
                id,
                model: 0,
                provider: 1,
                source: Source::Compaction,
            });
        }
        let mut out = Vec::new();
        fu.encode(&mut out);
        let back = FileUsage::decode(Path::new("/s/a.jsonl"), &mut Reader::new(&out)).unwrap();
        let mut again = Vec::new();
        back.encode(&mut again);
        assert_eq!(out, again);
        assert_eq!(back.id(&back.records[1]), "é2");
        assert_eq!(back.model(&back.records[0]), "m");
        assert_eq!(back.provider(&back.records[0]), "prov");
        assert_eq!(back.warnings, fu.warnings);
        for n in 0..out.len() {
            let _ = FileUsage::decode(Path::new("x"), &mut Reader::new(&out[..n]));
            let mut bad = out.clone();
            bad[n] ^= 0xff;
            if let Some(b) = FileUsage::decode(Path::new("x"), &mut Reader::new(&bad)) {
                for r in &b.records {
                    let _ = (b.id(r), b.model(r), b.provider(r));
                }
            }
        }
    }
}
