//! Futures positions: average price, realised PnL and fees per fill, in both position modes
//! (reference §4.4, §8 "Position logic").
//!
//! - one-way mode: one net position per symbol; a fill against it reduces it (realising
//!   `(price − avg) × qty` for a long, `(avg − price) × qty` for a short), the rest of the fill
//!   opens the other direction (a flip) unless the order is reduce-only (then the excess is
//!   dropped: a reduce-only order never opens);
//! - hedge mode: `buy`+`long` / `sell`+`short` open, `sell`+`long` / `buy`+`short` close; a close
//!   larger than the position closes it and the excess is dropped.
//!
//! Average price = total open value ÷ size, kept at 10 fractional digits. The fee of a fill is
//! split between its closing and opening parts in proportion to their quantities.

use codec::Decimal;

use super::num::{add, div, min, mul, sub};
use crate::config::{Category, HoldMode};
use crate::matching::{PosSide, Side};

/// Position key: (category, symbol, side). In one-way mode the side is the direction of the
/// net position.
pub type PosKey = (Category, String, PosSide);

/// One position (size in base coin, prices in quote coin).
#[derive(Debug, Clone, PartialEq)]
pub struct Position {
    /// Product line.
    pub category: Category,
    /// Symbol.
    pub symbol: String,
    /// Margin coin (the quote coin).
    pub margin_coin: String,
    /// Direction.
    pub pos_side: PosSide,
    /// Size (0 once closed; a closed position is pushed once with `positionStatus "ended"`).
    pub size: Decimal,
    /// Quantity held by pending close-position orders (the open quantity of hedge-mode
    /// `sell long` / `buy short` orders, or of one-way reduce-only orders), kept by the venue
    /// ([`crate::venue::Venue`] refreshes it after every order event of the symbol). Shown as
    /// `frozen` capped at `size`, with `available` = `size` − `frozen` (reference §4.4).
    pub frozen: Decimal,
    /// Average entry price.
    pub avg_price: Decimal,
    /// Realised PnL of this position so far (price PnL, fees excluded), `curRealisedPnl`.
    pub realised: Decimal,
    /// Opening fees, negative = paid (`openFeeTotal`).
    pub open_fee_total: Decimal,
    /// Closing fees, negative = paid (`closeFeeTotal`).
    pub close_fee_total: Decimal,
    /// Creation time, ms.
    pub created_ms: u64,
    /// Last change, ms.
    pub updated_ms: u64,
}

impl Position {
    fn new(category: Category, symbol: &str, coin: &str, side: PosSide, now_ms: u64) -> Self {
        Position {
            category,
            symbol: symbol.to_string(),
            margin_coin: coin.to_string(),
            pos_side: side,
            size: Decimal::ZERO,
            frozen: Decimal::ZERO,
            avg_price: Decimal::ZERO,
            realised: Decimal::ZERO,
            open_fee_total: Decimal::ZERO,
            close_fee_total: Decimal::ZERO,
            created_ms: now_ms,
            updated_ms: now_ms,
        }
    }

    /// `+1` for long, `−1` for short.
    pub fn sign(&self) -> Decimal {
        match self.pos_side {
            PosSide::Long => Decimal::ONE,
            PosSide::Short => Decimal::from(-1),
        }
    }

    /// `frozen` as shown: the close-order quantity, at most the size.
    pub fn frozen_shown(&self) -> Decimal {
        min(self.frozen, self.size)
    }

    /// `available` as shown: size − frozen (what new close orders may still close).
    pub fn available(&self) -> Decimal {
        sub(self.size, self.frozen_shown())
    }

    /// True when an order of `side` / `pos_side` / `reduce_only` in `mode` closes the position
    /// of side `closes` (reference §8 "Position logic": hedge `sell long` / `buy short`;
    /// one-way a reduce-only order against the net position).
    pub fn closed_by(
        mode: HoldMode,
        closes: PosSide,
        side: Side,
        pos_side: Option<PosSide>,
        reduce_only: bool,
    ) -> bool {
        match mode {
            HoldMode::OneWayMode => reduce_only && reduced_side(side) == closes,
            HoldMode::HedgeMode => pos_side == Some(closes) && !hedge_opens(side, closes),
        }
    }

    /// Unrealised PnL at `mark`.
    pub fn unrealised(&self, mark: Decimal) -> Decimal {
        mul(mul(sub(mark, self.avg_price), self.size), self.sign())
    }

    fn open(&mut self, price: Decimal, qty: Decimal, fee: Decimal, now_ms: u64) {
        let value = add(mul(self.avg_price, self.size), mul(price, qty));
        self.size = add(self.size, qty);
        self.avg_price = div(value, self.size);
        self.open_fee_total = sub(self.open_fee_total, fee);
        self.updated_ms = now_ms;
    }

