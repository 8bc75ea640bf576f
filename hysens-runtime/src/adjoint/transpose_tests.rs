//! Dot-product tests: for each forward event map `x ↦ A x + b_q` (the code that runs, on a
//! small affine model with random constant partials), random incoming columns `x_q` and
//! random seeds `ȳ`: `⟨ȳ, A x_q + b_q⟩ = ⟨Aᵀ ȳ, x_q⟩ + p̄_q` for every column `q`. The
//! accumulators of a transpose (`p̄`, memory adjoints) start random and only what it added
//! enters the identity, so a transpose that overwrites instead of accumulating fails too.
//!
//! They stay inside the crate because the maps they check (`jump.rs`, `length.rs`, `start.rs`
//! and their forward counterparts in `fsa/`) are crate-private: no test in `tests/` can reach
//! them.
#![allow(clippy::needless_range_loop)]

use super::jump::*;
use super::length::*;
use super::start::*;
use crate::fsa::jump::{jump_sensitivities, PreEventSensitivities};
use crate::fsa::length::{event_step_length_derivative as length_map, EventStep};
use crate::fsa::Esdirk;
use crate::linalg::test_rng::Rng;
use crate::model::{
    Direction, GuardInfo, HybridModel, Memory, ModeAdapter, ModeInfo, ModeJacobian, Point,
    ResetJacobian, ScalarPartials,
};
use crate::step::StepLength;
use crate::tableau::{Tableau, ESDIRK23, ESDIRK34};
use crate::Options;
use core::array::from_fn;

type Cols<const K: usize, const NP: usize> = [[f64; NP]; K];
type Pt<'a, const NY: usize, const NZ: usize, const NP: usize> = Point<'a, NY, NZ, NP>;

/// The tests' draws: any value with random `f64`s, and seeds of order one.
impl Rng {
    fn any<T: Random>(&mut self) -> T {
        T::random(self)
    }
    /// A seed of magnitude in `[0.5, 1.5)` (keeps a single product of order one).
    fn seed(&mut self) -> f64 {
        let u = self.next();
        u.signum() * (0.5 + u.abs())
    }
}

/// A value with every `f64` in it random.
trait Random {
    fn random(r: &mut Rng) -> Self;
}
impl Random for f64 {
    fn random(r: &mut Rng) -> Self {
        r.next()
    }
}
impl<T: Random, const K: usize> Random for [T; K] {
    fn random(r: &mut Rng) -> Self {
        from_fn(|_| T::random(r))
    }
}
impl<A: Random, B: Random> Random for (A, B) {
    fn random(r: &mut Rng) -> Self {
        (A::random(r), B::random(r))
    }
}
/// `Random` for structs of random fields.
macro_rules! random {
    ($($s:ident<$($g:ident: $t:ty),*> { $($f:ident),* })*) => {$(
        impl<$(const $g: $t),*> Random for $s<$($g),*> {
            fn random(r: &mut Rng) -> Self {
                $s { $($f: r.any()),* }
            }
        }
    )*};
}
random! {
    StateAdjoint<NY: usize, NZ: usize> { y, z }
    RestartAdjoint<NY: usize, NZ: usize> { sy, tau, memory }
    Memory<NY: usize, NZ: usize> { y, z }
    ModeJacobian<NY: usize, NZ: usize> { fy, fz, gy, gz }
    ScalarPartials<NY: usize, NZ: usize, NP: usize> { t, y, z, p, memory_y, memory_z }
    ResetJacobian<NY: usize, NZ: usize, NP: usize> { t, y, z, p, memory_y, memory_z }
    Affine<NY: usize, NZ: usize, NP: usize, MEM: bool> { jac, mem, p, t, c, guard, reset }
    Data<NY: usize, NZ: usize, NP: usize, MEM: bool> { model, p, y, z, memory, s, ms, dt }
}

/// What a transpose added to an accumulator that held `before`.
fn added<const K: usize>(after: &[f64; K], before: &[f64; K]) -> [f64; K] {
    from_fn(|k| after[k] - before[k])
}

