//! The synchronisation primitives of the protocols that have concurrency models
//! (`collect/page_state.rs`, `safepoint.rs`). Those files name their locks and
//! atomics through this module only, so the model tests (`tests/models.rs`) can
//! compile the same source files against a model checker's versions instead.

pub use parking_lot::{Condvar, Mutex, MutexGuard};
pub use std::sync::atomic;

/// Gives up the CPU for a moment (the handshake's polling before it sleeps).
pub use std::thread::yield_now;

/// How many times a side of the safepoint handshake polls, yielding between looks,
/// before it sleeps on the condition variable (`safepoint.rs`).
pub const HANDSHAKE_POLLS: u32 = 200;
