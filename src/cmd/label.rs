//! `pi-label`: set, clear and list labels, and name the session, by
//! appending the entries pi's `appendLabelChange` and `appendSessionInfo` write.

use crate::append::{fresh_id, Appender};
use crate::cli::out_err;
use crate::entry::js_trim;
use crate::error::{Error, Result};
use crate::json::ObjectWriter;
use crate::migrate::CURRENT_VERSION;
use crate::refs;
use crate::session::{Input, ReadOptions, Session};
use crate::summary::entry_summary;
use crate::time::now_iso;
use std::io::Write;

/// What to do.
#[derive(Debug, Clone)]
pub enum Action {
    /// Label the entry REF with NAME.
    Set { reference: String, label: String },
    /// Remove the label of REF.
    Clear { reference: String },
    /// List the labels in force.
    List { json: bool },
    /// Name the session (a `session_info` entry).
    SetName(String),
    /// Print the session's name.
    ShowName,
}

/// The `parentId` of a new entry: pi's leaf (the last entry), or null.
fn leaf_parent(s: &Session) -> Vec<u8> {
    match s.index.leaf.and_then(|i| s.entries[i].id.as_ref()) {
        Some(id) => crate::migrate::json_str(&id.to_string()),
        None => b"null".to_vec(),
    }
}

/// The line pi's `appendLabelChange(target, label)` writes (label None = cleared).
pub fn label_entry(s: &Session, target: &str, label: Option<&str>) -> (String, Vec<u8>) {
    let id = fresh_id(&s.index, &[]);
    let parent = leaf_parent(s);
    let mut w = ObjectWriter::new();
    w.str("type", "label")
        .str("id", &id)
        .raw("parentId", Some(&parent))
        .str("timestamp", &now_iso())
        .str("targetId", target);
    if let Some(l) = label {
        w.str("label", l);
    }
    (id, w.finish())
}

/// The line pi's `appendSessionInfo(name)` writes.
pub fn session_info_entry(s: &Session, name: &str) -> (String, Vec<u8>) {
    let id = fresh_id(&s.index, &[]);
    let parent = leaf_parent(s);
    let mut w = ObjectWriter::new();
    w.str("type", "session_info")
        .str("id", &id)
        .raw("parentId", Some(&parent))
        .str("timestamp", &now_iso())
        .str("name", js_trim(name));
    (id, w.finish())
}

/// Run `pi-label` on a session input. File input is locked while it is
/// read and appended to; stdin input is echoed to stdout with the new line.
/// `warn` receives the reading warnings.
pub fn run(
    input: Input,
    opts: ReadOptions,
    action: &Action,
    warn: &mut dyn FnMut(&Session),
    out: &mut impl Write,
) -> Result<()> {
    let writes = matches!(
        action,
        Action::Set { .. } | Action::Clear { .. } | Action::SetName(_)
    );
    let mut appender = match (&input, writes) {
        (Input::File(p), true) => Some(Appender::open(p)?),
        _ => None,
    };
    let s = Session::open(input, opts)?;
    warn(&s);
    let line = match action {
        Action::List { json } => return list(&s, *json, out),
        Action::ShowName => {
            if let Some(n) = &s.index.name {
                writeln!(out, "{n}").map_err(out_err)?;
            }
            return out.flush().map_err(out_err);
        }
        Action::Set { reference, label } => {
            if label.is_empty() {
                return Err(Error::usage(
                    "an empty label clears it in pi; say --clear to clear a label",
                ));
            }
            let target = target_id(&s, reference)?;
            label_entry(&s, &target, Some(label))
        }
        Action::Clear { reference } => {
            let target = target_id(&s, reference)?;
            label_entry(&s, &target, None)
        }
        Action::SetName(name) => session_info_entry(&s, name),
    };
    if s.version() < CURRENT_VERSION {
        return Err(Error::request(
            &s.name,
            format!(
                "version-{} session: pi would re-number its entries when it opens it, losing this entry's target; run `pi-migrate -i` first",
                s.version()
            ),
        ));
    }
    let (id, bytes) = line;
    match appender.as_mut() {
        Some(a) => a.append_line(&bytes)?,
        None => {
            let all = s.memory().unwrap_or_default();
            out.write_all(all).map_err(out_err)?;
            if !all.is_empty() && !all.ends_with(b"\n") {
                out.write_all(b"\n").map_err(out_err)?;
            }
            out.write_all(&bytes).map_err(out_err)?;
            out.write_all(b"\n").map_err(out_err)?;
            return out.flush().map_err(out_err);
        }
    }
    writeln!(out, "{id}").map_err(out_err)?;
    out.flush().map_err(out_err)
}

fn target_id(s: &Session, reference: &str) -> Result<String> {
    let i = refs::resolve(s, reference)?;
    s.entries[i]
        .id
        .as_ref()
        .map(|id| id.to_string())
        .ok_or_else(|| {
            Error::data(
                &s.name,
                Some(s.entries[i].line),
                "this entry has no id to label",
            )
        })
}

/// The labels in force (pi's order): `ID<TAB>LABEL<TAB>SUMMARY`, or JSON lines
/// `{"id","label","line","type","text"}` (`line`/`type`/`text` null when the
/// target is not in the file).
pub fn list(s: &Session, json: bool, out: &mut impl Write) -> Result<()> {
    for l in s.index.labels.iter() {
        let target = s.index.get(&l.target);
        let text = match target {
            Some(i) => entry_summary(s, i, 80)?,
            None => "(no such entry in the file)".to_string(),
        };
        if json {
            let mut w = ObjectWriter::new();
            w.str("id", &l.target.to_string()).str("label", &l.label);
            match target {
                Some(i) => {
                    w.number("line", s.entries[i].line as f64)
                        .str("type", s.entries[i].ty.as_str())
                        .str("text", &text);
                }
                None => {
                    w.raw("line", Some(b"null"))
                        .raw("type", Some(b"null"))
                        .raw("text", Some(b"null"));
                }
            }
            out.write_all(&w.finish()).map_err(out_err)?;
            out.write_all(b"\n").map_err(out_err)?;
        } else {
            writeln!(out, "{}\t{}\t{}", l.target, l.label, text).map_err(out_err)?;
        }
    }
    out.flush().map_err(out_err)
}
