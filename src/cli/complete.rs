//! Completions that know the session: `COMPLETE=bash pi-path` prints a
//! registration script, and the shell then runs the tool again with the
//! words typed so far (clap_complete's `CompleteEnv`). A REF completes to
//! `leaf`, `root`, ..., the `@label`s and the entry ids of the SESSION
//! already typed; a SESSION to files and this project's session ids.
//!
//! The candidates are session text, so none with a control character is
//! offered (it would reach the terminal raw), and bash gets each one
//! backslash-quoted: bash inserts a candidate as it stands, and a label
//! `$(rm x)` must stay text.

use super::Tool;
use clap_complete::engine::{
    ArgValueCompleter, CompletionCandidate, PathCompleter, ValueCompleter,
};
use clap_complete::env::{EnvCompleter, Shells};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The most ids or labels offered: beyond this the user types more first
/// (and a huge store or session costs no more than this many lines).
const MAX_CANDIDATES: usize = 300;

/// The most session files whose header is read for id prefixes.
const MAX_FILES: usize = 2000;

/// A session larger than this is not read to complete a REF.
const MAX_SESSION_BYTES: u64 = 256 << 20;

/// The words before the one being completed (the tool's name first), as
/// the shell adapter received them: the REF completer's SESSION is there.
static WORDS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// SESSION and `--session-dir`, as the words typed so far give them.
type SessionOf = fn(&[String]) -> (Option<String>, Option<PathBuf>);

/// How this tool reads SESSION and `--session-dir` from [`WORDS`].
static SESSION_OF: OnceLock<SessionOf> = OnceLock::new();

/// When `COMPLETE` is set (`COMPLETE=bash pi-path`): print the
/// registration script, or the candidates for the words the shell passes
/// after `--`, and exit. Otherwise return, and the tool runs.
pub(super) fn complete_if_asked<A: Tool>() {
    if std::env::var_os("COMPLETE").is_none_or(|v| v.is_empty() || v == "0") {
        return;
    }
    let _ = SESSION_OF.set(session_of::<A>);
    let zsh = Recorded(clap_complete::env::Zsh, Typed::All);
    let fish = Recorded(clap_complete::env::Fish, Typed::Last);
    let shells: [&dyn EnvCompleter; 3] = [&Bash, &zsh, &fish];
    clap_complete::CompleteEnv::with_factory(completion_command::<A>)
        .shells(Shells(&shells))
        .complete();
}

/// The tool's command with the session-aware completers on its REF,
/// SESSION and path arguments.
fn completion_command<A: Tool>() -> clap::Command {
    super::command::<A>().mut_args(|a| {
        let names: Vec<String> = a
            .get_value_names()
            .unwrap_or_default()
            .iter()
            .map(|n| n.to_string())
            .collect();
        if names.iter().any(|n| n == "REF") {
            a.add(ArgValueCompleter::new(RefCompleter))
        } else if names.iter().any(|n| n.contains("SESSION")) {
            // pi-grep's PATTERN and pi-usage's REPORT come first.
            let skip_first = names.iter().any(|n| n.starts_with("PATTERN"));
            a.add(ArgValueCompleter::new(SessionCompleter { skip_first }))
        } else if a.get::<ArgValueCompleter>().is_none()
            && matches!(
                a.get_value_hint(),
                clap::ValueHint::AnyPath | clap::ValueHint::FilePath | clap::ValueHint::DirPath
            )
        {
            a.add(ArgValueCompleter::new(InertPaths))
        } else {
            a
        }
    })
}

/// SESSION and `--session-dir` as the words typed so far give them.
fn session_of<A: Tool>(words: &[String]) -> (Option<String>, Option<PathBuf>) {
    let mut words = words.to_vec();
    // `pi-path --leaf <TAB>`: the option waits for the word completed.
    if words.len() > 1
        && words
            .last()
            .is_some_and(|w| w.starts_with('-') && !w.contains('='))
    {
        words.pop();
    }
    let Ok(m) = super::command::<A>()
        .ignore_errors(true)
        .try_get_matches_from(words)
    else {
        return (None, None);
    };
    let session = m.try_get_one::<String>("session").ok().flatten().cloned();
    let dir = m
        .try_get_one::<PathBuf>("session_dir")
        .ok()
        .flatten()
        .cloned();
    (session, dir)
}

