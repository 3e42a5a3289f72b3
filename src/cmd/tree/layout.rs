//! The rows' layout in pi's /tree: indentation, connectors and gutters,
//! as `flattenTree()` and `recalculateVisualStructure()` work them out
//! (the latter by entry id, as pi runs it, for trees with duplicate ids).

use super::view::View;
use super::Filter;
use crate::entry::Id;
use crate::error::Result;
use crate::json::js::string;
use crate::tree::Step;
use std::collections::{HashMap, HashSet};

/// The gutters of a row: its list's place in [`Lists`] (0: none).
pub(super) type Gutters = u32;

/// The gutter lists of a layout, each (level, shown), shared by the rows
/// that have it: a list is made where a connector is shown above
/// children, once for all of them.
pub(super) struct Lists(Vec<Vec<(usize, bool)>>);

impl Lists {
    fn new() -> Lists {
        Lists(vec![Vec::new()])
    }

    /// The list `g`.
    pub(super) fn get(&self, g: Gutters) -> &[(usize, bool)] {
        self.0.get(g as usize).map_or(&[], Vec::as_slice)
    }

    /// A new list: `g` and one more gutter.
    fn with(&mut self, g: Gutters, gutter: (usize, bool)) -> Gutters {
        let mut list = self.get(g).to_vec();
        list.push(gutter);
        self.0.push(list);
        u32::try_from(self.0.len() - 1).unwrap_or(0)
    }
}

/// One visible line's visual structure (12 bytes: a million rows are laid
/// out at once).
#[derive(Clone, Copy, Default)]
pub(super) struct Visual {
    pub(super) indent: u32,
    pub(super) gutters: Gutters,
    pub(super) show_connector: bool,
    pub(super) is_last: bool,
    pub(super) virtual_root_child: bool,
}

/// The visual structure of the rows shown, and the lists their gutters
/// are in.
pub(super) struct Layout {
    pub(super) rows: Vec<Visual>,
    pub(super) lists: Lists,
    pub(super) multiple_roots: bool,
}

/// flattenTree()'s rule for the children of `node` (laid out already;
/// `just_branched` is pi's flag of that name): their indent (branch points,
/// and the first generation after one, shift right) and gutters (a gutter
/// where the node's connector is shown).
#[inline]
fn child_layout(
    lists: &mut Lists,
    node: &Visual,
    just_branched: bool,
    multiple_children: bool,
    multiple_roots: bool,
) -> (u32, Gutters) {
    let indent = node.indent;
    let child_indent = if multiple_children || (just_branched && indent > 0) {
        indent + 1
    } else {
        indent
    };
    let display = if multiple_roots {
        indent.saturating_sub(1)
    } else {
        indent
    };
    let child_gutters = if node.show_connector && !node.virtual_root_child {
        lists.with(
            node.gutters,
            (display.saturating_sub(1) as usize, !node.is_last),
        )
    } else {
        node.gutters
    };
    (child_indent, child_gutters)
}

/// The rows of a view by their nearest visible ancestor.
struct VisibleChildren {
    /// The entries without a visible ancestor.
    roots: Vec<usize>,
    /// Each entry's row (`u32::MAX`: not shown).
    pos_of: Vec<u32>,
    /// Entry `a`'s children are `kids[first[a]..first[a + 1]]`.
    first: Vec<u32>,
    kids: Vec<usize>,
}

impl VisibleChildren {
    /// The shown children of entry `i`, in row order.
    #[inline]
    fn of(&self, i: usize) -> &[usize] {
        &self.kids[self.first[i] as usize..self.first[i + 1] as usize]
    }
}

