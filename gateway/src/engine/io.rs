//! The io thread: a single-threaded tokio runtime (optionally pinned and busy-polled) that owns
//! the strategy listener, every strategy connection and the exchange WebSocket. The order path
//! runs start to finish on this thread.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::net::SocketAddr;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use codec::sbe::{Category, Symbol, Terminate, TerminationCode, Text};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use super::account::AccountCtx;
use super::ctx::{IoCtx, MovesState};
use super::error::GatewayError;
use super::exchange_link::ExchangeLink;
use super::open_conns::OpenConns;
use super::reconnect::{LinkConnector, ReconnectCounters, ReconnectPolicy};
use super::settings::EngineSettings;
use super::startup::{PhaseClock, StartupPhases};
use super::strategy_conn;
use crate::exchange::rest::{Instrument, InstrumentStatus, RestClient};
use crate::exchange::{tls, ws};
use crate::idle::IdleStrategy;
use crate::metrics::state::{BudgetGauge, ConnOps, JournalHealth, MetricsState, PUBLISH_PERIOD};
use crate::metrics::{now_ns, LegHistograms, SnapshotTx};
use crate::pretrade::{InstrumentRules, InstrumentTable};
use crate::risk::{RiskBook, RiskInstrument};
use crate::session::out::Flow;
use crate::tracker::port::{TrackerSetup, TrackerTx};
use crate::tracker::{TrackerInput, TrackerSummary};
use gateway_core::admission::{
    admit, AcceptBackoff, Admission, AdmissionCounters, LogEvery, TrimAfterBurst, LOG_INTERVAL_MS,
};
use gateway_core::health::LinkPhase;

/// Converts the exchange's instrument into the pre-trade rules; `None` for categories or
/// symbols the strategy link cannot express.
pub fn rules_from_instrument(i: &Instrument) -> Option<InstrumentRules> {
    let category: Category = codec::json::Category::parse(i.category.as_bytes())?.into();
    Some(InstrumentRules {
        category,
        symbol: Symbol::new(&i.symbol).ok()?,
        tick: i.price_multiplier,
        lot: i.quantity_multiplier,
        min_qty: i.min_order_qty,
        max_qty: i.max_order_qty,
        min_notional: i.min_order_amount,
        online: i.status == InstrumentStatus::Online,
    })
}

/// One account's REST client, its logged-in private WebSockets (the first subscribed) and how
/// each of them reconnects.
struct ConnectedAccount {
    rest: RestClient,
    sockets: Vec<(ws::PrivateWs, LinkConnector)>,
}

