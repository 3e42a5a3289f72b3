//! pi-tree: pi's `/tree` view of a session from the shell (usage, options
//! and examples: `pi_session_tools::cmd::tree`).

fn main() -> std::process::ExitCode {
    pi_session_tools::cli::main::<pi_session_tools::cmd::tree::Args>()
}
