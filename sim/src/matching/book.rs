//! One order book with price-time priority (see the module docs of [`crate::matching`] for the
//! push sequences and [`Book`] for the checks and their Bitget codes).

use std::collections::{BTreeMap, HashMap, VecDeque};

use codec::Decimal;

use super::types::{
    AccountId, CancelReason, Event, Fill, IdGen, NewOrder, Order, OrderStatus, OrderType, Reject,
    Side, StpMode, TimeInForce, TradeScope,
};

/// Trading rules of one instrument, in the integer units the book works in.
#[derive(Debug, Clone)]
pub struct InstrumentSpec {
    /// Symbol (`BTCUSDT`).
    pub symbol: String,
    /// Quote coin (fee coin), for example `USDT`.
    pub quote_coin: String,
    /// Price unit exponent: prices are integers × `10^price_exp`.
    pub price_exp: i8,
    /// Quantity unit exponent: quantities are integers × `10^qty_exp`.
    pub qty_exp: i8,
    /// Tick size (`priceMultiplier`) as a decimal (for messages and checks).
    pub tick: Decimal,
    /// Lot size (`quantityMultiplier`).
    pub lot: Decimal,
    /// Minimum quantity (`minOrderQty`).
    pub min_qty: Decimal,
    /// Maximum quantity (`maxOrderQty`); zero means unlimited.
    pub max_qty: Decimal,
    /// Minimum notional in quote coin (`minOrderAmount`).
    pub min_notional: Decimal,
    /// Maker fee rate.
    pub maker_fee: Decimal,
    /// Taker fee rate.
    pub taker_fee: Decimal,
    /// Market buys give `qty` in quote coin (spot and margin, reference §5.1): the order spends
    /// at most that amount.
    pub market_buy_in_quote: bool,
}

impl InstrumentSpec {
    /// The unit exponent a step (tick or lot) implies: its number of fractional digits (never
    /// positive).
    pub fn exp_of(step: Decimal) -> i8 {
        step.normalized().exponent().min(0)
    }
}

/// An order book for one (category, symbol).
///
/// Checks and codes (chosen from the reference tables, §6.2):
/// - price not a positive multiple of `priceMultiplier` → `25244` "Price should be a multiple of {tick}";
/// - qty not a positive multiple of `quantityMultiplier` → `40017` "Parameter verification failed: qty
///   must be a multiple of {lot}" (no dedicated UTA code is documented);
/// - qty below `minOrderQty` → `25207`, above `maxOrderQty` → `25208`;
/// - notional below `minOrderAmount` → `45110` "less than the minimum amount {n} USDT" (live text);
/// - cancel / modify of an unknown or finished order → `25204` "Order does not exist";
/// - modify with the same price and qty → `25571`; modify qty not above the filled qty → `25568`.
#[derive(Debug)]
pub struct Book {
    spec: InstrumentSpec,
    /// Price levels, each a queue of orderIds in time priority; a level leaves when its last
    /// order does, and an order's id leaves its queue when it fills or is cancelled.
    bids: BTreeMap<i64, VecDeque<u64>>,
    asks: BTreeMap<i64, VecDeque<u64>>,
    /// Open orders (an order leaves when it ends), allocated for [`Book::ORDERS_SIZED`].
    orders: HashMap<u64, Order>,
    tick_units: i64,
    lot_units: i64,
    /// STP party of each account (its master); accounts absent here are their own party.
    stp_party: HashMap<AccountId, AccountId>,
    /// Push `new` for an incoming order that trades on entry, before its match pushes.
    new_before_fill: bool,
}

impl Book {
    /// Sets the self-trade-prevention parties: `party[account]` = its master account, so that
    /// a master and all its sub-accounts never trade with each other (reference §8).
    pub fn set_stp_parties(&mut self, party: HashMap<AccountId, AccountId>) {
        self.stp_party = party;
    }

    /// Whether an incoming order that trades on entry is first pushed as `new` (reference §4.2
    /// status sequence, best-practices page: "immediate full fill `new → filled`; multi-fill
    /// `new → partially_filled → … → filled`"). On by default; `false` gives the older
    /// simulator behaviour (only the match pushes), for a client that wants to be tested
    /// against both. An order that rests without trading is pushed `live` either way. Off in
    /// a new book (the bare engine); the venue sets it from `SimConfig::new_before_fill`.
    pub fn set_new_before_fill(&mut self, on: bool) {
        self.new_before_fill = on;
    }

