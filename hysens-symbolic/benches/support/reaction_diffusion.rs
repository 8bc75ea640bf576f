//! The 100-state model of the `jacobian_100_states` benchmark, shared with its sanity test
//! (`tests/reaction_diffusion_jacobian.rs` includes this file with `#[path]`).
//!
//! A method-of-lines discretization of a 1-D reaction–diffusion line on `N = 100` nodes,
//!
//! ```text
//! u_i' = D (u_{i-1} - 2 u_i + u_{i+1}) / dx² + k u_i² (1 - u_i) - u_i / (1 + u_i²),
//! ```
//!
//! with a Dirichlet end `u_{-1} = 0` on the left and a zero-flux end (ghost node
//! `u_N = u_{N-2}`) on the right, and `dx = 1/N`. The parameters `D` and `k` are variables
//! (`p.d`, `p.k`), so there is a parameter Jacobian too. The right-hand sides are generated as
//! Rust source text, as a model macro would receive them, and the whole compile-time pipeline
//! is run on them: parse (with the builder's simplifications and hash-consing), the full
//! `100 × 100` state Jacobian and the `100 × 2` parameter Jacobian, and emission of every
//! structural nonzero with common-subexpression elimination into `jac[i][j]` / `jac_p[i][j]`.

use hysens_symbolic::{emit, parse_str, ExprId, Graph, Jacobian, Scope, VarId};
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// Number of states.
pub const N: usize = 100;

/// The variable names: the states `u_0 … u_99`, then the parameters `p.d`, `p.k`.
pub fn variable_names() -> Vec<String> {
    (0..N)
        .map(|i| format!("u_{i}"))
        .chain(["p.d".to_owned(), "p.k".to_owned()])
        .collect()
}

/// The `N` right-hand sides as Rust source.
pub fn right_hand_sides() -> Vec<String> {
    let inv_dx2 = (N as f64).powi(2);
    (0..N)
        .map(|i| {
            let laplacian = match i {
                0 => "-2.0 * u_0 + u_1".to_owned(),
                _ if i == N - 1 => format!("2.0 * u_{} - 2.0 * u_{i}", i - 1),
                _ => format!("u_{} - 2.0 * u_{i} + u_{}", i - 1, i + 1),
            };
            format!(
                "p.d * ({laplacian}) * {inv_dx2:?} \
                 + p.k * u_{i}.powi(2) * (1.0 - u_{i}) - u_{i} / (1.0 + u_{i}.powi(2))"
            )
        })
        .collect()
}

/// The model parsed into a fresh graph.
#[derive(Clone)]
pub struct Parsed {
    /// The graph holding the right-hand sides (and, after differentiation, the Jacobians).
    pub graph: Graph,
    /// The right-hand sides, one per state.
    pub rhs: Vec<ExprId>,
    /// The state variables, in order.
    pub states: Vec<VarId>,
    /// The parameters `p.d`, `p.k`.
    pub params: Vec<VarId>,
}

/// Parses the right-hand sides into a fresh graph.
pub fn parse_model(names: &[&str], sources: &[String]) -> Parsed {
    let mut graph = Graph::new();
    let scope = Scope::with_variables(&mut graph, names);
    let rhs = sources
        .iter()
        .map(|s| parse_str(&mut graph, &scope, s).unwrap_or_else(|e| panic!("{s}: {e:?}")))
        .collect();
    let ids: Vec<VarId> = names.iter().map(|n| graph.var_id(n).unwrap()).collect();
    Parsed {
        graph,
        rhs,
        states: ids[..N].to_vec(),
        params: ids[N..].to_vec(),
    }
}

/// The Jacobians and the emitted code that computes their structural nonzeros.
pub struct Kernel {
    /// `∂f/∂u`, `N × N`.
    pub jac: Jacobian,
    /// `∂f/∂p`, `N × 2`.
    pub jac_p: Jacobian,
    /// `let` temporaries, then `jac[i][j] = …;` and `jac_p[i][j] = …;` for every nonzero.
    pub code: TokenStream,
}

/// Differentiates the parsed model (full state and parameter Jacobians) and emits the nonzeros.
pub fn differentiate_and_emit(model: &mut Parsed) -> Kernel {
    let g = &mut model.graph;
    let jac = g.jacobian(&model.rhs, &model.states);
    let jac_p = g.jacobian(&model.rhs, &model.params);
    let index = |k: usize| Literal::usize_unsuffixed(k);
    let mut outputs = Vec::new();
    for (i, j, e) in jac.nonzeros(g) {
        let (i, j) = (index(i), index(j));
        outputs.push((quote!(jac[#i][#j]), e));
    }
    for (i, j, e) in jac_p.nonzeros(g) {
        let (i, j) = (index(i), index(j));
        outputs.push((quote!(jac_p[#i][#j]), e));
    }
    // How emitted code reads each variable: `u[i]` for state i, `p.d` / `p.k` for parameters.
    let mut reads = vec![TokenStream::new(); g.var_count()];
    for (i, v) in model.states.iter().enumerate() {
        let i = index(i);
        reads[v.index()] = quote!(u[#i]);
    }
    reads[model.params[0].index()] = quote!(p.d);
    reads[model.params[1].index()] = quote!(p.k);
    let code = emit(g, &outputs, |v| reads[v.index()].clone());
    Kernel { jac, jac_p, code }
}

/// The whole pipeline from source text: parse, differentiate, emit.
pub fn build_kernel(names: &[&str], sources: &[String]) -> (Parsed, Kernel) {
    let mut model = parse_model(names, sources);
    let kernel = differentiate_and_emit(&mut model);
    (model, kernel)
}
