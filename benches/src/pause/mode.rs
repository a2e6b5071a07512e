//! pausebench's modes: [`MODES`] and [`heap_config`], the single place where a mode
//! name becomes a [`HeapConfig`].

use flipgc_core::{FaultMode, FlipMode, GcLog, GcThreadPriority, HeapConfig};

/// Every mode `--modes` accepts, in a sensible run order.
pub const MODES: &[&str] = &["auto", "stw", "pud", "pmd", "pte", "copy"];

/// Options every run's heap gets, whatever its mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// What the GC log prints (`--gc-log`).
    pub gc_log: GcLog,
    /// The verifier after every collection.
    pub verify: bool,
    /// The heap faulted in at construction (as the JVM peers' `-XX:+AlwaysPreTouch`).
    pub pretouch: bool,
    /// Who fills the pages mutators touch during concurrent compaction
    /// (`--fault-mode`: the faulting thread in its `SIGBUS` handler, or the fault
    /// server; `Auto` is SIGBUS mode where the kernel has it).
    pub fault_mode: FaultMode,
    /// The scheduling of the collector's threads (`--gc-priority`).
    pub gc_priority: GcThreadPriority,
}

/// The heap configuration for a run in `mode` with `heap_bytes` of heap:
/// `auto`, `pud`, `pmd`, `pte` and `copy` choose how the collector moves the heap
/// ([`FlipMode`]), with concurrent marking, and concurrent compaction wherever the
/// kernel allows it (not for `copy`, which compacts inside the flip pause); `stw` is
/// `auto` with the whole collection inside one stop-the-world pause.
/// Everything else is [`HeapConfig::new`]'s defaults, plus what [`Options`] asks.
pub fn heap_config(mode: &str, heap_bytes: usize, o: Options) -> Result<HeapConfig, String> {
    let mut c = HeapConfig::new(heap_bytes);
    c.verify_after_gc = o.verify;
    c.pretouch = o.pretouch;
    c.gc_log = o.gc_log;
    c.fault_mode = o.fault_mode;
    c.gc_thread_priority = o.gc_priority;
    match mode {
        "auto" | "pud" | "pmd" | "pte" | "copy" => {
            c.flip = FlipMode::parse(mode).map_err(|e| e.to_string())?;
        }
        "stw" => {
            c.flip = FlipMode::Auto;
            c.concurrent_marking = false;
        }
        _ => return Err(unknown(mode)),
    }
    Ok(c)
}

/// Parses `--fault-mode`: `auto`, `sigbus` or `server`.
pub fn parse_fault_mode(text: &str) -> Result<FaultMode, String> {
    FaultMode::parse(text.trim()).map_err(|e| e.to_string())
}

/// Parses one `--modes` item.
pub fn parse_mode(text: &str) -> Result<String, String> {
    let m = text.trim();
    if MODES.contains(&m) {
        Ok(m.to_string())
    } else {
        Err(unknown(m))
    }
}

fn unknown(mode: &str) -> String {
    format!("unknown mode {mode:?} (known: {})", MODES.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mode_has_a_config() {
        for m in MODES.iter().filter(|m| **m != "stw") {
            let c = heap_config(m, 64 << 20, Options::default()).unwrap();
            assert_eq!(c.flip.name(), *m);
            assert!(c.concurrent_compaction && c.concurrent_marking);
            assert!(!c.verify_after_gc);
        }
        let stw = heap_config("stw", 64 << 20, Options::default()).unwrap();
        assert_eq!((stw.flip, stw.concurrent_marking), (FlipMode::Auto, false));
        let o = Options {
            verify: true,
            pretouch: true,
            gc_log: GcLog::ALL,
            fault_mode: FaultMode::Server,
            gc_priority: GcThreadPriority::Nice(4),
        };
        let c = heap_config("auto", 64 << 20, o).unwrap();
        assert!(c.verify_after_gc && c.pretouch);
        assert_eq!(c.gc_thread_priority, GcThreadPriority::Nice(4));
        assert_eq!(c.gc_log, GcLog::ALL);
        assert_eq!(c.fault_mode, FaultMode::Server);
        assert_eq!(parse_fault_mode(" sigbus"), Ok(FaultMode::Sigbus));
        assert!(parse_fault_mode("signal").is_err());
        assert!(heap_config("fast", 64 << 20, Options::default())
            .unwrap_err()
            .contains("auto, stw, pud"));
        assert_eq!(parse_mode(" copy "), Ok("copy".into()));
        assert!(parse_mode("stw2").is_err());
    }
}
