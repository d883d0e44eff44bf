//! Account requests (SetLeverage, SetHoldMode, MaxOpenAvailableRequest, AccountSettingsRequest)
//! and MovePositions end to end: strategy client → gateway → simulator over TLS, positions
//! checked over signed REST. Every refusal the gateway can know is proven caught before sending
//! by the simulator's move-positions request counter. The simulator and the gateway's move
//! rules share one `ManualClock`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use codec::sbe::{
    AccountRequestReport, AccountSettingsRequest, Category, HoldMode, ItemStatus,
    MaxOpenAvailableRequest, MovePositions, MovePositionsEntry, MovePositionsRejectReason,
    MovePositionsReport, MovePositionsReportEntry, OrdType, PosSide, SetHoldMode, SetLeverage,
    Side, Symbol,
};
use codec::Decimal;
use e2e::{d, settings_for, start_sim_with_clock, Harness, Strategy};
use gateway::engine::{AccountSettings, SessionRole, UtcClock};
use gateway::exchange::sign::Secret;
use gateway::exchange::ws::ExchangeCredentials;
use gateway::exchange::{client_config, RestClient};
use sim::config::{AccountConfig, CoinBalance};
use sim::{Clock, ManualClock};
use strategy_client::Received;

/// 2026-11-28 10:00:00.000 UTC.
const TEN: u64 = 1_795_860_000_000;
/// The clock's start: 10:10, outside the blackout.
const T0: u64 = TEN + 600_000;
const MASTER_UID: u64 = 1_000_000_001;
const SUB_UID: u64 = 1_000_000_101;
const THIN_UID: u64 = 1_000_000_102;
/// Operator session on the master account.
const OPERATOR: u64 = 1;
/// Operator session on the sub-account (not a master key).
const SUB_OPERATOR: u64 = 3;
/// Trading session on the master account.
const TRADER: u64 = 4;

struct Setup {
    h: Harness,
    clock: Arc<ManualClock>,
    master: RestClient,
    sub: RestClient,
    thin: RestClient,
}

fn creds(key: &str, secret: &str, pass: &str) -> ExchangeCredentials {
    ExchangeCredentials {
        api_key: key.into(),
        secret: Secret::new(secret),
        passphrase: Secret::new(pass),
    }
}

fn sub_account(uid: u64, n: &str) -> AccountConfig {
    AccountConfig {
        uid: uid.to_string(),
        api_key: format!("key-{n}"),
        secret: format!("secret-{n}"),
        passphrase: format!("pass-{n}"),
        master_uid: Some(MASTER_UID.to_string()),
        ..AccountConfig::default()
    }
}

/// Simulator (demo instruments and liquidity, no walk; the demo account is the whitelisted
/// master; sub-accounts `sub` and `thin` (1 000 USDT)) on a manual clock at [`T0`], and a
/// gateway with the three accounts, the master configured as master.
fn start() -> Setup {
    let mut cfg = sim::SimConfig::demo();
    // The gateway signs with the system clock: accept any timestamp.
    cfg.login_window_s = 400_000_000;
    cfg.liquidity.walk_percent = 0;
    cfg.accounts[0].move_positions_whitelist = true;
    let mut thin = sub_account(THIN_UID, "thin");
    thin.balances = vec![CoinBalance {
        coin: "USDT".into(),
        amount: d("1000"),
    }];
    cfg.accounts.push(sub_account(SUB_UID, "sub"));
    cfg.accounts.push(thin);
    let clock = Arc::new(ManualClock::new(T0));
    let (rt, sim) = start_sim_with_clock(cfg, clock.clone());
    let mut s = settings_for(&sim, "demo-secret");
    s.accounts.push(AccountSettings::new(
        "sub",
        creds("key-sub", "secret-sub", "pass-sub"),
    ));
    s.accounts.push(AccountSettings::new(
        "thin",
        creds("key-thin", "secret-thin", "pass-thin"),
    ));
    for g in &mut s.sessions {
        match g.session_id {
            OPERATOR => g.role = SessionRole::Operator,
            SUB_OPERATOR => {
                g.role = SessionRole::Operator;
                g.account = 1;
            }
            _ => {}
        }
    }
    s.moves.masters = vec![0];
    let c = clock.clone();
    s.moves.clock = UtcClock(Arc::new(move || c.now_ms()));
    let tls = client_config(Some(&sim.ca_cert_pem())).unwrap();
    let rest = |c: ExchangeCredentials| {
        RestClient::new(&sim.rest_url(), &tls, Duration::from_secs(5), Some(c)).unwrap()
    };
    let master = rest(creds("bg_demo_key", "demo-secret", "demo-pass"));
    let sub = rest(creds("key-sub", "secret-sub", "pass-sub"));
    let thin = rest(creds("key-thin", "secret-thin", "pass-thin"));
    let gw = gateway::engine::Gateway::start(s).expect("gateway starts");
    Setup {
        h: Harness {
            rt,
            sim: Some(sim),
            gw: Some(gw),
        },
        clock,
        master,
        sub,
        thin,
    }
}

