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
//! error ([`VmError`]) that unwinds the interpreter. [`Vm::offer_error`] is
//! called by [`Vm::call`] on every such error, in the innermost nested run of
//! the interpreter, before anything is unwound: if a handler is installed, it
//! raises an error object holding the message (with `raise`, so the handler
//! runs in the dynamic environment of the error), and the error that comes back
//! (an escape to a `guard`'s continuation, or the handler's own failure) replaces
//! it. With no handler installed, the error goes on unchanged, so an uncaught
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

    /// Raises an error object of `kind` with message `msg` if a handler is
    /// installed: the error that the raise ends in (a `guard` escaping, or an
    /// uncaught error). Without a handler, a runtime error with `msg`.
    fn raise_condition(&mut self, kind: u64, msg: String) -> VmError {
        if !self.has_handler() {
            return VmError::runtime(msg);
        }
        let Some(raise) = self.global_value("raise") else {
            return VmError::runtime(msg);
        };
        let (stack, frames) = self.mark();
        self.m.push_value(raise);
        if let Err(e) = self.push_condition(kind, &msg) {
            return e;
        }
        match self.call(1) {
            // `raise` never returns: its handler's return is an error.
            Ok(()) => {
                self.unwind(stack, frames);
                VmError::runtime(msg)
            }
            // Left as it is: an escape's value is on top of the stack.
            Err(e) => e,
        }
    }

    /// A file error with message `msg`, raised (see [`Vm::offer_error`]).
    pub(crate) fn raise_file_error(&mut self, msg: String) -> VmError {
        self.raise_condition(FILE_ERROR, msg)
    }

    /// A read error with message `msg`, raised.
    pub(crate) fn raise_read_error(&mut self, msg: String) -> VmError {
        self.raise_condition(READ_ERROR, msg)
    }

    /// Called by [`Vm::call`] with every error of a run of the interpreter,
    /// the stacks as the error left them: a runtime error is raised as an error
    /// object if a handler is installed (the error the raise ends in is
    /// returned); any other error, or one with no handler to see it, is
    /// returned unchanged.
    pub(crate) fn offer_error(&mut self, e: VmError) -> VmError {
        if e.kind != ErrorKind::Runtime || !self.has_handler() {
            return e;
        }
        self.raise_condition(VM_ERROR, e.message)
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
