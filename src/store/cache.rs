//! What pi lists of each file, kept between runs: a file whose device,
//! inode, size, modification and change times are what they were is not
//! read again. pi's files only grow (every write appends), so a session
//! that changed has a new size or time and is read again; one that did
//! not gives the same `SessionInfo` it gave then. The change time cannot
//! be set back by a program, so a file rewritten to the same size with its
//! old modification time is still read again.
//!
//! One file per listed root, `ls-<hash of the root>.bin` in
//! `$PI_SESSION_TOOLS_CACHE_DIR`, else `$XDG_CACHE_HOME/pi-session-tools`,
//! else `~/.cache/pi-session-tools`; `PI_SESSION_TOOLS_CACHE=off` (or
//! `pi-ls --no-cache`) neither reads nor writes it. It is written whole,
//! atomically (a temporary file renamed over it), and only when something
//! changed; one that cannot be read or decoded is ignored (and rewritten).

use super::info::Info;
use std::collections::HashMap;
use std::fs::Metadata;
use std::path::{Path, PathBuf};

const MAGIC: &[u8] = b"pi-session-tools ls cache 1\n";

/// The environment variable that turns the cache off (`off`, `0`, `no`).
pub const CACHE_ENV: &str = "PI_SESSION_TOOLS_CACHE";
/// The environment variable naming the cache's directory.
pub const CACHE_DIR_ENV: &str = "PI_SESSION_TOOLS_CACHE_DIR";

/// What identifies one state of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Key([u64; 7]);

impl Key {
    #[cfg(unix)]
    fn of(m: &Metadata) -> Key {
        use std::os::unix::fs::MetadataExt;
        Key([
            m.dev(),
            m.ino(),
            m.size(),
            m.mtime() as u64,
            m.mtime_nsec() as u64,
            m.ctime() as u64,
            m.ctime_nsec() as u64,
        ])
    }

    #[cfg(not(unix))]
    fn of(m: &Metadata) -> Key {
        let t = |t: std::io::Result<std::time::SystemTime>| {
            t.ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos() as u64)
        };
        Key([0, 0, m.len(), t(m.modified()), 0, t(m.created()), 0])
    }
}

/// The infos of one root's files, as the last run found them.
#[derive(Default)]
pub struct Cache {
    file: Option<PathBuf>,
    old: HashMap<PathBuf, (Key, Info)>,
}

impl Cache {
    /// The cache of `root` (empty, and never written, when it is off).
    pub fn open(root: &Path, enabled: bool) -> Cache {
        let Some(dir) = cache_dir().filter(|_| enabled && cache_enabled()) else {
            return Cache::default();
        };
        let name = format!(
            "ls-{}.bin",
            &sha1_smol::Sha1::from(root.as_os_str().as_encoded_bytes())
                .digest()
                .to_string()[..16]
        );
        let file = dir.join(name);
        let old = std::fs::read(&file)
            .ok()
            .and_then(|b| decode(&b))
            .unwrap_or_default();
        Cache {
            file: Some(file),
            old,
        }
    }

    /// The info of `path` as last listed, when the file is as it was then
    /// (taken out: each file is asked for once).
    pub fn take(&mut self, path: &Path, meta: Option<&Metadata>) -> Option<Info> {
        let key = Key::of(meta?);
        match self.old.remove(path) {
            Some((k, info)) if k == key => Some(info),
            _ => None,
        }
    }

    /// Write what this run listed, unless it is what the cache held: no
    /// file was read (`read` false) and none is gone.
    pub fn save<'a>(
        self,
        read: bool,
        listed: impl Iterator<Item = (&'a Path, Option<&'a Metadata>, &'a Info)>,
    ) {
        let Some(file) = self.file else { return };
        if !read && self.old.is_empty() {
            return;
        }
        drop(self.old);
        let mut out = MAGIC.to_vec();
        for (p, m, i) in listed {
            if let Some(m) = m {
                encode(&mut out, p, &Key::of(m), i);
            }
        }
        let _ = write_atomically(&file, &out);
    }
}

fn cache_enabled() -> bool {
    !std::env::var(CACHE_ENV).is_ok_and(|v| matches!(v.as_str(), "off" | "0" | "no" | "false"))
}

fn cache_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var(CACHE_DIR_ENV)
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("pi-session-tools")))
        .or_else(|| var("HOME").map(|h| h.join(".cache").join("pi-session-tools")))
}

fn write_atomically(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut t = crate::write::TempFile::beside(file, "pi-ls", None)?;
    t.file().write_all(bytes)?;
    t.commit_rename()
}

// The encoding: the magic line, then per file the path, the key and the
// info's fields, each length-prefixed (u64 little-endian). Decoding checks
// every length: a damaged file decodes to nothing.

fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_u64(out, b.len() as u64);
    out.extend_from_slice(b);
}

fn put_opt(out: &mut Vec<u8>, b: Option<&[u8]>) {
    match b {
        None => put_u64(out, u64::MAX),
        Some(b) => put_bytes(out, b),
    }
}

fn utf16_bytes(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|u| u.to_le_bytes()).collect()
}

