//! Rust expressions (`syn::Expr`) to symbolic expressions.
//!
//! The accepted subset is straight-line `f64` arithmetic:
//!
//! - `f64` literals (`1.0`, `2.5e-3`, `3f64`) and `core::f64::consts` constants
//!   (`core::f64::consts::PI`, `std::f64::consts::PI`; the bare `PI` only if the scope binds
//!   it — `f64::consts::PI` is not a Rust path, so it is not accepted either);
//! - names from the [`Scope`], field accesses such as `x.v` (looked up as `"x.v"`), and `let`
//!   bindings inside blocks;
//! - unary `-`, binary `+ - * /`, parentheses;
//! - the functions of [`crate::Func1`] and [`crate::Func2`] in method form (`x.sin()`,
//!   `y.atan2(x)`) and path form (`f64::sin(x)`, `f64::atan2(y, x)`), `x.powi(3)` with an integer
//!   literal exponent, and `x.powf(y)`;
//! - calls of the scope's helper functions, inlined.
//!
//! Anything else is an error at its span, naming the construct. Errors are collected, not
//! stopped at: one pass reports every problem of the expression.

use quote::ToTokens;

use crate::error::{Error, ErrorKind};
use crate::function::{f64_constant, Func1, Func2};
use crate::graph::{ExprId, Graph};
use crate::scope::{ParamKind, Scope};

/// Parses `expr` into `graph`, resolving names through `scope`.
pub fn parse_expr(
    graph: &mut Graph,
    scope: &Scope,
    expr: &syn::Expr,
) -> Result<ExprId, Vec<Error>> {
    parse_outputs(graph, scope, &[], &[expr]).map(|ids| ids[0])
}

/// Parses a string holding a Rust expression (a block `{ let a = …; a * a }` is an expression).
pub fn parse_str(graph: &mut Graph, scope: &Scope, source: &str) -> Result<ExprId, Vec<Error>> {
    let expr: syn::Expr = syn::parse_str(source)
        .map_err(|e| vec![Error::new(e.span(), ErrorKind::Syntax(e.to_string()))])?;
    parse_expr(graph, scope, &expr)
}

/// Parses several output expressions that share the `let` statements before them: for a body
/// `{ let a = …; X { h: a * 2.0, v: a.sin() } }`, `lets` are the statements and `outputs` the
/// field values. Each `let` is parsed once, whatever the number of outputs.
pub fn parse_outputs(
    graph: &mut Graph,
    scope: &Scope,
    lets: &[syn::Stmt],
    outputs: &[&syn::Expr],
) -> Result<Vec<ExprId>, Vec<Error>> {
    let mut parser = Parser {
        graph,
        scope,
        locals: Vec::new(),
        aliases: Vec::new(),
        inlining: Vec::new(),
        errors: Vec::new(),
    };
    let complete = parser.statements(lets);
    let values: Vec<Option<ExprId>> = outputs.iter().map(|e| parser.expr(e)).collect();
    match values.into_iter().collect::<Option<Vec<_>>>() {
        Some(ids) if complete && parser.errors.is_empty() => Ok(ids),
        _ => Err(parser.errors),
    }
}

/// The state of one parse: the graph it adds to, the names in force, and the errors so far.
struct Parser<'g, 's> {
    graph: &'g mut Graph,
    scope: &'s Scope,
    /// `let` bindings and helper parameters in force, innermost last (shadowing by search order).
    locals: Vec<(String, ExprId)>,
    /// Struct parameters of the helper being inlined: `(name, caller's dotted name)`.
    aliases: Vec<(String, String)>,
    /// The helper functions being inlined, to reject recursion.
    inlining: Vec<String>,
    errors: Vec<Error>,
}

impl Parser<'_, '_> {
    /// Records an error covering the syntax `at`.
    fn error<T: ToTokens + ?Sized>(&mut self, at: &T, kind: ErrorKind) -> Option<ExprId> {
        self.errors.push(Error::spanned(at, kind));
        None
    }

