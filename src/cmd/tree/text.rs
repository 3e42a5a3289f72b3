//! pi's /tree rows as text: the gutters and connectors of the layout,
//! `•` on the active path, `[label]`, the display text, cut to the width
//! as pi cuts its rows, coloured or not.

use super::layout::Layout;
use super::view::View;
use super::{Filter, Options};
use crate::cli::Out;
use crate::error::{Error, Result};
use crate::json::js::string;
use crate::render::batches;
use crate::render::lines::LineSource;
use crate::search::tree_text::{Seg, ACCENT, DIM, MUTED, WARNING};
use std::io::Write;

impl View<'_> {
    /// The rows pi's /tree shows, as text; whether there is any.
    pub(super) fn write_text(&self, opts: &Options, out: &mut impl Write) -> Result<bool> {
        if let Some(i) = self.no_message {
            return Err(Error::data(
                &self.s.name,
                Some(self.s.entries[i].line()),
                "a \"message\" entry without a message (pi 1.6's /tree fails on it: TypeError); --json, --format jsonl and --stats still read the file",
            ));
        }
        let filter = opts.filter.unwrap_or(Filter::Default);
        let vis = self.visible(filter, opts.search.as_deref(), true)?;
        if vis.is_empty() {
            // pi's list when nothing passes: "  No entries found", cut
            // with "..." to pi's width (ours and its 2-column cursor).
            let mut line = String::new();
            let msg: Seg = ("No entries found".into(), Some(MUTED));
            render_empty(&mut line, &msg, opts.width, opts.color);
            out.line(line.as_bytes())?;
            return Ok(false);
        }
        let mut src = self.lines();
        self.refused_rows(&mut *src, vis.iter().map(|&k| self.flat[k].0))?;
        let layout = if self.tree.is_shared() {
            self.visuals_shared(filter, opts.search.as_deref(), &vis)?
        } else {
            self.visuals(&vis)
        };
        batches::write_rows(
            self.s,
            self.file(),
            &mut *src,
            vis.len(),
            out,
            |v, buf, src| {
                let i = self.flat[vis[v]].0;
                self.text_row(buf, src, i, &layout, v, opts)?;
                buf.push(b'\n');
                Ok(())
            },
        )?;
        Ok(true)
    }

    /// The row of entry `i` (its visual structure `vi`), added to `out`.
    fn text_row(
        &self,
        out: &mut Vec<u8>,
        src: &mut dyn LineSource,
        i: usize,
        layout: &Layout,
        v: usize,
        opts: &Options,
    ) -> Result<()> {
        let vi = &layout.rows[v];
        let indent = vi.indent as usize;
        let display = if layout.multiple_roots {
            indent.saturating_sub(1)
        } else {
            indent
        };
        let connector = vi.show_connector && !vi.virtual_root_child;
        let mut prefix = String::with_capacity(display * 3 * 3);
        // The first gutter at each level (as a search of the list from its
        // start finds it), looked up once per level, not once per column.
        let (mut near, mut far);
        let gutter_at: &mut [Option<bool>] = if display <= 32 {
            near = [None; 32];
            &mut near[..display]
        } else {
            far = vec![None; display];
            &mut far
        };
        for &(level, show) in layout.lists.get(vi.gutters) {
            if let Some(slot @ None) = gutter_at.get_mut(level) {
                *slot = Some(show);
            }
        }
        for c in 0..display * 3 {
            let (level, pos) = (c / 3, c % 3);
            if let Some(show) = gutter_at[level] {
                prefix.push(if pos == 0 && show { '│' } else { ' ' });
            } else if connector && level + 1 == display {
                prefix.push(match pos {
                    0 if vi.is_last => '└',
                    0 => '├',
                    1 => '─',
                    _ => ' ',
                });
            } else {
                prefix.push(' ');
            }
        }
        let mut segs: Vec<Seg> = Vec::new();
        if opts.ids {
            segs.push((
                format!("{} ", self.s.entries.id_string(i)).into(),
                Some(DIM),
            ));
        }
        segs.push((prefix.into(), Some(DIM)));
        if self.active[i] {
            segs.push(("• ".into(), Some(ACCENT)));
        }
        if let Some(l) = self.label_of(i) {
            segs.push((format!("[{l}] ").into(), Some(WARNING)));
        }
        self.summary_into(src, i, &mut segs)?;
        // An id, a label, a message's text: session text, whose control
        // characters are shown, never written raw (pi writes them raw).
        for (t, _) in segs.iter_mut() {
            if let std::borrow::Cow::Owned(shown) = crate::visible::text(t) {
                *t = shown.into();
            }
        }
        render_line(out, &segs, opts.width, opts.color);
        Ok(())
    }
}

