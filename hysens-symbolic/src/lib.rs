//! # hysens-symbolic
//!
//! The symbolic engine behind hysens' compile-time kernels: it turns Rust expressions into a
//! hash-consed expression DAG, differentiates them, keeps the derivatives small, and emits
//! straight-line Rust that computes each shared subexpression once.
//!
//! ```
//! use hysens_symbolic::{emit, parse_str, Graph, Scope};
//!
//! let mut g = Graph::new();
//! let scope = Scope::with_variables(&mut g, &["x.h", "x.v", "p.g"]);
//! // Energy of a falling body, per unit mass.
//! let e = parse_str(&mut g, &scope, "p.g * x.h + 0.5 * x.v.powi(2)").unwrap();
//! let v = g.var_id("x.v").unwrap();
//! let de_dv = g.diff(e, v);
//! assert_eq!(g.eval(de_dv, &[0.0, 3.0, 9.81]), 3.0);
//!
//! let code = emit(&g, &[(quote::quote!(out), de_dv)], |var| {
//!     let name = quote::format_ident!("{}", g.var_name(var).replace('.', "_"));
//!     quote::quote!(#name)
//! });
//! assert_eq!(code.to_string(), "out = x_v ;");
//! ```
//!
//! The pieces, one per module:
//!
//! - [`graph`]: nodes, ids and the hash-consing store ([`Graph`]);
//! - [`build`]: the simplifying constructors, the only way nodes are made;
//! - [`function`]: the supported elementary functions;
//! - [`parse`] and [`scope`]: from `syn::Expr` (or a string) to nodes, with errors at spans
//!   ([`error`]);
//! - [`diff`]: differentiation, linear in the size of the expression;
//! - [`jacobian`]: gradients, Jacobians, sparsity, `J·v` and `vᵀ·J`;
//! - [`eval`]: numeric evaluation, for tests;
//! - [`emit`](mod@emit): common-subexpression elimination and Rust emission.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod build;
pub mod diff;
pub mod emit;
pub mod error;
pub mod eval;
pub mod function;
pub mod graph;
pub mod jacobian;
pub mod parse;
pub mod scope;

pub use diff::Derivative;
pub use emit::{emit, emit_expr, emit_values, Emission};
pub use error::{Error, ErrorKind};
pub use function::{Func1, Func2};
pub use graph::{ExprId, Graph, Node, VarId};
pub use jacobian::{Jacobian, Sparsity};
pub use parse::{parse_expr, parse_outputs, parse_str};
pub use scope::{Function, Param, ParamKind, Scope};
