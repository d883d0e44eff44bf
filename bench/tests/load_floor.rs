//! The open-loop load generator, shortened: two rates through the gateway, then the same
//! rates through the floor (the same TLS WebSocket hop to the same simulator, no gateway);
//! every request of both answered.

use std::time::Duration;

use bench::load::{run, LoadOptions};

#[test]
fn the_gateway_and_the_floor_answer_every_request_at_the_same_rates() {
    let opts = LoadOptions {
        sessions: 2,
        rates: vec![200, 400],
        step: Duration::from_millis(500),
        p99_bound: Duration::from_secs(1),
        ..LoadOptions::default()
    };
    let (outcome, _report) = run(&opts).expect("load runs");
    assert_eq!(outcome.steps.len(), 2);
    assert_eq!(outcome.floor.len(), 2, "the floor ran each rate");
    for (g, f) in outcome.steps.iter().zip(&outcome.floor) {
        assert_eq!(g.rate, f.rate);
        assert!(g.sent > 0 && f.sent > 0, "{} / {}", g.sent, f.sent);
        assert_eq!((g.lost, g.rejected), (0, 0), "gateway at {}/s", g.rate);
        assert_eq!((f.lost, f.rejected), (0, 0), "floor at {}/s", f.rate);
        assert_eq!(f.latency.len(), f.sent);
    }
}
