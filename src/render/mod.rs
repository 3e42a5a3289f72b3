//! Printing a session's entries as rows, for every tool that prints many
//! (`pi-tree`, `pi-path --leaves`): where the lines come from (the session,
//! or its file opened again and read through windows: [`lines`]), the work
//! cut into ordered batches on two threads ([`batches`]), and the JSON
//! pieces rows are made of.

pub(crate) mod batches;
pub(crate) mod lines;

use crate::entry::Id;
use crate::json::js;

/// An id as its JSON value (a number stays a number; `null` for none).
pub(crate) fn write_id(buf: &mut Vec<u8>, id: Option<Id>) {
    match id {
        Some(Id::Hex8(n)) => {
            buf.push(b'"');
            buf.extend(
                (0..8)
                    .rev()
                    .map(|k| b"0123456789abcdef"[(n >> (4 * k)) as usize & 15]),
            );
            buf.push(b'"');
        }
        Some(id) => buf.extend_from_slice(id.to_json().as_bytes()),
        None => buf.extend_from_slice(b"null"),
    }
}

/// `JSON.stringify(s)`, a string of printable ASCII without `"` or `\\`
/// copied as it is.
pub(crate) fn write_str(buf: &mut Vec<u8>, s: &str) {
    if s.bytes()
        .all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\')
    {
        buf.push(b'"');
        buf.extend_from_slice(s.as_bytes());
        buf.push(b'"');
    } else {
        js::escape::write_str(buf, s);
    }
}
