//! The arguments tools share: SESSION and how it is read; the store tools'
//! selection of sessions ([`StoreArgs`]); and `--color`.

use super::ctx::Ctx;
use crate::error::Result;
use crate::session::{ReadOptions, Session};
use clap::Args;
use std::path::PathBuf;

/// A file name argument (SESSION) as a `String`, taken even when it is
/// not UTF-8 (clap would refuse it): such bytes are kept in the string as
/// [`crate::name`] keeps them, and paths are made again with
/// `name::path_of_kept`. The argument types stay `String` for every tool.
pub(crate) fn name_arg() -> impl clap::builder::TypedValueParser<Value = String> {
    use clap::builder::TypedValueParser;
    clap::builder::OsStringValueParser::new().map(|s| crate::name::kept(&s).into_owned())
}

/// The session argument and the options that control how it is read.
#[derive(Args, Debug, Clone)]
pub struct SessionArgs {
    /// Session file, `-` for stdin (the default), or a session-id prefix
    /// (looked up like `pi --session`: this project's sessions first, then all).
    #[arg(value_name = "SESSION", value_parser = name_arg())]
    pub session: Option<String>,

    #[arg(long, value_name = "DIR", help = crate::cli::help::help_session_dir_one!())]
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
        let s = Session::open(self.input()?, opts).map_err(|e| self.forgotten_ref(e))?;
        ctx.log.warn_all(&s.warnings);
        Ok(s)
    }

    /// `e`, or, when no SESSION was given and standard input is a terminal
    /// or empty, the REF option whose value is a file: the REF was left out
    /// (`--leaf s.jsonl`), and "empty input" would not say so.
    pub(crate) fn forgotten_ref(&self, e: crate::error::Error) -> crate::error::Error {
        let no_input =
            e.kind == crate::error::ErrorKind::Usage || e.diag.message.starts_with("empty input");
        match no_input {
            true => self.forgotten_ref_error().unwrap_or(e),
            false => e,
        }
    }

    /// With no SESSION given, the error that says a REF option's value is
    /// a file (None: none is).
    pub(crate) fn forgotten_ref_error(&self) -> Option<crate::error::Error> {
        if self.session.is_some() {
            return None;
        }
        let (opt, file) = ref_that_is_a_file(std::env::args_os().skip(1))?;
        Some(crate::error::Error::usage(format!(
            "{opt} {file}: that is a file; give the REF before it: {opt} REF {file}"
        )))
    }

    /// What SESSION names: a file, stdin, or the file a session-id prefix
    /// finds (looked up as `pi --session` looks it up).
    pub fn input(&self) -> Result<crate::session::Input> {
        crate::store::resolve_session(self.session.as_deref(), self.session_dir.as_deref())
    }
}

/// The options that take a REF, in every tool that reads one session.
const REF_OPTIONS: [&str; 3] = ["--leaf", "--at", "--before"];

/// The first REF option in `args` whose value names an existing file:
/// the option and its value (made printable).
fn ref_that_is_a_file(args: impl Iterator<Item = std::ffi::OsString>) -> Option<(String, String)> {
    let args: Vec<String> = args.map(|a| crate::name::kept(&a).into_owned()).collect();
    let is_file = |v: &str| crate::name::path_of_kept(v).is_file();
    let shown = |v: &str| crate::error::escape_name(v).into_owned();
    for (k, a) in args.iter().enumerate() {
        if a == "--" {
            break;
        }
        for opt in REF_OPTIONS {
            let value = match a.strip_prefix(opt) {
                Some("") => args.get(k + 1).map(String::as_str),
                Some(v) => v.strip_prefix('='),
                None => None,
            };
            if let Some(v) = value.filter(|v| is_file(v)) {
                return Some((opt.to_string(), shown(v)));
            }
        }
    }
    None
}

/// How a tool over many sessions selects them, beside its own SESSION
/// arguments (each tool names those its way: pi-grep's come after the
/// pattern, pi-usage's after the report): `--all`, `--session-dir`,
/// `--since`/`--until`, `-j`, `-q`. [`StoreArgs::request`] makes the
/// store's plain request of it.
#[derive(Args, Debug, Clone, Default)]
pub struct StoreArgs {
    /// Every project's sessions, not only this project's.
    #[arg(short, long)]
    pub all: bool,

    #[arg(long, value_name = "DIR", help = crate::cli::help::help_session_dir_store!())]
    pub session_dir: Option<PathBuf>,

    /// Only what is dated at or after TIME (see TIME below): a session by
    /// its last activity (pi's: its latest user or assistant message),
    /// pi-usage's usage by its day.
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,

    /// Only what is dated before TIME (pi-usage: up to TIME's day).
    #[arg(long, value_name = "TIME")]
    pub until: Option<String>,

    /// Read with NUM threads (default: one per core).
    #[arg(short = 'j', long, value_name = "NUM")]
    pub threads: Option<usize>,

    /// Do not print warnings.
    #[arg(short, long)]
    pub quiet: bool,
}

impl StoreArgs {
    /// The store's request for `sessions` (the tool's SESSION arguments),
    /// walking directories as `walk`; `-j` set for the store's threads.
    pub fn request<'a>(
        &'a self,
        sessions: &'a [String],
        walk: crate::store::DirWalk,
    ) -> crate::store::Request<'a> {
        if let Some(n) = self.threads {
            crate::store::set_threads(n);
        }
        crate::store::Request {
            sessions,
            all: self.all,
            session_dir: self.session_dir.as_deref(),
            project: None,
            stdin_if_piped: false,
            walk,
        }
    }

    /// `--since` and `--until` as milliseconds since the epoch, read by
    /// the one reader of dates and durations, against `now`.
    pub fn bounds(&self, now: f64) -> Result<(Option<f64>, Option<f64>)> {
        let when = |s: &Option<String>| {
            s.as_deref()
                .map(|s| crate::time::parse_when(s, now))
                .transpose()
        };
        Ok((when(&self.since)?, when(&self.until)?))
    }

    /// Whether `--session-dir` was given empty (a usage error).
    pub fn empty_session_dir(&self) -> bool {
        self.session_dir
            .as_ref()
            .is_some_and(|d| d.as_os_str().is_empty())
    }
}

/// `--color`, for a tool that colours its output.
#[derive(Args, Debug, Clone, Copy, Default)]
pub struct ColorArgs {
    /// When to colour: auto (on a terminal, unless NO_COLOR is set;
    /// CLICOLOR_FORCE or FORCE_COLOR force it), always (e.g. for `less -R`), never.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "auto")]
    pub color: ColorWhen,
}

impl ColorArgs {
    /// Whether to colour standard output ([`use_color`]).
    pub fn on(&self) -> bool {
        use_color(self.color)
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
