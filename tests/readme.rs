//! The documentation is a test (issue 22): every shell line of the ```sh
//! blocks of README.md and of every docs/*.md, and every example in every
//! tool's --help, runs with bash in a fresh copy of examples/, with the
//! built binaries first on PATH, and must exit 0 (or the status its comment
//! names: `# ... exit 1 ...`) and, where it prints, print something.
//!
//! Not run: blocks fenced as ```sh install (installing the tools and their
//! completions: the `pi-...` command after the install's `&&` is run) and
//! ```sh dev (the project's own test, fuzz, bench and generator commands). A
//! line that names `jq`, `dot` or `less` is skipped, with a notice, only
//! when that program is not installed (.ci/run installs them).
//!
//! Each document's lines run in order in one bash of its own, as a reader
//! would type them: its first example line makes the copy (`d=$(mktemp -d)
//! && cp -r examples/. "$d" && cd "$d" && . ./env.sh`), and each line sees
//! what the lines before it wrote. Each tool's --help examples run likewise
//! in a copy of their own, after `. ./env.sh`.

use crate::common::{bin, path_with_tools, repo, run_with, run_within, tools, TempDir};
use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Programs the examples use besides the tools; a line naming one that is
/// not installed is skipped with a notice.
const OPTIONAL: [&str; 3] = ["jq", "dot", "less"];

#[derive(Debug, Clone)]
struct Example {
    /// Where it is written: `README.md:LINE` or `pi-tool --help`.
    origin: String,
    /// The shell text (one line, or a multi-line loop).
    command: String,
    /// The comment or description that goes with it.
    note: String,
}

impl Example {
    /// The exit status the note names (`exit 1`), else 0.
    fn expected_status(&self) -> i32 {
        let words: Vec<&str> = self
            .note
            .split(|c: char| !c.is_ascii_alphanumeric())
            .collect();
        words
            .windows(2)
            .find(|w| w[0] == "exit")
            .and_then(|w| w[1].parse().ok())
            .unwrap_or(0)
    }

    /// What the line is expected to print: on stdout, on stderr (a tool
    /// that reports a change there), or nothing (its output is redirected,
    /// or it only sets up: cd, cp, an assignment, ...).
    fn expected_output(&self) -> Output {
        let c = self.command.trim();
        let first = c.split_whitespace().next().unwrap_or("");
        let setup = ["cd", "cp", "mkdir", "export", "ln", ".", "source"];
        if setup.contains(&first) || is_assignment(first) {
            return Output::Nothing;
        }
        if redirects_stdout(c) {
            return Output::Nothing;
        }
        if first == "pi-migrate" && c.split_whitespace().any(|w| w == "-i" || w == "--in-place") {
            return Output::Stderr;
        }
        Output::Stdout
    }
}

#[derive(Debug, PartialEq)]
enum Output {
    Stdout,
    Stderr,
    Nothing,
}

fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

/// Whether the last stage of a command sends its stdout to a file (`> f`),
/// outside quotes.
fn redirects_stdout(c: &str) -> bool {
    let (mut quote, mut prev) = (None, ' ');
    let mut last_redirect = None;
    for (i, ch) in c.char_indices() {
        match quote {
            Some(q) if ch == q => quote = None,
            Some(_) => {}
            None => match ch {
                '\'' | '"' => quote = Some(ch),
                '|' | ';' => last_redirect = None,
                '>' if prev != '2' && prev != '&' && prev != '>' => last_redirect = Some(i),
                _ => {}
            },
        }
        prev = ch;
    }
    last_redirect.is_some()
}

/// Whether bash can parse `text` as it stands (a loop is complete).
fn complete(text: &str) -> bool {
    if text.trim_end().ends_with('\\') {
        return false;
    }
    Command::new("bash")
        .args(["-n", "-c", text])
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(true)
}

