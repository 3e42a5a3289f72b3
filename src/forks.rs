//! The sessions of a store whose header's `parentSession` names given
//! session files: forks that pi-mv points at a moved file and pi-rm
//! warns of (or clears). A header names a file by its path as pi wrote
//! it (absolute), matched as written, resolved, and by the file's
//! identity (another path to the same file).

use crate::header_edit;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A fork: its file and the `parentSession` its header holds.
#[derive(Debug, Clone)]
pub struct Fork {
    pub file: PathBuf,
    pub parent: String,
}

/// Every session file of the store `root` (any depth, sorted), with its
/// header's `parentSession` when it has one; `warn` hears of directories
/// that cannot be read.
pub fn with_parents(root: &Path, warn: &mut dyn FnMut(&Path, &std::io::Error)) -> Vec<Fork> {
    let files = crate::store::session_files_under(root, |d, e| warn(d, e)).files;
    crate::store::parallel_map(&files, |f| {
        let parent = header_edit::read_file(f)?.parent?;
        Some(Fork {
            file: f.clone(),
            parent,
        })
    })
    .into_iter()
    .flatten()
    .collect()
}

/// Which of `targets` each fork names (by its index in `targets`):
/// `targets` are absolute paths of existing files, or of files that
/// existed (their identity then taken before).
pub struct Targets {
    by_path: HashMap<PathBuf, usize>,
    by_id: HashMap<(u64, u64), usize>,
}

impl Targets {
    pub fn new(targets: &[PathBuf]) -> Targets {
        let mut t = Targets {
            by_path: HashMap::new(),
            by_id: HashMap::new(),
        };
        for (i, p) in targets.iter().enumerate() {
            t.by_path.insert(crate::store::resolve_path(p), i);
            if let Some(id) = id_of(p) {
                t.by_id.insert(id, i);
            }
        }
        t
    }

    /// The target the header path `parent` names, if any.
    pub fn named_by(&self, parent: &str) -> Option<usize> {
        let p = crate::name::path_of_kept(parent);
        if let Some(&i) = self.by_path.get(&crate::store::resolve_path(&p)) {
            return Some(i);
        }
        id_of(&p).and_then(|id| self.by_id.get(&id).copied())
    }
}

fn id_of(path: &Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}
