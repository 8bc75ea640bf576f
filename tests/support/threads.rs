//! Running a test's body on a thread with a stack of a chosen size (the no-heap core calls
//! never grow the stack; a test sizes the thread it calls them on).

/// Runs `f` on a thread with a stack of `bytes`, passing its panic on.
pub fn with_stack(bytes: usize, f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(bytes)
        .spawn(f)
        .expect("a thread")
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
}
