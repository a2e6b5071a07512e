//! [`Session`]: a program's main thread: binds the VM, installs the builtins and
//! the prelude, then reads, compiles and runs source text form by form.

use crate::compile::syntax_rules::Syntax;
use crate::compile::{compile_toplevel, scan_redefinitions};
use crate::error::VmError;
use crate::reader::read_all;
use crate::shared::Shared;
use crate::types::VmTypes;
use crate::vm::Vm;
use flipgc_core::Heap;
use std::collections::HashSet;
use std::io::Write;

const PRELUDE: &str = include_str!("prelude.scm");
const PRELUDE_R7RS: &str = include_str!("prelude-r7rs.scm");

/// A running program (the REPL keeps one for its whole life).
pub struct Session {
    vm: Vm,
    redefined: HashSet<String>,
    syntax: Syntax,
}

impl Session {
    /// Binds a mutator for `heap` on the calling thread (which must not have one)
    /// and prepares the global environment. Output goes to `out`.
    pub fn new(
        heap: &Heap,
        types: &VmTypes,
        out: Box<dyn Write + Send>,
    ) -> Result<Session, VmError> {
        let shared = Shared::new(heap, types, out);
        let mut vm = Vm::new(shared)?;
        crate::builtins::install(&mut vm)?;
        let mut s = Session {
            vm,
            redefined: HashSet::new(),
            syntax: Syntax::new(),
        };
        s.eval("<prelude>", PRELUDE)?;
        s.eval("<prelude-r7rs>", PRELUDE_R7RS)?;
        Ok(s)
    }

    /// Runs every form of `src` (named `name` in syntax errors). Returns the
    /// written form of the last value, unless it is unspecified. Stops at the
    /// first error; the session stays usable.
    pub fn eval(&mut self, name: &str, src: &str) -> Result<Option<String>, VmError> {
        let with_source = |mut e: VmError| {
            e.source = name.to_string();
            e
        };
        let forms = read_all(src).map_err(with_source)?;
        scan_redefinitions(&forms, &mut self.redefined);
        self.syntax.source = name.to_string();
        let mut last = None;
        for form in &forms {
            let (stack, frames) = self.vm.mark();
            let r = compile_toplevel(form, &self.redefined, &mut self.syntax, &mut self.vm)
                .and_then(|pid| self.vm.push_closure(pid))
                .and_then(|()| self.vm.call_toplevel(0));
            if let Err(e) = r {
                self.vm.unwind(stack, frames);
                self.vm.flush_files();
                // An error skips `dynamic-wind` exits: no handler or redirected
                // port outlives it.
                let _ = self.vm.reset_dynamic_state();
                return Err(with_source(e));
            }
            let top = self.vm.top();
            last = (self.vm.val(top) != crate::vm::UNSPEC).then(|| self.vm.repr_full(top));
            self.vm.m.stack_truncate(stack);
        }
        self.vm.flush_files();
        Ok(last)
    }

    /// Limits the procedure calls (of every thread of the program) that later
    /// evaluations may make in total, or lifts the limit (`None`). Once the budget
    /// is spent, evaluation fails with [`crate::ErrorKind::StepLimit`]. Every loop
    /// runs through calls (there are no backward jumps), so this bounds the running
    /// time of any program up to the work one builtin does. Threads already running
    /// keep the calls they took (at most a thousand each).
    pub fn set_max_steps(&mut self, limit: Option<u64>) {
        *crate::shared::lock(&self.vm.shared.fuel) = crate::shared::Fuel {
            limit,
            left: limit.unwrap_or(0),
        };
        self.vm.fuel = 0;
    }

    /// The heap.
    pub fn heap(&self) -> &Heap {
        &self.vm.shared.heap
    }

    /// Flushes buffered output.
    pub fn flush(&mut self) {
        self.vm.flush();
    }

    /// Flushes buffered output and, if it did not end with a newline, writes one
    /// (the REPL calls this before it prints a value, an error or its prompt, so
    /// that `(display "abc")` is not hidden by the prompt).
    pub fn end_line(&mut self) {
        self.vm.flush();
        let shared = &self.vm.shared;
        if shared
            .line_open
            .swap(false, std::sync::atomic::Ordering::Relaxed)
        {
            let mut w = crate::shared::lock(&shared.out);
            let _ = w.write_all(b"\n");
            let _ = w.flush();
        }
    }
}
