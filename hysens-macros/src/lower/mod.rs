//! Lowering: the checked model's functions become symbolic expressions over the runtime's
//! variables.
//!
//! Every function parameter is bound by its role to the runtime's arrays: `x.h` (with `x: &X`)
//! becomes `y[i]` for the index `i` of field `h`; `m.y.h` (with `m: &Memory`) becomes `y*[i]`;
//! `t` becomes the time. Module constants and helper functions are in every function's scope
//! and inline symbolically. The results live in one [`Graph`], so a subexpression shared by
//! two kernels is one node.
//!
//! A switching surface adds a mode and four guards built from other functions' expressions
//! ([`sliding`]); they are appended to the modes and the guards in the runtime's numbering
//! (`crate::filippov`), so every kernel treats them like the others. Which bodies are lowered
//! (all whose signature is sound, each on its own) and how they are assembled is [`bodies`].
//! A Hessenberg index-2 mode gets its hidden constraint, and the checks that need its
//! equations' symbolic dependence, in [`index2`].

use std::collections::HashMap;

use hysens_symbolic::{
    parse_expr, parse_outputs, ExprId, Function, Graph, Param, ParamKind, Scope, VarId,
};
use syn::spanned::Spanned;
use syn::{Expr, ItemFn, Stmt};

use crate::validate::{Checked, Role, Signature};

mod bodies;
mod index2;
mod sliding;
mod state_helpers;

pub use sliding::LoweredSurface;

/// Where a symbolic variable lives at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// `y[i]`
    Y(usize),
    /// `z[i]`
    Z(usize),
    /// `p[i]` (parameters, then inputs)
    P(usize),
    /// `y*[i]`
    MemoryY(usize),
    /// `z*[i]`
    MemoryZ(usize),
    /// `t`
    T,
    /// the datum of a sampled cost
    Datum,
    /// `λ[i]`, the adjoint weights of `f`
    Lambda(usize),
    /// `μ[i]`, the adjoint weights of `g`
    Mu(usize),
}

/// The model's variables in the graph, by role.
pub struct Variables {
    /// `y`
    pub y: Vec<VarId>,
    /// `z`
    pub z: Vec<VarId>,
    /// `p` (parameters, then inputs)
    pub p: Vec<VarId>,
    /// `y*`
    pub memory_y: Vec<VarId>,
    /// `z*`
    pub memory_z: Vec<VarId>,
    /// `t`
    pub t: VarId,
    /// a sampled cost's datum
    pub datum: VarId,
    /// `λ`
    pub lambda: Vec<VarId>,
    /// `μ`
    pub mu: Vec<VarId>,
    /// The slot of every variable, by `VarId::index()`.
    pub slots: Vec<Slot>,
}

/// A mode's equations.
pub struct LoweredMode {
    /// `f`, one per state.
    pub f: Vec<ExprId>,
    /// `g`, one per algebraic variable.
    pub g: Vec<ExprId>,
    /// Whether `f` or `g` reads the memory.
    pub uses_memory: bool,
    /// For a Hessenberg index-2 mode (`#[mode(index2)]`), the condition that defines its
    /// algebraic variables, one per equation ([`index2`]): the hidden constraint
    /// `H = k_y f + k_t` on its constraints `0 = k(t, y, p)`, `g` itself on its equations that
    /// read `z`; `None` otherwise.
    pub hidden: Option<Vec<ExprId>>,
    /// For an index-2 mode, which of its algebraic equations are constraints (read no `z`);
    /// empty otherwise.
    pub constraint_rows: Vec<bool>,
}

/// One cost alone (a named cost of the runtime).
pub enum CostTerm {
    /// The integrand in each mode, in the runtime's numbering (`None`: zero there): the cost's
    /// function in the modes it applies in, combined in a sliding mode as the sums are
    /// ([`sliding::sliding_integrand`]).
    Integral(Vec<Option<ExprId>>),
    /// A terminal cost `φ`.
    Terminal(ExprId),
    /// A sampled cost term `ℓ`.
    Sampled(ExprId),
}

