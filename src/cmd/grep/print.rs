//! What a match prints, by mode: `PATH:ID:ROLE/FIELD: LINE` (coloured,
//! under a path heading, with context lines and `--` between groups), the
//! matched parts alone, the path (`-l`), or a JSON object.

use super::{Mode, Options};
use crate::error::Diagnostic;
use crate::json::{js, ObjectWriter};

/// What one file gave.
#[derive(Default)]
pub(super) struct FileOut {
    pub(super) out: Vec<u8>,
    pub(super) warnings: Vec<Diagnostic>,
    pub(super) error: Option<Diagnostic>,
    pub(super) matched: bool,
    /// Not searched: outside --since/--until, or not a session (-L does
    /// not list it).
    pub(super) skipped: bool,
}

/// The printing side of one session's search: where its output goes, and
/// how far it has gone (the search stops when `done`).
pub(super) struct Printer<'a> {
    pub(super) opts: &'a Options,
    pub(super) name: &'a str,
    /// `name` as the text modes print it, once per file: control
    /// characters shown, bytes that are not UTF-8 as they are (as rg).
    pub(super) shown_name: Vec<u8>,
    pub(super) session_id: String,
    pub(super) fo: &'a mut FileOut,
    /// Matching lines so far.
    pub(super) count: u64,
    /// `-m` reached, or `-l`, `-L` or `-q` found one.
    pub(super) done: bool,
    /// The last line printed with context: (entry line, text index, text line).
    pub(super) last_ctx: Option<(u64, usize, usize)>,
}

