//! `Model`'s entry points: the calls a user makes, in terms of the model's own structs.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use super::shell::parameters_type;
use super::Target;
use crate::kernels::hygienic;
use crate::validate::Variables;

/// `solver`, `parameters`, `problem`, `gradient`, `solve`, `solve_with_sensitivities`,
/// `solve_adjoint` and `solve_with`.
pub fn entry_points(variables: &Variables<'_>, target: &Target) -> TokenStream {
    let builder = builder(target);
    let problem = problem_builders(variables, target);
    let solvers = solvers(target);
    quote!(#builder #problem #solvers)
}

/// `solver()`: the solving API's builder on this model.
fn builder(target: &Target) -> TokenStream {
    let rt = &target.rt;
    let (ny, nz, np) = target.sizes();
    let n = Literal::usize_unsuffixed(target.ny + target.nz);
    let ns = Literal::usize_unsuffixed(target.np + target.ny);
    quote! {
        /// A solver of this model: set tolerances, sensitivities (to any parameters and
        /// initial states, by name), samples, … and call `solve` (owned results) or
        /// `solve_into` (caller storage, no heap). Defaults: ESDIRK4(3)6L[2]SA, `rtol = 1e-6`,
        /// `atol = 1e-8`, no sensitivities, no samples.
        pub fn solver(&self) -> #rt::Solver<'_, Self, 6, #ny, #nz, #np, #n, #ns> {
            #rt::Solver::new(self)
        }
    }
}