    /// The value of `expr`, or `None` after recording why it has none.
    fn expr(&mut self, expr: &syn::Expr) -> Option<ExprId> {
        use syn::Expr as E;
        match expr {
            E::Lit(lit) => self.literal(&lit.lit),
            E::Paren(p) => self.expr(&p.expr),
            E::Group(g) => self.expr(&g.expr),
            E::Path(p) => self.path(p),
            E::Field(_) => self.field(expr),
            E::Unary(u) => self.unary(u),
            E::Binary(b) => self.binary(b),
            E::MethodCall(m) => self.method_call(m),
            E::Call(c) => self.call(c),
            E::Block(b) if b.label.is_none() && b.attrs.is_empty() => self.block(&b.block),
            E::If(_) => self.error(&expr, ErrorKind::NonSmooth("an `if` expression".into())),
            E::Match(_) => self.error(&expr, ErrorKind::NonSmooth("a `match` expression".into())),
            other => {
                let what = describe(other);
                self.error(&other, ErrorKind::Unsupported(what.into()))
            }
        }
    }

    fn literal(&mut self, lit: &syn::Lit) -> Option<ExprId> {
        match lit {
            syn::Lit::Float(f) if matches!(f.suffix(), "" | "f64") => {
                let value: f64 = f.base10_parse().ok()?;
                Some(self.graph.constant(value))
            }
            syn::Lit::Int(i) if i.suffix() == "f64" => {
                let value: f64 = i.base10_digits().parse().ok()?;
                Some(self.graph.constant(value))
            }
            syn::Lit::Int(i) if i.suffix().is_empty() => {
                self.error(&i, ErrorKind::IntegerLiteral(i.base10_digits().to_owned()))
            }
            other => self.error(
                &other,
                ErrorKind::Unsupported("a literal that is not an f64".into()),
            ),
        }
    }

    fn path(&mut self, p: &syn::ExprPath) -> Option<ExprId> {
        if p.qself.is_some() {
            return self.error(&p, ErrorKind::Unsupported("a qualified path".into()));
        }
        if let Some(ident) = p.path.get_ident() {
            return self.name(&ident.to_string(), ident);
        }
        let segments = segment_names(&p.path);
        let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
        let constant = match segments.as_slice() {
            ["core" | "std", "f64", "consts", name] => f64_constant(name),
            _ => None,
        };
        match constant {
            Some(value) => Some(self.graph.constant(value)),
            None => self.error(&p, ErrorKind::UnknownVariable(segments.join("::"))),
        }
    }

    /// A name: the innermost `let` binding or helper parameter, then the scope (through the
    /// struct parameters of a helper being inlined).
    fn name<T: ToTokens + ?Sized>(&mut self, name: &str, at: &T) -> Option<ExprId> {
        let local = self.locals.iter().rev().find(|(n, _)| n == name);
        let found = match local {
            Some(&(_, id)) => Some(id),
            None => self.scope.lookup(&self.resolve_alias(name)),
        };
        match found {
            Some(id) => Some(id),
            None => self.error(at, ErrorKind::UnknownVariable(name.to_owned())),
        }
    }

    /// The caller's name for `name` when it starts with a struct parameter of the helper being
    /// inlined (`s.v` with `s` bound to `x` is `x.v`); otherwise `name` itself.
    fn resolve_alias(&self, name: &str) -> String {
        let (head, rest) = match name.split_once('.') {
            Some((head, rest)) => (head, Some(rest)),
            None => (name, None),
        };
        match self.aliases.iter().rev().find(|(a, _)| a == head) {
            Some((_, target)) => match rest {
                Some(rest) => format!("{target}.{rest}"),
                None => target.clone(),
            },
            None => name.to_owned(),
        }
    }

    /// `x.v` or `a.b.c`, looked up by its dotted name.
    fn field(&mut self, expr: &syn::Expr) -> Option<ExprId> {
        match dotted_name(expr) {
            Some(name) => self.name(&name, expr),
            None => self.error(
                &expr,
                ErrorKind::Unsupported("a field access on something that is not a name".into()),
            ),
        }
    }

    fn unary(&mut self, u: &syn::ExprUnary) -> Option<ExprId> {
        match u.op {
            syn::UnOp::Neg(_) => {
                let a = self.expr(&u.expr)?;
                Some(self.graph.neg(a))
            }
            syn::UnOp::Not(_) => {
                self.error(&u, ErrorKind::NonSmooth("logical negation `!`".into()))
            }
            _ => self.error(&u, ErrorKind::Unsupported("a dereference `*`".into())),
        }
    }

