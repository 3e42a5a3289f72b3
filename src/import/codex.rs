//! Codex's rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`)
//! read as a chain of pi entries, as Codex replays them on resume
//! (codex-rs `replay_rollout_response_items`): the response items in order;
//! the model's items between two inputs are one assistant message
//! (reasoning as thinking, messages as text, calls as tool calls); each
//! output a `toolResult`; `compacted` a compaction; `thread_rolled_back`
//! moves the end of the chain back before the dropped turns, so what
//! follows is a new branch there. Usage comes from `token_count` events.

use super::claude::{no_result, text_block};
use super::{json_lines, millis, Agent, Body, Conversation, Node, J};
use crate::error::Diagnostic;
use serde_json::{Map, Value};

#[derive(Default)]
struct Open {
    key: String,
    timestamp: String,
    blocks: Vec<J<'static>>,
    calls: Vec<(String, String)>,
}

#[derive(Default)]
struct Reader {
    file: String,
    nodes: Vec<Node<'static>>,
    cur: Option<usize>,
    open: Option<Open>,
    /// Calls of the last assistant message whose results are not written.
    pending: Vec<(String, String)>,
    /// Outputs of pending calls: (key, time, content), written in the
    /// order of the calls once all are in (or the chain goes on).
    outputs: std::collections::HashMap<String, (String, String, J<'static>), crate::index::IdHash>,
    /// Every call seen: id → name.
    names: std::collections::HashMap<String, String, crate::index::IdHash>,
    /// The entries that start a user turn, on the current chain.
    turns: Vec<usize>,
    last_assistant: Option<usize>,
    model: String,
    provider: String,
    session_id: String,
    cwd: String,
    first_time: String,
    tokens: f64,
    unmapped: Vec<J<'static>>,
    missing: usize,
    warnings: Vec<Diagnostic>,
}

/// Read a Codex rollout file.
pub(crate) fn read(file: &str, bytes: &[u8]) -> Conversation<'static> {
    let mut r = Reader {
        file: file.to_string(),
        provider: "openai".into(),
        ..Reader::default()
    };
    let mut warnings = Vec::new();
    let lines: Vec<_> = json_lines(file, bytes, &mut warnings).collect();
    r.warnings = warnings;
    for (n, obj) in lines {
        r.line(n, obj);
    }
    r.close();
    r.answer_pending("end");
    r.finish()
}

