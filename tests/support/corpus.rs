//! The event-semantics corpus's models (`tests/event_semantics/`): small flows with exact
//! answers (piecewise-constant and piecewise-linear fields, harmonic oscillators, exponential
//! relaxation), each built to put a guard in one situation of the event semantics. Also used
//! by `tests/entry_events.rs` (`chain`) and `tests/zero_alloc.rs`.
//!
//! The corpus also runs two models declared elsewhere in this folder, which its binary
//! includes next to this file: the bouncing ball (`event_models.rs`'s `ball`, the
//! `bouncing_ball` example's model) and the thermostat (`thermostat.rs`).

use hysens::hybrid_model;

/// `x' = va` in `a` until `x` crosses `c` in the guard's direction, then `x' = vb` in `b`.
macro_rules! threshold_model {
    ($name:ident, $guard:ident, $direction:ident) => {
        #[hybrid_model]
        pub mod $name {
            /// The state.
            #[states]
            pub struct X {
                /// Position.
                pub x: f64,
            }
            /// Speeds and the threshold.
            #[params]
            pub struct P {
                /// Speed in `a`.
                pub va: f64,
                /// Speed in `b`.
                pub vb: f64,
                /// Threshold.
                pub c: f64,
            }
            #[mode(initial)]
            fn a(p: &P) -> X {
                X { x: p.va }
            }
            #[mode]
            fn b(p: &P) -> X {
                X { x: p.vb }
            }
            /// `x` crosses `c`.
            #[guard(a -> b, $direction)]
            fn $guard(x: &X, p: &P) -> f64 {
                x.x - p.c
            }
        }
    };
}
threshold_model!(rising, up, rising);
threshold_model!(falling, down, falling);

/// `x' = 1 − t`, `x = x0 + t − t²/2` (a maximum at `t = 1`), and a counter `n' = 0` that
/// each event of the level guard increments: which crossings fire, with each direction.
macro_rules! arc_model {
    ($name:ident, $direction:ident) => {
        #[hybrid_model]
        pub mod $name {
            /// The states.
            #[states]
            pub struct X {
                /// Position.
                pub x: f64,
                /// Events so far.
                pub n: f64,
            }
            /// The level.
            #[params]
            pub struct P {
                /// Level.
                pub c: f64,
            }
            #[mode(initial)]
            fn arc(t: f64) -> X {
                X { x: 1.0 - t, n: 0.0 }
            }
            /// `x` crosses the level.
            #[guard(arc -> arc, $direction)]
            fn level(x: &X, p: &P) -> f64 {
                x.x - p.c
            }
            #[reset(level)]
            fn count(x: &X) -> X {
                X {
                    x: x.x,
                    n: x.n + 1.0,
                }
            }
        }
    };
}
arc_model!(arc_either, either);
arc_model!(arc_rising, rising);
arc_model!(arc_falling, falling);

/// A chain of modes on one level: `x' = va` in `a` until `x` rises through `level`, into `b`,
/// whose own guard on the same level (`onward`, into `c`, with the lift `x⁺ = x + d`) is on its
/// zero at `b`'s entry with `x' = vb > 0`: it fires at once; then `x' = vc` in `c`. Costs
/// `∫ x² dt` and `x(T)` (for the sensitivities across the instantaneous event,
/// `tests/entry_events.rs`).
#[hybrid_model]
pub mod chain {
    /// The state.
    #[states]
    pub struct X {
        /// Position.
        pub x: f64,
    }
    /// Speeds, the level and the lift.
    #[params]
    pub struct P {
        /// Speed in `a`.
        pub va: f64,
        /// Speed in `b`.
        pub vb: f64,
        /// Speed in `c`.
        pub vc: f64,
        /// The level.
        pub level: f64,
        /// The lift at the entry into `c`.
        pub d: f64,
    }
    #[mode(initial)]
    fn a(p: &P) -> X {
        X { x: p.va }
    }
    #[mode]
    fn b(p: &P) -> X {
        X { x: p.vb }
    }
    #[mode]
    fn c(p: &P) -> X {
        X { x: p.vc }
    }
    /// `x` rises through the level in `a`.
    #[guard(a -> b, rising)]
    fn enter(x: &X, p: &P) -> f64 {
        x.x - p.level
    }
    /// The same level, rising, in `b`: on its zero at `b`'s entry and moving across.
    #[guard(b -> c, rising)]
    fn onward(x: &X, p: &P) -> f64 {
        x.x - p.level
    }
    /// The lift.
    #[reset(onward)]
    fn lift(x: &X, p: &P) -> X {
        X { x: x.x + p.d }
    }
    /// `∫ x² dt`.
    #[cost(integral)]
    fn area(x: &X) -> f64 {
        x.x * x.x
    }
    /// `x(T)`.
    #[cost(terminal)]
    fn last(x: &X) -> f64 {
        x.x
    }
}

