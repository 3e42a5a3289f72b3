//! `pi-import`: Claude Code and Codex sessions brought into pi's store as
//! version-3 pi sessions, their branches kept (the reading is
//! `crate::import`'s; this is the command: sources, destinations, output).

use crate::cli::{Ctx, Exit, Out};
use crate::error::{Diagnostic, Error, Result};
use crate::import::{self, Agent, Imported, J};
use crate::store as dirs;
use clap::Parser;
use std::path::{Path, PathBuf};

const EXAMPLES: &str = concat!(
    "\
Examples:
  pi-import claude.jsonl                   a Claude Code session into pi's store
  pi-import codex.jsonl -o - | pi-tree     a Codex rollout as a pi session, drawn
  pi-import --dry-run --json claude.jsonl codex.jsonl | jq -r .path
                                           where each would be written
  pi-import --from claude claude.jsonl -o imported.jsonl
                                           into a file of your choosing
  pi-import claude.jsonl codex.jsonl       run again: `unchanged`, nothing written
  pi-import -q --json codex.jsonl | jq .leaves
                                           the branches the import holds

--all: every session of the agents (both, or the --from one) not imported
yet. Sources: Claude Code's ~/.claude/projects/<dir>/<session>.jsonl (and
$CLAUDE_CONFIG_DIR/projects), Codex's ~/.codex/sessions/**/rollout-*.jsonl
(and $CODEX_HOME/sessions); the format is told from the content (--from
forces it). Claude Code's subagent runs (<session>/subagents/agent-*.jsonl)
are sessions of their own: imported when named, not by --all.
The file is named as pi names its own (<time>_<uuid>.jsonl) in the
directory of the session's cwd; its id and entry ids are drawn from the
source, so the same source always gives the same bytes. Run again, an
unchanged source writes nothing; a source that grew replaces its earlier
import when that file is as pi-import wrote it, and is left alone (with a
warning) when it changed since (pi continued it). Any other file of that
name is never overwritten.
Lines with no pi form (progress, hooks, snapshots, events) are kept in one
`custom` entry (pi never sends it), named in a warning; a line that is not
JSON is a FILE:LINE warning and the rest is imported. Usage tokens are
kept; cost is zero (neither agent records one).

",
    crate::cli::help::help_exit!(),
    crate::cli::help::exact_to_pi!()
);

/// Which agent wrote the sources (`--from`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum From {
    /// Claude Code.
    Claude,
    /// Codex.
    Codex,
}

/// Bring Claude Code and Codex sessions into pi, with their branches.
///
/// Each source becomes a version-3 pi session that pi opens and continues
/// (pi -c): every message an entry, branch points kept, tool calls paired
/// with their results, compactions as compaction entries, and the leaf pi
/// continues from the one the source agent would resume. The header records
/// where it came from (importedFrom: agent, path, sessionId).
#[derive(Parser, Debug)]
#[command(name = "pi-import", version, after_help = EXAMPLES)]
pub struct Args {
    /// Claude Code or Codex session files.
    #[arg(value_name = "FILE", value_parser = crate::cli::name_arg())]
    pub files: Vec<String>,

    /// The agent that wrote the sources (default: told from the content).
    #[arg(long, value_enum)]
    pub from: Option<From>,

    /// Every session of the agent (both without --from) not imported yet.
    #[arg(long)]
    pub all: bool,

    /// Write to FILE instead of pi's store (`-`: standard output; one source).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Write into DIR instead of the session's cwd's directory in pi's store.
    #[arg(long, value_name = "DIR")]
    pub session_dir: Option<PathBuf>,

    /// Say what would be written, write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// One JSON object per source: source, path, status, id, entries,
    /// leaves, warnings.
    #[arg(long)]
    pub json: bool,

    /// No warnings.
    #[arg(short, long)]
    pub quiet: bool,
}

crate::cli::impl_tool! { Args, "pi-import", quiet = quiet }

/// What became of one source.
struct Outcome {
    path: String,
    status: &'static str,
    imported: Imported,
    warnings: Vec<Diagnostic>,
}

