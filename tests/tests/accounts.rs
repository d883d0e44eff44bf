//! Accounts end to end: a master and a sub-account in the simulator (each its own API key),
//! the gateway with both; sessions bound to an account by configuration, drop copies of the
//! account's reports, position and balance reports from the `position` / `account` channels,
//! and the per-account category check.

use std::time::SystemTime;

use codec::sbe::{
    BoolFlag, BusinessRejectReason, Category, ExecType, ItemStatus, NewOrderList,
    NewOrderListEntry, OrdRejReason, OrdStatus, OrdType, OrderCancelRequest, PosSide, Side,
    StpMode, Symbol, TimeInForce,
};
use e2e::{
    btc_order, d, master_account_credentials, master_and_sub_sim_config, sub_account_credentials,
    Harness, Strategy,
};
use gateway::engine::{AccountSettings, SessionRole};
use gateway::exchange::ExchangeError;
use strategy_client::Received;

/// Master trading session.
const MASTER: u64 = 1;
/// Master drop-copy session.
const MASTER_DC: u64 = 2;
/// Sub-account trading session.
const SUB: u64 = 3;
/// Sub-account drop-copy session.
const SUB_DC: u64 = 4;

/// Gateway accounts `master` (index 0, every category) and `sub` (index 1, USDT-FUTURES
/// only), both with position/account updates; sessions 1, 2 on the master, 3, 4 on the sub.
fn harness() -> Harness {
    Harness::start_with(master_and_sub_sim_config(), |s| {
        let mut master = AccountSettings::new("master", master_account_credentials());
        master.position_updates = true;
        let mut sub = AccountSettings::new("sub", sub_account_credentials());
        sub.position_updates = true;
        sub.categories = vec![Category::UsdtFutures];
        s.accounts = vec![master, sub];
        for g in &mut s.sessions {
            (g.account, g.role) = match g.session_id {
                MASTER => (0, SessionRole::Trading),
                MASTER_DC => (0, SessionRole::DropCopy),
                SUB => (1, SessionRole::Trading),
                SUB_DC => (1, SessionRole::DropCopy),
                _ => (0, SessionRole::Trading),
            };
        }
    })
}

/// Order-info by orderId with `creds`: `Ok(clientOid)` or the exchange's error code.
fn order_info(
    h: &Harness,
    creds: gateway::exchange::ExchangeCredentials,
    order_id: u64,
) -> Result<String, u32> {
    let rest = h.rest_client(creds);
    let res = h.rt.block_on(rest.signed_get(
        "/api/v3/trade/order-info",
        &format!("orderId={order_id}"),
        SystemTime::now(),
    ));
    match res {
        Ok(data) => Ok(data["clientOid"].as_str().unwrap_or("").to_owned()),
        Err(ExchangeError::Rejected { code, .. }) => Err(code),
        Err(e) => panic!("order-info: {e}"),
    }
}

fn cancel(s: &mut Strategy, orig: u64, side: Side) -> u64 {
    let cl = s.next_cl();
    s.c.send_cancel(&OrderCancelRequest {
        cl_ord_id: cl,
        orig_cl_ord_id: orig,
        transact_time: 0,
        symbol: Symbol::new("BTCUSDT").expect("symbol"),
        category: Category::UsdtFutures,
        side,
    })
    .expect("send cancel");
    cl
}

/// Reads messages until `done` says the wanted set is complete; returns them all.
fn collect_until(s: &mut Strategy, mut done: impl FnMut(&[Received]) -> bool) -> Vec<Received> {
    let mut got = Vec::new();
    while !done(&got) {
        assert!(got.len() < 50, "too many messages: {got:?}");
        got.push(s.next_message());
    }
    got
}

fn positions(msgs: &[Received]) -> Vec<codec::sbe::PositionReport> {
    msgs.iter()
        .filter_map(|m| match m {
            Received::PositionReport(p) => Some(*p),
            _ => None,
        })
        .collect()
}

fn usdt_balance(msgs: &[Received]) -> Option<codec::sbe::AccountBalanceReport> {
    msgs.iter().find_map(|m| match m {
        Received::AccountBalanceReport(b) if b.coin.as_str() == "USDT" => Some(*b),
        _ => None,
    })
}

fn has_fill(msgs: &[Received]) -> bool {
    msgs.iter()
        .any(|m| matches!(m, Received::Exec(e) if e.exec_type == ExecType::Fill))
}

#[test]
fn sub_session_order_lives_under_the_sub_account() {
    let h = harness();
    let mut sub = h.client(SUB);
    let cl = sub.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.001");
    let new = sub.exec();
    assert_eq!((new.cl_ord_id, new.exec_type), (cl, ExecType::New));
    assert_ne!(new.order_id, 0);

    let client_oid = order_info(&h, sub_account_credentials(), new.order_id)
        .expect("the sub's key sees the order");
    assert!(
        !client_oid.is_empty(),
        "placed with the gateway's clientOid"
    );
    assert_eq!(
        order_info(&h, master_account_credentials(), new.order_id),
        Err(25204),
        "the master's key does not see the sub's order"
    );
}

