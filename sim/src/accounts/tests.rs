//! Unit tests of the accounts: position arithmetic in both modes, PnL, fees, balances,
//! reduce-only, hold-mode changes, financial records.
#![allow(clippy::unwrap_used)]

use super::*;
use crate::config::{CoinBalance, SimConfig};

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

fn setup(mode: HoldMode) -> (Accounts, InstrumentConfig, InstrumentConfig) {
    let cfg = SimConfig::demo();
    let mut a = cfg.accounts[0].clone();
    a.hold_mode = mode;
    a.balances = vec![
        CoinBalance {
            coin: "USDT".into(),
            amount: d("10000"),
        },
        CoinBalance {
            coin: "BTC".into(),
            amount: d("1"),
        },
    ];
    let fut = cfg.instruments[0].clone();
    let spot = cfg.instruments[2].clone();
    assert!(fut.category.is_futures() && fut.symbol == "BTCUSDT");
    assert_eq!(spot.category, Category::Spot);
    (Accounts::new(&[a]), fut, spot)
}

const A: AccountId = AccountId(0);

fn bal(acc: &Accounts, coin: &str) -> Decimal {
    acc.get(A).unwrap().balances.get(coin).copied().unwrap()
}

fn pos(acc: &Accounts, side: PosSide) -> Option<Position> {
    acc.get(A)
        .unwrap()
        .positions
        .get(&(Category::UsdtFutures, "BTCUSDT".to_string(), side))
        .cloned()
}

#[allow(clippy::too_many_arguments)]
fn fill(
    acc: &mut Accounts,
    inst: &InstrumentConfig,
    side: Side,
    ps: Option<PosSide>,
    ro: bool,
    price: &str,
    qty: &str,
    fee: &str,
) -> FillEffect {
    acc.apply_fill(A, inst, side, ps, ro, d(price), d(qty), d(fee), 1)
}

#[test]
fn one_way_open_increase_reduce_flip_close() {
    let (mut acc, fut, _) = setup(HoldMode::OneWayMode);
    fill(&mut acc, &fut, Side::Buy, None, false, "100", "1", "0.06");
    fill(&mut acc, &fut, Side::Buy, None, false, "110", "3", "0.198");
    let p = pos(&acc, PosSide::Long).unwrap();
    assert_eq!(p.size, d("4"));
    assert_eq!(p.avg_price, d("107.5")); // (100 + 330) / 4
    assert_eq!(p.open_fee_total, d("-0.258"));
    // Reduce 1 at 117.5: +10 realised.
    fill(
        &mut acc,
        &fut,
        Side::Sell,
        None,
        false,
        "117.5",
        "1",
        "0.07",
    );
    let p = pos(&acc, PosSide::Long).unwrap();
    assert_eq!(p.size, d("3"));
    assert_eq!(p.realised, d("10"));
    assert_eq!(p.close_fee_total, d("-0.07"));
    // balance = 10000 − 0.06 − 0.198 + 10 − 0.07
    assert_eq!(bal(&acc, "USDT"), d("10009.672"));
    // Flip: sell 5 at 100 closes 3 (−22.5) and opens 2 short; the fee splits 3/5 : 2/5.
    let e = fill(&mut acc, &fut, Side::Sell, None, false, "100", "5", "1");
    assert_eq!(e.positions.len(), 2);
    assert_eq!(e.positions[0].size, Decimal::ZERO); // the long ended
    assert!(pos(&acc, PosSide::Long).is_none());
    let s = pos(&acc, PosSide::Short).unwrap();
    assert_eq!(s.size, d("2"));
    assert_eq!(s.avg_price, d("100"));
    assert_eq!(s.open_fee_total, d("-0.4"));
    assert_eq!(bal(&acc, "USDT"), d("9986.172")); // 10009.672 − 22.5 − 1
                                                  // Close the short at 90: +20.
    fill(&mut acc, &fut, Side::Buy, None, false, "90", "2", "0");
    assert!(pos(&acc, PosSide::Short).is_none());
    assert_eq!(bal(&acc, "USDT"), d("10006.172"));
}

