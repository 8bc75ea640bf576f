//! Hand-written test models, shared by the integration tests of `hysens-runtime`.
//!
//! Hybrid models ([`HybridModel`]): Serban & Recuero's Examples 5.1 ([`Ex51`]) and 5.2
//! ([`EmOscillator`]), a bouncing ball ([`Ball`]), a switched index-1 DAE ([`SwitchedDae`]), a
//! toy whose modes read the memory ([`MemToy`]), a near-tangent guard ([`Graze`]) and two
//! guards with simultaneous roots ([`TwinGuards`]). Each implements only what it has: the
//! trait's defaults are no time dependence, no memory, resets `y⁺ = y⁻`, no costs, mode 0
//! first.
//!
//! Smooth modes ([`SmoothMode`]) used by more than one ESDIRK test file: [`Smooth`],
//! [`CubicDae`], [`Linear`], [`Scalar`], and Robertson's kinetics with the rate constants as
//! parameters ([`Robertson`]).
//!
//! Reference: Serban, R. and Recuero, A. (2019), "Sensitivity Analysis for Hybrid Systems and
//! Systems with Memory", Technical Report TR-2019-01, Simulation-Based Engineering Lab,
//! University of Wisconsin–Madison.
#![allow(dead_code)] // each test binary uses a subset
#![allow(clippy::excessive_precision)] // reference values are quoted with all their digits
#![allow(clippy::needless_range_loop)]

use hysens::runtime::{
    Direction, GuardInfo, HybridModel, HybridProblem, InitialMode, ModeInfo, ModeJacobian,
    ModelSizes, ModelTypes, Point, ResetJacobian, ScalarPartials, SmoothMode,
};

/// A mode that does not read the memory and whose Jacobian is not declared constant.
const fn mode(name: &'static str) -> ModeInfo {
    ModeInfo {
        name,
        uses_memory: false,
        constant_jacobian: false,
    }
}

/// A mode that reads the memory `(y*, z*)`.
const fn memory_mode(name: &'static str) -> ModeInfo {
    ModeInfo {
        uses_memory: true,
        ..mode(name)
    }
}

/// A guard without a reset (`y⁺ = y⁻`).
const fn guard(name: &'static str, from: usize, to: usize, direction: Direction) -> GuardInfo {
    GuardInfo {
        name,
        from,
        to,
        direction,
        has_reset: false,
        surface: None,
    }
}

// ---------------------------------------------------------------------------------------------
// Serban & Recuero 2019, Example 5.1.
// ---------------------------------------------------------------------------------------------

/// Serban & Recuero 2019, Example 5.1 (Eq. 39): ẋ = 4 − x (mode A), 10 − 2x (mode B); guard
/// h = x³ − 5x² + 7x − p, A→B rising, B→A falling; cost G = ∫ x dt. Optional terminal cost
/// x(t_f) and sampled cost Σ (x − d)² for the cost tests.
pub struct Ex51 {
    pub terminal: bool,
    pub sampled: bool,
}

impl Ex51 {
    /// The integral cost only (the example's G = ∫ x dt).
    pub const INTEGRAL: Ex51 = Ex51 {
        terminal: false,
        sampled: false,
    };
    /// All three cost kinds.
    pub const ALL_COSTS: Ex51 = Ex51 {
        terminal: true,
        sampled: true,
    };
}

fn ex51_h(x: f64, p: f64) -> f64 {
    x * x * x - 5.0 * x * x + 7.0 * x - p
}

