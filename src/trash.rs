//! The freedesktop.org trash (the home trash, `$XDG_DATA_HOME/Trash`, or
//! the trash of the file's own file system, `$topdir/.Trash-UID`):
//! where pi's own delete puts a session (through the `trash` program). A
//! file goes there only when the trash is on its file system (a rename,
//! never a copy); the caller deletes it otherwise, as it decides.
//!
//! As the specification says: `info/NAME.trashinfo` is created first,
//! exclusively (it reserves NAME), holding the original path and the
//! deletion date; then the file is renamed to `files/NAME`.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The home trash: `$XDG_DATA_HOME/Trash` (an absolute one), else
/// `~/.local/share/Trash`; None without a home.
pub fn home_trash() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("XDG_DATA_HOME").filter(|d| Path::new(d).is_absolute()) {
        return Some(PathBuf::from(d).join("Trash"));
    }
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty())?;
    Some(PathBuf::from(home).join(".local/share/Trash"))
}

/// The trash `file` goes to: the home trash when it is on the file's file
/// system, else the trash of the file's own file system (its top
/// directory's `.Trash/UID`, when an administrator made `.Trash` a sticky
/// directory, else `.Trash-UID`, created if need be), as the
/// specification says; None when neither can be used.
pub fn for_file(home: Option<&Path>, file: &Path) -> Option<PathBuf> {
    if let Some(h) = home.filter(|h| usable_for(h, file)) {
        return Some(h.to_path_buf());
    }
    let top = top_dir(file)?;
    let uid = uid()?;
    let shared = top.join(".Trash");
    if is_sticky_dir(&shared) {
        let mine = shared.join(uid.to_string());
        if usable_for(&mine, file) {
            return Some(mine);
        }
    }
    let own = top.join(format!(".Trash-{uid}"));
    match fs::symlink_metadata(&own) {
        Ok(m) if m.is_dir() => Some(own),
        Ok(_) => None,
        // Created only when it can be: its parent, the top directory, is
        // writable (a test by creating it would leave it behind); never at
        // the system's root, where the home trash would be.
        Err(_) => (top.parent().is_some() && writable(&top)).then_some(own),
    }
}

/// The top directory of the file system that holds `file`: its highest
/// ancestor on the same device.
fn top_dir(file: &Path) -> Option<PathBuf> {
    let dir = fs::canonicalize(file.parent()?).ok()?;
    let dev = device_of(&dir)?;
    let mut top = dir.clone();
    for a in dir.ancestors().skip(1) {
        if device_of(a) != Some(dev) {
            break;
        }
        top = a.to_path_buf();
    }
    Some(top)
}

/// A directory (not a link) with the sticky bit.
fn is_sticky_dir(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::symlink_metadata(p).is_ok_and(|m| m.is_dir() && m.permissions().mode() & 0o1000 != 0)
    }
    #[cfg(not(unix))]
    {
        let _ = p;
        false
    }
}

fn uid() -> Option<u32> {
    #[cfg(unix)]
    {
        // SAFETY: getuid has no preconditions and cannot fail.
        Some(unsafe { libc::getuid() })
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Whether this process may create entries in `dir`.
fn writable(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a valid NUL-ended path for the call's duration.
    unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) == 0 }
}

/// Whether `file` can go to the trash `trash`: it is (or, once created,
/// would be) on the file system of `file`.
pub fn usable_for(trash: &Path, file: &Path) -> bool {
    let (Some(t), Some(f)) = (device_of_nearest(trash), device_of(file)) else {
        return false;
    };
    t == f
}

/// Where a file went: its place in the trash.
#[derive(Debug, Clone)]
pub struct Trashed {
    pub file: PathBuf,
}

/// Put `file` (absolute) into `trash`: `Err` when it cannot (another file
/// system: `CrossesDevices`), with nothing changed.
pub fn put(trash: &Path, file: &Path) -> io::Result<Trashed> {
    if !usable_for(trash, file) {
        return Err(io::Error::new(
            io::ErrorKind::CrossesDevices,
            "the trash is on another file system",
        ));
    }
    let (files, info) = (trash.join("files"), trash.join("info"));
    for d in [trash, &files, &info] {
        create_private_dir(d)?;
    }
    let name = file
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?;
    for n in 1..10_000u32 {
        let candidate = numbered(name, n);
        let mut info_name = candidate.clone();
        info_name.push(".trashinfo");
        let info_path = info.join(&info_name);
        let target = files.join(&candidate);
        let created = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&info_path);
        let mut f = match created {
            Ok(f) => f,
            // An interrupted put of this very file left its info file:
            // taken again.
            Err(e)
                if e.kind() == io::ErrorKind::AlreadyExists
                    && left_by_us(&info_path, &target, file) =>
            {
                fs::OpenOptions::new()
                    .write(true)
                    .truncate(true)
                    .open(&info_path)?
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        };
        if fs::symlink_metadata(&target).is_ok() {
            // A file without its info file: its name is taken.
            drop(f);
            let _ = fs::remove_file(&info_path);
            continue;
        }
        let text = info_text(file);
        let moved = f
            .write_all(text.as_bytes())
            .and_then(|()| f.sync_all())
            .and_then(|()| fs::rename(file, &target));
        if let Err(e) = moved {
            let _ = fs::remove_file(&info_path);
            return Err(e);
        }
        for d in [&info, &files] {
            crate::write::sync_dir(d)?;
        }
        if let Some(parent) = file.parent() {
            crate::write::sync_dir(parent)?;
        }
        return Ok(Trashed { file: target });
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "too many files of this name in the trash",
    ))
}