fn added_state<const NY: usize, const NZ: usize>(
    after: &StateAdjoint<NY, NZ>,
    before: &StateAdjoint<NY, NZ>,
) -> StateAdjoint<NY, NZ> {
    let (y, z) = (added(&after.y, &before.y), added(&after.z, &before.z));
    StateAdjoint { y, z }
}

/// A dot product with the sum of the magnitudes of its terms (the scale of its round-off).
#[derive(Default)]
struct Dot(f64, f64);
impl Dot {
    fn add(&mut self, a: f64, b: f64) {
        self.0 += a * b;
        self.1 += (a * b).abs();
    }
    /// `⟨a, B[:, q]⟩` for a sensitivity matrix `B` (rows = components).
    fn col<const NP: usize>(&mut self, a: &[f64], b: &[[f64; NP]], q: usize) {
        a.iter().zip(b).for_each(|(x, row)| self.add(*x, row[q]));
    }
    /// `⟨ȳ, S[:, q]⟩ + ⟨z̄, W[:, q]⟩` for a state or memory adjoint and its columns.
    fn state<const NY: usize, const NZ: usize, const NP: usize>(
        &mut self,
        bar: &StateAdjoint<NY, NZ>,
        (s, w): (&Cols<NY, NP>, &Cols<NZ, NP>),
        q: usize,
    ) {
        self.col(&bar.y, s, q);
        self.col(&bar.z, w, q);
    }
    /// `Σ_i ⟨Ȳ_i, dY_i[:, q]⟩ + ⟨Z̄_i, dZ_i[:, q]⟩`.
    fn stages<const S: usize, const NY: usize, const NZ: usize, const NP: usize>(
        &mut self,
        (yb, zb): (&[[f64; NY]; S], &[[f64; NZ]; S]),
        (y, z): (&[Cols<NY, NP>; S], &[Cols<NZ, NP>; S]),
        q: usize,
    ) {
        (0..S).for_each(|i| {
            self.col(&yb[i], &y[i], q);
            self.col(&zb[i], &z[i], q);
        });
    }
}

/// The harness: for every column `q`, `⟨ȳ, A x_q + b_q⟩` (`out`) equals `⟨Aᵀ ȳ, x_q⟩`
/// (`inp`) `+ p̄_q` to round-off, and is not vacuous.
fn identity<const NP: usize>(
    what: &str,
    p_bar: &[f64; NP],
    out: impl Fn(usize, &mut Dot),
    inp: impl Fn(usize, &mut Dot),
) {
    for q in 0..NP {
        let (mut lhs, mut rhs) = (Dot::default(), Dot::default());
        out(q, &mut lhs);
        inp(q, &mut rhs);
        rhs.add(p_bar[q], 1.0);
        let (scale, err) = (lhs.1.max(rhs.1), (lhs.0 - rhs.0).abs());
        assert!(err <= 1e-13 * scale, "{what}: {} ≠ {}", lhs.0, rhs.0);
        assert!(scale > 1e-3, "{what}: degenerate test");
    }
}

/// Two affine modes `y' = F_y y + F_z z + F_t t + F_p p + F_{y*} y* + F_{z*} z* + f0`,
/// `0 = G_y y + … + g0` (`jac`, `mem`, `p`, `t`, `c` per mode), guard 0 from mode 0 to mode
/// 1 with a reset; every partial random and constant. `MEM`: whether the modes read their
/// memory (the guard and the reset read it either way).
struct Affine<const NY: usize, const NZ: usize, const NP: usize, const MEM: bool> {
    jac: [ModeJacobian<NY, NZ>; 2],
    mem: [ModeJacobian<NY, NZ>; 2],
    p: [(Cols<NY, NP>, Cols<NZ, NP>); 2],
    t: [([f64; NY], [f64; NZ]); 2],
    c: [([f64; NY], [f64; NZ]); 2],
    guard: ScalarPartials<NY, NZ, NP>,
    reset: ResetJacobian<NY, NZ, NP>,
}

