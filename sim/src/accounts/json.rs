//! JSON text of the account and position pushes (fixtures `ws_push_account.json`,
//! `ws_push_position.json`, field order as there) and of the account REST `data` objects
//! (reference §7: assets, settings, current-position, financial-records).

use codec::Decimal;

use super::num::{add, div, mul, s, sub};
use super::positions::Position;
use super::{mark_of, AccountId, Accounts, Marks};
use crate::config::InstrumentConfig;
use crate::render::push_json_str;

/// USD price of a coin: 1 for USDT/USDC, else the mark of `{COIN}USDT` (any category), else 0.
pub fn usd_price(coin: &str, marks: &Marks) -> Decimal {
    if coin == "USDT" || coin == "USDC" {
        return Decimal::ONE;
    }
    let sym = format!("{coin}USDT");
    marks
        .iter()
        .filter(|((_, s), _)| *s == sym)
        .map(|(_, m)| *m)
        .next()
        .unwrap_or(Decimal::ZERO)
}

fn kv(out: &mut String, k: &str, v: &str) {
    if !out.ends_with('{') && !out.ends_with('[') {
        out.push(',');
    }
    push_json_str(out, k);
    out.push(':');
    push_json_str(out, v);
}

/// Account-level figures (USD).
#[derive(Debug, Clone, Copy, Default)]
pub struct Summary {
    /// Σ coin equity × USD price.
    pub total_equity: Decimal,
    /// Σ unrealised PnL (USD).
    pub unrealised: Decimal,
    /// Σ initial margin (USD).
    pub im: Decimal,
    /// Σ maintenance margin (USD).
    pub mm: Decimal,
}

impl Summary {
    /// Maintenance margin ÷ equity (0 without equity).
    pub fn mmr(&self) -> Decimal {
        if self.total_equity.is_positive() {
            div(self.mm, self.total_equity)
        } else {
            Decimal::ZERO
        }
    }

    /// Initial margin ÷ equity (0 without equity).
    pub fn imr(&self) -> Decimal {
        if self.total_equity.is_positive() {
            div(self.im, self.total_equity)
        } else {
            Decimal::ZERO
        }
    }
}

impl Accounts {
    /// Account-level figures of `owner` (`insts` give the maintenance rates).
    pub fn summary(&self, owner: AccountId, insts: &[InstrumentConfig], marks: &Marks) -> Summary {
        let mut sm = Summary::default();
        let Some(a) = self.get(owner) else {
            return sm;
        };
        for coin in a.balances.keys() {
            let px = usd_price(coin, marks);
            sm.total_equity = add(sm.total_equity, mul(self.equity(owner, coin, marks), px));
        }
        for p in a.positions.values() {
            let mark = mark_of(marks, p);
            let px = usd_price(&p.margin_coin, marks);
            let notional = mul(p.size, mark);
            let rate = insts
                .iter()
                .find(|i| i.category == p.category && i.symbol == p.symbol)
                .map(|i| i.maintenance_margin_rate)
                .unwrap_or(Decimal::ZERO);
            let lev = self.leverage(owner, p.category, &p.symbol);
            sm.unrealised = add(sm.unrealised, mul(p.unrealised(mark), px));
            sm.im = add(sm.im, mul(div(notional, lev), px));
            sm.mm = add(sm.mm, mul(mul(notional, rate), px));
        }
        sm
    }

