//! The kernels: which derivatives each runtime method needs, differentiated and emitted.
//!
//! For every mode (sliding modes included), guard, reset and cost this computes the expressions
//! of one method of `HybridModel` (see `hysens-runtime/src/model/hybrid.rs` for the list and its
//! notation) and emits them with common-subexpression elimination *within* each kernel: the
//! Jacobian of a mode shares its temporaries across `f_y, f_z, g_y, g_z`. Only structural
//! nonzeros are written into derivative storage, which the runtime zeroes; values (residuals,
//! resets, adjoint products) are written in full. The guards of switching surfaces also get
//! their `event_target` arms here.

use hysens_symbolic::{emit, emit_values, Emission, ExprId, Graph, Jacobian, VarId};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

use crate::filippov::{Placement, Rate, SurfaceGuard};
use crate::lower::{Lowered, Slot};

/// A hygienic identifier for the generated methods' parameters: it cannot clash with, or be
/// captured by, anything the user named.
pub fn hygienic(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// One kernel body per case (mode, guard, …), ready to put into a `match` arm.
pub type Arms = Vec<TokenStream>;

/// What the runtime is told about one mode's Jacobian `∂(f, g)/∂(y, z)`.
pub struct JacobianStructure {
    /// The structural nonzeros `(row, column)`.
    pub nonzeros: Vec<(usize, usize)>,
    /// Whether every entry is independent of `t`, `y` and `z` (the mode is affine in `(y, z)`).
    pub constant: bool,
}

/// Emits every kernel body of the model.
pub struct Kernels<'l> {
    lowered: &'l mut Lowered,
}

impl<'l> Kernels<'l> {
    /// Kernels of `lowered`; derivatives are added to its graph.
    pub fn new(lowered: &'l mut Lowered) -> Self {
        Kernels { lowered }
    }

