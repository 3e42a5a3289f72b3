//! The one error type every tool reports, with its exit status.

use std::fmt;

/// Exit status when the data or the request cannot be honoured.
pub const EXIT_FAILURE: i32 = 1;
/// Exit status for wrong usage (what clap uses too).
pub const EXIT_USAGE: i32 = 2;

/// A place in the input: `FILE:LINE` or just `FILE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: Option<u64>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}", self.file, l),
            None => write!(f, "{}", self.file),
        }
    }
}

/// A problem found in the input or the request: printed as
/// `FILE:LINE: message` (or `FILE: message`, or just the message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub at: Option<Location>,
    pub message: String,
}

impl Diagnostic {
    pub fn new(file: &str, line: Option<u64>, message: impl Into<String>) -> Self {
        Diagnostic {
            at: Some(Location {
                file: file.to_string(),
                line,
            }),
            message: message.into(),
        }
    }

    pub fn plain(message: impl Into<String>) -> Self {
        Diagnostic {
            at: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.at {
            Some(at) => write!(f, "{}: {}", at, self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

/// What kind of failure, which decides the exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The data cannot give a right answer (exit 1).
    Data,
    /// Reading or writing failed (exit 1).
    Io,
    /// The command line asks for something impossible (exit 2).
    Usage,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub diag: Diagnostic,
}

impl Error {
    pub fn data(file: &str, line: Option<u64>, message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Data,
            diag: Diagnostic::new(file, line, message),
        }
    }

    pub fn io(file: &str, err: &std::io::Error) -> Self {
        Error {
            kind: ErrorKind::Io,
            diag: Diagnostic::new(file, None, io_message(err)),
        }
    }

    pub fn usage(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Usage,
            diag: Diagnostic::plain(message),
        }
    }

    /// A failure of the request that has no place in a file (an unknown REF...).
    pub fn request(file: &str, message: impl Into<String>) -> Self {
        Error::data(file, None, message)
    }

    pub fn exit_code(&self) -> i32 {
        match self.kind {
            ErrorKind::Usage => EXIT_USAGE,
            _ => EXIT_FAILURE,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.diag.fmt(f)
    }
}

impl std::error::Error for Error {}

impl From<Diagnostic> for Error {
    fn from(diag: Diagnostic) -> Self {
        Error {
            kind: ErrorKind::Data,
            diag,
        }
    }
}

/// An I/O error in words, without Rust's "(os error N)" noise.
pub fn io_message(err: &std::io::Error) -> String {
    let s = err.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
