//! Fuzz target bodies, shared by the `fuzz/` crate (libFuzzer) and by
//! `cargo test` (tests/fuzz_regressions.rs replays the committed corpus and
//! every crash found so far through the same functions).
//!
//! Each function takes arbitrary bytes, must never panic on its own, and
//! asserts the invariants of the code it drives: an assertion failure here
//! is a bug in the library (or in the stated invariant), never a property of
//! the input.

use crate::entry::{EntryType, Id, Parent};
use crate::json::{js, scan, Object};
use crate::migrate::{migrate_bytes, MigrateOptions, Outcome};
use crate::session::{ReadOptions, Session};
use crate::tree::{Step, Tree};
use crate::{context, path, refs, time};
use std::collections::HashSet;

/// Inputs larger than this are ignored (keeps every run quick; the code
/// paths are all linear).
pub const MAX_INPUT: usize = 1 << 16;

/// Numbers compared as f64 and objects as maps: what survives
/// `JSON.stringify(JSON.parse(x))` unchanged in meaning.
fn same_value(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value as V;
    // Explicit stack: the values may be deep.
    let mut stack = vec![(a, b)];
    while let Some((a, b)) = stack.pop() {
        match (a, b) {
            (V::Null, V::Null) => {}
            (V::Bool(x), V::Bool(y)) if x == y => {}
            (V::String(x), V::String(y)) if x == y => {}
            (V::Number(x), V::Number(y)) => {
                let (x, y) = (x.as_f64(), y.as_f64());
                if x != y {
                    return false;
                }
            }
            (V::Array(x), V::Array(y)) if x.len() == y.len() => stack.extend(x.iter().zip(y)),
            (V::Object(x), V::Object(y)) if x.len() == y.len() => {
                for (k, v) in x {
                    match y.get(k) {
                        Some(w) => stack.push((v, w)),
                        None => return false,
                    }
                }
            }
            _ => return false,
        }
    }
    true
}

/// Target `json`: the validating scanner, the object view, the
/// JavaScript-exact writer and the date parser on one line of input.
/// pi-grep's quick read of an entry (by the checker's marks and record of
/// container ends) finds the type, role and texts the plain read finds.
fn same_search_spans(data: &[u8], checker: &mut js::Checker) {
    use crate::search::{self, Span};
    let Some(o) = crate::json::Object::parse_line(data).ok().flatten() else {
        panic!("the quick read takes only valid JSON");
    };
    let e = search::Entry::new(&o, None);
    let plain: Vec<_> = search::entry_spans(&e)
        .into_iter()
        .map(Span::decode)
        .collect();
    let (top, marks) = (checker.members().to_vec(), checker.marks());
    let mut out = Vec::new();
    let (ty, role) = search::quick_entry(
        data,
        &top,
        marks,
        &mut js::Checker::new(),
        &|_| true,
        &mut out,
    );
    let quick: Vec<_> = out.into_iter().map(Span::decode).collect();
    assert_eq!(
        (&ty, &role),
        (&e.ty, &e.role),
        "pi-grep's quick read: type, role"
    );
    assert_eq!(quick, plain, "pi-grep's quick read: texts");
}

