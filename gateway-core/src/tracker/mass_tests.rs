//! Unit tests of the order of a mass cancel's reports (issue 15; sans-I/O: frames through the
//! real parser, times given as inputs): the OrderMassCancelReport comes after the terminal
//! report of every order the exchange's `batch-cancel` reply accepted, even though the reply
//! comes before the order pushes; a push that never comes releases it at the push deadline.

use codec::sbe::{
    ExecType, MassCancelRequestType, MassCancelResponse, OrdStatus, OrderMassCancelReport,
};

use super::core::ReportMsg;
use super::mass::MassCancelEvent;
use super::reconcile::{ExchangeState, StateSource};
use super::request::SentRequest;
use super::resolve::{Deadlines, UnknownCause};
use super::resolve_tests::{ack, exchange_order, new_kind, oid, push, Rig, MS, S, T0};
use crate::ids::ClientOid;

/// The requester's ClOrdID of the OrderMassCancelReport.
const MASS_CL: u64 = 99;
/// A second session of the same account (Account scope).
const OTHER: u64 = 8;

/// Places orders `cls` of session [`S`] (request id = ClOrdID): acknowledged, then pushed
/// `live`.
fn open(r: &mut Rig, cls: &[u64]) {
    for &cl in cls {
        r.sent(cl, cl, new_kind(cl));
        let out = r.frame(&ack(cl, cl));
        assert!(matches!(&out[..], [ReportMsg::Exec(er)] if er.exec_type == ExecType::New));
        assert!(r.frame(&push(cl, "live")).is_empty());
    }
}

/// Starts mass cancel 1 of [`S`] with one chunk, request id 50.
fn start(r: &mut Rig, cl_ord_id: u64, request_type: MassCancelRequestType) {
    r.t.on_mass_cancel(
        MassCancelEvent::Start {
            mass_id: 1,
            session_id: S,
            cl_ord_id,
            request_type,
            chunks: 1,
        },
        5,
    );
    r.t.on_mass_cancel(
        MassCancelEvent::Chunk {
            mass_id: 1,
            req_id: 50,
        },
        5,
    );
    assert_eq!(r.t.drain_reports().count(), 0);
}

