//! Pair, list and vector builtins. Loops that allocate keep their cursor and
//! accumulator on the root stack (a `Gc` does not survive an allocation); long
//! loops that do not allocate poll for a safepoint every [`POLL_STEPS`]
//! elements, their references read back from the root stack (`vm/poll.rs`).

use crate::error::VmError;
use crate::vm::{ListShape, Vm, POLL_STEPS};
use flipgc_core::{Gc, Value};

/// Pushes the field of the pair at `base` that `who` (`car`, `cdr`, `cadr`...)
/// names: the letters between `c` and `r`, applied right to left (`a` the car,
/// `d` the cdr).
#[inline]
fn pair_field(vm: &mut Vm, base: usize, who: &str) -> Result<(), VmError> {
    let mut cur = vm.val(base);
    for c in who[1..who.len() - 1].bytes().rev() {
        match cur.as_ref() {
            Some(p) if vm.m.type_of(p) == vm.t.pair => {
                let f = if c == b'a' { vm.t.car } else { vm.t.cdr };
                cur = vm.m.get_value(p, f);
            }
            Some(p) if vm.weak_pair_desc(p).is_some() => {
                let d = vm.weak_pair_desc(p).expect("checked");
                cur = if c == b'a' {
                    vm.weak_car(p, d)
                } else {
                    vm.weak_cdr(p, d)
                };
            }
            _ => return Err(vm.type_error(who, "a pair", base)),
        }
    }
    vm.m.push_value(cur);
    Ok(())
}

/// `cons`.
pub fn cons(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    vm.push_pair(base, base + 1)
}

/// `car`.
pub fn car(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    pair_field(vm, base, "car")
}

/// `cdr`.
pub fn cdr(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    pair_field(vm, base, "cdr")
}

/// `caar`.
pub fn caar(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    pair_field(vm, base, "caar")
}

/// `cadr`.
pub fn cadr(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    pair_field(vm, base, "cadr")
}

/// `cdar`.
pub fn cdar(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    pair_field(vm, base, "cdar")
}

/// `cddr`.
pub fn cddr(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    pair_field(vm, base, "cddr")
}

/// `caddr`.
pub fn caddr(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    pair_field(vm, base, "caddr")
}

fn set_field(vm: &mut Vm, base: usize, who: &str, cdr: bool) -> Result<(), VmError> {
    if let Some((p, d)) = vm.obj(base).and_then(|p| Some((p, vm.weak_pair_desc(p)?))) {
        if cdr {
            vm.m.set_value(p, d.cdr, vm.val(base + 1));
        } else {
            vm.set_weak_car(p, d, vm.val(base + 1));
        }
        vm.push_unspec();
        return Ok(());
    }
    let p = vm.expect(base, vm.t.pair, "a pair", who)?;
    let f = if cdr { vm.t.cdr } else { vm.t.car };
    vm.m.set_value(p, f, vm.val(base + 1));
    vm.push_unspec();
    Ok(())
}

/// `set-car!`.
pub fn set_car(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    set_field(vm, base, "set-car!", false)
}

/// `set-cdr!`.
pub fn set_cdr(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    set_field(vm, base, "set-cdr!", true)
}

/// `list`.
pub fn list(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    vm.push_list(base, base + argc)
}

/// `list?`: true for proper lists (false for improper and circular ones).
pub fn is_list(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = matches!(vm.list_shape(base), ListShape::Proper(_));
    vm.push_bool(b);
    Ok(())
}

/// `length` (an error for improper and circular lists).
pub fn length(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let n = vm.proper_list(base, "length")?;
    vm.push_int(n as i64)
}

/// Pushes the elements of the proper list at stack entry `i`; returns how many.
fn push_elements(vm: &mut Vm, i: usize, who: &str) -> Result<usize, VmError> {
    vm.proper_list(i, who)?;
    Ok(vm.push_list_elements(i))
}

/// `append`: every argument but the last is copied.
pub fn append(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    if argc == 0 {
        vm.m.push(None);
        return Ok(());
    }
    let acc = vm.m.stack_len();
    vm.dup(base + argc - 1);
    for j in (0..argc - 1).rev() {
        let mark = vm.m.stack_len();
        let n = push_elements(vm, base + j, "append")?;
        for i in (mark..mark + n).rev() {
            vm.push_pair(i, acc)?;
            let top = vm.top();
            vm.m.stack_copy(top, acc);
            vm.m.stack_truncate(top);
        }
        vm.m.stack_truncate(mark);
    }
    Ok(())
}

