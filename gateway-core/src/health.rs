//! Readiness: whether the gateway can take orders now, as a pure function of the states the
//! shell reports (the `/readyz` answer of the metrics endpoint).
//!
//! Ready means: every account's subscribed private WebSocket is logged in and, after a
//! reconnect, reconciled against REST (an account whose link is not is answered NotApplied,
//! `docs/behaviour.md`); crash recovery (journal restore and its reconciliation) is done; and
//! the strategy listener accepts sessions; and no session's journal is failing (a storage
//! fault: `crate::journal::durability`).

use crate::journal::durability::{JournalOp, StorageFault};

/// Where an account's subscribed (primary) private WebSocket stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum LinkPhase {
    /// Not logged in: connecting at start-up, or down and reconnecting.
    Down = 0,
    /// Logged in and resubscribed after a drop; reconciling the account against REST (its
    /// requests are still answered NotApplied).
    Reconciling = 1,
    /// Logged in, subscribed and reconciled: the account takes orders.
    Up = 2,
}

impl LinkPhase {
    /// The phase of a stored `u8` ([`LinkPhase::Down`] for an unknown value).
    pub const fn from_u8(v: u8) -> LinkPhase {
        match v {
            2 => LinkPhase::Up,
            1 => LinkPhase::Reconciling,
            _ => LinkPhase::Down,
        }
    }

    /// Short name (`down`, `reconciling`, `up`), e.g. for a metric label.
    pub const fn name(self) -> &'static str {
        match self {
            LinkPhase::Down => "down",
            LinkPhase::Reconciling => "reconciling",
            LinkPhase::Up => "up",
        }
    }
}

/// What readiness is decided from.
#[derive(Debug, Clone, Copy)]
pub struct ReadinessInputs<'a> {
    /// Each account's primary link, by account index, with the account's name.
    pub links: &'a [(&'a str, LinkPhase)],
    /// Crash recovery (journal restore and the reconciliation after it) is running.
    pub restoring: bool,
    /// The strategy listener is open and sessions are accepted (false before start-up ends and
    /// once shutdown begins).
    pub accepting: bool,
    /// A session whose journal is failing (storage fault: new risk refused, its messages
    /// held), with the fault and the operation that failed; the first found.
    pub journal_failing: Option<(u64, StorageFault, JournalOp)>,
}

/// Why the gateway is not ready (the first cause found, in the order of the variants).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotReady<'a> {
    /// This account's link is not logged in.
    LinkDown(&'a str),
    /// This account's link is back and being reconciled.
    Reconciling(&'a str),
    /// Crash recovery is running.
    Restoring,
    /// Sessions are not accepted (starting or stopping).
    NotAccepting,
    /// This session's journal fails (session, fault, operation).
    JournalFailing(u64, StorageFault, JournalOp),
}

impl std::fmt::Display for NotReady<'_> {
    /// One line, e.g. `exchange link down (account main)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotReady::LinkDown(a) => write!(f, "exchange link down (account {a})"),
            NotReady::Reconciling(a) => write!(f, "reconciling (account {a})"),
            NotReady::Restoring => f.write_str("restoring sessions from the journal"),
            NotReady::NotAccepting => f.write_str("not accepting sessions"),
            NotReady::JournalFailing(s, fault, op) => write!(
                f,
                "journal failing (session {s}: {} on {})",
                fault.label(),
                op.label()
            ),
        }
    }
}

/// `Ok(())` when ready, else the first reason it is not: a link down, then a link
/// reconciling, then crash recovery, then the listener. No accounts at all is not ready
/// (`NotAccepting` unless the listener is also open, then ready: there is nothing to wait for).
pub fn readiness<'a>(inputs: &ReadinessInputs<'a>) -> Result<(), NotReady<'a>> {
    if let Some((name, _)) = inputs.links.iter().find(|(_, p)| *p == LinkPhase::Down) {
        return Err(NotReady::LinkDown(name));
    }
    if let Some((name, _)) = inputs
        .links
        .iter()
        .find(|(_, p)| *p == LinkPhase::Reconciling)
    {
        return Err(NotReady::Reconciling(name));
    }
    if inputs.restoring {
        return Err(NotReady::Restoring);
    }
    if !inputs.accepting {
        return Err(NotReady::NotAccepting);
    }
    if let Some((s, fault, op)) = inputs.journal_failing {
        return Err(NotReady::JournalFailing(s, fault, op));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(links: &[(&str, LinkPhase)], restoring: bool, accepting: bool) -> Result<(), String> {
        readiness(&ReadinessInputs {
            links,
            restoring,
            accepting,
            journal_failing: None,
        })
        .map_err(|e| e.to_string())
    }

    #[test]
    fn first_cause_wins() {
        use LinkPhase::*;
        assert_eq!(check(&[("main", Up), ("sub", Up)], false, true), Ok(()));
        assert_eq!(
            check(&[("main", Reconciling), ("sub", Down)], true, false),
            Err("exchange link down (account sub)".into())
        );
        assert_eq!(
            check(&[("main", Up), ("sub", Reconciling)], true, false),
            Err("reconciling (account sub)".into())
        );
        assert_eq!(
            check(&[("main", Up)], true, false),
            Err("restoring sessions from the journal".into())
        );
        assert_eq!(
            check(&[("main", Up)], false, false),
            Err("not accepting sessions".into())
        );
        assert_eq!(check(&[], false, true), Ok(()));
    }

    #[test]
    fn a_failing_journal_is_not_ready_and_named() {
        let failing = |journal_failing| {
            readiness(&ReadinessInputs {
                links: &[("main", LinkPhase::Up)],
                restoring: false,
                accepting: true,
                journal_failing,
            })
            .map_err(|e| e.to_string())
        };
        assert_eq!(failing(None), Ok(()));
        assert_eq!(
            failing(Some((7, StorageFault::NoSpace, JournalOp::Append))),
            Err("journal failing (session 7: ENOSPC on append)".into())
        );
    }

    #[test]
    fn phase_round_trip() {
        for p in [LinkPhase::Down, LinkPhase::Reconciling, LinkPhase::Up] {
            assert_eq!(LinkPhase::from_u8(p as u8), p);
        }
        assert_eq!(LinkPhase::from_u8(77), LinkPhase::Down);
    }
}
