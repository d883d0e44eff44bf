//! The writer's journal side: the write-ahead rule over the segment file (records held on a
//! storage fault and the retry that releases them, `gateway_core::journal::write_ahead`), the
//! epoch record of a rollover, ClOrdID / ListID / presence records, and the segment roll.
//! Lock order as everywhere in the writer: `inner`, then `journal`.

use std::sync::atomic::Ordering;

use super::{write_or_queue, Inner, Journal, SessionOut};
use gateway_core::journal::durability::{Change, Durability, JournalOp, StorageFault};
use gateway_core::journal::record;
use gateway_core::journal::write_ahead::{Journaled, WriteAhead};
use gateway_core::session::retransmit::PreviousEpoch;

/// The error of a write refused because the journal fails (`fault` on `op`).
fn failing_error(fault: StorageFault, op: JournalOp) -> std::io::Error {
    std::io::Error::other(format!(
        "journal failing ({} on {})",
        fault.label(),
        op.label()
    ))
}

impl SessionOut {
    /// Under the writer's lock: hands the pending records to the store, journals the epoch
    /// record after them, numbers the next application message 1.
    /// While a storage fault is in force the epoch does not end (the held messages belong to
    /// it and must reach the strategy first), and an epoch record whose append fails is not
    /// kept (the fault is entered): errors, and the caller tries again later.
    pub(super) fn journal_epoch(&self, epoch: u32, started_ms: u64) -> std::io::Result<()> {
        {
            let mut journal = self.journal.lock();
            if self.write_ahead {
                if let Some(f) = journal.wa.durability().failing() {
                    return Err(failing_error(f.fault, f.op));
                }
                record::put_epoch(journal.wa.buf(), u64::from(epoch), started_ms);
                if !self.write_ahead(&mut journal, None) {
                    // Healthy before: the buffer held only the epoch record, not kept.
                    journal.wa.buf().clear();
                    self.note_pending(&journal);
                    let f = journal.wa.durability().failing().copied();
                    return Err(f.map_or_else(
                        || failing_error(StorageFault::Other, JournalOp::Append),
                        |f| failing_error(f.fault, f.op),
                    ));
                }
            } else {
                let Journal { store, wa } = &mut *journal;
                let n = wa.pending_len();
                let mut r = Ok(());
                wa.take_all(|b| r = store.append(b));
                r?;
                self.note_written(n);
                self.journal_pending.store(0, Ordering::Relaxed);
                store.start_epoch(epoch, started_ms)?;
                self.note_written(gateway_core::journal::record::HEADER_LEN + 16);
            }
            let _ = journal.wa.new_epoch();
        }
        *self.previous.lock() = Some(PreviousEpoch {
            epoch: self.epoch.load(Ordering::Relaxed),
            last_seq: self.committed_seq.load(Ordering::Relaxed).saturating_sub(1),
        });
        self.epoch.store(epoch, Ordering::Relaxed);
        self.next_seq.store(1, Ordering::Relaxed);
        self.committed_seq.store(1, Ordering::Relaxed);
        Ok(())
    }

    /// Journals ClOrdIDs (ClOrdID, root) and ListIDs the session has just used.
    pub fn journal_ids(&self, cl_ord_ids: &[(u64, u64)], list_ids: &[u64]) {
        if !self.keeps {
            return;
        }
        let mut journal = self.journal.lock();
        for &(cl, root) in cl_ord_ids {
            record::put_cl_ord_id(journal.wa.buf(), cl, root);
        }
        for &id in list_ids {
            record::put_list_id(journal.wa.buf(), id);
        }
        // Held on a storage fault, like a message: written before anything after it.
        let _ = self.write_ahead(&mut journal, None);
    }

    /// Journals a presence record: the session's strategy connected (`connected`: established)
    /// or its connection ended, at UTC ms `utc_ms`, with the tracker's unseen tail `tail_ms`
    /// (`[tracker] unseen_tail_ms`). The journal's fold keeps the ended orders whose end the
    /// strategy may not have read by it, so that a restart holds them for the next epoch's
    /// OrderStatus (`gateway_core::journal::fold`, issue 37).
    pub fn journal_presence(&self, connected: bool, utc_ms: u64, tail_ms: u64) {
        if !self.keeps {
            return;
        }
        let mut journal = self.journal.lock();
        record::put_presence(journal.wa.buf(), connected, utc_ms, tail_ms);
        // Held on a storage fault, like every record: written before anything after it.
        let _ = self.write_ahead(&mut journal, None);
    }

