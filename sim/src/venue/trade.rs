//! The trade ops of the full venue: `op:"trade"` requests (and the REST trade calls turned
//! into them) parsed, checked and applied item by item: place, modify and cancel, single or
//! batch (reference §5.1). The fast venue ([`super::fast`]) answers the same requests through
//! the same skeleton and request checks.

use super::*;

/// The three trade operations (single or batch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OpKind {
    Place,
    Modify,
    Cancel,
}

/// One processed item: the reply item, and the reject when it failed.
pub(super) type ItemResult = Result<ReplyItem, Box<(Reject, ReplyItem)>>;

/// A place item's fields after [`Venue::place_args`] (decimals as sent, checked against the
/// book's tick and lot).
pub(super) struct PlaceArgs {
    pub(super) side: Side,
    pub(super) order_type: OrderType,
    pub(super) qty: Decimal,
    pub(super) price: Option<Decimal>,
    pub(super) tif: TimeInForce,
    pub(super) pos_side: Option<PosSide>,
    pub(super) reduce_only: bool,
    pub(super) stp_mode: StpMode,
}

/// What every place item starts with ([`Venue::place_start`]).
pub(super) struct PlaceStart {
    /// `clientOid` as sent (`None`: absent or empty).
    pub(super) given_oid: Option<String>,
    /// `symbol` as sent (empty when absent).
    pub(super) symbol: String,
    /// The reply item of the place when it fails before an id exists.
    pub(super) fail_item: ReplyItem,
}

impl Venue {
    /// The start of a place item, full or fast venue: counts it, counts a `clientOid` the
    /// account used before (the repeated-clientOid proof), reads the symbol.
    pub(super) fn place_start(&mut self, owner: AccountId, arg: &Value) -> PlaceStart {
        bump(&self.counters.orders_received);
        let given_oid = text(arg, "clientOid").filter(|s| !s.is_empty());
        if let Some(c) = &given_oid {
            if !self.seen_client_oids.insert(owner, c) {
                bump(&self.counters.repeated_client_oids);
            }
        }
        let symbol = text(arg, "symbol").unwrap_or_default();
        let fail_item = ReplyItem {
            symbol: Some(symbol.clone()),
            order_id: String::new(),
            client_oid: given_oid.clone().unwrap_or_default(),
            c_time_ms: None,
            result: None,
        };
        PlaceStart {
            given_oid,
            symbol,
            fail_item,
        }
    }

    /// The book a place item names: `40017` without a symbol, `25100` for an unknown one.
    pub(super) fn place_book(&self, category: Category, symbol: &str) -> Result<usize, Reject> {
        if symbol.is_empty() {
            return Err(missing("symbol"));
        }
        self.book_index(category, symbol)
            .ok_or_else(|| Reject::new(25100, format!("trading pair {symbol} does not exist")))
    }
    /// Handles one `op:"trade"` request of `owner` received on the WebSocket connection
    /// `conn_id`. `now_ms` stamps everything.
    pub fn handle_trade(
        &mut self,
        owner: AccountId,
        req: &Value,
        conn_id: &str,
        now_ms: u64,
    ) -> TradeOutcome {
        self.handle_trade_via(Channel::Ws, owner, req, conn_id, now_ms)
    }

    /// Handles a signed REST trade request of `owner` turned into the WS op it stands for
    /// (the REST `clientOid` pattern applies; `connId` of the reply is `rest`).
    pub fn handle_rest_trade(
        &mut self,
        owner: AccountId,
        req: &Value,
        now_ms: u64,
    ) -> TradeOutcome {
        self.handle_trade_via(Channel::Rest, owner, req, "rest", now_ms)
    }

