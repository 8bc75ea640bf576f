//! The elementary functions the engine understands: their Rust names, numeric values and
//! derivative rules' building blocks.
//!
//! A function is accepted in method form (`x.sin()`) and path form (`f64::sin(x)`); both map to
//! the same [`Func1`] or [`Func2`]. Everything not listed here is rejected by the parser.

/// A function of one argument.
///
/// `Signum` is not accepted from user code: it only appears as the derivative of [`Func1::Abs`].
/// We follow Rust's `f64::signum`, so `signum(0.0) = 1.0`, i.e. the derivative of `|x|` at `x = 0`
/// is taken as the right derivative `+1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Func1 {
    /// `x.sqrt()`
    Sqrt,
    /// `x.cbrt()`
    Cbrt,
    /// `x.exp()`
    Exp,
    /// `x.exp_m1()`, `exp(x) - 1` without cancellation
    ExpM1,
    /// `x.ln()`
    Ln,
    /// `x.ln_1p()`, `ln(1 + x)` without cancellation
    Ln1p,
    /// `x.log10()`
    Log10,
    /// `x.log2()`
    Log2,
    /// `x.sin()`
    Sin,
    /// `x.cos()`
    Cos,
    /// `x.tan()`
    Tan,
    /// `x.asin()`
    Asin,
    /// `x.acos()`
    Acos,
    /// `x.atan()`
    Atan,
    /// `x.sinh()`
    Sinh,
    /// `x.cosh()`
    Cosh,
    /// `x.tanh()`
    Tanh,
    /// `x.asinh()`
    Asinh,
    /// `x.acosh()`
    Acosh,
    /// `x.atanh()`
    Atanh,
    /// `x.recip()`, `1 / x`
    Recip,
    /// `x.abs()`; its derivative is [`Func1::Signum`].
    Abs,
    /// `x.signum()`; derivative zero. Produced only by differentiating `abs`.
    Signum,
}

/// A function of two arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Func2 {
    /// `y.atan2(x)`: the angle of the point `(x, y)`.
    Atan2,
    /// `x.hypot(y)`: `sqrt(x² + y²)` without overflow.
    Hypot,
}

impl Func1 {
    /// Every one-argument function a user may write, in the order of the list.
    pub const USER_FUNCTIONS: [Func1; 22] = [
        Func1::Sqrt,
        Func1::Cbrt,
        Func1::Exp,
        Func1::ExpM1,
        Func1::Ln,
        Func1::Ln1p,
        Func1::Log10,
        Func1::Log2,
        Func1::Sin,
        Func1::Cos,
        Func1::Tan,
        Func1::Asin,
        Func1::Acos,
        Func1::Atan,
        Func1::Sinh,
        Func1::Cosh,
        Func1::Tanh,
        Func1::Asinh,
        Func1::Acosh,
        Func1::Atanh,
        Func1::Recip,
        Func1::Abs,
    ];

