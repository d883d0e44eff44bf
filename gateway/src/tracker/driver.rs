//! The tracker's driver: the sans-I/O [`Tracker`] with what surrounds it on its thread (the JSON
//! parser, the sessions' writers, the risk feed, the recorder, the metrics hand-over). The
//! tracker thread ([`super::spawn`]) and the inline tracker on the io thread
//! ([`super::port::InlineTracker`]) both drive it: inputs through [`Driver::handle`], the
//! watchdog and the periodic hand-overs through [`Driver::idle_work`].

use std::collections::HashMap;
use std::sync::Arc;

use codec::json::JsonParser;

use super::{
    frames, recorded, risk_feed, routing, ListReport, ReportMsg, RequestKind, ResolveSender,
    Tracker, TrackerInput, TrackerSummary, TrackerThreadConfig,
};
use crate::metrics::state::MetricsState;
use crate::metrics::{now_ns, utc_now_ns, Leg, LegHistograms, SnapshotTx};
use crate::replay::RecordedInput;
use crate::session::out::{Flow, SessionOut};
use gateway_core::journal::record::Origin;

/// Inputs handled back to back before the watchdog ticks anyway.
const TICK_EVERY_INPUTS: u32 = 1024;

/// The tracker and its surroundings, driven by one thread at a time.
pub(crate) struct Driver {
    tracker: Tracker,
    parser: JsonParser,
    sessions: HashMap<u64, Arc<SessionOut>>,
    routing: routing::Routing,
    json_errors: u64,
    push_legs: LegHistograms,
    risk: Option<risk_feed::RiskFeed>,
    /// Records inputs and outputs when on (`[record]`).
    recorder: Option<crate::replay::Recorder>,
    resolve_tx: Option<ResolveSender>,
    /// The metrics endpoint's state: reports are counted there.
    observe: Option<Arc<MetricsState>>,
    /// Orders whose final report was just written, with the epoch of the writer it went to
    /// (told to the tracker after the reports are written; reused, no allocation once warm).
    ends_written: Vec<(u64, u64, u32)>,
    /// Where latency snapshots go every `interval_ns` (the reporter thread).
    metrics_tx: Option<SnapshotTx>,
    interval_ns: u64,
    next_report_ns: u64,
    publish_ns: u64,
    next_publish_ns: u64,
    /// Inputs handled since start (the watchdog ticks every [`TICK_EVERY_INPUTS`] of them).
    busy: u32,
}

impl Driver {
    /// A driver for `cfg`: latency snapshots (interval histograms) to `metrics_tx` every
    /// `cfg.report_interval_ms`; fills and ended orders update `risk`; every input and output
    /// recorded to `recorder`; orders of unknown outcome sent to `resolve_tx`; reports counted
    /// and counters published in `observe`.
    pub(crate) fn new(
        cfg: &TrackerThreadConfig,
        metrics_tx: Option<SnapshotTx>,
        risk: Option<Arc<crate::risk::RiskBook>>,
        recorder: Option<crate::replay::Recorder>,
        resolve_tx: Option<ResolveSender>,
        observe: Option<Arc<MetricsState>>,
    ) -> Driver {
        let mut tracker = Tracker::with_retention(cfg.order_capacity, cfg.retention);
        tracker.set_deadlines(cfg.deadlines);
        let interval_ns = cfg.report_interval_ms.saturating_mul(1_000_000);
        Driver {
            tracker,
            resolve_tx,
            parser: JsonParser::new(),
            sessions: HashMap::new(),
            routing: routing::Routing::default(),
            json_errors: 0,
            push_legs: LegHistograms::default(),
            risk: risk.map(|book| risk_feed::RiskFeed::with_capacity(book, cfg.order_capacity)),
            recorder,
            observe,
            ends_written: Vec::with_capacity(64),
            metrics_tx,
            interval_ns,
            next_report_ns: now_ns().saturating_add(interval_ns),
            publish_ns: u64::try_from(crate::metrics::state::PUBLISH_PERIOD.as_nanos())
                .unwrap_or(u64::MAX),
            next_publish_ns: 0,
            busy: 0,
        }
    }

