//! A toy Scheme VM (placeholder; being written).