impl View<'_> {
    /// `recalculateVisualStructure()`: the visual structure of the visible positions.
    pub(super) fn visuals(&self, vis: &[usize]) -> Layout {
        let n = self.s.entries.len();
        let mut visual = vec![Visual::default(); vis.len()];
        let mut lists = Lists::new();
        if vis.is_empty() {
            return Layout {
                rows: visual,
                lists,
                multiple_roots: false,
            };
        }
        let kids = self.visible_children(vis);
        let (roots, pos_of) = (&kids.roots, &kids.pos_of);
        let multiple_roots = roots.len() > 1;
        // Pre-order, a level a list of siblings (the roots first), each
        // child laid out as it is reached: one frame a parent, not a child.
        struct Level<'k> {
            list: &'k [usize],
            next: usize,
            indent: u32,
            /// `justBranched` and `showConnector` of the list's rows.
            branched: bool,
            gutters: Gutters,
            virtual_root_child: bool,
        }
        let mut stack = vec![Level {
            list: roots,
            next: 0,
            indent: u32::from(multiple_roots),
            branched: multiple_roots,
            gutters: 0,
            virtual_root_child: multiple_roots,
        }];
        let mut done = vec![false; n];
        const NO: u32 = u32::MAX;
        while let Some(top) = stack.last_mut() {
            let Some(&i) = top.list.get(top.next) else {
                stack.pop();
                continue;
            };
            top.next += 1;
            let is_last = top.next == top.list.len();
            let (indent, branched, gutters, vrc) = (
                top.indent,
                top.branched,
                top.gutters,
                top.virtual_root_child,
            );
            let v = pos_of[i] as usize;
            if v == NO as usize || done[i] {
                continue;
            }
            done[i] = true;
            let row = Visual {
                indent,
                show_connector: branched,
                is_last,
                gutters,
                virtual_root_child: vrc,
            };
            visual[v] = row;
            let children = kids.of(i);
            if children.is_empty() {
                // A leaf of the view: no child layout to work out (its
                // gutters would be a new list for nobody).
                continue;
            }
            let multiple = children.len() > 1;
            let (child_indent, child_gutters) =
                child_layout(&mut lists, &row, branched, multiple, multiple_roots);
            stack.push(Level {
                list: children,
                next: 0,
                indent: child_indent,
                branched: multiple,
                gutters: child_gutters,
                virtual_root_child: false,
            });
        }
        Layout {
            rows: visual,
            lists,
            multiple_roots,
        }
    }

    /// Each row's children in the view: the rows whose nearest visible
    /// ancestor it is, in row order; the rows without one are the roots.
    #[inline]
    fn visible_children(&self, vis: &[usize]) -> VisibleChildren {
        let n = self.s.entries.len();
        let mut visible = vec![false; n];
        let mut in_flat = vec![false; n];
        for &(i, _) in &self.flat {
            in_flat[i] = true;
        }
        for &k in vis {
            visible[self.flat[k].0] = true;
        }
        // The entry the parent id names: the index's find where it made
        // one (the same entry), else a look-up (falsy ids, a second header).
        let parent_in_view = |i: usize| -> Option<usize> {
            self.s.index.parent_of(i).or_else(|| {
                self.s
                    .entries
                    .parent_key(i)
                    .and_then(|p| self.s.index.get(&p))
            })
        };
        // The nearest visible ancestor of each row, by entry. The walk up
        // from an entry depends only on where it starts, so what a hidden
        // entry leads to is kept (`above`), and a run of hidden entries
        // is walked once, not once per row below it.
        const NO: u32 = u32::MAX;
        const UNKNOWN: u32 = u32::MAX - 1;
        let mut above = vec![UNKNOWN; n];
        let mut run: Vec<usize> = Vec::new();
        let mut nearest = |start: Option<usize>| -> Option<usize> {
            run.clear();
            let mut cur = start;
            let found = loop {
                match cur {
                    None => break NO,
                    Some(p) if visible[p] => break p as u32,
                    Some(p) if above[p] != UNKNOWN => break above[p],
                    Some(p) if in_flat[p] && run.len() <= n => {
                        run.push(p);
                        cur = parent_in_view(p);
                    }
                    Some(_) => break NO,
                }
            };
            for &p in &run {
                above[p] = found;
            }
            (found != NO).then_some(found as usize)
        };
        let mut roots: Vec<usize> = Vec::new();
        // Children by their nearest visible ancestor, in row order: counted,
        // then placed (`first[a]..first[a + 1]` in `kids`).
        let mut anc = vec![NO; vis.len()];
        let mut pos_of = vec![NO; n];
        let mut first = vec![0u32; n + 1];
        for (v, &k) in vis.iter().enumerate() {
            let i = self.flat[k].0;
            pos_of[i] = v as u32;
            let start = if in_flat[i] { parent_in_view(i) } else { None };
            match nearest(start) {
                None => roots.push(i),
                Some(a) => {
                    anc[v] = a as u32;
                    first[a + 1] += 1;
                }
            }
        }
        for a in 0..n {
            first[a + 1] += first[a];
        }
        let mut fill = first.clone();
        let mut kids = vec![0usize; first[n] as usize];
        for (v, &k) in vis.iter().enumerate() {
            if anc[v] != NO {
                let a = anc[v] as usize;
                kids[fill[a] as usize] = self.flat[k].0;
                fill[a] += 1;
            }
        }
        VisibleChildren {
            roots,
            pos_of,
            first,
            kids,
        }
    }

    /// pi's flattenTree() layout of every row of the whole tree, in
    /// `flat` order: what a row keeps where recalculateVisualStructure()
    /// does not reach it (with duplicate ids it updates only the last row
    /// of each id).
    fn flatten_visuals(&self, lists: &mut Lists) -> Vec<Visual> {
        struct Occ {
            child_indent: u32,
            multiple: bool,
            child_gutters: Gutters,
            children: usize,
            k: usize,
        }
        let roots = self.ordered.roots.len();
        let mr = roots > 1;
        let mut out = Vec::with_capacity(self.flat.len());
        let mut stack: Vec<Occ> = Vec::new();
        let mut root_k = 0;
        self.ordered.walk(|step| match step {
            Step::Enter { node, .. } => {
                let (indent, just_branched, show_connector, is_last, gutters, vrc) =
                    match stack.last_mut() {
                        None => {
                            let last = root_k + 1 == roots;
                            root_k += 1;
                            (u32::from(mr), mr, mr, last, 0, mr)
                        }
                        Some(p) => {
                            let k = p.k;
                            p.k += 1;
                            (
                                p.child_indent,
                                p.multiple,
                                p.multiple,
                                k + 1 == p.children,
                                p.child_gutters,
                                false,
                            )
                        }
                    };
                let children = self.ordered.children(node).len();
                let multiple = children > 1;
                let row = Visual {
                    indent,
                    show_connector,
                    is_last,
                    gutters,
                    virtual_root_child: vrc,
                };
                let (child_indent, child_gutters) =
                    child_layout(lists, &row, just_branched, multiple, mr);
                out.push(row);
                stack.push(Occ {
                    child_indent,
                    multiple,
                    child_gutters,
                    children,
                    k: 0,
                });
            }
            Step::Cycle { .. } => {
                if let Some(p) = stack.last_mut() {
                    p.k += 1;
                }
            }
            Step::Leave { .. } => {
                stack.pop();
            }
        });
        out
    }

    /// pi's recalculateVisualStructure() on the rows `vis` (positions in
    /// `flat`), as pi runs it: by entry id, so that with duplicate ids only
    /// the last row of an id is laid out anew and the others keep what
    /// they had. Returns the new `multipleRoots`.
    fn recalculate(&self, vis: &[usize], rows: &mut [Visual], lists: &mut Lists) -> Result<bool> {
        let key = |k: usize| self.s.entries.id(self.flat[k].0);
        let mut entry_map: HashMap<Option<Id>, usize> = HashMap::new();
        for k in 0..self.flat.len() {
            entry_map.insert(key(k), k);
        }
        let visible: HashSet<Option<Id>> = vis.iter().map(|&k| key(k)).collect();
        let parent_of = |k: usize| self.s.entries.parent_key(self.flat[k].0);
        let n = self.flat.len();
        let ancestor = |k: usize| -> Option<Id> {
            let mut cur = entry_map.get(&key(k)).and_then(|&m| parent_of(m));
            let mut steps = 0;
            while let Some(c) = cur {
                let c = Some(c);
                if visible.contains(&c) {
                    return c;
                }
                steps += 1;
                if steps > n {
                    return None; // a cycle of ids: pi would loop here
                }
                cur = entry_map.get(&c).and_then(|&m| parent_of(m));
            }
            None
        };
        // Children by their nearest visible ancestor's id (None: the roots).
        let mut children: HashMap<Option<Id>, Vec<Option<Id>>> = HashMap::new();
        children.insert(None, Vec::new());
        let mut filtered: HashMap<Option<Id>, usize> = HashMap::new();
        for &k in vis {
            children.entry(ancestor(k)).or_default().push(key(k));
            filtered.insert(key(k), k);
        }
        let roots = children.get(&None).cloned().unwrap_or_default();
        let mr = roots.len() > 1;
        // pi pops an id once per time it is listed, and its children once
        // per pop: exponential with duplicate ids. But the row of an id
        // ends with what its last pop wrote, and that pop comes from its
        // ancestor's last pop, at its last place in the ancestor's list;
        // so each id is laid out once, from there.
        type Frame = (Option<Id>, u32, bool, bool, bool, Gutters, bool);
        let last_places = |list: &[Option<Id>]| -> Vec<(usize, Option<Id>)> {
            let mut last: HashMap<&Option<Id>, usize> = HashMap::new();
            for (c, id) in list.iter().enumerate() {
                last.insert(id, c);
            }
            let mut v: Vec<(usize, Option<Id>)> =
                last.into_iter().map(|(id, c)| (c, id.clone())).collect();
            v.sort_by_key(|&(c, _)| c);
            v
        };
        let mut stack: Vec<Frame> = Vec::new();
        for (c, id) in last_places(&roots).into_iter().rev() {
            stack.push((id, u32::from(mr), mr, mr, c + 1 == roots.len(), 0, mr));
        }
        let mut done: HashSet<Option<Id>> = HashSet::new();
        while let Some((id, indent, just_branched, show_connector, is_last, gutters, vrc)) =
            stack.pop()
        {
            if !done.insert(id.clone()) {
                continue;
            }
            let Some(&k) = filtered.get(&id) else {
                continue;
            };
            let row = Visual {
                indent,
                show_connector,
                is_last,
                gutters,
                virtual_root_child: vrc,
            };
            rows[k] = row;
            // No visible ancestor is an id-less entry.
            let kids: &[Option<Id>] = match &id {
                Some(_) => children.get(&id).map(Vec::as_slice).unwrap_or(&[]),
                None => &[],
            };
            if kids.is_empty() {
                continue;
            }
            let multiple = kids.len() > 1;
            let (child_indent, child_gutters) =
                child_layout(lists, &row, just_branched, multiple, mr);
            for (c, child) in last_places(kids).into_iter().rev() {
                stack.push((
                    child,
                    child_indent,
                    multiple,
                    multiple,
                    c + 1 == kids.len(),
                    child_gutters,
                    false,
                ));
            }
        }
        Ok(mr)
    }

    /// The rows' layout when nodes are shared (duplicate ids): pi lays the
    /// whole tree out, then the filtered rows by id, once for the filter
    /// and once more for a search (one with words: a query that is blank
    /// to JavaScript's `trim()` keeps the rows the filter let through).
    pub(super) fn visuals_shared(
        &self,
        filter: Filter,
        search: Option<&str>,
        vis: &[usize],
    ) -> Result<Layout> {
        let mut lists = Lists::new();
        let mut rows = self.flatten_visuals(&mut lists);
        if rows.len() != self.flat.len() {
            return Ok(self.visuals(vis));
        }
        if search.is_some_and(|q| !string::trim(q).is_empty()) {
            let first = self.visible(filter, None, true)?;
            self.recalculate(&first, &mut rows, &mut lists)?;
        }
        let multiple_roots = self.recalculate(vis, &mut rows, &mut lists)?;
        Ok(Layout {
            rows: vis.iter().map(|&k| rows[k]).collect(),
            lists,
            multiple_roots,
        })
    }
}
