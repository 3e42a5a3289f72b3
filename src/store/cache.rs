//! What a tool found in each file, kept between runs: a file whose device,
//! inode, size, modification and change times are what they were is not
//! read again. pi's files only grow (every write appends), so a session
//! that changed has a new size or time and is read again; one that did
//! not gives what it gave then. The change time cannot be set back by a
//! program, so a file rewritten to the same size with its old modification
//! time is still read again.
//!
//! One file per tool and root, `<kind>-<hash of the root>.bin` (`ls` for
//! pi-ls's `SessionInfo`s, `usage` for pi-usage's records) in
//! `$PI_SESSION_TOOLS_CACHE_DIR`, else `$XDG_CACHE_HOME/pi-session-tools`,
//! else `~/.cache/pi-session-tools`; `PI_SESSION_TOOLS_CACHE=off` (or a
//! tool's `--no-cache`) neither reads nor writes it. It is written whole,
//! atomically (a temporary file renamed over it), and only when something
//! changed; one that cannot be read or decoded, or whose entry does not
//! match its checksum (a flipped bit), is ignored whole (and rewritten).
//! Only a regular file is read as a cache (never a FIFO, which would wait).
//! [`FileCache`] holds the frame (keys, the file, per entry its length,
//! checksum, path and key); what a tool keeps of a file is its [`Cached`]
//! encoding.

use super::find::Candidate;
use super::frame::{frame, seal, Frame, FRAME};
use super::info::{session_info_with, Info, Outcome};
use super::parallel::parallel_map;
use crate::json::js;
use std::collections::HashMap;
use std::ffi::OsString;
use std::fs::Metadata;
use std::path::{Path, PathBuf};

/// The environment variable that turns the cache off (`off`, `0`, `no`).
pub const CACHE_ENV: &str = "PI_SESSION_TOOLS_CACHE";
/// The environment variable naming the cache's directory.
pub const CACHE_DIR_ENV: &str = "PI_SESSION_TOOLS_CACHE_DIR";

/// What identifies one state of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key([u64; 7]);

impl Key {
    /// The key of a file with this metadata.
    #[cfg(unix)]
    pub fn of(m: &Metadata) -> Key {
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

    /// The key of a file with this metadata.
    #[cfg(not(unix))]
    pub fn of(m: &Metadata) -> Key {
        let t = |t: std::io::Result<std::time::SystemTime>| {
            t.ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos() as u64)
        };
        Key([0, 0, m.len(), t(m.modified()), 0, t(m.created()), 0])
    }
}

/// What a tool keeps of one file in its cache.
pub trait Cached: Sized {
    /// The cache's name (`ls`, `usage`): its file's prefix and its magic line.
    const KIND: &'static str;
    /// The version of what [`Cached::encode`] writes, in the magic line:
    /// raised when a stored value changes meaning, so that an older cache
    /// is read as no cache.
    const VERSION: u32;
    /// Add what is kept of the file (after its path and key).
    fn encode(&self, out: &mut Vec<u8>);
    /// What [`Cached::encode`] wrote for the file at `path`; None when it
    /// is damaged.
    fn decode(path: &Path, r: &mut Reader<'_>) -> Option<Self>;
}

/// What one root's files gave, as the last run found them.
pub struct FileCache<V> {
    file: Option<PathBuf>,
    /// By the path's bytes (quicker to hash and compare than a `Path`'s
    /// components; each run names a file as the last did).
    old: HashMap<OsString, (Key, V)>,
}

impl<V> Default for FileCache<V> {
    fn default() -> Self {
        FileCache {
            file: None,
            old: HashMap::new(),
        }
    }
}

/// pi-ls's cache: the `SessionInfo` of each file.
pub type Cache = FileCache<Info>;

/// Read every candidate as pi's `buildSessionInfo` does, in parallel,
/// with what `cache` still knows taken from it instead: each outcome, and
/// whether the file was read. A candidate not yet stat'd is stat'd here
/// (the cache's key; the reader would take the same stat).
pub fn read_all_cached(cands: &mut [Candidate], cache: &mut Cache) -> Vec<(Outcome, bool)> {
    for c in cands.iter_mut().filter(|c| c.meta.is_none()) {
        c.meta = std::fs::metadata(&c.path).ok();
    }
    let hits: Vec<Option<Info>> = cands
        .iter()
        .map(|c| cache.take(&c.path, c.meta.as_ref()))
        .collect();
    let misses: Vec<&Candidate> = cands
        .iter()
        .zip(&hits)
        .filter(|(_, h)| h.is_none())
        .map(|(c, _)| c)
        .collect();
    let mut read = parallel_map(&misses, |c| {
        BUF.with(|b| {
            let (b, checker) = &mut *b.borrow_mut();
            session_info_with(&c.path, c.meta.clone(), b, checker)
        })
    })
    .into_iter();
    hits.into_iter()
        .map(|h| match h {
            Some(info) => (Ok(info), false),
            // parallel_map: one result per item, in order.
            None => (read.next().expect("one outcome per file read"), true),
        })
        .collect()
}

thread_local! {
    static BUF: std::cell::RefCell<(Vec<u8>, js::Checker)> =
        std::cell::RefCell::new((Vec::new(), js::Checker::new()));
}

fn magic<V: Cached>() -> Vec<u8> {
    format!("pi-session-tools {} cache {}\n", V::KIND, V::VERSION).into_bytes()
}

impl<V: Cached> FileCache<V> {
    /// The cache of `root` (empty, and never written, when it is off).
    pub fn open(root: &Path, enabled: bool) -> FileCache<V> {
        let Some(file) = cache_file::<V>(root, enabled) else {
            return FileCache::default();
        };
        let old = read_cache(&file).unwrap_or_default();
        FileCache {
            file: Some(file),
            old,
        }
    }

