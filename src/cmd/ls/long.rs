//! The long form (`-l`): what a full read of each session adds (entries,
//! leaves, branch points, compactions, labels, tokens, cost, last model),
//! and its JSON fields.

use crate::error::Result;
use crate::json::{js, Object};
use crate::session::{Input, ReadOptions, Session};
use crate::store::Info;
use std::path::Path;

/// The extra fields of `-l`, from a full read of the file.
#[derive(Debug, Clone, Default)]
pub(crate) struct Long {
    pub entries: u64,
    pub leaves: u64,
    pub branch_points: u64,
    pub compactions: u64,
    pub labels: u64,
    pub tokens: f64,
    pub cost: f64,
    pub last_model: Option<String>,
}

/// Read the `-l` fields of one session (a full read of the file).
pub(crate) fn long_info(path: &Path) -> Result<Long> {
    let s = Session::open(Input::File(path.to_path_buf()), ReadOptions::default())?;
    let n = s.entries.len();
    let mut children = vec![0u32; n];
    let mut l = Long::default();
    // costs add as the decimals written (0.003 three times is 0.009)
    let mut cost = crate::decimal::Sum::default();
    for i in 0..n {
        if s.entries[i].ty() == crate::entry::EntryType::Session {
            continue;
        }
        l.entries += 1;
        if let Some(p) = s.index.parent_of(i) {
            children[p] = children[p].saturating_add(1);
        }
    }
    for (i, e) in s.entries.iter().enumerate() {
        use crate::entry::EntryType as T;
        match e.ty() {
            T::Session => continue,
            T::Compaction => l.compactions += 1,
            T::Message | T::ModelChange => {
                let bytes = s.raw_line(i)?;
                let Ok(Some(obj)) = Object::parse_line(&bytes) else {
                    continue;
                };
                if e.ty() == T::ModelChange {
                    if let (Some(p), Some(m)) = (obj.str("provider"), obj.str("modelId")) {
                        l.last_model = Some(format!("{p}/{m}"));
                    }
                } else if let Some(msg) = obj.object("message") {
                    if msg.str("role").as_deref() == Some("assistant") {
                        if let (Some(p), Some(m)) = (msg.str("provider"), msg.str("model")) {
                            l.last_model = Some(format!("{p}/{m}"));
                        }
                        if let Some(u) = msg.object("usage") {
                            l.tokens += num(u.raw("totalTokens"));
                            if let Some(c) = u.object("cost") {
                                cost.add(num(c.raw("total")));
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        match children[i] {
            0 => l.leaves += 1,
            1 => {}
            _ => l.branch_points += 1,
        }
    }
    l.labels = s.index.labels.iter().count() as u64;
    l.cost = cost.value();
    Ok(l)
}

fn num(v: Option<&[u8]>) -> f64 {
    v.and_then(|v| std::str::from_utf8(v).ok())
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|n| n.is_finite())
        .unwrap_or(0.0)
}

pub(super) fn write_long_json(b: &mut Vec<u8>, i: &Info, l: Option<&Long>) {
    if let Some(l) = l {
        b.extend_from_slice(
            format!(
                ",\"entries\":{},\"leaves\":{},\"branchPoints\":{},\"compactions\":{},\"labels\":{}",
                l.entries, l.leaves, l.branch_points, l.compactions, l.labels
            )
            .as_bytes(),
        );
    }
    b.extend_from_slice(format!(",\"bytes\":{},\"version\":{}", i.bytes, i.version).as_bytes());
    if let Some(l) = l {
        b.extend_from_slice(b",\"tokens\":");
        js::write_number(b, l.tokens);
        b.extend_from_slice(b",\"cost\":");
        js::write_number(b, l.cost);
        b.extend_from_slice(b",\"lastModel\":");
        match &l.last_model {
            Some(m) => js::write_str(b, m),
            None => b.extend_from_slice(b"null"),
        }
    }
}