impl HybridModel<1, 0, 1> for Ex51 {
    const MODES: &'static [ModeInfo] = &[mode("A"), mode("B")];
    const GUARDS: &'static [GuardInfo] = &[
        guard("A_to_B", 0, 1, Direction::Rising),
        guard("B_to_A", 1, 0, Direction::Falling),
    ];
    // Mode A where x³ − 5x² + 7x ≤ p (Eq. 39).
    const INITIAL_MODE: InitialMode = InitialMode::ByGuardSigns {
        rules: &[(0, false, 0), (0, true, 1)],
        fallback: Some(0),
    };
    const STATE_NAMES: [&'static str; 1] = ["x"];
    const PARAMETER_NAMES: [&'static str; 1] = ["p"];

    fn residual(&self, mode: usize, at: &Point<'_, 1, 0, 1>, f: &mut [f64; 1], _: &mut [f64; 0]) {
        let x = at.y[0];
        f[0] = if mode == 0 { 4.0 - x } else { 10.0 - 2.0 * x };
    }
    fn jacobian(&self, mode: usize, _: &Point<'_, 1, 0, 1>, jac: &mut ModeJacobian<1, 0>) {
        jac.fy[0][0] = if mode == 0 { -1.0 } else { -2.0 };
    }
    fn parameter_jacobian(
        &self,
        _: usize,
        _: &Point<'_, 1, 0, 1>,
        _: &mut [[f64; 1]; 1],
        _: &mut [[f64; 1]; 0],
    ) {
    }
    fn guard(&self, _: usize, at: &Point<'_, 1, 0, 1>) -> f64 {
        ex51_h(at.y[0], at.p[0])
    }
    fn guard_partials(&self, _: usize, at: &Point<'_, 1, 0, 1>, d: &mut ScalarPartials<1, 0, 1>) {
        let x = at.y[0];
        d.y[0] = 3.0 * x * x - 10.0 * x + 7.0;
        d.p[0] = -1.0;
    }
    fn integral_cost(&self, _: usize, at: &Point<'_, 1, 0, 1>) -> f64 {
        at.y[0]
    }
    fn integral_cost_partials(
        &self,
        _: usize,
        _: &Point<'_, 1, 0, 1>,
        d: &mut ScalarPartials<1, 0, 1>,
    ) {
        d.y[0] = 1.0;
    }
    fn terminal_cost(&self, at: &Point<'_, 1, 0, 1>) -> f64 {
        if self.terminal {
            at.y[0]
        } else {
            0.0
        }
    }
    fn terminal_cost_partials(&self, _: &Point<'_, 1, 0, 1>, d: &mut ScalarPartials<1, 0, 1>) {
        if self.terminal {
            d.y[0] = 1.0;
        }
    }
    fn sampled_cost(&self, at: &Point<'_, 1, 0, 1>, datum: f64) -> f64 {
        if self.sampled {
            (at.y[0] - datum) * (at.y[0] - datum)
        } else {
            0.0
        }
    }
    fn sampled_cost_partials(
        &self,
        at: &Point<'_, 1, 0, 1>,
        datum: f64,
        d: &mut ScalarPartials<1, 0, 1>,
    ) {
        if self.sampled {
            d.y[0] = 2.0 * (at.y[0] - datum);
        }
    }
}

impl ModelSizes<1, 2> for Ex51 {}
impl ModelTypes<1, 0, 1> for Ex51 {
    type State = [f64; 1];
    type Algebraic = [f64; 0];
    type Params = [f64; 1];
}

/// Ex. 5.1 at p = 2.9, x(0) = 0 on [0, 5]: exact values from the closed form (from a switch
/// at (t_k, x_k), x = 4 − (4 − x_k)e^{−(t − t_k)} in A and 5 − (5 − x_k)e^{−2(t − t_k)} in B;
/// the switch times are the roots of h(x(t)) = 0), evaluated with mpmath at 40 digits and
/// quoted to 16. The three switch times:
pub const EX51_T: [f64; 3] = [0.21921592228980355, 0.27581259147348379, 1.2663478417960716];
/// τ_i = dt_i/dp of the three switches.
pub const EX51_TAU: [f64; 3] = [
    0.31570755009809896,
    0.02550807752556832,
    0.74491715157848093,
];
/// G = ∫_0^5 x dt.
pub const EX51_G: f64 = 20.029074653359594;
/// dG/dp.
pub const EX51_DG: f64 = -2.3119531074438905;
/// x(5).
pub const EX51_X5: f64 = 4.9988424062172751;
/// dx(5)/dp.
pub const EX51_S5: f64 = -0.0015741079476662486;

/// Ex. 5.1 on [0, 5] from x(0) = 0 at parameter `p`, with sensitivities, without samples.
pub fn ex51_problem(p: f64) -> HybridProblem<'static, 1, 0, 1> {
    HybridProblem {
        t0: 0.0,
        tf: 5.0,
        y0: [0.0],
        z0: [],
        p: [p],
        sensitivities: Some([[0.0]]),
        sample_times: &[],
        sample_data: &[],
    }
}

// ---------------------------------------------------------------------------------------------
// Bouncing ball.
// ---------------------------------------------------------------------------------------------

/// Bouncing ball: y = (height z, velocity v), ż = v, v̇ = −g; guard z falling; reset
/// v⁺ = −γ v⁻; terminal cost z(t_f). Parameters p = (z0, v0, g, γ): the initial state is
/// (p0, p1) (see [`ball_problem`]).
pub struct Ball;

