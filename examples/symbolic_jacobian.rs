//! The symbolic engine at work on Robertson's stiff kinetics: parse the right-hand side from
//! ordinary Rust, differentiate it exactly, look at the sparsity, and print the straight-line
//! kernel that `#[hybrid_model]` will compile into a model. Last, it checks the symbolic
//! Jacobians against those derived by hand, at a point where every structural nonzero is
//! nonzero (`examples/common/check.rs`: a failed row makes the example exit nonzero).
//!
//! Run with `cargo run -p hysens-examples --example symbolic_jacobian`.

use hysens::symbolic::{emit, parse_str, Graph, Scope};
use proc_macro2::Literal;
use quote::{format_ident, quote};

#[path = "common/check.rs"]
mod check;

/// `∂f/∂y` and `∂f/∂p` of Robertson's kinetics, derived by hand, at `y`, `p = (k1, k2, k3)`:
/// `f1 = −k1 y1 + k3 y2 y3`, `f2 = k1 y1 − k3 y2 y3 − k2 y2²`, `f3 = k2 y2²`.
fn by_hand(y: [f64; 3], p: [f64; 3]) -> ([[f64; 3]; 3], [[f64; 3]; 3]) {
    let ([y1, y2, y3], [k1, k2, k3]) = (y, p);
    let f_y = [
        [-k1, k3 * y3, k3 * y2],
        [k1, -k3 * y3 - 2.0 * k2 * y2, -k3 * y2],
        [0.0, 2.0 * k2 * y2, 0.0],
    ];
    let f_p = [
        [-y1, 0.0, y2 * y3],
        [y1, -y2 * y2, -y2 * y3],
        [0.0, y2 * y2, 0.0],
    ];
    (f_y, f_p)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
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

    check::model(&[
        "y1' = -k1 y1 + k3 y2 y3, y2' = k1 y1 - k3 y2 y3 - k2 y2², y3' = k2 y2² (Robertson's \
         kinetics, one mode, no events);",
        "what is computed: ∂f/∂y and ∂f/∂p symbolically, their sparsity, and the Rust kernel of \
         ∂f/∂y",
    ]);
    println!("\nparsed from these Rust expressions, y' = f(y, p):");
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

    // The symbolic Jacobians against those derived by hand, at a point where no structural
    // nonzero vanishes (y2 and y3 away from 0): every entry that either makes nonzero.
    let (y, p) = ([0.7, 2e-5, 0.3], [0.04, 3e7, 1e4]);
    let at = [y[0], y[1], y[2], p[0], p[1], p[2]];
    let (f_y_hand, f_p_hand) = by_hand(y, p);
    let by_hand_at = "the Jacobians derived by hand, at y = (0.7, 2e-5, 0.3), p = (0.04, 3e7, 1e4)";
    let mut comparison = check::Comparison::new(by_hand_at).bound(
        1e-14,
        "the same products and sums, evaluated in another order: round-off only",
    );
    for (jacobian, hand, wrt) in [(&f_y, f_y_hand, "y"), (&f_p, f_p_hand, "k")] {
        for (i, row) in hand.iter().enumerate() {
            for (j, &reference) in row.iter().enumerate() {
                let value = g.eval(jacobian.entry(i, j), &at);
                if value != 0.0 || reference != 0.0 {
                    let quantity = format!("∂f{}/∂{wrt}{}", i + 1, j + 1);
                    comparison = comparison.row(quantity, value, reference);
                }
            }
        }
    }
    comparison.print().into_result()?;
    Ok(())
}
