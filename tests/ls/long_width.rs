//! pi-ls -l fitted to a width (issue 35): the title shrinks, then the
//! model gives way (its provider first), and no column is cut off; counts
//! grouped by thousands as pi-usage prints them.
use crate::common::*;
use std::process::Stdio;

/// `pi-ls -l --all ARGS` over a copy of examples/agent.
fn long_all(args: &[&str]) -> String {
    let t = TempDir::new("ls-long");
    assert!(std::process::Command::new("cp")
        .arg("-r")
        .arg(repo().join("examples/agent"))
        .arg(t.path())
        .status()
        .unwrap()
        .success());
    let mut all = vec!["-l", "--all"];
    all.extend(args);
    let o = run_with("pi-ls", &all, None, |c| {
        c.env("PI_CODING_AGENT_DIR", t.path().join("agent"))
            .stdin(Stdio::null());
    });
    assert!(o.status.success(), "{}", stderr(&o));
    stdout(&o)
}

/// The row of session `id` (its first 8 characters start the line).
fn row<'a>(out: &'a str, id: &str) -> &'a str {
    out.lines().find(|l| l.starts_with(id)).unwrap()
}

#[test]
fn thousands_as_pi_usage_prints_them() {
    let out = long_all(&[]);
    let r = row(&out, "019a5c3e");
    assert!(
        r.contains("  6,192,000  9.99  anthropic/claude-sonnet-4-5  "),
        "{r}"
    );
    assert!(row(&out, "019b4f7b").contains("      3,000  0.01  openai/gpt-5.1  "));
    assert!(r.ends_with("parser: depth limit"), "{r}");
}

#[test]
fn the_title_shrinks_and_no_column_is_cut_off() {
    let wide = long_all(&[]);
    let widest = wide.lines().map(|l| l.chars().count()).max().unwrap();
    // Room for the columns and part of each title: every line fits, the
    // title is cut with … and the model is whole.
    let w = widest - 30;
    let out = long_all(&["--width", &w.to_string()]);
    for l in out.lines() {
        assert!(pi_session_tools::width::width(l) <= w, "{w}: {l}");
    }
    let r = row(&out, "01a1fe68");
    assert!(r.contains("anthropic/claude-sonnet-4-5"), "{r}");
    assert!(r.contains("  The JSON parser in "), "{r}");
    assert!(r.ends_with('…'), "{r}");
    // Narrower than the columns: the title keeps 20 columns, the model
    // its name without the provider, and every column is there.
    let out = long_all(&["--width", "150"]);
    let r = row(&out, "019a5c3e");
    assert!(r.contains("  6,192,000  9.99  claude-sonn"), "{r}");
    assert!(r.ends_with("parser: depth limit"), "{r}");
    let r = row(&out, "01a1fe68");
    assert!(r.ends_with("  The JSON parser in …"), "{r}");
    assert!(row(&out, "019b4f7b").contains("  gpt-5.1  "), "{out}");
}
