//! The rows of a report: records grouped by day, week or month (local days
//! in a time zone, `--since`/`--until` bounds), by session or project, then
//! by model or provider; or, for one session, by branch (a row per leaf).

use super::scan::{Amounts, FileUsage, Record, Source};
use super::{By, Report, Request};
use crate::error::{Error, Result};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

/// A `--since`/`--until` value as (first day, last day), "YYYY-MM-DD".
pub(crate) fn parse_date_bound(s: &str) -> Option<(String, String)> {
    let d: Vec<char> = s.chars().collect();
    let digits = |r: &[char]| r.iter().all(|c| c.is_ascii_digit());
    let (y, m, day) = match d.len() {
        10 if d[4] == '-'
            && d[7] == '-'
            && digits(&d[0..4])
            && digits(&d[5..7])
            && digits(&d[8..10]) =>
        {
            (&s[0..4], &s[5..7], Some(&s[8..10]))
        }
        8 if digits(&d) => (&s[0..4], &s[4..6], Some(&s[6..8])),
        7 if d[4] == '-' && digits(&d[0..4]) && digits(&d[5..7]) => (&s[0..4], &s[5..7], None),
        6 if digits(&d) => (&s[0..4], &s[4..6], None),
        _ => return None,
    };
    let yi: i16 = y.parse().ok()?;
    let mi: i8 = m.parse().ok()?;
    match day {
        Some(dd) => {
            let di: i8 = dd.parse().ok()?;
            let date = jiff::civil::Date::new(yi, mi, di).ok()?;
            let t = date.strftime("%Y-%m-%d").to_string();
            Some((t.clone(), t))
        }
        None => {
            let first = jiff::civil::Date::new(yi, mi, 1).ok()?;
            let last = first.last_of_month();
            Some((
                first.strftime("%Y-%m-%d").to_string(),
                last.strftime("%Y-%m-%d").to_string(),
            ))
        }
    }
}

/// The time zone: an IANA name, or the system's.
pub(crate) fn time_zone(name: Option<&str>) -> Result<jiff::tz::TimeZone> {
    match name {
        Some(n) => jiff::tz::TimeZone::get(n).map_err(|e| {
            Error::usage(format!(
                "--timezone {n}: not a time zone in the tz database ({e})"
            ))
        }),
        None => Ok(jiff::tz::TimeZone::try_system().unwrap_or(jiff::tz::TimeZone::UTC)),
    }
}

fn local_date(ms: f64, tz: &jiff::tz::TimeZone) -> Option<jiff::civil::Date> {
    if !ms.is_finite() {
        return None;
    }
    let ts = jiff::Timestamp::from_millisecond(ms as i64).ok()?;
    Some(ts.to_zoned(tz.clone()).date())
}

/// [`local_date`] for times that come day by day: the last day's bounds
/// (milliseconds, from its first instant to the next day's) are kept.
#[derive(Default)]
pub(super) struct DayCache {
    day: Option<(f64, f64, jiff::civil::Date)>,
}

impl DayCache {
    pub(super) fn date(&mut self, ms: f64, tz: &jiff::tz::TimeZone) -> Option<jiff::civil::Date> {
        if let Some((lo, hi, d)) = self.day {
            // (at or after 1970 a time's whole milliseconds are its floor)
            if ms >= 0.0 && ms >= lo && ms < hi {
                return Some(d);
            }
        }
        let d = local_date(ms, tz)?;
        let start = |d: jiff::civil::Date| -> Option<f64> {
            let z = d.to_zoned(tz.clone()).ok()?.start_of_day().ok()?;
            Some(z.timestamp().as_millisecond() as f64)
        };
        self.day = match (start(d), d.tomorrow().ok().and_then(start)) {
            (Some(lo), Some(hi)) if ms >= lo && ms < hi => Some((lo, hi, d)),
            _ => None,
        };
        Some(d)
    }
}

