//! pi-path: the path from the root of a pi session to a leaf (usage, options
//! and examples: `pi_session_tools::cmd::path`).

fn main() -> std::process::ExitCode {
    pi_session_tools::cli::main::<pi_session_tools::cmd::path::Args>()
}
