//! What a switching surface adds to a model: the Filippov construction of Pytlak & Suski
//! (*Numerical procedure for optimal control of hybrid systems with sliding modes, Part I*,
//! arXiv:2101.05829, §2), as modes, guards and the rule that chooses a guard's target.
//!
//! A surface `#[switching_surface(negative, positive)] fn s(..) -> f64` declares `g = 0`
//! between two ODE modes: `x' = f¹` where `g < 0` (the mode `negative`) and `x' = f²` where
//! `g > 0` (the mode `positive`) (Eqs. 1–5). Write `σᵢ = g_t + g_x fⁱ`, the rate of `g` along
//! `fⁱ` (`g_x fⁱ` in the paper, whose `g` does not read `t`). The surface adds:
//!
//! - **the sliding mode** `s_sliding`, the Filippov field `f_F = (1 − α) f¹ + α f²` with
//!   `α = σ₁/(σ₁ − σ₂)` (Eqs. 10–12), which keeps `g` constant (`g_t + g_x f_F = 0`, Eq. 11).
//!   `lower::sliding` builds it as an expression of the two modes' bodies and of `g`'s
//!   gradient, so its Jacobians, `α_x` and `α_p` terms included, are differentiated
//!   symbolically like any mode's. It is integrated as the ODE `x' = f_F` (Eq. 21), not as
//!   the paper's index-2 DAE (19)–(20): on exact solutions the DAE's multiplier is zero, and
//!   the ODE's drift off a curved surface is of the order of the integration tolerance.
//! - **four guards**, in this order ([`SurfaceGuard::ALL`]), named after the surface and the
//!   modes (for `#[switching_surface(below, above)] fn wall`): `wall_from_below`, `g` rising
//!   in `below` (reaching the surface from `g < 0`); `wall_from_above`, `g` falling in
//!   `above`; and in the sliding mode `wall_exit_to_below`, `σ₁` falling through 0 (`α`
//!   reaches 0, Eq. 13), and `wall_exit_to_above`, `σ₂` rising through 0 (`α` reaches 1,
//!   Eq. 16). Their static targets in `GUARDS` are the crossings (`above`, `below`) and the
//!   exits' sides; the mode actually entered is chosen at the event:
//! - **the choice of the mode entered** (`HybridModel::event_target`, [`Choice`]), by the
//!   sign tests of the paper at the event: reaching the surface from `g < 0` (where `σ₁ > 0`),
//!   `σ₂ < 0` starts sliding (Eq. 8), otherwise the trajectory crosses into `positive`
//!   (Eq. 7); from `g > 0` the mirror case (`σ₁ > 0`: sliding; otherwise `negative`). Leaving
//!   the sliding mode into `negative` needs `σ₂ < 0` (Eq. 15) and into `positive` needs
//!   `σ₁ > 0` (Eq. 17); otherwise both fields point away from the surface, which is repulsive
//!   there (`EventTarget::RepulsiveSurface`), and the solve ends with
//!   `SolveError::RepulsiveSurface`. A rate exactly zero at an event counts as "not pointing
//!   at the surface": crossing, not sliding.
//!
//! While sliding, the model's other switches stay watched:
//!
//! - **the declared guards of both modes**: every `#[guard]` watched in `negative` or in
//!   `positive` is watched in the sliding mode too, with its own target, direction and reset
//!   (and its name in the event log). The sliding trajectory is the limit of one that chatters
//!   between the two modes, so a guard of either mode is one it would meet. The runtime's
//!   event machinery treats such an event like any other: its time derivative and jump use
//!   the field in force before it, here `f_F`. When guards of both modes fire at the same
//!   instant, the first declared wins; give a switch that both modes have the same target.
//! - **the surfaces this one meets**: for every other surface sharing a mode with this one, a
//!   guard `<surface>_meets_<other>` on the other's `g` (either direction). Reaching it while
//!   sliding is reaching the intersection of the two surfaces, where the Filippov field is a
//!   convex combination of three or four fields (sliding of codimension 2) that hysens does
//!   not compute: the solve ends with `SolveError::SurfaceIntersection`, naming the time and
//!   the guard, and keeps what it computed.
//!
//! The modes come after the `#[mode]` functions in the runtime's numbering and the guards
//! after the `#[guard]` functions, surface by surface in declaration order: its four, the
//! inherited declared guards in declaration order, its guards on the surfaces it meets
//! ([`Placement`]). The side a solve starts on can be chosen by the sign of `g` at `t0`
//! (`#[mode(initial_if(s, positive))]`, which reads the surface's first guard, `g` itself). A
//! start exactly on the surface is decided by where the fields move `g`: both across it the
//! same way, the side they move into; both at it, the solve slides from the start (an event
//! at `t0` out of the side `initial_if` falls back to, whose sensitivities are those of an
//! entry from either side); both away from it, `SolveError::RepulsiveSurface`. The slide needs
//! that fallback (`#[mode(initial)]` on one side): with `initial_if` on both sides neither rule
//! holds there (each asks its own field to move `g` into its side) and the solve ends with
//! `SolveError::NoInitialMode`, whose message says to mark one side `initial`.

