//! The man pages in man/ are rendered from each binary's clap definition
//! (`TOOL --generate man`); this test fails when one is stale.
//! Regenerate with: UPDATE_MAN=1 cargo test --locked --test tests man::
use crate::common::*;

#[test]
fn man_pages_are_current() {
    let tools = tools();
    assert!(!tools.is_empty());
    let update = std::env::var_os("UPDATE_MAN").is_some();
    let mut stale = Vec::new();
    for tool in &tools {
        let o = run(tool, &["--generate", "man"], None);
        assert!(o.status.success(), "{tool} --generate man failed");
        let old = run(tool, &["--generate-man-page"], None);
        assert_eq!(
            old.stdout, o.stdout,
            "{tool}: --generate-man-page is --generate man"
        );
        let page = repo().join("man").join(format!("{tool}.1"));
        let text = String::from_utf8(o.stdout).unwrap();
        assert!(
            text.contains("EXAMPLES") || text.contains("Examples"),
            "{tool}: man page without examples"
        );
        if update {
            std::fs::create_dir_all(page.parent().unwrap()).unwrap();
            std::fs::write(&page, &text).unwrap();
        } else if std::fs::read_to_string(&page).ok().as_deref() != Some(text.as_str()) {
            stale.push(page.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "stale man pages (run UPDATE_MAN=1 cargo test --locked --test tests man::): {stale:?}"
    );
    // Completions for every shell, naming the tool and its options.
    for tool in &tools {
        for shell in ["bash", "zsh", "fish", "powershell"] {
            let o = run(tool, &["--generate", &format!("complete-{shell}")], None);
            assert!(o.status.success(), "{tool} --generate complete-{shell}");
            let text = String::from_utf8(o.stdout).unwrap();
            assert!(
                text.contains(tool.as_str()) && text.contains("help"),
                "{tool} {shell}: {text:.200}"
            );
        }
        let o = run(tool, &["--generate", "bogus"], None);
        assert_eq!(o.status.code(), Some(2), "{tool} --generate bogus");
    }
}

/// Issue 35.1: the pages read as coreutils' and ripgrep's do: rendered by
/// groff (or man), each has the usual sections and no EXTRA, its synopsis
/// shows option values (`[--at REF]`), and its help's examples are kept
/// verbatim (the first one with its column of spaces). Skipped when neither
/// groff nor man is installed.
#[test]
fn man_pages_read() {
    let render = |page: &std::path::Path| -> Option<String> {
        let groff = std::process::Command::new("groff")
            .args(["-man", "-Tascii", "-P-cbou", "-rLL=200n"])
            .arg(page)
            .output();
        if let Ok(o) = groff {
            if o.status.success() {
                return Some(String::from_utf8_lossy(&o.stdout).into_owned());
            }
        }
        let o = std::process::Command::new("man")
            .arg("-l")
            .arg(page)
            .env("MANWIDTH", "200")
            .env("MANPAGER", "cat")
            .env("LC_ALL", "C")
            .output()
            .ok()?;
        o.status.success().then(|| {
            // man may still overstrike for bold: drop "X\bX" pairs.
            let s = String::from_utf8_lossy(&o.stdout);
            let mut out = String::new();
            for c in s.chars() {
                if c == '\u{8}' {
                    out.pop();
                } else {
                    out.push(c);
                }
            }
            out
        })
    };
    let dir = TempDir::new("man-read");
    for tool in tools() {
        let o = run(&tool, &["--generate", "man"], None);
        let page = dir.0.join(format!("{tool}.1"));
        std::fs::write(&page, &o.stdout).unwrap();
        let Some(text) = render(&page) else {
            println!("SKIPPED: neither groff nor man renders {tool}'s page here");
            return;
        };
        for section in [
            "NAME",
            "SYNOPSIS",
            "DESCRIPTION",
            "OPTIONS",
            "EXAMPLES",
            "EXIT STATUS",
            "ENVIRONMENT",
            "FILES",
            "SEE ALSO",
        ] {
            assert!(
                text.lines().any(|l| l == section),
                "{tool}: no {section} section:\n{text}"
            );
        }
        assert!(!text.contains("\nEXTRA"), "{tool}: an EXTRA section");
        // The first example of --help, as --help prints it (two spaces in).
        let help = String::from_utf8(run(&tool, &["--help"], None).stdout).unwrap();
        let first = help
            .lines()
            .skip_while(|l| l.trim() != "Examples:")
            .nth(1)
            .unwrap_or_else(|| panic!("{tool} --help: no examples"));
        assert!(
            text.lines().any(|l| l.trim_start() == first.trim_start()),
            "{tool}: the example {first:?} is not verbatim in:\n{text}"
        );
        let others = tools().into_iter().filter(|t| *t != tool).count();
        // The section's first paragraph (not the page's footer, `PI-X(1)`).
        let see_also = text.split("\nSEE ALSO\n").nth(1).unwrap_or("");
        let see_also = see_also.split("\n\n").next().unwrap_or("");
        assert_eq!(
            see_also.matches("(1)").count(),
            others,
            "{tool}: SEE ALSO names the other tools: {see_also}"
        );
    }
    let fork = render(&dir.0.join("pi-fork.1")).unwrap();
    let synopsis = fork.split("SYNOPSIS").nth(1).unwrap();
    assert!(synopsis.contains("{--at REF | --before REF"), "{synopsis}");
    assert!(synopsis.contains("[-o|--output FILE]"), "{synopsis}");
    let ls = render(&dir.0.join("pi-ls.1")).unwrap();
    assert!(ls.contains("PI_SESSION_TOOLS_CACHE_DIR"), "{ls}");
}

/// Issue 35.1: install.sh puts the pages under the prefix's share/man/man1,
/// where man finds them when PREFIX/bin is on PATH, and says what to add
/// when it is not (`--man-only`: the tools already in PREFIX/bin, no build);
/// bash, zsh and fish completions beside them (issue 35.11).
#[test]
fn install_sh_installs_pages_man_finds() {
    let t = TempDir::new("install-sh");
    let prefix = t.0.join("prefix");
    std::fs::create_dir_all(prefix.join("bin")).unwrap();
    for tool in tools() {
        std::os::unix::fs::symlink(bin(&tool), prefix.join("bin").join(&tool)).unwrap();
    }
    let install = |path: &str| {
        let o = std::process::Command::new(repo().join("install.sh"))
            .arg("--man-only")
            .arg(&prefix)
            .env("PATH", path)
            .env_remove("MANPATH")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let system = std::env::var("PATH").unwrap_or_default();
    let said = install(&system);
    for tool in tools() {
        let page = prefix.join(format!("share/man/man1/{tool}.1"));
        let want = run(&tool, &["--generate", "man"], None).stdout;
        assert_eq!(std::fs::read(&page).ok(), Some(want), "{tool}.1");
        // Completions where each shell's loader looks for them by name.
        let read = |p: &str| std::fs::read_to_string(prefix.join(p)).unwrap_or_default();
        let bash = read(&format!("share/bash-completion/completions/{tool}"));
        assert!(bash.contains(&format!(" {tool}\n")), "{tool}: {bash}");
        let zsh = read(&format!("share/zsh/site-functions/_{tool}"));
        assert!(
            zsh.starts_with(&format!("#compdef {tool}\n")),
            "{tool}: {zsh}"
        );
        let fish = read(&format!("share/fish/vendor_completions.d/{tool}.fish"));
        assert!(
            fish.contains(&format!("--command {tool} ")),
            "{tool}: {fish}"
        );
    }
    let has_man = std::process::Command::new("man")
        .arg("-w")
        .arg("man")
        .output()
        .is_ok();
    if !has_man {
        println!("SKIPPED: no man program; install.sh said: {said}");
        return;
    }
    assert!(said.contains("export PATH="), "{said}");
    let on_path = format!("{}:{system}", prefix.join("bin").display());
    let said = install(&on_path);
    assert!(said.contains("man pi-tree shows the page"), "{said}");
}
