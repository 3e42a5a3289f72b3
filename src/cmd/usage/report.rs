//! The rows of a report: records grouped by day, week or month (local days
//! in a time zone, `--since`/`--until` bounds), by session or project, then
//! by model or provider; or, for one session, by branch (a row per leaf).

use super::record::{FileUsage, Record, Source};
use super::sum::{Amounts, Sums};
use super::{By, Report, Request};
use crate::error::{Error, Result};
use std::collections::HashMap;
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
        None => Ok(crate::time::system_zone()),
    }
}

/// A local day anywhere in JavaScript's range of dates (±275 760 years):
/// a date jiff holds (±9 999 years) and the years added to it, a multiple
/// of 400 (400 Gregorian years are 20 871 weeks: months, leap days and
/// weekdays repeat), so that a far but valid time is counted on its day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Day {
    date: jiff::civil::Date,
    shift: i64,
}

/// 400 years, in milliseconds.
const ERA_MS: i64 = 146_097 * 86_400_000;

impl Day {
    fn year(&self) -> i64 {
        i64::from(self.date.year()) + self.shift
    }

    fn order(&self) -> (i64, i8, i8) {
        (self.year(), self.date.month(), self.date.day())
    }

    /// "YYYY-MM-DD" as JavaScript's toISOString writes a date (a year
    /// past 9999 or before 0 as +YYYYYY or -YYYYYY).
    pub(super) fn text(&self) -> String {
        format!("{}-{:02}", self.month_text(), self.date.day())
    }

    fn month_text(&self) -> String {
        let year = crate::time::iso_year(self.year());
        format!("{year}-{:02}", self.date.month())
    }

    /// The Monday of its week.
    fn monday(&self) -> Day {
        let back = i64::from(self.date.weekday().to_monday_zero_offset());
        Day {
            date: self
                .date
                .checked_sub(jiff::Span::new().days(back))
                .unwrap_or(self.date),
            shift: self.shift,
        }
    }

    /// A `--since`/`--until` day: YYYY-MM-DD, the year with a sign and
    /// more digits too.
    pub(super) fn parse(s: &str) -> Option<Day> {
        let (neg, body) = match s.as_bytes().first()? {
            b'-' => (true, &s[1..]),
            b'+' => (false, &s[1..]),
            _ => (false, s),
        };
        let mut parts = body.splitn(3, '-');
        let y: i64 = parts.next()?.parse().ok()?;
        let m: i8 = parts.next()?.parse().ok()?;
        let d: i8 = parts.next()?.parse().ok()?;
        let y = if neg { -y } else { y };
        let shift = if (-9999..=9999).contains(&y) {
            0
        } else {
            (y - 2000).div_euclid(400) * 400
        };
        let date = jiff::civil::Date::new(i16::try_from(y - shift).ok()?, m, d).ok()?;
        Some(Day { date, shift })
    }
}

