//! The sessions' journals under the core's write-ahead rule (`gateway_core::journal::write_ahead`,
//! the one the shell's `SessionOut` runs): messages and records written ahead or held while a
//! storage fault holds appends, the journal thread's retry, the faults the world injects, and the
//! gateway before issue 37 (a failed append ignored) for the test that shows a sweep finds it.

use super::*;

impl Gateway {
    /// Journals session `i`'s presence record (its strategy connected, or its connection
    /// ended, at `utc_ns`), as `SessionOut::journal_presence`.
    pub(super) fn journal_presence(
        &mut self,
        i: usize,
        connected: bool,
        utc_ns: u64,
        w: &mut impl Wire,
    ) {
        let tail = self.unseen_tail_ms;
        if let Some(s) = self.sessions.get_mut(i) {
            if w.effect() {
                record::put_presence(s.wa.buf(), connected, utc_ns / 1_000_000, tail);
                if s.legacy {
                    s.wa.take_all(|b| {
                        let _ = RecordSink::append(&mut s.journal, b);
                    });
                } else {
                    let _ = s.wa.write(&mut s.journal, None, || 0);
                }
            }
        }
    }

    /// The journal thread's turn, as `SessionOut::journal_turn`: a session whose journal
    /// fails retries when its backoff is due; the held records written, their messages go to
    /// the strategy in order and the state clears.
    /// Makes a failed journal append ignored, as before issue 37 (`on`), or a state of the
    /// session (the gateway's rule).
    pub fn set_legacy_journal_errors(&mut self, on: bool) {
        self.legacy_journal_errors = on;
        for s in &mut self.sessions {
            s.legacy = on;
        }
    }

    /// Session `i`'s journal fails for its next `appends` appends (`partial`: each writes its
    /// first whole record): a storage fault drawn by the world.
    pub fn fail_journal(&mut self, i: usize, appends: u32, fault: StorageFault, partial: bool) {
        if let Some(s) = self.sessions.get_mut(i) {
            s.journal.fail(appends, fault, partial);
        }
    }

    pub(super) fn journal_turn(&mut self, now_ns: u64, w: &mut impl Wire) {
        for i in 0..self.sessions.len() {
            let s = &mut self.sessions[i];
            if !s.wa.durability().retry_due(now_ns) || !w.effect() {
                continue;
            }
            let bound = s.bound;
            let mut out = Vec::new();
            let r = s.wa.write_held(&mut s.journal, now_ns, |seq, frame| {
                if bound {
                    out.push((seq, frame.to_vec()));
                }
            });
            if r.is_ok() {
                s.wa.on_written(now_ns);
            }
            for (seq, frame) in out {
                w.to_strategy(i, seq, frame);
            }
        }
    }
}

/// Numbers, journals (ahead) and writes an application frame to session `i` of `sessions`, as
/// `SessionOut::send` does.
pub(super) fn write_app(
    sessions: &mut [Session],
    i: usize,
    frame: Vec<u8>,
    origin: Origin,
    now_ns: u64,
    w: &mut impl Wire,
) {
    let Some(s) = sessions.get_mut(i) else {
        return;
    };
    if !w.effect() {
        return;
    }
    let seq = s.next_seq;
    s.next_seq += 1;
    record::put_outbound(s.wa.buf(), seq, origin, &frame);
    if s.legacy {
        // Before issue 37: the error is logged and the message goes out all the same.
        s.wa.take_all(|b| {
            let _ = RecordSink::append(&mut s.journal, b);
        });
        s.wa.note_committed(seq);
        s.last_write_ns = now_ns;
        if s.bound && w.effect() {
            w.to_strategy(i, seq, frame);
        }
        return;
    }
    let journaled = s.wa.write(&mut s.journal, Some(seq), || now_ns);
    s.last_write_ns = now_ns;
    // Held while the journal fails: it reaches the strategy once the journal takes it
    // (`Gateway::journal_turn`).
    if !matches!(journaled, Journaled::Written) {
        return;
    }
    // The writer is attached at Establish: before it, messages are numbered and journaled
    // (the strategy asks for them when the EstablishmentAck shows them).
    if s.bound && w.effect() {
        w.to_strategy(i, seq, frame);
    }
}
