//! Claude Code's session files (`~/.claude/projects/<dir>/<session>.jsonl`)
//! read as a tree of pi entries.
//!
//! The rules, from real files (see docs/tools.md, pi-import):
//! - lines other than user, assistant and `compact_boundary` (progress,
//!   attachments, hooks' system lines) are transparent: a message's parent
//!   is its nearest message ancestor; they are kept in a `custom` entry;
//! - one API message written as several lines (one per content block, the
//!   same `message.id`) is one assistant message, a repeated block once;
//! - the results of one message's tool calls are one chain of `toolResult`
//!   entries under it, in the order of the calls (a call without a result
//!   gets an error result), then any text the user typed meanwhile;
//! - a `compact_boundary` and its summary are one `compaction` entry under
//!   the boundary's logical parent (the newest message before it when that
//!   is missing or leads back to the boundary);
//! - a parent never written (a write gap) is bridged to the newest message
//!   before;
//! - Claude Code resumes at the message written last in the file: that
//!   entry is pi's leaf. Sidechain lines (subagent runs written into the
//!   main file by old versions) stay branches of their own and are never
//!   the resume point.

use super::value::{self, V};
use super::{millis, Agent, Body, Conversation, Node, J};
use crate::error::Diagnostic;
use crate::index::IdHash;
use std::borrow::Cow;
use std::collections::HashMap as StdMap;

/// The reader's tables of source ids (uuids, message and call ids), with
/// the cheap keyed hasher: SipHash was 2% of an import.
type HashMap<K, T> = StdMap<K, T, IdHash>;

/// What a source line is to the tree.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    User,
    Assistant,
    Boundary,
    /// Any other line with a uuid: transparent.
    Other,
}

/// A string of the source: borrowed unless the source escaped something
/// in it (a `String` per string was much of an import's time).
type S<'a> = Cow<'a, str>;

struct Line<'a> {
    n: u64,
    kind: Kind,
    parent: Option<S<'a>>,
    logical: Option<S<'a>>,
    sidechain: bool,
    timestamp: S<'a>,
    /// The line's object (null once placed).
    obj: V<'a>,
}

/// A message of the conversation before it becomes entries.
enum Msg<'a> {
    Assistant(Assistant<'a>),
    /// The results of one assistant message's calls (`of`), and text the
    /// user typed while they ran.
    Results {
        of: usize,
        results: HashMap<S<'a>, J<'a>>,
        texts: Vec<(S<'a>, J<'a>)>,
        timestamp: S<'a>,
    },
    User {
        key: S<'a>,
        content: J<'a>,
        timestamp: S<'a>,
    },
    Compaction {
        key: S<'a>,
        summary: String,
        tokens_before: f64,
        timestamp: S<'a>,
    },
}

#[derive(Default)]
struct Assistant<'a> {
    key: S<'a>,
    timestamp: S<'a>,
    blocks: Vec<J<'a>>,
    seen: std::collections::HashSet<u64, IdHash>,
    /// (id, name) of its tool calls, in order.
    calls: Vec<(S<'a>, S<'a>)>,
    model: S<'a>,
    /// The message's `usage` object (null when it has none).
    usage: V<'a>,
    stop: Option<S<'a>>,
    error: bool,
    results: Option<usize>,
}

struct Reader<'f, 'a> {
    file: &'f str,
    lines: Vec<Line<'a>>,
    by_uuid: HashMap<S<'a>, usize>,
    msgs: Vec<Msg<'a>>,
    /// The message each user/assistant/boundary line belongs to.
    line_msg: Vec<Option<usize>>,
    by_message_id: HashMap<S<'a>, usize>,
    /// Tool call id → its assistant message.
    call_owner: HashMap<S<'a>, usize>,
    unmapped: Vec<J<'a>>,
    warnings: Vec<Diagnostic>,
    name: Option<(String, String)>,
    session_id: String,
    cwd: String,
    first_time: String,
}

