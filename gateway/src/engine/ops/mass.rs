//! OrderMassCancelRequest (by session, symbol, side or account) and OrderMassStatusRequest
//! (the tracker's view, optionally refreshed from `unfilled-orders`).
//!
//! Scopes: Session = this session's orders; Symbol and Side = this session's orders of that
//! symbol / side; Account = the orders of every session bound to the session's account. The
//! Category filter narrows any scope. Only orders the tracker knows are cancelled, each by
//! clientOid in `batch-cancel` ops (≤ 20 orders, one category per op); the tracker answers
//! OrderMassCancelReport once every op is answered.

use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

use codec::json::{write_batch_cancel, CancelOrder};
use codec::sbe::{
    Category, ExecutionReport, ItemStatus, MassCancelRejectReason, MassCancelRequestType,
    MassCancelResponse, MassStatusReqType, OrderMassCancelReport, OrderMassCancelRequestDecoder,
    OrderMassStatusEnd, OrderMassStatusRequestDecoder, Symbol, Text,
};
use tokio::sync::oneshot;

use crate::engine::account::{BudgetPolicy, TradeOp};
use crate::engine::conn::Conn;
use crate::engine::ctx::IoCtx;
use crate::exchange::rest_orders::unfilled_orders;
use crate::exchange::ExchangeError;
use crate::ids::ClientOid;
use crate::metrics::{now_ns, utc_now_ns};
use crate::session::out::{Flow, SessionOut};
use crate::tracker::{MassCancelEvent, OrderFilter, OrderScope, OrderView, TrackerInput};
use gateway_core::journal::record::Origin;

/// Orders per `batch-cancel` op (exchange limit, reference §5).
pub const BATCH_CANCEL_MAX: usize = 20;

/// An OrderMassCancelRequest.
pub(in crate::engine) async fn on_mass_cancel(
    conn: &mut Conn,
    m: &OrderMassCancelRequestDecoder<'_>,
    _t_read: u64,
) {
    let session_id = conn.fixp.session_id();
    let request_type = m.mass_cancel_request_type();
    let cl_ord_id = m.cl_ord_id();
    let symbol = Some(m.symbol()).filter(|s| !s.is_empty());
    let reject = |reason, text: &str| OrderMassCancelReport {
        cl_ord_id,
        transact_time: utc_now_ns(),
        total_affected_orders: 0,
        exchange_code: 0,
        mass_cancel_request_type: request_type,
        mass_cancel_response: MassCancelResponse::Rejected,
        mass_cancel_reject_reason: Some(reason),
        text: Text::new(text),
    };
    let (scope, symbol, side) = match request_type {
        MassCancelRequestType::Session => (OrderScope::Session(session_id), None, None),
        MassCancelRequestType::Account => (OrderScope::Account(conn.account), None, None),
        MassCancelRequestType::Symbol => {
            let Some(sym) = symbol else {
                let r = reject(MassCancelRejectReason::InvalidSecurity, "Symbol required");
                send(&conn.out, |b| r.encode_frame(b));
                return;
            };
            (OrderScope::Session(session_id), Some(sym), None)
        }
        MassCancelRequestType::Side => {
            let Some(side) = m.side() else {
                let r = reject(MassCancelRejectReason::Other, "Side required");
                send(&conn.out, |b| r.encode_frame(b));
                return;
            };
            (OrderScope::Session(session_id), symbol, Some(side))
        }
    };
    if let Some(sym) = &symbol {
        if !conn.ctx.instruments.knows_symbol(sym, m.category()) {
            let text = format!("unknown symbol: {}", sym.as_str());
            let r = reject(MassCancelRejectReason::InvalidSecurity, &text);
            send(&conn.out, |b| r.encode_frame(b));
            return;
        }
    }
    let filter = OrderFilter {
        scope,
        symbol,
        category: m.category(),
        side,
    };
    let job = MassCancelJob {
        ctx: Rc::clone(&conn.ctx),
        out: Arc::clone(&conn.out),
        account: conn.account,
        budget: conn.budget,
        session_id,
        cl_ord_id,
        request_type,
        filter,
    };
    tokio::task::spawn_local(job.run());
}

