//! Weak pairs, ephemeron pairs, `#!bwp` and guardians, with Chez Scheme's names:
//! `weak-cons`, `weak-pair?`, `ephemeron-cons`, `ephemeron-pair?`,
//! `bwp-object?`, `make-guardian`. An ephemeron pair holds its cdr only while its
//! car is reachable other than through it; once the car is found unreachable both
//! read as `#!bwp`. A weak or ephemeron pair is also a pair
//! (`pair?`, `car`, `cdr`, `set-car!`, `set-cdr!`, printing and the list
//! procedures take it); its car reads as `#!bwp` once a collection found the
//! referent inaccessible. Guardians are called as procedures (`vm/guardian.rs`).

use crate::error::VmError;
use crate::vm::Vm;

/// `(weak-cons a d)`.
pub fn weak_cons(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    vm.push_weak_pair(base, base + 1)
}

/// `(ephemeron-cons key value)`: the value is held only while the key is
/// reachable other than through the pair (or is compared by value).
pub fn ephemeron_cons(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    vm.push_ephemeron_pair(base, base + 1)
}

/// `(ephemeron-pair? x)`.
pub fn is_ephemeron_pair(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = vm.is(base, vm.t.rt.eph_pair);
    vm.push_bool(b);
    Ok(())
}

/// `(weak-pair? x)`.
pub fn is_weak_pair(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = vm.is(base, vm.t.rt.weak_pair);
    vm.push_bool(b);
    Ok(())
}

/// `(bwp-object? x)`.
pub fn is_bwp(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = vm.is(base, vm.t.rt.bwp);
    vm.push_bool(b);
    Ok(())
}

/// `(make-guardian)`.
pub fn make_guardian(vm: &mut Vm, _: usize, _: usize) -> Result<(), VmError> {
    vm.make_guardian()
}
