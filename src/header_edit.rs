//! A session header's `cwd` and `parentSession` changed in place, every
//! other byte of the file kept (pi-mv, pi-rm --orphans clear); and what a
//! header says of them, read off the first line.

use crate::json::Object;
use std::ops::Range;

/// What a header holds that moving and deleting sessions care about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub id: Option<String>,
    pub cwd: Option<String>,
    /// `parentSession` when it is a string.
    pub parent: Option<String>,
}

/// A UTF-8 byte order mark, which a header line may start with.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The first line of `bytes` without its line break, and where its object
/// starts (past a byte order mark).
fn first_line(bytes: &[u8]) -> (&[u8], usize) {
    let end = memchr::memchr(b'\n', bytes).unwrap_or(bytes.len());
    let line = &bytes[..end];
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let skip = if line.starts_with(BOM) { BOM.len() } else { 0 };
    (line, skip)
}

/// The header of a file whose text starts with `bytes` (its first line is
/// enough); None when the first line is no session header.
pub fn read(bytes: &[u8]) -> Option<Header> {
    let (line, skip) = first_line(bytes);
    let obj = Object::parse_line(&line[skip..]).ok()??;
    if obj.str("type").as_deref() != Some("session") {
        return None;
    }
    Some(Header {
        id: obj.str("id").map(|s| s.into_owned()),
        cwd: obj.str("cwd").map(|s| s.into_owned()),
        parent: obj.str("parentSession").map(|s| s.into_owned()),
    })
}

/// The header of the session file `path` (its first line only).
pub fn read_file(path: &std::path::Path) -> Option<Header> {
    read(&crate::store::first_line(path)?)
}

/// What to change in a header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Set the string member `key` (added last when absent).
    Set(&'static str, String),
    /// Remove the member `key` (every occurrence).
    Remove(&'static str),
}

/// `bytes` (a whole session file) with its header changed as `changes`
/// say, every other byte kept; None when nothing changes, or when the
/// first line is no session header.
pub fn edit(bytes: &[u8], changes: &[Change]) -> Option<Vec<u8>> {
    read(bytes)?;
    let (line, skip) = first_line(bytes);
    let mut head = line[skip..].to_vec();
    for c in changes {
        head = apply(&head, c)?;
    }
    if head == line[skip..] {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len() + head.len());
    out.extend_from_slice(&bytes[..skip]);
    out.extend_from_slice(&head);
    out.extend_from_slice(&bytes[line.len()..]);
    Some(out)
}

/// One change to the object `obj` (a header line, valid JSON).
fn apply(obj: &[u8], c: &Change) -> Option<Vec<u8>> {
    let o = Object::parse_line(obj).ok()??;
    match c {
        Change::Set(key, value) => {
            let mut v = Vec::new();
            crate::json::js::escape::write_str(&mut v, value);
            Some(match o.get(key) {
                Some(r) => splice(obj, r, &v),
                None => {
                    // Added before the closing brace, as JSON.stringify
                    // would add a new member last.
                    let close = o.range.end - 1;
                    let mut add = Vec::new();
                    if !o.members.is_empty() {
                        add.push(b',');
                    }
                    crate::json::js::escape::write_str(&mut add, key);
                    add.push(b':');
                    add.extend_from_slice(&v);
                    splice(obj, close..close, &add)
                }
            })
        }
        Change::Remove(key) => {
            let mut out = obj.to_vec();
            // From the last, so that the earlier spans stay where they are.
            for i in (0..o.members.len()).rev() {
                if !crate::json::key_is(obj, &o.members[i].key, key) {
                    continue;
                }
                let cut = member_span(&o.members, i);
                out.drain(cut);
            }
            Some(out)
        }
    }
}

/// The bytes to cut to remove member `i`: with the comma before it, or
/// (the first member) with the comma after it.
fn member_span(m: &[crate::json::scan::Member], i: usize) -> Range<usize> {
    if i > 0 {
        m[i - 1].value.end..m[i].value.end
    } else if m.len() > 1 {
        m[0].key.start..m[1].key.start
    } else {
        m[0].key.start..m[0].value.end
    }
}

fn splice(text: &[u8], r: Range<usize>, with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + with.len());
    out.extend_from_slice(&text[..r.start]);
    out.extend_from_slice(with);
    out.extend_from_slice(&text[r.end..]);
    out
}

