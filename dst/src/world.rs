//! One run: the strategies, the gateway and the exchange under one seeded scheduler, faults
//! drawn from the seed, the invariants checked on every message and at the end.
//!
//! Phases: the strategies establish and send their orders while faults fire; once every order
//! is sent, faults stop and the strategies cancel what is still open until nothing is; the
//! run then compares every order as its strategy saw it with the venue's own record. A
//! request still unanswered [`LIVENESS_NS`] after the faults stopped is a liveness violation.

use gateway_core::journal::durability::StorageFault;
use std::collections::BTreeMap;

use codec::sbe::ExecutionReport;
use gateway_core::pretrade::InstrumentRules;
use gateway_core::recovery::EndedBeforeRestart;
use gateway_core::resolver::{Answer, Query, QueryKind, Resolver};
use gateway_core::tracker::{Deadlines, ExchangeState, ResolveRequest, Retention, StateSource};

use crate::check::Violations;
use crate::exchange::Exchange;
use crate::faults::{Fault, FaultCounts, FaultPlan};
use crate::gateway::{credentials_of, session_id_of, Crashed, Gateway, Wire};
use crate::rng::SimRng;
use crate::sched::Scheduler;
use crate::strategy::Strategy;
use crate::trace::Trace;

/// UTC of the run's start (2026-01-01T00:00:00Z), ns: every run starts at the same date.
pub const EPOCH_UTC_NS: u64 = 1_767_225_600_000_000_000;

/// How long after the faults stop every request must be answered and every order closed, ns
/// (simulated): the reply timeout (5 s), the resolver's grace (6 s) and its retries fit.
pub const LIVENESS_NS: u64 = 60_000_000_000;

/// Longest fault phase, ns (simulated): a run whose strategies cannot send their orders by
/// then (their windows held by requests never answered) has its faults stopped here, and
/// the liveness bound runs from this point.
pub const FAULT_PHASE_MAX_NS: u64 = 300_000_000_000;

const MS: u64 = 1_000_000;
const US: u64 = 1_000;

/// The events. Those that reach the gateway after a delay carry its life (incarnation): a
/// crash makes them stale.
#[derive(Debug)]
enum Ev {
    StrategyAct(usize),
    Keepalive,
    ToGateway(usize, u64, Vec<u8>),
    ToStrategy(usize, u64, u64, Vec<u8>),
    StrategyDrop,
    StrategyNoticed(u64, usize),
    StrategyReconnect(usize),
    StrategyConnLost(usize, u64),
    ToVenue(u64, Vec<u8>),
    FromVenue(u64, String),
    TrackerTick,
    SessionTimers,
    LinkDrop,
    LinkDetect(u64),
    Reconnect(u64),
    Reconciled(u64),
    ResolverWake(u64),
    RestAnswer(u64, Query),
    ClockJump,
    Crash,
    Restart(u64),
    RestartReconciled(u64),
    WindDown,
}

#[derive(Default)]
struct Outbox {
    to_strategy: Vec<(usize, u64, Vec<u8>)>,
    to_venue: Vec<Vec<u8>>,
    resolve: Vec<ResolveRequest>,
    /// Steps of output left before the process crashes (`None`: no crash armed).
    fuse: Option<u64>,
    /// The crash point was reached: nothing more is output.
    blown: bool,
}

impl Wire for Outbox {
    fn to_strategy(&mut self, session: usize, seq: u64, frame: Vec<u8>) {
        self.to_strategy.push((session, seq, frame));
    }
    fn to_venue(&mut self, text: Vec<u8>) {
        self.to_venue.push(text);
    }
    fn resolve(&mut self, req: ResolveRequest) {
        self.resolve.push(req);
    }
    fn effect(&mut self) -> bool {
        if self.blown {
            return false;
        }
        match self.fuse {
            Some(0) => {
                self.blown = true;
                false
            }
            Some(n) => {
                self.fuse = Some(n - 1);
                true
            }
            None => true,
        }
    }
}

