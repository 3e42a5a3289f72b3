//! A header for a file that has none (deleted while pi ran, and recreated
//! by pi's next append without one): its id from the file name (pi names
//! files `TIME_ID.jsonl`), its time from the first entry (else the name),
//! its cwd from another session of the same directory (a project's
//! directory holds one cwd's sessions). Without a cwd there is no header.

use crate::json::Object;
use std::io::{BufRead, Read};
use std::path::Path;

/// How many other sessions of the directory are read for a cwd.
const SIBLINGS: usize = 64;

/// The header line to put before the file's lines, or why there is none.
pub fn rebuild(path: &Path, bytes: &[u8]) -> Result<Vec<u8>, String> {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (time_part, id_part) = stem.split_once('_').unwrap_or(("", &stem));
    let id = if uuid::Uuid::parse_str(id_part).is_ok() {
        id_part.to_string()
    } else {
        crate::append::new_session_id()
    };
    let timestamp = first_timestamp(bytes)
        .or_else(|| name_time(time_part))
        .unwrap_or_else(crate::time::now_iso);
    let cwd = sibling_cwd(path)
        .ok_or("no other session in its directory says the cwd (the header needs one)")?;
    let mut w = crate::json::ObjectWriter::new();
    w.str("type", "session")
        .raw("version", Some(b"3"))
        .str("id", &id)
        .str("timestamp", &timestamp)
        .str("cwd", &cwd);
    Ok(w.finish())
}

/// The `timestamp` of the first entry that has a string one.
fn first_timestamp(bytes: &[u8]) -> Option<String> {
    super::file::lines(bytes).find_map(|(_, l)| {
        let o = Object::parse_line(l).ok()??;
        o.str("timestamp").map(|t| t.into_owned())
    })
}

/// `2026-01-02T03-04-05-678Z` (pi's file names) as an ISO time.
fn name_time(t: &str) -> Option<String> {
    let b = t.as_bytes();
    if b.len() != 24 || b[10] != b'T' || b[23] != b'Z' {
        return None;
    }
    Some(format!(
        "{}:{}:{}.{}Z",
        &t[..13],
        &t[14..16],
        &t[17..19],
        &t[20..23]
    ))
}

/// The cwd the header of another session in `path`'s directory names.
fn sibling_cwd(path: &Path) -> Option<String> {
    let dir = crate::write::dir_of(path);
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "jsonl") && p.file_name() != path.file_name()
        })
        .collect();
    names.sort();
    names.iter().take(SIBLINGS).find_map(|p| {
        let f = std::fs::File::open(p).ok()?;
        if !f.metadata().ok()?.is_file() {
            return None;
        }
        let mut first = Vec::new();
        std::io::BufReader::new(f.take(1 << 20))
            .read_until(b'\n', &mut first)
            .ok()?;
        let o = Object::parse_line(first.strip_suffix(b"\n").unwrap_or(&first)).ok()??;
        if o.str("type").as_deref() != Some("session") {
            return None;
        }
        o.str("cwd")
            .filter(|c| !c.is_empty())
            .map(|c| c.into_owned())
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_file_name_time_is_an_iso_time() {
        assert_eq!(
            super::name_time("2026-01-02T03-04-05-678Z").as_deref(),
            Some("2026-01-02T03:04:05.678Z")
        );
        assert_eq!(super::name_time("x"), None);
    }
}
