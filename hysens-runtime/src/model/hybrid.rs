//! The interface between a hybrid model and the runtime: what `#[hybrid_model]` implements.
//!
//! A hybrid model (Serban & Recuero 2019, §2 and §4) has
//!
//! - differential states `y ∈ R^NY`, algebraic variables `z ∈ R^NZ`, parameters `p ∈ R^NP`
//!   (inputs held constant over a solve are appended to `p`, so they get sensitivities too);
//! - modes, each a semi-explicit index-1 DAE `y' = f(t, y, z, p, m)`, `0 = g(t, y, z, p, m)`
//!   with `g_z` nonsingular (an ODE mode when `NZ = 0`), where `m = (y*, z*)` is the *memory*:
//!   the state right after the last mode entry (Serban & Recuero Eq. 22; the start of the solve
//!   counts as an entry, so memory is `(y0, z0)` in the first mode: the paper leaves the first
//!   mode's memory open, and this choice reproduces its Ex. 5.2);
//! - guards `h(t, y, z, p, m)` that switch from one mode to another when they cross zero in their
//!   declared direction, each with a reset `y⁺ = R(t, y⁻, z⁻, p, m)` (continuity by default);
//! - costs, each named ([`HybridModel::COSTS`]; `costs.rs`) and by default summed into one
//!   objective: integral `∫ L dt`, terminal `φ(t_f, y, z, p)`, and sampled
//!   `Σ_k ℓ(t_k, y, z, p, d_k)` against data `d_k`.
//!
//! Every kernel takes the evaluation point as one [`Point`] and writes into caller-provided
//! fixed-size storage; nothing allocates. Derivative storage is zeroed by the caller, so an
//! implementation writes only its structural nonzeros. Kernels never panic: a mode or guard
//! index out of range writes nothing (the runtime only passes indices from the model's own
//! tables).

use super::costs::CostInfo;
use core::borrow::{Borrow, BorrowMut};

use super::ModeJacobian;
use crate::linalg::{Inline, MatrixStore};

/// Where a kernel is evaluated: time, state, parameters and memory.
#[derive(Clone, Copy, Debug)]
pub struct Point<'a, const NY: usize, const NZ: usize, const NP: usize> {
    /// Time `t`.
    pub t: f64,
    /// Differential states `y`.
    pub y: &'a [f64; NY],
    /// Algebraic variables `z`.
    pub z: &'a [f64; NZ],
    /// Parameters `p` (inputs appended).
    pub p: &'a [f64; NP],
    /// Memory: the state right after the last mode entry.
    pub memory: &'a Memory<NY, NZ>,
}

/// The state at the last mode entry, `(y*, z*)` (Serban & Recuero 2019, §4).
///
/// `y* = y⁺` is the differential state right after the entry (after the reset). `z*` is the
/// algebraic state captured from the *left*, `z⁻` at the switch: it equals `z⁺` whenever `z` is
/// continuous, and it is the only well-posed choice when the new mode's constraint reads `z*`
/// (with `z* = z⁺` the constraint of Serban & Recuero's Ex. 5.2 is an identity at `t⁺`). In the
/// first mode the memory is `(y0, z0)` with the caller's `z0` (see `HybridProblem::z0`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Memory<const NY: usize, const NZ: usize> {
    /// `y*`
    pub y: [f64; NY],
    /// `z*`
    pub z: [f64; NZ],
}

impl<const NY: usize, const NZ: usize> Memory<NY, NZ> {
    /// All zero.
    pub const ZERO: Self = Memory {
        y: [0.0; NY],
        z: [0.0; NZ],
    };
}

/// All first partial derivatives of a scalar function `s(t, y, z, p, y*, z*)` (a guard or a
/// cost), zeroed by the caller.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScalarPartials<const NY: usize, const NZ: usize, const NP: usize> {
    /// `∂s/∂t`
    pub t: f64,
    /// `∂s/∂y`
    pub y: [f64; NY],
    /// `∂s/∂z`
    pub z: [f64; NZ],
    /// `∂s/∂p`
    pub p: [f64; NP],
    /// `∂s/∂y*`
    pub memory_y: [f64; NY],
    /// `∂s/∂z*`
    pub memory_z: [f64; NZ],
}

impl<const NY: usize, const NZ: usize, const NP: usize> ScalarPartials<NY, NZ, NP> {
    /// All zero.
    pub const ZERO: Self = ScalarPartials {
        t: 0.0,
        y: [0.0; NY],
        z: [0.0; NZ],
        p: [0.0; NP],
        memory_y: [0.0; NY],
        memory_z: [0.0; NZ],
    };

    /// The function's rate as time advances with `(ẏ, ż)` and the parameters and memory stay:
    /// `s_t + s_y·ẏ + s_z·ż` (a guard's `ḣ`, Serban & Recuero 2019, Eq. 4).
    pub fn rate(&self, ydot: &[f64; NY], zdot: &[f64; NZ]) -> f64 {
        let terms = self.y.iter().zip(ydot).chain(self.z.iter().zip(zdot));
        terms.fold(self.t, |rate, (s, v)| rate + s * v)
    }
}

