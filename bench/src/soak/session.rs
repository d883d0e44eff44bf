//! One soak strategy session: sends a mix of orders, keeps its own model of every order from the
//! ExecutionReports it receives, survives every disconnect (its own, the gateway's, a SIGKILL)
//! by re-establishing the same session, asking for what it missed (RetransmitRequest) and
//! sending again, with the same ClOrdID, the requests that got no answer.

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use codec::sbe::{
    BoolFlag, CxlRejReason, ExecType, NewOrderSingle, OrdRejReason, OrdStatus, OrdType,
    OrderCancelReplaceRequest, OrderCancelRequest, PosSide, Side, StpMode, TerminationCode,
    TimeInForce,
};
use codec::Decimal;
use parking_lot::Mutex;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use strategy_client::{ClientError, ClientOptions, Received, StrategyClient};

use crate::rig::{price_at, Market};

/// A gateway message's place in the session: (epoch, sequence number); sequence numbers
/// restart at 1 in each epoch (session rollover).
pub type SeqId = (u64, u64);

/// What the strategy knows of one order (from the reports only).
#[derive(Debug, Clone)]
pub struct OrderModel {
    /// Index into the markets.
    pub market: usize,
    /// Side.
    pub side: Side,
    /// The ClOrdID the order answers to now (changes with Replaced).
    pub cl_current: u64,
    /// OrdStatus of the last report.
    pub status: OrdStatus,
    /// CumQty of the last report.
    pub cum_qty: Decimal,
    /// ExecIDs of the fills reported → (epoch, sequence number) of the report.
    pub exec_ids: HashMap<u64, SeqId>,
    /// Σ LastQty of the fills reported (each ExecID once).
    pub filled_qty: Decimal,
    /// An ExecutionReport New was received.
    pub got_new: bool,
    /// (Epoch, sequence number) of the ExecutionReport New.
    pub new_seq: SeqId,
    /// (Epoch, sequence number) of the terminal report ((0, 0) while open).
    pub terminal_seq: SeqId,
    /// Epochs the NewOrderSingle was sent in (first send, then resends in later epochs): the
    /// order's clientOid names one of them (the one the gateway placed it in).
    pub sent_epochs: Vec<u64>,
    /// Any report was received.
    pub answered: bool,
    /// Resting limit (to be cancelled or modified later).
    pub resting: bool,
    /// Rejected because the request was not applied (gateway or exchange).
    pub not_applied: bool,
    /// The NewOrderSingle, to send again if it got no answer.
    pub request: NewOrderSingle,
    /// The last OrderCancelReject for this order: reason, exchange code and text.
    pub last_cancel_reject: Option<String>,
}

impl OrderModel {
    /// True once a terminal report arrived.
    pub fn terminal(&self) -> bool {
        matches!(
            self.status,
            OrdStatus::Filled | OrdStatus::Canceled | OrdStatus::Rejected
        )
    }
}

/// `SOAK_DEBUG` is set: trace to stderr every cancel and replace sent or sent again and every
/// ExecutionReport and OrderCancelReject received (with its epoch and sequence number), beside
/// the resends and refusals already traced.
fn debug() -> bool {
    static DEBUG: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DEBUG.get_or_init(|| std::env::var_os("SOAK_DEBUG").is_some())
}

/// A cancel or replace request, kept until it is answered (to send again after a reconnect).
#[derive(Debug, Clone, Copy)]
enum Amend {
    Cancel(OrderCancelRequest),
    Replace(OrderCancelReplaceRequest),
}

/// Counters of one session.
#[derive(Debug, Default, Clone)]
pub struct SessionStats {
    /// NewOrderSingles sent (resends not counted).
    pub orders_sent: u64,
    /// Requests sent again with the same ClOrdID after a reconnect.
    pub resent: u64,
    /// Replaces and cancels sent.
    pub amends_sent: u64,
    /// Application messages received.
    pub app_messages: u64,
    /// ExecutionReports received.
    pub execution_reports: u64,
    /// Reports that repeated one already received (same ExecID, a second New, anything after
    /// the terminal report).
    pub repeated: u64,
    /// Reports for a ClOrdID the strategy never sent.
    pub unknown: u64,
    /// Orders rejected NotApplied (exchange link down, reconciling, throttled).
    pub not_applied: u64,
    /// Orders rejected as a duplicate ClOrdID (a resend the gateway had already seen).
    pub duplicate_rejects: u64,
    /// OrderCancelRejects.
    pub cancel_rejects: u64,
    /// Re-establishments of the session.
    pub reconnects: u64,
    /// Connections the strategy dropped on purpose (no Terminate).
    pub own_drops: u64,
    /// RetransmitRequests sent and messages they brought back.
    pub retransmit_requests: u64,
    /// Messages announced in Retransmission replies.
    pub retransmitted: u64,
    /// The gateway announced a NextSeqNo below what the strategy had already received.
    pub seq_regressions: u64,
    /// Messages received again with a sequence number already processed (overlapping
    /// retransmissions; skipped).
    pub seq_duplicates: u64,
    /// Epoch changes seen at (re-)establishment (session rollovers).
    pub rollovers: u64,
    /// Terminate (SessionRollover) received.
    pub rollover_terminates: u64,
    /// ExecutionReports OrderStatus received (a new epoch's report of each open order;
    /// informational, neither a fill nor a repeat).
    pub order_status: u64,
    /// OrderStatus reports whose OrdStatus or CumQty differed from the strategy's model (the
    /// gateway knew more than it had reported, or less).
    pub order_status_mismatch: u64,
    /// Each repeated report, described (kind, order, both sequence numbers, fault phase).
    pub repeats: Vec<Repeat>,
    /// Σ LastQty over every fill reported (each ExecID once per order).
    pub filled_qty: Decimal,
    /// Cancels and replaces never answered (SessionID, ClOrdID, root; at most 20 listed).
    pub amends_unanswered: Vec<(u64, u64, u64)>,
    /// How many cancels and replaces were never answered.
    pub amends_unanswered_count: u64,
    /// Orders still open when the wind-down began, described (for a stalled run).
    pub open_at_wind_down: Vec<String>,
}

