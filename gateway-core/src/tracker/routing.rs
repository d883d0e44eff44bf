//! Routing by account on the tracker's thread: which sessions belong to which account and
//! role ([`Routing`], generic over the shell's writer so that the gateway and the
//! deterministic simulator route alike), the drop copies of every ExecutionReport /
//! OrderCancelReject ([`is_drop_copied`]), and the `position` / `account` pushes turned into
//! PositionReport (PosReqID 0) and AccountBalanceReport (one per coin) for every session of the
//! account the push came from ([`account_updates`]).

use std::collections::BTreeMap;

use codec::json::{CoinPush, Inbound, PositionPush};
use codec::sbe::{AccountBalanceReport, Category, ExecType, HoldMode, PositionReport, Symbol};

use super::report::ReportMsg;
use crate::types::SessionRole;

/// One open session as the router knows it.
#[derive(Debug)]
struct Route<W> {
    account: usize,
    role: SessionRole,
    out: W,
}

/// Sessions by id with their account, role and writer `W` (the shell's
/// `Arc<SessionOut>`; whatever a simulator writes to). Kept in SessionID order, so that the
/// drop copies and account updates of one report go out in the same order on every run.
#[derive(Debug)]
pub struct Routing<W> {
    sessions: BTreeMap<u64, Route<W>>,
}

impl<W> Default for Routing<W> {
    fn default() -> Self {
        Routing {
            sessions: BTreeMap::new(),
        }
    }
}

/// A position or balance update for the sessions of one account.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AccountUpdate {
    /// From a `position` push.
    Position(PositionReport),
    /// From an `account` push (one per coin).
    Balance(AccountBalanceReport),
}

impl AccountUpdate {
    /// Encodes the message as a SOFH frame.
    pub fn encode_frame(&self, buf: &mut Vec<u8>) {
        match self {
            AccountUpdate::Position(m) => m.encode_frame(buf),
            AccountUpdate::Balance(m) => m.encode_frame(buf),
        }
    }
}

impl<W> Routing<W> {
    /// A session was established on `account` with `role`; its messages go to `out`.
    pub fn open(&mut self, session_id: u64, account: usize, role: SessionRole, out: W) {
        self.sessions
            .insert(session_id, Route { account, role, out });
    }

    /// A session is gone (nothing is routed to it any more).
    pub fn close(&mut self, session_id: u64) {
        self.sessions.remove(&session_id);
    }

    /// The writers of the drop-copy sessions of the account `session_id` trades on (not the
    /// session itself), in SessionID order.
    pub fn drop_copies(&self, session_id: u64) -> impl Iterator<Item = &W> {
        let account = self.sessions.get(&session_id).map(|r| r.account);
        self.sessions.iter().filter_map(move |(id, r)| {
            (Some(r.account) == account && r.role == SessionRole::DropCopy && *id != session_id)
                .then_some(&r.out)
        })
    }

    /// The writers of every session (any role) of `account`, in SessionID order.
    pub fn account_sessions(&self, account: usize) -> impl Iterator<Item = &W> {
        self.sessions
            .values()
            .filter(move |r| r.account == account)
            .map(|r| &r.out)
    }
}

/// True for the reports drop-copy sessions get: ExecutionReports of order events (not the
/// OrderStatus answers to a mass status request) and OrderCancelRejects.
pub fn is_drop_copied(msg: &ReportMsg) -> bool {
    match msg {
        ReportMsg::Exec(er) => er.exec_type != ExecType::OrderStatus,
        ReportMsg::CancelReject(_) => true,
        _ => false,
    }
}

/// Calls `f` with each update a `position` or `account` push gives (nothing for other frames).
/// `utc_ns` is the TransactTime when the push carries no time. Positions whose symbol does not
/// fit the SBE field or whose category cannot be told are skipped.
pub fn account_updates(inbound: &Inbound<'_>, utc_ns: u64, mut f: impl FnMut(AccountUpdate)) {
    match inbound {
        Inbound::Positions { ts_ms, positions } => {
            for p in positions {
                if let Some(r) = position_report(p, ms_or(*ts_ms, utc_ns)) {
                    f(AccountUpdate::Position(r));
                }
            }
        }
        Inbound::Account { ts_ms, coins, .. } => {
            for c in coins {
                if let Some(r) = balance_report(c, ms_or(*ts_ms, utc_ns)) {
                    f(AccountUpdate::Balance(r));
                }
            }
        }
        _ => {}
    }
}

