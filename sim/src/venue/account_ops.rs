//! The venue's side of the accounts ([`crate::accounts`]): mark prices, order-entry checks,
//! fills → balances/positions with their `account` and `position` pushes, and the account
//! queries and settings served over REST.
//!
//! Mark price of a symbol: the value set with [`Venue::set_mark`] when there is one, else the
//! book mid ((best bid + best ask) ÷ 2), else the last fill price, else none (positions then
//! use their average price).

use std::collections::HashMap;

use codec::Decimal;

use super::params::EntryOrder;
use super::{BookEntry, Push, Topic, TradeOutcome, Venue};
use crate::accounts::num::div;
use crate::accounts::positions::Position;
use crate::accounts::{AccountError, Accounts, Marks, OrderCheck};
use crate::config::{Category, HoldMode, InstrumentConfig};
use crate::matching::{AccountId, Event, Fill, PosSide, Reject, Side};

/// Marks of every book.
pub(super) fn compute_marks(
    books: &[BookEntry],
    overrides: &HashMap<usize, Decimal>,
    last: &HashMap<usize, Decimal>,
) -> Marks {
    let mut m = Marks::new();
    for (i, b) in books.iter().enumerate() {
        if let Some(mark) = mark_of_book(i, b, overrides, last) {
            m.insert((b.category, b.book.spec().symbol.clone()), mark);
        }
    }
    m
}

/// The mark of book `i` (see the module doc): the override, else the book mid, else the last
/// fill price, else none. The tickers, positions and the price band all read it here.
pub(super) fn mark_of_book(
    i: usize,
    b: &BookEntry,
    overrides: &HashMap<usize, Decimal>,
    last: &HashMap<usize, Decimal>,
) -> Option<Decimal> {
    let spec = b.book.spec();
    overrides
        .get(&i)
        .copied()
        .or_else(|| match (b.book.best_bid(), b.book.best_ask()) {
            (Some(bid), Some(ask)) => Decimal::new(bid.saturating_add(ask), spec.price_exp)
                .ok()
                .map(|sum| div(sum, Decimal::from(2))),
            _ => last.get(&i).copied(),
        })
}

/// Applies one account fill and appends its `position` (when futures) and `account` pushes.
#[allow(clippy::too_many_arguments)]
pub(super) fn on_fill(
    accounts: &mut Accounts,
    inst: &InstrumentConfig,
    f: &Fill,
    marks: &Marks,
    insts: &[InstrumentConfig],
    now_ms: u64,
    outcome: &mut TradeOutcome,
) {
    if accounts.get(f.owner).is_none() {
        return;
    }
    let effect = accounts.apply_fill(
        f.owner,
        inst,
        f.side,
        f.pos_side,
        f.reduce_only,
        f.price,
        f.qty,
        f.fee,
        now_ms,
    );
    if !effect.positions.is_empty() {
        outcome.pushes.push(Push {
            owner: f.owner,
            topic: Topic::Position,
            json: accounts.position_push(f.owner, &effect.positions, insts, marks, now_ms),
        });
    }
    outcome.pushes.push(Push {
        owner: f.owner,
        topic: Topic::Account,
        json: accounts.account_push(f.owner, insts, marks, now_ms),
    });
}

impl Venue {
    /// The owners of `events` (accounts, not the liquidity source) whose order in a futures
    /// book is a close-position order: their positions' `frozen` may have changed.
    pub(super) fn close_order_owners(&self, book: usize, events: &[Event]) -> Vec<AccountId> {
        let futures = self
            .instruments
            .get(book)
            .is_some_and(|i| i.category.is_futures());
        let mut owners: Vec<AccountId> = Vec::new();
        if !futures {
            return owners;
        }
        for ev in events {
            let Event::Order(o) = ev else { continue };
            if o.owner == AccountId::MARKET_MAKER || owners.contains(&o.owner) {
                continue;
            }
            let Some(mode) = self.accounts.get(o.owner).map(|a| a.hold_mode) else {
                continue;
            };
            let closes = [PosSide::Long, PosSide::Short]
                .into_iter()
                .any(|ps| Position::closed_by(mode, ps, o.side, o.pos_side, o.reduce_only));
            if closes {
                owners.push(o.owner);
            }
        }
        owners
    }

