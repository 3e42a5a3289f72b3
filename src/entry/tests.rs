//! Unit tests of the entry model: ids as keys, entry fields kept and read
//! back, and the size of what is kept per entry.

use super::entries::OFFSET_MASK;
use super::*;
use crate::json::js;

#[test]
fn ids_that_are_not_strings_are_keyed_by_value() {
    let v = |t: &str| Id::from_value(t.as_bytes());
    // SameValueZero: 1, 1.0 and 1e0 are one key, -0 is 0; "1" is another.
    assert_eq!(v("1"), v("1.0"));
    assert_eq!(v("1"), v("1e0"));
    assert_eq!(v("-0"), v("0"));
    assert_ne!(v("1"), v("\"1\""));
    assert_ne!(v("true"), v("\"true\""));
    assert_eq!(v("1e400"), v("1e999"));
    // An object or array is a key only to itself.
    assert_ne!(v("{}"), v("{}"));
    assert_ne!(v("[1]"), v("[1]"));
    // `${id}` and JSON.stringify(id).
    for (json, text, out, truthy) in [
        ("1.50", "1.5", "1.5", true),
        ("-0", "0", "0", false),
        ("0", "0", "0", false),
        ("1e400", "Infinity", "null", true),
        (
            "123456789012345678901234567890",
            "1.2345678901234568e+29",
            "1.2345678901234568e+29",
            true,
        ),
        ("true", "true", "true", true),
        ("false", "false", "false", false),
        ("null", "null", "null", false),
        ("{\"k\": [1, 2]}", "[object Object]", "{\"k\":[1,2]}", true),
        ("[1, [2, null]]", "1,2,", "[1,[2,null]]", true),
        ("\"\"", "", "\"\"", false),
        ("\"a\\\"b\"", "a\"b", "\"a\\\"b\"", true),
    ] {
        let id = v(json);
        assert_eq!(id.to_string(), text, "{json}");
        assert_eq!(id.to_json(), out, "{json}");
        assert_eq!(id.truthy(), truthy, "{json}");
    }
    assert!(v("null").is_null() && !v("\"null\"").is_null());
}

