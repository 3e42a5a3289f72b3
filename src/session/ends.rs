//! Reading only the two ends of a session file: its header, and its last
//! entry read backwards from the end, for tools that need no more before
//! they append to it (`pi-label`).

use super::lines::{for_each_line_read, max_line, too_long_words, LINE_TOO_LONG};
use super::load::Loader;
use super::{Header, ReadOptions};
use crate::entry::{Entries, Entry, EntryType, Id};
use crate::error::{Diagnostic, Error, Result};
use crate::io::read_at_most;
use crate::json::js::string::is_blank;
use crate::json::{js, Object};
use std::fs::File;

/// The header of a session file, read from its start without reading the
/// rest, and the warnings met on the way (lines skipped before it, a newer
/// version). None when the file has no header (a full read says why).
/// For tools that need only the header and the last entry (`pi-label`).
pub fn read_header(
    file: &File,
    name: &str,
    opts: ReadOptions,
) -> Result<Option<(Header, Vec<Diagnostic>)>> {
    let mut loader = Loader::new(name, opts);
    for_each_line_read(&mut &*file, name, |l| {
        loader.line(l)?;
        Ok(loader.header.is_none())
    })?;
    Ok(loader.header.take().map(|h| (h, loader.warnings)))
}

/// pi's leaf: the last entry of the file (the last line after byte `from`
/// that is a JSON object and not a second header), read from the end of
/// the file backwards, with its id. `from` is where the header line ends.
pub fn last_entry(file: &File, name: &str, from: u64) -> Result<Option<(Entry, Option<Id>)>> {
    let size = file.metadata().map_err(|e| Error::io(name, &e))?.len();
    let mut chunk: u64 = 64 << 10;
    loop {
        let start = size.saturating_sub(chunk).max(from);
        let mut buf = vec![0u8; (size - start) as usize];
        let got = read_at_most(file, &mut buf, start).map_err(|e| Error::io(name, &e))?;
        buf.truncate(got);
        let mut end = buf.len();
        loop {
            let line_start = match memchr::memrchr(b'\n', &buf[..end]) {
                Some(p) => p + 1,
                None if start == from => 0,
                // The line begins before this chunk: read more.
                None => break,
            };
            let bytes = &buf[line_start..end];
            if !is_blank(bytes) {
                // A truthy value that is not an object is an entry too.
                let obj = match Object::parse_line(bytes) {
                    Ok(Some(obj)) => Some(obj),
                    Ok(None) if js::truthy(crate::json::scan::trim_ws(bytes)) => Some(Object {
                        text: bytes,
                        range: 0..bytes.len(),
                        members: Vec::new(),
                    }),
                    _ => None,
                };
                if let Some(obj) = obj {
                    let Ok(len) = u32::try_from(bytes.len()) else {
                        return Err(Error::request(name, LINE_TOO_LONG));
                    };
                    let mut one = Entries::new();
                    let at = one
                        .push_object(&obj, 0, start + line_start as u64, len)
                        .map_err(|what| Error::request(name, what))?;
                    if one[at].ty() != EntryType::Session {
                        return Ok(Some((one[at].clone(), one.id(at))));
                    }
                }
            }
            if line_start == 0 {
                return Ok(None);
            }
            end = line_start - 1;
        }
        if size - start > max_line().saturating_add(1) {
            // The last line is longer than a line may be (the full read
            // says on which line).
            return Err(Error::request(
                name,
                format!("the last line is {}", too_long_words(max_line())),
            ));
        }
        chunk = chunk.saturating_mul(4);
    }
}