#[test]
fn hedge_mode_long_and_short_side_by_side() {
    let (mut acc, fut, _) = setup(HoldMode::HedgeMode);
    fill(
        &mut acc,
        &fut,
        Side::Buy,
        Some(PosSide::Long),
        false,
        "100",
        "2",
        "0",
    );
    fill(
        &mut acc,
        &fut,
        Side::Sell,
        Some(PosSide::Short),
        false,
        "101",
        "1",
        "0",
    );
    assert_eq!(pos(&acc, PosSide::Long).unwrap().size, d("2"));
    assert_eq!(pos(&acc, PosSide::Short).unwrap().size, d("1"));
    // Close the long partly at 105: +5; the short is untouched.
    fill(
        &mut acc,
        &fut,
        Side::Sell,
        Some(PosSide::Long),
        false,
        "105",
        "1",
        "0.1",
    );
    assert_eq!(pos(&acc, PosSide::Long).unwrap().size, d("1"));
    assert_eq!(pos(&acc, PosSide::Long).unwrap().realised, d("5"));
    assert_eq!(pos(&acc, PosSide::Short).unwrap().size, d("1"));
    // Close the short at 91: +10; an oversized close stops at the position.
    fill(
        &mut acc,
        &fut,
        Side::Buy,
        Some(PosSide::Short),
        false,
        "91",
        "3",
        "0",
    );
    assert!(pos(&acc, PosSide::Short).is_none());
    assert_eq!(bal(&acc, "USDT"), d("10014.9"));
}

#[test]
fn unrealised_and_account_figures_follow_the_mark() {
    let (mut acc, fut, _) = setup(HoldMode::OneWayMode);
    fill(&mut acc, &fut, Side::Sell, None, false, "60000", "0.1", "0");
    let mut marks = Marks::new();
    marks.insert((Category::UsdtFutures, "BTCUSDT".into()), d("59000"));
    assert_eq!(acc.unrealised(A, "USDT", &marks), d("100"));
    assert_eq!(acc.equity(A, "USDT", &marks), d("10100"));
    // IM = 0.1 × 59000 / 10 = 590.
    assert_eq!(acc.available(A, "USDT", &marks), d("9510"));
    let insts = [fut.clone()];
    let sm = acc.summary(A, &insts, &marks);
    assert_eq!(sm.mm, d("23.6")); // 5900 × 0.004
                                  // Total equity: 10100 USDT + 1 BTC valued at the BTCUSDT mark.
    assert_eq!(sm.total_equity, d("69100"));
    assert_eq!(sm.mmr(), div(d("23.6"), d("69100")));
    let push = acc.account_push(A, &insts, &marks, 5);
    assert!(push.contains("\"unrealisedPnL\":\"100\""), "{push}");
}

#[test]
fn spot_fills_move_base_and_quote_with_fee_in_quote() {
    let (mut acc, _, spot) = setup(HoldMode::OneWayMode);
    fill(
        &mut acc,
        &spot,
        Side::Buy,
        None,
        false,
        "60000",
        "0.01",
        "0.6",
    );
    assert_eq!(bal(&acc, "BTC"), d("1.01"));
    assert_eq!(bal(&acc, "USDT"), d("9399.4"));
    fill(
        &mut acc,
        &spot,
        Side::Sell,
        None,
        false,
        "61000",
        "0.5",
        "30.5",
    );
    assert_eq!(bal(&acc, "BTC"), d("0.51"));
    assert_eq!(bal(&acc, "USDT"), d("39868.9"));
    let recs = &acc.get(A).unwrap().records;
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[1].fee, d("-30.5"));
}