pub fn json(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    // Every vector unit of this processor finds the bytes the byte-by-byte
    // rule finds.
    scan::simd::check_units(data);
    // The quick reads of a line pi wrote (every load takes the valid one,
    // `pi-tree --json` the canonical one): when one says yes, the text is
    // one valid object with the scanner's members; for the canonical one
    // also JSON.stringify's text (but for UTF-8, checked apart).
    let mut checker = js::Checker::new();
    for canonical in [true, false] {
        let quick = match canonical {
            true => checker.object(data),
            false => checker.valid_object(data),
        };
        let Some(members) = quick.map(<[_]>::to_vec) else {
            continue;
        };
        let (range, found) = scan::validate_object_scanned(data)
            .expect("the quick read takes only valid JSON")
            .expect("the quick read takes only objects");
        assert_eq!(range, 0..data.len(), "the quick read takes no spaces");
        assert_eq!(members, found, "the quick read's members differ");
        if !canonical {
            same_search_spans(data, &mut checker);
        }
        if canonical && std::str::from_utf8(data).is_ok() {
            let long = js::canonical_long_way(data, range).expect("canonical of valid JSON");
            assert_eq!(
                long, data,
                "the quick read takes a line JSON.stringify would change"
            );
        }
    }
    // The object reads (the quick one first) agree with the scanner alone.
    assert_eq!(
        scan::validate_object(data),
        scan::validate_object_scanned(data)
    );
    let valid = scan::validate(data);
    let serde: Option<serde_json::Value> = serde_json::from_slice(data).ok();
    // serde_json is a strict RFC 8259 parser: what it accepts, JSON.parse
    // accepts (the reverse fails only for lone surrogates, numbers out of
    // f64 range, nesting deeper than 128, and invalid UTF-8 in strings).
    if serde.is_some() {
        assert!(
            valid.is_ok(),
            "serde_json accepts but scan rejects: {valid:?}"
        );
    }
    if let Ok(r) = &valid {
        if data[r.start] == b'{' {
            let mut scanned = Vec::new();
            scan::for_each_member(data, r.clone(), |m| {
                scanned.push(m);
                true
            })
            .expect("members of a valid object");
            assert_eq!(scan::members(data, r.clone()).ok(), Some(scanned));
        }
    }
    let Ok(range) = valid else {
        assert!(Object::parse_line(data).is_err());
        return;
    };
    assert!(range.start < range.end && range.end <= data.len());
    assert_eq!(scan::skip_ws(data, 0), range.start);
    assert_eq!(scan::skip_ws(data, range.end), data.len());
    assert_eq!(scan::scan_value(data, range.start).ok(), Some(range.end));

    // JSON.stringify(JSON.parse(x)): valid JSON, a fixed point, same value.
    let canon = js::canonical_vec(data, range.clone()).expect("canonical of valid JSON");
    let crange = scan::validate(&canon).expect("canonical output is valid JSON");
    assert_eq!(
        crange,
        0..canon.len(),
        "canonical output has no spaces around"
    );
    assert!(
        std::str::from_utf8(&canon).is_ok(),
        "canonical output is UTF-8"
    );
    let again = js::canonical_vec(&canon, crange).expect("canonical of canonical");
    assert_eq!(again, canon, "canonical is not idempotent");
    if let Some(v) = &serde {
        let w: serde_json::Value =
            serde_json::from_slice(&canon).expect("serde_json re-parses canonical output");
        assert!(same_value(v, &w), "canonical changed the value");
    }

    // The object view: every member findable, the last duplicate winning.
    match Object::parse_line(data).expect("parse_line of valid JSON") {
        Some(obj) => {
            assert_eq!(data[range.start], b'{');
            for (n, m) in obj.members.iter().enumerate() {
                assert_eq!(data[m.key.start], b'"');
                let key = js::decode_string(data, m.key.clone());
                // A key with bytes that are not UTF-8 reads as U+FFFD in
                // Node; no key the tools look up has one, and `key_is`
                // compares such keys by their bytes.
                if std::str::from_utf8(&data[m.key.clone()]).is_ok() {
                    let found = obj.get(&key).expect("member key findable");
                    let last = obj
                        .members
                        .iter()
                        .rposition(|o| crate::json::key_is(data, &o.key, &key))
                        .unwrap_or(n);
                    assert_eq!(found, obj.members[last].value);
                    assert!(obj.canonical(&key).expect("member canonical").is_some());
                }
                let found = m.value.clone();
                assert!(scan::scan_value(data, found.start).ok() == Some(found.end));
                assert!(js::canonical_vec(data, found.clone()).is_ok());
                // Dates of any value never panic and stay in JS's range.
                let ms = time::js_date_ms(&data[found.clone()]);
                assert!(ms.is_nan() || (ms.fract() == 0.0 && ms.abs() <= 8.64e15));
            }
            if let Some(v) = serde.as_ref().and_then(|v| v.as_object()) {
                assert_eq!(
                    v.len(),
                    obj.members
                        .iter()
                        .map(|m| js::decode_string(data, m.key.clone()))
                        .collect::<HashSet<_>>()
                        .len()
                );
            }
        }
        None => assert_ne!(data[range.start], b'{'),
    }

    let ms = time::js_date_ms(&data[range]);
    check_ms(ms);
}

