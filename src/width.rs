//! Terminal columns as pi-tui counts them (`visibleWidth`,
//! `truncateToWidth` in `@earendil-works/pi-tui/dist/utils.js`): by
//! grapheme cluster, East Asian Wide and Fullwidth characters and RGI
//! emoji as 2, marks, controls and default-ignorable characters as 0, a
//! tab as 3, ANSI escape sequences as nothing.
//!
//! The character properties are pi's own, read by Node from the same
//! regular expressions and `get-east-asian-width` (see
//! `tests/conformance/width-tables.mjs`); grapheme clusters come from
//! `unicode-segmentation` where pi uses `Intl.Segmenter`. RGI emoji
//! sequences are recognised by their shape (single code points, `X FE0F`
//! and skin tones exactly as pi; keycaps, flags, tag and ZWJ sequences by
//! their parts).

use crate::width_tables as t;
use unicode_segmentation::UnicodeSegmentation;

fn props(c: char) -> u8 {
    let c = c as u32;
    let r = t::RANGES.partition_point(|&(_, last, _)| last < c);
    match t::RANGES.get(r) {
        Some(&(first, _, bits)) if first <= c => bits,
        _ => 0,
    }
}

fn has(c: char, bit: u8) -> bool {
    props(c) & bit != 0
}

fn east_asian_width(c: char) -> usize {
    if has(c, t::WIDE) {
        2
    } else {
        1
    }
}

/// pi-tui's `graphemeWidth(segment)`.
pub fn grapheme_width(g: &str) -> usize {
    let mut it = g.chars();
    match (it.next(), it.next()) {
        (None, _) => 0,
        (Some(' '..='~'), None) => 1,
        (Some('\t'), None) => 3,
        _ => cluster_width(g),
    }
}

/// pi-tui's `couldBeEmoji(segment)`.
fn could_be_emoji(g: &str) -> bool {
    let Some(first) = g.chars().next() else {
        return false;
    };
    let cp = first as u32;
    (0x1f000..=0x1fbff).contains(&cp)
        || (0x2300..=0x23ff).contains(&cp)
        || (0x2600..=0x27bf).contains(&cp)
        || (0x2b50..=0x2b55).contains(&cp)
        || g.contains('\u{fe0f}')
        || g.encode_utf16().count() > 2
}

fn is_tone(c: char) -> bool {
    ('\u{1f3fb}'..='\u{1f3ff}').contains(&c)
}

fn is_regional(c: char) -> bool {
    ('\u{1f1e6}'..='\u{1f1ff}').contains(&c)
}

/// One element of an emoji sequence: a code point, `X FE0F` or `X TONE`
/// that `\p{RGI_Emoji}` holds.
fn is_rgi_element(cps: &[char]) -> bool {
    match cps {
        [c] => has(*c, t::RGI),
        [c, '\u{fe0f}'] => has(*c, t::RGI_FE0F),
        [c, tone] if is_tone(*tone) => has(*c, t::RGI_TONE),
        _ => false,
    }
}

/// `/^\p{RGI_Emoji}$/v.test(segment)`, by the shape of the sequence.
fn is_rgi(cps: &[char]) -> bool {
    if is_rgi_element(cps) {
        return true;
    }
    match cps {
        [k, '\u{fe0f}', '\u{20e3}'] => matches!(k, '0'..='9' | '#' | '*'),
        [a, b] if is_regional(*a) && is_regional(*b) => true,
        ['\u{1f3f4}', tags @ .., '\u{e007f}'] if !tags.is_empty() => {
            tags.iter().all(|c| ('\u{e0020}'..='\u{e007e}').contains(c))
        }
        _ if cps.contains(&'\u{200d}') => cps.split(|&c| c == '\u{200d}').all(is_rgi_element),
        _ => false,
    }
}

