//! NewOrderList, OrderCancelReplaceList and OrderCancelList: every item checked like its single
//! counterpart, the accepted ones grouped by category and split into exchange batches of at
//! most 20 (`batch-place`, `batch-modify`, `batch-cancel`); every item answered in ListStatus
//! (written by the tracker once every batch has its reply).
//!
//! Items refused here get their report at once (ExecutionReport Rejected for a place item,
//! OrderCancelReject otherwise) and a Rejected ListStatus entry.

use codec::sbe::{
    BusinessRejectReason, Message, NewOrderList, NewOrderListDecoder, OrderCancelList,
    OrderCancelListDecoder, OrderCancelReplaceList, OrderCancelReplaceListDecoder,
};
use gateway_core::decision::list::{decide_list_items, recheck_after_journal, ListItems};
use gateway_core::decision::WithJournal;
use gateway_core::decision::{not_sent, Accepted};

use crate::engine::account::{NotSent, TradeOp};
use crate::engine::conn::Conn;
use crate::metrics::{now_ns, utc_now_ns};
use crate::session::batch_entry::{exchange_batches, AcceptedItem, RefusedItem};
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
    let checked = begin(conn, &msg, m.list_id(), m.orders().len()).map(|entry| {
        m.orders()
            .iter()
            .map(|e| entry.check_list_new(&e, &ctx.instruments, utc))
            .collect::<Vec<_>>()
    });
    if let Some(items) = checked {
        run_list(
            conn,
            m.list_id(),
            NewOrderList::TEMPLATE_ID,
            TradeOp::BatchPlace,
            items,
            utc,
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
    let checked = begin(conn, &msg, m.list_id(), m.orders().len()).map(|entry| {
        m.orders()
            .iter()
            .map(|e| entry.check_list_replace(&e, &ctx.instruments, utc))
            .collect::<Vec<_>>()
    });
    if let Some(items) = checked {
        run_list(
            conn,
            m.list_id(),
            OrderCancelReplaceList::TEMPLATE_ID,
            TradeOp::BatchModify,
            items,
            utc,
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
            utc,
        )
        .await;
    }
}

/// List-level checks (`OrderEntry::begin_list`: not empty, ListID not 0 nor used before);
/// the order entry when they pass, else BusinessMessageReject (InvalidField) with the ListID.
fn begin<'c>(
    conn: &'c mut Conn,
    msg: &Message<'_>,
    list_id: u64,
    len: usize,
) -> Option<&'c mut crate::session::order_entry::OrderEntry> {
    let checked = conn.entry.as_mut()?.begin_list(list_id, len);
    if let Err(text) = checked {
        conn.business_reject(msg, list_id, BusinessRejectReason::InvalidField, text);
        return None;
    }
    conn.entry.as_mut()
}

/// The decision for every item (order entry's refusals, then the account and risk,
/// `gateway_core::decision`), then the accepted ones in exchange batches (a batch not written
/// gives its items' reservations back and answers each), then the tracker is told.
async fn run_list(
    conn: &mut Conn,
    list_id: u64,
    ref_msg_type: u16,
    op: TradeOp,
    items: Vec<Result<AcceptedItem, Box<RefusedItem>>>,
    utc: u64,
) {
    let session_id = conn.fixp.session_id();
    let ctx = std::rc::Rc::clone(&conn.ctx);
    let account = ctx.accounts.get(conn.account);
    let fault = conn.out.journal_fault();
    let gate = account.map(|account| WithJournal { account, fault });
    let mut decided = decide_list_items(items, gate.as_ref(), &ctx.risk, session_id, utc);
    // The list's ClOrdIDs and ListID are journaled before its first batch is written and
    // before any item's refusal, as a single order's are (the journal fold takes a ClOrdID
    // answered before its own record for an order in flight otherwise). If that append is
    // the one that fails, no item of new risk goes.
    conn.journal_fresh();
    recheck_after_journal(&mut decided, conn.out.journal_fault(), &ctx.risk, utc);
    let ListItems {
        accepted,
        refused: refused_items,
    } = decided;
    let mut refused = Vec::with_capacity(refused_items.len());
    for r in refused_items {
        conn.write_report(&r.report);
        refused.push(r.entry);
    }
    let mut batches_sent = 0u32;
    for (category, chunk) in exchange_batches(accepted) {
        let req_id = ctx.next_request_id();
        conn.json.clear();
        if let Some(entry) = conn.entry.as_ref() {
            entry.write_batch(&mut conn.json, req_id, category, &chunk);
        }
        // A batch of modifies or cancels goes where its orders' places went when they all
        // went on one connection; otherwise (and for new orders) where the pool chooses.
        let order_conn = match conn.entry.as_ref() {
            Some(entry) if !op.is_new() => one_conn(chunk.iter().map(|i| entry.conn_of(i.root))),
            _ => None,
        };
        let sent = match account {
            Some(acc) => {
                acc.send_trade(
                    op,
                    order_conn,
                    conn.budget,
                    &conn.json,
                    session_id,
                    &conn.out,
                )
                .await
            }
            None => Err(NotSent::Down),
        };
        match sent {
            Ok(on) => {
                batches_sent += 1;
                if let Some(entry) = conn.entry.as_mut() {
                    for i in &chunk {
                        if matches!(i.kind, RequestKind::New(_)) {
                            entry.sent_new(i.root, Some(on));
                        }
                    }
                }
                let _ = ctx.tracker_tx.send(TrackerInput::SentBatch(SentBatch {
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
                let items = chunk.iter().map(|i| (Accepted::from(i), i.reserved));
                for r in not_sent(items, why, &ctx.risk, utc_now_ns()) {
                    conn.write_report(&r.report);
                    refused.push(r.entry);
                }
            }
        }
    }
    let _ = ctx.tracker_tx.send(TrackerInput::ListDone(ListDone {
        session_id,
        list_id,
        ref_msg_type,
        batches_sent,
        refused,
    }));
}

/// The one connection every item's order went on (`None` when any is not known or two
/// differ): where a batch of modifies or cancels goes.
fn one_conn(mut conns: impl Iterator<Item = Option<usize>>) -> Option<usize> {
    let first = conns.next()??;
    conns.all(|c| c == Some(first)).then_some(first)
}

#[cfg(test)]
mod tests {
    use super::one_conn;

    #[test]
    fn a_batch_follows_its_orders_only_when_they_share_a_connection() {
        assert_eq!(one_conn([Some(1), Some(1)].into_iter()), Some(1));
        assert_eq!(one_conn([Some(1), Some(0)].into_iter()), None);
        assert_eq!(one_conn([Some(1), None].into_iter()), None);
        assert_eq!(one_conn([None, Some(1)].into_iter()), None);
        assert_eq!(one_conn(std::iter::empty()), None);
    }
}