fn encode(out: &mut Vec<u8>, path: &Path, key: &Key, i: &Info) {
    put_bytes(out, path.as_os_str().as_encoded_bytes());
    for k in key.0 {
        put_u64(out, k);
    }
    put_opt(out, i.id_json.as_deref());
    put_bytes(out, i.id.as_bytes());
    put_bytes(out, &utf16_bytes(&i.cwd));
    put_opt(out, i.name.as_deref().map(utf16_bytes).as_deref());
    put_opt(out, i.parent_json.as_deref());
    put_opt(out, i.parent.as_deref().map(str::as_bytes));
    put_u64(out, i.created.to_bits());
    put_u64(out, i.modified.to_bits());
    put_u64(out, i.message_count);
    put_bytes(out, &utf16_bytes(&i.first_message));
    put_u64(out, i.bytes);
    put_u64(out, u64::from(i.version));
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn u64(&mut self) -> Option<u64> {
        let (h, t) = self.0.split_at_checked(8)?;
        self.0 = t;
        Some(u64::from_le_bytes(h.try_into().ok()?))
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.u64()?).ok()?;
        let (h, t) = self.0.split_at_checked(n)?;
        self.0 = t;
        Some(h)
    }

    fn opt(&mut self) -> Option<Option<&'a [u8]>> {
        if self.0.get(..8) == Some(&u64::MAX.to_le_bytes()[..]) {
            self.0 = &self.0[8..];
            return Some(None);
        }
        self.bytes().map(Some)
    }
}

fn utf16(b: &[u8]) -> Option<Vec<u16>> {
    b.len().is_multiple_of(2).then(|| {
        b.chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect()
    })
}

fn path_of(b: &[u8]) -> Option<PathBuf> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Some(PathBuf::from(std::ffi::OsStr::from_bytes(b)))
    }
    #[cfg(not(unix))]
    {
        std::str::from_utf8(b).ok().map(PathBuf::from)
    }
}

fn decode(b: &[u8]) -> Option<HashMap<PathBuf, (Key, Info)>> {
    let mut r = Reader(b.strip_prefix(MAGIC)?);
    let mut map = HashMap::new();
    while !r.0.is_empty() {
        let path = path_of(r.bytes()?)?;
        let mut key = [0u64; 7];
        for k in &mut key {
            *k = r.u64()?;
        }
        let id_json = r.opt()?.map(<[u8]>::to_vec);
        let id = String::from_utf8(r.bytes()?.to_vec()).ok()?;
        let cwd = utf16(r.bytes()?)?;
        let name = match r.opt()? {
            Some(b) => Some(utf16(b)?),
            None => None,
        };
        let parent_json = r.opt()?.map(<[u8]>::to_vec);
        let parent = match r.opt()? {
            Some(b) => Some(String::from_utf8(b.to_vec()).ok()?),
            None => None,
        };
        let created = f64::from_bits(r.u64()?);
        let modified = f64::from_bits(r.u64()?);
        let message_count = r.u64()?;
        let first_message = utf16(r.bytes()?)?;
        let bytes = r.u64()?;
        let version = u32::try_from(r.u64()?).ok()?;
        let info = Info {
            path: path.clone(),
            id_json,
            id,
            cwd,
            name,
            parent_json,
            parent,
            created,
            modified,
            message_count,
            first_message,
            bytes,
            version,
        };
        map.insert(path, (Key(key), info));
    }
    Some(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(path: &str) -> Info {
        Info {
            path: PathBuf::from(path),
            id_json: Some(b"\"abc\"".to_vec()),
            id: "abc".into(),
            cwd: "/home/dev/é".encode_utf16().collect(),
            name: Some(vec![0xd83d]),
            parent_json: None,
            parent: Some("/p.jsonl".into()),
            created: 1.5e12,
            modified: f64::NAN,
            message_count: 7,
            first_message: "hi\n".encode_utf16().collect(),
            bytes: 1234,
            version: 3,
        }
    }

    #[test]
    fn what_is_written_reads_back_and_damage_reads_as_nothing() {
        let mut out = MAGIC.to_vec();
        let k = Key([1, 2, 3, 4, 5, 6, 7]);
        encode(&mut out, Path::new("/a.jsonl"), &k, &info("/a.jsonl"));
        encode(&mut out, Path::new("/b.jsonl"), &k, &info("/b.jsonl"));
        let m = decode(&out).unwrap();
        assert_eq!(m.len(), 2);
        let (key, i) = &m[Path::new("/b.jsonl")];
        assert_eq!(*key, k);
        let mut a = Vec::new();
        let mut b = Vec::new();
        i.write_json_open(&mut a);
        info("/b.jsonl").write_json_open(&mut b);
        assert_eq!(a, b);
        assert_eq!(i.modified.to_bits(), f64::NAN.to_bits());
        // Every cut and every flipped length is refused or decodes, never panics.
        for n in 0..out.len() {
            let _ = decode(&out[..n]);
            let mut bad = out.clone();
            bad[n] ^= 0xff;
            let _ = decode(&bad);
        }
        assert!(decode(&out[..out.len() - 1]).is_none());
        assert!(decode(b"something else").is_none());
    }
}
