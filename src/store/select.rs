//! Which sessions a tool over many of them reads, once for every such
//! tool (pi-grep, pi-usage, pi-migrate, pi-check, pi-mv, pi-rm): the
//! SESSION arguments (files, directories, `-` for stdin, session-id
//! prefixes), or with none this project's session directory or
//! the whole store. What is found on the way (a directory that cannot be
//! read, a link that leads nowhere) is handed to the caller's `warn` as it
//! is found; an argument that names no session is a [`Source::Unresolved`]
//! of its own, so that the others are still read.
//!
//! Which store, the one meaning of `--session-dir` for these tools: the
//! directory given, else `$PI_CODING_AGENT_SESSION_DIR`, else
//! `<agentDir>/sessions`; this project's sessions are those directly in
//! `--session-dir` (or `$PI_CODING_AGENT_SESSION_DIR`), else in
//! `<agentDir>/sessions/--<cwd>--`. Session-id prefixes are looked up as
//! [`resolve_session`] does, in `--session-dir` when it is given.

use super::dirs::{project_session_dir, resolve_path, store_root};
use super::find::{resolve_session, session_files_under};
use super::parallel::parallel_map;
use crate::error::{io_message, Diagnostic, ErrorKind, Result};
use crate::session::Input;
use std::collections::HashSet;
use std::fs::Metadata;
use std::path::{Path, PathBuf};

/// A session to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    File(PathBuf),
    Stdin,
    /// A SESSION that names no session (no file, and a session-id prefix
    /// that matches none or several): an error of its own, as a file
    /// that cannot be read is, while the others are read.
    Unresolved(Diagnostic),
}

impl Source {
    /// The name the source is printed and warned about by.
    pub fn name(&self) -> String {
        match self {
            Source::File(p) => crate::name::kept_path(p).into_owned(),
            Source::Stdin => "<stdin>".into(),
            Source::Unresolved(d) => d.at.as_ref().map_or(String::new(), |l| l.file.clone()),
        }
    }
}

/// How a directory is walked for its session files. Each tool keeps the
/// walk its output has always followed; all three take `*.jsonl` files
/// and links to files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirWalk {
    /// Each directory's files by name, then its subdirectories in turn
    /// (links to directories followed), down to a depth: the project's
    /// directory itself, the store and the directories directly under it,
    /// a directory argument to any depth. A directory that cannot be read,
    /// one already walked (a link back up: a loop) and a `*.jsonl` link
    /// that leads nowhere are warned about and skipped (pi-grep).
    Ordered,
    /// Every file below, at any depth, sorted by path; links to
    /// directories are not followed; a directory that cannot be read is
    /// warned about (pi-migrate).
    Sorted,
    /// The files directly in the directory and in the directories (or
    /// links to them) directly under it, stat'd on every core, sorted by
    /// path, their metadata kept; only the top directory is warned about
    /// when it cannot be read (pi-usage).
    Stat,
}

/// What to select: a tool's SESSION arguments and store options, as plain
/// values (no command-line types).
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The SESSION arguments: files, directories (walked), `-` for stdin,
    /// session-id prefixes.
    pub sessions: &'a [String],
    /// Every project's sessions, not only this project's: with no SESSION,
    /// or beside them (pi-migrate's `--all` with paths).
    pub all: bool,
    /// `--session-dir`: the store (see the module's doc).
    pub session_dir: Option<&'a Path>,
    /// With no SESSION and not `all`: this project instead of the current
    /// directory's (pi-usage's `--cwd`).
    pub project: Option<&'a Path>,
    /// With no SESSION, no `all` and no `session_dir`: standard input when
    /// it is a pipe or a file, as ripgrep reads it (pi-grep).
    pub stdin_if_piped: bool,
    pub walk: DirWalk,
}

