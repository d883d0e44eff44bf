//! The simulator's REST API (`/api/v3`, reference §7), one module per endpoint family, over the
//! shared envelope, signature and quota helpers of [`reply`].

pub(crate) mod account;
pub(crate) mod coins;
pub(crate) mod market;
pub(crate) mod moves;
pub(crate) mod orders;
pub(crate) mod reply;
pub(crate) mod trade;

pub use orders::instrument_json;
