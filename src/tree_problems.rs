//! Problems of a session's tree (pi's `getTree()`): a tree too large to
//! show, and the entries pi's tree leaves out or repeats. Found and
//! returned, for the tool to print (pi-tree warns of them) or to judge.

use crate::entry::EntryType;
use crate::error::{Diagnostic, Error, Result};
use crate::session::Session;
use crate::tree::{Step, Tree};

/// With duplicate ids pi's tree holds an entry once per route to it, which
/// can grow exponentially (a file whose lines were written twice): refuse
/// instead of hanging, as pi would.
pub fn check_size(s: &Session, tree: &Tree) -> Result<()> {
    if tree.walk_len(10_000_000.max(4 * s.entries.len())).is_none() {
        return Err(Error::data(
            &s.name,
            None,
            "duplicate ids make this tree too large to show (pi's tree holds an entry once for every path to it; pi would hang here)",
        ));
    }
    Ok(())
}

/// What pi's tree leaves out or cannot show, in file order within each
/// kind: entries that are their own parent, nodes that duplicate ids make
/// their own descendants, entries no root reaches (ten of each, then how
/// many more). Each names the file and, where there is one, the line; the
/// entry's id is in the message.
pub fn find(s: &Session, tree: &Tree) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    own_parents(s, &mut found);
    repeats(s, tree, &mut found);
    unreachable(s, tree, &mut found);
    found
}

/// Entries that are their own parent.
fn own_parents(s: &Session, found: &mut Vec<Diagnostic>) {
    let own_parent = (0..s.entries.len())
        .filter(|&i| s.entries[i].ty() != EntryType::Session && s.entries.is_own_parent(i));
    for (k, i) in own_parent.enumerate() {
        let e = &s.entries[i];
        if k == 10 {
            found.push(Diagnostic::new(
                &s.name,
                None,
                "more entries are their own parent",
            ));
            break;
        }
        found.push(Diagnostic::new(
            &s.name,
            Some(e.line()),
            format!(
                "entry {} is its own parent; shown as a root (as in pi)",
                s.entries.id_string(i)
            ),
        ));
    }
}

/// Nodes that duplicate ids make their own descendants.
fn repeats(s: &Session, tree: &Tree, found: &mut Vec<Diagnostic>) {
    // Duplicate ids can make a node its own descendant in pi's tree (an
    // entry's id names a later entry below it): pi's /tree and JSON.stringify
    // would not finish; the walk skips the repeat. Say where.
    if tree.is_shared() {
        let mut cycles = 0usize;
        tree.walk(|step| {
            if let Step::Cycle { node, parent } = step {
                cycles += 1;
                if cycles <= 10 {
                    found.push(Diagnostic::new(
                        &s.name,
                        Some(s.entries[parent].line()),
                        format!(
                            "duplicate ids make entry {} (line {}) a descendant of itself: pi's /tree would not finish here; drawn once, not again below line {}",
                            s.entries.id_string(node),
                            s.entries[node].line(),
                            s.entries[parent].line()
                        ),
                    ));
                }
            }
        });
        if cycles > 10 {
            found.push(Diagnostic::new(
                &s.name,
                None,
                format!("{} more such repeats", cycles - 10),
            ));
        }
    }
}

/// Entries on a `parentId` cycle, which no root reaches.
fn unreachable(s: &Session, tree: &Tree, found: &mut Vec<Diagnostic>) {
    for (k, &i) in tree.unreachable.iter().enumerate() {
        if k == 10 {
            found.push(Diagnostic::new(
                &s.name,
                None,
                format!(
                    "{} more entries no root reaches",
                    tree.unreachable.len() - 10
                ),
            ));
            break;
        }
        let e = &s.entries[i];
        found.push(Diagnostic::new(
            &s.name,
            Some(e.line()),
            format!(
                "entry {} is on a parentId cycle: no root reaches it, so it is not in the tree (as in pi)",
                s.entries.id_string(i)
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(text: &str) -> Session {
        Session::from_bytes("t.jsonl", text.as_bytes().to_vec(), Default::default()).unwrap()
    }

    #[test]
    fn own_parents_and_cycles_are_returned_with_their_lines() {
        let h = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#;
        let e = |id: &str, p: &str| {
            format!(
                r#"{{"type":"custom","customType":"x","id":"{id}","parentId":{p},"timestamp":"2026-01-01T00:00:01.000Z"}}"#
            )
        };
        let text = [
            h.to_string(),
            e("aaaa0001", "null"),
            e("aaaa0002", "\"aaaa0002\""),
            e("aaaa0003", "\"aaaa0004\""),
            e("aaaa0004", "\"aaaa0003\""),
        ]
        .join("\n");
        let s = open(&text);
        let tree = Tree::build(&s);
        check_size(&s, &tree).unwrap();
        let found: Vec<String> = find(&s, &tree).iter().map(|d| d.to_string()).collect();
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(
            found[0].starts_with("t.jsonl:3: entry aaaa0002 is its own parent"),
            "{found:?}"
        );
        assert!(
            found[1].starts_with("t.jsonl:4: entry aaaa0003 is on a parentId cycle"),
            "{found:?}"
        );
        assert!(
            found[2].starts_with("t.jsonl:5: entry aaaa0004"),
            "{found:?}"
        );
        let fine = open(&[h.to_string(), e("aaaa0001", "null")].join("\n"));
        assert!(find(&fine, &Tree::build(&fine)).is_empty());
    }
}