    /// The `data[0]` object of the `account` push.
    pub fn account_push_data(
        &self,
        owner: AccountId,
        insts: &[InstrumentConfig],
        marks: &Marks,
    ) -> String {
        let sm = self.summary(owner, insts, marks);
        let mut o = String::from("{");
        kv(&mut o, "totalEquity", &s(sm.total_equity));
        kv(&mut o, "effEquity", &s(sm.total_equity));
        kv(&mut o, "mmr", &s(sm.mmr()));
        kv(&mut o, "imr", &s(sm.imr()));
        kv(&mut o, "mgnRatio", &s(sm.mmr()));
        kv(&mut o, "positionMgnRatio", &s(sm.mmr()));
        kv(&mut o, "unrealisedPnL", &s(sm.unrealised));
        o.push_str(",\"coin\":[");
        if let Some(a) = self.get(owner) {
            for (coin, bal) in &a.balances {
                let eq = self.equity(owner, coin, marks);
                o.push_str(if o.ends_with('[') { "{" } else { ",{" });
                kv(&mut o, "coin", coin);
                kv(&mut o, "balance", &s(*bal));
                kv(&mut o, "locked", "0");
                kv(&mut o, "equity", &s(eq));
                kv(&mut o, "usdValue", &s(mul(eq, usd_price(coin, marks))));
                kv(&mut o, "available", &s(self.available(owner, coin, marks)));
                kv(&mut o, "borrow", "0");
                kv(&mut o, "debts", "0");
                o.push('}');
            }
        }
        o.push_str("]}");
        o
    }

    /// A complete `account` push (`action` `snapshot`, as the fixture).
    pub fn account_push(
        &self,
        owner: AccountId,
        insts: &[InstrumentConfig],
        marks: &Marks,
        ts_ms: u64,
    ) -> String {
        format!(
            "{{\"action\":\"snapshot\",\"arg\":{{\"instType\":\"UTA\",\"topic\":\"account\"}},\"data\":[{}],\"ts\":{ts_ms}}}",
            self.account_push_data(owner, insts, marks)
        )
    }

    /// The figures both renderings of a position derive: mark, leverage, position margin,
    /// unrealised PnL, maintenance margin rate and the account's hold mode.
    fn position_figures(
        &self,
        owner: AccountId,
        p: &Position,
        insts: &[InstrumentConfig],
        marks: &Marks,
    ) -> PositionFigures {
        let mark = mark_of(marks, p);
        let lev = self.leverage(owner, p.category, &p.symbol);
        PositionFigures {
            mark,
            lev,
            margin: div(mul(p.size, mark), lev),
            upnl: p.unrealised(mark),
            rate: insts
                .iter()
                .find(|i| i.category == p.category && i.symbol == p.symbol)
                .map(|i| i.maintenance_margin_rate)
                .unwrap_or(Decimal::ZERO),
            hold: self
                .get(owner)
                .map(|a| a.hold_mode.as_str())
                .unwrap_or("one_way_mode"),
        }
    }

    /// One position object of the `position` push.
    pub fn position_push_item(
        &self,
        owner: AccountId,
        p: &Position,
        insts: &[InstrumentConfig],
        marks: &Marks,
    ) -> String {
        let PositionFigures {
            mark,
            lev,
            margin,
            upnl,
            rate,
            hold,
        } = self.position_figures(owner, p, insts, marks);
        let mut o = String::from("{");
        kv(&mut o, "symbol", &p.symbol);
        kv(&mut o, "marginCoin", &p.margin_coin);
        kv(&mut o, "marginSize", &s(margin));
        kv(&mut o, "marginMode", "crossed");
        kv(&mut o, "holdMode", hold);
        kv(&mut o, "posSide", p.pos_side.as_str());
        kv(&mut o, "size", &s(p.size));
        kv(&mut o, "available", &s(p.available()));
        kv(&mut o, "frozen", &s(p.frozen_shown()));
        kv(&mut o, "avgPrice", &s(p.avg_price));
        kv(&mut o, "leverage", &s(lev));
        kv(&mut o, "curRealisedPnl", &s(p.realised));
        kv(&mut o, "unrealisedPnl", &s(upnl));
        kv(&mut o, "liqPrice", "0");
        kv(&mut o, "mmr", &s(rate));
        kv(&mut o, "markPrice", &s(mark));
        kv(&mut o, "breakEvenPrice", &s(p.avg_price));
        let profit_rate = if margin.is_positive() {
            div(upnl, margin)
        } else {
            Decimal::ZERO
        };
        kv(&mut o, "profitRate", &s(profit_rate));
        kv(&mut o, "totalFundingFee", "0");
        kv(&mut o, "openFeeTotal", &s(p.open_fee_total));
        kv(&mut o, "closeFeeTotal", &s(p.close_fee_total));
        kv(
            &mut o,
            "positionStatus",
            if p.size.is_positive() {
                "opening"
            } else {
                "ended"
            },
        );
        kv(&mut o, "createdTime", &p.created_ms.to_string());
        kv(&mut o, "updatedTime", &p.updated_ms.to_string());
        o.push('}');
        o
    }

