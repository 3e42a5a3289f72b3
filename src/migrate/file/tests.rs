//! The one-pass migration ([`migrate_bytes`]) checked against the
//! migration built on a loaded [`Session`], on hand-made cases and every
//! conformance session.

use super::*;
use crate::session::{ReadOptions, Session};
use std::path::Path;

/// The migration built on a loaded [`Session`] (each line parsed again
/// and migrated as `Session::line` does): what [`migrate_bytes`] must
/// give, refusals included.
fn reference(name: &str, bytes: &[u8], opts: MigrateOptions) -> Result<Outcome> {
    // A byte order mark before a JSON first line: the session loader
    // refuses it (pi 1.6 does); the migration removes it.
    if let Some(rest) = bytes.strip_prefix(BOM) {
        let first = &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())];
        if !is_blank(first) && Object::parse_line(first).is_ok() {
            return Ok(match reference_without_bom(name, rest, opts)? {
                Outcome::Current => Outcome::Migrated {
                    bytes: rest.to_vec(),
                    changes: Changes {
                        from_version: CURRENT_VERSION,
                        bom_removed: true,
                        ..Changes::default()
                    },
                },
                Outcome::Migrated { bytes, mut changes } => {
                    changes.bom_removed = true;
                    Outcome::Migrated { bytes, changes }
                }
            });
        }
    }
    reference_without_bom(name, bytes, opts)
}