    fn binary(&mut self, b: &syn::ExprBinary) -> Option<ExprId> {
        use syn::BinOp as B;
        let arithmetic = matches!(b.op, B::Add(_) | B::Sub(_) | B::Mul(_) | B::Div(_));
        if !arithmetic {
            // Parse the operands anyway, to report their errors in the same pass.
            self.expr(&b.left);
            self.expr(&b.right);
            let (kind, what) = describe_binop(&b.op);
            let err = if kind {
                ErrorKind::NonSmooth(what)
            } else {
                ErrorKind::Unsupported(what)
            };
            return self.error(&b.op, err);
        }
        let left = self.expr(&b.left);
        let right = self.expr(&b.right);
        let (l, r) = (left?, right?);
        let g = &mut *self.graph;
        Some(match b.op {
            B::Add(_) => g.add(l, r),
            B::Sub(_) => g.sub(l, r),
            B::Mul(_) => g.mul(l, r),
            _ => g.div(l, r),
        })
    }

    /// `receiver.method(args)`.
    fn method_call(&mut self, m: &syn::ExprMethodCall) -> Option<ExprId> {
        let name = m.method.to_string();
        let receiver = self.expr(&m.receiver);
        if m.turbofish.is_some() {
            return self.error(&m, ErrorKind::Unsupported("a turbofish".into()));
        }
        let args: Vec<&syn::Expr> = m.args.iter().collect();
        self.function(&name, &m.method, receiver.map(|r| (r, &*m.receiver)), &args)
    }

    /// `f64::name(args)` or a helper `name(args)`.
    fn call(&mut self, c: &syn::ExprCall) -> Option<ExprId> {
        let syn::Expr::Path(p) = &*c.func else {
            return self.error(&c.func, ErrorKind::Unsupported("a computed call".into()));
        };
        let args: Vec<&syn::Expr> = c.args.iter().collect();
        let segments = segment_names(&p.path);
        match segments
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice()
        {
            ["f64", name] => {
                let Some((first, rest)) = args.split_first() else {
                    return self.error(
                        &c,
                        ErrorKind::WrongArity {
                            name: format!("f64::{name}"),
                            expected: arity(name).unwrap_or(1),
                            found: 0,
                        },
                    );
                };
                let receiver = self.expr(first);
                self.function(name, p, receiver.map(|r| (r, *first)), rest)
            }
            ["diff"] if self.scope.function("diff").is_none() => self.derivative(c, &args),
            [name] => self.helper(name, c, &args),
            _ => self.error(&p, ErrorKind::UnknownFunction(segments.join("::"))),
        }
    }

    /// `diff(e, v)`: the partial derivative of the expression `e` with respect to the variable
    /// `v` of the scope (a state, algebraic variable, parameter, input or `t`), taken
    /// symbolically here (a helper of the model named `diff` takes precedence). What a
    /// constraint's gradient `Φ_q` and the term `Φ_qᵀ λ = ∂(λ·Φ)/∂q` of a mechanism are written
    /// with, from `Φ` written once.
    fn derivative(&mut self, c: &syn::ExprCall, args: &[&syn::Expr]) -> Option<ExprId> {
        let [expr, var] = args else {
            for a in args {
                self.expr(a);
            }
            return self.error(
                &c,
                ErrorKind::WrongArity {
                    name: "diff".into(),
                    expected: 2,
                    found: args.len(),
                },
            );
        };
        let e = self.expr(expr);
        let v = self.expr(var);
        let Some(v) = v.and_then(|v| self.graph.as_var(v)) else {
            let written = var.to_token_stream().to_string();
            return self.error(var, ErrorKind::NotAVariable(written));
        };
        Some(self.graph.diff(e?, v))
    }

    /// A supported `f64` function `name` applied to `receiver` and the further `args`
    /// (method form: `receiver.name(args)`; path form: `f64::name(receiver, args)`).
    /// `receiver` is `None` when it failed to parse; its errors are already recorded.
    fn function(
        &mut self,
        name: &str,
        at: &dyn ToTokens,
        receiver: Option<(ExprId, &syn::Expr)>,
        args: &[&syn::Expr],
    ) -> Option<ExprId> {
        let Some(expected) = arity(name) else {
            return self.unknown_function(name, at, args);
        };
        if args.len() != expected {
            return self.error(
                at,
                ErrorKind::WrongArity {
                    name: name.to_owned(),
                    expected: expected + 1,
                    found: args.len() + 1,
                },
            );
        }
        if name == "powi" {
            let exponent = integer_literal(args[0]);
            if exponent.is_none() {
                self.error(&args[0], ErrorKind::NonLiteralPowi);
            }
            let (x, _) = receiver?;
            return Some(self.graph.powi(x, exponent?));
        }
        let arg = match args.first() {
            Some(a) => Some(self.expr(a)?),
            None => None,
        };
        let (x, _) = receiver?;
        let g = &mut *self.graph;
        Some(
            match (Func1::from_name(name), Func2::from_name(name), arg) {
                (Some(f), _, None) => g.call1(f, x),
                (_, Some(f), Some(y)) => g.call2(f, x, y),
                (_, _, Some(y)) => g.powf(x, y), // "powf": the only other name with arity 1
                (_, _, None) => return None,     // unreachable: arity() agrees with the tables
            },
        )
    }