    /// A complete `position` push of `items` (`action` `snapshot`, as the fixture).
    pub fn position_push(
        &self,
        owner: AccountId,
        items: &[Position],
        insts: &[InstrumentConfig],
        marks: &Marks,
        ts_ms: u64,
    ) -> String {
        let mut o = String::from(
            "{\"action\":\"snapshot\",\"arg\":{\"instType\":\"UTA\",\"topic\":\"position\"},\"data\":[",
        );
        for (i, p) in items.iter().enumerate() {
            if i > 0 {
                o.push(',');
            }
            o.push_str(&self.position_push_item(owner, p, insts, marks));
        }
        o.push_str(&format!("],\"ts\":{ts_ms}}}"));
        o
    }

    /// The open positions of `owner` (optionally one category / symbol / side).
    pub fn open_positions(&self, owner: AccountId) -> Vec<Position> {
        self.get(owner)
            .map(|a| a.positions.values().cloned().collect())
            .unwrap_or_default()
    }

    /// `GET /api/v3/account/assets` data.
    pub fn assets_json(
        &self,
        owner: AccountId,
        insts: &[InstrumentConfig],
        marks: &Marks,
    ) -> String {
        let sm = self.summary(owner, insts, marks);
        let btc = usd_price("BTC", marks);
        let mut o = String::from("{");
        kv(&mut o, "accountEquity", &s(sm.total_equity));
        kv(&mut o, "usdtEquity", &s(sm.total_equity));
        kv(
            &mut o,
            "btcEquity",
            &s(if btc.is_positive() {
                div(sm.total_equity, btc)
            } else {
                Decimal::ZERO
            }),
        );
        kv(&mut o, "unrealisedPnl", &s(sm.unrealised));
        kv(&mut o, "usdtUnrealisedPnl", &s(sm.unrealised));
        kv(
            &mut o,
            "btcUnrealizedPnl",
            &s(if btc.is_positive() {
                div(sm.unrealised, btc)
            } else {
                Decimal::ZERO
            }),
        );
        kv(&mut o, "effEquity", &s(sm.total_equity));
        kv(&mut o, "mmr", &s(sm.mmr()));
        kv(&mut o, "imr", &s(sm.imr()));
        kv(&mut o, "mgnRatio", &s(sm.mmr()));
        kv(&mut o, "positionMgnRatio", &s(sm.mmr()));
        o.push_str(",\"assets\":[");
        if let Some(a) = self.get(owner) {
            for (coin, bal) in &a.balances {
                let eq = self.equity(owner, coin, marks);
                o.push_str(if o.ends_with('[') { "{" } else { ",{" });
                kv(&mut o, "coin", coin);
                kv(&mut o, "equity", &s(eq));
                kv(&mut o, "usdValue", &s(mul(eq, usd_price(coin, marks))));
                kv(&mut o, "balance", &s(*bal));
                kv(&mut o, "available", &s(self.available(owner, coin, marks)));
                kv(&mut o, "debt", "0");
                kv(&mut o, "locked", "0");
                o.push('}');
            }
        }
        o.push_str("]}");
        o
    }

    /// `GET /api/v3/account/funding-assets` data: `[{coin, available, frozen, balance}]`,
    /// optionally one coin.
    pub fn funding_json(&self, owner: AccountId, coin: Option<&str>) -> String {
        let mut o = String::from("[");
        if let Some(a) = self.get(owner) {
            for (c, bal) in &a.funding {
                if coin.is_some_and(|x| !x.is_empty() && x != c) {
                    continue;
                }
                o.push_str(if o.ends_with('[') { "{" } else { ",{" });
                kv(&mut o, "coin", c);
                kv(&mut o, "available", &s(*bal));
                kv(&mut o, "frozen", "0");
                kv(&mut o, "balance", &s(*bal));
                o.push('}');
            }
        }
        o.push(']');
        o
    }

