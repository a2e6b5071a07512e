//! Bytevectors (R7RS 6.9): `bytevector?`, `make-bytevector`, `bytevector`,
//! `bytevector-u8-ref`, `bytevector-u8-set!`, `bytevector-length`,
//! `bytevector-copy`, `bytevector-copy!`, `bytevector-append`, `utf8->string`,
//! `string->utf8`; and the printed forms of the types of `crate::types::io`
//! (bytevectors as `#u8(...)`, ports, `#<eof>`, error objects), which
//! `vm/print.rs` asks for. A bytevector is a byte array in the heap
//! (`scm-bytevector`); `equal?` compares two by their bytes.

use crate::error::VmError;
use crate::vm::Vm;
use flipgc_core::Gc;

fn byte(vm: &Vm, i: usize, who: &str) -> Result<u8, VmError> {
    let n = vm.int(i, who)?;
    u8::try_from(n).map_err(|_| vm.type_error(who, "a byte (0 to 255)", i))
}

fn bytevector_arg(vm: &Vm, i: usize, who: &str) -> Result<Vec<u8>, VmError> {
    vm.expect(i, vm.t.io.bytevector, "a bytevector", who)?;
    Ok(vm.bytes_of(i))
}

/// The optional `[start [end]]` arguments at `base + at`, checked against `len`.
fn range(
    vm: &Vm,
    base: usize,
    argc: usize,
    at: usize,
    len: usize,
    who: &str,
) -> Result<(usize, usize), VmError> {
    let start = if argc > at {
        vm.index(base + at, who)?
    } else {
        0
    };
    let end = if argc > at + 1 {
        vm.index(base + at + 1, who)?
    } else {
        len
    };
    if start > end || end > len {
        return Err(VmError::runtime(format!(
            "{who}: range {start}..{end} out of bounds for length {len}"
        )));
    }
    Ok((start, end))
}

/// `(bytevector? x)`.
pub fn is_bytevector(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = vm.is(base, vm.t.io.bytevector);
    vm.push_bool(b);
    Ok(())
}

/// `(make-bytevector k [byte])`.
pub fn make_bytevector(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let k = vm.index(base, "make-bytevector")?;
    let fill = if argc > 1 {
        byte(vm, base + 1, "make-bytevector")?
    } else {
        0
    };
    vm.push_bytes(&vec![fill; k])
}

/// `(bytevector byte...)`.
pub fn bytevector(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let bytes = (0..argc)
        .map(|i| byte(vm, base + i, "bytevector"))
        .collect::<Result<Vec<u8>, _>>()?;
    vm.push_bytes(&bytes)
}

fn index_in<'v>(vm: &'v Vm, base: usize, who: &str) -> Result<(Gc<'v>, usize), VmError> {
    let g = vm.expect(base, vm.t.io.bytevector, "a bytevector", who)?;
    let k = vm.index(base + 1, who)?;
    let len = vm.m.len(g);
    if k >= len {
        return Err(VmError::runtime(format!(
            "{who}: index {k} out of range for length {len}"
        )));
    }
    Ok((g, k))
}

/// `(bytevector-u8-ref bv k)`.
pub fn bytevector_u8_ref(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let (g, k) = index_in(vm, base, "bytevector-u8-ref")?;
    let mut b = [0];
    vm.m.read_bytes(g, k, &mut b);
    vm.push_int(i64::from(b[0]))
}

/// `(bytevector-u8-set! bv k byte)`.
pub fn bytevector_u8_set(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = byte(vm, base + 2, "bytevector-u8-set!")?;
    let (g, k) = index_in(vm, base, "bytevector-u8-set!")?;
    vm.m.write_bytes(g, k, &[b]);
    vm.push_unspec();
    Ok(())
}

/// `(bytevector-length bv)`.
pub fn bytevector_length(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let g = vm.expect(
        base,
        vm.t.io.bytevector,
        "a bytevector",
        "bytevector-length",
    )?;
    let n = vm.m.len(g) as i64;
    vm.push_int(n)
}

