//! A running pi: which pi processes run on this machine, and which session
//! files each may be continuing, so that a write a running pi would undo
//! can be refused.
//!
//! pi keeps its leaf in memory and appends its next turn under it, so an
//! entry another tool appends meanwhile (a context edit, a move of the
//! leaf) ends up on a side branch at pi's next turn: the edit silently stops
//! applying. Labels and names are not affected (pi reads them from every
//! entry). pi holds no descriptor on the file (each entry is one
//! `appendFileSync`), and it sets its process title to `pi` (or `pi-rpc`),
//! which hides its `--session FILE` argument. What is visible, on Linux in
//! `/proc`: the process name, its working directory and its environment
//! (`HOME`, `PI_CODING_AGENT_DIR`, `PI_CODING_AGENT_SESSION_DIR`), from
//! which its session directory follows as pi computes it (with the
//! `sessionDir` of its settings). A session is one a running pi may be
//! continuing when its file is in that directory, or when its header's
//! `cwd` is pi's working directory (`pi --session`, `/resume` and
//! `--session-dir` open any session of the project). Other systems get no
//! detection: [`running`] finds nothing there.

use crate::error::{Diagnostic, Error, Result};
use std::path::{Path, PathBuf};

/// At most this much of one environment variable pi reads is kept (the
/// environment itself is read through, however large).
const VAR_LIMIT: usize = 1 << 20;
/// At most this much of a settings file is read.
const SETTINGS_LIMIT: u64 = 1 << 20;

/// A file or directory by its identity (device, inode): the same whatever
/// path, link or mount namespace names it.
type FileId = (u64, u64);

/// A running pi whose session directory and working directory are known.
#[derive(Debug, Clone)]
pub struct Process {
    pub pid: u32,
    /// Its process name (`pi`, `pi-rpc`; `node` or `bun` in its first moments).
    pub comm: String,
    /// Its working directory, as it names it.
    pub cwd: PathBuf,
    cwd_id: Option<FileId>,
    /// Its root (`/proc/PID/root`): its paths are looked up under it.
    root: PathBuf,
    /// The session directory it uses for its working directory.
    pub session_dir: PathBuf,
    session_dir_id: Option<FileId>,
}

/// A pi process that could not be looked into (another user's).
#[derive(Debug, Clone)]
pub struct Unreadable {
    pub pid: u32,
    pub comm: String,
    /// Its owner.
    pub uid: u32,
}

/// The pi processes running now.
#[derive(Debug, Default)]
pub struct Running {
    pub processes: Vec<Process>,
    pub unreadable: Vec<Unreadable>,
}

/// Every process but this one: its id and its `/proc/PID` directory
/// (none where there is no `/proc`).
pub(crate) fn other_processes() -> impl Iterator<Item = (u32, std::path::PathBuf)> {
    let me = std::process::id();
    std::fs::read_dir("/proc")
        .into_iter()
        .flat_map(|dir| dir.flatten())
        .filter_map(move |d| {
            let pid = d.file_name().to_str()?.parse::<u32>().ok()?;
            (pid != me).then(|| (pid, d.path()))
        })
}

/// The pi processes running now (none where there is no `/proc`).
pub fn running() -> Running {
    let mut found = Running::default();
    for (pid, proc_dir) in other_processes() {
        let Some(comm) = pi_comm(&proc_dir) else {
            continue;
        };
        match look_into(pid, &comm, &proc_dir) {
            Ok(p) => found.processes.push(p),
            Err(e) if denied(&e) => found.unreadable.push(Unreadable {
                pid,
                uid: owner(&proc_dir).unwrap_or(u32::MAX),
                comm,
            }),
            // Gone meanwhile, or a zombie: nothing of it runs.
            Err(_) => {}
        }
    }
    found
}

impl Running {
    /// The running pi that may be continuing the session `file`: its file
    /// is in that pi's session directory, or its header's `cwd` is that
    /// pi's working directory.
    pub fn continuing(&self, file: &Path) -> Option<&Process> {
        if self.processes.is_empty() {
            return None;
        }
        let dirs = parent_ids(file);
        let header_cwd = header_cwd(file);
        let links = other_names(file);
        self.processes.iter().find(|p| {
            p.session_dir_id.is_some_and(|d| dirs.contains(&d))
                || header_cwd.as_deref().is_some_and(|c| {
                    p.cwd_id.is_some() && id_of(&under_root(&p.root, Path::new(c))) == p.cwd_id
                })
                || links.is_some_and(|f| holds(&under_root(&p.root, &p.session_dir), f))
        })
    }
}