    fn note_pending(&self, journal: &Journal) {
        let n = u64::try_from(journal.wa.pending_len()).unwrap_or(u64::MAX);
        self.journal_pending.store(n, Ordering::Relaxed);
    }

    fn note_written(&self, bytes: usize) {
        let n = u64::try_from(bytes).unwrap_or(u64::MAX);
        self.journal_written.fetch_add(n, Ordering::Relaxed);
    }

    /// With a journal file: appends the records just encoded now (one `write`, 1.0-1.2 µs, into
    /// the page cache), before the caller writes the frame of message `seq` to the socket
    /// ([`WriteAhead::write`]). True when they are written (and always without a journal
    /// file: the journal thread moves them to memory). False when appends are held: a storage
    /// fault now (entered and logged) or before (nothing is tried; the journal thread
    /// retries). Lock order: `inner`, then `journal`.
    pub(super) fn write_ahead(&self, journal: &mut Journal, seq: Option<u64>) -> bool {
        if !self.write_ahead {
            if let Some(s) = seq {
                journal.wa.note_committed(s);
                self.committed_seq.store(s + 1, Ordering::Relaxed);
            }
            self.note_pending(journal);
            return true;
        }
        let before = journal.wa.pending_len();
        let Journal { store, wa } = journal;
        let w = wa.write(store, seq, crate::metrics::now_ns);
        self.note_written(before.saturating_sub(journal.wa.pending_len()));
        let written = match w {
            Journaled::Written => {
                self.committed_seq
                    .store(journal.wa.committed_seq(), Ordering::Relaxed);
                true
            }
            Journaled::Held => false,
            Journaled::Failed { change, error } => {
                self.on_journal_error(&journal.wa, change, &error);
                false
            }
        };
        self.note_pending(journal);
        written
    }

    /// Records a journal error: counted, the failing state published for lock-free readers,
    /// one log line when the state changed.
    fn on_journal_error(&self, wa: &WriteAhead, change: Change, e: &std::io::Error) {
        let fault = StorageFault::of(e);
        self.journal_errors[fault.index()].fetch_add(1, Ordering::Relaxed);
        self.publish_durability(wa.durability());
        let s = self.session_id;
        match change {
            Change::Entered(f) => tracing::error!(
                session = s, op = f.op.label(), error = f.fault.label(), detail = %e,
                "journal failing: new orders and replaces refused, messages to the strategy held \
                 until it is writable again (retried with backoff)"
            ),
            Change::Changed(f) => tracing::warn!(
                session = s, op = f.op.label(), error = f.fault.label(), detail = %e,
                retries = f.retries, "journal still failing, now for another cause"
            ),
            Change::None | Change::Recovered { .. } => {}
        }
    }

    fn publish_durability(&self, durability: &Durability) {
        let v = durability.failing().map_or(0, |f| f.pack());
        self.fault.store(v, Ordering::Relaxed);
    }

    /// Moves the buffered journal records to an in-memory store (the journal thread calls
    /// this every millisecond; retransmission calls it first). A journal file has nothing
    /// to move: records are written ahead, and those a storage fault holds go only by
    /// [`SessionOut::journal_turn`], which sends their messages in the same step.
    pub fn flush_journal(&self) -> std::io::Result<()> {
        if self.write_ahead {
            return Ok(());
        }
        let mut journal = self.journal.lock();
        let Journal { store, wa } = &mut *journal;
        let n = wa.pending_len();
        if n == 0 {
            return Ok(());
        }
        let mut r = Ok(());
        wa.take_all(|b| r = store.append(b));
        if r.is_ok() {
            self.note_written(n);
        }
        self.journal_pending.store(0, Ordering::Relaxed);
        Ok(r?)
    }

