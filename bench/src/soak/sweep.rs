//! The soak as a sweep: several seeds and concurrency levels (sessions 1-16, windows 1-64, one
//! session with a window of 64 on a single symbol so that fills, cancels and replaces race on
//! the same orders), every fault on in every run (exchange drops, duplicated and reordered
//! pushes, outcome-unknown replies, delayed replies and pushes, strategy drops, one gateway
//! SIGKILL + restart). One line per run, then a total.

use std::path::Path;
use std::time::{Duration, Instant};

use codec::Decimal;

use super::{SoakOptions, SoakOutcome};

/// Which set of configurations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SweepSize {
    /// 12 configurations, about 25 000 orders (`./scripts/soak.sh --release --sweep full`).
    Full,
    /// 2 configurations for the test command: 4 × 16 and 8 × 32.
    Short,
}

/// One configuration: (seed, sessions, window, symbols (0 = all), orders).
type Config = (u64, usize, usize, usize, u64);

const FULL: [Config; 12] = [
    (101, 1, 1, 0, 600),
    (102, 1, 64, 1, 3_000),
    (103, 2, 8, 0, 1_500),
    (104, 4, 16, 0, 2_000),
    (20_261_124, 8, 32, 0, 3_000),
    (106, 16, 4, 0, 2_000),
    (107, 16, 64, 0, 3_000),
    (108, 3, 48, 1, 2_000),
    (109, 12, 24, 0, 2_000),
    (110, 6, 2, 0, 1_000),
    (111, 16, 16, 1, 2_000),
    (112, 8, 64, 0, 2_500),
];

const SHORT: [Config; 2] = [(7, 4, 16, 0, 1_500), (20_261_124, 8, 32, 0, 2_000)];

/// The runs of a sweep of `size`, each with its own work directory under `base.work_dir` and
/// fault counts in proportion to its orders (an exchange drop every 200 orders, every 100 in
/// the short sweep; a strategy drop every 1 000, at least 2).
/// `seed_offset` is added to every run's seed (another set of order mixes and fault timings).
pub fn configurations(size: SweepSize, base: &SoakOptions, seed_offset: u64) -> Vec<SoakOptions> {
    let (set, orders_per_drop): (&[Config], u64) = match size {
        SweepSize::Full => (&FULL, 200),
        SweepSize::Short => (&SHORT, 100),
    };
    set.iter()
        .enumerate()
        .map(
            |(i, &(seed, sessions, window, symbols, orders))| SoakOptions {
                orders,
                sessions,
                window,
                symbols,
                drops: (orders / orders_per_drop).max(5),
                strategy_drops: (orders / 1_000).max(2),
                kill: true,
                seed: seed.wrapping_add(seed_offset),
                work_dir: run_dir(&base.work_dir, i + 1),
                ..base.clone()
            },
        )
        .collect()
}

/// One line describing a run (or why it could not run).
pub fn line(n: usize, o: &SoakOptions, r: &Result<SoakOutcome, String>) -> String {
    let head = format!(
        "run {n:>2}: seed {:>8}, {:>2} sessions × window {:>2}, {} symbol(s)",
        o.seed,
        o.sessions,
        o.window,
        if o.symbols == 0 {
            "all".to_owned()
        } else {
            o.symbols.to_string()
        }
    );
    match r {
        Err(e) => format!("{head}: could not run: {e}"),
        Ok(out) => {
            let v = &out.verdict;
            format!(
                "{head}: {:>5} accepted, {:>3} drops, {} kill, {:>2} strategy drops; {} different, {} lost, {} repeated, {} repeated clientOids, {} unanswered amends, fills {}; {:.1} s: {}",
                out.accepted,
                out.drops,
                out.kills,
                out.strategy.own_drops,
                v.different,
                v.reports_missing,
                out.strategy.repeated,
                out.exchange_duplicates,
                out.strategy.amends_unanswered_count,
                if v.fills_equal() { "equal" } else { "DIFFERENT" },
                out.elapsed.as_secs_f64(),
                if out.passed() { "PASS" } else { "FAIL" }
            )
        }
    }
}

/// Runs every configuration of `size` (see [`configurations`]), printing a line per run (and
/// the whole report of a failed one) and a total. Returns true when every run passed.
pub fn run(size: SweepSize, base: &SoakOptions, seed_offset: u64) -> bool {
    let started = Instant::now();
    let runs = configurations(size, base, seed_offset);
    let (mut accepted, mut different, mut lost, mut repeated, mut dups) = (0, 0, 0, 0, 0);
    let mut unanswered = 0;
    let (mut passed, mut fills_equal) = (0usize, 0usize);
    let mut filled = Decimal::ZERO;
    for (i, o) in runs.iter().enumerate() {
        let r = super::run(o);
        println!("{}", line(i + 1, o, &r));
        if let Ok(out) = &r {
            accepted += out.accepted;
            different += out.verdict.different;
            lost += out.verdict.reports_missing;
            repeated += out.strategy.repeated;
            dups += out.exchange_duplicates;
            unanswered += out.strategy.amends_unanswered_count;
            filled = filled
                .checked_add(out.verdict.filled_reported)
                .unwrap_or(filled);
            fills_equal += usize::from(out.verdict.fills_equal());
            if out.passed() {
                passed += 1;
            } else {
                super::print(out);
            }
        }
    }
    let all = passed == runs.len();
    println!(
        "sweep: {} runs, {accepted} orders accepted, {different} different, {lost} lost, {repeated} repeated, {dups} repeated clientOids, {unanswered} unanswered amends, fills equal in {fills_equal}/{} runs (Σ LastQty {}), {:.1?}: {}",
        runs.len(),
        runs.len(),
        filled.normalized(),
        Duration::from_secs(started.elapsed().as_secs()),
        if all { "PASS" } else { "FAIL" }
    );
    all
}

/// The work directory of run `n` (1-based) of a sweep based in `dir`.
pub fn run_dir(dir: &Path, n: usize) -> std::path::PathBuf {
    dir.join(format!("run-{n}"))
}
