//! The exchange state without I/O: books, order indexes, trade-op handling (request JSON in,
//! reply and pushes out). Time comes in as `now_ms`.
//!
//! Request checks done here (codes chosen from the reference §5–§6):
//! - `category` not exactly one of the lowercase WS spellings → `41101` "Param category={v} error"
//!   (live text for `USDT-FUTURES`); missing on place → `40017`;
//! - unknown trade topic → `41101` "Param topic={v} error";
//! - a missing or malformed required field → `40017` "Parameter verification failed: {field}";
//!   a bad enum value (`side`, `orderType`, `timeInForce`, `posSide`, `stpMode`) → `41101`
//!   "Param {field}={v} error";
//! - unknown symbol for the category → `25100` "trading pair {symbol} does not exist";
//! - `clientOid` outside the channel's documented pattern ([`valid_client_oid`]) → `40017`; a
//!   clientOid of a pending order of the same account → `25212` "Duplicate clientOid";
//! - more than 20 items in a batch, or not exactly one item in a single op → `40017`;
//! - tick / lot / size / notional / modify / unknown-order codes: see [`crate::matching::Book`].
//!
//! Modify with `autoCancel` `yes`: when the modification is refused (any code but `25204`) the
//! error reply is sent and the order is then cancelled (`cancelled` / `normal_cancel` push).
//!
//! Memory (issue 23: a paper-trading venue runs for weeks): everything kept per order, per
//! clientOid or per fill is bounded, and the large tables are allocated at start so that none
//! grows (rehash or copy under the venue lock) while orders flow:
//! - open orders (books, the open-order index, the open clientOids) leave when they end; the
//!   clientOid index is sized for [`Venue::OPEN_SIZED`], each book's for
//!   [`Book::ORDERS_SIZED`];
//! - finished orders: the last 100 000, none that ended 90 days ago or more (`history.rs`);
//! - fills: the last 100 000, none 90 days old or more (`queries.rs`, `FillLog`);
//! - financial records: the last [`crate::accounts::RECORDS_KEPT`] per account;
//! - clientOids placed, for the repeated-clientOid counter: two generations of 917 504
//!   fingerprints (`seen.rs`).
//!
//! The `venue_growth` example drives 2 000 000 orders through a venue and prints its RSS and
//! worst trade op per 100 000.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use codec::Decimal;
use serde_json::Value;

use crate::config::{Category, InstrumentConfig, SimConfig};
use crate::matching::{
    AccountId, Book, CancelReason, Event, IdGen, InstrumentSpec, NewOrder, OrderType, PosSide,
    Reject, Side, StpMode, TimeInForce,
};
use crate::render::{self, ReplyItem};

mod account_ops;
mod fast;
mod history;
mod limits;
mod moves_ops;
mod trade;
use history::History;
use params::EntryOrder;
mod params;
mod queries;
mod seen;
pub use params::{CancelResult, PageQuery};

/// Which private topic a push belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topic {
    /// `order`.
    Order,
    /// `fill`.
    Fill,
    /// `account`.
    Account,
    /// `position`.
    Position,
}

/// A rendered push for the connections of `owner` subscribed to `topic`.
#[derive(Debug, Clone)]
pub struct Push {
    /// Account the push belongs to.
    pub owner: AccountId,
    /// Topic.
    pub topic: Topic,
    /// Complete JSON text.
    pub json: String,
}

/// Shared counters (atomics so that connections can bump them without the venue lock).
#[derive(Debug, Default)]
pub struct Counters {
    /// Place requests (single or batch items) received from accounts.
    pub orders_received: AtomicU64,
    /// Place requests carrying a clientOid the account had already used (open, finished or
    /// refused): a client that sends an order twice.
    pub repeated_client_oids: AtomicU64,
    /// Orders accepted (ACKed).
    pub orders_placed: AtomicU64,
    /// Trade-op items rejected with an error code.
    pub rejects: AtomicU64,
    /// Orders cancelled (any reason, accounts only).
    pub orders_cancelled: AtomicU64,
    /// Modify requests accepted.
    pub orders_modified: AtomicU64,
    /// Fills of account orders (one per side per match).
    pub fills: AtomicU64,
    /// WebSocket connections currently open.
    pub ws_connections: AtomicU64,
    /// WebSocket connections accepted since start.
    pub ws_connections_total: AtomicU64,
    /// Requests refused for a per-UID quota (HTTP 429 / WS code 429).
    pub rate_limited: AtomicU64,
    /// Connections closed for sending over `max_msgs_per_s` (code 30007).
    pub msg_limit_closes: AtomicU64,
    /// `batch-place` requests received (any outcome; one per request, not per item).
    pub batch_place_ops: AtomicU64,
    /// `batch-modify` requests received.
    pub batch_modify_ops: AtomicU64,
    /// `batch-cancel` requests received.
    pub batch_cancel_ops: AtomicU64,
    /// Authenticated `POST /api/v3/account/move-positions` requests (refused ones included).
    pub move_positions_requests: AtomicU64,
    /// Authenticated `GET /api/v3/trade/order-info` requests (refused ones included).
    pub order_info_queries: AtomicU64,
}

