//! Numeric builtins: integers are exact 64-bit (overflow is an error), floats
//! are inexact; mixing gives a float. `/` of integers that do not divide evenly
//! gives a float (there are no rationals).

use crate::error::VmError;
use crate::vm::{Num, Vm};

fn overflow(who: &str) -> VmError {
    VmError::runtime(format!("{who}: integer overflow"))
}

fn as_f(n: Num) -> f64 {
    match n {
        Num::Int(i) => i as f64,
        Num::Float(f) => f,
    }
}

fn arith(
    vm: &mut Vm,
    base: usize,
    argc: usize,
    who: &str,
    unit: i64,
    int: fn(i64, i64) -> Option<i64>,
    float: fn(f64, f64) -> f64,
) -> Result<(), VmError> {
    let (mut acc, start) = match (who, argc) {
        // Negation (not 0 - x: that would make (- 0.0) 0.0, not -0.0).
        ("-", 1) => {
            return match vm.num(base, who)? {
                Num::Int(i) => vm.push_int(i.checked_neg().ok_or_else(|| overflow(who))?),
                Num::Float(f) => vm.push_float(-f),
            };
        }
        (_, 0) => (Num::Int(unit), 0),
        // From the first argument, not from the unit: (+ -0.0) is -0.0, and
        // 0 + -0.0 would be 0.0.
        _ => (vm.num(base, who)?, 1),
    };
    for i in start..argc {
        let x = vm.num(base + i, who)?;
        acc = match (acc, x) {
            (Num::Int(a), Num::Int(b)) => Num::Int(int(a, b).ok_or_else(|| overflow(who))?),
            (a, b) => Num::Float(float(as_f(a), as_f(b))),
        };
    }
    vm.push_num(acc)
}

/// `+`. Two fixnums add without allocating (their sum always fits 64 bits; it
/// is boxed only outside the 63-bit fixnum range).
pub fn add(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    if argc == 2 {
        if let (Some(a), Some(b)) = (vm.val(base).as_fixnum(), vm.val(base + 1).as_fixnum()) {
            return vm.push_int(a + b);
        }
        if let (Num::Int(a), Num::Int(b)) = (vm.num(base, "+")?, vm.num(base + 1, "+")?) {
            return vm.push_int(a.checked_add(b).ok_or_else(|| overflow("+"))?);
        }
    }
    arith(vm, base, argc, "+", 0, i64::checked_add, |a, b| a + b)
}

/// `-` (two fixnums: as `+`).
pub fn sub(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    if argc == 2 {
        if let (Some(a), Some(b)) = (vm.val(base).as_fixnum(), vm.val(base + 1).as_fixnum()) {
            return vm.push_int(a - b);
        }
        if let (Num::Int(a), Num::Int(b)) = (vm.num(base, "-")?, vm.num(base + 1, "-")?) {
            return vm.push_int(a.checked_sub(b).ok_or_else(|| overflow("-"))?);
        }
    }
    arith(vm, base, argc, "-", 0, i64::checked_sub, |a, b| a - b)
}

/// `*`.
pub fn mul(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    arith(vm, base, argc, "*", 1, i64::checked_mul, |a, b| a * b)
}

/// `/`.
pub fn div(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let (mut acc, start) = if argc == 1 {
        (Num::Int(1), 0)
    } else {
        (vm.num(base, "/")?, 1)
    };
    for i in start..argc {
        let x = vm.num(base + i, "/")?;
        acc = match (acc, x) {
            (Num::Int(_), Num::Int(0)) => return Err(VmError::runtime("/: division by zero")),
            (Num::Int(a), Num::Int(b)) if a.checked_rem(b) == Some(0) => {
                Num::Int(a.checked_div(b).ok_or_else(|| overflow("/"))?)
            }
            (a, b) => Num::Float(as_f(a) / as_f(b)),
        };
    }
    vm.push_num(acc)
}

fn int_div(
    vm: &mut Vm,
    base: usize,
    who: &str,
    op: fn(i64, i64) -> Option<i64>,
) -> Result<(), VmError> {
    let a = vm.int(base, who)?;
    let b = vm.int(base + 1, who)?;
    if b == 0 {
        return Err(VmError::runtime(format!("{who}: division by zero")));
    }
    vm.push_int(op(a, b).ok_or_else(|| overflow(who))?)
}

/// `quotient`.
pub fn quotient(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    int_div(vm, base, "quotient", i64::checked_div)
}

/// `remainder`. Never overflows: `i64::MIN` by -1 is 0 (`wrapping_rem`, whose
/// only wrapping case that is).
pub fn remainder(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    int_div(vm, base, "remainder", |a, b| Some(a.wrapping_rem(b)))
}

