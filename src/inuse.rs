//! Whether a session is in use, before it is moved or deleted: a process
//! holds it open (a descriptor in `/proc/PID/fd`: an editor, a `tail -f`,
//! a tool still writing it), or a running pi may be continuing it (pi
//! holds no descriptor between its writes: [`crate::live`]). Other systems
//! have no `/proc`: nothing is found there.

use crate::live::Running;
use std::collections::HashMap;
use std::path::Path;

/// A file by its identity (device, inode).
type FileId = (u64, u64);

/// Who uses what, looked at once for a run.
pub struct InUse {
    running: Running,
    /// The files open in other processes: one holder of each.
    open: HashMap<FileId, (u32, String)>,
}

impl InUse {
    /// Look at the processes now, for the files `files` (only these are
    /// searched for among open descriptors).
    pub fn scan(files: &[&Path]) -> InUse {
        let wanted: HashMap<FileId, ()> = files
            .iter()
            .filter_map(|f| id_of(f))
            .map(|i| (i, ()))
            .collect();
        InUse {
            running: crate::live::running(),
            open: if wanted.is_empty() {
                HashMap::new()
            } else {
                open_files(&wanted)
            },
        }
    }

    /// Why `file` is in use, said to be put after its name; None when it
    /// is not.
    pub fn why(&self, file: &Path) -> Option<String> {
        if let Some((pid, comm)) = id_of(file).and_then(|i| self.open.get(&i)) {
            return Some(format!(
                "in use: process {pid} ({}) has it open",
                crate::visible::field(comm)
            ));
        }
        let p = self.running.continuing(file)?;
        Some(format!(
            "in use: pi is running (pid {}, in {}) and may be continuing it; quit pi first",
            p.pid,
            crate::visible::field(&p.cwd.to_string_lossy()),
        ))
    }
}

/// The wanted files that some other process has open, each with one of
/// those processes (its id and name).
fn open_files(wanted: &HashMap<FileId, ()>) -> HashMap<FileId, (u32, String)> {
    let mut found = HashMap::new();
    for (pid, proc_dir) in crate::live::other_processes() {
        // Another user's descriptors cannot be read: nothing is known.
        let Ok(fds) = std::fs::read_dir(proc_dir.join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            let Some(id) = id_of(&fd.path()) else {
                continue;
            };
            if wanted.contains_key(&id) && !found.contains_key(&id) {
                let comm = std::fs::read_to_string(proc_dir.join("comm")).unwrap_or_default();
                found.insert(id, (pid, comm.trim_end().to_string()));
            }
        }
    }
    found
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_held_open_by_a_child_is_in_use() {
        let dir = std::env::temp_dir().join(format!("inuse-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("s.jsonl");
        std::fs::write(&f, b"{}\n").unwrap();
        let free = dir.join("free.jsonl");
        std::fs::write(&free, b"{}\n").unwrap();
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .stdin(std::fs::File::open(&f).unwrap())
            .spawn()
            .unwrap();
        let u = InUse::scan(&[&f, &free]);
        let _ = child.kill();
        let _ = child.wait();
        let why = u.why(&f).unwrap();
        assert!(why.contains(&format!("process {}", child.id())), "{why}");
        assert!(u.why(&free).is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
