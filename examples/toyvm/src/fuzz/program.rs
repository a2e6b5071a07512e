//! The program grammar: top-level definitions and statements, expressions of the
//! special forms and builtins (typed, so that most calls get arguments of the
//! right kind), literals of every syntax, and targeted scenarios. `sloppy` is the
//! percentage of choices that are deliberately wrong: a wrong argument count or
//! type, an unbound name, a malformed special form.

use super::Rng;

mod forms;
mod macros;

/// What an expression should evaluate to (a hint: a sloppy choice ignores it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Any,
    Int,
    /// A small non-negative integer (an index or a length).
    Idx,
    Num,
    Str,
    Char,
    List,
    /// A list of characters.
    Chars,
    Vector,
    Sym,
    Bool,
    /// A procedure of one argument.
    Proc1,
    /// A procedure of two arguments.
    Proc2,
    /// A hashtable.
    Table,
}

use Ty::*;

/// A builtin's signature: fixed argument types (the last `opt` optional), the
/// type of further arguments if it takes any number, its result, and how often
/// to call it.
struct Sig {
    name: &'static str,
    args: &'static [Ty],
    opt: usize,
    rest: Option<Ty>,
    ret: Ty,
    weight: u32,
}

const fn sig(
    name: &'static str,
    args: &'static [Ty],
    opt: usize,
    rest: Option<Ty>,
    ret: Ty,
    weight: u32,
) -> Sig {
    Sig {
        name,
        args,
        opt,
        rest,
        ret,
        weight,
    }
}

/// The builtins (and prelude procedures) programs call.
const SIGS: &[Sig] = &[
    sig("+", &[], 0, Some(Num), Num, 8),
    sig("-", &[Num], 0, Some(Num), Num, 6),
    sig("*", &[], 0, Some(Num), Num, 5),
    sig("/", &[Num], 0, Some(Num), Num, 3),
    sig("quotient", &[Int, Int], 0, None, Int, 2),
    sig("remainder", &[Int, Int], 0, None, Int, 2),
    sig("modulo", &[Int, Int], 0, None, Int, 2),
    sig("abs", &[Num], 0, None, Num, 1),
    sig("min", &[Num], 0, Some(Num), Num, 1),
    sig("max", &[Num], 0, Some(Num), Num, 1),
    sig("=", &[Num], 0, Some(Num), Bool, 3),
    sig("<", &[Num], 0, Some(Num), Bool, 3),
    sig(">", &[Num], 0, Some(Num), Bool, 2),
    sig("<=", &[Num], 0, Some(Num), Bool, 2),
    sig(">=", &[Num], 0, Some(Num), Bool, 2),
    sig("zero?", &[Num], 0, None, Bool, 1),
    sig("positive?", &[Num], 0, None, Bool, 1),
    sig("negative?", &[Num], 0, None, Bool, 1),
    sig("even?", &[Int], 0, None, Bool, 1),
    sig("odd?", &[Int], 0, None, Bool, 1),
    sig("exact->inexact", &[Num], 0, None, Num, 1),
    sig("inexact", &[Num], 0, None, Num, 1),
    sig("inexact->exact", &[Num], 0, None, Num, 1),
    sig("exact", &[Num], 0, None, Num, 1),
    sig("floor", &[Num], 0, None, Num, 1),
    sig("round", &[Num], 0, None, Num, 1),
    sig("sqrt", &[Num], 0, None, Num, 1),
    sig("number->string", &[Num], 0, None, Str, 2),
    sig("string->number", &[Str], 0, None, Any, 1),
    sig("number?", &[Any], 0, None, Bool, 1),
    sig("integer?", &[Any], 0, None, Bool, 1),
    sig("eq?", &[Any, Any], 0, None, Bool, 2),
    sig("eqv?", &[Any, Any], 0, None, Bool, 2),
    sig("equal?", &[Any, Any], 0, None, Bool, 3),
    sig("not", &[Any], 0, None, Bool, 2),
    sig("null?", &[Any], 0, None, Bool, 2),
    sig("pair?", &[Any], 0, None, Bool, 2),
    sig("list?", &[Any], 0, None, Bool, 2),
    sig("string?", &[Any], 0, None, Bool, 1),
    sig("symbol?", &[Any], 0, None, Bool, 1),
    sig("vector?", &[Any], 0, None, Bool, 1),
    sig("procedure?", &[Any], 0, None, Bool, 1),
    sig("boolean?", &[Any], 0, None, Bool, 1),
    sig("char?", &[Any], 0, None, Bool, 1),
    sig("display", &[Any], 0, None, Any, 4),
    sig("write", &[Any], 0, None, Any, 4),
    sig("write-shared", &[Any], 0, None, Any, 1),
    sig("write-simple", &[Any], 0, None, Any, 1),
    sig("newline", &[], 0, None, Any, 2),
    sig("cons", &[Any, List], 0, None, List, 6),
    sig("car", &[List], 0, None, Any, 5),
    sig("cdr", &[List], 0, None, List, 5),
    sig("caar", &[List], 0, None, Any, 1),
    sig("cadr", &[List], 0, None, Any, 2),
    sig("cdar", &[List], 0, None, Any, 1),
    sig("cddr", &[List], 0, None, List, 1),
    sig("caddr", &[List], 0, None, Any, 1),
    sig("set-car!", &[List, Any], 0, None, Any, 2),
    sig("set-cdr!", &[List, Any], 0, None, Any, 2),
    sig("list", &[], 0, Some(Any), List, 6),
    sig("length", &[List], 0, None, Int, 3),
    sig("append", &[], 0, Some(List), List, 3),
    sig("reverse", &[List], 0, None, List, 2),
    sig("list-ref", &[List, Idx], 0, None, Any, 2),
    sig("list-tail", &[List, Idx], 0, None, List, 2),
    sig("assq", &[Any, List], 0, None, Any, 1),
    sig("assv", &[Any, List], 0, None, Any, 1),
    sig("assoc", &[Any, List], 0, None, Any, 1),
    sig("memq", &[Any, List], 0, None, Any, 1),
    sig("memv", &[Any, List], 0, None, Any, 1),
    sig("member", &[Any, List], 0, None, Any, 1),
    sig("make-vector", &[Idx, Any], 1, None, Vector, 2),
    sig("vector", &[], 0, Some(Any), Vector, 3),
    sig("vector-ref", &[Vector, Idx], 0, None, Any, 3),
    sig("vector-set!", &[Vector, Idx, Any], 0, None, Any, 2),
    sig("vector-length", &[Vector], 0, None, Int, 2),
    sig("vector->list", &[Vector], 0, None, List, 2),
    sig("list->vector", &[List], 0, None, Vector, 2),
    sig("vector-fill!", &[Vector, Any], 0, None, Any, 1),
    sig("string-length", &[Str], 0, None, Int, 2),
    sig("string-ref", &[Str, Idx], 0, None, Char, 2),
    sig("string-append", &[], 0, Some(Str), Str, 3),
    sig("substring", &[Str, Idx, Idx], 1, None, Str, 2),
    sig("string=?", &[Str], 0, Some(Str), Bool, 1),
    sig("string<?", &[Str], 0, Some(Str), Bool, 1),
    sig("string->symbol", &[Str], 0, None, Sym, 1),
    sig("symbol->string", &[Sym], 0, None, Str, 1),
    sig("string->list", &[Str], 0, None, Chars, 2),
    sig("list->string", &[Chars], 0, None, Str, 2),
    sig("char->integer", &[Char], 0, None, Int, 1),
    sig("integer->char", &[Int], 0, None, Char, 1),
    sig("make-string", &[Idx, Char], 1, None, Str, 2),
    sig("apply", &[Proc2, Any, List], 1, None, Any, 2),
    sig("map", &[Proc1, List], 0, None, List, 3),
    sig("for-each", &[Proc1, List], 0, None, Any, 2),
    sig("error", &[Str], 0, Some(Any), Any, 1),
    sig("gc", &[], 0, None, Any, 1),
    sig("make-eq-hashtable", &[Idx], 1, None, Table, 2),
    sig("make-eqv-hashtable", &[Idx], 1, None, Table, 2),
    sig("make-weak-eq-hashtable", &[Idx], 1, None, Table, 1),
    sig("make-weak-eqv-hashtable", &[Idx], 1, None, Table, 1),
    sig("make-ephemeron-eq-hashtable", &[Idx], 1, None, Table, 1),
    sig("make-ephemeron-eqv-hashtable", &[Idx], 1, None, Table, 1),
    sig("hashtable-set!", &[Table, Any, Any], 0, None, Any, 3),
    sig("hashtable-ref", &[Table, Any, Any], 0, None, Any, 3),
    sig(
        "hashtable-update!",
        &[Table, Any, Proc1, Any],
        0,
        None,
        Any,
        1,
    ),
    sig("hashtable-delete!", &[Table, Any], 0, None, Any, 1),
    sig("hashtable-contains?", &[Table, Any], 0, None, Bool, 1),
    sig("hashtable-size", &[Table], 0, None, Int, 1),
    sig("hashtable-keys", &[Table], 0, None, Vector, 1),
    sig("hashtable-values", &[Table], 0, None, Vector, 1),
    sig("hashtable-clear!", &[Table], 0, None, Any, 1),
    sig("hashtable?", &[Any], 0, None, Bool, 1),
    sig("hashtable-weak?", &[Table], 0, None, Bool, 1),
    sig("hashtable-ephemeron?", &[Table], 0, None, Bool, 1),
    sig("weak-cons", &[Any, List], 0, None, List, 2),
    sig("weak-pair?", &[Any], 0, None, Bool, 1),
    sig("ephemeron-cons", &[Any, List], 0, None, List, 2),
    sig("ephemeron-pair?", &[Any], 0, None, Bool, 1),
    sig("bwp-object?", &[Any], 0, None, Bool, 1),
    sig("make-guardian", &[], 0, None, Proc1, 1),
    // Ports, exceptions and bytevectors (their scenarios are in io_scenario).
    sig("eof-object", &[], 0, None, Any, 1),
    sig("eof-object?", &[Any], 0, None, Bool, 1),
    sig("port?", &[Any], 0, None, Bool, 1),
    sig("input-port?", &[Any], 0, None, Bool, 1),
    sig("output-port?", &[Any], 0, None, Bool, 1),
    sig("open-input-string", &[Str], 0, None, Any, 1),
    sig("read-char", &[Any], 1, None, Any, 1),
    sig("read-line", &[Any], 1, None, Any, 1),
    sig("write-string", &[Str], 0, None, Any, 1),
    sig("write-char", &[Char], 0, None, Any, 1),
    sig("error-object?", &[Any], 0, None, Bool, 1),
    sig("raise", &[Any], 0, None, Any, 1),
    sig("bytevector?", &[Any], 0, None, Bool, 1),
    sig("bytevector", &[], 0, Some(Idx), Any, 1),
    sig("make-bytevector", &[Idx, Idx], 1, None, Any, 1),
    sig("string->utf8", &[Str], 0, None, Any, 1),
    sig("bytevector-length", &[Any], 0, None, Int, 1),
];

