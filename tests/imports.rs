//! No import cycle between the files of `engine/src` or of `src/`.
//!
//! A file depends on another when it names an item of the other's module: in a `use`
//! (groups expanded), or inline as `crate::a::b` or `super::x`. Not counted: a `mod`
//! declaration (a parent owns its children without using them), a module's use of its
//! own ancestors (a child adding methods to its parent's type, Rust's privacy rule), and
//! test code (`#[cfg(test)]` modules, inline or in files of their own). A re-export is a
//! dependency like any other use: a module that imports through a cousin's front door
//! while that front door re-exports something of its own makes a cycle, so modules
//! import from the file that defines an item.
//!
//! The check reads the sources as text with a small lexer (comments and string literals
//! removed), which is enough for this code base's style; a failure lists each cycle's
//! files and the names that tie them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path (`["search", "exact"]`) and the file that holds it.
type Modules = BTreeMap<Vec<String>, PathBuf>;

#[test]
fn the_engine_has_no_import_cycle() {
    assert_no_cycle(&Path::new(env!("CARGO_MANIFEST_DIR")).join("engine/src"));
}

#[test]
fn the_service_and_cli_have_no_import_cycle() {
    assert_no_cycle(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
}

#[test]
fn the_checker_finds_a_cycle_through_a_front_door_and_a_grouped_use() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "mod a;\nmod b;\n");
    write("a/mod.rs", "mod inner;\npub use inner::A;\npub struct C;\n");
    write("a/inner.rs", "use crate::{b::B, x};\npub struct A(B);\n");
    // `b` imports through `a`'s front door, which re-exports its child, which uses `b`.
    write("b.rs", "use crate::a::A;\npub struct B;\n");
    let found = cycles(dir.path());
    assert_eq!(found.len(), 1, "{found:?}");
    // A heading, then three files each tied to the next by one name.
    assert_eq!(found[0].len(), 4, "{found:?}");
    // Test code, comments and strings name nothing; a child may use its parent.
    write(
        "b.rs",
        "// use crate::a::A;\nconst S: &str = \"crate::a::A\";\npub struct B;\n\
         #[cfg(test)]\nmod tests {\n    use crate::a::A;\n}\n",
    );
    write(
        "a/inner.rs",
        "use super::C;\nuse crate::b::B;\npub struct A(B, C);\n",
    );
    assert!(cycles(dir.path()).is_empty());
    // A path written inline counts.
    write("b.rs", "pub struct B;\nfn f() { let _ = crate::a::A; }\n");
    assert_eq!(cycles(dir.path()).len(), 1);
}

fn assert_no_cycle(src: &Path) {
    let found = cycles(src);
    assert!(
        found.is_empty(),
        "import cycles in {}:\n{}",
        src.display(),
        found
            .iter()
            .map(|cycle| cycle.join("\n    "))
            .collect::<Vec<_>>()
            .join("\n  and\n")
    );
}

/// Each cycle as lines `file -> file (name)`, one strongly connected component each.
fn cycles(src: &Path) -> Vec<Vec<String>> {
    let modules = modules(src);
    // Each file read and lexed once.
    let lexed: BTreeMap<&Vec<String>, String> = modules
        .iter()
        .map(|(module, file)| (module, lex(&std::fs::read_to_string(file).unwrap())))
        .collect();
    let test_only = test_only_modules(&lexed);
    let mut edges: BTreeMap<Vec<String>, BTreeMap<Vec<String>, String>> = BTreeMap::new();
    for module in modules.keys() {
        if test_only.iter().any(|t| module.starts_with(t)) {
            continue;
        }
        let text = strip_test_code(&lexed[module]);
        for path in named_paths(&text) {
            let Some(absolute) = absolute(&path, module, &modules) else {
                continue;
            };
            let target = (0..=absolute.len())
                .rev()
                .map(|n| absolute[..n].to_vec())
                .find(|prefix| modules.contains_key(prefix))
                .expect("the crate root is a module");
            // A module may use what its ancestors own (Rust's privacy is built so:
            // `super::Position` in a file that adds methods to it); every other edge
            // counts, so siblings, cousins and a parent's use of its child do.
            if !module.starts_with(&target) {
                edges
                    .entry(module.clone())
                    .or_default()
                    .entry(target)
                    .or_insert_with(|| path.join("::"));
            }
        }
    }
    strongly_connected(&modules, &edges)
        .into_iter()
        .filter(|component| component.len() > 1)
        .map(|component| {
            let cycle = shortest_cycle(&component, &edges);
            let mut lines = vec![format!(
                "{} files tied together, among them this cycle:",
                component.len()
            )];
            for pair in cycle.windows(2) {
                lines.push(format!(
                    "{} -> {} ({})",
                    shown(&modules[&pair[0]], src),
                    shown(&modules[&pair[1]], src),
                    edges[&pair[0]][&pair[1]]
                ));
            }
            lines
        })
        .collect()
}

