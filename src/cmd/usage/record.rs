//! What the files gave: one
//! counted record, kept compact ([`Record`]: there is one per usage object
//! of a file, and a fork family's are kept until every file is read), and what one
//! file gave ([`FileUsage`]: its header's fields, its records, its
//! warnings), which hands each record's parts back; and how a file's
//! usage is kept in the cache (`store::Cached`).

use super::sum::{Amounts, Sums};
use crate::cli::Log;
use crate::error::Diagnostic;
use crate::store::{put_bytes, put_opt, put_u64, Cached, Reader};
use std::path::{Path, PathBuf};

/// Where a record came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Source {
    Assistant,
    Usage,
    Compaction,
    BranchSummary,
}

/// One counted usage object, compact (88 bytes): its names are indices
/// into its file's `names`, its entry id a span of the file's `ids`, its
/// tokens whole numbers (or, when one is not, an index into the file's
/// `wide`); [`FileUsage`] gives each part back.
#[derive(Clone, Debug)]
pub(crate) struct Record {
    pub time_ms: f64,
    /// The cost's input, output, cache read, cache write and total.
    costs: [f64; 5],
    /// input, output, cacheRead, cacheWrite, totalTokens; with `wide`,
    /// `tokens[0]` is their index in the file's `wide`.
    tokens: [u32; 5],
    /// (start, length) in the file's `ids`.
    id: (u32, u32),
    model: u32,
    provider: u32,
    pub source: Source,
    wide: bool,
}

/// What one file gave.
#[derive(Debug, Default)]
pub(crate) struct FileUsage {
    pub path: PathBuf,
    pub session_id: String,
    pub cwd: String,
    pub header_time: String,
    pub parent_session: Option<String>,
    /// Its header says `importedFrom` (pi-import's): not pi's own usage.
    pub imported: bool,
    pub records: Vec<Record>,
    /// The model and provider names of the records, each once.
    names: Vec<String>,
    /// The records' entry ids, one after the other.
    ids: String,
    /// The tokens of the records whose tokens are not all whole numbers
    /// below 2³².
    wide: Vec<[f64; 5]>,
    /// The warnings reading the file gave (line, message), in line order:
    /// said once the files are read, in file order (again when the file
    /// comes from the cache).
    pub warnings: Vec<(u64, String)>,
    /// (id, parentId) of every entry, in file order (only for --by branch).
    pub tree: Vec<(String, Option<String>)>,
    /// What names each branch (only for --by branch and --leaf).
    pub tree_text: super::branch::TreeText,
}

impl FileUsage {
    /// The record's model.
    pub(crate) fn model(&self, r: &Record) -> &str {
        self.name(r.model)
    }

    /// The record's provider.
    pub(crate) fn provider(&self, r: &Record) -> &str {
        self.name(r.provider)
    }

