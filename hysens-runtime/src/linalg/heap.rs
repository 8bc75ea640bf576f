//! [`HeapMatrix`], the matrix of the [`crate::Heap`] storage (feature `std`): one heap
//! allocation of an `R × C` array, recycled, shared by its clones until one of them is written.
//!
//! A solve creates and drops its `N × N` matrices step by step (the stage Jacobians of the
//! forward sensitivities and of the adjoint, `S` per step). Allocated afresh, an 8 MB matrix
//! is mapped by the allocator and faulted in page by page, and unmapped when dropped: measured
//! on the 1,000-state rod of `tests/thousand_states.rs`, that doubled the time of a solve with
//! forward sensitivities (as much system time as computing). A dropped matrix therefore goes
//! to a small per-thread list of free ones, and a new matrix of the same shape takes one from
//! there and zeroes it.
//!
//! A clone shares the allocation (a reference count) and copies it only when one of the two is
//! written (`DerefMut`), so reading a matrix through a clone costs nothing: the forward
//! sensitivities of a mode with a constant Jacobian take that Jacobian for every step's stages
//! (`fsa/length.rs`), which was a zeroed recycled matrix plus an `8 N²`-byte copy per step,
//! measured 19% of a solve with sensitivities of the 1,000-state rod.

use core::any::Any;
use core::borrow::{Borrow, BorrowMut};
use core::cell::RefCell;
use core::fmt;
use core::ops::{Deref, DerefMut};
use std::boxed::Box;
use std::sync::Arc;
use std::vec::Vec;

/// How many dropped matrices a thread keeps for reuse (a solve holds a few dozen at once at
/// most: `S` stage Jacobians, their factors, the step's).
const KEPT: usize = 32;

std::thread_local! {
    /// The dropped matrices of this thread, each a `Box<[[f64; C]; R]>` of its own shape.
    static FREE: RefCell<Vec<Box<dyn Any>>> = const { RefCell::new(Vec::new()) };
}

/// An `R × C` matrix in one heap allocation, read and written as `[[f64; C]; R]` (`Deref`),
/// shared by its clones until written and reused when it is dropped (module docs).
pub struct HeapMatrix<const R: usize, const C: usize> {
    /// `None` only while it is dropped. The `Box` is the recycled allocation, the `Arc` the
    /// small count that its clones share: an `Arc<[[f64; C]; R]>` could be neither built
    /// without the array on the stack nor recycled.
    #[allow(clippy::redundant_allocation)]
    rows: Option<Arc<Box<[[f64; C]; R]>>>,
}

impl<const R: usize, const C: usize> HeapMatrix<R, C> {
    /// An all-zero matrix: a recycled allocation zeroed, or a new one built row by row (one
    /// row, `8 C` bytes, on the stack at a time; `Box::new` of the array would build it on the
    /// stack first in a debug build).
    pub(crate) fn zeros() -> Self {
        HeapMatrix {
            rows: Some(Arc::new(Self::zeroed_rows())),
        }
    }

    /// A zeroed allocation: a recycled one, or a new one (see [`HeapMatrix::zeros`]).
    fn zeroed_rows() -> Box<[[f64; C]; R]> {
        let recycled = FREE
            .try_with(|free| {
                let mut free = free.try_borrow_mut().ok()?;
                let at = free.iter().position(|m| m.is::<[[f64; C]; R]>())?;
                free.swap_remove(at).downcast::<[[f64; C]; R]>().ok()
            })
            .ok()
            .flatten();
        match recycled {
            Some(mut rows) => {
                rows.iter_mut().for_each(|row| *row = [0.0; C]);
                rows
            }
            None => match std::vec![[0.0; C]; R].into_boxed_slice().try_into() {
                Ok(rows) => rows,
                Err(_) => unreachable!("a vector of R rows has R rows"),
            },
        }
    }
}

impl<const R: usize, const C: usize> Drop for HeapMatrix<R, C> {
    fn drop(&mut self) {
        // Recycled only by the last of the clones sharing it.
        if let Some(rows) = self.rows.take().and_then(|rows| Arc::try_unwrap(rows).ok()) {
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
    // Out of line: a model's Jacobian kernel writes its entries one by one through `DerefMut`,
    // and this body (the check for a clone and its copy) inlined at each of the 3,000 writes
    // of the 1,000-state rod made the release build of its two models (heap, sparse) 9×
    // slower, 7 minutes; out of line they build in 38 s (46 s before matrices were shared).
    // The runtime's own loops take the rows once.
    #[inline(never)]
    fn deref_mut(&mut self) -> &mut [[f64; C]; R] {
        let Some(rows) = &mut self.rows else {
            unreachable!("a matrix is only empty while it is dropped")
        };
        if Arc::get_mut(rows).is_none() {
            unshare(rows);
        }
        match Arc::get_mut(rows) {
            Some(rows) => rows,
            None => unreachable!("a matrix just copied is not shared"),
        }
    }
}

/// Gives a matrix shared with a clone its own copy, before it is written (row by row: no
/// `R × C` temporary on the stack).
#[cold]
#[allow(clippy::redundant_allocation)] // see `HeapMatrix::rows`
fn unshare<const R: usize, const C: usize>(rows: &mut Arc<Box<[[f64; C]; R]>>) {
    let mut own = HeapMatrix::<R, C>::zeroed_rows();
    own.copy_from_slice(&rows[..]);
    *rows = Arc::new(own);
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
    /// Shares the allocation (module docs).
    fn clone(&self) -> Self {
        HeapMatrix {
            rows: self.rows.clone(),
        }
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
        assert_eq!(d.as_ptr(), b.as_ptr(), "a clone shares the allocation");
        d[2][1] = 1.0;
        assert_ne!(d.as_ptr(), b.as_ptr(), "written, it has its own");
        assert_eq!(*b, [[0.0; 2]; 3], "the original is unchanged");
        assert_eq!(d[2][1], 1.0);
        d.clone_from(&b); // d's own allocation goes to the free list
        assert_eq!(d, b);
        // The last of the clones sharing an allocation recycles it.
        let address = b.as_ptr();
        drop(b);
        drop(d);
        let (f, g) = (HeapMatrix::<3, 2>::zeros(), HeapMatrix::<3, 2>::zeros());
        assert!(f.as_ptr() == address || g.as_ptr() == address);
    }
}
