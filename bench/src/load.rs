//! `load`: the open-loop load generator (issue 12, item 1). N strategy sessions send at a fixed
//! aggregate rate, constant or Poisson arrivals, for a set time; every latency is measured from
//! the request's *intended* send time, so a stalled gateway (or a late generator) shows in the
//! figures instead of slowing the arrivals down (no coordinated omission; wrk2, and
//! HdrHistogram's expected-interval correction).
//!
//! Each session alternates two requests: a NewOrderSingle (a limit buy far below the market,
//! which rests) and, one arrival later, the OrderCancelRequest of that order, so the open
//! orders stay bounded. A request is answered by the first report carrying its ClOrdID: New
//! (or Rejected) for the place, Canceled (or OrderCancelReject) for the cancel. A request with
//! no answer within [`DRAIN`] of the step's end is lost.
//!
//! One sender thread drives every session (it sleeps when the next arrival is far, then spins;
//! its own lateness is reported as "sender lag"); one receiver thread per session reads.
//! The rate steps up by a factor until p99 or loss breaks the bound after a rate held, or a
//! step is overloaded (a loss, or a median beyond the bound), or the top rate is reached; the highest rate that held is the maximum sustainable rate, then 10 %, 50 % and 90 % of it are run again.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use codec::sbe::{OrderCancelRequest, Side};
use gateway::idle::IdleStrategy;
use hdrhistogram::Histogram;
use rand::{Rng, SeedableRng};
use strategy_client::{ClientSender, Received, StrategyClient};

use crate::rig::{limit_buy, price_at, Market, Rig, RigOptions};

/// How long after a step's last arrival its answers are waited for.
pub const DRAIN: Duration = Duration::from_secs(2);

/// Arrival process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrivals {
    /// Evenly spaced.
    Constant,
    /// Exponential gaps (a Poisson process), seeded.
    Poisson,
}

/// Options of one load run.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Strategy sessions.
    pub sessions: usize,
    /// Arrival process.
    pub arrivals: Arrivals,
    /// Explicit rates (requests/s, all sessions together); empty: step up from `start_rate`.
    pub rates: Vec<u64>,
    /// First rate of the step-up, requests/s.
    pub start_rate: u64,
    /// Each step's rate is the previous one × this.
    pub step_factor: f64,
    /// The step-up stops at this rate.
    pub max_rate: u64,
    /// Duration of each step.
    pub step: Duration,
    /// A step holds when its p99 (from intended send time) is at most this and nothing is
    /// lost or rejected.
    pub p99_bound: Duration,
    /// Seed of the Poisson arrivals.
    pub seed: u64,
    /// Idle strategy of the gateway's threads.
    pub idle: IdleStrategy,
    /// Pin the gateway's threads.
    pub pin: bool,
    /// Where the gateway's tracker runs (`[tracker] placement`).
    pub placement: gateway::tracker::port::TrackerPlacement,
    /// The sender spins (with yields) through a gap shorter than this instead of sleeping (a
    /// sleep wakes ~50-60 µs late, a spin takes a core from the gateway on a small machine);
    /// zero: it always sleeps.
    pub spin_below: Duration,
    /// The tracker's table capacity (`[tracker] order_capacity`); `None`: the default.
    pub order_capacity: Option<usize>,
    /// The simulator's venue: `Fast` answers every op at once (the gateway is what is
    /// measured), `Full` matches.
    pub venue: sim::config::VenueMode,
    /// Private WebSocket connections the gateway opens for the account (`[[account]]
    /// connections`, ≥ 1; new orders spread over them, an order's later ops follow its place: see
    /// `gateway_core::budget::AccountBudget::acquire`).
    pub connections: usize,
    /// Pin the sender (the thread that calls [`run`]) to this core, so that it is not moved or
    /// queued behind the gateway's threads (with cores to spare; on 2 vCPUs it takes one of the
    /// two from the gateway and the simulator). `None`: not pinned.
    pub sender_core: Option<usize>,
    /// After the gateway's steps, run the same rates through the floor
    /// ([`crate::floor::FloorLoad`]: the same TLS WebSocket to the same simulator, frames
    /// rendered from templates, no gateway) and print gateway / floor ratios.
    pub floor: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            sessions: 4,
            arrivals: Arrivals::Constant,
            rates: Vec::new(),
            start_rate: 2_000,
            step_factor: 1.5,
            max_rate: 200_000,
            step: Duration::from_secs(3),
            p99_bound: Duration::from_millis(1),
            seed: 1,
            idle: IdleStrategy::Park,
            pin: false,
            placement: Default::default(),
            spin_below: Duration::ZERO,
            order_capacity: None,
            venue: sim::config::VenueMode::Full,
            connections: 1,
            sender_core: None,
            floor: true,
        }
    }
}