/// What makes a report a repeat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RepeatKind {
    /// A report after the order's terminal one.
    AfterTerminal,
    /// A second ExecutionReport New.
    SecondNew,
    /// A fill whose ExecID was already reported.
    RepeatedExecId,
}

impl RepeatKind {
    /// As printed.
    pub fn name(self) -> &'static str {
        match self {
            RepeatKind::AfterTerminal => "after terminal",
            RepeatKind::SecondNew => "second New",
            RepeatKind::RepeatedExecId => "repeated ExecID",
        }
    }
}

/// One repeated report as the strategy saw it.
#[derive(Debug, Clone)]
pub struct Repeat {
    /// SessionID.
    pub session_id: u64,
    /// Root ClOrdID of the order.
    pub root: u64,
    /// Why it is a repeat.
    pub kind: RepeatKind,
    /// ExecType of the repeat.
    pub exec_type: ExecType,
    /// (Epoch, sequence number) of the report it repeats (terminal, first New, first fill).
    pub first_seq: SeqId,
    /// (Epoch, sequence number) of the repeat.
    pub repeat_seq: SeqId,
    /// The repeat came in a retransmission (RetransmitRequest) rather than live.
    pub retransmitted: bool,
    /// The conductor's fault state when the repeat arrived.
    pub fault: String,
}

/// Shared controls of the run (set by the conductor, read by every session).
#[derive(Debug)]
pub struct Controls {
    /// Where the gateway listens now (changes when it is restarted).
    pub addr: Mutex<SocketAddr>,
    /// Orders accepted by all sessions (progress measure for the fault schedule).
    pub accepted: AtomicU64,
    /// Stop sending new orders and wind down.
    pub wind_down: AtomicBool,
    /// Per session: drop the connection (no Terminate) at the next chance.
    pub drop_now: Vec<AtomicBool>,
    /// The fault phase now (conductor), for describing repeats.
    pub phase: Mutex<&'static str>,
    /// Exchange connection drops caused so far and when the last one was.
    pub last_drop: Mutex<(u64, Option<Instant>)>,
    /// The gateway was killed and restarted.
    pub restarted: AtomicBool,
}

impl Controls {
    /// Controls for `sessions` sessions with the gateway at `addr`.
    pub fn new(addr: SocketAddr, sessions: usize) -> Self {
        Controls {
            addr: Mutex::new(addr),
            accepted: AtomicU64::new(0),
            wind_down: AtomicBool::new(false),
            drop_now: (0..sessions).map(|_| AtomicBool::new(false)).collect(),
            phase: Mutex::new("none"),
            last_drop: Mutex::new((0, None)),
            restarted: AtomicBool::new(false),
        }
    }

    /// The fault state now: phase, time since the last exchange drop, restart.
    pub fn fault_state(&self) -> String {
        let phase = *self.phase.lock();
        let (n, at) = *self.last_drop.lock();
        let drop = match at {
            Some(t) => format!("{} ms after exchange drop {n}", t.elapsed().as_millis()),
            None => "before any exchange drop".to_owned(),
        };
        let restart = if self.restarted.load(Ordering::Relaxed) {
            "after the restart"
        } else {
            "before the restart"
        };
        format!("phase {phase}, {drop}, {restart}")
    }
}

