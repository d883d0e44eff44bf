//! Order tracking on a pinned thread.
//!
//! [`Tracker`] (sans-I/O, in `core`) owns every order's ids and state. [`spawn`] runs it on its
//! own thread, pinned to a core when configured, polling a crossbeam channel with the configured
//! [`IdleStrategy`]. The io thread sends it each trade op right after writing it
//! ([`TrackerInput::Sent`]) and each text frame of the private WebSocket
//! ([`TrackerInput::Frame`]); the tracker parses the frame (simd-json, reused buffers), updates
//! the orders and writes the resulting ExecutionReports straight to the strategy sockets.

pub use gateway_core::tracker::{
    core, frames, mass, order, reconcile, request, resolve, restore, retention, risk_feed,
};
pub mod frame_pool;
pub mod routing;

use std::collections::HashMap;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use codec::json::JsonParser;
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, TryRecvError};

use crate::idle::{IdleStep, IdleStrategy, Idler};
use crate::metrics::state::MetricsState;
use crate::metrics::{now_ns, utc_now_ns, Leg, LegHistograms, SnapshotTx};
use crate::replay::RecordedInput;
use crate::session::out::{Flow, SessionOut};
use gateway_core::journal::record::Origin;
pub use gateway_core::tracker::{
    ApplySummary, BatchItem, ClockOffset, Deadlines, ExchangeState, ListDone, ListReport,
    MassCancelEvent, NewOrder, Order, OrderFilter, OrderScope, OrderView, Report, ReportMsg,
    RequestKind, ResolveRequest, Retention, SentBatch, SentRequest, StateSource, Tracker,
    TrackerStats, UnknownCause, OUTCOME_UNKNOWN_CODES,
};

/// What the tracker thread consumes.
#[derive(Debug)]
pub enum TrackerInput {
    /// A trade op was written to the exchange.
    Sent(SentRequest),
    /// An exchange batch of a strategy list was written.
    SentBatch(SentBatch),
    /// The io thread is done with a strategy list (its ListStatus follows once every batch is
    /// answered).
    ListDone(ListDone),
    /// A text frame from the private WebSocket, read at `t_read_ns` (monotonic).
    Frame {
        /// Index of the account whose connection it came from.
        account: usize,
        /// The frame's payload (a pooled copy: dropping it returns the buffer).
        text: frame_pool::FrameBuf,
        /// When the io thread read it.
        t_read_ns: u64,
    },
    /// A strategy session was established; its reports go to `out`.
    SessionOpened {
        /// SessionID.
        session_id: u64,
        /// Index of the account the session is bound to.
        account: usize,
        /// What the session may do (drop-copy sessions get every report of their account).
        role: crate::types::SessionRole,
        /// Its writer.
        out: Arc<SessionOut>,
    },
    /// A strategy session's connection ended (its writer stays; reports keep being journaled).
    SessionClosed {
        /// SessionID.
        session_id: u64,
    },
    /// Query: the open orders `filter` selects (after reconciling with `exchange`, the
    /// account's `unfilled-orders`, when given), answered on `reply`.
    OpenOrders {
        /// Which orders.
        filter: OrderFilter,
        /// The exchange's open orders of the account (RefreshFromExchange).
        exchange: Option<Vec<crate::exchange::rest_orders::OpenOrder>>,
        /// Where the answer goes.
        reply: tokio::sync::oneshot::Sender<Vec<OrderView>>,
    },
    /// Progress of a mass cancel (see [`MassCancelEvent`]).
    MassCancel(MassCancelEvent),
    /// What the exchange's REST queries say about some orders (see [`reconcile`]); the summary
    /// goes to `reply` once applied.
    ExchangeState {
        /// The orders and fills.
        state: ExchangeState,
        /// Where the summary goes.
        reply: Option<tokio::sync::oneshot::Sender<ApplySummary>>,
    },
    /// Crash recovery: rebuild a recovered session's orders from its journal (after its
    /// `SessionOpened`; see [`restore`]).
    Restore {
        /// SessionID.
        session_id: u64,
        /// Every ClOrdID the session used → root ClOrdID.
        roots: HashMap<u64, u64>,
        /// The ExecutionReports sent to it, in sequence order.
        reports: Vec<codec::sbe::ExecutionReport>,
        /// Root ClOrdIDs no report names → UTC ms from which the exchange's lists show them
        /// (see [`crate::journal::store::Recovered::unanswered_since_ms`]).
        unanswered_since_ms: HashMap<u64, u64>,
        /// Cancel and replace ClOrdIDs no report names (see
        /// [`crate::journal::store::Recovered::unanswered_amends`]).
        unanswered_amends: Vec<u64>,
    },
    /// Session `session_id` is in epoch `epoch`: at start-up (its journal's epoch, with the
    /// epochs of the orders carried from earlier ones) or at a rollover (`started`: its open
    /// orders are reported OrderStatus as the new epoch's first messages).
    Epoch {
        /// SessionID.
        session_id: u64,
        /// The epoch.
        epoch: u32,
        /// (root, epoch) of the orders placed in earlier epochs still open.
        order_epochs: Vec<(u64, u32)>,
        /// A rollover, not a restart.
        started: bool,
    },
    /// The subscribed link of an account dropped (its pushes are missing until `LinkUp`).
    LinkDown {
        /// Account index.
        account: usize,
        /// When (monotonic ns).
        t_ns: u64,
    },
    /// The account's link is back, resubscribed and reconciled.
    LinkUp {
        /// Account index.
        account: usize,
        /// When (monotonic ns).
        t_ns: u64,
    },
    /// Stop the thread (it returns its [`TrackerSummary`]).
    Shutdown,
}

