//! Comparing what a tool wrote with what pi writes: the ids and times that
//! are fresh by nature blanked, an append that must be one whole line, bytes
//! compared without printing megabytes.
use std::collections::HashSet;

/// The string values of `"id":"..."` members in a JSONL text.
pub fn ids_in(text: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    for line in text.lines() {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(line) {
            if let Some(id) = v["id"].as_str() {
                out.insert(id.to_string());
            }
        }
    }
    out
}

/// `line` with the string values of `keys` (the first of each) as `"<key>"`.
fn blank(line: &str, v: &serde_json::Value, keys: &[&str]) -> String {
    let mut out = line.to_string();
    for key in keys {
        if let Some(val) = v[key].as_str() {
            let from = format!("\"{key}\":{}", serde_json::to_string(val).unwrap());
            out = out.replacen(&from, &format!("\"{key}\":\"<{key}>\""), 1);
        }
    }
    out
}

/// Replace what is fresh by nature in a session a tool wrote: the header's
/// id, timestamp and parentSession, and every entry id not in `known` (with
/// the references to it), numbered in order of appearance.
pub fn normalize_new_session(text: &str, known: &HashSet<String>) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut fresh: Vec<String> = Vec::new();
    for (n, line) in lines.iter_mut().enumerate() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if n == 0 && v["type"] == "session" {
            *line = blank(line, &v, &["id", "timestamp", "parentSession"]);
            continue;
        }
        if let Some(id) = v["id"].as_str() {
            if !known.contains(id) && !fresh.iter().any(|f| f == id) {
                fresh.push(id.to_string());
            }
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    for (k, id) in fresh.iter().enumerate() {
        out = out.replace(&format!("\"{id}\""), &format!("\"<new-{k}>\""));
    }
    out
}

/// An entry line with its `id` and `timestamp` values blanked.
pub fn blank_id_and_time(line: &str) -> String {
    match serde_json::from_str(line) {
        Ok(v) => blank(line, &v, &["id", "timestamp"]),
        Err(_) => line.to_string(),
    }
}

/// What was appended to `before` to make `after`: nothing (`None`), or one
/// whole JSON line (on a line of its own when `before` lacked its final
/// newline); anything else is an error that says what is wrong.
pub fn appended_line(before: &[u8], after: &[u8]) -> Result<Option<serde_json::Value>, String> {
    let Some(rest) = after.strip_prefix(before) else {
        return Err("the old bytes were not kept".into());
    };
    if rest.is_empty() {
        return Ok(None);
    }
    let rest = match before.is_empty() || before.ends_with(b"\n") {
        true => rest,
        false => rest
            .strip_prefix(b"\n")
            .ok_or("appended without starting a fresh line")?,
    };
    let one_line = rest.ends_with(b"\n") && rest.iter().filter(|&&b| b == b'\n').count() == 1;
    match serde_json::from_slice(rest) {
        Ok(v) if one_line => Ok(Some(v)),
        _ => Err(format!(
            "appended something else than one whole JSON line: {:?}",
            String::from_utf8_lossy(&rest[..rest.len().min(300)])
        )),
    }
}

/// The JSON value of each line of `text`.
#[track_caller]
pub fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// Where `a` and `b` first differ (the length of their common start).
pub fn first_diff(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// Assert two byte strings are equal without printing megabytes.
#[track_caller]
pub fn assert_same(got: &[u8], want: &[u8], what: &str) {
    if got != want {
        let at = first_diff(got, want);
        panic!(
            "{what}: {} bytes, want {}; first difference at byte {at}: {:?} vs {:?}",
            got.len(),
            want.len(),
            String::from_utf8_lossy(&got[at..got.len().min(at + 80)]),
            String::from_utf8_lossy(&want[at..want.len().min(at + 80)])
        );
    }
}
