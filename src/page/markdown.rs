//! Assistant text as Markdown (pulldown-cmark), made inert: raw HTML is
//! shown as text, links carry `rel="noopener noreferrer nofollow"` and only
//! http, https and mailto targets (or a fragment) become links, images are
//! never loaded (their text and address are shown instead), and control
//! characters are written visibly.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

/// Whether `url` may be a link's target: an explicit safe scheme or a
/// fragment of this page. Anything else (javascript:, data:, relative
/// paths that would resolve against file://) is shown, not linked.
fn safe_url(url: &str) -> bool {
    let u = url.trim_start().to_ascii_lowercase();
    u.starts_with("https://")
        || u.starts_with("http://")
        || u.starts_with("mailto:")
        || u.starts_with('#')
}

/// Append the HTML of the Markdown `src` to `out`.
pub(crate) fn render(out: &mut String, src: &str) {
    let src = crate::transcript::clean(src);
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    // What each open link or image closes with.
    let mut closers: Vec<String> = Vec::new();
    let events = Parser::new_ext(&src, opts).map(|ev| match ev {
        Event::Html(h) | Event::InlineHtml(h) => Event::Text(h),
        Event::Start(Tag::HtmlBlock) => Event::Html(CowStr::Borrowed("<pre class=\"raw\">")),
        Event::End(TagEnd::HtmlBlock) => Event::Html(CowStr::Borrowed("</pre>")),
        Event::Start(Tag::Link {
            dest_url, title, ..
        }) => {
            let mut open = String::new();
            if safe_url(&dest_url) {
                open.push_str("<a href=\"");
                super::esc::text(&mut open, &dest_url);
                open.push_str("\" rel=\"noopener noreferrer nofollow\"");
                if !title.is_empty() {
                    open.push_str(" title=\"");
                    super::esc::text(&mut open, &title);
                    open.push('"');
                }
                open.push('>');
                closers.push("</a>".into());
            } else {
                open.push_str("<span class=\"badlink\" title=\"not linked: ");
                super::esc::text(&mut open, &dest_url);
                open.push_str("\">");
                closers.push("</span>".into());
            }
            Event::InlineHtml(open.into())
        }
        Event::Start(Tag::Image { dest_url, .. }) => {
            let mut close = String::from("] <span class=\"url\">(");
            super::esc::text(&mut close, &dest_url);
            close.push_str(")</span></span>");
            closers.push(close);
            Event::InlineHtml(CowStr::Borrowed("<span class=\"img\">[image: "))
        }
        Event::End(TagEnd::Link) | Event::End(TagEnd::Image) => {
            Event::InlineHtml(closers.pop().unwrap_or_default().into())
        }
        other => other,
    });
    pulldown_cmark::html::push_html(out, events);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md(s: &str) -> String {
        let mut o = String::new();
        render(&mut o, s);
        o
    }

    #[test]
    fn markdown_is_rendered() {
        assert_eq!(
            md("**b** `c`"),
            "<p><strong>b</strong> <code>c</code></p>\n"
        );
    }

    #[test]
    fn raw_html_is_text() {
        let o = md("<script>alert(1)</script>\n\nx <img src=x onerror=y> z");
        assert!(!o.contains("<script"), "{o}");
        assert!(!o.contains("<img"), "{o}");
        assert!(o.contains("&lt;script&gt;"), "{o}");
    }

    #[test]
    fn links_are_inert() {
        let o = md("[a](javascript:alert(1)) [b](https://e.com/\"x) ![i](https://e.com/i.png)");
        assert!(!o.contains("href=\"javascript"), "{o}");
        assert!(o.contains("rel=\"noopener noreferrer nofollow\""), "{o}");
        assert!(!o.contains("<img"), "{o}");
        assert!(
            o.contains("[image: i] <span class=\"url\">(https://e.com/i.png)"),
            "{o}"
        );
    }

    #[test]
    fn controls_are_visible() {
        assert!(md("a\u{1b}[31mb").contains("a\\x1b[31mb"));
    }
}
