//! The tracker's sequencing, as its thread runs it: [`TrackerDrive`] owns the [`Tracker`] with
//! what surrounds it on that thread and has no I/O of its own (the JSON parser, the optional
//! [`RiskFeed`], the scratch list of ends written, the count of frames that did not parse),
//! and takes each tracker input by one method that does, in order, what the shell's driver did
//! with it: the call into the tracker, then the hand-over of what it produced, through a
//! [`TrackerSink`] the caller gives, in a fixed order.
//!
//! The gateway's tracker thread (and the io thread when it runs the tracker inline) drives it
//! with a sink that writes to the strategy sessions (`gateway::tracker::driver`); the replay
//! ([`crate::replay`]) and the deterministic simulator drive it with sinks of their own, so
//! that all run the same sequence. Every time is an argument (`now_ns` monotonic, `utc_ns`
//! wall clock, both ns): no clock is read here.
//!
//! What every method hands over, in this order (a method hands only the parts its input can
//! produce, listed on it):
//! - Reports: each queued [`Report`], oldest first, is first given to the risk feed
//!   ([`RiskFeed::on_report`]), then to [`TrackerSink::write_report`]; when the sink wrote it (returned the epoch of the writer it went to) and it is an
//!   ExecutionReport with a final OrdStatus, the order's end is noted to the tracker
//!   ([`Tracker::note_end_written`]) with that epoch, once every report of the batch was
//!   written. Then the list reports ([`TrackerSink::write_list_status`]).
//! - Evicted orders ([`TrackerSink::evicted`]): after every input (after its reports), and on
//!   a tick or an epoch before the reports (see [`TrackerDrive::on_tick`]).
//! - Resolution requests ([`TrackerSink::resolve`]): after a restore, a link coming back, and
//!   on every tick before the evicted orders and the reports.

use std::collections::HashMap;

use codec::json::JsonParser;
use codec::sbe::ExecutionReport;

use super::core::Tracker;
use super::lists::ListReport;
use super::mass::{MassCancelEvent, OrderFilter, OrderView};
use super::order::is_final;
use super::reconcile::{ApplySummary, ExchangeState};
use super::report::{Report, ReportMsg};
use super::request::{ListDone, RequestKind, SentBatch, SentRequest};
use super::resolve::{Deadlines, ResolveRequest};
use super::retention::Evicted;
use super::risk_feed::RiskFeed;
use super::routing::{account_updates, AccountUpdate};
use crate::metrics::LegHistograms;
use crate::rest_objects::OpenOrder;

/// Where a [`TrackerDrive`] hands what the tracker produced: the shell's session writers, or a
/// replay's or simulator's record of them. Called synchronously from the drive's methods, in
/// the order the module documentation gives; static dispatch (`&mut impl TrackerSink`).
pub trait TrackerSink {
    /// Writes `report` to its session (`report.session_id`; its drop copies, counters and
    /// latency legs are the sink's business). Returns the epoch of the writer it went to, read
    /// after the write (a writer that ended its epoch in between errs on the safe side), or
    /// `None` when the session has no writer: then nothing was written and, for a final
    /// ExecutionReport, no end is noted.
    fn write_report(&mut self, report: &Report) -> Option<u32>;

    /// Writes the ListStatus messages of `list` to its session (`list.session_id`, nothing
    /// when it has no writer), stamped `utc_ns` (the input's wall-clock time, ns).
    fn write_list_status(&mut self, list: &ListReport, utc_ns: u64);

    /// Writes a position or balance update of account `account` (index) to every session of
    /// that account (see [`super::routing::Routing::account_sessions`]).
    fn account_update(&mut self, account: usize, update: &AccountUpdate);

    /// Hands over an order whose outcome must be queried at the exchange (the gateway sends it
    /// to the io thread's resolution driver).
    fn resolve(&mut self, request: ResolveRequest);

    /// Hands over an order the tracker evicted: the session's order entry releases its
    /// ClOrdIDs (see [`Evicted`]).
    fn evicted(&mut self, evicted: Evicted);

    /// A watchdog tick (`now_ns` monotonic, `utc_ns` wall clock, with the tracker's
    /// `deadlines`) queued reports or list reports: called before any of them is handed over
    /// (the gateway records the tick here, so that a replay makes them at the same point).
    /// Not called for a tick that queued none. Default: nothing.
    fn tick_queued_output(&mut self, now_ns: u64, utc_ns: u64, deadlines: Deadlines) {
        let _ = (now_ns, utc_ns, deadlines);
    }
}