/// Whether the info file `info` is one an interrupted put of `file` left:
/// no file in the trash under its name, and its text (perhaps cut short)
/// names `file`.
fn left_by_us(info: &Path, target: &Path, file: &Path) -> bool {
    if fs::symlink_metadata(target).is_ok() {
        return false;
    }
    let Ok(text) = fs::read(info) else {
        return false;
    };
    let head = format!(
        "[Trash Info]\nPath={}\n",
        url_escape(&crate::name::bytes_of_kept(&crate::name::kept_path(file)))
    );
    let head = head.as_bytes();
    text.starts_with(head) || head.starts_with(&text)
}

/// `name`, then `stem.N.ext` for the N-th try.
fn numbered(name: &std::ffi::OsStr, n: u32) -> std::ffi::OsString {
    if n == 1 {
        return name.to_os_string();
    }
    let p = Path::new(name);
    let mut s = p.file_stem().unwrap_or(name).to_os_string();
    s.push(format!(".{n}"));
    if let Some(ext) = p.extension() {
        s.push(".");
        s.push(ext);
    }
    s
}

/// The text of an info file: the path, escaped as a URL path is, and the
/// local date and time (the specification's format).
fn info_text(file: &Path) -> String {
    let date = jiff::Timestamp::now()
        .to_zoned(crate::time::system_zone())
        .strftime("%Y-%m-%dT%H:%M:%S")
        .to_string();
    format!(
        "[Trash Info]\nPath={}\nDeletionDate={date}\n",
        url_escape(&crate::name::bytes_of_kept(&crate::name::kept_path(file)))
    )
}

/// Bytes escaped as `%XX`, but for letters, digits, `-._~` and `/`.
pub fn url_escape(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    for &b in bytes {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

/// Create `dir` (and what is missing above it) readable only by its owner.
fn create_private_dir(dir: &Path) -> io::Result<()> {
    let mut b = fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(dir)
}

fn device_of(p: &Path) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        fs::symlink_metadata(p).ok().map(|m| m.dev())
    }
    #[cfg(not(unix))]
    {
        let _ = p;
        None
    }
}

/// The device of `p`, or of its nearest existing ancestor (which a
/// directory created there would be on); None when that is no directory.
fn device_of_nearest(p: &Path) -> Option<u64> {
    let mut at = Some(p);
    while let Some(d) = at {
        if let Ok(m) = fs::metadata(d) {
            return m.is_dir().then(|| device_of(d)).flatten();
        }
        at = d.parent();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_numbered_before_the_extension() {
        let n = |s: &str, k| numbered(std::ffi::OsStr::new(s), k);
        assert_eq!(n("a.jsonl", 1), "a.jsonl");
        assert_eq!(n("a.jsonl", 3), "a.3.jsonl");
        assert_eq!(n("a", 2), "a.2");
    }

    #[test]
    fn paths_are_escaped_as_urls() {
        assert_eq!(url_escape(b"/a b/%\n\xff.jsonl"), "/a%20b/%25%0A%FF.jsonl");
    }

    #[test]
    fn the_top_directory_is_the_highest_on_the_device() {
        let dir = std::env::temp_dir();
        let f = dir.join("x.jsonl");
        let top = top_dir(&f).unwrap();
        assert!(fs::canonicalize(&dir).unwrap().starts_with(&top));
        assert_eq!(device_of(&top), device_of(&dir));
        if let Some(up) = top.parent() {
            assert_ne!(device_of(up), device_of(&top));
        }
    }

    #[test]
    fn a_file_goes_to_the_trash_with_its_info() {
        let dir = std::env::temp_dir().join(format!("trash-{}", std::process::id()));
        let trash = dir.join("data/Trash");
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("s.jsonl");
        for _ in 0..2 {
            std::fs::write(&f, b"x").unwrap();
            put(&trash, &f).unwrap();
        }
        // An info file an interrupted put left (cut short) is taken again.
        let g = dir.join("g.jsonl");
        std::fs::write(&g, b"y").unwrap();
        std::fs::write(trash.join("info/g.jsonl.trashinfo"), b"[Trash In").unwrap();
        put(&trash, &g).unwrap();
        assert_eq!(std::fs::read(trash.join("files/g.jsonl")).unwrap(), b"y");
        assert!(!f.exists());
        assert_eq!(std::fs::read(trash.join("files/s.2.jsonl")).unwrap(), b"x");
        let info = std::fs::read_to_string(trash.join("info/s.jsonl.trashinfo")).unwrap();
        assert!(info.starts_with(&format!(
            "[Trash Info]\nPath={}\nDeletionDate=",
            f.display()
        )));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
