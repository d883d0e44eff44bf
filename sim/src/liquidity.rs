//! The liquidity source: a market-maker account owned by the simulator that keeps a ladder of
//! `levels` orders per side around a mid price on each configured symbol.
//!
//! Each refresh (timer, every `refresh_ms`) may move the mid by one level step (seeded ChaCha8
//! random walk, `walk_percent` chance, up or down alike), then reconciles: ladder orders that are
//! gone, partly consumed or off the target prices are cancelled, and every target price without
//! a full order gets a new one. After any account trade op that touched the ladder the caller
//! runs a refresh without the walk, so a crossing order of normal size always finds liquidity.

use std::collections::HashMap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::config::LiquidityConfig;
use crate::matching::Side;
use crate::venue::{TradeOutcome, Venue};

/// The ladder of one symbol.
#[derive(Debug)]
struct Ladder {
    book: usize,
    mid_units: i64,
    level_qty_units: i64,
    step_units: i64,
    half_spread_units: i64,
    /// (side, price units) → resting order id.
    orders: HashMap<(Side, i64), u64>,
}

/// The market maker of all configured symbols.
#[derive(Debug)]
pub struct LiquiditySource {
    ladders: Vec<Ladder>,
    levels: usize,
    walk_percent: u32,
    rng: ChaCha8Rng,
}

impl LiquiditySource {
    /// Builds the ladders for the configured symbols (unknown symbols are skipped; the config
    /// validation reports them).
    pub fn new(cfg: &LiquidityConfig, venue: &Venue) -> LiquiditySource {
        let mut ladders = Vec::new();
        for s in &cfg.symbols {
            let Some(bi) = venue.book_index(s.category, &s.symbol) else {
                continue;
            };
            let Some(book) = venue.book(bi) else {
                continue;
            };
            let tick = book.tick_units();
            let lot = book.lot_units();
            let mid = s
                .mid
                .round_to(book.spec().price_exp, codec::Rounding::HalfUp)
                .map(|d| d.mantissa())
                .unwrap_or(0);
            let mid = mid - mid.rem_euclid(tick);
            let qty = s
                .level_qty
                .round_to(book.spec().qty_exp, codec::Rounding::Down)
                .map(|d| d.mantissa())
                .unwrap_or(0);
            let qty = (qty - qty.rem_euclid(lot)).max(lot);
            if mid <= 0 {
                continue;
            }
            ladders.push(Ladder {
                book: bi,
                mid_units: mid,
                level_qty_units: qty,
                step_units: s.level_step_ticks.max(1).saturating_mul(tick),
                half_spread_units: s.half_spread_ticks.max(1).saturating_mul(tick),
                orders: HashMap::new(),
            });
        }
        LiquiditySource {
            ladders,
            levels: cfg.levels,
            walk_percent: cfg.walk_percent.min(100),
            rng: ChaCha8Rng::seed_from_u64(cfg.seed),
        }
    }

    /// True when no symbol has liquidity.
    pub fn is_empty(&self) -> bool {
        self.ladders.is_empty()
    }

    /// Current mid prices in book units, per ladder (for tests and stats).
    pub fn mids(&self) -> Vec<(usize, i64)> {
        self.ladders.iter().map(|l| (l.book, l.mid_units)).collect()
    }

    /// One refresh: optional random-walk step, then reconcile every ladder. Pushes caused to
    /// accounts (their resting orders hit by a moved ladder) are appended to `out.pushes`.
    pub fn refresh(&mut self, venue: &mut Venue, walk: bool, now_ms: u64, out: &mut TradeOutcome) {
        let levels = self.levels;
        for ladder in &mut self.ladders {
            if walk && self.walk_percent > 0 && self.rng.random_range(0..100u32) < self.walk_percent
            {
                let up = self.rng.random_bool(0.5);
                let next = if up {
                    ladder.mid_units.saturating_add(ladder.step_units)
                } else {
                    ladder.mid_units.saturating_sub(ladder.step_units)
                };
                // Never walk below a sensible floor (the ladder must stay positive).
                let floor =
                    ladder
                        .half_spread_units
                        .saturating_add(ladder.step_units.saturating_mul(
                            i64::try_from(levels).unwrap_or(i64::MAX).saturating_add(1),
                        ));
                if next > floor {
                    ladder.mid_units = next;
                }
            }
            reconcile(ladder, levels, venue, now_ms, out);
        }
    }
}

fn reconcile(
    ladder: &mut Ladder,
    levels: usize,
    venue: &mut Venue,
    now_ms: u64,
    out: &mut TradeOutcome,
) {
    let levels = levels.min(1000);
    let mut targets = Vec::with_capacity(levels * 2);
    for i in 0..levels as i64 {
        let off = ladder
            .half_spread_units
            .saturating_add(i.saturating_mul(ladder.step_units));
        targets.push((Side::Buy, ladder.mid_units.saturating_sub(off)));
        targets.push((Side::Sell, ladder.mid_units.saturating_add(off)));
    }
    // Drop or cancel what is stale.
    let mut stale = Vec::new();
    for (&(side, price), &id) in &ladder.orders {
        let state = venue
            .book(ladder.book)
            .and_then(|b| b.order(id))
            .map(|o| o.leaves());
        let wanted = targets.contains(&(side, price));
        match state {
            None => stale.push(((side, price), None)),
            Some(leaves) if !wanted || leaves < ladder.level_qty_units => {
                stale.push(((side, price), Some(id)));
            }
            Some(_) => {}
        }
    }
    for (key, cancel) in stale {
        ladder.orders.remove(&key);
        if let Some(id) = cancel {
            venue.mm_cancel(ladder.book, id, now_ms, out);
        }
    }
    // Fill the gaps.
    for (side, price) in targets {
        if price <= 0 || ladder.orders.contains_key(&(side, price)) {
            continue;
        }
        if let Some(id) = venue.mm_place(
            ladder.book,
            side,
            price,
            ladder.level_qty_units,
            now_ms,
            out,
        ) {
            ladder.orders.insert((side, price), id);
        }
    }
}
