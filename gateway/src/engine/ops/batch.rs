//! NewOrderList, OrderCancelReplaceList and OrderCancelList: every item checked like its single
//! counterpart, the accepted ones grouped by category and split into exchange batches of at
//! most 20 (`batch-place`, `batch-modify`, `batch-cancel`); every item answered in ListStatus
//! (written by the tracker once every batch has its reply).
//!
//! Items refused here get their report at once (ExecutionReport Rejected for a place item,
//! OrderCancelReject otherwise) and a Rejected ListStatus entry.

use codec::sbe::{
    BusinessRejectReason, CxlRejReason, CxlRejResponseTo, Message, NewOrderList,
    NewOrderListDecoder, OrdRejReason, OrderCancelList, OrderCancelListDecoder,
    OrderCancelReplaceList, OrderCancelReplaceListDecoder,
};

use codec::sbe::OrdType;
use codec::Decimal;

use crate::engine::account::{NotSent, TradeOp};
use crate::engine::conn::Conn;
use crate::metrics::{now_ns, utc_now_ns};
use crate::risk::OrderView;
use crate::session::batch_entry::{
    exchange_batches, refuse_cancel, refuse_new, AcceptedItem, RefusedItem,
};
use crate::tracker::{BatchItem, ListDone, RequestKind, SentBatch, TrackerInput};

/// A NewOrderList.
pub(in crate::engine) async fn on_new_order_list(
    conn: &mut Conn,
    m: &NewOrderListDecoder<'_>,
    _t_read: u64,
) {
    let msg = Message::NewOrderList(*m);
    let utc = utc_now_ns();
    let ctx = std::rc::Rc::clone(&conn.ctx);
    let session_id = conn.fixp.session_id();
    let account = conn.account;
    let checked = begin(conn, &msg, m.list_id(), m.orders().len()).map(|entry| {
        m.orders()
            .iter()
            .map(|e| {
                entry
                    .check_list_new(&e, &ctx.instruments, utc)
                    .and_then(|item| account_check(&ctx, account, item, utc))
                    .and_then(|item| risk_check(&ctx, session_id, item, utc))
            })
            .collect::<Vec<_>>()
    });
    if let Some(items) = checked {
        run_list(
            conn,
            m.list_id(),
            NewOrderList::TEMPLATE_ID,
            TradeOp::BatchPlace,
            items,
        )
        .await;
    }
}

/// An OrderCancelReplaceList.
pub(in crate::engine) async fn on_order_cancel_replace_list(
    conn: &mut Conn,
    m: &OrderCancelReplaceListDecoder<'_>,
    _t_read: u64,
) {
    let msg = Message::OrderCancelReplaceList(*m);
    let utc = utc_now_ns();
    let ctx = std::rc::Rc::clone(&conn.ctx);
    let session_id = conn.fixp.session_id();
    let checked = begin(conn, &msg, m.list_id(), m.orders().len()).map(|entry| {
        m.orders()
            .iter()
            .map(|e| {
                let view = OrderView {
                    side: e.side(),
                    ord_type: OrdType::Limit,
                    price: e.price(),
                    qty: e.order_qty().unwrap_or(Decimal::ZERO),
                };
                match ctx
                    .risk
                    .check_replace(session_id, e.category(), &e.symbol(), &view)
                {
                    Err(rej) => Err(Box::new(refuse_cancel(
                        e.cl_ord_id(),
                        e.orig_cl_ord_id(),
                        CxlRejResponseTo::OrderCancelReplaceRequest,
                        CxlRejReason::Other,
                        &rej.text,
                        utc,
                    ))),
                    Ok(()) => entry.check_list_replace(&e, &ctx.instruments, utc),
                }
            })
            .collect::<Vec<_>>()
    });
    if let Some(items) = checked {
        run_list(
            conn,
            m.list_id(),
            OrderCancelReplaceList::TEMPLATE_ID,
            TradeOp::BatchModify,
            items,
        )
        .await;
    }
}

/// An OrderCancelList.
pub(in crate::engine) async fn on_order_cancel_list(
    conn: &mut Conn,
    m: &OrderCancelListDecoder<'_>,
    _t_read: u64,
) {
    let msg = Message::OrderCancelList(*m);
    let utc = utc_now_ns();
    let ctx = std::rc::Rc::clone(&conn.ctx);
    let checked = begin(conn, &msg, m.list_id(), m.orders().len()).map(|entry| {
        m.orders()
            .iter()
            .map(|e| entry.check_list_cancel(&e, &ctx.instruments, utc))
            .collect::<Vec<_>>()
    });
    if let Some(items) = checked {
        run_list(
            conn,
            m.list_id(),
            OrderCancelList::TEMPLATE_ID,
            TradeOp::BatchCancel,
            items,
        )
        .await;
    }
}

/// List-level checks (not empty, ListID not used before); the order entry when they pass.
fn begin<'c>(
    conn: &'c mut Conn,
    msg: &Message<'_>,
    list_id: u64,
    len: usize,
) -> Option<&'c mut crate::session::order_entry::OrderEntry> {
    let refusal = if len == 0 {
        Some((BusinessRejectReason::InvalidField, "empty list"))
    } else if !conn.entry.as_mut().is_some_and(|e| e.begin_list(list_id)) {
        Some((BusinessRejectReason::InvalidField, "ListID already used"))
    } else {
        None
    };
    if let Some((reason, text)) = refusal {
        conn.business_reject(msg, list_id, reason, text);
        return None;
    }
    conn.entry.as_mut()
}

