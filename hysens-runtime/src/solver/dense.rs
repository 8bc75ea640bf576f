//! The owned dense output of [`super::Solution`] (feature `std`): the points of a solve with
//! `K` sensitivity columns (`NP`, or `NP + NY` with initial-state directions), read at any time
//! by [`crate::dense_output`] and returned with the chosen directions only, like a sample.
//!
//! `K` is not a parameter of `Solution`, so the points sit behind a trait object; equality
//! compares the points themselves, so two identical solves give equal solutions.

use std::any::Any;
use std::fmt;
use std::sync::Arc;
use std::vec::Vec;

use crate::dense::{dense_output, DenseError, DensePoint, Limit};
use crate::ModeInfo;

/// The solution at one time with the chosen directions' sensitivities (`dy[j]`, `dz[j]` for
/// direction `j`).
pub(super) struct DenseState<const NY: usize, const NZ: usize> {
    pub t: f64,
    pub mode: &'static str,
    pub y: [f64; NY],
    pub z: [f64; NZ],
    pub dy: Vec<[f64; NY]>,
    pub dz: Vec<[f64; NZ]>,
}

/// Points of some number of columns, read with the chosen ones.
trait Trajectory<const NY: usize, const NZ: usize>: Send + Sync {
    fn at(&self, t: f64, limit: Limit) -> Result<DenseState<NY, NZ>, DenseError>;
    fn as_any(&self) -> &dyn Any;
    /// Whether `other` holds the same points and columns.
    fn same_as(&self, other: &dyn Trajectory<NY, NZ>) -> bool;
}

/// The stored points and which of their `K` columns are the solution's directions.
struct Stored<const NY: usize, const NZ: usize, const K: usize> {
    points: Vec<DensePoint<NY, NZ, K>>,
    columns: Vec<usize>,
    modes: &'static [ModeInfo],
}

impl<const NY: usize, const NZ: usize, const K: usize> Trajectory<NY, NZ> for Stored<NY, NZ, K> {
    fn at(&self, t: f64, limit: Limit) -> Result<DenseState<NY, NZ>, DenseError> {
        let point = dense_output(&self.points, t, limit)?;
        let columns = &self.columns;
        Ok(DenseState {
            t: point.t,
            mode: self.modes.get(point.mode).map_or("", |m| m.name),
            y: point.y,
            z: point.z,
            dy: columns
                .iter()
                .map(|&j| point.sy.map(|row| row[j]))
                .collect(),
            dz: columns
                .iter()
                .map(|&j| point.sz.map(|row| row[j]))
                .collect(),
        })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn same_as(&self, other: &dyn Trajectory<NY, NZ>) -> bool {
        other
            .as_any()
            .downcast_ref::<Self>()
            .is_some_and(|o| o.points == self.points && o.columns == self.columns)
    }
}

/// A solve's dense output, if it kept one.
#[derive(Clone)]
pub(super) struct DenseOutput<const NY: usize, const NZ: usize>(
    Option<Arc<dyn Trajectory<NY, NZ>>>,
);

impl<const NY: usize, const NZ: usize> DenseOutput<NY, NZ> {
    /// No dense output (it was not requested).
    pub fn none() -> Self {
        DenseOutput(None)
    }

    /// The dense output of `points` with `K` columns, of which `columns` are the directions.
    pub fn new<const K: usize>(
        points: Vec<DensePoint<NY, NZ, K>>,
        columns: Vec<usize>,
        modes: &'static [ModeInfo],
    ) -> Self {
        let stored = Stored {
            points,
            columns,
            modes,
        };
        DenseOutput(Some(Arc::new(stored)))
    }

    /// The solution at `t` on the side `limit` of an event there.
    pub fn at(&self, t: f64, limit: Limit) -> Result<DenseState<NY, NZ>, DenseError> {
        match &self.0 {
            Some(trajectory) => trajectory.at(t, limit),
            None => Err(DenseError::NotRecorded),
        }
    }
}

impl<const NY: usize, const NZ: usize> PartialEq for DenseOutput<NY, NZ> {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => a.same_as(b.as_ref()),
            _ => false,
        }
    }
}

impl<const NY: usize, const NZ: usize> fmt::Debug for DenseOutput<NY, NZ> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(_) => f.write_str("DenseOutput(recorded)"),
            None => f.write_str("DenseOutput(none)"),
        }
    }
}
