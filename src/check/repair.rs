//! What `--fix` writes: the new text of a file whose repairs need a
//! rewrite (every line it does not mean to change kept byte for byte, and
//! the lines it drops or changes handed back, for the backup or
//! `FILE.removed`), its unified diff, and the replacement content of the
//! context edits it appends.

use super::Repair;
use crate::json::js::stringify::with_member;
use crate::json::Object;
use std::collections::{BTreeMap, BTreeSet};

/// What becomes of one line of the old file.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Op {
    Drop,
    Change(Vec<u8>),
}

/// A rewrite: the new bytes, and what changed.
#[derive(Debug, Default)]
pub struct Rewritten {
    pub bytes: Vec<u8>,
    /// The old lines dropped or changed, by number, as they were (without
    /// their `\n`).
    pub removed: Vec<(u64, Vec<u8>)>,
    /// One unified diff (`-U0`) of old and new.
    pub diff: Vec<u8>,
    /// What was done, one sentence a change.
    pub said: Vec<String>,
}

/// Apply the rewrite repairs among `repairs` to `old` (named `name` in
/// the diff); None when none needs a rewrite.
pub fn rewrite(name: &str, old: &[u8], repairs: &[Repair]) -> Option<Rewritten> {
    let mut ops: BTreeMap<u64, Op> = BTreeMap::new();
    let mut lf = false;
    let mut head = None;
    let mut said = BTreeSet::new();
    for r in repairs {
        match r {
            Repair::AddHeader(h) => {
                head = Some(h.clone());
                said.insert("added a session header as line 1".to_string());
            }
            Repair::DropBom => {
                let first = super::file::lines(old).next().map_or(&[][..], |(_, l)| l);
                ops.insert(
                    1,
                    Op::Change(
                        first
                            .strip_prefix(b"\xEF\xBB\xBF")
                            .unwrap_or(first)
                            .to_vec(),
                    ),
                );
                said.insert("removed the byte order mark of line 1".to_string());
            }
            Repair::DropLine(n) => {
                ops.insert(*n, Op::Drop);
                said.insert(format!("removed line {n}"));
            }
            Repair::Lf => {
                lf = true;
                said.insert("made CR LF line ends LF".to_string());
            }
            Repair::NullParent(n) => {
                let line = super::file::lines(old)
                    .find(|(k, _)| k == n)
                    .map_or(&[][..], |(_, l)| l);
                if let Some(new) = null_parent(line) {
                    ops.insert(*n, Op::Change(new));
                    said.insert(format!("set the parentId of line {n} to null"));
                }
            }
            Repair::EmptyArguments(n, blocks) => {
                let line = super::file::lines(old)
                    .find(|(k, _)| k == n)
                    .map_or(&[][..], |(_, l)| l);
                if let Some(new) = empty_arguments(line, blocks) {
                    ops.insert(*n, Op::Change(new));
                    said.insert(format!("gave the tool calls of line {n} {{}} as arguments"));
                }
            }
            Repair::Edit { .. } => {}
        }
    }
    if ops.is_empty() && !lf && head.is_none() {
        return None;
    }
    let mut w = Rewritten::default();
    if let Some(h) = head {
        w.diff.extend_from_slice(b"@@ -0,0 +1,1 @@\n+");
        w.diff.extend_from_slice(&h);
        w.diff.push(b'\n');
        w.bytes = h;
        w.bytes.push(b'\n');
    }
    Some(apply(name, old, &ops, lf, said.into_iter().collect(), w))
}

/// The line with its (last) `parentId` value made `null`.
fn null_parent(line: &[u8]) -> Option<Vec<u8>> {
    let obj = Object::parse_line(line).ok()??;
    let r = obj.get("parentId")?;
    let mut out = line[..r.start].to_vec();
    out.extend_from_slice(b"null");
    out.extend_from_slice(&line[r.end..]);
    Some(out)
}

/// The line with the `arguments` of content blocks `blocks` of its
/// message made `{}` (added where absent); every other byte kept.
fn empty_arguments(line: &[u8], blocks: &[usize]) -> Option<Vec<u8>> {
    let obj = Object::parse_line(line).ok()??;
    let msg = obj.object("message")?;
    let els = crate::json::scan::elements(line, msg.get("content")?).ok()?;
    // (where, how many bytes replaced, by what), back to front
    let mut edits = Vec::new();
    for &k in blocks {
        let b = Object::at(line, els.get(k)?.clone()).ok()?;
        match b.get("arguments") {
            Some(r) => edits.push((r.start, r.len(), b"{}".to_vec())),
            None => edits.push((b.range.end - 1, 0, b",\"arguments\":{}".to_vec())),
        }
    }
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = line.to_vec();
    for (at, len, by) in edits {
        out.splice(at..at + len, by);
    }
    Some(out)
}

fn apply(
    name: &str,
    old: &[u8],
    ops: &BTreeMap<u64, Op>,
    lf: bool,
    said: Vec<String>,
    mut w: Rewritten,
) -> Rewritten {
    w.said = said;
    // A header put first is new line 1.
    let mut new_line = u64::from(!w.bytes.is_empty());
    for (n, line) in super::file::lines(old) {
        let ends = line_has_newline(old, line);
        let op = match ops.get(&n) {
            Some(op) => Some(op.clone()),
            None if lf && line.ends_with(b"\r") => {
                Some(Op::Change(line[..line.len() - 1].to_vec()))
            }
            None => None,
        };
        let op = match op {
            Some(Op::Change(c)) if lf && c.ends_with(b"\r") => {
                Some(Op::Change(c[..c.len() - 1].to_vec()))
            }
            other => other,
        };
        match op {
            None => {
                new_line += 1;
                w.bytes.extend_from_slice(line);
                if ends {
                    w.bytes.push(b'\n');
                }
            }
            Some(Op::Drop) => {
                hunk(&mut w.diff, n, new_line, 0, line, None);
                w.removed.push((n, line.to_vec()));
            }
            Some(Op::Change(c)) => {
                new_line += 1;
                hunk(&mut w.diff, n, new_line, 1, line, Some(&c));
                w.removed.push((n, line.to_vec()));
                w.bytes.extend_from_slice(&c);
                if ends {
                    w.bytes.push(b'\n');
                }
            }
        }
    }
    if !w.diff.is_empty() {
        let mut head = format!("--- {name}\n+++ {name}\n").into_bytes();
        head.append(&mut w.diff);
        w.diff = head;
    }
    w
}