fn check_ms(ms: f64) {
    assert!(
        ms.is_nan() || (ms.fract() == 0.0 && ms.abs() <= 8.64e15),
        "{ms}"
    );
    if ms.is_finite() {
        // The ISO text of a time reads back as the same time.
        let iso = time::iso_string(ms as i64);
        assert_eq!(time::parse_iso(&iso), ms, "{iso}");
        let quoted = format!("\"{iso}\"");
        assert_eq!(time::js_date_ms(quoted.as_bytes()), ms, "{iso}");
    }
}

/// Target `date`: arbitrary text as a JSON string given to `new Date()`.
pub fn date(data: &[u8]) {
    if data.len() > 256 {
        return;
    }
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    check_ms(time::parse_iso(s));
    let mut q = Vec::new();
    js::write_str(&mut q, s);
    check_ms(time::js_date_ms(&q));
}

/// Split a fuzz input into a session text and a REF: the REF is what
/// follows the first NUL byte (none: `leaf`).
fn split_ref(data: &[u8]) -> (&[u8], String) {
    match memchr::memchr(0, data) {
        Some(p) => (
            &data[..p],
            String::from_utf8_lossy(&data[p + 1..]).into_owned(),
        ),
        None => (data, "leaf".to_string()),
    }
}

/// Target `session`: reading, the index, paths, REFs, the context, the
/// tree and its renderings, and the label list.
pub fn session(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let (text, reference) = split_ref(data);
    for strict in [false, true] {
        let read = |canonical| {
            Session::from_bytes(
                "fuzz.jsonl",
                text.to_vec(),
                ReadOptions {
                    strict,
                    canonical,
                    glances: canonical,
                    roles: canonical,
                    talk: canonical,
                },
            )
        };
        let (plain, quick) = (read(false), read(true));
        let Ok(s) = plain else {
            let (e, f) = (plain.err(), quick.err());
            assert_eq!(
                e.map(|e| e.to_string()),
                f.map(|e| e.to_string()),
                "reading for pi-tree --json fails otherwise"
            );
            continue;
        };
        let q = quick.expect("reading for pi-tree --json fails where reading does not");
        same_reading(&s, &q);
        check_session(&s, &reference);
    }
}

/// The glance the load took of entry `i` (with [`ReadOptions::glances`])
/// is what a look at its line that validates every value finds.
fn same_glance(q: &Session, i: usize) {
    use crate::entry::glance::{glance_checked, Glance};
    assert_eq!(q.glances.len(), q.entries.len(), "a glance per entry");
    if q.version() < crate::migrate::CURRENT_VERSION {
        return;
    }
    let want = match q.entries[i].ty() {
        EntryType::Message => {
            let line = q.line(i).expect("an entry's line");
            match crate::json::Object::parse_line(&line) {
                Ok(Some(obj)) => glance_checked(&obj),
                _ => Glance::default(),
            }
        }
        _ => Glance::default(),
    };
    assert_eq!(q.glances[i], want, "the load's glance of entry {i}");
}

/// The role the load found of entry `i` (with [`ReadOptions::roles`]),
/// when it found one, is what a look at its line that validates every
/// value finds.
fn same_role(q: &Session, i: usize) {
    use crate::entry::glance::{info_of, MSG_NONE, MSG_ROLE, ROLE_UNKNOWN};
    assert_eq!(q.roles.len(), q.entries.len(), "a role per entry");
    let (EntryType::Message, r) = (q.entries[i].ty(), q.roles[i]) else {
        assert_eq!(q.roles[i], 0, "a role for an entry that is no message");
        return;
    };
    if r == ROLE_UNKNOWN {
        return;
    }
    let line = q.raw_line(i).expect("an entry's line");
    let want = match crate::json::Object::parse_line(&line) {
        Ok(Some(obj)) => match obj.raw("message") {
            None | Some(b"null") => MSG_NONE,
            Some(_) => info_of(obj.object("message").as_ref()) & MSG_ROLE,
        },
        _ => MSG_NONE,
    };
    assert_eq!(r, want, "the load's role of entry {i}");
}

