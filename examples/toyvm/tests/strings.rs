//! `string-length`, `string-ref` and `string-set!` through their ASCII fast
//! path (`builtins/string.rs`): several strings, ASCII and not, read and written
//! in turn (more than the fast path's cache holds), across collections that move
//! them, on each flip mode. The expected output is checked against Guile 3
//! where it is installed.

mod common;

use common::{guile, run_with, FLIP_MODES};

/// Interleaves reads and writes of six strings, three of them with non-ASCII
/// characters (where character `k` is not byte `k`), and allocates enough
/// garbage between rounds for collections to move them.
const PROGRAM: &str = r#"(import (scheme base) (scheme write))
(define warm (string-length (make-string 5 #\w)))
(define strs (vector (make-string 40 #\a) (string-copy "héllo wörld")
                     (make-string 3000 #\b) (string-copy "λxλyλz")
                     (string-copy "plain ascii") (string-copy "naïve café")))
(define (garbage n) (let loop ((i 0) (acc '())) (if (= i n) (length acc) (loop (+ i 1) (cons (make-vector 8 i) acc)))))
(define (digest s)
  (let loop ((i 0) (h 0))
    (if (= i (string-length s)) h
        (loop (+ i 1) (modulo (+ (* h 31) (char->integer (string-ref s i))) 1000000007)))))
(let round ((r 0))
  (when (< r 6)
    (let each ((j 0))
      (when (< j (vector-length strs))
        (let* ((s (vector-ref strs j)) (k (modulo (* r 7) (string-length s))))
          (if (char<? (string-ref s k) #\x80)
              (string-set! s k (integer->char (+ 97 (modulo (+ r j) 26)))))
          (write (list j (string-length s) (string-ref s k) (digest s)))
          (newline))
        (each (+ j 1))))
    (garbage 20000)
    (round (+ r 1))))
(write (vector-ref strs 1)) (newline)
(write (vector-ref strs 3)) (newline)
(write (vector-ref strs 5)) (newline)
"#;

#[test]
fn ascii_fast_path_agrees_with_the_general_path_across_collections() {
    let mut first = None;
    for flip in FLIP_MODES {
        let o = run_with(PROGRAM, 4 << 20, flip, true);
        o.result.as_ref().unwrap_or_else(|e| panic!("{flip}: {e}"));
        assert!(o.pauses >= 2, "{flip}: only {} collections", o.pauses);
        match &first {
            None => first = Some(o.output.clone()),
            Some(f) => assert_eq!(&o.output, f, "{flip}"),
        }
    }
    let out = first.unwrap();
    assert_eq!(out.lines().count(), 6 * 6 + 3, "{out}");
    if guile::available() {
        assert_eq!(guile::output(PROGRAM), out, "Guile");
    }
}