    /// Handles one input; false once it was [`TrackerInput::Shutdown`]. Under sustained
    /// input the watchdog still ticks and the counters are still published, every
    /// [`TICK_EVERY_INPUTS`] inputs.
    pub(crate) fn handle_input(&mut self, input: TrackerInput) -> bool {
        let running = self.handle(input);
        self.busy = self.busy.wrapping_add(1);
        if self.busy.is_multiple_of(TICK_EVERY_INPUTS) {
            self.tick();
            self.publish();
        }
        running
    }

    /// What the driver does when no input waits: watchdog tick, flush of the sessions'
    /// backlogs, counters published, a latency snapshot sent when due.
    pub(crate) fn idle_work(&mut self) {
        self.tick();
        for out in self.sessions.values() {
            out.flush();
        }
        self.publish();
        if self.interval_ns > 0 {
            let now = now_ns();
            if now >= self.next_report_ns {
                self.next_report_ns = now.saturating_add(self.interval_ns);
                if let Some(tx) = &self.metrics_tx {
                    // Two O(1) swaps with cleared sets the reporter returned: no allocation
                    // and no merge on this thread (the reporter merges).
                    tx.send_swap(self.tracker.legs_mut());
                    tx.send_swap(&mut self.push_legs);
                }
            }
        }
    }

    /// The summary the driver ends with: counters, the legs since the last snapshot, the
    /// orders still in the table.
    pub(crate) fn finish(mut self) -> TrackerSummary {
        let legs = self.snapshot();
        TrackerSummary {
            stats: self.tracker.stats(),
            json_errors: self.json_errors,
            legs,
            orders: self.tracker.orders().cloned().collect(),
        }
    }

