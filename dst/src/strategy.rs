//! A simulated strategy session: it negotiates and establishes over the real FIXP messages,
//! sends NewOrderSingles, OrderCancelRequests and OrderCancelReplaceRequests within a window,
//! keeps alive, and keeps its own view of every order from the reports alone. The view is
//! checked on every message it receives (the per-step invariants): sequence numbers gapless,
//! no report for a ClOrdID it never sent, no second New, no ExecID twice, nothing after a
//! terminal report, CumQty = Σ LastQty, every cancel and replace answered at most once.

use std::collections::{BTreeMap, BTreeSet};

use codec::frame::SOFH_LEN;
use codec::sbe::{
    self, BoolFlag, Category, Establish, ExecType, FlowType, MassCancelRequestType, Message,
    Negotiate, NegotiationRejectCode, NewOrderSingle, OrdStatus, OrdType,
    OrderCancelReplaceRequest, OrderCancelRequest, OrderMassCancelRequest, PosSide,
    RetransmitRequest, Sequence, Side, StpMode, Symbol, Text, TimeInForce,
};
use codec::Decimal;

use crate::check::Violations;
use crate::rng::SimRng;

/// Keepalive interval the strategy asks for, ms.
pub const KEEPALIVE_MS: u32 = 1_000;

/// What the strategy knows of one order (from the reports only).
#[derive(Debug, Clone)]
pub struct OrderView {
    /// Side.
    pub side: Side,
    /// The ClOrdID the order answers to now (changes with Replaced).
    pub cl_current: u64,
    /// OrdStatus of the last report (PendingNew before any).
    pub status: OrdStatus,
    /// CumQty of the last report.
    pub cum_qty: Decimal,
    /// Σ LastQty of the fills reported.
    pub filled: Decimal,
    /// ExecIDs of the fills reported.
    pub exec_ids: BTreeSet<u64>,
    /// An ExecutionReport New was received.
    pub got_new: bool,
    /// Any report was received.
    pub answered: bool,
    /// When the NewOrderSingle was sent, ns.
    pub sent_ns: u64,
    /// The last cancel sent for it in the wind-down, ns (0: none).
    pub wind_down_cancel_ns: u64,
    /// Order quantity.
    pub qty: Decimal,
    /// The NewOrderSingle as sent (sent again, the same ClOrdID, after a reconnect while
    /// unanswered).
    frame: Vec<u8>,
    /// The connection it was sent on (its number: disconnects before it).
    conn: u64,
    /// The session epoch it was placed in (its clientOid names it).
    pub epoch: u32,
}

impl OrderView {
    /// Filled, cancelled or rejected.
    pub fn terminal(&self) -> bool {
        gateway_core::tracker::order::is_final(self.status)
    }
}

/// A cancel or replace sent and not yet answered.
#[derive(Debug, Clone)]
struct Amend {
    root: u64,
    sent_ns: u64,
    /// The request as sent (sent again after a reconnect while unanswered).
    frame: Vec<u8>,
    /// The connection it was sent on.
    conn: u64,
}

