//! The one integration test binary (`cargo test --test tests`): the helpers
//! in `common/`, a module per tool that drives its binary as a user runs it
//! (and compares it with pi's recorded answers), and the checks across every
//! tool. A new tool adds its module `tests/<tool>.rs` and its line below.
//!
//! One module's tests: `cargo test --test tests path::` (a filter on the
//! test's path, `module::name`).

mod common;

mod architecture;

// One module per tool.
mod check;
mod convert;
mod edit;
mod fork;
mod grep;
mod import;
mod label;
mod ls;
mod migrate;
mod mv;
mod null;
mod page;
mod path;
mod rm;
mod tree;
mod usage;

// Across the tools.
mod cache;
mod complete;
mod crash;
mod fuzz_regressions;
mod hostile;
mod io;
mod live;
mod man;
mod properties;
mod readme;
mod scale;

/// Every tests/*.rs (and folder of Rust files) is a module above, and every
/// tests/X/Y.rs a module of X: a file left out would never be compiled.
#[test]
fn no_forgotten_test_files() {
    let forgotten = common::forgotten_test_files(&common::repo().join("tests"));
    assert!(
        forgotten.is_empty(),
        "test files that are no module:\n{}",
        forgotten.join("\n")
    );
}