/// The [`Tracker`] and what its thread keeps beside it, driven input by input (see the module
/// documentation for the order of what each input hands to the [`TrackerSink`]).
#[derive(Debug)]
pub struct TrackerDrive {
    tracker: Tracker,
    parser: JsonParser,
    risk: Option<RiskFeed>,
    /// Orders whose final report was just written: (SessionID, root ClOrdID, epoch of the
    /// writer it went to), told to the tracker once the batch of reports is written (reused,
    /// no allocation once warm).
    ends_written: Vec<(u64, u64, u32)>,
    json_errors: u64,
}

impl TrackerDrive {
    /// A drive of `tracker` (configured: retention, deadlines); fills and ended orders update
    /// `risk` when given (sized like the tracker, [`RiskFeed::with_capacity`]).
    pub fn new(tracker: Tracker, risk: Option<RiskFeed>) -> TrackerDrive {
        TrackerDrive {
            tracker,
            parser: JsonParser::new(),
            risk,
            ends_written: Vec::with_capacity(64),
            json_errors: 0,
        }
    }

    /// The tracker (its stats, orders, counts).
    pub fn tracker(&self) -> &Tracker {
        &self.tracker
    }

    /// The latency legs the tracker measures (the shell swaps them out every report interval).
    pub fn legs_mut(&mut self) -> &mut LegHistograms {
        self.tracker.legs_mut()
    }

    /// Sets the watchdog's deadlines (a replay sets those each recorded tick ran with).
    pub fn set_deadlines(&mut self, deadlines: Deadlines) {
        self.tracker.set_deadlines(deadlines);
    }

    /// The risk feed, when there is one.
    pub fn risk(&self) -> Option<&RiskFeed> {
        self.risk.as_ref()
    }

    /// Exchange frames that did not parse as JSON since start.
    pub fn json_errors(&self) -> u64 {
        self.json_errors
    }

    /// A trade op was written: a new order's open quantity goes to the risk feed, then the
    /// tracker registers it ([`Tracker::on_sent`]). Hands over: evicted.
    pub fn on_sent(&mut self, sink: &mut impl TrackerSink, req: SentRequest) {
        if let (Some(feed), RequestKind::New(n)) = (self.risk.as_mut(), &req.kind) {
            feed.on_new(req.session_id, n);
        }
        self.tracker.on_sent(req);
        self.hand_evicted(sink);
    }

    /// An exchange batch of a strategy list was written: its new orders go to the risk feed,
    /// then the tracker registers it ([`Tracker::on_sent_batch`]). Hands over: evicted.
    pub fn on_sent_batch(&mut self, sink: &mut impl TrackerSink, batch: SentBatch) {
        if let Some(feed) = self.risk.as_mut() {
            for item in &batch.items {
                if let RequestKind::New(n) = &item.kind {
                    feed.on_new(batch.session_id, n);
                }
            }
        }
        self.tracker.on_sent_batch(batch);
        self.hand_evicted(sink);
    }

    /// The io thread is done with a strategy list ([`Tracker::on_list_done`]) at `utc_ns`.
    /// Hands over: reports, evicted.
    pub fn on_list_done(&mut self, sink: &mut impl TrackerSink, done: ListDone, utc_ns: u64) {
        self.tracker.on_list_done(done);
        self.write_reports(sink, utc_ns);
        self.hand_evicted(sink);
    }

    /// A text frame of account `account`'s private WebSocket, read at `t_read_ns` (monotonic)
    /// and handled at `utc_ns`: parsed, applied ([`Tracker::on_inbound`]), and a `position` or
    /// `account` push turned into account updates ([`account_updates`]); a frame that does
    /// not parse is counted ([`TrackerDrive::json_errors`], the first 10 logged). Hands over:
    /// account updates, reports, evicted.
    pub fn on_frame(
        &mut self,
        sink: &mut impl TrackerSink,
        account: usize,
        text: &[u8],
        t_read_ns: u64,
        utc_ns: u64,
    ) {
        match self.parser.parse(text) {
            Ok(inbound) => {
                self.tracker.on_inbound(t_read_ns, utc_ns, &inbound);
                account_updates(&inbound, utc_ns, |u| sink.account_update(account, &u));
            }
            Err(e) => {
                self.json_errors += 1;
                if self.json_errors <= 10 {
                    tracing::warn!(error = %e, len = text.len(), "tracker: exchange frame did not parse");
                }
            }
        }
        self.write_reports(sink, utc_ns);
        self.hand_evicted(sink);
    }

