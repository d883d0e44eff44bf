//! Where the tracker's outputs go in the gateway: [`SessionSink`], the [`TrackerSink`] over the
//! strategy sessions' writers ([`SessionOut`]). Reports go to their session, with their drop
//! copies, counted in the metrics endpoint's state, recorded when recording, and timed (the
//! "push read → ExecutionReport written" leg); account updates to every session of their
//! account; resolution requests to the io thread; evicted orders to their session's order
//! entry. The sequence that calls it is the core's ([`gateway_core::tracker::drive`]).

use std::collections::HashMap;
use std::sync::Arc;

use gateway_core::journal::record::Origin;
use gateway_core::tracker::retention::Evicted;
use gateway_core::tracker::routing::{self, AccountUpdate};
use gateway_core::tracker::TrackerSink;

use super::{frames, Deadlines, ListReport, Report, ResolveRequest, ResolveSender};
use crate::metrics::state::MetricsState;
use crate::metrics::{now_ns, Leg, LegHistograms};
use crate::replay::RecordedInput;
use crate::session::out::{Flow, SessionOut};
use crate::types::SessionRole;

/// The strategy sessions' writers and what a report written to them updates.
pub(crate) struct SessionSink {
    /// Every session opened, by SessionID. A session's writer outlives its connection
    /// (recoverable flow): reports keep going to it, numbered and journaled.
    sessions: HashMap<u64, Arc<SessionOut>>,
    routing: routing::Routing<Arc<SessionOut>>,
    /// The "push read → ExecutionReport written" leg since the last snapshot.
    pub(crate) push_legs: LegHistograms,
    /// Records inputs and outputs when on (`[record]`).
    pub(crate) recorder: Option<crate::replay::Recorder>,
    resolve_tx: Option<ResolveSender>,
    /// The metrics endpoint's state: reports are counted there.
    pub(crate) observe: Option<Arc<MetricsState>>,
}

impl SessionSink {
    /// A sink with no session yet: every input and output recorded to `recorder`, orders of
    /// unknown outcome sent to `resolve_tx`, reports counted in `observe`.
    pub(crate) fn new(
        recorder: Option<crate::replay::Recorder>,
        resolve_tx: Option<ResolveSender>,
        observe: Option<Arc<MetricsState>>,
    ) -> SessionSink {
        SessionSink {
            sessions: HashMap::new(),
            routing: routing::Routing::default(),
            push_legs: LegHistograms::default(),
            recorder,
            resolve_tx,
            observe,
        }
    }

    /// Session `session_id` of `account` with `role` writes to `out` from now on.
    pub(crate) fn open(
        &mut self,
        session_id: u64,
        account: usize,
        role: SessionRole,
        out: Arc<SessionOut>,
    ) {
        self.routing
            .open(session_id, account, role, Arc::clone(&out));
        self.sessions.insert(session_id, out);
    }

    /// Flushes every session's backlog.
    pub(crate) fn flush(&self) {
        for out in self.sessions.values() {
            out.flush();
        }
    }
}

impl TrackerSink for SessionSink {
    fn write_report(&mut self, report: &Report) -> Option<u32> {
        let out = self.sessions.get(&report.session_id)?;
        if let Some(m) = &self.observe {
            m.count_report(&report.msg);
        }
        let encode = |buf: &mut Vec<u8>| frames::encode_report(&report.msg, buf);
        if let Some(rec) = &self.recorder {
            rec.report(report.session_id, encode);
        }
        let written = out.send(Flow::Application(report.origin), now_ns(), encode);
        // Read after the write: a Terminate in between errs on the safe side (a final report
        // counted as ended in the new epoch: its ClOrdIDs stay used).
        let epoch = out.epoch();
        if routing::is_drop_copied(&report.msg) {
            for copy in self.routing.drop_copies(report.session_id) {
                copy.send(Flow::Application(Origin::DropCopy), now_ns(), encode);
            }
        }
        if written && report.cause_t_read_ns != 0 {
            self.push_legs.record(
                Leg::PushToReport,
                now_ns().saturating_sub(report.cause_t_read_ns),
            );
        }
        Some(epoch)
    }

    /// Writes the list's entries as ListStatus messages of at most
    /// `ListStatus::MAX_ENTRIES_PER_FRAME` entries, LastFragment = Yes on the last one.
    fn write_list_status(&mut self, list: &ListReport, utc_ns: u64) {
        let Some(out) = self.sessions.get(&list.session_id) else {
            return;
        };
        let count = frames::list_status_frame_count(list);
        for n in 0..count {
            let encode =
                |buf: &mut Vec<u8>| frames::encode_list_status(list, utc_ns, n, count, buf);
            if let Some(rec) = &self.recorder {
                rec.report(list.session_id, encode);
            }
            out.send(Flow::Application(Origin::List), now_ns(), encode);
        }
    }

    fn account_update(&mut self, account: usize, update: &AccountUpdate) {
        for out in self.routing.account_sessions(account) {
            out.send(Flow::Application(Origin::Account), now_ns(), |buf| {
                update.encode_frame(buf)
            });
        }
    }

    fn resolve(&mut self, request: ResolveRequest) {
        if let Some(tx) = &self.resolve_tx {
            let _ = tx.send(request);
        }
    }

    /// Tells the session's order entry (it releases the order's ClOrdIDs; off the order path:
    /// a lock and a push per evicted order).
    fn evicted(&mut self, e: Evicted) {
        if let Some(out) = self.sessions.get(&e.session_id) {
            out.note_evicted(e.root, e.ended_before_epoch);
        }
    }

    /// Records the tick before the reports it queued (a replay makes them at the same point).
    /// A tick that only evicted is not recorded: an eviction changes no report (an evicted
    /// order answers everything late as it did in full, see [`super::retention`]).
    fn tick_queued_output(&mut self, now_ns: u64, utc_ns: u64, deadlines: Deadlines) {
        if let Some(rec) = &self.recorder {
            let tick = RecordedInput::Tick {
                now_ns,
                reply_timeout_ms: deadlines.reply_timeout_ms,
                push_deadline_ms: deadlines.push_deadline_ms,
            };
            rec.input(tick, utc_ns);
        }
    }
}
