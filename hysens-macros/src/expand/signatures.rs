//! The signatures of the runtime trait methods the macro implements (`HybridModel`,
//! `AdjointProducts`), shared by the real kernels and their stubs so that the two cannot
//! disagree.

use proc_macro2::TokenStream;
use quote::quote;

use super::dispatch::method;
use super::Target;

/// A kernel method without its body.
pub struct KernelMethod {
    name: &'static str,
    /// `&self` first (a method), or not (an associated function of the model type).
    receiver: bool,
    params: Vec<(&'static str, TokenStream)>,
    ret: Option<TokenStream>,
}

impl KernelMethod {
    /// `fn name(&self, …) -> … { body }` (see [`method`] for the parameters' names).
    pub fn with_body(&self, body: &TokenStream) -> TokenStream {
        method(
            self.name,
            self.receiver,
            &self.params,
            self.ret.clone(),
            body,
        )
    }
}

/// The signatures of one model's kernel methods.
pub struct Signatures {
    rt: TokenStream,
    store: TokenStream,
    point: TokenStream,
    y: TokenStream,
    z: TokenStream,
    p: TokenStream,
    ny: proc_macro2::Literal,
    nz: proc_macro2::Literal,
    np: proc_macro2::Literal,
}

impl Signatures {
    /// The signatures for `target`'s sizes.
    pub fn new(target: &Target) -> Self {
        let (ny, nz, np) = target.sizes();
        Signatures {
            rt: target.rt.clone(),
            store: target.store.clone(),
            point: target.point(),
            y: quote!([f64; #ny]),
            z: quote!([f64; #nz]),
            p: quote!([f64; #np]),
            ny,
            nz,
            np,
        }
    }

    /// `(&self, <selector>: usize, at: &Point, extra…) [-> ret]`.
    fn indexed(
        &self,
        name: &'static str,
        selector: &'static str,
        extra: Vec<(&'static str, TokenStream)>,
        ret: Option<TokenStream>,
    ) -> KernelMethod {
        let mut params = vec![(selector, quote!(usize)), ("at", self.point.clone())];
        params.extend(extra);
        KernelMethod {
            name,
            receiver: true,
            params,
            ret,
        }
    }

    /// `(&self, at: &Point, extra…) [-> ret]`.
    fn unindexed(
        &self,
        name: &'static str,
        extra: Vec<(&'static str, TokenStream)>,
        ret: Option<TokenStream>,
    ) -> KernelMethod {
        let mut params = vec![("at", self.point.clone())];
        params.extend(extra);
        KernelMethod {
            name,
            receiver: true,
            params,
            ret,
        }
    }

    fn mode_jacobian(&self) -> TokenStream {
        let (rt, ny, nz, store) = (&self.rt, &self.ny, &self.nz, &self.store);
        quote!(&mut #rt::ModeJacobian<#ny, #nz, #store>)
    }

    fn scalar_partials(&self) -> TokenStream {
        let (rt, ny, nz, np) = (&self.rt, &self.ny, &self.nz, &self.np);
        quote!(&mut #rt::ScalarPartials<#ny, #nz, #np>)
    }

    /// `HybridModel::residual`.
    pub fn residual(&self) -> KernelMethod {
        let (y, z) = (&self.y, &self.z);
        let extra = vec![("f", quote!(&mut #y)), ("g", quote!(&mut #z))];
        self.indexed("residual", "mode", extra, None)
    }

    /// `HybridModel::jacobian`.
    pub fn jacobian(&self) -> KernelMethod {
        let extra = vec![("jac", self.mode_jacobian())];
        self.indexed("jacobian", "mode", extra, None)
    }

    /// `HybridModel::parameter_jacobian`.
    pub fn parameter_jacobian(&self) -> KernelMethod {
        let (p, ny, nz) = (&self.p, &self.ny, &self.nz);
        let extra = vec![
            ("fp", quote!(&mut [#p; #ny])),
            ("gp", quote!(&mut [#p; #nz])),
        ];
        self.indexed("parameter_jacobian", "mode", extra, None)
    }

    /// `HybridModel::time_partials`.
    pub fn time_partials(&self) -> KernelMethod {
        let (y, z) = (&self.y, &self.z);
        let extra = vec![("ft", quote!(&mut #y)), ("gt", quote!(&mut #z))];
        self.indexed("time_partials", "mode", extra, None)
    }

    /// `HybridModel::hidden_constraint`.
    pub fn hidden_constraint(&self) -> KernelMethod {
        let z = &self.z;
        let extra = vec![("h", quote!(&mut #z))];
        self.indexed("hidden_constraint", "mode", extra, None)
    }

    /// `HybridModel::hidden_constraint_partials`.
    pub fn hidden_constraint_partials(&self) -> KernelMethod {
        let (rt, ny, nz, np) = (&self.rt, &self.ny, &self.nz, &self.np);
        let extra = vec![(
            "partials",
            quote!(&mut #rt::ConditionPartials<#ny, #nz, #np>),
        )];
        self.indexed("hidden_constraint_partials", "mode", extra, None)
    }

    /// `HybridModel::memory_jacobian`.
    pub fn memory_jacobian(&self) -> KernelMethod {
        let extra = vec![("jac", self.mode_jacobian())];
        self.indexed("memory_jacobian", "mode", extra, None)
    }

    /// `HybridModel::event_target`.
    pub fn event_target(&self) -> KernelMethod {
        let rt = &self.rt;
        let ret = quote!(#rt::EventTarget);
        self.indexed("event_target", "guard", vec![], Some(ret))
    }

    /// `HybridModel::guard`.
    pub fn guard(&self) -> KernelMethod {
        self.indexed("guard", "guard", vec![], Some(quote!(f64)))
    }

    /// `HybridModel::guard_partials`.
    pub fn guard_partials(&self) -> KernelMethod {
        let extra = vec![("partials", self.scalar_partials())];
        self.indexed("guard_partials", "guard", extra, None)
    }

    /// `HybridModel::reset`.
    pub fn reset(&self) -> KernelMethod {
        let y = &self.y;
        self.indexed("reset", "guard", vec![("y_plus", quote!(&mut #y))], None)
    }

    /// `HybridModel::reset_jacobian`.
    pub fn reset_jacobian(&self) -> KernelMethod {
        let (rt, ny, nz, np) = (&self.rt, &self.ny, &self.nz, &self.np);
        let store = &self.store;
        let extra = vec![(
            "jac",
            quote!(&mut #rt::ResetJacobian<#ny, #nz, #np, #store>),
        )];
        self.indexed("reset_jacobian", "guard", extra, None)
    }

    /// `HybridModel::initial_state`.
    pub fn initial_state(&self) -> KernelMethod {
        let y = &self.y;
        self.unindexed("initial_state", vec![("y0", quote!(&mut #y))], None)
    }

    /// `HybridModel::algebraic_guess`.
    pub fn algebraic_guess(&self) -> KernelMethod {
        let z = &self.z;
        self.unindexed("algebraic_guess", vec![("z0", quote!(&mut #z))], None)
    }

    /// `HybridModel::initial_state_jacobian`.
    pub fn initial_state_jacobian(&self) -> KernelMethod {
        let (rt, ny, nz, np) = (&self.rt, &self.ny, &self.nz, &self.np);
        let store = &self.store;
        let extra = vec![(
            "jac",
            quote!(&mut #rt::ResetJacobian<#ny, #nz, #np, #store>),
        )];
        self.unindexed("initial_state_jacobian", extra, None)
    }

    /// `HybridModel::integral_cost`.
    pub fn integral_cost(&self) -> KernelMethod {
        self.indexed("integral_cost", "mode", vec![], Some(quote!(f64)))
    }

    /// `HybridModel::integral_cost_partials`.
    pub fn integral_cost_partials(&self) -> KernelMethod {
        let extra = vec![("partials", self.scalar_partials())];
        self.indexed("integral_cost_partials", "mode", extra, None)
    }

    /// `HybridModel::terminal_cost`.
    pub fn terminal_cost(&self) -> KernelMethod {
        self.unindexed("terminal_cost", vec![], Some(quote!(f64)))
    }

    /// `HybridModel::terminal_cost_partials`.
    pub fn terminal_cost_partials(&self) -> KernelMethod {
        let extra = vec![("partials", self.scalar_partials())];
        self.unindexed("terminal_cost_partials", extra, None)
    }

    /// `HybridModel::sampled_cost`.
    pub fn sampled_cost(&self) -> KernelMethod {
        let extra = vec![("datum", quote!(f64))];
        self.unindexed("sampled_cost", extra, Some(quote!(f64)))
    }

    /// `HybridModel::sampled_cost_partials`.
    pub fn sampled_cost_partials(&self) -> KernelMethod {
        let extra = vec![("datum", quote!(f64)), ("partials", self.scalar_partials())];
        self.unindexed("sampled_cost_partials", extra, None)
    }

    /// `method` of one cost: `cost: usize` first, then `method`'s parameters.
    fn of_one_cost(name: &'static str, method: KernelMethod) -> KernelMethod {
        let mut params = vec![("cost", quote!(usize))];
        params.extend(method.params);
        KernelMethod {
            name,
            receiver: method.receiver,
            params,
            ret: method.ret,
        }
    }

    /// `HybridModel::integral_cost_term`.
    pub fn integral_cost_term(&self) -> KernelMethod {
        Self::of_one_cost("integral_cost_term", self.integral_cost())
    }

    /// `HybridModel::integral_cost_term_partials`.
    pub fn integral_cost_term_partials(&self) -> KernelMethod {
        Self::of_one_cost("integral_cost_term_partials", self.integral_cost_partials())
    }

    /// `HybridModel::terminal_cost_term`.
    pub fn terminal_cost_term(&self) -> KernelMethod {
        Self::of_one_cost("terminal_cost_term", self.terminal_cost())
    }

    /// `HybridModel::terminal_cost_term_partials`.
    pub fn terminal_cost_term_partials(&self) -> KernelMethod {
        Self::of_one_cost("terminal_cost_term_partials", self.terminal_cost_partials())
    }

    /// `HybridModel::sampled_cost_term`.
    pub fn sampled_cost_term(&self) -> KernelMethod {
        Self::of_one_cost("sampled_cost_term", self.sampled_cost())
    }

    /// `HybridModel::sampled_cost_term_partials`.
    pub fn sampled_cost_term_partials(&self) -> KernelMethod {
        Self::of_one_cost("sampled_cost_term_partials", self.sampled_cost_partials())
    }

    /// `AdjointProducts::adjoint_products`.
    pub fn adjoint_products(&self) -> KernelMethod {
        let (y, z, p) = (&self.y, &self.z, &self.p);
        let extra = vec![
            ("lambda", quote!(&#y)),
            ("mu", quote!(&#z)),
            ("out_y", quote!(&mut #y)),
            ("out_z", quote!(&mut #z)),
            ("out_p", quote!(&mut #p)),
        ];
        self.indexed("adjoint_products", "mode", extra, None)
    }

    /// `HybridModel::output`, an associated function of the model type.
    pub fn output(&self) -> KernelMethod {
        KernelMethod {
            receiver: false,
            ..self.indexed("output", "output", vec![], Some(quote!(f64)))
        }
    }

    /// `HybridModel::output_partials`, an associated function of the model type.
    pub fn output_partials(&self) -> KernelMethod {
        let extra = vec![("partials", self.scalar_partials())];
        KernelMethod {
            receiver: false,
            ..self.indexed("output_partials", "output", extra, None)
        }
    }
}