impl HybridModel<2, 0, 4> for Ball {
    const MODES: &'static [ModeInfo] = &[mode("flight")];
    const GUARDS: &'static [GuardInfo] = &[GuardInfo {
        has_reset: true,
        surface: None,
        ..guard("impact", 0, 0, Direction::Falling)
    }];
    const STATE_NAMES: [&'static str; 2] = ["z", "v"];
    const PARAMETER_NAMES: [&'static str; 4] = ["z0", "v0", "g", "gamma"];

    fn residual(&self, _: usize, at: &Point<'_, 2, 0, 4>, f: &mut [f64; 2], _: &mut [f64; 0]) {
        f[0] = at.y[1];
        f[1] = -at.p[2];
    }
    fn jacobian(&self, _: usize, _: &Point<'_, 2, 0, 4>, jac: &mut ModeJacobian<2, 0>) {
        jac.fy[0][1] = 1.0;
    }
    fn parameter_jacobian(
        &self,
        _: usize,
        _: &Point<'_, 2, 0, 4>,
        fp: &mut [[f64; 4]; 2],
        _: &mut [[f64; 4]; 0],
    ) {
        fp[1][2] = -1.0;
    }
    fn guard(&self, _: usize, at: &Point<'_, 2, 0, 4>) -> f64 {
        at.y[0]
    }
    fn guard_partials(&self, _: usize, _: &Point<'_, 2, 0, 4>, d: &mut ScalarPartials<2, 0, 4>) {
        d.y[0] = 1.0;
    }
    fn reset(&self, _: usize, at: &Point<'_, 2, 0, 4>, y: &mut [f64; 2]) {
        y[0] = at.y[0];
        y[1] = -at.p[3] * at.y[1];
    }
    fn reset_jacobian(&self, _: usize, at: &Point<'_, 2, 0, 4>, j: &mut ResetJacobian<2, 0, 4>) {
        j.y[0][0] = 1.0;
        j.y[1][1] = -at.p[3];
        j.p[1][3] = -at.y[1];
    }
    fn terminal_cost(&self, at: &Point<'_, 2, 0, 4>) -> f64 {
        at.y[0]
    }
    fn terminal_cost_partials(&self, _: &Point<'_, 2, 0, 4>, d: &mut ScalarPartials<2, 0, 4>) {
        d.y[0] = 1.0;
    }
}

impl ModelSizes<2, 6> for Ball {}
impl ModelTypes<2, 0, 4> for Ball {
    type State = [f64; 2];
    type Algebraic = [f64; 0];
    type Params = [f64; 4];
}

/// The ball on [0, tf] from (z0, v0) = (p0, p1), with the sensitivities of the initial state
/// to p (∂y(0)/∂p = (e_0, e_1)).
pub fn ball_problem(p: [f64; 4], tf: f64) -> HybridProblem<'static, 2, 0, 4> {
    HybridProblem {
        t0: 0.0,
        tf,
        y0: [p[0], p[1]],
        z0: [],
        p,
        sensitivities: Some([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]),
        sample_times: &[],
        sample_data: &[],
    }
}

// ---------------------------------------------------------------------------------------------
// A switched index-1 DAE with a closed form.
// ---------------------------------------------------------------------------------------------

/// Two modes, y ∈ R, z ∈ R, p = (a, b):
/// mode 0: y' = z, 0 = z + y − a (so z = a − y, y = a(1 − e^{−t}) from y(0) = 0);
/// guard z − b falling (switch at t1 = ln(a/b), y1 = a − b) to
/// mode 1: y' = −z, 0 = z − y² (so y = y1/(1 + y1(t − t1)), z = y²).
/// z jumps at the switch (b → y1²), so the cost G = ∫_0^T z dt has a Leibniz term.
/// Closed form: G = (a − b) + (y1 − y(T)).
pub struct SwitchedDae;

