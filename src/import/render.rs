//! A [`Conversation`] written as a version-3 pi session: ids drawn from the
//! source, parents before children, the resume entry last (pi continues
//! from the last entry of a file).

use super::ids::{uuid, EntryIds};
use super::{Body, Conversation, Node, J};

/// A source imported: the file to write and what it holds.
pub(crate) struct Imported {
    /// The pi session id (drawn from the source).
    pub id: String,
    /// The source's absolute path (the header's `importedFrom.path`).
    pub source: String,
    /// pi's name for the file: `<time>_<id>.jsonl`.
    pub file_name: String,
    pub bytes: Vec<u8>,
    pub entries: usize,
    pub leaves: usize,
    /// Entries of the conversation (none: a file of titles only).
    pub messages: usize,
}

/// Write `c`, read from `source` (`source_len` bytes), as a pi session.
pub(crate) fn render(c: &Conversation, source: &str, source_len: u64) -> Imported {
    let stem = std::path::Path::new(source)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let id = uuid(&[c.agent.name(), &c.session_id, &stem]);
    let nodes: Vec<&Node> = c.preamble.iter().chain(&c.nodes).collect();
    let parents = parents(c);
    let order = order(&parents, c.resume.map(|r| r + c.preamble.len()));
    let mut draw = EntryIds::new(&id);
    let ids: Vec<String> = nodes.iter().map(|n| draw.draw(&n.key)).collect();
    // About the source's size: grown a few times at most, not doubled
    // from nothing.
    let mut out = Vec::with_capacity(usize::try_from(source_len).unwrap_or(0).min(1 << 30));
    header(c, &id, source, source_len, order.len()).write(&mut out);
    out.push(b'\n');
    for &i in &order {
        // Ids are hex digits: no escape.
        let parent = parents[i].map_or(J::Null, |p| J::Src(&ids[p]));
        write_entry(nodes[i], &ids[i], parent, &mut out);
        out.push(b'\n');
    }
    let mut has_child = vec![false; nodes.len()];
    for p in parents.iter().flatten() {
        has_child[*p] = true;
    }
    let file_time = c.timestamp.replace([':', '.'], "-");
    Imported {
        file_name: format!("{file_time}_{id}.jsonl"),
        source: source.to_string(),
        id,
        bytes: out,
        entries: order.len(),
        leaves: has_child.iter().filter(|h| !**h).count(),
        messages: c.nodes.len(),
    }
}

/// Each entry's parent (indices over preamble then nodes): the preamble
/// chained, the first conversation root under its last entry.
fn parents(c: &Conversation) -> Vec<Option<usize>> {
    let pre = c.preamble.len();
    let mut v: Vec<Option<usize>> = (0..pre).map(|i| i.checked_sub(1)).collect();
    let mut hung = false;
    for n in &c.nodes {
        v.push(match n.parent {
            Some(p) => Some(p + pre),
            None if !hung && pre > 0 => {
                hung = true;
                Some(pre - 1)
            }
            None => None,
        });
    }
    v
}

/// The order to write: the reading order, a child held back until its
/// parent is written, and `resume` last when it is a leaf.
fn order(parents: &[Option<usize>], resume: Option<usize>) -> Vec<usize> {
    let n = parents.len();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut waiting: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, p) in parents.iter().enumerate() {
        if let Some(p) = p {
            children[*p].push(i);
        }
    }
    let mut written = vec![false; n];
    let mut out = Vec::with_capacity(n);
    let resume_leaf = resume.filter(|&r| r < n && children[r].is_empty());
    for (i, parent) in parents.iter().enumerate() {
        if Some(i) == resume_leaf {
            continue;
        }
        match *parent {
            Some(p) if !written[p] && p != i => waiting[p].push(i),
            _ => {
                // Written, then whatever waited for it, depth first.
                let mut stack = vec![i];
                while let Some(j) = stack.pop() {
                    written[j] = true;
                    out.push(j);
                    stack.extend(std::mem::take(&mut waiting[j]).into_iter().rev());
                }
            }
        }
    }
    // Cycles (the readers make none) would be left waiting: written anyway.
    for (i, w) in written.iter().enumerate() {
        if !w && Some(i) != resume_leaf {
            out.push(i);
        }
    }
    out.extend(resume_leaf);
    out
}

fn header<'a>(
    c: &'a Conversation,
    id: &'a str,
    source: &'a str,
    len: u64,
    entries: usize,
) -> J<'a> {
    J::Obj(vec![
        ("type", J::Src("session")),
        ("version", J::Num(3.0)),
        ("id", J::str(id)),
        ("timestamp", J::str(&c.timestamp)),
        ("cwd", J::str(&c.cwd)),
        (
            "importedFrom",
            J::Obj(vec![
                ("agent", J::str(c.agent.name())),
                ("path", J::str(source)),
                ("sessionId", J::str(&c.session_id)),
                ("bytes", J::Num(len as f64)),
                ("entries", J::Num(entries as f64)),
            ]),
        ),
    ])
}

/// Write one entry line (without its newline); the message or data is
/// written where it is, not copied.
fn write_entry<'a>(n: &'a Node, id: &'a str, parent: J<'a>, out: &mut Vec<u8>) {
    let ts = J::str(&n.timestamp);
    let common = |ty: &'static str| {
        vec![
            ("type", J::Src(ty)),
            ("id", J::Src(id)),
            ("parentId", parent),
            ("timestamp", ts),
        ]
    };
    // `{members` and then `,"key":value}` (value by reference).
    let with_tail = |members: Vec<(&'static str, J)>, key: &str, value: &J, out: &mut Vec<u8>| {
        J::Obj(members).write(out);
        out.pop();
        out.push(b',');
        super::out::write_str(out, key);
        out.push(b':');
        value.write(out);
        out.push(b'}');
    };
    match &n.body {
        Body::Message(m) => with_tail(common("message"), "message", m, out),
        Body::Compaction {
            summary,
            tokens_before,
        } => {
            let mut m = common("compaction");
            m.push(("summary", J::str(summary)));
            m.push(("firstKeptEntryId", J::Src(id)));
            m.push(("tokensBefore", J::Num(*tokens_before)));
            J::Obj(m).write(out);
        }
        Body::Custom { custom_type, data } => {
            // pi writes type, customType, data, then id, parentId, timestamp.
            let head = vec![
                ("type", J::Src("custom")),
                ("customType", J::str(custom_type)),
            ];
            with_tail(head, "data", data, out);
            out.pop();
            let mut tail = Vec::new();
            J::Obj(common("custom").split_off(1)).write(&mut tail);
            out.push(b',');
            out.extend_from_slice(&tail[1..]);
        }
        Body::Name(name) => {
            let mut m = common("session_info");
            m.push(("name", J::str(name)));
            J::Obj(m).write(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::order;

    #[test]
    fn children_wait_for_parents_and_the_resume_leaf_is_last() {
        // 0 <- 2 <- 1, 0 <- 3: 1 comes before its parent in reading order.
        let parents = [None, Some(2), Some(0), Some(0)];
        assert_eq!(order(&parents, Some(3)), vec![0, 2, 1, 3]);
        assert_eq!(order(&parents, Some(1)), vec![0, 2, 3, 1]);
        // Not a leaf: stays in place.
        assert_eq!(order(&parents, Some(2)), vec![0, 2, 1, 3]);
    }
}
