// Hand-written hybrid models shared by the unit tests (`hybrid_tests.rs`) and the integration
// test `tests/zero_alloc.rs`, which `include!` this file after importing the runtime's model
// types (`HybridModel`, `Point`, `ModeJacobian`, …) under their plain names.

/// Serban & Recuero Ex. 5.1 (note 000 §4.1): ẋ = 4 − x (mode A), 10 − 2x (mode B); guard
/// h = x³ − 5x² + 7x − p, A→B rising, B→A falling; cost G = ∫ x dt. Optional terminal cost x(t_f)
/// and sampled cost Σ (x − d)² for the cost tests.
pub struct Ex51 {
    pub terminal: bool,
    pub sampled: bool,
}

fn ex51_h(x: f64, p: f64) -> f64 {
    x * x * x - 5.0 * x * x + 7.0 * x - p
}

impl HybridModel<1, 0, 1> for Ex51 {
    const MODES: &'static [ModeInfo] = &[
        ModeInfo {
            name: "A",
            uses_memory: false,
            constant_jacobian: false,
        },
        ModeInfo {
            name: "B",
            uses_memory: false,
            constant_jacobian: false,
        },
    ];
    const GUARDS: &'static [GuardInfo] = &[
        GuardInfo {
            name: "A_to_B",
            from: 0,
            to: 1,
            direction: Direction::Rising,
            has_reset: false,
        },
        GuardInfo {
            name: "B_to_A",
            from: 1,
            to: 0,
            direction: Direction::Falling,
            has_reset: false,
        },
    ];
    // Mode A where x³ − 5x² + 7x ≤ p (note 000 §4.1, Eq. 39).
    const INITIAL_MODE: InitialMode = InitialMode::ByGuardSigns {
        rules: &[(0, false, 0), (0, true, 1)],
        fallback: Some(0),
    };
    const STATE_NAMES: [&'static str; 1] = ["x"];
    const ALGEBRAIC_NAMES: [&'static str; 0] = [];
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
    fn time_partials(&self, _: usize, _: &Point<'_, 1, 0, 1>, _: &mut [f64; 1], _: &mut [f64; 0]) {
    }
    fn memory_jacobian(&self, _: usize, _: &Point<'_, 1, 0, 1>, _: &mut ModeJacobian<1, 0>) {}
    fn guard(&self, _: usize, at: &Point<'_, 1, 0, 1>) -> f64 {
        ex51_h(at.y[0], at.p[0])
    }
    fn guard_partials(&self, _: usize, at: &Point<'_, 1, 0, 1>, d: &mut ScalarPartials<1, 0, 1>) {
        let x = at.y[0];
        d.y[0] = 3.0 * x * x - 10.0 * x + 7.0;
        d.p[0] = -1.0;
    }
    fn reset(&self, _: usize, at: &Point<'_, 1, 0, 1>, y: &mut [f64; 1]) {
        *y = *at.y;
    }
    fn reset_jacobian(&self, _: usize, _: &Point<'_, 1, 0, 1>, j: &mut ResetJacobian<1, 0, 1>) {
        j.y[0][0] = 1.0;
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

/// Bouncing ball: y = (height z, velocity v), ż = v, v̇ = −g; guard z falling; reset
/// v⁺ = −γ v⁻. Parameters p = (z0, v0, g, γ): the initial state is (p0, p1).
pub struct Ball;

impl HybridModel<2, 0, 4> for Ball {
    const MODES: &'static [ModeInfo] = &[ModeInfo {
        name: "flight",
        uses_memory: false,
        constant_jacobian: false,
    }];
    const GUARDS: &'static [GuardInfo] = &[GuardInfo {
        name: "impact",
        from: 0,
        to: 0,
        direction: Direction::Falling,
        has_reset: true,
    }];
    const INITIAL_MODE: InitialMode = InitialMode::Fixed(0);
    const STATE_NAMES: [&'static str; 2] = ["z", "v"];
    const ALGEBRAIC_NAMES: [&'static str; 0] = [];
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
    fn time_partials(&self, _: usize, _: &Point<'_, 2, 0, 4>, _: &mut [f64; 2], _: &mut [f64; 0]) {
    }
    fn memory_jacobian(&self, _: usize, _: &Point<'_, 2, 0, 4>, _: &mut ModeJacobian<2, 0>) {}
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
    fn integral_cost(&self, _: usize, _: &Point<'_, 2, 0, 4>) -> f64 {
        0.0
    }
    fn integral_cost_partials(
        &self,
        _: usize,
        _: &Point<'_, 2, 0, 4>,
        _: &mut ScalarPartials<2, 0, 4>,
    ) {
    }
    fn terminal_cost(&self, at: &Point<'_, 2, 0, 4>) -> f64 {
        at.y[0]
    }
    fn terminal_cost_partials(&self, _: &Point<'_, 2, 0, 4>, d: &mut ScalarPartials<2, 0, 4>) {
        d.y[0] = 1.0;
    }
    fn sampled_cost(&self, _: &Point<'_, 2, 0, 4>, _: f64) -> f64 {
        0.0
    }
    fn sampled_cost_partials(&self, _: &Point<'_, 2, 0, 4>, _: f64, _: &mut ScalarPartials<2, 0, 4>) {
    }
}

impl ModelSizes<2, 6> for Ball {}