impl CostTerm {
    /// The cost's kind.
    pub fn kind(&self) -> crate::model::CostKind {
        match self {
            CostTerm::Integral(_) => crate::model::CostKind::Integral,
            CostTerm::Terminal(_) => crate::model::CostKind::Terminal,
            CostTerm::Sampled(_) => crate::model::CostKind::Sampled,
        }
    }
}

/// The whole model as expressions.
pub struct Lowered {
    /// The graph holding every expression.
    pub graph: Graph,
    /// The variables.
    pub vars: Variables,
    /// The modes, in the runtime's numbering (declaration order, then the sliding modes).
    pub modes: Vec<LoweredMode>,
    /// The guards' `h`, in the runtime's numbering (declaration order, then the surfaces').
    pub guards: Vec<ExprId>,
    /// The switching surfaces, in declaration order.
    pub surfaces: Vec<LoweredSurface>,
    /// Each guard's reset `R` (one per state), or `None` for continuity (a surface's own guards
    /// and the guards watching the surfaces it meets).
    pub resets: Vec<Option<Vec<ExprId>>>,
    /// The integrand `L` of each mode, in the runtime's numbering: the sum of the integral
    /// costs that apply in it (`None`: no integral cost there).
    pub integral: Vec<Option<ExprId>>,
    /// The sum of the terminal costs.
    pub terminal: Option<ExprId>,
    /// The sampled cost term.
    pub sampled: Option<ExprId>,
    /// Each cost alone, in declaration order (the runtime's `COSTS`).
    pub costs: Vec<CostTerm>,
    /// The outputs, in declaration order.
    pub outputs: Vec<ExprId>,
    /// The initial state `I(t0, x, p)` (one per state), if the model maps it.
    pub initial_state: Option<Vec<ExprId>>,
    /// The first mode's algebraic guess (one per algebraic variable), if the model gives one.
    pub algebraic_guess: Option<Vec<ExprId>>,
}

/// Lowers every function of a model `validate` accepted and assembles them in the runtime's
/// numbering; `Err` with every body's mistakes.
pub fn lower(checked: &Checked<'_>) -> Result<Lowered, Vec<syn::Error>> {
    let mut lowering = Lowering::new(checked);
    let mut errors = Vec::new();
    let base = lowering.base_scope(&mut errors);
    let bodies = lowering.bodies(&base, &mut errors);
    if !errors.is_empty() {
        return Err(errors);
    }
    let Some(bodies) = bodies.complete() else {
        // `validate` accepts a model only with every signature sound, so every body lowered.
        let message = "internal error in `#[hybrid_model]`: a function was left out without an error; please report this model";
        return Err(vec![syn::Error::new(
            checked.model.module.ident.span(),
            message,
        )]);
    };
    let mut lowered = lowering.assemble(bodies);
    index2::hidden_constraints(checked, &mut lowered)?;
    Ok(lowered)
}

/// The mistakes in the bodies of a model that `validate` rejected (`Rejected::checked`): every
/// function whose signature is sound is lowered, only for its errors, so that they are
/// reported with the model's other mistakes. Nothing is assembled: the names that did not
/// resolve make the model's numbering meaningless.
pub fn body_errors(checked: &Checked<'_>) -> Vec<syn::Error> {
    let mut lowering = Lowering::new(checked);
    let mut errors = Vec::new();
    let base = lowering.base_scope(&mut errors);
    lowering.bodies(&base, &mut errors);
    errors
}

/// A new variable of `graph` named `name`, reading `slot`: `slots` is indexed by the graph's
/// numbering of its variables, so every variable is made here.
fn new_var(graph: &mut Graph, slots: &mut Vec<Slot>, name: String, slot: Slot) -> VarId {
    let id = graph.var(&name);
    let var = graph.as_var(id).expect("a variable node");
    debug_assert_eq!(var.index(), slots.len());
    slots.push(slot);
    var
}

