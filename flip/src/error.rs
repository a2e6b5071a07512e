//! The flip engine's one error type: bad flip requests (refused before anything is
//! touched) and heap-layer failures (errno kept).

use flipgc_heap::HeapError;

/// An error from planning or performing a flip.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FlipError {
    /// A flip of zero bytes was requested.
    #[error("flip length is zero")]
    ZeroLength,
    /// An address or length is not a multiple of the page size.
    #[error("{what} {value:#x} is not aligned to the {page}-byte page")]
    Unaligned {
        /// `"source address"`, `"destination address"` or `"length"`.
        what: &'static str,
        /// The offending value.
        value: usize,
        /// The page size it must be a multiple of.
        page: usize,
    },
    /// Source and destination ranges overlap.
    #[error("source {src:#x} and destination {dst:#x} overlap ({len:#x} bytes each)")]
    Overlap {
        /// Source address.
        src: usize,
        /// Destination address.
        dst: usize,
        /// Length of each range.
        len: usize,
    },
    /// A range runs past the end of the address space.
    #[error("{what} range {addr:#x}+{len:#x} overflows the address space")]
    Overflow {
        /// `"source"` or `"destination"`.
        what: &'static str,
        /// Start of the range.
        addr: usize,
        /// Its length.
        len: usize,
    },
    /// Source and destination spans differ in length.
    #[error("source span is {src_len} bytes but destination span is {dst_len}")]
    LengthMismatch {
        /// Source length.
        src_len: usize,
        /// Destination length.
        dst_len: usize,
    },
    /// The flip configuration is unusable.
    #[error("invalid flip configuration: {0}")]
    Config(String),
    /// The heap layer failed (the copy path itself, or restoring a span).
    #[error(transparent)]
    Heap(#[from] HeapError),
}
