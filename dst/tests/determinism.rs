//! The same seed gives the same run, event for event: two runs of one seed in one process
//! (every `HashMap` with its own random state, so no iteration order can leak into the trace
//! unseen) give the same trace hash; different seeds give different runs.

use dst::faults::{Fault, FaultCounts};
use dst::{run, RunConfig};

/// Seeds 29 and 99 999 crash the gateway (and restart it from its journals) and roll a
/// session over: the same run again includes those.
#[test]
fn one_seed_twice_gives_the_same_trace() {
    let mut all = FaultCounts::default();
    for seed in [7, 29, 1234, 99_999] {
        let a = run(RunConfig::new(seed));
        let b = run(RunConfig::new(seed));
        assert!(a.events > 200, "seed {seed}: {} events only", a.events);
        assert_eq!(a.trace_hash, b.trace_hash, "seed {seed}: two runs differ");
        assert_eq!(a.events, b.events);
        assert_eq!(a.faults, b.faults);
        assert_eq!(a.sim_ns, b.sim_ns);
        all.merge(&a.faults);
    }
    let count = |f: Fault| {
        Fault::ALL
            .iter()
            .position(|x| *x == f)
            .map_or(0, |i| all.0[i])
    };
    assert!(count(Fault::GatewayCrash) > 0, "{}", all.describe());
    assert!(count(Fault::SessionRollover) > 0, "{}", all.describe());
}

#[test]
fn different_seeds_give_different_runs() {
    let a = run(RunConfig::new(1));
    let b = run(RunConfig::new(2));
    assert_ne!(a.trace_hash, b.trace_hash);
}

#[test]
fn faults_off_injects_none_and_faults_on_injects_some() {
    let quiet = run(RunConfig {
        faults: false,
        ..RunConfig::new(3)
    });
    assert_eq!(quiet.faults.total(), 0);
    let mut injected = 0;
    for seed in 0..10 {
        injected += run(RunConfig::new(seed)).faults.total();
    }
    assert!(injected > 0, "ten seeds injected no fault");
}
