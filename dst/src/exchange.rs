//! The exchange's side of a run: the simulator's own [`Venue`] (matching, orders, fills, the
//! REST answers) with a market maker that keeps a ladder of resting orders, driven by the
//! scheduler's clock. No sockets: a trade op is its request JSON in, its reply and the pushes
//! out; a REST query is the venue's own JSON, parsed by the gateway's own parsers.

use std::sync::Arc;

use gateway::exchange::rest_history::parse_fill;
use gateway::exchange::rest_orders::parse_page;
use gateway_core::rest_objects::{ExchangeFill, OpenOrder};
use serde_json::Value;
use sim::config::{Category, SimConfig};
use sim::matching::{AccountId, Side};
use sim::venue::{Counters, PageQuery, Topic, TradeOutcome, Venue};

/// The gateway's account at the venue (the demo configuration's first account).
pub const ACCOUNT: AccountId = AccountId(0);

/// The traded instrument (USDT-FUTURES BTCUSDT: tick 0.1, lot 0.0001).
pub const SYMBOL: &str = "BTCUSDT";

/// Mid price of the market maker's ladder, in whole quote units.
const MID: i64 = 60_000;

/// Levels of the ladder on each side, spaced [`LEVEL_TICKS`] apart from the mid.
const LEVELS: i64 = 5;

/// Ticks between two levels.
const LEVEL_TICKS: i64 = 5;

/// Quantity of one level, in lots (0.0050 BTC).
const LEVEL_LOTS: i64 = 50;

/// What the venue did with a trade op.
#[derive(Debug, Default)]
pub struct Answer {
    /// The reply frame.
    pub reply: String,
    /// The pushes for the gateway's account (order, fill, account, position), in emission
    /// order, each a whole frame.
    pub pushes: Vec<String>,
}

/// The venue and its market maker.
#[derive(Debug)]
pub struct Exchange {
    venue: Venue,
    book: usize,
    price_exp: i8,
    /// The ladder: (side, price in units, resting order id).
    ladder: Vec<(Side, i64, Option<u64>)>,
    /// Pushes for the gateway's account made outside a trade op (the ladder's refill matching
    /// a resting order), to be sent on the link.
    pub spontaneous: Vec<String>,
}

impl Exchange {
    /// A venue with the demo instruments and account, ids from a fixed base (a run's ids do not
    /// depend on the wall clock), and the ladder placed at `now_ms`.
    pub fn new(now_ms: u64) -> Exchange {
        let mut cfg = SimConfig::demo();
        cfg.id_base = Some(1_000_000_000_000);
        cfg.liquidity.symbols.clear();
        let venue = Venue::new(&cfg, Arc::new(Counters::default()), now_ms);
        let book = venue
            .book_index(Category::UsdtFutures, SYMBOL)
            .unwrap_or_default();
        let price_exp = venue.book(book).map_or(-1, |b| b.spec().price_exp);
        let mid = MID * 10i64.pow(u32::from(price_exp.unsigned_abs()));
        let tick = venue.book(book).map_or(1, |b| b.tick_units());
        let mut ladder = Vec::new();
        for k in 1..=LEVELS {
            ladder.push((Side::Buy, mid - k * LEVEL_TICKS * tick, None));
            ladder.push((Side::Sell, mid + k * LEVEL_TICKS * tick, None));
        }
        let mut ex = Exchange {
            venue,
            book,
            price_exp,
            ladder,
            spontaneous: Vec::new(),
        };
        ex.refill(now_ms);
        ex
    }

    /// The instrument's prices are integers × 10^`price_exp`.
    pub fn price_exp(&self) -> i8 {
        self.price_exp
    }

    /// The venue (for the end-of-run truth).
    pub fn venue(&self) -> &Venue {
        &self.venue
    }

    /// Applies a trade op of the gateway's account (request JSON) at `now_ms`; `None` when the
    /// text is not JSON (the venue would close the connection).
    pub fn trade(&mut self, text: &str, now_ms: u64) -> Option<Answer> {
        let req: Value = serde_json::from_str(text).ok()?;
        let out = self.venue.handle_trade(ACCOUNT, &req, "dst", now_ms);
        let mut answer = Answer {
            reply: out.reply.clone(),
            pushes: Vec::new(),
        };
        keep_ours(&out, &mut answer.pushes);
        if out.touched_liquidity {
            self.refill(now_ms);
        }
        Some(answer)
    }

