//! pi's `/tree` text of entries, case by case.

use super::*;

fn obj(t: &str) -> Object<'_> {
    Object::parse_line(t.as_bytes()).unwrap().unwrap()
}

fn row(d: &Display, ty: EntryType, t: &str) -> Result<Vec<Seg>, &'static str> {
    d.text(ty, &obj(t))
}

fn seg(t: &str, c: Option<&'static str>) -> Seg {
    (t.to_string().into(), c)
}

#[test]
fn the_query_is_its_lower_case_words() {
    let q = Query::new("  Foo\u{3000}BAR\u{feff}");
    assert!(!q.is_empty());
    assert!(q.matches("xx FOO yy bar"));
    assert!(!q.matches("foo"));
    assert!(Query::new(" \t\u{a0}").is_empty());
    assert!(Query::new("").matches("anything"));
}

#[test]
fn searchable_text_of_entries() {
    let m =
        r#"{"type":"message","message":{"role":"bashExecution","command":"ls -l","content":"x"}}"#;
    assert_eq!(
        searchable(EntryType::Message, Some("L"), &obj(m)),
        "L bashExecution x ls -l"
    );
    let c = r#"{"type":"custom_message","customType":"note","content":[{"type":"text","text":"hi"},{"type":"image"}]}"#;
    assert_eq!(
        searchable(EntryType::CustomMessage, None, &obj(c)),
        "note hi"
    );
    let e = r#"{"type":"context_edit","targetId":"t1","replacement":null}"#;
    assert_eq!(
        searchable(EntryType::ContextEdit, None, &obj(e)),
        "context edit omit t1"
    );
    let l = r#"{"type":"label","label":null}"#;
    assert_eq!(searchable(EntryType::Label, None, &obj(l)), "label ");
}

