//! The builtin procedures: the table ([`BUILTINS`], looked up by name) and its
//! calling convention. A builtin gets its `argc` arguments at stack indices
//! `base..base + argc` and pushes its result (anything it pushes above the
//! arguments is dropped by the caller, which keeps only the top).

mod binport;
mod bytevector;
mod control;
mod exceptions;
mod hashtable;
mod list;
mod num;
mod portio;
pub mod ports;
mod r7rs;
mod record;
mod string;
mod system;
mod weak;

use crate::error::VmError;
use crate::vm::Vm;
use std::collections::HashMap;
use std::sync::OnceLock;

/// A builtin's implementation: `(vm, base, argc)`.
pub type BuiltinFn = fn(&mut Vm, usize, usize) -> Result<(), VmError>;

/// One builtin procedure.
pub struct Builtin {
    /// Its global name.
    pub name: &'static str,
    /// Fewest arguments.
    pub min: usize,
    /// Most arguments (`None`: any number).
    pub max: Option<usize>,
    /// The implementation.
    pub f: BuiltinFn,
}

/// What the compiler needs to know about a builtin.
#[derive(Clone, Copy, Debug)]
pub struct BuiltinRef {
    /// Index into [`BUILTINS`].
    pub id: u16,
    /// Fewest arguments.
    pub min: usize,
    /// Most arguments.
    pub max: Option<usize>,
    /// Whether calls may be compiled to [`crate::bytecode::Op::Prim`] (not `apply`,
    /// which needs the call machinery).
    pub inline: bool,
}

/// Index of `apply` in [`BUILTINS`] (handled by the interpreter's call path).
pub const APPLY: usize = 0;
/// Index of `+` in [`BUILTINS`] (the interpreter adds two fixnums itself).
pub const ADD: u16 = 1;
/// Index of `-` in [`BUILTINS`].
pub const SUB: u16 = 2;
/// Index of `=` in [`BUILTINS`].
pub const NUM_EQ: u16 = 11;
/// Index of `<` in [`BUILTINS`].
pub const NUM_LT: u16 = 12;
/// Index of `>` in [`BUILTINS`].
pub const NUM_GT: u16 = 13;
/// Index of `<=` in [`BUILTINS`].
pub const NUM_LE: u16 = 14;
/// Index of `>=` in [`BUILTINS`].
pub const NUM_GE: u16 = 15;

/// Whether the interpreter computes builtin `id` on two fixnums itself (`+`,
/// `-`, `=`, `<`, `>`, `<=`, `>=`; `crate::vm` `Op::Prim` and `Op::PrimInt`).
#[inline(always)]
pub fn fixnum_fast(id: u16) -> bool {
    id == ADD || id == SUB || (NUM_EQ..=NUM_GE).contains(&id)
}

/// Index of `%call/cc` in [`BUILTINS`] (handled by the interpreter's call path:
/// it captures the continuation, `crate::vm` `cont.rs`).
pub const CALLCC: usize = index_of("%call/cc");

/// Whether builtin `id` is one of the comparisons among
/// [`fixnum_fast`] (`=`, `<`, `>`, `<=`, `>=`), whose result is a boolean.
#[inline(always)]
pub fn fixnum_compare(id: u16) -> bool {
    (NUM_EQ..=NUM_GE).contains(&id)
}

fn apply_placeholder(_: &mut Vm, _: usize, _: usize) -> Result<(), VmError> {
    Err(VmError::runtime("apply: called outside the interpreter"))
}

/// The index of the builtin named `name` in [`BUILTINS`], at compile time.
const fn index_of(name: &str) -> usize {
    let mut i = 0;
    while i < NAMES.len() {
        let (a, b) = (NAMES[i].as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return i;
            }
        }
        i += 1;
    }
    panic!("no builtin of that name");
}