    /// Places every ladder level that is not resting (consumed by a fill); what the new
    /// orders match of the gateway's goes to [`Exchange::spontaneous`].
    pub fn refill(&mut self, now_ms: u64) {
        for i in 0..self.ladder.len() {
            let (side, price, id) = self.ladder[i];
            let resting = id.is_some_and(|id| {
                self.venue
                    .book(self.book)
                    .is_some_and(|b| b.order(id).is_some())
            });
            if resting {
                continue;
            }
            let mut out = TradeOutcome::default();
            let placed = self
                .venue
                .mm_place(self.book, side, price, LEVEL_LOTS, now_ms, &mut out);
            self.ladder[i].2 = placed;
            keep_ours(&out, &mut self.spontaneous);
        }
    }

    /// `GET /api/v3/trade/order-info` by clientOid: the order, or `None` when the venue does
    /// not know it (`25204`).
    pub fn order_info(&self, client_oid: &str) -> Option<OpenOrder> {
        let json = self
            .venue
            .order_info(ACCOUNT, None, Some(client_oid))
            .ok()?;
        let v: Value = serde_json::from_str(&json).ok()?;
        gateway::exchange::rest_orders::parse_open_order(&v).ok()
    }

    /// `GET /api/v3/trade/unfilled-orders`: the account's open orders, every page.
    pub fn open_orders(&self) -> Vec<OpenOrder> {
        every_page(|cursor| self.venue.unfilled_orders(ACCOUNT, None, None, 100, cursor))
    }

    /// `GET /api/v3/trade/history-orders` of `category` since `since_ms`, every page.
    pub fn history_orders(&self, category: codec::sbe::Category, since_ms: u64) -> Vec<OpenOrder> {
        let Some(category) =
            Category::parse_any(codec::json::Category::from(category).as_rest_str())
        else {
            return Vec::new();
        };
        every_page(|cursor| {
            let q = PageQuery {
                category: Some(category),
                symbol: None,
                order_id: None,
                start_ms: since_ms,
                end_ms: u64::MAX,
                limit: 100,
                cursor,
            };
            self.venue.history_orders(ACCOUNT, &q)
        })
    }

    /// The account's open orders, its finished orders since `since_ms` and its fills since then
    /// (what reconciliation after a reconnect lists), every page.
    pub fn lists(&self, since_ms: u64) -> (Vec<OpenOrder>, Vec<ExchangeFill>) {
        let mut orders = self.open_orders();
        orders.extend(self.history_orders(codec::sbe::Category::UsdtFutures, since_ms));
        (orders, self.fills(None, None, since_ms))
    }

    /// `GET /api/v3/trade/fills` of `category` (all when `None`), of one order when given, since
    /// `since_ms`, every page.
    pub fn fills(
        &self,
        category: Option<codec::sbe::Category>,
        order_id: Option<u64>,
        since_ms: u64,
    ) -> Vec<ExchangeFill> {
        let category = category
            .and_then(|c| Category::parse_any(codec::json::Category::from(c).as_rest_str()));
        let mut out = Vec::new();
        let mut cursor = None;
        loop {
            let q = PageQuery {
                category,
                symbol: None,
                order_id,
                start_ms: since_ms,
                end_ms: u64::MAX,
                limit: 100,
                cursor,
            };
            let page = self.venue.fills(ACCOUNT, &q);
            let Ok(v) = serde_json::from_str::<Value>(&page) else {
                break;
            };
            let list = v.get("list").and_then(Value::as_array);
            out.extend(
                list.into_iter()
                    .flatten()
                    .filter_map(|f| parse_fill(f).ok()),
            );
            match v
                .get("cursor")
                .and_then(Value::as_str)
                .map(str::parse::<u64>)
            {
                Some(Ok(c)) => cursor = Some(c),
                _ => break,
            }
        }
        out
    }
}

/// The orders of every page `page` gives (called with the cursor, `None` first), until a page
/// has no cursor or does not parse.
fn every_page(page: impl Fn(Option<u64>) -> String) -> Vec<OpenOrder> {
    let mut orders = Vec::new();
    let mut cursor = None;
    while let Some((list, next)) = parse_orders(&page(cursor)) {
        orders.extend(list);
        match next.parse::<u64>() {
            Ok(c) => cursor = Some(c),
            Err(_) => break,
        }
    }
    orders
}

/// One page of orders and its cursor.
fn parse_orders(page: &str) -> Option<(Vec<OpenOrder>, String)> {
    let v: Value = serde_json::from_str(page).ok()?;
    parse_page(&v).ok()
}

/// The pushes of `out` for the gateway's account.
fn keep_ours(out: &TradeOutcome, to: &mut Vec<String>) {
    to.extend(
        out.pushes
            .iter()
            .filter(|p| p.owner == ACCOUNT && matches!(p.topic, Topic::Order | Topic::Fill))
            .map(|p| p.json.clone()),
    );
}