    fn handle(&mut self, input: TrackerInput) -> bool {
        // The one wall-clock reading per input that needs one (the core and the list reports
        // use it); a recording stores it so a replay feeds the same.
        let utc = match &input {
            TrackerInput::Sent(_)
            | TrackerInput::SentBatch(_)
            | TrackerInput::SessionOpened { .. }
            | TrackerInput::SessionClosed { .. }
            | TrackerInput::LinkDown { .. }
            | TrackerInput::LinkUp { .. }
            | TrackerInput::Shutdown => 0,
            _ => utc_now_ns(),
        };
        let mono = match &input {
            TrackerInput::ExchangeState { .. } => now_ns(),
            _ => 0,
        };
        if let Some(rec) = &self.recorder {
            if let Some(recorded) = recorded(&input, mono) {
                rec.input(recorded, utc);
            }
        }
        match input {
            TrackerInput::Sent(req) => {
                if let (Some(feed), RequestKind::New(n)) = (self.risk.as_mut(), &req.kind) {
                    feed.on_new(req.session_id, n);
                }
                self.tracker.on_sent(req)
            }
            TrackerInput::SentBatch(batch) => {
                if let Some(feed) = self.risk.as_mut() {
                    for item in &batch.items {
                        if let RequestKind::New(n) = &item.kind {
                            feed.on_new(batch.session_id, n);
                        }
                    }
                }
                self.tracker.on_sent_batch(batch)
            }
            TrackerInput::ListDone(done) => {
                self.tracker.on_list_done(done);
                self.write_reports(utc);
            }
            TrackerInput::Frame {
                account,
                text,
                t_read_ns,
            } => {
                match self.parser.parse(&text) {
                    Ok(inbound) => {
                        self.tracker.on_inbound(t_read_ns, utc, &inbound);
                        let routes = &self.routing;
                        routing::account_updates(&inbound, utc, |u| {
                            for out in routes.account_sessions(account) {
                                out.send(Flow::Application(Origin::Account), now_ns(), |buf| {
                                    u.encode_frame(buf)
                                });
                            }
                        });
                    }
                    Err(e) => {
                        self.json_errors += 1;
                        if self.json_errors <= 10 {
                            tracing::warn!(error = %e, len = text.len(), "tracker: exchange frame did not parse");
                        }
                    }
                }
                self.write_reports(utc);
            }
            TrackerInput::SessionOpened {
                session_id,
                account,
                role,
                out,
            } => {
                self.tracker.on_session_opened(session_id, account);
                self.routing
                    .open(session_id, account, role, Arc::clone(&out));
                self.sessions.insert(session_id, out);
            }
            TrackerInput::OpenOrders {
                filter,
                exchange,
                reply,
            } => {
                let views = self.tracker.open_orders(&filter, exchange.as_deref(), utc);
                if let Some(rec) = &self.recorder {
                    for v in &views {
                        rec.open_order(v.session_id, v.root, |b| v.report.encode_frame(b));
                    }
                }
                let _ = reply.send(views);
            }
            TrackerInput::MassCancel(ev) => {
                self.tracker.on_mass_cancel(ev, utc);
                self.write_reports(utc);
            }
            TrackerInput::ExchangeState { state, reply } => {
                // Missed changes and the unknown outcomes the state settles, each once.
                let summary = self.tracker.on_exchange_state(mono, utc, &state);
                self.write_reports(utc);
                if let Some(reply) = reply {
                    let _ = reply.send(summary);
                }
            }
            TrackerInput::Restore {
                session_id,
                roots,
                reports,
                unanswered_since_ms,
                unanswered_amends,
            } => {
                let sum = self.tracker.restore_session(
                    session_id,
                    &roots,
                    &reports,
                    &unanswered_since_ms,
                    &unanswered_amends,
                );
                tracing::info!(
                    session_id,
                    orders = sum.orders,
                    open = sum.open,
                    unanswered = sum.unanswered,
                    "tracker: session's orders restored from its journal"
                );
                self.send_resolutions();
            }
            TrackerInput::Epoch {
                session_id,
                epoch,
                order_epochs,
                started,
            } => {
                self.tracker
                    .on_epoch(session_id, epoch, &order_epochs, started, utc);
                // The ended orders it evicted are released before the strategy can see the new
                // epoch's first reports (its next request may reuse their ClOrdIDs).
                self.hand_evicted();
                self.write_reports(utc);
            }
            TrackerInput::LinkDown { account, t_ns } => self.tracker.on_link_down(account, t_ns),
            TrackerInput::LinkUp { account, t_ns } => {
                self.tracker.on_link_up(account, t_ns);
                self.send_resolutions();
            }
            TrackerInput::SessionClosed { session_id } => {
                // The session's writer outlives the connection (recoverable flow): reports
                // keep going to it, numbered and journaled, for retransmission on reconnect.
                tracing::debug!(session_id, "tracker: session detached, reports journaled");
                self.tracker.on_session_closed(session_id);
            }
            TrackerInput::Shutdown => return false,
        }
        self.hand_evicted();
        true
    }

    /// Tells each session's order entry the roots of its orders the tracker evicted (it
    /// releases their ClOrdIDs; off the order path: a lock and a push per evicted order).
    fn hand_evicted(&mut self) {
        for e in self.tracker.drain_evicted() {
            if let Some(out) = self.sessions.get(&e.session_id) {
                out.note_evicted(e.root, e.ended_before_epoch);
            }
        }
    }

