//! Files for the tests: the repository, temporary directories, what a
//! directory holds.
use std::path::{Path, PathBuf};

/// The repository's root (the package's directory).
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A temporary directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!(
            "pst-{tag}-{}-{}",
            std::process::id(),
            uuid::Uuid::new_v4()
        ));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    pub fn path(&self) -> &Path {
        &self.0
    }
    pub fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The names of what `dir` holds, but those in `but`, sorted.
pub fn names_in(dir: &Path, but: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|d| d.file_name().to_string_lossy().into_owned())
        .filter(|n| !but.contains(&n.as_str()))
        .collect();
    v.sort();
    v
}

/// Append `line` and a newline to the file `p` in one write, as pi appends
/// an entry.
pub fn append_line(p: &Path, line: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).open(p).unwrap();
    f.write_all(format!("{line}\n").as_bytes()).unwrap();
}

/// The last line of the text file `p`.
pub fn last_line(p: &Path) -> String {
    let text = std::fs::read_to_string(p).unwrap();
    text.lines().last().expect("an empty file").to_string()
}
