//! Shared helpers for the tests that drive the real binaries.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The binary of `tool`: beside pi-path's, which cargo names in
/// `CARGO_BIN_EXE_pi-path` (it builds every binary of the package into one
/// directory before the integration tests), so a new tool needs no line here.
pub fn bin(tool: &str) -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_pi-path"))
        .with_file_name(format!("{tool}{}", std::env::consts::EXE_SUFFIX))
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Run a tool with args and optional stdin.
pub fn run(tool: &str, args: &[&str], stdin: Option<&[u8]>) -> Output {
    run_with(tool, args, stdin, |_| {})
}

/// [`run`], with `setup` changing the command (its environment) first.
pub fn run_with(
    tool: &str,
    args: &[&str],
    stdin: Option<&[u8]>,
    setup: impl FnOnce(&mut Command),
) -> Output {
    let mut cmd = Command::new(bin(tool));
    cmd.args(args)
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("PI_CODING_AGENT_SESSION_DIR");
    setup(&mut cmd);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn tool");
    {
        let mut si = child.stdin.take().unwrap();
        if let Some(input) = stdin {
            // The tool may exit before reading everything; that is fine.
            let _ = si.write_all(input);
        }
    }
    child.wait_with_output().expect("wait tool")
}

/// The HOME the generator computes pi's answers with (tests/conformance/generate.mjs).
pub const CONFORMANCE_HOME: &str = "/home/dev";

/// Run a tool as the conformance generator ran pi: HOME=/home/dev.
pub fn run_conformance(tool: &str, args: &[&str], stdin: Option<&[u8]>) -> Output {
    run_with(tool, args, stdin, |cmd| {
        cmd.env_remove("USERPROFILE").env("HOME", CONFORMANCE_HOME);
    })
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
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
pub fn conformance_cases(tool: &str) -> Vec<Case> {
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

/// Run every case; return a description of each mismatch.
pub fn check_cases(cases: &[Case], normalize: impl Fn(&str) -> String) -> Vec<String> {
    let mut failures = Vec::new();
    for c in cases {
        let mut args: Vec<&str> = c.args.iter().map(String::as_str).collect();
        let session = c.session.to_string_lossy().into_owned();
        args.push(&session);
        let o = run_conformance(&c.tool, &args, None);
        let got = normalize(&stdout(&o));
        let want = normalize(&c.stdout);
        if c.fails {
            if o.status.code() != Some(1) || !o.stdout.is_empty() || !stderr(&o).contains(":") {
                failures.push(format!(
                    "{} {} {} ({}): pi throws, so the tool must fail with FILE:LINE; exit {:?}, stderr {}",
                    c.tool,
                    c.args.join(" "),
                    rel(&c.session),
                    c.what,
                    o.status.code(),
                    stderr(&o).trim()
                ));
            }
            continue;
        }
        if !o.status.success() || got != want {
            failures.push(format!(
                "{} {} {} ({}): exit {:?}\n  stderr: {}\n  first difference at byte {}\n  want: {}\n  got:  {}",
                c.tool,
                c.args.join(" "),
                rel(&c.session),
                c.what,
                o.status.code(),
                stderr(&o).trim(),
                first_diff(&want, &got),
                excerpt(&want, first_diff(&want, &got)),
                excerpt(&got, first_diff(&want, &got)),
            ));
        }
    }
    failures
}

fn rel(p: &Path) -> String {
    p.strip_prefix(repo()).unwrap_or(p).display().to_string()
}

fn first_diff(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

fn excerpt(s: &str, at: usize) -> String {
    let start = at.saturating_sub(60);
    let b = &s.as_bytes()[start.min(s.len())..(at + 80).min(s.len())];
    format!("{:?}", String::from_utf8_lossy(b))
}

/// A temporary directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!(
            "pst-{tag}-{}-{}",
            std::process::id(),
            uuid::Uuid::new_v4()
        ));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    pub fn path(&self) -> &Path {
        &self.0
    }
    pub fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The string values of `"id":"..."` members in a JSONL text.
pub fn ids_in(text: &str) -> std::collections::HashSet<String> {
    let mut out = std::collections::HashSet::new();
    for line in text.lines() {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(line) {
            if let Some(id) = v["id"].as_str() {
                out.insert(id.to_string());
            }
        }
    }
    out
}

/// Replace what is fresh by nature in a session a tool wrote: the header's
/// id, timestamp and parentSession, and every entry id not in `known` (with
/// the references to it), numbered in order of appearance.
pub fn normalize_new_session(text: &str, known: &std::collections::HashSet<String>) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut fresh: Vec<String> = Vec::new();
    for (n, line) in lines.iter_mut().enumerate() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if n == 0 && v["type"] == "session" {
            for key in ["id", "timestamp", "parentSession"] {
                if let Some(val) = v[key].as_str() {
                    let from = format!("\"{key}\":{}", serde_json::to_string(val).unwrap());
                    *line = line.replacen(&from, &format!("\"{key}\":\"<{key}>\""), 1);
                }
            }
            continue;
        }
        if let Some(id) = v["id"].as_str() {
            if !known.contains(id) && !fresh.iter().any(|f| f == id) {
                fresh.push(id.to_string());
            }
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    for (k, id) in fresh.iter().enumerate() {
        out = out.replace(&format!("\"{id}\""), &format!("\"<new-{k}>\""));
    }
    out
}

/// An entry line with its `id` and `timestamp` values blanked.
pub fn blank_id_and_time(line: &str) -> String {
    let v: serde_json::Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(_) => return line.to_string(),
    };
    let mut out = line.to_string();
    for key in ["id", "timestamp"] {
        if let Some(val) = v[key].as_str() {
            let from = format!("\"{key}\":{}", serde_json::to_string(val).unwrap());
            out = out.replacen(&from, &format!("\"{key}\":\"<{key}>\""), 1);
        }
    }
    out
}

/// A version-3 session header for hand-made test sessions.
pub const H: &str = r#"{"type":"session","version":3,"id":"0190aaaa-0000-7000-8000-000000000001","timestamp":"2026-07-20T09:00:00.000Z","cwd":"/p"}"#;