/// The shell lines of a block of text, comments and blank lines left out;
/// a line that does not parse alone (a loop) takes the next lines with it.
fn shell_lines(lines: &[(usize, &str)], origin: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    let mut comment = String::new();
    for &(n, line) in lines {
        let t = line.trim();
        if pending.is_none() {
            if t.is_empty() {
                comment.clear();
                continue;
            }
            if let Some(c) = t.strip_prefix('#') {
                comment = c.trim().to_string();
                continue;
            }
        }
        let (start, mut text) = pending.take().unwrap_or((n, String::new()));
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(line);
        if complete(&text) {
            let note = match split_comment(&text) {
                Some(c) => c,
                None => std::mem::take(&mut comment),
            };
            out.push(Example {
                origin: format!("{origin}:{start}"),
                command: text,
                note,
            });
        } else {
            pending = Some((start, text));
        }
    }
    assert!(
        pending.is_none(),
        "{origin}: an unfinished shell line: {pending:?}"
    );
    out
}

/// The trailing `# comment` of a one-line command, outside quotes.
fn split_comment(c: &str) -> Option<String> {
    if c.contains('\n') {
        return None;
    }
    let (mut quote, mut prev) = (None, ' ');
    for (i, ch) in c.char_indices() {
        match quote {
            Some(q) if ch == q => quote = None,
            Some(_) => {}
            None if ch == '\'' || ch == '"' => quote = Some(ch),
            None if ch == '#' && prev.is_whitespace() => return Some(c[i + 1..].trim().into()),
            None => {}
        }
        prev = ch;
    }
    None
}

/// The documents whose examples run: README.md, then docs/*.md by name.
fn documents() -> Vec<String> {
    let mut docs: Vec<String> = std::fs::read_dir(repo().join("docs"))
        .expect("docs/")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    docs.insert(0, "README.md".to_string());
    docs
}

/// A document's examples, and the install lines' `pi-...` tails.
fn doc_examples(doc: &str) -> (Vec<Example>, Vec<Example>, usize) {
    let text = std::fs::read_to_string(repo().join(doc)).unwrap();
    let (mut examples, mut install, mut skipped) = (Vec::new(), Vec::new(), 0);
    let mut block: Option<(String, Vec<(usize, &str)>)> = None;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let t = line.trim_start();
        match &mut block {
            None => {
                if let Some(info) = t.strip_prefix("```") {
                    block = Some((info.trim().to_string(), Vec::new()));
                }
            }
            Some((info, lines)) => {
                if t.starts_with("```") {
                    match info.as_str() {
                        "sh" => examples.extend(shell_lines(lines, doc)),
                        "sh install" => {
                            for e in shell_lines(lines, doc) {
                                let tail = e.command.rsplit(" && ").next().unwrap_or("");
                                let installs = e.command.starts_with("cargo install")
                                    || e.command.starts_with("./install.sh");
                                if installs && tail.starts_with("pi-") {
                                    install.push(Example {
                                        command: tail.to_string(),
                                        ..e
                                    });
                                } else {
                                    skipped += 1;
                                }
                            }
                        }
                        "sh dev" => skipped += shell_lines(lines, doc).len(),
                        other => assert!(
                            !other.starts_with("sh") && other != "bash" && other != "shell",
                            "{doc}:{n}: a shell block must be fenced as ```sh, ```sh install or ```sh dev, not ```{other}"
                        ),
                    }
                    block = None;
                } else {
                    lines.push((n, line));
                }
            }
        }
    }
    (examples, install, skipped)
}

