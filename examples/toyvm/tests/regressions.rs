//! Regressions: one test per bug the fuzzer (`toyvm-fuzz`, `tests/fuzz.rs`)
//! found, or that was found while writing it, each with the reduced program.
//! Each used to crash (a signal or a panic) or hang; each must now end with
//! output or a clean error.

mod common;

use common::{error_of, output_of};
use flipgc_toyvm::ErrorKind;

fn nested_error(src: &str) {
    let e = error_of(src);
    assert!(matches!(e.kind, ErrorKind::Syntax { .. }), "{e}");
    assert!(e.message.contains("nested deeper than"), "{e}");
}

/// Case 391 of seed 1 (0x96ac7199d9e823a9): `case` with 100,000 clauses became
/// 100,000 nested `if`s, and the code generator overflowed the host stack
/// (SIGABRT). `let*` with as many bindings did the same. Both now count
/// towards the compiler's nesting limit.
#[test]
fn long_case_and_let_star_are_limited_not_fatal() {
    let arms: String = (0..100_000).map(|i| format!("(({i}) {i})")).collect();
    nested_error(&format!("(display (case 7 {arms}))"));
    let binds: String = (0..100_000).map(|i| format!("(v{i} {i})")).collect();
    nested_error(&format!("(display (let* ({binds}) v0))"));
    // Within the limit they work.
    let arms: String = (0..700).map(|i| format!("(({i}) {i})")).collect();
    assert_eq!(output_of(&format!("(display (case 699 {arms}))")), "699");
    let binds: String = (0..700).map(|i| format!("(v{i} {i})")).collect();
    assert_eq!(
        output_of(&format!("(display (let* ({binds}) v699))")),
        "699"
    );
}

/// Case 22 of seed 1 (0x18f34f888d731fda): `equal?` on two structures with
/// 2^60 paths through 60 shared pairs never finished (a hang). `equal?` now
/// switches to a union-find walk, linear in the pairs, which also ends on
/// cycles.
#[test]
fn equal_on_exponentially_shared_structure() {
    assert_eq!(
        output_of(
            "(define (dag n) (if (= n 0) '(x) (let ((d (dag (- n 1)))) (cons d d)))) (write (equal? (dag 60) (dag 60)))"
        ),
        "#t"
    );
}

/// `(apply + 5)`: the error for an improper argument list read a stack slot
/// past the top (an index-out-of-bounds panic in the root stack); with a
/// non-empty improper list it named the wrong value. A circular list made
/// `apply` push for ever. The list is now checked first.
#[test]
fn apply_with_improper_or_circular_lists() {
    let e = error_of("(apply + 5)");
    assert_eq!(e.message, "apply: expected a proper list, got 5");
    let e = error_of("(apply + 1 '(2 . 3))");
    assert_eq!(e.message, "apply: expected a proper list, got (2 . 3)");
    let e = error_of("(define c (list 1)) (set-cdr! c c) (apply + c)");
    assert_eq!(e.message, "apply: expected a proper list, got #0=(1 . #0#)");
    assert_eq!(output_of("(write (apply + 1 2 '(3)))"), "6");
}

