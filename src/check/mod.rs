//! What is wrong with a session file, as pi 1.6.0 would meet it, and what
//! can be repaired without losing a byte (`pi-check`).
//!
//! Each finding has a stable code ([`KINDS`]: its severity, what pi does
//! with it, what `--fix` does), the line and the entry id where there is
//! one. The checks run in layers, each on what the one before proved:
//! `file` reads the bytes line by line (what pi skips, where the header
//! is); when pi would open the file, `tree` reads it as a
//! [`Session`](crate::session::Session) (ids, parents, the tree) and
//! `talk` the conversation pi would send at the leaf; `store` looks across
//! the files of one run. `repair` turns the findings' repairs into a new
//! file (a rewrite) or into entries to append.

mod file;
mod header;
pub mod repair;
pub mod store;
mod talk;
mod tree;

use crate::entry::EntryType;
use crate::json::js::Checker;
use crate::json::{Object, SyntaxError};
use crate::session::{ReadOptions, Session};

/// The object of a line (`Ok(None)`: JSON but not an object), read the
/// quick way when pi wrote it (the checker's one pass, as `pi-ls` reads
/// lines), else by the scanner: one pass over the line either way.
pub(crate) fn quick_object<'a>(
    checker: &mut Checker,
    line: &'a [u8],
) -> Result<Option<Object<'a>>, SyntaxError> {
    match checker.valid_object(line) {
        Some(m) => Ok(Some(Object {
            text: line,
            range: 0..line.len(),
            members: m.to_vec(),
        })),
        None => Object::parse_line(line),
    }
}

/// A message entry's line (valid JSON: the loader kept it) as an object,
/// with the way to skip its strings: the checker's quote bits and
/// container ends when the quick check takes the line (one SIMD pass,
/// then every value is found without reading it again), else by memchr.
/// None: not an object.
pub(crate) fn marked_object<'l, 'c>(
    checker: &'c mut Checker,
    line: &'l [u8],
) -> Option<(Object<'l>, crate::store::raw::Strings<'c>)> {
    use crate::store::raw::Strings;
    match checker.valid_object(line) {
        Some(m) => {
            let obj = Object {
                text: line,
                range: 0..line.len(),
                members: m.to_vec(),
            };
            Some((obj, Strings::Marks(checker.marks())))
        }
        None => kept_object(line).map(|o| (o, Strings::Memchr)),
    }
}

pub(crate) use crate::entry::talk::holds;

/// How bad a finding is: an error is something pi refuses or throws on
/// (a cycle: a RangeError after seconds and gigabytes), or the provider
/// rejects; a warning loses or hides part of
/// the session; info is odd but harmless.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// A line the loader kept as an entry (so valid JSON) as an object, found
/// by its quotes and brackets alone, without proving it again (None: not
/// an object).
pub(crate) fn kept_object(line: &[u8]) -> Option<Object<'_>> {
    let ws = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let start = line.iter().position(|b| !ws(b))?;
    let end = line.iter().rposition(|b| !ws(b))? + 1;
    (line[start] == b'{').then(|| crate::store::raw::object(line, start..end))
}

/// One kind of finding: its code, severity, what pi 1.6.0 does, and what
/// `--fix` does ("" when it does not repair it).
#[derive(Debug)]
pub struct Kind {
    pub code: &'static str,
    pub severity: Severity,
    pub pi: &'static str,
    pub fix: &'static str,
}

macro_rules! kinds {
    ($($name:ident = $code:literal, $sev:ident, $pi:literal, $fix:literal;)*) => {
        $(pub const $name: &Kind = &Kind { code: $code, severity: Severity::$sev, pi: $pi, fix: $fix };)*
        /// Every kind, in the order the man page lists them.
        pub const KINDS: &[&Kind] = &[$($name),*];
    };
}

