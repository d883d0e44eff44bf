//! The fast venue (`venue = "fast"` in the simulator's configuration, `bitget-sim --venue
//! fast`): a venue that is never the bottleneck of a benchmark. Every trade op is answered at
//! once, with the full venue's reply and push shapes (the same request checks, the same
//! renderers: [`render::trade_reply`], [`render::order_push`]) and none of its work: no
//! matching, no balances or positions, no order history, no liquidity source.
//!
//! - place: a limit GTC / post_only order rests (`orderStatus` `live`); a market, IOC or FOK
//!   order ends at once `cancelled` (`ioc_not_full_cancel` / `fok_not_full_cancel`), as on an
//!   empty book. Nothing ever fills.
//! - modify: the resting order takes the new `price` / `qty` (`live` push).
//! - cancel: `cancelled` (`normal_cancel`) push.
//!
//! Its open orders are kept here only (pre-sized to [`FastBook::CAPACITY`]): the REST
//! queries (unfilled orders, order-info, history) and the account channels do not see them,
//! so a gateway restarted against a fast venue reconciles an empty account. Use it for
//! latency and throughput benchmarks; paper trading and the soak use the full venue.

use std::collections::HashMap;

use serde_json::Value;

use super::trade::{ItemResult, PlaceArgs, PlaceStart};
use super::{bump, missing, text, Channel, TradeOutcome, Venue};
use crate::config::Category;
use crate::matching::{
    AccountId, CancelReason, Order, OrderStatus, OrderType, Reject, TimeInForce,
};
use crate::render::{self, ReplyItem};
use crate::venue::{Push, Topic};

/// The fast venue's open orders.
#[derive(Debug)]
pub(crate) struct FastBook {
    /// orderId → (book index, the order as the renderers take it).
    open: HashMap<u64, (usize, Order)>,
    /// (owner, clientOid) → orderId of an open order.
    by_oid: HashMap<(AccountId, String), u64>,
}

impl FastBook {
    /// Open orders the tables hold without growing (a benchmark keeps far fewer: every place
    /// is cancelled one arrival later).
    pub(crate) const CAPACITY: usize = 1 << 16;

    pub(crate) fn new() -> FastBook {
        FastBook {
            open: HashMap::with_capacity(Self::CAPACITY),
            by_oid: HashMap::with_capacity(Self::CAPACITY),
        }
    }

    /// Open orders.
    pub(crate) fn len(&self) -> usize {
        self.open.len()
    }
}

impl Venue {
    /// The fast venue's open-order index, for the shared request checks (empty when the
    /// venue is the full one).
    fn fast_oids(&self) -> &HashMap<(AccountId, String), u64> {
        match &self.fast {
            Some(f) => &f.by_oid,
            None => &self.client_oids,
        }
    }

