;;; The reference side of the differential fuzzer (src/fuzz/diff.rs): a Guile
;;; 3.0 process that runs many programs, one after another, each in a fresh
;;; module, and answers each with its status and captured output.
;;;
;;; Protocol (standard input and output, UTF-8):
;;;   request:  "<n>\n" then n bytes of program source
;;;   response: "<status> <n> <m>\n" then n bytes of output, then m bytes
;;;             describing the error (empty unless status is error)
;;; where status is ok, error (the reader, the expander or the program raised
;;; an error: output up to it is kept) or limit (the time or allocation limit
;;; ran out: no verdict).
;;;
;;; Every program sees the prelude below, which makes Guile follow the toy VM
;;; where docs/testing.md lists a known difference that is emulated rather
;;; than avoided by the generator.

(use-modules (ice-9 binary-ports)
             (ice-9 rdelim)
             (ice-9 sandbox)
             (rnrs bytevectors)
             (srfi srfi-1)
             (srfi srfi-9)
             (srfi srfi-9 gnu))

;; R7RS string escapes: "\x41;" (Guile's default reads "\x41" and a ";").
(read-enable 'r6rs-hex-escapes)
;; R7RS line continuations in strings: "\<newline><spaces>" is nothing (Guile's
;; default keeps the spaces).
(read-enable 'hungry-eol-escapes)

;; Procedures are printed as #<procedure> (the toy VM's names and Guile's
;; arity lists are not comparable; the driver normalises the toy VM's side).
(define-record-type <procedure-mark> (make-procedure-mark) procedure-mark?)
(set-record-type-printer! <procedure-mark>
                          (lambda (r port) (display "#<procedure>" port)))
(define the-procedure-mark (make-procedure-mark))

;; Floats are printed as the toy VM prints them (as Chez Scheme does: the
;; shortest round-trip digits, positional from 1e-3 up to 1e10, 1e10 and 1.5e-4
;; outside), from Guile's own shortest digits: Guile writes 1.0e10 and 1.0e-7.
(define (toy-float->string x)
  (cond ((nan? x) "+nan.0")
        ((inf? x) (if (> x 0) "+inf.0" "-inf.0"))
        (else
         (let* ((s (number->string x))
                (neg (char=? (string-ref s 0) #\-))
                (s (if neg (substring s 1) s))
                (e-at (string-index s #\e))
                (mant (if e-at (substring s 0 e-at) s))
                (exp10 (if e-at (string->number (substring s (+ e-at 1))) 0))
                (dot (or (string-index mant #\.) (string-length mant)))
                (raw (string-append (substring mant 0 dot)
                                    (if (< dot (string-length mant))
                                        (substring mant (+ dot 1))
                                        "")))
                ;; value = 0.RAW * 10^(dot + exp10); strip leading zeros.
                (lead (let lp ((i 0))
                        (if (and (< i (string-length raw))
                                 (char=? (string-ref raw i) #\0))
                            (lp (+ i 1)) i)))
                (digits (string-trim-right (substring raw lead) #\0))
                (point (- (+ dot exp10) lead))
                (sign (if neg "-" "")))
           (if (string-null? digits)
               (string-append sign "0.0")
               (let ((k (- point 1)))   ; scientific exponent: d.ddd * 10^k
                 (cond ((and (>= k -3) (< k 10))
                        (if (>= point (string-length digits))
                            (string-append sign digits
                                           (make-string (- point (string-length digits)) #\0)
                                           ".0")
                            (if (> point 0)
                                (string-append sign (substring digits 0 point) "."
                                               (substring digits point))
                                (string-append sign "0." (make-string (- point) #\0)
                                               digits))))
                       (else
                        (string-append sign (substring digits 0 1)
                                       (if (> (string-length digits) 1)
                                           (string-append "." (substring digits 1))
                                           "")
                                       "e" (number->string k))))))))))

(define-record-type <float-mark> (make-float-mark text) float-mark?
  (text float-mark-text))
(set-record-type-printer! <float-mark>
                          (lambda (r port) (display (float-mark-text r) port)))

;; X with every procedure in it replaced by the mark and every float by its
;; toy VM form (copying only what changes). A cycle makes this run until the
;; time limit: no verdict.
(define (scrub x)
  (cond ((procedure? x) the-procedure-mark)
        ((and (real? x) (inexact? x)) (make-float-mark (toy-float->string x)))
        ((pair? x)
         (let ((a (scrub (car x))) (d (scrub (cdr x))))
           (if (and (eq? a (car x)) (eq? d (cdr x))) x (cons a d))))
        ((vector? x)
         (let* ((items (vector->list x)) (new (map scrub items)))
           (if (every eq? items new) x (list->vector new))))
        (else x)))

(define fixnum-min -9223372036854775808)
(define fixnum-max 9223372036854775807)

;; An exact integer result outside 64 bits: an error, as on the toy VM.
(define (fix who x)
  (if (and (exact-integer? x) (not (<= fixnum-min x fixnum-max)))
      (error "integer overflow:" who)
      x))

(define (checked who op)
  (lambda args (fix who (apply op args))))

;; +, - and * as the toy VM folds them: left to right from the first argument
;; (- of one argument negates), each step checked, so that an intermediate
;; result past 64 bits is an error even if a later float argument would make
;; the final result fit; and an exact operand mixed with a float is made a
;; float first (Guile keeps exact 0 exact: (* 0 1.5) is 0, (+ 0 -0.0) -0.0).
(define (mix op a b)
  (if (and (exact? a) (exact? b))
      (op a b)
      (op (exact->inexact a) (exact->inexact b))))

(define (folded who op unit)
  (lambda args
    (for-each (lambda (x) (unless (number? x) (error "not a number:" who x))) args)
    (cond ((null? args) unit)
          ((and (eq? who '-) (null? (cdr args))) (fix who (- (car args))))
          (else (fold (lambda (x acc) (fix who (mix op acc x)))
                      (car args) (cdr args))))))

;; The toy VM's integer operations take exact integers only (R7RS allows
;; integral floats such as 2.0).
(define (exact-only who op)
  (lambda args
    (for-each (lambda (x) (unless (exact-integer? x) (error "not an exact integer:" who x)))
              args)
    (fix who (apply op args))))

(define (numbers-only who op)
  (lambda args
    (for-each (lambda (x) (unless (number? x) (error "not a number:" who x))) args)
    (apply op args)))

;; floor/ and truncate/ as exact-only, with the quotient checked.
(define (exact-two-values who op)
  (lambda (n d)
    (for-each (lambda (x) (unless (exact-integer? x) (error "not an exact integer:" who x)))
              (list n d))
    (call-with-values (lambda () (op n d))
      (lambda (q r) (values (fix who q) r)))))

;; The prelude: bindings each program's module gets on top of (guile).
(define prelude
  `((define + ,(folded '+ + 0))
    (define - ,(folded '- - 0))
    (define * ,(folded '* * 1))
    (define abs ,(checked 'abs abs))
    (define quotient ,(exact-only 'quotient quotient))
    (define remainder ,(exact-only 'remainder remainder))
    (define modulo ,(exact-only 'modulo modulo))
    (define even? ,(exact-only 'even? even?))
    ;; Guile 3.0.8 answered (> +nan.0 x) with #f for an unspecified x in a
    ;; generated program (not in a plain call): check the types first.
    (define = ,(numbers-only '= =))
    (define < ,(numbers-only '< <))
    (define > ,(numbers-only '> >))
    (define <= ,(numbers-only '<= <=))
    (define >= ,(numbers-only '>= >=))
    (define odd? ,(exact-only 'odd? odd?))
    ;; Integer division: exact integers only, 64-bit results.
    (define floor-quotient ,(exact-only 'floor-quotient floor-quotient))
    (define floor-remainder ,(exact-only 'floor-remainder floor-remainder))
    (define truncate-quotient ,(exact-only 'truncate-quotient truncate-quotient))
    (define truncate-remainder ,(exact-only 'truncate-remainder truncate-remainder))
    (define floor/ ,(exact-two-values 'floor/ floor/))
    (define truncate/ ,(exact-two-values 'truncate/ truncate/))
    ;; square as the toy VM's (* x x): checked like *.
    (define square ,(let ((times (folded '* * 1))) (lambda (x) (times x x))))
    ;; The toy VM has no rationals: exact of a non-integral float is an error.
    (define inexact->exact
      ,(lambda (x)
         (let ((e (inexact->exact x)))
           (if (integer? e) (fix 'inexact->exact e)
               (error "inexact->exact: no exact integer equivalent" x)))))
    (define exact inexact->exact)
    ;; Guile 3.0.8's round drops the sign of a zero result: (round -1e-7) is
    ;; 0.0, where IEEE rounding (and the toy VM) give -0.0.
    (define round
      ,(lambda (x)
         (let ((r (round x)))
           (if (and (inexact? r) (zero? r) (or (negative? x) (eqv? x -0.0)))
               -0.0
               r))))
    (define inexact ,exact->inexact)
    (define display ,(lambda (x . port) (apply display (scrub x) port)))
    (define write ,(lambda (x . port) (apply write (scrub x) port)))
    (define number->string
      ,(lambda (n . radix)
         (if (and (real? n) (inexact? n) (null? radix))
             (toy-float->string n)
             (apply number->string n radix))))
    ;; Generated programs never exit; make sure none stops the driver.
    (define exit ,(lambda args (error "exit called")))
    (define primitive-exit exit)))

(define (read-all port)
  (let loop ((acc '()))
    (let ((x (read port)))
      (if (eof-object? x) (reverse acc) (loop (cons x acc))))))

;; Runs SRC; returns its status and output.
(define (run-program src)
  (let ((out (open-output-string)) (detail ""))
    (define status
      (catch #t
        (lambda ()
          (call-with-time-and-allocation-limits 2 200000000
            (lambda ()
              (let ((forms (read-all (open-input-string src)))
                    (m (make-fresh-user-module)))
                ;; The R7RS libraries the generator uses beyond Guile's
                ;; defaults (ports, exceptions, bytevectors, promises,
                ;; characters, case-lambda), ahead of (guile).
                (for-each (lambda (lib) (module-use! m (resolve-interface lib)))
                          '((scheme base) (scheme read) (scheme write)
                            (scheme lazy) (scheme char) (scheme inexact)
                            (scheme case-lambda)))
                (for-each (lambda (f) (eval f m)) prelude)
                (with-output-to-port out
                  (lambda () (for-each (lambda (f) (eval f m)) forms))))))
          'ok)
        (lambda (key . args)
          (set! detail (call-with-output-string
                         (lambda (p) (write (cons key args) p))))
          (if (eq? key 'limit-exceeded) 'limit 'error))))
    (values status (get-output-string out) detail)))

(define stdin (current-input-port))
(define stdout (current-output-port))

(let loop ()
  (let ((line (read-line stdin)))
    (unless (eof-object? line)
      (let* ((n (string->number line))
             (src (utf8->string (if (= n 0) (make-bytevector 0)
                                    (get-bytevector-n stdin n)))))
        (call-with-values (lambda () (run-program src))
          (lambda (status output detail)
            (let ((bytes (string->utf8 output))
                  (detail (string->utf8 detail)))
              (display status stdout)
              (display " " stdout)
              (display (bytevector-length bytes) stdout)
              (display " " stdout)
              (display (bytevector-length detail) stdout)
              (newline stdout)
              (put-bytevector stdout bytes)
              (put-bytevector stdout detail)
              (force-output stdout))))
        (loop)))))
