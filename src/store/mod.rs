//! The session store: where sessions live and how they are found, once for
//! every tool, and what pi lists of them.
//!
//! - `dirs`: the agent directory, the sessions root,
//!   `$PI_CODING_AGENT_SESSION_DIR`, a project's session directory, and
//!   paths resolved and joined as Node does ([`agent_dir`],
//!   [`sessions_root`], [`env_session_dir`], [`store_root`],
//!   [`project_session_dir`], [`resolve_path`], [`node_join`]).
//! - `find`: a SESSION argument resolved to a file ([`resolve_session`]),
//!   the session files of a directory ([`session_files_in`]) or of a tree
//!   ([`session_files_under`]), and the files pi's `SessionManager.list`
//!   and `listAll` read, in pi's order ([`dir_candidates`],
//!   [`all_candidates`]).
//! - `info`: pi's `SessionInfo` of each file ([`session_info`],
//!   [`sort_infos`]), built line by line in `build`, the
//!   lines pi wrote read by their quotes and brackets alone ([`raw`]).
//! - `cache`: what a tool found in each file, kept between runs
//!   ([`FileCache`], pi-ls's [`Cache`], read through by
//!   [`read_all_cached`]), each entry framed by its length
//!   and checksum (`frame`).
//! - `list`: what pi lists ([`list`]: `SessionManager.list` and `listAll`,
//!   through the cache), for pi-ls.
//! - `select`: which sessions a tool over many of them reads
//!   ([`select`]: SESSION arguments, directories walked, this project's
//!   sessions or the whole store; the one meaning of `--session-dir`).
//! - `parallel`: a function over many items on every core
//!   ([`parallel_map`]).

mod build;
mod cache;
mod dirs;
mod find;
mod frame;
mod info;
mod list;
mod parallel;
pub mod raw;
mod select;

pub use cache::{put_bytes, put_opt, put_u64, CacheWriter, Cached, Entries, Key, Reader};
pub use dirs::{
    agent_dir, encode_cwd, env_session_dir, expand_tilde, node_join, normalize_with_home,
    pi_session_dir, project_session_dir, resolve_path, resolve_path_str, store_root,
};
pub use find::{
    all_candidates, dir_candidates, first_line, header_id, looks_like_path, resolve_session,
    session_files_in, session_files_under,
};
pub use info::Info;
pub use list::{list, ListRequest};
pub use parallel::{parallel_in_order, parallel_map, set_threads};
pub use select::{select, DirWalk, Request, Source};
