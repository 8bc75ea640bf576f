//! Emission of straight-line Rust with common-subexpression elimination.
//!
//! Given output expressions, [`emit`] returns statements that compute every shared
//! subexpression once, in a `let` temporary, in dependency order, then write each output into the
//! place the caller names (`out[3]`, `jac.f_y[0][1]`, …). A node gets a temporary exactly when it
//! is used more than once among the outputs; a node used once is written inline where it is used.
//!
//! The code is meant to be included in a user's crate and stay quiet under `clippy -D warnings`:
//! parentheses only where precedence needs them, no `x * 1.0` or `x + 0.0` (simplification has
//! removed them), literals in shortest round-trip form, and values equal to a
//! `core::f64::consts` constant written by name. Temporaries are hygienic
//! (`Span::mixed_site()`): they cannot clash with the caller's names.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote};

use crate::function::f64_constant_name;
use crate::graph::{ExprId, Graph, Node, VarId};

/// How tightly an emitted expression binds; an operand that binds less tightly than its
/// position needs gets parentheses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    /// `a + b`, `a - b`
    Sum,
    /// `a * b`, `a / b`
    Product,
    /// `-a`
    Prefix,
    /// names, literals, calls, parenthesized expressions
    Atom,
}

/// An emitted expression with its precedence.
struct Code {
    tokens: TokenStream,
    prec: Prec,
}

/// Straight-line code for some outputs: the temporaries' `let` statements and one expression
/// per output (in terms of the temporaries).
pub struct Emission {
    /// The `let` statements, in dependency order.
    pub statements: TokenStream,
    /// The expression of each output, in the order they were given.
    pub outputs: Vec<TokenStream>,
}