/// The sessions selected, in order.
#[derive(Debug, Default)]
pub struct Selection {
    pub sources: Vec<Source>,
    /// Each source's metadata where the walk took it ([`DirWalk::Stat`]),
    /// beside `sources`.
    pub meta: Vec<Option<Metadata>>,
    /// Whether two sources may name one file (two arguments, or a link to
    /// a file found in a directory): see [`Selection::dedupe`].
    pub may_repeat: bool,
    /// The store or project directory read for want of SESSION arguments
    /// (a tool's per-directory cache is keyed by it).
    pub root: Option<PathBuf>,
}

impl Selection {
    fn push(&mut self, s: Source, meta: Option<Metadata>) {
        self.sources.push(s);
        self.meta.push(meta);
    }

    /// Keep the first of the files that are one file (by their canonical
    /// path), when some may be (a tool that must not do a file twice).
    pub fn dedupe(&mut self) {
        if !self.may_repeat {
            return;
        }
        let mut seen = HashSet::new();
        let mut keep = self.sources.iter().map(|s| match s {
            Source::File(f) => seen.insert(std::fs::canonicalize(f).unwrap_or_else(|_| f.clone())),
            _ => true,
        });
        let flags: Vec<bool> = keep.by_ref().collect();
        let mut k = flags.iter();
        self.sources.retain(|_| *k.next().unwrap_or(&true));
        let mut k = flags.iter();
        self.meta.retain(|_| *k.next().unwrap_or(&true));
    }
}

/// The sessions `req` names, warnings handed to `warn` as they are found.
/// An argument that names no session is a [`Source::Unresolved`]; an error
/// is returned only for a usage error (an empty SESSION).
pub fn select(req: &Request<'_>, warn: &mut dyn FnMut(Diagnostic)) -> Result<Selection> {
    let mut sel = Selection::default();
    if req.sessions.is_empty() {
        if req.stdin_if_piped && !req.all && req.session_dir.is_none() && stdin_is_readable() {
            sel.push(Source::Stdin, None);
        } else {
            default_sessions(req, &mut sel, warn);
        }
        return Ok(sel);
    }
    sel.may_repeat = req.sessions.len() > 1 || req.all;
    for a in req.sessions {
        let p = &crate::name::path_of_kept(a);
        if a != "-" && p.is_dir() {
            walk(p, req.walk, usize::MAX, &mut sel, warn);
            continue;
        }
        match resolve_session(Some(a), req.session_dir) {
            Ok(Input::Stdin) => sel.push(Source::Stdin, None),
            Ok(Input::File(f)) => sel.push(Source::File(f), None),
            Err(e) if e.kind != ErrorKind::Usage => sel.push(Source::Unresolved(e.diag), None),
            Err(e) => return Err(e),
        }
    }
    if req.all {
        default_sessions(req, &mut sel, warn);
    }
    Ok(sel)
}

/// With no SESSION: this project's directory itself, or the whole store
/// (its files and the directories directly under it).
fn default_sessions(req: &Request<'_>, sel: &mut Selection, warn: &mut dyn FnMut(Diagnostic)) {
    let (dir, depth) = if req.all {
        (
            req.session_dir.map_or_else(store_root, Path::to_path_buf),
            1,
        )
    } else {
        let dir = match (req.project, req.session_dir) {
            (Some(p), Some(d)) => {
                d.join(super::dirs::encode_cwd(&resolve_path(p).to_string_lossy()))
            }
            (Some(p), None) => project_session_dir(&resolve_path(p), None),
            (None, d) => {
                let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
                project_session_dir(&cwd, d)
            }
        };
        (dir, 0)
    };
    if req.walk != DirWalk::Stat && !dir.is_dir() {
        warn(Diagnostic::new(
            &crate::name::kept_path(&dir),
            None,
            "no such session directory; no sessions to read",
        ));
        return;
    }
    walk(&dir, req.walk, depth, sel, warn);
    sel.root = Some(dir);
}

