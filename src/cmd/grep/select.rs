//! Which sessions a search reads: the SESSION arguments (files,
//! directories walked for every `*.jsonl`, `-` for stdin, session-id
//! prefixes), or this project's session directory, or every project's.

use crate::error::{Diagnostic, Result};
use crate::store;
use std::path::{Path, PathBuf};

/// A session to search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    File(PathBuf),
    Stdin,
    /// A SESSION that names no session (no file, and a session-id prefix
    /// that matches none or several): an error of its own, as a file
    /// that cannot be read is, while the others are searched.
    Unresolved(Diagnostic),
}

impl Source {
    pub fn name(&self) -> String {
        match self {
            Source::File(p) => p.to_string_lossy().into_owned(),
            Source::Stdin => "<stdin>".into(),
            Source::Unresolved(d) => d.at.as_ref().map_or(String::new(), |l| l.file.clone()),
        }
    }
}

/// The sessions named by the SESSION arguments: files, directories
/// (every `*.jsonl` below them), `-` for stdin, or session-id prefixes; with
/// none, standard input when it is a pipe or a file and neither `all` nor
/// `session_dir` is given (ripgrep's rule: `cat s.jsonl | pi-grep x`),
/// else this project's session directory, or with `all` every project's.
pub(crate) fn select(
    args: &[String],
    all: bool,
    session_dir: Option<&Path>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Vec<Source>> {
    let mut out = Vec::new();
    if args.is_empty() && !all && session_dir.is_none() && stdin_is_readable() {
        out.push(Source::Stdin);
        return Ok(out);
    }
    if args.is_empty() {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let dir = if all {
            session_dir
                .map(Path::to_path_buf)
                .unwrap_or_else(store::sessions_root)
        } else {
            store::project_session_dir(&cwd, session_dir)
        };
        if !dir.is_dir() {
            warnings.push(Diagnostic::new(
                &dir.to_string_lossy(),
                None,
                "no such session directory; no sessions to search",
            ));
            return Ok(out);
        }
        let mut files = Vec::new();
        jsonl_in(&dir, if all { 1 } else { 0 }, &mut files, warnings);
        out.extend(files.into_iter().map(Source::File));
        return Ok(out);
    }
    for a in args {
        let p = Path::new(a);
        if a != "-" && p.is_dir() {
            let mut files = Vec::new();
            jsonl_in(p, usize::MAX, &mut files, warnings);
            out.extend(files.into_iter().map(Source::File));
            continue;
        }
        match store::resolve_session(Some(a), session_dir) {
            Ok(crate::session::Input::Stdin) => out.push(Source::Stdin),
            Ok(crate::session::Input::File(f)) => out.push(Source::File(f)),
            Err(e) if e.kind != crate::error::ErrorKind::Usage => {
                out.push(Source::Unresolved(e.diag))
            }
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// The `*.jsonl` files in `dir` (links to files too), by name, then those
/// of its subdirectories (links to directories followed) down to `depth`
/// levels, each in turn: not [`store::session_files_under`], which sorts
/// the whole tree by path, follows no link to a directory and goes to any
/// depth. A directory that cannot be read, a directory already searched
/// (a link back up: a loop) and a link that leads nowhere are warned
/// about and skipped.
fn jsonl_in(dir: &Path, depth: usize, files: &mut Vec<PathBuf>, warnings: &mut Vec<Diagnostic>) {
    let mut seen = std::collections::HashSet::new();
    walk(dir, depth, files, warnings, &mut seen);
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

fn walk(
    dir: &Path,
    depth: usize,
    files: &mut Vec<PathBuf>,
    warnings: &mut Vec<Diagnostic>,
    seen: &mut std::collections::HashSet<(u64, u64, PathBuf)>,
) {
    if let Some(id) = dir_id(dir) {
        if !seen.insert(id) {
            warnings.push(Diagnostic::new(
                &dir.to_string_lossy(),
                None,
                "a directory already searched (a link back to it: a loop); skipped",
            ));
            return;
        }
    }
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) => {
            let msg = format!("{}; skipped", crate::error::io_message(&e));
            warnings.push(Diagnostic::new(&dir.to_string_lossy(), None, msg));
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
                        let msg = format!("{}; skipped", crate::error::io_message(&e));
                        warnings.push(Diagnostic::new(&p.to_string_lossy(), None, msg));
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
        walk(&s, depth - 1, files, warnings, seen);
    }
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
