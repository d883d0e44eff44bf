//! Venue simulator: a local stand-in for the Bitget UTA v3 service.

pub mod matching;
