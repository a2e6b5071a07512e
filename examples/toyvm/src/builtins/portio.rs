//! Reading and writing through textual ports (R7RS 6.13.2, 6.13.3):
//! `read-char`, `peek-char`, `read-line`, `read-string`, `char-ready?`, `read`
//! (the datum reader), and `write`, `display`, `newline`, `write-char`,
//! `write-string`, `flush-output-port` (binary ports' are in `binport.rs`). Each takes an optional port (the
//! current input or output port without one). The port objects, and how an
//! input port's heap buffer is refilled from its host source, are described in
//! `ports.rs`.

use super::ports::{kind_of, FILE, HOST_EOF, IN, MEMORY, OUT, STDERR, STDIN, STDOUT};
use crate::error::VmError;
use crate::shared::lock;
use crate::vm::print::{Labels, MAX_PRINT};
use crate::vm::{as_char, Vm};
use std::io::BufRead;
use std::sync::Arc;

/// Bytes the datum reader looks at first (doubled while a datum does not fit).
const READ_WINDOW: usize = 256;

impl Vm {
    /// The input port at stack entry `p`: its buffer's unread bytes, at most
    /// `max` of them.
    pub(crate) fn unread(&self, p: usize, max: usize) -> Vec<u8> {
        let port = self.obj(p).expect("a port");
        let Some(buf) = self.m.get_ref(port, self.t.io.port_buf) else {
            return Vec::new();
        };
        let pos = self.m.get_word(port, self.t.io.port_pos) as usize;
        let n = (self.m.len(buf) - pos).min(max);
        let mut out = vec![0; n];
        self.m.read_bytes(buf, pos, &mut out);
        out
    }

    /// How many unread bytes the input port at stack entry `p` has buffered.
    fn buffered(&self, p: usize) -> usize {
        let port = self.obj(p).expect("a port");
        let pos = self.m.get_word(port, self.t.io.port_pos) as usize;
        self.m
            .get_ref(port, self.t.io.port_buf)
            .map_or(0, |b| self.m.len(b) - pos)
    }

    /// Consumes `n` buffered bytes of the input port at stack entry `p`.
    pub(crate) fn consume(&self, p: usize, n: usize) {
        let port = self.obj(p).expect("a port");
        let pos = self.m.get_word(port, self.t.io.port_pos);
        self.m.set_word(port, self.t.io.port_pos, pos + n as u64);
    }

    /// Reads more of the input port at stack entry `p`'s host source into its
    /// buffer (after the unread bytes): false if there is no more (a string or
    /// bytevector port, or the end of the file or of standard input). A GC point.
    fn refill(&mut self, p: usize) -> Result<bool, VmError> {
        let port = self.obj(p).expect("a port");
        let flags = self.m.get_word(port, self.t.io.port_flags);
        let host = self.m.get_word(port, self.t.io.port_host) as usize;
        if flags & HOST_EOF != 0 {
            return Ok(false);
        }
        let chunk = match kind_of(flags) {
            FILE => {
                let shared = Arc::clone(&self.shared);
                let r = self
                    .m
                    .blocking(move || lock(&shared.files).read_chunk(host));
                match r {
                    Ok(c) => c,
                    Err(e) => return Err(self.raise_file_error(format!("read: {e}"))),
                }
            }
            STDIN => self.m.blocking(|| {
                let mut line = Vec::new();
                let _ = std::io::stdin().lock().read_until(b'\n', &mut line);
                line
            }),
            _ => Vec::new(),
        };
        if chunk.is_empty() {
            self.set_port_flags(p, flags | HOST_EOF);
            return Ok(false);
        }
        let mut bytes = self.unread(p, usize::MAX);
        bytes.extend_from_slice(&chunk);
        self.push_bytes(&bytes)?;
        let top = self.top();
        super::ports::set_buffer(self, p, top);
        self.m.stack_truncate(top);
        Ok(true)
    }