impl<const NY: usize, const NZ: usize, const NP: usize, const MEM: bool> HybridModel<NY, NZ, NP>
    for Affine<NY, NZ, NP, MEM>
{
    type Store = crate::Inline;
    const MODES: &'static [ModeInfo] = &[ModeInfo {
        name: "",
        uses_memory: MEM,
        constant_jacobian: false,
        terminal: false,
        index2: false,
    }; 2];
    const GUARDS: &'static [GuardInfo] = &[GuardInfo {
        name: "",
        from: 0,
        to: 1,
        direction: Direction::Either,
        has_reset: true,
        surface: None,
    }];
    const STATE_NAMES: [&'static str; NY] = [""; NY];
    const PARAMETER_NAMES: [&'static str; NP] = [""; NP];

    fn residual(&self, m: usize, at: &Pt<NY, NZ, NP>, f: &mut [f64; NY], g: &mut [f64; NZ]) {
        let (j, mj, (fp, gp), (ft, gt)) = (&self.jac[m], &self.mem[m], &self.p[m], &self.t[m]);
        let x: [&[f64]; 5] = [at.y, at.z, at.p, &at.memory.y, &at.memory.z];
        let lin = |c: f64, a: [&[f64]; 5]| {
            let terms = a.into_iter().zip(x).flat_map(|(a, x)| a.iter().zip(x));
            c + terms.map(|(a, x)| a * x).sum::<f64>()
        };
        for r in 0..NY {
            let a = [&j.fy[r][..], &j.fz[r], &fp[r], &mj.fy[r], &mj.fz[r]];
            f[r] = lin(self.c[m].0[r] + ft[r] * at.t, a);
        }
        for r in 0..NZ {
            let a = [&j.gy[r][..], &j.gz[r], &gp[r], &mj.gy[r], &mj.gz[r]];
            g[r] = lin(self.c[m].1[r] + gt[r] * at.t, a);
        }
    }
    fn jacobian(&self, m: usize, _: &Pt<NY, NZ, NP>, jac: &mut ModeJacobian<NY, NZ>) {
        jac.clone_from(&self.jac[m]);
    }
    fn parameter_jacobian(
        &self,
        m: usize,
        _: &Pt<NY, NZ, NP>,
        fp: &mut Cols<NY, NP>,
        gp: &mut Cols<NZ, NP>,
    ) {
        (*fp, *gp) = self.p[m];
    }
    fn time_partials(&self, m: usize, _: &Pt<NY, NZ, NP>, ft: &mut [f64; NY], gt: &mut [f64; NZ]) {
        (*ft, *gt) = self.t[m];
    }
    fn memory_jacobian(&self, m: usize, _: &Pt<NY, NZ, NP>, jac: &mut ModeJacobian<NY, NZ>) {
        jac.clone_from(&self.mem[m]);
    }
    fn guard_partials(&self, _: usize, _: &Pt<NY, NZ, NP>, d: &mut ScalarPartials<NY, NZ, NP>) {
        *d = self.guard;
    }
    fn reset_jacobian(&self, _: usize, _: &Pt<NY, NZ, NP>, r: &mut ResetJacobian<NY, NZ, NP>) {
        r.clone_from(&self.reset);
    }
}

type Adapter<'a, const NY: usize, const NZ: usize, const NP: usize, const MEM: bool> =
    ModeAdapter<'a, Affine<NY, NZ, NP, MEM>, NY, NZ, NP>;

/// The random data of one check: the model, `p`, a state `(y, z)` with its memory,
/// incoming sensitivities `s = (S, W)`, memory sensitivities `ms = (S*, W*)`, a grid shift.
struct Data<const NY: usize, const NZ: usize, const NP: usize, const MEM: bool> {
    model: Affine<NY, NZ, NP, MEM>,
    p: [f64; NP],
    y: [f64; NY],
    z: [f64; NZ],
    memory: Memory<NY, NZ>,
    s: (Cols<NY, NP>, Cols<NZ, NP>),
    ms: (Cols<NY, NP>, Cols<NZ, NP>),
    dt: [f64; NP],
}

impl<const NY: usize, const NZ: usize, const NP: usize, const MEM: bool> Data<NY, NZ, NP, MEM> {
    fn new(rng: &mut Rng) -> Self {
        let mut d: Self = rng.any();
        for (m, k) in (0..2).flat_map(|m| (0..NZ).map(move |k| (m, k))) {
            d.model.jac[m].gz[k][k] += 3.0; // well-conditioned g_z
        }
        d.model.guard.t += 2.0; // keeps den = h_t + h_y Φ_H + h_z Z_H away from zero
        d
    }
    fn adapter(&self, mode: usize) -> Adapter<'_, NY, NZ, NP, MEM> {
        ModeAdapter::new(&self.model, mode, self.memory, self.ms.0, self.ms.1)
    }
    fn at(&self) -> Point<'_, NY, NZ, NP> {
        let (y, z, p, memory) = (&self.y, &self.z, &self.p, &self.memory);
        Point {
            t: 0.3,
            y,
            z,
            p,
            memory,
        }
    }
    /// The integrator of `adapter`'s mode from `(t, y, z)` (its `z` made consistent), and
    /// in mode 0 with `event`, after an event step (`StepLength::Event`) of size 0.05 from
    /// the sensitivities `S` and the grid shift.
    fn esdirk<'a, const S: usize, const N: usize>(
        &self,
        adapter: &'a Adapter<'a, NY, NZ, NP, MEM>,
        tableau: &'a Tableau<S>,
        t: f64,
        event: bool,
    ) -> Esdirk<'a, Adapter<'a, NY, NZ, NP, MEM>, S, NY, NZ, NP, N> {
        let (mode, o) = (adapter.mode(), Options::new(1e-10, 1e-12));
        let mut it = Esdirk::new(adapter, tableau, mode, self.p, t, self.y, self.z, o).unwrap();
        if event {
            it.enable_sensitivities_at(self.s.0, self.dt).unwrap();
            it.evaluate_fixed(0.05).unwrap();
            let t_end = it.t() + 0.05;
            it.commit_fixed(0.05, t_end, StepLength::Event, &mut |_| {})
                .unwrap();
        }
        it
    }
}

