//! Deterministic simulation of the whole gateway (issue 25; `shared/DESIGN.md` §2 `dst/`):
//! the gateway-core components as the shell drives them, the simulator's `Venue` for the
//! exchange, strategies that keep their own view of every order, all under one seeded
//! scheduler with a simulated clock. The same seed gives the same run, event for event (a
//! SHA-256 over the trace is printed); faults are drawn from the seed and injected far more
//! often than reality (link drops, lost and `40010` replies, pushes before replies, stalls,
//! REST errors and slowness, clock jumps, strategy drops, Terminates and RetransmitRequests,
//! rate refusals, session rollovers, gateway crashes at any step and restarts from the
//! journal); invariants are checked on every message and at the end (no ExecutionReport
//! repeated or lost, no sequence number given to two messages, CumQty = Σ LastQty = the
//! venue's cumExecQty, no clientOid twice, every cancel and replace answered once, sequence
//! numbers gapless, a restored tracker agreeing with the crashed one, risk reservations back
//! to zero, every request answered within [`world::LIVENESS_NS`] of the faults stopping).
//!
//! Layout: [`rng`] (the seeded stream), [`sched`] (clock and event queue), [`faults`] (what a
//! run injects), [`exchange`] (the venue and its market maker), [`gateway`] (the core
//! components wired as the shell wires them), [`journal`] (a session's journal as in-memory
//! segments with checkpoints, crashes and recovery), [`strategy`] (the strategies and the per-message
//! checks), [`check`] (violations), [`trace`] (the hash), [`world`] (one run),
//! [`sweep`] (many seeds on many threads). `docs/testing.md` "Deterministic simulation" says
//! how to run and replay.

pub mod check;
pub mod exchange;
pub mod faults;
pub mod gateway;
pub mod journal;
pub mod rng;
pub mod sched;
pub mod strategy;
pub mod sweep;
pub mod trace;
pub mod world;

pub use world::{run, RunConfig, RunResult};

#[cfg(test)]
mod strategy_tests;