fn reference_without_bom(name: &str, bytes: &[u8], opts: MigrateOptions) -> Result<Outcome> {
    let s = Session::from_bytes(name, bytes.to_vec(), ReadOptions::default())?;
    let raw_header = s.raw_header()?;
    let hobj = s.object(&raw_header, s.header.line)?;
    if let Some(v) = hobj.raw("version") {
        if scan::kind_of(v) == Some(scan::Kind::Number) {
            let n: f64 = std::str::from_utf8(v)
                .ok()
                .and_then(|t| t.parse().ok())
                .unwrap_or(f64::NAN);
            if n > CURRENT_VERSION as f64 {
                return Err(Error::data(
                    name,
                    Some(s.header.line),
                    format!(
                        "session version {} is newer than this tool knows ({CURRENT_VERSION}); left as it is",
                        String::from_utf8_lossy(v)
                    ),
                ));
            }
        }
    }
    let from = s.version();
    if from >= CURRENT_VERSION {
        return Ok(Outcome::Current);
    }
    let mut changes = Changes {
        from_version: from,
        ..Changes::default()
    };
    let ids: Vec<Option<String>> = if from < 2 {
        s.entries
            .iter()
            .enumerate()
            .map(|(i, e)| {
                if e.ty() == EntryType::Session {
                    return None;
                }
                changes.ids_given += 1;
                s.entries.id(i).map(|i| i.to_string())
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut out = Vec::new();
    let mut offset = 0usize;
    let mut number = 0u64;
    let mut prev_id: Option<&str> = None;
    while offset < bytes.len() {
        number += 1;
        let end = memchr::memchr(b'\n', &bytes[offset..]).map_or(bytes.len(), |p| offset + p);
        let line = &bytes[offset..end];
        if number == s.header.line {
            let start = (s.header.offset as usize).saturating_sub(offset);
            let stop = start + s.header.len as usize;
            out.extend_from_slice(&line[..start]);
            out.extend_from_slice(&migrate::migrate_header(&hobj));
            out.extend_from_slice(&line[stop.min(line.len())..]);
        } else if let Some(i) = s.entry_at_line(number) {
            let e = &s.entries[i];
            let start = (e.offset() as usize).saturating_sub(offset);
            let stop = (start + e.byte_len() as usize).min(line.len());
            let obj = s.object(&line[start..stop], number)?;
            let is_session = e.ty() == EntryType::Session;
            let mut first_kept = migrate::FirstKept::None;
            if from < 2 && !is_session && e.ty() == EntryType::Compaction {
                if let Some(k) = migrate::first_kept_index(&obj) {
                    changes.compactions_repointed += 1;
                    first_kept = migrate::v1_first_kept(
                        k,
                        i,
                        s.entries.len(),
                        |j| s.entries[j].ty() == EntryType::Session,
                        |j| ids.get(j).cloned().flatten(),
                    );
                }
            }
            if from < 3 && migrate::hook_message_role(&obj).is_some() {
                changes.roles_renamed += 1;
            }
            let id = ids.get(i).and_then(|x| x.as_deref());
            let m = EntryMigration {
                from_version: from,
                id,
                parent: prev_id,
                first_kept,
                is_session,
            };
            out.extend_from_slice(&line[..start]);
            out.extend_from_slice(&migrate::migrate_entry(&obj, &m));
            out.extend_from_slice(&line[stop..]);
            if from < 2 && !is_session {
                prev_id = id;
            }
        } else {
            if !is_blank(line) {
                if !opts.keep_malformed {
                    let why = s
                        .warnings
                        .iter()
                        .find(|w| w.at.as_ref().and_then(|a| a.line) == Some(number))
                        .map(|w| {
                            w.message
                                .trim_end_matches("; skipped, as pi does")
                                .to_string()
                        })
                        .unwrap_or_else(|| "not a JSON object".to_string());
                    return Err(Error::data(
                        name,
                        Some(number),
                        format!("{why}; pi would drop this line when migrating; file left as it is (--keep-malformed carries it through)"),
                    ));
                }
                changes.malformed_kept += 1;
            }
            out.extend_from_slice(line);
        }
        if end < bytes.len() {
            out.push(b'\n');
        }
        offset = end + 1;
    }
    Ok(Outcome::Migrated {
        bytes: out,
        changes,
    })
}

fn same_as_reference(text: &[u8]) {
    for keep in [false, true] {
        let opts = MigrateOptions {
            keep_malformed: keep,
            random_ids: false,
            drop_torn: false,
        };
        let got = migrate_bytes("t", text, opts);
        let want = reference("t", text, opts);
        let show = |r: &Result<Outcome>| match r {
            Ok(Outcome::Current) => "current".to_string(),
            Ok(Outcome::Migrated { bytes, changes }) => {
                format!("{changes:?}\n{}", String::from_utf8_lossy(bytes))
            }
            // the reference does not name the option that drops a torn line
            Err(e) => format!("error: {e}").replace(super::TORN_HINT, ""),
        };
        assert_eq!(
            show(&got),
            show(&want),
            "keep={keep} input:\n{}",
            String::from_utf8_lossy(text)
        );
    }
}

#[test]
fn one_pass_is_the_session_migration() {
    let h1 = r#"{"type":"session","id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/x"}"#;
    let m = r#"{"type":"message","timestamp":"t","message":{"role":"user","content":"hi"}}"#;
    let hook = r#"{"type":"message","message":{"role":"hookMessage","content":"x"}}"#;
    let hook_esc = r#"{"type":"message","message":{"role":"hook\u004dessage","role":"x","role":"hook\u004Dessage"}}"#;
    let not_hook = r#"{"type":"message","message":{"role":"hookMessage","role":"user","c":"\u001b hookMessage"}}"#;
    let comp = |k: &str| {
        format!(
            r#"{{"type":"compaction","summary":"s","firstKeptEntryIndex":{k},"firstKeptEntryId":"old","tokensBefore":1}}"#
        )
    };
    let second = r#"{"type":"session","id":"s2","version":1}"#;
    let dup = r#"{"type":"custom","id":"a","parentId":"b","id":"c","parentId":null}"#;
    let mut cases: Vec<String> = vec![
        String::new(),
        "\n\n".into(),
        format!("{h1}"),
        format!("{h1}\n"),
        format!("\u{feff}{h1}\r\n{m}\r\n"),
        format!("\u{feff}\n{h1}\n{m}"),
        format!("{h1}\n\n  \n{m}\n\u{a0}\n{hook}\n{hook_esc}\n{not_hook}\n{dup}\n"),
        format!("{{oops\n{h1}\n{m}\n"),
        format!("[1]\n{h1}\n{m}\n"),
        format!("{{oops\n{m}\n"),
        format!("{{oops\n"),
        format!("{h1}\n{{\"a\":1\n{m}\n"),
        format!("{h1}\n\"str\"\n{m}\n"),
        format!("{m}\n{h1}\n"),
        r#"{"type":"session","id":7}"#.into(),
        r#"{"type":"session","id":"x","version":"2"}"#.into(),
        format!("{{oops\n{}\n", r#"{"type":"session","id":"x","version":4}"#),
        format!(
            "{{oops\n{}\n{m}",
            r#"{"type":"session","id":"x","version":3}"#
        ),
        format!(
            "{}\n{m}\n{hook}",
            r#"{"type":"session","id":"x","version":2}"#
        ),
        format!(
            "{}\n{hook}\n{{bad",
            r#"{"type":"session","id":"x","version":2.5}"#
        ),
        format!("{}\n{m}", r#"{"type":"session","id":"x","version":null}"#),
        format!("{}\n{m}", r#"{"type":"session","id":"x","version":3.0}"#),
        format!("{}\n{m}", r#"{"type":"session","id":"x","version":3.5}"#),
        format!("{}\n{m}", r#"{"type":"session","id":"x","version":-1e400}"#),
    ];
    // Compactions pointing back, at themselves, forward, past the end,
    // at the header, at a second header, at fractions and far away.
    for k in [
        "0",
        "1",
        "2",
        "3",
        "4",
        "5",
        "6",
        "7",
        "8",
        "2.5",
        "-1",
        "1e400",
        "1e300",
        "18446744073709551616",
        "\"2\"",
    ] {
        cases.push(format!(
            "{h1}\n{m}\n{}\n{second}\n{m}\n\n{{bad\n{m}\n",
            comp(k)
        ));
        cases.push(format!("{h1}\n{}\n{m}\n{}\n{second}", comp(k), comp(k)));
    }
    // Lines whose ids collide are not possible to build by hand; many
    // entries at least exercise the id set.
    let many: String = (0..300).map(|_| format!("{m}\n")).collect();
    cases.push(format!("{h1}\n{many}"));
    for c in &cases {
        same_as_reference(c.as_bytes());
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/sessions");
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let bytes = std::fs::read(e.unwrap().path()).unwrap();
        same_as_reference(&bytes);
        n += 1;
    }
    assert!(n > 40);
}

fn mig(text: &str, keep: bool) -> Result<Outcome> {
    migrate_bytes(
        "t",
        text.as_bytes(),
        MigrateOptions {
            keep_malformed: keep,
            random_ids: false,
            drop_torn: false,
        },
    )
}

#[test]
fn same_lines_as_session_line() {
    let text = "{\"type\":\"session\",\"id\":\"s1\",\"cwd\":\"/x\"}\r\n\n{\"type\":\"message\",\"timestamp\":\"t\",\"message\":{\"role\":\"hookMessage\"}}\n{\"type\":\"compaction\",\"summary\":\"s\",\"firstKeptEntryIndex\":1,\"tokensBefore\":1}";
    let s = Session::from_bytes("t", text.as_bytes().to_vec(), ReadOptions::default()).unwrap();
    let Outcome::Migrated { bytes, changes } = mig(text, false).unwrap() else {
        panic!("not migrated")
    };
    let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0], &s.header_line().unwrap()[..]);
    assert!(lines[0].ends_with(b"}\r"));
    assert_eq!(lines[1], b"");
    assert_eq!(lines[2], &s.line(0).unwrap()[..]);
    assert_eq!(lines[3], &s.line(1).unwrap()[..]);
    assert_eq!(changes.ids_given, 2);
    assert_eq!(changes.compactions_repointed, 1);
    assert_eq!(changes.roles_renamed, 1);
}

#[test]
fn refuses_what_it_cannot_do() {
    assert!(mig("", false).is_err());
    assert!(mig("{\"type\":\"message\"}\n", false).is_err());
    let e = mig("{\"type\":\"session\",\"version\":4,\"id\":\"s\"}\n", false).unwrap_err();
    assert!(e.to_string().contains("t:1:"), "{e}");
    let text = "{\"type\":\"session\",\"id\":\"s\"}\n{oops\n{\"type\":\"x\"}\n";
    let e = mig(text, false).unwrap_err();
    assert!(e.to_string().starts_with("t:2:"), "{e}");
    let Outcome::Migrated { bytes, .. } = mig(text, true).unwrap() else {
        panic!()
    };
    assert!(bytes.starts_with(
        b"{\"type\":\"session\",\"id\":\"s\",\"version\":3}\n{oops\n{\"type\":\"x\",\"id\":"
    ));
    assert!(matches!(
        mig(
            "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n{oops\n",
            false
        )
        .unwrap(),
        Outcome::Current
    ));
}

#[test]
fn drop_torn_drops_only_a_torn_last_line() {
    let opts = MigrateOptions {
        drop_torn: true,
        ..MigrateOptions::default()
    };
    let head = "{\"type\":\"session\",\"id\":\"s\"}\n{\"type\":\"x\"}\n";
    // Cut short, then only blank lines: dropped, and said by its number.
    let text = format!("{head}{{\"type\":\"message\",\"mess\n\n");
    let e = migrate_bytes("t", text.as_bytes(), MigrateOptions::default()).unwrap_err();
    assert!(e.to_string().starts_with("t:3:"), "{e}");
    assert!(e.to_string().contains("--drop-torn"), "{e}");
    let Outcome::Migrated { bytes, changes } = migrate_bytes("t", text.as_bytes(), opts).unwrap()
    else {
        panic!("not migrated")
    };
    assert_eq!(changes.torn_dropped, Some(3));
    assert!(changes.describe().contains("torn last line 3 dropped"));
    let out = String::from_utf8(bytes).unwrap();
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(!out.contains("mess"), "{out}");
    // Not torn: broken in the middle, or followed by an entry.
    for bad in [
        format!("{head}{{oops}}\n"),
        format!("{head}{{\"type\":\"mess\n{{\"type\":\"x\"}}\n"),
    ] {
        let e = migrate_bytes("t", bad.as_bytes(), opts).unwrap_err();
        assert!(!e.to_string().contains("--drop-torn"), "{e}");
    }
}