/// The checks, one per map, each on fresh random data.
impl<const NY: usize, const NZ: usize, const NP: usize, const MEM: bool> Data<NY, NZ, NP, MEM> {
    /// Step 2: `event_step_length_derivative`.
    fn length(&self, rng: &mut Rng) {
        let (d, h_bar) = (self, rng.seed());
        let (yh, zh): ([f64; NY], [f64; NZ]) = rng.any();
        let (yh, zh) = (yh.map(|v| 0.3 * v), zh.map(|v| 0.3 * v));
        let (sy, sz, dt, memory_sy, memory_sz) = (&d.s.0, &d.s.1, &d.dt, &d.ms.0, &d.ms.1);
        let step = EventStep {
            sy,
            sz,
            yh: &yh,
            zh: &zh,
            dt,
            memory_sy,
            memory_sz,
        };
        let (dh, _) = length_map(&d.model, 0, 0, &d.at(), &step).unwrap();
        let (m0, p0): (StateAdjoint<NY, NZ>, [f64; NP]) = rng.any();
        let (mut m, mut p_bar) = (m0, p0);
        let x = step_length_derivative_transpose(
            &d.model,
            0,
            0,
            &d.at(),
            &yh,
            &zh,
            h_bar,
            &mut m,
            &mut p_bar,
        )
        .unwrap();
        identity(
            "event_step_length_derivative",
            &added(&p_bar, &p0),
            |q, o| o.add(h_bar, dh[q]),
            |q, i| {
                i.state(&StateAdjoint { y: x.sy, z: x.sz }, (sy, sz), q);
                i.add(x.dt, dt[q]);
                i.state(&added_state(&m, &m0), (memory_sy, memory_sz), q);
            },
        );
    }

