//! The pre-trade risk rules, sans-I/O: one order against one scope's limits and the state the
//! [`super::RiskBook`] read for it. Each refusal names the rule and the scope.

use codec::sbe::{OrdRejReason, OrdType, Side};
use codec::Decimal;

use super::config::RiskLimits;

/// A refusal by a risk rule (or the kill switch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RiskReject {
    /// FIX OrdRejReason: RiskLimit, PriceExceedsBand or KillSwitch.
    pub reason: OrdRejReason,
    /// Rule, scope and values, e.g. `risk: session.max_order_qty 5 > 2`.
    pub text: String,
}

/// Which limits a rule came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The session's limits.
    Session,
    /// The account's limits.
    Account,
}

impl Scope {
    fn name(self) -> &'static str {
        match self {
            Scope::Session => "session",
            Scope::Account => "account",
        }
    }
}

/// The new order as the rules see it.
#[derive(Debug, Clone, Copy)]
pub struct OrderView {
    /// Strategy side.
    pub side: Side,
    /// Limit or market.
    pub ord_type: OrdType,
    /// Limit price (`None` for market orders).
    pub price: Option<Decimal>,
    /// Quantity (base units).
    pub qty: Decimal,
}

/// The state a scope's rules compare against.
#[derive(Debug, Clone, Copy, Default)]
pub struct ScopeState {
    /// Orders of the scope open now (sent and not ended).
    pub open_orders: u32,
    /// The account's net position in the symbol (base units, signed: long > 0).
    pub position: Decimal,
    /// Quantity still open in the order's direction (buys for a buy, sells for a sell).
    pub open_same_side: Decimal,
    /// Current mark price of the symbol, if known.
    pub mark: Option<Decimal>,
}

fn n(v: Decimal) -> Decimal {
    v.normalized()
}

fn reject(reason: OrdRejReason, text: String) -> RiskReject {
    RiskReject { reason, text }
}

/// Checks `order` against one scope's `limits`. Errors: the first rule broken, in the order
/// max_order_qty, max_order_notional, max_open_orders, max_deviation, max_position.
pub fn check_scope(
    scope: Scope,
    limits: &RiskLimits,
    order: &OrderView,
    state: &ScopeState,
) -> Result<(), RiskReject> {
    let s = scope.name();
    if let Some(max) = limits.max_order_qty {
        if order.qty > max {
            return Err(reject(
                OrdRejReason::RiskLimit,
                format!("risk: {s}.max_order_qty {} > {}", n(order.qty), n(max)),
            ));
        }
    }
    if let Some(max) = limits.max_order_notional {
        let px = match order.ord_type {
            OrdType::Limit => order.price,
            OrdType::Market => state.mark,
        };
        let Some(px) = px else {
            return Err(reject(
                OrdRejReason::RiskLimit,
                format!("risk: {s}.max_order_notional: no mark price"),
            ));
        };
        match px.checked_mul(order.qty) {
            Some(v) if v <= max => {}
            Some(v) => {
                return Err(reject(
                    OrdRejReason::RiskLimit,
                    format!("risk: {s}.max_order_notional {} > {}", n(v), n(max)),
                ))
            }
            None => {
                return Err(reject(
                    OrdRejReason::RiskLimit,
                    format!("risk: {s}.max_order_notional overflows"),
                ))
            }
        }
    }
    if let Some(max) = limits.max_open_orders {
        if state.open_orders >= max {
            return Err(reject(
                OrdRejReason::RiskLimit,
                format!("risk: {s}.max_open_orders {} >= {max}", state.open_orders),
            ));
        }
    }
    if let (Some(ratio), Some(px), Some(mark)) = (limits.max_deviation, order.price, state.mark) {
        check_band(s, "max_deviation", ratio, px, mark)?;
    }
    if let Some(max) = limits.max_position {
        let after = match order.side {
            Side::Buy => state
                .position
                .checked_add(state.open_same_side)
                .and_then(|v| v.checked_add(order.qty)),
            Side::Sell => state
                .position
                .checked_sub(state.open_same_side)
                .and_then(|v| v.checked_sub(order.qty)),
        };
        match after.and_then(Decimal::checked_abs) {
            Some(a) if a <= max => {}
            Some(a) => {
                return Err(reject(
                    OrdRejReason::RiskLimit,
                    format!("risk: {s}.max_position {} > {}", n(a), n(max)),
                ))
            }
            None => {
                return Err(reject(
                    OrdRejReason::RiskLimit,
                    format!("risk: {s}.max_position overflows"),
                ))
            }
        }
    }
    Ok(())
}

