//! Retransmission (FIXP 1.0 "Retransmission"): a RetransmitRequest answered from the segments
//! of the journal that hold its range, read without the journal lock, off the order path: of
//! the epoch in force, or of the previous one while its segments are kept (schema version 2,
//! `LastSessionVerID`; the rule is the core's, `gateway_core::session::retransmit::answerable`).

use std::sync::atomic::Ordering;

use codec::sbe::{
    Retransmission, RetransmitReject, RetransmitRejectCode, RetransmitRequest, Sequence, Text,
};

use super::{write_or_queue, Flow, Inner, RetransmitOutcome, SessionOut};
use crate::journal::store::Plan;
use gateway_core::journal::record::{Record, Records};
use gateway_core::session::retransmit::{answerable, Reach};

impl SessionOut {
    /// Answers a RetransmitRequest (FIXP 1.0 "Retransmission"): Retransmission (SessionVerID
    /// = the epoch of the messages), the original frames `from .. from + count` read from the
    /// journal, then a Sequence with the live next sequence number of the epoch in force,
    /// written as one block; or RetransmitReject when the range is not wholly among the
    /// messages sent so far in the epoch named (OutOfRange), `LastSessionVerID` names neither
    /// the epoch in force nor the previous one (OutOfRange), `count` is above
    /// [`super::MAX_RETRANSMIT_COUNT`] (the rule is the core's,
    /// `gateway_core::session::retransmit::answerable`), the messages are no longer kept
    /// (Unavailable, "messages before seq N are no longer kept (retention)", short enough for
    /// Text's 64 bytes: N is the first sequence number of the oldest segment kept; for the
    /// previous epoch "epoch E: messages before seq N no longer kept", or "epoch E is no longer
    /// kept (retention)" when none of its segments is), or the journal cannot be read
    /// (Unavailable). Reads only the segments that hold the range (the writers' index: first
    /// sequence number of each kept segment), without the journal lock. Runs on the io thread,
    /// off the order path.
    pub fn retransmit(&self, req: &RetransmitRequest, now_ns: u64) -> RetransmitOutcome {
        let next = self.next_seq();
        let reject = |code: RetransmitRejectCode, reason: &str| {
            self.send(Flow::Session, now_ns, |b| {
                RetransmitReject {
                    session_id: self.session_id,
                    request_timestamp: req.timestamp,
                    code,
                    reason: Text::new(reason),
                }
                .encode_frame(b)
            });
            RetransmitOutcome::Rejected(code)
        };
        let reach = Reach {
            epoch: self.epoch(),
            next_seq: next,
            previous: self.previous_epoch(),
        };
        let asked = match answerable(req, self.session_id, &reach) {
            Ok(asked) => asked,
            Err((code, reason)) => return reject(code, reason),
        };
        let end = asked.end;
        if self.flush_journal().is_err() {
            return reject(RetransmitRejectCode::Unavailable, "journal not writable");
        }
        let mut block = Vec::new();
        Retransmission {
            session_id: self.session_id,
            request_timestamp: req.timestamp,
            next_seq_no: req.from_seq_no,
            count: req.count,
            session_ver_id: Some(u64::from(asked.epoch)),
        }
        .encode_frame(&mut block);
        let epoch = u64::from(asked.epoch);
        let plan = self
            .journal
            .lock()
            .store
            .plan(asked.epoch, req.from_seq_no, end);
        let found = match plan {
            Plan::Memory => Ok(self.journal.lock().store.with_records(|bytes, whole| {
                let from_start = whole && epoch == 0;
                take_frames(bytes, epoch, from_start, req.from_seq_no, end, &mut block)
            })),
            Plan::Gone(first) => {
                let reason = match (asked.previous, first) {
                    (false, Some(first)) => {
                        format!("messages before seq {first} are no longer kept (retention)")
                    }
                    (true, Some(first)) => {
                        format!("epoch {epoch}: messages before seq {first} no longer kept")
                    }
                    (_, None) => format!("epoch {epoch} is no longer kept (retention)"),
                };
                return reject(RetransmitRejectCode::Unavailable, &reason);
            }
            // Read without the journal lock (the writers keep appending to the current
            // segment; a record being written is past the range asked for).
            Plan::Files(paths) => {
                let mut expect = req.from_seq_no;
                let mut read = Ok(());
                for (p, starts_in) in paths {
                    match std::fs::read(&p) {
                        Ok(bytes) => {
                            let records = bytes.get(crate::journal::store::MAGIC.len()..);
                            let n = take_frames(
                                records.unwrap_or(&[]),
                                epoch,
                                starts_in,
                                expect,
                                end,
                                &mut block,
                            );
                            expect += u64::from(n);
                        }
                        Err(e) => {
                            read = Err(e);
                            break;
                        }
                    }
                }
                read.map(|()| u32::try_from(expect - req.from_seq_no).unwrap_or(u32::MAX))
            }
        };
        if found.ok() != Some(req.count) {
            let reason = if asked.previous {
                "previous epoch's messages missing from the journal"
            } else {
                "messages missing from the journal"
            };
            return reject(RetransmitRejectCode::Unavailable, reason);
        }
        let mut guard = self.inner.lock();
        let inner = &mut *guard;
        Sequence {
            next_seq_no: self.next_seq(),
        }
        .encode_frame(&mut block);
        if inner.draining {
            return RetransmitOutcome::Rejected(RetransmitRejectCode::Unavailable);
        }
        let Inner {
            stream, backlog, ..
        } = inner;
        let Some(s) = stream.as_deref() else {
            return RetransmitOutcome::Rejected(RetransmitRejectCode::Unavailable);
        };
        let written = write_or_queue(
            s,
            backlog,
            &block,
            &self.has_backlog,
            self.max_backlog,
            false,
        );
        self.after_write(inner, written);
        self.last_write_ns.store(now_ns, Ordering::Relaxed);
        RetransmitOutcome::Sent(req.count)
    }
}

/// Appends to `block` the frames of epoch `epoch`'s outbound records in `records` numbered
/// `from`, `from + 1`, ... below `end`, in that order (a record numbered below the next one
/// expected is a copy: a segment starts with the records its predecessor ends with); returns
/// how many. The records are epoch `epoch`'s from the start when `starts_in`, else from its
/// epoch record, and up to the next epoch record.
fn take_frames(
    records: &[u8],
    epoch: u64,
    starts_in: bool,
    from: u64,
    end: u64,
    block: &mut Vec<u8>,
) -> u32 {
    let (mut expect, start) = (from, block.len());
    let mut inside = starts_in;
    for rec in Records::new(records) {
        match rec {
            Record::Outbound { seq, frame, .. } if inside && seq == expect && seq < end => {
                block.extend_from_slice(frame);
                expect += 1;
            }
            // A session rollover: the epoch asked for starts here, or ends.
            Record::Epoch { epoch: e, .. } => {
                if e == epoch {
                    // Its numbers start again (an earlier pass of the same epoch's numbers
                    // cannot be, but a copy would have been the same frames).
                    block.truncate(start);
                    expect = from;
                }
                inside = e == epoch;
            }
            _ => {}
        }
    }
    u32::try_from(expect - from).unwrap_or(u32::MAX)
}
