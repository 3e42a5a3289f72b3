//! Transcripts people can read: a list of AgentMessages rendered as
//! Markdown, a self-contained HTML page, or plain `role: text` lines.
//!
//! Messages are first turned into [`Turn`]s (what to show), then written
//! in one of the [`Format`]s. Output depends only on the input (no clock).

use crate::error::{Error, Result};
use crate::json::{js, scan, Object, ObjectWriter};
use std::io::Write;

/// One message as read: its JSON text and the input line it comes from.
#[derive(Debug, Clone)]
pub struct Source {
    pub json: Vec<u8>,
    pub line: u64,
    /// How the model sees it (context edits, checkpoints; pi 1.x).
    pub view: View,
}

impl Source {
    /// A message the model sees as it is.
    pub fn sent(json: Vec<u8>, line: u64) -> Source {
        Source {
            json,
            line,
            view: View::Sent,
        }
    }
}

/// What a [`Source`] is to the model.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum View {
    /// Sent as it is.
    #[default]
    Sent,
    /// The system prompt a compaction stored (its checkpoint).
    Checkpoint,
    /// Sent with the content a context edit (id) gave it; `original` is
    /// the message before the edit.
    Edited { edit: String, original: Vec<u8> },
    /// Left out of what the model sees by a context edit (id); `json` is
    /// the message as it was.
    Omitted { edit: String },
    /// `json` is a `usage` entry (pi 1.x): model use outside the context.
    Usage,
}

/// What the transcript is about, shown at its top.
#[derive(Debug, Clone, Default)]
pub struct Meta {
    pub title: String,
    /// (name, value) pairs: session id, cwd, leaf, ...
    pub fields: Vec<(String, String)>,
}

/// How to build the transcript.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Show `bashExecution` messages excluded from context (`!!`), marked.
    pub include_hidden: bool,
}

/// The readable formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Html,
    Text,
}

/// One section of the transcript: a message, with its tool results.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The role as shown ("user", "assistant", "bash", "custom: TYPE", ...).
    pub role: String,
    /// A short class name: user, assistant, tool, bash, summary, custom, other.
    pub class: &'static str,
    pub time: Option<String>,
    pub model: Option<String>,
    /// Things to notice: errors, aborts, exit codes, exclusion.
    pub notes: Vec<Note>,
    pub parts: Vec<Part>,
}

/// A remark on a turn; `error` ones are shown as errors.
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    pub text: String,
    pub error: bool,
}

/// A piece of a turn.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(String),
    Thinking {
        text: String,
        redacted: bool,
    },
    Image {
        mime: String,
        bytes: usize,
    },
    ToolCall {
        name: String,
        id: String,
        args: Args,
        result: Option<ToolResult>,
    },
    /// A tool result with no call before it.
    ToolResult(ToolResult),
    /// A shell command (of a bash execution).
    Shell(String),
    /// Output of a command; None = no output.
    Output(Option<String>),
    /// A value shown as (pretty) JSON.
    Json(String),
    /// What the message said before a context edit changed it.
    Original(Vec<Part>),
}

/// The arguments of a tool call, shown by kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Args {
    /// A shell command, and the other arguments as JSON (if any).
    Shell(String, Option<String>),
    /// A file path, and the other arguments as JSON (if any).
    Path(String, Option<String>),
    Json(String),
}

/// A tool's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub name: String,
    pub is_error: bool,
    pub time: Option<String>,
    pub parts: Vec<Part>,
}

/// Parsed messages, for pairing tool calls with results.
struct Parsed<'a> {
    obj: Option<Object<'a>>,
    role: Option<String>,
}

