//! The plain-Rust twin of what a `#[switching_surface]` generates, for `tests/model_sliding.rs`:
//! written from Pytlak & Suski (*Numerical procedure for optimal control of hybrid systems
//! with sliding modes, Part I*, §2) and independently of the macro's code
//! (`hysens-macros/src/filippov.rs`, `lower/sliding.rs`).
//!
//! - [`sliding_field`]: the rates `σᵢ = g_t + g_y fⁱ` and the Filippov field
//!   `f_F = (1 − α) f¹ + α f²`, `α = σ₁/(σ₁ − σ₂)` (Eqs. 10–12), from a hand-written gradient
//!   of `g`, over any number type: a test's `Reference` returns it as the sliding mode's `f`
//!   and the rates as the exit guards, and `support::check_model` then checks the generated
//!   sliding mode's residual, Jacobians and adjoint products against num-dual like any mode's.
//! - [`expected_target`] and [`check_event_targets`]: the mode each of the four surface guards
//!   enters, by the paper's sign tests.
//! - [`check_identities`]: `g_y (f_F)_y = −f_Fᵀ g_yy` and `g_y (f_F)_p = −f_Fᵀ g_yp` on the
//!   generated kernels (not in the paper: the derivatives of its Eq. 11, which Eq. 12 makes an
//!   identity; the second reads `g_y (f_F)_p = 0` when `g_y` does not depend on `p`), which
//!   hold because `g_y f_F ≡ 0` for a surface that does not read the time.

use hysens::runtime::{EventTarget, HybridModel, ModeJacobian};

use crate::support::{c, Scalar, TestPoint};

/// `(f_F, [σ₁, σ₂])` from the gradient `g_y`, `g_t` and the two fields (module docs).
pub fn sliding_field<D: Scalar, const N: usize>(
    g_y: [D; N],
    g_t: D,
    f1: [D; N],
    f2: [D; N],
) -> ([D; N], [D; 2]) {
    let rate = |f: &[D; N]| (0..N).fold(g_t, |sum, i| sum + g_y[i] * f[i]);
    let (s1, s2) = (rate(&f1), rate(&f2));
    let alpha = s1 / (s1 - s2);
    let one_minus_alpha = c::<D>(1.0) - alpha;
    let field = core::array::from_fn(|i| one_minus_alpha * f1[i] + alpha * f2[i]);
    (field, [s1, s2])
}

/// The mode entered at the event of the surface guard `kind` (0: reaching the surface from
/// `g < 0`, 1: from `g > 0`, 2: `α` reaches 0, 3: `α` reaches 1) when the rates at the event
/// are `[σ₁, σ₂]`, for a surface between the modes `[negative, positive, sliding]`;
/// `RepulsiveSurface` for a repulsive one.
pub fn expected_target(kind: usize, rates: [f64; 2], modes: [usize; 3]) -> EventTarget {
    let [s1, s2] = rates;
    let [negative, positive, sliding] = modes;
    let exit = |ok: bool, mode| {
        if ok {
            EventTarget::Mode(mode)
        } else {
            EventTarget::RepulsiveSurface
        }
    };
    match kind {
        // From g < 0 (where σ₁ > 0): sliding if f² points back at the surface (8), else
        // across it (7).
        0 => EventTarget::Mode(if s2 < 0.0 { sliding } else { positive }),
        // The mirror case from g > 0 (where σ₂ < 0).
        1 => EventTarget::Mode(if s1 > 0.0 { sliding } else { negative }),
        // Leaving into g < 0 needs f² still pointing at the surface (15).
        2 => exit(s2 < 0.0, negative),
        // Leaving into g > 0 needs f¹ still pointing at the surface (18).
        3 => exit(s1 > 0.0, positive),
        _ => panic!("a surface has four guards"),
    }
}

/// `event_target` of the four guards of a surface (from `first_guard`) against
/// [`expected_target`] at every point, with the rates of the twin; also checks that the other
/// guards enter their static target. Returns how many choices were compared.
pub fn check_event_targets<M, const NY: usize, const NZ: usize, const NP: usize>(
    model: &M,
    first_guard: usize,
    modes: [usize; 3],
    points: &[TestPoint<NY, NZ, NP>],
    rates: impl Fn(&TestPoint<NY, NZ, NP>) -> [f64; 2],
) -> usize
where
    M: HybridModel<NY, NZ, NP>,
{
    let mut compared = 0;
    for point in points {
        let at = point.at();
        let rates = rates(point);
        for (g, info) in M::GUARDS.iter().enumerate() {
            let expected = if (first_guard..first_guard + 4).contains(&g) {
                expected_target(g - first_guard, rates, modes)
            } else {
                EventTarget::Mode(info.to)
            };
            assert_eq!(
                model.event_target(g, &at),
                expected,
                "guard {g} ({}) at {point:?} with rates {rates:?}",
                info.name
            );
            compared += 1;
        }
    }
    compared
}

/// The identities of the module docs on the sliding mode `sliding` of `model` at every point,
/// to `1e-12` of the magnitude of their terms; `g_y`, `g_yy` and `g_yp` are the surface's
/// derivatives, by hand. Returns the largest scaled residual.
pub fn check_identities<M, const NY: usize, const NP: usize>(
    model: &M,
    sliding: usize,
    points: &[TestPoint<NY, 0, NP>],
    g_y: impl Fn(&TestPoint<NY, 0, NP>) -> [f64; NY],
    g_yy: impl Fn(&TestPoint<NY, 0, NP>) -> [[f64; NY]; NY],
    g_yp: impl Fn(&TestPoint<NY, 0, NP>) -> [[f64; NP]; NY],
) -> f64
where
    M: HybridModel<NY, 0, NP>,
{
    let mut worst = 0.0f64;
    for point in points {
        let at = point.at();
        let mut f = [0.0; NY];
        model.residual(sliding, &at, &mut f, &mut []);
        let mut jac = ModeJacobian::zeroed();
        model.jacobian(sliding, &at, &mut jac);
        let mut fp = [[0.0; NP]; NY];
        model.parameter_jacobian(sliding, &at, &mut fp, &mut []);
        let (gy, gyy, gyp) = (g_y(point), g_yy(point), g_yp(point));
        // Column j of g_y D + fᵀ H, for D = (f_F)_y, H = g_yy and D = (f_F)_p, H = g_yp.
        let mut residual = |what: &str,
                            d: &dyn Fn(usize, usize) -> f64,
                            h: &dyn Fn(usize, usize) -> f64,
                            j: usize| {
            let terms: Vec<f64> = (0..NY)
                .flat_map(|i| [gy[i] * d(i, j), f[i] * h(i, j)])
                .collect();
            let sum: f64 = terms.iter().sum();
            let scale: f64 = terms.iter().map(|t| t.abs()).sum::<f64>().max(1.0);
            assert!(
                sum.abs() <= 1e-12 * scale,
                "{what}, column {j}: {sum:e} (terms {terms:?}) at {point:?}"
            );
            worst = worst.max(sum.abs() / scale);
        };
        for j in 0..NY {
            residual(
                "g_y (f_F)_y + f_Fᵀ g_yy",
                &|i, j| jac.f_y()[i][j],
                &|i, j| gyy[i][j],
                j,
            );
        }
        for j in 0..NP {
            residual(
                "g_y (f_F)_p + f_Fᵀ g_yp",
                &|i, j| fp[i][j],
                &|i, j| gyp[i][j],
                j,
            );
        }
    }
    worst
}
