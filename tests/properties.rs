//! Property tests over random sessions and random JSON values.
//!
//! Sessions are random trees: each entry's parent is a random earlier entry
//! (or none: a new root), with random labels (set and cleared), random
//! compactions, and sometimes an id that repeats an earlier one. The
//! library is used directly where the property is about it; the binaries
//! where the property is about a tool's output (`pi-tree --json`,
//! `pi-label --list --json`).

use crate::common::{chain, header, lines, run, stderr, user_message, TempDir, H};
use pi_session_tools::cmd::fork::branched_session;
use pi_session_tools::entry::EntryType;
use pi_session_tools::json::{js, scan};
use pi_session_tools::migrate::{migrate_bytes, MigrateOptions, Outcome};
use pi_session_tools::path::{leaves, path_to};
use pi_session_tools::session::{ReadOptions, Session};
use proptest::prelude::*;
use proptest::sample::Index;
use std::collections::{HashMap, HashSet};

/// What one random entry is.
#[derive(Debug, Clone)]
struct Spec {
    kind: u8,
    /// Parent among the earlier entries (ignored for the first).
    parent: Index,
    /// A new root (parentId null) instead of a parent.
    root: bool,
    /// Repeat the id of an earlier entry (when < 6: about 1 in 40).
    dup: u8,
    /// Label target among the earlier entries.
    target: Index,
    /// 0: clear the label, else one of a few labels.
    label: u8,
    /// Timestamp step: 0 gives equal times (children order ties).
    step: u8,
    text: String,
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        0u8..10,
        any::<Index>(),
        prop::bool::weighted(0.1),
        0u8..240,
        any::<Index>(),
        0u8..5,
        0u8..3,
        "[a-z \\\\\"é\u{1F600}]{0,12}",
    )
        .prop_map(
            |(kind, parent, root, dup, target, label, step, text)| Spec {
                kind,
                parent,
                root,
                dup,
                target,
                label,
                step,
                text,
            },
        )
}

const LABELS: [&str; 4] = ["one", "two", "naïve", "with space"];

fn iso(ms: i64) -> String {
    pi_session_tools::time::iso_string(ms)
}

/// A random version 3 session: the file text, and whether ids repeat.
struct Built {
    text: String,
    ids: Vec<String>,
    dups: bool,
}

fn build_v3(specs: &[Spec], allow_dups: bool) -> Built {
    let id = "0199aaaa-0000-7000-8000-000000000001";
    let mut text = header(id, &iso(1_760_000_000_000), "/tmp/p", None) + "\n";
    let mut ids: Vec<String> = Vec::new();
    let mut dups = false;
    let mut t = 1_760_000_000_000i64;
    for (i, s) in specs.iter().enumerate() {
        t += s.step as i64 * 1000;
        let id = if allow_dups && i > 0 && s.dup < 6 {
            dups = true;
            ids[s.target.index(i)].clone()
        } else {
            format!("{:08x}", 0x1000_0000u32 + i as u32 * 7919)
        };
        let parent = if i == 0 || s.root {
            "null".to_string()
        } else {
            format!("\"{}\"", ids[s.parent.index(i)])
        };
        let head = format!(
            "\"id\":\"{id}\",\"parentId\":{parent},\"timestamp\":\"{}\"",
            iso(t)
        );
        let mut txt = Vec::new();
        js::write_str(&mut txt, &s.text);
        let txt = String::from_utf8(txt).unwrap();
        let line = match s.kind {
            0..=2 => format!(
                "{{\"type\":\"message\",{head},\"message\":{{\"role\":\"user\",\"content\":{txt},\"timestamp\":{t}}}}}"
            ),
            3..=5 => format!(
                "{{\"type\":\"message\",{head},\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":{txt}}}],\"api\":\"x\",\"provider\":\"p\",\"model\":\"m\",\"usage\":{{}},\"stopReason\":\"stop\",\"timestamp\":{t}}}}}"
            ),
            6 | 7 if i > 0 => {
                let target = &ids[s.target.index(i)];
                match s.label {
                    0 => format!("{{\"type\":\"label\",{head},\"targetId\":\"{target}\"}}"),
                    l => format!(
                        "{{\"type\":\"label\",{head},\"targetId\":\"{target}\",\"label\":\"{}\"}}",
                        LABELS[l as usize - 1]
                    ),
                }
            }
            8 if i > 0 => format!(
                "{{\"type\":\"compaction\",{head},\"summary\":{txt},\"firstKeptEntryId\":\"{}\",\"tokensBefore\":1234}}",
                ids[s.target.index(i)]
            ),
            _ => format!(
                "{{\"type\":\"custom_message\",{head},\"customType\":\"x\",\"content\":{txt},\"display\":true}}"
            ),
        };
        text.push_str(&line);
        text.push('\n');
        ids.push(id);
    }
    Built { text, ids, dups }
}