/// Partial derivatives of a reset `y⁺ = R(t, y⁻, z⁻, p, y*, z*)`, zeroed by the caller.
/// Row index = component of `y⁺`. The initial-state map `y0 = I(t0, x, p)` has its partials in
/// the same form ([`HybridModel::initial_state_jacobian`]). `S` keeps the two `NY × NY`
/// blocks ([`Inline`]: in place, `[[f64; NY]; NY]`).
#[derive(Clone, Debug, PartialEq)]
pub struct ResetJacobian<const NY: usize, const NZ: usize, const NP: usize, S: MatrixStore = Inline>
{
    /// `∂R/∂t`
    pub t: [f64; NY],
    /// `∂R/∂y⁻` (an `[[f64; NY]; NY]`, or its box for [`crate::Heap`])
    pub y: S::Matrix<NY, NY>,
    /// `∂R/∂z⁻`
    pub z: [[f64; NZ]; NY],
    /// `∂R/∂p`
    pub p: [[f64; NP]; NY],
    /// `∂R/∂y*` (as `y`)
    pub memory_y: S::Matrix<NY, NY>,
    /// `∂R/∂z*`
    pub memory_z: [[f64; NZ]; NY],
}

#[allow(clippy::needless_range_loop)] // index loops over const sizes mirror the formulas
impl<const NY: usize, const NZ: usize, const NP: usize> ResetJacobian<NY, NZ, NP> {
    /// All zero.
    pub const ZERO: Self = ResetJacobian {
        t: [0.0; NY],
        y: [[0.0; NY]; NY],
        z: [[0.0; NZ]; NY],
        p: [[0.0; NP]; NY],
        memory_y: [[0.0; NY]; NY],
        memory_z: [[0.0; NZ]; NY],
    };
}

#[allow(clippy::needless_range_loop)] // index loops over const sizes mirror the formulas
impl<const NY: usize, const NZ: usize, const NP: usize, S: MatrixStore>
    ResetJacobian<NY, NZ, NP, S>
{
    /// All zero, the `NY × NY` blocks in the storage `S`.
    pub fn zeroed() -> Self {
        ResetJacobian {
            t: [0.0; NY],
            y: S::zero_matrix(),
            z: [[0.0; NZ]; NY],
            p: [[0.0; NP]; NY],
            memory_y: S::zero_matrix(),
            memory_z: [[0.0; NZ]; NY],
        }
    }

    /// `∂R/∂y⁻` and `∂R/∂y*`.
    #[inline(always)]
    fn y_blocks(&self) -> (&[[f64; NY]; NY], &[[f64; NY]; NY]) {
        (self.y.borrow(), self.memory_y.borrow())
    }

    /// `R_y S_y + R_z S_z + R_p + R_t τ + R_{y*} S*_y + R_{z*} S*_z`, row by row (each
    /// entry from `R_p + R_t τ`, then its `y` and memory-`y` terms, then its `z` and
    /// memory-`z` terms): the map's derivative applied to the `NP` sensitivity columns
    /// `(S_y, S_z, τ)` and the memory's `(S*_y, S*_z)`. With a storage that uses sparsity
    /// ([`MatrixStore::DECLARED_PATTERN`]) the terms of columns where both `R_y` and `R_{y*}`
    /// are zero are skipped (the reset has no declared pattern; its zeros are read): `O(N²)`
    /// reads and `O(nnz NP)` products instead of `O(N² NP)` products (a reset of the 1,000-state
    /// rod: 40% of a solve with 10 sensitivities, before).
    pub(crate) fn sensitivity_columns(
        &self,
        sy: &[[f64; NP]; NY],
        sz: &[[f64; NP]; NZ],
        tau: &[f64; NP],
        memory: (&[[f64; NP]; NY], &[[f64; NP]; NZ]),
    ) -> [[f64; NP]; NY] {
        let (memory_sy, memory_sz) = memory;
        let (ry, rmy) = self.y_blocks();
        let mut out = [[0.0; NP]; NY];
        for r in 0..NY {
            let v = &mut out[r];
            for q in 0..NP {
                v[q] = self.p[r][q] + self.t[r] * tau[q];
            }
            for c in 0..NY {
                let (a, b) = (ry[r][c], rmy[r][c]);
                if S::DECLARED_PATTERN && a == 0.0 && b == 0.0 {
                    continue;
                }
                for q in 0..NP {
                    v[q] += a * sy[c][q] + b * memory_sy[c][q];
                }
            }
            for c in 0..NZ {
                let (a, b) = (self.z[r][c], self.memory_z[r][c]);
                for q in 0..NP {
                    v[q] += a * sz[c][q] + b * memory_sz[c][q];
                }
            }
        }
        out
    }

    /// The transpose of [`ResetJacobian::sensitivity_columns`] for one adjoint row `σ`: adds
    /// `R_tᵀ σ`, `R_yᵀ σ`, `R_zᵀ σ`, `R_{y*}ᵀ σ`, `R_{z*}ᵀ σ`, `R_pᵀ σ` into `out`, row by row of
    /// `R` (for each row `r`, `τ̄`, its `y` columns, its `z` columns, then `p̄`).
    pub(crate) fn add_transposed_times(
        &self,
        sigma: &[f64; NY],
        out: ResetAdjointTerms<'_, NY, NZ, NP>,
    ) {
        let (ry, rmy) = self.y_blocks();
        for r in 0..NY {
            let v = sigma[r];
            *out.tau += self.t[r] * v;
            for c in 0..NY {
                out.y[c] += ry[r][c] * v;
                out.memory_y[c] += rmy[r][c] * v;
            }
            for c in 0..NZ {
                out.z[c] += self.z[r][c] * v;
                out.memory_z[c] += self.memory_z[r][c] * v;
            }
            for q in 0..NP {
                out.p[q] += self.p[r][q] * v;
            }
        }
    }

    /// `out += I_x S` for the initial-state map's partials `I_x = R_y` and the `NP` columns `S`
    /// (each entry summed over `k` in order onto its value in `out`).
    pub(crate) fn add_y_times_columns(&self, s: &[[f64; NP]; NY], out: &mut [[f64; NP]; NY]) {
        let (ry, _) = self.y_blocks();
        for r in 0..NY {
            for k in 0..NY {
                for j in 0..NP {
                    out[r][j] += ry[r][k] * s[k][j];
                }
            }
        }
    }

    /// The transpose of [`ResetJacobian::add_y_times_columns`] and of `R_p`'s columns for one
    /// adjoint row `λ`: `out_y += R_yᵀ λ`, `out_p += R_pᵀ λ`, row by row of `R`.
    pub(crate) fn add_y_p_transposed_times(
        &self,
        lambda: &[f64; NY],
        out_y: &mut [f64; NY],
        out_p: &mut [f64; NP],
    ) {
        let (ry, _) = self.y_blocks();
        for r in 0..NY {
            for k in 0..NY {
                out_y[k] += ry[r][k] * lambda[r];
            }
            for j in 0..NP {
                out_p[j] += self.p[r][j] * lambda[r];
            }
        }
    }

    /// How `y⁺` moves as time advances with `(ẏ, ż)` and the parameters and memory stay:
    /// `R_t + R_y ẏ + R_z ż` (the reset's rate along the flow before the event).
    pub(crate) fn rate(&self, ydot: &[f64; NY], zdot: &[f64; NZ]) -> [f64; NY] {
        let (ry, _) = self.y_blocks();
        let mut rate = self.t;
        for (r, out) in rate.iter_mut().enumerate() {
            for (a, v) in ry[r].iter().zip(ydot) {
                *out += a * v;
            }
            for (a, v) in self.z[r].iter().zip(zdot) {
                *out += a * v;
            }
        }
        rate
    }
}

