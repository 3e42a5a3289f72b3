//! The tree of a session as pi's `getTree()` builds it, and walks over it
//! that never recurse (a 100 000-deep chain is an ordinary input).
//!
//! pi's semantics (`session-manager.js`, `getTree`):
//! - one node per entry, kept in a map keyed by id: when ids repeat, the
//!   later entry's node is the one every reference finds (and it is pushed
//!   once per entry carrying that id);
//! - an entry whose `parentId` is null, is its own id, or names no entry is
//!   a root, in file order;
//! - children are sorted by `new Date(timestamp).getTime()` ascending with
//!   JavaScript's stable `Array.prototype.sort` (a NaN difference counts as
//!   equal: for fewer than 64 children V8's exact algorithm is replayed);
//! - entries that no root reaches (a `parentId` cycle) are not in the tree;
//!   they are listed in [`Tree::unreachable`].

use crate::entry::{EntryType, Parent};
use crate::session::Session;

/// The tree: node ids are entry indexes into `session.entries`.
#[derive(Debug, Default)]
pub struct Tree {
    /// The roots, in pi's order.
    pub roots: Vec<usize>,
    /// The children of each entry, sorted as pi sorts them.
    pub children: Vec<Vec<usize>>,
    /// Entries (not second headers) that no root reaches, in file order.
    pub unreachable: Vec<usize>,
}

/// One step of a pre-order walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Enter `node` at `depth` (roots have depth 0); `parent` is the node it
    /// was reached from.
    Enter {
        node: usize,
        parent: Option<usize>,
        depth: usize,
    },
    /// Leave `node` (all its children were walked).
    Leave { node: usize },
    /// `node` is a child of `parent` but already on the path to it (only
    /// with duplicate ids): pi would loop; it is skipped.
    Cycle { node: usize, parent: usize },
}

impl Tree {
    /// Build pi's tree of the session.
    pub fn build(s: &Session) -> Tree {
        let n = s.entries.len();
        // The node each entry's id finds (the later entry wins); entries
        // without an id all share pi's `nodeMap.get(undefined)`.
        let last_without_id = s
            .entries
            .iter()
            .rposition(|e| e.id.is_none() && e.ty != EntryType::Session);
        let node_of = |i: usize| -> usize {
            match &s.entries[i].id {
                Some(id) => s.index.get(id).unwrap_or(i),
                None => last_without_id.unwrap_or(i),
            }
        };
        let mut t = Tree {
            roots: Vec::new(),
            children: vec![Vec::new(); n],
            unreachable: Vec::new(),
        };
        for (i, e) in s.entries.iter().enumerate() {
            if e.ty == EntryType::Session {
                continue;
            }
            let node = node_of(i);
            let self_parent = match (&e.parent, &e.id) {
                (Parent::Id(p), Some(id)) => p == id,
                _ => false,
            };
            match s.index.parent_of(i) {
                Some(p) if !self_parent => t.children[p].push(node),
                _ => t.roots.push(node),
            }
        }
        for c in t.children.iter_mut() {
            if c.len() > 1 {
                sort_children(c, |i| s.entries[i].time);
            }
        }
        // Reachable from a root: what a walk enters, found without walking
        // every path (with duplicate ids the walk can be exponential).
        let mut seen = vec![false; n];
        let mut todo: Vec<usize> = t.roots.clone();
        while let Some(node) = todo.pop() {
            if !std::mem::replace(&mut seen[node], true) {
                todo.extend(t.children[node].iter().filter(|&&c| !seen[c]));
            }
        }
        for (i, e) in s.entries.iter().enumerate() {
            if e.ty != EntryType::Session && !seen[i] && node_of(i) == i {
                t.unreachable.push(i);
            }
        }
        t
    }

    /// Walk the tree in pre-order (children in order), without recursion.
    /// A node reachable twice (duplicate ids) is walked twice, as
    /// `JSON.stringify` would; a node already on the current path is
    /// reported as [`Step::Cycle`] and not entered.
    pub fn walk(&self, mut f: impl FnMut(Step)) {
        self.walk_from(&self.roots, &mut f)
    }

