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
///
/// Most entries of a session have one child, the next line: those links
/// are one bit each ([`Tree::children`] makes the one-element list); the
/// other lists of children are kept sorted by node, so the tree takes a few
/// bits an entry plus 8 bytes for each child of a branch point.
#[derive(Debug, Default)]
pub struct Tree {
    /// The roots, in pi's order.
    pub roots: Vec<usize>,
    /// The number of entries the tree was built over.
    n: usize,
    /// Bit k: the children of k are exactly `[k + 1]`.
    next_only: Vec<u64>,
    /// The other nodes that have children, ascending; the children of
    /// `listed[j]` are `list[list_start[j]..list_start[j + 1]]`, sorted as
    /// pi sorts them.
    listed: Vec<u32>,
    list_start: Vec<u32>,
    list: Vec<u32>,
    /// Whether a node is reached along more than one edge (duplicate ids):
    /// only then can a walk meet a node twice or be longer than the tree.
    shared: bool,
    /// How many nodes a root reaches.
    reachable: usize,
    /// Entries (not second headers) that no root reaches, in file order.
    pub unreachable: Vec<usize>,
}

/// The children of a node (derefs to a slice).
pub struct Children<'t> {
    one: [u32; 1],
    many: Option<&'t [u32]>,
}

impl std::ops::Deref for Children<'_> {
    type Target = [u32];
    fn deref(&self) -> &[u32] {
        match self.many {
            Some(m) => m,
            None => &self.one,
        }
    }
}

/// A set of entry indexes, one bit each.
#[derive(Debug, Default, Clone)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }
    #[inline]
    fn get(&self, k: usize) -> bool {
        self.0.get(k / 64).is_some_and(|w| w >> (k % 64) & 1 == 1)
    }
    #[inline]
    fn set(&mut self, k: usize, on: bool) {
        if let Some(w) = self.0.get_mut(k / 64) {
            if on {
                *w |= 1 << (k % 64);
            } else {
                *w &= !(1 << (k % 64));
            }
        }
    }
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

/// A run of the walk's path: `first..=last` are consecutive entries, each
/// the only child of the one before; `k` children of `last` are done. A
/// long chain is one frame, so the walk's stack grows with the branch
/// points on the path, not with its length.
struct Frame {
    first: u32,
    last: u32,
    k: u32,
}

