//! Pre-trade checks from the exchange's instrument set, applied on the order path before
//! anything is sent (so that nothing reaches the exchange that it would refuse for a reason the
//! gateway can know).
//!
//! Rules (Bitget instruments, reference §7): price a multiple of `priceMultiplier` (tick), qty a
//! multiple of `quantityMultiplier` (lot) and at least `minOrderQty`, at most `maxOrderQty` when
//! set, notional `price × qty` at least `minOrderAmount` for priced orders, symbol listed and
//! `online`. Each rejection names the rule in its text and carries a FIX OrdRejReason.

use std::collections::HashMap;

use codec::sbe::{Category, OrdRejReason, OrdType, Symbol, TimeInForce};
use codec::Decimal;

/// The trading rules of one instrument, in exact decimals.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct InstrumentRules {
    /// Product line.
    pub category: Category,
    /// Exchange symbol, e.g. `BTCUSDT`.
    pub symbol: Symbol,
    /// Price step (`priceMultiplier`, or 10^-pricePrecision for spot).
    pub tick: Decimal,
    /// Quantity step (`quantityMultiplier`, or 10^-quantityPrecision for spot).
    pub lot: Decimal,
    /// Smallest order quantity (`minOrderQty`).
    pub min_qty: Decimal,
    /// Largest order quantity (`maxOrderQty`; `None` when the exchange says "0" = unlimited).
    pub max_qty: Option<Decimal>,
    /// Smallest notional `price × qty` in quote coin (`minOrderAmount`).
    pub min_notional: Decimal,
    /// False when `status` is anything but `online`.
    pub online: bool,
}

/// A refusal by a pre-trade rule: the FIX reason and a text naming the rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PretradeReject {
    /// FIX OrdRejReason (tag 103).
    pub reason: OrdRejReason,
    /// Human-readable rule and values, e.g. `tick: price 100.05 is not a multiple of 0.1`.
    pub text: String,
}

fn reject(reason: OrdRejReason, text: String) -> PretradeReject {
    PretradeReject { reason, text }
}

/// The instrument set, keyed by (category, symbol). Read-only on the order path.
#[derive(Debug, Clone, Default)]
pub struct InstrumentTable {
    by_key: HashMap<(Category, Symbol), InstrumentRules>,
}

impl InstrumentTable {
    /// A table of these instruments (later entries replace earlier ones with the same key).
    pub fn new(rules: impl IntoIterator<Item = InstrumentRules>) -> Self {
        InstrumentTable {
            by_key: rules
                .into_iter()
                .map(|r| ((r.category, r.symbol), r))
                .collect(),
        }
    }

    /// Every instrument's rules (in no particular order).
    pub fn rules(&self) -> impl Iterator<Item = &InstrumentRules> {
        self.by_key.values()
    }

    /// Number of instruments.
    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    /// True when no instrument is known.
    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }

    /// True when at least one instrument of `category` is known.
    pub fn has_category(&self, category: Category) -> bool {
        self.by_key.keys().any(|(c, _)| *c == category)
    }

    /// The rules of one instrument.
    pub fn get(&self, category: Category, symbol: &Symbol) -> Option<&InstrumentRules> {
        self.by_key.get(&(category, *symbol))
    }

    /// True if `symbol` is listed (in `category`, or in any category when `None`). Scans the
    /// table: for mass actions, not the order path.
    pub fn knows_symbol(&self, symbol: &Symbol, category: Option<Category>) -> bool {
        self.by_key
            .keys()
            .any(|(c, s)| s == symbol && category.is_none_or(|want| want == *c))
    }

    fn lookup(
        &self,
        category: Category,
        symbol: &Symbol,
    ) -> Result<&InstrumentRules, PretradeReject> {
        let rules = self.get(category, symbol).ok_or_else(|| {
            reject(
                OrdRejReason::UnknownSymbol,
                format!("unknown symbol: {} in {:?}", symbol.as_str(), category),
            )
        })?;
        if !rules.online {
            return Err(reject(
                OrdRejReason::ExchangeClosed,
                format!("symbol not online: {}", symbol.as_str()),
            ));
        }
        Ok(rules)
    }

    /// Checks a NewOrderSingle. Errors: the first rule broken, in the order symbol, type,
    /// quantity (lot, min, max), price (tick), notional.
    pub fn check_new(
        &self,
        category: Category,
        symbol: &Symbol,
        ord_type: OrdType,
        tif: TimeInForce,
        price: Option<Decimal>,
        qty: Decimal,
    ) -> Result<(), PretradeReject> {
        let rules = self.lookup(category, symbol)?;
        if ord_type == OrdType::Market && tif == TimeInForce::PostOnly {
            return Err(reject(
                OrdRejReason::UnsupportedOrderCharacteristic,
                "post-only market order".to_string(),
            ));
        }
        check_qty(rules, qty)?;
        match (ord_type, price) {
            (OrdType::Limit, None) => Err(reject(
                OrdRejReason::UnsupportedOrderCharacteristic,
                "limit order without price".to_string(),
            )),
            (OrdType::Limit, Some(px)) => check_price_and_notional(rules, px, qty),
            (OrdType::Market, _) => Ok(()),
        }
    }

    /// Checks an OrderCancelReplaceRequest's new price and quantity.
    pub fn check_replace(
        &self,
        category: Category,
        symbol: &Symbol,
        price: Option<Decimal>,
        qty: Decimal,
    ) -> Result<(), PretradeReject> {
        let rules = self.lookup(category, symbol)?;
        check_qty(rules, qty)?;
        match price {
            Some(px) => check_price_and_notional(rules, px, qty),
            None => Ok(()),
        }
    }
}

