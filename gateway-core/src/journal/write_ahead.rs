//! The write-ahead rule of a session's journal under storage faults (issue 37), without I/O:
//! the records a session's writer encodes, whether they are written or held, and which
//! sequence numbers the strategy may be told. The shell's writer (`gateway::session::out`)
//! and the deterministic simulation (`dst`) both run it over their own [`RecordSink`] (a
//! segment file; a simulated one that fails on the seed's schedule), so the rule the
//! simulation checks is the gateway's.
//!
//! The rule ([`crate::journal::durability`] for the state and its reasons):
//! - records are appended before the frame they journal is written to the strategy
//!   ([`WriteAhead::write`]: the caller writes the frame only on [`Journaled::Written`]);
//! - once an append fails, it and every record after it are held, in order, and nothing is
//!   tried until the retry ([`WriteAhead::write_held`]), which writes them and hands each
//!   application frame among them to the caller to send, in order;
//! - [`WriteAhead::committed_seq`] is the sequence number after the last application message
//!   in the journal: what EstablishmentAck, Sequence and RetransmitRequest may say.

use super::durability::{Change, Durability, JournalOp, StorageFault};
use super::record::{Record, Records};

/// An append that failed: the whole records written before the error (`committed` bytes of
/// what was given) stay; the rest is not in the journal.
#[derive(Debug)]
pub struct AppendFailed<E> {
    /// Bytes of whole records written (a prefix of what was given).
    pub committed: usize,
    /// The fault's cause.
    pub fault: StorageFault,
    /// The error itself (logged by the shell).
    pub error: E,
}

/// Where a session's records are appended.
pub trait RecordSink {
    /// The sink's error (an OS error for a file).
    type Error;
    /// Appends whole records. Errors: [`AppendFailed`]; the sink then ends after the whole
    /// records it reports written.
    fn append(&mut self, records: &[u8]) -> Result<(), AppendFailed<Self::Error>>;
}

/// What [`WriteAhead::write`] did (`now_ns` is read only on a failure: the order path reads
/// no clock for it).
#[derive(Debug)]
pub enum Journaled<E> {
    /// Written: the caller may write the frame (the records' message) to the strategy.
    Written,
    /// Held (a fault is in force): nothing was tried; the frame waits for
    /// [`WriteAhead::write_held`].
    Held,
    /// The append failed now: the records are held, the state entered or changed
    /// (`change`, for the log line), `error` the sink's error.
    Failed {
        /// The state change to log.
        change: Change,
        /// The sink's error.
        error: E,
    },
}

/// One session's write-ahead journal state (see the module doc).
#[derive(Debug, Clone)]
pub struct WriteAhead {
    /// Records encoded and not yet appended: the ones just encoded, or every one since the
    /// fault while appends are held.
    pending: Vec<u8>,
    durability: Durability,
    committed_seq: u64,
}

impl WriteAhead {
    /// A healthy journal whose next application message is `next_seq`; `capacity` bytes of
    /// record buffer reserved.
    pub fn new(next_seq: u64, capacity: usize) -> Self {
        WriteAhead {
            pending: Vec::with_capacity(capacity),
            durability: Durability::new(),
            committed_seq: next_seq.max(1),
        }
    }

    /// The buffer records are encoded into (`record::put_*`), then [`WriteAhead::write`].
    pub fn buf(&mut self) -> &mut Vec<u8> {
        &mut self.pending
    }

    /// Bytes encoded and not in the journal (held, while a fault holds appends).
    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    /// The storage-fault state.
    pub fn durability(&self) -> &Durability {
        &self.durability
    }

    /// Sequence number after the last application message in the journal (what the strategy
    /// may be told).
    pub fn committed_seq(&self) -> u64 {
        self.committed_seq
    }

    /// Appends the records encoded since the last call ahead of their frame (`seq`: the
    /// application message they journal, if any; it becomes committed when written). Nothing
    /// is tried while appends are held. On a failure the whole records written leave the
    /// buffer (a message's record is the last one encoded, so none of them is a message) and
    /// the rest is held.
    pub fn write<S: RecordSink>(
        &mut self,
        sink: &mut S,
        seq: Option<u64>,
        now_ns: impl FnOnce() -> u64,
    ) -> Journaled<S::Error> {
        if self.durability.holds_appends() {
            return Journaled::Held;
        }
        match sink.append(&self.pending) {
            Ok(()) => {
                self.pending.clear();
                if let Some(s) = seq {
                    self.committed_seq = s + 1;
                }
                Journaled::Written
            }
            Err(f) => {
                self.pending.drain(..f.committed.min(self.pending.len()));
                let change = self
                    .durability
                    .on_error(JournalOp::Append, f.fault, now_ns());
                Journaled::Failed {
                    change,
                    error: f.error,
                }
            }
        }
    }

