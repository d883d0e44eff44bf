//! The venue rules a strategy meets live beyond the request checks (issue 27), one function
//! per rule, called by the full and the fast venue alike for WebSocket trade ops and the REST
//! trade endpoints (both end in `Venue::handle_trade_via`):
//!
//! | Rule | Code (reference §6.2) | Where |
//! | --- | --- | --- |
//! | limit buy above mark × (1 + `buyLimitPriceRatio`) | `25206` "price above {1}% band" | [`Venue::check_price_band`]: place, modify, batch items |
//! | limit sell below mark × (1 − `sellLimitPriceRatio`) | `25205` "price below {1}% band" | same |
//! | open orders of the account in the symbol ≥ `maxSymbolOrderNum` | `25211` "Exceeds the limit of {0} maximum orders" | [`Venue::check_open_caps`]: place, batch-place items |
//! | open orders of the account in the product line ≥ `maxProductOrderNum` | `25211` | same |
//! | accepted modifications of the order ≥ `max_modifications_per_order` | `25569` "exceeded max modifications" | [`Venue::check_modify_limits`]: modify, batch-modify items |
//! | modifications of the order in progress ≥ `max_pending_modifications` | `25572` "too many pending modification requests" | same |
//!
//! The mark is the simulator's mark of the book (`account_ops::mark_of_book`: the override set
//! with `SimHandle::set_mark`, else the book mid, else the last fill price), the one
//! `GET /api/v3/market/tickers` serves as `markPrice`. A book without any mark (no liquidity,
//! no trade, no override) has no band. Market orders have no price and no band. The bounds
//! are inclusive: a buy exactly at mark × (1 + ratio) is accepted.
//!
//! Product line (`maxProductOrderNum`): spot and margin together, each futures category on
//! its own (reference §7: "400 across all futures symbols, 400 across spot+margin").
//!
//! Pending modifications: the simulator applies a modification at once; Bitget applies it
//! asynchronously (reference §5.1). An accepted modification counts as in progress for
//! `SimConfig::modify_pending_ms` (default 0: never, so `25572` needs that setting).

use std::collections::HashMap;

use codec::Decimal;

use super::{account_ops, Venue};
use crate::config::Category;
use crate::matching::{AccountId, Reject, Side};

/// The product line an instrument's `maxProductOrderNum` counts over.
fn product_line(c: Category) -> Category {
    match c {
        Category::Margin => Category::Spot,
        other => other,
    }
}

/// Open orders per (account, book) and per (account, product line).
#[derive(Debug, Default)]
pub(super) struct OpenCounts {
    per_book: HashMap<(AccountId, usize), u32>,
    per_line: HashMap<(AccountId, Category), u32>,
}

impl OpenCounts {
    /// One more open order of `owner` in book `bi` of `category`.
    pub(super) fn add(&mut self, owner: AccountId, bi: usize, category: Category) {
        *self.per_book.entry((owner, bi)).or_insert(0) += 1;
        *self
            .per_line
            .entry((owner, product_line(category)))
            .or_insert(0) += 1;
    }

    /// An open order of `owner` in book `bi` of `category` ended.
    pub(super) fn remove(&mut self, owner: AccountId, bi: usize, category: Category) {
        fn dec<K: std::hash::Hash + Eq>(m: &mut HashMap<K, u32>, k: K) {
            if let Some(n) = m.get_mut(&k) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    m.remove(&k);
                }
            }
        }
        dec(&mut self.per_book, (owner, bi));
        dec(&mut self.per_line, (owner, product_line(category)));
    }
}

/// Modifications of one open order: accepted ones in its life, and the times (ms) until which
/// the recent ones count as in progress.
#[derive(Debug, Default)]
pub(super) struct ModState {
    accepted: u32,
    pending_until_ms: Vec<u64>,
}

impl Venue {
    /// The mark of book `bi` (see the module doc), `None` when it has none.
    pub fn mark_of(&self, bi: usize) -> Option<Decimal> {
        let b = self.books.get(bi)?;
        account_ops::mark_of_book(bi, b, &self.mark_overrides, &self.last_price)
    }

