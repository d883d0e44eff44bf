//! Resolution of unknown outcomes on the io thread: the driver of the core's
//! [`Resolver`] (`gateway_core::resolver`, which holds every decision: gathering, merging the
//! requests of one order, sweeping the account's lists or querying one by one, the grace
//! period of a place not found, retries, pacing per account). The tracker sends a
//! [`ResolveRequest`] (clientOid, account) for every order whose request's outcome is
//! unknown; this task pushes it into the resolver, runs each REST query the resolver names
//! when it names it (each on its own local task: the accounts' queries overlap), feeds the
//! answer back and hands every [`ExchangeState`](crate::tracker::ExchangeState) it returns to
//! the tracker (`TrackerInput::ExchangeState`), which reports every change exactly once.
//! Nothing is ever resent.
//!
//! Every page of every query takes a token of the account's query budget
//! (`gateway_core::budget::queries`, shared with reconciliation, in the REST client; a page
//! refused for rate is asked again after a backoff) on top of the resolver's own pacing.

use std::rc::Rc;
use std::time::Duration;

use gateway_core::resolver::{Answer, Query, QueryKind, Resolver};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};
use tokio::time::Instant;

use super::ctx::IoCtx;
use crate::exchange::error::ExchangeError;
use crate::exchange::rest::RestClient;
use crate::exchange::{rest_history, rest_orders};
use crate::metrics::utc_now_ns;
use crate::tracker::{ResolveRequest, TrackerInput};

/// Bitget's server time (`data.serverTime`, ms as a string; reference §2).
const SERVER_TIME_PATH: &str = "/api/v3/public/time";

/// Gateway UTC now, ms.
fn utc_now_ms() -> u64 {
    utc_now_ns() / 1_000_000
}

/// Runs until the tracker drops its sender. `grace`: how long a place not found waits before
/// it is asked again.
pub(super) async fn run(
    ctx: Rc<IoCtx>,
    mut rx: UnboundedReceiver<ResolveRequest>,
    grace: Duration,
) {
    let categories = ctx
        .accounts
        .iter()
        .map(|acc| super::reconcile::categories_of(&ctx, acc).to_vec())
        .collect();
    let grace_ms = u64::try_from(grace.as_millis()).unwrap_or(u64::MAX);
    let mut resolver = Resolver::new(categories, grace_ms);
    // The resolver's monotonic clock: ns since this task started, on tokio's clock (so that
    // the times it names are the ones `sleep_until` waits for).
    let origin = Instant::now();
    let now_ns = || u64::try_from(origin.elapsed().as_nanos()).unwrap_or(u64::MAX);
    let (answer_tx, mut answers) = unbounded_channel::<(usize, Answer)>();
    loop {
        while let Some(q) = resolver.poll(now_ns(), utc_now_ms()) {
            tokio::task::spawn_local(ask(Rc::clone(&ctx), q, answer_tx.clone()));
        }
        let wake = resolver
            .next_wake_ns()
            .map(|ns| origin + Duration::from_nanos(ns));
        tokio::select! {
            req = rx.recv() => match req {
                Some(req) => resolver.push(req, now_ns()),
                None => return,
            },
            Some((account, answer)) = answers.recv() => {
                if let Some(state) = resolver.on_answer(account, answer, now_ns(), utc_now_ms()) {
                    let _ = ctx
                        .tracker_tx
                        .send(TrackerInput::ExchangeState { state, reply: None });
                }
            }
            () = sleep_until(wake) => {}
        }
    }
}

/// Sleeps until `at`; forever without one.
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// Runs one query and sends its answer back to the driver.
async fn ask(ctx: Rc<IoCtx>, q: Query, answers: UnboundedSender<(usize, Answer)>) {
    let answer = match ctx.accounts.get(q.account) {
        Some(acc) => call(&acc.rest, q.kind)
            .await
            .unwrap_or_else(|e| Answer::Failed(e.to_string())),
        None => Answer::Failed(format!("no account {}", q.account)),
    };
    let _ = answers.send((q.account, answer));
}

/// The REST call of one query (every page of a list).
///
/// Errors: the REST client's ([`ExchangeError`]).
async fn call(rest: &RestClient, kind: QueryKind) -> Result<Answer, ExchangeError> {
    Ok(match kind {
        QueryKind::ServerTime => {
            let data = rest.public_get(SERVER_TIME_PATH).await?;
            let server_ms = data
                .get("serverTime")
                .and_then(|v| v.as_str().and_then(|s| s.parse().ok()).or(v.as_u64()))
                .unwrap_or(0);
            Answer::ServerTime(server_ms)
        }
        QueryKind::HistoryOrders { category, since_ms } => {
            Answer::Orders(rest_history::history_orders(rest, category, since_ms).await?)
        }
        QueryKind::OpenOrders => {
            Answer::Orders(rest_orders::unfilled_orders(rest, None, None).await?)
        }
        QueryKind::Fills {
            category,
            order_id,
            since_ms,
        } => Answer::Fills(rest_history::fills(rest, category, since_ms, order_id).await?),
        QueryKind::OrderInfo { client_oid } => {
            Answer::Order(rest_history::order_info(rest, client_oid.as_str()).await?)
        }
    })
}