fn s(v: &Value, k: &str) -> String {
    v.get(k)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

impl Reader {
    fn line(&mut self, n: u64, obj: Map<String, Value>) {
        let ts = obj
            .get("timestamp")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        if self.first_time.is_empty() && !ts.is_empty() {
            self.first_time = ts.clone();
        }
        let obj = Value::Object(obj);
        let ty = s(&obj, "type");
        match (ty.as_str(), obj.get("payload")) {
            ("session_meta", Some(p)) => self.meta(n, p.clone()),
            ("turn_context", Some(p)) => {
                let m = s(p, "model");
                if !m.is_empty() {
                    self.model = m;
                }
            }
            ("response_item", Some(p)) => self.item(n, &ts, p),
            ("compacted", Some(p)) => self.compacted(n, &ts, p),
            ("event_msg", Some(p)) => self.event(n, p, &obj),
            (_, None) if obj.get("record_type").is_some() => {}
            (_, None) if obj.get("instructions").is_some() && obj.get("id").is_some() => {
                self.meta(n, obj.clone())
            }
            (_, None) if !ty.is_empty() => self.item(n, &ts, &obj),
            _ => self.keep(n, obj),
        }
    }

    fn keep(&mut self, n: u64, v: Value) {
        self.unmapped.push(J::Obj(vec![
            ("line", J::Num(n as f64)),
            ("value", J::Val(v)),
        ]));
    }

    fn meta(&mut self, n: u64, p: Value) {
        if self.session_id.is_empty() {
            self.session_id = s(&p, "id");
            self.cwd = s(&p, "cwd");
            let t = s(&p, "timestamp");
            if !t.is_empty() {
                self.first_time = t;
            }
            let prov = s(&p, "model_provider");
            if !prov.is_empty() {
                self.provider = prov;
            }
        }
        self.keep(n, p);
    }

    fn event(&mut self, n: u64, p: &Value, whole: &Value) {
        match s(p, "type").as_str() {
            // Copies of response items.
            "user_message"
            | "agent_message"
            | "agent_reasoning"
            | "agent_reasoning_raw_content" => {}
            "token_count" => self.usage(p),
            "thread_rolled_back" => {
                let k = p.get("num_turns").and_then(Value::as_u64).unwrap_or(0) as usize;
                self.close();
                self.answer_pending("rollback");
                let keep = self.turns.len().saturating_sub(k);
                if k > 0 && keep < self.turns.len() {
                    self.cur = self.nodes[self.turns[keep]].parent;
                    self.turns.truncate(keep);
                }
            }
            _ => self.keep(n, whole.clone()),
        }
    }

    fn usage(&mut self, p: &Value) {
        let info = p.get("info");
        if let Some(t) = info.and_then(|i| i.get("total_token_usage")) {
            self.tokens = t
                .get("total_tokens")
                .and_then(Value::as_f64)
                .unwrap_or(self.tokens);
        }
        let Some(u) = info.and_then(|i| i.get("last_token_usage")) else {
            return;
        };
        let g = |k: &str| u.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        let cached = g("cached_input_tokens");
        let input = (g("input_tokens") - cached).max(0.0);
        let output = g("output_tokens");
        let total = if g("total_tokens") > 0.0 {
            g("total_tokens")
        } else {
            input + cached + output
        };
        let usage = usage_j(input, output, cached, total);
        // The usage of the response just given: the open message, else
        // the last one written.
        if self.open.is_some() {
            self.close();
        }
        if let Some(a) = self.last_assistant.take() {
            if let Body::Message(J::Obj(m)) = &mut self.nodes[a].body {
                for (k, v) in m.iter_mut() {
                    if *k == "usage" {
                        *v = usage.clone();
                    }
                }
            }
        }
    }

    fn item(&mut self, n: u64, ts: &str, p: &Value) {
        match s(p, "type").as_str() {
            "message" => self.message(n, ts, p),
            "reasoning" => {
                let summary: Vec<String> = match p.get("summary") {
                    Some(Value::Array(a)) => a.iter().map(|x| s(x, "text")).collect(),
                    _ => Vec::new(),
                };
                let mut sig = Vec::new();
                J::Val(p.clone()).write(&mut sig);
                let block = J::Obj(vec![
                    ("type", J::Src("thinking")),
                    ("thinking", J::str(summary.join("\n\n"))),
                    (
                        "thinkingSignature",
                        J::str(String::from_utf8_lossy(&sig).into_owned()),
                    ),
                ]);
                self.open_at(n, ts).blocks.push(block);
            }
            "function_call" | "custom_tool_call" | "local_shell_call" => self.call(n, ts, p),
            "function_call_output" | "custom_tool_call_output" => self.output(n, ts, p),
            _ => self.keep(n, p.clone()),
        }
    }

    fn message(&mut self, n: u64, ts: &str, p: &Value) {
        let role = s(p, "role");
        let blocks: Vec<J> = match p.get("content") {
            Some(Value::Array(a)) => a.iter().filter_map(content_block).collect(),
            Some(Value::String(t)) => vec![text_block(t.clone())],
            _ => Vec::new(),
        };
        if role == "assistant" {
            self.open_at(n, ts).blocks.extend(blocks);
            return;
        }
        self.close();
        if role != "user" {
            // developer and system messages: instructions Codex sends; pi
            // has no such role: kept, not sent (so they may stand between
            // calls and their outputs: pi's context skips them).
            let body = Body::Custom {
                custom_type: format!("codex-{role}"),
                data: J::Val(p.clone()),
            };
            self.push(n.to_string(), ts, body);
            return;
        }
        self.answer_pending(ts);
        let msg = J::Obj(vec![
            ("role", J::Src("user")),
            ("content", J::Arr(blocks)),
            ("timestamp", J::Num(millis(ts))),
        ]);
        let i = self.push(n.to_string(), ts, Body::Message(msg));
        if !is_meta(p) {
            self.turns.push(i);
        }
    }

    fn call(&mut self, n: u64, ts: &str, p: &Value) {
        let ty = s(p, "type");
        let id = match s(p, "call_id") {
            id if id.is_empty() => s(p, "id"),
            id => id,
        };
        let (name, args) = match ty.as_str() {
            "function_call" => {
                let raw = s(p, "arguments");
                let args = match serde_json::from_str::<Value>(&raw) {
                    Ok(v @ Value::Object(_)) => v,
                    _ => serde_json::json!({ "input": raw }),
                };
                (s(p, "name"), args)
            }
            "custom_tool_call" => (s(p, "name"), serde_json::json!({ "input": s(p, "input") })),
            _ => (
                "local_shell".to_string(),
                p.get("action").cloned().unwrap_or(Value::Null),
            ),
        };
        self.names.insert(id.clone(), name.clone());
        let o = self.open_at(n, ts);
        o.calls.push((id.clone(), name.clone()));
        o.blocks.push(J::Obj(vec![
            ("type", J::Src("toolCall")),
            ("id", J::str(id)),
            ("name", J::str(name)),
            ("arguments", J::Val(args)),
        ]));
    }

    fn output(&mut self, n: u64, ts: &str, p: &Value) {
        self.close();
        let id = s(p, "call_id");
        let content = match p.get("output") {
            Some(Value::String(t)) => J::Arr(vec![text_block(t.clone())]),
            Some(Value::Array(a)) => J::Arr(a.iter().filter_map(content_block).collect()),
            Some(Value::Object(o)) => match o.get("content") {
                Some(Value::String(t)) => J::Arr(vec![text_block(t.clone())]),
                _ => J::Arr(vec![text_block(Value::Object(o.clone()).to_string())]),
            },
            _ => J::Arr(Vec::new()),
        };
        if !self.pending.iter().any(|c| c.0 == id) || self.outputs.contains_key(&id) {
            let name = self.names.get(&id).cloned().unwrap_or_default();
            self.warnings.push(Diagnostic::new(
                &self.file,
                Some(n),
                format!(
                    "the output of call {id} ({name}) follows no open call: kept as a user message"
                ),
            ));
            self.answer_pending(ts);
            let msg = J::Obj(vec![
                ("role", J::Src("user")),
                ("content", content),
                ("timestamp", J::Num(millis(ts))),
            ]);
            self.push(n.to_string(), ts, Body::Message(msg));
            return;
        }
        self.outputs
            .insert(id, (n.to_string(), ts.to_string(), content));
        if self.pending.iter().all(|c| self.outputs.contains_key(&c.0)) {
            self.answer_pending(ts);
        }
    }

    fn compacted(&mut self, n: u64, ts: &str, p: &Value) {
        self.close();
        self.answer_pending(ts);
        let mut summary = s(p, "message");
        if summary.is_empty() {
            if let Some(Value::Array(h)) = p.get("replacement_history") {
                let texts: Vec<String> = h
                    .iter()
                    .filter(|i| s(i, "type") == "message")
                    .flat_map(|i| match i.get("content") {
                        Some(Value::Array(c)) => c.iter().map(|b| s(b, "text")).collect(),
                        _ => Vec::new(),
                    })
                    .filter(|t| !t.is_empty())
                    .collect();
                summary = texts.join("\n\n");
            }
        }
        let body = Body::Compaction {
            summary,
            tokens_before: self.tokens,
        };
        self.push(n.to_string(), ts, body);
    }

    fn open_at(&mut self, n: u64, ts: &str) -> &mut Open {
        self.open.get_or_insert_with(|| Open {
            key: n.to_string(),
            timestamp: ts.to_string(),
            ..Open::default()
        })
    }

    /// Write the open assistant message.
    fn close(&mut self) {
        let Some(o) = self.open.take() else {
            return;
        };
        self.answer_pending(&o.timestamp);
        let calls = !o.calls.is_empty();
        let msg = J::Obj(vec![
            ("role", J::Src("assistant")),
            ("content", J::Arr(o.blocks)),
            ("api", J::Src("openai-responses")),
            ("provider", J::str(self.provider.clone())),
            ("model", J::str(self.model.clone())),
            ("usage", usage_j(0.0, 0.0, 0.0, 0.0)),
            ("stopReason", J::str(if calls { "toolUse" } else { "stop" })),
            ("timestamp", J::Num(millis(&o.timestamp))),
        ]);
        let i = self.push(o.key, &o.timestamp, Body::Message(msg));
        self.last_assistant = Some(i);
        self.pending = o.calls;
    }

    /// Write the results of the pending calls in the order of the calls,
    /// an error result for each call without an output: pi's context needs
    /// one for every call.
    fn answer_pending(&mut self, ts: &str) {
        let ts = if ts.contains('T') {
            ts.to_string()
        } else {
            self.cur
                .map(|c| self.nodes[c].timestamp.clone())
                .unwrap_or_default()
        };
        for (id, name) in std::mem::take(&mut self.pending) {
            let Some((key, at, content)) = self.outputs.remove(&id) else {
                self.missing += 1;
                self.push(
                    format!("noresult:{id}"),
                    &ts,
                    Body::Message(no_result(&id, &name, &ts)),
                );
                continue;
            };
            let msg = J::Obj(vec![
                ("role", J::Src("toolResult")),
                ("toolCallId", J::str(id.clone())),
                ("toolName", J::str(name)),
                ("content", content),
                ("isError", J::Bool(false)),
                ("timestamp", J::Num(millis(&at))),
            ]);
            self.push(key, &at, Body::Message(msg));
        }
        self.outputs.clear();
    }

    fn push(&mut self, key: String, ts: &str, body: Body<'static>) -> usize {
        self.nodes.push(Node {
            key,
            parent: self.cur,
            timestamp: ts.to_string(),
            body,
        });
        self.cur = Some(self.nodes.len() - 1);
        self.nodes.len() - 1
    }

    fn finish(mut self) -> Conversation<'static> {
        if self.missing > 0 {
            self.warnings.push(Diagnostic::new(
                &self.file,
                None,
                format!(
                    "{} tool call(s) had no output in the file: each answered with an error result",
                    self.missing
                ),
            ));
        }
        let mut preamble = Vec::new();
        super::keep_unmapped(
            Agent::Codex,
            &self.file,
            "line(s)",
            std::mem::take(&mut self.unmapped),
            &self.first_time,
            &mut preamble,
            &mut self.warnings,
        );
        Conversation {
            agent: Agent::Codex,
            session_id: self.session_id,
            cwd: self.cwd,
            timestamp: self.first_time,
            preamble,
            nodes: self.nodes,
            resume: self.cur,
            warnings: self.warnings,
        }
    }
}

