//! The five-bar mechanism of Corner, Sandu & Sandu (2019, §7), as reconstructed in the project's
//! notes (the paper leaves gravity, the mass model, the springs' attachment points and the
//! dependent branch unstated): a planar linkage of four moving bars `A–1–2–3–B` between two
//! fixed pins `A = (−0.5, 0)`, `B = (0.5, 0)`, in natural coordinates `q = (q1, q2, q3)`, the
//! three moving joints, with two degrees of freedom. Point 2 bounces on the ground `y = −2.35`.
//!
//! **Equations.** The bars are uniform slender rods (the natural-coordinate mass block
//! `m [I/3, I/6; I/6, I/3]` of a bar, the fixed pins' blocks dropped): with the masses
//! `1, 1.5, 1.5, 1` kg, `M = K ⊗ I₂`, `K = [[5/6, 1/4, 0], [1/4, 1, 1/4], [0, 1/4, 5/6]]`, whose
//! inverse `[[111/85, −6/17, 9/85], [−6/17, 20/17, −6/17], [9/85, −6/17, 111/85]]` is written
//! out below. Forces: each bar's weight split between its two ends (`g = 9.81` down), spring 1
//! (`k = 100 N/m`, natural length `L01`) from `A` to point 3, spring 2 (`L02`) from `B` to point
//! 2. Constraints (the paper's Eq. 98): `|q1 − A|² = L_A1²`, `|q2 − q1|² = L_21²`,
//! `|q3 − q2|² = L_32²`, `|q3 − B|² = L_B3²` with the printed lengths 1.4142 and 1.8027 m.
//! The index-3 system `q' = v`, `M v' = F − Φ_qᵀ λ`, `Φ = 0` is solved in the stabilized
//! index-2 form of Gear, Gupta & Leimkuhler,
//!
//! ```text
//! q' = v + Φ_qᵀ μ,   v' = M⁻¹ (F − Φ_qᵀ λ),   0 = Φ(q),   0 = Φ_q v,
//! ```
//!
//! a Hessenberg index-2 mode: both constraints hold at every stage (no drift), `μ` is zero on
//! the exact solution.
//!
//! **The impact** (map (c) of the note's §5: a constrained impact): the independent velocity
//! of point 2 is jumped, `(ẋ2, ẏ2)⁺ = (ẋ2, −ẏ2)⁻` (elastic), and the dependent velocities
//! follow from the post-impact velocity constraints `Φ_q v⁺ = 0`, which split in two 2×2
//! systems: `(q1 − A)·v1 = 0`, `(q2 − q1)·v1 = (q2 − q1)·v2`, so
//! `v1 = ((q2 − q1)·v2) (q1 − A)⊥ / ((q2 − q1)·(q1 − A)⊥)`, and alike for `v3` with `B` and
//! `q3 − q2` (`a⊥ = (−a_y, a_x)`).
//!
//! **Costs** (the paper's quadratures): `∫ ẏ2 dt` and `∫ ÿ2 dt`, the latter reading the
//! multipliers `λ` through the acceleration (note P15), each a named cost.

#[hysens::hybrid_model]
pub mod five_bar {
    /// Gravity (m/s²).
    const G: f64 = 9.81;
    /// The springs' stiffness (N/m).
    const K_SPRING: f64 = 100.0;
    /// `L_A1 = L_B3` (m), as printed (close to `√2`, but the reference uses these digits).
    #[allow(clippy::approx_constant)]
    pub const L_OUTER: f64 = 1.4142;
    /// `L_21 = L_32` (m), as printed.
    pub const L_INNER: f64 = 1.8027;
    /// The ground's height (m).
    pub const GROUND: f64 = -2.35;
    /// The diagonal entries of `K⁻¹` at the ends, at the middle, and its couplings.
    const K_END: f64 = 111.0 / 85.0;
    const K_MID: f64 = 20.0 / 17.0;
    const K_NEXT: f64 = -6.0 / 17.0;
    const K_FAR: f64 = 9.0 / 85.0;