    /// `GET /api/v3/account/settings` data.
    pub fn settings_json(&self, owner: AccountId) -> String {
        let mut o = String::from("{");
        let Some(a) = self.get(owner) else {
            return "{}".into();
        };
        kv(&mut o, "uid", &a.uid);
        kv(&mut o, "accountMode", "unified");
        kv(&mut o, "accountLevel", a.level.as_str());
        kv(&mut o, "assetMode", "multi_assets");
        kv(&mut o, "holdMode", a.hold_mode.as_str());
        kv(&mut o, "stpMode", "cancel_maker");
        o.push_str(",\"symbolConfigList\":[");
        let mut syms: Vec<_> = a.leverage.iter().collect();
        syms.sort_by(|x, y| x.0.cmp(y.0));
        for ((cat, sym), lev) in syms {
            o.push_str(if o.ends_with('[') { "{" } else { ",{" });
            kv(&mut o, "category", cat.rest_str());
            kv(&mut o, "symbol", sym);
            kv(&mut o, "marginMode", "crossed");
            kv(&mut o, "leverage", &s(*lev));
            o.push('}');
        }
        o.push_str("],\"coinConfigList\":[");
        for (coin, lev) in &a.coin_leverage {
            o.push_str(if o.ends_with('[') { "{" } else { ",{" });
            kv(&mut o, "coin", coin);
            kv(&mut o, "leverage", &s(*lev));
            o.push('}');
        }
        o.push_str("]}");
        o
    }

    /// One position object of `GET /api/v3/position/current-position`.
    pub fn position_rest_item(
        &self,
        owner: AccountId,
        p: &Position,
        insts: &[InstrumentConfig],
        marks: &Marks,
    ) -> String {
        let PositionFigures {
            mark,
            lev,
            margin,
            upnl,
            rate,
            hold,
        } = self.position_figures(owner, p, insts, marks);
        let mut o = String::from("{");
        kv(&mut o, "category", p.category.rest_str());
        kv(&mut o, "symbol", &p.symbol);
        kv(&mut o, "marginCoin", &p.margin_coin);
        kv(&mut o, "holdMode", hold);
        kv(&mut o, "posSide", p.pos_side.as_str());
        kv(&mut o, "marginMode", "crossed");
        kv(&mut o, "positionBalance", &s(margin));
        kv(&mut o, "available", &s(p.available()));
        kv(&mut o, "frozen", &s(p.frozen_shown()));
        kv(&mut o, "total", &s(p.size));
        kv(&mut o, "leverage", &s(lev));
        kv(&mut o, "curRealisedPnl", &s(p.realised));
        kv(&mut o, "avgPrice", &s(p.avg_price));
        kv(&mut o, "positionStatus", "normal");
        kv(&mut o, "unrealisedPnl", &s(upnl));
        kv(&mut o, "liquidationPrice", "0");
        kv(&mut o, "mmr", &s(rate));
        let profit_rate = if margin.is_positive() {
            div(upnl, margin)
        } else {
            Decimal::ZERO
        };
        kv(&mut o, "profitRate", &s(profit_rate));
        kv(&mut o, "markPrice", &s(mark));
        kv(&mut o, "breakEvenPrice", &s(p.avg_price));
        kv(&mut o, "totalFunding", "0");
        kv(&mut o, "openFeeTotal", &s(p.open_fee_total));
        kv(&mut o, "closeFeeTotal", &s(p.close_fee_total));
        kv(&mut o, "createdTime", &p.created_ms.to_string());
        kv(&mut o, "updatedTime", &p.updated_ms.to_string());
        o.push('}');
        o
    }

