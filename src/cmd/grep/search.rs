//! Searching: the sessions on every thread, printed in their order, and
//! one session searched, a version-3 file from its raw bytes (only the
//! lines the prefilter lets through are parsed), an older one, or
//! `--active`, through the session loader.

use super::print::{FileOut, Info, Printer};
use super::reading::{Reading, READ_CHUNK};
use super::{Mode, Options, Status};
use crate::cli::Out;
use crate::entry::EntryType;
use crate::error::{Diagnostic, Result};
use crate::json::{js, Object};
use crate::search;
use crate::session::{ReadOptions, Session};
use crate::store::Source;
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Search `sources` and print what was found to `out`, and through
/// `opts.log` each session's warnings and error, before its matches and
/// after those of the sessions before it.
pub(crate) fn search_sources(
    sources: &[Source],
    opts: &Options,
    out: &mut impl Write,
) -> Result<Status> {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);

    let threads = opts.threads.clamp(1, sources.len().max(1));
    // Of many files, a thread takes `chunk` at a time and sends their
    // results together: a message per file cost more in wake-ups than a
    // small file's search.
    let chunk = if sources.len() >= threads * 64 { 8 } else { 1 };
    let (tx, rx) = std::sync::mpsc::channel::<Vec<(usize, FileOut)>>();
    let mut status = Status::default();
    std::thread::scope(|scope| -> Result<()> {
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            // Each thread its own copy of the regexes (a clone has its own
            // pool of search caches; a shared one is locked for all but one).
            let opts = opts.clone();
            scope.spawn(move || loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let from = next.fetch_add(chunk, Ordering::Relaxed);
                let Some(these) = sources.get(from..) else {
                    break;
                };
                let mut results = Vec::with_capacity(chunk);
                for (k, src) in these.iter().take(chunk).enumerate() {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    results.push((from + k, search_source(src, &opts)));
                }
                if results.is_empty() || tx.send(results).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        // Print in the order of `sources`, whatever order the threads end in.
        let mut waiting: BTreeMap<usize, FileOut> = BTreeMap::new();
        let mut printed = 0usize;
        let mut any_printed = false;
        let context = opts.context();
        let result = (|| -> Result<()> {
            for (i, r) in rx.iter().flatten() {
                waiting.insert(i, r);
                while let Some(r) = waiting.remove(&printed) {
                    printed += 1;
                    for w in &r.warnings {
                        opts.log.warn(w);
                    }
                    if let Some(e) = &r.error {
                        opts.log.error(e);
                    }
                    if r.matched {
                        status.matched = true;
                        if opts.mode == Mode::Quiet {
                            // grep -q: the answer is known; no file more
                            return Ok(());
                        }
                    }
                    if !r.out.is_empty() {
                        if opts.heading && any_printed {
                            out.bytes(b"\n")?;
                        } else if context && any_printed {
                            // between the groups of two sessions too
                            out.bytes(b"--\n")?;
                        }
                        any_printed = true;
                        out.bytes(&r.out)?;
                    }
                }
            }
            Ok(())
        })();
        // an error, or -q's answer: the threads start no file more
        stop.store(true, Ordering::Relaxed);
        result
    })?;
    out.done()?;
    Ok(status)
}

