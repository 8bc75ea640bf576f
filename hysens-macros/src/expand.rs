//! Expansion: the module as the user wrote it (our attributes removed), plus the generated
//! items:
//!
//! - `Memory`, the type of memory parameters (`m.y.u` is state `u` at the last mode entry);
//! - `NAMES`, `to_array` and `from_array` on each variable struct, in the runtime's order;
//! - `Model`, a unit struct implementing `hysens::runtime::hybrid_model::HybridModel` with every
//!   kernel of `kernels`, plus its named outputs.
//!
//! Generated methods name their parameters hygienically and prefix the ones a kernel does not
//! read with `_`, so the expansion is warning-free; indices into fixed-size arrays are literals,
//! so no kernel can panic.

use proc_macro2::{Ident, Literal, TokenStream, TokenTree};
use quote::quote;

use crate::kernels::{hygienic, Arms, Kernels};
use crate::lower::Lowered;
use crate::model::{Direction, VariableStruct};
use crate::validate::{Checked, InitialRule};

/// The whole expansion.
pub fn expand(checked: &Checked<'_>, lowered: &mut Lowered) -> TokenStream {
    let module = &checked.model.module;
    let attrs = &module.attrs;
    let vis = &module.vis;
    let name = &module.ident;
    let items = module
        .content
        .as_ref()
        .map(|(_, items)| items.as_slice())
        .unwrap_or_default();

    let ny = lowered.vars.y.len();
    let nz = lowered.vars.z.len();
    let np = lowered.vars.p.len();

    let memory = memory_struct(checked);
    let conversions: Vec<TokenStream> = [
        Some(checked.states),
        checked.algebraic,
        checked.params,
        checked.inputs,
    ]
    .into_iter()
    .flatten()
    .map(array_conversions)
    .collect();
    let model = model_items(checked, lowered, ny, nz, np);

    quote! {
        #(#attrs)*
        #vis mod #name {
            #(#items)*
            #memory
            #(#conversions)*
            #model
        }
    }
}

/// `pub struct Memory { pub y: X, pub z: Z }`.
fn memory_struct(checked: &Checked<'_>) -> TokenStream {
    let states = &checked.states.item.ident;
    let algebraic = checked.algebraic.map(|a| {
        let z = &a.item.ident;
        quote! {
            /// The algebraic variables right after the last mode entry, `z*`.
            pub z: #z,
        }
    });
    quote! {
        /// The memory of a hybrid system (Serban & Recuero 2019, §4): the state right after the
        /// last mode entry; the start of a solve counts as an entry.
        pub struct Memory {
            /// The differential states right after the last mode entry, `y*`.
            pub y: #states,
            #algebraic
        }
    }
}

