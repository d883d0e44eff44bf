//! Exchange reconnect: one supervisor task per private WebSocket link. When the link fails
//! (socket closed, write failed, no `pong`, a `30033` notice, a silent stream) the supervisor
//! stops its read and keepalive loops, reconnects with backoff and jitter, logs in,
//! resubscribes (the account's primary link only), swaps the new write half into the same
//! `ExchangeLink` (so `AccountCtx::links` stay valid) and restarts the loops. For the primary
//! link the account stays closed to new requests (answered NotApplied) until the account is
//! reconciled against REST; the tracker is told `LinkDown` at the drop and `LinkUp` once
//! reconciled.

use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;

use super::ctx::IoCtx;
use super::exchange_link::LinkDown;
use crate::exchange::backoff::{Backoff, Jitter};
use crate::exchange::ws::{self, ExchangeCredentials, PrivateWs, WsSource};
use crate::exchange::ExchangeError;
use crate::metrics::{now_ns, utc_now_ns};
use crate::tracker::TrackerInput;
use gateway_core::health::LinkPhase;

/// Reconciliation looks this far back before the drop (clock skew, pushes in flight), in ms.
pub const RECONCILE_MARGIN_MS: u64 = 5_000;
/// Longest wait for the old write half to close.
const CLOSE_WITHIN: Duration = Duration::from_secs(1);

/// How one link (re)connects: URL, TLS, the account's key and the topics to subscribe.
#[derive(Clone)]
pub(super) struct LinkConnector {
    /// Private WebSocket URL.
    pub(super) url: String,
    /// TLS client configuration.
    pub(super) tls: Arc<rustls::ClientConfig>,
    /// The account's key.
    pub(super) credentials: ExchangeCredentials,
    /// Deadline of each step (connect, login, subscribe acks).
    pub(super) step_timeout: Duration,
    /// Topics to subscribe (empty on the trade-only links of the pool).
    pub(super) topics: Vec<String>,
}

impl LinkConnector {
    /// Connects, logs in and subscribes.
    pub(super) async fn connect(&self) -> Result<PrivateWs, ExchangeError> {
        let opts = ws::ConnectOptions {
            step_timeout: self.step_timeout,
            topics: self.topics.clone(),
        };
        ws::connect_private_with(
            &self.url,
            &self.tls,
            &self.credentials,
            SystemTime::now(),
            &opts,
        )
        .await
    }
}

/// Reconnect delays (`[exchange] reconnect_min_ms`, `reconnect_max_ms`).
#[derive(Debug, Clone, Copy)]
pub(super) struct ReconnectPolicy {
    /// First delay (ceiling).
    pub(super) min: Duration,
    /// Longest delay.
    pub(super) max: Duration,
}

/// Link failures and completed reconnects of one account, by cause.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReconnectStats {
    /// Reconnects completed (logged in, resubscribed, and for the primary link reconciled).
    pub reconnects: u64,
    /// Failures: the socket was closed or failed.
    pub closed: u64,
    /// Failures: no `pong` in time.
    pub pong_timeout: u64,
    /// Failures: a write failed.
    pub write_failed: u64,
    /// Failures: a `30033` service-upgrade notice.
    pub upgrade_notice: u64,
    /// Failures: no frame at all within the silence timeout.
    pub silent: u64,
    /// Connect or login attempts that failed (each retried after the backoff).
    pub failed_attempts: u64,
}

#[derive(Debug, Default)]
struct AccountCounters {
    reconnects: AtomicU64,
    closed: AtomicU64,
    pong_timeout: AtomicU64,
    write_failed: AtomicU64,
    upgrade_notice: AtomicU64,
    silent: AtomicU64,
    failed_attempts: AtomicU64,
}

/// Reconnect counters per account, shared by the io thread and [`super::Gateway`].
#[derive(Debug, Default)]
pub struct ReconnectCounters {
    accounts: Vec<AccountCounters>,
}

impl ReconnectCounters {
    /// Counters for `accounts` accounts.
    pub fn new(accounts: usize) -> ReconnectCounters {
        ReconnectCounters {
            accounts: (0..accounts).map(|_| AccountCounters::default()).collect(),
        }
    }

    fn bump(&self, account: usize, f: impl Fn(&AccountCounters) -> &AtomicU64) {
        if let Some(c) = self.accounts.get(account) {
            f(c).fetch_add(1, Ordering::Relaxed);
        }
    }

    fn on_down(&self, account: usize, why: LinkDown) {
        self.bump(account, |c| match why {
            LinkDown::Closed => &c.closed,
            LinkDown::PongTimeout => &c.pong_timeout,
            LinkDown::WriteFailed => &c.write_failed,
            LinkDown::UpgradeNotice => &c.upgrade_notice,
            LinkDown::Silent => &c.silent,
        });
    }

    /// A snapshot, one entry per account (by index).
    pub fn snapshot(&self) -> Vec<ReconnectStats> {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        self.accounts
            .iter()
            .map(|c| ReconnectStats {
                reconnects: g(&c.reconnects),
                closed: g(&c.closed),
                pong_timeout: g(&c.pong_timeout),
                write_failed: g(&c.write_failed),
                upgrade_notice: g(&c.upgrade_notice),
                silent: g(&c.silent),
                failed_attempts: g(&c.failed_attempts),
            })
            .collect()
    }
}

