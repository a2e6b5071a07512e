//! Equivalence and type predicates, `exit`, and the collector's `(gc)` and
//! `(gc-stats)`. (Output is in `portio.rs`, `error` in the prelude.)

use crate::error::{ErrorKind, VmError};
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
    /// `vector?`.
    is_vector => vector;
    /// `procedure?` (guardians are procedures).
    is_procedure => closure | prim | rt.guardian;
}

/// `symbol?`: symbols are immediates (`crate::vm::value`).
pub fn is_symbol(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = crate::vm::as_symbol(vm.val(base)).is_some();
    vm.push_bool(b);
    Ok(())
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
    vm.flush_files();
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

/// `get-environment-variable`: the variable's value as a string, or `#f` if it
/// is unset (or not valid Unicode).
pub fn get_environment_variable(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let name = vm.string(base, "get-environment-variable")?;
    match std::env::var(&name) {
        Ok(value) => vm.push_str(&value),
        Err(_) => {
            vm.push_bool(false);
            Ok(())
        }
    }
}

/// `get-environment-variables`: an association list of `(name . value)`
/// strings, one per variable whose name and value are valid Unicode.
pub fn get_environment_variables(vm: &mut Vm, _: usize, _: usize) -> Result<(), VmError> {
    let mark = vm.m.stack_len();
    for (name, value) in std::env::vars_os() {
        let (Ok(name), Ok(value)) = (name.into_string(), value.into_string()) else {
            continue;
        };
        vm.push_str(&name)?;
        vm.push_str(&value)?;
        let top = vm.top();
        vm.push_pair(top - 1, top)?;
        vm.collapse(2);
    }
    let end = vm.m.stack_len();
    vm.push_list(mark, end)
}

/// `command-line`: the process's arguments as strings, the command name first
/// (for the `toyvm` binary: its path, the program file and the program's own
/// arguments; for a host that embeds the VM, the host's command line).
pub fn command_line(vm: &mut Vm, _: usize, _: usize) -> Result<(), VmError> {
    let mark = vm.m.stack_len();
    for arg in std::env::args_os() {
        vm.push_str(&arg.to_string_lossy())?;
    }
    let end = vm.m.stack_len();
    vm.push_list(mark, end)
}
