//! `pi-label`: set, clear and list labels, and name the session, by
//! appending the entries pi's `appendLabelChange` and `appendSessionInfo` write.

use crate::append::{
    fresh_id, label_line, now_json, require_current, session_info_line, Transaction,
};
use crate::cli::{session_required, Ctx, Exit, Log, Out, SessionArgs};
use crate::error::{Error, Result};
use crate::json::ObjectWriter;
use crate::refs;
use crate::session::{Input, ReadOptions, Session};
use crate::summary::entry_summary;
use clap::Parser;
use std::io::Write;

const EXAMPLES: &str = concat!(
    "\
Examples:
  pi-label s.jsonl leaf~2 checkpoint        bookmark the message two before the last
  pi-label s.jsonl @checkpoint --clear      remove that bookmark
  pi-label s.jsonl --list                   ID, LABEL and a summary, tab separated
  pi-label s.jsonl --list --json | jq -r .label
  pi-label s.jsonl --name 'parser rewrite'  name the session (what pi's /name does)
  pi-label s.jsonl --name                   print the session's name
  pi-label - 3f2a reviewed < s.jsonl > out.jsonl
                                            stdin: the session plus the new entry on stdout

The new entry's parent is the last entry of the file (pi's leaf), so pi
continues where it was. Prints the new entry's id, before the entry is
appended: if printing fails (a full disk, > /dev/full), nothing is appended.
Labels and names are safe while pi runs on the session (pi reads them from
every entry, on or off its branch), so pi-label never refuses a live session.
When the file does not end with a newline (pi may be writing its last line),
waits up to 1 s for the line to end before starting a fresh one after it.
--list text: tabs, line breaks, control characters and backslashes in ids,
labels and summaries are written as \\t, \\n, \\xNN and \\\\ (--json: as they are).
--name prints the name with its control characters written the same way
(a backslash as it is).

",
    crate::cli::help::help_ref!(),
    "\n",
    crate::cli::help::help_max_line!(),
    "\n",
    crate::cli::help::help_exit!(),
    crate::cli::help::exact_to_pi!()
);

/// Set, clear and list labels (bookmarks) and the session name of a pi session.
///
/// Labels mark entries so that you can come back to them (pi shows them in
/// /tree; every tool here accepts @NAME as a reference). Writing appends one
/// entry to the file in place, exactly as pi writes it; a version 1 or 2 file
/// must be migrated first (pi-migrate -i).
#[derive(Parser, Debug)]
#[command(name = "pi-label", version, after_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    pub input: SessionArgs,

    /// The entry to label or unlabel (a REF).
    #[arg(value_name = "REF")]
    pub reference: Option<String>,

    /// The label to set.
    #[arg(value_name = "NAME")]
    pub label: Option<String>,

    /// Remove the label of REF.
    #[arg(long, requires = "reference", conflicts_with = "label")]
    pub clear: bool,

    /// List the labels in force (last wins), in pi's order.
    #[arg(long, conflicts_with_all = ["reference", "name"])]
    pub list: bool,

    /// With --list: JSON lines {id, label, line, type, text}.
    #[arg(long, requires = "list")]
    pub json: bool,

    /// Name the session (trimmed, as pi does); without a value, print its name.
    #[arg(long, value_name = "NAME", num_args = 0..=1, conflicts_with = "reference")]
    pub name: Option<Option<String>>,
}

impl Args {
    fn action(&self) -> Result<Action, Error> {
        Ok(match (&self.reference, &self.label, &self.name) {
            _ if self.list => Action::List { json: self.json },
            (None, None, Some(Some(n))) => Action::SetName(n.clone()),
            (None, None, Some(None)) => Action::ShowName,
            (Some(r), None, None) if self.clear => Action::Clear {
                reference: r.clone(),
            },
            (Some(r), Some(l), None) => Action::Set {
                reference: r.clone(),
                label: l.clone(),
            },
            (Some(_), None, None) => {
                return Err(Error::usage("give a label NAME after REF, or --clear"))
            }
            _ => {
                return Err(Error::usage(
                    "say what to do: REF NAME, REF --clear, --list or --name",
                ))
            }
        })
    }
}

crate::cli::impl_tool! { Args, "pi-label", quiet = input.quiet, adjust = session_required }

/// `pi-label`: set, clear or list labels, or name the session.
pub(crate) fn run(args: &Args, ctx: &mut Ctx) -> Result<Exit> {
    let (action, input) = (args.action()?, args.input.input()?);
    apply(
        input,
        args.input.read_options(),
        &action,
        ctx.log,
        ctx.out(),
    )?;
    Ok(Exit::Ok)
}

