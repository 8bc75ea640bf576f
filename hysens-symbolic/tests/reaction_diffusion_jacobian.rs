//! Sanity test of the `jacobian_100_states` benchmark's model and pipeline
//! (`benches/support/reaction_diffusion.rs`): what the benchmark times must be the right
//! kernel. The 100-state reaction–diffusion line couples each node to its two neighbours only,
//! so the state Jacobian is exactly tridiagonal (`3N - 2 = 298` structural nonzeros) and
//! every right-hand side depends on both parameters (`2N = 200`); the emitted code must assign
//! exactly those entries, once each, and the entries must have the hand-derived values.

use std::collections::BTreeSet;

#[path = "../benches/support/reaction_diffusion.rs"]
mod reaction_diffusion;

use reaction_diffusion::{build_kernel, right_hand_sides, variable_names, N};

/// The `(place, i, j)` of every `place[i][j] = …;` statement of the emitted code.
fn assignments(code: &proc_macro2::TokenStream) -> Vec<(String, usize, usize)> {
    let block: syn::Block =
        syn::parse2(quote::quote!({ #code })).expect("emitted code is a valid block body");
    let index = |e: &syn::Expr| -> usize {
        match e {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => i.base10_parse().expect("an index"),
            other => panic!("non-literal index {}", quote::quote!(#other)),
        }
    };
    let mut out = Vec::new();
    for stmt in &block.stmts {
        if let syn::Stmt::Expr(syn::Expr::Assign(a), Some(_)) = stmt {
            let syn::Expr::Index(row) = &*a.left else {
                panic!("unexpected place {}", quote::quote!(#a))
            };
            let syn::Expr::Index(place) = &*row.expr else {
                panic!("unexpected place {}", quote::quote!(#a))
            };
            let syn::Expr::Path(name) = &*place.expr else {
                panic!("unexpected place {}", quote::quote!(#a))
            };
            let name = name.path.get_ident().expect("a plain name").to_string();
            out.push((name, index(&place.index), index(&row.index)));
        }
    }
    out
}

#[test]
fn emitted_jacobian_is_exactly_tridiagonal() {
    let names = variable_names();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let (model, kernel) = build_kernel(&names, &right_hand_sides());
    let g = &model.graph;

    let tridiagonal: Vec<(usize, usize)> = (0..N)
        .flat_map(|i| (i.saturating_sub(1)..=(i + 1).min(N - 1)).map(move |j| (i, j)))
        .collect();
    assert_eq!(tridiagonal.len(), 3 * N - 2);
    assert_eq!(kernel.jac.sparsity(g).nonzeros, tridiagonal);
    assert_eq!(kernel.jac_p.sparsity(g).nonzeros.len(), 2 * N);

    // The emitted code assigns each structural nonzero exactly once, and nothing else.
    let assigned = assignments(&kernel.code);
    let jac: BTreeSet<(usize, usize)> = assigned
        .iter()
        .filter(|(n, _, _)| n == "jac")
        .map(|&(_, i, j)| (i, j))
        .collect();
    let jac_p = assigned.iter().filter(|(n, _, _)| n == "jac_p").count();
    assert_eq!(
        assigned.len(),
        3 * N - 2 + 2 * N,
        "one assignment per nonzero"
    );
    assert_eq!(jac, tridiagonal.into_iter().collect());
    assert_eq!(jac_p, 2 * N);

    // Values against the hand derivation at a non-uniform state. Each entry sums terms of size
    // up to 2 D / dx² = 2e4 · D; both sides are accurate to a few ulps of the sum of the terms'
    // magnitudes, so 1e-12 of that is a margin of ~1e3.
    let (d, k) = (0.013, 2.7);
    let inv_dx2 = (N as f64).powi(2);
    let u: Vec<f64> = (0..N)
        .map(|i| 0.5 + 0.4 * (0.37 * i as f64).sin())
        .collect();
    let mut vals = vec![f64::NAN; g.var_count()];
    for (v, &ui) in model.states.iter().zip(&u) {
        vals[v.index()] = ui;
    }
    vals[model.params[0].index()] = d;
    vals[model.params[1].index()] = k;
    let jac_vals = g.eval_many(&kernel.jac.entries(), &vals);
    let jac_p_vals = g.eval_many(&kernel.jac_p.entries(), &vals);
    let check = |got: f64, want: f64, scale: f64, what: String| {
        assert!(
            (got - want).abs() <= 1e-12 * scale,
            "{what}: {got:e} vs {want:e}"
        );
    };
    for i in 0..N {
        let ui = u[i];
        let kinetics = k * (2.0 * ui - 3.0 * ui * ui) - (1.0 - ui * ui) / (1.0 + ui * ui).powi(2);
        let scale = 2.0 * d * inv_dx2 + k * (2.0 * ui + 3.0 * ui * ui) + 1.0;
        for j in 0..N {
            let want = match (i, j) {
                _ if i == j => -2.0 * d * inv_dx2 + kinetics,
                _ if i == N - 1 && j == N - 2 => 2.0 * d * inv_dx2,
                _ if i.abs_diff(j) == 1 => d * inv_dx2,
                _ => 0.0,
            };
            check(jac_vals[i * N + j], want, scale, format!("df{i}/du{j}"));
        }
        let left = if i == 0 { 0.0 } else { u[i - 1] };
        let right = match i {
            _ if i == N - 1 => u[N - 2],
            _ => u[i + 1],
        };
        let lap = (left - 2.0 * ui + right) * inv_dx2;
        let lap_scale = (left.abs() + 2.0 * ui.abs() + right.abs()) * inv_dx2;
        check(jac_p_vals[2 * i], lap, lap_scale, format!("df{i}/dD"));
        check(
            jac_p_vals[2 * i + 1],
            ui * ui * (1.0 - ui),
            ui * ui,
            format!("df{i}/dk"),
        );
    }
}