/// The shortest cycle inside a strongly connected `component`, as its files with the
/// first repeated at the end.
fn shortest_cycle(
    component: &BTreeSet<Vec<String>>,
    edges: &BTreeMap<Vec<String>, BTreeMap<Vec<String>, String>>,
) -> Vec<Vec<String>> {
    let mut best: Option<Vec<Vec<String>>> = None;
    for start in component {
        // Breadth first from `start` back to it, inside the component.
        let mut parent: BTreeMap<Vec<String>, Vec<String>> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start.clone()]);
        let mut found = None;
        while let Some(node) = queue.pop_front() {
            for next in edges.get(&node).into_iter().flat_map(|t| t.keys()) {
                if !component.contains(next) {
                    continue;
                }
                if next == start {
                    found = Some(node.clone());
                    break;
                }
                if !parent.contains_key(next) {
                    parent.insert(next.clone(), node.clone());
                    queue.push_back(next.clone());
                }
            }
            if found.is_some() {
                break;
            }
        }
        let Some(mut node) = found else { continue };
        let mut cycle = vec![start.clone(), node.clone()];
        while &node != start {
            node = parent[&node].clone();
            cycle.push(node.clone());
        }
        cycle.reverse();
        if best.as_ref().is_none_or(|b| cycle.len() < b.len()) {
            best = Some(cycle);
        }
    }
    best.expect("a component of two or more files has a cycle")
}

fn shown(file: &Path, src: &Path) -> String {
    file.strip_prefix(src).unwrap_or(file).display().to_string()
}

/// Every module of the crate rooted at `src/lib.rs`, by its path.
fn modules(src: &Path) -> Modules {
    let mut modules = Modules::new();
    let mut pending = vec![src.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(src).unwrap();
            let mut parts: Vec<String> = relative
                .iter()
                .map(|part| part.to_string_lossy().trim_end_matches(".rs").to_string())
                .collect();
            match parts.last().map(String::as_str) {
                Some("lib") if parts.len() == 1 => {
                    parts.pop();
                }
                // The binary's own crate, not part of the library's graph.
                Some("main") if parts.len() == 1 => continue,
                Some("mod") => {
                    parts.pop();
                }
                _ => {}
            }
            modules.insert(parts, path);
        }
    }
    modules
}

/// Modules declared `#[cfg(test)] mod name;` (their files are test code), from the lexed
/// text of every module.
fn test_only_modules(lexed: &BTreeMap<&Vec<String>, String>) -> Vec<Vec<String>> {
    let mut test_only = Vec::new();
    for (&module, text) in lexed {
        let words: Vec<&str> = text.split_whitespace().collect();
        for window in words.windows(3) {
            if window[0] == "#[cfg(test)]" && window[1] == "mod" && window[2].ends_with(';') {
                let mut child = module.clone();
                child.push(window[2].trim_end_matches(';').to_string());
                test_only.push(child);
            }
        }
    }
    test_only
}

/// The source without comments, and with string and character literals emptied.
fn lex(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == 'r' && matches!(next, Some('"') | Some('#')) && !ident_before(&chars, i) {
            // A raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= chars.len() {
                    break;
                }
                if chars[j] == '"' && (1..=hashes).all(|k| chars.get(j + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && (next == Some('\\') || chars.get(i + 2) == Some(&'\'')) {
            // A character literal ('"', '\'', '\n'); a lifetime has no closing quote.
            i += if next == Some('\\') { 2 } else { 1 };
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn ident_before(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// The lexed text without `#[cfg(test)]` items (a module block or one `use`).
fn strip_test_code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at + "#[cfg(test)]".len()..];
        let semicolon = item.find(';').unwrap_or(item.len());
        let brace = item.find('{').unwrap_or(item.len());
        rest = if semicolon < brace {
            &item[semicolon + 1..]
        } else if brace < item.len() {
            let mut depth = 0;
            let mut end = item.len();
            for (k, c) in item[brace..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = brace + k + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            &item[end..]
        } else {
            ""
        };
    }
    out.push_str(rest);
    out
}

/// Every path the text names: each `use` tree expanded, and inline paths that start
/// with `crate::` or `super::`.
fn named_paths(text: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let tokens = tokens(text);
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i] == "use" && (i == 0 || tokens[i - 1] != "::") {
            let end = tokens[i..]
                .iter()
                .position(|t| t == ";")
                .map_or(tokens.len(), |p| i + p);
            expand(&tokens[i + 1..end], &[], &mut paths);
            i = end;
            continue;
        }
        if (tokens[i] == "crate" || tokens[i] == "super")
            && tokens.get(i + 1).is_some_and(|t| t == "::")
            && (i == 0 || tokens[i - 1] != "::")
        {
            let mut path = vec![tokens[i].clone()];
            let mut j = i + 1;
            while tokens.get(j).is_some_and(|t| t == "::")
                && tokens.get(j + 1).is_some_and(|t| is_ident(t))
            {
                path.push(tokens[j + 1].clone());
                j += 2;
            }
            paths.push(path);
            i = j;
            continue;
        }
        i += 1;
    }
    paths
}

fn is_ident(token: &str) -> bool {
    token
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Identifiers, `::`, and single punctuation characters.
fn tokens(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(chars[start..i].iter().collect());
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            tokens.push("::".to_string());
            i += 2;
        } else {
            if !c.is_whitespace() {
                tokens.push(c.to_string());
            }
            i += 1;
        }
    }
    tokens
}

