//! `demo`: the main job. Starts the venue simulator (TLS), the gateway and a demo strategy,
//! sends the order flow, prints the summary and latency tables; exits 1 if any order ends in a
//! state the flow did not expect.

use clap::Parser;
use gateway::idle::IdleStrategy;

/// Command-line options.
#[derive(Debug, Parser)]
#[command(
    name = "demo",
    about = "Simulator + gateway + demo strategy, with latency tables"
)]
struct Args {
    /// Orders (NewOrderSingle) to send; modifies and cancels come on top.
    #[arg(long, default_value_t = 10_000)]
    orders: usize,
    /// Busy-poll the gateway's io and tracker threads (uses both cores).
    #[arg(long)]
    spin: bool,
    /// Pin the gateway's io thread to core 0 and its tracker to core 1.
    #[arg(long)]
    pin: bool,
    /// Where the gateway's tracker runs: on its own thread (each hand-off may wake it) or on
    /// the io thread (no hand-off): `[tracker] placement`.
    #[arg(long, value_enum, default_value_t = bench::rig::TrackerArg::IoThread)]
    tracker: bench::rig::TrackerArg,
    /// Round trips of each baseline, the floor (the same TLS WebSocket hop, frames rendered
    /// before the run) and the raw TCP relay (0 skips both).
    #[arg(long, default_value_t = 20_000)]
    relay: usize,
    /// Write an HdrHistogram interval log (V2) here.
    #[arg(long)]
    hlog: Option<std::path::PathBuf>,
    /// Print progress and periodic latency tables.
    #[arg(long, short)]
    verbose: bool,
    /// Write the percentile distribution of every leg, the floor and the raw relay (SVG) here.
    #[arg(long)]
    plot: Option<std::path::PathBuf>,
    /// The gateway's metrics endpoint (/metrics, /healthz, /readyz), ip:port; "off" turns it
    /// off. A taken port falls back to a free one.
    #[arg(long, default_value = "127.0.0.1:9184")]
    metrics: String,
    /// Write the gateway's Prometheus exposition at the end of the flow to this file.
    #[arg(long)]
    metrics_out: Option<std::path::PathBuf>,
}

fn main() {
    bench::init_tracing("warn");
    let args = Args::parse();
    let metrics_listen = match args.metrics.as_str() {
        "off" | "" => None,
        a => match a.parse() {
            Ok(addr) => Some(addr),
            Err(e) => {
                eprintln!("demo: --metrics {a:?}: {e}");
                std::process::exit(2);
            }
        },
    };
    let opts = bench::demo::DemoOptions {
        orders: args.orders,
        idle: if args.spin {
            IdleStrategy::Spin
        } else {
            IdleStrategy::Park
        },
        pin: args.pin,
        placement: args.tracker.placement(),
        relay_round_trips: args.relay,
        hlog_path: args.hlog.clone(),
        verbose: args.verbose,
        metrics_listen,
        metrics_out: args.metrics_out.clone(),
    };
    match bench::demo::run(&opts) {
        Ok(outcome) => {
            bench::demo::print(&outcome);
            if let Some(path) = &args.plot {
                match bench::demo::plot(&outcome, path) {
                    Ok(()) => println!("plot: {}", path.display()),
                    Err(e) => eprintln!("demo: {e}"),
                }
            }
            if !outcome.unexpected.is_empty() {
                std::process::exit(1);
            }
        }
        Err(e) => {
            eprintln!("demo failed: {e}");
            std::process::exit(2);
        }
    }
}