impl Setup {
    fn moves_sent(&self) -> u64 {
        self.h.sim().stats().move_positions_requests
    }

    /// A market order over signed REST.
    fn market(&self, rest: &RestClient, side: &str, qty: &str) {
        let body = format!(
            r#"{{"category":"USDT-FUTURES","symbol":"BTCUSDT","side":"{side}","orderType":"market","qty":"{qty}"}}"#
        );
        self.h
            .rt
            .block_on(rest.signed_post("/api/v3/trade/place-order", &body, SystemTime::now()))
            .expect("market order");
    }

    /// BTCUSDT positions (posSide, total) of an account over signed REST.
    fn positions(&self, rest: &RestClient) -> Vec<(String, Decimal)> {
        self.h
            .rt
            .block_on(rest.current_positions("USDT-FUTURES", Some("BTCUSDT"), SystemTime::now()))
            .unwrap()
            .into_iter()
            .map(|p| (p.pos_side, p.total))
            .collect()
    }
}

fn btc() -> Symbol {
    Symbol::new("BTCUSDT").unwrap()
}

/// Sends one frame and returns the next AccountRequestReport (other reports are skipped).
fn account_request(s: &mut Strategy, encode: impl FnOnce(&mut Vec<u8>)) -> AccountRequestReport {
    s.c.send_frame(encode).unwrap();
    loop {
        match s.next_message() {
            Received::AccountRequestReport(r) => return r,
            Received::PositionReport(_) | Received::AccountBalanceReport(_) | Received::Exec(_) => {
            }
            other => panic!("expected AccountRequestReport, got {other:?}"),
        }
    }
}

fn set_leverage(s: &mut Strategy, id: u64, lev: &str) -> AccountRequestReport {
    let m = SetLeverage {
        request_id: id,
        transact_time: 0,
        symbol: btc(),
        coin: Symbol::default(),
        leverage: d(lev),
        category: Category::UsdtFutures,
        pos_side: PosSide::None,
    };
    account_request(s, |b| m.encode_frame(b))
}

fn settings(s: &mut Strategy, id: u64) -> AccountRequestReport {
    let m = AccountSettingsRequest {
        request_id: id,
        transact_time: 0,
        symbol: btc(),
        category: Some(Category::UsdtFutures),
    };
    account_request(s, |b| m.encode_frame(b))
}

fn set_hold_mode(s: &mut Strategy, id: u64, mode: HoldMode) -> AccountRequestReport {
    let m = SetHoldMode {
        request_id: id,
        transact_time: 0,
        hold_mode: mode,
    };
    account_request(s, |b| m.encode_frame(b))
}

/// Sends a MovePositions and returns its report.
fn move_positions(
    s: &mut Strategy,
    id: u64,
    from: u64,
    to: u64,
    category: Category,
    items: &[(Side, &str)],
) -> (MovePositionsReport, Vec<MovePositionsReportEntry>) {
    let m = MovePositions {
        move_positions_id: id,
        transact_time: 0,
        from_uid: from,
        to_uid: to,
        category,
    };
    let entries: Vec<MovePositionsEntry> = items
        .iter()
        .map(|(side, qty)| MovePositionsEntry {
            symbol: btc(),
            side: *side,
            quantity: d(qty),
        })
        .collect();
    s.c.send_frame(|b| {
        m.encode_frame(entries, b).unwrap();
    })
    .unwrap();
    loop {
        match s.next_message() {
            Received::MovePositionsReport(r, e) => {
                assert_eq!(r.move_positions_id, id);
                return (r, e);
            }
            Received::PositionReport(_) | Received::AccountBalanceReport(_) | Received::Exec(_) => {
            }
            other => panic!("expected MovePositionsReport, got {other:?}"),
        }
    }
}

