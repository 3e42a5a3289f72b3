//! What every binary shares: the command contract ([`Tool`], [`Ctx`],
//! [`Exit`]), the SESSION argument, shared help, error reporting, man pages
//! and completions.

mod args;
mod complete;
mod ctx;
pub mod help;
mod man;

pub use crate::io::Out;
pub(crate) use args::name_arg;
pub use args::{use_color, ColorArgs, ColorWhen, SessionArgs, StoreArgs};
pub use ctx::{Ctx, Exit, Log, Stdout};
pub use help::PI_RELEASE;

use crate::error::{Diagnostic, Error, Result};
use clap::Parser;
use std::io::{self, Write};
use std::process::ExitCode;

/// Run a tool's body: parse arguments (with the hidden `--generate-man-page`
/// for `man/`), report errors as `TOOL: error: ...`, and pick the exit status.
/// How a tool's binary runs it: `fn main() -> ExitCode { cli::main::<Args>() }`.
pub trait Tool: Parser {
    /// The binary's name, as messages begin (`pi-path: error: ...`).
    const NAME: &'static str;

    /// Whether `-q` asks for no warnings.
    fn quiet(&self) -> bool;

    /// The tool's work: `cmd::<tool>::run(self, ctx)`.
    fn run(&self, ctx: &mut Ctx) -> Result<Exit>;

    /// The clap command as the derive makes it, adjusted where a shared
    /// argument means more in this tool (e.g. [`session_required`]).
    fn adjust(cmd: clap::Command) -> clap::Command {
        cmd
    }

    /// The exit status of an error (2 for wrong usage, 1 for the rest;
    /// grep-like tools say 2 for every error).
    fn error_status(e: &Error) -> u8 {
        e.exit_code() as u8
    }
}

