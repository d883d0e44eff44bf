//! The strategy's per-message checks: each one fires on the report that breaks it, and a clean
//! sequence fires none.

use codec::sbe::{
    EstablishmentAck, ExecType, ExecutionReport, OrdStatus, OrdType, Side, TimeInForce,
};
use codec::Decimal;

use crate::check::Violations;
use crate::rng::SimRng;
use crate::strategy::Strategy;

fn d(s: &str) -> Decimal {
    s.parse().unwrap_or_default()
}

/// An established strategy with one NewOrderSingle sent (ClOrdID 1), and its next sequence
/// number 1.
fn with_one_order() -> (Strategy, Violations) {
    let mut s = Strategy::new(100, "x", 1, 1, -1);
    let mut v = Violations::default();
    let mut ack = Vec::new();
    EstablishmentAck {
        session_id: 100,
        request_timestamp: 0,
        keepalive_interval: 1000,
        next_seq_no: 1,
        previous_session_ver_id: None,
        previous_seq_no: 0,
    }
    .encode_frame(&mut ack);
    s.on_frame(&ack, 0, 0, 0, &mut v, &mut Vec::new());
    let mut rng = SimRng::new(1);
    assert!(s.act(&mut rng, 0, 0).is_some());
    assert!(s.orders.contains_key(&1));
    (s, v)
}

fn er(exec_type: ExecType, status: OrdStatus, exec_id: u64, last: &str, cum: &str) -> Vec<u8> {
    let mut b = Vec::new();
    ExecutionReport {
        cl_ord_id: 1,
        orig_cl_ord_id: 0,
        order_id: 9,
        exec_id,
        transact_time: 0,
        price: Some(d("60000")),
        order_qty: d("0.0100"),
        last_qty: (exec_id != 0).then(|| d(last)),
        last_px: (exec_id != 0).then(|| d("60000")),
        cum_qty: d(cum),
        leaves_qty: d("0"),
        avg_px: None,
        exchange_code: 0,
        symbol: codec::sbe::Symbol::new("BTCUSDT").unwrap_or_default(),
        category: codec::sbe::Category::UsdtFutures,
        side: Side::Buy,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::Gtc,
        exec_type,
        ord_status: status,
        ord_rej_reason: None,
        text: codec::sbe::Text::new(""),
    }
    .encode_frame(&mut b);
    b
}

/// (ExecType, OrdStatus, ExecID, LastQty, CumQty, sequence number) of one report.
type Spec = (ExecType, OrdStatus, u64, &'static str, &'static str, u64);

fn feed(s: &mut Strategy, v: &mut Violations, frames: &[(Vec<u8>, u64)]) -> Vec<&'static str> {
    for (f, seq) in frames {
        s.on_frame(f, *seq, 0, 0, v, &mut Vec::new());
    }
    v.0.iter().map(|x| x.invariant).collect()
}

#[test]
fn a_clean_order_breaks_nothing() {
    let (mut s, mut v) = with_one_order();
    let got = feed(
        &mut s,
        &mut v,
        &[
            (er(ExecType::New, OrdStatus::New, 0, "0", "0"), 1),
            (
                er(
                    ExecType::PartialFill,
                    OrdStatus::PartiallyFilled,
                    5,
                    "0.004",
                    "0.004",
                ),
                2,
            ),
            (
                er(ExecType::Fill, OrdStatus::Filled, 6, "0.006", "0.010"),
                3,
            ),
        ],
    );
    assert!(got.is_empty(), "{got:?}");
    assert_eq!(s.open_orders(), 0);
}

#[test]
fn each_broken_invariant_is_named() {
    let cases: [(&[Spec], &str); 4] = [
        (
            &[
                (ExecType::New, OrdStatus::New, 0, "0", "0", 1),
                (ExecType::New, OrdStatus::New, 0, "0", "0", 2),
            ],
            "second New",
        ),
        (
            &[
                (
                    ExecType::PartialFill,
                    OrdStatus::PartiallyFilled,
                    5,
                    "0.004",
                    "0.004",
                    1,
                ),
                (
                    ExecType::PartialFill,
                    OrdStatus::PartiallyFilled,
                    5,
                    "0.004",
                    "0.008",
                    2,
                ),
            ],
            "repeated ExecID",
        ),
        (
            &[(
                ExecType::PartialFill,
                OrdStatus::PartiallyFilled,
                5,
                "0.004",
                "0.005",
                1,
            )],
            "CumQty is not the sum of LastQty",
        ),
        (
            &[
                (ExecType::Fill, OrdStatus::Filled, 5, "0.010", "0.010", 1),
                (ExecType::Canceled, OrdStatus::Canceled, 0, "0", "0.010", 2),
            ],
            "report after terminal",
        ),
    ];
    for (reports, want) in cases {
        let (mut s, mut v) = with_one_order();
        let frames: Vec<(Vec<u8>, u64)> = reports
            .iter()
            .map(|(t, st, id, last, cum, seq)| (er(*t, *st, *id, last, cum), *seq))
            .collect();
        let got = feed(&mut s, &mut v, &frames);
        assert_eq!(got, vec![want], "reports {reports:?}");
    }
}

#[test]
fn a_report_ahead_of_a_gap_is_held_until_the_gap_is_filled_and_a_repeat_is_skipped() {
    let (mut s, mut v) = with_one_order();
    let new = er(ExecType::New, OrdStatus::New, 0, "0", "0");
    let fill = er(ExecType::Fill, OrdStatus::Filled, 6, "0.010", "0.010");
    assert!(feed(&mut s, &mut v, &[(fill.clone(), 2)]).is_empty());
    assert_eq!(s.gap_left(), Some((1, 2)), "2 held, 1 missing");
    assert_eq!(s.open_orders(), 1, "the fill waits for the New");
    assert!(feed(&mut s, &mut v, &[(new.clone(), 1)]).is_empty());
    assert_eq!(s.gap_left(), None);
    assert_eq!(s.open_orders(), 0, "New then Fill, in order");
    assert!(feed(&mut s, &mut v, &[(new, 1), (fill, 2)]).is_empty());
    assert_eq!(s.seq_duplicates, 2);
}
