//! `pi-tree --format dot`: the tree as a Graphviz digraph, the active path
//! in bold, labelled entries with a double border.

use super::batches;
use super::lines::LineSource;
use super::view::View;
use super::Options;
use crate::cli::Out;
use crate::error::Result;
use crate::tree::Step;
use std::io::Write;
use std::ops::Range;

impl View<'_> {
    /// The shown entries as a Graphviz digraph, each linked to its nearest
    /// shown ancestor.
    pub(super) fn write_dot(&self, opts: &Options, out: &mut impl Write) -> Result<()> {
        let shown = self.display_positions(opts)?;
        let mut on = vec![false; self.s.entries.len()];
        for &k in &shown {
            on[self.flat[k].0] = true;
        }
        let mut w = String::from(
            "digraph session {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n",
        );
        let n = self.s.entries.len();
        // Each entry's node once, rendered in batches (nothing is written
        // when one fails).
        let mut printed = vec![false; n];
        let nodes: Vec<usize> = shown
            .iter()
            .map(|&k| self.flat[k].0)
            .filter(|&i| !std::mem::replace(&mut printed[i], true))
            .collect();
        drop(printed);
        let mut src = self.lines();
        let batch = |r: Range<usize>, src: &mut dyn LineSource| -> Result<String> {
            let mut w = String::new();
            for &i in &nodes[r] {
                self.dot_node(&mut w, src, i)?;
            }
            Ok(w)
        };
        batches::in_order(self.s, self.file(), &mut *src, nodes.len(), batch, |b| {
            w.push_str(&b);
            Ok(())
        })?;
        // Edges: each shown entry to its nearest shown ancestor in the tree
        // (its parent where the walk first enters it).
        const NO: u32 = u32::MAX;
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
        let parent = |i: usize| (parent_of[i] != NO).then_some(parent_of[i] as usize);
        // An entry's edge depends on the entry alone: each is drawn once.
        let mut drawn = vec![false; n];
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
                    w.push_str("  n");
                    w.push_str(&p.to_string());
                    w.push_str(" -> n");
                    w.push_str(&i.to_string());
                    if self.active[p] && self.active[i] {
                        w.push_str(" [style=bold, color=\"#1d4ed8\"]");
                    }
                    w.push_str(";\n");
                }
            }
        }
        w.push_str("}\n");
        out.bytes(w.as_bytes())
    }

    /// The node of entry `i`, added to `w`.
    fn dot_node(&self, w: &mut String, src: &mut dyn LineSource, i: usize) -> Result<()> {
        let text: String = self.summary(src, i)?.into_iter().map(|(t, _)| t).collect();
        let mut label = String::new();
        if let Some(l) = self.label_of(i) {
            label.push('[');
            label.push_str(&cut_chars(l, 60));
            label.push_str("] ");
        }
        label.push_str(&cut_chars(&text, 60));
        w.push_str("  n");
        w.push_str(&i.to_string());
        w.push_str(" [label=\"");
        dot_escape_into(w, &cut_chars(&label, DOT_MAX_CHARS));
        w.push_str("\", tooltip=\"");
        dot_escape_into(w, &cut_chars(&self.s.entries.id_string(i), DOT_MAX_CHARS));
        w.push('"');
        if self.active[i] {
            w.push_str(", style=\"bold,filled\", fillcolor=\"#dbeafe\", color=\"#1d4ed8\"");
        }
        if self.label_of(i).is_some() {
            w.push_str(", peripheries=2");
        }
        w.push_str("];\n");
        Ok(())
    }
}

fn cut_chars(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
    t.push('…');
    t
}

fn dot_escape_into(o: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' | '\r' => o.push(' '),
            // Graphviz refuses a NUL and shows other controls as garbage:
            // their visible pictures (U+2400 + code).
            '\0'..='\u{1f}' => o.push(char::from_u32(0x2400 + c as u32).unwrap_or(' ')),
            '\u{7f}' => o.push('\u{2421}'),
            c => o.push(c),
        }
    }
}

/// Graphviz refuses a quoted string longer than 16 384 characters: what a
/// node shows (label, tooltip) is cut well below that.
const DOT_MAX_CHARS: usize = 1000;