/// The status `(exit 97)` with which a generated program reports that the VM
/// disagreed with the generator's model of its hashtables, weak pairs or
/// guardians (no other generated form exits with 97).
pub const MODEL_MISMATCH_EXIT: u8 = 97;

/// Allocates about 4.8 MiB (300 vectors of 16 KiB, below the large-object
/// threshold): more than the fuzzer's heap, so it collects.
const CHURN: &str = "(do ((i 300 (- i 1))) ((= i 0)) (make-vector 2000 i))";

/// Keys compared by value: numbers, characters, symbols, booleans, ().
const VALUE_KEYS: &[&str] = &[
    "0",
    "1",
    "-7",
    "42",
    "9223372036854775807",
    "-9223372036854775808",
    "1.5",
    "0.0",
    "-0.0",
    "+nan.0",
    "#\\a",
    "#\\λ",
    "'sym",
    "'other",
    "#t",
    "#f",
    "'()",
];

/// Names that are not bound (some look like builtins of other Schemes).
const UNBOUND: &[&str] = &[
    "undefined-x",
    "vector-map",
    "string-upcase",
    "char-upcase",
    "exact-rational?",
    "hash-table-ref",
    "foo",
    "else",
    "=>",
];

const SYMBOLS: &[&str] = &[
    "a",
    "b",
    "foo",
    "x",
    "hello-world",
    "->",
    "...",
    "+",
    "λ",
    "UPPER",
    "a.b",
    "1+",
    "<=?",
    "nil",
    "t",
];

const INTS: &[i64] = &[
    0,
    1,
    -1,
    2,
    3,
    7,
    10,
    42,
    100,
    1023,
    1024,
    1025,
    -64,
    -65,
    255,
    65536,
    1 << 31,
    (1 << 32) + 1,
    i64::MAX,
    i64::MIN,
    i64::MAX - 1,
    i64::MIN + 1,
    3_037_000_499,
    -3_037_000_500,
];

const FLOATS: &[&str] = &[
    "0.0",
    "-0.0",
    "1.5",
    "-2.25",
    "1e10",
    "1e308",
    "1e-320",
    "+inf.0",
    "-inf.0",
    "+nan.0",
    ".5",
    "3.14159",
    "1e3",
    "2.0",
    "-1e-7",
    "123456789012345678901234567890",
];

const CHARS: &[&str] = &[
    "#\\a",
    "#\\Z",
    "#\\0",
    "#\\space",
    "#\\newline",
    "#\\tab",
    "#\\nul",
    "#\\null",
    "#\\x41",
    "#\\x3bb",
    "#\\λ",
    "#\\(",
    "#\\)",
    "#\\;",
    "#\\\"",
    "#\\\\",
    "#\\delete",
    "#\\escape",
    "#\\alarm",
    "#\\backspace",
    "#\\return",
    "#\\x0",
    "#\\x10FFFF",
    "#\\é",
];

/// Pieces of string literals (escapes included).
const STRING_PIECES: &[&str] = &[
    "a", "hello", " ", "world", "x", "\\n", "\\t", "\\\\", "\\\"", "\\x41;", "\\x3bb;", "\\a",
    "\\b", "\\0", "\\r", "é", "λ", "😀", "\\\n    ", "(", ")", ";", "#|", "'",
];

/// Malformed special forms and calls (each a complete expression).
const MALFORMED: &[&str] = &[
    "(if)",
    "(if #t)",
    "(if 1 2 3 4)",
    "(let ((x)) x)",
    "(let (x 1) x)",
    "(let ((1 2)) 3)",
    "(let ())",
    "(let loop)",
    "(let loop ((i 0)))",
    "(let* ((x 1) y) x)",
    "(letrec ((f)) f)",
    "(lambda)",
    "(lambda (x))",
    "(lambda (1) 1)",
    "(lambda (x x) x)",
    "(lambda (x . 1) x)",
    "(lambda #(x) x)",
    "(define x 1)",
    "(define)",
    "(quote)",
    "(quote 1 2)",
    "(set! 1 2)",
    "(set! undefined-y 1)",
    "(set! car)",
    "(cond 1)",
    "(cond (else 1) (#t 2))",
    "(cond (1 =>))",
    "(cond (1 => car cdr))",
    "(case)",
    "(case 1 2)",
    "(case 1 ((1) 1) (else 2) ((3) 4))",
    "(case 1 (x 1))",
    "(do)",
    "(do ((i)) (#t))",
    "(do ((i 0)) 5)",
    "(do ((1 2)) (#t))",
    "(when)",
    "(unless #t)",
    "(+ 1 . 2)",
    "()",
    "(1 2)",
    "(\"s\" 1)",
    "(#t)",
    "('car '(1))",
    "((lambda (x) x))",
    "((lambda (x) x) 1 2)",
    "((lambda (x . r) r))",
    "(begin)",
    "[+ 1 2]",
    "(car)",
    "(car 1 2)",
    "(cons 1)",
    "(vector-ref #(1 2) 2)",
    "(vector-ref #(1 2) -1)",
    "(make-vector -1)",
    "(make-vector 100000000000)",
    "(make-string -1)",
    "(make-string 1 1)",
    "(string-ref \"\" 0)",
    "(substring \"abc\" 2 1)",
    "(integer->char -1)",
    "(integer->char 55296)",
    "(list-tail '(1 2) 3)",
    "(apply + 5)",
    "(apply + 1 '(2 . 3))",
    "(apply)",
    "(apply car)",
    "(apply apply (list + (list 1 2)))",
    "(length '(1 . 2))",
    "(list->string '(1 2))",
    "(list->string '(#\\a . #\\b))",
    "(quotient 1 0)",
    "(modulo -9223372036854775808 -1)",
    "(- -9223372036854775808)",
    "(* 9223372036854775807 2)",
    "(abs -9223372036854775808)",
    "(/ 0)",
    "(/ 1 0.0)",
    "(exact +nan.0)",
    "(exact 1e300)",
    "(join 5)",
    "(spawn 5)",
    "(error)",
    "(error 'sym \"msg\" 1)",
    "(symbol->string \"s\")",
    "(string->symbol 's)",
    "(exit 'done)",
];

/// A variable in scope, with the type of the value it was bound to.
#[derive(Clone)]
struct Local {
    name: String,
    ty: Ty,
}

struct Gen<'r> {
    rng: &'r mut Rng,
    sloppy: u32,
    locals: Vec<Local>,
    /// Global procedures defined so far: name and arity.
    funcs: Vec<(String, usize)>,
    /// Global variables defined so far.
    globals: Vec<Local>,
    fresh: usize,
    /// Expression nodes left; at 0 only atoms are generated.
    budget: usize,
    /// Whether a builtin was redefined (then model checks, which call builtins,
    /// are left out).
    redefined: bool,
    /// Differential mode ([`diff_program`]): only programs whose meaning the toy
    /// VM and a standard Scheme agree on.
    diff: bool,
}

/// A program of top-level forms (`sloppy`: percentage of deliberate mistakes).
pub fn program(rng: &mut Rng, sloppy: u32) -> String {
    program_with(rng, sloppy, false)
}

/// A program for differential testing against a standard Scheme (R7RS, as
/// Guile 3.0 implements it): no deliberate mistakes, and by construction only
/// forms, builtins and literals whose meaning and printed form the toy VM and
/// the reference share (see [`DIFF_EXCLUDED`] and the `diff` branches of the
/// generator). Errors still happen (a `car` of a number); the reference must
/// then fail too.
pub fn diff_program(rng: &mut Rng) -> String {
    program_with(rng, 0, true)
}

/// Builtins the differential mode never calls, and why.
pub const DIFF_EXCLUDED: &[&str] = &[
    // eq? on numbers and characters is unspecified (the toy VM boxes integers,
    // Guile does not): eqv?, memv and assv are used instead.
    "eq?",
    "memq",
    "assq",
    // Guile 3.0 has no write-shared or write-simple.
    "write-shared",
    "write-simple",
    // Toy VM only: collections, hashtables (Guile's have another interface and
    // key order), weak pairs and guardians.
    "gc",
    "make-eq-hashtable",
    "make-eqv-hashtable",
    "make-weak-eq-hashtable",
    "make-weak-eqv-hashtable",
    "make-ephemeron-eq-hashtable",
    "make-ephemeron-eqv-hashtable",
    "hashtable-set!",
    "hashtable-ref",
    "hashtable-update!",
    "hashtable-delete!",
    "hashtable-contains?",
    "hashtable-size",
    "hashtable-keys",
    "hashtable-values",
    "hashtable-clear!",
    "hashtable?",
    "hashtable-weak?",
    "hashtable-ephemeron?",
    "weak-cons",
    "weak-pair?",
    "ephemeron-cons",
    "ephemeron-pair?",
    "bwp-object?",
    "make-guardian",
    // Guile writes the bytevectors it makes as #vu8(...); make-bytevector's
    // contents are unspecified without a fill (Guile accepts -128 as one).
    "bytevector",
    "make-bytevector",
    "string->utf8",
    // Read from standard input, which the differential run does not feed alike.
    "read-char",
    "read-line",
    // A port is written differently (the toy VM: #<textual input port>).
    "open-input-string",
];

/// Characters the differential mode uses: those both sides write alike. Left
/// out: `#\nul`/`#\null` and `#\escape` (Guile writes `#\nul`, `#\esc`),
/// `#\x10FFFF` (Guile writes it in octal) and control characters, which the
/// toy VM writes raw inside strings and Guile as escapes.
const DIFF_CHARS: &[&str] = &[
    "#\\a",
    "#\\Z",
    "#\\0",
    "#\\space",
    "#\\newline",
    "#\\tab",
    "#\\x41",
    "#\\x3bb",
    "#\\λ",
    "#\\(",
    "#\\)",
    "#\\;",
    "#\\\"",
    "#\\\\",
    "#\\return",
    "#\\é",
];