#[test]
fn drop_copy_gets_every_report_of_its_account_and_nothing_else() {
    let h = harness();
    let mut master = h.client(MASTER);
    let mut master_dc = h.client(MASTER_DC);
    let mut sub = h.client(SUB);
    let mut sub_dc = h.client(SUB_DC);

    // Master: New, then Canceled.
    let m1 = master.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.001");
    let m1_new = master.exec();
    assert_eq!(m1_new.exec_type, ExecType::New);
    let c1 = cancel(&mut master, m1, Side::Buy);
    let m1_cxl = master.exec();
    assert_eq!(
        (m1_cxl.cl_ord_id, m1_cxl.exec_type),
        (c1, ExecType::Canceled)
    );

    // Sub: one order, acknowledged before the master's next one.
    let s1 = sub.limit(Side::Buy, TimeInForce::Gtc, "49000", "0.002");
    let s1_new = sub.exec();
    assert_eq!((s1_new.cl_ord_id, s1_new.exec_type), (s1, ExecType::New));
    let m2 = master.limit(Side::Buy, TimeInForce::Gtc, "48000", "0.003");
    let m2_new = master.exec();
    assert_eq!((m2_new.cl_ord_id, m2_new.exec_type), (m2, ExecType::New));

    // The master's drop copy: exactly the master's three reports, in order (the sub's New,
    // written between them, is not there).
    assert_eq!(master_dc.exec(), m1_new);
    assert_eq!(master_dc.exec(), m1_cxl);
    assert_eq!(master_dc.exec(), m2_new);
    // The sub's drop copy: the sub's New first (nothing of the master's before it).
    assert_eq!(sub_dc.exec(), s1_new);
    let s2 = sub.limit(Side::Buy, TimeInForce::Gtc, "47000", "0.001");
    let s2_new = sub.exec();
    assert_eq!(s2_new.cl_ord_id, s2);
    assert_eq!(sub_dc.exec(), s2_new);

    // A drop-copy session may not send orders.
    let cl = master_dc.next_cl();
    master_dc
        .c
        .send_new_order(&btc_order(
            cl,
            Side::Buy,
            OrdType::Limit,
            TimeInForce::Gtc,
            Some("50000"),
            "0.001",
        ))
        .unwrap();
    match master_dc.next_message() {
        Received::BusinessReject(r) => {
            assert_eq!(
                r.business_reject_reason,
                BusinessRejectReason::NotAuthorized
            );
        }
        other => panic!("expected BusinessMessageReject, got {other:?}"),
    }
    // Nothing was sent for it: the master's next order is the next thing the copy sees.
    let m3 = master.limit(Side::Buy, TimeInForce::Gtc, "46000", "0.001");
    let m3_new = master.exec();
    assert_eq!(m3_new.cl_ord_id, m3);
    assert_eq!(master_dc.exec(), m3_new);
}

#[test]
fn fill_reports_positions_and_balances_to_that_accounts_sessions_only() {
    let h = harness();
    let mut master = h.client(MASTER);
    let mut master_dc = h.client(MASTER_DC);
    let mut sub = h.client(SUB);

    let maker = master.limit(Side::Sell, TimeInForce::Gtc, "60000", "0.002");
    assert_eq!(master.exec().cl_ord_id, maker);
    // The sub takes 0.001 of the master's offer (different accounts: no self-trade check).
    let taker = sub.limit(Side::Buy, TimeInForce::Gtc, "60000", "0.001");
    let complete =
        |m: &[Received]| has_fill(m) && !positions(m).is_empty() && usdt_balance(m).is_some();
    let sub_msgs = collect_until(&mut sub, complete);
    let sub_pos = positions(&sub_msgs);
    assert!(sub_msgs
        .iter()
        .any(|m| matches!(m, Received::Exec(e) if e.cl_ord_id == taker && e.ord_status == OrdStatus::Filled)));
    for p in &sub_pos {
        assert_eq!(p.pos_req_id, 0);
        assert_eq!(p.symbol.as_str(), "BTCUSDT");
        assert_eq!(p.category, Category::UsdtFutures);
        assert_eq!(p.pos_side, PosSide::Long, "the sub's own position: {p:?}");
        assert_eq!(p.position_size, d("0.001"));
        assert_eq!(p.avg_px, Some(d("60000")));
    }
    let sub_usdt = usdt_balance(&sub_msgs).unwrap();
    assert!(sub_usdt.balance < d("100000000"), "fee paid: {sub_usdt:?}");

    // The master's sessions: its short position (never the sub's long), balances, and the
    // partial fill; the drop copy gets the same.
    let master_done = |m: &[Received]| {
        m.iter()
            .any(|x| matches!(x, Received::Exec(e) if e.exec_type == ExecType::PartialFill))
            && !positions(m).is_empty()
            && usdt_balance(m).is_some()
    };
    let mut master_msgs = collect_until(&mut master, master_done);
    let mut dc_msgs = collect_until(&mut master_dc, |m| {
        master_done(m) && m.iter().filter(|x| matches!(x, Received::Exec(_))).count() >= 2
    });
    // Everything the tracker wrote before the master's next New is in the streams by then.
    let next = master.limit(Side::Buy, TimeInForce::Gtc, "50000", "0.001");
    master_msgs.extend(collect_until(&mut master, |m| {
        m.iter()
            .any(|x| matches!(x, Received::Exec(e) if e.cl_ord_id == next))
    }));
    dc_msgs.extend(collect_until(&mut master_dc, |m| {
        m.iter()
            .any(|x| matches!(x, Received::Exec(e) if e.cl_ord_id == next))
    }));
    for msgs in [&master_msgs, &dc_msgs] {
        let pos = positions(msgs);
        assert!(!pos.is_empty());
        for p in pos {
            assert_eq!(
                p.pos_side,
                PosSide::Short,
                "the master's own position: {p:?}"
            );
            assert_eq!(p.position_size, d("0.001"));
            assert_eq!(p.category, Category::UsdtFutures);
        }
        let usdt = usdt_balance(msgs).unwrap();
        assert!(usdt.equity > d("0") && usdt.available <= usdt.equity);
        assert_ne!(usdt, sub_usdt, "the master's own balance");
    }
}

