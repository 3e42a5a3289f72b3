//! `pi-tree --format dot`: the tree as a Graphviz digraph, the active path
//! in bold, labelled entries with a double border.

use super::view::View;
use super::Options;
use crate::cli::Out;
use crate::error::Result;
use crate::json::js::number::push_decimal;
use crate::render::batches;
use crate::render::lines::LineSource;
use crate::tree::Step;
use std::borrow::Cow;
use std::io::Write;

impl View<'_> {
    /// The shown entries as a Graphviz digraph, each linked to its nearest
    /// shown ancestor; whether any entry is shown.
    pub(super) fn write_dot(&self, opts: &Options, out: &mut impl Write) -> Result<bool> {
        let shown = self.display_positions(opts)?;
        let mut on = vec![false; self.s.entries.len()];
        for &k in &shown {
            on[self.flat[k].0] = true;
        }
        let n = self.s.entries.len();
        // Each entry's node once.
        let mut printed = vec![false; n];
        let nodes: Vec<usize> = shown
            .iter()
            .map(|&k| self.flat[k].0)
            .filter(|&i| !std::mem::replace(&mut printed[i], true))
            .collect();
        drop(printed);
        let mut src = self.lines();
        // The nodes pi's render throws on fail before anything is written.
        self.refused_rows(&mut *src, nodes.iter().copied())?;
        out.bytes(
            b"digraph session {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n",
        )?;
        batches::write_rows(
            self.s,
            self.file(),
            &mut *src,
            nodes.len(),
            out,
            |v, buf, src| self.dot_node(buf, src, nodes[v]),
        )?;
        drop(src);
        // Edges: each shown entry to its nearest shown ancestor in the tree
        // (its parent where the walk first enters it).
        // (Only entries the walk reaches are shown, and their parents are
        // reached too: a tree's own lists give the same where no node is
        // shared.)
        const NO: u32 = u32::MAX;
        let parent_of = self.tree.parents().unwrap_or_else(|| {
            let mut parent_of = vec![NO; n];
            self.tree.walk(|step| {
                if let Step::Enter {
                    node,
                    parent: Some(p),
                    ..
                } = step
                {
                    if parent_of[node] == NO {
                        parent_of[node] = p as u32;
                    }
                }
            });
            parent_of
        });
        let parent = |i: usize| (parent_of[i] != NO).then_some(parent_of[i] as usize);
        // An entry's edge depends on the entry alone: each is drawn once.
        let mut drawn = vec![false; n];
        let mut w: Vec<u8> = Vec::with_capacity(OUT_CHUNK + 256);
        for &k in &shown {
            let i = self.flat[k].0;
            let mut cur = parent(i);
            let mut steps = 0;
            while let Some(p) = cur {
                if on[p] || steps > n {
                    break;
                }
                steps += 1;
                cur = parent(p);
            }
            if let Some(p) = cur.filter(|&p| on[p]) {
                if !std::mem::replace(&mut drawn[i], true) {
                    w.extend_from_slice(b"  n");
                    push_decimal(&mut w, p as u64);
                    w.extend_from_slice(b" -> n");
                    push_decimal(&mut w, i as u64);
                    if self.active[p] && self.active[i] {
                        w.extend_from_slice(b" [style=bold, color=\"#1d4ed8\"]");
                    }
                    w.extend_from_slice(b";\n");
                    if w.len() >= OUT_CHUNK {
                        out.bytes(&w)?;
                        w.clear();
                    }
                }
            }
        }
        w.extend_from_slice(b"}\n");
        out.bytes(&w)?;
        Ok(!shown.is_empty())
    }

    /// The node of entry `i`, added to `w`.
    fn dot_node(&self, w: &mut Vec<u8>, src: &mut dyn LineSource, i: usize) -> Result<()> {
        let mut text = String::new();
        for (t, _) in self.summary(src, i)? {
            text.push_str(&t);
        }
        let mut label = String::new();
        if let Some(l) = self.label_of(i) {
            label.push('[');
            label.push_str(&cut_chars(l, 60));
            label.push_str("] ");
        }
        label.push_str(&cut_chars(&text, 60));
        w.extend_from_slice(b"  n");
        push_decimal(w, i as u64);
        w.extend_from_slice(b" [label=\"");
        dot_escape_into(w, &cut_chars(&label, DOT_MAX_CHARS));
        w.extend_from_slice(b"\", tooltip=\"");
        dot_escape_into(w, &cut_chars(&self.s.entries.id_string(i), DOT_MAX_CHARS));
        w.push(b'"');
        if self.active[i] {
            w.extend_from_slice(
                b", style=\"bold,filled\", fillcolor=\"#dbeafe\", color=\"#1d4ed8\"",
            );
        }
        if self.label_of(i).is_some() {
            w.extend_from_slice(b", peripheries=2");
        }
        w.extend_from_slice(b"];\n");
        Ok(())
    }
}

/// The edges are written this many bytes at a time.
const OUT_CHUNK: usize = 64 << 10;

/// `s` cut to `n` characters, the last of them `…` when cut.
fn cut_chars(s: &str, n: usize) -> Cow<'_, str> {
    if s.chars().count() <= n {
        return Cow::Borrowed(s);
    }
    let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
    t.push('…');
    Cow::Owned(t)
}

/// `s` as a Graphviz quoted string holds it: its control characters shown
/// as every tool shows them (`\x1b`, `\n`, `\u{009b}`, visible.rs; Graphviz
/// refuses a NUL and shows other controls as garbage), then quotes and
/// backslashes escaped for Graphviz, so the graph shows what pi-tree's rows
/// show.
fn dot_escape_into(o: &mut Vec<u8>, s: &str) {
    for c in crate::visible::text(s).chars() {
        match c {
            '"' => o.extend_from_slice(b"\\\""),
            '\\' => o.extend_from_slice(b"\\\\"),
            c => o.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
}

/// Graphviz refuses a quoted string longer than 16 384 characters: what a
/// node shows (label, tooltip) is cut well below that (a character shown
/// as `\\u{009b}` takes 9).
const DOT_MAX_CHARS: usize = 1000;
