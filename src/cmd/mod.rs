//! What each tool does, as library functions the binaries call.

pub mod path;
