//! Re-entrant continuations (`vm/cont.rs`) and `dynamic-wind` with re-entry:
//! a generator, re-entry from later top-level forms and within one form,
//! re-entry into `dynamic-wind` (its `before` and `after` thunks run again, in
//! R7RS's order), several values, escape from deep recursion, `call/cc` in a
//! loop of 100,000 iterations on a small fixed heap, a continuation held across
//! collections under every flip path and re-entered with its stack entries
//! intact, and the continuation barriers (errors, not jumps). Each expected
//! output is also checked against Guile 3 where it is installed.

mod common;

use common::guile;
use common::{run_config, run_in, run_with, Outcome};
use flipgc_core::{GcTrigger, HeapConfig};

const IMPORTS: &str = "(import (scheme base) (scheme write))\n";

/// `src` (after the import line) prints `expected` on the toy VM (16 MiB
/// heap), and on Guile.
fn check(src: &str, expected: &str) {
    let program = format!("{IMPORTS}{src}");
    let o = run_with(&program, 16 << 20, "auto", false);
    if let Err(e) = &o.result {
        panic!("{src}\nfailed: {e}\noutput: {}", o.output);
    }
    assert_eq!(o.output, expected, "toy VM: {src}");
    if guile::available() {
        assert_eq!(guile::output(&program), expected, "Guile: {src}");
    }
}

