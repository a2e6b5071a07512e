//! pausebench's workloads: [`Workload`] (which program), [`Params`] (each program's
//! parameters, overridable by `--params`), and [`run`], which builds a fresh heap,
//! starts the hiccup meter and the machine meter, runs the workload in-process and gathers what was
//! measured ([`Measured`]).
//!
//! The `flipgc-stress` programs are called exactly as their binaries call them; a
//! `toyvm:FILE` workload runs a Scheme file on the toy VM (`flipgc-toyvm`);
//! `jvmlike-gcbench` and `jvmlike-binarytrees` run the same two programs, with the
//! same parameters (`--params gcbench.*` and `binarytrees.*` apply to both), through
//! the class-based VM's own object layout (`flipgc-jvmlike`, a heap built with
//! `Heap::with_model`), so that the two embeddings compare row by row.

use super::hiccup::HiccupMeter;
use super::rss;
use flipgc_core::{Heap, HeapConfig, PauseLog, TypeRegistry};
use flipgc_jvmlike::object::Jvm;
use flipgc_stress::params::{split_pair, SetParam};
use flipgc_stress::{binarytrees, bursts, churn, gcbench};
use hdrhistogram::Histogram;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// GCBench's depth sweeps in pausebench (the `gcbench` binary's default is 8, which
/// takes minutes per mode; override with `--params gcbench.rounds=8`).
pub const GCBENCH_ROUNDS: u32 = 2;

/// churn's cycles per thread in pausebench (override with `--params churn.cycles=N`).
pub const CHURN_CYCLES: u64 = 200;

/// A workload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Workload {
    /// [`gcbench`].
    Gcbench,
    /// [`binarytrees`].
    Binarytrees,
    /// [`churn`].
    Churn,
    /// [`bursts`].
    Bursts,
    /// A Scheme source file run by the toy VM.
    Toyvm(PathBuf),
    /// [`gcbench`] through the class-based VM's layout (`flipgc_jvmlike::gcbench`).
    JvmlikeGcbench,
    /// [`binarytrees`] through the class-based VM's layout
    /// (`flipgc_jvmlike::binarytrees`).
    JvmlikeBinarytrees,
}

impl Workload {
    /// Parses `gcbench`, `binarytrees`, `churn`, `bursts`, `jvmlike-gcbench`,
    /// `jvmlike-binarytrees` or `toyvm:FILE` (FILE must be readable).
    pub fn parse(text: &str) -> Result<Workload, String> {
        let t = text.trim();
        match t {
            "gcbench" => Ok(Workload::Gcbench),
            "binarytrees" => Ok(Workload::Binarytrees),
            "churn" => Ok(Workload::Churn),
            "bursts" => Ok(Workload::Bursts),
            "jvmlike-gcbench" => Ok(Workload::JvmlikeGcbench),
            "jvmlike-binarytrees" => Ok(Workload::JvmlikeBinarytrees),
            _ => match t.strip_prefix("toyvm:") {
                Some("") => Err("toyvm: needs a source file (toyvm:FILE)".into()),
                Some(file) => {
                    std::fs::metadata(file).map_err(|e| format!("toyvm source {file:?}: {e}"))?;
                    Ok(Workload::Toyvm(file.into()))
                }
                None => Err(format!(
                    "unknown workload {t:?} (known: gcbench, binarytrees, churn, bursts, \
                     jvmlike-gcbench, jvmlike-binarytrees, toyvm:FILE)"
                )),
            },
        }
    }

    /// The name as given (`toyvm:FILE` with its path).
    pub fn name(&self) -> String {
        match self {
            Workload::Gcbench => "gcbench".into(),
            Workload::Binarytrees => "binarytrees".into(),
            Workload::Churn => "churn".into(),
            Workload::Bursts => "bursts".into(),
            Workload::Toyvm(p) => format!("toyvm:{}", p.display()),
            Workload::JvmlikeGcbench => "jvmlike-gcbench".into(),
            Workload::JvmlikeBinarytrees => "jvmlike-binarytrees".into(),
        }
    }
}

/// Every workload's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// GCBench's.
    pub gcbench: gcbench::Params,
    /// binary-trees'.
    pub binarytrees: binarytrees::Params,
    /// churn's.
    pub churn: churn::Params,
    /// bursts'.
    pub bursts: bursts::Params,
}

