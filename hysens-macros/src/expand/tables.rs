//! The tables `HybridModel` declares as associated constants (modes, guards, costs, the first
//! mode, variable names) and `Model::JACOBIAN_NONZEROS`.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::filippov::{meeting_guard_name, SurfaceGuard};
use crate::kernels::JacobianStructure;
use crate::model::{CostKind, Direction, VariableStruct};
use crate::validate::{Checked, InitialRule, Variables};

/// `MODES`: each mode's name, whether it reads the memory, whether its Jacobian is constant,
/// whether entering it ends the solve, whether it is a Hessenberg index-2 mode
/// (`#[mode(index2)]`) (the `#[mode]` functions, then the surfaces' sliding
/// modes, then the stopped modes of terminal guards).
pub fn modes(
    checked: &Checked<'_>,
    uses_memory: &[bool],
    structures: &[JacobianStructure],
    rt: &TokenStream,
) -> TokenStream {
    let model = checked.model;
    let first_stopped = model.modes.len() + model.surfaces.len();
    let modes = model
        .mode_names()
        .into_iter()
        .zip(uses_memory)
        .zip(structures)
        .enumerate()
        .map(|(m, ((name, uses_memory), structure))| {
            let constant_jacobian = structure.constant;
            let terminal = m >= first_stopped;
            // The `#[mode]` functions come first in the runtime's numbering.
            let index2 = model.modes.get(m).is_some_and(|mode| mode.index2.is_some());
            quote!(#rt::ModeInfo {
                name: #name,
                uses_memory: #uses_memory,
                constant_jacobian: #constant_jacobian,
                terminal: #terminal,
                index2: #index2
            })
        });
    quote!(const MODES: &'static [#rt::ModeInfo] = &[#(#modes),*];)
}