/// `n` new variables `name[0]`, …, `name[n − 1]`, reading `slot(0)`, …, `slot(n − 1)`.
fn new_vars(
    graph: &mut Graph,
    slots: &mut Vec<Slot>,
    name: &str,
    n: usize,
    slot: fn(usize) -> Slot,
) -> Vec<VarId> {
    (0..n)
        .map(|i| new_var(graph, slots, format!("{name}[{i}]"), slot(i)))
        .collect()
}

/// The graph and variables being built, and the model's field names by role.
struct Lowering<'c, 'm> {
    checked: &'c Checked<'m>,
    graph: Graph,
    vars: Variables,
    /// The helpers that return the states (`state_helpers`), by name: `true` when they lowered
    /// into field helpers, `false` when their own errors are reported (a call of one is then
    /// left out without another error).
    state_helpers: HashMap<String, bool>,
}

impl<'c, 'm> Lowering<'c, 'm> {
    fn new(checked: &'c Checked<'m>) -> Self {
        let mut graph = Graph::new();
        let ny = checked.variables.ny();
        let nz = checked.variables.nz();
        let np = checked.variables.np();
        let mut slots = Vec::new();
        let (g, s) = (&mut graph, &mut slots);
        let y = new_vars(g, s, "y", ny, Slot::Y);
        let z = new_vars(g, s, "z", nz, Slot::Z);
        let p = new_vars(g, s, "p", np, Slot::P);
        let memory_y = new_vars(g, s, "y*", ny, Slot::MemoryY);
        let memory_z = new_vars(g, s, "z*", nz, Slot::MemoryZ);
        let t = new_var(g, s, "t".into(), Slot::T);
        let datum = new_var(g, s, "datum".into(), Slot::Datum);
        let lambda = new_vars(g, s, "λ", ny, Slot::Lambda);
        let mu = new_vars(g, s, "μ", nz, Slot::Mu);
        Lowering {
            checked,
            state_helpers: Default::default(),
            graph,
            vars: Variables {
                y,
                z,
                p,
                memory_y,
                memory_z,
                t,
                datum,
                lambda,
                mu,
                slots,
            },
        }
    }

    /// The field names of the struct with `role`, in order.
    fn field_names(&self, role: Role) -> Vec<String> {
        let s = match role {
            Role::States => Some(self.checked.variables.states),
            Role::Algebraic => self.checked.variables.algebraic,
            Role::Params => self.checked.variables.params,
            Role::Inputs => self.checked.variables.inputs,
            _ => None,
        };
        s.map(|s| s.field_names().iter().map(|i| i.to_string()).collect())
            .unwrap_or_default()
    }

    /// Module constants and helper functions, visible in every model function.
    fn base_scope(&mut self, errors: &mut Vec<syn::Error>) -> Scope {
        let mut scope = Scope::new();
        let model = self.checked.model;
        for c in &model.constants {
            if !matches!(&*c.ty, syn::Type::Path(p) if p.path.is_ident("f64")) {
                continue; // not ours: left to Rust
            }
            match parse_expr(&mut self.graph, &scope, &c.expr) {
                Ok(value) => scope.bind(c.ident.to_string(), value),
                Err(e) => errors.extend(e.iter().map(|e| e.to_syn_error())),
            }
        }
        let struct_types: Vec<String> = self
            .checked
            .variables
            .all()
            .map(|s| s.item.ident.to_string())
            .chain(std::iter::once("Memory".to_owned()))
            .collect();
        // Of two helpers with one name (an error `validate` reports), the first is the one, as
        // in the fallback expansion: a call matching it is not also reported.
        let mut defined = std::collections::HashSet::new();
        for helper in &model.helpers {
            let name = helper.sig.ident.to_string();
            if !defined.insert(name.clone()) {
                continue;
            }
            let states = &self.checked.variables.states.item.ident.to_string();
            if state_helpers::returns_states(helper, states) {
                let fields = self.field_names(Role::States);
                match state_helpers::field_helpers(helper, states, &fields, &struct_types) {
                    Ok(functions) => {
                        for (field_name, function) in functions {
                            scope.define_function(field_name, function);
                        }
                        self.state_helpers.insert(name, true);
                    }
                    Err(e) => {
                        errors.extend(e);
                        self.state_helpers.insert(name, false);
                    }
                }
            } else if let Some(function) = helper_function(helper, &struct_types) {
                scope.define_function(name, function);
            }
        }
        scope
    }