    /// Watchdog tick and hand-over of the queued resolution requests (idle loop). A tick that
    /// queued reports (an OrderMassCancelReport released at the push deadline, a timed-out
    /// list's ListStatus) is recorded before them, so that a replay makes them at the same
    /// point. The tick also evicts ended orders past the retention window; an eviction changes
    /// no report (an evicted order answers everything late as it did in full, see
    /// [`retention`]), so a tick that only evicted is not recorded.
    fn tick(&mut self) {
        let (mono, utc) = (now_ns(), utc_now_ns());
        self.tracker.on_tick(mono, utc);
        if let Some(rec) = &self.recorder {
            if self.tracker.has_queued_output() {
                let d = self.tracker.deadlines();
                let tick = RecordedInput::Tick {
                    now_ns: mono,
                    reply_timeout_ms: d.reply_timeout_ms,
                    push_deadline_ms: d.push_deadline_ms,
                };
                rec.input(tick, utc);
            }
        }
        self.send_resolutions();
        // Evicted orders are released before the reports are written: a rollover's OrderStatus
        // of an ended order, made by this tick, may be followed at once by a new order reusing
        // its ClOrdID (free in the new epoch once the order has left).
        self.hand_evicted();
        self.write_reports(utc);
    }

    fn send_resolutions(&mut self) {
        for req in self.tracker.drain_resolve_requests() {
            tracing::info!(account = req.account, client_oid = req.client_oid.as_str(), cause = ?req.cause, "tracker: outcome unknown, querying the order");
            if let Some(tx) = &self.resolve_tx {
                let _ = tx.send(req);
            }
        }
    }

    fn write_reports(&mut self, utc: u64) {
        for report in self.tracker.drain_reports() {
            if let Some(feed) = self.risk.as_mut() {
                feed.on_report(report.session_id, &report.msg);
            }
            let Some(out) = self.sessions.get(&report.session_id) else {
                continue;
            };
            if let Some(m) = &self.observe {
                m.count_report(&report.msg);
            }
            let encode = |buf: &mut Vec<u8>| frames::encode_report(&report.msg, buf);
            if let Some(rec) = &self.recorder {
                rec.report(report.session_id, encode);
            }
            let written = out.send(Flow::Application(report.origin), now_ns(), encode);
            if let ReportMsg::Exec(er) = &report.msg {
                if gateway_core::tracker::order::is_final(er.ord_status) {
                    // Read after the write: a Terminate in between errs on the safe side
                    // (counted as ended in the new epoch: its ClOrdIDs stay used).
                    self.ends_written
                        .push((report.session_id, report.root, out.epoch()));
                }
            }
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
        }
        for (session_id, root, epoch) in self.ends_written.drain(..) {
            self.tracker.note_end_written(session_id, root, epoch);
        }
        for list in self.tracker.drain_list_reports() {
            if let Some(out) = self.sessions.get(&list.session_id) {
                write_list_status(out, &list, utc, self.recorder.as_ref());
            }
        }
    }

    /// Publishes the tracker's counters and order gauges to the metrics endpoint's state once
    /// every [`crate::metrics::state::PUBLISH_PERIOD`].
    fn publish(&mut self) {
        let Some(m) = &self.observe else {
            return;
        };
        let now = now_ns();
        if now >= self.next_publish_ns {
            self.next_publish_ns = now.saturating_add(self.publish_ns);
            m.set_tracker(&self.tracker.stats());
            m.set_tracker_orders(&self.tracker.order_counts());
        }
    }

    fn snapshot(&mut self) -> LegHistograms {
        let mut legs = std::mem::take(self.tracker.legs_mut());
        let _ = legs.merge(&self.push_legs);
        self.push_legs = LegHistograms::default();
        legs
    }
}

/// Writes a list's entries as ListStatus messages of at most
/// [`ListStatus::MAX_ENTRIES_PER_FRAME`] entries, LastFragment = Yes on the last one.
fn write_list_status(
    out: &SessionOut,
    list: &ListReport,
    utc_ns: u64,
    recorder: Option<&crate::replay::Recorder>,
) {
    let count = frames::list_status_frame_count(list);
    for n in 0..count {
        let encode = |buf: &mut Vec<u8>| frames::encode_list_status(list, utc_ns, n, count, buf);
        if let Some(rec) = recorder {
            rec.report(list.session_id, encode);
        }
        out.send(Flow::Application(Origin::List), now_ns(), encode);
    }
}