    /// At least `n` unread bytes buffered in the input port at `p`, unless its
    /// source ends first: how many there are.
    pub(crate) fn fill(&mut self, p: usize, n: usize) -> Result<usize, VmError> {
        loop {
            let have = self.buffered(p);
            if have >= n {
                return Ok(n);
            }
            if !self.refill(p)? {
                return Ok(have);
            }
        }
    }

    /// The next character of the textual input port at `p` (consumed if
    /// `take`), or `None` at the end. Invalid UTF-8 reads as U+FFFD.
    fn next_char(&mut self, p: usize, take: bool) -> Result<Option<char>, VmError> {
        if self.fill(p, 1)? == 0 {
            return Ok(None);
        }
        let first = self.unread(p, 1)[0];
        let width = match first {
            0..=0x7f => 1,
            0xc0..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf7 => 4,
            _ => 1,
        };
        let have = self.fill(p, width)?;
        let bytes = self.unread(p, have.min(width));
        let (c, used) = match std::str::from_utf8(&bytes) {
            Ok(s) => (s.chars().next().unwrap_or('\u{fffd}'), bytes.len()),
            Err(_) => ('\u{fffd}', 1),
        };
        if take {
            self.consume(p, used);
        }
        Ok(Some(c))
    }

    /// Writes `bytes` to the open output port at stack entry `p` (with `flags`).
    pub(crate) fn port_write(&mut self, p: usize, flags: u64, bytes: &[u8]) -> Result<(), VmError> {
        match kind_of(flags) {
            STDOUT => {
                self.out.push_str(&String::from_utf8_lossy(bytes));
                if self.out.len() > 1 << 16 {
                    self.flush();
                }
            }
            STDERR => {
                self.flush();
                let text = bytes.to_vec();
                self.m.blocking(move || {
                    use std::io::Write;
                    let _ = std::io::stderr().write_all(&text);
                });
            }
            FILE => {
                let port = self.obj(p).expect("a port");
                let index = self.m.get_word(port, self.t.io.port_host) as usize;
                let r = lock(&self.shared.files).write(index, bytes);
                if let Err(e) = r {
                    return Err(self.raise_file_error(format!("write: {e}")));
                }
            }
            _ => self.append(p, bytes)?,
        }
        Ok(())
    }

    /// Appends `bytes` to the buffer of the memory output port at `p`, doubling
    /// the buffer when full. A GC point.
    fn append(&mut self, p: usize, bytes: &[u8]) -> Result<(), VmError> {
        let port = self.obj(p).expect("a port");
        let fill = self.m.get_word(port, self.t.io.port_pos) as usize;
        let cap = self
            .m
            .get_ref(port, self.t.io.port_buf)
            .map_or(0, |b| self.m.len(b));
        if fill + bytes.len() > cap {
            let old = self.output_bytes(p);
            let new_cap = (cap * 2).max(fill + bytes.len()).max(32);
            self.m.alloc_push(self.t.io.bytevector, new_cap)?;
            let top = self.top();
            let buf = self.obj(top).expect("fresh");
            self.m.write_bytes(buf, 0, &old);
            let port = self.obj(p).expect("a port");
            self.m.set_value(port, self.t.io.port_buf, self.val(top));
            self.m.stack_truncate(top);
        }
        let port = self.obj(p).expect("a port");
        let buf = self.m.get_ref(port, self.t.io.port_buf).expect("a buffer");
        self.m.write_bytes(buf, fill, bytes);
        self.m
            .set_word(port, self.t.io.port_pos, (fill + bytes.len()) as u64);
        Ok(())
    }

    /// Writes `text` to the port argument `base + at` (or the current output
    /// port), which must be an open textual output port.
    fn write_text(
        &mut self,
        base: usize,
        argc: usize,
        at: usize,
        text: &str,
        who: &str,
    ) -> Result<(), VmError> {
        let p = self.port_arg(base, argc, at, 1)?;
        let flags = self.open_port(p, OUT, who)?;
        self.port_write(p, flags, text.as_bytes())
    }
}

fn char_arg(vm: &Vm, i: usize, who: &str) -> Result<char, VmError> {
    as_char(vm.val(i)).ok_or_else(|| vm.type_error(who, "a character", i))
}

