//! The channel that carries interval latency snapshots from the hot threads (io, tracker) to
//! the reporter thread, and the spent ones back, cleared, for reuse.
//!
//! A [`LegHistograms`] is five HDR histograms of about 221 KiB each (1 ns..=60 s, 3
//! significant digits). Before this channel, every report interval the hot threads replaced
//! their set with a new one: ~1.1 MiB of `calloc` and page faults per set on the pinned
//! tracker thread (twice: its own legs and the push legs), and a merge of the two (5 × 27 648
//! additions) on that thread. Now the hot thread swaps in a set the reporter cleared and
//! returned (an O(1) move); it allocates only while none has come back yet (the first
//! intervals after start).

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, TrySendError};
use std::time::Duration;

use super::LegHistograms;

/// Sets kept for reuse: enough for every hot-thread snapshot of two intervals (io 1,
/// tracker 2). A set returned beyond this is dropped on the reporter thread.
const SPARES: usize = 8;

/// Makes the two ends of the snapshot channel.
pub fn snapshot_channel() -> (SnapshotTx, SnapshotRx) {
    let (full_tx, full_rx) = crossbeam_channel::unbounded();
    let (spare_tx, spare_rx) = crossbeam_channel::bounded(SPARES);
    (
        SnapshotTx {
            full: full_tx,
            spare: spare_rx,
        },
        SnapshotRx {
            full: full_rx,
            spare: spare_tx,
        },
    )
}

/// The hot threads' end: hands over a snapshot, takes back a cleared set.
#[derive(Debug, Clone)]
pub struct SnapshotTx {
    full: Sender<LegHistograms>,
    spare: Receiver<LegHistograms>,
}

impl SnapshotTx {
    /// Sends `legs`' samples to the reporter and leaves `legs` empty, holding a set the
    /// reporter returned (no allocation) or, when none is back yet, a new one. Never blocks;
    /// when the reporter is gone the samples are dropped.
    pub fn send_swap(&self, legs: &mut LegHistograms) {
        let empty = self.spare.try_recv().unwrap_or_default();
        let full = std::mem::replace(legs, empty);
        let _ = self.full.send(full);
    }

    /// Sends a last snapshot (at the thread's end).
    pub fn send(&self, legs: LegHistograms) {
        let _ = self.full.send(legs);
    }
}

/// The reporter's end.
#[derive(Debug)]
pub struct SnapshotRx {
    full: Receiver<LegHistograms>,
    spare: Sender<LegHistograms>,
}

impl SnapshotRx {
    /// Waits up to `timeout` for a snapshot. Errors: `Timeout`, or `Disconnected` once every
    /// [`SnapshotTx`] is dropped and the channel is drained.
    pub fn recv_timeout(&self, timeout: Duration) -> Result<LegHistograms, RecvTimeoutError> {
        self.full.recv_timeout(timeout)
    }

    /// Clears a merged snapshot (on this thread) and offers it back to the hot threads; it is
    /// dropped here when [`SPARES`] are already waiting or every sender is gone.
    pub fn give_back(&self, mut legs: LegHistograms) {
        legs.reset();
        match self.spare.try_send(legs) {
            Ok(()) | Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Leg;

    #[test]
    fn a_returned_set_comes_back_cleared_and_is_taken_before_a_new_one() {
        let (tx, rx) = snapshot_channel();
        let mut legs = LegHistograms::new();
        legs.record(Leg::RoundTrip, 5_000);
        tx.send_swap(&mut legs);
        assert_eq!(legs.total_count(), 0, "the hot side is left empty");
        let mut got = rx.recv_timeout(Duration::from_secs(1)).expect("snapshot");
        assert_eq!(got.get(Leg::RoundTrip).len(), 1);
        got.record(Leg::FirstPush, 9_000);
        rx.give_back(got);
        assert_eq!(tx.spare.len(), 1, "the merged set waits for reuse");
        legs.record(Leg::PushToReport, 7_000);
        tx.send_swap(&mut legs);
        assert_eq!(
            tx.spare.len(),
            0,
            "the swap took the returned set, not a new one"
        );
        assert_eq!(legs.total_count(), 0, "the returned set was cleared");
        let second = rx.recv_timeout(Duration::from_secs(1)).expect("snapshot");
        assert_eq!(second.get(Leg::PushToReport).len(), 1);
        assert_eq!(second.get(Leg::RoundTrip).len(), 0);
    }

    #[test]
    fn the_spare_pool_is_bounded_and_the_end_is_seen() {
        let (tx, rx) = snapshot_channel();
        for _ in 0..SPARES + 3 {
            rx.give_back(LegHistograms::new());
        }
        assert_eq!(
            tx.spare.len(),
            SPARES,
            "the rest dropped on the reporter thread"
        );
        let mut legs = LegHistograms::new();
        for _ in 0..SPARES + 3 {
            tx.send_swap(&mut legs);
        }
        drop(tx);
        let mut n = 0;
        while rx.recv_timeout(Duration::from_millis(10)).is_ok() {
            n += 1;
        }
        assert_eq!(n, SPARES + 3);
        assert!(matches!(
            rx.recv_timeout(Duration::from_millis(10)),
            Err(RecvTimeoutError::Disconnected)
        ));
    }
}