/// One session's run.
pub struct SoakSession {
    /// SessionID.
    pub session_id: u64,
    credentials: String,
    markets: Vec<Market>,
    ctl: Arc<Controls>,
    index: usize,
    client: Option<StrategyClient>,
    rng: ChaCha8Rng,
    next_cl: u64,
    /// Root ClOrdID → order.
    pub orders: HashMap<u64, OrderModel>,
    /// Any ClOrdID → root.
    roots: HashMap<u64, u64>,
    /// The epoch (SessionVerID) of the session as last established.
    epoch: u64,
    /// Sequence number (in `epoch`) of the next application message to process.
    next_seq: u64,
    /// Application messages received ahead of a gap (live ones while a retransmission is due),
    /// by sequence number.
    pending: std::collections::BTreeMap<u64, Received>,
    /// Counters.
    pub stats: SessionStats,
    window: usize,
    /// Orders not finished (for the window).
    open: usize,
    /// Orders accepted (ExecutionReport New).
    accepted_count: u64,
    /// Resting orders acknowledged, oldest first.
    resting: std::collections::VecDeque<u64>,
    /// Orders whose cancel or replace was refused: back to `resting` at the time given.
    retry: std::collections::VecDeque<(Instant, u64)>,
    /// Orders in `retry`.
    retry_pending: HashSet<u64>,
    /// Sequence numbers asked for again at the last re-establishment (retransmitted).
    retransmit_range: std::ops::Range<u64>,
    /// Cancels and replaces sent and not yet answered (ExecutionReport or OrderCancelReject
    /// with their ClOrdID), by ClOrdID → (root, request).
    unanswered_amends: HashMap<u64, (u64, Amend)>,
    /// Every cancel and replace ClOrdID sent and not yet answered by an ExecutionReport or an
    /// OrderCancelReject carrying it (unlike `unanswered_amends`, kept after its order ends:
    /// each request gets exactly one answer).
    amends_open: std::collections::BTreeSet<u64>,
}

const CONNECT_FOR: Duration = Duration::from_secs(90);

/// Most messages one RetransmitRequest may ask for (the gateway's limit).
const MAX_RETRANSMIT: u64 = 10_000;

/// What one read gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pumped {
    /// A message (processed or held for its turn).
    Message,
    /// Nothing within the wait.
    Idle,
    /// The connection broke and was re-established.
    Reconnected,
}

/// True for a sequenced (application) message of the gateway's recoverable flow; false for the
/// session-layer ones (Sequence, Terminate, Retransmission, NotApplied, RetransmitReject) and
/// anything unknown.
pub fn is_application(r: &Received) -> bool {
    !matches!(
        r,
        Received::Sequence(_)
            | Received::Terminate(_)
            | Received::Retransmission(_)
            | Received::NotApplied(_)
            | Received::RetransmitReject(_)
            | Received::Other(_)
    )
}

impl SoakSession {
    /// A session that keeps at most `window` orders open.
    pub fn new(
        index: usize,
        session_id: u64,
        credentials: String,
        markets: Vec<Market>,
        ctl: Arc<Controls>,
        seed: u64,
        window: usize,
    ) -> Self {
        SoakSession {
            session_id,
            credentials,
            markets,
            ctl,
            index,
            client: None,
            rng: ChaCha8Rng::seed_from_u64(seed),
            next_cl: 0,
            orders: HashMap::new(),
            roots: HashMap::new(),
            epoch: 0,
            next_seq: 1,
            pending: std::collections::BTreeMap::new(),
            stats: SessionStats::default(),
            window,
            open: 0,
            accepted_count: 0,
            resting: std::collections::VecDeque::new(),
            retry: std::collections::VecDeque::new(),
            retry_pending: HashSet::new(),
            retransmit_range: 0..0,
            unanswered_amends: HashMap::new(),
            amends_open: std::collections::BTreeSet::new(),
        }
    }

    fn options(&self) -> ClientOptions {
        ClientOptions {
            session_id: self.session_id,
            credentials: self.credentials.clone(),
            keepalive_ms: 1_000,
            auto_keepalive: true,
            timeout: Duration::from_secs(5),
        }
    }

