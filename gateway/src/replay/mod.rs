//! Recording of the tracker's inputs and outputs, and deterministic replay through a fresh
//! sans-I/O [`Tracker`](crate::tracker::Tracker).
//!
//! With `[record] path = "..."` (or [`EngineSettings::record`](crate::engine::EngineSettings))
//! the tracker thread writes every [`TrackerInput`](crate::tracker::TrackerInput) it consumes,
//! with the wall-clock time it passed to the core, and every frame the core made it write.
//! [`replay_file`] feeds the inputs to a new tracker with the recorded times and compares each
//! output byte for byte. Off by default; when off the tracker thread pays one branch per input.
//!
//! # File format (version 1, all integers little-endian)
//!
//! - header: `b"BGWREC"` then `u16` version;
//! - records: `u32` length `n`, then `n` bytes: a `u8` kind and its body.
//!   - kind 1, input: `u64` UTC ns the driver used, then the input (`u8` tag and fields, see
//!     `format.rs`); tag 0 = an input that cannot be replayed (skipped and counted);
//!   - kind 2, report: `u64` SessionID, then one SBE frame (SOFH included) as written;
//!   - kind 3, open-order answer: `u64` SessionID, `u64` root ClOrdID, then the
//!     ExecutionReport (OrderStatus) frame;
//!   - kind 4, instruments (io stream): `u32` count, then per instrument category, symbol,
//!     tick, lot, min qty, optional max qty, min notional, `u8` online;
//!   - kind 5, order-entry reset (io stream): `u64` SessionID (session established);
//!   - kind 6, order entry (io stream): `u64` SessionID, `u64` request id, `u64` UTC ns, the
//!     strategy message as a length-prefixed SBE frame, `u8` 1 = sent (rest: trade-op JSON)
//!     or 0 = refused (rest: the reject frame).
//!
//! Two streams share the file: the tracker thread's (kinds 1-3) and the io thread's order
//! entry (kinds 4-6); each keeps its own order. Tracker outputs follow the input that produced
//! them. The io stream covers [`OrderEntry`](crate::session::order_entry::OrderEntry) only
//! (not the FIXP session layer, risk, budget or link state: a message refused by those never
//! reaches order entry and is not recorded). A truncated last record (the gateway was
//! killed mid-write) ends the file.

mod format;
mod recorder;
mod run;
#[cfg(test)]
mod tests;

pub use self::format::{Record, RecordedInput, MAGIC, VERSION};
pub use self::recorder::{RecordTx, Recorder};
pub use self::run::{records_of, replay_bytes, replay_file, Mismatch, ReplayReport, Stream};

/// Why a recording could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file does not start with the `BGWREC` header.
    #[error("not a gateway recording (bad header)")]
    BadHeader,
    /// The header names a version this build does not read.
    #[error("recording version {0} is not supported (this build reads {VERSION})")]
    Version(u16),
    /// A record's body does not decode.
    #[error("record {index} is malformed: {what}")]
    Malformed {
        /// Index of the record (0 = first after the header).
        index: u64,
        /// What was wrong.
        what: &'static str,
    },
}
