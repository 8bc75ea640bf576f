//! Which function bodies are lowered, and how they make the model in the runtime's numbering.
//!
//! Every function whose signature `validate` found sound is lowered on its own, so that a
//! mistake in one body (or an unknown name elsewhere in the model) does not keep the others
//! from being read and reported; a function whose parameters or return type are wrong is not
//! read, since its body would only repeat that error. Only when every body lowered are they
//! assembled: each guard's reset found by guard, the costs summed by kind (and each alone, for
//! the named costs), and the sliding mode and guards of each switching surface built from its
//! modes' bodies and appended (`crate::filippov`).

use hysens_symbolic::{ExprId, Scope};
use syn::ItemFn;

use super::{sliding, CostTerm, Lowered, LoweredMode, LoweredSurface, Lowering};
use crate::filippov::{Rate, SurfaceGuard, Watched};
use crate::model::CostKind;
use crate::validate::{Role, Signature};

/// Every function of the model as expressions, in declaration order; `None` for a function
/// whose signature `validate` rejected (not lowered) or whose body has errors (reported).
/// The type parameters are the entries: `Option`s here, the bodies themselves in [`Complete`].
pub(super) struct Bodies<T = Option<LoweredMode>, E = Option<ExprId>, R = Option<Vec<ExprId>>> {
    modes: Vec<T>,
    guards: Vec<E>,
    /// By reset, in declaration order (not by guard).
    resets: Vec<R>,
    /// The switching functions.
    surfaces: Vec<E>,
    costs: Vec<E>,
    outputs: Vec<E>,
    /// The `#[initial_state]` function (none or one).
    initial_state: Vec<R>,
    /// The `#[algebraic_guess]` function (none or one).
    algebraic_guess: Vec<R>,
}

/// Every function lowered.
pub(super) type Complete = Bodies<LoweredMode, ExprId, Vec<ExprId>>;

impl Bodies {
    /// The bodies, if every function lowered.
    pub(super) fn complete(self) -> Option<Complete> {
        Some(Bodies {
            modes: self.modes.into_iter().collect::<Option<_>>()?,
            guards: self.guards.into_iter().collect::<Option<_>>()?,
            resets: self.resets.into_iter().collect::<Option<_>>()?,
            surfaces: self.surfaces.into_iter().collect::<Option<_>>()?,
            costs: self.costs.into_iter().collect::<Option<_>>()?,
            outputs: self.outputs.into_iter().collect::<Option<_>>()?,
            initial_state: self.initial_state.into_iter().collect::<Option<_>>()?,
            algebraic_guess: self.algebraic_guess.into_iter().collect::<Option<_>>()?,
        })
    }
}

impl Lowering<'_, '_> {
    /// Lowers the body of every function whose signature is sound, each on its own (a
    /// mistake in one body does not keep the others from being read); their errors go to
    /// `errors`.
    pub(super) fn bodies(&mut self, base: &Scope, errors: &mut Vec<syn::Error>) -> Bodies {
        let checked = self.checked;
        let model = checked.model;
        let nz = self.field_names(Role::Algebraic).len();
        let modes = model
            .modes
            .iter()
            .zip(&checked.mode_signatures)
            .map(|(mode, sig)| {
                let scope = self.sound_scope(base, sig)?;
                let (f, g) = self
                    .mode_body(&mode.func, &scope, nz)
                    .map_err(|e| errors.extend(e))
                    .ok()?;
                let uses_memory = self.reads_memory(&f, &g);
                Some(LoweredMode {
                    f,
                    g,
                    uses_memory,
                    hidden: None,
                    constraint_rows: Vec::new(),
                })
            })
            .collect();
        let guards = model
            .guards
            .iter()
            .zip(&checked.guards)
            .map(|(guard, (_, _, sig))| self.scalar(base, &guard.func, sig, errors))
            .collect();
        let resets = model
            .resets
            .iter()
            .zip(&checked.reset_signatures)
            .map(|(reset, sig)| {
                let scope = self.sound_scope(base, sig)?;
                let what = ("reset", "a reset gives every state after the switch");
                self.states_literal_body(&reset.func, &scope, what)
                    .map_err(|e| errors.extend(e))
                    .ok()
            })
            .collect();
        let (initial_state, algebraic_guess) = self.start_bodies(base, errors);
        let surfaces = model
            .surfaces
            .iter()
            .zip(&checked.surfaces)
            .map(|(surface, checked)| self.scalar(base, &surface.func, &checked.signature, errors))
            .collect();
        let costs = model
            .costs
            .iter()
            .zip(&checked.cost_signatures)
            .map(|(cost, sig)| self.scalar(base, &cost.func, sig, errors))
            .collect();
        let outputs = model
            .outputs
            .iter()
            .zip(&checked.output_signatures)
            .map(|(output, sig)| self.scalar(base, output, sig, errors))
            .collect();
        Bodies {
            modes,
            guards,
            resets,
            surfaces,
            costs,
            outputs,
            initial_state,
            algebraic_guess,
        }
    }