    fn handle_trade_via(
        &mut self,
        channel: Channel,
        owner: AccountId,
        req: &Value,
        conn_id: &str,
        now_ms: u64,
    ) -> TradeOutcome {
        let id_raw = match req.get("id") {
            Some(v @ (Value::String(_) | Value::Number(_))) => v.to_string(),
            _ => "\"\"".to_string(),
        };
        let mut outcome = TradeOutcome::default();
        let topic = req.get("topic").and_then(Value::as_str).unwrap_or("");
        let category = match req.get("category") {
            // Empty = not set, as on REST (missing on place → `40017`).
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.is_empty() => None,
            Some(Value::String(s)) => match Category::parse_ws(s) {
                Some(c) => Some(c),
                None => {
                    bump(&self.counters.rejects);
                    outcome.reply =
                        render::trade_error(&id_raw, 41101, &format!("Param category={s} error"));
                    return outcome;
                }
            },
            Some(other) => {
                bump(&self.counters.rejects);
                outcome.reply =
                    render::trade_error(&id_raw, 41101, &format!("Param category={other} error"));
                return outcome;
            }
        };
        let empty = Vec::new();
        let args = req.get("args").and_then(Value::as_array).unwrap_or(&empty);
        let (batch, kind) = match topic {
            "place-order" => (false, OpKind::Place),
            "batch-place" | "batch-place-order" => (true, OpKind::Place),
            "modify-order" => (false, OpKind::Modify),
            "batch-modify" | "batch-modify-order" => (true, OpKind::Modify),
            "cancel-order" => (false, OpKind::Cancel),
            "batch-cancel" | "batch-cancel-order" => (true, OpKind::Cancel),
            other => {
                bump(&self.counters.rejects);
                outcome.reply =
                    render::trade_error(&id_raw, 41101, &format!("Param topic={other} error"));
                return outcome;
            }
        };
        if batch {
            bump(match kind {
                OpKind::Place => &self.counters.batch_place_ops,
                OpKind::Modify => &self.counters.batch_modify_ops,
                OpKind::Cancel => &self.counters.batch_cancel_ops,
            });
        }
        let count_ok = if batch {
            !args.is_empty() && args.len() <= 20
        } else {
            args.len() == 1
        };
        if !count_ok {
            bump(&self.counters.rejects);
            outcome.reply = render::trade_error(
                &id_raw,
                40017,
                "Parameter verification failed: args (1 item, or 1 to 20 for batches)",
            );
            return outcome;
        }
        if kind == OpKind::Place && category.is_none() {
            bump(&self.counters.rejects);
            outcome.reply =
                render::trade_error(&id_raw, 40017, "Parameter verification failed: category");
            return outcome;
        }
        // Batch-cancel: "use one identifier type per call; mixing makes clientOid ignored"
        // (reference §5.1, Batch-Cancel page): once an item carries an orderId, an item with
        // only a clientOid has no usable identifier.
        let client_oid_usable = !(batch
            && kind == OpKind::Cancel
            && args
                .iter()
                .any(|a| text(a, "orderId").is_some_and(|s| !s.is_empty())));
        let mut items = Vec::with_capacity(args.len());
        for arg in args {
            let fast = self.fast.is_some();
            let res = match (kind, category) {
                (OpKind::Place, Some(c)) if fast => {
                    self.fast_place_one(channel, owner, c, arg, now_ms, &mut outcome)
                }
                (OpKind::Place, Some(c)) => {
                    self.place_one(channel, owner, c, arg, now_ms, &mut outcome)
                }
                (OpKind::Modify, _) if fast => {
                    self.fast_modify_one(owner, category, arg, now_ms, &mut outcome)
                }
                (OpKind::Modify, _) => self.modify_one(owner, category, arg, now_ms, &mut outcome),
                _ if fast => self.fast_cancel_one(
                    owner,
                    category,
                    arg,
                    client_oid_usable,
                    now_ms,
                    &mut outcome,
                ),
                _ => self.cancel_one(
                    owner,
                    category,
                    arg,
                    client_oid_usable,
                    now_ms,
                    &mut outcome,
                ),
            };
            match res {
                Ok(mut item) => {
                    if batch {
                        item.result = Some((0, "Success".into()));
                        item.c_time_ms = None;
                    }
                    items.push(item);
                }
                Err(boxed) => {
                    let (reject, item) = *boxed;
                    bump(&self.counters.rejects);
                    if !batch {
                        outcome.reply = render::trade_error(&id_raw, reject.code, &reject.msg);
                        return outcome;
                    }
                    let mut item = item;
                    item.result = Some((reject.code, reject.msg));
                    items.push(item);
                }
            }
        }
        outcome.reply = render::trade_reply(&id_raw, category, topic, &items, conn_id, now_ms);
        outcome
    }

