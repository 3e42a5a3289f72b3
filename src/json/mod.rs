//! JSON without a value tree: validate a line, find the members a command
//! needs, and write values back exactly as JavaScript would.

pub mod js;
pub mod scan;

use scan::Member;
pub use scan::SyntaxError;
use std::borrow::Cow;
use std::ops::Range;

/// [`scan::validate`] and, when the value is an object, its members in the
/// same pass (one scan instead of two); errors are exactly `validate`'s.
/// `Ok(None)` for valid JSON that is not an object.
///
/// A line without white space between its tokens (every line pi writes)
/// takes [`js::check::Checker`]'s quick read (64 bytes a step, strings skipped
/// by their quote bits); any other, or one it does not take, the scanner. It
/// lives here, above both, so the scanner needs nothing from the checker.
#[allow(clippy::type_complexity)]
pub fn validate_object(text: &[u8]) -> Result<Option<(Range<usize>, Vec<Member>)>, SyntaxError> {
    if let Some(found) = quick_members(text, 0) {
        return Ok(Some((0..text.len(), found)));
    }
    scan::validate_object_scanned(text)
}

/// The members of the object whose text is `text[range]` (which must be a
/// valid object, e.g. from [`scan::validate`]), in order, duplicates
/// included: the quick read's, else the scanner's.
pub fn members(text: &[u8], range: Range<usize>) -> Result<Vec<Member>, SyntaxError> {
    if let Some(found) = text
        .get(range.clone())
        .and_then(|v| quick_members(v, range.start))
    {
        return Ok(found);
    }
    scan::members_scanned(text, range)
}

thread_local! {
    /// The quick check's scratch space, one per thread.
    static CHECKER: std::cell::RefCell<js::check::Checker> = Default::default();
}

/// The members of the object `v` by [`js::check::Checker::valid_object`],
/// moved by `shift`; `None` when it does not take `v` (then the scanner
/// decides).
fn quick_members(v: &[u8], shift: usize) -> Option<Vec<Member>> {
    if v.first() != Some(&b'{') {
        return None;
    }
    CHECKER
        .try_with(|c| {
            let mut c = c.try_borrow_mut().ok()?;
            let found = c.valid_object(v).map(|ms| {
                ms.iter()
                    .map(|m| Member {
                        key: m.key.start + shift..m.key.end + shift,
                        value: m.value.start + shift..m.value.end + shift,
                    })
                    .collect()
            });
            if v.len() > 1 << 20 {
                // Let a huge line's scratch space go.
                *c = js::check::Checker::new();
            }
            found
        })
        .ok()
        .flatten()
}

/// The members of the object at `t[r]` from the marks of the quick check
/// that took `t` (compact, valid): each member's end found in the marks,
/// so the object's text is not read again.
fn marked_members(t: &[u8], r: Range<usize>, marks: &js::check::Marks<'_>) -> Vec<Member> {
    let mut out = Vec::new();
    let mut pos = r.start + 1;
    while t.get(pos) == Some(&b'"') {
        let key_end = marks.string_end(pos);
        let value = key_end + 1;
        let value_end = marks.value_end(t, value);
        out.push(Member {
            key: pos..key_end,
            value: value..value_end,
        });
        if t.get(value_end) != Some(&b',') {
            break;
        }
        pos = value_end + 1;
    }
    out
}

/// A view of one JSON object: its text and the spans of its members.
#[derive(Debug, Clone)]
pub struct Object<'a> {
    pub text: &'a [u8],
    pub range: Range<usize>,
    pub members: Vec<scan::Member>,
}

impl<'a> Object<'a> {
    /// Validate `text` as one JSON value and view it as an object.
    /// `Ok(None)` when it is valid JSON but not an object.
    pub fn parse_line(text: &'a [u8]) -> Result<Option<Self>, SyntaxError> {
        Ok(validate_object(text)?.map(|(range, members)| Object {
            text,
            range,
            members,
        }))
    }

    /// [`Object::parse_line`] and the object that is `key`'s value in it
    /// (None when it is absent or not an object), in one check of the
    /// line: for a compact line (every line pi writes) the member's members
    /// come from the check's marks, not from reading it again.
    #[allow(clippy::type_complexity)]
    pub fn parse_line_and(
        text: &'a [u8],
        key: &str,
    ) -> Result<Option<(Self, Option<Self>)>, SyntaxError> {
        let quick = (text.first() == Some(&b'{'))
            .then(|| {
                CHECKER
                    .try_with(|c| {
                        let mut c = c.try_borrow_mut().ok()?;
                        let members = c.valid_object(text)?.to_vec();
                        let sub = member_value(text, &members, key)
                            .filter(|r| text[r.start] == b'{')
                            .map(|r| (r.clone(), marked_members(text, r, &c.marks())));
                        if text.len() > 1 << 20 {
                            // Let a huge line's scratch space go.
                            *c = js::check::Checker::new();
                        }
                        Some((members, sub))
                    })
                    .ok()
                    .flatten()
            })
            .flatten();
        if let Some((members, sub)) = quick {
            let sub = sub.map(|(range, members)| Object {
                text,
                range,
                members,
            });
            let obj = Object {
                text,
                range: 0..text.len(),
                members,
            };
            return Ok(Some((obj, sub)));
        }
        Ok(Object::parse_line(text)?.map(|o| {
            let sub = o.object(key);
            (o, sub)
        }))
    }

