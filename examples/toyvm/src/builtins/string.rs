//! String, symbol and character builtins. Strings are immutable UTF-8 byte
//! arrays in the heap; indices count characters.

use crate::error::VmError;
use crate::vm::{as_char, Vm};

/// `string-length`.
pub fn string_length(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let s = vm.string(base, "string-length")?;
    vm.push_int(s.chars().count() as i64)
}

/// `string-ref`.
pub fn string_ref(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let s = vm.string(base, "string-ref")?;
    let k = vm.int(base + 1, "string-ref")?;
    let c = usize::try_from(k).ok().and_then(|k| s.chars().nth(k));
    match c {
        Some(c) => {
            vm.push_char(c);
            Ok(())
        }
        None => Err(VmError::runtime(format!(
            "string-ref: index {k} out of range for length {}",
            s.chars().count()
        ))),
    }
}

/// `make-string`: `k` copies of `char` (a space if absent), at most 4 GiB of
/// UTF-8. The heap object is allocated first, so a length the heap cannot hold
/// is out of memory before any host memory is used.
pub fn make_string(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let k = vm.index(base, "make-string")?;
    let c = if argc == 2 {
        as_char(vm.val(base + 1))
            .ok_or_else(|| vm.type_error("make-string", "a character", base + 1))?
    } else {
        ' '
    };
    let mut utf8 = [0; 4];
    let unit = c.encode_utf8(&mut utf8).as_bytes();
    let Some(bytes) = k.checked_mul(unit.len()).filter(|&b| b <= 1 << 32) else {
        return Err(VmError::runtime(format!(
            "make-string: length {k} too large"
        )));
    };
    vm.m.alloc_push(vm.t.string, bytes)?;
    let chunk = unit.repeat((4096 / unit.len()).min(k).max(1));
    let s = vm.obj(vm.top()).expect("fresh");
    let mut at = 0;
    while at < bytes {
        let n = chunk.len().min(bytes - at);
        vm.m.write_bytes(s, at, &chunk[..n]);
        at += n;
    }
    Ok(())
}

/// `string-append`.
pub fn string_append(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let mut out = String::new();
    for i in 0..argc {
        out.push_str(&vm.string(base + i, "string-append")?);
    }
    vm.push_str(&out)
}

/// `substring` (start, optional end; character indices).
pub fn substring(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let s = vm.string(base, "substring")?;
    let len = s.chars().count();
    let start = vm.int(base + 1, "substring")?;
    let end = if argc == 3 {
        vm.int(base + 2, "substring")?
    } else {
        len as i64
    };
    if start < 0 || end < start || end > len as i64 {
        return Err(VmError::runtime(format!(
            "substring: range {start}..{end} out of range for length {len}"
        )));
    }
    let sub: String = s
        .chars()
        .skip(start as usize)
        .take((end - start) as usize)
        .collect();
    vm.push_str(&sub)
}

fn compare(
    vm: &mut Vm,
    base: usize,
    argc: usize,
    who: &str,
    ok: fn(&str, &str) -> bool,
) -> Result<(), VmError> {
    let mut prev = vm.string(base, who)?;
    let mut result = true;
    for i in 1..argc {
        let s = vm.string(base + i, who)?;
        result &= ok(&prev, &s);
        prev = s;
    }
    vm.push_bool(result);
    Ok(())
}

/// `string=?`.
pub fn string_eq(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    compare(vm, base, argc, "string=?", |a, b| a == b)
}

/// `string<?`.
pub fn string_lt(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    compare(vm, base, argc, "string<?", |a, b| a < b)
}

/// `string->symbol`.
pub fn string_to_symbol(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let s = vm.string(base, "string->symbol")?;
    vm.push_symbol(&s)
}

/// `symbol->string`.
pub fn symbol_to_string(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let sym = vm.expect(base, vm.t.symbol, "a symbol", "symbol->string")?;
    let id = vm.m.get_word(sym, vm.t.symbol_id);
    let name = vm.shared.symbol_name(id);
    vm.push_str(&name)
}

/// `string->list`.
pub fn string_to_list(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let s = vm.string(base, "string->list")?;
    let mark = vm.m.stack_len();
    for c in s.chars() {
        vm.push_char(c);
    }
    let end = vm.m.stack_len();
    vm.push_list(mark, end)
}

/// `list->string`.
pub fn list_to_string(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    vm.proper_list(base, "list->string")?;
    let mut s = String::new();
    let mut cur = vm.val(base);
    while !cur.is_null() {
        let Some(p) = cur.as_ref().filter(|&p| vm.m.type_of(p) == vm.t.pair) else {
            return Err(vm.type_error("list->string", "a list of characters", base));
        };
        match as_char(vm.m.get_value(p, vm.t.car)) {
            Some(c) => s.push(c),
            None => return Err(vm.type_error("list->string", "a list of characters", base)),
        }
        cur = vm.m.get_value(p, vm.t.cdr);
    }
    vm.push_str(&s)
}

/// `char->integer`.
pub fn char_to_integer(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let c =
        as_char(vm.val(base)).ok_or_else(|| vm.type_error("char->integer", "a character", base))?;
    vm.push_int(i64::from(u32::from(c)))
}

/// `integer->char`.
pub fn integer_to_char(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let i = vm.int(base, "integer->char")?;
    let c = u32::try_from(i).ok().and_then(char::from_u32);
    match c {
        Some(c) => {
            vm.push_char(c);
            Ok(())
        }
        None => Err(VmError::runtime(format!(
            "integer->char: {i} is not a character code"
        ))),
    }
}
