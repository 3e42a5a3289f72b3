//! The one contract every tool runs under: `cmd::<tool>::run(&Args, &mut
//! Ctx) -> Result<Exit>`. A [`Ctx`] holds the tool's name, whether it is
//! quiet, its standard output, and the one way to warn.

use crate::error::{Diagnostic, Result};
use crate::io::Out;
use std::io::{self, Write};

/// What a tool's run ends with, besides an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Done (exit 0).
    Ok,
    /// A `--check`-style answer: found / all well (exit 0) or not (exit 1).
    Found(bool),
}

/// Where warnings go: `TOOL: warning: FILE:LINE: what`, on stderr, unless
/// quiet. Small and `Copy`, so worker threads and closures take their own.
#[derive(Debug, Clone, Copy)]
pub struct Log {
    pub tool: &'static str,
    pub quiet: bool,
}

impl Log {
    /// Say a problem that does not stop the tool.
    pub fn warn(&self, d: &Diagnostic) {
        self.warn_to(&mut io::stderr().lock(), d);
    }

    /// [`Log::warn`] to `w` (a tool that orders its messages itself).
    pub fn warn_to(&self, w: &mut dyn Write, d: &Diagnostic) {
        if !self.quiet {
            let _ = writeln!(w, "{}: warning: {d}", self.tool);
        }
    }

    /// An error that does not stop the tool (one file of many), to `w`:
    /// `TOOL: error: ...`, quiet or not.
    pub fn error_to(&self, w: &mut dyn Write, e: &dyn std::fmt::Display) {
        let _ = writeln!(w, "{}: error: {e}", self.tool);
    }

    /// This log for what `-q` does not silence (errors, a failed batch's
    /// summary).
    pub fn loud(self) -> Log {
        Log {
            quiet: false,
            ..self
        }
    }

    /// [`Log::warn`] for each.
    pub fn warn_all(&self, ds: &[Diagnostic]) {
        for d in ds {
            self.warn(d);
        }
    }

    /// A remark in the tool's voice (`TOOL: text`), unless quiet.
    pub fn note(&self, text: &str) {
        if !self.quiet {
            eprintln!("{}: {text}", self.tool);
        }
    }
}

/// Standard output, buffered (64 KiB), locked once. Its type is what the
/// kernel-copy fast paths of `std::io::copy` know (`copy_file_range`,
/// `sendfile`, `splice`), so it is passed on as it is.
pub type Stdout = io::BufWriter<io::StdoutLock<'static>>;

/// A tool's context: its name, quietness and output.
pub struct Ctx {
    pub log: Log,
    /// Locked when first asked for ([`Ctx::out`]): a tool whose worker
    /// threads print (pi-migrate's batches) never takes it.
    out: Option<Stdout>,
}

impl Ctx {
    pub fn new(tool: &'static str, quiet: bool) -> Self {
        Ctx {
            log: Log { tool, quiet },
            out: None,
        }
    }

    /// Standard output, locked and buffered from the first call on.
    pub fn out(&mut self) -> &mut Stdout {
        self.out
            .get_or_insert_with(|| io::BufWriter::with_capacity(1 << 16, io::stdout().lock()))
    }

    /// Flush what [`Ctx::out`] holds.
    pub fn finish(&mut self) -> Result<()> {
        match &mut self.out {
            Some(o) => o.done(),
            None => Ok(()),
        }
    }

    /// Standard output's file descriptor (None when it is closed: the
    /// output then takes writes and drops them, as Rust's standard output
    /// does).
    #[cfg(unix)]
    pub fn out_fd(&self) -> Option<i32> {
        use std::os::fd::{AsFd, AsRawFd};
        let stdout = io::stdout();
        let open = stdout.as_fd().try_clone_to_owned().is_ok();
        open.then(|| stdout.as_raw_fd())
    }

    #[cfg(not(unix))]
    pub fn out_fd(&self) -> Option<i32> {
        None
    }

    /// Whether standard output is a terminal.
    pub fn out_is_terminal(&self) -> bool {
        use std::io::IsTerminal;
        io::stdout().is_terminal()
    }

    /// The terminal's width when standard output is one.
    pub fn terminal_width(&self) -> Option<usize> {
        if self.out_is_terminal() {
            terminal_size::terminal_size().map(|(w, _)| w.0 as usize)
        } else {
            None
        }
    }
}