/// Write segments, cut to `width` columns without an ellipsis, as pi's
/// rows are (`truncateToWidth(line, width, "")`, the columns counted by
/// grapheme and East Asian width as pi-tui counts them, see
/// [`crate::width`]); the trailing spaces pi's rows have are left out.
fn render_line(out: &mut Vec<u8>, segs: &[Seg], width: Option<usize>, color: bool) {
    // The length of the pieces joined, less the trailing white space.
    let mut trimmed_len: usize = segs.iter().map(|(t, _)| t.len()).sum();
    for (t, _) in segs.iter().rev() {
        let kept = t.trim_end_matches(string::is_space).len();
        trimmed_len -= t.len() - kept;
        if kept > 0 {
            break;
        }
    }
    if width.is_none() && cut_after_ascii(segs, trimmed_len) {
        // Nothing to cut but the trailing white space, and the character
        // before it is ASCII (not a prepending mark that a space would
        // join into one grapheme): the pieces as they are, up to there,
        // as the grapheme walk below would write them.
        write_first(out, segs, trimmed_len, color);
        return;
    }
    // How many bytes of the pieces joined fit in `width` columns, grapheme
    // by grapheme; then the white space at the cut left out too, as it is
    // at a row's end (pi's rows, trimmed, end there: a row cut just after
    // "user: " before a wide character ends at "user:").
    let mut fit = 0;
    let mut cols = 0;
    let mut cut = false;
    'walk: for (t, _) in segs {
        if let Some(widths) = simple_widths(t) {
            // Each character is a grapheme of its own.
            for (ch, w) in t.chars().zip(widths) {
                cut = width.is_some_and(|l| cols + w > l);
                if cut || fit + ch.len_utf8() > trimmed_len {
                    break 'walk;
                }
                fit += ch.len_utf8();
                cols += w;
            }
        } else {
            for (g, w, _) in crate::width::pieces(t) {
                cut = width.is_some_and(|l| cols + w > l);
                if cut || fit + g.len() > trimmed_len {
                    break 'walk;
                }
                fit += g.len();
                cols += w;
            }
        }
    }
    let n = if cut { trim_end_at(segs, fit) } else { fit };
    write_first(out, segs, n, color);
}

/// `at` (bytes of the pieces joined, on a character's boundary) less the
/// white space just before it.
fn trim_end_at(segs: &[Seg], at: usize) -> usize {
    let (mut start, mut end) = (0, 0);
    for (t, _) in segs {
        if start >= at {
            break;
        }
        let upto = t.len().min(at - start);
        let kept = t[..upto].trim_end_matches(string::is_space).len();
        if kept > 0 {
            end = start + kept;
        }
        start += t.len();
    }
    end
}

/// Whether the byte `at` of the pieces joined is at a piece's start or
/// end, or follows an ASCII character.
fn cut_after_ascii(segs: &[Seg], mut at: usize) -> bool {
    for (t, _) in segs {
        if at <= t.len() {
            return at == 0 || at == t.len() || t.as_bytes()[at - 1] < 0x80;
        }
        at -= t.len();
    }
    true
}

/// A piece of a row, in its colour when `color`; nothing when empty.
/// The first `n` bytes of the pieces joined, each with its colour.
fn write_first(out: &mut Vec<u8>, segs: &[Seg], n: usize, color: bool) {
    let mut left = n;
    for (t, c) in segs {
        let piece = &t.as_bytes()[..t.len().min(left)];
        left -= piece.len();
        write_piece(out, piece, color, *c);
        if left == 0 {
            break;
        }
    }
}

