//! The synchronisation primitives of the protocols that have concurrency models
//! (`collect/page_state.rs`, `safepoint.rs`). Those files name their locks and
//! atomics through this module only, so the model tests (`tests/models.rs`) can
//! compile the same source files against a model checker's versions instead.

pub use parking_lot::{Condvar, Mutex, MutexGuard};
pub use std::sync::atomic;
