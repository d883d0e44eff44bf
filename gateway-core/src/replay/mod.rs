//! The replay recording format: a file header ([`MAGIC`], [`VERSION`]), then length-prefixed
//! records, each the postcard encoding of one [`Record`] (a tracker input in its recorded form,
//! a report written, an order-entry event); the replay ([`replay_bytes`]: a fresh tracker and
//! fresh order entries driven by the recorded inputs and times, every output compared byte for
//! byte) and one order's trace through a recording ([`order_trace`]). Recording (a thread
//! writing the file) and reading files are the shell's: `gateway::replay`, whose module docs
//! give the layout in full.

mod error;
mod format;
mod header;
mod run;
mod trace;

pub use error::ReplayError;
pub use format::{body, entry_result, records, Record, RecordedInput};
pub use header::{MAGIC, VERSION};
pub use run::{records_of, replay_bytes, Mismatch, ReplayReport, Stream};
pub use trace::order_trace;
