//! Exchange connectivity to Bitget UTA v3: request signing, the TLS configuration, the private
//! WebSocket client (login, subscriptions, keepalive) and the REST client (instruments, signed
//! helpers).
//!
//! Wire facts come from `shared/reference/bitget-uta-v3.md` (sections cited per item).

pub mod backoff;
pub mod error;
pub mod keepalive;
pub mod query_pace;
pub mod rest;
pub mod rest_account;
pub mod rest_cancel_all;
pub mod rest_history;
pub mod rest_orders;
pub mod sign;
pub mod silence;
pub mod tls;
pub mod ws;

pub use error::ExchangeError;
pub use keepalive::{Keepalive, KeepaliveAction};
pub use rest::{Instrument, InstrumentStatus, RestClient};
pub use sign::{rest_sign, ws_login_sign, Secret, REDACTED};
pub use tls::client_config;
pub use ws::{connect_private, ExchangeCredentials, PrivateWs};

/// The shared Bitget fixtures directory for tests: `$CARGO_MANIFEST_DIR/../../shared/fixtures/
/// bitget-uta`, else `$BGW_SHARED_DIR/fixtures/bitget-uta`.
#[cfg(test)]
pub(crate) fn fixtures_dir() -> std::path::PathBuf {
    let here = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures/bitget-uta");
    if here.is_dir() {
        return here;
    }
    let shared = std::env::var("BGW_SHARED_DIR")
        .expect("shared fixtures not found: set BGW_SHARED_DIR (e.g. /work/shared)");
    std::path::PathBuf::from(shared).join("fixtures/bitget-uta")
}