/// Whether `s` may be offered to a shell: no control character (ESC, a
/// line break, the bash adapter's separator) and not empty.
fn inert(s: &str) -> bool {
    !s.is_empty() && !s.chars().any(char::is_control)
}

/// A help text from session content: one line, controls made visible.
fn help(s: &str) -> Option<clap::builder::StyledStr> {
    let one = crate::summary::one_line(s, 60);
    Some(crate::visible::text(&one).into_owned().into())
}

/// REF: the keywords, then the `@label`s and the entry ids of the session
/// typed so far.
struct RefCompleter;

impl ValueCompleter for RefCompleter {
    fn complete(&self, current: &OsStr) -> Vec<CompletionCandidate> {
        let current = current.to_string_lossy();
        let mut out: Vec<CompletionCandidate> = [
            ("leaf", "the last entry"),
            ("last", "the last conversation entry"),
            ("user", "the last user message"),
            ("root", "the first entry"),
        ]
        .into_iter()
        .filter(|(k, _)| k.starts_with(&*current))
        .map(|(k, h)| CompletionCandidate::new(k).help(Some(h.into())))
        .collect();
        if let Some(s) = context_session() {
            out.extend(labels(&s, &current));
            if !current.is_empty() && !current.starts_with('@') {
                out.extend(ids(&s, &current));
            }
        }
        out
    }
}

/// The session the words typed so far name, when it is a regular file of
/// bounded size (never stdin, a FIFO or a device: completion must not wait).
fn context_session() -> Option<crate::session::Session> {
    let words = WORDS.lock().ok()?.clone();
    let (session, dir) = SESSION_OF.get()?(&words);
    let crate::session::Input::File(path) =
        crate::store::resolve_session(Some(&session?), dir.as_deref()).ok()?
    else {
        return None;
    };
    let meta = std::fs::metadata(&path).ok()?;
    if !meta.is_file() || meta.len() > MAX_SESSION_BYTES {
        return None;
    }
    let input = crate::session::Input::File(path);
    crate::session::Session::open(input, Default::default()).ok()
}

/// `@NAME` for each label in force that starts with `current`.
fn labels(s: &crate::session::Session, current: &str) -> Vec<CompletionCandidate> {
    if !(current.is_empty() || current.starts_with('@')) {
        return Vec::new();
    }
    s.index
        .labels
        .iter()
        .map(|l| (format!("@{}", l.label), l.target.to_string()))
        .filter(|(name, _)| inert(name) && name.starts_with(current))
        .take(MAX_CANDIDATES)
        .map(|(name, target)| CompletionCandidate::new(name).help(help(&target)))
        .collect()
}

/// The entry ids that start with `current`, with a summary of each; none
/// when more than [`MAX_CANDIDATES`] do (the user types more first).
fn ids(s: &crate::session::Session, current: &str) -> Vec<CompletionCandidate> {
    let found: Vec<(String, usize)> = s
        .index
        .ids()
        .filter(|(id, _)| !matches!(id, crate::entry::Id::Value(_)))
        .map(|(id, i)| (id.to_string(), i))
        .filter(|(id, _)| inert(id) && id.starts_with(current))
        .take(MAX_CANDIDATES + 1)
        .collect();
    if found.len() > MAX_CANDIDATES {
        return Vec::new();
    }
    found
        .into_iter()
        .map(|(id, i)| {
            let summary = crate::summary::entry_summary(s, i, 60).unwrap_or_default();
            CompletionCandidate::new(id).help(help(&summary))
        })
        .collect()
}

/// SESSION: files, and the ids of this project's sessions (their headers
/// only, at most [`MAX_FILES`] of them).
struct SessionCompleter {
    skip_first: bool,
}

impl ValueCompleter for SessionCompleter {
    fn complete(&self, current: &OsStr) -> Vec<CompletionCandidate> {
        let mut out = InertPaths.complete(current);
        let current = current.to_string_lossy();
        if crate::store::looks_like_path(&current) {
            return out;
        }
        let dir = WORDS
            .lock()
            .ok()
            .and_then(|w| SESSION_OF.get().and_then(|f| f(&w).1));
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let local = crate::store::project_session_dir(&cwd, dir.as_deref());
        out.extend(session_ids(&local, &current));
        out
    }

    fn complete_at(&self, arg_index: usize, current: &OsStr) -> Vec<CompletionCandidate> {
        match self.skip_first && arg_index == 0 {
            true => Vec::new(),
            false => self.complete(current),
        }
    }
}

