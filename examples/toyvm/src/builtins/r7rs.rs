//! The R7RS-small builtins the toy VM gained for standard programs: time
//! (`current-jiffy`...), the inexact library (`exp`, `sin`, `atan`...),
//! `expt`, `truncate`, `ceiling`, exactness predicates, `string-set!`, the
//! character library, and reading from the program's standard input (`read`,
//! `read-char`, `peek-char`, `read-line`). The Scheme half (`values`,
//! records, promises, the `c[ad]{3,4}r`...) is in `prelude-r7rs.scm`.
//!
//! Ports are not objects yet: `current-input-port` and `current-output-port`
//! return symbols naming them, and the optional port argument of the output
//! procedures is ignored (output goes to the program's output), that of the
//! input procedures must be the current input port. The end-of-file object is
//! the symbol `#<eof>`.

use crate::error::VmError;
use crate::reader::Datum;
use crate::vm::{as_char, Num, Vm};
use std::io::Read;
use std::sync::{Mutex, OnceLock};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// The name of the end-of-file object (a symbol).
pub const EOF: &str = "#<eof>";

fn start() -> Instant {
    static START: OnceLock<Instant> = OnceLock::new();
    *START.get_or_init(Instant::now)
}

/// `current-jiffy`: microseconds since the first call.
pub fn current_jiffy(vm: &mut Vm, _: usize, _: usize) -> Result<(), VmError> {
    let us = start().elapsed().as_micros();
    vm.push_int(i64::try_from(us).unwrap_or(i64::MAX))
}

/// `jiffies-per-second`: 1000000.
pub fn jiffies_per_second(vm: &mut Vm, _: usize, _: usize) -> Result<(), VmError> {
    vm.push_int(1_000_000)
}

/// `current-second`: seconds since the Unix epoch, as a float.
pub fn current_second(vm: &mut Vm, _: usize, _: usize) -> Result<(), VmError> {
    let s = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    vm.push_float(s)
}

fn float_of(n: Num) -> f64 {
    match n {
        Num::Int(i) => i as f64,
        Num::Float(f) => f,
    }
}

macro_rules! float1 {
    ($($name:ident $scheme:literal $f:expr;)*) => {$(
        #[doc = concat!("`", $scheme, "` (always inexact).")]
        pub fn $name(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
            let x = float_of(vm.num(base, $scheme)?);
            let f: fn(f64) -> f64 = $f;
            vm.push_float(f(x))
        }
    )*};
}

float1! {
    exp "exp" f64::exp;
    sin "sin" f64::sin;
    cos "cos" f64::cos;
    tan "tan" f64::tan;
    asin "asin" f64::asin;
    acos "acos" f64::acos;
}

/// `log` of one argument (natural) or two (`(log z b)`).
pub fn log(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let x = float_of(vm.num(base, "log")?);
    if argc == 2 {
        let b = float_of(vm.num(base + 1, "log")?);
        return vm.push_float(x.ln() / b.ln());
    }
    vm.push_float(x.ln())
}

/// `atan` of one argument, or of `y x` (the angle of the point).
pub fn atan(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let y = float_of(vm.num(base, "atan")?);
    if argc == 2 {
        let x = float_of(vm.num(base + 1, "atan")?);
        return vm.push_float(y.atan2(x));
    }
    vm.push_float(y.atan())
}

/// `expt`: exact for an exact base and a non-negative exact exponent
/// (overflow is an error), inexact otherwise.
pub fn expt(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    match (vm.num(base, "expt")?, vm.num(base + 1, "expt")?) {
        (Num::Int(b), Num::Int(e)) if e >= 0 => {
            let r = u32::try_from(e).ok().and_then(|e| b.checked_pow(e));
            match r {
                Some(r) => vm.push_int(r),
                None => Err(VmError::runtime("expt: integer overflow")),
            }
        }
        (Num::Int(b), Num::Int(e)) => vm.push_float((b as f64).powf(e as f64)),
        (b, e) => vm.push_float(float_of(b).powf(float_of(e))),
    }
}

/// `truncate`: an integer stays as it is.
pub fn truncate(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    match vm.num(base, "truncate")? {
        Num::Int(i) => vm.push_int(i),
        Num::Float(f) => vm.push_float(f.trunc()),
    }
}

/// `ceiling`: an integer stays as it is.
pub fn ceiling(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    match vm.num(base, "ceiling")? {
        Num::Int(i) => vm.push_int(i),
        Num::Float(f) => vm.push_float(f.ceil()),
    }
}

fn is_num(vm: &Vm, base: usize) -> Option<Num> {
    vm.num(base, "").ok()
}