    /// `base` plus the names of a function's parameters.
    fn scope(&self, base: &Scope, sig: &Signature) -> Scope {
        let mut scope = base.clone();
        let v = &self.vars;
        let node = |var: VarId| self.graph.var_node(var);
        for (ident, role) in &sig.params {
            let name = ident.to_string();
            match role {
                Role::States => {
                    for (field, &var) in self.field_names(Role::States).iter().zip(&v.y) {
                        scope.bind(format!("{name}.{field}"), node(var));
                    }
                }
                Role::Algebraic => {
                    for (field, &var) in self.field_names(Role::Algebraic).iter().zip(&v.z) {
                        scope.bind(format!("{name}.{field}"), node(var));
                    }
                }
                Role::Params | Role::Inputs => {
                    let offset = if *role == Role::Inputs {
                        self.field_names(Role::Params).len()
                    } else {
                        0
                    };
                    for (k, field) in self.field_names(*role).iter().enumerate() {
                        scope.bind(format!("{name}.{field}"), node(v.p[offset + k]));
                    }
                }
                Role::Memory => {
                    for (field, &var) in self.field_names(Role::States).iter().zip(&v.memory_y) {
                        scope.bind(format!("{name}.y.{field}"), node(var));
                    }
                    for (field, &var) in self.field_names(Role::Algebraic).iter().zip(&v.memory_z) {
                        scope.bind(format!("{name}.z.{field}"), node(var));
                    }
                }
                Role::Time => scope.bind(name, node(v.t)),
                Role::Datum => scope.bind(name, node(v.datum)),
            }
        }
        scope
    }

    /// A mode body: `X { .. }` or `(X { .. }, [g₁, …])` after its `let`s.
    fn mode_body(
        &mut self,
        func: &ItemFn,
        scope: &Scope,
        nz: usize,
    ) -> Result<(Vec<ExprId>, Vec<ExprId>), Vec<syn::Error>> {
        let (lets, value) = split_body(func)?;
        let (derivatives, equations): (&Expr, Option<Vec<&Expr>>) = match unparen(value) {
            Expr::Tuple(t) if t.elems.len() == 2 => {
                let array = match unparen(&t.elems[1]) {
                    Expr::Array(a) => a,
                    other => {
                        return Err(vec![syn::Error::new(
                            other.span(),
                            "write the algebraic equations as an array literal `[g1, g2, ...]`",
                        )])
                    }
                };
                if array.elems.len() != nz {
                    return Err(vec![syn::Error::new(
                        array.span(),
                        format!(
                            "{} algebraic equation(s) for {nz} algebraic variable(s): an index-1 mode has one equation per algebraic variable",
                            array.elems.len()
                        ),
                    )]);
                }
                (&t.elems[0], Some(array.elems.iter().collect()))
            }
            other => (other, None),
        };
        let states = self.checked.variables.states.item.ident.to_string();
        let what = format!(
            "the derivative of state `{{}}` is missing from mode `{}`",
            func.sig.ident
        );
        let fields = self.struct_fields(derivatives, Role::States, &states, &what)?;
        let nf = fields.len();
        let mut outputs: Vec<&Expr> = fields.iter().collect();
        outputs.extend(equations.unwrap_or_default());
        let values = parse_outputs(&mut self.graph, scope, lets, &outputs)
            .map_err(|e| e.iter().map(|e| e.to_syn_error()).collect::<Vec<_>>())?;
        let (f, g) = values.split_at(nf);
        Ok((f.to_vec(), g.to_vec()))
    }

