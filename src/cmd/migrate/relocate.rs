//! `pi-migrate --all --relocate`: the session files pi 0.30 wrote into the
//! agent directory itself, moved to their project's directory
//! `sessions/--<encoded cwd>--/`, as pi's own one-time fix does.

use super::{Mode, Request, TOOL};
use crate::json::Object;
use crate::store;
use crate::write;
use std::path::Path;

/// pi 0.30 wrote sessions into the agent directory itself; move each to
/// `sessions/--<encoded cwd>--/` (never over an existing file), as pi's
/// own one-time fix does. Ok(moved) or Err(failed).
pub(super) fn relocate(req: &Request) -> std::result::Result<usize, usize> {
    let agent = store::agent_dir();
    let files = store::session_files_in(&agent);
    let (mut moved, mut failed) = (0, 0);
    for f in files {
        let name = f.display().to_string();
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
                println!("{m}");
            } else if !req.quiet {
                eprintln!("{TOOL}: {m}");
            }
        };
        if dest.exists() {
            eprintln!(
                "{TOOL}: warning: {name}: not relocated: {} already exists",
                dest.display()
            );
            continue;
        }
        if req.mode != Mode::InPlace {
            say(format!("{name}: would move to {}", dest.display()));
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
                say(format!("{name}: moved to {}", dest.display()));
                moved += 1;
            }
            Err(e) => {
                eprintln!(
                    "{TOOL}: error: {name}: cannot move to {}: {}",
                    dest.display(),
                    crate::error::io_message(&e)
                );
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