/// `pi-import`: import each source.
pub(crate) fn run(args: &Args, ctx: &mut Ctx) -> Result<Exit> {
    let mut sources: Vec<PathBuf> = args
        .files
        .iter()
        .map(|f| crate::name::path_of_kept(f))
        .collect();
    if args.all {
        sources.extend(all_sources(args.from));
    } else if sources.is_empty() {
        return Err(Error::usage(
            "no FILE given (or --all); for help, run with --help",
        ));
    }
    let to_stdout = args.output.as_deref() == Some(Path::new("-"));
    if args.output.is_some() && sources.len() > 1 {
        return Err(Error::usage("-o takes one source; give one FILE"));
    }
    if let [one] = &sources[..] {
        let shown = crate::name::kept_path(one).into_owned();
        if !one.exists() && shown == "help" {
            return Err(Error::usage(
                "help: no such file; for help, run with --help",
            ));
        }
        if to_stdout {
            let (imported, warnings, _) = prepare(args, one, &shown)?;
            if !args.quiet {
                ctx.log.warn_all(&warnings);
            }
            ctx.out().bytes(&imported.bytes)?;
            return Ok(Exit::Ok);
        }
    }
    // Sources are read, converted and written on every core, a batch at a
    // time (memory: a batch's files), and reported in their order.
    for batch in sources.chunks(64) {
        let done = crate::store::parallel_map(batch, |src| {
            let shown = crate::name::kept_path(src).into_owned();
            let r = prepare(args, src, &shown).and_then(|p| place(args, p));
            (shown, r)
        });
        for (shown, r) in done {
            match r {
                Ok(o) => report(args, ctx, &shown, o)?,
                Err(e) => ctx.log.error(e),
            }
        }
    }
    Ok(Exit::Ok)
}

/// Read and convert one source: the pi session, the warnings, its cwd.
fn prepare(args: &Args, src: &Path, shown: &str) -> Result<(Imported, Vec<Diagnostic>, String)> {
    let bytes = std::fs::read(src).map_err(|e| Error::io(shown, &e))?;
    let agent = match args.from {
        Some(From::Claude) => Agent::Claude,
        Some(From::Codex) => Agent::Codex,
        None => import::detect(&bytes).ok_or_else(|| {
            Error::data(
                shown,
                None,
                "neither a Claude Code nor a Codex session (--from forces one)",
            )
        })?,
    };
    let source_path = dirs::resolve_path_str(shown);
    let conv = import::read(agent, shown, &bytes);
    let imported = import::render(&conv, &source_path, bytes.len() as u64);
    Ok((imported, conv.warnings, conv.cwd))
}

/// Write one converted source where it goes (unless --dry-run).
fn place(
    args: &Args,
    (imported, warnings, cwd): (Imported, Vec<Diagnostic>, String),
) -> Result<Outcome> {
    let source_path = imported.source.clone();
    if imported.messages == 0 {
        // Claude Code keeps files of titles only: nothing to continue.
        return Ok(Outcome {
            path: String::new(),
            status: "empty",
            imported,
            warnings,
        });
    }
    let target = match &args.output {
        Some(f) => f.clone(),
        None => {
            if cwd.is_empty() && args.session_dir.is_none() {
                return Err(Error::data(
                    &source_path,
                    None,
                    "the source names no cwd: give --session-dir or -o",
                ));
            }
            let dir = dirs::project_session_dir(Path::new(&cwd), args.session_dir.as_deref());
            dir.join(&imported.file_name)
        }
    };
    let target_shown = crate::name::kept_path(&target).into_owned();
    let status = settle(
        &target,
        &target_shown,
        &source_path,
        &imported,
        args.dry_run,
    )?;
    Ok(Outcome {
        path: target_shown,
        status,
        imported,
        warnings,
    })
}

/// Write `imp` at `target` as the rules say (see the help): the status.
fn settle(
    target: &Path,
    shown: &str,
    source: &str,
    imp: &Imported,
    dry: bool,
) -> Result<&'static str> {
    let existing = match std::fs::read(target) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(Error::io(shown, &e)),
    };
    let status = match &existing {
        None => "imported",
        Some(b) if *b == imp.bytes => return Ok("unchanged"),
        Some(b) if untouched_import_of(b, source) => "updated",
        Some(b) if imported_from(b).is_some() => "continued",
        Some(_) => {
            return Err(Error::data(
                shown,
                None,
                "exists and is not this source's import: not overwritten",
            ))
        }
    };
    if dry || status == "continued" {
        return Ok(status);
    }
    let io = |e: std::io::Error| Error::io(shown, &e);
    if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    if status == "imported" {
        crate::write::create_new(target, "import", &imp.bytes).map_err(io)?;
    } else {
        let mut t = crate::write::TempFile::beside(target, "import", None).map_err(io)?;
        std::io::Write::write_all(t.file(), &imp.bytes).map_err(io)?;
        t.commit_rename().map_err(io)?;
    }
    Ok(status)
}