    /// (Re-)establishes the session, recovers what was missed and resends what got no answer.
    fn connect(&mut self) -> Result<(), String> {
        self.client = None;
        let started = Instant::now();
        let client = loop {
            let addr = *self.ctl.addr.lock();
            match StrategyClient::connect(addr, &self.options()) {
                Ok(c) => break c,
                Err(e) => {
                    if started.elapsed() > CONNECT_FOR {
                        return Err(format!("session {}: cannot connect: {e}", self.session_id));
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        };
        let announced = client.next_seq_from_gateway;
        let epoch = client.session_ver_id();
        self.client = Some(client);
        if self.stats.app_messages > 0 || self.next_seq > 1 {
            self.stats.reconnects += 1;
        }
        self.pending.clear();
        let new_epoch = epoch != self.epoch;
        if new_epoch {
            // A new epoch (session rollover): the gateway numbers from 1 again (its first
            // messages, the open orders' OrderStatus, may be numbered before the
            // EstablishmentAck: asked for below like any gap).
            if self.stats.app_messages > 0 || self.next_seq > 1 {
                self.stats.rollovers += 1;
            }
            if std::env::var_os("SOAK_DEBUG").is_some() {
                eprintln!(
                    "session {}: epoch {} -> {epoch} (next seq was {}, announced {announced})",
                    self.session_id, self.epoch, self.next_seq
                );
            }
            self.epoch = epoch;
            self.next_seq = 1;
            self.retransmit_range = 0..0;
        }
        if announced < self.next_seq {
            self.stats.seq_regressions += 1;
            self.next_seq = announced;
        } else if announced > self.next_seq {
            self.retransmit_range = self.next_seq..announced;
            // Ask for the gap in requests of at most MAX_RETRANSMIT messages.
            let mut from = self.next_seq;
            while from < announced {
                let count = (announced - from).min(MAX_RETRANSMIT);
                self.stats.retransmit_requests += 1;
                self.send(|c| c.send_retransmit_request(from, count as u32))?;
                from += count;
            }
            // Read until the gap is closed before sending anything again.
            let deadline = Instant::now() + Duration::from_secs(30);
            while self.next_seq < announced && Instant::now() < deadline {
                if !self.pump(Duration::from_millis(50))? {
                    break;
                }
            }
        }
        // Requests that got no answer at all: the same ClOrdID again (idempotent flow).
        let epoch = self.epoch;
        let unanswered: Vec<NewOrderSingle> = self
            .orders
            .values_mut()
            .filter(|o| !o.answered)
            .map(|o| {
                if o.sent_epochs.last() != Some(&epoch) {
                    o.sent_epochs.push(epoch);
                }
                o.request
            })
            .collect();
        for m in unanswered {
            if std::env::var_os("SOAK_DEBUG").is_some() {
                eprintln!(
                    "session {}: resending ClOrdID {} (next seq {})",
                    self.session_id, m.cl_ord_id, self.next_seq
                );
            }
            self.stats.resent += 1;
            self.send(|c| c.send_new_order(&m))?;
        }
        // Cancels and replaces that got no answer: the same ClOrdID again, whatever became of
        // their order since, as a FIX client does (and the `dst` strategy). The gateway answers
        // one it had seen as a duplicate (its own answer is held or on its way) and one it had
        // not as new (TooLateToCancel once the order has ended). An order's end does not
        // answer its cancel, and the gateway may never have taken the request:
        // - sent right before the SIGKILL, it was still unread in the killed gateway's socket
        //   (or read, not yet journaled); the order then ends by an earlier cancel's answer
        //   or the restart's reconciliation;
        // - a gateway killed while its journal was failing loses the records it held
        //   (behaviour.md, "Storage faults"), the ClOrdID of a cancel it had sent to the
        //   exchange among them: the reconciliation reports the order Canceled under the
        //   order's own ClOrdID;
        // - after a rollover: the gateway applies nothing it reads after its Terminate
        //   (SessionRollover); or the request was lost with a connection that broke.
        // Resent only while their order was open, such requests stayed unanswered for good:
        // "1 unanswered amends" in the short sweep's run 2 (seed 20261124 with the debug
        // build: 4 runs of 7; none of the unanswered ClOrdIDs was in the journal).
        let mut amends: Vec<(u64, Amend)> = self
            .unanswered_amends
            .iter()
            .map(|(cl, (_, a))| (*cl, *a))
            .collect();
        amends.sort_by_key(|(cl, _)| *cl);
        for (_, a) in amends {
            self.stats.resent += 1;
            if debug() {
                eprintln!("session {}: resending {a:?}", self.session_id);
            }
            match a {
                Amend::Cancel(m) => self.send(|c| c.send_cancel(&m))?,
                Amend::Replace(m) => self.send(|c| c.send_replace(&m))?,
            }
        }
        Ok(())
    }

    /// Sends with `f`; on a broken connection, reconnects (and does not retry: the reconnect
    /// resends what got no answer).
    fn send(
        &mut self,
        f: impl FnOnce(&mut StrategyClient) -> Result<(), ClientError>,
    ) -> Result<(), String> {
        let Some(c) = self.client.as_mut() else {
            return self.connect();
        };
        match f(c) {
            Ok(()) => Ok(()),
            Err(_) => self.connect(),
        }
    }

    /// Reads at most one message, waiting up to `wait`. Returns Ok(false) when the connection
    /// broke (and was re-established).
    fn pump(&mut self, wait: Duration) -> Result<bool, String> {
        Ok(self.pump_one(wait)? != Pumped::Reconnected)
    }

    fn pump_one(&mut self, wait: Duration) -> Result<Pumped, String> {
        let Some(c) = self.client.as_mut() else {
            self.connect()?;
            return Ok(Pumped::Reconnected);
        };
        match c.recv(wait) {
            Ok(Some(r)) => {
                if is_application(&r) {
                    let seq = c.last_seq();
                    if seq < self.next_seq {
                        // Already processed (asked for twice by overlapping RetransmitRequests):
                        // skipped by its sequence number.
                        self.stats.seq_duplicates += 1;
                    } else if seq > self.next_seq {
                        self.pending.insert(seq, r);
                    } else {
                        self.next_seq += 1;
                        self.on_received(r, (self.epoch, seq));
                        while let Some(r) = self.pending.remove(&self.next_seq) {
                            self.next_seq += 1;
                            self.on_received(r, (self.epoch, self.next_seq - 1));
                        }
                    }
                } else {
                    self.on_received(r, (self.epoch, 0));
                }
                Ok(Pumped::Message)
            }
            Ok(None) => Ok(Pumped::Idle),
            Err(_) => {
                self.connect()?;
                Ok(Pumped::Reconnected)
            }
        }
    }

    /// Processes one message; `seq` is an application message's (epoch, sequence number)
    /// (sequence number 0 for session messages).
    fn on_received(&mut self, r: Received, seq: SeqId) {
        if is_application(&r) {
            self.stats.app_messages += 1;
        }
        match r {
            Received::Exec(er) => {
                self.stats.execution_reports += 1;
                if debug() {
                    eprintln!(
                        "session {}: ExecutionReport {seq:?} ClOrdID {} OrigClOrdID {} {:?} {:?} {:?} {}",
                        self.session_id,
                        er.cl_ord_id,
                        er.orig_cl_ord_id,
                        er.exec_type,
                        er.ord_status,
                        er.ord_rej_reason,
                        er.text.as_str()
                    );
                }
                self.unanswered_amends.remove(&er.cl_ord_id);
                self.amends_open.remove(&er.cl_ord_id);
                let Some(root) = self.roots.get(&er.cl_ord_id).copied() else {
                    self.stats.unknown += 1;
                    return;
                };
                let Some(o) = self.orders.get_mut(&root) else {
                    self.stats.unknown += 1;
                    return;
                };
                if er.exec_type == ExecType::Rejected
                    && er.ord_rej_reason == Some(OrdRejReason::DuplicateOrder)
                {
                    // A resend of a ClOrdID the gateway had seen: not sent again, the original's
                    // outcome is reported on its own.
                    self.stats.duplicate_rejects += 1;
                    if std::env::var_os("SOAK_DEBUG").is_some() {
                        eprintln!(
                            "session {}: ClOrdID {} refused as a duplicate: {} (answered {})",
                            self.session_id,
                            er.cl_ord_id,
                            er.text.as_str(),
                            o.answered
                        );
                    }
                    return;
                }
                if er.exec_type == ExecType::OrderStatus {
                    // A new epoch's report of an order carried over (or held ended), compared
                    // with the model, then taken as the order's state the way a FIX client
                    // does: the old epoch's last reports may never have reached the strategy
                    // (a scheduled rollover's Terminate races them) and can no longer be asked
                    // for; the OrderStatus says where the order stands.
                    self.stats.order_status += 1;
                    if er.ord_status != o.status || er.cum_qty != o.cum_qty {
                        self.stats.order_status_mismatch += 1;
                        if std::env::var_os("SOAK_DEBUG").is_some() {
                            eprintln!(
                                "session {}: OrderStatus of order {root} (ClOrdID {}): {:?} cum {} / model {:?} cum {}",
                                self.session_id, er.cl_ord_id, er.ord_status, er.cum_qty, o.status, o.cum_qty
                            );
                        }
                    }
                    // PendingNew: still in flight, nothing answered yet.
                    if er.ord_status == OrdStatus::PendingNew || o.terminal() {
                        return;
                    }
                    o.answered = true;
                    if !o.got_new && er.ord_status != OrdStatus::Rejected {
                        // Acknowledged: the New it stands for.
                        o.got_new = true;
                        o.new_seq = seq;
                        self.accepted_count += 1;
                        self.ctl.accepted.fetch_add(1, Ordering::Relaxed);
                        if o.resting {
                            self.resting.push_back(root);
                        }
                    }
                    // CumQty beyond the fills received: fills the strategy learns this way.
                    if let Some(missed) = er.cum_qty.checked_sub(o.filled_qty) {
                        if missed.is_positive() {
                            o.filled_qty = er.cum_qty;
                            self.stats.filled_qty = self
                                .stats
                                .filled_qty
                                .checked_add(missed)
                                .unwrap_or(self.stats.filled_qty);
                        }
                    }
                    if er.ord_status == OrdStatus::Rejected {
                        o.not_applied = er.ord_rej_reason == Some(OrdRejReason::NotApplied);
                    }
                    o.status = er.ord_status;
                    o.cum_qty = er.cum_qty;
                    if o.terminal() {
                        o.terminal_seq = seq;
                        self.open = self.open.saturating_sub(1);
                    }
                    return;
                }
                o.answered = true;
                let repeat = if o.terminal() {
                    Some((RepeatKind::AfterTerminal, o.terminal_seq))
                } else {
                    match er.exec_type {
                        ExecType::New if o.got_new => Some((RepeatKind::SecondNew, o.new_seq)),
                        ExecType::PartialFill | ExecType::Fill if er.exec_id != 0 => o
                            .exec_ids
                            .get(&er.exec_id)
                            .map(|first| (RepeatKind::RepeatedExecId, *first)),
                        _ => None,
                    }
                };
                if let Some((kind, first_seq)) = repeat {
                    self.stats.repeated += 1;
                    self.stats.repeats.push(Repeat {
                        session_id: self.session_id,
                        root,
                        kind,
                        exec_type: er.exec_type,
                        first_seq,
                        repeat_seq: seq,
                        retransmitted: seq.0 == self.epoch
                            && self.retransmit_range.contains(&seq.1),
                        fault: self.ctl.fault_state(),
                    });
                    return;
                }
                match er.exec_type {
                    ExecType::New => {
                        o.got_new = true;
                        o.new_seq = seq;
                        self.accepted_count += 1;
                        if o.resting {
                            self.resting.push_back(root);
                        }
                        self.ctl.accepted.fetch_add(1, Ordering::Relaxed);
                    }
                    ExecType::PartialFill | ExecType::Fill => {
                        if er.exec_id != 0 {
                            o.exec_ids.insert(er.exec_id, seq);
                        }
                        let last = er.last_qty.unwrap_or(Decimal::ZERO);
                        o.filled_qty = o.filled_qty.checked_add(last).unwrap_or(o.filled_qty);
                        self.stats.filled_qty = self
                            .stats
                            .filled_qty
                            .checked_add(last)
                            .unwrap_or(self.stats.filled_qty);
                    }
                    ExecType::Replaced => o.cl_current = er.cl_ord_id,
                    ExecType::Rejected if er.ord_rej_reason == Some(OrdRejReason::NotApplied) => {
                        o.not_applied = true;
                        self.stats.not_applied += 1;
                        if std::env::var_os("SOAK_DEBUG").is_some()
                            && self.stats.not_applied.is_multiple_of(50)
                        {
                            eprintln!(
                                "session {}: ClOrdID {} not applied: {}",
                                self.session_id,
                                er.cl_ord_id,
                                er.text.as_str()
                            );
                        }
                    }
                    _ => {}
                }
                o.status = er.ord_status;
                o.cum_qty = er.cum_qty;
                if o.terminal() {
                    o.terminal_seq = seq;
                    self.open = self.open.saturating_sub(1);
                }
            }
            Received::CancelReject(r) => {
                self.stats.cancel_rejects += 1;
                if debug() {
                    eprintln!(
                        "session {}: OrderCancelReject {seq:?} ClOrdID {} OrigClOrdID {} {:?} {}",
                        self.session_id,
                        r.cl_ord_id,
                        r.orig_cl_ord_id,
                        r.cxl_rej_reason,
                        r.text.as_str()
                    );
                }
                self.unanswered_amends.remove(&r.cl_ord_id);
                self.amends_open.remove(&r.cl_ord_id);
                if let Some(o) = self
                    .roots
                    .get(&r.cl_ord_id)
                    .copied()
                    .and_then(|root| self.orders.get_mut(&root))
                {
                    o.last_cancel_reject = Some(format!(
                        "{:?} to {:?} ({} {})",
                        r.cxl_rej_reason,
                        r.cxl_rej_response_to,
                        r.exchange_code,
                        r.text.as_str()
                    ));
                }
                // Not applied (a link was down): the order, still open, is cancelled again a
                // little later (one retry pending per order).
                if r.cxl_rej_reason == CxlRejReason::NotApplied {
                    if let Some(root) = self.roots.get(&r.cl_ord_id).copied() {
                        let open = self
                            .orders
                            .get(&root)
                            .is_some_and(|o| !o.terminal() && o.got_new);
                        if open && self.retry_pending.insert(root) {
                            self.retry
                                .push_back((Instant::now() + Duration::from_millis(100), root));
                        }
                    }
                }
            }
            Received::Terminate(t) if t.code == TerminationCode::SessionRollover => {
                self.stats.rollover_terminates += 1;
            }
            Received::Retransmission(r) => {
                self.stats.retransmitted += u64::from(r.count);
            }
            _ => {}
        }
    }

    fn new_order(&mut self) -> Result<(), String> {
        let mi = self.rng.random_range(0..self.markets.len());
        let m = self.markets[mi];
        let kind = self.rng.random_range(0..100u32);
        let (side, ord_type, tif, price, resting) = match kind {
            0..40 => (
                Side::Buy,
                OrdType::Limit,
                TimeInForce::Gtc,
                Some(price_at(&m, "0.9")),
                true,
            ),
            40..70 => (
                Side::Buy,
                OrdType::Limit,
                TimeInForce::Ioc,
                Some(price_at(&m, "1.02")),
                false,
            ),
            70..85 => (
                Side::Sell,
                OrdType::Limit,
                TimeInForce::Ioc,
                Some(price_at(&m, "0.98")),
                false,
            ),
            _ => (Side::Sell, OrdType::Market, TimeInForce::Ioc, None, false),
        };
        self.next_cl += 1;
        let cl = self.next_cl;
        let msg = NewOrderSingle {
            cl_ord_id: cl,
            transact_time: gateway::metrics::utc_now_ns(),
            price,
            order_qty: m.qty,
            symbol: m.symbol,
            category: m.category,
            side,
            ord_type,
            time_in_force: tif,
            pos_side: PosSide::None,
            reduce_only: BoolFlag::No,
            stp_mode: StpMode::Default,
        };
        self.roots.insert(cl, cl);
        self.orders.insert(
            cl,
            OrderModel {
                market: mi,
                side,
                cl_current: cl,
                status: OrdStatus::PendingNew,
                cum_qty: Decimal::ZERO,
                exec_ids: HashMap::new(),
                filled_qty: Decimal::ZERO,
                got_new: false,
                new_seq: (0, 0),
                terminal_seq: (0, 0),
                sent_epochs: vec![self.epoch],
                answered: false,
                resting,
                not_applied: false,
                request: msg,
                last_cancel_reject: None,
            },
        );
        self.stats.orders_sent += 1;
        self.open += 1;
        self.send(|c| c.send_new_order(&msg))
    }

    fn cancel(&mut self, root: u64) -> Result<(), String> {
        let Some(o) = self.orders.get_mut(&root) else {
            return Ok(());
        };
        o.resting = false;
        let (orig, side, market) = (o.cl_current, o.side, o.market);
        let m = self.markets[market];
        self.next_cl += 1;
        let cl = self.next_cl;
        self.roots.insert(cl, root);
        self.stats.amends_sent += 1;
        let msg = OrderCancelRequest {
            cl_ord_id: cl,
            orig_cl_ord_id: orig,
            transact_time: gateway::metrics::utc_now_ns(),
            symbol: m.symbol,
            category: m.category,
            side,
        };
        if debug() {
            eprintln!(
                "session {}: cancel ClOrdID {cl} OrigClOrdID {orig} of order {root}",
                self.session_id
            );
        }
        self.unanswered_amends
            .insert(cl, (root, Amend::Cancel(msg)));
        self.amends_open.insert(cl);
        self.send(|c| c.send_cancel(&msg))
    }

    fn replace(&mut self, root: u64) -> Result<(), String> {
        let Some(o) = self.orders.get(&root) else {
            return Ok(());
        };
        let (orig, side, market) = (o.cl_current, o.side, o.market);
        let m = self.markets[market];
        let px = price_at(&m, "0.9").checked_add(m.tick).unwrap_or(m.mid);
        self.next_cl += 1;
        let cl = self.next_cl;
        self.roots.insert(cl, root);
        self.stats.amends_sent += 1;
        let msg = OrderCancelReplaceRequest {
            cl_ord_id: cl,
            orig_cl_ord_id: orig,
            transact_time: gateway::metrics::utc_now_ns(),
            price: Some(px),
            order_qty: Some(m.qty),
            symbol: m.symbol,
            category: m.category,
            side,
            auto_cancel: BoolFlag::No,
        };
        if debug() {
            eprintln!(
                "session {}: replace ClOrdID {cl} OrigClOrdID {orig} of order {root}",
                self.session_id
            );
        }
        self.unanswered_amends
            .insert(cl, (root, Amend::Replace(msg)));
        self.amends_open.insert(cl);
        self.send(|c| c.send_replace(&msg))
    }

    fn open_count(&self) -> usize {
        self.orders.values().filter(|o| !o.terminal()).count()
    }

    /// Sends orders until `quota` of them were accepted or the run winds down, then cancels
    /// what rests and waits until every order is finished.
    pub fn run(&mut self, quota: u64) -> Result<(), String> {
        self.connect()?;
        let mut ticks = 0u64;
        while self.accepted() < quota && !self.ctl.wind_down.load(Ordering::Relaxed) {
            ticks += 1;
            self.drop_if_asked()?;
            while self
                .retry
                .front()
                .is_some_and(|(at, _)| *at <= Instant::now())
            {
                if let Some((_, root)) = self.retry.pop_front() {
                    self.retry_pending.remove(&root);
                    self.resting.push_back(root);
                }
            }
            // Resting orders beyond a third of the window are modified or cancelled, oldest first.
            while self.resting.len() > self.window / 3 {
                let Some(root) = self.resting.pop_front() else {
                    break;
                };
                if self.orders.get(&root).is_none_or(|o| o.terminal()) {
                    continue;
                }
                if self.rng.random_range(0..4u32) == 0 {
                    self.replace(root)?;
                    // Still resting: cancelled (or modified again) in its turn.
                    self.resting.push_back(root);
                } else {
                    self.cancel(root)?;
                }
            }
            while self.open < self.window && self.accepted_count < quota {
                self.new_order()?;
            }
            if ticks.is_multiple_of(256) {
                // Re-count, in case a terminal report was missed.
                self.open = self.open_count();
            }
            // Read what has arrived (at most a burst), without waiting long.
            for _ in 0..64 {
                if self.pump_one(Duration::from_micros(100))? != Pumped::Message {
                    break;
                }
            }
            // Back off while the gateway refuses (exchange link down or reconciling).
            if self.stats.not_applied > 0 && self.last_was_not_applied() {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        Ok(())
    }

    fn last_was_not_applied(&self) -> bool {
        self.orders
            .get(&self.next_cl)
            .is_some_and(|o| o.not_applied)
    }

    /// Drops the connection without Terminate and re-establishes it, when the conductor asked.
    fn drop_if_asked(&mut self) -> Result<(), String> {
        if let Some(flag) = self.ctl.drop_now.get(self.index) {
            if flag.swap(false, Ordering::Relaxed) {
                self.stats.own_drops += 1;
                self.client = None;
                std::thread::sleep(Duration::from_millis(20));
                self.connect()?;
            }
        }
        Ok(())
    }

    /// Keeps the session alive (reads, reconnects, drops when asked) for `wait`, after its
    /// quota.
    pub fn idle(&mut self, wait: Duration) -> Result<(), String> {
        self.drop_if_asked()?;
        self.pump(wait).map(|_| ())
    }

    /// Orders accepted by this session (an ExecutionReport New received).
    pub fn accepted(&self) -> u64 {
        self.accepted_count
    }

    /// Cancels every order still open and reads reports until all are finished (or nothing
    /// changes for `quiet`).
    pub fn wind_down(&mut self, quiet: Duration) -> Result<(), String> {
        let mut open: Vec<(&u64, &OrderModel)> =
            self.orders.iter().filter(|(_, o)| !o.terminal()).collect();
        open.sort_by_key(|(k, _)| **k);
        self.stats.open_at_wind_down = open
            .into_iter()
            .map(|(root, o)| {
                format!(
                    "session {} order {root}: {:?}, New {}, answered {}, resting {}, queued {}, retry {}, last cancel reject: {}",
                    self.session_id,
                    o.status,
                    o.got_new,
                    o.answered,
                    o.resting,
                    self.resting.contains(root),
                    self.retry_pending.contains(root),
                    o.last_cancel_reject.as_deref().unwrap_or("none")
                )
            })
            .collect();
        let open: Vec<u64> = self
            .orders
            .iter()
            .filter(|(_, o)| !o.terminal() && o.got_new)
            .map(|(k, _)| *k)
            .collect();
        for root in open {
            self.cancel(root)?;
        }
        let mut last_change = Instant::now();
        // OrderStatus reports (a rollover's, of the orders still open) are not progress.
        let progress = |st: &SessionStats| st.app_messages - st.order_status;
        let mut last_count = progress(&self.stats);
        let mut resent_cancels = false;
        // Until every order ended and every cancel and replace was answered (an answer may come
        // after its order's end: a resolution after the reply timeout), or nothing changes for
        // `quiet`.
        while self.orders.values().any(|o| !o.terminal()) || !self.amends_open.is_empty() {
            self.pump(Duration::from_millis(20))?;
            if progress(&self.stats) != last_count {
                last_count = progress(&self.stats);
                last_change = Instant::now();
            } else if last_change.elapsed() > quiet {
                if resent_cancels {
                    break;
                }
                // A cancel may have been refused while a link was down: ask once more.
                resent_cancels = true;
                last_change = Instant::now();
                let open: Vec<u64> = self
                    .orders
                    .iter()
                    .filter(|(_, o)| !o.terminal() && o.got_new)
                    .map(|(k, _)| *k)
                    .collect();
                for root in open {
                    self.cancel(root)?;
                }
            }
        }
        // Read anything still in flight.
        let end = Instant::now() + Duration::from_millis(300);
        while Instant::now() < end {
            self.pump(Duration::from_millis(20))?;
        }
        self.stats.amends_unanswered_count = self.amends_open.len() as u64;
        self.stats.amends_unanswered = self
            .amends_open
            .iter()
            .take(20)
            .map(|cl| {
                let root = self.roots.get(cl).copied().unwrap_or(0);
                (self.session_id, *cl, root)
            })
            .collect();
        if let Some(c) = self.client.as_mut() {
            let _ = c.terminate();
        }
        Ok(())
    }
}
