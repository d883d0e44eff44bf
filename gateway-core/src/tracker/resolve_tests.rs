//! Unit tests of unknown outcomes and the watchdog (sans-I/O: frames through the real parser,
//! times given as inputs).

use codec::json::JsonParser;
use codec::sbe::{
    Category, CxlRejReason, ExecType, OrdRejReason, OrdStatus, OrdType, Side, Symbol, TimeInForce,
};

use super::core::{ReportMsg, Tracker};
use super::request::{BatchItem, NewOrder, RequestKind, SentBatch, SentRequest};
use super::resolve::{Deadlines, ExchangeView, UnknownCause, NOT_APPLIED_TEXT};
use crate::ids::ClientOid;

pub(super) const S: u64 = 7;
pub(super) const MS: u64 = 1_000_000;
pub(super) const T0: u64 = 1_000 * MS;

pub(super) fn new_kind(cl: u64) -> RequestKind {
    RequestKind::New(NewOrder {
        cl_ord_id: cl,
        category: Category::UsdtFutures,
        symbol: Symbol::new("BTCUSDT").unwrap(),
        side: Side::Buy,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::Gtc,
        price: Some("100".parse().unwrap()),
        qty: "1".parse().unwrap(),
    })
}

pub(super) struct Rig {
    pub(super) t: Tracker,
    p: JsonParser,
}

impl Rig {
    pub(super) fn new() -> Self {
        let mut t = Tracker::new();
        t.on_session_opened(S, 0);
        t.set_deadlines(Deadlines {
            reply_timeout_ms: 5_000,
            push_deadline_ms: 3_000,
        });
        Rig {
            t,
            p: JsonParser::new(),
        }
    }

    pub(super) fn sent(&mut self, req_id: u64, root: u64, kind: RequestKind) {
        self.t.on_sent(SentRequest {
            req_id,
            session_id: S,
            root,
            kind,
            t_read_ns: T0,
            t_written_ns: T0,
        });
    }

    pub(super) fn frame_at(&mut self, t: u64, json: &str) -> Vec<ReportMsg> {
        let inbound = self.p.parse(json.as_bytes()).unwrap();
        self.t.on_inbound(t, 5, &inbound);
        self.t.drain_reports().map(|r| r.msg).collect()
    }

    pub(super) fn frame(&mut self, json: &str) -> Vec<ReportMsg> {
        self.frame_at(T0 + MS, json)
    }

    pub(super) fn requests(&mut self) -> Vec<(String, UnknownCause, bool)> {
        self.t
            .drain_resolve_requests()
            .map(|r| (r.client_oid.as_str().to_owned(), r.cause, r.place))
            .collect()
    }

    pub(super) fn resolve(&mut self, found: &[(&str, &str)], not_found: &[&str]) -> Vec<ReportMsg> {
        let view = |status: &str| ExchangeView {
            status: match status {
                "cancelled" => OrdStatus::Canceled,
                "filled" => OrdStatus::Filled,
                _ => OrdStatus::New,
            },
            price: Some("100".parse().unwrap()),
            qty: "1".parse().unwrap(),
        };
        self.t.resolve_after_state(
            found.iter().map(|(oid, status)| (*oid, view(status))),
            not_found.iter().copied(),
            9,
        );
        self.t.drain_reports().map(|r| r.msg).collect()
    }
}

pub(super) fn oid(cl: u64) -> String {
    ClientOid::new(S, cl).as_str().to_owned()
}

pub(super) fn ack(req_id: u64, cl: u64) -> String {
    format!(
        r#"{{"event":"trade","id":"{req_id}","category":"usdt-futures","topic":"place-order","args":[{{"symbol":"BTCUSDT","orderId":"555","clientOid":"{}","cTime":"1"}}],"code":"0","msg":"Success","ts":"1"}}"#,
        oid(cl)
    )
}

