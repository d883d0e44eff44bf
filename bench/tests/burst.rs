//! The cancel storm, shortened: every set-up cancels every order, and each reaches the venue
//! and is answered.

use bench::burst::{run, Scenario};

#[test]
fn every_storm_cancels_every_order() {
    for scenario in Scenario::ALL {
        // 12 orders: two windows of single cancels at 10/s, one batch-cancel.
        let r = run(scenario, 12).expect("storm runs");
        assert_eq!(r.refused, 0, "{scenario:?}");
        assert!(
            r.at_venue.is_some(),
            "{scenario:?}: the venue applied every cancel"
        );
        let (first, last) = (
            r.first_answer.expect("first answer"),
            r.last_answer.expect("last answer"),
        );
        assert!(first <= last, "{scenario:?}: {first:?} {last:?}");
    }
}