/// The `batch-cancel` reply to request 50: `(clientOid, code)` per item.
fn reply(items: &[(String, u32)]) -> String {
    let args: Vec<String> = items
        .iter()
        .map(|(oid, code)| {
            let msg = if *code == 0 {
                "Success"
            } else {
                "Order does not exist"
            };
            format!(r#"{{"code":"{code}","msg":"{msg}","orderId":"555","clientOid":"{oid}"}}"#)
        })
        .collect();
    format!(
        r#"{{"event":"trade","id":"50","topic":"batch-cancel","args":[{}],"code":"0","msg":"Success","ts":"1"}}"#,
        args.join(",")
    )
}

/// An order push of (`session`, `cl`), qty 1, `cum` executed.
fn push_of(session: u64, cl: u64, status: &str, cum: &str) -> String {
    format!(
        r#"{{"action":"snapshot","arg":{{"instType":"UTA","topic":"order"}},"data":[{{"category":"usdt-futures","symbol":"BTCUSDT","orderId":"555","clientOid":"{}","price":"100","qty":"1","orderType":"limit","timeInForce":"gtc","side":"buy","cumExecQty":"{cum}","cumExecValue":"0","avgPrice":"0","orderStatus":"{status}","cancelReason":"","feeDetail":[],"createdTime":"1","updatedTime":"2"}}],"ts":3}}"#,
        ClientOid::new(session, cl).as_str()
    )
}

/// A fill of order `cl` of [`S`].
fn fill(cl: u64, exec_id: u64, qty: &str) -> String {
    format!(
        r#"{{"action":"snapshot","arg":{{"instType":"UTA","topic":"fill"}},"data":[{{"orderId":"555","clientOid":"{}","execId":"{exec_id}","category":"USDT-FUTURES","symbol":"BTCUSDT","orderType":"limit","side":"buy","execQty":"{qty}","execValue":"0","execPrice":"100","execPnl":"0","tradeScope":"maker","feeDetail":[],"execTime":"4","updatedTime":"4"}}],"ts":4}}"#,
        oid(cl)
    )
}

/// What a list of reports is, in order: `("Canceled", cl)`, `("Fill", cl)`, ... and
/// `("MassCancelReport", cl)`.
fn kinds(msgs: &[ReportMsg]) -> Vec<(&'static str, u64)> {
    msgs.iter()
        .map(|m| match m {
            ReportMsg::Exec(er) => (
                match er.exec_type {
                    ExecType::Canceled => "Canceled",
                    ExecType::Fill => "Fill",
                    ExecType::PartialFill => "PartialFill",
                    ExecType::New => "New",
                    _ => "other",
                },
                er.cl_ord_id,
            ),
            ReportMsg::CancelReject(r) => ("CancelReject", r.cl_ord_id),
            ReportMsg::MassCancel(r) => ("MassCancelReport", r.cl_ord_id),
        })
        .collect()
}

fn mass_report(m: &ReportMsg) -> OrderMassCancelReport {
    match m {
        ReportMsg::MassCancel(r) => *r,
        other => panic!("expected OrderMassCancelReport, got {other:?}"),
    }
}

#[test]
fn the_report_follows_the_canceled_reports_of_the_orders_the_reply_accepted() {
    let mut r = Rig::new();
    open(&mut r, &[1, 2, 3, 4]);
    start(&mut r, MASS_CL, MassCancelRequestType::Session);
    // Order 4's push overtakes the reply: reported at once, not awaited.
    assert_eq!(kinds(&r.frame(&push(4, "cancelled"))), [("Canceled", 4)]);
    // The reply before the pushes: 1, 2 and 4 cancelled, 3 refused (not affected).
    let out = r.frame(&reply(&[
        (oid(1), 0),
        (oid(2), 0),
        (oid(3), 25204),
        (oid(4), 0),
    ]));
    assert!(out.is_empty(), "the report waits for 1 and 2: {out:?}");
    assert_eq!(r.t.mass_cancels_pending(), (1, 2));
    assert_eq!(kinds(&r.frame(&push(1, "cancelled"))), [("Canceled", 1)]);
    let out = r.frame(&push(2, "cancelled"));
    assert_eq!(
        kinds(&out),
        [("Canceled", 2), ("MassCancelReport", MASS_CL)]
    );
    let report = mass_report(&out[1]);
    assert_eq!(report.total_affected_orders, 3);
    assert_eq!(report.exchange_code, 25204);
    assert_eq!(report.mass_cancel_response, MassCancelResponse::Session);
    assert_eq!(r.t.mass_cancels_pending(), (0, 0));
    // Nothing more: no second report, order 3 stays open.
    assert!(r.frame(&push(1, "cancelled")).is_empty());
    assert_eq!(r.t.order(S, 3).unwrap().status, OrdStatus::New);
    assert_eq!(r.t.stats().watchdog_ack_without_push, 0);
}

#[test]
fn a_fill_that_wins_the_race_or_a_canceled_held_for_its_fills_comes_before_the_report() {
    let mut r = Rig::new();
    open(&mut r, &[1, 2]);
    start(&mut r, MASS_CL, MassCancelRequestType::Session);
    assert!(r.frame(&reply(&[(oid(1), 0), (oid(2), 0)])).is_empty());
    // Order 1 cancelled with 0.5 executed: its Canceled waits for that fill.
    assert!(r.frame(&push_of(S, 1, "cancelled", "0.5")).is_empty());
    // Order 2 filled before the cancel took effect: Fill ends it.
    assert_eq!(kinds(&r.frame(&fill(2, 71, "1"))), [("Fill", 2)]);
    assert_eq!(
        kinds(&r.frame(&fill(1, 72, "0.5"))),
        [
            ("PartialFill", 1),
            ("Canceled", 1),
            ("MassCancelReport", MASS_CL)
        ]
    );
}

#[test]
fn in_account_scope_the_report_also_follows_other_sessions_canceled_reports() {
    let mut r = Rig::new();
    r.t.on_session_opened(OTHER, 0);
    open(&mut r, &[1]);
    r.t.on_sent(SentRequest {
        req_id: 2,
        session_id: OTHER,
        root: 1,
        kind: new_kind(1),
        t_read_ns: T0,
        t_written_ns: T0,
    });
    let theirs = ClientOid::new(OTHER, 1).as_str().to_owned();
    assert_eq!(r.frame(&ack(2, 1).replace(&oid(1), &theirs)).len(), 1);
    start(&mut r, MASS_CL, MassCancelRequestType::Account);
    assert!(r.frame(&reply(&[(oid(1), 0), (theirs, 0)])).is_empty());
    assert_eq!(kinds(&r.frame(&push(1, "cancelled"))), [("Canceled", 1)]);
    // The other session's order ends last: its Canceled goes to it, then the report to the
    // requester.
    let mut p = codec::json::JsonParser::new();
    let json = push_of(OTHER, 1, "cancelled", "0");
    r.t.on_inbound(T0 + 2 * MS, 5, &p.parse(json.as_bytes()).unwrap());
    let out: Vec<(u64, Vec<(&str, u64)>)> =
        r.t.drain_reports()
            .map(|rep| (rep.session_id, kinds(&[rep.msg])))
            .collect();
    assert_eq!(
        out,
        [
            (OTHER, vec![("Canceled", 1)]),
            (S, vec![("MassCancelReport", MASS_CL)])
        ]
    );
}

#[test]
fn a_lost_push_releases_the_report_at_the_push_deadline_and_the_order_is_queried() {
    let mut r = Rig::new();
    r.t.set_deadlines(Deadlines {
        reply_timeout_ms: 600,
        push_deadline_ms: 300,
    });
    open(&mut r, &[1, 2]);
    start(&mut r, MASS_CL, MassCancelRequestType::Session);
    let t_reply = T0 + 10 * MS;
    assert!(r
        .frame_at(t_reply, &reply(&[(oid(1), 0), (oid(2), 0)]))
        .is_empty());
    assert_eq!(
        kinds(&r.frame_at(t_reply + MS, &push(1, "cancelled"))),
        [("Canceled", 1)]
    );
    // Order 2's push never comes. Before the deadline: nothing.
    r.t.on_tick(t_reply + 200 * MS, 9);
    assert_eq!(r.t.drain_reports().count(), 0);
    assert!(r.requests().is_empty());
    // At the deadline: the report goes out, order 2 is flagged and queried.
    r.t.on_tick(t_reply + 300 * MS, 9);
    let out: Vec<ReportMsg> = r.t.drain_reports().map(|x| x.msg).collect();
    assert_eq!(kinds(&out), [("MassCancelReport", MASS_CL)]);
    assert_eq!(mass_report(&out[0]).total_affected_orders, 2);
    assert_eq!(r.t.mass_cancels_pending(), (0, 0));
    assert_eq!(r.t.stats().watchdog_ack_without_push, 1);
    assert_eq!(
        r.requests(),
        [(oid(2), UnknownCause::AckWithoutPush, false)]
    );
    assert_eq!(r.t.unresolved(), 1);
    // The exchange's state ends it (after the report), once.
    let state = ExchangeState {
        account: 0,
        orders: vec![exchange_order(2, OrdStatus::Canceled)],
        source: StateSource::Resolution,
        ..ExchangeState::default()
    };
    r.t.on_exchange_state(t_reply + 400 * MS, 9, &state);
    let out: Vec<ReportMsg> = r.t.drain_reports().map(|x| x.msg).collect();
    assert_eq!(kinds(&out), [("Canceled", 2)]);
    assert_eq!(r.t.unresolved(), 0);
    // A late push changes nothing; later ticks flag nothing more.
    assert!(r
        .frame_at(t_reply + 500 * MS, &push(2, "cancelled"))
        .is_empty());
    r.t.on_tick(t_reply + 900 * MS, 9);
    assert_eq!(r.t.drain_reports().count(), 0);
    assert_eq!(r.t.stats().watchdog_ack_without_push, 1);
}

#[test]
fn cancel_on_disconnect_takes_the_same_path_and_answers_nothing() {
    // ClOrdID 0, scope Session: the same bookkeeping; its orders' Canceled reports, and no
    // OrderMassCancelReport (it would answer no request: liveness gap 2 of issue 25, found by
    // the deterministic simulation as "answer to no request: OrderMassCancelReport ClOrdID 0").
    let mut r = Rig::new();
    open(&mut r, &[1]);
    start(&mut r, 0, MassCancelRequestType::Session);
    assert!(r.frame(&reply(&[(oid(1), 0)])).is_empty());
    assert_eq!(kinds(&r.frame(&push(1, "cancelled"))), [("Canceled", 1)]);
    assert_eq!(r.t.mass_cancels_pending(), (0, 0));
}
