// Field descriptors are made only by the registry, which checks the field's kind:
// they cannot be built by hand with another offset or header.
use flipgc_core::RefField;

fn main() {
    let _f = RefField { expect: 2, offset: 8, registry: 1 };
}