fn bump(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

/// Where an open order lives.
#[derive(Debug, Clone, Copy)]
struct Loc {
    book: usize,
    owner: AccountId,
}

/// Book metadata.
#[derive(Debug)]
struct BookEntry {
    category: Category,
    book: Book,
}

/// The result of one trade op: the reply (sent first) and the pushes it caused.
#[derive(Debug, Default)]
pub struct TradeOutcome {
    /// Reply JSON text.
    pub reply: String,
    /// Pushes, in emission order.
    pub pushes: Vec<Push>,
    /// True when some liquidity-source order was touched (the caller tops the ladder up).
    pub touched_liquidity: bool,
}

/// The simulated exchange.
#[derive(Debug)]
pub struct Venue {
    books: Vec<BookEntry>,
    by_symbol: HashMap<(Category, String), usize>,
    instruments: Vec<InstrumentConfig>,
    ids: IdGen,
    /// Open orders by orderId, ordered (the open-order list pages newest first by orderId).
    open: BTreeMap<u64, Loc>,
    /// The open orders' clientOids (an entry leaves when its order ends), allocated for
    /// [`Venue::OPEN_SIZED`] at start.
    client_oids: HashMap<(AccountId, String), u64>,
    /// The clientOids each account has sent in a place request (recent ones, as
    /// fingerprints: see `seen`).
    seen_client_oids: seen::SeenClientOids,
    counters: Arc<Counters>,
    events: Vec<Event>,
    history: History,
    fill_log: queries::FillLog,
    accounts: crate::accounts::Accounts,
    mark_overrides: HashMap<usize, Decimal>,
    last_price: HashMap<usize, Decimal>,
    moves: crate::moves::MoveLedger,
    /// The fast venue's open orders (`venue = "fast"`, [`fast`]); `None`: the full venue.
    fast: Option<fast::FastBook>,
    /// Open account orders per (account, book) and per (account, product line), for the
    /// open-order caps ([`limits`]).
    open_counts: limits::OpenCounts,
    /// Modification state of the open orders that were modified ([`limits`]).
    mods: HashMap<u64, limits::ModState>,
    /// The modification limits.
    modify_rules: limits::ModifyRules,
}

/// A field of a request object as text: strings as they are, numbers as their JSON text.
fn text(v: &Value, key: &str) -> Option<String> {
    match v.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(if *b { "yes" } else { "no" }.to_string()),
        _ => None,
    }
}

fn missing(field: &str) -> Reject {
    Reject::new(40017, format!("Parameter verification failed: {field}"))
}

fn bad_param(field: &str, v: &str) -> Reject {
    Reject::new(41101, format!("Param {field}={v} error"))
}

fn decimal_field(arg: &Value, key: &str) -> Result<Option<Decimal>, Reject> {
    match text(arg, key) {
        None => Ok(None),
        Some(s) if s.is_empty() => Ok(None),
        Some(s) => s.parse::<Decimal>().map(Some).map_err(|_| missing(key)),
    }
}

fn enum_field<T>(
    arg: &Value,
    key: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<Option<T>, Reject> {
    match text(arg, key) {
        None => Ok(None),
        Some(s) if s.is_empty() => Ok(None),
        Some(s) => parse(&s).map(Some).ok_or_else(|| bad_param(key, &s)),
    }
}

/// The API a trade op came in by: the two document different `clientOid` patterns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    /// The private WebSocket's `op:"trade"` (place-order / batch-place topics).
    Ws,
    /// The signed REST endpoints (`/api/v3/trade/place-order`, `place-batch`).
    Rest,
}

/// True for a `clientOid` the channel's documented pattern accepts (reference §6.3):
/// - WebSocket: `^[0-9A-Za-z_:#\-+\s]{1,32}$` (best-practices page and the WS place-order
///   channel; Bitget's own examples use ids like `channel#123456`); `\s` is an ASCII space,
///   tab, line feed, vertical tab, form feed or carriage return, as in the regex;
/// - REST: `^[\.A-Z\:/a-z0-9_-]{1,32}$` (REST place-order page).
///
/// Anything else is refused with `40017` "Parameter verification failed: clientOid".
pub fn valid_client_oid(channel: Channel, s: &str) -> bool {
    let allowed = |b: u8| match channel {
        Channel::Ws => {
            b.is_ascii_alphanumeric()
                || matches!(b, b'_' | b':' | b'#' | b'-' | b'+')
                || matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
        }
        Channel::Rest => b.is_ascii_alphanumeric() || matches!(b, b'.' | b':' | b'/' | b'_' | b'-'),
    };
    (1..=32).contains(&s.len()) && s.bytes().all(allowed)
}

