//! Ports as objects (R7RS 6.13): the port object's layout and flags, making
//! ports (string, bytevector and file ports, and the three standard ports),
//! closing them, their predicates, the current ports, the end-of-file object,
//! `file-exists?` and `delete-file`. Reading and writing through a port are in
//! `portio.rs` (textual) and `binport.rs` (binary); the Scheme half
//! (`open-input-file`, `call-with-output-file`, `with-output-to-file`, the
//! current ports as parameters...) is in `prelude-r7rs.scm`.
//!
//! A port is a heap object (`scm-port`, `crate::types::io`): its buffer is a
//! bytevector in the heap that the collector traces and moves with it. An input
//! port reads from its buffer and, once that is used up, refills it from its
//! host source: a file (64 KiB at a time) or the program's standard input (one
//! line at a time, so a REPL program's `(read-line)` returns as soon as a line is
//! typed). A string or bytevector input port's buffer is a copy of its string or
//! bytevector, and it has no host source. A string or bytevector output port
//! appends to its buffer (doubling it when full); a file output port writes to
//! its file through the file table's host buffer (`crate::files`); the standard
//! output port writes to the program's output, the standard error port to the
//! host's standard error. The current ports live in hidden globals
//! (`%current-input-port`...), so they are shared by the program's threads.

use crate::error::VmError;
use crate::files::HostFile;
use crate::shared::lock;
use crate::vm::{Vm, CONSTS};
use flipgc_core::{Gc, Value};
use std::sync::Arc;

/// Flag: an input port.
pub const IN: u64 = 1;
/// Flag: an output port.
pub const OUT: u64 = 2;
/// Flag: a binary port (else textual).
pub const BINARY: u64 = 4;
/// Flag: the port is open.
pub const OPEN: u64 = 8;
/// Flag: the input port's host source is exhausted.
pub const HOST_EOF: u64 = 16;
/// The port's kind is in the flags from this bit on.
const KIND_SHIFT: u32 = 8;
/// Kind: the port reads or writes its heap buffer only (string and bytevector ports).
pub const MEMORY: u64 = 0;
/// Kind: a file port.
pub const FILE: u64 = 1;
/// Kind: the program's standard input.
pub const STDIN: u64 = 2;
/// Kind: the program's output.
pub const STDOUT: u64 = 3;
/// Kind: the host's standard error.
pub const STDERR: u64 = 4;

/// The hidden globals holding the current input, output and error ports.
pub const CURRENT: [&str; 3] = [
    "%current-input-port",
    "%current-output-port",
    "%current-error-port",
];
/// The hidden globals holding the standard input, output and error ports
/// (what the current ports are reset to after an error ends an evaluation).
const STANDARD: [&str; 3] = [
    "%standard-input-port",
    "%standard-output-port",
    "%standard-error-port",
];
/// The hidden global holding the end-of-file object.
const EOF_GLOBAL: &str = "%eof-object";

/// The kind of a port with `flags`.
pub fn kind_of(flags: u64) -> u64 {
    flags >> KIND_SHIFT
}