    /// The Rust method name (`"sin"` for `x.sin()`).
    pub fn name(self) -> &'static str {
        match self {
            Func1::Sqrt => "sqrt",
            Func1::Cbrt => "cbrt",
            Func1::Exp => "exp",
            Func1::ExpM1 => "exp_m1",
            Func1::Ln => "ln",
            Func1::Ln1p => "ln_1p",
            Func1::Log10 => "log10",
            Func1::Log2 => "log2",
            Func1::Sin => "sin",
            Func1::Cos => "cos",
            Func1::Tan => "tan",
            Func1::Asin => "asin",
            Func1::Acos => "acos",
            Func1::Atan => "atan",
            Func1::Sinh => "sinh",
            Func1::Cosh => "cosh",
            Func1::Tanh => "tanh",
            Func1::Asinh => "asinh",
            Func1::Acosh => "acosh",
            Func1::Atanh => "atanh",
            Func1::Recip => "recip",
            Func1::Abs => "abs",
            Func1::Signum => "signum",
        }
    }

    /// The user function with this Rust name, if any (`signum` is not a user function).
    pub fn from_name(name: &str) -> Option<Func1> {
        Func1::USER_FUNCTIONS.into_iter().find(|f| f.name() == name)
    }

    /// Evaluates the function with the same `f64` method the emitted code calls.
    pub fn apply(self, x: f64) -> f64 {
        match self {
            Func1::Sqrt => x.sqrt(),
            Func1::Cbrt => x.cbrt(),
            Func1::Exp => x.exp(),
            Func1::ExpM1 => x.exp_m1(),
            Func1::Ln => x.ln(),
            Func1::Ln1p => x.ln_1p(),
            Func1::Log10 => x.log10(),
            Func1::Log2 => x.log2(),
            Func1::Sin => x.sin(),
            Func1::Cos => x.cos(),
            Func1::Tan => x.tan(),
            Func1::Asin => x.asin(),
            Func1::Acos => x.acos(),
            Func1::Atan => x.atan(),
            Func1::Sinh => x.sinh(),
            Func1::Cosh => x.cosh(),
            Func1::Tanh => x.tanh(),
            Func1::Asinh => x.asinh(),
            Func1::Acosh => x.acosh(),
            Func1::Atanh => x.atanh(),
            Func1::Recip => x.recip(),
            Func1::Abs => x.abs(),
            Func1::Signum => x.signum(),
        }
    }
}

impl Func2 {
    /// Every two-argument function a user may write.
    pub const USER_FUNCTIONS: [Func2; 2] = [Func2::Atan2, Func2::Hypot];

    /// The Rust method name (`"atan2"` for `y.atan2(x)`).
    pub fn name(self) -> &'static str {
        match self {
            Func2::Atan2 => "atan2",
            Func2::Hypot => "hypot",
        }
    }

    /// The function with this Rust name, if any.
    pub fn from_name(name: &str) -> Option<Func2> {
        Func2::USER_FUNCTIONS.into_iter().find(|f| f.name() == name)
    }

    /// Evaluates `a.f(b)` with the `f64` method of the same name.
    pub fn apply(self, a: f64, b: f64) -> f64 {
        match self {
            Func2::Atan2 => a.atan2(b),
            Func2::Hypot => a.hypot(b),
        }
    }
}

/// The constants of `core::f64::consts`, by name, for parsing and for emitting folded values
/// that equal one of them exactly (clippy's `approx_constant` lint rejects such literals).
pub const F64_CONSTANTS: [(&str, f64); 19] = {
    use core::f64::consts as c;
    [
        ("E", c::E),
        ("FRAC_1_PI", c::FRAC_1_PI),
        ("FRAC_1_SQRT_2", c::FRAC_1_SQRT_2),
        ("FRAC_2_PI", c::FRAC_2_PI),
        ("FRAC_2_SQRT_PI", c::FRAC_2_SQRT_PI),
        ("FRAC_PI_2", c::FRAC_PI_2),
        ("FRAC_PI_3", c::FRAC_PI_3),
        ("FRAC_PI_4", c::FRAC_PI_4),
        ("FRAC_PI_6", c::FRAC_PI_6),
        ("FRAC_PI_8", c::FRAC_PI_8),
        ("LN_10", c::LN_10),
        ("LN_2", c::LN_2),
        ("LOG10_2", c::LOG10_2),
        ("LOG10_E", c::LOG10_E),
        ("LOG2_10", c::LOG2_10),
        ("LOG2_E", c::LOG2_E),
        ("PI", c::PI),
        ("SQRT_2", c::SQRT_2),
        ("TAU", c::TAU),
    ]
};

/// The value of `core::f64::consts::NAME`, if `name` is one of them.
pub fn f64_constant(name: &str) -> Option<f64> {
    F64_CONSTANTS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, v)| v)
}

/// The name of the `core::f64::consts` constant whose value is exactly `value`, if any.
pub fn f64_constant_name(value: f64) -> Option<&'static str> {
    F64_CONSTANTS
        .iter()
        .find(|(_, v)| v.to_bits() == value.to_bits())
        .map(|&(n, _)| n)
}