struct World {
    sched: Scheduler<Ev>,
    rng: SimRng,
    plan: FaultPlan,
    faults_on: bool,
    counts: FaultCounts,
    trace: Trace,
    v: Violations,
    exchange: Exchange,
    gw: Gateway,
    /// The instruments as the gateway loads them (again at a restart).
    rules: Vec<InstrumentRules>,
    /// The side stream (crash draws).
    side: SimRng,
    /// The storage stream (journal failures) and the rate of a journal failure per ms (0:
    /// none in this run).
    storage: SimRng,
    storage_rate: f64,
    /// How the tracker evicts ended orders (drawn: the default or tight).
    retention: Retention,
    /// The gateway's incarnation (a crash starts the next).
    life: u64,
    /// The gateway crashed and has not started again.
    down: Option<Crashed>,
    /// Strategy connections are accepted (false from a crash until the restart's
    /// reconciliation is done).
    accepting: bool,
    /// Steps of output left before an armed crash (mid-step crash points).
    fuse: Option<u64>,
    /// The tracker's open orders when it crashed between two steps (all it had reported),
    /// for the restored tracker to agree with.
    crashed_views: Option<BTreeMap<(u64, u64), ExecutionReport>>,
    /// What the restart's reconciliation leaves out (orders ended before the crash).
    restart_ended: Option<EndedBeforeRestart>,
    /// A crashed connection's generation whose ops still in flight reach the venue (the
    /// kernel sends what was written before the process died).
    drain_gen: Option<u64>,
    /// A reconnection of each strategy is pending.
    reconnecting: Vec<bool>,
    strategies: Vec<Strategy>,
    /// Connection generation at the venue (a drop starts a new one) and the gateway's.
    venue_gen: u64,
    gw_gen: u64,
    /// FIFO delivery: the time the last frame of each direction arrives.
    to_venue_at: u64,
    from_venue_at: u64,
    to_gw_at: Vec<u64>,
    to_strat_at: Vec<u64>,
    /// Each strategy's connection generation (a drop starts a new one), and the one the
    /// gateway writes to.
    strat_gen: Vec<u64>,
    gw_strat_gen: Vec<u64>,
    /// The gateway's clock offset (clock jumps), ns.
    utc_offset_ns: u64,
    /// The core's resolver of unknown outcomes (the shell's `engine::resolve` drives the same).
    resolver: Resolver,
    /// When the resolver's next wake-up is scheduled (`u64::MAX`: none).
    resolver_wake_ns: u64,
    faults_end_ns: Option<u64>,
    done: bool,
}

mod checks;
mod restart;
mod run;

pub use run::{run, RunConfig, RunResult};

/// The resolver as the gateway starts it: one account trading USDT-FUTURES, a place not found
/// asked again after twice the push deadline.
fn new_resolver() -> Resolver {
    Resolver::new(
        vec![vec![codec::sbe::Category::UsdtFutures]],
        2 * Deadlines::default().push_deadline_ms,
    )
}

impl World {
    fn utc_ns(&self) -> u64 {
        EPOCH_UTC_NS + self.sched.now_ns() + self.utc_offset_ns
    }

    fn venue_ms(&self) -> u64 {
        (EPOCH_UTC_NS + self.sched.now_ns()) / MS
    }

    /// A fault of a kind drawn from the side stream ([`FaultPlan::with_more`]).
    fn side_fault(&mut self, f: Fault) -> bool {
        let rate = self.plan.rate(f);
        if self.faults_on && rate > 0.0 && self.side.chance(rate) {
            self.counts.add(f);
            true
        } else {
            false
        }
    }

    /// An established strategy, drawn from the side stream (`None`: none is).
    fn side_pick_established(&mut self) -> Option<usize> {
        let up: Vec<usize> = (0..self.strategies.len())
            .filter(|i| self.strategies[*i].established)
            .collect();
        (!up.is_empty()).then(|| up[self.side.index(up.len())])
    }

    fn fault(&mut self, f: Fault) -> bool {
        if self.faults_on && self.rng.chance(self.plan.rate(f)) {
            self.counts.add(f);
            true
        } else {
            false
        }
    }

