//! The compiler: [`analyze`] turns datums into a resolved [`analyze::Expr`] tree
//! (scopes, captured and assigned variables, desugared forms), [`codegen`] turns
//! that into bytecode [`crate::bytecode::Proto`]s.

pub mod analyze;
pub mod codegen;
pub mod derived;
pub mod expand;
pub mod guard;
pub mod selfref;
pub mod syntax_rules;

use crate::error::VmError;
use crate::reader::Datum;
use std::collections::HashSet;

/// Where compiled code meets the runtime: constants, globals and code objects
/// live in the heap's constant table.
pub trait Linker {
    /// Constant-table index of the heap value for literal `d`.
    fn constant(&mut self, d: &Datum) -> Result<u32, VmError>;
    /// Constant-table index of global variable `name`'s cell.
    fn global(&mut self, name: &str) -> Result<u32, VmError>;
    /// The interned id of the symbol named `name` (what a quoted symbol
    /// is, as an immediate: `crate::vm::value`).
    fn symbol(&mut self, name: &str) -> u64;
    /// Registers `proto`; returns its index among the prototypes.
    fn code(&mut self, proto: crate::bytecode::Proto) -> Result<u32, VmError>;
}

/// Compiles one top-level form into a zero-argument prototype (registered with
/// `linker`); returns its prototype index. `redefined` names
/// builtins the program assigns, which are then called as ordinary globals;
/// `syntax` holds the session's macros (a top-level `define-syntax` adds one).
pub fn compile_toplevel(
    form: &Datum,
    redefined: &HashSet<String>,
    syntax: &mut syntax_rules::Syntax,
    linker: &mut dyn Linker,
) -> Result<u32, VmError> {
    let program = analyze::analyze_toplevel(form, redefined, syntax)?;
    codegen::generate(&program, linker)
}

/// Adds to `out` every builtin name that `forms` define or assign anywhere.
pub fn scan_redefinitions(forms: &[Datum], out: &mut HashSet<String>) {
    let mut work: Vec<&Datum> = forms.iter().collect();
    while let Some(d) = work.pop() {
        match &d.kind {
            crate::reader::DatumKind::List(items, tail) => {
                if let [head, target, ..] = items.as_slice() {
                    if matches!(head.sym(), Some("define" | "set!")) {
                        let name = match (&target.kind, target.list()) {
                            (crate::reader::DatumKind::Sym(s), _) => Some(s.as_str()),
                            (_, Some([f, ..])) => f.sym(),
                            (crate::reader::DatumKind::List(v, Some(_)), _) => {
                                v.first().and_then(|f| f.sym())
                            }
                            _ => None,
                        };
                        if let Some(n) = name {
                            if crate::builtins::lookup(n).is_some() {
                                out.insert(n.to_string());
                            }
                        }
                    }
                }
                work.extend(items.iter());
                if let Some(t) = tail {
                    work.push(t);
                }
            }
            crate::reader::DatumKind::Vector(items) => work.extend(items.iter()),
            _ => {}
        }
    }
}
