//! Writing session files safely (SPEC §10): replace a file atomically,
//! create a new file exclusively, keep a backup, and clean up the
//! temporary files an interrupted run left behind.
//!
//! Every write goes to a temporary file in the target's own directory,
//! named `.NAME.TAG-tmp-PID-RAND` (TAG is the tool, e.g. `pi-migrate`), is
//! flushed to disk, and only then takes the target's name with one
//! `rename` (or `link` for a new file), after which the directory is
//! flushed too. Killed at any moment, the target is either the complete
//! old file or the complete new one.

pub mod interrupt;
pub mod many;
pub(crate) mod settle;
mod xattr;
pub use many::rewrite_many;

use std::ffi::OsString;
use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The name part that marks a temporary file of tool `tag`.
fn marker(tag: &str) -> String {
    format!(".{tag}-tmp-")
}

/// The temporary name for `target` (same directory, hidden, recognisable).
fn temp_path(target: &Path, tag: &str) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (pid, rand) = temp_name_parts();
    let mut s = OsString::from(".");
    s.push(&name);
    s.push(format!("{}{pid}-{rand:08x}", marker(tag)));
    target.with_file_name(s)
}

/// This process's id and 32 fresh bits for a temporary name: one random
/// seed per process, then a counter mixed by a bijection (distinct within
/// the process until 2^32 names, unpredictable across processes), so that
/// a batch of thousands of files does not ask the kernel for randomness
/// and the process id thousands of times.
fn temp_name_parts() -> (u32, u32) {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::OnceLock;
    static SEED: OnceLock<(u32, u64)> = OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let (pid, seed) = *SEED.get_or_init(|| {
        let u = uuid::Uuid::new_v4();
        let b = u.as_bytes();
        let mut s = [0u8; 8];
        s.copy_from_slice(&b[..8]);
        (std::process::id(), u64::from_le_bytes(s))
    });
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    // Counter plus seed, through a bijective 32-bit mix (murmur3's finaliser).
    let mut x = (n.wrapping_add(seed) as u32) ^ (seed >> 32) as u32;
    x ^= x >> 16;
    x = x.wrapping_mul(0x85eb_ca6b);
    x ^= x >> 13;
    x = x.wrapping_mul(0xc2b2_ae35);
    x ^= x >> 16;
    (pid, x)
}

/// The directory a file lives in (`.` for a bare name).
pub(crate) fn dir_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Flush a directory's entries to disk (a no-op where that is not possible).
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

/// A temporary file beside its target; removed on drop unless committed.
pub struct TempFile {
    path: PathBuf,
    target: PathBuf,
    file: File,
    /// Flushed to disk since the last `file()` (no second fsync needed).
    synced: bool,
}

impl TempFile {
    /// Create `.NAME.TAG-tmp-PID-RAND` beside `target`, with the
    /// permissions (and, where allowed, the owner) of `like` when given.
    pub fn beside(target: &Path, tag: &str, like: Option<&Metadata>) -> io::Result<TempFile> {
        let mut opts = OpenOptions::new();
        opts.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(0o600);
        }
        let mut last = None;
        for _ in 0..16 {
            let path = temp_path(target, tag);
            match opts.open(&path) {
                Ok(file) => {
                    let t = TempFile {
                        path,
                        target: target.to_path_buf(),
                        file,
                        synced: false,
                    };
                    if let Some(m) = like {
                        t.copy_metadata(m)?;
                    }
                    return Ok(t);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("cannot create a temporary file")))
    }