fn unknown(req_id: u64) -> String {
    format!(r#"{{"code":"40010","msg":"Request timed out","id":"{req_id}","event":"error"}}"#)
}

pub(super) fn push(cl: u64, status: &str) -> String {
    format!(
        r#"{{"action":"snapshot","arg":{{"instType":"UTA","topic":"order"}},"data":[{{"category":"usdt-futures","symbol":"BTCUSDT","orderId":"555","clientOid":"{}","price":"100","qty":"1","orderType":"limit","timeInForce":"gtc","side":"buy","cumExecQty":"0","cumExecValue":"0","avgPrice":"0","orderStatus":"{status}","cancelReason":"","feeDetail":[],"createdTime":"1","updatedTime":"2"}}],"ts":3}}"#,
        oid(cl)
    )
}

#[test]
fn unknown_code_queues_a_resolution_and_not_found_rejects_once() {
    let mut r = Rig::new();
    r.sent(1, 10, new_kind(10));
    assert!(r.frame(&unknown(1)).is_empty());
    assert_eq!(
        r.requests(),
        vec![(oid(10), UnknownCause::Code(40010), true)]
    );
    assert_eq!(r.t.stats().outcome_unknown, 1);
    assert_eq!(r.t.unresolved(), 1);
    let out = r.resolve(&[], &[&oid(10)]);
    assert_eq!(out.len(), 1);
    let ReportMsg::Exec(er) = out[0] else {
        panic!("{out:?}")
    };
    assert_eq!(
        (er.exec_type, er.ord_status, er.ord_rej_reason),
        (
            ExecType::Rejected,
            OrdStatus::Rejected,
            Some(OrdRejReason::NotApplied)
        )
    );
    assert_eq!(er.text.as_str(), NOT_APPLIED_TEXT);
    assert!(
        r.resolve(&[], &[&oid(10)]).is_empty(),
        "reported exactly once"
    );
    assert_eq!(r.t.stats().resolved_not_applied, 1);
    assert_eq!(r.t.unresolved(), 0);
}

/// Issue 10 invariant: nothing is reported after a terminal report. A place answered after a
/// resolution rejected it (not found twice) reports nothing, accepted or refused.
#[test]
fn a_late_answer_to_a_place_rejected_by_resolution_reports_nothing() {
    let mut r = Rig::new();
    r.sent(1, 10, new_kind(10));
    r.frame(&unknown(1));
    assert_eq!(r.resolve(&[], &[&oid(10)]).len(), 1);
    for code in [0, 43_012] {
        let got =
            r.t.apply_reply(T0, 9, S, 10, new_kind(10), code, "late", "555");
        assert_eq!(got, Some(555));
        assert!(
            r.t.drain_reports().next().is_none(),
            "code {code}: reported after Rejected"
        );
    }
    assert!(r.frame(&push(10, "live")).is_empty());
    assert_eq!(r.t.stats().execution_reports, 1);
}

#[test]
fn applied_place_gives_new_once() {
    let mut r = Rig::new();
    r.sent(1, 10, new_kind(10));
    r.frame(&unknown(1));
    // The exchange's state, applied as a push, gives the New …
    let out = r.frame(&push(10, "live"));
    assert!(matches!(out[..], [ReportMsg::Exec(er)] if er.exec_type == ExecType::New));
    // … and the resolution adds nothing.
    assert!(r.resolve(&[(&oid(10), "live")], &[]).is_empty());
    // A stale "not found" afterwards does not reject an order the exchange showed.
    assert!(r.resolve(&[], &[&oid(10)]).is_empty());
    assert_eq!(r.t.stats().resolved_applied, 1);
}

#[test]
fn no_reply_within_the_timeout_is_an_unknown_outcome() {
    let mut r = Rig::new();
    r.sent(1, 10, new_kind(10));
    r.t.on_tick(T0 + 4_999 * MS, 0);
    assert!(r.requests().is_empty());
    // Scans run at most every tenth of the push deadline (300 ms here).
    r.t.on_tick(T0 + 5_300 * MS, 0);
    assert_eq!(
        r.requests(),
        vec![(oid(10), UnknownCause::ReplyTimeout, true)]
    );
    assert_eq!(r.t.in_flight(), 0);
    // The late reply is not applied twice.
    assert!(r.frame(&ack(1, 10)).is_empty());
    assert_eq!(r.t.stats().unknown_replies, 1);
}

#[test]
fn link_down_makes_requests_in_flight_unknown_and_waits_for_link_up() {
    let mut r = Rig::new();
    r.sent(1, 10, new_kind(10));
    r.sent(2, 11, new_kind(11));
    r.frame(&ack(2, 11));
    r.t.on_link_down(1, T0);
    assert_eq!(r.t.in_flight(), 1, "another account's link");
    r.t.on_link_down(0, T0);
    assert_eq!(r.t.in_flight(), 0);
    assert!(r.requests().is_empty(), "held while the link is down");
    r.t.on_link_up(0, T0);
    assert_eq!(r.requests(), vec![(oid(10), UnknownCause::LinkDown, true)]);
    assert_eq!(r.t.stats().outcome_unknown, 1);
}

#[test]
fn watchdog_flags_a_reply_without_push() {
    let mut r = Rig::new();
    r.sent(1, 10, new_kind(10));
    r.sent(2, 11, new_kind(11));
    r.frame(&ack(1, 10));
    r.frame(&ack(2, 11));
    r.frame(&push(11, "live"));
    r.t.on_tick(T0 + 2_000 * MS, 0);
    assert!(r.requests().is_empty());
    r.t.on_tick(T0 + 3_001 * MS, 0);
    assert_eq!(
        r.requests(),
        vec![(oid(10), UnknownCause::AckWithoutPush, true)]
    );
    assert_eq!(r.t.stats().watchdog_ack_without_push, 1);
    r.t.on_tick(T0 + 10_000 * MS, 0);
    assert!(r.requests().is_empty(), "flagged once");
    // Applied (it got its New from the ACK): nothing more to report.
    assert!(r.resolve(&[(&oid(10), "live")], &[]).is_empty());
    assert_eq!(r.t.stats().resolved_applied, 1);
}

#[test]
fn watchdog_flags_a_push_without_reply() {
    let mut r = Rig::new();
    r.sent(1, 10, new_kind(10));
    let out = r.frame(&push(10, "live"));
    assert_eq!(out.len(), 1);
    r.t.on_tick(T0 + 3_000 * MS, 0);
    assert_eq!(
        r.requests(),
        vec![(oid(10), UnknownCause::PushWithoutReply, true)]
    );
    assert_eq!(r.t.stats().watchdog_push_without_reply, 1);
    assert_eq!(r.t.stats().outcome_unknown, 0);
}

#[test]
fn cancel_with_unknown_outcome_resolves_either_way_exactly_once() {
    let mut r = Rig::new();
    r.sent(1, 10, new_kind(10));
    r.frame(&ack(1, 10));
    // Not applied: the order is still live.
    r.sent(2, 10, RequestKind::Cancel { cl_ord_id: 20 });
    r.frame(&unknown(2));
    assert_eq!(r.requests().len(), 1);
    r.frame(&push(10, "live"));
    let out = r.resolve(&[(&oid(10), "live")], &[]);
    let [ReportMsg::CancelReject(c)] = out[..] else {
        panic!("{out:?}")
    };
    assert_eq!(
        (c.cl_ord_id, c.cxl_rej_reason),
        (20, CxlRejReason::NotApplied)
    );
    assert_eq!(c.text.as_str(), NOT_APPLIED_TEXT);
    // Applied: the query shows it cancelled before the order update is applied; the
    // Canceled comes once, with the update.
    r.sent(3, 10, RequestKind::Cancel { cl_ord_id: 21 });
    r.frame(&unknown(3));
    assert!(r.resolve(&[(&oid(10), "cancelled")], &[]).is_empty());
    let out = r.frame(&push(10, "cancelled"));
    assert!(
        matches!(out[..], [ReportMsg::Exec(er)] if er.exec_type == ExecType::Canceled && er.cl_ord_id == 21)
    );
    assert!(r.frame(&push(10, "cancelled")).is_empty());
    let s = r.t.stats();
    assert_eq!((s.resolved_applied, s.resolved_not_applied), (1, 1));
}

#[test]
fn batch_items_with_unknown_outcome_and_timed_out_batches_are_resolved() {
    let mut r = Rig::new();
    let batch = |req_id, cls: &[u64]| SentBatch {
        req_id,
        session_id: S,
        list_id: req_id,
        items: cls
            .iter()
            .map(|&cl| BatchItem {
                root: cl,
                kind: new_kind(cl),
            })
            .collect(),
        t_written_ns: T0,
    };
    r.t.on_sent_batch(batch(1, &[10, 11]));
    r.frame(&unknown(1));
    assert_eq!(r.requests().len(), 2);
    r.t.on_sent_batch(batch(2, &[12]));
    r.t.on_tick(T0 + 5_000 * MS, 0);
    assert_eq!(
        r.requests(),
        vec![(oid(12), UnknownCause::ReplyTimeout, true)]
    );
    assert_eq!(r.t.stats().outcome_unknown, 3);
}

#[test]
fn modify_with_unknown_outcome_is_replaced_or_rejected_once() {
    let mut r = Rig::new();
    // Placed for 2, modified to 1 (a modify to the values the order has is refused by the
    // exchange, 25571, and never shown).
    let RequestKind::New(mut placed) = new_kind(10) else {
        unreachable!()
    };
    placed.qty = "2".parse().unwrap();
    r.sent(1, 10, RequestKind::New(placed));
    r.frame(&ack(1, 10));
    let modify = |cl| RequestKind::Replace {
        cl_ord_id: cl,
        price: Some("100".parse().unwrap()),
        qty: "1".parse().unwrap(),
    };
    // Applied: the query shows the new price and quantity; the Replaced comes once, with the
    // order update.
    r.sent(2, 10, modify(20));
    r.frame(&unknown(2));
    assert!(r.resolve(&[(&oid(10), "live")], &[]).is_empty());
    let out = r.frame(&push(10, "live"));
    assert!(
        matches!(out[..], [ReportMsg::Exec(er)] if er.exec_type == ExecType::Replaced && er.cl_ord_id == 20)
    );
    // Not applied: the exchange shows other values.
    r.sent(
        3,
        10,
        RequestKind::Replace {
            cl_ord_id: 21,
            price: Some("99".parse().unwrap()),
            qty: "1".parse().unwrap(),
        },
    );
    r.frame(&unknown(3));
    let out = r.resolve(&[(&oid(10), "live")], &[]);
    let [ReportMsg::CancelReject(c)] = out[..] else {
        panic!("{out:?}")
    };
    assert_eq!((c.cl_ord_id, c.orig_cl_ord_id), (21, 20));
    assert_eq!(c.cxl_rej_reason, CxlRejReason::NotApplied);
    assert!(r.resolve(&[(&oid(10), "live")], &[]).is_empty());
    assert!(r.frame(&push(10, "live")).is_empty());
}

pub(super) fn exchange_order(cl: u64, status: OrdStatus) -> crate::rest_objects::OpenOrder {
    crate::rest_objects::OpenOrder {
        order_id: 555,
        client_oid: oid(cl),
        category: Category::UsdtFutures,
        symbol: Symbol::new("BTCUSDT").unwrap(),
        side: Side::Buy,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::Gtc,
        price: Some("100".parse().unwrap()),
        qty: "1".parse().unwrap(),
        cum_qty: codec::Decimal::ZERO,
        avg_px: None,
        status,
        cum_value: codec::Decimal::ZERO,
        cancel_reason: String::new(),
        updated_time_ms: 2,
    }
}

#[test]
fn exchange_state_answers_are_applied_once() {
    use super::reconcile::ExchangeState;
    let mut r = Rig::new();
    r.sent(1, 10, new_kind(10));
    r.sent(2, 11, new_kind(11));
    r.frame(&unknown(1));
    r.frame(&unknown(2));
    let state = ExchangeState {
        account: 0,
        orders: vec![exchange_order(10, OrdStatus::New)],
        fills: Vec::new(),
        not_found: vec![oid(11)],
        source: crate::tracker::StateSource::Reconnect,
    };
    r.t.on_exchange_state(T0, 9, &state);
    let out: Vec<_> = r.t.drain_reports().map(|x| x.msg).collect();
    let kinds: Vec<_> = out
        .iter()
        .map(|m| match m {
            ReportMsg::Exec(er) => (er.cl_ord_id, er.exec_type, er.ord_rej_reason),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            (10, ExecType::New, None),
            (11, ExecType::Rejected, Some(OrdRejReason::NotApplied))
        ]
    );
    // The same answer again (a second query, a reconciliation) adds nothing.
    r.t.on_exchange_state(T0, 9, &state);
    assert_eq!(r.t.drain_reports().count(), 0);
    let s = r.t.stats();
    assert_eq!((s.resolved_applied, s.resolved_not_applied), (1, 1));
    assert_eq!(r.t.unresolved(), 0);
}

/// An unknown place carries its write time in gateway UTC (from the monotonic write time and
/// the last watchdog tick's clock pair), for the resolver to list from.
#[test]
fn unknown_places_carry_their_write_time_in_utc() {
    const U0_MS: u64 = 1_800_000_000_000;
    let mut r = Rig::new();
    r.t.on_tick(T0 + 250 * MS, (U0_MS + 250) * MS);
    r.sent(1, 10, new_kind(10));
    r.frame(&unknown(1));
    let written: Vec<u64> = r.t.drain_resolve_requests().map(|q| q.written_ms).collect();
    assert_eq!(
        written,
        vec![U0_MS],
        "written at T0, 250 ms before the tick"
    );
}

/// Issue 10 (resolution fell behind at high rates): the resolver lists from the write time plus
/// the exchange's clock offset bound less 2 s, not less 30 s.
#[test]
fn the_clock_offset_bound_keeps_the_largest_sample_of_two_windows_then_lapses() {
    use super::resolve::{ClockOffset, CLOCK_OFFSET_WINDOW_MS as W};
    // Monotonic time equal to UTC: no step.
    let mut c = ClockOffset::default();
    assert_eq!(c.bound(5 * W, 5 * W), None);
    c.sample(5 * W + 300, 5 * W + 100, 5 * W + 100); // +200
    c.sample(5 * W + 150, 5 * W + 200, 5 * W + 200); // −50
    assert_eq!(c.bound(5 * W + 200, 5 * W + 200), Some(200));
    c.sample(6 * W + 10, 6 * W + 20, 6 * W + 20); // −10, next window
    assert_eq!(
        c.bound(6 * W + 20, 6 * W + 20),
        Some(200),
        "the previous window still counts"
    );
    assert_eq!(
        c.bound(7 * W, 7 * W),
        Some(-10),
        "only the last window's samples"
    );
    assert_eq!(
        c.bound(8 * W, 8 * W),
        None,
        "lapsed: no push for two windows"
    );
    assert_eq!(
        c.list_since_ms(100_000, 8 * W, 8 * W),
        70_000,
        "30 s margin without a bound"
    );
    assert_eq!(
        c.list_since_ms(100_000, 6 * W, 6 * W),
        100_000 + 200 - 2_000
    );
    assert_eq!(c.list_since_ms(0, 6 * W, 6 * W), 0, "unknown write time");
}

/// The 10⁶-seed simulation's failure (seed 990 591): the gateway's UTC clock stepped forward
/// after the samples were taken, so they stood above the offset and a sweep listed from after
/// a filled order's creation. A step of more than `CLOCK_STEP_MS` drops the bound (the 30 s
/// margin applies) until a sample taken after it; a slew does not.
#[test]
fn a_step_of_the_gateway_s_clock_drops_the_clock_offset_bound() {
    use super::resolve::{ClockOffset, CLOCK_OFFSET_WINDOW_MS as W};
    let mut c = ClockOffset::default();
    c.sample(5 * W + 300, 5 * W + 100, 1_000); // +200, UTC − mono = 5 W − 900
    assert_eq!(c.bound(5 * W + 150, 1_050), Some(200));
    assert_eq!(c.bound(5 * W + 190, 1_100), Some(200), "a 40 ms slew");
    // UTC steps 1.5 s forward (monotonic time moves 100 ms).
    assert_eq!(c.bound(5 * W + 1_700, 1_200), None, "stepped: no bound");
    assert_eq!(c.list_since_ms(100_000, 5 * W + 1_700, 1_200), 70_000);
    // A sample after the step bounds it again, in the new clock; the old ones are gone.
    c.sample(5 * W + 1_500, 5 * W + 1_800, 1_300); // −300
    assert_eq!(c.bound(5 * W + 1_900, 1_400), Some(-300));
}
