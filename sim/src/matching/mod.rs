//! Sans-I/O matching engine: one [`Book`] per (category, symbol).
//!
//! The engine takes the current time (`now_ms`) and an [`IdGen`] as inputs and appends
//! [`Event`]s to a caller-owned vector; it never touches a socket or a clock. Prices and
//! quantities are kept as exact integers (price units of `10^price_exp`, quantity units of
//! `10^qty_exp`, see [`InstrumentSpec`]) and turned back into [`Decimal`]s at the edges.
//!
//! # Order-push sequences (what a client sees on the `order` topic)
//!
//! One order event is emitted per state change, in this order:
//!
//! | Situation | Pushes for the order |
//! | --- | --- |
//! | limit order rests without a fill | `live` |
//! | immediate full fill by one match | `filled` |
//! | several matches (taker over several makers, or a maker hit several times) | `partially_filled` per non-final match … `filled` |
//! | partial fill, remainder rests (gtc) | `partially_filled` per match (the last push is the resting state) |
//! | IOC / market remainder | `partially_filled` per match, then `cancelled` / `ioc_not_full_cancel` |
//! | IOC / market without any fill | `cancelled` / `ioc_not_full_cancel` |
//! | FOK that cannot fill completely | `cancelled` / `fok_not_full_cancel` (no fill) |
//! | post_only that would take | `cancelled` / `post_only_fill_cancel` |
//! | user cancel | `cancelled` / `normal_cancel` |
//! | self-trade prevention | `cancelled` / `stp_cancel` for the cancelled side |
//! | accepted modify | one push with the new price/qty and the current status (`live` or `partially_filled`), then match pushes if the new price crosses |
//!
//! We never emit `new` (the reference allows `new → filled` or a bare `filled`; we chose the
//! bare terminal push, which gateways must accept anyway). Rejected requests produce an error
//! reply and no push. For each match the taker's order push and fill come first, then the
//! maker's order push and fill.

mod book;
mod types;

#[cfg(test)]
mod tests;

pub use book::{Book, InstrumentSpec};
pub use types::{
    AccountId, CancelReason, Event, Fill, IdGen, NewOrder, Order, OrderStatus, OrderType, PosSide,
    Reject, Side, StpMode, TimeInForce, TradeScope,
};

pub use codec::Decimal;
