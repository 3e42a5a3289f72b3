//! What each tool does, as library functions the binaries call.

pub mod convert;
pub mod fork;
pub mod grep;
pub mod label;
pub mod migrate;
pub mod path;
pub mod tree;