/// Refuse a write to the session `file` that a running pi may be continuing
/// (`consequence` says what pi would do to it), naming the process and what
/// to do; pi processes that cannot be looked into and could write the file
/// are handed to `warn`, and not refused.
pub fn refuse_if_live(
    file: &Path,
    consequence: &str,
    warn: &mut dyn FnMut(Diagnostic),
) -> Result<()> {
    let running = running();
    let name = crate::name::kept_path(file).into_owned();
    if let Some(p) = running.continuing(file) {
        return Err(Error::request(
            &name,
            format!(
                "pi is running (pid {}, {}, in {}, sessions in {}) and may be continuing this session: {consequence}; quit pi first, or pass --force to write anyway; nothing was written",
                p.pid,
                crate::visible::field(&p.comm),
                crate::visible::field(&p.cwd.to_string_lossy()),
                crate::visible::field(&p.session_dir.to_string_lossy()),
            ),
        ));
    }
    for u in running
        .unreadable
        .iter()
        .filter(|u| could_write(u.uid, file))
    {
        warn(Diagnostic::new(
            &name,
            None,
            format!(
                "pi process {} ({}) of user {} cannot be looked into: if it has this session open, {consequence}",
                u.pid,
                crate::visible::field(&u.comm),
                u.uid
            ),
        ));
    }
    Ok(())
}

/// The process name of `/proc/PID` when it is a pi: `pi` or `pi-rpc`, or,
/// before pi sets its title (its first second), `node` or `bun` running
/// pi's `cli.js` or `rpc-entry.js`, or a `pi` link to it.
fn pi_comm(proc_dir: &Path) -> Option<String> {
    let comm = std::fs::read_to_string(proc_dir.join("comm")).ok()?;
    let comm = comm.trim_end_matches('\n');
    if comm == "pi" || comm == "pi-rpc" {
        return Some(comm.to_string());
    }
    if !matches!(comm, "node" | "nodejs" | "bun") {
        return None;
    }
    let cmdline = read_bounded(&proc_dir.join("cmdline"), 1 << 16).ok()?;
    // Node's options come first; the script is among the first arguments.
    let is_pi = cmdline.split(|&b| b == 0).skip(1).take(8).any(|arg| {
        let arg = String::from_utf8_lossy(arg);
        arg.ends_with("/pi-coding-agent/dist/cli.js")
            || arg.ends_with("/pi-coding-agent/dist/rpc-entry.js")
            || arg == "pi"
            || arg.ends_with("/pi")
    });
    is_pi.then(|| comm.to_string())
}

/// What a pi process's working directory and environment say: where it
/// keeps its sessions.
fn look_into(pid: u32, comm: &str, proc_dir: &Path) -> std::io::Result<Process> {
    let cwd = std::fs::read_link(proc_dir.join("cwd"))?;
    let environ = env_vars(
        &proc_dir.join("environ"),
        &["HOME", "PI_CODING_AGENT_DIR", "PI_CODING_AGENT_SESSION_DIR"],
    )?;
    let root = proc_dir.join("root");
    let var = |name: &str| -> Option<String> {
        environ
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
    };
    // Node's os.homedir() is $HOME; without it, `/` stands in (a pi
    // without HOME is rare, and its default store then cannot be found).
    let home = PathBuf::from(var("HOME").filter(|h| !h.is_empty()).unwrap_or("/".into()));
    let norm = |d: &str| crate::store::normalize_with_home(d, &home);
    let agent_dir = match var("PI_CODING_AGENT_DIR").filter(|d| !d.is_empty()) {
        Some(d) => cwd.join(norm(&d)),
        None => home.join(".pi").join("agent"),
    };
    let env_dir = var("PI_CODING_AGENT_SESSION_DIR");
    let settings_dir = if env_dir.as_deref().is_some_and(|d| !d.is_empty()) {
        None
    } else {
        settings_session_dir(&root, &agent_dir, &cwd)
    };
    let session_dir = crate::store::pi_session_dir(
        env_dir.as_deref(),
        settings_dir.as_deref(),
        &agent_dir,
        &cwd,
        &home,
    );
    Ok(Process {
        pid,
        comm: comm.to_string(),
        cwd_id: id_of(&proc_dir.join("cwd")),
        session_dir_id: id_of(&under_root(&root, &session_dir)),
        cwd,
        root,
        session_dir,
    })
}

