//! GC stress programs (placeholder; being written).
