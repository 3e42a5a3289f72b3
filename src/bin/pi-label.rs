//! pi-label: set, clear and list labels and the session name (usage,
//! options and examples: `pi_session_tools::cmd::label`).

fn main() -> std::process::ExitCode {
    pi_session_tools::cli::main::<pi_session_tools::cmd::label::Args>()
}