/// Loads the instruments (with the first account's key), then connects and logs in every
/// account's private WebSockets.
async fn connect_exchange(
    s: &EngineSettings,
    risk: &RiskBook,
    phases: &mut StartupPhases,
    clock: &mut PhaseClock,
) -> Result<(InstrumentTable, Vec<ConnectedAccount>), GatewayError> {
    let ex = &s.exchange;
    let tls = tls::client_config(ex.extra_ca_pem.as_deref())?;
    let timeout = Duration::from_millis(ex.connect_timeout_ms);
    let mut accounts = Vec::with_capacity(s.accounts.len());
    let mut instruments = None;
    for acc in &s.accounts {
        // Each account's queries (reconciliation, resolution, listings) share its UID's quotas.
        let rest = RestClient::new(&ex.rest_url, &tls, timeout, Some(acc.credentials.clone()))?
            .with_query_limits(&s.rate.query_limits());
        if instruments.is_none() {
            let mut rules = Vec::new();
            let mut risk_list = Vec::new();
            for c in &ex.categories {
                for i in rest
                    .instruments(codec::json::Category::from(*c).as_rest_str())
                    .await?
                {
                    if let Some(r) = rules_from_instrument(&i) {
                        risk_list.push(RiskInstrument {
                            category: r.category,
                            symbol: r.symbol,
                            lot: r.lot,
                            buy_ratio: i.buy_limit_price_ratio,
                            sell_ratio: i.sell_limit_price_ratio,
                            max_symbol_orders: i.max_symbol_order_num,
                            max_product_orders: i.max_product_order_num,
                        });
                        rules.push(r);
                    }
                }
            }
            risk.set_instruments(risk_list);
            let table = InstrumentTable::new(rules);
            tracing::info!(instruments = table.len(), "instruments loaded");
            instruments = Some(table);
            phases.instruments_ms = clock.lap();
        }
        let mut topics: Vec<String> = ws::PRIVATE_TOPICS.iter().map(|t| (*t).to_owned()).collect();
        if acc.position_updates {
            topics.extend(ws::UPDATE_TOPICS.iter().map(|t| (*t).to_owned()));
        }
        let mut sockets = Vec::with_capacity(acc.connections.max(1));
        for n in 0..acc.connections.max(1) {
            // The pool's other connections carry trade ops only: no subscriptions, so that
            // every push arrives once.
            let connector = LinkConnector {
                url: ex.ws_private_url.clone(),
                tls: Arc::clone(&tls),
                credentials: acc.credentials.clone(),
                step_timeout: timeout,
                topics: if n == 0 { topics.clone() } else { Vec::new() },
            };
            let private = connector.connect().await?;
            tracing::info!(account = %acc.name, conn_id = ?private.conn_id(), "exchange private WebSocket logged in and subscribed");
            sockets.push((private, connector));
        }
        accounts.push(ConnectedAccount { rest, sockets });
    }
    phases.login_ms = clock.lap();
    Ok((
        instruments.unwrap_or_else(|| InstrumentTable::new(Vec::new())),
        accounts,
    ))
}

