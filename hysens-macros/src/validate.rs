//! Checking the model: every cross-reference resolves, every function has a signature the
//! macro understands, and the pieces fit together. Errors point at the offending span and say
//! what to write instead; all of them are collected, not just the first.
//!
//! The result, [`Checked`], resolves names to indices and each function parameter to its role,
//! so that `lower` never has to look anything up by name again.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{FnArg, Ident, ItemFn, Pat, ReturnType, Type};

use crate::model::{CostKind, Initial, Model, VariableStruct};

/// What a function parameter stands for, decided by its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// `&X`, the `#[states]` struct.
    States,
    /// `&Z`, the `#[algebraic]` struct.
    Algebraic,
    /// `&P`, the `#[params]` struct.
    Params,
    /// `&U`, the `#[inputs]` struct.
    Inputs,
    /// `&Memory`: the state at the last mode entry.
    Memory,
    /// `t: f64`.
    Time,
    /// The datum `d: f64` of a sampled cost.
    Datum,
}

/// A function's parameters with their roles, in order.
pub type Signature = Vec<(Ident, Role)>;

/// How the first mode is chosen, with indices resolved.
pub enum InitialRule {
    /// Always this mode.
    Fixed(usize),
    /// `(guard, positive, mode)` rules in declaration order, and the fallback mode.
    ByGuardSigns(Vec<(usize, bool, usize)>, Option<usize>),
}

/// A model whose names all resolve.
pub struct Checked<'m> {
    /// The model.
    pub model: &'m Model,
    /// The `#[states]` struct.
    pub states: &'m VariableStruct,
    /// The `#[algebraic]` struct, if any.
    pub algebraic: Option<&'m VariableStruct>,
    /// The `#[params]` struct, if any.
    pub params: Option<&'m VariableStruct>,
    /// The `#[inputs]` struct, if any.
    pub inputs: Option<&'m VariableStruct>,
    /// Signatures of the modes, in declaration order.
    pub mode_signatures: Vec<Signature>,
    /// For each guard: `(from, to)` mode indices and its signature.
    pub guards: Vec<(usize, usize, Signature)>,
    /// For each guard: the index into `model.resets` of its reset, and the reset's signature.
    pub resets: Vec<Option<(usize, Signature)>>,
    /// Signatures of the costs.
    pub cost_signatures: Vec<Signature>,
    /// Signatures of the outputs.
    pub output_signatures: Vec<Signature>,
    /// How the first mode is chosen.
    pub initial: InitialRule,
}