/// One strategy session.
#[derive(Debug)]
pub struct Strategy {
    /// SessionID.
    pub session_id: u64,
    /// Credentials it negotiates with.
    credentials: String,
    /// Requests it may have unanswered at once.
    window: usize,
    /// NewOrderSingles still to send.
    orders_left: u64,
    next_cl: u64,
    /// Session established (EstablishmentAck received).
    pub established: bool,
    /// It sent Terminate on this connection: it sends nothing more and takes the gateway's
    /// Terminate as the answer.
    terminating: bool,
    /// The session epoch (SessionVerID) it negotiates.
    epoch: u32,
    /// It ended the connection to start a new epoch: its next Negotiate asks for it.
    rollover_asked: bool,
    /// From asking for a new epoch until established in it.
    rolling: bool,
    /// Its Negotiate asking for a rollover was refused for now and the gateway closes the
    /// connection: the world ends it and the strategy connects again.
    pub refused: bool,
    /// Rollovers it asked for that the gateway refused for now (its journal failing).
    pub rollovers_refused: u64,
    /// Highest sequence number of the gateway's flow processed (in order).
    processed: u64,
    /// Application messages received ahead of a gap (a retransmission fills it), by number.
    ahead: BTreeMap<u64, Vec<u8>>,
    /// A hash of each application message processed, by number − 1: a message received again
    /// with a processed number must be the same one.
    received: Vec<u64>,
    /// After a reconnect: the unanswered requests are sent again once everything up to this
    /// number is processed.
    resend_after: Option<u64>,
    /// Application messages sent (FIXP implicit numbering of the idempotent flow).
    out_seq: u64,
    /// Mass cancels sent before a disconnect and not answered (they may never have arrived;
    /// an answer is taken once, none is not a violation).
    mass_maybe: BTreeSet<u64>,
    /// Messages received again with a number already processed (overlapping retransmission).
    pub seq_duplicates: u64,
    /// Disconnects and re-establishments.
    pub reconnects: u64,
    /// Requests sent again after a reconnect.
    pub resent: u64,
    /// Orders by root ClOrdID.
    pub orders: BTreeMap<u64, OrderView>,
    /// ClOrdID → root.
    roots: BTreeMap<u64, u64>,
    /// Cancels and replaces unanswered, by their ClOrdID.
    amends: BTreeMap<u64, Amend>,
    /// Cancels and replaces answered.
    amends_answered: BTreeSet<u64>,
    /// OrderMassCancelRequests unanswered (ClOrdID → sent ns), and those answered.
    mass_open: BTreeMap<u64, u64>,
    mass_answered: BTreeSet<u64>,
    /// OrderMassCancelRequests sent.
    pub mass_sent: u64,
    /// Cancels and replaces sent.
    pub amends_sent: u64,
    /// NewOrderSingles sent.
    pub orders_sent: u64,
    /// Reports received.
    pub reports: u64,
    /// Instrument: prices are integers × 10^`price_exp`.
    price_exp: i8,
    mid_units: i64,
    /// Time of its last message to the gateway, ns.
    pub last_sent_ns: u64,
}

/// FNV-1a over `b` (tells two messages apart).
fn fnv(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325, |h, x| {
        (h ^ u64::from(*x)).wrapping_mul(0x100_0000_01b3)
    })
}

fn frame(encode: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut b = Vec::with_capacity(128);
    encode(&mut b);
    b
}

impl Strategy {
    /// A session that will send `orders` NewOrderSingles, at most `window` requests unanswered.
    pub fn new(
        session_id: u64,
        credentials: &str,
        window: usize,
        orders: u64,
        price_exp: i8,
    ) -> Self {
        Strategy {
            session_id,
            credentials: credentials.to_owned(),
            window: window.max(1),
            orders_left: orders,
            next_cl: 0,
            established: false,
            terminating: false,
            epoch: 0,
            rollover_asked: false,
            rolling: false,
            refused: false,
            rollovers_refused: 0,
            processed: 0,
            ahead: BTreeMap::new(),
            received: Vec::new(),
            resend_after: None,
            out_seq: 0,
            mass_maybe: BTreeSet::new(),
            seq_duplicates: 0,
            reconnects: 0,
            resent: 0,
            orders: BTreeMap::new(),
            roots: BTreeMap::new(),
            amends: BTreeMap::new(),
            amends_answered: BTreeSet::new(),
            mass_open: BTreeMap::new(),
            mass_answered: BTreeSet::new(),
            mass_sent: 0,
            amends_sent: 0,
            orders_sent: 0,
            reports: 0,
            price_exp,
            mid_units: 60_000 * 10i64.pow(u32::from(price_exp.unsigned_abs())),
            last_sent_ns: 0,
        }
    }

    /// The Negotiate that opens the session: SessionVerID the next epoch when it asked for a
    /// rollover (it moves there once the NegotiationResponse says so), else the current one.
    pub fn negotiate(&mut self, now_ns: u64, utc_ns: u64) -> Vec<u8> {
        self.last_sent_ns = now_ns;
        let asked = if self.rollover_asked {
            self.epoch + 1
        } else {
            self.epoch
        };
        frame(|b| {
            Negotiate {
                session_id: self.session_id,
                timestamp: utc_ns,
                client_flow: FlowType::Idempotent,
                credentials: Text::new(&self.credentials),
                session_ver_id: u64::from(asked),
            }
            .encode_frame(b)
        })
    }

