//! A JSON value that borrows the source's strings: a source line parsed
//! without a `String` per key and string, nor a `BTreeMap` per object
//! (serde_json's `Value` tree was a third of an import, issue 34).
//!
//! It reads exactly what `serde_json::Value` reads, with the same errors
//! (the same deserializer, visited the same way), and means the same: a
//! key given twice is its last value, and it is written back as `Value`
//! writes it (keys sorted, numbers in JavaScript's form: `out::write_v`).

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// An object's members in the source's order (a key may repeat: the last
/// one counts).
pub(crate) type Obj<'a> = Vec<(Cow<'a, str>, V<'a>)>;

/// A JSON value read from a source line.
#[derive(Clone, Debug, Default)]
pub(crate) enum V<'a> {
    #[default]
    Null,
    Bool(bool),
    Num(N),
    /// Borrowed unless the source escaped something in it: a borrowed
    /// one holds no `"`, `\\` or control character (JSON allows none
    /// unescaped), so it is written without an escape check.
    Str(Cow<'a, str>),
    Arr(Vec<V<'a>>),
    Obj(Obj<'a>),
}

/// A number as serde_json keeps it (whole numbers exact).
#[derive(Clone, Copy, Debug)]
pub(crate) enum N {
    U(u64),
    I(i64),
    F(f64),
}

impl<'a> V<'a> {
    /// Member `k` of an object (its last one).
    pub(crate) fn get(&self, k: &str) -> Option<&V<'a>> {
        match self {
            V::Obj(o) => get(o, k),
            _ => None,
        }
    }

    pub(crate) fn get_mut(&mut self, k: &str) -> Option<&mut V<'a>> {
        match self {
            V::Obj(o) => o.iter_mut().rev().find(|(key, _)| key == k).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            V::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self {
            V::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub(crate) fn as_f64(&self) -> Option<f64> {
        match self {
            V::Num(N::U(n)) => Some(*n as f64),
            V::Num(N::I(n)) => Some(*n as f64),
            V::Num(N::F(n)) => Some(*n),
            _ => None,
        }
    }

    /// Member `k` taken out of an object (every member of that name goes,
    /// as `Map::remove` leaves none).
    pub(crate) fn remove(&mut self, k: &str) -> Option<V<'a>> {
        match self {
            V::Obj(o) => remove(o, k),
            _ => None,
        }
    }

    /// The same value as serde_json's tree (for the rare paths that write
    /// it as serde_json does).
    pub(crate) fn to_value(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            V::Null => Value::Null,
            V::Bool(b) => Value::Bool(*b),
            V::Num(N::U(n)) => Value::Number((*n).into()),
            V::Num(N::I(n)) => Value::Number((*n).into()),
            V::Num(N::F(n)) => serde_json::Number::from_f64(*n).map_or(Value::Null, Value::Number),
            V::Str(s) => Value::String(s.to_string()),
            V::Arr(a) => Value::Array(a.iter().map(V::to_value).collect()),
            V::Obj(o) => Value::Object(
                o.iter()
                    .map(|(k, v)| (k.to_string(), v.to_value()))
                    .collect(),
            ),
        }
    }
}

/// Member `k` of object `o` (its last one).
pub(crate) fn get<'o, 'a>(o: &'o Obj<'a>, k: &str) -> Option<&'o V<'a>> {
    o.iter().rev().find(|(key, _)| key == k).map(|(_, v)| v)
}

/// Member `k` taken out of object `o`, none of that name left.
pub(crate) fn remove<'a>(o: &mut Obj<'a>, k: &str) -> Option<V<'a>> {
    let i = o.iter().rposition(|(key, _)| key == k)?;
    let (_, v) = o.remove(i);
    o.retain(|(key, _)| key != k);
    Some(v)
}

/// A line's text as a value: the errors are serde_json's own, as a
/// `Value` parse gives them.
pub(crate) fn parse(line: &[u8]) -> serde_json::Result<V<'_>> {
    // A line checked as UTF-8 at once (simdutf8) is parsed as a str:
    // serde_json then checks no string again (a line that is not UTF-8
    // keeps from_slice's error).
    match simdutf8::basic::from_utf8(line) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(line),
    }
}

