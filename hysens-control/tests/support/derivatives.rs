//! The NLP's derivatives against central differences of its own evaluation.

use hysens_control::NlpPoint;
use nalgebra::DVector;

/// The largest difference, relative to `1 + max |column|`, between the residual and constraint
/// Jacobians of `evaluate` at `w` and central differences of `evaluate` with step `step(w_i)`
/// in each variable.
pub fn largest_difference(
    evaluate: impl Fn(&DVector<f64>) -> NlpPoint,
    w: &DVector<f64>,
    step: impl Fn(f64) -> f64,
) -> f64 {
    let point = evaluate(w);
    let mut worst: f64 = 0.0;
    for i in 0..w.len() {
        let h = step(w[i]);
        let at = |d: f64| {
            let mut v = w.clone();
            v[i] += d;
            evaluate(&v)
        };
        let (up, down) = (at(h), at(-h));
        let dr = (&up.residual - &down.residual) / (2.0 * h);
        let dc = (&up.constraints - &down.constraints) / (2.0 * h);
        let exact_r = point.residual_jacobian.column(i);
        let exact_c = point.constraint_jacobian.column(i);
        worst = worst.max((dr - exact_r).amax() / (1.0 + exact_r.amax()));
        worst = worst.max((dc - exact_c).amax() / (1.0 + exact_c.amax()));
    }
    worst
}
