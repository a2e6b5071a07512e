//! The builtins under the prelude's `call-with-current-continuation` and
//! `dynamic-wind`: `%call/cc` (whose work the interpreter's call path does:
//! `crate::vm` `cont.rs`), and `%winds` / `%set-winds!`, which read and set
//! this thread's wind list (the active `dynamic-wind` entries, innermost
//! first, each `(before . after)`; stack slot [`crate::vm::WINDS`]).

use crate::error::VmError;
use crate::vm::Vm;

/// `%call/cc` reached other than through a call (the interpreter captures the
/// continuation when it calls `%call/cc`, so this runs only if a caller
/// bypasses that path).
pub fn call_cc_placeholder(_: &mut Vm, _: usize, _: usize) -> Result<(), VmError> {
    Err(VmError::runtime("%call/cc: called outside the interpreter"))
}

/// `(%winds)`: the wind list.
pub fn winds(vm: &mut Vm, _: usize, _: usize) -> Result<(), VmError> {
    vm.m.push_value(vm.winds());
    Ok(())
}

/// `(%set-winds! list)`: sets the wind list (the prelude passes only lists it
/// built).
pub fn set_winds(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    vm.set_winds(base);
    vm.push_unspec();
    Ok(())
}
