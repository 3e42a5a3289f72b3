//! What pi lists: the session directory of this project (or the one
//! asked for), or every project's, read as pi's `SessionManager.list` and
//! `listAll` read them, in pi's order.

use super::Request;
use crate::store::{self, Info};
use std::path::{Path, PathBuf};

/// The sessions pi lists, in pi's order, and the files it skips.
pub(crate) fn list(req: &Request) -> (Vec<Info>, Vec<store::Skip>, Vec<String>) {
    let mut problems = Vec::new();
    let session_dir = req.session_dir.clone().or_else(store::env_session_dir);
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let resolved_cwd = store::resolve_path(&cwd);
    let mut cands;
    let root;
    let mut filter_cwd = false;
    if req.all {
        (cands, root) = match &session_dir {
            Some(d) => {
                let d = normalize_dir(d);
                (store::dir_candidates(&d, &mut problems), d)
            }
            None => {
                // getSessionsDir(): join(getAgentDir(), "sessions"), not resolved.
                let r = store::node_join(&store::agent_dir(), "sessions");
                (store::all_candidates(&r, &mut problems), r)
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
        cands = store::dir_candidates(&dir, &mut problems);
        root = dir;
    }
    let mut infos = Vec::new();
    let mut skips = Vec::new();
    let mut cache = store::Cache::open(&store::resolve_path(&root), req.cache);
    let mut listed = Vec::new();
    let mut any_read = false;
    let outcomes = store::read_all_cached(&mut cands, &mut cache);
    for (c, (o, read)) in cands.iter().zip(outcomes) {
        // A skipped file is not kept: reading it again says why again.
        any_read |= read && o.is_ok();
        match o {
            Ok(i) => {
                listed.push(c);
                infos.push(i)
            }
            Err(s) => skips.push(s),
        }
    }
    cache.save(
        any_read,
        listed
            .iter()
            .zip(&infos)
            .map(|(c, i)| (c.path.as_path(), c.meta.as_ref(), i)),
    );
    if filter_cwd {
        let want = resolved_cwd.to_string_lossy().into_owned();
        infos.retain(|i| {
            let c = i.cwd_string();
            !c.is_empty() && store::resolve_path_str(&c) == want
        });
    }
    store::sort_infos(&mut infos);
    (infos, skips, problems)
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