/// Where and how the tracker thread runs.
#[derive(Debug, Clone, Copy)]
pub struct TrackerThreadConfig {
    /// CPU to pin to (`None`: let the scheduler place it).
    pub core: Option<usize>,
    /// Idle strategy of the polling loop.
    pub idle: IdleStrategy,
    /// How often latency snapshots are sent to the metrics channel, in ms (0: never).
    pub report_interval_ms: u64,
    /// Unknown-outcome and watchdog deadlines (`[tracker] reply_timeout_ms`,
    /// `push_deadline_ms`).
    pub deadlines: Deadlines,
    /// Open orders the table holds before it first grows (`[tracker] order_capacity`; see
    /// [`core::INITIAL_ORDERS`]); the table is sized for these plus
    /// `retention.retention_orders` ended ones.
    pub order_capacity: usize,
    /// How long ended orders stay in full, and how many evicted ones are still recognised
    /// (`[tracker] retention_ms`, `retention_orders`, `tombstones`; see [`retention`]).
    pub retention: Retention,
}

impl Default for TrackerThreadConfig {
    fn default() -> Self {
        TrackerThreadConfig {
            core: None,
            idle: IdleStrategy::Park,
            report_interval_ms: 0,
            deadlines: Deadlines::default(),
            order_capacity: core::INITIAL_ORDERS,
            retention: Retention::default(),
        }
    }
}

/// Where the tracker sends the orders whose outcome must be queried (the io thread's
/// resolution driver).
pub type ResolveSender = tokio::sync::mpsc::UnboundedSender<ResolveRequest>;

/// What the tracker thread hands back when it stops.
#[derive(Debug)]
pub struct TrackerSummary {
    /// Counters.
    pub stats: TrackerStats,
    /// Frames that did not parse as JSON.
    pub json_errors: u64,
    /// Latency legs measured on this thread since the last snapshot.
    pub legs: LegHistograms,
    /// Final state of the orders still in the tracker's live table: the open ones and the ended
    /// ones not evicted yet (an ended order leaves after the retention window; see
    /// [`retention`]).
    pub orders: Vec<Order>,
}

/// Handle to the running tracker thread.
#[derive(Debug)]
pub struct TrackerHandle {
    /// Send inputs here.
    pub tx: Sender<TrackerInput>,
    join: JoinHandle<TrackerSummary>,
}

impl TrackerHandle {
    /// Asks the thread to stop and waits for its summary (`None` if it panicked).
    pub fn shutdown(self) -> Option<TrackerSummary> {
        let _ = self.tx.send(TrackerInput::Shutdown);
        self.join.join().ok()
    }
}

