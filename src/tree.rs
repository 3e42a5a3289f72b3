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

use crate::entry::EntryType;
use crate::session::Session;

/// The tree: node ids are entry indexes into `session.entries`.
#[derive(Debug, Default)]
pub struct Tree {
    /// The roots, in pi's order.
    pub roots: Vec<usize>,
    /// The children of every entry, sorted as pi sorts them, in one array
    /// (8 bytes an entry): those of entry `k` are
    /// `child_list[child_start[k]..child_start[k + 1]]` ([`Tree::children`]).
    child_start: Vec<u32>,
    child_list: Vec<u32>,
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
            .rposition(|e| !e.has_id() && e.ty() != EntryType::Session);
        let node_of = |i: usize| -> usize {
            match s.entries.id(i) {
                Some(id) => s.index.get(&id).unwrap_or(i),
                None => last_without_id.unwrap_or(i),
            }
        };
        // The parent under which entry i's node is listed (None: a root).
        let parent_of = |i: usize| -> Option<usize> {
            let self_parent = s.entries.is_own_parent(i);
            s.index.parent_of(i).filter(|_| !self_parent)
        };
        let mut t = Tree::default();
        // Count the children of each entry, then place them in file order.
        let mut start = vec![0u32; n + 1];
        for (i, e) in s.entries.iter().enumerate() {
            if e.ty() == EntryType::Session {
                continue;
            }
            match parent_of(i) {
                Some(p) => start[p + 1] += 1,
                None => t.roots.push(node_of(i)),
            }
        }
        for k in 0..n {
            start[k + 1] += start[k];
        }
        let mut list = vec![0u32; start[n] as usize];
        let mut fill: Vec<u32> = start[..n].to_vec();
        for (i, e) in s.entries.iter().enumerate() {
            if e.ty() == EntryType::Session {
                continue;
            }
            if let Some(p) = parent_of(i) {
                list[fill[p] as usize] = node_of(i) as u32;
                fill[p] += 1;
            }
        }
        drop(fill);
        for k in 0..n {
            let c = &mut list[start[k] as usize..start[k + 1] as usize];
            if c.len() > 1 {
                sort_children(c, |i| s.entries[i].time());
            }
        }
        t.child_start = start;
        t.child_list = list;
        // Reachable from a root: what a walk enters, found without walking
        // every path (with duplicate ids the walk can be exponential).
        let mut seen = vec![false; n];
        let mut todo: Vec<usize> = t.roots.clone();
        while let Some(node) = todo.pop() {
            if !std::mem::replace(&mut seen[node], true) {
                todo.extend(
                    t.children(node)
                        .iter()
                        .map(|&c| c as usize)
                        .filter(|&c| !seen[c]),
                );
            }
        }
        for (i, e) in s.entries.iter().enumerate() {
            if e.ty() != EntryType::Session && !seen[i] && node_of(i) == i {
                t.unreachable.push(i);
            }
        }
        t
    }

    /// The children of `node`, sorted as pi sorts them.
    pub fn children(&self, node: usize) -> &[u32] {
        match (self.child_start.get(node), self.child_start.get(node + 1)) {
            (Some(&a), Some(&b)) => &self.child_list[a as usize..b as usize],
            _ => &[],
        }
    }

    /// The number of entries the tree was built over.
    pub fn len(&self) -> usize {
        self.child_start.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The same tree with its roots replaced by `roots` and every list of
    /// children put in the order `order` returns (the same nodes).
    pub fn reordered(&self, roots: Vec<usize>, mut order: impl FnMut(&[u32]) -> Vec<u32>) -> Tree {
        let mut child_list = Vec::with_capacity(self.child_list.len());
        for k in 0..self.len() {
            child_list.extend(order(self.children(k)));
        }
        Tree {
            roots,
            child_start: self.child_start.clone(),
            child_list,
            unreachable: Vec::new(),
        }
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
        let mut on_path = vec![false; self.len()];
        let mut count = 0usize;
        for &r in &self.roots {
            // Frames: (node, next child index).
            let mut stack: Vec<(u32, u32)> = vec![(r as u32, 0)];
            on_path[r] = true;
            count += 1;
            while let Some(top) = stack.last_mut() {
                let (node, k) = (top.0 as usize, top.1 as usize);
                let children = self.children(node);
                if k < children.len() {
                    top.1 += 1;
                    let c = children[k] as usize;
                    if !on_path[c] {
                        count += 1;
                        if count > limit {
                            return None;
                        }
                        on_path[c] = true;
                        stack.push((c as u32, 0));
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
        let mut on_path = vec![false; self.len()];
        for &r in starts {
            // Frames: (node, next child index).
            let mut stack: Vec<(u32, u32)> = Vec::new();
            f(Step::Enter {
                node: r,
                parent: None,
                depth: 0,
            });
            on_path[r] = true;
            stack.push((r as u32, 0));
            while let Some(top) = stack.last_mut() {
                let (node, k) = (top.0 as usize, top.1 as usize);
                let children = self.children(node);
                if k < children.len() {
                    top.1 += 1;
                    let c = children[k] as usize;
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
                    stack.push((c as u32, 0));
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
fn sort_children(c: &mut [u32], time: impl Fn(usize) -> f64) {
    // V8's comparator result: a NaN difference counts as 0.
    let cmp = |a: u32, b: u32| -> f64 {
        let d = time(a as usize) - time(b as usize);
        if d.is_nan() {
            0.0
        } else {
            d
        }
    };
    let has_nan = c.iter().any(|&i| time(i as usize).is_nan());
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