thread_local! {
    static CHECKER: std::cell::RefCell<crate::json::js::Checker> =
        std::cell::RefCell::new(crate::json::js::Checker::new());
    static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A buffer kept between files is let go beyond this size.
const KEEP_BUFFER: usize = 64 << 20;

/// A session's error as the warning that it is skipped (in part).
fn skipped(e: crate::error::Error, what: &str) -> Diagnostic {
    let mut d = e.diag;
    d.message.push_str(what);
    d
}

/// Search one session.
pub(super) fn search_source(src: &Source, opts: &Options) -> FileOut {
    let name = src.name();
    let mut fo = FileOut::default();
    let buffer = BUFFER.with(|b| std::mem::take(&mut *b.borrow_mut()));
    let mut s = Searcher {
        p: Printer {
            opts,
            name: &name,
            shown_name: crate::name::bytes_of_kept(&crate::visible::text(&name)).into_owned(),
            session_id: String::new(),
            fo: &mut fo,
            count: 0,
            done: false,
            last_ctx: None,
        },
        checker: CHECKER.with(|c| std::mem::take(&mut *c.borrow_mut())),
        canon: crate::json::js::Checker::new(),
        count_lines: opts.mode == Mode::Json
            || opts.line_number
            || opts.before > 0
            || opts.after > 0,
        base: 0,
        uncounted: Vec::new(),
    };
    let want_mtime = opts.since.is_some() || opts.until.is_some();
    let read = Reading::open(src, &name, buffer, want_mtime).and_then(|r| s.search(r));
    let checker = std::mem::take(&mut s.checker);
    CHECKER.with(|c| *c.borrow_mut() = checker);
    let count = s.p.count;
    // -L: a session searched to its end without a match (not one skipped:
    // out of --since/--until, not a session; nor one that failed, whose
    // output is cleared below)
    if opts.mode == Mode::FilesWithout && !s.p.fo.matched && !s.p.fo.skipped {
        s.p.path();
    }
    match read {
        Ok(Some(buf)) if buf.capacity() <= KEEP_BUFFER => {
            BUFFER.with(|b| *b.borrow_mut() = buf);
        }
        Ok(_) => {}
        Err(e) => {
            // what was found before the error is not printed
            fo.out.clear();
            fo.error = Some(e);
            return fo;
        }
    }
    if opts.mode == Mode::Count && count > 0 {
        if opts.filename {
            fo.out = crate::name::bytes_of_kept(&crate::visible::text(&name)).into_owned();
            fo.out.push(b':');
        }
        fo.out.extend_from_slice(format!("{count}\n").as_bytes());
    }
    fo
}

/// An entry found in a line, before its texts are searched.
struct Found<'a, 'i> {
    ty: Option<std::borrow::Cow<'a, str>>,
    role: Option<std::borrow::Cow<'a, str>>,
    id: Option<&'i str>,
    timestamp: Option<Vec<u8>>,
    line: u64,
}

/// The search of one session, and what it has found so far.
pub(super) struct Searcher<'a> {
    /// What is printed, and how far the search has gone.
    p: Printer<'a>,
    checker: crate::json::js::Checker,
    /// For a tool call's arguments (see [`search::quick_entry`]).
    canon: crate::json::js::Checker,
    /// Whether line numbers are counted as the lines go by (`--json`
    /// prints them, context tells entries apart by them); else a line
    /// that is warned about is counted to afterwards, from the file.
    count_lines: bool,
    /// Where `stream`'s bytes start in the file.
    base: u64,
    /// Warnings whose line is still to be counted: (index in the
    /// warnings, offset of the line in the file).
    uncounted: Vec<(usize, u64)>,
}

