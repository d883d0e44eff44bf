//! Unit tests of the tracker core, fed with Bitget-shaped JSON frames through the real parser.

use codec::json::JsonParser;
use codec::sbe::{
    Category, CxlRejReason, CxlRejResponseTo, ExecType, OrdRejReason, OrdStatus, OrdType, Side,
    Symbol, TimeInForce,
};
use codec::Decimal;

use super::core::{ReportMsg, Tracker};
use super::request::{NewOrder, RequestKind, SentRequest};
use crate::ids::ClientOid;

const S: u64 = 7;

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

struct Rig {
    t: Tracker,
    p: JsonParser,
}

impl Rig {
    fn new() -> Self {
        Rig {
            t: Tracker::new(),
            p: JsonParser::new(),
        }
    }

    fn new_order(&mut self, req_id: u64, cl: u64, tif: TimeInForce, price: &str, qty: &str) {
        self.t.on_sent(SentRequest {
            req_id,
            session_id: S,
            root: cl,
            kind: RequestKind::New(NewOrder {
                cl_ord_id: cl,
                category: Category::UsdtFutures,
                symbol: Symbol::new("BTCUSDT").unwrap(),
                side: Side::Buy,
                ord_type: OrdType::Limit,
                time_in_force: tif,
                price: Some(d(price)),
                qty: d(qty),
            }),
            t_read_ns: 100,
            t_written_ns: 200,
        });
    }

    fn sent(&mut self, req_id: u64, root: u64, kind: RequestKind) {
        self.t.on_sent(SentRequest {
            req_id,
            session_id: S,
            root,
            kind,
            t_read_ns: 100,
            t_written_ns: 200,
        });
    }

    fn frame(&mut self, json: &str) -> Vec<ReportMsg> {
        let inbound = self.p.parse(json.as_bytes()).unwrap();
        self.t.on_inbound(1_000, 5, &inbound);
        self.t.drain_reports().map(|r| r.msg).collect()
    }
}

fn oid(cl: u64) -> String {
    ClientOid::new(S, cl).as_str().to_string()
}

fn ack(req_id: u64, cl: u64, order_id: &str) -> String {
    format!(
        r#"{{"event":"trade","id":"{req_id}","category":"usdt-futures","topic":"place-order","args":[{{"symbol":"BTCUSDT","orderId":"{order_id}","clientOid":"{}","cTime":"1"}}],"code":"0","msg":"Success","ts":"1"}}"#,
        oid(cl)
    )
}

fn order_push(
    cl: u64,
    order_id: &str,
    status: &str,
    price: &str,
    qty: &str,
    cum: &str,
    reason: &str,
) -> String {
    format!(
        r#"{{"action":"snapshot","arg":{{"instType":"UTA","topic":"order"}},"data":[{{"category":"usdt-futures","symbol":"BTCUSDT","orderId":"{order_id}","clientOid":"{}","price":"{price}","qty":"{qty}","orderType":"limit","timeInForce":"gtc","side":"buy","cumExecQty":"{cum}","cumExecValue":"0","avgPrice":"0","orderStatus":"{status}","cancelReason":"{reason}","feeDetail":[],"createdTime":"1","updatedTime":"2"}}],"ts":3}}"#,
        oid(cl)
    )
}

fn fill(cl: u64, order_id: &str, exec_id: &str, px: &str, qty: &str) -> String {
    format!(
        r#"{{"action":"snapshot","arg":{{"instType":"UTA","topic":"fill"}},"data":[{{"orderId":"{order_id}","clientOid":"{}","execId":"{exec_id}","category":"USDT-FUTURES","symbol":"BTCUSDT","orderType":"limit","side":"buy","execQty":"{qty}","execValue":"0","execPrice":"{px}","execPnl":"0","tradeScope":"taker","feeDetail":[{{"feeCoin":"USDT","fee":"0.01"}}],"execTime":"4","updatedTime":"4"}}],"ts":4}}"#,
        oid(cl)
    )
}

fn exec(m: &ReportMsg) -> &codec::sbe::ExecutionReport {
    match m {
        ReportMsg::Exec(er) => er,
        other => panic!("expected ExecutionReport, got {other:?}"),
    }
}

#[test]
fn ack_then_live_push_gives_one_new() {
    let mut r = Rig::new();
    r.new_order(1, 10, TimeInForce::Gtc, "100", "2");
    let out = r.frame(&ack(1, 10, "555"));
    assert_eq!(out.len(), 1);
    let er = exec(&out[0]);
    assert_eq!(
        (er.exec_type, er.ord_status, er.order_id, er.cl_ord_id),
        (ExecType::New, OrdStatus::New, 555, 10)
    );
    assert_eq!(er.leaves_qty, d("2"));
    assert!(r
        .frame(&order_push(10, "555", "live", "100", "2", "0", ""))
        .is_empty());
    assert_eq!(r.t.in_flight(), 0);
}

