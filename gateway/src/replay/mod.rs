//! Recording of the tracker's inputs and outputs, and deterministic replay through a fresh
//! sans-I/O [`Tracker`](crate::tracker::Tracker).
//!
//! With `[record] path = "..."` (or [`EngineSettings::record`](crate::engine::EngineSettings))
//! the tracker thread writes every [`TrackerInput`](crate::tracker::TrackerInput) it consumes,
//! with the wall-clock time it passed to the core, and every frame the core made it write.
//! [`replay_file`] feeds the inputs to a new tracker with the recorded times and compares each
//! output byte for byte. Off by default; when off the tracker thread pays one branch per input.
//!
//! # File format (version 4)
//!
//! - header: `b"BGWREC"` then `u16` LE version;
//! - records: `u32` LE length `n`, then `n` bytes: the [postcard](https://docs.rs/postcard)
//!   encoding of one [`Record`] (its first byte is the record kind, the variant index: 0 input,
//!   1 report, 2 open order, 3 instruments, 4 entry reset, 5 order entry, 6 entry state).
//!   The recorded types are defined once, with serde derives; `format.rs` says what changes
//!   the format.
//!   - input: UTC ns the driver used, then the [`RecordedInput`] (variant index, then its
//!     fields; [`RecordedInput::Skipped`] = an input that cannot be replayed, skipped and
//!     counted; [`RecordedInput::Tick`] = a watchdog tick that queued reports, with its
//!     monotonic time and deadlines, appended after `Skipped` so that older files still read);
//!   - report: SessionID, then one SBE frame (SOFH included) as written;
//!   - open-order answer: SessionID, root ClOrdID, then the ExecutionReport (OrderStatus)
//!     frame;
//!   - instruments (io stream): the rules order entry checks against, sorted by category and
//!     symbol;
//!   - order-entry reset (io stream): SessionID (session established);
//!   - order entry (io stream): SessionID, request id, UTC ns, the strategy message as an SBE
//!     frame, then true and the trade-op JSON, or false and the answer frame, then the
//!     refusal after order entry if any (`decision::Refusal`: account, risk, kill switch,
//!     rate budget, write; version 4), recorded once the decision and the send are done;
//!   - entry state (io stream): SessionID, the ClOrdID → root pairs and the ListIDs the
//!     session's order entry already holds, sorted.
//!
//! Older versions (1: hand-written records; 2: Restore without the unanswered cancel and
//! replace ClOrdIDs; 3: order entry without the refusal) are refused with
//! [`ReplayError::Obsolete`]: record again with this build.
//!
//! Two streams share the file: the tracker thread's (inputs, reports, open orders) and the io
//! thread's order entry (the others); each keeps its own order. Tracker outputs follow the
//! input that produced them. The io stream covers
//! [`OrderEntry`](crate::session::order_entry::OrderEntry) and the answer to a refusal after
//! it: the refusal itself (what the account, the risk book or the rate budget said) is an input
//! the recording holds, as it holds exchange frames; the replay checks that order entry accepted
//! the request and that the answer is the same bytes. Not covered: the FIXP session layer (a
//! message it refuses never reaches order entry). A truncated last record (the gateway was
//! killed mid-write) ends the file.

mod recorder;
#[cfg(test)]
mod tests;

pub use self::recorder::{RecordTx, Recorder};
pub use gateway_core::replay::{
    order_trace, records_of, replay_bytes, Mismatch, ReplayReport, Stream,
};
pub use gateway_core::replay::{Record, RecordedInput, ReplayError, MAGIC, VERSION};

/// Replays the recording at `path` ([`replay_bytes`], in `gateway_core::replay`). Errors:
/// unreadable file, bad header, malformed record.
pub fn replay_file(path: &std::path::Path) -> Result<ReplayReport, ReplayError> {
    let bytes = std::fs::read(path).map_err(|source| ReplayError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    replay_bytes(&bytes)
}
