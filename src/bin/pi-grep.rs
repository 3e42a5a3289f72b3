//! pi-grep: search the decoded text of every session, landing on entry ids
//! (usage, options and examples: `pi_session_tools::cmd::grep`).

fn main() -> std::process::ExitCode {
    pi_session_tools::cli::main::<pi_session_tools::cmd::grep::Args>()
}