kinds! {
    EMPTY = "empty", Warning,
        "an empty file is a new session to pi: `pi --session FILE` writes a header into it; pi's session list skips it",
        "";
    BOM = "bom", Error,
        "the header line after a byte order mark is not JSON to pi, so the file has no header: pi refuses it (\"not a valid pi session\") and lists nothing of it",
        "rewrite without the mark";
    NO_HEADER = "no-header", Error,
        "pi refuses the file (\"not a valid pi session\"); its session list skips it",
        "rewrite with a header first: the id from the file name, the time of the first entry, the cwd of another session in the directory (none without one)";
    HEADER_NOT_FIRST = "header-not-first", Error,
        "pi takes the first line that is JSON as the header; when that is not a session header (a title line, an entry) pi refuses the file and lists nothing of it",
        "rewrite without the JSON lines before the header (kept in the backup or FILE.removed)";
    HEADER_NO_ID = "header-no-id", Error,
        "a header whose id is not a string: pi refuses the file",
        "";
    HEADER_NO_CWD = "header-no-cwd", Warning,
        "pi opens the file, but `pi -c` and the project's session list never match it to a directory",
        "";
    OLD_VERSION = "old-version", Warning,
        "pi migrates the entries to version 3 and rewrites the whole file when it opens it (`pi-migrate -i` does the same keeping every other byte)",
        "";
    SECOND_HEADER = "second-header", Warning,
        "pi skips a later session line (two files joined into one?); the entries after it chain on as usual",
        "";
    CRLF = "crlf", Warning,
        "JSON.parse takes the CR as white space: pi reads the lines, and appends its own with LF only",
        "rewrite with LF line ends";
    INVALID_UTF8 = "invalid-utf8", Warning,
        "pi reads each bad byte as U+FFFD, and writes U+FFFD back if it ever rewrites the file",
        "";
    LINE_TOO_LONG = "line-too-long", Error,
        "pi reads the whole file as one string and parses every line, however long; only a file over Node's 512 MiB string limit it cannot read at all (ERR_STRING_TOO_LONG)",
        "";
    TORN_LINE = "torn-line", Warning,
        "pi skips the cut-short last line without a word (and appends a newline, so its next entry starts a line of its own); the entry is lost",
        "rewrite without it (kept in the backup or FILE.removed)";
    NOT_JSON = "not-json", Warning,
        "pi skips the line without a word; what it held is not in the session, and entries naming it as parent start a new root",
        "";
    NOT_OBJECT = "not-object", Warning,
        "pi keeps a truthy value (a number, string, array) as an entry without type or id: as the last line it is the leaf and the context is empty; null, false, 0 and \"\" it skips",
        "";
    BLANK_LINE = "blank-line", Info,
        "pi skips a line of JavaScript white space only",
        "";
    NO_ID = "no-id", Warning,
        "pi keeps an entry without a string id, but no entry can name it as parent; as the last entry it makes the leaf undefined",
        "";
    NO_TYPE = "no-type", Warning,
        "pi keeps an entry without a type; it shows nothing and adds nothing to the context",
        "";
    DUPLICATE_ID = "duplicate-id", Warning,
        "pi keeps both lines, but the id names only the later one: parents and labels naming it reach the later entry",
        "";
    DANGLING_PARENT = "dangling-parent", Warning,
        "pi makes the entry a root: a context through it loses everything above it",
        "";
    OWN_PARENT = "own-parent", Error,
        "pi's getBranch walks round it, growing the path until V8 gives up: opening the session when the entry is on the leaf's path (or going to it in /tree) takes seconds and gigabytes, then fails (RangeError: Invalid array length; 2 to 2.7 GB and 10 to 18 s measured)",
        "rewrite its parentId as null (the line as it was is kept in the backup or FILE.removed)";
    CYCLE = "cycle", Error,
        "pi's getBranch walks round a parentId cycle, growing the path until V8 gives up: opening the session when the leaf's path reaches it takes seconds and gigabytes, then fails (RangeError: Invalid array length); /tree leaves the entries out",
        "rewrite the parentId that closes the cycle as null, where pi's walk from the leaf would have entered it again";
    SEVERAL_ROOTS = "several-roots", Info,
        "/tree shows each root as a tree of its own; only the leaf's root reaches the context",
        "";
    LABEL_TARGET_MISSING = "label-target-missing", Warning,
        "pi keeps the label of an entry that is not in the file; nothing shows it",
        "";
    EDIT_TARGET_MISSING = "edit-target-missing", Warning,
        "pi ignores a context_edit whose target is not in the file",
        "";
    EDIT_TARGET_NOT_EDITABLE = "edit-target-not-editable", Warning,
        "pi's appendContextEdit refuses such a target; loading, pi still applies the edit: a null replacement drops the entry's messages, a content replacement leaves them as they are",
        "";
    FIRST_KEPT_NOT_ON_PATH = "first-kept-not-on-path", Warning,
        "pi keeps nothing from before the compaction: the context is its summary and what follows it",
        "";
    FROM_ID_MISSING = "from-id-missing", Info,
        "pi only carries fromId in the summary message; nothing breaks",
        "";
    MESSAGE_MISSING = "message-missing", Error,
        "pi 1.6.0 throws (TypeError reading message.role) building the context: the session cannot be opened at this leaf",
        "";
    TOOL_CALL_WITHOUT_RESULT = "tool-call-without-result", Info,
        "pi 1.6.0 sends a synthetic error result (\"No result provided\") in its place, which providers accept",
        "";
    RESULT_WITHOUT_CALL = "result-without-call", Error,
        "pi sends the result as it is and the provider rejects the request (Anthropic: unexpected tool_use_id; OpenAI: no tool call found for the output)",
        "append a context_edit that leaves the result out of the context (pi-edit --restore undoes it)";
    ARGUMENTS_NULL = "arguments-null", Error,
        "pi's /tree throws (reading args.path of null) on the row of the call's result when the tool is a built-in one (read, write, edit, bash, grep, find, ls); sent, Anthropic gets {} and OpenAI the text \"null\"",
        "rewrite the line with {} as the arguments (the line as it was is kept in the backup or FILE.removed)";
    ARGUMENTS_NOT_OBJECT = "arguments-not-object", Error,
        "pi sends the arguments as they are: Anthropic rejects a tool_use input that is not an object; OpenAI gets their JSON text",
        "append a context_edit sending {} as the arguments (the bytes stay in the file; pi-edit --restore undoes it)";
    IMAGE_TOO_LARGE = "image-too-large", Warning,
        "pi sends the image as it is; over 5 MB (Anthropic's limit for one image, the smallest of the providers pi speaks to) the request is rejected, on every later turn too",
        "append a context_edit that sends a short text in the image's place (pi-edit --restore undoes it)";
    UNREADABLE = "unreadable", Error,
        "the file cannot be read as a session (see the message)",
        "";
    TEMP_FILE = "temp-file", Info,
        "pi ignores it (not a .jsonl name); a tool's run that was killed left it, and the tool's next run in this directory removes it",
        "";
    PARENT_SESSION_MISSING = "parent-session-missing", Warning,
        "pi shows the fork's parent as missing; nothing else depends on it",
        "";
    WRONG_DIRECTORY = "wrong-directory", Warning,
        "pi lists the session with the directory's project, but `pi -c` there skips it (its cwd is another), and its own project's list and `pi -c` never see it",
        "";
    DUPLICATE_SESSION_ID = "duplicate-session-id", Warning,
        "`pi --session ID` and `/resume` pick one of the files with that id, not both",
        "";
}

