//! Bytevectors (R7RS 6.9) and binary ports: the procedures, the `#u8(...)`
//! literal and its printing, `equal?`, UTF-8 conversion, bytevector ports,
//! range errors, and bytevectors kept across collections under every flip
//! path. Each expected output is also checked against Guile 3 where it is
//! installed (Guile writes the bytevectors it makes as `#vu8(...)`: compared as
//! `#u8(...)`).

mod common;

use common::{error_of, guile, output_of, run_in};

const IMPORTS: &str = "(import (scheme base) (scheme write))\n";

/// `src` (after the import line) prints `expected` on the toy VM, and on Guile.
fn check(src: &str, expected: &str) {
    let program = format!("{IMPORTS}{src}");
    assert_eq!(output_of(&program), expected, "toy VM: {src}");
    if guile::available() {
        assert_eq!(guile::output(&program), expected, "Guile: {src}");
    }
}

#[test]
fn bytevector_procedures() {
    check(
        "(define b (bytevector 1 2 3))
         (write (list b '#u8(0 255 16) #u8() (bytevector? b) (bytevector? \"x\")
                      (bytevector? (vector 1)) (bytevector-length b) (bytevector-u8-ref b 1)))
         (bytevector-u8-set! b 1 200)
         (write (list b (make-bytevector 3 7) (bytevector-length (make-bytevector 4))
                      (bytevector-copy #u8(1 2 3 4 5) 1 3) (bytevector-copy #u8(1 2 3) 1)
                      (bytevector-append #u8(1) #u8() #u8(2 3)) (bytevector-append)))
         (define c (bytevector 1 2 3 4 5))
         (bytevector-copy! c 1 #u8(9 8 7) 0 2)
         (write c)
         (bytevector-copy! c 0 c 2)
         (write c)
         (define d (bytevector-copy c))
         (bytevector-u8-set! d 0 0)
         (write (list c d (vector #u8(1) (list #u8(2)))))",
        "(#u8(1 2 3) #u8(0 255 16) #u8() #t #f #f 3 2)\
         (#u8(1 200 3) #u8(7 7 7) 4 #u8(2 3) #u8(2 3) #u8(1 2 3) #u8())\
         #u8(1 9 8 4 5)#u8(8 4 5 4 5)\
         (#u8(8 4 5 4 5) #u8(0 4 5 4 5) #(#u8(1) (#u8(2))))",
    );
}

#[test]
fn utf8_conversion_and_equality() {
    check(
        "(write (list (utf8->string #u8(104 195 169 108 108 111)) (string->utf8 \"héllo\")
                      (string->utf8 \"abcde\" 1 3) (utf8->string #u8(97 98 99 100) 2)
                      (equal? #u8(1 2) (bytevector 1 2)) (equal? #u8(1 2) #u8(1 3))
                      (equal? #u8(1) #u8(1 0)) (eqv? #u8() #u8(1))
                      (equal? (list #u8(5) \"s\") (list (bytevector 5) \"s\"))))",
        "(\"héllo\" #u8(104 195 169 108 108 111) #u8(98 99) \"cd\" #t #f #f #f #t)",
    );
}

#[test]
fn binary_ports() {
    check(
        "(define ip (open-input-bytevector #u8(1 2 3)))
         (write (list (binary-port? ip) (input-port? ip) (peek-u8 ip) (read-u8 ip)
                      (u8-ready? ip) (read-bytevector 5 ip) (eof-object? (read-u8 ip))
                      (eof-object? (peek-u8 ip)) (eof-object? (read-bytevector 1 ip))))
         (define op (open-output-bytevector))
         (write-u8 65 op)
         (write-bytevector #u8(66 67 68) op 1)
         (write-bytevector #u8(1 2 3 4) op 1 2)
         (write (list (binary-port? op) (get-output-bytevector op)))
         (let loop ((i 0)) (when (< i 1000) (write-u8 (modulo i 256) op) (loop (+ i 1))))
         (write (bytevector-length (get-output-bytevector op)))
         (define into (make-bytevector 5 0))
         (define bp (open-input-bytevector #u8(7 8 9)))
         (write (list (read-bytevector! into bp 1 3) into (read-bytevector! into bp)
                      into (eof-object? (read-bytevector! into bp))))",
        "(#t #t 1 1 #t #u8(2 3) #t #t #t)(#t #u8(65 67 68 2))1004\
         (2 #u8(9 7 8 0 0) 1 #u8(9 7 8 0 0) #t)",
    );
}

#[test]
fn bad_bytes_and_ranges_are_errors() {
    for (src, msg) in [
        (
            "(bytevector-u8-ref (bytevector 1 2) 2)",
            "bytevector-u8-ref: index 2 out of range for length 2",
        ),
        (
            "(bytevector 1 256)",
            "bytevector: expected a byte (0 to 255), got 256",
        ),
        (
            "(make-bytevector 2 -1)",
            "make-bytevector: expected a byte (0 to 255), got -1",
        ),
        (
            "(bytevector-copy #u8(1 2) 1 3)",
            "bytevector-copy: range 1..3 out of bounds for length 2",
        ),
        (
            "(bytevector-copy! (bytevector 1) 0 #u8(1 2))",
            "bytevector-copy!: 2 bytes do not fit at 0 in length 1",
        ),
        (
            "(bytevector-length \"abc\")",
            "bytevector-length: expected a bytevector, got \"abc\"",
        ),
        (
            "(write-u8 1 (open-output-string))",
            "write-u8: expected a binary output port",
        ),
    ] {
        let e = error_of(&format!("{IMPORTS}{src}"));
        assert!(e.message.starts_with(msg), "{src}: {e}");
    }
    let e = error_of(&format!("{IMPORTS}(utf8->string #u8(255))"));
    assert!(e.message.starts_with("utf8->string: invalid UTF-8"), "{e}");
    let e = error_of(&format!("{IMPORTS}(write '#u8(1 300))"));
    assert!(e.message.contains("#u8(...): expected bytes"), "{e}");
}

#[test]
fn bytevectors_survive_collections_under_every_flip_path() {
    let src = format!(
        "{IMPORTS}
(define (garbage n)
  (let loop ((i 0) (acc '())) (if (= i n) (length acc) (loop (+ i 1) (cons (make-vector 8 i) acc)))))
(define keep (make-vector 200 #f))
(let loop ((i 0))
  (when (< i 200)
    (vector-set! keep i (make-bytevector (+ 1 (modulo i 50)) (modulo i 256)))
    (garbage 2000)
    (if (= 0 (modulo i 50)) (gc))
    (loop (+ i 1))))
(define (ok? i)
  (let ((b (vector-ref keep i)))
    (and (= (bytevector-length b) (+ 1 (modulo i 50)))
         (= (bytevector-u8-ref b (- (bytevector-length b) 1)) (modulo i 256)))))
(write (let loop ((i 0) (n 0)) (if (= i 200) n (loop (+ i 1) (if (ok? i) (+ n 1) n)))))
"
    );
    for flip in common::FLIP_MODES {
        let o = run_in(&src, 8 << 20, flip, "auto", true);
        if let Err(e) = &o.result {
            panic!("{flip}: {e}\noutput: {}", o.output);
        }
        assert_eq!(o.output, "200", "{flip}");
        assert!(o.pauses >= 5, "{flip}: only {} pauses", o.pauses);
    }
}
