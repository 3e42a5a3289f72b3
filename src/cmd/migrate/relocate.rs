//! `pi-migrate --all --relocate`: the session files pi 0.30 wrote into the
//! agent directory itself, moved to their project's directory
//! `sessions/--<encoded cwd>--/`, as pi's own one-time fix does.

use super::batch::print_line;
use super::report::FileJson;
use super::{Mode, Request};
use crate::cli::Log;
use crate::error::Diagnostic;
use crate::json::Object;
use crate::store;
use crate::write;
use std::path::{Path, PathBuf};

/// pi 0.30's misplaced session files (directly in the agent directory,
/// with a session header naming a cwd), each with the place pi's one-time
/// fix moves it to: `sessions/--<encoded cwd>--/NAME`.
pub(super) fn misplaced() -> Vec<(PathBuf, PathBuf)> {
    let agent = store::agent_dir();
    let mut found = Vec::new();
    for f in store::session_files_in(&agent) {
        let Some(cwd) = locate_cwd(&f) else { continue };
        let Some(file_name) = f.file_name() else {
            continue;
        };
        let dest = agent
            .join("sessions")
            .join(store::encode_cwd(&cwd))
            .join(file_name);
        found.push((f, dest));
    }
    found
}

/// Without `--relocate`, `--check` and `--dry-run` of `--all` name the
/// misplaced files (pi moves them when it starts; `--relocate` does here).
pub(super) fn mention(req: &Request, log: Log) {
    for (f, dest) in misplaced() {
        let (name, to) = (crate::name::kept_path(&f), crate::name::kept_path(&dest));
        if req.json {
            let j = FileJson {
                path: &name,
                status: "misplaced",
                moved_to: Some(to.into_owned()),
                ..FileJson::default()
            };
            print_line(log, &j.line());
        } else if req.mode == Mode::DryRun {
            print_line(
                log,
                &format!("{name}: misplaced by pi 0.30; --relocate would move it to {to} and migrate it there"),
            );
        } else {
            log.warn(&Diagnostic::new(
                &name,
                None,
                format!("misplaced by pi 0.30, not checked; --relocate moves it to {to} and migrates it there"),
            ));
        }
    }
}

/// Move each misplaced session file to `sessions/--<encoded cwd>--/`
/// (never over an existing file); checked or dry-run, say what would move.
/// Ok(the files moved: in place their new paths, which the walk finds;
/// else their paths as they are, for the batch to say how each would be
/// migrated) or Err(failed).
pub(super) fn relocate(req: &Request, log: Log) -> std::result::Result<Vec<PathBuf>, usize> {
    let agent = store::agent_dir();
    let (mut moved, mut failed) = (Vec::new(), 0);
    let say = |f: &str, status: &str, dest: &str, text: String| {
        if req.json {
            let j = FileJson {
                path: f,
                status,
                moved_to: Some(dest.to_string()),
                ..FileJson::default()
            };
            print_line(log, &j.line());
        } else if req.mode == Mode::DryRun {
            print_line(log, &text);
        } else {
            // --check's standard output is the list of files to migrate
            // (with -0 for xargs -0): what would move is said beside it.
            log.note(&text);
        }
    };
    for (f, dest) in misplaced() {
        let name = crate::name::kept_path(&f).into_owned();
        let to = crate::name::kept_path(&dest).into_owned();
        let dir = dest.parent().unwrap_or(&agent).to_path_buf();
        if dest.exists() {
            log.warn(&Diagnostic::new(
                &name,
                None,
                format!("not relocated: {to} already exists"),
            ));
            continue;
        }
        if req.mode != Mode::InPlace {
            let then = "; a version 1 or 2 file is migrated there too";
            say(
                &name,
                "would-relocate",
                &to,
                format!("{name}: would move to {to}{then}"),
            );
            moved.push(f);
            continue;
        }
        let r = std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::hard_link(&f, &dest))
            .and_then(|()| std::fs::remove_file(&f))
            .and_then(|()| write::sync_dir(&dir))
            .and_then(|()| write::sync_dir(&agent));
        match r {
            Ok(()) => {
                say(&name, "relocated", &to, format!("{name}: moved to {to}"));
                moved.push(dest);
            }
            Err(e) => {
                log.error(format!(
                    "{name}: cannot move to {to}: {}",
                    crate::error::io_message(&e)
                ));
                failed += 1;
            }
        }
    }
    if failed > 0 {
        Err(failed)
    } else {
        Ok(moved)
    }
}

/// The `cwd` of a session file's header, as pi's relocation reads it.
fn locate_cwd(path: &Path) -> Option<String> {
    let text = std::fs::read(path).ok()?;
    let first = text.split(|&b| b == b'\n').next()?;
    let obj = Object::parse_line(first).ok()??;
    if obj.str("type").as_deref() != Some("session") {
        return None;
    }
    obj.str("cwd")
        .filter(|c| !c.is_empty())
        .map(|c| c.into_owned())
}
