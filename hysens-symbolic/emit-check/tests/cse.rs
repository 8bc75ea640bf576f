//! Common-subexpression elimination happened, and only where it pays.
//!
//! Every node of the DAG must be computed exactly once: a node used more than once gets a `let`
//! temporary (used at least twice, or it should have been inlined), and a node used once is
//! written inline once. We check this on the tokens of every emitted kernel by counting the
//! operations they contain against the nodes the graph says they compute.

use std::collections::HashMap;

use hysens_symbolic::{ExprId, Node};
use hysens_symbolic_emit_check::generate::{kernels, Kernel};
use hysens_symbolic_emit_check::inspect::{
    flatten, ident_count, method_calls, method_name, punct_count, reachable_nodes, temporaries,
};

fn roots(kernel: &Kernel) -> Vec<ExprId> {
    kernel.outputs.iter().map(|&(_, e)| e).collect()
}

#[test]
fn every_temporary_is_used_at_least_twice() {
    for kernel in kernels() {
        let code = flatten(&kernel.body);
        for t in temporaries(&code) {
            // One occurrence is the `let` itself.
            let uses = ident_count(&code, &t) - 1;
            assert!(
                uses >= 2,
                "{}: temporary `{t}` is used {uses} time(s)",
                kernel.name
            );
        }
    }
}

#[test]
fn shared_subexpressions_get_temporaries() {
    let all = kernels();
    let kernel = all
        .iter()
        .find(|k| k.name == "shared_subexpressions")
        .expect("the case exists");
    let code = flatten(&kernel.body);
    let temps = temporaries(&code);
    assert!(!temps.is_empty(), "no temporary in {}", kernel.body);
    // The product written three times in the source is one node, computed once.
    assert_eq!(
        punct_count(&code, '*'),
        count(kernel, |n| matches!(n, Node::Mul(..)))
    );
}

#[test]
fn every_call_is_emitted_once_per_node() {
    for kernel in kernels() {
        let mut expected: HashMap<&str, usize> = HashMap::new();
        for node in reachable_nodes(&kernel.graph, &roots(&kernel)) {
            if let Some(name) = method_name(node) {
                *expected.entry(name).or_default() += 1;
            }
        }
        let mut emitted: HashMap<&str, usize> = HashMap::new();
        let code = flatten(&kernel.body);
        let calls = method_calls(&code);
        for name in &calls {
            *emitted.entry(name.as_str()).or_default() += 1;
        }
        assert_eq!(emitted, expected, "{}: {}", kernel.name, kernel.body);
    }
}

#[test]
fn every_arithmetic_operation_is_emitted_once_per_node() {
    for kernel in kernels() {
        let code = flatten(&kernel.body);
        // `-` is left out: it is also the sign of negative literals and exponents.
        for (op, is_op) in [
            ('+', (|n| matches!(n, Node::Add(..))) as fn(&Node) -> bool),
            ('*', |n| matches!(n, Node::Mul(..))),
            ('/', |n| matches!(n, Node::Div(..))),
        ] {
            assert_eq!(
                punct_count(&code, op),
                count(&kernel, is_op),
                "{}: `{op}` in {}",
                kernel.name,
                kernel.body
            );
        }
    }
}

fn count(kernel: &Kernel, pred: impl Fn(&Node) -> bool) -> usize {
    reachable_nodes(&kernel.graph, &roots(kernel))
        .iter()
        .filter(|n| pred(n))
        .count()
}
