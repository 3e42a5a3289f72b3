//! The man pages in man/ are rendered from each binary's clap definition
//! (`TOOL --generate-man-page`); this test fails when one is stale.
//! Regenerate with: UPDATE_MAN=1 cargo test --test man
mod common;
use common::*;

#[test]
fn man_pages_are_current() {
    let mut tools: Vec<String> = std::fs::read_dir(repo().join("src/bin"))
        .unwrap()
        .flatten()
        .filter_map(|d| {
            let n = d.file_name().to_string_lossy().into_owned();
            n.strip_suffix(".rs").map(str::to_string)
        })
        .collect();
    tools.sort();
    assert!(!tools.is_empty());
    let update = std::env::var_os("UPDATE_MAN").is_some();
    let mut stale = Vec::new();
    for tool in &tools {
        let o = run(tool, &["--generate-man-page"], None);
        assert!(o.status.success(), "{tool} --generate-man-page failed");
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
        "stale man pages (run UPDATE_MAN=1 cargo test --test man): {stale:?}"
    );
}
