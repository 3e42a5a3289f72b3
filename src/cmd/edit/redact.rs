//! `pi-edit --redact`: the edits that replace every match of a pattern in
//! what the model sees and in the whole-branch transcripts, one per
//! editable entry of the active branch.

use super::{
    checked_on_branch, describe, editable_role, json_string, not_on_branch, place, Plan, Planned,
};
use crate::cli::Log;
use crate::context::{self, Item};
use crate::entry::EntryType;
use crate::error::{Diagnostic, Error, Result};
use crate::json::{js, scan, Object};
use crate::path::path_to;
use crate::refs;
use crate::session::Session;

/// How deep tool-call arguments are followed; deeper values are only
/// searched as JSON text.
const MAX_ARGS_DEPTH: usize = 256;

/// How many entries on other branches a warning names.
const OTHER_BRANCHES_NAMED: usize = 5;

/// The edits `--redact` makes: one per editable entry of the branch whose
/// content (as the model or the whole-branch transcript sees it now)
/// matches. Each entry that still sends a match where no edit can change
/// it is said (even with `-q`: the secret is still sent) and counted; so is
/// each entry before the context (a compaction summarised it) that still
/// shows one in the whole-branch transcripts; matches on other branches are
/// said. Linear in the branch: it is walked once, not once per edit.
pub(super) fn redact_plan(s: &Session, re: &regex::Regex, with: &str, log: Log) -> Result<Plan> {
    let mut plan = Plan {
        edits: Vec::new(),
        still_sent: 0,
        still_shown: 0,
    };
    let Some(leaf) = s.index.leaf else {
        return Ok(plan);
    };
    let ctx = context::build(s, Some(leaf))?;
    let path = path_to(s, leaf)?;
    let r = Redaction { s, leaf, re, with };
    // The entries the context no longer holds come first on the branch.
    before_context(&r, &path, &ctx.items, &mut plan, log)?;
    for &item in &ctx.items {
        let Some(msg) = context::message_json(s, item)? else {
            continue;
        };
        // What pi sends of the message: nothing that matches, nothing to do.
        let Some(found) = sent_matches(&msg, re) else {
            continue;
        };
        if let Some((left, why)) = r.entry(item, &msg, found, &mut plan.edits)? {
            plan.still_sent += 1;
            still_sent(s, item.entry(), &left, &field(s, item, &left), &why, log);
        }
    }
    other_branches(s, &path, re, log)?;
    Ok(plan)
}

/// The pattern, what it becomes, and the session and leaf it edits.
struct Redaction<'a> {
    s: &'a Session,
    leaf: usize,
    re: &'a regex::Regex,
    with: &'a str,
}

impl Redaction<'_> {
    /// Plan the edit of `item`'s message `msg`, which holds `found`: what
    /// is left of the matches once it is in force, and why no edit can
    /// change that, or None when nothing is left.
    fn entry(
        &self,
        item: Item,
        msg: &[u8],
        found: Found,
        edits: &mut Vec<Planned>,
    ) -> Result<Option<(Found, String)>> {
        let (s, i) = (self.s, item.entry());
        let editable =
            matches!(item, Item::Entry(_) | Item::Edited(..)) && editable_role(s, i)?.is_some();
        let content = Object::at(msg, 0..msg.len())
            .map_err(|e| Error::data(&s.name, Some(s.entries[i].line()), format!("{e}")))?
            .get("content");
        let (Some(content), Some(id), true) = (content, s.entries.id(i), editable) else {
            let why = if editable && s.entries.id(i).is_none() {
                "an entry without an id cannot be edited".to_string()
            } else if editable {
                "the message has no content to edit".to_string()
            } else {
                format!(
                    "a {} cannot be edited (only custom_message entries and user, assistant and toolResult messages can)",
                    describe(s, i)
                )
            };
            return Ok(Some((found, why)));
        };
        let mut r = Redactor {
            re: self.re,
            with: self.with,
            matches: 0,
        };
        let new_content = r.content(msg, content);
        if r.matches == 0 {
            return Ok(Some((
                found,
                "a context edit changes only the content".into(),
            )));
        }
        if refs::branch_is_empty(s, self.leaf) {
            // pi's getBranch() is empty when the leaf's id is falsy: pi
            // refuses every edit.
            return Err(not_on_branch(s, i, self.leaf)?);
        }
        // JSON.stringify's order (a redacted key may now look like an
        // array index).
        let new_content = js::canonical_vec(&new_content, 0..new_content.len()).map_err(|e| {
            Error::data(
                &s.name,
                Some(s.entries[i].line()),
                format!("the redacted content: {e}"),
            )
        })?;
        let replacement = checked_on_branch(s, i, Some(&new_content))?;
        edits.push(Planned {
            target: id,
            replacement,
            matches: Some(r.matches),
        });
        // What is left of the message once the edit is in force.
        let left = sent_matches(
            &js::with_member(msg, "content", Some(&new_content)),
            self.re,
        );
        Ok(left.map(|l| (l, "a context edit changes only the content".into())))
    }
}

