//! The outputs of a report: a JSON document as ccusage's (the rows and
//! their totals, ccusage's field names), CSV with a header line, or a table
//! fitted to the terminal's width.

use super::record::Source;
use super::report::{Group, Row};
use super::sum::Amounts;
use super::{By, Report, Request};
use crate::cli::Out;
use crate::error::Result;
use crate::json::js;
use std::io::Write;

fn source_name(s: Source) -> &'static str {
    match s {
        Source::Assistant => "assistant",
        Source::Usage => "usage",
        Source::Compaction => "compaction",
        Source::BranchSummary => "branchSummary",
    }
}

fn iso(ms: f64) -> String {
    if ms.is_finite() {
        crate::time::iso_string(ms as i64)
    } else {
        String::new()
    }
}

/// The JSON document, as `ccusage pi --json` prints it: the rows under
/// the report's name (`daily`, `weekly`, `monthly`, `sessions`; here also
/// `projects` and `branches`) and their `totals`, with ccusage's field
/// names; pi-usage's own fields are additions.
pub(super) fn write_json(
    req: &Request,
    rows: &[Row],
    total: &Group,
    out: &mut impl Write,
) -> Result<()> {
    let name = match (req.by, req.report) {
        (Some(By::Branch), _) => "branches",
        (_, Report::Daily) => "daily",
        (_, Report::Weekly) => "weekly",
        (_, Report::Monthly) => "monthly",
        (_, Report::Session) => "sessions",
        (_, Report::Project) => "projects",
    };
    out.text(format_args!("{{\"{name}\":["))?;
    let times = req.report == Report::Session || req.by == Some(By::Branch);
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            out.bytes(b",")?;
        }
        let g = &row.group;
        let mut w = crate::json::ObjectWriter::new();
        for (k, v) in &row.key {
            match *k {
                // ripgrep's {"bytes":...} for a name that is not UTF-8
                "file" => w.raw(k, Some(&crate::name::json(v))),
                _ => w.str(k, v),
            };
        }
        for (k, v) in &g.meta {
            w.str(k, v);
        }
        if times {
            w.str("firstActivity", &iso(g.first_ms));
            w.str("lastActivity", &iso(g.last_ms));
        }
        group_fields(&mut w, g);
        out.bytes(&w.finish())?;
    }
    let mut t = crate::json::ObjectWriter::new();
    group_fields(&mut t, total);
    out.bytes(b"],\"totals\":")?;
    out.bytes(&t.finish())?;
    out.bytes(b"}\n")?;
    out.done()
}

/// A row's (or the totals') sums: ccusage's fields (inputTokens ...
/// totalCost, modelsUsed, modelBreakdowns) and pi-usage's (cost,
/// costBreakdown, ownCost, source).
fn group_fields(w: &mut crate::json::ObjectWriter, g: &Group) {
    let a = &finite(&g.amounts);
    tokens(w, a)
        .number("totalTokens", a.total_tokens)
        .number("totalCost", a.cost)
        .number("cost", a.cost);
    let mut c = crate::json::ObjectWriter::new();
    c.number("input", a.cost_input)
        .number("output", a.cost_output)
        .number("cacheRead", a.cost_cache_read)
        .number("cacheWrite", a.cost_cache_write);
    w.raw("costBreakdown", Some(&c.finish()));
    if let Some(own) = &g.own.as_ref().map(finite) {
        w.number("ownCost", own.cost)
            .number("ownTotalTokens", own.total_tokens);
    }
    let mut list = b"[".to_vec();
    for (j, m) in g.model_names().iter().enumerate() {
        if j > 0 {
            list.push(b',');
        }
        js::write_str(&mut list, m);
    }
    list.push(b']');
    w.raw("modelsUsed", Some(&list));
    let mut list = b"[".to_vec();
    for (j, (m, a)) in g.breakdowns.iter().enumerate() {
        if j > 0 {
            list.push(b',');
        }
        let a = &finite(a);
        let mut b = crate::json::ObjectWriter::new();
        b.str("modelName", m);
        tokens(&mut b, a).number("cost", a.cost);
        list.extend_from_slice(&b.finish());
    }
    list.push(b']');
    w.raw("modelBreakdowns", Some(&list));
    let mut s = crate::json::ObjectWriter::new();
    for src in [
        Source::Assistant,
        Source::Usage,
        Source::Compaction,
        Source::BranchSummary,
    ] {
        s.number(source_name(src), g.count(src) as f64);
    }
    w.raw("source", Some(&s.finish()));
}

