//! `load`: the open-loop load generator. Starts the venue simulator and the gateway, steps the
//! aggregate request rate up until p99 (from the intended send time) or loss breaks the bound,
//! prints the latency-vs-throughput table, the maximum sustainable rate and the figures at 10 %,
//! 50 % and 90 % of it (see `bench/src/load.rs`).

use std::time::Duration;

use bench::load::{Arrivals, LoadOptions};
use clap::{Parser, ValueEnum};
use gateway::idle::IdleStrategy;

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ArrivalsArg {
    /// Evenly spaced arrivals.
    Constant,
    /// Exponential gaps (Poisson process).
    Poisson,
}

/// Command-line options.
#[derive(Debug, Parser)]
#[command(
    name = "load",
    about = "Open-loop load through gateway + simulator: latency vs throughput"
)]
struct Args {
    /// Strategy sessions sending in parallel.
    #[arg(long, default_value_t = 4)]
    sessions: usize,
    /// Arrival process.
    #[arg(long, value_enum, default_value = "constant")]
    arrivals: ArrivalsArg,
    /// Run these rates (requests/s, comma-separated) instead of stepping up. Each must be
    /// carried whole: a request lost or refused at one of them (or at the floor) makes the
    /// run exit 1 (after the tables).
    #[arg(long, value_delimiter = ',')]
    rates: Vec<u64>,
    /// First rate of the step-up (requests/s).
    #[arg(long, default_value_t = 2_000)]
    start_rate: u64,
    /// Factor between steps.
    #[arg(long, default_value_t = 1.5)]
    step_factor: f64,
    /// Highest rate tried (requests/s).
    #[arg(long, default_value_t = 200_000)]
    max_rate: u64,
    /// Seconds per step.
    #[arg(long, default_value_t = 3.0)]
    step_secs: f64,
    /// p99 bound in µs (a step holds when its p99 is within it and nothing is lost or refused).
    #[arg(long, default_value_t = 1_000)]
    p99_bound_us: u64,
    /// Seed of the Poisson arrivals.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Busy-poll the gateway's io and tracker threads.
    #[arg(long)]
    spin: bool,
    /// Pin the gateway's io thread to core 0 and its tracker to core 1.
    #[arg(long)]
    pin: bool,
    /// Where the gateway's tracker runs: on its own thread (each hand-off may wake it) or on
    /// the io thread (no hand-off): `[tracker] placement`.
    #[arg(long, value_enum, default_value_t = bench::rig::TrackerArg::IoThread)]
    tracker: bench::rig::TrackerArg,
    /// The sender spins through gaps shorter than this (µs) instead of sleeping; 0 = always
    /// sleep (its lateness shows as `lag`).
    #[arg(long, default_value_t = 0)]
    spin_below_us: u64,
    /// Private WebSocket connections the gateway opens to the venue. New orders spread over
    /// them (the one with the most rate tokens left, ties in turn: on the unlimited tier of
    /// this bench, round robin); an order's modify and cancel follow it to the connection its
    /// place went on (`gateway_core::budget`). All of them are served by the gateway's one io
    /// thread.
    #[arg(long, default_value_t = 1)]
    connections: usize,
    /// Pin the sender thread to this core (with cores to spare: on 2 vCPUs it takes one from
    /// the gateway and the simulator).
    #[arg(long)]
    sender_core: Option<usize>,
    /// Open orders the gateway's tracker table holds before it first grows (`[tracker]
    /// order_capacity`; default 16384; ended orders are evicted after the retention window,
    /// `[tracker] retention_ms` / `retention_orders`): each growth moves the table on its
    /// thread.
    #[arg(long)]
    order_capacity: Option<usize>,
    /// The simulator's venue: `full` (matching, the default) or `fast` (every trade op
    /// answered at once from the same reply and push shapes, nothing matched: the gateway is
    /// what is measured).
    #[arg(long, value_enum, default_value = "full")]
    venue: sim::config::VenueMode,
    /// Skip the floor (the same rates through a relay that pays the same TLS WebSocket hop to
    /// the same simulator with frames rendered from templates, and the gateway / floor ratios).
    #[arg(long)]
    no_floor: bool,
    /// Write latency vs throughput (SVG) here, and the percentile distributions at 10/50/90 %
    /// of the maximum next to it (`FILE-percentiles.svg`).
    #[arg(long)]
    plot: Option<std::path::PathBuf>,
}

fn main() {
    bench::init_tracing("warn");
    let a = Args::parse();
    if !(a.step_secs > 0.0 && a.step_secs <= 600.0) || a.step_factor <= 1.0 {
        eprintln!("load: --step-secs must be in (0, 600] and --step-factor above 1");
        std::process::exit(2);
    }
    let plot = a.plot.clone();
    let opts = LoadOptions {
        sessions: a.sessions,
        arrivals: match a.arrivals {
            ArrivalsArg::Constant => Arrivals::Constant,
            ArrivalsArg::Poisson => Arrivals::Poisson,
        },
        rates: a.rates,
        start_rate: a.start_rate,
        step_factor: a.step_factor,
        max_rate: a.max_rate,
        step: Duration::from_secs_f64(a.step_secs),
        p99_bound: Duration::from_micros(a.p99_bound_us),
        seed: a.seed,
        idle: if a.spin {
            IdleStrategy::Spin
        } else {
            IdleStrategy::Park
        },
        pin: a.pin,
        placement: a.tracker.placement(),
        spin_below: Duration::from_micros(a.spin_below_us),
        sender_core: a.sender_core,
        connections: a.connections,
        order_capacity: a.order_capacity,
        venue: a.venue,
        floor: !a.no_floor,
    };
    bench::load::print_header(&opts);
    match bench::load::run(&opts) {
        Ok((outcome, report)) => {
            bench::load::print_summary(&outcome);
            println!();
            println!("Gateway legs over the whole run (µs):");
            println!("{}", report.legs.table());
            if let Some(path) = &plot {
                match bench::load::plot(&outcome, &opts, path) {
                    Ok(files) => println!("plots: {files}"),
                    Err(e) => eprintln!("load: {e}"),
                }
            }
            let failed = bench::load::failures(&outcome, &opts);
            if !failed.is_empty() {
                eprintln!("load FAILED: {}", failed.join("; "));
                std::process::exit(1);
            }
        }
        Err(e) => {
            eprintln!("load failed: {e}");
            std::process::exit(2);
        }
    }
}