/// `modulo` (the sign of the divisor).
pub fn modulo(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    int_div(vm, base, "modulo", |a, b| {
        let r = a.wrapping_rem(b);
        Some(if r != 0 && (r < 0) != (b < 0) {
            r + b
        } else {
            r
        })
    })
}

/// `abs`.
pub fn abs(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    match vm.num(base, "abs")? {
        Num::Int(i) => vm.push_int(i.checked_abs().ok_or_else(|| overflow("abs"))?),
        Num::Float(f) => vm.push_float(f.abs()),
    }
}

fn extremum(
    vm: &mut Vm,
    base: usize,
    argc: usize,
    who: &str,
    want_max: bool,
) -> Result<(), VmError> {
    let mut best = vm.num(base, who)?;
    let mut inexact = matches!(best, Num::Float(_));
    let mut nan = matches!(best, Num::Float(f) if f.is_nan());
    for i in 1..argc {
        let x = vm.num(base + i, who)?;
        inexact |= matches!(x, Num::Float(_));
        nan |= matches!(x, Num::Float(f) if f.is_nan());
        let better = if want_max {
            compare(x, best) > 0
        } else {
            compare(x, best) < 0
        };
        if better {
            best = x;
        }
    }
    if nan {
        // A NaN anywhere makes the result NaN, whatever the order (the
        // comparisons alone would keep or drop it depending on its place).
        best = Num::Float(f64::NAN);
    } else if inexact {
        best = Num::Float(as_f(best));
    }
    vm.push_num(best)
}

/// `min`.
pub fn min(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    extremum(vm, base, argc, "min", false)
}

/// `max`.
pub fn max(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    extremum(vm, base, argc, "max", true)
}

/// -1, 0 or 1 (NaN compares as unordered: 2).
fn compare(a: Num, b: Num) -> i32 {
    match (a, b) {
        (Num::Int(a), Num::Int(b)) => a.cmp(&b) as i32,
        (a, b) => match as_f(a).partial_cmp(&as_f(b)) {
            Some(o) => o as i32,
            None => 2,
        },
    }
}

fn chain(
    vm: &mut Vm,
    base: usize,
    argc: usize,
    who: &str,
    ok: fn(i32) -> bool,
) -> Result<(), VmError> {
    let mut prev = vm.num(base, who)?;
    let mut result = true;
    for i in 1..argc {
        let x = vm.num(base + i, who)?;
        result &= ok(compare(prev, x));
        prev = x;
    }
    vm.push_bool(result);
    Ok(())
}

/// `=`.
pub fn num_eq(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    chain(vm, base, argc, "=", |c| c == 0)
}

/// `<`.
pub fn lt(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    chain(vm, base, argc, "<", |c| c == -1)
}

/// `>`.
pub fn gt(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    chain(vm, base, argc, ">", |c| c == 1)
}

/// `<=`.
pub fn le(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    chain(vm, base, argc, "<=", |c| c == -1 || c == 0)
}

/// `>=`.
pub fn ge(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    chain(vm, base, argc, ">=", |c| c == 1 || c == 0)
}

fn test(
    vm: &mut Vm,
    base: usize,
    who: &str,
    int: fn(i64) -> bool,
    float: fn(f64) -> bool,
) -> Result<(), VmError> {
    let b = match vm.num(base, who)? {
        Num::Int(i) => int(i),
        Num::Float(f) => float(f),
    };
    vm.push_bool(b);
    Ok(())
}

/// `zero?`.
pub fn is_zero(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    test(vm, base, "zero?", |i| i == 0, |f| f == 0.0)
}

/// `positive?`.
pub fn is_positive(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    test(vm, base, "positive?", |i| i > 0, |f| f > 0.0)
}

/// `negative?`.
pub fn is_negative(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    test(vm, base, "negative?", |i| i < 0, |f| f < 0.0)
}

/// `even?`.
pub fn is_even(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let i = vm.int(base, "even?")?;
    vm.push_bool(i % 2 == 0);
    Ok(())
}

/// `odd?`.
pub fn is_odd(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let i = vm.int(base, "odd?")?;
    vm.push_bool(i % 2 != 0);
    Ok(())
}

/// `exact->inexact`.
pub fn to_inexact(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let n = vm.num(base, "exact->inexact")?;
    vm.push_float(as_f(n))
}