/// A user message Codex writes itself (the environment, AGENTS.md, shell
/// commands): not a turn of the user's (codex-rs `is_user_turn_boundary`).
fn is_meta(p: &Value) -> bool {
    let first = match p.get("content") {
        Some(Value::Array(a)) => a.first().map(|b| s(b, "text")).unwrap_or_default(),
        _ => String::new(),
    };
    let t = first.trim_start();
    [
        "<environment_context>",
        "# AGENTS.md instructions",
        "<INSTRUCTIONS>",
        "<user_instructions>",
        "<user_shell_command>",
    ]
    .iter()
    .any(|p| t.starts_with(p))
}

/// A content item in pi's form: text, or an image from its data URL.
fn content_block(b: &Value) -> Option<J<'static>> {
    match s(b, "type").as_str() {
        "input_text" | "output_text" | "text" => Some(text_block(s(b, "text"))),
        "input_image" => {
            let url = s(b, "image_url");
            let (mime, data) = url
                .strip_prefix("data:")
                .and_then(|r| r.split_once(";base64,"))
                .unwrap_or(("", ""));
            if data.is_empty() {
                return Some(text_block(format!("[image: {url}]")));
            }
            Some(J::Obj(vec![
                ("type", J::Src("image")),
                ("data", J::str(data.to_string())),
                ("mimeType", J::str(mime.to_string())),
            ]))
        }
        _ => Some(text_block(b.to_string())),
    }
}

fn usage_j(input: f64, output: f64, cache_read: f64, total: f64) -> J<'static> {
    let zero = || J::Num(0.0);
    J::Obj(vec![
        ("input", J::Num(input)),
        ("output", J::Num(output)),
        ("cacheRead", J::Num(cache_read)),
        ("cacheWrite", zero()),
        ("totalTokens", J::Num(total)),
        (
            "cost",
            J::Obj(vec![
                ("input", zero()),
                ("output", zero()),
                ("cacheRead", zero()),
                ("cacheWrite", zero()),
                ("total", zero()),
            ]),
        ),
    ])
}
