//! The order tracker without I/O: [`Tracker`] owns every order's ids and state, takes the trade
//! ops written (`on_sent`), the exchange's frames (`on_inbound`), REST state
//! (`apply_exchange_state`) and ticks, each with its times as arguments, and queues the
//! ExecutionReports, OrderCancelRejects and ListStatus it produces for the shell to drain and
//! write. [`TrackerDrive`] runs it input by input as its thread does, handing what it produced
//! to a [`TrackerSink`] in a fixed order; the thread that runs it is the shell's
//! (`gateway::tracker`).

#[cfg(test)]
mod answer_tests;
pub mod core;
pub mod drive;
#[cfg(test)]
mod drive_tests;
mod epochs;
mod eviction;
pub mod exchange_state;
pub mod frames;
mod list_state;
mod lists;
pub mod mass;
#[cfg(test)]
mod mass_tests;
pub mod order;
pub mod reconcile;
pub mod report;
pub mod request;
pub mod resolve;
#[cfg(test)]
mod resolve_tests;
pub mod restore;
pub mod retention;
#[cfg(test)]
mod retention_tests;
pub mod risk_feed;
pub mod routing;
pub mod status_due;
#[cfg(test)]
mod tests;
pub mod unknown;
pub mod unseen;

pub use self::core::{Report, ReportMsg, Tracker, TrackerStats, OUTCOME_UNKNOWN_CODES};
pub use self::drive::{TrackerDrive, TrackerSink};
pub use self::lists::ListReport;
pub use self::mass::{MassCancelEvent, OrderFilter, OrderScope, OrderView};
pub use self::order::Order;
pub use self::reconcile::{ApplySummary, ExchangeState, StateSource};
pub use self::request::{BatchItem, ListDone, NewOrder, RequestKind, SentBatch, SentRequest};
pub use self::resolve::{ClockOffset, Deadlines, ResolveRequest, UnknownCause};
pub use self::retention::{Evicted, OrderCounts, Retention, Tombstone};
