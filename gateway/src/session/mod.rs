//! The strategy side of the gateway: the FIXP session layer, the per-session order path, and the
//! shared writer of each connection.

pub mod batch_entry;
pub mod fixp;
pub mod order_entry;
pub mod out;
