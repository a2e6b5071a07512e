//! [`StressError`]: why a stress workload failed — the collector refused something,
//! the parameters were unusable, a result was wrong, or a worker thread panicked.

use flipgc_core::GcError;

/// Why a workload failed.
#[derive(Debug)]
pub enum StressError {
    /// The collector returned an error (out of memory, bad configuration, ...).
    Gc(GcError),
    /// The parameters cannot be run (e.g. a minimum depth above the maximum).
    Params(String),
    /// A result was wrong: a checksum or check value differed from the expected one.
    Check(String),
    /// A worker thread panicked; the payload's message.
    Panic(String),
}

impl std::fmt::Display for StressError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StressError::Gc(e) => write!(f, "collector error: {e}"),
            StressError::Params(m) => write!(f, "bad parameters: {m}"),
            StressError::Check(m) => write!(f, "wrong result: {m}"),
            StressError::Panic(m) => write!(f, "a worker thread panicked: {m}"),
        }
    }
}

impl std::error::Error for StressError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StressError::Gc(e) => Some(e),
            _ => None,
        }
    }
}

impl From<GcError> for StressError {
    fn from(e: GcError) -> Self {
        StressError::Gc(e)
    }
}

impl StressError {
    /// A [`StressError::Panic`] from a thread's panic payload.
    pub fn from_panic(payload: Box<dyn std::any::Any + Send>) -> StressError {
        let msg = if let Some(s) = payload.downcast_ref::<String>() {
            s.clone()
        } else if let Some(s) = payload.downcast_ref::<&str>() {
            (*s).to_string()
        } else {
            "non-string panic payload".to_string()
        };
        StressError::Panic(msg)
    }
}
