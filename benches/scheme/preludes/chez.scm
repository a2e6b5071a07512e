;;; The Chez Scheme half of the harness. Chez Scheme 9.5 has R6RS libraries,
;;; not R7RS ones: run.py drops a program's (import (scheme ...)) line (as the
;;; suite's petite-chez entry does) and these definitions supply the R7RS
;;; names that are not already Chez top-level names.
(define (this-scheme-implementation-name)
  (string-append "chez-" (scheme-version)))
(define (jiffies-per-second) 1000000)
(define (current-jiffy)
  (let ((t (current-time 'time-monotonic)))
    (+ (* (time-second t) 1000000) (quotient (time-nanosecond t) 1000))))
(define (current-second)
  (let ((t (current-time 'time-utc)))
    (+ (time-second t) (/ (time-nanosecond t) 1e9))))
(define (exact-integer? x) (and (integer? x) (exact? x)))
(define (square x) (* x x))
(define (write-string s . port) (apply display s port))
(define (read-line . port)
  (let ((p (if (pair? port) (car port) (current-input-port))))
    (let loop ((cs '()))
      (let ((c (read-char p)))
        (cond ((eof-object? c) (if (null? cs) c (list->string (reverse cs))))
              ((char=? c #\newline) (list->string (reverse cs)))
              (else (loop (cons c cs))))))))
(define (truncate/ n d) (values (quotient n d) (remainder n d)))
(define (floor/ n d) (values (floor (/ n d)) (modulo n d)))
(define (exact-integer-sqrt n) (let ((s (isqrt n))) (values s (- n (* s s)))))
(define-syntax define-record-type
  (syntax-rules ()
    ((_ type (ctor field ...) pred spec ...)
     (begin
       (define rtd (make-record-type-descriptor 'type #f #f #f #f
                     (vector (%r7rs-field spec) ...)))
       (define ctor
         (let ((make (record-constructor
                      (make-record-constructor-descriptor rtd #f #f))))
           (lambda (field ...) (make field ...))))
       (define pred (record-predicate rtd))
       (%r7rs-accessors rtd 0 spec ...)))))
(define-syntax %r7rs-field
  (syntax-rules () ((_ (name . rest)) '(mutable name))))
(define-syntax %r7rs-accessors
  (syntax-rules ()
    ((_ rtd i) (begin))
    ((_ rtd i (name get) more ...)
     (begin (define get (record-accessor rtd i))
            (%r7rs-accessors rtd (+ i 1) more ...)))
    ((_ rtd i (name get set) more ...)
     (begin (define get (record-accessor rtd i))
            (define set (record-mutator rtd i))
            (%r7rs-accessors rtd (+ i 1) more ...)))))