/// Runs the io thread until `stop` fires. `ready` receives the strategy listener's address
/// and where the start-up's time went since `started` (when [`super::Gateway::start`] began)
/// once the exchange link is up, or the start-up error.
#[allow(clippy::too_many_arguments)]
pub(super) fn run(
    started: Instant,
    settings: EngineSettings,
    tracker_setup: TrackerSetup,
    metrics_tx: SnapshotTx,
    ready: std::sync::mpsc::Sender<Result<(SocketAddr, StartupPhases), GatewayError>>,
    stop: oneshot::Receiver<()>,
    exchange_up: Arc<std::sync::atomic::AtomicBool>,
    risk: Arc<RiskBook>,
    record: Option<crate::replay::RecordTx>,
    resolve_rx: tokio::sync::mpsc::UnboundedReceiver<crate::tracker::ResolveRequest>,
    reconnects: Arc<ReconnectCounters>,
    metrics: Arc<MetricsState>,
    admission: Arc<AdmissionCounters>,
    control: (crate::control::ControlRx, Arc<crate::control::Directory>),
) -> Option<TrackerSummary> {
    let (tracker_tx, inline) = tracker_setup.into_tx();
    if let Some(core) = settings.io_core {
        if !core_affinity::set_for_current(core_affinity::CoreId { id: core }) {
            tracing::warn!(core, "io thread: could not pin to core");
        }
    }
    crate::idle::init_parking();
    let spin = settings.io_idle == IdleStrategy::Spin;
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .event_interval(if spin { 1 } else { 61 })
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            let _ = ready.send(Err(GatewayError::Io(e)));
            return None;
        }
    };
    let local = tokio::task::LocalSet::new();
    let mut clock = PhaseClock::new(started);
    let mut phases = StartupPhases {
        setup_ms: clock.lap(),
        ..StartupPhases::default()
    };
    let (slots, registry) = match super::sessions::open_sessions(
        settings.sessions.iter().map(|g| g.session_id),
        settings.journal_dir.as_deref(),
        &settings.journal_segments,
        settings.max_backlog,
        now_ns(),
    ) {
        Ok(v) => v,
        Err(e) => {
            let _ = ready.send(Err(e.into()));
            return None;
        }
    };
    let journal = match crate::journal::JournalThread::start(registry) {
        Ok(j) => j,
        Err(e) => {
            let _ = ready.send(Err(GatewayError::Io(e)));
            return None;
        }
    };
    phases.journal_ms = clock.lap();
    local.block_on(&rt, async move {
        if let TrackerTx::Inline(t) = &tracker_tx {
            // The inline tracker's idle work, as often as its own thread would do it parked.
            tokio::task::spawn_local(Rc::clone(t).run_idle(crate::idle::PARK_TIMEOUT));
        }
        let (instruments, connected) =
            match connect_exchange(&settings, &risk, &mut phases, &mut clock).await {
                Ok(v) => v,
                Err(e) => {
                    let _ = ready.send(Err(e));
                    return;
                }
            };
        // Every account's links are logged in and subscribed.
        for ix in 0..settings.accounts.len() {
            metrics.set_link(ix, LinkPhase::Up);
        }
        let listener = match bind_listener(settings.strategy_listen) {
            Ok(l) => l,
            Err(e) => {
                let _ = ready.send(Err(GatewayError::Io(e)));
                return;
            }
        };
        let ex = &settings.exchange;
        let mut accounts = Vec::with_capacity(connected.len());
        let mut sources = Vec::new();
        for (ix, (acc, conn)) in settings.accounts.iter().zip(connected).enumerate() {
            let mut links = Vec::with_capacity(conn.sockets.len());
            for (n, (private, connector)) in conn.sockets.into_iter().enumerate() {
                let (sink, source, early) = private.split();
                // Only the primary connection reports the gateway's health.
                let up = if ix == 0 && n == 0 {
                    Arc::clone(&exchange_up)
                } else {
                    Arc::new(std::sync::atomic::AtomicBool::new(false))
                };
                links.push(ExchangeLink::new(
                    ix,
                    sink,
                    up,
                    Duration::from_millis(ex.ping_interval_ms),
                    Duration::from_millis(ex.pong_timeout_ms),
                    Duration::from_millis(ex.silence_timeout_ms),
                ));
                sources.push((ix, n, source, early, connector));
            }
            let budget = crate::budget::AccountBudget::new(
                &settings.rate.limits(),
                links.len(),
                crate::metrics::now_ns(),
            );
            accounts.push(AccountCtx {
                ix,
                name: acc.name.clone(),
                categories: acc.categories.clone(),
                rest: conn.rest,
                links,
                budget: RefCell::new(budget),
                throttle_reports: RefCell::new(std::collections::HashMap::new()),
            });
        }
        let ctx = Rc::new(IoCtx {
            grants: settings
                .sessions
                .iter()
                .map(|g| (g.session_id, g.clone()))
                .collect(),
            active: RefCell::new(HashSet::new()),
            outs: RefCell::new(Vec::new()),
            sessions: RefCell::new(slots),
            limits: settings.limits,
            max_frame_len: settings.max_frame_len,
            max_backlog: settings.max_backlog,
            unseen_tail_ms: settings.tracker.retention.unseen_tail_ms,
            rollover: settings.rollover,
            instruments,
            accounts,
            tracker_tx: tracker_tx.clone(),
            legs: RefCell::new(LegHistograms::default()),
            risk,
            categories: settings.exchange.categories.clone(),
            moves: MovesState::new(&settings.moves),
            next_req_id: Cell::new(0),
            record,
            metrics,
        });
        {
            // The operator's control surface (commands from the metrics endpoint's thread).
            let (rx, dir) = control;
            tokio::task::spawn_local(super::control_surface::serve(Rc::clone(&ctx), rx, dir));
        }
        {
            // Unknown outcomes: query by clientOid; a place not found is asked again after
            // twice the push deadline.
            let grace = Duration::from_millis(
                settings
                    .tracker
                    .deadlines
                    .push_deadline_ms
                    .saturating_mul(2),
            );
            tokio::task::spawn_local(super::resolve::run(Rc::clone(&ctx), resolve_rx, grace));
        }
        // A session established before a restart (its journal says so) lives on: the tracker
        // knows its writer from the start, so reports for it (e.g. from reconciliation) are
        // numbered and journaled before it reconnects. Other sessions join at first Establish.
        // Crash recovery: their orders as the journal tells them, then (below) what the
        // exchange did since, before any strategy is accepted.
        let mut ended = gateway_core::recovery::EndedBeforeRestart::new();
        for (id, slot) in ctx
            .sessions
            .borrow_mut()
            .iter_mut()
            .filter(|(_, s)| s.recovered)
        {
            if let Some(g) = ctx.grants.get(id) {
                let _ = tracker_tx.send(TrackerInput::SessionOpened {
                    session_id: *id,
                    account: g.account,
                    role: g.role,
                    out: Arc::clone(&slot.out),
                });
                if let Some(rec) = slot.restore.take() {
                    // Ended orders' reports are no longer among `reports` (but the held ends'):
                    // their last ms is.
                    ended.add(*id, &rec);
                    // The epoch first: the orders restored next (and the queries of those
                    // unanswered) take their clientOid's epoch from it.
                    if let Some((epoch, order_epochs)) = rec.epoch_step() {
                        let _ = tracker_tx.send(TrackerInput::Epoch {
                            session_id: *id,
                            epoch,
                            order_epochs,
                            started: false,
                        });
                    }
                    let status_due = rec.status_due.then(|| {
                        (
                            rec.epoch,
                            rec.epoch_step().map(|(_, o)| o).unwrap_or_default(),
                        )
                    });
                    let _ = tracker_tx.send(TrackerInput::Restore {
                        session_id: *id,
                        roots: rec.roots,
                        reports: rec.reports,
                        unanswered_since_ms: rec.unanswered_since_ms,
                        unanswered_amends: rec.unanswered_amends,
                    });
                    if let Some((epoch, order_epochs)) = status_due {
                        // The gateway stopped while the epoch's OrderStatus reports were being
                        // made: the tracker makes them again from the restored orders (an end
                        // the strategy had not read must not be left out of the new epoch).
                        let _ = tracker_tx.send(TrackerInput::Epoch {
                            session_id: *id,
                            epoch,
                            order_epochs,
                            started: true,
                        });
                    }
                }
            }
        }
        if let Some(rec) = &ctx.record {
            rec.instruments(&ctx.instruments);
        }
        tokio::task::spawn_local(super::epochs::run_schedule(Rc::clone(&ctx)));
        if settings.risk.mark_refresh_ms > 0 {
            let ctx = Rc::clone(&ctx);
            let period = Duration::from_millis(settings.risk.mark_refresh_ms);
            tokio::task::spawn_local(super::marks::refresh_loop(ctx, period));
        }
        let policy = ReconnectPolicy {
            min: Duration::from_millis(ex.reconnect_min_ms),
            max: Duration::from_millis(ex.reconnect_max_ms),
        };
        for (ix, n, source, early, connector) in sources {
            tokio::task::spawn_local(super::reconnect::supervise(
                Rc::clone(&ctx),
                ix,
                n,
                connector,
                policy,
                Arc::clone(&reconnects),
                (source, early),
            ));
        }
        if settings.tracker.report_interval_ms > 0 {
            let ctx = Rc::clone(&ctx);
            let period = Duration::from_millis(settings.tracker.report_interval_ms);
            let tx = metrics_tx.clone();
            tokio::task::spawn_local(async move {
                let mut t = tokio::time::interval(period);
                t.tick().await;
                loop {
                    t.tick().await;
                    tx.send_swap(&mut ctx.legs.borrow_mut());
                }
            });
        }
        if spin {
            // A task that always yields keeps the current-thread scheduler from parking in
            // epoll: with event_interval(1) it polls the sockets between every task poll.
            tokio::task::spawn_local(async {
                loop {
                    tokio::task::yield_now().await;
                }
            });
        }
        tokio::task::spawn_local(publish_metrics(Rc::clone(&ctx)));
        phases.restore_ms = clock.lap();
        if let Some(since_ms) = ended.reconcile_since_ms() {
            ctx.metrics.set_restoring(true);
            let restored = super::reconcile::reconcile_after_restart(&ctx, since_ms, &ended).await;
            ctx.metrics.set_restoring(false);
            match restored {
                Ok(t) => {
                    phases.queries = t.queries;
                    phases.apply_ms = t.apply_ms;
                }
                Err(e) => {
                    let _ = ready.send(Err(e.into()));
                    return;
                }
            }
            phases.reconcile_ms = clock.lap();
        }
        match listener.local_addr() {
            Ok(addr) => {
                phases.total_ms = clock.total();
                tracing::info!(%addr, startup = %phases, "strategy listener ready");
                ctx.metrics.set_accepting(true);
                let _ = ready.send(Ok((addr, phases)));
            }
            Err(e) => {
                let _ = ready.send(Err(GatewayError::Io(e)));
                return;
            }
        }
        let mut stop = stop;
        let limits = settings.admission;
        let conns = Rc::new(OpenConns::default());
        tokio::task::spawn_local(trim_after_bursts(
            Rc::clone(&conns),
            Arc::clone(&admission),
            limits.max_connections,
        ));
        let mut backoff = AcceptBackoff::default();
        let mut error_log = LogEvery::new(LOG_INTERVAL_MS);
        let mut refused_log = LogEvery::new(LOG_INTERVAL_MS);
        loop {
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                _ = &mut stop => break,
            };
            match accepted {
                Ok((stream, peer)) => {
                    backoff.on_success();
                    let now = now_ns();
                    if let Some(errors) = error_log.flush(now) {
                        tracing::warn!(errors, "accept failed (errors since the last line)");
                    }
                    let (open, unauthenticated) = conns.counts();
                    let admission_now = admit(limits, open, unauthenticated);
                    if admission_now != Admission::Admit {
                        // Counted before the close the peer sees.
                        admission.count_refused();
                    }
                    if admission_now == Admission::Refuse {
                        // Closed at once, unanswered: every place is an established session's.
                        drop(stream);
                    } else {
                        if admission_now == Admission::AdmitEvictingOldest {
                            // The connection that has waited longest without completing
                            // Establish makes room: idle connections cannot keep a real
                            // strategy out.
                            conns.evict_oldest();
                        }
                        tokio::task::spawn_local(strategy_conn::run(
                            Rc::clone(&ctx),
                            stream,
                            conns.slot(),
                        ));
                    }
                    if admission_now != Admission::Admit {
                        if let Some(closed) = refused_log.event(now) {
                            tracing::warn!(
                                closed,
                                decision = ?admission_now,
                                %peer,
                                open,
                                unauthenticated,
                                max_connections = limits.max_connections,
                                max_unauthenticated = limits.max_unauthenticated,
                                "strategy connection limits reached: connections refused or \
                                 evicted before completing Establish (since the last line)"
                            );
                        }
                    }
                }
                Err(e) => {
                    // EMFILE, ENFILE, ENOBUFS, ENOMEM or any other: pause (1 ms doubling to
                    // 1 s) rather than spin, and log once a second with the count.
                    admission.count_accept_error();
                    let pause = backoff.on_error();
                    if let Some(errors) = error_log.event(now_ns()) {
                        tracing::warn!(
                            error = %e,
                            errors,
                            pause_ms = pause,
                            "accept failed (errors since the last line)"
                        );
                    }
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_millis(pause)) => {}
                        _ = &mut stop => break,
                    }
                }
            }
        }
        ctx.metrics.set_accepting(false);
        // Orderly stop: every session is told, the last leg-1 samples are handed over.
        for out in ctx.outs.borrow().iter() {
            out.send(Flow::Session, now_ns(), |buf| {
                Terminate {
                    session_id: 0,
                    code: TerminationCode::Finished,
                    reason: Text::new("gateway shutting down"),
                }
                .encode_frame(buf)
            });
            out.close();
        }
        metrics_tx.send(std::mem::take(&mut *ctx.legs.borrow_mut()));
    });
    // Whatever the sessions' writers still buffer goes to the journal files.
    journal.stop();
    // The tasks go first (with the LocalSet and the runtime): they hold the recorder's senders,
    // whose thread the tracker's recorder joins when it finishes.
    drop(local);
    drop(rt);
    // The io thread ran the tracker: what it ends with (the queue's thread hands its own).
    inline.and_then(|t| t.finish())
}