fn ms_or(ms: u64, utc_ns: u64) -> u64 {
    if ms == 0 {
        utc_ns
    } else {
        ms.saturating_mul(1_000_000)
    }
}

/// PositionReport (PosReqID 0) of one `position` push item.
pub fn position_report(p: &PositionPush<'_>, default_ns: u64) -> Option<PositionReport> {
    let category: Category = p.category_or_inferred()?.into();
    let transact_time = if p.updated_time_ms == 0 {
        default_ns
    } else {
        p.updated_time_ms.saturating_mul(1_000_000)
    };
    Some(PositionReport {
        pos_req_id: 0,
        transact_time,
        symbol: Symbol::new(p.symbol).ok()?,
        category,
        pos_side: p.pos_side.into(),
        hold_mode: p.hold_mode.map(HoldMode::from),
        position_size: p.size,
        avg_px: p.avg_price.filter(|_| !p.size.is_zero()),
        unrealised_pnl: p.unrealised_pnl,
        realised_pnl: p.cur_realised_pnl,
        leverage: p.leverage,
        mark_price: p.mark_price,
        liquidation_price: p.liq_price,
    })
}

/// AccountBalanceReport of one coin of an `account` push (the push gives no per-coin
/// unrealised PnL: `None`).
pub fn balance_report(c: &CoinPush<'_>, transact_time: u64) -> Option<AccountBalanceReport> {
    Some(AccountBalanceReport {
        transact_time,
        coin: Symbol::new(c.coin).ok()?,
        equity: c.equity,
        balance: c.balance,
        available: c.available,
        locked: c.locked,
        unrealised_pnl: None,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use codec::json::JsonParser;
    use codec::Decimal;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    const POSITION: &[u8] = br#"{"action":"snapshot","arg":{"instType":"UTA","topic":"position"},"data":[{"symbol":"BTCUSDT","marginCoin":"USDT","holdMode":"hedge_mode","posSide":"short","size":"0.0002","avgPrice":"117066.1","leverage":"10","curRealisedPnl":"0","unrealisedPnl":"-0.01122","liqPrice":"3271394.4","markPrice":"117122.2","updatedTime":"1758185294053"},{"symbol":"ETHUSD","marginCoin":"ETH","posSide":"long","size":"0","avgPrice":"3000","updatedTime":""}],"ts":1758186381497}"#;
    const ACCOUNT: &[u8] = br#"{"arg":{"instType":"UTA","topic":"account"},"data":[{"unrealisedPnL":"1","coin":[{"coin":"USDT","balance":"10","locked":"1","equity":"11","available":"9"},{"coin":"BTC","balance":"2","equity":"2","available":"2"}]}],"ts":1758113442410}"#;

    #[test]
    fn position_push_gives_one_report_per_position() {
        let mut p = JsonParser::new();
        let inbound = p.parse(POSITION).unwrap();
        let mut got = Vec::new();
        account_updates(&inbound, 7, |u| got.push(u));
        assert_eq!(got.len(), 2);
        let AccountUpdate::Position(r) = got[0] else {
            panic!("{got:?}")
        };
        assert_eq!(r.pos_req_id, 0);
        assert_eq!(r.transact_time, 1758185294053 * 1_000_000);
        assert_eq!(r.symbol.as_str(), "BTCUSDT");
        assert_eq!(r.category, Category::UsdtFutures);
        assert_eq!(r.pos_side, codec::sbe::PosSide::Short);
        assert_eq!(r.hold_mode, Some(HoldMode::Hedge));
        assert_eq!(r.position_size, d("0.0002"));
        assert_eq!(r.avg_px, Some(d("117066.1")));
        assert_eq!(r.unrealised_pnl, Some(d("-0.01122")));
        assert_eq!(r.realised_pnl, Some(d("0")));
        assert_eq!(r.leverage, Some(d("10")));
        assert_eq!(r.mark_price, Some(d("117122.2")));
        assert_eq!(r.liquidation_price, Some(d("3271394.4")));
        let AccountUpdate::Position(closed) = got[1] else {
            panic!("{got:?}")
        };
        assert_eq!(closed.category, Category::CoinFutures);
        assert_eq!(closed.position_size, d("0"));
        assert_eq!(closed.avg_px, None, "flat: no average price");
        assert_eq!(closed.hold_mode, None);
        assert_eq!(closed.transact_time, 1758186381497 * 1_000_000);
    }

    #[test]
    fn account_push_gives_one_report_per_coin() {
        let mut p = JsonParser::new();
        let inbound = p.parse(ACCOUNT).unwrap();
        let mut got = Vec::new();
        account_updates(&inbound, 7, |u| got.push(u));
        let coins: Vec<_> = got
            .iter()
            .map(|u| match u {
                AccountUpdate::Balance(b) => (
                    b.coin.as_str().to_owned(),
                    b.balance,
                    b.locked,
                    b.equity,
                    b.available,
                    b.transact_time,
                ),
                other => panic!("{other:?}"),
            })
            .collect();
        let t = 1758113442410 * 1_000_000;
        assert_eq!(
            coins,
            vec![
                ("USDT".to_owned(), d("10"), d("1"), d("11"), d("9"), t),
                ("BTC".to_owned(), d("2"), d("0"), d("2"), d("2"), t),
            ]
        );
        let mut p2 = JsonParser::new();
        let other = p2.parse(br#"{"arg":{"topic":"books"},"data":[]}"#).unwrap();
        account_updates(&other, 7, |u| panic!("{u:?}"));
    }

    #[test]
    fn routes_by_account_and_role() {
        // Writers named by a letter; opened out of SessionID order.
        let mut r = Routing::default();
        r.open(5, 0, SessionRole::Operator, 'e');
        r.open(3, 1, SessionRole::Trading, 'c');
        r.open(1, 0, SessionRole::Trading, 'a');
        r.open(6, 0, SessionRole::DropCopy, 'f');
        r.open(2, 0, SessionRole::DropCopy, 'b');
        r.open(4, 1, SessionRole::DropCopy, 'd');
        let copies: String = r.drop_copies(1).collect();
        assert_eq!(
            copies, "bf",
            "both drop copies of account 0, in SessionID order"
        );
        let copies: String = r.drop_copies(3).collect();
        assert_eq!(copies, "d");
        assert_eq!(
            r.drop_copies(2).collect::<String>(),
            "f",
            "a drop copy is not copied to itself"
        );
        assert_eq!(r.drop_copies(99).count(), 0);
        assert_eq!(r.account_sessions(0).collect::<String>(), "abef");
        assert_eq!(r.account_sessions(1).collect::<String>(), "cd");
        r.close(2);
        assert_eq!(r.drop_copies(1).collect::<String>(), "f");
        assert_eq!(r.account_sessions(0).collect::<String>(), "aef");

        let pos = position_report(
            &PositionPush {
                category: None,
                symbol: "BTCUSDT",
                margin_coin: "",
                pos_side: None,
                hold_mode: None,
                size: d("1"),
                avg_price: None,
                unrealised_pnl: None,
                cur_realised_pnl: None,
                leverage: None,
                mark_price: None,
                liq_price: None,
                updated_time_ms: 0,
            },
            5,
        );
        assert_eq!(pos, None, "no category and no margin coin: skipped");
    }

    #[test]
    fn drop_copies_are_order_events() {
        let er = |exec_type| {
            let mut e = sample_er();
            e.exec_type = exec_type;
            ReportMsg::Exec(e)
        };
        assert!(is_drop_copied(&er(ExecType::New)));
        assert!(is_drop_copied(&er(ExecType::Fill)));
        assert!(!is_drop_copied(&er(ExecType::OrderStatus)));
    }

    fn sample_er() -> codec::sbe::ExecutionReport {
        codec::sbe::ExecutionReport {
            cl_ord_id: 1,
            orig_cl_ord_id: 0,
            order_id: 0,
            exec_id: 0,
            transact_time: 0,
            price: None,
            order_qty: d("1"),
            last_qty: None,
            last_px: None,
            cum_qty: d("0"),
            leaves_qty: d("1"),
            avg_px: None,
            exchange_code: 0,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            category: Category::UsdtFutures,
            side: codec::sbe::Side::Buy,
            ord_type: codec::sbe::OrdType::Limit,
            time_in_force: codec::sbe::TimeInForce::Gtc,
            exec_type: ExecType::New,
            ord_status: codec::sbe::OrdStatus::New,
            ord_rej_reason: None,
            text: codec::sbe::Text::new(""),
        }
    }
}
