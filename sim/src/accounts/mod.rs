//! Accounts without I/O: master and sub-accounts, balances per coin, futures positions,
//! leverage, position mode, order-entry checks and financial records. Time comes in as
//! `now_ms`; mark prices come in as a [`Marks`] map built by the caller.
//!
//! Model (documented choices, reference §4.4/§4.5/§7):
//! - cross margin only; the margin coin of a futures instrument is its quote coin;
//! - coin equity = balance (+ unrealised PnL of the positions margined in that coin); USD value
//!   = equity × the mark of `{COIN}USDT` (USDT and USDC count 1:1, coins without a book 0);
//! - initial margin of a position = size × mark ÷ leverage; maintenance margin = size × mark ×
//!   the instrument's `maintenance_margin_rate`; account `mmr` = Σ maintenance margin ÷ total
//!   equity, `imr` = Σ initial margin ÷ total equity;
//! - available of a coin = equity − initial margin of its positions (never below 0); no amount
//!   is locked by pending orders (`locked` is `"0"`): entry checks look at the balance and
//!   positions only;
//! - spot and margin fills move base and quote balances, fees in the quote coin;
//! - futures fills move positions ([`positions`]); realised PnL and fees settle in the margin
//!   coin at once.

pub mod json;
pub mod num;
pub mod positions;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap, VecDeque};

use codec::Decimal;

use crate::config::{AccountConfig, AccountLevel, Category, HoldMode, InstrumentConfig};
use crate::matching::{AccountId, PosSide, Reject, Side};
use num::{add, div, mul, non_neg, sub};
use positions::{FuturesFill, PosKey, Position};

/// Mark prices by (category, symbol).
pub type Marks = HashMap<(Category, String), Decimal>;

/// Financial records an account keeps (`GET /api/v3/account/financial-records` pages through
/// them), the oldest leaving first: 100 000, about 22 MiB (a record and its two short
/// strings) per account that trades. The ring is allocated once, full-sized, at the account's
/// first record and never grows or moves: the former `Vec` dropped its oldest 10 000 by
/// moving the other 90 000 (~16 MiB) under the venue lock every 10 000 fills.
pub const RECORDS_KEPT: usize = 100_000;

/// Default leverage of a symbol or coin without a `set-leverage`.
pub const DEFAULT_LEVERAGE: i64 = 10;

/// One financial record (a fill's fee and realised PnL), `GET /api/v3/account/financial-records`.
#[derive(Debug, Clone)]
pub struct FinancialRecord {
    /// Record id (increasing).
    pub id: u64,
    /// Product line.
    pub category: Category,
    /// Symbol.
    pub symbol: String,
    /// Coin the amounts are in.
    pub coin: String,
    /// `trade` (a spot / margin fill) or the futures fill's `open`, `close` or `close_open`
    /// (a fixed set: no allocation per fill).
    pub kind: &'static str,
    /// Balance change of `coin` (realised PnL − fee for futures; for spot the quote change).
    pub amount: Decimal,
    /// Fee, negative = paid.
    pub fee: Decimal,
    /// Realised PnL (futures; 0 for spot).
    pub pnl: Decimal,
    /// Balance of `coin` after the record.
    pub balance: Decimal,
    /// Size of the position after the fill (futures; 0 for spot), `positionAmount`.
    pub position_size: Decimal,
    /// Time, ms.
    pub ts_ms: u64,
}

/// State of one account.
#[derive(Debug, Clone)]
pub struct AccountState {
    /// Uid.
    pub uid: String,
    /// Master account (itself for a master).
    pub master: AccountId,
    /// On the move-positions whitelist.
    pub move_whitelist: bool,
    /// Account mode.
    pub level: AccountLevel,
    /// Position mode.
    pub hold_mode: HoldMode,
    /// Unified-account balances per coin (wallet balance, realised PnL and fees included).
    pub balances: BTreeMap<String, Decimal>,
    /// Funding-account balances per coin.
    pub funding: BTreeMap<String, Decimal>,
    /// Leverage per futures symbol.
    pub leverage: HashMap<(Category, String), Decimal>,
    /// Leverage per coin (spot margin).
    pub coin_leverage: BTreeMap<String, Decimal>,
    /// Open positions.
    pub positions: BTreeMap<PosKey, Position>,
    /// Financial records, oldest first: the last [`RECORDS_KEPT`] (a ring allocated full-sized
    /// at the account's first record).
    pub records: VecDeque<FinancialRecord>,
}

