//! [`RiskBook`]: the risk state shared by the io thread (checks, reservations, marks, kill
//! switch) and the tracker thread (fills, ended orders). Atomics only: no lock on the order path.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, Ordering};
use std::sync::OnceLock;

use codec::sbe::{Category, OrdRejReason, Side, Symbol};
use codec::{Decimal, Rounding};

use super::check::{check_scope, OrderView, RiskReject, Scope, ScopeState};
use super::config::{RiskLimits, RiskSettings};
use crate::types::SessionGrant;

/// Exponent marks are stored at (integer mantissa at 10^-9).
const MARK_EXP: i8 = -9;

/// OrdRejReason of a new order refused because its session is drained (FIX 0, "Broker /
/// Exchange option": the gateway's operator decided it, not a limit or the exchange).
pub const DRAINING_REASON: OrdRejReason = OrdRejReason::BrokerOption;
/// Text of a new order refused because its session is drained.
pub const DRAINING_TEXT: &str = "session draining: new orders refused by the operator";

/// What the risk rules need of one instrument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RiskInstrument {
    /// Product line.
    pub category: Category,
    /// Symbol.
    pub symbol: Symbol,
    /// Quantity step: positions are kept in integer lots.
    pub lot: Decimal,
    /// `buyLimitPriceRatio`: band of buy prices around the mark, if the exchange sets one.
    pub buy_ratio: Option<Decimal>,
    /// `sellLimitPriceRatio`: band of sell prices around the mark, if the exchange sets one.
    pub sell_ratio: Option<Decimal>,
    /// `maxSymbolOrderNum`: open orders an account may have in this symbol (Bitget refuses
    /// one more with `25211`), if the exchange sets one.
    pub max_symbol_orders: Option<u32>,
    /// `maxProductOrderNum`: open orders an account may have across the product line (each
    /// futures category; spot and margin together), if the exchange sets one (`25211`).
    pub max_product_orders: Option<u32>,
}

/// Product lines an account's open orders are counted over for `maxProductOrderNum`: spot and
/// margin together, each futures category on its own (reference §7 "400 across all futures
/// symbols, 400 across spot+margin"; the simulator counts the same way).
const LINES: usize = 4;

fn line_of(c: Category) -> usize {
    match c {
        Category::Spot | Category::Margin => 0,
        Category::UsdtFutures => 1,
        Category::CoinFutures => 2,
        _ => 3,
    }
}

#[derive(Debug)]
struct SessionSlot {
    account: usize,
    limits: RiskLimits,
    open_orders: AtomicU32,
    /// Drained by the operator: new orders refused, modifies and cancels pass.
    draining: AtomicBool,
}

#[derive(Debug, Default)]
struct AccountSlot {
    limits: RiskLimits,
    open_orders: AtomicU32,
    kill: AtomicBool,
}

#[derive(Debug, Default)]
struct PosSlot {
    position: AtomicI64,
    open_buy: AtomicI64,
    open_sell: AtomicI64,
    /// Orders of the account open now in the instrument (for `maxSymbolOrderNum`).
    open_orders: AtomicU32,
}

#[derive(Debug)]
struct Instruments {
    index: HashMap<(Category, Symbol), usize>,
    info: Vec<RiskInstrument>,
    marks: Vec<AtomicI64>,
    /// `account * info.len() + instrument`.
    slots: Vec<PosSlot>,
    /// Orders of the account open now per product line, `account * LINES + line_of(..)`
    /// (for `maxProductOrderNum`).
    lines: Vec<AtomicU32>,
}

/// What [`RiskBook::check_new`] counted for an order; give it back with
/// [`RiskBook::release`] if the order is then not sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reserved {
    session_id: u64,
    instrument: Option<usize>,
    side: Side,
    lots: i64,
}

/// Limits, counters, positions, marks and kill-switch flags of every session and account.
#[derive(Debug)]
pub struct RiskBook {
    sessions: HashMap<u64, SessionSlot>,
    accounts: Vec<AccountSlot>,
    instruments: OnceLock<Instruments>,
}

fn sub_floor(a: &AtomicU32) {
    let _ = a.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| {
        Some(v.saturating_sub(1))
    });
}

