//! One endurance strategy session: keeps its share of the open orders resting for the whole run,
//! and drives a bounded number of other orders at a time through their lives (place; then a
//! marketable IOC fills at once, a resting order is modified then cancelled, or cancelled), timing
//! every request to its first answer. It forgets an order as soon as it ends, so its own memory
//! stays bounded however long it runs. After any disconnect (a SIGKILLed gateway) it
//! re-establishes the same FIXP session, asks for what it missed (RetransmitRequest, at most
//! [`MAX_RETRANSMIT`] messages each), processes reports in sequence order, and sends again, with
//! the same ClOrdID, every request that got no answer.
//!
//! Session rollovers (`[strategy] rollover`): a Terminate with `SessionRollover` ends the
//! epoch; the session negotiates again (whichever epoch is current), numbers the gateway's flow
//! from 1 again, asks for what the new epoch already holds (an OrderStatus per open order, and
//! answers to requests in flight at the Terminate), then sends again every request still
//! unanswered: a NewOrderSingle the gateway already had is refused DuplicateOrder (its ClOrdID
//! stays reserved while the order is tracked), and its reports continue in the new epoch. An
//! epoch that changed while the session was away (a rollover during a restart) is taken the
//! same way. Each rollover is recorded in [`Shared::rollovers`] with its reconnect time.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use codec::sbe::{
    BoolFlag, CxlRejReason, ExecType, NewOrderSingle, OrdRejReason, OrdStatus, OrdType,
    OrderCancelReplaceRequest, OrderCancelRequest, PosSide, Side, StpMode, TimeInForce,
};
use hdrhistogram::Histogram;
use parking_lot::Mutex;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use strategy_client::{ClientError, ClientOptions, Received, StrategyClient};

use crate::rig::{price_at, Market};
use crate::soak::session::is_application;

/// Most messages one RetransmitRequest asks for (the gateway's limit).
pub const MAX_RETRANSMIT: u64 = 10_000;
/// How long a session keeps trying to connect before the run fails.
const CONNECT_FOR: Duration = Duration::from_secs(180);
/// A request with no answer for this long is sent again (same ClOrdID).
const RESEND_AFTER: Duration = Duration::from_secs(20);
/// An order with no report for this long is given up (counted in `abandoned`).
const ABANDON_AFTER: Duration = Duration::from_secs(60);
/// Ended orders' ClOrdIDs remembered, so that a late report is not taken for an unknown one.
const ENDED_KEPT: usize = 65_536;

/// Per-session state the conductor reads.
#[derive(Debug)]
pub struct SessionShared {
    /// Gateway process number (1, 2, … one per start) this session last re-established with
    /// and caught up on (gap retransmitted, unanswered requests sent again).
    pub established: AtomicU64,
    /// Placing has stopped and no order other than the kept-open ones is in progress.
    pub idle: AtomicBool,
    /// Orders accepted and not ended (resting now).
    pub open: AtomicU64,
    /// Round trips of this session since the conductor last took them, ns.
    pub rtt: Mutex<Histogram<u64>>,
}

/// State shared by the conductor and every session.
#[derive(Debug)]
pub struct Shared {
    /// The gateway's strategy address and process number (changed at every restart).
    pub gateway: Mutex<(SocketAddr, u64)>,
    /// Orders accepted (ExecutionReport New, or a fill as first answer) over all sessions.
    pub accepted: AtomicU64,
    /// Stop placing once `accepted` reaches this.
    pub target: u64,
    /// Cancel what rests and finish.
    pub wind_down: AtomicBool,
    /// One entry per session.
    pub sessions: Vec<SessionShared>,
    /// Rollovers the sessions went through, in the order they completed.
    pub rollovers: Mutex<Vec<Rollover>>,
}

/// One session's rollover to a new epoch.
#[derive(Debug, Clone, Copy)]
pub struct Rollover {
    /// SessionID.
    pub session_id: u64,
    /// The epoch (SessionVerID) the session moved to.
    pub epoch: u64,
    /// Orders accepted over all sessions when the session was caught up in the new epoch.
    pub orders: u64,
    /// Terminate (SessionRollover) received → negotiated, established, caught up on the new
    /// epoch and every unanswered request sent again, ms (`None`: the epoch changed while the
    /// session was disconnected, e.g. during a restart; no Terminate to time from).
    pub reconnect_ms: Option<f64>,
    /// Messages of the old epoch held for a gap still open at the Terminate (lost with it).
    pub lost_held: usize,
}

