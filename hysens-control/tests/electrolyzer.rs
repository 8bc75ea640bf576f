//! The electrolyzer model of the `electrolyzer` example: its polarization curve, its index-1
//! property across the operating range, and the filter's and simulator's building blocks on
//! it against finite differences.

use hysens_control::ModeOf;

#[path = "../../examples/electrolyzer/model.rs"]
mod model;
use model::{electrolyzer, DISTURBANCES};

fn params(flow: f64) -> [f64; 3] {
    electrolyzer::Model::parameters(&DISTURBANCES, &electrolyzer::U { flow }).to_array()
}

#[test]
fn operating_points_are_consistent_and_index_one() {
    let plant = ModeOf::new(&electrolyzer::Model, 0);
    for temp in [40.0, 60.0, 75.0, 90.0] {
        let y = [temp, 45.0];
        let z = plant
            .consistent_algebraic(0.0, &y, &[1.9, 7000.0], &params(5.0), "test")
            .expect("consistent");
        let (voltage, current) = (z[0], z[1]);
        assert!(
            (140.0 * voltage * current - 2e6).abs() < 1e-6 * 2e6,
            "P = n_c U I"
        );
        assert!((1.6..2.2).contains(&voltage), "U = {voltage} at {temp} °C");
        let density = current / 2.6;
        println!("T = {temp} °C: U = {voltage:.4} V, I/A = {density:.0} A/m²");
        // det g_z = −n_c (U + I ∂U/∂I) ≠ 0 (notes on the seed, §4.5): ∂z/∂x exists.
        let dz = plant
            .algebraic_sensitivity(0.0, &y, &z, &params(5.0), "test")
            .expect("index 1");
        // Against central differences of the consistent solve in T (step 1e-4 °C; the
        // algebraic solve is converged to ~1e-12, so the difference is good to ~1e-7).
        let h = 1e-4;
        let at = |dt: f64| {
            plant
                .consistent_algebraic(0.0, &[temp + dt, 45.0], &z, &params(5.0), "test")
                .unwrap()
        };
        let (up, down) = (at(h), at(-h));
        for i in 0..2 {
            let fd = (up[i] - down[i]) / (2.0 * h);
            assert!(
                (dz[(i, 0)] - fd).abs() <= 1e-6 * fd.abs().max(1e-3),
                "∂z{i}/∂T"
            );
            assert_eq!(dz[(i, 1)], 0.0, "z does not depend on T_in");
        }
    }
}

#[test]
fn higher_temperature_lowers_the_cell_voltage() {
    let plant = ModeOf::new(&electrolyzer::Model, 0);
    let voltage = |temp: f64| {
        plant
            .consistent_algebraic(0.0, &[temp, 45.0], &[1.9, 7000.0], &params(5.0), "test")
            .unwrap()[0]
    };
    assert!(voltage(60.0) > voltage(75.0));
}