    /// Recomputes `frozen` of `owner`'s positions in `book` from the open quantity of its
    /// pending close-position orders there (reference §4.4: `size` = `available` +
    /// `frozen`). Returns every position of the symbol when some `frozen` changed, else
    /// nothing.
    pub(super) fn refresh_frozen(&mut self, owner: AccountId, book: usize) -> Vec<Position> {
        let (Some(inst), Some(entry)) = (self.instruments.get(book), self.books.get(book)) else {
            return Vec::new();
        };
        let Some(acct) = self.accounts.get_mut(owner) else {
            return Vec::new();
        };
        let mode = acct.hold_mode;
        let b = &entry.book;
        let mut changed = false;
        for ps in [PosSide::Long, PosSide::Short] {
            let Some(p) = acct
                .positions
                .get_mut(&(inst.category, inst.symbol.clone(), ps))
            else {
                continue;
            };
            let units: i64 = b
                .open_orders()
                .filter(|o| {
                    o.owner == owner
                        && Position::closed_by(mode, ps, o.side, o.pos_side, o.reduce_only)
                })
                .map(|o| o.leaves())
                .fold(0i64, i64::saturating_add);
            let frozen = b.qty_dec(units);
            if p.frozen != frozen {
                p.frozen = frozen;
                changed = true;
            }
        }
        if !changed {
            return Vec::new();
        }
        acct.positions
            .values()
            .filter(|p| p.category == inst.category && p.symbol == inst.symbol)
            .cloned()
            .collect()
    }

    /// Current marks of every symbol.
    pub fn marks(&self) -> Marks {
        compute_marks(&self.books, &self.mark_overrides, &self.last_price)
    }

    /// Sets (or with `None` clears) the mark price of a symbol; `false` for an unknown symbol.
    pub fn set_mark(&mut self, category: Category, symbol: &str, mark: Option<Decimal>) -> bool {
        let Some(i) = self.book_index(category, symbol) else {
            return false;
        };
        match mark {
            Some(m) => self.mark_overrides.insert(i, m),
            None => self.mark_overrides.remove(&i),
        };
        true
    }

    /// The accounts.
    pub fn accounts(&self) -> &Accounts {
        &self.accounts
    }

    /// Balance/margin/position checks of a new order (after the request checks, before the
    /// book). `Ok(Some(q))` = accept with the quantity trimmed to `q`.
    pub(super) fn entry_check(
        &self,
        owner: AccountId,
        book: usize,
        o: EntryOrder,
    ) -> Result<Option<Decimal>, Reject> {
        let Some(inst) = self.instruments.get(book) else {
            return Ok(None);
        };
        self.accounts
            .check_order(
                owner,
                &OrderCheck {
                    inst,
                    side: o.side,
                    qty: o.qty,
                    price: o.price,
                    pos_side: o.pos_side,
                    reduce_only: o.reduce_only,
                },
                &self.marks(),
            )
            .map_err(|e| e.reject())
    }

    /// One-way mode, reference §8: a new reduce-only order that together with the pending
    /// reduce-only orders of the same side would exceed the position replaces them (they are
    /// cancelled, `normal_cancel`, before the new order enters the book).
    pub(super) fn replace_reduce_only(
        &mut self,
        owner: AccountId,
        book: usize,
        side: Side,
        qty: Decimal,
        now_ms: u64,
        outcome: &mut TradeOutcome,
    ) {
        let Some(inst) = self.instruments.get(book) else {
            return;
        };
        let one_way = self
            .accounts
            .get(owner)
            .is_some_and(|a| a.hold_mode == HoldMode::OneWayMode);
        if !inst.category.is_futures() || !one_way {
            return;
        }
        let size = self
            .accounts
            .get(owner)
            .and_then(|a| {
                a.positions
                    .get(&(
                        inst.category,
                        inst.symbol.clone(),
                        crate::accounts::positions::reduced_side(side),
                    ))
                    .map(|p| p.size)
            })
            .unwrap_or(Decimal::ZERO);
        let Some(entry) = self.books.get(book) else {
            return;
        };
        let b = &entry.book;
        let earlier: Vec<(u64, Decimal)> = b
            .open_orders()
            .filter(|o| o.owner == owner && o.reduce_only && o.side == side)
            .map(|o| (o.order_id, b.qty_dec(o.leaves())))
            .collect();
        let pending = earlier.iter().fold(Decimal::ZERO, |acc, (_, q)| {
            crate::accounts::num::add(acc, *q)
        });
        if crate::accounts::num::add(pending, qty) <= size {
            return;
        }
        let mut events = Vec::new();
        for (id, _) in earlier {
            events.clear();
            let Some(entry) = self.books.get_mut(book) else {
                return;
            };
            if entry
                .book
                .cancel(
                    id,
                    crate::matching::CancelReason::Normal,
                    now_ms,
                    &mut events,
                )
                .is_ok()
            {
                self.route(book, &events, now_ms, outcome);
            }
        }
    }

    /// True when `owner` has a pending order.
    pub fn has_pending_orders(&self, owner: AccountId) -> bool {
        self.open.values().any(|l| l.owner == owner)
    }

    /// `set-hold-mode` (`40920` with positions or pending orders).
    pub fn set_hold_mode(
        &mut self,
        owner: AccountId,
        mode: HoldMode,
        now_ms: u64,
    ) -> Result<Vec<Push>, AccountError> {
        let has = self.has_pending_orders(owner);
        self.accounts.set_hold_mode(owner, mode, has)?;
        let marks = self.marks();
        Ok(vec![Push {
            owner,
            topic: Topic::Account,
            json: self
                .accounts
                .account_push(owner, &self.instruments, &marks, now_ms),
        }])
    }