    /// The request checks of a place item, shared by the full and the fast venue: the
    /// fields' formats (side, orderType, qty, price for limits, timeInForce, posSide on
    /// futures, reduceOnly, stpMode), the `clientOid` pattern of the channel and its
    /// uniqueness among `owner`'s open orders (`open_oids`: the full or the fast venue's
    /// index), then the book's tick and lot.
    pub(super) fn place_args(
        &self,
        channel: Channel,
        owner: AccountId,
        bi: usize,
        arg: &Value,
        given_oid: Option<&str>,
        open_oids: &HashMap<(AccountId, String), u64>,
    ) -> Result<PlaceArgs, Reject> {
        let futures = self.books.get(bi).is_some_and(|b| b.category.is_futures());
        let side = enum_field(arg, "side", Side::parse)?.ok_or_else(|| missing("side"))?;
        let order_type =
            enum_field(arg, "orderType", OrderType::parse)?.ok_or_else(|| missing("orderType"))?;
        let qty = decimal_field(arg, "qty")?.ok_or_else(|| missing("qty"))?;
        let price = match order_type {
            OrderType::Limit => Some(decimal_field(arg, "price")?.ok_or_else(|| missing("price"))?),
            OrderType::Market => None,
        };
        let tif = enum_field(arg, "timeInForce", TimeInForce::parse)?.unwrap_or(TimeInForce::Gtc);
        let pos_side = if futures {
            enum_field(arg, "posSide", PosSide::parse)?
        } else {
            None
        };
        let reduce_only = enum_field(arg, "reduceOnly", yes_no)?.unwrap_or(false);
        let stp_mode = enum_field(arg, "stpMode", StpMode::parse)?.unwrap_or(StpMode::CancelMaker);
        if let Some(c) = given_oid {
            if !valid_client_oid(channel, c) {
                return Err(missing("clientOid"));
            }
            if open_oids.contains_key(&(owner, c.to_string())) {
                return Err(Reject::new(25212, "Duplicate clientOid"));
            }
        }
        if let Some(book) = self.book(bi) {
            // Request checks first (tick, lot, size), then balances and positions.
            if let Some(p) = price {
                book.check_price(p)?;
            }
            if order_type == OrderType::Limit
                || !book.spec().market_buy_in_quote
                || side == Side::Sell
            {
                book.check_qty(qty)?;
            }
        }
        // The venue rules (issue 27, `limits`): price band, then the open-order caps.
        if let Some(p) = price {
            self.check_price_band(bi, side, p)?;
        }
        self.check_open_caps(owner, bi)?;
        Ok(PlaceArgs {
            side,
            order_type,
            qty,
            price,
            tif,
            pos_side,
            reduce_only,
            stp_mode,
        })
    }

