//! pi-mv: move pi sessions with their project (usage, options and
//! examples: `pi_session_tools::cmd::mv`).

fn main() -> std::process::ExitCode {
    pi_session_tools::cli::main::<pi_session_tools::cmd::mv::Args>()
}
