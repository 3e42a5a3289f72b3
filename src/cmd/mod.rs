//! What each tool does, as library functions the binaries call.

pub mod check;
pub mod convert;
pub mod edit;
pub mod fork;
pub mod grep;
pub mod import;
pub mod label;
pub mod ls;
pub mod migrate;
pub mod mv;
pub mod path;
pub mod rm;
pub mod tree;
pub mod usage;