/// Whether `line` (a slice of `all`) is followed by a `\n`.
fn line_has_newline(all: &[u8], line: &[u8]) -> bool {
    let end = line.as_ptr() as usize - all.as_ptr() as usize + line.len();
    all.get(end) == Some(&b'\n')
}

/// One `-U0` hunk: old line `n` removed, and `new` (if any) as new line
/// `at` (or after new line `at` when nothing is added).
fn hunk(out: &mut Vec<u8>, n: u64, at: u64, count: u64, old: &[u8], new: Option<&[u8]>) {
    out.extend_from_slice(format!("@@ -{n},1 +{at},{count} @@\n").as_bytes());
    out.push(b'-');
    out.extend_from_slice(old);
    out.push(b'\n');
    if let Some(new) = new {
        out.push(b'+');
        out.extend_from_slice(new);
        out.push(b'\n');
    }
}

/// The blocks of the message `json`'s content array, as text.
fn content_blocks(json: &[u8]) -> Option<Vec<Vec<u8>>> {
    let obj = Object::parse_line(json).ok()??;
    let r = obj.get("content")?;
    let els = crate::json::scan::elements(json, r).ok()?;
    Some(els.into_iter().map(|e| json[e].to_vec()).collect())
}

/// `{"content":[...]}`: the message's content with block `k` (of `which`)
/// given the member `f(k)` (key, value).
pub fn content_with(
    json: &[u8],
    which: &[usize],
    f: impl Fn(usize) -> Option<(&'static [u8], Vec<u8>)>,
) -> Option<Vec<u8>> {
    let mut blocks = content_blocks(json)?;
    for &k in which {
        let (key, value) = f(k)?;
        let key = std::str::from_utf8(key).ok()?;
        let b = blocks.get_mut(k)?;
        *b = with_member(b, key, Some(&value));
    }
    Some(replacement(&blocks))
}

/// `{"content":[...]}`: the message's content with block `k` (of
/// `which`) replaced by a text block saying `text(k)`.
pub fn replace_blocks(
    json: &[u8],
    which: &[usize],
    text: impl Fn(usize) -> String,
) -> Option<Vec<u8>> {
    let mut blocks = content_blocks(json)?;
    for &k in which {
        let b = blocks.get_mut(k)?;
        let t = serde_json::to_string(&text(k)).ok()?;
        *b = format!("{{\"type\":\"text\",\"text\":{t}}}").into_bytes();
    }
    Some(replacement(&blocks))
}

fn replacement(blocks: &[Vec<u8>]) -> Vec<u8> {
    let mut out = b"{\"content\":[".to_vec();
    out.extend_from_slice(&blocks.join(&b","[..]));
    out.extend_from_slice(b"]}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewrite_keeps_every_other_byte_and_hands_back_what_it_changed() {
        let old = b"\xEF\xBB\xBF{\"type\":\"session\"}\r\n{\"a\":1,\"parentId\":\"x\"}\r\nnot json";
        let reps = [
            Repair::DropBom,
            Repair::Lf,
            Repair::NullParent(2),
            Repair::DropLine(3),
        ];
        let w = rewrite("t", old, &reps).unwrap();
        assert_eq!(
            w.bytes,
            b"{\"type\":\"session\"}\n{\"a\":1,\"parentId\":null}\n"
        );
        assert_eq!(w.removed.len(), 3);
        assert_eq!(w.removed[2], (3, b"not json".to_vec()));
        let diff = String::from_utf8_lossy(&w.diff);
        assert!(diff.contains("@@ -3,1 +2,0 @@\n-not json\n"), "{diff}");
        // Only CR LF: every other byte stays.
        let w = rewrite("t", b"{}\r\n{}\n", &[Repair::Lf]).unwrap();
        assert_eq!(w.bytes, b"{}\n{}\n");
        assert_eq!(w.removed, vec![(1, b"{}\r".to_vec())]);
        assert!(rewrite("t", b"{}\n", &[]).is_none());
    }

    #[test]
    fn content_blocks_are_patched_in_place() {
        let m = br#"{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"toolCall","id":"c","name":"read","arguments":null}]}"#;
        let r = content_with(m, &[1], |_| Some((b"arguments".as_slice(), b"{}".to_vec()))).unwrap();
        assert_eq!(
            String::from_utf8(r).unwrap(),
            r#"{"content":[{"type":"text","text":"hi"},{"type":"toolCall","id":"c","name":"read","arguments":{}}]}"#
        );
        let line = br#"{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","arguments" : null},{"type":"toolCall"}]}}"#;
        assert_eq!(
            String::from_utf8(empty_arguments(line, &[0, 1]).unwrap()).unwrap(),
            r#"{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","arguments" : {}},{"type":"toolCall","arguments":{}}]}}"#
        );
        let r = replace_blocks(m, &[0], |_| "gone".into()).unwrap();
        assert!(r.starts_with(br#"{"content":[{"type":"text","text":"gone"},"#));
    }
}