    fn copy_metadata(&self, m: &Metadata) -> io::Result<()> {
        let f = &self.file;
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            // Another owner is kept only when we may (root); else ours.
            let _ = std::os::unix::fs::fchown(f, Some(m.uid()), Some(m.gid()));
        }
        f.set_permissions(m.permissions())
    }

    /// Give the file the extended attributes (ACLs too) of `from`, the
    /// file it replaces: an error names one that cannot be set.
    pub fn copy_xattrs_from(&self, from: &File) -> io::Result<()> {
        xattr::copy(from, &self.file)
    }

    /// Another handle of the file, which stays open after the commit.
    pub fn handle(&self) -> io::Result<File> {
        self.file.try_clone()
    }

    /// The open file, to write into.
    pub fn file(&mut self) -> &mut File {
        self.synced = false;
        &mut self.file
    }

    /// Flush the data to disk now, so that a check made just before
    /// committing (has the target changed meanwhile?) is not followed by a
    /// long fsync before the rename.
    pub fn sync(&mut self) -> io::Result<()> {
        self.finish()
    }

    /// Flush the data to disk and close the file (before committing).
    fn finish(&mut self) -> io::Result<()> {
        if self.synced {
            return Ok(());
        }
        self.file.flush()?;
        self.file.sync_all()?;
        self.synced = true;
        Ok(())
    }

    /// Flush (unless [`TempFile::sync`] already did), then give the
    /// temporary file the target's name (replacing it), without flushing
    /// the directory: for batches, which flush each directory once with
    /// [`sync_dir`] after all their renames. Killed before that flush, the
    /// target is still the complete old or the complete new file; only the
    /// rename's durability waits for it.
    pub fn commit_rename(mut self) -> io::Result<()> {
        self.finish()?;
        fs::rename(&self.path, &self.target)?;
        self.path = PathBuf::new();
        Ok(())
    }

    /// Flush, then give the temporary file the target's name only if no
    /// file has it (`AlreadyExists` otherwise), then flush the directory.
    pub fn commit_new(mut self) -> io::Result<()> {
        self.finish()?;
        match fs::hard_link(&self.path, &self.target) {
            Ok(()) => {
                let _ = fs::remove_file(&self.path);
                self.path = PathBuf::new();
                sync_dir(&dir_of(&self.target))
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(e),
            Err(_) => {
                // No hard links here: copy into an exclusively created file.
                let bytes = fs::read(&self.path)?;
                write_exclusive_direct(&self.target, &bytes)?;
                let _ = fs::remove_file(&self.path);
                self.path = PathBuf::new();
                sync_dir(&dir_of(&self.target))
            }
        }
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.path.as_os_str().is_empty() {
            let _ = fs::remove_file(&self.path);
        }
    }
}

fn write_exclusive_direct(target: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(target)?;
    let r = f.write_all(bytes).and_then(|()| f.sync_all());
    if r.is_err() {
        let _ = fs::remove_file(target);
    }
    r
}

/// Create `target` holding `bytes`; fails with `AlreadyExists` when a file
/// has that name. The file appears complete or not at all.
pub fn create_new(target: &Path, tag: &str, bytes: &[u8]) -> io::Result<()> {
    if fs::symlink_metadata(target).is_ok() {
        return Err(io::Error::new(io::ErrorKind::AlreadyExists, "file exists"));
    }
    let mut t = TempFile::beside(target, tag, None)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // What a plain create gives (0666 less the umask is not readable
        // without libc; 0644 is the common result).
        t.file()
            .set_permissions(fs::Permissions::from_mode(0o644))?;
    }
    t.file().write_all(bytes)?;
    t.commit_new()
}

/// Keep the current `target` as `backup` (a hard link, or a copy with the
/// same modification time where links are not possible); never replaces
/// an existing backup.
pub fn make_backup(target: &Path, backup: &Path, tag: &str) -> io::Result<()> {
    match fs::hard_link(target, backup) {
        Ok(()) => sync_dir(&dir_of(backup)),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(e),
        Err(_) => {
            let bytes = fs::read(target)?;
            let like = fs::metadata(target)?;
            let mut t = TempFile::beside(backup, tag, Some(&like))?;
            t.file().write_all(&bytes)?;
            // The time lets a rerun know the copy as its own (is_copy_of).
            t.file().set_modified(like.modified()?)?;
            t.commit_new()
        }
    }
}

/// Whether `backup` is what [`make_backup`] made of a file (size, time and
/// inode `snap`, text `bytes`): the same file (a hard link), or a
/// copy with the same bytes and modification time. A run interrupted
/// after it kept its backup leaves one; the next run takes it as its own.
pub fn is_copy_of(backup: &Path, snap: &Snapshot, bytes: &[u8]) -> bool {
    let Ok(m) = fs::symlink_metadata(backup) else {
        return false;
    };
    let b = Snapshot::of(&m);
    #[cfg(unix)]
    if b.ino == snap.ino {
        return true;
    }
    m.is_file()
        && b.len == snap.len
        && b.modified == snap.modified
        && fs::read(backup).is_ok_and(|t| t == bytes)
}

/// What a file looked like when it was read: replaced only if it still does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    pub len: u64,
    pub modified: Option<SystemTime>,
    #[cfg(unix)]
    pub ino: (u64, u64),
}

impl Snapshot {
    pub fn of(m: &Metadata) -> Snapshot {
        Snapshot {
            len: m.len(),
            modified: m.modified().ok(),
            #[cfg(unix)]
            ino: {
                use std::os::unix::fs::MetadataExt;
                (m.dev(), m.ino())
            },
        }
    }
}