/// Turn messages into the turns to show. `name` is the input's name for
/// error messages (`NAME:LINE: ...`).
pub fn build(name: &str, msgs: &[Source], opts: Options) -> Result<Vec<Turn>> {
    let parsed: Vec<Parsed<'_>> = msgs
        .iter()
        .map(|m| {
            let obj = Object::parse_line(&m.json).ok().flatten();
            let role = obj
                .as_ref()
                .and_then(|o| o.str("role"))
                .map(|r| r.into_owned());
            Parsed { obj, role }
        })
        .collect();
    let mut used = vec![false; msgs.len()];
    let mut turns = Vec::new();
    for (k, src) in msgs.iter().enumerate() {
        if used[k] {
            continue;
        }
        let err = |msg: String| Error::data(name, Some(src.line), msg);
        if src.view == View::Usage {
            if let Some(obj) = &parsed[k].obj {
                turns.push(usage_turn(obj));
            }
            continue;
        }
        let Some(obj) = &parsed[k].obj else {
            turns.push(Turn {
                role: "(not a message)".into(),
                class: "other",
                time: None,
                model: None,
                notes: vec![],
                parts: vec![Part::Json(pretty(&src.json))],
            });
            continue;
        };
        let role = parsed[k].role.clone().unwrap_or_default();
        let time = obj.raw("timestamp").and_then(time_of);
        let mut turn = Turn {
            role: role.clone(),
            class: "other",
            time,
            model: None,
            notes: vec![],
            parts: vec![],
        };
        match role.as_str() {
            "user" => {
                turn.class = "user";
                turn.parts = content_parts(obj, "content").map_err(err)?;
            }
            "system" => {
                turn.class = "system";
                turn.role = "system prompt".into();
                if src.view == View::Checkpoint {
                    turn.notes.push(Note {
                        text: "the system prompt in force at the compaction (its checkpoint)"
                            .into(),
                        error: false,
                    });
                }
                turn.parts = match obj.raw("content") {
                    None | Some(b"null") => vec![],
                    Some(_) => content_parts(obj, "content").map_err(err)?,
                };
                if let Some(sections) = obj.object("sections") {
                    for m in &sections.members {
                        let key = js::decode_string(sections.text, m.key.clone());
                        let v = &sections.text[m.value.clone()];
                        turn.parts.push(Part::Text(if v == b"null" {
                            format!("[section {}: removed]", clean(&key))
                        } else if v.first() == Some(&b'"') {
                            format!(
                                "[section {}]\n{}",
                                clean(&key),
                                clean(&js::decode_string(sections.text, m.value.clone()))
                            )
                        } else {
                            format!("[section {}]\n{}", clean(&key), pretty(v))
                        }));
                    }
                }
                for (key, what) in [
                    ("toolsAdded", "tools added"),
                    ("toolsRemoved", "tools removed"),
                ] {
                    let names: Vec<String> = blocks(obj, key)
                        .into_iter()
                        .flatten()
                        .filter_map(|t| t.str("name").map(|n| clean(&n)))
                        .collect();
                    if !names.is_empty() {
                        turn.notes.push(Note {
                            text: format!("{what}: {}", names.join(", ")),
                            error: false,
                        });
                    }
                }
            }
            "assistant" => {
                turn.class = "assistant";
                turn.model = match (obj.str("provider"), obj.str("model")) {
                    (Some(p), Some(m)) => Some(clean(&format!("{p}/{m}"))),
                    (None, Some(m)) => Some(clean(&m)),
                    _ => None,
                };
                let stop = obj.str("stopReason").map(|s| s.into_owned());
                let emsg = obj.str("errorMessage").map(|s| clean(&s));
                match stop.as_deref() {
                    Some("error") => turn.notes.push(Note {
                        text: format!("error: {}", emsg.as_deref().unwrap_or("(no message)")),
                        error: true,
                    }),
                    Some("aborted") => turn.notes.push(Note {
                        text: format!("aborted: {}", emsg.as_deref().unwrap_or("(no message)")),
                        error: true,
                    }),
                    Some("length") => turn.notes.push(Note {
                        text: "stopped at the output length limit".into(),
                        error: false,
                    }),
                    _ => {
                        if let Some(e) = emsg {
                            turn.notes.push(Note {
                                text: format!("error: {e}"),
                                error: true,
                            });
                        }
                    }
                }
                for block in blocks(obj, "content") {
                    let Some(b) = block else {
                        continue;
                    };
                    match b.str("type").as_deref() {
                        Some("text") => turn
                            .parts
                            .push(Part::Text(clean(&b.str("text").unwrap_or_default()))),
                        Some("thinking") => {
                            let redacted = b.raw("redacted").is_some_and(js::truthy);
                            turn.parts.push(Part::Thinking {
                                text: clean(&b.str("thinking").unwrap_or_default()),
                                redacted,
                            })
                        }
                        Some("toolCall") => {
                            let id = b.str("id").map(|s| s.into_owned()).unwrap_or_default();
                            let tname = b.str("name").map(|s| s.into_owned()).unwrap_or_default();
                            let args = tool_args(&tname, &b);
                            // The result: a later toolResult with this id,
                            // before the next user or assistant message.
                            let mut result = None;
                            for j in k + 1..msgs.len() {
                                match parsed[j].role.as_deref() {
                                    Some("toolResult") if !used[j] => {
                                        let Some(o) = &parsed[j].obj else { continue };
                                        if o.str("toolCallId").as_deref() == Some(id.as_str()) {
                                            used[j] = true;
                                            result = Some(tool_result(o).map_err(|m| {
                                                Error::data(name, Some(msgs[j].line), m)
                                            })?);
                                            break;
                                        }
                                    }
                                    Some("user" | "assistant") => break,
                                    _ => {}
                                }
                            }
                            turn.parts.push(Part::ToolCall {
                                name: clean(&tname),
                                id: clean(&id),
                                args,
                                result,
                            });
                        }
                        _ => turn
                            .parts
                            .push(Part::Json(pretty(&b.text[b.range.clone()]))),
                    }
                }
            }
            "toolResult" => {
                turn.class = "tool";
                turn.role = "tool result".into();
                turn.parts
                    .push(Part::ToolResult(tool_result(obj).map_err(err)?));
            }
            "bashExecution" => {
                let excluded = obj.raw("excludeFromContext").is_some_and(js::truthy);
                if excluded && !opts.include_hidden {
                    continue;
                }
                turn.class = "bash";
                turn.role = "bash".into();
                if excluded {
                    turn.notes.push(Note {
                        text: "excluded from context (!!): the model does not see this".into(),
                        error: false,
                    });
                }
                turn.parts
                    .push(Part::Shell(clean(&string_of(obj, "command"))));
                let output = obj
                    .raw("output")
                    .filter(|v| js::truthy(v))
                    .map(|_| clean(&string_of(obj, "output")));
                turn.parts.push(Part::Output(output));
                if obj.raw("cancelled").is_some_and(js::truthy) {
                    turn.notes.push(Note {
                        text: "cancelled".into(),
                        error: true,
                    });
                } else {
                    match obj.raw("exitCode") {
                        None | Some(b"null") => turn.notes.push(Note {
                            text: "no exit code".into(),
                            error: false,
                        }),
                        Some(v)
                            if !(scan::kind_of(v) == Some(scan::Kind::Number) && is_zero(v)) =>
                        {
                            turn.notes.push(Note {
                                text: format!("exit code {}", string_of(obj, "exitCode")),
                                error: true,
                            })
                        }
                        Some(_) => {}
                    }
                }
                if obj.raw("truncated").is_some_and(js::truthy) {
                    let text = match obj.str("fullOutputPath") {
                        Some(p) if !p.is_empty() => {
                            format!("output truncated; full output: {}", clean(&p))
                        }
                        _ => "output truncated".into(),
                    };
                    turn.notes.push(Note { text, error: false });
                }
            }
            "custom" | "hookMessage" => {
                turn.class = "custom";
                turn.role = match obj.str("customType") {
                    Some(t) => format!("custom: {}", clean(&t)),
                    None => "custom".into(),
                };
                if obj.raw("display").is_some_and(|v| !js::truthy(v)) {
                    turn.notes.push(Note {
                        text: "not displayed in pi".into(),
                        error: false,
                    });
                }
                if role == "hookMessage" {
                    turn.notes.push(Note {
                        text: "version-2 role hookMessage: not sent to the model".into(),
                        error: false,
                    });
                }
                turn.parts = content_parts(obj, "content").map_err(err)?;
            }
            "branchSummary" => {
                turn.class = "summary";
                turn.role = "branch summary".into();
                if let Some(f) = obj.str("fromId") {
                    turn.notes.push(Note {
                        text: format!("from {}", clean(&f)),
                        error: false,
                    });
                }
                turn.parts
                    .push(Part::Text(clean(&string_of(obj, "summary"))));
            }
            "compactionSummary" => {
                turn.class = "summary";
                turn.role = "compaction summary".into();
                if let Some(t) = obj.raw("tokensBefore") {
                    turn.notes.push(Note {
                        text: format!("{} tokens before", String::from_utf8_lossy(t)),
                        error: false,
                    });
                }
                turn.parts
                    .push(Part::Text(clean(&string_of(obj, "summary"))));
            }
            _ => {
                turn.role = if role.is_empty() {
                    "(no role)".into()
                } else {
                    clean(&role)
                };
                turn.notes.push(Note {
                    text: "unknown role: not sent to the model".into(),
                    error: false,
                });
                turn.parts.push(Part::Json(pretty(&src.json)));
            }
        }
        turn.parts
            .retain(|p| !matches!(p, Part::Text(t) if t.trim().is_empty()));
        // What the model no longer sees (an omitted entry's content, an
        // edited one's original) is shown only with --include-hidden: an
        // edit is often a redaction, and a transcript is made to be shared.
        match &src.view {
            View::Omitted { edit } => {
                if !opts.include_hidden {
                    turn.parts.clear();
                }
                turn.notes.push(Note {
                    text: format!(
                        "omitted from the model's view by context edit {}{}",
                        clean(edit),
                        if opts.include_hidden {
                            ""
                        } else {
                            " (its content: --include-hidden)"
                        }
                    ),
                    error: false,
                })
            }
            View::Edited { edit, .. } if !opts.include_hidden => turn.notes.push(Note {
                text: format!(
                    "edited by context edit {}: the model sees this (the original: --include-hidden)",
                    clean(edit)
                ),
                error: false,
            }),
            View::Edited { edit, original } => {
                turn.notes.push(Note {
                    text: format!(
                        "edited by context edit {}: the model sees this; the original follows",
                        clean(edit)
                    ),
                    error: false,
                });
                let one = [Source::sent(original.clone(), src.line)];
                let before = build(
                    name,
                    &one,
                    Options {
                        include_hidden: true,
                    },
                )?;
                let mut parts: Vec<Part> = before.into_iter().flat_map(|t| t.parts).collect();
                if parts.is_empty() {
                    parts.push(Part::Text("(empty)".into()));
                }
                turn.parts.push(Part::Original(parts));
            }
            _ => {}
        }
        turns.push(turn);
    }
    Ok(turns)
}