    /// The joints' positions and velocities.
    #[states]
    pub struct X {
        /// Joint 1, x (m).
        pub x1: f64,
        /// Joint 1, y (m).
        pub y1: f64,
        /// Joint 2, x (m): a degree of freedom.
        pub x2: f64,
        /// Joint 2, y (m): a degree of freedom.
        pub y2: f64,
        /// Joint 3, x (m).
        pub x3: f64,
        /// Joint 3, y (m).
        pub y3: f64,
        /// Joint 1, x velocity (m/s).
        pub u1: f64,
        /// Joint 1, y velocity (m/s).
        pub w1: f64,
        /// Joint 2, x velocity (m/s).
        pub u2: f64,
        /// Joint 2, y velocity (m/s).
        pub w2: f64,
        /// Joint 3, x velocity (m/s).
        pub u3: f64,
        /// Joint 3, y velocity (m/s).
        pub w3: f64,
    }

    /// The multipliers: `λ` of the position constraints, `μ` of the velocity constraints.
    #[algebraic]
    pub struct Z {
        /// Bar A–1.
        pub l1: f64,
        /// Bar 1–2.
        pub l2: f64,
        /// Bar 2–3.
        pub l3: f64,
        /// Bar 3–B.
        pub l4: f64,
        /// Bar A–1, velocity level.
        pub m1: f64,
        /// Bar 1–2, velocity level.
        pub m2: f64,
        /// Bar 2–3, velocity level.
        pub m3: f64,
        /// Bar 3–B, velocity level.
        pub m4: f64,
    }

    /// The springs' natural lengths, the paper's parameters.
    #[params]
    pub struct P {
        /// Spring 1, A to joint 3 (m).
        pub l01: f64,
        /// Spring 2, B to joint 2 (m).
        pub l02: f64,
    }

    /// The force of a spring of natural length `rest` from a pin to a joint, along `dx` (the
    /// joint minus the pin, components `dx, dy`).
    fn spring(dx: f64, dy: f64, rest: f64) -> f64 {
        let r = (dx * dx + dy * dy).sqrt();
        -K_SPRING * (r - rest) / r * dx
    }

    /// Moving, the bars held by the joints (GGL, index 2).
    #[mode(initial, index2)]
    fn moving(x: &X, z: &Z, p: &P) -> (X, [f64; 8]) {
        // The constraints' gradients, halved: Φ_q rows / 2.
        let ax = x.x1 + 0.5;
        let ay = x.y1;
        let bx = x.x2 - x.x1;
        let by = x.y2 - x.y1;
        let cx = x.x3 - x.x2;
        let cy = x.y3 - x.y2;
        let dx = x.x3 - 0.5;
        let dy = x.y3;
        // Φ_qᵀ λ and Φ_qᵀ μ by joint.
        let r1x = 2.0 * (ax * z.l1 - bx * z.l2);
        let r1y = 2.0 * (ay * z.l1 - by * z.l2);
        let r2x = 2.0 * (bx * z.l2 - cx * z.l3);
        let r2y = 2.0 * (by * z.l2 - cy * z.l3);
        let r3x = 2.0 * (cx * z.l3 + dx * z.l4);
        let r3y = 2.0 * (cy * z.l3 + dy * z.l4);
        let s1x = 2.0 * (ax * z.m1 - bx * z.m2);
        let s1y = 2.0 * (ay * z.m1 - by * z.m2);
        let s2x = 2.0 * (bx * z.m2 - cx * z.m3);
        let s2y = 2.0 * (by * z.m2 - cy * z.m3);
        let s3x = 2.0 * (cx * z.m3 + dx * z.m4);
        let s3y = 2.0 * (cy * z.m3 + dy * z.m4);
        // F − Φ_qᵀ λ: the weights, spring 1 on joint 3 (from A), spring 2 on joint 2 (from B).
        let e3x = x.x3 + 0.5;
        let e3y = x.y3;
        let e2x = x.x2 - 0.5;
        let e2y = x.y2;
        let f1x = -r1x;
        let f1y = -1.25 * G - r1y;
        let f2x = spring(e2x, e2y, p.l02) - r2x;
        let f2y = -1.5 * G + spring(e2y, e2x, p.l02) - r2y;
        let f3x = spring(e3x, e3y, p.l01) - r3x;
        let f3y = -1.25 * G + spring(e3y, e3x, p.l01) - r3y;
        (
            X {
                x1: x.u1 + s1x,
                y1: x.w1 + s1y,
                x2: x.u2 + s2x,
                y2: x.w2 + s2y,
                x3: x.u3 + s3x,
                y3: x.w3 + s3y,
                u1: K_END * f1x + K_NEXT * f2x + K_FAR * f3x,
                w1: K_END * f1y + K_NEXT * f2y + K_FAR * f3y,
                u2: K_NEXT * f1x + K_MID * f2x + K_NEXT * f3x,
                w2: K_NEXT * f1y + K_MID * f2y + K_NEXT * f3y,
                u3: K_FAR * f1x + K_NEXT * f2x + K_END * f3x,
                w3: K_FAR * f1y + K_NEXT * f2y + K_END * f3y,
            },
            [
                ax * ax + ay * ay - L_OUTER * L_OUTER,
                bx * bx + by * by - L_INNER * L_INNER,
                cx * cx + cy * cy - L_INNER * L_INNER,
                dx * dx + dy * dy - L_OUTER * L_OUTER,
                2.0 * (ax * x.u1 + ay * x.w1),
                2.0 * (bx * (x.u2 - x.u1) + by * (x.w2 - x.w1)),
                2.0 * (cx * (x.u3 - x.u2) + cy * (x.w3 - x.w2)),
                2.0 * (dx * x.u3 + dy * x.w3),
            ],
        )
    }

