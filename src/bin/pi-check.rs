//! pi-check: what is wrong with sessions, and their repair (usage, options
//! and examples: `pi_session_tools::cmd::check::Args`).

fn main() -> std::process::ExitCode {
    pi_session_tools::cli::main::<pi_session_tools::cmd::check::Args>()
}