impl RiskBook {
    /// A book for these sessions and `accounts` accounts (instruments come later, see
    /// [`RiskBook::set_instruments`]).
    pub fn new(grants: &[SessionGrant], accounts: usize, settings: &RiskSettings) -> RiskBook {
        RiskBook {
            sessions: grants
                .iter()
                .map(|g| {
                    (
                        g.session_id,
                        SessionSlot {
                            account: g.account,
                            limits: g.risk.clone(),
                            open_orders: AtomicU32::new(0),
                            draining: AtomicBool::new(false),
                        },
                    )
                })
                .collect(),
            accounts: (0..accounts)
                .map(|i| AccountSlot {
                    limits: settings
                        .accounts
                        .get(i)
                        .unwrap_or(&settings.default_account)
                        .clone(),
                    ..AccountSlot::default()
                })
                .collect(),
            instruments: OnceLock::new(),
        }
    }

    /// Sets the instrument set once (later calls are ignored).
    pub fn set_instruments(&self, list: Vec<RiskInstrument>) {
        let n = list.len();
        let _ = self.instruments.set(Instruments {
            index: list
                .iter()
                .enumerate()
                .map(|(i, r)| ((r.category, r.symbol), i))
                .collect(),
            info: list,
            marks: (0..n).map(|_| AtomicI64::new(0)).collect(),
            slots: (0..n * self.accounts.len())
                .map(|_| PosSlot::default())
                .collect(),
            lines: (0..LINES * self.accounts.len())
                .map(|_| AtomicU32::new(0))
                .collect(),
        });
    }

    fn instrument(&self, category: Category, symbol: &Symbol) -> Option<(&Instruments, usize)> {
        let t = self.instruments.get()?;
        let i = *t.index.get(&(category, *symbol))?;
        Some((t, i))
    }

    fn line(&self, account: usize, category: Category) -> Option<&AtomicU32> {
        let t = self.instruments.get()?;
        t.lines
            .get(account.checked_mul(LINES)?.checked_add(line_of(category))?)
    }

    /// Orders of `account` open now in the instrument and in its product line (as counted
    /// for the exchange's open-order caps).
    pub fn account_open_orders_in(
        &self,
        account: usize,
        category: Category,
        symbol: &Symbol,
    ) -> (u32, u32) {
        match self.instrument(category, symbol) {
            Some((_, i)) => self.open_in(account, i, category),
            None => (0, self.open_in_line(account, category)),
        }
    }

    /// Orders of `account` open in instrument `ix` (of `category`) and in its product line.
    fn open_in(&self, account: usize, ix: usize, category: Category) -> (u32, u32) {
        let sym = self
            .slot(account, ix)
            .map_or(0, |s| s.open_orders.load(Ordering::Relaxed));
        (sym, self.open_in_line(account, category))
    }

    fn open_in_line(&self, account: usize, category: Category) -> u32 {
        self.line(account, category)
            .map_or(0, |a| a.load(Ordering::Relaxed))
    }

    fn slot(&self, account: usize, ix: usize) -> Option<&PosSlot> {
        let t = self.instruments.get()?;
        t.slots
            .get(account.checked_mul(t.info.len())?.checked_add(ix)?)
    }

    /// The account a session is bound to.
    pub fn session_account(&self, session_id: u64) -> Option<usize> {
        self.sessions.get(&session_id).map(|s| s.account)
    }

    /// Sets the mark price of an instrument (ignored for an unknown one).
    pub fn set_mark(&self, category: Category, symbol: &Symbol, mark: Decimal) {
        if let Some((t, i)) = self.instrument(category, symbol) {
            let v = mark
                .round_to(MARK_EXP, Rounding::HalfUp)
                .and_then(|m| m.to_scaled(MARK_EXP))
                .unwrap_or(0);
            if let Some(a) = t.marks.get(i) {
                a.store(v, Ordering::Relaxed);
            }
        }
    }

    /// The last mark price of an instrument, if any.
    pub fn mark(&self, category: Category, symbol: &Symbol) -> Option<Decimal> {
        let (t, i) = self.instrument(category, symbol)?;
        let v = t.marks.get(i)?.load(Ordering::Relaxed);
        (v > 0).then(|| Decimal::new(v, MARK_EXP).ok()).flatten()
    }

