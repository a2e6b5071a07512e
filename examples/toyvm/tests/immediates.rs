//! Immediates: fixnums, characters, symbols, booleans and the unspecified value
//! are tagged words, not heap objects. A fixnum loop allocates nothing (`(gc-stats)`'s
//! `alloc:` line is the same before and after it); immediates survive
//! collections in every kind of slot (pairs, vectors, closures and cells,
//! hashtable keys and values, weak pairs, weak tables, globals, a thread's
//! result), under every flip mode with the heap verifier on; `eqv?` and hashing
//! treat them by value, and integers stay canonical across the fixnum boundary.

mod common;

use common::{run_with, FLIP_MODES};

/// The `N` of every `alloc: N bytes ...` line of `(gc-stats)` output.
fn alloc_lines(out: &str) -> Vec<u64> {
    out.lines()
        .filter_map(|l| l.strip_prefix("alloc: "))
        .map(|l| l.split(' ').next().unwrap().parse().unwrap())
        .collect()
}

/// Runs `body` (an expression) between two `(gc-stats)` inside one procedure, so
/// that nothing is compiled in between; returns the bytes allocated in between
/// and the output.
fn allocated_by(defs: &str, body: &str) -> (u64, String) {
    let src = format!(
        "{defs}\n(define (measure) (gc-stats) (display {body}) (newline) (gc-stats))\n(measure)\n"
    );
    let o = run_with(&src, 64 << 20, "auto", false);
    if let Err(e) = &o.result {
        panic!("{e}\n{}", o.output);
    }
    let a = alloc_lines(&o.output);
    assert_eq!(a.len(), 2, "two alloc lines in:\n{}", o.output);
    (a[1] - a[0], o.output)
}

/// Iterations of the fixnum loop: 10 million as in the issue, 1 million in debug
/// builds (CI runs the tests unoptimised).
const LOOP: u64 = if cfg!(debug_assertions) {
    1_000_000
} else {
    10_000_000
};

#[test]
fn a_fixnum_loop_allocates_nothing() {
    let defs = format!(
        "(define (loop i acc) (if (= i {LOOP}) acc (loop (+ i 1) (+ acc 1))))\n\
         (define (loop2 i acc) (if (< i {LOOP}) (loop2 (+ i 1) (- (+ acc (* i 2)) i)) acc))"
    );
    let (bytes, out) = allocated_by(&defs, "(loop 0 0)");
    assert!(out.contains(&format!("\n{LOOP}\n")), "{out}");
    assert_eq!(bytes, 0, "the fixnum loop allocated {bytes} bytes:\n{out}");
    // The other arithmetic builtins, through the general call path (`*`, and `+`
    // and `-` on a non-literal operand).
    let (bytes, out) = allocated_by(&defs, "(loop2 0 0)");
    let sum = LOOP * (LOOP - 1) / 2;
    assert!(out.contains(&format!("\n{sum}\n")), "{out}");
    assert_eq!(bytes, 0, "the second loop allocated {bytes} bytes:\n{out}");
}

#[test]
fn the_allocation_count_sees_allocation() {
    // The measurement is not blind: a loop that conses (a pair of garbage per
    // iteration) shows.
    let n = 1_000_000u64;
    let defs =
        format!("(define (conses i acc) (if (= i {n}) (car acc) (conses (+ i 1) (cons i '()))))");
    let (bytes, out) = allocated_by(&defs, "(conses 0 '(0))");
    assert!(bytes >= n * 16, "{bytes} bytes for {n} pairs:\n{out}");
}

/// Collections in the middle: allocates about `n` x 250 bytes of garbage, then
/// `(gc)`.
const CHURN: &str =
    "(define (churn n) (if (> n 0) (begin (make-vector 30 n) (churn (- n 1))) (gc)))\n";

