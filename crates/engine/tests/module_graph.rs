//! The engine's top-level modules form a DAG in the data's path. Each module may name
//! (`crate::module`) only the modules before it in [`ORDER`], never one after it, so no two of
//! them import each other, however indirectly.
//!
//! The check reads the crate's sources: every `crate::NAME` outside a comment is a use of the
//! top-level module `NAME`. Inside a module, paths to the rest of the crate are spelled from
//! `crate::` (a `super::super::` path would slip past, and is refused too).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The data's path: a board, the leaf of what happened (outcomes, reasons, events), an order, a
/// position, validation, the Winter, adjudication, the turn, the acknowledgement's warnings.
const ORDER: [&str; 9] = [
    "variant",
    "outcome",
    "order",
    "position",
    "validate",
    "winter",
    "adjudicate",
    "turn",
    "advice",
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .expect("the engine's sources are readable")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a source file belongs to (`winter/adjust.rs` is `winter`), or None for
/// the crate root.
fn top_module(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).expect("a file under src");
    let first = rel.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (name != "lib").then(|| name.to_string())
}

/// The top-level modules a line of code names through `crate::`.
fn named_modules(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (i, _) in line.match_indices("crate::") {
        let rest = &line[i + "crate::".len()..];
        let ident: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !ident.is_empty() {
            found.push(ident);
        } else if let Some(group) = rest.strip_prefix('{') {
            // `use crate::{a::X, b::Y}` on one line: each part's first name.
            let inner = group.split('}').next().unwrap_or(group);
            for part in inner.split(',') {
                let name = part.trim().split("::").next().unwrap_or("").trim();
                if !name.is_empty() {
                    found.push(name.to_string());
                }
            }
        }
    }
    found
}

/// Every use of a later module by an earlier one, as `file:line: a uses b`.
fn backward_uses() -> (Vec<String>, BTreeMap<String, usize>) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let rank = |m: &str| ORDER.iter().position(|&o| o == m);
    let mut wrong = Vec::new();
    let mut modules = BTreeMap::new();
    for file in &files {
        let Some(module) = top_module(&src, file) else {
            continue;
        };
        *modules.entry(module.clone()).or_insert(0) += 1;
        let text = fs::read_to_string(file).expect("a source file is text");
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            let at = format!("{}:{}", file.display(), n + 1);
            if code.contains("super::super::") {
                wrong.push(format!("{at}: a `super::super::` path (write `crate::`)"));
            }
            for used in named_modules(code) {
                if used == module {
                    continue;
                }
                match (rank(&module), rank(&used)) {
                    (Some(a), Some(b)) if b < a => {}
                    _ => wrong.push(format!("{at}: {module} uses {used}")),
                }
            }
        }
    }
    (wrong, modules)
}

/// No module uses one after it in the data's path, so the module graph has no cycle.
#[test]
fn the_engine_modules_form_a_dag_in_the_data_path() {
    let (wrong, modules) = backward_uses();
    assert!(
        wrong.is_empty(),
        "uses against the order {ORDER:?}:\n{}",
        wrong.join("\n")
    );
    // Every top-level module has its place in the order, and every place is a module: a new
    // module must be put somewhere in the path, not left unchecked.
    let listed: Vec<&str> = modules.keys().map(String::as_str).collect();
    let mut expected = ORDER.to_vec();
    expected.sort_unstable();
    assert_eq!(listed, expected);
}

/// The reader of `crate::` paths sees both spellings of a use, so the check above can fail.
#[test]
fn crate_paths_are_read_in_both_spellings() {
    assert_eq!(
        named_modules("use crate::winter::{GmCommand, Item};"),
        ["winter"]
    );
    assert_eq!(
        named_modules("use crate::{order::Order, position::Position};"),
        ["order", "position"]
    );
    assert_eq!(
        named_modules("let x = crate::winter::control::detect_crowding(v, p);"),
        ["winter"]
    );
}