impl HybridModel<1, 1, 2> for SwitchedDae {
    const MODES: &'static [ModeInfo] = &[mode("relax"), mode("decay")];
    const GUARDS: &'static [GuardInfo] = &[guard("z_low", 0, 1, Direction::Falling)];
    const STATE_NAMES: [&'static str; 1] = ["y"];
    const ALGEBRAIC_NAMES: [&'static str; 1] = ["z"];
    const PARAMETER_NAMES: [&'static str; 2] = ["a", "b"];

    fn residual(&self, mode: usize, at: &Point<'_, 1, 1, 2>, f: &mut [f64; 1], g: &mut [f64; 1]) {
        let (y, z) = (at.y[0], at.z[0]);
        if mode == 0 {
            f[0] = z;
            g[0] = z + y - at.p[0];
        } else {
            f[0] = -z;
            g[0] = z - y * y;
        }
    }
    fn jacobian(&self, mode: usize, at: &Point<'_, 1, 1, 2>, jac: &mut ModeJacobian<1, 1>) {
        jac.gz[0][0] = 1.0;
        if mode == 0 {
            jac.fz[0][0] = 1.0;
            jac.gy[0][0] = 1.0;
        } else {
            jac.fz[0][0] = -1.0;
            jac.gy[0][0] = -2.0 * at.y[0];
        }
    }
    fn parameter_jacobian(
        &self,
        mode: usize,
        _: &Point<'_, 1, 1, 2>,
        _: &mut [[f64; 2]; 1],
        gp: &mut [[f64; 2]; 1],
    ) {
        if mode == 0 {
            gp[0][0] = -1.0;
        }
    }
    fn guard(&self, _: usize, at: &Point<'_, 1, 1, 2>) -> f64 {
        at.z[0] - at.p[1]
    }
    fn guard_partials(&self, _: usize, _: &Point<'_, 1, 1, 2>, d: &mut ScalarPartials<1, 1, 2>) {
        d.z[0] = 1.0;
        d.p[1] = -1.0;
    }
    fn integral_cost(&self, _: usize, at: &Point<'_, 1, 1, 2>) -> f64 {
        at.z[0]
    }
    fn integral_cost_partials(
        &self,
        _: usize,
        _: &Point<'_, 1, 1, 2>,
        d: &mut ScalarPartials<1, 1, 2>,
    ) {
        d.z[0] = 1.0;
    }
}

impl ModelSizes<2, 3> for SwitchedDae {}
impl ModelTypes<1, 1, 2> for SwitchedDae {
    type State = [f64; 1];
    type Algebraic = [f64; 1];
    type Params = [f64; 2];
}

/// The switched DAE on [0, 3] from y(0) = 0 (z0 = 0 is a guess, made consistent), with
/// sensitivities, at p = (a, b).
pub fn switched_dae_problem(p: [f64; 2]) -> HybridProblem<'static, 1, 1, 2> {
    HybridProblem {
        t0: 0.0,
        tf: 3.0,
        y0: [0.0],
        z0: [0.0],
        p,
        sensitivities: Some([[0.0, 0.0]]),
        sample_times: &[],
        sample_data: &[],
    }
}

// ---------------------------------------------------------------------------------------------
// Event edge cases: a near-tangency and simultaneous roots.
// ---------------------------------------------------------------------------------------------

/// y' = 1 (y = t), guard h = p − (y − 1)² rising (mode 0 → 1): for small p > 0 the guard
/// barely crosses zero near t = 1 (ḣ = 2√p at the root): a near-tangency.
pub struct Graze;

impl HybridModel<1, 0, 1> for Graze {
    const MODES: &'static [ModeInfo] = &[mode("a"), mode("b")];
    const GUARDS: &'static [GuardInfo] = &[guard("touch", 0, 1, Direction::Rising)];
    const STATE_NAMES: [&'static str; 1] = ["y"];
    const PARAMETER_NAMES: [&'static str; 1] = ["p"];
    fn residual(&self, _: usize, _: &Point<'_, 1, 0, 1>, f: &mut [f64; 1], _: &mut [f64; 0]) {
        f[0] = 1.0;
    }
    fn jacobian(&self, _: usize, _: &Point<'_, 1, 0, 1>, _: &mut ModeJacobian<1, 0>) {}
    fn parameter_jacobian(
        &self,
        _: usize,
        _: &Point<'_, 1, 0, 1>,
        _: &mut [[f64; 1]; 1],
        _: &mut [[f64; 1]; 0],
    ) {
    }
    fn guard(&self, _: usize, at: &Point<'_, 1, 0, 1>) -> f64 {
        at.p[0] - (at.y[0] - 1.0) * (at.y[0] - 1.0)
    }
    fn guard_partials(&self, _: usize, at: &Point<'_, 1, 0, 1>, d: &mut ScalarPartials<1, 0, 1>) {
        d.y[0] = -2.0 * (at.y[0] - 1.0);
        d.p[0] = 1.0;
    }
}

impl ModelSizes<1, 2> for Graze {}
impl ModelTypes<1, 0, 1> for Graze {
    type State = [f64; 1];
    type Algebraic = [f64; 0];
    type Params = [f64; 1];
}

/// y' = 1 with two guards of the same function y − 1 (rising, and either way), to modes 1
/// and 2: the simultaneous roots must be resolved deterministically in favour of the lower
/// guard index.
pub struct TwinGuards;

impl HybridModel<1, 0, 1> for TwinGuards {
    const MODES: &'static [ModeInfo] = &[mode("m0"), mode("m1"), mode("m2")];
    const GUARDS: &'static [GuardInfo] = &[
        guard("first", 0, 1, Direction::Rising),
        guard("second", 0, 2, Direction::Either),
    ];
    const STATE_NAMES: [&'static str; 1] = ["y"];
    const PARAMETER_NAMES: [&'static str; 1] = ["p"];
    fn residual(&self, _: usize, _: &Point<'_, 1, 0, 1>, f: &mut [f64; 1], _: &mut [f64; 0]) {
        f[0] = 1.0;
    }
    fn jacobian(&self, _: usize, _: &Point<'_, 1, 0, 1>, _: &mut ModeJacobian<1, 0>) {}
    fn parameter_jacobian(
        &self,
        _: usize,
        _: &Point<'_, 1, 0, 1>,
        _: &mut [[f64; 1]; 1],
        _: &mut [[f64; 1]; 0],
    ) {
    }
    fn guard(&self, _: usize, at: &Point<'_, 1, 0, 1>) -> f64 {
        at.y[0] - 1.0
    }
    fn guard_partials(&self, _: usize, _: &Point<'_, 1, 0, 1>, d: &mut ScalarPartials<1, 0, 1>) {
        d.y[0] = 1.0;
    }
}

impl ModelSizes<1, 2> for TwinGuards {}
impl ModelTypes<1, 0, 1> for TwinGuards {
    type State = [f64; 1];
    type Algebraic = [f64; 0];
    type Params = [f64; 1];
}

// ---------------------------------------------------------------------------------------------
// Memory.
// ---------------------------------------------------------------------------------------------

/// A toy whose modes read the memory: y1' = 1, y2' = −p1 (y2 − y2*) + 1, y(0) = 0, memory of
/// the first mode y* = y0 = 0; guard y1 − p2 rising switches to an identical second mode whose
/// memory is y(t1) (y continuous); G = ∫_0^3 y2 dt, p = (1, 1).
pub struct MemToy;

impl HybridModel<2, 0, 2> for MemToy {
    const MODES: &'static [ModeInfo] = &[memory_mode("before"), memory_mode("after")];
    const GUARDS: &'static [GuardInfo] = &[guard("switch", 0, 1, Direction::Rising)];
    const STATE_NAMES: [&'static str; 2] = ["y1", "y2"];
    const PARAMETER_NAMES: [&'static str; 2] = ["p1", "p2"];
    fn residual(&self, _: usize, at: &Point<'_, 2, 0, 2>, f: &mut [f64; 2], _: &mut [f64; 0]) {
        f[0] = 1.0;
        f[1] = -at.p[0] * (at.y[1] - at.memory.y[1]) + 1.0;
    }
    fn jacobian(&self, _: usize, at: &Point<'_, 2, 0, 2>, jac: &mut ModeJacobian<2, 0>) {
        jac.fy[1][1] = -at.p[0];
    }
    fn parameter_jacobian(
        &self,
        _: usize,
        at: &Point<'_, 2, 0, 2>,
        fp: &mut [[f64; 2]; 2],
        _: &mut [[f64; 2]; 0],
    ) {
        fp[1][0] = -(at.y[1] - at.memory.y[1]);
    }
    fn memory_jacobian(&self, _: usize, at: &Point<'_, 2, 0, 2>, jac: &mut ModeJacobian<2, 0>) {
        jac.fy[1][1] = at.p[0];
    }
    fn guard(&self, _: usize, at: &Point<'_, 2, 0, 2>) -> f64 {
        at.y[0] - at.p[1]
    }
    fn guard_partials(&self, _: usize, _: &Point<'_, 2, 0, 2>, d: &mut ScalarPartials<2, 0, 2>) {
        d.y[0] = 1.0;
        d.p[1] = -1.0;
    }
    fn integral_cost(&self, _: usize, at: &Point<'_, 2, 0, 2>) -> f64 {
        at.y[1]
    }
    fn integral_cost_partials(
        &self,
        _: usize,
        _: &Point<'_, 2, 0, 2>,
        d: &mut ScalarPartials<2, 0, 2>,
    ) {
        d.y[1] = 1.0;
    }
}

impl ModelSizes<2, 4> for MemToy {}
impl ModelTypes<2, 0, 2> for MemToy {
    type State = [f64; 2];
    type Algebraic = [f64; 0];
    type Params = [f64; 2];
}

/// The memory toy on [0, 3] from y(0) = 0, with sensitivities, at p = (p1, p2).
pub fn mem_toy_problem(p: [f64; 2]) -> HybridProblem<'static, 2, 0, 2> {
    HybridProblem {
        t0: 0.0,
        tf: 3.0,
        y0: [0.0, 0.0],
        z0: [],
        p,
        sensitivities: Some([[0.0; 2]; 2]),
        sample_times: &[],
        sample_data: &[],
    }
}

// ---------------------------------------------------------------------------------------------
// Serban & Recuero 2019, Example 5.2: the EM hysteretic oscillator (index-1 DAE with memory).
// ---------------------------------------------------------------------------------------------

/// Serban & Recuero 2019, Example 5.2: u' = v, v' = −z + f(t), f(t) = 0.5 t sin(2πt)
/// (m = A = 1), and 0 = z − σ(u; u*, z*, p, ξ) with the closed form of the EM hysteresis law
/// between reversals, σ = g_β(u) + ξc − E (g_β(u*) + ξc − z*), E = exp(−αξ(u − u*)),
/// c = (k_a − k_b + δ)/(2α), g_β(u) = −2βu + 2 sinh(βu) + k_b u. Mode 0: ξ = +1, mode 1:
/// ξ = −1; reversals at v = 0 (guard v, falling in mode 0, rising in mode 1). p = (k_a, k_b,
/// α, β); integral cost G = ∫ u² dt.
pub struct EmOscillator;

const EM_DELTA: f64 = 1e-20;

/// σ and its partials at (u, u*, z*, p, ξ) (differentiating the closed form above):
/// returns (σ, σ_u, σ_u*, σ_z*, [σ_ka, σ_kb, σ_α, σ_β]).
fn em_sigma(u: f64, us: f64, zs: f64, p: &[f64; 4], xi: f64) -> (f64, f64, f64, f64, [f64; 4]) {
    let (ka, kb, al, be) = (p[0], p[1], p[2], p[3]);
    let gb = |x: f64| -2.0 * be * x + 2.0 * libm::sinh(be * x) + kb * x;
    let gbd = |x: f64| kb - 2.0 * be + 2.0 * be * libm::cosh(be * x);
    let c = (ka - kb + EM_DELTA) / (2.0 * al);
    let e = libm::exp(-al * xi * (u - us));
    let r = gb(us) + xi * c - zs;
    let sigma = gb(u) + xi * c - e * r;
    let s_u = gbd(u) + al * xi * e * r;
    let s_us = -e * (gbd(us) + al * xi * r);
    let s_zs = e;
    let s_ka = xi * (1.0 - e) / (2.0 * al);
    let s_kb = u - e * us - xi * (1.0 - e) / (2.0 * al);
    let s_al = -xi * (ka - kb + EM_DELTA) / (2.0 * al * al) * (1.0 - e) + xi * (u - us) * e * r;
    let s_be = (-2.0 * u + 2.0 * u * libm::cosh(be * u))
        - e * (-2.0 * us + 2.0 * us * libm::cosh(be * us));
    (sigma, s_u, s_us, s_zs, [s_ka, s_kb, s_al, s_be])
}

fn em_xi(mode: usize) -> f64 {
    if mode == 0 {
        1.0
    } else {
        -1.0
    }
}

impl HybridModel<2, 1, 4> for EmOscillator {
    const MODES: &'static [ModeInfo] = &[memory_mode("loading"), memory_mode("unloading")];
    const GUARDS: &'static [GuardInfo] = &[
        guard("reversal_down", 0, 1, Direction::Falling),
        guard("reversal_up", 1, 0, Direction::Rising),
    ];
    const STATE_NAMES: [&'static str; 2] = ["u", "v"];
    const ALGEBRAIC_NAMES: [&'static str; 1] = ["z"];
    const PARAMETER_NAMES: [&'static str; 4] = ["k_a", "k_b", "alpha", "beta"];
    fn residual(&self, mode: usize, at: &Point<'_, 2, 1, 4>, f: &mut [f64; 2], g: &mut [f64; 1]) {
        let t = at.t;
        f[0] = at.y[1];
        f[1] = -at.z[0] + 0.5 * t * libm::sin(2.0 * core::f64::consts::PI * t);
        let (s, ..) = em_sigma(at.y[0], at.memory.y[0], at.memory.z[0], at.p, em_xi(mode));
        g[0] = at.z[0] - s;
    }
    fn jacobian(&self, mode: usize, at: &Point<'_, 2, 1, 4>, jac: &mut ModeJacobian<2, 1>) {
        let (_, s_u, ..) = em_sigma(at.y[0], at.memory.y[0], at.memory.z[0], at.p, em_xi(mode));
        jac.fy[0][1] = 1.0;
        jac.fz[1][0] = -1.0;
        jac.gy[0][0] = -s_u;
        jac.gz[0][0] = 1.0;
    }
    fn parameter_jacobian(
        &self,
        mode: usize,
        at: &Point<'_, 2, 1, 4>,
        _: &mut [[f64; 4]; 2],
        gp: &mut [[f64; 4]; 1],
    ) {
        let (.., sp) = em_sigma(at.y[0], at.memory.y[0], at.memory.z[0], at.p, em_xi(mode));
        for q in 0..4 {
            gp[0][q] = -sp[q];
        }
    }
    fn time_partials(
        &self,
        _: usize,
        at: &Point<'_, 2, 1, 4>,
        ft: &mut [f64; 2],
        _: &mut [f64; 1],
    ) {
        let w = 2.0 * core::f64::consts::PI;
        ft[1] = 0.5 * libm::sin(w * at.t) + 0.5 * at.t * w * libm::cos(w * at.t);
    }
    fn memory_jacobian(&self, mode: usize, at: &Point<'_, 2, 1, 4>, jac: &mut ModeJacobian<2, 1>) {
        let (_, _, s_us, s_zs, _) =
            em_sigma(at.y[0], at.memory.y[0], at.memory.z[0], at.p, em_xi(mode));
        jac.gy[0][0] = -s_us;
        jac.gz[0][0] = -s_zs;
    }
    fn guard(&self, _: usize, at: &Point<'_, 2, 1, 4>) -> f64 {
        at.y[1]
    }
    fn guard_partials(&self, _: usize, _: &Point<'_, 2, 1, 4>, d: &mut ScalarPartials<2, 1, 4>) {
        d.y[1] = 1.0;
    }
    fn integral_cost(&self, _: usize, at: &Point<'_, 2, 1, 4>) -> f64 {
        at.y[0] * at.y[0]
    }
    fn integral_cost_partials(
        &self,
        _: usize,
        at: &Point<'_, 2, 1, 4>,
        d: &mut ScalarPartials<2, 1, 4>,
    ) {
        d.y[0] = 2.0 * at.y[0];
    }
}

impl ModelSizes<3, 6> for EmOscillator {}
impl ModelTypes<2, 1, 4> for EmOscillator {
    type State = [f64; 2];
    type Algebraic = [f64; 1];
    type Params = [f64; 4];
}

/// Ex. 5.2 from rest, u(0) = v(0) = 0 (z0 = 0 is a guess, made consistent), with
/// sensitivities, on [0, tf] at p = (k_a, k_b, α, β).
pub fn em_problem(p: [f64; 4], tf: f64) -> HybridProblem<'static, 2, 1, 4> {
    HybridProblem {
        t0: 0.0,
        tf,
        y0: [0.0, 0.0],
        z0: [0.0],
        p,
        sensitivities: Some([[0.0; 4]; 2]),
        sample_times: &[],
        sample_data: &[],
    }
}

/// The parameters of Ex. 5.2: k_a = 32π², k_b = π², α = 205, β = 0.
pub fn em_parameters() -> [f64; 4] {
    let pi2 = core::f64::consts::PI * core::f64::consts::PI;
    [32.0 * pi2, pi2, 205.0, 0.0]
}

// ---------------------------------------------------------------------------------------------
// Smooth modes for the ESDIRK integrator.
// ---------------------------------------------------------------------------------------------

/// y1' = −y1², y2' = cos(t)·y2; exact y1 = 1/(1+t) (y1(0) = 1), y2 = exp(sin t) (y2(0) = 1).
#[derive(Debug)]
pub struct Smooth;
impl SmoothMode<2, 0, 0> for Smooth {
    fn f(&self, t: f64, y: &[f64; 2], _: &[f64; 0], _: &[f64; 0], o: &mut [f64; 2]) {
        o[0] = -y[0] * y[0];
        o[1] = libm::cos(t) * y[1];
    }
    fn g(&self, _: f64, _: &[f64; 2], _: &[f64; 0], _: &[f64; 0], _: &mut [f64; 0]) {}
    fn jacobian(
        &self,
        t: f64,
        y: &[f64; 2],
        _: &[f64; 0],
        _: &[f64; 0],
        j: &mut ModeJacobian<2, 0>,
    ) {
        j.fy[0][0] = -2.0 * y[0];
        j.fy[1][1] = libm::cos(t);
    }
    fn parameter_jacobian(
        &self,
        _: f64,
        _: &[f64; 2],
        _: &[f64; 0],
        _: &[f64; 0],
        _: &mut [[f64; 0]; 2],
        _: &mut [[f64; 0]; 0],
    ) {
    }
}
/// The exact solution of [`Smooth`] at `t`.
pub fn smooth_exact(t: f64) -> [f64; 2] {
    [1.0 / (1.0 + t), libm::exp(libm::sin(t))]
}

/// A small index-1 DAE with a parameter p = [u]:
/// x1' = −u x1 + z, x2' = x1 − x2 z, 0 = z³ + z − x1 x2 − u; run from x(0) = (1, 0.5),
/// z(0) = 1 at u = 0.7 on [0, 1] (see [`CUBIC_DAE_X1`]).
#[derive(Debug)]
pub struct CubicDae;
impl SmoothMode<2, 1, 1> for CubicDae {
    fn f(&self, _: f64, x: &[f64; 2], z: &[f64; 1], p: &[f64; 1], o: &mut [f64; 2]) {
        o[0] = -p[0] * x[0] + z[0];
        o[1] = x[0] - x[1] * z[0];
    }
    fn g(&self, _: f64, x: &[f64; 2], z: &[f64; 1], p: &[f64; 1], o: &mut [f64; 1]) {
        o[0] = z[0] * z[0] * z[0] + z[0] - x[0] * x[1] - p[0];
    }
    fn jacobian(
        &self,
        _: f64,
        x: &[f64; 2],
        z: &[f64; 1],
        p: &[f64; 1],
        j: &mut ModeJacobian<2, 1>,
    ) {
        j.fy = [[-p[0], 0.0], [1.0, -z[0]]];
        j.fz = [[1.0], [-x[1]]];
        j.gy = [[-x[1], -x[0]]];
        j.gz = [[3.0 * z[0] * z[0] + 1.0]];
    }
    fn parameter_jacobian(
        &self,
        _: f64,
        x: &[f64; 2],
        _: &[f64; 1],
        _: &[f64; 1],
        fp: &mut [[f64; 1]; 2],
        gp: &mut [[f64; 1]; 1],
    ) {
        fp[0][0] = -x[0];
        gp[0][0] = -1.0;
    }
}

/// The DAE above at t = 1 (u = 0.7): reference from ESDIRK34 with N = 4096 fixed steps in
/// 50-digit arithmetic; its own error is ≈ 6.2e-6·(10/4096)³ ≈ 1e-13.
pub const CUBIC_DAE_X1: [f64; 2] = [1.116889410843720, 0.916851892065798];
/// z(1) of the DAE above.
pub const CUBIC_DAE_Z1: f64 = 0.927118543605219;

/// Linear system with closed form: a damped oscillator y1' = −y1 + 10 y2, y2' = −10 y1 − y2
/// and a stiff forced component y3' = −1000 (y3 − cos t) − sin t.
/// Exact: y1 = e^{−t}(cos 10t + sin 10t), y2 = e^{−t}(cos 10t − sin 10t) for y(0) = (1, 1),
/// y3 = cos t + e^{−1000 t} for y3(0) = 2.
#[derive(Debug)]
pub struct Linear;
impl SmoothMode<3, 0, 0> for Linear {
    fn f(&self, t: f64, y: &[f64; 3], _: &[f64; 0], _: &[f64; 0], o: &mut [f64; 3]) {
        o[0] = -y[0] + 10.0 * y[1];
        o[1] = -10.0 * y[0] - y[1];
        o[2] = -1000.0 * (y[2] - libm::cos(t)) - libm::sin(t);
    }
    fn g(&self, _: f64, _: &[f64; 3], _: &[f64; 0], _: &[f64; 0], _: &mut [f64; 0]) {}
    fn jacobian(
        &self,
        _: f64,
        _: &[f64; 3],
        _: &[f64; 0],
        _: &[f64; 0],
        j: &mut ModeJacobian<3, 0>,
    ) {
        j.fy = [[-1.0, 10.0, 0.0], [-10.0, -1.0, 0.0], [0.0, 0.0, -1000.0]];
    }
    fn parameter_jacobian(
        &self,
        _: f64,
        _: &[f64; 3],
        _: &[f64; 0],
        _: &[f64; 0],
        _: &mut [[f64; 0]; 3],
        _: &mut [[f64; 0]; 0],
    ) {
    }
}
/// The exact solution of [`Linear`] at `t`.
pub fn linear_exact(t: f64) -> [f64; 3] {
    let e = libm::exp(-t);
    let (s, c) = (libm::sin(10.0 * t), libm::cos(10.0 * t));
    [
        e * (c + s),
        e * (c - s),
        libm::cos(t) + libm::exp(-1000.0 * t),
    ]
}

/// Scalar y' = λ y + a·3t² with λ and a as parameters (for exactness checks).
#[derive(Debug)]
pub struct Scalar;
impl SmoothMode<1, 0, 2> for Scalar {
    fn f(&self, t: f64, y: &[f64; 1], _: &[f64; 0], p: &[f64; 2], o: &mut [f64; 1]) {
        o[0] = p[0] * y[0] + p[1] * 3.0 * t * t;
    }
    fn g(&self, _: f64, _: &[f64; 1], _: &[f64; 0], _: &[f64; 2], _: &mut [f64; 0]) {}
    fn jacobian(
        &self,
        _: f64,
        _: &[f64; 1],
        _: &[f64; 0],
        p: &[f64; 2],
        j: &mut ModeJacobian<1, 0>,
    ) {
        j.fy[0][0] = p[0];
    }
    fn parameter_jacobian(
        &self,
        t: f64,
        y: &[f64; 1],
        _: &[f64; 0],
        _: &[f64; 2],
        fp: &mut [[f64; 2]; 1],
        _: &mut [[f64; 2]; 0],
    ) {
        fp[0] = [y[0], 3.0 * t * t];
    }
}

/// Robertson's chemical kinetics with the rate constants as parameters `p = (k1, k2, k3)`:
///
/// ```text
/// y1' = −k1 y1 + k3 y2 y3
/// y2' =  k1 y1 − k3 y2 y3 − k2 y2²
/// y3' =  k2 y2²
/// ```
///
/// Jacobians are exact (hand-derived; the same formulas are in
/// `bench/reference/robertson_fsa.py`, whose sensitivity equations were checked there against
/// central differences of state-only solves).
#[derive(Debug)]
pub struct Robertson;

/// Nominal rate constants `(k1, k2, k3)`.
pub const K: [f64; 3] = [0.04, 3.0e7, 1.0e4];

/// Initial state.
pub const Y0: [f64; 3] = [1.0, 0.0, 0.0];

impl SmoothMode<3, 0, 3> for Robertson {
    fn f(&self, _: f64, y: &[f64; 3], _: &[f64; 0], p: &[f64; 3], o: &mut [f64; 3]) {
        let [k1, k2, k3] = *p;
        o[0] = -k1 * y[0] + k3 * y[1] * y[2];
        o[1] = k1 * y[0] - k3 * y[1] * y[2] - k2 * y[1] * y[1];
        o[2] = k2 * y[1] * y[1];
    }
    fn g(&self, _: f64, _: &[f64; 3], _: &[f64; 0], _: &[f64; 3], _: &mut [f64; 0]) {}
    fn jacobian(
        &self,
        _: f64,
        y: &[f64; 3],
        _: &[f64; 0],
        p: &[f64; 3],
        j: &mut ModeJacobian<3, 0>,
    ) {
        let [k1, k2, k3] = *p;
        j.fy = [
            [-k1, k3 * y[2], k3 * y[1]],
            [k1, -k3 * y[2] - 2.0 * k2 * y[1], -k3 * y[1]],
            [0.0, 2.0 * k2 * y[1], 0.0],
        ];
    }
    fn parameter_jacobian(
        &self,
        _: f64,
        y: &[f64; 3],
        _: &[f64; 0],
        _: &[f64; 3],
        fp: &mut [[f64; 3]; 3],
        _: &mut [[f64; 3]; 0],
    ) {
        fp[0] = [-y[0], 0.0, y[1] * y[2]];
        fp[1] = [y[0], -y[1] * y[1], -y[1] * y[2]];
        fp[2] = [0.0, y[1] * y[1], 0.0];
    }
}
