//! Ill-posed constrained mechanics is an error that says what happened, never a panic or a
//! wrong answer: a singular mass matrix, a start off the constraints, and a constraint set
//! whose Jacobian loses rank where a mode is entered. The models are a point mass on a rod in
//! the mass-matrix form of an index-2 mode (`q' = v + Φ_qᵀ μ`, `v' = a`, `M a + Φ_qᵀ λ = F`,
//! `Φ = 0`, `Φ_q v = 0`; `tests/five_bar.rs` has the mechanism), and a mass falling freely until
//! a rope declared twice becomes taut.

use hysens::prelude::*;
use hysens::runtime::SolveError;

#[hybrid_model]
mod bead {
    /// Position and velocity.
    #[states]
    pub struct X {
        pub x: f64,
        pub y: f64,
        pub u: f64,
        pub w: f64,
    }

    /// Accelerations and the two multipliers.
    #[algebraic]
    pub struct Z {
        pub ax: f64,
        pub ay: f64,
        pub lam: f64,
        pub mu: f64,
    }

    /// Mass and rod length.
    #[params]
    pub struct P {
        pub m: f64,
        pub l: f64,
    }

    /// On the rod, the equations of motion not inverted.
    #[mode(initial, index2)]
    fn swinging(x: &X, z: &Z, p: &P) -> (X, [f64; 4]) {
        (
            X {
                x: x.u + x.x * z.mu,
                y: x.w + x.y * z.mu,
                u: z.ax,
                w: z.ay,
            },
            [
                p.m * z.ax + x.x * z.lam,
                p.m * z.ay + x.y * z.lam + p.m * 9.81,
                0.5 * (x.x * x.x + x.y * x.y - p.l * p.l),
                x.x * x.u + x.y * x.w,
            ],
        )
    }
}

#[hybrid_model]
mod twice {
    /// Position and velocity.
    #[states]
    pub struct X {
        pub x: f64,
        pub y: f64,
        pub u: f64,
        pub w: f64,
    }

    /// The multipliers of two copies of the rope's constraints.
    #[algebraic]
    pub struct Z {
        pub l1: f64,
        pub l2: f64,
        pub m1: f64,
        pub m2: f64,
    }

    /// Falling freely.
    #[mode(initial)]
    fn falling(x: &X, z: &Z) -> (X, [f64; 4]) {
        (
            X {
                x: x.u,
                y: x.w,
                u: 0.0,
                w: -9.81,
            },
            [z.l1, z.l2, z.m1, z.m2],
        )
    }

    /// On the rope, its constraint declared twice: `Φ_q` has rank 1 of 2.
    #[mode(index2)]
    fn taut(x: &X, z: &Z) -> (X, [f64; 4]) {
        (
            X {
                x: x.u + x.x * (z.m1 + 2.0 * z.m2),
                y: x.w + x.y * (z.m1 + 2.0 * z.m2),
                u: -x.x * (z.l1 + 2.0 * z.l2),
                w: -9.81 - x.y * (z.l1 + 2.0 * z.l2),
            },
            [
                0.5 * (x.x * x.x + x.y * x.y - 1.0),
                x.x * x.x + x.y * x.y - 1.0,
                x.x * x.u + x.y * x.w,
                2.0 * (x.x * x.u + x.y * x.w),
            ],
        )
    }

    /// The rope becomes taut.
    #[guard(falling -> taut, rising)]
    fn tight(x: &X) -> f64 {
        x.x * x.x + x.y * x.y - 1.0
    }
}

/// Released from rest at 60° on a rod of length 1.
fn released() -> bead::X {
    let a = 1.0f64;
    bead::X {
        x: a.sin(),
        y: -a.cos(),
        u: 0.0,
        w: 0.0,
    }
}

/// The well-posed model solves (the reference for the errors below).
#[test]
fn the_bead_solves() {
    let solution = bead::Model
        .solver()
        .tolerances(1e-8, 1e-10)
        .sensitivities_to(Params::All, InitialStates::All)
        .solve(0.0, 2.0, &released(), &bead::P { m: 2.0, l: 1.0 })
        .expect("solves");
    let y = solution.y;
    assert!((y[0] * y[0] + y[1] * y[1] - 1.0).abs() < 1e-12);
}

/// A zero mass makes `M` singular, and with it the condition that defines `z`: an error at
/// `t0` naming the singular column, for the forward solve and the adjoint alike.
#[test]
fn a_singular_mass_matrix_is_an_error() {
    let p = bead::P { m: 0.0, l: 1.0 };
    let solver = bead::Model.solver().tolerances(1e-8, 1e-10);
    let failure = solver.solve(0.0, 2.0, &released(), &p).expect_err("M = 0");
    println!("{failure}");
    assert!(
        matches!(
            failure.error,
            SolveError::InconsistentInitialValues {
                singular_column: Some(_),
                ..
            } | SolveError::SingularMatrix { .. }
        ),
        "{failure}"
    );
    assert!(solver.gradient(0.0, 2.0, &released(), &p).is_err());
}

/// A start off the rod (its length 1.2, the rod's 1) is refused with the distance.
#[test]
fn a_start_off_the_constraints_is_an_error() {
    let p = bead::P { m: 2.0, l: 1.0 };
    let start = bead::X {
        x: 1.2,
        y: 0.0,
        u: 0.0,
        w: 0.0,
    };
    let failure = bead::Model
        .solver()
        .tolerances(1e-8, 1e-10)
        .solve(0.0, 2.0, &start, &p)
        .expect_err("off the rod");
    println!("{failure}");
    assert!(
        matches!(failure.error, SolveError::OffConstraint { .. }),
        "{failure}"
    );
}

/// Entering a mode whose constraints' Jacobian has lost rank (the rope declared twice; the
/// macro's structural check cannot see it: every equation reads a multiplier) is an error at
/// the event, with the solution up to it kept.
#[test]
fn a_rank_deficient_constraint_set_at_an_event_is_an_error() {
    let start = twice::X {
        x: 0.3,
        y: 0.0,
        u: 1.0,
        w: 0.5,
    };
    let failure = twice::Model
        .solver()
        .tolerances(1e-8, 1e-10)
        .solve(0.0, 1.5, &start, &NoParams)
        .expect_err("rank deficient");
    println!("{failure}");
    assert!(
        matches!(failure.error, SolveError::DependentConstraints { .. }),
        "{failure}"
    );
    let t = failure.partial.t;
    assert!(t > 0.4 && t < 0.5, "at the event: {t}");
}