#[test]
fn leverage_is_set_then_read_back_via_settings() {
    let st = start();
    let mut op = st.h.client(OPERATOR);
    let r = set_leverage(&mut op, 1, "17");
    assert_eq!(r.request_status, ItemStatus::Accepted, "{r:?}");
    assert_eq!(r.request_id, 1);
    assert_eq!(r.leverage, Some(d("17")));
    let r = settings(&mut op, 2);
    assert_eq!(r.request_status, ItemStatus::Accepted, "{r:?}");
    assert_eq!(r.leverage, Some(d("17")));
    assert_eq!(r.hold_mode, Some(HoldMode::OneWay));
    assert_eq!(r.symbol, btc());
    // The exchange's refusal carries its code and message (leverage 1..=125).
    let r = set_leverage(&mut op, 3, "200");
    assert_eq!(r.request_status, ItemStatus::Rejected, "{r:?}");
    assert_eq!(r.exchange_code, 40017);
    assert!(!r.text.as_str().is_empty());
    assert_eq!(settings(&mut op, 4).leverage, Some(d("17")));
}

#[test]
fn hold_mode_change_is_refused_with_an_open_order_and_accepted_without() {
    let st = start();
    let mut op = st.h.client(OPERATOR);
    let mut tr = st.h.client(TRADER);
    let cl = tr.limit(Side::Buy, codec::sbe::TimeInForce::Gtc, "50000", "0.01");
    let er = tr.exec();
    assert_eq!(er.cl_ord_id, cl);
    let r = set_hold_mode(&mut op, 1, HoldMode::Hedge);
    assert_eq!(r.request_status, ItemStatus::Rejected, "{r:?}");
    assert_eq!(r.exchange_code, 40920);
    assert_eq!(settings(&mut op, 2).hold_mode, Some(HoldMode::OneWay));
    // Cancel the order, then the change is accepted.
    let body = format!(
        r#"{{"category":"USDT-FUTURES","symbol":"BTCUSDT","orderId":"{}"}}"#,
        er.order_id
    );
    st.h.rt
        .block_on(
            st.master
                .signed_post("/api/v3/trade/cancel-order", &body, SystemTime::now()),
        )
        .expect("cancel");
    let r = set_hold_mode(&mut op, 3, HoldMode::Hedge);
    assert_eq!(r.request_status, ItemStatus::Accepted, "{r:?}");
    assert_eq!(r.hold_mode, Some(HoldMode::Hedge));
    assert_eq!(settings(&mut op, 4).hold_mode, Some(HoldMode::Hedge));
}

#[test]
fn max_open_available_figures_match_the_exchange() {
    let st = start();
    let mut tr = st.h.client(TRADER);
    let m = MaxOpenAvailableRequest {
        request_id: 7,
        transact_time: 0,
        price: Some(d("60000")),
        order_qty: Some(d("0.01")),
        symbol: btc(),
        category: Category::UsdtFutures,
        side: Side::Buy,
        ord_type: OrdType::Limit,
    };
    let r = account_request(&mut tr, |b| m.encode_frame(b));
    assert_eq!(r.request_status, ItemStatus::Accepted, "{r:?}");
    let want =
        st.h.rt
            .block_on(st.master.max_open_available(
                "USDT-FUTURES",
                "BTCUSDT",
                "limit",
                "buy",
                Some(d("60000")),
                Some(d("0.01")),
                SystemTime::now(),
            ))
            .unwrap();
    assert!(want.max_buy_open.is_some_and(|x| x.is_positive()));
    assert_eq!(r.available, want.available);
    assert_eq!(r.max_buy_open, want.max_buy_open);
    assert_eq!(r.max_sell_open, want.max_sell_open);
    // An unknown symbol: the exchange's code.
    let bad = MaxOpenAvailableRequest {
        request_id: 8,
        symbol: Symbol::new("NOPEUSDT").unwrap(),
        ..m
    };
    let r = account_request(&mut tr, |b| bad.encode_frame(b));
    assert_eq!(r.request_status, ItemStatus::Rejected);
    assert_eq!(r.exchange_code, 25100);
}