/// Read a Claude Code session file.
pub(crate) fn read<'a>(file: &str, bytes: &'a [u8]) -> Conversation<'a> {
    let mut r = Reader {
        file,
        lines: Vec::new(),
        by_uuid: HashMap::default(),
        msgs: Vec::new(),
        line_msg: Vec::new(),
        by_message_id: HashMap::default(),
        call_owner: HashMap::default(),
        unmapped: Vec::new(),
        warnings: Vec::new(),
        name: None,
        session_id: String::new(),
        cwd: String::new(),
        first_time: String::new(),
    };
    for (n, line) in super::lines(bytes) {
        match value::parse(line) {
            Ok(obj @ V::Obj(_)) => r.take_line(n, obj),
            Ok(_) => r
                .warnings
                .push(Diagnostic::new(file, Some(n), "not a JSON object: skipped")),
            Err(e) => r.warnings.push(Diagnostic::new(
                file,
                Some(n),
                format!("not JSON ({e}): skipped, the rest is imported"),
            )),
        }
    }
    for i in 0..r.lines.len() {
        r.line_msg.push(None);
        r.place(i);
    }
    r.finish()
}

/// String member `k` of `o` (a copy of a borrowed string costs nothing).
fn s<'a>(o: &V<'a>, k: &str) -> Option<S<'a>> {
    match o.get(k) {
        Some(V::Str(t)) => Some(t.clone()),
        _ => None,
    }
}

