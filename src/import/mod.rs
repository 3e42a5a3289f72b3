//! Sessions of other agents (Claude Code, Codex) read as pi sessions: each
//! source is read into a tree of pi entries without ids ([`Conversation`]),
//! then written as one version-3 pi file ([`render`]) whose ids, session id
//! and file name come from the source alone, so the same source always
//! gives the same bytes.

mod claude;
mod codex;
mod ids;
mod out;
mod render;
mod value;

pub(crate) use out::J;
pub(crate) use render::{render, Imported};

use crate::error::Diagnostic;

/// The agent that wrote a source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Agent {
    /// Claude Code (`~/.claude/projects/<dir>/<session>.jsonl`).
    Claude,
    /// Codex (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
    Codex,
}

impl Agent {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude-code",
            Agent::Codex => "codex",
        }
    }
}

/// What a source held that has no pi form, kept in one `custom` entry
/// (pi never sends it) and named in a warning: nothing is dropped
/// silently. `what` says which lines they were, for the warning.
pub(crate) fn keep_unmapped<'a>(
    agent: Agent,
    file: &str,
    what: &str,
    unmapped: Vec<J<'a>>,
    time: &str,
    preamble: &mut Vec<Node<'a>>,
    warnings: &mut Vec<Diagnostic>,
) {
    if unmapped.is_empty() {
        return;
    }
    warnings.push(Diagnostic::new(
        file,
        None,
        format!(
            "{} {what} with no pi form ({}): kept in a `pi-import` custom entry",
            unmapped.len(),
            match agent {
                Agent::Claude => "progress, hooks, snapshots...",
                Agent::Codex => "session_meta, events, snapshots...",
            }
        ),
    ));
    preamble.push(Node {
        key: "pi-import:unmapped".into(),
        parent: None,
        timestamp: time.to_string(),
        body: Body::Custom {
            custom_type: "pi-import".into(),
            data: J::Obj(vec![
                ("agent", J::str(agent.name())),
                ("unmapped", J::Arr(unmapped)),
            ]),
        },
    });
}

/// One pi entry to write, before it has an id.
pub(crate) struct Node<'a> {
    /// What names it in the source (a uuid, a message id, a call id): its
    /// id is drawn from this, so it does not move when the source grows.
    pub key: String,
    /// The index of its parent in [`Conversation::nodes`].
    pub parent: Option<usize>,
    /// ISO time.
    pub timestamp: String,
    pub body: Body<'a>,
}

/// What an entry holds.
pub(crate) enum Body<'a> {
    /// A `message` entry: the AgentMessage.
    Message(J<'a>),
    /// A `compaction` entry: nothing before it is sent again
    /// (`firstKeptEntryId` is its own id, as pi writes when it keeps nothing).
    Compaction { summary: String, tokens_before: f64 },
    /// A `custom` entry (pi never sends it): what could not be mapped.
    Custom { custom_type: String, data: J<'a> },
    /// A `session_info` entry: the session's name.
    Name(String),
}

/// A source read as a tree of pi entries.
pub(crate) struct Conversation<'a> {
    pub agent: Agent,
    /// The source's own session id.
    pub session_id: String,
    pub cwd: String,
    /// The header's time: the source's first.
    pub timestamp: String,
    /// Entries before the conversation (what was not mapped, the name):
    /// chained, the first conversation root hung under the last, so they
    /// add no leaf.
    pub preamble: Vec<Node<'a>>,
    pub nodes: Vec<Node<'a>>,
    /// The entry the source agent would resume from: written last, so pi
    /// continues there.
    pub resume: Option<usize>,
    /// What was not mapped, or was mended, with the source's `FILE:LINE`.
    pub warnings: Vec<Diagnostic>,
}

/// Read `bytes` (the source `file`) as `agent`'s session.
pub(crate) fn read<'a>(agent: Agent, file: &str, bytes: &'a [u8]) -> Conversation<'a> {
    let mut c = match agent {
        Agent::Claude => claude::read(file, bytes),
        Agent::Codex => codex::read(file, bytes),
    };
    let cut = break_cycles(&mut c.nodes);
    if cut > 0 {
        c.warnings.push(Diagnostic::new(
            file,
            None,
            format!(
                "{cut} loop(s) of parents in the source: each cut, its first message made a root"
            ),
        ));
    }
    c
}