/// The variables `names` of an environment file (`NAME=value`, each ended
/// by a NUL), read through in pieces: a process with a huge environment
/// is still looked into, and only the variables asked for are kept (each
/// to [`VAR_LIMIT`] bytes at most), in the order they come: the first of
/// a name is the one `getenv` gives.
fn env_vars<'a>(path: &Path, names: &[&'a str]) -> std::io::Result<Vec<(&'a str, Vec<u8>)>> {
    use std::io::BufRead;
    let f = crate::io::open_no_wait(path)?;
    let mut r = std::io::BufReader::with_capacity(64 << 10, f);
    let mut found = Vec::new();
    // The start of the current item, enough to tell whether it is wanted.
    let longest = names.iter().map(|n| n.len() + 1).max().unwrap_or(0);
    let mut item: Vec<u8> = Vec::new();
    let mut skipping = false;
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        let (piece, ended) = match buf.iter().position(|&b| b == 0) {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if !skipping {
            let room = VAR_LIMIT.saturating_add(longest).saturating_sub(item.len());
            item.extend_from_slice(&piece[..piece.len().min(room)]);
            let wanted = |n: &str| {
                let k = n.len() + 1;
                item.len() < k && n.as_bytes().starts_with(&item)
                    || item.len() >= k && item[..n.len()] == *n.as_bytes() && item[n.len()] == b'='
            };
            skipping = !names.iter().any(|n| wanted(n));
        }
        let used = ended.unwrap_or(buf.len());
        r.consume(used);
        if ended.is_some() {
            if !skipping {
                if let Some(n) = names.iter().find(|n| {
                    item.len() > n.len() && item.starts_with(n.as_bytes()) && item[n.len()] == b'='
                }) {
                    let value = &item[n.len() + 1..];
                    found.push((*n, value[..value.len().min(VAR_LIMIT)].to_vec()));
                }
            }
            item.clear();
            skipping = false;
        }
    }
    Ok(found)
}

/// The `sessionDir` of pi's settings: the project's
/// (`<cwd>/.pi/settings.json`) over the agent directory's
/// (`<agentDir>/settings.json`), as pi merges them.
fn settings_session_dir(root: &Path, agent_dir: &Path, cwd: &Path) -> Option<String> {
    let read = |p: PathBuf| -> Option<String> {
        let bytes = read_bounded(&under_root(root, &p), SETTINGS_LIMIT).ok()?;
        let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&bytes);
        let v: serde_json::Value = serde_json::from_slice(bytes).ok()?;
        v.get("sessionDir")?.as_str().map(str::to_string)
    };
    read(cwd.join(".pi").join("settings.json")).or_else(|| read(agent_dir.join("settings.json")))
}

/// The header's `cwd` of the session `file`, when its first line has one.
fn header_cwd(file: &Path) -> Option<String> {
    let line = crate::store::first_line(file)?;
    let end = line.strip_suffix(b"\n").map_or(line.len(), <[u8]>::len);
    let obj = crate::json::Object::at(&line, 0..end).ok()?;
    // pi writes its absolute cwd; anything else names no directory of its.
    obj.str("cwd")
        .filter(|c| c.starts_with('/'))
        .map(|c| c.into_owned())
}

/// The identities of the directory that holds `file`: by the path given,
/// and by the path with its links resolved.
fn parent_ids(file: &Path) -> Vec<FileId> {
    let abs = crate::store::resolve_path(file);
    let mut ids = Vec::new();
    let parents = [
        abs.parent().map(Path::to_path_buf),
        std::fs::canonicalize(file)
            .ok()
            .and_then(|c| c.parent().map(Path::to_path_buf)),
    ];
    for p in parents.into_iter().flatten() {
        if let Some(id) = id_of(&p) {
            ids.push(id);
        }
    }
    ids
}

