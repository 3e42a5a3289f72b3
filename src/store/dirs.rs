//! Where sessions live, as pi finds them: the agent directory
//! (`$PI_CODING_AGENT_DIR`, else `~/.pi/agent`), the sessions root under it,
//! `$PI_CODING_AGENT_SESSION_DIR`, a project's session directory (its cwd
//! encoded as `--home-a-proj--`), and paths resolved and joined by their
//! text as Node's `path` module does (SPEC §1).

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

/// pi's `normalizePath(p)` (`expandTildePath`) with `home` as the home
/// directory: `~` and `~/x` expanded, a `file://` URL made a path, any
/// other text as it is (a relative path stays relative). For another
/// process's environment and settings (a running pi's, `live.rs`).
pub fn normalize_with_home(p: &str, home: &Path) -> PathBuf {
    if p == "~" {
        return home.to_path_buf();
    }
    if let Some(rest) = p.strip_prefix("~/") {
        return home.join(rest);
    }
    match file_url_path(p) {
        Some(path) if p.starts_with("file://") => PathBuf::from(path),
        _ => PathBuf::from(p),
    }
}

/// The session directory pi uses for a project, from the values pi reads:
/// its `$PI_CODING_AGENT_SESSION_DIR` (`env_dir`), else the `sessionDir` of
/// its settings, else `<agentDir>/sessions/--<cwd>--` (pi's
/// `getDefaultSessionDirPath`); each normalized as pi does with `home`,
/// and a relative one taken from `cwd` (pi joins file names to it, and
/// Node resolves them from its working directory).
pub fn pi_session_dir(
    env_dir: Option<&str>,
    settings_dir: Option<&str>,
    agent_dir: &Path,
    cwd: &Path,
    home: &Path,
) -> PathBuf {
    let chosen = env_dir
        .filter(|d| !d.is_empty())
        .or(settings_dir.filter(|d| !d.is_empty()));
    let dir = match chosen {
        Some(d) => normalize_with_home(d, home),
        None => agent_dir
            .join("sessions")
            .join(encode_cwd(&cwd.to_string_lossy())),
    };
    PathBuf::from(node_normalize(&cwd.join(dir).to_string_lossy()))
}

/// The root of all projects' session directories: `<agentDir>/sessions`.
pub fn sessions_root() -> PathBuf {
    agent_dir().join("sessions")
}

/// `$PI_CODING_AGENT_SESSION_DIR` (a leading `~` expanded), when it is set
/// and not empty: the directory pi keeps sessions in instead of the
/// project's own.
pub fn env_session_dir() -> Option<PathBuf> {
    std::env::var_os("PI_CODING_AGENT_SESSION_DIR")
        .filter(|d| !d.is_empty())
        .map(|d| expand_tilde(&d.to_string_lossy()))
}

/// The directory that holds every session, for a tool over the whole store
/// (`pi-migrate --all`, `pi-usage`): [`env_session_dir`], else
/// [`sessions_root`].
pub fn store_root() -> PathBuf {
    env_session_dir().unwrap_or_else(sessions_root)
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
    if let Some(d) = env_session_dir() {
        return d;
    }
    sessions_root().join(encode_cwd(&cwd.to_string_lossy()))
}

/// Node's `path.join(a, b)` (POSIX): the parts joined by `/`, then
/// normalised by their text (`.`, `..`, repeated slashes).
pub fn node_join(a: &Path, b: &str) -> PathBuf {
    // Names kept as crate::name keeps them: pi reads a name that is not
    // UTF-8 lossily and then finds no such file; the tools keep the file.
    let joined = format!("{}/{b}", crate::name::kept_path(a));
    crate::name::path_of_kept(&node_normalize(&joined))
}

/// Node's `path.posix.normalize`.
pub fn node_normalize(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let abs = p.starts_with('/');
    let trailing = p.ends_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != "..") {
                    parts.pop();
                } else if !abs {
                    parts.push("..");
                }
            }
            s => parts.push(s),
        }
    }
    let mut out = parts.join("/");
    if out.is_empty() && !abs {
        out.push('.');
    }
    if trailing && !out.is_empty() {
        out.push('/');
    }
    if abs {
        out.insert(0, '/');
    }
    out
}

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

    #[test]
    fn joins_like_node() {
        assert_eq!(
            node_join(Path::new("/a/b/"), "c.jsonl"),
            PathBuf::from("/a/b/c.jsonl")
        );
        assert_eq!(node_join(Path::new("./x//y/.."), "c"), PathBuf::from("x/c"));
        assert_eq!(node_join(Path::new("../x"), "c"), PathBuf::from("../x/c"));
    }
}
