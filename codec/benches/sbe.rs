//! Criterion benches of the SBE codec's order path: decoding a NewOrderSingle (validation and
//! every getter) and a Negotiate (a message with a versioned field, v1 and v0 blocks), and
//! encoding an ExecutionReport frame into a reused buffer.
//! Run: `cargo bench -p codec --bench sbe -- --quick`.
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;

use codec::frame::SOFH_LEN;
use codec::sbe::*;
use codec::Decimal;
use criterion::{criterion_group, criterion_main, Criterion};

fn dec(s: &str) -> Decimal {
    s.parse().unwrap()
}

fn bench(c: &mut Criterion) {
    let nos = NewOrderSingle {
        cl_ord_id: 42,
        transact_time: 1_763_798_400_123_456_789,
        price: Some(dec("117066.1")),
        order_qty: dec("0.0002"),
        symbol: Symbol::new("BTCUSDT").unwrap(),
        category: Category::UsdtFutures,
        side: Side::Sell,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::PostOnly,
        pos_side: PosSide::Short,
        reduce_only: BoolFlag::Yes,
        stp_mode: StpMode::CancelTaker,
    };
    let mut frame = Vec::new();
    nos.encode_frame(&mut frame);
    let nos_payload = frame[SOFH_LEN..].to_vec();

    let negotiate = Negotiate {
        session_id: 7,
        timestamp: 1,
        client_flow: FlowType::Idempotent,
        credentials: Text::new("secret"),
        session_ver_id: 3,
    };
    frame.clear();
    negotiate.encode_frame(&mut frame);
    let negotiate_v1 = frame[SOFH_LEN..].to_vec();
    let mut negotiate_v0 = negotiate_v1[..HEADER_LEN + 81].to_vec();
    negotiate_v0[0] = 81;
    negotiate_v0[6] = 0;

    let er = ExecutionReport {
        cl_ord_id: 42,
        orig_cl_ord_id: 0,
        order_id: 1_354_237_910_666_666_666,
        exec_id: 99,
        transact_time: 1_763_798_400_123_456_789,
        price: Some(dec("117066.1")),
        order_qty: dec("0.0002"),
        last_qty: Some(dec("0.0001")),
        last_px: Some(dec("117066.1")),
        cum_qty: dec("0.0001"),
        leaves_qty: dec("0.0001"),
        avg_px: Some(dec("117066.1")),
        exchange_code: 0,
        symbol: Symbol::new("BTCUSDT").unwrap(),
        category: Category::UsdtFutures,
        side: Side::Sell,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::Gtc,
        exec_type: ExecType::PartialFill,
        ord_status: OrdStatus::PartiallyFilled,
        ord_rej_reason: None,
        text: Text::new(""),
    };

    let mut g = c.benchmark_group("sbe");
    g.bench_function("decode_new_order_single_all_fields", |b| {
        b.iter(|| match decode(black_box(&nos_payload)) {
            Ok(Message::NewOrderSingle(d)) => black_box(d.to_owned()),
            _ => unreachable!(),
        })
    });
    g.bench_function("decode_new_order_single_cl_ord_id", |b| {
        b.iter(|| match decode(black_box(&nos_payload)) {
            Ok(Message::NewOrderSingle(d)) => black_box(d.cl_ord_id()),
            _ => unreachable!(),
        })
    });
    for (name, payload) in [("v1", &negotiate_v1), ("v0", &negotiate_v0)] {
        g.bench_function(format!("decode_negotiate_{name}"), |b| {
            b.iter(|| match decode(black_box(payload)) {
                Ok(Message::Negotiate(d)) => black_box(d.session_ver_id()),
                _ => unreachable!(),
            })
        });
    }
    let mut out = Vec::with_capacity(256);
    g.bench_function("encode_execution_report_frame", |b| {
        b.iter(|| {
            out.clear();
            black_box(&er).encode_frame(&mut out);
            black_box(out.len())
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
