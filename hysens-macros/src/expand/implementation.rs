//! The kernels of a model that checked: `Model`'s `HybridModel` and `AdjointProducts`
//! implementations (with `event_target` for the guards of switching surfaces, and the named
//! outputs with their partials), and its inherent items that need the differentiated model
//! (`JACOBIAN_NONZEROS`).

use proc_macro2::TokenStream;
use quote::quote;

use super::dispatch::{some_cases, statements, value};
use super::signatures::Signatures;
use super::{tables, Target};
use crate::kernels::{hygienic, Kernels};
use crate::lower::{CostTerm, Lowered};
use crate::model::CostKind;
use crate::validate::Checked;

/// `impl Model { JACOBIAN_NONZEROS }`, `impl HybridModel for Model` and
/// `impl AdjointProducts for Model`.
pub fn kernels(checked: &Checked<'_>, lowered: &mut Lowered, target: &Target) -> TokenStream {
    let rt = &target.rt;
    let store = &target.store;
    let (ny, nz, np) = target.sizes();
    let costs = Costs {
        integral: lowered.integral.clone(),
        terminal: lowered.terminal,
        sampled: lowered.sampled,
    };
    let terms = std::mem::take(&mut lowered.costs);
    let has_integral = costs.integral.iter().any(Option::is_some);
    let has_sampled = costs.sampled.is_some();
    let initial_map = lowered.initial_state.clone();
    let guess = lowered.algebraic_guess.clone();
    let uses_memory: Vec<bool> = lowered.modes.iter().map(|l| l.uses_memory).collect();
    let mut k = Kernels::new(lowered);
    let structures = k.jacobian_structures();
    let signatures = Signatures::new(target);

    let mode_methods = mode_methods(&mut k, &signatures);
    let mode = hygienic("mode");
    let adjoint = signatures
        .adjoint_products()
        .with_body(&statements(&mode, &k.adjoint_products()));
    let switch_methods = switch_methods(&mut k, &signatures);
    let event_target = event_target(&k, checked, &signatures, target);
    let cost_methods = cost_methods(&mut k, &signatures, &costs);
    let cost_term_methods = cost_term_methods(&mut k, &signatures, &terms);
    let initial_state = initial_state_methods(&mut k, &signatures, initial_map.as_deref());
    let algebraic_guess = guess.map(|guess| {
        let method = signatures
            .algebraic_guess()
            .with_body(&k.vector_values("z0", &guess));
        quote! {
            const HAS_ALGEBRAIC_GUESS: bool = true;
            #method
        }
    });
    let outputs = output_methods(&mut k, &signatures);

    let modes = tables::modes(checked, &uses_memory, &structures, rt);
    let guards = tables::guards(checked, rt);
    let cost_table = tables::costs(checked, rt);
    let initial = tables::initial_mode(checked, rt);
    let names = tables::variable_names(&checked.variables);
    let nonzeros = tables::jacobian_nonzeros(&structures);
    quote! {
        impl Model {
            #nonzeros
        }

        impl #rt::HybridModel<#ny, #nz, #np> for Model {
            type Store = #store;
            #modes
            #guards
            #initial
            const HAS_INTEGRAL_COST: bool = #has_integral;
            const HAS_SAMPLED_COST: bool = #has_sampled;
            #cost_table
            #names

            fn jacobian_nonzeros(&self, mode: usize) -> ::core::option::Option<&'static [(usize, usize)]> {
                Self::JACOBIAN_NONZEROS.get(mode).copied()
            }

            #mode_methods
            #switch_methods
            #event_target
            #cost_methods
            #cost_term_methods
            #initial_state
            #algebraic_guess
            #outputs
        }

        impl #rt::AdjointProducts<#ny, #nz, #np> for Model {
            #adjoint
        }
    }
}

/// The summed cost expressions of each kind, if the model has that kind (the integral cost's
/// integrand mode by mode).
struct Costs {
    integral: Vec<Option<hysens_symbolic::ExprId>>,
    terminal: Option<hysens_symbolic::ExprId>,
    sampled: Option<hysens_symbolic::ExprId>,
}

