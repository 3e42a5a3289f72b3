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

/// The entries in page order, and the leaf shown first.
pub(crate) struct Layout {
    pub nodes: Vec<Node>,
    pub leaf: Option<usize>,
    /// How many of `nodes` the walk from the roots gave (the rest: entries
    /// no root reaches).
    pub walked: usize,
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
    let tree = Tree::build(s);
    let first = |kids: &[u32], out: &mut Vec<u32>| {
        out.extend(kids.iter().copied().filter(|&k| on_path[k as usize]));
        out.extend(kids.iter().copied().filter(|&k| !on_path[k as usize]));
    };
    let mut roots = Vec::with_capacity(tree.roots.len());
    {
        let r: Vec<u32> = tree.roots.iter().map(|&x| x as u32).collect();
        let mut o = Vec::new();
        first(&r, &mut o);
        roots.extend(o.into_iter().map(|x| x as usize));
    }
    let tree = tree.reordered(roots, |_, kids, out| first(kids, out));
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
    let mut nodes = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut indent_at: Vec<u32> = Vec::new();
    let mut first_root = true;
    let mut forks = std::collections::HashMap::new();
    tree.walk(|step| {
        let Step::Enter {
            node,
            parent,
            depth,
        } = step
        else {
            return;
        };
        indent_at.truncate(depth);
        let kids = tree.children(node).len() as u32;
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
        if kids > 1 {
            forks
                .entry(node as u32)
                .or_insert_with(|| tree.children(node).to_vec());
        }
        seen[node] = true;
        nodes.push(Node {
            entry: node as u32,
            parent: parent.map(|p| p as u32),
            indent,
            branch_start,
            children: kids,
            active: on_path[node],
        });
    });
    let walked = nodes.len();
    // Entries no root reaches (a cycle of parents): shown at the end, so
    // that nothing in the file is left out.
    for (i, _) in seen.iter().enumerate().filter(|(_, &w)| !w) {
        if s.entries[i].ty() != crate::entry::EntryType::Session {
            nodes.push(Node {
                entry: i as u32,
                parent: None,
                indent: 0,
                branch_start: true,
                children: 0,
                active: false,
            });
        }
    }
    Ok(Layout {
        nodes,
        leaf,
        walked,
        forks,
        on_path,
    })
}