/// What one step measured.
#[derive(Debug, Clone)]
pub struct StepResult {
    /// Offered rate, requests/s.
    pub rate: u64,
    /// Requests sent.
    pub sent: u64,
    /// Requests sent per second of the step.
    pub sent_per_s: f64,
    /// Requests answered.
    pub answered: u64,
    /// Requests never answered.
    pub lost: u64,
    /// Answers that refused the request (Rejected ExecutionReport, OrderCancelReject,
    /// BusinessMessageReject).
    pub rejected: u64,
    /// Latency from intended send time to the answer, ns.
    pub latency: Histogram<u64>,
    /// Actual minus intended send time, ns.
    pub sender_lag: Histogram<u64>,
    /// p99 within the bound and nothing lost or rejected.
    pub held: bool,
}

/// A whole run: the step-up, then the runs at fractions of the maximum.
#[derive(Debug)]
pub struct LoadOutcome {
    /// Every step of the step-up, in order.
    pub steps: Vec<StepResult>,
    /// The highest rate that held (0 when none did).
    pub max_sustained: u64,
    /// The runs at 10 %, 50 % and 90 % of `max_sustained`.
    pub fractions: Vec<(u32, StepResult)>,
    /// The floor at the same rates, in the same order (the steps, then the fractions); empty
    /// when `floor` is off.
    pub floor: Vec<StepResult>,
    /// Trade ops the gateway wrote on each exchange connection over the whole run (places and
    /// cancels; `Gateway::exchange_trade_ops`).
    pub conn_ops: Vec<gateway::metrics::state::ConnOps>,
}

/// One session's state shared between the sender and its receiver for one step.
struct StepShared {
    /// ClOrdID of arrival 0 of this step.
    base: u64,
    /// Intended send time + 1 (ns since the run's epoch) of each arrival; 0 = not sent.
    intended: Vec<AtomicU64>,
    /// Arrivals sent.
    sent: AtomicU64,
    /// The sender is done with the step.
    done: AtomicBool,
}

struct Session {
    /// `None` while a receiver thread holds it for a step.
    client: Option<StrategyClient>,
    sender: ClientSender,
    next_cl: u64,
    market: Market,
}

struct ReceiverResult {
    client: StrategyClient,
    latency: Histogram<u64>,
    answered: u64,
    rejected: u64,
}

fn hist() -> Histogram<u64> {
    // 1 ns .. 60 s, 3 significant digits; cannot fail with these bounds.
    Histogram::new_with_bounds(1, 60_000_000_000, 3).expect("valid histogram bounds")
}

