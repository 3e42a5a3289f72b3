//! The paragraphs several tools' `--help` share, defined once. Macros, so
//! that each tool's text is one `concat!` constant (clap takes `&'static str`).

/// The pi release every tool is exact to (`@earendil-works/pi-coding-agent`).
/// To follow a newer one, see docs/development.md.
macro_rules! pi_release {
    () => {
        "1.6.0"
    };
}

/// `pi_release!` as a constant.
pub const PI_RELEASE: &str = pi_release!();

/// The paragraph every tool's `--help` ends with.
macro_rules! exact_to_pi {
    () => {
        concat!(
            "\n\nExact to pi ",
            crate::cli::help::pi_release!(),
            " (@earendil-works/pi-coding-agent): read-only results are pi's byte for byte; \
the README lists the few deliberate differences.\n\n\
Man page: --generate man. Shell completions that know the session: \
COMPLETE=bash|zsh|fish TOOL prints the script (static ones: --generate \
complete-bash|complete-zsh|complete-fish|complete-powershell)."
        )
    };
}

/// What a REF is (`crate::refs`): the one text of it, after `REF:` or
/// `REF (for --leaf):`.
macro_rules! help_ref_body {
    () => {
        "a full id, a unique id prefix (4+ chars), leaf (the last
entry), last (the last conversation entry on the leaf's path), user (the last
user message on it), root, @LABEL; then any of ^ and ~N, N steps up (~ = ~1):
leaf~3, @plan^, user~2. A step goes to the previous conversation entry
(message, custom_message, branch_summary, compaction), starting from the first
one at or above the base; bookkeeping (label, session_info, context_edit,
custom such as pi-fork's markers, model_change, thinking_level_change, usage,
types pi does not know) is stepped over, so leaf~1 is the message before the
last one whatever was appended after it. After user, a step goes to the
previous user message. No suffix (or ~0): the base itself."
    };
}

/// What a REF is, for tools whose REF is `--leaf`.
macro_rules! help_ref_leaf {
    () => {
        concat!("REF (for --leaf): ", crate::cli::help::help_ref_body!())
    };
}

/// What a REF is, as a paragraph.
macro_rules! help_ref {
    () => {
        concat!("REF: ", crate::cli::help::help_ref_body!())
    };
}

/// The line-length limit.
macro_rules! help_max_line {
    () => {
        "A line longer than 256 MiB is an error (PI_SESSION_TOOLS_MAX_LINE=BYTES, or 64K, 512M, 1G, sets the limit)."
    };
}

/// The usual exit statuses.
macro_rules! help_exit {
    () => {
        "Exit status: 0 ok, 1 the data or request cannot be honoured, 2 wrong usage."
    };
}

/// How the help of a tool that reads one session at a `--leaf` ends: what
/// a REF is, the line limit, the exit statuses, [`exact_to_pi!`].
macro_rules! help_leaf_tool_footer {
    () => {
        concat!(
            crate::cli::help::help_ref_leaf!(),
            "\n\n",
            crate::cli::help::help_max_line!(),
            "\n",
            crate::cli::help::help_exit!(),
            crate::cli::help::exact_to_pi!()
        )
    };
}

/// `--session-dir` for a tool that reads one session: where session-id
/// prefixes are looked up. The one text of its meaning, for every such
/// tool's `--help` and man page.
macro_rules! help_session_dir_one {
    () => {
        "Where session-id prefixes are looked up: DIR itself first, then the \
directories directly under it (default: this project's session directory, \
$PI_CODING_AGENT_SESSION_DIR or ~/.pi/agent/sessions/--<cwd>--, then every \
project's in ~/.pi/agent/sessions)."
    };
}

/// `--session-dir` for a tool over the store (pi-ls, pi-grep, pi-usage):
/// the store read instead of pi's. The one text of its meaning.
macro_rules! help_session_dir_store {
    () => {
        "The store to read instead of pi's: this project's sessions are the \
files in DIR itself, every project's (--all) those in DIR and in the \
directories directly under it; session-id prefixes are looked up in it too \
(default: $PI_CODING_AGENT_SESSION_DIR, else ~/.pi/agent/sessions and this \
project's --<cwd>-- directory in it)."
    };
}

/// `--since` and `--until`: the one text of what they read
/// ([`crate::time::parse_when`]).
macro_rules! help_time {
    () => {
        "TIME (--since, --until): a date or time (2026-11-01, 2026-11-01T09:30Z; ISO 8601 as \
JavaScript's Date reads it, UTC unless an offset is given) or a duration \
before now (90d, 12h, 30m, 45s, 2w)."
    };
}

// The crate's own (not exported): `crate::cli::help::help_exit!()` and the others
// resolve through lib.rs.
pub(crate) use {
    exact_to_pi, help_exit, help_leaf_tool_footer, help_max_line, help_ref, help_ref_body,
    help_ref_leaf, help_session_dir_one, help_session_dir_store, help_time, pi_release,
};
