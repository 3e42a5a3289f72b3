//! The man page of a tool, from its clap definition (issue 35): the sections
//! coreutils' and ripgrep's pages have (NAME, SYNOPSIS, DESCRIPTION,
//! ARGUMENTS, OPTIONS, EXAMPLES, EXIT STATUS, ENVIRONMENT, FILES, SEE ALSO).
//! The `--help` epilogue is split: its `Examples:` block is kept verbatim
//! (`.nf`, never refilled), its `Exit status` lines make EXIT STATUS, the
//! rest joins the description. ENVIRONMENT and FILES follow from the options
//! a tool has (`--color`, `--no-cache`, `--timezone`, `--force`).

use clap::{Arg, Command};
use std::fmt::Write as _;

/// Every tool, for SEE ALSO (man/*.1 is checked against the binaries).
const TOOLS: [&str; 14] = [
    "pi-path",
    "pi-tree",
    "pi-convert",
    "pi-migrate",
    "pi-fork",
    "pi-label",
    "pi-edit",
    "pi-ls",
    "pi-grep",
    "pi-usage",
    "pi-mv",
    "pi-rm",
    "pi-import",
    "pi-check",
];

/// The page of `cmd`, as roff.
pub fn render(mut cmd: Command) -> String {
    cmd.build();
    let name = cmd.get_name().to_string();
    let epilogue = Epilogue::split(
        &cmd.get_after_long_help()
            .or(cmd.get_after_help())
            .map(|s| s.to_string())
            .unwrap_or_default(),
    );
    let mut out = String::new();
    let version = cmd.get_version().unwrap_or("");
    let _ = writeln!(
        out,
        ".TH {} 1 \"\" \"pi-session-tools {version}\" \"User Commands\"",
        name.to_uppercase()
    );
    // Options and paths are not hyphenated, nor stretched to the margin.
    out.push_str(".nh\n.ad l\n");
    let about = cmd.get_about().map(|s| s.to_string()).unwrap_or_default();
    section(&mut out, "NAME");
    let _ = writeln!(
        out,
        "{} \\- {}",
        esc(&name),
        esc(about.trim_end_matches('.'))
    );
    section(&mut out, "SYNOPSIS");
    out.push_str(&synopsis(&cmd));
    section(&mut out, "DESCRIPTION");
    let long = cmd.get_long_about().map(|s| s.to_string()).unwrap_or(about);
    prose(&mut out, &long);
    for p in &epilogue.description {
        prose(&mut out, p);
    }
    arguments(&mut out, &cmd);
    options(&mut out, &cmd);
    if !epilogue.examples.is_empty() {
        section(&mut out, "EXAMPLES");
        verbatim(&mut out, &epilogue.examples);
    }
    section(&mut out, "EXIT STATUS");
    prose(
        &mut out,
        epilogue
            .exit
            .as_deref()
            .unwrap_or("0 success, 1 the data or the request cannot be honoured, 2 wrong usage."),
    );
    environment(&mut out, &cmd);
    files(&mut out, &cmd);
    see_also(&mut out, &name);
    out
}

/// The `--help` epilogue, sorted into sections.
struct Epilogue {
    /// The lines after `Examples:`, as written.
    examples: Vec<String>,
    /// The exit status text, when the help gives one.
    exit: Option<String>,
    /// Every other paragraph, in order.
    description: Vec<String>,
}