#[test]
fn a_position_moves_from_master_to_sub_and_spacing_is_enforced() {
    let st = start();
    st.market(&st.master, "buy", "0.1");
    assert_eq!(st.positions(&st.master), vec![("long".into(), d("0.1"))]);
    let mut op = st.h.client(OPERATOR);
    let (r, e) = move_positions(
        &mut op,
        1,
        MASTER_UID,
        SUB_UID,
        Category::UsdtFutures,
        &[(Side::Sell, "0.03"), (Side::Sell, "0.01")],
    );
    assert_eq!(r.request_status, ItemStatus::Accepted, "{r:?} {e:?}");
    assert_eq!(r.move_reject_reason, None);
    assert_eq!(e.len(), 2);
    for item in &e {
        assert_eq!(item.item_status, ItemStatus::Accepted, "{item:?}");
        assert_eq!(item.symbol, btc());
        assert_eq!(item.side, Side::Sell);
        assert_ne!(item.close_order_id, 0);
        assert_ne!(item.open_order_id, 0);
        assert_eq!((item.close_exchange_code, item.open_exchange_code), (0, 0));
    }
    assert_ne!(e[0].close_order_id, e[1].close_order_id);
    assert_eq!(st.positions(&st.master), vec![("long".into(), d("0.06"))]);
    assert_eq!(st.positions(&st.sub), vec![("long".into(), d("0.04"))]);
    assert_eq!(st.moves_sent(), 1);
    // Less than a minute later: refused before sending.
    st.clock.advance(59_999);
    let (r, e) = move_positions(
        &mut op,
        2,
        MASTER_UID,
        SUB_UID,
        Category::UsdtFutures,
        &[(Side::Sell, "0.01")],
    );
    assert_eq!(r.request_status, ItemStatus::Rejected);
    assert_eq!(
        r.move_reject_reason,
        Some(MovePositionsRejectReason::TooFrequent)
    );
    assert!(e.is_empty());
    assert_eq!(st.moves_sent(), 1);
    // A minute after the success it goes (sub back to master).
    st.clock.advance(1);
    let (r, e) = move_positions(
        &mut op,
        3,
        SUB_UID,
        MASTER_UID,
        Category::UsdtFutures,
        &[(Side::Sell, "0.04")],
    );
    assert_eq!(r.request_status, ItemStatus::Accepted, "{r:?} {e:?}");
    assert_eq!(st.moves_sent(), 2);
    assert_eq!(st.positions(&st.sub), vec![]);
    assert_eq!(st.positions(&st.master), vec![("long".into(), d("0.1"))]);
}

