//! `#[guard(from -> to, direction)]` functions and the choice of the first mode
//! (`#[mode(initial)]`, `#[mode(initial_if(guard, sign))]`), which reads guards (or a switching
//! surface's function) at `t0`.

use super::names::Index;
use super::signature::{check_scalar_return, signature, Role, Signature, TypeNames};
use super::surfaces::CheckedSurface;
use crate::filippov::SurfaceGuard;
use crate::model::{Initial, Model, STOP};

/// A guard with its modes resolved: `(from, to, signature)`.
pub type CheckedGuard = (usize, usize, Signature);

/// How the first mode is chosen, with indices resolved.
pub enum InitialRule {
    /// Always this mode.
    Fixed(usize),
    /// `(guard, positive, mode)` rules in declaration order, and the fallback mode.
    ByGuardSigns(Vec<(usize, bool, usize)>, Option<usize>),
}

/// Every guard connects two modes of the model (or ends the solve: the target `stop`) and
/// returns one `f64`.
pub fn check(
    model: &Model,
    index: &Index<'_>,
    types: Option<&TypeNames>,
    errors: &mut Vec<syn::Error>,
) -> Vec<CheckedGuard> {
    model
        .guards
        .iter()
        .map(|g| {
            let from = match g.from == STOP {
                true => {
                    errors.push(syn::Error::new(
                        g.from.span(),
                        "no guard leaves `stop`: a guard whose target is `stop` ends the solve, so nothing is integrated after it; a guard is watched in a `#[mode]` function",
                    ));
                    0
                }
                false => index.mode_of_guard(&g.from, errors),
            };
            let to = match g.is_terminal() {
                true => index.stopped_mode(&g.from),
                false => index.mode_of_guard(&g.to, errors),
            };
            let returns = check_scalar_return(&g.func, "a guard", errors);
            let mut sig = signature(&g.func, types, false, errors);
            sig.sound &= returns;
            (from, to, sig)
        })
        .collect()
}

/// Exactly one `#[mode(initial)]`, or `initial_if` rules (with at most one `initial` fallback)
/// naming guards that do not read the memory (there is none yet at `t0`).
pub fn initial_rule(
    model: &Model,
    index: &Index<'_>,
    guards: &[CheckedGuard],
    surfaces: &[CheckedSurface],
    errors: &mut Vec<syn::Error>,
) -> InitialRule {
    let mut fixed: Option<usize> = None;
    let mut rules = Vec::new();
    let mut any_initial_if = false;
    for (m, mode) in model.modes.iter().enumerate() {
        match &mode.initial {
            Initial::No => {}
            Initial::Fixed(span) => {
                if fixed.is_some() {
                    errors.push(syn::Error::new(
                        *span,
                        "two modes are marked `initial`: the first mode must be unambiguous, so mark only one; the others are entered by switches",
                    ));
                }
                fixed = Some(m);
            }
            Initial::If { guard, positive } => {
                any_initial_if = true;
                // A switching surface's sign is the value of its first guard (`g` itself).
                let surface = model
                    .surfaces
                    .iter()
                    .position(|s| s.func.sig.ident == *guard);
                if let Some(k) = surface {
                    let g = surfaces[k].placement.guard(SurfaceGuard::FromNegative);
                    rules.push((g, *positive, m));
                    continue;
                }
                let unknown = || {
                    format!("unknown guard `{guard}`: `initial_if` names a `#[guard]` or `#[switching_surface]` function (guards: {}; switching surfaces: {})", index.guard_names, index.surface_names)
                };
                let Some(g) = index.guard(guard, unknown, errors) else {
                    continue;
                };
                if let Some(id) = guards[g].2.param(Role::Memory) {
                    errors.push(syn::Error::new(
                        id.span(),
                        format!("guard `{guard}` chooses the first mode, so it is evaluated at t0 before any mode entry has set the memory: it cannot read `Memory`; remove this parameter, or mark the first mode `#[mode(initial)]` instead"),
                    ));
                }
                rules.push((g, *positive, m));
            }
        }
    }
    match (fixed, rules.is_empty()) {
        (Some(m), true) => InitialRule::Fixed(m),
        (fallback, false) => InitialRule::ByGuardSigns(rules, fallback),
        (None, true) => {
            if !model.modes.is_empty() && !any_initial_if && !model.has_unparsed("mode") {
                errors.push(syn::Error::new(
                    model.module.ident.span(),
                    "no initial mode: mark one mode `#[mode(initial)]`, or choose it from guard signs with `#[mode(initial_if(guard, positive))]`",
                ));
            }
            InitialRule::Fixed(0)
        }
    }
}