    /// The error of a call of `name`, which is neither a supported `f64` function nor a helper
    /// of the scope: non-smooth for the methods that switch (`min`, `max`, `floor`, …), unknown
    /// otherwise. The arguments are parsed first, for their own errors.
    fn unknown_function(
        &mut self,
        name: &str,
        at: &dyn ToTokens,
        args: &[&syn::Expr],
    ) -> Option<ExprId> {
        for a in args {
            self.expr(a);
        }
        let kind = if is_non_smooth_method(name) {
            ErrorKind::NonSmooth(format!("`{name}`"))
        } else {
            ErrorKind::UnknownFunction(name.to_owned())
        };
        self.error(at, kind)
    }

    /// A call of a helper function of the scope, inlined with its parameters bound to the
    /// arguments: values for `f64` parameters, the caller's names for struct parameters.
    fn helper(&mut self, name: &str, call: &syn::ExprCall, args: &[&syn::Expr]) -> Option<ExprId> {
        let Some(function) = self.scope.function(name) else {
            return self.unknown_function(name, &call.func, args);
        };
        if function.params.len() != args.len() {
            let expected = function.params.len();
            return self.error(
                &call,
                ErrorKind::WrongArity {
                    name: name.to_owned(),
                    expected,
                    found: args.len(),
                },
            );
        }
        if self.inlining.iter().any(|n| n == name) {
            return self.error(&call, ErrorKind::RecursiveFunction(name.to_owned()));
        }
        let mut values = Vec::new();
        let mut aliases = Vec::new();
        for (param, arg) in function.params.iter().zip(args) {
            match param.kind {
                ParamKind::Value => values.push(self.expr(arg).map(|v| (param.name.clone(), v))),
                ParamKind::Alias => match dotted_name(arg) {
                    Some(target) => aliases.push((param.name.clone(), self.resolve_alias(&target))),
                    None => {
                        let what = format!(
                            "an argument for the struct parameter `{}` that is not a name",
                            param.name
                        );
                        self.error(&arg, ErrorKind::Unsupported(what));
                        values.push(None);
                    }
                },
            }
        }
        let bindings: Vec<(String, ExprId)> = values.into_iter().collect::<Option<_>>()?;
        // The body sees its parameters and module-level names only (not the caller's locals).
        let callers_locals = std::mem::replace(&mut self.locals, bindings);
        let callers_aliases = std::mem::replace(&mut self.aliases, aliases);
        self.inlining.push(name.to_owned());
        let value = self.block(&function.body);
        self.inlining.pop();
        self.aliases = callers_aliases;
        self.locals = callers_locals;
        value
    }

    /// `{ let a = …; let b: f64 = …; value }`.
    fn block(&mut self, block: &syn::Block) -> Option<ExprId> {
        let outer = self.locals.len();
        let value = match block.stmts.split_last() {
            Some((syn::Stmt::Expr(value, None), lets)) => {
                let complete = self.statements(lets);
                let value = self.expr(value);
                value.filter(|_| complete)
            }
            _ => {
                self.statements(&block.stmts);
                self.error(&block, ErrorKind::BlockWithoutValue)
            }
        };
        self.locals.truncate(outer);
        value
    }