    /// Step 3: `Esdirk::apply_step_length_derivative` on a real event step, random `∂H/∂p`.
    fn apply<const S: usize, const N: usize>(&self, rng: &mut Rng, tableau: &Tableau<S>) {
        let d = self;
        let adapter = d.adapter(0);
        let mut it = d.esdirk::<S, N>(&adapter, tableau, 0.3, true);
        let (y0s, z0s) = (*it.stage_sensitivities().0, *it.stage_sensitivities().1);
        let (st0, dh0) = (*it.time_sensitivity(), *it.step_time_sensitivities().1);
        let (yh, zh) = (*it.step_length_direction().0, *it.step_length_direction().1);
        let dh: [f64; NP] = rng.any();
        it.apply_step_length_derivative(&dh).unwrap();
        let (stage_y, stage_z): ([[f64; NY]; S], [[f64; NZ]; S]) = rng.any();
        let (sy, sz, tau, dh_bar) = (rng.any(), rng.any(), rng.seed(), rng.seed());
        let pre = PreEventAdjoint { sy, sz, tau };
        let seeds = EventStepSeeds {
            stage_y: &stage_y,
            stage_z: &stage_z,
            pre,
            dh: dh_bar,
        };
        let x = apply_step_length_transpose(&StepLengthDirection { yh: &yh, zh: &zh }, &seeds);
        let out = |q: usize, o: &mut Dot| {
            o.stages((&stage_y, &stage_z), it.stage_sensitivities(), q);
            o.state(&StateAdjoint { y: sy, z: sz }, it.sensitivities(), q);
            o.add(tau, it.time_sensitivity()[q]);
            o.add(dh_bar, it.step_time_sensitivities().1[q]);
        };
        identity("apply_step_length_derivative", &[0.0; NP], out, |q, i| {
            i.stages((&x.stage_y, &x.stage_z), (&y0s, &z0s), q);
            i.add(x.dt, st0[q]);
            i.add(x.h, dh[q]);
            i.add(dh_bar, dh0[q]); // ∂H/∂p passes through (zero after an event step)
        });
    }

    /// Step 5: `jump_sensitivities`.
    fn jump(&self, rng: &mut Rng, reset: bool) {
        let (d, post): (_, RestartAdjoint<NY, NZ>) = (self, rng.any());
        let (sy, sz, tau, memory_sy, memory_sz) = (&d.s.0, &d.s.1, &d.dt, &d.ms.0, &d.ms.1);
        let pre = PreEventSensitivities {
            sy,
            sz,
            tau,
            memory_sy,
            memory_sz,
        };
        let jump = jump_sensitivities(&d.model, 0, reset, 0, &d.at(), &pre).unwrap();
        let (m0, p0): (StateAdjoint<NY, NZ>, [f64; NP]) = rng.any();
        let (mut m, mut p_bar) = (m0, p0);
        let x = jump_transpose(&d.model, 0, reset, 0, &d.at(), &post, &mut m, &mut p_bar).unwrap();
        let out = |q: usize, o: &mut Dot| {
            o.col(&post.sy, &jump.sy, q);
            o.state(&post.memory, (&jump.memory_sy, &jump.memory_sz), q);
            o.add(post.tau, tau[q]); // the next segment's grid shift
        };
        identity("jump_sensitivities", &added(&p_bar, &p0), out, |q, i| {
            i.state(&StateAdjoint { y: x.sy, z: x.sz }, (sy, sz), q);
            i.add(x.tau, tau[q]);
            i.state(&added_state(&m, &m0), (memory_sy, memory_sz), q);
        });
    }

    /// Step 6: the consistent `w⁺` of `Esdirk::enable_sensitivities_at` at a restart in mode 1
    /// (grid shift, memory sensitivities of the new mode).
    fn restart<const N: usize>(&self, rng: &mut Rng) {
        let (d, w_bar) = (self, from_fn(|_| rng.seed()));
        let adapter = d.adapter(1);
        let mut it = d.esdirk::<3, N>(&adapter, &ESDIRK23, 0.7, false);
        it.enable_sensitivities_at(d.s.0, d.dt).unwrap();
        let at = adapter.point(it.t(), it.y(), it.z(), &d.p);
        let (post0, p0): (RestartAdjoint<NY, NZ>, [f64; NP]) = rng.any();
        let (mut post, mut p_bar) = (post0, p0);
        consistent_algebraic_transpose(&d.model, 1, &at, &w_bar, &mut post, &mut p_bar).unwrap();
        if NZ == 0 {
            return assert_eq!((post, p_bar), (post0, p0));
        }
        identity(
            "enable_sensitivities_at (restart)",
            &added(&p_bar, &p0),
            |q, o| o.col(&w_bar, it.sensitivities().1, q),
            |q, i| {
                i.col(&added(&post.sy, &post0.sy), &d.s.0, q);
                i.add(post.tau - post0.tau, d.dt[q]);
                i.state(
                    &added_state(&post.memory, &post0.memory),
                    (&d.ms.0, &d.ms.1),
                    q,
                );
            },
        );
    }

