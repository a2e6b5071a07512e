//! Ephemerons in the toy VM, at scale: 100,000 entries whose values refer to
//! their keys, in an ephemeron table and in ephemeron pairs, freed once the keys
//! are dropped (the table's size falls to 0, every pair reads `#!bwp`); the same
//! entries in a strong table and in a weak table (whose values are strong) are
//! all kept. Under every flip mode and both fault modes, in the one-pause cycle,
//! and with young cycles, the heap verifier on.

mod common;

use common::{run_config, run_in, Outcome};
use flipgc_core::{GcTrigger, HeapConfig};

/// Entries.
const N: usize = 100_000;

/// A heap that holds the entries with room to collect.
const HEAP: usize = 96 << 20;

/// For each table constructor: the size with the keys, whether every value
/// still refers to its key, and the size after the keys are dropped and `(gc)`.
/// Then for the ephemeron pairs: how many were intact with the keys, and how
/// many broken (car and cdr `#!bwp`) without.
fn source() -> String {
    format!(
        "
(define n {N})
(define (fill! h keys)
  (let loop ((i 0))
    (if (< i n)
        (let ((k (list i)))
          (vector-set! keys i k)
          (hashtable-set! h k (cons 'value k))
          (loop (+ i 1))))))
(define (all-refer? h keys)
  (let loop ((i 0))
    (cond ((= i n) #t)
          ((eq? (cdr (hashtable-ref h (vector-ref keys i) '(#f))) (vector-ref keys i))
           (loop (+ i 1)))
          (else #f))))
(define (try make)
  (define h (make))
  (define keys (make-vector n #f))
  (fill! h keys)
  (gc)
  (let ((kept (hashtable-size h)) (ok (all-refer? h keys)))
    (set! keys #f)
    (gc)
    (write (list kept ok (hashtable-size h)))))
(try make-ephemeron-eq-hashtable)
(try make-ephemeron-eqv-hashtable)
(try make-eq-hashtable)
(try make-weak-eq-hashtable)
(define pairs (make-vector n #f))
(define pkeys (make-vector n #f))
(let loop ((i 0))
  (if (< i n)
      (let ((k (list i)))
        (vector-set! pkeys i k)
        (vector-set! pairs i (ephemeron-cons k (cons 'value k)))
        (loop (+ i 1)))))
(define (count ok?)
  (let loop ((i 0) (c 0))
    (if (= i n) c (loop (+ i 1) (if (ok? (vector-ref pairs i)) (+ c 1) c)))))
(gc)
(write (count (lambda (p) (eq? (cdr (cdr p)) (car p)))))
(set! pkeys #f)
(gc)
(write (count (lambda (p) (and (bwp-object? (car p)) (bwp-object? (cdr p))))))
"
    )
}

fn expected() -> String {
    format!("({N} #t 0)({N} #t 0)({N} #t {N})({N} #t {N}){N}{N}")
}

fn check(what: &str, o: Outcome) {
    if let Err(e) = &o.result {
        panic!("{what}: {e}\noutput: {}", o.output);
    }
    assert_eq!(o.output, expected(), "{what}");
    assert!(o.pauses >= 10, "{what}: only {} pauses", o.pauses);
}

#[test]
fn ephemeron_entries_whose_values_refer_to_their_keys_are_freed() {
    let src = source();
    for (flip, fault) in [
        ("auto", "auto"),
        ("auto", "server"),
        ("pmd", "auto"),
        ("pte", "auto"),
        ("pte", "server"),
        ("copy", "auto"),
    ] {
        check(
            &format!("{flip}, {fault} faults"),
            run_in(&src, HEAP, flip, fault, true),
        );
    }
}

#[test]
fn ephemeron_entries_are_freed_in_the_one_pause_cycle_and_with_young_cycles() {
    let src = source();
    let mut one = HeapConfig::new(HEAP);
    one.concurrent_marking = false;
    one.verify_after_gc = true;
    check("one-pause", run_config(&src, one));
    let mut young = HeapConfig::new(HEAP);
    young.young_cycles = true;
    young.trigger = GcTrigger::AfterBytes(2 << 20);
    young.verify_after_gc = true;
    check("young cycles", run_config(&src, young));
}