/// The sums of a row.
#[derive(Debug, Default, Clone)]
pub(super) struct Group {
    pub(super) amounts: Amounts,
    pub(super) models: BTreeSet<String>,
    /// records of each source (by `Source as usize`)
    sources: [u64; 4],
    pub(super) first_ms: f64,
    pub(super) last_ms: f64,
    /// session rows: header fields
    pub(super) meta: Vec<(&'static str, String)>,
    /// --by branch: the cost of the entries on no earlier leaf's path
    pub(super) own: Option<Amounts>,
    n: u64,
    /// the last model counted, by its address and length (in its file's
    /// names, which outlive the group)
    last_model: Option<(usize, usize)>,
}

impl Group {
    /// How many records of `s` were counted.
    pub(super) fn count(&self, s: Source) -> u64 {
        self.sources[s as usize]
    }

    /// Count `r`, a record of `f`.
    pub(super) fn add(&mut self, f: &FileUsage, r: &Record) {
        let model = f.model(r);
        // (a run of records mostly has one model: the last one is known)
        let same = self
            .last_model
            .is_some_and(|(p, n)| p == model.as_ptr() as usize && n == model.len());
        if !same {
            if !self.models.contains(model) {
                self.models.insert(model.to_string());
            }
            self.last_model = Some((model.as_ptr() as usize, model.len()));
        }
        if self.n == 0 {
            self.first_ms = r.time_ms;
            self.last_ms = r.time_ms;
        }
        self.n += 1;
        self.amounts.add(&f.amounts(r));
        self.sources[r.source as usize] += 1;
        if r.time_ms < self.first_ms {
            self.first_ms = r.time_ms;
        }
        if r.time_ms > self.last_ms {
            self.last_ms = r.time_ms;
        }
    }
}

/// A record to count: its file (an index), its place in the order the
/// files' records were taken (file, then line), its local day.
#[derive(Clone, Copy)]
pub(super) struct Rec<'a> {
    /// the record's time (here for the sort, which reads it most)
    pub(super) time_ms: f64,
    pub(super) fi: u32,
    pub(super) at: u32,
    pub(super) r: &'a Record,
    pub(super) date: Option<jiff::civil::Date>,
}