    /// What `path` gave when last read, when the file is as it was then
    /// (taken out: each file is asked for once).
    pub fn take(&mut self, path: &Path, meta: Option<&Metadata>) -> Option<V> {
        let key = Key::of(meta?);
        match self.old.remove(path.as_os_str()) {
            Some((k, v)) if k == key => Some(v),
            _ => None,
        }
    }

    /// Write what this run found, unless it is what the cache held: no
    /// file was read (`read` false) and none is gone.
    pub fn save<'a>(
        self,
        read: bool,
        listed: impl Iterator<Item = (&'a Path, Option<&'a Metadata>, &'a V)>,
    ) where
        V: 'a,
    {
        let Some(file) = self.file else { return };
        if !read && self.old.is_empty() {
            return;
        }
        drop(self.old);
        let _ = write_atomically(&file, &format!("pi-{}", V::KIND), |w| {
            w.write_all(&magic::<V>())?;
            let mut out = Vec::new();
            for (p, m, v) in listed {
                if let Some(m) = m {
                    out.clear();
                    encode_entry(&mut out, p, &Key::of(m), v);
                    w.write_all(&out)?;
                }
            }
            Ok(())
        });
    }
}

/// Where `V`'s cache of `root` is (None when caches are off).
fn cache_file<V: Cached>(root: &Path, enabled: bool) -> Option<PathBuf> {
    let dir = cache_dir().filter(|_| enabled && cache_enabled())?;
    let name = format!(
        "{}-{}.bin",
        V::KIND,
        &sha1_smol::Sha1::from(root.as_os_str().as_encoded_bytes())
            .digest()
            .to_string()[..16]
    );
    Some(dir.join(name))
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

/// Write `file` through a temporary file renamed over it, buffered.
fn write_atomically(
    file: &Path,
    tag: &str,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    use std::io::Write;
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut t = crate::write::TempFile::beside(file, tag, None)?;
    {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, t.file());
        write(&mut w)?;
        w.flush()?;
    }
    t.commit_rename()?;
    evict(dir);
    Ok(())
}

/// At most this many cache files are kept in the cache directory: one per
/// directory ever listed would otherwise grow without bound.
pub const MAX_CACHE_FILES: usize = 64;

/// Remove the least recently used cache files of `dir` beyond
/// [`MAX_CACHE_FILES`]. Used means read or written: reading a cache sets
/// its access time ([`Entries::of_file`]), writing makes a new file. Only files named as caches
/// are (`<kind>-<16 hex digits>.bin`); a file another run removes first is
/// skipped, and one being read stays readable until closed.
fn evict(dir: &Path) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = rd
        .flatten()
        .filter(|e| {
            if is_orphan_temp(&e.file_name()) {
                let _ = std::fs::remove_file(e.path());
            }
            is_cache_name(&e.file_name())
        })
        .filter_map(|e| {
            let m = e.metadata().ok().filter(|m| m.is_file())?;
            let used = m.accessed().ok()?.max(m.modified().ok()?);
            Some((used, e.path()))
        })
        .collect();
    if files.len() <= MAX_CACHE_FILES {
        return;
    }
    files.sort();
    let extra = files.len() - MAX_CACHE_FILES;
    for (_, p) in files.into_iter().take(extra) {
        let _ = std::fs::remove_file(p);
    }
}

