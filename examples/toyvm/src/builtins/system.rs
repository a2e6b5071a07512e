//! Equivalence and type predicates, output (`display`, `write`, `newline`),
//! `error`, and the collector's `(gc)` and `(gc-stats)`.

use crate::error::VmError;
use crate::vm::Vm;

/// `eq?` / `eqv?` (the same here: numbers and characters compare by value).
pub fn is_eqv(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = vm.eqv(vm.at(base), vm.at(base + 1));
    vm.push_bool(b);
    Ok(())
}

/// `equal?`.
pub fn is_equal(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = vm.equal(vm.at(base), vm.at(base + 1));
    vm.push_bool(b);
    Ok(())
}

/// `not`.
pub fn not(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = !vm.truthy(base);
    vm.push_bool(b);
    Ok(())
}

/// `null?`.
pub fn is_null(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = vm.at(base).is_none();
    vm.push_bool(b);
    Ok(())
}

macro_rules! type_pred {
    ($(#[$doc:meta] $name:ident => $($field:ident)|+;)*) => {$(
        #[$doc]
        pub fn $name(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
            let b = false $(|| vm.is(base, vm.t.$field))+;
            vm.push_bool(b);
            Ok(())
        }
    )*};
}

type_pred! {
    /// `pair?`.
    is_pair => pair;
    /// `string?`.
    is_string => string;
    /// `symbol?`.
    is_symbol => symbol;
    /// `vector?`.
    is_vector => vector;
    /// `procedure?`.
    is_procedure => closure | prim;
    /// `boolean?`.
    is_boolean => true_ | false_;
    /// `char?`.
    is_char => char;
}

fn output(vm: &mut Vm, base: usize, write: bool) -> Result<(), VmError> {
    let mut s = std::mem::take(&mut vm.out);
    let r = vm.print(vm.at(base), write, &mut s);
    vm.out = s;
    r?;
    if vm.out.len() > 1 << 16 {
        vm.flush();
    }
    vm.push_unspec();
    Ok(())
}

/// `display` (an optional port argument is ignored: output goes to the program's output).
pub fn display(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    output(vm, base, false)
}

/// `write`.
pub fn write(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    output(vm, base, true)
}

/// `newline` (flushes the output).
pub fn newline(vm: &mut Vm, _: usize, _: usize) -> Result<(), VmError> {
    vm.out.push('\n');
    vm.flush();
    vm.push_unspec();
    Ok(())
}

/// `error`: a runtime error with the message and the irritants written after it.
pub fn error(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let mut msg = String::new();
    let _ = vm.print(vm.at(base), false, &mut msg);
    for i in 1..argc {
        msg.push(' ');
        msg.push_str(&vm.repr(vm.at(base + i), true));
    }
    Err(VmError::runtime(msg))
}

/// `(gc)`: a full collection now.
pub fn gc(vm: &mut Vm, _: usize, _: usize) -> Result<(), VmError> {
    vm.m.collect();
    vm.push_unspec();
    Ok(())
}

/// `(gc-stats)`: prints the pause summary.
pub fn gc_stats(vm: &mut Vm, _: usize, _: usize) -> Result<(), VmError> {
    let summary = crate::pause_summary(&vm.shared.heap.pause_log());
    vm.out.push_str(&summary);
    vm.out.push('\n');
    vm.flush();
    vm.push_unspec();
    Ok(())
}