/// A session read with [`ReadOptions::canonical`] is the same session, and
/// each line it marks canonical is `JSON.stringify`'s text; `pi-tree --json`
/// prints the same.
fn same_reading(s: &Session, q: &Session) {
    assert_eq!(s.entries.len(), q.entries.len());
    let shown =
        |w: &[crate::error::Diagnostic]| w.iter().map(|d| d.to_string()).collect::<Vec<_>>();
    assert_eq!(shown(&s.warnings), shown(&q.warnings));
    for (i, (a, b)) in s.entries.iter().zip(q.entries.iter()).enumerate() {
        assert_eq!(
            (
                a.line(),
                a.offset(),
                a.byte_len(),
                a.ty(),
                a.time().to_bits()
            ),
            (
                b.line(),
                b.offset(),
                b.byte_len(),
                b.ty(),
                b.time().to_bits()
            )
        );
        assert_eq!(s.entries.id_string(i), q.entries.id_string(i));
        assert_eq!(s.index.parent_of(i), q.index.parent_of(i));
        assert!(!a.is_canonical(), "marked canonical without being asked");
        same_glance(q, i);
        same_role(q, i);
        if b.is_canonical() {
            let line = q.line(i).expect("an entry's line");
            let long =
                js::canonical_long_way(&line, 0..line.len()).expect("a canonical line is JSON");
            assert_eq!(
                long,
                &line[..],
                "a line marked canonical is not JSON.stringify's text"
            );
        }
    }
    // Only trees of a sensible size (see `check_session`).
    let n = s.entries.len();
    if crate::tree::Tree::build(s).walk_len(4 * n + 64).is_none() {
        return;
    }
    // The context's walk by the load's roles finds what reading every
    // message finds.
    let context = |s: &Session| match context::build(s, s.index.leaf) {
        Ok(c) => format!("{:?} {:?} {:?}", c.items, c.thinking_level, c.model),
        Err(e) => e.to_string(),
    };
    assert_eq!(context(s), context(q), "the context by the load's roles");
    use crate::cmd::tree::{render, Format, Options};
    let quiet = crate::cli::Log {
        tool: "fuzz",
        quiet: true,
    };
    let opts = Options {
        format: Format::Json,
        filter: None,
        search: None,
        leaf: None,
        ids: false,
        width: None,
        color: false,
        out_fd: None,
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let (ra, rb) = (
        render(s, &opts, &mut a, quiet),
        render(q, &opts, &mut b, quiet),
    );
    assert_eq!(ra.is_ok(), rb.is_ok());
    assert_eq!(a, b, "pi-tree --json differs with lines read as canonical");
}

/// Every invariant of a session that read without error.
pub fn check_session(s: &Session, reference: &str) {
    let n = s.entries.len();
    assert!((0..n).all(|i| s.index.parent_of(i).is_none_or(|p| p < n)));
    assert!(s.header_line().is_ok());
    for (i, e) in s.entries.iter().enumerate() {
        let line = s.line(i).expect("line of a read entry");
        let obj = s
            .object(&line, e.line())
            .expect("an entry line is an object");
        // What the index keeps agrees with the line pi holds.
        if e.ty() != EntryType::Session {
            let id = s.entries.id(i);
            // Objects and arrays are keys only to themselves: compare text.
            let plain = |id: Option<Id>| id.map(|id| (id.to_string(), id.to_json()));
            assert_eq!(plain(obj.raw("id").map(Id::from_value)), plain(id.clone()));
            assert_eq!(e.has_id(), id.is_some());
            if let Some(id) = &id {
                assert!(s.entries.has_this_id(i, id));
            }
            let parent = s.entries.parent(i);
            assert_eq!(parent, Parent::from_object(&obj));
            assert_eq!(s.entries.parent_id(i).as_ref(), parent.id());
            let own = matches!((&parent, &id), (Parent::Id(p), Some(id)) if p == id);
            assert_eq!(s.entries.is_own_parent(i), own);
            for j in 0..n.min(64) {
                assert_eq!(s.entries.same_id(i, j), id == s.entries.id(j));
            }
        }
        assert!(e.time().is_nan() || e.time().fract() == 0.0);
        if i > 0 {
            assert!(s.entries[i - 1].line() < e.line());
        }
        assert_eq!(s.entry_at_line(e.line()), Some(i));
    }
    if let Some(l) = s.index.leaf {
        assert!(l < n && s.entries[l].ty() != EntryType::Session);
    }

    // Paths: root first, each step the index's parent, no repeats; an error
    // only for a real cycle.
    let mut paths: Vec<Option<Vec<usize>>> = Vec::with_capacity(n);
    for i in 0..n {
        match path::path_to(s, i) {
            Ok(p) => {
                assert_eq!(p.last(), Some(&i));
                assert_eq!(
                    s.index.parent_of(p[0]),
                    None,
                    "path does not start at a root"
                );
                for w in p.windows(2) {
                    assert_eq!(s.index.parent_of(w[1]), Some(w[0]));
                }
                let set: HashSet<_> = p.iter().collect();
                assert_eq!(set.len(), p.len(), "path repeats an entry");
                assert_eq!(path::root_of(s, i).ok(), Some(p[0]));
                paths.push(Some(p));
            }
            Err(_) => {
                let mut seen = HashSet::new();
                let mut cur = i;
                let mut cyclic = false;
                while let Some(p) = s.index.parent_of(cur) {
                    if !seen.insert(p) {
                        cyclic = true;
                        break;
                    }
                    cur = p;
                }
                assert!(cyclic, "path_to failed without a cycle");
                paths.push(None);
            }
        }
    }
    for l in path::leaves(s) {
        assert!(s.entries[l].ty() != EntryType::Session);
    }

    // REFs resolve to an entry or fail cleanly.
    for r in [reference, "leaf", "root", "leaf~1", "leaf^"] {
        if let Ok(i) = refs::resolve(s, r) {
            assert!(i < n, "REF {r:?} resolved out of range");
        }
    }

    // The context at pi's leaf and at the fuzzed REF.
    let mut leaves = vec![s.index.leaf];
    if let Ok(i) = refs::resolve(s, reference) {
        leaves.push(Some(i));
    }
    for leaf in leaves {
        let ok_path = leaf.is_none_or(|l| paths[l].is_some());
        // pi 1.6 fails (TypeError) on a message entry without a message and
        // on a context edit without a replacement: so do we, with the line.
        let pi_fails = |e: &crate::error::Error| e.to_string().contains("pi 1.6 fails on it");
        match context::build(s, leaf) {
            Ok(ctx) => {
                for item in ctx.items {
                    match context::message_json(s, item) {
                        Ok(Some(m)) => assert!(scan::validate(&m).is_ok(), "message JSON invalid"),
                        Ok(None) => {}
                        Err(e) => assert!(pi_fails(&e), "message_json: {e}"),
                    }
                }
                if let Some(t) = ctx.thinking_level {
                    assert!(scan::validate(&t).is_ok());
                }
                if let Some(m) = ctx.model {
                    assert!(scan::validate(&m).is_ok());
                }
            }
            Err(e) => assert!(
                !ok_path || pi_fails(&e),
                "context::build failed on an acyclic path: {e}"
            ),
        }
    }

    // The tree: every entry is walked, unreachable, or shadowed by a later
    // duplicate id; without duplicates each is walked exactly once.
    let tree = Tree::build(s);
    // An acyclic path reaches a root, so the tree walks it; but pi's
    // getTree looks every parentId but null up, where getBranch stops at a
    // falsy one: a path whose root names a missing or falsy parent (0, "",
    // false; undefined is an id-less entry's id) can be on a getTree cycle.
    let tree_roots_path = |i: usize| {
        paths[i]
            .as_ref()
            .is_some_and(|p| match s.entries.parent(p[0]) {
                Parent::Missing => false,
                Parent::Id(id) => id.truthy(),
                _ => true,
            })
    };
    for &u in &tree.unreachable {
        assert!(
            !tree_roots_path(u),
            "entry {u} has a path but is unreachable"
        );
    }
    // With duplicate ids the walk enters a node once per path to it, which
    // can be exponential (pi's getTree does the same): such inputs are only
    // read, not rendered (tests/fuzz-regressions/session/duplicated-file-*).
    if tree.walk_len(4 * n + 64).is_none() {
        return;
    }
    let mut entered = vec![0usize; n];
    let mut depth_ok = true;
    let mut stack: Vec<usize> = Vec::new();
    tree.walk(|step| match step {
        Step::Enter {
            node,
            parent,
            depth,
        } => {
            entered[node] += 1;
            depth_ok &= depth == stack.len() && parent == stack.last().copied();
            stack.push(node);
        }
        Step::Leave { node } => {
            depth_ok &= stack.pop() == Some(node);
        }
        Step::Cycle { .. } => {}
    });
    assert!(depth_ok && stack.is_empty(), "tree walk is not well nested");
    let with_id = (0..n).filter(|&i| s.entries[i].ty() != EntryType::Session);
    let mut ids = HashSet::new();
    let mut no_id = 0;
    let mut dup = false;
    for i in with_id {
        match s.entries.id(i) {
            Some(id) => dup |= !ids.insert(id),
            None => no_id += 1,
        }
    }
    dup |= no_id > 1;
    for &u in &tree.unreachable {
        assert_eq!(entered[u], 0, "an unreachable entry was walked");
    }
    if !dup {
        for (i, e) in s.entries.iter().enumerate() {
            if e.ty() == EntryType::Session {
                assert_eq!(entered[i], 0);
                continue;
            }
            let unreachable = tree.unreachable.contains(&i);
            assert_eq!(
                entered[i] + usize::from(unreachable),
                1,
                "entry {i} walked {} times",
                entered[i]
            );
            // (The tree also roots a self-parent, whose path is a cycle.)
            if tree_roots_path(i) {
                assert!(!unreachable, "entry {i} has a path but is unreachable");
            }
        }
    }

    // Every rendering runs; the JSON ones write valid JSON.
    use crate::cmd::tree::{render, Filter, Format, Options};
    let quiet = crate::cli::Log {
        tool: "fuzz",
        quiet: true,
    };
    for (format, filter) in [
        (Format::Json, None),
        (Format::Jsonl, None),
        (Format::Dot, None),
        (Format::Text, None),
        (Format::Text, Some(Filter::All)),
        (Format::Text, Some(Filter::UserOnly)),
        (Format::Text, Some(Filter::LabeledOnly)),
    ] {
        let opts = Options {
            format,
            filter,
            search: None,
            leaf: None,
            ids: true,
            width: Some(60),
            color: false,
            out_fd: None,
        };
        let mut out = Vec::new();
        let r = render(s, &opts, &mut out, quiet);
        if format == Format::Json {
            r.expect("pi-tree --format json");
            let line = out.strip_suffix(b"\n").unwrap_or(&out);
            assert!(scan::validate(line).is_ok(), "pi-tree json is not JSON");
        } else if format == Format::Jsonl && r.is_ok() {
            for line in out.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                assert!(
                    scan::validate(line).is_ok(),
                    "pi-tree jsonl line is not JSON"
                );
            }
        }
        if format == Format::Text {
            assert!(std::str::from_utf8(&out).is_ok());
        }
    }
    let opts = Options {
        format: Format::Text,
        filter: None,
        search: Some("a".into()),
        leaf: Some(reference.to_string()),
        ids: false,
        width: None,
        color: true,
        out_fd: None,
    };
    let _ = render(s, &opts, &mut Vec::new(), quiet);

    // Labels: JSON lines are JSON; each label is the last one set.
    let mut out = Vec::new();
    if crate::cmd::label::list(s, true, &mut out).is_ok() {
        for line in out.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            assert!(scan::validate(line).is_ok(), "label JSON invalid");
        }
    }
}