impl<'a> Reader<'_, 'a> {
    /// Keep a line: message lines and transparent ones by uuid, the rest
    /// (titles, snapshots, queue events) as names or unmapped.
    fn take_line(&mut self, n: u64, obj: V<'a>) {
        let ty = s(&obj, "type").unwrap_or_default();
        if self.session_id.is_empty() {
            self.session_id = s(&obj, "sessionId").unwrap_or_default().into_owned();
        }
        if self.cwd.is_empty() {
            self.cwd = s(&obj, "cwd").unwrap_or_default().into_owned();
        }
        let timestamp = s(&obj, "timestamp").unwrap_or_default();
        if self.first_time.is_empty() && !timestamp.is_empty() {
            self.first_time = timestamp.to_string();
        }
        match ty.as_ref() {
            "summary" => {
                if self.name.as_ref().is_none_or(|(k, _)| k == "summary") {
                    if let Some(t) = s(&obj, "summary") {
                        self.name = Some(("summary".into(), t.into_owned()));
                    }
                }
                return;
            }
            "custom-title" => {
                if let Some(t) = s(&obj, "customTitle") {
                    self.name = Some(("title".into(), t.into_owned()));
                }
                return;
            }
            _ => {}
        }
        let Some(uuid) = s(&obj, "uuid") else {
            self.keep_unmapped(n, obj);
            return;
        };
        let kind = match ty.as_ref() {
            "user" => Kind::User,
            "assistant" => Kind::Assistant,
            "system" if s(&obj, "subtype").as_deref() == Some("compact_boundary") => Kind::Boundary,
            _ => Kind::Other,
        };
        self.by_uuid.entry(uuid).or_insert(self.lines.len());
        let line = Line {
            n,
            kind,
            parent: s(&obj, "parentUuid"),
            logical: s(&obj, "logicalParentUuid"),
            sidechain: obj.get("isSidechain").and_then(V::as_bool) == Some(true),
            timestamp,
            obj,
        };
        self.lines.push(line);
    }

    fn keep_unmapped(&mut self, n: u64, obj: V<'a>) {
        self.unmapped.push(J::Obj(vec![
            ("line", J::Num(n as f64)),
            ("value", J::Raw(obj)),
        ]));
    }

    /// Give line `i` its message (merging chunks and results).
    fn place(&mut self, i: usize) {
        let kind = self.lines[i].kind;
        let m = match kind {
            Kind::Other => {
                let obj = std::mem::take(&mut self.lines[i].obj);
                self.keep_unmapped(self.lines[i].n, obj);
                return;
            }
            Kind::Assistant => self.place_assistant(i),
            Kind::User => self.place_user(i),
            Kind::Boundary => self.place_boundary(i),
        };
        self.line_msg[i] = m;
    }

    fn place_assistant(&mut self, i: usize) -> Option<usize> {
        // Each line is placed once: its object is taken, not copied.
        let mut obj = std::mem::take(&mut self.lines[i].obj);
        let line = &self.lines[i];
        let mut msg = match obj.remove("message") {
            Some(m @ V::Obj(_)) => m,
            _ => V::Obj(Vec::new()),
        };
        let uuid = s(&obj, "uuid").unwrap_or_default();
        let key = s(&msg, "id").unwrap_or(uuid);
        let idx = match self.by_message_id.get(&key) {
            Some(&m) => m,
            None => {
                let m = self.msgs.len();
                self.msgs.push(Msg::Assistant(Assistant {
                    key: key.clone(),
                    timestamp: line.timestamp.clone(),
                    ..Assistant::default()
                }));
                self.by_message_id.insert(key, m);
                m
            }
        };
        let error = obj.get("isApiErrorMessage").and_then(V::as_bool) == Some(true);
        let n = line.n;
        let mut unknown = Vec::new();
        if let Msg::Assistant(a) = &mut self.msgs[idx] {
            a.error |= error;
            if let Some(model) = s(&msg, "model") {
                a.model = model;
            }
            if let Some(u @ V::Obj(_)) = msg.remove("usage") {
                a.usage = u;
            }
            if let Some(stop) = s(&msg, "stop_reason") {
                a.stop = Some(stop);
            }
            for b in content_blocks(msg.remove("content")) {
                if !known_assistant_block(&b) {
                    unknown.push(b);
                    continue;
                }
                // A repeated block is not converted at all.
                if !a.seen.insert(block_key(&b)) {
                    continue;
                }
                if let Some((j, call)) = assistant_block(b) {
                    if let Some(c) = call {
                        self.call_owner.insert(c.0.clone(), idx);
                        a.calls.push(c);
                    }
                    a.blocks.push(j);
                }
            }
        }
        for b in unknown {
            self.unknown_block(n, b);
        }
        Some(idx)
    }

    fn unknown_block(&mut self, n: u64, b: V<'a>) {
        let ty = b.get("type").and_then(V::as_str).unwrap_or("?").to_string();
        self.warnings.push(Diagnostic::new(
            self.file,
            Some(n),
            format!("a `{ty}` block has no pi form: kept in the `pi-import` custom entry"),
        ));
        self.keep_unmapped(n, V::Obj(vec![("block".into(), b)]));
    }

    fn place_user(&mut self, i: usize) -> Option<usize> {
        let mut obj = std::mem::take(&mut self.lines[i].obj);
        let line = &self.lines[i];
        let timestamp = line.timestamp.clone();
        let n = line.n;
        let uuid = s(&obj, "uuid").unwrap_or_default();
        if obj.get("isCompactSummary").and_then(V::as_bool) == Some(true) {
            if let Some(b) = line
                .parent
                .as_ref()
                .and_then(|p| self.by_uuid.get(p.as_ref()))
            {
                if let Some(m) = self.line_msg.get(*b).copied().flatten() {
                    if let Msg::Compaction { summary, .. } = &mut self.msgs[m] {
                        *summary = text_of(obj.get("message").and_then(|m| m.get("content")));
                        return Some(m);
                    }
                }
            }
        }
        let content = match obj.remove("message") {
            Some(mut m @ V::Obj(_)) => m.remove("content"),
            _ => None,
        };
        let details = obj.remove("toolUseResult");
        let blocks = match content {
            Some(V::Arr(b)) => b,
            Some(V::Str(t)) => {
                return Some(self.push(Msg::User {
                    key: uuid,
                    content: J::text(t),
                    timestamp,
                }))
            }
            _ => Vec::new(),
        };
        let owner = blocks.iter().find_map(|b| {
            let id = b.get("tool_use_id").and_then(V::as_str)?;
            self.call_owner.get(id).copied()
        });
        let Some(owner) = owner else {
            let content = self.user_content(n, blocks);
            return Some(self.push(Msg::User {
                key: uuid,
                content,
                timestamp,
            }));
        };
        let group = self.results_of(owner, timestamp.clone());
        let mut rest = Vec::new();
        let ours: Vec<Option<S<'a>>> = blocks
            .iter()
            .map(|b| {
                let id = s(b, "tool_use_id")?;
                (self.call_owner.get(id.as_ref()) == Some(&owner)).then_some(id)
            })
            .collect();
        // Each result gets the line's details; the last one takes them.
        let mut left = ours.iter().flatten().count();
        let mut details = details;
        for (b, id) in blocks.into_iter().zip(ours) {
            match id {
                Some(id) => {
                    left -= 1;
                    let d = if left == 0 {
                        details.take()
                    } else {
                        details.clone()
                    };
                    self.add_result(group, n, id, b, d, &timestamp)
                }
                None => rest.push(b),
            }
        }
        if !rest.is_empty() {
            let content = self.user_content(n, rest);
            if let Msg::Results { texts, .. } = &mut self.msgs[group] {
                texts.push((timestamp, content));
            }
        }
        Some(group)
    }

    fn push(&mut self, m: Msg<'a>) -> usize {
        self.msgs.push(m);
        self.msgs.len() - 1
    }

    /// The results message of assistant message `owner`, made on first use.
    fn results_of(&mut self, owner: usize, timestamp: S<'a>) -> usize {
        if let Msg::Assistant(a) = &self.msgs[owner] {
            if let Some(g) = a.results {
                return g;
            }
        }
        let g = self.push(Msg::Results {
            of: owner,
            results: HashMap::default(),
            texts: Vec::new(),
            timestamp,
        });
        if let Msg::Assistant(a) = &mut self.msgs[owner] {
            a.results = Some(g);
        }
        g
    }

    fn add_result(
        &mut self,
        group: usize,
        n: u64,
        id: S<'a>,
        mut b: V<'a>,
        details: Option<V<'a>>,
        ts: &str,
    ) {
        let of = match &self.msgs[group] {
            Msg::Results { of, .. } => *of,
            _ => return,
        };
        let name = match &self.msgs[of] {
            Msg::Assistant(a) => a.calls.iter().find(|c| c.0 == id).map(|c| c.1.clone()),
            _ => None,
        }
        .unwrap_or_default();
        let content = result_content(b.remove("content"));
        let is_error = b.get("is_error").and_then(V::as_bool) == Some(true);
        let mut m = vec![
            ("role", J::Src("toolResult")),
            ("toolCallId", J::text(id.clone())),
            ("toolName", J::text(name)),
            ("content", content),
        ];
        if let Some(d) = details {
            m.push(("details", J::Raw(d)));
        }
        m.push(("isError", J::Bool(is_error)));
        m.push(("timestamp", J::Num(millis(ts))));
        let dup = match &mut self.msgs[group] {
            Msg::Results { results, .. } => results.insert(id.clone(), J::Obj(m)).is_some(),
            _ => false,
        };
        if dup {
            self.warnings.push(Diagnostic::new(
                self.file,
                Some(n),
                format!("a second result for tool call {id}: the later one is kept"),
            ));
        }
    }

    /// A user message's content blocks in pi's form; a tool result that
    /// answers no call becomes text.
    fn user_content(&mut self, n: u64, blocks: Vec<V<'a>>) -> J<'a> {
        let mut out = Vec::new();
        for mut b in blocks {
            match b.get("type").and_then(V::as_str) {
                Some("text") => out.push(text_block(take_s(&mut b, "text"))),
                Some("image") => out.push(image_block(&b)),
                Some("tool_result") => {
                    let id = s_of(&b, "tool_use_id");
                    let t = text_of(b.get("content"));
                    out.push(text_block(format!(
                        "[result of tool call {id}, whose call is not in this session]\n{t}"
                    )));
                }
                _ => self.unknown_block(n, b),
            }
        }
        J::Arr(out)
    }

    fn place_boundary(&mut self, i: usize) -> Option<usize> {
        let line = &self.lines[i];
        let meta = line.obj.get("compactMetadata");
        let tokens = meta
            .and_then(|m| m.get("preTokens"))
            .and_then(V::as_f64)
            .unwrap_or(0.0);
        let key = s(&line.obj, "uuid").unwrap_or_default();
        let timestamp = line.timestamp.clone();
        Some(self.push(Msg::Compaction {
            key,
            summary: String::new(),
            tokens_before: tokens,
            timestamp,
        }))
    }

    /// The message line `i` hangs under: its nearest message ancestor that
    /// is not part of its own message; the newest message line before it
    /// when a parent was never written, or (a boundary) when its logical
    /// parent leads back after it.
    fn parent_msg(&self, i: usize) -> Option<usize> {
        let me = self.line_msg[i]?;
        let own = |m: usize| {
            m == me || matches!(&self.msgs[me], Msg::Assistant(a) if a.results == Some(m))
        };
        let line = &self.lines[i];
        let mut next = if line.kind == Kind::Boundary {
            line.logical.clone()
        } else {
            line.parent.clone()
        };
        let mut steps = 0;
        while let Some(uuid) = next {
            steps += 1;
            let Some(&j) = self.by_uuid.get(uuid.as_ref()) else {
                return self.newest_before(i);
            };
            if steps > self.lines.len() || (line.kind == Kind::Boundary && j > i) {
                return self.newest_before(i);
            }
            match self.line_msg[j] {
                Some(m) if !own(m) => return Some(m),
                _ => next = self.lines[j].parent.clone(),
            }
        }
        if line.kind == Kind::Boundary {
            return self.newest_before(i);
        }
        None
    }

    fn newest_before(&self, i: usize) -> Option<usize> {
        let me = self.line_msg[i];
        let side = self.lines[i].sidechain;
        (0..i).rev().find_map(|j| {
            let m = self.line_msg[j]?;
            (Some(m) != me && self.lines[j].sidechain == side && self.lines[j].kind != Kind::Other)
                .then_some(m)
        })
    }

    fn finish(mut self) -> Conversation<'a> {
        let msgs = self.msgs.len();
        // Each message's parent, from its first line.
        let mut parent: Vec<Option<usize>> = vec![None; msgs];
        let mut first_line: Vec<Option<usize>> = vec![None; msgs];
        for i in 0..self.lines.len() {
            if let Some(m) = self.line_msg[i] {
                if first_line[m].is_none() {
                    first_line[m] = Some(i);
                    parent[m] = self.parent_msg(i);
                }
            }
        }
        for (m, msg) in self.msgs.iter().enumerate() {
            if let Msg::Results { of, .. } = msg {
                parent[m] = Some(*of);
            }
        }
        // An assistant message with calls always gets its results.
        for m in 0..msgs {
            let (calls, ts) = match &self.msgs[m] {
                Msg::Assistant(a) => (
                    !a.calls.is_empty() && a.results.is_none(),
                    a.timestamp.clone(),
                ),
                _ => (false, S::default()),
            };
            if calls {
                let g = self.results_of(m, ts);
                parent.push(Some(m));
                first_line.push(None);
                debug_assert_eq!(g + 1, parent.len());
            }
        }
        let resume = (0..self.lines.len())
            .rev()
            .find(|&i| self.line_msg[i].is_some() && !self.lines[i].sidechain)
            .and_then(|i| self.line_msg[i]);
        self.build(parent, resume)
    }

    /// The messages as pi entries: each message one entry (results one
    /// per call, then the texts), its children under its last.
    fn build(mut self, parent: Vec<Option<usize>>, resume: Option<usize>) -> Conversation<'a> {
        let mut msgs = std::mem::take(&mut self.msgs);
        // Where a message's children hang: an assistant message's results.
        let attach: Vec<usize> = msgs
            .iter()
            .enumerate()
            .map(|(m, msg)| match msg {
                Msg::Assistant(a) => a.results.unwrap_or(m),
                _ => m,
            })
            .collect();
        let mut nodes: Vec<Node> = Vec::new();
        let mut first: Vec<Option<usize>> = vec![None; msgs.len()];
        let mut last: Vec<Option<usize>> = vec![None; msgs.len()];
        let mut missing = 0;
        // Messages in their order; a results message right after its
        // assistant message. Entries of one message are chained; the first
        // one's parent is set once every message has its entries.
        let mut todo: Vec<usize> = Vec::new();
        for (m, msg) in msgs.iter().enumerate() {
            if !matches!(msg, Msg::Results { .. }) {
                todo.push(m);
                if let Msg::Assistant(Assistant {
                    results: Some(g), ..
                }) = msg
                {
                    todo.push(*g);
                }
            }
        }
        for &m in &todo {
            let mut prev = None;
            for (key, ts, body) in entries_of(&mut msgs, m, &mut missing) {
                nodes.push(Node {
                    key,
                    parent: prev,
                    timestamp: ts,
                    body,
                });
                prev = Some(nodes.len() - 1);
                first[m] = first[m].or(prev);
            }
            last[m] = prev;
        }
        for &m in &todo {
            let above = match &msgs[m] {
                Msg::Results { of, .. } => last[*of],
                _ => parent[m].and_then(|p| last[attach[p]]),
            };
            if let Some(f) = first[m] {
                nodes[f].parent = above.filter(|&a| a != f);
            }
        }
        if missing > 0 {
            self.warnings.push(Diagnostic::new(
                self.file,
                None,
                format!("{missing} tool call(s) had no result in the file: each answered with an error result"),
            ));
        }
        let resume = resume.and_then(|m| last[attach[m]]);
        let mut preamble = Vec::new();
        super::keep_unmapped(
            Agent::Claude,
            self.file,
            "line(s) or block(s)",
            std::mem::take(&mut self.unmapped),
            &self.first_time,
            &mut preamble,
            &mut self.warnings,
        );
        if let Some((_, name)) = self.name.take() {
            preamble.push(Node {
                key: "pi-import:name".into(),
                parent: None,
                timestamp: self.first_time.clone(),
                body: Body::Name(name),
            });
        }
        Conversation {
            agent: Agent::Claude,
            session_id: self.session_id,
            cwd: self.cwd,
            timestamp: self.first_time,
            preamble,
            nodes,
            resume,
            warnings: self.warnings,
        }
    }
}

