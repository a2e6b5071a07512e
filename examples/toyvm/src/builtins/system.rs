//! Equivalence and type predicates, output (`display`, `write`, `write-shared`,
//! `write-simple`, `newline`), `error`, `exit`, and the collector's `(gc)` and
//! `(gc-stats)`.

use crate::error::{ErrorKind, VmError};
use crate::vm::print::{Labels, MAX_PRINT};
use crate::vm::{as_char, kind, Kind, Vm, TRUE};

/// `eq?` / `eqv?` (the same here: numbers and characters compare by value).
pub fn is_eqv(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = vm.eqv(vm.val(base), vm.val(base + 1));
    vm.push_bool(b);
    Ok(())
}

/// `equal?`.
pub fn is_equal(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = vm.equal(vm.val(base), vm.val(base + 1));
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
    let b = vm.val(base).is_null();
    vm.push_bool(b);
    Ok(())
}

macro_rules! type_pred {
    ($(#[$doc:meta] $name:ident => $($($field:ident).+)|+;)*) => {$(
        #[$doc]
        pub fn $name(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
            let b = false $(|| vm.is(base, vm.t.$($field).+))+;
            vm.push_bool(b);
            Ok(())
        }
    )*};
}

type_pred! {
    /// `pair?` (weak and ephemeron pairs are pairs, as in Chez Scheme).
    is_pair => pair | rt.weak_pair | rt.eph_pair;
    /// `string?`.
    is_string => string;
    /// `symbol?`.
    is_symbol => symbol;
    /// `vector?`.
    is_vector => vector;
    /// `procedure?` (guardians are procedures).
    is_procedure => closure | prim | rt.guardian;
}

/// `boolean?`.
pub fn is_boolean(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = matches!(kind(vm.val(base)), Kind::Bool(_));
    vm.push_bool(b);
    Ok(())
}

/// `char?`.
pub fn is_char(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = as_char(vm.val(base)).is_some();
    vm.push_bool(b);
    Ok(())
}

fn output(vm: &mut Vm, base: usize, write: bool, labels: Labels) -> Result<(), VmError> {
    let mut s = std::mem::take(&mut vm.out);
    let mark = s.len();
    let r = vm.print_with(vm.val(base), write, labels, &mut s, mark + MAX_PRINT);
    if r.is_err() {
        s.truncate(mark);
    }
    vm.out = s;
    r.map_err(|_| VmError::runtime("printed form too large (more than 64 MiB)"))?;
    if vm.out.len() > 1 << 16 {
        vm.flush();
    }
    vm.push_unspec();
    Ok(())
}

/// `display` (an optional port argument is ignored: output goes to the program's
/// output). Cycles are shown with datum labels.
pub fn display(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    output(vm, base, false, Labels::Cycles)
}

/// `write`: cycles are shown with datum labels (`#0=(1 . #0#)`).
pub fn write(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    output(vm, base, true, Labels::Cycles)
}

/// `write-shared`: every pair and vector that appears more than once is labelled.
pub fn write_shared(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    output(vm, base, true, Labels::Shared)
}

/// `write-simple`: no labels (a cycle fails once the output passes 64 MiB).
pub fn write_simple(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    output(vm, base, true, Labels::None)
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
    let _ = vm.print(vm.val(base), false, &mut msg);
    for i in 1..argc {
        msg.push(' ');
        msg.push_str(&vm.repr(vm.val(base + i), true));
    }
    Err(VmError::runtime(msg))
}

/// `exit`: ends the program, flushing its output. No argument or `#t` exits
/// with status 0, an integer with that status (its low 8 bits, as the operating
/// system keeps them), `#f` or anything else with 1. In a spawned thread it ends
/// that thread; joining it then exits the program.
pub fn exit(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let code = if argc == 0 || vm.val(base) == TRUE {
        0
    } else if let Ok(i) = vm.int(base, "exit") {
        i as u8
    } else {
        1
    };
    vm.flush();
    Err(VmError::new(ErrorKind::Exit(code), format!("exit {code}")))
}

/// `(gc)`: waits for any collection in progress, then runs a complete one whose
/// snapshot is taken after the call (`Mutator::collect`). When it returns,
/// everything unreachable at the call has been reclaimed, weak pairs' cars to it
/// read `#!bwp`, weak tables no longer hold entries for it (their values are
/// released, to go at the next collection), and guardians have it.
pub fn gc(vm: &mut Vm, _: usize, _: usize) -> Result<(), VmError> {
    vm.m.collect();
    vm.weak_sync()?;
    {
        let mut st = crate::shared::lock(&vm.shared.tables);
        vm.freshen(&mut st);
    }
    vm.push_unspec();
    Ok(())
}

/// `(gc-stats)`: prints the GC log's summary of the run so far (pauses by kind
/// with count, total, p50, p99 and max; cycles; stalls; throttling; compactions:
/// `Heap::gc_summary`, the lines the GC log prints at the end; docs/gc-log.md),
/// then the heap's line (live data, memory in use, soft limit, maximum), then the
/// bytes allocated since the heap began (`alloc: N bytes ...`: equal before and
/// after code that allocates nothing, such as a fixnum loop).
pub fn gc_stats(vm: &mut Vm, _: usize, _: usize) -> Result<(), VmError> {
    let summary = vm.shared.heap.gc_summary();
    vm.out.push_str(&summary);
    vm.out.push('\n');
    vm.out.push_str(&crate::heap_summary(&vm.shared.heap));
    vm.out.push('\n');
    vm.out.push_str(&crate::alloc_summary(&vm.shared.heap));
    vm.out.push('\n');
    vm.flush();
    vm.push_unspec();
    Ok(())
}
