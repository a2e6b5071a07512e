//! Records (`define-record-type`, expanded in `compile/derived.rs`): a record
//! is an `scm-record`, a reference array whose element 0 is its record type (a
//! unique list `(name)` made by the prelude's `%make-record-type`) and whose
//! other elements are its fields. Records are their own type: `vector?` is false
//! of them, `equal?` compares them by identity, and they print as
//! `#<record name>`. Accessors and modifiers check the record's type here.

use crate::error::VmError;
use crate::vm::Vm;
use flipgc_core::Gc;

/// `(%record rtd field...)`: a fresh record of type `rtd` with the given fields.
pub fn record(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    vm.m.alloc_push(vm.t.record, argc)?;
    let r = vm.obj(vm.top()).expect("fresh");
    for i in 0..argc {
        vm.m.write_value(r, i, vm.val(base + i));
    }
    Ok(())
}

/// The record at stack entry `i` if it is one of type `rtd` (entry `rtd`).
fn record_of<'v>(vm: &'v Vm, i: usize, rtd: usize) -> Option<Gc<'v>> {
    let r = vm.obj(i).filter(|&g| vm.m.type_of(g) == vm.t.record)?;
    let ty = vm.m.read_value(r, 0);
    (vm.m.len(r) > 0 && vm.eqv(ty, vm.val(rtd))).then_some(r)
}

/// `(%record-of? x rtd)`: whether `x` is a record of type `rtd`.
pub fn is_record_of(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = record_of(vm, base, base + 1).is_some();
    vm.push_bool(b);
    Ok(())
}

/// The error of an accessor or modifier (named by the symbol at `who`) given
/// something other than a record of type `rtd` (at `rtd`; its name is its car).
fn wrong_record(vm: &Vm, base: usize, rtd: usize, who: usize) -> VmError {
    let name = |i: usize| vm.repr(vm.val(i), false);
    let type_name = vm
        .obj(rtd)
        .filter(|&g| vm.m.type_of(g) == vm.t.pair)
        .map(|g| vm.repr(vm.m.read_value(g, 0), false))
        .unwrap_or_else(|| name(rtd));
    vm.type_error(&name(who), &format!("a record of type {type_name}"), base)
}

/// `(%record-ref r rtd k who)`: field `k` (1-based: element 0 is the type) of
/// record `r`, which must have type `rtd`; `who` names the accessor in errors.
pub fn record_ref(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let Some(r) = record_of(vm, base, base + 1) else {
        return Err(wrong_record(vm, base, base + 1, base + 3));
    };
    let k = vm.index(base + 2, "%record-ref")?;
    if k == 0 || k >= vm.m.len(r) {
        return Err(VmError::runtime(format!("%record-ref: no field {k}")));
    }
    vm.m.push_value(vm.m.read_value(r, k));
    Ok(())
}

/// `(%record-set! r rtd k v who)`: sets field `k` of record `r` to `v`.
pub fn record_set(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let Some(r) = record_of(vm, base, base + 1) else {
        return Err(wrong_record(vm, base, base + 1, base + 4));
    };
    let k = vm.index(base + 2, "%record-set!")?;
    if k == 0 || k >= vm.m.len(r) {
        return Err(VmError::runtime(format!("%record-set!: no field {k}")));
    }
    vm.m.write_value(r, k, vm.val(base + 3));
    vm.push_unspec();
    Ok(())
}