/// Reports refused items, sends the accepted ones in exchange batches, and tells the tracker.
async fn run_list(
    conn: &mut Conn,
    list_id: u64,
    ref_msg_type: u16,
    op: TradeOp,
    items: Vec<Result<AcceptedItem, Box<RefusedItem>>>,
) {
    let session_id = conn.fixp.session_id();
    let mut refused = Vec::new();
    let mut accepted = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Ok(a) => accepted.push(a),
            Err(r) => {
                conn.write_report(&r.report);
                refused.push(r.entry);
            }
        }
    }
    let mut batches_sent = 0u32;
    for (category, chunk) in exchange_batches(accepted) {
        let req_id = conn.ctx.next_request_id();
        conn.json.clear();
        if let Some(entry) = conn.entry.as_ref() {
            entry.write_batch(&mut conn.json, req_id, category, &chunk);
        }
        let sent = match conn.ctx.accounts.get(conn.account) {
            Some(account) => {
                let sent = account.send_trade(op, conn.budget, &conn.json).await;
                if matches!(sent, Err(NotSent::Throttled { .. })) {
                    account.note_throttled(session_id, &conn.out);
                }
                sent
            }
            None => Err(NotSent::Down),
        };
        match sent {
            Ok(()) => {
                batches_sent += 1;
                let _ = conn.ctx.tracker_tx.send(TrackerInput::SentBatch(SentBatch {
                    req_id,
                    session_id,
                    list_id,
                    items: chunk
                        .iter()
                        .map(|i| BatchItem {
                            root: i.root,
                            kind: i.kind,
                        })
                        .collect(),
                    t_written_ns: now_ns(),
                }));
            }
            Err(why) => {
                let utc = utc_now_ns();
                for item in &chunk {
                    if let RequestKind::New(order) = &item.kind {
                        let view = crate::risk::order_view(order);
                        conn.ctx.risk.release_order(
                            session_id,
                            order.category,
                            &order.symbol,
                            &view,
                        );
                    }
                    let r = not_sent(item, why, utc);
                    conn.write_report(&r.report);
                    refused.push(r.entry);
                }
            }
        }
    }
    let _ = conn.ctx.tracker_tx.send(TrackerInput::ListDone(ListDone {
        session_id,
        list_id,
        ref_msg_type,
        batches_sent,
        refused,
    }));
}

/// The pre-trade risk check of an accepted place item (counted open when it passes).
/// Refuses a place item for a category the session's account is not configured to trade.
fn account_check(
    ctx: &crate::engine::ctx::IoCtx,
    account: usize,
    item: AcceptedItem,
    utc: u64,
) -> Result<AcceptedItem, Box<RefusedItem>> {
    let RequestKind::New(order) = &item.kind else {
        return Ok(item);
    };
    match ctx.accounts.get(account) {
        Some(a) if !a.trades(order.category) => {
            let text = format!(
                "account {} does not trade {}",
                a.name,
                codec::json::Category::from(order.category).as_rest_str()
            );
            Err(Box::new(refuse_new(
                order,
                OrdRejReason::UnknownSymbol,
                &text,
                utc,
            )))
        }
        _ => Ok(item),
    }
}

/// Pre-trade risk of a place item (reserves its counts when it passes).
fn risk_check(
    ctx: &crate::engine::ctx::IoCtx,
    session_id: u64,
    item: AcceptedItem,
    utc: u64,
) -> Result<AcceptedItem, Box<RefusedItem>> {
    let RequestKind::New(order) = &item.kind else {
        return Ok(item);
    };
    let view = crate::risk::order_view(order);
    match ctx
        .risk
        .check_new(session_id, order.category, &order.symbol, &view)
    {
        Ok(_) => Ok(item),
        Err(rej) => Err(Box::new(refuse_new(order, rej.reason, &rej.text, utc))),
    }
}

/// The refusal of an item whose exchange batch was not written.
fn not_sent(item: &AcceptedItem, why: NotSent, utc: u64) -> RefusedItem {
    let throttled = matches!(why, NotSent::Throttled { .. });
    match item.kind {
        RequestKind::New(order) => refuse_new(
            &order,
            if throttled {
                OrdRejReason::ThrottleLimitExceeded
            } else {
                OrdRejReason::NotApplied
            },
            why.text(),
            utc,
        ),
        RequestKind::Replace { cl_ord_id, .. } | RequestKind::Cancel { cl_ord_id } => {
            let to = if matches!(item.kind, RequestKind::Cancel { .. }) {
                CxlRejResponseTo::OrderCancelRequest
            } else {
                CxlRejResponseTo::OrderCancelReplaceRequest
            };
            refuse_cancel(
                cl_ord_id,
                item.orig_cl_ord_id,
                to,
                if throttled {
                    CxlRejReason::ThrottleLimitExceeded
                } else {
                    CxlRejReason::NotApplied
                },
                why.text(),
                utc,
            )
        }
    }
}
