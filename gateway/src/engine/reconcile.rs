//! Reconciliation of one account against the exchange's REST view: what the `order` and `fill`
//! channels would have said while the gateway could not hear them (reference §7:
//! `unfilled-orders`, `history-orders`, `fills`). The answers go to the tracker as one
//! [`ExchangeState`], which reports every missed change to the strategies exactly once.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use futures_util::future::{try_join3, try_join_all};

use super::ctx::IoCtx;
use super::startup::QueryTiming;
use crate::exchange::error::ExchangeError;
use crate::exchange::{rest_history, rest_orders};
use crate::tracker::{ApplySummary, ExchangeState, StateSource, TrackerInput};
use gateway_core::recovery::EndedBeforeRestart;

pub use gateway_core::rest_objects::MAX_LOOKBACK_MS;

/// Queries account `ix`'s open orders, its finished orders of every category it trades and its
/// fills since `since_ms` (UTC ms, clamped to [`MAX_LOOKBACK_MS`]), hands them to the tracker
/// and waits until they are applied.
///
/// Errors: any REST error ([`ExchangeError`]); [`ExchangeError::Protocol`] when the account
/// index is unknown or the tracker is gone. Nothing is applied when a query fails.
pub(super) async fn reconcile_account(
    ctx: &IoCtx,
    ix: usize,
    since_ms: u64,
    source: StateSource,
) -> Result<ApplySummary, ExchangeError> {
    reconcile_account_except(ctx, ix, since_ms, source, None, rest_orders::MAX_PAGES)
        .await
        .map(|(sum, _)| sum)
}

/// What one account's reconciliation measured: each listing's time and what the tracker took
/// after them ([`super::startup`]).
#[derive(Debug, Default)]
pub(super) struct ReconcileTimings {
    /// Each listing (they run concurrently).
    pub(super) queries: Vec<QueryTiming>,
    /// From the last listing in to the tracker's reply, ms.
    pub(super) apply_ms: f64,
}

/// Times `fut`, a listing of `items`-counted objects named `what`.
async fn timed<T, E>(
    what: String,
    fut: impl std::future::Future<Output = Result<Vec<T>, E>>,
) -> Result<(Vec<T>, QueryTiming), E> {
    let t = Instant::now();
    let v = fut.await?;
    let q = QueryTiming {
        what,
        items: v.len(),
        ms: super::startup::ms(t.elapsed()),
    };
    Ok((v, q))
}