impl PartialOrd for Day {
    fn partial_cmp(&self, o: &Day) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Day {
    fn cmp(&self, o: &Day) -> std::cmp::Ordering {
        self.order().cmp(&o.order())
    }
}

/// The local day of `ms` in `tz`. A time jiff cannot hold (beyond ±9 999
/// years) is moved by whole 400-year eras to years 9000-9399 (or
/// -9400 to -9001), where the zone's rules of that end of time apply, and
/// its day moved back.
fn local_date(ms: f64, tz: &jiff::tz::TimeZone) -> Option<Day> {
    if !ms.is_finite() {
        return None;
    }
    let ms = ms as i64;
    if let Ok(ts) = jiff::Timestamp::from_millisecond(ms) {
        let date = ts.to_zoned(tz.clone()).date();
        return Some(Day { date, shift: 0 });
    }
    let base = |y: i16| -> Option<i64> {
        let z = jiff::civil::date(y, 1, 1)
            .to_zoned(jiff::tz::TimeZone::UTC)
            .ok()?;
        Some(z.timestamp().as_millisecond())
    };
    let from = if ms > 0 { base(9000)? } else { base(-9400)? };
    let eras = (ms - from).div_euclid(ERA_MS);
    let ts = jiff::Timestamp::from_millisecond(ms - eras * ERA_MS).ok()?;
    let date = ts.to_zoned(tz.clone()).date();
    Some(Day {
        date,
        shift: eras * 400,
    })
}

/// [`local_date`] for times that come day by day: the last day's bounds
/// (milliseconds, from its first instant to the next day's) are kept.
#[derive(Default)]
pub(super) struct DayCache {
    day: Option<(f64, f64, jiff::civil::Date)>,
}

impl DayCache {
    pub(super) fn date(&mut self, ms: f64, tz: &jiff::tz::TimeZone) -> Option<Day> {
        if let Some((lo, hi, date)) = self.day {
            // (at or after 1970 a time's whole milliseconds are its floor)
            if ms >= 0.0 && ms >= lo && ms < hi {
                return Some(Day { date, shift: 0 });
            }
        }
        let d = local_date(ms, tz)?;
        if d.shift != 0 {
            return Some(d);
        }
        let start = |d: jiff::civil::Date| -> Option<f64> {
            let z = d.to_zoned(tz.clone()).ok()?.start_of_day().ok()?;
            Some(z.timestamp().as_millisecond() as f64)
        };
        self.day = match (start(d.date), d.date.tomorrow().ok().and_then(start)) {
            (Some(lo), Some(hi)) if ms >= lo && ms < hi => Some((lo, hi, d.date)),
            _ => None,
        };
        Some(d)
    }
}

/// The sums of a row.
#[derive(Debug, Default, Clone)]
pub(super) struct Group {
    /// the totals (once [`Group::finish`]ed)
    pub(super) amounts: Amounts,
    /// the sums of each model, in the order first counted (the row's
    /// sums are theirs: each record is added once)
    models: Vec<(String, Sums)>,
    /// each model's totals, most costly first (once finished): ccusage's
    /// modelBreakdowns
    pub(super) breakdowns: Vec<(String, Amounts)>,
    /// records of each source (by `Source as usize`)
    sources: [u64; 4],
    pub(super) first_ms: f64,
    pub(super) last_ms: f64,
    /// session rows: header fields
    pub(super) meta: Vec<(&'static str, String)>,
    /// --by branch: the cost of the entries on no earlier leaf's path
    pub(super) own: Option<Amounts>,
    n: u64,
    /// the last model counted: (file, index in its names), and its place
    /// in `models`
    last_model: Option<((u32, u32), usize)>,
    /// the first record in time order (then file, then line): (time, file,
    /// record), where the row's session rows go
    first: (f64, u32, u32),
}

/// Whether (time, file, record) `a` comes before `b` (a time that is no
/// number after every other).
fn before(a: (f64, u32, u32), b: (f64, u32, u32)) -> bool {
    use std::cmp::Ordering;
    let t = match (a.0.is_nan(), b.0.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.0.partial_cmp(&b.0).unwrap_or(Ordering::Equal),
    };
    t.then((a.1, a.2).cmp(&(b.1, b.2))) == Ordering::Less
}

impl Group {
    /// How many records of `s` were counted.
    pub(super) fn count(&self, s: Source) -> u64 {
        self.sources[s as usize]
    }

    /// Count `r`, record `k` of file `fi`, `f`.
    pub(super) fn add(&mut self, fi: u32, k: u32, f: &FileUsage, r: &Record) {
        #[cfg(test)]
        tests::ADDS.with(|n| n.set(n.get() + 1));
        let model = (fi, f.model_no(r));
        // (a run of records mostly has one model: the last one is known)
        let m = match self.last_model {
            Some((last, m)) if last == model => m,
            _ => {
                let m = self.model_at(f.model(r));
                self.last_model = Some((model, m));
                m
            }
        };
        let at = (r.time_ms, fi, k);
        if self.n == 0 {
            self.first_ms = r.time_ms;
            self.last_ms = r.time_ms;
            self.first = at;
        } else if before(at, self.first) {
            self.first = at;
        }
        self.n += 1;
        f.sum_into(r, &mut self.models[m].1);
        self.sources[r.source as usize] += 1;
        self.times(r.time_ms, r.time_ms);
    }