/// Target `migrate`: bringing a file to version 3 keeps what pi sees and
/// is idempotent.
pub fn migrate(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let opts = MigrateOptions {
        keep_malformed: true,
        random_ids: false,
        drop_torn: false,
    };
    let Ok(outcome) = migrate_bytes("fuzz.jsonl", data, opts) else {
        return;
    };
    let old = Session::from_bytes("fuzz.jsonl", data.to_vec(), ReadOptions::default())
        .expect("migrate_bytes read it");
    let new_bytes = match outcome {
        Outcome::Current => {
            assert!(old.version() >= 3);
            return;
        }
        Outcome::Migrated { bytes, .. } => bytes,
    };
    assert!(old.version() < 3);
    // Same number of lines: nothing dropped, nothing added.
    assert_eq!(
        memchr::memchr_iter(b'\n', data).count(),
        memchr::memchr_iter(b'\n', &new_bytes).count()
    );
    // Idempotent.
    match migrate_bytes("fuzz.jsonl", &new_bytes, opts) {
        Ok(Outcome::Current) => {}
        Ok(Outcome::Migrated { .. }) => panic!("migrated file migrates again"),
        Err(e) => panic!("migrated file does not read: {e:?}"),
    }
    let new = Session::from_bytes("fuzz.jsonl", new_bytes, ReadOptions::default())
        .expect("migrated file reads");
    assert!(new.version() >= 3);
    // What pi holds after opening the old file is what the new file says.
    assert_eq!(old.entries.len(), new.entries.len(), "entry count changed");
    assert_eq!(
        old.header_line().expect("old header").as_ref(),
        new.header_line().expect("new header").as_ref(),
        "header differs"
    );
    for i in 0..old.entries.len() {
        let a = old.line(i).expect("old line");
        let b = new.line(i).expect("new line");
        assert_eq!(
            String::from_utf8_lossy(&a),
            String::from_utf8_lossy(&b),
            "entry {i} differs"
        );
        assert_eq!(old.entries.id(i), new.entries.id(i));
        assert_eq!(
            path::path_to(&old, i).ok(),
            path::path_to(&new, i).ok(),
            "path to {i} differs"
        );
    }
    assert_eq!(old.index.leaf, new.index.leaf);
}