const SURVIVE: &str = r#"
(define big 4611686018427387903)      ; the largest fixnum
(define small -4611686018427387904)   ; the smallest
(define values (list 0 1 -1 42 big small (+ big 1) (- small 1) #\a #\x3bb #\x0 #\space #t #f (if #f #f) '()))
(define vec (list->vector values))
(define pair (cons 7 (cons #\z (cons #f '()))))
(define (make-counter n) (lambda () (set! n (+ n 1)) n))
(define counter (make-counter 100))
(define (capture a b c) (lambda () (list a b c)))
(define captured (capture 99 #\q #t))
(define eqt (make-eq-hashtable))
(define eqvt (make-eqv-hashtable))
(define weakt (make-weak-eq-hashtable))
(for-each (lambda (v) (hashtable-set! eqt v (list v))
                      (hashtable-set! eqvt v v)
                      (hashtable-set! weakt v #\k))
          values)
(define wps (map (lambda (v) (weak-cons v v)) values))
(define g (make-guardian))
(for-each g values)
(define th (spawn (lambda () (churn 2000) (list 5 #\t #f))))
(define th2 (spawn (lambda () -17)))
(define th3 (spawn (lambda () '())))
(churn 4000)
(churn 4000)
(display (equal? (vector->list vec) values)) (newline)
(write vec) (newline)
(write pair) (newline)
(display (list (counter) (counter))) (newline)
(churn 4000)
(display (counter)) (newline)
(write (captured)) (newline)
(display (map (lambda (v) (equal? (hashtable-ref eqt v #f) (list v))) values)) (newline)
(display (map (lambda (v) (eqv? (hashtable-ref eqvt v 'none) v)) values)) (newline)
(display (map (lambda (v) (hashtable-ref weakt v 'gone)) values)) (newline)
(display (list (hashtable-size eqt) (hashtable-size eqvt) (hashtable-size weakt))) (newline)
(display (map (lambda (p) (eqv? (car p) (cdr p))) wps)) (newline)
(display (map (lambda (p) (bwp-object? (car p))) wps)) (newline)
(display (g)) (newline)
(write (list (join th) (join th2) (join th3))) (newline)
(display (list (eq? 123456789 123456789) (eqv? #\a #\a) (eq? big 4611686018427387903)
               (eqv? (+ big 1) 4611686018427387904) (eqv? (- (+ big 1) 1) big)
               (eqv? 2 2.0) (eqv? #t #t) (eqv? #f '()) (eqv? 0 #f) (eqv? #\x0 0)))
(newline)
(display (list (number? 5) (number? #\5) (integer? -3) (char? #\a) (char? 97)
               (boolean? #f) (boolean? '()) (null? 0) (null? '()) (pair? 1) (procedure? 1)
               (char->integer #\x3bb) (integer->char 955) (exact->inexact big)))
(newline)
(display (list (length (memv 42 values)) (assv #\b '((#\a . 1) (#\b . 2))) (length (member #f values))))
(newline)
"#;

const SURVIVE_OUT: &str = r#"#t
#(0 1 -1 42 4611686018427387903 -4611686018427387904 4611686018427387904 -4611686018427387905 #\a #\λ #\null #\space #t #f #<unspecified> ())
(7 #\z #f)
(101 102)
103
(99 #\q #t)
(#t #t #t #t #t #t #t #t #t #t #t #t #t #t #t #t)
(#t #t #t #t #t #t #t #t #t #t #t #t #t #t #t #t)
(k k k k k k k k k k k k k k k k)
(16 16 16)
(#t #t #t #t #t #t #t #t #t #t #t #t #t #t #t #t)
(#f #f #f #f #f #f #f #f #f #f #f #f #f #f #f #f)
#f
((5 #\t #f) -17 ())
(#t #t #t #t #t #f #t #f #f #f)
(#t #f #t #t #f #t #f #f #t #f #f 955 λ 4.611686018427388e18)
(13 (b . 2) 3)
"#;

#[test]
fn immediates_survive_collections_in_every_slot() {
    let src = format!("{CHURN}{SURVIVE}");
    for flip in FLIP_MODES {
        let o = run_with(&src, 8 << 20, flip, true);
        if let Err(e) = &o.result {
            panic!("under {flip}: {e}\noutput: {}", o.output);
        }
        assert_eq!(o.output, SURVIVE_OUT, "under {flip}");
        assert!(o.pauses >= 4, "under {flip}: only {} pauses", o.pauses);
    }
}

/// Exercises the interpreter's fixnum fast paths (`Op::Prim`, `Op::PrimInt`,
/// `Op::LocalPrimInt`) at and across the fixnum boundary and on non-fixnums: the
/// same results as the builtins (checked against the VM before immediates).
const FAST: &str = r#"(define big 4611686018427387903)
(define small -4611686018427387904)
(define (f x) (list (+ x 1) (- x 1) (= x 1) (< x 1) (> x 1) (<= x 1) (>= x 1)))
(define (g x y) (list (+ x y) (- x y) (= x y) (< x y) (> x y) (<= x y) (>= x y)))
(define (h x) (let ((y x)) (set! y (+ y 0)) (list (+ y 2) (- y 2) (< y 2))))
(for-each (lambda (x) (write (list (f x) (g x 1) (g 1 x) (h x) (apply + (list x 1)) (eqv? (+ x 1) (apply + (list x 1)))) ) (newline))
  (list 0 1 -1 big small (+ big 1) (- small 1) 1.5 -0.0 +nan.0))
(write (list (+ big big) (- small big) (- small 1) (+ big 1) (eqv? (- (+ big 1) 1) big) (+ 9223372036854775806 1)))
(newline)
"#;

const FAST_OUT: &str = r#"((1 -1 #f #t #f #t #f) (1 -1 #f #t #f #t #f) (1 1 #f #f #t #f #t) (2 -2 #t) 1 #t)
((2 0 #t #f #f #t #t) (2 0 #t #f #f #t #t) (2 0 #t #f #f #t #t) (3 -1 #t) 2 #t)
((0 -2 #f #t #f #t #f) (0 -2 #f #t #f #t #f) (0 2 #f #f #t #f #t) (1 -3 #t) 0 #t)
((4611686018427387904 4611686018427387902 #f #f #t #f #t) (4611686018427387904 4611686018427387902 #f #f #t #f #t) (4611686018427387904 -4611686018427387902 #f #t #f #t #f) (4611686018427387905 4611686018427387901 #f) 4611686018427387904 #t)
((-4611686018427387903 -4611686018427387905 #f #t #f #t #f) (-4611686018427387903 -4611686018427387905 #f #t #f #t #f) (-4611686018427387903 4611686018427387905 #f #f #t #f #t) (-4611686018427387902 -4611686018427387906 #t) -4611686018427387903 #t)
((4611686018427387905 4611686018427387903 #f #f #t #f #t) (4611686018427387905 4611686018427387903 #f #f #t #f #t) (4611686018427387905 -4611686018427387903 #f #t #f #t #f) (4611686018427387906 4611686018427387902 #f) 4611686018427387905 #t)
((-4611686018427387904 -4611686018427387906 #f #t #f #t #f) (-4611686018427387904 -4611686018427387906 #f #t #f #t #f) (-4611686018427387904 4611686018427387906 #f #f #t #f #t) (-4611686018427387903 -4611686018427387907 #t) -4611686018427387904 #t)
((2.5 0.5 #f #f #t #f #t) (2.5 0.5 #f #f #t #f #t) (2.5 -0.5 #f #t #f #t #f) (3.5 -0.5 #t) 2.5 #t)
((1.0 -1.0 #f #t #f #t #f) (1.0 -1.0 #f #t #f #t #f) (1.0 1.0 #f #f #t #f #t) (2.0 -2.0 #t) 1.0 #t)
((+nan.0 +nan.0 #f #f #f #f #f) (+nan.0 +nan.0 #f #f #f #f #f) (+nan.0 +nan.0 #f #f #f #f #f) (+nan.0 +nan.0 #f) +nan.0 #t)
(9223372036854775806 -9223372036854775807 -4611686018427387905 4611686018427387904 #t 9223372036854775807)
"#;

#[test]
fn fast_paths_match_the_builtins() {
    assert_eq!(common::output_of(FAST), FAST_OUT);
    for (src, msg) in [
        (
            "(define (f x) (+ x 1)) (f 'a)",
            "+: expected a number, got a",
        ),
        (
            "(define (f x) (< x 1)) (f \"s\")",
            "<: expected a number, got \"s\"",
        ),
        (
            "(define (f x y) (- x y)) (f 1 #\\a)",
            "-: expected a number, got #\\a",
        ),
        (
            "(define (f x) (+ x 1)) (f 9223372036854775807)",
            "+: integer overflow",
        ),
        (
            "(define (f x y) (- x y)) (f -9223372036854775807 2)",
            "-: integer overflow",
        ),
    ] {
        assert_eq!(common::error_of(src).message, msg, "{src}");
    }
}

/// Symbols are immediates: `string->symbol` allocates nothing, and symbols
/// keep their identity, names and hashes across collections in every kind of
/// slot; weak pairs, weak tables and guardians hold them as they hold fixnums.
const SYMBOLS: &str = r#"
(define syms (list 'a 'lambda (string->symbol "with space") (string->symbol "") 'x1))
(define vec (list->vector syms))
(define (capture a b) (lambda () (list a b)))
(define captured (capture 'p 'q))
(define eqt (make-eq-hashtable))
(define eqvt (make-eqv-hashtable))
(define weakt (make-weak-eq-hashtable))
(for-each (lambda (s) (hashtable-set! eqt s (symbol->string s))
                      (hashtable-set! eqvt s (list s))
                      (hashtable-set! weakt s #t))
          syms)
(define wps (map (lambda (s) (weak-cons s s)) syms))
(define g (make-guardian))
(for-each g syms)
(churn 4000)
(churn 4000)
(write vec) (newline)
(write (captured)) (newline)
(write (map (lambda (s) (hashtable-ref eqt s #f)) syms)) (newline)
(write (map (lambda (s) (hashtable-ref eqvt (string->symbol (symbol->string s)) #f)) syms)) (newline)
(write (map (lambda (s) (hashtable-ref weakt s 'gone)) syms)) (newline)
(write (map (lambda (p) (eq? (car p) (cdr p))) wps)) (newline)
(write (g)) (newline)
(write (list (symbol? 'a) (symbol? "a") (symbol? #\a) (symbol? 97) (symbol? '())
             (eq? 'abc (string->symbol (string-append "ab" "c"))) (eqv? 'a 'b)
             (equal? '(a (b)) (list 'a (list 'b))) (memq 'c '(a b c)) (assq 'b '((a . 1) (b . 2)))
             (case (string->symbol "two") ((one) 1) ((two) 2) (else 0))))
(newline)
"#;

const SYMBOLS_OUT: &str = r#"#(a lambda with space  x1)
(p q)
("a" "lambda" "with space" "" "x1")
((a) (lambda) (with space) () (x1))
(#t #t #t #t #t)
(#t #t #t #t #t)
#f
(#t #f #f #f #f #t #f #t (c) (b . 2) 2)
"#;

#[test]
fn symbols_are_immediates() {
    let defs = "(define name \"some-symbol\")\n\
                (define (loop i acc) (if (= i 100000) acc (loop (+ i 1) (string->symbol name))))";
    let (bytes, out) = allocated_by(defs, "(loop 0 'none)");
    assert!(out.contains("\nsome-symbol\n"), "{out}");
    assert_eq!(bytes, 0, "string->symbol allocated {bytes} bytes:\n{out}");
    let src = format!("{CHURN}{SYMBOLS}");
    for flip in FLIP_MODES {
        let o = run_with(&src, 8 << 20, flip, true);
        if let Err(e) = &o.result {
            panic!("under {flip}: {e}\noutput: {}", o.output);
        }
        assert_eq!(o.output, SYMBOLS_OUT, "under {flip}");
    }
}
