//! Bitget UTA v3 private-WebSocket JSON (reference `bitget-uta-v3.md` §1.3, §3, §4, §5, §6).
//!
//! - [`enums`]: Bitget string enums (`category`, `side`, `orderStatus`, …).
//! - [`writer`]: hand-written writers of trade ops, login and subscribe requests into a reused
//!   `Vec<u8>` (no serde on the outbound path).
//! - [`parse`]: [`JsonParser`], simd-json into borrowed shapes (no DOM) for replies, pushes and
//!   control events.
//!
//! ```
//! use codec::json::*;
//!
//! let mut out = Vec::with_capacity(512); // reused for every request
//! let cancel = CancelOrder { order_id: Some("1352473539865894955"), ..Default::default() };
//! write_cancel_order(&mut out, "c1", Some(Category::UsdtFutures), &cancel);
//! assert!(out.starts_with(br#"{"op":"trade","id":"c1","category":"usdt-futures""#));
//!
//! let mut parser = JsonParser::new(); // one per connection
//! let frame = br#"{"event":"error","id":"c1","code":"25204","msg":"Order does not exist"}"#;
//! match parser.parse(frame) {
//!     Ok(Inbound::Error { id: Some("c1"), code, .. }) => assert_eq!(code, Code(25204)),
//!     other => panic!("{other:?}"),
//! };
//! ```

mod code;
pub mod enums;
pub mod parse;
mod raw;
pub mod writer;

pub use enums::{Category, HoldMode, OrderStatus, OrderType, PosSide, Side, StpMode, TimeInForce};
pub use parse::{
    Code, CoinPush, FillPush, Inbound, JsonError, JsonParser, OrderPush, PositionPush, TradeItem,
    TradeReply,
};
pub use writer::{
    write_batch_cancel, write_batch_modify, write_batch_place, write_cancel_order, write_json_str,
    write_login, write_modify_order, write_place_order, write_subscribe, CancelOrder, ModifyOrder,
    PlaceOrder, SubscribeArg, PING,
};
