//! Completions (`COMPLETE=SHELL TOOL`): the registration scripts, and the
//! candidates a shell gets back when it runs the tool with the words typed
//! so far, as clap_complete's scripts call it (`TOOL -- WORDS...`, the
//! index of the word completed in `_CLAP_COMPLETE_INDEX`).
use crate::common::*;
use std::path::Path;
use std::process::Output;
use std::time::Duration;

/// Run `words[0]` as `shell`'s script does to complete the last of `words`.
fn ask(shell: &str, words: &[&str], dir: &Path) -> Output {
    let mut args = vec!["--"];
    args.extend(words);
    run_with(words[0], &args, None, |c| {
        c.env("COMPLETE", shell)
            .env("_CLAP_IFS", "\n")
            .env("_CLAP_COMPLETE_INDEX", (words.len() - 1).to_string())
            .current_dir(dir);
    })
}

/// The candidates bash gets (its adapter separates them with `\v`).
fn bash_in(dir: &Path, words: &[&str]) -> Vec<String> {
    let o = ask("bash", words, dir);
    assert!(o.status.success(), "{words:?}: {}", stderr(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    out.split('\u{b}')
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

fn bash(words: &[&str]) -> Vec<String> {
    bash_in(&repo().join("examples"), words)
}

const PLAN: [&str; 3] = ["@plan", "@plan-a", "@plan-b"];

#[test]
fn labels_of_the_session_on_the_command_line() {
    assert_eq!(bash(&["pi-path", "s.jsonl", "--leaf", "@pl"]), PLAN);
    assert_eq!(bash(&["pi-tree", "s.jsonl", "--at", "@re"]), ["@retry"]);
    assert_eq!(bash(&["pi-label", "s.jsonl", "@go"]), ["@good"]);
    assert_eq!(
        bash(&["pi-path", "s.jsonl", "--leaf=@pl"]),
        PLAN.map(|l| format!("--leaf={l}"))
    );
    let all = bash(&["pi-path", "s.jsonl", "--leaf", "@"]);
    assert_eq!(all.len(), 7, "{all:?}");
    assert!(all.contains(&"@before-refactor".to_string()), "{all:?}");
}

#[test]
fn id_prefixes_and_keywords() {
    assert_eq!(bash(&["pi-path", "s.jsonl", "--leaf", "52e"]), ["52e68469"]);
    assert_eq!(bash(&["pi-path", "s.jsonl", "--leaf", "ro"]), ["root"]);
    // An empty word: the keywords and the labels, not every id.
    let empty = bash(&["pi-path", "s.jsonl", "--leaf", ""]);
    assert_eq!(empty[..4], ["leaf", "last", "user", "root"]);
    assert_eq!(empty.len(), 4 + 7, "{empty:?}");
}

/// Without a SESSION the tool would read stdin: completion reads nothing,
/// nor a FIFO named as SESSION (it would wait for a writer).
#[test]
fn never_waits_for_stdin_or_a_fifo() {
    assert!(bash(&["pi-path", "--leaf", "@"]).is_empty());
    let dir = TempDir::new("complete-fifo");
    let fifo = dir.path().join("f.jsonl");
    let st = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(st.expect("mkfifo").success());
    let mut cmd = command("pi-path", &["--", "pi-path", "f.jsonl", "--leaf", "@"]);
    cmd.env("COMPLETE", "bash")
        .env("_CLAP_COMPLETE_INDEX", "3")
        .current_dir(dir.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let t = run_within(&mut cmd, Duration::from_secs(20), 1 << 16, 1 << 16);
    assert!(!t.hung, "completion waited on a FIFO");
    assert!(
        t.stdout.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&t.stdout)
    );
}

/// A session with labels a shell would run or a terminal obey.
fn hostile_session(dir: &TempDir) {
    let label = |id: &str, target: &str, text: &str| {
        format!(
            r#"{{"type":"label","id":"{id}","parentId":"aaaa0002","timestamp":"2026-07-20T09:00:02.000Z","targetId":"{target}","label":"{text}"}}"#
        )
    };
    dir.write(
        "h.jsonl",
        session(&[
            user("aaaa0001", None, "one"),
            user("aaaa0002", Some("aaaa0001"), "two \\u001b[2J"),
            user("aaaa0003", Some("aaaa0002"), "three"),
            user("aaaa0004", Some("aaaa0003"), "four"),
            label("bbbb0001", "aaaa0001", "my label"),
            label("bbbb0002", "aaaa0002", "$(touch PWNED)"),
            label("bbbb0003", "aaaa0003", "evil\\u001b]0;title\\u0007x"),
            label("bbbb0004", "aaaa0004", "tab\\tbed"),
        ])
        .as_bytes(),
    );
}

#[test]
fn hostile_labels_stay_inert() {
    let dir = TempDir::new("complete-hostile");
    hostile_session(&dir);
    let got = bash_in(dir.path(), &["pi-path", "h.jsonl", "--leaf", "@"]);
    // Quoted for bash's command line; control characters never offered.
    assert_eq!(got, [r"@my\ label", r"@\$\(touch\ PWNED\)"]);
    // The word as typed, backslash and all, still matches.
    let typed = bash_in(dir.path(), &["pi-path", "h.jsonl", "--leaf", r"@my\ l"]);
    assert_eq!(typed, [r"@my\ label"]);
    for shell in ["bash", "zsh", "fish"] {
        let o = ask(shell, &["pi-path", "h.jsonl", "--leaf", ""], dir.path());
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let raw = o
            .stdout
            .iter()
            .find(|&&b| (b < 0x20 && !b"\n\t\x0b".contains(&b)) || b == 0x7f);
        assert_eq!(
            raw,
            None,
            "{shell}: {:?}",
            String::from_utf8_lossy(&o.stdout)
        );
        let out = String::from_utf8(o.stdout).unwrap();
        assert!(
            !out.contains("evil") && !out.contains("tab"),
            "{shell}: {out:?}"
        );
        assert!(out.contains("my"), "{shell}: {out:?}");
    }
    assert!(!dir.path().join("PWNED").exists());
}

#[test]
fn session_id_prefixes_from_the_store() {
    let dir = TempDir::new("complete-store");
    let store = dir.path().join("store");
    std::fs::create_dir(&store).unwrap();
    let ids = [
        "019a0000-0000-7000-8000-000000000001",
        "019b0000-0000-7000-8000-000000000002",
    ];
    for id in ids {
        let h = header(id, "2026-07-20T09:00:00.000Z", "/p", None);
        let body = [h, user("aaaa0001", None, "hi")].join("\n") + "\n";
        let body = body
            + &format!(
                r#"{{"type":"label","id":"bbbb0001","parentId":"aaaa0001","timestamp":"2026-07-20T09:00:02.000Z","targetId":"aaaa0001","label":"in-{}"}}"#,
                &id[..4]
            )
            + "\n";
        std::fs::write(store.join(format!("2026_{id}.jsonl")), body).unwrap();
    }
    let s = store.to_str().unwrap();
    let here = dir.path();
    assert_eq!(
        bash_in(here, &["pi-path", "--session-dir", s, "019a"]),
        [ids[0]]
    );
    let both = bash_in(here, &["pi-path", "--session-dir", s, "019"]);
    assert_eq!(both, ids);
    // The REF's labels come from the session the id prefix names.
    let labels = bash_in(
        here,
        &["pi-path", "--session-dir", s, "019b", "--leaf", "@"],
    );
    assert_eq!(labels, ["@in-019b"]);
    // Files of the working directory are SESSION candidates too.
    std::fs::write(here.join("019c.jsonl"), "").unwrap();
    let with_file = bash_in(here, &["pi-path", "--session-dir", s, "019"]);
    assert!(
        with_file.contains(&"019c.jsonl".to_string()),
        "{with_file:?}"
    );
}

#[test]
fn every_tool_registers_for_bash_zsh_and_fish() {
    let examples = repo().join("examples");
    for tool in tools() {
        let script = |shell: &str| {
            let o = run_with(&tool, &[], None, |c| {
                c.env("COMPLETE", shell).current_dir(&examples);
            });
            assert!(o.status.success(), "{tool} {shell}: {}", stderr(&o));
            stdout(&o)
        };
        let fun = format!("_pi_session_tools_{}", tool.replace('-', "_"));
        let bash = script("bash");
        assert!(
            bash.contains(&format!("-F {fun} {tool}\n")),
            "{tool}: {bash}"
        );
        assert!(bash.contains("COMP_LINE"), "{tool}: {bash}");
        let zsh = script("zsh");
        assert!(
            zsh.starts_with(&format!("#compdef {tool}\n")),
            "{tool}: {zsh}"
        );
        assert!(zsh.contains("compdef _clap_dynamic_completer_"), "{zsh}");
        // Autoloaded from `_TOOL` on fpath, it completes on the first TAB.
        assert!(
            zsh.contains(&format!("== \"_{tool}\" ]]; then _clap_dynamic_")),
            "{zsh}"
        );
        let fish = script("fish");
        assert!(
            fish.starts_with(&format!(
                "complete --keep-order --exclusive --command {tool} "
            )),
            "{tool}: {fish}"
        );
    }
}

/// The bash script's own part: bash splits `--leaf=@pl` into `--leaf`,
/// `=@`, `pl` (COMP_WORDBREAKS), and replaces only `@pl`; the script joins
/// the words again and hands bash what replaces `@pl`.
#[test]
fn bash_script_joins_words_bash_splits_at_wordbreaks() {
    let cases = [
        (
            "pi-path s.jsonl --leaf=@pl",
            "(pi-path s.jsonl --leaf =@ pl)",
            4,
            "@pl",
            "@plan @plan-a @plan-b",
        ),
        (
            "pi-path s.jsonl --leaf @pl",
            "(pi-path s.jsonl --leaf @ pl)",
            4,
            "@pl",
            "@plan @plan-a @plan-b",
        ),
        (
            "pi-path s.jsonl --leaf=ro",
            "(pi-path s.jsonl --leaf = ro)",
            4,
            "ro",
            "root",
        ),
        (
            "pi-path s.jsonl --leaf 52",
            "(pi-path s.jsonl --leaf 52)",
            3,
            "52",
            "52e68469",
        ),
    ];
    for (line, words, cword, cur, want) in cases {
        let script = format!(
            "source <(COMPLETE=bash pi-path) && COMP_LINE='{line}' && COMP_POINT=${{#COMP_LINE}} && \
             COMP_WORDS={words} && COMP_CWORD={cword} && \
             _pi_session_tools_pi_path pi-path '{cur}' x && echo \"${{COMPREPLY[*]}}\""
        );
        let o = std::process::Command::new("bash")
            .args(["--norc", "--noprofile", "-c", &script])
            .env("PATH", path_with_tools())
            .current_dir(repo().join("examples"))
            .output()
            .expect("bash");
        assert_eq!(stdout(&o).trim_end(), want, "{line}: {}", stderr(&o));
    }
}
