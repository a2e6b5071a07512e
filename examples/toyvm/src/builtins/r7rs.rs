//! The R7RS-small builtins the toy VM gained for standard programs: time
//! (`current-jiffy`...), the inexact library (`exp`, `sin`, `atan`...),
//! `expt`, `truncate`, `ceiling`, exactness predicates, `string-set!`, the
//! character library. The Scheme half (`values`, records, promises, the
//! `c[ad]{3,4}r`...) is in `prelude-r7rs.scm`; ports are in `ports.rs` and
//! `portio.rs`.

use crate::error::VmError;
use crate::vm::{as_char, Num, Vm};
use std::sync::OnceLock;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

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
    vm.expect(base, vm.t.string, "a string", "string-set!")?;
    let k = vm.int(base + 1, "string-set!")?;
    let c = as_char(vm.val(base + 2))
        .ok_or_else(|| vm.type_error("string-set!", "a character", base + 2))?;
    if super::string::ascii_set(vm, base, k, c)? {
        vm.push_unspec();
        return Ok(());
    }
    let s = vm.string(base, "string-set!")?;
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
