//! The sliding mode of a switching surface as expressions (see `crate::filippov` for what a
//! surface generates and why).
//!
//! From the lowered switching function `g(t, y, p)` and the lowered fields `f¹`, `f²` of the
//! surface's two modes this builds, in the model's graph,
//!
//! - the rates `σᵢ = g_t + g_y fⁱ` (Pytlak & Suski's `g_x fⁱ`, Eqs. 6–8, with `g_t` for a
//!   surface that moves), `g_y` being `g`'s symbolic gradient;
//! - the Filippov weight `α = σ₁/(σ₁ − σ₂)` (Eq. 12);
//! - the sliding field `f_F = f¹ + α (f² − f¹) = (1 − α) f¹ + α f²` (Eq. 10);
//! - an integrand that differs between the two modes (`#[cost(integral, modes(..))]`) is
//!   combined the same way in the sliding mode, `L_F = (1 − α) L¹ + α L²`, the limit of the
//!   cost of the chattering trajectory whose field is `f_F` ([`sliding_integrand`]).
//!
//! `f_F` is an expression of the modes' bodies, so the kernels differentiate all of it: its
//! Jacobian `(f_F)_y = (1 − α) f¹_y + α f²_y + (f² − f¹) α_y` and parameter Jacobian (with
//! `α_p`) come out of the symbolic engine with the second derivatives `g_yy`, `g_yp` they
//! contain (the quotient rule on Eq. 12, which the paper does not write out; dropping the `α`
//! terms gives a wrong `(f_F)_y` and wrong gradients). Two identities hold for a surface that
//! does not read `t`, and the tests check them on the generated kernels: `g_y (f_F)_p ≡ 0` and
//! `g_y (f_F)_y ≡ −f_Fᵀ g_yy`.

use hysens_symbolic::{ExprId, Graph};

use super::Variables;

/// A switching surface as expressions.
pub struct LoweredSurface {
    /// The switching function `g`.
    pub g: ExprId,
    /// `[σ₁, σ₂]`, the rates of `g` along `f¹` and `f²`.
    pub rates: [ExprId; 2],
    /// The Filippov weight `α = σ₁/(σ₁ − σ₂)` of `f²` (Eq. 12).
    pub alpha: ExprId,
    /// The sliding field `f_F`, one per state.
    pub field: Vec<ExprId>,
}

/// The rates and the sliding field of the surface `g` between the fields `f1` (where `g < 0`)
/// and `f2` (where `g > 0`).
pub fn surface(
    graph: &mut Graph,
    vars: &Variables,
    g: ExprId,
    f1: &[ExprId],
    f2: &[ExprId],
) -> LoweredSurface {
    let g_y = graph.gradient(g, &vars.y);
    let g_t = graph.diff(g, vars.t);
    let mut rate = |f: &[ExprId]| {
        g_y.iter().zip(f).fold(g_t, |sum, (&d, &fi)| {
            let term = graph.mul(d, fi);
            graph.add(sum, term)
        })
    };
    let rates = [rate(f1), rate(f2)];
    let gap = graph.sub(rates[0], rates[1]);
    let alpha = graph.div(rates[0], gap);
    let field = f1
        .iter()
        .zip(f2)
        .map(|(&a, &b)| {
            let difference = graph.sub(b, a);
            let shift = graph.mul(alpha, difference);
            graph.add(a, shift)
        })
        .collect();
    LoweredSurface {
        g,
        rates,
        alpha,
        field,
    }
}

/// The integrand of a sliding mode from its sides' integrands `l1` (where `g < 0`) and `l2`
/// (`None`: zero there): `L_F = L¹ + α (L² − L¹)`, the share `α` of the time the chattering
/// trajectory spends on the side `g > 0`; the side's own integrand when both are the same.
pub fn sliding_integrand(
    graph: &mut Graph,
    alpha: ExprId,
    l1: Option<ExprId>,
    l2: Option<ExprId>,
) -> Option<ExprId> {
    if l1 == l2 {
        return l1;
    }
    let zero = graph.constant(0.0);
    let (l1, l2) = (l1.unwrap_or(zero), l2.unwrap_or(zero));
    let difference = graph.sub(l2, l1);
    let shift = graph.mul(alpha, difference);
    Some(graph.add(l1, shift))
}
