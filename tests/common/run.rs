//! Running the tools: where their binaries are, in a clean environment,
//! with input on stdin, with a time limit, or killed at a given moment.
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

use super::repo;

/// The binary of `tool`: beside pi-path's, which cargo names in
/// `CARGO_BIN_EXE_pi-path` (it builds every binary of the package into one
/// directory before the integration tests), so a new tool needs no line here.
pub fn bin(tool: &str) -> PathBuf {
    bin_dir().join(format!("{tool}{}", std::env::consts::EXE_SUFFIX))
}

/// The directory of the tools' binaries.
pub fn bin_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_pi-path"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// `PATH` with the tools' directory first, for a shell that runs examples.
pub fn path_with_tools() -> String {
    format!(
        "{}:{}",
        bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Every tool: the binaries in src/bin, sorted.
pub fn tools() -> Vec<String> {
    let mut tools: Vec<String> = std::fs::read_dir(repo().join("src/bin"))
        .unwrap()
        .flatten()
        .filter_map(|d| {
            let n = d.file_name().to_string_lossy().into_owned();
            n.strip_suffix(".rs").map(str::to_string)
        })
        .collect();
    tools.sort();
    tools
}

/// `tool args`, without the variables that point the tools at a session
/// store (a test names its store when it wants one).
pub fn command(tool: &str, args: &[&str]) -> Command {
    let mut cmd = Command::new(bin(tool));
    cmd.args(args)
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .env("PI_SESSION_TOOLS_CACHE_DIR", test_cache_dir());
    cmd
}

/// Where the tools keep their cache (pi-ls) while the tests run: never the
/// user's own.
pub fn test_cache_dir() -> PathBuf {
    std::env::temp_dir().join(format!("pst-test-cache-{}", std::process::id()))
}

/// Run a tool with args and optional stdin.
pub fn run(tool: &str, args: &[&str], stdin: Option<&[u8]>) -> Output {
    run_with(tool, args, stdin, |_| {})
}

/// [`run`], with `setup` changing the command (its environment, its
/// directory, a stdin of its own) first.
pub fn run_with(
    tool: &str,
    args: &[&str],
    stdin: Option<&[u8]>,
    setup: impl FnOnce(&mut Command),
) -> Output {
    let mut cmd = command(tool, args);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    setup(&mut cmd);
    let mut child = cmd.spawn().expect("spawn tool");
    if let Some(mut si) = child.stdin.take() {
        if let Some(input) = stdin {
            // The tool may exit before reading everything; that is fine.
            let _ = si.write_all(input);
        }
    }
    child.wait_with_output().expect("wait tool")
}

/// [`run`] without stdin, which must leave `file` as it was.
#[track_caller]
pub fn run_untouched(tool: &str, args: &[&str], file: &Path) -> Output {
    let before = std::fs::read(file).unwrap();
    let o = run(tool, args, None);
    let after = std::fs::read(file).unwrap();
    assert!(
        after == before,
        "{tool} {args:?} changed {}",
        file.display()
    );
    o
}

/// [`run`] without stdin, which must succeed.
#[track_caller]
pub fn run_ok(tool: &str, args: &[&str]) -> Output {
    let o = run(tool, args, None);
    assert!(o.status.success(), "{tool} {args:?}: {}", stderr(&o));
    o
}

/// Assert the tool said `text` on stderr (all of which a failure shows).
#[track_caller]
pub fn assert_stderr_has(o: &Output, text: &str) {
    assert!(stderr(o).contains(text), "{}", stderr(o));
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Start `tool args` (no stdin, its output dropped), SIGKILL it after
/// `delay`, reap it.
pub fn kill_after(tool: &str, args: &[&str], delay: Duration) -> ExitStatus {
    let mut c = command(tool, args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn tool");
    if !delay.is_zero() {
        std::thread::sleep(delay);
    }
    let _ = c.kill();
    c.wait().expect("wait")
}

/// What a run under a time limit did.
pub struct Timed {
    pub status: ExitStatus,
    /// Killed at the time limit.
    pub hung: bool,
    /// The first bytes of stdout (as many as asked for), and how many it had.
    pub stdout: Vec<u8>,
    pub stdout_len: u64,
    /// The first bytes of stderr (as many as asked for).
    pub stderr: Vec<u8>,
}

impl Timed {
    pub fn output(self) -> Output {
        Output {
            status: self.status,
            stdout: self.stdout,
            stderr: self.stderr,
        }
    }
}

/// Spawn `cmd` (its stdio as it is set up) and wait for it at most `limit`,
/// then kill it; keep at most `keep_out` bytes of its stdout and `keep_err`
/// of its stderr, where they are pipes (both are read to their end).
pub fn run_within(cmd: &mut Command, limit: Duration, keep_out: usize, keep_err: usize) -> Timed {
    wait_within(
        cmd,
        limit,
        keep_out,
        keep_err,
        Duration::from_millis(5),
        |_| {},
    )
}

/// Spawn `cmd`, drain its outputs, and wait for it, killing it after
/// `limit`; `each(pid)` is called every `poll` while it runs.
fn wait_within(
    cmd: &mut Command,
    limit: Duration,
    keep_out: usize,
    keep_err: usize,
    poll: Duration,
    mut each: impl FnMut(u32),
) -> Timed {
    let start = Instant::now();
    // Once spawn returns the child has exec'd: its /proc entry is the tool's.
    let mut child = cmd.spawn().expect("spawn");
    let out = child.stdout.take().map(|s| drain(s, keep_out));
    let err = child.stderr.take().map(|s| drain(s, keep_err));
    let mut hung = false;
    let status = loop {
        each(child.id());
        if let Some(st) = child.try_wait().expect("wait") {
            break st;
        }
        if start.elapsed() > limit {
            hung = true;
            let _ = child.kill();
            break child.wait().expect("wait");
        }
        std::thread::sleep(poll);
    };
    let joined = |h: Option<std::thread::JoinHandle<(u64, Vec<u8>)>>| {
        h.map_or((0, Vec::new()), |h| h.join().unwrap())
    };
    let (stdout_len, stdout) = joined(out);
    let (_, stderr) = joined(err);
    Timed {
        status,
        hung,
        stdout,
        stdout_len,
        stderr,
    }
}

/// Read `r` to its end on a thread of its own: how many bytes, and the
/// first `keep` of them.
fn drain(
    mut r: impl Read + Send + 'static,
    keep: usize,
) -> std::thread::JoinHandle<(u64, Vec<u8>)> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut total = 0u64;
        let mut buf = vec![0u8; 1 << 16];
        loop {
            match r.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    total += n as u64;
                    if kept.len() < keep {
                        let take = n.min(keep - kept.len());
                        kept.extend_from_slice(&buf[..take]);
                    }
                }
            }
        }
        (total, kept)
    })
}