#[test]
fn push_before_reply_gives_one_new_and_the_late_ack_nothing() {
    let mut r = Rig::new();
    r.new_order(1, 10, TimeInForce::Gtc, "100", "2");
    let out = r.frame(&order_push(10, "555", "live", "100", "2", "0", ""));
    assert_eq!(exec(&out[0]).exec_type, ExecType::New);
    assert_eq!(exec(&out[0]).order_id, 555);
    assert!(r.frame(&ack(1, 10, "555")).is_empty());
}

#[test]
fn fills_are_counted_once_and_average_exactly() {
    let mut r = Rig::new();
    r.new_order(1, 10, TimeInForce::Gtc, "101", "3");
    r.frame(&ack(1, 10, "555"));
    let out = r.frame(&fill(10, "555", "9001", "100", "1"));
    let er = exec(&out[0]);
    assert_eq!(
        (er.exec_type, er.ord_status),
        (ExecType::PartialFill, OrdStatus::PartiallyFilled)
    );
    assert_eq!(
        (er.last_qty, er.last_px, er.exec_id),
        (Some(d("1")), Some(d("100")), 9001)
    );
    assert_eq!(
        (er.cum_qty, er.leaves_qty, er.avg_px),
        (d("1"), d("2"), Some(d("100")))
    );
    // The same execId again (duplicated push) is ignored.
    assert!(r.frame(&fill(10, "555", "9001", "100", "1")).is_empty());
    assert_eq!(r.t.stats().duplicate_fills, 1);
    let out = r.frame(&fill(10, "555", "9002", "101", "2"));
    let er = exec(&out[0]);
    assert_eq!(
        (er.exec_type, er.ord_status),
        (ExecType::Fill, OrdStatus::Filled)
    );
    assert_eq!((er.cum_qty, er.leaves_qty), (d("3"), d("0")));
    // (100×1 + 101×2) / 3 = 100.666…, half-even at 10 digits.
    assert_eq!(er.avg_px, Some(d("100.6666666667")));
    // The filled push afterwards adds nothing.
    assert!(r
        .frame(&order_push(10, "555", "filled", "101", "3", "3", ""))
        .is_empty());
}

#[test]
fn fill_before_ack_gives_new_first() {
    let mut r = Rig::new();
    r.new_order(1, 10, TimeInForce::Ioc, "100", "1");
    let out = r.frame(&fill(10, "555", "1", "100", "1"));
    assert_eq!(out.len(), 2);
    assert_eq!(exec(&out[0]).exec_type, ExecType::New);
    assert_eq!(exec(&out[1]).exec_type, ExecType::Fill);
    assert!(r.frame(&ack(1, 10, "555")).is_empty());
}

#[test]
fn cancelled_push_waits_for_the_fills_it_counted() {
    let mut r = Rig::new();
    r.new_order(1, 10, TimeInForce::Ioc, "100", "3");
    r.frame(&ack(1, 10, "555"));
    // The exchange says cancelled with 1 filled, before the fill push arrives.
    assert!(r
        .frame(&order_push(
            10,
            "555",
            "cancelled",
            "100",
            "3",
            "1",
            "ioc_not_full_cancel"
        ))
        .is_empty());
    let out = r.frame(&fill(10, "555", "7", "100", "1"));
    assert_eq!(out.len(), 2);
    assert_eq!(exec(&out[0]).exec_type, ExecType::PartialFill);
    let c = exec(&out[1]);
    assert_eq!(
        (c.exec_type, c.ord_status),
        (ExecType::Canceled, OrdStatus::Canceled)
    );
    assert_eq!((c.cum_qty, c.leaves_qty), (d("1"), d("0")));
    assert_eq!(c.text.as_str(), "ioc_not_full_cancel");
    // Nothing after the end.
    assert!(r.frame(&fill(10, "555", "8", "100", "1")).is_empty());
}

