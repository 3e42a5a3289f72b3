//! Finding session files: a SESSION argument resolved to a file (a path,
//! or a session-id prefix looked up in the store), the session files of a
//! directory or of a whole tree, and the files pi's `SessionManager.list`
//! and `listAll` read, in pi's order.

use super::dirs::{node_join, project_session_dir, sessions_root};
use super::parallel::parallel_map;
use crate::error::{Diagnostic, Error, Result};
use crate::session::Input;
use std::fs::Metadata;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// Turn a SESSION argument into an input: nothing or `-` is stdin; an
/// existing file, or anything that looks like a path, is a file; anything
/// else is a session-id prefix, looked up first in the current project's
/// session directory, then in every project's.
pub fn resolve_session(arg: Option<&str>, session_dir: Option<&Path>) -> Result<Input> {
    let arg = match arg {
        None | Some("-") => return Ok(Input::Stdin),
        Some("") => {
            // As a prefix it would match every session (`pi-label "$f" ...`
            // with `f` unset).
            return Err(Error::usage(
                "an empty SESSION argument: give a file, `-` for stdin, or a session-id prefix",
            ));
        }
        Some(a) => a,
    };
    let p = crate::name::path_of_kept(arg);
    // `symlink_metadata`: a link that leads nowhere, or in a loop, is a
    // file argument too (opening it says what is wrong), not a prefix.
    if p.symlink_metadata().is_ok() || looks_like_path(arg) {
        return Ok(Input::File(p.to_path_buf()));
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let local = project_session_dir(&cwd, session_dir);
    let root = session_dir.map_or_else(sessions_root, Path::to_path_buf);
    let mut found = matches_in(&local, arg);
    if found.is_empty() {
        let mut dirs = vec![root.clone()];
        if let Ok(rd) = std::fs::read_dir(&root) {
            let mut subs: Vec<PathBuf> = rd
                .flatten()
                .map(|d| d.path())
                .filter(|p| p.is_dir())
                .collect();
            subs.sort();
            dirs.extend(subs);
        }
        for d in dirs {
            if d != local {
                found.extend(matches_in(&d, arg));
            }
        }
    }
    match found.len() {
        0 if arg == "help" => Err(Error::usage(
            "help: no such file, and no session id starts with 'help'; for help, run with --help",
        )),
        0 => Err(Error::request(arg, {
            let looked = match root == local {
                true => crate::name::kept_path(&local).into_owned(),
                false => format!("{} and {}", crate::name::kept_path(&local), crate::name::kept_path(&root)),
            };
            format!("no such file, and no session id starts with '{arg}' (looked in {looked})")
        })),
        1 => Ok(Input::File(found.remove(0).1)),
        _ => {
            let list: Vec<String> = found
                .iter()
                .take(10)
                .map(|(id, p)| format!("{id} ({})", crate::name::kept_path(p)))
                .collect();
            Err(Error::request(
                arg,
                format!(
                    "session id prefix '{arg}' is ambiguous: {}",
                    list.join(", ")
                ),
            ))
        }
    }
}

/// Whether a SESSION argument that names nothing is a path all the same
/// (a `/` or `\\` in it, or a `.jsonl` end), not a session-id prefix.
pub fn looks_like_path(arg: &str) -> bool {
    arg.contains('/') || arg.contains('\\') || arg.ends_with(".jsonl")
}

/// Session files in `dir` whose header id starts with `prefix`.
fn matches_in(dir: &Path, prefix: &str) -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = session_files_in(dir)
        .into_iter()
        .filter_map(|p| header_id(&p).map(|id| (id, p)))
        .filter(|(id, _)| id.starts_with(prefix))
        .collect();
    out.sort();
    out
}

/// The header id of a session file (None when the first line is not a header).
pub fn header_id(path: &Path) -> Option<String> {
    let line = first_line(path)?;
    let text = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&line);
    let obj = crate::json::Object::parse_line(text).ok()??;
    if obj.str("type").as_deref() != Some("session") {
        return None;
    }
    obj.str("id").map(|s| s.into_owned())
}

/// The first line of a file, its `\n` included, read to at most 1 MiB
/// (a header is far shorter); None when the file cannot be read or is no
/// regular file (a header's `parentSession` may name a FIFO, which a plain
/// open would wait on, or a device).
pub fn first_line(path: &Path) -> Option<Vec<u8>> {
    let f = crate::io::open_no_wait(path).ok()?;
    if !f.metadata().ok()?.is_file() {
        return None;
    }
    let mut line = Vec::new();
    BufReader::new(f)
        .take(1 << 20)
        .read_until(b'\n', &mut line)
        .ok()?;
    Some(line)
}