/// The session files of `dir`, as `how` walks (`depth`: for
/// [`DirWalk::Ordered`]).
fn walk(
    dir: &Path,
    how: DirWalk,
    depth: usize,
    sel: &mut Selection,
    warn: &mut dyn FnMut(Diagnostic),
) {
    match how {
        DirWalk::Ordered => {
            let mut seen = HashSet::new();
            let mut files = Vec::new();
            walk_ordered(dir, depth, &mut files, warn, &mut seen);
            sel.may_repeat = true;
            files
                .into_iter()
                .for_each(|f| sel.push(Source::File(f), None));
        }
        DirWalk::Sorted => {
            let w = session_files_under(dir, |d, e| {
                warn(Diagnostic::new(
                    &crate::name::kept_path(d),
                    None,
                    io_message(e),
                ))
            });
            sel.may_repeat |= w.links;
            w.files
                .into_iter()
                .for_each(|f| sel.push(Source::File(f), None));
        }
        DirWalk::Stat => {
            sel.may_repeat = true;
            for (f, m) in walk_stat(dir, warn) {
                sel.push(Source::File(f), Some(m));
            }
        }
    }
}

/// A directory's identity: its device and inode (where there are none,
/// its canonical path).
fn dir_id(dir: &Path) -> Option<(u64, u64, PathBuf)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(dir).ok()?;
        Some((m.dev(), m.ino(), PathBuf::new()))
    }
    #[cfg(not(unix))]
    {
        Some((0, 0, std::fs::canonicalize(dir).ok()?))
    }
}

/// [`DirWalk::Ordered`]: not [`session_files_under`], which sorts the whole
/// tree by path, follows no link to a directory and goes to any depth.
fn walk_ordered(
    dir: &Path,
    depth: usize,
    files: &mut Vec<PathBuf>,
    warn: &mut dyn FnMut(Diagnostic),
    seen: &mut HashSet<(u64, u64, PathBuf)>,
) {
    if let Some(id) = dir_id(dir) {
        if !seen.insert(id) {
            warn(Diagnostic::new(
                &crate::name::kept_path(dir),
                None,
                "a directory already searched (a link back to it: a loop); skipped",
            ));
            return;
        }
    }
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) => {
            let msg = format!("{}; skipped", io_message(&e));
            warn(Diagnostic::new(&crate::name::kept_path(dir), None, msg));
            return;
        }
    };
    // The kind from the directory entry (no stat), but a link's from what
    // it names.
    let mut here: Vec<(PathBuf, Option<std::fs::FileType>)> = rd
        .flatten()
        .map(|d| (d.path(), d.file_type().ok().filter(|t| !t.is_symlink())))
        .collect();
    here.sort_by(|a, b| a.0.cmp(&b.0));
    let mut subs = Vec::new();
    for (p, kind) in here {
        let jsonl = p.extension().is_some_and(|e| e == "jsonl");
        let kind = match kind {
            Some(k) => k,
            None => match std::fs::metadata(&p) {
                Ok(m) => m.file_type(),
                Err(e) => {
                    // a link that leads nowhere (or to itself)
                    if jsonl {
                        let msg = format!("{}; skipped", io_message(&e));
                        warn(Diagnostic::new(&crate::name::kept_path(&p), None, msg));
                    }
                    continue;
                }
            },
        };
        if kind.is_dir() {
            if depth > 0 {
                subs.push(p);
            }
        } else if jsonl && kind.is_file() {
            files.push(p);
        }
    }
    for s in subs {
        walk_ordered(&s, depth - 1, files, warn, seen);
    }
}