/// Where [`ResetJacobian::add_transposed_times`] adds its terms: the adjoints of `τ`, of the
/// states `(y⁻, z⁻)` before the reset, of the memory `(y*, z*)` and of the parameters.
pub(crate) struct ResetAdjointTerms<'a, const NY: usize, const NZ: usize, const NP: usize> {
    /// `τ̄`.
    pub tau: &'a mut f64,
    /// `s̄⁻`.
    pub y: &'a mut [f64; NY],
    /// `w̄⁻`.
    pub z: &'a mut [f64; NZ],
    /// `s̄*`.
    pub memory_y: &'a mut [f64; NY],
    /// `w̄*`.
    pub memory_z: &'a mut [f64; NZ],
    /// `p̄`.
    pub p: &'a mut [f64; NP],
}

/// The direction of a zero crossing that fires a guard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// `h` goes from negative to positive.
    Rising,
    /// `h` goes from positive to negative.
    Falling,
    /// Either way.
    Either,
}

/// A mode, as the runtime needs to know it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModeInfo {
    /// The mode's name in the model (for error messages and the event log).
    pub name: &'static str,
    /// Whether its equations read the memory `(y*, z*)`.
    pub uses_memory: bool,
    /// Whether its Jacobian `∂(f, g)/∂(y, z)` is the same at every `(t, y, z)` (it may depend on
    /// the parameters and the memory): the mode is affine in `(y, z)` with coefficients independent
    /// of `t`. The macro proves it symbolically; see
    /// [`crate::smooth::SmoothMode::jacobian_is_constant`] for what the runtime does with it (a
    /// `true` for a mode that is not makes the results wrong).
    pub constant_jacobian: bool,
    /// Whether entering it ends the solve: the mode a terminal guard switches to
    /// (`#[guard(from -> stop, ..)]`). The solve stops at the event time `t*` with the state
    /// after the event (its reset, if any); nothing is integrated in the mode, so its equations
    /// serve only the consistent algebraic state at the entry (the macro gives it `f = 0` and
    /// the source mode's `g`). The final time is `t*(p)`: the state's sensitivities there
    /// are total derivatives (`s⁺`, which carries `τ` through the step to the event), and the
    /// terminal cost adds `φ_t τ`.
    pub terminal: bool,
    /// Whether it is a Hessenberg index-2 mode (Serban & Recuero 2019, §3.3, Eq. 15): its
    /// algebraic equations `0 = k(t, y, p)` do not read `z`, and `z` is defined by the hidden
    /// constraint `k_y f + k_t = 0` ([`HybridModel::hidden_constraint`]), solvable when
    /// `k_y f_z` is nonsingular.
    pub index2: bool,
}