    fn to_lots(t: &Instruments, ix: usize, qty: Decimal) -> i64 {
        let Some(lot) = t.info.get(ix).map(|r| r.lot).filter(|l| l.is_positive()) else {
            return 0;
        };
        qty.checked_div(lot, 0, Rounding::Down)
            .and_then(|v| v.to_scaled(0))
            .unwrap_or(0)
    }

    fn from_lots(t: &Instruments, ix: usize, lots: i64) -> Decimal {
        t.info
            .get(ix)
            .and_then(|r| Decimal::from(lots).checked_mul(r.lot))
            .unwrap_or(Decimal::ZERO)
    }

    /// The account's net position in lots converted to base units (long > 0).
    pub fn position(&self, account: usize, category: Category, symbol: &Symbol) -> Decimal {
        let Some((t, i)) = self.instrument(category, symbol) else {
            return Decimal::ZERO;
        };
        let lots = self
            .slot(account, i)
            .map_or(0, |s| s.position.load(Ordering::Relaxed));
        Self::from_lots(t, i, lots)
    }

    /// Sets the account's position (e.g. from `current-position` at start).
    pub fn set_position(&self, account: usize, category: Category, symbol: &Symbol, qty: Decimal) {
        if let Some((t, i)) = self.instrument(category, symbol) {
            if let Some(s) = self.slot(account, i) {
                s.position
                    .store(Self::to_lots(t, i, qty), Ordering::Relaxed);
            }
        }
    }

    /// Orders of a session open now (sent, not ended).
    pub fn session_open_orders(&self, session_id: u64) -> u32 {
        self.sessions
            .get(&session_id)
            .map_or(0, |s| s.open_orders.load(Ordering::Relaxed))
    }

    /// Turns the kill switch of one account (`Some`) or every account (`None`) on or off.
    pub fn set_kill_switch(&self, account: Option<usize>, on: bool) {
        for (i, a) in self.accounts.iter().enumerate() {
            if account.is_none_or(|x| x == i) {
                a.kill.store(on, Ordering::Relaxed);
            }
        }
    }

    /// True while the account's kill switch is on.
    pub fn kill_switch_on(&self, account: usize) -> bool {
        self.accounts
            .get(account)
            .is_some_and(|a| a.kill.load(Ordering::Relaxed))
    }

    /// Drains session `session_id` (`on`: its new orders are refused with
    /// [`DRAINING_REASON`] and [`DRAINING_TEXT`]; modifies and cancels still pass, so its open
    /// orders can finish) or resumes it (`!on`). Returns false for a session the book does
    /// not know (nothing changed).
    pub fn set_draining(&self, session_id: u64, on: bool) -> bool {
        match self.sessions.get(&session_id) {
            Some(s) => {
                s.draining.store(on, Ordering::Relaxed);
                true
            }
            None => false,
        }
    }

    /// True while session `session_id` is drained (see [`RiskBook::set_draining`]).
    pub fn session_draining(&self, session_id: u64) -> bool {
        self.sessions
            .get(&session_id)
            .is_some_and(|s| s.draining.load(Ordering::Relaxed))
    }

    /// Sessions drained now.
    pub fn sessions_draining(&self) -> usize {
        self.sessions
            .values()
            .filter(|s| s.draining.load(Ordering::Relaxed))
            .count()
    }