    /// Step 6 at `t0`: `w_0` from `s_0` with memory sensitivities `(s_0, 0)` and no grid shift
    /// (as `hybrid/mod.rs` starts the first segment).
    fn initial<const N: usize>(&self, rng: &mut Rng) {
        let (d, w_bar) = (self, from_fn(|_| rng.seed()));
        let first: RestartAdjoint<NY, NZ> = rng.any();
        let s0 = (d.s.0, [[0.0; NP]; NZ]);
        let adapter = ModeAdapter::new(&d.model, 0, Memory { y: d.y, z: d.z }, s0.0, s0.1);
        let mut it = d.esdirk::<4, N>(&adapter, &ESDIRK34, 0.0, false);
        it.enable_sensitivities_at(s0.0, [0.0; NP]).unwrap();
        let at = adapter.point(it.t(), it.y(), it.z(), &d.p);
        let p0: [f64; NP] = rng.any();
        let mut p_bar = p0;
        let s0_bar =
            initial_algebraic_transpose(&d.model, 0, &at, &w_bar, &first, &mut p_bar).unwrap();
        let out = |q: usize, o: &mut Dot| {
            o.state(
                &StateAdjoint {
                    y: first.sy,
                    z: w_bar,
                },
                it.sensitivities(),
                q,
            );
            o.add(first.tau, it.time_sensitivity()[q]);
            o.state(&first.memory, (&s0.0, &s0.1), q);
        };
        identity(
            "enable_sensitivities_at (t0)",
            &added(&p_bar, &p0),
            out,
            |q, i| i.col(&s0_bar, &s0.0, q),
        );
    }