/// The partials of a mode's condition on `z` (its `g` in an index-1 mode, the hidden constraint
/// in an index-2 mode): `c_y` (`NZ × NY`), `c_z` (`NZ × NZ`), `c_p` (`NZ × NP`) and `c_t`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConditionPartials<const NY: usize, const NZ: usize, const NP: usize> {
    /// `∂c/∂y`.
    pub cy: [[f64; NY]; NZ],
    /// `∂c/∂z`.
    pub cz: [[f64; NZ]; NZ],
    /// `∂c/∂p` (with the memory's terms in a mode that reads it).
    pub cp: [[f64; NP]; NZ],
    /// `∂c/∂t`.
    pub ct: [f64; NZ],
}

impl<const NY: usize, const NZ: usize, const NP: usize> ConditionPartials<NY, NZ, NP> {
    /// All zero.
    pub const ZERO: Self = ConditionPartials {
        cy: [[0.0; NY]; NZ],
        cz: [[0.0; NZ]; NZ],
        cp: [[0.0; NP]; NZ],
        ct: [0.0; NZ],
    };
}

/// Whether entering `mode` of `M` ends the solve ([`ModeInfo::terminal`]); `false` for an index
/// out of range.
pub(crate) fn ends_solve<M, const NY: usize, const NZ: usize, const NP: usize>(mode: usize) -> bool
where
    M: HybridModel<NY, NZ, NP> + ?Sized,
{
    M::MODES.get(mode).is_some_and(|m| m.terminal)
}

/// A guard: the switch from one mode to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GuardInfo {
    /// The guard's name in the model.
    pub name: &'static str,
    /// The mode in which the guard is watched.
    pub from: usize,
    /// The mode entered when it fires.
    pub to: usize,
    /// The crossing direction that fires it.
    pub direction: Direction,
    /// Whether it has a reset (otherwise `y⁺ = y⁻`).
    pub has_reset: bool,
    /// The switching surface whose function the guard watches, by name, for the guards a
    /// `#[switching_surface]` generates (its crossings and exits, and the guard of a sliding
    /// mode on a surface it meets); `None` for a declared guard. Errors name the surface by it
    /// ([`crate::SolveError::describe`]).
    pub surface: Option<&'static str>,
}

/// What a guard's event leads to ([`HybridModel::event_target`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventTarget {
    /// The solve goes on in this mode.
    Mode(usize),
    /// A switching surface where both neighbouring fields point away from it: no Filippov
    /// solution continues uniquely, and the solve ends with
    /// [`crate::SolveError::RepulsiveSurface`].
    RepulsiveSurface,
    /// A trajectory sliding on one switching surface reached another: the solve ends with
    /// [`crate::SolveError::SurfaceIntersection`].
    SurfaceIntersection,
}

/// How the first mode is chosen at `t0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitialMode {
    /// Always this mode.
    Fixed(usize),
    /// The first rule whose guard has the given sign at `t0` picks its mode; if none does, the
    /// fallback (if any). A guard on its zero at `t0` (within round-off) is decided by the sign of
    /// its rate under the rule's mode.
    ByGuardSigns {
        /// `(guard, positive?, mode)`: start in `mode` if guard `guard` is positive (or negative).
        rules: &'static [(usize, bool, usize)],
        /// The mode when no rule applies.
        fallback: Option<usize>,
    },
}