impl<'de> Deserialize<'de> for V<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = V<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<V<'de>, E> {
        Ok(V::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<V<'de>, E> {
        // As serde_json's Number: a non-negative one is a u64.
        Ok(V::Num(match u64::try_from(n) {
            Ok(u) => N::U(u),
            Err(_) => N::I(n),
        }))
    }

    fn visit_u64<E>(self, n: u64) -> Result<V<'de>, E> {
        Ok(V::Num(N::U(n)))
    }

    fn visit_f64<E>(self, n: f64) -> Result<V<'de>, E> {
        // serde_json's Value keeps no NaN or infinity: null.
        Ok(if n.is_finite() {
            V::Num(N::F(n))
        } else {
            V::Null
        })
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<V<'de>, E> {
        Ok(V::Str(Cow::Borrowed(s)))
    }

    fn visit_str<E>(self, s: &str) -> Result<V<'de>, E> {
        Ok(V::Str(Cow::Owned(s.to_string())))
    }

    fn visit_string<E>(self, s: String) -> Result<V<'de>, E> {
        Ok(V::Str(Cow::Owned(s)))
    }

    fn visit_none<E>(self) -> Result<V<'de>, E> {
        Ok(V::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<V<'de>, D::Error> {
        Deserialize::deserialize(d)
    }

    fn visit_unit<E>(self) -> Result<V<'de>, E> {
        Ok(V::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<V<'de>, A::Error> {
        let mut v = Vec::new();
        while let Some(x) = seq.next_element()? {
            v.push(x);
        }
        Ok(V::Arr(v))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<V<'de>, A::Error> {
        // Most objects of a line have a few members: one allocation.
        let mut o = Vec::with_capacity(8);
        while let Some(Key(k)) = map.next_key()? {
            let v = map.next_value()?;
            o.push((k, v));
        }
        Ok(V::Obj(o))
    }
}

/// An object's key, borrowed where the source has no escape in it.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Borrowed(s)))
    }

    fn visit_str<E>(self, s: &str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(s.to_string())))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Written as the old path wrote serde_json's tree.
    fn old(text: &str) -> Option<String> {
        let v: serde_json::Value = serde_json::from_str(text).ok()?;
        let mut out = Vec::new();
        super::super::J::Val(v).write(&mut out);
        String::from_utf8(out).ok()
    }

    fn new(text: &str) -> Option<String> {
        let v = parse(text.as_bytes()).ok()?;
        let mut out = Vec::new();
        super::super::out::write_v(&v, &mut out);
        String::from_utf8(out).ok()
    }

    #[test]
    fn reads_and_writes_as_serde_jsons_tree() {
        for text in [
            r#"{"b":1.0,"a":"\u0007","a":[1,-1,-0,1e400,1.5e300,18446744073709551616,-9223372036854775809],"c":{"z":null,"y":true,"é":"\/\ud83d\ude00"}}"#,
            r#"{"k":"\ud800"}"#,
            r#"[1,2,]"#,
            r#"{"a":1}x"#,
            r#"{"a":"b
c"}"#,
            "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
            r#"{"b":2,"a":1,"b":3,"a":{"x":1,"x":2}}"#,
        ] {
            assert_eq!(old(text), new(text), "{text}");
            let a = serde_json::from_str::<serde_json::Value>(text).map_err(|e| e.to_string());
            let b = parse(text.as_bytes()).map(|v| v.to_value()).map_err(|e| e.to_string());
            assert_eq!(a, b, "{text}");
        }
    }

    #[test]
    fn a_repeated_key_is_its_last_value() {
        let mut v = parse(br#"{"a":1,"b":2,"a":"x"}"#).unwrap();
        assert_eq!(v.get("a").and_then(V::as_str), Some("x"));
        assert!(v.remove("a").is_some());
        assert!(v.get("a").is_none());
        assert!(matches!(v.get("b"), Some(V::Num(N::U(2)))));
    }
}