/// A row of the report: its key (the columns that name it) and its sums.
pub(super) struct Row {
    pub(super) key: Vec<(&'static str, String)>,
    pub(super) group: Group,
}

fn encoded_dir(p: &Path) -> String {
    p.parent()
        .and_then(|d| d.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn period_key(report: Report, date: Option<jiff::civil::Date>) -> (&'static str, String) {
    let Some(d) = date else {
        return (
            match report {
                Report::Daily => "date",
                Report::Weekly => "week",
                _ => "month",
            },
            "unknown".into(),
        );
    };
    match report {
        Report::Weekly => {
            let back = d.weekday().to_monday_zero_offset() as i64;
            let monday = d.checked_sub(jiff::Span::new().days(back)).unwrap_or(d);
            ("week", monday.strftime("%Y-%m-%d").to_string())
        }
        Report::Monthly => ("month", d.strftime("%Y-%m").to_string()),
        _ => ("date", d.strftime("%Y-%m-%d").to_string()),
    }
}

pub(super) fn group_rows(req: &Request, files: &[FileUsage], recs: &[Rec<'_>]) -> Vec<Row> {
    type Key = Vec<(&'static str, String)>;
    // Groups in the order they are first seen (session rows are ordered by
    // first activity, others by key); consecutive records mostly share one.
    let mut groups: Vec<(Key, Group)> = Vec::new();
    let mut index: HashMap<Key, usize> = HashMap::new();
    let mut last: Option<(usize, Option<jiff::civil::Date>, usize)> = None;
    for &Rec { fi, r, date, .. } in recs {
        let fi = fi as usize;
        let f = &files[fi];
        if let Some((lfi, ldate, gi)) = last {
            let same = match req.report {
                Report::Session | Report::Project => lfi == fi,
                _ => ldate == date,
            } && match req.by {
                Some(By::Model) => groups[gi].0.last().is_some_and(|k| k.1 == f.model(r)),
                Some(By::Provider) => groups[gi].0.last().is_some_and(|k| k.1 == f.provider(r)),
                _ => true,
            };
            if same {
                groups[gi].1.add(f, r);
                continue;
            }
        }
        let mut key = match req.report {
            Report::Session => vec![
                ("sessionId", f.session_id.clone()),
                ("file", f.path.to_string_lossy().into_owned()),
            ],
            Report::Project => vec![(
                "project",
                if f.cwd.is_empty() {
                    encoded_dir(&f.path)
                } else {
                    f.cwd.clone()
                },
            )],
            rep => vec![period_key(rep, date)],
        };
        match req.by {
            Some(By::Model) => key.push(("model", f.model(r).to_string())),
            Some(By::Provider) => key.push(("provider", f.provider(r).to_string())),
            _ => {}
        }
        let gi = match index.get(&key) {
            Some(&gi) => gi,
            None => {
                index.insert(key.clone(), groups.len());
                groups.push((key, Group::default()));
                groups.len() - 1
            }
        };
        let g = &mut groups[gi].1;
        if g.n == 0 && req.report == Report::Session {
            g.meta = vec![
                ("projectPath", encoded_dir(&f.path)),
                ("cwd", f.cwd.clone()),
            ];
        }
        g.add(f, r);
        last = Some((fi, date, gi));
    }
    drop(index);
    // groups are in the order first seen; the others go by key
    if req.report != Report::Session {
        groups.sort_by(|a, b| a.0.cmp(&b.0));
    }
    let mut rows: Vec<Row> = groups
        .into_iter()
        .map(|(key, group)| Row { key, group })
        .collect();
    if req.report == Report::Session {
        // keep the --by rows of one session together
        let mut order: HashMap<String, usize> = HashMap::new();
        for (i, r) in rows.iter().enumerate() {
            order.entry(r.key[1].1.clone()).or_insert(i);
        }
        rows.sort_by_key(|r| order.get(&r.key[1].1).copied().unwrap_or(0));
    }
    rows
}

pub(super) fn branch_rows(f: &FileUsage, recs: &[Rec<'_>]) -> Vec<Row> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (i, (id, _)) in f.tree.iter().enumerate() {
        index.insert(id.as_str(), i);
    }
    let mut has_child = vec![false; f.tree.len()];
    for (id, parent) in &f.tree {
        if let Some(p) = parent.as_deref().and_then(|p| index.get(p)) {
            if f.tree[*p].0 != *id {
                has_child[*p] = true;
            }
        }
    }
    let mut by_id: HashMap<&str, Vec<&Record>> = HashMap::new();
    for &Rec { r, .. } in recs {
        by_id.entry(f.id(r)).or_default().push(r);
    }
    let mut claimed: HashSet<usize> = HashSet::new();
    let mut rows = Vec::new();
    for (leaf, _) in f.tree.iter().enumerate().filter(|(i, _)| !has_child[*i]) {
        // the path, leaf to root, without looping on a cycle
        let mut path = Vec::new();
        let mut seen = HashSet::new();
        let mut cur = Some(leaf);
        while let Some(i) = cur {
            if !seen.insert(i) {
                break;
            }
            path.push(i);
            cur = f.tree[i].1.as_deref().and_then(|p| index.get(p)).copied();
        }
        path.reverse();
        let mut g = Group::default();
        let mut own = Amounts::default();
        let mut list: Vec<&Record> = Vec::new();
        for &i in &path {
            if let Some(rs) = by_id.get(f.tree[i].0.as_str()) {
                let fresh = claimed.insert(i);
                for r in rs {
                    list.push(r);
                    if fresh {
                        own.add(&f.amounts(r));
                    }
                }
            }
        }
        for r in list {
            g.add(f, r);
        }
        g.own = Some(own);
        rows.push(Row {
            key: vec![("leaf", f.tree[leaf].0.clone())],
            group: g,
        });
    }
    rows
}
