//! pi's recorded answers (tests/conformance: what pi 1.6.0 itself printed
//! or wrote for each case, made by generate.mjs there) and the one runner
//! that checks a tool against them.
use std::path::{Path, PathBuf};
use std::process::Output;

use super::{first_diff, repo, run_with, stderr, stdout};

/// The HOME the generator computes pi's answers with (tests/conformance/generate.mjs).
pub const CONFORMANCE_HOME: &str = "/home/dev";

/// The conformance session NAME (tests/conformance/sessions/NAME.jsonl).
pub fn fixture(name: &str) -> String {
    repo()
        .join("tests/conformance/sessions")
        .join(format!("{name}.jsonl"))
        .to_string_lossy()
        .into_owned()
}

/// Run a tool as the conformance generator ran pi: HOME=/home/dev.
pub fn run_conformance(tool: &str, args: &[&str], stdin: Option<&[u8]>) -> Output {
    run_with(tool, args, stdin, |cmd| {
        cmd.env_remove("USERPROFILE").env("HOME", CONFORMANCE_HOME);
    })
}

/// One recorded answer of pi: run `tool args... SESSION`, expect `stdout`.
pub struct Case {
    pub session: PathBuf,
    pub tool: String,
    pub args: Vec<String>,
    pub stdout: String,
    pub what: String,
    /// Feed the session on stdin instead of passing its path.
    pub stdin: bool,
    /// Run on a temporary copy of the session (the tool writes to it).
    pub in_place: bool,
    /// pi throws on this input: the tool must fail (exit 1, nothing on stdout).
    pub fails: bool,
}

/// Every conformance case for `tool` under tests/conformance.
pub fn cases(tool: &str) -> Vec<Case> {
    let dir = repo().join("tests/conformance");
    let mut files: Vec<_> = std::fs::read_dir(dir.join("answers").join(tool))
        .expect("answers dir")
        .flatten()
        .map(|d| d.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for f in files {
        let session = dir.join("sessions").join(f.file_name().unwrap());
        let text = std::fs::read_to_string(&f).unwrap();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            if v["tool"] != tool {
                continue;
            }
            cases.push(Case {
                session: session.clone(),
                tool: tool.to_string(),
                args: v["args"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| a.as_str().unwrap().to_string())
                    .collect(),
                stdout: v["stdout"].as_str().unwrap().to_string(),
                what: v["what"].as_str().unwrap_or("").to_string(),
                stdin: v["stdin"] == true,
                in_place: v["inPlace"] == true,
                fails: v["fails"] == true,
            });
        }
    }
    cases
}

/// The conformance runner: there must be more than `more_than` cases, and
/// `check` must pass each one (it says what differs from pi, or panics);
/// the test fails naming the first cases that differ.
#[track_caller]
pub fn check_each(
    cases: &[Case],
    more_than: usize,
    mut check: impl FnMut(&Case) -> Result<(), String>,
) {
    let tool = cases.first().map_or("?", |c| c.tool.as_str());
    assert!(cases.len() > more_than, "only {} {tool} cases", cases.len());
    let failures: Vec<String> = cases.iter().filter_map(|c| check(c).err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} {tool} cases differ from pi:\n{}",
        failures.len(),
        cases.len(),
        failures[..failures.len().min(8)].join("\n")
    );
}

/// The usual check: `TOOL ARGS SESSION`, run as pi was, prints what pi
/// printed (both through `normalize`), or fails with FILE:LINE where pi throws.
pub fn same_stdout(c: &Case, normalize: impl Fn(&str) -> String) -> Result<(), String> {
    let session = c.session.to_string_lossy().into_owned();
    let mut args: Vec<&str> = c.args.iter().map(String::as_str).collect();
    args.push(&session);
    let o = run_conformance(&c.tool, &args, None);
    let err = stderr(&o);
    let at = format!(
        "{} {} {} ({})",
        c.tool,
        c.args.join(" "),
        rel(&c.session),
        c.what
    );
    if c.fails {
        return match o.status.code() == Some(1) && o.stdout.is_empty() && err.contains(':') {
            true => Ok(()),
            false => Err(format!(
                "{at}: pi throws, so the tool must fail with FILE:LINE; exit {:?}, stderr {}",
                o.status.code(),
                err.trim()
            )),
        };
    }
    let (got, want) = (normalize(&stdout(&o)), normalize(&c.stdout));
    if o.status.success() && got == want {
        return Ok(());
    }
    let at_byte = first_diff(want.as_bytes(), got.as_bytes());
    Err(format!(
        "{at}: exit {:?}\n  stderr: {}\n  first difference at byte {at_byte}\n  want: {}\n  got:  {}",
        o.status.code(),
        err.trim(),
        excerpt(&want, at_byte),
        excerpt(&got, at_byte),
    ))
}

fn rel(p: &Path) -> String {
    p.strip_prefix(repo()).unwrap_or(p).display().to_string()
}

fn excerpt(s: &str, at: usize) -> String {
    let start = at.saturating_sub(60);
    let b = &s.as_bytes()[start.min(s.len())..(at + 80).min(s.len())];
    format!("{:?}", String::from_utf8_lossy(b))
}
