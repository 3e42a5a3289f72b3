//! pi-path, driven as a user runs it.
mod common;
use common::*;

#[test]
fn conformance_with_pi() {
    let cases = conformance_cases("pi-path");
    assert!(cases.len() > 500, "only {} pi-path cases", cases.len());
    let failures = check_cases(&cases, |s| s.to_string());
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from pi:\n{}",
        failures.len(),
        cases.len(),
        failures.iter().take(8).cloned().collect::<Vec<_>>().join("\n")
    );
}