fn ns_since(epoch: Instant) -> u64 {
    u64::try_from(epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// Reads answers until every sent arrival is answered or the drain deadline passes.
fn receive(mut client: StrategyClient, shared: Arc<StepShared>, epoch: Instant) -> ReceiverResult {
    let mut tally = Tally::new(&shared);
    loop {
        let got = client.recv(Duration::from_millis(20));
        let now = ns_since(epoch);
        let (cl, refused) = match got {
            Ok(Some(Received::Exec(er))) => (
                er.cl_ord_id,
                er.ord_status == codec::sbe::OrdStatus::Rejected,
            ),
            Ok(Some(Received::CancelReject(r))) => (r.cl_ord_id, true),
            Ok(Some(Received::BusinessReject(r))) => (r.business_reject_ref_id, true),
            Ok(Some(_)) | Ok(None) => (0, false),
            Err(_) => break,
        };
        tally.answer(&shared, cl, refused, now);
        if tally.finished(&shared) {
            break;
        }
    }
    ReceiverResult {
        client,
        latency: tally.latency,
        answered: tally.answered,
        rejected: tally.rejected,
    }
}

/// One session's answers in one step, shared by the gateway's receivers and the floor's: the
/// first answer to each arrival counts, timed from its intended send time.
struct Tally {
    latency: Histogram<u64>,
    seen: Vec<bool>,
    answered: u64,
    rejected: u64,
    drain_deadline: Option<Instant>,
}

impl Tally {
    fn new(shared: &StepShared) -> Tally {
        Tally {
            latency: hist(),
            seen: vec![false; shared.intended.len()],
            answered: 0,
            rejected: 0,
            drain_deadline: None,
        }
    }

    /// An answer to arrival `id − shared.base` read at `now_ns` (since the run's epoch); ids
    /// outside the step, unsent arrivals and repeated answers are ignored.
    fn answer(&mut self, shared: &StepShared, id: u64, refused: bool, now_ns: u64) {
        let Some(k) = id
            .checked_sub(shared.base)
            .and_then(|k| usize::try_from(k).ok())
            .filter(|k| *k < self.seen.len())
        else {
            return;
        };
        let t = shared.intended[k].load(Ordering::Acquire);
        if !self.seen[k] && t != 0 {
            self.seen[k] = true;
            self.answered += 1;
            self.rejected += u64::from(refused);
            let _ = self.latency.record(now_ns.saturating_sub(t - 1).max(1));
        }
    }

    /// True once the sender is done and every sent arrival is answered, or [`DRAIN`] has
    /// passed since the sender was seen done.
    fn finished(&mut self, shared: &StepShared) -> bool {
        if !shared.done.load(Ordering::Acquire) {
            return false;
        }
        if self.answered >= shared.sent.load(Ordering::Acquire) {
            return true;
        }
        let deadline = *self
            .drain_deadline
            .get_or_insert_with(|| Instant::now() + DRAIN);
        Instant::now() >= deadline
    }
}

/// Gap to the next arrival of one session, ns.
fn gap_ns(arrivals: Arrivals, per_session_rate: f64, rng: &mut rand_chacha::ChaCha8Rng) -> f64 {
    let mean = 1e9 / per_session_rate;
    match arrivals {
        Arrivals::Constant => mean,
        Arrivals::Poisson => {
            let u: f64 = rng.random::<f64>();
            -mean * (1.0 - u).ln()
        }
    }
}

/// Runs one step at `rate` requests/s.
fn run_step(
    sessions: &mut [Session],
    opts: &LoadOptions,
    rate: u64,
    epoch: Instant,
    rng: &mut rand_chacha::ChaCha8Rng,
) -> Result<StepResult, String> {
    let n = sessions.len();
    let capacity = step_capacity(opts, rate, n);
    let mut shared = Vec::with_capacity(n);
    let mut receivers = Vec::with_capacity(n);
    for s in sessions.iter_mut() {
        let st = Arc::new(StepShared {
            base: s.next_cl,
            intended: (0..capacity).map(|_| AtomicU64::new(0)).collect(),
            sent: AtomicU64::new(0),
            done: AtomicBool::new(false),
        });
        s.next_cl += capacity as u64;
        shared.push(Arc::clone(&st));
        // The receiver owns the client for the step and gives it back.
        let client = s.client.take().ok_or("a session's client is missing")?;
        receivers.push(
            std::thread::Builder::new()
                .name("load-recv".into())
                .spawn(move || receive(client, st, epoch))
                .map_err(|e| e.to_string())?,
        );
    }
    let markets: Vec<Market> = sessions.iter().map(|s| s.market).collect();
    let senders: Vec<&mut ClientSender> = sessions.iter_mut().map(|s| &mut s.sender).collect();
    let mut senders = senders;
    let driven = drive(&shared, opts, rate, epoch, rng, |s, st, k| {
        let cl = st.base + k as u64;
        let m = markets[s];
        let sender = &mut senders[s];
        if k.is_multiple_of(2) {
            sender.send_new_order(&limit_buy(
                cl,
                m.symbol,
                m.category,
                price_at(&m, "0.9"),
                m.qty,
            ))
        } else {
            sender.send_cancel(&OrderCancelRequest {
                cl_ord_id: cl,
                orig_cl_ord_id: cl - 1,
                transact_time: gateway::metrics::utc_now_ns(),
                symbol: m.symbol,
                category: m.category,
                side: Side::Buy,
            })
        }
        .map_err(|e| format!("send: {e}"))
    });
    let mut latency = hist();
    let (mut answered, mut rejected) = (0u64, 0u64);
    for (s, r) in sessions.iter_mut().zip(receivers) {
        let r = r.join().map_err(|_| "a receiver panicked".to_string())?;
        s.client = Some(r.client);
        let _ = latency.add(&r.latency);
        answered += r.answered;
        rejected += r.rejected;
    }
    if let Some(e) = driven.error {
        return Err(e);
    }
    // A keepalive per session between steps (arrivals stop while the results are read).
    for s in sessions.iter_mut() {
        s.sender
            .send_keepalive()
            .map_err(|e| format!("keepalive: {e}"))?;
    }
    Ok(step_result(rate, opts, driven, latency, answered, rejected))
}

/// One strategy connection to the open-loop floor ([`crate::floor::FloorLoad`]).
struct FloorSession {
    stream: std::net::TcpStream,
    /// The request frame, stamped per arrival.
    frame: Vec<u8>,
    /// Arrival number of this step's arrival 0 (even: places and cancels pair up).
    next_k: u64,
}

/// Reads the floor's answers of one session until every sent arrival is answered or the drain
/// deadline passes: the same accounting as [`receive`].
fn receive_floor(
    mut stream: std::net::TcpStream,
    shared: Arc<StepShared>,
    epoch: Instant,
) -> (Histogram<u64>, u64) {
    use std::io::Read;
    let mut tally = Tally::new(&shared);
    let mut buf = vec![0u8; crate::floor::LOAD_REPLY_LEN];
    let mut filled = 0usize;
    let _ = stream.set_read_timeout(Some(Duration::from_millis(20)));
    loop {
        match stream.read(buf.get_mut(filled..).unwrap_or_default()) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => break,
        }
        if filled == buf.len() {
            filled = 0;
            if let Some((_, k)) = crate::floor::stamped(&buf) {
                tally.answer(&shared, k, false, ns_since(epoch));
            }
        }
        if tally.finished(&shared) {
            break;
        }
    }
    (tally.latency, tally.answered)
}

/// Runs one step at `rate` requests/s through the floor (the same arrivals as [`run_step`]).
fn run_floor_step(
    sessions: &mut [FloorSession],
    opts: &LoadOptions,
    rate: u64,
    epoch: Instant,
    rng: &mut rand_chacha::ChaCha8Rng,
) -> Result<StepResult, String> {
    let capacity = step_capacity(opts, rate, sessions.len());
    let mut shared = Vec::with_capacity(sessions.len());
    let mut receivers = Vec::with_capacity(sessions.len());
    for s in sessions.iter_mut() {
        let st = Arc::new(StepShared {
            base: s.next_k,
            intended: (0..capacity).map(|_| AtomicU64::new(0)).collect(),
            sent: AtomicU64::new(0),
            done: AtomicBool::new(false),
        });
        s.next_k += capacity as u64;
        shared.push(Arc::clone(&st));
        let stream = s.stream.try_clone().map_err(|e| e.to_string())?;
        receivers.push(
            std::thread::Builder::new()
                .name("floor-recv".into())
                .spawn(move || receive_floor(stream, st, epoch))
                .map_err(|e| e.to_string())?,
        );
    }
    let driven = drive(&shared, opts, rate, epoch, rng, |s, st, k| {
        use std::io::Write;
        let session = &mut sessions[s];
        let id = u16::try_from(s).unwrap_or(u16::MAX);
        crate::floor::stamp(&mut session.frame, id, st.base + k as u64);
        session
            .stream
            .write_all(&session.frame)
            .map_err(|e| format!("floor send: {e}"))
    });
    let mut latency = hist();
    let mut answered = 0u64;
    for r in receivers {
        let (h, a) = r
            .join()
            .map_err(|_| "a floor receiver panicked".to_string())?;
        let _ = latency.add(&h);
        answered += a;
    }
    if let Some(e) = driven.error {
        return Err(e);
    }
    Ok(step_result(rate, opts, driven, latency, answered, 0))
}

/// Runs the floor at each of `rates` with `opts.sessions` connections against the rig's
/// simulator (the demo's resting limit on its first usdt-futures market) and prints each step.
fn run_floor(rig: &Rig, opts: &LoadOptions, rates: &[u64]) -> Result<Vec<StepResult>, String> {
    let cfg = crate::floor::FloorConfig::for_rig(rig)?;
    let floor =
        crate::floor::FloorLoad::start(&cfg, opts.sessions).map_err(|e| format!("floor: {e}"))?;
    let mut sessions = Vec::with_capacity(opts.sessions);
    for _ in 0..opts.sessions {
        let stream = std::net::TcpStream::connect(floor.addr).map_err(|e| e.to_string())?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        sessions.push(FloorSession {
            stream,
            frame: crate::relay::make_frame(crate::floor::LOAD_FRAME_LEN),
            next_k: 0,
        });
    }
    let epoch = Instant::now();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(opts.seed);
    let mut steps = Vec::with_capacity(rates.len());
    for &r in rates {
        let step = run_floor_step(&mut sessions, opts, r, epoch, &mut rng)?;
        print_step(&step);
        steps.push(step);
    }
    drop(sessions);
    floor.finish().map_err(|e| format!("floor: {e}"))?;
    Ok(steps)
}

/// What the sender did in one step.
struct Driven {
    /// Arrivals sent per session.
    count: Vec<usize>,
    /// Actual minus intended send time, ns.
    lag: Histogram<u64>,
    elapsed: Duration,
    /// The send that failed (the step stopped there).
    error: Option<String>,
}

/// The open-loop sender of one step, shared by the gateway's sessions and the floor's: every
/// session's arrivals (constant or Poisson gaps at `rate / sessions` each, over `opts.step`)
/// sent at their intended times by `send(session, its StepShared, arrival k)`, each intended
/// time published in the session's [`StepShared`] before the send. Sleeps when the next
/// arrival is further than `opts.spin_below`, yields otherwise; marks every session done at the
/// end.
fn drive(
    shared: &[Arc<StepShared>],
    opts: &LoadOptions,
    rate: u64,
    epoch: Instant,
    rng: &mut rand_chacha::ChaCha8Rng,
    mut send: impl FnMut(usize, &StepShared, usize) -> Result<(), String>,
) -> Driven {
    let n = shared.len();
    let per_session_rate = rate as f64 / n.max(1) as f64;
    let step_ns = opts.step.as_nanos() as f64;
    let capacity = shared.first().map_or(0, |s| s.intended.len());
    let mut lag = hist();
    let mut next: Vec<f64> = (0..n)
        .map(|_| gap_ns(opts.arrivals, per_session_rate, rng) * 0.5)
        .collect();
    let mut count = vec![0usize; n];
    let start_ns = ns_since(epoch);
    let start = Instant::now();
    let mut error = None;
    while let Some((s, t)) = next
        .iter()
        .enumerate()
        .filter(|(i, t)| **t < step_ns && count[*i] < capacity)
        .min_by(|a, b| a.1.total_cmp(b.1))
        .map(|(i, t)| (i, *t))
    {
        let due = Duration::from_nanos(t as u64);
        loop {
            let now = start.elapsed();
            if now >= due {
                break;
            }
            let left = due - now;
            if left > opts.spin_below {
                std::thread::sleep(left - opts.spin_below / 2);
            } else {
                std::thread::yield_now();
            }
        }
        let k = count[s];
        let intended = start_ns + t as u64;
        let st = &shared[s];
        st.intended[k].store(intended + 1, Ordering::Release);
        // The sender's own lateness: when the write starts (the write itself is the path's).
        let _ = lag.record(ns_since(epoch).saturating_sub(intended).max(1));
        let sent = send(s, st, k);
        if let Err(e) = sent {
            error = Some(e);
            break;
        }
        count[s] += 1;
        st.sent.store(count[s] as u64, Ordering::Release);
        next[s] = t + gap_ns(opts.arrivals, per_session_rate, rng);
    }
    let elapsed = start.elapsed();
    for st in shared {
        st.done.store(true, Ordering::Release);
    }
    Driven {
        count,
        lag,
        elapsed,
        error,
    }
}

/// Sets this thread's timer slack to 1 ns (`/proc/thread-self/timerslack_ns`, Linux 4.6+):
/// a sleep then ends when asked, not up to 50 µs later (the default slack), so a quiet rate's
/// sender is not late by the slack. Best effort: elsewhere the default stays.
pub fn tight_timer_slack() {
    let _ = std::fs::write("/proc/thread-self/timerslack_ns", "1");
}

/// A step's figures from what was sent and answered.
fn step_result(
    rate: u64,
    opts: &LoadOptions,
    driven: Driven,
    latency: Histogram<u64>,
    answered: u64,
    rejected: u64,
) -> StepResult {
    let sent: u64 = driven.count.iter().map(|c| *c as u64).sum();
    let lost = sent.saturating_sub(answered);
    let held = lost == 0
        && rejected == 0
        && sent > 0
        && latency.value_at_quantile(0.99) <= opts.p99_bound.as_nanos() as u64;
    StepResult {
        rate,
        sent,
        sent_per_s: sent as f64 / driven.elapsed.as_secs_f64().max(1e-9),
        answered,
        lost,
        rejected,
        latency,
        sender_lag: driven.lag,
        held,
    }
}

/// Room for every arrival of a session in one step (Poisson: well above the mean count), even
/// (the floor pairs a place with its cancel).
fn step_capacity(opts: &LoadOptions, rate: u64, sessions: usize) -> usize {
    let per_session_rate = rate as f64 / sessions.max(1) as f64;
    let expected = per_session_rate * opts.step.as_secs_f64();
    let c = (expected * 1.5 + 64.0) as usize;
    c + c % 2
}

/// Starts the rig, runs the step-up and the fractions, stops the rig.
///
/// Errors: the rig did not start, a session did not connect, or a send failed.
pub fn run(opts: &LoadOptions) -> Result<(LoadOutcome, gateway::engine::GatewayReport), String> {
    if opts.sessions == 0 {
        return Err("at least one session".into());
    }
    let ids: Vec<u64> = (1..=opts.sessions as u64).map(|i| 100 + i).collect();
    let connections = opts.connections.max(1);
    let rig = Rig::start_with(
        &RigOptions {
            sessions: ids.clone(),
            idle: opts.idle,
            pin: opts.pin,
            placement: opts.placement,
            report_interval_ms: 60_000,
            print_reports: false,
            hlog_path: None,
            order_capacity: opts.order_capacity,
            sim_process: false,
            venue: opts.venue,
            open_order_caps: true,
        },
        |s| {
            for a in &mut s.accounts {
                a.connections = connections;
            }
        },
    )?;
    // A sleeping sender wakes up to the timer slack late (50 µs by default): ask for none.
    tight_timer_slack();
    if let Some(core) = opts.sender_core {
        let pinned = core_affinity::get_core_ids()
            .and_then(|ids| ids.into_iter().find(|c| c.id == core))
            .is_some_and(core_affinity::set_for_current);
        if !pinned {
            eprintln!("load: could not pin the sender to core {core}");
        }
    }
    let result = (|| {
        let mut sessions = Vec::with_capacity(ids.len());
        for (i, id) in ids.iter().enumerate() {
            let client = rig.connect(*id, false)?;
            let sender = client.sender().map_err(|e| e.to_string())?;
            sessions.push(Session {
                client: Some(client),
                sender,
                next_cl: 1,
                market: rig.markets[i % rig.markets.len()],
            });
        }
        let epoch = Instant::now();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(opts.seed);
        let mut steps = Vec::new();
        let mut max_sustained = 0;
        let mut rate = opts.start_rate.max(1);
        let explicit = !opts.rates.is_empty();
        let mut explicit_rates = opts.rates.iter().copied();
        loop {
            let r = if explicit {
                match explicit_rates.next() {
                    Some(r) => r,
                    None => break,
                }
            } else {
                rate
            };
            let step = run_step(&mut sessions, opts, r, epoch, &mut rng)?;
            print_step(&step);
            let held = step.held;
            if held {
                max_sustained = max_sustained.max(r);
            }
            // Overloaded: requests lost, or even the median beyond the bound.
            let overloaded = step.lost > 0
                || step.latency.value_at_quantile(0.5) > opts.p99_bound.as_nanos() as u64;
            steps.push(step);
            if !explicit {
                let next = (rate as f64 * opts.step_factor).round() as u64;
                // A miss ends the step-up once a rate has held (on a small machine a low rate
                // can miss where a higher one holds: more wake-ups per request when idle); an
                // overloaded step ends it in any case (higher rates only pile up backlog).
                if (!held && max_sustained > 0)
                    || overloaded
                    || next > opts.max_rate
                    || next <= rate
                {
                    break;
                }
                rate = next;
            }
        }
        let mut fractions = Vec::new();
        if max_sustained > 0 && !explicit {
            println!("-- at 10 %, 50 % and 90 % of {max_sustained} requests/s:");
            for pct in [10u32, 50, 90] {
                let r = (max_sustained * u64::from(pct) / 100).max(1);
                let step = run_step(&mut sessions, opts, r, epoch, &mut rng)?;
                print_step(&step);
                fractions.push((pct, step));
            }
        }
        for c in sessions.iter_mut().filter_map(|s| s.client.as_mut()) {
            let _ = c.terminate();
        }
        // Every request was answered: the counts are final once the io thread published them.
        std::thread::sleep(2 * gateway::metrics::state::PUBLISH_PERIOD);
        let conn_ops = rig.gateway().exchange_trade_ops();
        let floor = if opts.floor {
            let rates: Vec<u64> = steps
                .iter()
                .chain(fractions.iter().map(|(_, s)| s))
                .map(|s| s.rate)
                .collect();
            println!("-- the floor at the same rates (same TLS WebSocket hop and simulator, no gateway):");
            run_floor(&rig, opts, &rates)?
        } else {
            Vec::new()
        };
        Ok(LoadOutcome {
            steps,
            max_sustained,
            fractions,
            floor,
            conn_ops,
        })
    })();
    let report = rig.shutdown();
    result.map(|o| (o, report))
}

/// What makes a run of explicit rates (`--rates`) fail (empty: it passed): a step, of the
/// gateway or of the floor, that sent nothing, lost a request (no answer within [`DRAIN`] of the
/// step's end) or had one refused. Latency is never judged. A step-up (no `--rates`) looks for
/// the rate where requests start to be lost, so its losses are its answer, not a failure.
pub fn failures(o: &LoadOutcome, opts: &LoadOptions) -> Vec<String> {
    if opts.rates.is_empty() {
        return Vec::new();
    }
    let gateway = o.steps.iter().map(|s| ("gateway", s));
    let floor = o.floor.iter().map(|s| ("floor", s));
    gateway
        .chain(floor)
        .filter(|(_, s)| s.sent == 0 || s.lost > 0 || s.rejected > 0)
        .map(|(who, s)| {
            format!(
                "{who} at {}/s: {} sent, {} lost, {} refused",
                s.rate, s.sent, s.lost, s.rejected
            )
        })
        .collect()
}

fn us(ns: u64) -> f64 {
    ns as f64 / 1_000.0
}

/// One line: the places and cancels the gateway wrote on each exchange connection.
fn print_conn_ops(ops: &[gateway::metrics::state::ConnOps]) {
    let per: Vec<String> = ops
        .iter()
        .map(|c| format!("#{} {} / {}", c.conn, c.ops[0], c.ops[4]))
        .collect();
    println!(
        "trade ops per exchange connection (place-order / cancel-order): {}",
        per.join(", ")
    );
}

/// The header of the step table.
pub fn print_header(opts: &LoadOptions) {
    println!(
        "== open-loop load: {} sessions, {:?} arrivals, {:?} per step, bound p99 ≤ {:?}, no loss, {} venue, {} exchange connection(s)",
        opts.sessions,
        opts.arrivals,
        opts.step,
        opts.p99_bound,
        match opts.venue {
            sim::config::VenueMode::Full => "full",
            sim::config::VenueMode::Fast => "fast",
        },
        opts.connections.max(1)
    );
    println!("   latency from the intended send time to the answer (µs); sender lag = write started − intended send time (timer slack 1 ns)");
    println!(
        "{:>9} {:>9} {:>9} {:>6} {:>6} {:>9} {:>9} {:>9} {:>9} {:>9} {:>11}  held",
        "rate/s", "sent/s", "sent", "lost", "rej", "p50", "p90", "p99", "p99.9", "max", "lag p99"
    );
}

/// One row of the step table.
pub fn print_step(s: &StepResult) {
    let h = &s.latency;
    println!(
        "{:>9} {:>9.0} {:>9} {:>6} {:>6} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>11.1}  {}",
        s.rate,
        s.sent_per_s,
        s.sent,
        s.lost,
        s.rejected,
        us(h.value_at_quantile(0.50)),
        us(h.value_at_quantile(0.90)),
        us(h.value_at_quantile(0.99)),
        us(h.value_at_quantile(0.999)),
        us(h.max()),
        us(s.sender_lag.value_at_quantile(0.99)),
        if s.held { "yes" } else { "NO" }
    );
}

/// The summary after the table: the maximum sustainable rate, then, with the floor, each
/// rate's gateway / floor ratios.
pub fn print_summary(o: &LoadOutcome) {
    print_max(o);
    print_conn_ops(&o.conn_ops);
    if o.floor.is_empty() {
        return;
    }
    println!("gateway / floor at each rate (latency from intended send time; the floor pays the same TLS WebSocket hop and simulator):");
    println!(
        "{:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}   {:>7} {:>7} {:>7}",
        "rate/s",
        "gw p50",
        "gw p99",
        "gw p99.9",
        "fl p50",
        "fl p99",
        "fl p99.9",
        "p50",
        "p99",
        "p99.9"
    );
    let gateway = o.steps.iter().chain(o.fractions.iter().map(|(_, s)| s));
    for (g, f) in gateway.zip(&o.floor) {
        let q = |h: &Histogram<u64>, q: f64| h.value_at_quantile(q);
        let ratio = |p: f64| q(&g.latency, p) as f64 / q(&f.latency, p).max(1) as f64;
        println!(
            "{:>9} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1}   {:>6.2}x {:>6.2}x {:>6.2}x",
            g.rate,
            us(q(&g.latency, 0.5)),
            us(q(&g.latency, 0.99)),
            us(q(&g.latency, 0.999)),
            us(q(&f.latency, 0.5)),
            us(q(&f.latency, 0.99)),
            us(q(&f.latency, 0.999)),
            ratio(0.5),
            ratio(0.99),
            ratio(0.999)
        );
    }
}

fn print_max(o: &LoadOutcome) {
    if o.max_sustained == 0 {
        println!("maximum sustainable rate: none of the rates held");
    } else {
        println!(
            "maximum sustainable rate: {} requests/s (p99 within the bound, nothing lost or refused)",
            o.max_sustained
        );
    }
}

/// Writes latency vs throughput of every step to `path`, and the percentile distributions of
/// the runs at fractions of the maximum to `path` with `-percentiles` (SVG; see
/// [`crate::plot`]). Returns the files written.
///
/// Errors: a file could not be written, as text.
pub fn plot(
    outcome: &LoadOutcome,
    opts: &LoadOptions,
    path: &std::path::Path,
) -> Result<String, String> {
    use crate::plot::{percentiles_svg, sibling, throughput_svg, ThroughputPoint};
    let points: Vec<ThroughputPoint> = outcome
        .steps
        .iter()
        .map(|s| ThroughputPoint {
            rate: s.sent_per_s,
            p50: s.latency.value_at_quantile(0.5),
            p99: s.latency.value_at_quantile(0.99),
            p999: s.latency.value_at_quantile(0.999),
        })
        .collect();
    let title = format!(
        "load: {} sessions, {:?} arrivals, latency from intended send",
        opts.sessions, opts.arrivals
    );
    throughput_svg(path, &title, &points, opts.p99_bound.as_nanos() as u64)?;
    let mut files = path.display().to_string();
    let named: Vec<(String, &Histogram<u64>)> = if outcome.fractions.is_empty() {
        outcome
            .steps
            .iter()
            .map(|s| (format!("{} req/s", s.rate), &s.latency))
            .collect()
    } else {
        outcome
            .fractions
            .iter()
            .map(|(pct, s)| (format!("{pct} % of max ({} req/s)", s.rate), &s.latency))
            .collect()
    };
    let series: Vec<(&str, &Histogram<u64>)> =
        named.iter().map(|(n, h)| (n.as_str(), *h)).collect();
    let pct = sibling(path, "percentiles");
    percentiles_svg(&pct, "load: latency by percentile", &series)?;
    files.push_str(&format!(", {}", pct.display()));
    Ok(files)
}