/// `reverse`.
pub fn reverse(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    vm.proper_list(base, "reverse")?;
    let cursor = vm.m.stack_len();
    vm.dup(base);
    let acc = cursor + 1;
    vm.m.push(None);
    while !vm.val(cursor).is_null() {
        let Some((car, _)) = vm.obj(cursor).and_then(|p| vm.pair_parts(p)) else {
            return Err(vm.type_error("reverse", "a proper list", base));
        };
        vm.m.push_value(car);
        let top = vm.top();
        vm.push_pair(top, acc)?;
        let new = vm.top();
        vm.m.stack_copy(new, acc);
        vm.m.stack_truncate(top);
        let p = vm.obj(cursor).expect("pair");
        let cdr = vm.pair_cdr(p).expect("pair");
        vm.m.stack_set_value(cursor, cdr);
    }
    Ok(())
}

/// Walks `k` cdrs down the list at `base`; pushes the tail. On a circular list
/// whole turns round the cycle are skipped (Brent's cycle finding), so a huge
/// `k` takes no longer than the list.
fn tail(vm: &mut Vm, base: usize, who: &str) -> Result<(), VmError> {
    let k = vm.index(base + 1, who)?;
    let mut cur = vm.val(base);
    let (mut mark, mut power, mut lap) = (cur, 1usize, 0usize);
    let mut i = 0;
    while i < k {
        match cur.as_ref() {
            Some(p) if vm.m.type_of(p) == vm.t.pair => cur = vm.m.get_value(p, vm.t.cdr),
            Some(p) if vm.is_pair_like(p) => cur = vm.pair_cdr(p).expect("pair"),
            _ => return Err(VmError::runtime(format!("{who}: index {k} out of range"))),
        }
        i += 1;
        lap += 1;
        if cur.as_ref().is_some() && cur == mark {
            // A cycle of `lap` pairs: only the remainder of the walk matters.
            i = k - (k - i) % lap;
        } else if lap == power {
            (mark, power, lap) = (cur, power.saturating_mul(2), 0);
        }
    }
    vm.m.push_value(cur);
    Ok(())
}

/// `list-tail`.
pub fn list_tail(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    tail(vm, base, "list-tail")
}

/// `list-ref`.
pub fn list_ref(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    tail(vm, base, "list-ref")?;
    let top = vm.top();
    match vm.obj(top).and_then(|p| vm.pair_parts(p)) {
        Some((v, _)) => {
            vm.m.stack_set_value(top, v);
            Ok(())
        }
        _ => {
            let k = vm.int(base + 1, "list-ref")?;
            Err(VmError::runtime(format!(
                "list-ref: index {k} out of range"
            )))
        }
    }
}

fn search(vm: &mut Vm, base: usize, who: &str, assoc: bool, equal: bool) -> Result<(), VmError> {
    let key = vm.val(base);
    let mut cur = vm.val(base + 1);
    // A second cursor at half speed: meeting it means the list is circular.
    let mut slow = cur;
    let mut half = false;
    while !cur.is_null() {
        let Some((p, (item, next))) = cur.as_ref().and_then(|p| Some((p, vm.pair_parts(p)?)))
        else {
            return Err(vm.type_error(who, "a proper list", base + 1));
        };
        let candidate = if assoc {
            match item.as_ref().and_then(|e| vm.pair_parts(e)) {
                Some((k, _)) => k,
                _ => {
                    return Err(VmError::runtime(format!(
                        "{who}: list element is not a pair"
                    )))
                }
            }
        } else {
            item
        };
        let hit = if equal {
            vm.equal(key, candidate)
        } else {
            vm.eqv(key, candidate)
        };
        if hit {
            let found = if assoc { item } else { Value::from(p) };
            vm.m.push_value(found);
            return Ok(());
        }
        cur = next;
        if half {
            // A pair `cur` has passed (an object's type never changes).
            slow = slow
                .as_ref()
                .and_then(|s| vm.pair_cdr(s))
                .unwrap_or(Value::NULL);
            if cur.as_ref().is_some() && slow == cur {
                return Err(vm.type_error(who, "a proper list", base + 1));
            }
        }
        half = !half;
    }
    vm.push_bool(false);
    Ok(())
}

/// `assq` / `assv`.
pub fn assv(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    search(vm, base, "assv", true, false)
}

/// `assoc`.
pub fn assoc(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    search(vm, base, "assoc", true, true)
}

/// `memq` / `memv`.
pub fn memv(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    search(vm, base, "memv", false, false)
}

/// `member`.
pub fn member(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    search(vm, base, "member", false, true)
}

/// `make-vector` (filled with `fill`, default 0).
pub fn make_vector(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let n = vm.index(base, "make-vector")?;
    if n > (1 << 32) {
        return Err(VmError::runtime(format!(
            "make-vector: length {n} too large"
        )));
    }
    vm.m.alloc_push(vm.t.vector, n)?;
    if argc == 1 {
        vm.push_int(0)?;
    } else {
        vm.dup(base + 1);
    }
    let top = vm.top();
    fill(vm, top - 1, top, 0..n);
    vm.m.stack_truncate(top);
    Ok(())
}

