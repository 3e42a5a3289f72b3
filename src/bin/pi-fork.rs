//! pi-fork: a branch (or a whole session) into a new session file, or back
//! to an earlier entry inside the file (usage, options and examples:
//! `pi_session_tools::cmd::fork`).

fn main() -> std::process::ExitCode {
    pi_session_tools::cli::main::<pi_session_tools::cmd::fork::Args>()
}
