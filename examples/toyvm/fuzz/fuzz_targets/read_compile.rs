//! cargo-fuzz target: bytes through the toy VM's reader (UTF-8 decoding and
//! `read_all`) and compiler (`compile_toplevel` of every form, with the
//! redefinition scan first, as a session does), linked against a linker that
//! only counts. Nothing runs. Any panic, hang or crash is a bug: the reader
//! and compiler must refuse bad input with a `VmError`.

#![no_main]

use flipgc_toyvm::bytecode::Proto;
use flipgc_toyvm::compile::{compile_toplevel, scan_redefinitions, Linker};
use flipgc_toyvm::reader::{self, Datum};
use flipgc_toyvm::VmError;
use libfuzzer_sys::fuzz_target;
use std::collections::HashSet;

/// A linker that hands out consecutive constant indices and keeps nothing.
struct CountingLinker(u32);

impl CountingLinker {
    fn next(&mut self) -> Result<u32, VmError> {
        self.0 = self.0.wrapping_add(1);
        Ok(self.0)
    }
}

impl Linker for CountingLinker {
    fn constant(&mut self, _: &Datum) -> Result<u32, VmError> {
        self.next()
    }

    fn global(&mut self, _: &str) -> Result<u32, VmError> {
        self.next()
    }

    fn code(&mut self, _: Proto) -> Result<u32, VmError> {
        self.next()
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(src) = reader::decode(data) else {
        return;
    };
    let Ok(forms) = reader::read_all(src) else {
        return;
    };
    let mut redefined = HashSet::new();
    scan_redefinitions(&forms, &mut redefined);
    let mut linker = CountingLinker(0);
    for form in &forms {
        let _ = compile_toplevel(form, &redefined, &mut linker);
    }
});