fn check_qty(rules: &InstrumentRules, qty: Decimal) -> Result<(), PretradeReject> {
    if !qty.is_positive() {
        return Err(reject(
            OrdRejReason::IncorrectQuantity,
            format!("qty: {qty} is not positive"),
        ));
    }
    if !qty.is_multiple_of(rules.lot) {
        return Err(reject(
            OrdRejReason::IncorrectQuantity,
            format!("lot: qty {qty} is not a multiple of {}", rules.lot),
        ));
    }
    if qty < rules.min_qty {
        return Err(reject(
            OrdRejReason::IncorrectQuantity,
            format!("min qty: {qty} is below {}", rules.min_qty),
        ));
    }
    if let Some(max) = rules.max_qty {
        if qty > max {
            return Err(reject(
                OrdRejReason::OrderExceedsLimit,
                format!("max qty: {qty} is above {max}"),
            ));
        }
    }
    Ok(())
}

fn check_price_and_notional(
    rules: &InstrumentRules,
    px: Decimal,
    qty: Decimal,
) -> Result<(), PretradeReject> {
    if !px.is_positive() {
        return Err(reject(
            OrdRejReason::Other,
            format!("price: {px} is not positive"),
        ));
    }
    if !px.is_multiple_of(rules.tick) {
        return Err(reject(
            OrdRejReason::InvalidPriceIncrement,
            format!("tick: price {px} is not a multiple of {}", rules.tick),
        ));
    }
    match px.checked_mul(qty) {
        Some(notional) if notional >= rules.min_notional => Ok(()),
        Some(notional) => Err(reject(
            OrdRejReason::Other,
            format!("min notional: {notional} is below {}", rules.min_notional),
        )),
        None => Err(reject(
            OrdRejReason::OrderExceedsLimit,
            "notional overflows".to_string(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn table() -> InstrumentTable {
        InstrumentTable::new([InstrumentRules {
            category: Category::UsdtFutures,
            symbol: Symbol::new("BTCUSDT").unwrap(),
            tick: d("0.1"),
            lot: d("0.0001"),
            min_qty: d("0.0001"),
            max_qty: Some(d("1200")),
            min_notional: d("5"),
            online: true,
        }])
    }

    fn new(px: Option<&str>, qty: &str) -> Result<(), PretradeReject> {
        table().check_new(
            Category::UsdtFutures,
            &Symbol::new("BTCUSDT").unwrap(),
            if px.is_some() {
                OrdType::Limit
            } else {
                OrdType::Market
            },
            TimeInForce::Gtc,
            px.map(d),
            d(qty),
        )
    }

    #[test]
    fn accepts_a_valid_order() {
        assert_eq!(new(Some("60000.1"), "0.001"), Ok(()));
        assert_eq!(new(None, "0.001"), Ok(()));
    }

    #[test]
    fn names_each_rule() {
        let r = |px, q| new(px, q).unwrap_err();
        assert_eq!(
            r(Some("60000.15"), "0.001").reason,
            OrdRejReason::InvalidPriceIncrement
        );
        assert!(r(Some("60000.15"), "0.001").text.starts_with("tick:"));
        assert!(r(Some("60000"), "0.00015").text.starts_with("lot:"));
        assert_eq!(
            r(Some("60000"), "0.00015").reason,
            OrdRejReason::IncorrectQuantity
        );
        assert!(r(Some("60000"), "0").text.starts_with("qty:"));
        assert!(r(Some("1000"), "0.001").text.starts_with("min notional:"));
        assert!(r(Some("60000"), "1300").text.starts_with("max qty:"));
        let unknown = table()
            .check_new(
                Category::Spot,
                &Symbol::new("BTCUSDT").unwrap(),
                OrdType::Limit,
                TimeInForce::Gtc,
                Some(d("1")),
                d("1"),
            )
            .unwrap_err();
        assert_eq!(unknown.reason, OrdRejReason::UnknownSymbol);
    }
}