/// The header ids in `dir` that start with `current`, with the file's name.
fn session_ids(dir: &Path, current: &str) -> Vec<CompletionCandidate> {
    let mut found: Vec<(String, String)> = crate::store::session_files_in(dir)
        .into_iter()
        .take(MAX_FILES)
        .filter_map(|p| {
            let id = crate::store::header_id(&p)?;
            let name = p.file_name()?.to_string_lossy().into_owned();
            Some((id, name))
        })
        .filter(|(id, _)| inert(id) && id.starts_with(current))
        .collect();
    found.sort();
    found.truncate(MAX_CANDIDATES);
    found
        .into_iter()
        .map(|(id, name)| {
            let name = crate::visible::text(&name).into_owned();
            CompletionCandidate::new(id).help(Some(name.into()))
        })
        .collect()
}

/// clap_complete's path completion, without the names that hold control
/// characters.
struct InertPaths;

impl ValueCompleter for InertPaths {
    fn complete(&self, current: &OsStr) -> Vec<CompletionCandidate> {
        let mut out = PathCompleter::any().complete(current);
        out.retain(|c| c.get_value().to_str().is_some_and(inert));
        out
    }
}

/// A shell adapter of clap_complete's that first unquotes the words the
/// shell passes as typed (zsh's `words`; fish's current token, the others
/// it passes unquoted already) and records those before the one completed.
struct Recorded<S>(S, Typed);

/// Which words a shell passes as typed, quotes and backslashes included.
#[derive(Clone, Copy, PartialEq)]
enum Typed {
    All,
    Last,
}

impl<S: EnvCompleter> EnvCompleter for Recorded<S> {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn is(&self, name: &str) -> bool {
        self.0.is(name)
    }
    fn write_registration(
        &self,
        var: &str,
        name: &str,
        bin: &str,
        completer: &str,
        buf: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        self.0.write_registration(var, name, bin, completer, buf)?;
        if self.name() == "zsh" {
            // Autoloaded from a file `_TOOL` on `fpath`, the script runs as
            // the function `_TOOL` on the first TAB: complete then too (it
            // only registered, and the first TAB did nothing).
            let fun = name.replace('-', "_");
            writeln!(
                buf,
                "if [[ \"${{funcstack[1]}}\" == \"_{bin}\" ]]; then _clap_dynamic_completer_{fun} \"$@\"; fi"
            )?;
        }
        Ok(())
    }
    fn write_complete(
        &self,
        cmd: &mut clap::Command,
        args: Vec<OsString>,
        current_dir: Option<&Path>,
        buf: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        let n = args.len();
        let words: Vec<String> = args
            .iter()
            .enumerate()
            .map(|(k, a)| match self.1 == Typed::All || k + 1 == n {
                true => unquote(&a.to_string_lossy()),
                false => a.to_string_lossy().into_owned(),
            })
            .collect();
        record(&words, index_of(n));
        let args = words.into_iter().map(OsString::from).collect();
        self.0.write_complete(cmd, args, current_dir, buf)
    }
}

/// The index of the word completed: `_CLAP_COMPLETE_INDEX` where the
/// script passes it (bash, zsh), else the last word (fish).
fn index_of(n: usize) -> usize {
    std::env::var("_CLAP_COMPLETE_INDEX")
        .ok()
        .and_then(|i| i.parse().ok())
        .unwrap_or(n.saturating_sub(1))
}

fn record(words: &[String], index: usize) {
    if let Ok(mut w) = WORDS.lock() {
        *w = words[..index.min(words.len())].to_vec();
    }
}

/// A word as the shell will read it, from its text as typed: quotes and
/// backslashes removed (an unclosed quote runs to the end).
fn unquote(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    let mut quote = None;
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '\\') | (Some('"'), '\\') => match chars.next() {
                Some(n) if quote.is_none() || matches!(n, '"' | '\\' | '$' | '`') => out.push(n),
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push('\\'),
            },
            _ => out.push(c),
        }
    }
    out
}

