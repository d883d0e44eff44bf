//! The gateway's pre-trade checks and the simulator agree on the venue rules of issue 27: one
//! list of orders and modifications goes (a) straight to the simulator over its real signed
//! REST API (account "direct") and (b) through the gateway (the demo account), each account
//! with the same open orders. Every item the venue refuses with `25205` / `25206` (price band)
//! or `25211` (open-order caps) the gateway refuses first, with nothing sent to the venue;
//! every item the venue accepts the gateway sends, and the venue accepts it. What the gateway
//! cannot know ahead (`25569` modification count, `25572` pending modifications: the venue's
//! own per-order bookkeeping and timing) reaches the strategy as a reject with the exchange
//! code.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use codec::sbe::{
    BoolFlag, Category, ExecType, NewOrderSingle, OrdRejReason, OrdType, OrderCancelReplaceRequest,
    PosSide, Side, StpMode, Symbol, TimeInForce,
};
use e2e::{d, quiet_sim_config, settings_for, start_sim, with_price_band, Harness, Strategy};
use gateway::exchange::sign::Secret;
use gateway::exchange::ws::ExchangeCredentials;
use gateway::exchange::ExchangeError;
use strategy_client::Received;

fn direct_creds() -> ExchangeCredentials {
    ExchangeCredentials {
        api_key: "key-direct".into(),
        secret: Secret::new("secret-direct"),
        passphrase: Secret::new("pass-direct"),
    }
}

/// A quiet simulator (caps: 3 per symbol, 4 per product line; band 5 %; at most 2
/// modifications per order, `max_pending` 1 in progress for 60 s when `pending`) with a
/// second account "direct", marks pinned (BTCUSDT 50 000, ETHUSDT 3 000), and a gateway that
/// knows them (marks refreshed every 20 ms).
fn start(pending: bool) -> Harness {
    let mut cfg = with_price_band(quiet_sim_config(), "0.05");
    for i in &mut cfg.instruments {
        i.max_symbol_order_num = 3;
        i.max_product_order_num = 4;
    }
    cfg.max_modifications_per_order = 2;
    if pending {
        cfg.max_pending_modifications = 1;
        cfg.modify_pending_ms = 60_000;
    }
    cfg.accounts.push(sim::AccountConfig {
        uid: "7000000003".into(),
        api_key: "key-direct".into(),
        secret: "secret-direct".into(),
        passphrase: "pass-direct".into(),
        ..sim::AccountConfig::default()
    });
    let (rt, sim) = start_sim(cfg);
    assert!(sim.set_mark(sim::Category::UsdtFutures, "BTCUSDT", Some(d("50000"))));
    assert!(sim.set_mark(sim::Category::UsdtFutures, "ETHUSDT", Some(d("3000"))));
    let mut s = settings_for(&sim, "demo-secret");
    s.risk.mark_refresh_ms = 20;
    let gw = gateway::engine::Gateway::start(s).expect("gateway starts");
    for sym in ["BTCUSDT", "ETHUSDT"] {
        let sym = Symbol::new(sym).unwrap();
        while gw.risk_book().mark(Category::UsdtFutures, &sym).is_none() {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
    Harness {
        rt,
        sim: Some(sim),
        gw: Some(gw),
    }
}

/// One step of the list.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// A GTC limit order: (symbol, side, price); qty is the symbol's minimum that clears the
    /// notional floor.
    Place(&'static str, Side, &'static str),
    /// A price change of the n-th placed order (0-based, in the order of the list).
    Modify(usize, &'static str),
}

fn qty(symbol: &str) -> &'static str {
    if symbol == "BTCUSDT" {
        "0.001"
    } else {
        "0.01"
    }
}

fn side_str(s: Side) -> &'static str {
    match s {
        Side::Buy => "buy",
        _ => "sell",
    }
}

/// The venue's answer to a direct REST request: 0 or the Bitget code.
fn code_of(r: Result<serde_json::Value, ExchangeError>) -> u32 {
    match r {
        Ok(_) => 0,
        Err(ExchangeError::Rejected { code, .. }) => code,
        Err(e) => panic!("direct request failed: {e}"),
    }
}

/// Everything the venue counted for trade items (places received, modifications accepted,
/// refusals): unchanged = nothing reached the venue.
fn touched(h: &Harness) -> u64 {
    let s = h.sim().stats();
    s.orders_received + s.orders_modified + s.rejects
}

