//! pi-grep's options as grep and ripgrep users type them (issue 35): -x,
//! -L, -H/-I, -n, -E, -q, and -v refused with a reason; exit status as
//! grep's.
use super::{grep_in, grep_out, setup};

fn code(o: &std::process::Output) -> Option<i32> {
    o.status.code()
}

#[test]
fn x_matches_whole_lines_of_a_text() {
    let t = setup("grep-x");
    let d = t.path();
    // A line of a multi-line text is a line: "done" alone matches.
    assert_eq!(
        grep_out(d, &["-x", "done", "s.jsonl"]),
        "s.jsonl:aaaa0009:user/text: done\n"
    );
    // A part of a line does not.
    let o = grep_in(d, &["-x", "migrate", "s.jsonl"]);
    assert_eq!(code(&o), Some(1), "{}", super::stdout(&o));
    assert_eq!(
        grep_out(d, &["-x", "-i", "i WILL migrate IT.", "s.jsonl"]),
        "s.jsonl:aaaa0002:assistant/text: I will migrate it.\n"
    );
    // Alternatives are each anchored whole.
    assert_eq!(
        grep_out(d, &["-x", "-c", "done|thanks", "s.jsonl"]),
        "s.jsonl:2\n"
    );
}

#[test]
fn l_lists_sessions_without_a_match() {
    let t = setup("grep-L");
    t.write(
        "b.jsonl",
        super::SESSION.replace("caf\\u00e9", "tea").as_bytes(),
    );
    let d = t.path();
    let o = grep_in(d, &["-L", "café", "s.jsonl", "b.jsonl"]);
    // grep's status: 0 when a line matched somewhere
    assert_eq!(code(&o), Some(0));
    assert_eq!(super::stdout(&o), "b.jsonl\n");
    let o = grep_in(d, &["-L", "zzz-nowhere", "s.jsonl", "b.jsonl"]);
    assert_eq!(code(&o), Some(1));
    assert_eq!(super::stdout(&o), "s.jsonl\nb.jsonl\n");
    let o = grep_in(d, &["-L", "-0", "zzz-nowhere", "b.jsonl"]);
    assert_eq!(o.stdout, b"b.jsonl\0");
    // Not searched (outside --since): not listed.
    let o = grep_in(d, &["-L", "--since", "2099-01-01", "zzz", "s.jsonl"]);
    assert_eq!(super::stdout(&o), "");
    let o = grep_in(d, &["-L", "-l", "x", "s.jsonl"]);
    assert_eq!(code(&o), Some(2));
}

#[test]
fn filename_and_line_numbers() {
    let t = setup("grep-HIn");
    let d = t.path();
    assert_eq!(
        grep_out(d, &["-I", "café db", "s.jsonl"]),
        "aaaa0001:user/text: please migrate the café db\n"
    );
    // The last of -H and -I wins.
    assert_eq!(
        grep_out(d, &["-I", "-H", "café db", "s.jsonl"]),
        "s.jsonl:aaaa0001:user/text: please migrate the café db\n"
    );
    assert_eq!(grep_out(d, &["-I", "-c", "migrate", "s.jsonl"]), "4\n");
    // -n: the entry's line in the session file, after the path.
    assert_eq!(
        grep_out(d, &["-n", "done", "s.jsonl"]),
        "s.jsonl:10:aaaa0009:user/text: done\n"
    );
    assert_eq!(
        grep_out(d, &["-n", "-A1", "done", "s.jsonl"]),
        "s.jsonl:10:aaaa0009:user/text: done\ns.jsonl-10-aaaa0009-user/text- thanks\n"
    );
    assert_eq!(
        grep_out(d, &["-n", "--heading", "always", "done", "s.jsonl"]),
        "s.jsonl\n10:aaaa0009:user/text: done\n"
    );
    // -E is accepted and changes nothing.
    assert_eq!(
        grep_out(d, &["-E", "-c", "rate|café", "s.jsonl"]),
        grep_out(d, &["-c", "rate|café", "s.jsonl"])
    );
}

#[test]
fn q_is_quiet_with_the_status_alone() {
    let t = setup("grep-q");
    let d = t.path();
    let o = grep_in(d, &["-q", "migrate", "s.jsonl"]);
    assert_eq!((code(&o), o.stdout.len()), (Some(0), 0));
    let o = grep_in(d, &["-q", "zzz-nowhere", "s.jsonl"]);
    assert_eq!((code(&o), o.stdout.len()), (Some(1), 0));
    // Quiet overrides the other outputs.
    for other in ["-l", "-L", "-c", "--json", "-o"] {
        let o = grep_in(d, &["-q", other, "migrate", "s.jsonl"]);
        assert_eq!((code(&o), o.stdout.len()), (Some(0), 0), "{other}");
    }
    // A session that cannot be read: 2, but a match is 0 even so (grep -q).
    let o = grep_in(d, &["-q", "migrate", "missing.jsonl"]);
    assert_eq!(code(&o), Some(2), "{}", super::stderr(&o));
    let o = grep_in(d, &["-q", "migrate", "s.jsonl", "missing.jsonl"]);
    assert_eq!(code(&o), Some(0), "{}", super::stderr(&o));
}

#[test]
fn v_is_refused_with_a_reason() {
    let t = setup("grep-v");
    for args in [&["-v", "x", "s.jsonl"][..], &["--invert-match", "x"]] {
        let o = grep_in(t.path(), args);
        assert_eq!(code(&o), Some(2));
        let e = super::stderr(&o);
        assert!(e.contains("-v (--invert-match) is not supported"), "{e}");
        assert!(e.contains("-L lists the sessions without a match"), "{e}");
        assert!(!e.contains("unexpected argument"), "{e}");
    }
}
