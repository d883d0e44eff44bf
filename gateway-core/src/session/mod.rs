//! The strategy side's decisions: the FIXP session state machine ([`fixp`]), and the order path
//! of each session: single requests ([`order_entry`]) and lists ([`batch_entry`]). The
//! connection's writer is the shell's (`gateway::session::out`).

pub mod backlog;
pub mod batch_entry;
pub mod cl_ord_ids;
pub mod epoch_end;
pub mod fixp;
pub mod order_entry;
pub mod retransmit;
pub mod rollover;
pub mod used_ids;