/// Why an account request was refused (with its Bitget code).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AccountError {
    /// Spot balance too small (`25202`).
    #[error("Insufficient balance")]
    InsufficientBalance,
    /// Futures margin too small (`25203`).
    #[error("Insufficient margin")]
    InsufficientMargin,
    /// Reduce-only / close without a position to close (`25227`).
    #[error("No position to close")]
    NoPosition,
    /// Hedge-mode close larger than the position (`25231`).
    #[error("The close order size is greater than the position")]
    CloseTooLarge,
    /// Reduce-only on an opening hedge-mode order (`25232`).
    #[error("Reduce-only order conflicts with the position side")]
    ReduceOnlyConflict,
    /// Hold-mode change with positions or pending orders (`40920`, Bitget's code for this rule).
    #[error("Position or order exists, the position mode cannot be switched")]
    PositionsOrOrders,
    /// A parameter is missing or malformed (`40017`).
    #[error("Parameter verification failed: {0}")]
    Param(String),
    /// Not allowed in this account mode or for this key (`40014`).
    #[error("Incorrect permissions, need {0} permissions")]
    Permission(String),
}

impl AccountError {
    /// The Bitget code.
    pub fn code(&self) -> u32 {
        match self {
            AccountError::InsufficientBalance => 25202,
            AccountError::InsufficientMargin => 25203,
            AccountError::NoPosition => 25227,
            AccountError::CloseTooLarge => 25231,
            AccountError::ReduceOnlyConflict => 25232,
            AccountError::PositionsOrOrders => 40920,
            AccountError::Param(_) => 40017,
            AccountError::Permission(_) => 40014,
        }
    }

    /// As a matching-engine reject (for trade replies).
    pub fn reject(&self) -> Reject {
        Reject::new(self.code(), self.to_string())
    }
}

/// An order to check before it enters the book.
#[derive(Debug, Clone)]
pub struct OrderCheck<'a> {
    /// Instrument.
    pub inst: &'a InstrumentConfig,
    /// Side.
    pub side: Side,
    /// Quantity (base coin; quote coin for spot market buys).
    pub qty: Decimal,
    /// Limit price, or `None` for a market order.
    pub price: Option<Decimal>,
    /// `posSide` as sent.
    pub pos_side: Option<PosSide>,
    /// Reduce-only.
    pub reduce_only: bool,
}

/// All accounts.
#[derive(Debug, Clone, Default)]
pub struct Accounts {
    accounts: Vec<AccountState>,
    next_record: u64,
}

/// What a fill changed (for the `account` and `position` pushes).
#[derive(Debug, Clone, Default)]
pub struct FillEffect {
    /// Positions after the fill (size 0 = closed).
    pub positions: Vec<Position>,
}