    fn start(&mut self) {
        for i in 0..self.strategies.len() {
            let (now, utc) = (self.sched.now_ns(), self.utc_ns());
            let f = self.strategies[i].negotiate(now, utc);
            self.send_to_gateway(i, f);
            let d = self.rng.between(0, MS);
            self.sched.after(d, Ev::StrategyAct(i));
        }
        self.sched.after(MS, Ev::TrackerTick);
        self.sched.after(20 * MS, Ev::SessionTimers);
        self.sched.after(200 * MS, Ev::Keepalive);
        self.sched.after(MS, Ev::LinkDrop);
        self.sched.after(MS, Ev::StrategyDrop);
        self.sched.after(MS, Ev::ClockJump);
        if self.plan.rate(Fault::GatewayCrash) > 0.0 {
            self.sched.after(MS, Ev::Crash);
        }
    }

    /// An outbox for one step of the gateway (the armed crash's fuse in it).
    fn outbox(&self) -> Outbox {
        Outbox {
            fuse: self.fuse,
            ..Outbox::default()
        }
    }

    fn send_to_gateway(&mut self, i: usize, frame: Vec<u8>) {
        let d = self.rng.between(5 * US, 30 * US);
        let at = (self.sched.now_ns() + d).max(self.to_gw_at[i]);
        self.to_gw_at[i] = at;
        self.sched
            .at(at, Ev::ToGateway(i, self.strat_gen[i], frame));
    }

    fn flush(&mut self, out: Outbox) {
        if self.fuse.is_some() {
            self.fuse = out.fuse;
        }
        let blown = out.blown;
        for i in self.gw.take_closed() {
            // The gateway ended the connection (Terminate): the strategy sees it end.
            if self.strategies[i].established && self.gw_strat_gen[i] == self.strat_gen[i] {
                self.drop_strategy(i);
            }
        }
        for (i, seq, frame) in out.to_strategy {
            let d = self.rng.between(5 * US, 30 * US);
            let at = (self.sched.now_ns() + d).max(self.to_strat_at[i]);
            self.to_strat_at[i] = at;
            self.sched
                .at(at, Ev::ToStrategy(i, self.gw_strat_gen[i], seq, frame));
        }
        for text in out.to_venue {
            let mut d = self.rng.between(20 * US, 200 * US);
            if self.fault(Fault::FrameStall) {
                d += self.rng.between(5 * MS, 50 * MS);
            }
            let at = (self.sched.now_ns() + d).max(self.to_venue_at);
            self.to_venue_at = at;
            self.sched.at(at, Ev::ToVenue(self.gw_gen, text));
        }
        if !out.resolve.is_empty() {
            let now = self.sched.now_ns();
            for req in out.resolve {
                self.resolver.push(req, now);
            }
            self.pump_resolver();
        }
        if blown {
            self.crash(false);
        }
    }

    /// Runs the queries the resolver names now (each answered after a REST latency) and
    /// schedules its next wake-up.
    fn pump_resolver(&mut self) {
        let (now, utc_ms) = (self.sched.now_ns(), self.utc_ns() / MS);
        while let Some(q) = self.resolver.poll(now, utc_ms) {
            let d = self.rest_latency();
            self.sched.after(d, Ev::RestAnswer(self.life, q));
        }
        if let Some(at) = self.resolver.next_wake_ns() {
            if at < self.resolver_wake_ns || self.resolver_wake_ns <= now {
                self.resolver_wake_ns = at;
                self.sched.at(at, Ev::ResolverWake(self.life));
            }
        }
    }

    /// The venue answers a resolver's query (or fails it).
    fn rest_answer(&mut self, q: Query) {
        let t = self.sched.now_ns();
        let answer = if self.fault(Fault::RestError) {
            Answer::Failed("simulated REST error".into())
        } else {
            let ex = &self.exchange;
            match q.kind {
                QueryKind::ServerTime => Answer::ServerTime(self.venue_ms()),
                QueryKind::HistoryOrders { category, since_ms } => {
                    Answer::Orders(ex.history_orders(category, since_ms))
                }
                QueryKind::OpenOrders => Answer::Orders(ex.open_orders()),
                QueryKind::Fills {
                    category,
                    order_id,
                    since_ms,
                } => Answer::Fills(ex.fills(category, order_id, since_ms)),
                QueryKind::OrderInfo { client_oid } => {
                    Answer::Order(ex.order_info(client_oid.as_str()))
                }
            }
        };
        self.trace
            .event(t, "resolver answer", format!("{q:?} {answer:?}").as_bytes());
        let utc = self.utc_ns();
        if let Some(state) = self.resolver.on_answer(q.account, answer, t, utc / MS) {
            let mut out = self.outbox();
            self.gw.on_exchange_state(&state, t, utc, &mut out);
            self.flush(out);
        }
        self.pump_resolver();
    }