    /// The `let` statements before a block's value, bound in order as locals (the caller
    /// truncates them). Returns whether all of them were understood.
    fn statements(&mut self, stmts: &[syn::Stmt]) -> bool {
        let mut complete = true;
        for stmt in stmts {
            match stmt {
                syn::Stmt::Local(local) => {
                    let binding = let_binding(local);
                    if !binding.supported {
                        self.error(&local, ErrorKind::UnsupportedLet);
                        complete = false;
                    }
                    // Bind the name even of a rejected `let`, so its uses raise no more errors.
                    if let (Some(name), Some(init)) = (binding.name, binding.init) {
                        match self.expr(init) {
                            Some(v) => self.locals.push((name, v)),
                            None => complete = false,
                        }
                    }
                }
                syn::Stmt::Expr(e, _) => {
                    // A statement in the middle: report what it is, or that its value is lost.
                    if self.expr(e).is_some() {
                        let what = "a statement whose value is discarded".to_owned();
                        self.error(&e, ErrorKind::Unsupported(what));
                    }
                    complete = false;
                }
                syn::Stmt::Item(item) => {
                    self.error(
                        &item,
                        ErrorKind::Unsupported("an item inside a block".into()),
                    );
                    complete = false;
                }
                syn::Stmt::Macro(m) => {
                    self.error(&m, ErrorKind::Unsupported("a macro".into()));
                    complete = false;
                }
            }
        }
        complete
    }
}

/// What a `let` statement binds.
struct LetBinding<'a> {
    /// The bound name, if the pattern has one.
    name: Option<String>,
    /// The initializer, if any.
    init: Option<&'a syn::Expr>,
    /// Whether it is `let name = init;` or `let name: f64 = init;`, the supported forms.
    supported: bool,
}

fn let_binding(local: &syn::Local) -> LetBinding<'_> {
    let init = local.init.as_ref();
    let (pat, typed_ok) = match &local.pat {
        syn::Pat::Type(t) => (&*t.pat, crate::scope::is_f64(&t.ty)),
        other => (other, true),
    };
    let (name, plain) = match pat {
        syn::Pat::Ident(id) => (
            Some(id.ident.to_string()),
            id.mutability.is_none() && id.by_ref.is_none() && id.subpat.is_none(),
        ),
        _ => (None, false),
    };
    let has_plain_init = init.is_some_and(|i| i.diverge.is_none());
    LetBinding {
        name,
        init: init.map(|i| &*i.expr),
        supported: typed_ok && plain && has_plain_init,
    }
}

/// The dotted name of a field-access chain over a plain name: `x.v` → `"x.v"`.
fn dotted_name(expr: &syn::Expr) -> Option<String> {
    match expr {
        syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        syn::Expr::Field(f) => {
            let base = dotted_name(&f.base)?;
            match &f.member {
                syn::Member::Named(id) => Some(format!("{base}.{id}")),
                syn::Member::Unnamed(i) => Some(format!("{base}.{}", i.index)),
            }
        }
        syn::Expr::Paren(p) => dotted_name(&p.expr),
        _ => None,
    }
}

/// The value of an integer literal, possibly negated (`3`, `-2`, `4_i32`).
fn integer_literal(expr: &syn::Expr) -> Option<i32> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) if matches!(i.suffix(), "" | "i32") => i.base10_parse().ok(),
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => integer_literal(expr).and_then(i32::checked_neg),
        syn::Expr::Paren(p) => integer_literal(&p.expr),
        _ => None,
    }
}

