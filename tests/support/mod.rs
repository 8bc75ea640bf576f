//! Shared test support: checks every kernel a `#[hybrid_model]` emits against an independent
//! re-implementation of the same model, differentiated numerically by forward-mode automatic
//! differentiation with `num_dual::Dual64`.
//!
//! # The support folder
//!
//! This folder is the one place of the tests' shared models and helpers; each model is
//! declared once (the examples' models in their example's `model.rs`, included from here).
//! The test binary `tests/suite.rs` declares this module (`mod support;`) and each file below
//! once (`#[path]`), and the test modules `use` them (`use crate::models;`); the benchmarks, the
//! examples and the two test binaries of their own include by `#[path]` the files they use:
//!
//! - `models.rs`: the benchmark problems P1–P4 and a DAE with memory (also the benchmarks' and
//!   `bench/peers`');
//! - `event_models.rs`: hybrid models with events, for the kernel checks, the adjoint and the
//!   runtime's numbers against closed forms;
//! - `corpus.rs`: the event-semantics corpus; `thermostat.rs`: the thermostat (also an
//!   example's);
//! - `smooth_modes.rs`: smooth modes for the ESDIRK integrator alone, and `ModeOf`, a hybrid
//!   model's mode as one;
//! - `runtime.rs`: helpers for the tests that call the runtime's core API, the problems of the
//!   models there and closed-form values; `adjoint.rs`: the adjoint against the forward
//!   sensitivities; `filippov.rs`: the plain-Rust twin of a switching surface;
//! - `sliding_checks.rs`: the sliding tests' adjoint-against-forward and no-heap checks;
//! - `language_models.rs`: the models of the tests of the model language's features (terminal
//!   guards, `#[initial_state]`, integral costs limited to modes, helpers that return the
//!   states, a model without parameters); `closed_form.rs`: their objectives and gradients
//!   against closed forms differentiated with num-dual;
//! - `counting_alloc.rs`: the counting allocator of every test that counts allocations;
//! - `facade_batch.rs`: the P1 batch workload and its sequential baseline, of the `batch`
//!   benchmark and the `batch_speedup` example, beside `models.rs`.
//!
//! Models used by one test only are declared in that test, next to what checks them.
//!
//! # How a model is checked
//!
//! A test writes its model twice: once in the model language (the macro differentiates it
//! symbolically at compile time) and once as plain Rust generic over a num-dual number type, a
//! [`Reference`] implementation: `f`, `g`, guards `h`, resets `R`, and the integral, terminal and
//! sampled costs `L`, `φ`, `ℓ`, each a function of
//! `(t, y, z, p, y*, z*)` ([`Vars`]). At each test point [`check_model`] evaluates the reference
//! once per input coordinate with `Dual64` numbers seeded `eps = 1` in that coordinate (and 0
//! elsewhere) and compares, entry by entry:
//!
//! - values written by the kernels (`residual`, `guard`, `reset`, the three costs) with the
//!   reference's values (tolerance [`VALUE_REL`], floor [`VALUE_ABS`]);
//! - every derivative block with the num-dual derivative (tolerance [`REL`], floor [`ABS`]):
//!   `f_y, f_z, g_y, g_z` (`jacobian`), `f_p, g_p` (`parameter_jacobian`), `f_t, g_t`
//!   (`time_partials`), `f_{y*}, f_{z*}, g_{y*}, g_{z*}` (`memory_jacobian`), all partials of each
//!   guard and each cost (`h_t, h_y, h_z, h_p, h_{y*}, h_{z*}`), all blocks of each reset
//!   Jacobian (`R_t, R_y, R_z, R_p, R_{y*}, R_{z*}`);
//! - the adjoint products `λᵀf_y + μᵀg_y`, `λᵀf_z + μᵀg_z`, `λᵀf_p + μᵀg_p` for random `λ, μ`
//!   against the same products formed from the num-dual Jacobians.
//!
//! # Structural zeros
//!
//! The runtime zeroes derivative storage and a kernel writes only its structural nonzeros. Each
//! derivative kernel is therefore called twice: on zeroed storage and on storage filled with a
//! sentinel. An entry still holding the sentinel was not written (a structural zero): its
//! num-dual derivative must be exactly `0.0`, at every point. A written entry must have the same
//! value in both calls (a kernel must not read its output storage) and match num-dual. Kernels
//! documented as writing "in full" (`residual`, `reset`, `adjoint_products`) must overwrite
//! every entry.
//!
//! # Tolerances
//!
//! Derivatives: the mixed criterion `|a − b| ≤ 1e-10·max(|a|, |b|) + 1e-12·scale`
//! ([`REL`], [`ABS`]). The two sides compute the same derivative by different formulas (the
//! macro's simplified symbolic derivative against num-dual's chain rule applied value by value),
//! so they agree to rounding, not bit for bit: 1e-10 relative leaves five orders of magnitude
//! above double-precision rounding for the short expressions of these models. The absolute floor
//! is for entries whose exact value is (near) zero, where a relative criterion is meaningless:
//! the rounding error of a computed quantity is relative to the magnitude of the terms it is
//! summed from, not to the result. `scale` is 1 for a Jacobian entry (the test models' points
//! keep every term of such an entry moderate, and a floor of 1e-12 is far below any entry that
//! is not exactly zero), and for an adjoint product `Σᵢ λᵢ Jᵢⱼ` it is `max(1, Σᵢ |λᵢ Jᵢⱼ|)`, the
//! standard forward-error bound of a dot product: a product that cancels to near zero is still
//! held to 1e-12 of the magnitude of its terms.
//!
//! Values: `|a − b| ≤ 1e-13·max(|a|, |b|) + 1e-13` ([`VALUE_REL`], [`VALUE_ABS`]). Both sides
//! evaluate the same formula in `f64`; they differ only where the macro's simplifier folds
//! constants or orders the operands of a commutative operation, a few ulps (≈ 1e-16 each) of the
//! largest intermediate term, which the models keep below about 100.
//!
//! Structural zeros are compared exactly (`== 0.0`): forward-mode AD propagates an exact zero
//! derivative through any operation on finite values, so a function that does not depend on an
//! input has num-dual derivative exactly zero with respect to it.
#![allow(dead_code)] // each test crate uses a different part of this module

