//! The order gateway: strategy sessions (SOFH/SBE, FIXP-style) in, Bitget UTA v3 private-WebSocket
//! trade operations out, order state tracked on a pinned thread, latency measured per leg.

pub mod config;
pub mod engine;
pub mod exchange;
pub mod metrics;
pub mod session;
pub mod tracker;