/// The names of the segments of `path` (`core::f64::consts::PI` → `["core", "f64", "consts", "PI"]`).
fn segment_names(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

/// The number of arguments besides the receiver of a supported `f64` method.
fn arity(name: &str) -> Option<usize> {
    if Func1::from_name(name).is_some() {
        Some(0)
    } else if Func2::from_name(name).is_some() || name == "powi" || name == "powf" {
        Some(1)
    } else {
        None
    }
}

/// `f64` methods that are not smooth: they switch, so they belong in guards.
fn is_non_smooth_method(name: &str) -> bool {
    matches!(
        name,
        "min"
            | "max"
            | "minimum"
            | "maximum"
            | "clamp"
            | "floor"
            | "ceil"
            | "round"
            | "round_ties_even"
            | "trunc"
            | "fract"
            | "signum"
            | "copysign"
            | "rem_euclid"
            | "div_euclid"
            | "step"
            | "heaviside"
            | "sign"
    )
}

/// Whether a binary operator is non-smooth (`true`) or merely unsupported, and its description.
fn describe_binop(op: &syn::BinOp) -> (bool, String) {
    use syn::BinOp as B;
    let text = quote::quote!(#op).to_string();
    match op {
        B::Eq(_) | B::Ne(_) | B::Lt(_) | B::Le(_) | B::Gt(_) | B::Ge(_) => {
            (true, format!("the comparison `{text}`"))
        }
        B::And(_) | B::Or(_) => (true, format!("the logical operator `{text}`")),
        B::Rem(_) => (true, "the remainder `%`".to_owned()),
        B::AddAssign(_)
        | B::SubAssign(_)
        | B::MulAssign(_)
        | B::DivAssign(_)
        | B::RemAssign(_)
        | B::BitXorAssign(_)
        | B::BitAndAssign(_)
        | B::BitOrAssign(_)
        | B::ShlAssign(_)
        | B::ShrAssign(_) => (false, format!("the assignment `{text}`")),
        _ => (false, format!("the integer operator `{text}`")),
    }
}

/// A short description of an expression kind, for error messages.
fn describe(expr: &syn::Expr) -> &'static str {
    use syn::Expr as E;
    match expr {
        E::Array(_) => "an array",
        E::Assign(_) => "an assignment",
        E::Async(_) => "an `async` block",
        E::Await(_) => "`.await`",
        E::Block(_) => "a labelled or attributed block",
        E::Break(_) => "`break`",
        E::Cast(_) => "an `as` cast",
        E::Closure(_) => "a closure",
        E::Const(_) => "a `const` block",
        E::Continue(_) => "`continue`",
        E::ForLoop(_) => "a `for` loop",
        E::Index(_) => "indexing",
        E::Infer(_) => "`_`",
        E::Let(_) => "a `let` expression",
        E::Loop(_) => "a `loop`",
        E::Macro(_) => "a macro",
        E::Range(_) => "a range",
        E::RawAddr(_) => "a raw address",
        E::Reference(_) => "a reference `&`",
        E::Repeat(_) => "an array repeat",
        E::Return(_) => "`return`",
        E::Struct(_) => "a struct literal",
        E::Try(_) => "the `?` operator",
        E::TryBlock(_) => "a `try` block",
        E::Tuple(_) => "a tuple",
        E::Unsafe(_) => "an `unsafe` block",
        E::Verbatim(_) => "unparsed tokens",
        E::While(_) => "a `while` loop",
        E::Yield(_) => "`yield`",
        _ => "this expression",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scope::Function;

    /// Parses `src` with variables `x`, `y`, `x.v`, `p.g` and returns its value at
    /// x = 0.7, y = -1.3, x.v = 2.0, p.g = 9.81.
    fn value(src: &str) -> f64 {
        let mut g = Graph::new();
        let scope = Scope::with_variables(&mut g, &["x", "y", "x.v", "p.g"]);
        let e = parse_str(&mut g, &scope, src).unwrap_or_else(|errs| {
            panic!(
                "{src}: {}",
                errs.iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        });
        g.eval(e, &[0.7, -1.3, 2.0, 9.81])
    }

    fn errors(src: &str) -> Vec<ErrorKind> {
        let mut g = Graph::new();
        let scope = Scope::with_variables(&mut g, &["x", "y"]);
        match parse_str(&mut g, &scope, src) {
            Ok(_) => panic!("`{src}` should be rejected"),
            Err(errs) => errs.into_iter().map(|e| e.kind().clone()).collect(),
        }
    }

    fn assert_close(a: f64, b: f64) {
        assert!((a - b).abs() <= 1e-15 * b.abs().max(1.0), "{a} != {b}");
    }

    #[test]
    fn accepts_the_supported_subset() {
        let (x, y, v, gr) = (0.7_f64, -1.3_f64, 2.0_f64, 9.81_f64);
        assert_close(value("x * y + 2.5e-1 / x - -y"), x * y + 0.25 / x + y);
        assert_close(value("p.g * x.v.powi(2) + 3f64"), gr * v.powi(2) + 3.0);
        assert_close(value("x.powi(-3) + x.powf(y)"), x.powi(-3) + x.powf(y));
        assert_close(
            value("f64::sin(x) * x.cos() + y.atan2(x) + f64::hypot(x, y)"),
            x.sin() * x.cos() + y.atan2(x) + x.hypot(y),
        );
        assert_close(
            value("core::f64::consts::PI * std::f64::consts::E + std::f64::consts::LN_2"),
            core::f64::consts::PI * core::f64::consts::E + core::f64::consts::LN_2,
        );
        assert_close(
            value("{ let a = x * x; let b: f64 = a + y; { let a = 2.0; a * b } }"),
            2.0 * (x * x + y),
        );
        assert_close(
            value("(x.abs() + (y).exp_m1()).ln_1p()"),
            (x.abs() + y.exp_m1()).ln_1p(),
        );
        assert_close(value("x.powi(2_i32)"), x.powi(2));
    }

    #[test]
    fn every_user_function_parses_in_method_and_path_form() {
        for f in Func1::USER_FUNCTIONS {
            // An argument in every function's domain (acosh needs ≥ 1).
            let offset = if f == Func1::Acosh { 1.0 } else { 0.0 };
            let expected = f.apply(0.3 * 0.7 / 0.7 + offset);
            let name = f.name();
            assert_close(
                value(&format!("(0.3 * x / 0.7 + {offset:?}).{name}()")),
                expected,
            );
            assert_close(
                value(&format!("f64::{name}(0.3 * x / 0.7 + {offset:?})")),
                expected,
            );
        }
    }

    #[test]
    fn diff_takes_the_partial_derivative_with_respect_to_a_variable() {
        // d/dx (x² y + sin x) = 2 x y + cos x at x = 0.7, y = −1.3 (`value`'s point).
        let (x, y) = (0.7f64, -1.3f64);
        assert_close(value("diff(x * x * y + x.sin(), x)"), 2.0 * x * y + x.cos());
        // Through a `let` binding, and with respect to a field: d/dy (x y)² = 2 x² y.
        assert_close(value("{ let s = x * y; diff(s * s, y) }"), 2.0 * x * x * y);
        assert_close(value("diff(x.v * x.v * p.g, x.v)"), 2.0 * 2.0 * 9.81);
        assert!(matches!(
            errors("diff(x * y, 2.0)")[..],
            [ErrorKind::NotAVariable(_)]
        ));
        assert!(matches!(
            errors("diff(x)")[..],
            [ErrorKind::WrongArity { .. }]
        ));
    }

    #[test]
    fn helper_functions_are_inlined_with_their_own_scope() {
        let mut g = Graph::new();
        let mut scope = Scope::with_variables(&mut g, &["x"]);
        let k = g.constant(4.0);
        scope.bind("K", k);
        let item: syn::ItemFn =
            syn::parse_str("fn spring(u: f64, c: f64) -> f64 { let s = K * u; s + c * u.powi(3) }")
                .unwrap();
        scope.define_function("spring", Function::from_item_fn(&item).unwrap());
        let e = parse_str(&mut g, &scope, "{ let s = 100.0; spring(x, 2.0) + s }").unwrap();
        let x = 0.5_f64;
        assert_close(g.eval(e, &[x]), 4.0 * x + 2.0 * x.powi(3) + 100.0);

        // The helper cannot see the caller's locals.
        let item: syn::ItemFn = syn::parse_str("fn leak(u: f64) -> f64 { u + s }").unwrap();
        scope.define_function("leak", Function::from_item_fn(&item).unwrap());
        let errs = parse_str(&mut g, &scope, "{ let s = 1.0; leak(x) }").unwrap_err();
        assert_eq!(errs[0].kind(), &ErrorKind::UnknownVariable("s".into()));

        let item: syn::ItemFn = syn::parse_str("fn forever(u: f64) -> f64 { forever(u) }").unwrap();
        scope.define_function("forever", Function::from_item_fn(&item).unwrap());
        let errs = parse_str(&mut g, &scope, "forever(x)").unwrap_err();
        assert_eq!(
            errs[0].kind(),
            &ErrorKind::RecursiveFunction("forever".into())
        );

        for bad in [
            "fn a(u: f32) -> f64 { u }",
            "fn a(u: f64) { }",
            "fn a<T>(u: f64) -> f64 { u }",
            "fn a((u, v): (f64, f64)) -> f64 { u }",
        ] {
            let item: syn::ItemFn = syn::parse_str(bad).unwrap();
            let err = Function::from_item_fn(&item).unwrap_err();
            assert_eq!(
                err.kind(),
                &ErrorKind::UnsupportedSignature("a".into()),
                "{bad}"
            );
        }
    }

    #[test]
    fn struct_parameters_of_helpers_alias_the_callers_names() {
        use crate::scope::{Param, ParamKind};
        let mut g = Graph::new();
        let mut scope = Scope::with_variables(&mut g, &["x.u", "last.y.u", "p.a"]);
        let body: syn::Block = syn::parse_str("{ m.y.u * q.a }").unwrap();
        let param = |name: &str| Param {
            name: name.into(),
            kind: ParamKind::Alias,
        };
        scope.define_function(
            "scaled",
            Function {
                params: vec![param("m"), param("q")],
                body,
            },
        );
        // A helper passing its own struct parameter on to another helper.
        let body: syn::Block = syn::parse_str("{ scaled(mem, pp) + v }").unwrap();
        let params = vec![
            param("mem"),
            param("pp"),
            Param {
                name: "v".into(),
                kind: ParamKind::Value,
            },
        ];
        scope.define_function("outer", Function { params, body });
        let e = parse_str(&mut g, &scope, "outer(last, p, x.u)").unwrap();
        assert_close(g.eval(e, &[3.0, 2.0, 5.0]), 2.0 * 5.0 + 3.0);
        let errs = parse_str(&mut g, &scope, "scaled(last, 2.0 * x.u)").unwrap_err();
        assert!(
            matches!(errs[0].kind(), ErrorKind::Unsupported(w) if w.contains("`q`")),
            "{errs:?}"
        );
    }

    #[test]
    fn rejects_non_smooth_constructs_with_the_switching_hint() {
        for (src, what) in [
            ("if x > 0.0 { x } else { y }", "an `if` expression"),
            ("match x { _ => y }", "a `match` expression"),
            ("x.min(y)", "`min`"),
            ("x.max(y)", "`max`"),
            ("x.floor()", "`floor`"),
            ("x.signum()", "`signum`"),
            ("f64::max(x, y)", "`max`"),
            ("x % y", "the remainder `%`"),
        ] {
            let errs = errors(src);
            assert!(
                errs.contains(&ErrorKind::NonSmooth(what.into())),
                "{src}: {errs:?}"
            );
        }
        let mut g = Graph::new();
        let scope = Scope::with_variables(&mut g, &["x"]);
        let err = &parse_str(&mut g, &scope, "x.max(1.0)").unwrap_err()[0];
        assert!(
            err.to_string().contains("belongs in modes and guards"),
            "{err}"
        );
    }

    #[test]
    fn rejects_unsupported_constructs_naming_them() {
        let wrong_arity = ErrorKind::WrongArity {
            name: "sin".into(),
            expected: 1,
            found: 2,
        };
        let syntax = ErrorKind::Syntax("unexpected end of input, expected an expression".into());
        for (src, wanted) in [
            ("z + x", ErrorKind::UnknownVariable("z".into())),
            ("x.q", ErrorKind::UnknownVariable("x.q".into())),
            ("x.gamma()", ErrorKind::UnknownFunction("gamma".into())),
            ("erf(x)", ErrorKind::UnknownFunction("erf".into())),
            ("x * 2", ErrorKind::IntegerLiteral("2".into())),
            ("x.powi(y)", ErrorKind::NonLiteralPowi),
            ("x.powi(2.0)", ErrorKind::NonLiteralPowi),
            ("x.sin(y)", wrong_arity),
            ("{ let mut a = x; a }", ErrorKind::UnsupportedLet),
            ("{ let a = x; }", ErrorKind::BlockWithoutValue),
            ("x +", syntax),
        ] {
            assert_eq!(errors(src), vec![wanted], "{src}");
        }
        for (src, what) in [
            ("loop { }", "a `loop`"),
            ("{ for i in 0..3 { } x }", "a `for` loop"),
            ("while true { }", "a `while` loop"),
            ("(|a: f64| a)(x)", "a computed call"),
            ("x as f64", "an `as` cast"),
            ("[x, y]", "an array"),
            ("x.0", "a field access on something that is not a name"),
            ("&x", "a reference `&`"),
            ("(x, y)", "a tuple"),
            ("dbg!(x)", "a macro"),
            ("x += y", "the assignment `+=`"),
            ("x << y", "the integer operator `<<`"),
        ] {
            let errs = errors(src);
            let wanted = ErrorKind::Unsupported(what.into());
            let unknown = ErrorKind::UnknownVariable("x.0".into());
            assert!(
                errs.contains(&wanted) || (src == "x.0" && errs.contains(&unknown)),
                "{src}: {errs:?}"
            );
        }
    }

    #[test]
    fn reports_several_errors_in_one_pass() {
        let errs = errors("x.min(y) + z * 2 + if x > y { x } else { y }");
        assert_eq!(
            errs,
            vec![
                ErrorKind::NonSmooth("`min`".into()),
                ErrorKind::UnknownVariable("z".into()),
                ErrorKind::IntegerLiteral("2".into()),
                ErrorKind::NonSmooth("an `if` expression".into()),
            ]
        );
    }
}
