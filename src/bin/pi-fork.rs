//! pi-fork: a branch (or a whole session) into a new session file, or back
//! to an earlier entry inside the file (usage, options and examples:
//! `pi_session_tools::cmd::fork`).

// mimalloc: pi-import's parse allocates a small value per JSON member,
// and the system allocator was 40% of its time (issue 34).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    pi_session_tools::cli::main::<pi_session_tools::cmd::fork::Args>()
}
