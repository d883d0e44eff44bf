//! An account with two private WebSocket connections, end to end (real simulator, real TLS):
//! new orders spread over both connections, and each order's replace and cancel go on the
//! connection its place went on, so every one of them, sent back to back with the place, is
//! answered as applied (never "order does not exist" because it overtook its place on the
//! other connection). The gateway's per-connection op counts
//! (`bgw_exchange_trade_ops_total`) show where each op went.

use std::time::{Duration, Instant};

use codec::sbe::{
    BoolFlag, Category, ExecType, NewOrderList, NewOrderListEntry, OrdType, OrderCancelList,
    OrderCancelListEntry, OrderCancelReplaceRequest, OrderCancelRequest, PosSide, Side, StpMode,
    Symbol, TimeInForce,
};
use e2e::{d, quiet_sim_config, resting_buy, Harness, Strategy};
use gateway::metrics::state::ConnOps;
use strategy_client::Received;

/// Orders placed, replaced and cancelled one by one.
const SINGLES: u64 = 40;

/// Indexes in `ConnOps::ops` (`gateway_core::budget::ENDPOINTS` order).
const PLACE: usize = 0;
const BATCH_PLACE: usize = 1;
const MODIFY: usize = 2;
const CANCEL: usize = 4;
const BATCH_CANCEL: usize = 5;

fn sym() -> Symbol {
    Symbol::new("BTCUSDT").expect("symbol")
}

/// The published per-connection op counts once `done` holds (they are published every 200 ms).
fn ops_when(h: &Harness, done: impl Fn(&[ConnOps]) -> bool) -> Vec<ConnOps> {
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        let ops = h.gateway().exchange_trade_ops();
        if done(&ops) {
            return ops;
        }
        assert!(Instant::now() < end, "op counts never reached: {ops:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn total(ops: &[ConnOps], ix: usize) -> u64 {
    ops.iter().map(|c| c.ops[ix]).sum()
}

/// Reads until `canceled` orders were reported Canceled; counts the Replaced reports and
/// panics on any refusal (OrderCancelReject, Rejected).
fn until_canceled(s: &mut Strategy, canceled: usize) -> usize {
    let (mut seen, mut replaced) = (0, 0);
    while seen < canceled {
        match s.next_message() {
            Received::Exec(er) => match er.exec_type {
                ExecType::Canceled => seen += 1,
                ExecType::Replaced => replaced += 1,
                ExecType::Rejected => panic!("order refused: {er:?}"),
                _ => {}
            },
            Received::CancelReject(r) => panic!("cancel or replace refused: {r:?}"),
            _ => {}
        }
    }
    replaced
}

#[test]
fn orders_spread_over_two_connections_and_their_cancels_follow_them() {
    let h = Harness::start_with(quiet_sim_config(), |s| {
        for a in &mut s.accounts {
            a.connections = 2;
        }
    });
    let mut s = h.client(1);

    // Place, replace and cancel each order back to back, without waiting for an answer.
    for _ in 0..SINGLES {
        let cl = s.next_cl();
        s.c.send_new_order(&resting_buy(cl)).unwrap();
        let replace = s.next_cl();
        s.c.send_replace(&OrderCancelReplaceRequest {
            cl_ord_id: replace,
            orig_cl_ord_id: cl,
            transact_time: 0,
            price: Some(d("49999")),
            order_qty: Some(d("0.002")),
            symbol: sym(),
            category: Category::UsdtFutures,
            side: Side::Buy,
            auto_cancel: BoolFlag::No,
        })
        .unwrap();
        let cancel = s.next_cl();
        s.c.send_cancel(&OrderCancelRequest {
            cl_ord_id: cancel,
            orig_cl_ord_id: replace,
            transact_time: 0,
            symbol: sym(),
            category: Category::UsdtFutures,
            side: Side::Buy,
        })
        .unwrap();
    }
    let replaced = until_canceled(&mut s, SINGLES as usize);
    assert_eq!(replaced, SINGLES as usize);
    let ops = ops_when(&h, |o| total(o, CANCEL) == SINGLES);
    assert_eq!(ops.len(), 2, "{ops:?}");
    for c in &ops {
        // Both connections took new orders, and each took the replaces and cancels of the
        // orders it placed, no more, no fewer.
        assert!(
            c.ops[PLACE] > 0,
            "connection {} placed nothing: {ops:?}",
            c.conn
        );
        assert_eq!(c.ops[MODIFY], c.ops[PLACE], "{ops:?}");
        assert_eq!(c.ops[CANCEL], c.ops[PLACE], "{ops:?}");
    }
    assert_eq!(total(&ops, PLACE), SINGLES);

    // Two lists of 4 orders, each cancelled by a list right behind it: each list goes on one
    // connection, the two on different ones, and each cancel list goes where its orders went.
    let entry = |cl: u64| NewOrderListEntry {
        cl_ord_id: cl,
        price: Some(d("50000")),
        order_qty: d("0.001"),
        symbol: sym(),
        category: Category::UsdtFutures,
        side: Side::Buy,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::Gtc,
        pos_side: PosSide::None,
        reduce_only: BoolFlag::No,
        stp_mode: StpMode::None,
    };
    for list in 0..2u64 {
        let places: Vec<u64> = (0..4).map(|_| s.next_cl()).collect();
        let list_id = 1 + 2 * list;
        s.c.send_frame(|b| {
            NewOrderList {
                list_id,
                transact_time: 0,
            }
            .encode_frame(places.iter().map(|&cl| entry(cl)), b)
            .expect("fits a frame");
        })
        .unwrap();
        let cancels: Vec<OrderCancelListEntry> = places
            .iter()
            .map(|&orig| OrderCancelListEntry {
                cl_ord_id: s.next_cl(),
                orig_cl_ord_id: orig,
                symbol: sym(),
                category: Category::UsdtFutures,
                side: Side::Buy,
            })
            .collect();
        s.c.send_frame(|b| {
            OrderCancelList {
                list_id: list_id + 1,
                transact_time: 0,
            }
            .encode_frame(cancels.iter().copied(), b)
            .expect("fits a frame");
        })
        .unwrap();
    }
    until_canceled(&mut s, 8);
    let ops = ops_when(&h, |o| total(o, BATCH_CANCEL) == 2);
    for c in &ops {
        assert_eq!(c.ops[BATCH_PLACE], 1, "{ops:?}");
        assert_eq!(c.ops[BATCH_CANCEL], 1, "{ops:?}");
    }
}
