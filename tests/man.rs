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