/// Checks `model`, returning every problem found.
pub fn check(model: &Model) -> Result<Checked<'_>, Vec<syn::Error>> {
    let mut errors = Vec::new();
    let module_span = model.module.ident.span();

    let states = single(&model.states, "states", &mut errors);
    let algebraic = single(&model.algebraic, "algebraic", &mut errors);
    let params = single(&model.params, "params", &mut errors);
    let inputs = single(&model.inputs, "inputs", &mut errors);
    for s in [states, algebraic, params, inputs].into_iter().flatten() {
        check_variable_struct(s, &mut errors);
    }
    let Some(states) = states else {
        errors.push(syn::Error::new(
            module_span,
            "a hybrid model needs its differential states: a `#[states] pub struct X { pub name: f64, ... }`",
        ));
        return Err(errors);
    };

    let types = TypeNames {
        states: states.item.ident.to_string(),
        algebraic: algebraic.map(|s| s.item.ident.to_string()),
        params: params.map(|s| s.item.ident.to_string()),
        inputs: inputs.map(|s| s.item.ident.to_string()),
    };

    // Unique names across all model functions (the guard and mode namespaces are what attributes
    // refer to).
    let mut seen: HashMap<String, Span> = HashMap::new();
    let all_functions = model
        .modes
        .iter()
        .map(|m| &m.func)
        .chain(model.guards.iter().map(|g| &g.func))
        .chain(model.resets.iter().map(|r| &r.func))
        .chain(model.costs.iter().map(|c| &c.func))
        .chain(model.outputs.iter())
        .chain(model.helpers.iter());
    for f in all_functions {
        let name = f.sig.ident.to_string();
        if seen.insert(name.clone(), f.sig.ident.span()).is_some() {
            errors.push(syn::Error::new(
                f.sig.ident.span(),
                format!("duplicate name `{name}`: the functions of a model (modes, guards, resets, costs, outputs, helpers) need distinct names; rename one"),
            ));
        }
    }

    if model.modes.is_empty() {
        errors.push(syn::Error::new(
            module_span,
            "a hybrid model needs at least one mode: add a `#[mode(initial)]` function returning the state derivatives",
        ));
    }
    let mode_index: HashMap<String, usize> = model
        .modes
        .iter()
        .enumerate()
        .map(|(i, m)| (m.func.sig.ident.to_string(), i))
        .collect();
    let guard_index: HashMap<String, usize> = model
        .guards
        .iter()
        .enumerate()
        .map(|(i, g)| (g.func.sig.ident.to_string(), i))
        .collect();
    let mode_names = names_of(model.modes.iter().map(|m| &m.func));
    let guard_names = names_of(model.guards.iter().map(|g| &g.func));
    let resolve_mode = |id: &Ident, errors: &mut Vec<syn::Error>| -> usize {
        match mode_index.get(&id.to_string()) {
            Some(&i) => i,
            None => {
                errors.push(syn::Error::new(
                    id.span(),
                    format!("unknown mode `{id}`: a guard connects two `#[mode]` functions of this model (modes: {mode_names})"),
                ));
                0
            }
        }
    };

    let nz = algebraic.map_or(0, |a| a.item.fields.len());
    let mode_signatures = model
        .modes
        .iter()
        .map(|m| {
            check_mode_return(&m.func, &types, nz, &mut errors);
            signature(&m.func, &types, false, &mut errors)
        })
        .collect();

    let guards: Vec<(usize, usize, Signature)> = model
        .guards
        .iter()
        .map(|g| {
            let from = resolve_mode(&g.from, &mut errors);
            let to = resolve_mode(&g.to, &mut errors);
            check_scalar_return(&g.func, "a guard", &mut errors);
            (from, to, signature(&g.func, &types, false, &mut errors))
        })
        .collect();

    let mut resets: Vec<Option<(usize, Signature)>> = vec![None; model.guards.len()];
    for (k, r) in model.resets.iter().enumerate() {
        let sig = signature(&r.func, &types, false, &mut errors);
        check_struct_return(
            &r.func,
            &types.states,
            "a reset returns the states after the switch",
            &mut errors,
        );
        match guard_index.get(&r.guard.to_string()) {
            Some(&g) if resets[g].is_some() => errors.push(syn::Error::new(
                r.guard.span(),
                format!("guard `{}` already has a reset: a switch applies one reset, so merge them into one `#[reset]` function", r.guard),
            )),
            Some(&g) => resets[g] = Some((k, sig)),
            None => errors.push(syn::Error::new(
                r.guard.span(),
                format!(
                    "unknown guard `{}`: `#[reset(name)]` names a `#[guard]` function (guards: {guard_names})",
                    r.guard
                ),
            )),
        }
    }

    let mut sampled = 0;
    let cost_signatures = model
        .costs
        .iter()
        .map(|c| {
            check_scalar_return(&c.func, "a cost", &mut errors);
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
            let sig = signature(&c.func, &types, is_sampled, &mut errors);
            if is_sampled && !sig.iter().any(|(_, r)| *r == Role::Datum) {
                errors.push(syn::Error::new(
                    c.func.sig.paren_token.span.join(),
                    "a sampled cost takes the measured datum as an `f64` parameter: add e.g. `d: f64`",
                ));
            }
            if c.kind == CostKind::Terminal {
                if let Some((id, _)) = sig.iter().find(|(_, r)| *r == Role::Memory) {
                    errors.push(syn::Error::new(
                        id.span(),
                        "a terminal cost cannot read memory: write it in terms of the final state",
                    ));
                }
            }
            sig
        })
        .collect();
    let output_signatures = model
        .outputs
        .iter()
        .map(|o| {
            check_scalar_return(o, "an output", &mut errors);
            signature(o, &types, false, &mut errors)
        })
        .collect();

    let initial = initial_rule(model, &guard_index, &guards, &guard_names, &mut errors);

    if errors.is_empty() {
        Ok(Checked {
            model,
            states,
            algebraic,
            params,
            inputs,
            mode_signatures,
            guards,
            resets,
            cost_signatures,
            output_signatures,
            initial,
        })
    } else {
        Err(errors)
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

/// The type names that give parameters their roles.
struct TypeNames {
    states: String,
    algebraic: Option<String>,
    params: Option<String>,
    inputs: Option<String>,
}

/// Named `f64` fields only, no generics.
fn check_variable_struct(s: &VariableStruct, errors: &mut Vec<syn::Error>) {
    if !s.item.generics.params.is_empty() {
        errors.push(syn::Error::new_spanned(
            &s.item.generics,
            "a variable struct cannot be generic: remove the generic parameters and make every field `f64`",
        ));
        return;
    }
    match &s.item.fields {
        syn::Fields::Named(fields) => {
            for f in &fields.named {
                if !is_f64(&f.ty) {
                    errors.push(syn::Error::new_spanned(
                        &f.ty,
                        "every field of a variable struct must be `f64`: each field is one scalar variable",
                    ));
                }
            }
            if fields.named.is_empty() {
                errors.push(syn::Error::new(
                    s.item.ident.span(),
                    "this struct has no fields; leave it out if the model has no such variables",
                ));
            }
        }
        _ => errors.push(syn::Error::new(
            s.item.ident.span(),
            "a variable struct needs named fields: `struct X { pub name: f64, ... }`",
        )),
    }
}

/// The roles of `func`'s parameters. `datum_allowed` admits one extra `f64` (a sampled cost's
/// datum).
fn signature(
    func: &ItemFn,
    types: &TypeNames,
    datum_allowed: bool,
    errors: &mut Vec<syn::Error>,
) -> Signature {
    let mut sig = Vec::new();
    let mut used: Vec<Role> = Vec::new();
    for input in &func.sig.inputs {
        let FnArg::Typed(pt) = input else {
            errors.push(syn::Error::new(
                input.span(),
                "model functions take no `self`",
            ));
            continue;
        };
        let Pat::Ident(pat) = &*pt.pat else {
            errors.push(syn::Error::new(
                pt.pat.span(),
                "write a plain parameter name here",
            ));
            continue;
        };
        let name = pat.ident.clone();
        let role = if is_f64(&pt.ty) {
            let bare = name.to_string();
            if (bare == "t" || bare == "_t") && !used.contains(&Role::Time) {
                Some(Role::Time)
            } else if datum_allowed && !used.contains(&Role::Datum) {
                Some(Role::Datum)
            } else {
                errors.push(syn::Error::new_spanned(
                    pt,
                    "an `f64` parameter of a model function is the time and must be named `t`",
                ));
                None
            }
        } else {
            match referenced_type(&pt.ty) {
                Some(ty) if ty == types.states => Some(Role::States),
                Some(ty) if Some(&ty) == types.algebraic.as_ref() => Some(Role::Algebraic),
                Some(ty) if Some(&ty) == types.params.as_ref() => Some(Role::Params),
                Some(ty) if Some(&ty) == types.inputs.as_ref() => Some(Role::Inputs),
                Some(ty) if ty == "Memory" => Some(Role::Memory),
                _ => {
                    let mut allowed = vec![format!("&{}", types.states)];
                    allowed.extend(types.algebraic.iter().map(|t| format!("&{t}")));
                    allowed.extend(types.params.iter().map(|t| format!("&{t}")));
                    allowed.extend(types.inputs.iter().map(|t| format!("&{t}")));
                    allowed.push("&Memory".into());
                    allowed.push("t: f64".into());
                    errors.push(syn::Error::new_spanned(
                        &pt.ty,
                        format!(
                            "unexpected parameter type: a model function takes {}",
                            allowed.join(", ")
                        ),
                    ));
                    None
                }
            }
        };
        if let Some(role) = role {
            if used.contains(&role) {
                errors.push(syn::Error::new_spanned(
                    pt,
                    "this parameter repeats a role another parameter already has: remove it",
                ));
            }
            used.push(role);
            sig.push((name, role));
        }
    }
    sig
}

/// `&Name` → `"Name"`.
fn referenced_type(ty: &Type) -> Option<String> {
    match ty {
        Type::Reference(r) if r.mutability.is_none() => type_ident(&r.elem).map(Ident::to_string),
        _ => None,
    }
}

/// `Name` or `Name<..>` → `Name`.
fn type_ident(ty: &Type) -> Option<&Ident> {
    match ty {
        Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            Some(&p.path.segments[0].ident)
        }
        _ => None,
    }
}