#[test]
fn order_for_a_category_the_account_does_not_trade_is_rejected() {
    let h = harness();
    let mut sub = h.client(SUB);
    let cl = sub.next_cl();
    let mut spot = btc_order(
        cl,
        Side::Buy,
        OrdType::Limit,
        TimeInForce::Gtc,
        Some("50000"),
        "0.001",
    );
    spot.category = Category::Spot;
    sub.c.send_new_order(&spot).unwrap();
    let rej = sub.exec();
    assert_eq!(rej.cl_ord_id, cl);
    assert_eq!(rej.exec_type, ExecType::Rejected);
    assert_eq!(rej.ord_rej_reason, Some(OrdRejReason::UnknownSymbol));
    assert!(
        rej.text.as_str().contains("account sub"),
        "{}",
        rej.text.as_str()
    );
    assert!(rej.text.as_str().contains("SPOT"));
    assert_eq!(h.sim().stats().orders_received, 0, "nothing was sent");

    // The master trades spot: the same order goes through.
    let mut master = h.client(MASTER);
    let mcl = master.next_cl();
    spot.cl_ord_id = mcl;
    master.c.send_new_order(&spot).unwrap();
    let new = master.exec();
    assert_eq!((new.cl_ord_id, new.exec_type), (mcl, ExecType::New));

    // In a NewOrderList the same rule applies per item: the spot item is refused with the
    // account named, the futures item is placed.
    let (spot_cl, fut_cl) = (sub.next_cl(), sub.next_cl());
    let entry = |cl: u64, category: Category| NewOrderListEntry {
        cl_ord_id: cl,
        price: Some(d("50000")),
        order_qty: d("0.001"),
        symbol: Symbol::new("BTCUSDT").expect("symbol"),
        category,
        side: Side::Buy,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::Gtc,
        pos_side: PosSide::None,
        reduce_only: BoolFlag::No,
        stp_mode: StpMode::None,
    };
    let items = [
        entry(spot_cl, Category::Spot),
        entry(fut_cl, Category::UsdtFutures),
    ];
    sub.c
        .send_frame(|b| {
            NewOrderList {
                list_id: 77,
                transact_time: 0,
            }
            .encode_frame(items.iter().copied(), b)
            .expect("fits a frame");
        })
        .unwrap();
    let mut entries = Vec::new();
    let mut execs = Vec::new();
    while entries.len() < 2 || execs.len() < 2 {
        match sub.next_message() {
            Received::ListStatus(_, e) => entries.extend(e),
            Received::Exec(er) => execs.push(er),
            other => panic!("unexpected {other:?}"),
        }
    }
    let spot_entry = entries.iter().find(|e| e.cl_ord_id == spot_cl).unwrap();
    assert_eq!(spot_entry.item_status, ItemStatus::Rejected);
    assert_eq!(spot_entry.ord_rej_reason, Some(OrdRejReason::UnknownSymbol));
    assert!(spot_entry.text.as_str().contains("account sub"));
    let fut_entry = entries.iter().find(|e| e.cl_ord_id == fut_cl).unwrap();
    assert_eq!(fut_entry.item_status, ItemStatus::Accepted);
    assert!(execs
        .iter()
        .any(|e| e.cl_ord_id == spot_cl && e.exec_type == ExecType::Rejected));
    assert!(execs
        .iter()
        .any(|e| e.cl_ord_id == fut_cl && e.exec_type == ExecType::New));
    assert_eq!(
        h.sim().stats().orders_received,
        2,
        "the master's order and the sub's futures item"
    );
}