/// [`reconcile_account`], leaving out the orders (and their fills) `ended` says ended before a
/// restart (`gateway_core::recovery`). The listings are independent, so they run at once: the
/// open orders per category (each its own cursor chain, the gateway's orders are all in the
/// categories it trades), the finished orders per category, and the fills; the slowest one
/// bounds the wait instead of their sum. The finished orders are read `history_pages` pages
/// deep at most (newest first).
///
/// Every page takes a token of the account's query budget (`[rate]`: Bitget's 20/s/UID per
/// endpoint by default, `gateway_core::budget::queries`), so the chains of one endpoint share
/// its quota and the venue never sees more than it allows; a page refused for rate anyway is
/// asked again, same cursor, after a backoff (`RestClient::query_get`): the listing is exact.
/// With 10 000 open orders the open-orders pages bound the restart: ~5.5 s at 20/s (the
/// finished orders are read [`RESTART_HISTORY_PAGES`] deep after a restart, the fills since
/// the last report minus [`gateway_core::recovery::RESTART_MARGIN_MS`]); the simulator with its quotas off is
/// configured unlimited, which keeps a restart there under a second.
async fn reconcile_account_except(
    ctx: &IoCtx,
    ix: usize,
    since_ms: u64,
    source: StateSource,
    ended: Option<&EndedBeforeRestart>,
    history_pages: usize,
) -> Result<(ApplySummary, ReconcileTimings), ExchangeError> {
    let acc = ctx
        .accounts
        .get(ix)
        .ok_or_else(|| ExchangeError::Protocol(format!("no account {ix}")))?;
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let since_ms = since_ms.max(now_ms.saturating_sub(MAX_LOOKBACK_MS));
    let categories = categories_of(ctx, acc);
    let name = |c: &codec::sbe::Category| codec::json::Category::from(*c).as_rest_str();
    let unfilled = try_join_all(categories.iter().map(|c| {
        timed(
            format!("unfilled {}", name(c)),
            rest_orders::unfilled_orders(&acc.rest, Some(*c), None),
        )
    }));
    let history = try_join_all(categories.iter().map(|c| {
        timed(
            format!("history {}", name(c)),
            rest_history::history_orders_newest(&acc.rest, *c, since_ms, history_pages),
        )
    }));
    let fills = timed(
        "fills".to_owned(),
        rest_history::fills(&acc.rest, None, since_ms, None),
    );
    let (unfilled, history, (fills, fills_timing)) = try_join3(unfilled, history, fills).await?;
    let mut timings = ReconcileTimings::default();
    let mut orders = Vec::new();
    for (list, q) in unfilled.into_iter().chain(history) {
        orders.extend(list);
        timings.queries.push(q);
    }
    timings.queries.push(fills_timing);
    let applied = Instant::now();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let mut state = ExchangeState {
        account: ix,
        orders,
        fills,
        not_found: Vec::new(),
        source,
    };
    if let Some(e) = ended {
        let n = e.drop_from(&mut state);
        tracing::debug!(
            account = ctx.accounts.get(ix).map_or("?", |a| a.name.as_str()),
            left_out = n,
            "restart: orders ended before it left out"
        );
    }
    ctx.tracker_tx
        .send(TrackerInput::ExchangeState {
            state,
            reply: Some(tx),
        })
        .map_err(|_| ExchangeError::Protocol("tracker stopped".into()))?;
    let sum = rx
        .await
        .map_err(|_| ExchangeError::Protocol("tracker stopped".into()))?;
    timings.apply_ms = super::startup::ms(applied.elapsed());
    Ok((sum, timings))
}

/// The categories account `acc` trades (the exchange's list when the account names none).
pub(super) fn categories_of<'a>(
    ctx: &'a IoCtx,
    acc: &'a super::account::AccountCtx,
) -> &'a [codec::sbe::Category] {
    if acc.categories.is_empty() {
        &ctx.categories
    } else {
        &acc.categories
    }
}

pub use gateway_core::recovery::RESTART_HISTORY_PAGES;

/// Crash recovery, before strategies are accepted: every account reconciled from `since_ms`
/// ([`EndedBeforeRestart::reconcile_since_ms`]: the last journaled report less
/// [`gateway_core::recovery::RESTART_MARGIN_MS`]), taking over
/// the gateway's own orders the journal did not know; the orders `ended` says ended before the
/// restart (reported to their end, no longer in the journal's checkpoint) are left out.
///
/// Returns every account's listings, and the tracker's time after them, in account order.
///
/// Errors: the first account that could not be reconciled.
pub(super) async fn reconcile_after_restart(
    ctx: &IoCtx,
    since_ms: u64,
    ended: &EndedBeforeRestart,
) -> Result<ReconcileTimings, ExchangeError> {
    let mut all = ReconcileTimings::default();
    for ix in 0..ctx.accounts.len() {
        let (sum, timings) = reconcile_account_except(
            ctx,
            ix,
            since_ms,
            StateSource::Restart,
            Some(ended),
            RESTART_HISTORY_PAGES,
        )
        .await?;
        all.queries.extend(timings.queries);
        all.apply_ms += timings.apply_ms;
        tracing::info!(
            account = ctx.accounts.get(ix).map_or("?", |a| a.name.as_str()),
            reports = sum.reports,
            new_fills = sum.new_fills,
            adopted = sum.adopted,
            "restart: account reconciled"
        );
    }
    Ok(all)
}