/// The entries of message `m`: (key, ISO time, body). Each message is
/// turned into entries once: its contents are moved out, not copied (an
/// assistant message keeps its key and calls for its results).
fn entries_of<'a>(
    msgs: &mut [Msg<'a>],
    m: usize,
    missing: &mut usize,
) -> Vec<(String, String, Body<'a>)> {
    let calls = match &msgs[m] {
        Msg::Results { of, .. } => match &msgs[*of] {
            Msg::Assistant(a) => Some((a.key.clone(), a.calls.clone())),
            _ => None,
        },
        _ => None,
    };
    match &mut msgs[m] {
        Msg::Assistant(a) => vec![(
            a.key.to_string(),
            a.timestamp.to_string(),
            Body::Message(assistant_message(a)),
        )],
        Msg::User {
            key,
            content,
            timestamp,
        } => vec![(
            key.to_string(),
            timestamp.to_string(),
            Body::Message(J::Obj(vec![
                ("role", J::Src("user")),
                ("content", std::mem::replace(content, J::Null)),
                ("timestamp", J::Num(millis(timestamp))),
            ])),
        )],
        Msg::Compaction {
            key,
            summary,
            tokens_before,
            timestamp,
        } => vec![(
            key.to_string(),
            timestamp.to_string(),
            Body::Compaction {
                summary: std::mem::take(summary),
                tokens_before: *tokens_before,
            },
        )],
        Msg::Results {
            results,
            texts,
            timestamp,
            ..
        } => {
            let Some((key, calls)) = calls else {
                return Vec::new();
            };
            let mut v = Vec::new();
            for (k, (id, name)) in calls.iter().enumerate() {
                // The last call of an id takes its result (ids repeat only
                // in broken files: the earlier ones get a copy).
                let again = calls[k + 1..].iter().any(|c| c.0 == *id);
                let r = if again {
                    results.get(id).cloned()
                } else {
                    results.remove(id)
                };
                let body = match r {
                    Some(r) => r,
                    None => {
                        *missing += 1;
                        no_result(id, name, timestamp)
                    }
                };
                v.push((
                    format!("result:{id}"),
                    timestamp.to_string(),
                    Body::Message(body),
                ));
            }
            for (k, (ts, content)) in std::mem::take(texts).into_iter().enumerate() {
                let msg = J::Obj(vec![
                    ("role", J::Src("user")),
                    ("content", content),
                    ("timestamp", J::Num(millis(&ts))),
                ]);
                v.push((
                    format!("results-text:{key}:{k}"),
                    ts.into_owned(),
                    Body::Message(msg),
                ));
            }
            v
        }
    }
}

