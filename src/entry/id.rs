//! Entry ids and parent ids as pi keys them: a string id by its text
//! (pi's 8 hex digits kept in 4 bytes), any other JSON value by its
//! JavaScript `Map` key (`SameValueZero`: `1` and `1.0` are one key, an
//! object only itself), and what an entry's `parentId` says.

use crate::json::{js, Object};
use std::fmt;

/// An entry id. pi's ids are 8 lowercase hex digits, kept in 4 bytes; any
/// other string is kept as it is (behind a thin pointer, so that an `Id`
/// takes 16 bytes and an `Option<Id>` or a [`Parent`] no more). An id that
/// is not a string (`1`, `true`, `null`, `{}`) is a [`Id::Value`]: pi keys
/// its `Map`s by the value itself, so the number `1` names the entry whose
/// id is `1` (or `1.0`), never the one whose id is `"1"`.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Id {
    Hex8(u32),
    #[allow(clippy::box_collection)]
    Other(Box<String>),
    /// A JSON value that is not a string, by its `Map` key: `#` and the
    /// number as JavaScript prints it (`#1`, `#Infinity`; `-0` is `#0`, as
    /// `SameValueZero` has it), `true`, `false`, `null`, `undefined` (no
    /// id at all, as a label's missing `targetId`), or for an object or
    /// array (which only the very value it is equals) `{N}` with a number
    /// no other value has, then its JSON text.
    #[allow(clippy::box_collection)]
    Value(Box<String>),
}

impl Id {
    pub fn new(s: &str) -> Id {
        let b = s.as_bytes();
        if b.len() == 8 && b.iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')) {
            if let Ok(n) = u32::from_str_radix(s, 16) {
                return Id::Hex8(n);
            }
        }
        Id::Other(Box::new(s.to_string()))
    }

    /// The id a JSON string value (quotes included) holds.
    pub fn from_json(v: &[u8]) -> Id {
        let inner = &v[1..v.len() - 1];
        if inner.len() == 8 && inner.iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')) {
            let n = inner.iter().fold(0u32, |n, &c| {
                n << 4 | u32::from(if c <= b'9' { c - b'0' } else { c - b'a' + 10 })
            });
            return Id::Hex8(n);
        }
        Id::new(&js::escape::decode_string(v, 0..v.len()))
    }

    /// The id any JSON value (its text) is as a `Map` key.
    pub fn from_value(v: &[u8]) -> Id {
        match v.first() {
            Some(b'"') => Id::from_json(v),
            Some(b'-' | b'0'..=b'9') => {
                let n = std::str::from_utf8(v)
                    .ok()
                    .and_then(|s| s.parse::<f64>().ok())
                    .unwrap_or(f64::NAN);
                Id::Value(Box::new(format!("#{}", js::number::number_string(n))))
            }
            Some(b'{' | b'[') => {
                use std::sync::atomic::{AtomicU64, Ordering};
                static NEXT: AtomicU64 = AtomicU64::new(0);
                let n = NEXT.fetch_add(1, Ordering::Relaxed);
                Id::Value(Box::new(format!("{{{n}}}{}", String::from_utf8_lossy(v))))
            }
            _ => Id::Value(Box::new(String::from_utf8_lossy(v).into_owned())),
        }
    }

    /// JavaScript's `undefined` as a key: what an entry without an id has.
    pub fn undefined() -> Id {
        Id::Value(Box::new("undefined".into()))
    }

    pub fn is_empty(&self) -> bool {
        matches!(self, Id::Other(s) if s.is_empty())
    }

    /// JavaScript truthiness of the id (pi follows truthy parent ids only).
    pub fn truthy(&self) -> bool {
        match self {
            Id::Hex8(_) => true,
            Id::Other(s) => !s.is_empty(),
            Id::Value(k) => value_key_truthy(k),
        }
    }

    /// Whether the id is JavaScript's `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Id::Value(k) if k.as_str() == "null")
    }

    /// The id as `JSON.stringify` writes it.
    pub fn to_json(&self) -> String {
        match self {
            Id::Value(k) => match k.as_bytes().first() {
                Some(b'#') if matches!(&k[1..], "Infinity" | "-Infinity") => "null".into(),
                Some(b'#') => k[1..].to_string(),
                Some(b'{') => {
                    let raw = object_text(k);
                    js::stringify::canonical_vec(raw.as_bytes(), 0..raw.len())
                        .map(|v| String::from_utf8_lossy(&v).into_owned())
                        .unwrap_or_else(|_| raw.to_string())
                }
                _ => k.to_string(),
            },
            // Eight hex digits: nothing to escape.
            Id::Hex8(n) => format!("\"{}\"", hex8(*n)),
            _ => {
                let mut out = Vec::new();
                js::escape::write_str(&mut out, &self.to_string());
                String::from_utf8(out).unwrap_or_default()
            }
        }
    }
}

/// Whether the value an [`Id::Value`] key stands for is truthy.
pub(super) fn value_key_truthy(key: &str) -> bool {
    !matches!(key, "#0" | "false" | "null" | "undefined")
}

/// The JSON text of an object or array's [`Id::Value`] key (after `{N}`).
fn object_text(key: &str) -> &str {
    &key[key.find('}').map_or(0, |p| p + 1)..]
}

/// `n` as 8 lowercase hex digits (`{n:08x}`), without the formatter.
pub(super) fn hex8(n: u32) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut b = [0u8; 8];
    for (k, c) in b.iter_mut().enumerate() {
        *c = DIGITS[(n >> (28 - 4 * k) & 0xf) as usize];
    }
    // Always ASCII.
    std::str::from_utf8(&b).map_or_else(|_| String::new(), str::to_owned)
}

impl fmt::Display for Id {
    /// `${id}`, as pi writes an id into text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Hex8(n) => write!(f, "{n:08x}"),
            Id::Other(s) => f.write_str(s),
            Id::Value(k) => match k.as_bytes().first() {
                Some(b'#') => f.write_str(&k[1..]),
                Some(b'{') => f.write_str(&js::string::string_value(object_text(k).as_bytes())),
                _ => f.write_str(k),
            },
        }
    }
}

impl fmt::Debug for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

/// What an entry's `parentId` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parent {
    /// `null`: a root.
    Null,
    /// No `parentId` key (`undefined`).
    Missing,
    /// A string, number or boolean: the parent's id (maybe naming no entry;
    /// pi follows it only when truthy, see [`Parent::id`]).
    Id(Id),
    /// An object or array: names no entry (only that very value would).
    Other,
}

impl Parent {
    /// What the `parentId` of an entry's parsed line says.
    pub fn from_object(obj: &Object<'_>) -> Parent {
        Parent::from_raw(obj.raw("parentId"))
    }

    /// What a `parentId` value (its text; None when there is no such key)
    /// says.
    pub fn from_raw(value: Option<&[u8]>) -> Parent {
        match value {
            None => Parent::Missing,
            Some(b"null") => Parent::Null,
            Some(v) if matches!(v[0], b'{' | b'[') => Parent::Other,
            Some(v) => Parent::Id(Id::from_value(v)),
        }
    }

    /// The id to follow when walking to the root (pi follows truthy ids only).
    pub fn id(&self) -> Option<&Id> {
        match self {
            Parent::Id(id) if id.truthy() => Some(id),
            _ => None,
        }
    }
}