impl Accounts {
    /// Accounts from the configuration (index = [`AccountId`]); masters are found by uid.
    pub fn new(cfg: &[AccountConfig]) -> Accounts {
        let accounts = cfg
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let master = a
                    .master_uid
                    .as_ref()
                    .and_then(|m| cfg.iter().position(|x| &x.uid == m))
                    .unwrap_or(i);
                let mut balances = BTreeMap::new();
                for b in &a.balances {
                    let e = balances.entry(b.coin.clone()).or_insert(Decimal::ZERO);
                    *e = add(*e, b.amount);
                }
                let mut funding = BTreeMap::new();
                for b in &a.funding_balances {
                    let e = funding.entry(b.coin.clone()).or_insert(Decimal::ZERO);
                    *e = add(*e, b.amount);
                }
                AccountState {
                    uid: a.uid.clone(),
                    master: AccountId(u32::try_from(master).unwrap_or(u32::MAX - 1)),
                    move_whitelist: a.move_positions_whitelist,
                    level: a.account_level,
                    hold_mode: a.hold_mode,
                    balances,
                    funding,
                    leverage: HashMap::new(),
                    coin_leverage: BTreeMap::new(),
                    positions: BTreeMap::new(),
                    records: VecDeque::new(),
                }
            })
            .collect();
        Accounts {
            accounts,
            next_record: 1,
        }
    }

    /// An account's state.
    pub fn get(&self, id: AccountId) -> Option<&AccountState> {
        self.accounts.get(id.0 as usize)
    }

    /// An account's state, mutable.
    pub fn get_mut(&mut self, id: AccountId) -> Option<&mut AccountState> {
        self.accounts.get_mut(id.0 as usize)
    }

    /// STP parties: each account → its master.
    pub fn stp_parties(&self) -> HashMap<AccountId, AccountId> {
        self.accounts
            .iter()
            .enumerate()
            .map(|(i, a)| {
                (
                    AccountId(u32::try_from(i).unwrap_or(u32::MAX - 1)),
                    a.master,
                )
            })
            .collect()
    }

    /// Checks an order against balances, margin and positions. `Ok(Some(q))` = accept with the
    /// quantity trimmed to `q` (one-way reduce-only larger than the position, reference §8).
    pub fn check_order(
        &self,
        owner: AccountId,
        o: &OrderCheck<'_>,
        marks: &Marks,
    ) -> Result<Option<Decimal>, AccountError> {
        let Some(acct) = self.get(owner) else {
            return Ok(None);
        };
        let inst = o.inst;
        if !inst.category.is_futures() {
            if inst.category == Category::Margin && acct.level == AccountLevel::Basic {
                return Err(AccountError::Permission("advanced account mode".into()));
            }
            let bal = |c: &str| acct.balances.get(c).copied().unwrap_or(Decimal::ZERO);
            match o.side {
                Side::Buy => {
                    let need = match o.price {
                        Some(p) => mul(mul(p, o.qty), add(Decimal::ONE, inst.taker_fee_rate)),
                        None => o.qty,
                    };
                    if need > bal(&inst.quote_coin) {
                        return Err(AccountError::InsufficientBalance);
                    }
                }
                Side::Sell => {
                    if o.qty > bal(&inst.base_coin) {
                        return Err(AccountError::InsufficientBalance);
                    }
                }
            }
            return Ok(None);
        }
        let key = |s: PosSide| (inst.category, inst.symbol.clone(), s);
        let size_of = |s: PosSide| {
            acct.positions
                .get(&key(s))
                .map(|p| p.size)
                .unwrap_or(Decimal::ZERO)
        };
        let mut trimmed = None;
        let open_qty = match acct.hold_mode {
            HoldMode::OneWayMode => {
                let against = size_of(positions::reduced_side(o.side));
                if o.reduce_only {
                    if !against.is_positive() {
                        return Err(AccountError::NoPosition);
                    }
                    if o.qty > against {
                        trimmed = Some(against);
                    }
                    Decimal::ZERO
                } else {
                    non_neg(sub(o.qty, against))
                }
            }
            HoldMode::HedgeMode => {
                let ps = o
                    .pos_side
                    .ok_or_else(|| AccountError::Param("posSide".into()))?;
                if positions::hedge_opens(o.side, ps) {
                    if o.reduce_only {
                        return Err(AccountError::ReduceOnlyConflict);
                    }
                    o.qty
                } else {
                    let have = size_of(ps);
                    if !have.is_positive() {
                        return Err(AccountError::NoPosition);
                    }
                    // Pending close orders hold part of the position (`frozen`): a new close
                    // order may close at most what is `available`.
                    let available = acct
                        .positions
                        .get(&key(ps))
                        .map(Position::available)
                        .unwrap_or(Decimal::ZERO);
                    if o.qty > available {
                        return Err(AccountError::CloseTooLarge);
                    }
                    Decimal::ZERO
                }
            }
        };
        if open_qty.is_positive() {
            let mark = marks
                .get(&(inst.category, inst.symbol.clone()))
                .copied()
                .unwrap_or(Decimal::ZERO);
            let price = o.price.unwrap_or(mark);
            let lev = self.leverage(owner, inst.category, &inst.symbol);
            let need = add(
                div(mul(price, open_qty), lev),
                mul(mul(price, open_qty), inst.taker_fee_rate),
            );
            if need > self.available(owner, &inst.quote_coin, marks) {
                return Err(AccountError::InsufficientMargin);
            }
        }
        Ok(trimmed)
    }

    /// Leverage of a futures symbol (default [`DEFAULT_LEVERAGE`]).
    pub fn leverage(&self, owner: AccountId, category: Category, symbol: &str) -> Decimal {
        self.get(owner)
            .and_then(|a| a.leverage.get(&(category, symbol.to_string())).copied())
            .unwrap_or(Decimal::from(DEFAULT_LEVERAGE))
    }

    /// Unrealised PnL of the positions margined in `coin`.
    pub fn unrealised(&self, owner: AccountId, coin: &str, marks: &Marks) -> Decimal {
        let Some(a) = self.get(owner) else {
            return Decimal::ZERO;
        };
        a.positions
            .values()
            .filter(|p| p.margin_coin == coin)
            .fold(Decimal::ZERO, |acc, p| {
                add(acc, p.unrealised(mark_of(marks, p)))
            })
    }

    /// Initial margin of the positions margined in `coin`.
    pub fn initial_margin(&self, owner: AccountId, coin: &str, marks: &Marks) -> Decimal {
        let Some(a) = self.get(owner) else {
            return Decimal::ZERO;
        };
        a.positions
            .values()
            .filter(|p| p.margin_coin == coin)
            .fold(Decimal::ZERO, |acc, p| {
                let lev = self.leverage(owner, p.category, &p.symbol);
                add(acc, div(mul(p.size, mark_of(marks, p)), lev))
            })
    }

    /// Equity of a coin: balance + unrealised PnL.
    pub fn equity(&self, owner: AccountId, coin: &str, marks: &Marks) -> Decimal {
        let bal = self
            .get(owner)
            .and_then(|a| a.balances.get(coin).copied())
            .unwrap_or(Decimal::ZERO);
        add(bal, self.unrealised(owner, coin, marks))
    }

    /// Available of a coin: equity − initial margin, at least 0.
    pub fn available(&self, owner: AccountId, coin: &str, marks: &Marks) -> Decimal {
        non_neg(sub(
            self.equity(owner, coin, marks),
            self.initial_margin(owner, coin, marks),
        ))
    }

    /// Applies a fill of `owner` on `inst`; returns the changed positions.
    #[allow(clippy::too_many_arguments)]
    pub fn apply_fill(
        &mut self,
        owner: AccountId,
        inst: &InstrumentConfig,
        side: Side,
        pos_side: Option<PosSide>,
        reduce_only: bool,
        price: Decimal,
        qty: Decimal,
        fee: Decimal,
        now_ms: u64,
    ) -> FillEffect {
        let id = self.next_record;
        let Some(acct) = self.accounts.get_mut(owner.0 as usize) else {
            return FillEffect::default();
        };
        let quote = inst.quote_coin.clone();
        let value = mul(price, qty);
        let mut effect = FillEffect::default();
        let (amount, pnl, kind) = if inst.category.is_futures() {
            let r = positions::apply_fill(
                &mut acct.positions,
                acct.hold_mode,
                &FuturesFill {
                    category: inst.category,
                    symbol: &inst.symbol,
                    coin: &quote,
                    side,
                    pos_side,
                    reduce_only,
                    price,
                    qty,
                    fee,
                },
                now_ms,
            );
            effect.positions = r.changed;
            let amount = sub(r.realised, fee);
            let bal = acct.balances.entry(quote.clone()).or_insert(Decimal::ZERO);
            *bal = add(*bal, amount);
            (amount, r.realised, r.kind)
        } else {
            let base = acct
                .balances
                .entry(inst.base_coin.clone())
                .or_insert(Decimal::ZERO);
            let (base_delta, quote_delta) = match side {
                Side::Buy => (qty, sub(Decimal::ZERO, add(value, fee))),
                Side::Sell => (sub(Decimal::ZERO, qty), sub(value, fee)),
            };
            *base = add(*base, base_delta);
            let q = acct.balances.entry(quote.clone()).or_insert(Decimal::ZERO);
            *q = add(*q, quote_delta);
            (quote_delta, Decimal::ZERO, "trade")
        };
        let balance = acct.balances.get(&quote).copied().unwrap_or(Decimal::ZERO);
        let position_size = effect
            .positions
            .last()
            .map(|p| p.size)
            .unwrap_or(Decimal::ZERO);
        if acct.records.capacity() == 0 {
            acct.records.reserve_exact(RECORDS_KEPT);
        }
        if acct.records.len() >= RECORDS_KEPT {
            acct.records.pop_front();
        }
        acct.records.push_back(FinancialRecord {
            id,
            category: inst.category,
            symbol: inst.symbol.clone(),
            coin: quote,
            kind,
            amount,
            fee: sub(Decimal::ZERO, fee),
            pnl,
            balance,
            position_size,
            ts_ms: now_ms,
        });
        self.next_record = self.next_record.wrapping_add(1);
        effect
    }

    /// `set-hold-mode`: refused with positions or pending orders (`has_orders`).
    pub fn set_hold_mode(
        &mut self,
        owner: AccountId,
        mode: HoldMode,
        has_orders: bool,
    ) -> Result<(), AccountError> {
        let Some(a) = self.get_mut(owner) else {
            return Err(AccountError::Param("account".into()));
        };
        if a.hold_mode == mode {
            return Ok(());
        }
        if has_orders || !a.positions.is_empty() {
            return Err(AccountError::PositionsOrOrders);
        }
        a.hold_mode = mode;
        Ok(())
    }

    /// `set-leverage` of a futures symbol (1..=`max`).
    pub fn set_leverage(
        &mut self,
        owner: AccountId,
        category: Category,
        symbol: &str,
        leverage: Decimal,
    ) -> Result<(), AccountError> {
        check_leverage(leverage)?;
        let a = self
            .get_mut(owner)
            .ok_or_else(|| AccountError::Param("account".into()))?;
        a.leverage.insert((category, symbol.to_string()), leverage);
        Ok(())
    }

    /// `set-leverage` of a coin (spot margin).
    pub fn set_coin_leverage(
        &mut self,
        owner: AccountId,
        coin: &str,
        leverage: Decimal,
    ) -> Result<(), AccountError> {
        check_leverage(leverage)?;
        let a = self
            .get_mut(owner)
            .ok_or_else(|| AccountError::Param("account".into()))?;
        a.coin_leverage.insert(coin.to_string(), leverage);
        Ok(())
    }
}

/// Highest leverage (the instruments' `maxLeverage`).
pub const MAX_LEVERAGE: i64 = 125;

fn check_leverage(l: Decimal) -> Result<(), AccountError> {
    if l < Decimal::ONE || l > Decimal::from(MAX_LEVERAGE) || l.normalized().exponent() < 0 {
        return Err(AccountError::Param("leverage".into()));
    }
    Ok(())
}

/// The mark of a position's symbol (its average price when no mark is known).
pub fn mark_of(marks: &Marks, p: &Position) -> Decimal {
    marks
        .get(&(p.category, p.symbol.clone()))
        .copied()
        .unwrap_or(p.avg_price)
}
