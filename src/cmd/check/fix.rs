//! `--fix` on one file: the rewrite (atomic, every other byte kept, the
//! dropped and changed lines kept in the backup or `FILE.removed`), then
//! the context edits appended in one transaction, then the check again.

use super::{read, Args};
use crate::check::repair::{self, Rewritten};
use crate::check::{self, Repair, Severity};
use crate::cli::{Ctx, Out};
use crate::error::{Error, Result};
use crate::session::Session;
use std::io::Write;
use std::path::Path;

/// The temporary file tag: `.NAME.pi-check-tmp-PID-RAND`.
const TAG: &str = "pi-check";

/// Remove the temporary files of pi-check runs that were killed (whose
/// process is gone) in the directory of `path`, once a directory.
pub(super) fn remove_strays(path: &Path, done: &mut std::collections::HashSet<std::path::PathBuf>) {
    let dir = crate::write::dir_of(path);
    if done.insert(dir.clone()) {
        crate::write::remove_stray_temps_in(&dir, TAG);
    }
}

/// Repair `path`; whether an error-level finding is left after.
pub(super) fn fix(args: &Args, ctx: &mut Ctx, path: &Path, name: &str) -> Result<bool> {
    let bytes = read(Some(path), name)?;
    let report = check::check_file(Some(path), name, bytes.clone());
    let repairs: Vec<Repair> = report
        .findings
        .iter()
        .filter_map(|f| f.repair.clone())
        .collect();
    let rewritten = repair::rewrite(name, &bytes, &repairs);
    if args.dry_run {
        let out = ctx.out();
        if let Some(w) = &rewritten {
            print_diff(out, &w.diff)?;
        }
        if let Some(s) = &report.session {
            let lines = edit_lines(s, &repairs);
            if !lines.is_empty() {
                let shown = crate::visible::message(name);
                out.line(
                    format!(
                        "--- {shown}\n+++ {shown} (appended)\n@@ -{0},0 +{0},{1} @@",
                        line_count(&bytes),
                        lines.len()
                    )
                    .as_bytes(),
                )?;
                for l in &lines {
                    out.line(
                        format!("+{}", crate::visible::text(&String::from_utf8_lossy(l)))
                            .as_bytes(),
                    )?;
                }
            }
        }
        return Ok(report
            .findings
            .iter()
            .any(|f| f.kind.severity == Severity::Error));
    }
    if !args.force {
        let log = ctx.log;
        crate::live::refuse_if_live(
            path,
            "pi would append to the file it has in memory and undo the repair",
            &mut |d| log.warn(&d),
        )?;
    }
    if let Some(w) = &rewritten {
        write_rewrite(args, ctx, path, name, &bytes, w)?;
    }
    append_edits(ctx, path, name)?;
    let after = check::check_file(Some(path), name, read(Some(path), name)?);
    let left = after
        .findings
        .iter()
        .filter(|f| f.kind.severity == Severity::Error)
        .count();
    ctx.out().line(
        format!(
            "{}: after --fix: {left} error(s) left",
            crate::visible::message(name)
        )
        .as_bytes(),
    )?;
    Ok(left > 0)
}

/// The number of lines of `bytes`.
fn line_count(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
        + usize::from(!bytes.is_empty() && !bytes.ends_with(b"\n"))
}

/// A diff with each line's control characters made visible.
fn print_diff(out: &mut impl Out, diff: &[u8]) -> Result<()> {
    for line in diff.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        out.line(crate::visible::text(&String::from_utf8_lossy(line)).as_bytes())?;
    }
    Ok(())
}