/// How many inputs may wait for the tracker thread. The queue is one preallocated ring
/// (crossbeam's array flavour), so passing an input never allocates (an unbounded channel
/// allocates a block every 31 messages on the sending thread, the io thread's order path); a
/// sender that finds it full waits for the tracker to drain it (back-pressure, nothing is
/// dropped). 16 384 inputs cover every burst the gateway makes (a mass cancel's pushes, a
/// batch's replies) many times over.
pub const INPUT_QUEUE_CAPACITY: usize = 16_384;

/// Starts the tracker thread. Latency snapshots (interval histograms) go to `metrics_tx`;
/// fills and ended orders update `risk` when given. Unknown outcomes are detected but not
/// queried (see [`spawn_recording`]).
pub fn spawn(
    cfg: TrackerThreadConfig,
    metrics_tx: Option<SnapshotTx>,
    risk: Option<Arc<crate::risk::RiskBook>>,
) -> std::io::Result<TrackerHandle> {
    spawn_recording(cfg, metrics_tx, risk, None, None)
}

/// [`spawn`], recording every input and output to `recorder` when given (see
/// [`crate::replay`]), and sending the orders whose outcome is unknown to `resolve_tx` (the io
/// thread's resolution driver).
pub fn spawn_recording(
    cfg: TrackerThreadConfig,
    metrics_tx: Option<SnapshotTx>,
    risk: Option<Arc<crate::risk::RiskBook>>,
    recorder: Option<crate::replay::Recorder>,
    resolve_tx: Option<ResolveSender>,
) -> std::io::Result<TrackerHandle> {
    spawn_observed(cfg, metrics_tx, risk, recorder, resolve_tx, None)
}

/// [`spawn_recording`], counting every report written in `observe` (the metrics endpoint's
/// state) and publishing the tracker's counters there every
/// [`crate::metrics::state::PUBLISH_PERIOD`] while idle.
pub fn spawn_observed(
    cfg: TrackerThreadConfig,
    metrics_tx: Option<SnapshotTx>,
    risk: Option<Arc<crate::risk::RiskBook>>,
    recorder: Option<crate::replay::Recorder>,
    resolve_tx: Option<ResolveSender>,
    observe: Option<Arc<MetricsState>>,
) -> std::io::Result<TrackerHandle> {
    let (tx, rx) = crossbeam_channel::bounded(INPUT_QUEUE_CAPACITY);
    let join = std::thread::Builder::new()
        .name("bgw-tracker".into())
        .spawn(move || {
            crate::idle::init_parking();
            if let Some(core) = cfg.core {
                let pinned = core_affinity::set_for_current(core_affinity::CoreId { id: core });
                if !pinned {
                    tracing::warn!(core, "tracker: could not pin to core");
                }
            }
            run(cfg, rx, metrics_tx, risk, recorder, resolve_tx, observe)
        })?;
    Ok(TrackerHandle { tx, join })
}

struct Driver {
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
}

impl Driver {
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