/// `inexact->exact` (of an integral float).
pub fn to_exact(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    match vm.num(base, "inexact->exact")? {
        Num::Int(i) => vm.push_int(i),
        Num::Float(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => vm.push_int(f as i64),
        Num::Float(f) => Err(VmError::runtime(format!(
            "inexact->exact: {f} has no exact integer equivalent"
        ))),
    }
}

/// `floor`.
pub fn floor(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    match vm.num(base, "floor")? {
        Num::Int(i) => vm.push_int(i),
        Num::Float(f) => vm.push_float(f.floor()),
    }
}

/// `round` (to even).
pub fn round(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    match vm.num(base, "round")? {
        Num::Int(i) => vm.push_int(i),
        Num::Float(f) => vm.push_float(f.round_ties_even()),
    }
}

/// `sqrt`: exact for perfect squares.
pub fn sqrt(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    match vm.num(base, "sqrt")? {
        Num::Int(i) if i >= 0 => {
            let r = (i as f64).sqrt() as i64;
            let exact = (r.saturating_sub(1)..=r + 1).find(|c| c.checked_mul(*c) == Some(i));
            match exact {
                Some(r) => vm.push_int(r),
                None => vm.push_float((i as f64).sqrt()),
            }
        }
        n => vm.push_float(as_f(n).sqrt()),
    }
}

/// Formats a number as `number->string` and `display` do.
pub fn format_num(n: Num) -> String {
    match n {
        Num::Int(i) => i.to_string(),
        Num::Float(f) => crate::vm::print::format_float(f),
    }
}

/// The optional radix argument at stack entry `i` (2, 8, 10 or 16; 10 if
/// absent).
fn radix(vm: &Vm, i: usize, given: bool, who: &str) -> Result<u32, VmError> {
    if !given {
        return Ok(10);
    }
    match vm.int(i, who)? {
        r @ (2 | 8 | 10 | 16) => Ok(r as u32),
        r => Err(VmError::runtime(format!(
            "{who}: radix {r} is not 2, 8, 10 or 16"
        ))),
    }
}

/// An integer in `radix`, with a sign and no prefix (`-ff`).
fn int_in_radix(i: i64, radix: u32) -> String {
    let digits = |mut u: u64| {
        let mut out = Vec::new();
        loop {
            out.push(std::char::from_digit((u % u64::from(radix)) as u32, radix).expect("digit"));
            u /= u64::from(radix);
            if u == 0 {
                break;
            }
        }
        out.iter().rev().collect::<String>()
    };
    if i < 0 {
        format!("-{}", digits(i.unsigned_abs()))
    } else {
        digits(i as u64)
    }
}

/// `number->string`, with an optional radix (2, 8, 10 or 16; an inexact number
/// only in radix 10).
pub fn number_to_string(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let n = vm.num(base, "number->string")?;
    let radix = radix(vm, base + 1, argc > 1, "number->string")?;
    let s = match n {
        _ if radix == 10 => format_num(n),
        Num::Int(i) => int_in_radix(i, radix),
        Num::Float(_) => {
            return Err(VmError::runtime(format!(
                "number->string: an inexact number in radix {radix} (only radix 10 is supported)"
            )))
        }
    };
    vm.push_str(&s)
}

/// `string->number` (`#f` if not a number), with an optional radix: in radix
/// 2, 8 or 16 the text is an integer (a sign and digits) unless it carries its
/// own prefix (`#x`...), which wins.
pub fn string_to_number(vm: &mut Vm, base: usize, argc: usize) -> Result<(), VmError> {
    let s = vm.string(base, "string->number")?;
    let radix = radix(vm, base + 1, argc > 1, "string->number")?;
    if radix != 10 && !s.starts_with('#') {
        let (neg, digits) = match s.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, s.strip_prefix('+').unwrap_or(&s)),
        };
        let value = (!digits.is_empty() && !digits.starts_with(['+', '-']))
            .then(|| u64::from_str_radix(digits, radix).ok())
            .flatten()
            .and_then(|u| {
                if neg {
                    0i64.checked_sub_unsigned(u)
                } else {
                    i64::try_from(u).ok()
                }
            });
        return match value {
            Some(i) => vm.push_int(i),
            None => {
                vm.push_bool(false);
                Ok(())
            }
        };
    }
    match crate::reader::parse_number(&s) {
        Some(crate::reader::DatumKind::Int(i)) => vm.push_int(i),
        Some(crate::reader::DatumKind::Float(f)) => vm.push_float(f),
        _ => {
            vm.push_bool(false);
            Ok(())
        }
    }
}

/// `number?`.
pub fn is_number(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = vm.val(base).as_fixnum().is_some() || vm.is(base, vm.t.int) || vm.is(base, vm.t.float);
    vm.push_bool(b);
    Ok(())
}

/// `integer?` (integral floats count).
pub fn is_integer(vm: &mut Vm, base: usize, _: usize) -> Result<(), VmError> {
    let b = match vm.num(base, "integer?") {
        Ok(Num::Int(_)) => true,
        Ok(Num::Float(f)) => f.fract() == 0.0,
        Err(_) => false,
    };
    vm.push_bool(b);
    Ok(())
}
