//! JSON written the way JavaScript writes it, and the JavaScript semantics
//! the tools replay.
//!
//! pi stores what `JSON.stringify` produced. Whenever a tool prints a value it
//! took out of a line (a message, a summary), the result must equal
//! `JSON.stringify(JSON.parse(text))`: no whitespace, escapes normalized,
//! numbers in JavaScript's shortest form, integer-like keys first, duplicate
//! keys collapsed. [`canonical`](stringify::canonical) does that directly on
//! the text, without a value tree; for text pi wrote itself it returns the
//! same bytes.
//!
//! By concept: [`stringify`](mod@stringify) (that rewrite, and a member set in place),
//! [`check`] (the quick proof that a text already is what it writes),
//! [`number`] (numbers as JavaScript prints and reads them), [`escape`]
//! (JSON string literals: their escapes decoded, strings written), and
//! [`string`] (JavaScript's string semantics: `trim()`, UTF-16 lengths and
//! cuts, `toLowerCase()`, `String(value)`, `Number(string)`). Callers
//! import from those modules; the re-exports below are for the modules being
//! reworked beside this one (issue 30: store, edit, fork, grep, ls, usage, the
//! fuzz targets and the integration tests), to be dropped once they import
//! from the modules too.

pub mod check;
pub mod escape;
pub mod number;
pub mod string;
pub mod stringify;

pub use check::{Checker, Marks};
pub use escape::{decode_string, decode_utf16, write_str, write_utf16};
pub use number::{number_to_js, write_number};
pub use string::trim_utf16;
#[cfg(any(test, feature = "fuzzing"))]
pub use stringify::canonical_long_way;
pub use stringify::{canonical_vec, with_member};

/// How deep [`canonical`](stringify::canonical) follows nested arrays and objects. JavaScript's own
/// `JSON.stringify` gives up (stack overflow) at a similar depth.
pub const MAX_DEPTH: usize = 2000;

/// JavaScript truthiness of a JSON value's text.
pub fn truthy(value: &[u8]) -> bool {
    match value.first() {
        None => false,
        Some(b'n' | b'f') => false,
        Some(b'"') => value.len() > 2,
        Some(b'-' | b'0'..=b'9') => std::str::from_utf8(value)
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .is_some_and(|n| n != 0.0),
        _ => true,
    }
}

/// `JSON.stringify(JSON.parse(s))`, for the tests.
#[cfg(test)]
fn canon(s: &str) -> String {
    let t = s.as_bytes();
    let r = crate::json::scan::validate(t).unwrap();
    String::from_utf8(stringify::canonical_vec(t, r).unwrap()).unwrap()
}

#[cfg(test)]
mod tests {
    use super::truthy;

    #[test]
    fn truthiness() {
        assert!(!truthy(b"\"\""));
        assert!(!truthy(b"0.0"));
        assert!(!truthy(b"null"));
        assert!(truthy(b"[]"));
        assert!(truthy(b"\"0\""));
    }
}
