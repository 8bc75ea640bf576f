//! The model AST: what `parse` reads out of the annotated module, before any checking.
//!
//! Items keep their `syn` form (spans included) so that later stages can point errors at the
//! user's code; only the meaning of the attributes is decoded here.

use proc_macro2::Span;
use syn::{Ident, ItemConst, ItemFn, ItemMod, ItemStruct};

use crate::filippov;

/// A `#[hybrid_model]` module.
pub struct Model {
    /// The module item itself, with its items (our attributes stripped) for re-emission.
    pub module: ItemMod,
    /// `#[states]`: the differential states `y`.
    pub states: Vec<VariableStruct>,
    /// `#[algebraic]`: the algebraic variables `z`.
    pub algebraic: Vec<VariableStruct>,
    /// `#[params]`: the parameters `p`.
    pub params: Vec<VariableStruct>,
    /// `#[inputs]`: inputs held constant over a solve, appended to `p`.
    pub inputs: Vec<VariableStruct>,
    /// `const NAME: f64 = …;` items, usable in every expression.
    pub constants: Vec<ItemConst>,
    /// Plain functions, inlined where they are called.
    pub helpers: Vec<ItemFn>,
    /// `#[mode]` functions.
    pub modes: Vec<Mode>,
    /// `#[guard]` functions.
    pub guards: Vec<Guard>,
    /// `#[reset]` functions.
    pub resets: Vec<Reset>,
    /// `#[switching_surface]` functions.
    pub surfaces: Vec<Surface>,
    /// `#[cost]` functions.
    pub costs: Vec<Cost>,
    /// `#[output]` functions.
    pub outputs: Vec<ItemFn>,
    /// `#[initial_state]` functions: the initial state from the given one and the parameters
    /// (a model has at most one; `validate` reports the others).
    pub initial_states: Vec<ItemFn>,
    /// `#[algebraic_guess]` functions: the first mode's algebraic guess from the initial state
    /// and the parameters (at most one; a second is reported).
    pub algebraic_guesses: Vec<ItemFn>,
    /// Functions whose attribute `parse` rejected: kept out of the roles above, and remembered
    /// so that `validate` does not also call every reference to them unknown.
    pub unparsed: Vec<Unparsed>,
}

/// A function with one of our attributes that did not decode (the error is already reported).
pub struct Unparsed {
    /// The function's name.
    pub name: Ident,
    /// The attribute's name: `mode`, `guard`, …
    pub attribute: String,
}

impl Model {
    /// Whether `name` is a function whose `#[attribute]` did not decode.
    pub fn is_unparsed(&self, name: &Ident, attribute: &str) -> bool {
        self.unparsed
            .iter()
            .any(|u| u.name == *name && u.attribute == attribute)
    }

    /// Whether some function's `#[attribute]` did not decode.
    pub fn has_unparsed(&self, attribute: &str) -> bool {
        self.unparsed.iter().any(|u| u.attribute == attribute)
    }

    /// The names of the runtime's modes, in its numbering: the `#[mode]` functions in
    /// declaration order, then the sliding mode of each switching surface (see
    /// `crate::filippov`), then a mode named `stop` for each mode a terminal guard leaves
    /// ([`Self::stopped_modes`]).
    pub fn mode_names(&self) -> Vec<String> {
        self.modes
            .iter()
            .map(|m| m.func.sig.ident.to_string())
            .chain(self.surfaces.iter().map(Surface::sliding_mode_name))
            .chain(self.stopped_modes().iter().map(|_| STOP.to_owned()))
            .collect()
    }

    /// The `#[mode]` functions (by index) that a terminal guard (`#[guard(from -> stop, ..)]`)
    /// leaves, in declaration order: each gets a stopped mode of its own, entered when one of
    /// its terminal guards fires, which ends the solve (`ModeInfo::terminal` of the runtime).
    /// Its equations are `f = 0` and the source mode's `g`: nothing is integrated in it, and
    /// the algebraic state at the stop stays the source mode's consistent one.
    pub fn stopped_modes(&self) -> Vec<usize> {
        (0..self.modes.len())
            .filter(|&m| {
                let name = &self.modes[m].func.sig.ident;
                self.guards
                    .iter()
                    .any(|g| g.is_terminal() && g.from == *name)
            })
            .collect()
    }