#[test]
fn a_generator_walks_a_tree_through_call_cc() {
    check(
        "(define (tree->generator tree)
           (define caller #f)
           (define (walk t)
             (cond ((null? t) 'skip)
                   ((pair? t) (walk (car t)) (walk (cdr t)))
                   (else (call/cc (lambda (rest)
                                    (set! resume (lambda () (rest #f)))
                                    (caller t))))))
           (define resume (lambda () (walk tree) (caller '*done*)))
           (lambda () (call/cc (lambda (c) (set! caller c) (resume)))))
         (define (all gen)
           (let loop ((acc '()))
             (let ((x (gen)))
               (if (eq? x '*done*) (reverse acc) (loop (cons x acc))))))
         (define (same-fringe? a b)
           (let ((ga (tree->generator a)) (gb (tree->generator b)))
             (let loop ()
               (let ((x (ga)) (y (gb)))
                 (cond ((not (equal? x y)) #f)
                       ((eq? x '*done*) #t)
                       (else (loop)))))))
         (write (all (tree->generator '((1 (2)) ((3 4) 5) (((6)))))))
         (write (same-fringe? '(1 (2 3) 4) '((1 2) (3 (4)))))
         (write (same-fringe? '(1 (2 3) 4) '((1 2) (3 (5)))))
         (define g (tree->generator '(a (b c) (d (e)))))
         (write (list (g) (g)))
         (write (g))
         (write (list (g) (g) (g) (g)))",
        "(1 2 3 4 5 6)#t#f(a b)c(d e *done* *done*)",
    );
}

#[test]
fn a_continuation_is_re_entered_several_times() {
    // From later top-level forms: each call finishes the form that captured
    // it, then the program goes on after the calling form (as Guile does).
    check(
        "(define saved #f)
         (define r '())
         (set! r (cons (+ 1 (call/cc (lambda (k) (set! saved k) 1))) r))
         (write r)
         (saved 10)
         (write r)
         (saved 20)
         (write r)",
        "(2)(11 2)(21 11 2)",
    );
    // Within one form, in a loop: locals assigned by `set!` keep their latest
    // values (they are locations, not copied with the stack), and a local the
    // frame held when the continuation was captured has its value from then.
    check(
        "(define rounds 0)
         (let ((n 0) (k #f) (acc '()))
           (let* ((kept (list 'kept n))
                  (v (call/cc (lambda (c) (set! k c) 0))))
             (set! acc (cons (list v n kept) acc))
             (set! n (+ n 1))
             (set! rounds (+ rounds 1))
             (if (< rounds 5) (k (* n n)) (write (reverse acc)))))",
        "((0 0 (kept 0)) (1 1 (kept 0)) (4 2 (kept 0)) (9 3 (kept 0)) (16 4 (kept 0)))",
    );
    // Several values, through call-with-values, and none.
    check(
        "(define k2 #f)
         (define out '())
         (call-with-values
           (lambda () (call/cc (lambda (k) (set! k2 k) (values 1 2))))
           (lambda xs (set! out (cons xs out))))
         (if (< (length out) 3) (k2 'a 'b 'c))
         (if (< (length out) 3) (k2))
         (write (reverse out))",
        "((1 2) (a b c) ())",
    );
}

#[test]
fn re_entry_into_dynamic_wind_runs_before_and_after_again_in_order() {
    check(
        "(define trail '())
         (define (note x) (set! trail (cons x trail)))
         (define k1 #f)
         (let ((n 0))
           (dynamic-wind
             (lambda () (note 'a-in))
             (lambda ()
               (dynamic-wind
                 (lambda () (note 'b-in))
                 (lambda () (note (call/cc (lambda (k) (set! k1 k) 'first))))
                 (lambda () (note 'b-out))))
             (lambda () (note 'a-out)))
           (set! n (+ n 1))
           ;; From inside a sibling dynamic-wind: leave it, then enter a and b.
           (dynamic-wind
             (lambda () (note 'c-in))
             (lambda () (if (< n 3) (k1 n)))
             (lambda () (note 'c-out))))
         (write (reverse trail))",
        "(a-in b-in first b-out a-out c-in c-out a-in b-in 1 b-out a-out \
          c-in c-out a-in b-in 2 b-out a-out c-in c-out)",
    );
    // Out of one wind straight into another nested one: the afters innermost
    // first, then the befores outermost first.
    check(
        "(define trail '())
         (define (note x) (set! trail (cons x trail)))
         (define inner #f)
         (define done #f)
         (dynamic-wind
           (lambda () (note 'x-in))
           (lambda ()
             (dynamic-wind
               (lambda () (note 'y-in))
               (lambda () (call/cc (lambda (k) (set! inner k))) (note 'y-body))
               (lambda () (note 'y-out))))
           (lambda () (note 'x-out)))
         (if (not done)
             (dynamic-wind
               (lambda () (note 'p-in))
               (lambda ()
                 (dynamic-wind
                   (lambda () (note 'q-in))
                   (lambda () (set! done #t) (inner #f))
                   (lambda () (note 'q-out))))
               (lambda () (note 'p-out))))
         (write (reverse trail))",
        "(x-in y-in y-body y-out x-out p-in q-in q-out p-out x-in y-in y-body y-out x-out)",
    );
}

#[test]
fn escape_from_deep_recursion() {
    check(
        "(define (walk n k) (if (= n 0) (k 'bottom) (+ 1 (walk (- n 1) k))))
         (write (call/cc (lambda (k) (walk 100000 k))))
         (define (deep n) (if (= n 0) (call/cc (lambda (k) (k 0))) (+ 1 (deep (- n 1)))))
         (write (deep 100000))
         (define (find-deep n)
           (call/cc (lambda (return)
             (let loop ((i 0))
               (if (= i n) (return i) (+ 1 (loop (+ i 1))))))))
         (write (find-deep 50000))",
        "bottom10000050000",
    );
}

/// `call/cc` in loops of 100,000 iterations (escapes, and re-entries of one
/// continuation), then a recursion 150,000 calls deep: on a 4 MiB fixed heap,
/// so the continuations must die as they are dropped, and the recursion
/// would pass the 200,000-frame limit if the loops had left frames behind.
/// (Nested interpreter runs per `call/cc` would also have used up the host
/// stack.)
#[test]
fn call_cc_in_a_loop_of_100000_iterations() {
    let src = format!(
        "{IMPORTS}
         (define (count-up n)
           (let loop ((i 0) (sum 0))
             (if (= i n)
                 sum
                 (loop (+ i 1) (+ sum (call/cc (lambda (k) (if (even? i) (k i) i))))))))
         (write (count-up 100000))
         (let ((i 0) (k #f))
           (call/cc (lambda (c) (set! k c)))
           (set! i (+ i 1))
           (if (< i 100000) (k #f))
           (write i))
         (define (deep n) (if (= n 0) 0 (+ 1 (deep (- n 1)))))
         (write (deep 150000))"
    );
    let expected = "4999950000100000150000";
    let o = run_with(&src, 4 << 20, "auto", false);
    if let Err(e) = &o.result {
        panic!("failed: {e}\noutput: {}", o.output);
    }
    assert_eq!(o.output, expected);
    assert!(o.pauses > 0, "the loops ran no collection");
    if guile::available() {
        assert_eq!(guile::output(&src), expected, "Guile");
    }
}

/// A continuation captured with heap values in its frames' stack entries,
/// held while the program allocates through several collections, then
/// re-entered (three times): the values it restores are intact.
fn across_collections() -> String {
    format!(
        "{IMPORTS}
         (define saved #f)
         (define rounds 0)
         (define results '())
         (define (make-data n)
           (let loop ((i 0) (acc '()))
             (if (= i n) acc (loop (+ i 1) (cons (list i (* 1.5 i) (number->string i)) acc)))))
         (define (churn n)
           (let loop ((i 0) (keep '()))
             (if (< i n)
                 (loop (+ i 1) (if (= 0 (remainder i 1000)) '() (cons (make-vector 4 i) keep))))))
         (define (probe a b c)
           (let ((v (call/cc (lambda (k) (set! saved k) 'first))))
             (list v (length a) (car a) (cadr a) (vector-ref b 3) (string-append c \"!\"))))
         (let ((r (probe (make-data 2000) (vector 0 1 2 (list 'x 2.5)) (string-copy \"str\"))))
           (set! results (cons r results))
           (set! rounds (+ rounds 1))
           (if (< rounds 4)
               (begin (make-data 20000) (churn 400000) (gc) (saved rounds))))
         (for-each (lambda (r) (write r) (newline)) (reverse results))"
    )
}

fn across_expected() -> String {
    let mut s = String::new();
    for v in ["first", "1", "2", "3"] {
        s.push_str(&format!(
            "({v} 2000 (1999 2998.5 \"1999\") (1998 2997.0 \"1998\") (x 2.5) \"str!\")\n"
        ));
    }
    s
}

fn check_across(what: &str, o: Outcome) {
    if let Err(e) = &o.result {
        panic!("{what}: {e}\noutput: {}", o.output);
    }
    assert_eq!(o.output, across_expected(), "{what}");
    assert!(o.pauses >= 6, "{what}: only {} pauses", o.pauses);
}

const ACROSS_HEAP: usize = 16 << 20;

#[test]
fn a_continuation_survives_collections_on_every_flip_path() {
    let src = across_collections();
    if guile::available() {
        assert_eq!(guile::output(&src), across_expected(), "Guile");
    }
    for (flip, fault) in [
        ("auto", "auto"),
        ("auto", "server"),
        ("pmd", "auto"),
        ("pte", "auto"),
        ("pte", "server"),
        ("copy", "auto"),
    ] {
        check_across(
            &format!("{flip}, {fault} faults"),
            run_in(&src, ACROSS_HEAP, flip, fault, true),
        );
    }
}

#[test]
fn a_continuation_survives_the_one_pause_cycle_and_young_cycles() {
    let src = across_collections();
    let mut one = HeapConfig::new(ACROSS_HEAP);
    one.concurrent_marking = false;
    one.verify_after_gc = true;
    check_across("one-pause", run_config(&src, one));
    let mut young = HeapConfig::new(ACROSS_HEAP);
    young.young_cycles = true;
    young.trigger = GcTrigger::AfterBytes(2 << 20);
    young.verify_after_gc = true;
    check_across("young cycles", run_config(&src, young));
}

/// A spawned thread's thunk is a continuation barrier: a continuation
/// captured in it and called after it returned, or captured on the main
/// thread and called in it, is a runtime error naming the barrier.
#[test]
fn calling_a_continuation_across_a_barrier_is_an_error() {
    for src in [
        "(define k #f)
         (join (spawn (lambda () (call/cc (lambda (c) (set! k c))) 'done)))
         (display \"joined\")
         (k 1)",
        "(define k #f)
         (call/cc (lambda (c) (set! k c)))
         (if (procedure? k)
             (begin (display \"joined\")
                    (join (spawn (lambda () (let ((k2 k)) (set! k 0) (k2 1)))))))",
    ] {
        let o = run_with(src, 16 << 20, "auto", false);
        assert_eq!(o.output, "joined", "{src}");
        let e = o.result.expect_err("a barrier crossed");
        assert_eq!(e.kind, flipgc_toyvm::ErrorKind::Runtime, "{e}");
        assert!(e.message.contains("continuation barrier"), "{e}");
    }
}