/// A `usage` entry: who was called for what, and what it cost.
fn usage_turn(obj: &Object<'_>) -> Turn {
    let kind = obj.str("kind").map(|k| clean(&k)).unwrap_or_default();
    let model = match (obj.str("provider"), obj.str("model")) {
        (Some(p), Some(m)) => Some(clean(&format!("{p}/{m}"))),
        (None, Some(m)) => Some(clean(&m)),
        _ => None,
    };
    let time = obj.str("timestamp").map(|t| {
        if t.len() == 24 && t.is_char_boundary(10) && t.is_char_boundary(19) {
            format!("{} {}", &t[..10], &t[11..19])
        } else {
            clean(&t)
        }
    });
    let mut text = String::new();
    if let Some(u) = obj.object("usage") {
        let n = |o: &Object<'_>, k: &str| {
            o.raw(k)
                .map(|v| String::from_utf8_lossy(v).into_owned())
                .unwrap_or_else(|| "?".into())
        };
        text.push_str(&format!(
            "{} tokens (input {}, output {}, cache read {}, cache write {})",
            n(&u, "totalTokens"),
            n(&u, "input"),
            n(&u, "output"),
            n(&u, "cacheRead"),
            n(&u, "cacheWrite")
        ));
        if let Some(c) = u.object("cost") {
            text.push_str(&format!(", cost {}", n(&c, "total")));
        }
    }
    let mut notes = vec![Note {
        text: "model use outside the conversation: not sent to the model".into(),
        error: false,
    }];
    if let Some(note) = obj.str("note") {
        notes.push(Note {
            text: clean(&note),
            error: false,
        });
    }
    Turn {
        role: if kind.is_empty() {
            "usage".into()
        } else {
            format!("usage: {kind}")
        },
        class: "other",
        time,
        model,
        notes,
        parts: if text.is_empty() {
            vec![]
        } else {
            vec![Part::Text(text)]
        },
    }
}

