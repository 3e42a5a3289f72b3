//! What pi lists: the session directory of this project (or the one
//! asked for), or every project's, read as pi's `SessionManager.list` and
//! `listAll` read them, in pi's order (pi-ls; the other store tools select
//! with [`super::select`]).
//!
//! `--session-dir` here is pi's `sessionDir`: without `--all`, DIR's
//! sessions whose cwd is this directory (all of them when DIR is this
//! project's own directory); with `--all`, DIR itself only, as pi lists it.

use super::cache::{read_all_cached, Cache};
use super::info::{sort_infos, Info, Skip};
use crate::error::Diagnostic;
use crate::store;
use std::path::{Path, PathBuf};

/// What to list.
#[derive(Debug, Clone, Copy)]
pub struct ListRequest<'a> {
    /// Every project's sessions (`listAll`), not this directory's (`list`).
    pub all: bool,
    /// pi's `sessionDir` (else `$PI_CODING_AGENT_SESSION_DIR`).
    pub session_dir: Option<&'a Path>,
    /// Take unchanged files' infos from the cache, and keep this run's.
    pub cache: bool,
}

/// The sessions pi lists, in pi's order, and how many sessions of other
/// projects were left out (without `--all`, a `--session-dir` holding
/// them: pi-ls says so rather than list nothing without a word). A
/// directory that cannot be read is handed to `warn`, each file pi does
/// not list to `skipped`, as found.
pub fn list(
    req: &ListRequest<'_>,
    warn: &mut dyn FnMut(Diagnostic),
    skipped: &mut dyn FnMut(Skip),
) -> (Vec<Info>, usize) {
    let session_dir = req
        .session_dir
        .map(Path::to_path_buf)
        .or_else(store::env_session_dir);
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let resolved_cwd = store::resolve_path(&cwd);
    let mut cands;
    let root;
    let mut filter_cwd = false;
    if req.all {
        (cands, root) = match &session_dir {
            Some(d) => {
                let d = normalize_dir(d);
                (store::dir_candidates(&d, warn), d)
            }
            None => {
                // getSessionsDir(): join(getAgentDir(), "sessions"), not resolved.
                let r = store::node_join(&store::agent_dir(), "sessions");
                (store::all_candidates(&r, warn), r)
            }
        };
    } else {
        let default = default_dir(&resolved_cwd);
        let dir = match &session_dir {
            Some(d) => {
                let d = normalize_dir(d);
                filter_cwd = store::resolve_path(&d) != default;
                d
            }
            None => default,
        };
        cands = store::dir_candidates(&dir, warn);
        root = dir;
    }
    let mut infos = Vec::new();
    let mut cache = Cache::open(&store::resolve_path(&root), req.cache);
    let mut listed = Vec::new();
    let mut any_read = false;
    let outcomes = read_all_cached(&mut cands, &mut cache);
    for (c, (o, read)) in cands.iter().zip(outcomes) {
        // A skipped file is not kept: reading it again says why again.
        any_read |= read && o.is_ok();
        match o {
            Ok(i) => {
                listed.push(c);
                infos.push(i)
            }
            Err(s) => skipped(s),
        }
    }
    cache.save(
        any_read,
        listed
            .iter()
            .zip(&infos)
            .map(|(c, i)| (c.path.as_path(), c.meta.as_ref(), i)),
    );
    let read = infos.len();
    if filter_cwd {
        let want = resolved_cwd.to_string_lossy().into_owned();
        infos.retain(|i| {
            let c = i.cwd_string();
            !c.is_empty() && store::resolve_path_str(&c) == want
        });
    }
    let others = read - infos.len();
    sort_infos(&mut infos);
    (infos, others)
}

/// pi's `normalizePath(dir)`: `~` expanded, the text otherwise as given.
fn normalize_dir(d: &Path) -> PathBuf {
    match d.to_str() {
        Some(s) => store::expand_tilde(s),
        None => d.to_path_buf(),
    }
}

/// `getDefaultSessionDirPath(cwd)`: `<resolved agentDir>/sessions/--<cwd>--`.
fn default_dir(resolved_cwd: &Path) -> PathBuf {
    let agent = store::resolve_path(&store::agent_dir());
    store::node_join(
        &agent,
        &format!(
            "sessions/{}",
            store::encode_cwd(&resolved_cwd.to_string_lossy())
        ),
    )
}