/// The image size limit of [`IMAGE_TOO_LARGE`], decoded bytes: Anthropic's
/// 5 MB per image (OpenAI and Google take 20 MB).
pub const IMAGE_LIMIT: u64 = crate::entry::talk::IMAGE_LIMIT;

/// What `--fix` would change for a finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Repair {
    /// Rewrite: put this header line before line 1.
    AddHeader(Vec<u8>),
    /// Rewrite: drop the byte order mark of line 1.
    DropBom,
    /// Rewrite: drop this line.
    DropLine(u64),
    /// Rewrite: end every line with LF only.
    Lf,
    /// Rewrite: this line's `parentId` becomes `null`.
    NullParent(u64),
    /// Rewrite: the `arguments` of these blocks of this line's message
    /// content become `{}`.
    EmptyArguments(u64, Vec<usize>),
    /// Append: a context_edit of the entry whose id is this JSON text, with
    /// this replacement (JSON text: `null` or `{"content":...}`).
    Edit {
        target: Vec<u8>,
        replacement: Vec<u8>,
    },
}

impl Repair {
    /// Whether this repair needs the file rewritten (else it appends).
    pub fn rewrites(&self) -> bool {
        !matches!(self, Repair::Edit { .. })
    }
}

/// One thing found.
#[derive(Debug, Clone)]
pub struct Finding {
    pub kind: &'static Kind,
    pub line: Option<u64>,
    /// The entry's id, as text, where there is one.
    pub id: Option<String>,
    pub message: String,
    pub repair: Option<Repair>,
}

impl Finding {
    pub fn new(kind: &'static Kind, line: Option<u64>, message: impl Into<String>) -> Self {
        Finding {
            kind,
            line,
            id: None,
            message: message.into(),
            repair: None,
        }
    }

    pub fn id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    pub fn repair(mut self, r: Repair) -> Self {
        self.repair = Some(r);
        self
    }
}

/// At most this many findings of one code a file; then one that counts the rest.
const PER_CODE: usize = 20;

/// The findings of one file, and the session when pi would open it.
pub struct Report {
    pub findings: Vec<Finding>,
    pub session: Option<Session>,
    /// The bytes, when there is no session to hold them.
    pub bytes: Option<Vec<u8>>,
}

