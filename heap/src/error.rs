//! The heap layer's one error type. Every OS failure keeps its errno and says what
//! was attempted, at which address, with which sizes.

use std::io;

/// An error from the heap layer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HeapError {
    /// A system call failed.
    #[error("{op} failed (addr {addr:#x}, len {len} bytes): {source}")]
    Os {
        /// What was attempted (`"mmap reserve"`, `"mremap"`, ...).
        op: &'static str,
        /// The address involved (0 when the kernel was to choose).
        addr: usize,
        /// The length involved, in bytes.
        len: usize,
        /// The OS error, with its errno.
        #[source]
        source: io::Error,
    },
    /// An argument was out of range, misaligned or otherwise unusable.
    #[error("invalid {what}: {detail}")]
    Invalid {
        /// Which argument.
        what: &'static str,
        /// Why it was refused, with the values involved.
        detail: String,
    },
    /// A requested range overlaps a range already committed in the same reservation.
    #[error("range {offset:#x}+{len:#x} overlaps committed span {other_offset:#x}+{other_len:#x}")]
    Overlap {
        /// Offset of the requested range inside the reservation.
        offset: usize,
        /// Length of the requested range.
        len: usize,
        /// Offset of the span it collides with.
        other_offset: usize,
        /// Length of the span it collides with.
        other_len: usize,
    },
    /// The operation needs a kernel feature this host lacks.
    #[error("{0} is not supported on this host")]
    Unsupported(&'static str),
}

impl HeapError {
    /// The OS errno, if this error came from a system call.
    pub fn errno(&self) -> Option<i32> {
        match self {
            HeapError::Os { source, .. } => source.raw_os_error(),
            _ => None,
        }
    }

    /// An [`HeapError::Os`] from an `io::Error` or a nix [`crate::sys::Errno`].
    pub(crate) fn os(
        op: &'static str,
        addr: usize,
        len: usize,
        source: impl Into<io::Error>,
    ) -> Self {
        HeapError::Os {
            op,
            addr,
            len,
            source: source.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::Errno;

    #[test]
    fn os_errors_keep_errno_and_context() {
        let e = HeapError::os("mremap", 0x4000, 8192, Errno::EINVAL);
        assert_eq!(e.errno(), Some(Errno::EINVAL as i32));
        assert!(
            e.to_string().contains("Invalid argument (os error 22)"),
            "{e}"
        );
        let msg = e.to_string();
        assert!(
            msg.contains("mremap") && msg.contains("0x4000") && msg.contains("8192"),
            "{msg}"
        );
        assert_eq!(HeapError::Unsupported("x").errno(), None);
    }
}
