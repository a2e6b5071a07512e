//! Escape-only continuations: the two builtins under the prelude's
//! `call-with-current-continuation`. `%with-escape` calls its argument with a
//! fresh serial number, in a nested run of the interpreter; `%escape` (what a
//! continuation procedure calls) pushes the value to return and fails with
//! [`ErrorKind::Escape`] of that serial, which unwinds every frame above the
//! `%with-escape` that owns it. That one puts the value where its own result
//! goes and resets the value stack and the frames to what they were when it
//! was called. A continuation called after its `%with-escape` returned finds
//! no owner: the program stops with an error saying that re-entry is not
//! supported. Each active `%with-escape` holds a host stack frame, so their
//! nesting is limited ([`MAX_NESTED`]).

use crate::error::{ErrorKind, VmError};
use crate::vm::Vm;
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

/// Most `call/cc`s active at once on one thread (each nests the interpreter
/// on the host stack).
pub const MAX_NESTED: usize = 1000;

/// The next serial number. Only uniqueness matters: `fetch_add` is one atomic
/// read-modify-write, so no two calls get the same number under any ordering,
/// and no other memory is published through it (Relaxed).
static NEXT: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static NESTED: Cell<usize> = const { Cell::new(0) };
}

/// `(%with-escape f)`: calls `(f serial)`; its result, or the value a
/// `(%escape serial v)` under it passed.
pub fn with_escape(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let depth = NESTED.with(Cell::get);
    if depth >= MAX_NESTED {
        return Err(VmError::new(
            ErrorKind::StackOverflow,
            format!("more than {MAX_NESTED} call/cc active at once"),
        ));
    }
    let serial = NEXT.fetch_add(1, Ordering::Relaxed);
    let (stack0, frames0) = vm.mark();
    vm.m.stack_dup(base);
    vm.push_int(serial as i64)?;
    NESTED.with(|n| n.set(depth + 1));
    let r = vm.call(1);
    NESTED.with(|n| n.set(depth));
    match r {
        Ok(()) => Ok(()),
        Err(e) if e.kind == ErrorKind::Escape(serial) => {
            // The value is on top (pushed by `%escape`): it becomes the result.
            let top = vm.top();
            vm.m.stack_copy(top, stack0);
            vm.unwind(stack0 + 1, frames0);
            Ok(())
        }
        Err(e) => Err(e),
    }
}

/// `(%escape serial v)`: returns `v` from the `%with-escape` of `serial`.
pub fn escape(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let serial = vm.int(base, "%escape")? as u64;
    vm.m.stack_dup(base + 1);
    Err(VmError::new(
        ErrorKind::Escape(serial),
        "a continuation was called after its call/cc returned \
         (this VM's continuations are escape-only: re-entry is not supported)",
    ))
}
