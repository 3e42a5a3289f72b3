//! What every format checks first: a tree too large to show (refused),
//! and the entries pi's tree leaves out or repeats (warned of).

use crate::cli::Log;
use crate::entry::EntryType;
use crate::error::{Diagnostic, Error, Result};
use crate::session::Session;
use crate::tree::{Step, Tree};

/// With duplicate ids pi's tree holds an entry once per route to it, which
/// can grow exponentially (a file whose lines were written twice): refuse
/// instead of hanging, as pi would.
pub(super) fn check_size(s: &Session, tree: &Tree) -> Result<()> {
    if tree.walk_len(10_000_000.max(4 * s.entries.len())).is_none() {
        return Err(Error::data(
            &s.name,
            None,
            "duplicate ids make this tree too large to show (pi's tree holds an entry once for every path to it; pi would hang here)",
        ));
    }
    Ok(())
}

/// Warn of what pi's tree leaves out or cannot show: entries that are
/// their own parent, nodes that duplicate ids make their own descendants,
/// entries no root reaches (ten of each, then how many more).
pub(super) fn report(s: &Session, tree: &Tree, log: Log) {
    let own_parent = (0..s.entries.len())
        .filter(|&i| s.entries[i].ty() != EntryType::Session && s.entries.is_own_parent(i));
    for (k, i) in own_parent.enumerate() {
        let e = &s.entries[i];
        if k == 10 {
            log.warn(&Diagnostic::new(
                &s.name,
                None,
                "more entries are their own parent",
            ));
            break;
        }
        log.warn(&Diagnostic::new(
            &s.name,
            Some(e.line()),
            format!(
                "entry {} is its own parent; shown as a root (as in pi)",
                s.entries.id_string(i)
            ),
        ));
    }
    // Duplicate ids can make a node its own descendant in pi's tree (an
    // entry's id names a later entry below it): pi's /tree and JSON.stringify
    // would not finish; the walk skips the repeat. Say where.
    if tree.is_shared() {
        let mut cycles = 0usize;
        tree.walk(|step| {
            if let Step::Cycle { node, parent } = step {
                cycles += 1;
                if cycles <= 10 {
                    log.warn(&Diagnostic::new(
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
            log.warn(&Diagnostic::new(
                &s.name,
                None,
                format!("{} more such repeats", cycles - 10),
            ));
        }
    }
    for (k, &i) in tree.unreachable.iter().enumerate() {
        if k == 10 {
            log.warn(&Diagnostic::new(
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
        log.warn(&Diagnostic::new(
            &s.name,
            Some(e.line()),
            format!(
                "entry {} is on a parentId cycle: no root reaches it, so it is not in the tree (as in pi)",
                s.entries.id_string(i)
            ),
        ));
    }
}
