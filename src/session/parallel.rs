//! Loading one session file with several threads: the file is cut at line
//! starts into parts, each part loaded on its own, and the parts put
//! together so that the result is exactly what one reader in order gives.

use super::lines::for_each_line_read;
use super::load::{shift_line, Loader};
use super::ReadOptions;
use crate::error::{Error, Result};
use crate::io::{read_at_most, At};
use crate::migrate::CURRENT_VERSION;
use std::fs::File;

/// Files at least this large are read by several threads (smaller files
/// take a few milliseconds; the threads' buffers and the merge would cost
/// more memory than the time they save).
const PARALLEL_MIN: u64 = 32 << 20;

/// At most this many threads load one file.
const LOAD_THREADS_MAX: usize = 8;

/// Parts a file of [`MANY_PARTS_MIN`] bytes or more is cut into per
/// loading thread (so that a thread that finishes early takes another
/// part and the threads end together); smaller files are cut into one part
/// per thread, as each part's own entry list and buffers cost memory that
/// counts more there.
const PARTS_PER_THREAD: usize = 4;
const MANY_PARTS_MIN: u64 = 256 << 20;

/// Read every line of `file` (`size` bytes when opened), with several
/// threads from [`PARALLEL_MIN`] bytes on ([`load_parts`]).
pub(super) fn load_file<'n>(
    file: &File,
    size: u64,
    name: &'n str,
    opts: ReadOptions,
) -> Result<Loader<'n>> {
    load_parts(file, size, name, opts, PARALLEL_MIN, MANY_PARTS_MIN)
}

/// Read every line of `file` (`size` bytes when opened). From
/// `parallel_min` bytes on, when there is more than one core, the file is
/// cut at line starts into parts (several per thread from `many_parts_min`
/// bytes on) that one thread per core (at most [`LOAD_THREADS_MAX`]) take
/// in turn. The result is exactly what one
/// reader would give: each part's lines are numbered, placed and warned
/// about as if read in order, and the first error in file order wins.
fn load_parts<'n>(
    file: &File,
    size: u64,
    name: &'n str,
    opts: ReadOptions,
    parallel_min: u64,
    many_parts_min: u64,
) -> Result<Loader<'n>> {
    let sequential = || -> Result<Loader<'n>> {
        let mut loader = Loader::new(name, opts);
        for_each_line_read(&mut At::new(file, 0, u64::MAX), name, |l| {
            loader.line(l).map(|()| true)
        })?;
        Ok(loader)
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if size < parallel_min || cores < 2 {
        return sequential();
    }
    let threads = cores.min(LOAD_THREADS_MAX);
    let wanted = threads
        * if size >= many_parts_min {
            PARTS_PER_THREAD
        } else {
            1
        };
    // Where each part starts: the first line start after each cut.
    let mut starts = vec![0u64];
    for k in 1..wanted {
        let cut = size / wanted as u64 * k as u64;
        match line_start_after(file, cut).map_err(|e| Error::io(name, &e))? {
            Some(at) if Some(&at) > starts.last() => starts.push(at),
            _ => {}
        }
    }
    if starts.len() < 2 {
        return sequential();
    }
    let parts = starts.len();
    let next = std::sync::atomic::AtomicUsize::new(0);
    // What each part gave: its loader, and how its reading ended.
    type Part<'n> = Option<(Loader<'n>, Result<()>)>;
    let done: std::sync::Mutex<Vec<Part<'n>>> =
        std::sync::Mutex::new((0..parts).map(|_| None).collect());
    let work = || loop {
        let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let Some(&start) = starts.get(k) else {
            break;
        };
        let end = starts.get(k + 1).copied().unwrap_or(u64::MAX);
        let mut part = Loader::new(name, opts);
        part.tail = k > 0;
        let read = for_each_line_read(&mut At::new(file, start, end), name, |l| {
            part.line(l).map(|()| true)
        });
        if let Ok(mut d) = done.lock() {
            d[k] = Some((part, read));
        }
    };
    std::thread::scope(|sc| {
        for _ in 1..threads.min(parts) {
            sc.spawn(work);
        }
        work();
    });
    let gone = || Error::request(name, "a loading thread stopped");
    let mut parts = done
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .into_iter();
    let (mut head, head_read) = parts.next().flatten().ok_or_else(gone)?;
    head_read?;
    if head.header.is_none() {
        // No header in the first part (only blank or bad lines): the header
        // is the first object line of a later part, which took it for an
        // entry. Rare: read again, in order.
        return sequential();
    }
    let old = head
        .header
        .as_ref()
        .is_some_and(|h| h.version < CURRENT_VERSION);
    let parts: Vec<_> = parts.collect();
    head.entries
        .reserve(parts.iter().flatten().map(|(p, _)| p.entries.len()).sum());
    if old && parts.iter().flatten().any(|(p, _)| p.non_objects > 0) {
        // Non-object values in an old file are skipped: read again, in order.
        return sequential();
    }
    // One allocation for every part's entries.
    head.entries
        .reserve(parts.iter().flatten().map(|(p, _)| p.entries.len()).sum());
    for (part, &start) in parts.into_iter().zip(&starts[1..]) {
        let (part, read) = part.ok_or_else(gone)?;
        if let Err(mut e) = read {
            shift_line(&mut e.diag, head.lines_seen);
            return Err(e);
        }
        head.append(part, start)?;
    }
    Ok(head)
}