/// A histogram of ns from 1 ns to 60 s, 3 significant digits.
pub fn latency_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 60_000_000_000, 3).expect("valid histogram bounds")
}

impl Shared {
    /// Shared state for `sessions` sessions and a gateway (process 1) at `addr`.
    pub fn new(addr: SocketAddr, sessions: usize, target: u64) -> Self {
        Shared {
            gateway: Mutex::new((addr, 1)),
            accepted: AtomicU64::new(0),
            target,
            wind_down: AtomicBool::new(false),
            sessions: (0..sessions)
                .map(|_| SessionShared {
                    established: AtomicU64::new(0),
                    idle: AtomicBool::new(false),
                    open: AtomicU64::new(0),
                    rtt: Mutex::new(latency_histogram()),
                })
                .collect(),
            rollovers: Mutex::new(Vec::new()),
        }
    }
}

/// What a session counted.
#[derive(Debug, Default, Clone)]
pub struct SessionCounts {
    /// NewOrderSingles sent (resends not counted).
    pub placed: u64,
    /// Orders accepted.
    pub accepted: u64,
    /// Orders filled.
    pub filled: u64,
    /// Orders cancelled (IOC remainders included).
    pub cancelled: u64,
    /// Replaces answered Replaced.
    pub replaced: u64,
    /// Orders rejected (NotApplied included).
    pub rejected: u64,
    /// Of which NotApplied (gateway not ready, exchange link down).
    pub not_applied: u64,
    /// OrderCancelRejects.
    pub cancel_rejects: u64,
    /// Resends refused as duplicates (the gateway had the request already).
    pub duplicate_rejects: u64,
    /// Reports for a ClOrdID this session does not know (never sent or ended long ago).
    pub unknown: u64,
    /// Re-establishments.
    pub reconnects: u64,
    /// RetransmitRequests sent and messages announced in Retransmission replies.
    pub retransmit_requests: u64,
    /// Messages announced in Retransmission replies.
    pub retransmitted: u64,
    /// Requests sent again with the same ClOrdID.
    pub resent: u64,
    /// The gateway announced a NextSeqNo below what was already processed.
    pub seq_regressions: u64,
    /// Orders given up after [`ABANDON_AFTER`] without a report.
    pub abandoned: u64,
    /// Answers to requests sent to an earlier gateway process or in an earlier epoch (not
    /// timed: a restart or a rollover is not a round trip).
    pub across_restart: u64,
    /// Session rollovers (new epochs) gone through.
    pub rollovers: u64,
    /// Orders given up because the gateway answered UnknownOrder to repeated cancels (their
    /// end was reported in an epoch or process whose reports never arrived).
    pub unknown_orders: u64,
    /// Orders rejected, by OrdRejReason (`Debug` name): how many, and the first one's text.
    pub reject_reasons: BTreeMap<String, (u64, String)>,
}

impl SessionCounts {
    /// Adds `b` to `self`.
    pub fn add(&mut self, b: &SessionCounts) {
        let pairs = [
            (&mut self.placed, b.placed),
            (&mut self.accepted, b.accepted),
            (&mut self.filled, b.filled),
            (&mut self.cancelled, b.cancelled),
            (&mut self.replaced, b.replaced),
            (&mut self.rejected, b.rejected),
            (&mut self.not_applied, b.not_applied),
            (&mut self.cancel_rejects, b.cancel_rejects),
            (&mut self.duplicate_rejects, b.duplicate_rejects),
            (&mut self.unknown, b.unknown),
            (&mut self.reconnects, b.reconnects),
            (&mut self.retransmit_requests, b.retransmit_requests),
            (&mut self.retransmitted, b.retransmitted),
            (&mut self.resent, b.resent),
            (&mut self.seq_regressions, b.seq_regressions),
            (&mut self.abandoned, b.abandoned),
            (&mut self.across_restart, b.across_restart),
            (&mut self.rollovers, b.rollovers),
            (&mut self.unknown_orders, b.unknown_orders),
        ];
        for (a, v) in pairs {
            *a += v;
        }
        for (reason, (n, text)) in &b.reject_reasons {
            self.reject_reasons
                .entry(reason.clone())
                .or_insert_with(|| (0, text.clone()))
                .0 += n;
        }
    }
}

