//! pi-check: what is wrong with sessions, and their repair (usage, options
//! and examples: `pi_session_tools::cmd::check::Args`).

// mimalloc: pi-import's parse allocates a small value per JSON member,
// and the system allocator was 40% of its time (issue 34).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    pi_session_tools::cli::main::<pi_session_tools::cmd::check::Args>()
}