    /// Joint 2 reaches the ground.
    #[guard(moving -> moving, falling)]
    fn ground(x: &X) -> f64 {
        x.y2 - GROUND
    }

    /// The elastic impact of joint 2, the other joints' velocities from the constraints.
    #[reset(ground)]
    fn impact(x: &X) -> X {
        let u2 = x.u2;
        let w2 = -x.w2;
        let ax = x.x1 + 0.5;
        let ay = x.y1;
        let bx = x.x2 - x.x1;
        let by = x.y2 - x.y1;
        let cx = x.x3 - x.x2;
        let cy = x.y3 - x.y2;
        let dx = x.x3 - 0.5;
        let dy = x.y3;
        // v1 ∥ (q1 − A)⊥ = (−ay, ax), with (q2 − q1)·v1 = (q2 − q1)·v2.
        let s1 = (bx * u2 + by * w2) / (-bx * ay + by * ax);
        // v3 ∥ (q3 − B)⊥ = (−dy, dx), with (q3 − q2)·v3 = (q3 − q2)·v2.
        let s3 = (cx * u2 + cy * w2) / (-cx * dy + cy * dx);
        X {
            x1: x.x1,
            y1: x.y1,
            x2: x.x2,
            y2: x.y2,
            x3: x.x3,
            y3: x.y3,
            u1: -s1 * ay,
            w1: s1 * ax,
            u2,
            w2,
            u3: -s3 * dy,
            w3: s3 * dx,
        }
    }

    /// `∫ ẏ2 dt` (equals `y2(t) − y2(0)`).
    #[cost(integral)]
    fn z1(x: &X) -> f64 {
        x.w2
    }

    /// `∫ ÿ2 dt`, the acceleration from the multipliers (misses the impacts' impulses).
    #[cost(integral)]
    fn z2(x: &X, z: &Z, p: &P) -> f64 {
        let ay = x.y1;
        let by = x.y2 - x.y1;
        let cy = x.y3 - x.y2;
        let dy = x.y3;
        let r1y = 2.0 * (ay * z.l1 - by * z.l2);
        let r2y = 2.0 * (by * z.l2 - cy * z.l3);
        let r3y = 2.0 * (cy * z.l3 + dy * z.l4);
        let e2x = x.x2 - 0.5;
        let e2y = x.y2;
        let e3x = x.x3 + 0.5;
        let e3y = x.y3;
        let f1y = -1.25 * G - r1y;
        let f2y = -1.5 * G + spring(e2y, e2x, p.l02) - r2y;
        let f3y = -1.25 * G + spring(e3y, e3x, p.l01) - r3y;
        K_NEXT * f1y + K_MID * f2y + K_NEXT * f3y
    }
}