macro_rules! table {
    ($( $name:literal $min:literal $max:tt => $f:path ;)*) => {
        /// Every builtin, by index.
        pub static BUILTINS: &[Builtin] = &[
            $( Builtin { name: $name, min: $min, max: table!(@max $max), f: $f }, )*
        ];
        /// Every builtin's name, by index (for [`index_of`]).
        const NAMES: &[&str] = &[$( $name, )*];
    };
    (@max _) => { None };
    (@max $n:literal) => { Some($n) };
}

table! {
    "apply" 2 _ => apply_placeholder;
    "+" 0 _ => num::add;
    "-" 1 _ => num::sub;
    "*" 0 _ => num::mul;
    "/" 1 _ => num::div;
    "quotient" 2 2 => num::quotient;
    "remainder" 2 2 => num::remainder;
    "modulo" 2 2 => num::modulo;
    "abs" 1 1 => num::abs;
    "min" 1 _ => num::min;
    "max" 1 _ => num::max;
    "=" 1 _ => num::num_eq;
    "<" 1 _ => num::lt;
    ">" 1 _ => num::gt;
    "<=" 1 _ => num::le;
    ">=" 1 _ => num::ge;
    "zero?" 1 1 => num::is_zero;
    "positive?" 1 1 => num::is_positive;
    "negative?" 1 1 => num::is_negative;
    "even?" 1 1 => num::is_even;
    "odd?" 1 1 => num::is_odd;
    "exact->inexact" 1 1 => num::to_inexact;
    "inexact" 1 1 => num::to_inexact;
    "inexact->exact" 1 1 => num::to_exact;
    "exact" 1 1 => num::to_exact;
    "floor" 1 1 => num::floor;
    "round" 1 1 => num::round;
    "sqrt" 1 1 => num::sqrt;
    "number->string" 1 2 => num::number_to_string;
    "string->number" 1 2 => num::string_to_number;
    "number?" 1 1 => num::is_number;
    "integer?" 1 1 => num::is_integer;
    "eq?" 2 2 => system::is_eqv;
    "eqv?" 2 2 => system::is_eqv;
    "equal?" 2 2 => system::is_equal;
    "not" 1 1 => system::not;
    "null?" 1 1 => system::is_null;
    "pair?" 1 1 => system::is_pair;
    "string?" 1 1 => system::is_string;
    "symbol?" 1 1 => system::is_symbol;
    "vector?" 1 1 => system::is_vector;
    "procedure?" 1 1 => system::is_procedure;
    "boolean?" 1 1 => system::is_boolean;
    "char?" 1 1 => system::is_char;
    "display" 1 2 => portio::display;
    "write" 1 2 => portio::write;
    "write-shared" 1 2 => portio::write_shared;
    "write-simple" 1 2 => portio::write_simple;
    "newline" 0 1 => portio::newline;
    "exit" 0 1 => system::exit;
    "get-environment-variable" 1 1 => system::get_environment_variable;
    "get-environment-variables" 0 0 => system::get_environment_variables;
    "command-line" 0 0 => system::command_line;
    "gc" 0 0 => system::gc;
    "gc-stats" 0 0 => system::gc_stats;
    "spawn" 1 1 => crate::vm::spawn;
    "join" 1 1 => crate::vm::join;
    "cons" 2 2 => list::cons;
    "car" 1 1 => list::car;
    "cdr" 1 1 => list::cdr;
    "caar" 1 1 => list::caar;
    "cadr" 1 1 => list::cadr;
    "cdar" 1 1 => list::cdar;
    "cddr" 1 1 => list::cddr;
    "caddr" 1 1 => list::caddr;
    "set-car!" 2 2 => list::set_car;
    "set-cdr!" 2 2 => list::set_cdr;
    "list" 0 _ => list::list;
    "list?" 1 1 => list::is_list;
    "length" 1 1 => list::length;
    "append" 0 _ => list::append;
    "reverse" 1 1 => list::reverse;
    "list-ref" 2 2 => list::list_ref;
    "list-tail" 2 2 => list::list_tail;
    "assq" 2 2 => list::assv;
    "assv" 2 2 => list::assv;
    "assoc" 2 2 => list::assoc;
    "memq" 2 2 => list::memv;
    "memv" 2 2 => list::memv;
    "member" 2 2 => list::member;
    "make-vector" 1 2 => list::make_vector;
    "vector" 0 _ => list::vector;
    "vector-ref" 2 2 => list::vector_ref;
    "vector-set!" 3 3 => list::vector_set;
    "vector-length" 1 1 => list::vector_length;
    "vector->list" 1 3 => list::vector_to_list;
    "list->vector" 1 1 => list::list_to_vector;
    "vector-fill!" 2 4 => list::vector_fill;
    "string-length" 1 1 => string::string_length;
    "string-ref" 2 2 => string::string_ref;
    "string-append" 0 _ => string::string_append;
    "make-string" 1 2 => string::make_string;
    "substring" 2 3 => string::substring;
    "string=?" 1 _ => string::string_eq;
    "string<?" 1 _ => string::string_lt;
    "string->symbol" 1 1 => string::string_to_symbol;
    "symbol->string" 1 1 => string::symbol_to_string;
    "string->list" 1 3 => string::string_to_list;
    "list->string" 1 1 => string::list_to_string;
    "char->integer" 1 1 => string::char_to_integer;
    "integer->char" 1 1 => string::integer_to_char;
    "weak-cons" 2 2 => weak::weak_cons;
    "weak-pair?" 1 1 => weak::is_weak_pair;
    "ephemeron-cons" 2 2 => weak::ephemeron_cons;
    "ephemeron-pair?" 1 1 => weak::is_ephemeron_pair;
    "bwp-object?" 1 1 => weak::is_bwp;
    "make-guardian" 0 0 => weak::make_guardian;
    "make-eq-hashtable" 0 1 => hashtable::make_eq;
    "make-eqv-hashtable" 0 1 => hashtable::make_eqv;
    "make-weak-eq-hashtable" 0 1 => hashtable::make_weak_eq;
    "make-weak-eqv-hashtable" 0 1 => hashtable::make_weak_eqv;
    "make-ephemeron-eq-hashtable" 0 1 => hashtable::make_ephemeron_eq;
    "make-ephemeron-eqv-hashtable" 0 1 => hashtable::make_ephemeron_eqv;
    "hashtable?" 1 1 => hashtable::is_hashtable;
    "hashtable-weak?" 1 1 => hashtable::is_weak;
    "hashtable-ephemeron?" 1 1 => hashtable::is_ephemeron;
    "hashtable-set!" 3 3 => hashtable::set;
    "hashtable-ref" 3 3 => hashtable::get;
    "hashtable-delete!" 2 2 => hashtable::delete;
    "hashtable-contains?" 2 2 => hashtable::contains;
    "hashtable-size" 1 1 => hashtable::size;
    "hashtable-keys" 1 1 => hashtable::keys;
    "hashtable-values" 1 1 => hashtable::values;
    "hashtable-clear!" 1 1 => hashtable::clear;
    // R7RS-small (r7rs.rs), and the %-names the derived forms call.
    "current-jiffy" 0 0 => r7rs::current_jiffy;
    "jiffies-per-second" 0 0 => r7rs::jiffies_per_second;
    "current-second" 0 0 => r7rs::current_second;
    "exp" 1 1 => r7rs::exp;
    "log" 1 2 => r7rs::log;
    "sin" 1 1 => r7rs::sin;
    "cos" 1 1 => r7rs::cos;
    "tan" 1 1 => r7rs::tan;
    "asin" 1 1 => r7rs::asin;
    "acos" 1 1 => r7rs::acos;
    "atan" 1 2 => r7rs::atan;
    "expt" 2 2 => r7rs::expt;
    "truncate" 1 1 => r7rs::truncate;
    "ceiling" 1 1 => r7rs::ceiling;
    "exact-integer?" 1 1 => r7rs::is_exact_integer;
    "exact?" 1 1 => r7rs::is_exact;
    "inexact?" 1 1 => r7rs::is_inexact;
    "nan?" 1 1 => r7rs::is_nan;
    "string-set!" 3 3 => r7rs::string_set;
    "char-alphabetic?" 1 1 => r7rs::is_alphabetic;
    "char-numeric?" 1 1 => r7rs::is_numeric;
    "char-whitespace?" 1 1 => r7rs::is_whitespace;
    "char-upper-case?" 1 1 => r7rs::is_upper;
    "char-lower-case?" 1 1 => r7rs::is_lower;
    "char-upcase" 1 1 => r7rs::char_upcase;
    "char-downcase" 1 1 => r7rs::char_downcase;
    "char-foldcase" 1 1 => r7rs::char_downcase;
    "digit-value" 1 1 => r7rs::digit_value;
    "char=?" 1 _ => r7rs::char_eq;
    "char<?" 1 _ => r7rs::char_lt;
    "char>?" 1 _ => r7rs::char_gt;
    "char<=?" 1 _ => r7rs::char_le;
    "char>=?" 1 _ => r7rs::char_ge;
    "char-ci=?" 1 _ => r7rs::char_ci_eq;
    "char-ci<?" 1 _ => r7rs::char_ci_lt;
    "%call/cc" 1 1 => control::call_cc_placeholder;
    "%winds" 0 0 => control::winds;
    "%set-winds!" 1 1 => control::set_winds;
    "%cons" 2 2 => list::cons;
    "%list" 0 _ => list::list;
    "%vector" 0 _ => list::vector;
    "%record" 1 _ => record::record;
    "%record-of?" 2 2 => record::is_record_of;
    "%record-ref" 4 4 => record::record_ref;
    "%record-set!" 5 5 => record::record_set;
    "%list->vector" 1 1 => list::list_to_vector;
    // Ports (ports.rs, portio.rs).
    "open-input-string" 1 1 => ports::open_input_string;
    "open-output-string" 0 0 => ports::open_output_string;
    "get-output-string" 1 1 => ports::get_output_string;
    "open-input-bytevector" 1 1 => ports::open_input_bytevector;
    "open-output-bytevector" 0 0 => ports::open_output_bytevector;
    "get-output-bytevector" 1 1 => ports::get_output_bytevector;
    "%open-file" 2 2 => ports::open_file;
    "close-port" 1 1 => ports::close_port;
    "close-input-port" 1 1 => ports::close_input_port;
    "close-output-port" 1 1 => ports::close_output_port;
    "port?" 1 1 => ports::is_port;
    "input-port?" 1 1 => ports::is_input_port;
    "output-port?" 1 1 => ports::is_output_port;
    "textual-port?" 1 1 => ports::is_textual_port;
    "binary-port?" 1 1 => ports::is_binary_port;
    "input-port-open?" 1 1 => ports::is_input_port_open;
    "output-port-open?" 1 1 => ports::is_output_port_open;
    "%current-port" 1 1 => ports::current_port;
    "%set-current-port!" 2 2 => ports::set_current_port;
    "eof-object" 0 0 => ports::eof_object;
    "eof-object?" 1 1 => ports::is_eof_object;
    "file-exists?" 1 1 => ports::file_exists;
    "delete-file" 1 1 => ports::delete_file;
    "read" 0 1 => portio::read;
    "read-char" 0 1 => portio::read_char;
    "peek-char" 0 1 => portio::peek_char;
    "read-line" 0 1 => portio::read_line;
    "read-string" 1 2 => portio::read_string;
    "char-ready?" 0 1 => portio::char_ready;
    "read-u8" 0 1 => binport::read_u8;
    "peek-u8" 0 1 => binport::peek_u8;
    "u8-ready?" 0 1 => binport::u8_ready;
    "read-bytevector" 1 2 => binport::read_bytevector;
    "write-char" 1 2 => portio::write_char;
    "write-string" 1 4 => portio::write_string;
    "write-u8" 1 2 => binport::write_u8;
    "write-bytevector" 1 4 => binport::write_bytevector;
    "flush-output-port" 0 1 => portio::flush_output_port;
    // Bytevectors (bytevector.rs).
    "bytevector?" 1 1 => bytevector::is_bytevector;
    "make-bytevector" 1 2 => bytevector::make_bytevector;
    "bytevector" 0 _ => bytevector::bytevector;
    "bytevector-u8-ref" 2 2 => bytevector::bytevector_u8_ref;
    "bytevector-u8-set!" 3 3 => bytevector::bytevector_u8_set;
    "bytevector-length" 1 1 => bytevector::bytevector_length;
    "bytevector-copy" 1 3 => bytevector::bytevector_copy;
    "bytevector-copy!" 3 5 => bytevector::bytevector_copy_to;
    "bytevector-append" 0 _ => bytevector::bytevector_append;
    "utf8->string" 1 3 => bytevector::utf8_to_string;
    "string->utf8" 1 3 => bytevector::string_to_utf8;
    // Exceptions (exceptions.rs; the rest is in prelude-r7rs.scm).
    "%make-error" 3 3 => exceptions::make_error;
    "%raise-uncaught" 1 1 => exceptions::raise_uncaught;
    "error-object?" 1 1 => exceptions::is_error_object;
    "file-error?" 1 1 => exceptions::is_file_error;
    "read-error?" 1 1 => exceptions::is_read_error;
    "error-object-message" 1 1 => exceptions::error_object_message;
    "error-object-irritants" 1 1 => exceptions::error_object_irritants;
}