    /// Pushes `order` as `new` (nothing traded yet) when it is about to trade on entry
    /// ([`Book::set_new_before_fill`]). `limit` in price units, `None` for a market order.
    fn announce_entry(&self, order: &Order, limit: Option<i64>, out: &mut Vec<Event>) {
        if self.new_before_fill && self.crosses(order.side, limit) {
            let mut o = order.clone();
            o.status = OrderStatus::New;
            out.push(Event::Order(o));
        }
    }

    /// True when `a` and `b` belong to the same master/sub-account system.
    fn same_party(&self, a: AccountId, b: AccountId) -> bool {
        let p = |x: AccountId| self.stp_party.get(&x).copied().unwrap_or(x);
        p(a) == p(b)
    }

    /// Open orders a book holds without growing its table (2^14 slots, about 2.8 MiB of
    /// address space, touched as orders land): 5 000 open orders in a book fill it to 30 %,
    /// where a table that churns practically never runs out of free slots to tombstones, so
    /// it never rehashes while orders flow. More open orders still work; the table then grows.
    pub const ORDERS_SIZED: usize = 8_192;

    /// An empty book for `spec`.
    pub fn new(spec: InstrumentSpec) -> Book {
        let tick_units = spec.tick.to_scaled(spec.price_exp).unwrap_or(1).max(1);
        let lot_units = spec.lot.to_scaled(spec.qty_exp).unwrap_or(1).max(1);
        Book {
            spec,
            bids: BTreeMap::new(),
            asks: BTreeMap::new(),
            orders: HashMap::with_capacity(Self::ORDERS_SIZED),
            tick_units,
            lot_units,
            stp_party: HashMap::new(),
            new_before_fill: false,
        }
    }

    /// Open orders the book's table holds without growing (entries plus free slots).
    #[cfg(test)]
    pub(crate) fn orders_capacity(&self) -> usize {
        self.orders.capacity()
    }

    /// Price levels of `side` and the orderIds queued at each, best last (bids) or first.
    #[cfg(test)]
    pub(crate) fn level_lens(&self, side: Side) -> Vec<(i64, usize)> {
        let levels = match side {
            Side::Buy => &self.bids,
            Side::Sell => &self.asks,
        };
        levels.iter().map(|(p, q)| (*p, q.len())).collect()
    }

    /// The instrument rules.
    pub fn spec(&self) -> &InstrumentSpec {
        &self.spec
    }

    /// Tick size in price units.
    pub fn tick_units(&self) -> i64 {
        self.tick_units
    }

    /// Lot size in quantity units.
    pub fn lot_units(&self) -> i64 {
        self.lot_units
    }

    /// A price in units as a decimal (normalized).
    pub fn price_dec(&self, units: i64) -> Decimal {
        Decimal::new(units, self.spec.price_exp)
            .unwrap_or_default()
            .normalized()
    }

    /// A quantity in units as a decimal (normalized).
    pub fn qty_dec(&self, units: i64) -> Decimal {
        Decimal::new(units, self.spec.qty_exp)
            .unwrap_or_default()
            .normalized()
    }

    /// A value (price units × quantity units) as a decimal (normalized; saturates on absurd sizes).
    pub fn value_dec(&self, units: i128) -> Decimal {
        let m = i64::try_from(units).unwrap_or(i64::MAX);
        Decimal::new(m, self.spec.price_exp.saturating_add(self.spec.qty_exp))
            .unwrap_or_default()
            .normalized()
    }

    /// Average price of an order (`cumExecValue ÷ cumExecQty`), `0` when unfilled.
    pub fn avg_price(&self, o: &Order) -> Decimal {
        if o.cum_qty == 0 {
            return Decimal::ZERO;
        }
        let v = self.value_dec(o.cum_value);
        let q = self.qty_dec(o.cum_qty);
        let scale = (-(i32::from(self.spec.price_exp)) + 8).clamp(0, 18) as u8;
        v.checked_div(q, scale, codec::Rounding::HalfUp)
            .unwrap_or_default()
            .normalized()
    }

    /// An order by id, while it is open.
    pub fn order(&self, order_id: u64) -> Option<&Order> {
        self.orders.get(&order_id)
    }

