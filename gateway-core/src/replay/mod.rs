//! The replay recording format: a file header ([`MAGIC`], [`VERSION`]), then length-prefixed
//! records, each the postcard encoding of one [`Record`] (a tracker input in its recorded form,
//! a report written, an order-entry event). Recording (a thread writing the file) and replaying
//! (driving the tracker and order entry again) are the shell's: `gateway::replay`, whose module
//! docs give the layout in full.

mod error;
mod format;
mod header;

pub use error::ReplayError;
pub use format::{body, entry_result, records, Record, RecordedInput};
pub use header::{MAGIC, VERSION};