impl Epilogue {
    fn split(text: &str) -> Epilogue {
        let mut e = Epilogue {
            examples: Vec::new(),
            exit: None,
            description: Vec::new(),
        };
        for para in text.split("\n\n").map(|p| p.trim_matches('\n')) {
            if para.is_empty() || para.starts_with("Man page and shell completions") {
                continue; // SEE ALSO says it
            }
            if let Some(rest) = para.strip_prefix("Examples:") {
                e.examples = rest
                    .lines()
                    .skip_while(|l| l.trim().is_empty())
                    .map(|l| l.strip_prefix("  ").unwrap_or(l).to_string())
                    .collect();
                continue;
            }
            // `Exit status...` to the paragraph's end; the lines before it
            // are description.
            let lines: Vec<&str> = para.lines().collect();
            match lines.iter().position(|l| l.starts_with("Exit status")) {
                Some(i) => {
                    if i > 0 {
                        e.description.push(lines[..i].join("\n"));
                    }
                    let text = lines[i..].join("\n");
                    let rest = text["Exit status".len()..].trim_start();
                    let mut exit = rest.strip_prefix(':').unwrap_or(rest).trim().to_string();
                    // `Exit status (as grep's): ...` keeps its remark: `As grep's: ...`.
                    if let Some((remark, body)) =
                        exit.strip_prefix('(').and_then(|r| r.split_once("):"))
                    {
                        let mut c = remark.chars();
                        let first = c
                            .next()
                            .map(|f| f.to_uppercase().to_string())
                            .unwrap_or_default();
                        exit = format!("{first}{}:{body}", c.as_str());
                    }
                    e.exit = Some(exit);
                }
                None => e.description.push(para.to_string()),
            }
        }
        e
    }
}

fn section(out: &mut String, title: &str) {
    let _ = writeln!(out, ".SH {title}");
}

