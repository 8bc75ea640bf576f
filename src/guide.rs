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
//! - [What is generated](#what-is-generated): the kernels, `#[hybrid_model(crate = path)]`,
//!   `#[hybrid_model(store = heap | sparse)]`, the reserved names
//! - [Solving](#solving): the builder, sensitivity directions, the results by name, dense
//!   output, the adjoint gradient, failures, the no-heap core
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
//! from a guard's sign at `t0`: the rules are tried in declaration order and the first that
//! holds picks its mode, else the mode marked `#[mode(initial)]` (the fallback), else the solve
//! ends with `SolveError::NoInitialMode`. A guard on its zero at `t0` (within round-off of its
//! terms) is decided by its rate: the rule holds when its mode's own field moves the guard to
//! the rule's sign.
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
//! ### Index-2 modes
//!
//! `#[mode(index2)]` (with `initial` or `initial_if(..)` in any order, as any mode) marks a
//! Hessenberg index-2 mode (Serban & Recuero 2019, §3.3, Eq. 15): `y' = f(t, y, z, p)` with
//! constraints `0 = k(t, y, p)` that do not read `z`. The algebraic variables are then defined
//! by the hidden constraint, the constraints' derivative along the solution,
//! `H = k_y f + k_t = 0`, which needs `k_y f_z` nonsingular. The mode is written as a DAE mode,
//! its constraints in place of the algebraic equations. It may mix in equations that read `z`
//! (index-1 equations next to the constraints, such as a mechanism's equations of motion
//! `M a + Φ_qᵀ λ = F` with the accelerations `a` algebraic, so that `M` is not inverted): an
//! equation is a constraint when it reads no algebraic variable, and the condition that
//! defines `z` is then `H` on the constraints and the other equations as they are. The macro
//! checks, each an error at its span: that the model has `#[algebraic]` variables, that the
//! mode has a constraint (without one it is an index-1 mode: remove `index2`), and that the
//! condition's Jacobian in `z` (`k_y f_z` for constraints only) is *structurally* nonsingular
//! (its entries that are not identically zero pair every equation with an algebraic variable;
//! a matrix with such a pattern can still be singular at a point). It differentiates `H`
//! symbolically and generates `HybridModel::hidden_constraint` and
//! `hidden_constraint_partials` (`H_y, H_z, H_p, H_t`), `HybridModel::is_constraint` for a mode
//! that mixes equations in, and `MODES[m].index2` is `true`. Not
//! supported yet: an index-2 mode that reads `Memory`, a terminal guard (`-> stop`) leaving
//! one, and a switching surface next to one.
//!
//! The runtime solves them with forward sensitivities: `z` at the start and after each event
//! from the hidden constraint (Newton on `H = 0`), the state first put on `k = 0` by its least
//! change when it is off by about an integration error (at most `√rtol` relative, with the
//! sensitivities projected alike; beyond that the solve stops with `SolveError::OffConstraint`:
//! an initial state or a reset into the mode must satisfy the constraints), the stages on
//! `0 = k`, and `z` at each step's end from `H` again, so `z` and its sensitivities are as
//! accurate as `y` (`tests/index2_modes.rs`: a point held on a circle, through a switch into
//! the index-2 mode: within 1.0, 2.0 and 2.2 times rtol of the closed form at rtol 1e-6, 1e-8
//! and 1e-10, the sensitivities within 3.9, 9.0 and 11.6 times, where the same rotation as an
//! ODE is within 5.5 and 28 times — the error test weighs `z` too, by `hγ`, as RADAU5 does;
//! the forward sensitivities are the exact derivative of the steps, every tableau, to 8e-10).
//! A guard that reads `z` in an index-2 mode is evaluated with `z` from `H` at the step's end,
//! where the solve goes on from (on the stage value `Z_S`, of lower order, a point released
//! from a circle had its event time 18 times rtol off and that time's sensitivity 6e-7
//! relative at rtol 1e-10; now 1.6e-12 and 3.6e-11). Dense output works in them (within 10
//! times a sampled solve's error there). The adjoint (`Solver::gradient`) transposes all of
//! it, `z` from `H` at every step's end and event and the start moved onto `k = 0`
//! (`tests/index2_adjoint.rs`: equal to the forward gradient to 9e-15 relative, every
//! tableau, in and out of an index-2 mode, starting in one, with integral, terminal and
//! sampled costs reading `z`; against a closed form to 2.4e-10 at rtol 1e-10). An integral
//! cost that reads `z` in an index-2 mode is integrated from the stage values `Z_i`.
//!
//! ```
//! use hysens::prelude::*;
//! use hysens::runtime::{HybridModel, Memory, Point};
//!
//! #[hybrid_model]
//! pub mod cart {
//!     /// Position and speed.
//!     #[states]
//!     pub struct X { pub q: f64, pub v: f64 }
//!     /// The pushing force.
//!     #[algebraic]
//!     pub struct Z { pub force: f64 }
//!     /// Mass and the speed's ramp.
//!     #[params]
//!     pub struct P { pub m: f64, pub r: f64 }
//!     /// `q' = v`, `v' = F/m`, `0 = v − r t`: the force keeps the speed on the ramp, defined
//!     /// by the hidden constraint `H = F/m − r = 0`.
//!     #[mode(index2, initial)]
//!     fn pushed(t: f64, x: &X, z: &Z, p: &P) -> (X, [f64; 1]) {
//!         (X { q: x.v, v: z.force / p.m }, [x.v - p.r * t])
//!     }
//! }
//!
//! # fn main() {
//! assert!(<cart::Model as HybridModel<2, 1, 2>>::MODES[0].index2);
//! let (y, z, p) = ([0.0, 1.0], [6.0], [2.0, 0.5]);
//! let memory = Memory { y, z };
//! let at = Point { t: 2.0, y: &y, z: &z, p: &p, memory: &memory };
//! let mut h = [0.0];
//! cart::Model.hidden_constraint(0, &at, &mut h);
//! assert_eq!(h, [6.0 / 2.0 - 0.5]); // F/m − r
//!
//! // Solved from rest: v = r t, q = r t²/2, F = m r.
//! let solution = cart::Model
//!     .solver()
//!     .tolerances(1e-10, 1e-12)
//!     .sensitivities_to(Params::All, InitialStates::None)
//!     .solve(0.0, 2.0, &cart::X { q: 0.0, v: 0.0 }, &cart::P { m: 2.0, r: 0.5 })
//!     .expect("solves");
//! assert!((solution.y[0] - 1.0).abs() < 1e-9 && (solution.z[0] - 1.0).abs() < 1e-9);
//! let dq_dr = solution.sensitivity("q", "r").expect("computed");
//! assert!((dq_dr - 2.0).abs() < 1e-9); // ∂q/∂r = t²/2
//! # }
//! ```
//!
//! **Constrained mechanics** is written as such a mode: positions `q` and velocities `v` as
//! states, the multipliers as algebraic variables, and the stabilized index-2 form of Gear,
//! Gupta & Leimkuhler, `q' = v + Φ_qᵀ μ`, `M v' = F − Φ_qᵀ λ`, `0 = Φ(t, q, p)`,
//! `0 = Φ_q v + Φ_t` (`M⁻¹` written out). Both constraints hold at every stage, so there is no
//! drift (a pendulum's rod after four impacts: 6e-17). Impacts are resets of `v` that keep
//! `Φ_q v⁺ = 0` (restitution on one degree of freedom: `v⁺ = −e v⁻`), and a change of
//! constraint set is a guard into another mode whose reset is the impulsive map (a rope
//! becoming taut, `M = I`: `v⁺ = v⁻ − q (q·v⁻)/|q|²`); the event-time terms of the jump are the
//! runtime's own. The example `pendulum_wall` (a pendulum hitting a wall, against its angle
//! ODE: 4e-9 at rtol 1e-10, forward and adjoint; `tests/pendulum_wall.rs`), `tests/ring_stop.rs` (a bead on a ring hitting a
//! stop, the independent velocity jumped and the dependent one re-projected: against the
//! closed form to 1.4e-10) and `tests/rope_taut.rs` (against the closed form and central
//! differences, also in the penalty form below) are the worked cases, and the example
//! `five_bar` solves Corner,
//! Sandu & Sandu's five-bar mechanism this way (a constant non-diagonal `M`, nine constrained
//! impacts whose dependent velocities follow from `Φ_q v⁺ = 0`, costs reading the
//! multipliers; within 4e-8 of the reference, the constraints held to 1e-14). With `M` not
//! inverted, `q' = v + Φ_qᵀ μ`, `v' = a`, `0 = M a + Φ_qᵀ λ − F`, `0 = Φ`, `0 = Φ_q v` is an
//! index-2 mode that mixes the equations of motion in (`tests/five_bar.rs`: the same
//! mechanism so, `Φ` written once and `Φ_qᵀ λ`, `Φ_qᵀ μ`, `Φ_q v` from it by `diff`, within
//! 1.7e-8 of the reference). The penalty
//! formulation (their Eq. 64) is an index-1 DAE mode in its augmented form, the accelerations
//! `a` and the multiplier estimates `λ*` algebraic: `M a + Φ_qᵀ λ* = F`,
//! `Φ_q a − λ*/α = −((Φ_q v)_q v + 2ξω Φ̇ + ω² Φ)`, whose `g_z` stays well conditioned as `α`
//! grows (`tests/five_bar_penalty.rs`: the five-bar converges to the constrained solution at
//! the rate `1/α` from 1e3 to 1e7, in the same 2290 steps at every `α`). A declaration of `M`,
//! `F` and `Φ` from which the macro derives these equations is not built yet.
//!
//! ## Guards and resets
//!
//! `#[guard(from -> to, direction)]` switches from mode `from` to mode `to` when the function
//! crosses zero in `direction`: `rising`, `falling` or `either`; a mode may have several.
//! `#[reset(guard)]` gives the states right after the switch from those right before it (and
//! `z`, `p`, `t`, the memory); without a reset the states are continuous. Events are located
//! on the discrete solution to round-off, a guard on its zero at a mode's entry is decided by
//! the flow, and what cannot go on (a stuck instant, a grazing contact) is an error, never a
//! silent answer ([how events are located](#how-events-are-located)).
//!
//! `to` may be `stop`, a **terminal guard**: the solve ends at its event time `t*`
//! (time-to-event problems: when does the projectile land, how does that depend on the
//! parameters). The solution's `t` is `t*`, its `mode` is `"stop"` and its last event goes to
//! `"stop"`; the state (after the guard's reset, if it has one) and its sensitivities are those
//! at `t*` — total derivatives, through `dt*/dp` (the event's `dt`); a terminal cost is `φ` at
//! `t*`, its gradient with `φ_t dt*/dp`; samples after `t*` are not recorded. A horizon `tf`
//! before the event ends the solve as usual.
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
//! ### How events are located
//!
//! Events are the exact solution's, or an error (`tests/event_semantics/`: 45 cases with exact
//! answers, each at rtol 1e-3 to 1e-12 with every tableau).
//!
//! - A guard is on its zero when its value is within round-off of its terms — never within the
//!   solver's tolerance, so a start 0.2 K below a threshold is below it at every rtol.
//! - On its zero at a mode's entry (at `t0`, or after an event) a guard is decided by the flow:
//!   its rate, or, when the rate vanishes (a ball at rest: `ḣ = 0`, `ḧ = −g`), the mode's first
//!   step. If the flow crosses it in its direction it fires at once, in the same instant — but
//!   not the crossing that just fired. An initial state on any guard about to fire is an event
//!   at `t0`, in an ODE or a DAE mode.
//! - A chain of such events that returns to a state already reached at that instant (a ball
//!   with restitution 0, a relay whose two thresholds are equal) has no continuation in the
//!   model: `SolveError::StuckAtGuard`, naming the guard and the modes.
//! - Two crossings inside one step are found (turns between the scanned points are searched; a
//!   step in which a guard varies too fast to rule out a crossing is cut); a touch that does
//!   not cross is no event.
//! - A crossing whose rate the tolerances do not resolve (a near-tangency, a crossing without
//!   rate, impacts accumulating below the tolerances) is `SolveError::GrazingEvent`, its
//!   `dt*/dp` not being meaningful.
//! - A model with guards is solved at rtol ≤ 1e-3 (looser is refused: the solution's own error
//!   can then hide crossings the exact solution has).
//! - Too many events are named as the cap `max_events` (the error says how to raise it,
//!   `Solver::max_events`) or, only when they accumulate in time, as Zeno behaviour.
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
//! and leaving it are generated with their guards and exact sensitivities (Pytlak & Suski). A
//! repulsive surface and the intersection of two surfaces are errors that say so. A model may
//! have several surfaces.
//!
//! The surface adds the sliding mode `wall_sliding`, the Filippov field
//! `f_F = (1 − α) f¹ + α f²` with `α = σ₁/(σ₁ − σ₂)` and `σᵢ = g_t + g_x fⁱ`, differentiated
//! symbolically like any mode (integrated as an ODE that keeps `g` constant, not as the paper's
//! index-2 DAE), and four guards: `wall_from_below` (`g` rising in `below`), `wall_from_above`
//! (`g` falling in `above`), `wall_exit_to_below` (`σ₁` falling through 0 in the sliding mode)
//! and `wall_exit_to_above` (`σ₂` rising through 0). At each of their events the mode entered
//! is chosen by the paper's sign tests (`HybridModel::event_target`): a field that points away
//! from the surface on the far side crosses, one that points back at it slides, and an exit
//! where both fields point away ends the solve with `SolveError::RepulsiveSurface`.
//!
//! - While sliding, every `#[guard]` of `below` or `above` stays watched, with its own target
//!   and reset (a switch both modes have: give it the same target in both).
//! - With several surfaces, the sliding mode also watches each other surface that shares a mode
//!   with this one (guard `wall_meets_<other>`), and reaching it — an intersection of the two
//!   surfaces, codimension 2, not supported yet — ends the solve with
//!   `SolveError::SurfaceIntersection`, keeping what was computed.
//! - The surface reads `t`, the states and the parameters; its modes are ODE modes without
//!   memory (surfaces between DAE modes or modes with memory are not supported yet).
//! - The start: `#[mode(initial_if(wall, positive))]` on `above`, with `below` marked
//!   `#[mode(initial)]`, starts a solve on the side where `g > 0`, else below. Exactly on the
//!   surface, it slides from the start when both fields point at it (an event at `t0` out of
//!   the fallback `below`), starts on the side both fields cross to, or ends with
//!   `SolveError::RepulsiveSurface` when both point away. Mark one side the fallback: with
//!   `initial_if` on both sides, a start on the surface where both fields point at it
//!   satisfies neither rule (each asks its own field to move `g` into its side) and ends with
//!   `SolveError::NoInitialMode`, which says so.
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
//! Sensitivities and adjoints go through these events like any other:
//!
//! ```
//! use hysens::prelude::*;
//!
//! #[hybrid_model]
//! pub mod relay {
//!     #[states]
//!     pub struct X { pub x: f64, pub y: f64 }
//!     #[params]
//!     pub struct P { pub c: f64 }
//!     #[mode(initial)]
//!     fn below() -> X { X { x: 1.0, y: 1.0 } }
//!     #[mode]
//!     fn above() -> X { X { x: -0.5, y: 1.0 } }
//!     /// The wall `x = c`: both fields point at it, so the solution slides along it.
//!     #[switching_surface(below, above)]
//!     fn wall(x: &X, p: &P) -> f64 { x.x - p.c }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let solution = relay::Model
//!     .solver()
//!     .sensitivities_to(Params::All, InitialStates::All)
//!     .solve(0.0, 2.0, &relay::X { x: 0.0, y: 0.0 }, &relay::P { c: 1.0 })?;
//! assert_eq!((solution.events[0].to, solution.mode), ("wall_sliding", "wall_sliding"));
//! assert!((solution.x.x - 1.0).abs() < 1e-12); // on the wall, so ∂x/∂c = 1
//! assert!((solution.sensitivity("x", "c")? - 1.0).abs() < 1e-12);
//! # Ok(())
//! # }
//! ```
//!
//! ## Costs
//!
//! | attribute | cost |
//! |---|---|
//! | `#[cost(integral)]` | `∫ L dt` over the solve |
//! | `#[cost(integral, modes(a, b))]` | `∫ L dt` only while in the listed modes, zero elsewhere (`∫ a² dt` only in contact; in a sliding mode, the Filippov combination of its sides) |
//! | `#[cost(terminal)]` | `φ` at the final time (at `t*` after a terminal guard) |
//! | `#[cost(sampled)]` | `Σₖ ℓ(tₖ, y, z, p, dₖ)` over the sample times, with a datum `d: f64` per sample (least squares against data) |
//!
//! By default the objective `G` is the sum of all costs; each cost is also named by its
//! function (`Model::COSTS`): `solution.named_cost("energy")`, `Solver::objective("energy")`
//! (the adjoint of one cost), `Solver::cost_gradients` (each cost's gradient with one forward
//! pass; [Solving](#solving) has the details). A sampled cost needs its data, `.data(&d)` on
//! the builder, one datum per sample: a solve with samples and no data is an error (the cost
//! would be evaluated against zeros).
//!
//! With `modes(..)`, the objective's derivative carries the event-time term `(L⁻ − L⁺) τ` at
//! each switch where the integrand jumps (`τ` the switch time's sensitivity); in a switching
//! surface's sliding mode the integrand is the Filippov combination `(1 − α) L¹ + α L²` of its
//! two sides.
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
//! `#[output] fn name(..) -> f64` is a named quantity `o(t, y, z, p)` of the time, the states,
//! algebraic variables, parameters and inputs — not the memory: the results evaluate it at
//! stored states, which do not carry it. The results give its value and its sensitivity
//! `do/dθ = o_y dy + o_z dz + o_p` (`+ o_t dt_f/dθ` at a terminal guard's stop) at the samples,
//! at the final time and at any state of the solution, dense output included
//! ([Solving](#solving) lists the calls). On the no-heap side, `HybridModel::output` and
//! `output_partials` evaluate it at a `Point`, `Sample::output` and
//! `HybridSolution::output_sensitivities` on the no-heap results.
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
//! function of the states the caller passes, the parameters, the inputs and `t0` (a launch
//! velocity from a speed and an angle). Sensitivities and gradients include `∂y0/∂p` (the
//! forward columns start from `I_x S + I_p`, the adjoint adds `I_pᵀ λ0`); the initial-state
//! directions are those of the states the caller passes. At most one per model; it cannot read
//! algebraic variables or `Memory`.
//!
//! `#[algebraic_guess] fn guess(x: &X, p: &P) -> Z` gives the first mode's algebraic guess as a
//! function of the initial state (after `#[initial_state]`), the parameters, the inputs and
//! `t0` (a guess on the wanted root's side of `0 = r² − (h + a)`), made consistent by Newton's
//! method like the builder's `algebraic_guess(..)`, which it replaces (far from a root, a
//! Newton step that would not reduce `|g|` is shortened by a line search, so a poor guess costs
//! iterations rather than the solve; where `g = 0` has several roots, the guess picks the one
//! its iteration leads to). It is not differentiated: the consistent `z0` and its sensitivities follow from `g = 0`. At most one,
//! in a model with algebraic variables; it cannot read the algebraic variables or `Memory`, nor
//! — in a model whose modes read `Memory`, whose first `z*` is the guess — the parameters,
//! inputs or `t`.
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
//! `core::f64::consts` by their path (`core::f64::consts::PI`, `std::f64::consts::E`), helper
//! functions of the module (below), and these `f64` functions in method or path form
//! (`x.sin()`, `f64::sin(x)`):
//!
//! `sqrt cbrt exp exp_m1 ln ln_1p log10 log2 sin cos tan asin acos atan sinh cosh tanh asinh
//! acosh atanh recip abs powi powf atan2 hypot`
//!
//! `diff(e, v)` is the partial derivative of the expression `e` with respect to a variable `v`
//! of the model (a field of the states, algebraic variables, parameters or inputs, or `t`),
//! taken symbolically like every derivative the macro writes: a constraint written once gives
//! its gradient (`diff(phi, x.q1)`) and a mechanism's `Φ_qᵀ λ = ∂(λ·Φ)/∂q`
//! (`diff(z.l1 * phi1 + z.l2 * phi2, x.q1)`). A helper of the model named `diff` takes its
//! place.
//!
//! `abs` is not smooth at 0: its derivative is taken as `signum`, `+1` at 0 (the right
//! derivative). Switching constructs — `if`, `match`, `min`, `max`, `clamp`, `floor`, `signum`,
//! comparisons — are rejected with an error that says to write a guard instead: a switch is a
//! mode change, located and differentiated exactly as an event.
//!
//! A helper `fn helper(a: f64, x: &X) -> f64` is inlined symbolically, and differentiated,
//! wherever it is called: an `f64` argument is any expression, a struct argument is passed by
//! name (the caller's `x` or `p`, and `x.h` in the body means the argument's field). A helper
//! may return the states (`fn dynamics(x: &X, p: &P) -> X { X { .. } }`): call it as the value
//! of a mode (`fn flight(x: &X, p: &P) -> X { dynamics(x, p) }`), as the derivatives of a DAE
//! mode's tuple, of a reset or of `#[initial_state]`; it is inlined field by field, so the model
//! is the one written out.
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
//! `from_array` on each variable struct (and the runtime's `Fields` view of it); for a model
//! with inputs, `Parameters { params, inputs }` (what `Model::parameters(&p, &u)` returns and
//! the builder takes as its parameters); and `Model`, with
//!
//! - `Model.solver()`: the builder ([`Solver`](crate::runtime::Solver)) — tolerances,
//!   sensitivity directions, samples, dense output, objective — and its `solve` (an owned
//!   [`Solution`](crate::runtime::Solution)) and `gradient` (the adjoint,
//!   [`Gradient`](crate::runtime::Gradient));
//! - `Model.gradient(t0, tf, &x0, &p)`, `Model::problem(..)` and the no-heap `solve`,
//!   `solve_with_sensitivities`, `solve_adjoint` over caller storage;
//! - `Model::NY`, `NZ`, `NP`, `COSTS`, `STACK_ESTIMATE`, `OUTPUT_NAMES`, `mode_name(i)`,
//!   `guard_name(i)`, `describe(&error)` (a `SolveError` with the model's names);
//! - the runtime traits [`HybridModel`](crate::runtime::HybridModel) (every kernel the solver
//!   and the forward sensitivities need: residuals; state, parameter, time and memory
//!   Jacobians; guards and their gradients; resets and their Jacobians; costs and their
//!   gradients; the named outputs and their partials),
//!   [`AdjointProducts`](crate::runtime::AdjointProducts) (the transposed products
//!   `λᵀf_y + μᵀg_y`, `λᵀf_p + μᵀg_p` the adjoint uses), `ModelSizes` and `ModelTypes` (the
//!   model's own state, algebraic and parameter types, which the builder takes).
//!
//! Each kernel has its structural zeros known at compile time and its common subexpressions
//! computed once. Modes the macro proves affine in the unknowns (no Jacobian entry reads `t`, a
//! state or an algebraic variable) are marked so (`ModeInfo::constant_jacobian`): the solver
//! then takes one Newton iteration per stage and reuses the iteration matrix for the
//! sensitivities. The generated code has no heap, no panics and no `unsafe`, and is clean under
//! `clippy -D warnings` and `#![deny(missing_docs)]`. The kernels can be called directly, at a
//! [`Point`](crate::runtime::Point):
//!
//! ```
//! use hysens::prelude::*;
//! use hysens::runtime::{Memory, Point};
//!
//! #[hybrid_model]
//! pub mod ball {
//!     #[states]
//!     pub struct X { pub h: f64, pub v: f64 }
//!     #[params]
//!     pub struct P { pub g: f64, pub e: f64 }
//!     #[mode(initial)]
//!     fn flight(x: &X, p: &P) -> X { X { h: x.v, v: -p.g } }
//!     #[guard(flight -> flight, falling)]
//!     fn impact(x: &X) -> f64 { x.h }
//!     #[reset(impact)]
//!     fn bounce(x: &X, p: &P) -> X { X { h: x.h, v: -p.e * x.v } }
//! }
//!
//! assert_eq!((ball::Model::NY, ball::Model::NZ, ball::Model::NP), (2, 0, 2));
//! let (y, p) = ([1.0, -3.0], [9.81, 0.8]);
//! let at = Point { t: 0.0, y: &y, z: &[], p: &p, memory: &Memory::ZERO };
//! let mut y_plus = [0.0; 2];
//! ball::Model.reset(0, &at, &mut y_plus); // the reset of guard 0, `impact`
//! assert_eq!(y_plus, [1.0, 2.4000000000000004]);
//! ```
//!
//! A model with a mistake is a compile error at the offending span that says what to write
//! instead. The macro reports every error it finds (in attributes, names, signatures and
//! function bodies alike, in one compile: an unknown name does not hide a mistake elsewhere)
//! and still emits the module and stand-ins of the generated items, so uses of `ball::Model`,
//! `ball::X`, … add no follow-on errors: a model with an error does not take the rest of the
//! crate down with it.
//!
//! `#[hybrid_model(crate = path)]` names the facade crate when it is not `::hysens` (a renamed
//! dependency or a re-export; see [`hybrid_model`](crate::hybrid_model)).
//!
//! `#[hybrid_model(store = heap)]` keeps the model's `NY × NY` matrices — the Jacobian's
//! `f_y`, the reset Jacobians, the LU factors of the stage matrices — on the heap
//! ([`Heap`](crate::runtime::Heap), feature `std`) instead of in the solve's frames (`store =
//! inline`, the default, [`Inline`](crate::runtime::Inline)). They are 8 MB each at 1,000
//! states; with the heap, a model of that size solves with forward sensitivities and with the
//! adjoint on an ordinary 8 MiB thread (a release build), where the frames would need hundreds
//! of MB. The numbers are the same bit for bit; the matrices are still dense, so the cost per
//! step grows like `NY²`. `#[hybrid_model(store = sparse)]` (feature `sparse` of `hysens`)
//! keeps them as `heap` does but factorizes the stage matrices `[I − hγ f_y, −hγ f_z; g_y,
//! g_z]` with faer's sparse LU ([`Sparse`](crate::runtime::Sparse)) on the model's structural
//! pattern (`Model::JACOBIAN_NONZEROS`, which the macro computes): one symbolic analysis per
//! mode, the numeric factorization and the solves in time proportional to the factors'
//! nonzeros. For large models with sparse Jacobians (discretized PDEs, chains, networks); the
//! numbers agree with the dense storages' to round-off (another pivot order), not bit for bit.
//! Products with `f_y` are still dense. `Model::STACK_ESTIMATE` and the builder's stack growth
//! follow the choice.
//!
//! Names are reserved for what comes next from the papers: `#[mode(mechanical)]`,
//! `#[mass_matrix]`, `#[constraint]` (mechanical systems with impacts) and `#[mode(sliding)]`
//! (sliding modes are generated from their surface) are recognised and rejected with a clear
//! message until they are built.
//!
//! ## Solving
//!
//! The generated `Model::solver()` is a builder ([`Solver`](crate::runtime::Solver)): set what
//! you need, then `solve` (forward, with sensitivities if chosen) or `gradient` (the adjoint).
//! Its inputs are the model's own types — the initial state as `X`, the parameters as `P` (for a
//! model with inputs, `Model::parameters(&p, &u)`) — so a state and parameters of the same size
//! cannot be swapped: that is a compile error. The solution is owned and typed: the final state
//! is the model's own `X`, sensitivities are looked up by name, events and samples carry mode
//! names.
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
//!     #[guard(flight -> flight, falling)]
//!     fn impact(x: &X) -> f64 { x.h }
//!     #[reset(impact)]
//!     fn bounce(x: &X, p: &P) -> X { X { h: x.h, v: -p.e * x.v } }
//!     #[output]
//!     fn energy(x: &X, p: &P) -> f64 { 0.5 * x.v * x.v + p.g * x.h }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let times = [0.25, 0.5];
//! let solution = ball::Model
//!     .solver()
//!     .tolerances(1e-10, 1e-12)
//!     .sensitivities_to(Params::All, InitialStates::All)
//!     .samples(&times)
//!     .solve(0.0, 0.9, &ball::X { h: 1.0, v: 0.5 }, &ball::P { g: 9.81, e: 0.8 })?;
//!
//! let ball::X { h, v } = solution.x; // the state at t = 0.9
//! let dh_dg = solution.sensitivity("h", "g")?; // ∂h(0.9)/∂g
//! let dh_dv0 = solution.sensitivity("h", Wrt::InitialState("v"))?; // ∂h(0.9)/∂v(0)
//! let column = solution.state_sensitivity(Wrt::InitialState("h"))?; // ∂x(0.9)/∂h(0)
//! let impact = &solution.events[0];
//! assert_eq!((impact.guard, impact.from, impact.to), ("impact", "flight", "flight"));
//! let [_, v_before] = impact.y_before; // the state just before the impact, and after its reset:
//! assert_eq!(impact.y_after[1], -0.8 * v_before); // v⁺ = −e v⁻
//! let dt_de = solution.event_time_sensitivity(0, "e")?; // 0: the impact comes first
//! let first = &solution.samples[0]; // t = 0.25, before the impact
//! let energy = solution.output("energy", 0)?; // the output at sample 0
//! let de_dg = solution.output_sensitivity("energy", 0, "g")?; // its ∂/∂g there
//! let final_energy = solution.final_output("energy")?; // and at t = 0.9
//! # assert!(energy > final_energy && de_dg.is_finite());
//! # assert_eq!(solution.output_of("energy", first)?, energy);
//! # assert!(h > 0.0 && v < 0.0 && dh_dg.is_finite() && dh_dv0.is_finite() && column.h.is_finite());
//! # assert_eq!((first.t, first.mode, dt_de), (0.25, "flight", 0.0));
//! # assert!(solution.stats.steps > 0);
//! # Ok(())
//! # }
//! ```
//!
//! - **Sensitivities to any subset** of the parameters and of the initial states, by name, per
//!   solve: `Params::All`, `Params::Only(&["g"])`, `InitialStates::Only(&["v"])`, … Initial
//!   states need no dummy parameters: they are appended to the parameters inside the solver and
//!   their columns start from unit vectors, so they cross every event exactly as parameter
//!   columns do (`tests/model_ball.rs` checks `∂(h, v)(T)/∂(h0, v0, g, e)` against the closed
//!   form to 1e-12). Without initial states, only the parameter columns are computed.
//! - **Looked up by name, checked**: `sensitivity`, `state_sensitivity`, `cost_gradient`,
//!   `event_time_sensitivity`, `sample_sensitivity`, the outputs and the gradient's `wrt` return
//!   a `Result` whose error is a [`LookupError`](crate::runtime::LookupError): a name the model
//!   does not have is an error that lists the model's (``unknown parameter `gravity`; the
//!   model's: g, e``), a direction the solve did not compute says to choose it with
//!   `sensitivities_to(..)`, an event or sample index past the end says how many there are —
//!   never a silent `None` for a typo.
//! - **Samples** (`.samples(&times)`: the solver lands on each), **data** for a sampled cost
//!   (`.data(&d)`, one datum per sample, required with samples when the model has a sampled
//!   cost), the **algebraic guess** of an index-1 DAE by name (`.algebraic_guess(&model::Z {
//!   .. })`, made consistent by Newton's method), **tolerances** or all **options**
//!   (`.options(HybridOptions { .. })`), another **tableau**
//!   (`.tableau(&hysens::runtime::ESDIRK34)`), **fixed steps** without error control
//!   (`.fixed_step(h)`: steps of size `h`, the last before each event, sample or `t_f` cut to
//!   land on it; the sensitivities and the adjoint are the derivatives of those steps), the cap
//!   on events (`.max_events(n)`). Which
//!   tolerance and which options for which accuracy: [`tolerances`].
//! - **Several named costs**: each `#[cost]` function is a cost named by the function
//!   (`Model::COSTS`); the objective is their sum unless `.objective("energy")?` makes one of
//!   them the objective of `solve` and `gradient` (an unknown name is a `LookupError` listing
//!   the model's costs). Every owned solution reports each cost from the same forward pass,
//!   `solution.named_cost("energy")?` and, with sensitivities,
//!   `solution.named_cost_gradient("energy", "g")?`; `.cost_gradients(t0, tf, &x0, &p)?` gives
//!   the adjoint gradient of each with one forward pass shared and one backward pass per cost
//!   (`.of("energy")?`). The integral cost in the error test is always the sum of the integral
//!   costs, so every objective of a problem is computed on the same steps and one tape serves
//!   every backward pass: each gradient equals the one `.objective(name)?.gradient(..)` gives,
//!   bit for bit (`tests/named_costs.rs`). At the no-heap core: `solve_costs` and
//!   `HybridRun::with_objective(Objective::Cost(k))`.
//! - **Outputs** (`#[output]`) by name, with the same checks: `output(name, k)` and
//!   `output_sensitivity(name, k, wrt)` at sample `k`, `final_output` and
//!   `final_output_sensitivity` at the final time (with `o_t dt_f/dθ` when a terminal guard
//!   stopped the solve), and `output_of(name, &state)`, `output_sensitivity_of(name, &state,
//!   wrt)` at any `SampleState` of the solution: a sample, or dense output's
//!   `output_of("energy", &solution.at(t)?)`. The solution keeps the model's output functions
//!   (function pointers of the model type) and the solve's parameters, not just values, so it
//!   needs no model to evaluate them (`tests/outputs.rs`: a DAE tank against closed forms, and
//!   the outputs' sensitivities at the final time against the adjoint gradient of the same
//!   expression as a terminal cost).
//! - **Dense output**: with `.dense_output()` the solution is read at any time afterwards —
//!   `solution.at(t)?` gives the state, the algebraic variables and their sensitivities in the
//!   chosen directions (a `SampleState`, like a sample), `solution.left_limit_at(t_k)?` the state
//!   just before an event (the event's `y_before`; `at` gives its `y_after`) — without the extra
//!   steps that sample times cost. It interpolates the stored steps (a quartic per step through
//!   its ends and three inner values built from the stage values, so stiff components stay
//!   accurate over long steps; in a DAE mode `z` is consistent at the inner values), within 20
//!   (states) and 500 (sensitivities) times `rtol ‖v‖ + atol` of a solve sampled at those times
//!   (`tests/dense_output.rs`: Ex. 5.1, the ball, the steel oscillator at rtol 1e-6 … 1e-10;
//!   Robertson, also dosed once at a parameter-dependent time, and Van der Pol at μ = 1000 at
//!   rtol 1e-4 … 1e-8; measured ≤ 5.6 and ≤ 45). No heap: `HybridOutputs::dense` and
//!   `hysens::runtime::dense_output`.
//! - **The gradient by the adjoint**: `.gradient(t0, tf, &x0, &p)?` (or, with the default
//!   settings, the generated `Model.gradient(t0, tf, &x0, &p)?`) returns the objective and
//!   `dG/dθ` for every parameter and initial state (`gradient.wrt("g")?`,
//!   `gradient.wrt(Wrt::InitialState("v"))?`) from one forward solve that records a tape and one
//!   backward pass over it — the transpose of the forward sensitivities' chain, so the two agree
//!   to round-off (`tests/adjoint*.rs`) when both solves take the same steps (same tolerances,
//!   options and sample times: samples add steps; otherwise they agree to the tolerance), at a
//!   cost that does not grow with the number of parameters — and the adjoint trajectory
//!   `gradient.adjoint` (`λ(t) = dG/dy(t)` at every step, with its jumps at events and
//!   samples).
//! - **Failures keep what was computed and say what is wrong**: the error of `solve` and of
//!   `gradient` is a [`SolveFailure`](crate::runtime::SolveFailure) with the `SolveError` (what,
//!   when, in which mode), the mode's name and the `partial` solution up to it (without
//!   sensitivities, for `gradient`); it prints with the model's names (`` guard `impact` ``,
//!   `` mode `flight` ``, `` switching surface `wall` ``; `Model::describe(&error)` does the
//!   same for the no-heap calls). Each input is named: the initial state, the parameters, which
//!   of `t0`, `tf` (`InvalidTimeSpan`); an algebraic equation without a solution at the start is
//!   an inconsistent start, not a singular matrix; too many events are named as the cap
//!   `max_events` or as Zeno behaviour ([how events are located](#how-events-are-located)).
//!
//! ### Without the heap
//!
//! `solve_into` writes into caller storage and allocates nothing (`HybridOutputs` with sample
//! and event slices, a `HybridSolution` summary whose sensitivity columns are all parameters,
//! then all initial states). Under it is the core
//! `hysens::runtime::solve(&HybridRun::new(&model, &tableau, &problem, &options), &mut outputs,
//! &mut summary)` (`solve_adjoint` and `adjoint_tape_length` take the same `HybridRun`), also
//! usable with hand-written models (implement `HybridModel` and `ModelSizes`) and with a
//! replayed step sequence (`.with_plan(StepPlan::Replay(&log))`).
//!
//! The adjoint with caller storage: the generated `Model::solve_adjoint` (or
//! `hysens::runtime::solve_adjoint`) with `AdjointTape::full(&mut steps)`, or
//! `AdjointTape::checkpointed(&mut window, &mut checkpoints)` for bounded storage on long
//! horizons: the backward pass recomputes each window from its checkpoint, repeating the
//! forward steps exactly, so the gradient is the same bit for bit
//! (`hysens::runtime::adjoint_tape_length` and `AdjointTape::checkpoints_needed` size the
//! storage; too little is a `TapeFull` error naming what is needed).

pub mod tolerances;
