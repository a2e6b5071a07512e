//! Hashtables, weak pairs, weak hashtables and guardians: each property checked
//! through collections that move objects, in every flip mode the tests use, with
//! the heap verifier on; and their errors.

mod common;

use common::{error_of, output_of, run_with, FLIP_MODES};
use flipgc_toyvm::ErrorKind;

/// A small heap: the programs below allocate several times as much.
const HEAP: usize = 8 << 20;

/// Allocates about `n` x 250 bytes of garbage (collections on their own).
const CHURN: &str = "(define (churn n) (if (> n 0) (begin (make-vector 30 n) (churn (- n 1)))))\n";

/// Runs `src` (after [`CHURN`]) under every flip mode with the verifier on;
/// checks the output and that it collected at least `min_pauses` times.
fn in_every_mode(src: &str, expected: &str, min_pauses: usize) {
    let src = format!("{CHURN}{src}");
    for flip in FLIP_MODES {
        let o = run_with(&src, HEAP, flip, true);
        if let Err(e) = &o.result {
            panic!("under {flip}: {e}\noutput: {}\n{src}", o.output);
        }
        assert_eq!(o.output, expected, "under {flip}:\n{src}");
        assert!(
            o.pauses >= min_pauses,
            "under {flip}: {} pauses, wanted at least {min_pauses}",
            o.pauses
        );
    }
}

fn value(expr: &str, expected: &str) {
    assert_eq!(output_of(&format!("(write {expr})")), expected, "{expr}");
}

fn runtime(src: &str, needle: &str) {
    let e = error_of(src);
    assert_eq!(e.kind, ErrorKind::Runtime, "{src}: {e}");
    assert!(
        e.to_string().contains(needle),
        "{src}: {e:?} lacks {needle:?}"
    );
}

