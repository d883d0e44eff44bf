//! The strategy side of the gateway: the FIXP session layer and the per-session order path
//! (decisions in `gateway_core::session`, re-exported here), and the shared writer of each
//! connection ([`out`]).

pub use gateway_core::session::{batch_entry, fixp, order_entry};
pub mod out;
