//! pi-usage: tokens and cost by day, month, session, model, project (usage,
//! options and examples: `pi_session_tools::cmd::usage`).

fn main() -> std::process::ExitCode {
    pi_session_tools::cli::main::<pi_session_tools::cmd::usage::Args>()
}
