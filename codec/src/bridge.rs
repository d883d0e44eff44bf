//! The enum maps between the strategy link ([`crate::sbe`], schema `bgw.xml`) and the exchange
//! ([`crate::json`], Bitget UTA v3 reference §4-§7), each written once, as `From` impls. The
//! gateway converts with `.into()` / `T::from` wherever an SBE value becomes a Bitget field or
//! the reverse; nothing else spells these matches.
//!
//! One to one: Category, Side, OrdType ↔ `orderType`, TimeInForce, HoldMode. With a "not set"
//! value on the SBE side (sent as an absent field): PosSide ↔ `Option<posSide>`, StpMode ↔
//! `Option<stpMode>`. Lossy by nature: OrdStatus ↔ `orderStatus` (FIX has Rejected and the
//! pending states, Bitget has `live` and `new` for an open order).

use crate::json;
use crate::sbe;

/// Both `From` impls of two enums with the same variant names.
macro_rules! one_to_one {
    ($sbe:ident <=> $json:ident { $($variant:ident),+ $(,)? }) => {
        impl From<sbe::$sbe> for json::$json {
            #[inline]
            fn from(v: sbe::$sbe) -> Self {
                match v {
                    $(sbe::$sbe::$variant => json::$json::$variant,)+
                }
            }
        }

        impl From<json::$json> for sbe::$sbe {
            #[inline]
            fn from(v: json::$json) -> Self {
                match v {
                    $(json::$json::$variant => sbe::$sbe::$variant,)+
                }
            }
        }
    };
}

one_to_one!(Category <=> Category { Spot, Margin, UsdtFutures, CoinFutures, UsdcFutures });
one_to_one!(Side <=> Side { Buy, Sell });
one_to_one!(OrdType <=> OrderType { Limit, Market });
one_to_one!(TimeInForce <=> TimeInForce { Gtc, Ioc, Fok, PostOnly });
one_to_one!(HoldMode <=> HoldMode { OneWay, Hedge });

/// `posSide` of a request: none in one-way mode.
impl From<sbe::PosSide> for Option<json::PosSide> {
    #[inline]
    fn from(p: sbe::PosSide) -> Self {
        match p {
            sbe::PosSide::None => None,
            sbe::PosSide::Long => Some(json::PosSide::Long),
            sbe::PosSide::Short => Some(json::PosSide::Short),
        }
    }
}

/// `posSide` / `holdSide` of a push: absent is [`sbe::PosSide::None`].
impl From<Option<json::PosSide>> for sbe::PosSide {
    #[inline]
    fn from(p: Option<json::PosSide>) -> Self {
        match p {
            None => sbe::PosSide::None,
            Some(json::PosSide::Long) => sbe::PosSide::Long,
            Some(json::PosSide::Short) => sbe::PosSide::Short,
        }
    }
}

/// `stpMode` of a request: [`sbe::StpMode::Default`] leaves the field out (the account's
/// default applies).
impl From<sbe::StpMode> for Option<json::StpMode> {
    #[inline]
    fn from(s: sbe::StpMode) -> Self {
        match s {
            sbe::StpMode::Default => None,
            sbe::StpMode::None => Some(json::StpMode::None),
            sbe::StpMode::CancelTaker => Some(json::StpMode::CancelTaker),
            sbe::StpMode::CancelMaker => Some(json::StpMode::CancelMaker),
            sbe::StpMode::CancelBoth => Some(json::StpMode::CancelBoth),
        }
    }
}

/// The FIX status of an exchange order: `live` and `new` are New; `cancelled` is Canceled.
impl From<json::OrderStatus> for sbe::OrdStatus {
    #[inline]
    fn from(s: json::OrderStatus) -> Self {
        match s {
            json::OrderStatus::Live | json::OrderStatus::New => sbe::OrdStatus::New,
            json::OrderStatus::PartiallyFilled => sbe::OrdStatus::PartiallyFilled,
            json::OrderStatus::Filled => sbe::OrdStatus::Filled,
            json::OrderStatus::Cancelled => sbe::OrdStatus::Canceled,
        }
    }
}

/// The exchange status a FIX status stands for (an order the exchange has: Canceled and
/// Rejected are `cancelled`, the open and pending states `live`).
impl From<sbe::OrdStatus> for json::OrderStatus {
    #[inline]
    fn from(s: sbe::OrdStatus) -> Self {
        match s {
            sbe::OrdStatus::PartiallyFilled => json::OrderStatus::PartiallyFilled,
            sbe::OrdStatus::Filled => json::OrderStatus::Filled,
            sbe::OrdStatus::Canceled | sbe::OrdStatus::Rejected => json::OrderStatus::Cancelled,
            sbe::OrdStatus::New
            | sbe::OrdStatus::PendingCancel
            | sbe::OrdStatus::PendingNew
            | sbe::OrdStatus::PendingReplace => json::OrderStatus::Live,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_to_one_maps_round_trip_and_keep_the_spelling() {
        for c in json::Category::ALL {
            let s: sbe::Category = (*c).into();
            assert_eq!(json::Category::from(s), *c);
        }
        for s in json::Side::ALL {
            assert_eq!(json::Side::from(sbe::Side::from(*s)), *s);
        }
        for t in json::OrderType::ALL {
            assert_eq!(json::OrderType::from(sbe::OrdType::from(*t)), *t);
        }
        for t in json::TimeInForce::ALL {
            assert_eq!(json::TimeInForce::from(sbe::TimeInForce::from(*t)), *t);
        }
        for h in json::HoldMode::ALL {
            assert_eq!(json::HoldMode::from(sbe::HoldMode::from(*h)), *h);
        }
        assert_eq!(
            json::Category::from(sbe::Category::UsdtFutures).as_rest_str(),
            "USDT-FUTURES"
        );
        assert_eq!(
            json::TimeInForce::from(sbe::TimeInForce::PostOnly).as_str(),
            "post_only"
        );
    }

    #[test]
    fn not_set_values_are_absent_fields() {
        assert_eq!(Option::<json::PosSide>::from(sbe::PosSide::None), None);
        assert_eq!(
            sbe::PosSide::from(Some(json::PosSide::Short)),
            sbe::PosSide::Short
        );
        assert_eq!(
            sbe::PosSide::from(None::<json::PosSide>),
            sbe::PosSide::None
        );
        assert_eq!(Option::<json::StpMode>::from(sbe::StpMode::Default), None);
        assert_eq!(
            Option::<json::StpMode>::from(sbe::StpMode::CancelBoth),
            Some(json::StpMode::CancelBoth)
        );
    }

    #[test]
    fn statuses_map_open_and_terminal_states() {
        assert_eq!(
            sbe::OrdStatus::from(json::OrderStatus::Live),
            sbe::OrdStatus::New
        );
        assert_eq!(
            sbe::OrdStatus::from(json::OrderStatus::Cancelled),
            sbe::OrdStatus::Canceled
        );
        assert_eq!(
            json::OrderStatus::from(sbe::OrdStatus::Rejected),
            json::OrderStatus::Cancelled
        );
        assert_eq!(
            json::OrderStatus::from(sbe::OrdStatus::PendingNew),
            json::OrderStatus::Live
        );
    }
}
