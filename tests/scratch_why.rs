use hysens::hybrid_model;
use hysens::prelude::*;

#[hybrid_model]
pub mod ball {
    #[states]
    pub struct X {
        pub h: f64,
        pub v: f64,
    }
    #[params]
    pub struct P {
        pub g: f64,
        pub e: f64,
    }
    #[mode(initial)]
    fn flight(x: &X, p: &P) -> X {
        X { h: x.v, v: -p.g }
    }
    #[guard(flight -> flight, falling)]
    fn impact(x: &X) -> f64 {
        x.h
    }
    #[reset(impact)]
    fn bounce(x: &X, p: &P) -> X {
        X {
            h: x.h,
            v: -p.e * x.v,
        }
    }
}

#[hybrid_model]
pub mod thermo {
    #[states]
    pub struct X {
        pub temp: f64,
    }
    #[params]
    pub struct P {
        pub t_lo: f64,
        pub t_hi: f64,
    }
    #[mode(initial)]
    fn heating(x: &X) -> X {
        X {
            temp: 400.0 - x.temp,
        }
    }
    #[mode]
    fn off(x: &X) -> X {
        X {
            temp: 250.0 - x.temp,
        }
    }
    #[guard(heating -> off, rising)]
    fn hot(x: &X, p: &P) -> f64 {
        x.temp - p.t_hi
    }
    #[guard(off -> heating, falling)]
    fn cold(x: &X, p: &P) -> f64 {
        x.temp - p.t_lo
    }
}

#[hybrid_model]
pub mod drift {
    #[states]
    pub struct X {
        pub x: f64,
    }
    #[params]
    pub struct P {
        pub c: f64,
    }
    #[mode(initial)]
    fn left(_x: &X) -> X {
        X { x: 1.0 }
    }
    #[mode(initial_if(s, positive))]
    fn right(_x: &X) -> X {
        X { x: 2.0 }
    }
    #[switching_surface(left, right)]
    fn s(x: &X, p: &P) -> f64 {
        x.x - p.c
    }
}

#[test]
fn why() {
    let r = ball::Model.solver().solve(
        0.0,
        3.0,
        &ball::X { h: 1.0, v: 0.0 },
        &ball::P { g: 9.81, e: 0.0 },
    );
    match r {
        Ok(s) => println!("ball e=0: Ok h={} events={}", s.x.h, s.events.len()),
        Err(e) => println!("ball e=0: {e}"),
    }
    let r = ball::Model.solver().solve(
        0.0,
        2.0,
        &ball::X { h: 0.0, v: 0.0 },
        &ball::P { g: 9.81, e: 1.0 },
    );
    match r {
        Ok(s) => println!("ball at rest: Ok h={} events={}", s.x.h, s.events.len()),
        Err(e) => println!("ball rest: {e}"),
    }
    let r = thermo::Model.solver().solve(
        0.0,
        3.0,
        &thermo::X { temp: 290.0 },
        &thermo::P {
            t_lo: 300.0,
            t_hi: 300.0,
        },
    );
    match r {
        Ok(s) => println!("thermo equal: Ok T={} events={}", s.x.temp, s.events.len()),
        Err(e) => println!("thermo: {e}"),
    }
    for rtol in [1e-3, 0.5] {
        let r = thermo::Model.solver().tolerances(rtol, 1e-8).solve(
            0.0,
            3.0,
            &thermo::X { temp: 299.8 },
            &thermo::P {
                t_lo: 290.0,
                t_hi: 300.0,
            },
        );
        match r {
            Ok(s) => println!(
                "thermo near rtol {rtol}: first event {:?}",
                s.events.first().map(|e| e.t)
            ),
            Err(e) => println!("thermo near: {e}"),
        }
    }
    for rtol in [1e-8, 1e-10, 1e-12] {
        let r = drift::Model.solver().tolerances(rtol, rtol * 1e-2).solve(
            0.0,
            3.0,
            &drift::X { x: 0.0 },
            &drift::P { c: 1.0 },
        );
        match r {
            Ok(s) => println!(
                "drift rtol {rtol}: Ok x={} events={:?}",
                s.x.x,
                s.events
                    .iter()
                    .map(|e| (e.t, e.from, e.to))
                    .collect::<Vec<_>>()
            ),
            Err(e) => println!("drift rtol {rtol}: {e}"),
        }
    }
}

#[hybrid_model]
pub mod osc {
    #[states]
    pub struct X {
        pub x: f64,
        pub v: f64,
        pub n: f64,
    }
    #[params]
    pub struct P {
        pub w: f64,
        pub c: f64,
    }
    #[mode(initial)]
    fn swing(x: &X, p: &P) -> X {
        X {
            x: x.v,
            v: -p.w * p.w * x.x,
            n: 0.0,
        }
    }
    #[guard(swing -> swing, either)]
    fn level(x: &X, p: &P) -> f64 {
        x.x - p.c
    }
    #[reset(level)]
    fn count(x: &X) -> X {
        X {
            x: x.x,
            v: x.v,
            n: x.n + 1.0,
        }
    }
}

#[test]
fn osc_steps() {
    use hysens::runtime::*;
    let w = 2.0 * std::f64::consts::PI;
    let problem = HybridProblem {
        t0: 0.0,
        tf: 3.2,
        y0: [1.0, 0.0, 0.0],
        z0: [],
        p: [w, 0.99],
        sensitivities: None,
        sample_times: &[],
        sample_data: &[],
    };
    let mut steps = vec![LoggedStep::ZERO; 1000];
    let mut events = [EventRecord::ZERO; 20];
    let mut out = HybridOutputs {
        samples: &mut [],
        events: Some(&mut events),
        steps: Some(&mut steps),
    };
    let mut sol = HybridSolution::ZERO;
    let r = solve(
        &osc::Model,
        &ESDIRK34,
        &problem,
        &HybridOptions::new(1e-3, 1e-5),
        StepPlan::Adaptive,
        &mut out,
        &mut sol,
    );
    println!("{r:?} events {}", sol.n_events);
    let mut t = 0.0;
    for s in &steps[..sol.n_logged_steps] {
        println!(
            "t {t:.4} h {:.4} {:?} x {:.5}",
            s.h,
            s.kind,
            (w * (t + s.h)).cos()
        );
        t += s.h;
    }
}

#[test]
fn zeno_debug() {
    use hysens::runtime::*;
    let problem = HybridProblem {
        t0: 0.0,
        tf: 3.0,
        y0: [1.0, 0.0],
        z0: [],
        p: [9.81, 0.5],
        sensitivities: None,
        sample_times: &[],
        sample_data: &[],
    };
    let mut events = [EventRecord::ZERO; 200];
    let mut out = HybridOutputs {
        samples: &mut [],
        events: Some(&mut events),
        steps: None,
    };
    let mut sol = HybridSolution::ZERO;
    let r = solve(
        &ball::Model,
        &ESDIRK436L2SA,
        &problem,
        &HybridOptions::new(1e-3, 1e-5),
        StepPlan::Adaptive,
        &mut out,
        &mut sol,
    );
    println!("{r:?} events {}", sol.n_events);
    for e in &events[..sol.n_events] {
        println!("{:.17}", e.t);
    }
    println!("y {:?}", sol.y);
}
