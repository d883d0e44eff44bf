//! Pre-trade risk and the kill switch.
//!
//! - [`check`]: the rules, sans-I/O (quantity, notional, open orders, price band, position);
//! - [`RiskBook`]: the shared state (atomics): counters and reservations from the io thread,
//!   fills and ended orders from the tracker, marks, kill-switch flags;
//! - [`config`]: the limits as configured.

pub mod book;
pub mod check;
pub mod config;
pub mod report;

pub use self::book::{Reserved, RiskBook, RiskInstrument, DRAINING_REASON, DRAINING_TEXT};
pub use self::check::{OrderView, RiskReject, Scope};
pub use self::config::{RiskConfig, RiskLimits, RiskSettings};
pub use self::report::order_view;