/// Refuses `px` further than `ratio × mark` from `mark` (PriceExceedsBand); `scope.rule`
/// names it in the text.
/// The text fits the 64-byte Text field for ordinary prices.
pub fn check_band(
    scope: &str,
    rule: &str,
    ratio: Decimal,
    px: Decimal,
    mark: Decimal,
) -> Result<(), RiskReject> {
    let dist = px.checked_sub(mark).and_then(Decimal::checked_abs);
    let allowed = mark.checked_mul(ratio);
    match (dist, allowed) {
        (Some(d), Some(a)) if d <= a => Ok(()),
        _ => Err(reject(
            OrdRejReason::PriceExceedsBand,
            format!(
                "risk: {scope}.{rule} {} vs mark {} > {}",
                n(px),
                n(mark),
                n(ratio)
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn limit(side: Side, px: &str, qty: &str) -> OrderView {
        OrderView {
            side,
            ord_type: OrdType::Limit,
            price: Some(d(px)),
            qty: d(qty),
        }
    }

    fn err(l: &RiskLimits, o: &OrderView, st: &ScopeState) -> RiskReject {
        check_scope(Scope::Session, l, o, st).unwrap_err()
    }

    #[test]
    fn no_limits_pass() {
        let o = limit(Side::Buy, "100", "1000");
        assert_eq!(
            check_scope(
                Scope::Account,
                &RiskLimits::default(),
                &o,
                &ScopeState::default()
            ),
            Ok(())
        );
    }

    #[test]
    fn max_order_qty_and_notional() {
        let l = RiskLimits {
            max_order_qty: Some(d("2")),
            max_order_notional: Some(d("1000")),
            ..Default::default()
        };
        let st = ScopeState::default();
        let r = err(&l, &limit(Side::Buy, "1", "5"), &st);
        assert_eq!(r.reason, OrdRejReason::RiskLimit);
        assert_eq!(r.text, "risk: session.max_order_qty 5 > 2");
        let r = err(&l, &limit(Side::Buy, "600", "2"), &st);
        assert_eq!(r.text, "risk: session.max_order_notional 1200 > 1000");
        assert!(check_scope(Scope::Session, &l, &limit(Side::Buy, "500", "2"), &st).is_ok());
        let mkt = OrderView {
            side: Side::Sell,
            ord_type: OrdType::Market,
            price: None,
            qty: d("2"),
        };
        assert!(err(&l, &mkt, &st).text.contains("no mark price"));
        let marked = ScopeState {
            mark: Some(d("501")),
            ..st
        };
        assert!(err(&l, &mkt, &marked).text.contains("1002 > 1000"));
    }

    #[test]
    fn max_open_orders() {
        let l = RiskLimits {
            max_open_orders: Some(2),
            ..Default::default()
        };
        let o = limit(Side::Buy, "1", "1");
        let st = |n| ScopeState {
            open_orders: n,
            ..Default::default()
        };
        assert!(check_scope(Scope::Account, &l, &o, &st(1)).is_ok());
        let r = check_scope(Scope::Account, &l, &o, &st(2)).unwrap_err();
        assert_eq!(r.text, "risk: account.max_open_orders 2 >= 2");
    }

    #[test]
    fn price_band_against_mark() {
        let l = RiskLimits {
            max_deviation: Some(d("0.05")),
            ..Default::default()
        };
        let st = ScopeState {
            mark: Some(d("100")),
            ..Default::default()
        };
        assert!(check_scope(Scope::Session, &l, &limit(Side::Buy, "105", "1"), &st).is_ok());
        assert!(check_scope(Scope::Session, &l, &limit(Side::Sell, "95", "1"), &st).is_ok());
        let r = err(&l, &limit(Side::Buy, "105.1", "1"), &st);
        assert_eq!(r.reason, OrdRejReason::PriceExceedsBand);
        assert!(r.text.starts_with("risk: session.max_deviation"));
        assert!(check_scope(
            Scope::Session,
            &l,
            &limit(Side::Buy, "1", "1"),
            &ScopeState::default()
        )
        .is_ok());
    }

    #[test]
    fn max_position_counts_same_side_open_qty() {
        let l = RiskLimits {
            max_position: Some(d("3")),
            ..Default::default()
        };
        let st = ScopeState {
            position: d("1"),
            open_same_side: d("1"),
            ..Default::default()
        };
        assert!(check_scope(Scope::Account, &l, &limit(Side::Buy, "1", "1"), &st).is_ok());
        let r = check_scope(Scope::Account, &l, &limit(Side::Buy, "1", "2"), &st).unwrap_err();
        assert_eq!(r.text, "risk: account.max_position 4 > 3");
        // Selling from long 1 with 1 open sell: 1 - 1 - 5 = -5.
        let r = check_scope(Scope::Account, &l, &limit(Side::Sell, "1", "5"), &st).unwrap_err();
        assert_eq!(r.text, "risk: account.max_position 5 > 3");
        assert!(check_scope(Scope::Account, &l, &limit(Side::Sell, "1", "3"), &st).is_ok());
    }
}
