//! Helpers shared by every module of the test binary: files and temporary
//! directories (`fs`), running the tools (`run`), session text (`build`),
//! comparing what a tool wrote with what pi writes (`compare`), and pi's
//! recorded answers with the one runner that checks a tool against them
//! (`conformance`).
pub mod build;
pub mod compare;
pub mod conformance;
pub mod fs;
pub mod run;

pub use build::*;
pub use compare::*;
pub use conformance::*;
pub use fs::*;
pub use run::*;