/// Write `w` over `path` (which held `old`), atomically, keeping what it
/// drops or changes.
fn write_rewrite(
    args: &Args,
    ctx: &mut Ctx,
    path: &Path,
    name: &str,
    old: &[u8],
    w: &Rewritten,
) -> Result<()> {
    let io = |e: std::io::Error| Error::io(name, &e);
    let file = std::fs::File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    #[cfg(unix)]
    if std::os::unix::fs::MetadataExt::nlink(&meta) > 1 {
        return Err(Error::request(
            name,
            "has other hard links: a rewrite would part them (as pi-migrate, pi-check refuses); nothing was written",
        ));
    }
    let snap = crate::write::Snapshot::of(&meta);
    if !crate::write::unchanged_open(path, &snap, &file, old).map_err(io)? {
        return Err(Error::request(
            name,
            "the file changed while it was checked; nothing was written",
        ));
    }
    let said: Vec<u8> = w
        .said
        .iter()
        .flat_map(|s| format!("{}: fixed: {s}\n", crate::visible::message(name)).into_bytes())
        .collect();
    ctx.out().announce(&said)?;
    match &args.backup {
        Some(suffix) => {
            let mut b = path.as_os_str().to_owned();
            b.push(suffix);
            crate::write::make_backup(path, Path::new(&b), TAG).map_err(|e| {
                Error::request(
                    name,
                    format!(
                        "cannot keep the backup {}: {}; nothing was written",
                        crate::visible::field(&b.to_string_lossy()),
                        crate::error::io_message(&e)
                    ),
                )
            })?;
        }
        None => keep_removed(path, name, w)?,
    }
    let mut t = crate::write::TempFile::beside(path, TAG, Some(&meta)).map_err(io)?;
    t.copy_xattrs_from(&file).map_err(io)?;
    t.file().write_all(&w.bytes).map_err(io)?;
    t.sync().map_err(io)?;
    if !crate::write::unchanged_open(path, &snap, &file, old).map_err(io)? {
        return Err(Error::request(
            name,
            "the file changed while it was repaired; nothing was written",
        ));
    }
    t.commit_rename().map_err(io)?;
    crate::write::sync_dir(&crate::write::dir_of(path)).map_err(io)
}

/// Append the lines `w` drops or changes to `FILE.removed` (created when
/// absent), each as it was, and flush it before the rewrite.
fn keep_removed(path: &Path, name: &str, w: &Rewritten) -> Result<()> {
    let mut p = path.as_os_str().to_owned();
    p.push(".removed");
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&p)
        .map_err(|e| Error::io(&p.to_string_lossy(), &e))?;
    let mut text = Vec::new();
    for (_, line) in &w.removed {
        text.extend_from_slice(line);
        text.push(b'\n');
    }
    f.write_all(&text)
        .and_then(|()| f.sync_all())
        .map_err(|e| Error::io(name, &e))
}

/// The context_edit lines the repairs of `s` append, chained on its leaf
/// (one per target: the first repair of each).
fn edit_lines(s: &Session, repairs: &[Repair]) -> Vec<Vec<u8>> {
    edit_lines_on(s, repairs, crate::append::leaf_parent(s).as_deref())
}

fn edit_lines_on(s: &Session, repairs: &[Repair], parent: Option<&[u8]>) -> Vec<Vec<u8>> {
    let mut taken = std::collections::HashSet::new();
    let mut targets = std::collections::HashSet::new();
    let mut parent = parent.map(<[u8]>::to_vec);
    let time = crate::append::now_json();
    let mut lines = Vec::new();
    for r in repairs {
        let Repair::Edit {
            target,
            replacement,
        } = r
        else {
            continue;
        };
        if !targets.insert(target.clone()) {
            continue;
        }
        let id = crate::append::fresh_id_in(&s.index, &mut taken);
        lines.push(crate::append::context_edit_line(
            &id,
            parent.as_deref(),
            &time,
            target,
            replacement,
        ));
        parent = Some(format!("\"{id}\"").into_bytes());
    }
    lines
}

/// Append the context edits the file (as it is now) needs, in one
/// transaction, chained on the leaf at the moment of writing.
fn append_edits(ctx: &mut Ctx, path: &Path, name: &str) -> Result<()> {
    let tx = crate::append::Transaction::open(path)?;
    let report = check::check_file(Some(path), name, read(Some(path), name)?);
    let Some(s) = &report.session else {
        return Ok(());
    };
    let repairs: Vec<Repair> = report
        .findings
        .iter()
        .filter_map(|f| f.repair.clone())
        .filter(|r| !r.rewrites())
        .collect();
    if repairs.is_empty() {
        return Ok(());
    }
    let n = edit_lines(s, &repairs).len();
    ctx.out().announce(
        format!(
            "{}: fixed: appended {n} context_edit entr{}\n",
            crate::visible::message(name),
            if n == 1 { "y" } else { "ies" }
        )
        .as_bytes(),
    )?;
    tx.write_on(crate::append::leaf_parent(s), |parent| {
        edit_lines_on(s, &repairs, parent).join(&b'\n')
    })
}