    /// A reset's or the initial state's body (`kind`): `X { .. }` after its `let`s; `role`
    /// is what a missing state's error says the function gives.
    fn states_literal_body(
        &mut self,
        func: &ItemFn,
        scope: &Scope,
        (kind, role): (&str, &str),
    ) -> Result<Vec<ExprId>, Vec<syn::Error>> {
        let (lets, value) = split_body(func)?;
        let states = self.checked.variables.states.item.ident.to_string();
        let what = format!(
            "state `{{}}` is missing from {kind} `{}`: {role}",
            func.sig.ident
        );
        let fields = self.struct_fields(unparen(value), Role::States, &states, &what)?;
        let outputs: Vec<&Expr> = fields.iter().collect();
        parse_outputs(&mut self.graph, scope, lets, &outputs)
            .map_err(|e| e.iter().map(|e| e.to_syn_error()).collect())
    }

    /// The `#[algebraic_guess]` body: `Z { .. }` after its `let`s.
    fn algebraic_literal_body(
        &mut self,
        func: &ItemFn,
        scope: &Scope,
        algebraic: &str,
    ) -> Result<Vec<ExprId>, Vec<syn::Error>> {
        let (lets, value) = split_body(func)?;
        let what = format!(
            "algebraic variable `{{}}` is missing from the algebraic guess `{}`: a guess gives every algebraic variable of the first mode",
            func.sig.ident
        );
        let fields = self.struct_fields(unparen(value), Role::Algebraic, algebraic, &what)?;
        let outputs: Vec<&Expr> = fields.iter().collect();
        parse_outputs(&mut self.graph, scope, lets, &outputs)
            .map_err(|e| e.iter().map(|e| e.to_syn_error()).collect())
    }

    /// A body whose value is one `f64` expression.
    fn scalar_body(&mut self, func: &ItemFn, scope: &Scope) -> Result<ExprId, Vec<syn::Error>> {
        let (lets, value) = split_body(func)?;
        parse_outputs(&mut self.graph, scope, lets, &[value])
            .map(|v| v[0])
            .map_err(|e| e.iter().map(|e| e.to_syn_error()).collect())
    }

