//! `jvmlike-churn`: the class-based VM's model check. Mutator threads mutate random
//! graphs of VM objects (loading classes as they run), each checked against a
//! host-side model after every cycle, with the heap verifier after every
//! collection. A mismatch exits with code 1 (the verifier panics).

use clap::Parser;
use flipgc_jvmlike::churn;
use flipgc_jvmlike::object::Jvm;
use flipgc_stress::cli;
use std::process::ExitCode;

/// churn on the class-based VM: random graph mutation checked against a model.
#[derive(Debug, Parser)]
#[command(name = "jvmlike-churn", version)]
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
    /// Skip the verifier after each collection (faster; the model checks remain).
    #[arg(long)]
    no_verify: bool,
    #[command(flatten)]
    heap: cli::HeapArgs,
}

fn main() -> ExitCode {
    cli::init_tracing();
    let args = Args::parse();
    let params = churn::Params {
        threads: args.threads,
        cycles: args.cycles,
        seconds: args.seconds,
        ops: args.ops,
        roots: args.roots,
        seed: args.seed,
        ..Default::default()
    };
    let mut config = args.heap.config(64 << 20);
    config.verify_after_gc = !args.no_verify;
    let built = Jvm::with_heap(config)
        .map_err(|e| e.to_string())
        .and_then(|(heap, jvm)| Ok((churn::load(&jvm)?, jvm, heap)));
    let (types, jvm, heap) = match built {
        Ok(b) => b,
        Err(e) => {
            eprintln!("jvmlike-churn: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = churn::run(&heap, &jvm, &types, &params);
    cli::finish("jvmlike-churn", &heap, &args.heap, result)
}
