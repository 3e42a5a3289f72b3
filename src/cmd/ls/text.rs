//! The listing as text: aligned columns fitted to the terminal, relative
//! or ISO times, short ids, titles on one line, colour.

use super::long::Long;
use super::Request;
use crate::cli::Out;
use crate::error::Result;
use crate::store::Info;
use std::io::Write;

pub(super) fn write_text(
    req: &Request,
    infos: &[Info],
    longs: &[Option<Long>],
    out: &mut impl Write,
) -> Result<()> {
    let (head, rows, titles) = table(req, infos, longs);
    let layout = Layout::new(req, head, &rows);
    if req.relative && !rows.is_empty() {
        let h: Vec<String> = layout.head.iter().map(|h| h.to_string()).collect();
        out.bytes(layout.line(&h, "TITLE", true, true).as_bytes())?;
    }
    for (r, (t, named)) in rows.iter().zip(&titles) {
        out.bytes(layout.line(r, t, *named, false).as_bytes())?;
    }
    Ok(())
}

/// A row's title: the indented name or first message, and whether it is a name.
type Title = (String, bool);

/// The column heads, each row's cells and each row's title, in the order
/// printed (forks under their source with `--tree`).
fn table(
    req: &Request,
    infos: &[Info],
    longs: &[Option<Long>],
) -> (Vec<&'static str>, Vec<Vec<String>>, Vec<Title>) {
    let ids = short_ids(infos);
    let order: Vec<(usize, usize)> = if req.tree {
        super::tree::tree_order(infos)
    } else {
        (0..infos.len()).map(|k| (k, 0)).collect()
    };
    let time = |t: f64| {
        if req.relative {
            relative(req.now, t)
        } else {
            iso(t)
        }
    };
    let mut head: Vec<&'static str> = vec!["ID", "MODIFIED", "MSGS"];
    if req.long {
        head.extend([
            "CREATED", "ENTRIES", "LEAVES", "BRANCHES", "COMPACT", "LABELS", "SIZE", "VER",
            "TOKENS", "COST", "MODEL",
        ]);
    }
    if req.all {
        head.push("PROJECT");
    }
    let mut rows: Vec<Vec<String>> = Vec::with_capacity(order.len());
    let mut titles: Vec<Title> = Vec::with_capacity(order.len());
    for &(k, depth) in &order {
        let i = &infos[k];
        // Cells hold session text (ids, a cwd, a model): control
        // characters shown, never written raw.
        let shown = |t: &str| crate::visible::text(t).into_owned();
        let mut r = vec![shown(&ids[k]), time(i.modified), count(i.message_count)];
        if req.long {
            r.push(time(i.created));
            long_cells(&mut r, i, longs.get(k).and_then(|l| l.as_ref()));
        }
        if req.all {
            r.push(shown(&home_short(&i.cwd_string())));
        }
        let indent = if depth > 0 {
            format!("{}└ ", "  ".repeat(depth - 1))
        } else {
            String::new()
        };
        let (title, named) = match i.name_string() {
            Some(n) => (n, true),
            None => (i.first_message_string(), false),
        };
        titles.push((format!("{indent}{}", one_line(&title)), named));
        rows.push(r);
    }
    (head, rows, titles)
}

/// The `-l` cells after CREATED (`-` where the file could not be read whole).
fn long_cells(r: &mut Vec<String>, i: &Info, long: Option<&Long>) {
    match long {
        Some(l) => {
            r.push(count(l.entries));
            r.push(count(l.leaves));
            r.push(count(l.branch_points));
            r.push(count(l.compactions));
            r.push(count(l.labels));
            r.push(human_bytes(i.bytes));
            r.push(i.version.to_string());
            r.push(crate::thousands::group(l.tokens));
            r.push(format!("{:.2}", l.cost));
            let model = l.last_model.as_deref().unwrap_or("-");
            r.push(crate::visible::text(model).into_owned());
        }
        None => {
            r.extend(["-", "-", "-", "-", "-"].map(String::from));
            r.push(human_bytes(i.bytes));
            r.push(i.version.to_string());
            r.extend(["-", "-", "-"].map(String::from));
        }
    }
}

/// A count as pi-usage prints its numbers: digits grouped by thousands.
fn count(n: u64) -> String {
    crate::thousands::group(n as f64)
}