/// Connections the kernel queues for the strategy listener before `accept` (capped by
/// `net.core.somaxconn`): a burst of connects is not dropped into SYN retransmits (1 s each),
/// as with the usual 128.
pub const LISTEN_BACKLOG: u32 = 1024;

/// Binds the strategy listener (SO_REUSEADDR, [`LISTEN_BACKLOG`]).
fn bind_listener(addr: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

/// Gives the memory a burst of strategy connections freed back to the operating system once
/// the burst is over ([`TrimAfterBurst`]), on a thread of its own (the trim walks and locks
/// every allocator arena: ms, never on the io thread). Checked every 200 ms, when the open
/// connection count is also published (`bgw_strategy_connections`).
async fn trim_after_bursts(
    conns: Rc<OpenConns>,
    admission: Arc<AdmissionCounters>,
    max_connections: usize,
) {
    let mut t = tokio::time::interval(Duration::from_millis(200));
    t.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut trim = TrimAfterBurst::default();
    loop {
        t.tick().await;
        admission.set_open(conns.counts().0, max_connections);
        let closed = conns.closed_total();
        if trim.poll(closed, now_ns()) {
            let spawned = std::thread::Builder::new()
                .name("bgw-trim".into())
                .spawn(move || {
                    let before = crate::memory::resident_kib();
                    let gave_back = crate::memory::give_back_free_memory();
                    tracing::info!(
                        connections_closed = closed,
                        gave_back,
                        rss_before_kib = before,
                        rss_after_kib = crate::memory::resident_kib(),
                        "strategy connection burst over: freed memory given back"
                    );
                });
            if let Err(e) = spawned {
                tracing::warn!(error = %e, "could not start the memory trim thread");
            }
        }
    }
}

/// Every [`PUBLISH_PERIOD`], copies for the metrics endpoint what only the io thread can read:
/// the established sessions, each account's rate-budget buckets and trade ops per connection,
/// and the journal byte counts.
/// A task of its own, off the order path (a few µs per period).
async fn publish_metrics(ctx: Rc<IoCtx>) {
    let mut t = tokio::time::interval(PUBLISH_PERIOD);
    t.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        t.tick().await;
        let m = &ctx.metrics;
        m.set_sessions_established(ctx.active.borrow().len());
        let now = now_ns();
        m.set_budget(|list| {
            for acc in &ctx.accounts {
                list.extend(acc.budget.borrow_mut().buckets(now).map(|b| BudgetGauge {
                    account: acc.ix,
                    bucket: b.name,
                    endpoint_id: b.endpoint_id,
                    limit: b.limit,
                    remaining: b.remaining,
                }));
            }
        });
        m.set_conn_ops(|list| {
            for acc in &ctx.accounts {
                let budget = acc.budget.borrow();
                list.extend(
                    budget
                        .sent_per_connection()
                        .iter()
                        .enumerate()
                        .map(|(conn, ops)| ConnOps {
                            account: acc.ix,
                            conn,
                            ops: *ops,
                        }),
                );
            }
        });
        let (mut written, mut pending) = (0u64, 0u64);
        for slot in ctx.sessions.borrow().values() {
            let (w, p) = slot.out.journal_bytes();
            written = written.saturating_add(w);
            pending = pending.saturating_add(p);
        }
        m.set_journal(written, pending);
        m.set_journal_health(|list| {
            for (&session_id, slot) in ctx.sessions.borrow().iter() {
                if slot.out.journal_is_file() {
                    list.push(JournalHealth {
                        session_id,
                        failing: slot.out.journal_state(),
                        errors: slot.out.journal_errors(),
                    });
                }
            }
            list.sort_unstable_by_key(|j| j.session_id);
        });
    }
}