/// Whether a file name is a temporary cache file whose writer is gone
/// (killed between its creation and its rename): `.NAME.pi-KIND-tmp-PID-RAND`
/// with no process PID. A live writer's file, or any other name, is not.
fn is_orphan_temp(name: &std::ffi::OsStr) -> bool {
    let Some(n) = name.to_str() else {
        return false;
    };
    let Some((head, tail)) = n.rsplit_once("-tmp-") else {
        return false;
    };
    let Some((pid, _)) = tail.split_once('-') else {
        return false;
    };
    n.starts_with('.')
        && head.contains(".bin.pi-")
        && pid.parse::<u32>().is_ok_and(|pid| {
            pid != std::process::id()
                && Path::new("/proc/self").exists()
                && !Path::new("/proc").join(pid.to_string()).exists()
        })
}

/// Whether a file name is one [`cache_file`] makes.
fn is_cache_name(name: &std::ffi::OsStr) -> bool {
    let Some(n) = name.to_str().and_then(|n| n.strip_suffix(".bin")) else {
        return false;
    };
    n.rsplit_once('-').is_some_and(|(kind, hash)| {
        !kind.is_empty()
            && kind.bytes().all(|b| b.is_ascii_lowercase())
            && hash.len() == 16
            && hash.bytes().all(|b| b.is_ascii_hexdigit())
    })
}

/// The entries of a cache file in the order they were written, read a
/// piece at a time (never the whole file in memory, nor what it decodes
/// to): a tool that folds what each file gave as it comes reads its cache
/// so, once for what it needs first and again for the rest.
pub struct Entries {
    f: std::fs::File,
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
    /// The bytes of the file not yet in `buf` (no entry is longer).
    left: u64,
    /// Whether an entry could not be decoded (nothing after it is read).
    pub damaged: bool,
}

const PIECE: usize = 1 << 20;

impl Entries {
    /// The entries of `V`'s cache of `root` (None when it is off, missing
    /// or not such a cache), and the cache's path.
    pub fn open<V: Cached>(root: &Path, enabled: bool) -> (Option<Entries>, Option<PathBuf>) {
        let Some(file) = cache_file::<V>(root, enabled) else {
            return (None, None);
        };
        (Entries::of_file::<V>(&file), Some(file))
    }

    fn of_file<V: Cached>(file: &Path) -> Option<Entries> {
        let f = open_regular(file)?;
        // Used now: eviction removes the least recently used first. The
        // access time says so (the modification time says when it was
        // written), set here whatever the mount's atime policy.
        let now = std::fs::FileTimes::new().set_accessed(std::time::SystemTime::now());
        let _ = f.set_times(now);
        let left = f.metadata().ok()?.len();
        let mut e = Entries {
            f,
            buf: Vec::new(),
            pos: 0,
            eof: false,
            left,
            damaged: false,
        };
        let magic = magic::<V>();
        e.more(PIECE.max(magic.len()))?;
        if !e.buf.starts_with(&magic) {
            return None;
        }
        e.pos = magic.len();
        Some(e)
    }

    /// Read at least `want` more bytes (fewer at the end of the file).
    fn more(&mut self, want: usize) -> Option<()> {
        use std::io::Read;
        let start = self.buf.len();
        self.buf.reserve(want);
        while self.buf.len() - start < want {
            let n = self
                .f
                .by_ref()
                .take((want - (self.buf.len() - start)) as u64)
                .read_to_end(&mut self.buf)
                .ok()?;
            self.left = self.left.saturating_sub(n as u64);
            if n == 0 {
                self.eof = true;
                break;
            }
        }
        Some(())
    }