/// String pieces of the differential mode: [`STRING_PIECES`] without `\a`,
/// `\b` (control characters, written differently) and `\0` (not R7RS).
const DIFF_STRING_PIECES: &[&str] = &[
    "a", "hello", " ", "world", "x", "\\n", "\\t", "\\\\", "\\\"", "\\x41;", "\\x3bb;", "\\r", "é",
    "λ", "😀", "\\\n    ", "(", ")", ";", "#|", "'",
];

/// Symbols of the differential mode: [`SYMBOLS`] without those the toy VM
/// writes without the `|bars|` they need (`1+`, `a.b`; a known difference).
const DIFF_SYMBOLS: &[&str] = &[
    "a",
    "b",
    "foo",
    "x",
    "hello-world",
    "->",
    "...",
    "+",
    "λ",
    "UPPER",
    "<=?",
    "nil",
    "t",
];

fn program_with(rng: &mut Rng, sloppy: u32, diff: bool) -> String {
    let budget = rng.size(4, 600);
    let mut g = Gen {
        rng,
        sloppy,
        locals: Vec::new(),
        funcs: Vec::new(),
        globals: Vec::new(),
        fresh: 0,
        budget,
        redefined: false,
        diff,
    };
    let mut out = String::new();
    for _ in 0..g.rng.size(1, 14) {
        let form = g.toplevel();
        out.push_str(&form);
        out.push_str(match g.rng.below(20) {
            0 => " ",
            1 => "\n; a comment\n",
            2 => "\n#| a #| nested |# block |#\n",
            _ => "\n",
        });
    }
    out
}

