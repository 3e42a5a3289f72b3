//! pi-edit: change what the model sees of an entry, without rewriting
//! history (pi 1.6's `context_edit` entries).
//!
//! Usage: pi-edit [OPTIONS] SESSION REF --replace TEXT | --replace-file FILE
//!                                      | --replace-json JSON | --omit | --restore
//!        pi-edit [OPTIONS] SESSION --list [--json]
//!        pi-edit [OPTIONS] SESSION --redact PATTERN [--with TEXT] [--dry-run]

use clap::{ArgGroup, Parser};
use pi_session_tools::cli;
use pi_session_tools::cmd::edit::{self, Action};
use pi_session_tools::error::Error;
use pi_session_tools::locate::resolve_session;
use pi_session_tools::session::ReadOptions;
use std::io::Read;
use std::path::PathBuf;

const EXAMPLES: &str = concat!(
    "\
Examples:
  pi-edit s.jsonl 3f2a --replace 'the key was [redacted]'
                                  the model sees this text instead (a text block
                                  for an assistant or tool result, as pi makes it)
  pi-edit s.jsonl 3f2a --replace-file new.txt    the content from a file (- for stdin)
  pi-edit s.jsonl 3f2a --replace-json '[{\"type\":\"text\",\"text\":\"short\"}]'
                                  content blocks as given
  pi-edit s.jsonl @huge-output --omit            leave the entry out of the context
  pi-edit s.jsonl 3f2a --restore                 the model sees the original again
  pi-edit s.jsonl --list                         edits in force: TARGET KIND EDIT BEFORE AFTER ROLE
  pi-edit s.jsonl --list --json | jq 'select(.kind==\"omit\").target'
  pi-edit s.jsonl --redact 'sk-[A-Za-z0-9]{20,}' --dry-run
                                  which entries hold a key (ENTRY MATCHES -)
  pi-edit s.jsonl --redact 'sk-[A-Za-z0-9]{20,}' --with '[REDACTED]'
                                  one edit per entry: ENTRY MATCHES EDIT

Each edit appends exactly the context_edit entry pi 1.6.0's appendContextEdit
writes (parent: the last entry of the file), with one locked write on a fresh
line, then fsync; the entry itself stays in the file as it was. pi's refusals
are refused with pi's reason: a target not on the active branch (the path to
the last entry), one that adds no editable content (only custom_message
entries and user, assistant and toolResult messages can be edited), a
replacement that is neither a string nor an array.
Prints the new entry's id before appending it (an output that fails: nothing
is appended). --restore with no edit in force writes nothing (exit 0).
--redact matches what the model sees now (after earlier edits): string
content, text and thinking blocks, and the strings and numbers in tool-call
arguments; exit 1 when nothing matched (like grep). A thinking block it
changes loses its thinkingSignature (it signed the old text).

REF: a full id, a unique id prefix (4+ chars), leaf, root, @LABEL, with ^ and ~N.
A line longer than 256 MiB is an error (PI_SESSION_TOOLS_MAX_LINE=BYTES, or 64K, 512M, 1G, sets the limit).
Exit status: 0 ok, 1 the data or request cannot be honoured (or no match), 2 wrong usage.",
    pi_session_tools::exact_to_pi!()
);

/// Change what the model sees of an entry of a pi session, without rewriting history.
///
/// pi 1.6 reads `context_edit` entries: the latest one on the path for an
/// entry replaces that entry's content in every context built on that path,
/// or leaves the entry out. pi-edit appends them, so that a secret stops
/// being sent, a huge tool output is shortened, a wrong instruction is taken
/// back, while the file stays append-only and the original stays on disk.
#[derive(Parser, Debug)]
#[command(name = "pi-edit", version, after_help = EXAMPLES)]
#[command(group(ArgGroup::new("edit").args(["replace", "replace_file", "replace_json", "omit", "restore"])))]
struct Args {
    /// Session file, `-` for stdin (the session and the new entries go to stdout), or a session-id prefix.
    #[arg(value_name = "SESSION")]
    session: String,

    /// The entry to edit (a REF).
    #[arg(value_name = "REF")]
    reference: Option<String>,

    /// The model sees TEXT as the entry's content.
    #[arg(long, value_name = "TEXT", requires = "reference")]
    replace: Option<String>,

    /// The model sees the text of FILE (`-`: stdin) as the entry's content.
    #[arg(long, value_name = "FILE", requires = "reference")]
    replace_file: Option<PathBuf>,