/// As [`chain`], but `b`'s guard on the level is falling: on its zero at the entry, the flow
/// leaves it.
#[hybrid_model]
pub mod leave {
    /// The state.
    #[states]
    pub struct X {
        /// Position.
        pub x: f64,
    }
    /// The threshold.
    #[params]
    pub struct P {
        /// Threshold.
        pub c: f64,
    }
    #[mode(initial)]
    fn a() -> X {
        X { x: 1.0 }
    }
    #[mode]
    fn b() -> X {
        X { x: 1.0 }
    }
    /// `x` rises through `c` in `a`.
    #[guard(a -> b, rising)]
    fn enter(x: &X, p: &P) -> f64 {
        x.x - p.c
    }
    /// The same level, falling, in `b`.
    #[guard(b -> a, falling)]
    fn back(x: &X, p: &P) -> f64 {
        x.x - p.c
    }
}

/// A guard on its zero at a mode's entry with a vanishing rate: in `b`, `x' = 2 (t − t_b)`
/// after `a` (`x' = 1`) crossed `x = 1` at `t_b = 1`, so `x − 1 = (t − 1)²` touches zero
/// from above and leaves it. `b`'s guard `again` watches `x − 1` either rising (`tangent_up`,
/// the flow moves it across: an event with no rate) or falling (`tangent_down`, it never
/// fires).
macro_rules! tangent_model {
    ($name:ident, $direction:ident) => {
        #[hybrid_model]
        pub mod $name {
            /// The state.
            #[states]
            pub struct X {
                /// Position.
                pub x: f64,
            }
            /// The threshold.
            #[params]
            pub struct P {
                /// Threshold.
                pub c: f64,
            }
            #[mode(initial)]
            fn a() -> X {
                X { x: 1.0 }
            }
            #[mode]
            fn b(t: f64) -> X {
                X { x: 2.0 * (t - 1.0) }
            }
            #[mode]
            fn c() -> X {
                X { x: 0.0 }
            }
            /// `x` rises through `c` in `a`.
            #[guard(a -> b, rising)]
            fn enter(x: &X, p: &P) -> f64 {
                x.x - p.c
            }
            /// The level again, in `b`.
            #[guard(b -> c, $direction)]
            fn again(x: &X, p: &P) -> f64 {
                x.x - p.c
            }
        }
    };
}
tangent_model!(tangent_up, rising);
tangent_model!(tangent_down, falling);