/// The read and keepalive tasks of one connection.
struct Loops {
    read: JoinHandle<()>,
    keepalive: JoinHandle<()>,
}

impl Loops {
    fn spawn(ctx: &Rc<IoCtx>, ix: usize, n: usize, source: WsSource, early: Vec<Message>) -> Loops {
        let c = Rc::clone(ctx);
        let tx = ctx.tracker_tx.clone();
        let read = tokio::task::spawn_local(async move {
            if let Some(link) = c.accounts.get(ix).and_then(|a| a.links.get(n)) {
                link.read_loop(source, early, tx).await
            }
        });
        let c = Rc::clone(ctx);
        let keepalive = tokio::task::spawn_local(async move {
            if let Some(acc) = c.accounts.get(ix) {
                if let Some(link) = acc.links.get(n) {
                    // The ping counts against the connection's bucket.
                    link.keepalive_loop(|now| acc.budget.borrow_mut().acquire_ping(n, now))
                        .await
                }
            }
        });
        Loops { read, keepalive }
    }

    fn stop(self) {
        self.read.abort();
        self.keepalive.abort();
    }
}

/// Supervises link `n` of account `ix` forever: starts its loops on the connection it was
/// created with, then reconnects whenever it fails.
pub(super) async fn supervise(
    ctx: Rc<IoCtx>,
    ix: usize,
    n: usize,
    connector: LinkConnector,
    policy: ReconnectPolicy,
    counters: Arc<ReconnectCounters>,
    first: (WsSource, Vec<Message>),
) {
    let Some(acc) = ctx.accounts.get(ix) else {
        return;
    };
    let Some(link) = acc.links.get(n) else {
        return;
    };
    let primary = n == 0;
    let mut jitter = Jitter::new(now_ns() ^ ((ix as u64) << 32) ^ n as u64);
    let mut loops = Loops::spawn(&ctx, ix, n, first.0, first.1);
    let mut down_at_ms: Option<u64> = None;
    loop {
        let why = link.wait_down().await;
        loops.stop();
        counters.on_down(ix, why);
        let now_ms = utc_now_ns() / 1_000_000;
        // A failure while still reconciling keeps the first drop time.
        let since = *down_at_ms.get_or_insert(now_ms);
        tracing::warn!(
            account = %acc.name,
            conn = n,
            ?why,
            "exchange link down: reconnecting; the account answers new requests NotApplied until it is back"
        );
        if primary {
            ctx.metrics.set_link(ix, LinkPhase::Down);
            link_event(&ctx, ix, false);
        }
        link.close_sink(CLOSE_WITHIN).await;
        let mut backoff = Backoff::new(policy.min, policy.max);
        let private = loop {
            tokio::time::sleep(backoff.next_delay(jitter.next_u64())).await;
            match connector.connect().await {
                Ok(p) => break p,
                Err(e) => {
                    counters.bump(ix, |c| &c.failed_attempts);
                    tracing::warn!(account = %acc.name, conn = n, attempt = backoff.attempts(), error = %e, "exchange reconnect attempt failed");
                }
            }
        };
        tracing::info!(account = %acc.name, conn = n, conn_id = ?private.conn_id(), "exchange link reconnected");
        let (sink, source, early) = private.split();
        link.replace_sink(sink, CLOSE_WITHIN).await;
        loops = Loops::spawn(&ctx, ix, n, source, early);
        if primary {
            ctx.metrics.set_link(ix, LinkPhase::Reconciling);
            backoff.reset();
            let since_ms = since.saturating_sub(RECONCILE_MARGIN_MS);
            loop {
                if link.failed().is_some() {
                    break;
                }
                match reconcile(&ctx, ix, since_ms).await {
                    Ok(()) => break,
                    Err(e) => {
                        tracing::warn!(account = %acc.name, error = %e, "reconciliation after reconnect failed; retrying");
                        tokio::time::sleep(backoff.next_delay(jitter.next_u64())).await;
                    }
                }
            }
            if link.failed().is_some() {
                // Dropped again while reconciling: the next turn reconnects and reconciles from
                // the first drop.
                continue;
            }
            link_event(&ctx, ix, true);
            ctx.metrics.set_link(ix, LinkPhase::Up);
        }
        down_at_ms = None;
        link.set_up();
        counters.bump(ix, |c| &c.reconnects);
        tracing::warn!(account = %acc.name, conn = n, "exchange link back: accepting requests");
    }
}

/// Reconciles the account against REST (orders and fills since `since_ms`, Unix ms); every
/// missed change reaches the strategies through the tracker.
async fn reconcile(ctx: &IoCtx, ix: usize, since_ms: u64) -> Result<(), ExchangeError> {
    let summary = super::reconcile::reconcile_account(
        ctx,
        ix,
        since_ms,
        crate::tracker::StateSource::Reconnect,
    )
    .await?;
    let account = ctx.accounts.get(ix).map_or("?", |a| a.name.as_str());
    tracing::info!(account, ?summary, "account reconciled after reconnect");
    Ok(())
}

/// Tells the tracker that the account's subscribed link dropped (`up` false) or is back and
/// reconciled (`up` true).
fn link_event(ctx: &IoCtx, account: usize, up: bool) {
    let t_ns = now_ns();
    let _ = ctx.tracker_tx.send(if up {
        TrackerInput::LinkUp { account, t_ns }
    } else {
        TrackerInput::LinkDown { account, t_ns }
    });
}
