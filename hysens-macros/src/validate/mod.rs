//! Checking the model: every cross-reference resolves, every function has a signature the
//! macro understands, and the pieces fit together. Errors point at the offending span and say
//! what to write instead; all of them are collected, not just the first: each check below runs
//! whatever the others found, and a check that needs something missing (the roles of
//! parameters need a `#[states]` struct) is skipped rather than reported twice.
//!
//! One file per kind of item: [`variables`] (the variable structs), [`names`] (distinct
//! function names and their resolution), [`signature`] (parameter roles and return types),
//! [`modes`] (with [`index2`] for Hessenberg index-2 modes), [`guards`] (with the choice of the
//! first mode), [`resets`], [`surfaces`]
//! (switching surfaces), [`costs`] (with outputs), and [`initial`] (`#[initial_state]`).
//!
//! The result, [`Checked`], resolves names to indices and each function parameter to its role,
//! so that `lower` never has to look anything up by name again.
//!
//! A model with errors is [`Rejected`], but it keeps what was resolved as a partial `Checked`
//! (unknown names stand in as index 0), so that `lower` still reads the bodies of the functions
//! whose own signature is sound and reports their mistakes in the same compilation: an
//! unknown guard in a `#[reset(..)]` does not hide an unsupported expression in a mode.

mod costs;
mod guards;
mod guess;
mod index2;
mod initial;
mod modes;
mod names;
mod resets;
mod signature;
mod surfaces;
mod variables;

pub use guards::{CheckedGuard, InitialRule};
pub use signature::{Role, Signature};
pub use surfaces::CheckedSurface;
pub use variables::{problems as variable_struct_problems, Variables};

use crate::model::Model;

/// A model with its names resolved and its functions' signatures checked: complete when
/// [`check`] accepts the model; partial in a [`Rejected`] model (see [`Rejected::checked`]).
pub struct Checked<'m> {
    /// The model.
    pub model: &'m Model,
    /// The variable structs.
    pub variables: Variables<'m>,
    /// Signatures of the modes.
    pub mode_signatures: Vec<Signature>,
    /// For each guard: `(from, to)` mode indices and its signature.
    pub guards: Vec<CheckedGuard>,
    /// For each guard: the index into `model.resets` of its reset.
    pub resets: Vec<Option<usize>>,
    /// Signatures of the resets.
    pub reset_signatures: Vec<Signature>,
    /// The switching surfaces, with their modes and guards placed.
    pub surfaces: Vec<CheckedSurface>,
    /// Signatures of the costs.
    pub cost_signatures: Vec<Signature>,
    /// For each cost, the modes an integral cost is limited to (`None`: every mode).
    pub cost_modes: Vec<Option<Vec<usize>>>,
    /// Signatures of the outputs.
    pub output_signatures: Vec<Signature>,
    /// Signature of the `#[initial_state]` function, if the model has one.
    pub initial_state: Option<Signature>,
    /// Signature of the `#[algebraic_guess]` function, if the model has one.
    pub algebraic_guess: Option<Signature>,
    /// How the first mode is chosen.
    pub initial: InitialRule,
}

/// A model that did not check.
pub struct Rejected<'m> {
    /// Every problem found.
    pub errors: Vec<syn::Error>,
    /// What was resolved, when the variable structs have named fields (so that every field a
    /// function reads names a variable): only for `lower::body_errors`, which reads the bodies
    /// of the functions whose signature is sound. Names that did not resolve stand in as 0,
    /// so nothing may be generated from it.
    pub checked: Option<Box<Checked<'m>>>,
    /// The variable structs, when they are all well-formed: enough to generate the model's
    /// shell, so that code using the model reports no errors of its own.
    pub variables: Option<Variables<'m>>,
}

/// Checks `model`, returning every problem found.
pub fn check(model: &Model) -> Result<Checked<'_>, Rejected<'_>> {
    let mut errors = Vec::new();
    let variables = variables::check(model, &mut errors);
    let types = variables.as_ref().map(signature::TypeNames::of);
    let types = types.as_ref();
    let nz = variables.as_ref().map_or(0, Variables::nz);
    let index = names::Index::new(model, &mut errors);

    let mode_signatures = modes::check(model, types, nz, &mut errors);
    index2::check(model, &mode_signatures, &mut errors);
    let guards = guards::check(model, &index, types, &mut errors);
    let (resets, reset_signatures) = resets::check(model, &index, types, &mut errors);
    let surfaces = surfaces::check(
        model,
        &index,
        types,
        nz,
        &mode_signatures,
        &guards,
        &mut errors,
    );
    let cost_signatures = costs::check_costs(model, types, &mut errors);
    let cost_modes = costs::cost_modes(model, &index, &mut errors);
    let output_signatures = costs::check_outputs(model, types, &mut errors);
    let initial_state = initial::check(model, types, &mut errors);
    let algebraic_guess = guess::check(model, types, &mode_signatures, &mut errors);
    let initial = guards::initial_rule(model, &index, &guards, &surfaces, &mut errors);

    let Some(variables) = variables else {
        return Err(Rejected {
            errors,
            checked: None,
            variables: None,
        });
    };
    let checked = Checked {
        model,
        variables,
        mode_signatures,
        guards,
        resets,
        reset_signatures,
        surfaces,
        cost_signatures,
        cost_modes,
        output_signatures,
        initial_state,
        algebraic_guess,
        initial,
    };
    if errors.is_empty() {
        return Ok(checked);
    }
    Err(Rejected {
        errors,
        checked: variables.lowerable().then(|| Box::new(checked)),
        variables: Some(variables).filter(Variables::usable),
    })
}