/// The `*.jsonl` files directly in `dir` (links to files too), by path; none
/// when `dir` cannot be read.
pub fn session_files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = rd
        .flatten()
        .map(|d| d.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl") && p.is_file())
        .collect();
    files.sort();
    files
}

/// The session files below a directory ([`session_files_under`]).
#[derive(Debug, Default)]
pub struct Walk {
    /// Every `*.jsonl` file (or link to a file), by path.
    pub files: Vec<PathBuf>,
    /// Whether one of them is a symbolic link (so that two paths may name
    /// one file).
    pub links: bool,
}

/// Every `*.jsonl` file below `dir`, at any depth, for a tool over many
/// sessions (`pi-migrate`): links to files are taken, links to directories
/// not followed. A directory that cannot be read is passed to `unreadable`
/// with the error, and skipped.
pub fn session_files_under(dir: &Path, mut unreadable: impl FnMut(&Path, &std::io::Error)) -> Walk {
    let mut stack = vec![dir.to_path_buf()];
    let mut walk = Walk::default();
    while let Some(d) = stack.pop() {
        let rd = match std::fs::read_dir(&d) {
            Ok(rd) => rd,
            Err(e) => {
                unreadable(&d, &e);
                continue;
            }
        };
        for ent in rd.flatten() {
            let p = ent.path();
            let Ok(ft) = ent.file_type() else { continue };
            if ft.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "jsonl")
                && (ft.is_file() || (ft.is_symlink() && p.is_file()))
            {
                walk.links |= ft.is_symlink();
                walk.files.push(p);
            }
        }
    }
    walk.files.sort();
    walk
}

/// A file pi would read, with the `stat` pi took of it (listAll only).
#[derive(Debug, Clone)]
pub struct Candidate {
    pub path: PathBuf,
    /// `stat` (following links); None when it failed or was not taken.
    pub meta: Option<Metadata>,
}

/// `listSessionsFromDir(dir)`'s files: the names ending in `.jsonl`, by
/// `localeCompare`, descending. A directory that cannot be read lists nothing.
pub fn dir_candidates(dir: &Path, warn: &mut dyn FnMut(Diagnostic)) -> Vec<Candidate> {
    let Some(rd) = read_dir_noting(dir, warn) else {
        return Vec::new();
    };
    let mut names: Vec<String> = rd
        .flatten()
        .map(|d| crate::name::kept(&d.file_name()).into_owned())
        .filter(|n| n.ends_with(".jsonl"))
        .collect();
    names.sort_by(|a, b| locale_compare(b, a));
    names
        .into_iter()
        .map(|n| Candidate {
            path: node_join(dir, &n),
            meta: None,
        })
        .collect()
}

/// `listAll()`'s files: `*.jsonl` in every directory (or link) directly
/// under `root`, by modification time, newest first, then by name
/// (`localeCompare`, descending).
pub fn all_candidates(root: &Path, warn: &mut dyn FnMut(Diagnostic)) -> Vec<Candidate> {
    let Some(rd) = read_dir_noting(root, warn) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = Vec::new();
    for d in rd.flatten() {
        let Ok(ft) = d.file_type() else { continue };
        if ft.is_dir() || ft.is_symlink() {
            dirs.push(node_join(root, &crate::name::kept(&d.file_name())));
        }
    }
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    for dir in &dirs {
        match std::fs::read_dir(dir) {
            Ok(rd) => {
                for d in rd.flatten() {
                    let n = crate::name::kept(&d.file_name()).into_owned();
                    if n.ends_with(".jsonl") {
                        files.push((node_join(dir, &n), n));
                    }
                }
            }
            Err(e) => {
                // A link to a file is no directory: pi passes over it too.
                if e.raw_os_error() != Some(libc::ENOTDIR) {
                    warn(unreadable(dir, &e));
                }
            }
        }
    }
    let mut cands: Vec<(f64, String, Candidate)> = parallel_map(&files, |(p, n)| {
        let meta = std::fs::metadata(p).ok();
        let t = meta.as_ref().map_or(f64::NEG_INFINITY, mtime_ms);
        (
            t,
            n.clone(),
            Candidate {
                path: p.clone(),
                meta,
            },
        )
    });
    cands.sort_by(|a, b| {
        b.0.partial_cmp(&a.0)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| locale_compare(&b.1, &a.1))
    });
    cands.into_iter().map(|c| c.2).collect()
}

