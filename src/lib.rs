//! pi-session-tools: read, inspect and rewrite the session files of the pi
//! coding agent exactly as pi 1.6.0 itself does.
//!
//! The library is usable without the binaries. Open a session, resolve an
//! entry reference, walk the path to it, and build the context pi would
//! send to the model:
//!
//! ```
//! use pi_session_tools::session::{Input, ReadOptions, Session};
//! use pi_session_tools::{context, path, refs};
//!
//! let s = Session::open(Input::File("examples/s.jsonl".into()), ReadOptions::default())?;
//! let at = refs::resolve(&s, "@plan")?; // an entry labelled `plan`
//! let on_path = path::path_to(&s, at)?; // root first, `at` last
//! assert_eq!(on_path.last(), Some(&at));
//! for &i in &on_path {
//!     let line = s.line(i)?; // the entry's JSON line
//!     assert!(line.starts_with(b"{"));
//! }
//! let ctx = context::build(&s, Some(at))?; // pi's buildSessionContext
//! assert!(!ctx.items.is_empty());
//! for w in &s.warnings {
//!     eprintln!("{w}"); // FILE:LINE: what pi skipped
//! }
//! # Ok::<(), pi_session_tools::error::Error>(())
//! ```
//!
//! The promised API, by concept (see ARCHITECTURE.md): [`session`]
//! (reading a file), [`entry`] (what is kept of a line), [`index`] (ids,
//! parents, labels), [`refs`] (entry references), [`path`], [`tree`] (pi's
//! `getTree`), [`context`] (pi's `buildSessionContext`), [`convert`]
//! (`convertToLlm`), [`migrate`] (versions 1 and 2 to 3), [`append`]
//! (writing entries as pi does), [`error`]. [`cmd`] holds each tool's
//! arguments and [`cli`] the frame the binaries share ([`cli::main`]).
//! Everything else (the store, the JSON scanner, transcripts, time, widths)
//! is the crate's own and may change.

/// A module of the crate's own, public only to the fuzz targets and the
/// tests (the `fuzzing` feature), so that without it the dead-code lint
/// sees every item nobody uses.
macro_rules! internal {
    ($name:ident) => {
        #[cfg(feature = "fuzzing")]
        #[doc(hidden)]
        pub mod $name;
        #[cfg(not(feature = "fuzzing"))]
        mod $name;
    };
}

// The promised API (ARCHITECTURE.md lists it).
pub mod append;
mod check;
pub mod cli;
// The commands' doc comments are their --help text, written for a terminal
// (`<cwd>`, `[OPTIONS]`), not for rustdoc.
#[allow(rustdoc::invalid_html_tags, rustdoc::broken_intra_doc_links)]
pub mod cmd;
pub mod context;
pub mod convert;
pub mod entry;
pub mod error;
pub mod index;
pub mod migrate;
pub mod path;
pub mod refs;
pub mod session;
pub mod tree;

// The crate's own.
mod decimal;
mod forks;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
#[cfg(unix)]
mod gather;
mod header_edit;
mod import;
mod inuse;
mod io;
mod live;
mod moving;
mod name;
internal!(json);
mod render;
mod search;
internal!(store);
mod summary;
#[cfg(test)]
mod test_rng;
mod thousands;
mod trash;
internal!(time);
mod page;
mod transcript;
mod tree_problems;
mod visible;
internal!(width);
mod width_tables;
mod write;