/// The four token counts, with ccusage's names.
fn tokens<'w>(
    w: &'w mut crate::json::ObjectWriter,
    a: &Amounts,
) -> &'w mut crate::json::ObjectWriter {
    w.number("inputTokens", a.input)
        .number("outputTokens", a.output)
        .number("cacheCreationTokens", a.cache_write)
        .number("cacheReadTokens", a.cache_read)
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

pub(super) fn write_csv(req: &Request, rows: &[Row], out: &mut impl Write) -> Result<()> {
    let mut head: Vec<String> = match rows.first() {
        Some(r) => r.key.iter().map(|(k, _)| k.to_string()).collect(),
        None => vec![key_names(req).join(",")],
    };
    head.extend(
        [
            "inputTokens",
            "outputTokens",
            "cacheCreationTokens",
            "cacheReadTokens",
            "totalTokens",
            "cost",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    if req.breakdown {
        head.extend(
            ["costInput", "costOutput", "costCacheRead", "costCacheWrite"]
                .iter()
                .map(|s| s.to_string()),
        );
    }
    out.line(head.join(",").as_bytes())?;
    for row in rows {
        let a = &finite(&row.group.amounts);
        let mut f: Vec<String> = row.key.iter().map(|(_, v)| csv_field(v)).collect();
        for n in [
            a.input,
            a.output,
            a.cache_write,
            a.cache_read,
            a.total_tokens,
            a.cost,
        ] {
            f.push(js::number_to_js(n));
        }
        if req.breakdown {
            for n in [
                a.cost_input,
                a.cost_output,
                a.cost_cache_read,
                a.cost_cache_write,
            ] {
                f.push(js::number_to_js(n));
            }
        }
        // the file's bytes that are not UTF-8 as they are (crate::name)
        let cells: Vec<std::borrow::Cow<[u8]>> = f
            .iter()
            .enumerate()
            .map(|(i, c)| match row.key.get(i) {
                Some(("file", _)) => crate::name::bytes_of_kept(c),
                _ => std::borrow::Cow::Borrowed(c.as_bytes()),
            })
            .collect();
        out.line(&cells.join(&b","[..]))?;
    }
    out.done()
}

fn key_names(req: &Request) -> Vec<&'static str> {
    let mut k = match (req.by, req.report) {
        (Some(By::Branch), _) => vec!["leaf", "branch"],
        (_, Report::Daily) => vec!["date"],
        (_, Report::Weekly) => vec!["week"],
        (_, Report::Monthly) => vec!["month"],
        (_, Report::Session) => vec!["sessionId", "file"],
        (_, Report::Project) => vec!["project"],
    };
    match req.by {
        Some(By::Model) => k.push("model"),
        Some(By::Provider) => k.push("provider"),
        _ => {}
    }
    k
}

/// The largest float, as the table shows it (1.7976931348623157e308).
const PAST_MAX: &str = "1.8e308";

/// A sum as JSON and CSV print it: one past the largest float (the sum
/// overflowed, which a warning says: [`overflows`]) as the largest float
/// of its sign, so that the output stays numbers every reader takes; NaN
/// (it overflowed both ways) as 0.
fn finite(a: &Amounts) -> Amounts {
    let f = |n: f64| match n {
        n if n.is_nan() => 0.0,
        n if n.is_infinite() => f64::MAX.copysign(n),
        n => n,
    };
    Amounts {
        input: f(a.input),
        output: f(a.output),
        cache_read: f(a.cache_read),
        cache_write: f(a.cache_write),
        total_tokens: f(a.total_tokens),
        cost_input: f(a.cost_input),
        cost_output: f(a.cost_output),
        cost_cache_read: f(a.cost_cache_read),
        cost_cache_write: f(a.cost_cache_write),
        cost: f(a.cost),
    }
}

/// What overflowed: a line for each sum (by its JSON name) past the
/// largest float in some row or the total, with how it is shown.
pub(super) fn overflows(rows: &[Row], total: &Group) -> Vec<String> {
    let named = |a: &Amounts| {
        [
            ("inputTokens", a.input),
            ("outputTokens", a.output),
            ("cacheReadTokens", a.cache_read),
            ("cacheCreationTokens", a.cache_write),
            ("totalTokens", a.total_tokens),
            ("costBreakdown.input", a.cost_input),
            ("costBreakdown.output", a.cost_output),
            ("costBreakdown.cacheRead", a.cost_cache_read),
            ("costBreakdown.cacheWrite", a.cost_cache_write),
            ("cost", a.cost),
        ]
    };
    let mut out = Vec::new();
    for (k, (name, _)) in named(&total.amounts).iter().enumerate() {
        let rows_over = rows
            .iter()
            .filter(|r| !named(&r.group.amounts)[k].1.is_finite())
            .count();
        if rows_over == 0 && named(&total.amounts)[k].1.is_finite() {
            continue;
        }
        let total_over = !named(&total.amounts)[k].1.is_finite();
        let place = match (rows_over, total_over) {
            (0, _) => "in the total".to_string(),
            (n, true) => format!("in {n} row(s) and the total"),
            (n, false) => format!("in {n} row(s)"),
        };
        out.push(format!(
            "the sum of {name} {place} is past the largest number; JSON and CSV \
             show it as {}, the table as >{PAST_MAX}",
            js::number_to_js(f64::MAX)
        ));
    }
    out
}

/// Digits grouped by thousands ([`crate::thousands`]); a sum past the
/// largest number as the table shows it.
fn thousands(n: f64) -> String {
    if !n.is_finite() {
        return past_max(n, "");
    }
    crate::thousands::group(n)
}

/// A sum that overflowed, in the table: `>$1.8e308`, `<-$1.8e308`.
fn past_max(n: f64, unit: &str) -> String {
    match n {
        n if n.is_nan() => format!("±>{unit}{PAST_MAX}"),
        n if n < 0.0 => format!("<-{unit}{PAST_MAX}"),
        _ => format!(">{unit}{PAST_MAX}"),
    }
}

/// A cost in the table: cents, or from 10¹⁵ on a short scientific form
/// (`$1.0e308`, not 309 digits).
fn money(n: f64) -> String {
    if !n.is_finite() {
        return past_max(n, "$");
    }
    let sign = if n < 0.0 { "-" } else { "" };
    match n.abs() {
        a if a >= 1e15 => format!("{sign}${a:.1e}"),
        a => format!("{sign}${a:.2}"),
    }
}

pub(super) fn write_table(
    req: &Request,
    rows: &[Row],
    total: &Group,
    out: &mut impl Write,
) -> Result<()> {
    if rows.is_empty() {
        out.line(b"No usage found.")?;
        return out.done();
    }
    let heads = table_heads(req);
    let mut cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut c: Vec<String> = r
                .key
                .iter()
                .filter(|(k, _)| *k != "file")
                // A project, model or provider is session text: its
                // control characters shown, never written raw.
                .map(|(_, v)| crate::visible::text(v).into_owned())
                .collect();
            c.extend(numbers(req, &r.group));
            c
        })
        .collect();
    let nkeys = heads.iter().filter(|h| !h.1).count();
    let mut tot: Vec<String> = vec![String::new(); nkeys];
    tot[0] = "Total".into();
    tot.extend(numbers(req, total));
    cells.push(tot);
    let width = |s: &str| crate::width::width(s);
    let widths: Vec<usize> = (0..heads.len())
        .map(|i| {
            cells
                .iter()
                .map(|r| width(&r[i]))
                .chain([width(&heads[i].0)])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let (keep, hidden) = fit(&heads, &widths, req.width.unwrap_or(usize::MAX));
    let (bold, reset) = if req.color {
        ("\x1b[1m", "\x1b[0m")
    } else {
        ("", "")
    };
    let line = |cols: &[String], out: &mut dyn Write, style: &str| -> Result<()> {
        let mut s = String::new();
        let mut first = true;
        for (i, c) in cols.iter().enumerate() {
            if !keep[i] {
                continue;
            }
            if !first {
                s.push_str("  ");
            }
            first = false;
            let pad = widths[i].saturating_sub(width(c));
            if heads[i].1 {
                s.push_str(&" ".repeat(pad));
                s.push_str(c);
            } else {
                s.push_str(c);
                s.push_str(&" ".repeat(pad));
            }
        }
        let s = s.trim_end();
        if style.is_empty() {
            out.line(s.as_bytes())
        } else {
            out.text(format_args!("{style}{s}{reset}\n"))
        }
    };
    let titles: Vec<String> = heads.iter().map(|h| h.0.clone()).collect();
    line(&titles, out, bold)?;
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    line(&rule, out, "")?;
    let n = cells.len();
    for (i, c) in cells.iter().enumerate() {
        if i == n - 1 {
            line(&rule, out, "")?;
            line(c, out, bold)?;
        } else {
            line(c, out, "")?;
        }
    }
    if hidden > 0 {
        out.text(format_args!(
            "({hidden} columns left out to fit the terminal; --json or --csv have them all)\n"
        ))?;
    }
    out.done()
}

/// A table's column: (title, right-aligned, optional: left out first
/// when the table is too wide).
type Head = (String, bool, bool);

/// The table's columns: the keys, then the numbers.
fn table_heads(req: &Request) -> Vec<Head> {
    let mut heads: Vec<Head> = Vec::new();
    for k in key_names(req) {
        let title = match k {
            "date" => "Date",
            "week" => "Week",
            "month" => "Month",
            "sessionId" => "Session",
            "file" => continue,
            "project" => "Project",
            "model" => "Model",
            "provider" => "Provider",
            "leaf" => "Leaf",
            "branch" => "Branch",
            _ => k,
        };
        heads.push((title.into(), false, false));
    }
    let mut numeric = vec![
        "Input",
        "Output",
        "Cache Write",
        "Cache Read",
        "Total Tokens",
        "Cost",
    ];
    if req.by == Some(By::Branch) {
        numeric.push("Own Cost");
    }
    if req.breakdown {
        numeric.extend(["Cost In", "Cost Out", "Cost CR", "Cost CW"]);
    }
    for n in &numeric {
        let optional = !matches!(*n, "Total Tokens" | "Cost");
        heads.push((n.to_string(), true, optional));
    }
    heads
}

/// A row's numbers, as the table prints them.
fn numbers(req: &Request, g: &Group) -> Vec<String> {
    let a = &g.amounts;
    let mut v = vec![
        thousands(a.input),
        thousands(a.output),
        thousands(a.cache_write),
        thousands(a.cache_read),
        thousands(a.total_tokens),
        money(a.cost),
    ];
    if req.by == Some(By::Branch) {
        v.push(money(g.own.map(|o| o.cost).unwrap_or(0.0)));
    }
    if req.breakdown {
        v.extend([
            money(a.cost_input),
            money(a.cost_output),
            money(a.cost_cache_read),
            money(a.cost_cache_write),
        ]);
    }
    v
}

/// Which columns are kept in `limit` columns (optional ones dropped from
/// the right until the table fits), and how many were dropped.
fn fit(heads: &[Head], widths: &[usize], limit: usize) -> (Vec<bool>, usize) {
    let mut keep: Vec<bool> = vec![true; heads.len()];
    let total_w = |keep: &[bool]| -> usize {
        widths
            .iter()
            .zip(keep)
            .filter(|(_, k)| **k)
            .map(|(w, _)| w + 2)
            .sum::<usize>()
    };
    let mut hidden = 0;
    for i in (0..heads.len()).rev() {
        if total_w(&keep) <= limit {
            break;
        }
        if heads[i].2 {
            keep[i] = false;
            hidden += 1;
        }
    }
    (keep, hidden)
}