/// The entries of the branch before the context (what the last compaction
/// summarised, older compactions, filtered-out system messages): pi no
/// longer sends them, but the whole-branch transcripts (`pi-convert --to
/// markdown|text|html`) show them as the edits in force on the branch
/// leave them. pi takes a context edit of any entry on the active branch,
/// so the same edits hide a match there; pi's context, which does not hold
/// the target, means what it meant. What no edit can change is said and
/// counted (`still_shown`).
fn before_context(
    r: &Redaction<'_>,
    path: &[usize],
    items: &[Item],
    plan: &mut Plan,
    log: Log,
) -> Result<()> {
    let s = r.s;
    let mut in_context = vec![false; s.entries.len()];
    for item in items {
        in_context[item.entry()] = true;
    }
    let edits = context::latest_edits(s, path)?;
    for &i in path.iter().filter(|&&i| !in_context[i]) {
        let edit = match edits.is_empty() {
            true => None,
            false => s
                .entries
                .id(i)
                .and_then(|id| edits.get(&id.to_string()).copied()),
        };
        // An entry an edit omits shows no text (as the transcripts do).
        if let Some(e) = edit {
            let line = s.line(e)?;
            if s.object(&line, s.entries[e].line())?.raw("replacement") == Some(b"null") {
                continue;
            }
        }
        let item = match (s.entries[i].ty(), edit) {
            (EntryType::Compaction, _) => Item::CompactionSummary(i),
            (EntryType::Message | EntryType::CustomMessage | EntryType::BranchSummary, None) => {
                Item::Entry(i)
            }
            (EntryType::Message | EntryType::CustomMessage | EntryType::BranchSummary, Some(e)) => {
                Item::Edited(i, e)
            }
            _ => continue,
        };
        let Some(msg) = context::message_json(s, item)? else {
            continue;
        };
        let Some(found) = sent_matches(&msg, r.re) else {
            continue;
        };
        if let Some((left, why)) = r.entry(item, &msg, found, &mut plan.edits)? {
            plan.still_shown += 1;
            still_shown(s, i, &left, &field(s, item, &left), &why, log);
        }
    }
    Ok(())
}

/// The field `f` names, from the entry's top.
fn field(s: &Session, item: Item, f: &Found) -> String {
    format!("{}{}", prefix(s, item), f.field)
}

/// Where the fields of an item's message are in its entry.
fn prefix(s: &Session, item: Item) -> &'static str {
    match item {
        Item::CompactionSystem(_) => "systemMessage.",
        _ if s.entries[item.entry()].ty() == EntryType::Message => "message.",
        _ => "",
    }
}

/// Say that entry `i` still sends a match (always: `-q` does not silence
/// a secret that is still sent).
fn still_sent(s: &Session, i: usize, found: &Found, field: &str, why: &str, log: Log) {
    log.loud().warn(&Diagnostic::plain(format!(
        "{}: {} still sends {} in {field}{}, which pi-edit cannot change: {why}",
        place(s, i),
        who(s, i),
        matches_word(found.count),
        more_fields(found)
    )));
}

/// Say that entry `i`, before the context, still shows a match in the
/// whole-branch transcripts (always, as a match still sent is: people
/// share transcripts).
fn still_shown(s: &Session, i: usize, found: &Found, field: &str, why: &str, log: Log) {
    log.loud().warn(&Diagnostic::plain(format!(
        "{}: {} still shows {} in {field}{} in the whole-branch transcript (not sent), which pi-edit cannot change: {why}",
        place(s, i),
        who(s, i),
        matches_word(found.count),
        more_fields(found)
    )));
}

/// "entry ID", or what an entry without one is.
fn who(s: &Session, i: usize) -> String {
    match s.entries.id(i) {
        Some(id) => format!("entry {id}"),
        None => "an entry without an id".to_string(),
    }
}

/// " and N more fields" after the first field with a match.
fn more_fields(found: &Found) -> String {
    match found.fields {
        1 => String::new(),
        2 => " and 1 more field".to_string(),
        n => format!(" and {} more fields", n - 1),
    }
}