/// `NAMES`, `to_array`, `from_array` for a variable struct, in field order.
fn array_conversions(s: &VariableStruct) -> TokenStream {
    let ty = &s.item.ident;
    let fields = s.field_names();
    let n = Literal::usize_unsuffixed(fields.len());
    let names: Vec<String> = fields.iter().map(|f| f.to_string()).collect();
    let indices = (0..fields.len()).map(Literal::usize_unsuffixed);
    let values = hygienic("values");
    quote! {
        impl #ty {
            /// The field names, in the order of the runtime's arrays.
            pub const NAMES: [&'static str; #n] = [#(#names),*];

            /// The fields as an array, in declaration order.
            pub fn to_array(&self) -> [f64; #n] {
                [#(self.#fields),*]
            }

            /// The struct from an array in declaration order.
            pub fn from_array(#values: [f64; #n]) -> Self {
                #ty { #(#fields: #values[#indices]),* }
            }
        }
    }
}

/// `Model`, its inherent items and its `HybridModel` implementation.
fn model_items(
    checked: &Checked<'_>,
    lowered: &mut Lowered,
    ny: usize,
    nz: usize,
    np: usize,
) -> TokenStream {
    let model = checked.model;
    let rt = quote!(::hysens::runtime::hybrid_model);
    let (lny, lnz, lnp) = (
        Literal::usize_unsuffixed(ny),
        Literal::usize_unsuffixed(nz),
        Literal::usize_unsuffixed(np),
    );
    let docs = model
        .module
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"));
    let module_name = model.module.ident.to_string();

    let guards = model.guards.iter().zip(&checked.guards).enumerate().map(|(g, (guard, (from, to, _)))| {
        let name = guard.func.sig.ident.to_string();
        let direction = match guard.direction {
            Direction::Rising => quote!(Rising),
            Direction::Falling => quote!(Falling),
            Direction::Either => quote!(Either),
        };
        let has_reset = checked.resets[g].is_some();
        quote!(#rt::GuardInfo { name: #name, from: #from, to: #to, direction: #rt::Direction::#direction, has_reset: #has_reset })
    });
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
    let names = |s: Option<&VariableStruct>, prefix: &str| -> Vec<String> {
        s.map(|s| {
            s.field_names()
                .iter()
                .map(|f| format!("{prefix}.{f}"))
                .collect()
        })
        .unwrap_or_default()
    };
    let state_names = names(Some(checked.states), "y");
    let algebraic_names = names(checked.algebraic, "z");
    let mut parameter_names = names(checked.params, "p");
    parameter_names.extend(names(checked.inputs, "u"));
    let output_names: Vec<String> = model
        .outputs
        .iter()
        .map(|o| o.sig.ident.to_string())
        .collect();

    let integral = lowered.integral;
    let has_integral = integral.is_some();
    let terminal = lowered.terminal;
    let sampled = lowered.sampled;
    let uses_memory: Vec<bool> = lowered.modes.iter().map(|l| l.uses_memory).collect();
    let mut k = Kernels::new(lowered);
    let structures = k.jacobian_structures();
    let modes = model
        .modes
        .iter()
        .zip(&uses_memory)
        .zip(&structures)
        .map(|((m, uses_memory), structure)| {
            let name = m.func.sig.ident.to_string();
            let constant_jacobian = structure.constant;
            quote!(#rt::ModeInfo {
                name: #name,
                uses_memory: #uses_memory,
                constant_jacobian: #constant_jacobian
            })
        })
        .collect::<Vec<_>>();
    let patterns = structures.iter().map(|structure| {
        let entries = structure.nonzeros.iter().map(|&(i, j)| {
            let (i, j) = (Literal::usize_unsuffixed(i), Literal::usize_unsuffixed(j));
            quote!((#i, #j))
        });
        quote!(&[#(#entries),*])
    });
    let n_modes = Literal::usize_unsuffixed(model.modes.len());
    let residual = k.residual();
    let jacobian = k.state_jacobian(false);
    let memory_jacobian = k.state_jacobian(true);
    let parameter_jacobian = k.parameter_jacobian();
    let time_partials = k.time_partials();
    let adjoint = k.adjoint_products();
    let guard_values = k.guard_values();
    let guard_partials = k.guard_partials();
    let reset_values = k.reset_values();
    let reset_jacobians = k.reset_jacobians();
    let integral_value = k.scalar_value(integral);
    let integral_partials = integral.map(|s| k.scalar_partials(s)).unwrap_or_default();
    let terminal_value = k.scalar_value(terminal);
    let terminal_partials = terminal.map(|s| k.scalar_partials(s)).unwrap_or_default();
    let sampled_value = k.scalar_value(sampled);
    let sampled_partials = sampled.map(|s| k.scalar_partials(s)).unwrap_or_default();
    let output_values = k.output_values();

    let point = quote!(&#rt::Point<'_, #lny, #lnz, #lnp>);
    let mode = hygienic("mode");
    let guard = hygienic("guard");
    let output = hygienic("output");
    let residual = statements(&mode, &residual);
    let jacobian = statements(&mode, &jacobian);
    let memory_jacobian = statements(&mode, &memory_jacobian);
    let parameter_jacobian = statements(&mode, &parameter_jacobian);
    let time_partials = statements(&mode, &time_partials);
    let adjoint = statements(&mode, &adjoint);
    let guard_values = value(&guard, &guard_values);
    let guard_partials = statements(&guard, &guard_partials);
    let reset_values = statements(&guard, &reset_values);
    let reset_jacobians = statements(&guard, &reset_jacobians);
    let output_values = value(&output, &output_values);

    let model_doc = format!(
        "The hybrid model `{module_name}` for the hysens runtime: {ny} differential state(s), {nz} algebraic variable(s), {np} parameter(s) and input(s), {} mode(s), {} guard(s).",
        model.modes.len(),
        model.guards.len()
    );
    let mj = quote!(::hysens::runtime::model::ModeJacobian<#lny, #lnz>);
    let sp = quote!(#rt::ScalarPartials<#lny, #lnz, #lnp>);
    let usize_ty = quote!(usize);
    let f64_ty = quote!(f64);
    let by_mode = ("mode", usize_ty.clone());
    let by_guard = ("guard", usize_ty.clone());
    let at = ("at", point.clone());
    let f64_out = Some(f64_ty.clone());
    let adjoint_method = method(
        "adjoint_products",
        &[
            by_mode.clone(),
            at.clone(),
            ("lambda", quote!(&[f64; #lny])),
            ("mu", quote!(&[f64; #lnz])),
            ("out_y", quote!(&mut [f64; #lny])),
            ("out_z", quote!(&mut [f64; #lnz])),
            ("out_p", quote!(&mut [f64; #lnp])),
        ],
        None,
        &adjoint,
    );
    let (ln, lns) = (
        Literal::usize_unsuffixed(ny + nz),
        Literal::usize_unsuffixed(np + ny),
    );
    let methods = [
        method(
            "residual",
            &[
                by_mode.clone(),
                at.clone(),
                ("f", quote!(&mut [f64; #lny])),
                ("g", quote!(&mut [f64; #lnz])),
            ],
            None,
            &residual,
        ),
        method(
            "jacobian",
            &[by_mode.clone(), at.clone(), ("jac", quote!(&mut #mj))],
            None,
            &jacobian,
        ),
        method(
            "parameter_jacobian",
            &[
                by_mode.clone(),
                at.clone(),
                ("fp", quote!(&mut [[f64; #lnp]; #lny])),
                ("gp", quote!(&mut [[f64; #lnp]; #lnz])),
            ],
            None,
            &parameter_jacobian,
        ),
        method(
            "time_partials",
            &[
                by_mode.clone(),
                at.clone(),
                ("ft", quote!(&mut [f64; #lny])),
                ("gt", quote!(&mut [f64; #lnz])),
            ],
            None,
            &time_partials,
        ),
        method(
            "memory_jacobian",
            &[by_mode.clone(), at.clone(), ("jac", quote!(&mut #mj))],
            None,
            &memory_jacobian,
        ),
        method(
            "guard",
            &[by_guard.clone(), at.clone()],
            f64_out.clone(),
            &guard_values,
        ),
        method(
            "guard_partials",
            &[by_guard.clone(), at.clone(), ("partials", quote!(&mut #sp))],
            None,
            &guard_partials,
        ),
        method(
            "reset",
            &[
                by_guard.clone(),
                at.clone(),
                ("y_plus", quote!(&mut [f64; #lny])),
            ],
            None,
            &reset_values,
        ),
        method(
            "reset_jacobian",
            &[
                by_guard,
                at.clone(),
                ("jac", quote!(&mut #rt::ResetJacobian<#lny, #lnz, #lnp>)),
            ],
            None,
            &reset_jacobians,
        ),
        method(
            "integral_cost",
            &[by_mode.clone(), at.clone()],
            f64_out.clone(),
            &integral_value,
        ),
        method(
            "integral_cost_partials",
            &[by_mode, at.clone(), ("partials", quote!(&mut #sp))],
            None,
            &integral_partials,
        ),
        method(
            "terminal_cost",
            std::slice::from_ref(&at),
            f64_out.clone(),
            &terminal_value,
        ),
        method(
            "terminal_cost_partials",
            &[at.clone(), ("partials", quote!(&mut #sp))],
            None,
            &terminal_partials,
        ),
        method(
            "sampled_cost",
            &[at.clone(), ("datum", f64_ty.clone())],
            f64_out.clone(),
            &sampled_value,
        ),
        method(
            "sampled_cost_partials",
            &[
                at.clone(),
                ("datum", f64_ty),
                ("partials", quote!(&mut #sp)),
            ],
            None,
            &sampled_partials,
        ),
    ];
    let output_doc = "The value of named output number `output` (see [`Model::OUTPUT_NAMES`]); 0 for an index out of range.";
    let output_method = method(
        "output",
        &[("output", usize_ty), at],
        f64_out,
        &output_values,
    );
    let entry_points = entry_points(checked, ny, nz, np);

    quote! {
        #(#docs)*
        #[doc = #model_doc]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct Model;

        impl Model {
            /// Number of differential states `y`.
            pub const NY: usize = #lny;
            /// Number of algebraic variables `z`.
            pub const NZ: usize = #lnz;
            /// Number of parameters and inputs `p`.
            pub const NP: usize = #lnp;
            /// Names of the named outputs, in index order.
            pub const OUTPUT_NAMES: &'static [&'static str] = &[#(#output_names),*];
            /// The structural nonzeros `(row, column)` of each mode's Jacobian `∂(f, g)/∂(y, z)`
            /// (rows `f` then `g`, columns `y` then `z`), known at compile time.
            pub const JACOBIAN_NONZEROS: [&'static [(usize, usize)]; #n_modes] = [#(#patterns),*];
            #[doc = #output_doc]
            pub #output_method
            #entry_points
        }

        impl #rt::HybridModel<#lny, #lnz, #lnp> for Model {
            const MODES: &'static [#rt::ModeInfo] = &[#(#modes),*];
            const GUARDS: &'static [#rt::GuardInfo] = &[#(#guards),*];
            const INITIAL_MODE: #rt::InitialMode = #initial;
            const HAS_INTEGRAL_COST: bool = #has_integral;
            const STATE_NAMES: [&'static str; #lny] = [#(#state_names),*];
            const ALGEBRAIC_NAMES: [&'static str; #lnz] = [#(#algebraic_names),*];
            const PARAMETER_NAMES: [&'static str; #lnp] = [#(#parameter_names),*];

            #(#methods)*
        }

        impl #rt::AdjointProducts<#lny, #lnz, #lnp> for Model {
            #adjoint_method
        }

        impl #rt::ModelSizes<#ln, #lns> for Model {}
    }
}

/// `parameters`, `problem`, `solve`, `solve_with_sensitivities` and `solve_with`: the calls a
/// user makes, in terms of the model's own structs.
fn entry_points(checked: &Checked<'_>, ny: usize, nz: usize, np: usize) -> TokenStream {
    let rt = quote!(::hysens::runtime);
    let (lny, lnz, lnp) = (
        Literal::usize_unsuffixed(ny),
        Literal::usize_unsuffixed(nz),
        Literal::usize_unsuffixed(np),
    );
    let states = &checked.states.item.ident;
    let x0 = hygienic("x0");
    let z0 = hygienic("z0");
    let params = hygienic("params");
    let inputs = hygienic("inputs");

    // Arguments and the expressions of `p`, for the structs this model has.
    let mut struct_args = Vec::new();
    let mut p_values = Vec::new();
    for (s, arg) in [(checked.params, &params), (checked.inputs, &inputs)] {
        if let Some(s) = s {
            let ty = &s.item.ident;
            struct_args.push(quote!(#arg: &#ty));
            let fields = s.field_names();
            p_values.extend(fields.iter().map(|f| quote!(#arg.#f)));
        }
    }
    let (z_arg, z_value) = match checked.algebraic {
        Some(a) => {
            let ty = &a.item.ident;
            (quote!(#z0: &#ty,), quote!(#z0.to_array()))
        }
        None => (quote!(), quote!([])),
    };
    let p_values_args: Vec<&Ident> = [(checked.params, &params), (checked.inputs, &inputs)]
        .into_iter()
        .filter_map(|(s, arg)| s.map(|_| arg))
        .collect();
    let parameters_doc = "The runtime's parameter vector `p`: the parameter fields, then the input fields, in declaration order.";
    let problem_doc = "The problem of solving from `t0` to `tf` from the states `x0` (and the guess `z0` of the algebraic variables, made consistent by the solver), without sensitivities, samples or data; set those fields as needed.";
    let tableau = quote!(#rt::tableau::Tableau);
    let io = quote!(#rt::hybrid_io);
    let signature = quote! {
        problem: &#io::HybridProblem<'_, #lny, #lnz, #lnp>,
        options: &#io::HybridOptions<#lny, #lnz>,
        outputs: &mut #io::HybridOutputs<'_, #lny, #lnz, #lnp>,
        solution: &mut #io::HybridSolution<#lny, #lnz, #lnp>,
    };
    quote! {
        #[doc = #parameters_doc]
        pub fn parameters(#(#struct_args),*) -> [f64; #lnp] {
            [#(#p_values),*]
        }

        #[doc = #problem_doc]
        pub fn problem(t0: f64, tf: f64, #x0: &#states, #z_arg #(#struct_args),*) -> #io::HybridProblem<'static, #lny, #lnz, #lnp> {
            #io::HybridProblem {
                t0,
                tf,
                y0: #x0.to_array(),
                z0: #z_value,
                p: Self::parameters(#(#p_values_args),*),
                sensitivities: None,
                sample_times: &[],
                sample_data: &[],
            }
        }

        /// Solves `problem` with Kennedy & Carpenter's ESDIRK4(3)6L[2]SA (fourth order,
        /// L-stable, stiffly accurate), without sensitivities (whatever
        /// `problem.sensitivities` says). On failure, `solution` and `outputs` keep everything
        /// computed up to the failure.
        pub fn solve(&self, #signature) -> Result<(), #rt::SolveError> {
            let problem = #io::HybridProblem { sensitivities: None, ..*problem };
            self.solve_with(&#rt::tableau::ESDIRK436L2SA, &problem, options, #io::StepPlan::Adaptive, outputs, solution)
        }

        /// Solves `problem` with ESDIRK4(3)6L[2]SA and forward sensitivities with respect to
        /// the parameters: `∂y/∂p`, `∂z/∂p`, event-time sensitivities and `dG/dp` — the exact
        /// derivatives of the discrete solution — starting from `problem.sensitivities`
        /// (`∂y0/∂p`, zero if `None`).
        pub fn solve_with_sensitivities(&self, #signature) -> Result<(), #rt::SolveError> {
            let seeds = problem.sensitivities.unwrap_or([[0.0; #lnp]; #lny]);
            let problem = #io::HybridProblem { sensitivities: Some(seeds), ..*problem };
            self.solve_with(&#rt::tableau::ESDIRK436L2SA, &problem, options, #io::StepPlan::Adaptive, outputs, solution)
        }

        /// Solves `problem` with any tableau and step plan (sensitivities as `problem` says).
        pub fn solve_with<const S: usize>(
            &self,
            tableau: &#tableau<S>,
            problem: &#io::HybridProblem<'_, #lny, #lnz, #lnp>,
            options: &#io::HybridOptions<#lny, #lnz>,
            plan: #io::StepPlan<'_>,
            outputs: &mut #io::HybridOutputs<'_, #lny, #lnz, #lnp>,
            solution: &mut #io::HybridSolution<#lny, #lnz, #lnp>,
        ) -> Result<(), #rt::SolveError> {
            #rt::hybrid_solve::solve(self, tableau, problem, options, plan, outputs, solution)
        }
    }
}

/// `fn name(&self, params…) [-> ret] { body }`, each parameter named hygienically and prefixed
/// with `_` when `body` does not read it (so the expansion is warning-free).
fn method(
    name: &str,
    params: &[(&str, TokenStream)],
    ret: Option<TokenStream>,
    body: &TokenStream,
) -> TokenStream {
    let name = Ident::new(name, proc_macro2::Span::call_site());
    let params = params.iter().map(|(param, ty)| {
        let ident = if reads(body, param) {
            hygienic(param)
        } else {
            hygienic(&format!("_{param}"))
        };
        quote!(#ident: #ty)
    });
    let ret = ret.map(|ty| quote!(-> #ty));
    quote!(fn #name(&self, #(#params),*) #ret { #body })
}

/// Dispatch over statement kernels: `match selector { 0 => { … } … _ => {} }`, an `if` for a
/// single case, nothing when every case is empty.
fn statements(selector: &Ident, arms: &Arms) -> TokenStream {
    if arms.iter().all(TokenStream::is_empty) {
        return TokenStream::new();
    }
    if let [only] = arms.as_slice() {
        return quote!(if #selector == 0 { #only });
    }
    let cases = arms.iter().enumerate().map(|(i, body)| {
        let i = Literal::usize_unsuffixed(i);
        quote!(#i => { #body })
    });
    quote!(match #selector { #(#cases)* _ => {} })
}

/// Dispatch over value kernels, `0.0` for an index out of range (or when there is no case).
fn value(selector: &Ident, arms: &Arms) -> TokenStream {
    match arms.as_slice() {
        [] => quote!(0.0),
        [only] => quote!(if #selector == 0 { #only } else { 0.0 }),
        _ => {
            let cases = arms.iter().enumerate().map(|(i, body)| {
                let i = Literal::usize_unsuffixed(i);
                quote!(#i => { #body })
            });
            quote!(match #selector { #(#cases)* _ => 0.0 })
        }
    }
}

/// Whether `tokens` contain the identifier `name` (the generated bodies name their parameters
/// with [`hygienic`], so this is exact).
fn reads(tokens: &TokenStream, name: &str) -> bool {
    tokens.clone().into_iter().any(|t| match t {
        TokenTree::Ident(i) => i == name,
        TokenTree::Group(g) => reads(&g.stream(), name),
        _ => false,
    })
}
