//! `pi-grep`'s patterns: the regex, and the prefilter that looks for its
//! literals in the raw JSON bytes (escaped as `JSON.stringify` writes
//! them) before anything is decoded.

use regex_syntax::hir::literal::{ExtractKind, Extractor};

/// How the patterns are read.
#[derive(Debug, Clone, Copy, Default)]
pub struct PatternOptions {
    pub ignore_case: bool,
    pub word: bool,
    /// Whole lines only (`-x`): the pattern anchored at a line's ends.
    pub line: bool,
    pub fixed: bool,
}

/// The compiled patterns and the raw-byte prefilter.
#[derive(Debug, Clone)]
pub struct Matcher {
    pub re: regex::Regex,
    /// Finds every place in the raw JSON where a match of `re` in the
    /// decoded text could start: the JSON-escaped form of each literal a
    /// match must start (or end) with, and the escapes that could hide one
    /// (`\uXXXX` of a character JSON.stringify does not escape, `\/`).
    /// None when the pattern has no such literals (every line is decoded).
    pre: Option<Prefilter>,
    /// Whether every match of `re` in a text lies within one of its lines
    /// and is a match of that line: the pattern cannot match a line break
    /// and asserts nothing but word boundaries (the break is no word
    /// character, as the line's edge is not). Then a text is searched
    /// whole, match to match, instead of line by line.
    pub whole: bool,
    /// The pattern on the raw bytes of a JSON string, when a match there
    /// is a match of the decoded text and the other way round, as long as
    /// the string holds no `\u` escape (see `raw_safe`).
    pub raw: Option<Literals>,
}