/// Cut every loop of parent links (pi would walk one forever): the entry
/// where the walk meets itself becomes a root. Returns how many were cut.
fn break_cycles(nodes: &mut [Node<'_>]) -> usize {
    // 0: not seen, 1: on the walk now, 2: done.
    let mut state = vec![0u8; nodes.len()];
    let mut cut = 0;
    for start in 0..nodes.len() {
        let mut walk = Vec::new();
        let mut i = start;
        loop {
            if state[i] == 2 {
                break;
            }
            if state[i] == 1 {
                // Cut the loop above an entry that may start a path: not
                // a tool result (pi's context needs it under its call).
                let mut members = vec![i];
                let mut j = nodes[i].parent.unwrap_or(i);
                while j != i && members.len() <= nodes.len() {
                    members.push(j);
                    j = nodes[j].parent.unwrap_or(i);
                }
                let at = members
                    .iter()
                    .copied()
                    .find(|&m| !is_result(&nodes[m]))
                    .unwrap_or(i);
                nodes[at].parent = None;
                cut += 1;
                break;
            }
            state[i] = 1;
            walk.push(i);
            match nodes[i].parent {
                Some(p) if p < nodes.len() => i = p,
                _ => break,
            }
        }
        for w in walk {
            state[w] = 2;
        }
    }
    cut
}

/// Whether an entry is a `toolResult` message.
fn is_result(n: &Node<'_>) -> bool {
    match &n.body {
        Body::Message(J::Obj(m)) => m
            .iter()
            .any(|(k, v)| *k == "role" && v.as_str() == Some("toolResult")),
        _ => false,
    }
}

/// Which agent wrote `bytes`, from its first lines that are JSON objects:
/// Codex's lines are `{timestamp, type, payload}` (older ones start with a
/// bare `{id, timestamp, instructions}` header); Claude Code's have
/// `sessionId` or a `type` of its own.
pub(crate) fn detect(bytes: &[u8]) -> Option<Agent> {
    for line in bytes.split(|&b| b == b'\n').take(50) {
        let Ok(serde_json::Value::Object(o)) = serde_json::from_slice(line) else {
            continue;
        };
        if o.contains_key("payload") && o.contains_key("type") {
            return Some(Agent::Codex);
        }
        if o.contains_key("sessionId") || o.contains_key("parentUuid") || o.contains_key("leafUuid")
        {
            return Some(Agent::Claude);
        }
        if o.contains_key("instructions") && o.contains_key("id") {
            return Some(Agent::Codex);
        }
    }
    None
}

/// Milliseconds since the epoch of an ISO time, as `Date.parse` reads it
/// (0 when it cannot be read).
pub(crate) fn millis(iso: &str) -> f64 {
    let ms = crate::time::parse_iso(iso);
    if ms.is_nan() {
        0.0
    } else {
        ms
    }
}

/// The lines of `bytes` that are not blank, each with its 1-based number
/// (without its `\r`).
pub(crate) fn lines(bytes: &[u8]) -> impl Iterator<Item = (u64, &[u8])> {
    // Lines cut with memchr (a byte-at-a-time split was 3% of an import).
    let mut at = 0;
    std::iter::from_fn(move || {
        (at <= bytes.len()).then(|| {
            let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
            let line = &bytes[at..end];
            at = end + 1;
            line
        })
    })
    .enumerate()
    .filter_map(|(i, line)| {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        (!line.iter().all(u8::is_ascii_whitespace)).then_some((i as u64 + 1, line))
    })
}

/// The texts of the lines of `bytes`, each with its 1-based number; a
/// line that is not a JSON object is a warning (`FILE:LINE`) and skipped.
pub(crate) fn json_lines<'a>(
    file: &'a str,
    bytes: &'a [u8],
    warnings: &'a mut Vec<Diagnostic>,
) -> impl Iterator<Item = (u64, serde_json::Map<String, serde_json::Value>)> + 'a {
    lines(bytes).filter_map(move |(n, line)| {
        // A line checked as UTF-8 at once (simdutf8) is parsed as a
        // str: serde_json then checks no string again (a line that is
        // not UTF-8 keeps from_slice's error).
        let parsed = match simdutf8::basic::from_utf8(line) {
            Ok(text) => serde_json::from_str(text),
            Err(_) => serde_json::from_slice(line),
        };
        match parsed {
            Ok(serde_json::Value::Object(o)) => Some((n, o)),
            Ok(_) => {
                warnings.push(Diagnostic::new(file, Some(n), "not a JSON object: skipped"));
                None
            }
            Err(e) => {
                warnings.push(Diagnostic::new(
                    file,
                    Some(n),
                    format!("not JSON ({e}): skipped, the rest is imported"),
                ));
                None
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(parent: Option<usize>, role: &str) -> Node<'static> {
        Node {
            key: String::new(),
            parent,
            timestamp: String::new(),
            body: Body::Message(J::Obj(vec![("role", J::str(role.to_string()))])),
        }
    }

    #[test]
    fn a_loop_is_cut_above_a_message_that_is_no_tool_result() {
        // 0 -> 1 -> 2 -> 0, 0 a tool result, 3 under 2.
        let mut nodes = vec![
            node(Some(2), "toolResult"),
            node(Some(0), "user"),
            node(Some(1), "assistant"),
            node(Some(2), "user"),
        ];
        assert_eq!(break_cycles(&mut nodes), 1);
        let parents: Vec<Option<usize>> = nodes.iter().map(|n| n.parent).collect();
        assert_eq!(parents, [Some(2), Some(0), None, Some(2)]);
        assert_eq!(break_cycles(&mut nodes), 0);
    }
}