    /// Steps 2–6 composed as the driver runs them, transposed in the backward order of the
    /// module docs: from the event step's `∂H/∂p = 0` stage sensitivities, its start's grid
    /// shift and the old memory sensitivities to all that the event step's cost quadrature and
    /// the next segment read.
    fn chain<const S: usize, const N: usize>(
        &self,
        rng: &mut Rng,
        tableau: &Tableau<S>,
        reset: bool,
    ) {
        let d = self;
        let (adapter, (memory_sy, memory_sz)) = (d.adapter(0), (&d.ms.0, &d.ms.1));
        let mut it = d.esdirk::<S, N>(&adapter, tableau, 0.3, true);
        let (y0s, z0s) = (*it.stage_sensitivities().0, *it.stage_sensitivities().1);
        let (yh, zh) = (*it.step_length_direction().0, *it.step_length_direction().1);
        let (dt, (sy, sz)) = (*it.time_sensitivity(), it.sensitivities());
        let y_minus = Memory {
            y: *it.y(),
            z: *it.z(),
        };
        let at = adapter.point(it.t(), &y_minus.y, &y_minus.z, &d.p);
        let (yh_s, zh_s) = (&yh[S - 1], &zh[S - 1]);
        let step = EventStep {
            sy,
            sz,
            yh: yh_s,
            zh: zh_s,
            dt: &dt,
            memory_sy,
            memory_sz,
        };
        it.apply_step_length_derivative(&length_map(&d.model, 0, 0, &at, &step).unwrap().0)
            .unwrap();
        let ((sy, sz), tau) = (it.sensitivities(), it.time_sensitivity());
        let pre = PreEventSensitivities {
            sy,
            sz,
            tau,
            memory_sy,
            memory_sz,
        };
        let jump = jump_sensitivities(&d.model, 0, reset, 0, &at, &pre).unwrap();
        // The new segment, with the memory y* = y⁻ (from any state: the partials are constant).
        let adapter1 = ModeAdapter::new(&d.model, 1, y_minus, jump.memory_sy, jump.memory_sz);
        let mut it1 = d.esdirk::<S, N>(&adapter1, tableau, it.t(), false);
        it1.enable_sensitivities_at(jump.sy, *tau).unwrap();
        // Backward, in the documented order, from random seeds of every output.
        let (stage_y, stage_z): ([[f64; NY]; S], [[f64; NZ]; S]) = rng.any();
        let (dh_bar, w_bar, next): (_, _, RestartAdjoint<NY, NZ>) =
            (rng.seed(), rng.any(), rng.any());
        let (mut post, mut p_bar, mut m) = (next, [0.0; NP], StateAdjoint::ZERO);
        let at1 = adapter1.point(it1.t(), it1.y(), it1.z(), &d.p);
        consistent_algebraic_transpose(&d.model, 1, &at1, &w_bar, &mut post, &mut p_bar).unwrap();
        let pre = jump_transpose(&d.model, 0, reset, 0, &at, &post, &mut m, &mut p_bar).unwrap();
        let seeds = EventStepSeeds {
            stage_y: &stage_y,
            stage_z: &stage_z,
            pre,
            dh: dh_bar,
        };
        let direction = StepLengthDirection { yh: &yh, zh: &zh };
        let x = event_step_length_transpose(
            &d.model, 0, 0, &at, &direction, &seeds, &mut m, &mut p_bar,
        )
        .unwrap();
        let out = |q: usize, o: &mut Dot| {
            o.stages((&stage_y, &stage_z), it.stage_sensitivities(), q);
            o.add(dh_bar, it.step_time_sensitivities().1[q]);
            let (y, z) = (next.sy, w_bar);
            o.state(&StateAdjoint { y, z }, it1.sensitivities(), q);
            o.add(next.tau, it1.time_sensitivity()[q]);
            o.state(&next.memory, (&jump.memory_sy, &jump.memory_sz), q);
        };
        identity("event chain", &p_bar, out, |q, i| {
            i.stages((&x.stage_y, &x.stage_z), (&y0s, &z0s), q);
            i.add(x.dt, dt[q]);
            i.state(&m, (memory_sy, memory_sz), q);
        });
    }
}

/// Every check for one set of sizes (`N = NY + NZ`), with and without memory terms in the
/// modes, with and without a reset, both tableaus, several seeds.
fn all<const NY: usize, const NZ: usize, const NP: usize, const N: usize>() {
    let mut rng = Rng((NY * 100 + NZ * 10 + NP) as u64);
    let r = &mut rng;
    for _ in 0..20 {
        Data::<NY, NZ, NP, true>::new(r).length(r);
        Data::<NY, NZ, NP, false>::new(r).length(r);
        Data::<NY, NZ, NP, true>::new(r).apply::<3, N>(r, &ESDIRK23);
        Data::<NY, NZ, NP, false>::new(r).apply::<4, N>(r, &ESDIRK34);
        for reset in [true, false] {
            Data::<NY, NZ, NP, true>::new(r).jump(r, reset);
            Data::<NY, NZ, NP, false>::new(r).jump(r, reset);
            Data::<NY, NZ, NP, true>::new(r).chain::<3, N>(r, &ESDIRK23, reset);
            Data::<NY, NZ, NP, true>::new(r).chain::<4, N>(r, &ESDIRK34, reset);
            Data::<NY, NZ, NP, false>::new(r).chain::<4, N>(r, &ESDIRK34, reset);
        }
        Data::<NY, NZ, NP, true>::new(r).restart::<N>(r);
        Data::<NY, NZ, NP, false>::new(r).restart::<N>(r);
        Data::<NY, NZ, NP, true>::new(r).initial::<N>(r);
        Data::<NY, NZ, NP, false>::new(r).initial::<N>(r);
    }
}

#[test]
fn event_maps_transpose_ode() {
    all::<1, 0, 1, 1>();
    all::<2, 0, 3, 2>();
    all::<4, 0, 2, 4>();
}

#[test]
fn event_maps_transpose_dae() {
    all::<1, 1, 1, 2>();
    all::<2, 1, 3, 3>();
    all::<3, 2, 2, 5>();
    all::<1, 3, 4, 4>();
}
