//! The collector's one error type.

use flipgc_flip::FlipError;
use flipgc_heap::HeapError;

/// An error from the collector.
#[derive(Debug, thiserror::Error)]
pub enum GcError {
    /// An allocation could not be satisfied even after a full collection. The heap
    /// is still usable: drop roots and try again.
    #[error("out of memory: {requested} bytes requested, {live} of {capacity} bytes live after a full collection")]
    OutOfMemory {
        /// Bytes the allocation asked for.
        requested: usize,
        /// The space's capacity in bytes.
        capacity: usize,
        /// Bytes live after the collection.
        live: usize,
    },
    /// The heap configuration was refused.
    #[error("invalid heap configuration: {0}")]
    Config(String),
    /// A type registration or type use was refused.
    #[error("type error: {0}")]
    Type(String),
    /// The OS layer failed.
    #[error(transparent)]
    Heap(#[from] HeapError),
    /// The flip engine failed (not an mremap failure: those fall back to copying).
    #[error(transparent)]
    Flip(#[from] FlipError),
}
