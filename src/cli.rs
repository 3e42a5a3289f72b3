//! What every binary shares: the SESSION argument, reading it, reporting
//! warnings and errors, writing output, and man pages.

use crate::error::{Error, ErrorKind, Result};
use crate::session::{ReadOptions, Session};
use clap::{Args, CommandFactory, Parser};
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// The session argument and the options that control how it is read.
#[derive(Args, Debug, Clone)]
pub struct SessionArgs {
    /// Session file, `-` for stdin (the default), or a session-id prefix
    /// (looked up like `pi --session`: this project's sessions first, then all).
    #[arg(value_name = "SESSION")]
    pub session: Option<String>,

    /// Directory to look up session-id prefixes in (instead of
    /// $PI_CODING_AGENT_SESSION_DIR or ~/.pi/agent/sessions).
    #[arg(long, value_name = "DIR")]
    pub session_dir: Option<PathBuf>,

    /// Treat lines that are not JSON objects as errors (pi skips them with no word).
    #[arg(long)]
    pub strict: bool,

    /// Do not print warnings.
    #[arg(short, long)]
    pub quiet: bool,
}

impl SessionArgs {
    /// Resolve and read the session, printing its warnings to stderr.
    pub fn open(&self, tool: &str) -> Result<Session> {
        self.open_with(tool, self.read_options())
    }

    /// How `--strict` asks to read.
    pub fn read_options(&self) -> ReadOptions {
        ReadOptions {
            strict: self.strict,
            ..Default::default()
        }
    }

    /// [`SessionArgs::open`] with other read options.
    pub fn open_with(&self, tool: &str, opts: ReadOptions) -> Result<Session> {
        let input =
            crate::locate::resolve_session(self.session.as_deref(), self.session_dir.as_deref())?;
        let s = Session::open(input, opts)?;
        if !self.quiet {
            for w in &s.warnings {
                eprintln!("{tool}: warning: {w}");
            }
        }
        Ok(s)
    }
}

/// Buffered standard output.
pub fn stdout() -> io::BufWriter<io::StdoutLock<'static>> {
    io::BufWriter::with_capacity(1 << 16, io::stdout().lock())
}

/// Turn an output error into the tool's error (a closed pipe is not one).
pub fn out_err(e: io::Error) -> Error {
    Error::io("<stdout>", &e)
}

/// Write and flush what a writing tool prints about a change before it
/// makes the change, so that an output that fails (a full disk,
/// `> /dev/full`) stops the tool with every file as it was. A reader that
/// has gone (a closed pipe) does not stop it: nobody reads the output, and
/// the change is still made.
pub fn announce(out: &mut impl Write, bytes: &[u8]) -> Result<()> {
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => {
            let mut err = out_err(e);
            err.diag.message.push_str(": nothing was changed");
            Err(err)
        }
    }
}

/// Run a tool's body: parse arguments (with the hidden `--generate-man-page`
/// for `man/`), report errors as `TOOL: error: ...`, and pick the exit status.
/// When to colour output (`--color`), as other tools have it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorWhen {
    /// On a terminal, unless NO_COLOR is set (CLICOLOR_FORCE or FORCE_COLOR force it on).
    #[default]
    Auto,
    Always,
    Never,
}

/// Whether to colour standard output: `--color`, then NO_COLOR (off),
/// CLICOLOR_FORCE / FORCE_COLOR (on), then whether it is a terminal.
pub fn use_color(when: ColorWhen) -> bool {
    use std::io::IsTerminal;
    let set = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty() && v != "0");
    match when {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => {
            if set("NO_COLOR") {
                false
            } else if set("CLICOLOR_FORCE") || set("FORCE_COLOR") {
                true
            } else {
                std::io::stdout().is_terminal()
            }
        }
    }
}

/// The pi release every tool is exact to (`@earendil-works/pi-coding-agent`).
/// To follow a newer one, see the README's Development section.
#[macro_export]
macro_rules! pi_release {
    () => {
        "1.6.0"
    };
}

/// The paragraph every tool's `--help` ends with.
#[macro_export]
macro_rules! exact_to_pi {
    () => {
        concat!(
            "\n\nExact to pi ",
            $crate::pi_release!(),
            " (@earendil-works/pi-coding-agent): read-only results are pi's byte for byte; \
the README lists the few deliberate differences.\n\n\
Man page and shell completions: --generate man|complete-bash|complete-zsh|complete-fish|\
complete-powershell."
        )
    };
}

