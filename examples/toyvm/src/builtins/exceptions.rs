//! Exceptions (R7RS 6.11), the Rust half: error objects (`scm-condition`,
//! `crate::types::io`) and their accessors, the message of an uncaught raise,
//! and the bridge that turns the VM's own runtime errors into raised error
//! objects. The handler stack, `raise`, `raise-continuable`,
//! `with-exception-handler`, `error` and the procedure under `guard` are Scheme,
//! in `prelude-r7rs.scm`; `guard` is rewritten in `compile/guard.rs`.
//!
//! The handler stack is the prelude's global `%handlers` (a list, innermost
//! first), kept by `dynamic-wind`. A runtime error the VM raises itself (`car`
//! of a non-pair, an unbound variable, a wrong argument count...) is a host
//! error ([`VmError`]) that ends the interpreter loop. [`Vm::raise_setup`] is
//! called by [`Vm::call`] on every such error, before anything is unwound: if a
//! handler is installed, `raise` is called with an error object holding the
//! message, in the same run of the interpreter and under the same continuation
//! barrier, so the handler runs in the dynamic environment of the error and can
//! escape to a `guard`'s continuation. With no handler installed, the error goes on unchanged, so an uncaught
//! error reads as it did before exceptions existed. File and read errors are
//! raised the same way by the port procedures, with their own kinds.

use crate::error::{ErrorKind, VmError};
use crate::vm::Vm;

/// Error object kind: made by `error` (or `%make-error`).
pub const ERROR: u64 = 0;
/// Error object kind: a file could not be opened, read, written or deleted.
pub const FILE_ERROR: u64 = 1;
/// Error object kind: `read` found a malformed datum.
pub const READ_ERROR: u64 = 2;
/// Error object kind: a runtime error the VM raised itself.
pub const VM_ERROR: u64 = 3;

/// The global holding the handler stack.
pub(crate) const HANDLERS: &str = "%handlers";

impl Vm {
    /// Whether an exception handler is installed.
    fn has_handler(&self) -> bool {
        self.global_value(HANDLERS).is_some_and(|v| !v.is_null())
    }

    /// Pushes an error object of `kind` whose message is the string `msg`,
    /// without irritants.
    fn push_condition(&mut self, kind: u64, msg: &str) -> Result<(), VmError> {
        self.push_str(msg)?;
        self.m.push(None);
        self.make_condition(kind)
    }

    /// Replaces the top two stack entries (message, irritants) by an error
    /// object of `kind` holding them.
    fn make_condition(&mut self, kind: u64) -> Result<(), VmError> {
        self.m.push_fixed(self.t.io.condition_alloc)?;
        let top = self.top();
        let c = self.obj(top).expect("fresh");
        self.m
            .set_value(c, self.t.io.cond_message, self.val(top - 2));
        self.m
            .set_value(c, self.t.io.cond_irritants, self.val(top - 1));
        self.m.set_word(c, self.t.io.cond_kind, kind);
        self.collapse(2);
        Ok(())
    }

    /// A file error with message `msg`: a runtime error that a handler sees as
    /// an error object for which `file-error?` is true (see
    /// [`Vm::raise_setup`]).
    pub(crate) fn raise_file_error(&mut self, msg: String) -> VmError {
        self.condition_kind = Some(FILE_ERROR);
        VmError::runtime(msg)
    }

    /// A read error with message `msg` (`read-error?` true), as
    /// [`Vm::raise_file_error`].
    pub(crate) fn raise_read_error(&mut self, msg: String) -> VmError {
        self.condition_kind = Some(READ_ERROR);
        VmError::runtime(msg)
    }

    /// Called by `Vm::call` with every error of a run of the interpreter, the
    /// stacks as the error left them. A runtime error, with a handler
    /// installed, is turned into a call of `raise` with an error object of its
    /// kind: `raise` and the object are pushed, and the stack index of `raise`
    /// is returned for the caller to call it in the same run of the
    /// interpreter, under the same continuation barrier, so that a handler can
    /// escape to a continuation captured there (a `guard`'s). Any other error,
    /// or one with no handler to see it, is returned unchanged.
    pub(crate) fn raise_setup(&mut self, e: VmError) -> Result<usize, VmError> {
        let kind = self.condition_kind.take().unwrap_or(VM_ERROR);
        if e.kind != ErrorKind::Runtime || !self.has_handler() {
            return Err(e);
        }
        let Some(raise) = self.global_value("raise") else {
            return Err(e);
        };
        self.m.push_value(raise);
        let at = self.top();
        self.push_condition(kind, &e.message)?;
        Ok(at)
    }
}

/// `(%make-error kind message irritants)`: a new error object.
pub fn make_error(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let kind = vm
        .int(base, "%make-error")?
        .clamp(ERROR as i64, VM_ERROR as i64) as u64;
    vm.dup(base + 1);
    vm.dup(base + 2);
    vm.make_condition(kind)
}

/// `(%raise-uncaught obj)`: the error that ends the program when `obj` is
/// raised with no handler installed. For an error object: its message and
/// irritants, as `error` always printed them; for anything else, "uncaught
/// exception:" and the object written.
pub fn raise_uncaught(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let mut msg = String::new();
    match vm.obj(base) {
        Some(c) if vm.m.type_of(c) == vm.t.io.condition => {
            let text = vm.m.get_value(c, vm.t.io.cond_message);
            let _ = vm.print(text, false, &mut msg);
            let mut irritants = vm.m.get_value(c, vm.t.io.cond_irritants);
            while let Some((car, cdr)) = irritants.as_ref().and_then(|p| vm.pair_parts(p)) {
                msg.push(' ');
                msg.push_str(&vm.repr(car, true));
                irritants = cdr;
            }
        }
        _ => {
            msg.push_str("uncaught exception: ");
            msg.push_str(&vm.repr(vm.val(base), true));
        }
    }
    Err(VmError::runtime(msg))
}

fn condition_kind(vm: &Vm, i: usize) -> Option<u64> {
    match vm.obj(i) {
        Some(c) if vm.m.type_of(c) == vm.t.io.condition => {
            Some(vm.m.get_word(c, vm.t.io.cond_kind))
        }
        _ => None,
    }
}

/// `(error-object? x)`.
pub fn is_error_object(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = condition_kind(vm, base).is_some();
    vm.push_bool(b);
    Ok(())
}

/// `(file-error? x)`.
pub fn is_file_error(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = condition_kind(vm, base) == Some(FILE_ERROR);
    vm.push_bool(b);
    Ok(())
}

/// `(read-error? x)`.
pub fn is_read_error(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = condition_kind(vm, base) == Some(READ_ERROR);
    vm.push_bool(b);
    Ok(())
}

/// `(error-object-message e)`.
pub fn error_object_message(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let c = vm.expect(
        base,
        vm.t.io.condition,
        "an error object",
        "error-object-message",
    )?;
    let v = vm.m.get_value(c, vm.t.io.cond_message);
    vm.m.push_value(v);
    Ok(())
}

/// `(error-object-irritants e)`.
pub fn error_object_irritants(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let c = vm.expect(
        base,
        vm.t.io.condition,
        "an error object",
        "error-object-irritants",
    )?;
    let v = vm.m.get_value(c, vm.t.io.cond_irritants);
    vm.m.push_value(v);
    Ok(())
}