impl Vm {
    /// The value of global `name`, if it is bound (for the hidden globals the
    /// builtins keep their state in).
    pub(crate) fn global_value(&self, name: &str) -> Option<Value<'_>> {
        let k = *lock(&self.shared.consts).globals.get(name)? as usize;
        let table = self.obj(CONSTS)?;
        if k >= self.m.len(table) {
            return None;
        }
        let cell = self.m.read_ref(table, k)?;
        if self.m.get_word(cell, self.t.global_word) & 1 == 0 {
            return None;
        }
        Some(self.m.get_value(cell, self.t.global_value))
    }

    /// Pushes a new open port with `flags`, an empty buffer and host index `host`.
    pub(crate) fn push_port(&mut self, flags: u64, host: u64) -> Result<(), VmError> {
        self.m.push_fixed(self.t.io.port_alloc)?;
        let g = self.obj(self.top()).expect("fresh");
        self.m.set_word(g, self.t.io.port_flags, flags | OPEN);
        self.m.set_word(g, self.t.io.port_host, host);
        Ok(())
    }

    /// Pushes a new bytevector holding `bytes`.
    pub(crate) fn push_bytes(&mut self, bytes: &[u8]) -> Result<(), VmError> {
        self.m.alloc_push(self.t.io.bytevector, bytes.len())?;
        let g = self.obj(self.top()).expect("fresh");
        self.m.write_bytes(g, 0, bytes);
        Ok(())
    }

    /// The port at stack entry `i`, or a type error naming `who`.
    pub(crate) fn port(&self, i: usize, who: &str) -> Result<Gc<'_>, VmError> {
        self.expect(i, self.t.io.port, "a port", who)
    }

    /// The flags of the port at stack entry `i`.
    pub(crate) fn port_flags(&self, i: usize, who: &str) -> Result<u64, VmError> {
        let p = self.port(i, who)?;
        Ok(self.m.get_word(p, self.t.io.port_flags))
    }

    /// Sets the flags of the port at stack entry `i` (a port).
    pub(crate) fn set_port_flags(&self, i: usize, flags: u64) {
        let p = self.obj(i).expect("a port");
        self.m.set_word(p, self.t.io.port_flags, flags);
    }

    /// The open port at stack entry `i` with all of `want` among its flags
    /// (`IN` or `OUT`, and `BINARY` for binary ports): its flags, or an error
    /// naming `who`.
    pub(crate) fn open_port(&self, i: usize, want: u64, who: &str) -> Result<u64, VmError> {
        let flags = self.port_flags(i, who)?;
        if flags & want != want {
            let what = match (want & IN != 0, want & BINARY != 0) {
                (true, true) => "a binary input port",
                (true, false) => "an input port",
                (false, true) => "a binary output port",
                (false, false) => "an output port",
            };
            return Err(self.type_error(who, what, i));
        }
        if want & BINARY == 0 && flags & BINARY != 0 {
            return Err(self.type_error(who, "a textual port", i));
        }
        if flags & OPEN == 0 {
            return Err(VmError::runtime(format!("{who}: the port is closed")));
        }
        Ok(flags)
    }

    /// Pushes current port `k` (0 input, 1 output, 2 error); its stack index.
    pub(crate) fn push_current_port(&mut self, k: usize) -> Result<usize, VmError> {
        let v = self
            .global_value(CURRENT[k])
            .ok_or_else(|| VmError::runtime("the current ports are not set up"))?;
        self.m.push_value(v);
        Ok(self.top())
    }

    /// The stack index of the port argument `base + at` if given (`argc > at`),
    /// else of current port `k`, pushed.
    pub(crate) fn port_arg(
        &mut self,
        base: usize,
        argc: usize,
        at: usize,
        k: usize,
    ) -> Result<usize, VmError> {
        if argc > at {
            Ok(base + at)
        } else {
            self.push_current_port(k)
        }
    }

    /// Pushes the end-of-file object.
    pub(crate) fn push_eof(&mut self) -> Result<(), VmError> {
        let v = self
            .global_value(EOF_GLOBAL)
            .ok_or_else(|| VmError::runtime("the end-of-file object is not set up"))?;
        self.m.push_value(v);
        Ok(())
    }

    /// Flushes the program's output and every file being written.
    pub fn flush_files(&mut self) {
        self.flush();
        let shared = Arc::clone(&self.shared);
        self.m.blocking(move || lock(&shared.files).flush_all());
    }
}

/// Makes the end-of-file object and the three standard ports, and binds them
/// to their hidden globals (when the builtins are installed).
pub fn install(vm: &mut Vm) -> Result<(), VmError> {
    vm.m.push_fixed(vm.t.io.eof_alloc)?;
    vm.define_global(EOF_GLOBAL)?;
    let std = [(IN, STDIN), (OUT, STDOUT), (OUT, STDERR)];
    for (k, (dir, kind)) in std.into_iter().enumerate() {
        vm.push_port(dir | kind << KIND_SHIFT, 0)?;
        vm.dup(vm.top());
        vm.define_global(CURRENT[k])?;
        vm.define_global(STANDARD[k])?;
    }
    Ok(())
}

impl Vm {
    /// Makes the standard ports current again and uninstalls every exception
    /// handler: called when an error ends an evaluation (a REPL line), which may
    /// have left a `with-output-to-file` or `with-exception-handler` without
    /// running its `dynamic-wind` exit.
    pub(crate) fn reset_dynamic_state(&mut self) -> Result<(), VmError> {
        for k in 0..3 {
            if let Some(v) = self.global_value(STANDARD[k]) {
                self.m.push_value(v);
                self.define_global(CURRENT[k])?;
            }
        }
        if self.global_value(super::exceptions::HANDLERS).is_some() {
            self.m.push(None);
            self.define_global(super::exceptions::HANDLERS)?;
        }
        Ok(())
    }
}

/// `(open-input-string s)`.
pub fn open_input_string(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let s = vm.string(base, "open-input-string")?;
    vm.push_port(IN, 0)?;
    vm.push_bytes(s.as_bytes())?;
    let top = vm.top();
    set_buffer(vm, top - 1, top);
    vm.m.stack_truncate(top);
    Ok(())
}