    fn venue_sends(&mut self, text: String) {
        let mut d = self.rng.between(20 * US, 200 * US);
        if self.fault(Fault::FrameStall) {
            d += self.rng.between(5 * MS, 50 * MS);
        }
        let at = (self.sched.now_ns() + d).max(self.from_venue_at);
        self.from_venue_at = at;
        self.sched.at(at, Ev::FromVenue(self.venue_gen, text));
    }

    fn step(&mut self, t: u64, ev: Ev) {
        let now = t;
        match ev {
            Ev::StrategyAct(i) => {
                let utc = self.utc_ns();
                let sent = {
                    let World {
                        strategies, rng, ..
                    } = self;
                    strategies[i].act(rng, now, utc)
                };
                if let Some(f) = sent {
                    self.trace.event(t, &format!("s{i} strategy sends"), &f);
                    self.send_to_gateway(i, f);
                }
                if self.strategies[i].orders_left() > 0 {
                    let d = self.rng.between(20 * US, 2 * MS);
                    self.sched.after(d, Ev::StrategyAct(i));
                } else {
                    self.maybe_end_faults();
                }
            }
            Ev::Keepalive => {
                for i in 0..self.strategies.len() {
                    if let Some(f) = self.strategies[i].keepalive(now) {
                        self.send_to_gateway(i, f);
                    }
                }
                self.sched.after(200 * MS, Ev::Keepalive);
            }
            Ev::ToGateway(i, gen, frame) => {
                if gen != self.strat_gen[i] || gen != self.gw_strat_gen[i] || self.down.is_some() {
                    self.trace
                        .event(t, &format!("s{i} lost to gateway"), &frame);
                    return;
                }
                self.trace.event(t, &format!("s{i} gateway reads"), &frame);
                let utc = self.utc_ns();
                let mut out = self.outbox();
                self.gw.on_strategy_frame(i, &frame, now, utc, &mut out);
                self.flush(out);
            }
            Ev::ToStrategy(i, gen, seq, frame) => {
                if gen != self.strat_gen[i] {
                    self.trace
                        .event(t, &format!("s{i} lost to strategy"), &frame);
                    return;
                }
                self.trace
                    .event(t, &format!("s{i} strategy reads #{seq}"), &frame);
                let utc = self.utc_ns();
                let mut replies = Vec::new();
                self.strategies[i].on_frame(&frame, seq, now, utc, &mut self.v, &mut replies);
                for r in replies {
                    self.send_to_gateway(i, r);
                }
                if self.strategies[i].refused {
                    // A rollover refused for now: the gateway closes the connection and the
                    // strategy connects again (and asks again).
                    self.drop_strategy(i);
                }
            }
            Ev::ToVenue(gen, text) => {
                if gen != self.venue_gen && Some(gen) != self.drain_gen {
                    self.trace.event(t, "lost to venue", &text);
                    return;
                }
                self.trace.event(t, "venue reads", &text);
                self.venue_trade(&text);
            }
            Ev::FromVenue(gen, text) => {
                if gen != self.gw_gen || !self.gw.link.connected || self.down.is_some() {
                    self.trace.event(t, "lost from venue", text.as_bytes());
                    return;
                }
                self.trace.event(t, "gateway reads venue", text.as_bytes());
                let utc = self.utc_ns();
                let mut out = self.outbox();
                self.gw
                    .on_exchange_frame(text.as_bytes(), now, utc, &mut out);
                self.flush(out);
            }
            Ev::TrackerTick => {
                self.sched.after(MS, Ev::TrackerTick);
                if self.faults_on
                    && self.storage_rate > 0.0
                    && self.storage.chance(self.storage_rate)
                {
                    let i = self.storage.index(self.strategies.len().max(1));
                    let appends = self.storage.between(1, 8) as u32;
                    let fault = if self.storage.chance(0.5) {
                        StorageFault::NoSpace
                    } else {
                        StorageFault::Io
                    };
                    let partial = self.storage.chance(0.3);
                    self.counts.add(Fault::JournalFailing);
                    self.trace.event(t, "fault: journal failing", b"");
                    self.gw.fail_journal(i, appends, fault, partial);
                }
                if self.down.is_none() {
                    let utc = self.utc_ns();
                    let mut out = self.outbox();
                    self.gw.tick(now, utc, &mut out);
                    self.flush(out);
                }
            }
            Ev::SessionTimers => {
                self.sched.after(20 * MS, Ev::SessionTimers);
                if self.down.is_none() {
                    let mut out = self.outbox();
                    self.gw.session_timers(now, &mut out);
                    self.flush(out);
                }
            }
            Ev::LinkDrop => {
                if self.fault(Fault::LinkDrop) && self.gw_gen == self.venue_gen {
                    self.trace.event(t, "fault: link drop", b"");
                    let old = self.venue_gen;
                    self.venue_gen += 1;
                    let d = self.rng.between(0, 100 * MS);
                    self.sched.after(d, Ev::LinkDetect(old));
                }
                if self.faults_on {
                    self.sched.after(MS, Ev::LinkDrop);
                }
            }
            Ev::StrategyDrop => {
                if self.fault(Fault::StrategyDrop) {
                    let up: Vec<usize> = (0..self.strategies.len())
                        .filter(|i| self.strategies[*i].established)
                        .collect();
                    if !up.is_empty() {
                        let i = up[self.rng.index(up.len())];
                        self.drop_strategy(i);
                    }
                }
                let utc = self.utc_ns();
                if self.plan.rate(Fault::StrategyTerminate) > 0.0 {
                    if let Some(i) = self.side_pick_established() {
                        if self.side_fault(Fault::StrategyTerminate) {
                            if let Some(f) = self.strategies[i].terminate() {
                                self.trace.event(t, &format!("s{i} fault: Terminate"), &f);
                                self.send_to_gateway(i, f);
                            }
                        }
                    }
                }
                if self.plan.rate(Fault::SessionRollover) > 0.0 {
                    if let Some(i) = self.side_pick_established() {
                        if self.strategies[i].quiet() && self.side_fault(Fault::SessionRollover) {
                            if let Some(f) = self.strategies[i].roll_over() {
                                self.trace.event(
                                    t,
                                    &format!("s{i} fault: rollover (Terminate)"),
                                    &f,
                                );
                                self.send_to_gateway(i, f);
                            }
                        }
                    }
                }
                if self.plan.rate(Fault::StrategyRetransmit) > 0.0 {
                    if let Some(i) = self.side_pick_established() {
                        let World {
                            strategies, side, ..
                        } = self;
                        if let Some(f) = strategies[i].ask_again(side, utc) {
                            if self.side_fault(Fault::StrategyRetransmit) {
                                self.trace
                                    .event(t, &format!("s{i} fault: RetransmitRequest"), &f);
                                self.send_to_gateway(i, f);
                            }
                        }
                    }
                }
                if self.faults_on {
                    self.sched.after(MS, Ev::StrategyDrop);
                }
            }
            Ev::StrategyNoticed(life, i) => {
                if life != self.life {
                    return;
                }
                self.trace
                    .event(t, &format!("s{i} gateway: connection closed"), b"");
                let utc = self.utc_ns();
                let mut out = self.outbox();
                self.gw.on_strategy_disconnect(i, now, utc, &mut out);
                self.flush(out);
            }
            Ev::StrategyConnLost(i, gen) => {
                if gen == self.strat_gen[i] {
                    self.trace
                        .event(t, &format!("s{i} connection lost with the gateway"), b"");
                    self.strat_gen[i] += 1;
                    self.strategies[i].on_disconnect();
                }
                let d = self.rng.between(50 * MS, 500 * MS);
                self.sched.after(d, Ev::StrategyReconnect(i));
            }
            Ev::StrategyReconnect(i) => {
                if self.down.is_some() || !self.accepting {
                    // Connection refused: the gateway is not up (again) yet.
                    let d = self.rng.between(50 * MS, 500 * MS);
                    self.sched.after(d, Ev::StrategyReconnect(i));
                    return;
                }
                self.reconnecting[i] = false;
                self.trace.event(t, &format!("s{i} reconnects"), b"");
                self.gw_strat_gen[i] = self.strat_gen[i];
                self.gw.on_strategy_connect(i, now);
                let utc = self.utc_ns();
                let f = self.strategies[i].negotiate(now, utc);
                self.send_to_gateway(i, f);
            }
            Ev::LinkDetect(gen) => {
                if self.gw.link.connected && self.gw_gen == gen && self.down.is_none() {
                    self.trace.event(t, "gateway: link down", b"");
                    let utc_ms = self.utc_ns() / MS;
                    let mut out = self.outbox();
                    self.gw.on_link_down(now, utc_ms, &mut out);
                    self.flush(out);
                    let d = self.rng.between(100 * MS, 1_000 * MS);
                    self.sched.after(d, Ev::Reconnect(self.life));
                }
            }
            Ev::Reconnect(life) => {
                if life != self.life {
                    return;
                }
                self.trace.event(t, "gateway: reconnected", b"");
                self.gw_gen = self.venue_gen;
                self.gw.on_link_connected();
                let d = self.rest_latency();
                self.sched.after(d, Ev::Reconciled(self.gw_gen));
            }
            Ev::Reconciled(gen) => {
                if gen != self.venue_gen || gen != self.gw_gen {
                    // Dropped again while reconciling: its detection reconnects.
                    return;
                }
                if self.fault(Fault::RestError) {
                    let d = self.rng.between(50 * MS, 500 * MS);
                    self.sched.after(d, Ev::Reconciled(gen));
                    return;
                }
                let since = self
                    .gw
                    .link
                    .down_since_ms
                    .unwrap_or(0)
                    .saturating_sub(5_000);
                let (orders, fills) = self.exchange.lists(since);
                let state = ExchangeState {
                    account: 0,
                    orders,
                    fills,
                    not_found: Vec::new(),
                    source: StateSource::Reconnect,
                };
                self.trace
                    .event(t, "gateway: reconciled", format!("{state:?}").as_bytes());
                let utc = self.utc_ns();
                let mut out = self.outbox();
                self.gw.on_exchange_state(&state, now, utc, &mut out);
                self.gw.on_link_up(now, &mut out);
                self.flush(out);
            }
            Ev::ResolverWake(life) => {
                if life != self.life {
                    return;
                }
                if self.resolver_wake_ns <= t {
                    self.resolver_wake_ns = u64::MAX;
                }
                self.pump_resolver();
            }
            Ev::RestAnswer(life, q) => {
                if life == self.life {
                    self.rest_answer(q);
                }
            }
            Ev::Crash => {
                // Drawn from the side stream, as everything about crashes: a run whose
                // crashes never fire runs as it did before they existed.
                if self.down.is_none()
                    && self.fuse.is_none()
                    && self.side_fault(Fault::GatewayCrash)
                {
                    if self.side.chance(0.5) {
                        self.crash(true);
                    } else {
                        // At a crash point within one of the next steps.
                        self.fuse = Some(self.side.between(0, 40));
                    }
                }
                if self.faults_on {
                    self.sched.after(MS, Ev::Crash);
                }
            }
            Ev::Restart(life) => {
                if life == self.life {
                    self.restart();
                }
            }
            Ev::RestartReconciled(life) => {
                if life == self.life && self.down.is_none() {
                    self.restart_reconciled();
                }
            }
            Ev::ClockJump => {
                if self.fault(Fault::ClockJump) {
                    let j = self.rng.between(100 * MS, 2_000 * MS);
                    self.utc_offset_ns += j;
                    self.trace.event(t, "fault: clock jump", &j.to_le_bytes());
                }
                if self.faults_on {
                    self.sched.after(MS, Ev::ClockJump);
                }
            }
            Ev::WindDown => self.wind_down(),
        }
    }

