//! `#[cost(integral | terminal | sampled)]` and `#[output]` functions: scalar functions of the
//! solution, each returning one `f64`.

use super::names::Index;
use super::signature::{check_scalar_return, signature, Role, Signature, TypeNames};
use crate::model::{CostKind, Model};

/// For each cost, in declaration order, the modes (by index) an integral cost is limited to;
/// `None`: every mode. An unknown mode is reported and left out.
pub fn cost_modes(
    model: &Model,
    index: &Index<'_>,
    errors: &mut Vec<syn::Error>,
) -> Vec<Option<Vec<usize>>> {
    let why =
        "`#[cost(integral, modes(..))]` names the `#[mode]` functions the integrand applies in";
    model
        .costs
        .iter()
        .map(|c| {
            let names = c.modes.as_ref()?;
            Some(
                names
                    .iter()
                    .filter_map(|m| index.mode(m, why, errors))
                    .collect(),
            )
        })
        .collect()
}

/// The signature of every cost, in declaration order. At most one sampled cost, which takes
/// its datum as an `f64` parameter; a terminal cost does not read the memory.
pub fn check_costs(
    model: &Model,
    types: Option<&TypeNames>,
    errors: &mut Vec<syn::Error>,
) -> Vec<Signature> {
    let mut sampled = 0;
    model
        .costs
        .iter()
        .map(|c| {
            let returns = check_scalar_return(&c.func, "a cost", errors);
            let is_sampled = c.kind == CostKind::Sampled;
            if is_sampled {
                sampled += 1;
                if sampled == 2 {
                    errors.push(syn::Error::new(
                        c.func.sig.ident.span(),
                        "a model has at most one `#[cost(sampled)]`: add the terms into one function",
                    ));
                }
            }
            let mut sig = signature(&c.func, types, is_sampled, errors);
            sig.sound &= returns;
            if types.is_some() && is_sampled && sig.param(Role::Datum).is_none() {
                errors.push(syn::Error::new(
                    c.func.sig.paren_token.span.join(),
                    "a sampled cost takes the measured datum as an `f64` parameter: add e.g. `d: f64`",
                ));
            }
            if c.kind == CostKind::Terminal {
                if let Some(id) = sig.param(Role::Memory) {
                    errors.push(syn::Error::new(
                        id.span(),
                        "a terminal cost cannot read memory: write it in terms of the final state",
                    ));
                }
            }
            sig
        })
        .collect()
}

/// The signature of every output, in declaration order. An output does not read the memory:
/// the results evaluate it at stored states (samples, the final state, dense output), which do
/// not carry the memory or its sensitivities.
pub fn check_outputs(
    model: &Model,
    types: Option<&TypeNames>,
    errors: &mut Vec<syn::Error>,
) -> Vec<Signature> {
    model
        .outputs
        .iter()
        .map(|o| {
            let returns = check_scalar_return(o, "an output", errors);
            let mut sig = signature(o, types, false, errors);
            sig.sound &= returns;
            if let Some(id) = sig.param(Role::Memory) {
                errors.push(syn::Error::new(
                    id.span(),
                    "an output cannot read memory: it is evaluated at stored states (samples, the final state, dense output), which do not carry the memory; write it in terms of `t`, the states, the algebraic variables, the parameters and the inputs",
                ));
            }
            sig
        })
        .collect()
}
