;;; The Scheme half of the standard library, compiled when a session starts.

(define (%map1 f l)
  (let loop ((l l) (acc '()))
    (if (pair? l) (loop (cdr l) (cons (f (car l)) acc)) (reverse acc))))

(define (%any-null? ls)
  (if (pair? ls) (if (pair? (car ls)) (%any-null? (cdr ls)) #t) #f))

(define (map f lst . more)
  (if (null? more)
      (if (list? lst)
          (let loop ((l lst) (acc '()))
            (if (pair? l) (loop (cdr l) (cons (f (car l)) acc)) (reverse acc)))
          (error "map: expected a proper list, got" lst))
      (let loop ((ls (cons lst more)) (acc '()))
        (if (%any-null? ls)
            (reverse acc)
            (loop (%map1 cdr ls) (cons (apply f (%map1 car ls)) acc))))))

(define (for-each f lst . more)
  (if (null? more)
      (if (list? lst)
          (let loop ((l lst))
            (if (pair? l) (begin (f (car l)) (loop (cdr l)))))
          (error "for-each: expected a proper list, got" lst))
      (let loop ((ls (cons lst more)))
        (if (not (%any-null? ls))
            (begin (apply f (%map1 car ls)) (loop (%map1 cdr ls)))))))

(define (hashtable-update! ht key proc default)
  (hashtable-set! ht key (proc (hashtable-ref ht key default))))

(define (iota n)
  (if (not (and (integer? n) (>= n 0)))
      (error "iota: expected a non-negative integer, got" n))
  (let loop ((i (- n 1)) (acc '()))
    (if (< i 0) acc (loop (- i 1) (cons i acc)))))