    /// The model sees JSON (a string, or an array of content blocks) as the entry's content.
    #[arg(long, value_name = "JSON", requires = "reference")]
    replace_json: Option<String>,

    /// Leave the entry out of the context.
    #[arg(long, requires = "reference")]
    omit: bool,

    /// The model sees the entry's original content again.
    #[arg(long, requires = "reference")]
    restore: bool,

    /// List the edits in force on the active path.
    #[arg(long, conflicts_with_all = ["reference", "redact"])]
    list: bool,

    /// With --list: JSON lines {target, line, type, role, kind, edit, editLine, before, after}.
    #[arg(long, requires = "list")]
    json: bool,

    /// Edit every entry the model sees whose text matches PATTERN (a Rust regex).
    #[arg(long, value_name = "PATTERN", conflicts_with = "reference")]
    redact: Option<String>,

    /// With --redact: what each match becomes (taken literally).
    #[arg(
        long,
        value_name = "TEXT",
        requires = "redact",
        default_value = "[REDACTED]"
    )]
    with: String,

    /// With --redact: print what would be edited, write nothing.
    #[arg(long, requires = "redact")]
    dry_run: bool,

    /// Directory to look up session-id prefixes in.
    #[arg(long, value_name = "DIR")]
    session_dir: Option<PathBuf>,

    /// Treat lines that are not JSON objects as errors.
    #[arg(long)]
    strict: bool,

    /// Do not print warnings.
    #[arg(short, long)]
    quiet: bool,
}

impl Args {
    fn action(&self) -> Result<Action, Error> {
        if self.list {
            return Ok(Action::List { json: self.json });
        }
        if let Some(p) = &self.redact {
            let pattern = regex::Regex::new(p)
                .map_err(|e| Error::usage(format!("--redact: not a valid pattern: {e}")))?;
            if pattern.is_match("") {
                return Err(Error::usage(
                    "--redact: the pattern matches the empty string (it would match every entry)",
                ));
            }
            return Ok(Action::Redact {
                pattern,
                with: self.with.clone(),
                dry_run: self.dry_run,
            });
        }
        let Some(reference) = self.reference.clone() else {
            return Err(Error::usage(
                "say what to do: REF and an edit, --list or --redact",
            ));
        };
        if self.omit {
            return Ok(Action::Omit { reference });
        }
        if self.restore {
            return Ok(Action::Restore { reference });
        }
        let content = if let Some(t) = &self.replace {
            edit::json_string(t)
        } else if let Some(j) = &self.replace_json {
            edit::parse_json_arg(j).map_err(|e| Error::usage(format!("--replace-json: {e}")))?
        } else if let Some(f) = &self.replace_file {
            edit::json_string(&read_text(f, &self.session)?)
        } else {
            return Err(Error::usage(
                "say how to edit REF: --replace, --replace-file, --replace-json, --omit or --restore",
            ));
        };
        Ok(Action::Replace { reference, content })
    }
}

/// The text of `--replace-file` (`-`: stdin), which must be UTF-8.
fn read_text(f: &std::path::Path, session: &str) -> Result<String, Error> {
    let name = f.display().to_string();
    let bytes = if name == "-" {
        if session == "-" {
            return Err(Error::usage(
                "--replace-file - and SESSION - cannot both be stdin",
            ));
        }
        let mut b = Vec::new();
        std::io::stdin()
            .read_to_end(&mut b)
            .map_err(|e| Error::io("<stdin>", &e))?;
        b
    } else {
        std::fs::read(f).map_err(|e| Error::io(&name, &e))?
    };
    String::from_utf8(bytes).map_err(|e| {
        Error::request(
            &name,
            format!(
                "not valid UTF-8 at byte {}: the replacement must be text",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

fn main() -> std::process::ExitCode {
    cli::main("pi-edit", |args: Args| {
        if args.session.is_empty() {
            return Err(Error::usage("an empty SESSION names no session"));
        }
        let action = args.action()?;
        let input = resolve_session(Some(&args.session), args.session_dir.as_deref())?;
        let quiet = args.quiet;
        let mut warn = |s: &pi_session_tools::session::Session| {
            if !quiet {
                for w in &s.warnings {
                    eprintln!("pi-edit: warning: {w}");
                }
            }
        };
        let mut note = |w: &str| {
            if !quiet {
                eprintln!("pi-edit: warning: {w}");
            }
        };
        edit::run(
            input,
            ReadOptions {
                strict: args.strict,
                ..Default::default()
            },
            &action,
            &mut warn,
            &mut note,
            &mut cli::stdout(),
        )
    })
}