/// What to do.
#[derive(Debug, Clone)]
pub(crate) enum Action {
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

/// The entry pi-label appends, before its parent is known (the leaf at
/// the moment of writing: see [`crate::append::Transaction::leaf_now`]).
enum NewEntry {
    /// pi's `appendLabelChange(target, label)` (label None: cleared);
    /// `target` is the id's JSON text.
    Label {
        target: String,
        label: Option<String>,
    },
    /// pi's `appendSessionInfo(name)`.
    Name(String),
}

impl NewEntry {
    /// The line, with `parent` as its `parentId` (JSON text; None: left out).
    fn line(&self, id: &str, parent: Option<&[u8]>) -> Vec<u8> {
        match self {
            NewEntry::Label { target, label } => label_line(
                id,
                parent,
                Some(&now_json()),
                target.as_bytes(),
                label.as_deref().map(crate::migrate::json_str).as_deref(),
            ),
            NewEntry::Name(name) => session_info_line(id, parent, name),
        }
    }
}

/// Run `pi-label` on a session input. File input is locked only while it
/// is appended to; stdin input is echoed to stdout with the new line.
/// `log` receives the reading warnings.
pub(crate) fn apply(
    input: Input,
    opts: ReadOptions,
    action: &Action,
    log: Log,
    out: &mut impl Write,
) -> Result<()> {
    if let Input::File(path) = &input {
        // The new id is printed before the entry is appended: an output
        // that fails leaves the file as it was.
        let mut say = |id: &str| crate::cli::Out::announce(out, format!("{id}\n").as_bytes());
        if fast::run(path, opts, action, &mut say)?.is_some() {
            return Ok(());
        }
    }
    let writes = matches!(
        action,
        Action::Set { .. } | Action::Clear { .. } | Action::SetName(_)
    );
    let tx = match (&input, writes) {
        (Input::File(p), true) => Some(Transaction::open(p)?),
        _ => None,
    };
    let s = Session::open(input, opts)?;
    log.warn_all(&s.warnings);
    let entry = match action {
        Action::List { json } => return list(&s, *json, out),
        Action::ShowName => {
            if let Some(n) = &s.index.name {
                // Session text: its control characters (a line break too)
                // shown, never written raw.
                out.line(crate::visible::text(n).as_bytes())?;
            }
            return out.done();
        }
        Action::Set { reference, label } => {
            if label.is_empty() {
                return Err(Error::usage(
                    "an empty label clears it in pi; say --clear to clear a label",
                ));
            }
            NewEntry::Label {
                target: target_id(&s, reference)?,
                label: Some(label.clone()),
            }
        }
        Action::Clear { reference } => NewEntry::Label {
            target: target_id(&s, reference)?,
            label: None,
        },
        Action::SetName(name) => NewEntry::Name(name.clone()),
    };
    require_current(&s.name, s.version())?;
    let id = fresh_id(&s.index, &[]);
    crate::append::write_new_lines(
        tx,
        &s,
        format!("{id}\n").as_bytes(),
        |parent| entry.line(&id, parent),
        out,
    )
}

/// The JSON text of the id of the entry `reference` names.
fn target_id(s: &Session, reference: &str) -> Result<String> {
    let i = refs::resolve(s, reference)?;
    s.entries.id(i).map(|id| id.to_json()).ok_or_else(|| {
        Error::data(
            &s.name,
            Some(s.entries[i].line()),
            "this entry has no id to label",
        )
    })
}

/// The labels in force (pi's order): `ID<TAB>LABEL<TAB>SUMMARY`, or JSON lines
/// `{"id","label","line","type","text"}` (`line`/`type`/`text` null when the
/// target is not in the file).
pub(crate) fn list(s: &Session, json: bool, out: &mut impl Write) -> Result<()> {
    for l in s.index.labels.iter() {
        let target = s.index.get(&l.target);
        let text = match target {
            Some(i) => entry_summary(s, i, 80)?,
            None => "(no such entry in the file)".to_string(),
        };
        if json {
            let mut w = ObjectWriter::new();
            w.str("id", &l.target.to_string())
                .raw("label", Some(&s.label_value(l)?));
            match target {
                Some(i) => {
                    w.number("line", s.entries[i].line() as f64)
                        .str("type", s.type_name(i))
                        .str("text", &text);
                }
                None => {
                    w.raw("line", Some(b"null"))
                        .raw("type", Some(b"null"))
                        .raw("text", Some(b"null"));
                }
            }
            out.line(&w.finish())?;
        } else {
            // One line of three fields whatever they hold: tabs, line
            // breaks, other control characters and backslashes escaped.
            let esc = crate::error::escape_name;
            out.text(format_args!(
                "{}\t{}\t{}\n",
                esc(&l.target.to_string()),
                esc(&l.label),
                esc(&text)
            ))?;
        }
    }
    out.done()
}

/// Labels and names on large files without reading them whole: the header,
/// one byte scan for the target id (and for the new id, which must be
/// unused), and the file's tail for the last entry. Only for a full id or
/// `leaf` and files of [`fast::MIN_SIZE`] or more; anything else, and any
/// file this path cannot vouch for, goes the ordinary way. The price: the
/// warnings about lines in the middle of the file (skipped lines, duplicate
/// ids, ...) that a full read prints are not printed, since those lines are
/// never parsed.
mod fast {
    use super::{Action, NewEntry};
    use crate::append::{fresh_id, Transaction};
    use crate::error::{Error, Result};
    use crate::index::Index;
    use crate::json::Object;
    use crate::migrate::CURRENT_VERSION;
    use crate::refs::{Base, Ref};
    use crate::session::{self, ReadOptions};
    use std::fs::File;
    use std::io::Read;
    use std::path::Path;

