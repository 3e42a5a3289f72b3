//! The arguments tools share: SESSION and how it is read, and `--color`.

use super::ctx::Ctx;
use crate::error::Result;
use crate::session::{ReadOptions, Session};
use clap::Args;
use std::path::PathBuf;

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
    /// Resolve and read the session, warning through `ctx`.
    pub fn open(&self, ctx: &Ctx) -> Result<Session> {
        self.open_with(ctx, self.read_options())
    }

    /// How `--strict` asks to read.
    pub fn read_options(&self) -> ReadOptions {
        ReadOptions {
            strict: self.strict,
            ..Default::default()
        }
    }

    /// [`SessionArgs::open`] with other read options.
    pub fn open_with(&self, ctx: &Ctx, opts: ReadOptions) -> Result<Session> {
        let s = Session::open(self.input()?, opts)?;
        ctx.log.warn_all(&s.warnings);
        Ok(s)
    }

    /// What SESSION names: a file, stdin, or the file a session-id prefix
    /// finds (see [`crate::store::resolve_session`]).
    pub fn input(&self) -> Result<crate::session::Input> {
        crate::store::resolve_session(self.session.as_deref(), self.session_dir.as_deref())
    }
}

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
