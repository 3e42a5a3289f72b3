//! `pi-fork`: a branch into a new session file (pi's `createBranchedSession`,
//! `/fork`), a whole session into another project (`forkFrom`), or, in place,
//! back to an earlier entry (`/tree`: `branch`, `branchWithSummary`).

use crate::append::{
    fresh_id, label_line, new_session_id, random_id, require_current, session_file_name,
    session_info_line, Transaction,
};
use crate::cli::Out;
use crate::entry::{EntryType, Id};
use crate::error::{Error, Result};
use crate::json::{js, Object, ObjectWriter};
use crate::migrate::{json_str, ObjectEdit, CURRENT_VERSION};
use crate::path::path_to;
use crate::refs;
use crate::session::Session;
use crate::time::now_iso;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The `customType` of the entry an in-place move without summary appends.
pub(crate) const MOVE_CUSTOM_TYPE: &str = "pi-fork";

/// A new session, ready to be written.
#[derive(Debug, Clone)]
pub struct NewSession {
    pub id: String,
    pub timestamp: String,
    pub parent_session: Option<String>,
    /// The id of its last entry (None when it holds only a header).
    pub leaf: Option<String>,
    /// pi's `leafId` once it opens it, as JSON text (`null` when it holds
    /// only a header; None: `undefined`, a last entry without an id).
    leaf_json: Option<Vec<u8>>,
    pub bytes: Vec<u8>,
}

/// The header pi writes for a new session.
fn header(id: &str, timestamp: &str, cwd: &[u8], parent_session: Option<&str>) -> Vec<u8> {
    let mut w = ObjectWriter::new();
    w.str("type", "session")
        .number("version", CURRENT_VERSION as f64)
        .str("id", id)
        .str("timestamp", timestamp)
        .raw("cwd", Some(cwd));
    if let Some(p) = parent_session {
        w.str("parentSession", p);
    }
    w.finish()
}

