//! Reading and writing through binary ports (R7RS 6.13.2, 6.13.3): `read-u8`,
//! `peek-u8`, `u8-ready?`, `read-bytevector`, `write-u8`, `write-bytevector`.
//! Each takes an optional port (the current input or output port without
//! one, which must then be binary). The buffer handling is `portio.rs`'s.

use super::ports::{BINARY, IN, OUT};
use crate::error::VmError;
use crate::vm::Vm;

/// `(read-u8 [port])`.
pub fn read_u8(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    next_u8(vm, base, argc, true, "read-u8")
}

/// `(peek-u8 [port])`.
pub fn peek_u8(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    next_u8(vm, base, argc, false, "peek-u8")
}

fn next_u8(vm: &mut Vm, base: usize, argc: usize, take: bool, who: &str) -> Result<(), VmError> {
    let p = vm.port_arg(base, argc, 0, 0)?;
    vm.open_port(p, IN | BINARY, who)?;
    if vm.fill(p, 1)? == 0 {
        return vm.push_eof();
    }
    let b = vm.unread(p, 1)[0];
    if take {
        vm.consume(p, 1);
    }
    vm.push_int(i64::from(b))
}

/// `(u8-ready? [port])`: binary ports are in memory, so always ready.
pub fn u8_ready(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let p = vm.port_arg(base, argc, 0, 0)?;
    vm.open_port(p, IN | BINARY, "u8-ready?")?;
    vm.push_bool(true);
    Ok(())
}

/// `(read-bytevector k [port])`: up to `k` bytes, or the end-of-file object if
/// none are left.
pub fn read_bytevector(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let k = vm.index(base, "read-bytevector")?;
    let p = vm.port_arg(base, argc, 1, 0)?;
    vm.open_port(p, IN | BINARY, "read-bytevector")?;
    let n = vm.fill(p, k)?;
    if n == 0 && k > 0 {
        return vm.push_eof();
    }
    let bytes = vm.unread(p, n);
    vm.consume(p, n);
    vm.push_bytes(&bytes)
}

/// `(write-u8 byte [port])`.
pub fn write_u8(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let b = vm.int(base, "write-u8")?;
    let b = u8::try_from(b).map_err(|_| vm.type_error("write-u8", "a byte", base))?;
    let p = vm.port_arg(base, argc, 1, 1)?;
    let flags = vm.open_port(p, OUT | BINARY, "write-u8")?;
    vm.port_write(p, flags, &[b])?;
    vm.push_unspec();
    Ok(())
}

/// `(write-bytevector bv [port [start [end]]])`.
pub fn write_bytevector(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    vm.expect(base, vm.t.io.bytevector, "a bytevector", "write-bytevector")?;
    let bytes = vm.bytes_of(base);
    let start = if argc > 2 {
        vm.index(base + 2, "write-bytevector")?
    } else {
        0
    };
    let end = if argc > 3 {
        vm.index(base + 3, "write-bytevector")?
    } else {
        bytes.len()
    };
    if start > end || end > bytes.len() {
        return Err(VmError::runtime(format!(
            "write-bytevector: range {start}..{end} out of bounds for length {}",
            bytes.len()
        )));
    }
    let p = vm.port_arg(base, argc, 1, 1)?;
    let flags = vm.open_port(p, OUT | BINARY, "write-bytevector")?;
    vm.port_write(p, flags, &bytes[start..end])?;
    vm.push_unspec();
    Ok(())
}
