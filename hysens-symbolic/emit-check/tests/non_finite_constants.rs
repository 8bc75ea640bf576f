//! Non-finite constants must be emitted in a form clippy accepts.
//!
//! The parser turns an overflowing literal such as `1e400` into the constant `+∞` (the literal is
//! consumed by the macro, so rustc's `overflowing_literals` never sees it), and the emitter
//! writes it as `::core::f64::INFINITY`, which `clippy::legacy_numeric_constants` (warn by
//! default) rejects: a model containing it does not build under `-D warnings`. The same holds
//! for `::core::f64::NAN`. The associated constants `f64::INFINITY`, `f64::NEG_INFINITY` and
//! `f64::NAN` are the clippy-clean spelling (alternatively, the parser could reject the literal).
//!
//! Constant-only expressions with a non-finite value are documented (`build.rs`) to stay
//! symbolic "so [they fail] at run time exactly as the user's Rust would"; `0.0 / 0.0` instead
//! simplifies to `1.0` (the `a / a = 1` rule fires on the two identical constant nodes after
//! folding declined). Once it is kept NaN it must be emitted as `f64::NAN`: a literal
//! `0.0 / 0.0` is rejected by `clippy::zero_divided_by_zero` and `clippy::eq_op`.
//!
//! These are checked on tokens and values rather than compiled into `kernels.rs`, so that the
//! rest of the crate's clippy run stays meaningful while the engine is fixed.

use hysens_symbolic::{emit_expr, parse_str, Graph, Scope};
use quote::quote;

/// The emitted code of `source` over the variable `x0`, as a string.
fn emitted(source: &str) -> Option<String> {
    let mut g = Graph::new();
    let scope = Scope::with_variables(&mut g, &["x0"]);
    let e = parse_str(&mut g, &scope, source).ok()?;
    Some(emit_expr(&g, e, |_| quote!(x[0])).to_string())
}

/// Whether `code` names a legacy module constant such as `core::f64::INFINITY`.
fn uses_legacy_constant(code: &str) -> bool {
    ["INFINITY", "NEG_INFINITY", "NAN"].iter().any(|name| {
        ["core :: f64 :: ", "std :: f64 :: "]
            .iter()
            .any(|module| code.contains(&format!("{module}{name}")))
    })
}

#[test]
fn an_overflowing_literal_is_rejected_or_emitted_without_a_legacy_constant() {
    for source in ["x0 * 1e400", "x0 - 1e400", "(1e400_f64).atan() * x0"] {
        if let Some(code) = emitted(source) {
            assert!(
                !uses_legacy_constant(&code),
                "`{source}` emits `{code}`, which clippy::legacy_numeric_constants rejects"
            );
        }
    }
}

#[test]
fn a_non_finite_graph_constant_is_emitted_without_a_legacy_constant() {
    for value in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
        let mut g = Graph::new();
        let x = g.var("x0");
        let c = g.constant(value);
        let e = g.mul(c, x);
        let code = emit_expr(&g, e, |_| quote!(x[0])).to_string();
        assert!(!uses_legacy_constant(&code), "{value} emits `{code}`");
    }
}

#[test]
fn zero_over_zero_is_nan_as_in_rust() {
    let mut g = Graph::new();
    let scope = Scope::with_variables(&mut g, &["x0"]);
    let e = parse_str(&mut g, &scope, "0.0 / 0.0").expect("parses");
    let value = g.eval(e, &[1.0]);
    // Rust evaluates `0.0_f64 / 0.0` to NaN; the engine must not change the user's value.
    assert!(value.is_nan(), "`0.0 / 0.0` evaluates to {value}");
}