/// The error result given to a call the file holds no result for (pi's
/// context needs one for every call).
pub(crate) fn no_result<'a>(id: &str, name: &str, ts: &str) -> J<'a> {
    J::Obj(vec![
        ("role", J::Src("toolResult")),
        ("toolCallId", J::str(id.to_string())),
        ("toolName", J::str(name.to_string())),
        (
            "content",
            J::Arr(vec![text_block(
                "No result was recorded for this tool call (imported by pi-import).",
            )]),
        ),
        ("isError", J::Bool(true)),
        ("timestamp", J::Num(millis(ts))),
    ])
}

fn assistant_message<'a>(a: &mut Assistant<'a>) -> J<'a> {
    let u = std::mem::take(&mut a.usage);
    let n = |k: &str| u.get(k).and_then(V::as_f64).unwrap_or(0.0);
    let (input, output) = (n("input_tokens"), n("output_tokens"));
    let (read, write) = (
        n("cache_read_input_tokens"),
        n("cache_creation_input_tokens"),
    );
    let zero = || J::Num(0.0);
    let usage = J::Obj(vec![
        ("input", J::Num(input)),
        ("output", J::Num(output)),
        ("cacheRead", J::Num(read)),
        ("cacheWrite", J::Num(write)),
        ("totalTokens", J::Num(input + output + read + write)),
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
    ]);
    let stop = if a.error {
        "error"
    } else {
        match a.stop.as_deref() {
            Some("tool_use") => "toolUse",
            Some("max_tokens") => "length",
            Some(_) => "stop",
            None if a.calls.is_empty() => "stop",
            None => "toolUse",
        }
    };
    // An API error's text: its text blocks.
    let error = a.error.then(|| {
        let text: Vec<&str> = a
            .blocks
            .iter()
            .filter_map(|b| match b {
                J::Obj(m) => m
                    .iter()
                    .find(|(k, _)| *k == "text")
                    .and_then(|(_, v)| v.as_str()),
                _ => None,
            })
            .collect();
        text.join("\n")
    });
    let mut m = vec![
        ("role", J::Src("assistant")),
        ("content", J::Arr(std::mem::take(&mut a.blocks))),
        ("api", J::Src("anthropic-messages")),
        ("provider", J::Src("anthropic")),
        ("model", J::text(a.model.clone())),
        ("usage", usage),
        ("stopReason", J::str(stop)),
    ];
    if let Some(text) = error {
        m.push(("errorMessage", J::str(text)));
    }
    m.push(("timestamp", J::Num(millis(&a.timestamp))));
    J::Obj(m)
}