    /// Strategy session `session_id` was established on account `account`
    /// ([`Tracker::on_session_opened`]). The shell registers the session's writer in its sink
    /// first. Hands over: evicted.
    pub fn on_session_opened(
        &mut self,
        sink: &mut impl TrackerSink,
        session_id: u64,
        account: usize,
    ) {
        self.tracker.on_session_opened(session_id, account);
        self.hand_evicted(sink);
    }

    /// Strategy session `session_id`'s connection ended ([`Tracker::on_session_closed`]; in
    /// the gateway its writer stays: reports keep going to it, numbered and journaled, for
    /// retransmission on reconnect). Hands over: evicted.
    pub fn on_session_closed(&mut self, sink: &mut impl TrackerSink, session_id: u64) {
        tracing::debug!(
            session = session_id,
            "tracker: session detached, reports journaled"
        );
        self.tracker.on_session_closed(session_id);
        self.hand_evicted(sink);
    }

    /// Query: the open orders `filter` selects, reconciled first with `exchange` (the
    /// account's `unfilled-orders`) when given, stamped `utc_ns` ([`Tracker::open_orders`]),
    /// given to `answer` with the sink (the gateway records the answer through it). Hands
    /// over: evicted (after `answer`).
    pub fn open_orders<S: TrackerSink>(
        &mut self,
        sink: &mut S,
        filter: &OrderFilter,
        exchange: Option<&[OpenOrder]>,
        utc_ns: u64,
        answer: impl FnOnce(&mut S, Vec<OrderView>),
    ) {
        let views = self.tracker.open_orders(filter, exchange, utc_ns);
        answer(sink, views);
        self.hand_evicted(sink);
    }

    /// Progress of a mass cancel at `utc_ns` ([`Tracker::on_mass_cancel`]). Hands over:
    /// reports, evicted.
    pub fn on_mass_cancel(
        &mut self,
        sink: &mut impl TrackerSink,
        ev: MassCancelEvent,
        utc_ns: u64,
    ) {
        self.tracker.on_mass_cancel(ev, utc_ns);
        self.write_reports(sink, utc_ns);
        self.hand_evicted(sink);
    }

    /// What the exchange's REST queries say about some orders, read at `now_ns` (monotonic),
    /// applied at `utc_ns` ([`Tracker::on_exchange_state`]: missed changes and the unknown
    /// outcomes it settles, each once); its summary goes to `answer` with the sink once the
    /// reports are written. Hands over: reports, then `answer`, then evicted.
    pub fn on_exchange_state<S: TrackerSink>(
        &mut self,
        sink: &mut S,
        now_ns: u64,
        utc_ns: u64,
        state: &ExchangeState,
        answer: impl FnOnce(&mut S, ApplySummary),
    ) {
        let summary = self.tracker.on_exchange_state(now_ns, utc_ns, state);
        self.write_reports(sink, utc_ns);
        answer(sink, summary);
        self.hand_evicted(sink);
    }

    /// Crash recovery: rebuilds session `session_id`'s orders from its journal
    /// ([`Tracker::restore_session`]: `roots` every ClOrdID → root, `reports` its
    /// ExecutionReports in sequence order, `unanswered_since_ms` roots no report names → UTC
    /// ms from which the exchange's lists show them, `unanswered_amends` cancel / replace
    /// ClOrdIDs no report names), logged. Hands over: resolution requests, evicted.
    pub fn on_restore(
        &mut self,
        sink: &mut impl TrackerSink,
        session_id: u64,
        roots: &HashMap<u64, u64>,
        reports: &[ExecutionReport],
        unanswered_since_ms: &HashMap<u64, u64>,
        unanswered_amends: &[u64],
    ) {
        let sum = self.tracker.restore_session(
            session_id,
            roots,
            reports,
            unanswered_since_ms,
            unanswered_amends,
        );
        if let Some(risk) = self.risk.as_mut() {
            // The restored open orders count in the risk book as they did before the restart.
            for o in self
                .tracker
                .orders()
                .filter(|o| o.session_id == session_id && !o.is_terminal())
            {
                risk.on_restored(
                    session_id,
                    o.cl_ord_id,
                    o.category,
                    o.symbol,
                    o.side,
                    o.leaves_qty(),
                );
            }
        }
        tracing::info!(
            session = session_id,
            orders = sum.orders,
            open = sum.open,
            unanswered = sum.unanswered,
            "tracker: session's orders restored from its journal"
        );
        self.send_resolutions(sink);
        self.hand_evicted(sink);
    }

