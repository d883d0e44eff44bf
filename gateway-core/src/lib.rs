//! Every decision of the order gateway, without I/O: the FIXP session, order and batch entry,
//! pre-trade instrument checks, the risk check and book, the rate budget, ids, the order
//! tracker (ExecutionReports from the exchange's replies, pushes and REST state), the resolver
//! of unknown outcomes (which REST queries to make, when), the journal
//! record format and the types the roles share.
//!
//! No async runtime, no sockets, no threads, no clocks: every time is an argument (`now_ns`
//! monotonic, `utc_ns` wall clock), inputs come in as values and parsed frames, and outputs
//! (trade-op JSON to send, reports to write, resolution requests) come out as values. The
//! `gateway` crate is the shell that owns the sockets, threads and clocks and calls in here.
//! Model: quinn-proto under quinn, rustls' connection state (`shared/DESIGN.md` §2).

pub mod admission;
pub mod budget;
pub mod decision;
pub mod health;
pub mod ids;
pub mod journal;
pub mod key_table;
pub mod metrics;
pub mod moves;
pub mod pretrade;
pub mod recovery;
pub mod replay;
pub mod resolver;
pub mod rest_objects;
pub mod risk;
pub mod session;
pub mod tracker;
pub mod types;