/// Stores stack entry `x` in elements `range` of the vector at stack entry `v`,
/// polling for a safepoint every [`POLL_STEPS`] elements (`vm/poll.rs`): the
/// first touches of a fresh vector's pages make this a long loop.
fn fill(vm: &mut Vm, v: usize, x: usize, range: std::ops::Range<usize>) {
    let mut at = range.start;
    while at < range.end {
        let end = range.end.min(at + POLL_STEPS);
        let (vec, value) = (vm.obj(v).expect("vector"), vm.val(x));
        for i in at..end {
            vm.m.write_value(vec, i, value);
        }
        at = end;
        vm.poll_in_builtin();
    }
}

/// `vector`.
pub fn vector(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    vm.m.alloc_push(vm.t.vector, argc)?;
    let top = vm.top();
    let mut at = 0;
    while at < argc {
        let end = argc.min(at + POLL_STEPS);
        let v = vm.obj(top).expect("fresh");
        for i in at..end {
            vm.m.write_value(v, i, vm.val(base + i));
        }
        at = end;
        vm.poll_in_builtin();
    }
    Ok(())
}

/// The vector at stack entry `i`, or a type error naming `who`.
#[inline]
fn vector_at<'v>(vm: &'v Vm, i: usize, who: &str) -> Result<Gc<'v>, VmError> {
    vm.expect(i, vm.t.vector, "a vector", who)
}

/// The vector at `base` and the index at `base + 1` (checked against its length).
#[inline]
fn vector_index<'v>(vm: &'v Vm, base: usize, who: &str) -> Result<(Gc<'v>, usize), VmError> {
    let v = vector_at(vm, base, who)?;
    let k = vm.int(base + 1, who)?;
    let len = vm.m.len(v);
    match usize::try_from(k) {
        Ok(k) if k < len => Ok((v, k)),
        _ => Err(VmError::runtime(format!(
            "{who}: index {k} out of range for length {len}"
        ))),
    }
}

/// `vector-ref`.
pub fn vector_ref(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let (v, k) = vector_index(vm, base, "vector-ref")?;
    vm.m.push_value(vm.m.read_value(v, k));
    Ok(())
}

/// `vector-set!`.
pub fn vector_set(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let (v, k) = vector_index(vm, base, "vector-set!")?;
    vm.m.write_value(v, k, vm.val(base + 2));
    vm.push_unspec();
    Ok(())
}

/// `vector-length`.
pub fn vector_length(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let n = vm.m.len(vector_at(vm, base, "vector-length")?);
    vm.push_int(n as i64)
}

/// The optional `start` and `end` arguments of a sequence procedure, at stack
/// entries `base + first` and `base + first + 1` when `argc` covers them, for
/// a sequence of `len` elements: `0..len` by default, else an error unless
/// `start <= end <= len`.
pub(crate) fn opt_range(
    vm: &Vm,
    base: usize,
    argc: usize,
    first: usize,
    len: usize,
    who: &str,
) -> Result<std::ops::Range<usize>, VmError> {
    let start = if argc > first {
        vm.index(base + first, who)?
    } else {
        0
    };
    let end = if argc > first + 1 {
        vm.index(base + first + 1, who)?
    } else {
        len
    };
    if start > end || end > len {
        return Err(VmError::runtime(format!(
            "{who}: range {start}..{end} out of range for length {len}"
        )));
    }
    Ok(start..end)
}

/// `vector->list`, with optional `start` and `end`.
pub fn vector_to_list(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let v = vector_at(vm, base, "vector->list")?;
    let range = opt_range(vm, base, argc, 1, vm.m.len(v), "vector->list")?;
    let mark = vm.m.stack_len();
    let mut at = range.start;
    while at < range.end {
        let end = range.end.min(at + POLL_STEPS);
        let v = vm.obj(base).expect("vector");
        for i in at..end {
            vm.m.push_value(vm.m.read_value(v, i));
        }
        at = end;
        vm.poll_in_builtin();
    }
    let end = vm.m.stack_len();
    vm.push_list(mark, end)
}

/// `list->vector`.
pub fn list_to_vector(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let mark = vm.m.stack_len();
    let n = push_elements(vm, base, "list->vector")?;
    vector(vm, mark, n)
}

/// `vector-fill!`, with optional `start` and `end`.
pub fn vector_fill(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let v = vector_at(vm, base, "vector-fill!")?;
    let range = opt_range(vm, base, argc, 2, vm.m.len(v), "vector-fill!")?;
    fill(vm, base, base + 1, range);
    vm.push_unspec();
    Ok(())
}
