//! Bitget JSON (stub, being written).
