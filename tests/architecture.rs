//! The layers `ARCHITECTURE.md` promises, checked on the source itself: no
//! import cycle between modules (a file is a module), no concept module that
//! uses `cli` or `cmd`, no command that imports another command, and no
//! function over 120 lines outside tests and tables.
//!
//! The import graph is read from the text: `use` trees and paths in code that
//! start with `crate::`, `super::`, `self::` or a child module's name. A path
//! names the longest module prefix it has; a re-export is an import too (it
//! is how a cycle hides). A module's use of its ancestors (`super::`, a
//! folder's `mod.rs`) is no edge: that is how a folder shares its types
//! with its files. Comments, strings and `#[cfg(test)]` items are left
//! out: tests are not part of the layering.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Cycles allowed, each as [`cycles`] prints it, with a comment that says
/// why. None: issue 30 broke the last ones.
const ALLOWED_CYCLES: &[&str] = &[];

/// Commands allowed to import another command: (importer, imported), each
/// with a comment that says why. None.
const ALLOWED_COMMAND_IMPORTS: &[(&str, &str)] = &[];

/// Functions allowed over [`MAX_FN_LINES`]: (file, function), each with a
/// comment that says why. None.
const ALLOWED_LONG_FNS: &[(&str, &str)] = &[];

/// The longest function body allowed, in lines from `fn` to its closing brace.
const MAX_FN_LINES: usize = 120;

/// Files that are tables, not code: their length is their data.
const TABLES: &[&str] = &["src/width_tables.rs"];

#[test]
fn no_import_cycle() {
    let graph = Graph::read();
    let found = cycles(&graph.edges);
    let bad: Vec<_> = found
        .iter()
        .filter(|c| !ALLOWED_CYCLES.contains(&c.as_str()))
        .collect();
    // An allowance outlives its cycle only by mistake: the list stays true.
    let stale: Vec<_> = ALLOWED_CYCLES
        .iter()
        .filter(|c| !found.iter().any(|f| f == *c))
        .collect();
    assert!(
        bad.is_empty() && stale.is_empty(),
        "import cycles between modules:\n  {bad:#?}\nallowed cycles no longer found (remove them from ALLOWED_CYCLES):\n  {stale:#?}"
    );
}