/// A search for literals (or a regex) in bytes: `memchr`'s `memmem` for
/// one literal whose case matters (a rare-byte search, several times
/// quicker than a regex's), else the regex crate.
#[derive(Debug, Clone)]
pub enum Literals {
    One(Box<memchr::memmem::Finder<'static>>),
    Regex(regex::bytes::Regex),
}

impl Literals {
    /// The first match in `hay[from..]`, as a range of `hay`.
    #[inline]
    pub fn find_at(&self, hay: &[u8], from: usize) -> Option<std::ops::Range<usize>> {
        match self {
            Literals::One(f) => {
                let s = from + f.find(hay.get(from..)?)?;
                Some(s..s + f.needle().len())
            }
            Literals::Regex(r) => r.find_at(hay, from).map(|m| m.range()),
        }
    }
}

/// The prefilter (see [`Matcher::pre`]): the escaped literals, and which
/// escapes could hide one.
#[derive(Debug, Clone)]
struct Prefilter {
    lits: Literals,
    /// Every `\u` escape could hide a literal (one holds a control
    /// character, which may be written `\u00XX`); else only those of a
    /// character that is not a control character.
    any_u: bool,
    /// `\/` could hide one (a literal holds `/`).
    slash: bool,
    /// A literal could be in a tool call's text and not in the line:
    /// that text is made, not written (the name, a space, the arguments
    /// as JSON.stringify writes them: quotes unescaped, numbers printed
    /// again, integer keys first), so every line with a tool call is a
    /// candidate (see [`tool_call_risky`]).
    tool_call: bool,
}

/// The prefilter's hits in one haystack, in order: each of its searches
/// (the literals, `\u`, `\/`) runs once over the haystack, not once per
/// call (a search for an escape the file lacks would otherwise read to the
/// end of the file at every call).
pub struct Candidates<'m, 'h> {
    pre: Option<&'m Prefilter>,
    hay: &'h [u8],
    /// For each search: not run yet (None), or its first hit at or after
    /// where it was last run (Some(None): no hit left).
    next: [Option<Option<usize>>; 4],
}

const U_ESCAPE: &[u8] = b"\\u";
const SLASH_ESCAPE: &[u8] = b"\\/";
const TOOL_CALL: &[u8] = b"\"toolCall\"";

impl Candidates<'_, '_> {
    /// Where in `hay[from..]` the next place is that could hold a match
    /// (`Some(from)` when there is no prefilter). `from` must not go back.
    pub fn next_from(&mut self, from: usize) -> Option<usize> {
        let Some(p) = self.pre else {
            return (from < self.hay.len()).then_some(from);
        };
        let hay = self.hay;
        let mut best: Option<usize> = None;
        for (k, next) in self.next.iter_mut().enumerate() {
            if (k == 2 && !p.slash) || (k == 3 && !p.tool_call) {
                continue;
            }
            let hit = match *next {
                Some(None) => None,
                Some(Some(h)) if h >= from => Some(h),
                _ => {
                    let rest = hay.get(from..).unwrap_or_default();
                    let h = match k {
                        0 => p.lits.find_at(hay, from).map(|r| r.start),
                        1 => next_u_escape(hay, from, p.any_u),
                        2 => memchr::memmem::find(rest, SLASH_ESCAPE).map(|i| from + i),
                        _ => memchr::memmem::find(rest, TOOL_CALL).map(|i| from + i),
                    };
                    *next = Some(h);
                    h
                }
            };
            if let Some(h) = hit {
                best = Some(best.map_or(h, |b| b.min(h)));
            }
        }
        best
    }
}

/// The next `\u` escape in `hay[from..]` that could hide a literal: any
/// (`any`), or one that is not a control character's as JSON.stringify
/// writes it (`\u000X` or `\u001X` in lowercase hex, but not `\b`, `\t`,
/// `\n`, `\f`, `\r`'s): a tool call's text writes its arguments again as
/// JSON.stringify does, so another spelling there (`\u000a`, `\u001F`)
/// becomes letters that are not in the line (`\n`, `\u001f`).
fn next_u_escape(hay: &[u8], mut from: usize, any: bool) -> Option<usize> {
    let f = memchr::memmem::Finder::new(U_ESCAPE);
    while let Some(i) = f.find(hay.get(from..)?) {
        let p = from + i;
        let h = hay.get(p + 2..).unwrap_or_default();
        let control = match h {
            [b'0', b'0', b'0', c, ..] => matches!(c, b'0'..=b'7' | b'b' | b'e' | b'f'),
            [b'0', b'0', b'1', c, ..] => matches!(c, b'0'..=b'9' | b'a'..=b'f'),
            _ => false,
        };
        if any || !control {
            return Some(p);
        }
        from = p + 2;
    }
    None
}

impl Matcher {
    /// Compile `patterns` (any of them matches). The error is the regex
    /// crate's message.
    pub fn new(patterns: &[String], o: PatternOptions) -> Result<Matcher, String> {
        let parse = |p: &str| {
            regex_syntax::ParserBuilder::new()
                .case_insensitive(o.ignore_case)
                .build()
                .parse(p)
                .map(drop)
                .map_err(|e| e.to_string())
        };
        let mut parts = Vec::new();
        for p in patterns {
            let p = if o.fixed { regex::escape(p) } else { p.clone() };
            // Each pattern is checked alone (in a group, `a)|(b` would
            // pass), and its group closed on a line of its own when it
            // ends in a comment (`(?x)a # note`), where the line break is
            // a space.
            parse(&p)?;
            let group = format!("(?:{p})");
            parts.push(match parse(&group) {
                Ok(_) => group,
                Err(_) => format!("(?:{p}\n)"),
            });
        }
        let mut pat = parts.join("|");
        if o.line {
            // grep -x: the whole line (texts are searched line by line
            // once the pattern asserts a line's ends, see `line_local`)
            pat = format!(r"^(?:{pat})$");
        } else if o.word {
            // grep's and ripgrep's: no word character on either side (not
            // \b, which a pattern that starts or ends with no word
            // character turns around: -w -x in "a -x b")
            pat = format!(r"\b{{start-half}}(?:{pat})\b{{end-half}}");
        }
        let re = regex::RegexBuilder::new(&pat)
            .case_insensitive(o.ignore_case)
            .size_limit(64 << 20)
            .build()
            .map_err(|e| e.to_string())?;
        let pre = prefilter(&pat, o.ignore_case);
        let hir = regex_syntax::ParserBuilder::new()
            .case_insensitive(o.ignore_case)
            .build()
            .parse(&pat)
            .ok();
        let whole = hir.as_ref().is_some_and(line_local);
        let raw = match hir.as_ref().filter(|h| raw_safe(h)) {
            Some(h) => match (h.kind(), o.ignore_case) {
                (regex_syntax::hir::HirKind::Literal(l), false) => Some(Literals::One(Box::new(
                    memchr::memmem::Finder::new(&l.0[..]).into_owned(),
                ))),
                _ => regex::bytes::RegexBuilder::new(&pat)
                    .case_insensitive(o.ignore_case)
                    .size_limit(64 << 20)
                    .build()
                    .ok()
                    .map(Literals::Regex),
            },
            None => None,
        };
        Ok(Matcher {
            re,
            pre,
            whole,
            raw,
        })
    }

