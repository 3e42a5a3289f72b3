//! The paragraphs several tools' `--help` share, defined once. Macros, so
//! that each tool's text is one `concat!` constant (clap takes `&'static str`).

/// The pi release every tool is exact to (`@earendil-works/pi-coding-agent`).
/// To follow a newer one, see the README's Development section.
#[macro_export]
macro_rules! pi_release {
    () => {
        "1.6.0"
    };
}

/// [`pi_release!`] as a constant.
pub const PI_RELEASE: &str = pi_release!();

/// The paragraph every tool's `--help` ends with.
#[macro_export]
macro_rules! exact_to_pi {
    () => {
        concat!(
            "\n\nExact to pi ",
            $crate::pi_release!(),
            " (@earendil-works/pi-coding-agent): read-only results are pi's byte for byte; \
the README lists the few deliberate differences.\n\n\
Man page and shell completions: --generate man|complete-bash|complete-zsh|complete-fish|\
complete-powershell."
        )
    };
}

/// What a REF is, for tools whose REF is `--leaf`.
#[macro_export]
macro_rules! help_ref_leaf {
    () => {
        "REF (for --leaf): a full id, a unique id prefix (4+ chars), leaf, root, @LABEL,
followed by any of ^ (parent) and ~N (N-th ancestor): leaf~3, @plan^, root."
    };
}

/// What a REF is, in one line.
#[macro_export]
macro_rules! help_ref {
    () => {
        "REF: a full id, a unique id prefix (4+ chars), leaf, root, @LABEL, with ^ and ~N"
    };
}

/// The line-length limit.
#[macro_export]
macro_rules! help_max_line {
    () => {
        "A line longer than 256 MiB is an error (PI_SESSION_TOOLS_MAX_LINE=BYTES, or 64K, 512M, 1G, sets the limit)."
    };
}

/// The usual exit statuses.
#[macro_export]
macro_rules! help_exit {
    () => {
        "Exit status: 0 ok, 1 the data or request cannot be honoured, 2 wrong usage."
    };
}

/// How the help of a tool that reads one session at a `--leaf` ends: what
/// a REF is, the line limit, the exit statuses, [`exact_to_pi!`].
#[macro_export]
macro_rules! help_leaf_tool_footer {
    () => {
        concat!(
            $crate::help_ref_leaf!(),
            "\n\n",
            $crate::help_max_line!(),
            "\n",
            $crate::help_exit!(),
            $crate::exact_to_pi!()
        )
    };
}