fn read(text: &str) -> Session {
    Session::from_bytes("p.jsonl", text.as_bytes().to_vec(), ReadOptions::default()).unwrap()
}

fn line(s: &Session, i: usize) -> String {
    String::from_utf8(s.line(i).unwrap().into_owned()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Every leaf's path starts at a root, ends at the leaf, follows the
    /// index's parents and repeats nothing; with duplicate ids a path may be
    /// a cycle, which is an error and never a loop.
    #[test]
    fn leaf_paths_end_at_a_root(specs in prop::collection::vec(spec(), 1..40)) {
        let b = build_v3(&specs, true);
        let s = read(&b.text);
        let ls = leaves(&s);
        prop_assert!(!ls.is_empty() || b.dups);
        for l in ls {
            match path_to(&s, l) {
                Ok(p) => {
                    prop_assert_eq!(p.last(), Some(&l));
                    prop_assert_eq!(s.index.parent_of(p[0]), None);
                    for w in p.windows(2) {
                        prop_assert_eq!(s.index.parent_of(w[1]), Some(w[0]));
                    }
                    let set: HashSet<_> = p.iter().collect();
                    prop_assert_eq!(set.len(), p.len());
                }
                Err(e) => {
                    prop_assert!(b.dups, "path error without duplicate ids: {e:?}");
                }
            }
        }
        if !b.dups {
            // Without duplicates the parents are the generated ones.
            for (i, sp) in specs.iter().enumerate() {
                let want = (i > 0 && !sp.root).then(|| sp.parent.index(i));
                prop_assert_eq!(s.index.parent_of(i), want);
                let p = path_to(&s, i).unwrap();
                prop_assert_eq!(p[0] == i, want.is_none());
            }
        }
    }

    /// The labels in force are the last label entry of each target, in
    /// JavaScript Map order (a cleared label loses its place).
    #[test]
    fn labels_are_the_last_per_target(specs in prop::collection::vec(spec(), 1..40)) {
        let b = build_v3(&specs, false);
        let s = read(&b.text);
        let mut model: Vec<(String, String)> = Vec::new();
        for (i, sp) in specs.iter().enumerate() {
            if !(matches!(sp.kind, 6 | 7) && i > 0) {
                continue;
            }
            let target = b.ids[sp.target.index(i)].clone();
            let pos = model.iter().position(|(t, _)| *t == target);
            match (sp.label, pos) {
                (0, Some(p)) => { model.remove(p); }
                (0, None) => {}
                (l, Some(p)) => model[p].1 = LABELS[l as usize - 1].to_string(),
                (l, None) => model.push((target, LABELS[l as usize - 1].to_string())),
            }
        }
        let got: Vec<(String, String)> = s
            .index
            .labels
            .iter()
            .map(|l| (l.target.to_string(), l.label.to_string()))
            .collect();
        prop_assert_eq!(&got, &model);
        // And as `pi-label --list --json` prints them (library function).
        let mut out = Vec::new();
        pi_session_tools::fuzzing::label_list(&s, true, &mut out).unwrap();
        let listed: Vec<(String, String)> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (v["id"].as_str().unwrap().to_string(), v["label"].as_str().unwrap().to_string())
            })
            .collect();
        prop_assert_eq!(listed, model);
    }

    /// pi's fork at a leaf (createBranchedSession) keeps the path: the new
    /// session's path, label entries aside, is the old one, line for line.
    #[test]
    fn fork_at_leaf_keeps_the_path(specs in prop::collection::vec(spec(), 1..40), at in any::<Index>()) {
        let b = build_v3(&specs, false);
        let s = read(&b.text);
        let leaf = at.index(s.entries.len());
        let new = branched_session(&s, Some(leaf), None).unwrap();
        let n = Session::from_bytes("f.jsonl", new.bytes.clone(), ReadOptions::default()).unwrap();
        let Some(nleaf) = n.index.leaf else {
            // A path of label entries only (a label made a root): nothing
            // but the header is written, as in pi.
            prop_assert!(path_to(&s, leaf).unwrap().iter().all(|&i| s.entries[i].ty() == EntryType::Label));
            prop_assert!(n.entries.is_empty());
            return Ok(());
        };
        prop_assert_eq!(n.entries.id(nleaf).map(|i| i.to_string()), new.leaf.clone());
        let not_label = |s: &Session, p: Vec<usize>| -> Vec<String> {
            p.into_iter()
                .filter(|&i| s.entries[i].ty() != EntryType::Label)
                .map(|i| line(s, i))
                .collect()
        };
        let old_path = not_label(&s, path_to(&s, leaf).unwrap());
        let new_path = not_label(&n, path_to(&n, nleaf).unwrap());
        // pi 1.6 links each kept entry to the previous kept one (label
        // entries removed), so the whole path comes along: the same entries,
        // each with parentId = the previous one's id; an entry whose parent
        // already was that one is copied byte for byte.
        let copied: Vec<String> = (0..n.entries.len())
            .filter(|&i| n.entries[i].ty() != EntryType::Label)
            .map(|i| line(&n, i))
            .collect();
        prop_assert_eq!(&copied, &new_path);
        prop_assert_eq!(old_path.len(), new_path.len());
        let mut prev: Option<String> = None;
        for (old, new) in old_path.iter().zip(&new_path) {
            let o: serde_json::Value = serde_json::from_str(old).unwrap();
            let mut w: serde_json::Value = serde_json::from_str(new).unwrap();
            prop_assert_eq!(w["parentId"].as_str().map(str::to_string), prev.clone());
            if o["parentId"] == w["parentId"] && o.get("firstKeptEntryId") == w.get("firstKeptEntryId") {
                prop_assert_eq!(old, new);
            }
            w["parentId"] = o["parentId"].clone();
            if o.get("firstKeptEntryId").is_some() {
                w["firstKeptEntryId"] = o["firstKeptEntryId"].clone();
            }
            prop_assert_eq!(&o, &w);
            prev = o["id"].as_str().map(str::to_string);
        }
        // The labels in force on the path's entries (label entries aside)
        // come along.
        let on_path: HashSet<String> = path_to(&s, leaf)
            .unwrap()
            .into_iter()
            .filter(|&i| s.entries[i].ty() != EntryType::Label)
            .filter_map(|i| s.entries.id(i).map(|x| x.to_string()))
            .collect();
        let want: Vec<(String, String)> = s
            .index
            .labels
            .iter()
            .filter(|l| on_path.contains(&l.target.to_string()))
            .map(|l| (l.target.to_string(), l.label.to_string()))
            .collect();
        let got: Vec<(String, String)> = n
            .index
            .labels
            .iter()
            .map(|l| (l.target.to_string(), l.label.to_string()))
            .collect();
        prop_assert_eq!(got, want);
    }
}