#[test]
fn ids_round_trip() {
    for s in ["0123abcd", "ffffffff", "ABCDEF01", "short", "", "0123abcde"] {
        assert_eq!(Id::new(s).to_string(), s);
    }
    assert!(matches!(Id::new("00000000"), Id::Hex8(0)));
    for n in [0, 1, 0xa, 0x0123_abcd, 0xdead_beef, 0x8000_0000, u32::MAX] {
        assert_eq!(super::id::hex8(n), format!("{n:08x}"));
    }
    for json in [
        r#""0123abcd""#,
        r#""ffffffff""#,
        r#""ABCDEF01""#,
        r#""\u0030123abcd""#,
        r#""0123abc\u0064""#,
        r#""0123abcg""#,
        "\"\"",
        r#""caf\u00e9""#,
    ] {
        let decoded = js::escape::decode_string(json.as_bytes(), 0..json.len());
        assert_eq!(Id::from_json(json.as_bytes()), Id::new(&decoded), "{json}");
    }
    for name in ["message", "session", "label", "x", "", "Message"] {
        let json = format!("\"{name}\"");
        assert_eq!(
            EntryType::parse_bytes(name.as_bytes()),
            EntryType::parse(name)
        );
        assert_eq!(plain(json.as_bytes()), Some(name.as_bytes()));
    }
    assert_eq!(plain(br#""mess\u0061ge""#), None);
}

#[test]
fn reads_fields() {
    let line = br#"{"type":"label","id":"0000000a","parentId":"0000000b","timestamp":"2026-07-20T09:00:00.000Z","targetId":"x","label":""}"#;
    let obj = Object::parse_line(line).unwrap().unwrap();
    let mut entries = Entries::new();
    let i = entries.push_object(&obj, 3, 0, line.len() as u32).unwrap();
    let e = &entries[i];
    assert_eq!(e.ty(), EntryType::Label);
    assert_eq!(entries.parent(i), Parent::Id(Id::new("0000000b")));
    assert_eq!(entries.id(i), Some(Id::new("0000000a")));
    assert_eq!(
        Extra::from_object(&obj, e.ty()),
        Extra::Label(Box::new(LabelChange {
            target: Some(Id::new("x")),
            label: None
        }))
    );
    assert_eq!(e.time(), 1784538000000.0);
    assert_eq!(
        (e.line(), e.offset(), e.byte_len()),
        (3, 0, line.len() as u32)
    );
}
#[test]
fn compact_fields_round_trip() {
    let types = [
        "message",
        "thinking_level_change",
        "model_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
        "session",
        "something_else",
    ];
    let ids = [
        None,
        Some("0123abcd"),
        Some("ffffffff"),
        Some("ABCDEF01"),
        Some(""),
        Some("x"),
    ];
    let parents = [
        ("", Parent::Missing),
        (r#","parentId":null"#, Parent::Null),
        (r#","parentId":false"#, Parent::Id(Id::from_value(b"false"))),
        (r#","parentId":0"#, Parent::Id(Id::from_value(b"0"))),
        (r#","parentId":-0.0"#, Parent::Id(Id::from_value(b"0"))),
        (r#","parentId":7"#, Parent::Id(Id::from_value(b"7.0"))),
        (r#","parentId":true"#, Parent::Id(Id::from_value(b"true"))),
        (r#","parentId":{}"#, Parent::Other),
        (r#","parentId":[1]"#, Parent::Other),
        (r#","parentId":"00000000""#, Parent::Id(Id::new("00000000"))),
        (r#","parentId":"""#, Parent::Id(Id::new(""))),
        (r#","parentId":"p\u0041""#, Parent::Id(Id::new("pA"))),
    ];
    let mut entries = Entries::new();
    let mut want = Vec::new();
    let mut k = 0u64;
    for ty in types.iter().map(Some).chain([None]) {
        for id in ids {
            for (p, parent) in &parents {
                let mut line = String::from("{");
                if let Some(t) = ty {
                    line.push_str(&format!(r#""type":"{t}","#));
                }
                if let Some(id) = id {
                    line.push_str(&format!(r#""id":"{id}","#));
                }
                line.push_str(r#""x":1"#);
                line.push_str(p);
                line.push('}');
                let obj = Object::parse_line(line.as_bytes()).unwrap().unwrap();
                let offset = (k * 0x1_0000_0001) & OFFSET_MASK;
                let i = entries
                    .push_object(&obj, k + 2, offset, k as u32 * 7)
                    .unwrap();
                let t = ty.map_or(EntryType::None, |t| EntryType::parse(t));
                want.push((
                    t,
                    id.map(Id::new),
                    parent.clone(),
                    k + 2,
                    offset,
                    k as u32 * 7,
                ));
                assert_eq!(i as u64, k);
                k += 1;
            }
        }
    }
    for (i, (ty, id, parent, line, offset, len)) in want.iter().enumerate() {
        let e = &entries[i];
        assert_eq!(e.ty(), *ty);
        assert_eq!(entries.id(i), *id);
        assert_eq!(e.has_id(), id.is_some());
        assert_eq!(entries.parent(i), *parent);
        assert_eq!(entries.parent_id(i).as_ref(), parent.id());
        assert_eq!((e.line(), e.offset(), e.byte_len()), (*line, *offset, *len));
        assert!(e.time().is_nan());
        let own = matches!((parent, id), (Parent::Id(p), Some(id)) if p == id);
        assert_eq!(entries.is_own_parent(i), own);
        for (j, other) in want.iter().enumerate() {
            assert_eq!(entries.same_id(i, j), *id == other.1);
        }
        if let Some(id) = id {
            assert!(entries.has_this_id(i, id));
        }
    }
    // Changing an id and a parent keeps the other fields.
    entries.set_id(3, Some(&Id::new("other"))).unwrap();
    entries
        .set_parent(3, &Parent::Id(Id::new("0000abcd")))
        .unwrap();
    assert_eq!(entries.id(3), Some(Id::new("other")));
    assert_eq!(entries.parent(3), Parent::Id(Id::new("0000abcd")));
    assert_eq!(entries[3].ty(), want[3].0);
    assert_eq!(entries[3].offset(), want[3].4);
    entries.set_id(3, None).unwrap();
    assert_eq!(entries.id(3), None);
}

#[test]
fn found_parents_read_as_their_ids() {
    let mut entries = Entries::new();
    for line in [
        r#"{"id":"0000000a","parentId":null}"#,
        r#"{"id":"b","parentId":"0000000a"}"#,
        r#"{"id":"b","parentId":"b"}"#,
        r#"{"id":"0000000a","parentId":"0000000a"}"#,
        r#"{"parentId":"b"}"#,
    ] {
        let obj = Object::parse_line(line.as_bytes()).unwrap().unwrap();
        entries.push_object(&obj, 1, 0, 1).unwrap();
    }
    let before: Vec<Parent> = (0..5).map(|i| entries.parent(i)).collect();
    let own: Vec<bool> = (0..5).map(|i| entries.is_own_parent(i)).collect();
    assert_eq!(own, [false, false, true, true, false]);
    // As the index finds them: the later of duplicate ids wins.
    for (i, p) in [(1, 3), (2, 2), (3, 3), (4, 2)] {
        assert_eq!(entries.parent_index(i), None);
        entries.set_parent_index(i, p);
        assert_eq!(entries.parent_index(i), Some(p as usize));
    }
    let after: Vec<Parent> = (0..5).map(|i| entries.parent(i)).collect();
    assert_eq!(before, after);
    assert_eq!(
        own,
        (0..5).map(|i| entries.is_own_parent(i)).collect::<Vec<_>>()
    );
    assert_eq!(entries.parent_id(4), Some(Id::new("b")));
    assert_eq!(entries.parent_index(0), None);
}

#[test]
fn limits_are_errors() {
    let obj = Object::parse_line(br#"{"type":"message","id":"abcd0123"}"#)
        .unwrap()
        .unwrap();
    let mut entries = Entries::new();
    assert_eq!(
        entries.push_object(&obj, 1 << 32, 0, 1),
        Err(TOO_MANY_LINES)
    );
    assert_eq!(entries.push_object(&obj, 1, 1 << 48, 1), Err(TOO_FAR));
    assert_eq!(entries.len(), 0);
    let i = entries
        .push_object(&obj, u32::MAX as u64, OFFSET_MASK, u32::MAX)
        .unwrap();
    let e = &entries[i];
    assert_eq!(
        (e.line(), e.offset(), e.byte_len()),
        (u32::MAX as u64, OFFSET_MASK, u32::MAX)
    );
    assert_eq!(e.ty(), EntryType::Message);
    assert_eq!(entries.id(i), Some(Id::new("abcd0123")));
}

/// Every entry of a session is kept in memory: keep an entry small.
#[test]
fn entry_stays_small() {
    assert_eq!(std::mem::size_of::<Id>(), 16);
    assert_eq!(std::mem::size_of::<Option<Id>>(), 16);
    assert_eq!(std::mem::size_of::<Parent>(), 16);
    assert_eq!(std::mem::size_of::<Extra>(), 16);
    assert_eq!(std::mem::size_of::<EntryType>(), 1);
    assert_eq!(std::mem::size_of::<Entry>(), 32);
}

/// pi's timestamps, read straight from the line, give what the long way
/// (decoded, trimmed, parsed) gives; so do the others.
#[test]
fn timestamps_read_straight_are_read_the_long_way() {
    for v in [
        r#""2026-07-20T09:00:00.000Z""#,
        r#""2026-07-20T09:00:00Z""#,
        r#""2026-07-20""#,
        r#""2026-13-20T09:00:00.000Z""#,
        r#""2026-07-20T09:00:00.000+02:00""#,
        r#"" 2026-07-20T09:00:00.000Z ""#,
        r#""2026-07-20T09:00:00.000Z\n""#,
        r#""\u0032026-07-20T09:00:00.000Z""#,
        r#""+002026-07-20T09:00:00.000Z""#,
        r#""-000001-01-01T00:00:00Z""#,
        r#""20260720""#,
        r#""2""#,
        r#""""#,
        r#""x""#,
        "1784538000000",
        "null",
        "true",
    ] {
        let (a, b) = (
            super::entries::timestamp_ms(v.as_bytes()),
            crate::time::js_date_ms(v.as_bytes()),
        );
        assert!(a == b || (a.is_nan() && b.is_nan()), "{v}: {a} {b}");
    }
}

/// The one pass over an entry's members finds what a lookup of each key
/// finds: the last of repeated keys, escaped keys, keys that only start
/// like a name.
#[test]
fn fields_in_one_pass_are_those_looked_up() {
    let names = ["type", "id", "parentId", "timestamp"];
    for line in [
        r#"{"type":"message","id":"0000000a","parentId":null,"timestamp":"t"}"#,
        r#"{"id":1,"id":2,"type":"a","type":"b"}"#,
        r#"{"\u0069d":"x","id\u0000":"y","i":"z","ids":"w","parentI\u0064":"p"}"#,
        r#"{"timestamp":1,"\u0074imestamp":2,"typ":"c","typee":"d"}"#,
        r#"{"id":"a","\u0069\u0064":"b"}"#,
        r#"{}"#,
    ] {
        let obj = crate::json::Object::parse_line(line.as_bytes())
            .unwrap()
            .unwrap();
        let got = super::entries::raw_values(&obj, names);
        let want = names.map(|n| obj.raw(n));
        assert_eq!(got, want, "{line}");
    }
}