    /// Checks a new order of `session_id` against the kill switch, the session's drain, the
    /// session's and the account's limits and the instrument's price band; on success counts
    /// it as open (give the [`Reserved`] back with [`RiskBook::release`] if it is then not
    /// sent). A session the book does not know is checked against nothing but counted nowhere.
    pub fn check_new(
        &self,
        session_id: u64,
        category: Category,
        symbol: &Symbol,
        order: &OrderView,
    ) -> Result<Reserved, RiskReject> {
        let Some(sess) = self.sessions.get(&session_id) else {
            return Ok(Reserved {
                session_id,
                instrument: None,
                side: order.side,
                lots: 0,
            });
        };
        let account = self.accounts.get(sess.account);
        if account.is_some_and(|a| a.kill.load(Ordering::Relaxed)) {
            return Err(RiskReject {
                reason: OrdRejReason::KillSwitch,
                text: "kill switch on".to_string(),
            });
        }
        if sess.draining.load(Ordering::Relaxed) {
            return Err(RiskReject {
                reason: DRAINING_REASON,
                text: DRAINING_TEXT.to_string(),
            });
        }
        let inst = self.instrument(category, symbol);
        let mut state = ScopeState::default();
        let mut lots = 0;
        if let Some((t, i)) = inst {
            state.mark = self.mark(category, symbol);
            if let Some(s) = self.slot(sess.account, i) {
                state.position = Self::from_lots(t, i, s.position.load(Ordering::Relaxed));
                let open = match order.side {
                    Side::Buy => s.open_buy.load(Ordering::Relaxed),
                    Side::Sell => s.open_sell.load(Ordering::Relaxed),
                };
                state.open_same_side = Self::from_lots(t, i, open);
            }
            lots = Self::to_lots(t, i, order.qty);
            if let (Some(px), Some(mark), Some(info)) = (order.price, state.mark, t.info.get(i)) {
                check_exchange_band(info, order.side, px, mark)?;
            }
            if let Some(info) = t.info.get(i) {
                let (in_symbol, in_line) = self.open_in(sess.account, i, category);
                check_exchange_caps(info, in_symbol, in_line)?;
            }
        }
        state.open_orders = sess.open_orders.load(Ordering::Relaxed);
        check_scope(Scope::Session, &sess.limits, order, &state)?;
        if let Some(a) = account {
            state.open_orders = a.open_orders.load(Ordering::Relaxed);
            check_scope(Scope::Account, &a.limits, order, &state)?;
        }
        let instrument = inst.map(|(_, i)| i);
        self.count_open(sess, category, instrument, order.side, lots);
        Ok(Reserved {
            session_id,
            instrument,
            side: order.side,
            lots,
        })
    }

    /// Counts one open order of `sess` (`lots` of `side` in `instrument`, `None`: an
    /// instrument the book does not know) in the session, its account, the account's product
    /// line and the instrument: what [`RiskBook::check_new`] reserves and
    /// [`RiskBook::on_order_end`] gives back.
    fn count_open(
        &self,
        sess: &SessionSlot,
        category: Category,
        instrument: Option<usize>,
        side: Side,
        lots: i64,
    ) {
        if let Some(a) = self.accounts.get(sess.account) {
            a.open_orders.fetch_add(1, Ordering::Relaxed);
        }
        sess.open_orders.fetch_add(1, Ordering::Relaxed);
        if instrument.is_some() {
            if let Some(l) = self.line(sess.account, category) {
                l.fetch_add(1, Ordering::Relaxed);
            }
        }
        if let Some(s) = instrument.and_then(|i| self.slot(sess.account, i)) {
            s.open_orders.fetch_add(1, Ordering::Relaxed);
            match side {
                Side::Buy => s.open_buy.fetch_add(lots, Ordering::Relaxed),
                Side::Sell => s.open_sell.fetch_add(lots, Ordering::Relaxed),
            };
        }
    }

    /// An order of `session_id` restored open from its journal at a restart, `leaves` of
    /// `side` still open (tracker thread, before any strategy is accepted): counted as
    /// [`RiskBook::check_new`] counts a new order, without its checks (the order is already at
    /// the exchange). Without it, the open-order limits and the exchange's open-order caps
    /// would start from 0 after a restart and undercount every order that outlived it.
    pub fn restore_open(
        &self,
        session_id: u64,
        category: Category,
        symbol: &Symbol,
        side: Side,
        leaves: Decimal,
    ) {
        let Some(sess) = self.sessions.get(&session_id) else {
            return;
        };
        let inst = self.instrument(category, symbol);
        let lots = inst.map_or(0, |(t, i)| Self::to_lots(t, i, leaves));
        self.count_open(sess, category, inst.map(|(_, i)| i), side, lots);
    }

