//! The one error type every tool reports, with its exit status.

use std::fmt;

/// Exit status when the data or the request cannot be honoured.
const EXIT_FAILURE: i32 = 1;
/// Exit status for wrong usage (what clap uses too).
const EXIT_USAGE: i32 = 2;

/// A place in the input: `FILE:LINE` or just `FILE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: Option<u64>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = escape_name(&self.file);
        match self.line {
            Some(l) => write!(f, "{file}:{l}"),
            None => write!(f, "{file}"),
        }
    }
}

/// A file name as messages print it, so that a message stays one line:
/// control characters written as `\n`, `\r`, `\t`, `\xNN` (`\u{NNNN}` for
/// C1 controls), and a backslash as `\\`; any other name as it is.
pub fn escape_name(name: &str) -> std::borrow::Cow<'_, str> {
    crate::visible::field(name)
}

/// A message made one line: control characters written as in
/// [`escape_name`] (a backslash stays as it is: a message quotes patterns).
pub fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    crate::visible::message(text)
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
    /// For a failed read or write, what kind of I/O error it was (a closed
    /// pipe on standard output is matched by this, never by the words).
    pub io: Option<std::io::ErrorKind>,
}

impl Error {
    pub fn data(file: &str, line: Option<u64>, message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Data,
            diag: Diagnostic::new(file, line, message),
            io: None,
        }
    }

    pub fn io(file: &str, err: &std::io::Error) -> Self {
        Error {
            kind: ErrorKind::Io,
            diag: Diagnostic::new(file, None, io_message(err)),
            io: Some(err.kind()),
        }
    }

    /// An error writing the output (standard output): `<stdout>: message`.
    pub fn output(err: std::io::Error) -> Self {
        Error::io("<stdout>", &err)
    }

    pub fn usage(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Usage,
            diag: Diagnostic::plain(message),
            io: None,
        }
    }

    /// A failure of the request that has no place in a file (an unknown REF...).
    pub fn request(file: &str, message: impl Into<String>) -> Self {
        Error::data(file, None, message)
    }

    /// Standard output's reader has gone (`| head`): not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        self.io == Some(std::io::ErrorKind::BrokenPipe)
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
            io: None,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_control_characters_stay_on_one_line() {
        let d = Diagnostic::new("a\nb\tc\\d\u{1b}e\u{85}.jsonl", Some(3), "bad");
        assert_eq!(d.to_string(), "a\\nb\\tc\\\\d\\x1be\\u{0085}.jsonl:3: bad");
        assert_eq!(escape_name("/tmp/plain s.jsonl"), "/tmp/plain s.jsonl");
        assert_eq!(
            one_line("a\\d \u{1b}]52;c;x\u{7}\nb"),
            "a\\d \\x1b]52;c;x\\x07\\nb"
        );
    }
}
