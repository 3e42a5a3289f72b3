//! What `pi-check` prints: a line per finding (text, every control
//! character from the session made visible) or a JSON object per finding,
//! a summary line per file and one for the run.

use super::{Args, Checked};
use crate::check::{Finding, Severity};
use crate::cli::{Ctx, Out};
use crate::error::Result;

#[derive(Default)]
struct Totals {
    files: u64,
    with_errors: u64,
    with_findings: u64,
    errors: u64,
    warnings: u64,
    infos: u64,
    fixable: u64,
}

pub(super) struct Printer {
    json: bool,
    color: bool,
    quiet: bool,
    totals: Totals,
}

impl Printer {
    pub fn new(args: &Args, _ctx: &Ctx) -> Self {
        Printer {
            json: args.json,
            color: !args.json && args.color.on(),
            quiet: args.store.quiet,
            totals: Totals::default(),
        }
    }

    /// Print what was found in one file.
    pub fn file(&mut self, ctx: &mut Ctx, c: &Checked) -> Result<()> {
        let t = &mut self.totals;
        t.files += 1;
        let count = |s: Severity| c.findings.iter().filter(|f| f.kind.severity == s).count() as u64;
        let (e, w, i) = (
            count(Severity::Error),
            count(Severity::Warning),
            count(Severity::Info),
        );
        let fixable = c.findings.iter().filter(|f| f.repair.is_some()).count() as u64;
        t.errors += e;
        t.warnings += w;
        t.infos += i;
        t.fixable += fixable;
        t.with_errors += u64::from(e > 0);
        t.with_findings += u64::from(!c.findings.is_empty());
        let out = ctx.out();
        // The name as shown, made once a file; each line into one buffer.
        let shown = crate::visible::message(&c.name);
        let mut line = String::new();
        for f in &c.findings {
            if self.quiet && f.kind.severity != Severity::Error {
                continue;
            }
            if self.json {
                out.line(&json(&c.name, f))?;
            } else {
                line.clear();
                text(&mut line, &shown, f, self.color);
                out.line(line.as_bytes())?;
            }
        }
        if !self.json && !self.quiet {
            let name = &shown;
            let summary = if c.findings.is_empty() {
                format!("{name}: ok")
            } else {
                format!(
                    "{name}: {e} error(s), {w} warning(s), {i} info; {fixable} repaired by --fix"
                )
            };
            out.line(summary.as_bytes())?;
        }
        Ok(())
    }

    /// The run's summary line.
    pub fn done(&mut self, ctx: &mut Ctx) -> Result<()> {
        let t = &self.totals;
        if !self.json && !self.quiet {
            let line = format!(
                "{} session(s) checked: {} with errors, {} with findings; {} error(s), {} warning(s), {} info; {} repaired by --fix",
                t.files, t.with_errors, t.with_findings, t.errors, t.warnings, t.infos, t.fixable
            );
            ctx.out().line(line.as_bytes())?;
        }
        ctx.out().done()
    }
}

/// `FILE:LINE: SEVERITY CODE: message (entry ID); pi 1.6.0 ...; --fix: ...`,
/// into `out`; `shown`: the file's name as printed.
fn text(out: &mut String, shown: &str, f: &Finding, color: bool) {
    use std::fmt::Write as _;
    out.push_str(shown);
    if let Some(l) = f.line {
        let _ = write!(out, ":{l}");
    }
    out.push_str(": ");
    let sev = f.kind.severity.name();
    match (color, f.kind.severity) {
        (false, _) => out.push_str(sev),
        (true, Severity::Error) => out.push_str("\x1b[1;31merror\x1b[0m"),
        (true, Severity::Warning) => out.push_str("\x1b[33mwarning\x1b[0m"),
        (true, Severity::Info) => out.push_str("\x1b[36minfo\x1b[0m"),
    }
    out.push(' ');
    out.push_str(f.kind.code);
    out.push_str(": ");
    out.push_str(&crate::visible::message(&f.message));
    if let Some(id) = f.id.as_deref() {
        out.push_str(" (entry ");
        out.push_str(&crate::visible::field(id));
        out.push(')');
    }
    // "pi refuses ..." reads "pi 1.6.0 refuses ..."; any other "pi 1.6.0: ...".
    match f.kind.pi.strip_prefix("pi ") {
        Some(rest) => {
            out.push_str("; pi 1.6.0 ");
            out.push_str(rest);
        }
        None => {
            out.push_str("; pi 1.6.0: ");
            out.push_str(f.kind.pi);
        }
    }
    match &f.repair {
        Some(_) => {
            out.push_str("; --fix: ");
            out.push_str(f.kind.fix);
        }
        None => out.push_str("; not repaired by --fix"),
    }
}

/// The JSON object of one finding.
fn json(name: &str, f: &Finding) -> Vec<u8> {
    let mut w = crate::json::ObjectWriter::new();
    let s = |v: &str| serde_json::to_vec(v).unwrap_or_default();
    let line = f.line.map(|l| l.to_string().into_bytes());
    let id = f.id.as_deref().map(s);
    let fix = f.repair.as_ref().map(|_| s(f.kind.fix));
    w.raw("path", Some(&crate::name::json(name)))
        .raw("line", Some(line.as_deref().unwrap_or(b"null")))
        .raw("id", Some(id.as_deref().unwrap_or(b"null")))
        .str("code", f.kind.code)
        .str("severity", f.kind.severity.name())
        .str("message", &f.message)
        .str("pi", f.kind.pi)
        .raw("fix", Some(fix.as_deref().unwrap_or(b"null")))
        .raw(
            "fixable",
            Some(if f.repair.is_some() {
                b"true"
            } else {
                b"false"
            }),
        );
    w.finish()
}