fn names_type(ty: &Type, name: &str) -> bool {
    type_ident(ty).is_some_and(|i| i == name)
}

fn is_f64(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident("f64"))
}

fn check_scalar_return(func: &ItemFn, what: &str, errors: &mut Vec<syn::Error>) {
    match &func.sig.output {
        ReturnType::Type(_, ty) if is_f64(ty) => {}
        other => errors.push(return_error(
            func,
            other,
            format!("{what} returns one `f64`: write `-> f64`"),
        )),
    }
}

fn check_struct_return(func: &ItemFn, name: &str, what: &str, errors: &mut Vec<syn::Error>) {
    match &func.sig.output {
        ReturnType::Type(_, ty) if names_type(ty, name) => {}
        other => errors.push(return_error(
            func,
            other,
            format!("{what}: its return type is `{name}`"),
        )),
    }
}

/// A mode returns `X` (ODE) or `(X, [f64; NZ])` (DAE: the derivatives and the algebraic
/// residuals).
fn check_mode_return(func: &ItemFn, types: &TypeNames, nz: usize, errors: &mut Vec<syn::Error>) {
    let states = &types.states;
    let ReturnType::Type(_, ty) = &func.sig.output else {
        errors.push(syn::Error::new(
            func.sig.ident.span(),
            format!("a mode returns the state derivatives as `{states}`, or `({states}, [f64; N])` with its algebraic equations"),
        ));
        return;
    };
    match (&**ty, nz) {
        (ty, 0) if names_type(ty, states) => {}
        (ty, _) if names_type(ty, states) => errors.push(syn::Error::new_spanned(
            ty,
            format!("this model has {nz} algebraic variable(s), so every mode returns `({states}, [f64; {nz}])`: the derivatives and {nz} algebraic equation(s)"),
        )),
        (Type::Tuple(_), 0) => errors.push(syn::Error::new_spanned(
            ty,
            format!("this model has no `#[algebraic]` variables, so a mode returns the derivatives `{states}` only: return `{states} {{ .. }}`, or declare the algebraic variables in an `#[algebraic]` struct"),
        )),
        (Type::Tuple(t), _) if t.elems.len() == 2 => {
            let first_ok = names_type(&t.elems[0], states);
            if !first_ok {
                errors.push(syn::Error::new_spanned(
                    &t.elems[0],
                    format!("the first element is the state derivatives, `{states}`"),
                ));
            }
            match &t.elems[1] {
                Type::Array(a) if is_f64(&a.elem) => match array_length(&a.len) {
                    Some(n) if n == nz => {}
                    Some(n) => errors.push(syn::Error::new(
                        a.len.span(),
                        format!("{n} algebraic equation(s) for {nz} algebraic variable(s): an index-1 mode has one equation per algebraic variable"),
                    )),
                    None => errors.push(syn::Error::new(a.len.span(), "write the number of algebraic equations as a literal")),
                },
                other => errors.push(syn::Error::new_spanned(
                    other,
                    format!("the algebraic equations are `[f64; {nz}]`"),
                )),
            }
        }
        _ => errors.push(syn::Error::new_spanned(
            ty,
            format!("a mode returns the state derivatives as `{states}`, or `({states}, [f64; N])` with its algebraic equations"),
        )),
    }
}

