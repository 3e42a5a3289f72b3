//! From messages to [`Turn`]s: what a transcript shows of each message
//! (roles, notes, text, tool calls paired with their results, context
//! edits), whatever the format.

use super::{
    clean, clean_cow, pretty, pretty_canonical, Args, Note, Options, Part, Source, ToolResult,
    Turn, View,
};
use crate::error::{Error, Result};
use crate::json::{js, scan, Object, ObjectWriter};
/// Parsed messages, for pairing tool calls with results.
struct Parsed<'a> {
    obj: Option<Object<'a>>,
    role: Option<String>,
}

/// Turn messages into the turns to show. `name` is the input's name for
/// error messages (`NAME:LINE: ...`).
pub fn build(name: &str, msgs: &[Source], opts: Options) -> Result<Vec<Turn>> {
    Ok(build_indexed(name, msgs, opts)?
        .into_iter()
        .map(|(_, t)| t)
        .collect())
}

/// [`build`], each turn with the index in `msgs` of the message it shows
/// (a tool result shown with its call has no turn of its own).
pub(super) fn build_indexed(
    name: &str,
    msgs: &[Source],
    opts: Options,
) -> Result<Vec<(usize, Turn)>> {
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
        if src.view == View::Usage {
            if let Some(obj) = &parsed[k].obj {
                turns.push((k, usage_turn(obj)));
            }
            continue;
        }
        let Some(obj) = &parsed[k].obj else {
            turns.push((
                k,
                Turn {
                    role: "(not a message)".into(),
                    class: "other",
                    time: None,
                    model: None,
                    id: None,
                    notes: vec![],
                    parts: vec![Part::Json(pretty(&src.json))],
                },
            ));
            continue;
        };
        let role = parsed[k].role.clone().unwrap_or_default();
        let mut pairing = Pairing {
            name,
            msgs,
            parsed: &parsed,
            used: &mut used,
        };
        let Some(mut turn) = message_turn(obj, &role, k, src, opts, &mut pairing)? else {
            continue;
        };
        turn.parts
            .retain(|p| !matches!(p, Part::Text(t) if t.trim().is_empty()));
        show_view(&mut turn, name, src, opts)?;
        turns.push((k, turn));
    }
    Ok(turns)
}

/// The turn of message `k`, `obj`, by its role; `None` for one not shown
/// (a `bashExecution` excluded from context, without --include-hidden).
fn message_turn(
    obj: &Object<'_>,
    role: &str,
    k: usize,
    src: &Source,
    opts: Options,
    pairing: &mut Pairing<'_, '_>,
) -> Result<Option<Turn>> {
    let name = pairing.name;
    let err = |msg: String| Error::data(name, Some(src.line), msg);
    let mut turn = Turn {
        role: role.to_string(),
        class: "other",
        time: obj.raw("timestamp").and_then(time_of),
        model: None,
        id: None,
        notes: vec![],
        parts: vec![],
    };
    match role {
        "user" => {
            turn.class = "user";
            turn.parts = content_parts(obj, "content").map_err(err)?;
        }
        "system" => system_turn(&mut turn, obj, src.view == View::Checkpoint).map_err(err)?,
        "assistant" => assistant_turn(&mut turn, obj, k, pairing)?,
        "toolResult" => {
            turn.class = "tool";
            turn.role = "tool result".into();
            turn.parts
                .push(Part::ToolResult(tool_result(obj).map_err(err)?));
        }
        "bashExecution" => {
            let excluded = obj.raw("excludeFromContext").is_some_and(js::truthy);
            if excluded && !opts.include_hidden {
                return Ok(None);
            }
            bash_turn(&mut turn, obj, excluded);
        }
        "custom" | "hookMessage" => custom_turn(&mut turn, obj, role).map_err(err)?,
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
                    text: format!("{} tokens before", clean(&String::from_utf8_lossy(t))),
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
                clean(role)
            };
            turn.notes.push(Note {
                text: "unknown role: not sent to the model".into(),
                error: false,
            });
            turn.parts.push(Part::Json(pretty(&src.json)));
        }
    }
    Ok(Some(turn))
}