use hysens::runtime::{AdjointProducts, Memory, Point, ResetJacobian, ScalarPartials};
use hysens::runtime::{HybridModel, Inline, ModeJacobian};
use num_dual::{Dual64, DualNum};

/// Relative tolerance for derivatives (the 1e-10).
pub const REL: f64 = 1e-10;
/// Absolute floor for derivatives, multiplied by the quantity's scale (see the module docs).
pub const ABS: f64 = 1e-12;
/// Relative tolerance for values.
pub const VALUE_REL: f64 = 1e-13;
/// Absolute floor for values.
pub const VALUE_ABS: f64 = 1e-13;

/// The value written into derivative storage before a call, to find the entries a kernel does
/// not write.
const SENTINEL: f64 = -1.234_567_890_123e301;

/// A number type the reference implementations are written over: `f64` or a num-dual number.
pub trait Scalar: DualNum<Primitive = f64> + Copy {}
impl<D: DualNum<Primitive = f64> + Copy> Scalar for D {}

/// `c` as a `D`.
pub fn c<D: Scalar>(value: f64) -> D {
    D::from(value)
}

/// Every input of a model function: `(t, y, z, p, y*, z*)`.
#[derive(Clone, Copy, Debug)]
pub struct Vars<D, const NY: usize, const NZ: usize, const NP: usize> {
    /// `t`
    pub t: D,
    /// `y`
    pub y: [D; NY],
    /// `z`
    pub z: [D; NZ],
    /// `p` (parameters, then inputs)
    pub p: [D; NP],
    /// `y*`
    pub ys: [D; NY],
    /// `z*`
    pub zs: [D; NZ],
}

/// A model re-implemented in plain Rust, generic over the number type. Every method's default
/// describes a model without that piece; `mode`/`guard` indices are those of the macro's tables
/// (declaration order).
pub trait Reference<const NY: usize, const NZ: usize, const NP: usize> {
    /// `f` of `mode`.
    fn f<D: Scalar>(&self, mode: usize, v: &Vars<D, NY, NZ, NP>) -> [D; NY];

    /// `g` of `mode` (ODE models: nothing).
    fn g<D: Scalar>(&self, mode: usize, v: &Vars<D, NY, NZ, NP>) -> [D; NZ] {
        let _ = (mode, v);
        assert_eq!(NZ, 0, "a DAE reference must implement `g`");
        core::array::from_fn(|_| c(0.0))
    }