/// The methods on one mode: `residual`, `jacobian`, `parameter_jacobian`, `time_partials`,
/// `memory_jacobian`, and for index-2 modes `hidden_constraint` and its partials.
fn mode_methods(k: &mut Kernels<'_>, signatures: &Signatures) -> TokenStream {
    let mode = hygienic("mode");
    let residual = statements(&mode, &k.residual());
    let jacobian = statements(&mode, &k.state_jacobian(false));
    let memory_jacobian = statements(&mode, &k.state_jacobian(true));
    let parameter_jacobian = statements(&mode, &k.parameter_jacobian());
    let time_partials = statements(&mode, &k.time_partials());
    let index2 = index2_methods(k, signatures);
    let methods: TokenStream = [
        signatures.residual().with_body(&residual),
        signatures.jacobian().with_body(&jacobian),
        signatures
            .parameter_jacobian()
            .with_body(&parameter_jacobian),
        signatures.time_partials().with_body(&time_partials),
        signatures.memory_jacobian().with_body(&memory_jacobian),
    ]
    .into_iter()
    .collect();
    quote!(#methods #index2)
}

/// `hidden_constraint` and `hidden_constraint_partials` of a model with Hessenberg index-2
/// modes (arms for those only; the other modes write nothing); nothing otherwise (the trait's
/// defaults).
fn index2_methods(k: &mut Kernels<'_>, signatures: &Signatures) -> TokenStream {
    if !k.has_index2() {
        return TokenStream::new();
    }
    let mode = hygienic("mode");
    let values = statements(&mode, &k.hidden_constraint());
    let partials = statements(&mode, &k.hidden_constraint_partials());
    let value_method = signatures.hidden_constraint().with_body(&values);
    let partials_method = signatures.hidden_constraint_partials().with_body(&partials);
    let rows_method = constraint_rows_method(k);
    quote!(#value_method #partials_method #rows_method)
}

/// `is_constraint` of a model with an index-2 mode that mixes in equations reading `z` (an arm
/// with its rows for each such mode; every other row is a constraint); nothing otherwise (the
/// trait's default: every row).
fn constraint_rows_method(k: &Kernels<'_>) -> TokenStream {
    let modes = k.mixed_constraint_rows();
    if modes.iter().all(Option::is_none) {
        return TokenStream::new();
    }
    let (mode, row) = (hygienic("mode"), hygienic("row"));
    let arms = modes.iter().enumerate().filter_map(|(m, rows)| {
        let rows = rows.as_ref()?;
        Some(quote!(#m => [#(#rows),*].get(#row).copied().unwrap_or(true),))
    });
    quote! {
        fn is_constraint(&self, #mode: usize, #row: usize) -> bool {
            match #mode {
                #(#arms)*
                _ => true,
            }
        }
    }
}

/// The methods on one guard: `guard`, `guard_partials`, `reset`, `reset_jacobian`.
fn switch_methods(k: &mut Kernels<'_>, signatures: &Signatures) -> TokenStream {
    let guard = hygienic("guard");
    let guard_values = value(&guard, &k.guard_values());
    let guard_partials = statements(&guard, &k.guard_partials());
    let reset_values = statements(&guard, &k.reset_values());
    let reset_jacobians = statements(&guard, &k.reset_jacobians());
    [
        signatures.guard().with_body(&guard_values),
        signatures.guard_partials().with_body(&guard_partials),
        signatures.reset().with_body(&reset_values),
        signatures.reset_jacobian().with_body(&reset_jacobians),
    ]
    .into_iter()
    .collect()
}

/// `event_target` when the model has switching surfaces: their guards choose the mode entered
/// by the sign tests of `crate::filippov`, the other guards enter their target. Without
/// surfaces, nothing: the runtime's default is exactly that.
fn event_target(
    k: &Kernels<'_>,
    checked: &Checked<'_>,
    signatures: &Signatures,
    target: &Target,
) -> TokenStream {
    if checked.surfaces.is_empty() {
        return TokenStream::new();
    }
    let placements: Vec<_> = checked
        .surfaces
        .iter()
        .map(|s| s.placement.clone())
        .collect();
    let (rt, (ny, nz, np)) = (&target.rt, target.sizes());
    let arms = k.event_targets(&placements, rt);
    let guard = hygienic("guard");
    let info = hygienic("info");
    // As the runtime's default: an index past the guards is an invalid target, not a panic.
    let fallback = quote! {
        match <Self as #rt::HybridModel<#ny, #nz, #np>>::GUARDS.get(#guard) {
            ::core::option::Option::Some(#info) => #rt::EventTarget::Mode(#info.to),
            ::core::option::Option::None => #rt::EventTarget::Mode(usize::MAX),
        }
    };
    signatures
        .event_target()
        .with_body(&some_cases(&guard, &arms, fallback))
}

/// `OUTPUT_NAMES`, `output` and `output_partials` of a model with `#[output]` functions;
/// nothing otherwise (the trait's defaults: no outputs).
fn output_methods(k: &mut Kernels<'_>, signatures: &Signatures) -> TokenStream {
    let values = k.output_values();
    if values.is_empty() {
        return TokenStream::new();
    }
    let output = hygienic("output");
    let value_method = signatures.output().with_body(&value(&output, &values));
    let partials = statements(&output, &k.output_partials());
    let partials_method = signatures.output_partials().with_body(&partials);
    quote! {
        const OUTPUT_NAMES: &'static [&'static str] = Model::OUTPUT_NAMES;
        #value_method
        #partials_method
    }
}

/// `HAS_INITIAL_STATE`, `initial_state` and `initial_state_jacobian` of a model with an
/// `#[initial_state]` function (`map`); nothing otherwise (the trait's defaults: `y0 = x`).
fn initial_state_methods(
    k: &mut Kernels<'_>,
    signatures: &Signatures,
    map: Option<&[hysens_symbolic::ExprId]>,
) -> TokenStream {
    let Some(map) = map else {
        return TokenStream::new();
    };
    let values = k.vector_values("y0", map);
    let jacobian = k.state_map_jacobian(map);
    let value_method = signatures.initial_state().with_body(&values);
    let jacobian_method = signatures.initial_state_jacobian().with_body(&jacobian);
    quote! {
        const HAS_INITIAL_STATE: bool = true;
        #value_method
        #jacobian_method
    }
}

/// The bodies of `integral_cost` and `integral_cost_partials`: one integrand for every mode
/// (the mode is not read), or a dispatch over the modes when an integral cost is limited to
/// some of them (`#[cost(integral, modes(..))]`; zero in the others).
fn integral_cost_bodies(
    k: &mut Kernels<'_>,
    by_mode: &[Option<hysens_symbolic::ExprId>],
) -> (TokenStream, TokenStream) {
    let partials = |k: &mut Kernels<'_>, l: Option<_>| l.map(|l| k.scalar_partials(l));
    if by_mode.windows(2).all(|w| w[0] == w[1]) {
        let l = by_mode.first().copied().flatten();
        return (k.scalar_value(l), partials(k, l).unwrap_or_default());
    }
    let mode = hygienic("mode");
    let values: Vec<_> = by_mode.iter().map(|&l| k.scalar_value(l)).collect();
    let partial_arms: Vec<_> = by_mode
        .iter()
        .map(|&l| partials(k, l).unwrap_or_default())
        .collect();
    (value(&mode, &values), statements(&mode, &partial_arms))
}

/// The cost methods: the value and partials of the integral, terminal and sampled costs.
fn cost_methods(k: &mut Kernels<'_>, signatures: &Signatures, costs: &Costs) -> TokenStream {
    let (integral_value, integral_partials) = integral_cost_bodies(k, &costs.integral);
    let terminal_value = k.scalar_value(costs.terminal);
    let terminal_partials = costs
        .terminal
        .map(|s| k.scalar_partials(s))
        .unwrap_or_default();
    let sampled_value = k.scalar_value(costs.sampled);
    let sampled_partials = costs
        .sampled
        .map(|s| k.scalar_partials(s))
        .unwrap_or_default();
    [
        signatures.integral_cost().with_body(&integral_value),
        signatures
            .integral_cost_partials()
            .with_body(&integral_partials),
        signatures.terminal_cost().with_body(&terminal_value),
        signatures
            .terminal_cost_partials()
            .with_body(&terminal_partials),
        signatures.sampled_cost().with_body(&sampled_value),
        signatures
            .sampled_cost_partials()
            .with_body(&sampled_partials),
    ]
    .into_iter()
    .collect()
}

/// The methods of each cost alone (`integral_cost_term`, `terminal_cost_term`,
/// `sampled_cost_term` and their partials), a dispatch over the cost's index, for each kind the
/// model has two or more costs of: with one, the runtime's default (the whole cost of that
/// kind) is that cost, and nothing is generated.
fn cost_term_methods(
    k: &mut Kernels<'_>,
    signatures: &Signatures,
    terms: &[CostTerm],
) -> TokenStream {
    let kinds = [
        (
            CostKind::Integral,
            signatures.integral_cost_term(),
            signatures.integral_cost_term_partials(),
        ),
        (
            CostKind::Terminal,
            signatures.terminal_cost_term(),
            signatures.terminal_cost_term_partials(),
        ),
        (
            CostKind::Sampled,
            signatures.sampled_cost_term(),
            signatures.sampled_cost_term_partials(),
        ),
    ];
    let cost = hygienic("cost");
    let mut methods = TokenStream::new();
    for (kind, value_method, partials_method) in kinds {
        let of_kind: Vec<(usize, &CostTerm)> = terms
            .iter()
            .enumerate()
            .filter(|(_, t)| t.kind() == kind)
            .collect();
        if of_kind.len() < 2 {
            continue;
        }
        let (mut values, mut partials) = (Vec::new(), Vec::new());
        for (i, term) in of_kind {
            let (value, partial) = match term {
                CostTerm::Integral(by_mode) => integral_cost_bodies(k, by_mode),
                CostTerm::Terminal(s) | CostTerm::Sampled(s) => {
                    (k.scalar_value(Some(*s)), k.scalar_partials(*s))
                }
            };
            values.push((i, value));
            partials.push((i, partial));
        }
        let value = value_method.with_body(&some_cases(&cost, &values, quote!(0.0)));
        let partials = partials_method.with_body(&some_cases(&cost, &partials, quote!({})));
        methods.extend(quote!(#value #partials));
    }
    methods
}