impl Gen<'_> {
    fn oops(&mut self) -> bool {
        self.rng.chance(self.sloppy)
    }

    fn name(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}{}", self.fresh)
    }

    fn toplevel(&mut self) -> String {
        match self.rng.weighted(&[22, 18, 30, 10, 20, 8, 12]) {
            0 => {
                let ty = self.any_ty();
                let name = self.name("g");
                let e = self.typed(ty, 4);
                self.globals.push(Local {
                    name: name.clone(),
                    ty,
                });
                format!("(define {name} {e})")
            }
            1 => self.define_procedure(),
            2 => {
                let e = self.expr(5);
                match self.rng.below(5) {
                    0 => format!("(display {e})"),
                    1 => e,
                    _ => format!("(write {e})"),
                }
            }
            3 if !self.funcs.is_empty() => {
                let (f, arity) = self.funcs[self.rng.below(self.funcs.len())].clone();
                let args = self.args(arity, 3);
                format!("(write ({f}{args}))")
            }
            3 => "(newline)".into(),
            5 => self.macro_form(),
            6 => self.forms_scenario(),
            _ if self.diff => self.diff_scenario(),
            _ => self.scenario(),
        }
    }

    /// `(define (f params...) body)`: plain, tail-recursive, or recursive.
    fn define_procedure(&mut self) -> String {
        let f = self.name("f");
        let arity = self.rng.below(4);
        let params: Vec<String> = (0..arity).map(|_| self.name("p")).collect();
        let saved = self.locals.len();
        for p in &params {
            self.locals.push(Local {
                name: p.clone(),
                ty: Any,
            });
        }
        // Recursive templates take a counter as first parameter.
        let text = match self.rng.below(4) {
            0 if arity >= 1 => {
                self.locals[saved].ty = Int;
                let base = self.expr(3);
                let step = self.expr(3);
                let rest: String = params[1..].iter().map(|p| format!(" {p}")).collect();
                let n = &params[0];
                format!(
                    "(define ({f} {}) (if (<= {n} 0) {base} (begin {step} ({f} (- {n} 1){rest}))))",
                    params.join(" ")
                )
            }
            1 if arity >= 1 => {
                self.locals[saved].ty = Int;
                let base = self.expr(3);
                let item = self.expr(3);
                let rest: String = params[1..].iter().map(|p| format!(" {p}")).collect();
                let n = &params[0];
                format!(
                    "(define ({f} {}) (if (<= {n} 0) {base} (cons {item} ({f} (- {n} 1){rest}))))",
                    params.join(" ")
                )
            }
            _ => {
                let body = self.body(4);
                if self.rng.chance(10) {
                    format!("(define ({f} . {}) {body})", self.name("r"))
                } else {
                    let ps: String = params.iter().map(|p| format!(" {p}")).collect();
                    format!("(define ({f}{ps}) {body})")
                }
            }
        };
        self.locals.truncate(saved);
        self.funcs.push((f, arity));
        text
    }

    fn any_ty(&mut self) -> Ty {
        if self.diff {
            return *self.rng.pick(&[
                Any, Int, Idx, Num, Str, Char, List, Chars, Vector, Sym, Bool, Proc1,
            ]);
        }
        *self.rng.pick(&[
            Any, Int, Idx, Num, Str, Char, List, Chars, Vector, Sym, Bool, Proc1, Table,
        ])
    }

    /// ` a b c`: `n` arguments of any type (leading space each).
    fn args(&mut self, n: usize, depth: usize) -> String {
        let n = if self.oops() {
            self.rng.below(n + 3)
        } else {
            n
        };
        (0..n).map(|_| format!(" {}", self.expr(depth))).collect()
    }

    fn body(&mut self, depth: usize) -> String {
        self.body_in(depth, true)
    }

    /// A sequence of expressions, with internal definitions first if
    /// `defines` (a lambda or `let` body). In differential mode, `when`,
    /// `unless` and `begin` in expression context get none: R7RS allows
    /// definitions only at the start of a body, and Guile refuses the rest.
    fn body_in(&mut self, depth: usize, defines: bool) -> String {
        let mut parts = Vec::new();
        let saved = self.locals.len();
        if (defines || !self.diff) && self.rng.chance(15) {
            for _ in 0..self.rng.range(1, 3) {
                if self.rng.chance(50) {
                    let v = self.name("d");
                    let e = self.expr(depth.saturating_sub(1));
                    self.locals.push(Local {
                        name: v.clone(),
                        ty: Any,
                    });
                    parts.push(format!("(define {v} {e})"));
                } else {
                    let h = self.name("h");
                    let p = self.name("q");
                    self.locals.push(Local {
                        name: h.clone(),
                        ty: Proc1,
                    });
                    self.locals.push(Local {
                        name: p.clone(),
                        ty: Any,
                    });
                    let e = self.expr(depth.saturating_sub(1));
                    self.locals.pop();
                    parts.push(format!("(define ({h} {p}) {e})"));
                }
            }
        }
        for _ in 0..self.rng.range(1, 3) {
            parts.push(self.expr(depth));
        }
        self.locals.truncate(saved);
        parts.join(" ")
    }

    /// Any expression.
    fn expr(&mut self, depth: usize) -> String {
        let ty = self.any_ty();
        self.typed(ty, depth)
    }

    /// An expression that (unless sloppy) evaluates to a `ty`.
    fn typed(&mut self, ty: Ty, depth: usize) -> String {
        if depth == 0 || self.budget == 0 {
            return self.atom(ty);
        }
        self.budget -= 1;
        if self.oops() {
            return match self.rng.below(4) {
                0 => self.rng.pick(MALFORMED).to_string(),
                1 => self.rng.pick(UNBOUND).to_string(),
                _ => {
                    let other = self.any_ty();
                    self.typed_inner(other, depth)
                }
            };
        }
        self.typed_inner(ty, depth)
    }

    fn typed_inner(&mut self, ty: Ty, depth: usize) -> String {
        if ty == Any && self.rng.chance(5) {
            return self.quasiquote(depth);
        }
        match self.rng.weighted(&[20, 15, 35, 22, 8]) {
            0 => self.atom(ty),
            1 => match self.var_of(ty) {
                Some(v) => v,
                None => self.atom(ty),
            },
            2 => self.call_returning(ty, depth),
            3 => self.special(ty, depth),
            _ => self.user_call(ty, depth),
        }
    }

    /// A variable holding a `ty`, if one is in scope.
    fn var_of(&mut self, ty: Ty) -> Option<String> {
        let fits = |l: &&Local| ty == Any || l.ty == ty || (ty == Num && l.ty == Int);
        let candidates: Vec<&Local> = self
            .locals
            .iter()
            .rev()
            .take(8)
            .chain(self.globals.iter())
            .filter(fits)
            .collect();
        if candidates.is_empty() {
            return None;
        }
        Some(candidates[self.rng.below(candidates.len())].name.clone())
    }

    fn user_call(&mut self, ty: Ty, depth: usize) -> String {
        if ty == Any && !self.funcs.is_empty() && self.rng.chance(70) {
            let (f, arity) = self.funcs[self.rng.below(self.funcs.len())].clone();
            // Recursive procedures take a counter first: keep it small mostly.
            let first = if arity > 0 && self.rng.chance(80) {
                format!(" {}", self.rng.below(20))
            } else {
                String::new()
            };
            let rest = self.args(
                arity.saturating_sub(usize::from(!first.is_empty())),
                depth - 1,
            );
            return format!("({f}{first}{rest})");
        }
        // A lambda applied on the spot.
        let n = self.rng.below(3);
        let params: Vec<String> = (0..n).map(|_| self.name("l")).collect();
        let args = self.args(n, depth - 1);
        let saved = self.locals.len();
        for p in &params {
            self.locals.push(Local {
                name: p.clone(),
                ty: Any,
            });
        }
        let body = self.typed(ty, depth - 1);
        self.locals.truncate(saved);
        if self.rng.chance(15) {
            format!("((lambda args {body}){args})")
        } else {
            format!("((lambda ({}) {body}){args})", params.join(" "))
        }
    }

    /// A call of a builtin returning `ty` (any builtin for [`Ty::Any`]).
    fn call_returning(&mut self, ty: Ty, depth: usize) -> String {
        let want = |s: &Sig| match ty {
            Any => true,
            Idx => s.ret == Int || s.ret == Idx,
            Num => matches!(s.ret, Num | Int),
            Chars => s.name == "string->list",
            t => s.ret == t,
        };
        let diff = self.diff;
        let weights: Vec<u32> = SIGS
            .iter()
            .map(|s| {
                if want(s) && !(diff && DIFF_EXCLUDED.contains(&s.name)) {
                    s.weight
                } else {
                    0
                }
            })
            .collect();
        if weights.iter().all(|&w| w == 0) {
            return self.atom(ty);
        }
        let s = &SIGS[self.rng.weighted(&weights)];
        if self.diff {
            if let Some(text) = self.diff_call(s, depth) {
                return if ty == Idx && s.ret != Idx {
                    format!("(modulo {text} 4)")
                } else {
                    text
                };
            }
        }
        let mut n = s.args.len() - self.rng.below(s.opt + 1);
        if s.rest.is_some() {
            n += self.rng.size(0, 4);
        }
        if self.oops() {
            n = self.rng.below(n + 3);
        }
        let mut text = format!("({}", s.name);
        for i in 0..n {
            let aty = s.args.get(i).copied().or(s.rest).unwrap_or(Any);
            let a = self.typed(aty, depth - 1);
            text.push(' ');
            text.push_str(&a);
        }
        text.push(')');
        // Index-like results from arbitrary integers would be out of range.
        if ty == Idx && s.ret != Idx {
            return format!("(modulo {text} 4)");
        }
        text
    }

    /// A special form whose value is (usually) a `ty`.
    fn special(&mut self, ty: Ty, depth: usize) -> String {
        let d = depth - 1;
        match self.rng.below(17) {
            0 => {
                let c = self.typed(Bool, d);
                let t = self.typed(ty, d);
                if self.rng.chance(20) {
                    format!("(if {c} {t})")
                } else {
                    let e = self.typed(ty, d);
                    format!("(if {c} {t} {e})")
                }
            }
            1 => {
                let mut s = String::from("(cond");
                for _ in 0..self.rng.range(1, 4) {
                    let c = self.typed(Bool, d);
                    if self.rng.chance(15) {
                        let f = self.typed(Proc1, d);
                        s.push_str(&format!(" ({c} => {f})"));
                    } else {
                        let e = self.typed(ty, d);
                        s.push_str(&format!(" ({c} {e})"));
                    }
                }
                if self.rng.chance(70) {
                    let e = self.typed(ty, d);
                    s.push_str(&format!(" (else {e})"));
                }
                s.push(')');
                s
            }
            2 => {
                let key = self.expr(d);
                let mut s = format!("(case {key}");
                for _ in 0..self.rng.range(1, 4) {
                    let data: Vec<String> =
                        (0..self.rng.range(1, 3)).map(|_| self.datum(1)).collect();
                    let e = self.typed(ty, d);
                    s.push_str(&format!(" (({}) {e})", data.join(" ")));
                }
                if self.rng.chance(60) {
                    let e = self.typed(ty, d);
                    s.push_str(&format!(" (else {e})"));
                }
                s.push(')');
                s
            }
            3 => {
                let op = if self.rng.chance(50) { "and" } else { "or" };
                let n = self.rng.below(4);
                let items: String = (0..n).map(|_| format!(" {}", self.typed(ty, d))).collect();
                format!("({op}{items})")
            }
            4 => {
                let op = if self.rng.chance(50) {
                    "when"
                } else {
                    "unless"
                };
                let c = self.typed(Bool, d);
                let b = self.body_in(d, false);
                format!("({op} {c} {b})")
            }
            5 | 6 => self.let_form(ty, d),
            7 => self.named_let(ty, d),
            8 => {
                // let*: each init may use the earlier variables.
                let saved = self.locals.len();
                let mut binds = String::new();
                for _ in 0..self.rng.range(1, 4) {
                    let bty = self.any_ty();
                    let e = self.typed(bty, d);
                    let v = self.name("s");
                    binds.push_str(&format!("({v} {e})"));
                    self.locals.push(Local { name: v, ty: bty });
                }
                let body = self.typed(ty, d);
                self.locals.truncate(saved);
                format!("(let* ({binds}) {body})")
            }
            9 => {
                // letrec: a counting procedure.
                let f = self.name("r");
                let n = self.name("n");
                let saved = self.locals.len();
                self.locals.push(Local {
                    name: n.clone(),
                    ty: Int,
                });
                let base = self.typed(ty, d);
                let step = self.expr(d);
                self.locals.truncate(saved);
                let k = self.rng.below(30);
                let kw = if self.rng.chance(50) {
                    "letrec"
                } else {
                    "letrec*"
                };
                format!(
                    "({kw} (({f} (lambda ({n}) (if (<= {n} 0) {base} (begin {step} ({f} (- {n} 1))))))) ({f} {k}))"
                )
            }
            10 => {
                let b = self.body_in(d, false);
                format!("(begin {b})")
            }
            11 => {
                // set! of a local (or, sloppily, of anything).
                match self.var_of(Any) {
                    Some(v) => {
                        let e = self.typed(ty, d);
                        format!("(begin (set! {v} {e}) {v})")
                    }
                    None => self.typed(ty, d),
                }
            }
            12 => {
                let i = self.name("i");
                let acc = self.name("acc");
                let init = self.typed(ty, d);
                let saved = self.locals.len();
                self.locals.push(Local {
                    name: i.clone(),
                    ty: Int,
                });
                self.locals.push(Local {
                    name: acc.clone(),
                    ty,
                });
                let step = self.typed(ty, d);
                let body = self.expr(d);
                self.locals.truncate(saved);
                let k = self.rng.size(0, 200);
                format!(
                    "(do (({i} 0 (+ {i} 1)) ({acc} {init} {step})) ((>= {i} {k}) {acc}) {body})"
                )
            }
            13 => format!("'{}", self.datum(3)),
            14 => {
                // map / for-each / apply with a lambda.
                let x = self.name("x");
                let saved = self.locals.len();
                self.locals.push(Local {
                    name: x.clone(),
                    ty: Any,
                });
                let e = self.expr(d);
                self.locals.truncate(saved);
                let l = self.typed(List, d);
                match self.rng.below(3) {
                    0 => format!("(map (lambda ({x}) {e}) {l})"),
                    1 => format!("(for-each (lambda ({x}) {e}) {l})"),
                    _ => format!("(apply (lambda {x} {e}) {l})"),
                }
            }
            15 => {
                // A closure over a counter.
                let c = self.name("c");
                let v = self.rng.below(5);
                format!("(let (({c} {v})) ((lambda () (set! {c} (+ {c} 1)) {c})))")
            }
            // The newer R7RS forms (program/forms.rs).
            _ => self.form_expr(ty, d),
        }
    }

    fn let_form(&mut self, ty: Ty, d: usize) -> String {
        let saved = self.locals.len();
        let mut binds = String::new();
        let mut new = Vec::new();
        for _ in 0..self.rng.range(0, 3) {
            let bty = self.any_ty();
            let e = self.typed(bty, d);
            let v = self.name("v");
            binds.push_str(&format!("({v} {e})"));
            new.push(Local { name: v, ty: bty });
        }
        self.locals.extend(new);
        let body = if self.rng.chance(20) {
            self.body(d)
        } else {
            self.typed(ty, d)
        };
        self.locals.truncate(saved);
        format!("(let ({binds}) {body})")
    }

    /// A named let counting to a bound, accumulating.
    fn named_let(&mut self, ty: Ty, d: usize) -> String {
        let lp = self.name("lp");
        let i = self.name("i");
        let acc = self.name("a");
        let init = self.typed(ty, d);
        let saved = self.locals.len();
        self.locals.push(Local {
            name: i.clone(),
            ty: Int,
        });
        self.locals.push(Local {
            name: acc.clone(),
            ty,
        });
        let step = self.typed(ty, d);
        self.locals.truncate(saved);
        let k = self.rng.size(0, 300);
        format!(
            "(let {lp} (({i} 0) ({acc} {init})) (if (< {i} {k}) ({lp} (+ {i} 1) {step}) {acc}))"
        )
    }

    /// A literal (or a quoted datum) of type `ty`.
    fn atom(&mut self, ty: Ty) -> String {
        match ty {
            Int => self.int(),
            Idx => self.rng.below(4).to_string(),
            Num => {
                if self.rng.chance(70) {
                    self.int()
                } else {
                    self.float()
                }
            }
            Str => self.string(),
            Char => self.char(),
            List => {
                if self.rng.chance(20) {
                    "'()".into()
                } else {
                    let items: Vec<String> =
                        (0..self.rng.size(1, 6)).map(|_| self.datum(1)).collect();
                    format!("'({})", items.join(" "))
                }
            }
            Chars => {
                let items: Vec<String> = (0..self.rng.below(5)).map(|_| self.char()).collect();
                format!("'({})", items.join(" "))
            }
            Vector => {
                let items: Vec<String> = (0..self.rng.below(5)).map(|_| self.datum(1)).collect();
                format!("#({})", items.join(" "))
            }
            Sym => format!("'{}", self.symbol()),
            Bool => self.rng.pick(&["#t", "#f", "#true", "#false"]).to_string(),
            Proc1 => self
                .rng
                .pick(&[
                    "car",
                    "cdr",
                    "list",
                    "vector",
                    "length",
                    "not",
                    "null?",
                    "abs",
                    "reverse",
                    "display",
                    "write",
                    "number->string",
                    "(lambda (x) x)",
                    "(lambda (x) (list x x))",
                ])
                .to_string(),
            Table => self
                .rng
                .pick(&[
                    "(make-eq-hashtable)",
                    "(make-eqv-hashtable)",
                    "(make-weak-eq-hashtable)",
                    "(make-weak-eqv-hashtable 100)",
                ])
                .to_string(),
            // Not eq? or equal? in differential mode: `apply` calls these with
            // any number of arguments, and Guile's take any number.
            Proc2 if self.diff => self
                .rng
                .pick(&["+", "cons", "list", "*", "max", "(lambda (a b) b)"])
                .to_string(),
            Proc2 => self
                .rng
                .pick(&[
                    "+",
                    "cons",
                    "list",
                    "*",
                    "max",
                    "eq?",
                    "equal?",
                    "(lambda (a b) b)",
                ])
                .to_string(),
            Any => match self.rng.below(9) {
                0 => self.int(),
                1 => self.float(),
                2 => self.string(),
                3 => self.char(),
                4 => format!("'{}", self.datum(2)),
                5 => self.rng.pick(&["#t", "#f", "'()"]).to_string(),
                6 => loop {
                    let name = self.rng.pick(SIGS).name;
                    if !(self.diff && DIFF_EXCLUDED.contains(&name)) {
                        break name.to_string();
                    }
                },
                _ => match self.var_of(Any) {
                    Some(v) => v,
                    None => self.int(),
                },
            },
        }
    }

    fn int(&mut self) -> String {
        match self.rng.below(4) {
            0 => self.rng.pick(INTS).to_string(),
            1 => (self.rng.next_u64() as i64).to_string(),
            _ => (self.rng.below(200) as i64 - 50).to_string(),
        }
    }

    fn char(&mut self) -> String {
        let chars = if self.diff { DIFF_CHARS } else { CHARS };
        self.rng.pick(chars).to_string()
    }

    fn symbol(&mut self) -> String {
        let symbols = if self.diff { DIFF_SYMBOLS } else { SYMBOLS };
        self.rng.pick(symbols).to_string()
    }

    fn float(&mut self) -> String {
        if self.rng.chance(50) {
            let f = *self.rng.pick(FLOATS);
            // An integer literal past 64 bits reads as a float on the toy VM and
            // as an exact integer on Guile (a known difference).
            if self.diff && !f.contains(['.', 'e', 'n']) {
                return "2.0".into();
            }
            f.to_string()
        } else {
            let f = (self.rng.next_u64() as i64 as f64) / 1e12;
            format!("{f:?}")
        }
    }

    fn string(&mut self) -> String {
        let n = if self.rng.chance(3) {
            self.rng.size(100, 20_000)
        } else {
            self.rng.below(6)
        };
        let mut s = String::from("\"");
        let pieces = if self.diff {
            DIFF_STRING_PIECES
        } else {
            STRING_PIECES
        };
        for _ in 0..n {
            let piece = self.rng.pick(pieces);
            s.push_str(piece);
        }
        s.push('"');
        s
    }

    /// A datum for quoting: atoms, lists, dotted lists, vectors, nested quotes.
    fn datum(&mut self, depth: usize) -> String {
        let kind = if depth == 0 {
            self.rng.below(6)
        } else {
            self.rng.below(10)
        };
        match kind {
            0 => self.int(),
            1 => self.symbol(),
            2 => self.string(),
            3 => self.char(),
            4 => self.float(),
            5 => self.rng.pick(&["#t", "#f", "()"]).to_string(),
            6 | 7 => {
                let items: Vec<String> = (0..self.rng.size(0, 5))
                    .map(|_| self.datum(depth - 1))
                    .collect();
                if !items.is_empty() && self.rng.chance(20) {
                    let tail = self.datum(depth - 1);
                    format!("({} . {tail})", items.join(" "))
                } else {
                    format!("({})", items.join(" "))
                }
            }
            8 => {
                let items: Vec<String> = (0..self.rng.size(0, 5))
                    .map(|_| self.datum(depth - 1))
                    .collect();
                format!("#({})", items.join(" "))
            }
            _ => format!("'{}", self.datum(depth - 1)),
        }
    }

    /// A targeted scenario: a few top-level forms exercising one hard case.
    fn scenario(&mut self) -> String {
        let n = self.rng.below(30);
        let k = self.rng.pick(&[0usize, 1, 2, 3, 10, 100, 1000]).to_string();
        match n {
            // Circular lists and vectors, then an operation that walks them.
            0..=3 => {
                let c = self.name("cyc");
                let make = match self.rng.below(5) {
                    0 => format!("(define {c} (list 1 2 3)) (set-cdr! (cddr {c}) {c})"),
                    1 => format!("(define {c} (list 1)) (set-cdr! {c} {c})"),
                    2 => format!("(define {c} (list 1 2)) (set-car! {c} {c})"),
                    3 => format!("(define {c} (vector 1 2 3)) (vector-set! {c} 1 {c})"),
                    _ => format!(
                        "(define {c} (list 'a (vector 1 2))) (vector-set! (cadr {c}) 0 {c}) (set-cdr! (cdr {c}) {c})"
                    ),
                };
                let op = *self.rng.pick(&[
                    "(write C)",
                    "(display C)",
                    "(write-shared C)",
                    "(write (list C C))",
                    "(length C)",
                    "(list? C)",
                    "(equal? C C)",
                    "(equal? C (list 1 2 3))",
                    "(equal? C (let ((d (list 1 2 3))) (set-cdr! (cddr d) d) d))",
                    "(list->vector C)",
                    "(apply + C)",
                    "(append C '(1))",
                    "(reverse C)",
                    "(memq 'x C)",
                    "(member \"x\" C)",
                    "(assq 'x C)",
                    "(list-tail C 1000000000)",
                    "(list-tail C K)",
                    "(list-ref C 1000000007)",
                    "(map (lambda (x) x) C)",
                    "(for-each (lambda (x) x) C)",
                    "(list->string C)",
                    "(vector->list C)",
                    "(car C)",
                    "(error \"cyclic:\" C)",
                    "(C 1)",
                    "(+ C 1)",
                ]);
                let op = op.replace('C', &c).replace('K', &k);
                format!("{make} (write {op})")
            }
            // Deep non-tail recursion, around the frame limit; or through
            // procedures with many parameters (the value stack's limit).
            4 => {
                let n = self.rng.pick(&[10, 1000, 199_990, 200_010, 1_000_000]);
                if self.rng.chance(70) {
                    format!("(define (deep n) (if (= n 0) 0 (+ 1 (deep (- n 1))))) (display (deep {n}))")
                } else {
                    let k = *self.rng.pick(&[10usize, 300, 3000]);
                    let ps: String = (0..k).map(|i| format!(" a{i}")).collect();
                    let args = " 1".repeat(k);
                    format!("(define (wide n{ps}) (if (= n 0) 0 (+ 1 (wide (- n 1){ps})))) (display (wide {n}{args}))")
                }
            }
            // Endless loops.
            5 => self
                .rng
                .pick(&[
                    "(let loop () (loop))",
                    "(define (spin) (spin)) (spin)",
                    "(define (ping n) (pong n)) (define (pong n) (ping n)) (ping 1)",
                    "(do () (#f))",
                    "(let loop ((i 0)) (loop (+ i 1)))",
                    "(define (f . a) (apply f a)) (f 1 2)",
                    "(let loop ((l '())) (loop (cons 1 l)))",
                ])
                .to_string(),
            // Allocation bombs.
            6 => self
                .rng
                .pick(&[
                    "(let loop ((l '())) (loop (cons (make-vector 1000 l) l)))",
                    "(let loop ((s \"ab\")) (loop (string-append s s)))",
                    "(make-vector 4294967296)",
                    "(make-vector 100000000)",
                    "(make-string 1000000000 #\\x)",
                    "(make-string 4611686018427387904)",
                    "(define (grow v) (grow (make-vector (+ 1 (vector-length v)) v))) (grow #())",
                    "(let loop ((l '()) (i 0)) (if (< i 300000) (loop (cons i l) (+ i 1)) (length l)))",
                    "(define (tree d) (if (= d 0) '() (cons (tree (- d 1)) (tree (- d 1))))) (tree 22)",
                ])
                .to_string(),
            // Threads.
            7 => {
                let body = self.expr(3);
                match self.rng.below(11) {
                    6 => "(define ts (map (lambda (i) (spawn (lambda () (let loop ((j 0) (l '())) (if (< j 3000) (loop (+ j 1) (cons (make-vector 8 j) l)) (length l)))))) '(1 2 3))) (gc) (write (map join ts))".into(),
                    7 => "(define t (spawn (lambda () (gc) (display \"in thread\") (gc) 'done))) (gc) (write (join t))".into(),
                    8 => self
                        .rng
                        .pick(&[
                            "(join (spawn (lambda () (car 1))))",
                            "(join (spawn (lambda () (define (f n) (+ 1 (f n))) (f 0))))",
                            "(join (spawn (lambda () (let loop ((l '())) (loop (cons (make-vector 100) l))))))",
                            "(join (spawn (lambda () (let loop () (loop)))))",
                            "(join (spawn (lambda () (exit 2))))",
                            "(join (spawn car))",
                            "(join (spawn (lambda (x) x)))",
                        ])
                        .to_string(),
                    9 => format!("(define t (spawn (lambda () {body}))) (define u (spawn (lambda () (join t)))) (write (join u)) (write (join t))"),
                    0 => format!("(write (join (spawn (lambda () {body}))))"),
                    1 => format!("(define t (spawn (lambda () {body}))) (write (list (join t) (join t)))"),
                    2 => "(define t (spawn (lambda () (let loop ((i 0)) (if (< i 100) (loop (+ i 1)))) (join t)))) (join t)".into(),
                    3 => "(define t1 #f) (define t2 #f) (set! t1 (spawn (lambda () (let w () (if (not t2) (w))) (join t2)))) (set! t2 (spawn (lambda () (let w () (if (not t1) (w))) (join t1)))) (join t1)".into(),
                    4 => format!("(spawn (lambda () {body})) (spawn (lambda () (let loop () (loop))))"),
                    _ => "(define ts (map (lambda (i) (spawn (lambda () (make-vector 100 i)))) '(1 2 3 4))) (write (map join ts))".into(),
                }
            }
            // exit, with every kind of argument that maps to 0, 1 or 2.
            8 => {
                let arg = *self
                    .rng
                    .pick(&["", " #t", " #f", " 0", " 1", " 2", " 'x", " \"s\""]);
                format!("(display \"bye\") (exit{arg}) (display \"not reached\")")
            }
            // Deep nesting of source text, around the reader and compiler caps.
            9 => {
                let depth = *self.rng.pick(&[50usize, 399, 400, 401, 799, 801, 3000, 20_000]);
                match self.rng.below(6) {
                    0 => format!("{}1{}", "(+ 1 ".repeat(depth), ")".repeat(depth)),
                    1 => format!("'{}x{}", "(".repeat(depth), ")".repeat(depth)),
                    2 => format!("'{}x", "'".repeat(depth)),
                    3 => format!("'{}{}", "#(".repeat(depth), ")".repeat(depth)),
                    4 => format!(
                        "{}1{}",
                        "((lambda (x) ".repeat(depth),
                        ") 1)".repeat(depth)
                    ),
                    _ => format!("{}(display 1){}", "(begin ".repeat(depth), ")".repeat(depth)),
                }
            }
            // Long flat forms that desugar into nested ones.
            10 => {
                let n = *self.rng.pick(&[10usize, 500, 799, 801, 5000, 100_000]);
                match self.rng.below(6) {
                    0 => {
                        let binds: String = (0..n).map(|i| format!("(v{i} {i})")).collect();
                        format!("(display (let* ({binds}) v0))")
                    }
                    1 => {
                        let arms: String = (0..n).map(|i| format!("(({i}) {i})")).collect();
                        format!("(display (case 7 {arms}))")
                    }
                    2 => {
                        let arms: String = (0..n).map(|i| format!("((= x {i}) {i})")).collect();
                        format!("(define x 3) (display (cond {arms}))")
                    }
                    3 => {
                        let items = " #t".repeat(n);
                        format!("(display (and{items}))")
                    }
                    4 => {
                        let args = " 1".repeat(n);
                        format!("(display (+{args})) (display (list{args}))")
                    }
                    _ => {
                        let defs: String =
                            (0..n).map(|i| format!("(define (w{i}) {i})")).collect();
                        format!("(define (f) {defs} (w0)) (display (f))")
                    }
                }
            }
            // Big literals.
            11 => {
                let n = *self.rng.pick(&[1000usize, 20_000, 200_000]);
                match self.rng.below(4) {
                    0 => format!("(display (string-length \"{}\"))", "ab\\n".repeat(n)),
                    1 => format!("(display (length '({})))", "1 ".repeat(n)),
                    2 => format!("(display (vector-length #({})))", "x ".repeat(n)),
                    _ => format!("(display {}9)", "9".repeat(n.min(5000))),
                }
            }
            // Redefined builtins.
            12 => {
                self.redefined = true;
                self
                    .rng
                    .pick(&[
                        "(define (car x) 'mine) (write (car '(1)))",
                        "(set! + -) (write (+ 5 3))",
                        "(define list 5) (write (list 1))",
                        "(define (apply f . a) 'no) (write (apply + '(1)))",
                        "(define display 1) (display 2)",
                        "(set! map car) (write (map 1 2))",
                        "(define (length l) -1) (write (length '(1 2)))",
                        // Local names that shadow special forms and builtins.
                        "(write (let ((if car)) (if '(1 2))))",
                        "(write ((lambda (quote) (quote 1)) -))",
                        "(define (f define) (define 1)) (write (f -))",
                        "(write (let ((else #f)) (cond (else 1) (#t 2))))",
                        "(write (let ((lambda list)) (lambda 1 2)))",
                        "(write (let loop ((loop 3)) loop))",
                        "(write (let ((car cdr) (x '(1 2))) (car x)))",
                        "(define (g) (set! g 5) g) (write (g)) (write g)",
                        "(write (do ((do 0 (+ do 1))) ((= do 3) do)))",
                        "(write ((lambda () (define x 1) (set! x (+ x 1)) (define y x) y)))",
                        "(write ((lambda () (begin (define x 1)) x)))",
                        "(write (letrec ((a b) (b 1)) a))",
                    ])
                    .to_string()
            }
            // Exponentially shared structure (a DAG), printed and compared.
            13 => {
                let op = *self.rng.pick(&[
                    "(equal? (dag N) (dag N))",
                    "(write (dag W))",
                    "(write-shared (dag N))",
                    "(length (dag N))",
                    "(equal? (dag N) (dag (- N 1)))",
                ]);
                // Printing without labels is exponential: only small ones
                // (a large one hits the 64 MiB print limit, slowly).
                let w = self.rng.pick(&[5, 12, 20, 40]);
                let w = if *w == 40 && self.rng.chance(90) { 16 } else { *w };
                let op = op.replace('W', &w.to_string());
                let n = self.rng.pick(&[5, 20, 40, 60]);
                format!(
                    "(define (dag n) (if (= n 0) '(x) (let ((d (dag (- n 1)))) (cons d d)))) (write {})",
                    op.replace('N', &n.to_string())
                )
            }
            // Deep structure built at run time, then printed and compared.
            14 => {
                let n = self.rng.pick(&[10, 10_000, 200_000]);
                let op = *self.rng.pick(&[
                    "(write (nest N))",
                    "(equal? (nest N) (nest N))",
                    "(length (nest N))",
                    "(car (nest N))",
                    "(+ (nest N) 1)",
                ]);
                format!(
                    "(define (nest n) (let loop ((i 0) (x '())) (if (= i n) x (loop (+ i 1) (if (odd? i) (list x) (vector x)))))) (write {})",
                    op.replace('N', &n.to_string())
                )
            }
            // Strings and characters at the edges.
            15 => self
                .rng
                .pick(&[
                    "(write \"\\x0;\\x7f;\\xFFFF;\")",
                    "(write \"\\xD800;\")",
                    "(write \"\\x110000;\")",
                    "(write \"\\x;\")",
                    "(write \"\\q\")",
                    "(write #\\xD800)",
                    "(write #\\bogus)",
                    "(write (string->list \"héλ😀\"))",
                    "(write (list->string (list #\\x0 #\\x10FFFF)))",
                    "(write (string-ref \"😀\" 0))",
                    "(write (substring \"héllo\" 1 4))",
                    "(write (string->number \"1e400\"))",
                    "(write (string->number \"-\"))",
                    "(write (string->symbol \"\"))",
                    "(write (make-string 3 #\\λ))",
                    "(write (make-string 0))",
                ])
                .to_string(),
            // Collections on request.
            16 => "(gc) (define l (list 1 2 3)) (gc) (write l) (gc-stats)".into(),
            // Huge indices and counts.
            17 => self
                .rng
                .pick(&[
                    "(list-tail '(1 2 3) 9223372036854775807)",
                    "(list-ref '(1 2 3) -1)",
                    "(vector-ref (make-vector 3 0) 9223372036854775807)",
                    "(substring \"abc\" 0 9223372036854775807)",
                    "(string-ref \"abc\" -9223372036854775808)",
                    "(make-vector 3 (make-vector 3 (make-vector 3)))",
                    "(integer->char 9223372036854775807)",
                ])
                .to_string(),
            // Error irritants of every kind.
            18 => {
                let e = self.expr(3);
                format!("(error \"failed:\" {e} 'sym \"str\" #\\c 1.5 '(1 . 2) #(1))")
            }
            // Procedures as values.
            19 => {
                let e = self.expr(3);
                format!("(write (list car (lambda (x) x) {e})) (write (map (lambda (f) (procedure? f)) (list car cdr +)))")
            }
            // A malformed form at top level.
            20 => self.rng.pick(MALFORMED).to_string(),
            // Mutual recursion through globals, counted down.
            21 => format!(
                "(define (ev? n) (if (= n 0) #t (od? (- n 1)))) (define (od? n) (if (= n 0) #f (ev? (- n 1)))) (write (ev? {k}))"
            ),
            // Vectors filled with themselves and printed in every way.
            22 => "(define v (make-vector 3 0)) (vector-fill! v v) (write v) (display v) (write-shared v) (write (equal? v v))".into(),
            // Hashtables, weak pairs and guardians, checked against a model.
            23 => self.hashtable_scenario(),
            24 => self.weak_pair_scenario(),
            25 => self.guardian_scenario(),
            // Ports, exceptions and bytevectors.
            26..=28 => self.io_scenario(),
            _ => {
                let e = self.expr(6);
                format!("(write {e})")
            }
        }
    }
}