fn char_result(vm: &mut Vm, c: Option<char>) -> Result<(), VmError> {
    match c {
        Some(c) => {
            vm.push_char(c);
            Ok(())
        }
        None => vm.push_eof(),
    }
}

/// `(read-char [port])`.
pub fn read_char(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let p = vm.port_arg(base, argc, 0, 0)?;
    vm.open_port(p, IN, "read-char")?;
    let c = vm.next_char(p, true)?;
    char_result(vm, c)
}

/// `(peek-char [port])`.
pub fn peek_char(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let p = vm.port_arg(base, argc, 0, 0)?;
    vm.open_port(p, IN, "peek-char")?;
    let c = vm.next_char(p, false)?;
    char_result(vm, c)
}

/// `(char-ready? [port])`: true unless reading would wait for standard input
/// (a line is read at a time, so after a whole line has been used up).
pub fn char_ready(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let p = vm.port_arg(base, argc, 0, 0)?;
    let flags = vm.open_port(p, IN, "char-ready?")?;
    let ready = kind_of(flags) != STDIN || flags & HOST_EOF != 0 || vm.buffered(p) > 0;
    vm.push_bool(ready);
    Ok(())
}

/// `(read-line [port])`: the rest of the line without its newline (a `\r`
/// before it is kept, as Guile keeps it), or the end-of-file object at the end.
pub fn read_line(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let p = vm.port_arg(base, argc, 0, 0)?;
    vm.open_port(p, IN, "read-line")?;
    let mut scanned = 0;
    loop {
        let have = vm.buffered(p);
        let rest = vm.unread(p, have);
        if let Some(n) = rest[scanned..].iter().position(|&b| b == b'\n') {
            let line = String::from_utf8_lossy(&rest[..scanned + n]).into_owned();
            vm.consume(p, scanned + n + 1);
            return vm.push_str(&line);
        }
        scanned = rest.len();
        if !vm.refill(p)? {
            if rest.is_empty() {
                return vm.push_eof();
            }
            vm.consume(p, rest.len());
            return vm.push_str(&String::from_utf8_lossy(&rest));
        }
    }
}

/// `(read-string k [port])`: up to `k` characters, or the end-of-file object
/// if none are left.
pub fn read_string(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let k = vm.index(base, "read-string")?;
    let p = vm.port_arg(base, argc, 1, 0)?;
    vm.open_port(p, IN, "read-string")?;
    let mut s = String::new();
    let mut n = 0;
    while n < k {
        match vm.next_char(p, true)? {
            Some(c) => s.push(c),
            None => break,
        }
        n += 1;
    }
    if n == 0 && k > 0 {
        return vm.push_eof();
    }
    vm.push_str(&s)
}

/// `(read [port])`: the next datum, or the end-of-file object. A malformed
/// datum raises a read error.
pub fn read(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let p = vm.port_arg(base, argc, 0, 0)?;
    vm.open_port(p, IN, "read")?;
    let mut window = READ_WINDOW;
    loop {
        let have = vm.buffered(p);
        let bytes = vm.unread(p, window.min(have));
        let whole = bytes.len() == have;
        // Cut at the last complete character.
        let text = match std::str::from_utf8(&bytes) {
            Ok(s) => s,
            Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or(""),
        };
        let r = crate::reader::read_prefix(text);
        // A datum that reaches the end of what was looked at may go on past it
        // (a symbol or number cut short), unless the source ends there.
        let settled = match &r {
            Ok(Some((_, used))) => *used < text.len(),
            _ => false,
        };
        if settled || (whole && !vm.refill(p)?) {
            return match r {
                Ok(Some((d, used))) => {
                    vm.consume(p, used);
                    vm.build_datum(&d)
                }
                Ok(None) => {
                    vm.consume(p, have);
                    vm.push_eof()
                }
                Err(e) => {
                    vm.consume(p, have);
                    Err(vm.raise_read_error(format!("read: {}", e.message)))
                }
            };
        }
        if !whole {
            window *= 2;
        }
    }
}