/// [`DirWalk::Stat`]: the `*.jsonl` files in `root` and one level down, with
/// their metadata, by path. Nothing when `root` does not exist (as pi
/// lists nothing); a warning when it cannot be read.
fn walk_stat(root: &Path, warn: &mut dyn FnMut(Diagnostic)) -> Vec<(PathBuf, Metadata)> {
    let mut out = Vec::new();
    let rd = match std::fs::read_dir(root) {
        Ok(rd) => rd,
        Err(e) => {
            if e.kind() != std::io::ErrorKind::NotFound {
                let name = crate::name::kept_path(root);
                warn(Diagnostic::new(&name, None, io_message(&e)));
            }
            return out;
        }
    };
    let session = |p: PathBuf, m: Metadata, out: &mut Vec<(PathBuf, Metadata)>| {
        if m.is_file() && p.extension().is_some_and(|x| x == "jsonl") {
            out.push((p, m));
        }
    };
    // the projects' directories listed and their files stat'd on every core
    let entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    for found in parallel_map(&entries, |p| {
        let mut out = Vec::new();
        let Ok(m) = std::fs::metadata(p) else {
            return out;
        };
        if m.is_dir() {
            for sub in std::fs::read_dir(p).into_iter().flatten().flatten() {
                let q = sub.path();
                if q.extension().is_some_and(|x| x == "jsonl") {
                    if let Ok(m) = std::fs::metadata(&q) {
                        session(q, m, &mut out);
                    }
                }
            }
        } else {
            session(p.clone(), m, &mut out);
        }
        out
    }) {
        out.extend(found);
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Whether standard input is a pipe, a socket or a regular file (not a
/// terminal, not `/dev/null` nor another device, not closed): ripgrep's
/// test for searching it when no path is given.
fn stdin_is_readable() -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::FileTypeExt;
    let Ok(fd) = std::io::stdin().as_fd().try_clone_to_owned() else {
        return false;
    };
    std::fs::File::from(fd).metadata().is_ok_and(|m| {
        let t = m.file_type();
        t.is_file() || t.is_fifo() || t.is_socket()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Directories walked in each tool's order, the same file found twice
    /// kept once by `dedupe`, a prefix that names none a source of its
    /// own, an empty SESSION a usage error.
    #[test]
    fn selects_and_walks() {
        let root = std::env::temp_dir().join(format!("pi-store-select-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for d in ["p/deep", "q"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        for f in ["p/b.jsonl", "p/deep/a.jsonl", "q/c.jsonl", "top.jsonl"] {
            std::fs::write(root.join(f), "{}\n").unwrap();
        }
        let names = |sel: &Selection| -> Vec<String> {
            sel.sources
                .iter()
                .map(|s| match s {
                    Source::File(p) => p.strip_prefix(&root).unwrap().display().to_string(),
                    other => format!("{other:?}"),
                })
                .collect()
        };
        let dir = root.to_string_lossy().into_owned();
        let mut req = Request {
            sessions: &[],
            all: true,
            session_dir: Some(&root),
            project: None,
            stdin_if_piped: false,
            walk: DirWalk::Ordered,
        };
        let mut warned = Vec::new();
        let sel = select(&req, &mut |d| warned.push(d)).unwrap();
        // the store: its files, then one level down, directory by directory
        assert_eq!(names(&sel), ["top.jsonl", "p/b.jsonl", "q/c.jsonl"]);
        assert_eq!(sel.root.as_deref(), Some(root.as_path()));
        req.walk = DirWalk::Stat;
        let sel = select(&req, &mut |d| warned.push(d)).unwrap();
        assert_eq!(names(&sel), ["p/b.jsonl", "q/c.jsonl", "top.jsonl"]);
        assert!(sel.meta.iter().all(Option::is_some));
        // a directory argument: every file below
        let args = [dir.clone(), root.join("top.jsonl").to_string_lossy().into()];
        req.sessions = &args;
        req.all = false;
        req.walk = DirWalk::Sorted;
        let mut sel = select(&req, &mut |d| warned.push(d)).unwrap();
        assert_eq!(
            names(&sel),
            [
                "p/b.jsonl",
                "p/deep/a.jsonl",
                "q/c.jsonl",
                "top.jsonl",
                "top.jsonl"
            ]
        );
        sel.dedupe();
        assert_eq!(
            names(&sel),
            ["p/b.jsonl", "p/deep/a.jsonl", "q/c.jsonl", "top.jsonl"]
        );
        assert!(warned.is_empty(), "{warned:?}");
        // a prefix that names nothing; an empty SESSION
        let args = ["zzz-no-such".to_string()];
        req.sessions = &args;
        let sel = select(&req, &mut |d| warned.push(d)).unwrap();
        assert!(matches!(sel.sources[..], [Source::Unresolved(_)]));
        let args = [String::new()];
        req.sessions = &args;
        assert!(select(&req, &mut |d| warned.push(d)).is_err());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