#[test]
fn every_refusal_is_caught_before_sending() {
    let st = start();
    st.market(&st.master, "buy", "0.1");
    st.market(&st.thin, "buy", "0.1");
    let mut op = st.h.client(OPERATOR);
    let mut sub_op = st.h.client(SUB_OPERATOR);
    use MovePositionsRejectReason as R;
    let usdt = Category::UsdtFutures;
    let sell = |q: &'static str| vec![(Side::Sell, q)];
    // (name, session is the sub's, from, to, category, items, clock, expected reason)
    type Case = (
        &'static str,
        bool,
        u64,
        u64,
        Category,
        Vec<(Side, &'static str)>,
        u64,
        R,
    );
    let cases: Vec<Case> = vec![
        (
            "not a master key",
            true,
            MASTER_UID,
            SUB_UID,
            usdt,
            sell("0.01"),
            T0,
            R::NotMasterAccount,
        ),
        (
            "spot",
            false,
            MASTER_UID,
            SUB_UID,
            Category::Spot,
            sell("0.01"),
            T0,
            R::CategoryNotAllowed,
        ),
        (
            "coin futures",
            false,
            MASTER_UID,
            SUB_UID,
            Category::CoinFutures,
            sell("0.01"),
            T0,
            R::CategoryNotAllowed,
        ),
        (
            "no items",
            false,
            MASTER_UID,
            SUB_UID,
            usdt,
            vec![],
            T0,
            R::Other,
        ),
        (
            "same uid",
            false,
            MASTER_UID,
            MASTER_UID,
            usdt,
            sell("0.01"),
            T0,
            R::InvalidUid,
        ),
        (
            "unknown uid",
            false,
            MASTER_UID,
            42,
            usdt,
            sell("0.01"),
            T0,
            R::InvalidUid,
        ),
        (
            "5 min after the hour",
            false,
            MASTER_UID,
            SUB_UID,
            usdt,
            sell("0.01"),
            TEN + 299_999,
            R::NearFundingTime,
        ),
        (
            "5 min before the hour",
            false,
            MASTER_UID,
            SUB_UID,
            usdt,
            sell("0.01"),
            TEN - 300_000,
            R::NearFundingTime,
        ),
        (
            "no such position",
            false,
            MASTER_UID,
            SUB_UID,
            usdt,
            vec![(Side::Buy, "0.01")],
            T0,
            R::InsufficientPosition,
        ),
        (
            "source has none",
            false,
            SUB_UID,
            MASTER_UID,
            usdt,
            sell("0.01"),
            T0,
            R::InsufficientPosition,
        ),
        (
            "qty above position",
            false,
            MASTER_UID,
            SUB_UID,
            usdt,
            sell("0.11"),
            T0,
            R::InsufficientPosition,
        ),
        (
            "items above position",
            false,
            MASTER_UID,
            SUB_UID,
            usdt,
            vec![(Side::Sell, "0.06"), (Side::Sell, "0.05")],
            T0,
            R::InsufficientPosition,
        ),
    ];
    for (i, (name, on_sub, from, to, cat, items, t, want)) in cases.into_iter().enumerate() {
        st.clock.set(t);
        let s = if on_sub { &mut sub_op } else { &mut op };
        let (r, e) = move_positions(s, i as u64 + 1, from, to, cat, &items);
        assert_eq!(r.request_status, ItemStatus::Rejected, "{name}: {r:?}");
        assert_eq!(r.move_reject_reason, Some(want), "{name}: {r:?}");
        assert!(!r.text.as_str().is_empty(), "{name}");
        assert_eq!(r.exchange_code, 0, "{name}");
        assert!(e.is_empty(), "{name}");
        assert_eq!(st.moves_sent(), 0, "{name}: nothing sent");
    }
    // Source MMR ≥ 80 % (thin: 1000 USDT, long 0.1 at 60000.5, mark 50250 → ≈ 94 %).
    st.clock.set(T0);
    assert!(st
        .h
        .sim()
        .set_mark(sim::Category::UsdtFutures, "BTCUSDT", Some(d("50250"))));
    let (r, _) = move_positions(&mut op, 50, THIN_UID, SUB_UID, usdt, &sell("0.1"));
    assert_eq!(r.move_reject_reason, Some(R::SourceMmrTooHigh), "{r:?}");
    assert_eq!(st.moves_sent(), 0);
    // At mark 50400 (≈ 55 %) the same move goes.
    assert!(st
        .h
        .sim()
        .set_mark(sim::Category::UsdtFutures, "BTCUSDT", Some(d("50400"))));
    let (r, e) = move_positions(&mut op, 51, THIN_UID, SUB_UID, usdt, &sell("0.1"));
    assert_eq!(r.request_status, ItemStatus::Accepted, "{r:?} {e:?}");
    assert_eq!(st.moves_sent(), 1);
    assert_eq!(st.positions(&st.thin), vec![]);
    assert_eq!(st.positions(&st.sub), vec![("long".into(), d("0.1"))]);
}

#[test]
fn fifty_moves_a_day_then_refused_before_sending() {
    let st = start();
    st.market(&st.master, "buy", "0.1");
    let mut op = st.h.client(OPERATOR);
    let day0 = TEN - 10 * 3_600_000;
    let mut n = 0u64;
    'day: for hour in 1..=10u64 {
        for min in [10u64, 20, 30, 40, 50] {
            st.clock.set(day0 + hour * 3_600_000 + min * 60_000);
            n += 1;
            let (r, e) = move_positions(
                &mut op,
                n,
                MASTER_UID,
                SUB_UID,
                Category::UsdtFutures,
                &[(Side::Sell, "0.001")],
            );
            assert_eq!(
                r.request_status,
                ItemStatus::Accepted,
                "move {n}: {r:?} {e:?}"
            );
            if n == 50 {
                break 'day;
            }
        }
    }
    assert_eq!(st.moves_sent(), 50);
    st.clock.set(day0 + 11 * 3_600_000 + 600_000);
    let (r, _) = move_positions(
        &mut op,
        51,
        MASTER_UID,
        SUB_UID,
        Category::UsdtFutures,
        &[(Side::Sell, "0.001")],
    );
    assert_eq!(
        r.move_reject_reason,
        Some(MovePositionsRejectReason::DailyLimit)
    );
    assert_eq!(st.moves_sent(), 50);
    // The next UTC day counts again.
    st.clock.set(day0 + 24 * 3_600_000 + 600_000);
    let (r, _) = move_positions(
        &mut op,
        52,
        MASTER_UID,
        SUB_UID,
        Category::UsdtFutures,
        &[(Side::Sell, "0.001")],
    );
    assert_eq!(r.request_status, ItemStatus::Accepted, "{r:?}");
    assert_eq!(st.moves_sent(), 51);
    assert_eq!(st.positions(&st.sub), vec![("long".into(), d("0.051"))]);
}