/// A hybrid model with `NY` differential states, `NZ` algebraic variables and `NP` parameters
/// (inputs included). Implemented by `#[hybrid_model]`; hand-written implementations are fine.
///
/// Required: the modes, the names, and each mode's residual, Jacobian and parameter Jacobian.
/// Everything a model may lack has a default that is free at run time and exact for a model
/// without it: no guards (and so no resets), no time dependence (`f_t = g_t = 0`), no memory,
/// no costs, no named outputs. A model that *has* one of these must implement the matching
/// methods (the outputs: [`HybridModel::OUTPUT_NAMES`] with [`HybridModel::output`] and
/// [`HybridModel::output_partials`], functions of the model type); a default
/// left in place for a function that is there gives wrong sensitivities, not an error.
/// Besides this trait the runtime needs [`ModelSizes`] (the sizes stable Rust cannot compute
/// from `NY, NZ, NP` in generic code), and the [`crate::Solver`] builder [`crate::ModelTypes`]
/// (the types of its inputs).
pub trait HybridModel<const NY: usize, const NZ: usize, const NP: usize> {
    /// The modes, indexed by mode number.
    const MODES: &'static [ModeInfo];
    /// The guards, indexed by guard number. Default: none.
    const GUARDS: &'static [GuardInfo] = &[];
    /// How the first mode is chosen. Default: mode 0.
    const INITIAL_MODE: InitialMode = InitialMode::Fixed(0);
    /// Names of the differential states, in `y` order.
    const STATE_NAMES: [&'static str; NY];
    /// Names of the algebraic variables, in `z` order. Default: all empty (for `NZ = 0`).
    const ALGEBRAIC_NAMES: [&'static str; NZ] = [""; NZ];
    /// Names of the parameters and inputs, in `p` order.
    const PARAMETER_NAMES: [&'static str; NP];
    /// Whether the model has an integral cost. `false` lets the solver skip the per-step
    /// quadrature (`integral_cost` is then never called); the default `true` is always correct.
    const HAS_INTEGRAL_COST: bool = true;
    /// Whether the initial state is a function of the given states and the parameters,
    /// [`HybridModel::initial_state`] (otherwise it is the given states).
    const HAS_INITIAL_STATE: bool = false;
    /// Whether the first mode's algebraic guess is a function of the initial state and the
    /// parameters, [`HybridModel::algebraic_guess`] (otherwise it is the caller's `z0`).
    const HAS_ALGEBRAIC_GUESS: bool = false;
    /// Whether the model has a sampled cost `ℓ(t_k, y, z, p, d_k)`, which reads one datum per
    /// sample time: a solve with sample times and no data is then an error (rather than `ℓ`
    /// evaluated against data 0). The default `false` skips that check (it changes nothing
    /// else); `#[hybrid_model]` sets it.
    const HAS_SAMPLED_COST: bool = false;
    /// The model's costs by name, indexed by cost number (a `#[hybrid_model]`'s `#[cost]`
    /// functions in declaration order): what a solve can take as its objective instead of
    /// their sum ([`crate::Objective`]), and what the owned solution reports one by one.
    /// Default: none (the costs are only known as their sum). The terms of cost `k` are
    /// [`HybridModel::integral_cost_term`], [`HybridModel::terminal_cost_term`] or
    /// [`HybridModel::sampled_cost_term`] with index `k`, by its kind; the sum of all of them
    /// must be the model's `integral_cost`, `terminal_cost` and `sampled_cost`.
    const COSTS: &'static [CostInfo] = &[];
    /// Names of the named outputs (`#[output]` functions), in index order: what
    /// [`HybridModel::output`] evaluates. Default: none.
    const OUTPUT_NAMES: &'static [&'static str] = &[];

    /// Where the runtime keeps the model's `NY × NY` matrices (the Jacobian's `f_y`, the
    /// reset's `∂R/∂y⁻` and `∂R/∂y*`, the stage matrices' LU factors): [`Inline`] in the
    /// solve's frames (no heap; a small model), or [`crate::Heap`] (feature `std`; a model of
    /// hundreds of states or more, which then solves on an ordinary thread's stack). Same
    /// numbers either way. `#[hybrid_model]` chooses [`Inline`] unless told `store = heap`.
    type Store: MatrixStore;

    /// `f = f(t, y, z, p, m)` and `g = g(t, y, z, p, m)` of `mode`.
    fn residual(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NP>,
        f: &mut [f64; NY],
        g: &mut [f64; NZ],
    );

    /// `f_y, f_z, g_y, g_z` of `mode`.
    fn jacobian(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NP>,
        jac: &mut ModeJacobian<NY, NZ, Self::Store>,
    );

    /// `f_p` (`NY × NP`) and `g_p` (`NZ × NP`) of `mode`.
    fn parameter_jacobian(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NP>,
        fp: &mut [[f64; NP]; NY],
        gp: &mut [[f64; NP]; NZ],
    );

    /// `f_t` and `g_t` of `mode`. Default: zero (the modes do not read `t`).
    fn time_partials(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NP>,
        ft: &mut [f64; NY],
        gt: &mut [f64; NZ],
    ) {
        let _ = (mode, at, ft, gt);
    }

    /// The hidden constraint `k_y f + k_t` of an index-2 `mode` ([`ModeInfo::index2`]; `g = k`),
    /// the condition that defines `z` there (on its index-1 rows, if it mixes them in, `g`
    /// itself: [`HybridModel::is_constraint`]). Default: nothing written (no index-2 modes).
    fn hidden_constraint(&self, mode: usize, at: &Point<'_, NY, NZ, NP>, h: &mut [f64; NZ]) {
        let _ = (mode, at, h);
    }

    /// The partials `H_y, H_z, H_p, H_t` of [`HybridModel::hidden_constraint`] `H` of an index-2
    /// `mode` (zeroed by the caller). Default: nothing written.
    fn hidden_constraint_partials(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NP>,
        partials: &mut ConditionPartials<NY, NZ, NP>,
    ) {
        let _ = (mode, at, partials);
    }

    /// Whether algebraic equation `row` of the index-2 `mode` is one of its constraints
    /// `0 = k(t, y, p)` (it reads no algebraic variable) rather than an index-1 equation
    /// `0 = g(t, y, z, p)` next to them. A mode may mix both: the equations of motion
    /// `M a + Φ_qᵀ λ = F` with the accelerations `a` as algebraic variables, next to the
    /// position and velocity constraints of a mechanism. The condition that defines `z`
    /// ([`HybridModel::hidden_constraint`]) is then `g` on the index-1 rows and `k_y f + k_t` on
    /// the constraints, and a segment's start is moved onto the constraints alone. Default:
    /// every row (a mode of constraints only).
    fn is_constraint(&self, mode: usize, row: usize) -> bool {
        let _ = (mode, row);
        true
    }

    /// The structural nonzeros of `mode`'s Jacobian (see [`SmoothMode::jacobian_nonzeros`]).
    /// Default: `None`, not declared; `#[hybrid_model]` declares its `JACOBIAN_NONZEROS`.
    ///
    /// [`SmoothMode::jacobian_nonzeros`]: crate::smooth::SmoothMode::jacobian_nonzeros
    fn jacobian_nonzeros(&self, mode: usize) -> Option<&'static [(usize, usize)]> {
        let _ = mode;
        None
    }

    /// `∂f/∂y*, ∂f/∂z*, ∂g/∂y*, ∂g/∂z*` of `mode` (in the blocks `fy, fz, gy, gz` of `jac`).
    /// Default: zero (no mode reads the memory).
    fn memory_jacobian(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NP>,
        jac: &mut ModeJacobian<NY, NZ, Self::Store>,
    ) {
        let _ = (mode, at, jac);
    }

    /// What guard `guard`'s event at `at` (the point of the event, in the mode being left,
    /// before any reset) leads to. Default: the guard's fixed target `GUARDS[guard].to`.
    ///
    /// A switching surface between two modes (Filippov) chooses at the event: the mode across
    /// the surface when its field points away from the surface (a transversal crossing), a
    /// sliding mode when both fields point at it, [`EventTarget::RepulsiveSurface`] when both
    /// point away from it; a sliding trajectory that reaches another surface is an
    /// [`EventTarget::SurfaceIntersection`]. The sensitivities need nothing more: the event's
    /// jump and its time derivative are those of any event, and the new mode's field enters
    /// through the steps that follow it.
    fn event_target(&self, guard: usize, at: &Point<'_, NY, NZ, NP>) -> EventTarget {
        let _ = at;
        // An index past the guards is an index past the modes too: the runtime reports an
        // invalid target rather than panicking.
        EventTarget::Mode(Self::GUARDS.get(guard).map_or(usize::MAX, |g| g.to))
    }

    /// The initial state `y0 = I(t0, x, p)` from the states the caller gives, `at.y = x`, and
    /// the parameters (`#[initial_state]`: a launch velocity from a speed and an angle), so that
    /// sensitivities and gradients include `∂y0/∂p = I_p` (and `∂y0/∂x = I_x` for the
    /// initial-state directions). `at.z` is the caller's algebraic guess, the memory is
    /// `(x, z0)`. Read only when [`HybridModel::HAS_INITIAL_STATE`]; default: `y0 = x`.
    fn initial_state(&self, at: &Point<'_, NY, NZ, NP>, y0: &mut [f64; NY]) {
        *y0 = *at.y;
    }

    /// `I_x` into `jac.y` and `I_p` into `jac.p` (`I_t` into `jac.t`; the memory blocks are not
    /// read), zeroed by the caller. Default: those of `y0 = x` (`I_x = I`).
    fn initial_state_jacobian(
        &self,
        at: &Point<'_, NY, NZ, NP>,
        jac: &mut ResetJacobian<NY, NZ, NP, Self::Store>,
    ) {
        let _ = at;
        for (i, row) in jac.y.borrow_mut().iter_mut().enumerate() {
            row[i] = 1.0;
        }
    }

    /// The guess `z0` of the first mode's algebraic variables from the initial state `at.y`
    /// (after [`HybridModel::initial_state`]), the parameters and `at.t = t0`
    /// (`#[algebraic_guess]`), made consistent by Newton's method like a caller's guess. Only a
    /// guess: the consistent `z0` and its sensitivities follow from `g = 0`, not from it, so it
    /// is not differentiated. Read only when [`HybridModel::HAS_ALGEBRAIC_GUESS`]; default: the
    /// caller's `z0` (`at.z`).
    fn algebraic_guess(&self, at: &Point<'_, NY, NZ, NP>, z0: &mut [f64; NZ]) {
        *z0 = *at.z;
    }

    /// The value of guard `guard`. Default: 0 (a model without guards is never asked).
    fn guard(&self, guard: usize, at: &Point<'_, NY, NZ, NP>) -> f64 {
        let _ = (guard, at);
        0.0
    }

    /// All partials of guard `guard`: `h_t, h_y, h_z, h_p, h_y*, h_z*`. Default: zero.
    fn guard_partials(
        &self,
        guard: usize,
        at: &Point<'_, NY, NZ, NP>,
        partials: &mut ScalarPartials<NY, NZ, NP>,
    ) {
        let _ = (guard, at, partials);
    }

    /// `y⁺ = R(t, y⁻, z⁻, p, m)` of guard `guard` (`y⁺ = y⁻` if it has no reset). Default:
    /// `y⁺ = y⁻` (no resets).
    fn reset(&self, guard: usize, at: &Point<'_, NY, NZ, NP>, y_plus: &mut [f64; NY]) {
        let _ = guard;
        *y_plus = *at.y;
    }

    /// `R_t, R_y, R_z, R_p, R_y*, R_z*` of guard `guard`. Default: those of `y⁺ = y⁻`
    /// (`R_y = I`, the rest zero).
    fn reset_jacobian(
        &self,
        guard: usize,
        at: &Point<'_, NY, NZ, NP>,
        jac: &mut ResetJacobian<NY, NZ, NP, Self::Store>,
    ) {
        let _ = (guard, at);
        for (i, row) in jac.y.borrow_mut().iter_mut().enumerate() {
            row[i] = 1.0;
        }
    }

    /// The integrand `L` of the integral cost in `mode`. Default: 0 (no integral cost; set
    /// [`HybridModel::HAS_INTEGRAL_COST`] to `false` too, to skip the quadrature).
    fn integral_cost(&self, mode: usize, at: &Point<'_, NY, NZ, NP>) -> f64 {
        let _ = (mode, at);
        0.0
    }

    /// All partials of the integrand `L` in `mode`. Default: zero.
    fn integral_cost_partials(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NP>,
        partials: &mut ScalarPartials<NY, NZ, NP>,
    ) {
        let _ = (mode, at, partials);
    }

    /// The terminal cost `φ` at the final time. Default: 0.
    fn terminal_cost(&self, at: &Point<'_, NY, NZ, NP>) -> f64 {
        let _ = at;
        0.0
    }

    /// All partials of the terminal cost `φ`. Default: zero.
    fn terminal_cost_partials(
        &self,
        at: &Point<'_, NY, NZ, NP>,
        partials: &mut ScalarPartials<NY, NZ, NP>,
    ) {
        let _ = (at, partials);
    }

    /// The sampled cost term `ℓ(t_k, y, z, p, d_k)` for one sample with datum `datum`.
    /// Default: 0.
    fn sampled_cost(&self, at: &Point<'_, NY, NZ, NP>, datum: f64) -> f64 {
        let _ = (at, datum);
        0.0
    }

    /// All partials of the sampled cost term. Default: zero.
    fn sampled_cost_partials(
        &self,
        at: &Point<'_, NY, NZ, NP>,
        datum: f64,
        partials: &mut ScalarPartials<NY, NZ, NP>,
    ) {
        let _ = (at, datum, partials);
    }

    /// The integrand of the integral cost number `cost` of [`HybridModel::COSTS`] alone in
    /// `mode` (zero in a mode it is not limited to). Only called for an integral cost.
    /// Default: the whole integrand [`HybridModel::integral_cost`], right for a model with at
    /// most one integral cost (a model with more implements it).
    fn integral_cost_term(&self, cost: usize, mode: usize, at: &Point<'_, NY, NZ, NP>) -> f64 {
        let _ = cost;
        self.integral_cost(mode, at)
    }

    /// All partials of [`HybridModel::integral_cost_term`]. Default: those of the whole
    /// integrand, [`HybridModel::integral_cost_partials`].
    fn integral_cost_term_partials(
        &self,
        cost: usize,
        mode: usize,
        at: &Point<'_, NY, NZ, NP>,
        partials: &mut ScalarPartials<NY, NZ, NP>,
    ) {
        let _ = cost;
        self.integral_cost_partials(mode, at, partials);
    }

    /// The terminal cost number `cost` of [`HybridModel::COSTS`] alone. Only called for a
    /// terminal cost. Default: the whole [`HybridModel::terminal_cost`] (right for a model with
    /// at most one terminal cost).
    fn terminal_cost_term(&self, cost: usize, at: &Point<'_, NY, NZ, NP>) -> f64 {
        let _ = cost;
        self.terminal_cost(at)
    }

    /// All partials of [`HybridModel::terminal_cost_term`]. Default: those of the whole
    /// terminal cost, [`HybridModel::terminal_cost_partials`].
    fn terminal_cost_term_partials(
        &self,
        cost: usize,
        at: &Point<'_, NY, NZ, NP>,
        partials: &mut ScalarPartials<NY, NZ, NP>,
    ) {
        let _ = cost;
        self.terminal_cost_partials(at, partials);
    }

    /// The sampled cost number `cost` of [`HybridModel::COSTS`] alone, for one sample with
    /// datum `datum`. Only called for a sampled cost. Default: the whole
    /// [`HybridModel::sampled_cost`] (a model has at most one sampled cost).
    fn sampled_cost_term(&self, cost: usize, at: &Point<'_, NY, NZ, NP>, datum: f64) -> f64 {
        let _ = cost;
        self.sampled_cost(at, datum)
    }

    /// All partials of [`HybridModel::sampled_cost_term`]. Default: those of the whole sampled
    /// cost, [`HybridModel::sampled_cost_partials`].
    fn sampled_cost_term_partials(
        &self,
        cost: usize,
        at: &Point<'_, NY, NZ, NP>,
        datum: f64,
        partials: &mut ScalarPartials<NY, NZ, NP>,
    ) {
        let _ = cost;
        self.sampled_cost_partials(at, datum, partials);
    }

    /// The value of named output `output` ([`HybridModel::OUTPUT_NAMES`]) at `at`; 0 for an
    /// index out of range (the default: no outputs).
    ///
    /// An output is a function `o(t, y, z, p)` of the time, the states, the algebraic
    /// variables and the parameters (inputs included) — never of the memory, which a stored
    /// state does not carry (the point's memory is [`Memory::ZERO`] when the runtime evaluates
    /// an output). It is an associated function of the model *type*, without `&self`, so that
    /// an owned [`crate::Solution`] can evaluate it at any state it holds after the solve,
    /// without the model (see `crate::model::output`).
    fn output(output: usize, at: &Point<'_, NY, NZ, NP>) -> f64 {
        let _ = (output, at);
        0.0
    }

    /// All partials of named output `output`: `o_t, o_y, o_z, o_p` (the memory blocks stay
    /// zero). Default: zero.
    fn output_partials(
        output: usize,
        at: &Point<'_, NY, NZ, NP>,
        partials: &mut ScalarPartials<NY, NZ, NP>,
    ) {
        let _ = (output, at, partials);
    }
}

/// The sizes the runtime derives from a model's `NY, NZ, NP`, which stable Rust cannot compute
/// inside generic code (`generic_const_exprs` is unstable): `N = NY + NZ`, the order of the
/// Newton iteration matrix, and `NS = NP + NY`, the number of sensitivity directions when the
/// sensitivities are taken with respect to all parameters and all initial states.
///
/// `#[hybrid_model]` implements it; a hand-written model adds one line, e.g.
/// `impl ModelSizes<2, 4> for Ball {}` for `NY = 2, NZ = 0, NP = 2`. The solvers infer `N` and
/// `NS` from this implementation (so no call names them) and check at compile time what they
/// use: [`crate::solve`] reads `N`, the [`crate::Solver`] builder reads both.
pub trait ModelSizes<const N: usize, const NS: usize> {}

/// The sizes of a model whose parameters are extended by one entry per algebraic equation,
/// `NR = NP + NZ`, and of all its sensitivity directions then, `NRS = NR + NY`: the relaxed
/// DAE of multiple shooting (Bock et al.), `0 = g − e^{−η(t − t_j)/T} r` with the residual
/// `r` of the interval's start appended to `p`, which `hysens-control` solves. Stable Rust
/// cannot compute these sizes in generic code; `#[hybrid_model]` implements it.
pub trait RelaxedSizes<const NR: usize, const NRS: usize> {}

/// The transposed products of a hybrid model, for the adjoint sensitivities: what the
/// discrete adjoint (the transpose of the forward sensitivity chain) multiplies by.
/// `#[hybrid_model]` implements it; the forward solve does not need it.
pub trait AdjointProducts<const NY: usize, const NZ: usize, const NP: usize>:
    HybridModel<NY, NZ, NP>
{
    /// The adjoint products of `mode`: `λᵀf_y + μᵀg_y`, `λᵀf_z + μᵀg_z` and `λᵀf_p + μᵀg_p`,
    /// written in full.
    #[allow(clippy::too_many_arguments)]
    fn adjoint_products(
        &self,
        mode: usize,
        at: &Point<'_, NY, NZ, NP>,
        lambda: &[f64; NY],
        mu: &[f64; NZ],
        out_y: &mut [f64; NY],
        out_z: &mut [f64; NZ],
        out_p: &mut [f64; NP],
    );
}

#[cfg(all(test, feature = "sparse"))]
#[allow(clippy::needless_range_loop)] // index loops mirror the formula
mod tests {
    use super::*;
    use crate::linalg::test_rng::Rng;
    use crate::Sparse;

