//! Helpers shared by every module of the test binary: files and temporary
//! directories (`fs`), running the tools (`run`), session text (`build`),
//! comparing what a tool wrote with what pi writes (`compare`), and pi's
//! recorded answers with the one runner that checks a tool against them
//! (`conformance`); the guards that keep the cross-tool matrices and the
//! list of test modules whole (`guards`).
pub mod build;
pub mod compare;
pub mod conformance;
pub mod fs;
pub mod guards;
pub mod run;

pub use build::*;
pub use compare::*;
pub use conformance::*;
pub use fs::*;
pub use guards::*;
pub use run::*;