impl Params {
    /// pausebench's defaults: the programs' own defaults, except GCBench runs
    /// [`GCBENCH_ROUNDS`] sweeps and churn [`CHURN_CYCLES`] cycles; `threads` for all.
    pub fn new(threads: usize) -> Params {
        Params {
            gcbench: gcbench::Params {
                rounds: GCBENCH_ROUNDS,
                threads,
                ..Default::default()
            },
            binarytrees: binarytrees::Params {
                threads,
                ..Default::default()
            },
            churn: churn::Params {
                graph: churn::GraphParams {
                    threads,
                    cycles: Some(CHURN_CYCLES),
                    ..Default::default()
                },
                ..Default::default()
            },
            bursts: bursts::Params::default(),
        }
    }

    /// Applies one `--params` item, `workload.key=value` (e.g. `gcbench.rounds=1`).
    pub fn set(&mut self, item: &str) -> Result<(), String> {
        let (key, value) = split_pair(item)?;
        let Some((workload, key)) = key.split_once('.') else {
            return Err(format!(
                "{item:?}: parameters are workload.key=value (e.g. gcbench.rounds=1)"
            ));
        };
        match workload {
            "gcbench" => self.gcbench.set(key, value),
            "binarytrees" => self.binarytrees.set(key, value),
            "churn" => self.churn.set(key, value),
            "bursts" => self.bursts.set(key, value),
            _ => Err(format!(
                "{item:?}: no workload {workload:?} takes parameters (gcbench, binarytrees, churn, bursts)"
            )),
        }
    }

    /// Refuses parameters a workload in `workloads` cannot run.
    pub fn validate(&self, workloads: &[Workload]) -> Result<(), String> {
        for w in workloads {
            let r = match w {
                Workload::Gcbench | Workload::JvmlikeGcbench => self.gcbench.validate(),
                Workload::Binarytrees | Workload::JvmlikeBinarytrees => self.binarytrees.validate(),
                Workload::Churn => self.churn.validate(),
                Workload::Bursts => self.bursts.validate(),
                Workload::Toyvm(_) => Ok(()),
            };
            r.map_err(|e| format!("{}: {e}", w.name()))?;
        }
        Ok(())
    }

    /// The parameters `w` runs with, as JSON (`null` for the toy VM).
    pub fn json_for(&self, w: &Workload) -> serde_json::Value {
        let v = match w {
            Workload::Gcbench | Workload::JvmlikeGcbench => serde_json::to_value(&self.gcbench),
            Workload::Binarytrees | Workload::JvmlikeBinarytrees => {
                serde_json::to_value(&self.binarytrees)
            }
            Workload::Churn => serde_json::to_value(&self.churn),
            Workload::Bursts => serde_json::to_value(&self.bursts),
            Workload::Toyvm(_) => Ok(serde_json::Value::Null),
        };
        v.unwrap_or_default()
    }
}

/// What one run measured.
pub struct Measured {
    /// Wall time of the workload (heap construction excluded).
    pub wall: Duration,
    /// The heap's pause log at the end.
    pub log: PauseLog,
    /// The hiccup meter's late wake-ups (ns).
    pub hiccups: Histogram<u64>,
    /// The hiccup meter's wake-ups, (when due, how late), ns since the heap was
    /// created.
    pub hiccup_samples: Vec<(u64, u64)>,
    /// The hiccup meter's samples of the heap's used bytes, (when, bytes).
    pub heap_used: Vec<(u64, u64)>,
    /// The machine meter's late wake-ups (ns): a plain thread, not a mutator.
    pub machine: Histogram<u64>,
    /// The machine meter's wake-ups, (when due, how late), on the same clock.
    pub machine_samples: Vec<(u64, u64)>,
    /// Peak RSS during the run (bytes), if readable.
    pub peak_rss: Option<u64>,
    /// CPU time the hypervisor took from this machine during the workload, every
    /// CPU added up (ns), if readable ([`crate::host::MachineCpu`]).
    pub steal_ns: Option<u64>,
    /// CPU time the machine spent on anything but this process during the workload,
    /// every CPU added up (ns), if readable: other programs, kernel threads and
    /// interrupts (the machine's busy time less [`crate::host::own_cpu_ns`]).
    pub others_cpu_ns: Option<u64>,
}

