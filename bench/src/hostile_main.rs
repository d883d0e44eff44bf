//! `hostile`: the real `gateway` binary under hostile load on its strategy port (idle
//! connection bursts, memory per held connection, a flooding session next to a well-behaved
//! one, descriptor exhaustion); prints one table per section and a summary (see
//! `bench/src/hostile.rs`). Needs `bitget-sim` and `gateway` built next to it:
//! `cargo build --release -p sim --bin bitget-sim -p gateway --bin gateway -p bench --bin hostile`.

use std::path::PathBuf;
use std::process::ExitCode;

use bench::hostile::{raise_own_nofile, run, HostileOptions, ProbeMode, Section};
use clap::Parser;

/// Command-line options.
#[derive(Debug, Parser)]
#[command(
    name = "hostile",
    about = "Gateway under hostile load: admission, memory, fairness, descriptor exhaustion"
)]
struct Args {
    /// Idle connections opened at once (admission and memory sections).
    #[arg(long, default_value_t = 5000)]
    burst: usize,
    /// Memory rounds (open the burst, close it, wait 2 s).
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// NewOrderSingle the flooding session writes.
    #[arg(long, default_value_t = 100_000)]
    flood: u64,
    /// Seconds the idle connections are held under `ulimit -n 128`.
    #[arg(long, default_value_t = 10)]
    exhaust_secs: u64,
    /// Idle connections opened under `ulimit -n 128`.
    #[arg(long, default_value_t = 200)]
    exhaust_conns: usize,
    /// Requests of the well-behaved session before and after the flood (each).
    #[arg(long, default_value_t = 2000)]
    probe_requests: usize,
    /// Least time between two requests of the well-behaved session, µs.
    #[arg(long, default_value_t = 500)]
    probe_interval_us: u64,
    /// Fairness: what the well-behaved session asks. `gateway`: a NewOrderSingle for a symbol
    /// the exchange does not list, answered by the gateway's io thread itself (Rejected,
    /// UnknownSymbol); `exchange`: a limit buy and its cancel through the simulator; `both`.
    #[arg(long, value_enum, default_value_t = ProbeMode::Gateway)]
    probe: ProbeMode,
    /// Place and cancel orders per account per 1.1 s the fairness gateway's rate budget allows.
    #[arg(long, default_value_t = 2000)]
    rate: u32,
    /// Run only this section.
    #[arg(long, value_enum)]
    only: Option<Section>,
    /// Directory for configurations and logs (kept); default a temporary one, removed at the end.
    #[arg(long)]
    work_dir: Option<PathBuf>,
}

fn main() -> ExitCode {
    bench::init_tracing("warn");
    let args = Args::parse();
    match raise_own_nofile() {
        Ok(n) if (n as usize) < args.burst + 64 => eprintln!(
            "hostile: only {n} descriptors for this process; part of the burst of {} will fail",
            args.burst
        ),
        Ok(_) => {}
        Err(e) => eprintln!("hostile: {e}"),
    }
    let temp = args.work_dir.is_none();
    let work_dir = args.work_dir.unwrap_or_else(|| {
        std::env::temp_dir().join(format!("bgw-hostile-{}", std::process::id()))
    });
    let opts = HostileOptions {
        burst: args.burst,
        rounds: args.rounds,
        flood: args.flood,
        exhaust_secs: args.exhaust_secs,
        exhaust_conns: args.exhaust_conns,
        probe_requests: args.probe_requests,
        probe_interval_us: args.probe_interval_us,
        probe: args.probe,
        rate: args.rate,
        only: args.only,
        work_dir: work_dir.clone(),
    };
    let result = run(&opts);
    if temp && result.is_ok() {
        let _ = std::fs::remove_dir_all(&work_dir);
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hostile: {e} (logs in {})", work_dir.display());
            ExitCode::FAILURE
        }
    }
}
