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
use std::sync::Arc;

/// The gutters of a row: (level, shown), shared by rows.
pub(super) type Gutters = Arc<Vec<(usize, bool)>>;

/// One visible line: a flat position and its visual structure.
#[derive(Clone, Default)]
pub(super) struct Visual {
    pub(super) indent: usize,
    pub(super) show_connector: bool,
    pub(super) is_last: bool,
    pub(super) gutters: Gutters,
    pub(super) virtual_root_child: bool,
}

/// flattenTree()'s rule for a node's children: their indent (branch points,
/// and the first generation after one, shift right) and gutters (a gutter
/// where the node's connector is shown).
#[allow(clippy::too_many_arguments)]
fn child_layout(
    indent: usize,
    just_branched: bool,
    show_connector: bool,
    virtual_root_child: bool,
    is_last: bool,
    gutters: &Gutters,
    multiple_children: bool,
    multiple_roots: bool,
) -> (usize, Gutters) {
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
    let child_gutters = if show_connector && !virtual_root_child {
        let mut g = (**gutters).clone();
        g.push((display.saturating_sub(1), !is_last));
        Arc::new(g)
    } else {
        gutters.clone()
    };
    (child_indent, child_gutters)
}

impl View<'_> {
    /// `recalculateVisualStructure()`: the visual structure of the visible positions.
    pub(super) fn visuals(&self, vis: &[usize]) -> (Vec<Visual>, bool) {
        let n = self.s.entries.len();
        let mut visual = vec![Visual::default(); vis.len()];
        if vis.is_empty() {
            return (visual, false);
        }
        let mut visible = vec![false; n];
        let mut in_flat = vec![false; n];
        for &(i, _) in &self.flat {
            in_flat[i] = true;
        }
        for &k in vis {
            visible[self.flat[k].0] = true;
        }
        let parent_in_view = |i: usize| -> Option<usize> {
            self.s
                .entries
                .parent_key(i)
                .and_then(|p| self.s.index.get(&p))
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
        drop(fill);
        let multiple_roots = roots.len() > 1;
        type Frame = (usize, usize, bool, bool, bool, Gutters, bool);
        let mut stack: Vec<Frame> = Vec::new();
        let empty = Arc::new(Vec::new());
        for (r, &root) in roots.iter().enumerate().rev() {
            let last = r == roots.len() - 1;
            stack.push((
                root,
                usize::from(multiple_roots),
                multiple_roots,
                multiple_roots,
                last,
                empty.clone(),
                multiple_roots,
            ));
        }
        let mut done = vec![false; n];
        while let Some((i, indent, just_branched, show_connector, is_last, gutters, vrc)) =
            stack.pop()
        {
            let v = pos_of[i] as usize;
            if v == NO as usize || done[i] {
                continue;
            }
            done[i] = true;
            visual[v] = Visual {
                indent,
                show_connector,
                is_last,
                gutters: gutters.clone(),
                virtual_root_child: vrc,
            };
            let children = &kids[first[i] as usize..first[i + 1] as usize];
            let multiple = children.len() > 1;
            let (child_indent, child_gutters) = child_layout(
                indent,
                just_branched,
                show_connector,
                vrc,
                is_last,
                &gutters,
                multiple,
                multiple_roots,
            );
            for (c, &child) in children.iter().enumerate().rev() {
                stack.push((
                    child,
                    child_indent,
                    multiple,
                    multiple,
                    c == children.len() - 1,
                    child_gutters.clone(),
                    false,
                ));
            }
        }
        (visual, multiple_roots)
    }

    /// pi's flattenTree() layout of every row of the whole tree, in
    /// `flat` order: what a row keeps where recalculateVisualStructure()
    /// does not reach it (with duplicate ids it updates only the last row
    /// of each id).
    fn flatten_visuals(&self) -> Vec<Visual> {
        struct Occ {
            child_indent: usize,
            multiple: bool,
            child_gutters: Gutters,
            children: usize,
            k: usize,
        }
        let roots = self.ordered.roots.len();
        let mr = roots > 1;
        let empty = Arc::new(Vec::new());
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
                            (usize::from(mr), mr, mr, last, empty.clone(), mr)
                        }
                        Some(p) => {
                            let k = p.k;
                            p.k += 1;
                            (
                                p.child_indent,
                                p.multiple,
                                p.multiple,
                                k + 1 == p.children,
                                p.child_gutters.clone(),
                                false,
                            )
                        }
                    };
                let children = self.ordered.children(node).len();
                let multiple = children > 1;
                let (child_indent, child_gutters) = child_layout(
                    indent,
                    just_branched,
                    show_connector,
                    vrc,
                    is_last,
                    &gutters,
                    multiple,
                    mr,
                );
                out.push(Visual {
                    indent,
                    show_connector,
                    is_last,
                    gutters,
                    virtual_root_child: vrc,
                });
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
    fn recalculate(&self, vis: &[usize], rows: &mut [Visual]) -> Result<bool> {
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
        type Frame = (Option<Id>, usize, bool, bool, bool, Gutters, bool);
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
        let empty = Arc::new(Vec::new());
        for (c, id) in last_places(&roots).into_iter().rev() {
            stack.push((
                id,
                usize::from(mr),
                mr,
                mr,
                c + 1 == roots.len(),
                empty.clone(),
                mr,
            ));
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
            rows[k] = Visual {
                indent,
                show_connector,
                is_last,
                gutters: gutters.clone(),
                virtual_root_child: vrc,
            };
            // No visible ancestor is an id-less entry.
            let kids: &[Option<Id>] = match &id {
                Some(_) => children.get(&id).map(Vec::as_slice).unwrap_or(&[]),
                None => &[],
            };
            let multiple = kids.len() > 1;
            let (child_indent, child_gutters) = child_layout(
                indent,
                just_branched,
                show_connector,
                vrc,
                is_last,
                &gutters,
                multiple,
                mr,
            );
            for (c, child) in last_places(kids).into_iter().rev() {
                stack.push((
                    child,
                    child_indent,
                    multiple,
                    multiple,
                    c + 1 == kids.len(),
                    child_gutters.clone(),
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
    ) -> Result<(Vec<Visual>, bool)> {
        let mut rows = self.flatten_visuals();
        if rows.len() != self.flat.len() {
            return Ok(self.visuals(vis));
        }
        if search.is_some_and(|q| !string::trim(q).is_empty()) {
            let first = self.visible(filter, None, true)?;
            self.recalculate(&first, &mut rows)?;
        }
        let mr = self.recalculate(vis, &mut rows)?;
        Ok((vis.iter().map(|&k| rows[k].clone()).collect(), mr))
    }
}