fn yes_no(s: &str) -> Option<bool> {
    match s.to_ascii_lowercase().as_str() {
        "yes" | "true" => Some(true),
        "no" | "false" => Some(false),
        _ => None,
    }
}

/// The instrument rules of the engine from a configured instrument.
pub fn spec_of(i: &InstrumentConfig) -> InstrumentSpec {
    InstrumentSpec {
        symbol: i.symbol.clone(),
        quote_coin: i.quote_coin.clone(),
        price_exp: InstrumentSpec::exp_of(i.price_multiplier),
        qty_exp: InstrumentSpec::exp_of(i.quantity_multiplier),
        tick: i.price_multiplier,
        lot: i.quantity_multiplier,
        min_qty: i.min_order_qty,
        max_qty: i.max_order_qty,
        min_notional: i.min_order_amount,
        maker_fee: i.maker_fee_rate,
        taker_fee: i.taker_fee_rate,
        market_buy_in_quote: matches!(i.category, Category::Spot | Category::Margin),
    }
}

impl Venue {
    /// Open account orders the clientOid index holds without growing (a table of 2^16 slots,
    /// 2.6 MiB): a gateway that keeps 10 000 orders open fills it to 15 %, where an index that
    /// churns (one clientOid out for each one in) practically never runs out of free slots to
    /// tombstones, so it never rehashes while orders flow. More open orders still work; the
    /// table then grows once.
    pub const OPEN_SIZED: usize = 32_768;

    /// A venue with the configured instruments; ids start at `id_base` (or from `now_ms`).
    pub fn new(cfg: &SimConfig, counters: Arc<Counters>, now_ms: u64) -> Venue {
        let mut books = Vec::new();
        let mut by_symbol = HashMap::new();
        let accounts = crate::accounts::Accounts::new(&cfg.accounts);
        let parties = accounts.stp_parties();
        for i in &cfg.instruments {
            by_symbol.insert((i.category, i.symbol.clone()), books.len());
            let mut book = Book::new(spec_of(i));
            book.set_stp_parties(parties.clone());
            book.set_new_before_fill(cfg.new_before_fill);
            books.push(BookEntry {
                category: i.category,
                book,
            });
        }
        Venue {
            books,
            by_symbol,
            instruments: cfg.instruments.clone(),
            ids: match cfg.id_base {
                Some(b) => IdGen::new(b),
                None => IdGen::from_time_ms(now_ms),
            },
            open: BTreeMap::new(),
            client_oids: HashMap::with_capacity(Self::OPEN_SIZED),
            seen_client_oids: seen::SeenClientOids::new(),
            counters,
            events: Vec::new(),
            history: History::new(),
            fill_log: queries::FillLog::new(),
            accounts,
            mark_overrides: HashMap::new(),
            last_price: HashMap::new(),
            moves: crate::moves::MoveLedger::default(),
            fast: (cfg.venue == crate::config::VenueMode::Fast).then(fast::FastBook::new),
            open_counts: limits::OpenCounts::default(),
            mods: HashMap::new(),
            modify_rules: limits::ModifyRules {
                max_per_order: cfg.max_modifications_per_order,
                max_pending: cfg.max_pending_modifications,
                pending_ms: cfg.modify_pending_ms,
            },
        }
    }

    /// The configured instruments.
    pub fn instruments(&self) -> &[InstrumentConfig] {
        &self.instruments
    }

    /// Index of the book of (category, symbol).
    pub fn book_index(&self, category: Category, symbol: &str) -> Option<usize> {
        self.by_symbol.get(&(category, symbol.to_string())).copied()
    }

    /// A book by index.
    pub fn book(&self, idx: usize) -> Option<&Book> {
        self.books.get(idx).map(|b| &b.book)
    }

    /// Places a liquidity-source order (units of the book). Returns the order id when it rests.
    pub fn mm_place(
        &mut self,
        book_idx: usize,
        side: Side,
        price_units: i64,
        qty_units: i64,
        now_ms: u64,
        pushes: &mut TradeOutcome,
    ) -> Option<u64> {
        let entry = self.books.get_mut(book_idx)?;
        let price = Decimal::new(price_units, entry.book.spec().price_exp).ok()?;
        let qty = Decimal::new(qty_units, entry.book.spec().qty_exp).ok()?;
        let order_id = self.ids.next_id();
        let mut events = std::mem::take(&mut self.events);
        events.clear();
        let r = entry.book.place(
            NewOrder {
                owner: AccountId::MARKET_MAKER,
                order_id,
                client_oid: order_id.to_string(),
                side,
                order_type: OrderType::Limit,
                price: Some(price),
                qty,
                tif: TimeInForce::Gtc,
                pos_side: None,
                reduce_only: false,
                stp_mode: StpMode::CancelMaker,
            },
            now_ms,
            &mut self.ids,
            &mut events,
        );
        let rests = r.is_ok() && entry.book.order(order_id).is_some();
        if r.is_ok() {
            self.route(book_idx, &events, now_ms, pushes);
        }
        self.events = events;
        rests.then_some(order_id)
    }

