//! The main job's flow, shortened: simulator + gateway + demo strategy end to end, every order
//! ending as expected, every report type of the flow present.

use bench::demo::{run, DemoOptions};

#[test]
fn short_demo_ends_every_order_as_expected() {
    let outcome = run(&DemoOptions {
        orders: 120,
        relay_round_trips: 200,
        ..DemoOptions::default()
    })
    .expect("demo runs");
    assert!(outcome.unexpected.is_empty(), "{:?}", outcome.unexpected);
    assert!(outcome.orders_sent >= 120);
    for kind in ["New", "Replaced", "Canceled", "Fill"] {
        assert!(
            outcome.reports.get(kind).copied().unwrap_or(0) > 0,
            "no {kind} report: {:?}",
            outcome.reports
        );
    }
    assert_eq!(
        outcome.reports.get("Rejected"),
        None,
        "{:?}",
        outcome.reports
    );
    let rt = outcome.legs.get(gateway::metrics::Leg::RoundTrip);
    assert_eq!(rt.len() as usize, outcome.requests_sent);
    assert_eq!(outcome.relay.map(|h| h.len()), Some(200));
    // The floor: the same TLS WebSocket to the same simulator, every round trip back.
    assert_eq!(outcome.floor.map(|h| h.len()), Some(200));
    // The gateway's round trips of the requests the floor also sends: a place and a cancel
    // per resting order (one in three orders of the flow or more).
    assert!(
        outcome.like_floor.len() as usize >= 2 * 120 / 4,
        "{}",
        outcome.like_floor.len()
    );
}