    /// Checks a modification of an open order of `session_id` (new quantity and/or price in
    /// `order`; `price` `None` keeps the order's price): the order-size rules (max order
    /// quantity, max notional when the new price is given) and the price bands. Open-order and
    /// position counts are not changed here (the tracker updates them when the order channel
    /// shows the new values), so max open orders and the position limit do not apply.
    pub fn check_replace(
        &self,
        session_id: u64,
        category: Category,
        symbol: &Symbol,
        order: &OrderView,
    ) -> Result<(), RiskReject> {
        let Some(sess) = self.sessions.get(&session_id) else {
            return Ok(());
        };
        let mut state = ScopeState::default();
        if let Some((t, i)) = self.instrument(category, symbol) {
            state.mark = self.mark(category, symbol);
            if let (Some(px), Some(mark), Some(info)) = (order.price, state.mark, t.info.get(i)) {
                check_exchange_band(info, order.side, px, mark)?;
            }
        }
        let size_rules = |l: &RiskLimits| RiskLimits {
            max_order_qty: l.max_order_qty,
            max_order_notional: order.price.and(l.max_order_notional),
            max_open_orders: None,
            max_deviation: l.max_deviation,
            max_position: None,
        };
        check_scope(Scope::Session, &size_rules(&sess.limits), order, &state)?;
        if let Some(a) = self.accounts.get(sess.account) {
            check_scope(Scope::Account, &size_rules(&a.limits), order, &state)?;
        }
        Ok(())
    }

    /// Gives back what [`RiskBook::check_new`] counted for an order that was not sent.
    pub fn release(&self, r: Reserved) {
        let Some(sess) = self.sessions.get(&r.session_id) else {
            return;
        };
        sub_floor(&sess.open_orders);
        if let Some(a) = self.accounts.get(sess.account) {
            sub_floor(&a.open_orders);
        }
        let category = r
            .instrument
            .and_then(|i| self.instruments.get()?.info.get(i))
            .map(|info| info.category);
        if let Some(l) = category.and_then(|c| self.line(sess.account, c)) {
            sub_floor(l);
        }
        if let Some(s) = r.instrument.and_then(|i| self.slot(sess.account, i)) {
            sub_floor(&s.open_orders);
            match r.side {
                Side::Buy => s.open_buy.fetch_sub(r.lots, Ordering::Relaxed),
                Side::Sell => s.open_sell.fetch_sub(r.lots, Ordering::Relaxed),
            };
        }
    }

    fn open_qty(
        &self,
        session_id: u64,
        category: Category,
        symbol: &Symbol,
        side: Side,
    ) -> Option<&AtomicI64> {
        let account = self.session_account(session_id)?;
        let (_, i) = self.instrument(category, symbol)?;
        let s = self.slot(account, i)?;
        Some(match side {
            Side::Buy => &s.open_buy,
            Side::Sell => &s.open_sell,
        })
    }

    /// A fill of `qty` of an order of `session_id` (tracker thread): the position moves, the
    /// open quantity of that side shrinks.
    pub fn on_fill(
        &self,
        session_id: u64,
        category: Category,
        symbol: &Symbol,
        side: Side,
        qty: Decimal,
    ) {
        let Some(account) = self.session_account(session_id) else {
            return;
        };
        let Some((t, i)) = self.instrument(category, symbol) else {
            return;
        };
        let Some(s) = self.slot(account, i) else {
            return;
        };
        let lots = Self::to_lots(t, i, qty);
        match side {
            Side::Buy => {
                s.position.fetch_add(lots, Ordering::Relaxed);
                s.open_buy.fetch_sub(lots, Ordering::Relaxed);
            }
            Side::Sell => {
                s.position.fetch_sub(lots, Ordering::Relaxed);
                s.open_sell.fetch_sub(lots, Ordering::Relaxed);
            }
        }
    }

    /// An order's open quantity changed from `old_leaves` to `new_leaves` (replaced).
    pub fn on_leaves_changed(
        &self,
        session_id: u64,
        category: Category,
        symbol: &Symbol,
        side: Side,
        old_leaves: Decimal,
        new_leaves: Decimal,
    ) {
        let Some((t, i)) = self.instrument(category, symbol) else {
            return;
        };
        let delta = Self::to_lots(t, i, new_leaves) - Self::to_lots(t, i, old_leaves);
        if let Some(open) = self.open_qty(session_id, category, symbol, side) {
            open.fetch_add(delta, Ordering::Relaxed);
        }
    }

