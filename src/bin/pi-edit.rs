//! pi-edit: change what the model sees of an entry, append-only (usage,
//! options and examples: `pi_session_tools::cmd::edit`).

fn main() -> std::process::ExitCode {
    pi_session_tools::cli::main::<pi_session_tools::cmd::edit::Args>()
}