/// The title's least width when the columns crowd it (`-l`): it shrinks
/// to this, and a line wider than the terminal then runs past it rather
/// than losing a column.
const TITLE_MIN: usize = 20;

/// The model column's least width when it gives way (`-l`).
const MODEL_MIN: usize = 12;

/// The columns' widths and colours: how each line is laid out.
struct Layout<'r> {
    req: &'r Request,
    head: Vec<&'static str>,
    widths: Vec<usize>,
    bold: &'static str,
    dim: &'static str,
    yellow: &'static str,
    reset: &'static str,
}

impl<'r> Layout<'r> {
    fn new(req: &'r Request, head: Vec<&'static str>, rows: &[Vec<String>]) -> Layout<'r> {
        let ncols = head.len();
        let mut widths: Vec<usize> = head.iter().map(|h| h.len()).collect();
        for r in rows {
            for (c, v) in r.iter().enumerate() {
                widths[c] = widths[c].max(crate::width::width(v));
            }
        }
        // The project column gives way first, then the title.
        if let (Some(w), true) = (req.width, req.all) {
            let fixed: usize = widths[..ncols - 1].iter().map(|x| x + 2).sum();
            let room = w.saturating_sub(fixed + 20);
            let pc = &mut widths[ncols - 1];
            *pc = (*pc).min(room.max(10));
        }
        if let (Some(w), true) = (req.width, req.long) {
            fit_model(&head, &mut widths, w);
        }
        let (bold, dim, yellow, reset) = if req.color {
            ("\x1b[1m", "\x1b[2m", "\x1b[33m", "\x1b[0m")
        } else {
            ("", "", "", "")
        };
        Layout {
            req,
            head,
            widths,
            bold,
            dim,
            yellow,
            reset,
        }
    }

    /// Whether column `c` holds numbers (aligned right).
    fn numeric(&self, c: usize) -> bool {
        matches!(
            self.head[c],
            "MSGS"
                | "ENTRIES"
                | "LEAVES"
                | "BRANCHES"
                | "COMPACT"
                | "LABELS"
                | "SIZE"
                | "VER"
                | "TOKENS"
                | "COST"
        )
    }

    /// One line: the cells, then the title (cut to the width).
    fn line(&self, cells: &[String], title: &str, named: bool, header: bool) -> String {
        let (bold, dim, yellow, reset) = (self.bold, self.dim, self.yellow, self.reset);
        let widths = &self.widths;
        let mut s = String::new();
        for (c, v) in cells.iter().enumerate() {
            let v = match self.head[c] {
                "MODEL" if !header => model_in(v, widths[c]),
                _ => cut(v, widths[c]),
            };
            let pad = widths[c].saturating_sub(crate::width::width(&v));
            let colored = match (c, header) {
                (_, true) => format!("{bold}{v}{reset}"),
                (0, false) => format!("{yellow}{v}{reset}"),
                _ => v,
            };
            if self.numeric(c) && !header {
                s.push_str(&" ".repeat(pad));
                s.push_str(&colored);
            } else {
                s.push_str(&colored);
                s.push_str(&" ".repeat(pad));
            }
            s.push_str("  ");
        }
        let used: usize = widths.iter().map(|w| w + 2).sum();
        // -l keeps every column: the title shrinks, to TITLE_MIN at least
        let least = if self.req.long { TITLE_MIN } else { 0 };
        let t = match self.req.width {
            Some(w) => cut(title, w.saturating_sub(used).max(least)),
            None => title.to_string(),
        };
        if header || named {
            s.push_str(&format!("{bold}{t}{reset}"));
        } else {
            s.push_str(&format!("{dim}{t}{reset}"));
        }
        s.truncate(s.trim_end().len());
        // Columns wider than the terminal: the line cut, without colour
        // (not -l's, whose columns are the point: it runs past instead).
        if let (Some(w), false) = (self.req.width, self.req.long) {
            if used > w {
                let plain = strip_ansi(&s);
                s = cut(&plain, w);
            }
        }
        s.push('\n');
        s
    }
}

/// -l's MODEL column gives way when the line would not leave the title
/// TITLE_MIN columns: to the model's name without its provider, then cut,
/// to MODEL_MIN at least.
fn fit_model(head: &[&str], widths: &mut [usize], w: usize) {
    let Some(m) = head.iter().position(|h| *h == "MODEL") else {
        return;
    };
    let used: usize = widths.iter().map(|x| x + 2).sum();
    let over = (used + TITLE_MIN).saturating_sub(w);
    if over == 0 {
        return;
    }
    widths[m] = widths[m].min(widths[m].saturating_sub(over).max(MODEL_MIN));
}