/// "1 match", "3 matches".
fn matches_word(n: usize) -> String {
    if n == 1 {
        "1 match".to_string()
    } else {
        format!("{n} matches")
    }
}

/// Matches in entries that are not on the active path: not sent now, but
/// sent again if pi goes on from there, and pi takes no edit of them.
fn other_branches(s: &Session, path: &[usize], re: &regex::Regex, log: Log) -> Result<()> {
    let mut on_path = vec![false; s.entries.len()];
    for &i in path {
        on_path[i] = true;
    }
    let (mut found, mut total) = (Vec::new(), 0);
    for (i, _) in on_path.iter().enumerate().filter(|(_, on)| !**on) {
        let items = match s.entries[i].ty() {
            EntryType::Compaction => vec![Item::CompactionSystem(i), Item::CompactionSummary(i)],
            EntryType::Message | EntryType::CustomMessage | EntryType::BranchSummary => {
                vec![Item::Entry(i)]
            }
            _ => continue,
        };
        let n: usize = items
            .into_iter()
            .filter_map(|item| context::message_json(s, item).ok().flatten())
            .filter_map(|msg| sent_matches(&msg, re))
            .map(|f| f.count)
            .sum();
        if n > 0 {
            found.push((i, n));
            total += n;
        }
    }
    if found.is_empty() {
        return Ok(());
    }
    let name = crate::error::escape_name(&s.name);
    log.warn(&Diagnostic::plain(format!(
        "{name}: {} in {} on other branches, not on the active path: not sent now, sent again if pi goes on from there, and pi edits only the active path",
        matches_word(total),
        if found.len() == 1 { "1 entry".to_string() } else { format!("{} entries", found.len()) }
    )));
    for &(i, n) in found.iter().take(OTHER_BRANCHES_NAMED) {
        let who = s
            .entries
            .id(i)
            .map_or("an entry without an id".to_string(), |id| {
                format!("entry {id}")
            });
        log.warn(&Diagnostic::plain(format!(
            "{}: {who}: {} on another branch",
            place(s, i),
            matches_word(n)
        )));
    }
    if found.len() > OTHER_BRANCHES_NAMED {
        log.warn(&Diagnostic::plain(format!(
            "{name}: and {} more entries on other branches",
            found.len() - OTHER_BRANCHES_NAMED
        )));
    }
    Ok(())
}

/// Matches in what pi sends of a message: how many, the first field that
/// holds one (`content[1].text`, `sections.tools`), and in how many fields.
struct Found {
    count: usize,
    field: String,
    fields: usize,
}

/// The matches of `re` in what pi sends of the context message `msg`
/// (its `convertToLlm` form: a system, user, assistant or toolResult
/// message whole but its role and timestamp; a bashExecution's command,
/// output, exit code and output path; a custom message's content; a
/// summary's text). Keys are the message's structure: not counted.
fn sent_matches(msg: &[u8], re: &regex::Regex) -> Option<Found> {
    let obj = Object::at(msg, 0..msg.len()).ok()?;
    let role = obj.str("role")?;
    let truthy = |k: &str| obj.raw(k).is_some_and(js::truthy);
    let sent = |key: &str| match role.as_ref() {
        "system" | "user" | "assistant" | "toolResult" => !matches!(key, "role" | "timestamp"),
        "bashExecution" if !truthy("excludeFromContext") => match key {
            "command" => true,
            "output" => truthy("output"),
            "exitCode" => !truthy("cancelled"),
            "fullOutputPath" => truthy("truncated"),
            _ => false,
        },
        "custom" => key == "content",
        "branchSummary" | "compactionSummary" => key == "summary",
        _ => false,
    };
    let mut found: Option<Found> = None;
    for m in scan::members(msg, 0..msg.len()).ok()? {
        let mut path = js::decode_string(msg, m.key).into_owned();
        if !sent(&path) {
            continue;
        }
        walk_strings(msg, m.value, &mut path, 0, &mut |at, text| {
            let n = re.find_iter(text).count();
            if n > 0 {
                let f = found.get_or_insert_with(|| Found {
                    count: 0,
                    field: at.to_string(),
                    fields: 0,
                });
                f.count += n;
                f.fields += 1;
            }
        });
    }
    found
}

