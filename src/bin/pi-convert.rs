//! pi-convert: exactly what the model sees, and transcripts people can read.
//!
//! Usage: pi-convert [OPTIONS] [SESSION]
//!
//! Reads a session (the context at a leaf) or a stream of AgentMessages,
//! one per line, and writes pi's `convertToLlm` answer as JSON lines, or a
//! Markdown, HTML or plain-text transcript.

use clap::Parser;
use pi_session_tools::cli::{self, SessionArgs};
use pi_session_tools::cmd::convert::{self, Data, From, Options, To};
use pi_session_tools::error::Error;
use pi_session_tools::session::{Input, ReadOptions};

const EXAMPLES: &str = concat!(
    "\
Examples:
  pi-convert s.jsonl                        the pi-ai messages sent to the model, one per line
  pi-convert --leaf @plan s.jsonl           the same at the entry labelled plan
  pi-convert --to markdown s.jsonl > t.md   a transcript to read or share
  pi-convert --to html s.jsonl > t.html     one self-contained page (no network, prints well)
  pi-convert --to text s.jsonl | grep '^toolResult (bash, error)'
                                            failed bash tool calls
  pi-convert --to markdown --include-hidden s.jsonl
                                            with the !! bash runs the model never saw
  pi-path --format messages s.jsonl | pi-convert
                                            messages on stdin (detected from the first line)
  pi-convert 019a5c --to text               a session by id prefix, like pi --session

REF (for --leaf): a full id, a unique id prefix (4+ chars), leaf, root, @LABEL,
followed by any of ^ (parent) and ~N (N-th ancestor): leaf~3, @plan^, root.

A line longer than 256 MiB is an error (PI_SESSION_TOOLS_MAX_LINE=BYTES, or 64K, 512M, 1G, sets the limit).
Exit status: 0 ok, 1 the data or request cannot be honoured, 2 wrong usage.",
    pi_session_tools::exact_to_pi!()
);

/// Exactly what the model sees, and transcripts people can read.
///
/// The input is a pi session (a file, `-` for stdin, or a session-id
/// prefix) or AgentMessages, one JSON object per line (what `pi-path
/// --format messages` prints); which one is told from the first non-empty
/// line unless --from says. For a session, the context pi builds at the
/// leaf (buildSessionContext) is converted. `--to llm` writes pi's
/// convertToLlm answer byte for byte: user, assistant and toolResult
/// messages as they are, bash executions, custom messages and summaries as
/// user messages, `!!` bash runs and unknown roles left out.
#[derive(Parser, Debug)]
#[command(name = "pi-convert", version, after_help = EXAMPLES)]
struct Args {
    #[command(flatten)]
    input: SessionArgs,

    /// What the input is (default: detected from the first non-empty line).
    #[arg(long, value_enum, value_name = "KIND")]
    from: Option<From>,

    /// What to write.
    #[arg(long, value_enum, value_name = "FORMAT", default_value = "llm")]
    to: To,

    /// For a session: the entry whose context is converted (a REF, see
    /// below; --at is the same, as in pi-fork).
    #[arg(long, value_name = "REF", default_value = "leaf", visible_alias = "at")]
    leaf: String,

    /// In markdown, html and text: also show what the model does not see,
    /// marked as such: bash runs excluded from the context (`!!`), the
    /// content of entries a context edit omits, the original of an edited
    /// entry (never in --to llm). Without it a transcript holds only what
    /// the model is sent, so a redaction (pi-edit --redact) stays redacted.
    #[arg(long)]
    include_hidden: bool,
}

fn main() -> std::process::ExitCode {
    cli::main("pi-convert", |args: Args| {
        let a = &args.input;
        let input = pi_session_tools::locate::resolve_session(
            a.session.as_deref(),
            a.session_dir.as_deref(),
        )?;
        let name = input.display_name();
        let data = match input {
            Input::Stdin => Data::Bytes(pi_session_tools::session::read_stdin(&name)?),
            Input::File(p) => {
                if p.is_dir() {
                    return Err(Error::request(
                        &name,
                        "is a directory, not a session or message file",
                    ));
                }
                if std::fs::metadata(&p).is_ok_and(|m| !m.is_file()) {
                    // A pipe or a device: read once, as stdin is.
                    let f = std::fs::File::open(&p).map_err(|e| Error::io(&name, &e))?;
                    Data::Bytes(pi_session_tools::session::read_stream(&mut &f, &name)?)
                } else {
                    Data::File(p)
                }
            }
        };
        let opts = Options {
            from: args.from,
            to: args.to,
            leaf: args.leaf.clone(),
            include_hidden: args.include_hidden,
            read: ReadOptions {
                strict: a.strict,
                ..Default::default()
            },
            warn: (!a.quiet).then(|| "pi-convert".to_string()),
        };
        convert::run_data(&name, data, &opts, &mut cli::stdout())
    })
}
