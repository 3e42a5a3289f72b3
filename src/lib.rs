//! pi-session-tools: read, inspect and rewrite the session files of the pi
//! coding agent exactly as pi itself does.
//!
//! The library is usable without the binaries:
//!
//! ```no_run
//! use pi_session_tools::{session::{Input, ReadOptions, Session}, refs, path, context};
//! let s = Session::open(Input::File("s.jsonl".into()), ReadOptions::default())?;
//! let leaf = refs::resolve(&s, "leaf~2")?;
//! for i in path::path_to(&s, leaf)? {
//!     println!("{}", String::from_utf8_lossy(&s.line(i)?));
//! }
//! let ctx = context::build(&s, Some(leaf))?;
//! println!("{} messages", ctx.items.len());
//! # Ok::<(), pi_session_tools::error::Error>(())
//! ```
//!
//! Modules by concept: [`json`] (validating scanner and JavaScript-exact
//! writer), [`entry`] (what is kept of a line), [`session`] (reading),
//! [`index`] (ids, parents, labels), [`refs`] (entry references),
//! [`path`], [`context`], [`migrate`], [`store`] (where sessions live,
//! finding them, what pi lists of them),
//! [`time`], [`cmd`] (what each tool does), [`cli`] (what the binaries share).

pub mod append;
pub mod cli;
pub mod cmd;
pub mod context;
pub mod convert;
pub mod entry;
pub mod error;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
#[cfg(unix)]
pub mod gather;
pub mod index;
mod io;
pub mod json;
/// Where sessions live: the old paths of what [`store`] holds.
pub mod locate {
    pub use crate::store::{
        agent_dir, encode_cwd, expand_tilde, header_id, project_session_dir, resolve_path,
        resolve_path_str, resolve_session, sessions_root,
    };
}
pub mod migrate;
pub mod path;
pub mod refs;
pub mod search;
pub mod session;
pub mod store;
pub mod summary;
pub mod time;
pub mod transcript;
pub mod tree;
pub mod width;
mod width_tables;
pub mod write;
