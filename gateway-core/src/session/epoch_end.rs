//! The graceful end of a connection whose epoch the gateway ended (a scheduled rollover's
//! Terminate SessionRollover): what the shell's connection does, step by step, until it closes
//! the socket.
//!
//! Closing a TCP socket that still holds unread input makes the kernel send a reset instead of
//! a FIN, and a reset may drop what the peer had not read yet: the frames written just before
//! the Terminate, and the Terminate itself (RFC 1122 4.2.2.13; found by the soak: a Fill and a
//! Canceled numbered a few ms before a rollover never reached a strategy that kept sending).
//! So the connection ends the way TCP ends gracefully: the gateway writes what it queued (the
//! frames and the Terminate), shuts down its write half (a FIN after the Terminate), then reads
//! and discards what the strategy still sends, answering nothing, until the strategy closes its
//! side or [`EPOCH_END_GRACE_MS`] has passed, and only then closes the socket.

/// Longest time a connection ended by the gateway's rollover stays open after its
/// Terminate, in ms: to write what was queued and to read what the strategy still sends until
/// it closes its side. A strategy that keeps the connection open longer has it closed (a reset,
/// if it is still sending).
pub const EPOCH_END_GRACE_MS: u64 = 1_000;

/// What the connection does next (the shell moves the bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EpochEndStep {
    /// Frames queued before the Terminate, or the Terminate, are not all written: write what
    /// the socket takes, and read (and discard) what arrives meanwhile, until `until_ns` at the
    /// latest.
    Flush {
        /// Monotonic ns by which the step ends at the latest.
        until_ns: u64,
    },
    /// Everything queued is written: shut down the write half (the FIN follows the
    /// Terminate). Once.
    ShutdownWrite,
    /// Read and discard what the strategy still sends until it closes its side (end of
    /// stream or an error) or `until_ns`.
    Read {
        /// Monotonic ns by which the step ends at the latest (the grace's end).
        until_ns: u64,
    },
    /// Close the socket: the strategy closed its side after our FIN, or the grace is over.
    Close,
}

/// Re-check period while writes are pending (the socket's writability is not awaited), ns.
const FLUSH_STEP_NS: u64 = 5_000_000;

/// The graceful end of one connection (see the module doc). Sans-I/O: the shell tells it
/// the time, whether output is still unwritten and whether the strategy closed its side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EpochEnd {
    deadline_ns: u64,
    writes_shut: bool,
}

impl EpochEnd {
    /// The end of a connection whose Terminate was queued at monotonic `now_ns`.
    pub fn new(now_ns: u64) -> Self {
        Self::with_grace(now_ns, EPOCH_END_GRACE_MS)
    }

    /// The same steps with a grace of `grace_ms` ms: a connection cut off for its backlog ends
    /// this way too (its Terminate, then a FIN, what it still sends read and discarded), so
    /// that the close does not reset it while it still sends (found by `slow_reader`: a
    /// strategy that kept sending RetransmitRequests lost its Terminate to the reset).
    pub fn with_grace(now_ns: u64, grace_ms: u64) -> Self {
        EpochEnd {
            deadline_ns: now_ns.saturating_add(grace_ms.saturating_mul(1_000_000)),
            writes_shut: false,
        }
    }

    /// Monotonic ns at which the connection is closed whatever happens.
    pub fn deadline_ns(&self) -> u64 {
        self.deadline_ns
    }

    /// The next step at monotonic `now_ns`: `unwritten` when frames queued for the socket
    /// (the Terminate included) are not all written, `peer_closed` once a read gave end of
    /// stream or an error. The strategy closing its side before the FIN is sent does not stop
    /// the writes (it may still read).
    pub fn step(&mut self, now_ns: u64, unwritten: bool, peer_closed: bool) -> EpochEndStep {
        if now_ns >= self.deadline_ns {
            return EpochEndStep::Close;
        }
        if !self.writes_shut {
            if unwritten {
                return EpochEndStep::Flush {
                    until_ns: now_ns.saturating_add(FLUSH_STEP_NS).min(self.deadline_ns),
                };
            }
            self.writes_shut = true;
            return EpochEndStep::ShutdownWrite;
        }
        if peer_closed {
            return EpochEndStep::Close;
        }
        EpochEndStep::Read {
            until_ns: self.deadline_ns,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn writes_first_then_the_fin_then_reads_until_the_strategy_closes() {
        let mut end = EpochEnd::new(10 * MS);
        assert_eq!(end.deadline_ns(), 1_010 * MS);
        assert_eq!(
            end.step(10 * MS, true, false),
            EpochEndStep::Flush { until_ns: 15 * MS }
        );
        // The strategy closing before the FIN does not stop the writes.
        assert_eq!(
            end.step(12 * MS, true, true),
            EpochEndStep::Flush { until_ns: 17 * MS }
        );
        assert_eq!(end.step(20 * MS, false, false), EpochEndStep::ShutdownWrite);
        assert_eq!(
            end.step(20 * MS, false, false),
            EpochEndStep::Read {
                until_ns: 1_010 * MS
            }
        );
        assert_eq!(
            end.step(500 * MS, false, false),
            EpochEndStep::Read {
                until_ns: 1_010 * MS
            }
        );
        assert_eq!(end.step(501 * MS, false, true), EpochEndStep::Close);
    }

    #[test]
    fn the_grace_bounds_every_step() {
        // A strategy that neither reads nor closes.
        let mut end = EpochEnd::new(0);
        assert_eq!(
            end.step(998 * MS, true, false),
            EpochEndStep::Flush {
                until_ns: 1_000 * MS
            }
        );
        assert_eq!(end.step(1_000 * MS, true, false), EpochEndStep::Close);
        // One that reads but keeps sending.
        let mut end = EpochEnd::new(0);
        assert_eq!(end.step(0, false, false), EpochEndStep::ShutdownWrite);
        assert_eq!(
            end.step(999 * MS, false, false),
            EpochEndStep::Read {
                until_ns: 1_000 * MS
            }
        );
        assert_eq!(end.step(1_000 * MS, false, false), EpochEndStep::Close);
        // Near the end of the clock.
        let mut end = EpochEnd::new(u64::MAX - 1);
        assert_eq!(end.deadline_ns(), u64::MAX);
        assert_eq!(
            end.step(u64::MAX - 1, true, false),
            EpochEndStep::Flush { until_ns: u64::MAX }
        );
    }

    #[test]
    fn a_cut_off_connection_gets_its_own_grace() {
        let mut end = EpochEnd::with_grace(10, 250);
        assert_eq!(end.deadline_ns(), 10 + 250 * MS);
        assert_eq!(end.step(10, false, false), EpochEndStep::ShutdownWrite);
        assert_eq!(
            end.step(11, false, false),
            EpochEndStep::Read {
                until_ns: 10 + 250 * MS
            }
        );
        assert_eq!(end.step(10 + 250 * MS, false, false), EpochEndStep::Close);
        assert_eq!(EpochEnd::new(0).deadline_ns(), EPOCH_END_GRACE_MS * MS);
    }
}