/// Text for roff: backslashes and hyphens escaped, a line starting with
/// `.` or `'` (a request to roff) made text.
fn esc(text: &str) -> String {
    let body = text.replace('\\', "\\e").replace('-', "\\-");
    body.lines()
        .map(|l| {
            if l.starts_with('.') || l.starts_with('\'') {
                format!("\\&{l}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Paragraphs of prose (refilled by man); a line that ends a sentence
/// and is followed by one that starts a new subject (`Directories:`,
/// `--json ...`) starts a new paragraph, as the help's lines mean it.
fn prose(out: &mut String, text: &str) {
    for para in text.split("\n\n") {
        let para = para.trim_matches('\n');
        if para.is_empty() {
            continue;
        }
        out.push_str(".PP\n");
        let mut prev: Option<&str> = None;
        for line in para.lines() {
            if let Some(p) = prev {
                let ends = p.trim_end().ends_with('.');
                let starts = line.starts_with(|c: char| c.is_ascii_uppercase())
                    || line.starts_with("--")
                    || line.starts_with('$');
                if ends && starts {
                    out.push_str(".PP\n");
                }
            }
            let _ = writeln!(out, "{}", esc(line));
            prev = Some(line);
        }
    }
}

/// Lines kept as they are: no filling, no adjusting.
fn verbatim(out: &mut String, lines: &[String]) {
    out.push_str(".PP\n.nf\n");
    for l in lines {
        let _ = writeln!(out, "{}", esc(l));
    }
    out.push_str(".fi\n");
}

/// `\fB--leaf\fR \fIREF\fR`, `\fB-q\fR|\fB--quiet\fR`, `\fISESSION\fR`.
fn arg_usage(a: &Arg, both: &str) -> String {
    let names = value_names(a);
    if a.is_positional() {
        let mut s = format!("\\fI{}\\fR", esc(&names.join(" ")));
        if multiple(a) {
            s.push_str("...");
        }
        return s;
    }
    let mut flags = Vec::new();
    if let Some(c) = a.get_short() {
        flags.push(format!("\\fB\\-{}\\fR", esc(&c.to_string())));
    }
    if let Some(l) = a.get_long() {
        flags.push(format!("\\fB\\-\\-{}\\fR", esc(l)));
    }
    let mut s = flags.join(both);
    if takes_value(a) {
        let v = format!("\\fI{}\\fR", esc(&names.join(" ")));
        if min_values(a) == 0 {
            let _ = write!(s, " [{v}]");
        } else {
            let _ = write!(s, " {v}");
        }
    }
    s
}

fn takes_value(a: &Arg) -> bool {
    a.get_action().takes_values() && a.get_num_args().is_none_or(|n| n.max_values() > 0)
}

fn min_values(a: &Arg) -> usize {
    a.get_num_args().map_or(1, |n| n.min_values())
}

fn multiple(a: &Arg) -> bool {
    a.get_num_args().is_some_and(|n| n.max_values() > 1)
        || matches!(a.get_action(), clap::ArgAction::Append)
}

fn value_names(a: &Arg) -> Vec<String> {
    match a.get_value_names() {
        Some(v) if !v.is_empty() => v.iter().map(|s| s.to_string()).collect(),
        _ => vec![a.get_id().as_str().to_uppercase()],
    }
}

fn visible(cmd: &Command) -> impl Iterator<Item = &Arg> {
    cmd.get_arguments().filter(|a| !a.is_hide_set())
}

/// The synopsis: every option with its value (`[--at REF]`), a required
/// group as `{--at REF | --before REF}`, then the arguments.
fn synopsis(cmd: &Command) -> String {
    let mut parts = Vec::new();
    let mut done = std::collections::HashSet::new();
    for a in visible(cmd).filter(|a| !a.is_positional()) {
        if done.contains(a.get_id()) {
            continue;
        }
        let group = cmd
            .get_groups()
            .find(|g| g.is_required_set() && g.get_args().any(|id| id == a.get_id()));
        if let Some(g) = group {
            let members: Vec<String> = g
                .get_args()
                .filter_map(|id| cmd.get_arguments().find(|x| x.get_id() == id))
                .inspect(|x| {
                    done.insert(x.get_id().clone());
                })
                .map(|x| arg_usage(x, "|"))
                .collect();
            parts.push(format!("{{{}}}", members.join(" | ")));
            continue;
        }
        let u = arg_usage(a, "|");
        parts.push(if a.is_required_set() {
            u
        } else {
            format!("[{u}]")
        });
    }
    for a in visible(cmd).filter(|a| a.is_positional()) {
        let u = arg_usage(a, "|");
        parts.push(if a.is_required_set() {
            u
        } else {
            format!("[{u}]")
        });
    }
    format!("\\fB{}\\fR {}\n", esc(cmd.get_name()), parts.join(" "))
}

/// One `.TP` item: the usage line, the help, the default, the values.
fn item(out: &mut String, a: &Arg) {
    let _ = writeln!(out, ".TP\n{}", arg_usage(a, ", "));
    let help = a
        .get_long_help()
        .or(a.get_help())
        .map(|s| s.to_string())
        .unwrap_or_default();
    let mut first = true;
    for para in help.split("\n\n").filter(|p| !p.trim().is_empty()) {
        if !first {
            out.push_str(".IP\n");
        }
        let _ = writeln!(out, "{}", esc(para.trim()));
        first = false;
    }
    let defaults: Vec<String> = a
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if !defaults.is_empty() && takes_value(a) {
        let _ = writeln!(out, ".IP\nDefault: {}.", esc(&defaults.join(", ")));
    }
    let values: Vec<_> = a
        .get_possible_values()
        .into_iter()
        .filter(|v| !v.is_hide_set() && v.get_help().is_some())
        .collect();
    if !values.is_empty() {
        out.push_str(".RS\n");
        for v in values {
            let help = v.get_help().map(|h| h.to_string()).unwrap_or_default();
            let _ = writeln!(out, ".TP\n\\fB{}\\fR\n{}", esc(v.get_name()), esc(&help));
        }
        out.push_str(".RE\n");
    }
}

fn arguments(out: &mut String, cmd: &Command) {
    let args: Vec<&Arg> = visible(cmd).filter(|a| a.is_positional()).collect();
    if args.is_empty() {
        return;
    }
    section(out, "ARGUMENTS");
    for a in args {
        item(out, a);
    }
}

fn options(out: &mut String, cmd: &Command) {
    section(out, "OPTIONS");
    for a in visible(cmd).filter(|a| !a.is_positional()) {
        item(out, a);
    }
}

fn has(cmd: &Command, id: &str) -> bool {
    cmd.get_arguments().any(|a| a.get_id() == id)
}

/// The variables the tool reads, each with what it changes.
fn environment(out: &mut String, cmd: &Command) {
    section(out, "ENVIRONMENT");
    let mut vars: Vec<(&str, &str)> = vec![
        ("PI_CODING_AGENT_DIR", "pi's agent directory (default ~/.pi/agent); its sessions/ directory is the session store."),
        ("PI_CODING_AGENT_SESSION_DIR", "the session directory, as pi reads it: this project's sessions are the files in it."),
        ("PI_SESSION_TOOLS_MAX_LINE", "the longest line read, in bytes (64K, 512M, 1G; default 256M); a longer one is an error."),
        ("PI_SESSION_TOOLS_SIMD", "none, sse2, avx2, avx512 or neon: the vector unit the JSON scanner uses (default: the best the processor has)."),
        ("HOME", "where ~ is."),
    ];
    if has(cmd, "color") {
        vars.push((
            "NO_COLOR",
            "set and not empty: no colour with --color auto.",
        ));
        vars.push((
            "CLICOLOR_FORCE, FORCE_COLOR",
            "set and not 0: colour with --color auto, also in a pipe.",
        ));
    }
    if has(cmd, "no_cache") {
        vars.push(("PI_SESSION_TOOLS_CACHE", "off: no cache, as --no-cache."));
        vars.push((
            "PI_SESSION_TOOLS_CACHE_DIR",
            "the cache directory (see FILES).",
        ));
        vars.push((
            "XDG_CACHE_HOME",
            "the cache directory is $XDG_CACHE_HOME/pi-session-tools.",
        ));
    }
    if has(cmd, "timezone") {
        vars.push(("TZ", "the default --timezone (a tz database name or a zone file; without it, /etc/localtime)."));
    }
    for (name, what) in vars {
        let _ = writeln!(out, ".TP\n\\fB{}\\fR\n{}", esc(name), esc(what));
    }
}

fn files(out: &mut String, cmd: &Command) {
    section(out, "FILES");
    let mut files: Vec<(&str, &str)> = vec![(
        "~/.pi/agent/sessions/",
        "pi's session store: a directory per project (--<cwd>--), a JSONL file per session.",
    )];
    if has(cmd, "no_cache") {
        files.push((
            "~/.cache/pi-session-tools/",
            "the cache ($PI_SESSION_TOOLS_CACHE_DIR, else $XDG_CACHE_HOME/pi-session-tools): what each session file held, for the next run; at most 64 files, the least recently used removed first.",
        ));
    }
    if has(cmd, "force") {
        files.push((
            "/proc/*/",
            "running pi processes (Linux): their working directory, environment and settings (.pi/settings.json, ~/.pi/agent/settings.json) tell which sessions they may be continuing.",
        ));
    }
    for (name, what) in files {
        let _ = writeln!(out, ".TP\n\\fI{}\\fR\n{}", esc(name), esc(what));
    }
}

fn see_also(out: &mut String, name: &str) {
    section(out, "SEE ALSO");
    let others: Vec<String> = TOOLS
        .iter()
        .filter(|t| **t != name)
        .map(|t| format!("\\fB{}\\fR(1)", esc(t)))
        .collect();
    let _ = writeln!(out, "{}", others.join(", "));
    out.push_str(".PP\n");
    let _ = writeln!(
        out,
        "{}",
        esc(&format!(
            "Shell completions that know the session (labels, entry ids, session ids): COMPLETE=bash {name} prints the script (also zsh, fish; install.sh installs them); static ones: {name} --generate complete-bash (also complete-zsh, complete-fish, complete-powershell). The README and docs/ of pi-session-tools hold the reference, with the list of deliberate differences from pi."
        ))
    );
}