    /// Guard `guard`'s `h`.
    fn guard<D: Scalar>(&self, guard: usize, v: &Vars<D, NY, NZ, NP>) -> D {
        let _ = v;
        panic!("the reference has no guard {guard}")
    }

    /// Guard `guard`'s reset `R`, `None` for continuity `y⁺ = y⁻`.
    fn reset<D: Scalar>(&self, guard: usize, v: &Vars<D, NY, NZ, NP>) -> Option<[D; NY]> {
        let _ = (guard, v);
        None
    }

    /// The integrand `L` in `mode`, `None` if the model has no integral cost.
    fn integral_cost<D: Scalar>(&self, mode: usize, v: &Vars<D, NY, NZ, NP>) -> Option<D> {
        let _ = (mode, v);
        None
    }

    /// The terminal cost `φ`, `None` if the model has none.
    fn terminal_cost<D: Scalar>(&self, v: &Vars<D, NY, NZ, NP>) -> Option<D> {
        let _ = v;
        None
    }

    /// The sampled cost term `ℓ` with datum `d`, `None` if the model has none.
    fn sampled_cost<D: Scalar>(&self, v: &Vars<D, NY, NZ, NP>, d: D) -> Option<D> {
        let _ = (v, d);
        None
    }
}

/// One point at which every kernel is checked.
#[derive(Clone, Copy, Debug)]
pub struct TestPoint<const NY: usize, const NZ: usize, const NP: usize> {
    /// `t`
    pub t: f64,
    /// `y`
    pub y: [f64; NY],
    /// `z`
    pub z: [f64; NZ],
    /// `p`
    pub p: [f64; NP],
    /// `(y*, z*)`
    pub memory: Memory<NY, NZ>,
    /// The datum for the sampled cost.
    pub datum: f64,
    /// Adjoint weights `λ` for the adjoint products.
    pub lambda: [f64; NY],
    /// Adjoint weights `μ` for the adjoint products.
    pub mu: [f64; NZ],
}

impl<const NY: usize, const NZ: usize, const NP: usize> TestPoint<NY, NZ, NP> {
    /// The point as the kernels take it.
    pub fn at(&self) -> Point<'_, NY, NZ, NP> {
        Point {
            t: self.t,
            y: &self.y,
            z: &self.z,
            p: &self.p,
            memory: &self.memory,
        }
    }
}

