//! Unit tests of "every cancel and modify gets exactly one answer" and of orders the exchange
//! does not show (issue 10, causes 8 and 9): several cancels of one order in flight at once, an
//! order that ended while the link was down but is left out of the reconciliation's lists, an
//! order said ended by "Order does not exist" with no push, a modify whose own push comes after
//! the order ended. Sans-I/O: frames through the real parser, times given as inputs.

use codec::sbe::{CxlRejReason, ExecType, OrdStatus};

use super::core::ReportMsg;
use super::reconcile::{ExchangeState, StateSource};
use super::request::RequestKind;
use super::resolve::UnknownCause;
use super::resolve_tests::{ack, exchange_order, new_kind, oid, push, Rig, MS, T0};

fn cancel_ok(req_id: u64, cl: u64) -> String {
    format!(
        r#"{{"event":"trade","id":"{req_id}","category":"usdt-futures","topic":"cancel-order","args":[{{"orderId":"555","clientOid":"{}"}}],"code":"0","msg":"Success","ts":"1"}}"#,
        oid(cl)
    )
}

fn gone(req_id: u64) -> String {
    format!(r#"{{"event":"error","id":"{req_id}","code":"25204","msg":"Order does not exist"}}"#)
}

/// (ClOrdID, what) of each report.
fn answers(out: &[ReportMsg]) -> Vec<(u64, String)> {
    out.iter()
        .map(|m| match m {
            ReportMsg::Exec(er) => (er.cl_ord_id, format!("{:?}", er.exec_type)),
            ReportMsg::CancelReject(c) => (
                c.cl_ord_id,
                format!("Reject {:?} {}", c.cxl_rej_reason, c.exchange_code),
            ),
            other => (0, format!("{other:?}")),
        })
        .collect()
}

fn state(orders: Vec<crate::rest_objects::OpenOrder>, source: StateSource) -> ExchangeState {
    ExchangeState {
        account: 0,
        orders,
        fills: Vec::new(),
        not_found: Vec::new(),
        source,
    }
}

/// The soak's lost report, step by step: cancel 21 is accepted, the link drops before its
/// push, the reconciliation's history list starts after the order was created and so leaves
/// it out, a second cancel 22 is answered "Order does not exist". Before the fix the second
/// cancel took the first one's place and the order was never reported Canceled.
#[test]
fn an_order_ended_during_a_drop_and_left_out_of_the_lists_is_queried_and_reported_canceled() {
    let mut r = Rig::new();
    r.sent(1, 10, new_kind(10));
    r.frame(&ack(1, 10));
    r.sent(2, 10, RequestKind::Cancel { cl_ord_id: 21 });
    assert!(r.frame(&cancel_ok(2, 10)).is_empty());
    r.t.on_link_down(0, T0 + 2 * MS);
    // The lists show neither the order (created before their window) nor its end.
    let sum =
        r.t.on_exchange_state(T0 + 3 * MS, 9, &state(Vec::new(), StateSource::Reconnect));
    assert_eq!(sum.not_shown, 1);
    assert!(r.t.drain_reports().next().is_none());
    // Held while the link is down, sent once it is back.
    assert!(r.requests().is_empty());
    r.t.on_link_up(0, T0 + 4 * MS);
    assert_eq!(r.requests(), vec![(oid(10), UnknownCause::NotShown, false)]);
    // A second cancel meanwhile: refused, and cancel 21 stays unanswered.
    r.sent(3, 10, RequestKind::Cancel { cl_ord_id: 22 });
    let out = r.frame(&gone(3));
    assert_eq!(
        answers(&out),
        vec![(22, "Reject ExchangeReject 25204".to_owned())]
    );
    // The query shows the order cancelled: Canceled, answering cancel 21.
    r.t.on_exchange_state(
        T0 + 5 * MS,
        9,
        &state(
            vec![exchange_order(10, OrdStatus::Canceled)],
            StateSource::Resolution,
        ),
    );
    let out: Vec<_> = r.t.drain_reports().map(|x| x.msg).collect();
    assert_eq!(answers(&out), vec![(21, "Canceled".to_owned())]);
    assert_eq!(r.t.unresolved(), 0);
    // The watchdog has nothing left to flag, the late push nothing to add.
    r.t.on_tick(T0 + 10_000 * MS, 0);
    assert!(r.requests().is_empty());
    assert!(r.frame(&push(10, "cancelled")).is_empty());
    assert_eq!(r.t.stats().not_shown, 1);
}

/// Two cancels in flight: the Canceled push answers the oldest, the exchange's refusal of the
/// other answers it; neither is lost, nothing is answered twice.
#[test]
fn each_of_two_cancels_in_flight_gets_one_answer() {
    let mut r = Rig::new();
    r.sent(1, 10, new_kind(10));
    r.frame(&ack(1, 10));
    r.sent(2, 10, RequestKind::Cancel { cl_ord_id: 21 });
    r.sent(3, 10, RequestKind::Cancel { cl_ord_id: 22 });
    assert!(r.frame(&cancel_ok(2, 10)).is_empty());
    let out = r.frame(&push(10, "cancelled"));
    assert_eq!(answers(&out), vec![(21, "Canceled".to_owned())]);
    let out = r.frame(&gone(3));
    let [ReportMsg::CancelReject(c)] = out[..] else {
        panic!("{out:?}")
    };
    assert_eq!((c.cl_ord_id, c.ord_status), (22, OrdStatus::Canceled));
    // The order ended: no query for the refusal.
    r.t.on_tick(T0 + 10_000 * MS, 0);
    assert!(r.requests().is_empty());
    assert!(r
        .t
        .order(super::resolve_tests::S, 10)
        .unwrap()
        .pending_cancels
        .is_empty());
}

/// Cancel 22 goes unknown while cancel 21 is answered by the Canceled push: the resolution
/// answers 22 with TooLateToCancel, once.
#[test]
fn an_unknown_second_cancel_of_an_order_cancelled_by_the_first_is_too_late() {
    let mut r = Rig::new();
    r.sent(1, 10, new_kind(10));
    r.frame(&ack(1, 10));
    r.sent(2, 10, RequestKind::Cancel { cl_ord_id: 21 });
    r.sent(3, 10, RequestKind::Cancel { cl_ord_id: 22 });
    r.frame(&cancel_ok(2, 10));
    r.frame(r#"{"code":"40010","msg":"Request timed out","id":"3","event":"error"}"#);
    let out = r.frame(&push(10, "cancelled"));
    assert_eq!(answers(&out), vec![(21, "Canceled".to_owned())]);
    let out = r.resolve(&[(&oid(10), "cancelled")], &[]);
    assert_eq!(
        answers(&out),
        vec![(22, format!("Reject {:?} 0", CxlRejReason::TooLateToCancel))]
    );
    assert!(r.resolve(&[(&oid(10), "cancelled")], &[]).is_empty());
}

/// Found by the deterministic simulation (dst seed 1145): the first cancel's outcome is unknown
/// (`40010`, not applied), the second is accepted, then the Canceled push comes. The push is the
/// accepted cancel's: it answers 22; the resolution of 21 then finds the order ended and answers
/// it TooLateToCancel. Before the fix the push answered 21 (the oldest), 22's reply had already
/// come, and 22 was never answered.
#[test]
fn the_canceled_push_answers_the_accepted_cancel_not_an_older_unknown_one() {
    let mut r = Rig::new();
    r.sent(1, 10, new_kind(10));
    r.frame(&ack(1, 10));
    r.sent(2, 10, RequestKind::Cancel { cl_ord_id: 21 });
    r.frame(r#"{"code":"40010","msg":"Request timed out","id":"2","event":"error"}"#);
    r.sent(3, 10, RequestKind::Cancel { cl_ord_id: 22 });
    assert!(r.frame(&cancel_ok(3, 10)).is_empty());
    let out = r.frame(&push(10, "cancelled"));
    assert_eq!(answers(&out), vec![(22, "Canceled".to_owned())]);
    let out = r.resolve(&[(&oid(10), "cancelled")], &[]);
    assert_eq!(
        answers(&out),
        vec![(21, format!("Reject {:?} 0", CxlRejReason::TooLateToCancel))]
    );
    assert!(r.resolve(&[(&oid(10), "cancelled")], &[]).is_empty());
    assert!(r
        .t
        .order(super::resolve_tests::S, 10)
        .unwrap()
        .pending_cancels
        .is_empty());
}

/// A cancel answered "Order does not exist" for an order open here: if no push ends the order
/// within the push deadline it is queried; if one does, it is not.
#[test]
fn order_does_not_exist_without_a_push_queries_the_order_after_the_push_deadline() {
    let mut r = Rig::new();
    for (req, root) in [(1, 10), (2, 11)] {
        r.sent(req, root, new_kind(root));
        r.frame(&ack(req, root));
        r.frame(&push(root, "live"));
    }
    r.sent(3, 10, RequestKind::Cancel { cl_ord_id: 21 });
    r.sent(4, 11, RequestKind::Cancel { cl_ord_id: 31 });
    let at = T0 + 10 * MS;
    assert_eq!(answers(&r.frame_at(at, &gone(3))).len(), 1);
    assert_eq!(answers(&r.frame_at(at, &gone(4))).len(), 1);
    // Order 11's end is pushed in time; order 10 hears nothing.
    let out = r.frame_at(at + MS, &push(11, "cancelled"));
    assert_eq!(answers(&out), vec![(11, "Canceled".to_owned())]);
    r.t.on_tick(at + 2_999 * MS, 0);
    assert!(r.requests().is_empty());
    // The watchdog scans every tenth of the push deadline.
    r.t.on_tick(at + 3_300 * MS, 0);
    assert_eq!(r.requests(), vec![(oid(10), UnknownCause::NotShown, false)]);
    r.t.on_exchange_state(
        at + 3_400 * MS,
        9,
        &state(
            vec![exchange_order(10, OrdStatus::Canceled)],
            StateSource::Resolution,
        ),
    );
    let out: Vec<_> = r.t.drain_reports().map(|x| x.msg).collect();
    assert_eq!(answers(&out), vec![(10, "Canceled".to_owned())]);
    assert!(
        matches!(out[0], ReportMsg::Exec(er) if er.ord_status == OrdStatus::Canceled && er.exec_type == ExecType::Canceled)
    );
}

fn modify_ok(req_id: u64, cl: u64) -> String {
    cancel_ok(req_id, cl).replace("cancel-order", "modify-order")
}

/// A push of order 10 with `price`, `orderStatus` and `cumExecQty`.
fn push_at(price: &str, status: &str, cum: &str) -> String {
    push(10, status)
        .replace(r#""price":"100""#, &format!(r#""price":"{price}""#))
        .replace(r#""cumExecQty":"0""#, &format!(r#""cumExecQty":"{cum}""#))
}

fn replace_kind(cl: u64, price: &str) -> RequestKind {
    RequestKind::Replace {
        cl_ord_id: cl,
        price: Some(price.parse().unwrap()),
        qty: "1".parse().unwrap(),
    }
}

/// The soak's unanswered replace (reordered pushes): modify 21 and cancel 22 both accepted,
/// and the cancelled push, carrying the modify's price, comes before the modify's own push.
/// The modify was applied first: Replaced, then Canceled; the late push adds nothing.
#[test]
fn an_accepted_modify_shown_by_the_cancelled_push_is_replaced_then_canceled() {
    let mut r = Rig::new();
    r.sent(1, 10, new_kind(10));
    r.frame(&ack(1, 10));
    r.sent(2, 10, replace_kind(21, "101"));
    assert!(r.frame(&modify_ok(2, 10)).is_empty());
    r.sent(3, 10, RequestKind::Cancel { cl_ord_id: 22 });
    assert!(r.frame(&cancel_ok(3, 10)).is_empty());
    let out = r.frame(&push_at("101", "cancelled", "0"));
    assert_eq!(
        answers(&out),
        vec![(21, "Replaced".to_owned()), (22, "Canceled".to_owned())]
    );
    assert!(r.frame(&push_at("101", "live", "0")).is_empty());
    let o = r.t.order(super::resolve_tests::S, 10).unwrap();
    assert!(o.pending_replaces.is_empty() && o.pending_cancels.is_empty());
}

/// A modify accepted but never shown before the order filled: OrderCancelReject
/// TooLateToCancel after the Fill; a modify replied to after the end: the same, at its reply.
#[test]
fn a_modify_the_order_never_showed_before_it_ended_gets_too_late_to_cancel() {
    let mut r = Rig::new();
    r.sent(1, 10, new_kind(10));
    r.frame(&ack(1, 10));
    r.sent(2, 10, replace_kind(21, "101"));
    r.sent(3, 10, replace_kind(23, "102"));
    assert!(r.frame(&modify_ok(2, 10)).is_empty());
    let fill = r#"{"action":"snapshot","arg":{"instType":"UTA","topic":"fill"},"data":[{"category":"usdt-futures","orderId":"555","clientOid":"7:a","execId":"9001","symbol":"BTCUSDT","side":"buy","execPrice":"100","execQty":"1","execValue":"100","tradeScope":"taker","feeDetail":[],"createdTime":"5","updatedTime":"5"}],"ts":5}"#;
    assert_eq!(oid(10), "7:a");
    let out = r.frame(fill);
    assert_eq!(
        answers(&out),
        vec![
            (10, "Fill".to_owned()),
            (21, "Reject TooLateToCancel 0".to_owned())
        ]
    );
    let out = r.frame(&modify_ok(3, 10));
    assert_eq!(
        answers(&out),
        vec![(23, "Reject TooLateToCancel 0".to_owned())]
    );
    assert!(r.frame(&push_at("101", "filled", "1")).is_empty());
}

/// The sweep's unanswered modify: modifies 21 and 23 ask for the same price; 21 is shown and
/// reported Replaced, 23's outcome is unknown and the exchange's state, showing that price,
/// settles it. The values were 21's doing (the exchange refuses a modify to the values the
/// order already has, 25571): 23 gets OrderCancelReject NotApplied, once.
#[test]
fn a_modify_to_values_an_earlier_modify_set_is_not_applied() {
    let mut r = Rig::new();
    r.sent(1, 10, new_kind(10));
    r.frame(&ack(1, 10));
    r.sent(2, 10, replace_kind(21, "101"));
    r.sent(3, 10, replace_kind(23, "101"));
    r.frame(&modify_ok(2, 10));
    let out = r.frame(&push_at("101", "live", "0"));
    assert_eq!(answers(&out), vec![(21, "Replaced".to_owned())]);
    r.frame(r#"{"code":"40010","msg":"Request timed out","id":"3","event":"error"}"#);
    let mut shown = exchange_order(10, OrdStatus::New);
    shown.price = Some("101".parse().unwrap());
    r.t.on_exchange_state(
        T0 + 5 * MS,
        9,
        &state(vec![shown.clone()], StateSource::Resolution),
    );
    let out: Vec<_> = r.t.drain_reports().map(|x| x.msg).collect();
    assert_eq!(answers(&out), vec![(23, "Reject NotApplied 0".to_owned())]);
    r.t.on_exchange_state(T0 + 6 * MS, 9, &state(vec![shown], StateSource::Resolution));
    assert_eq!(r.t.drain_reports().count(), 0);
}
