//! pi-rm: delete pi sessions safely (usage, options and examples:
//! `pi_session_tools::cmd::rm`).

fn main() -> std::process::ExitCode {
    pi_session_tools::cli::main::<pi_session_tools::cmd::rm::Args>()
}
