//! The first layer: the file's bytes, line by line, as pi 1.6.0's
//! `loadEntriesFromFile` reads them (split at `\n`, blank lines and lines
//! that are not JSON skipped, the first line that is JSON taken as the
//! header), and what these tools read differently.

use super::*;
use crate::json::js::string::is_blank;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// What the bytes say.
pub(super) struct Facts {
    pub findings: Vec<Finding>,
}

/// The lines of `bytes`: (number from 1, the bytes without their `\n`).
pub(crate) fn lines(bytes: &[u8]) -> impl Iterator<Item = (u64, &[u8])> {
    let mut rest = Some(bytes);
    let mut n = 0u64;
    std::iter::from_fn(move || {
        let b = rest.filter(|b| !b.is_empty())?;
        n += 1;
        match memchr::memchr(b'\n', b) {
            Some(p) => {
                rest = Some(&b[p + 1..]);
                Some((n, &b[..p]))
            }
            None => {
                rest = None;
                Some((n, b))
            }
        }
    })
}

/// Where the last line that is not blank starts (None: every line is),
/// found from the end of the file rather than by a pass over it.
fn last_nonblank_start(bytes: &[u8]) -> Option<usize> {
    let mut end = bytes.len() - usize::from(bytes.ends_with(b"\n"));
    loop {
        let start = memchr::memrchr(b'\n', &bytes[..end]).map_or(0, |p| p + 1);
        let mut line = &bytes[start..end];
        if start == 0 && line.starts_with(BOM) {
            line = &line[3..];
        }
        if !is_blank(line) {
            return Some(start);
        }
        if start == 0 {
            return None;
        }
        end = start - 1;
    }
}

/// Where the header is, and what came before it.
#[derive(Default)]
struct HeaderSeen {
    /// The header's line.
    at: Option<u64>,
    /// The JSON lines before it.
    before: Vec<u64>,
}

/// Whether pi 1.6.0 opens the file: its first line that is JSON (and not
/// falsy) is a session header with a string id, no byte order mark before
/// it. Only the lines up to that one are read.
pub(super) fn pi_opens(bytes: &[u8]) -> bool {
    let mut checker = Checker::new();
    for (n, raw) in lines(bytes) {
        let (bom, line) = match raw.strip_prefix(BOM) {
            Some(rest) if n == 1 => (true, rest),
            _ => (false, raw),
        };
        if is_blank(line) {
            continue;
        }
        match quick_object(&mut checker, line) {
            Err(_) => continue,
            Ok(None) if !crate::json::js::truthy(crate::json::scan::trim_ws(line)) => continue,
            Ok(None) => return false,
            Ok(Some(obj)) => {
                return !bom
                    && obj.str("type").as_deref() == Some("session")
                    && obj.str("id").is_some()
            }
        }
    }
    false
}

/// What the loader already found of some lines: `known`, the lines (in
/// order) it read as entries that are objects with a type other than
/// `session`, which have nothing left to find but their line ends, so
/// are not parsed again; `not_utf8`, those of them that are not UTF-8
/// (in order), so that their bytes are not checked again.
#[derive(Default)]
pub(super) struct Loaded<'a> {
    pub known: &'a [u64],
    pub not_utf8: &'a [u64],
}