    /// Open orders (any owner).
    pub fn open_orders(&self) -> impl Iterator<Item = &Order> {
        self.orders.values()
    }

    /// Best bid price in units.
    pub fn best_bid(&self) -> Option<i64> {
        self.bids.keys().next_back().copied()
    }

    /// Best ask price in units.
    pub fn best_ask(&self) -> Option<i64> {
        self.asks.keys().next().copied()
    }

    /// Aggregated depth of one side, best first: `(price units, qty units)`, at most `levels`.
    pub fn depth(&self, side: Side, levels: usize) -> Vec<(i64, i64)> {
        let sum = |ids: &VecDeque<u64>| -> i64 {
            ids.iter()
                .filter_map(|id| self.orders.get(id))
                .map(Order::leaves)
                .sum()
        };
        match side {
            Side::Buy => self
                .bids
                .iter()
                .rev()
                .take(levels)
                .map(|(p, ids)| (*p, sum(ids)))
                .collect(),
            Side::Sell => self
                .asks
                .iter()
                .take(levels)
                .map(|(p, ids)| (*p, sum(ids)))
                .collect(),
        }
    }

    /// Checks a price against the tick: `25244` unless a positive multiple of the tick.
    pub fn check_price(&self, price: Decimal) -> Result<i64, Reject> {
        let bad = || {
            Reject::new(
                25244,
                format!(
                    "Price should be a multiple of {}",
                    self.spec.tick.normalized()
                ),
            )
        };
        if !price.is_positive() {
            return Err(Reject::new(
                40017,
                "Parameter verification failed: price must be positive",
            ));
        }
        let units = price.to_scaled(self.spec.price_exp).ok_or_else(bad)?;
        if units % self.tick_units != 0 {
            return Err(bad());
        }
        Ok(units)
    }

    /// Checks a quantity: positive multiple of the lot (`40017`), at least `minOrderQty`
    /// (`25207`), at most `maxOrderQty` (`25208`, zero = unlimited).
    pub fn check_qty(&self, qty: Decimal) -> Result<i64, Reject> {
        let lot = || {
            Reject::new(
                40017,
                format!(
                    "Parameter verification failed: qty must be a multiple of {}",
                    self.spec.lot.normalized()
                ),
            )
        };
        if !qty.is_positive() {
            return Err(Reject::new(
                40017,
                "Parameter verification failed: qty must be positive",
            ));
        }
        let units = qty.to_scaled(self.spec.qty_exp).ok_or_else(lot)?;
        if units % self.lot_units != 0 {
            return Err(lot());
        }
        if qty < self.spec.min_qty {
            return Err(Reject::new(
                25207,
                format!(
                    "The order quantity is less than the minimum {}",
                    self.spec.min_qty.normalized()
                ),
            ));
        }
        if self.spec.max_qty.is_positive() && qty > self.spec.max_qty {
            return Err(Reject::new(
                25208,
                format!(
                    "The order quantity exceeds the maximum {}",
                    self.spec.max_qty.normalized()
                ),
            ));
        }
        Ok(units)
    }

    /// Checks the notional `price × qty` against `minOrderAmount` (`45110`).
    pub fn check_notional(&self, price_units: i64, qty_units: i64) -> Result<(), Reject> {
        let value = self.value_dec(i128::from(price_units) * i128::from(qty_units));
        if value < self.spec.min_notional {
            return Err(Reject::new(
                45110,
                format!(
                    "less than the minimum amount {} {}",
                    self.spec.min_notional.normalized(),
                    self.spec.quote_coin
                ),
            ));
        }
        Ok(())
    }

