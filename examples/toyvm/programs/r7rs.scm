;;; R7RS-small procedures the VM added for the project's runtime-features issue:
;;; make-string, list? on every kind of list, write and display of circular
;;; structures (datum labels), write-shared and write-simple, equal? on circular
;;; structures, and exit.

(define (show label x) (display label) (display ": ") (write x) (newline))

;; make-string: k copies of a character (a space by default).
(show "make-string" (make-string 3 #\a))
(show "make-string default" (make-string 2))
(show "make-string unicode" (make-string 4 #\λ))
(show "make-string empty" (make-string 0 #\z))
(show "make-string length" (string-length (make-string 1000 #\é)))

;; Circular lists, built with set-cdr! and set-car!.
(define (circular . items)
  (let ((l (apply list items)))
    (set-cdr! (list-tail l (- (length l) 1)) l)
    l))

(define c3 (circular 1 2 3))
(define c1 (circular 'x))
(define head-loop (list 'a 'b))
(set-car! head-loop head-loop)

;; list? is false for improper and circular lists.
(show "list?" (map list? (list '() '(1 2) '(1 . 2) 5 c3 c1 head-loop)))

;; write and display use datum labels for cycles, and only for cycles.
(show "write c3" c3)
(show "write c1" c1)
(show "write car loop" head-loop)
(display "display c3: ") (display (list "s" c3)) (newline)
(define v (vector 1 2 3))
(vector-set! v 1 v)
(show "write vector" v)
(define mixed (list 'p (vector 'q)))
(vector-set! (cadr mixed) 0 mixed)
(show "write mixed" mixed)
(define shared (list 1 2))
(show "write shared, no cycle" (list shared shared))
(display "write-shared: ") (write-shared (list shared shared)) (newline)
(display "write-shared cycle: ") (write-shared (list c1 c1)) (newline)
(display "write-simple: ") (write-simple (list shared shared)) (newline)

;; list-tail and list-ref walk round cycles (whole turns skipped).
(show "list-tail" (car (list-tail c3 1000000000)))
(show "list-ref" (list-ref c3 7))

;; equal? terminates on circular structures.
(show "equal? same" (equal? c3 c3))
(show "equal? twin" (equal? c3 (circular 1 2 3)))
(show "equal? unrolled" (equal? c3 (circular 1 2 3 1 2 3)))
(show "equal? different" (equal? c3 (circular 1 2 4)))
(show "equal? vs finite" (equal? c3 '(1 2 3)))
(define v2 (vector 1 2 3))
(vector-set! v2 1 v2)
(show "equal? vectors" (equal? v v2))
;; ... and on shared structure with 2^60 paths, in linear time.
(define (dag n) (if (= n 0) '(leaf) (let ((d (dag (- n 1)))) (cons d d))))
(show "equal? dag" (equal? (dag 60) (dag 60)))
(show "equal? dag differs" (equal? (dag 60) (dag 59)))

;; Enough allocation for the collector to run (and move the cycles).
(define (churn n)
  (let loop ((i 0) (keep '()))
    (if (= i n)
        (length keep)
        (let ((c (circular i (make-string 200 #\c))))
          (loop (+ i 1) (if (= 0 (remainder i 100)) (cons c keep) keep))))))
(show "churn" (churn 100000))
(gc)
(show "after gc" (list c3 v (equal? c3 (circular 1 2 3))))

;; exit flushes the output and ends the program with status 0.
(display "exiting")
(exit)
(display "not reached")