/// pi-tui's `clusterWidth(segment)`.
fn cluster_width(g: &str) -> usize {
    let cps: Vec<char> = g.chars().collect();
    if cps.is_empty() {
        return 0;
    }
    if cps.iter().all(|&c| has(c, t::SPACING)) {
        return cps.len();
    }
    if cps.iter().all(|&c| has(c, t::ZERO)) {
        return 0;
    }
    if could_be_emoji(g) && is_rgi(&cps) {
        return 2;
    }
    let skip = cps.iter().take_while(|&&c| has(c, t::NONPRINTING)).count();
    let base = &cps[skip..];
    let Some(&first) = base.first() else {
        return 0;
    };
    if is_regional(first) {
        return 2;
    }
    let mut width = east_asian_width(first);
    let mut follows_mark = false;
    for &c in &base[1..] {
        if has(c, t::SPACING) {
            width += 1;
            follows_mark = false;
        } else if has(c, t::MARK) {
            follows_mark = true;
        } else if !has(c, t::NONPRINTING) {
            if follows_mark || ('\u{ff00}'..='\u{ffef}').contains(&c) {
                width += east_asian_width(c);
            } else if c == '\u{e33}' || c == '\u{eb3}' {
                width += 1;
            }
            follows_mark = false;
        }
    }
    width
}

/// pi-tui's `ansiCodeLength(s, pos)` in bytes: the CSI (ending at the
/// first `m`, `G`, `K`, `H` or `J`), OSC or APC sequence at the start of
/// `s`, or 0.
pub fn ansi_code_len(s: &str) -> usize {
    let b = s.as_bytes();
    if b.first() != Some(&0x1b) {
        return 0;
    }
    match b.get(1) {
        Some(b'[') => b[2..]
            .iter()
            .position(|c| matches!(c, b'm' | b'G' | b'K' | b'H' | b'J'))
            .map_or(0, |k| k + 3),
        Some(b']' | b'_') => {
            let mut j = 2;
            while j < b.len() {
                if b[j] == 0x07 {
                    return j + 1;
                }
                if b[j] == 0x1b && b.get(j + 1) == Some(&b'\\') {
                    return j + 2;
                }
                j += 1;
            }
            0
        }
        _ => 0,
    }
}

/// The pieces of a text run as pi-tui's `truncateToWidth` walks it: ANSI
/// escape sequences (width 0) and grapheme clusters of the text between
/// them, with their widths.
pub fn pieces(text: &str) -> Vec<(&str, usize, bool)> {
    fn push_text<'a>(out: &mut Vec<(&'a str, usize, bool)>, plain: &'a str) {
        for g in plain.graphemes(true) {
            out.push((g, grapheme_width(g), false));
        }
    }
    let mut out = Vec::new();
    let (mut plain_start, mut i) = (0, 0);
    while let Some(k) = memchr::memchr(0x1b, &text.as_bytes()[i..]) {
        let at = i + k;
        let n = ansi_code_len(&text[at..]);
        if n == 0 {
            // An ESC that starts no sequence is text.
            i = at + 1;
            continue;
        }
        push_text(&mut out, &text[plain_start..at]);
        out.push((&text[at..at + n], 0, true));
        i = at + n;
        plain_start = i;
    }
    push_text(&mut out, &text[plain_start..]);
    out
}

/// `visibleWidth(text)`.
pub fn width(text: &str) -> usize {
    pieces(text).iter().map(|p| p.1).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Widths pi-tui's visibleWidth gives (Node 22, pi-tui 1.6.0).
    #[test]
    fn as_pi_tui_counts() {
        for (s, w) in [
            ("abc", 3),
            ("\t", 3),
            ("日本語", 6),
            ("ｱ", 1),
            ("é", 1),
            ("e\u{301}", 1),
            ("\u{301}", 0),
            ("\u{200b}", 0),
            ("\u{7}", 0),
            ("😀", 2),
            ("❤", 1),
            ("❤\u{fe0f}", 2),
            ("👍🏽", 2),
            ("👨\u{200d}👩\u{200d}👧", 2),
            ("🇫🇷", 2),
            ("1\u{fe0f}\u{20e3}", 2),
            ("\x1b[31mred\x1b[0m", 3),
            ("क्षि", 3),
            ("กำ", 2),
            ("❤\u{fe0f}\u{200d}🔥", 2),
            (
                "🏴\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}",
                2,
            ),
            ("\u{903}", 1),
            ("a\u{903}", 2),
        ] {
            assert_eq!(width(s), w, "{s:?}");
        }
    }
}