    /// Validates and executes a new order. On `Err` nothing changed and no event was emitted;
    /// on `Ok` the events (possibly a `cancelled` push for IOC/FOK/post_only) are appended to
    /// `out`.
    pub fn place(
        &mut self,
        req: NewOrder,
        now_ms: u64,
        ids: &mut IdGen,
        out: &mut Vec<Event>,
    ) -> Result<(), Reject> {
        if req.order_type == OrderType::Market
            && req.side == Side::Buy
            && self.spec.market_buy_in_quote
        {
            return self.place_quote_buy(req, now_ms, ids, out);
        }
        let qty = self.check_qty(req.qty)?;
        let price = match req.order_type {
            OrderType::Limit => {
                let p = req.price.ok_or_else(|| {
                    Reject::new(40017, "Parameter verification failed: price is required")
                })?;
                Some(self.check_price(p)?)
            }
            OrderType::Market => None,
        };
        // Market orders are checked against the best opposite price when there is one.
        let ref_price = price.or(match req.side {
            Side::Buy => self.best_ask(),
            Side::Sell => self.best_bid(),
        });
        if let Some(p) = ref_price {
            self.check_notional(p, qty)?;
        }
        let mut order = Order {
            owner: req.owner,
            order_id: req.order_id,
            client_oid: req.client_oid,
            side: req.side,
            order_type: req.order_type,
            tif: req.tif,
            price,
            qty,
            cum_qty: 0,
            cum_value: 0,
            cum_fee: Decimal::ZERO,
            amount: None,
            pos_side: req.pos_side,
            reduce_only: req.reduce_only,
            stp_mode: req.stp_mode,
            status: OrderStatus::Live,
            cancel_reason: None,
            created_ms: now_ms,
            updated_ms: now_ms,
        };
        let limit = price;
        let tif = match req.order_type {
            OrderType::Market => TimeInForce::Ioc,
            OrderType::Limit => req.tif,
        };
        match tif {
            TimeInForce::PostOnly => {
                if self.crosses(order.side, limit) {
                    finish(&mut order, CancelReason::PostOnlyFill, now_ms, out);
                    return Ok(());
                }
            }
            TimeInForce::Fok => {
                if self.fillable(&order, limit) < order.qty {
                    finish(&mut order, CancelReason::FokNotFull, now_ms, out);
                    return Ok(());
                }
            }
            TimeInForce::Gtc | TimeInForce::Ioc => {}
        }
        self.announce_entry(&order, limit, out);
        let stp_cancelled = self.match_taker(&mut order, limit, now_ms, ids, out);
        if order.leaves() == 0 {
            return Ok(());
        }
        if stp_cancelled {
            finish(&mut order, CancelReason::Stp, now_ms, out);
        } else if tif == TimeInForce::Ioc || tif == TimeInForce::Fok {
            finish(&mut order, CancelReason::IocNotFull, now_ms, out);
        } else {
            if order.cum_qty == 0 {
                out.push(Event::Order(order.clone()));
            }
            self.rest(order);
        }
        Ok(())
    }