    /// The tokens that read variable `var` inside a generated method.
    fn reader(&self) -> impl Fn(VarId) -> TokenStream + '_ {
        let slots = &self.lowered.vars.slots;
        move |var: VarId| {
            let at = hygienic("at");
            match slots[var.index()] {
                Slot::Y(i) => index(quote!(#at.y), i),
                Slot::Z(i) => index(quote!(#at.z), i),
                Slot::P(i) => index(quote!(#at.p), i),
                Slot::MemoryY(i) => index(quote!(#at.memory.y), i),
                Slot::MemoryZ(i) => index(quote!(#at.memory.z), i),
                Slot::T => quote!(#at.t),
                Slot::Datum => {
                    let datum = hygienic("datum");
                    quote!(#datum)
                }
                Slot::Lambda(i) => {
                    let lambda = hygienic("lambda");
                    index(quote!(#lambda), i)
                }
                Slot::Mu(i) => {
                    let mu = hygienic("mu");
                    index(quote!(#mu), i)
                }
            }
        }
    }

    /// Emits `place = value;` for each output, with shared temporaries.
    fn emit(&self, outputs: &[(TokenStream, ExprId)]) -> TokenStream {
        emit(&self.lowered.graph, outputs, self.reader())
    }

    fn jacobian(&mut self, fs: &[ExprId], vars: &[VarId]) -> Jacobian {
        self.lowered.graph.jacobian(fs, vars)
    }

    /// The Jacobians `f_v` and `g_v` of mode `m`'s right-hand side and algebraic equations.
    fn mode_jacobians(&mut self, m: usize, vars: &[VarId]) -> (Jacobian, Jacobian) {
        let mode = &self.lowered.modes[m];
        let (f, g) = (mode.f.clone(), mode.g.clone());
        (self.jacobian(&f, vars), self.jacobian(&g, vars))
    }

    /// `residual`: `f[i] = fᵢ`, `g[i] = gᵢ`.
    pub fn residual(&mut self) -> Arms {
        let (f, g) = (hygienic("f"), hygienic("g"));
        (0..self.lowered.modes.len())
            .map(|m| {
                let mode = &self.lowered.modes[m];
                let mut outputs = values(quote!(#f), &mode.f);
                outputs.extend(values(quote!(#g), &mode.g));
                self.emit(&outputs)
            })
            .collect()
    }

    /// `jacobian`: `f_y, f_z, g_y, g_z` (or, with `memory`, their partials w.r.t. `y*, z*`).
    pub fn state_jacobian(&mut self, memory: bool) -> Arms {
        let jac = hygienic("jac");
        let (vy, vz) = if memory {
            (
                self.lowered.vars.memory_y.clone(),
                self.lowered.vars.memory_z.clone(),
            )
        } else {
            (self.lowered.vars.y.clone(), self.lowered.vars.z.clone())
        };
        (0..self.lowered.modes.len())
            .map(|m| {
                let (f, g) = (
                    self.lowered.modes[m].f.clone(),
                    self.lowered.modes[m].g.clone(),
                );
                let blocks = [
                    (quote!(#jac.fy), self.jacobian(&f, &vy)),
                    (quote!(#jac.fz), self.jacobian(&f, &vz)),
                    (quote!(#jac.gy), self.jacobian(&g, &vy)),
                    (quote!(#jac.gz), self.jacobian(&g, &vz)),
                ];
                let outputs: Vec<_> = blocks
                    .iter()
                    .flat_map(|(place, j)| self.nonzeros(place.clone(), j))
                    .collect();
                self.emit(&outputs)
            })
            .collect()
    }

    /// The structure of each mode's full Jacobian `∂(f, g)/∂(y, z)`, with rows `f` then `g`
    /// and columns `y` then `z` (the layout of the Newton iteration matrix).
    pub fn jacobian_structures(&mut self) -> Vec<JacobianStructure> {
        let vars: Vec<VarId> = self
            .lowered
            .vars
            .y
            .iter()
            .chain(&self.lowered.vars.z)
            .copied()
            .collect();
        (0..self.lowered.modes.len())
            .map(|m| {
                let mode = &self.lowered.modes[m];
                let rows: Vec<ExprId> = mode.f.iter().chain(&mode.g).copied().collect();
                let j = self.jacobian(&rows, &vars);
                let graph = &self.lowered.graph;
                let slots = &self.lowered.vars.slots;
                // Constant: no entry reads t, y or z (parameters and memory are fixed during a
                // mode segment; a structural zero reads nothing).
                let constant = j.nonzeros(graph).iter().all(|&(_, _, e)| {
                    graph
                        .dependencies(e)
                        .iter()
                        .all(|v| !matches!(slots[v.index()], Slot::Y(_) | Slot::Z(_) | Slot::T))
                });
                JacobianStructure {
                    nonzeros: j.sparsity(graph).nonzeros,
                    constant,
                }
            })
            .collect()
    }

    /// `parameter_jacobian`: `f_p`, `g_p`.
    pub fn parameter_jacobian(&mut self) -> Arms {
        let (fp, gp) = (hygienic("fp"), hygienic("gp"));
        let vp = self.lowered.vars.p.clone();
        (0..self.lowered.modes.len())
            .map(|m| {
                let (jf, jg) = self.mode_jacobians(m, &vp);
                let mut outputs = self.nonzeros(quote!(#fp), &jf);
                outputs.extend(self.nonzeros(quote!(#gp), &jg));
                self.emit(&outputs)
            })
            .collect()
    }

    /// `time_partials`: `f_t`, `g_t`.
    pub fn time_partials(&mut self) -> Arms {
        let (ft, gt) = (hygienic("ft"), hygienic("gt"));
        let vt = [self.lowered.vars.t];
        (0..self.lowered.modes.len())
            .map(|m| {
                let (jf, jg) = self.mode_jacobians(m, &vt);
                let column = |place: TokenStream, j: &Jacobian, graph: &Graph| -> Vec<_> {
                    j.nonzeros(graph)
                        .into_iter()
                        .map(|(i, _, e)| (index(place.clone(), i), e))
                        .collect()
                };
                let mut outputs = column(quote!(#ft), &jf, &self.lowered.graph);
                outputs.extend(column(quote!(#gt), &jg, &self.lowered.graph));
                self.emit(&outputs)
            })
            .collect()
    }

    /// Whether some mode is a Hessenberg index-2 mode (it has a hidden constraint).
    pub fn has_index2(&self) -> bool {
        self.lowered.modes.iter().any(|m| m.hidden.is_some())
    }

    /// For each mode, which of its algebraic equations are constraints, if it is an index-2
    /// mode that mixes in equations reading `z` (`None` for the others: every row, or none).
    pub fn mixed_constraint_rows(&self) -> Vec<Option<Vec<bool>>> {
        self.lowered
            .modes
            .iter()
            .map(|m| Some(m.constraint_rows.clone()).filter(|rows| rows.contains(&false)))
            .collect()
    }

    /// `hidden_constraint`: `h[i] = Hᵢ = (k_y f + k_t)ᵢ` of each index-2 mode, written in full;
    /// nothing for the other modes.
    pub fn hidden_constraint(&mut self) -> Arms {
        let h = hygienic("h");
        (0..self.lowered.modes.len())
            .map(|m| match &self.lowered.modes[m].hidden {
                Some(hidden) => self.emit(&values(quote!(#h), hidden)),
                None => TokenStream::new(),
            })
            .collect()
    }

    /// `hidden_constraint_partials`: `H_y, H_z, H_p` (structural nonzeros) and `H_t` of each
    /// index-2 mode into `partials.{cy, cz, cp, ct}`; nothing for the other modes.
    pub fn hidden_constraint_partials(&mut self) -> Arms {
        let partials = hygienic("partials");
        let vars = &self.lowered.vars;
        let (vy, vz, vp, vt) = (vars.y.clone(), vars.z.clone(), vars.p.clone(), [vars.t]);
        (0..self.lowered.modes.len())
            .map(|m| {
                let Some(hidden) = self.lowered.modes[m].hidden.clone() else {
                    return TokenStream::new();
                };
                let mut outputs = Vec::new();
                for (place, vs) in [
                    (quote!(#partials.cy), &vy),
                    (quote!(#partials.cz), &vz),
                    (quote!(#partials.cp), &vp),
                ] {
                    let j = self.jacobian(&hidden, vs);
                    outputs.extend(self.nonzeros(place, &j));
                }
                let jt = self.jacobian(&hidden, &vt);
                outputs.extend(
                    jt.nonzeros(&self.lowered.graph)
                        .into_iter()
                        .map(|(i, _, e)| (index(quote!(#partials.ct), i), e)),
                );
                self.emit(&outputs)
            })
            .collect()
    }

    /// `adjoint_products`: `λᵀf_y + μᵀg_y`, `λᵀf_z + μᵀg_z`, `λᵀf_p + μᵀg_p`, written in full.
    pub fn adjoint_products(&mut self) -> Arms {
        let (out_y, out_z, out_p) = (hygienic("out_y"), hygienic("out_z"), hygienic("out_p"));
        let vars = &self.lowered.vars;
        let (vy, vz, vp) = (vars.y.clone(), vars.z.clone(), vars.p.clone());
        let weights: Vec<VarId> = vars.lambda.iter().chain(&vars.mu).copied().collect();
        (0..self.lowered.modes.len())
            .map(|m| {
                let mode = &self.lowered.modes[m];
                let rows: Vec<ExprId> = mode.f.iter().chain(&mode.g).copied().collect();
                let g = &mut self.lowered.graph;
                let w: Vec<ExprId> = weights.iter().map(|&v| g.var_node(v)).collect();
                let mut outputs = Vec::new();
                for (place, vs) in [
                    (quote!(#out_y), &vy),
                    (quote!(#out_z), &vz),
                    (quote!(#out_p), &vp),
                ] {
                    let j = g.jacobian(&rows, vs);
                    let product = g.vector_jacobian_product(&w, &j);
                    outputs.extend(values(place, &product));
                }
                self.emit(&outputs)
            })
            .collect()
    }

    /// The statements computing `value` followed by it: the body of a block whose value it is.
    fn value_body(&self, value: ExprId) -> TokenStream {
        let Emission {
            statements,
            outputs,
        } = emit_values(&self.lowered.graph, &[value], self.reader());
        let value = &outputs[0];
        quote!(#statements #value)
    }

    /// `guard`: the value of each guard, as a block body.
    pub fn guard_values(&self) -> Arms {
        self.lowered
            .guards
            .iter()
            .map(|&h| self.value_body(h))
            .collect()
    }

    /// `event_target` for the guards of the switching surfaces: `(guard, body)` for each of a
    /// surface's four, the body evaluating the rate its choice tests and returning the mode
    /// entered (`crate::filippov::Choice`), and for each guard on a surface it meets, an
    /// intersection (the inherited guards enter their targets: no arm). `placements` are the
    /// surfaces' indices, in the order of `Lowered::surfaces`; `rt` the runtime's path.
    pub fn event_targets(
        &self,
        placements: &[Placement],
        rt: &TokenStream,
    ) -> Vec<(usize, TokenStream)> {
        let rate = hygienic("rate");
        let some = |m: usize| {
            let m = Literal::usize_unsuffixed(m);
            quote!(#rt::EventTarget::Mode(#m))
        };
        let mut arms = Vec::new();
        for (surface, place) in self.lowered.surfaces.iter().zip(placements) {
            for guard in SurfaceGuard::ALL {
                let choice = guard.choice();
                let tested = match choice.rate {
                    Rate::Negative => surface.rates[0],
                    Rate::Positive => surface.rates[1],
                };
                let value = self.emit(&[(quote!(let #rate), tested)]);
                let test = if choice.positive {
                    quote!(#rate > 0.0)
                } else {
                    quote!(#rate < 0.0)
                };
                let then = some(place.mode(choice.then));
                let otherwise = match choice.otherwise {
                    Some(side) => some(place.mode(side)),
                    None => quote!(#rt::EventTarget::RepulsiveSurface),
                };
                let body = quote! {
                    #value
                    if #test { #then } else { #otherwise }
                };
                arms.push((place.guard(guard), body));
            }
            for (g, _) in place.meeting_guards() {
                arms.push((g, quote!(#rt::EventTarget::SurfaceIntersection)));
            }
        }
        arms
    }

    /// `guard_partials`, one arm per guard.
    pub fn guard_partials(&mut self) -> Arms {
        let guards = self.lowered.guards.clone();
        guards.iter().map(|&h| self.scalar_partials(h)).collect()
    }

    /// All partials of a scalar `s` into `partials.{t, y, z, p, memory_y, memory_z}`.
    pub fn scalar_partials(&mut self, s: ExprId) -> TokenStream {
        let partials = hygienic("partials");
        let vars = &self.lowered.vars;
        let blocks = [
            (quote!(#partials.y), vars.y.clone()),
            (quote!(#partials.z), vars.z.clone()),
            (quote!(#partials.p), vars.p.clone()),
            (quote!(#partials.memory_y), vars.memory_y.clone()),
            (quote!(#partials.memory_z), vars.memory_z.clone()),
        ];
        let t = vars.t;
        let mut outputs = Vec::new();
        let dt = self.lowered.graph.diff(s, t);
        if !self.lowered.graph.is_zero(dt) {
            outputs.push((quote!(#partials.t), dt));
        }
        for (place, vs) in blocks {
            let gradient = self.lowered.graph.gradient(s, &vs);
            for (i, d) in gradient.into_iter().enumerate() {
                if !self.lowered.graph.is_zero(d) {
                    outputs.push((index(place.clone(), i), d));
                }
            }
        }
        self.emit(&outputs)
    }

    /// `reset`: `y_plus[i] = Rᵢ`, or `y_plus = y` for a guard without a reset.
    pub fn reset_values(&mut self) -> Arms {
        let y_plus = hygienic("y_plus");
        let resets = self.lowered.resets.clone();
        resets
            .iter()
            .map(|r| {
                let r = self.reset_or_identity(r.as_ref());
                self.emit(&values(quote!(#y_plus), &r))
            })
            .collect()
    }

    /// `reset_jacobian`: `R_t, R_y, R_z, R_p, R_y*, R_z*` (the identity `R_y` for continuity).
    pub fn reset_jacobians(&mut self) -> Arms {
        let resets = self.lowered.resets.clone();
        resets
            .iter()
            .map(|r| {
                let r = self.reset_or_identity(r.as_ref());
                self.state_map_jacobian(&r)
            })
            .collect()
    }

    /// `target[i] = mapᵢ`: the values of a function that gives a whole vector, the initial
    /// state (`y0`, `#[initial_state]`) or the algebraic guess (`z0`, `#[algebraic_guess]`).
    pub fn vector_values(&mut self, target: &str, map: &[ExprId]) -> TokenStream {
        let target = hygienic(target);
        self.emit(&values(quote!(#target), map))
    }

    /// The partials of a map to the states (a reset `R`, or the initial state `I`) into
    /// `jac.{t, y, z, p, memory_y, memory_z}` (a `ResetJacobian`).
    pub fn state_map_jacobian(&mut self, map: &[ExprId]) -> TokenStream {
        let jac = hygienic("jac");
        let vars = &self.lowered.vars;
        let blocks = [
            (quote!(#jac.y), vars.y.clone()),
            (quote!(#jac.z), vars.z.clone()),
            (quote!(#jac.p), vars.p.clone()),
            (quote!(#jac.memory_y), vars.memory_y.clone()),
            (quote!(#jac.memory_z), vars.memory_z.clone()),
        ];
        let t = [vars.t];
        let jt = self.jacobian(map, &t);
        let mut outputs: Vec<_> = jt
            .nonzeros(&self.lowered.graph)
            .into_iter()
            .map(|(i, _, e)| (index(quote!(#jac.t), i), e))
            .collect();
        for (place, vs) in blocks {
            let j = self.jacobian(map, &vs);
            outputs.extend(self.nonzeros(place, &j));
        }
        self.emit(&outputs)
    }

    /// A reset's expressions, or `y` itself (continuity).
    fn reset_or_identity(&self, reset: Option<&Vec<ExprId>>) -> Vec<ExprId> {
        match reset {
            Some(r) => r.clone(),
            None => self
                .lowered
                .vars
                .y
                .iter()
                .map(|&v| self.lowered.graph.var_node(v))
                .collect(),
        }
    }

    /// A scalar value (a cost) as a block body, or `0.0` if the model has none.
    pub fn scalar_value(&self, s: Option<ExprId>) -> TokenStream {
        match s {
            Some(s) => self.value_body(s),
            None => quote!(0.0),
        }
    }

    /// The outputs' values, one block body each.
    pub fn output_values(&self) -> Arms {
        self.lowered
            .outputs
            .iter()
            .map(|&o| self.value_body(o))
            .collect()
    }

    /// `output_partials`, one arm per output: `o_t, o_y, o_z, o_p` (an output does not read the
    /// memory, so its memory partials are zero and not written).
    pub fn output_partials(&mut self) -> Arms {
        let outputs = self.lowered.outputs.clone();
        outputs.iter().map(|&o| self.scalar_partials(o)).collect()
    }

    /// `place[i][j] = ∂fᵢ/∂xⱼ` for the structural nonzeros of `j`.
    fn nonzeros(&self, place: TokenStream, j: &Jacobian) -> Vec<(TokenStream, ExprId)> {
        j.nonzeros(&self.lowered.graph)
            .into_iter()
            .map(|(r, c, e)| (index(index(place.clone(), r), c), e))
            .collect()
    }
}

/// `place[i] = values[i]` for every `i`.
fn values(place: TokenStream, values: &[ExprId]) -> Vec<(TokenStream, ExprId)> {
    values
        .iter()
        .enumerate()
        .map(|(i, &e)| (index(place.clone(), i), e))
        .collect()
}

/// `base[i]` with an unsuffixed literal index.
pub fn index(base: TokenStream, i: usize) -> TokenStream {
    let i = Literal::usize_unsuffixed(i);
    quote!(#base[#i])
}
