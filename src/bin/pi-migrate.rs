//! pi-migrate: bring version 1 and 2 session files to version 3, one file
//! or thousands (usage, options and examples: `pi_session_tools::cmd::migrate`).

fn main() -> std::process::ExitCode {
    pi_session_tools::cli::main::<pi_session_tools::cmd::migrate::Args>()
}
