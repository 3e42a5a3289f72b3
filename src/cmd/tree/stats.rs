//! `pi-tree --stats`: counts of the session's entries and of its tree, as
//! one JSON line.

use super::problems;
use crate::cli::{Log, Out};
use crate::entry::EntryType;
use crate::error::Result;
use crate::json::js;
use crate::session::Session;
use crate::tree::{Step, Tree};
use std::io::Write;

/// Counts for `--stats`, as one JSON line.
pub(crate) fn write_stats(s: &Session, out: &mut impl Write, log: Log) -> Result<()> {
    let tree = Tree::build(s);
    problems::check_size(s, &tree)?;
    problems::report(s, &tree, log);
    let mut types: Vec<(String, usize)> = Vec::new();
    let mut entries = 0;
    for (i, e) in s.entries.iter().enumerate() {
        if e.ty() == EntryType::Session {
            continue;
        }
        entries += 1;
        let t = s.type_name(i).to_string();
        match types.iter_mut().find(|(k, _)| *k == t) {
            Some(x) => x.1 += 1,
            None => types.push((t, 1)),
        }
    }
    let (mut nodes, mut branch_points, mut leaves, mut max_depth) =
        (0usize, 0usize, 0usize, 0usize);
    tree.walk(|step| {
        if let Step::Enter { node, depth, .. } = step {
            nodes += 1;
            let c = tree.children(node).len();
            if c > 1 {
                branch_points += 1;
            }
            if c == 0 {
                leaves += 1;
            }
            max_depth = max_depth.max(depth + 1);
        }
    });
    let mut b = Vec::new();
    b.extend_from_slice(format!("{{\"entries\":{entries},\"types\":{{").as_bytes());
    for (k, (t, c)) in types.iter().enumerate() {
        if k > 0 {
            b.push(b',');
        }
        js::escape::write_str(&mut b, t);
        b.extend_from_slice(format!(":{c}").as_bytes());
    }
    b.extend_from_slice(
        format!(
            "}},\"nodes\":{nodes},\"roots\":{},\"branchPoints\":{branch_points},\"leaves\":{leaves},\"maxDepth\":{max_depth},\"unreachable\":{},\"labels\":{},\"name\":",
            tree.roots.len(),
            tree.unreachable.len(),
            s.index.labels.iter().count()
        )
        .as_bytes(),
    );
    match &s.index.name {
        Some(n) => js::escape::write_str(&mut b, n),
        None => b.extend_from_slice(b"null"),
    }
    b.extend_from_slice(b"}\n");
    out.bytes(&b)?;
    out.done()
}
