//! The one contract every tool runs under: `cmd::<tool>::run(&Args, &mut
//! Ctx) -> Result<Exit>`. A [`Ctx`] holds the tool's name, whether it is
//! quiet, its standard output, and the one reporter ([`Log`]).
//!
//! A tool tells the user something in one of two ways: it returns an
//! [`crate::error::Error`] (which stops it), or it calls [`Log`] (`warn`,
//! `error`, `note`), which goes on. [`Log::error`] remembers that an error
//! happened, and `cli::main` turns that into the exit status, as ripgrep's
//! `messages.rs` and uutils' `set_exit_code` do.

use crate::error::{one_line, Diagnostic, Result};
use crate::io::Out;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// What a tool's run ends with, besides an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Done (exit 0).
    Ok,
    /// A `--check`-style answer: found / all well (exit 0) or not (exit 1).
    Found(bool),
    /// Found, and exit 0 even when an error was reported on the way (grep
    /// -q's rule: the answer is known).
    FoundAnyway,
    /// A status of the tool's own, past 0, 1 and 2 (pi-edit --redact's 3:
    /// a match is still sent where no edit can change it).
    Status(u8),
    /// Stopped early by this signal (SIGINT...), as a shell reports a
    /// process it killed: exit 128 + the signal's number.
    Interrupted(i32),
}

/// Whether a [`Log::error`] was reported in this process. A static, so
/// that worker threads report through their own copy of a [`Log`].
static ERRORED: AtomicBool = AtomicBool::new(false);

/// The reporter: `TOOL: warning: FILE:LINE: what` and `TOOL: error: ...` on
/// stderr, each one line (control characters escaped). Small and `Copy`, so
/// worker threads and closures take their own.
#[derive(Debug, Clone, Copy)]
pub struct Log {
    pub tool: &'static str,
    pub quiet: bool,
}

impl Log {
    /// Say a problem that does not stop the tool, unless quiet.
    pub fn warn(&self, d: &Diagnostic) {
        if !self.quiet {
            self.emit("warning: ", d);
        }
    }

    /// [`Log::warn`] for each.
    pub fn warn_all(&self, ds: &[Diagnostic]) {
        for d in ds {
            self.warn(d);
        }
    }

    /// An error that does not stop the tool (one file of many): said even
    /// when quiet, and the tool's exit status becomes its error status.
    pub fn error(&self, e: impl std::fmt::Display) {
        ERRORED.store(true, Ordering::Relaxed);
        self.emit("error: ", &e);
    }

    /// A remark in the tool's voice (`TOOL: text`), unless quiet.
    pub fn note(&self, text: impl std::fmt::Display) {
        if !self.quiet {
            self.emit("", &text);
        }
    }

    /// This log for what `-q` does not silence (a failed batch's summary).
    pub fn loud(self) -> Log {
        Log {
            quiet: false,
            ..self
        }
    }

    /// Text from a session handed back to the user on stderr as it is
    /// (pi-fork --before gives back the message's text, as pi's /fork puts
    /// it in the editor): said even when quiet, without the tool's name,
    /// its line breaks and tabs kept; every other control character is
    /// escaped (session text is hostile: an escape sequence must not reach
    /// a terminal raw).
    pub fn text(&self, text: &str) {
        let lines: Vec<_> = text.split('\n').map(crate::visible::line).collect();
        let mut line = lines.join("\n");
        line.push('\n');
        let _ = io::stderr().lock().write_all(line.as_bytes());
    }

    /// A terminal's progress line (`TOOL: TEXT`, drawn over the last one),
    /// or, `None`, clear it. Only for a tool that checked that stderr is a
    /// terminal ([`Log::progress_shown`]); every other message clears it
    /// first (`progress(None)`).
    pub fn progress(&self, text: Option<&str>) {
        let line = match text {
            Some(t) => format!("\r\x1b[K{}: {}", self.tool, one_line(t)),
            None => "\r\x1b[K".to_string(),
        };
        let _ = io::stderr().lock().write_all(line.as_bytes());
    }

    /// Whether a progress line is to be drawn: stderr is a terminal and
    /// the log is not quiet.
    pub fn progress_shown(&self) -> bool {
        use std::io::IsTerminal;
        !self.quiet && io::stderr().is_terminal()
    }

    /// Whether [`Log::error`] was called in this process.
    pub fn errored() -> bool {
        ERRORED.load(Ordering::Relaxed)
    }

    /// The error that stopped the tool. A usage error keeps its line
    /// breaks (a bad pattern's error draws a caret under it over several
    /// lines, as ripgrep prints it): it quotes the command line, not a
    /// session; every other control character is escaped.
    pub(crate) fn fatal(&self, e: &crate::error::Error) {
        ERRORED.store(true, Ordering::Relaxed);
        if e.kind != crate::error::ErrorKind::Usage {
            return self.emit("error: ", e);
        }
        let text = e.to_string();
        let lines: Vec<_> = text.split('\n').map(one_line).collect();
        self.emit_raw("error: ", &lines.join("\n"));
    }

    /// One line on stderr: the tool, the kind, the text made one line.
    fn emit(&self, kind: &str, text: &dyn std::fmt::Display) {
        self.emit_raw(kind, &one_line(&text.to_string()));
    }

    /// `TOOL: KIND TEXT` on stderr, `text` as it is.
    fn emit_raw(&self, kind: &str, text: &str) {
        let line = format!("{}: {kind}{text}\n", self.tool);
        // One write, so that lines of several threads do not interleave.
        let _ = io::stderr().lock().write_all(line.as_bytes());
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