/// A random version 1 session: entries without ids, a compaction by index.
fn build_v1(specs: &[Spec]) -> String {
    let mut text = String::from(
        "{\"type\":\"session\",\"id\":\"0199aaaa-0000-7000-8000-0000000000v1\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"cwd\":\"/tmp/p\"}\n",
    );
    let mut t = 1_735_689_600_000i64;
    for (i, s) in specs.iter().enumerate() {
        t += s.step as i64 * 1000;
        let mut txt = Vec::new();
        js::write_str(&mut txt, &s.text);
        let txt = String::from_utf8(txt).unwrap();
        let ts = iso(t);
        let line = match s.kind {
            0..=3 => format!(
                "{{\"type\":\"message\",\"timestamp\":\"{ts}\",\"message\":{{\"role\":\"user\",\"content\":{txt},\"timestamp\":{t}}}}}"
            ),
            4..=6 => format!(
                "{{\"type\":\"message\",\"timestamp\":\"{ts}\",\"message\":{{\"role\":\"hookMessage\",\"customType\":\"h\",\"content\":{txt},\"display\":true,\"timestamp\":{t}}}}}"
            ),
            7 => format!("{{\"type\":\"thinking_level_change\",\"timestamp\":\"{ts}\",\"thinkingLevel\":\"high\"}}"),
            // firstKeptEntryIndex: the header is 0; sometimes past this line.
            _ => format!(
                "{{\"type\":\"compaction\",\"timestamp\":\"{ts}\",\"summary\":{txt},\"firstKeptEntryIndex\":{},\"tokensBefore\":99}}",
                s.target.index(i + 3)
            ),
        };
        text.push_str(&line);
        text.push('\n');
        // Now and then a blank line, which pi skips.
        if s.dup < 8 {
            text.push('\n');
        }
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Migrating a version 1 file is idempotent, and the migrated file reads
    /// as the old one did: same lines on every path, ids included (version 1
    /// ids are deterministic).
    #[test]
    fn migrate_v1_idempotent_and_same_paths(specs in prop::collection::vec(spec(), 1..30)) {
        let text = build_v1(&specs);
        let opts = MigrateOptions::default();
        let Outcome::Migrated { bytes, .. } = migrate_bytes("v1.jsonl", text.as_bytes(), opts).unwrap() else {
            panic!("a version 1 file needs migrating");
        };
        prop_assert!(matches!(migrate_bytes("v1.jsonl", &bytes, opts).unwrap(), Outcome::Current));
        let old = read(&text);
        let new = Session::from_bytes("v3.jsonl", bytes, ReadOptions::default()).unwrap();
        prop_assert_eq!(new.version(), 3);
        prop_assert_eq!(old.entries.len(), new.entries.len());
        for l in leaves(&old) {
            let a: Vec<String> = path_to(&old, l).unwrap().into_iter().map(|i| line(&old, i)).collect();
            let b: Vec<String> = path_to(&new, l).unwrap().into_iter().map(|i| line(&new, i)).collect();
            prop_assert_eq!(a, b);
        }
        // A version 1 file is one chain.
        prop_assert_eq!(path_to(&new, new.entries.len() - 1).unwrap().len(), new.entries.len());
    }

    /// JSON.stringify(JSON.parse(x)) of any JSON text serde_json writes
    /// reads back as the same value (numbers as doubles), and is a fixed
    /// point.
    #[test]
    fn canonical_round_trips(v in json_value(), pretty in any::<bool>()) {
        let text = if pretty { serde_json::to_vec_pretty(&v) } else { serde_json::to_vec(&v) }.unwrap();
        let range = scan::validate(&text).unwrap();
        let c = js::canonical_vec(&text, range).unwrap();
        let back: serde_json::Value = serde_json::from_slice(&c).unwrap();
        prop_assert!(same(&v, &back), "{} -> {}", String::from_utf8_lossy(&text), String::from_utf8_lossy(&c));
        let again = js::canonical_vec(&c, 0..c.len()).unwrap();
        prop_assert_eq!(again, c);
    }
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value as V;
    let leaf = prop_oneof![
        Just(V::Null),
        any::<bool>().prop_map(V::Bool),
        any::<i64>().prop_map(V::from),
        any::<u64>().prop_map(V::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(V::from),
        (-1e6f64..1e6).prop_map(V::from),
        any::<String>().prop_map(V::String),
        "[0-9]{1,3}".prop_map(V::String),
    ];
    leaf.prop_recursive(6, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(V::Array),
            prop::collection::vec(("([0-9]{1,3}|[a-z]{1,3}|.{0,4})", inner), 0..8)
                .prop_map(|kv| V::Object(kv.into_iter().collect())),
        ]
    })
}