/// The differential mode's special cases.
impl Gen<'_> {
    /// A call of `s` built differently in differential mode (`None`: as usual).
    fn diff_call(&mut self, s: &Sig, depth: usize) -> Option<String> {
        let d = depth - 1;
        Some(match s.name {
            // Always with the fill: the default contents are unspecified.
            "make-vector" => {
                let n = self.typed(Idx, d);
                let fill = self.expr(d);
                format!("(make-vector {n} {fill})")
            }
            "make-string" => {
                let n = self.typed(Idx, d);
                let c = self.typed(Char, d);
                format!("(make-string {n} {c})")
            }
            // Float division only: the toy VM has no rationals, and `(/ 1.5 0)`
            // is an error on Guile but +inf.0 on the toy VM (R7RS leaves it
            // open).
            "/" => {
                let n = 1 + self.rng.size(0, 3);
                let args: String = (0..n)
                    .map(|_| format!(" (exact->inexact {})", self.typed(Num, d)))
                    .collect();
                format!("(/{args})")
            }
            // Of a non-negative number: Guile has complex numbers.
            "sqrt" => format!("(sqrt (abs {}))", self.typed(Num, d)),
            // Printable ASCII only: Guile names control characters (#\soh)
            // where the toy VM writes them raw.
            "integer->char" => {
                format!("(integer->char (+ 32 (modulo {} 95)))", self.typed(Int, d))
            }
            // Comparisons of exactly two arguments: with one, Guile checks no
            // types (R7RS asks for two); with more, it stops at the first
            // false result without checking the rest, where the toy VM
            // checks every argument (R7RS: it is an error either way).
            "=" | "<" | ">" | "<=" | ">=" | "string=?" | "string<?" => {
                let ty = if s.name.starts_with("string") {
                    Str
                } else {
                    Num
                };
                let a = self.typed(ty, d);
                let b = self.typed(ty, d);
                format!("({} {a} {b})", s.name)
            }
            // Symbols both sides write alike (see DIFF_SYMBOLS).
            "string->symbol" => format!("(string->symbol \"{}\")", self.symbol()),
            _ => return None,
        })
    }

    /// A targeted scenario whose meaning both sides share: the subset of
    /// [`Gen::scenario`] without cycles (Guile's `write` has no datum labels
    /// for them), threads, `exit`, endless loops, allocation bombs, nesting
    /// past the toy VM's caps, and toy-VM-only builtins.
    fn diff_scenario(&mut self) -> String {
        let k = self.rng.pick(&[0usize, 1, 2, 3, 10, 100, 1000]).to_string();
        match self.rng.below(15) {
            // Deep non-tail recursion (within the toy VM's frame limit).
            0 => {
                let n = self.rng.pick(&[10, 1000, 5000]);
                format!("(define (deep n) (if (= n 0) 0 (+ 1 (deep (- n 1))))) (display (deep {n}))")
            }
            // Shared structure (a DAG), printed small and compared.
            1 => {
                let op = *self.rng.pick(&[
                    "(equal? (dag N) (dag N))",
                    "(write (dag W))",
                    "(length (dag N))",
                    "(equal? (dag N) (dag (- N 1)))",
                ]);
                let w = self.rng.pick(&[0, 3, 5, 8]);
                let n = self.rng.pick(&[0, 3, 8, 12]);
                let op = op.replace('W', &w.to_string()).replace('N', &n.to_string());
                format!(
                    "(define (dag n) (if (= n 0) '(x) (let ((d (dag (- n 1)))) (cons d d)))) (write {op})"
                )
            }
            // Deep structure built at run time, printed and compared.
            2 => {
                let n = self.rng.pick(&[10, 1000]);
                let op = *self.rng.pick(&[
                    "(nest N)",
                    "(equal? (nest N) (nest N))",
                    "(length (nest N))",
                    "(car (nest N))",
                    "(+ (nest N) 1)",
                ]);
                format!(
                    "(define (nest n) (let loop ((i 0) (x '())) (if (= i n) x (loop (+ i 1) (if (odd? i) (list x) (vector x)))))) (write {})",
                    op.replace('N', &n.to_string())
                )
            }
            // Strings and characters.
            3 => self
                .rng
                .pick(&[
                    "(write \"\\x7e;\\x41;\")",
                    "(write (string->list \"héλ😀\"))",
                    "(write (string-ref \"😀\" 0))",
                    "(write (substring \"héllo\" 1 4))",
                    "(write (string->number \"-\"))",
                    "(write (string->number \"12\"))",
                    "(write (string->number \"-2.5\"))",
                    "(write (make-string 3 #\\λ))",
                    "(write (make-string 0 #\\a))",
                    "(write (list->string (list #\\a #\\λ)))",
                ])
                .to_string(),
            // Error irritants of every kind.
            4 => {
                let e = self.expr(3);
                format!("(display \"before\") (error \"failed:\" {e} 'sym \"str\" #\\c 1.5 '(1 . 2) #(1))")
            }
            // Procedures as values.
            5 => {
                let e = self.expr(3);
                format!("(write (list car (lambda (x) x) {e})) (write (map (lambda (f) (procedure? f)) (list car cdr +)))")
            }
            // Mutual recursion through globals, counted down.
            6 => format!(
                "(define (ev? n) (if (= n 0) #t (od? (- n 1)))) (define (od? n) (if (= n 0) #f (ev? (- n 1)))) (write (ev? {k}))"
            ),
            // Long flat forms that desugar into nested ones.
            7 => {
                let n = *self.rng.pick(&[10usize, 100, 300]);
                match self.rng.below(5) {
                    0 => {
                        let binds: String = (0..n).map(|i| format!("(v{i} {i})")).collect();
                        format!("(display (let* ({binds}) v{}))", n - 1)
                    }
                    1 => {
                        let arms: String = (0..n).map(|i| format!("(({i}) {i})")).collect();
                        format!("(display (case 7 {arms}))")
                    }
                    2 => {
                        let arms: String = (0..n).map(|i| format!("((= x {i}) {i})")).collect();
                        format!("(define x 3) (display (cond {arms}))")
                    }
                    3 => format!("(display (and{}))", " #t".repeat(n)),
                    _ => {
                        let args = " 1".repeat(n);
                        format!("(display (+{args})) (display (list{args}))")
                    }
                }
            }
            // Big literals.
            8 => {
                let n = *self.rng.pick(&[10usize, 1000]);
                match self.rng.below(3) {
                    0 => format!("(display (string-length \"{}\"))", "ab\\n".repeat(n)),
                    1 => format!("(display (length '({})))", "1 ".repeat(n)),
                    _ => format!("(display (vector-length #({})))", "x ".repeat(n)),
                }
            }
            // Local names that shadow special forms and builtins.
            9 => self
                .rng
                .pick(&[
                    "(write (let ((if car)) (if '(1 2))))",
                    "(write ((lambda (quote) (quote 1)) -))",
                    "(write (let ((else #f)) (cond (else 1) (#t 2))))",
                    "(write (let ((lambda list)) (lambda 1 2)))",
                    // Not (let loop ((loop 3)) loop): Guile refuses it.
                    "(write (let ((car cdr) (x '(1 2))) (car x)))",
                    "(define (g) (set! g 5) g) (write (g)) (write g)",
                    "(write (do ((do 0 (+ do 1))) ((= do 3) do)))",
                    // Not a define after an expression: R7RS forbids it (the
                    // toy VM refuses it), Guile allows it.
                    "(write ((lambda () (define x 1) (define y (+ x 1)) (set! x y) (list x y))))",
                    "(write ((lambda () (begin (define x 1)) x)))",
                    "(write ((lambda () (begin (define x 1) (begin (define y 2))) (list x y))))",
                ])
                .to_string(),
            // Ports, exceptions and bytevectors.
            10..=12 => self.io_scenario(),
            // Re-entrant continuations.
            13 => self.callcc_scenario(),
            // Mutation of fresh structure, then printed.
            _ => {
                let e = self.expr(3);
                let f = self.expr(3);
                format!("(define m (list 1 2 3)) (set-car! (cdr m) {e}) (define w (make-vector 3 0)) (vector-set! w 2 {f}) (vector-fill! w m) (write (list m w))")
            }
        }
    }
}

