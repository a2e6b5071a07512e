//! Test seams (cargo feature `test-seams`, enabled only by this crate's own
//! tests): places where a test can run code of its own, to make a rare
//! interleaving happen every time. Without a seam installed they do nothing, and
//! without the feature they do not exist.
//!
//! - [`set_after_parked_check`]: runs inside `Mutator::verify`, after the check
//!   for parked extents and before the heap walk (`collect/verify.rs`).
//! - [`set_collector_thread_start`]: runs on every thread the collector spawns,
//!   right after it applied its scheduling priority (`priority.rs`).
//!
//! The feature also turns on two hidden items outside this module:
//! `HeapConfig::fill_hook` (with the type `FillHook`), called by a concurrent
//! compaction's background worker around each page it claims, and
//! `Heap::peek_word`, a read of the moving space without a mutator.

use std::sync::Mutex;

/// A seam's callback.
type Seam = Box<dyn Fn() + Send + Sync>;

static AFTER_PARKED_CHECK: Mutex<Option<Seam>> = Mutex::new(None);

/// Installs (or with `None` removes) the callback run after the verifier's check
/// for parked extents, before its walk. Process-wide: a test that installs it
/// runs in a test binary of its own.
pub fn set_after_parked_check(f: Option<Seam>) {
    *AFTER_PARKED_CHECK.lock().unwrap_or_else(|e| e.into_inner()) = f;
}

pub(crate) fn after_parked_check() {
    if let Some(f) = AFTER_PARKED_CHECK
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
    {
        f();
    }
}

/// A collector thread's seam: called with the thread's kind (its name).
type ThreadSeam = Box<dyn Fn(&str) + Send + Sync>;

static COLLECTOR_THREAD_START: Mutex<Option<ThreadSeam>> = Mutex::new(None);

/// Installs (or with `None` removes) the callback that every thread the collector
/// spawns runs, on itself, right after applying
/// [`HeapConfig::gc_thread_priority`](crate::HeapConfig::gc_thread_priority). It
/// gets the thread's kind (`flipgc-driver`, `flipgc-mark`, ...). Process-wide.
pub fn set_collector_thread_start(f: Option<ThreadSeam>) {
    *COLLECTOR_THREAD_START
        .lock()
        .unwrap_or_else(|e| e.into_inner()) = f;
}

pub(crate) fn collector_thread_started(kind: &str) {
    if let Some(f) = COLLECTOR_THREAD_START
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
    {
        f(kind);
    }
}