    /// Cancels a liquidity-source order (ignored when it is gone).
    pub fn mm_cancel(
        &mut self,
        book_idx: usize,
        order_id: u64,
        now_ms: u64,
        pushes: &mut TradeOutcome,
    ) {
        let mut events = std::mem::take(&mut self.events);
        events.clear();
        if let Some(entry) = self.books.get_mut(book_idx) {
            if entry
                .book
                .cancel(order_id, CancelReason::Normal, now_ms, &mut events)
                .is_ok()
            {
                self.route(book_idx, &events, now_ms, pushes);
            }
        }
        self.events = events;
    }

    /// Updates indexes and renders pushes for the events of one book call.
    fn route(
        &mut self,
        book_idx: usize,
        events: &[Event],
        now_ms: u64,
        outcome: &mut TradeOutcome,
    ) {
        // The book is already in its final state: `frozen` is refreshed first so that the
        // position pushes of this call's fills carry it; owners whose close-position order
        // was placed, modified or cancelled without a fill get their own position push below
        // (reference §4.4, Positions-Channel page: "Push incremental data when futures
        // close-position orders are placed / modified / cancelled").
        let mut frozen_changed = Vec::new();
        for owner in self.close_order_owners(book_idx, events) {
            let ps = self.refresh_frozen(owner, book_idx);
            if !ps.is_empty() {
                frozen_changed.push((owner, ps));
            }
        }
        let first_push = outcome.pushes.len();
        let Some(entry) = self.books.get(book_idx) else {
            return;
        };
        let mut marks: Option<crate::accounts::Marks> = None;
        for ev in events {
            match ev {
                Event::Order(o) => {
                    if o.status.is_terminal() {
                        if let Some(loc) = self.open.remove(&o.order_id) {
                            self.open_counts.remove(loc.owner, loc.book, entry.category);
                            self.mods.remove(&o.order_id);
                        }
                        self.client_oids.remove(&(o.owner, o.client_oid.clone()));
                        if o.owner != AccountId::MARKET_MAKER {
                            self.history.insert(book_idx, o, now_ms);
                        }
                    }
                    if o.owner == AccountId::MARKET_MAKER {
                        outcome.touched_liquidity = true;
                        continue;
                    }
                    if o.status == crate::matching::OrderStatus::Cancelled {
                        bump(&self.counters.orders_cancelled);
                    }
                    outcome.pushes.push(Push {
                        owner: o.owner,
                        topic: Topic::Order,
                        json: render::order_push(&entry.book, entry.category, o, now_ms),
                    });
                }
                Event::Fill(f) => {
                    if f.owner == AccountId::MARKET_MAKER {
                        outcome.touched_liquidity = true;
                        continue;
                    }
                    bump(&self.counters.fills);
                    self.fill_log.insert(book_idx, f, now_ms);
                    outcome.pushes.push(Push {
                        owner: f.owner,
                        topic: Topic::Fill,
                        json: render::fill_push(&entry.book, entry.category, f, now_ms),
                    });
                    self.last_price.insert(book_idx, f.price);
                    let marks = marks.get_or_insert_with(|| {
                        account_ops::compute_marks(
                            &self.books,
                            &self.mark_overrides,
                            &self.last_price,
                        )
                    });
                    if let Some(inst) = self.instruments.get(book_idx) {
                        account_ops::on_fill(
                            &mut self.accounts,
                            inst,
                            f,
                            marks,
                            &self.instruments,
                            now_ms,
                            outcome,
                        );
                    }
                }
            }
        }
        for (owner, positions) in frozen_changed {
            let pushed = outcome
                .pushes
                .get(first_push..)
                .unwrap_or_default()
                .iter()
                .any(|p| p.owner == owner && p.topic == Topic::Position);
            if pushed {
                continue;
            }
            let marks = marks.get_or_insert_with(|| {
                account_ops::compute_marks(&self.books, &self.mark_overrides, &self.last_price)
            });
            outcome.pushes.push(Push {
                owner,
                topic: Topic::Position,
                json: self.accounts.position_push(
                    owner,
                    &positions,
                    &self.instruments,
                    marks,
                    now_ms,
                ),
            });
        }
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod fuzz;