    /// The gateway answered a Negotiate with epoch `epoch`: a rollover it asked for is done
    /// (the new epoch numbers from 1; the old one's unread messages are gone).
    fn negotiated(&mut self, epoch: u64) {
        if self.rollover_asked && epoch == u64::from(self.epoch) + 1 {
            self.rollover_asked = false;
            self.epoch += 1;
            self.processed = 0;
            self.received.clear();
            self.ahead.clear();
            self.resend_after = None;
        }
    }

    /// Requests unanswered (orders without any report, cancels and replaces).
    pub fn outstanding(&self) -> usize {
        self.orders.values().filter(|o| !o.answered).count()
            + self.amends.len()
            + self.mass_open.len()
    }

    /// NewOrderSingles still to send.
    pub fn orders_left(&self) -> u64 {
        self.orders_left
    }

    /// Orders still open (New or PartiallyFilled, or unanswered).
    pub fn open_orders(&self) -> usize {
        self.orders.values().filter(|o| !o.terminal()).count()
    }

    /// The next request, if the window allows one: a NewOrderSingle (a limit order around the
    /// mid, GTC or IOC, some crossing the ladder), a cancel or a replace of a resting order.
    pub fn act(&mut self, rng: &mut SimRng, now_ns: u64, utc_ns: u64) -> Option<Vec<u8>> {
        if !self.established || self.terminating || self.outstanding() >= self.window {
            return None;
        }
        let roll = rng.between(0, 99);
        let resting: Vec<u64> = self
            .orders
            .iter()
            .filter(|(_, o)| o.got_new && !o.terminal())
            .map(|(r, _)| *r)
            .collect();
        // Mostly one cancel or replace per order at a time; now and then a second while the
        // first is in flight (what a strategy chasing the market does).
        let busy: BTreeSet<u64> = self.amends.values().map(|a| a.root).collect();
        let stack = rng.chance(0.15);
        let free: Vec<u64> = resting
            .into_iter()
            .filter(|r| stack || !busy.contains(r))
            .collect();
        if roll < 2 && self.mass_open.is_empty() {
            return Some(self.mass_cancel(rng, now_ns, utc_ns));
        }
        if roll < 25 && !free.is_empty() {
            let root = free[rng.index(free.len())];
            return Some(self.cancel(root, now_ns, utc_ns));
        }
        if roll < 40 && !free.is_empty() {
            let root = free[rng.index(free.len())];
            return self.replace(root, rng, now_ns, utc_ns);
        }
        if self.orders_left == 0 {
            return None;
        }
        self.orders_left -= 1;
        self.new_order(rng, now_ns, utc_ns)
    }

    fn price(&self, rng: &mut SimRng) -> Option<Decimal> {
        let off = rng.between(0, 24) as i64 - 12;
        Decimal::new(self.mid_units + off, self.price_exp).ok()
    }

    fn new_order(&mut self, rng: &mut SimRng, now_ns: u64, utc_ns: u64) -> Option<Vec<u8>> {
        self.next_cl += 1;
        let cl = self.next_cl;
        let side = if rng.chance(0.5) {
            Side::Buy
        } else {
            Side::Sell
        };
        let tif = if rng.chance(0.7) {
            TimeInForce::Gtc
        } else {
            TimeInForce::Ioc
        };
        let qty = Decimal::new(rng.between(10, 80) as i64, -4).ok()?;
        let msg = NewOrderSingle {
            cl_ord_id: cl,
            transact_time: utc_ns,
            price: Some(self.price(rng)?),
            order_qty: qty,
            symbol: Symbol::new(crate::exchange::SYMBOL).ok()?,
            category: Category::UsdtFutures,
            side,
            ord_type: OrdType::Limit,
            time_in_force: tif,
            pos_side: PosSide::None,
            reduce_only: BoolFlag::No,
            stp_mode: StpMode::Default,
        };
        self.roots.insert(cl, cl);
        self.orders.insert(
            cl,
            OrderView {
                side,
                cl_current: cl,
                status: OrdStatus::PendingNew,
                cum_qty: Decimal::ZERO,
                filled: Decimal::ZERO,
                exec_ids: BTreeSet::new(),
                got_new: false,
                answered: false,
                sent_ns: now_ns,
                wind_down_cancel_ns: 0,
                qty,
                frame: Vec::new(),
                conn: self.reconnects,
                epoch: self.epoch,
            },
        );
        self.orders_sent += 1;
        self.last_sent_ns = now_ns;
        self.out_seq += 1;
        let f = frame(|b| msg.encode_frame(b));
        if let Some(o) = self.orders.get_mut(&cl) {
            o.frame = f.clone();
        }
        Some(f)
    }

