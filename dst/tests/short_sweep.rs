//! The test command's fixed budget of the deterministic simulation: seeds 0..600 (a few tens of
//! thousands of simulated orders under every fault kind) with no violation. The long run is
//! `cargo run --release -p dst -- --seeds 1000000` (docs/testing.md, "Deterministic
//! simulation").

use dst::faults::Fault;
use dst::sweep::sweep;
use dst::RunConfig;

#[test]
fn six_hundred_seeds_break_no_invariant() {
    // Storage faults (journal appends failing) are on by default, as in the long sweep.
    let shape = RunConfig::new(0);
    assert!(shape.storage_faults);
    let s = sweep(0, 600, 2, shape, &|_| {});
    for r in &s.failures {
        eprintln!(
            "seed {} failed (replay: cargo run --release -p dst -- --seed {} --trace):",
            r.seed, r.seed
        );
        for v in r.violations.0.iter().take(5) {
            eprintln!("  {v}");
        }
    }
    println!(
        "{} seeds, {} orders, {} cancels/replaces, {} faults ({}), {:.1} s",
        s.seeds,
        s.orders,
        s.amends,
        s.faults.total(),
        s.faults.describe(),
        s.wall_s
    );
    assert_eq!(s.seeds, 600);
    assert_eq!(s.failed, 0, "{} of 600 seeds broke an invariant", s.failed);
    // Every fault kind fired somewhere in the budget (a kind that never fires tests nothing).
    for (f, n) in Fault::ALL.iter().zip(s.faults.0) {
        assert!(n > 0, "fault {} never injected", f.name());
    }
}