/// Cancel on disconnect: the open orders of `session_id`, whose connection ended without a
/// Terminate from the strategy, are cancelled like an OrderMassCancelRequest of scope Session
/// (batch-cancels by clientOid). The Canceled ExecutionReports reach the session if it is
/// re-established meanwhile, and its account's drop copies.
pub(in crate::engine) fn cancel_on_disconnect(
    ctx: Rc<IoCtx>,
    out: Arc<SessionOut>,
    account: usize,
    session_id: u64,
) {
    let job = MassCancelJob {
        ctx,
        out,
        account,
        // Cancels have their own buckets and reserve; wait for them rather than give up.
        budget: BudgetPolicy::Queue(std::time::Duration::from_secs(5)),
        session_id,
        cl_ord_id: 0,
        request_type: MassCancelRequestType::Session,
        filter: OrderFilter {
            scope: OrderScope::Session(session_id),
            symbol: None,
            category: None,
            side: None,
        },
    };
    tokio::task::spawn_local(job.run());
}

struct MassCancelJob {
    ctx: Rc<IoCtx>,
    out: Arc<SessionOut>,
    account: usize,
    budget: BudgetPolicy,
    session_id: u64,
    cl_ord_id: u64,
    request_type: MassCancelRequestType,
    filter: OrderFilter,
}

impl MassCancelJob {
    fn report(&self, affected: u32, reason: Option<MassCancelRejectReason>, text: &str) {
        let r = OrderMassCancelReport {
            cl_ord_id: self.cl_ord_id,
            transact_time: utc_now_ns(),
            total_affected_orders: affected,
            exchange_code: 0,
            mass_cancel_request_type: self.request_type,
            mass_cancel_response: match reason {
                Some(_) => MassCancelResponse::Rejected,
                None => crate::tracker::mass::scope_response(self.request_type),
            },
            mass_cancel_reject_reason: reason,
            text: Text::new(text),
        };
        send(&self.out, |b| r.encode_frame(b));
    }

    async fn run(self) {
        let Some(views) = query(&self.ctx, self.filter, None).await else {
            self.report(0, Some(MassCancelRejectReason::Other), "tracker stopped");
            return;
        };
        let Some(account) = self.ctx.accounts.get(self.account) else {
            self.report(0, Some(MassCancelRejectReason::Other), "no account");
            return;
        };
        if views.is_empty() {
            self.report(0, None, "");
            return;
        }
        if !account.is_up() {
            self.report(
                0,
                Some(MassCancelRejectReason::NotApplied),
                "exchange connection down",
            );
            return;
        }
        let mut by_category: BTreeMap<u8, (Category, Vec<(ClientOid, Symbol)>)> = BTreeMap::new();
        for v in &views {
            let c = v.report.category;
            by_category
                .entry(c as u8)
                .or_insert_with(|| (c, Vec::new()))
                .1
                .push((ClientOid::new(v.session_id, v.root), v.report.symbol));
        }
        let chunks: Vec<(Category, &[(ClientOid, Symbol)])> = by_category
            .values()
            .flat_map(|(c, orders)| orders.chunks(BATCH_CANCEL_MAX).map(move |ch| (*c, ch)))
            .collect();
        let mass_id = self.ctx.next_request_id();
        let _ = self
            .ctx
            .tracker_tx
            .send(TrackerInput::MassCancel(MassCancelEvent::Start {
                mass_id,
                session_id: self.session_id,
                cl_ord_id: self.cl_ord_id,
                request_type: self.request_type,
                chunks: u32::try_from(chunks.len()).unwrap_or(u32::MAX),
            }));
        let mut json = Vec::with_capacity(4096);
        let mut id_buf = itoa::Buffer::new();
        for (category, orders) in chunks {
            let req_id = self.ctx.next_request_id();
            let items: Vec<CancelOrder<'_>> = orders
                .iter()
                .map(|(oid, sym)| CancelOrder {
                    symbol: Some(sym.as_str()),
                    order_id: None,
                    client_oid: Some(oid.as_str()),
                })
                .collect();
            json.clear();
            write_batch_cancel(
                &mut json,
                id_buf.format(req_id),
                Some(category.into()),
                &items,
            );
            let _ = self
                .ctx
                .tracker_tx
                .send(TrackerInput::MassCancel(MassCancelEvent::Chunk {
                    mass_id,
                    req_id,
                }));
            if let Err(why) = account
                .send_trade(
                    TradeOp::BatchCancel,
                    self.budget,
                    &json,
                    self.session_id,
                    &self.out,
                )
                .await
            {
                let _ =
                    self.ctx
                        .tracker_tx
                        .send(TrackerInput::MassCancel(MassCancelEvent::NotSent {
                            req_id,
                            text: Text::new(why.text()),
                        }));
            }
        }
    }
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
async fn query(
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

fn send(out: &SessionOut, encode: impl FnOnce(&mut Vec<u8>)) -> bool {
    out.send(Flow::Application(Origin::MassAction), now_ns(), encode)
}
