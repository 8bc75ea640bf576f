//! The counting allocator of every test that counts heap allocations: a global allocator that
//! forwards to the system allocator and counts each allocation (`alloc`, `alloc_zeroed`,
//! `realloc`) in two ways, each switched on only while a closure runs:
//!
//! - [`count`]: the allocations of **this thread**. A test binary with the test harness runs
//!   other tests on other threads at the same time, so an ordinary test counts only its own
//!   thread (`tests/zero_alloc.rs`, and the sliding solves of `tests/hybrid_sliding.rs`,
//!   `tests/model_sliding.rs`, `tests/model_sliding_events.rs`).
//! - [`count_all_threads`]: the allocations of **every thread**. Work spread over a thread pool
//!   (rayon's worker threads, `tests/batch_alloc.rs`) allocates on other threads than the one
//!   that asks; counted globally, nothing else may allocate meanwhile, so a binary that uses
//!   this count has no test harness (`harness = false`: its `main` alone).
//!
//! It installs a `#[global_allocator]`, which a test binary may have only once: so it is not a
//! module of `support/mod.rs` but declared by the binaries that count (`tests/suite.rs`, whose
//! tests count their own thread's, and `tests/batch_alloc.rs`), and no other.
//! The per-thread state is in `const` thread-locals without destructors, which need no
//! allocation themselves and stay usable while a thread is torn down.
#![allow(dead_code)] // each test binary uses one of the two counts

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

struct Counting;

thread_local! {
    /// Whether this thread's allocations are being counted ([`count`]).
    static COUNTING_THIS_THREAD: Cell<bool> = const { Cell::new(false) };
    /// This thread's allocations counted so far.
    static THIS_THREAD: Cell<usize> = const { Cell::new(0) };
}

/// Whether every thread's allocations are being counted ([`count_all_threads`]).
static COUNTING_ALL_THREADS: AtomicBool = AtomicBool::new(false);
/// The allocations of every thread counted so far.
static ALL_THREADS: AtomicUsize = AtomicUsize::new(0);

fn note() {
    if COUNTING_ALL_THREADS.load(Ordering::SeqCst) {
        ALL_THREADS.fetch_add(1, Ordering::SeqCst);
    }
    if COUNTING_THIS_THREAD.with(|c| c.get()) {
        THIS_THREAD.with(|n| n.set(n.get() + 1));
    }
}

// SAFETY: forwards every call unchanged to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` and returns the number of heap allocations this thread made meanwhile.
pub fn count<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = THIS_THREAD.with(|n| n.get());
    COUNTING_THIS_THREAD.with(|c| c.set(true));
    let r = f();
    COUNTING_THIS_THREAD.with(|c| c.set(false));
    (r, THIS_THREAD.with(|n| n.get()) - before)
}

/// Runs `f` and returns the number of heap allocations made meanwhile on every thread.
pub fn count_all_threads<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = ALL_THREADS.load(Ordering::SeqCst);
    COUNTING_ALL_THREADS.store(true, Ordering::SeqCst);
    let r = f();
    COUNTING_ALL_THREADS.store(false, Ordering::SeqCst);
    (r, ALL_THREADS.load(Ordering::SeqCst) - before)
}