#[test]
fn concepts_use_no_command() {
    let graph = Graph::read();
    let mut bad = Vec::new();
    for (from, tos) in &graph.edges {
        if layer(from) != Layer::Concept {
            continue;
        }
        for to in tos {
            if matches!(layer(to), Layer::Frame | Layer::Command) {
                bad.push(format!("{from} -> {to}"));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "concept modules that use cli or cmd:\n  {}",
        bad.join("\n  ")
    );
}

#[test]
fn commands_import_no_command() {
    let graph = Graph::read();
    let mut bad = BTreeSet::new();
    let mut allowed = BTreeSet::new();
    for (from, tos) in &graph.edges {
        let (Some(a), true) = (command_of(from), layer(from) == Layer::Command) else {
            continue;
        };
        for to in tos {
            let Some(b) = command_of(to).filter(|b| *b != a) else {
                continue;
            };
            match ALLOWED_COMMAND_IMPORTS
                .iter()
                .find(|p| **p == (a.as_str(), b.as_str()))
            {
                Some(p) => _ = allowed.insert(*p),
                None => _ = bad.insert(format!("{from} -> {to}")),
            }
        }
    }
    let stale: Vec<_> = ALLOWED_COMMAND_IMPORTS
        .iter()
        .filter(|p| !allowed.contains(*p))
        .collect();
    assert!(
        bad.is_empty() && stale.is_empty(),
        "commands that import another command:\n  {}\nallowed imports no longer made (remove them from ALLOWED_COMMAND_IMPORTS):\n  {stale:?}",
        bad.into_iter().collect::<Vec<_>>().join("\n  ")
    );
}

#[test]
fn no_long_function() {
    let mut bad = Vec::new();
    let mut allowed = Vec::new();
    for file in rust_files() {
        let rel = relative(&file);
        if TABLES.contains(&rel.as_str()) || is_test_file(&rel) {
            continue;
        }
        let text = strip(&fs::read_to_string(&file).unwrap());
        let text = drop_test_items(&text);
        for (name, lines) in functions(&text) {
            if lines <= MAX_FN_LINES {
                continue;
            }
            match ALLOWED_LONG_FNS
                .iter()
                .find(|a| **a == (rel.as_str(), name.as_str()))
            {
                Some(a) => allowed.push(*a),
                None => bad.push(format!("{rel}: fn {name}: {lines} lines")),
            }
        }
    }
    let stale: Vec<_> = ALLOWED_LONG_FNS
        .iter()
        .filter(|a| !allowed.contains(a))
        .collect();
    assert!(
        bad.is_empty() && stale.is_empty(),
        "functions over {MAX_FN_LINES} lines:\n  {}\nallowed long functions no longer long (remove them from ALLOWED_LONG_FNS):\n  {stale:?}",
        bad.join("\n  ")
    );
}

/// The checks can fail: a cycle, a long function and a test item are seen.
#[test]
fn the_checks_see_what_they_look_for() {
    let mut edges = BTreeMap::new();
    edges.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    edges.insert("b".to_string(), BTreeSet::from(["c".to_string()]));
    edges.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    edges.insert("d".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(cycles(&edges), ["a -> b -> c -> a"]);

    let body = "fn long() {\n".to_string() + &"    x();\n".repeat(130) + "}\n";
    let text = strip(&format!(
        "// fn not_code() {{}}\n{body}fn short() {{ \"}}\" }}\n"
    ));
    assert_eq!(
        functions(&text),
        [("long".to_string(), 132), ("short".to_string(), 1)]
    );
    let tested = drop_test_items(&strip(&format!("#[cfg(test)]\nmod tests {{\n{body}}}\n")));
    assert!(functions(&tested).is_empty());

    let mut paths = Vec::new();
    use_paths("use crate::{a::b, c::{self, e as f}, g::*};", &mut paths);
    let pair = |p: &str, n: &str| (p.to_string(), n.to_string());
    assert_eq!(
        paths,
        [
            pair("crate::a::b", "b"),
            pair("crate::c", "c"),
            pair("crate::c::e", "f"),
            pair("crate::g", "g")
        ]
    );
}

#[derive(PartialEq, Debug)]
enum Layer {
    /// `src/cli/`: the frame commands run in.
    Frame,
    /// `src/cmd/`.
    Command,
    /// The fuzz targets' entry points, above every command.
    Top,
    /// Everything else: concepts, JSON and I/O.
    Concept,
}

fn layer(module: &str) -> Layer {
    let first = module.split("::").next().unwrap_or("");
    match first {
        "cli" => Layer::Frame,
        "cmd" => Layer::Command,
        "fuzzing" => Layer::Top,
        _ => Layer::Concept,
    }
}

/// `cmd::X::...` is command X; `cmd` itself (the list of commands) is none.
fn command_of(module: &str) -> Option<String> {
    let mut parts = module.split("::");
    (parts.next() == Some("cmd")).then_some(())?;
    parts.next().map(str::to_string)
}

/// Modules (by path from the crate root, `""` for the root) and their imports.
struct Graph {
    edges: BTreeMap<String, BTreeSet<String>>,
}

impl Graph {
    fn read() -> Graph {
        let files = rust_files();
        let mut modules = BTreeMap::new();
        for file in &files {
            if let Some(m) = module_of(&relative(file)) {
                let text = drop_test_items(&strip(&fs::read_to_string(file).unwrap()));
                modules.insert(m, paths(&text));
            }
        }
        let known: BTreeSet<Vec<String>> = modules.keys().cloned().collect();
        // What each module re-exports: (module, name) -> the module it names.
        let mut exports = BTreeMap::new();
        for (module, found) in &modules {
            for f in found.iter().filter(|f| f.export.is_some()) {
                let none = BTreeMap::new();
                if let Some(to) = resolve(module, f.depth, &f.path, &known, &none) {
                    exports.insert((module.clone(), f.export.clone().unwrap()), to);
                }
            }
        }
        let mut edges = BTreeMap::new();
        for (module, found) in &modules {
            let mut targets = BTreeSet::new();
            for f in found {
                if let Some(to) = resolve(module, f.depth, &f.path, &known, &exports) {
                    // A module may use its own folder's items (`super::`),
                    // as Rust's folders are written: `mod.rs` holds what its
                    // files share. Every other import is an edge.
                    if !module.starts_with(&to) {
                        targets.insert(to.join("::"));
                    }
                }
            }
            edges.insert(module.join("::"), targets);
        }
        Graph { edges }
    }
}

/// A path found in a module's text.
struct Found {
    path: String,
    /// How many inline `mod x { }` blocks it sits in.
    depth: usize,
    /// The name a `pub use` gives it, for re-exports.
    export: Option<String>,
}

/// Every `.rs` file under `src/`, but the binaries (other crates).
fn rust_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                if path.file_name().unwrap() != "bin" || path.parent() != Some(&src()) {
                    walk(&path, out);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&src(), &mut out);
    out
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// `src/a/b.rs`, as the messages name it.
fn relative(file: &Path) -> String {
    let rel = file.strip_prefix(src()).unwrap();
    format!("src/{}", rel.to_string_lossy().replace('\\', "/"))
}

/// Tests, and the fuzz targets' entry points (`fuzzing.rs`: each a test
/// that walks one input through every tool).
fn is_test_file(rel: &str) -> bool {
    rel.ends_with("/tests.rs")
        || rel.contains("/tests/")
        || rel == "src/test_rng.rs"
        || rel == "src/fuzzing.rs"
}

/// `src/a/b.rs` and `src/a/b/mod.rs` are `a::b`; `src/lib.rs` is the root.
fn module_of(rel: &str) -> Option<Vec<String>> {
    let rel = rel.strip_prefix("src/")?.strip_suffix(".rs")?;
    let mut parts: Vec<String> = rel.split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    Some(parts)
}

/// The module `path` names (following re-exports), seen from `module` inside `inline_depth` inline
/// `mod x { }` blocks; `None` for paths outside the crate.
fn resolve(
    module: &[String],
    inline_depth: usize,
    path: &str,
    known: &BTreeSet<Vec<String>>,
    exports: &BTreeMap<(Vec<String>, String), Vec<String>>,
) -> Option<Vec<String>> {
    let segments: Vec<&str> = path.split("::").collect();
    let mut at: Vec<String>;
    let mut rest = &segments[..];
    match segments[0] {
        "crate" => {
            at = Vec::new();
            rest = &rest[1..];
        }
        "self" | "super" => {
            at = module.to_vec();
            let mut depth = inline_depth;
            while let Some(&s) = rest.first() {
                match s {
                    "self" => {}
                    "super" if depth > 0 => depth -= 1,
                    "super" => {
                        at.pop()?;
                    }
                    _ => break,
                }
                rest = &rest[1..];
            }
        }
        first => {
            // A child module's name, as `mod.rs` files use them.
            let mut child = module.to_vec();
            child.push(first.to_string());
            if inline_depth > 0 || !known.contains(&child) {
                return None;
            }
            at = module.to_vec();
        }
    }
    for s in rest {
        let mut next = at.clone();
        next.push(s.to_string());
        if known.contains(&next) {
            at = next;
        } else if let Some(to) = exports.get(&(at.clone(), s.to_string())) {
            // A re-exported item: the edge goes where it lives.
            at = to.clone();
        } else {
            break;
        }
    }
    Some(at)
}

/// Every path in `text` worth resolving, with the depth of inline modules it
/// sits in: the paths of `use` trees, and `a::b` paths elsewhere.
fn paths(text: &str) -> Vec<Found> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    // Brace depths at which an inline `mod x {` opened.
    let mut inline: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'{' {
            depth += 1;
            i += 1;
            continue;
        }
        if c == b'}' {
            depth = depth.saturating_sub(1);
            if inline.last() == Some(&depth) {
                inline.pop();
            }
            i += 1;
            continue;
        }
        if !is_ident_start(c) || (i > 0 && (is_ident(bytes[i - 1]) || bytes[i - 1] == b'$')) {
            i += 1;
            continue;
        }
        let word_end = ident_end(bytes, i);
        let word = &text[i..word_end];
        if word == "mod" {
            let name_start = skip_space(bytes, word_end);
            let name_end = ident_end(bytes, name_start);
            let after = skip_space(bytes, name_end);
            if bytes.get(after) == Some(&b'{') {
                inline.push(depth);
            }
            i = name_end.max(word_end);
            continue;
        }
        if word == "use" {
            let end = text[i..].find(';').map_or(text.len(), |e| i + e);
            let mut found = Vec::new();
            use_paths(&text[i..=end.min(text.len() - 1)], &mut found);
            let public =
                text[..i].trim_end().ends_with("pub") || text[..i].trim_end().ends_with(')');
            out.extend(found.into_iter().map(|(path, name)| Found {
                path,
                depth: inline.len(),
                export: (public && inline.is_empty()).then_some(name),
            }));
            i = end;
            continue;
        }
        // A path `a::b::c` in code.
        let mut end = word_end;
        let mut segments = vec![word];
        while bytes.get(end..end + 2) == Some(b"::")
            && bytes.get(end + 2).is_some_and(|&b| is_ident_start(b))
        {
            let s_end = ident_end(bytes, end + 2);
            segments.push(&text[end + 2..s_end]);
            end = s_end;
        }
        if segments.len() > 1 && bytes.get(end) != Some(&b'!') {
            out.push(Found {
                path: segments.join("::"),
                depth: inline.len(),
                export: None,
            });
        }
        i = end;
    }
    out
}

/// The paths a `use` statement imports, its braces expanded, each with the
/// name it binds (its `as` rename, else its last segment); a glob imports
/// its module.
fn use_paths(statement: &str, out: &mut Vec<(String, String)>) {
    let body = statement.trim().trim_end_matches(';');
    let body = body.trim_start_matches("use").trim();
    expand("", body, out);
}

fn expand(prefix: &str, tree: &str, out: &mut Vec<(String, String)>) {
    let tree = tree.trim();
    if tree.is_empty() {
        return;
    }
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim().trim_end_matches("::");
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let prefix = join(prefix, head);
        for part in split_top(inner) {
            expand(&prefix, part, out);
        }
        return;
    }
    let mut words = tree.split_whitespace();
    let path = words.next().unwrap_or("").trim_end_matches("::*");
    let rename = match (words.next(), words.next()) {
        (Some("as"), Some(name)) => Some(name.to_string()),
        _ => None,
    };
    let full = if path == "*" || path == "self" {
        prefix.to_string()
    } else {
        join(prefix, path)
    };
    if full.is_empty() {
        return;
    }
    let name = rename.unwrap_or_else(|| full.rsplit("::").next().unwrap().to_string());
    out.push((full, name));
}

fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ => format!("{a}::{b}"),
    }
}

/// `a, b::{c, d}, e` split at the commas outside braces.
fn split_top(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

/// Each elementary cycle of the graph once, as `a -> b -> a`, from its
/// smallest module; found by a depth-first search from every module, keeping
/// only the cycles whose start is their smallest member.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    fn dfs(
        start: &str,
        at: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        stack: &mut Vec<String>,
        out: &mut Vec<String>,
    ) {
        let Some(next) = edges.get(at) else { return };
        for to in next {
            if to.as_str() == start {
                let mut c = stack.clone();
                c.push(start.to_string());
                out.push(c.join(" -> "));
            } else if to.as_str() > start && !stack.contains(to) && stack.len() < 12 {
                stack.push(to.clone());
                dfs(start, to, edges, stack, out);
                stack.pop();
            }
        }
    }
    let mut out = Vec::new();
    for start in edges.keys() {
        let mut stack = vec![start.clone()];
        dfs(start, start, edges, &mut stack, &mut out);
    }
    out
}

/// Each `fn` with a body in `text` (already stripped): its name and its
/// length in lines, from the line of `fn` to the line of its closing brace.
fn functions(text: &str) -> Vec<(String, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(at) = find_word(text, i, "fn") {
        let name_start = skip_space(bytes, at + 2);
        let name_end = ident_end(bytes, name_start);
        let name = text[name_start..name_end].to_string();
        if name.is_empty() {
            // A function pointer type, `fn(u8) -> bool`.
            i = name_end.max(at + 2);
            continue;
        }
        // The body starts at the first `{` outside the signature's parentheses
        // and angle brackets; a `;` first means a declaration without one.
        let mut j = name_end;
        let mut parens = 0i32;
        let mut body = None;
        while j < bytes.len() {
            match bytes[j] {
                b'(' | b'[' => parens += 1,
                b')' | b']' => parens -= 1,
                b';' if parens == 0 => break,
                b'{' if parens == 0 => {
                    body = Some(j);
                    break;
                }
                _ => {}
            }
            j += 1;
        }
        let Some(open) = body else {
            i = j.max(name_end);
            continue;
        };
        let close = matching(bytes, open);
        let lines = text[at..=close.min(bytes.len() - 1)].matches('\n').count() + 1;
        out.push((name, lines));
        // Nested functions are counted inside their parent, and on their own.
        i = open + 1;
    }
    out
}

