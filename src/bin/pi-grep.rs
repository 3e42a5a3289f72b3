//! pi-grep: search the decoded text of every session, landing on entry ids
//! (usage, options and examples: `pi_session_tools::cmd::grep`).

// mimalloc: pi-import's parse allocates a small value per JSON member,
// and the system allocator was 40% of its time (issue 34).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    pi_session_tools::cli::main::<pi_session_tools::cmd::grep::Args>()
}