impl Gen<'_> {
    /// Re-entrant `call/cc`, compared with Guile: a continuation re-entered a
    /// random number of times (with a random expression as the first value),
    /// a generator over a random list, and re-entry into `dynamic-wind`. Each
    /// continuation is called only within the top-level form that captured
    /// it: the Guile driver runs a program's forms from a list, so there a
    /// continuation called from a later form would run the forms after its
    /// own again, where a file (and the toy VM) goes on after the caller.
    fn callcc_scenario(&mut self) -> String {
        let n = *self.rng.pick(&[1usize, 2, 5, 50]);
        let e = self.expr(3);
        match self.rng.below(3) {
            0 => format!(
                "(define k #f) (define c 0) (define acc '()) \
                 (let ((v (call/cc (lambda (x) (set! k x) {e})))) \
                   (set! acc (cons v acc)) (set! c (+ c 1)) (if (< c {n}) (k c))) \
                 (write acc)"
            ),
            1 => {
                let items: Vec<String> = (0..n.min(8))
                    .map(|_| format!("'{}", self.datum(2)))
                    .collect();
                format!(
                    "(define (make-gen l) \
                       (define return #f) \
                       (define (walk l) \
                         (if (pair? l) \
                             (begin (call/cc (lambda (r) (set! resume r) (return (car l)))) \
                                    (walk (cdr l))))) \
                       (define resume (lambda (x) (walk l) (return 'done))) \
                       (lambda () (call/cc (lambda (r) (set! return r) (resume #f))))) \
                     (define g (make-gen (list {}))) \
                     (let loop ((i 0)) (if (< i {}) (begin (write (g)) (loop (+ i 1)))))",
                    items.join(" "),
                    n.min(8) + 2
                )
            }
            _ => format!(
                "(define trail '()) (define k #f) (define c 0) \
                 (let () \
                   (dynamic-wind (lambda () (set! trail (cons 'in trail))) \
                                 (lambda () (call/cc (lambda (x) (set! k x))) (set! c (+ c 1))) \
                                 (lambda () (set! trail (cons 'out trail)))) \
                   (if (< c {n}) (k #f))) \
                 (write (list c (reverse trail)))"
            ),
        }
    }
}