/// `parameters` (the builder's parameters from the parameter and input structs), `gradient`
/// and `problem` (a `HybridProblem` from the model's structs).
fn problem_builders(variables: &Variables<'_>, target: &Target) -> TokenStream {
    let rt = &target.rt;
    let (ny, nz, np) = target.sizes();
    let states = &variables.states.item.ident;
    let x0 = hygienic("x0");
    let params = hygienic("params");
    let inputs = hygienic("inputs");

    // Arguments and the expressions of `p`, for the structs this model has.
    let with_args = [(variables.params, &params), (variables.inputs, &inputs)];
    let mut struct_args = Vec::new();
    let mut copies = Vec::new();
    let mut p_args: Vec<&Ident> = Vec::new();
    for (s, arg) in with_args.into_iter() {
        if let Some(s) = s {
            let ty = &s.item.ident;
            struct_args.push(quote!(#arg: &#ty));
            copies.push(quote!(#ty::from_array(#arg.to_array())));
            p_args.push(arg);
        }
    }
    let params_ty = parameters_type(variables, rt);
    let parameters_value = match copies.as_slice() {
        [params, inputs] => quote!(Parameters { params: #params, inputs: #inputs }),
        [one] => one.clone(),
        _ => quote!(#rt::NoParams),
    };
    let parameters_doc = "The parameters as the builder's `solve` and `gradient` take them (a copy of the `#[params]` struct, or for a model with `#[inputs]` a `Parameters` of both, or `NoParams` for a model with neither); `.to_array()` gives the runtime's parameter vector `p`: the parameter fields, then the input fields, in declaration order.";
    let problem_doc = match variables.algebraic {
        Some(a) => format!(
            "The problem of solving from `t0` to `tf` from the states `x0`, for the no-heap core path, without sensitivities, samples or data; set those fields as needed. The guess of the algebraic variables (made consistent by the solver) is zero; set it by name: `problem.z0 = {}::{{ .. }}.to_array()`. The builder `solver()` is the easier path.",
            a.item.ident
        ),
        None => "The problem of solving from `t0` to `tf` from the states `x0`, for the no-heap core path, without sensitivities, samples or data; set those fields as needed. The builder `solver()` is the easier path.".to_string(),
    };
    quote! {
        #[doc = #parameters_doc]
        pub fn parameters(#(#struct_args),*) -> #params_ty {
            #parameters_value
        }

        /// The objective `G` (all declared costs) from `t0` to `tf` and its gradient with
        /// respect to every parameter and initial state, by the discrete adjoint: one forward
        /// solve recording a tape, one backward pass (ESDIRK4(3)6L[2]SA, the builder's default
        /// tolerances). Look entries up by name: `gradient.wrt("k")`,
        /// `gradient.wrt(Wrt::InitialState("x"))`. For tolerances, samples and data, use
        /// `solver()…gradient(..)`; for caller storage, `solve_adjoint`. On failure, the
        /// error with the model's names and the forward solution up to it.
        pub fn gradient(&self, t0: f64, tf: f64, #x0: &#states, #(#struct_args),*) -> Result<#rt::Gradient<#ny, #np>, #rt::SolveFailure<#states, #ny, #nz, #np>> {
            self.solver().gradient(t0, tf, #x0, &Self::parameters(#(#p_args),*))
        }

        #[doc = #problem_doc]
        pub fn problem(t0: f64, tf: f64, #x0: &#states, #(#struct_args),*) -> #rt::HybridProblem<'static, #ny, #nz, #np> {
            #rt::HybridProblem {
                t0,
                tf,
                y0: #x0.to_array(),
                z0: [0.0; #nz],
                p: #rt::Fields::to_array(&Self::parameters(#(#p_args),*)),
                sensitivities: None,
                sample_times: &[],
                sample_data: &[],
            }
        }
    }
}

/// `solve`, `solve_with_sensitivities`, `solve_adjoint` and `solve_with`: the runtime's solves
/// on this model.
fn solvers(target: &Target) -> TokenStream {
    let rt = &target.rt;
    let (ny, nz, np) = target.sizes();
    let signature = quote! {
        problem: &#rt::HybridProblem<'_, #ny, #nz, #np>,
        options: &#rt::HybridOptions<#ny, #nz>,
        outputs: &mut #rt::HybridOutputs<'_, #ny, #nz, #np>,
        solution: &mut #rt::HybridSolution<#ny, #nz, #np>,
    };
    quote! {
        /// Solves `problem` with Kennedy & Carpenter's ESDIRK4(3)6L[2]SA (fourth order,
        /// L-stable, stiffly accurate), without sensitivities (whatever
        /// `problem.sensitivities` says). On failure, `solution` and `outputs` keep everything
        /// computed up to the failure.
        pub fn solve(&self, #signature) -> Result<(), #rt::SolveError> {
            let problem = #rt::HybridProblem { sensitivities: None, ..*problem };
            self.solve_with(&#rt::ESDIRK436L2SA, &problem, options, #rt::StepPlan::Adaptive, outputs, solution)
        }

        /// Solves `problem` with ESDIRK4(3)6L[2]SA and forward sensitivities with respect to
        /// the parameters: `∂y/∂p`, `∂z/∂p`, event-time sensitivities and `dG/dp` — the exact
        /// derivatives of the discrete solution — starting from `problem.sensitivities`
        /// (`∂y0/∂p`, zero if `None`).
        pub fn solve_with_sensitivities(&self, #signature) -> Result<(), #rt::SolveError> {
            let seeds = problem.sensitivities.unwrap_or([[0.0; #np]; #ny]);
            let problem = #rt::HybridProblem { sensitivities: Some(seeds), ..*problem };
            self.solve_with(&#rt::ESDIRK436L2SA, &problem, options, #rt::StepPlan::Adaptive, outputs, solution)
        }

        /// Solves `problem` with ESDIRK4(3)6L[2]SA, recording a tape of its steps and events in
        /// `tape`, then computes the objective's gradient with respect to the parameters and
        /// the initial states by the discrete adjoint (one backward pass, the transpose of the
        /// forward sensitivities' chain) into `gradient`; nothing allocates. `tape`: one entry
        /// per accepted step (`AdjointTape::full`), or a window with checkpoints
        /// (`AdjointTape::checkpointed`, the same gradient bit for bit); too small a tape is
        /// `SolveError::TapeFull`, naming the capacity needed.
        pub fn solve_adjoint(
            &self,
            problem: &#rt::HybridProblem<'_, #ny, #nz, #np>,
            options: &#rt::HybridOptions<#ny, #nz>,
            tape: #rt::AdjointTape<'_, 6, #ny, #nz>,
            outputs: &mut #rt::HybridOutputs<'_, #ny, #nz, #np>,
            solution: &mut #rt::HybridSolution<#ny, #nz, #np>,
            gradient: &mut #rt::AdjointGradient<#ny, #np>,
        ) -> Result<(), #rt::SolveError> {
            let run = #rt::HybridRun::new(self, &#rt::ESDIRK436L2SA, problem, options);
            #rt::solve_adjoint(&run, tape, outputs, solution, gradient)
        }

        /// Solves `problem` with any tableau and step plan (sensitivities as `problem` says).
        pub fn solve_with<const S: usize>(
            &self,
            tableau: &#rt::Tableau<S>,
            problem: &#rt::HybridProblem<'_, #ny, #nz, #np>,
            options: &#rt::HybridOptions<#ny, #nz>,
            plan: #rt::StepPlan<'_>,
            outputs: &mut #rt::HybridOutputs<'_, #ny, #nz, #np>,
            solution: &mut #rt::HybridSolution<#ny, #nz, #np>,
        ) -> Result<(), #rt::SolveError> {
            let run = #rt::HybridRun::new(self, tableau, problem, options).with_plan(plan);
            #rt::solve(&run, outputs, solution)
        }
    }
}