    /// A market buy whose `qty` is a quote-coin amount: fills level by level while the
    /// remaining amount buys at least one lot; `filled` when the amount is used up (to lot
    /// granularity), else the remainder is cancelled (`ioc_not_full_cancel`). The amount must
    /// reach `minOrderAmount` (`45110`) and have at most price+qty precision digits (`40017`).
    fn place_quote_buy(
        &mut self,
        req: NewOrder,
        now_ms: u64,
        ids: &mut IdGen,
        out: &mut Vec<Event>,
    ) -> Result<(), Reject> {
        let value_exp = self.spec.price_exp.saturating_add(self.spec.qty_exp);
        if !req.qty.is_positive() {
            return Err(Reject::new(
                40017,
                "Parameter verification failed: qty must be positive",
            ));
        }
        let budget = req
            .qty
            .to_scaled(value_exp)
            .ok_or_else(|| Reject::new(40017, "Parameter verification failed: qty precision"))?;
        if req.qty < self.spec.min_notional {
            return Err(Reject::new(
                45110,
                format!(
                    "less than the minimum amount {} {}",
                    self.spec.min_notional.normalized(),
                    self.spec.quote_coin
                ),
            ));
        }
        let mut taker = Order {
            owner: req.owner,
            order_id: req.order_id,
            client_oid: req.client_oid,
            side: Side::Buy,
            order_type: OrderType::Market,
            tif: req.tif,
            price: None,
            // Base quantity is open-ended; the budget limits the fills.
            qty: i64::MAX,
            cum_qty: 0,
            cum_value: 0,
            cum_fee: Decimal::ZERO,
            amount: Some(req.qty),
            pos_side: req.pos_side,
            reduce_only: req.reduce_only,
            stp_mode: req.stp_mode,
            status: OrderStatus::Live,
            cancel_reason: None,
            created_ms: now_ms,
            updated_ms: now_ms,
        };
        self.announce_entry(&taker, None, out);
        let first_event = out.len();
        let mut exhausted = false;
        while let Some((&level_price, queue)) = self.asks.iter().next() {
            let Some(&maker_id) = queue.front() else {
                self.asks.remove(&level_price);
                continue;
            };
            let Some(maker) = self.orders.get(&maker_id) else {
                self.pop_front(Side::Sell, level_price);
                continue;
            };
            if self.same_party(maker.owner, taker.owner) && taker.stp_mode != StpMode::None {
                let cancel_taker = taker.stp_mode != StpMode::CancelMaker;
                if taker.stp_mode != StpMode::CancelTaker {
                    if let Some(mut m) = self.remove_resting(maker_id) {
                        finish(&mut m, CancelReason::Stp, now_ms, out);
                    }
                }
                if cancel_taker {
                    break;
                }
                continue;
            }
            let remaining = i128::from(budget) - taker.cum_value;
            let affordable =
                i64::try_from(remaining / i128::from(level_price.max(1))).unwrap_or(i64::MAX);
            let affordable = affordable - affordable.rem_euclid(self.lot_units);
            if affordable <= 0 {
                exhausted = true;
                break;
            }
            let q = affordable.min(maker.leaves());
            let taker_fill =
                self.execute(&mut taker, level_price, q, TradeScope::Taker, ids, now_ms);
            let Some(mut maker) = self.orders.remove(&maker_id) else {
                continue;
            };
            let mut maker_fill =
                self.execute(&mut maker, level_price, q, TradeScope::Maker, ids, now_ms);
            maker_fill.exec_link_id = taker_fill.exec_id;
            out.push(Event::Order(taker.clone()));
            out.push(Event::Fill(taker_fill));
            out.push(Event::Order(maker.clone()));
            out.push(Event::Fill(maker_fill));
            if maker.leaves() == 0 {
                self.pop_front(Side::Sell, level_price);
            } else {
                self.orders.insert(maker_id, maker);
            }
        }
        if exhausted && taker.cum_qty > 0 {
            // The last match used the amount up: its push is the terminal `filled`.
            taker.qty = taker.cum_qty;
            taker.status = OrderStatus::Filled;
            if let Some(Event::Order(o)) = out
                .iter_mut()
                .skip(first_event)
                .rev()
                .find(|e| matches!(e, Event::Order(o) if o.order_id == taker.order_id))
            {
                o.qty = taker.qty;
                o.status = OrderStatus::Filled;
            }
            return Ok(());
        }
        taker.qty = taker.cum_qty;
        finish(&mut taker, CancelReason::IocNotFull, now_ms, out);
        Ok(())
    }

    /// Cancels an open order (`25204` if unknown or finished) with `reason`.
    pub fn cancel(
        &mut self,
        order_id: u64,
        reason: CancelReason,
        now_ms: u64,
        out: &mut Vec<Event>,
    ) -> Result<(), Reject> {
        let mut o = self
            .remove_resting(order_id)
            .ok_or_else(|| Reject::new(25204, "Order does not exist"))?;
        finish(&mut o, reason, now_ms, out);
        Ok(())
    }