/// A workload ready to run on a heap built from the registry it registered into.
type Job = Box<dyn FnOnce(&Heap) -> Result<(), String>>;

/// Runs `w` once on a fresh heap built from `config`, with the hiccup meter; a cycle
/// still under way when the job ends is waited for (outside the wall time).
/// The job's mutators run at `mutator` (`--mutator-priority`; see
/// [`sched::with_mutator_priority`](super::sched::with_mutator_priority)).
pub fn run(
    w: &Workload,
    p: &Params,
    config: HeapConfig,
    mutator: flipgc_core::GcThreadPriority,
) -> Result<Measured, String> {
    let mut registry = TypeRegistry::new();
    let err = |e: flipgc_core::GcError| e.to_string();
    let job: Job = match w {
        Workload::Gcbench => {
            let (t, p) = (
                gcbench::register(&mut registry).map_err(err)?,
                p.gcbench.clone(),
            );
            Box::new(move |h| gcbench::run(h, &t, &p).map(drop).map_err(|e| e.to_string()))
        }
        Workload::Binarytrees => {
            let t = binarytrees::register(&mut registry).map_err(err)?;
            let p = p.binarytrees.clone();
            Box::new(move |h| {
                binarytrees::run(h, &t, &p)
                    .map(drop)
                    .map_err(|e| e.to_string())
            })
        }
        Workload::Churn => {
            let (t, p) = (
                churn::register(&mut registry).map_err(err)?,
                p.churn.clone(),
            );
            Box::new(move |h| churn::run(h, &t, &p).map(drop).map_err(|e| e.to_string()))
        }
        Workload::Bursts => {
            let (t, p) = (
                bursts::register(&mut registry).map_err(err)?,
                p.bursts.clone(),
            );
            Box::new(move |h| bursts::run(h, &t, &p).map(drop).map_err(|e| e.to_string()))
        }
        Workload::Toyvm(path) => toyvm_job(&mut registry, path)?,
        Workload::JvmlikeGcbench | Workload::JvmlikeBinarytrees => {
            let (jvm, job) = jvmlike_job(w, p)?;
            let heap = Heap::with_model(config, jvm.model()).map_err(err)?;
            return measure(w, heap, job, mutator);
        }
    };
    measure(w, Heap::new(config, registry).map_err(err)?, job, mutator)
}

/// The class-based VM's workloads: a fresh VM with the program's classes loaded
/// (before the heap exists, so loading is not timed; its heap is built with the
/// VM's object model), and the job.
fn jvmlike_job(w: &Workload, p: &Params) -> Result<(Jvm, Job), String> {
    let jvm = Jvm::new();
    let job: Job = match w {
        Workload::JvmlikeGcbench => {
            let (t, p) = (flipgc_jvmlike::gcbench::load(&jvm)?, p.gcbench.clone());
            Box::new(move |h| {
                flipgc_jvmlike::gcbench::run(h, &t, &p)
                    .map(drop)
                    .map_err(|e| e.to_string())
            })
        }
        _ => {
            let t = flipgc_jvmlike::binarytrees::load(&jvm)?;
            let p = p.binarytrees.clone();
            Box::new(move |h| {
                flipgc_jvmlike::binarytrees::run(h, &t, &p)
                    .map(drop)
                    .map_err(|e| e.to_string())
            })
        }
    };
    Ok((jvm, job))
}