/// What happens to an order after it is accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    /// Rests until the wind-down (the run's open orders).
    Keep,
    /// A marketable IOC: fills at once.
    Fill,
    /// Rests, is modified once, then cancelled.
    ModifyThenCancel,
    /// Rests, then is cancelled.
    Cancel,
}

/// The request an order waits on.
#[derive(Debug, Clone, Copy)]
enum Request {
    New(NewOrderSingle),
    Cancel(OrderCancelRequest),
    Replace(OrderCancelReplaceRequest),
}

impl Request {
    fn cl(&self) -> u64 {
        match self {
            Request::New(m) => m.cl_ord_id,
            Request::Cancel(m) => m.cl_ord_id,
            Request::Replace(m) => m.cl_ord_id,
        }
    }
}

/// One live order.
#[derive(Debug)]
struct Order {
    market: usize,
    side: Side,
    plan: Plan,
    /// The ClOrdID the order answers to now (changes with Replaced).
    cl_current: u64,
    /// Every ClOrdID the order used (forgotten with it).
    cls: Vec<u64>,
    /// The last request and whether it got its first answer.
    request: Request,
    answered: bool,
    sent_at: Instant,
    sent_process: u64,
    /// The session's rollover count when the request was sent.
    sent_epoch: u64,
    resent: bool,
    accepted: bool,
    /// Counts against the in-flight window (every order but an accepted kept-open one).
    busy: bool,
    /// Cancels refused (NotApplied, throttled, exchange reject) and tried again.
    cancel_retries: u32,
    last_report: Instant,
}

/// One session's run.
pub struct EnduranceSession {
    index: usize,
    session_id: u64,
    credentials: String,
    markets: Vec<Market>,
    shared: Arc<Shared>,
    rng: ChaCha8Rng,
    client: Option<StrategyClient>,
    window: usize,
    keep_open: usize,
    kept_placed: usize,
    next_cl: u64,
    orders: HashMap<u64, Order>,
    roots: HashMap<u64, u64>,
    ended: HashSet<u64>,
    ended_order: VecDeque<u64>,
    busy: usize,
    next_seq: u64,
    held: BTreeMap<u64, Received>,
    retry: VecDeque<(Instant, u64)>,
    backoff_until: Instant,
    fill_buy: bool,
    /// Time between two places (`None`: unpaced) and when the next may go.
    gap: Option<Duration>,
    next_place: Instant,
    /// The epoch the gateway answered at the last connect (`None` before the first).
    epoch: Option<u64>,
    /// When a Terminate (SessionRollover) arrived, until the session is caught up again.
    rollover_at: Option<Instant>,
    /// What it counted.
    pub counts: SessionCounts,
}

fn terminal(s: OrdStatus) -> bool {
    matches!(
        s,
        OrdStatus::Filled | OrdStatus::Canceled | OrdStatus::Rejected
    )
}