/// The entry under which pi's `getTree()` lists entry `i` (None: a root).
/// Not quite the parent its path follows ([`crate::index::Index::parent_of`]):
/// `getTree` looks up any `parentId` but `null` (`""`, `0` and `false` too,
/// and a missing one finds the last entry without an id, `undefined`), and
/// an entry whose `parentId === id` is a root. `last_without_id` is that
/// last entry without an id.
pub fn tree_parent(s: &Session, i: usize, last_without_id: Option<usize>) -> Option<usize> {
    use crate::entry::Parent;
    if s.entries.is_own_parent(i) {
        return None;
    }
    if let Some(p) = s.index.parent_of(i) {
        return Some(p);
    }
    match s.entries.parent(i) {
        // undefined === undefined: an entry without id or parent is a root.
        Parent::Missing if s.entries[i].has_id() => last_without_id,
        Parent::Id(id) if !id.truthy() => s.index.get(&id),
        _ => None,
    }
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
        let unique = s.index.ids_unique();
        let node_of = |i: usize| -> usize {
            if unique && s.entries[i].has_id() {
                return i;
            }
            match s.entries.id(i) {
                Some(id) => s.index.get(&id).unwrap_or(i),
                None => last_without_id.unwrap_or(i),
            }
        };
        // The parent under which entry i's node is listed (None: a root).
        let parent_of = |i: usize| tree_parent(s, i, last_without_id);
        let mut t = Tree {
            n,
            ..Tree::default()
        };
        // Which nodes have exactly the next entry as their one child.
        let mut has_child = Bits::new(n);
        let mut other = Bits::new(n);
        for (i, e) in s.entries.iter().enumerate() {
            if e.ty() == EntryType::Session {
                continue;
            }
            let c = node_of(i);
            t.shared |= c != i;
            match parent_of(i) {
                Some(p) if has_child.get(p) => other.set(p, true),
                Some(p) => {
                    has_child.set(p, true);
                    if c != p + 1 {
                        other.set(p, true);
                    }
                }
                None => t.roots.push(c),
            }
        }
        // The other lists, in file order, grouped by parent (stable).
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for (i, e) in s.entries.iter().enumerate() {
            if e.ty() == EntryType::Session {
                continue;
            }
            if let Some(p) = parent_of(i).filter(|&p| other.get(p)) {
                pairs.push((p as u32, node_of(i) as u32));
            }
        }
        drop(other);
        pairs.sort_by_key(|&(p, _)| p);
        let mut list: Vec<u32> = Vec::with_capacity(pairs.len());
        for (k, &(p, c)) in pairs.iter().enumerate() {
            if k == 0 || pairs[k - 1].0 != p {
                t.listed.push(p);
                t.list_start.push(list.len() as u32);
            }
            list.push(c);
        }
        t.list_start.push(list.len() as u32);
        drop(pairs);
        for j in 0..t.listed.len() {
            let c = &mut list[t.list_start[j] as usize..t.list_start[j + 1] as usize];
            if c.len() > 1 {
                sort_children(c, |i| s.entries[i].time());
            }
        }
        t.list = list;
        // Listed nodes are not next-only.
        for &p in &t.listed {
            has_child.set(p as usize, false);
        }
        t.next_only = has_child.0;
        // Reachable from a root: what a walk enters, found without walking
        // every path (with duplicate ids the walk can be exponential).
        let mut seen = Bits::new(n);
        let mut todo: Vec<usize> = t.roots.clone();
        while let Some(mut node) = todo.pop() {
            while !seen.get(node) {
                seen.set(node, true);
                t.reachable += 1;
                let ch = t.children(node);
                if ch.len() == 1 {
                    node = ch[0] as usize;
                } else {
                    todo.extend(ch.iter().map(|&c| c as usize).filter(|&c| !seen.get(c)));
                    break;
                }
            }
        }
        for (i, e) in s.entries.iter().enumerate() {
            if e.ty() != EntryType::Session && !seen.get(i) && node_of(i) == i {
                t.unreachable.push(i);
            }
        }
        t
    }

    /// Whether the children of `node` are exactly `[node + 1]`.
    #[inline]
    fn is_next_only(&self, node: usize) -> bool {
        self.next_only
            .get(node / 64)
            .is_some_and(|w| w >> (node % 64) & 1 == 1)
    }

    /// The children of `node`, sorted as pi sorts them.
    pub fn children(&self, node: usize) -> Children<'_> {
        if self.is_next_only(node) {
            return Children {
                one: [node as u32 + 1],
                many: None,
            };
        }
        let many = match self.listed.binary_search(&(node as u32)) {
            Ok(j) => &self.list[self.list_start[j] as usize..self.list_start[j + 1] as usize],
            Err(_) => &[],
        };
        Children {
            one: [0],
            many: Some(many),
        }
    }

    /// Each node's parent in the tree (`u32::MAX`: none), read off the
    /// lists of children; None when nodes are shared, where a node has
    /// several (the walk's first is then the one to take). A node no root
    /// reaches may have one: only a walk from the roots tells them apart.
    pub fn parents(&self) -> Option<Vec<u32>> {
        if self.shared {
            return None;
        }
        let mut parent = vec![u32::MAX; self.n];
        for (w, &bits) in self.next_only.iter().enumerate() {
            let mut b = bits;
            while b != 0 {
                let node = w * 64 + b.trailing_zeros() as usize;
                b &= b - 1;
                if let Some(slot) = parent.get_mut(node + 1) {
                    *slot = node as u32;
                }
            }
        }
        for (j, &p) in self.listed.iter().enumerate() {
            let kids = &self.list[self.list_start[j] as usize..self.list_start[j + 1] as usize];
            for &c in kids {
                if let Some(slot) = parent.get_mut(c as usize) {
                    *slot = p;
                }
            }
        }
        Some(parent)
    }

    /// The number of entries the tree was built over.
    pub fn len(&self) -> usize {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether some node is reached along more than one edge (duplicate
    /// ids, or several entries without an id).
    pub fn is_shared(&self) -> bool {
        self.shared
    }

    /// The same tree with its roots replaced by `roots` and every list of
    /// children put in the order `order` writes them (the same nodes):
    /// `order(parent, children, out)` adds them to `out`.
    pub fn reordered(
        &self,
        roots: Vec<usize>,
        mut order: impl FnMut(usize, &[u32], &mut Vec<u32>),
    ) -> Tree {
        let mut list = Vec::with_capacity(self.list.len());
        for j in 0..self.listed.len() {
            let c = &self.list[self.list_start[j] as usize..self.list_start[j + 1] as usize];
            order(self.listed[j] as usize, c, &mut list);
        }
        Tree {
            roots,
            n: self.n,
            next_only: self.next_only.clone(),
            listed: self.listed.clone(),
            list_start: self.list_start.clone(),
            list,
            shared: self.shared,
            reachable: self.reachable,
            unreachable: Vec::new(),
        }
    }

    /// Walk the tree in pre-order (children in order), without recursion.
    /// A node reachable twice (duplicate ids) is walked twice, as
    /// `JSON.stringify` would; a node already on the current path is
    /// reported as [`Step::Cycle`] and not entered.
    pub fn walk(&self, mut f: impl FnMut(Step)) {
        self.walk_until(&self.roots, |step| {
            f(step);
            true
        });
    }

    /// How many nodes [`Tree::walk`] enters, or None when more than
    /// `limit`. Duplicate ids make a node reachable along several paths, and
    /// the walk (like pi's `JSON.stringify` of `getTree()`) enters it once
    /// per path: a file whose lines were duplicated a few times gives a
    /// tree exponential in its length. Callers check this first.
    pub fn walk_len(&self, limit: usize) -> Option<usize> {
        if !self.shared {
            // Every node is entered once.
            return (self.reachable <= limit).then_some(self.reachable);
        }
        let mut count = 0usize;
        self.walk_until(&self.roots, |step| {
            if let Step::Enter { .. } = step {
                count += 1;
            }
            count <= limit
        });
        (count <= limit).then_some(count)
    }

    /// [`Tree::walk`] starting from `starts` instead of the roots.
    pub fn walk_from(&self, starts: &[usize], f: &mut impl FnMut(Step)) {
        self.walk_until(starts, |step| {
            f(step);
            true
        });
    }

    /// The walk; it stops when `f` returns false.
    fn walk_until(&self, starts: &[usize], mut f: impl FnMut(Step) -> bool) {
        for step in self.steps_from(starts) {
            if !f(step) {
                return;
            }
        }
    }

    /// [`Tree::walk`] as an iterator.
    pub fn steps(&self) -> Walk<'_> {
        self.steps_from(&self.roots)
    }

    fn steps_from<'t>(&'t self, starts: &'t [usize]) -> Walk<'t> {
        Walk {
            tree: self,
            starts,
            next_start: 0,
            on_path: Bits::new(self.n),
            stack: Vec::new(),
            depth: 0,
        }
    }
}