    /// An OrderCancelRequest for order `root`.
    pub fn cancel(&mut self, root: u64, now_ns: u64, utc_ns: u64) -> Vec<u8> {
        let (orig, side) = self
            .orders
            .get(&root)
            .map_or((root, Side::Buy), |o| (o.cl_current, o.side));
        self.next_cl += 1;
        let cl = self.next_cl;
        let msg = OrderCancelRequest {
            cl_ord_id: cl,
            orig_cl_ord_id: orig,
            transact_time: utc_ns,
            symbol: Symbol::new(crate::exchange::SYMBOL).unwrap_or_default(),
            category: Category::UsdtFutures,
            side,
        };
        let f = frame(|b| msg.encode_frame(b));
        self.amend_sent(cl, root, now_ns, &f);
        f
    }

    fn replace(
        &mut self,
        root: u64,
        rng: &mut SimRng,
        now_ns: u64,
        utc_ns: u64,
    ) -> Option<Vec<u8>> {
        let (orig, side, qty) = self
            .orders
            .get(&root)
            .map(|o| (o.cl_current, o.side, o.qty))?;
        let price = self.price(rng)?;
        self.next_cl += 1;
        let cl = self.next_cl;
        let msg = OrderCancelReplaceRequest {
            cl_ord_id: cl,
            orig_cl_ord_id: orig,
            transact_time: utc_ns,
            price: Some(price),
            order_qty: Some(qty),
            symbol: Symbol::new(crate::exchange::SYMBOL).ok()?,
            category: Category::UsdtFutures,
            side,
            auto_cancel: BoolFlag::No,
        };
        let f = frame(|b| msg.encode_frame(b));
        self.amend_sent(cl, root, now_ns, &f);
        Some(f)
    }

    /// Notes cancel or replace `cl` of order `root`, sent at `now_ns` as `f`.
    fn amend_sent(&mut self, cl: u64, root: u64, now_ns: u64, f: &[u8]) {
        self.roots.insert(cl, root);
        self.amends_sent += 1;
        self.last_sent_ns = now_ns;
        self.out_seq += 1;
        self.amends.insert(
            cl,
            Amend {
                root,
                sent_ns: now_ns,
                frame: f.to_vec(),
                conn: self.reconnects,
            },
        );
    }

    /// An OrderMassCancelRequest of this session's orders (now and then of one side).
    fn mass_cancel(&mut self, rng: &mut SimRng, now_ns: u64, utc_ns: u64) -> Vec<u8> {
        self.next_cl += 1;
        let cl = self.next_cl;
        self.mass_open.insert(cl, now_ns);
        self.mass_sent += 1;
        self.last_sent_ns = now_ns;
        self.out_seq += 1;
        let side = rng.chance(0.3);
        let msg = OrderMassCancelRequest {
            cl_ord_id: cl,
            transact_time: utc_ns,
            symbol: Symbol::default(),
            mass_cancel_request_type: if side {
                MassCancelRequestType::Side
            } else {
                MassCancelRequestType::Session
            },
            category: Some(Category::UsdtFutures),
            side: side.then_some(Side::Buy),
        };
        frame(|b| msg.encode_frame(b))
    }

    /// A Sequence (keepalive) when the strategy has been silent for half its interval.
    pub fn keepalive(&mut self, now_ns: u64) -> Option<Vec<u8>> {
        let half = u64::from(KEEPALIVE_MS) * 1_000_000 / 2;
        if !self.established || self.terminating || now_ns.saturating_sub(self.last_sent_ns) < half
        {
            return None;
        }
        self.last_sent_ns = now_ns;
        Some(frame(|b| {
            Sequence {
                next_seq_no: self.next_cl + 1,
            }
            .encode_frame(b)
        }))
    }