/// Target `convert`: every output format of `pi-convert`, from a session
/// or a message stream; the LLM output is JSON lines.
pub fn convert(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    use crate::cmd::convert::{convert_bytes, From, Options, To};
    let (text, reference) = split_ref(data);
    for to in [To::Llm, To::Markdown, To::Html, To::Text] {
        for from in [None, Some(From::Session), Some(From::Messages)] {
            for (include_hidden, as_sent) in [(false, false), (true, false), (false, true)] {
                let opts = Options {
                    from,
                    to,
                    leaf: reference.clone(),
                    include_hidden,
                    as_sent,
                    read: ReadOptions::default(),
                    log: crate::cli::Log {
                        tool: "fuzz",
                        quiet: true,
                    },
                };
                let mut out = Vec::new();
                if convert_bytes("fuzz.jsonl", text.to_vec(), &opts, &mut out).is_err() {
                    continue;
                }
                if to == To::Llm {
                    for line in out.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                        assert!(scan::validate(line).is_ok(), "LLM output line is not JSON");
                    }
                }
                if to == To::Html || to == To::Markdown || to == To::Text {
                    let shown = std::str::from_utf8(&out);
                    assert!(shown.is_ok(), "{to:?} output not UTF-8");
                    // No control character from the session reaches a terminal.
                    assert!(
                        !shown
                            .unwrap_or_default()
                            .chars()
                            .any(|c| c.is_control() && c != '\n' && c != '\t'),
                        "{to:?} output holds a control character"
                    );
                }
            }
        }
    }
}

/// `pi-label --list` into `out`, for the property tests (the command's
/// functions are the crate's own).
pub fn label_list(
    s: &Session,
    json: bool,
    out: &mut impl std::io::Write,
) -> crate::error::Result<()> {
    crate::cmd::label::list(s, json, out)
}