    /// Publishes the tracker's counters and order gauges to the metrics endpoint's state when
    /// `next_ns` (monotonic) has passed, then sets it `period_ns` later.
    fn publish(&self, next_ns: &mut u64, period_ns: u64) {
        let Some(m) = &self.observe else {
            return;
        };
        let now = now_ns();
        if now >= *next_ns {
            *next_ns = now.saturating_add(period_ns);
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

fn run(
    cfg: TrackerThreadConfig,
    rx: Receiver<TrackerInput>,
    metrics_tx: Option<SnapshotTx>,
    risk: Option<Arc<crate::risk::RiskBook>>,
    recorder: Option<crate::replay::Recorder>,
    resolve_tx: Option<ResolveSender>,
    observe: Option<Arc<MetricsState>>,
) -> TrackerSummary {
    let mut tracker = Tracker::with_retention(cfg.order_capacity, cfg.retention);
    tracker.set_deadlines(cfg.deadlines);
    let mut d = Driver {
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
    };
    let publish_ns =
        u64::try_from(crate::metrics::state::PUBLISH_PERIOD.as_nanos()).unwrap_or(u64::MAX);
    let mut next_publish_ns = 0;
    let mut idler = Idler::new(cfg.idle);
    let interval_ns = cfg.report_interval_ms.saturating_mul(1_000_000);
    let mut next_report_ns = now_ns().saturating_add(interval_ns);
    let mut running = true;
    let mut busy: u32 = 0;
    while running {
        match rx.try_recv() {
            Ok(input) => {
                idler.reset();
                running = d.handle(input);
                busy = busy.wrapping_add(1);
                if busy.is_multiple_of(TICK_EVERY_INPUTS) {
                    // Never idle under sustained load: the watchdog still runs, and the
                    // counters and gauges are still published.
                    d.tick();
                    d.publish(&mut next_publish_ns, publish_ns);
                }
                continue;
            }
            Err(TryRecvError::Disconnected) => break,
            Err(TryRecvError::Empty) => {}
        }
        // Idle: watchdog, flush backlogs, send a latency snapshot when due, then wait.
        d.tick();
        for out in d.sessions.values() {
            out.flush();
        }
        d.publish(&mut next_publish_ns, publish_ns);
        if interval_ns > 0 {
            let now = now_ns();
            if now >= next_report_ns {
                next_report_ns = now.saturating_add(interval_ns);
                if let Some(tx) = &metrics_tx {
                    // Two O(1) swaps with cleared sets the reporter returned: no allocation
                    // and no merge on this thread (the reporter merges).
                    tx.send_swap(d.tracker.legs_mut());
                    tx.send_swap(&mut d.push_legs);
                }
            }
        }
        if let IdleStep::Park(timeout) = idler.idle() {
            match rx.recv_timeout(timeout) {
                Ok(input) => {
                    idler.reset();
                    running = d.handle(input);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
    }
    let legs = d.snapshot();
    TrackerSummary {
        stats: d.tracker.stats(),
        json_errors: d.json_errors,
        legs,
        orders: d.tracker.orders().cloned().collect(),
    }
}

/// Inputs handled back to back before the watchdog ticks anyway.
const TICK_EVERY_INPUTS: u32 = 1024;

/// Upper bound on how long [`TrackerHandle::shutdown`] may take when the thread is parked.
pub const SHUTDOWN_LATENCY: Duration = crate::idle::PARK_TIMEOUT;

/// The recorded form of `input` (what a replay recording keeps of it), handed to the core with the monotonic time `mono_ns`
/// (kept for ExchangeState); `None` for an input that is not recorded (Shutdown). Maps
/// are sorted so that the same input always gives the same bytes.
pub(crate) fn recorded(input: &TrackerInput, mono_ns: u64) -> Option<RecordedInput> {
    fn sorted(map: &std::collections::HashMap<u64, u64>) -> Vec<(u64, u64)> {
        let mut v: Vec<(u64, u64)> = map.iter().map(|(k, v)| (*k, *v)).collect();
        v.sort_unstable();
        v
    }
    Some(match input {
        TrackerInput::Sent(r) => RecordedInput::Sent(*r),
        TrackerInput::SentBatch(b) => RecordedInput::SentBatch(b.clone()),
        TrackerInput::ListDone(d) => RecordedInput::ListDone(d.clone()),
        TrackerInput::Frame {
            account,
            text,
            t_read_ns,
        } => RecordedInput::Frame {
            account: *account,
            text: bytes::Bytes::copy_from_slice(text),
            t_read_ns: *t_read_ns,
        },
        TrackerInput::SessionOpened {
            session_id,
            account,
            role,
            ..
        } => RecordedInput::SessionOpened {
            session_id: *session_id,
            account: *account,
            role: *role,
        },
        TrackerInput::SessionClosed { session_id } => RecordedInput::SessionClosed {
            session_id: *session_id,
        },
        TrackerInput::OpenOrders {
            filter, exchange, ..
        } => RecordedInput::OpenOrders {
            filter: *filter,
            exchange: exchange.clone(),
        },
        TrackerInput::MassCancel(ev) => RecordedInput::MassCancel(*ev),
        TrackerInput::ExchangeState { state, .. } => RecordedInput::ExchangeState {
            state: state.clone(),
            t_read_ns: mono_ns,
        },
        TrackerInput::LinkDown { account, t_ns } => RecordedInput::LinkDown {
            account: *account,
            t_ns: *t_ns,
        },
        TrackerInput::LinkUp { account, t_ns } => RecordedInput::LinkUp {
            account: *account,
            t_ns: *t_ns,
        },
        TrackerInput::Restore {
            session_id,
            roots,
            reports,
            unanswered_since_ms,
            unanswered_amends,
        } => RecordedInput::Restore {
            session_id: *session_id,
            roots: sorted(roots),
            reports: reports.clone(),
            unanswered_since_ms: sorted(unanswered_since_ms),
            unanswered_amends: unanswered_amends.clone(),
        },
        TrackerInput::Epoch {
            session_id,
            epoch,
            order_epochs,
            started,
        } => RecordedInput::Epoch {
            session_id: *session_id,
            epoch: *epoch,
            order_epochs: order_epochs.clone(),
            started: *started,
        },
        TrackerInput::Shutdown => return None,
    })
}

#[cfg(test)]
mod recorded_tests {
    use std::collections::HashMap;

    use codec::sbe::{
        Category, ExecType, ExecutionReport, OrdStatus, OrdType, Side, Symbol, Text, TimeInForce,
    };

    use super::{recorded, ExchangeState, TrackerInput};
    use crate::replay::{Record, RecordedInput};

    fn er(cl: u64, orig: u64, exec_type: ExecType, status: OrdStatus) -> ExecutionReport {
        ExecutionReport {
            cl_ord_id: cl,
            orig_cl_ord_id: orig,
            order_id: 500 + cl,
            exec_id: 0,
            transact_time: 1_000_000 + cl,
            price: None,
            order_qty: "0.002".parse().unwrap(),
            last_qty: None,
            last_px: None,
            cum_qty: codec::Decimal::ZERO,
            leaves_qty: "0.002".parse().unwrap(),
            avg_px: None,
            exchange_code: 0,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            category: Category::UsdtFutures,
            side: Side::Sell,
            ord_type: OrdType::Limit,
            time_in_force: TimeInForce::Gtc,
            exec_type,
            ord_status: status,
            ord_rej_reason: None,
            text: Text::new(""),
        }
    }

    #[test]
    fn tracker_inputs_are_recorded_with_sorted_maps_and_the_driver_time() {
        let roots: HashMap<u64, u64> = [(9, 9), (4, 3), (3, 3), (7, 7), (1, 1)].into();
        let restore = |roots: HashMap<u64, u64>| TrackerInput::Restore {
            session_id: 6,
            roots,
            reports: vec![er(3, 0, ExecType::New, OrdStatus::New)],
            unanswered_since_ms: [(9, 1_700), (7, 1_600)].into(),
            unanswered_amends: vec![12],
        };
        let got = recorded(&restore(roots.clone()), 0).unwrap();
        let RecordedInput::Restore {
            roots: r,
            unanswered_since_ms,
            ..
        } = &got
        else {
            panic!("{got:?}");
        };
        assert_eq!(r, &[(1, 1), (3, 3), (4, 3), (7, 7), (9, 9)]);
        assert_eq!(unanswered_since_ms, &[(7, 1_600), (9, 1_700)]);
        // Same input, same bytes (whatever the map's iteration order).
        let bytes = |i: &TrackerInput| {
            let mut b = Vec::new();
            let input = recorded(i, 0).unwrap();
            assert!(Record::Input { utc_ns: 1, input }.encode(&mut b));
            b
        };
        let mut pairs: Vec<(u64, u64)> = roots.iter().map(|(k, v)| (*k, *v)).collect();
        pairs.reverse();
        let mut again: HashMap<u64, u64> = HashMap::with_capacity(64);
        again.extend(pairs);
        assert_eq!(bytes(&restore(roots)), bytes(&restore(again)));

        let state = TrackerInput::ExchangeState {
            state: ExchangeState::default(),
            reply: None,
        };
        let got = recorded(&state, 99).unwrap();
        assert!(matches!(
            got,
            RecordedInput::ExchangeState { t_read_ns: 99, .. }
        ));
        assert!(recorded(&TrackerInput::Shutdown, 1).is_none());
    }
}
