//! pi-ls: list sessions, one project or all, as pi lists them (usage,
//! options and examples: `pi_session_tools::cmd::ls`).

fn main() -> std::process::ExitCode {
    pi_session_tools::cli::main::<pi_session_tools::cmd::ls::Args>()
}