    /// Session `session_id` is in epoch `epoch` ([`Tracker::on_epoch`]; `order_epochs`: (root,
    /// epoch) of orders carried from earlier epochs; `started`: a rollover) at `utc_ns`.
    /// Hands over: evicted, then reports, then evicted (none left by then).
    pub fn on_epoch(
        &mut self,
        sink: &mut impl TrackerSink,
        session_id: u64,
        epoch: u32,
        order_epochs: &[(u64, u32)],
        started: bool,
        utc_ns: u64,
    ) {
        self.tracker
            .on_epoch(session_id, epoch, order_epochs, started, utc_ns);
        // The ended orders it evicted are released before the strategy can see the new
        // epoch's first reports (its next request may reuse their ClOrdIDs).
        self.hand_evicted(sink);
        self.write_reports(sink, utc_ns);
        self.hand_evicted(sink);
    }

    /// Account `account`'s subscribed link dropped at `t_ns` (monotonic;
    /// [`Tracker::on_link_down`]). Hands over: evicted.
    pub fn on_link_down(&mut self, sink: &mut impl TrackerSink, account: usize, t_ns: u64) {
        self.tracker.on_link_down(account, t_ns);
        self.hand_evicted(sink);
    }

    /// Account `account`'s link is back at `t_ns` (monotonic), resubscribed and reconciled
    /// ([`Tracker::on_link_up`]). Hands over: resolution requests (those held while it was
    /// down), evicted.
    pub fn on_link_up(&mut self, sink: &mut impl TrackerSink, account: usize, t_ns: u64) {
        self.tracker.on_link_up(account, t_ns);
        self.send_resolutions(sink);
        self.hand_evicted(sink);
    }

    /// Watchdog tick at `now_ns` (monotonic) / `utc_ns` ([`Tracker::on_tick`]: timeouts,
    /// push deadlines, rollover OrderStatus, retention). Hands over:
    /// [`TrackerSink::tick_queued_output`] when it queued reports, then resolution requests,
    /// evicted orders, reports. Evicted orders are released before the reports are written:
    /// a rollover's OrderStatus of an ended order, made by this tick, may be followed at once
    /// by a new order reusing its ClOrdID (free in the new epoch once the order has left).
    pub fn on_tick(&mut self, sink: &mut impl TrackerSink, now_ns: u64, utc_ns: u64) {
        self.tracker.on_tick(now_ns, utc_ns);
        if self.tracker.has_queued_output() {
            sink.tick_queued_output(now_ns, utc_ns, self.tracker.deadlines());
        }
        self.send_resolutions(sink);
        self.hand_evicted(sink);
        self.write_reports(sink, utc_ns);
    }

    /// Hands every order the tracker evicted to the sink, oldest first.
    fn hand_evicted(&mut self, sink: &mut impl TrackerSink) {
        for e in self.tracker.drain_evicted() {
            sink.evicted(e);
        }
    }

    /// Hands every queued resolution request to the sink, logged.
    fn send_resolutions(&mut self, sink: &mut impl TrackerSink) {
        for req in self.tracker.drain_resolve_requests() {
            tracing::info!(account_ix = req.account, client_oid = req.client_oid.as_str(), cause = ?req.cause, "tracker: outcome unknown, querying the order");
            sink.resolve(req);
        }
    }

    /// Writes the queued reports, then notes the ends written, then writes the list reports
    /// (`utc_ns`: their stamp); see the module documentation.
    fn write_reports(&mut self, sink: &mut impl TrackerSink, utc_ns: u64) {
        for report in self.tracker.drain_reports() {
            if let Some(feed) = self.risk.as_mut() {
                feed.on_report(report.session_id, &report.msg);
            }
            let Some(epoch) = sink.write_report(&report) else {
                continue;
            };
            if let ReportMsg::Exec(er) = &report.msg {
                if is_final(er.ord_status) {
                    self.ends_written
                        .push((report.session_id, report.root, epoch));
                }
            }
        }
        for (session_id, root, epoch) in self.ends_written.drain(..) {
            self.tracker.note_end_written(session_id, root, epoch);
        }
        for list in self.tracker.drain_list_reports() {
            sink.write_list_status(&list, utc_ns);
        }
    }
}
