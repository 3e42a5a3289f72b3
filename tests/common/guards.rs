//! Checks that keep the test matrices whole, as jj's
//! `test_no_forgotten_test_files`: every binary of the package is in each
//! cross-tool matrix or named in its exemptions with a reason, and every
//! test file is compiled. Each reads the package at test time (Cargo.toml,
//! src/bin, tests/), so a new tool or file cannot be missed by a hand list.
use super::repo;
use std::collections::BTreeSet;
use std::path::Path;

/// The binaries of the package: the `name`s of Cargo.toml's `[[bin]]`
/// tables, which must be the files of src/bin (a binary Cargo.toml forgot
/// is not built, one without a file does not build).
pub fn binaries() -> Vec<String> {
    let toml = std::fs::read_to_string(repo().join("Cargo.toml")).expect("Cargo.toml");
    let mut names = Vec::new();
    let mut in_bin = false;
    for line in toml.lines().map(str::trim) {
        if line.starts_with('[') {
            in_bin = line == "[[bin]]";
        } else if let Some(v) = line.strip_prefix("name").map(str::trim_start) {
            if in_bin && v.starts_with('=') {
                names.push(v[1..].trim().trim_matches('"').to_string());
            }
        }
    }
    names.sort();
    let files = super::tools();
    assert_eq!(
        names, files,
        "Cargo.toml's [[bin]] names and the files of src/bin differ"
    );
    assert!(!names.is_empty(), "no [[bin]] in Cargo.toml");
    names
}

/// Fail, naming them, for each binary neither in `listed` (the tools a
/// matrix runs) nor in `exempt` (tool, why it has no place there); for each
/// name in either that is no binary (a tool removed or renamed); and for
/// each tool both run and exempted, or exempted without a reason.
#[track_caller]
pub fn every_binary_in(matrix: &str, listed: &[&str], exempt: &[(&str, &str)]) {
    check_binaries(matrix, &binaries(), listed, exempt).unwrap_or_else(|e| panic!("{e}"));
}

/// [`every_binary_in`] for a given list of binaries: the problems, if any.
pub fn check_binaries(
    matrix: &str,
    binaries: &[String],
    listed: &[&str],
    exempt: &[(&str, &str)],
) -> Result<(), String> {
    let listed: BTreeSet<&str> = listed.iter().copied().collect();
    let exempted: BTreeSet<&str> = exempt.iter().map(|(t, _)| *t).collect();
    let mut bad = Vec::new();
    for b in binaries {
        if !listed.contains(b.as_str()) && !exempted.contains(b.as_str()) {
            bad.push(format!(
                "{b} is not in the {matrix} matrix: add its rows, or name it in the exemptions with the reason"
            ));
        }
    }
    for t in listed.iter().chain(&exempted) {
        if !binaries.iter().any(|b| b == t) {
            bad.push(format!(
                "{t} is in the {matrix} matrix but is no binary of Cargo.toml"
            ));
        }
    }
    for (t, why) in exempt {
        if listed.contains(t) {
            bad.push(format!(
                "{t} is both run by and exempted from the {matrix} matrix"
            ));
        }
        if why.trim().is_empty() {
            bad.push(format!(
                "{t} is exempted from the {matrix} matrix without a reason"
            ));
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(bad.join("\n"))
    }
}

/// The modules a Rust file declares (`mod x;`, `pub mod x;`,
/// `pub(crate) mod x;`), inline modules (`mod x {`) left out.
pub fn declared_modules(text: &str) -> BTreeSet<String> {
    text.lines()
        .map(str::trim)
        .filter_map(|l| {
            let l = l
                .strip_prefix("pub(crate) ")
                .or_else(|| l.strip_prefix("pub(super) "))
                .or_else(|| l.strip_prefix("pub "))
                .unwrap_or(l);
            let name = l.strip_prefix("mod ")?.strip_suffix(';')?.trim();
            let name = name.strip_prefix("r#").unwrap_or(name);
            Some(name.to_string())
        })
        .collect()
}

/// The test files under `tests` that no module declaration reaches from
/// `tests.rs`: each `X.rs` (and each directory `X/` holding Rust files)
/// must be `mod X;` of tests.rs, and each `X/Y.rs` must be `mod Y;` of
/// `X.rs` or `X/mod.rs`. A directory without Rust files is data.
pub fn forgotten_test_files(tests: &Path) -> Vec<String> {
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    let top = declared_modules(&read(&tests.join("tests.rs")));
    let mut forgotten = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(tests)
        .expect("tests/")
        .flatten()
        .map(|d| d.path())
        .collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            let rs = rust_files(&p);
            if rs.is_empty() {
                continue;
            }
            if !top.contains(&name) {
                forgotten.push(format!(
                    "tests/{name}/ (no `mod {name};` in tests/tests.rs)"
                ));
                continue;
            }
            // The parent of tests/X/Y.rs: tests/X.rs or tests/X/mod.rs.
            let parent = [tests.join(format!("{name}.rs")), p.join("mod.rs")]
                .iter()
                .map(|f| read(f))
                .collect::<Vec<_>>()
                .concat();
            let inner = declared_modules(&parent);
            for f in rs {
                if f == "mod" {
                    continue;
                }
                if !inner.contains(&f) {
                    forgotten.push(format!(
                        "tests/{name}/{f}.rs (no `mod {f};` in tests/{name}.rs or tests/{name}/mod.rs)"
                    ));
                }
            }
        } else if let Some(stem) = name.strip_suffix(".rs") {
            if stem != "tests" && !top.contains(stem) {
                forgotten.push(format!("tests/{name} (no `mod {stem};` in tests/tests.rs)"));
            }
        }
    }
    forgotten
}

