//! Hashtable builtins, with the R6RS / Chez Scheme names: the constructors
//! (`make-eq-hashtable`, `make-eqv-hashtable`, `make-weak-eq-hashtable`,
//! `make-weak-eqv-hashtable`, `make-ephemeron-eq-hashtable`,
//! `make-ephemeron-eqv-hashtable`, each with an optional size), `hashtable-set!`,
//! `hashtable-ref`, `hashtable-delete!`, `hashtable-contains?`, `hashtable-size`,
//! `hashtable-keys` and `hashtable-values` (vectors), `hashtable-clear!`,
//! `hashtable?`, `hashtable-weak?` and `hashtable-ephemeron?`. The tables themselves are in
//! `vm/hashtable.rs`; this file checks arguments.

use crate::error::VmError;
use crate::vm::hashtable::{Part, EPHEMERON, WEAK};
use crate::vm::Vm;

/// The hashtable at `i`, or a type error naming `who`; its kind.
fn table(vm: &Vm, i: usize, who: &str) -> Result<u64, VmError> {
    let t = vm.expect(i, vm.t.rt.hashtable, "a hashtable", who)?;
    Ok(vm.table_kind(t))
}

fn make(vm: &mut Vm, base: usize, argc: usize, kind: u64, who: &str) -> Result<(), VmError> {
    let size = if argc == 1 { vm.index(base, who)? } else { 0 };
    vm.make_table(kind, size)
}

/// `(make-eq-hashtable [size])`.
pub fn make_eq(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    make(vm, base, argc, 0, "make-eq-hashtable")
}

/// `(make-eqv-hashtable [size])`.
pub fn make_eqv(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    make(vm, base, argc, 1, "make-eqv-hashtable")
}

/// `(make-weak-eq-hashtable [size])`: keys held weakly.
pub fn make_weak_eq(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    make(vm, base, argc, WEAK, "make-weak-eq-hashtable")
}

/// `(make-weak-eqv-hashtable [size])`: keys held weakly.
pub fn make_weak_eqv(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    make(vm, base, argc, WEAK | 1, "make-weak-eqv-hashtable")
}

/// `(make-ephemeron-eq-hashtable [size])`: entries are ephemerons (an entry
/// whose key is unreachable but through its value vanishes).
pub fn make_ephemeron_eq(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    make(
        vm,
        base,
        argc,
        EPHEMERON | WEAK,
        "make-ephemeron-eq-hashtable",
    )
}

/// `(make-ephemeron-eqv-hashtable [size])`: as `make-ephemeron-eq-hashtable`.
pub fn make_ephemeron_eqv(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    make(
        vm,
        base,
        argc,
        EPHEMERON | WEAK | 1,
        "make-ephemeron-eqv-hashtable",
    )
}

/// `(hashtable-set! table key value)`.
pub fn set(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    table(vm, base, "hashtable-set!")?;
    vm.table_set(base, base + 1, base + 2)?;
    vm.push_unspec();
    Ok(())
}

/// `(hashtable-ref table key default)`.
pub fn get(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    table(vm, base, "hashtable-ref")?;
    vm.table_ref(base, base + 1, base + 2)
}

/// `(hashtable-delete! table key)`.
pub fn delete(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    table(vm, base, "hashtable-delete!")?;
    vm.table_delete(base, base + 1)?;
    vm.push_unspec();
    Ok(())
}

/// `(hashtable-contains? table key)`.
pub fn contains(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    table(vm, base, "hashtable-contains?")?;
    let b = vm.table_contains(base, base + 1)?;
    vm.push_bool(b);
    Ok(())
}

/// `(hashtable-size table)`.
pub fn size(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    table(vm, base, "hashtable-size")?;
    let n = vm.table_size(base)?;
    vm.push_int(n as i64)
}

/// `(hashtable-keys table)`: a vector.
pub fn keys(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    table(vm, base, "hashtable-keys")?;
    vm.table_contents(base, Part::Keys)
}

/// `(hashtable-values table)`: a vector.
pub fn values(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    table(vm, base, "hashtable-values")?;
    vm.table_contents(base, Part::Values)
}

/// `(hashtable-clear! table)`.
pub fn clear(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    table(vm, base, "hashtable-clear!")?;
    vm.table_clear(base)?;
    vm.push_unspec();
    Ok(())
}

/// `(hashtable? x)`.
pub fn is_hashtable(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = vm.is(base, vm.t.rt.hashtable);
    vm.push_bool(b);
    Ok(())
}

/// `(hashtable-weak? table)`: false for ephemeron tables, as in Chez Scheme.
pub fn is_weak(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let kind = table(vm, base, "hashtable-weak?")?;
    vm.push_bool(kind & WEAK != 0 && kind & EPHEMERON == 0);
    Ok(())
}

/// `(hashtable-ephemeron? table)`.
pub fn is_ephemeron(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let kind = table(vm, base, "hashtable-ephemeron?")?;
    vm.push_bool(kind & EPHEMERON != 0);
    Ok(())
}