    /// A place item of the fast venue (see the module doc).
    pub(super) fn fast_place_one(
        &mut self,
        channel: Channel,
        owner: AccountId,
        category: Category,
        arg: &Value,
        now_ms: u64,
        outcome: &mut TradeOutcome,
    ) -> ItemResult {
        let PlaceStart {
            given_oid,
            symbol,
            fail_item,
        } = self.place_start(owner, arg);
        let res = (|| -> Result<ReplyItem, Reject> {
            let bi = self.place_book(category, &symbol)?;
            let a: PlaceArgs = self.place_args(
                channel,
                owner,
                bi,
                arg,
                given_oid.as_deref(),
                self.fast_oids(),
            )?;
            if self
                .fast
                .as_ref()
                .is_some_and(|f| f.len() >= FastBook::CAPACITY)
            {
                // `25211` "Exceeds the limit of {0} maximum orders" (reference §6.2, the
                // open-order cap).
                return Err(Reject::new(
                    25211,
                    format!("Exceeds the limit of {} maximum orders", FastBook::CAPACITY),
                ));
            }
            let book = self.book(bi).ok_or_else(|| missing("symbol"))?;
            let price = a.price.map(|p| book.check_price(p)).transpose()?;
            let (qty, amount) = if a.order_type == OrderType::Market
                && a.side == crate::matching::Side::Buy
                && book.spec().market_buy_in_quote
            {
                (0, Some(a.qty))
            } else {
                (book.check_qty(a.qty)?, None)
            };
            let order_id = self.ids.next_id();
            let client_oid = given_oid.clone().unwrap_or_else(|| order_id.to_string());
            let ends = match (a.order_type, a.tif) {
                (OrderType::Market, _) | (_, TimeInForce::Ioc) => Some(CancelReason::IocNotFull),
                (_, TimeInForce::Fok) => Some(CancelReason::FokNotFull),
                _ => None,
            };
            let order = Order {
                owner,
                order_id,
                client_oid: client_oid.clone(),
                side: a.side,
                order_type: a.order_type,
                tif: a.tif,
                price,
                qty,
                cum_qty: 0,
                cum_value: 0,
                cum_fee: codec::Decimal::ZERO,
                amount,
                pos_side: a.pos_side,
                reduce_only: a.reduce_only,
                stp_mode: a.stp_mode,
                status: if ends.is_some() {
                    OrderStatus::Cancelled
                } else {
                    OrderStatus::Live
                },
                cancel_reason: ends,
                created_ms: now_ms,
                updated_ms: now_ms,
            };
            bump(&self.counters.orders_placed);
            self.fast_push(bi, &order, now_ms, outcome);
            if ends.is_some() {
                bump(&self.counters.orders_cancelled);
            } else if let Some(f) = self.fast.as_mut() {
                f.by_oid.insert((owner, client_oid.clone()), order_id);
                f.open.insert(order_id, (bi, order));
                self.count_open(owner, bi);
            }
            Ok(ReplyItem {
                symbol: Some(symbol.clone()),
                order_id: order_id.to_string(),
                client_oid,
                c_time_ms: Some(now_ms),
                result: None,
            })
        })();
        res.map_err(|r| Box::new((r, fail_item)))
    }

    /// A modify item of the fast venue: the open order (by `orderId`, else `clientOid`) takes
    /// the new `price` / `qty` checked against the book's tick and lot.
    pub(super) fn fast_modify_one(
        &mut self,
        owner: AccountId,
        category: Option<Category>,
        arg: &Value,
        now_ms: u64,
        outcome: &mut TradeOutcome,
    ) -> ItemResult {
        let (order_id, bi, item) = self.fast_find(owner, category, arg, true)?;
        let res = (|| -> Result<(), Reject> {
            let price = super::decimal_field(arg, "price")?;
            let qty = super::decimal_field(arg, "qty")?;
            let book = self.book(bi).ok_or_else(not_found)?;
            let units = price.map(|p| book.check_price(p)).transpose()?;
            let qty = qty.map(|q| book.check_qty(q)).transpose()?;
            let side = self
                .fast
                .as_ref()
                .and_then(|f| f.open.get(&order_id))
                .map(|(_, o)| o.side)
                .ok_or_else(not_found)?;
            self.check_modify_limits(order_id, bi, side, price, now_ms)?;
            self.record_modify(order_id, now_ms);
            let price = units;
            let Some((_, o)) = self.fast.as_mut().and_then(|f| f.open.get_mut(&order_id)) else {
                return Err(not_found());
            };
            if let Some(p) = price {
                o.price = Some(p);
            }
            if let Some(q) = qty {
                o.qty = q;
            }
            o.updated_ms = now_ms;
            let o = o.clone();
            bump(&self.counters.orders_modified);
            self.fast_push(bi, &o, now_ms, outcome);
            Ok(())
        })();
        match res {
            Ok(()) => Ok(item),
            Err(e) => Err(Box::new((e, item))),
        }
    }