#[test]
fn entry_checks_balance_margin_and_reduce_only() {
    let (mut acc, fut, spot) = setup(HoldMode::OneWayMode);
    let marks = Marks::new();
    let chk = |acc: &Accounts, inst, side, qty: &str, price: Option<&str>, ro| {
        acc.check_order(
            A,
            &OrderCheck {
                inst,
                side,
                qty: d(qty),
                price: price.map(d),
                pos_side: None,
                reduce_only: ro,
            },
            &marks,
        )
    };
    // Spot: 10000 USDT buys 0.16 BTC at 60000 but not 0.2; 1 BTC to sell, not 2.
    assert_eq!(
        chk(&acc, &spot, Side::Buy, "0.16", Some("60000"), false),
        Ok(None)
    );
    assert_eq!(
        chk(&acc, &spot, Side::Buy, "0.2", Some("60000"), false),
        Err(AccountError::InsufficientBalance)
    );
    assert_eq!(
        chk(&acc, &spot, Side::Sell, "2", Some("60000"), false),
        Err(AccountError::InsufficientBalance)
    );
    // Futures at 10x: 1.6 BTC at 60000 needs 9600 + fees 57.6 — ok; 1.7 is not.
    assert_eq!(
        chk(&acc, &fut, Side::Buy, "1.6", Some("60000"), false),
        Ok(None)
    );
    assert_eq!(
        chk(&acc, &fut, Side::Buy, "1.7", Some("60000"), false),
        Err(AccountError::InsufficientMargin)
    );
    // Reduce-only without a position.
    assert_eq!(
        chk(&acc, &fut, Side::Sell, "0.1", Some("60000"), true),
        Err(AccountError::NoPosition)
    );
    fill(&mut acc, &fut, Side::Buy, None, false, "60000", "0.5", "0");
    // Reduce-only larger than the position is trimmed to it (reference §8).
    assert_eq!(
        chk(&acc, &fut, Side::Sell, "0.8", Some("60000"), true),
        Ok(Some(d("0.5")))
    );
    assert_eq!(
        chk(&acc, &fut, Side::Sell, "0.3", Some("60000"), true),
        Ok(None)
    );
    // Buying reduce-only against a long: nothing to reduce.
    assert_eq!(
        chk(&acc, &fut, Side::Buy, "0.1", Some("60000"), true),
        Err(AccountError::NoPosition)
    );
    // A reduce-only fill never flips.
    fill(&mut acc, &fut, Side::Sell, None, true, "60000", "0.8", "0");
    assert!(pos(&acc, PosSide::Long).is_none());
    assert!(pos(&acc, PosSide::Short).is_none());
}

#[test]
fn hedge_entry_checks() {
    let (mut acc, fut, _) = setup(HoldMode::HedgeMode);
    let marks = Marks::new();
    let chk = |acc: &Accounts, side, ps, qty: &str, ro| {
        acc.check_order(
            A,
            &OrderCheck {
                inst: &fut,
                side,
                qty: d(qty),
                price: Some(d("60000")),
                pos_side: ps,
                reduce_only: ro,
            },
            &marks,
        )
    };
    assert_eq!(
        chk(&acc, Side::Buy, None, "0.1", false),
        Err(AccountError::Param("posSide".into()))
    );
    assert_eq!(
        chk(&acc, Side::Sell, Some(PosSide::Long), "0.1", false),
        Err(AccountError::NoPosition)
    );
    assert_eq!(
        chk(&acc, Side::Buy, Some(PosSide::Long), "0.1", true),
        Err(AccountError::ReduceOnlyConflict)
    );
    fill(
        &mut acc,
        &fut,
        Side::Buy,
        Some(PosSide::Long),
        false,
        "60000",
        "0.1",
        "0",
    );
    assert_eq!(
        chk(&acc, Side::Sell, Some(PosSide::Long), "0.1", false),
        Ok(None)
    );
    assert_eq!(
        chk(&acc, Side::Sell, Some(PosSide::Long), "0.2", false),
        Err(AccountError::CloseTooLarge)
    );
}

#[test]
fn hold_mode_change_needs_no_positions_and_no_orders() {
    let (mut acc, fut, _) = setup(HoldMode::OneWayMode);
    assert_eq!(
        acc.set_hold_mode(A, HoldMode::HedgeMode, true),
        Err(AccountError::PositionsOrOrders)
    );
    fill(&mut acc, &fut, Side::Buy, None, false, "100", "1", "0");
    let e = acc
        .set_hold_mode(A, HoldMode::HedgeMode, false)
        .unwrap_err();
    assert_eq!(e.code(), 40920);
    fill(&mut acc, &fut, Side::Sell, None, false, "100", "1", "0");
    acc.set_hold_mode(A, HoldMode::HedgeMode, false).unwrap();
    assert_eq!(acc.get(A).unwrap().hold_mode, HoldMode::HedgeMode);
}

#[test]
fn leverage_bounds_and_default() {
    let (mut acc, _, _) = setup(HoldMode::OneWayMode);
    assert_eq!(
        acc.leverage(A, Category::UsdtFutures, "BTCUSDT"),
        Decimal::from(10)
    );
    assert!(acc
        .set_leverage(A, Category::UsdtFutures, "BTCUSDT", d("0"))
        .is_err());
    assert!(acc
        .set_leverage(A, Category::UsdtFutures, "BTCUSDT", d("126"))
        .is_err());
    assert!(acc
        .set_leverage(A, Category::UsdtFutures, "BTCUSDT", d("2.5"))
        .is_err());
    acc.set_leverage(A, Category::UsdtFutures, "BTCUSDT", d("20"))
        .unwrap();
    assert_eq!(
        acc.leverage(A, Category::UsdtFutures, "BTCUSDT"),
        Decimal::from(20)
    );
}