/// `exact-integer?`.
pub fn is_exact_integer(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = matches!(is_num(vm, base), Some(Num::Int(_)));
    vm.push_bool(b);
    Ok(())
}

/// `exact?` (of a number).
pub fn is_exact(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = matches!(vm.num(base, "exact?")?, Num::Int(_));
    vm.push_bool(b);
    Ok(())
}

/// `inexact?` (of a number).
pub fn is_inexact(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = matches!(vm.num(base, "inexact?")?, Num::Float(_));
    vm.push_bool(b);
    Ok(())
}

/// `nan?`.
pub fn is_nan(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = float_of(vm.num(base, "nan?")?).is_nan();
    vm.push_bool(b);
    Ok(())
}

/// `string-set!`: in place, when the new character's UTF-8 encoding has the
/// same length as the old one's (strings are UTF-8 byte arrays that cannot
/// grow; any other case is an error saying so).
pub fn string_set(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let s = vm.string(base, "string-set!")?;
    let k = vm.int(base + 1, "string-set!")?;
    let c = as_char(vm.val(base + 2))
        .ok_or_else(|| vm.type_error("string-set!", "a character", base + 2))?;
    let Some((at, old)) = usize::try_from(k)
        .ok()
        .and_then(|k| s.char_indices().nth(k))
    else {
        return Err(VmError::runtime(format!(
            "string-set!: index {k} out of range for length {}",
            s.chars().count()
        )));
    };
    if old.len_utf8() != c.len_utf8() {
        return Err(VmError::runtime(format!(
            "string-set!: cannot replace {old:?} by {c:?} (strings are UTF-8 and \
             cannot change their byte length)"
        )));
    }
    let mut utf8 = [0; 4];
    let bytes = c.encode_utf8(&mut utf8).as_bytes();
    let g = vm.obj(base).expect("checked string");
    vm.m.write_bytes(g, at, bytes);
    vm.push_unspec();
    Ok(())
}

fn char_arg(vm: &Vm, i: usize, who: &str) -> Result<char, VmError> {
    as_char(vm.val(i)).ok_or_else(|| vm.type_error(who, "a character", i))
}

macro_rules! char_pred {
    ($($name:ident $scheme:literal $f:expr;)*) => {$(
        #[doc = concat!("`", $scheme, "`.")]
        pub fn $name(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
            let c = char_arg(vm, base, $scheme)?;
            let f: fn(char) -> bool = $f;
            vm.push_bool(f(c));
            Ok(())
        }
    )*};
}

char_pred! {
    is_alphabetic "char-alphabetic?" char::is_alphabetic;
    is_numeric "char-numeric?" char::is_numeric;
    is_whitespace "char-whitespace?" char::is_whitespace;
    is_upper "char-upper-case?" char::is_uppercase;
    is_lower "char-lower-case?" char::is_lowercase;
}

/// `char-upcase` (simple case mapping: a character whose upper case is more
/// than one character stays as it is).
pub fn char_upcase(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let c = char_arg(vm, base, "char-upcase")?;
    let mut up = c.to_uppercase();
    let u = match (up.next(), up.next()) {
        (Some(u), None) => u,
        _ => c,
    };
    vm.push_char(u);
    Ok(())
}

/// `char-downcase` (and `char-foldcase`), simple case mapping.
pub fn char_downcase(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let c = char_arg(vm, base, "char-downcase")?;
    let mut low = c.to_lowercase();
    let l = match (low.next(), low.next()) {
        (Some(l), None) => l,
        _ => c,
    };
    vm.push_char(l);
    Ok(())
}

/// `digit-value`: the decimal digit's value, or `#f`.
pub fn digit_value(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let c = char_arg(vm, base, "digit-value")?;
    match c.to_digit(10) {
        Some(d) => vm.push_int(i64::from(d)),
        None => {
            vm.push_bool(false);
            Ok(())
        }
    }
}

fn char_compare(
    vm: &mut Vm,
    base: usize,
    argc: usize,
    who: &str,
    fold: bool,
    ok: fn(char, char) -> bool,
) -> Result<(), VmError> {
    let key = |c: char| {
        if fold {
            c.to_lowercase().next().unwrap_or(c)
        } else {
            c
        }
    };
    let mut all = true;
    for i in 0..argc {
        let c = char_arg(vm, base + i, who)?;
        if i > 0 && all {
            all = ok(key(char_arg(vm, base + i - 1, who)?), key(c));
        }
    }
    vm.push_bool(all);
    Ok(())
}

macro_rules! char_cmp {
    ($($name:ident $scheme:literal $fold:literal $f:expr;)*) => {$(
        #[doc = concat!("`", $scheme, "`.")]
        pub fn $name(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
            char_compare(vm, base, argc, $scheme, $fold, $f)
        }
    )*};
}

