//! pi-migrate: every old pi session to version 3, safely.
//!
//! Usage: pi-migrate [OPTIONS] [PATH...]
//!
//! Upgrades version 1 and 2 session files the way pi does when it opens
//! one, but with the ids the read-only tools already show, every other byte
//! kept, nothing dropped, and files replaced atomically.

use clap::Parser;
use pi_session_tools::cli;
use pi_session_tools::cmd::migrate::{self, MigrateOptions, Mode, Request};

const EXAMPLES: &str = concat!(
    "\
Examples:
  pi-migrate old.jsonl > new.jsonl         the migrated session on stdout
  pi-migrate < old.jsonl                   the same, from stdin
  pi-path --format ids old.jsonl           the ids the migrated file will have
  pi-migrate --check agent/sessions        list files that need migrating (exit 1 if any);
                                           pi's own directory is ~/.pi/agent/sessions
  pi-migrate --check 019b4f7b              a session named by its id prefix (exit 1: it needs it)
  pi-migrate --dry-run --all               what would change in every session
  pi-migrate -i old.jsonl                  rewrite the file in place (atomically)
  pi-migrate -i --backup --all             every session, keeping NAME.jsonl.bak
  pi-migrate -i --all --relocate           also move pi 0.30's misplaced files into
                                           sessions/--<cwd>--/

A file already at version 3 is never touched. A line that is not JSON makes
the file fail (FILE:LINE) unless --keep-malformed; a file that changes while
it is migrated is left as it is. Temporary files are named
.NAME.pi-migrate-tmp-PID-RAND and removed by the next run.

A pipe, FIFO or device given as a path is read once, as stdin is; -i refuses it
(there is no file to replace).
A line longer than 256 MiB is an error (PI_SESSION_TOOLS_MAX_LINE=BYTES, or 64K, 512M, 1G, sets the limit).
Exit status: 0 ok, 1 a file failed (or --check found files to migrate), 2 wrong usage.",
    pi_session_tools::exact_to_pi!()
);

/// Migrate pi session files to version 3, safely.
///
/// Does what pi's migrateSessionEntries does when pi opens an old session
/// (v1: ids and parentIds, firstKeptEntryIndex to firstKeptEntryId; v2:
/// hookMessage roles to custom; header version 3), except that ids are the
/// deterministic ones every pi-session-tools command shows for the old file,
/// lines needing no change keep their exact bytes, and nothing is dropped.
/// With no PATH (or `-`) reads stdin; one file without -i goes to stdout.
#[derive(Parser, Debug)]
#[command(name = "pi-migrate", version, after_help = EXAMPLES)]
struct Args {
    /// Session files or directories (every *.jsonl below), `-` for stdin, or
    /// session-id prefixes (looked up like `pi --session`: this project's
    /// sessions first, then every project's).
    #[arg(value_name = "PATH")]
    paths: Vec<String>,

    /// Rewrite each file in place (atomically: temporary file, fsync, rename).
    #[arg(short, long, conflicts_with_all = ["check", "dry_run"])]
    in_place: bool,

    /// Change nothing; list the files that need migrating; exit 1 if any.
    #[arg(long, conflicts_with = "dry_run")]
    check: bool,

    /// Change nothing; say per file what would change.
    #[arg(short = 'n', long)]
    dry_run: bool,

    /// Every session under the sessions root ($PI_CODING_AGENT_SESSION_DIR,
    /// else $PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions).
    #[arg(long)]
    all: bool,

    /// Also move session files pi 0.30 wrote directly into the agent
    /// directory to sessions/--<encoded cwd>--/ (never over an existing file).
    #[arg(long, requires = "all")]
    relocate: bool,

    /// Keep the original next to each rewritten file, as NAME.jsonl + SUFFIX
    /// (default `.bak`; an existing backup is never overwritten).
    #[arg(
        long,
        value_name = "SUFFIX",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = ".bak"
    )]
    backup: Option<String>,

    /// Carry lines that are not JSON objects through unchanged, where they
    /// stand (pi would drop them); by default such a file is refused.
    #[arg(long)]
    keep_malformed: bool,

    /// Draw new ids at random, as pi does, instead of the deterministic ids
    /// the other tools show for the old file.
    #[arg(long)]
    random_ids: bool,

    /// Print only errors (no warnings, no summary line).
    #[arg(short, long)]
    quiet: bool,
}

fn main() -> std::process::ExitCode {
    let mut ok = true;
    let code = cli::main("pi-migrate", |args: Args| {
        if args.backup.as_deref() == Some("") {
            return Err(pi_session_tools::error::Error::usage(
                "--backup=SUFFIX needs a non-empty suffix",
            ));
        }
        let mode = if args.in_place {
            Mode::InPlace
        } else if args.check {
            Mode::Check
        } else if args.dry_run {
            Mode::DryRun
        } else {
            Mode::Stdout
        };
        // A PATH that names nothing may be a session-id prefix, looked up as
        // the other tools look up SESSION.
        let mut paths = Vec::with_capacity(args.paths.len());
        for p in args.paths {
            if p.is_empty() || p == "-" || std::path::Path::new(&p).symlink_metadata().is_ok() {
                paths.push(p);
                continue;
            }
            match pi_session_tools::locate::resolve_session(Some(&p), None)? {
                pi_session_tools::session::Input::File(f) => {
                    paths.push(f.to_string_lossy().into_owned())
                }
                pi_session_tools::session::Input::Stdin => paths.push(p),
            }
        }
        let req = Request {
            paths,
            mode,
            all: args.all,
            relocate: args.relocate,
            backup: args.backup,
            opts: MigrateOptions {
                keep_malformed: args.keep_malformed,
                random_ids: args.random_ids,
            },
            quiet: args.quiet,
        };
        ok = migrate::run(&req)?;
        Ok(())
    });
    if code == std::process::ExitCode::SUCCESS && !ok {
        return std::process::ExitCode::FAILURE;
    }
    code
}
