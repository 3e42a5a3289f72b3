//! What `pi-mv` will do: each session's new `cwd` and place, decided
//! before anything is written, with what refuses a session (in use, a
//! name clash, two sessions onto one name).

use crate::error::{Diagnostic, Error, Result};
use crate::header_edit;
use crate::store::{self, Source};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One session to move (or already moved: `from == to` and the same cwd).
#[derive(Debug, Clone)]
pub(super) struct Item {
    pub from: PathBuf,
    pub to: PathBuf,
    pub old_cwd: String,
    pub new_cwd: String,
    /// Why it is refused: nothing is done to it.
    pub refused: Option<String>,
}

impl Item {
    /// Whether the header's cwd changes.
    pub fn rewrites(&self) -> bool {
        self.old_cwd != self.new_cwd
    }
    /// Whether the file changes directory.
    pub fn moves(&self) -> bool {
        self.from != self.to
    }
    pub fn changes(&self) -> bool {
        self.rewrites() || self.moves()
    }
}

/// What the command line asks for.
pub(super) enum Ask<'a> {
    /// Every session whose cwd is OLD or below it, to NEW.
    Project { old: &'a str, new: &'a str },
    /// These sessions, to DIR.
    Sessions { names: &'a [String], cwd: &'a str },
}

/// The plan: the sessions, and the store the forks are looked for in.
pub(super) struct Plan {
    pub items: Vec<Item>,
    pub store: PathBuf,
}

/// Whether `cwd` is `dir` or below it: the rest after `dir` (`""`, `/x`).
fn below<'a>(cwd: &'a str, dir: &str) -> Option<&'a str> {
    let dir = dir.strip_suffix('/').unwrap_or(dir);
    let rest = cwd.strip_prefix(dir)?;
    (rest.is_empty() || rest.starts_with('/')).then_some(rest)
}

/// Whether a directory name is one pi makes of a cwd (`--...--`).
fn project_dir_name(name: &str) -> bool {
    name.len() >= 4 && name.starts_with("--") && name.ends_with("--")
}

/// Where the session `from` (header cwd `old`) goes for the new cwd
/// `new`: a project directory of the store (`--<old>--`) is left for
/// `--<new>--` beside it; `half_done` also takes any project directory
/// (a rerun after the header was rewritten); a directory of another kind
/// (a `--session-dir`, `$PI_CODING_AGENT_SESSION_DIR`) keeps the file.
fn target(from: &Path, old: &str, new: &str, half_done: bool) -> PathBuf {
    let (Some(dir), Some(file)) = (from.parent(), from.file_name()) else {
        return from.to_path_buf();
    };
    let name = dir.file_name().map(crate::name::kept).unwrap_or_default();
    let home = *name == store::encode_cwd(old) || half_done && project_dir_name(&name);
    match (home, dir.parent()) {
        (true, Some(root)) => root.join(store::encode_cwd(new)).join(file),
        _ => from.to_path_buf(),
    }
}

/// The sessions `ask` names, with their new places.
pub(super) fn make(
    ask: &Ask,
    session_dir: Option<&Path>,
    warn: &mut dyn FnMut(Diagnostic),
) -> Result<Plan> {
    // Absolute: forks are made to name the new places as pi names files.
    let store = store::resolve_path(&session_dir.map_or_else(store::store_root, Path::to_path_buf));
    let mut items = match ask {
        Ask::Project { old, new } => project_items(&store, old, new, warn),
        Ask::Sessions { names, cwd } => session_items(names, cwd, session_dir, warn)?,
    };
    refuse_clashes(&mut items);
    Ok(Plan { items, store })
}

/// `--project OLD NEW`: every session of the store whose cwd is OLD or
/// below it; and those already given their new cwd but still in OLD's
/// directory (an interrupted run), to finish.
fn project_items(
    store: &Path,
    old: &str,
    new: &str,
    warn: &mut dyn FnMut(Diagnostic),
) -> Vec<Item> {
    let files = store::session_files_under(store, |d, e| {
        warn(Diagnostic::new(
            &crate::name::kept_path(d),
            None,
            crate::error::io_message(e),
        ))
    })
    .files;
    let cwds = store::parallel_map(&files, |f| header_edit::read_file(f).and_then(|h| h.cwd));
    let mut items = Vec::new();
    for (f, cwd) in files.into_iter().zip(cwds) {
        let Some(cwd) = cwd else { continue };
        if let Some(rest) = below(&cwd, old) {
            let new_cwd = format!("{}{rest}", new.strip_suffix('/').unwrap_or(new));
            items.push(item(
                f.clone(),
                target(&f, &cwd, &new_cwd, false),
                cwd,
                new_cwd,
            ));
        } else if let Some(rest) = below(&cwd, new) {
            // Half done: the header says NEW, the directory OLD's.
            let was = format!("{}{rest}", old.strip_suffix('/').unwrap_or(old));
            // Already moved: kept (from == to), for its forks.
            let to = target(&f, &was, &cwd, false);
            items.push(item(f, to, cwd.clone(), cwd));
        }
    }
    items
}