    /// `GET /api/v3/account/financial-records` data: records of `owner` newest first, ids below
    /// `cursor`, at most `limit`; `{"list":[..],"cursor":"<last id of a full page or empty>"}`.
    /// Item fields as the go-bitget `FinancialRecord` (category, id, symbol, coin, type,
    /// positionType, positionAmount, amount, fee, balance, ts) plus `pnl`.
    pub fn records_json(
        &self,
        owner: AccountId,
        category: Option<crate::config::Category>,
        coin: Option<&str>,
        limit: usize,
        cursor: Option<u64>,
    ) -> String {
        let mut o = String::from("{\"list\":[");
        let mut n = 0usize;
        let mut last = None;
        if let Some(a) = self.get(owner) {
            for r in a.records.iter().rev() {
                if n >= limit {
                    break;
                }
                if cursor.is_some_and(|c| r.id >= c)
                    || category.is_some_and(|c| c != r.category)
                    || coin.is_some_and(|c| !c.is_empty() && c != r.coin)
                {
                    continue;
                }
                o.push_str(if o.ends_with('[') { "{" } else { ",{" });
                kv(&mut o, "category", r.category.rest_str());
                kv(&mut o, "id", &r.id.to_string());
                kv(&mut o, "symbol", &r.symbol);
                kv(&mut o, "coin", &r.coin);
                kv(&mut o, "type", r.kind);
                kv(&mut o, "positionType", "crossed");
                kv(&mut o, "positionAmount", &s(r.position_size));
                kv(&mut o, "amount", &s(r.amount));
                kv(&mut o, "fee", &s(r.fee));
                kv(&mut o, "pnl", &s(r.pnl));
                kv(&mut o, "balance", &s(r.balance));
                kv(&mut o, "ts", &r.ts_ms.to_string());
                o.push('}');
                n += 1;
                last = Some(r.id);
            }
        }
        o.push_str("],\"cursor\":\"");
        if n == limit {
            if let Some(l) = last {
                o.push_str(&l.to_string());
            }
        }
        o.push_str("\"}");
        o
    }

    /// `POST /api/v3/account/max-open-available` data for `inst` at `price` (the mark for market
    /// orders): `maxBuyOpen`/`maxSellOpen` = available × leverage ÷ price (futures; spot: quote
    /// available ÷ price and base available), in base coin, rounded down to the lot.
    pub fn max_open_json(
        &self,
        owner: AccountId,
        inst: &InstrumentConfig,
        price: Decimal,
        marks: &Marks,
    ) -> String {
        let lot = |d: Decimal| {
            let steps = div(d, inst.quantity_multiplier);
            let whole = steps
                .round_to(0, codec::Rounding::Down)
                .unwrap_or(Decimal::ZERO);
            mul(whole, inst.quantity_multiplier)
        };
        let (avail, buy, sell) = if inst.category.is_futures() {
            let avail = self.available(owner, &inst.quote_coin, marks);
            let lev = self.leverage(owner, inst.category, &inst.symbol);
            let q = if price.is_positive() {
                lot(div(mul(avail, lev), price))
            } else {
                Decimal::ZERO
            };
            (avail, q, q)
        } else {
            let bal = |c: &str| {
                self.get(owner)
                    .and_then(|a| a.balances.get(c).copied())
                    .unwrap_or(Decimal::ZERO)
            };
            let avail = bal(&inst.quote_coin);
            let buy = if price.is_positive() {
                lot(div(avail, price))
            } else {
                Decimal::ZERO
            };
            (avail, buy, lot(bal(&inst.base_coin)))
        };
        let cost = |q: Decimal| {
            if inst.category.is_futures() {
                div(
                    mul(q, price),
                    self.leverage(owner, inst.category, &inst.symbol),
                )
            } else {
                mul(q, price)
            }
        };
        let mut o = String::from("{");
        kv(&mut o, "available", &s(avail));
        kv(&mut o, "maxOpen", &s(buy));
        kv(&mut o, "buyOpenCost", &s(cost(buy)));
        kv(&mut o, "sellOpenCost", &s(cost(sell)));
        kv(&mut o, "maxBuyOpen", &s(buy));
        kv(&mut o, "maxSellOpen", &s(sell));
        kv(&mut o, "maxBuyAvailable", &s(sub(avail, cost(buy))));
        kv(&mut o, "maxSellAvailable", &s(sub(avail, cost(sell))));
        o.push('}');
        o
    }
}

/// See [`Accounts::position_figures`].
struct PositionFigures {
    mark: Decimal,
    lev: Decimal,
    margin: Decimal,
    upnl: Decimal,
    rate: Decimal,
    hold: &'static str,
}
