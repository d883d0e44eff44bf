//! Bitget UTA v3 private-WebSocket JSON (reference `bitget-uta-v3.md` §1.3, §3, §4, §5, §6).
//!
//! - [`enums`]: Bitget string enums (`category`, `side`, `orderStatus`, …).
//! - [`writer`]: hand-written writers of trade ops, login and subscribe requests into a reused
//!   `Vec<u8>` (no serde on the outbound path).
//! - [`parse`]: [`JsonParser`], simd-json into borrowed shapes (no DOM) for replies, pushes and
//!   control events.

pub mod enums;
pub mod parse;
mod raw;
pub mod writer;

pub use enums::{Category, OrderStatus, OrderType, PosSide, Side, StpMode, TimeInForce};
pub use parse::{Code, FillPush, Inbound, JsonError, JsonParser, OrderPush, TradeItem, TradeReply};
pub use writer::{
    write_batch_cancel, write_batch_modify, write_batch_place, write_cancel_order, write_json_str,
    write_login, write_modify_order, write_place_order, write_subscribe, CancelOrder, ModifyOrder,
    PlaceOrder, SubscribeArg, PING,
};
