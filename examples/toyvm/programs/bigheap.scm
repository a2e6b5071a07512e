;;; Live data far above the old fixed 64 MiB default heap: a list of 3 million
;;; integers (about 92 MiB live: 3 million pairs; the integers are fixnums). On the default heap (growable up to a quarter
;;; of physical memory) it runs unchanged: the heap grows to hold the list, and
;;; gives the memory back once the list is dropped (see (gc-stats)).

(define (sum l)
  (let loop ((l l) (s 0))
    (if (null? l) s (loop (cdr l) (+ s (car l))))))

(define l (iota 3000000))
(display (length l))
(newline)
(display (sum l))
(newline)
(gc)
(display (length l))
(newline)
(display (sum l))
(newline)

;; A second structure beside it: a million one-element lists in a vector.
(define v (make-vector 1000000 #f))
(do ((i 0 (+ i 1))) ((= i 1000000)) (vector-set! v i (list (* 2 i))))
(gc)
(display (vector-ref v 999999))
(newline)
(display (sum (vector-ref v 123456)))
(newline)

;; Dropped, then a second burst, built by a loop this time.
(set! l #f)
(set! v #f)
(gc)
(define (build n acc) (if (= n 0) acc (build (- n 1) (cons n acc))))
(define l2 (build 3000000 '()))
(display (length l2))
(newline)
(display (sum l2))
(newline)