    /// The bodies of the functions of the start (none or one each): the `#[initial_state]`
    /// map and the `#[algebraic_guess]`.
    #[allow(clippy::type_complexity)]
    fn start_bodies(
        &mut self,
        base: &Scope,
        errors: &mut Vec<syn::Error>,
    ) -> (Vec<Option<Vec<ExprId>>>, Vec<Option<Vec<ExprId>>>) {
        let checked = self.checked;
        let model = checked.model;
        let initial_state = model
            .initial_states
            .first()
            .zip(checked.initial_state.as_ref())
            .map(|(func, sig)| {
                let scope = self.sound_scope(base, sig)?;
                let what = (
                    "initial state",
                    "an initial state gives every state the solve starts from",
                );
                self.states_literal_body(func, &scope, what)
                    .map_err(|e| errors.extend(e))
                    .ok()
            })
            .into_iter()
            .collect();
        let algebraic = checked
            .variables
            .algebraic
            .map(|z| z.item.ident.to_string());
        let algebraic_guess = model
            .algebraic_guesses
            .first()
            .zip(checked.algebraic_guess.as_ref())
            .zip(algebraic)
            .map(|((func, sig), algebraic)| {
                let scope = self.sound_scope(base, sig)?;
                self.algebraic_literal_body(func, &scope, &algebraic)
                    .map_err(|e| errors.extend(e))
                    .ok()
            })
            .into_iter()
            .collect();
        (initial_state, algebraic_guess)
    }

    /// `base` plus the parameters of a function whose signature is sound; `None` otherwise.
    fn sound_scope(&self, base: &Scope, sig: &Signature) -> Option<Scope> {
        sig.sound.then(|| self.scope(base, sig))
    }

    /// The value of a scalar function (guard, surface, cost, output) whose signature is sound.
    fn scalar(
        &mut self,
        base: &Scope,
        func: &ItemFn,
        sig: &Signature,
        errors: &mut Vec<syn::Error>,
    ) -> Option<ExprId> {
        let scope = self.sound_scope(base, sig)?;
        self.scalar_body(func, &scope)
            .map_err(|e| errors.extend(e))
            .ok()
    }

    /// The model in the runtime's numbering, from every function's body: each guard's reset
    /// by guard, the costs summed by kind, and the switching surfaces' sliding modes and
    /// guards appended (see [`Self::surfaces`]).
    pub(super) fn assemble(mut self, bodies: Complete) -> Lowered {
        let checked = self.checked;
        let mut modes = bodies.modes;
        let mut guards = bodies.guards;
        let mut resets: Vec<Option<Vec<ExprId>>> = checked
            .resets
            .iter()
            .map(|reset| reset.map(|k| bodies.resets[k].clone()))
            .collect();
        let surfaces = self.surfaces(&bodies.surfaces, &mut modes, &mut guards, &mut resets);
        self.stopped_modes(&mut modes);
        let declared = checked.model.modes.len();
        let (mut integral, mut terminal, mut sampled) = (vec![None; declared], None, None);
        let costs = checked.model.costs.iter().zip(&checked.cost_modes);
        for ((cost, limited_to), &value) in costs.zip(&bodies.costs) {
            let totals: Vec<&mut Option<ExprId>> = match cost.kind {
                CostKind::Integral => integral
                    .iter_mut()
                    .enumerate()
                    .filter(|(m, _)| limited_to.as_ref().is_none_or(|ms| ms.contains(m)))
                    .map(|(_, total)| total)
                    .collect(),
                CostKind::Terminal => vec![&mut terminal],
                CostKind::Sampled => vec![&mut sampled],
            };
            for total in totals {
                *total = Some(match *total {
                    Some(sum) => self.graph.add(sum, value),
                    None => value,
                });
            }
        }
        self.sliding_integrands(&surfaces, &mut integral);
        // A stopped mode is never integrated in: no integrand.
        integral.resize(modes.len(), None);
        let terms = self.cost_terms(&bodies.costs, &surfaces, modes.len());
        Lowered {
            graph: self.graph,
            vars: self.vars,
            modes,
            guards,
            surfaces,
            resets,
            integral,
            terminal,
            sampled,
            costs: terms,
            outputs: bodies.outputs,
            initial_state: bodies.initial_state.into_iter().next(),
            algebraic_guess: bodies.algebraic_guess.into_iter().next(),
        }
    }

