//! `--tree`: the listing's rows with forks under the session they were
//! forked from.

use crate::store::{self, Info};

/// The rows of the listing in display order, with their depth under
/// `--tree` (forks under the session named by their `parentSession`).
pub(super) fn tree_order(infos: &[Info]) -> Vec<(usize, usize)> {
    use std::collections::HashMap;
    let key = |p: &str| store::resolve_path_str(p);
    let by_path: HashMap<String, usize> = infos
        .iter()
        .enumerate()
        .map(|(k, i)| (key(&i.path.to_string_lossy()), k))
        .collect();
    let parent: Vec<Option<usize>> = infos
        .iter()
        .enumerate()
        .map(|(k, i)| {
            i.parent
                .as_ref()
                .and_then(|p| by_path.get(&key(p)).copied())
                .filter(|&p| p != k)
        })
        .collect();
    let mut kids: Vec<Vec<usize>> = vec![Vec::new(); infos.len()];
    for (k, p) in parent.iter().enumerate() {
        if let Some(p) = p {
            kids[*p].push(k);
        }
    }
    let mut seen = vec![false; infos.len()];
    let mut order = Vec::with_capacity(infos.len());
    // Roots first; then whatever a parent cycle left out.
    let roots: Vec<usize> = (0..infos.len()).filter(|&k| parent[k].is_none()).collect();
    let rest: Vec<usize> = (0..infos.len()).collect();
    for start in roots.into_iter().chain(rest) {
        if seen[start] {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        while let Some((k, d)) = stack.pop() {
            if seen[k] {
                continue;
            }
            seen[k] = true;
            order.push((k, d));
            for &c in kids[k].iter().rev() {
                stack.push((c, d + 1));
            }
        }
    }
    order
}