    /// Strategy `i`'s connection drops: frames in flight either way are lost; the gateway
    /// notices 0-5 ms later, the strategy connects again 50-500 ms later.
    fn drop_strategy(&mut self, i: usize) {
        self.trace.event(
            self.sched.now_ns(),
            &format!("s{i} fault: connection drop"),
            b"",
        );
        self.strat_gen[i] += 1;
        self.strategies[i].on_disconnect();
        self.reconnecting[i] = true;
        let d = self.rng.between(0, 5 * MS);
        self.sched.after(d, Ev::StrategyNoticed(self.life, i));
        let d = self.rng.between(50 * MS, 500 * MS);
        self.sched.after(d, Ev::StrategyReconnect(i));
    }

    fn rest_latency(&mut self) -> u64 {
        let mut d = self.rng.between(MS, 10 * MS);
        if self.fault(Fault::RestSlow) {
            d += self.rng.between(100 * MS, 2_000 * MS);
        }
        d
    }

    /// The venue takes a trade op: applied or not, its reply (maybe lost or `40010`) and its
    /// pushes (maybe before the reply).
    fn venue_trade(&mut self, text: &[u8]) {
        let now_ms = self.venue_ms();
        let Ok(s) = std::str::from_utf8(text) else {
            return;
        };
        let id_raw = serde_json::from_str::<serde_json::Value>(s)
            .ok()
            .and_then(|v| v.get("id").map(|id| id.to_string()))
            .unwrap_or_else(|| "\"\"".into());
        if self.side_fault(Fault::RateRefused) {
            let reply = sim::render::trade_error(&id_raw, 429, "Too Many Requests");
            self.venue_sends(reply);
            return;
        }
        if self.fault(Fault::Reply40010NotApplied) {
            let reply = sim::render::trade_error(&id_raw, 40010, "Request timed out");
            self.venue_sends(reply);
            return;
        }
        let Some(answer) = self.exchange.trade(s, now_ms) else {
            return;
        };
        let mut reply = Some(answer.reply);
        if self.fault(Fault::ReplyLost) {
            reply = None;
        } else if self.fault(Fault::Reply40010Applied) {
            reply = Some(sim::render::trade_error(
                &id_raw,
                40010,
                "Request timed out",
            ));
        }
        let pushes_first = self.fault(Fault::PushBeforeReply);
        if !pushes_first {
            if let Some(r) = reply.take() {
                self.venue_sends(r);
            }
        }
        let mut pushes = answer.pushes;
        if pushes.len() > 1 && self.fault(Fault::PushesReordered) {
            pushes.reverse();
        }
        for p in pushes {
            if self.fault(Fault::PushDuplicated) {
                self.venue_sends(p.clone());
            }
            self.venue_sends(p);
        }
        if let Some(r) = reply {
            self.venue_sends(r);
        }
        for p in std::mem::take(&mut self.exchange.spontaneous) {
            self.venue_sends(p);
        }
    }

