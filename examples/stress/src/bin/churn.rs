//! `churn`: the soak test. Mutator threads mutate random graphs, each checked
//! against a host-side model after every cycle, with the heap verifier running
//! after every collection. A mismatch exits with code 1 (the verifier panics).

use clap::Parser;
use flipgc_core::{FaultMode, InjectPoint};
use flipgc_stress::{churn, cli};
use std::process::ExitCode;

/// churn: random graph mutation checked against a model, verifier after every GC.
#[derive(Debug, Parser)]
#[command(name = "churn", version)]
struct Args {
    /// Mutator threads, each with its own graph.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Cycles per thread (each: `--ops` operations, then a model check); 100 if
    /// neither this nor `--seconds` is given.
    #[arg(long)]
    cycles: Option<u64>,
    /// Stop after this many seconds (at the next cycle's end).
    #[arg(long)]
    seconds: Option<f64>,
    /// Operations per cycle.
    #[arg(long, default_value_t = 10_000)]
    ops: u64,
    /// Root slots per thread.
    #[arg(long, default_value_t = 64)]
    roots: usize,
    /// Seed (thread i uses seed + i).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Runtime-feature operations (weak handles, finalizers, cleaners, identity
    /// hashes) per thousand operations; 0 turns them off.
    #[arg(long, default_value_t = 10)]
    refs: u64,
    /// Every this many cycles, each thread collects and checks its weak handles,
    /// finalizers and cleaners exactly against the model.
    #[arg(long, default_value_t = 4)]
    refs_check: u64,
    /// Skip the verifier after each collection (faster; the model checks remain).
    #[arg(long)]
    no_verify: bool,
    /// Inject a failure at run time: flip-mremap, uffd-register, uffd-copy,
    /// uffd-move, uffd-open, uffd-move-count or mark-rounds (survived: the model
    /// checks must still pass), or worker-panic, server-panic, mark-panic or compaction-panic (the
    /// process must end at once, non-zero; server-panic runs the fault server,
    /// i.e. `--fault-mode server`, since SIGBUS mode has none).
    #[arg(long, value_name = "POINT", value_parser = parse_inject)]
    inject: Option<InjectPoint>,
    #[command(flatten)]
    heap: cli::HeapArgs,
}

fn parse_inject(text: &str) -> Result<InjectPoint, String> {
    InjectPoint::parse(text.trim()).map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    cli::init_tracing();
    let args = Args::parse();
    let params = churn::Params {
        graph: churn::GraphParams {
            threads: args.threads,
            cycles: args.cycles,
            seconds: args.seconds,
            ops: args.ops,
            roots: args.roots,
            seed: args.seed,
            ..Default::default()
        },
        refs: args.refs,
        refs_check: args.refs_check,
    };
    let mut config = args.heap.config(64 << 20);
    config.verify_after_gc = !args.no_verify;
    config.inject = args.inject;
    if args.inject == Some(InjectPoint::ServerPanic) {
        match config.fault_mode {
            // Only the fault server can panic: run it.
            FaultMode::Auto => config.fault_mode = FaultMode::Server,
            FaultMode::Server => {}
            // Sigbus, and any mode added later: no fault server to panic.
            other => {
                eprintln!(
                    "churn: --inject server-panic needs the fault server, and --fault-mode \
                     {other:?} has none: use --fault-mode server or auto"
                );
                return ExitCode::from(2);
            }
        }
    }
    let (heap, types) = match cli::build_heap("churn", config, churn::register) {
        Ok(built) => built,
        Err(code) => return code,
    };
    let result = churn::run(&heap, &types, &params);
    cli::finish("churn", &heap, &args.heap, result)
}