/// [`read_unless_first_line`] of a file already open (which the caller
/// keeps, e.g. to look at it again with [`unchanged_open`]). A file of up
/// to 64 KiB takes one `read`.
pub fn read_open_unless_first_line(
    f: &File,
    enough: impl FnOnce(&[u8]) -> bool,
) -> io::Result<Option<(Vec<u8>, Snapshot, Metadata)>> {
    const FIRST_MAX: usize = 64 << 10;
    let m = f.metadata()?;
    if m.is_dir() {
        return Err(io::Error::other("is a directory"));
    }
    let len = usize::try_from(m.len()).unwrap_or(usize::MAX);
    // The first read: the whole file when small (one byte more than its
    // size, to see its end), else up to 64 KiB. Reads go straight into the
    // buffer (std's read_to_end reads 8 KiB first and grows from there).
    let first = len.saturating_add(1).min(FIRST_MAX + 1);
    let mut bytes = Vec::with_capacity(len.saturating_add(1));
    // Having read the whole size is enough: the snapshot check below sees
    // a file that grew meanwhile.
    let got = fill(f, &mut bytes, first, len)?;
    let at_end = got < first;
    let line_end = match memchr::memchr(b'\n', &bytes) {
        Some(p) => Some(p),
        None if at_end => Some(bytes.len()),
        None => None,
    };
    if let Some(end) = line_end {
        if enough(&bytes[..end]) {
            return Ok(None);
        }
    }
    if !at_end && bytes.len() < len {
        // The rest, up to the size it had: a file that grew or shrank
        // meanwhile is caught by the snapshot check below.
        let more = len - bytes.len();
        fill(f, &mut bytes, more, more)?;
    }
    let after = f.metadata()?;
    let snap = Snapshot::of(&after);
    if Snapshot::of(&m) != snap || bytes.len() as u64 != snap.len {
        return Err(io::Error::other("the file changed while it was read"));
    }
    Ok(Some((bytes, snap, after)))
}

/// Whether `path` is still (not a link to) the file open as `f`, with the
/// size, time and inode of `snap` and exactly `bytes` in it: read again
/// through `f`, without opening the file again.
pub fn unchanged_open(path: &Path, snap: &Snapshot, f: &File, bytes: &[u8]) -> io::Result<bool> {
    if Snapshot::of(&fs::symlink_metadata(path)?) != *snap {
        return Ok(false);
    }
    // The size is the snapshot's: the same bytes up to it are the same
    // file. Compared a piece at a time.
    let mut now = vec![0u8; bytes.len().min(64 << 10)];
    let mut got = 0;
    while got < bytes.len() {
        let want = (bytes.len() - got).min(now.len());
        let n = crate::io::read_at(f, &mut now[..want], got as u64)?;
        if n == 0 || now[..n] != bytes[got..got + n] {
            return Ok(false);
        }
        got += n;
    }
    // Once more, cheaply: reading took time, and the caller renames next.
    Ok(Snapshot::of(&fs::symlink_metadata(path)?) == *snap)
}

