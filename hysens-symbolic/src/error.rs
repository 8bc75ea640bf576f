//! Errors of the parser: what was rejected, where, and what to write instead.
//!
//! Every error carries the span of the offending syntax, so the `#[hybrid_model]` macro can point
//! the compiler's diagnostic at it. [`ErrorKind`] is what tests match on; [`Error::message`] and
//! [`Error::hint`] are what users read.

use std::fmt;

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;

use crate::function::{Func1, Func2};

/// What went wrong while turning a Rust expression into a symbolic one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// A name that is neither a variable, a `let` binding, nor a constant in scope.
    UnknownVariable(String),
    /// A call to a function that is neither supported nor defined in the model.
    UnknownFunction(String),
    /// A non-smooth construct (`if`, `match`, comparisons, `min`, `max`, `floor`, `%`, …).
    /// The string names it, e.g. "`if` expression" or "`x.min(..)`".
    NonSmooth(String),
    /// A construct outside the supported subset for another reason (loops, closures, casts,
    /// macros, indexing, …). The string names it.
    Unsupported(String),
    /// An integer literal where an `f64` is expected (`x * 2` instead of `x * 2.0`).
    IntegerLiteral(String),
    /// A `powi` exponent that is not an integer literal.
    NonLiteralPowi,
    /// A function called with the wrong number of arguments.
    WrongArity {
        /// The function's name.
        name: String,
        /// How many arguments it takes.
        expected: usize,
        /// How many it was given.
        found: usize,
    },
    /// A helper function that calls itself, directly or not (it could not be inlined).
    RecursiveFunction(String),
    /// A `let` whose pattern is not a plain name, or that has no initializer, or is `mut`.
    UnsupportedLet,
    /// A block whose last statement is not an expression (so it has no value).
    BlockWithoutValue,
    /// A helper function whose signature is not `fn name(a: f64, …) -> f64`.
    UnsupportedSignature(String),
    /// The second argument of `diff(e, v)` is not a variable of the model (the string is the
    /// argument as written).
    NotAVariable(String),
    /// The text is not a Rust expression at all.
    Syntax(String),
}

/// One parse error, with the span of the offending syntax.
#[derive(Clone, Debug)]
pub struct Error {
    span: Span,
    /// The offending syntax, so that a diagnostic can underline all of it, not only its first
    /// token (stable Rust cannot join spans).
    tokens: Option<TokenStream>,
    kind: ErrorKind,
}

/// The hint for everything non-smooth.
const SWITCHING_HINT: &str = "model expressions must be smooth so that they can be \
    differentiated; non-smooth switching belongs in modes and guards: write one mode per \
    branch and a guard whose zero crossing switches between them";

impl Error {
    /// An error of `kind` at `span`.
    pub fn new(span: Span, kind: ErrorKind) -> Self {
        Error {
            span,
            tokens: None,
            kind,
        }
    }

    /// An error of `kind` covering the syntax `at`.
    pub fn spanned<T: ToTokens + ?Sized>(at: &T, kind: ErrorKind) -> Self {
        let tokens = at.to_token_stream();
        let span = tokens
            .clone()
            .into_iter()
            .next()
            .map_or_else(Span::call_site, |t| t.span());
        Error {
            span,
            tokens: Some(tokens),
            kind,
        }
    }

    /// Where the offending syntax starts.
    pub fn span(&self) -> Span {
        self.span
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// One line saying what is wrong.
    pub fn message(&self) -> String {
        match &self.kind {
            ErrorKind::UnknownVariable(name) => format!("unknown variable `{name}`"),
            ErrorKind::UnknownFunction(name) => format!("unsupported function `{name}`"),
            ErrorKind::NonSmooth(what) => format!("{what} is not supported in model expressions"),
            ErrorKind::Unsupported(what) => format!("{what} is not supported in model expressions"),
            ErrorKind::IntegerLiteral(lit) => {
                format!("integer literal `{lit}` where an f64 is expected")
            }
            ErrorKind::NonLiteralPowi => {
                "the exponent of `powi` must be an integer literal".to_owned()
            }
            ErrorKind::WrongArity {
                name,
                expected,
                found,
            } => format!("`{name}` takes {expected} argument(s) but {found} were given"),
            ErrorKind::RecursiveFunction(name) => {
                format!("helper function `{name}` calls itself and cannot be inlined")
            }
            ErrorKind::UnsupportedLet => {
                "only `let name = value;` and `let name: f64 = value;` are supported".to_owned()
            }
            ErrorKind::BlockWithoutValue => {
                "this block has no value: its last statement must be an expression without `;`"
                    .to_owned()
            }
            ErrorKind::UnsupportedSignature(name) => {
                format!(
                    "helper function `{name}` must have the form `fn {name}(a: f64, ...) -> f64`"
                )
            }
            ErrorKind::NotAVariable(what) => {
                format!("`diff(e, v)` differentiates with respect to a variable, and `{what}` is not one")
            }
            ErrorKind::Syntax(msg) => format!("not a Rust expression: {msg}"),
        }
    }

    /// What to do about it, when there is something useful to say.
    pub fn hint(&self) -> Option<String> {
        match &self.kind {
            ErrorKind::UnknownVariable(_) => Some(
                "names are the fields of the function's parameters (such as `x.h`), `let` \
                 bindings, the time `t`, and the module's `const`s"
                    .to_owned(),
            ),
            ErrorKind::NonSmooth(_) => Some(SWITCHING_HINT.to_owned()),
            ErrorKind::UnknownFunction(_) => Some(format!(
                "supported: {}, powi, powf, {}, and helper functions defined in the model",
                Func1::USER_FUNCTIONS.map(Func1::name).join(", "),
                Func2::USER_FUNCTIONS.map(Func2::name).join(", "),
            )),
            ErrorKind::Unsupported(_) => Some(
                "model expressions are straight-line f64 arithmetic: literals, variables, \
                 `let` bindings, + - * /, and the supported functions"
                    .to_owned(),
            ),
            ErrorKind::IntegerLiteral(lit) => Some(format!("write `{lit}.0`")),
            ErrorKind::NonLiteralPowi => {
                Some("write e.g. `x.powi(3)`; for a variable exponent use `x.powf(n)`".to_owned())
            }
            ErrorKind::RecursiveFunction(_) => {
                Some("helper functions are inlined symbolically, so they cannot recurse".to_owned())
            }
            ErrorKind::NotAVariable(_) => Some(
                "write a field of the states, algebraic variables, parameters or inputs (such \
                 as `x.q`), or `t`; for a derivative along an expression, apply the chain rule \
                 with the variables it reads"
                    .to_owned(),
            ),
            _ => None,
        }
    }

    /// This error as a `syn::Error`, for a proc macro to report.
    pub fn to_syn_error(&self) -> syn::Error {
        match &self.tokens {
            Some(tokens) => syn::Error::new_spanned(tokens, self.to_string()),
            None => syn::Error::new(self.span, self.to_string()),
        }
    }

    /// All errors as one `compile_error!` invocation per error, at their spans.
    pub fn to_compile_errors(errors: &[Error]) -> TokenStream {
        errors
            .iter()
            .map(|e| e.to_syn_error().to_compile_error())
            .collect()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())?;
        if let Some(hint) = self.hint() {
            write!(f, "\nhelp: {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}