fn write_piece(out: &mut Vec<u8>, piece: &[u8], color: bool, code: Option<&str>) {
    if piece.is_empty() {
        return;
    }
    match (color, code) {
        (true, Some(code)) => {
            out.extend_from_slice(b"\x1b[");
            out.extend_from_slice(code.as_bytes());
            out.push(b'm');
            out.extend_from_slice(piece);
            out.extend_from_slice(b"\x1b[0m");
        }
        _ => out.extend_from_slice(piece),
    }
}

/// The columns of each character of `t` when every character of it is a
/// grapheme cluster of its own whose width is known without segmenting:
/// printable ASCII and the tree's own drawing characters (none of them
/// joins a neighbour into a cluster). None for any other text, which
/// [`crate::width::pieces`] walks.
fn simple_widths(t: &str) -> Option<impl Iterator<Item = usize> + '_> {
    const DRAWING: [char; 5] = ['│', '├', '└', '─', '•'];
    let simple = |c: char| matches!(c, ' '..='~') || DRAWING.contains(&c);
    if !t.bytes().all(|b| (b' '..=b'~').contains(&b)) && !t.chars().all(simple) {
        return None;
    }
    static WIDTHS: std::sync::OnceLock<[usize; 5]> = std::sync::OnceLock::new();
    let widths = WIDTHS
        .get_or_init(|| DRAWING.map(|c| crate::width::grapheme_width(c.encode_utf8(&mut [0; 4]))));
    Some(
        t.chars()
            .map(move |c| match DRAWING.iter().position(|&d| d == c) {
                Some(k) => widths[k],
                None => 1,
            }),
    )
}

/// pi's "No entries found" row: `truncateToWidth("  No entries found",
/// width + 2)` (with "..."), less the two columns of the cursor.
fn render_empty(out: &mut String, msg: &Seg, width: Option<usize>, color: bool) {
    let text = match width {
        Some(w) if msg.0.chars().count() > w => {
            let pi_width = w + 2;
            let full = format!("  {}", msg.0);
            let pi_line: String = if pi_width <= 3 {
                "...".chars().take(pi_width).collect()
            } else {
                let keep: String = full.chars().take(pi_width - 3).collect();
                format!("{keep}...")
            };
            pi_line.chars().skip(2).collect()
        }
        _ => msg.0.clone(),
    };
    match (color, msg.1) {
        (true, Some(code)) if !text.is_empty() => {
            out.push_str(&format!("\x1b[{code}m{text}\x1b[0m"))
        }
        _ => out.push_str(&text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without a width, the quick way writes what the grapheme walk writes
    /// (a width no row reaches), whatever the pieces: spaces at the end,
    /// a prepending mark before them, combining marks, wide characters.
    #[test]
    fn no_width_writes_what_the_walk_writes() {
        const CHARS: &[&str] = &[
            "a",
            " ",
            "\u{a0}",
            "\u{3000}",
            "\u{600}",
            "\u{301}",
            "界",
            "│",
            "\t",
            "\u{feff}",
            "e\u{301}",
            "\r\n",
            "\u{1f600}",
        ];
        let mut next = crate::test_rng::xorshift(21);
        for _ in 0..20_000 {
            let segs: Vec<Seg> = (0..next() % 4)
                .map(|_| {
                    let t: String = (0..next() % 5)
                        .map(|_| CHARS[next() as usize % CHARS.len()])
                        .collect();
                    (t.into(), [None, Some(DIM)][next() as usize % 2])
                })
                .collect();
            for color in [false, true] {
                let (mut quick, mut walk) = (Vec::new(), Vec::new());
                render_line(&mut quick, &segs, None, color);
                render_line(&mut walk, &segs, Some(usize::MAX), color);
                assert_eq!(quick, walk, "{segs:?}");
            }
        }
    }
}