impl EnduranceSession {
    /// Session `index` (SessionID `session_id`) keeping `keep_open` orders resting and at most
    /// `window` orders in flight.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        index: usize,
        session_id: u64,
        credentials: String,
        markets: Vec<Market>,
        shared: Arc<Shared>,
        seed: u64,
        window: usize,
        keep_open: usize,
    ) -> Self {
        EnduranceSession {
            index,
            session_id,
            credentials,
            markets,
            shared,
            rng: ChaCha8Rng::seed_from_u64(seed),
            client: None,
            window: window.max(1),
            keep_open,
            kept_placed: 0,
            next_cl: 0,
            orders: HashMap::new(),
            roots: HashMap::new(),
            ended: HashSet::new(),
            ended_order: VecDeque::new(),
            busy: 0,
            next_seq: 1,
            held: BTreeMap::new(),
            retry: VecDeque::new(),
            backoff_until: Instant::now(),
            fill_buy: true,
            gap: None,
            next_place: Instant::now(),
            epoch: None,
            rollover_at: None,
            counts: SessionCounts::default(),
        }
    }

    /// Places at most `per_second` orders a second (0 or less: as fast as the window allows).
    pub fn paced(mut self, per_second: f64) -> Self {
        self.gap = (per_second > 0.0).then(|| Duration::from_secs_f64(1.0 / per_second));
        self
    }

    /// Whether the pace allows a place now (and books it).
    fn pace_allows(&mut self, now: Instant) -> bool {
        let Some(gap) = self.gap else {
            return true;
        };
        if now < self.next_place {
            return false;
        }
        // No catching up on more than a second of schedule missed (a restart, a stall).
        if now.duration_since(self.next_place) > Duration::from_secs(1) {
            self.next_place = now;
        }
        self.next_place += gap;
        true
    }

    fn me(&self) -> &SessionShared {
        &self.shared.sessions[self.index]
    }

    fn process_now(&self) -> u64 {
        self.shared.gateway.lock().1
    }

    /// Places, drives and reads until the wind-down, then cancels what rests and waits (at
    /// most `quiet` without news) for every order to end.
    ///
    /// Errors: the gateway could not be reached for [`CONNECT_FOR`], as text.
    pub fn run(&mut self, quiet: Duration) -> Result<(), String> {
        let mut last_check = Instant::now();
        while !self.shared.wind_down.load(Ordering::Relaxed) {
            if self.client.is_none() {
                self.connect()?;
            }
            self.retry_due();
            let placing = self.shared.accepted.load(Ordering::Relaxed) < self.shared.target;
            if placing && Instant::now() >= self.backoff_until {
                while self.busy < self.window
                    && self.client.is_some()
                    && self.pace_allows(Instant::now())
                {
                    self.place();
                }
            }
            let wait = if placing {
                Duration::from_micros(200)
            } else {
                Duration::from_millis(5)
            };
            self.read_burst(wait);
            if last_check.elapsed() >= Duration::from_secs(1) {
                last_check = Instant::now();
                self.check_stalled();
            }
            self.me()
                .idle
                .store(!placing && self.busy == 0, Ordering::Relaxed);
        }
        self.wind_down(quiet)
    }

    /// Reads what has arrived (at most a burst of 64 messages), waiting up to `wait` for the
    /// first.
    fn read_burst(&mut self, wait: Duration) {
        for i in 0..64 {
            let w = if i == 0 { wait } else { Duration::ZERO };
            if !self.read_one(w) {
                break;
            }
        }
    }

    /// Reads one message (waiting up to `wait`); false when there was none or the connection
    /// broke (then `client` is `None`).
    fn read_one(&mut self, wait: Duration) -> bool {
        let Some(c) = self.client.as_mut() else {
            return false;
        };
        match c.recv(wait) {
            Ok(Some(r)) => {
                if !is_application(&r) {
                    if let Received::Retransmission(x) = &r {
                        self.counts.retransmitted += u64::from(x.count);
                    }
                    if let Received::Terminate(_) = &r {
                        // A rollover (or the gateway ending the session otherwise): negotiate
                        // again; the new epoch's number is checked at the connect.
                        if r.is_rollover() && self.rollover_at.is_none() {
                            self.rollover_at = Some(Instant::now());
                        }
                        self.client = None;
                        return false;
                    }
                    return true;
                }
                let seq = c.last_seq();
                match seq.cmp(&self.next_seq) {
                    // Already processed (overlapping retransmissions).
                    std::cmp::Ordering::Less => {}
                    std::cmp::Ordering::Greater => {
                        self.held.insert(seq, r);
                    }
                    std::cmp::Ordering::Equal => {
                        self.next_seq += 1;
                        self.on_message(r);
                        while let Some(r) = self.held.remove(&self.next_seq) {
                            self.next_seq += 1;
                            self.on_message(r);
                        }
                    }
                }
                true
            }
            Ok(None) => false,
            Err(_) => {
                self.client = None;
                false
            }
        }
    }

    /// (Re-)establishes the session: connects (to wherever the gateway is now), asks for the
    /// gap, reads it, sends again every unanswered request, then tells the conductor.
    fn connect(&mut self) -> Result<(), String> {
        let started = Instant::now();
        let options = ClientOptions {
            session_id: self.session_id,
            credentials: self.credentials.clone(),
            keepalive_ms: 1_000,
            auto_keepalive: true,
            timeout: Duration::from_secs(5),
        };
        'again: loop {
            self.client = None;
            let (client, process) = loop {
                let (addr, process) = *self.shared.gateway.lock();
                match StrategyClient::connect(addr, &options) {
                    Ok(c) => break (c, process),
                    Err(e) if started.elapsed() > CONNECT_FOR => {
                        return Err(format!("session {}: cannot connect: {e}", self.session_id))
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            };
            let announced = client.next_seq_from_gateway;
            let epoch = client.session_ver_id();
            self.client = Some(client);
            let lost_held = self.held.len();
            self.held.clear();
            if self.next_seq > 1 || self.counts.placed > 0 {
                self.counts.reconnects += 1;
            }
            let new_epoch = self.epoch.is_some_and(|e| e != epoch);
            if new_epoch {
                // A new epoch numbers the gateway's flow from 1 again.
                self.next_seq = 1;
                self.counts.rollovers += 1;
            }
            self.epoch = Some(epoch);
            if announced < self.next_seq {
                self.counts.seq_regressions += 1;
                self.next_seq = announced;
            }
            let mut from = self.next_seq;
            while from < announced {
                let count = (announced - from).min(MAX_RETRANSMIT);
                self.counts.retransmit_requests += 1;
                if !self.send_with(|c| c.send_retransmit_request(from, count as u32)) {
                    continue 'again;
                }
                from += count;
            }
            let deadline = Instant::now() + Duration::from_secs(60);
            while self.next_seq < announced && Instant::now() < deadline {
                self.read_one(Duration::from_millis(20));
                if self.client.is_none() {
                    continue 'again;
                }
            }
            let mut unanswered: Vec<Request> = self
                .orders
                .values_mut()
                .filter(|o| !o.answered)
                .map(|o| {
                    // Its answer, when it comes, is not a round trip.
                    o.resent = true;
                    o.request
                })
                .collect();
            unanswered.sort_by_key(Request::cl);
            for r in unanswered {
                self.counts.resent += 1;
                if !self.send_request(&r) {
                    continue 'again;
                }
            }
            // A Terminate that did not lead to a new epoch (reconnected before the gateway
            // started it) keeps its time: the next connect is still the rollover's.
            if new_epoch {
                let reconnect_ms = self
                    .rollover_at
                    .take()
                    .map(|t| t.elapsed().as_secs_f64() * 1e3);
                self.shared.rollovers.lock().push(Rollover {
                    session_id: self.session_id,
                    epoch,
                    orders: self.shared.accepted.load(Ordering::Relaxed),
                    reconnect_ms,
                    lost_held,
                });
            }
            self.me().established.store(process, Ordering::Relaxed);
            return Ok(());
        }
    }

    /// Sends with `f`; false (and `client` dropped) when the connection is broken.
    fn send_with(
        &mut self,
        f: impl FnOnce(&mut StrategyClient) -> Result<(), ClientError>,
    ) -> bool {
        let Some(c) = self.client.as_mut() else {
            return false;
        };
        if f(c).is_err() {
            self.client = None;
            return false;
        }
        true
    }

    fn send_request(&mut self, r: &Request) -> bool {
        match r {
            Request::New(m) => self.send_with(|c| c.send_new_order(m)),
            Request::Cancel(m) => self.send_with(|c| c.send_cancel(m)),
            Request::Replace(m) => self.send_with(|c| c.send_replace(m)),
        }
    }

    fn next_cl(&mut self) -> u64 {
        self.next_cl += 1;
        self.next_cl
    }

    /// Sends `r` for `root` as its current request (timed from now). A broken connection
    /// leaves it unanswered: the reconnect sends it again.
    fn issue(&mut self, root: u64, r: Request) {
        let process = self.process_now();
        let cl = r.cl();
        self.roots.insert(cl, root);
        if let Some(o) = self.orders.get_mut(&root) {
            o.cls.push(cl);
            o.request = r;
            o.answered = false;
            o.resent = false;
            o.sent_at = Instant::now();
            o.sent_process = process;
            o.sent_epoch = self.counts.rollovers;
        }
        self.send_request(&r);
    }

    fn place(&mut self) {
        let plan = if self.kept_placed < self.keep_open {
            self.kept_placed += 1;
            Plan::Keep
        } else {
            match self.rng.random_range(0..100u32) {
                0..30 => Plan::Fill,
                30..65 => Plan::ModifyThenCancel,
                _ => Plan::Cancel,
            }
        };
        let mi = self.rng.random_range(0..self.markets.len());
        let m = self.markets[mi];
        let (side, tif, factor) = match plan {
            // Far below the market: never fills, and never meets a modified flow order.
            Plan::Keep => (Side::Buy, TimeInForce::Gtc, "0.8"),
            Plan::Fill => {
                // Buys and sells alternate: positions and balances stay level.
                self.fill_buy = !self.fill_buy;
                if self.fill_buy {
                    (Side::Buy, TimeInForce::Ioc, "1.02")
                } else {
                    (Side::Sell, TimeInForce::Ioc, "0.98")
                }
            }
            Plan::ModifyThenCancel | Plan::Cancel => (Side::Buy, TimeInForce::Gtc, "0.9"),
        };
        let cl = self.next_cl();
        let msg = NewOrderSingle {
            cl_ord_id: cl,
            transact_time: gateway::metrics::utc_now_ns(),
            price: Some(price_at(&m, factor)),
            order_qty: m.qty,
            symbol: m.symbol,
            category: m.category,
            side,
            ord_type: OrdType::Limit,
            time_in_force: tif,
            pos_side: PosSide::None,
            reduce_only: BoolFlag::No,
            stp_mode: StpMode::Default,
        };
        let now = Instant::now();
        self.orders.insert(
            cl,
            Order {
                market: mi,
                side,
                plan,
                cl_current: cl,
                cls: Vec::with_capacity(3),
                request: Request::New(msg),
                answered: false,
                sent_at: now,
                sent_process: 0,
                sent_epoch: 0,
                resent: false,
                accepted: false,
                busy: true,
                cancel_retries: 0,
                last_report: now,
            },
        );
        self.busy += 1;
        self.counts.placed += 1;
        self.issue(cl, Request::New(msg));
    }

    fn cancel(&mut self, root: u64) {
        let Some(o) = self.orders.get(&root) else {
            return;
        };
        let m = self.markets[o.market];
        let msg = OrderCancelRequest {
            cl_ord_id: 0,
            orig_cl_ord_id: o.cl_current,
            transact_time: gateway::metrics::utc_now_ns(),
            symbol: m.symbol,
            category: m.category,
            side: o.side,
        };
        let cl = self.next_cl();
        self.issue(
            root,
            Request::Cancel(OrderCancelRequest {
                cl_ord_id: cl,
                ..msg
            }),
        );
    }

    fn replace(&mut self, root: u64) {
        let Some(o) = self.orders.get(&root) else {
            return;
        };
        let m = self.markets[o.market];
        let msg = OrderCancelReplaceRequest {
            cl_ord_id: 0,
            orig_cl_ord_id: o.cl_current,
            transact_time: gateway::metrics::utc_now_ns(),
            price: Some(price_at(&m, "0.9").checked_add(m.tick).unwrap_or(m.mid)),
            order_qty: Some(m.qty),
            symbol: m.symbol,
            category: m.category,
            side: o.side,
            auto_cancel: BoolFlag::No,
        };
        let cl = self.next_cl();
        self.issue(
            root,
            Request::Replace(OrderCancelReplaceRequest {
                cl_ord_id: cl,
                ..msg
            }),
        );
    }

    /// Times the first answer to `root`'s current request when it carries `cl`.
    fn answered(&mut self, root: u64, cl: u64) {
        let process = self.process_now();
        let Some(o) = self.orders.get_mut(&root) else {
            return;
        };
        o.last_report = Instant::now();
        if o.answered || o.request.cl() != cl {
            return;
        }
        o.answered = true;
        if o.sent_process != process || o.resent || o.sent_epoch != self.counts.rollovers {
            self.counts.across_restart += 1;
            return;
        }
        let ns = u64::try_from(o.sent_at.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.shared.sessions[self.index]
            .rtt
            .lock()
            .saturating_record(ns);
    }

    fn on_message(&mut self, r: Received) {
        match r {
            Received::Exec(er) => {
                let Some(root) = self.roots.get(&er.cl_ord_id).copied() else {
                    if !self.ended.contains(&er.cl_ord_id) {
                        self.counts.unknown += 1;
                    }
                    return;
                };
                if er.exec_type == ExecType::Rejected
                    && er.ord_rej_reason == Some(OrdRejReason::DuplicateOrder)
                {
                    // A resend the gateway had already: the original's outcome comes on its own.
                    self.counts.duplicate_rejects += 1;
                    return;
                }
                if er.exec_type == ExecType::OrderStatus {
                    self.on_order_status(root, &er);
                    return;
                }
                self.answered(root, er.cl_ord_id);
                self.on_execution(root, &er);
            }
            Received::CancelReject(r) => {
                self.counts.cancel_rejects += 1;
                let Some(root) = self.roots.get(&r.cl_ord_id).copied() else {
                    return;
                };
                if r.cxl_rej_reason == CxlRejReason::DuplicateClOrdID {
                    self.counts.duplicate_rejects += 1;
                    return;
                }
                self.answered(root, r.cl_ord_id);
                if r.cxl_rej_reason == CxlRejReason::UnknownOrder
                    && self
                        .orders
                        .get(&root)
                        .is_some_and(|o| o.cancel_retries >= 5)
                {
                    // The gateway no longer knows it: it ended where its reports did not reach
                    // this session. Given up rather than cancelled forever.
                    self.counts.unknown_orders += 1;
                    self.end(root);
                    return;
                }
                if r.cxl_rej_reason == CxlRejReason::NotApplied
                    || r.cxl_rej_reason == CxlRejReason::ThrottleLimitExceeded
                {
                    self.backoff_until = Instant::now() + Duration::from_millis(20);
                }
                // Still open (the refused request changed nothing): cancel again a little
                // later; an order that has ended meanwhile is gone from `orders` by then.
                if let Some(o) = self.orders.get_mut(&root) {
                    o.cancel_retries += 1;
                    if o.plan != Plan::Keep || self.shared.wind_down.load(Ordering::Relaxed) {
                        self.retry
                            .push_back((Instant::now() + Duration::from_millis(100), root));
                    }
                }
            }
            _ => {}
        }
    }

    /// An OrderStatus report (the first messages of a new epoch, one per open order): an order
    /// whose NewOrderSingle got no answer yet and that the gateway reports live counts as
    /// accepted (not timed) and goes on with its plan, likewise a replace it reports in effect;
    /// other unanswered requests wait for their own answer (or are sent again at the connect).
    fn on_order_status(&mut self, root: u64, er: &codec::sbe::ExecutionReport) {
        let Some(o) = self.orders.get_mut(&root) else {
            return;
        };
        o.last_report = Instant::now();
        if terminal(er.ord_status) {
            self.on_execution(root, er);
            return;
        }
        let live = matches!(er.ord_status, OrdStatus::New | OrdStatus::PartiallyFilled);
        if !live || o.answered {
            return;
        }
        // The request the report settles: the order is live (the NewOrderSingle was
        // accepted) or answers to the replace's ClOrdID (the replace took effect).
        let settled = match o.request {
            Request::New(_) => Some(ExecType::New),
            Request::Replace(m) if m.cl_ord_id == er.cl_ord_id => Some(ExecType::Replaced),
            _ => None,
        };
        if let Some(exec_type) = settled {
            o.answered = true;
            self.counts.across_restart += 1;
            let as_answer = codec::sbe::ExecutionReport { exec_type, ..*er };
            self.on_execution(root, &as_answer);
        }
    }

    fn on_execution(&mut self, root: u64, er: &codec::sbe::ExecutionReport) {
        let Some(o) = self.orders.get_mut(&root) else {
            return;
        };
        let first_acceptance = !o.accepted
            && matches!(
                er.exec_type,
                ExecType::New | ExecType::PartialFill | ExecType::Fill
            );
        if first_acceptance {
            o.accepted = true;
            self.counts.accepted += 1;
            self.shared.accepted.fetch_add(1, Ordering::Relaxed);
            self.shared.sessions[self.index]
                .open
                .fetch_add(1, Ordering::Relaxed);
            if o.plan == Plan::Keep && o.busy {
                o.busy = false;
                self.busy -= 1;
            }
        }
        let plan = o.plan;
        match er.exec_type {
            ExecType::Replaced => {
                o.cl_current = er.cl_ord_id;
                self.counts.replaced += 1;
            }
            ExecType::Rejected => {
                self.counts.rejected += 1;
                let reason = er
                    .ord_rej_reason
                    .map_or_else(|| "none".to_owned(), |r| format!("{r:?}"));
                self.counts
                    .reject_reasons
                    .entry(reason)
                    .or_insert_with(|| (0, er.text.as_str().to_owned()))
                    .0 += 1;
                if er.ord_rej_reason == Some(OrdRejReason::NotApplied)
                    || er.ord_rej_reason == Some(OrdRejReason::ThrottleLimitExceeded)
                {
                    self.counts.not_applied += 1;
                    self.backoff_until = Instant::now() + Duration::from_millis(20);
                }
            }
            _ => {}
        }
        if terminal(er.ord_status) {
            match er.ord_status {
                OrdStatus::Filled => self.counts.filled += 1,
                OrdStatus::Canceled => self.counts.cancelled += 1,
                _ => {}
            }
            self.end(root);
            return;
        }
        match (er.exec_type, plan) {
            (ExecType::New, Plan::ModifyThenCancel) => self.replace(root),
            (ExecType::New, Plan::Cancel) | (ExecType::Replaced, _) => self.cancel(root),
            _ => {}
        }
    }

    /// Forgets an ended order (its ClOrdIDs stay known for late reports, boundedly).
    fn end(&mut self, root: u64) {
        let Some(o) = self.orders.remove(&root) else {
            return;
        };
        if o.busy {
            self.busy -= 1;
        }
        if o.accepted {
            self.shared.sessions[self.index]
                .open
                .fetch_sub(1, Ordering::Relaxed);
        }
        for cl in o.cls {
            self.roots.remove(&cl);
            if self.ended.insert(cl) {
                self.ended_order.push_back(cl);
            }
        }
        while self.ended_order.len() > ENDED_KEPT {
            if let Some(cl) = self.ended_order.pop_front() {
                self.ended.remove(&cl);
            }
        }
    }

    fn retry_due(&mut self) {
        let now = Instant::now();
        while self.retry.front().is_some_and(|(at, _)| *at <= now) {
            if let Some((_, root)) = self.retry.pop_front() {
                if self.orders.get(&root).is_some_and(|o| o.answered) {
                    self.cancel(root);
                }
            }
        }
    }

    /// Requests with no answer for [`RESEND_AFTER`] are sent again; orders with no report for
    /// [`ABANDON_AFTER`] are given up.
    fn check_stalled(&mut self) {
        let now = Instant::now();
        let mut resend = Vec::new();
        let mut abandon = Vec::new();
        for (root, o) in &self.orders {
            if o.answered {
                continue;
            }
            let silent = now.duration_since(o.last_report);
            if silent > ABANDON_AFTER {
                abandon.push(*root);
            } else if !o.resent && now.duration_since(o.sent_at) > RESEND_AFTER {
                resend.push(*root);
            }
        }
        for root in abandon {
            self.counts.abandoned += 1;
            self.end(root);
        }
        for root in resend {
            let Some(o) = self.orders.get_mut(&root) else {
                continue;
            };
            o.resent = true;
            let r = o.request;
            self.counts.resent += 1;
            self.send_request(&r);
        }
    }

    /// Cancels every order still open and reads until all ended (or nothing came for `quiet`),
    /// then terminates the session.
    fn wind_down(&mut self, quiet: Duration) -> Result<(), String> {
        let roots: Vec<u64> = self
            .orders
            .iter()
            .filter(|(_, o)| o.answered && o.accepted)
            .map(|(r, _)| *r)
            .collect();
        for root in roots {
            self.cancel(root);
        }
        let mut last_news = Instant::now();
        while !self.orders.is_empty() && last_news.elapsed() < quiet {
            if self.client.is_none() {
                self.connect()?;
            }
            self.retry_due();
            let before = self.orders.len();
            self.read_burst(Duration::from_millis(20));
            if self.orders.len() != before {
                last_news = Instant::now();
            }
        }
        if let Some(c) = self.client.as_mut() {
            let _ = c.terminate();
        }
        Ok(())
    }

    /// Orders still live (not ended) when the session finished.
    pub fn live(&self) -> usize {
        self.orders.len()
    }
}