/// The gateway's answer to a NewOrderSingle: New, or Rejected with reason and text.
fn gateway_new(s: &mut Strategy, symbol: &str, side: Side, px: &str) -> (u64, Result<(), String>) {
    let cl = s.next_cl();
    s.c.send_new_order(&NewOrderSingle {
        cl_ord_id: cl,
        transact_time: 0,
        price: Some(d(px)),
        order_qty: d(qty(symbol)),
        symbol: Symbol::new(symbol).unwrap(),
        category: Category::UsdtFutures,
        side,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::Gtc,
        pos_side: PosSide::None,
        reduce_only: BoolFlag::No,
        stp_mode: StpMode::None,
    })
    .unwrap();
    let er = s.exec();
    assert_eq!(er.cl_ord_id, cl);
    match er.exec_type {
        ExecType::New => (cl, Ok(())),
        ExecType::Rejected => (
            cl,
            Err(format!(
                "{:?} {} (exchange code {})",
                er.ord_rej_reason,
                er.text.as_str(),
                er.exchange_code
            )),
        ),
        other => panic!("unexpected {other:?}: {er:?}"),
    }
}

/// Sends a replace of `orig` and returns its ClOrdID.
fn send_replace(s: &mut Strategy, orig: u64, symbol: &str, side: Side, px: &str) -> u64 {
    let cl = s.next_cl();
    s.c.send_replace(&OrderCancelReplaceRequest {
        cl_ord_id: cl,
        orig_cl_ord_id: orig,
        transact_time: 0,
        price: Some(d(px)),
        order_qty: Some(d(qty(symbol))),
        symbol: Symbol::new(symbol).unwrap(),
        category: Category::UsdtFutures,
        side,
        auto_cancel: BoolFlag::No,
    })
    .unwrap();
    cl
}