    /// The next entry: its path, key and what `decode` makes of the rest
    /// (which it must read to the entry's end); None at the end, or on
    /// damage (`damaged`).
    pub fn next<T>(
        &mut self,
        mut decode: impl FnMut(&Path, &mut Reader<'_>) -> Option<T>,
    ) -> Option<(PathBuf, Key, T)> {
        if self.damaged {
            return None;
        }
        loop {
            let have = &self.buf[self.pos..];
            if have.is_empty() && (self.eof || self.left == 0) {
                return None;
            }
            let need = match frame(have) {
                Frame::Whole(body, len) => {
                    let mut r = Reader(body);
                    let got = entry_head(&mut r)
                        .and_then(|(path, key)| Some((path.clone(), key, decode(&path, &mut r)?)));
                    self.damaged = got.is_none();
                    self.pos += len;
                    return got;
                }
                Frame::Short(need) => need,
                Frame::Bad => {
                    self.damaged = true;
                    return None;
                }
            };
            if self.eof || need as u64 > have.len() as u64 + self.left {
                // cut, or a length longer than the file
                self.damaged = true;
                return None;
            }
            // An entry cut by the piece's end: keep its start, read the
            // rest of it (and a piece more).
            let want = PIECE.max(need - have.len());
            self.buf.drain(..self.pos);
            self.pos = 0;
            if self.more(want).is_none() {
                self.damaged = true;
                return None;
            }
        }
    }
}

/// `file` opened for reading when it is a regular file (None for a FIFO,
/// which opening would wait on for a writer, or a device): opened without
/// waiting, then its metadata checked.
fn open_regular(file: &Path) -> Option<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NONBLOCK);
    }
    let f = o.open(file).ok()?;
    f.metadata().ok()?.is_file().then_some(f)
}

/// A cache being written an entry at a time (to a temporary file, which
/// [`CacheWriter::commit`] renames over the cache; dropped, it is removed).
pub struct CacheWriter {
    t: crate::write::TempFile,
    /// The cache directory, for [`evict`] after the commit.
    dir: PathBuf,
    w: std::io::BufWriter<std::fs::File>,
    out: Vec<u8>,
    failed: bool,
}

impl CacheWriter {
    /// Start writing `V`'s cache at `file`.
    pub fn create<V: Cached>(file: &Path) -> Option<CacheWriter> {
        use std::io::Write;
        let dir = file.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).ok()?;
        let mut t = crate::write::TempFile::beside(file, &format!("pi-{}", V::KIND), None).ok()?;
        let f = t.file().try_clone().ok()?;
        let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
        w.write_all(&magic::<V>()).ok()?;
        Some(CacheWriter {
            t,
            dir: dir.to_path_buf(),
            w,
            out: Vec::new(),
            failed: false,
        })
    }

    /// Add what the file at `path`, with metadata `m`, gave.
    pub fn put<V: Cached>(&mut self, path: &Path, m: &Metadata, v: &V) {
        use std::io::Write;
        self.out.clear();
        encode_entry(&mut self.out, path, &Key::of(m), v);
        self.failed |= self.w.write_all(&self.out).is_err();
    }

    /// Put the cache in place.
    pub fn commit(self) {
        use std::io::Write;
        let CacheWriter {
            t,
            dir,
            mut w,
            failed,
            ..
        } = self;
        if !failed && w.flush().is_ok() {
            drop(w);
            if t.commit_rename().is_ok() {
                evict(&dir);
            }
        }
    }
}

/// The cache in `file` (see [`Entries`]): None when it cannot be read or
/// is damaged.
fn read_cache<V: Cached>(file: &Path) -> Option<HashMap<OsString, (Key, V)>> {
    let mut e = Entries::of_file::<V>(file)?;
    let mut map = HashMap::new();
    while let Some((path, key, v)) = e.next(V::decode) {
        map.insert(path.into_os_string(), (key, v));
    }
    (!e.damaged).then_some(map)
}