    /// Each cost alone (`values`: their functions' expressions): an integral cost's integrand
    /// mode by mode, as [`Self::assemble`] sums them (in the `n_modes` modes of the runtime's
    /// numbering: the sliding modes with their sides' integrands combined, none in a stopped
    /// mode).
    fn cost_terms(
        &mut self,
        values: &[ExprId],
        surfaces: &[LoweredSurface],
        n_modes: usize,
    ) -> Vec<CostTerm> {
        let checked = self.checked;
        let declared = checked.model.modes.len();
        let costs = checked.model.costs.iter().zip(&checked.cost_modes);
        costs
            .zip(values)
            .map(|((cost, limited_to), &value)| match cost.kind {
                CostKind::Integral => {
                    let applies = |m: &usize| limited_to.as_ref().is_none_or(|ms| ms.contains(m));
                    let mut by_mode: Vec<_> = (0..declared)
                        .map(|m| applies(&m).then_some(value))
                        .collect();
                    self.sliding_integrands(surfaces, &mut by_mode);
                    by_mode.resize(n_modes, None);
                    CostTerm::Integral(by_mode)
                }
                CostKind::Terminal => CostTerm::Terminal(value),
                CostKind::Sampled => CostTerm::Sampled(value),
            })
            .collect()
    }

    /// Appends the integrand of each switching surface's sliding mode to `integral` (one per
    /// mode so far): `L_F` of its two sides ([`sliding::sliding_integrand`]).
    fn sliding_integrands(
        &mut self,
        surfaces: &[LoweredSurface],
        integral: &mut Vec<Option<ExprId>>,
    ) {
        for (lowered, checked) in surfaces.iter().zip(&self.checked.surfaces) {
            let place = &checked.placement;
            let (l1, l2) = (integral[place.negative], integral[place.positive]);
            let l = sliding::sliding_integrand(&mut self.graph, lowered.alpha, l1, l2);
            integral.push(l);
        }
    }

    /// Appends the stopped mode of each mode a terminal guard leaves
    /// (`Model::stopped_modes`): `f = 0` and the source mode's `g`.
    fn stopped_modes(&mut self, modes: &mut Vec<LoweredMode>) {
        let zero = self.graph.constant(0.0);
        for source in self.checked.model.stopped_modes() {
            let g = modes[source].g.clone();
            let f = vec![zero; self.vars.y.len()];
            let uses_memory = self.reads_memory(&f, &g);
            modes.push(LoweredMode {
                f,
                g,
                uses_memory,
                hidden: None,
                constraint_rows: Vec::new(),
            });
        }
    }

    /// Builds every switching surface's sliding mode from its switching function `functions[k]`
    /// and appends it, its guards and their resets in the runtime's order
    /// (`crate::filippov`): its own four (continuous), the declared guards of its two modes
    /// again (the same `h` and reset), and the switching functions of the surfaces it meets.
    fn surfaces(
        &mut self,
        functions: &[ExprId],
        modes: &mut Vec<LoweredMode>,
        guards: &mut Vec<ExprId>,
        resets: &mut Vec<Option<Vec<ExprId>>>,
    ) -> Vec<LoweredSurface> {
        let mut surfaces = Vec::new();
        for (&g, checked) in functions.iter().zip(&self.checked.surfaces) {
            let place = &checked.placement;
            let lowered = sliding::surface(
                &mut self.graph,
                &self.vars,
                g,
                &modes[place.negative].f,
                &modes[place.positive].f,
            );
            modes.push(LoweredMode {
                f: lowered.field.clone(),
                g: Vec::new(),
                uses_memory: false,
                hidden: None,
                constraint_rows: Vec::new(),
            });
            for guard in SurfaceGuard::ALL {
                guards.push(match guard.watched() {
                    Watched::Surface => lowered.g,
                    Watched::Rate(Rate::Negative) => lowered.rates[0],
                    Watched::Rate(Rate::Positive) => lowered.rates[1],
                });
                resets.push(None);
            }
            for (_, declared) in place.inherited_guards() {
                guards.push(guards[declared]);
                resets.push(resets[declared].clone());
            }
            for (_, other) in place.meeting_guards() {
                guards.push(functions[other]);
                resets.push(None);
            }
            surfaces.push(lowered);
        }
        surfaces
    }
}