    /// The field values of a struct literal `Name { a: …, b: … }` in the struct's declaration
    /// order, or of a call of a helper that returns the states (`state_helpers`); `missing` is
    /// the message for an absent field (`{}` stands for its name).
    fn struct_fields(
        &self,
        value: &Expr,
        role: Role,
        struct_name: &str,
        missing: &str,
    ) -> Result<Vec<Expr>, Vec<syn::Error>> {
        let fields = self.field_names(role);
        if role == Role::States {
            match state_helpers::expand_call(value, &self.state_helpers, &fields) {
                Some(Ok(calls)) => return Ok(calls),
                // The helper's own errors are reported.
                Some(Err(())) => return Err(Vec::new()),
                None => {}
            }
        }
        let Expr::Struct(literal) = value else {
            return Err(vec![syn::Error::new(
                value.span(),
                format!(
                    "expected a struct literal `{struct_name} {{ ... }}`, or a call of a helper that returns it, as the value of the body"
                ),
            )]);
        };
        if !literal.path.is_ident(struct_name) {
            return Err(vec![syn::Error::new(
                literal.path.span(),
                format!("expected `{struct_name} {{ ... }}` here: the states"),
            )]);
        }
        let mut errors = Vec::new();
        if let Some(rest) = &literal.rest {
            // `..base` fills the missing fields, so they are not reported one by one.
            let dot2 = &literal.dot2_token;
            return Err(vec![syn::Error::new_spanned(
                quote::quote!(#dot2 #rest),
                format!("write every field of `{struct_name}` out: `..base` is not supported"),
            )]);
        }
        let mut given: HashMap<String, &Expr> = HashMap::new();
        for fv in &literal.fields {
            let name = match &fv.member {
                syn::Member::Named(id) => id.to_string(),
                syn::Member::Unnamed(i) => i.index.to_string(),
            };
            if !fields.contains(&name) {
                errors.push(syn::Error::new_spanned(
                    &fv.member,
                    format!(
                        "`{struct_name}` has no field `{name}` (fields: {})",
                        fields
                            .iter()
                            .map(|f| format!("`{f}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            } else if given.insert(name.clone(), &fv.expr).is_some() {
                errors.push(syn::Error::new_spanned(
                    &fv.member,
                    format!("field `{name}` is given twice"),
                ));
            }
        }
        let mut values = Vec::new();
        for field in &fields {
            match given.get(field) {
                Some(e) => values.push((*e).clone()),
                None => errors.push(syn::Error::new_spanned(
                    &literal.path,
                    missing.replacen("{}", field, 1),
                )),
            }
        }
        if errors.is_empty() {
            Ok(values)
        } else {
            Err(errors)
        }
    }

    /// Whether any of `roots` reads `y*` or `z*`.
    pub(super) fn reads_memory(&self, f: &[ExprId], g: &[ExprId]) -> bool {
        let roots: Vec<ExprId> = f.iter().chain(g).copied().collect();
        let reached = self.graph.reachable(&roots);
        self.vars
            .memory_y
            .iter()
            .chain(&self.vars.memory_z)
            .any(|&v| {
                reached
                    .get(self.graph.var_node(v).index())
                    .copied()
                    .unwrap_or(false)
            })
    }
}

/// A helper `fn name(a: f64, s: &S) -> f64` as an inlinable function; `None` for functions of
/// other shapes (they stay ordinary Rust, and calling one from a model expression is an
/// "unsupported function" error there).
fn helper_function(item: &ItemFn, struct_types: &[String]) -> Option<Function> {
    let returns_f64 = matches!(&item.sig.output,
        syn::ReturnType::Type(_, ty) if matches!(&**ty, syn::Type::Path(p) if p.path.is_ident("f64")));
    if !returns_f64 {
        return None;
    }
    Some(Function {
        params: helper_params(item, struct_types)?,
        body: (*item.block).clone(),
    })
}

/// The parameters of a helper as the symbolic engine passes them: `f64` values and references
/// to the model's structs (aliases); `None` for a generic function or another parameter type.
fn helper_params(item: &ItemFn, struct_types: &[String]) -> Option<Vec<Param>> {
    if !item.sig.generics.params.is_empty() {
        return None;
    }
    let mut params = Vec::new();
    for input in &item.sig.inputs {
        let syn::FnArg::Typed(pt) = input else {
            return None;
        };
        let syn::Pat::Ident(id) = &*pt.pat else {
            return None;
        };
        let kind = match &*pt.ty {
            syn::Type::Path(p) if p.path.is_ident("f64") => ParamKind::Value,
            syn::Type::Reference(r) => match &*r.elem {
                syn::Type::Path(p) if struct_types.iter().any(|s| p.path.is_ident(s)) => {
                    ParamKind::Alias
                }
                _ => return None,
            },
            _ => return None,
        };
        params.push(Param {
            name: id.ident.to_string(),
            kind,
        });
    }
    Some(params)
}

/// A function body as its `let` statements and its final expression.
fn split_body(func: &ItemFn) -> Result<(&[Stmt], &Expr), Vec<syn::Error>> {
    let message = match func.block.stmts.split_last() {
        Some((Stmt::Expr(value, None), lets)) => return Ok((lets, value)),
        Some((last @ Stmt::Expr(Expr::Return(_), _), _)) => (
            quote::quote!(#last),
            "write the value as the body's last expression, without `return`",
        ),
        Some((last @ Stmt::Expr(_, Some(_)), _)) => (
            quote::quote!(#last),
            "remove the trailing `;`: the body's last expression is its value",
        ),
        Some((last, _)) => (
            quote::quote!(#last),
            "the body must end with its value as an expression",
        ),
        None => (
            quote::quote!(#func),
            "the body is empty: it must end with its value as an expression",
        ),
    };
    let (at, message) = message;
    Err(vec![syn::Error::new_spanned(at, message)])
}

fn unparen(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => unparen(&p.expr),
        Expr::Group(g) => unparen(&g.expr),
        other => other,
    }
}