    /// Widen the first and last times to `lo`, `hi` (a time that is no
    /// number only when there is no other).
    fn times(&mut self, lo: f64, hi: f64) {
        if lo < self.first_ms || self.first_ms.is_nan() {
            self.first_ms = lo;
        }
        if hi > self.last_ms || self.last_ms.is_nan() {
            self.last_ms = hi;
        }
    }

    /// Add what another row counted.
    fn merge(&mut self, o: &Group) {
        if o.n == 0 {
            return;
        }
        if self.n == 0 {
            (self.first_ms, self.last_ms, self.first) = (o.first_ms, o.last_ms, o.first);
        } else {
            self.times(o.first_ms, o.last_ms);
        }
        self.n += o.n;
        for (name, sums) in &o.models {
            let m = self.model_at(name);
            self.models[m].1.merge(sums);
        }
        for (s, c) in self.sources.iter_mut().zip(o.sources) {
            *s += c;
        }
    }

    /// The place of model `name` in `models` (added when new: a row has
    /// few models).
    fn model_at(&mut self, name: &str) -> usize {
        match self.models.iter().position(|(n, _)| n == name) {
            Some(m) => m,
            None => {
                self.models.push((name.to_string(), Sums::default()));
                self.models.len() - 1
            }
        }
    }

    /// The names of the models counted, sorted.
    pub(super) fn model_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.models.iter().map(|(n, _)| n.as_str()).collect();
        names.sort_unstable();
        names
    }

    /// Work out the totals: the row's (its models' sums together) and
    /// each model's, most costly first (then by name).
    pub(super) fn finish(&mut self) {
        let mut all = Sums::default();
        for (_, s) in &self.models {
            all.merge(s);
        }
        self.amounts = all.amounts();
        let mut b: Vec<(String, Amounts)> = self
            .models
            .iter()
            .map(|(n, s)| (n.clone(), s.amounts()))
            .collect();
        b.sort_by(|x, y| y.1.cost.total_cmp(&x.1.cost).then_with(|| x.0.cmp(&y.0)));
        self.breakdowns = b;
    }
}

/// A row of the report: its key (the columns that name it) and its sums.
pub(super) struct Row {
    pub(super) key: Vec<(&'static str, String)>,
    pub(super) group: Group,
}

type Key = Vec<(&'static str, String)>;

/// The rows of a report, filled a file at a time (each record folded into
/// its row's sums as it comes: the sums do not depend on the order).
pub(super) struct Rows<'q> {
    req: &'q Request,
    tz: jiff::tz::TimeZone,
    since: Option<Day>,
    until: Option<Day>,
    days: DayCache,
    /// the last day's verdict (a file's records come day by day)
    last_day: Option<(Day, bool)>,
    groups: Vec<(Key, Group)>,
    index: HashMap<Key, usize>,
}

impl<'q> Rows<'q> {
    pub(super) fn new(
        req: &'q Request,
        tz: jiff::tz::TimeZone,
        since: Option<String>,
        until: Option<String>,
    ) -> Rows<'q> {
        Rows {
            req,
            tz,
            since: since.as_deref().and_then(Day::parse),
            until: until.as_deref().and_then(Day::parse),
            days: DayCache::default(),
            last_day: None,
            groups: Vec::new(),
            index: HashMap::new(),
        }
    }

    /// The record's local day (None: no day), or None when `--since` /
    /// `--until` leave it out.
    pub(super) fn day(&mut self, r: &Record) -> Option<Option<Day>> {
        let date = self.days.date(r.time_ms, &self.tz);
        if self.since.is_none() && self.until.is_none() {
            return Some(date);
        }
        let d = date?;
        let ok = match self.last_day {
            Some((l, ok)) if l == d => ok,
            _ => {
                let ok = !(self.since.is_some_and(|s| d < s) || self.until.is_some_and(|u| d > u));
                self.last_day = Some((d, ok));
                ok
            }
        };
        ok.then_some(Some(d))
    }

