//! Refusals that name what they refuse, over real sockets: a BusinessMessageReject carries the
//! refused message's implicit sequence number (RefSeqNum) and its ClOrdID / ListID
//! (BusinessRejectRefID) even when another field of the block is invalid; ClOrdID 0 (the
//! schema's "none") is refused on every request that takes a new ClOrdID, before anything reaches
//! the exchange.

use codec::frame::SOFH_LEN;
use codec::sbe::{
    BoolFlag, BusinessMessageReject, BusinessRejectReason, Category, CxlRejReason, ExecType,
    ItemStatus, NewOrderList, NewOrderListEntry, NewOrderSingle, OrdRejReason, OrdType,
    OrderCancelList, OrderCancelListEntry, OrderCancelReplaceList, OrderCancelReplaceListEntry,
    OrderCancelReplaceRequest, OrderCancelRequest, PosSide, Side, StpMode, Symbol, TimeInForce,
};
use e2e::{btc_order, d, Harness, Strategy};
use strategy_client::Received;

const CL_ORD_ID_ZERO: &str = gateway::session::order_entry::CL_ORD_ID_ZERO;

fn sym() -> Symbol {
    Symbol::new("BTCUSDT").expect("symbol")
}

fn business_reject(s: &mut Strategy) -> BusinessMessageReject {
    match s.next_message() {
        Received::BusinessReject(r) => r,
        other => panic!("expected BusinessMessageReject, got {other:?}"),
    }
}

fn list_item(cl: u64) -> NewOrderListEntry {
    NewOrderListEntry {
        cl_ord_id: cl,
        price: Some(d("40000")),
        order_qty: d("0.001"),
        symbol: sym(),
        category: Category::UsdtFutures,
        side: Side::Buy,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::Gtc,
        pos_side: PosSide::None,
        reduce_only: BoolFlag::No,
        stp_mode: StpMode::None,
    }
}

/// A NewOrderList frame (ListID `list_id`, one item) whose item has Side 9.
fn list_with_side_9(list_id: u64) -> Vec<u8> {
    let mut bytes = Vec::new();
    NewOrderList {
        list_id,
        transact_time: 0,
    }
    .encode_frame([list_item(1)], &mut bytes)
    .expect("fits");
    let root = codec::sbe::MESSAGES
        .iter()
        .find(|m| m.template_id == NewOrderList::TEMPLATE_ID)
        .expect("NewOrderList")
        .block_length;
    let side = codec::sbe::NEW_ORDER_LIST_ENTRY_FIELDS
        .iter()
        .find(|f| f.name == "Side")
        .map(|f| f.offset)
        .expect("Side");
    // SOFH, message header, root block, group header (4), then the entry.
    bytes[SOFH_LEN + 8 + usize::from(root) + 4 + side] = 9;
    bytes
}

#[test]
fn business_reject_carries_the_refused_messages_sequence_number() {
    let h = Harness::quiet();
    let mut s = h.client(1);
    // Application message 1: an order the gateway accepts.
    s.limit(Side::Buy, TimeInForce::Gtc, "40000", "0.001");
    assert_eq!(s.exec().exec_type, ExecType::New);
    // Application message 2: ClOrdID 777001 with Side 9.
    s.c.send_raw(&e2e::order_frame_with_side_byte(777_001, 9))
        .expect("send");
    let r = business_reject(&mut s);
    assert_eq!(r.ref_msg_type, NewOrderSingle::TEMPLATE_ID);
    assert_eq!(r.business_reject_reason, BusinessRejectReason::InvalidField);
    assert_eq!(r.ref_seq_num, 2);
    // Application message 3: a list whose item has Side 9.
    s.c.send_raw(&list_with_side_9(4242)).expect("send");
    let r = business_reject(&mut s);
    assert_eq!(r.ref_msg_type, NewOrderList::TEMPLATE_ID);
    assert_eq!(r.business_reject_reason, BusinessRejectReason::InvalidField);
    assert_eq!(r.ref_seq_num, 3);
    assert_eq!(h.sim().stats().orders_received, 1, "only the valid order");
}

/// Needs the io loop to hand the undecodable frame's payload to the session
/// (`gateway/src/engine/strategy_conn.rs`: `self.fixp.on_undecodable_payload(now_ns(), payload,
/// &e.to_string())` instead of `on_undecodable(now_ns(), template, ...)`).
#[test]
fn business_reject_names_the_cl_ord_id_or_list_id_it_could_read() {
    let h = Harness::quiet();
    let mut s = h.client(1);
    s.c.send_raw(&e2e::order_frame_with_side_byte(777_001, 9))
        .expect("send");
    let r = business_reject(&mut s);
    assert_eq!((r.ref_seq_num, r.business_reject_ref_id), (1, 777_001));
    s.c.send_raw(&list_with_side_9(4242)).expect("send");
    let r = business_reject(&mut s);
    assert_eq!((r.ref_seq_num, r.business_reject_ref_id), (2, 4242));
    assert_eq!(h.sim().stats().orders_received, 0);
}