    /// Closes `qty` (≤ size) at `price`; returns the realised PnL.
    fn close(&mut self, price: Decimal, qty: Decimal, fee: Decimal, now_ms: u64) -> Decimal {
        let pnl = mul(mul(sub(price, self.avg_price), qty), self.sign());
        self.size = sub(self.size, qty);
        self.realised = add(self.realised, pnl);
        self.close_fee_total = sub(self.close_fee_total, fee);
        self.updated_ms = now_ms;
        pnl
    }
}

/// One futures fill as the position book sees it.
#[derive(Debug, Clone)]
pub struct FuturesFill<'a> {
    /// Product line.
    pub category: Category,
    /// Symbol.
    pub symbol: &'a str,
    /// Margin coin.
    pub coin: &'a str,
    /// Order side.
    pub side: Side,
    /// `posSide` of the order (hedge mode; `None` = derived from the side).
    pub pos_side: Option<PosSide>,
    /// Reduce-only order.
    pub reduce_only: bool,
    /// Execution price.
    pub price: Decimal,
    /// Executed quantity (base coin).
    pub qty: Decimal,
    /// Fee paid (positive = paid).
    pub fee: Decimal,
}

/// What a fill did to the positions.
#[derive(Debug, Clone, Default)]
pub struct FillResult {
    /// Realised PnL (price PnL, fee excluded).
    pub realised: Decimal,
    /// Positions after the fill (closed ones with size 0), in change order.
    pub changed: Vec<Position>,
    /// `tradeSide`-like label: `open`, `close` or `close_open` (a flip).
    pub kind: &'static str,
}

/// The side a position must have to be reduced by an order of `side` in one-way mode.
pub fn reduced_side(side: Side) -> PosSide {
    match side {
        Side::Buy => PosSide::Short,
        Side::Sell => PosSide::Long,
    }
}

/// The direction an order of `side` opens in one-way mode.
pub fn opened_side(side: Side) -> PosSide {
    match side {
        Side::Buy => PosSide::Long,
        Side::Sell => PosSide::Short,
    }
}

/// True when `side` + `pos_side` opens in hedge mode (`buy long`, `sell short`).
pub fn hedge_opens(side: Side, pos_side: PosSide) -> bool {
    opened_side(side) == pos_side
}

/// Applies a fill to `positions` (an account's map) in `mode`.
pub fn apply_fill(
    positions: &mut std::collections::BTreeMap<PosKey, Position>,
    mode: HoldMode,
    f: &FuturesFill<'_>,
    now_ms: u64,
) -> FillResult {
    let mut res = FillResult {
        kind: "open",
        ..FillResult::default()
    };
    if !f.qty.is_positive() {
        return res;
    }
    let key = |s: PosSide| (f.category, f.symbol.to_string(), s);
    let (close_side, open_side) = match mode {
        HoldMode::OneWayMode => (Some(reduced_side(f.side)), Some(opened_side(f.side))),
        HoldMode::HedgeMode => {
            let ps = f.pos_side.unwrap_or_else(|| opened_side(f.side));
            if hedge_opens(f.side, ps) {
                (None, Some(ps))
            } else {
                (Some(ps), None)
            }
        }
    };
    let mut rest = f.qty;
    let mut closed_qty = Decimal::ZERO;
    if let Some(cs) = close_side {
        if let Some(p) = positions.get_mut(&key(cs)) {
            let q = min(rest, p.size);
            if q.is_positive() {
                let fee = mul(f.fee, div(q, f.qty));
                res.realised = p.close(f.price, q, fee, now_ms);
                rest = sub(rest, q);
                closed_qty = q;
                res.changed.push(p.clone());
                res.kind = "close";
            }
            if !p.size.is_positive() {
                positions.remove(&key(cs));
            }
        }
    }
    let opens = mode == HoldMode::HedgeMode || !f.reduce_only;
    if let (Some(os), true, true) = (open_side, opens, rest.is_positive()) {
        let fee = if closed_qty.is_zero() {
            f.fee
        } else {
            sub(f.fee, mul(f.fee, div(closed_qty, f.qty)))
        };
        let p = positions
            .entry(key(os))
            .or_insert_with(|| Position::new(f.category, f.symbol, f.coin, os, now_ms));
        p.open(f.price, rest, fee, now_ms);
        res.changed.push(p.clone());
        res.kind = if closed_qty.is_zero() {
            "open"
        } else {
            "close_open"
        };
    }
    res
}
