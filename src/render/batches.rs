//! Work over the display list in batches, on two threads for a large
//! session file: each thread reads its lines through its own window of
//! the file, and the batches' results are taken in order, so that the
//! output is what one thread makes.

use super::lines::{FileLines, LineSource};
use crate::error::{Error, Result};
use crate::io::Out;
use crate::session::Session;
use std::fs::File;
use std::io::Write;
use std::ops::Range;

/// From this many positions on, a file's batches go to two threads.
const TWO_THREADS_FROM: usize = 50_000;

/// Positions per batch: few hand-overs, little memory per batch.
const BATCH: usize = 4096;

/// Run `work` on the positions `0..n` in batches of consecutive positions,
/// and hand each batch's result to `take`, in order. With `file` (the
/// session file opened again) and many positions, every other batch is
/// worked on by a second thread while this one works on the next, each
/// with its own line source; otherwise `lines` serves them all here.
pub(crate) fn in_order<T, W, F>(
    s: &Session,
    file: Option<&File>,
    lines: &mut dyn LineSource,
    n: usize,
    work: W,
    mut take: F,
) -> Result<()>
where
    T: Send,
    W: Fn(Range<usize>, &mut dyn LineSource) -> Result<T> + Sync,
    F: FnMut(T) -> Result<()>,
{
    let batch = |j: usize| j * BATCH..((j + 1) * BATCH).min(n);
    let count = n.div_ceil(BATCH);
    let file = match file {
        Some(f) if n >= TWO_THREADS_FROM && two_cores() => f,
        _ => {
            for j in 0..count {
                take(work(batch(j), lines)?)?;
            }
            return Ok(());
        }
    };
    let (entries, name) = (&s.entries[..], &s.name[..]);
    let work = &work;
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Result<T>>(1);
        // The other thread takes the even batches, this one the odd ones.
        scope.spawn(move || {
            let mut src = FileLines::new(file, entries, name);
            for j in (0..count).step_by(2) {
                let r = work(batch(j), &mut src);
                let failed = r.is_err();
                if tx.send(r).is_err() || failed {
                    break;
                }
            }
        });
        let gone = || Error::request(name, "the second worker thread stopped");
        let mut src = FileLines::new(file, entries, name);
        for j in 0..count {
            let r = if j % 2 == 0 {
                rx.recv().map_err(|_| gone())?
            } else {
                work(batch(j), &mut src)
            };
            take(r?)?;
        }
        Ok(())
    })
}

/// Write rows `0..n` to `out` in order, row `v` appended to a buffer by
/// `row` (through [`in_order`]). After a row that fails, the rows before
/// it are written, not the failed one's part, and its error returned.
pub(crate) fn write_rows<R>(
    s: &Session,
    file: Option<&File>,
    lines: &mut dyn LineSource,
    n: usize,
    out: &mut impl Write,
    row: R,
) -> Result<()>
where
    R: Fn(usize, &mut Vec<u8>, &mut dyn LineSource) -> Result<()> + Sync,
{
    write_rows_with(
        s,
        file,
        lines,
        n,
        out,
        || (),
        |v, (), buf, src| row(v, buf, src),
    )
}

/// [`write_rows`], each batch's rows given scratch space of their own
/// (a checker, buffers kept from row to row), made by `fresh`.
pub(crate) fn write_rows_with<S, N, R>(
    s: &Session,
    file: Option<&File>,
    lines: &mut dyn LineSource,
    n: usize,
    out: &mut impl Write,
    fresh: N,
    row: R,
) -> Result<()>
where
    N: Fn() -> S + Sync,
    R: Fn(usize, &mut S, &mut Vec<u8>, &mut dyn LineSource) -> Result<()> + Sync,
{
    let rows = |r: Range<usize>, src: &mut dyn LineSource| {
        let mut buf = Vec::new();
        let mut scratch = fresh();
        for v in r {
            let at = buf.len();
            if let Err(e) = row(v, &mut scratch, &mut buf, src) {
                buf.truncate(at);
                return Ok((buf, Err(e)));
            }
        }
        Ok((buf, Ok(())))
    };
    in_order(
        s,
        file,
        lines,
        n,
        rows,
        |(rendered, r): (Vec<u8>, Result<()>)| {
            out.bytes(&rendered)?;
            r
        },
    )
}

/// Whether a second thread can run beside this one.
fn two_cores() -> bool {
    std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Input, ReadOptions};

    /// Two threads hand over the same results, in the same order, as one.
    #[test]
    fn two_threads_give_what_one_gives() {
        let dir = std::env::temp_dir().join(format!("pi-batches-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.jsonl");
        let mut text = String::from(
            "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/\"}\n",
        );
        let n = TWO_THREADS_FROM + BATCH + 7;
        for i in 0..n {
            text.push_str(&format!(
                "{{\"type\":\"custom\",\"id\":\"{i:08x}\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"customType\":\"c{i}\"}}\n"
            ));
        }
        std::fs::write(&path, text).unwrap();
        let s = Session::open(Input::File(path.clone()), ReadOptions::default()).unwrap();
        let file = File::open(&path).unwrap();
        let work = |r: Range<usize>, src: &mut dyn LineSource| -> Result<Vec<u8>> {
            let mut out = Vec::new();
            for i in r {
                out.extend_from_slice(&src.line(i)?);
            }
            Ok(out)
        };
        let run = |file: Option<&File>| {
            let mut got = Vec::new();
            let mut lines = crate::render::lines::SessionLines(&s);
            in_order(&s, file, &mut lines, n, work, |b| {
                got.push(b);
                Ok(())
            })
            .unwrap();
            got
        };
        let (one, two) = (run(None), run(Some(&file)));
        assert_eq!(one.len(), n.div_ceil(BATCH));
        assert_eq!(one, two);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