char_cmp! {
    char_eq "char=?" false |a, b| a == b;
    char_lt "char<?" false |a, b| a < b;
    char_gt "char>?" false |a, b| a > b;
    char_le "char<=?" false |a, b| a <= b;
    char_ge "char>=?" false |a, b| a >= b;
    char_ci_eq "char-ci=?" true |a, b| a == b;
    char_ci_lt "char-ci<?" true |a, b| a < b;
}

/// The program's standard input, read whole on first use, and how far the
/// input procedures have consumed it (in bytes).
struct Stdin {
    text: String,
    at: usize,
}

fn with_stdin<R>(f: impl FnOnce(&mut Stdin) -> R) -> Result<R, VmError> {
    static STDIN: OnceLock<Mutex<Stdin>> = OnceLock::new();
    let cell = STDIN.get_or_init(|| {
        let mut bytes = Vec::new();
        let _ = std::io::stdin().read_to_end(&mut bytes);
        let text = String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        Mutex::new(Stdin { text, at: 0 })
    });
    let mut g = cell
        .lock()
        .map_err(|_| VmError::runtime("standard input: poisoned by a failed thread"))?;
    Ok(f(&mut g))
}

fn check_input_port(vm: &Vm, base: usize, argc: usize, who: &str) -> Result<(), VmError> {
    if argc == 1 && vm.repr(vm.val(base), true) != "#<input-port>" {
        return Err(vm.type_error(who, "the current input port", base));
    }
    Ok(())
}

/// `read`: the next datum of the standard input, or the end-of-file object.
pub fn read(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    check_input_port(vm, base, argc, "read")?;
    let next: Result<Option<Datum>, VmError> = with_stdin(|s| {
        let rest = &s.text[s.at..];
        match crate::reader::read_prefix(rest)? {
            None => {
                s.at = s.text.len();
                Ok(None)
            }
            Some((d, used)) => {
                s.at += used;
                Ok(Some(d))
            }
        }
    })?;
    match next? {
        Some(d) => vm.build_datum(&d),
        None => vm.push_symbol(EOF),
    }
}

/// `read-char` / `peek-char`.
fn next_char(vm: &mut Vm, base: usize, argc: usize, who: &str, take: bool) -> Result<(), VmError> {
    check_input_port(vm, base, argc, who)?;
    let c = with_stdin(|s| {
        let c = s.text[s.at..].chars().next();
        if take {
            s.at += c.map_or(0, char::len_utf8);
        }
        c
    })?;
    match c {
        Some(c) => {
            vm.push_char(c);
            Ok(())
        }
        None => vm.push_symbol(EOF),
    }
}

/// `read-char`.
pub fn read_char(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    next_char(vm, base, argc, "read-char", true)
}

/// `peek-char`.
pub fn peek_char(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    next_char(vm, base, argc, "peek-char", false)
}

/// `read-line`: the rest of the line without its newline, or the end-of-file
/// object at the end.
pub fn read_line(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    check_input_port(vm, base, argc, "read-line")?;
    let line = with_stdin(|s| {
        let rest = &s.text[s.at..];
        if rest.is_empty() {
            return None;
        }
        let (line, used) = match rest.find('\n') {
            Some(n) => (&rest[..n], n + 1),
            None => (rest, rest.len()),
        };
        let line = line.to_string();
        s.at += used;
        Some(line)
    })?;
    match line {
        Some(l) => vm.push_str(&l),
        None => vm.push_symbol(EOF),
    }
}

/// `eof-object`.
pub fn eof_object(vm: &mut Vm, _: usize, _: usize) -> Result<(), VmError> {
    vm.push_symbol(EOF)
}

/// `current-input-port`: the symbol `#<input-port>`.
pub fn current_input_port(vm: &mut Vm, _: usize, _: usize) -> Result<(), VmError> {
    vm.push_symbol("#<input-port>")
}

/// `current-output-port`: the symbol `#<output-port>`.
pub fn current_output_port(vm: &mut Vm, _: usize, _: usize) -> Result<(), VmError> {
    vm.push_symbol("#<output-port>")
}

/// `flush-output-port` (the port argument is ignored).
pub fn flush_output_port(vm: &mut Vm, _: usize, _: usize) -> Result<(), VmError> {
    vm.flush();
    vm.push_unspec();
    Ok(())
}

/// `write-char` (the port argument is ignored).
pub fn write_char(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let c = char_arg(vm, base, "write-char")?;
    vm.out.push(c);
    vm.push_unspec();
    Ok(())
}

/// `write-string` (the port argument is ignored).
pub fn write_string(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let s = vm.string(base, "write-string")?;
    vm.out.push_str(&s);
    vm.push_unspec();
    Ok(())
}