/// Makes the bytevector at stack entry `b` the buffer of the port at `p`.
pub(crate) fn set_buffer(vm: &Vm, p: usize, b: usize) {
    let port = vm.obj(p).expect("a port");
    vm.m.set_value(port, vm.t.io.port_buf, vm.val(b));
    vm.m.set_word(port, vm.t.io.port_pos, 0);
}

/// `(open-input-bytevector bv)`.
pub fn open_input_bytevector(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    vm.expect(
        base,
        vm.t.io.bytevector,
        "a bytevector",
        "open-input-bytevector",
    )?;
    let bytes = vm.bytes_of(base);
    vm.push_port(IN | BINARY, 0)?;
    vm.push_bytes(&bytes)?;
    let top = vm.top();
    set_buffer(vm, top - 1, top);
    vm.m.stack_truncate(top);
    Ok(())
}

/// `(open-output-string)`.
pub fn open_output_string(vm: &mut Vm, _: usize, _: usize) -> Result<(), VmError> {
    vm.push_port(OUT, 0)
}

/// `(open-output-bytevector)`.
pub fn open_output_bytevector(vm: &mut Vm, _: usize, _: usize) -> Result<(), VmError> {
    vm.push_port(OUT | BINARY, 0)
}

impl Vm {
    /// The bytes of the bytevector (or string) at stack entry `i`.
    pub(crate) fn bytes_of(&self, i: usize) -> Vec<u8> {
        let g = self.obj(i).expect("a byte array");
        let mut out = vec![0; self.m.len(g)];
        self.m.read_bytes(g, 0, &mut out);
        out
    }

    /// What a memory output port at stack entry `i` holds.
    pub(crate) fn output_bytes(&self, i: usize) -> Vec<u8> {
        let p = self.obj(i).expect("a port");
        let fill = self.m.get_word(p, self.t.io.port_pos) as usize;
        let mut out = vec![0; fill];
        if let Some(buf) = self.m.get_ref(p, self.t.io.port_buf) {
            self.m.read_bytes(buf, 0, &mut out);
        }
        out
    }
}

fn memory_output(vm: &Vm, base: usize, binary: u64, who: &str) -> Result<(), VmError> {
    let flags = vm.port_flags(base, who)?;
    if flags & OUT == 0 || flags & BINARY != binary || kind_of(flags) != MEMORY {
        let what = if binary != 0 {
            "a bytevector output port"
        } else {
            "a string output port"
        };
        return Err(vm.type_error(who, what, base));
    }
    Ok(())
}

/// `(get-output-string port)`.
pub fn get_output_string(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    memory_output(vm, base, 0, "get-output-string")?;
    let bytes = vm.output_bytes(base);
    vm.push_str(&String::from_utf8_lossy(&bytes))
}

/// `(get-output-bytevector port)`.
pub fn get_output_bytevector(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    memory_output(vm, base, BINARY, "get-output-bytevector")?;
    let bytes = vm.output_bytes(base);
    vm.push_bytes(&bytes)
}

/// `(%open-file name mode)`: a file port (mode 0 textual input, 1 textual
/// output, 2 binary input, 3 binary output), or, if the file cannot be opened,
/// a file error raised.
pub fn open_file(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let name = vm.string(base, "open-file")?;
    let mode = vm.int(base + 1, "open-file")?;
    let (input, binary) = (mode & 1 == 0, mode & 2 != 0);
    let who = match (input, binary) {
        (true, false) => "open-input-file",
        (false, false) => "open-output-file",
        (true, true) => "open-binary-input-file",
        (false, true) => "open-binary-output-file",
    };
    let shared = Arc::clone(&vm.shared);
    let opened = vm.m.blocking(move || {
        let f = if input {
            std::fs::File::open(&name).map(HostFile::Read)
        } else {
            std::fs::File::create(&name).map(|f| HostFile::Write(std::io::BufWriter::new(f)))
        };
        let mut files = lock(&shared.files);
        files.reap();
        f.map(|f| files.add(f))
            .map_err(|e| format!("{who}: cannot open {name:?}: {e}"))
    });
    let index = match opened {
        Ok(i) => i,
        Err(msg) => return Err(vm.raise_file_error(msg)),
    };
    let dir = if input { IN } else { OUT };
    let bin = if binary { BINARY } else { 0 };
    vm.push_port(dir | bin | FILE << KIND_SHIFT, index as u64)?;
    let p = vm.obj(vm.top()).expect("fresh");
    // The file is closed once a collection finds the port unreachable
    // (`FileTable::reap`).
    let files = lock(&vm.shared.files);
    vm.m.register_cleaner(p, index as u64, &files.dead);
    Ok(())
}