    /// The journal thread's turn for this session (every [`crate::journal::FLUSH_PERIOD`]):
    /// an in-memory journal takes the buffered records; a journal file folds and rolls
    /// ([`SessionOut::maintain_journal`]). While a storage fault is in force nothing is tried
    /// until its retry is due (backoff); then the held records are written and their
    /// messages sent to the strategy in order, in one step under the writer's lock
    /// (`write_held`), then the roll is tried; both done, the state clears (logged once).
    /// Errors enter or back off the failing state; nothing is returned.
    pub fn journal_turn(&self, now_ns: u64) {
        if !self.write_ahead {
            let _ = self.flush_journal();
            return;
        }
        let failing = self.fault.load(Ordering::Relaxed) != 0;
        if failing && !self.journal.lock().wa.durability().retry_due(now_ns) {
            return;
        }
        if failing && !self.write_held(now_ns) {
            return;
        }
        match self.roll_if_full() {
            Ok(_) if failing => {
                let mut journal = self.journal.lock();
                let change = journal.wa.on_written(now_ns);
                self.publish_durability(journal.wa.durability());
                if let Change::Recovered { failed_ns, retries } = change {
                    tracing::warn!(
                        session = self.session_id,
                        failed_ms = failed_ns / 1_000_000,
                        retries,
                        next_seq = self.next_seq(),
                        "journal writable again: held messages sent, new orders accepted"
                    );
                }
            }
            Ok(_) => {}
            Err((op, e)) => {
                let mut journal = self.journal.lock();
                let change = journal.wa.on_roll_error(op, StorageFault::of(&e), now_ns);
                self.on_journal_error(&journal.wa, change, &e);
            }
        }
    }

    /// Writes the records a storage fault holds, then sends their application messages to
    /// the strategy in order (what the socket takes; the rest waits in the backlog, or for a
    /// RetransmitRequest when no connection is attached), under the writer's lock so no other
    /// message is numbered meanwhile ([`WriteAhead::write_held`]). True when none is held any
    /// more. A partial write keeps its whole records and sends their messages; the rest stays
    /// held.
    fn write_held(&self, now_ns: u64) -> bool {
        let mut guard = self.inner.lock();
        let inner = &mut *guard;
        let mut journal = self.journal.lock();
        let before = journal.wa.pending_len();
        let Journal { store, wa } = &mut *journal;
        let r = wa.write_held(store, now_ns, |_, frame| {
            if inner.draining {
                return;
            }
            let Inner {
                stream, backlog, ..
            } = &mut *inner;
            let Some(s) = stream.as_deref() else {
                return;
            };
            let written = write_or_queue(
                s,
                backlog,
                frame,
                &self.has_backlog,
                self.max_backlog,
                false,
            );
            self.last_write_ns.store(now_ns, Ordering::Relaxed);
            self.after_write(inner, written);
        });
        self.note_written(before.saturating_sub(journal.wa.pending_len()));
        self.committed_seq
            .store(journal.wa.committed_seq(), Ordering::Relaxed);
        self.note_pending(&journal);
        match r {
            Ok(_) => {
                self.publish_durability(journal.wa.durability());
                true
            }
            Err((change, e)) => {
                self.on_journal_error(&journal.wa, change, &e);
                false
            }
        }
    }

    /// The journal thread's turn for a segmented journal (every millisecond): folds the
    /// records written since the last turn (read back from the current segment, one `read`;
    /// nothing when no byte was written) and, once the segment holds `[journal]
    /// segment_bytes`, rolls to the next one ([`crate::journal::segments`]): the new segment's
    /// checkpoint is written and synced without the journal lock; under it only the records
    /// appended meanwhile are folded and copied and the file swapped (a few µs: the order path
    /// waits at most that); then the segments beyond `keep_segments` are deleted or archived,
    /// without the lock. Returns true when it rolled.
    pub fn maintain_journal(&self) -> std::io::Result<bool> {
        self.roll_if_full().map_err(|(_, e)| e)
    }

    /// [`SessionOut::maintain_journal`], its errors with the operation that failed: reading
    /// back or copying records ([`JournalOp::Roll`]), writing the new segment's checkpoint
    /// ([`JournalOp::Checkpoint`]; the partial file is removed: a retry writes it again).
    /// A failed roll leaves the current segment as it was: the writers keep appending to it.
    fn roll_if_full(&self) -> Result<bool, (JournalOp, std::io::Error)> {
        let mut guard = self.roller.lock();
        let Some(roller) = guard.as_mut() else {
            return Ok(false);
        };
        let written = self.journal_written.load(Ordering::Relaxed);
        if written == roller.seen_written && !roller.full() {
            return Ok(false);
        }
        roller.catch_up().map_err(|e| (JournalOp::Roll, e))?;
        roller.seen_written = written;
        if !roller.full() {
            return Ok(false);
        }
        let mut next = roller.prepare().map_err(|e| (JournalOp::Checkpoint, e))?;
        let keep = roller.keep_segments();
        let dropped = {
            let mut journal = self.journal.lock();
            if let Err(e) = roller.switch(&mut next) {
                drop(journal);
                let _ = std::fs::remove_file(&next.info.path);
                return Err((JournalOp::Roll, e));
            }
            journal.store.switch_segment(next, keep)
        };
        roller.retire(dropped);
        Ok(true)
    }
}