fn array_length(expr: &syn::Expr) -> Option<usize> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        _ => None,
    }
}

/// An error at the return type, or at the function's name when it has none.
fn return_error(func: &ItemFn, output: &ReturnType, message: String) -> syn::Error {
    match output {
        ReturnType::Type(_, ty) => syn::Error::new_spanned(ty, message),
        ReturnType::Default => syn::Error::new(func.sig.ident.span(), message),
    }
}

/// Exactly one `#[mode(initial)]`, or `initial_if` rules (with at most one `initial` fallback).
fn initial_rule(
    model: &Model,
    guard_index: &HashMap<String, usize>,
    guards: &[(usize, usize, Signature)],
    guard_names: &str,
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
                match guard_index.get(&guard.to_string()) {
                    Some(&g) => {
                        if let Some((id, _)) = guards[g].2.iter().find(|(_, r)| *r == Role::Memory)
                        {
                            errors.push(syn::Error::new(
                            id.span(),
                            format!("guard `{guard}` chooses the first mode, so it is evaluated at t0 before any mode entry has set the memory: it cannot read `Memory`; remove this parameter, or mark the first mode `#[mode(initial)]` instead"),
                        ));
                        }
                        rules.push((g, *positive, m));
                    }
                    None => errors.push(syn::Error::new(
                        guard.span(),
                        format!(
                            "unknown guard `{guard}`: `initial_if` names a `#[guard]` function (guards: {guard_names})"
                        ),
                    )),
                }
            }
        }
    }
    match (fixed, rules.is_empty()) {
        (Some(m), true) => InitialRule::Fixed(m),
        (fallback, false) => InitialRule::ByGuardSigns(rules, fallback),
        (None, true) => {
            if !model.modes.is_empty() && !any_initial_if {
                errors.push(syn::Error::new(
                    model.module.ident.span(),
                    "no initial mode: mark one mode `#[mode(initial)]`, or choose it from guard signs with `#[mode(initial_if(guard, positive))]`",
                ));
            }
            InitialRule::Fixed(0)
        }
    }
}