    enum Target {
        Leaf,
        Id(String),
        None,
    }

    /// Smaller files are read whole (a few milliseconds), with every warning.
    pub(crate) const MIN_SIZE: u64 = 8 << 20;

    /// Append the entry and return its id, or None to take the slow path.
    /// `before` is called with the new id right before the append; an
    /// error from it stops the run with nothing appended.
    pub(crate) fn run(
        path: &Path,
        opts: ReadOptions,
        action: &Action,
        before: &mut dyn FnMut(&str) -> Result<()>,
    ) -> Result<Option<String>> {
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() && m.len() >= MIN_SIZE => run_any_size(path, opts, action, before),
            _ => Ok(None),
        }
    }

    /// [`run`] without the size limit.
    pub(crate) fn run_any_size(
        path: &Path,
        opts: ReadOptions,
        action: &Action,
        before: &mut dyn FnMut(&str) -> Result<()>,
    ) -> Result<Option<String>> {
        if opts.strict {
            return Ok(None);
        }
        let target = match action {
            Action::Set { reference, label } if !label.is_empty() => target_of(reference),
            Action::Clear { reference } => target_of(reference),
            Action::SetName(_) => Some(Target::None),
            _ => None,
        };
        let Some(target) = target else {
            return Ok(None);
        };
        let name = crate::name::kept_path(path).into_owned();
        // Opened before reading, as the slow path does: what pi appends
        // meanwhile is read again under the lock, at the write.
        let tx = Transaction::open(path)?;
        let file = File::open(path).map_err(|e| Error::io(&name, &e))?;
        let Some((header, warnings)) = session::read_header(&file, &name, opts)? else {
            return Ok(None);
        };
        if !warnings.is_empty() || header.version != CURRENT_VERSION {
            return Ok(None);
        }
        let body = header.offset + header.len;
        // A last line too long to read (or any failure here): the full
        // read says what and where.
        let Ok(last) = session::last_entry(&file, &name, body) else {
            return Ok(None);
        };
        // pi's leafId as JSON; a leaf without a string id (rare) is left
        // to the full read.
        let parent = match &last {
            None => b"null".to_vec(),
            Some((_, Some(id @ (crate::entry::Id::Hex8(_) | crate::entry::Id::Other(_))))) => {
                id.to_json().into_bytes()
            }
            Some(_) => return Ok(None),
        };
        let target = match target {
            Target::Leaf => match last.and_then(|(_, id)| id) {
                Some(id) => Some(id.to_string()),
                None => return Ok(None),
            },
            Target::Id(id) => Some(id),
            Target::None => None,
        };
        let new_id = fresh_id(&Index::default(), &[]);
        let want = match &target {
            Some(t) if !matches!(action, Action::SetName(_)) => Some(t.as_str()),
            _ => None,
        };
        let Ok((found, collides)) = scan(&file, &name, body, want, &new_id) else {
            return Ok(None);
        };
        if collides || (want.is_some() && !found) {
            return Ok(None);
        }
        let target = crate::migrate::json_str(target.as_deref().unwrap_or(""));
        let entry = match action {
            Action::Set { label, .. } => NewEntry::Label {
                target: String::from_utf8_lossy(&target).into_owned(),
                label: Some(label.clone()),
            },
            Action::Clear { .. } => NewEntry::Label {
                target: String::from_utf8_lossy(&target).into_owned(),
                label: None,
            },
            Action::SetName(n) => NewEntry::Name(n.clone()),
            _ => return Ok(None),
        };
        // Said before the lock is taken: an output nobody reads holds up no
        // other writer, and a slow reader of it does not leave the entry
        // on the leaf read (the parent is the leaf under the lock).
        crate::append::check_new_lines(&name, &entry.line(&new_id, Some(&parent)))?;
        before(&new_id)?;
        tx.write_on(Some(parent), |leaf| entry.line(&new_id, leaf))?;
        Ok(Some(new_id))
    }

