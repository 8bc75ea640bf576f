//! Reference values of P4 (stiff Van der Pol, unscaled, mu = 1000, y(0) = (2, 0)).
//!
//! Source: bench/reference/vdp_fsa.py (scipy 1.17.1): Radau IIA on the augmented system
//! [y1, y2, dy1/dmu, dy2/dmu] with its exact Jacobian, rtol 1e-12, atol 1e-18 x component scale.
//! Agreement of the independent checks (max relative difference over the four components):
//!
//! | t    | LSODA rtol 1e-12 | Radau rtol 1e-11 | central differences (states, rtol 1e-13) |
//! |------|------------------|------------------|------------------------------------------|
//! | 500  | 4.9e-11          | 3.8e-13          | 5.9e-10                                  |
//! | 2000 | 6.5e-6           | 1.8e-7           | 7.5e-8                                   |
//!
//! At t = 2000 the sensitivities have gone through two fast transitions, which amplify local
//! errors: the reference is good to about 1e-7 there (states to 1e-12). For scale, scipy at the
//! benchmark tolerances (rtol 1e-6, atol 1e-8 on all four components) has a relative error in
//! dy1/dmu(2000) of 6e-3 (Radau), 0.36 (BDF) and 0.53 (LSODA).

pub const SOURCE: &str =
    "P4: scipy Radau rtol 1e-12 on the augmented system, bench/reference/vdp_fsa.py (good to ~1e-7 at t = 2000, ~1e-10 at t = 500)";
/// [y1, y2, dy1/dmu, dy2/dmu] at t = 500.
pub const T500: [f64; 4] = [
    1.59676895105267302e+00,
    -1.03039118783934398e-03,
    5.15194480731659735e-04,
    1.79190396646547969e-06,
];
/// [y1, y2, dy1/dmu, dy2/dmu] at t = 2000.
pub const T2000: [f64; 4] = [
    1.70616773217044737e+00,
    -8.92809701024835888e-04,
    1.78479375784791313e-03,
    2.80420378884501866e-06,
];
