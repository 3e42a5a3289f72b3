//! What a session header line says, as loading reads it (and
//! `pi-migrate`): its id and the version pi takes it for, converting a
//! `version` that is not a number as JavaScript does.

use super::CURRENT_VERSION;
use crate::json::{js, scan, Object};
use std::borrow::Cow;

/// What a session header line says, as loading reads it (and `pi-migrate`).
pub(crate) struct HeaderFields<'a> {
    pub id: Cow<'a, str>,
    /// 1 when absent, 2, or [`CURRENT_VERSION`] (for any higher number too).
    pub version: u32,
    /// The `version` as written, when it is higher than [`CURRENT_VERSION`].
    pub newer: Option<&'a [u8]>,
    /// A warning when the `version` is not a JSON number (pi converts it).
    pub odd: Option<String>,
}

/// The number JavaScript compares a header's `version` (JSON text `v`) as:
/// `ToNumber(ToPrimitive(v))`. A string is read as `Number(s)` reads it, an
/// array as the string of its elements joined with commas, `true` as 1,
/// an object as NaN.
fn js_version_number(v: &[u8]) -> f64 {
    fn of(v: &serde_json::Value, in_array: bool) -> f64 {
        use serde_json::Value as V;
        match v {
            V::Null => {
                if in_array {
                    0.0
                } else {
                    f64::NAN
                }
            }
            // ToString(true) is "true", which is NaN as a number.
            V::Bool(b) => match (in_array, b) {
                (true, _) => f64::NAN,
                (false, true) => 1.0,
                (false, false) => 0.0,
            },
            V::Number(n) => n.as_f64().unwrap_or(f64::NAN),
            V::String(s) => crate::json::js::string::string_to_number(s),
            V::Array(a) => match a.as_slice() {
                [] => 0.0,
                [one] => of(one, true),
                _ => f64::NAN, // a comma in the joined string
            },
            V::Object(_) => f64::NAN,
        }
    }
    if scan::kind_of(v) == Some(scan::Kind::Number) {
        return std::str::from_utf8(v)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(f64::NAN);
    }
    match serde_json::from_slice::<serde_json::Value>(v) {
        Ok(val) => of(&val, false),
        Err(_) => f64::NAN,
    }
}

impl<'a> HeaderFields<'a> {
    /// The fields of the first object line `obj`, or why it is not a header.
    pub(crate) fn read(obj: &Object<'a>) -> std::result::Result<HeaderFields<'a>, String> {
        if obj.str("type").as_deref() != Some("session") {
            return Err("the first entry is not a session header (pi would treat this file as empty and overwrite it)".into());
        }
        let Some(id) = obj.str("id") else {
            return Err("the session header has no string \"id\"".into());
        };
        // pi 1.6: `const version = header.version ?? 1`, then
        // `version >= 3`, `version < 2`, `version < 3`: JavaScript compares
        // a string or an array as the number it converts to ("3" and [3] are
        // 3), and a value that converts to NaN fails every test, so pi
        // migrates nothing and reads the file as it is.
        let (version, newer, odd) = match obj.raw("version") {
            None | Some(b"null") => (1, None, None),
            Some(v) => {
                let number = scan::kind_of(v) == Some(scan::Kind::Number);
                let n = js_version_number(v);
                let shown = String::from_utf8_lossy(v);
                if n.is_nan() {
                    let why = format!(
                        "session version {shown} is not a number; pi migrates nothing and reads the file as it is (as version {CURRENT_VERSION})"
                    );
                    (CURRENT_VERSION, None, Some(why))
                } else {
                    let odd = (!number).then(|| {
                        format!(
                            "session version {shown} is not a number; pi reads it as {}",
                            js::number::number_to_js(n)
                        )
                    });
                    if n > CURRENT_VERSION as f64 {
                        (CURRENT_VERSION, Some(v), odd)
                    } else if n >= CURRENT_VERSION as f64 {
                        (CURRENT_VERSION, None, odd)
                    } else if n >= 2.0 {
                        (2, None, odd)
                    } else {
                        (1, None, odd)
                    }
                }
            }
        };
        Ok(HeaderFields {
            id,
            version,
            newer,
            odd,
        })
    }
}

/// A value that is not an object before the header: pi's first entry.
pub const NOT_OBJECT_FIRST: &str =
    "the first entry is not a session header (a JSON value that is not an object; pi refuses such a file)";
