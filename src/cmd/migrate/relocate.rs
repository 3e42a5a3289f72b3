//! `pi-migrate --all --relocate`: the session files pi 0.30 wrote into the
//! agent directory itself, moved to their project's directory
//! `sessions/--<encoded cwd>--/`, as pi's own one-time fix does.

use super::batch::print_line;
use super::{Mode, Request};
use crate::cli::Log;
use crate::error::Diagnostic;
use crate::json::Object;
use crate::store;
use crate::write;
use std::path::Path;

/// Move each misplaced session file to `sessions/--<encoded cwd>--/`
/// (never over an existing file); checked or dry-run, say what would move.
/// Ok(moved) or Err(failed).
pub(super) fn relocate(req: &Request, log: Log) -> std::result::Result<usize, usize> {
    let agent = store::agent_dir();
    let files = store::session_files_in(&agent);
    let (mut moved, mut failed) = (0, 0);
    for f in files {
        let name = crate::name::kept_path(&f).into_owned();
        let Some(cwd) = locate_cwd(&f) else { continue };
        let (Some(file_name), dir) = (
            f.file_name(),
            agent.join("sessions").join(store::encode_cwd(&cwd)),
        ) else {
            continue;
        };
        let dest = dir.join(file_name);
        let say = |m: String| {
            if req.mode == Mode::Check || req.mode == Mode::DryRun {
                print_line(log, &m);
            } else {
                log.note(&m);
            }
        };
        if dest.exists() {
            log.warn(&Diagnostic::new(
                &name,
                None,
                format!(
                    "not relocated: {} already exists",
                    crate::name::kept_path(&dest)
                ),
            ));
            continue;
        }
        if req.mode != Mode::InPlace {
            say(format!(
                "{name}: would move to {}",
                crate::name::kept_path(&dest)
            ));
            moved += 1;
            continue;
        }
        let r = std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::hard_link(&f, &dest))
            .and_then(|()| std::fs::remove_file(&f))
            .and_then(|()| write::sync_dir(&dir))
            .and_then(|()| write::sync_dir(&agent));
        match r {
            Ok(()) => {
                say(format!(
                    "{name}: moved to {}",
                    crate::name::kept_path(&dest)
                ));
                moved += 1;
            }
            Err(e) => {
                log.error(format!(
                    "{name}: cannot move to {}: {}",
                    crate::name::kept_path(&dest),
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
