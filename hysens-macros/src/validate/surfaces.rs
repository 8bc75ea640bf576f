//! `#[switching_surface(negative, positive)]` functions: each separates two distinct ODE modes
//! of the model without memory, returns one `f64` and reads the time, the states, the
//! parameters and the inputs only; the names of what it generates (`crate::filippov`: its
//! sliding mode, its four guards, its guards on the surfaces it meets) are not taken.
//!
//! What is not supported in this first slice, each with its own error: surfaces in models
//! with algebraic variables (their modes are index-1 DAEs, whose sliding field would have to
//! carry the algebraic equations), surfaces next to index-2 modes, surfaces reading the memory,
//! and surfaces between modes that read the memory (which memory the sliding mode would read is a modelling decision not made
//! yet).

use std::collections::HashSet;

use super::names::Index;
use super::signature::{check_scalar_return, signature, Role, Signature, TypeNames};
use super::CheckedGuard;
use crate::filippov::{meeting_guard_name, Placement};
use crate::model::Model;

/// A surface with its modes resolved and placed in the runtime's numbering.
pub struct CheckedSurface {
    /// Its modes and guards.
    pub placement: Placement,
    /// The signature of the switching function.
    pub signature: Signature,
}

/// Every surface of `model`, in declaration order; problems go to `errors`.
pub fn check(
    model: &Model,
    index: &Index<'_>,
    types: Option<&TypeNames>,
    nz: usize,
    mode_signatures: &[Signature],
    guards: &[CheckedGuard],
    errors: &mut Vec<syn::Error>,
) -> Vec<CheckedSurface> {
    let why = "a switching surface separates two `#[mode]` functions of this model";
    let (sides, signatures): (Vec<_>, Vec<_>) = model
        .surfaces
        .iter()
        .map(|s| {
            let negative = index.mode(&s.negative, why, errors);
            let positive = index.mode(&s.positive, why, errors);
            if s.negative == s.positive {
                errors.push(syn::Error::new(
                    s.positive.span(),
                    format!("mode `{}` is on both sides of switching surface `{}`: name the mode that holds where the function is negative, then a different one where it is positive", s.positive, s.func.sig.ident),
                ));
            }
            if nz > 0 {
                errors.push(syn::Error::new(
                    s.func.sig.ident.span(),
                    "switching surfaces between index-1 DAE modes are not supported yet: this model has `#[algebraic]` variables, so its modes are DAEs; a switching surface separates two ODE modes",
                ));
            }
            for (id, m) in [(&s.negative, negative), (&s.positive, positive)] {
                if m.is_some_and(|m| model.modes[m].index2.is_some()) {
                    errors.push(syn::Error::new(
                        id.span(),
                        format!("mode `{id}` is an index-2 mode (`#[mode(index2)]`): switching surfaces next to index-2 modes are not supported yet; a switching surface separates two ODE modes, so switch out of `{id}` with a `#[guard]` instead"),
                    ));
                }
                let reads_memory = m
                    .and_then(|m| mode_signatures.get(m))
                    .and_then(|sig| sig.param(Role::Memory));
                if let Some(param) = reads_memory {
                    errors.push(syn::Error::new(
                        id.span(),
                        format!("mode `{id}` reads `Memory` (its parameter `{param}`): switching surfaces between modes with memory are not supported yet; remove the memory from `{id}`"),
                    ));
                }
            }
            let returns = check_scalar_return(&s.func, "a switching surface", errors);
            let mut signature = signature(&s.func, types, false, errors);
            signature.sound &= returns;
            for (param, role) in &signature.params {
                let unsupported = match role {
                    Role::Memory => "a switching surface cannot read `Memory`: write it in terms of the time, the states and the parameters",
                    Role::Algebraic => "a switching surface cannot read algebraic variables: surfaces between index-1 DAE modes are not supported yet; write it in terms of the time, the states and the parameters",
                    _ => continue,
                };
                errors.push(syn::Error::new(param.span(), unsupported));
            }
            ((negative.unwrap_or(0), positive.unwrap_or(0)), signature)
        })
        .unzip();
    let guard_from: Vec<usize> = guards.iter().map(|(from, _, _)| *from).collect();
    let placements = Placement::all(model.modes.len(), &guard_from, &sides);
    check_generated_names(model, &placements, errors);
    placements
        .into_iter()
        .zip(signatures)
        .map(|(placement, signature)| CheckedSurface {
            placement,
            signature,
        })
        .collect()
}

/// The sliding mode and the guards a surface generates do not take the name of another mode
/// or guard (the runtime's tables, the event log and the solution name them).
fn check_generated_names(model: &Model, placements: &[Placement], errors: &mut Vec<syn::Error>) {
    let mut modes: HashSet<String> = model
        .modes
        .iter()
        .map(|m| m.func.sig.ident.to_string())
        .collect();
    let mut guards: HashSet<String> = model
        .guards
        .iter()
        .map(|g| g.func.sig.ident.to_string())
        .collect();
    let mut surfaces = HashSet::new();
    for (s, place) in model.surfaces.iter().zip(placements) {
        let name = &s.func.sig.ident;
        if !surfaces.insert(name.to_string()) {
            continue; // a duplicate function name, reported by `names`
        }
        let sliding = s.sliding_mode_name();
        if !modes.insert(sliding.clone()) {
            errors.push(syn::Error::new(
                name.span(),
                format!("switching surface `{name}` generates the sliding mode `{sliding}`, which is already the name of a mode: rename the surface or the mode"),
            ));
        }
        if s.negative == s.positive {
            continue; // its guards' names clash with each other; reported in `check`
        }
        let meeting = place
            .meets
            .iter()
            .map(|&other| meeting_guard_name(s, &model.surfaces[other]));
        // A surface named twice (reported by `names`) would make this one's guard on it twice.
        let mut own = HashSet::new();
        for guard in s.guard_names().into_iter().chain(meeting) {
            if own.insert(guard.clone()) && !guards.insert(guard.clone()) {
                errors.push(syn::Error::new(
                    name.span(),
                    format!("switching surface `{name}` generates the guard `{guard}`, which is already the name of a guard: rename the surface or the guard"),
                ));
            }
        }
    }
}