// The encoding: the magic line, then per file an entry: its length and
// checksum (u64 little-endian), then the path, the key and what the tool
// keeps, each length-prefixed. Decoding checks every sum and length: a
// damaged file decodes to nothing.

/// Add a number (8 bytes, little-endian).
pub fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Add bytes, after their length.
pub fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_u64(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// Add bytes or their absence ([`Reader::opt`]).
pub fn put_opt(out: &mut Vec<u8>, b: Option<&[u8]>) {
    match b {
        None => put_u64(out, u64::MAX),
        Some(b) => put_bytes(out, b),
    }
}

fn utf16_bytes(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|u| u.to_le_bytes()).collect()
}

fn encode_entry<V: Cached>(out: &mut Vec<u8>, path: &Path, key: &Key, v: &V) {
    let start = out.len();
    out.extend_from_slice(&[0; FRAME]);
    put_bytes(out, path.as_os_str().as_encoded_bytes());
    for k in key.0 {
        put_u64(out, k);
    }
    v.encode(out);
    seal(out, start);
}

impl Cached for Info {
    const KIND: &'static str = "ls";
    // 3: `modified` from the file's time is rounded as Node rounds
    // `stats.mtime`, where 2 cut it.
    const VERSION: u32 = 3;

    fn encode(&self, out: &mut Vec<u8>) {
        encode_info(out, self);
    }

    fn decode(path: &Path, r: &mut Reader<'_>) -> Option<Info> {
        decode_info(path, r)
    }
}

fn encode_info(out: &mut Vec<u8>, i: &Info) {
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

/// Reads what `put_*` wrote, every length checked.
pub struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    /// How many bytes are left (a count read from the file is checked
    /// against it before anything is allocated).
    pub fn left(&self) -> usize {
        self.0.len()
    }

    /// A reader of `b`.
    #[cfg(test)]
    pub fn new(b: &'a [u8]) -> Reader<'a> {
        Reader(b)
    }

    /// A number ([`put_u64`]).
    pub fn u64(&mut self) -> Option<u64> {
        let (h, t) = self.0.split_at_checked(8)?;
        self.0 = t;
        Some(u64::from_le_bytes(h.try_into().ok()?))
    }

    /// Bytes ([`put_bytes`]).
    pub fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.u64()?).ok()?;
        let (h, t) = self.0.split_at_checked(n)?;
        self.0 = t;
        Some(h)
    }

    /// Bytes or their absence ([`put_opt`]).
    pub fn opt(&mut self) -> Option<Option<&'a [u8]>> {
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

/// An entry's path and key.
fn entry_head(r: &mut Reader<'_>) -> Option<(PathBuf, Key)> {
    let path = path_of(r.bytes()?)?;
    let mut key = [0u64; 7];
    for k in &mut key {
        *k = r.u64()?;
    }
    Some((path, Key(key)))
}

#[cfg(test)]
fn decode<V: Cached>(b: &[u8]) -> Option<HashMap<OsString, (Key, V)>> {
    let mut b = b.strip_prefix(&magic::<V>()[..])?;
    let mut map = HashMap::new();
    while !b.is_empty() {
        let Frame::Whole(body, len) = frame(b) else {
            return None;
        };
        let mut r = Reader(body);
        let (path, key) = entry_head(&mut r)?;
        let v = V::decode(&path, &mut r)?;
        map.insert(path.into_os_string(), (key, v));
        b = &b[len..];
    }
    Some(map)
}

