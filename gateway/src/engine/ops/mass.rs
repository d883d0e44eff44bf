//! OrderMassCancelRequest (by session, symbol, side or account), cancel on disconnect, and
//! OrderMassStatusRequest (the tracker's view, optionally refreshed from `unfilled-orders`).
//!
//! A mass cancel is decided in `gateway_core::decision::mass` (scope, symbol, account link,
//! the `batch-cancel` ops); this file asks the tracker for the selected orders and writes the
//! ops. The tracker answers OrderMassCancelReport once every op is answered.

use std::rc::Rc;
use std::sync::Arc;

use codec::sbe::{
    ExecutionReport, ItemStatus, MassStatusReqType, OrderMassCancelReport,
    OrderMassCancelRequestDecoder, OrderMassStatusEnd, OrderMassStatusRequestDecoder, Text,
};
use gateway_core::decision::mass::{
    mass_cancel_filter, plan_mass_cancel, MassCancel, MassDecision,
};
use tokio::sync::oneshot;

use crate::engine::account::{BudgetPolicy, TradeOp};
use crate::engine::conn::Conn;
use crate::engine::ctx::IoCtx;
use crate::exchange::rest_orders::unfilled_orders;
use crate::exchange::ExchangeError;
use crate::metrics::{now_ns, utc_now_ns};
use crate::session::out::{Flow, SessionOut};
use crate::tracker::{MassCancelEvent, OrderFilter, OrderScope, OrderView, TrackerInput};
use gateway_core::journal::record::Origin;

/// An OrderMassCancelRequest.
pub(in crate::engine) async fn on_mass_cancel(
    conn: &mut Conn,
    m: &OrderMassCancelRequestDecoder<'_>,
    _t_read: u64,
) {
    let req = MassCancel::of_request(m);
    let session_id = conn.fixp.session_id();
    match mass_cancel_filter(
        &req,
        session_id,
        conn.account,
        &conn.ctx.instruments,
        utc_now_ns(),
    ) {
        Ok(filter) => spawn_mass_cancel(
            Rc::clone(&conn.ctx),
            Arc::clone(&conn.out),
            conn.account,
            conn.budget,
            session_id,
            req,
            filter,
        ),
        Err(report) => send_report(&conn.out, &report),
    }
}

/// Cancels every open order of `session_id` like an OrderMassCancelRequest of scope Session
/// (batch-cancels by clientOid) that answers no request: cancel on disconnect (the session's
/// connection ended without a Terminate from the strategy) and an operator's drain with
/// `cancel_open`. The Canceled ExecutionReports reach the session (now, or when it is
/// re-established) and its account's drop copies.
pub(in crate::engine) fn cancel_session_orders(
    ctx: Rc<IoCtx>,
    out: Arc<SessionOut>,
    account: usize,
    session_id: u64,
) {
    let req = MassCancel::on_disconnect();
    let filter = match mass_cancel_filter(&req, session_id, account, &ctx.instruments, 0) {
        Ok(filter) => filter,
        // Scope Session needs nothing a request could lack.
        Err(_) => return,
    };
    // Cancels have their own buckets and reserve; wait for them rather than give up.
    let budget = BudgetPolicy::Queue(std::time::Duration::from_secs(5));
    spawn_mass_cancel(ctx, out, account, budget, session_id, req, filter);
}

/// Asks the tracker for the orders `filter` selects, then carries out the decision: the
/// answer, or the `batch-cancel` ops written one after the other under `budget`.
fn spawn_mass_cancel(
    ctx: Rc<IoCtx>,
    out: Arc<SessionOut>,
    account: usize,
    budget: BudgetPolicy,
    session_id: u64,
    req: MassCancel,
    filter: OrderFilter,
) {
    tokio::task::spawn_local(async move {
        let Some(views) = query(&ctx, filter, None).await else {
            let r = req.reject(
                codec::sbe::MassCancelRejectReason::Other,
                "tracker stopped",
                utc_now_ns(),
            );
            if req.answers_strategy() {
                send_report(&out, &r);
            }
            return;
        };
        let Some(acc) = ctx.accounts.get(account) else {
            let r = req.reject(
                codec::sbe::MassCancelRejectReason::Other,
                "no account",
                utc_now_ns(),
            );
            if req.answers_strategy() {
                send_report(&out, &r);
            }
            return;
        };
        let chunks = match plan_mass_cancel(&req, &views, acc, utc_now_ns()) {
            MassDecision::Answer(r) => return send_report(&out, &r),
            MassDecision::Nothing => return,
            MassDecision::Send(chunks) => chunks,
        };
        let mass_id = ctx.next_request_id();
        let _ = ctx
            .tracker_tx
            .send(TrackerInput::MassCancel(MassCancelEvent::Start {
                mass_id,
                session_id,
                cl_ord_id: req.cl_ord_id,
                request_type: req.request_type,
                chunks: u32::try_from(chunks.len()).unwrap_or(u32::MAX),
            }));
        let mut json = Vec::with_capacity(4096);
        for chunk in &chunks {
            let req_id = ctx.next_request_id();
            json.clear();
            chunk.write_json(&mut json, req_id);
            let _ = ctx
                .tracker_tx
                .send(TrackerInput::MassCancel(MassCancelEvent::Chunk {
                    mass_id,
                    req_id,
                }));
            if let Err(why) = acc
                .send_trade(TradeOp::BatchCancel, None, budget, &json, session_id, &out)
                .await
            {
                let _ = ctx
                    .tracker_tx
                    .send(TrackerInput::MassCancel(MassCancelEvent::NotSent {
                        req_id,
                        text: Text::new(why.text()),
                    }));
            }
        }
    });
}

