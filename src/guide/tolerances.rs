//! # Which tolerance, which options
//!
//! **`rtol`, `atol` bound each step's local error, not the answer's.** The solver accepts a
//! step when its estimated local error, weighted by `atol + rtol |y|` per component, is below
//! one (the weighted RMS norm; `HybridOptions::new(rtol, atol)`, or `Solver::tolerances`). The
//! error of the answer — the *global* error — is those local errors carried to the end and
//! summed: on a stable problem a small multiple of `rtol`, more where the dynamics amplify
//! errors, less where they damp them. The reproduce table (the README's; `cargo run --release
//! -p hysens-examples --example reproduce -- --markdown`) shows it on the papers' cases: Serban & Recuero's
//! Ex. 5.1 at `rtol` 1e-8 gets `x(5)` to 1.8e-8 and `G` to 1.4e-9 relative, the switch times to
//! 2e-10 … 1.3e-8; the EM steel oscillator's reversal times at 1e-8 to 5e-11 … 2.3e-8. Ask for
//! one or two digits more than you need, and check by halving `rtol`: the change is the error.
//!
//! **Events are located to round-off on the discrete solution**, whatever the tolerance: a
//! switch time is then as accurate as the state that crosses the guard. Models with guards are
//! solved at `rtol ≤ 1e-3` (looser is refused: the solution's own error could hide crossings).
//!
//! **Sensitivities are exact derivatives of the discrete solution.** With the default options the
//! steps are chosen by the states' error alone, and the forward sensitivities (and the adjoint,
//! its transpose: the two agree to round-off when both solves take the same steps, same samples
//! and options) are the exact derivatives of what the integrator computes. Their distance to the
//! exact problem's derivatives is then not controlled: on Ex. 5.1 at rtol 1e-8, `dx(5)/dp` is off
//! by 2.9e-5 relative while `x(5)` is off by 1.8e-8. Two options control it:
//!
//! - `options.integrator.sensitivity_error_test = true` puts the sensitivities in the step's error
//!   test (CVODES' `errconS`): the steps then resolve them too, at the cost of more steps;
//! - a tighter `rtol`: the discrete derivatives converge to the exact ones with the method's order.
//!
//! Measured on Ex. 5.1 (`dx(5)/dp`, relative error, and steps; `atol = rtol/100`):
//!
//! | rtol | default | with `sensitivity_error_test` |
//! |---|---|---|
//! | 1e-6 | 8.6e-3 (36 steps) | 1.5e-5 (51 steps) |
//! | 1e-8 | 2.9e-5 (78 steps) | 1.9e-7 (131 steps) |
//! | 1e-10 | 6.9e-7 (223 steps) | 7.3e-10 (394 steps) |
//!
//! ```
//! use hysens::prelude::*;
//! # #[hybrid_model]
//! # pub mod ex51 {
//! #     #[states]
//! #     pub struct X { pub x: f64 }
//! #     #[params]
//! #     pub struct P { pub p: f64 }
//! #     fn h(x: &X, p: &P) -> f64 { x.x.powi(3) - 5.0 * x.x.powi(2) + 7.0 * x.x - p.p }
//! #     #[mode(initial_if(to_b, negative))]
//! #     fn a(x: &X) -> X { X { x: 4.0 - x.x } }
//! #     #[mode(initial_if(to_a, positive))]
//! #     fn b(x: &X) -> X { X { x: 10.0 - 2.0 * x.x } }
//! #     #[guard(a -> b, rising)]
//! #     fn to_b(x: &X, p: &P) -> f64 { h(x, p) }
//! #     #[guard(b -> a, falling)]
//! #     fn to_a(x: &X, p: &P) -> f64 { h(x, p) }
//! # }
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // Serban & Recuero 2019, Ex. 5.1; dx(5)/dp from the closed form (mpmath, 40 digits).
//! let exact = -0.0015741079476662486;
//! let (x0, p) = (ex51::X { x: 0.0 }, ex51::P { p: 2.9 });
//! let error = |options: HybridOptions<1, 0>| -> Result<f64, Box<dyn std::error::Error>> {
//!     let solution = ex51::Model
//!         .solver()
//!         .options(options)
//!         .sensitivities_to(Params::All, InitialStates::None)
//!         .solve(0.0, 5.0, &x0, &p)?;
//!     Ok((solution.sensitivity("x", "p")? - exact).abs() / exact.abs())
//! };
//! let default = error(HybridOptions::new(1e-8, 1e-10))?;
//! let mut resolved = HybridOptions::new(1e-8, 1e-10);
//! resolved.integrator.sensitivity_error_test = true;
//! let resolved = error(resolved)?;
//! println!("dx(5)/dp relative error: {default:.1e} by default, {resolved:.1e} with the test");
//! assert!(resolved < default);
//! # Ok(())
//! # }
//! ```
//!
//! **The integral cost is in the error test by default** (CVODES' `errconQ`), with the states'
//! tolerances: the step's error is the larger of the states' and the quadrature's, so `G` and
//! `dG/dp` are resolved like the states. Without it a thermostat's `G` was off by 43·rtol and
//! `dG/dp` by 3.7e-4 at the default tolerances (`tests/cost_error_test.rs`). It costs steps
//! where `L` is harder to integrate than the states; `Solver::cost_error_test(rtol, atol)` gives
//! the cost its own tolerances, `Solver::cost_error_test_off()` leaves it out.
//!
//! **Dense output interpolates the steps** (`Solver::dense_output`): within about 20 times
//! `rtol ‖v‖ + atol` of a solve sampled at the same times for states (`‖v‖` the component's
//! largest magnitude), and within the sensitivities' own (uncontrolled, see above) error for
//! sensitivities; samples (`Solver::samples`) land on their times instead, at the cost of the
//! steps that takes.
//!
//! **Defaults:** `rtol = 1e-6`, `atol = 1e-8`, Kennedy & Carpenter's ESDIRK4(3)6L\[2\]SA, the
//! integral cost in the error test, the sensitivities not. For optimization (gradients inside
//! an optimizer) 1e-8 … 1e-10 keeps the gradient's error below an optimizer's tolerance; for
//! plots 1e-4 … 1e-6 is plenty.