    /// `set-leverage` of a futures symbol or a margin coin; pushes the positions of the symbol
    /// and the account.
    pub fn set_leverage(
        &mut self,
        owner: AccountId,
        category: Category,
        symbol: Option<&str>,
        coin: Option<&str>,
        leverage: Decimal,
        now_ms: u64,
    ) -> Result<Vec<Push>, AccountError> {
        let mut pushes = Vec::new();
        let marks = self.marks();
        if category.is_futures() {
            let symbol = symbol
                .filter(|s| !s.is_empty())
                .ok_or_else(|| AccountError::Param("symbol".into()))?;
            if self.book_index(category, symbol).is_none() {
                return Err(AccountError::Param(format!("symbol={symbol}")));
            }
            self.accounts
                .set_leverage(owner, category, symbol, leverage)?;
            let changed: Vec<_> = self
                .accounts
                .open_positions(owner)
                .into_iter()
                .filter(|p| p.category == category && p.symbol == symbol)
                .collect();
            if !changed.is_empty() {
                pushes.push(Push {
                    owner,
                    topic: Topic::Position,
                    json: self.accounts.position_push(
                        owner,
                        &changed,
                        &self.instruments,
                        &marks,
                        now_ms,
                    ),
                });
            }
        } else {
            let coin = coin
                .filter(|s| !s.is_empty())
                .ok_or_else(|| AccountError::Param("coin".into()))?;
            self.accounts.set_coin_leverage(owner, coin, leverage)?;
        }
        pushes.push(Push {
            owner,
            topic: Topic::Account,
            json: self
                .accounts
                .account_push(owner, &self.instruments, &marks, now_ms),
        });
        Ok(pushes)
    }

    /// The `account` snapshot push of `owner`.
    pub fn account_snapshot(&self, owner: AccountId, now_ms: u64) -> String {
        self.accounts
            .account_push(owner, &self.instruments, &self.marks(), now_ms)
    }

    /// The `position` snapshot push of `owner` (non-zero positions), or `None` without any.
    pub fn position_snapshot(&self, owner: AccountId, now_ms: u64) -> Option<String> {
        let ps = self.accounts.open_positions(owner);
        (!ps.is_empty()).then(|| {
            self.accounts
                .position_push(owner, &ps, &self.instruments, &self.marks(), now_ms)
        })
    }

    /// `GET /api/v3/account/assets` data.
    pub fn assets_json(&self, owner: AccountId) -> String {
        self.accounts
            .assets_json(owner, &self.instruments, &self.marks())
    }

    /// `GET /api/v3/position/current-position` data (`{"list":[..]}`).
    pub fn positions_json(
        &self,
        owner: AccountId,
        category: Category,
        symbol: Option<&str>,
        pos_side: Option<PosSide>,
    ) -> String {
        let marks = self.marks();
        let mut s = String::from("{\"list\":[");
        let mut first = true;
        for p in self.accounts.open_positions(owner) {
            if p.category != category
                || symbol.is_some_and(|x| !x.is_empty() && x != p.symbol)
                || pos_side.is_some_and(|x| x != p.pos_side)
            {
                continue;
            }
            if !first {
                s.push(',');
            }
            first = false;
            s.push_str(
                &self
                    .accounts
                    .position_rest_item(owner, &p, &self.instruments, &marks),
            );
        }
        s.push_str("]}");
        s
    }

    /// `POST /api/v3/account/max-open-available` data; `25100` for an unknown symbol.
    pub fn max_open_json(
        &self,
        owner: AccountId,
        category: Category,
        symbol: &str,
        price: Option<Decimal>,
    ) -> Result<String, Reject> {
        let bi = self
            .book_index(category, symbol)
            .ok_or_else(|| Reject::new(25100, format!("trading pair {symbol} does not exist")))?;
        let inst = self
            .instruments
            .get(bi)
            .ok_or_else(|| Reject::new(25100, format!("trading pair {symbol} does not exist")))?;
        let marks = self.marks();
        let price = price
            .or_else(|| marks.get(&(category, symbol.to_string())).copied())
            .unwrap_or(Decimal::ZERO);
        Ok(self.accounts.max_open_json(owner, inst, price, &marks))
    }

    /// `GET /api/v3/account/max-transferable?coin=` data: `{"coin","maxTransfer"}` = the
    /// coin's available (equity − initial margin).
    pub fn max_transferable_json(&self, owner: AccountId, coin: &str) -> String {
        let avail = self.accounts.available(owner, coin, &self.marks());
        let mut s = String::from("{\"coin\":");
        crate::render::push_json_str(&mut s, coin);
        s.push_str(",\"maxTransfer\":\"");
        s.push_str(&avail.normalized().to_string());
        s.push_str("\"}");
        s
    }
}
