//! String, symbol and character builtins. Strings are UTF-8 byte arrays in the
//! heap; indices count characters. `string-length`, `string-ref` and
//! `string-set!` on an all-ASCII string (character `k` is byte `k`) read or
//! write one byte: whether the string is ASCII is computed once and kept for the
//! last few strings asked about (`Vm::ascii`), so a loop over a
//! string's characters is linear, not quadratic. `string-set!` keeps the UTF-8
//! length of every character, so it never changes whether a string is ASCII.

use crate::error::VmError;
use crate::vm::{as_char, Vm};

/// Strings whose ASCII-ness is remembered (a loop that reads one string and
/// fills another alternates between two).
const ASCII_ENTRIES: usize = 4;

/// Bytes read at a time when checking a string for ASCII.
const ASCII_CHUNK: usize = 4096;

/// Whether the string at stack index `i` (checked by the caller) is all ASCII:
/// from the one-entry cache if it is the cached string, else computed by reading
/// it in chunks, and cached. Allocates nothing (so no collection moves it here).
fn is_ascii(vm: &mut Vm, i: usize) -> bool {
    let g = vm.obj(i).expect("checked string");
    if let Some((_, ascii)) = vm
        .ascii
        .0
        .iter()
        .find(|(h, _)| vm.m.get(h).addr() == g.addr())
    {
        return *ascii;
    }
    let len = vm.m.len(g);
    let mut buf = [0u8; ASCII_CHUNK];
    let mut at = 0;
    let mut ascii = true;
    while at < len && ascii {
        let n = (len - at).min(ASCII_CHUNK);
        vm.m.read_bytes(g, at, &mut buf[..n]);
        ascii = buf[..n].is_ascii();
        at += n;
    }
    if vm.ascii.0.len() < ASCII_ENTRIES {
        let h = vm.m.root(g);
        vm.ascii.0.push((h, ascii));
    } else {
        let next = vm.ascii.1;
        vm.m.set(&vm.ascii.0[next].0, g);
        vm.ascii.0[next].1 = ascii;
        vm.ascii.1 = (next + 1) % ASCII_ENTRIES;
    }
    ascii
}

/// Byte `k` of the string at stack index `base` as a character, if the string
/// is ASCII and `k` is in range; `None` sends the caller to the general path.
fn ascii_char_at(vm: &mut Vm, base: usize, k: i64, who: &str) -> Result<Option<char>, VmError> {
    let len = vm.m.len(vm.expect(base, vm.t.string, "a string", who)?);
    match usize::try_from(k) {
        Ok(k) if k < len && is_ascii(vm, base) => {
            let mut b = [0u8; 1];
            vm.m.read_bytes(vm.obj(base).expect("checked string"), k, &mut b);
            Ok(Some(b[0] as char))
        }
        _ => Ok(None),
    }
}

/// `string-set!`'s fast path: stores ASCII character `c` as byte `k` of the
/// string at stack index `base` if the string is ASCII and `k` in range
/// (returns whether it did; the string then stays ASCII).
pub(crate) fn ascii_set(vm: &mut Vm, base: usize, k: i64, c: char) -> Result<bool, VmError> {
    let len =
        vm.m.len(vm.expect(base, vm.t.string, "a string", "string-set!")?);
    match usize::try_from(k) {
        Ok(k) if c.is_ascii() && k < len && is_ascii(vm, base) => {
            vm.m.write_bytes(vm.obj(base).expect("checked string"), k, &[c as u8]);
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// `string-length`.
pub fn string_length(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let len =
        vm.m.len(vm.expect(base, vm.t.string, "a string", "string-length")?);
    if is_ascii(vm, base) {
        return vm.push_int(len as i64);
    }
    let s = vm.string(base, "string-length")?;
    vm.push_int(s.chars().count() as i64)
}

/// `string-ref`.
pub fn string_ref(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    vm.expect(base, vm.t.string, "a string", "string-ref")?;
    let k = vm.int(base + 1, "string-ref")?;
    if let Some(c) = ascii_char_at(vm, base, k, "string-ref")? {
        vm.push_char(c);
        return Ok(());
    }
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
    let Some(id) = crate::vm::as_symbol(vm.val(base)) else {
        return Err(vm.type_error("symbol->string", "a symbol", base));
    };
    let name = vm.shared.symbol_name(id);
    vm.push_str(&name)
}

/// `string->list`, with optional `start` and `end` (in characters).
pub fn string_to_list(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let s = vm.string(base, "string->list")?;
    let len = s.chars().count();
    let range = super::list::opt_range(vm, base, argc, 1, len, "string->list")?;
    let mark = vm.m.stack_len();
    for c in s.chars().skip(range.start).take(range.len()) {
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