#[test]
fn financial_records_paginate_below_the_cursor() {
    let (mut acc, fut, _) = setup(HoldMode::OneWayMode);
    for _ in 0..5 {
        fill(
            &mut acc,
            &fut,
            Side::Buy,
            None,
            false,
            "100",
            "0.01",
            "0.01",
        );
    }
    let page: serde_json::Value =
        serde_json::from_str(&acc.records_json(A, None, None, 2, None)).unwrap();
    let ids: Vec<u64> = page["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().parse().unwrap())
        .collect();
    assert_eq!(ids, vec![5, 4]);
    assert_eq!(page["cursor"], "4");
    let page: serde_json::Value =
        serde_json::from_str(&acc.records_json(A, None, None, 100, Some(4))).unwrap();
    assert_eq!(page["list"].as_array().unwrap().len(), 3);
    assert_eq!(page["list"][0]["id"], "3");
    assert_eq!(page["list"][0]["fee"], "-0.01");
    assert_eq!(page["cursor"], "");
}

#[test]
fn sub_accounts_share_the_stp_party_of_their_master() {
    let cfg = SimConfig::demo();
    let master = cfg.accounts[0].clone();
    let mut sub = master.clone();
    sub.uid = "sub".into();
    sub.api_key = "k2".into();
    sub.master_uid = Some(master.uid.clone());
    let mut other = master.clone();
    other.uid = "other".into();
    let acc = Accounts::new(&[master, sub, other]);
    let p = acc.stp_parties();
    assert_eq!(p[&AccountId(1)], AccountId(0));
    assert_eq!(p[&AccountId(0)], AccountId(0));
    assert_eq!(p[&AccountId(2)], AccountId(2));
}

#[test]
fn basic_accounts_cannot_trade_spot_margin() {
    let (mut acc, _, spot) = setup(HoldMode::OneWayMode);
    let mut margin = spot.clone();
    margin.category = Category::Margin;
    let check = OrderCheck {
        inst: &margin,
        side: Side::Buy,
        qty: d("0.01"),
        price: Some(d("60000")),
        pos_side: None,
        reduce_only: false,
    };
    assert_eq!(acc.check_order(A, &check, &Marks::new()), Ok(None));
    acc.get_mut(A).unwrap().level = AccountLevel::Basic;
    let e = acc.check_order(A, &check, &Marks::new()).unwrap_err();
    assert_eq!(e.code(), 40014);
    // Spot itself stays open to basic accounts.
    let spot_check = OrderCheck {
        inst: &spot,
        ..check
    };
    assert_eq!(acc.check_order(A, &spot_check, &Marks::new()), Ok(None));
}

#[test]
fn financial_records_keep_the_last_records_kept_in_a_ring_that_never_grows() {
    let (mut acc, fut, _) = setup(HoldMode::OneWayMode);
    let side = |i: usize| {
        if i.is_multiple_of(2) {
            Side::Buy
        } else {
            Side::Sell
        }
    };
    fill(&mut acc, &fut, side(0), None, false, "100", "0.01", "0.01");
    let capacity = acc.get(A).unwrap().records.capacity();
    assert!(capacity >= RECORDS_KEPT);
    let n = RECORDS_KEPT + 25_000;
    for i in 1..n {
        fill(&mut acc, &fut, side(i), None, false, "100", "0.01", "0.01");
    }
    let recs = &acc.get(A).unwrap().records;
    assert_eq!(recs.len(), RECORDS_KEPT);
    assert_eq!(recs.capacity(), capacity, "the ring grew or moved");
    // The oldest left first: ids 1..=25 000 are gone, the rest are kept in order.
    let first = recs.front().unwrap().id;
    let last = recs.back().unwrap().id;
    assert_eq!(last - first + 1, RECORDS_KEPT as u64);
    assert_eq!(last, n as u64);
    // The query still pages the kept window, newest first, down to its oldest record.
    let page: serde_json::Value =
        serde_json::from_str(&acc.records_json(A, None, None, 2, None)).unwrap();
    assert_eq!(page["list"][0]["id"], n.to_string());
    let page: serde_json::Value =
        serde_json::from_str(&acc.records_json(A, None, None, 100, Some(first + 2))).unwrap();
    let ids: Vec<&str> = page["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec![(first + 1).to_string(), first.to_string()]);
}