/// The stems of the `.rs` files directly in `dir`, sorted; a nested
/// directory of Rust files counts as its name (a module folder).
fn rust_files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter_map(|d| {
                    let p = d.path();
                    let n = d.file_name().to_string_lossy().into_owned();
                    if p.is_dir() {
                        (!rust_files(&p).is_empty()).then_some(n)
                    } else {
                        n.strip_suffix(".rs").map(str::to_string)
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn a_forgotten_binary_is_named() {
    let bins: Vec<String> = ["pi-a", "pi-b", "pi-c"].map(String::from).to_vec();
    assert!(check_binaries("m", &bins, &["pi-a", "pi-b"], &[("pi-c", "why")]).is_ok());
    let e = check_binaries("m", &bins, &["pi-a"], &[("pi-c", "why")]).unwrap_err();
    assert!(e.contains("pi-b is not in the m matrix"), "{e}");
    let e = check_binaries("m", &bins, &["pi-a", "pi-b", "pi-x"], &[("pi-c", " ")]).unwrap_err();
    assert!(
        e.contains("pi-x is in the m matrix but is no binary"),
        "{e}"
    );
    assert!(
        e.contains("pi-c is exempted from the m matrix without a reason"),
        "{e}"
    );
    let e = check_binaries("m", &bins, &["pi-a", "pi-b", "pi-c"], &[("pi-c", "why")]).unwrap_err();
    assert!(e.contains("pi-c is both run by and exempted"), "{e}");
}

#[test]
fn a_forgotten_test_file_is_named() {
    let t = super::TempDir::new("guards");
    let p = t.path();
    std::fs::write(p.join("tests.rs"), "mod common;\nmod a;\n// mod b;\n").unwrap();
    std::fs::write(p.join("a.rs"), "mod inner;\n").unwrap();
    std::fs::write(p.join("b.rs"), "").unwrap();
    std::fs::create_dir_all(p.join("a")).unwrap();
    std::fs::write(p.join("a/inner.rs"), "").unwrap();
    std::fs::write(p.join("a/lost.rs"), "").unwrap();
    std::fs::create_dir_all(p.join("common")).unwrap();
    std::fs::write(p.join("common/mod.rs"), "pub mod x;\n").unwrap();
    std::fs::write(p.join("common/x.rs"), "").unwrap();
    std::fs::create_dir_all(p.join("data")).unwrap();
    std::fs::write(p.join("data/case.json"), "{}").unwrap();
    std::fs::create_dir_all(p.join("c")).unwrap();
    std::fs::write(p.join("c/mod.rs"), "").unwrap();
    let got = forgotten_test_files(p);
    assert_eq!(
        got,
        [
            "tests/a/lost.rs (no `mod lost;` in tests/a.rs or tests/a/mod.rs)",
            "tests/b.rs (no `mod b;` in tests/tests.rs)",
            "tests/c/ (no `mod c;` in tests/tests.rs)",
        ]
    );
}
