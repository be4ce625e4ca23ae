//! The workspace's walls, checked on the sources: the engine does no I/O and reads no clock; the
//! crates around it and the binary have no import cycle between their top-level modules (the
//! engine's own modules keep a stricter order, checked by `crates/engine/tests/module_graph.rs`);
//! no SQL outside the judge's store. (That the engine's dependency tree holds none of the judge's
//! crates is checked by `.ci/run` with `cargo tree`.)

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const CRATES: &[&str] = &["engine", "cases", "picture", "judge", "replay", "site"];

/// Every `.rs` file under `dir`, sorted.
fn sources(dir: &Path) -> Vec<PathBuf> {
    crate::tree::files(dir, Some("rs"))
}

fn src(krate: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates")
        .join(krate)
        .join("src")
}

/// The `napjudge` binary's sources.
fn binary() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every source folder whose modules must not import each other in a cycle: each crate but the
/// engine (its stricter order is checked apart), then the binary.
fn layered() -> Vec<PathBuf> {
    CRATES
        .iter()
        .filter(|k| **k != "engine")
        .map(|k| src(k))
        .chain([binary()])
        .collect()
}

/// The code of a file without its comments (doc examples may name anything).
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("a source file");
    text.lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level module a file of a crate belongs to (`lib` for lib.rs).
fn module_of(root: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(root).expect("under src");
    let first = rel.components().next().expect("a file");
    let name = first.as_os_str().to_string_lossy();
    name.trim_end_matches(".rs").to_string()
}

/// The top-level modules each top-level module under `root` names through `crate::`.
fn module_graph(root: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in sources(root) {
        let from = module_of(root, &file);
        let text = code(&file);
        let uses = graph.entry(from.clone()).or_default();
        for (i, _) in text.match_indices("crate::") {
            // `napjudge_engine::` and the like are other crates, not this one's `crate::`.
            let before = text[..i].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &text[i + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let is_module = root.join(format!("{name}.rs")).exists() || root.join(&name).is_dir();
            if is_module && name != from {
                uses.insert(name);
            }
        }
    }
    graph
}

/// A cycle in `graph`, if there is one, as the modules in order.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first search with the path on a stack: an edge back into the path is a cycle.
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut c = path[at..].to_vec();
            c.push(node.to_string());
            return Some(c);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

#[test]
fn the_cycle_check_finds_a_cycle() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(n, e)| (n.to_string(), e.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(
        cycle(&graph),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
}

#[test]
fn no_crate_has_an_import_cycle_between_its_modules() {
    for root in layered() {
        let graph = module_graph(&root);
        assert!(
            graph.len() > 1,
            "{}: its modules were not found",
            root.display()
        );
        if let Some(c) = cycle(&graph) {
            panic!(
                "{}: the modules import each other in a cycle: {}",
                root.display(),
                c.join(" -> ")
            );
        }
    }
}

#[test]
fn the_engine_does_no_io_and_reads_no_clock() {
    let forbidden = [
        "std::fs",
        "std::net",
        "std::env",
        "std::process",
        "std::time",
        "std::thread",
        "stdin()",
        "stdout()",
        "stderr()",
        "println!",
        "eprintln!",
        "print!",
        "File::",
    ];
    let mut found = Vec::new();
    for file in sources(&src("engine")) {
        let text = code(&file);
        // The unit tests may do as they like; the engine's code stops where they begin.
        let text = text.split("#[cfg(test)]").next().unwrap_or_default();
        for f in forbidden {
            if text.contains(f) {
                found.push(format!("{}: {f}", file.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the engine does I/O or reads a clock:\n{}",
        found.join("\n")
    );
}

#[test]
fn no_sql_outside_the_store() {
    let store = src("judge").join("store");
    let sql = [
        "rusqlite",
        "execute(",
        "query_row(",
        "prepare(",
        "SELECT ",
        "INSERT ",
        "UPDATE ",
        "DELETE FROM",
    ];
    let mut found = Vec::new();
    for root in CRATES.iter().map(|k| src(k)).chain([binary()]) {
        for file in sources(&root) {
            if file.starts_with(&store) {
                continue;
            }
            let text = code(&file);
            for s in sql {
                if text.contains(s) {
                    found.push(format!("{}: {s}", file.display()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "SQL outside crates/judge/src/store:\n{}",
        found.join("\n")
    );
}