/// Call `f` with each string and number value in the JSON value at
/// `text[range]` and where it is (`path`, extended as it goes down).
fn walk_strings(
    text: &[u8],
    range: std::ops::Range<usize>,
    path: &mut String,
    depth: usize,
    f: &mut dyn FnMut(&str, &str),
) {
    if depth > js::MAX_DEPTH {
        return;
    }
    let len = path.len();
    match scan::kind_of(&text[range.clone()]) {
        Some(scan::Kind::String) => f(path, &js::decode_string(text, range)),
        Some(scan::Kind::Number) => f(path, &String::from_utf8_lossy(&text[range])),
        Some(scan::Kind::Array) => {
            for (k, e) in scan::elements(text, range)
                .unwrap_or_default()
                .into_iter()
                .enumerate()
            {
                path.push_str(&format!("[{k}]"));
                walk_strings(text, e, path, depth + 1, f);
                path.truncate(len);
            }
        }
        Some(scan::Kind::Object) => {
            for m in scan::members(text, range).unwrap_or_default() {
                let key = js::decode_string(text, m.key.clone());
                if !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    path.push('.');
                    path.push_str(&key);
                } else {
                    // `sections["## Project"]`: the key as JSON text.
                    path.push('[');
                    path.push_str(&String::from_utf8_lossy(&json_string(&key)));
                    path.push(']');
                }
                walk_strings(text, m.value, path, depth + 1, f);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

struct Redactor<'a> {
    re: &'a regex::Regex,
    with: &'a str,
    matches: usize,
}

impl Redactor<'_> {
    /// A string with every match replaced, or None when nothing matched.
    fn text(&mut self, s: &str) -> Option<String> {
        let n = self.re.find_iter(s).count();
        if n == 0 {
            return None;
        }
        self.matches += n;
        Some(
            self.re
                .replace_all(s, regex::NoExpand(self.with))
                .into_owned(),
        )
    }

    /// The JSON string at `text[range]`, redacted (its own bytes when
    /// nothing matched). A lone surrogate (`\udXXX`, which no char holds)
    /// outside the matches is kept as it was.
    fn string(&mut self, text: &[u8], range: std::ops::Range<usize>) -> (Vec<u8>, bool) {
        if lone_surrogate_possible(&text[range.clone()]) {
            return self.units(text, range);
        }
        match self.text(&js::decode_string(text, range.clone())) {
            Some(t) => (json_string(&t), true),
            None => (text[range].to_vec(), false),
        }
    }

    /// [`Redactor::string`] on the string's UTF-16 code units: the pattern
    /// reads lone surrogates as U+FFFD (as before), and the text between
    /// matches is copied unit by unit, so a lone surrogate stays one.
    fn units(&mut self, text: &[u8], range: std::ops::Range<usize>) -> (Vec<u8>, bool) {
        let units = js::decode_utf16(text, range.clone());
        // The text the pattern reads, and where each of its chars starts
        // in it (bytes) and in `units`.
        let (mut read, mut starts) = (String::with_capacity(units.len()), Vec::new());
        let mut at = 0;
        for c in char::decode_utf16(units.iter().copied()) {
            starts.push((read.len(), at));
            at += c.as_ref().map_or(1, |c| c.len_utf16());
            read.push(c.unwrap_or('\u{FFFD}'));
        }
        starts.push((read.len(), units.len()));
        let unit = |byte: usize| match starts.binary_search_by_key(&byte, |p| p.0) {
            Ok(k) => starts[k].1,
            Err(_) => unreachable!("a match starts and ends between chars"),
        };
        let (mut out, mut last, mut n) = (Vec::with_capacity(units.len()), 0, 0);
        for m in self.re.find_iter(&read) {
            out.extend_from_slice(&units[last..unit(m.start())]);
            out.extend(self.with.encode_utf16());
            last = unit(m.end());
            n += 1;
        }
        if n == 0 {
            return (text[range].to_vec(), false);
        }
        self.matches += n;
        out.extend_from_slice(&units[last..]);
        let mut json = Vec::with_capacity(out.len() + 2);
        js::write_utf16(&mut json, &out);
        (json, true)
    }

    /// The content of a message: a string, or blocks (text, thinking and
    /// tool calls are redacted; other blocks are kept as they are).
    fn content(&mut self, text: &[u8], range: std::ops::Range<usize>) -> Vec<u8> {
        match scan::kind_of(&text[range.clone()]) {
            Some(scan::Kind::String) => self.string(text, range).0,
            Some(scan::Kind::Array) => array(text, range, |e| self.block(text, e)),
            _ => text[range].to_vec(),
        }
    }

    fn block(&mut self, text: &[u8], range: std::ops::Range<usize>) -> Vec<u8> {
        let Ok(obj) = Object::at(text, range.clone()) else {
            return text[range].to_vec();
        };
        let ty = obj.str("type").map(|t| t.into_owned());
        let field = match ty.as_deref() {
            Some("text") => "text",
            Some("thinking") => "thinking",
            Some("toolCall") => "arguments",
            _ => return text[range].to_vec(),
        };
        let Some(value) = obj.get(field) else {
            return text[range].to_vec();
        };
        let block = &text[range.clone()];
        let (new, changed) = if field == "arguments" {
            let before = self.matches;
            let v = self.value(text, value, 0);
            let changed = self.matches > before;
            (v, changed)
        } else if text[value.start] == b'"' {
            self.string(text, value)
        } else {
            return block.to_vec();
        };
        if !changed {
            return block.to_vec();
        }
        let mut out = js::with_member(block, field, Some(&new));
        if field == "thinking" {
            // The signature signs the original text; a provider that checks
            // it would refuse the whole request.
            out = js::with_member(&out, "thinkingSignature", None);
        }
        out
    }

    /// Any JSON value (tool-call arguments): strings and keys redacted, a
    /// number that matches becomes the redacted string of its text.
    fn value(&mut self, text: &[u8], range: std::ops::Range<usize>, depth: usize) -> Vec<u8> {
        if depth > MAX_ARGS_DEPTH {
            return text[range].to_vec();
        }
        match scan::kind_of(&text[range.clone()]) {
            Some(scan::Kind::String) => self.string(text, range).0,
            Some(scan::Kind::Number) => {
                let t = String::from_utf8_lossy(&text[range.clone()]).into_owned();
                match self.text(&t) {
                    Some(r) => json_string(&r),
                    None => text[range].to_vec(),
                }
            }
            Some(scan::Kind::Array) => array(text, range, |e| self.value(text, e, depth + 1)),
            Some(scan::Kind::Object) => {
                let members = scan::members(text, range).unwrap_or_default();
                let keys: Vec<(Vec<u8>, bool)> = members
                    .iter()
                    .map(|m| self.string(text, m.key.clone()))
                    .collect();
                let keys = distinct_keys(keys);
                let mut out = vec![b'{'];
                for (n, (m, k)) in members.into_iter().zip(keys).enumerate() {
                    if n > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(&k);
                    out.push(b':');
                    out.extend_from_slice(&self.value(text, m.value, depth + 1));
                }
                out.push(b'}');
                out
            }
            _ => text[range].to_vec(),
        }
    }
}

/// The JSON array at `range` with each element as `f` makes it.
fn array(
    text: &[u8],
    range: std::ops::Range<usize>,
    mut f: impl FnMut(std::ops::Range<usize>) -> Vec<u8>,
) -> Vec<u8> {
    let mut out = vec![b'['];
    for (k, e) in scan::elements(text, range)
        .unwrap_or_default()
        .into_iter()
        .enumerate()
    {
        if k > 0 {
            out.push(b',');
        }
        out.extend_from_slice(&f(e));
    }
    out.push(b']');
    out
}

/// The keys of an object (JSON text, and whether redaction changed it),
/// made distinct: a redacted key equal to another key becomes
/// `KEY (2)`, `KEY (3)`, ... (the first free), so that both values stay
/// (JSON keeps only the last of equal keys). Keys left as they were keep
/// their names.
fn distinct_keys(keys: Vec<(Vec<u8>, bool)>) -> Vec<Vec<u8>> {
    let mut used: std::collections::HashSet<Vec<u8>> = keys
        .iter()
        .filter(|(_, changed)| !changed)
        .map(|(k, _)| k.clone())
        .collect();
    keys.into_iter()
        .map(|(k, changed)| {
            if !changed {
                return k;
            }
            let mut key = k.clone();
            let mut n = 1;
            while used.contains(&key) {
                n += 1;
                // Inside the quotes: " (N)" needs no escape.
                key = [&k[..k.len() - 1], format!(" ({n})\"").as_bytes()].concat();
            }
            used.insert(key.clone());
            key
        })
        .collect()
}

/// Whether the JSON string `raw` (quotes included) may hold a lone
/// surrogate: a `\u` escape of a surrogate (`\uD800` to `\uDFFF`).
fn lone_surrogate_possible(raw: &[u8]) -> bool {
    memchr::memmem::find_iter(raw, b"\\u").any(|k| {
        matches!(raw.get(k + 2), Some(b'd' | b'D'))
            && matches!(
                raw.get(k + 3),
                Some(b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F')
            )
    })
}
