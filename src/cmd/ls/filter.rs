//! The filters of a listing: activity times (`--since`, `--until`,
//! `--older-than`, read by `time::parse_when`), the working directory, the name's glob, orphans.

use super::Request;
use crate::store::{self, Info};
use std::path::Path;

/// Keep the sessions the filters ask for.
pub(crate) fn filter(req: &Request, infos: Vec<Info>) -> Vec<Info> {
    let cwd = req
        .cwd
        .as_ref()
        .map(|c| store::resolve_path(c).to_string_lossy().into_owned());
    infos
        .into_iter()
        .filter(|i| req.since.is_none_or(|t| i.modified >= t))
        .filter(|i| req.until.is_none_or(|t| i.modified < t))
        .filter(|i| {
            cwd.as_ref().is_none_or(|want| {
                let c = i.cwd_string();
                if c.is_empty() {
                    return false;
                }
                let c = store::resolve_path_str(&c);
                c == *want
                    || c.strip_prefix(want.as_str())
                        .is_some_and(|r| r.starts_with('/') || want == "/")
            })
        })
        .filter(|i| {
            req.name
                .as_ref()
                .is_none_or(|g| i.name_string().is_some_and(|n| glob(g, &n)))
        })
        .filter(|i| {
            !req.orphans || {
                let c = i.cwd_string();
                c.is_empty() || !Path::new(&store::resolve_path_str(&c)).is_dir()
            }
        })
        .collect()
}

/// A `*` and `?` glob (`[...]` classes too), on whole strings.
pub(crate) fn glob(pat: &str, s: &str) -> bool {
    let p: Vec<char> = pat.chars().collect();
    let t: Vec<char> = s.chars().collect();
    // Iterative matching with one star back-track point.
    let (mut i, mut j) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while j < t.len() {
        if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
            continue;
        }
        if i < p.len() {
            if let Some((ok, len)) = class_or_char(&p[i..], t[j]) {
                if ok {
                    i += len;
                    j += 1;
                    continue;
                }
            }
        }
        match star {
            Some((si, sj)) => {
                i = si + 1;
                j = sj + 1;
                star = Some((si, sj + 1));
            }
            None => return false,
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

/// Whether the pattern item at the start of `p` matches `c`, and its length.
fn class_or_char(p: &[char], c: char) -> Option<(bool, usize)> {
    match p.first()? {
        '?' => Some((true, 1)),
        '[' => {
            let end = p.iter().skip(1).position(|&x| x == ']').map(|e| e + 1)?;
            let body = &p[1..end];
            let (neg, body) = match body.first() {
                Some('!' | '^') => (true, &body[1..]),
                _ => (false, body),
            };
            let mut hit = false;
            let mut k = 0;
            while k < body.len() {
                if k + 2 < body.len() && body[k + 1] == '-' {
                    hit |= body[k] <= c && c <= body[k + 2];
                    k += 3;
                } else {
                    hit |= body[k] == c;
                    k += 1;
                }
            }
            Some((hit != neg, end + 1))
        }
        '\\' if p.len() > 1 => Some((p[1] == c, 2)),
        &x => Some((x == c, 1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob("parser*", "parser rewrite"));
        assert!(!glob("parser*", "the parser"));
        assert!(glob("*pars?r*", "the parser"));
        assert!(glob("[pq]x", "qx"));
        assert!(!glob("[!pq]x", "qx"));
    }
}