    /// View the (valid) object at `text[range]`.
    pub fn at(text: &'a [u8], range: Range<usize>) -> Result<Self, SyntaxError> {
        let members = members(text, range.clone())?;
        Ok(Object {
            text,
            range,
            members,
        })
    }

    /// The value span of `key`; the last one wins, as in `JSON.parse`.
    pub fn get(&self, key: &str) -> Option<Range<usize>> {
        member_value(self.text, &self.members, key)
    }

    /// The raw bytes of `key`'s value.
    pub fn raw(&self, key: &str) -> Option<&'a [u8]> {
        self.get(key).map(|r| &self.text[r])
    }

    /// `key`'s value when it is a string, decoded.
    pub fn str(&self, key: &str) -> Option<Cow<'a, str>> {
        let r = self.get(key)?;
        (self.text[r.start] == b'"').then(|| js::escape::decode_string(self.text, r))
    }

    /// `key`'s value when it is an object.
    pub fn object(&self, key: &str) -> Option<Object<'a>> {
        let r = self.get(key)?;
        if self.text[r.start] != b'{' {
            return None;
        }
        Object::at(self.text, r).ok()
    }

    /// `JSON.stringify` of `key`'s value, or None when the key is absent
    /// (JavaScript's `undefined`).
    pub fn canonical(&self, key: &str) -> Result<Option<Vec<u8>>, SyntaxError> {
        match self.get(key) {
            None => Ok(None),
            Some(r) => js::stringify::canonical_vec(self.text, r).map(Some),
        }
    }
}

/// The value span of `key` among the `members` of an object in `text`;
/// the last one wins, as in `JSON.parse` ([`Object::get`], for members
/// found without an [`Object`]).
#[inline]
pub fn member_value(text: &[u8], members: &[scan::Member], key: &str) -> Option<Range<usize>> {
    members
        .iter()
        .rev()
        .find(|m| key_is(text, &m.key, key))
        .map(|m| m.value.clone())
}

/// Whether the key span (quotes included) decodes to `want`.
#[inline(always)]
pub fn key_is(text: &[u8], key: &Range<usize>, want: &str) -> bool {
    let raw = &text[key.start + 1..key.end - 1];
    match raw.len().cmp(&want.len()) {
        std::cmp::Ordering::Equal => raw == want.as_bytes(),
        // Escapes only make a key longer than what it decodes to.
        std::cmp::Ordering::Less => false,
        std::cmp::Ordering::Greater => {
            raw.contains(&b'\\') && js::escape::decode_string(text, key.clone()) == want
        }
    }
}

/// Builds a JSON object the way `JSON.stringify` writes one: members in the
/// order they are added, `None` values (JavaScript's `undefined`) left out.
pub struct ObjectWriter {
    buf: Vec<u8>,
    any: bool,
}

impl Default for ObjectWriter {
    /// An empty object, as [`ObjectWriter::new`] (a derived one would lack
    /// its opening `{`).
    fn default() -> Self {
        ObjectWriter::new()
    }
}

impl ObjectWriter {
    pub fn new() -> Self {
        ObjectWriter {
            buf: vec![b'{'],
            any: false,
        }
    }

    fn key(&mut self, key: &str) {
        if self.any {
            self.buf.push(b',');
        }
        self.any = true;
        js::escape::write_str(&mut self.buf, key);
        self.buf.push(b':');
    }

    /// Add a member whose value is already JSON text (skipped when None).
    pub fn raw(&mut self, key: &str, value: Option<&[u8]>) -> &mut Self {
        if let Some(v) = value {
            self.key(key);
            self.buf.extend_from_slice(v);
        }
        self
    }

    pub fn str(&mut self, key: &str, value: &str) -> &mut Self {
        self.key(key);
        js::escape::write_str(&mut self.buf, value);
        self
    }

    pub fn number(&mut self, key: &str, n: f64) -> &mut Self {
        self.key(key);
        js::number::write_number(&mut self.buf, n);
        self
    }

    pub fn finish(mut self) -> Vec<u8> {
        self.buf.push(b'}');
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::ObjectWriter;

    #[test]
    fn a_default_writer_writes_a_whole_object() {
        assert_eq!(ObjectWriter::default().finish(), b"{}");
        let mut w = ObjectWriter::default();
        w.str("a", "x").raw("b", None).raw("c", Some(b"1"));
        assert_eq!(w.finish(), br#"{"a":"x","c":1}"#);
    }
}