/// Two guards of one mode reached at the same instant: `x' = 1`, `y' = 1` from `(0, 0)`;
/// `first` (`x` through 1, declared first) leads to `b`, `second` (`y` through 1) to `c`. In
/// `b` the level of `y` is watched again (`then`, into `d`), on its zero at the entry.
#[hybrid_model]
pub mod pair {
    /// The states.
    #[states]
    pub struct X {
        /// First coordinate.
        pub x: f64,
        /// Second coordinate.
        pub y: f64,
    }
    /// The two thresholds.
    #[params]
    pub struct P {
        /// Threshold of `x`.
        pub cx: f64,
        /// Threshold of `y`.
        pub cy: f64,
    }
    #[mode(initial)]
    fn a() -> X {
        X { x: 1.0, y: 1.0 }
    }
    #[mode]
    fn b() -> X {
        X { x: 1.0, y: 1.0 }
    }
    #[mode]
    fn c() -> X {
        X { x: 0.0, y: 0.0 }
    }
    #[mode]
    fn d() -> X {
        X { x: -1.0, y: -1.0 }
    }
    /// `x` rises through `cx`.
    #[guard(a -> b, rising)]
    fn first(x: &X, p: &P) -> f64 {
        x.x - p.cx
    }
    /// `y` rises through `cy`.
    #[guard(a -> c, rising)]
    fn second(x: &X, p: &P) -> f64 {
        x.y - p.cy
    }
    /// `y` rises through `cy`, watched in `b`.
    #[guard(b -> d, rising)]
    fn then(x: &X, p: &P) -> f64 {
        x.y - p.cy
    }
}

/// A harmonic oscillator `x'' = −ω² x` with a guard on the level `x = c` (either direction)
/// counting its crossings: near the amplitude (`c` close to it) the two crossings of one
/// visit are close together, inside one step of a loose tolerance.
#[hybrid_model]
pub mod oscillator {
    /// The states.
    #[states]
    pub struct X {
        /// Position.
        pub x: f64,
        /// Velocity.
        pub v: f64,
        /// Crossings so far.
        pub n: f64,
    }
    /// Frequency and level.
    #[params]
    pub struct P {
        /// Angular frequency.
        pub w: f64,
        /// Level.
        pub c: f64,
    }
    #[mode(initial)]
    fn swing(x: &X, p: &P) -> X {
        X {
            x: x.v,
            v: -p.w * p.w * x.x,
            n: 0.0,
        }
    }
    /// `x` crosses the level.
    #[guard(swing -> swing, either)]
    fn level(x: &X, p: &P) -> f64 {
        x.x - p.c
    }
    #[reset(level)]
    fn count(x: &X) -> X {
        X {
            x: x.x,
            v: x.v,
            n: x.n + 1.0,
        }
    }
}

/// A guard on time alone: `t` rises through `t1`.
#[hybrid_model]
pub mod clock {
    /// The state.
    #[states]
    pub struct X {
        /// Position.
        pub x: f64,
    }
    /// The switch time.
    #[params]
    pub struct P {
        /// Switch time.
        pub t1: f64,
    }
    #[mode(initial)]
    fn before() -> X {
        X { x: 1.0 }
    }
    #[mode]
    fn after() -> X {
        X { x: -1.0 }
    }
    /// The time `t1`.
    #[guard(before -> after, rising)]
    fn alarm(p: &P, t: f64) -> f64 {
        t - p.t1
    }
}

/// A crossing with no rate at its root: `x' = 1` and the guard `x³ + c`, rising through zero
/// at `x = (−c)^{1/3}` with `ḣ = 3x² ẋ`; for `c = 0` at `x = 0`, where `ḣ = 0` and
/// `dt*/dc = −1/ḣ` is infinite.
#[hybrid_model]
pub mod inflection {
    /// The state.
    #[states]
    pub struct X {
        /// Position.
        pub x: f64,
    }
    /// The offset.
    #[params]
    pub struct P {
        /// Offset.
        pub c: f64,
    }
    #[mode(initial)]
    fn a() -> X {
        X { x: 1.0 }
    }
    #[mode]
    fn b() -> X {
        X { x: 1.0 }
    }
    /// `x³ + c` rises through zero.
    #[guard(a -> b, rising)]
    fn up(x: &X, p: &P) -> f64 {
        x.x.powi(3) + p.c
    }
}

