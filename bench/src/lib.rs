//! Demo strategy, load generator and same-run baselines for the order gateway.

pub mod demo;
pub mod load;
pub mod relay;
pub mod rig;
pub mod soak;