use crate::model::{Direction, Surface};

/// One side of a surface, or its sliding mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The mode where `g < 0` (`f¹`).
    Negative,
    /// The mode where `g > 0` (`f²`).
    Positive,
    /// The sliding mode (`f_F`).
    Sliding,
}

/// The rate of `g` along one side's field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rate {
    /// `σ₁ = g_t + g_x f¹`.
    Negative,
    /// `σ₂ = g_t + g_x f²`.
    Positive,
}

/// What a surface guard watches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Watched {
    /// The switching function `g`.
    Surface,
    /// A rate `σᵢ`.
    Rate(Rate),
}

/// How the mode entered at a surface guard's event is chosen: `then` if the rate has the
/// strict sign `positive` (`> 0`) or not (`< 0`), else `otherwise` (`None`: the surface is
/// repulsive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The rate tested at the event.
    pub rate: Rate,
    /// `true`: the test is `rate > 0`; `false`: `rate < 0`.
    pub positive: bool,
    /// The mode entered when the test holds.
    pub then: Side,
    /// The mode entered when it does not; `None` for a repulsive surface.
    pub otherwise: Option<Side>,
}

/// The four guards of a surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SurfaceGuard {
    /// `g` rises through 0 in the mode `negative`.
    FromNegative,
    /// `g` falls through 0 in the mode `positive`.
    FromPositive,
    /// `σ₁` falls through 0 in the sliding mode (`α = 0`).
    ExitToNegative,
    /// `σ₂` rises through 0 in the sliding mode (`α = 1`).
    ExitToPositive,
}

impl SurfaceGuard {
    /// The guards in the runtime's order.
    pub const ALL: [SurfaceGuard; 4] = [
        SurfaceGuard::FromNegative,
        SurfaceGuard::FromPositive,
        SurfaceGuard::ExitToNegative,
        SurfaceGuard::ExitToPositive,
    ];

    /// The guard's name in the runtime's tables.
    pub fn name(self, surface: &Surface) -> String {
        let s = &surface.func.sig.ident;
        match self {
            SurfaceGuard::FromNegative => format!("{s}_from_{}", surface.negative),
            SurfaceGuard::FromPositive => format!("{s}_from_{}", surface.positive),
            SurfaceGuard::ExitToNegative => format!("{s}_exit_to_{}", surface.negative),
            SurfaceGuard::ExitToPositive => format!("{s}_exit_to_{}", surface.positive),
        }
    }

    /// The mode in which it is watched.
    pub fn watched_in(self) -> Side {
        match self {
            SurfaceGuard::FromNegative => Side::Negative,
            SurfaceGuard::FromPositive => Side::Positive,
            SurfaceGuard::ExitToNegative | SurfaceGuard::ExitToPositive => Side::Sliding,
        }
    }

    /// What it watches.
    pub fn watched(self) -> Watched {
        match self {
            SurfaceGuard::FromNegative | SurfaceGuard::FromPositive => Watched::Surface,
            SurfaceGuard::ExitToNegative => Watched::Rate(Rate::Negative),
            SurfaceGuard::ExitToPositive => Watched::Rate(Rate::Positive),
        }
    }

    /// The crossing direction that fires it.
    pub fn direction(self) -> Direction {
        match self {
            SurfaceGuard::FromNegative | SurfaceGuard::ExitToPositive => Direction::Rising,
            SurfaceGuard::FromPositive | SurfaceGuard::ExitToNegative => Direction::Falling,
        }
    }

    /// The static target in `GUARDS` (the crossing, or the side the exit leads to); the mode
    /// actually entered is [`SurfaceGuard::choice`]'s.
    pub fn crossing_target(self) -> Side {
        match self {
            SurfaceGuard::FromNegative | SurfaceGuard::ExitToPositive => Side::Positive,
            SurfaceGuard::FromPositive | SurfaceGuard::ExitToNegative => Side::Negative,
        }
    }

    /// The sign test that chooses the mode entered (module docs).
    pub fn choice(self) -> Choice {
        match self {
            SurfaceGuard::FromNegative => Choice {
                rate: Rate::Positive,
                positive: false,
                then: Side::Sliding,
                otherwise: Some(Side::Positive),
            },
            SurfaceGuard::FromPositive => Choice {
                rate: Rate::Negative,
                positive: true,
                then: Side::Sliding,
                otherwise: Some(Side::Negative),
            },
            SurfaceGuard::ExitToNegative => Choice {
                rate: Rate::Positive,
                positive: false,
                then: Side::Negative,
                otherwise: None,
            },
            SurfaceGuard::ExitToPositive => Choice {
                rate: Rate::Negative,
                positive: true,
                then: Side::Positive,
                otherwise: None,
            },
        }
    }
}