    #[test]
    fn a_sparse_reset_maps_the_columns_as_the_inline_one() {
        const NY: usize = 9;
        const NZ: usize = 2;
        const NP: usize = 3;
        let mut rng = Rng(11);
        let (mut inline, mut sparse) = (
            ResetJacobian::<NY, NZ, NP>::ZERO,
            ResetJacobian::<NY, NZ, NP, Sparse>::zeroed(),
        );
        // A reset that keeps most states: a few rows of R_y and R_{y*} filled, some columns
        // zero in both (skipped by the sparse storage), some in one only.
        for r in 0..NY {
            for c in 0..NY {
                let (a, b) = (rng.next(), rng.next());
                let (a, b) = (
                    if a < -0.3 { a } else { 0.0 },
                    if b < -0.6 { b } else { 0.0 },
                );
                (inline.y[r][c], sparse.y[r][c]) = (a, a);
                (inline.memory_y[r][c], sparse.memory_y[r][c]) = (b, b);
            }
            inline.t[r] = rng.next();
            inline.z[r] = core::array::from_fn(|_| rng.next());
            inline.p[r] = core::array::from_fn(|_| rng.next());
            inline.memory_z[r] = core::array::from_fn(|_| rng.next());
            (sparse.t[r], sparse.z[r]) = (inline.t[r], inline.z[r]);
            (sparse.p[r], sparse.memory_z[r]) = (inline.p[r], inline.memory_z[r]);
        }
        let columns = |rng: &mut Rng| -> [[f64; NP]; NY] {
            core::array::from_fn(|_| core::array::from_fn(|_| rng.next()))
        };
        let (sy, memory_sy) = (columns(&mut rng), columns(&mut rng));
        let sz: [[f64; NP]; NZ] = core::array::from_fn(|_| core::array::from_fn(|_| rng.next()));
        let memory_sz: [[f64; NP]; NZ] =
            core::array::from_fn(|_| core::array::from_fn(|_| rng.next()));
        let tau: [f64; NP] = core::array::from_fn(|_| rng.next());
        let expected = inline.sensitivity_columns(&sy, &sz, &tau, (&memory_sy, &memory_sz));
        let got = sparse.sensitivity_columns(&sy, &sz, &tau, (&memory_sy, &memory_sz));
        assert_eq!(got, expected);
        // Against the formula, entry by entry.
        for r in 0..NY {
            for q in 0..NP {
                let mut v = inline.p[r][q] + inline.t[r] * tau[q];
                for c in 0..NY {
                    v += inline.y[r][c] * sy[c][q] + inline.memory_y[r][c] * memory_sy[c][q];
                }
                for c in 0..NZ {
                    v += inline.z[r][c] * sz[c][q] + inline.memory_z[r][c] * memory_sz[c][q];
                }
                assert!((expected[r][q] - v).abs() <= 1e-14 * (1.0 + v.abs()));
            }
        }
    }
}
