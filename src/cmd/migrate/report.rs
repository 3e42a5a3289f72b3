//! What pi-migrate says of each file of a batch: held until every file
//! before it has spoken ([`InOrder`]), so that each run prints the same
//! lines in the same order (the files' order, sorted by path) however the
//! workers finish; and with `--json` one object per file ([`FileJson`]).

use crate::error::Diagnostic;
use crate::json::ObjectWriter;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One message of a file, to standard output or to the log.
pub(super) enum Said {
    /// A file name `--check` lists, ended by NUL with `-0`.
    Name(String),
    Line(String),
    Warn(Diagnostic),
    Error(String),
}

/// The messages of files that finished before a file ahead of them: the
/// next file to speak, and those waiting (one small entry per file).
#[derive(Default)]
pub(super) struct InOrder {
    state: Mutex<(usize, BTreeMap<usize, Vec<Said>>)>,
}

impl InOrder {
    /// File `i`'s messages; every message now in order goes to `emit`
    /// (under the lock, so that no other file's come between).
    pub(super) fn put(&self, i: usize, said: Vec<Said>, emit: &mut dyn FnMut(Said)) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let (next, waiting) = &mut *st;
        waiting.insert(i, said);
        while let Some(s) = waiting.remove(next) {
            s.into_iter().for_each(&mut *emit);
            *next += 1;
        }
    }

    /// What still waits (behind files a signal kept from starting), in order.
    pub(super) fn finish(&self, emit: &mut dyn FnMut(Said)) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        for (_, s) in std::mem::take(&mut st.1) {
            s.into_iter().for_each(&mut *emit);
        }
    }
}

/// One file in `--json`: `{"path", "status", "fromVersion", "toVersion",
/// "changes", "backup", "tornLine", "movedTo", "warnings", "error"}`.
#[derive(Default)]
pub(super) struct FileJson<'a> {
    pub path: &'a str,
    /// `migrated`, `would-migrate`, `current`, `failed`, `misplaced`,
    /// `would-relocate`, `relocated`.
    pub status: &'a str,
    pub from: Option<u32>,
    pub changes: Option<String>,
    pub backup: Option<String>,
    pub torn_line: Option<u64>,
    pub moved_to: Option<String>,
    pub warnings: Vec<String>,
    pub error: Option<String>,
}

impl FileJson<'_> {
    /// The object, on one line.
    pub(super) fn line(&self) -> String {
        let mut w = ObjectWriter::new();
        let null: Option<&[u8]> = Some(b"null");
        let name = |s: &str| crate::name::json(s);
        let text = |w: &mut ObjectWriter, k: &str, v: &Option<String>| {
            match v {
                Some(s) => w.str(k, &crate::name::shown(s)),
                None => w.raw(k, null),
            };
        };
        w.raw("path", Some(&name(self.path)))
            .str("status", self.status);
        let version = |v: Option<u32>| v.map(|n| n.to_string().into_bytes());
        w.raw("fromVersion", version(self.from).as_deref().or(null));
        let to = self
            .from
            .filter(|_| !matches!(self.status, "failed" | "misplaced"))
            .map(|_| crate::migrate::CURRENT_VERSION);
        w.raw("toVersion", version(to).as_deref().or(null));
        text(&mut w, "changes", &self.changes);
        match &self.backup {
            Some(b) => w.raw("backup", Some(&name(b))),
            None => w.raw("backup", null),
        };
        let torn = self.torn_line.map(|n| n.to_string().into_bytes());
        w.raw("tornLine", torn.as_deref().or(null));
        if let Some(d) = &self.moved_to {
            w.raw("movedTo", Some(&name(d)));
        }
        let mut list = b"[".to_vec();
        for (i, s) in self.warnings.iter().enumerate() {
            if i > 0 {
                list.push(b',');
            }
            crate::json::js::escape::write_str(&mut list, &crate::name::shown(s));
        }
        list.push(b']');
        w.raw("warnings", Some(&list));
        text(&mut w, "error", &self.error);
        String::from_utf8_lossy(&w.finish()).into_owned()
    }
}

/// Where `-i --backup=SUFFIX` keeps file `name` (beside the file a
/// symbolic link names, as the rewrite does).
pub(super) fn backup_of(name: &str, suffix: &str) -> String {
    let path = crate::name::path_of_kept(name);
    let is_link = path
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink());
    let real: PathBuf = if is_link {
        std::fs::canonicalize(&path).unwrap_or(path)
    } else {
        path
    };
    let mut p = real.into_os_string();
    p.push(suffix);
    crate::name::kept_path(Path::new(&p)).into_owned()
}