/// A `system` message: the prompt, its sections, the tools it adds and removes.
fn system_turn(
    turn: &mut Turn,
    obj: &Object<'_>,
    checkpoint: bool,
) -> std::result::Result<(), String> {
    turn.class = "system";
    turn.role = "system prompt".into();
    if checkpoint {
        turn.notes.push(Note {
            text: "the system prompt in force at the compaction (its checkpoint)".into(),
            error: false,
        });
    }
    turn.parts = match obj.raw("content") {
        None | Some(b"null") => vec![],
        Some(_) => content_parts(obj, "content")?,
    };
    if let Some(sections) = obj.object("sections") {
        for m in &sections.members {
            let key = js::escape::decode_string(sections.text, m.key.clone());
            let v = &sections.text[m.value.clone()];
            turn.parts.push(Part::Text(if v == b"null" {
                format!("[section {}: removed]", clean(&key))
            } else if v.first() == Some(&b'"') {
                format!(
                    "[section {}]\n{}",
                    clean(&key),
                    clean_cow(js::escape::decode_string(sections.text, m.value.clone()))
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
    Ok(())
}

/// The messages a tool call's result is looked for in, and which of them
/// were taken already.
struct Pairing<'p, 'a> {
    name: &'p str,
    msgs: &'p [Source],
    parsed: &'p [Parsed<'a>],
    used: &'p mut [bool],
}

impl Pairing<'_, '_> {
    /// The result of the tool call `id` made in message `k`: a later
    /// toolResult with this id, before the next user or assistant message.
    fn result(&mut self, k: usize, id: &str) -> Result<Option<ToolResult>> {
        for j in k + 1..self.msgs.len() {
            match self.parsed[j].role.as_deref() {
                Some("toolResult") if !self.used[j] => {
                    let Some(o) = &self.parsed[j].obj else {
                        continue;
                    };
                    if o.str("toolCallId").as_deref() == Some(id) {
                        self.used[j] = true;
                        let line = self.msgs[j].line;
                        return tool_result(o)
                            .map(Some)
                            .map_err(|m| Error::data(self.name, Some(line), m));
                    }
                }
                Some("user" | "assistant") => break,
                _ => {}
            }
        }
        Ok(None)
    }
}

/// An `assistant` message: its model, how it stopped, and its blocks, each
/// tool call with its result.
fn assistant_turn(
    turn: &mut Turn,
    obj: &Object<'_>,
    k: usize,
    pairing: &mut Pairing<'_, '_>,
) -> Result<()> {
    turn.class = "assistant";
    turn.model = model_of(obj);
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
                .push(Part::Text(clean_cow(b.str("text").unwrap_or_default()))),
            Some("thinking") => {
                let redacted = b.raw("redacted").is_some_and(js::truthy);
                turn.parts.push(Part::Thinking {
                    text: clean_cow(b.str("thinking").unwrap_or_default()),
                    redacted,
                })
            }
            Some("toolCall") => {
                let id = b.str("id").map(|s| s.into_owned()).unwrap_or_default();
                let tname = b.str("name").map(|s| s.into_owned()).unwrap_or_default();
                let args = tool_args(&tname, &b);
                let result = pairing.result(k, &id)?;
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
    Ok(())
}

/// A `bashExecution` message (`excluded`: by `!!`, shown with
/// --include-hidden): the command, its output and how it ended.
fn bash_turn(turn: &mut Turn, obj: &Object<'_>, excluded: bool) {
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
            Some(v) if !js::number::is_zero(v) => turn.notes.push(Note {
                text: format!("exit code {}", clean(&string_of(obj, "exitCode"))),
                error: true,
            }),
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

/// A `custom` message (or version 2's `hookMessage`, `role`).
fn custom_turn(turn: &mut Turn, obj: &Object<'_>, role: &str) -> std::result::Result<(), String> {
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
    turn.parts = content_parts(obj, "content")?;
    Ok(())
}

/// What the model no longer sees (an omitted entry's content, an edited
/// one's original) is shown only with --include-hidden: an edit is often a
/// redaction, and a transcript is made to be shared.
fn show_view(turn: &mut Turn, name: &str, src: &Source, opts: Options) -> Result<()> {
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
    Ok(())
}

/// The model a message names: `provider/model`, or `model` alone.
fn model_of(obj: &Object<'_>) -> Option<String> {
    match (obj.str("provider"), obj.str("model")) {
        (Some(p), Some(m)) => Some(clean(&format!("{p}/{m}"))),
        (None, Some(m)) => Some(clean(&m)),
        _ => None,
    }
}

/// A `usage` entry: who was called for what, and what it cost.
fn usage_turn(obj: &Object<'_>) -> Turn {
    let kind = obj.str("kind").map(|k| clean(&k)).unwrap_or_default();
    let model = model_of(obj);
    let time = obj
        .str("timestamp")
        .map(|t| short_time(&t).unwrap_or_else(|| clean(&t)));
    let mut text = String::new();
    if let Some(u) = obj.object("usage") {
        let n = |o: &Object<'_>, k: &str| {
            o.raw(k)
                .map(|v| clean(&String::from_utf8_lossy(v)))
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
        id: None,
        notes,
        parts: if text.is_empty() {
            vec![]
        } else {
            vec![Part::Text(text)]
        },
    }
}

/// `String(value)` of a member ("" when absent).
fn string_of(obj: &Object<'_>, key: &str) -> String {
    obj.raw(key)
        .map(js::string::string_value)
        .unwrap_or_default()
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
        b'"' => Ok(vec![Part::Text(clean_cow(js::escape::decode_string(t, r)))]),
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
                        parts.push(Part::Text(clean_cow(b.str("text").unwrap_or_default())))
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
    let data = js::escape::decode_string(b.text, r);
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
            let key = js::escape::decode_string(args.text, m.key.clone());
            if key == skip || args.get(&key) != Some(m.value.clone()) {
                continue;
            }
            any = true;
            // A message's JSON is JSON.stringify's: its values are too.
            w.raw(&key, Some(&args.text[m.value.clone()]));
        }
        any.then(|| pretty_canonical(&w.finish()))
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
    Args::Json(pretty_canonical(&args.text[args.range.clone()]))
}

/// A message time (ms since the epoch) as `YYYY-MM-DD HH:MM:SS`.
fn time_of(v: &[u8]) -> Option<String> {
    // Most times are whole milliseconds of a year 0 to 9999: written at
    // once (a float parse and three formats were a twentieth of the time).
    if (1..=15).contains(&v.len()) && v.iter().all(u8::is_ascii_digit) {
        let ms = v.iter().fold(0i64, |a, &d| a * 10 + (d - b'0') as i64);
        if let Some(t) = crate::time::short_string(ms) {
            return Some(t);
        }
    }
    let n: f64 = std::str::from_utf8(v).ok()?.parse().ok()?;
    if !n.is_finite() || n.abs() > 8.64e15 {
        return None;
    }
    let iso = crate::time::iso_string(n as i64);
    Some(short_time(&iso).unwrap_or(iso))
}

/// `toISOString()`'s `YYYY-MM-DDTHH:MM:SS.sssZ` as `YYYY-MM-DD HH:MM:SS`;
/// None for a text of another length.
pub(super) fn short_time(t: &str) -> Option<String> {
    (t.len() == 24 && [10, 11, 19].iter().all(|&k| t.is_char_boundary(k)))
        .then(|| format!("{} {}", &t[..10], &t[11..19]))
}