/// A one-dimensional Filippov system: `x' = vl` left of the surface `x = c`, `x' = vr` right
/// of it (crossing when both are positive, sliding when `vl > 0 > vr`, repulsive when
/// `vl < 0 < vr`).
#[hybrid_model]
pub mod line {
    /// The state.
    #[states]
    pub struct X {
        /// Position.
        pub x: f64,
    }
    /// The fields and the surface.
    #[params]
    pub struct P {
        /// Field on the left.
        pub vl: f64,
        /// Field on the right.
        pub vr: f64,
        /// Surface.
        pub c: f64,
    }
    #[mode(initial)]
    fn left(p: &P) -> X {
        X { x: p.vl }
    }
    #[mode(initial_if(wall, positive))]
    fn right(p: &P) -> X {
        X { x: p.vr }
    }
    /// The surface `x = c`.
    #[switching_surface(left, right)]
    fn wall(x: &X, p: &P) -> f64 {
        x.x - p.c
    }
}

/// The surface of [`line`] with both sides chosen by `initial_if` (no fallback): a start on
/// it is decided by where the fields move it.
#[hybrid_model]
pub mod line_both {
    /// The state.
    #[states]
    pub struct X {
        /// Position.
        pub x: f64,
    }
    /// The fields and the surface.
    #[params]
    pub struct P {
        /// Field on the left.
        pub vl: f64,
        /// Field on the right.
        pub vr: f64,
        /// Surface.
        pub c: f64,
    }
    #[mode(initial_if(wall, negative))]
    fn left(p: &P) -> X {
        X { x: p.vl }
    }
    #[mode(initial_if(wall, positive))]
    fn right(p: &P) -> X {
        X { x: p.vr }
    }
    /// The surface `x = c`.
    #[switching_surface(left, right)]
    fn wall(x: &X, p: &P) -> f64 {
        x.x - p.c
    }
}

/// A Filippov system that slides and leaves: below the wall `x = 1`, `(x', y') = (1, 1)`;
/// above it, `(x', y') = (y − b, 1)`. From `(0, 0)` the wall is reached at `t = 1`
/// (`y = 1 < b`: both fields point at it, sliding with `y' = 1`) and left at `y = b`
/// (`t = b`), after which `x = 1 + (t − b)²/2`.
#[hybrid_model]
pub mod slide {
    /// The states.
    #[states]
    pub struct X {
        /// Position across the wall.
        pub x: f64,
        /// Position along it.
        pub y: f64,
    }
    /// Where the sliding ends.
    #[params]
    pub struct P {
        /// The exit height.
        pub b: f64,
    }
    #[mode(initial)]
    fn below() -> X {
        X { x: 1.0, y: 1.0 }
    }
    #[mode]
    fn above(x: &X, p: &P) -> X {
        X {
            x: x.y - p.b,
            y: 1.0,
        }
    }
    /// The wall `x = 1`.
    #[switching_surface(below, above)]
    fn wall(x: &X) -> f64 {
        x.x - 1.0
    }
}

/// A guard that oscillates faster than the flow it watches: `x' = 1/10` (integrated exactly,
/// so the steps grow without bound) and the guard `sin(ω t) − c` (either direction), counted
/// by `n`.
#[hybrid_model]
pub mod wave {
    /// The states.
    #[states]
    pub struct X {
        /// A slow drift.
        pub x: f64,
        /// Crossings so far.
        pub n: f64,
    }
    /// Frequency and level.
    #[params]
    pub struct P {
        /// Angular frequency.
        pub w: f64,
        /// Level.
        pub c: f64,
    }
    #[mode(initial)]
    fn drift() -> X {
        X { x: 0.1, n: 0.0 }
    }
    /// `sin(ω t)` crosses the level.
    #[guard(drift -> drift, either)]
    fn level(p: &P, t: f64) -> f64 {
        (p.w * t).sin() - p.c
    }
    #[reset(level)]
    fn count(x: &X) -> X {
        X {
            x: x.x,
            n: x.n + 1.0,
        }
    }
}