    /// Modifies price and/or quantity of an open order. A new price or a larger quantity loses
    /// time priority (the order goes to the back of its level, and matches first if the new
    /// price crosses); a smaller quantity keeps it. Codes: `25204` unknown/finished, `25571`
    /// unchanged, `25568` new qty not above the filled qty, plus the price/qty/notional checks.
    pub fn modify(
        &mut self,
        order_id: u64,
        new_price: Option<Decimal>,
        new_qty: Option<Decimal>,
        now_ms: u64,
        ids: &mut IdGen,
        out: &mut Vec<Event>,
    ) -> Result<(), Reject> {
        let (old_price, old_qty, cum_qty) = match self.orders.get(&order_id) {
            Some(o) => (o.price, o.qty, o.cum_qty),
            None => return Err(Reject::new(25204, "Order does not exist")),
        };
        let price = match new_price {
            Some(p) => Some(self.check_price(p)?),
            None => old_price,
        };
        let qty = match new_qty {
            Some(q) => self.check_qty(q)?,
            None => old_qty,
        };
        if price == old_price && qty == old_qty {
            return Err(Reject::new(
                25571,
                "The modification price and qty is the same as the original value. Please adjust and try again.",
            ));
        }
        if qty <= cum_qty {
            return Err(Reject::new(
                25568,
                "The order does not meet the modification requirements: qty must exceed the filled qty",
            ));
        }
        if let Some(p) = price {
            self.check_notional(p, qty)?;
        }
        let keeps_priority = price == old_price && qty < old_qty;
        if keeps_priority {
            if let Some(o) = self.orders.get_mut(&order_id) {
                o.qty = qty;
                o.updated_ms = now_ms;
                out.push(Event::Order(o.clone()));
            }
            return Ok(());
        }
        let Some(mut o) = self.remove_resting(order_id) else {
            return Err(Reject::new(25204, "Order does not exist"));
        };
        o.price = price;
        o.qty = qty;
        o.updated_ms = now_ms;
        out.push(Event::Order(o.clone()));
        if o.tif == TimeInForce::PostOnly && self.crosses(o.side, price) {
            finish(&mut o, CancelReason::PostOnlyFill, now_ms, out);
            return Ok(());
        }
        let stp_cancelled = self.match_taker(&mut o, price, now_ms, ids, out);
        if o.leaves() == 0 {
            return Ok(());
        }
        if stp_cancelled {
            finish(&mut o, CancelReason::Stp, now_ms, out);
        } else {
            self.rest(o);
        }
        Ok(())
    }

    /// True when an order on `side` at `limit` (None = market) would take liquidity now.
    fn crosses(&self, side: Side, limit: Option<i64>) -> bool {
        match (side, limit) {
            (Side::Buy, Some(l)) => self.best_ask().is_some_and(|a| a <= l),
            (Side::Sell, Some(l)) => self.best_bid().is_some_and(|b| b >= l),
            (Side::Buy, None) => self.best_ask().is_some(),
            (Side::Sell, None) => self.best_bid().is_some(),
        }
    }

    /// Quantity the taker could fill now (stops counting once it reaches the order quantity).
    fn fillable(&self, taker: &Order, limit: Option<i64>) -> i64 {
        let mut total = 0i64;
        let levels: Box<dyn Iterator<Item = (&i64, &VecDeque<u64>)>> = match taker.side {
            Side::Buy => Box::new(self.asks.iter()),
            Side::Sell => Box::new(self.bids.iter().rev()),
        };
        for (p, ids) in levels {
            let ok = match (taker.side, limit) {
                (_, None) => true,
                (Side::Buy, Some(l)) => *p <= l,
                (Side::Sell, Some(l)) => *p >= l,
            };
            if !ok {
                break;
            }
            for id in ids {
                if let Some(m) = self.orders.get(id) {
                    if self.same_party(m.owner, taker.owner) && taker.stp_mode != StpMode::None {
                        continue;
                    }
                    total = total.saturating_add(m.leaves());
                    if total >= taker.qty {
                        return total;
                    }
                }
            }
        }
        total
    }

    /// Matches `taker` against the opposite side up to `limit`. Returns true when self-trade
    /// prevention cancelled the taker (the caller finishes it).
    fn match_taker(
        &mut self,
        taker: &mut Order,
        limit: Option<i64>,
        now_ms: u64,
        ids: &mut IdGen,
        out: &mut Vec<Event>,
    ) -> bool {
        while taker.leaves() > 0 {
            let best = match taker.side {
                Side::Buy => self.asks.iter().next(),
                Side::Sell => self.bids.iter().next_back(),
            };
            let Some((&level_price, queue)) = best else {
                break;
            };
            let crosses = match (taker.side, limit) {
                (_, None) => true,
                (Side::Buy, Some(l)) => level_price <= l,
                (Side::Sell, Some(l)) => level_price >= l,
            };
            if !crosses {
                break;
            }
            let Some(&maker_id) = queue.front() else {
                self.side_mut(taker.side.opposite()).remove(&level_price);
                continue;
            };
            let Some(maker) = self.orders.get(&maker_id) else {
                self.pop_front(taker.side.opposite(), level_price);
                continue;
            };
            if self.same_party(maker.owner, taker.owner) && taker.stp_mode != StpMode::None {
                match taker.stp_mode {
                    StpMode::CancelTaker => return true,
                    StpMode::CancelBoth => {
                        if let Some(mut m) = self.remove_resting(maker_id) {
                            finish(&mut m, CancelReason::Stp, now_ms, out);
                        }
                        return true;
                    }
                    StpMode::CancelMaker | StpMode::None => {
                        if let Some(mut m) = self.remove_resting(maker_id) {
                            finish(&mut m, CancelReason::Stp, now_ms, out);
                        }
                        continue;
                    }
                }
            }
            let q = taker.leaves().min(maker.leaves());
            let taker_fill = self.execute(taker, level_price, q, TradeScope::Taker, ids, now_ms);
            let Some(mut maker) = self.orders.remove(&maker_id) else {
                continue;
            };
            let mut maker_fill =
                self.execute(&mut maker, level_price, q, TradeScope::Maker, ids, now_ms);
            maker_fill.exec_link_id = taker_fill.exec_id;
            out.push(Event::Order(taker.clone()));
            out.push(Event::Fill(taker_fill));
            out.push(Event::Order(maker.clone()));
            out.push(Event::Fill(maker_fill));
            if maker.leaves() == 0 {
                self.pop_front(taker.side.opposite(), level_price);
            } else {
                self.orders.insert(maker_id, maker);
            }
        }
        false
    }

