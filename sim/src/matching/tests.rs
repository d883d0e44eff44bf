//! Unit tests of the sans-I/O matching engine.

use super::*;

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

fn spec() -> InstrumentSpec {
    InstrumentSpec {
        symbol: "BTCUSDT".into(),
        quote_coin: "USDT".into(),
        price_exp: -1,
        qty_exp: -4,
        tick: d("0.1"),
        lot: d("0.0001"),
        min_qty: d("0.0001"),
        max_qty: d("1200"),
        min_notional: d("5"),
        maker_fee: d("0.0002"),
        taker_fee: d("0.0006"),
        market_buy_in_quote: false,
    }
}

const A: AccountId = AccountId(1);
const B: AccountId = AccountId(2);

struct T {
    book: Book,
    ids: IdGen,
    out: Vec<Event>,
}

impl T {
    fn new() -> T {
        T {
            book: Book::new(spec()),
            ids: IdGen::new(0),
            out: Vec::new(),
        }
    }

    fn place(
        &mut self,
        owner: AccountId,
        side: Side,
        price: Option<&str>,
        qty: &str,
        tif: TimeInForce,
    ) -> Result<u64, Reject> {
        let id = self.ids.next_id();
        self.out.clear();
        self.book.place(
            NewOrder {
                owner,
                order_id: id,
                client_oid: format!("c{id}"),
                side,
                order_type: if price.is_some() {
                    OrderType::Limit
                } else {
                    OrderType::Market
                },
                price: price.map(d),
                qty: d(qty),
                tif,
                pos_side: None,
                reduce_only: false,
                stp_mode: StpMode::CancelMaker,
            },
            1000,
            &mut self.ids,
            &mut self.out,
        )?;
        Ok(id)
    }

    /// (order id, status, cancel reason, cum qty) of every order event.
    fn order_events(&self) -> Vec<(u64, OrderStatus, Option<CancelReason>, Decimal)> {
        self.out
            .iter()
            .filter_map(|e| match e {
                Event::Order(o) => Some((
                    o.order_id,
                    o.status,
                    o.cancel_reason,
                    self.book.qty_dec(o.cum_qty),
                )),
                Event::Fill(_) => None,
            })
            .collect()
    }

    fn fills(&self) -> Vec<&Fill> {
        self.out
            .iter()
            .filter_map(|e| match e {
                Event::Fill(f) => Some(f),
                Event::Order(_) => None,
            })
            .collect()
    }
}

#[test]
fn resting_order_pushes_live() {
    let mut t = T::new();
    let id = t
        .place(A, Side::Buy, Some("60000"), "0.01", TimeInForce::Gtc)
        .unwrap();
    assert_eq!(
        t.order_events(),
        vec![(id, OrderStatus::Live, None, Decimal::ZERO)]
    );
    assert_eq!(t.book.best_bid(), Some(600000));
}

