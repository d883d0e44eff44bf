//! Wire formats of the order gateway, without I/O.
//!
//! - [`decimal`]: exact decimals (`i64` mantissa, `i8` exponent) for prices and quantities.
//! - [`frame`]: Simple Open Framing Header (FIX SOFH 1.0) framing of the strategy link.
//! - [`sbe`]: SBE 1.0 messages of the strategy link (schema `codec/schema/bgw.xml`), one module
//!   per message family.
//! - [`fuzzing`]: fuzz harnesses of the decoders (cargo-fuzz targets and stable property tests).
//! - [`json`]: Bitget UTA v3 private-WebSocket JSON: a hand-written writer for trade operations
//!   and simd-json parsers for replies, pushes and control events.
//! - [`bridge`]: the enum maps between the two (`From` impls), each written once.

pub mod bridge;
pub mod decimal;
pub mod frame;
pub mod fuzzing;
pub mod json;
pub mod sbe;

pub use decimal::{Decimal, DecimalError, Rounding};