fn decode_info(path: &Path, r: &mut Reader<'_>) -> Option<Info> {
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
    Some(Info {
        path: path.to_path_buf(),
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
    })
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
        let mut out = magic::<Info>();
        assert_eq!(out, b"pi-session-tools ls cache 3\n");
        let k = Key([1, 2, 3, 4, 5, 6, 7]);
        let mut ends = vec![out.len()];
        encode_entry(&mut out, Path::new("/a.jsonl"), &k, &info("/a.jsonl"));
        ends.push(out.len());
        encode_entry(&mut out, Path::new("/b.jsonl"), &k, &info("/b.jsonl"));
        let m = decode::<Info>(&out).unwrap();
        assert_eq!(m.len(), 2);
        let (key, i) = &m[Path::new("/b.jsonl").as_os_str()];
        assert_eq!(*key, k);
        let mut a = Vec::new();
        let mut b = Vec::new();
        i.write_json_open(&mut a);
        info("/b.jsonl").write_json_open(&mut b);
        assert_eq!(a, b);
        assert_eq!(i.modified.to_bits(), f64::NAN.to_bits());
        // Every cut and every flipped byte or bit is refused.
        for n in 0..out.len() {
            if !ends.contains(&n) {
                assert!(decode::<Info>(&out[..n]).is_none(), "cut at {n}");
            }
            for flip in [0xff, 1 << (n % 8)] {
                let mut bad = out.clone();
                bad[n] ^= flip;
                assert!(decode::<Info>(&bad).is_none(), "{flip:#x} at {n}");
            }
        }
        assert!(decode::<Info>(&out[..out.len() - 1]).is_none());
        assert!(decode::<Info>(b"something else").is_none());
    }

    #[test]
    fn a_killed_writers_temporary_file_goes_at_the_next_write() {
        let dir = std::env::temp_dir().join(format!("pst-cache-orphans-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // A process id no process has (beyond Linux's pid_max), this one's, and a stranger.
        let dead = ".ls-0123456789abcdef.bin.pi-ls-tmp-4294967294-0a0b0c0d";
        let mine = format!(".ls-0123456789abcdef.bin.pi-ls-tmp-{}-01020304", std::process::id());
        let other = ".notes.txt-tmp-4294967294-00";
        for n in [dead, &mine, other] {
            std::fs::write(dir.join(n), b"x").unwrap();
        }
        write_atomically(&dir.join("ls-0123456789abcdef.bin"), "pi-ls", |w| w.write_all(b"c"))
            .unwrap();
        assert_eq!(dir.join(dead).exists(), !Path::new("/proc/self").exists());
        assert!(dir.join(&mine).exists());
        assert!(dir.join(other).exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_cache_of_another_version_is_no_cache() {
        // Version 2 kept `modified` cut to the millisecond: not to be taken.
        let file = std::env::temp_dir().join(format!("pst-cache-v2-{}", std::process::id()));
        let mut out = magic::<Info>();
        encode_entry(&mut out, Path::new("/a.jsonl"), &Key([0; 7]), &info("/a.jsonl"));
        std::fs::write(&file, &out).unwrap();
        assert_eq!(read_cache::<Info>(&file).map(|m| m.len()), Some(1));
        let mut old = b"pi-session-tools ls cache 2\n".to_vec();
        old.extend_from_slice(&out[magic::<Info>().len()..]);
        std::fs::write(&file, &old).unwrap();
        assert!(read_cache::<Info>(&file).is_none());
        let _ = std::fs::remove_file(&file);
    }

    #[test]
    fn a_cache_read_a_piece_at_a_time_reads_as_a_whole() {
        let mut out = magic::<Info>();
        let k = Key([1, 2, 3, 4, 5, 6, 7]);
        for n in 0..400 {
            let p = format!("/s/{n}.jsonl");
            let mut i = info(&p);
            // entries of every size, some bigger than a piece
            i.first_message = vec![u16::from(b'x'); (n * n * 7) % 1_500_000];
            encode_entry(&mut out, Path::new(&p), &k, &i);
        }
        assert!(out.len() > 4 << 20);
        let file = std::env::temp_dir().join(format!("pst-cache-test-{}", std::process::id()));
        std::fs::write(&file, &out).unwrap();
        let whole = decode::<Info>(&out).unwrap();
        let read = read_cache::<Info>(&file).unwrap();
        assert_eq!(read.len(), whole.len());
        for (p, (_, i)) in &whole {
            assert_eq!(read[p].1.first_message, i.first_message);
        }
        std::fs::write(&file, &out[..out.len() - 3]).unwrap();
        assert!(read_cache::<Info>(&file).is_none(), "a cut cache");
        std::fs::write(&file, &out[..5]).unwrap();
        assert!(read_cache::<Info>(&file).is_none(), "a cut magic");
        std::fs::write(&file, magic::<Info>()).unwrap();
        assert_eq!(read_cache::<Info>(&file).map(|m| m.len()), Some(0));
        let _ = std::fs::remove_file(&file);
    }
}
