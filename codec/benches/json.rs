//! Criterion benches of the Bitget JSON codec (reference latency note: hand-written writer
//! ≈ 37 ns for a 258 B place-order; simd-json with reused buffers ≈ 0.68 µs for a 720 B order
//! push). Run: `cargo bench -p codec --bench json -- --quick`.
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;

use codec::json::*;
use codec::Decimal;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// A resting-limit order push of ~720 bytes (shape of `ws_push_order_live.json`, §4.2).
const ORDER_PUSH: &[u8] = br#"{"action":"snapshot","arg":{"instType":"UTA","topic":"order"},"data":[{"category":"usdt-futures","symbol":"BTCUSDT","orderId":"1352473539865894955","clientOid":"FQACwTnAXTQAAQAAAAAA","price":"32000","qty":"0.0002","holdMode":"hedge_mode","holdSide":"long","tradeSide":"open","orderType":"limit","timeInForce":"gtc","side":"buy","marginMode":"crossed","marginCoin":"USDT","reduceOnly":"no","cumExecQty":"0","cumExecValue":"0","avgPrice":"0","totalProfit":"0","orderStatus":"live","cancelReason":"","leverage":"10","feeDetail":[],"createdTime":"1758180740324","updatedTime":"1758180740324","stpMode":"none","tpTriggerBy":"","slTriggerBy":"","takeprofit":"","stoploss":"","tpOrderType":"market","slOrderType":"market","tpLimitPrice":"","slLimitPrice":"","amount":"0"}],"ts":1758180740327}"#;

/// The live place-order ACK (`ws_place_order_ok.json`, §5.2).
const PLACE_REPLY: &[u8] = br#"{"event":"trade","id":"P:3wAC11XFkEwAAQAAAAAA","category":"usdt-futures","topic":"place-order","args":[{"symbol":"BTCUSDT","orderId":"1396067064152686608","clientOid":"3wAC11XFkEwAAQAAAAAA","cTime":"1768574246443"}],"code":"0","msg":"Success","ts":"1768574246444"}"#;

fn bench(c: &mut Criterion) {
    let order = PlaceOrder {
        symbol: "BTCUSDT",
        side: Side::Buy,
        order_type: OrderType::Limit,
        qty: "0.0002".parse::<Decimal>().unwrap(),
        price: Some("32000".parse().unwrap()),
        time_in_force: Some(TimeInForce::Gtc),
        pos_side: Some(PosSide::Long),
        reduce_only: Some(false),
        client_oid: "s1:00000000001",
        stp_mode: Some(StpMode::CancelMaker),
    };
    let mut out = Vec::with_capacity(512);
    write_place_order(&mut out, "1750034396082", Category::UsdtFutures, &order);
    let len = out.len();

    let mut g = c.benchmark_group("json");
    g.throughput(Throughput::Bytes(len as u64));
    g.bench_function(format!("write_place_order_{len}B"), |b| {
        b.iter(|| {
            out.clear();
            write_place_order(
                &mut out,
                black_box("1750034396082"),
                Category::UsdtFutures,
                black_box(&order),
            );
            black_box(out.len())
        })
    });

    let mut p = JsonParser::new();
    g.throughput(Throughput::Bytes(ORDER_PUSH.len() as u64));
    g.bench_function(format!("parse_order_push_{}B", ORDER_PUSH.len()), |b| {
        b.iter(|| match p.parse(black_box(ORDER_PUSH)) {
            Ok(Inbound::Orders { orders, .. }) => black_box(orders[0].qty.mantissa()),
            _ => unreachable!(),
        })
    });
    g.throughput(Throughput::Bytes(PLACE_REPLY.len() as u64));
    g.bench_function(format!("parse_place_reply_{}B", PLACE_REPLY.len()), |b| {
        b.iter(|| match p.parse(black_box(PLACE_REPLY)) {
            Ok(Inbound::Trade(t)) => black_box(t.items.len()),
            _ => unreachable!(),
        })
    });
    // Floors, for comparison: simd-json stage 1+2 alone on the same push (reused buffers and
    // tape, no serde), and the decimal parser on the push's seven decimal strings.
    let mut input = Vec::with_capacity(4096);
    let mut buffers = simd_json::Buffers::new(4096);
    let mut tape = simd_json::Tape::null();
    g.throughput(Throughput::Bytes(ORDER_PUSH.len() as u64));
    g.bench_function("floor_simd_json_tape_order_push", |b| {
        b.iter(|| {
            input.clear();
            input.extend_from_slice(black_box(ORDER_PUSH));
            input.resize(ORDER_PUSH.len() + simd_json::INPUT_PADDING, b' ');
            let mut t = std::mem::replace(&mut tape, simd_json::Tape(Vec::new())).reset();
            simd_json::fill_tape_padded(&mut input, ORDER_PUSH.len(), &mut buffers, &mut t)
                .unwrap();
            let n = t.0.len();
            tape = t.reset();
            black_box(n)
        })
    });
    let decimals: [&[u8]; 7] = [
        b"32000",
        b"0.0002",
        b"0",
        b"0",
        b"0",
        b"83131.5",
        b"0.00819462",
    ];
    g.throughput(Throughput::Elements(decimals.len() as u64));
    g.bench_function("floor_decimal_parse_x7", |b| {
        b.iter(|| {
            let mut acc = 0i64;
            for s in black_box(&decimals) {
                acc = acc.wrapping_add(Decimal::parse(s).unwrap().mantissa());
            }
            black_box(acc)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
