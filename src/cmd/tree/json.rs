//! `pi-tree --json`: `JSON.stringify(getTree())`, written without
//! recursion, in batches (on two threads for a large file), or with the
//! kernel copying the lines pi wrote straight from the session file to
//! standard output (see [`crate::gather`]).

use crate::cli::{Log, Out};
use crate::entry::Entry;
use crate::error::{Diagnostic, Error, Result};
use crate::json::{js, scan};
use crate::render::lines::{reopen, FileLines, LineSource, SessionLines};
use crate::session::Session;
use crate::tree::{Step, Tree};
use std::fs::File;
use std::io::Write;

/// `JSON.stringify(getTree())`, written without recursion.
///
/// The walk (main thread) cuts the output into batches: which nodes open
/// and close, commas, labels. Rendering a batch (reading its lines, the
/// quick check, the copy) is most of the work; for a file, a second thread
/// renders every other batch from its own read window while this one
/// renders the next and writes both in order.
pub(super) fn write_json(s: &Session, tree: &Tree, out: &mut impl Write, log: Log) -> Result<()> {
    let mut cut = Cutter {
        s,
        walk: tree.steps(),
        after_leave: false,
        // Batches of about 1/1024 of the file (64 KB to 1 MB): few
        // hand-overs between the threads, little memory next to the entries.
        size: (size_of(s) / 1024).clamp(64 << 10, 1 << 20) as usize,
    };
    out.bytes(b"[")?;
    let file = reopen(s);
    match &file {
        None => write_batches(s, &mut SessionLines(s), &mut cut, out, log)?,
        // The second thread's buffers (three batches, a read window) are
        // little next to a large file; for a smaller one the memory counts
        // more than the time.
        Some(f) if size_of(s) >= TWO_THREADS_FROM => {
            write_batches_two_threads(s, f, &mut cut, out, log)?
        }
        Some(f) => {
            let mut src = FileLines::new(f, &s.entries, &s.name);
            write_batches(s, &mut src, &mut cut, out, log)?
        }
    }
    out.bytes(b"]\n")?;
    out.done()
}

/// [`write_json`] to a file descriptor, the lines that are already
/// `JSON.stringify`'s text (all of them, in a file pi wrote) copied by the
/// kernel straight from the session file: this process reads only the
/// few others.
#[cfg(unix)]
pub(super) fn write_json_gathered(
    s: &Session,
    tree: &Tree,
    file: &File,
    fd: i32,
    log: Log,
) -> Result<()> {
    use crate::gather::{Gather, Piece};
    // The file shrinking under us is the session's error; any other is
    // the output's.
    let err = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => Error::io(&s.name, &e),
        _ => Error::output(e),
    };
    let mut gather = Gather::new(fd, file, size_of(s)).map_err(err)?;
    let mut cut = Cutter {
        s,
        walk: tree.steps(),
        after_leave: false,
        // The pages the kernel maps in to copy a batch's lines stay until
        // the batch is written: small batches keep them few.
        size: gather.release_every() as usize,
    };
    let mut src = FileLines::new(file, &s.entries, &s.name);
    let mut checker = js::check::Checker::new();
    let mut b = Batch::default();
    let all = |b: &[u8]| Piece::Own {
        start: 0,
        end: b.len() as u32,
    };
    gather.write(b"[", &[all(b"[")]).map_err(err)?;
    loop {
        cut.fill(&mut b, log)?;
        if b.evs.is_empty() {
            break;
        }
        b.render_pieces(&s.entries, &s.name, &mut checker, &mut src)?;
        gather.write(&b.out, &b.pieces).map_err(err)?;
    }
    gather.write(b"]\n", &[all(b"]\n")]).map_err(err)
}

/// From this size on, `--json` renders on two threads.
const TWO_THREADS_FROM: u64 = 256 << 20;

/// About how many bytes the session's entries take in its file.
fn size_of(s: &Session) -> u64 {
    s.entries
        .last()
        .map_or(0, |e| e.offset() + u64::from(e.byte_len()))
}

fn write_batches(
    s: &Session,
    src: &mut impl LineSource,
    cut: &mut Cutter<'_>,
    out: &mut impl Write,
    log: Log,
) -> Result<()> {
    let mut checker = js::check::Checker::new();
    let mut b = Batch::default();
    loop {
        cut.fill(&mut b, log)?;
        if b.evs.is_empty() {
            return Ok(());
        }
        b.render(s, &mut checker, src)?;
        out.bytes(&b.out)?;
    }
}