/// The header's `importedFrom` of a file's bytes.
fn imported_from(bytes: &[u8]) -> Option<serde_json::Value> {
    let first = bytes.split(|&b| b == b'\n').next()?;
    let v: serde_json::Value = serde_json::from_slice(first).ok()?;
    v.get("importedFrom").cloned()
}

/// Whether `bytes` is an import of `source` that nothing was appended to:
/// as many lines as its header says it was written with.
fn untouched_import_of(bytes: &[u8], source: &str) -> bool {
    let Some(from) = imported_from(bytes) else {
        return false;
    };
    let entries = from.get("entries").and_then(serde_json::Value::as_u64);
    let lines = bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .count() as u64;
    from.get("path").and_then(serde_json::Value::as_str) == Some(source)
        && entries.map(|e| e + 1) == Some(lines)
}

fn report(args: &Args, ctx: &mut Ctx, shown: &str, o: Outcome) -> Result<()> {
    if !args.quiet {
        ctx.log.warn_all(&o.warnings);
    }
    if o.status == "continued" {
        ctx.log.warn(&Diagnostic::new(
            &o.path,
            None,
            format!("continued in pi since it was imported: kept as it is; {shown} has grown, its new lines are not imported"),
        ));
    }
    if args.json {
        let j = J::Obj(vec![
            ("source", J::str(shown)),
            ("path", J::str(&o.path)),
            ("status", J::str(o.status)),
            ("id", J::str(&o.imported.id)),
            ("entries", J::Num(o.imported.entries as f64)),
            ("leaves", J::Num(o.imported.leaves as f64)),
            (
                "warnings",
                J::Arr(o.warnings.iter().map(|w| J::str(w.to_string())).collect()),
            ),
        ]);
        let mut line = Vec::new();
        j.write(&mut line);
        ctx.out().line(&line)?;
    } else {
        if o.status == "empty" {
            let text = format!(
                "skipped {}: no message to import",
                crate::visible::message(shown)
            );
            return ctx.out().line(text.as_bytes());
        }
        let verb = match (o.status, args.dry_run) {
            ("imported", true) => "would import",
            ("updated", true) => "would update",
            (s, _) => s,
        };
        let text = format!(
            "{verb} {} -> {} ({} entries, {} leaves)",
            crate::visible::message(shown),
            crate::visible::message(&o.path),
            o.imported.entries,
            o.imported.leaves
        );
        ctx.out().line(text.as_bytes())?;
    }
    Ok(())
}

/// Every session file of the agents (`--all`): Claude Code's main session
/// files, Codex's rollouts; in name order.
fn all_sources(from: Option<From>) -> Vec<PathBuf> {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let mut out = Vec::new();
    if from != Some(From::Codex) {
        let mut roots = vec![home.join(".claude")];
        roots.extend(env("CLAUDE_CONFIG_DIR"));
        for root in dedup(roots) {
            // projects/<dir>/<session>.jsonl: subagent runs lie deeper.
            for dir in list(&root.join("projects")) {
                out.extend(list(&dir).into_iter().filter(|f| is_jsonl(f, "")));
            }
        }
    }
    if from != Some(From::Claude) {
        let mut roots = vec![home.join(".codex")];
        roots.extend(env("CODEX_HOME"));
        for root in dedup(roots) {
            walk(&root.join("sessions"), 6, &mut out);
        }
    }
    out
}

fn dedup(v: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut seen = std::collections::HashSet::new();
    v.into_iter()
        .filter(|p| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())))
        .collect()
}

fn is_jsonl(p: &Path, prefix: &str) -> bool {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    p.is_file() && name.ends_with(".jsonl") && name.starts_with(prefix)
}

/// The entries of a directory, in name order (none when it cannot be read).
fn list(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|r| r.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// Codex's `rollout-*.jsonl` files under `dir` (YYYY/MM/DD), `depth` deep.
fn walk(dir: &Path, depth: u32, out: &mut Vec<PathBuf>) {
    for p in list(dir) {
        if p.is_dir() && depth > 0 {
            walk(&p, depth - 1, out);
        } else if is_jsonl(&p, "rollout-") {
            out.push(p);
        }
    }
}