/// Closes the port at stack entry `i` on the sides in `sides` (`IN`, `OUT`).
fn close(vm: &mut Vm, i: usize, sides: u64, who: &str) -> Result<(), VmError> {
    let flags = vm.port_flags(i, who)?;
    if flags & OPEN == 0 || flags & sides == 0 {
        vm.push_unspec();
        return Ok(());
    }
    vm.set_port_flags(i, flags & !OPEN);
    if kind_of(flags) == FILE {
        let p = vm.obj(i).expect("a port");
        let index = vm.m.get_word(p, vm.t.io.port_host) as usize;
        let shared = Arc::clone(&vm.shared);
        let r = vm.m.blocking(move || {
            let mut files = lock(&shared.files);
            files.reap();
            files.close(index)
        });
        if let Err(e) = r {
            return Err(vm.raise_file_error(format!("{who}: {e}")));
        }
    } else if kind_of(flags) == STDOUT {
        vm.flush();
    }
    vm.push_unspec();
    Ok(())
}

/// `(close-port port)`.
pub fn close_port(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    close(vm, base, IN | OUT, "close-port")
}

/// `(close-input-port port)` (an output port stays open).
pub fn close_input_port(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    close(vm, base, IN, "close-input-port")
}

/// `(close-output-port port)` (an input port stays open).
pub fn close_output_port(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    close(vm, base, OUT, "close-output-port")
}

fn port_pred(vm: &mut Vm, base: usize, test: fn(u64) -> bool) -> Result<(), VmError> {
    let b = vm.is(base, vm.t.io.port) && test(vm.port_flags(base, "")?);
    vm.push_bool(b);
    Ok(())
}

macro_rules! port_preds {
    ($($name:ident $scheme:literal $f:expr;)*) => {$(
        #[doc = concat!("`", $scheme, "`.")]
        pub fn $name(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
            port_pred(vm, base, $f)
        }
    )*};
}

port_preds! {
    is_port "port?" |_| true;
    is_input_port "input-port?" |f| f & IN != 0;
    is_output_port "output-port?" |f| f & OUT != 0;
    is_textual_port "textual-port?" |f| f & BINARY == 0;
    is_binary_port "binary-port?" |f| f & BINARY != 0;
}

/// `(input-port-open? port)`.
pub fn is_input_port_open(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let f = vm.port_flags(base, "input-port-open?")?;
    vm.push_bool(f & IN != 0 && f & OPEN != 0);
    Ok(())
}

/// `(output-port-open? port)`.
pub fn is_output_port_open(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let f = vm.port_flags(base, "output-port-open?")?;
    vm.push_bool(f & OUT != 0 && f & OPEN != 0);
    Ok(())
}

/// `(%current-port k)`: current port `k` (0 input, 1 output, 2 error).
pub fn current_port(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let k = vm.int(base, "%current-port")?.clamp(0, 2) as usize;
    vm.push_current_port(k)?;
    Ok(())
}

/// `(%set-current-port! k port)`: makes `port` current port `k` (checked:
/// an input port for 0, an output port for 1 and 2).
pub fn set_current_port(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let k = vm.int(base, "%set-current-port!")?.clamp(0, 2) as usize;
    let who = [
        "current-input-port",
        "current-output-port",
        "current-error-port",
    ][k];
    let flags = vm.port_flags(base + 1, who)?;
    let want = if k == 0 { IN } else { OUT };
    if flags & want == 0 {
        let what = if k == 0 {
            "an input port"
        } else {
            "an output port"
        };
        return Err(vm.type_error(who, what, base + 1));
    }
    vm.dup(base + 1);
    vm.define_global(CURRENT[k])?;
    vm.dup(base + 1);
    Ok(())
}

/// `(eof-object)`.
pub fn eof_object(vm: &mut Vm, _: usize, _: usize) -> Result<(), VmError> {
    vm.push_eof()
}

/// `(eof-object? x)`.
pub fn is_eof_object(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = vm.is(base, vm.t.io.eof);
    vm.push_bool(b);
    Ok(())
}

/// `(file-exists? name)`.
pub fn file_exists(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let name = vm.string(base, "file-exists?")?;
    let b = std::path::Path::new(&name).exists();
    vm.push_bool(b);
    Ok(())
}

/// `(delete-file name)`: a file error if it cannot be deleted.
pub fn delete_file(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let name = vm.string(base, "delete-file")?;
    if let Err(e) = std::fs::remove_file(&name) {
        return Err(vm.raise_file_error(format!("delete-file: cannot delete {name:?}: {e}")));
    }
    vm.push_unspec();
    Ok(())
}