/// [`pi_release!`] as a constant.
pub const PI_RELEASE: &str = pi_release!();

pub fn main<A: Parser>(tool: &str, body: impl FnOnce(A) -> Result<()>) -> ExitCode {
    if let Some(kind) = generate_requested() {
        return run_generate::<A>(tool, &kind);
    }
    let args = match parse_args::<A>(tool) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let checked = match crate::session::max_line_from_env() {
        Ok(_) => Ok(()),
        Err(text) => Err(Error::usage(format!(
            "{}={text}: not a line length in bytes from 1 to 4294967294 (e.g. 268435456 or 256M)",
            crate::session::MAX_LINE_ENV
        ))),
    };
    match checked.and_then(|()| body(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind == ErrorKind::Io && is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{tool}: error: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

/// Parse the command line as clap does, but say a usage error in the voice
/// of every other error, `TOOL: error: ...` (exit 2); `--help` and
/// `--version` print as clap prints them.
pub fn parse_args<A: Parser>(tool: &str) -> std::result::Result<A, ExitCode> {
    A::try_parse().map_err(|e| {
        use clap::error::ErrorKind as K;
        let code = ExitCode::from(e.exit_code() as u8);
        if matches!(
            e.kind(),
            K::DisplayHelp | K::DisplayVersion | K::DisplayHelpOnMissingArgumentOrSubcommand
        ) {
            let _ = e.print();
            return code;
        }
        eprint!("{}", usage_error_text(tool, &e.render().to_string()));
        code
    })
}

/// clap's rendered error (`error: ...`, usage, a hint) with the tool's prefix.
fn usage_error_text(tool: &str, rendered: &str) -> String {
    let text = rendered.strip_prefix("error: ").unwrap_or(rendered);
    let mut out = format!("{tool}: error: {text}");
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

fn is_broken_pipe(e: &Error) -> bool {
    e.diag.message.to_lowercase().contains("broken pipe")
}

/// ripgrep's convention: `--generate man|complete-bash|complete-zsh|
/// complete-fish|complete-powershell` (first on the command line) prints
/// the man page or a shell's completions from the same clap definitions as
/// `--help`. The KIND asked for, if any (`--generate-man-page` is `man`).
pub fn generate_requested() -> Option<String> {
    let mut argv = std::env::args_os().skip(1);
    let first = argv.next()?;
    if first == "--generate-man-page" {
        Some("man".to_string())
    } else if first == "--generate" {
        Some(
            argv.next()
                .map(|k| k.to_string_lossy().into_owned())
                .unwrap_or_default(),
        )
    } else {
        first
            .to_str()
            .and_then(|f| f.strip_prefix("--generate="))
            .map(str::to_string)
    }
}

/// Print what `--generate KIND` asks for; the exit status.
pub fn run_generate<A: CommandFactory>(tool: &str, kind: &str) -> ExitCode {
    match generate::<A>(tool, kind, &mut io::stdout()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{tool}: error: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

/// What `--generate` can print.
pub const GENERATE_KINDS: [&str; 5] = [
    "man",
    "complete-bash",
    "complete-zsh",
    "complete-fish",
    "complete-powershell",
];

/// `--generate KIND`: the man page or a shell's completion script.
pub fn generate<A: CommandFactory>(tool: &str, kind: &str, out: &mut impl Write) -> Result<()> {
    use clap_complete::Shell;
    let shell = match kind {
        "man" => return write_man_page::<A>(out).map_err(out_err),
        "complete-bash" => Shell::Bash,
        "complete-zsh" => Shell::Zsh,
        "complete-fish" => Shell::Fish,
        "complete-powershell" => Shell::PowerShell,
        other => {
            return Err(Error::usage(format!(
                "--generate {other:?}: one of {}",
                GENERATE_KINDS.join(", ")
            )))
        }
    };
    let mut cmd = A::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, tool, &mut buf);
    out.write_all(&buf).map_err(out_err)
}

/// Render the man page of a clap command.
pub fn write_man_page<A: CommandFactory>(out: &mut impl Write) -> io::Result<()> {
    let cmd = A::command();
    clap_mangen::Man::new(cmd).render(out)
}
