//! `jvmlike-gcbench`: GCBench through the class-based VM's own object layout, with
//! the arguments and defaults of the `gcbench` binary (`stretch longLived
//! arraySize minDepth maxDepth rounds`, defaults `22 18 500000 4 20 8`). A wrong
//! result exits with code 1.

use clap::Parser;
use flipgc_jvmlike::gcbench;
use flipgc_jvmlike::object::Jvm;
use flipgc_stress::cli;
use std::process::ExitCode;

/// GCBench on the class-based VM: long-lived data plus short-lived trees.
#[derive(Debug, Parser)]
#[command(name = "jvmlike-gcbench", version)]
struct Args {
    /// Depth of the stretch tree (also sets the work per depth).
    #[arg(default_value_t = 22)]
    stretch: u32,
    /// Depth of the long-lived tree.
    #[arg(default_value_t = 18)]
    long_lived: u32,
    /// Doubles in the long-lived array.
    #[arg(default_value_t = 500_000)]
    array_size: usize,
    /// Shallowest short-lived trees.
    #[arg(default_value_t = 4)]
    min_depth: u32,
    /// Deepest short-lived trees (depths step by 2).
    #[arg(default_value_t = 20)]
    max_depth: u32,
    /// Depth sweeps (the long-lived data is built once and checked after each).
    #[arg(default_value_t = 8)]
    rounds: u32,
    /// Threads, each running the whole program with its own mutator.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    #[command(flatten)]
    heap: cli::HeapArgs,
}

fn main() -> ExitCode {
    cli::init_tracing();
    let args = Args::parse();
    let params = gcbench::Params {
        stretch: args.stretch,
        long_lived: args.long_lived,
        array_size: args.array_size,
        min_depth: args.min_depth,
        max_depth: args.max_depth,
        rounds: args.rounds,
        threads: args.threads,
    };
    let built = Jvm::with_heap(args.heap.config(1 << 30))
        .map_err(|e| e.to_string())
        .and_then(|(heap, jvm)| Ok((gcbench::load(&jvm)?, heap)));
    let (types, heap) = match built {
        Ok(b) => b,
        Err(e) => {
            eprintln!("jvmlike-gcbench: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = gcbench::run(&heap, &types, &params);
    cli::finish("jvmlike-gcbench", &heap, &args.heap, result)
}
