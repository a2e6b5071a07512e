;;; GCBench (after Ellis, Kovac and Boehm): complete binary trees built top-down
;;; (populated in place) and bottom-up at several depths, while a long-lived tree
;;; and a vector of floats stay live. Nodes are 4-slot vectors: left, right, i, j.

(define stretch-depth 14)
(define long-lived-depth 12)
(define array-size 20000)
(define min-depth 4)
(define max-depth 12)

(define (make-node left right) (vector left right 0 0))
(define (leaf) (make-node '() '()))
(define (left n) (vector-ref n 0))
(define (right n) (vector-ref n 1))

(define (tree-size depth)
  (let loop ((d depth) (p 1))
    (if (< d 0) (- p 1) (loop (- d 1) (* p 2)))))

(define (iterations depth)
  (* 2 (quotient (tree-size stretch-depth) (tree-size depth))))

(define (populate! depth node)
  (when (> depth 0)
    (vector-set! node 0 (leaf))
    (vector-set! node 1 (leaf))
    (populate! (- depth 1) (left node))
    (populate! (- depth 1) (right node))))

(define (make-tree depth)
  (if (<= depth 0)
      (leaf)
      (make-node (make-tree (- depth 1)) (make-tree (- depth 1)))))

(define (count-nodes n)
  (if (null? n) 0 (+ 1 (count-nodes (left n)) (count-nodes (right n)))))

(define (time-construction depth)
  (let ((n (iterations depth)))
    (let ((top-down
           (do ((i 0 (+ i 1)) (total 0))
               ((= i n) total)
             (let ((t (leaf)))
               (populate! depth t)
               (set! total (+ total (count-nodes t))))))
          (bottom-up
           (do ((i 0 (+ i 1)) (total 0 (+ total (count-nodes (make-tree depth)))))
               ((= i n) total))))
      (display "depth ") (display depth)
      (display ": ") (display n) (display " trees, top-down nodes ")
      (display top-down) (display ", bottom-up nodes ") (display bottom-up)
      (newline))))

(display "stretch tree of depth ") (display stretch-depth)
(display ": ") (display (count-nodes (make-tree stretch-depth))) (display " nodes")
(newline)

(define long-lived (leaf))
(populate! long-lived-depth long-lived)
(define array (make-vector array-size 0.0))
(do ((i 1 (+ i 1))) ((= i (quotient array-size 2)))
  (vector-set! array i (/ 1.0 i)))

(do ((d min-depth (+ d 2))) ((> d max-depth))
  (time-construction d))

(display "long-lived tree: ") (display (count-nodes long-lived)) (display " nodes")
(newline)
(display "array[1000] = ") (display (vector-ref array 1000)) (newline)
(display "array[9999] = ") (display (vector-ref array 9999)) (newline)