/// Append to `v` up to `max` bytes read from `f`, stopping once `enough`
/// are there or the file ends; the number of bytes read.
fn fill(f: &File, v: &mut Vec<u8>, max: usize, enough: usize) -> io::Result<usize> {
    v.reserve(max);
    let mut got = 0;
    while got < max && got < enough {
        match read_spare(f, v, max - got) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// One `read` of at most `max` bytes into the spare capacity of `v`
/// (reserved by the caller), without zeroing it first.
#[cfg(unix)]
fn read_spare(f: &File, v: &mut Vec<u8>, max: usize) -> io::Result<usize> {
    use std::os::unix::io::AsRawFd;
    let spare = v.spare_capacity_mut();
    let n = max.min(spare.len()).min(isize::MAX as usize);
    // SAFETY: the kernel writes at most `n` bytes into the spare capacity,
    // which is at least `n` bytes long; only the bytes it wrote (`r`) are
    // then counted as initialised.
    let r = unsafe { libc::read(f.as_raw_fd(), spare.as_mut_ptr().cast(), n) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    let r = r as usize;
    // SAFETY: `r <= n` bytes after the old length were written by `read`.
    unsafe { v.set_len(v.len() + r) };
    Ok(r)
}

#[cfg(not(unix))]
fn read_spare(mut f: &File, v: &mut Vec<u8>, max: usize) -> io::Result<usize> {
    use std::io::Read;
    let from = v.len();
    v.resize(from + max, 0);
    let r = f.read(&mut v[from..]);
    v.truncate(from + *r.as_ref().unwrap_or(&0));
    r
}

/// Remove every temporary file of tool `tag` in `dir` (whatever its target)
/// left by runs that are no longer alive; returns the paths removed. For
/// tools that create new files under fresh names (pi-fork), whose next run
/// cannot know the name an interrupted run was writing.
pub fn remove_stray_temps_in(dir: &Path, tag: &str) -> Vec<PathBuf> {
    remove_dead_temps(dir, tag, None)
}

/// The temporary files `.NAME.TAG-tmp-PID-RAND` in `dir` (of target NAME
/// only, when given) whose process is gone: removed, and returned.
fn remove_dead_temps(dir: &Path, tag: &str, target: Option<&str>) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let mark = marker(tag);
    let Ok(rd) = fs::read_dir(dir) else {
        return removed;
    };
    for d in rd.flatten() {
        let n = d.file_name();
        let n = n.to_string_lossy();
        if !n.starts_with('.') {
            continue;
        }
        // `.NAME` + marker + `PID-RAND`: the last occurrence of the marker.
        let Some(at) = n.rfind(&mark) else {
            continue;
        };
        if at < 2 || target.is_some_and(|t| &n[1..at] != t) {
            continue;
        }
        let Some((pid, rand)) = n[at + mark.len()..].split_once('-') else {
            continue;
        };
        let Ok(pid) = pid.parse::<u32>() else {
            continue;
        };
        if rand.is_empty() || rand.contains('-') {
            continue;
        }
        if pid == std::process::id() || process_alive(pid) {
            continue;
        }
        if fs::remove_file(d.path()).is_ok() {
            removed.push(d.path());
        }
    }
    removed
}

/// Whether a process with this id runs (Linux: /proc; elsewhere assume not).
fn process_alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    proc.join("self").exists() && proc.join(pid.to_string()).exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmpdir(tag: &str) -> PathBuf {
        let p = std::env::temp_dir().join(format!(
            "pst-write-{tag}-{}-{}",
            std::process::id(),
            uuid::Uuid::new_v4()
        ));
        fs::create_dir_all(&p).unwrap();
        p
    }

    #[test]
    fn replaces_and_creates() {
        let d = tmpdir("rc");
        let f = d.join("a.jsonl");
        fs::write(&f, b"old").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&f, fs::Permissions::from_mode(0o640)).unwrap();
        }
        let like = fs::metadata(&f).ok();
        let mut t = TempFile::beside(&f, "t", like.as_ref()).unwrap();
        t.file().write_all(b"new").unwrap();
        t.commit_rename().unwrap();
        assert_eq!(fs::read(&f).unwrap(), b"new");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                fs::metadata(&f).unwrap().permissions().mode() & 0o777,
                0o640
            );
        }
        let g = d.join("b.jsonl");
        create_new(&g, "t", b"x").unwrap();
        assert_eq!(
            create_new(&g, "t", b"y").unwrap_err().kind(),
            io::ErrorKind::AlreadyExists
        );
        assert_eq!(fs::read(&g).unwrap(), b"x");
        make_backup(&f, &d.join("a.jsonl.bak"), "t").unwrap();
        assert!(make_backup(&f, &d.join("a.jsonl.bak"), "t").is_err());
        // Only the three files: no temporary left.
        assert_eq!(fs::read_dir(&d).unwrap().count(), 3);
        // A stray temp of a dead process is removed; a live one is kept.
        let stray = d.join(".a.jsonl.t-tmp-999999999-abcd");
        fs::write(&stray, b"").unwrap();
        let mine = d.join(format!(".a.jsonl.t-tmp-{}-abcd", std::process::id()));
        fs::write(&mine, b"").unwrap();
        assert_eq!(
            remove_dead_temps(&d, "t", Some("a.jsonl")),
            vec![stray.clone()]
        );
        assert!(mine.exists());
        // Whatever the target's name, in a whole directory.
        let other = d.join(".2026-01-01_x.jsonl.t-tmp-999999999-ef01");
        fs::write(&other, b"").unwrap();
        let not_ours = d.join(".x.jsonl.u-tmp-999999999-ef01");
        fs::write(&not_ours, b"").unwrap();
        assert_eq!(remove_stray_temps_in(&d, "t"), vec![other]);
        assert!(mine.exists() && not_ours.exists());
        fs::remove_file(&not_ours).unwrap();
        fs::remove_dir_all(&d).unwrap();
    }
}