/// Expands one `use` tree (`a::{b, c::{d as e, *}}`) into its paths.
fn expand(tree: &[String], prefix: &[String], out: &mut Vec<Vec<String>>) {
    let mut path = prefix.to_vec();
    let mut i = 0;
    while i < tree.len() {
        match tree[i].as_str() {
            "::" => i += 1,
            "{" => {
                // Split the group at its top-level commas.
                let mut depth = 0;
                let mut start = i + 1;
                for j in i..tree.len() {
                    match tree[j].as_str() {
                        "{" => depth += 1,
                        "}" => {
                            depth -= 1;
                            if depth == 0 {
                                expand(&tree[start..j], &path, out);
                                return;
                            }
                        }
                        "," if depth == 1 => {
                            expand(&tree[start..j], &path, out);
                            start = j + 1;
                        }
                        _ => {}
                    }
                }
                return;
            }
            "as" | "*" => break,
            token if is_ident(token) => {
                path.push(token.to_string());
                i += 1;
            }
            _ => i += 1,
        }
    }
    if !path.is_empty() {
        out.push(path);
    }
}

/// `path` as named in `module`, from the crate root; `None` for another crate's.
fn absolute(path: &[String], module: &[String], modules: &Modules) -> Option<Vec<String>> {
    let mut base: Vec<String> = module.to_vec();
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
        }
        // A child module of this one, named without `self::`.
        Some(first) => {
            let mut child = module.to_vec();
            child.push(first.to_string());
            if !modules.contains_key(&child) {
                return None;
            }
        }
        None => return None,
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// Tarjan's strongly connected components of the dependency graph.
fn strongly_connected(
    modules: &Modules,
    edges: &BTreeMap<Vec<String>, BTreeMap<Vec<String>, String>>,
) -> Vec<BTreeSet<Vec<String>>> {
    struct State<'a> {
        edges: &'a BTreeMap<Vec<String>, BTreeMap<Vec<String>, String>>,
        index: BTreeMap<Vec<String>, usize>,
        low: BTreeMap<Vec<String>, usize>,
        stack: Vec<Vec<String>>,
        on_stack: BTreeSet<Vec<String>>,
        components: Vec<BTreeSet<Vec<String>>>,
    }
    fn visit(state: &mut State, node: &Vec<String>) {
        let n = state.index.len();
        state.index.insert(node.clone(), n);
        state.low.insert(node.clone(), n);
        state.stack.push(node.clone());
        state.on_stack.insert(node.clone());
        let targets: Vec<Vec<String>> = state
            .edges
            .get(node)
            .map(|t| t.keys().cloned().collect())
            .unwrap_or_default();
        for target in targets {
            if !state.index.contains_key(&target) {
                visit(state, &target);
                let low = state.low[node].min(state.low[&target]);
                state.low.insert(node.clone(), low);
            } else if state.on_stack.contains(&target) {
                let low = state.low[node].min(state.index[&target]);
                state.low.insert(node.clone(), low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut component = BTreeSet::new();
            loop {
                let member = state.stack.pop().unwrap();
                state.on_stack.remove(&member);
                let done = &member == node;
                component.insert(member);
                if done {
                    break;
                }
            }
            state.components.push(component);
        }
    }
    let mut state = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        components: Vec::new(),
    };
    for module in modules.keys() {
        if !state.index.contains_key(module) {
            visit(&mut state, module);
        }
    }
    state.components
}