/// The examples of a tool's --help: the lines of its `Examples:` section
/// indented by two spaces; the command ends at two spaces in a row, what
/// follows (and the more deeply indented lines below) describes it.
fn help_examples(tool: &str, exe: &Path) -> Vec<Example> {
    let out = Command::new(exe).arg("--help").output().unwrap();
    assert!(out.status.success(), "{tool} --help failed");
    let help = String::from_utf8(out.stdout).unwrap();
    let mut lines = help.lines().skip_while(|l| l.trim() != "Examples:").skip(1);
    let mut out: Vec<Example> = Vec::new();
    for line in lines.by_ref() {
        if line.trim().is_empty() {
            break;
        }
        let body = line.strip_prefix("  ").unwrap_or_else(|| {
            panic!("{tool} --help: an example line not indented by two spaces: {line:?}")
        });
        if body.starts_with(' ') {
            let last = out
                .last_mut()
                .unwrap_or_else(|| panic!("{tool} --help: a description before any example"));
            last.note.push(' ');
            last.note.push_str(body.trim());
            continue;
        }
        let (command, note) = match body.find("  ") {
            Some(i) => (&body[..i], body[i..].trim()),
            None => (body, ""),
        };
        assert!(
            complete(command),
            "{tool} --help: an example that is not a whole shell line: {command:?}"
        );
        out.push(Example {
            origin: format!("{tool} --help"),
            command: command.to_string(),
            note: note.to_string(),
        });
    }
    assert!(out.len() >= 5, "{tool} --help has {} examples", out.len());
    out
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

fn installed(program: &str) -> bool {
    Command::new("bash")
        .args(["-c", &format!("command -v {program}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn names(command: &str, program: &str) -> bool {
    command
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .any(|w| w == program)
}

/// Run `examples` in order in one bash, in `dir`, after `prelude`; the
/// problems found, one line each.
fn run_suite(what: &str, prelude: &str, examples: &[Example]) -> Vec<String> {
    let tmp = TempDir::new(what);
    let work = tmp.0.join("work");
    copy_dir(&repo().join("examples"), &work.join("examples"));
    let home = tmp.0.join("home");
    let res = tmp.0.join("results");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&res).unwrap();
    let missing: Vec<&str> = OPTIONAL.into_iter().filter(|p| !installed(p)).collect();
    let mut script = String::from(prelude);
    script.push('\n');
    let mut run = Vec::new();
    for (k, e) in examples.iter().enumerate() {
        if let Some(p) = missing.iter().find(|p| names(&e.command, p)) {
            println!(
                "SKIPPED ({p} is not installed): {}: {}",
                e.origin, e.command
            );
            continue;
        }
        let r = res.display();
        writeln!(
            script,
            "{{ {}\n}} > {r}/{k}.out 2> {r}/{k}.err < /dev/null; echo $? > {r}/{k}.rc",
            e.command
        )
        .unwrap();
        run.push(k);
    }
    let mut bash = Command::new("bash");
    bash.arg("-c")
        .arg(&script)
        .current_dir(&work)
        .env("PATH", path_with_tools())
        .env("HOME", &home)
        .env_remove("XDG_CACHE_HOME")
        // pi-rm's trash: in the test's home
        .env_remove("XDG_DATA_HOME")
        .env_remove("PI_SESSION_TOOLS_CACHE_DIR")
        .env("TMPDIR", &tmp.0)
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("FORCE_COLOR")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // A watchdog, not a timing assertion: an example that hangs must not
    // hang the test run.
    run_within(&mut bash, Duration::from_secs(600), 0, 0);
    let mut problems = Vec::new();
    for k in run {
        let e = &examples[k];
        let read = |ext: &str| std::fs::read(res.join(format!("{k}.{ext}"))).ok();
        let Some(rc) = read("rc") else {
            problems.push(format!("{}: did not finish: {}", e.origin, e.command));
            break;
        };
        let rc: i32 = String::from_utf8_lossy(&rc).trim().parse().unwrap_or(-1);
        let out = read("out").unwrap_or_default();
        let err = read("err").unwrap_or_default();
        let show = |b: &[u8]| {
            let s = String::from_utf8_lossy(b);
            let s: String = s.chars().take(600).collect();
            s.trim_end().replace('\n', "\n      ")
        };
        let mut wrong = Vec::new();
        if rc != e.expected_status() {
            wrong.push(format!("exit {rc} (expected {})", e.expected_status()));
        }
        match e.expected_output() {
            Output::Stdout if out.is_empty() => wrong.push("printed nothing".into()),
            Output::Stderr if err.is_empty() => wrong.push("said nothing on stderr".into()),
            _ => {}
        }
        if !wrong.is_empty() {
            problems.push(format!(
                "{}: {}\n    $ {}\n    stdout: {}\n    stderr: {}",
                e.origin,
                wrong.join(", "),
                e.command,
                show(&out),
                show(&err)
            ));
        }
    }
    problems
}

fn report(problems: Vec<String>, count: usize) {
    assert!(
        problems.is_empty(),
        "{} of {count} examples failed:\n\n{}",
        problems.len(),
        problems.join("\n\n")
    );
}

#[test]
fn every_readme_example_runs() {
    let (mut problems, mut count) = (Vec::new(), 0);
    for doc in documents() {
        let (examples, install, skipped) = doc_examples(&doc);
        println!(
            "{doc}: {} example lines, {} after an install, {skipped} install and dev lines not run",
            examples.len(),
            install.len()
        );
        // The install lines' examples run from the repository's root (where
        // examples/ is), before the document's own first line makes a copy.
        let all: Vec<Example> = install.iter().chain(&examples).cloned().collect();
        count += all.len();
        problems.extend(run_suite(&doc.replace('/', "-"), "", &all));
    }
    assert!(count > 80, "only {count} examples in README.md and docs/");
    report(problems, count);
}

/// The README's first screen: a first command whose output a person reads,
/// and the two commands a fresh machine needs (install and run, test).
#[test]
fn readme_first_screen() {
    let text = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let first: String = text.lines().take(45).collect::<Vec<_>>().join("\n");
    assert!(
        first.contains("./install.sh && pi-tree examples/s.jsonl"),
        "{first}"
    );
    assert!(first.contains("cargo test --locked"), "{first}");
    assert!(text.lines().count() < 400, "README.md is over 400 lines");
    assert!(!text.contains("Before issue"), "history in README.md");
}

#[test]
fn every_help_example_runs() {
    let mut problems = Vec::new();
    let mut count = 0;
    for tool in tools() {
        let examples = help_examples(&tool, &bin(&tool));
        count += examples.len();
        problems.extend(run_suite(&tool, "cd examples && . ./env.sh", &examples));
    }
    report(problems, count);
}

#[test]
fn extraction() {
    let e = |c: &str, note: &str| Example {
        origin: String::new(),
        command: c.into(),
        note: note.into(),
    };
    assert_eq!(e("x", "list them; exit 1 if any").expected_status(), 1);
    assert_eq!(e("x", "the exit status").expected_status(), 0);
    assert_eq!(
        e("pi-path s.jsonl > a.jsonl", "").expected_output(),
        Output::Nothing
    );
    assert_eq!(
        e("pi-tree --format dot s.jsonl | dot -Tsvg > t.svg", "").expected_output(),
        Output::Nothing
    );
    assert_eq!(
        e("pi-path s.jsonl 2>/dev/null", "").expected_output(),
        Output::Stdout
    );
    assert_eq!(
        e("pi-grep '>' s.jsonl", "").expected_output(),
        Output::Stdout
    );
    assert_eq!(
        e("c=$(pi-path s.jsonl)", "").expected_output(),
        Output::Nothing
    );
    assert_eq!(
        e("pi-migrate -i --all", "").expected_output(),
        Output::Stderr
    );
    assert_eq!(
        split_comment("pi-grep 'a # b' s.jsonl  # why").as_deref(),
        Some("why")
    );
    let lines = [
        (1, "# a loop"),
        (2, "for f in a b; do"),
        (3, "  echo $f"),
        (4, "done"),
        (5, "echo x"),
    ];
    let got = shell_lines(&lines, "t");
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].command, "for f in a b; do\n  echo $f\ndone");
    assert_eq!(got[0].note, "a loop");
}

/// Issue 22.6: a usage error clap finds speaks as every other error
/// (`TOOL: error: ...`, exit 2), and `help` given as a SESSION points to --help.
#[test]
fn usage_errors_speak_in_one_voice() {
    let dir = TempDir::new("voice");
    for tool in tools() {
        let tool = tool.as_str();
        let out = run_with(tool, &["--no-such-option"], None, |c| {
            c.current_dir(&dir.0);
        });
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{tool}: {err}");
        assert!(
            err.starts_with(&format!(
                "{tool}: error: unexpected argument '--no-such-option'"
            )),
            "{tool}: {err}"
        );
        assert!(err.contains("--help"), "{tool}: {err}");
        if matches!(tool, "pi-ls" | "pi-grep") {
            continue; // no SESSION argument first (pi-grep's first is the PATTERN)
        }
        let args: &[&str] = match tool {
            "pi-fork" => &["help", "--at", "leaf"],
            "pi-label" | "pi-edit" => &["help", "--list"],
            _ => &["help"],
        };
        let out = run_with(tool, args, None, |c| {
            c.current_dir(&dir.0)
                .env("PI_CODING_AGENT_DIR", dir.0.join("agent"))
                .stdin(Stdio::null());
        });
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{tool} help: {err}");
        assert!(
            err.starts_with(&format!("{tool}: error: help: ")) && err.contains("run with --help"),
            "{tool} help: {err}"
        );
    }
}