impl Printer<'_> {
    /// `--` before a group of lines that does not follow the last one.
    pub(super) fn separator(&mut self, info: &Info<'_>, k: usize) {
        if let Some((el, ti, kl)) = self.last_ctx {
            if !(el == info.line && ti == info.text_index && kl + 1 >= k) {
                self.fo.out.extend_from_slice(b"--\n");
            }
        }
    }

    pub(super) fn context(&mut self, info: &Info<'_>, k: usize, l: &str) {
        self.separator(info, k);
        self.prefix(info, b'-');
        self.fo.out.extend_from_slice(shown(l).as_bytes());
        self.fo.out.push(b'\n');
        self.last_ctx = Some((info.line, info.text_index, k));
    }

    fn prefix(&mut self, info: &Info<'_>, sep: u8) {
        let color = self.opts.color;
        let out = &mut self.fo.out;
        // A path, an id: every control character shown, tabs too; a
        // path's bytes that are not UTF-8 written as they are (as rg).
        let paint = |out: &mut Vec<u8>, code: &str, s: &[u8]| {
            if color {
                out.extend_from_slice(format!("\x1b[{code}m").as_bytes());
            }
            out.extend_from_slice(s);
            if color {
                out.extend_from_slice(b"\x1b[0m");
            }
        };
        let name = &self.shown_name;
        if self.opts.heading {
            if out.is_empty() {
                paint(out, "35", name);
                out.push(b'\n');
            }
        } else if self.opts.filename {
            paint(out, "35", name);
            out.push(sep);
        }
        if self.opts.line_number {
            paint(out, "32", info.line.to_string().as_bytes());
            out.push(sep);
        }
        paint(
            out,
            "32",
            crate::visible::text(info.id.unwrap_or("")).as_bytes(),
        );
        out.push(sep);
        let who = format!("{}/{}", info.who, info.field);
        paint(out, "36", crate::visible::text(&who).as_bytes());
        out.push(sep);
        out.push(b' ');
    }

    /// The session's path as `-l` and `-L` print it: -0 is for programs
    /// (xargs -0), the name as it is; else shown, on a line.
    pub(super) fn path(&mut self) {
        if self.opts.null {
            let name = crate::name::bytes_of_kept(self.name);
            self.fo.out.extend_from_slice(&name);
            self.fo.out.push(0);
        } else {
            self.fo.out.extend_from_slice(&self.shown_name);
            self.fo.out.push(b'\n');
        }
    }

    /// A matching line.
    pub(super) fn matched(&mut self, info: &Info<'_>, k: usize, l: &str) {
        self.fo.matched = true;
        self.count += 1;
        if self.opts.max_count.is_some_and(|m| self.count >= m) {
            self.done = true;
        }
        let re = &self.opts.matcher.re;
        match self.opts.mode {
            Mode::Files => {
                self.path();
                self.done = true;
            }
            Mode::Count => {}
            // the first match settles it: this session is not listed (-L),
            // the answer is known (-q)
            Mode::FilesWithout | Mode::Quiet => self.done = true,
            Mode::Lines => {
                self.prefix(info, b':');
                if self.opts.color {
                    let mut at = 0;
                    for m in re.find_iter(l) {
                        if m.is_empty() {
                            continue;
                        }
                        self.fo
                            .out
                            .extend_from_slice(shown(&l[at..m.start()]).as_bytes());
                        self.fo.out.extend_from_slice(b"\x1b[1;31m");
                        self.fo.out.extend_from_slice(shown(m.as_str()).as_bytes());
                        self.fo.out.extend_from_slice(b"\x1b[0m");
                        at = m.end();
                    }
                    self.fo.out.extend_from_slice(shown(&l[at..]).as_bytes());
                } else {
                    self.fo.out.extend_from_slice(shown(l).as_bytes());
                }
                self.fo.out.push(b'\n');
            }
            Mode::Only => {
                for m in re.find_iter(l) {
                    if m.is_empty() {
                        continue;
                    }
                    self.prefix(info, b':');
                    self.fo.out.extend_from_slice(shown(m.as_str()).as_bytes());
                    self.fo.out.push(b'\n');
                }
            }
            Mode::Json => {
                let mut w = ObjectWriter::new();
                w.raw("path", Some(&crate::name::json(self.name)));
                w.str("session", &self.session_id);
                match info.id {
                    Some(id) => w.str("id", id),
                    None => w.raw("id", Some(b"null")),
                };
                w.number("line", info.line as f64);
                match info.ty {
                    Some(t) => w.str("type", t),
                    None => w.raw("type", Some(b"null")),
                };
                match info.role {
                    Some(r) => w.str("role", r),
                    None => w.raw("role", Some(b"null")),
                };
                w.str("field", info.field);
                w.raw(
                    "timestamp",
                    Some(info.timestamp.as_deref().unwrap_or(b"null")),
                );
                w.number("textLine", (k + 1) as f64);
                w.str("text", l);
                let mut subs = b"[".to_vec();
                for m in re.find_iter(l) {
                    if subs.len() > 1 {
                        subs.push(b',');
                    }
                    subs.extend_from_slice(b"{\"match\":{\"text\":");
                    js::write_str(&mut subs, m.as_str());
                    subs.extend_from_slice(
                        format!("}},\"start\":{},\"end\":{}}}", m.start(), m.end()).as_bytes(),
                    );
                }
                subs.push(b']');
                w.raw("submatches", Some(&subs));
                self.fo.out.extend_from_slice(&w.finish());
                self.fo.out.push(b'\n');
            }
        }
    }
}

/// A line of session text as the text modes print it: every control
/// character shown (ESC as `\x1b`), never raw, but tabs kept, as grep does.
fn shown(s: &str) -> std::borrow::Cow<'_, str> {
    crate::visible::line(s)
}

/// Where a text line is.
pub(super) struct Info<'a> {
    pub(super) line: u64,
    pub(super) id: Option<&'a str>,
    pub(super) ty: Option<&'a str>,
    pub(super) role: Option<&'a str>,
    /// The role, or the type when there is none.
    pub(super) who: &'a str,
    pub(super) field: &'static str,
    pub(super) timestamp: Option<Vec<u8>>,
    pub(super) text_index: usize,
}