    /// Ends the session (Terminate, code Finished): the gateway answers Terminate and closes;
    /// the orders stay open (no cancel on disconnect). `None` when not established.
    pub fn terminate(&mut self) -> Option<Vec<u8>> {
        if !self.established || self.terminating {
            return None;
        }
        self.terminating = true;
        Some(frame(|b| {
            codec::sbe::Terminate {
                session_id: self.session_id,
                code: codec::sbe::TerminationCode::Finished,
                reason: Text::new("dst: the strategy ends its session"),
            }
            .encode_frame(b)
        }))
    }

    /// Between asking for a new epoch (its Terminate) and being established in it.
    pub fn rolling(&self) -> bool {
        self.rolling
    }

    /// Established with nothing unanswered and no gap: a point where it may roll over.
    pub fn quiet(&self) -> bool {
        self.established
            && !self.terminating
            && self.outstanding() == 0
            && self.amends.is_empty()
            && self.mass_open.is_empty()
            && self.mass_maybe.is_empty()
            && self.ahead.is_empty()
            && self.resend_after.is_none()
    }

    /// At a quiet point (established, nothing unanswered, no gap), ends the connection to
    /// start a new epoch (a rollover): Terminate now, a Negotiate with the next SessionVerID
    /// when it connects again. `None` when not quiet. (It may not have read the previous
    /// rollover's OrderStatus reports yet: they follow the EstablishmentAck a tick apart, and
    /// the gateway reports them again.)
    pub fn roll_over(&mut self) -> Option<Vec<u8>> {
        if !self.quiet() {
            return None;
        }
        let f = self.terminate()?;
        self.rollover_asked = true;
        self.rolling = true;
        Some(f)
    }

    /// Asks again for a past range of the gateway's messages (RetransmitRequest from a random
    /// number up to what it processed): each must come back as it was first received. `None`
    /// when not established, nothing processed yet, or a retransmission of its own pending.
    pub fn ask_again(&mut self, rng: &mut SimRng, utc_ns: u64) -> Option<Vec<u8>> {
        if !self.established
            || self.terminating
            || self.processed == 0
            || self.resend_after.is_some()
            || !self.ahead.is_empty()
        {
            return None;
        }
        let from = rng.between(1, self.processed);
        let count = rng.between(1, (self.processed - from + 1).min(100));
        Some(frame(|b| {
            RetransmitRequest {
                session_id: self.session_id,
                timestamp: utc_ns,
                from_seq_no: from,
                count: u32::try_from(count).unwrap_or(1),
                last_session_ver_id: None,
            }
            .encode_frame(b)
        }))
    }

    /// The wind-down: a cancel for each open order whose last wind-down cancel is older than
    /// `retry_ns` and that has no cancel or replace in flight (none while not established).
    pub fn wind_down(&mut self, now_ns: u64, utc_ns: u64, retry_ns: u64) -> Vec<Vec<u8>> {
        if !self.established || self.terminating {
            // Not connected: nothing can be sent (the requests go after the reconnect).
            return Vec::new();
        }
        let busy: BTreeSet<u64> = self.amends.values().map(|a| a.root).collect();
        let due: Vec<u64> = self
            .orders
            .iter()
            .filter(|(r, o)| {
                o.got_new
                    && !o.terminal()
                    && !busy.contains(r)
                    && (o.wind_down_cancel_ns == 0
                        || now_ns.saturating_sub(o.wind_down_cancel_ns) >= retry_ns)
            })
            .map(|(r, _)| *r)
            .collect();
        let mut out = Vec::new();
        for root in due {
            if let Some(o) = self.orders.get_mut(&root) {
                o.wind_down_cancel_ns = now_ns;
            }
            out.push(self.cancel(root, now_ns, utc_ns));
        }
        out
    }

