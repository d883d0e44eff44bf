//! The order gateway: strategy sessions (SOFH/SBE, FIXP-style) in, Bitget UTA v3 private-WebSocket
//! trade operations out, order state tracked on a pinned thread, latency measured per leg.
//!
//! Threads: the io thread ([`engine`]) runs every strategy connection and the exchange
//! WebSocket, so the order path from a strategy frame to the WebSocket write never waits for
//! another thread; the tracker thread ([`tracker`]) owns order state and writes
//! ExecutionReports; a reporter thread prints and logs latency.

pub mod check_config;
pub mod config;
pub mod control;
pub mod ctl;
pub mod engine;
pub mod exchange;
pub mod fuzzing;
pub mod idle;
pub mod journal;
pub mod logging;
pub mod memory;
pub mod metrics;
pub mod replay;
pub mod session;
pub mod tmpfs;
pub mod tracker;

pub use gateway_core::{budget, ids, moves, pretrade, risk, types};
