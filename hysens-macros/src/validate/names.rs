//! The names of a model's functions: distinct across modes, guards, resets, switching surfaces,
//! costs, outputs and helpers, and resolved to indices where an attribute refers to a mode or a
//! guard.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::{Ident, ItemFn};

use crate::model::{Model, STOP};

/// Mode and guard names, resolved to their indices in declaration order.
pub struct Index<'m> {
    model: &'m Model,
    modes: HashMap<String, usize>,
    guards: HashMap<String, usize>,
    /// The stopped mode of each mode a terminal guard leaves, by the source mode's name.
    stopped: HashMap<String, usize>,
    /// The guards' names, for error messages: `` `a`, `b` `` or `none`.
    pub guard_names: String,
    /// The switching surfaces' names, likewise.
    pub surface_names: String,
    mode_names: String,
}

impl<'m> Index<'m> {
    /// The index of `model`, reporting duplicate function names in `errors`.
    pub fn new(model: &'m Model, errors: &mut Vec<syn::Error>) -> Self {
        check_distinct(model, errors);
        check_stop_is_free(model, errors);
        // The stopped modes come after the declared and the sliding modes.
        let first_stopped = model.modes.len() + model.surfaces.len();
        let stopped = model
            .stopped_modes()
            .into_iter()
            .enumerate()
            .map(|(k, m)| (model.modes[m].func.sig.ident.to_string(), first_stopped + k))
            .collect();
        let by_name = |functions: Vec<&ItemFn>| -> HashMap<String, usize> {
            functions
                .into_iter()
                .enumerate()
                .map(|(i, f)| (f.sig.ident.to_string(), i))
                .collect()
        };
        Index {
            model,
            modes: by_name(model.modes.iter().map(|m| &m.func).collect()),
            guards: by_name(model.guards.iter().map(|g| &g.func).collect()),
            stopped,
            mode_names: names_of(model.modes.iter().map(|m| &m.func)),
            guard_names: names_of(model.guards.iter().map(|g| &g.func)),
            surface_names: names_of(model.surfaces.iter().map(|s| &s.func)),
        }
    }

    /// The index of the mode `id` names in a guard's attribute. An unknown mode is reported
    /// (unless it is a function whose `#[mode]` did not decode) and resolves to 0.
    pub fn mode_of_guard(&self, id: &Ident, errors: &mut Vec<syn::Error>) -> usize {
        self.mode(
            id,
            "a guard connects two `#[mode]` functions of this model",
            errors,
        )
        .unwrap_or(0)
    }

    /// The index of the stopped mode a terminal guard leaving `from` enters (0 if `from` is
    /// not a mode: that is reported as the guard's source).
    pub fn stopped_mode(&self, from: &Ident) -> usize {
        self.stopped.get(&from.to_string()).copied().unwrap_or(0)
    }

    /// The index of the mode `id` names in an attribute; `None` if there is none. An unknown
    /// mode is reported with `why` (what the attribute names) unless it is a function whose
    /// `#[mode]` did not decode.
    pub fn mode(&self, id: &Ident, why: &str, errors: &mut Vec<syn::Error>) -> Option<usize> {
        let found = self.modes.get(&id.to_string()).copied();
        if found.is_none() && !self.model.is_unparsed(id, "mode") {
            errors.push(syn::Error::new(
                id.span(),
                format!("unknown mode `{id}`: {why} (modes: {})", self.mode_names),
            ));
        }
        found
    }

    /// The index of the guard `id`; `None` if there is none. When `id` is unknown and not a
    /// function whose `#[guard]` did not decode, `unknown` is the error to report.
    pub fn guard(
        &self,
        id: &Ident,
        unknown: impl FnOnce() -> String,
        errors: &mut Vec<syn::Error>,
    ) -> Option<usize> {
        let found = self.guards.get(&id.to_string()).copied();
        if found.is_none() && !self.model.is_unparsed(id, "guard") {
            errors.push(syn::Error::new(id.span(), unknown()));
        }
        found
    }
}

/// Every function of the model has its own name (attributes refer to modes and guards by
/// name, so a name must say which function it is).
fn check_distinct(model: &Model, errors: &mut Vec<syn::Error>) {
    let mut seen: HashMap<String, Span> = HashMap::new();
    let all_functions = model
        .modes
        .iter()
        .map(|m| &m.func)
        .chain(model.guards.iter().map(|g| &g.func))
        .chain(model.resets.iter().map(|r| &r.func))
        .chain(model.surfaces.iter().map(|s| &s.func))
        .chain(model.costs.iter().map(|c| &c.func))
        .chain(model.outputs.iter())
        .chain(model.initial_states.iter())
        .chain(model.algebraic_guesses.iter())
        .chain(model.helpers.iter());
    for f in all_functions {
        let name = f.sig.ident.to_string();
        if seen.insert(name.clone(), f.sig.ident.span()).is_some() {
            errors.push(syn::Error::new(
                f.sig.ident.span(),
                format!("duplicate name `{name}`: the functions of a model (modes, guards, resets, switching surfaces, costs, outputs, helpers) need distinct names; rename one"),
            ));
        }
    }
}

/// No `#[mode]` function is named `stop`: the name is the target of terminal guards.
fn check_stop_is_free(model: &Model, errors: &mut Vec<syn::Error>) {
    for mode in &model.modes {
        let name = &mode.func.sig.ident;
        if name == STOP {
            errors.push(syn::Error::new(
                name.span(),
                "`stop` is reserved: a guard whose target is `stop` (`#[guard(from -> stop, direction)]`) ends the solve; rename this mode",
            ));
        }
    }
}

/// `` `a`, `b` `` for naming the candidates in an error, or `none`.
fn names_of<'a>(functions: impl Iterator<Item = &'a ItemFn>) -> String {
    let names: Vec<String> = functions.map(|f| format!("`{}`", f.sig.ident)).collect();
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}
