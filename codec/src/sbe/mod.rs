//! SBE messages (stub, being written).
