//! The NLP of NMPC across switches: on the tank that overflows a weir (`examples/tank_nmpc`),
//! shooting intervals that cross the crest rising and falling, the NLP's derivatives — the
//! runtime's sensitivities carried through the events — against central differences.

#[path = "../../examples/tank_nmpc/model.rs"]
mod model;
use hysens_control::{Formulation, Hessian, Nmpc, NmpcSettings, OcpData, OcpWeights};
use model::tank;
use nalgebra::DVector;

#[path = "support/derivatives.rs"]
mod derivatives;
use derivatives::largest_difference;

#[test]
fn nlp_derivatives_through_events_match_central_differences() {
    let settings = NmpcSettings {
        sample_time: 2.0,
        horizon: 4,
        steps_per_interval: 5,
        quadrature_intervals: 4,
        weights: OcpWeights {
            q_z: 100.0,
            q_du: 1.0,
        },
        input_bounds: vec![(0.0, 0.2)],
        hessian: Hessian::GaussNewton,
        max_iterations: 30,
        tolerance: 1e-8,
        newton_tolerances: (1e-10, 1e-10),
        formulation: Formulation::Consistent,
    };
    let controller = Nmpc::new(&tank::Model, &["inflow"], "level", settings).unwrap();
    let setpoint = |_: f64| 1.01;
    let data = OcpData {
        t: 0.0,
        x_hat: [0.98],
        z_hat: [],
        p: [0.1],
        u_previous: vec![0.1],
        setpoint: &setpoint,
    };
    // (x_j, u_j): rising through the crest, falling through it, rising, staying above; x_4.
    let w = DVector::from_row_slice(&[0.98, 0.15, 1.03, 0.0, 0.97, 0.12, 1.05, 0.2, 1.02]);
    let nlp = &controller.nlp;
    let point = nlp
        .evaluate::<1, 0, 1, 1, 2, 1, 2>(&data, &w, &[[]; 4])
        .unwrap();
    // Each interval's end against the crest: the first three cross it.
    for j in 0..3 {
        let (x, _, _) = nlp.split(&w, j);
        let end = w[(j + 1) * 2] - point.constraints[j + 1];
        assert!(
            (x[0] - 1.0) * (end - 1.0) < 0.0,
            "interval {j} crosses the crest"
        );
    }
    // Central differences with step 1e-6: the NLP is smooth in w while no event meets a
    // quadrature node (truncation ~1e-12 relative, round-off of the rtol 1e-12 steps and of the
    // event location ~1e-10/1e-6).
    let worst = largest_difference(
        |v| {
            nlp.evaluate::<1, 0, 1, 1, 2, 1, 2>(&data, v, &[[]; 4])
                .unwrap()
        },
        &w,
        |_| 1e-6,
    );
    println!("largest relative difference from central differences: {worst:.2e}");
    assert!(worst < 1e-6, "{worst}");
}