/// The identity of `file` when it has other names (hard links), which
/// may be in a session directory of pi's.
fn other_names(file: &Path) -> Option<FileId> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(file).ok()?;
        (m.nlink() > 1).then_some((m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        None
    }
}

/// Whether the directory `dir` holds the file `f` under some name.
fn holds(dir: &Path, f: FileId) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| id_of(&e.path()) == Some(f))
}

/// `path` (absolute, as a process names it) under that process's root.
fn under_root(root: &Path, path: &Path) -> PathBuf {
    let rel = path.strip_prefix("/").unwrap_or(path);
    root.join(rel)
}

/// The identity of what `path` names (links followed).
fn id_of(path: &Path) -> Option<FileId> {
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

/// Whether an error says the process is not ours to look into.
fn denied(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::PermissionDenied
}

/// The owner of `/proc/PID`: the process's user.
fn owner(proc_dir: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(proc_dir).ok().map(|m| m.uid())
    }
    #[cfg(not(unix))]
    {
        let _ = proc_dir;
        None
    }
}

/// Whether user `uid` may append to `file`: it owns it, or the file is
/// writable by its group or by everyone (a user whose pi cannot write the
/// file cannot undo a write to it).
fn could_write(uid: u32, file: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match std::fs::metadata(file) {
            Ok(m) => m.uid() == uid || m.mode() & 0o022 != 0,
            Err(_) => true,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (uid, file);
        true
    }
}

/// At most `limit` bytes of `path` (a `/proc` file or a settings file); an
/// error when it holds more.
fn read_bounded(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let f = crate::io::open_no_wait(path)?;
    if !f.metadata()?.is_file() {
        return Err(std::io::ErrorKind::InvalidInput.into());
    }
    crate::io::read_bounded(f, limit)?.ok_or_else(|| std::io::ErrorKind::InvalidData.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_pi_runs_as_this_test() {
        // This process is never listed (it is not a pi, and it is itself).
        let me = std::process::id();
        assert!(running().processes.iter().all(|p| p.pid != me));
    }

    /// A huge environment (8 MiB here; pi seen with 4 MiB was skipped
    /// whole) is read through, and the variables after it are found.
    #[test]
    fn a_huge_environment_is_read_through() {
        let dir = std::env::temp_dir().join(format!("live-env-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("environ");
        let mut env = b"HOMER=no\0".to_vec();
        env.extend(b"BIG=");
        env.extend(std::iter::repeat_n(b'x', 8 << 20));
        env.extend(b"\0HOME=/home/u\0PI_CODING_AGENT_DIR=\0X=1\0HOME=/second\0");
        std::fs::write(&f, &env).unwrap();
        let got = env_vars(&f, &["HOME", "PI_CODING_AGENT_DIR", "BIG"]).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let names: Vec<&str> = got.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ["BIG", "HOME", "PI_CODING_AGENT_DIR", "HOME"]);
        // A variable is kept to the limit, the rest of it passed over.
        assert_eq!(got[0].1.len(), VAR_LIMIT);
        assert_eq!(got[1].1, b"/home/u");
        assert!(got[2].1.is_empty());
    }

    #[test]
    fn the_session_directory_follows_pi_rules() {
        let home = Path::new("/home/u");
        let cwd = Path::new("/home/u/proj");
        let agent = Path::new("/home/u/.pi/agent");
        let d = |env: Option<&str>, set: Option<&str>| {
            crate::store::pi_session_dir(env, set, agent, cwd, home)
        };
        assert_eq!(
            d(None, None),
            PathBuf::from("/home/u/.pi/agent/sessions/--home-u-proj--")
        );
        assert_eq!(d(Some("~/s"), Some("/x")), PathBuf::from("/home/u/s"));
        assert_eq!(d(Some(""), Some("/x/")), PathBuf::from("/x"));
        assert_eq!(d(None, Some("file:///a%20b")), PathBuf::from("/a b"));
        assert_eq!(d(None, Some("rel/../s")), PathBuf::from("/home/u/proj/s"));
    }
}