/// What tells a block from another of the same message: a call's id, else
/// a hash of its JSON text (a block written twice counts once).
fn block_key(b: &V<'_>) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let field = |k: &str| b.get(k).and_then(V::as_str);
    match field("id")
        .or_else(|| field("text"))
        .or_else(|| field("thinking"))
    {
        Some(t) => (field("type"), t).hash(&mut h),
        None => {
            let mut text = Vec::new();
            super::out::write_v(b, &mut text);
            text.hash(&mut h);
        }
    }
    h.finish()
}

fn content_blocks(v: Option<V<'_>>) -> Vec<V<'_>> {
    match v {
        Some(V::Arr(b)) => b,
        Some(t @ V::Str(_)) => vec![V::Obj(vec![
            ("type".into(), V::Str("text".into())),
            ("text".into(), t),
        ])],
        _ => Vec::new(),
    }
}

/// String member `k` of `v` ("" when it is not a string).
fn s_of<'a>(v: &V<'a>, k: &str) -> S<'a> {
    s(v, k).unwrap_or_default()
}

/// A text block; a borrowed text is the source's or a literal ([`J::text`]).
pub(crate) fn text_block<'a>(t: impl Into<S<'a>>) -> J<'a> {
    J::Obj(vec![("type", J::Src("text")), ("text", J::text(t.into()))])
}

