//! The path from a root to an entry (pi's `getBranch`), with the cycle
//! check pi lacks.

use crate::entry::EntryType;
use crate::error::{Error, Result};
use crate::session::Session;

/// Entry indices from the root to `leaf`, following `parentId` as pi does
/// (a parent that names no entry ends the walk). A cycle is an error naming
/// its lines: pi 1.6.0's getBranch walks round it, growing the path until
/// V8 fails (RangeError: Invalid array length, after 10-20 s and 2-2.7 GB,
/// measured), so pi cannot open the session at such a leaf.
pub fn path_to(session: &Session, leaf: usize) -> Result<Vec<usize>> {
    let ix = &session.index;
    // Count first, so that the path is allocated once at its size (a long
    // session's path is most of its entries).
    let mut len = 1;
    let mut cur = leaf;
    while let Some(p) = ix.parent_of(cur) {
        len += 1;
        cur = p;
        if len > session.entries.len() {
            return Err(cycle_error(session, leaf));
        }
    }
    let mut path = vec![0; len];
    let mut cur = leaf;
    for slot in path.iter_mut().rev() {
        *slot = cur;
        cur = ix.parent_of(cur).unwrap_or(cur);
    }
    Ok(path)
}

/// The root of the path that ends at `leaf`.
pub fn root_of(session: &Session, leaf: usize) -> Result<usize> {
    Ok(path_to(session, leaf)?[0])
}

fn cycle_error(session: &Session, leaf: usize) -> Error {
    let ix = &session.index;
    let mut seen = vec![false; session.entries.len()];
    let mut cur = leaf;
    while !seen[cur] {
        seen[cur] = true;
        match ix.parent_of(cur) {
            Some(p) => cur = p,
            None => break,
        }
    }
    // `cur` is on the cycle: list it once round.
    let start = cur;
    let mut members = vec![start];
    let mut c = start;
    while let Some(p) = ix.parent_of(c) {
        if p == start || members.len() > 20 {
            break;
        }
        members.push(p);
        c = p;
    }
    let entries = &session.entries;
    let e = &entries[start];
    if members.len() == 1 {
        return Error::data(
            &session.name,
            Some(e.line()),
            format!(
                "entry {} is its own parent (pi 1.6.0 walks round it until it fails: RangeError after seconds and gigabytes)",
                entries.id_string(start)
            ),
        );
    }
    let ring: Vec<String> = members
        .iter()
        .map(|&m| format!("{} (line {})", entries.id_string(m), entries[m].line()))
        .collect();
    Error::data(
        &session.name,
        Some(e.line()),
        format!(
            "parentId cycle: {} -> back to {} (pi 1.6.0 walks round it until it fails: RangeError after seconds and gigabytes)",
            ring.join(" -> "),
            entries.id_string(start)
        ),
    )
}

/// Every leaf (an entry no other entry names as parent; second headers
/// and entries shadowed by a later duplicate id aside), in file order.
pub fn leaves(session: &Session) -> Vec<usize> {
    let s = session;
    let mut has_child = vec![false; s.entries.len()];
    for (i, e) in s.entries.iter().enumerate() {
        if let Some(p) = s
            .index
            .parent_of(i)
            .filter(|_| e.ty() != EntryType::Session)
        {
            has_child[p] = true;
        }
    }
    (0..s.entries.len())
        .filter(|&i| !has_child[i] && s.entries[i].ty() != EntryType::Session)
        // A leaf shadowed by a later entry with its id is none; when every
        // id is unique no entry is shadowed (no look-up a leaf).
        .filter(|&i| {
            s.index.ids_unique() || s.entries.id(i).is_none_or(|id| s.index.get(&id) == Some(i))
        })
        .collect()
}