impl Surface {
    /// The name of its sliding mode: `<surface>_sliding`.
    pub fn sliding_mode_name(&self) -> String {
        format!("{}_sliding", self.func.sig.ident)
    }

    /// The names of its four guards, in [`SurfaceGuard::ALL`] order.
    pub fn guard_names(&self) -> [String; 4] {
        SurfaceGuard::ALL.map(|g| g.name(self))
    }
}

/// Surface number `k` of a model with its two modes resolved, placed in the runtime's
/// numbering, with what its sliding mode watches besides its exits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The index of the mode `negative`.
    pub negative: usize,
    /// The index of the mode `positive`.
    pub positive: usize,
    /// The index of the sliding mode.
    pub sliding: usize,
    /// The index of its first guard ([`SurfaceGuard::FromNegative`]).
    pub first_guard: usize,
    /// The `#[guard]` functions watched in `negative` or `positive` (their indices, in
    /// declaration order): watched in the sliding mode too, with their own targets and resets.
    pub inherited: Vec<usize>,
    /// The other surfaces that share a mode with this one (their numbers, in declaration
    /// order): reaching one while sliding is reaching an intersection of the two surfaces.
    pub meets: Vec<usize>,
}

impl Placement {
    /// Every surface of a model with `modes` `#[mode]` functions and `#[guard]` functions
    /// watched in the modes `guard_from`, the surfaces separating the modes `sides`
    /// (`(negative, positive)`), in declaration order. Each surface's guards follow the
    /// previous surface's: its four ([`SurfaceGuard::ALL`]), the inherited ones, then one per
    /// surface it meets.
    pub fn all(modes: usize, guard_from: &[usize], sides: &[(usize, usize)]) -> Vec<Placement> {
        let mut first_guard = guard_from.len();
        sides
            .iter()
            .zip(watched_while_sliding(guard_from, sides))
            .enumerate()
            .map(|(k, (&(negative, positive), (inherited, meets)))| {
                let placement = Placement {
                    negative,
                    positive,
                    sliding: modes + k,
                    first_guard,
                    inherited,
                    meets,
                };
                first_guard += placement.guard_count();
                placement
            })
            .collect()
    }

    /// The index of the mode `side`.
    pub fn mode(&self, side: Side) -> usize {
        match side {
            Side::Negative => self.negative,
            Side::Positive => self.positive,
            Side::Sliding => self.sliding,
        }
    }

    /// The index of `guard`.
    pub fn guard(&self, guard: SurfaceGuard) -> usize {
        self.first_guard + guard as usize
    }

    /// `(index, declared guard)` of the declared guards watched in the sliding mode.
    pub fn inherited_guards(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let first = self.first_guard + SurfaceGuard::ALL.len();
        self.inherited
            .iter()
            .enumerate()
            .map(move |(i, &g)| (first + i, g))
    }

    /// `(index, other surface)` of the guards that watch the surfaces this one meets.
    pub fn meeting_guards(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let first = self.first_guard + SurfaceGuard::ALL.len() + self.inherited.len();
        self.meets
            .iter()
            .enumerate()
            .map(move |(i, &s)| (first + i, s))
    }

    /// How many guards the surface adds.
    pub fn guard_count(&self) -> usize {
        SurfaceGuard::ALL.len() + self.inherited.len() + self.meets.len()
    }
}

/// For each surface between the modes `sides` (`(negative, positive)`, named or numbered),
/// what its sliding mode watches besides its exits: `(inherited, meets)`, the declared guards
/// watched in either of its modes (`guard_from` are their modes) and the other surfaces that
/// share a mode with it.
pub fn watched_while_sliding<K: PartialEq>(
    guard_from: &[K],
    sides: &[(K, K)],
) -> Vec<(Vec<usize>, Vec<usize>)> {
    let on_a_side = |(negative, positive): &(K, K), mode: &K| mode == negative || mode == positive;
    sides
        .iter()
        .enumerate()
        .map(|(k, surface)| {
            let inherited = (0..guard_from.len())
                .filter(|&g| on_a_side(surface, &guard_from[g]))
                .collect();
            let meets = (0..sides.len())
                .filter(|&other| {
                    let (a, b) = &sides[other];
                    other != k && (on_a_side(surface, a) || on_a_side(surface, b))
                })
                .collect();
            (inherited, meets)
        })
        .collect()
}

/// The name of the guard that watches surface `other` while sliding on `surface`:
/// `<surface>_meets_<other>`.
pub fn meeting_guard_name(surface: &Surface, other: &Surface) -> String {
    format!("{}_meets_{}", surface.func.sig.ident, other.func.sig.ident)
}