/// Run a tool: parse arguments (with `--generate` for man pages and
/// completions), check the environment, run it, report an error as
/// `TOOL: error: ...`, and pick the exit status (a closed pipe is success).
pub fn main<A: Tool>() -> ExitCode {
    complete::complete_if_asked::<A>();
    let tool = A::NAME;
    if let Some(kind) = generate_requested() {
        return run_generate::<A>(tool, &kind);
    }
    let args = match parse_args::<A>(tool) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let mut ctx = Ctx::new(tool, args.quiet());
    let ran = check_environment(&ctx)
        .and_then(|()| args.run(&mut ctx))
        .and_then(|exit| {
            ctx.finish()?;
            Ok(exit)
        });
    // An error reported on the way (one file of many) makes the status the
    // tool's error status, whatever the run returned.
    let failed = || ExitCode::from(A::error_status(&Error::from(Diagnostic::plain(""))));
    match ran {
        Ok(Exit::Interrupted(sig)) => ExitCode::from((128 + sig).clamp(0, 255) as u8),
        Ok(Exit::FoundAnyway) => ExitCode::SUCCESS,
        Ok(_) if Log::errored() => failed(),
        Ok(Exit::Ok | Exit::Found(true)) => ExitCode::SUCCESS,
        Ok(Exit::Found(false)) => ExitCode::FAILURE,
        Ok(Exit::Status(n)) => ExitCode::from(n),
        Err(e) if e.is_broken_pipe() => {
            if Log::errored() {
                failed()
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            // What was printed before the error goes out before it, as the
            // error stops the output there.
            let _ = ctx.finish();
            ctx.log.fatal(&e);
            ExitCode::from(A::error_status(&e))
        }
    }
}

/// The settings read from the environment: a bad line limit is an error
/// before anything is read; a vector unit this processor lacks, a warning.
fn check_environment(ctx: &Ctx) -> Result<()> {
    if let Err(text) = crate::session::max_line_from_env() {
        return Err(Error::usage(format!(
            "{}={text}: not a line length in bytes from 1 to 4294967294 (e.g. 268435456 or 256M)",
            crate::session::MAX_LINE_ENV
        )));
    }
    if let Some(w) = crate::json::scan::simd::override_warning() {
        ctx.log.warn(&Diagnostic::plain(w));
    }
    Ok(())
}

/// The tool's clap command, as `--help`, the man page and the completions
/// show it.
pub fn command<A: Tool>() -> clap::Command {
    A::adjust(A::command())
}

/// Change one argument of `cmd` in place (`Command::mut_arg` would move it
/// after the others, and a positional SESSION after REF).
pub fn edit_arg(cmd: clap::Command, id: &str, f: impl Fn(clap::Arg) -> clap::Arg) -> clap::Command {
    cmd.mut_args(|a| if a.get_id() == id { f(a) } else { a })
}

/// For a tool whose SESSION must be given (it writes, or names a file):
/// the flattened [`SessionArgs`]' SESSION becomes required.
pub fn session_required(cmd: clap::Command) -> clap::Command {
    edit_arg(cmd, "session", |a| {
        a.required(true)
            .help("Session file, `-` for stdin, or a session-id prefix")
    })
}

/// Parse the command line as clap does, but say a usage error in the voice
/// of every other error, `TOOL: error: ...` (exit 2); `--help` and
/// `--version` print as clap prints them.
fn parse_args<A: Tool>(tool: &str) -> std::result::Result<A, ExitCode> {
    let parsed = command::<A>()
        .try_get_matches()
        .and_then(|m| A::from_arg_matches(&m));
    parsed.map_err(|e| {
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

/// ripgrep's convention: `--generate man|complete-bash|complete-zsh|
/// complete-fish|complete-powershell` (first on the command line) prints
/// the man page or a shell's completions from the same clap definitions as
/// `--help`. The KIND asked for, if any (`--generate-man-page` is `man`).
fn generate_requested() -> Option<String> {
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
fn run_generate<A: Tool>(tool: &str, kind: &str) -> ExitCode {
    match generate::<A>(tool, kind, &mut io::stdout()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            Log {
                tool: A::NAME,
                quiet: false,
            }
            .error(&e);
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

/// What `--generate` can print.
const GENERATE_KINDS: [&str; 5] = [
    "man",
    "complete-bash",
    "complete-zsh",
    "complete-fish",
    "complete-powershell",
];

/// `--generate KIND`: the man page or a shell's completion script.
pub fn generate<A: Tool>(tool: &str, kind: &str, out: &mut impl Write) -> Result<()> {
    use clap_complete::Shell;
    let shell = match kind {
        "man" => return write_man_page::<A>(out).map_err(Error::output),
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
    let mut cmd = command::<A>();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, tool, &mut buf);
    out.write_all(&buf).map_err(Error::output)
}

/// Render the man page of a clap command ([`man::render`]).
fn write_man_page<A: Tool>(out: &mut impl Write) -> io::Result<()> {
    out.write_all(man::render(command::<A>()).as_bytes())
}

/// `impl Tool for Args` for a tool whose `run(&Args, &mut Ctx)` is its
/// module's `run`: its name, where `-q` is, and (optionally) how its clap
/// command is adjusted.
///
/// ```ignore
/// crate::cli::impl_tool! { Args, "pi-label", quiet = input.quiet, adjust = crate::cli::session_required }
/// ```
macro_rules! impl_tool {
    ($args:ty, $name:literal, quiet = $($q:ident).+ $(, adjust = $adjust:expr)? $(,)?) => {
        impl crate::cli::Tool for $args {
            const NAME: &'static str = $name;
            fn quiet(&self) -> bool {
                self.$($q).+
            }
            $(
                fn adjust(cmd: ::clap::Command) -> ::clap::Command {
                    ($adjust)(cmd)
                }
            )?
            fn run(
                &self,
                ctx: &mut crate::cli::Ctx,
            ) -> crate::error::Result<crate::cli::Exit> {
                run(self, ctx)
            }
        }
    };
}

pub(crate) use impl_tool;