    /// An order of `session_id` ended (filled, canceled, rejected) with `leaves` still open
    /// (tracker thread): it no longer counts as open.
    pub fn on_order_end(
        &self,
        session_id: u64,
        category: Category,
        symbol: &Symbol,
        side: Side,
        leaves: Decimal,
    ) {
        let Some(sess) = self.sessions.get(&session_id) else {
            return;
        };
        sub_floor(&sess.open_orders);
        if let Some(a) = self.accounts.get(sess.account) {
            sub_floor(&a.open_orders);
        }
        if let Some((t, i)) = self.instrument(category, symbol) {
            let lots = Self::to_lots(t, i, leaves);
            if let Some(open) = self.open_qty(session_id, category, symbol, side) {
                open.fetch_sub(lots, Ordering::Relaxed);
            }
            if let Some(s) = self.slot(sess.account, i) {
                sub_floor(&s.open_orders);
            }
            if let Some(l) = self.line(sess.account, category) {
                sub_floor(l);
            }
        }
    }
}

/// The exchange's price band of `info` (Bitget refuses a limit buy above
/// mark × (1 + `buyLimitPriceRatio`) with `25206` and a limit sell below
/// mark × (1 − `sellLimitPriceRatio`) with `25205`, reference §6.2 "25205 / 25206 | price
/// below / above {1}% band"): one-sided, bounds inclusive, exact decimals, as the simulator
/// (`sim::venue` `limits`). PriceExceedsBand, the text names the code it pre-empts.
pub fn check_exchange_band(
    info: &RiskInstrument,
    side: Side,
    px: Decimal,
    mark: Decimal,
) -> Result<(), RiskReject> {
    let (ratio, code, sign) = match side {
        Side::Buy => (info.buy_ratio, 25206, '+'),
        Side::Sell => (info.sell_ratio, 25205, '-'),
    };
    let Some(r) = ratio.filter(|r| r.is_positive()) else {
        return Ok(());
    };
    let factor = match side {
        Side::Buy => Decimal::ONE.checked_add(r),
        Side::Sell => Decimal::ONE.checked_sub(r),
    };
    let Some(limit) = factor.and_then(|f| mark.checked_mul(f)) else {
        return Ok(());
    };
    let outside = match side {
        Side::Buy => px > limit,
        Side::Sell => px < limit,
    };
    if !outside {
        return Ok(());
    }
    let pct = r.checked_mul(Decimal::from(100)).unwrap_or(r).normalized();
    Err(RiskReject {
        reason: OrdRejReason::PriceExceedsBand,
        text: format!(
            "pre-empts {code}: {} beyond mark {} {sign}{pct}%",
            px.normalized(),
            mark.normalized()
        ),
    })
}