#[test]
fn cl_ord_id_zero_is_refused_before_the_exchange() {
    let h = Harness::quiet();
    let mut s = h.client(1);
    // NewOrderSingle ClOrdID 0: ExecutionReport Rejected (Other).
    s.c.send_new_order(&btc_order(
        0,
        Side::Buy,
        OrdType::Limit,
        TimeInForce::Gtc,
        Some("40000"),
        "0.001",
    ))
    .expect("send");
    let er = s.exec();
    assert_eq!(er.exec_type, ExecType::Rejected);
    assert_eq!(er.ord_rej_reason, Some(OrdRejReason::Other));
    assert_eq!(er.text.as_str(), CL_ORD_ID_ZERO);
    // A real order to cancel and replace.
    let cl = s.limit(Side::Buy, TimeInForce::Gtc, "40000", "0.001");
    assert_eq!(s.exec().exec_type, ExecType::New);
    let placed = h.sim().stats();
    assert_eq!(placed.orders_received, 1);
    // Cancel and replace with ClOrdID 0: OrderCancelReject (Other).
    s.c.send_cancel(&OrderCancelRequest {
        cl_ord_id: 0,
        orig_cl_ord_id: cl,
        transact_time: 0,
        symbol: sym(),
        category: Category::UsdtFutures,
        side: Side::Buy,
    })
    .expect("send");
    let r = s.cancel_reject();
    assert_eq!((r.cl_ord_id, r.orig_cl_ord_id), (0, cl));
    assert_eq!(r.cxl_rej_reason, CxlRejReason::Other);
    assert_eq!(r.text.as_str(), CL_ORD_ID_ZERO);
    s.c.send_replace(&OrderCancelReplaceRequest {
        cl_ord_id: 0,
        orig_cl_ord_id: cl,
        transact_time: 0,
        price: Some(d("40001")),
        order_qty: Some(d("0.001")),
        symbol: sym(),
        category: Category::UsdtFutures,
        side: Side::Buy,
        auto_cancel: BoolFlag::No,
    })
    .expect("send");
    let r = s.cancel_reject();
    assert_eq!(r.cxl_rej_reason, CxlRejReason::Other);
    assert_eq!(r.text.as_str(), CL_ORD_ID_ZERO);
    // List items with ClOrdID 0: refused per item, the ListStatus says why.
    s.c.send_frame(|b| {
        NewOrderList {
            list_id: 1,
            transact_time: 0,
        }
        .encode_frame([list_item(0)], b)
        .expect("fits");
    })
    .expect("send");
    expect_list_refusal(&mut s, 1, OrdRejReason::Other);
    s.c.send_frame(|b| {
        OrderCancelReplaceList {
            list_id: 2,
            transact_time: 0,
        }
        .encode_frame(
            [OrderCancelReplaceListEntry {
                cl_ord_id: 0,
                orig_cl_ord_id: cl,
                price: Some(d("40001")),
                order_qty: Some(d("0.001")),
                symbol: sym(),
                category: Category::UsdtFutures,
                side: Side::Buy,
                auto_cancel: BoolFlag::No,
            }],
            b,
        )
        .expect("fits");
    })
    .expect("send");
    expect_list_refusal(&mut s, 2, OrdRejReason::Other);
    s.c.send_frame(|b| {
        OrderCancelList {
            list_id: 3,
            transact_time: 0,
        }
        .encode_frame(
            [OrderCancelListEntry {
                cl_ord_id: 0,
                orig_cl_ord_id: cl,
                symbol: sym(),
                category: Category::UsdtFutures,
                side: Side::Buy,
            }],
            b,
        )
        .expect("fits");
    })
    .expect("send");
    expect_list_refusal(&mut s, 3, OrdRejReason::Other);
    // Nothing of the above reached the exchange; the order is still open.
    let after = h.sim().stats();
    assert_eq!(after.orders_received, placed.orders_received);
    assert_eq!(after.orders_cancelled, placed.orders_cancelled);
    assert_eq!(after.orders_modified, placed.orders_modified);
    s.expect_silence(std::time::Duration::from_millis(200));
}

/// Reads a one-item list's answer: its report (ExecutionReport Rejected or OrderCancelReject)
/// and a ListStatus whose only entry is refused with `reason` and the ClOrdID-0 text.
fn expect_list_refusal(s: &mut Strategy, list_id: u64, reason: OrdRejReason) {
    let (mut report, mut status) = (false, false);
    while !(report && status) {
        match s.next_message() {
            Received::Exec(er) => {
                assert_eq!(er.exec_type, ExecType::Rejected);
                assert_eq!(er.text.as_str(), CL_ORD_ID_ZERO);
                report = true;
            }
            Received::CancelReject(r) => {
                assert_eq!(r.cxl_rej_reason, CxlRejReason::Other);
                assert_eq!(r.text.as_str(), CL_ORD_ID_ZERO);
                report = true;
            }
            Received::ListStatus(ls, entries) => {
                assert_eq!(ls.list_id, list_id);
                assert_eq!(entries.len(), 1);
                assert_eq!(entries[0].item_status, ItemStatus::Rejected);
                assert_eq!(entries[0].ord_rej_reason, Some(reason));
                assert_eq!(entries[0].text.as_str(), CL_ORD_ID_ZERO);
                status = true;
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}