/// The hashtable, weak pair and guardian scenarios: operations the generator
/// follows in a model, with checks that exit with [`MODEL_MISMATCH_EXIT`] where
/// the VM disagrees.
impl Gen<'_> {
    /// `(exit 97)` (after writing `what` and the value) unless `expr` is
    /// `equal?` to `want`; nothing if a builtin was redefined.
    fn model_check(&self, what: &str, expr: &str, want: &str) -> String {
        if self.redefined {
            return String::new();
        }
        format!(
            " (let ((got {expr})) (if (not (equal? got {want})) (begin (write '(model mismatch: {what})) (write got) (exit {MODEL_MISMATCH_EXIT}))))"
        )
    }

    /// Object keys (compared by identity): `n` fresh objects of several kinds.
    fn objects(&mut self, n: usize) -> String {
        (0..n)
            .map(|i| match self.rng.below(4) {
                0 => format!(" (cons {i} '())"),
                1 => format!(" (vector {i} {i})"),
                2 => format!(" (make-string {} #\\k)", i % 3),
                _ => format!(" (lambda () {i})"),
            })
            .collect()
    }

    /// A table of a random kind, operated on at random and checked against a
    /// model: keys by value and objects kept in a vector (always reachable), and
    /// entries whose keys are dropped at once (gone from a weak or ephemeron
    /// table after `(gc)`; counted forever by a strong one), and entries whose
    /// dropped key is referred to by their value (gone from an ephemeron table
    /// after `(gc)`; counted forever by a weak or strong one).
    fn hashtable_scenario(&mut self) -> String {
        let h = self.name("ht");
        let ks = self.name("hk");
        // 0 strong, 1 weak, 2 ephemeron.
        let kind = self.rng.below(3);
        let weak = kind != 0;
        let ctor = match (kind, self.rng.chance(50)) {
            (0, false) => "make-eq-hashtable",
            (0, true) => "make-eqv-hashtable",
            (1, false) => "make-weak-eq-hashtable",
            (1, true) => "make-weak-eqv-hashtable",
            (_, false) => "make-ephemeron-eq-hashtable",
            (_, true) => "make-ephemeron-eqv-hashtable",
        };
        let size = if self.rng.chance(30) {
            format!(" {}", self.rng.size(0, 5000))
        } else {
            String::new()
        };
        let nobj = self.rng.range(1, 12);
        let objs = self.objects(nobj);
        let mut out = format!("(define {h} ({ctor}{size})) (define {ks} (vector{objs}))");
        let mut keys: Vec<String> = (0..nobj)
            .map(|i| format!("(vector-ref {ks} {i})"))
            .collect();
        for _ in 0..self.rng.range(1, 8) {
            keys.push(self.rng.pick(VALUE_KEYS).to_string());
        }
        keys.sort();
        keys.dedup();
        let mut model: std::collections::BTreeMap<usize, i64> = Default::default();
        // Entries whose key was dropped: exactly counted in a strong table;
        // in a weak or ephemeron one, at most this many (none after a (gc)).
        let mut dropped = 0usize;
        // Entries whose dropped key their value refers to, in a weak table:
        // counted forever (its values are strong).
        let mut stuck = 0usize;
        let size_check = |me: &Self, what: &str, expr: &str, n: usize, dropped: usize| {
            if weak {
                me.model_check(
                    what,
                    &format!("(let ((s {expr})) (and (>= s {n}) (<= s {})))", n + dropped),
                    "#t",
                )
            } else {
                me.model_check(what, expr, &(n + dropped).to_string())
            }
        };
        for step in 0..self.rng.size(4, 60) {
            let k = self.rng.below(keys.len());
            let key = keys[k].clone();
            match self.rng.weighted(&[30, 6, 10, 8, 25, 8, 8, 3, 4, 3, 2]) {
                0 => {
                    let v = self.rng.below(1000) as i64;
                    out.push_str(&format!(" (hashtable-set! {h} {key} {v})"));
                    model.insert(k, v);
                }
                1 if self.rng.chance(50) => {
                    out.push_str(&format!(" (hashtable-set! {h} (cons 'dropped '()) {step})"));
                    dropped += 1;
                }
                1 => {
                    out.push_str(&format!(
                        " (let ((k (cons 'dropped '()))) (hashtable-set! {h} k (list k)))"
                    ));
                    if kind == 1 {
                        stuck += 1;
                    } else {
                        dropped += 1;
                    }
                }
                2 => {
                    out.push_str(&format!(" (hashtable-delete! {h} {key})"));
                    model.remove(&k);
                }
                3 => {
                    out.push_str(&format!(
                        " (hashtable-update! {h} {key} (lambda (x) (- x 1)) 100)"
                    ));
                    let v = model.get(&k).copied().unwrap_or(100) - 1;
                    model.insert(k, v);
                }
                4 => {
                    let want = model.get(&k).map_or("'none".to_string(), |v| v.to_string());
                    let c = self.model_check(
                        &format!("ref {step}"),
                        &format!("(hashtable-ref {h} {key} 'none)"),
                        &want,
                    );
                    out.push_str(&c);
                }
                5 => {
                    let want = if model.contains_key(&k) { "#t" } else { "#f" };
                    let c = self.model_check(
                        &format!("contains {step}"),
                        &format!("(hashtable-contains? {h} {key})"),
                        want,
                    );
                    out.push_str(&c);
                }
                6 => {
                    let what = format!("size {step}");
                    let expr = format!("(hashtable-size {h})");
                    out.push_str(&size_check(
                        self,
                        &what,
                        &expr,
                        model.len() + stuck,
                        dropped,
                    ));
                }
                7 => {
                    let what = format!("keys {step}");
                    let expr = format!("(vector-length (hashtable-keys {h}))");
                    out.push_str(&size_check(
                        self,
                        &what,
                        &expr,
                        model.len() + stuck,
                        dropped,
                    ));
                }
                8 => {
                    out.push_str(" (gc)");
                    if weak {
                        dropped = 0;
                    }
                }
                9 => {
                    out.push(' ');
                    out.push_str(CHURN);
                }
                _ => {
                    out.push_str(&format!(" (hashtable-clear! {h})"));
                    model.clear();
                    dropped = 0;
                    stuck = 0;
                }
            }
        }
        // Every key, at the end.
        for (k, key) in keys.iter().enumerate() {
            let want = model.get(&k).map_or("'none".to_string(), |v| v.to_string());
            let c = self.model_check(
                &format!("final ref {k}"),
                &format!("(hashtable-ref {h} {key} 'none)"),
                &want,
            );
            out.push_str(&c);
        }
        out
    }

    /// Weak pairs (or ephemeron pairs) whose cars are kept (in a vector),
    /// dropped at once, or values; after a (gc), the kept ones are intact and the
    /// dropped ones broken (an ephemeron pair's cdr too, even when it refers to
    /// the car).
    fn weak_pair_scenario(&mut self) -> String {
        let wk = self.name("wk");
        let wp = self.name("wp");
        let eph = self.rng.chance(50);
        let (cons, is) = if eph {
            ("ephemeron-cons", "ephemeron-pair?")
        } else {
            ("weak-cons", "weak-pair?")
        };
        // What the cdr of pair `j` must be once its car is broken.
        let broken_cdr = |j: usize| {
            if eph {
                "(bwp-object? (cdr P))".to_string()
            } else {
                format!("(eqv? (cdr P) {j})")
            }
        };
        let nkept = self.rng.range(1, 6);
        let objs = self.objects(nkept);
        let mut out = format!("(define {wk} (vector{objs}))");
        let n = self.rng.range(1, 10);
        // Per pair: Some(i) kept object i, None dropped, or a value.
        let mut kinds = Vec::new();
        let mut pairs = String::new();
        for j in 0..n {
            match self.rng.below(3) {
                0 => {
                    let i = self.rng.below(nkept);
                    pairs.push_str(&format!(" ({cons} (vector-ref {wk} {i}) {j})"));
                    kinds.push(format!(
                        "(and (eq? (car P) (vector-ref {wk} {i})) (eqv? (cdr P) {j}))"
                    ));
                }
                1 if eph && self.rng.chance(50) => {
                    // The cdr refers to the car: still broken.
                    pairs.push_str(&format!(
                        " (let ((k (cons 'dropped {j}))) ({cons} k (list k)))"
                    ));
                    kinds.push(format!("(and (bwp-object? (car P)) {})", broken_cdr(j)));
                }
                1 => {
                    pairs.push_str(&format!(" ({cons} (cons 'dropped {j}) {j})"));
                    kinds.push(format!("(and (bwp-object? (car P)) {})", broken_cdr(j)));
                }
                _ => {
                    let v = *self.rng.pick(VALUE_KEYS);
                    pairs.push_str(&format!(" ({cons} {v} {j})"));
                    kinds.push(format!("(and (eqv? (car P) {v}) (eqv? (cdr P) {j}))"));
                }
            }
        }
        out.push_str(&format!(" (define {wp} (vector{pairs}))"));
        if self.rng.chance(50) {
            out.push(' ');
            out.push_str(CHURN);
        }
        out.push_str(" (gc)");
        for (j, test) in kinds.iter().enumerate() {
            let p = format!("(vector-ref {wp} {j})");
            let c = self.model_check(
                &format!("weak pair {j}"),
                &format!("(and {} ({is} {p}))", test.replace('P', &p)),
                "#t",
            );
            out.push_str(&c);
        }
        // Then nothing is kept: every object car is broken.
        out.push_str(&format!(" (set! {wk} #f) (gc)"));
        for (j, test) in kinds.iter().enumerate() {
            if test.starts_with("(and (eq? ") {
                let p = format!("(vector-ref {wp} {j})");
                let c = self.model_check(
                    &format!("weak pair {j} once dropped"),
                    &format!(
                        "(and (bwp-object? (car {p})) {})",
                        broken_cdr(j).replace('P', &p)
                    ),
                    "#t",
                );
                out.push_str(&c);
            }
        }
        out
    }

    /// A guardian with objects registered (some kept, some several times, some
    /// dropped at once, some values): after a (gc) it returns each dropped
    /// registration once, then #f; once the kept ones are dropped, those too.
    fn guardian_scenario(&mut self) -> String {
        let g = self.name("gd");
        let gk = self.name("gk");
        let nkept = self.rng.range(1, 6);
        let objs = self.objects(nkept);
        let mut out = format!("(define {g} (make-guardian)) (define {gk} (vector{objs}))");
        let (mut kept, mut dropped) = (0usize, 0usize);
        for j in 0..self.rng.range(1, 12) {
            match self.rng.below(3) {
                0 => {
                    let i = self.rng.below(nkept);
                    out.push_str(&format!(" ({g} (vector-ref {gk} {i}))"));
                    kept += 1;
                }
                1 => {
                    out.push_str(&format!(" ({g} (cons 'dropped {j}))"));
                    dropped += 1;
                }
                _ => {
                    let v = *self.rng.pick(VALUE_KEYS);
                    out.push_str(&format!(" ({g} {v})"));
                }
            }
        }
        if self.rng.chance(50) {
            out.push(' ');
            out.push_str(CHURN);
        }
        let drain = format!("(let loop ((n 0)) (if ({g}) (loop (- n 1)) (- n)))");
        out.push_str(" (gc)");
        out.push_str(&self.model_check("guardian dropped", &drain, &dropped.to_string()));
        out.push_str(&self.model_check("guardian empty", &format!("({g})"), "#f"));
        out.push_str(&format!(" (set! {gk} #f) (gc)"));
        out.push_str(&self.model_check("guardian kept", &drain, &kept.to_string()));
        out
    }
}

