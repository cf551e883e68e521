//! No import cycle between the files of `engine/src` or of `src/`, and none between
//! their rooms: the top-level modules of each crate (`search`, `solve`, `board`, ...)
//! stand in layers, each importing only rooms below it (docs/engine.md, "Crate map").
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
//! A room depends on another when one of its files depends on one of the other's; the
//! crate root (`lib.rs`, the front door that re-exports the rooms) counts as a room, so
//! a room that imports through it closes a cycle.
//!
//! The check reads the sources as text with a small lexer (comments and string literals
//! removed, `lexer.rs`), which is enough for this code base's style; a failure lists
//! each cycle's files and the names that tie them.

mod lexer;

use lexer::{lex, named_paths, strip_test_code};

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path (`["search", "exact"]`) and the file that holds it.
type Modules = BTreeMap<Vec<String>, PathBuf>;

/// For each module, the modules it depends on, each with one name that ties them.
type Edges = BTreeMap<Vec<String>, BTreeMap<Vec<String>, String>>;

#[test]
fn the_engine_has_no_import_cycle() {
    assert_no_cycle(&Path::new(env!("CARGO_MANIFEST_DIR")).join("engine/src"));
}

#[test]
fn the_service_and_cli_have_no_import_cycle() {
    assert_no_cycle(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
}

#[test]
fn the_engines_rooms_stand_in_layers() {
    assert_no_room_cycle(&Path::new(env!("CARGO_MANIFEST_DIR")).join("engine/src"));
}

#[test]
fn the_service_and_clis_rooms_stand_in_layers() {
    assert_no_room_cycle(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
}

#[test]
fn the_services_rooms_stand_in_layers() {
    assert_no_room_cycle_within(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        "service",
    );
}

#[test]
fn the_checker_finds_rooms_that_import_each_other_through_acyclic_files() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "mod a;\nmod b;\nmod c;\npub use c::C;\n");
    write("a/mod.rs", "mod low;\nmod high;\n");
    write("a/low.rs", "pub struct L;\n");
    // `a::high` stands on `b`, which stands on `a::low`: no file cycle, a room cycle.
    write("a/high.rs", "use crate::b::B;\npub struct H(B);\n");
    write("b.rs", "use crate::a::low::L;\npub struct B(L);\n");
    write("c.rs", "pub struct C;\n");
    assert!(cycles(dir.path()).is_empty());
    let found = room_cycles(dir.path());
    assert_eq!(found.len(), 1, "{found:?}");
    // A heading, then `a -> b` and `b -> a`, each with the file and name behind it.
    assert_eq!(found[0].len(), 3, "{found:?}");
    assert!(
        found[0][1].contains("a/high.rs names crate::b::B"),
        "{found:?}"
    );
    // Test code does not count; a room importing through the crate root does.
    write(
        "b.rs",
        "pub struct B;\n#[cfg(test)]\nmod tests {\n    use crate::a::low::L;\n}\n",
    );
    assert!(room_cycles(dir.path()).is_empty());
    // `b` names `C` through the root, which re-exports `b` as well.
    write(
        "lib.rs",
        "mod a;\nmod b;\nmod c;\npub use b::B;\npub use c::C;\n",
    );
    write("b.rs", "use crate::C;\npub struct B(C);\n");
    let found = room_cycles(dir.path());
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0][1..].iter().any(|l| l.starts_with("b -> crate")),
        "{found:?}"
    );
}

#[test]
fn the_checker_finds_a_room_that_imports_through_its_parents_front_door() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "pub mod s;\n");
    write(
        "s/mod.rs",
        "pub mod a;\npub mod b;\nuse a::A;\npub struct S(pub A);\n",
    );
    write("s/a.rs", "pub struct A;\n");
    write("s/b.rs", "use crate::s::S;\npub struct B(pub S);\n");
    // `b` uses its parent's own item: no cycle, since the parent does not use `b`.
    assert!(room_cycles_within(dir.path(), &["s".into()]).is_empty());
    write("s/a.rs", "pub struct A;\nfn f(_: crate::s::S) {}\n");
    // `a` names the front door's `S`, which holds an `a::A`: the two are tied.
    let found = room_cycles_within(dir.path(), &["s".into()]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0][1].starts_with("a -> s") || found[0][1].starts_with("s -> a"),
        "{found:?}"
    );
    // The crate's own rooms see one room, `s`, and no cycle.
    assert!(room_cycles(dir.path()).is_empty());
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
    assert_none(&cycles(src), &format!("import cycles in {}", src.display()));
}

fn assert_no_room_cycle(src: &Path) {
    assert_none(
        &room_cycles(src),
        &format!("rooms of {} that import each other", src.display()),
    );
}