    /// Fold the records of `f`, file `fi` (in path order).
    pub(super) fn add_file(&mut self, fi: u32, f: &FileUsage) {
        let req = self.req;
        // the last record's day and row (consecutive records mostly share one)
        let mut last: Option<(Option<Day>, usize)> = None;
        for (k, r) in f.records.iter().enumerate() {
            let Some(date) = self.day(r) else { continue };
            // (as many records as fit in memory: far below 2³²)
            let k = u32::try_from(k).unwrap_or(u32::MAX);
            if let Some((ldate, gi)) = last {
                let same = match req.report {
                    Report::Session | Report::Project => true,
                    _ => ldate == date,
                } && match req.by {
                    Some(By::Model) => self.groups[gi].0.last().is_some_and(|k| k.1 == f.model(r)),
                    Some(By::Provider) => self.groups[gi]
                        .0
                        .last()
                        .is_some_and(|k| k.1 == f.provider(r)),
                    _ => true,
                };
                if same {
                    self.groups[gi].1.add(fi, k, f, r);
                    continue;
                }
            }
            let mut key = match req.report {
                Report::Session => vec![
                    ("sessionId", f.session_id.clone()),
                    ("file", crate::name::kept_path(&f.path).into_owned()),
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
            let gi = match self.index.get(&key) {
                Some(&gi) => gi,
                None => {
                    self.index.insert(key.clone(), self.groups.len());
                    self.groups.push((key, Group::default()));
                    self.groups.len() - 1
                }
            };
            let g = &mut self.groups[gi].1;
            if g.n == 0 && req.report == Report::Session {
                g.meta = vec![
                    ("projectPath", encoded_dir(&f.path)),
                    ("cwd", f.cwd.clone()),
                ];
            }
            g.add(fi, k, f, r);
            last = Some((date, gi));
        }
    }

    /// The rows (session rows in the order of their first record, others by
    /// key) and the totals row.
    pub(super) fn finish(self) -> (Vec<Row>, Group) {
        let req = self.req;
        drop(self.index);
        let mut groups = self.groups;
        let mut total = Group::default();
        for (_, g) in &mut groups {
            total.merge(g);
            g.finish();
        }
        total.finish();
        if req.report == Report::Session {
            groups.sort_by(|a, b| {
                if before(a.1.first, b.1.first) {
                    std::cmp::Ordering::Less
                } else if before(b.1.first, a.1.first) {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Equal
                }
            });
        } else {
            groups.sort_by(|a, b| key_order(&a.0).cmp(&key_order(&b.0)));
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
        (rows, total)
    }
}

fn encoded_dir(p: &Path) -> String {
    p.parent()
        .and_then(|d| d.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn period_key(report: Report, date: Option<Day>) -> (&'static str, String) {
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
        Report::Weekly => ("week", d.monday().text()),
        Report::Monthly => ("month", d.month_text()),
        _ => ("date", d.text()),
    }
}

/// How a row's key sorts: days, weeks and months by their years as
/// numbers (`+010000` after `9999`, `-000500` before `0001`), "unknown"
/// last; other keys as text.
fn key_order(k: &Key) -> Vec<(u8, i64, &str)> {
    k.iter()
        .map(|(name, v)| match *name {
            "date" | "week" | "month" if v == "unknown" => (1, 0, v.as_str()),
            "date" | "week" | "month" => {
                let digits = v.len() - v.trim_start_matches(['+', '-']).len();
                let end = v[digits..].find('-').map_or(v.len(), |e| e + digits);
                let year: i64 = v[..end].trim_start_matches('+').parse().unwrap_or(0);
                (0, year, &v[end..])
            }
            _ => (0, 0, v.as_str()),
        })
        .collect()
}

/// A row per leaf of `f`'s tree (every entry no other names as parent, as
/// pi's leaves: a bookkeeping leaf too, named by the conversation above
/// it), with what its path cost (`recs`: the records counted) and its name
/// ([`super::branch::names`]), and the totals row; with `only`, the one row of
/// that entry's path, whose totals are its own. With `whole`, each row
/// also holds its label and last user message whole (for JSON: only its
/// rows print them, and a fan-out of many leaves below one long message
/// would hold a copy for each).
///
/// Linear in the entries: each entry's path sums are its parent's plus its
/// own records, worked out once per entry ([`path_groups`]), and a leaf's
/// own cost comes from the entries no earlier leaf claimed, found by walking
/// up from each leaf only as far as the first entry already claimed (whose
/// path is then claimed too). Walking each leaf's whole path cost leaves ×
/// depth: 22.9 s on a 20 000-entry comb.
pub(super) fn branch_rows(
    f: &FileUsage,
    recs: &[&Record],
    only: Option<usize>,
    whole: bool,
) -> (Vec<Row>, Group) {
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (i, (id, _)) in f.tree.iter().enumerate() {
        index.insert(id.as_str(), i);
    }
    let parent: Vec<Option<usize>> = f
        .tree
        .iter()
        .map(|(_, p)| p.as_deref().and_then(|p| index.get(p)).copied())
        .collect();
    let mut has_child = vec![false; f.tree.len()];
    for (i, p) in parent.iter().enumerate() {
        if let Some(p) = *p {
            if f.tree[p].0 != f.tree[i].0 {
                has_child[p] = true;
            }
        }
    }
    let mut by_id: HashMap<&str, Vec<&Record>> = HashMap::new();
    for &r in recs {
        by_id.entry(f.id(r)).or_default().push(r);
    }
    let own_recs: Vec<&[&Record]> = f
        .tree
        .iter()
        .map(|(id, _)| by_id.get(id.as_str()).map_or(&[][..], Vec::as_slice))
        .collect();
    let (cum, groups) = path_groups(f, &parent, &own_recs);
    let name = super::branch::names(&f.tree, &f.tree_text, &parent);
    let leaves: Vec<usize> = (0..f.tree.len()).filter(|&i| !has_child[i]).collect();
    let names: Vec<super::branch::Name> = leaves.iter().map(|&i| name(i)).collect();
    // how many leaves each label names
    let mut rows_of: HashMap<&str, usize> = HashMap::new();
    for l in names.iter().filter_map(|n| n.label) {
        *rows_of.entry(l).or_default() += 1;
    }
    let row = |leaf: usize, name: super::branch::Name, own: Option<Amounts>| {
        let mut g = cum[leaf].map(|k| groups[k].clone()).unwrap_or_default();
        g.finish();
        g.own = Some(own.unwrap_or(g.amounts));
        let shared = name
            .label
            .is_some_and(|l| rows_of.get(l).copied().unwrap_or(0) > 1);
        let key = vec![
            ("leaf", f.tree[leaf].0.clone()),
            ("branch", name.shown(shared)),
        ];
        if whole {
            g.meta = name.fields();
        }
        Row { key, group: g }
    };
    if let Some(t) = only {
        let one = row(t, name(t), None);
        let mut total = one.group.clone();
        total.meta.clear();
        return (vec![one], total);
    }
    let mut claimed = vec![false; f.tree.len()];
    let mut rows = Vec::new();
    for (leaf, name) in leaves.into_iter().zip(names) {
        let mut own = Sums::default();
        let mut cur = Some(leaf);
        while let Some(i) = cur {
            if claimed[i] {
                break;
            }
            claimed[i] = true;
            for r in own_recs[i] {
                f.sum_into(r, &mut own);
            }
            cur = parent[i];
        }
        rows.push(row(leaf, name, Some(own.amounts())));
    }
    let mut total = Group::default();
    for &r in recs {
        total.add(0, 0, f, r);
    }
    total.finish();
    total.own = Some(total.amounts);
    (rows, total)
}

/// The sums of every entry's path (from the entry up its parents to the
/// root, or to the first entry seen twice: a cycle's entries share the
/// cycle's sums), as an index into the groups made (None: no records on
/// the path). A group is made only for an entry with records of its own:
/// its parent's path group plus them; an entry without shares its
/// parent's. Each entry is visited once.
fn path_groups(
    f: &FileUsage,
    parent: &[Option<usize>],
    own: &[&[&Record]],
) -> (Vec<Option<usize>>, Vec<Group>) {
    const NEW: u8 = 0;
    const ON_STACK: u8 = 1;
    const DONE: u8 = 2;
    let n = parent.len();
    let mut state = vec![NEW; n];
    let mut cum: Vec<Option<usize>> = vec![None; n];
    let mut groups: Vec<Group> = Vec::new();
    let mut stack: Vec<usize> = Vec::new();
    for start in 0..n {
        if state[start] == DONE {
            continue;
        }
        // up the parents to an entry whose sums are known, the root, or a
        // cycle
        stack.clear();
        let mut cur = Some(start);
        while let Some(i) = cur {
            if state[i] == DONE {
                break;
            }
            if state[i] == ON_STACK {
                let at = stack.iter().rposition(|&j| j == i).unwrap_or(0);
                let mut g = Group::default();
                let mut any = false;
                for &j in &stack[at..] {
                    for r in own[j] {
                        g.add(0, 0, f, r);
                        any = true;
                    }
                }
                let k = any.then(|| {
                    groups.push(g);
                    groups.len() - 1
                });
                for &j in &stack[at..] {
                    cum[j] = k;
                    state[j] = DONE;
                }
                stack.truncate(at);
                break;
            }
            state[i] = ON_STACK;
            stack.push(i);
            cur = parent[i];
        }
        let mut above = cur.and_then(|i| cum[i]);
        for &i in stack.iter().rev() {
            if !own[i].is_empty() {
                let mut g = above.map(|k| groups[k].clone()).unwrap_or_default();
                for r in own[i] {
                    g.add(0, 0, f, r);
                }
                groups.push(g);
                above = Some(groups.len() - 1);
            }
            cum[i] = above;
            state[i] = DONE;
        }
    }
    (cum, groups)
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// Records added to groups on this thread.
        pub(super) static ADDS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// --by branch adds each record to a group once per entry whose path
    /// it starts (and once to the totals), not once per leaf below it: on
    /// a comb of 2 000 links, each with a leaf, 8 000 additions, where a
    /// walk of each leaf's path makes over 2 million. Each leaf's sums are
    /// right, a cycle's entries included.
    #[test]
    fn branch_rows_add_each_record_a_bounded_number_of_times() {
        let mut f = FileUsage::default();
        let n = 2000;
        let one = Amounts {
            cost: 1.0,
            ..Amounts::default()
        };
        for i in 0..n {
            let (c, l) = (format!("c{i}"), format!("l{i}"));
            let parent = (i > 0).then(|| format!("c{}", i - 1));
            f.tree.push((c.clone(), parent));
            f.tree.push((l.clone(), Some(c.clone())));
            f.push(1e12, &one, &c, "m", "p", Source::Assistant);
            f.push(1e12, &one, &l, "m", "p", Source::Assistant);
        }
        // a cycle x <-> y, with a leaf z below it
        for (id, parent) in [("x", "y"), ("y", "x"), ("z", "x")] {
            f.tree.push((id.into(), Some(parent.into())));
            f.push(1e12, &one, id, "m", "p", Source::Usage);
        }
        let recs: Vec<&Record> = f.records.iter().collect();
        ADDS.with(|a| a.set(0));
        let (rows, total) = branch_rows(&f, &recs, None, false);
        let adds = ADDS.with(|a| a.get());
        assert!(adds <= 2 * recs.len() as u64, "{adds} additions");
        assert_eq!(rows.len(), n + 1);
        for (i, r) in rows[..n].iter().enumerate() {
            assert_eq!(r.key[0].1, format!("l{i}"));
            assert_eq!(r.group.amounts.cost, (i + 2) as f64);
            assert_eq!(r.group.own.unwrap().cost, 2.0);
        }
        let z = &rows[n].group;
        assert_eq!((z.amounts.cost, z.own.unwrap().cost), (3.0, 3.0));
        assert_eq!(total.amounts.cost, (2 * n + 3) as f64);
    }
}