/// Ports, exceptions and bytevectors: string ports written and read, the
/// current output port parameterized, `guard` and handlers around generated
/// expressions and `dynamic-wind`, bytevector operations. In differential mode,
/// only forms both sides print alike (no error object or bytevector is
/// printed: Guile shows them in its own way).
impl Gen<'_> {
    fn io_scenario(&mut self) -> String {
        let e = self.expr(3);
        let s = self.string();
        let k = self.rng.pick(&[0usize, 1, 3, 10, 300]).to_string();
        let byte = self.rng.below(256).to_string();
        let n = self.rng.below(if self.diff { 16 } else { 18 });
        let form = match n {
            0 => "(define o (open-output-string)) (write @E o) (display @E o) (newline o) (write (get-output-string o))",
            1 => "(define p (open-input-string @S)) (write (list (peek-char p) (read-char p) (read-line p) (read-string @K p) (eof-object? (read-char p))))",
            2 => "(write (let ((p (open-input-string @S))) (let loop ((n 0)) (if (eof-object? (read-char p)) n (loop (+ n 1))))))",
            3 => "(define p (open-input-string \"(1 #(a \\\"b\\\") c) 2.5 sym\")) (write (list (read p) (read p) (read p) (eof-object? (read p))))",
            4 => "(define o (open-output-string)) (parameterize ((current-output-port o)) (write @E) (newline)) (write (get-output-string o))",
            5 => "(define p (open-input-string @S)) (close-port p) (write (input-port-open? p)) (read-char p)",
            6 => "(write (guard (e (#t (list 'caught (if (error-object? e) 'error e)))) (raise @E)))",
            7 => "(write (guard (e ((error-object? e) (list (error-object-message e) (error-object-irritants e)))) (error \"msg:\" @K (quote sym))))",
            8 => "(write (with-exception-handler (lambda (e) @K) (lambda () (+ (raise-continuable @E) 1))))",
            9 => "(write (guard (e ((string? e) e)) (raise @E)))",
            10 => "(write (guard (e (#t (if (error-object? e) 'error e))) (dynamic-wind (lambda () (display \"in \")) (lambda () @E) (lambda () (display \"out \")))))",
            11 => "(write (guard (e ((symbol? e) (list 'outer e))) (guard (e ((number? e) (list 'inner e))) (raise @E))))",
            12 => "(define b (make-bytevector @K @B)) (write (list (bytevector-length b) (bytevector? b) (equal? b (make-bytevector @K @B))))",
            13 => "(write (utf8->string (string->utf8 @S)))",
            14 => "(define p (open-input-bytevector (bytevector 1 2 @B))) (write (list (read-u8 p) (peek-u8 p) (bytevector-length (read-bytevector @K p)) (eof-object? (read-u8 p))))",
            15 => "(define o (open-output-bytevector)) (write-u8 @B o) (write-bytevector (bytevector 1 2 3) o 1) (write (bytevector-length (get-output-bytevector o)))",
            16 => "(write (list (bytevector @B @K) (string->utf8 @S) (bytevector-copy (bytevector 1 2 3) 1) (bytevector-append (make-bytevector @K @B))))",
            _ => "(write (list (raise-continuable @E) (read (open-input-string @S)) #u8(1 2 @B) (open-input-string @S) (eof-object)))",
        };
        // One pass, so that a generated piece is never substituted again.
        let mut out = String::new();
        let mut chars = form.chars();
        while let Some(c) = chars.next() {
            if c != '@' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('E') => out.push_str(&e),
                Some('S') => out.push_str(&s),
                Some('K') => out.push_str(&k),
                Some('B') => out.push_str(&byte),
                other => {
                    out.push('@');
                    out.extend(other);
                }
            }
        }
        out
    }
}