/// The new session's `cwd` as JSON: pi's `resolvePath` of the source
/// header's `cwd` when it is a string, else of the process's cwd. A cwd
/// that resolving leaves as it is keeps its text.
fn source_cwd(s: &Session) -> Result<Vec<u8>> {
    let raw = s.header_line()?;
    let obj = s.object(&raw, s.header.line)?;
    if let Some(c) = obj.str("cwd") {
        let resolved = crate::store::resolve_path_str(&c);
        if resolved == c {
            if let Ok(Some(text)) = obj.canonical("cwd") {
                return Ok(text);
            }
        }
        return Ok(json_str(&resolved));
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    Ok(json_str(
        &crate::store::resolve_path(&cwd).to_string_lossy(),
    ))
}

/// An entry's line as pi writes it again (`JSON.stringify` of what it read).
fn restringify(s: &Session, i: usize) -> Result<Vec<u8>> {
    let line = s.line(i)?;
    let obj = s.object(&line, s.entries[i].line())?;
    js::canonical_vec(obj.text, obj.range.clone())
        .map_err(|e| Error::data(&s.name, Some(s.entries[i].line()), e.to_string()))
}

/// The entry `text` (as `JSON.stringify` wrote it) with `parentId` set to
/// `parent` (None: undefined, dropped) and, for a compaction, a
/// `firstKeptEntryId` that names a removed label repointed as pi's
/// `createBranchedSession` does. None when nothing changes.
fn rechain(
    text: &[u8],
    parent: Option<&[u8]>,
    compaction: bool,
    own_id: Option<&[u8]>,
    replacement: &HashMap<Vec<u8>, Option<Vec<u8>>>,
) -> std::result::Result<Option<Vec<u8>>, crate::json::SyntaxError> {
    let Some(obj) = Object::parse_line(text)? else {
        return Ok(None);
    };
    let mut edit = ObjectEdit::new();
    let set = |edit: &mut ObjectEdit, key: &str, value: Option<&[u8]>| match value {
        Some(v) => edit.set(&obj, key, v.to_vec()),
        None => edit.delete(&obj, key),
    };
    if obj.raw("parentId") != parent {
        set(&mut edit, "parentId", parent);
    }
    if compaction {
        if let Some(first) = obj.raw("firstKeptEntryId") {
            if Some(first) != own_id {
                if let Some(to) = replacement.get(first) {
                    if to.as_deref() != Some(first) {
                        set(&mut edit, "firstKeptEntryId", to.as_deref());
                    }
                }
            }
        }
    }
    Ok((!edit.is_empty()).then(|| edit.apply(&obj)))
}

/// pi's `createBranchedSession(leaf)`: the path root→leaf without its label
/// entries, each kept entry re-chained to the kept entry before it (a
/// compaction whose `firstKeptEntryId` named a removed label then names the
/// next kept entry), then one fresh label entry per label in force on that
/// path. `leaf` None gives a session with only its header (pi's fork before
/// a root message).
pub fn branched_session(
    s: &Session,
    leaf: Option<usize>,
    parent_session: Option<&str>,
) -> Result<NewSession> {
    if let Some(l) = leaf.filter(|&l| crate::refs::branch_is_empty(s, l)) {
        // pi's getBranch() of a falsy id (0, false, "", null) is empty.
        return Err(Error::data(
            &s.name,
            Some(s.entries[l].line()),
            format!(
                "Entry {} not found (pi's createBranchedSession fails: its path from a falsy id is empty)",
                s.entries.id_string(l)
            ),
        ));
    }
    let id = new_session_id();
    let timestamp = now_iso();
    let mut bytes = header(&id, &timestamp, &source_cwd(s)?, parent_session);
    bytes.push(b'\n');
    let path = match leaf {
        Some(l) => path_to(s, l)?,
        None => Vec::new(),
    };
    let kept: Vec<usize> = path
        .iter()
        .copied()
        .filter(|&i| s.entries[i].ty() != EntryType::Label)
        .collect();
    let mut taken: Vec<String> = Vec::new();
    let mut on_path = std::collections::HashSet::new();
    // pi's pathParentId (JSON text; None: undefined), replacementByLabelId
    // and pendingLabelIds, keyed by the ids' JSON text.
    let mut parent: Option<Vec<u8>> = Some(b"null".to_vec());
    let mut replacement: HashMap<Vec<u8>, Option<Vec<u8>>> = HashMap::new();
    let mut pending: Vec<Vec<u8>> = Vec::new();
    for &i in &path {
        let data = |e: crate::json::SyntaxError| {
            Error::data(&s.name, Some(s.entries[i].line()), e.to_string())
        };
        let line = s.line(i)?;
        let obj = s.object(&line, s.entries[i].line())?;
        let own_id = obj.canonical("id").map_err(data)?;
        if s.entries[i].ty() == EntryType::Label {
            pending.extend(own_id);
            continue;
        }
        for l in pending.drain(..) {
            replacement.insert(l, own_id.clone());
        }
        let text = js::canonical_vec(obj.text, obj.range.clone()).map_err(data)?;
        let new = rechain(
            &text,
            parent.as_deref(),
            s.entries[i].ty() == EntryType::Compaction,
            own_id.as_deref(),
            &replacement,
        )
        .map_err(data)?;
        bytes.extend_from_slice(new.as_deref().unwrap_or(&text));
        bytes.push(b'\n');
        if let Some(id) = s.entries.id(i) {
            on_path.insert(id.clone());
            taken.push(id.to_string());
        }
        parent = own_id;
    }
    let mut last = kept
        .last()
        .and_then(|&i| s.entries.id(i).as_ref().map(Id::to_string));
    let last_id = kept.last().map(|&i| s.entries.id(i));
    let mut leaf_json = match &last_id {
        None => Some(b"null".to_vec()),
        Some(id) => id.as_ref().map(|id| id.to_json().into_bytes()),
    };
    // pi: `pathWithoutLabels[...]?.id || null`.
    let mut label_parent = match last_id.flatten() {
        Some(id) if id.truthy() => id.to_json().into_bytes(),
        _ => b"null".to_vec(),
    };
    for l in s.index.labels.iter() {
        if !on_path.contains(&l.target) {
            continue;
        }
        // pi's generateId(new Set(pathEntryIds)), the new label ids included.
        let new_id = random_id(|id| taken.iter().any(|t| t == id));
        taken.push(new_id.clone());
        let set_by = s.line(l.set_by)?;
        let obj = s.object(&set_by, s.entries[l.set_by].line())?;
        let ts = obj.canonical("timestamp").ok().flatten();
        bytes.extend_from_slice(&label_line(
            &new_id,
            Some(&label_parent),
            ts.as_deref(),
            l.target.to_json().as_bytes(),
            Some(&s.label_value(l)?),
        ));
        bytes.push(b'\n');
        label_parent = json_str(&new_id);
        leaf_json = Some(label_parent.clone());
        last = Some(new_id);
    }
    Ok(NewSession {
        id,
        timestamp,
        parent_session: parent_session.map(str::to_string),
        leaf: last,
        leaf_json,
        bytes,
    })
}

/// pi's `forkFrom(source, cwd)`: every entry of the session, under a new
/// header with the new cwd and `parentSession` = the source.
pub(crate) fn fork_from(
    s: &Session,
    cwd: &str,
    parent_session: Option<&str>,
) -> Result<NewSession> {
    let id = new_session_id();
    let timestamp = now_iso();
    let mut bytes = header(&id, &timestamp, &json_str(cwd), parent_session);
    bytes.push(b'\n');
    let mut last = None;
    let mut leaf_json = Some(b"null".to_vec());
    for (i, e) in s.entries.iter().enumerate() {
        if e.ty() == EntryType::Session {
            continue;
        }
        bytes.extend_from_slice(&restringify(s, i)?);
        bytes.push(b'\n');
        let id = s.entries.id(i);
        last = id.as_ref().map(Id::to_string);
        leaf_json = id.map(|id| id.to_json().into_bytes());
    }
    Ok(NewSession {
        id,
        timestamp,
        parent_session: parent_session.map(str::to_string),
        leaf: last,
        leaf_json,
        bytes,
    })
}

/// Append pi's `appendSessionInfo(name)` entry to a new session.
pub(crate) fn add_name(new: &mut NewSession, name: &str) {
    let id = random_id(|id| {
        let quoted = format!("\"id\":\"{id}\"");
        new.bytes
            .windows(quoted.len())
            .any(|w| w == quoted.as_bytes())
    });
    new.bytes
        .extend_from_slice(&session_info_line(&id, new.leaf_json.as_deref(), name));
    new.bytes.push(b'\n');
    new.leaf_json = Some(json_str(&id));
    new.leaf = Some(id);
}

/// The text of a user or custom message's content as pi puts it back in
/// the editor (a string, or its text blocks joined with nothing).
fn editor_text(content: Option<&[u8]>) -> String {
    content
        .and_then(|c| crate::summary::content_text(c, ""))
        .unwrap_or_default()
}

/// Where `--before REF` leads: REF must be a user message (or, with
/// `allow_custom`, a custom message); returns its parent (None for a root)
/// and its text.
pub(crate) fn before(s: &Session, i: usize, allow_custom: bool) -> Result<(Option<usize>, String)> {
    let e = &s.entries[i];
    let line = s.line(i)?;
    let obj = s.object(&line, e.line())?;
    let text = match &e.ty() {
        EntryType::Message => {
            let msg = obj.object("message");
            if msg.as_ref().and_then(|m| m.str("role")).as_deref() != Some("user") {
                return Err(not_a_user_message(s, i, allow_custom));
            }
            editor_text(msg.as_ref().and_then(|m| m.raw("content")))
        }
        EntryType::CustomMessage if allow_custom => {
            // pi's /tree joins the text blocks of a custom message with nothing.
            editor_text(obj.raw("content"))
        }
        _ => return Err(not_a_user_message(s, i, allow_custom)),
    };
    let parent = match (s.index.parent_of(i), s.entries.parent_id(i)) {
        (None, None) => None,
        (None, Some(p)) => {
            return Err(Error::data(
                &s.name,
                Some(e.line()),
                format!("the parent {p} of this message is not in the file"),
            ))
        }
        (Some(p), _) => Some(p),
    };
    Ok((parent, text))
}

/// One wording whatever the entry is (issue 35): what it is, and the
/// --at that forks at it.
fn not_a_user_message(s: &Session, i: usize, allow_custom: bool) -> Error {
    let e = &s.entries[i];
    let id = s.entries.id_string(i);
    Error::data(
        &s.name,
        Some(e.line()),
        format!(
            "--before needs a user message{}; entry {id} is {}{}; --at {id} forks at it",
            if allow_custom {
                " or a custom message"
            } else {
                ""
            },
            s.type_name(i),
            if e.ty() == EntryType::Message {
                " (not from the user)"
            } else {
                ""
            }
        ),
    )
}

/// Write a new session: to stdout (`-`), to `file`, or into `dir` under
/// pi's file name. Never overwrites. Returns the path written (None for stdout).
pub(crate) fn write_new(
    new: &NewSession,
    file: Option<&Path>,
    dir: Option<&Path>,
    out: &mut impl Write,
) -> Result<Option<PathBuf>> {
    let target = match (file, dir) {
        (Some(f), _) if f == Path::new("-") => {
            crate::append::check_new_lines("-", &new.bytes)?;
            out.bytes(&new.bytes)?;
            out.done()?;
            return Ok(None);
        }
        (Some(f), _) => f.to_path_buf(),
        (None, Some(d)) => {
            std::fs::create_dir_all(d).map_err(|e| Error::io(&crate::name::kept_path(d), &e))?;
            d.join(session_file_name(&new.timestamp, &new.id))
        }
        (None, None) => {
            return Err(Error::usage(
                "say where the new session goes: -o FILE, -o - (stdout) or --session-dir DIR",
            ))
        }
    };
    let name = crate::name::kept_path(&target).into_owned();
    crate::append::check_new_lines(&name, &new.bytes)?;
    // Temporary files of interrupted runs (killed before they could remove them).
    if let Some(d) = target.parent() {
        let d = if d.as_os_str().is_empty() {
            Path::new(".")
        } else {
            d
        };
        crate::write::remove_stray_temps_in(d, "pi-fork");
    }
    crate::write::create_new(&target, "pi-fork", &new.bytes).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            Error::request(&name, "already exists; pi-fork never overwrites a file")
        } else {
            Error::io(&name, &e)
        }
    })?;
    Ok(Some(target))
}