    fn name(&self, i: u32) -> &str {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.names.get(i))
            .map_or("", String::as_str)
    }

    /// The record's entry id ("" when it has none).
    pub(crate) fn id(&self, r: &Record) -> &str {
        let (start, len) = (r.id.0 as usize, r.id.1 as usize);
        self.ids.get(start..start + len).unwrap_or_default()
    }

    /// Feed what the record counts to `h` (not its id): the same for a
    /// fork's copy of it, whatever the files' name tables.
    pub(crate) fn digest(&self, r: &Record, h: &mut impl std::hash::Hasher) {
        h.write_u64(r.time_ms.to_bits());
        h.write(self.model(r).as_bytes());
        h.write_u8(0xff);
        h.write(self.provider(r).as_bytes());
        h.write_u8(0xff);
        h.write_u8(r.source as u8);
        let tokens = match r.wide {
            true => self
                .wide
                .get(r.tokens[0] as usize)
                .copied()
                .unwrap_or_default(),
            false => r.tokens.map(f64::from),
        };
        for x in tokens.iter().chain(&r.costs) {
            h.write_u64(x.to_bits());
        }
    }

    /// The record's model, as an index into its file's names.
    pub(crate) fn model_no(&self, r: &Record) -> u32 {
        r.model
    }

    /// Add the record's numbers to `s`.
    pub(super) fn sum_into(&self, r: &Record, s: &mut Sums) {
        if r.wide {
            s.add_odd(
                self.wide
                    .get(r.tokens[0] as usize)
                    .copied()
                    .unwrap_or_default(),
            );
        } else {
            s.add_whole(r.tokens);
        }
        s.add_costs(r.costs);
    }

    /// The record's numbers.
    #[cfg(test)]
    pub(crate) fn amounts(&self, r: &Record) -> Amounts {
        let t = if r.wide {
            self.wide
                .get(r.tokens[0] as usize)
                .copied()
                .unwrap_or_default()
        } else {
            r.tokens.map(f64::from)
        };
        let c = r.costs;
        Amounts {
            input: t[0],
            output: t[1],
            cache_read: t[2],
            cache_write: t[3],
            total_tokens: t[4],
            cost_input: c[0],
            cost_output: c[1],
            cost_cache_read: c[2],
            cost_cache_write: c[3],
            cost: c[4],
        }
    }

    /// Add a record (after the file's others: records are in line order).
    /// An id past 4 GiB of ids is not kept (the record then counts as one
    /// without an id).
    pub(crate) fn push(
        &mut self,
        time_ms: f64,
        a: &Amounts,
        id: &str,
        model: &str,
        provider: &str,
        source: Source,
    ) {
        let t = [
            a.input,
            a.output,
            a.cache_read,
            a.cache_write,
            a.total_tokens,
        ];
        // whole numbers below 2³² (not -0) are kept as u32, exactly
        let whole = t.iter().all(|&x| {
            x >= 0.0
                && x <= f64::from(u32::MAX)
                && x.fract() == 0.0
                && x.to_bits() != (-0.0f64).to_bits()
        });
        let (tokens, wide) = match (whole, u32::try_from(self.wide.len())) {
            (true, _) => (t.map(|x| x as u32), false),
            (false, Ok(i)) => {
                self.wide.push(t);
                ([i, 0, 0, 0, 0], true)
            }
            // (4G records with odd tokens in one file: cannot happen in
            // memory; counted as 0)
            (false, Err(_)) => ([0; 5], false),
        };
        let id = match (u32::try_from(self.ids.len()), u32::try_from(id.len())) {
            (Ok(s), Ok(l)) if s.checked_add(l).is_some() => {
                self.ids.push_str(id);
                (s, l)
            }
            _ => (0, 0),
        };
        let model = self.intern(model);
        let provider = self.intern(provider);
        self.records.push(Record {
            time_ms,
            costs: [
                a.cost_input,
                a.cost_output,
                a.cost_cache_read,
                a.cost_cache_write,
                a.cost,
            ],
            tokens,
            id,
            model,
            provider,
            source,
            wide,
        });
    }

    /// Give back what room the records' vectors have to spare.
    pub(crate) fn shrink(&mut self) {
        self.records.shrink_to_fit();
        self.ids.shrink_to_fit();
        self.wide.shrink_to_fit();
    }

    /// The index of `name` in `names`, added when new (the few names of
    /// one file: a look along them).
    fn intern(&mut self, name: &str) -> u32 {
        let i = match self.names.iter().position(|n| n == name) {
            Some(i) => i,
            None => {
                self.names.push(name.to_string());
                self.names.len() - 1
            }
        };
        u32::try_from(i).unwrap_or(u32::MAX)
    }

    /// Say the warnings reading the file gave.
    pub(crate) fn say_warnings(&self, log: Log) {
        let name = crate::name::kept_path(&self.path);
        for (line, what) in &self.warnings {
            log.warn(&Diagnostic::new(&name, Some(*line), what.as_str()));
        }
    }
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

fn string(r: &mut Reader<'_>) -> Option<String> {
    String::from_utf8(r.bytes()?.to_vec()).ok()
}

fn pair(lo: u32, hi: u32) -> u64 {
    u64::from(lo) | u64::from(hi) << 32
}

fn halves(w: u64) -> (u32, u32) {
    (w as u32, (w >> 32) as u32)
}

/// A record in the cache: eleven numbers.
const RECORD_BYTES: usize = 88;

// Per file: the header's fields, the names, the ids, the wide tokens, then
// each record as it is held (time, the five costs, the tokens and the id's
// length two to a number, the names, the source), then the warnings
// (line, message).
impl Cached for FileUsage {
    const KIND: &'static str = "usage";
    // 3: timestamps null, 0, true and false give no time (issue 31)
    // 4: whether the session is imported (pi-import, issue 34)
    const VERSION: u32 = 4;

