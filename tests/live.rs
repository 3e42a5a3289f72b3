//! A running pi (issue 31): the writes a running pi would undo (pi-edit,
//! pi-fork --in-place, pi-check --fix) are refused while a pi may be continuing the
//! session, labels and names are not; and every writer chains its entry to
//! the last entry at the moment of writing, not the one it read.
//!
//! Stand-ins for pi: `sh` under the name `pi` (or `node`, given pi's
//! cli.js), started with a chosen working directory and environment,
//! waiting on its stdin. Linux only (the detection reads `/proc`). The real
//! pi runs when `PI_CLI` (pi's dist/cli.js) and `PI_NODE` (node) are set.
use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A process standing in for pi, killed on drop.
struct StandIn {
    child: Child,
    _bin: TempDir,
}

impl StandIn {
    /// `sh` under the name `name` running `read x` (so it waits on its
    /// stdin, kept open) in `cwd` with only `env`; `args` follow on its
    /// command line. Its process name is `name` once spawn returns (the
    /// exec has happened by then).
    fn start(name: &str, cwd: &Path, env: &[(&str, &str)], args: &[&str]) -> StandIn {
        use std::os::unix::process::CommandExt;
        let bin = TempDir::new("live-bin");
        let exe = bin.path().join(name);
        // A link, not a copy: the process name is the name exec is given,
        // and a copy's write descriptor, inherited by a process another test
        // forks meanwhile, would make exec fail (ETXTBSY).
        std::os::unix::fs::symlink("/bin/sh", &exe).expect("link /bin/sh");
        let mut cmd = Command::new(&exe);
        // Room for a large environment (exec refuses one over a quarter
        // of the stack limit).
        // SAFETY: setrlimit is async-signal-safe; nothing else runs here.
        unsafe {
            cmd.pre_exec(|| {
                let mut old = libc::rlimit {
                    rlim_cur: 0,
                    rlim_max: 0,
                };
                if libc::getrlimit(libc::RLIMIT_STACK, &mut old) == 0 {
                    let cur = (256 << 20).min(old.rlim_max);
                    libc::setrlimit(
                        libc::RLIMIT_STACK,
                        &libc::rlimit {
                            rlim_cur: cur,
                            rlim_max: old.rlim_max,
                        },
                    );
                }
                Ok(())
            });
        }
        let child = cmd
            // A multi-call binary (busybox) goes by argv[0]; the process
            // name goes by the file's name.
            .arg0("sh")
            .args(["-c", "read x"])
            .args(args)
            .current_dir(cwd)
            .env_clear()
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("start the stand-in");
        StandIn { child, _bin: bin }
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A project: its directory (by its real path, as /proc shows a working
/// directory), a home whose default agent directory holds the project's
/// session directory, and a session there whose header names `cwd`.
struct Project {
    dir: TempDir,
    proj: PathBuf,
    home: PathBuf,
}

impl Project {
    fn new() -> Project {
        let dir = TempDir::new("live");
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let proj = root.join("proj");
        let home = root.join("home");
        std::fs::create_dir_all(&proj).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        Project { dir, proj, home }
    }

    /// pi's session directory for the project under `agent`.
    fn store(&self, agent: &Path) -> PathBuf {
        let enc = self
            .proj
            .to_str()
            .unwrap()
            .trim_start_matches('/')
            .replace('/', "-");
        agent.join("sessions").join(format!("--{enc}--"))
    }

    fn default_store(&self) -> PathBuf {
        self.store(&self.home.join(".pi/agent"))
    }

    fn home_env(&self) -> Vec<(&str, &str)> {
        vec![("HOME", self.home.to_str().unwrap())]
    }
}

/// A session with a secret in its last entry, at `path`, whose header's
/// cwd is `cwd`.
fn session_at(path: &Path, cwd: &str) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text = lines(&[
        header(
            "0190aaaa-0000-7000-8000-00000000live",
            "2026-07-20T09:00:00.000Z",
            cwd,
            None,
        ),
        user("aaaa0001", None, "hello"),
        text_message(
            "aaaa0002",
            Some("aaaa0001"),
            "assistant",
            "the key is sk-secret",
        ),
    ]);
    std::fs::write(path, text).unwrap();
    path.to_path_buf()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Whether this system shows processes as Linux does (the detection's only source).
fn linux() -> bool {
    if cfg!(target_os = "linux") && Path::new("/proc/self/comm").exists() {
        return true;
    }
    eprintln!("SKIPPED: no /proc; a running pi is not detected on this system");
    false
}

/// pi-check --fix on `file` (which holds `before`) with a torn last line
/// added: refused while pi `pid` runs, written with --force.
fn check_refused_then_forced(file: &Path, pid: u32, before: &[u8]) {
    let f = s(file);
    let torn = [before, &br#"{"type":"message","id":"#[..]].concat();
    std::fs::write(file, &torn).unwrap();
    let o = run("pi-check", &["--fix", f], None);
    let err = stderr(&o);
    assert_eq!(
        o.status.code(),
        Some(2),
        "pi-check --fix not refused: {err}"
    );
    assert!(
        err.contains(&format!("{f}: pi is running (pid {pid}, pi, in ")),
        "{err}"
    );
    assert_eq!(std::fs::read(file).unwrap(), torn, "pi-check --fix wrote");
    let o = run("pi-check", &["--fix", "--force", f], None);
    assert!(o.status.success(), "pi-check --fix --force: {}", stderr(&o));
    assert_eq!(std::fs::read(file).unwrap(), before);
    let mut removed = file.as_os_str().to_owned();
    removed.push(".removed");
    std::fs::remove_file(removed).unwrap();
}

/// Every writing mode of pi-edit and pi-fork --in-place refuses the
/// session, naming the process, and writes nothing; --force writes;
/// pi-label, --list and --dry-run go on.
fn assert_refused_then_forced(file: &Path, pid: u32) {
    let f = s(file);
    let before = std::fs::read(file).unwrap();
    // pi-check --fix, unless the file has other hard links (it refuses to
    // rewrite those whatever runs).
    #[cfg(unix)]
    if std::os::unix::fs::MetadataExt::nlink(&std::fs::metadata(file).unwrap()) == 1 {
        check_refused_then_forced(file, pid, &before);
    }
    let writes: [&[&str]; 4] = [
        &["pi-edit", f, "--redact", "sk-[a-z]+"],
        &["pi-edit", f, "aaaa0002", "--omit"],
        &["pi-edit", f, "aaaa0002", "--replace", "x"],
        &["pi-fork", f, "--in-place", "--at", "aaaa0001"],
    ];
    for w in writes {
        let o = run(w[0], &w[1..], None);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{w:?} not refused: {err}");
        assert!(
            err.contains(&format!("{f}: pi is running (pid {pid}, pi, in "))
                && err.contains("quit pi first, or pass --force")
                && err.contains("nothing was written"),
            "{w:?}: {err}"
        );
        assert!(o.stdout.is_empty(), "{w:?}");
        assert_eq!(std::fs::read(file).unwrap(), before, "{w:?} wrote");
    }
    for r in [
        &["pi-edit", f, "--list"][..],
        &["pi-edit", f, "--redact", "sk-[a-z]+", "--dry-run"],
    ] {
        let o = run(r[0], &r[1..], None);
        assert!(o.status.success(), "{r:?}: {}", stderr(&o));
    }
    let o = run("pi-label", &[f, "aaaa0002", "keep"], None);
    assert!(o.status.success(), "pi-label refused: {}", stderr(&o));
    let o = run("pi-edit", &[f, "--redact", "sk-[a-z]+", "--force"], None);
    assert!(o.status.success(), "--force: {}", stderr(&o));
    assert!(last_line(file).contains(r#""type":"context_edit""#));
    let o = run(
        "pi-fork",
        &[f, "--in-place", "--at", "aaaa0001", "--force"],
        None,
    );
    assert!(o.status.success(), "pi-fork --force: {}", stderr(&o));
}

/// A pi in the project, with the default agent directory: a session of the
/// project's session directory is refused (whatever its header says), and
/// one whose header's cwd is the project too (pi --session opens it).
#[test]
fn a_running_pi_refuses_edits_of_its_sessions_until_forced() {
    if !linux() {
        return;
    }
    let p = Project::new();
    let pi = StandIn::start("pi", &p.proj, &p.home_env(), &[]);
    let in_store = session_at(&p.default_store().join("a.jsonl"), "/elsewhere");
    assert_refused_then_forced(&in_store, pi.child.id());
    let by_cwd = session_at(&p.dir.path().join("other/b.jsonl"), s(&p.proj));
    assert_refused_then_forced(&by_cwd, pi.child.id());
}

/// A pi whose environment is larger than a few MiB (it was skipped whole
/// past 4 MiB) is seen, and a hard link of one of its sessions, elsewhere
/// and with another project's cwd in its header, is that session.
#[test]
fn a_huge_environment_and_a_hard_link_do_not_hide_the_session() {
    if !linux() {
        return;
    }
    let p = Project::new();
    // One variable holds at most 128 KiB; 40 of them make 4.8 MB.
    let big = "v".repeat(120_000);
    let names: Vec<String> = (0..40).map(|i| format!("BIG{i}")).collect();
    let mut env = p.home_env();
    env.extend(names.iter().map(|n| (n.as_str(), big.as_str())));
    let pi = StandIn::start("pi", &p.proj, &env, &[]);
    let by_cwd = session_at(&p.dir.path().join("other/b.jsonl"), s(&p.proj));
    assert_refused_then_forced(&by_cwd, pi.child.id());
    let in_store = session_at(&p.default_store().join("a.jsonl"), "/elsewhere");
    let link = p.dir.path().join("link.jsonl");
    std::fs::hard_link(&in_store, &link).unwrap();
    assert_refused_then_forced(&link, pi.child.id());
}

/// No pi of this session: a session elsewhere, of another project, is
/// written while a pi runs, and the same session is written once pi is gone.
#[test]
fn an_unrelated_session_is_not_refused() {
    if !linux() {
        return;
    }
    let p = Project::new();
    let other = p.dir.path().join("other-project");
    std::fs::create_dir_all(&other).unwrap();
    let file = session_at(&p.dir.path().join("elsewhere/c.jsonl"), s(&other));
    let store_file = session_at(&p.default_store().join("d.jsonl"), s(&p.proj));
    {
        let _pi = StandIn::start("pi", &p.proj, &p.home_env(), &[]);
        // Not pi: a process of another name in the same place.
        let _sh = StandIn::start("pix", &other, &p.home_env(), &[]);
        let o = run("pi-edit", &[s(&file), "--redact", "sk-[a-z]+"], None);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let o = run("pi-edit", &[s(&store_file), "--redact", "sk-[a-z]+"], None);
    assert!(o.status.success(), "pi has quit: {}", stderr(&o));
}

/// pi's session directory comes from its own environment and settings:
/// `PI_CODING_AGENT_DIR` (with `~`), `PI_CODING_AGENT_SESSION_DIR` (a
/// `file://` URL too), the `sessionDir` of the agent directory's
/// settings.json and of the project's .pi/settings.json.
#[test]
fn the_session_directory_is_the_one_pi_computes_from_its_environment() {
    if !linux() {
        return;
    }
    let p = Project::new();
    let home = s(&p.home).to_string();
    let agent = p.home.join("agent2");
    let custom = p.dir.path().join("custom dir");
    let from_settings = p.dir.path().join("from-settings");
    let from_project = p.dir.path().join("from-project");
    let url = format!("file://{}", s(&custom).replace(' ', "%20"));
    // pi's environment, where its sessions are, a settings file to write.
    type Case<'a> = (Vec<(&'a str, &'a str)>, PathBuf, Option<(PathBuf, String)>);
    let cases: Vec<Case> = vec![
        (
            vec![("HOME", &home), ("PI_CODING_AGENT_DIR", "~/agent2")],
            p.store(&agent),
            None,
        ),
        (
            vec![("HOME", &home), ("PI_CODING_AGENT_SESSION_DIR", &url)],
            custom.clone(),
            None,
        ),
        (
            vec![("HOME", &home)],
            from_settings.clone(),
            Some((
                p.home.join(".pi/agent/settings.json"),
                format!(r#"{{"sessionDir":"{}"}}"#, s(&from_settings)),
            )),
        ),
        (
            vec![("HOME", &home)],
            from_project.clone(),
            Some((
                p.proj.join(".pi/settings.json"),
                format!(r#"{{"sessionDir":"{}"}}"#, s(&from_project)),
            )),
        ),
    ];
    for (i, (env, dir, settings)) in cases.into_iter().enumerate() {
        if let Some((path, text)) = &settings {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let file = session_at(&dir.join(format!("{i}.jsonl")), "/elsewhere");
        // The default directory is not pi's here: its sessions are written.
        let default = session_at(&p.default_store().join(format!("{i}.jsonl")), "/elsewhere");
        let pi = StandIn::start("pi", &p.proj, &env, &[]);
        let o = run("pi-edit", &[s(&file), "--redact", "sk-[a-z]+"], None);
        assert_eq!(
            o.status.code(),
            Some(1),
            "case {i}: {env:?}: {}",
            stderr(&o)
        );
        assert!(
            stderr(&o).contains(&format!("pi is running (pid {}, pi, ", pi.child.id())),
            "case {i}: {}",
            stderr(&o)
        );
        let o = run("pi-edit", &[s(&default), "--redact", "sk-[a-z]+"], None);
        assert!(
            o.status.success(),
            "case {i}: default dir refused: {}",
            stderr(&o)
        );
        drop(pi);
        if let Some((path, _)) = settings {
            std::fs::remove_file(path).unwrap();
        }
    }
}

/// In its first moments pi is `node` running pi's cli.js (it sets its
/// process title a little later): that is a pi too.
#[test]
fn node_running_pis_cli_is_a_pi() {
    if !linux() {
        return;
    }
    let p = Project::new();
    let cli = "/opt/x/node_modules/@earendil-works/pi-coding-agent/dist/cli.js";
    let node = StandIn::start("node", &p.proj, &p.home_env(), &[cli]);
    let file = session_at(&p.default_store().join("n.jsonl"), "/elsewhere");
    let o = run("pi-edit", &[s(&file), "--redact", "sk-[a-z]+"], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("(pid {}, node, in ", node.child.id())),
        "{}",
        stderr(&o)
    );
    drop(node);
    // A node running something else is not.
    let _other = StandIn::start("node", &p.proj, &p.home_env(), &["/srv/app/server.js"]);
    let o = run("pi-edit", &[s(&file), "--redact", "sk-[a-z]+"], None);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// The real pi (`PI_CLI`, `PI_NODE`): `pi --mode rpc --session FILE`
/// stays running without a model while its stdin is open; once its
/// process name is `pi`, pi-edit refuses FILE.
#[test]
fn the_real_pi_is_detected() {
    let (Some(cli), Some(node)) = (std::env::var_os("PI_CLI"), std::env::var_os("PI_NODE")) else {
        eprintln!("SKIPPED: PI_CLI and PI_NODE not set (pi's dist/cli.js and node)");
        return;
    };
    if !linux() {
        return;
    }
    let p = Project::new();
    let agent = p.home.join(".pi/agent");
    let file = session_at(&p.store(&agent).join("real.jsonl"), s(&p.proj));
    let mut pi = Command::new(node)
        .arg(cli)
        .args(["--mode", "rpc", "--session", s(&file)])
        .current_dir(&p.proj)
        .env_clear()
        .env("HOME", &p.home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start pi");
    let pid = pi.id();
    let comm = format!("/proc/{pid}/comm");
    let name = || std::fs::read_to_string(&comm).unwrap_or_default();
    // pi sets its title once it has loaded: wait for it (a bound, not an
    // assertion on time: a slow machine only waits longer).
    for _ in 0..600 {
        if name().trim() == "pi" || pi.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let title = name();
    let o = run("pi-edit", &[s(&file), "--redact", "sk-[a-z]+"], None);
    let running = pi.try_wait().unwrap().is_none();
    let _ = pi.kill();
    let out = pi.wait_with_output().unwrap();
    assert!(
        running,
        "pi exited: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(title.trim(), "pi", "pi's process name");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("pi is running (pid {pid}, pi, in {}", s(&p.proj))),
        "{}",
        stderr(&o)
    );
}

/// Each writer reads the session, prints, and only then takes the lock;
/// pi (which takes none) appends a turn at exactly that moment (the tools
/// wait on a FIFO there: `PI_SESSION_TOOLS_TEST_PAUSE`, a hook of the test
/// build). The new entry must chain to pi's turn, the last entry at the
/// moment of writing, not to the leaf the tool read.
#[test]
fn writes_chain_to_the_last_entry_at_the_moment_of_writing() {
    if !linux() {
        return;
    }
    let dir = TempDir::new("live-chain");
    let fifo = dir.path().join("pause");
    let st = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(st.success());
    let f = dir.path().join("s.jsonl");
    session_at(&f, "/elsewhere");
    let f = s(&f).to_string();
    // pi-label reads only the end of a file of 8 MiB or more: that way too.
    let big = dir.path().join("big.jsonl");
    session_at(&big, "/elsewhere");
    append_line(
        &big,
        &user("aaaa0003", Some("aaaa0002"), &"x".repeat(9 << 20)),
    );
    let big = s(&big).to_string();
    let summary = [
        "pi-fork",
        &f,
        "--in-place",
        "--at",
        "aaaa0001",
        "--summary",
        "s",
    ];
    let writes: [&[&str]; 8] = [
        &["pi-edit", &f, "--redact", "sk-[a-z]+"],
        &["pi-edit", &f, "aaaa0002", "--omit"],
        &["pi-label", &f, "aaaa0001", "start"],
        &["pi-label", &f, "--name", "chained"],
        &["pi-fork", &f, "--in-place", "--at", "aaaa0001"],
        &summary,
        &["pi-label", &big, "aaaa0001", "start"],
        &["pi-label", &big, "--name", "chained"],
    ];
    for (i, w) in writes.iter().enumerate() {
        let f = w[1];
        let mut child = command(w[0], &w[1..])
            .env("PI_SESSION_TOOLS_TEST_PAUSE", &fifo)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The tool has read and printed once it opens the FIFO to read.
        let Some(writer) = open_when_read(&fifo, &mut child) else {
            panic!("{w:?} ended before writing: {:?}", child.wait_with_output());
        };
        let leaf = serde_json::from_str::<serde_json::Value>(&last_line(Path::new(&f))).unwrap()
            ["id"]
            .as_str()
            .unwrap()
            .to_string();
        let pi_turn = format!("cccc{i:04}");
        append_line(Path::new(&f), &user(&pi_turn, Some(&leaf), "pi's turn"));
        drop(writer);
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{w:?}: {}", stderr(&o));
        let last: serde_json::Value = serde_json::from_str(&last_line(Path::new(&f))).unwrap();
        let chained = if w[0] == "pi-fork" {
            // The move's parent is its target; where it moved from is pi's turn.
            last["fromId"].as_str().or(last["data"]["from"].as_str())
        } else {
            last["parentId"].as_str()
        };
        assert_eq!(chained, Some(pi_turn.as_str()), "{w:?}: {last}");
    }
}

/// The FIFO opened for writing once `child` opens it to read; None when
/// `child` ends first.
fn open_when_read(fifo: &Path, child: &mut Child) -> Option<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    loop {
        // Without a reader, a non-blocking open for writing fails (ENXIO).
        if let Ok(f) = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(fifo)
        {
            return Some(f);
        }
        if child.try_wait().unwrap().is_some() {
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// pi-mv and pi-rm refuse a session a running pi may be continuing (pi
/// holds no descriptor between its writes), and leave it where it is.
#[test]
fn a_running_pi_refuses_moving_and_deleting_its_session() {
    if !linux() {
        return;
    }
    let p = Project::new();
    let pi = StandIn::start("pi", &p.proj, &p.home_env(), &[]);
    let f = session_at(&p.default_store().join("a.jsonl"), s(&p.proj));
    let before = std::fs::read(&f).unwrap();
    let xdg = p.dir.path().join("xdg");
    for (tool, args) in [
        ("pi-mv", vec![s(&f), "--cwd", "/elsewhere"]),
        ("pi-rm", vec!["--yes", s(&f)]),
    ] {
        let o = run_with(tool, &args, None, |c| {
            c.env("HOME", &p.home).env("XDG_DATA_HOME", &xdg);
        });
        assert_eq!(o.status.code(), Some(1), "{tool}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("pi is running (pid {}", pi.child.id())),
            "{tool}: {}",
            stderr(&o)
        );
        assert_eq!(std::fs::read(&f).unwrap(), before, "{tool}");
    }
}
