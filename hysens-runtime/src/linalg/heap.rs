//! [`HeapMatrix`], the matrix of the [`crate::Heap`] storage (feature `std`): one heap
//! allocation of an `R × C` array, recycled.
//!
//! A solve creates and drops its `N × N` matrices step by step (the stage Jacobians of the
//! forward sensitivities and of the adjoint, `S` per step). Allocated afresh, an 8 MB matrix
//! is mapped by the allocator and faulted in page by page, and unmapped when dropped: measured
//! on the 1,000-state rod of `tests/thousand_states.rs`, that doubled the time of a solve with
//! forward sensitivities (as much system time as computing). A dropped matrix therefore goes
//! to a small per-thread list of free ones, and a new matrix of the same shape takes one from
//! there and zeroes it.

use core::any::Any;
use core::borrow::{Borrow, BorrowMut};
use core::cell::RefCell;
use core::fmt;
use core::ops::{Deref, DerefMut};
use std::boxed::Box;
use std::vec::Vec;

/// How many dropped matrices a thread keeps for reuse (a solve holds a few dozen at once at
/// most: `S` stage Jacobians, their factors, the step's).
const KEPT: usize = 32;

std::thread_local! {
    /// The dropped matrices of this thread, each a `Box<[[f64; C]; R]>` of its own shape.
    static FREE: RefCell<Vec<Box<dyn Any>>> = const { RefCell::new(Vec::new()) };
}

/// An `R × C` matrix in one heap allocation, read and written as `[[f64; C]; R]` (`Deref`),
/// whose allocation is reused when it is dropped (module docs).
pub struct HeapMatrix<const R: usize, const C: usize> {
    /// `None` only while it is dropped.
    rows: Option<Box<[[f64; C]; R]>>,
}

impl<const R: usize, const C: usize> HeapMatrix<R, C> {
    /// An all-zero matrix: a recycled allocation zeroed, or a new one built row by row (one
    /// row, `8 C` bytes, on the stack at a time; `Box::new` of the array would build it on the
    /// stack first in a debug build).
    pub(crate) fn zeros() -> Self {
        let recycled = FREE
            .try_with(|free| {
                let mut free = free.try_borrow_mut().ok()?;
                let at = free.iter().position(|m| m.is::<[[f64; C]; R]>())?;
                free.swap_remove(at).downcast::<[[f64; C]; R]>().ok()
            })
            .ok()
            .flatten();
        let rows = match recycled {
            Some(mut rows) => {
                rows.iter_mut().for_each(|row| *row = [0.0; C]);
                rows
            }
            None => match std::vec![[0.0; C]; R].into_boxed_slice().try_into() {
                Ok(rows) => rows,
                Err(_) => unreachable!("a vector of R rows has R rows"),
            },
        };
        HeapMatrix { rows: Some(rows) }
    }
}

impl<const R: usize, const C: usize> Drop for HeapMatrix<R, C> {
    fn drop(&mut self) {
        if let Some(rows) = self.rows.take() {
            // At thread exit the list may be gone; the allocation is then simply freed.
            let _ = FREE.try_with(|free| {
                if let Ok(mut free) = free.try_borrow_mut() {
                    if free.len() < KEPT {
                        free.push(rows);
                    }
                }
            });
        }
    }
}

impl<const R: usize, const C: usize> Deref for HeapMatrix<R, C> {
    type Target = [[f64; C]; R];

    #[inline(always)]
    fn deref(&self) -> &[[f64; C]; R] {
        match &self.rows {
            Some(rows) => rows,
            None => unreachable!("a matrix is only empty while it is dropped"),
        }
    }
}

impl<const R: usize, const C: usize> DerefMut for HeapMatrix<R, C> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [[f64; C]; R] {
        match &mut self.rows {
            Some(rows) => rows,
            None => unreachable!("a matrix is only empty while it is dropped"),
        }
    }
}

impl<const R: usize, const C: usize> Borrow<[[f64; C]; R]> for HeapMatrix<R, C> {
    #[inline(always)]
    fn borrow(&self) -> &[[f64; C]; R] {
        self
    }
}

impl<const R: usize, const C: usize> BorrowMut<[[f64; C]; R]> for HeapMatrix<R, C> {
    #[inline(always)]
    fn borrow_mut(&mut self) -> &mut [[f64; C]; R] {
        self
    }
}

impl<const R: usize, const C: usize> Clone for HeapMatrix<R, C> {
    fn clone(&self) -> Self {
        let mut copy = Self::zeros();
        copy.clone_from(self);
        copy
    }

    fn clone_from(&mut self, source: &Self) {
        **self = **source;
    }
}

impl<const R: usize, const C: usize> PartialEq for HeapMatrix<R, C> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<const R: usize, const C: usize> fmt::Debug for HeapMatrix<R, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recycled_matrix_is_zero_and_reused() {
        let mut a = HeapMatrix::<3, 2>::zeros();
        a[1][0] = 5.0;
        let address = a.as_ptr();
        drop(a);
        let b = HeapMatrix::<3, 2>::zeros();
        assert_eq!(*b, [[0.0; 2]; 3]);
        assert_eq!(b.as_ptr(), address, "the dropped allocation is reused");
        // Another shape does not take it.
        let c = HeapMatrix::<2, 3>::zeros();
        assert_eq!(*c, [[0.0; 3]; 2]);
        let mut d = b.clone();
        d[2][1] = 1.0;
        assert_ne!(*d, *b);
        d.clone_from(&b);
        assert_eq!(d, b);
    }
}
