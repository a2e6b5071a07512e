//! Hashtable builtins, with the R6RS / Chez Scheme names: the constructors
//! (`make-eq-hashtable`, `make-eqv-hashtable`, `make-weak-eq-hashtable`,
//! `make-weak-eqv-hashtable`, each with an optional size), `hashtable-set!`,
//! `hashtable-ref`, `hashtable-delete!`, `hashtable-contains?`, `hashtable-size`,
//! `hashtable-keys` and `hashtable-values` (vectors), `hashtable-clear!`,
//! `hashtable?` and `hashtable-weak?`. The tables themselves are in
//! `vm/hashtable.rs`; this file checks arguments.

use crate::error::VmError;
use crate::vm::hashtable::{Part, WEAK};
use crate::vm::Vm;

/// The hashtable at `i`, or a type error naming `who`; whether it is weak.
fn table(vm: &Vm, i: usize, who: &str) -> Result<bool, VmError> {
    let t = vm.expect(i, vm.t.rt.hashtable, "a hashtable", who)?;
    Ok(vm.table_kind(t) & WEAK != 0)
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

/// `(hashtable-weak? table)`.
pub fn is_weak(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = table(vm, base, "hashtable-weak?")?;
    vm.push_bool(b);
    Ok(())
}