#[test]
fn rows_of_messages() {
    let d = Display::with_home("");
    let m = EntryType::Message;
    assert_eq!(
        row(
            &d,
            m,
            r#"{"message":{"role":"user","content":"  hello\n\tworld  "}}"#
        ),
        Ok(vec![seg("user: ", Some(ACCENT)), seg("hello  world", None)])
    );
    assert_eq!(
        row(
            &d,
            m,
            r#"{"message":{"role":"assistant","content":[],"errorMessage":"boom"}}"#
        ),
        Ok(vec![
            seg("assistant: ", Some(SUCCESS)),
            seg("boom", Some(ERROR))
        ])
    );
    assert_eq!(
        row(
            &d,
            m,
            r#"{"message":{"role":"assistant","content":"","stopReason":"aborted"}}"#
        ),
        Ok(vec![
            seg("assistant: ", Some(SUCCESS)),
            seg("(aborted)", Some(DIM))
        ])
    );
    assert_eq!(
        row(&d, m, r#"{"type":"message"}"#),
        Ok(vec![seg("[message]", Some(DIM))])
    );
    assert_eq!(
        row(
            &d,
            m,
            r#"{"message":{"role":"toolResult","toolName":null}}"#
        ),
        Ok(vec![seg("[tool]", Some(DIM))])
    );
    assert_eq!(
        row(
            &d,
            m,
            r#"{"message":{"role":"toolResult","toolCallId":"c9","toolName":"x"}}"#
        ),
        Ok(vec![seg("[x]", Some(DIM))])
    );
}

#[test]
fn tool_results_show_their_calls() {
    let mut d = Display::with_home("/home/u/");
    let call = |name: &str, args: &str| {
        format!(
            r#"{{"role":"assistant","content":[{{"type":"toolCall","id":"{name}","name":"{name}","arguments":{args}}}]}}"#
        )
    };
    let long = "x".repeat(60);
    for (name, args) in [
        (
            "read",
            r#"{"path":"/home/u/src/a.rs","offset":10,"limit":5}"#.to_string(),
        ),
        ("write", r#"{"file_path":"/home/u"}"#.to_string()),
        ("grep", r#"{"pattern":"a|b"}"#.to_string()),
        ("bash", format!(r#"{{"command":"\n {long}"}}"#)),
        ("other", r#"{"a":1}"#.to_string()),
    ] {
        d.add_tool_calls(&obj(&call(name, &args)));
    }
    let result = |id: &str| {
        let t = format!(r#"{{"message":{{"role":"toolResult","toolCallId":"{id}"}}}}"#);
        d.text(EntryType::Message, &obj(&t)).unwrap()
    };
    assert_eq!(result("read"), [seg("[read: ~/src/a.rs:10-14]", Some(DIM))]);
    assert_eq!(result("write"), [seg("[write: ~]", Some(DIM))]);
    assert_eq!(result("grep"), [seg("[grep: /a|b/ in .]", Some(DIM))]);
    let bash = format!("[bash: {}...]", "x".repeat(50));
    assert_eq!(result("bash"), [seg(&bash, Some(DIM))]);
    assert_eq!(result("other"), [seg(r#"[other: {"a":1}]"#, Some(DIM))]);
}

#[test]
fn rows_of_other_entries() {
    let d = Display::with_home("");
    let cm = EntryType::CustomMessage;
    for bad in ["null", "[null]", "5"] {
        let t = format!(r#"{{"customType":"note","content":{bad}}}"#);
        assert_eq!(row(&d, cm, &t), Err(CUSTOM_MESSAGE_REFUSED), "{bad}");
    }
    assert_eq!(
        row(
            &d,
            cm,
            r#"{"customType":"note","content":[{"type":"text","text":" a"},{"type":"text","text":1}]}"#
        ),
        Ok(vec![seg("[note]: ", Some(WARNING)), seg("a1", None)])
    );
    assert_eq!(
        row(&d, EntryType::Compaction, r#"{"tokensBefore":12500}"#),
        Ok(vec![seg("[compaction: 13k tokens]", Some(ACCENT))])
    );
    assert_eq!(
        row(&d, EntryType::Compaction, "{}"),
        Ok(vec![seg("[compaction: NaNk tokens]", Some(ACCENT))])
    );
    assert_eq!(
        row(&d, EntryType::Label, r#"{"label":null}"#),
        Ok(vec![seg("[label: (cleared)]", Some(DIM))])
    );
    assert_eq!(
        row(&d, EntryType::SessionInfo, r#"{"name":""}"#),
        Ok(vec![seg("[title: empty]", Some(DIM))])
    );
    assert_eq!(
        row(&d, EntryType::ModelChange, "{}"),
        Ok(vec![seg("[model: undefined]", Some(DIM))])
    );
}

#[test]
fn read_ranges_and_home_paths() {
    let r = |o: Option<&str>, l: Option<&str>| {
        read_line_range(o.map(str::as_bytes), l.map(str::as_bytes))
    };
    assert_eq!(r(None, None), "");
    assert_eq!(r(Some(r#""3""#), None), ":3");
    assert_eq!(r(None, Some("10")), ":1-10");
    assert_eq!(r(Some(r#"" ""#), Some("2")), "");
    assert_eq!(r(Some("0"), Some("1")), ":0");
    assert_eq!(r(Some(r#""0x10""#), Some("null")), ":16");
    assert_eq!(shorten_home_path("/home/u".into(), "/home/u/"), "~");
    assert_eq!(shorten_home_path("/home/u/../u/x".into(), "/home/u"), "~/x");
    assert_eq!(
        shorten_home_path("/home/user2/x".into(), "/home/u"),
        "/home/user2/x"
    );
    assert_eq!(shorten_home_path("x".into(), "/home/u"), "x");
    assert_eq!(shorten_home_path("/etc".into(), "/"), "~/etc");
    assert_eq!(shorten_home_path("/etc".into(), ""), "/etc");
}

#[test]
fn text_content() {
    let t = |s: &str| has_text_content(s.as_bytes(), 0..s.len());
    assert!(t(r#"" x ""#));
    assert!(!t("\"\u{3000}\""));
    assert!(t(r#"[{"type":"image"},{"type":"text","text":"a"}]"#));
    assert!(!t(r#"[{"type":"text","text":" "},null]"#));
    assert!(!t("null"));
}
