//! The order the page shows entries in: pi's tree walked in pre-order,
//! with the child on the active path first at every branch point. So the
//! active path, root to leaf, is one unbroken run at the top of the page,
//! and every other branch follows as a run of its own that starts where it
//! leaves its parent (an ancestor always comes before its descendants:
//! the script shows any path by hiding the rest, in document order).

use crate::error::{Error, Result};
use crate::session::Session;
use crate::tree::{Step, Tree};

/// One entry as the page shows it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Node {
    pub entry: u32,
    /// The entry it was reached from (none for a root or an unreachable one).
    pub parent: Option<u32>,
    /// How many branch points are above it (the sidebar's indent).
    pub indent: u32,
    /// It starts a branch of its own: not the first child of its parent.
    pub branch_start: bool,
    /// Its number of children in the tree.
    pub children: u32,
    /// On the active path (root to the leaf shown first).
    pub active: bool,
}

/// The entries in page order, and the leaf shown first. The order is
/// walked again for each pass over it (the sidebar, the articles), not
/// kept: a node per entry would be the page's largest allocation.
pub(crate) struct Layout {
    /// The tree, the active path's child first at each branch point.
    tree: Tree,
    pub leaf: Option<usize>,
    /// How many nodes the walk from the roots gives (the rest: entries no
    /// root reaches).
    pub walked: usize,
    /// Entries no root reaches (a cycle of parents), in file order.
    unreachable: Vec<u32>,
    /// The children of each branch point, in page order.
    pub forks: std::collections::HashMap<u32, Vec<u32>>,
    /// Whether each entry is on the active path.
    pub on_path: Vec<bool>,
}

/// Lay out `s` with `leaf` as the leaf shown first.
pub(crate) fn layout(s: &Session, leaf: Option<usize>) -> Result<Layout> {
    let n = s.entries.len();
    let mut on_path = vec![false; n];
    let mut at = leaf;
    let mut steps = 0;
    while let Some(i) = at {
        if on_path[i] || steps > n {
            break;
        }
        on_path[i] = true;
        steps += 1;
        at = s.index.parent_of(i);
    }
    let first = |kids: &[u32], out: &mut Vec<u32>| {
        out.extend(kids.iter().copied().filter(|&k| on_path[k as usize]));
        out.extend(kids.iter().copied().filter(|&k| !on_path[k as usize]));
    };
    let tree = {
        let tree = Tree::build(s);
        let r: Vec<u32> = tree.roots.iter().map(|&x| x as u32).collect();
        let mut o = Vec::with_capacity(r.len());
        first(&r, &mut o);
        let roots = o.into_iter().map(|x| x as usize).collect();
        tree.reordered(roots, |_, kids, out| first(kids, out))
    };
    // Duplicate ids can make the walk exponential: refuse a walk far
    // longer than the file.
    if tree
        .walk_len(n.saturating_mul(4).saturating_add(64))
        .is_none()
    {
        return Err(Error::request(
            &s.name,
            "its duplicate ids make the tree far larger than the file; no page is written",
        ));
    }
    let mut seen = vec![false; n];
    let mut walked = 0;
    let mut forks = std::collections::HashMap::new();
    for step in tree.steps() {
        let Step::Enter { node, .. } = step else {
            continue;
        };
        walked += 1;
        seen[node] = true;
        let kids = tree.children(node);
        if kids.len() > 1 {
            forks.entry(node as u32).or_insert_with(|| kids.to_vec());
        }
    }
    // Entries no root reaches (a cycle of parents): shown at the end, so
    // that nothing in the file is left out.
    let unreachable = (0..n)
        .filter(|&i| !seen[i] && s.entries[i].ty() != crate::entry::EntryType::Session)
        .map(|i| i as u32)
        .collect();
    Ok(Layout {
        tree,
        leaf,
        walked,
        unreachable,
        forks,
        on_path,
    })
}

impl Layout {
    /// How many nodes the page shows.
    pub(crate) fn len(&self) -> usize {
        self.walked + self.unreachable.len()
    }

    /// Call `f` on each node in page order with its position, stopping at
    /// the first error.
    pub(crate) fn each(&self, mut f: impl FnMut(usize, &Node) -> Result<()>) -> Result<()> {
        let tree = &self.tree;
        let mut indent_at: Vec<u32> = Vec::new();
        let mut first_root = true;
        let mut k = 0;
        for step in tree.steps() {
            let Step::Enter {
                node,
                parent,
                depth,
            } = step
            else {
                continue;
            };
            indent_at.truncate(depth);
            let (indent, branch_start) = match parent {
                None => {
                    let b = !first_root;
                    first_root = false;
                    (0, b)
                }
                Some(p) => {
                    let pk = tree.children(p);
                    let pi = indent_at.last().copied().unwrap_or(0);
                    let fork = pk.len() > 1;
                    (pi + fork as u32, pk.first() != Some(&(node as u32)))
                }
            };
            indent_at.push(indent);
            f(
                k,
                &Node {
                    entry: node as u32,
                    parent: parent.map(|p| p as u32),
                    indent,
                    branch_start,
                    children: tree.children(node).len() as u32,
                    active: self.on_path[node],
                },
            )?;
            k += 1;
        }
        for &i in &self.unreachable {
            f(
                k,
                &Node {
                    entry: i,
                    parent: None,
                    indent: 0,
                    branch_start: true,
                    children: 0,
                    active: false,
                },
            )?;
            k += 1;
        }
        Ok(())
    }
}