fn write_batches_two_threads(
    s: &Session,
    file: &File,
    cut: &mut Cutter<'_>,
    out: &mut impl Write,
    log: Log,
) -> Result<()> {
    use std::sync::mpsc::sync_channel;
    let (entries, name) = (&s.entries[..], &s.name[..]);
    std::thread::scope(|scope| {
        let (job_tx, job_rx) = sync_channel::<Batch>(1);
        let (done_tx, done_rx) = sync_channel::<(Batch, Result<()>)>(1);
        let mut src = FileLines::new(file, entries, name);
        scope.spawn(move || {
            let mut checker = js::check::Checker::new();
            for mut b in job_rx {
                let r = b.render_with(entries, name, &mut checker, &mut src);
                if done_tx.send((b, r)).is_err() {
                    break;
                }
            }
        });
        let mut src = FileLines::new(file, entries, name);
        let mut checker = js::check::Checker::new();
        let gone = || Error::request(name, "the second writer thread stopped");
        // Batch a goes to the other thread, batch b is rendered here; a
        // comes before b in the output.
        let mut a = Batch::default();
        cut.fill(&mut a, log)?;
        let mut in_flight = !a.evs.is_empty();
        if in_flight {
            job_tx.send(a).map_err(|_| gone())?;
        }
        let mut b = Batch::default();
        let mut spare = Batch::default();
        while in_flight {
            cut.fill(&mut b, log)?;
            let mine = b.render_with(entries, name, &mut checker, &mut src);
            let (done, theirs) = done_rx.recv().map_err(|_| gone())?;
            theirs?;
            mine?;
            cut.fill(&mut spare, log)?;
            in_flight = !spare.evs.is_empty();
            if in_flight {
                job_tx
                    .send(std::mem::take(&mut spare))
                    .map_err(|_| gone())?;
            }
            out.bytes(&done.out)?;
            out.bytes(&b.out)?;
            spare = done;
        }
        Ok(())
    })
}

/// One event of the output, decided by the walk.
#[derive(Clone, Copy)]
enum Ev {
    /// `{"entry":LINE,"children":[`, after a comma when `comma`.
    Enter { node: u32, comma: bool },
    /// `]` + `labels[start..end]` + `}`.
    Leave { start: u32, end: u32 },
}

#[derive(Default)]
struct Batch {
    evs: Vec<Ev>,
    /// The `,"label":...` texts of the nodes that close here.
    labels: Vec<u8>,
    out: Vec<u8>,
    /// With [`Batch::render_pieces`]: the output, as parts of `out` and
    /// lines of the file.
    #[cfg(unix)]
    pieces: Vec<crate::gather::Piece>,
}

impl Batch {
    fn render(
        &mut self,
        s: &Session,
        checker: &mut js::check::Checker,
        src: &mut impl LineSource,
    ) -> Result<()> {
        self.render_with(&s.entries, &s.name, checker, src)
    }

    /// The batch as `pieces`: a line known to be `JSON.stringify`'s text
    /// is a piece of the file; the others are read, checked and, if need
    /// be, rewritten into `out` as [`Batch::render_with`] does.
    #[cfg(unix)]
    fn render_pieces(
        &mut self,
        entries: &[Entry],
        name: &str,
        checker: &mut js::check::Checker,
        src: &mut impl LineSource,
    ) -> Result<()> {
        use crate::gather::Piece;
        let Batch {
            evs,
            labels,
            out,
            pieces,
        } = self;
        out.clear();
        pieces.clear();
        let mut own = 0usize;
        let own_piece = |start: usize, end: usize| Piece::Own {
            start: start as u32,
            end: end as u32,
        };
        for &ev in evs.iter() {
            match ev {
                Ev::Enter { node, comma } => {
                    enter(out, comma);
                    let e = &entries[node as usize];
                    if e.is_canonical() {
                        pieces.push(own_piece(own, out.len()));
                        pieces.push(Piece::File {
                            offset: e.offset(),
                            len: e.byte_len(),
                        });
                        own = out.len();
                    } else {
                        entry_json(out, entries, name, node as usize, checker, src)?;
                    }
                    out.extend_from_slice(b",\"children\":[");
                }
                Ev::Leave { start, end } => leave(out, labels, start, end),
            }
        }
        pieces.push(own_piece(own, out.len()));
        if out.len() > u32::MAX as usize {
            return Err(Error::request(name, "an output batch of 4 GiB or more"));
        }
        Ok(())
    }

    fn render_with(
        &mut self,
        entries: &[Entry],
        name: &str,
        checker: &mut js::check::Checker,
        src: &mut impl LineSource,
    ) -> Result<()> {
        let Batch {
            evs, labels, out, ..
        } = self;
        out.clear();
        for &ev in evs.iter() {
            match ev {
                Ev::Enter { node, comma } => {
                    enter(out, comma);
                    entry_json(out, entries, name, node as usize, checker, src)?;
                    out.extend_from_slice(b",\"children\":[");
                }
                Ev::Leave { start, end } => leave(out, labels, start, end),
            }
        }
        Ok(())
    }
}

/// Append entry `i` as `JSON.stringify` writes it.
fn entry_json(
    out: &mut Vec<u8>,
    entries: &[Entry],
    name: &str,
    i: usize,
    checker: &mut js::check::Checker,
    src: &mut impl LineSource,
) -> Result<()> {
    let line = src.line(i)?;
    if entries[i].is_canonical() || checker.is_canonical(&line) {
        // What pi wrote is already JSON.stringify's text; the check
        // (here or while loading) also proved it valid JSON.
        out.extend_from_slice(&line);
        return Ok(());
    }
    let bad = |e: scan::SyntaxError| {
        Error::data(
            name,
            Some(entries[i].line()),
            format!("not valid JSON ({e})"),
        )
    };
    let range = scan::validate(&line).map_err(bad)?;
    js::stringify::canonical_with(checker, out, &line, range).map_err(bad)
}