    /// The names of the runtime's guards, in its numbering: the `#[guard]` functions in
    /// declaration order, then what each switching surface generates: its four guards, the
    /// declared guards of its modes again, a guard per surface it meets (see
    /// `crate::filippov`).
    pub fn guard_names(&self) -> Vec<String> {
        let declared: Vec<String> = self
            .guards
            .iter()
            .map(|g| g.func.sig.ident.to_string())
            .collect();
        let from: Vec<&Ident> = self.guards.iter().map(|g| &g.from).collect();
        let sides: Vec<_> = self
            .surfaces
            .iter()
            .map(|s| (&s.negative, &s.positive))
            .collect();
        let mut names = declared.clone();
        for (s, (inherited, meets)) in self
            .surfaces
            .iter()
            .zip(filippov::watched_while_sliding(&from, &sides))
        {
            names.extend(s.guard_names());
            names.extend(inherited.iter().map(|&g| declared[g].clone()));
            names.extend(
                meets
                    .iter()
                    .map(|&other| filippov::meeting_guard_name(s, &self.surfaces[other])),
            );
        }
        names
    }
}

/// A struct of `f64` fields that names variables (`#[states]`, `#[algebraic]`, `#[params]`,
/// `#[inputs]`).
pub struct VariableStruct {
    /// The struct item.
    pub item: ItemStruct,
    /// The attribute that marked it, for error spans.
    pub attribute: Span,
}

impl VariableStruct {
    /// The field names, in declaration order (the order of the runtime's arrays).
    pub fn field_names(&self) -> Vec<Ident> {
        self.item
            .fields
            .iter()
            .filter_map(|f| f.ident.clone())
            .collect()
    }
}

/// `#[mode]`, `#[mode(initial)]` or `#[mode(initial_if(guard, positive))]`, each with `index2`
/// or not.
pub struct Mode {
    /// The mode's equations.
    pub func: ItemFn,
    /// Whether and how it can be the first mode.
    pub initial: Initial,
    /// The span of `index2` for a Hessenberg index-2 mode (Serban & Recuero 2019, §3.3, Eq. 15:
    /// `y' = f(t, y, z, p)`, `0 = k(t, y, p)`, with `z` defined by the hidden constraint
    /// `k_y f + k_t = 0`); `None` for an ODE or index-1 DAE mode.
    pub index2: Option<Span>,
}

/// How a mode can be the first mode of a solve.
pub enum Initial {
    /// Only by a switch.
    No,
    /// Always the first mode (or the fallback when `initial_if` rules decide nothing).
    Fixed(Span),
    /// The first mode when the named guard has the given sign at `t0`.
    If {
        /// The guard function's name.
        guard: Ident,
        /// `true` for `positive`, `false` for `negative`.
        positive: bool,
    },
}

/// `#[guard(from -> to, direction)]`.
pub struct Guard {
    /// The guard function `h`.
    pub func: ItemFn,
    /// The mode in which it is watched.
    pub from: Ident,
    /// The mode it switches to, or [`STOP`] for a terminal guard.
    pub to: Ident,
    /// The crossing direction that fires it.
    pub direction: Direction,
}

/// The target of a terminal guard: `#[guard(from -> stop, direction)]` ends the solve when it
/// fires.
pub const STOP: &str = "stop";

impl Guard {
    /// Whether the guard ends the solve (its target is [`STOP`]).
    pub fn is_terminal(&self) -> bool {
        self.to == STOP
    }
}

/// The crossing direction of a guard.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// `rising`: from negative to positive.
    Rising,
    /// `falling`: from positive to negative.
    Falling,
    /// `either`.
    Either,
}

/// `#[reset(guard)]`.
pub struct Reset {
    /// The reset function `R`.
    pub func: ItemFn,
    /// The guard it belongs to.
    pub guard: Ident,
}

/// `#[switching_surface(negative, positive)]`: a Filippov switching surface `g = 0` between
/// the mode that holds where `g < 0` and the mode that holds where `g > 0` (Pytlak & Suski,
/// Eqs. 1–5). What it adds to the model is `crate::filippov`.
pub struct Surface {
    /// The switching function `g`.
    pub func: ItemFn,
    /// The mode on the side `g < 0` (`f¹`).
    pub negative: Ident,
    /// The mode on the side `g > 0` (`f²`).
    pub positive: Ident,
}

/// `#[cost(integral)]`, `#[cost(integral, modes(a, b))]`, `#[cost(terminal)]` or
/// `#[cost(sampled)]`.
pub struct Cost {
    /// The cost function.
    pub func: ItemFn,
    /// Which kind.
    pub kind: CostKind,
    /// For an integral cost limited to some modes, those modes (zero elsewhere); `None`: every
    /// mode.
    pub modes: Option<Vec<Ident>>,
}

/// The kinds of cost, each named by its function and by default summed into one objective.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum CostKind {
    /// `∫ L(t, y, z, p, m) dt` over the solve.
    Integral,
    /// `φ(t_f, y, z, p)` at the final time.
    Terminal,
    /// `Σ_k ℓ(t_k, y, z, p, d_k)` over the sample times, with data `d_k`.
    Sampled,
}