    fn place_one(
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
            let PlaceArgs {
                side,
                order_type,
                qty,
                price,
                tif,
                pos_side,
                reduce_only,
                stp_mode,
            } = self.place_args(
                channel,
                owner,
                bi,
                arg,
                given_oid.as_deref(),
                &self.client_oids,
            )?;
            let mut qty = qty;
            if let Some(q) = self.entry_check(
                owner,
                bi,
                EntryOrder {
                    side,
                    qty,
                    price,
                    pos_side,
                    reduce_only,
                },
            )? {
                qty = q;
            }
            if reduce_only {
                self.replace_reduce_only(owner, bi, side, qty, now_ms, outcome);
            }
            let order_id = self.ids.next_id();
            let client_oid = given_oid.clone().unwrap_or_else(|| order_id.to_string());
            let req = NewOrder {
                owner,
                order_id,
                client_oid: client_oid.clone(),
                side,
                order_type,
                price,
                qty,
                tif,
                pos_side,
                reduce_only,
                stp_mode,
            };
            let mut events = std::mem::take(&mut self.events);
            events.clear();
            let entry = self.books.get_mut(bi).ok_or_else(|| {
                Reject::new(25100, format!("trading pair {symbol} does not exist"))
            })?;
            let placed = entry.book.place(req, now_ms, &mut self.ids, &mut events);
            if let Err(e) = placed {
                self.events = events;
                return Err(e);
            }
            bump(&self.counters.orders_placed);
            if entry.book.order(order_id).is_some() {
                self.open.insert(order_id, Loc { book: bi, owner });
                self.open_counts.add(owner, bi, category);
                self.client_oids
                    .insert((owner, client_oid.clone()), order_id);
            }
            self.route(bi, &events, now_ms, outcome);
            self.events = events;
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

    /// Finds an open order of `owner` by `orderId` (wins) or `clientOid` (reference §5.1).
    fn find(&self, owner: AccountId, arg: &Value) -> Result<(u64, Loc), Reject> {
        self.find_by(owner, arg, true)
    }

    /// [`Venue::find`]; with `client_oid_usable` false only the `orderId` counts (a
    /// batch-cancel that mixes identifier types).
    fn find_by(
        &self,
        owner: AccountId,
        arg: &Value,
        client_oid_usable: bool,
    ) -> Result<(u64, Loc), Reject> {
        let not_found = || Reject::new(25204, "Order does not exist");
        let order_id = match text(arg, "orderId").filter(|s| !s.is_empty()) {
            Some(s) => s.parse::<u64>().map_err(|_| not_found())?,
            None => {
                let c = text(arg, "clientOid")
                    .filter(|s| !s.is_empty() && client_oid_usable)
                    .ok_or_else(|| missing("orderId or clientOid"))?;
                *self.client_oids.get(&(owner, c)).ok_or_else(not_found)?
            }
        };
        let loc = *self.open.get(&order_id).ok_or_else(not_found)?;
        if loc.owner != owner {
            return Err(not_found());
        }
        Ok((order_id, loc))
    }

    fn ids_item(&self, arg: &Value, found: Option<(u64, Loc)>) -> ReplyItem {
        let (order_id, client_oid) = match found {
            Some((id, loc)) => (
                id.to_string(),
                self.books
                    .get(loc.book)
                    .and_then(|b| b.book.order(id))
                    .map(|o| o.client_oid.clone())
                    .unwrap_or_default(),
            ),
            None => (
                text(arg, "orderId").unwrap_or_default(),
                text(arg, "clientOid").unwrap_or_default(),
            ),
        };
        ReplyItem {
            symbol: None,
            order_id,
            client_oid,
            c_time_ms: None,
            result: None,
        }
    }

    fn check_category(&self, category: Option<Category>, loc: Loc) -> Result<(), Reject> {
        match (category, self.books.get(loc.book)) {
            (Some(c), Some(b)) if b.category != c => {
                Err(Reject::new(25204, "Order does not exist"))
            }
            _ => Ok(()),
        }
    }

    fn modify_one(
        &mut self,
        owner: AccountId,
        category: Option<Category>,
        arg: &Value,
        now_ms: u64,
        outcome: &mut TradeOutcome,
    ) -> ItemResult {
        let found = match self.find(owner, arg) {
            Ok(f) => f,
            Err(e) => return Err(Box::new((e, self.ids_item(arg, None)))),
        };
        let item = self.ids_item(arg, Some(found));
        let (order_id, loc) = found;
        let res = (|| -> Result<(), Reject> {
            self.check_category(category, loc)?;
            let auto_cancel = enum_field(arg, "autoCancel", yes_no)?.unwrap_or(false);
            let price = decimal_field(arg, "price")?;
            let qty = decimal_field(arg, "qty")?;
            let side = self
                .books
                .get(loc.book)
                .and_then(|b| b.book.order(order_id))
                .map(|o| o.side)
                .ok_or_else(|| Reject::new(25204, "Order does not exist"))?;
            // The venue rules (issue 27, `limits`): band, modification count, pending ones.
            // A refusal goes the way of the book's (autoCancel below).
            let rules = self.check_modify_limits(order_id, loc.book, side, price, now_ms);
            let mut events = std::mem::take(&mut self.events);
            events.clear();
            let Some(entry) = self.books.get_mut(loc.book) else {
                self.events = events;
                return Err(Reject::new(25204, "Order does not exist"));
            };
            let r = rules.and_then(|()| {
                entry
                    .book
                    .modify(order_id, price, qty, now_ms, &mut self.ids, &mut events)
            });
            match &r {
                Ok(()) => {
                    bump(&self.counters.orders_modified);
                    self.record_modify(order_id, now_ms);
                    self.route(loc.book, &events, now_ms, outcome);
                }
                // autoCancel=yes: a refused modification cancels the order (the error reply
                // still goes out first; the cancel arrives as an order push).
                Err(e) if auto_cancel && e.code != 25204 => {
                    if entry
                        .book
                        .cancel(order_id, CancelReason::Normal, now_ms, &mut events)
                        .is_ok()
                    {
                        self.route(loc.book, &events, now_ms, outcome);
                    }
                }
                Err(_) => {}
            }
            self.events = events;
            r
        })();
        match res {
            Ok(()) => Ok(item),
            Err(e) => Err(Box::new((e, item))),
        }
    }

    fn cancel_one(
        &mut self,
        owner: AccountId,
        category: Option<Category>,
        arg: &Value,
        client_oid_usable: bool,
        now_ms: u64,
        outcome: &mut TradeOutcome,
    ) -> ItemResult {
        let found = match self.find_by(owner, arg, client_oid_usable) {
            Ok(f) => f,
            Err(e) => return Err(Box::new((e, self.ids_item(arg, None)))),
        };
        let item = self.ids_item(arg, Some(found));
        let (order_id, loc) = found;
        if let Err(e) = self.check_category(category, loc) {
            return Err(Box::new((e, item)));
        }
        let mut events = std::mem::take(&mut self.events);
        events.clear();
        let r = match self.books.get_mut(loc.book) {
            Some(entry) => entry
                .book
                .cancel(order_id, CancelReason::Normal, now_ms, &mut events),
            None => Err(Reject::new(25204, "Order does not exist")),
        };
        if r.is_ok() {
            self.route(loc.book, &events, now_ms, outcome);
        }
        self.events = events;
        match r {
            Ok(()) => Ok(item),
            Err(e) => Err(Box::new((e, item))),
        }
    }
}
