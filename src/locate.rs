//! Where sessions live, and finding one by a session-id prefix (SPEC §1).

use crate::error::{Error, Result};
use crate::session::Input;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

/// pi's agent directory: `$PI_CODING_AGENT_DIR` (leading `~` expanded), else `~/.pi/agent`.
pub fn agent_dir() -> PathBuf {
    match std::env::var_os("PI_CODING_AGENT_DIR") {
        Some(d) if !d.is_empty() => expand_tilde(&d.to_string_lossy()),
        _ => home().join(".pi").join("agent"),
    }
}

fn home() -> PathBuf {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/"))
}

/// `~` and `~/x` expanded to the home directory, as pi does.
pub fn expand_tilde(p: &str) -> PathBuf {
    if p == "~" {
        home()
    } else if let Some(rest) = p.strip_prefix("~/") {
        home().join(rest)
    } else {
        PathBuf::from(p)
    }
}

/// pi's `resolvePath(p)`: `~` and `~/x` expanded, a `file://` URL made a
/// path, then Node's `path.resolve` against the current directory (`.`,
/// `..`, repeated and trailing slashes resolved by the text alone, without
/// following symbolic links).
pub fn resolve_path(p: &Path) -> PathBuf {
    let p = match p.to_str() {
        Some(s) if s == "~" || s.starts_with("~/") => expand_tilde(s),
        Some(s) => match file_url_path(s) {
            Some(path) => PathBuf::from(path),
            None => p.to_path_buf(),
        },
        None => p.to_path_buf(),
    };
    let joined = if p.is_absolute() {
        p
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    };
    let mut out = PathBuf::from("/");
    for c in joined.components() {
        match c {
            std::path::Component::Normal(n) => out.push(n),
            std::path::Component::ParentDir => {
                out.pop();
            }
            _ => {}
        }
    }
    out
}

/// [`resolve_path`] of a path given as text (a header's `cwd`).
pub fn resolve_path_str(p: &str) -> String {
    resolve_path(Path::new(p)).to_string_lossy().into_owned()
}

/// The path of a `file:` URL without host (or with `localhost`), percent
/// escapes decoded, as Node's `fileURLToPath` gives it; None when `s` is
/// not such a URL.
fn file_url_path(s: &str) -> Option<String> {
    let rest = s.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let end = rest.find(['?', '#']).unwrap_or(rest.len());
    let raw = &rest.as_bytes()[..end];
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if raw[i] == b'%' && i + 2 < raw.len() {
            if let (Some(h), Some(l)) = (hex(raw[i + 1]), hex(raw[i + 2])) {
                let b = (h * 16 + l) as u8;
                if b == b'/' {
                    return None; // Node refuses an encoded slash
                }
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(raw[i]);
        i += 1;
    }
    String::from_utf8(out).ok()
}

/// The root of all projects' session directories: `<agentDir>/sessions`.
pub fn sessions_root() -> PathBuf {
    agent_dir().join("sessions")
}

/// The directory name pi uses for a working directory: `--home-a-proj--`.
pub fn encode_cwd(cwd: &str) -> String {
    let trimmed = cwd
        .strip_prefix('/')
        .or_else(|| cwd.strip_prefix('\\'))
        .unwrap_or(cwd);
    let enc: String = trimmed
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | ':') {
                '-'
            } else {
                c
            }
        })
        .collect();
    format!("--{enc}--")
}

/// The session directory of project `cwd`: `--session-dir`, else
/// `$PI_CODING_AGENT_SESSION_DIR`, else `<agentDir>/sessions/--<cwd>--`.
pub fn project_session_dir(cwd: &Path, session_dir: Option<&Path>) -> PathBuf {
    if let Some(d) = session_dir {
        return d.to_path_buf();
    }
    if let Some(d) = std::env::var_os("PI_CODING_AGENT_SESSION_DIR") {
        if !d.is_empty() {
            return expand_tilde(&d.to_string_lossy());
        }
    }
    sessions_root().join(encode_cwd(&cwd.to_string_lossy()))
}

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
    let p = Path::new(arg);
    // `symlink_metadata`: a link that leads nowhere, or in a loop, is a
    // file argument too (opening it says what is wrong), not a prefix.
    if p.symlink_metadata().is_ok()
        || arg.contains('/')
        || arg.contains('\\')
        || arg.ends_with(".jsonl")
    {
        return Ok(Input::File(p.to_path_buf()));
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let local = project_session_dir(&cwd, session_dir);
    let mut found = matches_in(&local, arg);
    if found.is_empty() {
        let root = match session_dir {
            Some(d) => d.to_path_buf(),
            None => sessions_root(),
        };
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
        0 => Err(Error::request(
            arg,
            format!(
                "no such file, and no session id starts with '{arg}' (looked in {} and {})",
                local.display(),
                match session_dir {
                    Some(d) => d.display().to_string(),
                    None => sessions_root().display().to_string(),
                }
            ),
        )),
        1 => Ok(Input::File(found.remove(0).1)),
        _ => {
            let list: Vec<String> = found
                .iter()
                .take(10)
                .map(|(id, p)| format!("{id} ({})", p.display()))
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

/// Session files in `dir` whose header id starts with `prefix`.
fn matches_in(dir: &Path, prefix: &str) -> Vec<(String, PathBuf)> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(String, PathBuf)> = rd
        .flatten()
        .map(|d| d.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl") && p.is_file())
        .filter_map(|p| header_id(&p).map(|id| (id, p)))
        .filter(|(id, _)| id.starts_with(prefix))
        .collect();
    out.sort();
    out
}

/// The header id of a session file (None when the first line is not a header).
pub fn header_id(path: &Path) -> Option<String> {
    let f = std::fs::File::open(path).ok()?;
    let mut line = Vec::new();
    BufReader::new(f)
        .take(1 << 20)
        .read_until(b'\n', &mut line)
        .ok()?;
    let text = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&line);
    let obj = crate::json::Object::parse_line(text).ok()??;
    if obj.str("type").as_deref() != Some("session") {
        return None;
    }
    obj.str("id").map(|s| s.into_owned())
}

use std::io::Read;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_cwd_like_pi() {
        assert_eq!(encode_cwd("/home/a/proj"), "--home-a-proj--");
        assert_eq!(encode_cwd("C:\\Users\\a"), "--C--Users-a--");
    }

    #[test]
    fn resolves_paths_like_node() {
        let r = |p: &str| resolve_path_str(p);
        assert_eq!(r("/a/b/../c/./d//"), "/a/c/d");
        assert_eq!(r("/../.."), "/");
        assert_eq!(r("/tmp/other project/"), "/tmp/other project");
        assert_eq!(r("file:///a%20b/c?x#y"), "/a b/c");
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(r("x/.."), cwd.to_string_lossy());
    }
}