fn is_zero(v: &[u8]) -> bool {
    std::str::from_utf8(v)
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .is_some_and(|n| n == 0.0)
}

/// `String(value)` of a member, cleaned for display ("" when absent).
fn string_of(obj: &Object<'_>, key: &str) -> String {
    let Some(r) = obj.get(key) else {
        return String::new();
    };
    let mut t = crate::convert::JsText::default();
    if t.push_value(obj.text, Some(r)).is_err() {
        return String::new();
    }
    let mut q = vec![b'"'];
    q.extend_from_slice(&t.0);
    q.push(b'"');
    js::decode_string(&q, 0..q.len()).into_owned()
}

/// The elements of an array member that are objects (None for others).
fn blocks<'a>(obj: &Object<'a>, key: &str) -> Vec<Option<Object<'a>>> {
    let Some(r) = obj.get(key) else {
        return vec![];
    };
    if obj.text[r.start] != b'[' {
        return vec![];
    }
    scan::elements(obj.text, r)
        .unwrap_or_default()
        .into_iter()
        .map(|e| {
            if obj.text[e.start] == b'{' {
                Object::at(obj.text, e).ok()
            } else {
                None
            }
        })
        .collect()
}

/// A `content` member: a string, or text and image blocks.
fn content_parts(obj: &Object<'_>, key: &str) -> std::result::Result<Vec<Part>, String> {
    let Some(r) = obj.get(key) else {
        return Ok(vec![]);
    };
    let t = obj.text;
    match t[r.start] {
        // pi 1.6 sends [] (or "") for null content.
        b'n' => Ok(vec![]),
        b'"' => Ok(vec![Part::Text(clean(&js::decode_string(t, r)))]),
        b'[' => {
            let mut parts = Vec::new();
            for el in scan::elements(t, r).map_err(|e| e.to_string())? {
                let b = if t[el.start] == b'{' {
                    Object::at(t, el.clone()).ok()
                } else {
                    None
                };
                let Some(b) = b else {
                    parts.push(Part::Json(pretty(&t[el])));
                    continue;
                };
                match b.str("type").as_deref() {
                    Some("text") => {
                        parts.push(Part::Text(clean(&b.str("text").unwrap_or_default())))
                    }
                    Some("image") => parts.push(image(&b)?),
                    _ => parts.push(Part::Json(pretty(&t[el]))),
                }
            }
            Ok(parts)
        }
        _ => Ok(vec![Part::Json(pretty(&t[r]))]),
    }
}

fn image(b: &Object<'_>) -> std::result::Result<Part, String> {
    let Some(r) = b.get("data").filter(|r| b.text[r.start] == b'"') else {
        return Err("image block has no data (a base64 string)".into());
    };
    let data = js::decode_string(b.text, r);
    let data = data.trim_end();
    let pad = data.bytes().rev().take_while(|&c| c == b'=').count();
    let len = data.bytes().filter(|c| !c.is_ascii_whitespace()).count();
    let bytes = (len / 4 * 3
        + match len % 4 {
            2 => 1,
            3 => 2,
            _ => 0,
        })
    .saturating_sub(pad.min(2));
    let mime = b
        .str("mimeType")
        .map(|m| clean(&m))
        .unwrap_or_else(|| "unknown type".into());
    Ok(Part::Image { mime, bytes })
}

fn tool_result(o: &Object<'_>) -> std::result::Result<ToolResult, String> {
    Ok(ToolResult {
        name: clean(&o.str("toolName").unwrap_or_default()),
        is_error: o.raw("isError").is_some_and(js::truthy),
        time: o.raw("timestamp").and_then(time_of),
        parts: content_parts(o, "content")?,
    })
}

fn tool_args(name: &str, b: &Object<'_>) -> Args {
    let Some(args) = b.object("arguments") else {
        return Args::Json(
            b.raw("arguments")
                .map(pretty)
                .unwrap_or_else(|| "undefined".into()),
        );
    };
    let rest = |skip: &str| -> Option<String> {
        let mut w = ObjectWriter::new();
        let mut any = false;
        for m in &args.members {
            let key = js::decode_string(args.text, m.key.clone());
            if key == skip || args.get(&key) != Some(m.value.clone()) {
                continue;
            }
            any = true;
            let v = js::canonical_vec(args.text, m.value.clone()).ok();
            w.raw(&key, Some(v.as_deref().unwrap_or(b"null")));
        }
        any.then(|| pretty(&w.finish()))
    };
    if name == "bash" {
        if let Some(c) = args.str("command") {
            return Args::Shell(clean(&c), rest("command"));
        }
    }
    for key in ["path", "file_path"] {
        if let Some(p) = args.str(key) {
            return Args::Path(clean(&p), rest(key));
        }
    }
    Args::Json(pretty(&args.text[args.range.clone()]))
}