/// The offset of the first line that starts after `from` (just after a
/// `\n` at or after `from`); None when no line starts after it.
fn line_start_after(file: &File, from: u64) -> std::io::Result<Option<u64>> {
    let mut buf = vec![0u8; 64 << 10];
    let mut at = from;
    loop {
        let got = read_at_most(file, &mut buf, at)?;
        if let Some(p) = memchr::memchr(b'\n', &buf[..got]) {
            let start = at + p as u64 + 1;
            return Ok(
                (got > p + 1 || read_at_most(file, &mut buf[..1], start)? == 1).then_some(start),
            );
        }
        if got < buf.len() {
            return Ok(None);
        }
        at += got as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Load `text` from a file with one reader and with two, and return
    /// what each gave (entries, warnings, header, or the error).
    fn both_ways(text: &[u8], opts: ReadOptions) -> (String, String) {
        let path = std::env::temp_dir().join(format!(
            "pi-session-tools-split-{}-{:x}.jsonl",
            std::process::id(),
            sha1_smol::Sha1::from(text).digest().bytes()[0..8]
                .iter()
                .fold(0u64, |a, &b| a << 8 | u64::from(b))
        ));
        std::fs::write(&path, text).unwrap();
        let file = File::open(&path).unwrap();
        let size = text.len() as u64;
        let show = |r: Result<Loader<'_>>| match r {
            Ok(l) => format!(
                "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{}\n{:?}\n{:?}",
                l.header,
                l.entries,
                l.extras,
                l.other_types,
                l.warnings,
                l.lines_seen,
                l.glances,
                l.roles
            ),
            Err(e) => format!("error {e}"),
        };
        let one = show(load_parts(&file, size, "f", opts, u64::MAX, u64::MAX));
        let two = show(load_parts(&file, size, "f", opts, 0, u64::MAX));
        let many = show(load_parts(&file, size, "f", opts, 0, 0));
        assert_eq!(two, many, "one part per thread against several");
        std::fs::remove_file(&path).unwrap();
        (one, two)
    }

    const H: &str = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#;

    fn entry(i: usize, parent: Option<usize>) -> String {
        let p = parent.map_or("null".to_string(), |p| format!("\"{p:08x}\""));
        format!(
            r#"{{"type":"message","id":"{i:08x}","parentId":{p},"timestamp":"2026-01-01T00:00:{:02}.000Z","message":{{"role":"user","content":"line {i}"}}}}"#,
            i % 60
        )
    }

    #[test]
    fn two_readers_read_what_one_reads() {
        let mut cases: Vec<Vec<String>> = Vec::new();
        let plain: Vec<String> = std::iter::once(H.to_string())
            .chain((1..40).map(|i| entry(i, (i > 1).then(|| i - 1))))
            .collect();
        cases.push(plain.clone());
        // Bad, blank, non-object and second-header lines on both sides.
        let mut messy = plain.clone();
        for (at, line) in [
            (3, "{not json"),
            (25, "   "),
            (30, "[1,2]"),
            (33, H),
            (
                35,
                r#"{"type":"label","id":"ffffffff","parentId":"00000022","timestamp":"x","targetId":"00000001","label":"L"}"#,
            ),
            (36, r#"{"type":"mystery","id":"eeeeeeee"}"#),
            // Messages of each glance, on the later side (their glances
            // must stand at their entries' places).
            (
                36,
                r#"{"type":"message","id":"cccccccc","parentId":null,"message":{"role":"assistant","content":[{"type":"toolCall","id":"c"},{"type":"text","text":"x"}],"stopReason":"error"}}"#,
            ),
            (36, r#"{"type":"message","id":"cccccccd","message":null}"#),
            (
                36,
                r#"{ "type" : "message", "id" : "ccccccce", "message" : { "role" : "toolResult" } }"#,
            ),
            (38, "{\"type\":\"message\",\"id\":\"dd"),
        ] {
            messy.insert(at, line.to_string());
        }
        cases.push(messy.clone());
        // The first bad line late in the file (an error there with --strict).
        let mut late_bad = plain.clone();
        late_bad.insert(37, "{not json".to_string());
        cases.push(late_bad);
        // Only bad lines before the header, past the middle.
        let mut late = vec!["garbage".to_string(); 30];
        late.extend(plain.iter().take(5).cloned());
        cases.push(late);
        // A BOM, no trailing newline, CRLF lines.
        let mut bom = plain.clone();
        bom[0] = format!("\u{feff}{H}");
        cases.push(bom);
        let crlf: Vec<String> = plain.iter().map(|l| format!("{l}\r")).collect();
        cases.push(crlf);
        // Ids that are not 8 hex digits (kept in a side table) on both sides.
        let named: Vec<String> = plain
            .iter()
            .map(|l| {
                l.replace("\"id\":\"0000", "\"id\":\"n-")
                    .replace("\"parentId\":\"0000", "\"parentId\":\"n-")
            })
            .collect();
        assert!(named[30].contains("\"id\":\"n-"), "{}", named[30]);
        cases.push(named);
        // One long line in the middle.
        let mut long = plain.clone();
        long[20] = format!(
            r#"{{"type":"custom","id":"abcdef01","parentId":null,"data":"{}"}}"#,
            "x".repeat(200_000)
        );
        cases.push(long);
        for (n, lines) in cases.iter().enumerate() {
            for end in ["", "\n", "\n\n"] {
                let text = format!("{}{end}", lines.join("\n"));
                for (strict, glances, roles) in [
                    (false, false, false),
                    (true, false, false),
                    (false, true, false),
                    (false, false, true),
                ] {
                    let (one, two) = both_ways(
                        text.as_bytes(),
                        ReadOptions {
                            strict,
                            glances,
                            roles,
                            ..Default::default()
                        },
                    );
                    assert_eq!(one, two, "case {n}, end {end:?}, strict {strict}");
                }
            }
        }
    }

    #[test]
    fn the_split_is_at_a_line_start() {
        let path =
            std::env::temp_dir().join(format!("pi-session-tools-lsa-{}", std::process::id()));
        std::fs::write(&path, b"ab\ncd\nef").unwrap();
        let f = File::open(&path).unwrap();
        assert_eq!(line_start_after(&f, 0).unwrap(), Some(3));
        assert_eq!(line_start_after(&f, 3).unwrap(), Some(6));
        assert_eq!(line_start_after(&f, 6).unwrap(), None);
        std::fs::write(&path, b"ab\n").unwrap();
        let f = File::open(&path).unwrap();
        assert_eq!(line_start_after(&f, 0).unwrap(), None);
        std::fs::remove_file(&path).unwrap();
    }
}
