//! Scale: a million-entry chain and a million-sibling fan-out. Every tool
//! must finish on both (no operation worse than O(n log n) in the number of
//! entries); there is no timing assertion, only that each run succeeds and
//! says the right thing.
//!
//! Ignored by default (a few minutes unoptimised); `.ci/run` runs it in
//! release: `cargo test --release --test tests scale:: -- --ignored`.

use crate::common::{header, message_at, run_ok, stdout, TempDir};
use std::io::Write;

const N: usize = 1_000_000;

fn id(i: usize) -> String {
    format!("{:08x}", i * 2654435761 % (1 << 32))
}

fn begin(out: &mut Vec<u8>) {
    let id = "0199a000-0000-7000-8000-000000000000";
    writeln!(
        out,
        "{}",
        header(id, "2026-01-01T00:00:00.000Z", "/tmp", None)
    )
    .unwrap();
}

fn entry(out: &mut Vec<u8>, i: usize, parent: Option<usize>) {
    let role = if i.is_multiple_of(2) {
        "user"
    } else {
        "assistant"
    };
    let at = format!(
        "2026-01-01T00:{:02}:{:02}.{:03}Z",
        (i / 60_000) % 60,
        (i / 1000) % 60,
        i % 1000
    );
    let message = format!(r#"{{"role":"{role}","content":"m{i}","timestamp":1}}"#);
    let parent = parent.map(id);
    writeln!(
        out,
        "{}",
        message_at(&id(i), parent.as_deref(), &at, &message)
    )
    .unwrap();
}

fn ok(tool: &str, args: &[&str]) -> String {
    stdout(&run_ok(tool, args))
}

#[test]
#[ignore = "a few minutes unoptimised; .ci/run runs it in release"]
fn million_entry_chain() {
    let t = TempDir::new("scale-chain");
    let mut s = Vec::with_capacity(N * 150);
    begin(&mut s);
    for i in 0..N {
        entry(&mut s, i, i.checked_sub(1));
    }
    let f = t.write("chain.jsonl", &s);
    drop(s);
    let f = f.to_str().unwrap();

    let ids = ok("pi-path", &["--format", "ids", f]);
    assert_eq!(ids.lines().count(), N);
    assert_eq!(ids.lines().next(), Some(id(0).as_str()));
    assert_eq!(ids.lines().last(), Some(id(N - 1).as_str()));

    let mid = id(N / 2);
    let ids = ok(
        "pi-path",
        &["--format", "ids", "--leaf", &format!("{mid}~10"), f],
    );
    assert_eq!(ids.lines().count(), N / 2 - 9);

    let msgs = ok("pi-path", &["--format", "messages", f]);
    assert_eq!(msgs.lines().count(), N);

    let leaves = ok("pi-path", &["--leaves", f]);
    assert_eq!(leaves.lines().count(), 1);
    assert!(leaves.contains(&format!("\"depth\":{N}")), "{leaves}");

    let stats = ok("pi-tree", &["--stats", f]);
    assert!(stats.contains(&format!("\"entries\":{N},")), "{stats}");
    assert!(stats.contains("\"leaves\":1,"), "{stats}");
    let text = ok("pi-tree", &[f]);
    assert!(text.lines().count() >= N);
    let json = ok("pi-tree", &["--json", f]);
    assert!(json.starts_with("[{\"entry\":"));

    let llm = ok("pi-convert", &[f]);
    assert_eq!(llm.lines().count(), N);

    // Labels: the fast path (full id, leaf) and the slow one (a prefix).
    ok("pi-label", &[f, &mid, "middle"]);
    ok("pi-label", &[f, "leaf", "end"]);
    ok("pi-label", &[f, &id(7)[..6], "early"]);
    let list = ok("pi-label", &["--list", f]);
    assert_eq!(list.lines().count(), 3, "{list}");
    assert!(list.contains(&format!("{mid}\tmiddle")), "{list}");
}

#[test]
#[ignore = "a few minutes unoptimised; .ci/run runs it in release"]
fn million_sibling_fan_out() {
    let t = TempDir::new("scale-fan");
    let mut s = Vec::with_capacity(N * 150);
    begin(&mut s);
    entry(&mut s, 0, None);
    for i in 1..N {
        entry(&mut s, i, Some(0));
    }
    let f = t.write("fan.jsonl", &s);
    drop(s);
    let f = f.to_str().unwrap();

    let ids = ok("pi-path", &["--format", "ids", f]);
    assert_eq!(ids, format!("{}\n{}\n", id(0), id(N - 1)));

    let leaves = ok("pi-path", &["--leaves", f]);
    assert_eq!(leaves.lines().count(), N - 1);

    let stats = ok("pi-tree", &["--stats", f]);
    assert!(stats.contains(&format!("\"leaves\":{},", N - 1)), "{stats}");
    assert!(stats.contains("\"branchPoints\":1,"), "{stats}");
    let text = ok("pi-tree", &[f]);
    assert!(text.lines().count() >= N);
    let json = ok("pi-tree", &["--json", f]);
    assert!(json.starts_with("[{\"entry\":"));
    let jsonl = ok("pi-tree", &["--format", "jsonl", f]);
    assert_eq!(jsonl.lines().count(), N);

    let ctx = ok(
        "pi-path",
        &["--format", "messages", "--leaf", &id(N / 2), f],
    );
    assert_eq!(ctx.lines().count(), 2);

    ok("pi-label", &[f, &id(N / 3), "third"]);
    let list = ok("pi-label", &["--list", f]);
    assert!(list.starts_with(&format!("{}\tthird", id(N / 3))), "{list}");
}
