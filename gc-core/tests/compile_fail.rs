//! Misuse the type system must reject: a `Gc` used after a GC point (`alloc`,
//! `safepoint`, `collect`), a `RefReader` kept across a GC point, heap
//! references smuggled into `Mutator::blocking`, and `Mutator`, `Handle` or `Gc`
//! sent to another thread, and the write barrier turned off from safe code. Each `tests/ui/*.rs` must fail
//! to compile with the error recorded in its `.stderr` file (regenerate with
//! `TRYBUILD=overwrite cargo test -p flipgc-core --test compile_fail`, then read
//! every diff: each must fail for its intended reason, a borrow error or a missing
//! `Send`, not a typo). The allowed versions of these patterns (re-reading through
//! a handle after a GC point, `blocking` with a `Send` closure) run in `api.rs`.

#[test]
fn misuse_does_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
