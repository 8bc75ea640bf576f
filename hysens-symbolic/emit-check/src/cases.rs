//! The expressions whose emitted code is compiled and checked.
//!
//! Each case is Rust source over the variables `x0, x1, …`, with the interval each variable is
//! sampled from (chosen inside the domain of every function the case calls, so values and
//! derivatives are finite). Between them the cases exercise every construct the emitter has to
//! get right: every supported function, `powi` with negative exponents, `powf`, shared
//! subexpressions (so temporaries appear), negative constants, folded constants that equal a
//! `core::f64::consts` value, deep nesting, `let` blocks, and constant receivers that could not
//! be folded. `tests/coverage.rs` checks that the list keeps these promises.
//!
//! This file is plain data with no dependencies: the build script (`#[path]`) and the library
//! both compile it, so the kernels are emitted from the same list the tests read.

/// A scalar function `f(x0, x1, …)`: the build script emits its value-and-gradient kernel and
/// its value-only kernel.
pub struct Case {
    /// The kernel's name, a Rust identifier.
    pub name: &'static str,
    /// What the case exercises, for the generated function's doc comment.
    pub what: &'static str,
    /// One sampling interval per variable `x0, x1, …`.
    pub domain: Vec<(f64, f64)>,
    /// The expression, as Rust source.
    pub source: String,
}

/// A vector function `(f0, f1, …)(x0, x1, …)`: the build script emits its Jacobian, `J·v` and
/// `wᵀJ` kernels.
pub struct VectorCase {
    /// The kernels' common name prefix.
    pub name: &'static str,
    /// What the case exercises.
    pub what: &'static str,
    /// One sampling interval per variable `x0, x1, …`.
    pub domain: Vec<(f64, f64)>,
    /// One expression per component.
    pub rows: Vec<String>,
}

/// The scalar cases.
pub fn scalar_cases() -> Vec<Case> {
    vec![
        Case {
            name: "roots_and_powers",
            what: "sqrt, cbrt, powi with positive and negative exponents, powf with variable and \
                   constant exponents and a constant base",
            domain: vec![(0.5, 2.0), (0.5, 2.0)],
            source: "x0.sqrt() + x1.cbrt() * x0.powi(3) - x1.powi(-2) + x0.powi(-3) / x1 \
                     + x0.powf(x1) + x1.powf(2.5) + (2.0_f64).powf(x0) + f64::sqrt(x1)"
                .into(),
        },
        Case {
            name: "exponentials_and_logarithms",
            what: "exp, exp_m1, ln, ln_1p, log10, log2",
            domain: vec![(0.2, 3.0), (-0.5, 2.0)],
            source: "x0.exp() - x1.exp_m1() + x0.ln() * x1.ln_1p() + x0.log10() \
                     + (x0 + x1.exp()).log2()"
                .into(),
        },
        Case {
            name: "trigonometric",
            what: "sin, cos, tan, asin, acos, atan, atan2 (method and path forms)",
            domain: vec![(-0.9, 0.9), (0.2, 1.2)],
            source: "x0.sin() * x1.cos() + x1.tan() - x0.asin() + x0.acos() * x1.atan() \
                     + x0.atan2(x1) - f64::atan2(x1, x0 + 2.0)"
                .into(),
        },
        Case {
            name: "hyperbolic",
            what: "sinh, cosh, tanh, asinh, acosh, atanh",
            domain: vec![(-0.9, 0.9), (1.1, 3.0)],
            source: "x0.sinh() + x1.cosh() * x0.tanh() - x0.asinh() + x1.acosh() * x0.atanh()"
                .into(),
        },
        Case {
            name: "recip_abs_hypot",
            what: "recip, abs (derivative signum), hypot",
            domain: vec![(0.5, 2.0), (-2.0, 2.0)],
            source: "x0.recip() + x1.abs() * x0.hypot(x1) - f64::abs(x0 * x1) \
                     + f64::hypot(x1, 3.0)"
                .into(),
        },
        Case {
            name: "shared_subexpressions",
            what: "a product written three times, hash-consed to one node: CSE temporaries",
            domain: vec![(-1.5, 1.5), (-1.5, 1.5)],
            source: "(x0 * x1).sin() + (x0 * x1).cos() * (x0 * x1) + (x0 * x1).exp()".into(),
        },
        Case {
            name: "negative_constants",
            what: "negative literals in every operand position",
            domain: vec![(0.5, 2.0), (-2.0, 2.0)],
            source: "-2.5 * x0 + x1 / -4.0 - (-3.0) * x0 * x1 + x0 - (-1.5) \
                     + (x1 + (-0.25)).powi(2) - x0.powi(-1) * -0.5"
                .into(),
        },
        Case {
            name: "named_constants",
            what: "folded constants equal to TAU, FRAC_PI_2, E, SQRT_2, LN_2, LN_10",
            domain: vec![(0.5, 2.0), (-2.0, 2.0)],
            source:
                "(2.0 * core::f64::consts::PI * x0).sin() + x1 * (core::f64::consts::PI / 2.0) \
                     - (-std::f64::consts::E) * x0 + (2.0_f64).sqrt() * x1 + x0.log2() \
                     + x0.log10() - core::f64::consts::PI"
                    .into(),
        },
        Case {
            name: "deep_nesting",
            what: "24 nested calls, each around a sum and a product",
            domain: vec![(-1.0, 1.0), (-1.0, 1.0)],
            source: deep_nesting(24),
        },
        Case {
            name: "let_blocks",
            what: "nested blocks, shadowing and typed `let` bindings",
            domain: vec![(-1.0, 1.0), (-1.0, 1.0), (-1.0, 1.0)],
            source: "{ let a = x0 * x1; let b = { let a = a + 1.0; a * a }; \
                     let c: f64 = a.sin(); let a = c - b; a * x2 + b / (1.0 + x2.powi(2)) }"
                .into(),
        },
        Case {
            name: "unfoldable_constant_receivers",
            what: "constant receivers whose value is not finite, so they are kept symbolic",
            domain: vec![(-2.0, 2.0), (-2.0, 2.0)],
            source: "x0 * (0.0_f64).ln().exp() + x1 * (0.0_f64).recip().atan() \
                     + x0 / (1000.0_f64).exp() + x1 * (-0.5_f64).powi(-2000).recip() \
                     + x0.sin()"
                .into(),
        },
    ]
}

/// The vector cases.
pub fn vector_cases() -> Vec<VectorCase> {
    vec![VectorCase {
        name: "sparse_field",
        what: "four components of three variables with structural zeros and a shared product",
        domain: vec![(0.5, 1.5), (0.5, 1.5), (0.5, 1.5)],
        rows: vec![
            "x0 * x1".into(),
            "(x0 * x1).sin() + x2.powi(2)".into(),
            "x2.exp()".into(),
            "x1 / x2".into(),
        ],
    }]
}

/// `depth` nested calls cycling through bounded functions, so values stay moderate however deep:
/// `((x0 * x1 + 0.1).sin() * x1 + 0.2).tanh() …`.
fn deep_nesting(depth: usize) -> String {
    const FUNCTIONS: [&str; 4] = ["sin", "tanh", "cos", "atan"];
    let mut source = "x0".to_owned();
    for k in 0..depth {
        let f = FUNCTIONS[k % FUNCTIONS.len()];
        let c = 0.1 * (k + 1) as f64;
        source = format!("({source} * x1 + {c:?}).{f}()");
    }
    source
}
