//! The layer across files: what one file says of another (a fork's
//! parent, the same session id twice), and what the tools left beside a
//! file (temporary files of a run that was killed).

use super::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What the store layer needs of one session file.
#[derive(Debug, Clone)]
pub struct Seen {
    pub path: PathBuf,
    pub id: String,
    pub line: u64,
    pub parent_session: Option<String>,
    pub cwd: Option<String>,
}

impl Seen {
    /// What `s` (read from `path`) says of itself.
    pub fn of(path: &Path, s: &Session) -> Seen {
        let field = |key: &str| {
            let h = s.raw_header().ok()?;
            let obj = crate::json::Object::parse_line(&h).ok()??;
            obj.str(key).map(|p| p.into_owned())
        };
        let (parent, cwd) = (field("parentSession"), field("cwd"));
        Seen {
            path: path.to_path_buf(),
            id: s.header.id.clone(),
            line: s.header.line,
            parent_session: parent,
            cwd,
        }
    }
}

/// The store layer over files taken one at a time, in order: what a file
/// says of those before it (its findings do not wait for the files after
/// it).
#[derive(Default)]
pub struct Across {
    /// The first file of each session id.
    by_id: HashMap<String, PathBuf>,
}

impl Across {
    /// The findings of the next file.
    pub fn file(&mut self, s: &Seen) -> Vec<Finding> {
        let mut out = Vec::new();
        if let Some(first) = self.by_id.get(s.id.as_str()) {
            let other = crate::name::kept_path(first).into_owned();
            out.push(Finding::new(
                DUPLICATE_SESSION_ID,
                Some(s.line),
                format!(
                    "session id {} is also the id of {}",
                    crate::visible::field(&s.id),
                    crate::visible::field(&other)
                ),
            ));
        } else {
            self.by_id.insert(s.id.clone(), s.path.clone());
        }
        if let Some(f) = wrong_directory(s) {
            out.push(f);
        }
        if let Some(p) = s.parent_session.as_deref().filter(|p| !p.is_empty()) {
            let path = Path::new(p);
            let full = if path.is_absolute() {
                path.to_path_buf()
            } else {
                crate::write::dir_of(&s.path).join(path)
            };
            if !full.exists() {
                out.push(Finding::new(
                    PARENT_SESSION_MISSING,
                    Some(s.line),
                    format!("parentSession {} does not exist", crate::visible::field(p)),
                ));
            }
        }
        out
    }
}

/// A session in a project directory of the store (`--X--`) that is not
/// the one pi computes from its header's cwd.
fn wrong_directory(s: &Seen) -> Option<Finding> {
    let cwd = s.cwd.as_deref().filter(|c| !c.is_empty())?;
    let dir = crate::write::dir_of(&s.path);
    let name = dir.file_name()?.to_string_lossy().into_owned();
    if name.len() < 4 || !name.starts_with("--") || !name.ends_with("--") {
        return None;
    }
    let want = crate::store::encode_cwd(&crate::store::resolve_path_str(cwd));
    (want != name).then(|| {
        Finding::new(
            WRONG_DIRECTORY,
            Some(s.line),
            format!(
                "a session of {} in the directory {}, not {}",
                crate::visible::field(cwd),
                crate::visible::field(&name),
                crate::visible::field(&want)
            ),
        )
    })
}

/// The names of the temporary files tools left in the directories of
/// `paths` (`.NAME.TOOL-tmp-...`), each directory read once (not once a
/// file: a directory of 10 000 sessions would be read 10 000 times).
pub fn temp_names<'p>(
    paths: impl Iterator<Item = &'p Path>,
) -> std::collections::HashMap<std::path::PathBuf, Vec<String>> {
    let mut dirs = std::collections::HashMap::new();
    for p in paths {
        let dir = crate::write::dir_of(p);
        dirs.entry(dir).or_insert_with_key(|d| {
            let Ok(read) = std::fs::read_dir(d) else {
                return Vec::new();
            };
            let mut found: Vec<String> = read
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with('.') && n.contains("-tmp-"))
                .collect();
            found.sort();
            found
        });
    }
    dirs
}

/// Temporary files a tool left beside `path`, among the directory's
/// `names` ([`temp_names`]).
pub fn temp_files(path: &Path, names: &[String]) -> Vec<Finding> {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return Vec::new();
    };
    let prefix = format!(".{name}.");
    names
        .iter()
        .filter(|n| n.starts_with(&prefix))
        .map(|n| {
            Finding::new(
                TEMP_FILE,
                None,
                format!(
                    "a leftover temporary file beside it: {}",
                    crate::visible::field(n)
                ),
            )
        })
        .collect()
}
