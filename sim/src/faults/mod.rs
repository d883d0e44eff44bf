//! Faults on demand: what a test (through [`FaultControl`], `SimHandle::faults()`), the
//! configuration (`[faults]`, [`FaultsConfig`]) or the optional HTTP control endpoint
//! (`POST /sim/control/faults`, off unless `faults.control_api = true`) asks the simulator to do
//! wrong, and the per-connection machinery that applies it on the WebSocket send path.
//!
//! | Fault | Effect seen by the client |
//! | --- | --- |
//! | close connections | a WebSocket close frame, then the socket is gone |
//! | service upgrade | `{"event":"error","code":30033,"msg":..}`, then close after a delay |
//! | delay replies (ms) | replies to requests are written that much later; pushes are not held back, so the pushes a request caused can arrive before its reply |
//! | delay pushes (ms) | every push is written that much later; replies (and `pong`) overtake it |
//! | duplicate pushes | every push is written twice |
//! | reorder pushes (window ms) | pushes are swapped pairwise: a push is held until the next one has been written (or until the window ends) |
//! | pause pushes / resume | pushes are dropped (never written) while paused; the socket stays open and replies keep coming |
//! | silence (on/off) | every frame (pushes, replies, `pong`) is dropped while on; the socket stays open |
//! | reject trade ops | the next N trade ops (optionally of one topic) get `{"event":"error","id":..,"code":"<code>","msg":..}` and are not applied |
//! | outcome unknown | the next N trade ops get `{"event":"error","id":..,"code":"40010","msg":"Request timed out"}`, either after the op was applied (the order exists and its pushes follow) or without applying it |
//!
//! Each fault targets all connections ([`Scope::All`]) or those logged in as one account
//! ([`Scope::Uid`]). Connection faults (delays, duplicates, reorder, pause) of both scopes
//! combine field by field (longest delay, any flag). Trade-op rules are used in the order they
//! were added. Trade-op rules also answer the REST `place-order` / `modify-order` /
//! `cancel-order` endpoints (HTTP 400 with the code); the send-path faults are WebSocket only.

mod config;
mod control;
mod http;
mod model;
mod outbox;
mod table;
pub use config::{FaultsConfig, TradeRuleConfig, TradeRuleKind};
pub use control::{FaultControl, FaultError};
pub(crate) use http::control_endpoint;
pub use model::Scope;
pub(crate) use model::{Control, Target, TradeFault};
pub(crate) use outbox::Outbox;
pub(crate) use table::Faults;