/// The index of the brace closing the one at `open`.
fn matching(bytes: &[u8], open: usize) -> usize {
    let mut depth = 0;
    for (k, &b) in bytes.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    bytes.len()
}

/// `text` without the items under `#[cfg(test)]` or `#[test]` (blanked, lines kept).
fn drop_test_items(text: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for attr in [&b"#[cfg(test)]"[..], b"#[test]"] {
        let mut from = 0;
        // Searched in what is left, so an item inside one dropped is not seen.
        while let Some(at) = bytes[from..].windows(attr.len()).position(|w| w == attr) {
            let at = at + from;
            from = at + attr.len();
            // The item ends at its first `;` or at the brace closing its first `{`.
            let mut j = from;
            while j < bytes.len() && bytes[j] != b'{' && bytes[j] != b';' {
                j += 1;
            }
            let end = if bytes.get(j) == Some(&b'{') {
                matching(&bytes, j)
            } else {
                j
            };
            for b in &mut bytes[at..end.min(text.len())] {
                if *b != b'\n' {
                    *b = b' ';
                }
            }
        }
    }
    String::from_utf8(bytes).unwrap()
}

/// `text` with comments, strings and character literals blanked (each byte a
/// space, newlines kept), so braces and paths in them are not seen.
fn strip(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for x in &mut out[from..to.min(b.len())] {
            if *x != b'\n' {
                *x = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            let end = rest
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |e| i + e);
            blank(&mut out, i, end);
            i = end;
        } else if rest.starts_with(b"/*") {
            let mut depth = 0;
            let mut j = i;
            while j < b.len() {
                if b[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if b[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if let Some(hashes) = raw_string_start(b, i) {
            // r"..", r#".."#, br"..": ends at a quote followed by as many hashes.
            let open = i + b[i..].iter().position(|&c| c == b'"').unwrap() + 1;
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            let end = b[open..]
                .windows(close.len())
                .position(|w| w == close.as_slice())
                .map_or(b.len(), |e| open + e + close.len());
            blank(&mut out, open, end - close.len());
            i = end;
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i + 1, j);
            i = j + 1;
        } else if b[i] == b'\'' && literal_may_start(b, i) {
            // A character or byte literal ('x', '\n', 'é', b'"'), or a lifetime ('a).
            let end = if b.get(i + 1) == Some(&b'\\') {
                let mut j = i + 2;
                while j < b.len() && b[j] != b'\'' {
                    j += 1;
                }
                Some(j)
            } else {
                let len = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                (b.get(i + 1 + len) == Some(&b'\'')).then_some(i + 1 + len)
            };
            match end {
                Some(end) => {
                    blank(&mut out, i + 1, end);
                    i = end + 1;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

/// Whether a quote at `i` may open a literal: not after an identifier, but
/// for a byte literal's `b`.
fn literal_may_start(b: &[u8], i: usize) -> bool {
    match i {
        0 => true,
        1 => !is_ident(b[0]) || b[0] == b'b',
        _ => !is_ident(b[i - 1]) || (b[i - 1] == b'b' && !is_ident(b[i - 2])),
    }
}

/// `Some(number of hashes)` when a raw string literal starts at `i`.
fn raw_string_start(b: &[u8], i: usize) -> Option<usize> {
    if i > 0 && is_ident(b[i - 1]) {
        return None;
    }
    let mut j = i;
    if b.get(j) == Some(&b'b') {
        j += 1;
    }
    if b.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let hashes = b[j..].iter().take_while(|&&c| c == b'#').count();
    (b.get(j + hashes) == Some(&b'"')).then_some(hashes)
}

fn find_word(text: &str, from: usize, word: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut k = from;
    while let Some(at) = text.get(k..)?.find(word).map(|p| p + k) {
        let before = at == 0 || !is_ident(bytes[at - 1]);
        let after = bytes.get(at + word.len()).is_none_or(|&c| !is_ident(c));
        if before && after {
            return Some(at);
        }
        k = at + word.len();
    }
    None
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn ident_end(bytes: &[u8], start: usize) -> usize {
    let mut j = start;
    while j < bytes.len() && is_ident(bytes[j]) {
        j += 1;
    }
    // `r#type`
    j
}

fn skip_space(bytes: &[u8], mut j: usize) -> usize {
    while j < bytes.len() && bytes[j].is_ascii_whitespace() {
        j += 1;
    }
    j
}
