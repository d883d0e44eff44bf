//! The session journal's record format ([`record`]): what is appended to a session's journal
//! file, and the reader that walks it. The files and the writing are the shell's
//! (`gateway::journal`).

pub mod record;
