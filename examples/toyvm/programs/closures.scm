;;; Closure-heavy: counters with private state, adders, composition, Church
;;; numerals, accumulating generators and continuation-passing style, each
;;; allocating closures (and cells for assigned captured variables) in loops.

(define (make-counter)
  (let ((n 0))
    (lambda () (set! n (+ n 1)) n)))

(define (make-adder k) (lambda (x) (+ x k)))

(define (compose . fs)
  (if (null? fs)
      (lambda (x) x)
      (let ((f (car fs)) (rest (apply compose (cdr fs))))
        (lambda (x) (f (rest x))))))

;; Church numerals.
(define zero (lambda (f) (lambda (x) x)))
(define (succ n) (lambda (f) (lambda (x) (f ((n f) x)))))
(define (church->int n) ((n (lambda (i) (+ i 1))) 0))
(define (int->church i) (if (= i 0) zero (succ (int->church (- i 1)))))
(define (church-add a b) (lambda (f) (lambda (x) ((a f) ((b f) x)))))
(define (church-mul a b) (lambda (f) (a (b f))))

;; CPS factorial and fibonacci.
(define (fact-cps n k)
  (if (= n 0) (k 1) (fact-cps (- n 1) (lambda (v) (k (* n v))))))
(define (fib-cps n k)
  (if (< n 2)
      (k n)
      (fib-cps (- n 1) (lambda (a) (fib-cps (- n 2) (lambda (b) (k (+ a b))))))))

;; Many counters, each bumped a few times.
(define (counters-total n)
  (let loop ((i 0) (total 0))
    (if (= i n)
        total
        (let ((c (make-counter)))
          (c) (c)
          (loop (+ i 1) (+ total (c)))))))

;; A pipeline of adders built fresh every round.
(define (adder-rounds rounds width)
  (let loop ((r 0) (acc 0))
    (if (= r rounds)
        acc
        (let ((f (apply compose (map make-adder (list-tail '(1 2 3 4 5 6 7 8 9 10) (- 10 width))))))
          (loop (+ r 1) (+ acc (f r)))))))

;; A generator of squares with its own state.
(define (make-squares)
  (let ((i 0))
    (lambda () (let ((v (* i i))) (set! i (+ i 1)) v))))

(define (sum-generator g n)
  (do ((k 0 (+ k 1)) (s 0 (+ s (g)))) ((= k n) s)))

(display "counters: ") (display (counters-total 50000)) (newline)
(display "adders: ") (display (adder-rounds 20000 5)) (newline)
(display "church 7*8+5: ")
(display (church->int (church-add (church-mul (int->church 7) (int->church 8)) (int->church 5))))
(newline)
(display "church loop: ")
(display (let loop ((i 0) (acc 0))
           (if (= i 2000) acc (loop (+ i 1) (+ acc (church->int (int->church (remainder i 50))))))))
(newline)
(display "fact-cps 20: ") (display (fact-cps 20 (lambda (v) v))) (newline)
(display "fib-cps 20: ") (display (fib-cps 20 (lambda (v) v))) (newline)
(display "squares: ") (display (sum-generator (make-squares) 1000)) (newline)
(display "map/filter: ")
(define (filter p l) (cond ((null? l) '()) ((p (car l)) (cons (car l) (filter p (cdr l)))) (else (filter p (cdr l)))))
(display (length (filter (lambda (x) (even? x)) (map (lambda (x) (* x 3)) (let loop ((i 0) (l '())) (if (= i 10000) l (loop (+ i 1) (cons i l))))))))
(newline)