/// Two threads joining each other waited for ever (the fuzzer's watchdog
/// reported the program's threads still running); a thread joining itself
/// panicked inside the host's join ("Resource deadlock avoided"). Both are
/// now errors.
#[test]
fn joins_that_would_deadlock_are_errors() {
    let e = error_of(
        "(define t1 #f) (define t2 #f)
         (set! t1 (spawn (lambda () (let w () (if (not t2) (w))) (join t2))))
         (set! t2 (spawn (lambda () (let w () (if (not t1) (w))) (join t1))))
         (join t1)",
    );
    assert!(e.message.contains("join: deadlock"), "{e}");
    let e = error_of(
        "(define t #f) (define go #f)
         (set! t (spawn (lambda () (let w () (if (not go) (w))) (join t))))
         (set! go #t) (join t)",
    );
    assert!(
        e.message.contains("join: a thread cannot join itself"),
        "{e}"
    );
    // A chain of joins is fine.
    assert_eq!(
        output_of(
            "(define a (spawn (lambda () 1))) (define b (spawn (lambda () (+ 1 (join a))))) (write (+ (join b) (join a)))"
        ),
        "3"
    );
}

/// `joins_that_would_deadlock_are_errors` failed about half the time: while the
/// main thread joined t1, t2's join of t1 was refused ("join: another thread is
/// joining this thread"), and that error, not the deadlock, reached the main
/// thread. Several threads may now join one thread at once: the later joiners
/// wait for the first one's result.
#[test]
fn several_threads_may_join_one_thread() {
    assert_eq!(
        output_of(
            "(define a (spawn (lambda () (let w ((i 0)) (if (< i 100000) (w (+ i 1)) 7)))))
             (define b (spawn (lambda () (join a))))
             (define c (spawn (lambda () (join a))))
             (write (list (join a) (join b) (join c) (join a)))"
        ),
        "(7 7 7 7)"
    );
}

// Wrong results found by the differential fuzzer (`toyvm-fuzz --diff guile`,
// `tests/diff.rs`): the toy VM disagreed with Guile where R7RS sides with Guile.

/// Floats of 1e16 and more printed as integers (`(write 1e20)` gave
/// `100000000000000000000`, an exact integer when read back) and tiny ones as
/// long decimals. They now print in the shortest form that reads back as the
/// same float.
#[test]
fn large_and_tiny_floats_print_as_floats() {
    assert_eq!(output_of("(write 1e20)"), "1e20");
    assert_eq!(
        output_of("(write -1.381589434418696e18)"),
        "-1.381589434418696e18"
    );
    assert_eq!(output_of("(write 1e-7)"), "1e-7");
    assert_eq!(output_of("(write 1e15)"), "1e15");
    assert_eq!(output_of("(write 123456789.0)"), "123456789.0");
    assert_eq!(output_of("(display (number->string 1e300))"), "1e300");
    assert_eq!(output_of("(write (list 2.5 0.1 -0.0))"), "(2.5 0.1 -0.0)");
}

/// `(- 0.0)` gave 0.0 (computed as 0 - 0.0); negation gives -0.0.
#[test]
fn negating_zero_float_gives_minus_zero() {
    assert_eq!(output_of("(write (- 0.0))"), "-0.0");
    assert_eq!(output_of("(write (- 1.5))"), "-1.5");
    assert_eq!(output_of("(write (- 7))"), "-7");
    let e = error_of("(- -9223372036854775808)");
    assert!(e.message.contains("integer overflow"), "{e}");
}

/// A `begin` of definitions at the start of a body was refused ("define: only
/// allowed at top level or at the start of a body"); R7RS splices it into the
/// body's definitions.
#[test]
fn begin_of_definitions_splices_into_a_body() {
    assert_eq!(
        output_of("(write ((lambda () (begin (define x 1)) x)))"),
        "1"
    );
    assert_eq!(
        output_of("(write ((lambda () (begin (define x 1) (begin (define y 2))) (define z 3) (list x y z))))"),
        "(1 2 3)"
    );
    // A definition after an expression is still refused.
    let e = error_of("(write ((lambda () (display 1) (define x 1) x)))");
    assert!(e.message.contains("start of a body"), "{e}");
}

/// `map` and `for-each` of one list returned normally on an improper list or a
/// non-list (`(map car 5)` gave `()`); they are errors now, raised before the
/// procedure is called at all.
#[test]
fn map_and_for_each_refuse_improper_lists() {
    for src in [
        "(map car 5)",
        "(map (lambda (x) x) '(1 2 . 3))",
        "(for-each display \"abc\")",
        "(for-each display '(1 2 . 3))",
    ] {
        let e = error_of(src);
        assert!(e.message.contains("proper list"), "{src}: {e}");
    }
    // No element was displayed before the error.
    let out = common::run_with("(for-each display '(1 2 . 3))", 4 << 20, "auto", false);
    assert!(out.result.is_err());
    assert_eq!(out.output, "");
}

/// `(max +nan.0 0.5)` gave 0.5 but `(max 0.5 +nan.0)` gave +nan.0 (and `min`
/// the other way round): a NaN argument now makes the result NaN in any place.
#[test]
fn min_and_max_propagate_nan_in_any_place() {
    for src in [
        "(max +nan.0 0.5)",
        "(max 0.5 +nan.0)",
        "(min +nan.0 1 2)",
        "(min 1 2 +nan.0)",
    ] {
        assert_eq!(output_of(&format!("(write {src})")), "+nan.0", "{src}");
    }
    assert_eq!(output_of("(write (max 1 2.0))"), "2.0");
}

/// `(+ -0.0)` and `(* -0.0)` gave 0.0: the sums and products started from the
/// exact unit (0 + -0.0 is 0.0). They start from the first argument now.
#[test]
fn sums_and_products_start_from_the_first_argument() {
    assert_eq!(output_of("(write (+ -0.0))"), "-0.0");
    assert_eq!(output_of("(write (* -0.0))"), "-0.0");
    assert_eq!(
        output_of("(write (list (+) (*) (+ 1 2 3) (* 2 3.5)))"),
        "(0 1 6 7.0)"
    );
    let e = error_of("(+ 'a)");
    assert!(e.message.contains("expected a number"), "{e}");
}

/// Found by the differential fuzzer's R7RS forms (`program/forms.rs`):
/// `string-fill!` refused R7RS's optional start and end ("expected 2
/// arguments, got 4"). It now fills the range, and a range outside the string
/// is an error.
#[test]
fn string_fill_takes_a_range() {
    assert_eq!(
        output_of("(define s (string-copy \"hello\")) (string-fill! s #\\q 1 3) (write s)"),
        "\"hqqlo\""
    );
    assert_eq!(
        output_of("(define s (make-string 4 #\\a)) (string-fill! s #\\z 2) (string-fill! s #\\b) (string-fill! s #\\c 4) (write s)"),
        "\"bbbb\""
    );
    let e = error_of("(define s (make-string 2 #\\a)) (string-fill! s #\\b 1 3)");
    assert!(e.message.contains("string-fill!"), "{e}");
    let e = error_of("(define s (make-string 2 #\\a)) (string-fill! s #\\b 2 1)");
    assert!(e.message.contains("string-fill!"), "{e}");
}

/// Found by the differential fuzzer's R7RS forms: `floor-quotient` of two
/// exact integers gave a float (`(floor-quotient 7 -2)` was `-4.0`), through
/// a float division that also lost the low digits of big operands, and the
/// one overflowing case gave a float instead of an error.
#[test]
fn floor_quotient_stays_exact() {
    assert_eq!(
        output_of("(write (list (floor-quotient 7 -2) (floor-quotient -7 2) (floor-quotient 6 3) (floor-quotient 9007199254740993 1)))"),
        "(-4 -4 2 9007199254740993)"
    );
    assert_eq!(output_of("(write (exact? (floor-quotient 7 2)))"), "#t");
    error_of("(floor-quotient -9223372036854775808 -1)");
    error_of("(floor-quotient 1 0)");
}

/// Found by the differential fuzzer's R7RS forms: `let-values` bound its
/// clauses one after another, like `let*-values`, so a later init saw an
/// earlier clause's variable (`(let-values (((x) 1) ((z) x)) z)` gave 1, not
/// the outer `x`). The inits now see only the outer scope.
#[test]
fn let_values_binds_in_parallel() {
    assert_eq!(
        output_of("(define x 'outer) (write (let-values (((x y) (values 1 2)) ((z) (values x))) (list x y z)))"),
        "(1 2 outer)"
    );
    assert_eq!(
        output_of("(define x 'outer) (write (let ((r 'r0)) (let-values (((a . r) (values 1 2)) (all (values r x))) (list a r all))))"),
        "(1 (2) (r0 outer))"
    );
    assert_eq!(
        output_of("(define x 'outer) (write (let*-values (((x) (values 1)) ((z) (values x))) z))"),
        "1"
    );
    assert_eq!(
        output_of("(write (let-values (((a) 1) ((b) 2)) (define c (+ a b)) c))"),
        "3"
    );
}

/// Found by the differential fuzzer (seed 2026, program 0x476b6608915b3282):
/// `floor/` (and `floor-quotient`) computed `(- n r)` first, which overflows
/// for `(floor/ 1 most-negative)` although both results fit in 64 bits
/// (`-1` and `-9223372036854775807`).
#[test]
fn floor_division_by_the_most_negative_integer() {
    assert_eq!(
        output_of("(write (call-with-values (lambda () (floor/ 1 -9223372036854775808)) list)) (write (floor-quotient 1 -9223372036854775808))"),
        "(-1 -9223372036854775807)-1"
    );
    assert_eq!(
        output_of("(write (map (lambda (p) (call-with-values (lambda () (floor/ (car p) (cdr p))) list)) '((7 . 2) (-7 . 2) (7 . -2) (-7 . -2) (6 . 3) (-6 . 3) (0 . 5))))"),
        "((3 1) (-4 1) (-4 -1) (3 -1) (2 0) (-2 0) (0 0))"
    );
    error_of("(floor/ -9223372036854775808 -1)");
}

/// Found by the differential fuzzer (seed 2026, program 0x9e64ab0328ead266):
/// `exact-integer-sqrt` of the largest integer overflowed in `*` while
/// checking its guess against the next square, `(s+1)^2`, which is past 64
/// bits although the results fit. The checks now divide.
#[test]
fn exact_integer_sqrt_of_the_largest_integer() {
    assert_eq!(
        output_of(
            "(write (call-with-values (lambda () (exact-integer-sqrt 9223372036854775807)) list))"
        ),
        "(3037000499 5928526806)"
    );
    assert_eq!(
        output_of("(write (map (lambda (n) (call-with-values (lambda () (exact-integer-sqrt n)) list)) '(0 1 2 3 4 17 1000000007)))"),
        "((0 0) (1 0) (1 1) (1 2) (2 0) (4 1) (31622 49123))"
    );
}