fn assert_no_room_cycle_within(src: &Path, within: &str) {
    assert_none(
        &room_cycles_within(src, &[within.to_string()]),
        &format!("rooms of {}/{within} that import each other", src.display()),
    );
}

fn assert_none(found: &[Vec<String>], what: &str) {
    assert!(
        found.is_empty(),
        "{what}:\n{}",
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
    let edges = file_edges(&modules, None);
    described_cycles(&modules, &edges, "files", |module| {
        shown(&modules[module], src)
    })
}

/// Each cycle among the crate's rooms (its top-level modules, and the root as `crate`)
/// as lines `room -> room (file names path)`, one strongly connected component each.
fn room_cycles(src: &Path) -> Vec<Vec<String>> {
    room_cycles_within(src, &[])
}

/// Each cycle among the rooms of the module `within` (its child modules, and
/// `within` itself as their front door: a room that names an item `within` defines
/// or re-exports depends on it), as [`room_cycles`] gives them; what lies outside
/// `within` is left to the check of the rooms it belongs to.
fn room_cycles_within(src: &Path, within: &[String]) -> Vec<Vec<String>> {
    let modules = modules(src);
    let edges = file_edges(&modules, Some(within));
    let depth = within.len();
    let room_of = |module: &Vec<String>| module[..module.len().min(depth + 1)].to_vec();
    let inside = |module: &Vec<String>| module.starts_with(within);
    let rooms: Modules = modules
        .iter()
        .filter(|(module, _)| inside(module))
        .map(|(module, file)| (room_of(module), file.clone()))
        .collect();
    let mut room_edges = Edges::new();
    for (from, targets) in edges.iter().filter(|(from, _)| inside(from)) {
        for (to, name) in targets.iter().filter(|(to, _)| inside(to)) {
            let (a, b) = (room_of(from), room_of(to));
            if a != b {
                room_edges
                    .entry(a)
                    .or_default()
                    .entry(b)
                    .or_insert_with(|| format!("{} names {name}", shown(&modules[from], src)));
            }
        }
    }
    described_cycles(&rooms, &room_edges, "rooms", |room| {
        if room.len() == depth {
            room.last().cloned().unwrap_or_else(|| "crate".into())
        } else {
            room[depth..].join("::")
        }
    })
}

/// Each strongly connected component of more than one node, as a heading (`N {what}
/// tied together`) and the lines `a -> b (why)` of its shortest cycle, each node
/// shown by `name`.
fn described_cycles(
    nodes: &Modules,
    edges: &Edges,
    what: &str,
    name: impl Fn(&Vec<String>) -> String,
) -> Vec<Vec<String>> {
    strongly_connected(nodes, edges)
        .into_iter()
        .filter(|component| component.len() > 1)
        .map(|component| {
            let cycle = shortest_cycle(&component, edges);
            let mut lines = vec![format!(
                "{} {what} tied together, among them this cycle:",
                component.len()
            )];
            for pair in cycle.windows(2) {
                lines.push(format!(
                    "{} -> {} ({})",
                    name(&pair[0]),
                    name(&pair[1]),
                    edges[&pair[0]][&pair[1]]
                ));
            }
            lines
        })
        .collect()
}

/// Every dependency between two modules of `modules`, as the module docs define it;
/// with a `front_door`, also each use of an item of that module by a module under it
/// (for rooms: the front door is every room's ancestor, but naming what it defines or
/// re-exports is an import through it).
fn file_edges(modules: &Modules, front_door: Option<&[String]>) -> Edges {
    // Each file read and lexed once.
    let lexed: BTreeMap<&Vec<String>, String> = modules
        .iter()
        .map(|(module, file)| (module, lex(&std::fs::read_to_string(file).unwrap())))
        .collect();
    let test_only = test_only_modules(&lexed);
    let mut edges = Edges::new();
    for module in modules.keys() {
        if test_only.iter().any(|t| module.starts_with(t)) {
            continue;
        }
        let text = strip_test_code(&lexed[module]);
        for path in named_paths(&text) {
            let Some(absolute) = absolute(&path, module, modules) else {
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
            let through_door = front_door.is_some_and(|door| target == door && module != door);
            if through_door || !module.starts_with(&target) {
                edges
                    .entry(module.clone())
                    .or_default()
                    .entry(target)
                    .or_insert_with(|| path.join("::"));
            }
        }
    }
    edges
}

/// The shortest cycle inside a strongly connected `component`, as its files with the
/// first repeated at the end.
fn shortest_cycle(component: &BTreeSet<Vec<String>>, edges: &Edges) -> Vec<Vec<String>> {
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
fn strongly_connected(modules: &Modules, edges: &Edges) -> Vec<BTreeSet<Vec<String>>> {
    struct State<'a> {
        edges: &'a Edges,
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
