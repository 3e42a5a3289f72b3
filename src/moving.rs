//! A session file moved to another directory (pi-mv): never over another
//! file, and at every moment present under its old name, its new name, or
//! both as one file (a hard link) or as two identical copies (across file
//! systems, between the copy and the removal). [`settled`] tells a rerun
//! that a target holding the same session is its own half-done move.

use std::fs::{self, File};
use std::io;
use std::path::Path;

/// How a file went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// Same file system: linked under the new name, the old name removed
    /// (or renamed where hard links are not possible).
    Renamed,
    /// Another file system: copied, flushed, then the original removed.
    Copied,
    /// The target already was this file (an interrupted run): the old
    /// name removed.
    Finished,
}

/// The tag of temporary files (`.NAME.pi-mv-tmp-PID-RAND`).
pub const TAG: &str = "pi-mv";

/// Whether `to` is already what moving `from` would make of it: the same
/// file (a hard link), or a file with the same bytes.
pub fn settled(from: &Path, to: &Path) -> bool {
    if same_file(from, to) {
        return true;
    }
    match (fs::metadata(from), fs::metadata(to)) {
        (Ok(a), Ok(b)) if a.len() == b.len() => {
            matches!((fs::read(from), fs::read(to)), (Ok(x), Ok(y)) if x == y)
        }
        _ => false,
    }
}

/// Move `from` to `to` (whose directory is created as pi creates its
/// session directories), never replacing another file: `AlreadyExists`
/// when `to` exists and is not [`settled`].
pub fn move_file(from: &Path, to: &Path) -> io::Result<How> {
    let (from_dir, to_dir) = (crate::write::dir_of(from), crate::write::dir_of(to));
    fs::create_dir_all(&to_dir)?;
    if fs::symlink_metadata(to).is_ok() {
        if !settled(from, to) {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("{} already exists", crate::name::kept_path(to)),
            ));
        }
        fs::remove_file(from)?;
        crate::write::sync_dir(&from_dir)?;
        return Ok(How::Finished);
    }
    let how = match fs::hard_link(from, to) {
        Ok(()) => {
            crate::write::sync_dir(&to_dir)?;
            fault("linked")?;
            fs::remove_file(from)?;
            How::Renamed
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return move_file(from, to),
        Err(e) if e.kind() == io::ErrorKind::CrossesDevices => {
            copy_new(from, to)?;
            fault("copied")?;
            fs::remove_file(from)?;
            How::Copied
        }
        // No hard links on this file system: a plain rename (the target
        // was absent a moment ago).
        Err(_) => {
            fs::rename(from, to)?;
            How::Renamed
        }
    };
    crate::write::sync_dir(&to_dir)?;
    crate::write::sync_dir(&from_dir)?;
    Ok(how)
}

/// Copy `from` to the new file `to` across file systems: staged beside
/// it with the same permissions, extended attributes and modification
/// time, flushed, given its name only if no file has it; the copy is
/// dropped if `from` changed meanwhile (pi wrote to it).
fn copy_new(from: &Path, to: &Path) -> io::Result<()> {
    let mut src = File::open(from)?;
    let before = src.metadata()?;
    let mut t = crate::write::TempFile::beside(to, TAG, Some(&before))?;
    io::copy(&mut src, t.file())?;
    t.copy_xattrs_from(&src)?;
    if let Ok(m) = before.modified() {
        t.file().set_modified(m)?;
    }
    let after = fs::metadata(from)?;
    if after.len() != before.len() || after.modified().ok() != before.modified().ok() {
        return Err(io::Error::other(
            "the session changed while it was copied; nothing was moved",
        ));
    }
    t.commit_new()
}

fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (fs::metadata(a), fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        false
    }
}

/// A test's crash in the middle of a move: `PI_SESSION_TOOLS_FAULT=STEP`
/// (`linked`, `copied`, or `rewritten`, after the headers are rewritten)
/// makes the process exit at once there with status 99, as a kill would
/// stop it. Only in builds with debug assertions (tests).
pub fn fault(step: &str) -> io::Result<()> {
    if cfg!(debug_assertions)
        && std::env::var_os("PI_SESSION_TOOLS_FAULT").is_some_and(|v| v == step)
    {
        std::process::exit(99);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_never_replaces_another_file_and_a_rerun_finishes() {
        let dir = std::env::temp_dir().join(format!("moving-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a.jsonl"), dir.join("new/a.jsonl"));
        fs::write(&a, b"one").unwrap();
        assert_eq!(move_file(&a, &b).unwrap(), How::Renamed);
        assert!(!a.exists());
        assert_eq!(fs::read(&b).unwrap(), b"one");
        // A half-done move (both names): finished.
        fs::write(&a, b"one").unwrap();
        assert_eq!(move_file(&a, &b).unwrap(), How::Finished);
        assert!(!a.exists());
        // Another file there: refused, both kept.
        fs::write(&a, b"two").unwrap();
        let e = move_file(&a, &b).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&a).unwrap(), b"two");
        assert_eq!(fs::read(&b).unwrap(), b"one");
        fs::remove_dir_all(&dir).unwrap();
    }
}