    /// A cancel item of the fast venue.
    pub(super) fn fast_cancel_one(
        &mut self,
        owner: AccountId,
        category: Option<Category>,
        arg: &Value,
        client_oid_usable: bool,
        now_ms: u64,
        outcome: &mut TradeOutcome,
    ) -> ItemResult {
        let (order_id, bi, item) = self.fast_find(owner, category, arg, client_oid_usable)?;
        let Some((_, mut o)) = self.fast.as_mut().and_then(|f| f.open.remove(&order_id)) else {
            return Err(Box::new((not_found(), item)));
        };
        if let Some(f) = self.fast.as_mut() {
            f.by_oid.remove(&(owner, o.client_oid.clone()));
        }
        self.mods.remove(&order_id);
        if let Some(c) = self.books.get(bi).map(|b| b.category) {
            self.open_counts.remove(owner, bi, c);
        }
        o.status = OrderStatus::Cancelled;
        o.cancel_reason = Some(CancelReason::Normal);
        o.updated_ms = now_ms;
        bump(&self.counters.orders_cancelled);
        self.fast_push(bi, &o, now_ms, outcome);
        Ok(item)
    }

    /// Finds an open order of `owner` by `orderId` (wins) or `clientOid`, in `category`
    /// when one is given: (orderId, book index, the reply item naming it).
    fn fast_find(
        &self,
        owner: AccountId,
        category: Option<Category>,
        arg: &Value,
        client_oid_usable: bool,
    ) -> Result<(u64, usize, ReplyItem), Box<(Reject, ReplyItem)>> {
        let named = ReplyItem {
            symbol: None,
            order_id: text(arg, "orderId").unwrap_or_default(),
            client_oid: text(arg, "clientOid").unwrap_or_default(),
            c_time_ms: None,
            result: None,
        };
        let Some(fast) = &self.fast else {
            return Err(Box::new((not_found(), named)));
        };
        let order_id = match text(arg, "orderId").filter(|s| !s.is_empty()) {
            Some(s) => s.parse::<u64>().ok(),
            None => match text(arg, "clientOid").filter(|s| !s.is_empty() && client_oid_usable) {
                Some(c) => fast.by_oid.get(&(owner, c)).copied(),
                None => return Err(Box::new((missing("orderId or clientOid"), named))),
            },
        };
        let found = order_id.and_then(|id| Some((id, fast.open.get(&id)?)));
        match found {
            Some((id, (bi, o)))
                if o.owner == owner
                    && category
                        .is_none_or(|c| self.books.get(*bi).is_some_and(|b| b.category == c)) =>
            {
                let item = ReplyItem {
                    symbol: None,
                    order_id: id.to_string(),
                    client_oid: o.client_oid.clone(),
                    c_time_ms: None,
                    result: None,
                };
                Ok((id, *bi, item))
            }
            _ => Err(Box::new((not_found(), named))),
        }
    }

    /// Renders the order push of `o` for its owner.
    fn fast_push(&self, bi: usize, o: &Order, now_ms: u64, outcome: &mut TradeOutcome) {
        if let Some(entry) = self.books.get(bi) {
            outcome.pushes.push(Push {
                owner: o.owner,
                topic: Topic::Order,
                json: render::order_push(&entry.book, entry.category, o, now_ms),
            });
        }
    }
}