/// The gateway's answer to a replace: Ok(()) once Replaced, Err((exchange code, text)) on an
/// OrderCancelReject.
fn replace_outcome(s: &mut Strategy, cl: u64) -> Result<(), (u32, String)> {
    loop {
        match s.next_message() {
            Received::Exec(er) if er.exec_type == ExecType::Replaced => {
                assert_eq!(er.cl_ord_id, cl);
                return Ok(());
            }
            Received::Exec(er) if er.exec_type == ExecType::PendingReplace => continue,
            Received::CancelReject(r) => {
                assert_eq!(r.cl_ord_id, cl);
                return Err((r.exchange_code, r.text.as_str().to_string()));
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}

/// The agreement: the same steps on both paths, compared item by item.
#[test]
fn gateway_refuses_first_what_the_venue_refuses() {
    use Step::{Modify, Place};
    let steps = [
        // Price band around the mark 50 000 (5 %): sells below 47 500, buys above 52 500.
        Place("BTCUSDT", Side::Sell, "47499.9"),
        Place("BTCUSDT", Side::Sell, "47500"), // the bound: accepted, rests (no bids)
        Place("BTCUSDT", Side::Buy, "52500.1"),
        Place("BTCUSDT", Side::Buy, "47000"), // far below the mark: not the band's business
        Modify(1, "52600"),                   // buy moved above the band: 25206
        Modify(1, "46000"),                   // accepted
        Place("BTCUSDT", Side::Sell, "90000"), // far above: accepted; 3 BTCUSDT open now
        // maxSymbolOrderNum 3.
        Place("BTCUSDT", Side::Buy, "46000"),
        // The product line: ETHUSDT takes the 4th slot, then maxProductOrderNum 4.
        Place("ETHUSDT", Side::Buy, "3150"),
        Place("ETHUSDT", Side::Buy, "2900"),
        Place("ETHUSDT", Side::Sell, "2849.99"), // band first: 25205
    ];
    let h = start(false);
    let direct = h.rest_client(direct_creds());
    let mut s = h.client(1);
    // Orders placed so far on each path: (direct clientOid, gateway ClOrdID, symbol, side).
    let mut placed: Vec<(String, u64, &str, Side)> = Vec::new();
    let mut venue_refused = 0;
    for (n, step) in steps.iter().enumerate() {
        let (venue_code, gw, sent) = match *step {
            Place(symbol, side, px) => {
                let oid = format!("direct-{n}");
                let body = format!(
                    r#"{{"category":"USDT-FUTURES","symbol":"{symbol}","side":"{}","orderType":"limit","price":"{px}","qty":"{}","timeInForce":"gtc","clientOid":"{oid}"}}"#,
                    side_str(side),
                    qty(symbol)
                );
                let code = code_of(h.rt.block_on(direct.signed_post(
                    "/api/v3/trade/place-order",
                    &body,
                    std::time::SystemTime::now(),
                )));
                let before = touched(&h);
                let (cl, gw) = gateway_new(&mut s, symbol, side, px);
                let sent = touched(&h) != before;
                if code == 0 {
                    placed.push((oid, cl, symbol, side));
                }
                (code, gw, sent)
            }
            Modify(i, px) => {
                let (oid, cl, symbol, side) = placed[i].clone();
                let body = format!(
                    r#"{{"category":"USDT-FUTURES","symbol":"{symbol}","clientOid":"{oid}","price":"{px}"}}"#
                );
                let code = code_of(h.rt.block_on(direct.signed_post(
                    "/api/v3/trade/modify-order",
                    &body,
                    std::time::SystemTime::now(),
                )));
                let before = touched(&h);
                let new_cl = send_replace(&mut s, cl, symbol, side, px);
                let gw = replace_outcome(&mut s, new_cl).map_err(|(c, t)| format!("{t} ({c})"));
                let sent = touched(&h) != before;
                if gw.is_ok() {
                    placed[i].1 = new_cl;
                }
                (code, gw, sent)
            }
        };
        match venue_code {
            0 => {
                assert!(
                    gw.is_ok(),
                    "step {n} {step:?}: venue accepts, gateway {gw:?}"
                );
                assert!(sent, "step {n} {step:?}: the gateway sent it");
            }
            25205 | 25206 | 25211 => {
                venue_refused += 1;
                let text = gw.expect_err(&format!("step {n} {step:?}: venue {venue_code}"));
                assert!(
                    text.contains(&format!("pre-empts {venue_code}")),
                    "step {n} {step:?}: venue {venue_code}, gateway {text}"
                );
                let reason = if venue_code == 25211 {
                    OrdRejReason::OrderExceedsLimit
                } else {
                    OrdRejReason::PriceExceedsBand
                };
                assert!(
                    text.contains(&format!("{reason:?}")) || matches!(step, Modify(..)),
                    "step {n}: {text}"
                );
                assert!(!sent, "step {n} {step:?}: refused with no round trip");
            }
            other => panic!("step {n} {step:?}: venue answered {other}"),
        }
    }
    assert_eq!(venue_refused, 6, "every rule was met");
}

/// `25569` and `25572` are the venue's own per-order bookkeeping and timing: the gateway sends
/// the modification, and the venue's refusal reaches the strategy as an OrderCancelReject with
/// the exchange code.
#[test]
fn pending_modifications_reach_the_strategy_with_the_exchange_code() {
    // 25572: one modification in progress (60 s) blocks the next.
    let h = start(true);
    let mut s = h.client(1);
    let (cl, r) = gateway_new(&mut s, "BTCUSDT", Side::Buy, "49000");
    r.unwrap();
    let m1 = send_replace(&mut s, cl, "BTCUSDT", Side::Buy, "49001");
    replace_outcome(&mut s, m1).unwrap();
    let m2 = send_replace(&mut s, m1, "BTCUSDT", Side::Buy, "49002");
    let (code, text) = replace_outcome(&mut s, m2).unwrap_err();
    assert_eq!(code, 25572, "{text}");
    drop(s);
    drop(h);

    // 25569: the third modification of an order (max 2).
    let h = start(false);
    let mut s = h.client(1);
    let (cl, r) = gateway_new(&mut s, "BTCUSDT", Side::Buy, "49000");
    r.unwrap();
    let mut orig = cl;
    for px in ["49001", "49002"] {
        let m = send_replace(&mut s, orig, "BTCUSDT", Side::Buy, px);
        replace_outcome(&mut s, m).unwrap();
        orig = m;
    }
    let m = send_replace(&mut s, orig, "BTCUSDT", Side::Buy, "49003");
    let (code, text) = replace_outcome(&mut s, m).unwrap_err();
    assert_eq!(code, 25569, "{text}");
}
