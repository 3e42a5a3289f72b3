//! A file's extended attributes (its ACL among them) carried to the new
//! file that replaces it.
//!
//! pi rewrites a session in place (`open(..., "w")`), which keeps the
//! inode and so its attributes; a rename puts a new inode at the name, so
//! each attribute is copied, or the rewrite refused. Straight `libc` calls
//! (`flistxattr`, `fgetxattr`, `fsetxattr`): four calls on open files, where
//! a crate would add a dependency for them.

use std::fs::File;
use std::io;

/// Give `to` every extended attribute of `from` (an access ACL is one:
/// `system.posix_acl_access`), and take from it an access ACL that `from`
/// lacks (inherited from the directory's default ACL). An attribute that
/// cannot be set is an error naming it.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) fn copy(from: &File, to: &File) -> io::Result<()> {
    let names = list(from)?;
    for name in names.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        let Some(value) = get(from, name)? else {
            continue; // removed meanwhile
        };
        if get(to, name).ok().flatten().as_deref() == Some(&value[..]) {
            continue; // already there (a security label the kernel set)
        }
        set(to, name, &value).map_err(|e| named(name, "set", e))?;
    }
    const ACL: &[u8] = b"system.posix_acl_access";
    let theirs = list(to)?;
    let has = |l: &[u8]| l.split(|&b| b == 0).any(|n| n == ACL);
    if has(&theirs) && !has(&names) {
        remove(to, ACL).map_err(|e| named(ACL, "remove", e))?;
    }
    Ok(())
}

/// Where there are no Linux extended attributes: nothing to copy.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub(crate) fn copy(_from: &File, _to: &File) -> io::Result<()> {
    Ok(())
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn named(name: &[u8], what: &str, e: io::Error) -> io::Error {
    io::Error::new(
        e.kind(),
        format!(
            "cannot {what} the extended attribute {} on the new file: {}",
            crate::visible::text(&String::from_utf8_lossy(name)),
            crate::error::io_message(&e)
        ),
    )
}

#[cfg(any(target_os = "linux", target_os = "android"))]
mod sys {
    pub(super) use std::os::unix::io::AsRawFd;
    /// A name as C wants it, with its NUL.
    pub(super) fn c_name(name: &[u8]) -> std::io::Result<std::ffi::CString> {
        std::ffi::CString::new(name).map_err(std::io::Error::other)
    }
}

/// The names of `f`'s attributes, each followed by a NUL.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn list(f: &File) -> io::Result<Vec<u8>> {
    use sys::AsRawFd;
    read_sized(|buf| {
        // SAFETY: the kernel writes at most `buf.len()` bytes into `buf`.
        unsafe { libc::flistxattr(f.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) }
    })
    .map(|v| v.unwrap_or_default())
}

/// The value of attribute `name` of `f`; None when it has none.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn get(f: &File, name: &[u8]) -> io::Result<Option<Vec<u8>>> {
    use sys::AsRawFd;
    let c = sys::c_name(name)?;
    read_sized(|buf| {
        // SAFETY: `c` is NUL-terminated; the kernel writes at most
        // `buf.len()` bytes into `buf`.
        unsafe {
            libc::fgetxattr(
                f.as_raw_fd(),
                c.as_ptr(),
                buf.as_mut_ptr().cast(),
                buf.len(),
            )
        }
    })
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn set(f: &File, name: &[u8], value: &[u8]) -> io::Result<()> {
    use sys::AsRawFd;
    let c = sys::c_name(name)?;
    // SAFETY: `c` is NUL-terminated; the kernel reads `value.len()` bytes.
    let r = unsafe {
        libc::fsetxattr(
            f.as_raw_fd(),
            c.as_ptr(),
            value.as_ptr().cast(),
            value.len(),
            0,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn remove(f: &File, name: &[u8]) -> io::Result<()> {
    use sys::AsRawFd;
    let c = sys::c_name(name)?;
    // SAFETY: `c` is NUL-terminated.
    if unsafe { libc::fremovexattr(f.as_raw_fd(), c.as_ptr()) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Call `call` with a buffer large enough for what it returns (asking its
/// size first, and again if it grew meanwhile). None when there is no such
/// attribute; an empty list where the file system has none.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn read_sized(call: impl Fn(&mut [u8]) -> libc::ssize_t) -> io::Result<Option<Vec<u8>>> {
    for _ in 0..8 {
        let n = call(&mut []);
        if n < 0 {
            return absent(io::Error::last_os_error());
        }
        let mut buf = vec![0u8; n as usize];
        let got = call(&mut buf);
        if got >= 0 {
            buf.truncate(got as usize);
            return Ok(Some(buf));
        }
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::ERANGE) {
            return absent(e);
        }
    }
    Err(io::Error::other("extended attributes kept changing"))
}

/// No attribute of that name, or none on this file system: None.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn absent(e: io::Error) -> io::Result<Option<Vec<u8>>> {
    match e.raw_os_error() {
        Some(libc::ENODATA) | Some(libc::EOPNOTSUPP) => Ok(None),
        _ => Err(e),
    }
}

#[cfg(all(test, any(target_os = "linux", target_os = "android")))]
mod tests {
    use super::*;

    #[test]
    fn user_attributes_are_copied_where_the_file_system_has_them() {
        let d = std::env::temp_dir().join(format!("pst-xattr-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let (a, b) = (d.join("a"), d.join("b"));
        let fa = File::create(&a).unwrap();
        let fb = File::create(&b).unwrap();
        if set(&fa, b"user.pst", b"v\x00\x01").is_err() {
            // tmpfs before Linux 6.6 has no user attributes: nothing to test.
            std::fs::remove_dir_all(&d).unwrap();
            return;
        }
        copy(&fa, &fb).unwrap();
        assert_eq!(get(&fb, b"user.pst").unwrap().unwrap(), b"v\x00\x01");
        assert_eq!(get(&fb, b"user.none").unwrap(), None);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