    fn encode(&self, out: &mut Vec<u8>) {
        put_bytes(out, self.session_id.as_bytes());
        put_bytes(out, self.cwd.as_bytes());
        put_bytes(out, self.header_time.as_bytes());
        put_opt(out, self.parent_session.as_deref().map(str::as_bytes));
        put_u64(out, u64::from(self.imported));
        put_u64(out, self.names.len() as u64);
        for n in &self.names {
            put_bytes(out, n.as_bytes());
        }
        put_bytes(out, self.ids.as_bytes());
        put_u64(out, self.wide.len() as u64);
        for x in self.wide.iter().flatten() {
            put_u64(out, x.to_bits());
        }
        put_u64(out, self.records.len() as u64);
        for r in &self.records {
            put_u64(out, r.time_ms.to_bits());
            for c in r.costs {
                put_u64(out, c.to_bits());
            }
            let t = r.tokens;
            put_u64(out, pair(t[0], t[1]));
            put_u64(out, pair(t[2], t[3]));
            put_u64(out, pair(t[4], r.id.1));
            put_u64(out, pair(r.model, r.provider));
            put_u64(out, source_no(r.source) | u64::from(r.wide) << 8);
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
            imported: false,
            ..FileUsage::default()
        };
        fu.imported = r.u64()? == 1;
        let n = r.u64()?;
        for _ in 0..n {
            fu.names.push(string(r)?);
        }
        fu.ids = string(r)?;
        let n = r.u64()?;
        for _ in 0..n {
            let mut t = [0f64; 5];
            for x in &mut t {
                *x = f64::from_bits(r.u64()?);
            }
            fu.wide.push(t);
        }
        let n = r.u64()?;
        // no more room than the bytes left can fill
        let room = usize::try_from(n)
            .unwrap_or(usize::MAX)
            .min(r.left() / RECORD_BYTES);
        fu.records = Vec::with_capacity(room);
        let mut at = 0u32;
        for _ in 0..n {
            let time_ms = f64::from_bits(r.u64()?);
            let mut costs = [0f64; 5];
            for c in &mut costs {
                *c = f64::from_bits(r.u64()?);
            }
            let (t0, t1) = halves(r.u64()?);
            let (t2, t3) = halves(r.u64()?);
            let (t4, id_len) = halves(r.u64()?);
            let (model, provider) = halves(r.u64()?);
            let w = r.u64()?;
            let wide = match w >> 8 {
                0 => false,
                1 => true,
                _ => return None,
            };
            let names = fu.names.len();
            if (wide && t0 as usize >= fu.wide.len())
                || model as usize >= names
                || provider as usize >= names
            {
                return None;
            }
            fu.records.push(Record {
                time_ms,
                costs,
                tokens: [t0, t1, t2, t3, t4],
                id: (at, id_len),
                model,
                provider,
                source: source_of(w & 0xff)?,
                wide,
            });
            at = at.checked_add(id_len)?;
        }
        if at as usize != fu.ids.len() {
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

/// What the dedupe needs of a file's header.
#[derive(Debug, Clone, Default)]
pub(crate) struct Head {
    pub path: std::path::PathBuf,
    pub session_id: String,
    pub parent_session: Option<String>,
}

impl Head {
    pub(super) fn of(f: &FileUsage) -> Head {
        Head {
            path: f.path.clone(),
            session_id: f.session_id.clone(),
            parent_session: f.parent_session.clone(),
        }
    }
}

/// The header fields of a file's cache entry (the rest of it is skipped
/// by the cache's frame).
pub(super) fn decode_head(path: &Path, r: &mut Reader<'_>) -> Option<Head> {
    let session_id = string(r)?;
    r.bytes()?;
    r.bytes()?;
    let parent_session = match r.opt()? {
        Some(b) => Some(String::from_utf8(b.to_vec()).ok()?),
        None => None,
    };
    Some(Head {
        path: path.to_path_buf(),
        session_id,
        parent_session,
    })
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
            warnings: vec![(3, "usage.input is missing".into())],
            ..FileUsage::default()
        };
        let plain = Amounts {
            input: 7.0,
            output: 4_000_000_000.0,
            cost: 0.1,
            cost_cache_write: -0.5,
            ..Amounts::default()
        };
        let odd = Amounts {
            input: -1.0,
            cache_read: 1.5,
            total_tokens: 1e300,
            cost: f64::NAN,
            ..Amounts::default()
        };
        fu.push(f64::NAN, &plain, "id1", "m", "prov", Source::Compaction);
        fu.push(1.5e12, &odd, "é2", "m2", "prov", Source::Usage);
        fu.push(1.5e12, &plain, "", "m2", "m", Source::Assistant);
        let mut out = Vec::new();
        fu.encode(&mut out);
        let back = FileUsage::decode(Path::new("/s/a.jsonl"), &mut Reader::new(&out)).unwrap();
        let mut again = Vec::new();
        back.encode(&mut again);
        assert_eq!(out, again);
        let r = &back.records;
        assert_eq!(
            [back.id(&r[0]), back.id(&r[1]), back.id(&r[2])],
            ["id1", "é2", ""]
        );
        assert_eq!(
            [
                back.model(&r[1]),
                back.provider(&r[1]),
                back.provider(&r[2])
            ],
            ["m2", "prov", "m"]
        );
        assert_eq!(back.amounts(&r[0]), plain);
        let b = back.amounts(&r[1]);
        assert_eq!((b.input, b.cache_read, b.total_tokens), (-1.0, 1.5, 1e300));
        assert!(b.cost.is_nan());
        assert!(!r[0].wide && r[1].wide);
        assert_eq!(back.warnings, fu.warnings);
        for n in 0..out.len() {
            let _ = FileUsage::decode(Path::new("x"), &mut Reader::new(&out[..n]));
            let mut bad = out.clone();
            bad[n] ^= 0xff;
            if let Some(b) = FileUsage::decode(Path::new("x"), &mut Reader::new(&bad)) {
                for r in &b.records {
                    let _ = (b.id(r), b.model(r), b.provider(r), b.amounts(r));
                }
            }
        }
    }
}