/// What an in-place move appended.
#[derive(Debug, Clone)]
pub(crate) struct Moved {
    /// The new entry's id (the new leaf); None when nothing was written.
    pub id: Option<String>,
    pub old_leaf: Option<String>,
    /// The entry the session now continues from (None: before the first entry).
    pub target: Option<String>,
}

/// Move the leaf of the session file `path` in place (pi's `/tree`): append
/// a `branch_summary` (with `summary`) or a `custom` entry of type
/// [`MOVE_CUSTOM_TYPE`] whose parent is `target` (None: before the first
/// entry). The file is locked, read, and appended to in one write;
/// `before` is called with what will be appended right before the write
/// (an error from it stops the move with nothing written).
pub(crate) fn move_in_place(
    path: &Path,
    opts: crate::session::ReadOptions,
    choose: impl FnOnce(&Session) -> Result<Option<usize>>,
    summary: Option<&str>,
    log: crate::cli::Log,
    before: &mut dyn FnMut(&Moved) -> Result<()>,
) -> Result<Moved> {
    let tx = Transaction::open(path)?;
    let s = Session::open(crate::session::Input::File(path.to_path_buf()), opts)?;
    log.warn_all(&s.warnings);
    require_current(&s.name, s.version())?;
    let target = choose(&s)?;
    let id_of = |i: usize| s.entries.id(i).as_ref().map(Id::to_string);
    let target_id = target.and_then(id_of);
    // pi's leaf now: what was read, or what pi appended since the lock was
    // taken (which the read may already hold: then it has not moved on).
    let read_leaf = s.index.leaf.and_then(id_of);
    let (old_leaf, moved_on) = match tx.appended_leaf()? {
        None => (read_leaf, false),
        Some(id) => {
            let now = id.as_ref().map(Id::to_string);
            let moved_on = now != read_leaf;
            (now, moved_on)
        }
    };
    if target.is_some() && target == s.index.leaf && !moved_on {
        return Ok(Moved {
            id: None,
            old_leaf,
            target: target_id,
        });
    }
    let new_id = fresh_id(&s.index, &[]);
    let parent = target_id
        .as_deref()
        .map_or_else(|| b"null".to_vec(), json_str);
    // The entry, made with the leaf it moves from (`fromId`).
    let line = |old_leaf: Option<&str>| {
        let mut w = ObjectWriter::new();
        match summary {
            Some(text) => {
                w.str("type", "branch_summary")
                    .str("id", &new_id)
                    .raw("parentId", Some(&parent))
                    .str("timestamp", &now_iso())
                    .str("fromId", old_leaf.unwrap_or("root"))
                    .str("summary", text);
            }
            None => {
                let mut data = ObjectWriter::new();
                data.raw(
                    "from",
                    Some(&old_leaf.map_or_else(|| b"null".to_vec(), json_str)),
                );
                w.str("type", "custom")
                    .str("customType", MOVE_CUSTOM_TYPE)
                    .raw("data", Some(&data.finish()))
                    .str("id", &new_id)
                    .raw("parentId", Some(&parent))
                    .str("timestamp", &now_iso());
            }
        }
        w.finish()
    };
    let moved = Moved {
        id: Some(new_id.clone()),
        old_leaf,
        target: target_id,
    };
    // Told first (what the tool prints, without the lock: an output nobody
    // reads holds up no other writer): a failure there leaves the file as
    // it was. Under the lock, the leaf it moves from is looked at again.
    // A line the readers would refuse is refused before anything is said.
    crate::append::check_new_lines(&s.name, &line(moved.old_leaf.as_deref()))?;
    before(&moved)?;
    let told = moved.old_leaf.clone();
    tx.write_with(|appended| {
        Ok(match appended {
            None => line(told.as_deref()),
            Some(id) => line(id.as_ref().map(Id::to_string).as_deref()),
        })
    })?;
    Ok(moved)
}

/// Resolve REF for `--at`.
pub(crate) fn at(s: &Session, reference: &str) -> Result<usize> {
    refs::resolve(s, reference)
}