/// The builtin named `name`.
pub fn lookup(name: &str) -> Option<BuiltinRef> {
    static INDEX: OnceLock<HashMap<&'static str, usize>> = OnceLock::new();
    let index = INDEX.get_or_init(|| {
        let mut m = HashMap::new();
        for (i, b) in BUILTINS.iter().enumerate() {
            m.entry(b.name).or_insert(i);
        }
        m
    });
    index.get(name).map(|&i| BuiltinRef {
        id: i as u16,
        min: BUILTINS[i].min,
        max: BUILTINS[i].max,
        inline: i != APPLY && i != CALLCC,
    })
}

/// Binds every builtin as a global (in `vm`'s constant table).
pub fn install(vm: &mut Vm) -> Result<(), VmError> {
    for (i, b) in BUILTINS.iter().enumerate() {
        if lookup(b.name).is_some_and(|r| r.id as usize == i) {
            vm.push_word(vm.t.alloc.prim, vm.t.prim_index, i as u64)?;
            vm.define_global(b.name)?;
        }
    }
    ports::install(vm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_path_indexes_name_their_builtins() {
        let name = |i: u16| BUILTINS[i as usize].name;
        assert_eq!(name(ADD), "+");
        assert_eq!(name(SUB), "-");
        let cmp: Vec<_> = [NUM_EQ, NUM_LT, NUM_GT, NUM_LE, NUM_GE]
            .into_iter()
            .map(name)
            .collect();
        assert_eq!(cmp, ["=", "<", ">", "<=", ">="]);
        let fast: Vec<_> = (0..BUILTINS.len() as u16)
            .filter(|&i| fixnum_fast(i))
            .map(name)
            .collect();
        assert_eq!(fast, ["+", "-", "=", "<", ">", "<=", ">="]);
        assert_eq!(BUILTINS[APPLY].name, "apply");
        assert_eq!(BUILTINS[CALLCC].name, "%call/cc");
        assert!(!lookup("%call/cc").unwrap().inline);
    }
}