fn item(from: PathBuf, to: PathBuf, old_cwd: String, new_cwd: String) -> Item {
    Item {
        from,
        to,
        old_cwd,
        new_cwd,
        refused: None,
    }
}

/// `SESSION... --cwd DIR`: the sessions named (files, directories, id
/// prefixes), each to DIR.
fn session_items(
    names: &[String],
    cwd: &str,
    session_dir: Option<&Path>,
    warn: &mut dyn FnMut(Diagnostic),
) -> Result<Vec<Item>> {
    let req = store::Request {
        sessions: names,
        all: false,
        session_dir,
        project: None,
        stdin_if_piped: false,
        walk: store::DirWalk::Sorted,
    };
    let mut sel = store::select(&req, warn)?;
    sel.dedupe();
    let mut items = Vec::new();
    for s in sel.sources {
        let f = match s {
            Source::File(f) => f,
            Source::Stdin => return Err(Error::usage("pi-mv moves files: `-` (stdin) is none")),
            Source::Unresolved(diag) => {
                return Err(Error {
                    kind: crate::error::ErrorKind::Data,
                    diag,
                    io: None,
                })
            }
        };
        let name = crate::name::kept_path(&f).into_owned();
        if !std::fs::metadata(&f).is_ok_and(|m| m.is_file()) {
            return Err(Error::request(
                &name,
                "not a regular file: not a session to move",
            ));
        }
        let Some(old) = header_edit::read_file(&f).and_then(|h| h.cwd) else {
            return Err(Error::data(
                &name,
                Some(1),
                "no session header with a cwd: not a session to move",
            ));
        };
        let f = store::resolve_path(&f);
        let to = target(&f, &old, cwd, old == cwd);
        items.push(item(f, to, old, cwd.to_string()));
    }
    Ok(items)
}

/// Refuse a move onto a file that is there (unless it is this session's
/// own half-done move) and two sessions onto one name.
fn refuse_clashes(items: &mut [Item]) {
    let mut taken: HashMap<PathBuf, usize> = HashMap::new();
    for (i, it) in items.iter_mut().enumerate() {
        if !it.moves() {
            continue;
        }
        if let Some(j) = taken.insert(it.to.clone(), i) {
            let _ = j;
            it.refused = Some(format!(
                "another session moves to {} too",
                crate::name::kept_path(&it.to)
            ));
            continue;
        }
        if std::fs::symlink_metadata(&it.to).is_ok() && !own_copy(it) {
            it.refused = Some(format!(
                "{} already exists (a session of that name is there)",
                crate::name::kept_path(&it.to)
            ));
        }
    }
}

/// Whether the file at `to` is `from` moved (a half-done move): the same
/// file, or the bytes `from` will have.
fn own_copy(it: &Item) -> bool {
    if crate::moving::settled(&it.from, &it.to) {
        return true;
    }
    let (Ok(a), Ok(b)) = (std::fs::read(&it.from), std::fs::read(&it.to)) else {
        return false;
    };
    let want = header_edit::edit(&a, &[header_edit::Change::Set("cwd", it.new_cwd.clone())]);
    want.as_deref().unwrap_or(&a) == b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_takes_whole_path_parts() {
        assert_eq!(below("/a/b", "/a"), Some("/b"));
        assert_eq!(below("/a", "/a/"), Some(""));
        assert_eq!(below("/ab", "/a"), None);
    }

    #[test]
    fn a_project_directory_is_left_for_the_new_one() {
        let f = Path::new("/s/--a-b--/x.jsonl");
        assert_eq!(
            target(f, "/a/b", "/c", false),
            Path::new("/s/--c--/x.jsonl")
        );
        // a flat store keeps its file
        let f = Path::new("/flat/x.jsonl");
        assert_eq!(target(f, "/a/b", "/c", false), f);
        // a rerun of a half-done move
        let f = Path::new("/s/--a-b--/x.jsonl");
        assert_eq!(target(f, "/c", "/c", true), Path::new("/s/--c--/x.jsonl"));
        assert_eq!(
            target(Path::new("/s/--c--/x.jsonl"), "/c", "/c", true),
            Path::new("/s/--c--/x.jsonl")
        );
    }
}