/// [`run_within`], also measuring the most memory the tool held: the
/// largest peak resident set (`VmHWM` of /proc/PID/status, in bytes) seen
/// while it ran, looked at every millisecond. Not `wait4`'s `ru_maxrss`,
/// which counts the test process's own peak (the memory a child has before
/// it execs the tool is the parent's). A lower bound: growth in the last
/// millisecond before the tool exits may be missed.
#[cfg(target_os = "linux")]
pub fn run_within_measured(
    cmd: &mut Command,
    limit: Duration,
    keep_out: usize,
    keep_err: usize,
) -> (Timed, Option<u64>) {
    let mut peak = 0u64;
    let measure = |pid: u32| {
        if let Some(kb) = std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()
            .and_then(|t| vm_hwm_kb(&t))
        {
            peak = peak.max(kb << 10);
        }
    };
    let timed = wait_within(
        cmd,
        limit,
        keep_out,
        keep_err,
        Duration::from_millis(1),
        measure,
    );
    (timed, Some(peak))
}

/// The `VmHWM:` line of /proc/PID/status, in kB.
#[cfg(target_os = "linux")]
fn vm_hwm_kb(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line["VmHWM:".len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// [`run_within`]: no measure of memory here.
#[cfg(not(target_os = "linux"))]
pub fn run_within_measured(
    cmd: &mut Command,
    limit: Duration,
    keep_out: usize,
    keep_err: usize,
) -> (Timed, Option<u64>) {
    (run_within(cmd, limit, keep_out, keep_err), None)
}

/// [`kill_after`], with `setup` changing the command (its environment)
/// first.
pub fn kill_after_with(
    tool: &str,
    args: &[&str],
    delay: Duration,
    setup: impl FnOnce(&mut Command),
) -> ExitStatus {
    let mut cmd = command(tool, args);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    setup(&mut cmd);
    let mut c = cmd.spawn().expect("spawn tool");
    if !delay.is_zero() {
        std::thread::sleep(delay);
    }
    let _ = c.kill();
    c.wait().expect("wait")
}
