//! The header's totals, as pi's export template computes them
//! (`computeStats`): over every entry of the file, every branch.

use crate::entry::EntryType;
use crate::error::Result;
use crate::json::Object;
use crate::session::Session;

/// What the header shows.
#[derive(Debug, Default, Clone)]
pub(crate) struct Stats {
    pub user: u64,
    pub assistant: u64,
    pub tool_results: u64,
    pub custom: u64,
    pub compactions: u64,
    pub branch_summaries: u64,
    pub tool_calls: u64,
    /// input, output, cacheRead, cacheWrite
    pub tokens: [f64; 4],
    pub cost: f64,
    /// `provider/model`, in the order first met.
    pub models: Vec<String>,
    /// The tools the system entries add (`toolsAdded[].name`), first met first.
    pub tools: Vec<(String, String)>,
    /// The first system prompt entry.
    pub system: Option<usize>,
}

/// A JSON number's value; anything else is 0 (pi's `x || 0` on numbers).
fn num(raw: Option<&[u8]>) -> f64 {
    raw.and_then(|r| std::str::from_utf8(r).ok())
        .filter(|t| t.starts_with(|c: char| c == '-' || c.is_ascii_digit()))
        .and_then(|t| t.parse::<f64>().ok())
        .unwrap_or(0.0)
}

/// How many tools the header lists at most (a hostile file may add many).
const MAX_TOOLS: usize = 200;