/// An OrderMassStatusRequest.
pub(in crate::engine) async fn on_mass_status(
    conn: &mut Conn,
    m: &OrderMassStatusRequestDecoder<'_>,
    _t_read: u64,
) {
    let session_id = conn.fixp.session_id();
    let req_id = m.mass_status_req_id();
    let out = Arc::clone(&conn.out);
    let symbol = Some(m.symbol()).filter(|s| !s.is_empty());
    let (scope, symbol) = match m.mass_status_req_type() {
        MassStatusReqType::Session => (OrderScope::Session(session_id), None),
        MassStatusReqType::Account => (OrderScope::Account(conn.account), None),
        MassStatusReqType::Symbol => {
            let known = symbol.filter(|s| conn.ctx.instruments.knows_symbol(s, m.category()));
            let Some(sym) = known else {
                status_end(&out, req_id, 0, Err((0, "unknown or missing symbol")));
                return;
            };
            (OrderScope::Session(session_id), Some(sym))
        }
    };
    let filter = OrderFilter {
        scope,
        symbol,
        category: m.category(),
        side: None,
    };
    let refresh = m.refresh_from_exchange() == codec::sbe::BoolFlag::Yes;
    let ctx = Rc::clone(&conn.ctx);
    let account = conn.account;
    tokio::task::spawn_local(async move {
        let exchange = if refresh {
            let Some(acc) = ctx.accounts.get(account) else {
                status_end(&out, req_id, 0, Err((0, "no account")));
                return;
            };
            match unfilled_orders(&acc.rest, filter.category, filter.symbol.as_ref()).await {
                Ok(list) => Some(list),
                Err(e) => {
                    let code = match &e {
                        ExchangeError::Rejected { code, .. } => *code,
                        _ => 0,
                    };
                    let text = format!("refresh failed: {e}");
                    status_end(&out, req_id, 0, Err((code, &text)));
                    return;
                }
            }
        } else {
            None
        };
        let Some(views) = query(&ctx, filter, exchange).await else {
            status_end(&out, req_id, 0, Err((0, "tracker stopped")));
            return;
        };
        let mut sent = 0u32;
        for v in &views {
            let er: ExecutionReport = v.report;
            if send(&out, |b| er.encode_frame(b)) {
                sent = sent.saturating_add(1);
            }
        }
        status_end(&out, req_id, sent, Ok(()));
    });
}

/// Asks the tracker for the open orders `filter` selects (`None`: the tracker is gone).
pub(in crate::engine) async fn query(
    ctx: &IoCtx,
    filter: OrderFilter,
    exchange: Option<Vec<crate::exchange::rest_orders::OpenOrder>>,
) -> Option<Vec<OrderView>> {
    let (tx, rx) = oneshot::channel();
    ctx.tracker_tx
        .send(TrackerInput::OpenOrders {
            filter,
            exchange,
            reply: tx,
        })
        .ok()?;
    rx.await.ok()
}

fn status_end(out: &SessionOut, req_id: u64, reports: u32, result: Result<(), (u32, &str)>) {
    let (status, code, text) = match result {
        Ok(()) => (ItemStatus::Accepted, 0, ""),
        Err((code, text)) => (ItemStatus::Rejected, code, text),
    };
    let end = OrderMassStatusEnd {
        mass_status_req_id: req_id,
        transact_time: utc_now_ns(),
        tot_num_reports: reports,
        exchange_code: code,
        request_status: status,
        text: Text::new(text),
    };
    send(out, |b| end.encode_frame(b));
}

fn send_report(out: &SessionOut, r: &OrderMassCancelReport) {
    send(out, |b| r.encode_frame(b));
}

fn send(out: &SessionOut, encode: impl FnOnce(&mut Vec<u8>)) -> bool {
    out.send(Flow::Application(Origin::MassAction), now_ns(), encode)
}