/// A small deterministic generator (SplitMix64), so failures reproduce.
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[lo, hi)`.
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let unit = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * unit
    }

    /// An array of uniforms in `[lo, hi)`.
    pub fn array<const N: usize>(&mut self, lo: f64, hi: f64) -> [f64; N] {
        core::array::from_fn(|_| self.uniform(lo, hi))
    }

    /// A point with the given `t, y, z, p, y*, z*`, a datum in `[-2, 2)` and adjoint weights in
    /// `[-1, 1)`.
    pub fn point<const NY: usize, const NZ: usize, const NP: usize>(
        &mut self,
        t: f64,
        y: [f64; NY],
        z: [f64; NZ],
        p: [f64; NP],
        memory: Memory<NY, NZ>,
    ) -> TestPoint<NY, NZ, NP> {
        TestPoint {
            t,
            y,
            z,
            p,
            memory,
            datum: self.uniform(-2.0, 2.0),
            lambda: self.array(-1.0, 1.0),
            mu: self.array(-1.0, 1.0),
        }
    }
}

/// Offsets of the input coordinates `(t, y, z, p, y*, z*)`, flattened in this order.
#[derive(Clone, Copy)]
struct Layout {
    ny: usize,
    nz: usize,
    np: usize,
}

impl Layout {
    const T: usize = 0;
    fn y(&self) -> usize {
        1
    }
    fn z(&self) -> usize {
        1 + self.ny
    }
    fn p(&self) -> usize {
        1 + self.ny + self.nz
    }
    fn ys(&self) -> usize {
        1 + self.ny + self.nz + self.np
    }
    fn zs(&self) -> usize {
        1 + 2 * self.ny + self.nz + self.np
    }
    fn len(&self) -> usize {
        1 + 2 * self.ny + 2 * self.nz + self.np
    }
}

/// The inputs at `point` as `Dual64`, seeded in coordinate `seed` (none for `None`).
fn seeded<const NY: usize, const NZ: usize, const NP: usize>(
    point: &TestPoint<NY, NZ, NP>,
    seed: Option<usize>,
) -> Vars<Dual64, NY, NZ, NP> {
    let layout = Layout {
        ny: NY,
        nz: NZ,
        np: NP,
    };
    let d = |value: f64, k: usize| Dual64::new(value, if seed == Some(k) { 1.0 } else { 0.0 });
    Vars {
        t: d(point.t, Layout::T),
        y: core::array::from_fn(|i| d(point.y[i], layout.y() + i)),
        z: core::array::from_fn(|i| d(point.z[i], layout.z() + i)),
        p: core::array::from_fn(|i| d(point.p[i], layout.p() + i)),
        ys: core::array::from_fn(|i| d(point.memory.y[i], layout.ys() + i)),
        zs: core::array::from_fn(|i| d(point.memory.z[i], layout.zs() + i)),
    }
}

/// The inputs at `point` as plain `f64`.
fn plain<const NY: usize, const NZ: usize, const NP: usize>(
    point: &TestPoint<NY, NZ, NP>,
) -> Vars<f64, NY, NZ, NP> {
    Vars {
        t: point.t,
        y: point.y,
        z: point.z,
        p: point.p,
        ys: point.memory.y,
        zs: point.memory.z,
    }
}

/// A vector function's value and all its first derivatives: `d[k][i] = ∂outᵢ/∂inₖ`.
struct Derivatives {
    value: Vec<f64>,
    d: Vec<Vec<f64>>,
}

impl Derivatives {
    /// Forward mode, one seeded evaluation per input coordinate.
    fn of<const NY: usize, const NZ: usize, const NP: usize>(
        point: &TestPoint<NY, NZ, NP>,
        eval: impl Fn(&Vars<Dual64, NY, NZ, NP>) -> Vec<Dual64>,
    ) -> Self {
        let layout = Layout {
            ny: NY,
            nz: NZ,
            np: NP,
        };
        let value = eval(&seeded(point, None)).iter().map(|x| x.re).collect();
        let d = (0..layout.len())
            .map(|k| {
                eval(&seeded(point, Some(k)))
                    .iter()
                    .map(|x| x.eps)
                    .collect()
            })
            .collect();
        Derivatives { value, d }
    }

    /// `∂outᵢ/∂in_{offset + j}`.
    fn at(&self, i: usize, offset: usize, j: usize) -> f64 {
        self.d[offset + j][i]
    }
}

/// Collects every comparison; panics at the end with all failures.
pub struct Checker {
    what: String,
    failures: Vec<String>,
    /// Entries compared against num-dual or reference values.
    pub compared: usize,
    /// Derivative entries left unwritten by a kernel and verified to be exactly zero.
    pub structural_zeros: usize,
}

impl Checker {
    /// A checker for the model called `what` (for messages).
    pub fn new(what: &str) -> Self {
        Checker {
            what: what.to_owned(),
            failures: Vec::new(),
            compared: 0,
            structural_zeros: 0,
        }
    }

    /// Records a failure unless `ok`.
    pub fn expect(&mut self, ok: bool, message: impl FnOnce() -> String) {
        if !ok {
            self.failures.push(message());
        }
    }

    fn close(&mut self, what: &str, kernel: f64, reference: f64, rel: f64, abs: f64) {
        self.compared += 1;
        let ok = kernel.is_finite()
            && reference.is_finite()
            && (kernel - reference).abs() <= rel * kernel.abs().max(reference.abs()) + abs;
        self.expect(ok, || {
            format!(
                "{what}: kernel {kernel:e}, reference {reference:e}, difference {:e}",
                kernel - reference
            )
        });
    }

    /// A value written by a kernel against the reference value.
    pub fn value(&mut self, what: &str, kernel: f64, reference: f64) {
        self.close(what, kernel, reference, VALUE_REL, VALUE_ABS);
    }

    /// A derivative against num-dual, with absolute floor `ABS·scale`.
    pub fn derivative(&mut self, what: &str, kernel: f64, reference: f64, scale: f64) {
        self.close(what, kernel, reference, REL, ABS * scale.max(1.0));
    }

    /// One entry of derivative storage: `zeroed` and `filled` are the entry after the kernel
    /// ran on zeroed and on sentinel-filled storage.
    fn entry(&mut self, what: &str, zeroed: f64, filled: f64, reference: f64) {
        if filled == SENTINEL {
            self.structural_zeros += 1;
            self.expect(zeroed == 0.0 && reference == 0.0, || {
                format!(
                    "{what}: the kernel leaves it as a structural zero, but num-dual gives {reference:e}"
                )
            });
        } else {
            self.expect(filled.to_bits() == zeroed.to_bits(), || {
                format!("{what}: the kernel's value depends on the storage's previous contents ({zeroed:e} vs {filled:e})")
            });
            self.derivative(what, zeroed, reference, 1.0);
        }
    }

    /// Panics with every failure, if any.
    pub fn finish(self) {
        println!(
            "{}: {} entries compared, {} structural zeros verified",
            self.what, self.compared, self.structural_zeros
        );
        if !self.failures.is_empty() {
            let shown = self.failures.len().min(60);
            panic!(
                "{}: {} failed check(s) ({} compared); first {shown}:\n{}",
                self.what,
                self.failures.len(),
                self.compared,
                self.failures[..shown].join("\n")
            );
        }
    }
}

fn vector<const N: usize>(value: f64) -> [f64; N] {
    [value; N]
}

fn matrix<const R: usize, const C: usize>(value: f64) -> [[f64; C]; R] {
    [[value; C]; R]
}

fn mode_jacobian<const NY: usize, const NZ: usize>(value: f64) -> ModeJacobian<NY, NZ> {
    ModeJacobian {
        fy: matrix(value),
        fz: matrix(value),
        gy: matrix(value),
        gz: matrix(value),
    }
}

fn scalar_partials<const NY: usize, const NZ: usize, const NP: usize>(
    value: f64,
) -> ScalarPartials<NY, NZ, NP> {
    ScalarPartials {
        t: value,
        y: vector(value),
        z: vector(value),
        p: vector(value),
        memory_y: vector(value),
        memory_z: vector(value),
    }
}

fn reset_jacobian<const NY: usize, const NZ: usize, const NP: usize>(
    value: f64,
) -> ResetJacobian<NY, NZ, NP> {
    ResetJacobian {
        t: vector(value),
        y: matrix(value),
        z: matrix(value),
        p: matrix(value),
        memory_y: matrix(value),
        memory_z: matrix(value),
    }
}

/// Rows `out_rows` of `d` (indices into the derivative's outputs) against input block `offset`.
#[allow(clippy::too_many_arguments)]
fn matrix_block<const R: usize, const C: usize>(
    ch: &mut Checker,
    what: &str,
    zeroed: &[[f64; C]; R],
    filled: &[[f64; C]; R],
    d: &Derivatives,
    row0: usize,
    offset: usize,
) {
    for i in 0..R {
        for j in 0..C {
            let reference = d.at(row0 + i, offset, j);
            ch.entry(
                &format!("{what}[{i}][{j}]"),
                zeroed[i][j],
                filled[i][j],
                reference,
            );
        }
    }
}

/// One scalar's partials against num-dual.
fn partials_block<const NY: usize, const NZ: usize, const NP: usize>(
    ch: &mut Checker,
    what: &str,
    zeroed: &ScalarPartials<NY, NZ, NP>,
    filled: &ScalarPartials<NY, NZ, NP>,
    d: &Derivatives,
) {
    let l = Layout {
        ny: NY,
        nz: NZ,
        np: NP,
    };
    ch.entry(
        &format!("{what}.t"),
        zeroed.t,
        filled.t,
        d.at(0, Layout::T, 0),
    );
    let blocks: [(&str, &[f64], &[f64], usize); 5] = [
        ("y", &zeroed.y, &filled.y, l.y()),
        ("z", &zeroed.z, &filled.z, l.z()),
        ("p", &zeroed.p, &filled.p, l.p()),
        ("memory_y", &zeroed.memory_y, &filled.memory_y, l.ys()),
        ("memory_z", &zeroed.memory_z, &filled.memory_z, l.zs()),
    ];
    for (name, z, f, offset) in blocks {
        for j in 0..z.len() {
            ch.entry(
                &format!("{what}.{name}[{j}]"),
                z[j],
                f[j],
                d.at(0, offset, j),
            );
        }
    }
}

/// Calls a partials kernel on zeroed and on sentinel-filled storage.
fn partials_twice<const NY: usize, const NZ: usize, const NP: usize>(
    kernel: impl Fn(&mut ScalarPartials<NY, NZ, NP>),
) -> (ScalarPartials<NY, NZ, NP>, ScalarPartials<NY, NZ, NP>) {
    let mut zeroed = ScalarPartials::ZERO;
    kernel(&mut zeroed);
    let mut filled = scalar_partials(SENTINEL);
    kernel(&mut filled);
    (zeroed, filled)
}

/// Checks every kernel of `model` against `reference` at every point of `points`, and each
/// mode's `uses_memory` flag against whether the reference reads `(y*, z*)`; panics with every
/// failure found.
pub fn check_model<M, R, const NY: usize, const NZ: usize, const NP: usize>(
    what: &str,
    model: &M,
    reference: &R,
    points: &[TestPoint<NY, NZ, NP>],
) where
    M: AdjointProducts<NY, NZ, NP> + HybridModel<NY, NZ, NP, Store = Inline>,
    R: Reference<NY, NZ, NP>,
{
    let mut ch = Checker::new(what);
    let l = Layout {
        ny: NY,
        nz: NZ,
        np: NP,
    };
    let guards = M::GUARDS.len();
    let mut memory_read = vec![false; M::MODES.len()];
    for (k, point) in points.iter().enumerate() {
        let at = point.at();
        let x = plain(point);
        for (m, read) in memory_read.iter_mut().enumerate() {
            let w = format!("point {k}, mode {m} ({})", M::MODES[m].name);
            // Values of f and g, written in full.
            let (mut f0, mut g0) = ([0.0; NY], [0.0; NZ]);
            model.residual(m, &at, &mut f0, &mut g0);
            let (mut f1, mut g1) = (vector::<NY>(SENTINEL), vector::<NZ>(SENTINEL));
            model.residual(m, &at, &mut f1, &mut g1);
            let (fr, gr) = (reference.f(m, &x), reference.g(m, &x));
            for i in 0..NY {
                ch.expect(f1[i] == f0[i], || {
                    format!("{w}: residual f[{i}] not written")
                });
                ch.value(&format!("{w}: f[{i}]"), f0[i], fr[i]);
            }
            for i in 0..NZ {
                ch.expect(g1[i] == g0[i], || {
                    format!("{w}: residual g[{i}] not written")
                });
                ch.value(&format!("{w}: g[{i}]"), g0[i], gr[i]);
            }

            // All derivatives of (f, g): rows 0..NY are f, NY..NY+NZ are g.
            let d = Derivatives::of(point, |v| {
                let mut out: Vec<Dual64> = reference.f(m, v).to_vec();
                out.extend(reference.g(m, v));
                out
            });
            for (i, value) in d.value.iter().enumerate() {
                ch.value(
                    &format!("{w}: dual re of row {i}"),
                    *value,
                    if i < NY { fr[i] } else { gr[i - NY] },
                );
            }

            let mut j0 = ModeJacobian::ZERO;
            model.jacobian(m, &at, &mut j0);
            let mut j1 = mode_jacobian(SENTINEL);
            model.jacobian(m, &at, &mut j1);
            matrix_block(&mut ch, &format!("{w}: f_y"), &j0.fy, &j1.fy, &d, 0, l.y());
            matrix_block(&mut ch, &format!("{w}: f_z"), &j0.fz, &j1.fz, &d, 0, l.z());
            matrix_block(&mut ch, &format!("{w}: g_y"), &j0.gy, &j1.gy, &d, NY, l.y());
            matrix_block(&mut ch, &format!("{w}: g_z"), &j0.gz, &j1.gz, &d, NY, l.z());

            let mut j0 = ModeJacobian::ZERO;
            model.memory_jacobian(m, &at, &mut j0);
            let mut j1 = mode_jacobian(SENTINEL);
            model.memory_jacobian(m, &at, &mut j1);
            matrix_block(
                &mut ch,
                &format!("{w}: f_y*"),
                &j0.fy,
                &j1.fy,
                &d,
                0,
                l.ys(),
            );
            matrix_block(
                &mut ch,
                &format!("{w}: f_z*"),
                &j0.fz,
                &j1.fz,
                &d,
                0,
                l.zs(),
            );
            matrix_block(
                &mut ch,
                &format!("{w}: g_y*"),
                &j0.gy,
                &j1.gy,
                &d,
                NY,
                l.ys(),
            );
            matrix_block(
                &mut ch,
                &format!("{w}: g_z*"),
                &j0.gz,
                &j1.gz,
                &d,
                NY,
                l.zs(),
            );
            *read |= (l.ys()..l.len()).any(|k| d.d[k].iter().any(|&e| e != 0.0));

            let (mut fp0, mut gp0) = (matrix::<NY, NP>(0.0), matrix::<NZ, NP>(0.0));
            model.parameter_jacobian(m, &at, &mut fp0, &mut gp0);
            let (mut fp1, mut gp1) = (matrix::<NY, NP>(SENTINEL), matrix::<NZ, NP>(SENTINEL));
            model.parameter_jacobian(m, &at, &mut fp1, &mut gp1);
            matrix_block(&mut ch, &format!("{w}: f_p"), &fp0, &fp1, &d, 0, l.p());
            matrix_block(&mut ch, &format!("{w}: g_p"), &gp0, &gp1, &d, NY, l.p());

            let (mut ft0, mut gt0) = ([0.0; NY], [0.0; NZ]);
            model.time_partials(m, &at, &mut ft0, &mut gt0);
            let (mut ft1, mut gt1) = (vector::<NY>(SENTINEL), vector::<NZ>(SENTINEL));
            model.time_partials(m, &at, &mut ft1, &mut gt1);
            for i in 0..NY {
                ch.entry(
                    &format!("{w}: f_t[{i}]"),
                    ft0[i],
                    ft1[i],
                    d.at(i, Layout::T, 0),
                );
            }
            for i in 0..NZ {
                ch.entry(
                    &format!("{w}: g_t[{i}]"),
                    gt0[i],
                    gt1[i],
                    d.at(NY + i, Layout::T, 0),
                );
            }

            // Adjoint products, written in full, against products of the num-dual Jacobians.
            let (mut oy0, mut oz0, mut op0) = ([0.0; NY], [0.0; NZ], [0.0; NP]);
            model.adjoint_products(
                m,
                &at,
                &point.lambda,
                &point.mu,
                &mut oy0,
                &mut oz0,
                &mut op0,
            );
            let (mut oy1, mut oz1, mut op1) = (
                vector::<NY>(SENTINEL),
                vector::<NZ>(SENTINEL),
                vector::<NP>(SENTINEL),
            );
            model.adjoint_products(
                m,
                &at,
                &point.lambda,
                &point.mu,
                &mut oy1,
                &mut oz1,
                &mut op1,
            );
            let weights: Vec<f64> = point.lambda.iter().chain(&point.mu).copied().collect();
            let blocks: [(&str, &[f64], &[f64], usize); 3] = [
                ("λᵀf_y + μᵀg_y", &oy0, &oy1, l.y()),
                ("λᵀf_z + μᵀg_z", &oz0, &oz1, l.z()),
                ("λᵀf_p + μᵀg_p", &op0, &op1, l.p()),
            ];
            for (name, zeroed, filled, offset) in blocks {
                for j in 0..zeroed.len() {
                    let terms: Vec<f64> = weights
                        .iter()
                        .enumerate()
                        .map(|(i, wi)| wi * d.at(i, offset, j))
                        .collect();
                    let reference: f64 = terms.iter().sum();
                    let scale: f64 = terms.iter().map(|t| t.abs()).sum();
                    ch.expect(filled[j] == zeroed[j], || {
                        format!("{w}: adjoint product {name}[{j}] not written")
                    });
                    ch.derivative(&format!("{w}: {name}[{j}]"), zeroed[j], reference, scale);
                }
            }

            // The integral cost of this mode.
            let cost = reference.integral_cost(m, &x).unwrap_or(0.0);
            ch.value(
                &format!("{w}: integral cost"),
                model.integral_cost(m, &at),
                cost,
            );
            let d = Derivatives::of(point, |v| {
                vec![reference.integral_cost(m, v).unwrap_or(c(0.0))]
            });
            let (z0, z1) = partials_twice(|s| model.integral_cost_partials(m, &at, s));
            partials_block(&mut ch, &format!("{w}: integral cost ∂"), &z0, &z1, &d);
        }

        // Guards and their resets.
        for g in 0..guards {
            let info = M::GUARDS[g];
            let w = format!("point {k}, guard {g} ({})", info.name);
            ch.value(
                &format!("{w}: h"),
                model.guard(g, &at),
                reference.guard(g, &x),
            );
            let d = Derivatives::of(point, |v| vec![reference.guard(g, v)]);
            let (z0, z1) = partials_twice(|s| model.guard_partials(g, &at, s));
            partials_block(&mut ch, &format!("{w}: ∂h"), &z0, &z1, &d);

            // The reset (identity for continuity), written in full.
            let identity = |v: &Vars<Dual64, NY, NZ, NP>| v.y;
            ch.expect(info.has_reset == reference.reset(g, &x).is_some(), || {
                format!("{w}: GUARDS[{g}].has_reset = {}", info.has_reset)
            });
            let rr = reference.reset(g, &x).unwrap_or(x.y);
            let mut y0 = [0.0; NY];
            model.reset(g, &at, &mut y0);
            let mut y1 = vector::<NY>(SENTINEL);
            model.reset(g, &at, &mut y1);
            for i in 0..NY {
                ch.expect(y1[i] == y0[i], || format!("{w}: reset y⁺[{i}] not written"));
                ch.value(&format!("{w}: y⁺[{i}]"), y0[i], rr[i]);
            }
            let d = Derivatives::of(point, |v| {
                reference
                    .reset(g, v)
                    .unwrap_or_else(|| identity(v))
                    .to_vec()
            });
            let mut r0 = ResetJacobian::ZERO;
            model.reset_jacobian(g, &at, &mut r0);
            let mut r1 = reset_jacobian(SENTINEL);
            model.reset_jacobian(g, &at, &mut r1);
            for i in 0..NY {
                ch.entry(
                    &format!("{w}: R_t[{i}]"),
                    r0.t[i],
                    r1.t[i],
                    d.at(i, Layout::T, 0),
                );
            }
            matrix_block(&mut ch, &format!("{w}: R_y"), &r0.y, &r1.y, &d, 0, l.y());
            matrix_block(&mut ch, &format!("{w}: R_z"), &r0.z, &r1.z, &d, 0, l.z());
            matrix_block(&mut ch, &format!("{w}: R_p"), &r0.p, &r1.p, &d, 0, l.p());
            matrix_block(
                &mut ch,
                &format!("{w}: R_y*"),
                &r0.memory_y,
                &r1.memory_y,
                &d,
                0,
                l.ys(),
            );
            matrix_block(
                &mut ch,
                &format!("{w}: R_z*"),
                &r0.memory_z,
                &r1.memory_z,
                &d,
                0,
                l.zs(),
            );
        }

        // Terminal and sampled costs.
        let w = format!("point {k}");
        let phi = reference.terminal_cost(&x).unwrap_or(0.0);
        ch.value(
            &format!("{w}: terminal cost"),
            model.terminal_cost(&at),
            phi,
        );
        let d = Derivatives::of(point, |v| {
            vec![reference.terminal_cost(v).unwrap_or(c(0.0))]
        });
        let (z0, z1) = partials_twice(|s| model.terminal_cost_partials(&at, s));
        partials_block(&mut ch, &format!("{w}: terminal cost ∂"), &z0, &z1, &d);

        let datum = point.datum;
        let ell = reference.sampled_cost(&x, datum).unwrap_or(0.0);
        ch.value(
            &format!("{w}: sampled cost"),
            model.sampled_cost(&at, datum),
            ell,
        );
        let d = Derivatives::of(point, |v| {
            vec![reference
                .sampled_cost(v, Dual64::from(datum))
                .unwrap_or(c(0.0))]
        });
        let (z0, z1) = partials_twice(|s| model.sampled_cost_partials(&at, datum, s));
        partials_block(&mut ch, &format!("{w}: sampled cost ∂"), &z0, &z1, &d);
    }
    for (m, info) in M::MODES.iter().enumerate() {
        ch.expect(info.uses_memory == memory_read[m], || {
            format!(
                "mode {m} ({}): MODES[{m}].uses_memory = {}, but the reference {} memory",
                info.name,
                info.uses_memory,
                if memory_read[m] {
                    "reads"
                } else {
                    "does not read"
                }
            )
        });
    }
    ch.finish();
}
