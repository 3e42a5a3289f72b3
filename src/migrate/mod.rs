//! Version 1 and 2 sessions brought to version 3 (SPEC §8).
//!
//! - `entry`: one line: the header's new version ([`migrate_header`]), an
//!   entry's changes ([`migrate_entry`], [`EntryMigration`]), the
//!   deterministic version-1 ids ([`v1_id`]), and [`ObjectEdit`], changes
//!   to one object's text applied in one pass.
//! - `file`: a whole file's text in one pass ([`migrate_bytes`]), what it
//!   gives ([`Outcome`]) and what changed ([`Changes`]).
//!
//! A line is changed only where pi's migration changes it: new keys are
//! added at the end of the object, replaced values are replaced in place,
//! and everything else keeps its original bytes.

mod entry;
mod file;
mod header;

/// The version pi writes today.
pub const CURRENT_VERSION: u32 = 3;

pub(crate) use entry::{
    first_kept_index, hook_message_role, json_str, migrate_entry_into, migrate_header_into,
    v1_first_kept, v1_id_number, FirstKept,
};
pub use entry::{migrate_entry, migrate_header, v1_id, EntryMigration, ObjectEdit};
pub(crate) use file::first_line_is_current;
pub use file::{migrate_bytes, Changes, MigrateOptions, Outcome};
pub(crate) use header::HeaderFields;
pub use header::NOT_OBJECT_FIRST;
