//! The heap types of ports, the end-of-file object, error objects and
//! bytevectors ([`IoTypes`], part of [`super::VmTypes`]).
//!
//! A port (`scm-port`) holds its buffer in the heap: field 0 refers to a
//! bytevector (`scm-bytevector`, a byte array) that the collector moves and
//! traces like any other reference, word 1 holds the port's flags
//! (`crate::builtins::ports`), word 2 a byte position (an input port's read
//! position in the buffer, or an output port's fill level), word 3 the index
//! of the host resource (an open file) in the program's file table, if any.
//! The end-of-file object is the one object of type `scm-eof`. An error object
//! (`scm-condition`) holds its message (field 0), its irritants (field 1,
//! a list) and its kind (word 2: `error`, file error, read error).

use flipgc_core::{FixedType, GcError, RefField, TypeId, TypeRegistry, WordField};

/// Types and descriptors of ports, `#<eof>`, error objects and bytevectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoTypes {
    /// A port: buffer (field 0), flags (word 1), position (word 2), host
    /// index (word 3).
    pub port: TypeId,
    /// Ports' allocation descriptor.
    pub port_alloc: FixedType,
    /// A port's buffer (a bytevector, or `()` while it has none).
    pub port_buf: RefField,
    /// A port's flags.
    pub port_flags: WordField,
    /// A port's position: read position (input) or fill level (output), in
    /// bytes of its buffer.
    pub port_pos: WordField,
    /// A port's index in the file table (file ports only).
    pub port_host: WordField,
    /// The end-of-file object's type (one unused word).
    pub eof: TypeId,
    /// Its allocation descriptor.
    pub eof_alloc: FixedType,
    /// An error object: message (field 0), irritants (field 1), kind (word 2).
    pub condition: TypeId,
    /// Its allocation descriptor.
    pub condition_alloc: FixedType,
    /// An error object's message (a string, or any object raised by the VM).
    pub cond_message: RefField,
    /// An error object's irritants (a list).
    pub cond_irritants: RefField,
    /// An error object's kind (`crate::builtins::exceptions`).
    pub cond_kind: WordField,
    /// A bytevector: bytes.
    pub bytevector: TypeId,
}

/// Registers the port, end-of-file, error-object and bytevector types.
pub fn register(types: &mut TypeRegistry) -> Result<IoTypes, GcError> {
    let port = types.fixed("scm-port", 4, &[0])?;
    let eof = types.fixed("scm-eof", 1, &[])?;
    let condition = types.fixed("scm-condition", 3, &[0, 1])?;
    let bytevector = types.byte_array("scm-bytevector")?;
    Ok(IoTypes {
        port,
        port_alloc: types.fixed_type(port)?,
        port_buf: types.ref_field(port, 0)?,
        port_flags: types.word_field(port, 1)?,
        port_pos: types.word_field(port, 2)?,
        port_host: types.word_field(port, 3)?,
        eof,
        eof_alloc: types.fixed_type(eof)?,
        condition,
        condition_alloc: types.fixed_type(condition)?,
        cond_message: types.ref_field(condition, 0)?,
        cond_irritants: types.ref_field(condition, 1)?,
        cond_kind: types.word_field(condition, 2)?,
        bytevector,
    })
}