/// `{"entry":`, after a comma when `comma`.
fn enter(out: &mut Vec<u8>, comma: bool) {
    out.extend_from_slice(if comma {
        b",{\"entry\":"
    } else {
        b"{\"entry\":"
    });
}

/// `]`, the node's label, `}`.
fn leave(out: &mut Vec<u8>, labels: &[u8], start: u32, end: u32) {
    out.push(b']');
    out.extend_from_slice(&labels[start as usize..end as usize]);
    out.push(b'}');
}

/// Cuts the walk into batches.
struct Cutter<'s> {
    s: &'s Session,
    walk: crate::tree::Walk<'s>,
    /// Whether the last event closed a node: the next one needs a comma (a
    /// node entered right after its parent's `[` does not).
    after_leave: bool,
    /// About how many output bytes a batch holds.
    size: usize,
}

impl Cutter<'_> {
    /// The next batch (no events at the end of the walk).
    fn fill(&mut self, b: &mut Batch, log: Log) -> Result<()> {
        let s = self.s;
        b.evs.clear();
        b.labels.clear();
        b.out.clear();
        // Room for the rendered batch, made here so that the other thread
        // need not allocate.
        b.out.reserve(self.size + self.size / 4);
        let mut bytes = 0usize;
        while bytes < self.size && b.evs.len() < 1024 {
            let Some(step) = self.walk.next() else {
                break;
            };
            match step {
                Step::Enter { node, .. } => {
                    b.evs.push(Ev::Enter {
                        node: node as u32,
                        comma: self.after_leave,
                    });
                    self.after_leave = false;
                    bytes += s.entries[node].byte_len() as usize + 24;
                }
                Step::Leave { node } => {
                    let start = b.labels.len() as u32;
                    label_json(s, node, &mut b.labels)?;
                    let end = b.labels.len() as u32;
                    b.evs.push(Ev::Leave { start, end });
                    self.after_leave = true;
                    bytes += (end - start) as usize + 2;
                }
                Step::Cycle { node, .. } => log.warn(&Diagnostic::new(
                    &s.name,
                    Some(s.entries[node].line()),
                    format!(
                        "entry {} is its own ancestor through duplicate ids; pi's JSON.stringify fails here, it is left out",
                        s.entries.id_string(node)
                    ),
                )),
            }
        }
        Ok(())
    }
}

fn label_json(s: &Session, i: usize, buf: &mut Vec<u8>) -> Result<()> {
    let Some(id) = s.entries.id(i) else {
        return Ok(());
    };
    let Some(l) = s.index.labels.get(&id) else {
        return Ok(());
    };
    buf.extend_from_slice(b",\"label\":");
    let line = s.line(l.set_by)?;
    let obj = s.object(&line, s.entries[l.set_by].line())?;
    // pi keeps the label's own value (a number, a lone surrogate escape).
    match obj.canonical("label") {
        Ok(Some(v)) => buf.extend_from_slice(&v),
        _ => js::escape::write_str(buf, &l.label),
    }
    if let Ok(Some(ts)) = obj.canonical("timestamp") {
        buf.extend_from_slice(b",\"labelTimestamp\":");
        buf.extend_from_slice(&ts);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Input, ReadOptions};

    const QUIET: Log = Log {
        tool: "pi-tree",
        quiet: true,
    };

    /// The two-thread writer (used for large files) gives the same bytes
    /// as the one-thread one, batch borders anywhere.
    #[test]
    fn two_threads_write_what_one_writes() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/sessions");
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .map(|rd| rd.flatten().map(|f| f.path()).collect())
            .unwrap_or_default();
        files.sort();
        let mut checked = 0;
        for path in files {
            let Ok(s) = Session::open(Input::File(path.clone()), ReadOptions::default()) else {
                continue;
            };
            let Some(f) = reopen(&s) else {
                continue;
            };
            let tree = Tree::build(&s);
            if tree.walk_len(100_000).is_none() {
                continue;
            }
            for size in [1, 300, 5000, 1 << 20] {
                let cutter = || Cutter {
                    s: &s,
                    walk: tree.steps(),
                    after_leave: false,
                    size,
                };
                let mut one = Vec::new();
                let mut cut = cutter();
                write_batches(&s, &mut SessionLines(&s), &mut cut, &mut one, QUIET).unwrap();
                let mut two = Vec::new();
                let mut cut = cutter();
                write_batches_two_threads(&s, &f, &mut cut, &mut two, QUIET).unwrap();
                assert_eq!(
                    String::from_utf8_lossy(&one),
                    String::from_utf8_lossy(&two),
                    "{}",
                    path.display()
                );
                let mut full = Vec::new();
                write_json(&s, &tree, &mut full, QUIET).unwrap();
                assert_eq!(full, [&b"["[..], &one, b"]\n"].concat());
            }
            checked += 1;
        }
        assert!(checked > 20, "{checked}");
    }
}