/// Check the session `bytes` (named `name` in findings): every layer that
/// applies. The bytes are kept in the returned session (for repairs).
pub fn check_bytes(name: &str, bytes: Vec<u8>) -> Report {
    // One pass over each line: where pi opens the file the loader reads
    // (and proves) every line, and the file layer parses only the lines
    // the loader did not take as ordinary entries.
    let (bytes, unread) = if file::pi_opens(&bytes) {
        // The roles let the context's build pass over the lines of user
        // and tool messages without reading them again, and what the load
        // keeps of each message (talk) spares the checks all of them.
        let opts = ReadOptions {
            roles: true,
            talk: true,
            ..ReadOptions::default()
        };
        match Session::from_bytes_or_back(name, bytes, opts) {
            Ok(s) => return with_session(s),
            Err((e, bytes)) => (
                bytes,
                Some(Finding::new(
                    UNREADABLE,
                    e.diag.at.as_ref().and_then(|l| l.line),
                    e.diag.message.clone(),
                )),
            ),
        }
    } else {
        (bytes, None)
    };
    let facts = file::check(&bytes, file::Loaded::default());
    let mut findings = facts.findings;
    findings.extend(unread);
    Report {
        findings: cap(findings),
        session: None,
        bytes: Some(bytes),
    }
}

/// The findings of a session the loader read: its bytes', then its tree's
/// and conversation's.
fn with_session(s: Session) -> Report {
    let known: Vec<u64> = s
        .entries
        .iter()
        .filter(|e| !matches!(e.ty(), EntryType::Session | EntryType::None))
        .map(|e| e.line())
        .collect();
    // The loader's warnings name the kept lines that are not UTF-8.
    let mut not_utf8: Vec<u64> = s
        .warnings
        .iter()
        .filter(|w| w.message == crate::session::NOT_UTF8)
        .filter_map(|w| w.at.as_ref().and_then(|l| l.line))
        .collect();
    not_utf8.sort_unstable();
    let loaded = file::Loaded {
        known: &known,
        not_utf8: &not_utf8,
    };
    let facts = file::check(s.memory().unwrap_or_default(), loaded);
    let mut findings = facts.findings;
    if s.version() >= crate::migrate::CURRENT_VERSION {
        tree::check(&s, &mut findings);
        talk::check(&s, &mut findings);
    }
    Report {
        findings: cap(findings),
        session: Some(s),
        bytes: None,
    }
}

/// [`check_bytes`] of the file at `path` (`None`: stdin), with what only
/// the file's place tells: the header a file without one can be given.
pub fn check_file(path: Option<&std::path::Path>, name: &str, bytes: Vec<u8>) -> Report {
    let mut header = None;
    let mut report = check_bytes(name, bytes);
    let (findings, kept) = (&mut report.findings, &report.bytes);
    for f in findings
        .iter_mut()
        .filter(|f| f.kind.code == NO_HEADER.code)
    {
        let Some(p) = path else { continue };
        let bytes = kept.as_deref().unwrap_or_default();
        let made = header.get_or_insert_with(|| header::rebuild(p, bytes));
        match made {
            Ok(h) => f.repair = Some(Repair::AddHeader(h.clone())),
            Err(why) => f.message = format!("{}; --fix cannot add one: {why}", f.message),
        }
    }
    report
}

/// Keep [`PER_CODE`] findings of each code, in line order, and say how
/// many more there were.
fn cap(mut findings: Vec<Finding>) -> Vec<Finding> {
    findings.sort_by_key(|f| (f.line.unwrap_or(0), f.kind.code));
    // Codes in the order they first appear: the "more of these" lines come
    // out the same on every run (a hash map's order changed per process).
    let mut counts: Vec<(&str, usize)> = Vec::new();
    let mut out = Vec::with_capacity(findings.len());
    for f in findings {
        let at = match counts.iter().position(|(c, _)| *c == f.kind.code) {
            Some(at) => at,
            None => {
                counts.push((f.kind.code, 0));
                counts.len() - 1
            }
        };
        counts[at].1 += 1;
        if counts[at].1 <= PER_CODE || f.repair.is_some() {
            out.push(f);
        }
    }
    for (code, n) in counts {
        let shown = out.iter().filter(|f| f.kind.code == code).count();
        if n > shown {
            let kind = KINDS
                .iter()
                .find(|k| k.code == code)
                .copied()
                .unwrap_or(UNREADABLE);
            out.push(Finding::new(
                kind,
                None,
                format!("{} more of these", n - shown),
            ));
        }
    }
    out
}