    /// `leaf` or a plain id (no suffixes, not a label).
    fn target_of(reference: &str) -> Option<Target> {
        if reference.starts_with('@') {
            return None;
        }
        match Ref::parse(reference).ok()? {
            Ref {
                base: Base::Leaf,
                up: 0,
            } => Some(Target::Leaf),
            Ref {
                base: Base::Id(id),
                up: 0,
            } if id == reference
                && !id.is_empty()
                && !id.contains(['"', '\\'])
                && id.chars().all(|c| !c.is_control()) =>
            {
                Some(Target::Id(id))
            }
            _ => None,
        }
    }

    /// One pass over the entries after byte `from`: whether an entry has the
    /// id `want` (its top-level `"id"`, checked by parsing the line), and
    /// whether `new_id` occurs anywhere as a JSON string.
    fn scan(
        file: &File,
        name: &str,
        from: u64,
        want: Option<&str>,
        new_id: &str,
    ) -> Result<(bool, bool)> {
        use memchr::memmem::Finder;
        let id_pat = want.map(|w| format!("\"id\":\"{w}\""));
        let id_finder = id_pat.as_ref().map(|p| Finder::new(p.as_bytes()));
        let new_pat = format!("\"{new_id}\"");
        let new_finder = Finder::new(new_pat.as_bytes());
        let overlap = id_pat.as_ref().map_or(0, |p| p.len()).max(new_pat.len());
        let mut found = want.is_none();
        let mut collides = false;
        let mut f = file;
        {
            use std::io::{Seek, SeekFrom};
            f.seek(SeekFrom::Start(from))
                .map_err(|e| Error::io(name, &e))?;
        }
        let mut buf = vec![0u8; 256 << 10];
        // buf[..filled] always starts at a line start (or at `from`).
        let mut filled = 0usize;
        // Bytes before `searched` were searched already.
        let mut searched = 0usize;
        loop {
            let n = loop {
                match f.read(&mut buf[filled..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(Error::io(name, &e)),
                }
            };
            filled += n;
            let eof = n == 0;
            let hay = &buf[..filled];
            if !collides && new_finder.find(&hay[searched..]).is_some() {
                collides = true;
            }
            // Lines wholly in the buffer: up to the last newline (or all at EOF).
            let complete = if eof {
                filled
            } else {
                memchr::memrchr(b'\n', hay).map_or(0, |p| p + 1)
            };
            if !found {
                if let Some(fi) = &id_finder {
                    let mut at = searched;
                    while let Some(m) = fi.find(&hay[at..complete]) {
                        let hit = at + m;
                        let ls = memchr::memrchr(b'\n', &hay[..hit]).map_or(0, |p| p + 1);
                        let le = memchr::memchr(b'\n', &hay[hit..complete])
                            .map_or(complete, |p| hit + p);
                        if line_has_id(&hay[ls..le], want.unwrap_or("")) {
                            found = true;
                            break;
                        }
                        at = le.min(complete);
                        if at >= complete {
                            break;
                        }
                    }
                }
            }
            if eof || (found && collides) {
                return Ok((found, collides));
            }
            // Keep the incomplete last line; search its tail again only by
            // the pattern's length.
            let keep_from = complete;
            buf.copy_within(keep_from..filled, 0);
            filled -= keep_from;
            searched = filled.saturating_sub(overlap);
            // The kept line was not searched for the id yet: search it whole.
            if !found && id_finder.is_some() {
                searched = 0;
            }
            if filled == buf.len() {
                if filled as u64 > session::max_line() {
                    // A line longer than a line may be: the full read says where.
                    return Err(Error::request(name, "a line too long"));
                }
                buf.resize(buf.len() * 2, 0);
            }
        }
    }

    /// Whether `line` is an entry (a JSON object, not a second header) whose
    /// id is `want`.
    fn line_has_id(line: &[u8], want: &str) -> bool {
        match Object::parse_line(line) {
            Ok(Some(o)) => {
                o.str("type").as_deref() != Some("session") && o.str("id").as_deref() == Some(want)
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(line: &str, key: &str) -> Option<String> {
        let v: serde_json::Value = serde_json::from_str(line).ok()?;
        Some(v.get(key)?.to_string())
    }

    /// The fast path appends what the slow path appends (parentId and
    /// targetId), or steps aside.
    #[test]
    fn fast_path_agrees_with_the_full_read() {
        let h = r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#;
        let e = |id: &str, p: &str| {
            format!(
                r#"{{"type":"message","id":"{id}","parentId":{p},"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":"x","id":"aaaa0005"}}}}"#
            )
        };
        let sessions: Vec<(String, &str)> = vec![
            (format!("{h}\n{}\n{}\n", e("aaaa0001", "null"), e("aaaa0002", "\"aaaa0001\"")), "aaaa0001"),
            (format!("{h}\n{}\n{}\n\n  \n", e("aaaa0001", "null"), e("aaaa0002", "\"aaaa0001\"")), "leaf"),
            (format!("{h}\n{}\n{}\n{{\"type\":\"message\",\"id\":\"aaaa0003\"", e("aaaa0001", "null"), e("aaaa0002", "\"aaaa0001\"")), "aaaa0002"),
            (format!("{h}\n{}\n{}\nnot json\n[1]\n", e("aaaa0001", "null"), e("aaaa0002", "\"aaaa0001\"")), "leaf"),
            (format!("{h}\n{}\n{h}\n", e("aaaa0001", "null")), "leaf"),
            (format!("{h}\n{}\n{}", e("aaaa0001", "null"), e("aaaa0002", "\"aaaa0001\"")), "aaaa0002"),
            // The id only inside a nested object: no such entry.
            (format!("{h}\n{}\n", e("aaaa0001", "null")), "aaaa0005"),
            // Duplicate keys: the last id wins.
            (format!("{h}\n{{\"type\":\"custom\",\"id\":\"aaaa0007\",\"id\":\"aaaa0008\",\"parentId\":null}}\n"), "aaaa0007"),
            (format!("{h}\n{{\"type\":\"custom\",\"id\":\"aaaa0007\",\"id\":\"aaaa0008\",\"parentId\":null}}\n"), "aaaa0008"),
            // The header's id is no entry's.
            (format!("{h}\n{}\n", e("aaaa0001", "null")), "s1"),
            (format!("{h}\n"), "leaf"),
            (format!("\u{feff}{h}\r\n{}\r\n", e("aaaa0001", "null")), "leaf"),
            (format!("{{\"type\":\"session\",\"id\":\"s1\"}}\n{}\n", e("aaaa0001", "null")), "aaaa0001"),
        ];
        let dir = std::env::temp_dir().join(format!("pst-label-fast-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut taken = 0;
        for (k, (text, reference)) in sessions.iter().enumerate() {
            for action in [
                Action::Set {
                    reference: reference.to_string(),
                    label: "L".into(),
                },
                Action::Clear {
                    reference: reference.to_string(),
                },
                Action::SetName(" n ".into()),
            ] {
                let fast = dir.join(format!("{k}-fast.jsonl"));
                let slow = dir.join(format!("{k}-slow.jsonl"));
                std::fs::write(&fast, text).unwrap();
                std::fs::write(&slow, text).unwrap();
                let f = fast::run_any_size(&fast, ReadOptions::default(), &action, &mut |_| Ok(()));
                let s = apply(
                    Input::File(slow.clone()),
                    ReadOptions::default(),
                    &action,
                    Log {
                        tool: "test",
                        quiet: true,
                    },
                    &mut Vec::new(),
                );
                match f {
                    Ok(Some(_)) => {
                        assert!(
                            s.is_ok(),
                            "case {k} {action:?}: fast path wrote, full read failed"
                        );
                        let a = std::fs::read_to_string(&fast).unwrap();
                        let b = std::fs::read_to_string(&slow).unwrap();
                        let (la, lb) = (a.lines().last().unwrap(), b.lines().last().unwrap());
                        for key in ["type", "parentId", "targetId", "label", "name"] {
                            assert_eq!(field(la, key), field(lb, key), "case {k} {action:?} {key}");
                        }
                        assert_eq!(a.len(), b.len(), "case {k} {action:?}");
                        taken += 1;
                    }
                    Ok(None) => {}
                    // Refused both ways (a byte order mark: pi 1.6 refuses the file).
                    Err(e)
                        if s.as_ref()
                            .is_err_and(|se| se.diag.message == e.diag.message) => {}
                    Err(e) => panic!("case {k} {action:?}: fast path error {e:?}"),
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
        assert!(taken >= 20, "the fast path was taken {taken} times");
    }
}