/// `provider/model` without the provider.
fn model_name(v: &str) -> &str {
    v.split_once('/').map_or(v, |(_, m)| m)
}

/// A MODEL cell in `w` columns: whole, else without its provider, else cut.
fn model_in(v: &str, w: usize) -> String {
    if crate::width::width(v) <= w {
        return v.to_string();
    }
    cut(model_name(v), w)
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(p) = rest.find('\x1b') {
        out.push_str(&rest[..p]);
        let n = crate::width::ansi_code_len(&rest[p..]).max(1);
        rest = rest.get(p + n..).unwrap_or("");
    }
    out.push_str(rest);
    out
}

/// The shortest prefix of each id (at least 8 characters) that no other
/// listed id shares.
fn short_ids(infos: &[Info]) -> Vec<String> {
    let mut sorted: Vec<&str> = infos.iter().map(|i| i.id.as_str()).collect();
    sorted.sort_unstable();
    infos
        .iter()
        .map(|i| {
            let id = i.id.as_str();
            let k = sorted.partition_point(|x| *x < id);
            let common = |o: Option<&&str>| {
                o.map_or(0, |o| {
                    o.chars()
                        .zip(id.chars())
                        .take_while(|(a, b)| a == b)
                        .count()
                })
            };
            // Neighbours in sorted order share the longest prefixes.
            let mut need = common(k.checked_sub(1).and_then(|p| sorted.get(p)));
            let mut after = k + 1;
            while sorted.get(after) == Some(&id) {
                after += 1;
            }
            need = need.max(common(sorted.get(after)));
            let n = (need + 1).max(8);
            id.chars().take(n).collect()
        })
        .collect()
}

fn relative(now: f64, t: f64) -> String {
    if t.is_nan() {
        return "-".into();
    }
    let s = ((now - t) / 1000.0).floor();
    if s < 0.0 {
        return crate::time::iso_string(t as i64)[..10].to_string();
    }
    let s = s as i64;
    match s {
        0..=59 => format!("{s}s ago"),
        60..=3599 => format!("{}m ago", s / 60),
        3600..=86_399 => format!("{}h ago", s / 3600),
        86_400..=2_591_999 => format!("{}d ago", s / 86_400),
        _ => crate::time::iso_string(t as i64)[..10].to_string(),
    }
}

fn iso(t: f64) -> String {
    if t.is_nan() {
        "-".into()
    } else {
        crate::time::iso_string(t as i64)
    }
}

fn human_bytes(n: u64) -> String {
    let units = ["B", "K", "M", "G", "T"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n}B")
    } else if v < 10.0 {
        format!("{v:.1}{}", units[u])
    } else {
        format!("{v:.0}{}", units[u])
    }
}

/// Text fit for one line: line breaks, tabs and other control characters
/// as spaces, runs of spaces as one.
fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(4096));
    let mut space = false;
    for c in s.chars() {
        if c.is_control() || c.is_whitespace() {
            if !space && !out.is_empty() {
                out.push(' ');
            }
            space = true;
        } else {
            out.push(c);
            space = false;
        }
        if out.len() > 4096 {
            break;
        }
    }
    out.trim_end().to_string()
}

/// `s` cut to `w` columns (graphemes, wide characters as 2), with `…`.
fn cut(s: &str, w: usize) -> String {
    use unicode_segmentation::UnicodeSegmentation;
    if crate::width::width(s) <= w {
        return s.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for g in s.graphemes(true) {
        let gw = crate::width::grapheme_width(g);
        if used + gw + 1 > w {
            break;
        }
        out.push_str(g);
        used += gw;
    }
    if w > 0 {
        out.push('…');
    }
    out
}

fn home_short(p: &str) -> String {
    if let Some(h) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        let h = h.to_string_lossy();
        let h = h.trim_end_matches('/');
        if !h.is_empty() {
            if p == h {
                return "~".into();
            }
            if let Some(r) = p.strip_prefix(h).filter(|r| r.starts_with('/')) {
                return format!("~{r}");
            }
        }
    }
    p.to_string()
}
