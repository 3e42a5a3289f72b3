//! pi-import: Claude Code and Codex sessions into pi's store (usage,
//! options and examples: `pi_session_tools::cmd::import`).

fn main() -> std::process::ExitCode {
    pi_session_tools::cli::main::<pi_session_tools::cmd::import::Args>()
}
