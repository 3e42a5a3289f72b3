//! pi-convert: agent messages to what the model sees, and to readable
//! transcripts (usage, options and examples: `pi_session_tools::cmd::convert`).

fn main() -> std::process::ExitCode {
    pi_session_tools::cli::main::<pi_session_tools::cmd::convert::Args>()
}