/// `dir`'s entries; None when it cannot be read, with a warning unless
/// it does not exist (pi lists nothing then, without a word).
fn read_dir_noting(dir: &Path, warn: &mut dyn FnMut(Diagnostic)) -> Option<std::fs::ReadDir> {
    match std::fs::read_dir(dir) {
        Ok(rd) => Some(rd),
        Err(e) => {
            if e.kind() != std::io::ErrorKind::NotFound {
                warn(unreadable(dir, &e));
            }
            None
        }
    }
}

/// The warning for a directory that cannot be read.
fn unreadable(dir: &Path, e: &std::io::Error) -> Diagnostic {
    Diagnostic::new(
        &crate::name::kept_path(dir),
        None,
        crate::error::io_message(e),
    )
}

/// Node's `stats.mtimeMs`: `sec * 1e3 + nsec / 1e6` in doubles, with its
/// fraction (listAll orders files by it).
pub fn mtime_ms(m: &Metadata) -> f64 {
    use std::os::unix::fs::MetadataExt;
    m.mtime() as f64 * 1000.0 + m.mtime_nsec() as f64 / 1e6
}

/// Node's `stats.mtime.getTime()`: `new Date(Math.round(mtimeMs))`, so
/// rounded (halves up), not cut, to whole milliseconds.
pub fn mtime_date(m: &Metadata) -> f64 {
    js_round(mtime_ms(m))
}

/// JavaScript's `Math.round`: the nearest integer, halves toward +∞.
/// (`x - floor(x)` is exact for a double.)
fn js_round(x: f64) -> f64 {
    let f = x.floor();
    if x - f >= 0.5 {
        f + 1.0
    } else {
        f + 0.0
    }
}

pub use crate::json::js::string::locale_compare;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_like_math_round() {
        for (x, r) in [
            (1.5f64, 2.0f64),
            (2.5, 3.0),
            (1.4999, 1.0),
            (-1.5, -1.0),
            (-1.6, -2.0),
            (-0.4, 0.0),
            (1577836800000.5, 1577836800001.0),
        ] {
            assert_eq!(js_round(x).to_bits(), r.to_bits(), "{x}");
        }
    }

    #[test]
    fn compares_like_icu() {
        let mut v = vec!["ab", "aB", "Ab", "a-b", "a_b", "a1", "a.b", "a"];
        v.sort_by(|a, b| locale_compare(a, b));
        assert_eq!(v, ["a", "a_b", "a-b", "a.b", "a1", "ab", "aB", "Ab"]);
    }

    #[test]
    fn finds_session_files_in_a_tree() {
        let root = std::env::temp_dir().join(format!("pi-store-walk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for d in ["a/b", "c", "d.jsonl"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        for f in [
            "x.jsonl",
            "a/y.jsonl",
            "a/b/z.jsonl",
            "a/notes.txt",
            "c/.jsonl",
        ] {
            std::fs::write(root.join(f), "{}\n").unwrap();
        }
        let rel = |w: &Walk| -> Vec<String> {
            w.files
                .iter()
                .map(|p| {
                    p.strip_prefix(&root)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned()
                })
                .collect()
        };
        let mut bad = Vec::new();
        let w = session_files_under(&root, |d, _| bad.push(d.to_path_buf()));
        assert_eq!(rel(&w), ["a/b/z.jsonl", "a/y.jsonl", "x.jsonl"]);
        assert!(!w.links && bad.is_empty());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root.join("x.jsonl"), root.join("c/link.jsonl")).unwrap();
            std::os::unix::fs::symlink(root.join("a"), root.join("c/dir")).unwrap();
            std::os::unix::fs::symlink(root.join("gone"), root.join("c/dangling.jsonl")).unwrap();
            let w = session_files_under(&root, |_, _| {});
            assert_eq!(
                rel(&w),
                ["a/b/z.jsonl", "a/y.jsonl", "c/link.jsonl", "x.jsonl"]
            );
            assert!(w.links);
            let names: Vec<_> = session_files_in(&root.join("c"))
                .iter()
                .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
                .collect();
            assert_eq!(names, ["link.jsonl"]);
        }
        assert_eq!(session_files_in(&root), [root.join("x.jsonl")]);
        let w = session_files_under(&root.join("none"), |d, _| bad.push(d.to_path_buf()));
        assert!(w.files.is_empty());
        assert_eq!(bad, [root.join("none")]);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
