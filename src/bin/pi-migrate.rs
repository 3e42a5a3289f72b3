//! pi-migrate: bring version 1 and 2 session files to version 3, one file
//! or thousands (usage, options and examples: `pi_session_tools::cmd::migrate`).

// mimalloc: pi-import's parse allocates a small value per JSON member,
// and the system allocator was 40% of its time (issue 34).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    pi_session_tools::cli::main::<pi_session_tools::cmd::migrate::Args>()
}