/// A message time (ms since the epoch) as `YYYY-MM-DD HH:MM:SS`.
fn time_of(v: &[u8]) -> Option<String> {
    let n: f64 = std::str::from_utf8(v).ok()?.parse().ok()?;
    if !n.is_finite() || n.abs() > 8.64e15 {
        return None;
    }
    let iso = crate::time::iso_string(n as i64);
    Some(if iso.len() == 24 {
        format!("{} {}", &iso[..10], &iso[11..19])
    } else {
        iso
    })
}

/// Make a string safe to show: control characters (other than newline
/// and tab) become their visible pictures; CR LF becomes LF.
pub fn clean(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '\n' | '\t' => out.push(c),
            '\r' if it.peek() == Some(&'\n') => {}
            c if (c as u32) < 0x20 => {
                out.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{FFFD}'))
            }
            '\u{7f}' => out.push('\u{2421}'),
            c => out.push(c),
        }
    }
    out
}

/// Indent JSON text (two spaces) without a value tree; strings are
/// canonicalised first, and control characters stay escaped.
pub fn pretty(json: &[u8]) -> String {
    // Too deep to re-serialize (and slow to find out): show it as it is.
    if max_depth(json) >= js::MAX_DEPTH {
        return clean(&String::from_utf8_lossy(json));
    }
    let canon = match scan::validate(json).and_then(|r| js::canonical_vec(json, r)) {
        Ok(c) => c,
        Err(_) => return clean(&String::from_utf8_lossy(json)),
    };
    let mut out = Vec::with_capacity(canon.len() * 2);
    let mut depth = 0usize;
    let mut in_str = false;
    let mut esc = false;
    let nl = |out: &mut Vec<u8>, d: usize| {
        out.push(b'\n');
        out.resize(out.len() + d * 2, b' ');
    };
    let mut i = 0;
    while i < canon.len() {
        let c = canon[i];
        if in_str {
            out.push(c);
            if esc {
                esc = false;
            } else if c == b'\\' {
                esc = true;
            } else if c == b'"' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        match c {
            b'"' => {
                in_str = true;
                out.push(c);
            }
            b'{' | b'[' => {
                let close = if c == b'{' { b'}' } else { b']' };
                if canon.get(i + 1) == Some(&close) {
                    out.push(c);
                    out.push(close);
                    i += 2;
                    continue;
                }
                out.push(c);
                depth += 1;
                nl(&mut out, depth);
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                nl(&mut out, depth);
                out.push(c);
            }
            b',' => {
                out.push(c);
                nl(&mut out, depth);
            }
            b':' => out.extend_from_slice(b": "),
            _ => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The deepest nesting of objects and arrays in JSON text.
fn max_depth(json: &[u8]) -> usize {
    let (mut depth, mut max, mut in_str, mut esc) = (0usize, 0usize, false, false);
    for &c in json {
        if in_str {
            if esc {
                esc = false;
            } else if c == b'\\' {
                esc = true;
            } else if c == b'"' {
                in_str = false;
            }
            continue;
        }
        match c {
            b'"' => in_str = true,
            b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

fn human_size(n: usize) -> String {
    if n < 1024 {
        format!("{n} B")
    } else if n < 1024 * 1024 {
        format!("{:.1} KiB", n as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", n as f64 / (1024.0 * 1024.0))
    }
}

/// Write the turns in `format`.
pub fn write(
    format: Format,
    meta: &Meta,
    turns: &[Turn],
    out: &mut impl Write,
) -> std::io::Result<()> {
    let mut s = String::new();
    match format {
        Format::Markdown => markdown(&mut s, meta, turns),
        Format::Html => html(&mut s, meta, turns),
        Format::Text => text(&mut s, turns),
    }
    out.write_all(s.as_bytes())
}

// ---------------------------------------------------------------- Markdown

/// A code fence longer than any backtick run in `text`.
fn fence(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(3))
}

fn md_block(s: &mut String, lang: &str, text: &str) {
    let f = fence(text);
    s.push_str(&format!("{f}{lang}\n{text}"));
    if !text.ends_with('\n') {
        s.push('\n');
    }
    s.push_str(&format!("{f}\n\n"));
}

/// Inline code that holds any backticks in `text`.
fn md_code(text: &str) -> String {
    let one_line = text.replace('\n', " ");
    let mut longest = 0;
    let mut run = 0;
    for c in one_line.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let ticks = "`".repeat(longest + 1);
    if longest > 0 || one_line.starts_with(' ') || one_line.ends_with(' ') {
        format!("{ticks} {one_line} {ticks}")
    } else {
        format!("{ticks}{one_line}{ticks}")
    }
}

fn md_quote(s: &mut String, text: &str) {
    for l in text.split('\n') {
        if l.is_empty() {
            s.push_str(">\n");
        } else {
            s.push_str("> ");
            s.push_str(l);
            s.push('\n');
        }
    }
    s.push('\n');
}

fn md_parts(s: &mut String, parts: &[Part]) {
    for p in parts {
        match p {
            Part::Text(t) => {
                s.push_str(t.trim_end_matches('\n'));
                s.push_str("\n\n");
            }
            Part::Thinking { text, redacted } => {
                s.push_str(if *redacted {
                    "> **thinking** (redacted)\n>\n"
                } else {
                    "> **thinking**\n>\n"
                });
                md_quote(s, text.trim_end_matches('\n'));
            }
            Part::Image { mime, bytes } => {
                s.push_str(&format!("*[image: {}, {}]*\n\n", mime, human_size(*bytes)));
            }
            Part::ToolCall {
                name,
                id,
                args,
                result,
            } => {
                s.push_str(&format!(
                    "**tool call** {} · {}\n\n",
                    md_code(name),
                    md_code(id)
                ));
                md_args(s, args);
                match result {
                    Some(r) => md_result(s, r),
                    None => s.push_str("*(no result)*\n\n"),
                }
            }
            Part::ToolResult(r) => md_result(s, r),
            Part::Shell(c) => md_block(s, "sh", c),
            Part::Output(None) => s.push_str("*(no output)*\n\n"),
            Part::Output(Some(o)) => md_block(s, "", o),
            Part::Json(j) => md_block(s, "json", j),
            Part::Original(parts) => {
                let mut inner = String::new();
                md_parts(&mut inner, parts);
                s.push_str("> **original, before the context edit**\n>\n");
                md_quote(s, inner.trim_end_matches('\n'));
            }
        }
    }
}

fn md_args(s: &mut String, args: &Args) {
    match args {
        Args::Shell(c, rest) => {
            md_block(s, "sh", c);
            if let Some(r) = rest {
                md_block(s, "json", r);
            }
        }
        Args::Path(p, rest) => {
            s.push_str(&format!("path: {}\n\n", md_code(p)));
            if let Some(r) = rest {
                md_block(s, "json", r);
            }
        }
        Args::Json(j) => md_block(s, "json", j),
    }
}

fn md_result(s: &mut String, r: &ToolResult) {
    let mut head = String::from("**result**");
    if !r.name.is_empty() {
        head.push_str(&format!(" of {}", md_code(&r.name)));
    }
    if r.is_error {
        head.push_str(" — **error**");
    }
    if let Some(t) = &r.time {
        head.push_str(&format!(" · {t}"));
    }
    s.push_str(&head);
    s.push_str("\n\n");
    if r.parts.is_empty() {
        s.push_str("*(empty)*\n\n");
    }
    for p in &r.parts {
        match p {
            Part::Text(t) => md_block(s, "", t),
            other => md_parts(s, std::slice::from_ref(other)),
        }
    }
}

fn markdown(s: &mut String, meta: &Meta, turns: &[Turn]) {
    s.push_str(&format!("# {}\n\n", meta.title.replace('\n', " ")));
    for (k, v) in &meta.fields {
        s.push_str(&format!("- {k}: {}\n", md_code(v)));
    }
    if !meta.fields.is_empty() {
        s.push('\n');
    }
    for (n, t) in turns.iter().enumerate() {
        let mut head = format!("## {}. {}", n + 1, t.role.replace('\n', " "));
        if let Some(time) = &t.time {
            head.push_str(&format!(" · {time}"));
        }
        if let Some(m) = &t.model {
            head.push_str(&format!(" · {}", m.replace('\n', " ")));
        }
        s.push_str(&head);
        s.push_str("\n\n");
        for note in &t.notes {
            if note.error {
                s.push_str(&format!("**⚠ {}**\n\n", note.text.replace('\n', " ")));
            } else {
                s.push_str(&format!("*{}*\n\n", note.text.replace('\n', " ")));
            }
        }
        md_parts(s, &t.parts);
    }
}

// -------------------------------------------------------------------- Text

fn text_lines(s: &mut String, role: &str, text: &str) {
    for l in text.split('\n') {
        s.push_str(role);
        s.push(':');
        if !l.is_empty() {
            s.push(' ');
            s.push_str(l);
        }
        s.push('\n');
    }
}

fn text_parts(s: &mut String, role: &str, parts: &[Part]) {
    for p in parts {
        match p {
            Part::Text(t) => text_lines(s, role, t.trim_end_matches('\n')),
            Part::Thinking { text, .. } => text_lines(
                s,
                &format!("{role} (thinking)"),
                text.trim_end_matches('\n'),
            ),
            Part::Image { mime, bytes } => {
                text_lines(s, role, &format!("[image: {mime}, {}]", human_size(*bytes)))
            }
            Part::ToolCall {
                name, args, result, ..
            } => {
                let r = format!("{role} (tool call {name})");
                match args {
                    Args::Shell(c, rest) => {
                        text_lines(s, &r, &format!("$ {c}"));
                        if let Some(x) = rest {
                            text_lines(s, &r, x);
                        }
                    }
                    Args::Path(p, rest) => {
                        text_lines(s, &r, &format!("path: {p}"));
                        if let Some(x) = rest {
                            text_lines(s, &r, x);
                        }
                    }
                    Args::Json(j) => text_lines(s, &r, j),
                }
                if let Some(res) = result {
                    text_result(s, res);
                }
            }
            Part::ToolResult(res) => text_result(s, res),
            Part::Shell(c) => text_lines(s, role, &format!("$ {c}")),
            Part::Output(None) => text_lines(s, role, "(no output)"),
            Part::Output(Some(o)) => text_lines(s, role, o.trim_end_matches('\n')),
            Part::Json(j) => text_lines(s, role, j),
            Part::Original(parts) => text_parts(s, &format!("{role} (original)"), parts),
        }
    }
}

fn text_result(s: &mut String, r: &ToolResult) {
    let role = match (r.name.is_empty(), r.is_error) {
        (true, false) => "toolResult".to_string(),
        (true, true) => "toolResult (error)".to_string(),
        (false, false) => format!("toolResult ({})", r.name),
        (false, true) => format!("toolResult ({}, error)", r.name),
    };
    text_parts(s, &role, &r.parts);
}

fn text(s: &mut String, turns: &[Turn]) {
    for t in turns {
        let role = t.role.replace('\n', " ");
        text_parts(s, &role, &t.parts);
        for n in &t.notes {
            text_lines(s, &role, &format!("[{}]", n.text));
        }
    }
}

// -------------------------------------------------------------------- HTML

/// Escape text for HTML content and attribute values.
pub fn esc(t: &str) -> String {
    let mut o = String::with_capacity(t.len());
    for c in t.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

const CSS: &str = "\
:root{--fg:#1d1d1f;--muted:#6b6b70;--line:#d8d8dc;--user:#eef4ff;--asst:#ffffff;--tool:#f6f6f8;--bash:#f3f7ef;--sum:#fff8e6;--err:#b3261e;--errbg:#fdecea;--code:#f4f4f6}
*{box-sizing:border-box}
body{margin:0;background:#fafafa;color:var(--fg);font:15px/1.5 -apple-system,BlinkMacSystemFont,\"Segoe UI\",Roboto,Helvetica,Arial,sans-serif}
header,main{max-width:920px;margin:0 auto;padding:0 16px}
header{padding-top:24px}
h1{font-size:22px;margin:0 0 8px;overflow-wrap:anywhere}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0 0 16px;color:var(--muted);font-size:13px}
dl.meta dt{font-weight:600}
dl.meta dd{margin:0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}
section.turn{border:1px solid var(--line);border-radius:8px;margin:0 0 14px;padding:10px 14px;background:var(--asst);break-inside:avoid-page}
section.user{background:var(--user)}
section.tool{background:var(--tool)}
section.bash{background:var(--bash)}
section.summary{background:var(--sum)}
section.custom{background:var(--sum)}
section.system{background:var(--sum)}
section.hidden{border-style:dashed;opacity:.85}
h2{font-size:14px;margin:0 0 6px;display:flex;flex-wrap:wrap;gap:4px 12px;align-items:baseline}
h2 .n{color:var(--muted);font-weight:400}
h2 .role{text-transform:none;font-weight:700}
h2 .time,h2 .model{color:var(--muted);font-weight:400;font-size:13px}
.text{white-space:pre-wrap;overflow-wrap:anywhere;margin:6px 0}
.note{margin:4px 0;font-size:13px;color:var(--muted);font-style:italic}
.note.error{color:var(--err);background:var(--errbg);font-style:normal;font-weight:600;padding:4px 8px;border-radius:4px}
blockquote.thinking{margin:6px 0;padding:4px 12px;border-left:3px solid var(--line);color:var(--muted)}
.label{font-size:12px;font-weight:700;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
pre{background:var(--code);border:1px solid var(--line);border-radius:6px;padding:8px 10px;margin:6px 0;white-space:pre-wrap;overflow-wrap:anywhere;font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
code{font:13px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--code);padding:0 3px;border-radius:3px;overflow-wrap:anywhere}
.call{margin:8px 0 4px}
.result{margin:4px 0 8px 14px;padding-left:10px;border-left:3px solid var(--line)}
.result.error{border-left-color:var(--err)}
.result.error .label{color:var(--err)}
.image{display:inline-block;border:1px dashed var(--muted);border-radius:4px;padding:2px 8px;color:var(--muted);font-size:13px}
details>summary{cursor:pointer;color:var(--muted);font-size:13px}
@media print{body{background:#fff;font-size:11pt}section.turn{border-color:#999}details>summary{display:none}details>*{display:block}pre{white-space:pre-wrap}}
";

/// Outputs longer than this many lines or characters are collapsed.
const COLLAPSE_LINES: usize = 12;
const COLLAPSE_CHARS: usize = 1500;

fn html_pre(s: &mut String, class: &str, text: &str) {
    let lines = text.lines().count();
    let long = lines > COLLAPSE_LINES || text.chars().count() > COLLAPSE_CHARS;
    if long {
        s.push_str(&format!(
            "<details><summary>{} lines, {} characters</summary>",
            lines,
            text.chars().count()
        ));
    }
    s.push_str(&format!("<pre class=\"{class}\">{}</pre>", esc(text)));
    if long {
        s.push_str("</details>");
    }
    s.push('\n');
}

fn html_parts(s: &mut String, parts: &[Part], in_result: bool) {
    for p in parts {
        match p {
            Part::Text(t) if in_result => html_pre(s, "output", t),
            Part::Text(t) => s.push_str(&format!(
                "<div class=\"text\">{}</div>\n",
                esc(t.trim_end_matches('\n'))
            )),
            Part::Thinking { text, redacted } => {
                s.push_str(&format!(
                    "<blockquote class=\"thinking\"><div class=\"label\">thinking{}</div><div class=\"text\">{}</div></blockquote>\n",
                    if *redacted { " (redacted)" } else { "" },
                    esc(text.trim_end_matches('\n'))
                ));
            }
            Part::Image { mime, bytes } => s.push_str(&format!(
                "<div><span class=\"image\">image: {}, {}</span></div>\n",
                esc(mime),
                human_size(*bytes)
            )),
            Part::ToolCall {
                name,
                id,
                args,
                result,
            } => {
                s.push_str(&format!(
                    "<div class=\"call\"><span class=\"label\">tool call</span> <code>{}</code> <span class=\"note\">{}</span></div>\n",
                    esc(name),
                    esc(id)
                ));
                match args {
                    Args::Shell(c, rest) => {
                        s.push_str(&format!("<pre class=\"shell\">$ {}</pre>\n", esc(c)));
                        if let Some(r) = rest {
                            html_pre(s, "json", r);
                        }
                    }
                    Args::Path(p, rest) => {
                        s.push_str(&format!("<div>path: <code>{}</code></div>\n", esc(p)));
                        if let Some(r) = rest {
                            html_pre(s, "json", r);
                        }
                    }
                    Args::Json(j) => html_pre(s, "json", j),
                }
                match result {
                    Some(r) => html_result(s, r),
                    None => s.push_str("<div class=\"note\">(no result)</div>\n"),
                }
            }
            Part::ToolResult(r) => html_result(s, r),
            Part::Shell(c) => s.push_str(&format!("<pre class=\"shell\">$ {}</pre>\n", esc(c))),
            Part::Output(None) => s.push_str("<div class=\"note\">(no output)</div>\n"),
            Part::Output(Some(o)) => html_pre(s, "output", o),
            Part::Json(j) => html_pre(s, "json", j),
            Part::Original(parts) => {
                s.push_str("<details class=\"original\"><summary>original, before the context edit</summary>\n");
                html_parts(s, parts, in_result);
                s.push_str("</details>\n");
            }
        }
    }
}

fn html_result(s: &mut String, r: &ToolResult) {
    s.push_str(&format!(
        "<div class=\"result{}\"><div class=\"label\">result{}{}</div>\n",
        if r.is_error { " error" } else { "" },
        if r.name.is_empty() {
            String::new()
        } else {
            format!(" of {}", esc(&r.name))
        },
        if r.is_error { " — error" } else { "" },
    ));
    if r.parts.is_empty() {
        s.push_str("<div class=\"note\">(empty)</div>\n");
    }
    html_parts(s, &r.parts, true);
    s.push_str("</div>\n");
}

fn html(s: &mut String, meta: &Meta, turns: &[Turn]) {
    s.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    s.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    s.push_str(&format!("<title>{}</title>\n", esc(&meta.title)));
    s.push_str("<style>\n");
    s.push_str(CSS);
    s.push_str("</style>\n</head>\n<body>\n<header>\n");
    s.push_str(&format!("<h1>{}</h1>\n", esc(&meta.title)));
    if !meta.fields.is_empty() {
        s.push_str("<dl class=\"meta\">\n");
        for (k, v) in &meta.fields {
            s.push_str(&format!("<dt>{}</dt><dd>{}</dd>\n", esc(k), esc(v)));
        }
        s.push_str("</dl>\n");
    }
    s.push_str("</header>\n<main>\n");
    for (n, t) in turns.iter().enumerate() {
        let hidden = t.class == "bash" && t.notes.iter().any(|x| x.text.starts_with("excluded"));
        s.push_str(&format!(
            "<section class=\"turn {}{}\" id=\"m{}\">\n<h2><span class=\"n\">{}</span><span class=\"role\">{}</span>",
            t.class,
            if hidden { " hidden" } else { "" },
            n + 1,
            n + 1,
            esc(&t.role)
        ));
        if let Some(time) = &t.time {
            s.push_str(&format!("<span class=\"time\">{}</span>", esc(time)));
        }
        if let Some(m) = &t.model {
            s.push_str(&format!("<span class=\"model\">{}</span>", esc(m)));
        }
        s.push_str("</h2>\n");
        for note in &t.notes {
            s.push_str(&format!(
                "<div class=\"note{}\">{}</div>\n",
                if note.error { " error" } else { "" },
                esc(&note.text)
            ));
        }
        html_parts(s, &t.parts, false);
        s.push_str("</section>\n");
    }
    s.push_str("</main>\n</body>\n</html>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty_json() {
        assert_eq!(
            pretty(br#"{"a":[1,{}],"b":"x,{"}"#),
            "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": \"x,{\"\n}"
        );
    }

    #[test]
    fn fences_and_cleaning() {
        assert_eq!(fence("a ```` b"), "`````");
        assert_eq!(md_code("a`b"), "`` a`b ``");
        assert_eq!(clean("a\u{1b}[0m\r\nb"), "a\u{241b}[0m\nb");
        assert_eq!(
            esc("<a href='x'>&</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;"
        );
    }
}