#[test]
fn price_time_priority_and_maker_prices() {
    let mut t = T::new();
    let m1 = t
        .place(A, Side::Sell, Some("60001"), "0.01", TimeInForce::Gtc)
        .unwrap();
    let m2 = t
        .place(A, Side::Sell, Some("60000"), "0.01", TimeInForce::Gtc)
        .unwrap();
    let m3 = t
        .place(A, Side::Sell, Some("60000"), "0.01", TimeInForce::Gtc)
        .unwrap();
    let tk = t
        .place(B, Side::Buy, Some("60002"), "0.025", TimeInForce::Gtc)
        .unwrap();
    let fills = t.fills();
    // Taker fill, maker fill per match; makers in price then time order.
    let makers: Vec<u64> = fills
        .iter()
        .filter(|f| f.scope == TradeScope::Maker)
        .map(|f| f.order_id)
        .collect();
    assert_eq!(makers, vec![m2, m3, m1]);
    let taker_prices: Vec<String> = fills
        .iter()
        .filter(|f| f.scope == TradeScope::Taker)
        .map(|f| f.price.to_string())
        .collect();
    assert_eq!(taker_prices, vec!["60000", "60000", "60001"]);
    // Unique exec ids.
    let mut ids: Vec<u64> = fills.iter().map(|f| f.exec_id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 6);
    // Taker: partially_filled, partially_filled, filled.
    let taker: Vec<OrderStatus> = t
        .order_events()
        .into_iter()
        .filter(|e| e.0 == tk)
        .map(|e| e.1)
        .collect();
    assert_eq!(
        taker,
        vec![
            OrderStatus::PartiallyFilled,
            OrderStatus::PartiallyFilled,
            OrderStatus::Filled
        ]
    );
    // m1 partially filled 0.005 and still resting.
    let o = t.book.order(m1).unwrap();
    assert_eq!(t.book.qty_dec(o.cum_qty), d("0.005"));
    assert_eq!(o.status, OrderStatus::PartiallyFilled);
    // Average price: (600 + 600 + 300.005) / 0.025 = 60000.2
    let taker_order = t
        .out
        .iter()
        .rev()
        .find_map(|e| match e {
            Event::Order(o) if o.order_id == tk => Some(o.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(t.book.avg_price(&taker_order), d("60000.2"));
    assert_eq!(t.book.value_dec(taker_order.cum_value), d("1500.005"));
    // Fee: taker 0.0006 × value.
    assert_eq!(fills[0].fee, d("0.36"));
    assert_eq!(fills[1].fee, d("0.12"));
}

#[test]
fn immediate_full_fill_is_single_filled_push() {
    let mut t = T::new();
    let m = t
        .place(A, Side::Buy, Some("60000"), "0.01", TimeInForce::Gtc)
        .unwrap();
    let tk = t
        .place(B, Side::Sell, Some("59000"), "0.01", TimeInForce::Gtc)
        .unwrap();
    assert_eq!(
        t.order_events(),
        vec![
            (tk, OrderStatus::Filled, None, d("0.01")),
            (m, OrderStatus::Filled, None, d("0.01")),
        ]
    );
    assert!(t.book.best_bid().is_none());
}

#[test]
fn ioc_remainder_cancelled() {
    let mut t = T::new();
    t.place(A, Side::Sell, Some("60000"), "0.01", TimeInForce::Gtc)
        .unwrap();
    let tk = t
        .place(B, Side::Buy, Some("60000"), "0.03", TimeInForce::Ioc)
        .unwrap();
    let ev: Vec<_> = t.order_events().into_iter().filter(|e| e.0 == tk).collect();
    assert_eq!(
        ev,
        vec![
            (tk, OrderStatus::PartiallyFilled, None, d("0.01")),
            (
                tk,
                OrderStatus::Cancelled,
                Some(CancelReason::IocNotFull),
                d("0.01")
            ),
        ]
    );
    assert!(t.book.best_bid().is_none());
}

#[test]
fn ioc_without_liquidity_single_cancel() {
    let mut t = T::new();
    let tk = t
        .place(B, Side::Buy, Some("60000"), "0.03", TimeInForce::Ioc)
        .unwrap();
    assert_eq!(
        t.order_events(),
        vec![(
            tk,
            OrderStatus::Cancelled,
            Some(CancelReason::IocNotFull),
            Decimal::ZERO
        )]
    );
}

#[test]
fn fok_all_or_nothing() {
    let mut t = T::new();
    let m = t
        .place(A, Side::Sell, Some("60000"), "0.01", TimeInForce::Gtc)
        .unwrap();
    let tk = t
        .place(B, Side::Buy, Some("60000"), "0.02", TimeInForce::Fok)
        .unwrap();
    assert_eq!(
        t.order_events(),
        vec![(
            tk,
            OrderStatus::Cancelled,
            Some(CancelReason::FokNotFull),
            Decimal::ZERO
        )]
    );
    assert!(t.fills().is_empty());
    assert!(t.book.order(m).is_some());
    let tk2 = t
        .place(B, Side::Buy, Some("60000"), "0.01", TimeInForce::Fok)
        .unwrap();
    assert_eq!(
        t.order_events()[0],
        (tk2, OrderStatus::Filled, None, d("0.01"))
    );
}

#[test]
fn post_only_cross_cancelled_else_rests() {
    let mut t = T::new();
    t.place(A, Side::Sell, Some("60000"), "0.01", TimeInForce::Gtc)
        .unwrap();
    let po = t
        .place(B, Side::Buy, Some("60000"), "0.01", TimeInForce::PostOnly)
        .unwrap();
    assert_eq!(
        t.order_events(),
        vec![(
            po,
            OrderStatus::Cancelled,
            Some(CancelReason::PostOnlyFill),
            Decimal::ZERO
        )]
    );
    let po2 = t
        .place(B, Side::Buy, Some("59999.9"), "0.01", TimeInForce::PostOnly)
        .unwrap();
    assert_eq!(
        t.order_events(),
        vec![(po2, OrderStatus::Live, None, Decimal::ZERO)]
    );
}

#[test]
fn market_order_sweeps_and_cancels_rest() {
    let mut t = T::new();
    t.place(A, Side::Buy, Some("60000"), "0.01", TimeInForce::Gtc)
        .unwrap();
    t.place(A, Side::Buy, Some("59999"), "0.01", TimeInForce::Gtc)
        .unwrap();
    let tk = t
        .place(B, Side::Sell, None, "0.03", TimeInForce::Gtc)
        .unwrap();
    let ev: Vec<_> = t.order_events().into_iter().filter(|e| e.0 == tk).collect();
    assert_eq!(ev.len(), 3);
    assert_eq!(ev[1].1, OrderStatus::PartiallyFilled);
    assert_eq!(ev[2].2, Some(CancelReason::IocNotFull));
    assert_eq!(ev[2].3, d("0.02"));
}

#[test]
fn gtc_partial_fill_rests_remainder() {
    let mut t = T::new();
    t.place(A, Side::Sell, Some("60000"), "0.01", TimeInForce::Gtc)
        .unwrap();
    let tk = t
        .place(B, Side::Buy, Some("60000"), "0.03", TimeInForce::Gtc)
        .unwrap();
    let ev: Vec<_> = t.order_events().into_iter().filter(|e| e.0 == tk).collect();
    assert_eq!(
        ev,
        vec![(tk, OrderStatus::PartiallyFilled, None, d("0.01"))]
    );
    assert_eq!(t.book.best_bid(), Some(600000));
    assert_eq!(t.book.order(tk).unwrap().leaves(), 200);
}

#[test]
fn checks_and_codes() {
    let mut t = T::new();
    let e = t
        .place(A, Side::Buy, Some("60000.05"), "0.01", TimeInForce::Gtc)
        .unwrap_err();
    assert_eq!(e.code, 25244);
    assert_eq!(e.msg, "Price should be a multiple of 0.1");
    let e = t
        .place(A, Side::Buy, Some("60000"), "0.00001", TimeInForce::Gtc)
        .unwrap_err();
    assert_eq!(e.code, 40017);
    let e = t
        .place(A, Side::Buy, Some("100"), "0.01", TimeInForce::Gtc)
        .unwrap_err();
    assert_eq!(e.code, 45110);
    assert_eq!(e.msg, "less than the minimum amount 5 USDT");
    let e = t
        .place(A, Side::Buy, Some("100"), "2000", TimeInForce::Gtc)
        .unwrap_err();
    assert_eq!(e.code, 25208);
    assert!(t.out.is_empty());
}

/// Reference §6.2: `25207` qty below `minOrderQty` (an instrument whose minimum is above the
/// lot); `25568` a modification whose qty is not above the filled qty.
#[test]
fn min_qty_and_modify_at_or_below_the_filled_qty() {
    let mut t = T::new();
    t.book = Book::new(InstrumentSpec {
        min_qty: d("0.001"),
        ..spec()
    });
    let e = t
        .place(A, Side::Buy, Some("60000"), "0.0005", TimeInForce::Gtc)
        .unwrap_err();
    assert_eq!(e.code, 25207, "{e:?}");
    let m = t
        .place(A, Side::Sell, Some("60000"), "0.01", TimeInForce::Gtc)
        .unwrap();
    t.place(B, Side::Buy, Some("60000"), "0.004", TimeInForce::Gtc)
        .unwrap();
    t.out.clear();
    for qty in ["0.004", "0.003"] {
        let e = t
            .book
            .modify(m, None, Some(d(qty)), 2000, &mut t.ids, &mut t.out)
            .unwrap_err();
        assert_eq!(e.code, 25568, "{qty}: {e:?}");
    }
    assert!(t.out.is_empty(), "a refused modification changes nothing");
    t.book
        .modify(m, None, Some(d("0.005")), 2000, &mut t.ids, &mut t.out)
        .unwrap();
}

#[test]
fn cancel_and_unknown() {
    let mut t = T::new();
    let id = t
        .place(A, Side::Buy, Some("60000"), "0.01", TimeInForce::Gtc)
        .unwrap();
    t.out.clear();
    t.book
        .cancel(id, CancelReason::Normal, 2000, &mut t.out)
        .unwrap();
    assert_eq!(
        t.order_events(),
        vec![(
            id,
            OrderStatus::Cancelled,
            Some(CancelReason::Normal),
            Decimal::ZERO
        )]
    );
    let e = t
        .book
        .cancel(id, CancelReason::Normal, 2000, &mut t.out)
        .unwrap_err();
    assert_eq!(e.code, 25204);
}

#[test]
fn modify_loses_priority_and_checks() {
    let mut t = T::new();
    let a = t
        .place(A, Side::Sell, Some("60001"), "0.01", TimeInForce::Gtc)
        .unwrap();
    let b = t
        .place(A, Side::Sell, Some("60000"), "0.01", TimeInForce::Gtc)
        .unwrap();
    // Move a to 60000: behind b.
    t.out.clear();
    t.book
        .modify(a, Some(d("60000")), None, 3000, &mut t.ids, &mut t.out)
        .unwrap();
    assert_eq!(
        t.order_events(),
        vec![(a, OrderStatus::Live, None, Decimal::ZERO)]
    );
    let tk = t
        .place(B, Side::Buy, Some("60000"), "0.01", TimeInForce::Ioc)
        .unwrap();
    let maker: Vec<u64> = t
        .fills()
        .iter()
        .filter(|f| f.scope == TradeScope::Maker)
        .map(|f| f.order_id)
        .collect();
    assert_eq!(maker, vec![b]);
    let _ = tk;
    let e = t
        .book
        .modify(
            a,
            Some(d("60000")),
            Some(d("0.01")),
            3000,
            &mut t.ids,
            &mut t.out,
        )
        .unwrap_err();
    assert_eq!(e.code, 25571);
    let e = t
        .book
        .modify(a, Some(d("60000.01")), None, 3000, &mut t.ids, &mut t.out)
        .unwrap_err();
    assert_eq!(e.code, 25244);
    let e = t
        .book
        .modify(b, Some(d("60000")), None, 3000, &mut t.ids, &mut t.out)
        .unwrap_err();
    assert_eq!(e.code, 25204);
}

#[test]
fn modify_crossing_price_matches() {
    let mut t = T::new();
    let s = t
        .place(A, Side::Sell, Some("60000"), "0.01", TimeInForce::Gtc)
        .unwrap();
    let b = t
        .place(B, Side::Buy, Some("59000"), "0.01", TimeInForce::Gtc)
        .unwrap();
    t.out.clear();
    t.book
        .modify(b, Some(d("60000")), None, 3000, &mut t.ids, &mut t.out)
        .unwrap();
    assert_eq!(
        t.order_events(),
        vec![
            (b, OrderStatus::Live, None, Decimal::ZERO),
            (b, OrderStatus::Filled, None, d("0.01")),
            (s, OrderStatus::Filled, None, d("0.01")),
        ]
    );
}

#[test]
fn self_trade_cancel_maker() {
    let mut t = T::new();
    let m = t
        .place(A, Side::Sell, Some("60000"), "0.01", TimeInForce::Gtc)
        .unwrap();
    let tk = t
        .place(A, Side::Buy, Some("60000"), "0.01", TimeInForce::Gtc)
        .unwrap();
    assert_eq!(
        t.order_events(),
        vec![
            (
                m,
                OrderStatus::Cancelled,
                Some(CancelReason::Stp),
                Decimal::ZERO
            ),
            (tk, OrderStatus::Live, None, Decimal::ZERO),
        ]
    );
}

mod props {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Op {
        Place {
            owner: u32,
            buy: bool,
            market: bool,
            price_ticks: i64,
            lots: i64,
            tif: u8,
            stp: u8,
        },
        Cancel(usize),
        Modify {
            which: usize,
            price_ticks: Option<i64>,
            lots: Option<i64>,
        },
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (0u32..3, any::<bool>(), prop::bool::weighted(0.1), 5990i64..6010, 1i64..50, 0u8..4, 0u8..4)
                .prop_map(|(owner, buy, market, price_ticks, lots, tif, stp)| Op::Place { owner, buy, market, price_ticks, lots, tif, stp }),
            2 => (0usize..64).prop_map(Op::Cancel),
            2 => (0usize..64, prop::option::of(5990i64..6010), prop::option::of(1i64..50))
                .prop_map(|(which, price_ticks, lots)| Op::Modify { which, price_ticks, lots }),
        ]
    }

    proptest! {
        /// Whatever the sequence: the book is never crossed, quantities are conserved (taker
        /// and maker sides of a match agree), no order overfills, every terminal order left the
        /// book, exec ids are unique.
        #[test]
        fn book_invariants(ops in prop::collection::vec(op(), 1..120), quote in any::<bool>()) {
            let mut sp = spec();
            sp.market_buy_in_quote = quote;
            let mut book = Book::new(sp);
            let mut ids = IdGen::new(0);
            let mut out = Vec::new();
            let mut placed: Vec<u64> = Vec::new();
            let mut exec_ids = std::collections::HashSet::new();
            for op in ops {
                out.clear();
                match op {
                    Op::Place { owner, buy, market, price_ticks, lots, tif, stp } => {
                        let id = ids.next_id();
                        placed.push(id);
                        // Price 599.0..601.0 in steps of 0.1 (ticks), qty in lots of 0.01.
                        let price = Decimal::new(price_ticks, -1).unwrap().checked_mul(d("10")).unwrap();
                        let _ = book.place(NewOrder {
                            owner: AccountId(owner),
                            order_id: id,
                            client_oid: id.to_string(),
                            side: if buy { Side::Buy } else { Side::Sell },
                            order_type: if market { OrderType::Market } else { OrderType::Limit },
                            price: Some(price),
                            qty: Decimal::new(lots, -2).unwrap(),
                            tif: [TimeInForce::Gtc, TimeInForce::Ioc, TimeInForce::Fok, TimeInForce::PostOnly][tif as usize],
                            pos_side: None,
                            reduce_only: false,
                            stp_mode: [StpMode::None, StpMode::CancelMaker, StpMode::CancelTaker, StpMode::CancelBoth][stp as usize],
                        }, 1, &mut ids, &mut out);
                    }
                    Op::Cancel(i) => {
                        if let Some(&id) = placed.get(i) {
                            let _ = book.cancel(id, CancelReason::Normal, 2, &mut out);
                        }
                    }
                    Op::Modify { which, price_ticks, lots } => {
                        if let Some(&id) = placed.get(which) {
                            let price = price_ticks.map(|p| Decimal::new(p * 10, -1).unwrap());
                            let qty = lots.map(|l| Decimal::new(l, -2).unwrap());
                            let _ = book.modify(id, price, qty, 3, &mut ids, &mut out);
                        }
                    }
                }
                if let (Some(b), Some(a)) = (book.best_bid(), book.best_ask()) {
                    prop_assert!(b < a, "crossed book {b} >= {a}");
                }
                let mut taker_qty = Decimal::ZERO;
                let mut maker_qty = Decimal::ZERO;
                for e in &out {
                    match e {
                        Event::Fill(f) => {
                            prop_assert!(exec_ids.insert(f.exec_id));
                            prop_assert!(f.qty.is_positive());
                            match f.scope {
                                TradeScope::Taker => taker_qty = taker_qty.checked_add(f.qty).unwrap(),
                                TradeScope::Maker => maker_qty = maker_qty.checked_add(f.qty).unwrap(),
                            }
                        }
                        Event::Order(o) => {
                            prop_assert!(o.cum_qty <= o.qty);
                            prop_assert!(o.cum_qty >= 0);
                            if o.status.is_terminal() {
                                prop_assert!(book.order(o.order_id).is_none());
                            }
                            if o.status == OrderStatus::Filled {
                                prop_assert_eq!(o.cum_qty, o.qty);
                            }
                        }
                    }
                }
                prop_assert_eq!(taker_qty, maker_qty);
                for o in book.open_orders() {
                    prop_assert!(o.leaves() > 0);
                    prop_assert!(!o.status.is_terminal());
                }
            }
        }
    }
}

#[test]
fn spot_market_buy_spends_quote_amount() {
    let mut s = spec();
    s.market_buy_in_quote = true;
    let mut t = T::new();
    t.book = Book::new(s);
    let m1 = t
        .place(A, Side::Sell, Some("60000"), "0.01", TimeInForce::Gtc)
        .unwrap();
    t.place(A, Side::Sell, Some("60001"), "0.01", TimeInForce::Gtc)
        .unwrap();
    let tk = t
        .place(B, Side::Buy, None, "900", TimeInForce::Gtc)
        .unwrap();
    let ev: Vec<_> = t.order_events().into_iter().filter(|e| e.0 == tk).collect();
    assert_eq!(
        ev,
        vec![
            (tk, OrderStatus::PartiallyFilled, None, d("0.01")),
            (tk, OrderStatus::Filled, None, d("0.0149")),
        ]
    );
    let last = t
        .out
        .iter()
        .rev()
        .find_map(|e| match e {
            Event::Order(o) if o.order_id == tk => Some(o.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(last.amount, Some(d("900")));
    assert_eq!(t.book.value_dec(last.cum_value), d("894.0049"));
    assert!(t.book.order(m1).is_none());
    // Too small an amount → 45110; nothing left to buy → cancelled.
    assert_eq!(
        t.place(B, Side::Buy, None, "4", TimeInForce::Gtc)
            .unwrap_err()
            .code,
        45110
    );
    t.place(A, Side::Buy, Some("1"), "10", TimeInForce::Gtc)
        .unwrap();
    let tk = t
        .place(B, Side::Buy, None, "100000", TimeInForce::Gtc)
        .unwrap();
    let ev: Vec<_> = t.order_events().into_iter().filter(|e| e.0 == tk).collect();
    assert_eq!(ev.last().unwrap().2, Some(CancelReason::IocNotFull));
}

/// Issue 23: a book keeps nothing of an order that ended: its id leaves its level's queue (no
/// tombstone), an empty level leaves the side, and the open-order table, sized at start for
/// [`Book::ORDERS_SIZED`], never grows while 5 000 orders rest and 100 000 more come and go.
#[test]
fn ended_orders_leave_no_trace_and_the_order_table_never_grows() {
    let mut t = T::new();
    let start = t.book.orders_capacity();
    assert!(start >= Book::ORDERS_SIZED);
    let mut resting = Vec::new();
    for i in 0..5_000 {
        let price = format!("{}", 50_000 + i % 50);
        resting.push(
            t.place(A, Side::Buy, Some(&price), "0.01", TimeInForce::Gtc)
                .unwrap(),
        );
    }
    for i in 0..100_000 {
        // Above the resting ones, at 500 prices: each rests, then is cancelled.
        let price = format!("{}", 55_000 + i % 500);
        let id = t
            .place(A, Side::Buy, Some(&price), "0.01", TimeInForce::Gtc)
            .unwrap();
        t.out.clear();
        t.book
            .cancel(id, CancelReason::Normal, 1000, &mut t.out)
            .unwrap();
        assert!(
            t.book.orders_capacity() <= start,
            "the table grew at order {i}"
        );
    }
    // Only the 5 000 resting orders' 50 levels are left, 100 ids each.
    let levels = t.book.level_lens(Side::Buy);
    assert_eq!(levels.len(), 50);
    assert!(levels.iter().all(|(_, n)| *n == 100), "{levels:?}");
    assert_eq!(t.book.open_orders().count(), 5_000);
    // Cancelling them empties the side.
    for id in resting {
        t.out.clear();
        t.book
            .cancel(id, CancelReason::Normal, 1000, &mut t.out)
            .unwrap();
    }
    assert!(t.book.level_lens(Side::Buy).is_empty());
    assert_eq!(t.book.best_bid(), None);
}
