//! Steady-state allocation check of the JSON codec (reference latency note: reused buffers, no
//! DOM): after warm-up, parsing an order push or a trade reply and writing a place-order cost
//! zero heap allocations. A counting global allocator covers this whole test binary, so the
//! file holds a single test.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// A global allocator needs `unsafe impl GlobalAlloc`; test-only.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

use codec::json::*;
use codec::Decimal;

struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const ORDER_PUSH: &[u8] = br#"{"action":"snapshot","arg":{"instType":"UTA","topic":"order"},"data":[{"category":"usdt-futures","symbol":"BTCUSDT","orderId":"1352473539865894955","clientOid":"FQACwTnAXTQAAQAAAAAA","price":"32000","qty":"0.0002","holdMode":"hedge_mode","holdSide":"long","tradeSide":"open","orderType":"limit","timeInForce":"gtc","side":"buy","marginMode":"crossed","marginCoin":"USDT","reduceOnly":"no","cumExecQty":"0","cumExecValue":"0","avgPrice":"0","totalProfit":"0","orderStatus":"live","cancelReason":"","leverage":"10","feeDetail":[{"feeCoin":"USDT","fee":"0.01"}],"createdTime":"1758180740324","updatedTime":"1758180740324","stpMode":"none"}],"ts":1758180740327}"#;
const PLACE_REPLY: &[u8] = br#"{"event":"trade","id":"P:3wAC11XFkEwAAQAAAAAA","category":"usdt-futures","topic":"place-order","args":[{"symbol":"BTCUSDT","orderId":"1396067064152686608","clientOid":"3wAC11XFkEwAAQAAAAAA","cTime":"1768574246443"}],"code":"0","msg":"Success","ts":"1768574246444"}"#;
const NUMERIC_ID_ERROR: &[u8] =
    br#"{"code":"40010","msg":"Request timed out","id":1666268894074,"event":"error"}"#;

const POSITION_PUSH: &[u8] = br#"{"action":"snapshot","arg":{"instType":"UTA","topic":"position"},"data":[{"symbol":"BTCUSDT","marginCoin":"USDT","marginSize":"2.35064255","marginMode":"crossed","holdMode":"hedge_mode","posSide":"short","size":"0.0002","available":"0.0002","frozen":"0","avgPrice":"117066.1","leverage":"10","curRealisedPnl":"0","unrealisedPnl":"-0.01122","liqPrice":"3271394.4","mmr":"0.004","markPrice":"117122.2","positionStatus":"opening","createdTime":"1758057734271","updatedTime":"1758185294053"}],"ts":1758186381497}"#;
const ACCOUNT_PUSH: &[u8] = br#"{"action":"snapshot","arg":{"instType":"UTA","topic":"account"},"data":[{"totalEquity":"681.49","effEquity":"624.2","unrealisedPnL":"0","coin":[{"coin":"USDT","balance":"99.97860095","locked":"0","equity":"99.97860095","available":"99.97860095"},{"coin":"USDC","balance":"1","locked":"0","equity":"1","available":"1"},{"coin":"BTC","balance":"1","locked":"0","equity":"1","available":"1"},{"coin":"ETH","balance":"1","locked":"0","equity":"1","available":"1"}]}],"ts":1758113442410}"#;

fn allocs() -> u64 {
    ALLOCS.load(Ordering::Relaxed)
}

#[test]
fn steady_state_is_allocation_free() {
    let mut p = JsonParser::new();
    let mut out = Vec::with_capacity(1024);
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
    let run = |p: &mut JsonParser, out: &mut Vec<u8>| {
        let mut n = 0usize;
        if let Inbound::Orders { orders, .. } = p.parse(ORDER_PUSH).unwrap() {
            n += orders.len();
        }
        if let Inbound::Trade(t) = p.parse(PLACE_REPLY).unwrap() {
            n += t.items.len();
        }
        if let Inbound::Error { id, .. } = p.parse(NUMERIC_ID_ERROR).unwrap() {
            n += id.map_or(0, str::len);
        }
        if let Inbound::Positions { positions, .. } = p.parse(POSITION_PUSH).unwrap() {
            n += positions.len();
        }
        if let Inbound::Account { coins, .. } = p.parse(ACCOUNT_PUSH).unwrap() {
            n += coins.len();
        }
        out.clear();
        write_place_order(out, "1750034396082", Category::UsdtFutures, &order);
        n
    };
    for _ in 0..100 {
        run(&mut p, &mut out);
    }
    let before = allocs();
    let mut total = 0;
    for _ in 0..1000 {
        total += run(&mut p, &mut out);
    }
    let after = allocs();
    assert_eq!(total, 1000 * (1 + 1 + 13 + 1 + 4));
    assert_eq!(after - before, 0, "allocations in the steady state");
}