/// Runs `job` on `heap` with the meters (see [`run`]).
fn measure(
    w: &Workload,
    heap: Heap,
    job: Job,
    mutator: flipgc_core::GcThreadPriority,
) -> Result<Measured, String> {
    rss::reset_peak();
    let meter = HiccupMeter::start(&heap, mutator);
    let machine = HiccupMeter::start_machine(&heap);
    let cpu = || (crate::host::MachineCpu::read(), crate::host::own_cpu_ns());
    let before = cpu();
    let started = Instant::now();
    let result = super::sched::with_mutator_priority(mutator, || job(&heap))?;
    let wall = started.elapsed();
    let after = cpu();
    let delta = |a: Option<u64>, b: Option<u64>| Some(b?.saturating_sub(a?));
    let machine_cpu = |f: fn(&crate::host::MachineCpu) -> u64| {
        delta(before.0.as_ref().map(f), after.0.as_ref().map(f))
    };
    let steal_ns = machine_cpu(|c| c.steal_ns);
    let others_cpu_ns = machine_cpu(|c| c.busy_ns)
        .zip(delta(before.1, after.1))
        .map(|(busy, own)| busy.saturating_sub(own));
    // The job's mutators are gone: let a cycle under way finish (the meter keeps
    // passing safepoints), so that the log has no half cycle.
    heap.wait_idle();
    let meter = meter.stop()?;
    let machine = machine.stop()?;
    result.map_err(|e| format!("{}: {e}", w.name()))?;
    Ok(Measured {
        wall,
        log: heap.pause_log(),
        hiccups: meter.histogram,
        hiccup_samples: meter.samples,
        heap_used: meter.heap_used,
        machine: machine.histogram,
        machine_samples: machine.samples,
        peak_rss: rss::peak_bytes(),
        steal_ns,
        others_cpu_ns,
    })
}

/// The toy-VM workload: registers the VM's types (`flipgc_toyvm::register_types`)
/// and returns a job running the Scheme file at `path` with
/// `flipgc_toyvm::run_source`, its output discarded. The file is read here, before
/// the heap exists, so reading it is not timed.
fn toyvm_job(registry: &mut TypeRegistry, path: &std::path::Path) -> Result<Job, String> {
    let src = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let types = flipgc_toyvm::register_types(registry).map_err(|e| e.to_string())?;
    let name = path.display().to_string();
    Ok(Box::new(move |heap| {
        flipgc_toyvm::run_source(heap, &types, &name, &src, Box::new(std::io::sink()))
            .map_err(|e| e.to_string())
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workloads_parse() {
        assert_eq!(Workload::parse("gcbench"), Ok(Workload::Gcbench));
        assert_eq!(Workload::parse(" churn"), Ok(Workload::Churn));
        let e = Workload::parse("specjbb").unwrap_err();
        assert!(e.contains("unknown workload"), "{e}");
        assert_eq!(
            Workload::parse("jvmlike-gcbench"),
            Ok(Workload::JvmlikeGcbench)
        );
        let w = Workload::parse("jvmlike-binarytrees").unwrap();
        assert_eq!(w.name(), "jvmlike-binarytrees");
        assert!(Workload::parse("toyvm:").is_err());
        let e = Workload::parse("toyvm:/no/such/file.scm").unwrap_err();
        assert!(e.contains("/no/such/file.scm"), "{e}");
        let file = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
        let w = Workload::parse(&format!("toyvm:{file}")).unwrap();
        assert_eq!(w.name(), format!("toyvm:{file}"));
    }

    #[test]
    fn params_override() {
        let mut p = Params::new(2);
        assert_eq!(p.gcbench.rounds, GCBENCH_ROUNDS);
        assert_eq!(p.binarytrees.threads, 2);
        p.set("gcbench.rounds=1").unwrap();
        p.set("binarytrees.depth=8").unwrap();
        p.set("churn.seconds=0.5").unwrap();
        assert_eq!((p.gcbench.rounds, p.binarytrees.depth), (1, 8));
        assert_eq!(p.churn.graph.seconds, Some(0.5));
        for bad in ["rounds=1", "gcbench.laps=1", "jvm.x=1", "gcbench.rounds=x"] {
            assert!(p.set(bad).is_err(), "{bad}");
        }
        p.set("gcbench.min-depth=22").unwrap();
        assert!(p.validate(&[Workload::Gcbench]).is_err());
        assert!(p.validate(&[Workload::Churn]).is_ok());
        assert_eq!(p.json_for(&Workload::Binarytrees)["depth"], 8);
        // The class-based VM's rows run the same parameters as the built-in ones.
        assert_eq!(p.json_for(&Workload::JvmlikeBinarytrees)["depth"], 8);
        assert!(p.validate(&[Workload::JvmlikeGcbench]).is_err());
    }
}
