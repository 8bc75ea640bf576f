//! How much stack a solve needs ([`stack_estimate`]), and (feature `std`) running the builder's
//! solves on a stack that large ([`on_stack`]).
//!
//! The runtime keeps every array on the stack, sized by the model: the integrator
//! ([`Esdirk`]) holds the stages, the `N × N` iteration matrix and its LU factors, and with
//! `K` sensitivity columns the `S` stage sensitivities (`S × NY × K`) and the step derivative
//! (`N × K` blocks); the driver, the event location, the jump and the adjoint pass keep copies
//! and temporaries of the same shapes. So a solve needs a multiple of the integrator's size,
//! which grows like `NY · (S·K + N)`: a few hundred KiB for ten states, tens of MiB for a
//! hundred states with sensitivities to two hundred directions in a debug build.
//!
//! [`stack_estimate`] has the measurements behind its margin.

use core::marker::PhantomData;
use core::mem::size_of;

use crate::fsa::Esdirk;
use crate::model::{Inline, MatrixStore, ModeJacobian, SmoothMode};

/// The estimate's multiple of the integrator's size (see [`stack_estimate`]):
/// 24 in a debug build (measured at most 15.0), 8 in a release build (measured at most 5.3).
const FACTOR: usize = if cfg!(debug_assertions) { 24 } else { 8 };

/// The estimate's constant: the frames that do not grow with the model (a 3-state model
/// measured at most 72 KiB in a debug build, 17 KiB in a release build).
const BASE: usize = if cfg!(debug_assertions) {
    256 << 10
} else {
    64 << 10
};

/// Bytes of stack a solve of a model with `NY` differential states and `NZ` algebraic
/// variables (`N = NY + NZ`), an `S`-stage tableau and `K` sensitivity columns needs, with
/// a safety margin: an upper estimate of what [`crate::solve`], [`crate::solve_adjoint`] and
/// [`crate::adjoint_tape_length`] use below their own frame (their arguments, the problem,
/// the outputs and the solution, are the caller's).
///
/// `K` is the number of sensitivity columns in the problem's type — the model's `NP` for the
/// core calls (with or without sensitivities: the storage is the same) and for the adjoint,
/// `NS = NP + NY` for [`crate::Solver::solve_into`]. `#[hybrid_model]` models have it as
/// constants: `Model::STACK_ESTIMATE` (the core calls with the default tableau) and
/// [`crate::Solver::STACK_ESTIMATE`] (the builder's `solve_into`).
///
/// The builder's owned results ([`crate::Solver::solve`], [`crate::Solver::gradient`], with
/// feature `std`) and the facade's batches use it themselves: they run on a larger stack
/// segment when the thread has less left. The no-heap calls (`no_std`) never do; to run one
/// on a thread of its own, size the thread with it:
///
/// ```
/// use hysens_runtime::{stack_estimate, ESDIRK436L2SA};
///
/// // A 101-state ODE with 100 parameters (N = NY + NZ = 101) and ESDIRK4(3)6L[2]SA.
/// const STACK: usize = stack_estimate::<6, 101, 0, 100, 101>();
/// assert!(STACK > 2 << 20); // more than a spawned thread's default 2 MiB
/// let handle = std::thread::Builder::new()
///     .stack_size(STACK + (64 << 10)) // and the caller's own frames
///     .spawn(|| { /* the solve */ })
///     .unwrap();
/// handle.join().unwrap();
/// ```
///
/// Add the frames of the code around the call (in a debug build, every local of a function
/// has its own slot, so a `HybridSolution` or `HybridOptions` held there counts).
///
/// # Measurements and margin
///
/// Measured (`examples/stack_probe.rs`: the smallest stack of a spawned thread on which a
/// solve completes, bisected to 2 %, each trial in a child process) on the reaction chains of
/// 3, 11, 31 and 101 states (`benches/models/`), for a plain solve, forward sensitivities to
/// all parameters and initial states (`K = NP + NY`), FSA to the parameters (`K = NP`) and the
/// adjoint gradient (the integrator with `K = NP`), x86-64 Linux, Rust 1.95: the need over
/// `size_of` of the integrator with the solve's `K` columns was at most
///
/// | build | need / `size_of::<Esdirk>()` (11–101 states) | need of 3 states |
/// |---|---|---|
/// | debug (`opt-level = 0`) | 12.0 – 15.0 | ≤ 72 KiB |
/// | release | 3.8 – 5.3 | ≤ 17 KiB (the smallest thread tried) |
///
/// The estimate is a multiple of that size plus a constant: 24× and 256 KiB in a debug
/// build, 8× and 64 KiB in a release build (chosen by `cfg!(debug_assertions)` of this
/// crate, whose frames are most of the need) — 1.54 to 6.9 times every measured need. The
/// margin covers what the measurements did not vary: other tableaus, algebraic variables,
/// models whose generated kernels keep many temporaries (a dense Jacobian in a debug build),
/// other compiler versions and targets. What an overestimate costs: the builder grows the
/// stack when the thread has less left than the estimate, also where the need would have
/// fitted, and a new segment is mapped, not committed, but its pages are faulted in as the
/// solve touches them (about 1.5 µs per 4 KiB).
pub const fn stack_estimate<
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const K: usize,
    const N: usize,