/// The steps of [`Tree::walk`], one at a time.
pub struct Walk<'t> {
    tree: &'t Tree,
    starts: &'t [usize],
    next_start: usize,
    on_path: Bits,
    stack: Vec<Frame>,
    /// The depth of the last node on the path.
    depth: usize,
}

impl Iterator for Walk<'_> {
    type Item = Step;

    fn next(&mut self) -> Option<Step> {
        let tree = self.tree;
        let Some(top) = self.stack.last_mut() else {
            let r = *self.starts.get(self.next_start)?;
            self.next_start += 1;
            self.on_path.set(r, true);
            self.stack.push(Frame {
                first: r as u32,
                last: r as u32,
                k: 0,
            });
            self.depth = 0;
            return Some(Step::Enter {
                node: r,
                parent: None,
                depth: 0,
            });
        };
        let node = top.last as usize;
        let children = tree.children(node);
        let k = top.k as usize;
        if k < children.len() {
            top.k += 1;
            let c = children[k] as usize;
            if self.on_path.get(c) {
                return Some(Step::Cycle {
                    node: c,
                    parent: node,
                });
            }
            self.depth += 1;
            self.on_path.set(c, true);
            if c == node + 1 && tree.is_next_only(node) {
                // The chain goes on: the same frame.
                top.last = c as u32;
                top.k = 0;
            } else {
                self.stack.push(Frame {
                    first: c as u32,
                    last: c as u32,
                    k: 0,
                });
            }
            Some(Step::Enter {
                node: c,
                parent: Some(node),
                depth: self.depth,
            })
        } else {
            self.on_path.set(node, false);
            if top.last > top.first {
                // Back to the one before, whose only child is done.
                top.last -= 1;
                top.k = 1;
            } else {
                self.stack.pop();
            }
            self.depth = self.depth.saturating_sub(1);
            Some(Step::Leave { node })
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

    /// The lists of children and the walk, as the plain form (one list per
    /// entry, one frame per depth) gives them.
    fn reference(s: &Session, t: &Tree) -> (Vec<Vec<u32>>, Vec<Step>) {
        let n = s.entries.len();
        let last_without_id = s
            .entries
            .iter()
            .rposition(|e| !e.has_id() && e.ty() != EntryType::Session);
        let node_of = |i: usize| match s.entries.id(i) {
            Some(id) => s.index.get(&id).unwrap_or(i),
            None => last_without_id.unwrap_or(i),
        };
        let mut kids: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, e) in s.entries.iter().enumerate() {
            if e.ty() == EntryType::Session {
                continue;
            }
            if let Some(p) = tree_parent(s, i, last_without_id) {
                kids[p].push(node_of(i) as u32);
            }
        }
        for c in &mut kids {
            if c.len() > 1 {
                sort_children(c, |i| s.entries[i].time());
            }
        }
        let mut steps = Vec::new();
        let mut on_path = vec![false; n];
        for &r in &t.roots {
            steps.push(Step::Enter {
                node: r,
                parent: None,
                depth: 0,
            });
            on_path[r] = true;
            let mut stack: Vec<(usize, usize)> = vec![(r, 0)];
            while let Some(top) = stack.last_mut() {
                let (node, k) = *top;
                if k < kids[node].len() {
                    top.1 += 1;
                    let c = kids[node][k] as usize;
                    if on_path[c] {
                        steps.push(Step::Cycle {
                            node: c,
                            parent: node,
                        });
                        continue;
                    }
                    steps.push(Step::Enter {
                        node: c,
                        parent: Some(node),
                        depth: stack.len(),
                    });
                    on_path[c] = true;
                    stack.push((c, 0));
                } else {
                    stack.pop();
                    on_path[node] = false;
                    steps.push(Step::Leave { node });
                }
            }
        }
        (kids, steps)
    }

    /// Random sessions: chains along the file (one bit a link), branches,
    /// parents later in the file, unknown parents, own parents, duplicate
    /// and missing ids, equal and invalid timestamps.
    #[test]
    fn compact_tree_matches_the_plain_one() {
        let mut x = crate::test_rng::xorshift(0x2545_f491_4f6c_dd1du64);
        let mut rand = move |n: usize| (x() % n.max(1) as u64) as usize;
        for round in 0..300 {
            let n = 1 + rand(if round % 10 == 0 { 300 } else { 25 });
            let dup_rate = if round % 3 == 0 { 0 } else { 8 };
            let mut text = String::from(
                "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"cwd\":\"/\"}\n",
            );
            let mut ids: Vec<String> = Vec::new();
            for i in 0..n {
                let id = if dup_rate > 0 && i > 0 && rand(dup_rate) == 0 {
                    ids[rand(i)].clone()
                } else {
                    format!("{i:08x}")
                };
                let parent = match rand(10) {
                    _ if i == 0 => "null".to_string(),
                    0..=5 => format!("\"{}\"", ids[i - 1]),
                    6 | 7 => format!("\"{}\"", ids[rand(i)]),
                    8 => format!("\"{:08x}\"", rand(n + 3)),
                    _ => "null".to_string(),
                };
                let time = match rand(6) {
                    0 => "\"nope\"".to_string(),
                    1 => "\"2025-01-01T00:00:01.000Z\"".to_string(),
                    _ => format!("\"2025-01-01T00:{:02}:{:02}.000Z\"", rand(60), rand(60)),
                };
                let id_field = if dup_rate > 0 && rand(40) == 0 {
                    String::new()
                } else {
                    format!("\"id\":\"{id}\",")
                };
                text.push_str(&format!(
                    "{{\"type\":\"custom\",\"customType\":\"x\",{id_field}\"parentId\":{parent},\"timestamp\":{time}}}\n"
                ));
                ids.push(id);
            }
            let s =
                Session::from_bytes("t", text.into_bytes(), Default::default()).expect("a session");
            let t = Tree::build(&s);
            let (kids, steps) = reference(&s, &t);
            for (k, c) in kids.iter().enumerate() {
                assert_eq!(&*t.children(k), &c[..], "children of {k}");
            }
            let limit = 50_000;
            let mut got = Vec::new();
            t.walk(|step| {
                if got.len() <= limit {
                    got.push(step)
                }
            });
            // Where no node is shared, the lists' parents are the walk's.
            if let Some(parents) = t.parents() {
                for step in &steps {
                    if let Step::Enter { node, parent, .. } = step {
                        let want = parent.map_or(u32::MAX, |p| p as u32);
                        assert_eq!(parents[*node], want, "parent of {node}");
                    }
                }
            } else {
                assert!(t.is_shared());
            }
            if steps.len() <= limit {
                assert_eq!(got, steps);
                let entered = steps
                    .iter()
                    .filter(|s| matches!(s, Step::Enter { .. }))
                    .count();
                assert_eq!(t.walk_len(usize::MAX), Some(entered));
                assert_eq!(t.walk_len(entered), Some(entered));
                if entered > 0 {
                    assert_eq!(t.walk_len(entered - 1), None);
                }
            }
        }
    }

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
