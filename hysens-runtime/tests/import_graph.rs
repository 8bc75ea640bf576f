//! The runtime's modules import one way: the API (`solver/`) over the driver (`hybrid/`), the
//! driver over the concepts (`events/`, `fsa/`, `adjoint/`, `step/`), the concepts over the
//! foundations (`newton`, `linalg/`, `tableau/`, `model/`, the errors, options, statistics and
//! the description of a run). Read from the
//! `use crate::…` and `crate::…::` paths of the source files (doc comments and tests left out),
//! the graph of top-level modules has no cycle, and no module imports one of a higher layer.
//!
//! Run: `cargo test -p hysens-runtime --test import_graph -- --nocapture` (prints the graph).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The layer of each top-level module: higher layers may import lower ones, never the reverse;
/// within a layer, no cycles.
fn layer(module: &str) -> Option<u8> {
    Some(match module {
        "lib" => 4,
        "solver" | "stack" => 3,
        "hybrid" => 2,
        "events" | "fsa" | "adjoint" | "step" => 1,
        "newton" | "linalg" | "tableau" | "model" | "norm" | "error" | "options" | "stats"
        | "run" | "dense" => 0,
        _ => return None,
    })
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("the source directory") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a source file belongs to.
fn module_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).expect("under src");
    let first = relative.components().next().expect("a component");
    let name = first.as_os_str().to_string_lossy();
    name.trim_end_matches(".rs").to_string()
}

/// The top-level modules `text` names with `crate::` (outside comments and test modules).
fn imports(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for line in text.lines() {
        let code = line.trim_start();
        if code.starts_with("#[cfg(test)]") {
            break;
        }
        if code.starts_with("//") {
            continue;
        }
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            found.insert(name);
        }
        // `use crate::{a, b::c}` groups.
        if let Some(group) = code.strip_prefix("use crate::{") {
            for item in group.split(',') {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    found.insert(name);
                }
            }
        }
    }
    found
}

#[test]
fn the_runtime_imports_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let from = module_of(&src, file);
        let text = fs::read_to_string(file).expect("a source file");
        let to = graph.entry(from.clone()).or_default();
        for name in imports(&text) {
            if name != from && layer(&name).is_some() {
                to.insert(name);
            }
        }
    }
    let mut wrong = Vec::new();
    for (from, tos) in &graph {
        println!(
            "{from} -> {}",
            tos.iter().cloned().collect::<Vec<_>>().join(", ")
        );
        let Some(high) = layer(from) else {
            wrong.push(format!("module {from} has no layer"));
            continue;
        };
        for to in tos {
            if layer(to).is_some_and(|low| low > high) {
                wrong.push(format!(
                    "{from} (layer {high}) imports {to} (a higher layer)"
                ));
            }
        }
    }
    // Cycles: a depth-first search over the graph.
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
        cycles: &mut Vec<String>,
    ) {
        if let Some(at) = path.iter().position(|n| n == node) {
            cycles.push(format!("{} -> {node}", path[at..].join(" -> ")));
            return;
        }
        if !done.insert(node.to_string()) {
            return;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            visit(next, graph, path, done, cycles);
        }
        path.pop();
    }
    let mut cycles = Vec::new();
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        visit(node, &graph, &mut Vec::new(), &mut done, &mut cycles);
    }
    wrong.extend(cycles.into_iter().map(|c| format!("cycle: {c}")));
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