/// Equal as JavaScript values: numbers compared as doubles.
fn same(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value as V;
    match (a, b) {
        (V::Number(x), V::Number(y)) => x.as_f64() == y.as_f64(),
        (V::Array(x), V::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (V::Object(x), V::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// `pi-tree --json` holds every entry exactly once when ids are unique
/// (every entry is reachable: parents are earlier entries), each under its
/// generated parent.
#[test]
fn tree_json_holds_every_entry_once() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 48,
        ..ProptestConfig::default()
    });
    let dir = TempDir::new("properties");
    runner
        .run(&prop::collection::vec(spec(), 1..30), |specs| {
            let b = build_v3(&specs, false);
            let file = dir.path().join("t.jsonl");
            std::fs::write(&file, &b.text).unwrap();
            let out = run("pi-tree", &["--json", file.to_str().unwrap()], None);
            prop_assert!(out.status.success(), "{}", stderr(&out));
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            let mut seen: HashMap<String, Option<String>> = HashMap::new();
            // (node, parent id)
            let mut stack: Vec<(&serde_json::Value, Option<String>)> =
                v.as_array().unwrap().iter().map(|n| (n, None)).collect();
            while let Some((node, parent)) = stack.pop() {
                let id = node["entry"]["id"].as_str().unwrap().to_string();
                prop_assert!(seen.insert(id.clone(), parent).is_none(), "{id} twice");
                for c in node["children"].as_array().unwrap() {
                    stack.push((c, Some(id.clone())));
                }
            }
            prop_assert_eq!(seen.len(), b.ids.len());
            for (i, id) in b.ids.iter().enumerate() {
                let want = if i == 0 || specs[i].root {
                    None
                } else {
                    Some(b.ids[specs[i].parent.index(i)].clone())
                };
                prop_assert_eq!(seen.get(id), Some(&want));
            }
            Ok(())
        })
        .unwrap();
}

/// A file whose lines were duplicated (`cat s s s > t`) has duplicate ids
/// all along its chain; pi's tree then enters nodes once per path, which is
/// exponential. Building the tree must stay linear.
#[test]
fn duplicated_file_tree_builds_fast() {
    let body = lines(&chain(200, |_| user_message("x")));
    let text = format!("{H}\n{body}{body}{body}");
    let s = read(&text);
    let t0 = std::time::Instant::now();
    let tree = pi_session_tools::tree::Tree::build(&s);
    assert!(t0.elapsed().as_secs() < 5);
    assert!(tree.unreachable.is_empty());
    assert_eq!(tree.walk_len(1_000_000), None);
    // Unique ids: the walk enters each entry once.
    let s = read(&format!("{H}\n{body}"));
    assert_eq!(
        pi_session_tools::tree::Tree::build(&s).walk_len(1_000),
        Some(200)
    );
}
