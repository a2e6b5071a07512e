;;; binary-trees (after the Computer Language Benchmarks Game): many short-lived
;;; complete binary trees of growing depth, one long-lived tree.
;;; Trees are pairs: a leaf is (() . ()), a node is (left . right).

(define (make-tree depth)
  (if (= depth 0)
      (cons '() '())
      (cons (make-tree (- depth 1)) (make-tree (- depth 1)))))

(define (check tree)
  (if (null? (car tree))
      1
      (+ 1 (check (car tree)) (check (cdr tree)))))

(define (power-of-two n)
  (let loop ((n n) (acc 1))
    (if (= n 0) acc (loop (- n 1) (* acc 2)))))

(define (run max-depth)
  (let* ((min-depth 4)
         (max-depth (max (+ min-depth 2) max-depth))
         (stretch (+ max-depth 1)))
    (display "stretch tree of depth ") (display stretch)
    (display "\t check: ") (display (check (make-tree stretch))) (newline)
    (let ((long-lived (make-tree max-depth)))
      (do ((d min-depth (+ d 2)))
          ((> d max-depth))
        (let ((iterations (power-of-two (+ (- max-depth d) min-depth))))
          (let loop ((i 0) (sum 0))
            (if (< i iterations)
                (loop (+ i 1) (+ sum (check (make-tree d))))
                (begin
                  (display iterations) (display "\t trees of depth ") (display d)
                  (display "\t check: ") (display sum) (newline))))))
      (display "long lived tree of depth ") (display max-depth)
      (display "\t check: ") (display (check long-lived)) (newline))))

(run 14)
