//! [`VmError`]: every way a program can fail (syntax, runtime, out of memory).

use std::fmt;

/// What kind of failure a [`VmError`] is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The reader or compiler refused the source, at `line`:`col` (1-based).
    Syntax {
        /// Line, from 1.
        line: u32,
        /// Column, from 1.
        col: u32,
    },
    /// The program failed while running (wrong type, arity, unbound variable...).
    Runtime,
    /// Recursion deeper than the VM allows.
    StackOverflow,
    /// The heap could not satisfy an allocation even after a full collection.
    OutOfMemory,
    /// The heap or the host failed (binding a mutator, spawning a thread, I/O).
    Host,
    /// The program made more procedure calls than its step budget allows (see
    /// [`crate::Session::set_max_steps`]).
    StepLimit,
    /// The program called `exit`: the status to exit with (the low 8 bits of an
    /// integer argument, as the operating system keeps them; 0 for `#t` or no
    /// argument, 1 for `#f` or any other value).
    Exit(u8),
}

/// An error from reading, compiling or running a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VmError {
    /// The kind.
    pub kind: ErrorKind,
    /// The message (without location).
    pub message: String,
    /// The source name for syntax errors (a file name, or e.g. `<repl>`).
    pub source: String,
}

impl VmError {
    /// A runtime error.
    pub fn runtime(message: impl Into<String>) -> VmError {
        VmError {
            kind: ErrorKind::Runtime,
            message: message.into(),
            source: String::new(),
        }
    }

    /// A syntax error at `line`:`col`.
    pub fn syntax(line: u32, col: u32, message: impl Into<String>) -> VmError {
        VmError {
            kind: ErrorKind::Syntax { line, col },
            message: message.into(),
            source: String::new(),
        }
    }

    /// An error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> VmError {
        VmError {
            kind,
            message: message.into(),
            source: String::new(),
        }
    }

    /// Whether the reader stopped at the end of input inside an unfinished datum
    /// (the REPL then reads another line).
    pub fn is_incomplete(&self) -> bool {
        matches!(self.kind, ErrorKind::Syntax { .. }) && self.message.starts_with("unexpected end")
    }
}

impl From<flipgc_core::GcError> for VmError {
    fn from(e: flipgc_core::GcError) -> VmError {
        match e.kind() {
            flipgc_core::GcErrorKind::OutOfMemory {
                requested,
                capacity,
                live,
            } => VmError::new(
                ErrorKind::OutOfMemory,
                format!("{requested} bytes requested, {live} of {capacity} bytes live after a full collection"),
            ),
            _ => VmError::new(ErrorKind::Host, e.to_string()),
        }
    }
}

impl fmt::Display for VmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::Syntax { line, col } => {
                let src = if self.source.is_empty() {
                    "<input>"
                } else {
                    &self.source
                };
                write!(f, "{src}:{line}:{col}: syntax error: {}", self.message)
            }
            ErrorKind::Runtime => write!(f, "runtime error: {}", self.message),
            ErrorKind::StackOverflow => write!(f, "stack overflow: {}", self.message),
            ErrorKind::OutOfMemory => write!(f, "out of memory: {}", self.message),
            ErrorKind::Host => write!(f, "error: {}", self.message),
            ErrorKind::StepLimit => write!(f, "step limit exceeded: {}", self.message),
            ErrorKind::Exit(code) => write!(f, "exit with status {code}"),
        }
    }
}

impl std::error::Error for VmError {}