    /// What is still unanswered: orders without any report and cancels / replaces, each with
    /// its root and the time it was sent.
    pub fn unanswered(&self) -> Vec<(u64, u64, &'static str)> {
        let mut v: Vec<(u64, u64, &'static str)> = self
            .orders
            .iter()
            .filter(|(_, o)| !o.answered)
            .map(|(r, o)| (*r, o.sent_ns, "NewOrderSingle"))
            .collect();
        v.extend(
            self.amends
                .values()
                .map(|a| (a.root, a.sent_ns, "cancel/replace")),
        );
        v.extend(
            self.mass_open
                .values()
                .map(|t| (0, *t, "OrderMassCancelRequest")),
        );
        v
    }

    /// Takes one frame from the gateway; `seq` is the sequence number the gateway gave it (0
    /// for a session message). Replies to the handshake go to `reply`.
    pub fn on_frame(
        &mut self,
        bytes: &[u8],
        seq: u64,
        now_ns: u64,
        utc_ns: u64,
        v: &mut Violations,
        reply: &mut Vec<Vec<u8>>,
    ) {
        let sid = self.session_id;
        let Ok(msg) = sbe::decode(bytes.get(SOFH_LEN..).unwrap_or(&[])) else {
            v.add(
                now_ns,
                "undecodable frame",
                sid,
                0,
                format!("{} bytes", bytes.len()),
            );
            return;
        };
        if seq != 0 {
            if seq <= self.processed {
                // Already processed: an overlapping retransmission, of the same message.
                self.seq_duplicates += 1;
                let ix = usize::try_from(seq - 1).unwrap_or(usize::MAX);
                if self.received.get(ix).is_some_and(|h| *h != fnv(bytes)) {
                    v.add(
                        now_ns,
                        "a sequence number given to two messages",
                        sid,
                        0,
                        format!("#{seq} received again as {msg:?}"),
                    );
                }
                return;
            }
            if seq > self.processed + 1 {
                // A gap before it: held until the retransmission fills it.
                self.ahead.insert(seq, bytes.to_vec());
                return;
            }
            self.processed = seq;
            self.received.push(fnv(bytes));
        }
        self.handle(msg, now_ns, utc_ns, v, reply);
        if seq != 0 {
            while let Some(next) = self.ahead.remove(&(self.processed + 1)) {
                self.processed += 1;
                self.received.push(fnv(&next));
                if let Ok(m) = sbe::decode(next.get(SOFH_LEN..).unwrap_or(&[])) {
                    self.handle(m, now_ns, utc_ns, v, reply);
                }
            }
        }
        if self.resend_after.is_some_and(|t| self.processed >= t) {
            self.resend_after = None;
            self.resend(reply);
        }
    }

    /// Sequence numbers received ahead of a gap that no retransmission filled (reports lost):
    /// (first missing, first held).
    pub fn gap_left(&self) -> Option<(u64, u64)> {
        self.ahead
            .keys()
            .next()
            .map(|first| (self.processed + 1, *first))
    }

    /// The connection dropped (no Terminate): what was in flight either way is lost.
    pub fn on_disconnect(&mut self) {
        self.established = false;
        self.refused = false;
        self.terminating = false;
        self.reconnects += 1;
        let open: Vec<u64> = self.mass_open.keys().copied().collect();
        for cl in open {
            self.mass_open.remove(&cl);
            self.mass_maybe.insert(cl);
        }
    }

    /// Sends again, with the same ClOrdIDs, every NewOrderSingle, cancel and replace sent on
    /// an earlier connection and still unanswered (the gateway refuses those it has seen as
    /// duplicates; the others are applied), as a FIX client does after a reconnect. One sent
    /// on this connection is not: its answer is on its way.
    fn resend(&mut self, reply: &mut Vec<Vec<u8>>) {
        let now = self.reconnects;
        for o in self
            .orders
            .values_mut()
            .filter(|o| !o.answered && o.conn < now)
        {
            reply.push(o.frame.clone());
            o.conn = now;
            self.out_seq += 1;
            self.resent += 1;
        }
        for a in self.amends.values_mut().filter(|a| a.conn < now) {
            a.conn = now;
            reply.push(a.frame.clone());
            self.out_seq += 1;
            self.resent += 1;
        }
    }

    fn handle(
        &mut self,
        msg: Message<'_>,
        now_ns: u64,
        utc_ns: u64,
        v: &mut Violations,
        reply: &mut Vec<Vec<u8>>,
    ) {
        let sid = self.session_id;
        match msg {
            Message::NegotiationResponse(r) => {
                self.negotiated(r.session_ver_id());
                self.last_sent_ns = now_ns;
                reply.push(frame(|b| {
                    Establish {
                        session_id: sid,
                        timestamp: utc_ns,
                        keepalive_interval: KEEPALIVE_MS,
                        next_seq_no: self.out_seq + 1,
                    }
                    .encode_frame(b)
                }));
            }
            Message::EstablishmentAck(a) => {
                self.established = true;
                self.rolling = false;
                let next = a.next_seq_no();
                if next <= self.processed {
                    v.add(
                        now_ns,
                        "the gateway's sequence went back",
                        sid,
                        0,
                        format!("next #{next} after #{} processed", self.processed),
                    );
                }
                if next > self.processed + 1 {
                    // Missed while away: asked for, the requests sent again once it is in.
                    let from = self.processed + 1;
                    reply.push(frame(|b| {
                        RetransmitRequest {
                            session_id: sid,
                            timestamp: utc_ns,
                            from_seq_no: from,
                            count: u32::try_from(next - from).unwrap_or(u32::MAX),
                            last_session_ver_id: None,
                        }
                        .encode_frame(b)
                    }));
                    self.resend_after = Some(next - 1);
                } else {
                    self.resend(reply);
                }
            }
            Message::RetransmitReject(r) => {
                v.add(
                    now_ns,
                    "retransmission refused",
                    sid,
                    0,
                    format!("{:?}", r.to_owned()),
                );
            }
            Message::Terminate(_) if self.terminating => {
                // The answer to its own Terminate: the gateway closes the connection.
                self.established = false;
            }
            Message::NegotiationReject(r)
                if self.rollover_asked
                    && r.to_owned().code == NegotiationRejectCode::Unspecified =>
            {
                // The new epoch cannot start now (its journal is failing: the old epoch's
                // messages are held): the gateway closes the connection, it asks again on
                // the next one.
                self.rollovers_refused += 1;
                self.refused = true;
            }
            Message::NegotiationReject(_)
            | Message::EstablishmentReject(_)
            | Message::Terminate(_) => {
                v.add(now_ns, "session ended", sid, 0, format!("{msg:?}"));
                self.established = false;
            }
            Message::ExecutionReport(m) => self.on_exec(m.to_owned(), now_ns, v),
            Message::OrderCancelReject(m) => {
                self.reports += 1;
                let r = m.to_owned();
                if r.cxl_rej_reason == codec::sbe::CxlRejReason::DuplicateClOrdID {
                    return;
                }
                self.answer_amend(r.cl_ord_id, now_ns, v, "OrderCancelReject");
            }
            Message::OrderMassCancelReport(m) => {
                self.reports += 1;
                let cl = m.cl_ord_id();
                if self.mass_open.remove(&cl).is_some() || self.mass_maybe.remove(&cl) {
                    self.mass_answered.insert(cl);
                } else {
                    let what = if self.mass_answered.contains(&cl) {
                        "mass cancel answered twice"
                    } else {
                        "answer to no request"
                    };
                    v.add(
                        now_ns,
                        what,
                        sid,
                        0,
                        format!("OrderMassCancelReport ClOrdID {cl}"),
                    );
                }
            }
            Message::BusinessMessageReject(m) => {
                v.add(
                    now_ns,
                    "business reject",
                    sid,
                    0,
                    format!("{:?}", m.to_owned()),
                );
            }
            _ => {}
        }
    }

    fn answer_amend(&mut self, cl: u64, now_ns: u64, v: &mut Violations, what: &str) {
        let root = self.roots.get(&cl).copied().unwrap_or(0);
        if self.amends.remove(&cl).is_some() {
            self.amends_answered.insert(cl);
        } else if self.amends_answered.contains(&cl) {
            v.add(
                now_ns,
                "cancel/replace answered twice",
                self.session_id,
                root,
                format!("{what} for ClOrdID {cl}"),
            );
        } else {
            v.add(
                now_ns,
                "answer to no request",
                self.session_id,
                root,
                format!("{what} for ClOrdID {cl}"),
            );
        }
    }

    fn on_exec(&mut self, er: codec::sbe::ExecutionReport, now_ns: u64, v: &mut Violations) {
        self.reports += 1;
        let sid = self.session_id;
        if er.exec_type == ExecType::Rejected
            && er.ord_rej_reason == Some(codec::sbe::OrdRejReason::DuplicateOrder)
        {
            // A request sent again after a reconnect that the gateway had seen: its own answer
            // comes (or came) apart.
            return;
        }
        let Some(root) = self.roots.get(&er.cl_ord_id).copied() else {
            v.add(now_ns, "unknown ClOrdID", sid, 0, format!("{er:?}"));
            return;
        };
        let is_amend = er.cl_ord_id != root;
        let answers_amend = is_amend
            && matches!(
                er.exec_type,
                ExecType::Canceled | ExecType::Replaced | ExecType::Rejected
            )
            && self.amends.contains_key(&er.cl_ord_id);
        if er.exec_type == ExecType::Replaced && self.amends_answered.contains(&er.cl_ord_id) {
            v.add(
                now_ns,
                "cancel/replace answered twice",
                sid,
                root,
                format!("a second Replaced for ClOrdID {}", er.cl_ord_id),
            );
            return;
        }
        let Some(o) = self.orders.get_mut(&root) else {
            v.add(now_ns, "unknown ClOrdID", sid, root, format!("{er:?}"));
            return;
        };
        if er.exec_type == ExecType::OrderStatus {
            // A new epoch's status of each order carried or ended unseen: the state as the
            // gateway knows it, fills of the old epoch it did not read included.
            if er.cum_qty < o.filled || (o.terminal() && er.ord_status != o.status) {
                v.add(
                    now_ns,
                    "OrderStatus goes back",
                    sid,
                    root,
                    format!(
                        "{:?} CumQty {} (was {:?}, Σ LastQty {})",
                        er.ord_status, er.cum_qty, o.status, o.filled
                    ),
                );
                return;
            }
            if er.cum_qty > o.filled {
                o.filled = er.cum_qty;
            }
            o.answered = true;
            o.got_new |= er.ord_status != OrdStatus::PendingNew;
            o.status = er.ord_status;
            o.cum_qty = er.cum_qty;
            return;
        }
        if o.terminal() {
            v.add(
                now_ns,
                "report after terminal",
                sid,
                root,
                format!(
                    "{:?} {:?} (was {:?})",
                    er.exec_type, er.ord_status, o.status
                ),
            );
            return;
        }
        o.answered = true;
        match er.exec_type {
            ExecType::New if o.got_new => {
                v.add(
                    now_ns,
                    "second New",
                    sid,
                    root,
                    format!("ClOrdID {}", er.cl_ord_id),
                );
                return;
            }
            ExecType::New => o.got_new = true,
            ExecType::PartialFill | ExecType::Fill => {
                if er.exec_id != 0 && !o.exec_ids.insert(er.exec_id) {
                    v.add(
                        now_ns,
                        "repeated ExecID",
                        sid,
                        root,
                        format!("ExecID {}", er.exec_id),
                    );
                    return;
                }
                let last = er.last_qty.unwrap_or(Decimal::ZERO);
                o.filled = o.filled.checked_add(last).unwrap_or(o.filled);
                if er.cum_qty != o.filled {
                    v.add(
                        now_ns,
                        "CumQty is not the sum of LastQty",
                        sid,
                        root,
                        format!("CumQty {} Σ LastQty {}", er.cum_qty, o.filled),
                    );
                }
                // A fill also acknowledges the order.
                o.got_new = true;
            }
            ExecType::Replaced => o.cl_current = er.cl_ord_id,
            _ => {}
        }
        if er.ord_status != OrdStatus::Rejected || !is_amend {
            o.status = er.ord_status;
            o.cum_qty = er.cum_qty;
        }
        if answers_amend {
            self.answer_amend(er.cl_ord_id, now_ns, v, "ExecutionReport");
        }
    }
}
