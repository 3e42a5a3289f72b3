//! What every format checks first: a tree too large to show (refused),
//! and the entries pi's tree leaves out or repeats (warned of); found by
//! [`crate::tree_problems`].

use crate::cli::Log;
use crate::error::Result;
use crate::session::Session;
use crate::tree::Tree;

/// Refuse a tree too large to show ([`crate::tree_problems::check_size`]).
pub(super) fn check_size(s: &Session, tree: &Tree) -> Result<()> {
    crate::tree_problems::check_size(s, tree)
}

/// Warn of what pi's tree leaves out or cannot show.
pub(super) fn report(s: &Session, tree: &Tree, log: Log) {
    log.warn_all(&crate::tree_problems::find(s, tree));
}