/// `s` quoted for bash's command line: each character but letters,
/// digits, non-ASCII and `@%+=:,./_-` after a backslash.
fn bash_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    for c in s.chars() {
        if !(c.is_alphanumeric() || "@%+=:,./_-".contains(c)) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Bash, with a registration of its own: bash cuts words at
/// `COMP_WORDBREAKS` (`@`, `=`, `:`), which would make `@plan` two words
/// and the label unknowable; the script joins the words no blank
/// separates, and takes off the candidates what bash keeps before the
/// break. The candidates come back backslash-quoted.
struct Bash;

const BASH_SCRIPT: &str = r#"
_pi_session_tools_{{NAME}}() {
    local IFS=$'\013' line=${COMP_LINE:0:COMP_POINT} words=() i w gap pos=0
    local space=true
    if compopt +o nospace 2> /dev/null; then space=false; fi
    for (( i = 0; i <= COMP_CWORD; i++ )); do
        w=${COMP_WORDS[i]}
        gap=${line:pos}
        gap=${gap%%[![:space:]]*}
        (( i == COMP_CWORD )) && w=${line:pos+${#gap}}
        if (( i > 0 && ${#gap} == 0 && ${#words[@]} > 0 )); then
            words[${#words[@]}-1]+=$w
        else
            words+=("$w")
        fi
        pos=$(( pos + ${#gap} + ${#w} ))
    done
    local last=$(( ${#words[@]} - 1 ))
    local keep=${words[last]:0:${#words[last]}-${#2}}
    COMPREPLY=()
    IFS=$'\013' read -r -d '' -a COMPREPLY < <( \
        _CLAP_IFS=$'\013' _CLAP_COMPLETE_INDEX="$last" {{VAR}}="bash" \
        {{COMPLETER}} -- "${words[@]}" 2> /dev/null; printf '\0' )
    if [[ -n $keep ]]; then COMPREPLY=( "${COMPREPLY[@]#"$keep"}" ); fi
    if [[ $space == false && ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} =~ [=/:]$ ]]; then
        compopt -o nospace
    fi
}
if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -o nospace -o bashdefault -o nosort -F _pi_session_tools_{{NAME}} {{BIN}}
else
    complete -o nospace -o bashdefault -F _pi_session_tools_{{NAME}} {{BIN}}
fi
"#;

impl EnvCompleter for Bash {
    fn name(&self) -> &'static str {
        "bash"
    }
    fn is(&self, name: &str) -> bool {
        name == "bash"
    }
    fn write_registration(
        &self,
        var: &str,
        name: &str,
        bin: &str,
        completer: &str,
        buf: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        let script = BASH_SCRIPT
            .replace("{{NAME}}", &name.replace('-', "_"))
            .replace("{{BIN}}", &bash_quote(bin))
            .replace("{{COMPLETER}}", &bash_quote(completer))
            .replace("{{VAR}}", var);
        buf.write_all(script.as_bytes())
    }
    fn write_complete(
        &self,
        cmd: &mut clap::Command,
        args: Vec<OsString>,
        current_dir: Option<&Path>,
        buf: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        let words: Vec<String> = args.iter().map(|a| unquote(&a.to_string_lossy())).collect();
        let index = index_of(words.len()).min(words.len().saturating_sub(1));
        record(&words, index);
        let args = words.into_iter().map(OsString::from).collect();
        let found = clap_complete::engine::complete(cmd, args, index, current_dir)?;
        let values: Vec<String> = found
            .iter()
            .filter_map(|c| c.get_value().to_str())
            .filter(|v| inert(v))
            .map(bash_quote)
            .collect();
        buf.write_all(values.join("\u{b}").as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unquotes_as_the_shell_reads() {
        assert_eq!(unquote(r"@my\ la"), "@my la");
        assert_eq!(unquote(r"'@a b"), "@a b");
        assert_eq!(unquote(r#""a\"b\x""#), r#"a"b\x"#);
        assert_eq!(unquote("plain"), "plain");
    }

    #[test]
    fn bash_quoting_leaves_no_expansion() {
        assert_eq!(bash_quote("@plan-a"), "@plan-a");
        assert_eq!(bash_quote("@my label"), r"@my\ label");
        assert_eq!(bash_quote("$(rm x)`y`*"), r"\$\(rm\ x\)\`y\`\*");
        assert_eq!(unquote(&bash_quote("a'b\"c d")), "a'b\"c d");
    }

    #[test]
    fn control_characters_are_never_offered() {
        assert!(inert("@plan"));
        assert!(!inert("@a\u{1b}]0;x\u{7}"));
        assert!(!inert("a\u{b}b"));
        assert!(!inert("a\u{9b}b"));
        assert!(!inert(""));
    }
}