/// `(bytevector-copy bv [start [end]])`.
pub fn bytevector_copy(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let bytes = bytevector_arg(vm, base, "bytevector-copy")?;
    let (s, e) = range(vm, base, argc, 1, bytes.len(), "bytevector-copy")?;
    vm.push_bytes(&bytes[s..e])
}

/// `(bytevector-copy! to at from [start [end]])` (overlapping ranges work).
pub fn bytevector_copy_to(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let who = "bytevector-copy!";
    let to = vm.expect(base, vm.t.io.bytevector, "a bytevector", who)?;
    let to_len = vm.m.len(to);
    let at = vm.index(base + 1, who)?;
    let from = bytevector_arg(vm, base + 2, who)?;
    let (s, e) = range(vm, base, argc, 3, from.len(), who)?;
    if at > to_len || e - s > to_len - at {
        return Err(VmError::runtime(format!(
            "{who}: {} bytes do not fit at {at} in length {to_len}",
            e - s
        )));
    }
    let to = vm.obj(base).expect("a bytevector");
    vm.m.write_bytes(to, at, &from[s..e]);
    vm.push_unspec();
    Ok(())
}

/// `(bytevector-append bv...)`.
pub fn bytevector_append(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let mut all = Vec::new();
    for i in 0..argc {
        all.extend(bytevector_arg(vm, base + i, "bytevector-append")?);
    }
    vm.push_bytes(&all)
}

/// `(utf8->string bv [start [end]])`: invalid UTF-8 is an error.
pub fn utf8_to_string(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let bytes = bytevector_arg(vm, base, "utf8->string")?;
    let (s, e) = range(vm, base, argc, 1, bytes.len(), "utf8->string")?;
    let text = std::str::from_utf8(&bytes[s..e])
        .map_err(|err| VmError::runtime(format!("utf8->string: invalid UTF-8: {err}")))?;
    vm.push_str(text)
}

/// `(string->utf8 s [start [end]])` (start and end count characters).
pub fn string_to_utf8(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let s = vm.string(base, "string->utf8")?;
    let chars: Vec<char> = s.chars().collect();
    let (a, b) = range(vm, base, argc, 1, chars.len(), "string->utf8")?;
    let part: String = chars[a..b].iter().collect();
    vm.push_bytes(part.as_bytes())
}

impl Vm {
    /// The printed form of `g` if it is a bytevector, a port, the end-of-file
    /// object or an error object (the same for `write` and `display`; an error
    /// object shows its message written).
    pub(crate) fn print_io(&self, g: Gc<'_>, write: bool) -> Option<String> {
        let (t, ty) = (&self.t.io, self.m.type_of(g));
        if ty == t.bytevector {
            let mut bytes = vec![0; self.m.len(g)];
            self.m.read_bytes(g, 0, &mut bytes);
            let items: Vec<String> = bytes.iter().map(u8::to_string).collect();
            Some(format!("#u8({})", items.join(" ")))
        } else if ty == t.port {
            use super::ports::{BINARY, IN, OUT};
            let flags = self.m.get_word(g, t.port_flags);
            let dir = match (flags & IN != 0, flags & OUT != 0) {
                (true, _) => "input",
                (_, true) => "output",
                _ => "closed",
            };
            let kind = if flags & BINARY != 0 {
                "binary"
            } else {
                "textual"
            };
            Some(format!("#<{kind} {dir} port>"))
        } else if ty == t.eof {
            Some("#<eof>".into())
        } else if ty == t.condition {
            let msg = self.m.get_value(g, t.cond_message);
            let _ = write;
            Some(format!("#<error-object {}>", self.repr(msg, true)))
        } else {
            None
        }
    }

    /// Whether byte arrays `x` and `y` (strings or bytevectors) hold the same bytes.
    pub(crate) fn same_bytes(&self, x: Gc<'_>, y: Gc<'_>) -> bool {
        let n = self.m.len(x);
        if n != self.m.len(y) {
            return false;
        }
        let (mut a, mut b) = (vec![0; n], vec![0; n]);
        self.m.read_bytes(x, 0, &mut a);
        self.m.read_bytes(y, 0, &mut b);
        a == b
    }
}