impl Searcher<'_> {
    /// Search what `r` reads; the buffer back, to be kept for the next
    /// file (None when the loader took it).
    fn search(&mut self, mut r: Reading) -> Result<Option<Vec<u8>>, Diagnostic> {
        let opts = self.p.opts;
        let name = self.p.name;
        let io = |e: std::io::Error| Diagnostic::new(name, None, super::reading::read_error(&e));
        // no line is held beyond the limit the loader sets (a file of NULs,
        // `/dev/zero`)
        let limit = crate::session::max_line();
        let too_long = |line: u64| crate::session::line_too_long(name, line, limit).diag;
        let first_end = r
            .first_line(limit)
            .map_err(io)?
            .ok_or_else(|| too_long(1))?;
        let (is_header, current, id, header_time) = {
            let header = Object::parse_line(&r.bytes()[..first_end]).ok().flatten();
            let h = header.as_ref();
            (
                h.is_some_and(|h| h.str("type").as_deref() == Some("session")),
                h.is_some_and(|h| {
                    h.raw("version")
                        .and_then(|v| std::str::from_utf8(v).ok())
                        .and_then(|v| v.parse::<f64>().ok())
                        .is_some_and(|v| v >= 3.0)
                }),
                h.and_then(|h| h.str("id")).map(|c| c.into_owned()),
                h.and_then(|h| h.str("timestamp")).map(|c| c.into_owned()),
            )
        };
        if !(current && is_header && id.is_some() && !opts.active) {
            // Not a current session (or not a session at all, a header
            // without a string id included: the loader says what is
            // wrong with its start).
            r.rest(limit).map_err(io)?.map_err(too_long)?;
            let mtime = r.mtime;
            self.load(r.into_bytes(), mtime);
            return Ok(None);
        }
        self.p.session_id = id.unwrap_or_default();
        let mut line_no = 2u64;
        if opts.since.is_some() || opts.until.is_some() {
            // the activity time is the whole file's
            r.rest(limit).map_err(io)?.map_err(too_long)?;
            if self.in_time(r.bytes(), header_time.as_deref(), r.mtime) {
                self.stream(r.bytes(), first_end + 1, &mut line_no);
                self.count_warned_lines(&r).map_err(io)?;
            } else {
                self.p.fo.skipped = true;
            }
            return Ok(Some(r.buf));
        }
        let mut pos = first_end + 1;
        // r.bytes()[pos..fresh] is known to hold no line break (so a long
        // line is not searched again at every read)
        let mut fresh = pos;
        loop {
            // the whole lines read so far (all of it at the end)
            let end = match r.eof {
                true => Some(r.filled),
                false => memchr::memrchr(b'\n', r.bytes().get(fresh..).unwrap_or_default())
                    .map(|i| fresh + i + 1),
            };
            if let Some(end) = end {
                if end > pos {
                    if limit < 2 * READ_CHUNK as u64 {
                        // a limit this small: lines that came in one read too
                        if let Some(k) = too_long_in(&r.bytes()[pos..end], limit) {
                            let line = match self.count_lines {
                                true => line_no + k,
                                false => r.line_at(r.base + pos as u64).map_err(io)? + k,
                            };
                            return Err(too_long(line));
                        }
                    }
                    self.base = r.base;
                    self.stream(&r.bytes()[..end], pos, &mut line_no);
                }
                pos = end;
            }
            if r.eof || self.p.done {
                self.count_warned_lines(&r).map_err(io)?;
                return Ok(Some(r.buf));
            }
            r.consume(pos.min(r.filled));
            pos = 0;
            fresh = r.filled;
            if r.filled as u64 > limit {
                let line = match self.count_lines {
                    true => line_no,
                    false => r.line_at(r.base).map_err(io)?,
                };
                return Err(too_long(line));
            }
            r.more().map_err(io)?;
        }
    }

    /// The line numbers of the warnings whose lines were not counted.
    fn count_warned_lines(&mut self, r: &Reading) -> std::io::Result<()> {
        for (w, at) in std::mem::take(&mut self.uncounted) {
            let line = r.line_at(at)?;
            if let Some(l) = &mut self.p.fo.warnings[w].at {
                l.line = Some(line);
            }
        }
        Ok(())
    }

    /// An older session, or `--active`: through the session loader.
    fn load(&mut self, bytes: Vec<u8>, mtime: Option<std::time::SystemTime>) {
        let session = match Session::from_bytes(self.p.name, bytes, ReadOptions::default()) {
            Ok(x) => x,
            Err(e) => {
                self.p.fo.warnings.push(skipped(e, "; skipped"));
                self.p.fo.skipped = true;
                return;
            }
        };
        self.p.session_id = session.header.id.clone();
        for w in &session.warnings {
            // Every old file says so; a search need not.
            if !w.to_string().contains("read as version 3 in memory") {
                self.p.fo.warnings.push(w.clone());
            }
        }
        let mem = session.memory().unwrap_or_default();
        let hb = session.raw_header().ok();
        let h = hb
            .as_deref()
            .and_then(|b| Object::parse_line(b).ok().flatten());
        let header_time = h.as_ref().and_then(|h| h.str("timestamp"));
        if !self.in_time(mem, header_time.as_deref(), mtime) {
            self.p.fo.skipped = true;
            return;
        }
        if let Err(e) = self.loaded(&session) {
            self.p.fo.warnings.push(skipped(e, "; skipped the rest"));
        }
    }

    /// Whether pi's activity time of the session is within --since/--until
    /// (pi's session list: the latest user or assistant message's
    /// timestamp, else the header's, else the file's modification time).
    fn in_time(
        &self,
        bytes: &[u8],
        header_time: Option<&str>,
        mtime: Option<std::time::SystemTime>,
    ) -> bool {
        if self.p.opts.since.is_none() && self.p.opts.until.is_none() {
            return true;
        }
        let mut last: Option<f64> = None;
        let finder = memchr::memmem::Finder::new(b"message");
        for line in bytes.split(|&b| b == b'\n').skip(1) {
            // (a \u escape may spell "message")
            if finder.find(line).is_none() && memchr::memmem::find(line, b"\\u").is_none() {
                continue;
            }
            let Ok(Some(o)) = Object::parse_line(line) else {
                continue;
            };
            if o.str("type").as_deref() != Some("message") {
                continue;
            }
            let Some(m) = o.object("message") else {
                continue;
            };
            if !matches!(m.str("role").as_deref(), Some("user" | "assistant"))
                || m.get("content").is_none()
            {
                continue;
            }
            let t = match m.raw("timestamp") {
                Some(v) if matches!(v.first(), Some(b'-' | b'0'..=b'9')) => std::str::from_utf8(v)
                    .ok()
                    .and_then(|v| v.parse::<f64>().ok()),
                _ => {
                    let t = o.raw("timestamp").map_or(f64::NAN, crate::time::js_date_ms);
                    (!t.is_nan()).then_some(t)
                }
            };
            if let Some(t) = t {
                last = Some(last.unwrap_or(0.0).max(t));
            }
        }
        let t = match last.filter(|&t| t > 0.0) {
            Some(t) => t,
            None => {
                let h = header_time.map_or(f64::NAN, crate::time::parse_iso);
                if !h.is_nan() {
                    h
                } else {
                    mtime
                        .and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok())
                        .map_or(0.0, |d| d.as_millis() as f64)
                }
            }
        };
        self.p.opts.since.is_none_or(|s| t >= s) && self.p.opts.until.is_none_or(|u| t < u)
    }

    /// The lines of a version-3 file in `bytes[from..]` (which ends at a
    /// line's end, or the file's), from its raw bytes; `line_no` is the
    /// number of the line at `from`, and is left the number of the line
    /// after `bytes`.
    fn stream(&mut self, bytes: &[u8], from: usize, line_no: &mut u64) {
        let mut pos = from;
        let mut counted_to = pos.min(bytes.len());
        let opts = self.p.opts;
        let mut candidates = opts.matcher.candidates(bytes);
        // Out of `self` while its marks of a line are in use.
        let mut checker = std::mem::take(&mut self.checker);
        let mut spans: Vec<search::Span<'_>> = Vec::new();
        while pos < bytes.len() && !self.p.done {
            let Some(c) = candidates.next_from(pos) else {
                break;
            };
            let start = memchr::memrchr(b'\n', &bytes[pos..c]).map_or(pos, |i| pos + i + 1);
            let end = memchr::memchr(b'\n', &bytes[c..]).map_or(bytes.len(), |i| c + i);
            if self.count_lines {
                *line_no += memchr::memchr_iter(b'\n', &bytes[counted_to..start]).count() as u64;
                counted_to = start;
            }
            let line = &bytes[start..end];
            // A line pi wrote (compact) is validated in one quick pass and
            // its objects are then found by their quotes and brackets
            // alone; any other line the long way.
            if checker.valid_object(line).is_some() {
                self.quick_line(line, &checker, None, *line_no, &mut spans);
                pos = end + 1;
                continue;
            }
            match Object::parse_line(line) {
                Ok(Some(o)) => {
                    if o.str("type").as_deref() != Some("session") {
                        let id = o.str("id");
                        self.entry(&o, *line_no, id.as_deref());
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    if !crate::json::js::string::is_blank(line) {
                        if !self.count_lines {
                            let at = self.base + start as u64;
                            self.uncounted.push((self.p.fo.warnings.len(), at));
                        }
                        self.p.fo.warnings.push(Diagnostic::new(
                            self.p.name,
                            Some(*line_no),
                            format!("not valid JSON ({e}); skipped, as pi does"),
                        ));
                    }
                }
            }
            pos = end + 1;
        }
        self.checker = checker;
        if self.count_lines {
            *line_no +=
                memchr::memchr_iter(b'\n', &bytes[counted_to.min(bytes.len())..]).count() as u64;
        }
    }

    /// A session through the loader (old versions, `--active`).
    fn loaded(&mut self, s: &Session) -> Result<()> {
        let mut which: Vec<usize> = if self.p.opts.active {
            match s.index.leaf {
                Some(l) if s.entries.id(l).is_some() => crate::path::path_to(s, l)?,
                _ => Vec::new(),
            }
        } else {
            (0..s.entries.len()).collect()
        };
        which.sort_unstable();
        // Out of `self` while its marks of a line are in use.
        let mut checker = std::mem::take(&mut self.checker);
        let mut result = Ok(());
        for i in which {
            if self.p.done {
                break;
            }
            let e = &s.entries[i];
            if e.ty() == EntryType::Session {
                continue;
            }
            let line = match s.line(i) {
                Ok(l) => l,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            };
            if !self.p.opts.matcher.may_match(&line) {
                continue;
            }
            let id = s.entries.id(i).map(|_| s.entries.id_string(i));
            // the quick read of the line when the checker takes it, as
            // in a version-3 file's stream
            if checker.valid_object(&line).is_some() {
                let mut spans = Vec::new();
                self.quick_line(&line, &checker, id.as_deref(), e.line(), &mut spans);
                continue;
            }
            let Ok(Some(o)) = Object::parse_line(&line) else {
                continue;
            };
            self.entry(&o, e.line(), id.as_deref());
        }
        self.checker = checker;
        result
    }

    /// Search a line `checker` has just taken ([`js::Checker::valid_object`]),
    /// by its marks ([`search::quick_entry`]), with the entry's `id`
    /// (None: the line's own, decoded where it is printed); `spans` is
    /// scratch space.
    fn quick_line<'l>(
        &mut self,
        line: &'l [u8],
        checker: &js::Checker,
        id: Option<&str>,
        line_no: u64,
        spans: &mut Vec<search::Span<'l>>,
    ) {
        let opts = self.p.opts;
        let (top, marks) = (checker.members(), checker.marks());
        spans.clear();
        let may_match = |b: &[u8]| opts.matcher.may_match(b);
        let (ty, role) = search::quick_entry(line, top, marks, &mut self.canon, &may_match, spans);
        if ty.as_deref() == Some("session") {
            return;
        }
        let get = |key: &str| crate::json::member_value(line, top, key);
        // (not printed by -c and -l)
        let own_id = match (id, opts.mode) {
            (Some(_), _) | (None, Mode::Count | Mode::Files) => None,
            (None, _) => get("id")
                .filter(|r| line.get(r.start) == Some(&b'"'))
                .map(|r| js::decode_string(line, r)),
        };
        let timestamp = match opts.mode {
            Mode::Json => get("timestamp").and_then(|r| js::canonical_vec(line, r).ok()),
            _ => None,
        };
        let found = Found {
            ty,
            role,
            id: id.or(own_id.as_deref()),
            timestamp,
            line: line_no,
        };
        self.spans(found, spans.drain(..), Some(marks));
    }

    /// Search one entry of a line the checker did not take (the plain
    /// read; [`Searcher::quick_line`] for the others).
    fn entry(&mut self, o: &Object<'_>, line_no: u64, id: Option<&str>) {
        let e = search::Entry::new(o, None);
        let spans = search::entry_spans(&e);
        let timestamp = match self.p.opts.mode {
            Mode::Json => o.canonical("timestamp").ok().flatten(),
            _ => None,
        };
        let found = Found {
            ty: e.ty,
            role: e.role,
            id,
            timestamp,
            line: line_no,
        };
        self.spans(found, spans.into_iter(), None);
    }

    /// Search the texts `spans` of one entry; `marks`: the checker's of
    /// its line, when it took the line.
    fn spans<'t>(
        &mut self,
        found: Found<'_, '_>,
        spans: impl Iterator<Item = search::Span<'t>>,
        marks: Option<js::Marks<'_>>,
    ) {
        let Found {
            ty,
            role,
            id,
            timestamp,
            line: line_no,
        } = found;
        let who = role.as_deref().or(ty.as_deref()).unwrap_or("?");
        if let Some(roles) = &self.p.opts.roles {
            if !roles.iter().any(|r| r == who) {
                return;
            }
        }
        let ctx = self.p.opts.context();
        for (ti, t) in spans.enumerate() {
            if self.p.done {
                return;
            }
            if let Some(f) = &self.p.opts.fields {
                if !f.iter().any(|f| f == t.field) {
                    continue;
                }
            }
            let info = Info {
                line: line_no,
                id,
                ty: ty.as_deref(),
                role: role.as_deref(),
                who,
                field: t.field,
                timestamp: timestamp.clone(),
                text_index: ti,
            };
            if let (Some(raw), search::SpanText::Raw(text, r), false) =
                (&self.p.opts.matcher.raw, &t.text, ctx)
            {
                let s = &text[r.start + 1..r.end - 1];
                let done = match marks {
                    Some(m) => {
                        let base = r.start + 1;
                        let escapes =
                            |from| m.escapes(base + from, r.end - 1).map(move |i| i - base);
                        let unicode = m.any_unicode_escape();
                        self.raw_text(&info, s, raw, escapes, unicode)
                    }
                    None => self.raw_text(&info, s, raw, |from| memchr_escapes(s, from), true),
                };
                if done {
                    continue;
                }
            }
            let t = t.decode();
            self.text(&info, &t.text);
        }
    }

    fn text(&mut self, info: &Info<'_>, text: &str) {
        let re = &self.p.opts.matcher.re;
        let ctx = self.p.opts.context();
        if !ctx && self.p.opts.matcher.whole {
            // match to match; each match's line counts once
            let (mut at, mut k, mut counted) = (0usize, 0usize, 0usize);
            while at <= text.len() && !self.p.done {
                let Some(m) = re.find_at(text, at) else {
                    return;
                };
                let ls = memchr::memrchr(b'\n', &text.as_bytes()[at..m.start()])
                    .map_or(at, |i| at + i + 1);
                let le = memchr::memchr(b'\n', &text.as_bytes()[m.start()..])
                    .map_or(text.len(), |i| m.start() + i);
                k += memchr::memchr_iter(b'\n', &text.as_bytes()[counted..ls]).count();
                counted = ls;
                self.p.matched(info, k, &text[ls..le]);
                at = le + 1;
            }
            return;
        }
        if !ctx {
            for (k, l) in text.split('\n').enumerate() {
                if self.p.done {
                    return;
                }
                if re.is_match(l) {
                    self.p.matched(info, k, l);
                }
            }
            return;
        }
        let lines: Vec<&str> = text.split('\n').collect();
        let mut after_until: Option<usize> = None;
        for (k, l) in lines.iter().enumerate() {
            if self.p.done {
                // -m reached: the last match's lines after it still, as
                // grep and ripgrep print them
                if after_until.is_some_and(|u| k <= u) {
                    self.p.context(info, k, l);
                    continue;
                }
                return;
            }
            if re.is_match(l) {
                let from = k.saturating_sub(self.p.opts.before);
                let from = match self.p.last_ctx {
                    Some((el, ti, kl)) if el == info.line && ti == info.text_index => {
                        from.max(kl + 1)
                    }
                    _ => from,
                };
                for (j, cl) in lines.iter().enumerate().take(k).skip(from) {
                    self.p.context(info, j, cl);
                }
                self.p.separator(info, k);
                self.p.matched(info, k, l);
                self.p.last_ctx = Some((info.line, info.text_index, k));
                after_until = Some(k.saturating_add(self.p.opts.after));
            } else if after_until.is_some_and(|u| k <= u) {
                self.p.context(info, k, l);
            }
        }
    }

    /// Search the raw bytes of a JSON string (without its quotes) with
    /// [`search::Matcher::raw`]; false, having done nothing, when it holds a `\u`
    /// escape (then the decoded text is searched: one `memmem` over the
    /// string first unless `maybe_unicode` is false (the checker saw no `\u` in the
    /// line), quicker than looking for `\u` beside the pattern). Text lines end at the
    /// `\n` escapes, found by walking the backslashes from the start (so
    /// that `\\n` is no line break), which also tells whether a match
    /// starts on the letter of an escape (no match: `\nothing` is a break
    /// and "othing"); `escapes_from(i)` gives the backslashes of `s` that
    /// start an escape, from `i` (no escape's second byte) on.
    fn raw_text<E: Iterator<Item = usize>>(
        &mut self,
        info: &Info<'_>,
        s: &[u8],
        raw: &search::Literals,
        escapes_from: impl Fn(usize) -> E,
        maybe_unicode: bool,
    ) -> bool {
        if maybe_unicode && memchr::memmem::find(s, b"\\u").is_some() {
            return false;
        }
        if matches!(self.p.opts.mode, Mode::Count | Mode::Files) {
            self.count_raw(info, s, raw, escapes_from);
            return true;
        }
        let mut buf = Vec::new();
        let mut escapes = escapes_from(0).peekable();
        // k, ls: the text line at the escapes taken so far, its start
        let (mut k, mut ls, mut at) = (0usize, 0usize, 0usize);
        while at <= s.len() && !self.p.done {
            let Some(m) = raw.find_at(s, at) else { break };
            let p = m.start;
            // the escapes before the match: line breaks, and whether the
            // match starts on an escape's letter
            let mut in_escape = false;
            while let Some(&i) = escapes.peek() {
                if i >= p {
                    break;
                }
                escapes.next();
                if s.get(i + 1) == Some(&b'n') {
                    k += 1;
                    ls = i + 2;
                }
                in_escape = i + 1 == p;
            }
            if in_escape {
                at = p + 1;
                continue;
            }
            let le = escapes
                .by_ref()
                .find(|&i| s.get(i + 1) == Some(&b'n'))
                .unwrap_or(s.len());
            // the matching text line s[ls..le]
            buf.clear();
            buf.push(b'"');
            buf.extend_from_slice(&s[ls..le]);
            buf.push(b'"');
            let l = js::decode_string(&buf, 0..buf.len()).into_owned();
            self.p.matched(info, k, &l);
            if le >= s.len() {
                break;
            }
            k += 1;
            ls = le + 2;
            at = ls;
        }
        true
    }

    /// [`Searcher::raw_text`] for `-c` and `-l`, which print no line: from
    /// each match to the end of its text line, the next `\n` escape. A raw
    /// match holds no backslash (`raw_safe`), so its end is no escape's
    /// second byte and the escapes are taken from there, not walked from
    /// the string's start; whether a match starts on an escape's letter
    /// (`\nothing`) is told by the backslashes before it.
    fn count_raw<E: Iterator<Item = usize>>(
        &mut self,
        info: &Info<'_>,
        s: &[u8],
        raw: &search::Literals,
        escapes_from: impl Fn(usize) -> E,
    ) {
        let mut at = 0usize;
        while at <= s.len() && !self.p.done {
            let Some(m) = raw.find_at(s, at) else { return };
            let run = s[..m.start]
                .iter()
                .rev()
                .take_while(|&&b| b == b'\\')
                .count();
            if run % 2 == 1 {
                at = m.start + 1;
                continue;
            }
            self.p.matched(info, 0, "");
            match escapes_from(m.end).find(|&i| s.get(i + 1) == Some(&b'n')) {
                Some(i) => at = i + 2,
                None => return,
            }
        }
    }
}

/// The backslashes of the JSON string text `s` (without its quotes) that
/// start an escape, in order from `from` (no escape's second byte), found
/// by `memchr` (where there are no checker's marks).
fn memchr_escapes(s: &[u8], from: usize) -> impl Iterator<Item = usize> + '_ {
    let mut q = from;
    std::iter::from_fn(move || {
        let i = q + memchr::memchr(b'\\', s.get(q..)?)?;
        q = i + 2;
        Some(i)
    })
}

/// The first line of `lines` (whole lines) longer than `limit` bytes, as
/// a count of the lines before it.
fn too_long_in(lines: &[u8], limit: u64) -> Option<u64> {
    let mut start = 0usize;
    for (k, p) in memchr::memchr_iter(b'\n', lines)
        .chain(std::iter::once(lines.len()))
        .enumerate()
    {
        if (p - start) as u64 > limit {
            return Some(k as u64);
        }
        start = p + 1;
    }
    None
}
