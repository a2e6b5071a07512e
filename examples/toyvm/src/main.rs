//! toyvm CLI (placeholder).
fn main() {}