    /// Once every strategy has sent its orders: faults stop and the wind-down begins.
    fn maybe_end_faults(&mut self) {
        if self.faults_end_ns.is_some() || self.strategies.iter().any(|s| s.orders_left() > 0) {
            return;
        }
        self.end_faults();
    }

    /// Faults stop now; the wind-down begins.
    fn end_faults(&mut self) {
        self.faults_on = false;
        self.fuse = None;
        self.faults_end_ns = Some(self.sched.now_ns());
        self.trace.event(self.sched.now_ns(), "faults end", b"");
        self.sched.after(50 * MS, Ev::WindDown);
    }

    /// Cancels what is still open, every 200 ms, until nothing is open or unanswered.
    fn wind_down(&mut self) {
        let (now, utc) = (self.sched.now_ns(), self.utc_ns());
        let quiet = self
            .strategies
            .iter()
            .all(|s| s.open_orders() == 0 && s.outstanding() == 0);
        if quiet
            && self.down.is_none()
            && self.accepting
            && self.gw.link.up
            && self.gw.tracker().unresolved() == 0
            && self.resolver.pending() == 0
        {
            self.done = true;
            return;
        }
        for i in 0..self.strategies.len() {
            for f in self.strategies[i].wind_down(now, utc, 1_000 * MS) {
                self.send_to_gateway(i, f);
            }
        }
        self.sched.after(200 * MS, Ev::WindDown);
    }
}