    /// The price band of book `bi` for a limit order on `side` at `price`: a buy above
    /// mark × (1 + `buyLimitPriceRatio`) → `25206`, a sell below mark × (1 −
    /// `sellLimitPriceRatio`) → `25205`. Reference §6.2: "25205 / 25206 | price below /
    /// above {1}% band | price limit (`buyLimitPriceRatio`)". Decimal arithmetic only; a
    /// ratio of 0 or a book without a mark has no band.
    pub(super) fn check_price_band(
        &self,
        bi: usize,
        side: Side,
        price: Decimal,
    ) -> Result<(), Reject> {
        let Some(inst) = self.instruments.get(bi) else {
            return Ok(());
        };
        let ratio = match side {
            Side::Buy => inst.buy_limit_price_ratio,
            Side::Sell => inst.sell_limit_price_ratio,
        };
        if !ratio.is_positive() {
            return Ok(());
        }
        let Some(mark) = self.mark_of(bi) else {
            return Ok(());
        };
        let pct = ratio
            .checked_mul(Decimal::from(100))
            .unwrap_or(ratio)
            .normalized();
        match side {
            Side::Buy => {
                let limit = Decimal::ONE
                    .checked_add(ratio)
                    .and_then(|f| mark.checked_mul(f));
                if limit.is_some_and(|l| price > l) {
                    return Err(Reject::new(25206, format!("price above {pct}% band")));
                }
            }
            Side::Sell => {
                let limit = Decimal::ONE
                    .checked_sub(ratio)
                    .and_then(|f| mark.checked_mul(f));
                if limit.is_some_and(|l| price < l) {
                    return Err(Reject::new(25205, format!("price below {pct}% band")));
                }
            }
        }
        Ok(())
    }

    /// The open-order caps of a new order of `owner` in book `bi`: `maxSymbolOrderNum` over
    /// the account's open orders in the symbol, `maxProductOrderNum` over its product line
    /// (0 = no cap); `25211` "Exceeds the limit of {cap} maximum orders".
    pub(super) fn check_open_caps(&self, owner: AccountId, bi: usize) -> Result<(), Reject> {
        let (Some(inst), Some(b)) = (self.instruments.get(bi), self.books.get(bi)) else {
            return Ok(());
        };
        let full =
            |cap: u32| Reject::new(25211, format!("Exceeds the limit of {cap} maximum orders"));
        let in_book = self
            .open_counts
            .per_book
            .get(&(owner, bi))
            .copied()
            .unwrap_or(0);
        if inst.max_symbol_order_num > 0 && in_book >= inst.max_symbol_order_num {
            return Err(full(inst.max_symbol_order_num));
        }
        let in_line = self
            .open_counts
            .per_line
            .get(&(owner, product_line(b.category)))
            .copied()
            .unwrap_or(0);
        if inst.max_product_order_num > 0 && in_line >= inst.max_product_order_num {
            return Err(full(inst.max_product_order_num));
        }
        Ok(())
    }

    /// Counts an order of `owner` in book `bi` as open (it rests).
    pub(super) fn count_open(&mut self, owner: AccountId, bi: usize) {
        if let Some(c) = self.books.get(bi).map(|b| b.category) {
            self.open_counts.add(owner, bi, c);
        }
    }

    /// The modification rules of a modify of open order `order_id` in book `bi` (its `side`)
    /// with the new `price` (when one is given) at `now_ms`: the price band, then `25569`
    /// once the order had `max_modifications_per_order` accepted modifications, then `25572`
    /// while `max_pending_modifications` of them are still in progress.
    pub(super) fn check_modify_limits(
        &self,
        order_id: u64,
        bi: usize,
        side: Side,
        price: Option<Decimal>,
        now_ms: u64,
    ) -> Result<(), Reject> {
        if let Some(p) = price {
            self.check_price_band(bi, side, p)?;
        }
        let Some(m) = self.mods.get(&order_id) else {
            return Ok(());
        };
        let max = self.modify_rules.max_per_order;
        if max > 0 && m.accepted >= max {
            return Err(Reject::new(25569, "exceeded max modifications"));
        }
        let pending = m.pending_until_ms.iter().filter(|&&t| t > now_ms).count();
        let max_pending = self.modify_rules.max_pending;
        if max_pending > 0 && pending >= max_pending as usize {
            return Err(Reject::new(25572, "too many pending modification requests"));
        }
        Ok(())
    }

    /// Records an accepted modification of open order `order_id` at `now_ms` (call it before
    /// routing the events, so that an order the modification ended leaves no state behind).
    pub(super) fn record_modify(&mut self, order_id: u64, now_ms: u64) {
        let window = self.modify_rules.pending_ms;
        let m = self.mods.entry(order_id).or_default();
        m.accepted = m.accepted.saturating_add(1);
        m.pending_until_ms.retain(|&t| t > now_ms);
        if window > 0 {
            m.pending_until_ms.push(now_ms.saturating_add(window));
        }
    }
}

/// The modification limits of the venue (from [`crate::config::SimConfig`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct ModifyRules {
    /// `max_modifications_per_order` (0 = unlimited).
    pub(super) max_per_order: u32,
    /// `max_pending_modifications` (0 = unlimited).
    pub(super) max_pending: u32,
    /// `modify_pending_ms`.
    pub(super) pending_ms: u64,
}