#[test]
fn eq_hashtable_lookups_survive_collections_that_move_keys() {
    // Keys of every kind that hashes by identity (pairs, vectors, strings,
    // closures), 3000 of them (the table grows from 8 buckets meanwhile), then
    // 7 MiB of garbage and a (gc) between the sets and the refs.
    let src = "
        (define n 3000)
        (define (make-key i)
          (case (modulo i 4)
            ((0) (list i))
            ((1) (vector i i))
            ((2) (number->string i))
            (else (lambda () i))))
        (define keys (make-vector n #f))
        (define h (make-eq-hashtable))
        (do ((i 0 (+ i 1))) ((= i n))
          (let ((k (make-key i)))
            (vector-set! keys i k)
            (hashtable-set! h k i)))
        (churn 30000)
        (gc)
        (define (all-found? i)
          (or (= i n)
              (and (eqv? (hashtable-ref h (vector-ref keys i) #f) i)
                   (hashtable-contains? h (vector-ref keys i))
                   (all-found? (+ i 1)))))
        (write (list (hashtable-size h) (all-found? 0)))
        ; Equal but not eq keys are other keys.
        (write (list (hashtable-ref h (list 0) 'none) (hashtable-ref h \"2\" 'none)))
        ; Deleting after the moves finds the entries too.
        (do ((i 0 (+ i 2))) ((>= i n)) (hashtable-delete! h (vector-ref keys i)))
        (churn 30000)
        (write (list (hashtable-size h)
                     (hashtable-ref h (vector-ref keys 0) 'deleted)
                     (hashtable-ref h (vector-ref keys 1) #f)
                     (hashtable-ref h (vector-ref keys 2999) #f)))";
    in_every_mode(src, "(3000 #t)(none none)(1500 deleted 1 2999)", 3);
}

#[test]
fn weak_eq_hashtable_keys_survive_collections_that_move_them() {
    // Weak entries with object keys hash with the weak flag beside them: they
    // must be found again after the table grew and the keys moved.
    let src = "
        (define n 2000)
        (define keys (make-vector n #f))
        (define h (make-weak-eq-hashtable))
        (do ((i 0 (+ i 1))) ((= i n))
          (let ((k (list i)))
            (vector-set! keys i k)
            (hashtable-set! h k (* 2 i))))
        (churn 30000)
        (define (all-found? i)
          (or (= i n)
              (and (eqv? (hashtable-ref h (vector-ref keys i) #f) (* 2 i))
                   (all-found? (+ i 1)))))
        (write (list (hashtable-size h) (all-found? 0)))";
    in_every_mode(src, "(2000 #t)", 2);
}

#[test]
fn eqv_hashtables_compare_numbers_and_characters_by_value() {
    let src = "
        (define h (make-eqv-hashtable))
        (hashtable-set! h 7 'seven)
        (hashtable-set! h 9223372036854775807 'max)
        (hashtable-set! h -9223372036854775808 'min)
        (hashtable-set! h 2.5 'two-and-a-half)
        (hashtable-set! h 2 'exact-two)
        (hashtable-set! h #\\a 'a)
        (hashtable-set! h #\\λ 'lambda)
        (churn 30000)
        (gc)
        (write (list
          (hashtable-ref h (+ 3 4) #f)
          (hashtable-ref h (- 9223372036854775806 -1) #f)
          (hashtable-ref h (- 0 9223372036854775807 1) #f)
          (hashtable-ref h (/ 5.0 2) #f)
          (hashtable-ref h 2 #f)
          (hashtable-ref h 2.0 'not-exact-two)
          (hashtable-ref h (integer->char 97) #f)
          (hashtable-ref h (string-ref \"xλ\" 1) #f)
          (hashtable-ref h #\\A 'other-char)
          (hashtable-ref h 8 'absent)))
        (hashtable-set! h (* 1 7) 'replaced)
        (write (list (hashtable-size h) (hashtable-ref h 7 #f)))";
    in_every_mode(
        src,
        "(seven max min two-and-a-half exact-two not-exact-two a lambda other-char absent)(7 replaced)",
        2,
    );
    // The same in a weak eqv table: numbers and characters are never collected.
    value(
        "(let ((h (make-weak-eqv-hashtable))) (hashtable-set! h 1.5 'x) (hashtable-set! h #\\z 'y) (gc) (list (hashtable-size h) (hashtable-ref h 1.5 #f) (hashtable-ref h #\\z #f)))",
        "(2 x y)",
    );
    // eq tables also take numbers and characters by value (eq? is eqv? here).
    value(
        "(let ((h (make-eq-hashtable))) (hashtable-set! h 100000000000 'big) (hashtable-set! h #\\q 'q) (gc) (list (hashtable-ref h (* 100000 1000000) #f) (hashtable-ref h (integer->char 113) #f)))",
        "(big q)",
    );
}

#[test]
fn weak_hashtable_entries_vanish_once_their_key_is_unreachable() {
    let src = "
        (define h (make-weak-eq-hashtable))
        (define kept (list 'kept))
        (hashtable-set! h kept 'kept-value)
        (hashtable-set! h (list 'dropped) 'dropped-value)
        (hashtable-set! h 'a-symbol 'symbol-value)
        (write (hashtable-size h))
        (churn 30000)
        (gc)
        (write (list (hashtable-size h)
                     (hashtable-ref h kept #f)
                     (hashtable-ref h 'a-symbol #f)
                     (vector-length (hashtable-keys h))
                     (hashtable-values h)))
        ; Reachable through a vector only: still reachable.
        (define holder (vector (list 'held)))
        (hashtable-set! h (vector-ref holder 0) 'held-value)
        (churn 30000)
        (gc)
        (write (list (hashtable-size h) (hashtable-ref h (vector-ref holder 0) #f)))
        (set! kept #f)
        (vector-set! holder 0 #f)
        (gc)
        (write (list (hashtable-size h) (hashtable-keys h)))";
    // hashtable-values is in no set order: one of two.
    for flip in FLIP_MODES {
        let o = run_with(&format!("{CHURN}{src}"), HEAP, flip, true);
        o.result.unwrap();
        let ok = [
            "3(2 kept-value symbol-value 2 #(kept-value symbol-value))(3 held-value)(1 #(a-symbol))",
            "3(2 kept-value symbol-value 2 #(symbol-value kept-value))(3 held-value)(1 #(a-symbol))",
        ];
        assert!(
            ok.contains(&o.output.as_str()),
            "under {flip}: {}",
            o.output
        );
        assert!(o.pauses >= 4, "under {flip}: {} pauses", o.pauses);
    }
}

#[test]
fn weak_pair_cars_break_only_when_unreachable() {
    let src = "
        (define kept (vector 'kept))
        (define w-kept (weak-cons kept 'cdr-1))
        (define w-dropped (weak-cons (vector 'dropped) 'cdr-2))
        (define w-number (weak-cons 12345 '()))
        (write (list (car w-kept) (car w-dropped) (weak-pair? w-kept) (pair? w-kept)))
        (churn 30000)
        (gc)
        (write (list (eq? (car w-kept) kept)
                     (car w-kept)
                     (bwp-object? (car w-kept))
                     (bwp-object? (car w-dropped))
                     (cdr w-dropped)
                     (car w-number)))
        (write w-dropped)
        ; The cdr is strong: a weak pair keeps it alive.
        (define w-cdr (weak-cons 1 (list 'strong-cdr)))
        (gc)
        (write (cdr w-cdr))
        (set! kept #f)
        (gc)
        (write (bwp-object? (car w-kept)))";
    in_every_mode(
        src,
        "(#(kept) #(dropped) #t #t)(#t #(kept) #f #t cdr-2 12345)(#!bwp . cdr-2)(strong-cdr)#t",
        4,
    );
}

#[test]
fn guardians_return_each_dropped_object_once() {
    let src = "
        (define g (make-guardian))
        (write (g))
        (define kept (list 'kept))
        (g kept)
        (g (list 'dropped))
        (churn 30000)
        (gc)
        (write (list (g) (g)))
        (set! kept #f)
        (gc)
        (define back (g))
        (write (list back (g)))
        ; What a guardian returned is an ordinary object again: not returned
        ; twice even once it is dropped and collected.
        (set! back #f)
        (gc)
        (write (g))
        ; Registered again after being returned: returned again.
        (define again (list 'again))
        (g again)
        (set! again #f)
        (churn 30000)
        (gc)
        (write (list (g) (g)))";
    in_every_mode(src, "#f((dropped) #f)((kept) #f)#f((again) #f)", 5);
}

#[test]
fn errors_of_the_new_forms() {
    runtime(
        "(hashtable-ref 5 1 2)",
        "hashtable-ref: expected a hashtable, got 5",
    );
    runtime(
        "(hashtable-set! (vector) 1 2)",
        "hashtable-set!: expected a hashtable, got #()",
    );
    runtime(
        "(hashtable-size '())",
        "hashtable-size: expected a hashtable, got ()",
    );
    runtime(
        "(hashtable-contains? #f 1)",
        "hashtable-contains?: expected a hashtable, got #f",
    );
    runtime(
        "(hashtable-delete! (list 1) 1)",
        "hashtable-delete!: expected a hashtable, got (1)",
    );
    runtime(
        "(hashtable-keys \"s\")",
        "hashtable-keys: expected a hashtable, got \"s\"",
    );
    runtime(
        "(hashtable-values 'v)",
        "hashtable-values: expected a hashtable, got v",
    );
    runtime(
        "(hashtable-clear! 1)",
        "hashtable-clear!: expected a hashtable, got 1",
    );
    runtime(
        "(hashtable-weak? (weak-cons 1 2))",
        "hashtable-weak?: expected a hashtable, got (1 . 2)",
    );
    runtime(
        "(hashtable-update! 'x 1 car 0)",
        "expected a hashtable, got x",
    );
    runtime(
        "(make-eq-hashtable 'x)",
        "make-eq-hashtable: expected an integer, got x",
    );
    runtime(
        "(make-eqv-hashtable -1)",
        "make-eqv-hashtable: index -1 is negative",
    );
    runtime(
        "(hashtable-ref (make-eq-hashtable) 1)",
        "hashtable-ref: expected 3 arguments, got 2",
    );
    runtime(
        "(hashtable-set! (make-eq-hashtable) 1)",
        "hashtable-set!: expected 3 arguments, got 2",
    );
    runtime("(weak-cons 1)", "weak-cons: expected 2 arguments, got 1");
    runtime("(weak-pair? 1 2)", "weak-pair?: expected 1 argument, got 2");
    runtime("(bwp-object?)", "bwp-object?: expected 1 argument, got 0");
    runtime(
        "(make-guardian 1)",
        "make-guardian: expected 0 arguments, got 1",
    );
    runtime(
        "((make-guardian) 1 2)",
        "guardian: expected 0 or 1 arguments, got 2",
    );
    runtime("(gc 1)", "gc: expected 0 arguments, got 1");
    // A table's contents are not changed by a failed call.
    value(
        "(let ((h (make-eq-hashtable))) (hashtable-set! h 'a 1) (list (hashtable-size h) (hashtable-ref h 'a #f) (hashtable? h) (hashtable? 1) (hashtable-weak? h)))",
        "(1 1 #t #f #f)",
    );
}
