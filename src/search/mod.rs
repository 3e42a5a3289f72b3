//! Searching the text of session entries. `pi-grep`: which text an entry
//! holds and under which field ([`fields`]), and the pattern with a
//! prefilter on the raw JSON bytes ([`pattern`]). pi's `/tree`: the text
//! its search matches and the text its rows show ([`tree_text`]).

pub mod fields;
pub mod pattern;
pub mod tree_text;

pub use fields::{entry_spans, quick_entry, Entry, Span, SpanText, FIELDS};
pub use pattern::{Literals, Matcher, PatternOptions};
