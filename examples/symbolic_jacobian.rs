//! The symbolic engine at work on Robertson's stiff kinetics: parse the right-hand side from
//! ordinary Rust, differentiate it exactly, look at the sparsity, and print the straight-line
//! kernel that `#[hybrid_model]` will compile into a model.
//!
//! Run with `cargo run -p hysens-examples --example symbolic_jacobian`.

use hysens::symbolic::{emit, parse_str, Graph, Scope};
use proc_macro2::Literal;
use quote::{format_ident, quote};

fn main() {
    let mut g = Graph::new();
    let names = ["y.y1", "y.y2", "y.y3", "p.k1", "p.k2", "p.k3"];
    let scope = Scope::with_variables(&mut g, &names);
    let rhs_source = [
        "-p.k1 * y.y1 + p.k3 * y.y2 * y.y3",
        "p.k1 * y.y1 - p.k3 * y.y2 * y.y3 - p.k2 * y.y2.powi(2)",
        "p.k2 * y.y2.powi(2)",
    ];
    let rhs: Vec<_> = rhs_source
        .iter()
        .map(|src| parse_str(&mut g, &scope, src).expect("the Robertson right-hand side parses"))
        .collect();
    let ids = |prefix: &str| -> Vec<_> {
        names
            .iter()
            .filter(|n| n.starts_with(prefix))
            .map(|n| g.var_id(n).expect("declared above"))
            .collect()
    };
    let (states, params) = (ids("y."), ids("p."));
    let f_y = g.jacobian(&rhs, &states);
    let f_p = g.jacobian(&rhs, &params);

    println!("Robertson kinetics, y' = f(y, p):");
    for src in rhs_source {
        println!("  {src}");
    }

    // Values at the initial point y = (1, 0, 0), p = (0.04, 3e7, 1e4).
    let point = [1.0, 0.0, 0.0, 0.04, 3e7, 1e4];
    println!("\n∂f/∂y at y = (1, 0, 0), p = (0.04, 3e7, 1e4):");
    for i in 0..3 {
        let row: Vec<String> = (0..3)
            .map(|j| format!("{:>10.4}", g.eval(f_y.entry(i, j), &point)))
            .collect();
        println!("  [{}]", row.join(" "));
    }

    let pattern = f_p.sparsity(&g);
    println!(
        "\n∂f/∂p has {} structural nonzeros of {}: {:?}",
        pattern.nonzeros.len(),
        pattern.rows * pattern.cols,
        pattern.nonzeros
    );

    // The kernel: every structural nonzero of ∂f/∂y, shared subexpressions computed once.
    let outputs: Vec<_> = f_y
        .nonzeros(&g)
        .into_iter()
        .map(|(i, j, e)| {
            let (i, j) = (Literal::usize_unsuffixed(i), Literal::usize_unsuffixed(j));
            (quote!(jac[#i][#j]), e)
        })
        .collect();
    let code = emit(&g, &outputs, |v| {
        let name = g.var_name(v);
        let (base, field) = name.split_once('.').expect("names are struct fields");
        let (base, field) = (format_ident!("{base}"), format_ident!("{field}"));
        quote!(#base.#field)
    });
    println!("\nEmitted kernel for ∂f/∂y ({} nonzeros):", outputs.len());
    for statement in code.to_string().split(" ;") {
        // TokenStream's text puts spaces around every token; tighten the obvious ones.
        let statement = statement.trim().replace(" . ", ".").replace(" [", "[");
        if !statement.is_empty() {
            println!("  {statement};");
        }
    }
}