/// The facts of the bytes, `loaded` the loader's findings.
pub(super) fn check(bytes: &[u8], loaded: Loaded<'_>) -> Facts {
    let known = loaded.known;
    let mut known = known.iter().copied().peekable();
    let mut f = Vec::new();
    if bytes.is_empty() {
        f.push(Finding::new(
            EMPTY,
            None,
            "empty file: no header, no entries",
        ));
        return Facts { findings: f };
    }
    let mut header = HeaderSeen::default();
    let mut checker = Checker::new();
    let (mut crlf, mut first_crlf) = (0u64, 0u64);
    let last_start = last_nonblank_start(bytes);
    // Without the loader's lines: one look at the whole file, line by
    // line only when it is not UTF-8. With them: only the lines it did not
    // keep are looked at.
    let all_utf8 = loaded.known.is_empty() && simdutf8::basic::from_utf8(bytes).is_ok();
    for (n, raw) in lines(bytes) {
        let at = raw.as_ptr() as usize - bytes.as_ptr() as usize;
        let last = Some(at) == last_start;
        let mut line = raw;
        if n == 1 && line.starts_with(BOM) {
            line = &line[3..];
            f.push(
                Finding::new(BOM_KIND, Some(1), "the file starts with a byte order mark")
                    .repair(Repair::DropBom),
            );
        }
        if line.ends_with(b"\r") {
            crlf += 1;
            if first_crlf == 0 {
                first_crlf = n;
            }
        }
        if is_blank(line) {
            if !line.is_empty() && line != b"\r" {
                f.push(Finding::new(
                    BLANK_LINE,
                    Some(n),
                    "a line of white space only",
                ));
            } else if last_start.is_some_and(|s| at < s) {
                f.push(Finding::new(BLANK_LINE, Some(n), "an empty line"));
            }
            continue;
        }
        while known.next_if(|&k| k < n).is_some() {}
        let is_known = known.next_if_eq(&n).is_some();
        let bad_utf8 = match is_known {
            true => loaded.not_utf8.binary_search(&n).is_ok(),
            false => !all_utf8 && simdutf8::basic::from_utf8(line).is_err(),
        };
        if bad_utf8 {
            f.push(Finding::new(INVALID_UTF8, Some(n), "not valid UTF-8"));
        }
        if is_known {
            continue;
        }
        one_line(
            &mut f,
            &mut header,
            &mut checker,
            n,
            line,
            last && !bytes.ends_with(b"\n"),
            last,
        );
    }
    if crlf > 0 {
        f.push(
            Finding::new(
                CRLF,
                Some(first_crlf),
                format!("{crlf} line(s) end with CR LF (the first here)"),
            )
            .repair(Repair::Lf),
        );
    }
    match header.at {
        None => f.push(Finding::new(NO_HEADER, None, "no line is a session header")),
        Some(at) => {
            for &b in &header.before {
                f.push(
                    Finding::new(
                        HEADER_NOT_FIRST,
                        Some(b),
                        format!("a JSON line before the session header (line {at})"),
                    )
                    .repair(Repair::DropLine(b)),
                );
            }
        }
    }
    Facts { findings: f }
}

/// The kind of a byte order mark (`BOM` is the bytes).
const BOM_KIND: &Kind = super::BOM;

/// One line that is not blank: JSON or not, the header or an entry.
fn one_line(
    f: &mut Vec<Finding>,
    header: &mut HeaderSeen,
    checker: &mut Checker,
    n: u64,
    line: &[u8],
    torn: bool,
    last: bool,
) {
    let obj = match quick_object(checker, line) {
        Err(e) => {
            let what = e.line_problem(line.len());
            if last {
                let tail = if torn {
                    "the last line, without a newline"
                } else {
                    "the last line"
                };
                f.push(
                    Finding::new(
                        TORN_LINE,
                        Some(n),
                        format!("{tail} is not JSON ({what}): cut short?"),
                    )
                    .repair(Repair::DropLine(n)),
                );
            } else {
                f.push(Finding::new(
                    NOT_JSON,
                    Some(n),
                    format!("not JSON ({what})"),
                ));
            }
            return;
        }
        Ok(None) => {
            let v = crate::json::scan::trim_ws(line);
            let kept = crate::json::js::truthy(v);
            if header.at.is_none() && kept {
                header.before.push(n);
            }
            let what = if kept {
                "JSON but not an object (pi keeps it as an entry)"
            } else {
                "JSON but falsy (pi skips it)"
            };
            f.push(Finding::new(NOT_OBJECT, Some(n), what));
            return;
        }
        Ok(Some(o)) => o,
    };
    let is_session = obj.str("type").as_deref() == Some("session");
    if header.at.is_none() {
        if !is_session {
            header.before.push(n);
            return;
        }
        header.at = Some(n);
        header_fields(f, &obj, n);
        return;
    }
    if is_session {
        f.push(Finding::new(
            SECOND_HEADER,
            Some(n),
            "a second session header",
        ));
    }
}

/// What the header holds: a string id, a cwd, its version.
fn header_fields(f: &mut Vec<Finding>, obj: &crate::json::Object<'_>, n: u64) {
    if obj.str("id").is_none() {
        f.push(Finding::new(
            HEADER_NO_ID,
            Some(n),
            "the session header has no string id",
        ));
    }
    if obj.str("cwd").is_none_or(|c| c.is_empty()) {
        f.push(Finding::new(
            HEADER_NO_CWD,
            Some(n),
            "the session header has no cwd",
        ));
    }
    let version = obj
        .raw("version")
        .and_then(|v| std::str::from_utf8(v).ok())
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(1.0);
    if version < 3.0 {
        f.push(Finding::new(OLD_VERSION, Some(n), format!("a version-{version} session; the tree and conversation checks need version 3 (`pi-migrate -i`)")));
    }
}