fn not_found() -> Reject {
    Reject::new(25204, "Order does not exist")
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::config::{SimConfig, VenueMode};
    use crate::venue::Counters;

    fn venue(mode: VenueMode) -> Venue {
        let mut cfg = SimConfig::demo();
        cfg.id_base = Some(1_300_000_000_000_000_000);
        cfg.venue = mode;
        Venue::new(&cfg, Arc::new(Counters::default()), 0)
    }

    /// The reply and the order pushes of one request (other topics left out).
    fn trade(v: &mut Venue, req: &str) -> (String, Vec<String>) {
        let req: Value = serde_json::from_str(req).expect("request");
        let out = v.handle_trade(AccountId(0), &req, "c1", 1000);
        let orders = out
            .pushes
            .into_iter()
            .filter(|p| p.topic == Topic::Order)
            .map(|p| p.json)
            .collect();
        (out.reply, orders)
    }

    fn op(category: &str, topic: &str, args: &str) -> String {
        format!(
            r#"{{"op":"trade","id":"7","category":"{category}","topic":"{topic}","args":[{args}]}}"#
        )
    }

    #[test]
    fn the_fast_venue_answers_as_the_full_one_does_for_a_resting_order() {
        let script = [
            // A futures order in one-way mode, then modified, then cancelled by clientOid.
            op(
                "usdt-futures",
                "place-order",
                r#"{"symbol":"ETHUSDT","side":"buy","orderType":"limit","price":"2000","qty":"0.1","clientOid":"f1"}"#,
            ),
            op(
                "usdt-futures",
                "modify-order",
                r#"{"symbol":"ETHUSDT","clientOid":"f1","price":"2001","qty":"0.2"}"#,
            ),
            op(
                "usdt-futures",
                "cancel-order",
                r#"{"symbol":"ETHUSDT","clientOid":"f1"}"#,
            ),
            // Spot, a batch of two, cancelled by orderId in a batch.
            op(
                "spot",
                "batch-place",
                r#"{"symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"50000","qty":"0.001","clientOid":"s1"},{"symbol":"BTCUSDT","side":"buy","orderType":"limit","price":"50001","qty":"0.001","clientOid":"s2"}"#,
            ),
            op(
                "spot",
                "batch-cancel",
                r#"{"symbol":"BTCUSDT","orderId":"1300000000000000001"},{"symbol":"BTCUSDT","orderId":"1300000000000000002"}"#,
            ),
            // Refusals: an unknown order, a duplicate clientOid, a price off the tick.
            op(
                "spot",
                "cancel-order",
                r#"{"symbol":"BTCUSDT","orderId":"42"}"#,
            ),
            op(
                "usdt-futures",
                "place-order",
                r#"{"symbol":"ETHUSDT","side":"sell","orderType":"limit","price":"9000","qty":"0.1","clientOid":"d"}"#,
            ),
            op(
                "usdt-futures",
                "place-order",
                r#"{"symbol":"ETHUSDT","side":"sell","orderType":"limit","price":"9000","qty":"0.1","clientOid":"d"}"#,
            ),
            op(
                "usdt-futures",
                "place-order",
                r#"{"symbol":"ETHUSDT","side":"sell","orderType":"limit","price":"9000.001","qty":"0.1"}"#,
            ),
        ];
        let mut full = venue(VenueMode::Full);
        let mut fast = venue(VenueMode::Fast);
        let mut answers = Vec::new();
        for req in &script {
            let (full_reply, full_pushes) = trade(&mut full, req);
            let (fast_reply, fast_pushes) = trade(&mut fast, req);
            assert_eq!(fast_reply, full_reply, "reply to {req}");
            assert_eq!(fast_pushes, full_pushes, "order pushes of {req}");
            answers.push((fast_reply, fast_pushes));
        }
        // What was compared: accepted ops with their pushes, and each refusal.
        let statuses: Vec<Vec<bool>> = answers
            .iter()
            .map(|(_, p)| {
                p.iter()
                    .map(|j| j.contains(r#""orderStatus":"live""#))
                    .collect()
            })
            .collect();
        assert_eq!(
            statuses,
            vec![
                vec![true],
                vec![true],
                vec![false],
                vec![true, true],
                vec![false, false],
                vec![],
                vec![true],
                vec![],
                vec![]
            ]
        );
        assert!(
            answers[1].1[0].contains(r#""price":"2001""#),
            "{}",
            answers[1].1[0]
        );
        assert!(
            answers[2].1[0].contains("normal_cancel"),
            "{}",
            answers[2].1[0]
        );
        for (i, code) in [(5, "25204"), (7, "25212"), (8, "25244")] {
            assert!(answers[i].0.contains(code), "{i}: {}", answers[i].0);
        }
        assert!(fast.fast.as_ref().is_some_and(|f| f.len() == 1), "d rests");
    }

    #[test]
    fn what_would_not_rest_ends_at_once_and_nothing_is_matched() {
        let mut fast = venue(VenueMode::Fast);
        // A sell at a price that would cross the buy below: both rest (no matching).
        let (r, p) = trade(
            &mut fast,
            &op(
                "usdt-futures",
                "place-order",
                r#"{"symbol":"ETHUSDT","side":"buy","orderType":"limit","price":"3000","qty":"0.1","clientOid":"b"}"#,
            ),
        );
        assert!(r.contains(r#""code":"0""#), "{r}");
        assert!(p[0].contains(r#""orderStatus":"live""#), "{}", p[0]);
        let (_, p) = trade(
            &mut fast,
            &op(
                "usdt-futures",
                "place-order",
                r#"{"symbol":"ETHUSDT","side":"sell","orderType":"limit","price":"2000","qty":"0.1","clientOid":"s"}"#,
            ),
        );
        assert!(p[0].contains(r#""orderStatus":"live""#), "{}", p[0]);
        // IOC, FOK and market: cancelled at once, no fill.
        for (args, reason) in [
            (
                r#"{"symbol":"ETHUSDT","side":"buy","orderType":"limit","price":"3000","qty":"0.1","timeInForce":"ioc"}"#,
                "ioc_not_full_cancel",
            ),
            (
                r#"{"symbol":"ETHUSDT","side":"buy","orderType":"limit","price":"3000","qty":"0.1","timeInForce":"fok"}"#,
                "fok_not_full_cancel",
            ),
            (
                r#"{"symbol":"ETHUSDT","side":"buy","orderType":"market","qty":"0.1"}"#,
                "ioc_not_full_cancel",
            ),
        ] {
            let (r, p) = trade(&mut fast, &op("usdt-futures", "place-order", args));
            assert!(r.contains(r#""code":"0""#), "{r}");
            assert_eq!(p.len(), 1);
            assert!(p[0].contains(r#""orderStatus":"cancelled""#), "{}", p[0]);
            assert!(p[0].contains(reason), "{}", p[0]);
            assert!(p[0].contains(r#""cumExecQty":"0""#), "{}", p[0]);
        }
        assert_eq!(fast.fast.as_ref().map(FastBook::len), Some(2));
        // A second account cannot cancel the first one's order.
        let req: Value = serde_json::from_str(&op(
            "usdt-futures",
            "cancel-order",
            r#"{"symbol":"ETHUSDT","clientOid":"b"}"#,
        ))
        .expect("request");
        let out = fast.handle_trade(AccountId(1), &req, "c2", 1000);
        assert!(out.reply.contains("25204"), "{}", out.reply);
    }

    /// The venue rules of issue 27 (`limits`) answer the same codes on the fast venue as on
    /// the full one: band (mark pinned), symbol cap, modification count.
    #[test]
    fn the_venue_rules_apply_to_the_fast_venue_too() {
        let codes = |mode| {
            let mut cfg = SimConfig::demo();
            cfg.id_base = Some(1_300_000_000_000_000_000);
            cfg.venue = mode;
            cfg.liquidity.symbols.clear();
            cfg.max_modifications_per_order = 1;
            for i in &mut cfg.instruments {
                i.max_symbol_order_num = 2;
            }
            let mut v = Venue::new(&cfg, Arc::new(Counters::default()), 0);
            assert!(v.set_mark(Category::UsdtFutures, "ETHUSDT", "3000".parse().ok()));
            let place = |side: &str, px: &str, oid: &str| {
                op(
                    "usdt-futures",
                    "place-order",
                    &format!(
                        r#"{{"symbol":"ETHUSDT","side":"{side}","orderType":"limit","price":"{px}","qty":"0.1","clientOid":"{oid}"}}"#
                    ),
                )
            };
            let modify = |px: &str| {
                op(
                    "usdt-futures",
                    "modify-order",
                    &format!(r#"{{"symbol":"ETHUSDT","clientOid":"a","price":"{px}"}}"#),
                )
            };
            let script = [
                place("buy", "3150.01", "x"),
                place("sell", "2849.99", "y"),
                place("buy", "2000", "a"),
                place("sell", "4000", "b"),
                place("buy", "2000", "c"),
                modify("3200"),
                modify("2001"),
                modify("2002"),
            ];
            script
                .iter()
                .map(|req| {
                    let (reply, _) = trade(&mut v, req);
                    let r: Value = serde_json::from_str(&reply).expect("reply");
                    r["code"].as_str().unwrap_or("").to_string()
                })
                .collect::<Vec<_>>()
        };
        let want = ["25206", "25205", "0", "0", "25211", "25206", "0", "25569"];
        assert_eq!(codes(VenueMode::Full), want);
        assert_eq!(codes(VenueMode::Fast), want);
    }
}