    /// How many nodes [`Tree::walk`] enters, or None when more than
    /// `limit`. Duplicate ids make a node reachable along several paths, and
    /// the walk (like pi's `JSON.stringify` of `getTree()`) enters it once
    /// per path: a file whose lines were duplicated a few times gives a
    /// tree exponential in its length. Callers check this first.
    pub fn walk_len(&self, limit: usize) -> Option<usize> {
        let mut on_path = vec![false; self.children.len()];
        let mut count = 0usize;
        for &r in &self.roots {
            let mut stack: Vec<(usize, usize)> = vec![(r, 0)];
            on_path[r] = true;
            count += 1;
            while let Some(top) = stack.last_mut() {
                let (node, k) = *top;
                if k < self.children[node].len() {
                    top.1 += 1;
                    let c = self.children[node][k];
                    if !on_path[c] {
                        count += 1;
                        if count > limit {
                            return None;
                        }
                        on_path[c] = true;
                        stack.push((c, 0));
                    }
                } else {
                    stack.pop();
                    on_path[node] = false;
                }
            }
            if count > limit {
                return None;
            }
        }
        Some(count)
    }

    /// [`Tree::walk`] starting from `starts` instead of the roots.
    pub fn walk_from(&self, starts: &[usize], f: &mut impl FnMut(Step)) {
        let mut on_path = vec![false; self.children.len()];
        for &r in starts {
            // Frames: (node, next child index).
            let mut stack: Vec<(usize, usize)> = Vec::new();
            f(Step::Enter {
                node: r,
                parent: None,
                depth: 0,
            });
            on_path[r] = true;
            stack.push((r, 0));
            while let Some(top) = stack.last_mut() {
                let (node, k) = *top;
                if k < self.children[node].len() {
                    top.1 += 1;
                    let c = self.children[node][k];
                    if on_path[c] {
                        f(Step::Cycle {
                            node: c,
                            parent: node,
                        });
                        continue;
                    }
                    f(Step::Enter {
                        node: c,
                        parent: Some(node),
                        depth: stack.len(),
                    });
                    on_path[c] = true;
                    stack.push((c, 0));
                } else {
                    stack.pop();
                    on_path[node] = false;
                    f(Step::Leave { node });
                }
            }
        }
    }
}

/// `children.sort((a, b) => time(a) - time(b))` exactly as V8 does it.
fn sort_children(c: &mut [usize], time: impl Fn(usize) -> f64) {
    // V8's comparator result: a NaN difference counts as 0.
    let cmp = |a: usize, b: usize| -> f64 {
        let d = time(a) - time(b);
        if d.is_nan() {
            0.0
        } else {
            d
        }
    };
    let has_nan = c.iter().any(|&i| time(i).is_nan());
    if !has_nan || c.len() >= 64 {
        // A consistent order: every stable sort gives V8's result.
        // (With NaN and 64+ children V8's merges are not replayed.)
        c.sort_by(|&a, &b| {
            cmp(a, b)
                .partial_cmp(&0.0)
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        return;
    }
    // V8 TimSort on a short array: one run (CountAndMakeRun), then
    // BinaryInsertionSort for the rest.
    let n = c.len();
    let mut run = 2;
    let descending = cmp(c[1], c[0]) < 0.0;
    let mut prev = c[1];
    for &cur in &c[2..] {
        let order = cmp(cur, prev);
        if (descending && order >= 0.0) || (!descending && order < 0.0) {
            break;
        }
        prev = cur;
        run += 1;
    }
    if descending {
        c[..run].reverse();
    }
    for start in run..n {
        let pivot = c[start];
        let (mut left, mut right) = (0, start);
        while left < right {
            let mid = left + ((right - left) >> 1);
            if cmp(pivot, c[mid]) < 0.0 {
                right = mid;
            } else {
                left = mid + 1;
            }
        }
        c.copy_within(left..start, left + 1);
        c[left] = pivot;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v8_short_sort_with_nan() {
        let times = [f64::NAN, 1.0, f64::NAN, 5.0, 3.0];
        let mut c = vec![0, 1, 2, 3, 4];
        sort_children(&mut c, |i| times[i]);
        // run [0,1,2,3] (NaN = equal, 1<=5), then 3.0 inserted by binary search
        assert_eq!(c, vec![0, 1, 2, 4, 3]);
        let mut d = vec![3, 4, 1];
        sort_children(&mut d, |i| times[i]);
        assert_eq!(d, vec![1, 4, 3]);
    }
}