    /// The places in `hay` (raw JSON) that could hold a match, in order.
    pub fn candidates<'m, 'h>(&'m self, hay: &'h [u8]) -> Candidates<'m, 'h> {
        Candidates {
            pre: self.pre.as_ref(),
            hay,
            next: [None; 4],
        }
    }

    /// Whether a raw line could hold a match.
    #[inline]
    pub fn may_match(&self, raw: &[u8]) -> bool {
        self.candidates(raw).next_from(0).is_some()
    }
}

/// Whether `h` can match no `\n` and asserts only word boundaries (see
/// [`Matcher::whole`]).
fn line_local(h: &regex_syntax::hir::Hir) -> bool {
    use regex_syntax::hir::{Class, HirKind, Look};
    match h.kind() {
        HirKind::Empty => true,
        HirKind::Literal(l) => !l.0.contains(&b'\n'),
        HirKind::Class(Class::Unicode(c)) => c
            .ranges()
            .iter()
            .all(|r| !(r.start() <= '\n' && '\n' <= r.end())),
        HirKind::Class(Class::Bytes(c)) => c
            .ranges()
            .iter()
            .all(|r| !(r.start() <= b'\n' && b'\n' <= r.end())),
        HirKind::Look(l) => !matches!(
            l,
            Look::Start | Look::End | Look::StartLF | Look::EndLF | Look::StartCRLF | Look::EndCRLF
        ),
        HirKind::Repetition(r) => line_local(&r.sub),
        HirKind::Capture(c) => line_local(&c.sub),
        HirKind::Concat(v) | HirKind::Alternation(v) => v.iter().all(line_local),
    }
}

/// Whether a match of `h` on a JSON string's raw bytes is a match on its
/// decoded text, and the other way round, as long as the string holds no
/// `\u` escape and the match does not start on the letter of an escape:
/// `h` asserts nothing (no word boundaries: a raw `\nx` has a letter
/// before `x`, the decoded text a line break) and can match no character
/// that JSON writes escaped or that an escape gives (`"`, `\`, `/`,
/// control characters) nor U+FFFD (what invalid UTF-8 decodes to), so a
/// match holds no escape and its bytes are the decoded text's.
fn raw_safe(h: &regex_syntax::hir::Hir) -> bool {
    use regex_syntax::hir::{Class, HirKind};
    let bad = |c: u32| {
        c < 0x20
            || c == u32::from(b'"')
            || c == u32::from(b'\\')
            || c == u32::from(b'/')
            || c == 0xFFFD
    };
    match h.kind() {
        HirKind::Empty => false,
        HirKind::Literal(l) => {
            std::str::from_utf8(&l.0).is_ok_and(|s| !s.chars().any(|c| bad(c as u32)))
        }
        HirKind::Class(Class::Unicode(c)) => c.ranges().iter().all(|r| {
            let (a, b) = (r.start() as u32, r.end() as u32);
            !(a < 0x20
                || (a..=b).contains(&0x22)
                || (a..=b).contains(&0x5C)
                || (a..=b).contains(&0x2F)
                || (a..=b).contains(&0xFFFD))
        }),
        HirKind::Class(Class::Bytes(c)) => c.ranges().iter().all(|r| {
            let (a, b) = (u32::from(r.start()), u32::from(r.end()));
            b < 0x80
                && !(a < 0x20
                    || (a..=b).contains(&0x22)
                    || (a..=b).contains(&0x5C)
                    || (a..=b).contains(&0x2F))
        }),
        HirKind::Look(_) => false,
        HirKind::Repetition(r) => r.min > 0 && raw_safe(&r.sub),
        HirKind::Capture(c) => raw_safe(&c.sub),
        HirKind::Concat(v) => !v.is_empty() && v.iter().all(raw_safe),
        HirKind::Alternation(v) => v.iter().all(raw_safe),
    }
}

/// The prefilter for `pat` (see [`Matcher::pre`]).
fn prefilter(pat: &str, ignore_case: bool) -> Option<Prefilter> {
    // The literals as written: with -i the prefilter itself ignores case
    // (Unicode's simple case folding, as the pattern does), rather than
    // listing every case variant of them.
    let hir = regex_syntax::ParserBuilder::new().build().parse(pat).ok()?;
    let lits = [ExtractKind::Prefix, ExtractKind::Suffix]
        .into_iter()
        .filter_map(|kind| {
            let mut seq = Extractor::new().kind(kind).extract(&hir);
            seq.minimize_by_preference();
            let lits: Vec<Vec<u8>> = seq
                .literals()?
                .iter()
                .map(|l| l.as_bytes().to_vec())
                .collect();
            let usable = !lits.is_empty()
                && lits.len() <= 64
                && lits
                    .iter()
                    .all(|l| !l.is_empty() && !l.windows(3).any(|w| w == "\u{FFFD}".as_bytes()));
            usable.then_some(lits)
        })
        // The longer the shortest literal, the fewer false hits.
        .max_by_key(|lits| lits.iter().map(Vec::len).min().unwrap_or(0))?;
    let escaped: Vec<Vec<u8>> = lits.iter().map(|l| json_escape(l)).collect();
    let lits_search = match (&escaped[..], ignore_case) {
        ([one], false) => {
            Literals::One(Box::new(memchr::memmem::Finder::new(&one[..]).into_owned()))
        }
        _ => {
            let mut alts: Vec<String> = escaped.iter().map(|l| escape_bytes(l)).collect();
            alts.sort();
            alts.dedup();
            Literals::Regex(
                regex::bytes::RegexBuilder::new(&alts.join("|"))
                    .case_insensitive(ignore_case)
                    .build()
                    .ok()?,
            )
        }
    };
    Some(Prefilter {
        lits: lits_search,
        // A control character may be written \u00XX in either case, or
        // (non-canonically) \u000a for \n.
        any_u: lits.iter().any(|l| l.iter().any(|&b| b < 0x20)),
        slash: lits.iter().any(|l| l.contains(&b'/')),
        tool_call: lits.iter().any(|l| tool_call_risky(l)),
    })
}

/// Whether a literal could be in a tool call's text (`NAME {ARGS}`, the
/// arguments as JSON.stringify writes them) without being in the line:
/// it holds JSON's own syntax (quotes, backslashes, `:` `,` brackets,
/// which the arguments' JSON has unescaped and the line's prefilter
/// looks for escaped; integer keys move first), a number's characters
/// (numbers are printed again: `1e2` is `100`), or the space between the
/// name and the arguments (` {`, or a space at its end).
fn tool_call_risky(l: &[u8]) -> bool {
    l.iter().any(|&b| {
        matches!(
            b,
            b'"' | b'\\' | b':' | b',' | b'{' | b'}' | b'[' | b']' | b'+' | b'-' | b'.'
        ) || b.is_ascii_digit()
    }) || l.windows(2).any(|w| w == b" {")
        || l.last() == Some(&b' ')
}

/// Bytes as a regex that matches them: characters escaped, bytes that are
/// no UTF-8 as `(?-u:\xNN)`.
fn escape_bytes(b: &[u8]) -> String {
    let mut out = String::new();
    for chunk in b.utf8_chunks() {
        out.push_str(&regex::escape(chunk.valid()));
        for x in chunk.invalid() {
            out.push_str(&format!(r"(?-u:\x{x:02X})"));
        }
    }
    out
}

/// `s` as JSON.stringify writes it inside a string (byte by byte: bytes of
/// multi-byte characters are never escaped).
fn json_escape(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for &b in s {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            0..=0x1f => out.extend_from_slice(format!("\\u{b:04x}").as_bytes()),
            _ => out.push(b),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::js;

    fn m(p: &str, ic: bool) -> Matcher {
        Matcher::new(
            &[p.to_string()],
            PatternOptions {
                ignore_case: ic,
                ..Default::default()
            },
        )
        .unwrap()
    }

    #[test]
    fn prefilter_finds_escaped_literals() {
        let x = m("say \"hi\"\tnow", false);
        assert!(x.may_match(br#"{"a":"x say \"hi\"\tnow"}"#));
        assert!(!x.may_match(br#"{"a":"x say hi now"}"#));
        let x = m("café", false);
        assert!(x.may_match(br#"{"a":"caf\u00e9"}"#));
        assert!(x.may_match("{\"a\":\"café\"}".as_bytes()));
        assert!(!x.may_match(br#"{"a":"cafe \u001b[0m"}"#));
        let x = m("a/b", false);
        assert!(x.may_match(br#"{"a":"a\/b"}"#));
        let x = m("(?i)sqlite.*lock", false);
        assert!(x.may_match(br#"{"a":"SQLite is locked"}"#));
        assert!(m(r"\w+", false).pre.is_none() || m(r"\w+", false).may_match(b"x"));
        let x = m("refused", true);
        assert!(x.may_match(br#"{"a":"REFUSED"}"#));
        assert!(!x.may_match(br#"{"a":"nothing"}"#));
    }

    #[test]
    fn raw_search_only_for_safe_patterns() {
        for (p, ic, safe) in [
            ("session", false, true),
            ("session", true, true),
            ("naïve café", false, true),
            ("x[0-9]+y", false, true),
            (r"\bsession", false, false),
            ("^the", false, false),
            ("a/b", false, false),
            ("say \"hi\"", false, false),
            (r"a\\b", false, false),
            ("a.b", false, false),
            ("a\tb", false, false),
            ("a*", false, false),
            ("[^a]", false, false),
        ] {
            assert_eq!(m(p, ic).raw.is_some(), safe, "{p} {ic}");
        }
        assert!(m("session", false).whole);
        assert!(m(r"\bword\b", false).whole);
        assert!(!m(r"a\sb", false).whole);
        assert!(!m("^x", false).whole);
    }

    /// Whenever a pattern matches a line of the decoded text, the
    /// prefilter lets the raw line through, however the text is escaped.
    #[test]
    fn prefilter_never_hides_a_match() {
        let texts = [
            "say \"hi\"\tnow",
            "café au lait\nsecond line",
            "a/b\\c é\u{1b}[0m",
            "Connection REFUSED",
            "x\u{7f}y 日本語 🙂",
        ];
        let pats = [
            "hi",
            "\"hi\"",
            "\tnow",
            "café",
            "(?i)CAFÉ",
            "^second",
            "a/b",
            r"b\\c",
            "refused",
            "(?i)refused",
            "日本",
            "🙂",
            r"\x7fy",
            "\u{1b}",
            r"lait$",
            r"\bsay\b",
            "é",
        ];
        let canonical = |t: &str| {
            let mut v = Vec::new();
            js::escape::write_str(&mut v, t);
            v
        };
        let all_u = |t: &str| {
            let mut v = b"\"".to_vec();
            for u in t.encode_utf16() {
                v.extend_from_slice(format!("\\u{u:04X}").as_bytes());
            }
            v.push(b'"');
            v
        };
        for p in pats {
            for ic in [false, true] {
                let x = m(p, ic);
                for t in texts {
                    if !t.split('\n').any(|l| x.re.is_match(l)) {
                        continue;
                    }
                    for raw in [canonical(t), all_u(t)] {
                        let line = [b"{\"text\":".as_slice(), &raw, b"}"].concat();
                        assert!(
                            x.may_match(&line),
                            "{p} {ic} {}",
                            String::from_utf8_lossy(&line)
                        );
                    }
                }
            }
        }
    }

    /// The candidates of a haystack, in order, are the places one regex of
    /// all the searches (the literals, `\u` of no control character or any
    /// `\u`, `\/`) finds (the expected places are Python's `re` with that
    /// regex).
    #[test]
    fn candidates_are_every_search_in_order() {
        let hay = br#"{"a":"x\u001b session \u00e9 a\/b \/ session"}{"b":"\u0041"}"#;
        for (p, ic, want) in [
            ("session", false, vec![14, 22, 37, 52]),
            ("a/b", false, vec![22, 30, 34, 52]),
            ("\x1b", false, vec![7, 22, 52]),
            ("SESSION", true, vec![14, 22, 37, 52]),
        ] {
            let x = m(p, ic);
            let mut c = x.candidates(hay);
            let mut got = Vec::new();
            let mut from = 0;
            while let Some(h) = c.next_from(from) {
                got.push(h);
                from = h + 1;
            }
            assert_eq!(got, want, "{p}");
        }
    }

    /// A tool call's text is made (the name, a space, the arguments as
    /// JSON.stringify writes them), not written in the line: whenever a
    /// pattern matches that text, the prefilter lets the line through.
    #[test]
    fn prefilter_never_hides_a_tool_call_match() {
        let args = [
            r#"{"command":"ls","n":1e2,"b":2,"2":3}"#,
            r#"{"path": "a/b.rs", "x": [1.50, -0.0, 1E21, 0.0000001]}"#,
            r#"{"s":"q\"uote\\d \u00e9 \/","t":true,"z":null}"#,
            r#"{}"#,
            r#"{"s":"x\u000aab\u0009c\u001Fd\u000b"}"#,
        ];
        let pats = [
            "bash {",
            "\"command\":\"ls\"",
            "ls\"",
            "100",
            ":3,",
            "h \\{",
            "bash ",
            "1.5",
            "1e+21",
            "1e-7",
            "-0",
            "\"2\":3,\"",
            "a/b",
            "é",
            "\\\"",
            "uote\\\\d",
            "\\/",
            "true,",
            "[1.5",
            "path\":\"a",
            "nab",
            "tc",
            "fd",
            "u000b",
        ];
        for (a, name) in args.iter().flat_map(|a| [(a, "bash"), (a, r"b\u0061sh")]) {
            // pi-grep also asks of the tool call's block alone (see
            // search::quick_entry)
            let block =
                format!(r#"{{"type":"toolCall","id":"c","name":"{name}","arguments":{a}}}"#);
            let line = format!(
                r#"{{"type":"message","id":"a1","parentId":null,"message":{{"role":"assistant","content":[{block}]}}}}"#
            );
            let o = crate::json::Object::parse_line(line.as_bytes())
                .unwrap()
                .unwrap();
            let text = crate::search::entry_spans(&crate::search::Entry::new(&o, None))
                .into_iter()
                .map(|s| s.decode().text.into_owned())
                .collect::<Vec<_>>()
                .join("\n");
            for p in pats {
                for fixed in [false, true] {
                    let x = Matcher::new(
                        &[p.to_string()],
                        PatternOptions {
                            fixed,
                            ..Default::default()
                        },
                    );
                    let Ok(x) = x else { continue };
                    if x.re.is_match(&text) {
                        assert!(x.may_match(line.as_bytes()), "{p} {fixed}: {text}");
                        assert!(x.may_match(block.as_bytes()), "{p} {fixed}: {block}");
                    }
                }
            }
        }
    }
}