/// The string member `k` of `v`, moved out ("" when it is not a string):
/// tool outputs and texts are the big strings, never copied.
fn take_s<'a>(v: &mut V<'a>, k: &str) -> S<'a> {
    match v.get_mut(k) {
        Some(V::Str(t)) => std::mem::take(t),
        _ => S::default(),
    }
}

/// Whether pi has a form for an assistant block (see [`assistant_block`]).
fn known_assistant_block(b: &V<'_>) -> bool {
    matches!(
        b.get("type").and_then(V::as_str),
        Some("text" | "thinking" | "redacted_thinking" | "tool_use")
    )
}

/// A call's (id, name).
type Call<'a> = (S<'a>, S<'a>);

/// An assistant block in pi's form, and the call it makes; None for a
/// block pi has no form for. Its strings are moved, not copied.
fn assistant_block(mut b: V<'_>) -> Option<(J<'_>, Option<Call<'_>>)> {
    let j = match b.get("type").and_then(V::as_str)? {
        "text" => text_block(take_s(&mut b, "text")),
        "thinking" => {
            let mut m = vec![
                ("type", J::Src("thinking")),
                ("thinking", J::text(take_s(&mut b, "thinking"))),
            ];
            if let Some(V::Str(sig)) = b.get_mut("signature") {
                m.push(("thinkingSignature", J::text(std::mem::take(sig))));
            }
            J::Obj(m)
        }
        "redacted_thinking" => J::Obj(vec![
            ("type", J::Src("thinking")),
            ("thinking", J::Src("")),
            ("thinkingSignature", J::text(take_s(&mut b, "data"))),
            ("redacted", J::Bool(true)),
        ]),
        "tool_use" => {
            let (id, name) = (take_s(&mut b, "id"), take_s(&mut b, "name"));
            let args = b.remove("input").unwrap_or(V::Obj(Vec::new()));
            let j = J::Obj(vec![
                ("type", J::Src("toolCall")),
                ("id", J::text(id.clone())),
                ("name", J::text(name.clone())),
                ("arguments", J::Raw(args)),
            ]);
            return Some((j, Some((id, name))));
        }
        _ => return None,
    };
    Some((j, None))
}