    /// The journal thread's retry of held appends: writes them and calls `release(seq,
    /// frame)` for every application message among the records written, in order (the
    /// caller sends them). `Ok(true)` when nothing is held any more (the state stays until
    /// [`WriteAhead::on_written`]: the roll is tried next); `Ok(false)` when nothing was held;
    /// `Err` with the state change to log when it failed again (the whole records it wrote
    /// are released all the same).
    pub fn write_held<S: RecordSink>(
        &mut self,
        sink: &mut S,
        now_ns: u64,
        mut release: impl FnMut(u64, &[u8]),
    ) -> Result<bool, (Change, S::Error)> {
        if !self.durability.holds_appends() {
            return Ok(false);
        }
        let r = sink.append(&self.pending);
        let committed = match &r {
            Ok(()) => self.pending.len(),
            Err(f) => f.committed.min(self.pending.len()),
        };
        for rec in Records::new(&self.pending[..committed]) {
            if let Record::Outbound { seq, frame, .. } = rec {
                self.committed_seq = seq + 1;
                release(seq, frame);
            }
        }
        self.pending.drain(..committed);
        match r {
            Ok(()) => {
                self.durability.appends_written();
                Ok(true)
            }
            Err(f) => Err((
                self.durability.on_error(JournalOp::Append, f.fault, now_ns),
                f.error,
            )),
        }
    }

    /// A roll or checkpoint failed with `fault` at `now_ns` (appends go on).
    pub fn on_roll_error(&mut self, op: JournalOp, fault: StorageFault, now_ns: u64) -> Change {
        self.durability.on_error(op, fault, now_ns)
    }

    /// The held records are written and the roll done at `now_ns`: the state clears.
    pub fn on_written(&mut self, now_ns: u64) -> Change {
        self.durability.on_written(now_ns)
    }

    /// Session rollover: the next application message is number 1. Errors while a fault is in
    /// force (the held messages belong to the epoch that would end; the caller tries again).
    pub fn new_epoch(&mut self) -> Result<(), StorageFault> {
        if let Some(f) = self.durability.failing() {
            return Err(f.fault);
        }
        self.committed_seq = 1;
        Ok(())
    }

    /// Takes the encoded records (an in-memory journal's store takes them all, no fault
    /// possible): the caller appends them and the buffer is cleared.
    pub fn take_all(&mut self, f: impl FnOnce(&[u8])) {
        f(&self.pending);
        self.pending.clear();
    }

    /// The sequence number after `seq` is committed (an in-memory journal, or no journal:
    /// nothing can fail).
    pub fn note_committed(&mut self, seq: u64) {
        self.committed_seq = seq + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::record::{put_cl_ord_id, put_outbound, Origin};

    /// A sink that takes `room` bytes, then fails (a partial write keeps whole records).
    #[derive(Default)]
    struct Disk {
        bytes: Vec<u8>,
        room: usize,
    }

    impl RecordSink for Disk {
        type Error = &'static str;
        fn append(&mut self, records: &[u8]) -> Result<(), AppendFailed<&'static str>> {
            if records.len() <= self.room {
                self.room -= records.len();
                self.bytes.extend_from_slice(records);
                return Ok(());
            }
            let mut it = Records::new(&records[..self.room]);
            for _ in it.by_ref() {}
            let committed = it.valid_len();
            self.bytes.extend_from_slice(&records[..committed]);
            self.room -= committed;
            Err(AppendFailed {
                committed,
                fault: StorageFault::NoSpace,
                error: "full",
            })
        }
    }

    fn seqs(bytes: &[u8]) -> Vec<u64> {
        Records::new(bytes)
            .filter_map(|r| match r {
                Record::Outbound { seq, .. } => Some(seq),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_failed_append_holds_it_and_everything_after_until_the_retry_releases_them_in_order() {
        let mut disk = Disk {
            room: 60,
            ..Disk::default()
        };
        let mut wa = WriteAhead::new(1, 0);
        put_outbound(wa.buf(), 1, Origin::Push, b"one");
        assert!(matches!(
            wa.write(&mut disk, Some(1), || 0),
            Journaled::Written
        ));
        assert_eq!(wa.committed_seq(), 2);
        put_cl_ord_id(wa.buf(), 7, 7);
        put_outbound(wa.buf(), 2, Origin::Push, &[b'x'; 40]);
        let Journaled::Failed { change, .. } = wa.write(&mut disk, Some(2), || 5) else {
            panic!()
        };
        assert!(matches!(change, Change::Entered(_)));
        assert_eq!(wa.committed_seq(), 2, "the failed message is not committed");
        put_outbound(wa.buf(), 3, Origin::Push, b"three");
        assert!(matches!(
            wa.write(&mut disk, Some(3), || 6),
            Journaled::Held
        ));
        // The retry with no room: the whole records that fit are written and released.
        let mut sent = Vec::new();
        assert!(wa
            .write_held(&mut disk, 20_000_000, |s, _| sent.push(s))
            .is_err());
        assert!(sent.is_empty());
        disk.room = 1 << 20;
        assert_eq!(
            wa.write_held(&mut disk, 40_000_000, |s, _| sent.push(s))
                .ok(),
            Some(true)
        );
        assert_eq!(sent, [2, 3]);
        assert_eq!(wa.committed_seq(), 4);
        assert_eq!(seqs(&disk.bytes), [1, 2, 3], "every number once, in order");
        assert!(
            !wa.durability().admits_new_risk(),
            "until the roll is tried"
        );
        assert!(matches!(
            wa.on_written(50_000_000),
            Change::Recovered { .. }
        ));
        assert!(wa.new_epoch().is_ok() && wa.committed_seq() == 1);
    }
}
