//! Pre-trade risk and the kill switch, end to end against the simulator: each rule refuses
//! with its name and the simulator never sees the order; open-order counts and positions
//! follow the tracker; the kill switch cancels everything of the account and refuses new
//! orders until released.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use codec::sbe::{
    BoolFlag, Category, ExecType, ItemStatus, KillSwitchAction, KillSwitchRequest, KillSwitchScope,
    OrdRejReason, OrdType, OrderCancelRequest, Side, Symbol, TimeInForce,
};
use e2e::{
    btc_order, d, quiet_sim_config, settings_for, start_sim, with_price_band, Harness, Strategy,
};
use gateway::engine::{AccountSettings, EngineSettings, SessionRole};
use gateway::exchange::sign::Secret;
use gateway::exchange::ws::ExchangeCredentials;
use gateway::exchange::{client_config, RestClient};
use gateway::risk::RiskLimits;
use strategy_client::Received;

/// Session 4 is the operator of account 0; sessions 5..=8 trade on account 1 ("b").
const OPERATOR: u64 = 4;

fn sym() -> Symbol {
    Symbol::new("BTCUSDT").unwrap()
}

/// A quiet simulator with a second account, the BTCUSDT mark at 50 000, and a gateway whose
/// settings `tweak` adjusts (marks refreshed every 20 ms; returns once the mark is known).
fn start(tweak: impl FnOnce(&mut EngineSettings)) -> Harness {
    // The exchange's band (5 %, Bitget's futures value) around the pinned mark.
    let mut cfg = with_price_band(quiet_sim_config(), "0.05");
    cfg.accounts.push(sim::AccountConfig {
        uid: "7000000002".into(),
        api_key: "key-b".into(),
        secret: "secret-b".into(),
        passphrase: "pass-b".into(),
        ..sim::AccountConfig::default()
    });
    let (rt, sim) = start_sim(cfg);
    assert!(sim.set_mark(sim::Category::UsdtFutures, "BTCUSDT", Some(d("50000"))));
    let mut s = settings_for(&sim, "demo-secret");
    s.accounts.push(AccountSettings::new(
        "b",
        ExchangeCredentials {
            api_key: "key-b".into(),
            secret: Secret::new("secret-b"),
            passphrase: Secret::new("pass-b"),
        },
    ));
    for g in &mut s.sessions {
        if g.session_id == OPERATOR {
            g.role = SessionRole::Operator;
        }
        if g.session_id >= 5 {
            g.account = 1;
        }
    }
    s.risk.mark_refresh_ms = 20;
    tweak(&mut s);
    let gw = gateway::engine::Gateway::start(s).expect("gateway starts");
    while gw.risk_book().mark(Category::UsdtFutures, &sym()).is_none() {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    Harness {
        rt,
        sim: Some(sim),
        gw: Some(gw),
    }
}

/// Open orders of the demo account on the simulator (`unfilled-orders`).
fn open_on_sim(h: &Harness) -> usize {
    let sim = h.sim();
    let tls = client_config(Some(&sim.ca_cert_pem())).unwrap();
    let rest = RestClient::new(
        &sim.rest_url(),
        &tls,
        std::time::Duration::from_secs(5),
        Some(ExchangeCredentials {
            api_key: "bg_demo_key".into(),
            secret: Secret::new("demo-secret"),
            passphrase: Secret::new("demo-pass"),
        }),
    )
    .unwrap();
    let data =
        h.rt.block_on(rest.signed_get(
            "/api/v3/trade/unfilled-orders",
            "category=USDT-FUTURES",
            std::time::SystemTime::now(),
        ))
        .unwrap();
    data["list"].as_array().map_or(0, Vec::len)
}

fn received(h: &Harness) -> u64 {
    h.sim().stats().orders_received
}

/// Sends a limit order and returns the first report.
fn send(s: &mut Strategy, side: Side, px: &str, qty: &str) -> (u64, codec::sbe::ExecutionReport) {
    let cl = s.limit(side, TimeInForce::Gtc, px, qty);
    (cl, s.exec())
}

fn assert_refused(er: &codec::sbe::ExecutionReport, reason: OrdRejReason, text: &str) {
    assert_eq!(er.exec_type, ExecType::Rejected, "{er:?}");
    assert_eq!(er.ord_rej_reason, Some(reason), "{er:?}");
    assert_eq!(er.text.as_str(), text);
}

fn cancel(s: &mut Strategy, orig: u64, side: Side) -> u64 {
    let cl = s.next_cl();
    s.c.send_cancel(&OrderCancelRequest {
        cl_ord_id: cl,
        orig_cl_ord_id: orig,
        transact_time: 0,
        symbol: sym(),
        category: Category::UsdtFutures,
        side,
    })
    .unwrap();
    cl
}

fn kill_switch(s: &mut Strategy, id: u64, action: KillSwitchAction) -> Received {
    s.c.send_frame(|b| {
        KillSwitchRequest {
            request_id: id,
            transact_time: 0,
            kill_switch_scope: KillSwitchScope::Account,
            kill_switch_action: action,
        }
        .encode_frame(b)
    })
    .unwrap();
    s.next_message()
}

#[test]
fn each_rule_refuses_with_its_name_and_nothing_reaches_the_exchange() {
    let h = start(|s| {
        s.sessions[0].risk = RiskLimits {
            max_order_qty: Some(d("2")),
            ..Default::default()
        };
        s.sessions[2].risk = RiskLimits {
            max_deviation: Some(d("0.01")),
            ..Default::default()
        };
        s.risk.accounts = vec![RiskLimits {
            max_order_notional: Some(d("100000")),
            ..Default::default()
        }];
    });
    let before = received(&h);
    let mut s1 = h.client(1);
    let (_, er) = send(&mut s1, Side::Buy, "50000", "5");
    assert_refused(
        &er,
        OrdRejReason::RiskLimit,
        "risk: session.max_order_qty 5 > 2",
    );
    let mut s2 = h.client(2);
    let (_, er) = send(&mut s2, Side::Buy, "50000", "2.5");
    assert_refused(
        &er,
        OrdRejReason::RiskLimit,
        "risk: account.max_order_notional 125000 > 100000",
    );
    let mut s3 = h.client(3);
    let (_, er) = send(&mut s3, Side::Sell, "50600", "0.01");
    assert_refused(
        &er,
        OrdRejReason::PriceExceedsBand,
        "risk: session.max_deviation 50600 vs mark 50000 > 0.01",
    );
    // The instrument's own band (buyLimitPriceRatio 0.05) applies to every session, with
    // the Bitget code it pre-empts.
    let (_, er) = send(&mut s2, Side::Buy, "53000", "0.01");
    assert_refused(
        &er,
        OrdRejReason::PriceExceedsBand,
        "pre-empts 25206: 53000 beyond mark 50000 +5%",
    );
    // A market order's notional uses the mark.
    let cl = s2.next_cl();
    s2.c.send_new_order(&btc_order(
        cl,
        Side::Buy,
        OrdType::Market,
        TimeInForce::Gtc,
        None,
        "2.1",
    ))
    .unwrap();
    assert_refused(
        &s2.exec(),
        OrdRejReason::RiskLimit,
        "risk: account.max_order_notional 105000 > 100000",
    );
    assert_eq!(received(&h), before, "the simulator saw none of them");
    // Within the limits the order goes through.
    let (_, er) = send(&mut s3, Side::Sell, "50400", "0.01");
    assert_eq!(er.exec_type, ExecType::New, "{er:?}");
    assert_eq!(received(&h), before + 1);
}

#[test]
fn max_open_orders_counts_down_when_an_order_ends() {
    let h = start(|s| {
        s.sessions[0].risk = RiskLimits {
            max_open_orders: Some(2),
            ..Default::default()
        };
    });
    let mut s = h.client(1);
    let (a, er) = send(&mut s, Side::Buy, "49900", "0.01");
    assert_eq!(er.exec_type, ExecType::New);
    let (_, er) = send(&mut s, Side::Buy, "49901", "0.01");
    assert_eq!(er.exec_type, ExecType::New);
    let before = received(&h);
    let (_, er) = send(&mut s, Side::Buy, "49902", "0.01");
    assert_refused(
        &er,
        OrdRejReason::RiskLimit,
        "risk: session.max_open_orders 2 >= 2",
    );
    assert_eq!(received(&h), before);
    cancel(&mut s, a, Side::Buy);
    assert_eq!(s.exec().exec_type, ExecType::Canceled);
    let (_, er) = send(&mut s, Side::Buy, "49903", "0.01");
    assert_eq!(er.exec_type, ExecType::New, "{er:?}");
    // Another session of the account has its own count.
    let mut other = h.client(2);
    let (_, er) = send(&mut other, Side::Buy, "49904", "0.01");
    assert_eq!(er.exec_type, ExecType::New, "{er:?}");
}

#[test]
fn position_limit_counts_fills_and_open_orders() {
    let h = start(|s| {
        s.risk.accounts = vec![RiskLimits {
            max_position: Some(d("0.03")),
            ..Default::default()
        }];
    });
    // Account b sells 0.02 to account 0 (a resting sell, then a crossing buy).
    let mut seller = h.client(5);
    let (_, er) = send(&mut seller, Side::Sell, "50000", "0.02");
    assert_eq!(er.exec_type, ExecType::New);
    let mut buyer = h.client(1);
    let (_, er) = send(&mut buyer, Side::Buy, "50000", "0.02");
    assert_eq!(er.exec_type, ExecType::New);
    assert_eq!(buyer.exec().exec_type, ExecType::Fill);
    assert_eq!(seller.exec().exec_type, ExecType::Fill);
    assert_eq!(
        h.gateway()
            .risk_book()
            .position(0, Category::UsdtFutures, &sym()),
        d("0.02")
    );
    let before = received(&h);
    // Long 0.02 + 0.02 = 0.04 > 0.03.
    let (_, er) = send(&mut buyer, Side::Buy, "49000", "0.02");
    assert_refused(
        &er,
        OrdRejReason::RiskLimit,
        "risk: account.max_position 0.04 > 0.03",
    );
    assert_eq!(received(&h), before);
    // 0.01 more fits; then an open buy counts too.
    let (_, er) = send(&mut buyer, Side::Buy, "49000", "0.01");
    assert_eq!(er.exec_type, ExecType::New);
    let (_, er) = send(&mut buyer, Side::Buy, "49000", "0.01");
    assert_refused(
        &er,
        OrdRejReason::RiskLimit,
        "risk: account.max_position 0.04 > 0.03",
    );
    // Selling reduces the position: 0.02 - 0.05 = -0.03 passes, on account b the short
    // side is limited by b's own (default: none) limits.
    let (_, er) = send(&mut buyer, Side::Sell, "51000", "0.05");
    assert_eq!(er.exec_type, ExecType::New, "{er:?}");
}

#[test]
fn kill_switch_cancels_everything_and_refuses_new_orders_until_released() {
    let h = start(|_| {});
    let mut op = h.client(OPERATOR);
    let mut t1 = h.client(1);
    let mut t2 = h.client(2);
    let mut b = h.client(5);
    let (a1, er) = send(&mut t1, Side::Buy, "49900", "0.01");
    assert_eq!(er.exec_type, ExecType::New);
    let (_, er) = send(&mut t1, Side::Sell, "50100", "0.01");
    assert_eq!(er.exec_type, ExecType::New);
    let (_, er) = send(&mut t2, Side::Buy, "49800", "0.01");
    assert_eq!(er.exec_type, ExecType::New);
    let (_, er) = send(&mut b, Side::Buy, "49700", "0.01");
    assert_eq!(er.exec_type, ExecType::New);

    // A trading session may not.
    match kill_switch(&mut t1, 1, KillSwitchAction::Activate) {
        Received::BusinessReject(r) => assert!(r.text.as_str().contains("operator")),
        other => panic!("expected BusinessMessageReject, got {other:?}"),
    }

    let report = match kill_switch(&mut op, 7, KillSwitchAction::Activate) {
        Received::KillSwitchReport(r) => r,
        other => panic!("expected KillSwitchReport, got {other:?}"),
    };
    assert_eq!(report.request_id, 7);
    assert_eq!(report.request_status, ItemStatus::Accepted);
    assert_eq!(report.active, BoolFlag::Yes);
    assert_eq!(report.total_affected_orders, 3);
    for _ in 0..2 {
        assert_eq!(t1.exec().exec_type, ExecType::Canceled);
    }
    assert_eq!(t2.exec().exec_type, ExecType::Canceled);
    assert_eq!(open_on_sim(&h), 0, "no order of the account left open");

    let before = received(&h);
    for s in [&mut t1, &mut t2, &mut op] {
        let (_, er) = send(s, Side::Buy, "49900", "0.01");
        assert_refused(&er, OrdRejReason::KillSwitch, "kill switch on");
    }
    assert_eq!(received(&h), before);
    // The other account trades on.
    let (_, er) = send(&mut b, Side::Buy, "49600", "0.01");
    assert_eq!(er.exec_type, ExecType::New);
    // Cancels still pass (this order is already gone: the exchange refuses it).
    cancel(&mut t1, a1, Side::Buy);
    assert_eq!(t1.cancel_reject().orig_cl_ord_id, a1);

    match kill_switch(&mut op, 8, KillSwitchAction::Release) {
        Received::KillSwitchReport(r) => {
            assert_eq!(r.active, BoolFlag::No);
            assert_eq!(r.request_id, 8);
        }
        other => panic!("expected KillSwitchReport, got {other:?}"),
    }
    let (_, er) = send(&mut t2, Side::Buy, "49900", "0.01");
    assert_eq!(er.exec_type, ExecType::New, "{er:?}");
}

#[test]
fn list_items_are_checked_one_by_one_and_counted_open() {
    use codec::sbe::{NewOrderList, NewOrderListEntry, PosSide, StpMode};
    let h = start(|s| {
        s.sessions[0].risk = RiskLimits {
            max_order_qty: Some(d("1")),
            max_open_orders: Some(2),
            ..Default::default()
        };
    });
    let mut s = h.client(1);
    let entry = |cl: u64, px: &str, qty: &str| NewOrderListEntry {
        cl_ord_id: cl,
        price: Some(d(px)),
        order_qty: d(qty),
        symbol: sym(),
        category: Category::UsdtFutures,
        side: Side::Buy,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::Gtc,
        pos_side: PosSide::None,
        reduce_only: BoolFlag::No,
        stp_mode: StpMode::None,
    };
    let items = [
        entry(101, "49900", "0.01"),
        entry(102, "49900", "5"),
        entry(103, "49901", "0.01"),
        entry(104, "49902", "0.01"),
    ];
    let before = received(&h);
    s.c.send_frame(|b| {
        NewOrderList {
            list_id: 1,
            transact_time: 0,
        }
        .encode_frame(items.iter().copied(), b)
        .expect("fits");
    })
    .unwrap();
    let mut texts = std::collections::BTreeMap::new();
    let mut list_seen = false;
    while !list_seen || texts.len() < 4 {
        match s.next_message() {
            Received::Exec(er) => {
                texts.insert(er.cl_ord_id, (er.exec_type, er.text.as_str().to_string()));
            }
            Received::ListStatus(..) => list_seen = true,
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(texts[&101].0, ExecType::New);
    assert_eq!(texts[&102].1, "risk: session.max_order_qty 5 > 1");
    assert_eq!(texts[&103].0, ExecType::New);
    assert_eq!(texts[&104].1, "risk: session.max_open_orders 2 >= 2");
    assert_eq!(
        received(&h),
        before + 2,
        "only the two accepted items were sent"
    );
    assert_eq!(h.gateway().risk_book().session_open_orders(1), 2);
}

#[test]
fn a_replace_is_checked_like_a_new_order_and_refused_before_sending() {
    let h = start(|s| {
        s.sessions[0].risk = RiskLimits {
            max_order_qty: Some(d("2")),
            ..Default::default()
        };
    });
    let mut s1 = h.client(1);
    let (cl, er) = send(&mut s1, Side::Buy, "50000", "1");
    assert_eq!(er.exec_type, ExecType::New, "{er:?}");
    let modified = h.sim().stats().orders_modified;
    // Growing the order past max_order_qty is refused by the gateway, with the rule named.
    let replace = |s: &mut Strategy, qty: &str, px: &str| {
        let new_cl = s.next_cl();
        s.c.send_replace(&codec::sbe::OrderCancelReplaceRequest {
            cl_ord_id: new_cl,
            orig_cl_ord_id: cl,
            transact_time: 0,
            price: Some(d(px)),
            order_qty: Some(d(qty)),
            symbol: sym(),
            category: Category::UsdtFutures,
            side: Side::Buy,
            auto_cancel: BoolFlag::No,
        })
        .unwrap();
        new_cl
    };
    let bad = replace(&mut s1, "5", "50000");
    let rej = s1.cancel_reject();
    assert_eq!(rej.cl_ord_id, bad);
    assert_eq!(rej.text.as_str(), "risk: session.max_order_qty 5 > 2");
    // Moving the price out of the instrument's band (0.05 around the mark) is refused too.
    let bad = replace(&mut s1, "1", "53000");
    let rej = s1.cancel_reject();
    assert_eq!(rej.cl_ord_id, bad);
    assert!(
        rej.text.as_str().starts_with("pre-empts 25206:"),
        "{}",
        rej.text.as_str()
    );
    assert_eq!(
        h.sim().stats().orders_modified,
        modified,
        "nothing was sent"
    );
    // A replace within the limits goes through.
    let ok = replace(&mut s1, "2", "50010");
    let er = s1.exec();
    assert_eq!((er.cl_ord_id, er.exec_type), (ok, ExecType::Replaced));
}