fn output(
    vm: &mut Vm,
    base: usize,
    argc: usize,
    write: bool,
    labels: Labels,
) -> Result<(), VmError> {
    let who = if write { "write" } else { "display" };
    let p = vm.port_arg(base, argc, 1, 1)?;
    let flags = vm.open_port(p, OUT, who)?;
    if kind_of(flags) == STDOUT {
        // Straight into the program's output buffer.
        let mut s = std::mem::take(&mut vm.out);
        let mark = s.len();
        let r = vm.print_with(vm.val(base), write, labels, &mut s, mark + MAX_PRINT);
        if r.is_err() {
            s.truncate(mark);
        }
        vm.out = s;
        r.map_err(|_| VmError::runtime("printed form too large (more than 64 MiB)"))?;
        if vm.out.len() > 1 << 16 {
            vm.flush();
        }
    } else {
        let mut s = String::new();
        vm.print_with(vm.val(base), write, labels, &mut s, MAX_PRINT)
            .map_err(|_| VmError::runtime("printed form too large (more than 64 MiB)"))?;
        vm.port_write(p, flags, s.as_bytes())?;
    }
    vm.push_unspec();
    Ok(())
}

/// `(display obj [port])`. Cycles are shown with datum labels.
pub fn display(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    output(vm, base, argc, false, Labels::Cycles)
}

/// `(write obj [port])`: cycles are shown with datum labels (`#0=(1 . #0#)`).
pub fn write(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    output(vm, base, argc, true, Labels::Cycles)
}

/// `(write-shared obj [port])`: every pair and vector that appears more than
/// once is labelled.
pub fn write_shared(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    output(vm, base, argc, true, Labels::Shared)
}

/// `(write-simple obj [port])`: no labels (a cycle fails once the output passes
/// 64 MiB).
pub fn write_simple(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    output(vm, base, argc, true, Labels::None)
}

/// `(newline [port])` (flushes the program's output when written there).
pub fn newline(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let p = vm.port_arg(base, argc, 0, 1)?;
    let flags = vm.open_port(p, OUT, "newline")?;
    vm.port_write(p, flags, b"\n")?;
    if kind_of(flags) == STDOUT {
        vm.flush();
    }
    vm.push_unspec();
    Ok(())
}

/// `(write-char c [port])`.
pub fn write_char(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let c = char_arg(vm, base, "write-char")?;
    let mut utf8 = [0; 4];
    vm.write_text(base, argc, 1, c.encode_utf8(&mut utf8), "write-char")?;
    vm.push_unspec();
    Ok(())
}

/// `(write-string s [port [start [end]]])`.
pub fn write_string(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let s = vm.string(base, "write-string")?;
    let part = if argc > 2 {
        let chars: Vec<char> = s.chars().collect();
        let start = vm.index(base + 2, "write-string")?;
        let end = if argc > 3 {
            vm.index(base + 3, "write-string")?
        } else {
            chars.len()
        };
        if start > end || end > chars.len() {
            return Err(VmError::runtime(format!(
                "write-string: range {start}..{end} out of bounds for length {}",
                chars.len()
            )));
        }
        chars[start..end].iter().collect()
    } else {
        s
    };
    vm.write_text(base, argc, 1, &part, "write-string")?;
    vm.push_unspec();
    Ok(())
}

/// `(flush-output-port [port])`.
pub fn flush_output_port(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let p = vm.port_arg(base, argc, 0, 1)?;
    let binary = vm.port_flags(p, "flush-output-port")? & super::ports::BINARY;
    let flags = vm.open_port(p, OUT | binary, "flush-output-port")?;
    match kind_of(flags) {
        FILE => {
            let port = vm.obj(p).expect("a port");
            let index = vm.m.get_word(port, vm.t.io.port_host) as usize;
            let shared = Arc::clone(&vm.shared);
            let r = vm.m.blocking(move || lock(&shared.files).flush(index));
            if let Err(e) = r {
                return Err(vm.raise_file_error(format!("flush-output-port: {e}")));
            }
        }
        MEMORY => {}
        _ => vm.flush(),
    }
    vm.push_unspec();
    Ok(())
}