/// Emits `place = value;` for each `(place, value)` after the shared temporaries.
/// `var` gives the tokens that read a variable (e.g. `y[0]` or `x.v`).
pub fn emit(
    graph: &Graph,
    outputs: &[(TokenStream, ExprId)],
    var: impl Fn(VarId) -> TokenStream,
) -> TokenStream {
    let roots: Vec<ExprId> = outputs.iter().map(|(_, e)| *e).collect();
    let Emission {
        statements,
        outputs: values,
    } = emit_values(graph, &roots, var);
    let assignments = outputs
        .iter()
        .zip(values)
        .map(|((place, _), value)| quote! { #place = #value; });
    quote! { #statements #(#assignments)* }
}

/// Emits a block expression `{ let …; value }` computing one value.
pub fn emit_expr(graph: &Graph, root: ExprId, var: impl Fn(VarId) -> TokenStream) -> TokenStream {
    let Emission {
        statements,
        outputs,
    } = emit_values(graph, &[root], var);
    let value = &outputs[0];
    if statements.is_empty() {
        quote! { #value }
    } else {
        quote! { { #statements #value } }
    }
}

/// The temporaries and output expressions for `roots`; the building block of [`emit`].
pub fn emit_values(
    graph: &Graph,
    roots: &[ExprId],
    var: impl Fn(VarId) -> TokenStream,
) -> Emission {
    let needed = graph.reachable(roots);
    let mut uses = vec![0u32; needed.len()];
    for (i, _) in needed.iter().enumerate().filter(|(_, &n)| n) {
        for c in graph.node(ExprId(i as u32)).children() {
            uses[c.index()] += 1;
        }
    }
    for r in roots {
        uses[r.index()] += 1;
    }

    let mut code: Vec<Option<Code>> = (0..needed.len()).map(|_| None).collect();
    let mut statements = TokenStream::new();
    let mut temporaries = 0usize;
    for (i, _) in needed.iter().enumerate().filter(|(_, &n)| n) {
        let id = ExprId(i as u32);
        let node = graph.node(id);
        let mut operand = |c: ExprId| -> Code {
            // A temporary, leaf or once-used node: its code is read (cloned for the
            // repeatedly-used ones, moved out for the single use of an inline node).
            if uses[c.index()] > 1 || matches!(graph.node(c), Node::Const(_) | Node::Var(_)) {
                let held = code[c.index()]
                    .as_ref()
                    .expect("operand emitted before its user");
                Code {
                    tokens: held.tokens.clone(),
                    prec: held.prec,
                }
            } else {
                code[c.index()]
                    .take()
                    .expect("operand emitted before its user")
            }
        };
        let this = match node {
            Node::Const(bits) => constant(f64::from_bits(bits)),
            Node::Var(v) => Code {
                tokens: var(v),
                prec: Prec::Atom,
            },
            Node::Add(a, b) => binary(operand(a), quote!(+), operand(b), Prec::Sum),
            Node::Sub(a, b) => binary(operand(a), quote!(-), operand(b), Prec::Sum),
            Node::Mul(a, b) => binary(operand(a), quote!(*), operand(b), Prec::Product),
            Node::Div(a, b) => binary(operand(a), quote!(/), operand(b), Prec::Product),
            Node::Neg(a) => {
                let a = operand(a);
                let a = at_least(a, Prec::Prefix);
                Code {
                    tokens: quote!(-#a),
                    prec: Prec::Prefix,
                }
            }
            Node::Powi(a, n) => {
                let n = Literal::i32_unsuffixed(n);
                method(graph, a, operand(a), "powi", Some(quote!(#n)))
            }
            Node::Powf(a, b) => {
                let exponent = operand(b).tokens;
                method(graph, a, operand(a), "powf", Some(exponent))
            }
            Node::Call1(f, a) => method(graph, a, operand(a), f.name(), None),
            Node::Call2(f, a, b) => {
                let arg = operand(b).tokens;
                method(graph, a, operand(a), f.name(), Some(arg))
            }
        };
        let shared = uses[i] > 1 && !matches!(node, Node::Const(_) | Node::Var(_));
        code[i] = Some(if shared {
            let name = format_ident!("t{}", temporaries, span = Span::mixed_site());
            temporaries += 1;
            let value = this.tokens;
            statements.extend(quote! { let #name = #value; });
            Code {
                tokens: quote!(#name),
                prec: Prec::Atom,
            }
        } else {
            this
        });
    }
    let outputs = roots
        .iter()
        .map(|r| {
            code[r.index()]
                .as_ref()
                .expect("every root was emitted")
                .tokens
                .clone()
        })
        .collect();
    Emission {
        statements,
        outputs,
    }
}

/// `a op b`: the left operand keeps its parentheses-free form down to the operator's own
/// precedence (left associativity); the right operand needs strictly tighter binding, so
/// `a - (b - c)` and `a / (b * c)` keep their meaning and evaluation order.
fn binary(a: Code, op: TokenStream, b: Code, prec: Prec) -> Code {
    let a = at_least(a, prec);
    let b = if b.prec > prec {
        b.tokens
    } else {
        parenthesized(b.tokens)
    };
    Code {
        tokens: quote!(#a #op #b),
        prec,
    }
}

/// `receiver.name(arg)`. A constant receiver is suffixed (`2.0_f64.ln()`), since an unsuffixed
/// float literal has no methods until its type is known, and parenthesized when negative.
fn method(
    graph: &Graph,
    receiver_id: ExprId,
    receiver: Code,
    name: &str,
    arg: Option<TokenStream>,
) -> Code {
    let receiver = match graph.as_const(receiver_id) {
        Some(value) if value.is_sign_negative() => parenthesized(suffixed_constant(value)),
        Some(value) => suffixed_constant(value),
        None => at_least(receiver, Prec::Atom),
    };
    let name = format_ident!("{}", name);
    Code {
        tokens: quote!(#receiver.#name(#arg)),
        prec: Prec::Atom,
    }
}

/// The tokens of `code`, parenthesized if it binds less tightly than `prec`.
fn at_least(code: Code, prec: Prec) -> TokenStream {
    if code.prec >= prec {
        code.tokens
    } else {
        parenthesized(code.tokens)
    }
}

fn parenthesized(tokens: TokenStream) -> TokenStream {
    quote!((#tokens))
}

/// A constant: a named `core::f64::consts` value, or the shortest literal that reads back as
/// the same `f64`, with a prefix minus for negative values.
fn constant(value: f64) -> Code {
    if value.is_sign_negative() && value != 0.0 {
        let positive = constant(-value);
        let tokens = positive.tokens;
        return Code {
            tokens: quote!(-#tokens),
            prec: Prec::Prefix,
        };
    }
    Code {
        tokens: unsigned_constant(value, ""),
        prec: Prec::Atom,
    }
}

/// A constant as an `f64`-typed atom, for a method receiver.
fn suffixed_constant(value: f64) -> TokenStream {
    if value.is_sign_negative() && value != 0.0 {
        let positive = unsigned_constant(-value, "_f64");
        quote!(-#positive)
    } else {
        unsigned_constant(value, "_f64")
    }
}

/// A non-negative constant (or NaN/∞) with an optional literal suffix.
fn unsigned_constant(value: f64, suffix: &str) -> TokenStream {
    if let Some(name) = f64_constant_name(value) {
        let name = format_ident!("{}", name);
        return quote!(::core::f64::consts::#name);
    }
    // The associated constants, not the legacy `core::f64::NAN` module constants (which
    // clippy's `legacy_numeric_constants` rejects).
    if value.is_nan() {
        return quote!(f64::NAN);
    }
    if value.is_infinite() {
        return quote!(f64::INFINITY);
    }
    // `{:?}` is the shortest representation that parses back to the same f64, with a decimal
    // point or an exponent, so it is a float literal.
    let text = format!("{value:?}{suffix}");
    let literal: Literal = text
        .parse()
        .expect("a finite f64's Debug form is a valid float literal");
    quote!(#literal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::function::Func1;
    use crate::parse::parse_str;
    use crate::scope::Scope;

    /// The emitted text of `src` (variables `x`, `y`, `z` read as themselves), normalized to
    /// single spaces between tokens.
    fn emitted(src: &str) -> String {
        let mut g = Graph::new();
        let scope = Scope::with_variables(&mut g, &["x", "y", "z"]);
        let e = parse_str(&mut g, &scope, src).unwrap();
        let names = ["x", "y", "z"];
        emit(&g, &[(quote!(out), e)], |v| {
            let name = format_ident!("{}", names[v.index()]);
            quote!(#name)
        })
        .to_string()
    }

    #[test]
    fn parenthesizes_only_where_precedence_needs_it() {
        // Commutative operands are in canonical order (older node first).
        assert_eq!(emitted("(x + y) * z"), "out = z * (x + y) ;");
        assert_eq!(emitted("(x + y) / z"), "out = (x + y) / z ;");
        assert_eq!(emitted("x + y * z"), "out = x + y * z ;");
        assert_eq!(emitted("x - (y - z)"), "out = x - (y - z) ;");
        assert_eq!(emitted("(x - y) - z"), "out = x - y - z ;");
        assert_eq!(emitted("x / (y * z)"), "out = x / (y * z) ;");
        assert_eq!(emitted("x + (y + z)"), "out = x + (y + z) ;");
        assert_eq!(emitted("(x * y).sin()"), "out = (x * y) . sin () ;");
        assert_eq!(emitted("-(x * y) + z"), "out = z - x * y ;");
        assert_eq!(emitted("-(x + y).sin()"), "out = - (x + y) . sin () ;");
        assert_eq!(emitted("-(x.sin() * y)"), "out = - (y * x . sin ()) ;");
    }

    #[test]
    fn writes_constants_exactly_and_by_name() {
        assert_eq!(
            emitted("2.0 * core::f64::consts::PI * x"),
            "out = :: core :: f64 :: consts :: TAU * x ;"
        );
        assert_eq!(emitted("-2.5 * x"), "out = - 2.5 * x ;");
        assert_eq!(emitted("x * 1e-20"), "out = 1e-20 * x ;");
        assert_eq!(emitted("0.1 + 0.2 + x"), "out = x + 0.30000000000000004 ;");
        // A constant receiver that could not be folded keeps an f64 suffix.
        assert_eq!(
            emitted("(-1.0f64).ln() * x"),
            "out = x * (- 1.0_f64) . ln () ;"
        );
    }

    #[test]
    fn shared_subexpressions_are_computed_once() {
        let text = emitted("x.sin() * y + x.sin().powi(2)");
        assert_eq!(text.matches("sin").count(), 1, "{text}");
        assert_eq!(text, "let t0 = x . sin () ; out = y * t0 + t0 . powi (2) ;");
    }

    #[test]
    fn several_outputs_share_temporaries_in_dependency_order() {
        let mut g = Graph::new();
        let x = g.var("x");
        let s = g.call1(Func1::Sin, x);
        let e = g.call1(Func1::Exp, s);
        let f1 = g.mul(e, x);
        let f2 = g.add(e, s);
        let code = emit(
            &g,
            &[(quote!(a), f1), (quote!(b), f2), (quote!(c), e)],
            |_| quote!(x),
        );
        assert_eq!(
            code.to_string(),
            "let t0 = x . sin () ; let t1 = t0 . exp () ; a = x * t1 ; b = t0 + t1 ; c = t1 ;"
        );
    }

    #[test]
    fn temporaries_are_hygienic() {
        let mut g = Graph::new();
        let x = g.var("x");
        let s = g.call1(Func1::Sin, x);
        let f = g.mul(s, s);
        let Emission { statements, .. } = emit_values(&g, &[f, s], |_| quote!(t0));
        let temp = statements
            .into_iter()
            .find_map(|t| match t {
                proc_macro2::TokenTree::Ident(i) if i == "t0" => Some(i),
                _ => None,
            })
            .unwrap();
        // The temporary's span resolves at the macro definition site for locals, so a user
        // variable also called `t0` (passed with a call-site span) is a different binding.
        assert_eq!(
            format!("{:?}", temp.span()),
            format!("{:?}", Span::mixed_site())
        );
    }
}
