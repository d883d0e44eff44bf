//! The session journal's formats, without I/O: the record format ([`record`]: what is
//! appended to a session's journal segment, and the reader that walks it), the checkpoint
//! that starts every segment ([`checkpoint`]), and the fold that turns records into what a
//! restart needs ([`fold`]: recovery and checkpointing are the same fold). The files, the
//! writing and the rolling are the shell's (`gateway::journal`).

pub mod checkpoint;
pub mod durability;
pub mod fold;
pub mod record;
pub mod write_ahead;