/// `GUARDS`: each guard's name, modes, direction, whether it has a reset and the switching
/// surface it watches: the `#[guard]` functions, then for each switching surface its four
/// guards with their crossing targets (watching that surface), the declared guards of its two
/// modes watched in its sliding mode (same name, target, direction and reset; no surface), and
/// a guard on each surface it meets (either direction, watching the surface met; the event is
/// an error, its static target is never entered).
pub fn guards(checked: &Checked<'_>, rt: &TokenStream) -> TokenStream {
    let model = checked.model;
    let declared: Vec<_> = model
        .guards
        .iter()
        .zip(&checked.guards)
        .zip(&checked.resets)
        .map(|((guard, (from, to, _)), reset)| {
            let name = guard.func.sig.ident.to_string();
            (name, *from, *to, guard.direction, reset.is_some(), None)
        })
        .collect();
    let mut generated = Vec::new();
    for (surface, checked) in model.surfaces.iter().zip(&checked.surfaces) {
        let place = &checked.placement;
        for guard in SurfaceGuard::ALL {
            let from = place.mode(guard.watched_in());
            let to = place.mode(guard.crossing_target());
            let watched = Some(surface.func.sig.ident.to_string());
            generated.push((
                guard.name(surface),
                from,
                to,
                guard.direction(),
                false,
                watched,
            ));
        }
        for (_, g) in place.inherited_guards() {
            let (name, _, to, direction, has_reset, _) = declared[g].clone();
            generated.push((name, place.sliding, to, direction, has_reset, None));
        }
        for (_, other) in place.meeting_guards() {
            let met = &model.surfaces[other];
            let name = meeting_guard_name(surface, met);
            let watched = Some(met.func.sig.ident.to_string());
            let (sliding, either) = (place.sliding, Direction::Either);
            generated.push((name, sliding, sliding, either, false, watched));
        }
    }
    let guards = declared.into_iter().chain(generated).map(
        |(name, from, to, direction, has_reset, surface)| {
            let direction = match direction {
                Direction::Rising => quote!(Rising),
                Direction::Falling => quote!(Falling),
                Direction::Either => quote!(Either),
            };
            let surface = match surface {
                Some(s) => quote!(::core::option::Option::Some(#s)),
                None => quote!(::core::option::Option::None),
            };
            quote!(#rt::GuardInfo {
                name: #name,
                from: #from,
                to: #to,
                direction: #rt::Direction::#direction,
                has_reset: #has_reset,
                surface: #surface
            })
        },
    );
    quote!(const GUARDS: &'static [#rt::GuardInfo] = &[#(#guards),*];)
}

/// `COSTS`: each `#[cost]` function's name and kind, in declaration order.
pub fn costs(checked: &Checked<'_>, rt: &TokenStream) -> TokenStream {
    let costs = checked.model.costs.iter().map(|cost| {
        let name = cost.func.sig.ident.to_string();
        let kind = match cost.kind {
            CostKind::Integral => quote!(Integral),
            CostKind::Terminal => quote!(Terminal),
            CostKind::Sampled => quote!(Sampled),
        };
        quote!(#rt::CostInfo { name: #name, kind: #rt::CostKind::#kind })
    });
    quote!(const COSTS: &'static [#rt::CostInfo] = &[#(#costs),*];)
}

/// `INITIAL_MODE`: a fixed mode, or rules on the guards' signs at `t0`.
pub fn initial_mode(checked: &Checked<'_>, rt: &TokenStream) -> TokenStream {
    let initial = match &checked.initial {
        InitialRule::Fixed(m) => quote!(#rt::InitialMode::Fixed(#m)),
        InitialRule::ByGuardSigns(rules, fallback) => {
            let rules = rules
                .iter()
                .map(|(g, positive, m)| quote!((#g, #positive, #m)));
            let fallback = match fallback {
                Some(m) => quote!(Some(#m)),
                None => quote!(None),
            };
            quote!(#rt::InitialMode::ByGuardSigns { rules: &[#(#rules),*], fallback: #fallback })
        }
    };
    quote!(const INITIAL_MODE: #rt::InitialMode = #initial;)
}

/// `STATE_NAMES`, `ALGEBRAIC_NAMES`, `PARAMETER_NAMES`: `y.h`, `z.i`, `p.g`, `u.v` in the
/// runtime's order.
pub fn variable_names(variables: &Variables<'_>) -> TokenStream {
    let names = |s: Option<&VariableStruct>, prefix: &str| -> Vec<String> {
        s.map(|s| {
            s.field_names()
                .iter()
                .map(|f| format!("{prefix}.{f}"))
                .collect()
        })
        .unwrap_or_default()
    };
    let states = names(Some(variables.states), "y");
    let algebraic = names(variables.algebraic, "z");
    let mut parameters = names(variables.params, "p");
    parameters.extend(names(variables.inputs, "u"));
    let (ny, nz, np) = (
        Literal::usize_unsuffixed(states.len()),
        Literal::usize_unsuffixed(algebraic.len()),
        Literal::usize_unsuffixed(parameters.len()),
    );
    quote! {
        const STATE_NAMES: [&'static str; #ny] = [#(#states),*];
        const ALGEBRAIC_NAMES: [&'static str; #nz] = [#(#algebraic),*];
        const PARAMETER_NAMES: [&'static str; #np] = [#(#parameters),*];
    }
}

/// `Model::JACOBIAN_NONZEROS`: each mode's structural nonzeros, known at compile time.
pub fn jacobian_nonzeros(structures: &[JacobianStructure]) -> TokenStream {
    let n_modes = Literal::usize_unsuffixed(structures.len());
    let patterns = structures.iter().map(|structure| {
        let entries = structure.nonzeros.iter().map(|&(i, j)| {
            let (i, j) = (Literal::usize_unsuffixed(i), Literal::usize_unsuffixed(j));
            quote!((#i, #j))
        });
        quote!(&[#(#entries),*])
    });
    quote! {
        /// The structural nonzeros `(row, column)` of each mode's Jacobian `∂(f, g)/∂(y, z)`
        /// (rows `f` then `g`, columns `y` then `z`), known at compile time.
        pub const JACOBIAN_NONZEROS: [&'static [(usize, usize)]; #n_modes] = [#(#patterns),*];
    }
}
