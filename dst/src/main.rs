//! `dst`: runs the deterministic simulation over a range of seeds, or replays one.
//!
//! ```text
//! dst --seeds 1000                 # seeds 0..1000 on every core, prints the summary
//! dst --seeds 1000000 --first 5    # the long run
//! dst --seed 42 --trace            # one seed again, its trace hash, the events of what broke
//! ```

use clap::Parser;
use dst::faults::Fault;
use dst::sweep::{sweep_until, SweepSummary};
use dst::{run, RunConfig, RunResult};

/// Deterministic simulation of the gateway (issue 25).
#[derive(Parser, Debug)]
#[command(name = "dst")]
struct Args {
    /// Seeds to run (from `--first`).
    #[arg(long, default_value_t = 100)]
    seeds: u64,
    /// First seed.
    #[arg(long, default_value_t = 0)]
    first: u64,
    /// Run only this seed (a replay) and print its trace hash and violations.
    #[arg(long)]
    seed: Option<u64>,
    /// With `--seed`: print the events that concern each broken order (all events with
    /// `--trace-all`).
    #[arg(long)]
    trace: bool,
    /// With `--seed --trace`: print every event.
    #[arg(long)]
    trace_all: bool,
    /// NewOrderSingles per strategy session.
    #[arg(long, default_value_t = 40)]
    orders: u64,
    /// Strategy sessions (0: drawn from each seed, 1..=3).
    #[arg(long, default_value_t = 0)]
    sessions: usize,
    /// Window of unanswered requests per session (0: drawn from each seed, 1..=16).
    #[arg(long, default_value_t = 0)]
    window: usize,
    /// Run without faults.
    #[arg(long)]
    no_faults: bool,
    /// Threads (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// Start no seed once one has failed (to measure the seeds and the time a bug takes to
    /// find; the seeds already running finish).
    #[arg(long)]
    stop_at_first: bool,
    /// Draw no journal failures (by default each seed's storage stream draws a full or failing
    /// disk: ENOSPC / EIO on the next appends, some cut short; issue 37).
    #[arg(long)]
    no_storage_faults: bool,
    /// The gateway as before issue 37: a failed journal append is ignored (the message still
    /// goes out, new orders are taken). A sweep finds what that breaks.
    #[arg(long)]
    legacy_journal_errors: bool,
}

fn shape(a: &Args, seed: u64) -> RunConfig {
    RunConfig {
        seed,
        orders_per_session: a.orders,
        sessions: a.sessions,
        window: a.window,
        faults: !a.no_faults,
        keep_trace: a.trace || a.trace_all,
        storage_faults: !a.no_storage_faults,
        legacy_journal_errors: a.legacy_journal_errors,
    }
}

fn replay_command(a: &Args, r: &RunResult) -> String {
    let mut c = format!(
        "cargo run --release -p dst -- --seed {} --orders {} --trace",
        r.seed, a.orders
    );
    if a.sessions != 0 {
        c.push_str(&format!(" --sessions {}", a.sessions));
    }
    if a.window != 0 {
        c.push_str(&format!(" --window {}", a.window));
    }
    if a.no_faults {
        c.push_str(" --no-faults");
    }
    if a.no_storage_faults {
        c.push_str(" --no-storage-faults");
    }
    if a.legacy_journal_errors {
        c.push_str(" --legacy-journal-errors");
    }
    c
}

fn print_failure(a: &Args, r: &RunResult) {
    println!(
        "FAIL seed {} ({} sessions, window {}, faults {}): {} violations; replay: {}",
        r.seed,
        r.sessions,
        r.window,
        r.faults.describe(),
        r.violations.0.len(),
        replay_command(a, r)
    );
    for v in r.violations.0.iter().take(5) {
        println!("  {v}");
    }
}

fn summary_line(s: &SweepSummary) -> String {
    format!(
        "{} seeds in {:.1} s ({:.0} seeds/s), {} orders + {} cancels/replaces ({:.0} orders/s), {:.0} s simulated, {} events, {} faults, {} failing seeds",
        s.seeds,
        s.wall_s,
        s.seeds as f64 / s.wall_s.max(1e-9),
        s.orders,
        s.amends,
        s.orders as f64 / s.wall_s.max(1e-9),
        s.sim_ns as f64 / 1e9,
        s.events,
        s.faults.total(),
        s.failed
    )
}

fn main() {
    let a = Args::parse();
    if let Some(seed) = a.seed {
        let r = run(shape(&a, seed));
        println!(
            "seed {seed}: trace {} ({} events, {:.3} s simulated), {} sessions, window {}, {} orders, {} cancels/replaces, faults {}",
            r.trace_hash,
            r.events,
            r.sim_ns as f64 / 1e9,
            r.sessions,
            r.window,
            r.orders,
            r.amends,
            r.faults.describe()
        );
        if a.trace_all {
            for l in &r.lines {
                println!("{l}");
            }
        } else if a.trace {
            for v in &r.violations.0 {
                println!("--- {v}");
                if v.root != 0 {
                    let oid = gateway_core::ids::ClientOid::in_epoch(v.session_id, 0, v.root);
                    let tag = format!(" s{} ", v.session_id.saturating_sub(100));
                    let oid_quoted = format!("\"{}\"", oid.as_str());
                    let cl = format!("cl_ord_id: {},", v.root);
                    for l in r.lines.iter().filter(|l| {
                        l.contains(&oid_quoted)
                            || (l.contains(&tag) && l.contains(&cl))
                            || l.contains("fault")
                            || l.contains("gateway:")
                    }) {
                        println!("{l}");
                    }
                }
            }
        }
        if r.violations.is_empty() {
            println!("RESULT: PASS");
        } else {
            print_failure(&a, &r);
            println!("RESULT: FAIL");
            std::process::exit(1);
        }
        return;
    }
    let threads = a.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let s = sweep_until(
        a.first,
        a.seeds,
        threads,
        shape(&a, 0),
        a.stop_at_first,
        &|s| eprintln!("  {}", summary_line(s)),
    );
    println!("{}", summary_line(&s));
    if let (Some(t), Some(r)) = (s.first_failure_s, s.failures.first()) {
        println!(
            "first failure: seed {} ({} seeds from {}), found after {:.1} s",
            r.seed,
            r.seed - a.first + 1,
            a.first,
            t
        );
    }
    let by_kind: Vec<String> = Fault::ALL
        .iter()
        .zip(s.faults.0)
        .map(|(f, n)| format!("{}={n}", f.name()))
        .collect();
    println!("faults by kind: {}", by_kind.join(" "));
    for r in &s.failures {
        print_failure(&a, r);
    }
    if s.failed == 0 {
        println!("RESULT: PASS ({} seeds, 0 violations)", s.seeds);
    } else {
        println!("RESULT: FAIL ({} of {} seeds)", s.failed, s.seeds);
        std::process::exit(1);
    }
}
