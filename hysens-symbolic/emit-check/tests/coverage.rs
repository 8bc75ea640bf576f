//! The cases keep the promises `src/cases.rs` makes: every construct the emitter must get right
//! appears in some emitted kernel.
//!
//! Without this, a case edited into something simpler (or folded away by a smarter simplifier)
//! would silently stop exercising, say, `acosh` or a negative `powi` exponent.

use hysens_symbolic::{ExprId, Func1, Func2, Node};
use hysens_symbolic_emit_check::cases::scalar_cases;
use hysens_symbolic_emit_check::generate::{kernels, Kernel};
use hysens_symbolic_emit_check::inspect::{depth, flatten, method_calls, reachable_nodes, Token};

fn roots(kernel: &Kernel) -> Vec<ExprId> {
    kernel.outputs.iter().map(|&(_, e)| e).collect()
}

fn all_nodes() -> Vec<(Kernel, Vec<Node>)> {
    kernels()
        .into_iter()
        .map(|k| {
            let nodes = reachable_nodes(&k.graph, &roots(&k));
            (k, nodes)
        })
        .collect()
}

#[test]
fn every_supported_function_is_emitted() {
    let called: Vec<String> = kernels()
        .iter()
        .flat_map(|k| method_calls(&flatten(&k.body)))
        .collect();
    let names = Func1::USER_FUNCTIONS
        .map(Func1::name)
        .into_iter()
        .chain(Func2::USER_FUNCTIONS.map(Func2::name))
        .chain(["powi", "powf", "signum"]);
    for name in names {
        assert!(called.iter().any(|c| c == name), "no kernel calls `{name}`");
    }
}

#[test]
fn negative_powi_exponents_and_negative_constants_are_emitted() {
    let nodes: Vec<Node> = all_nodes().into_iter().flat_map(|(_, n)| n).collect();
    assert!(nodes
        .iter()
        .any(|n| matches!(n, Node::Powi(_, k) if *k < 0)));
    assert!(nodes
        .iter()
        .any(|n| matches!(n, Node::Const(bits) if f64::from_bits(*bits) < 0.0)));
}

#[test]
fn folded_constants_are_written_by_name() {
    // `2.0 * PI` and `PI / 2.0` fold to TAU and FRAC_PI_2; the sources never name them.
    for case in scalar_cases() {
        assert!(!case.source.contains("TAU") && !case.source.contains("FRAC_PI_2"));
    }
    let code: Vec<Token> = kernels().iter().flat_map(|k| flatten(&k.body)).collect();
    for name in ["TAU", "FRAC_PI_2", "LN_2", "LN_10", "SQRT_2"] {
        let named = code
            .windows(2)
            .any(|w| w[0] == Token::Punct(':') && w[1] == Token::Ident(name.to_owned()));
        assert!(named, "no kernel writes `core::f64::consts::{name}`");
    }
}

#[test]
fn an_unfoldable_constant_receiver_is_emitted() {
    let found = all_nodes().iter().any(|(k, nodes)| {
        nodes.iter().any(|&n| match n {
            Node::Powi(a, _) | Node::Powf(a, _) | Node::Call1(_, a) | Node::Call2(_, a, _) => {
                k.graph.as_const(a).is_some()
            }
            _ => false,
        })
    });
    assert!(found);
}

#[test]
fn shared_nodes_let_blocks_and_deep_nesting_are_emitted() {
    let all = kernels();
    assert!(all
        .iter()
        .any(|k| flatten(&k.body).contains(&Token::Ident("let".into()))));
    assert!(scalar_cases().iter().any(|c| c.source.contains("let ")));
    let deepest = all
        .iter()
        .flat_map(|k| roots(k).into_iter().map(|r| depth(&k.graph, r)))
        .max()
        .expect("there are kernels");
    assert!(deepest >= 48, "the deepest expression has depth {deepest}");
}
