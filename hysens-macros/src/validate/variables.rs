//! The variable structs (`#[states]`, `#[algebraic]`, `#[params]`, `#[inputs]`): at most one of
//! each kind, `#[states]` required, each a non-generic struct of named `f64` fields.
//!
//! These structs alone fix the sizes of the model (`NY`, `NZ`, `NP`) and the names of its
//! variables, which is all the generated shell of a model needs (see `expand::shell`); so
//! [`Variables`] is also what a model with errors elsewhere still gets its shell from.

use crate::model::{Model, VariableStruct};

/// The variable structs of a model, one per kind, in the order of the runtime's arrays: `y`
/// from `states`, `z` from `algebraic`, `p` from `params` then `inputs`.
#[derive(Clone, Copy)]
pub struct Variables<'m> {
    /// The `#[states]` struct.
    pub states: &'m VariableStruct,
    /// The `#[algebraic]` struct, if any.
    pub algebraic: Option<&'m VariableStruct>,
    /// The `#[params]` struct, if any.
    pub params: Option<&'m VariableStruct>,
    /// The `#[inputs]` struct, if any.
    pub inputs: Option<&'m VariableStruct>,
}

impl<'m> Variables<'m> {
    /// The structs present, in runtime order.
    pub fn all(&self) -> impl Iterator<Item = &'m VariableStruct> {
        [Some(self.states), self.algebraic, self.params, self.inputs]
            .into_iter()
            .flatten()
    }

    /// The number of differential states `NY`.
    pub fn ny(&self) -> usize {
        self.states.item.fields.len()
    }

    /// The number of algebraic variables `NZ`.
    pub fn nz(&self) -> usize {
        count(self.algebraic)
    }

    /// The number of parameters and inputs `NP`.
    pub fn np(&self) -> usize {
        count(self.params) + count(self.inputs)
    }

    /// Whether every struct has named fields: then every field a function reads names a
    /// variable, so its body can be lowered even if a field has the wrong type (reported).
    pub fn lowerable(&self) -> bool {
        self.all()
            .all(|s| matches!(s.item.fields, syn::Fields::Named(_)))
    }

    /// Whether every struct is well-formed (see [`problems`]), so that code generated from
    /// the structs alone compiles.
    pub fn usable(&self) -> bool {
        self.all().all(|s| problems(s).is_empty())
    }
}

fn count(s: Option<&VariableStruct>) -> usize {
    s.map_or(0, |s| s.item.fields.len())
}

/// Chooses the struct of each kind, reporting duplicates, malformed structs and a missing
/// `#[states]` in `errors`. `None` without a `#[states]` struct.
pub fn check<'m>(model: &'m Model, errors: &mut Vec<syn::Error>) -> Option<Variables<'m>> {
    let states = single(&model.states, "states", errors);
    let algebraic = single(&model.algebraic, "algebraic", errors);
    let params = single(&model.params, "params", errors);
    let inputs = single(&model.inputs, "inputs", errors);
    for s in [states, algebraic, params, inputs].into_iter().flatten() {
        errors.extend(problems(s));
    }
    let Some(states) = states else {
        errors.push(syn::Error::new(
            model.module.ident.span(),
            "a hybrid model needs its differential states: a `#[states] pub struct X { pub name: f64, ... }`",
        ));
        return None;
    };
    Some(Variables {
        states,
        algebraic,
        params,
        inputs,
    })
}

/// The one struct with `attribute`; a second is an error.
fn single<'m>(
    list: &'m [VariableStruct],
    attribute: &str,
    errors: &mut Vec<syn::Error>,
) -> Option<&'m VariableStruct> {
    if let Some(second) = list.get(1) {
        errors.push(syn::Error::new(
            second.attribute,
            format!(
                "duplicate `#[{attribute}]`: a model has one such struct; put all the fields in it"
            ),
        ));
    }
    list.first()
}

/// What is wrong with a variable struct: it must have named `f64` fields only (at least one),
/// and no generics. Empty when it is well-formed.
pub fn problems(s: &VariableStruct) -> Vec<syn::Error> {
    if !s.item.generics.params.is_empty() {
        return vec![syn::Error::new_spanned(
            &s.item.generics,
            "a variable struct cannot be generic: remove the generic parameters and make every field `f64`",
        )];
    }
    let syn::Fields::Named(fields) = &s.item.fields else {
        return vec![syn::Error::new(
            s.item.ident.span(),
            "a variable struct needs named fields: `struct X { pub name: f64, ... }`",
        )];
    };
    let mut errors: Vec<syn::Error> = fields
        .named
        .iter()
        .filter(|f| !super::signature::is_f64(&f.ty))
        .map(|f| {
            syn::Error::new_spanned(
                &f.ty,
                "every field of a variable struct must be `f64`: each field is one scalar variable",
            )
        })
        .collect();
    if fields.named.is_empty() {
        errors.push(syn::Error::new(
            s.item.ident.span(),
            "this struct has no fields; leave it out if the model has no such variables",
        ));
    }
    errors
}