/// The exchange's open-order caps of `info` for an account with `in_symbol` orders open in
/// the symbol and `in_line` in its product line: at `maxSymbolOrderNum` / `maxProductOrderNum`
/// Bitget refuses one more with `25211` "Exceeds the limit of {0} maximum orders".
/// OrderExceedsLimit, the text names the code it pre-empts.
pub fn check_exchange_caps(
    info: &RiskInstrument,
    in_symbol: u32,
    in_line: u32,
) -> Result<(), RiskReject> {
    let full = |what: &str, cap: u32| RiskReject {
        reason: OrdRejReason::OrderExceedsLimit,
        text: format!("pre-empts 25211: {cap} open orders ({what})"),
    };
    if let Some(cap) = info.max_symbol_orders.filter(|c| in_symbol >= *c) {
        return Err(full("maxSymbolOrderNum", cap));
    }
    if let Some(cap) = info.max_product_orders.filter(|c| in_line >= *c) {
        return Err(full("maxProductOrderNum", cap));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use codec::sbe::OrdType;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn book() -> RiskBook {
        let grants = [SessionGrant {
            session_id: 1,
            risk: RiskLimits {
                max_open_orders: Some(1),
                ..Default::default()
            },
            ..SessionGrant::default()
        }];
        let settings = RiskSettings {
            default_account: RiskLimits {
                max_position: Some(d("0.003")),
                ..Default::default()
            },
            ..Default::default()
        };
        let b = RiskBook::new(&grants, 1, &settings);
        b.set_instruments(vec![RiskInstrument {
            category: Category::UsdtFutures,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            lot: d("0.001"),
            buy_ratio: Some(d("0.05")),
            sell_ratio: Some(d("0.05")),
            max_symbol_orders: Some(3),
            max_product_orders: Some(4),
        }]);
        b
    }

    fn buy(qty: &str) -> OrderView {
        OrderView {
            side: Side::Buy,
            ord_type: OrdType::Limit,
            price: Some(d("100")),
            qty: d(qty),
        }
    }

    #[test]
    fn reserves_releases_and_ends_orders() {
        let b = book();
        let s = Symbol::new("BTCUSDT").unwrap();
        let c = Category::UsdtFutures;
        let r = b.check_new(1, c, &s, &buy("0.002")).unwrap();
        assert_eq!(b.session_open_orders(1), 1);
        let e = b.check_new(1, c, &s, &buy("0.001")).unwrap_err();
        assert_eq!(e.text, "risk: session.max_open_orders 1 >= 1");
        b.release(r);
        assert_eq!(b.session_open_orders(1), 0);
        b.check_new(1, c, &s, &buy("0.002")).unwrap();
        b.on_fill(1, c, &s, Side::Buy, d("0.002"));
        b.on_order_end(1, c, &s, Side::Buy, Decimal::ZERO);
        assert_eq!(b.position(0, c, &s), d("0.002"));
        assert_eq!(b.session_open_orders(1), 0);
        let e = b.check_new(1, c, &s, &buy("0.002")).unwrap_err();
        assert_eq!(e.text, "risk: account.max_position 0.004 > 0.003");
        // The instrument band once a mark is known.
        b.set_mark(c, &s, d("90"));
        let e = b.check_new(1, c, &s, &buy("0.001")).unwrap_err();
        assert_eq!(e.reason, OrdRejReason::PriceExceedsBand);
        b.set_mark(c, &s, d("100"));
        b.set_kill_switch(None, true);
        let e = b.check_new(1, c, &s, &buy("0.001")).unwrap_err();
        assert_eq!(e.reason, OrdRejReason::KillSwitch);
        b.set_kill_switch(Some(0), false);
        assert!(b.check_new(1, c, &s, &buy("0.001")).is_ok());
    }

    #[test]
    fn a_drained_session_refuses_new_orders_until_resumed() {
        let b = book();
        let s = Symbol::new("BTCUSDT").unwrap();
        let c = Category::UsdtFutures;
        assert!(!b.set_draining(99, true), "unknown session");
        assert_eq!(b.sessions_draining(), 0);
        assert!(b.set_draining(1, true));
        assert!(b.session_draining(1));
        assert_eq!(b.sessions_draining(), 1);
        let e = b.check_new(1, c, &s, &buy("0.001")).unwrap_err();
        assert_eq!(e.reason, DRAINING_REASON);
        assert_eq!(e.text, DRAINING_TEXT);
        assert_eq!(b.session_open_orders(1), 0, "nothing reserved");
        // Modifies pass: open orders can finish.
        assert!(b.check_replace(1, c, &s, &buy("0.001")).is_ok());
        // The kill switch is checked first (its reason wins).
        b.set_kill_switch(Some(0), true);
        let e = b.check_new(1, c, &s, &buy("0.001")).unwrap_err();
        assert_eq!(e.reason, OrdRejReason::KillSwitch);
        b.set_kill_switch(Some(0), false);
        assert!(b.set_draining(1, false));
        assert!(!b.session_draining(1));
        assert!(b.check_new(1, c, &s, &buy("0.001")).is_ok());
    }

    /// The exchange's band is one-sided (buys above, sells below) and inclusive; the caps
    /// count the account's open orders per symbol and product line, and free a slot when an
    /// order ends or is released.
    #[test]
    fn restored_open_orders_count_like_new_ones_and_end_like_them() {
        let b = book();
        let s = Symbol::new("BTCUSDT").unwrap();
        let c = Category::UsdtFutures;
        b.restore_open(1, c, &s, Side::Buy, d("0.002"));
        b.restore_open(99, c, &s, Side::Buy, d("0.002")); // unknown session: nothing
        assert_eq!(b.session_open_orders(1), 1);
        assert_eq!(b.account_open_orders_in(0, c, &s), (1, 1));
        // The session's max_open_orders (1) is reached by the restored order.
        let e = b.check_new(1, c, &s, &buy("0.001")).unwrap_err();
        assert_eq!(e.reason, OrdRejReason::RiskLimit, "{e:?}");
        assert_eq!(e.text, "risk: session.max_open_orders 1 >= 1");
        // Its end gives the counts back, as a new order's does.
        b.on_order_end(1, c, &s, Side::Buy, d("0.002"));
        assert_eq!(b.session_open_orders(1), 0);
        assert_eq!(b.account_open_orders_in(0, c, &s), (0, 0));
        assert!(b.check_new(1, c, &s, &buy("0.001")).is_ok());
    }

    #[test]
    fn exchange_band_and_open_order_caps() {
        let grants = [SessionGrant {
            session_id: 1,
            ..SessionGrant::default()
        }];
        let b = RiskBook::new(&grants, 1, &RiskSettings::default());
        let inst = |sym: &str| RiskInstrument {
            category: Category::UsdtFutures,
            symbol: Symbol::new(sym).unwrap(),
            lot: d("0.001"),
            buy_ratio: Some(d("0.05")),
            sell_ratio: Some(d("0.05")),
            max_symbol_orders: Some(2),
            max_product_orders: Some(3),
        };
        b.set_instruments(vec![inst("BTCUSDT"), inst("ETHUSDT")]);
        let c = Category::UsdtFutures;
        let btc = Symbol::new("BTCUSDT").unwrap();
        let eth = Symbol::new("ETHUSDT").unwrap();
        b.set_mark(c, &btc, d("100"));
        let o = |side, px: &str| OrderView {
            side,
            ord_type: OrdType::Limit,
            price: Some(d(px)),
            qty: d("0.001"),
        };
        let e = b.check_new(1, c, &btc, &o(Side::Buy, "105.1")).unwrap_err();
        assert_eq!(e.reason, OrdRejReason::PriceExceedsBand);
        assert_eq!(e.text, "pre-empts 25206: 105.1 beyond mark 100 +5%");
        let e = b.check_new(1, c, &btc, &o(Side::Sell, "94.9")).unwrap_err();
        assert_eq!(e.text, "pre-empts 25205: 94.9 beyond mark 100 -5%");
        // Far below (buy) / above (sell) and the bounds themselves pass.
        let r1 = b.check_new(1, c, &btc, &o(Side::Buy, "105")).unwrap();
        b.check_new(1, c, &btc, &o(Side::Sell, "95")).unwrap();
        let e = b.check_new(1, c, &btc, &o(Side::Buy, "1")).unwrap_err();
        assert_eq!(e.reason, OrdRejReason::OrderExceedsLimit);
        assert_eq!(e.text, "pre-empts 25211: 2 open orders (maxSymbolOrderNum)");
        b.check_new(1, c, &eth, &o(Side::Buy, "1")).unwrap();
        let e = b.check_new(1, c, &eth, &o(Side::Buy, "1")).unwrap_err();
        assert_eq!(
            e.text,
            "pre-empts 25211: 3 open orders (maxProductOrderNum)"
        );
        assert_eq!(b.account_open_orders_in(0, c, &btc), (2, 3));
        b.release(r1);
        b.on_order_end(1, c, &eth, Side::Buy, d("0.001"));
        assert_eq!(b.account_open_orders_in(0, c, &btc), (1, 1));
        b.check_new(1, c, &eth, &o(Side::Buy, "1")).unwrap();
        // Replace: the band only.
        let e = b
            .check_replace(1, c, &btc, &o(Side::Buy, "106"))
            .unwrap_err();
        assert_eq!(e.reason, OrdRejReason::PriceExceedsBand);
        assert!(b.check_replace(1, c, &btc, &o(Side::Buy, "50")).is_ok());
    }
}