/// Many files' headers changed at once, each atomically
/// ([`crate::write::rewrite_many`]): `changes[i]` for `files[i]`. Each
/// file's outcome is `Ok(true)` (changed, or would be), `Ok(false)`
/// (nothing to change) or the error that left it as it was; then the
/// directories that could not be flushed after their renames.
pub fn rewrite(
    files: &[std::path::PathBuf],
    changes: &[Vec<Change>],
    tag: &str,
    write: bool,
) -> (Vec<crate::error::Result<bool>>, Vec<crate::error::Error>) {
    let by_name: std::collections::HashMap<String, &[Change]> = files
        .iter()
        .zip(changes)
        .map(|(f, c)| (crate::name::kept_path(f).into_owned(), c.as_slice()))
        .collect();
    let rw = Edits {
        by_name,
        outcomes: std::sync::Mutex::new((0..files.len()).map(|_| Ok(false)).collect()),
        dirs: std::sync::Mutex::new(Vec::new()),
    };
    let opts = crate::write::many::Options {
        tag,
        write,
        backup: None,
        done: "changed",
        instead: "",
    };
    // pi picks the session `pi -c` continues by modification time: a
    // header edit keeps it (a crash in between may not).
    let times: Vec<Option<std::time::SystemTime>> = files
        .iter()
        .map(|f| std::fs::metadata(f).and_then(|m| m.modified()).ok())
        .collect();
    crate::write::rewrite_many(files, &opts, &rw);
    let mut each = rw.outcomes.into_inner().unwrap_or_else(|e| e.into_inner());
    if write {
        for ((f, t), r) in files.iter().zip(times).zip(each.iter_mut()) {
            if let (Some(t), Ok(true)) = (t, &r) {
                let set = std::fs::OpenOptions::new()
                    .write(true)
                    .open(f)
                    .and_then(|h| h.set_modified(t));
                if let Err(e) = set {
                    *r = Err(crate::error::Error::io(&crate::name::kept_path(f), &e));
                }
            }
        }
    }
    (
        each,
        rw.dirs.into_inner().unwrap_or_else(|e| e.into_inner()),
    )
}

struct Edits<'a> {
    by_name: std::collections::HashMap<String, &'a [Change]>,
    outcomes: std::sync::Mutex<Vec<crate::error::Result<bool>>>,
    dirs: std::sync::Mutex<Vec<crate::error::Error>>,
}

impl crate::write::many::Rewrite for Edits<'_> {
    type Change = ();

    fn read_stream(&self, _file: &std::fs::File, name: &str) -> crate::error::Result<Vec<u8>> {
        Err(crate::error::Error::request(name, "not a regular file"))
    }

    fn transform(&self, name: &str, old: &[u8]) -> crate::error::Result<Option<(Vec<u8>, ())>> {
        let changes = self.by_name.get(name).copied().unwrap_or(&[]);
        if read(old).is_none() {
            return Err(crate::error::Error::data(
                name,
                Some(1),
                "no session header: not changed",
            ));
        }
        Ok(edit(old, changes).map(|b| (b, ())))
    }

    fn outcome(&self, index: usize, name: &str, outcome: crate::write::many::Outcome<()>) {
        use crate::write::many::Outcome;
        let r = match outcome {
            Outcome::Unchanged => Ok(false),
            Outcome::Changed(()) => Ok(true),
            Outcome::Failed(e) => Err(e),
            Outcome::Interrupted => Err(crate::error::Error::request(name, "interrupted")),
        };
        if let Ok(mut o) = self.outcomes.lock() {
            o[index] = r;
        }
    }

    fn dir_failed(&self, dir: &std::path::Path, e: &std::io::Error) {
        let name = crate::name::kept_path(dir);
        let e = crate::error::Error::request(
            &name,
            format!(
                "cannot flush the directory after renaming: {}",
                crate::error::io_message(e)
            ),
        );
        if let Ok(mut d) = self.dirs.lock() {
            d.push(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &[u8] = b"{\"type\":\"session\",\"version\":3,\"id\":\"a\",\"timestamp\":\"t\",\"cwd\":\"/x\",\"parentSession\":\"/p.jsonl\"}\n{\"type\":\"x\"}\n";

    #[test]
    fn cwd_is_replaced_and_nothing_else() {
        let got = edit(FILE, &[Change::Set("cwd", "/new \"q\"".into())]).unwrap();
        let want = String::from_utf8_lossy(FILE).replace("\"/x\"", "\"/new \\\"q\\\"\"");
        assert_eq!(String::from_utf8_lossy(&got), want);
        assert_eq!(read(&got).unwrap().cwd.as_deref(), Some("/new \"q\""));
        assert!(edit(FILE, &[Change::Set("cwd", "/x".into())]).is_none());
    }

    #[test]
    fn a_member_is_removed_with_its_comma() {
        let got = edit(FILE, &[Change::Remove("parentSession")]).unwrap();
        let want = String::from_utf8_lossy(FILE).replace(",\"parentSession\":\"/p.jsonl\"", "");
        assert_eq!(String::from_utf8_lossy(&got), want);
        let first = b"{\"type\":\"session\", \"parentSession\":\"/p\" , \"cwd\":\"/x\"}\n";
        let got = edit(first, &[Change::Remove("type")]);
        assert!(got.is_some());
        let got = edit(first, &[Change::Remove("parentSession")]).unwrap();
        assert_eq!(got, b"{\"type\":\"session\" , \"cwd\":\"/x\"}\n");
    }

    #[test]
    fn a_missing_member_is_added_last_and_a_bom_kept() {
        let f = b"\xEF\xBB\xBF{\"type\":\"session\",\"id\":\"a\"}\nrest";
        let got = edit(f, &[Change::Set("cwd", "/y".into())]).unwrap();
        assert_eq!(
            got,
            b"\xEF\xBB\xBF{\"type\":\"session\",\"id\":\"a\",\"cwd\":\"/y\"}\nrest"
        );
        assert!(edit(b"{\"type\":\"message\"}\n", &[Change::Remove("cwd")]).is_none());
    }
}
