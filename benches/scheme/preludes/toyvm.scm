;;; The toy VM half of the harness: the one name the suite asks each system for.
(define (this-scheme-implementation-name) "toyvm")