fn image_block<'a>(b: &V<'a>) -> J<'a> {
    let src = b.get("source");
    let data = src.map(|s| s_of(s, "data")).unwrap_or_default();
    let mime = src.map(|s| s_of(s, "media_type")).unwrap_or_default();
    if data.is_empty() {
        let url = src.map(|s| s_of(s, "url")).unwrap_or_default();
        return text_block(format!("[image: {url}]"));
    }
    J::Obj(vec![
        ("type", J::Src("image")),
        ("data", J::text(data)),
        ("mimeType", J::text(mime)),
    ])
}

/// A tool result's content as pi's blocks.
fn result_content(v: Option<V<'_>>) -> J<'_> {
    match v {
        Some(V::Str(t)) => J::Arr(vec![text_block(t)]),
        Some(V::Arr(b)) => J::Arr(
            b.into_iter()
                .map(|mut b| match b.get("type").and_then(V::as_str) {
                    Some("image") => image_block(&b),
                    Some("text") => text_block(take_s(&mut b, "text")),
                    // Rare: serde_json's own text of it, as before.
                    _ => text_block(b.to_value().to_string()),
                })
                .collect(),
        ),
        _ => J::Arr(Vec::new()),
    }
}

/// The text of a content: the string, or its text blocks joined.
fn text_of(v: Option<&V<'_>>) -> String {
    match v {
        Some(V::Str(t)) => t.to_string(),
        Some(V::Arr(b)) => b
            .iter()
            .filter_map(|b| b.get("text").and_then(V::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}
