//! A sampled solution cut at its events, for drawing: each piece between two events is a line
//! of its own (a jump at an event is not drawn as a slope), and in a phase plane the pieces of
//! one mode can be joined to the piece before them (the state is continuous there).

use hysens::prelude::*;

use crate::plot::split_at;

/// The sample times of a picture: `n` evenly spaced on `[0, t_end]` and the event times, in
/// order (a sample at an event is the state right after it: the pieces join there).
pub fn grid_with(t_end: f64, n: usize, events: &[f64]) -> Vec<f64> {
    let grid = (0..n).map(|k| t_end * k as f64 / (n - 1) as f64);
    let mut times: Vec<f64> = grid.chain(events.iter().copied()).collect();
    times.sort_by(f64::total_cmp);
    times
}

/// The sample indices of each piece between the events of `solution`.
pub fn pieces<X, const NY: usize, const NZ: usize, const NP: usize>(
    solution: &Solution<X, NY, NZ, NP>,
) -> Vec<Vec<usize>> {
    let events: Vec<f64> = solution.events.iter().map(|e| e.t).collect();
    let indexed = solution.samples.iter().enumerate();
    split_at(indexed.map(|(k, s)| (s.t, k as f64)), &events)
        .into_iter()
        .map(|piece| piece.into_iter().map(|(_, k)| k as usize).collect())
        .collect()
}

/// The pieces in `mode`, each starting from the last sample of the piece before it, as points
/// `point(sample)`.
pub fn joined_in_mode<X, const NY: usize, const NZ: usize>(
    samples: &[SampleState<X, NY, NZ>],
    pieces: &[Vec<usize>],
    mode: &str,
    point: impl Fn(&SampleState<X, NY, NZ>) -> (f64, f64),
) -> Vec<Vec<(f64, f64)>> {
    pieces
        .iter()
        .enumerate()
        .filter(|(_, piece)| piece.first().is_some_and(|&k| samples[k].mode == mode))
        .map(|(i, piece)| {
            let before = i.checked_sub(1).and_then(|j| pieces[j].last()).copied();
            let points = before.into_iter().chain(piece.iter().copied());
            points.map(|k| point(&samples[k])).collect()
        })
        .collect()
}

/// Every piece over time: the points `(t_k, value(k))` of its samples `k`.
pub fn over_time<X, const NY: usize, const NZ: usize>(
    samples: &[SampleState<X, NY, NZ>],
    pieces: &[Vec<usize>],
    value: impl Fn(usize) -> f64,
) -> Vec<Vec<(f64, f64)>> {
    pieces
        .iter()
        .map(|piece| piece.iter().map(|&k| (samples[k].t, value(k))).collect())
        .collect()
}