#[test]
fn refused_place_order_is_rejected_with_the_exchange_code() {
    let mut r = Rig::new();
    r.new_order(1, 10, TimeInForce::Gtc, "100", "1");
    let out = r.frame(r#"{"event":"error","id":"1","code":"25203","msg":"Insufficient margin"}"#);
    let er = exec(&out[0]);
    assert_eq!(
        (er.exec_type, er.ord_status),
        (ExecType::Rejected, OrdStatus::Rejected)
    );
    assert_eq!(er.ord_rej_reason, Some(OrdRejReason::ExchangeReject));
    assert_eq!(er.exchange_code, 25203);
    assert_eq!(er.text.as_str(), "Insufficient margin");
}

#[test]
fn outcome_unknown_is_not_reported_as_rejected() {
    let mut r = Rig::new();
    r.new_order(1, 10, TimeInForce::Gtc, "100", "1");
    assert!(r
        .frame(r#"{"code":"40010","msg":"Request timed out","id":"1","event":"error"}"#)
        .is_empty());
    assert_eq!(r.t.stats().outcome_unknown, 1);
    // The order channel still tells the outcome.
    let out = r.frame(&order_push(10, "555", "live", "100", "1", "0", ""));
    assert_eq!(exec(&out[0]).exec_type, ExecType::New);
}

#[test]
fn replace_takes_effect_when_the_order_channel_shows_it() {
    let mut r = Rig::new();
    r.new_order(1, 10, TimeInForce::Gtc, "100", "1");
    r.frame(&ack(1, 10, "555"));
    r.sent(
        2,
        10,
        RequestKind::Replace {
            cl_ord_id: 11,
            price: Some(d("99.5")),
            qty: d("2"),
        },
    );
    assert!(r.frame(r#"{"event":"trade","id":"2","topic":"modify-order","args":[{"orderId":"555","clientOid":"x"}],"code":"0","msg":"Success"}"#).is_empty());
    let out = r.frame(&order_push(10, "555", "live", "99.5", "2", "0", ""));
    let er = exec(&out[0]);
    assert_eq!(
        (er.exec_type, er.cl_ord_id, er.orig_cl_ord_id),
        (ExecType::Replaced, 11, 10)
    );
    assert_eq!(
        (er.price, er.order_qty, er.leaves_qty),
        (Some(d("99.5")), d("2"), d("2"))
    );
    // A cancel naming the new ClOrdID then cancels the same order.
    r.sent(3, 10, RequestKind::Cancel { cl_ord_id: 12 });
    let out = r.frame(&order_push(
        10,
        "555",
        "cancelled",
        "99.5",
        "2",
        "0",
        "normal_cancel",
    ));
    let er = exec(&out[0]);
    assert_eq!(
        (er.exec_type, er.cl_ord_id, er.orig_cl_ord_id),
        (ExecType::Canceled, 12, 11)
    );
}

#[test]
fn refused_modify_and_cancel_give_cancel_rejects() {
    let mut r = Rig::new();
    r.new_order(1, 10, TimeInForce::Gtc, "100", "1");
    r.frame(&ack(1, 10, "555"));
    r.sent(
        2,
        10,
        RequestKind::Replace {
            cl_ord_id: 11,
            price: Some(d("100")),
            qty: d("1"),
        },
    );
    let out =
        r.frame(r#"{"event":"error","id":"2","code":"25571","msg":"same as the original value"}"#);
    match &out[0] {
        ReportMsg::CancelReject(c) => {
            assert_eq!((c.cl_ord_id, c.orig_cl_ord_id, c.order_id), (11, 10, 555));
            assert_eq!(
                c.cxl_rej_response_to,
                CxlRejResponseTo::OrderCancelReplaceRequest
            );
            assert_eq!((c.exchange_code, c.ord_status), (25571, OrdStatus::New));
        }
        other => panic!("{other:?}"),
    }
    r.frame(&fill(10, "555", "1", "100", "1"));
    r.sent(3, 10, RequestKind::Cancel { cl_ord_id: 12 });
    let out = r.frame(r#"{"event":"error","id":"3","code":"25204","msg":"Order does not exist"}"#);
    match &out[0] {
        ReportMsg::CancelReject(c) => {
            assert_eq!((c.cl_ord_id, c.orig_cl_ord_id), (12, 10));
            assert_eq!(c.cxl_rej_response_to, CxlRejResponseTo::OrderCancelRequest);
            assert_eq!(
                (c.exchange_code, c.ord_status, c.cxl_rej_reason),
                (25204, OrdStatus::Filled, CxlRejReason::TooLateToCancel)
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn foreign_pushes_and_unknown_replies_are_counted_not_reported() {
    let mut r = Rig::new();
    assert!(r
        .frame(&order_push(10, "555", "live", "100", "1", "0", ""))
        .is_empty());
    let foreign = r#"{"action":"snapshot","arg":{"instType":"UTA","topic":"order"},"data":[{"category":"spot","symbol":"ETHUSDT","orderId":"1","clientOid":"TQACZE92YDQAAQAAAAAA","price":"1","qty":"1","orderType":"limit","side":"buy","cumExecQty":"0","cumExecValue":"0","avgPrice":"0","orderStatus":"live","cancelReason":"","createdTime":"1","updatedTime":"1"}],"ts":1}"#;
    assert!(r.frame(foreign).is_empty());
    assert!(r.frame(&ack(42, 10, "1")).is_empty());
    let s = r.t.stats();
    assert_eq!((s.unknown_pushes, s.unknown_replies), (2, 1));
}
