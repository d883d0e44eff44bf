//! Where a start-up's time goes (issue 23: a restart with 10 000 open orders under 1 s): the
//! phases from [`super::Gateway::start`] to the strategy listener, measured on the threads that
//! do them, logged once and printed by the `gateway` binary (`gateway: start-up ...`, read by
//! the endurance bench for its restart rows).

use std::fmt;
use std::time::{Duration, Instant};

/// One REST listing of a restart's reconciliation (they run concurrently: their times overlap).
#[derive(Debug, Clone, PartialEq)]
pub struct QueryTiming {
    /// What was listed, e.g. `unfilled USDT-FUTURES`, `history SPOT`, `fills`.
    pub what: String,
    /// Objects (orders or fills) it returned (pages of `PAGE_LIMIT` = 100, the venue's
    /// largest: one request per 100 objects and one more for a short last page).
    pub items: usize,
    /// From its first request to its last page parsed, ms.
    pub ms: f64,
}

/// The phases of one start-up, ms each (0 for a phase that did not run). They follow each other
/// on the io thread, so they add up to `total_ms` (up to rounding).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StartupPhases {
    /// [`super::Gateway::start`] → the io thread opens the journals: the metrics endpoint, the
    /// reporter and the tracker thread started, the io thread's runtime built.
    pub setup_ms: f64,
    /// Every session's journal opened: its newest segment read and folded (checkpoint and the
    /// records after it), and the journal thread started.
    pub journal_ms: f64,
    /// The instruments loaded over REST (TLS connection included).
    pub instruments_ms: f64,
    /// Every account's private WebSockets connected (TCP, TLS, upgrade), logged in and
    /// subscribed.
    pub login_ms: f64,
    /// The io thread's set-up between login and reconciliation: the restored orders handed to
    /// the tracker, the tasks started.
    pub restore_ms: f64,
    /// Crash recovery's reconciliation (0 on a fresh start): every account's REST listings and
    /// the tracker applying them (after restoring the journal's orders, which it does while
    /// the listings are in flight).
    pub reconcile_ms: f64,
    /// The listings of the reconciliation, per account in order.
    pub queries: Vec<QueryTiming>,
    /// Of `reconcile_ms`: the wait for the tracker once every listing was in (restoring the
    /// journal's orders if not done yet, then applying the exchange's state), ms.
    pub apply_ms: f64,
    /// [`super::Gateway::start`] → the strategy listener announced, ms.
    pub total_ms: f64,
}

/// Milliseconds of `d`.
pub(super) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Marks the end of each phase in turn.
#[derive(Debug)]
pub(super) struct PhaseClock {
    start: Instant,
    last: Instant,
}

impl PhaseClock {
    /// A clock whose first phase began at `start`.
    pub(super) fn new(start: Instant) -> PhaseClock {
        PhaseClock { start, last: start }
    }

    /// Ends the current phase: its ms.
    pub(super) fn lap(&mut self) -> f64 {
        let now = Instant::now();
        let d = now.duration_since(self.last);
        self.last = now;
        ms(d)
    }

    /// Since `start`, ms.
    pub(super) fn total(&self) -> f64 {
        ms(self.start.elapsed())
    }
}

impl fmt::Display for StartupPhases {
    /// One line: `412 ms: setup 2, journal 30, instruments 40, login 3, restore 1, reconcile
    /// 330 (unfilled USDT-FUTURES 5000 in 80 ms, ..., tracker 16 ms)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:.0} ms: setup {:.0}, journal {:.0}, instruments {:.0}, login {:.0}, restore {:.0}, reconcile {:.0}",
            self.total_ms,
            self.setup_ms,
            self.journal_ms,
            self.instruments_ms,
            self.login_ms,
            self.restore_ms,
            self.reconcile_ms
        )?;
        if !self.queries.is_empty() {
            f.write_str(" (concurrent:")?;
            for (i, q) in self.queries.iter().enumerate() {
                let sep = if i == 0 { " " } else { ", " };
                write!(f, "{sep}{} {} in {:.0} ms", q.what, q.items, q.ms)?;
            }
            write!(f, "; then tracker {:.0} ms)", self.apply_ms)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_every_phase_and_listing() {
        let p = StartupPhases {
            setup_ms: 1.2,
            journal_ms: 30.4,
            instruments_ms: 40.0,
            login_ms: 3.0,
            restore_ms: 0.6,
            reconcile_ms: 330.0,
            queries: vec![QueryTiming {
                what: "unfilled SPOT".into(),
                items: 5000,
                ms: 80.2,
            }],
            apply_ms: 16.0,
            total_ms: 405.0,
        };
        assert_eq!(
            p.to_string(),
            "405 ms: setup 1, journal 30, instruments 40, login 3, restore 1, reconcile 330 \
             (concurrent: unfilled SPOT 5000 in 80 ms; then tracker 16 ms)"
        );
        let fresh = StartupPhases::default().to_string();
        assert!(fresh.ends_with("reconcile 0"), "{fresh}");
    }
}
