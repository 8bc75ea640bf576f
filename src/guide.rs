//! # The model language
//!
//! A model is an ordinary Rust module annotated with [`#[hybrid_model]`](crate::hybrid_model).
//! Its items keep their Rust meaning (the functions stay callable); the attributes below say
//! what each is to the model, and the macro differentiates every expression at compile time
//! and generates the kernels the runtime calls. Every example on this page is compiled and run
//! as a doctest.
//!
//! - [Variables](#variables): `#[states]`, `#[algebraic]`, `#[params]`, `#[inputs]`
//! - [Modes](#modes): `#[mode]`, `#[mode(initial)]`, DAE modes,
//!   `#[mode(initial_if(guard, positive | negative))]`
//! - [Guards and resets](#guards-and-resets): `#[guard(from -> to, rising | falling |
//!   either)]`, `#[reset(guard)]`, terminal guards `-> stop`
//! - [Memory](#memory): `&Memory`
//! - [Switching surfaces](#switching-surfaces): `#[switching_surface(below, above)]`
//! - [Costs](#costs): `#[cost(integral)]`, `#[cost(integral, modes(..))]`,
//!   `#[cost(terminal)]`, `#[cost(sampled)]`, named costs
//! - [Outputs](#outputs): `#[output]`
//! - [The start](#the-start): `#[initial_state]`, `#[algebraic_guess]`
//! - [Expressions](#expressions): functions, constants, helpers, `t`
//! - [What is generated](#what-is-generated)
//!
//! How accurate the answers are and which tolerances and options to choose: [`tolerances`].
//!
//! ## Variables
//!
//! | attribute | what |
//! |---|---|
//! | `#[states] pub struct X { .. }` | the differential states `y`, one `f64` field each (required) |
//! | `#[algebraic] pub struct Z { .. }` | the algebraic variables `z` of index-1 DAE modes |
//! | `#[params] pub struct P { .. }` | the parameters `p`: sensitivities are taken with respect to them (and the initial states) |
//! | `#[inputs] pub struct U { .. }` | inputs held constant over a solve, appended to `p` (so they get sensitivities too); `Model::parameters(&p, &u)` joins them |
//!
//! A model without `#[params]` and `#[inputs]` takes [`NoParams`](crate::runtime::NoParams)
//! where a solve takes parameters. Derives and other attributes on the structs are kept
//! (`#[derive(Clone, Copy, Debug, PartialEq)]`, docs); the fields must be `pub f64`.
//! A function's parameters are recognised by their type: `&X`, `&Z`, `&P`, `&U`, `&Memory` and
//! `t: f64` (the time), in any order, each at most once.
//!
//! ```
//! use hysens::prelude::*;
//!
//! #[hybrid_model]
//! pub mod decay {
//!     /// The state.
//!     #[states]
//!     #[derive(Clone, Copy, Debug, PartialEq)]
//!     pub struct X { pub y: f64 }
//!     /// The rate.
//!     #[params]
//!     pub struct P { pub k: f64 }
//!     /// `y' = −k y`.
//!     #[mode(initial)]
//!     fn decaying(x: &X, p: &P) -> X { X { y: -p.k * x.y } }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let solution = decay::Model
//!     .solver()
//!     .tolerances(1e-10, 1e-12)
//!     .sensitivities_to(Params::All, InitialStates::None)
//!     .solve(0.0, 1.0, &decay::X { y: 1.0 }, &decay::P { k: 2.0 })?;
//! assert!((solution.x.y - (-2.0f64).exp()).abs() < 1e-9);
//! // ∂y(1)/∂k = −t e^{−kt}
//! assert!((solution.sensitivity("y", "k")? + (-2.0f64).exp()).abs() < 1e-9);
//! # Ok(())
//! # }
//! ```
//!
//! ## Modes
//!
//! A `#[mode]` function gives the right-hand side of one mode: an ODE mode returns `X { .. }`
//! with every state's derivative; a semi-explicit index-1 DAE mode returns
//! `(X { .. }, [g1, g2, ..])`, the derivatives and one algebraic equation `0 = gᵢ` per algebraic
//! variable (`∂g/∂z` must be nonsingular). The first mode of a solve is the one marked
//! `#[mode(initial)]`, or is picked by `#[mode(initial_if(guard, positive | negative))]` rules
//! from a guard's sign at `t0` (tried in declaration order, with the `initial` mode, if any, as
//! the fallback; a guard on its zero at `t0` is decided by the rate the rule's mode gives it).
//!
//! ```
//! use hysens::prelude::*;
//!
//! #[hybrid_model]
//! pub mod tank {
//!     /// The level.
//!     #[states]
//!     pub struct X { pub h: f64 }
//!     /// The outflow, an algebraic variable.
//!     #[algebraic]
//!     pub struct Z { pub q: f64 }
//!     /// Valve coefficient.
//!     #[params]
//!     pub struct P { pub k: f64 }
//!     /// `h' = −q`, `0 = q − k h`.
//!     #[mode(initial)]
//!     fn draining(x: &X, z: &Z, p: &P) -> (X, [f64; 1]) {
//!         (X { h: -z.q }, [z.q - p.k * x.h])
//!     }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let solution = tank::Model
//!     .solver()
//!     .tolerances(1e-10, 1e-12)
//!     .solve(0.0, 1.0, &tank::X { h: 2.0 }, &tank::P { k: 0.5 })?;
//! assert!((solution.x.h - 2.0 * (-0.5f64).exp()).abs() < 1e-8);
//! assert!((solution.z[0] - 0.5 * solution.x.h).abs() < 1e-12); // q = k h, consistent
//! # Ok(())
//! # }
//! ```
//!
//! ## Guards and resets
//!
//! `#[guard(from -> to, direction)]` switches from mode `from` to mode `to` when the function
//! crosses zero in `direction`: `rising`, `falling` or `either`. `#[reset(guard)]` gives the
//! states right after the switch from those right before it (and `z`, `p`, `t`, the memory);
//! without a reset the states are continuous. `to` may be `stop`, a **terminal guard**: the
//! solve ends at the event time `t*`, and the state there, `t*` and their sensitivities are the
//! results (time-to-event problems). Events are located on the discrete solution to round-off,
//! a guard on its zero at a mode's entry is decided by the flow, and what cannot go on (a stuck
//! instant, a grazing contact) is an error, never a silent answer.
//!
//! ```
//! use hysens::prelude::*;
//!
//! #[hybrid_model]
//! pub mod ball {
//!     #[states]
//!     pub struct X { pub h: f64, pub v: f64 }
//!     #[params]
//!     pub struct P { pub g: f64, pub e: f64 }
//!     #[mode(initial)]
//!     fn flight(x: &X, p: &P) -> X { X { h: x.v, v: -p.g } }
//!     /// The floor: `h` falls through 0.
//!     #[guard(flight -> flight, falling)]
//!     fn impact(x: &X) -> f64 { x.h }
//!     /// The velocity reverses and shrinks.
//!     #[reset(impact)]
//!     fn bounce(x: &X, p: &P) -> X { X { h: x.h, v: -p.e * x.v } }
//!     /// The solve ends at the apex after the bounce, where `v` falls through 0.
//!     #[guard(flight -> stop, falling)]
//!     fn apex(x: &X) -> f64 { x.v }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let (g, e) = (9.81, 0.5);
//! let solution = ball::Model
//!     .solver()
//!     .tolerances(1e-10, 1e-12)
//!     .sensitivities_to(Params::All, InitialStates::None)
//!     .solve(0.0, 10.0, &ball::X { h: 1.0, v: -1.0 }, &ball::P { g, e })?;
//! let (impact, apex) = (&solution.events[0], &solution.events[1]);
//! assert_eq!((impact.guard, apex.guard, solution.mode), ("impact", "apex", "stop"));
//! assert_eq!(impact.y_after[1], -e * impact.y_before[1]);
//! // The impact speed is w = √(1 + 2g); up again to h = (e w)²/(2g), at t* = t1 + e w/g.
//! let w = (1.0f64 + 2.0 * g).sqrt();
//! assert!((solution.x.h - (e * w).powi(2) / (2.0 * g)).abs() < 1e-9);
//! assert!((solution.t - ((w - 1.0) / g + e * w / g)).abs() < 1e-9);
//! assert!((solution.event_time_sensitivity(1, "e")? - w / g).abs() < 1e-8); // dt*/de
//! # Ok(())
//! # }
//! ```
//!
//! ## Memory
//!
//! A function may read `m: &Memory`: `m.y.h`, `m.z.q` are a state and an algebraic variable
//! right after the last mode entry (the start counts as one) — the memory of Serban & Recuero's
//! systems with hysteresis. Its sensitivities are carried through every switch.
//!
//! ```
//! use hysens::prelude::*;
//!
//! #[hybrid_model]
//! pub mod play {
//!     #[states]
//!     pub struct X { pub x: f64, pub w: f64 }
//!     #[params]
//!     pub struct P { pub a: f64 }
//!     /// `w` follows `x` away from where the mode was entered.
//!     #[mode(initial)]
//!     fn up(x: &X, p: &P, m: &Memory) -> X { X { x: p.a, w: x.x - m.y.x } }
//! }
//! # fn main() {}
//! ```
//!
//! ## Switching surfaces
//!
//! `#[switching_surface(below, above)] fn wall(..) -> f64` is a Filippov surface `g = 0`
//! between the ODE mode `below` (`g < 0`) and `above` (`g > 0`): crossing, sliding along it
//! (the generated mode `wall_sliding`, the field `(1 − α) f¹ + α f²`) and leaving it are
//! generated with their guards and exact sensitivities (Pytlak & Suski). A repulsive surface
//! and the intersection of two surfaces are errors that say so.
//!
//! ```
//! use hysens::prelude::*;
//!
//! #[hybrid_model]
//! pub mod relay {
//!     #[states]
//!     pub struct X { pub x: f64 }
//!     #[params]
//!     pub struct P { pub up: f64, pub down: f64 }
//!     #[mode(initial_if(wall, negative))]
//!     fn below(p: &P) -> X { X { x: p.up } }
//!     #[mode(initial)]
//!     fn above(p: &P) -> X { X { x: -p.down } }
//!     #[switching_surface(below, above)]
//!     fn wall(x: &X) -> f64 { x.x }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let p = relay::P { up: 1.0, down: 2.0 };
//! let solution = relay::Model.solver().solve(0.0, 2.0, &relay::X { x: -0.5 }, &p)?;
//! assert_eq!(solution.mode, "wall_sliding"); // reached the wall at t = 0.5 and slides
//! assert!(solution.x.x.abs() < 1e-9);
//! # Ok(())
//! # }
//! ```
//!
//! ## Costs
//!
//! | attribute | cost |
//! |---|---|
//! | `#[cost(integral)]` | `∫ L dt` over the solve |
//! | `#[cost(integral, modes(a, b))]` | `∫ L dt` only while in the listed modes (zero elsewhere; in a sliding mode, the Filippov combination of its sides) |
//! | `#[cost(terminal)]` | `φ` at the final time (at `t*` after a terminal guard) |
//! | `#[cost(sampled)]` | `Σₖ ℓ(tₖ, y, z, p, dₖ)` over the sample times, with a datum `d: f64` per sample (least squares against data) |
//!
//! By default the objective `G` is the sum of all costs; each cost is also named by its
//! function: `solution.named_cost("energy")`, `Solver::objective("energy")` (the adjoint of one
//! cost), `Solver::cost_gradients` (each cost's gradient with one forward pass).
//!
//! ```
//! use hysens::prelude::*;
//!
//! #[hybrid_model]
//! pub mod decay {
//!     #[states]
//!     pub struct X { pub y: f64 }
//!     #[params]
//!     pub struct P { pub k: f64 }
//!     #[mode(initial)]
//!     fn decaying(x: &X, p: &P) -> X { X { y: -p.k * x.y } }
//!     /// `∫ y dt`.
//!     #[cost(integral)]
//!     fn area(x: &X) -> f64 { x.y }
//!     /// `y(T)²`.
//!     #[cost(terminal)]
//!     fn end(x: &X) -> f64 { x.y * x.y }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let (x0, p) = (decay::X { y: 1.0 }, decay::P { k: 1.0 });
//! let solver = decay::Model.solver().tolerances(1e-10, 1e-12);
//! let gradient = solver.gradient(0.0, 1.0, &x0, &p)?; // the adjoint of G = area + end
//! let (e, e2) = ((-1.0f64).exp(), (-2.0f64).exp());
//! assert!((gradient.cost - (1.0 - e + e2)).abs() < 1e-9);
//! assert!((gradient.wrt("k")? - (-(1.0 - 2.0 * e) - 2.0 * e2)).abs() < 1e-8);
//! let solution = solver.sensitivities_to(Params::All, InitialStates::None).solve(0.0, 1.0, &x0, &p)?;
//! assert!((solution.named_cost("end")? - e2).abs() < 1e-9);
//! # Ok(())
//! # }
//! ```
//!
//! ## Outputs
//!
//! `#[output] fn name(..) -> f64` is a named quantity of `t`, the states, algebraic variables,
//! parameters and inputs (not the memory). The results give its value and sensitivities at the
//! samples, at the final time and at any time of a dense output.
//!
//! ```
//! use hysens::prelude::*;
//!
//! #[hybrid_model]
//! pub mod decay {
//!     #[states]
//!     pub struct X { pub y: f64 }
//!     #[params]
//!     pub struct P { pub k: f64 }
//!     #[mode(initial)]
//!     fn decaying(x: &X, p: &P) -> X { X { y: -p.k * x.y } }
//!     /// The decay rate `k y`.
//!     #[output]
//!     fn rate(x: &X, p: &P) -> f64 { p.k * x.y }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let solution = decay::Model
//!     .solver()
//!     .tolerances(1e-10, 1e-12)
//!     .sensitivities_to(Params::All, InitialStates::None)
//!     .dense_output()
//!     .solve(0.0, 1.0, &decay::X { y: 1.0 }, &decay::P { k: 2.0 })?;
//! let middle = solution.at(0.5)?; // dense output: the state at any time
//! let rate = solution.output_of("rate", &middle)?;
//! assert!((rate - 2.0 * (-1.0f64).exp()).abs() < 1e-8);
//! // d(k y)/dk = y + k ∂y/∂k = e^{−kt} (1 − k t) = 0 at t = 0.5
//! assert!(solution.output_sensitivity_of("rate", &middle, "k")?.abs() < 1e-8);
//! # Ok(())
//! # }
//! ```
//!
//! ## The start
//!
//! `#[initial_state] fn start(x: &X, p: &P) -> X` gives the state the solve starts from as a
//! function of the states the caller passes, the parameters, the inputs and `t0`; its
//! derivatives enter every sensitivity and gradient. `#[algebraic_guess] fn guess(x: &X, p: &P)
//! -> Z` gives the first mode's algebraic guess from that state (Newton's method makes it
//! consistent; a guess is not differentiated).
//!
//! ```
//! use hysens::prelude::*;
//!
//! #[hybrid_model]
//! pub mod launch {
//!     #[states]
//!     pub struct X { pub y: f64, pub v: f64 }
//!     #[params]
//!     pub struct P { pub speed: f64 }
//!     /// Launched upwards at `speed` from the caller's height.
//!     #[initial_state]
//!     fn launched(x: &X, p: &P) -> X { X { y: x.y, v: p.speed } }
//!     #[mode(initial)]
//!     fn flight(x: &X) -> X { X { y: x.v, v: -9.81 } }
//!     /// The height at the end.
//!     #[cost(terminal)]
//!     fn height(x: &X) -> f64 { x.y }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let x0 = launch::X { y: 0.0, v: 0.0 }; // the caller's v is replaced by the launch
//! let gradient = launch::Model.solver().gradient(0.0, 1.0, &x0, &launch::P { speed: 10.0 })?;
//! assert!((gradient.wrt("speed")? - 1.0).abs() < 1e-9); // y(1) = speed − g/2
//! # Ok(())
//! # }
//! ```
//!
//! ## Expressions
//!
//! Bodies are `let` bindings followed by a value, written with `+ - * /`, unary `-`, literals,
//! the fields of the function's parameters, module `const`s, the constants of
//! `core::f64::consts` by their path (`core::f64::consts::PI`, `std::f64::consts::E`), helper functions of the module (inlined and differentiated; a helper may return the
//! states), and these `f64` functions in method or path form (`x.sin()`, `f64::sin(x)`):
//!
//! `sqrt cbrt exp exp_m1 ln ln_1p log10 log2 sin cos tan asin acos atan sinh cosh tanh asinh
//! acosh atanh recip abs powi powf atan2 hypot`
//!
//! `abs` is not smooth at 0: its derivative is taken as `signum`, `+1` at 0 (the right
//! derivative). Switching constructs — `if`, `match`, `min`, `max`, `clamp`, `floor`, `signum`,
//! comparisons — are rejected with an error that says to write a guard instead: a switch is a
//! mode change, located and differentiated exactly as an event.
//!
//! ```
//! use hysens::prelude::*;
//!
//! #[hybrid_model]
//! pub mod pendulum {
//!     const G: f64 = 9.81;
//!     #[states]
//!     pub struct X { pub theta: f64, pub omega: f64 }
//!     #[params]
//!     pub struct P { pub length: f64 }
//!     /// A helper, inlined where it is called.
//!     fn restoring(x: &X, p: &P) -> f64 { -G / p.length * x.theta.sin() }
//!     #[mode(initial)]
//!     fn swinging(x: &X, p: &P) -> X {
//!         let a = restoring(x, p);
//!         X { theta: x.omega, omega: a }
//!     }
//!     /// The angle from the bottom at the end, in turns.
//!     #[cost(terminal)]
//!     fn turns(x: &X) -> f64 { x.theta / core::f64::consts::TAU }
//! }
//! # fn main() {}
//! ```
//!
//! ## What is generated
//!
//! Next to the module's items, the macro generates `Memory`; `NAMES`, `to_array` and
//! `from_array` on each variable struct; for a model with inputs, `Parameters` and
//! `Model::parameters(&p, &u)`; and `Model`, with
//!
//! - `Model.solver()`: the builder ([`Solver`](crate::runtime::Solver)) — tolerances,
//!   sensitivity directions, samples, dense output, objective — and its `solve` (an owned
//!   [`Solution`](crate::runtime::Solution)) and `gradient` (the adjoint,
//!   [`Gradient`](crate::runtime::Gradient));
//! - `Model.gradient(t0, tf, &x0, &p)`, `Model::problem(..)` and the no-heap `solve`,
//!   `solve_with_sensitivities`, `solve_adjoint` over caller storage;
//! - `Model::NY`, `NZ`, `NP`, `STACK_ESTIMATE`, `OUTPUT_NAMES`, `mode_name(i)`,
//!   `guard_name(i)`, `describe(&error)`;
//! - the runtime traits [`HybridModel`](crate::runtime::HybridModel) (every kernel: residuals,
//!   Jacobians, guards, resets, costs, outputs, with their derivatives),
//!   [`AdjointProducts`](crate::runtime::AdjointProducts), `ModelSizes`, `ModelTypes`.
//!
//! A model with a mistake is a compile error at the offending span that says what to write
//! instead; the macro reports every error it finds in one compile and still emits stand-ins,
//! so code using the model adds no follow-on errors.

pub mod tolerances;
