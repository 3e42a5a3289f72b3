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
mod convert;
mod edit;
mod fork;
mod grep;
mod label;
mod ls;
mod migrate;
mod path;
mod tree;
mod usage;

// Across the tools.
mod crash;
mod fuzz_regressions;
mod hostile;
mod io;
mod man;
mod properties;
mod readme;
mod scale;