    /// Applies one execution of `q` units at `price` to `o` and returns its fill.
    fn execute(
        &self,
        o: &mut Order,
        price: i64,
        q: i64,
        scope: TradeScope,
        ids: &mut IdGen,
        now_ms: u64,
    ) -> Fill {
        let value_units = i128::from(price) * i128::from(q);
        o.cum_qty += q;
        o.cum_value += value_units;
        o.updated_ms = now_ms;
        o.status = if o.leaves() == 0 {
            OrderStatus::Filled
        } else {
            OrderStatus::PartiallyFilled
        };
        let value = self.value_dec(value_units);
        let rate = match scope {
            TradeScope::Taker => self.spec.taker_fee,
            TradeScope::Maker => self.spec.maker_fee,
        };
        let fee = value.checked_mul(rate).unwrap_or_default().normalized();
        o.cum_fee = o.cum_fee.checked_add(fee).unwrap_or(o.cum_fee).normalized();
        let exec_id = ids.next_id();
        Fill {
            owner: o.owner,
            order_id: o.order_id,
            client_oid: o.client_oid.clone(),
            exec_id,
            exec_link_id: exec_id,
            side: o.side,
            order_type: o.order_type,
            pos_side: o.pos_side,
            reduce_only: o.reduce_only,
            price: self.price_dec(price),
            qty: self.qty_dec(q),
            value,
            scope,
            fee,
            time_ms: now_ms,
        }
    }

    fn side_mut(&mut self, side: Side) -> &mut BTreeMap<i64, VecDeque<u64>> {
        match side {
            Side::Buy => &mut self.bids,
            Side::Sell => &mut self.asks,
        }
    }

    /// Removes the front order id of a level (and the level when it becomes empty).
    fn pop_front(&mut self, side: Side, price: i64) {
        let levels = self.side_mut(side);
        if let Some(q) = levels.get_mut(&price) {
            q.pop_front();
            if q.is_empty() {
                levels.remove(&price);
            }
        }
    }

    /// Puts an open limit order at the back of its level.
    fn rest(&mut self, o: Order) {
        let Some(price) = o.price else {
            return;
        };
        let side = o.side;
        let id = o.order_id;
        self.orders.insert(id, o);
        self.side_mut(side).entry(price).or_default().push_back(id);
    }

    /// Takes a resting order out of the book.
    fn remove_resting(&mut self, order_id: u64) -> Option<Order> {
        let o = self.orders.remove(&order_id)?;
        if let Some(price) = o.price {
            let levels = self.side_mut(o.side);
            if let Some(q) = levels.get_mut(&price) {
                if let Some(pos) = q.iter().position(|&id| id == order_id) {
                    q.remove(pos);
                }
                if q.is_empty() {
                    levels.remove(&price);
                }
            }
        }
        Some(o)
    }
}

/// Marks `o` cancelled with `reason` and emits its push.
fn finish(o: &mut Order, reason: CancelReason, now_ms: u64, out: &mut Vec<Event>) {
    o.status = OrderStatus::Cancelled;
    o.cancel_reason = Some(reason);
    o.updated_ms = now_ms;
    out.push(Event::Order(o.clone()));
}
