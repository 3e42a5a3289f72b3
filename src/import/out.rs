//! The JSON an import writes: objects keep the order their members are
//! given in (pi's own order), as `JSON.stringify` writes them.

use crate::json::js;

/// A JSON value to write.
#[derive(Clone)]
pub(crate) enum J {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(&'static str, J)>),
    /// A value taken from the source as it is (its keys sorted).
    Val(serde_json::Value),
}

impl J {
    pub(crate) fn str(s: impl Into<String>) -> J {
        J::Str(s.into())
    }

    /// Append this value's JSON text to `out`.
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        match self {
            J::Null => out.extend_from_slice(b"null"),
            J::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
            J::Num(n) => js::write_number(out, *n),
            J::Str(s) => js::write_str(out, s),
            J::Arr(items) => {
                out.push(b'[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    v.write(out);
                }
                out.push(b']');
            }
            J::Obj(members) => {
                out.push(b'{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    js::write_str(out, k);
                    out.push(b':');
                    v.write(out);
                }
                out.push(b'}');
            }
            J::Val(v) => write_value(v, out),
        }
    }
}

/// A source value written as `JSON.stringify` writes it (numbers as
/// JavaScript prints them: `1.0` is `1`).
fn write_value(v: &serde_json::Value, out: &mut Vec<u8>) {
    use serde_json::Value;
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() => js::write_number(out, f),
            _ => out.extend_from_slice(n.to_string().as_bytes()),
        },
        Value::String(s) => js::write_str(out, s),
        Value::Array(items) => {
            out.push(b'[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(x, out);
            }
            out.push(b']');
        }
        Value::Object(m) => {
            out.push(b'{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                js::write_str(out, k);
                out.push(b':');
                write_value(x, out);
            }
            out.push(b'}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::J;

    #[test]
    fn members_keep_their_order_and_numbers_are_javascripts() {
        let v: serde_json::Value = serde_json::from_str(r#"{"b":1.0,"a":"\u0007"}"#).unwrap();
        let j = J::Obj(vec![("z", J::Num(2.0)), ("y", J::Val(v)), ("x", J::Null)]);
        let mut out = Vec::new();
        j.write(&mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"z":2,"y":{"a":"\u0007","b":1},"x":null}"#
        );
    }
}