>() -> usize {
    stack_estimate_in::<Inline, S, NY, NZ, K, N>()
}

/// [`stack_estimate`] for a model whose matrices are kept in `St` ([`crate::HybridModel::Store`]):
/// with [`crate::Heap`] the integrator holds pointers instead of its `N × N` matrices, and
/// the estimate shrinks with it.
///
/// The multiple was measured with [`crate::Inline`] storage, where the `N × N` matrices and
/// their copies dominate the frames; with [`crate::Heap`] it is conservative: the 1,000-state
/// rod of `tests/thousand_states.rs` (ten parameters) has an estimate of 11 MB in a release build
/// and solves with forward sensitivities and the adjoint on an 8 MiB thread.
pub const fn stack_estimate_in<
    St: MatrixStore,
    const S: usize,
    const NY: usize,
    const NZ: usize,
    const K: usize,
    const N: usize,
>() -> usize {
    const { assert!(N == NY + NZ, "stack_estimate needs N = NY + NZ") };
    FACTOR
        .saturating_mul(size_of::<Esdirk<'static, SizeOnly<St>, S, NY, NZ, K, N>>())
        .saturating_add(BASE)
}

/// A mode with no equations, only a storage: what [`stack_estimate_in`] measures the
/// integrator's size with (its kernels are never called).
struct SizeOnly<St>(PhantomData<St>);

impl<St: MatrixStore, const NY: usize, const NZ: usize, const NP: usize> SmoothMode<NY, NZ, NP>
    for SizeOnly<St>
{
    type Store = St;
    fn f(&self, _: f64, _: &[f64; NY], _: &[f64; NZ], _: &[f64; NP], _: &mut [f64; NY]) {}
    fn g(&self, _: f64, _: &[f64; NY], _: &[f64; NZ], _: &[f64; NP], _: &mut [f64; NZ]) {}
    fn jacobian(
        &self,
        _: f64,
        _: &[f64; NY],
        _: &[f64; NZ],
        _: &[f64; NP],
        _: &mut ModeJacobian<NY, NZ, St>,
    ) {
    }
    fn parameter_jacobian(
        &self,
        _: f64,
        _: &[f64; NY],
        _: &[f64; NZ],
        _: &[f64; NP],
        _: &mut [[f64; NP]; NY],
        _: &mut [[f64; NP]; NZ],
    ) {
    }
}

/// Runs `f` with at least `need` bytes of stack (feature `std`): on the thread's own stack
/// when that much is left (a comparison of the stack pointer with the thread's limit), else
/// on a new segment of `need` bytes, mapped for the call and unmapped after it (`stacker`, as
/// rustc does for its deep recursions). A panic in `f` unwinds to the caller as usual.
///
/// Built with `RUSTFLAGS="--cfg hysens_no_stack_growth"` it calls `f` on the current stack,
/// whatever is left: for measuring what the builder's solves need (`examples/stack_probe.rs`).
#[cfg(feature = "std")]
#[inline(always)]
pub(crate) fn on_stack<R>(need: usize, f: impl FnOnce() -> R) -> R {
    #[cfg(not(hysens_no_stack_growth))]
    return stacker::maybe_grow(need, need, f);
    #[cfg(hysens_no_stack_growth)]
    {
        let _ = need;
        f()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The estimate grows with the model and covers the 3-state need in any build.
    #[test]
    fn grows_with_the_sizes() {
        let small = stack_estimate::<6, 1, 0, 1, 1>();
        let fsa = stack_estimate::<6, 101, 0, 201, 101>();
        let plain = stack_estimate::<6, 101, 0, 100, 101>();
        let measured = if cfg!(debug_assertions) { 72 } else { 17 } << 10;
        assert!(small >= measured && small < 1 << 20, "{small}");
        assert!(fsa > plain && plain > 8 << 20, "{plain} {fsa}");
        assert_eq!(stack_estimate::<4, 2, 1, 3, 3>() % 8, 0);
    }
}
