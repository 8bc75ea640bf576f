//! `Model::mode_name` and `Model::guard_name`: the names of modes and guards as written in the
//! model, in the runtime's numbering, and `None` out of range.
#![deny(missing_docs)]

use hysens::hybrid_model;
use hysens::runtime::HybridModel;

/// A thermostat: heating and cooling, with a switch each way.
#[hybrid_model]
pub mod thermostat {
    /// The temperature.
    #[states]
    pub struct X {
        /// Temperature.
        pub temperature: f64,
    }

    /// The set points.
    #[params]
    pub struct P {
        /// Switch off above this.
        pub high: f64,
        /// Switch on below this.
        pub low: f64,
    }

    #[mode(initial)]
    fn heating(x: &X) -> X {
        X {
            temperature: 30.0 - x.temperature,
        }
    }

    #[mode]
    fn cooling(x: &X) -> X {
        X {
            temperature: -x.temperature,
        }
    }

    #[guard(heating -> cooling, rising)]
    fn too_warm(x: &X, p: &P) -> f64 {
        x.temperature - p.high
    }

    #[guard(cooling -> heating, falling)]
    fn too_cold(x: &X, p: &P) -> f64 {
        x.temperature - p.low
    }
}

use thermostat::Model;

#[test]
fn mode_names_in_declaration_order() {
    assert_eq!(Model::mode_name(0), Some("heating"));
    assert_eq!(Model::mode_name(1), Some("cooling"));
    assert_eq!(Model::mode_name(2), None);
    assert_eq!(Model::mode_name(usize::MAX), None);
}

#[test]
fn guard_names_in_declaration_order() {
    assert_eq!(Model::guard_name(0), Some("too_warm"));
    assert_eq!(Model::guard_name(1), Some("too_cold"));
    assert_eq!(Model::guard_name(2), None);
}

#[test]
fn names_agree_with_the_runtime_tables() {
    let modes = <Model as HybridModel<1, 0, 2>>::MODES;
    for (i, mode) in modes.iter().enumerate() {
        assert_eq!(Model::mode_name(i), Some(mode.name));
    }
    let guards = <Model as HybridModel<1, 0, 2>>::GUARDS;
    for (i, guard) in guards.iter().enumerate() {
        assert_eq!(Model::guard_name(i), Some(guard.name));
    }
}
