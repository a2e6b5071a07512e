//! The collector's one error type: [`GcError`], a boxed [`GcErrorKind`].
//!
//! The box keeps a `GcError` one pointer wide, so the `Result`s of the allocation
//! fast paths (`Result<(), GcError>`, `Result<usize, GcError>`) are returned in
//! registers instead of through memory: a mutator's allocation path, and every
//! function of a runtime that passes its errors up with `?`, pay one register test
//! per call for them. Errors are rare; the box is made only on the error path.

use flipgc_flip::FlipError;
use flipgc_heap::HeapError;

/// An error from the collector: what happened is its [`GcError::kind`].
///
/// ```
/// # use flipgc_core::{GcError, GcErrorKind};
/// let e = GcError::from(GcErrorKind::Config("no".into()));
/// assert!(matches!(e.kind(), GcErrorKind::Config(_)));
/// assert_eq!(e.to_string(), "invalid heap configuration: no");
/// ```
pub struct GcError(Box<GcErrorKind>);

/// What a [`GcError`] reports.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GcErrorKind {
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
    /// The host cannot give what the configuration requires
    /// ([`HeapConfig::require`](crate::HeapConfig::require)): the text says what is
    /// missing, why, and how to get it.
    #[error("unsupported on this host: {0}")]
    Unsupported(String),
    /// The OS layer failed.
    #[error(transparent)]
    Heap(HeapError),
    /// The flip engine failed (not an mremap failure: those fall back to copying).
    #[error(transparent)]
    Flip(FlipError),
}

impl GcError {
    /// What happened.
    pub fn kind(&self) -> &GcErrorKind {
        &self.0
    }

    /// What happened, by value.
    pub fn into_kind(self) -> GcErrorKind {
        *self.0
    }

    /// A [`GcErrorKind::Config`] error.
    #[cold]
    pub(crate) fn config(msg: String) -> GcError {
        GcErrorKind::Config(msg).into()
    }

    /// A [`GcErrorKind::Type`] error.
    #[cold]
    pub(crate) fn type_error(msg: String) -> GcError {
        GcErrorKind::Type(msg).into()
    }
}

impl From<GcErrorKind> for GcError {
    #[cold]
    fn from(kind: GcErrorKind) -> GcError {
        GcError(Box::new(kind))
    }
}

impl From<HeapError> for GcError {
    #[cold]
    fn from(e: HeapError) -> GcError {
        GcErrorKind::Heap(e).into()
    }
}

impl From<FlipError> for GcError {
    #[cold]
    fn from(e: FlipError) -> GcError {
        GcErrorKind::Flip(e).into()
    }
}

impl std::fmt::Debug for GcError {
    /// As the kind's.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0, f)
    }
}

impl std::fmt::Display for GcError {
    /// As the kind's.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for GcError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_of_it_is_two_words_at_most() {
        assert_eq!(std::mem::size_of::<GcError>(), 8);
        assert_eq!(std::mem::size_of::<Result<(), GcError>>(), 8);
        assert_eq!(std::mem::size_of::<Result<usize, GcError>>(), 16);
    }

    #[test]
    fn it_displays_and_matches_as_its_kind() {
        let e = GcError::from(GcErrorKind::OutOfMemory {
            requested: 16,
            capacity: 64,
            live: 60,
        });
        assert_eq!(
            e.to_string(),
            "out of memory: 16 bytes requested, 60 of 64 bytes live after a full collection"
        );
        assert!(format!("{e:?}").starts_with("OutOfMemory"));
        assert!(matches!(
            e.into_kind(),
            GcErrorKind::OutOfMemory { requested: 16, .. }
        ));
    }
}