impl Stats {
    /// Read every entry of `s` once, in file order.
    pub(crate) fn of(s: &Session) -> Result<Stats> {
        let mut st = Stats::default();
        for i in 0..s.entries.len() {
            match s.entries[i].ty() {
                EntryType::Compaction => st.compactions += 1,
                EntryType::BranchSummary => st.branch_summaries += 1,
                EntryType::CustomMessage => st.custom += 1,
                EntryType::Message => {
                    let line = s.line(i)?;
                    if let Ok(Some(o)) = Object::parse_line(&line) {
                        if let Some(m) = o.object("message") {
                            st.message(i, &m);
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(st)
    }

    fn message(&mut self, i: usize, m: &Object<'_>) {
        match m.str("role").as_deref() {
            Some("user") => self.user += 1,
            Some("toolResult") => self.tool_results += 1,
            Some("system") => {
                self.system.get_or_insert(i);
                self.system_tools(m);
            }
            Some("assistant") => self.assistant(m),
            _ => {}
        }
    }

    fn assistant(&mut self, m: &Object<'_>) {
        self.assistant += 1;
        if let Some(model) = m.str("model").filter(|s| !s.is_empty()) {
            let name = match m.str("provider").filter(|s| !s.is_empty()) {
                Some(p) => format!("{p}/{model}"),
                None => model.into_owned(),
            };
            if !self.models.contains(&name) && self.models.len() < MAX_TOOLS {
                self.models.push(name);
            }
        }
        if let Some(u) = m.object("usage") {
            for (k, key) in ["input", "output", "cacheRead", "cacheWrite"]
                .iter()
                .enumerate()
            {
                self.tokens[k] += num(u.raw(key));
            }
            if let Some(c) = u.object("cost") {
                let total = c
                    .raw("total")
                    .filter(|r| r.first().is_some_and(|b| *b == b'-' || b.is_ascii_digit()));
                self.cost += match total {
                    Some(t) => num(Some(t)),
                    None => ["input", "output", "cacheRead", "cacheWrite"]
                        .iter()
                        .map(|k| num(c.raw(k)))
                        .fold(0.0, |a, b| a + b),
                };
            }
        }
        if let Some(r) = m.get("content").filter(|r| m.text[r.start] == b'[') {
            for el in crate::json::scan::elements(m.text, r).unwrap_or_default() {
                if m.text[el.start] == b'{' {
                    if let Ok(b) = Object::at(m.text, el) {
                        if b.str("type").as_deref() == Some("toolCall") {
                            self.tool_calls += 1;
                        }
                    }
                }
            }
        }
    }

    fn system_tools(&mut self, m: &Object<'_>) {
        let Some(r) = m.get("toolsAdded").filter(|r| m.text[r.start] == b'[') else {
            return;
        };
        for el in crate::json::scan::elements(m.text, r).unwrap_or_default() {
            if self.tools.len() >= MAX_TOOLS || m.text[el.start] != b'{' {
                continue;
            }
            if let Ok(t) = Object::at(m.text, el) {
                let name = t.str("name").unwrap_or_default().into_owned();
                if !self.tools.iter().any(|(n, _)| *n == name) {
                    let d = t.str("description").unwrap_or_default().into_owned();
                    self.tools.push((name, d));
                }
            }
        }
    }
}

/// JavaScript's `Number.prototype.toFixed(digits)` for the header's
/// numbers: halfway cases round away from zero, as JavaScript does (Rust's
/// formatting rounds them to even).
pub(crate) fn to_fixed(x: f64, digits: usize) -> String {
    if !x.is_finite() || x.abs() >= 1e21 {
        return crate::json::js::number::number_to_js(x);
    }
    let plain = format!("{:.*}", digits, x);
    // A tie is x * 10^digits = k + 0.5 exactly, which a double holds, so
    // the product rounds to it: any other product is no tie, and the slow
    // exact check below (1100 digits) is left for the rare candidates.
    if digits <= 15 {
        let scaled = x.abs() * 10f64.powi(digits as i32);
        if scaled < 4e15 && scaled.fract() != 0.5 {
            return plain;
        }
    }
    // The exact decimal value of x: a tie is "5" then only zeros after
    // the kept digits.
    let exact = format!("{:.1100}", x.abs());
    let dot = exact.find('.').unwrap_or(exact.len());
    let rest = exact.get(dot + 1 + digits..).unwrap_or("");
    let tie = rest.starts_with('5') && rest[1..].bytes().all(|b| b == b'0');
    if !tie {
        return plain;
    }
    // Round the magnitude up at the last kept digit.
    let kept = &exact[..dot + 1 + digits];
    let digits_only: String = kept.chars().filter(|c| *c != '.').collect();
    let mut n: Vec<u8> = digits_only.into_bytes();
    let mut k = n.len();
    loop {
        if k == 0 {
            n.insert(0, b'1');
            break;
        }
        k -= 1;
        if n[k] == b'9' {
            n[k] = b'0';
        } else {
            n[k] += 1;
            break;
        }
    }
    let int_len = n.len() - digits;
    let mut s = String::from_utf8(n[..int_len].to_vec()).unwrap_or_default();
    if digits > 0 {
        s.push('.');
        s.push_str(std::str::from_utf8(&n[int_len..]).unwrap_or(""));
    }
    if x < 0.0 {
        s.insert(0, '-');
    }
    s
}

/// pi's `formatTokens`.
pub(crate) fn format_tokens(n: f64) -> String {
    use crate::json::js::number::number_to_js;
    if n < 1000.0 {
        number_to_js(n)
    } else if n < 10000.0 {
        format!("{}k", to_fixed(n / 1000.0, 1))
    } else if n < 1_000_000.0 {
        format!("{}k", number_to_js((n / 1000.0 + 0.5).floor()))
    } else {
        format!("{}M", to_fixed(n / 1_000_000.0, 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn to_fixed_rounds_ties_away_from_zero() {
        assert_eq!(to_fixed(0.0625, 3), "0.063");
        assert_eq!(to_fixed(-0.0625, 3), "-0.063");
        assert_eq!(to_fixed(9.99, 3), "9.990");
        assert_eq!(to_fixed(0.5549999999999999, 3), "0.555");
        assert_eq!(to_fixed(2.5, 0), "3");
        assert_eq!(to_fixed(9.9995, 3), format!("{:.3}", 9.9995));
        assert_eq!(to_fixed(0.00125, 4), "0.0013");
        assert_eq!(to_fixed(1.0000000000000002, 4), "1.0000");
    }

    #[test]
    fn tokens_as_pi_writes_them() {
        assert_eq!(format_tokens(999.0), "999");
        assert_eq!(format_tokens(2500.0), "2.5k");
        assert_eq!(format_tokens(72000.0), "72k");
        assert_eq!(format_tokens(2_160_000.0), "2.2M");
    }
}
